"""QIF paper, Lemma 2: a sufficient condition for refinement between 2x2 channels.

Statement. Let C, D be 2x2 channels with trade-off points (alpha_C, beta_C),
(alpha_D, beta_D). Then alpha_C <= alpha_D and beta_C <= beta_D imply C ⊑ D.

Proved symbolically for trade-off points with alpha + beta <= 1 (the orientation in
which (alpha, beta) is the vertex of the trade-off curve, implicit in the paper): writing
alpha_D = alpha_C + u, beta_D = beta_C + v with u, v >= 0, the numerators N1, N2 of
Lemma 1 (see lemma_01_tradeoff_2x2.py) become sums of products of nonnegative terms.
The condition is sufficient but not necessary (an exact counterexample to the converse
is given), and it fails for a channel D outside that orientation (exact counterexample).
Numerically confirmed with the LP (qifldp.refines) on random pairs.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp

    import qifldp as q
    from qifldp import tradeoff as fdp

    P = Proof(
        "Lemma 2: alpha_C <= alpha_D and beta_C <= beta_D imply C ⊑ D (2x2, alpha + beta <= 1)",
        "QIF paper (Gonze et al., CSF 2026), Lemma 2 and its appendix proof",
    )
    a, b, u, v = sp.symbols("alpha_C beta_C u v", nonnegative=True)
    abar, bbar = sp.symbols("abar bbar", nonnegative=True)  # 1 - alpha_C, 1 - beta_C
    c, d = a + u, b + v
    N1 = (1 - a) * d - b * (1 - c)  # Lemma 1: sign of W[1,0] (and of condition 3, first part)
    N2 = (1 - b) * c - a * (1 - d)  # Lemma 1: sign of W[0,1] (second part)

    P.section("symbolic: the Lemma 1 numerators are manifestly nonnegative")
    P.step("N1 = (1 - alpha_C) v + beta_C u", vanishes(N1 - ((1 - a) * v + b * u)))
    P.step("N2 = (1 - beta_C) u + alpha_C v", vanishes(N2 - ((1 - b) * u + a * v)))
    e1 = ((1 - a) * v + b * u).subs(1 - a, abar)
    e2 = ((1 - b) * u + a * v).subs(1 - b, bbar)
    P.step(
        "with 1 - alpha_C, 1 - beta_C, alpha_C, beta_C, u, v >= 0 sympy proves both >= 0",
        bool(e1.is_nonnegative) and bool(e2.is_nonnegative),
        f"N1 = {e1},  N2 = {e2}",
    )
    P.note("Lemma 1 ((1) <=> N1 >= 0 and N2 >= 0, for alpha_C + beta_C < 1, alpha_D + beta_D <= 1)")
    P.note("gives C ⊑ D; when alpha_C + beta_C = 1, alpha_D + beta_D >= alpha_C + beta_C = 1, so")
    P.note("alpha_D + beta_D = 1 and D (equal rows) is refined by every channel.")

    P.section("numerical confirmation with the LP on 300 random ordered pairs")
    rng = random.Random(2)
    bad, n_ok = [], 0
    while n_ok < 300:
        aC, bC = rng.uniform(0, 0.5), rng.uniform(0, 0.5)
        aD = rng.uniform(aC, 1.0)
        bD = rng.uniform(bC, max(bC, 1.0 - aD))
        if aD + bD > 1:  # keep D in the orientation alpha + beta <= 1
            continue
        C = q.Channel([[1 - aC, aC], [bC, 1 - bC]])
        D = q.Channel([[1 - aD, aD], [bD, 1 - bD]])
        r = q.refines(C, D)
        n_ok += 1
        if not (r.holds and fdp.refines_2x2(C, D)):
            bad.append((aC, bC, aD, bD))
    P.step(
        f"q.refines(C, D).holds and fdp.refines_2x2 on all {n_ok} pairs",
        not bad,
        f"failures: {bad[:3]}",
    )

    P.section("the condition is not necessary (exact counterexample to the converse)")
    C = [[F(9, 10), F(1, 10)], [F(1, 10), F(9, 10)]]
    D = [[F(23, 25), F(2, 25)], [F(3, 10), F(7, 10)]]
    W = fdp.witness_2x2(C, D, exact=True)
    P.step(
        "C = [[9/10, 1/10], [1/10, 9/10]] ⊑ D = [[23/25, 2/25], [3/10, 7/10]] although alpha_C = "
        "1/10 > alpha_D = 2/25",
        W is not None
        and sp.Matrix(C) * sp.Matrix(W) == sp.Matrix(D)
        and all(x >= 0 for r in W for x in r),
        f"exact witness W = {[[str(x) for x in r] for r in W] if W else None}",
    )

    P.section("the orientation alpha_D + beta_D <= 1 is needed")
    C = [[F(3, 5), F(2, 5)], [F(0), F(1)]]  # (alpha, beta) = (2/5, 0)
    D = [[F(1, 10), F(9, 10)], [F(19, 20), F(1, 20)]]  # (alpha, beta) = (9/10, 19/20), sum > 1
    aD, bD = q.tradeoff_point(D)
    lp = q.refines(
        q.Channel([[float(x) for x in r] for r in C]), q.Channel([[float(x) for x in r] for r in D])
    )
    cex = lp.counterexample
    P.step(
        "C = [[3/5, 2/5], [0, 1]], D = [[1/10, 9/10], [19/20, 1/20]]: alpha_C <= alpha_D, beta_C "
        "<= beta_D, "
        "yet C ⋢ D (exact criterion, LP with a separating gain function)",
        aD == F(9, 10)
        and bD == F(19, 20)
        and fdp.refines_2x2(C, D) is False
        and not lp.holds
        and cex is not None
        and cex.gap > 0,
        f"gap V_g[pi > D] - V_g[pi > C] = {cex.gap if cex is not None else None}",
    )
    P.discrepancy(
        "Lemma 2 needs the implicit hypothesis alpha + beta <= 1 on the trade-off points "
        "(D above is a column swap of [[19/20, 1/20], [1/10, 9/10]], whose point (1/20, 1/10) "
        "lies below C's trade-off curve)."
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
