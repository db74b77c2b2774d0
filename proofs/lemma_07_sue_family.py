"""QIF paper, Lemma 7: the SUE mechanisms form a refinement family.

Statement. For k >= 2, {SUE(k, eps) : eps >= 0} is a refinement family:
SUE(k, eps) is eps-LDP and eps >= eps' <=> SUE(k, eps) ⊑ SUE(k, eps').

Proof checked here. The bit channel S_eps (library q.symbolic.sue_bit) has trade-off point
alpha = beta = 1/(e^{eps/2} + 1), strictly decreasing in eps, with alpha + beta < 1 for eps > 0;
Lemma 2 gives S_eps' ⊑ S_eps for eps <= eps', Lemma 4 lifts it to one_hot (witness re-checked
symbolically for k = 2). The library's symbolic ldp_epsilon of SUE(k, eps) is exactly eps
(k = 2, 3), strictly increasing, which gives the reverse direction. LP-confirmed.
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp
    from _families import lp_family_grid
    from sympy import kronecker_product as kron

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 7: SUE(k, .) is a refinement family",
        "QIF paper (Gonze et al., CSF 2026), Lemma 7",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    S = sym.sue_bit(eps)
    alpha, beta = q.tradeoff_point(S)
    y = sp.exp(eps / 2)

    P.section("bit channel: trade-off point and monotonicity")
    P.step(
        "alpha = beta = 1/(e^{eps/2} + 1) (<= 1/2)",
        vanishes(alpha - 1 / (y + 1)) and vanishes(beta - alpha),
    )
    d = sp.diff(alpha, eps)
    P.step(
        "d alpha/d eps = -e^{eps/2} / (2 (e^{eps/2} + 1)^2) < 0",
        vanishes(d + y / (2 * (y + 1) ** 2)) and bool((y / (2 * (y + 1) ** 2)).is_positive),
    )
    P.note("eps <= eps' gives alpha' <= alpha, beta' <= beta; Lemma 2: S_eps' ⊑ S_eps.")

    P.section("lifting (Lemma 4), witness re-checked for k = 2")
    e2 = sp.Symbol("eps2", nonnegative=True)  # eps' = eps + eps2 >= eps
    ep = sp.Symbol("eps_prime", nonnegative=True)
    shift = {ep: eps + e2}
    S2 = sym.sue_bit(ep).subs(shift)
    W = (S2.matrix.inv() * S.matrix).applyfunc(sp.factor)
    y2 = sp.exp((eps + e2) / 2)
    P.step(
        "W = S_{eps'}^{-1} S_eps = [[1 - w, w], [w, 1 - w]] with w = (y' - y)/((y + 1)(y' - 1)) "
        ">= 0",
        vanishes(W[0, 1] - (y2 - y) / ((y + 1) * (y2 - 1)))
        and vanishes(W[1, 0] - W[0, 1])
        and vanishes(W * sp.ones(2, 1) - sp.ones(2, 1)),
        "y = e^{eps/2} <= y' = e^{eps'/2}; w <= 1/2 since 2(y' - y) <= (y + 1)(y' - 1)",
    )
    P.step(
        "(y + 1)(y' - 1) - 2(y' - y) = (y - 1)(y' + 1) >= 0, so 0 <= w <= 1/2",
        vanishes((y + 1) * (y2 - 1) - 2 * (y2 - y) - (y - 1) * (y2 + 1)),
    )
    P.step(
        "q.symbolic.sue(2, eps') · (W ⊗ W) = q.symbolic.sue(2, eps)",
        vanishes(sym.sue(2, ep).subs(shift).matrix * kron(W, W) - sym.sue(2, eps).matrix),
    )

    P.section("eps-LDP and the reverse direction")
    for k in (2, 3):
        ldp = q.ldp_epsilon(sym.sue(k, eps))
        P.step(
            f"q.ldp_epsilon(q.symbolic.sue({k}, eps)) = eps", vanishes(ldp - eps), f"library: {ldp}"
        )
    P.note("the true epsilon is eps itself, strictly increasing: SUE(eps) ⊑ SUE(eps') forces")
    P.note("eps' <= eps (refinement implies max-case refinement, which cannot increase epsilon).")

    P.section("numerical confirmation with the LP")
    grid = [0.0, 0.3, 0.8, 1.5, 3.0, 6.0]
    lp_family_grid(P, "sue_bit", q.sue_bit, grid)
    for k in (2, 3):
        lp_family_grid(P, f"sue({k}, .)", lambda e, k=k: q.sue(k, e), grid)
    return P.finish()


if __name__ == "__main__":
    run(main)
