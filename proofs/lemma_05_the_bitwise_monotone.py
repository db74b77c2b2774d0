"""QIF paper, Lemma 5: the bitwise THE channels are ordered by eps.

Statement. Let theta in (1/2, 1) and 0 <= eps <= eps'. Then T_{eps',theta} ⊑ T_{eps,theta},
where T_{eps,theta} = [[1 - e^{-eps theta/2}/2, e^{-eps theta/2}/2],
[e^{eps(theta-1)/2}/2, 1 - e^{eps(theta-1)/2}/2]].

Proof checked here (symbolically, for all eps and theta). The trade-off point read from the
library's q.symbolic.the_bit is alpha = e^{-eps theta/2}/2, beta = e^{-eps(1-theta)/2}/2;
alpha + beta <= 1; d alpha/d eps = -(theta/2) alpha < 0 and d beta/d eps = -((1-theta)/2) beta < 0,
so eps <= eps' gives alpha' <= alpha and beta' <= beta, and Lemma 2 gives T_{eps'} ⊑ T_eps.
The same argument works for every theta in [0, 1]. The converse direction (strictness) holds
because ML(T) = 2 - alpha - beta is strictly increasing in eps. LP-confirmed on a grid.
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp
    from _families import lp_family_grid

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 5: 0 <= eps <= eps' implies T_{eps',theta} ⊑ T_{eps,theta} (bitwise THE), theta in "
        "(1/2, 1)",
        "QIF paper (Gonze et al., CSF 2026), Lemma 5",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    theta = sp.Symbol("theta", positive=True)
    phi = sp.Symbol("phi", positive=True)  # phi = 1 - theta > 0
    T = sym.the_bit(eps, theta)
    alpha, beta = q.tradeoff_point(T)

    P.section("trade-off point of the library's symbolic THE bit channel")
    P.step(
        "alpha = e^{-eps theta/2}/2 and beta = e^{-eps (1 - theta)/2}/2",
        vanishes(alpha - sp.exp(-eps * theta / 2) / 2)
        and vanishes(beta - sp.exp(-eps * (1 - theta) / 2) / 2),
        f"(alpha, beta) = ({alpha}, {beta})",
    )
    P.step(
        "orientation: alpha, beta <= 1/2 (exponents <= 0), so alpha + beta <= 1",
        bool((-eps * theta / 2).is_nonpositive) and bool((-eps * phi / 2).is_nonpositive),
    )

    P.section("monotonicity in eps")
    da, db = sp.diff(alpha, eps), sp.diff(beta, eps)
    P.step("d alpha/d eps = -(theta/2)·alpha", vanishes(da + theta / 2 * alpha))
    P.step("d beta/d eps = -((1 - theta)/2)·beta", vanishes(db + (1 - theta) / 2 * beta))
    P.step(
        "both derivatives are < 0 for eps >= 0, theta in (0, 1) (sympy sign with phi = 1 - theta "
        "> 0)",
        bool((theta / 2 * alpha).is_positive)
        and bool((phi / 2 * beta.subs(theta, 1 - phi)).is_positive),
    )
    P.note(
        "so eps <= eps' implies alpha(eps') <= alpha(eps) and beta(eps') <= beta(eps); both points"
    )
    P.note(
        "satisfy alpha + beta <= 1, and Lemma 2 (lemma_02_sufficiency.py) gives T_{eps'} ⊑ T_eps."
    )
    e2 = sp.Symbol("eps2", nonnegative=True)
    P.step(
        "directly: alpha(eps) - alpha(eps + d) = alpha(eps)(1 - e^{-d theta/2}) with d = eps' - "
        "eps >= 0",
        vanishes(alpha - alpha.subs(eps, eps + e2) - alpha * (1 - sp.exp(-e2 * theta / 2))),
    )

    P.section("strictness (the reverse direction of a refinement family)")
    ml = q.bayes_capacity(T)
    P.step(
        "q.bayes_capacity(T) = 2 - alpha - beta, strictly increasing in eps (both terms decrease)",
        vanishes(ml - (2 - alpha - beta)),
        f"ML = {ml}",
    )
    P.note("T_eps ⊑ T_eps' forces ML(T_eps') <= ML(T_eps), hence eps >= eps'.")

    P.section("numerical confirmation with the LP")
    grid = [0.0, 0.2, 0.5, 1.0, 1.7, 3.0, 5.0, 8.0]
    for th in (0.55, 0.75, 0.95):
        lp_family_grid(P, f"the_bit(., {th})", lambda e, th=th: q.the_bit(e, th), grid)
    return P.finish()


if __name__ == "__main__":
    run(main)
