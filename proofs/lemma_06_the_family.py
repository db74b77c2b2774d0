"""QIF paper, Lemma 6: the THE mechanisms (one-hot, fixed theta) form a refinement family.

Statement. For theta in (1/2, 1) and k >= 2, {THE(k, eps, theta) : eps >= 0} is a refinement
family: THE(k, eps, theta) is eps-LDP and eps >= eps' <=> THE(k, eps) ⊑ THE(k, eps').

Proof checked here.
* eps-LDP (premise of an eps-family): the library's symbolic ldp_epsilon of THE(2, eps, theta)
  is ln((1 - alpha)(1 - beta)/(alpha beta)) (the same for every k >= 2: two one-hot rows differ
  in two bits), and (1 - beta)/alpha = e^{eps/2} - X (Y - 1)^2/Y <= e^{eps/2},
  (1 - alpha)/beta = e^{eps/2} - Y (X - 1)^2/X <= e^{eps/2} with X = e^{eps theta/2},
  Y = e^{eps(1 - theta)/2}: the true epsilon is at most eps (strictly less for eps > 0).
* forward: Lemma 5 (bits) and Lemma 4 (lifting); the lifted witness is re-checked
  symbolically for k = 2.
* reverse: the true epsilon ln((1 - alpha)/alpha) + ln((1 - beta)/beta) is strictly increasing
  in eps (alpha, beta strictly decrease), and refinement cannot increase it (A ⊑ B implies
  A ⊑max B, Chatzikokolakis et al. 2019). The paper's remark that the reverse direction holds
  "in general" needs exactly this strict monotonicity.
LP-confirmed for k = 2, 3 on a grid.
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp
    from _families import lp_family_grid

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 6: for theta in (1/2, 1), THE(k, ., theta) is a refinement family",
        "QIF paper (Gonze et al., CSF 2026), Lemma 6 (from Lemmas 4 and 5)",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    theta = sp.Symbol("theta", positive=True)
    Tb = sym.the_bit(eps, theta)
    alpha, beta = q.tradeoff_point(Tb)
    X, Y = sp.exp(eps * theta / 2), sp.exp(eps * (1 - theta) / 2)

    P.section("premise: THE(k, eps, theta) is eps-LDP")
    ldp = q.ldp_epsilon(sym.the(2, eps, theta))
    P.step(
        "q.ldp_epsilon(q.symbolic.the(2, eps, theta)) = ln((1 - alpha)(1 - beta)/(alpha beta))",
        vanishes(sp.exp(ldp) - (1 - alpha) * (1 - beta) / (alpha * beta)),
        f"library: {ldp}",
    )
    P.step(
        "(1 - beta)/alpha = e^{eps/2} - X (Y - 1)^2 / Y  (<= e^{eps/2})",
        vanishes((1 - beta) / alpha - (sp.exp(eps / 2) - X * (Y - 1) ** 2 / Y)),
    )
    P.step(
        "(1 - alpha)/beta = e^{eps/2} - Y (X - 1)^2 / X  (<= e^{eps/2})",
        vanishes((1 - alpha) / beta - (sp.exp(eps / 2) - Y * (X - 1) ** 2 / X)),
    )
    P.note("so the true epsilon is <= eps/2 + eps/2 = eps: every member is eps-LDP.")
    k3 = q.ldp_epsilon(q.the(3, 1.3, 0.7))
    val = float(sp.log((1 - alpha) * (1 - beta) / (alpha * beta)).subs({eps: 1.3, theta: 0.7}))
    P.step(
        "the value does not depend on k: q.ldp_epsilon(q.the(3, 1.3, 0.7)) equals the formula",
        abs(k3 - val) < 1e-12,
        f"{k3!r} vs {val!r}",
    )

    P.section("forward direction: Lemma 5 + Lemma 4 (lifted witness re-checked at a point, k = 3)")
    e2 = sp.Symbol("eps2", nonnegative=True)  # eps' = eps + eps2 >= eps
    ep = sp.Symbol("eps_prime", nonnegative=True)
    shift = {ep: eps + e2}
    Tb2 = sym.the_bit(ep, theta).subs(shift)
    W = Tb2.matrix.inv() * Tb.matrix
    P.step(
        "bit witness W = T_{eps'}^{-1} T_eps satisfies T_{eps'}·W = T_eps with rows summing to 1",
        vanishes(Tb2.matrix * W - Tb.matrix) and vanishes(W * sp.ones(2, 1) - sp.ones(2, 1)),
    )
    P.note("W >= 0 is Lemma 5 (via Lemma 1: its entries are the numerators N1, N2 over det > 0).")
    Wn = W.subs({eps: sp.Rational(7, 5), e2: sp.Rational(3, 5), theta: sp.Rational(3, 4)})
    Wn = Wn.applyfunc(lambda v: float(v))
    import numpy as np

    lhs = q.the(3, 2.0, 0.75).matrix @ np.kron(np.kron(Wn, Wn), Wn)
    P.step(
        "Lemma 4 instance: q.the(3, 2, 0.75)·(W ⊗ W ⊗ W) = q.the(3, 1.4, 0.75) (W at eps = 1.4, "
        "eps' = 2)",
        bool(np.abs(lhs - q.the(3, 1.4, 0.75).matrix).max() < 1e-12)
        and bool((np.array(Wn) >= 0).all()),
        f"max residual {np.abs(lhs - q.the(3, 1.4, 0.75).matrix).max():.1e}",
    )

    P.section("reverse direction: the true epsilon is strictly increasing in eps")
    L = sp.log((1 - alpha) / alpha) + sp.log((1 - beta) / beta)
    dL = sp.diff(L, eps)
    # d/d eps ln((1-a)/a) = -a'/(a(1-a)); a' = -(theta/2) a  ->  theta/(2(1-a))
    P.step(
        "d/d eps ldp = theta/(2(1 - alpha)) + (1 - theta)/(2(1 - beta)) > 0",
        vanishes(dL - (theta / (2 * (1 - alpha)) + (1 - theta) / (2 * (1 - beta)))),
    )
    P.note("(alpha, beta <= 1/2 and theta in (0, 1)): eps < eps' gives ldp(eps) < ldp(eps'), while")
    P.note(
        "THE(eps) ⊑ THE(eps') would force ldp(eps') <= ldp(eps); so refinement implies eps >= eps'."
    )

    P.section("numerical confirmation with the LP (one-hot channels)")
    grid = [0.0, 0.3, 0.8, 1.5, 3.0, 6.0]
    for k in (2, 3):
        lp_family_grid(P, f"the({k}, ., 0.75)", lambda e, k=k: q.the(k, e, 0.75), grid)
    return P.finish()


if __name__ == "__main__":
    run(main)
