"""QIF paper, Lemma 10: the threshold on theta above which OUE ⊑ THE (bitwise), and its limit.

Statement. For eps > 0, O_eps ⊑ T_{eps,theta} when
    theta >= tau(eps) = [2 ln(e^eps + 1 + (e^{eps/2} - 1) sqrt(e^eps + 1)) - eps - 2 ln 2] / eps,
and tau(eps) -> 1/sqrt(2) as eps -> 0. The text adds: tau increases with eps (towards 1), so
for a fixed theta refinement holds for small eps and fails above a threshold; the example
eps = 0.8 gives theta >= 0.8.

Proved here, for every eps > 0 and theta (an "iff", not only "if"):
* with Lemma 1 (3) on the library's trade-off points: the second inequality always holds,
  (1 - beta_O)/alpha_O - (1 - beta_T)/alpha_T = (e^{eps/2} - 1)^2/2 + X (Y - 1)^2 / Y >= 0;
  the first is (1 - u)^2 >= r^2 with u = e^{-eps theta/2} and r = (e^{eps/2} - 1)/sqrt(e^eps + 1),
  i.e. theta >= -(2/eps) ln(1 - r), which is the printed tau (and the library's
  q.symbolic.formulas.the_oue_threshold);
* lim_{eps->0+} tau = 1/sqrt(2) and lim_{eps->oo} tau = 1 (sympy limits);
* tau is strictly increasing: with the substitution eps/2 = g(r) = arccosh(1/(1 - r^2)),
  tau = f(r)/g(r), f = -ln(1 - r); f'/g' = (1 + r) sqrt(2 - r^2)/2 increases on (0, r0] and
  exceeds 1 on [r0, 1) (r0 = (sqrt(17) - 1)/4), while f/g < 1; the monotone form of
  l'Hopital's rule (Cauchy's mean value theorem) gives (f/g)' > 0 on (0, 1);
* LP grid: q.refines(oue_bit(eps), the_bit(eps, theta)).holds == (theta >= tau(eps)), and the
  one-hot consequence (the corollary after Lemma 10) for k = 2, 3.
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def _zero_mod_square(expr, s, s_squared) -> bool:
    """True iff ``expr`` (a rational function of s and other symbols) vanishes when
    s^2 = s_squared: its numerator reduces to 0 modulo s^2 - s_squared."""
    import sympy as sp

    num = sp.together(sp.expand(expr)).as_numer_denom()[0]
    return sp.expand(sp.rem(sp.expand(num), s**2 - s_squared, s)) == 0


def main() -> int:
    import numpy as np
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 10: O_eps ⊑ T_{eps,theta} iff theta >= tau(eps); tau increases from 1/sqrt(2) to 1",
        "QIF paper (Gonze et al., CSF 2026), Lemma 10, the remark after it, and its appendix proof",
    )
    eps = sp.Symbol("eps", positive=True)
    theta = sp.Symbol("theta", positive=True)
    y = sp.exp(eps / 2)
    X, Y = sp.exp(eps * theta / 2), sp.exp(eps * (1 - theta) / 2)
    u = sp.exp(-eps * theta / 2)
    aO, bO = q.tradeoff_point(sym.oue_bit(eps))
    aT, bT = q.tradeoff_point(sym.the_bit(eps, theta))
    Ssym = sp.Symbol("S", positive=True)  # S = sqrt(e^eps + 1)
    r_expr = (y - 1) / sp.sqrt(sp.exp(eps) + 1)

    P.section("Lemma 1 (3) for O ⊑ T: the second inequality always holds")
    P.step(
        "(1 - beta_O)/alpha_O - (1 - beta_T)/alpha_T = (e^{eps/2} - 1)^2/2 + X (Y - 1)^2/Y >= 0 "
        "(X = e^{eps theta/2}, Y = e^{eps(1 - theta)/2})",
        vanishes((1 - bO) / aO - (1 - bT) / aT - ((y - 1) ** 2 / 2 + X * (Y - 1) ** 2 / Y)),
    )

    P.section("the first inequality is exactly theta >= tau(eps)")
    c = 2 * y / (y**2 + 1)  # = sech(eps/2)
    P.step(
        "beta_T/(1 - alpha_T) - beta_O/(1 - alpha_O) = e^{-eps/2} (c - u(2 - u)) / (c u (2 - u)), "
        "c = 2e^{eps/2}/(e^eps + 1), u = e^{-eps theta/2}; the factor is > 0 (0 < u <= 1)",
        vanishes(
            bT / (1 - aT) - bO / (1 - aO) - sp.exp(-eps / 2) * (c - u * (2 - u)) / (c * u * (2 - u))
        ),
    )
    P.step(
        "c - u(2 - u) = (1 - u)^2 - r^2 with r^2 = 1 - c = (e^{eps/2} - 1)^2/(e^eps + 1)",
        vanishes(c - u * (2 - u) - ((1 - u) ** 2 - (y - 1) ** 2 / (y**2 + 1)))
        and vanishes(r_expr**2 - (1 - c)),
    )
    P.note("u <= 1 and r >= 0, so the condition is 1 - u >= r, i.e. e^{-eps theta/2} <= 1 - r, and")
    P.note("(0 <= r < 1 since r^2 = 1 - c < 1) theta >= tau(eps) := -(2/eps) ln(1 - r).")
    tau_printed = (
        2 * sp.log(sp.exp(eps) + 1 + (y - 1) * sp.sqrt(sp.exp(eps) + 1)) - eps - 2 * sp.log(2)
    ) / eps
    tau_lib = sym.formulas.the_oue_threshold(eps)
    P.step(
        "the library's q.symbolic.formulas.the_oue_threshold is the printed formula",
        vanishes(tau_lib - tau_printed),
        f"{tau_lib}",
    )
    inner = (Ssym**2 + (y - 1) * Ssym) / (2 * y)  # exp(eps tau_printed / 2), with S^2 = e^eps + 1
    P.step(
        "exp(eps tau/2) = (e^eps + 1 + (e^{eps/2} - 1) S)/(2 e^{eps/2}) = 1/(1 - r), S = "
        "sqrt(e^eps + 1): "
        "(S^2 + (y - 1) S)(1 - (y - 1)/S) = S^2 - (y - 1)^2 = 2y",
        _zero_mod_square(inner * (1 - (y - 1) / Ssym) - 1, Ssym, sp.exp(eps) + 1)
        and vanishes(
            sp.exp(eps * tau_printed / 2)
            - (sp.exp(eps) + 1 + (y - 1) * sp.sqrt(sp.exp(eps) + 1)) / (2 * y)
        ),
        "so the printed threshold equals -(2/eps) ln(1 - r): Lemma 10 holds, and as an iff",
    )

    P.section("limits")
    lim0 = sp.limit(tau_lib, eps, 0, "+")
    limoo = sp.limit(tau_lib, eps, sp.oo)
    P.step(
        "lim_{eps -> 0+} tau(eps) = 1/sqrt(2)",
        sp.simplify(lim0 - 1 / sp.sqrt(2)) == 0,
        f"sympy: {lim0}",
    )
    P.step("lim_{eps -> oo} tau(eps) = 1", sp.simplify(limoo - 1) == 0, f"sympy: {limoo}")

    P.section("tau is strictly increasing (substitution r = (e^{eps/2} - 1)/sqrt(e^eps + 1))")
    yy = sp.Symbol("y", positive=True)
    dr = sp.diff((yy - 1) / sp.sqrt(yy**2 + 1), yy)
    P.step(
        "dr/dy = (1 + y)/(y^2 + 1)^{3/2} > 0 (y = e^{eps/2}): r increases from 0 to 1",
        sp.simplify(dr - (1 + yy) / (yy**2 + 1) ** sp.Rational(3, 2)) == 0,
    )
    r = sp.Symbol("r", positive=True)
    s = sp.Symbol("s", positive=True)  # s = sqrt(2 - r^2) in (1, sqrt 2) for r in (0, 1)
    g = sp.log((1 + r * s) / (1 - r**2))
    f = -sp.log(1 - r)
    P.step(
        "cosh g(r) = 1/(1 - r^2) = 1/c = cosh(eps/2): eps/2 = g(r) = ln((1 + r s)/(1 - r^2)), s = "
        "sqrt(2 - r^2)",
        _zero_mod_square((sp.exp(g) + sp.exp(-g)) / 2 - 1 / (1 - r**2), s, 2 - r**2)
        and vanishes((yy + 1 / yy) / 2 - 1 / (2 * yy / (yy**2 + 1))),
    )
    P.note("so tau = -(2/eps) ln(1 - r) = f(r)/g(r) with f(r) = -ln(1 - r); f(0) = g(0) = 0.")
    sq = sp.sqrt(2 - r**2)
    gp = sp.diff(g.subs(s, sq), r)
    fp = sp.diff(f, r)
    P.step(
        "g'(r) = 2/((1 - r^2) s) > 0 and f'(r) = 1/(1 - r)",
        _zero_mod_square(gp.subs(sq, s) - 2 / ((1 - r**2) * s), s, 2 - r**2)
        and vanishes(fp - 1 / (1 - r)),
    )
    Pr = (1 + r) * s / 2
    P.step("P(r) := f'/g' = (1 + r) s / 2", vanishes(fp / (2 / ((1 - r**2) * s)) - Pr))
    dP = sp.diff((1 + r) * sq / 2, r)
    P.step(
        "P'(r) = (2 - r - 2 r^2)/(2 s)",
        _zero_mod_square(dP.subs(sq, s) - (2 - r - 2 * r**2) / (2 * s), s, 2 - r**2),
    )
    roots = sp.solve(2 - r - 2 * r**2, r)
    r0 = (sp.sqrt(17) - 1) / 4
    P.step(
        "2 - r - 2 r^2 has the single positive root r0 = (sqrt 17 - 1)/4 ~ 0.7808 < 1: P "
        "increases on (0, r0], decreases on [r0, 1)",
        roots == [r0] and 0 < float(r0) < 1,
        f"roots: {roots} (the other root of the quadratic is negative)",
    )
    P.step("P(1) = 1 (s = 1 at r = 1), so P(r) > 1 on [r0, 1)", Pr.subs({r: 1, s: 1}) == 1)
    P.step(
        "g - f = ln((1 + r s)/(1 + r)) > 0 since s > 1 (s^2 = 2 - r^2 > 1): Q := f/g < 1 on (0, 1)",
        vanishes(sp.exp(g - f) - (1 + r * s) / (1 + r)),
    )
    fr, gr = sp.Function("f")(r), sp.Function("g")(r)
    P.step(
        "Q' = (g'/g)(f'/g' - f/g) (quotient rule)",
        sp.simplify(
            sp.diff(fr / gr, r)
            - (sp.diff(gr, r) / gr) * (sp.diff(fr, r) / sp.diff(gr, r) - fr / gr)
        )
        == 0,
    )
    P.note(
        "on (0, r0]: Cauchy's mean value theorem gives Q(r) = P(xi) for some xi in (0, r), and P"
    )
    P.note("strictly increases there, so Q(r) < P(r) and Q' > 0; on [r0, 1): Q < 1 < P, so Q' > 0.")
    P.note("Hence tau = Q(r(eps)) strictly increases; Q(0+) = P(0) = 1/sqrt(2), Q(1-) = 1.")
    P.step(
        "P(0) = sqrt(2)/2, the limit found above",
        sp.simplify(Pr.subs({r: 0, s: sp.sqrt(2)}) - sp.sqrt(2) / 2) == 0,
    )

    P.section("consequences and the paper's example")
    tau_num = sp.lambdify(eps, tau_printed, "math")
    grid = np.linspace(0.01, 40, 400)
    vals = np.array([q.formulas.the_oue_threshold(float(e)) for e in grid])
    ref = np.array([tau_num(float(e)) for e in grid])
    P.step(
        "numeric q.formulas.the_oue_threshold agrees with the printed formula (rel. 1e-12) and "
        "increases on a 400-point grid",
        bool(np.all(np.abs(vals - ref) <= 1e-12 * ref)) and bool(np.all(np.diff(vals) > 0)),
        f"tau(0.01) = {vals[0]:.6f}, tau(40) = {vals[-1]:.6f}",
    )
    t08 = tau_num(0.8)
    e_star = float(sp.nsolve(tau_printed - sp.Rational(4, 5), eps, 0.8))
    P.step(
        f"paper's example: tau(0.8) = {t08:.5f} (~ 0.8, as printed), so theta = 0.8 refines iff "
        f"eps <= eps* = {e_star:.5f} (~ 0.8, as printed)",
        abs(t08 - 0.8) < 1e-4 and abs(e_star - 0.8) < 1e-3 and abs(tau_num(e_star) - 0.8) < 1e-12,
        f"tau(0.8) = {t08:.8f}; eps* = {e_star:.8f}",
    )
    P.note(
        "theta <= 1/sqrt(2) (e.g. theta = 1/2): tau > 1/sqrt(2) >= theta, never refines (eps > 0);"
    )
    P.note(
        "theta in (1/sqrt(2), 1): refines exactly for eps <= tau^{-1}(theta); theta = 1: always."
    )

    P.section("numerical confirmation with the LP")
    eps_grid = [0.05, 0.3, 0.5, 0.8, 1.2, 1.5, 2.2, 3.0, 4.5, 6.0, 12.0, 20.0]
    th_grid = [0.51, 0.65, 0.7, 0.71, 0.72, 0.74, 0.75, 0.77, 0.8, 0.83, 0.9, 0.95, 0.99]
    wrong, n = [], 0
    for e in eps_grid:
        te = tau_num(e)
        O = q.oue_bit(e)
        for th in th_grid:
            if abs(th - te) < 1e-9:
                continue
            n += 1
            if bool(q.refines(O, q.the_bit(e, th)).holds) != (th >= te):
                wrong.append((e, th))
    P.step(
        f"q.refines(oue_bit(eps), the_bit(eps, theta)).holds == (theta >= tau(eps)) on {n} grid "
        "points",
        not wrong,
        f"wrong: {wrong}",
    )

    P.section("corollary after Lemma 10: the one-hot channels (Lemma 4), LP for k = 2, 3")
    pts = [(0.5, 0.78), (1.0, 0.85), (3.0, 0.95), (0.8, 0.8)]
    ok = all(tau_num(e) <= th for e, th in pts)
    bad = [
        (k, e, th)
        for k in (2, 3)
        for e, th in pts
        if not q.refines(q.oue(k, e), q.the(k, e, th)).holds
    ]
    P.step(
        f"theta >= tau(eps) at (eps, theta) in {pts}, and q.refines(oue(k, eps), the(k, eps, "
        "theta)) holds",
        ok and not bad,
        f"failures: {bad}",
    )
    below = {
        (k, e, th): bool(q.refines(q.oue(k, e), q.the(k, e, th)).holds)
        for k in (2, 3)
        for e, th in [(3.0, 0.75), (8.0, 0.75)]
    }
    P.note(f"below the threshold the one-hot verdict is not implied either way; LP: {below}")
    return P.finish()


if __name__ == "__main__":
    run(main)
