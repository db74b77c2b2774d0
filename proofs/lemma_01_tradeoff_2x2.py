"""QIF paper, Lemma 1: the trade-off characterisation of refinement between 2x2 channels.

Statement (paper, Sec. VI-A). For 2x2 channels C, D with trade-off points
(alpha_C, beta_C), (alpha_D, beta_D), i.e. C = [[1 - alpha, alpha], [beta, 1 - beta]],
the following are equivalent:
  (1) C ⊑ D;
  (2) the posteriors of D under a uniform prior lie in the convex hull of those of C;
  (3) beta_C/(1 - alpha_C) <= beta_D/(1 - alpha_D) and (1 - beta_C)/alpha_C >= (1 - beta_D)/alpha_D.

Proved here, symbolically, for every C, D with 0 < alpha < 1, 0 <= beta < 1,
alpha_C + beta_C < 1 and alpha_D + beta_D <= 1 (the orientation in which (alpha, beta)
is the vertex of the trade-off curve), plus the degenerate case alpha_C + beta_C = 1.
The proof: C is invertible, so W = C^-1 D is the only candidate witness; its rows
sum to 1, its diagonal is nonnegative, and its two off-diagonal entries have the signs
of N1 = (1 - alpha_C) beta_D - beta_C (1 - alpha_D) and
N2 = (1 - beta_C) alpha_D - alpha_C (1 - beta_D); (2) and (3) are N1 >= 0 and N2 >= 0
too. Cross-check: the library's exact criterion (qifldp.tradeoff.refines_2x2), its witness,
the LP (qifldp.refines) and max-case refinement on 150 random rational pairs.

Discrepancy: (3) is only correct in the orientation alpha + beta <= 1 (and divides by
alpha_C = 0 otherwise); a column swap makes it fail, see the last section.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

from _certificate import Proof, run, vanishes


def _posterior_first(col0, col1):
    """Posterior probability of secret 0 after an output with column (col0, col1)."""
    return col0 / (col0 + col1)


def main() -> int:
    import sympy as sp

    import qifldp as q
    from qifldp import tradeoff as fdp
    from qifldp.symbolic import SymbolicChannel

    P = Proof(
        "Lemma 1: for 2x2 channels, C ⊑ D <=> posteriors of D in hull of C's <=> (3)",
        "QIF paper (Gonze et al., CSF 2026), Lemma 1, Sec. VI-A and appendix",
    )
    a, b, c, d = sp.symbols("alpha_C beta_C alpha_D beta_D", real=True)
    unit = sp.Interval.open(0, 1)
    C = SymbolicChannel([[1 - a, a], [b, 1 - b]], domains={a: unit, b: unit})
    D = SymbolicChannel([[1 - c, c], [d, 1 - d]], domains={c: unit, d: unit})

    P.section("trade-off points read by the library")
    P.step(
        "q.tradeoff_point(C) = (alpha_C, beta_C) and q.tradeoff_point(D) = (alpha_D, beta_D)",
        tuple(q.tradeoff_point(C)) == (a, b) and tuple(q.tradeoff_point(D)) == (c, d),
    )

    P.section("(1): the unique candidate witness W = C^-1 D")
    Cm, Dm = C.matrix, D.matrix
    det = sp.factor(Cm.det())
    P.step(
        "det C = 1 - alpha_C - beta_C (> 0 under the hypotheses)",
        sp.expand(det - (1 - a - b)) == 0,
        f"det C = {det}",
    )
    W = (Cm.inv() * Dm).applyfunc(sp.factor)
    P.step(
        "C·W = D (W = C^-1 D is a witness whenever it is nonnegative)",
        vanishes(Cm * W - Dm),
        f"W = {W.tolist()}",
    )
    P.step(
        "each row of W sums to 1 (C·1 = 1 => C^-1·1 = 1), so W is stochastic iff W >= 0",
        all(vanishes(W[i, 0] + W[i, 1] - 1) for i in range(2)),
    )
    N1 = (1 - a) * d - b * (1 - c)
    N2 = (1 - b) * c - a * (1 - d)
    P.step(
        "W[1,0] = N1 / det C with N1 = (1 - alpha_C) beta_D - beta_C (1 - alpha_D)",
        vanishes(W[1, 0] - N1 / det),
    )
    P.step(
        "W[0,1] = N2 / det C with N2 = (1 - beta_C) alpha_D - alpha_C (1 - beta_D)",
        vanishes(W[0, 1] - N2 / det),
    )
    diag0 = (1 - b) * (1 - c - d) + d * (1 - a - b)
    diag1 = (1 - a) * (1 - c - d) + c * (1 - a - b)
    P.step(
        "W[0,0]·det = (1 - beta_C)(1 - alpha_D - beta_D) + beta_D (1 - alpha_C - beta_C) >= 0 "
        "(every factor >= 0 under the hypotheses)",
        vanishes(W[0, 0] * det - diag0),
    )
    P.step(
        "W[1,1]·det = (1 - alpha_C)(1 - alpha_D - beta_D) + alpha_D (1 - alpha_C - beta_C) >= 0",
        vanishes(W[1, 1] * det - diag1),
    )
    P.note("hence (1) <=> N1 >= 0 and N2 >= 0.")

    P.section("(3) <=> N1 >= 0 and N2 >= 0")
    r1 = d / (1 - c) - b / (1 - a)
    r2 = (1 - b) / a - (1 - d) / c
    P.step(
        "N1 = (1 - alpha_C)(1 - alpha_D)·[beta_D/(1 - alpha_D) - beta_C/(1 - alpha_C)]",
        vanishes(N1 - (1 - a) * (1 - c) * r1),
    )
    P.step(
        "N2 = alpha_C alpha_D·[(1 - beta_C)/alpha_C - (1 - beta_D)/alpha_D]",
        vanishes(N2 - a * c * r2),
    )
    P.note(
        "the factors (1 - alpha_C)(1 - alpha_D) and alpha_C alpha_D are > 0, so the signs agree."
    )

    P.section("(2) <=> N1 >= 0 and N2 >= 0 (uniform prior; a posterior is its mass on secret 0)")
    pc0, pc1 = _posterior_first(1 - a, b), _posterior_first(a, 1 - b)
    pd0, pd1 = _posterior_first(1 - c, d), _posterior_first(c, 1 - d)
    P.step(
        "posteriors of C are ordered: "
        "p_C(out 0) - p_C(out 1) = det C / ((1 - a + b)(1 + a - b)) > 0",
        vanishes(pc0 - pc1 - det / ((1 - a + b) * (1 + a - b))),
    )
    P.step(
        "p_D(out 0) - p_D(out 1) = (1 - alpha_D - beta_D)/(...) >= 0, so the hull test is "
        "p_D(out 0) <= p_C(out 0) and p_D(out 1) >= p_C(out 1)",
        vanishes(pd0 - pd1 - (1 - c - d) / ((1 - c + d) * (1 + c - d))),
    )
    P.step(
        "p_C(out 0) - p_D(out 0) = N1 / ((1 - alpha_C + beta_C)(1 - alpha_D + beta_D))",
        vanishes(pc0 - pd0 - N1 / ((1 - a + b) * (1 - c + d))),
    )
    P.step(
        "p_D(out 1) - p_C(out 1) = N2 / ((1 + alpha_C - beta_C)(1 + alpha_D - beta_D))",
        vanishes(pd1 - pc1 - N2 / ((1 + a - b) * (1 + c - d))),
    )
    P.note(
        "denominators are > 0 (each is 1 ± (alpha - beta) with |alpha - beta| < 1): "
        "(1) <=> (2) <=> (3)."
    )

    P.section("degenerate case alpha_C + beta_C = 1 (C has equal rows, leaks nothing)")
    Cdeg = sp.Matrix([[1 - a, a], [1 - a, a]])
    w = sp.Matrix(2, 2, sp.symbols("w0:4"))
    prod = Cdeg * w
    P.step(
        "C·W has equal rows for every W, so C ⊑ D forces alpha_D + beta_D = 1",
        vanishes(prod[0, :] - prod[1, :]),
    )
    P.step(
        "(3) with alpha_C + beta_C = 1 reads 1 <= beta_D/(1 - alpha_D) and "
        "1 >= (1 - beta_D)/alpha_D, "
        "i.e. alpha_D + beta_D >= 1: with alpha_D + beta_D <= 1 exactly the same condition",
        sp.simplify((b / (1 - a)).subs(b, 1 - a)) == 1
        and sp.simplify(((1 - b) / a).subs(b, 1 - a)) == 1,
    )

    P.section(
        "cross-check on 150 random rational pairs: exact W, library criterion, witness, LP, "
        "max-case"
    )
    rng = random.Random(20260501)

    def rand_channel():
        n = rng.choice([4, 5, 6, 8, 10])
        x, y = rng.randint(0, n), rng.randint(0, n)
        return [[F(n - x, n), F(x, n)], [F(y, n), F(n - y, n)]]

    counts = {"holds": 0, "fails": 0}
    mismatches = []
    for _ in range(150):
        A, B = rand_channel(), rand_channel()
        Am, Bm = sp.Matrix(A), sp.Matrix(B)
        if Am.det() != 0:
            Wx = Am.inv() * Bm
            truth = all(v >= 0 for v in Wx)
        else:  # equal rows: refines iff B has equal rows
            truth = Bm[0, :] == Bm[1, :]
        crit = fdp.refines_2x2(A, B)
        wit = fdp.witness_2x2(A, B, exact=True)
        wit_ok = (wit is None) != truth and (wit is None or Am * sp.Matrix(wit) == Bm)
        lp = q.refines(
            q.Channel([[float(v) for v in r] for r in A]),
            q.Channel([[float(v) for v in r] for r in B]),
        )
        mc = q.max_case_refines(
            q.Channel([[float(v) for v in r] for r in A]),
            q.Channel([[float(v) for v in r] for r in B]),
        )
        counts["holds" if truth else "fails"] += 1
        if not (crit == truth and wit_ok and bool(lp.holds) == truth and bool(mc.holds) == truth):
            mismatches.append((A, B, truth, crit, lp.holds, mc.holds))
    P.step(
        "exact W = A^-1 B >= 0, fdp.refines_2x2, fdp.witness_2x2 (A·W = B exactly), q.refines (LP) "
        "and q.max_case_refines agree on every pair",
        not mismatches,
        f"{counts['holds']} pairs refine, {counts['fails']} do not; mismatches: {mismatches[:3]}",
    )

    P.section("the orientation hypothesis is needed (imprecision of the statement)")
    Csw = [[F(1, 5), F(4, 5)], [F(4, 5), F(1, 5)]]  # alpha = beta = 4/5: alpha + beta > 1
    Dm7 = [[F(7, 10), F(3, 10)], [F(3, 10), F(7, 10)]]
    aC, bC = q.tradeoff_point(Csw)
    aD, bD = q.tradeoff_point(Dm7)
    literal = bC / (1 - aC) <= bD / (1 - aD) and (1 - bC) / aC >= (1 - bD) / aD
    Wsw = fdp.witness_2x2(Csw, Dm7, exact=True)
    P.step(
        "C = [[1/5, 4/5], [4/5, 1/5]] ⊑ D = [[7/10, 3/10], [3/10, 7/10]] holds (exact witness), "
        "yet (3) read literally on C's (alpha, beta) = (4/5, 4/5) says it does not",
        Wsw is not None and sp.Matrix(Csw) * sp.Matrix(Wsw) == sp.Matrix(Dm7) and literal is False,
        f"witness W = {Wsw}; beta_C/(1 - alpha_C) = {bC / (1 - aC)} > "
        f"beta_D/(1 - alpha_D) = {bD / (1 - aD)}",
    )
    P.discrepancy(
        "Lemma 1 (3) holds only for trade-off points with alpha + beta <= 1 (swap the output "
        "columns of a channel with alpha + beta > 1 first; C above is a column swap of "
        "[[4/5, 1/5], [1/5, 4/5]] ⊑ D); it also divides by alpha, so alpha = 0 needs the "
        "cross-multiplied form beta_C (1 - alpha_D) <= beta_D (1 - alpha_C), "
        "alpha_D (1 - beta_C) >= alpha_C (1 - beta_D)."
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
