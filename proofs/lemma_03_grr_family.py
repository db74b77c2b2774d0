"""QIF paper, Lemma 3 (from Chatzikokolakis et al. 2019): GRR is a refinement family.

Statement. For every k >= 2 and eps, eps' >= 0: eps >= eps' <=> GRR(k, eps) ⊑ GRR(k, eps').

Forward direction, for symbolic k and eps >= eps': with R = (p - q) I + q J (J the
all-ones matrix), the witness W = w_d I + w_o (J - I) with r = (p' - q')/(p - q),
w_o = (1 - r)/k, w_d = r + w_o satisfies R·W = R' (shown with the algebra J^2 = kJ),
and W is row-stochastic because p - q = (e^eps - 1)/(e^eps + k - 1) is increasing in eps
(derivative k e^eps/(e^eps + k - 1)^2 > 0), so 0 <= r <= 1. The identity is also checked
on the library's symbolic channels q.symbolic.grr(k, eps) for k = 2..5.
Reverse direction: refinement implies ML(GRR(k, eps')) <= ML(GRR(k, eps)) and the
Bayes capacity ML = k e^eps/(e^eps + k - 1) (from the library's symbolic
bayes_capacity) is strictly increasing, so eps < eps' would give a contradiction.
Numerically confirmed with the LP on a grid, including the large-eps pair (30, 31)
whose float witness is misleading.
"""

from __future__ import annotations

import itertools

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 3: eps >= eps' <=> GRR(k, eps) ⊑ GRR(k, eps') for every k >= 2",
        "QIF paper (Gonze et al., CSF 2026), Lemma 3, citing Chatzikokolakis et al. CSF 2019",
    )
    k = sp.Symbol("k", positive=True, integer=True)
    t, s = sp.symbols("t s", positive=True)  # t = e^eps, s = e^eps' (t >= s >= 1)
    p, qq = t / (t + k - 1), 1 / (t + k - 1)
    p2, q2 = s / (s + k - 1), 1 / (s + k - 1)
    r = (p2 - q2) / (p - qq)
    w_o = (1 - r) / k
    w_d = r + w_o

    P.section("forward direction, symbolic k: the witness W = w_d I + w_o (J - I)")
    P.step("p + (k - 1) q = 1 (GRR rows are distributions)", vanishes(p + (k - 1) * qq - 1))
    P.step("rows of W sum to 1: w_d + (k - 1) w_o = 1", vanishes(w_d + (k - 1) * w_o - 1))
    # R W = (p-q)(w_d - w_o) I + [(p-q) w_o + q (w_d + (k-1) w_o)] J
    # using J^2 = kJ and J(J - I) = (k-1)J
    coef_I = (p - qq) * (w_d - w_o)
    coef_J = (p - qq) * w_o + qq * (w_d + (k - 1) * w_o)
    P.step("R·W has I-coefficient (p - q) r = p' - q'", vanishes(coef_I - (p2 - q2)))
    P.step("R·W has J-coefficient q'", vanishes(coef_J - q2), "so R·W = (p' - q') I + q' J = R'")
    eps = sp.Symbol("eps", nonnegative=True)
    gap = sp.factor(p - qq)
    deriv = sp.factor(sp.diff(gap.subs(t, sp.exp(eps)), eps))
    P.step(
        "p - q = (e^eps - 1)/(e^eps + k - 1) has derivative k e^eps/(e^eps + k - 1)^2 > 0 in eps",
        vanishes(gap - (t - 1) / (t + k - 1))
        and vanishes(deriv - k * sp.exp(eps) / (sp.exp(eps) + k - 1) ** 2),
        f"d/d eps (p - q) = {deriv}",
    )
    P.note("hence eps >= eps' gives p - q >= p' - q' >= 0, i.e. 0 <= r <= 1,")
    P.note("so w_o = (1 - r)/k >= 0 and w_d = r + w_o >= 0: W is row-stochastic.")
    P.step(
        "the gap is the product 1 - r = k (t - s) / ((t - 1)(s + k - 1)) (>= 0 for t >= s > 1)",
        vanishes((1 - r) - k * (t - s) / ((t - 1) * (s + k - 1))),
    )

    P.section("the same witness on the library's symbolic channels, k = 2..5")
    e1, e2 = sp.symbols("eps1 eps2", nonnegative=True)
    for kk in range(2, 6):
        R1, R2 = sym.grr(kk, e1).matrix, sym.grr(kk, e2).matrix
        subs = {k: kk, t: sp.exp(e1), s: sp.exp(e2)}
        wd, wo = w_d.subs(subs), w_o.subs(subs)
        W = wo * sp.ones(kk, kk) + (wd - wo) * sp.eye(kk)
        P.step(
            f"k = {kk}: q.symbolic.grr(k, eps1)·W = q.symbolic.grr(k, eps2)", vanishes(R1 * W - R2)
        )

    P.section("reverse direction: strict monotonicity of the Bayes capacity")
    for kk in (2, 3, 5):
        ml = q.bayes_capacity(sym.grr(kk, eps))
        d_ml = sp.factor(sp.diff(ml, eps))
        expected = kk * (kk - 1) * sp.exp(eps) / (sp.exp(eps) + kk - 1) ** 2
        P.step(
            f"k = {kk}: ML = k e^eps/(e^eps + k - 1) and d ML/d eps = k (k-1) e^eps/(e^eps + k - "
            "1)^2 > 0",
            vanishes(ml - kk * sp.exp(eps) / (sp.exp(eps) + kk - 1)) and vanishes(d_ml - expected),
            f"ML = {sp.simplify(ml)}",
        )
    P.note("if eps < eps' and GRR(k, eps) ⊑ GRR(k, eps') then ML(GRR(k, eps')) <= ML(GRR(k, eps)),")
    P.note("contradicting strict monotonicity: refinement forces eps >= eps'.")

    P.section("numerical confirmation with the LP")
    grid = [0.0, 0.2, 0.6, 1.0, 1.6, 2.5, 4.0, 7.0]
    wrong = []
    n = 0
    for kk in (2, 3, 5):
        chans = {e: q.grr(kk, e) for e in grid}
        for ea, eb in itertools.product(grid, grid):
            n += 1
            holds = bool(q.refines(chans[ea], chans[eb]).holds)
            if holds != (ea >= eb):
                wrong.append((kk, ea, eb, holds))
    P.step(
        f"q.refines(grr(k, a), grr(k, b)).holds == (a >= b) on {n} grid pairs, k in (2, 3, 5)",
        not wrong,
        f"wrong: {wrong[:4]}",
    )
    big = q.refines(q.grr(3, 30.0), q.grr(3, 31.0))
    P.step(
        "large eps: q.refines(grr(3, 30), grr(3, 31)) is False although W = I fits within 1e-7",
        not big.holds,
        f"counterexample gap = {getattr(big.counterexample, 'gap', None)}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
