"""QIF paper, Lemma 8: the OUE mechanisms form a refinement family.

Statement. For k >= 2, {OUE(k, eps) : eps >= 0} is a refinement family:
OUE(k, eps) is eps-LDP and eps >= eps' <=> OUE(k, eps) ⊑ OUE(k, eps').

Proof checked here. The bit channel O_eps = [[e^eps/(e^eps + 1), 1/(e^eps + 1)], [1/2, 1/2]]
(library q.symbolic.oue_bit) has trade-off point alpha = 1/(e^eps + 1) (strictly decreasing),
beta = 1/2 (constant), alpha + beta <= 1; Lemma 2 gives O_eps' ⊑ O_eps for eps <= eps', and
Lemma 4 lifts it (witness re-checked symbolically for k = 2). The library's symbolic
ldp_epsilon of OUE(k, eps) is eps (k = 2, 3): strictly increasing, so the reverse holds.
LP-confirmed.
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
        "Lemma 8: OUE(k, .) is a refinement family",
        "QIF paper (Gonze et al., CSF 2026), Lemma 8",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    O = sym.oue_bit(eps)
    alpha, beta = q.tradeoff_point(O)
    t = sp.exp(eps)

    P.section("bit channel: trade-off point and monotonicity")
    P.step(
        "alpha = 1/(e^eps + 1) <= 1/2 and beta = 1/2",
        vanishes(alpha - 1 / (t + 1)) and beta == sp.Rational(1, 2),
    )
    d = sp.diff(alpha, eps)
    P.step(
        "d alpha/d eps = -e^eps/(e^eps + 1)^2 < 0",
        vanishes(d + t / (t + 1) ** 2) and bool((t / (t + 1) ** 2).is_positive),
    )
    P.note("eps <= eps' gives alpha' <= alpha and beta' = beta; Lemma 2: O_eps' ⊑ O_eps.")

    P.section("lifting (Lemma 4), witness re-checked for k = 2")
    e2 = sp.Symbol("eps2", nonnegative=True)  # eps' = eps + eps2 >= eps
    ep = sp.Symbol("eps_prime", nonnegative=True)
    shift = {ep: eps + e2}
    O2 = sym.oue_bit(ep).subs(shift)
    W = (O2.matrix.inv() * O.matrix).applyfunc(sp.factor)
    t2 = sp.exp(eps + e2)
    P.step(
        "W = O_{eps'}^{-1} O_eps = [[1 - w, w], [w, 1 - w]] with w = (t' - t)/((t + 1)(t' - 1)) "
        ">= 0",
        vanishes(W[0, 1] - (t2 - t) / ((t + 1) * (t2 - 1)))
        and vanishes(W[1, 0] - W[0, 1])
        and vanishes(W * sp.ones(2, 1) - sp.ones(2, 1)),
        "t = e^eps <= t' = e^eps'",
    )
    P.step(
        "(t + 1)(t' - 1) - 2(t' - t) = (t - 1)(t' + 1) >= 0, so 0 <= w <= 1/2: W is stochastic",
        vanishes((t + 1) * (t2 - 1) - 2 * (t2 - t) - (t - 1) * (t2 + 1)),
    )
    P.step(
        "q.symbolic.oue(2, eps') · (W ⊗ W) = q.symbolic.oue(2, eps)",
        vanishes(sym.oue(2, ep).subs(shift).matrix * kron(W, W) - sym.oue(2, eps).matrix),
    )

    P.section("eps-LDP and the reverse direction")
    for k in (2, 3):
        ldp = q.ldp_epsilon(sym.oue(k, eps))
        P.step(
            f"q.ldp_epsilon(q.symbolic.oue({k}, eps)) = eps", vanishes(ldp - eps), f"library: {ldp}"
        )
    P.note("strictly increasing true epsilon: OUE(eps) ⊑ OUE(eps') forces eps' <= eps.")

    P.section("numerical confirmation with the LP")
    grid = [0.0, 0.3, 0.8, 1.5, 3.0, 6.0]
    lp_family_grid(P, "oue_bit", q.oue_bit, grid)
    for k in (2, 3):
        lp_family_grid(P, f"oue({k}, .)", lambda e, k=k: q.oue(k, e), grid)
    return P.finish()


if __name__ == "__main__":
    run(main)
