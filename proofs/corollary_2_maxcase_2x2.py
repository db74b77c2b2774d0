"""QIF paper, Corollary 2: on 2x2 channels average-case and max-case refinement coincide.

Statement. For 2x2 channels C, D: C ⊑ D <=> C ⊑max D.

Proof checked here. C ⊑max D means D = C·R for an entrywise nonnegative R (equivalently, D's
uniform-prior posteriors lie in the convex hull of C's: Lemma 1 (2)). When C has distinct rows
it is invertible, R = C^-1 D is the only solution, and its rows sum to 1 because C·1 = 1 and
D·1 = 1 (symbolic identity below): a nonnegative R is then row-stochastic, i.e. a refinement
witness. When C has equal rows, C·R has equal rows for every R, so both relations say exactly
"D has equal rows". The converse (⊑ implies ⊑max) holds for all channels.
Checked against the library: q.refines and q.max_case_refines agree on 60 random 2x2 pairs
(both directions), and the corollary is specific to two outputs: an exact 2x3 example has
C ⊑max D but C ⋢ D.
"""

from __future__ import annotations

import random

from _certificate import Proof, run, vanishes


def main() -> int:
    import numpy as np
    import sympy as sp

    import qifldp as q
    from qifldp.symbolic import SymbolicChannel

    P = Proof(
        "Corollary 2: for 2x2 channels, C ⊑ D <=> C ⊑max D",
        "QIF paper (Gonze et al., CSF 2026), Corollary 2 (from Lemma 1)",
    )
    a, b, c, d = sp.symbols("alpha_C beta_C alpha_D beta_D", real=True)
    C = SymbolicChannel([[1 - a, a], [b, 1 - b]])
    D = SymbolicChannel([[1 - c, c], [d, 1 - d]])

    P.section("the only candidate R = C^-1 D is automatically row-stochastic when nonnegative")
    R = C.matrix.inv() * D.matrix
    P.step("C·R = D", vanishes(C.matrix * R - D.matrix))
    P.step(
        "R·1 = 1 (rows of R sum to 1) for every C with det C = 1 - alpha_C - beta_C != 0",
        vanishes(R * sp.ones(2, 1) - sp.ones(2, 1)),
    )
    P.note("so {R >= 0 : C R = D} = {W row-stochastic : C W = D}: C ⊑max D <=> C ⊑ D.")
    w = sp.Matrix(2, 2, sp.symbols("r0:4"))
    Ceq = sp.Matrix([[1 - a, a], [1 - a, a]])
    P.step(
        "equal rows (det C = 0): C·R has equal rows for every R, so both relations mean 'D has "
        "equal rows' "
        "(and then W = [D[0]; D[0]] is a stochastic witness: C·W = D)",
        vanishes((Ceq * w)[0, :] - (Ceq * w)[1, :])
        and vanishes(
            Ceq * sp.Matrix([[1 - c, c], [1 - c, c]]) - sp.Matrix([[1 - c, c], [1 - c, c]])
        ),
    )

    P.section("library: q.refines and q.max_case_refines on random 2x2 pairs")
    rng = random.Random(22)
    stats = {True: 0, False: 0}
    bad = []
    for _ in range(60):
        A = q.Channel([[x := rng.random(), 1 - x], [z := rng.random(), 1 - z]])
        B = q.Channel([[x := rng.random(), 1 - x], [z := rng.random(), 1 - z]])
        r, m = q.refines(A, B), q.max_case_refines(A, B)
        stats[bool(r.holds)] += 1
        if bool(r.holds) != bool(m.holds):
            bad.append((A.matrix.tolist(), B.matrix.tolist(), r.holds, m.holds))
        if m.holds and (m.witness is None or np.abs(A.matrix @ m.witness - B.matrix).max() > 1e-7):
            bad.append(("bad max-case witness", A.matrix.tolist(), B.matrix.tolist()))
    P.step(
        "verdicts agree on all 60 pairs; every max-case witness R satisfies A·R = B",
        not bad and stats[True] > 10 and stats[False] > 10,
        f"{stats[True]} refine, {stats[False]} do not; disagreements: {bad[:2]}",
    )

    P.section("the corollary needs two outputs: a 2x3 channel C with C ⊑max D but C ⋢ D")
    Cx = sp.Matrix(
        [
            [sp.Rational(9, 100), sp.Rational(9, 10), sp.Rational(1, 100)],
            [sp.Rational(1, 100), sp.Rational(9, 10), sp.Rational(9, 100)],
        ]
    )
    Dx = sp.Matrix([[sp.Rational(4, 5), sp.Rational(1, 5)], [sp.Rational(1, 5), sp.Rational(4, 5)]])
    post_C = sorted(Cx[0, j] / (Cx[0, j] + Cx[1, j]) for j in range(3))
    post_D = sorted(Dx[0, j] / (Dx[0, j] + Dx[1, j]) for j in range(2))
    ml_C = sum(max(Cx[0, j], Cx[1, j]) for j in range(3))
    ml_D = sum(max(Dx[0, j], Dx[1, j]) for j in range(2))
    Cf, Df = (
        q.Channel(np.array(Cx.tolist(), dtype=float)),
        q.Channel(np.array(Dx.tolist(), dtype=float)),
    )
    mc, av = q.max_case_refines(Cf, Df), q.refines(Cf, Df)
    P.step(
        "C = [[9/100, 9/10, 1/100], [1/100, 9/10, 9/100]], D = [[4/5, 1/5], [1/5, 4/5]]: D's "
        "posteriors "
        "{1/5, 4/5} lie in C's hull [1/10, 9/10] (C ⊑max D), but ML(D) = 8/5 > ML(C) = 27/25 (C ⋢ "
        "D)",
        post_C[0] <= post_D[0]
        and post_D[-1] <= post_C[-1]
        and ml_C == sp.Rational(27, 25)
        and ml_D == sp.Rational(8, 5)
        and bool(mc.holds)
        and not av.holds,
        f"posteriors of C {post_C}, of D {post_D}; LP: max-case {mc.holds}, average {av.holds}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
