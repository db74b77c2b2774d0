"""QIF paper, Lemma 11: SUE ⊑ THE bitwise, for every theta.

Statement. For eps >= 0 and theta in (1/2, 1): S_eps ⊑ T_{eps,theta}.

Proved here symbolically with Lemma 1 (3) on the library's trade-off points:
  beta_T/(1 - alpha_T) - beta_S/(1 - alpha_S) = e^{-eps/2} (1 - u)^2 / (u (2 - u)) >= 0,
      u = e^{-eps theta/2} in (0, 1];
  (1 - beta_S)/alpha_S - (1 - beta_T)/alpha_T = X (Y - 1)^2 / Y >= 0,
      X = e^{eps theta/2}, Y = e^{eps (1 - theta)/2}.
Both hold for every theta in [0, 1] (the restriction to (1/2, 1) is not needed). The one-hot
consequence follows by Lemma 4. LP-confirmed on a grid (bits and one-hot k = 2, 3).

Discrepancy (a typo that does not affect the conclusion): the fifth line of the appendix
computation has denominator e^{eps(1 - theta)/2}(2 - e^{-eps theta/2}); multiplying the fourth
line by e^{eps theta/2}/e^{eps theta/2} gives e^{eps(1 + theta)/2}(2 - e^{-eps theta/2}).
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 11: S_eps ⊑ T_{eps,theta} for every eps >= 0 and theta (bitwise SUE and THE)",
        "QIF paper (Gonze et al., CSF 2026), Lemma 11 and its appendix proof",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    theta = sp.Symbol("theta", positive=True)
    y = sp.exp(eps / 2)
    X, Y = sp.exp(eps * theta / 2), sp.exp(eps * (1 - theta) / 2)
    u = 1 / X
    aS, bS = q.tradeoff_point(sym.sue_bit(eps))
    aT, bT = q.tradeoff_point(sym.the_bit(eps, theta))

    P.section("Lemma 1 (3) for S ⊑ T (both points satisfy alpha + beta <= 1)")
    d1 = bT / (1 - aT) - bS / (1 - aS)
    P.step(
        "beta_T/(1 - alpha_T) - beta_S/(1 - alpha_S) = e^{-eps/2} (1 - u)^2 / (u (2 - u)) >= 0, u "
        "= e^{-eps theta/2} in (0, 1]",
        vanishes(d1 - sp.exp(-eps / 2) * (1 - u) ** 2 / (u * (2 - u))),
    )
    d2 = (1 - bS) / aS - (1 - bT) / aT
    P.step(
        "(1 - beta_S)/alpha_S - (1 - beta_T)/alpha_T = X (Y - 1)^2 / Y >= 0",
        vanishes(d2 - X * (Y - 1) ** 2 / Y),
    )
    P.note("both are >= 0 for every eps >= 0 and theta in [0, 1] (u <= 1 needs theta >= 0): S ⊑ T.")

    P.section("the paper's appendix computation, line by line")
    lines = [
        sp.exp(-eps * (1 - theta) / 2) / 2 / (1 - sp.exp(-eps * theta / 2) / 2) - 1 / y,
        sp.exp(-eps * (1 - theta) / 2) / (2 - sp.exp(-eps * theta / 2)) - 1 / y,
        (y * sp.exp(-eps * (1 - theta) / 2) - (2 - sp.exp(-eps * theta / 2)))
        / (y * (2 - sp.exp(-eps * theta / 2))),
        (X - 2 + 1 / X) / (y * (2 - 1 / X)),
        (X**2 - 2 * X + 1) / (sp.exp(eps * (1 - theta) / 2) * (2 - 1 / X)),  # as printed
        (X - 1) ** 2 / (sp.exp(eps * (1 - theta) / 2) * (2 - 1 / X)),  # as printed
    ]
    P.step(
        "lines 1-4 equal beta_T/(1 - alpha_T) - beta_S/(1 - alpha_S)",
        all(vanishes(L - d1) for L in lines[:4]),
    )
    at = {eps: 2, theta: sp.Rational(3, 4)}
    v4, v5 = float(lines[3].subs(at)), float(lines[4].subs(at))
    P.step(
        "line 5 as printed differs from line 4 (at eps = 2, theta = 3/4)",
        abs(v4 - v5) > 1e-3,
        f"line 4 = {v4:.6f}, printed line 5 = {v5:.6f}",
    )
    fixed = (X**2 - 2 * X + 1) / (sp.exp(eps * (1 + theta) / 2) * (2 - 1 / X))
    P.step(
        "with denominator e^{eps(1 + theta)/2}(2 - e^{-eps theta/2}) line 5 is correct",
        vanishes(fixed - d1),
    )
    P.discrepancy(
        "Lemma 11's appendix proof, line 5: the denominator should be e^{eps(1+theta)/2}(2 - "
        "e^{-eps theta/2}), "
        "not e^{eps(1-theta)/2}(2 - e^{-eps theta/2}); the sign argument (>= 0) is unaffected. "
        "(The text "
        "available here shows only the first inequality of Lemma 1 (3); the second holds as well.)"
    )

    P.section("numerical confirmation with the LP (bits, and one-hot via Lemma 4)")
    bad, n = [], 0
    for e in (0.0, 0.1, 0.3, 0.7, 1.0, 1.5, 2.2, 3.0, 6.0, 12.0):
        S = q.sue_bit(e)
        for th in (0.51, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 0.99):
            n += 1
            if not q.refines(S, q.the_bit(e, th)).holds:
                bad.append((e, th))
    P.step(
        f"q.refines(sue_bit(eps), the_bit(eps, theta)) holds on {n} grid points",
        not bad,
        f"failures: {bad}",
    )
    bad = [
        (k, e, th)
        for k in (2, 3)
        for e, th in [(0.5, 0.6), (2.0, 0.75), (5.0, 0.9)]
        if not q.refines(q.sue(k, e), q.the(k, e, th)).holds
    ]
    P.step(
        "q.refines(sue(k, eps), the(k, eps, theta)) holds for k = 2, 3 at three points",
        not bad,
        f"failures: {bad}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
