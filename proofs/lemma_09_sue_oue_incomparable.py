"""QIF paper, Lemma 9: the SUE and OUE bit channels are incomparable for every eps > 0.

Statement. For eps > 0, S_eps ⋢ O_eps and O_eps ⋢ S_eps (bitwise SUE and OUE).

Proof checked here (symbolically, every eps > 0), with Lemma 1 (3) on the library's trade-off
points alpha_S = beta_S = 1/(e^{eps/2} + 1), alpha_O = 1/(e^eps + 1), beta_O = 1/2:
  S ⊑ O needs (1 - beta_S)/alpha_S >= (1 - beta_O)/alpha_O, but
      (1 - beta_O)/alpha_O - (1 - beta_S)/alpha_S = (e^{eps/2} - 1)^2 / 2 > 0;
  O ⊑ S needs beta_O/(1 - alpha_O) <= beta_S/(1 - alpha_S), but
      beta_O/(1 - alpha_O) - beta_S/(1 - alpha_S) = (e^{eps/2} - 1)^2 / (2 e^eps) > 0.
LP-confirmed on a grid (each failure certified by a gain function with positive gap).

Beyond the paper: the incomparability does not transfer to the one-hot channels. For k = 2,
sue(2, eps) ⊑ oue(2, eps) for every eps (explicit symbolic witness below: OUE's trade-off
vertex lies exactly on SUE's trade-off curve); for k = 3 the LP finds them incomparable at
eps = 0.5, 1 and SUE ⊑ OUE at eps = 2, 4.
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Lemma 9: for eps > 0 the SUE and OUE bit channels are incomparable",
        "QIF paper (Gonze et al., CSF 2026), Lemma 9 and its appendix proof",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    y, t = sp.exp(eps / 2), sp.exp(eps)
    aS, bS = q.tradeoff_point(sym.sue_bit(eps))
    aO, bO = q.tradeoff_point(sym.oue_bit(eps))

    P.section("symbolic, every eps > 0 (Lemma 1 (3); both points satisfy alpha + beta <= 1)")
    d1 = (1 - bO) / aO - (1 - bS) / aS
    P.step(
        "(1 - beta_O)/alpha_O - (1 - beta_S)/alpha_S = (e^{eps/2} - 1)^2 / 2, > 0 for eps > 0: S "
        "⋢ O",
        vanishes(d1 - (y - 1) ** 2 / 2),
        f"= {sp.factor(sp.simplify(d1))}",
    )
    d2 = bO / (1 - aO) - bS / (1 - aS)
    P.step(
        "beta_O/(1 - alpha_O) - beta_S/(1 - alpha_S) = (e^{eps/2} - 1)^2 / (2 e^eps), > 0 for eps "
        "> 0: O ⋢ S",
        vanishes(d2 - (y - 1) ** 2 / (2 * t)),
        "(this is the paper's appendix computation)",
    )
    P.note("(e^{eps/2} - 1)^2 > 0 iff eps != 0; at eps = 0 both channels have equal rows.")

    P.section("LP confirmation with separating gain functions")
    bad = []
    grid = [0.05, 0.3, 0.7, 1.0, 2.0, 3.5, 5.0, 8.0, 12.0]
    for e in grid:
        for A, B, name in (
            (q.sue_bit(e), q.oue_bit(e), "S ⊑ O"),
            (q.oue_bit(e), q.sue_bit(e), "O ⊑ S"),
        ):
            r = q.refines(A, B)
            if r.holds or r.counterexample is None or not r.counterexample.gap > 0:
                bad.append((e, name))
    P.step(
        f"q.refines fails both ways with a positive-gap gain function at eps in {grid}",
        not bad,
        f"bad: {bad}",
    )
    r0 = q.refines(q.sue_bit(0.0), q.oue_bit(0.0)), q.refines(q.oue_bit(0.0), q.sue_bit(0.0))
    P.step(
        "at eps = 0 both refinements hold (both channels leak nothing)",
        bool(r0[0].holds and r0[1].holds),
    )
    r1 = q.refines(q.sue_bit(1.0), q.oue_bit(1.0)).counterexample
    P.note(
        f"e.g. eps = 1, S ⋢ O: gain {r1.gain.round(4).tolist()}, prior "
        f"{r1.prior.round(4).tolist()}, gap {r1.gap:.3g}"
    )

    P.section("beyond the paper: one-hot SUE ⊑ OUE for k = 2 and every eps (symbolic witness)")
    S2, O2 = sym.sue(2, eps), sym.oue(2, eps)
    qo = 1 / (t + 1)
    lam = (y + 1) ** 2 / (2 * (y**2 + 1))  # = q'/(2 q^2), q = 1/(y + 1), q' = 1/(e^eps + 1)
    mid = [1 - qo, 0, 0, qo]  # outputs (0,0), (0,1), (1,0), (1,1)
    W = sp.Matrix(
        [
            mid,
            [(1 - lam) * (1 - qo), lam, 0, (1 - lam) * qo],
            [(1 - lam) * (1 - qo), 0, lam, (1 - lam) * qo],
            mid,
        ]
    )
    P.step(
        "outputs of q.symbolic.sue(2, .) and oue(2, .) are (0,0), (0,1), (1,0), (1,1)",
        S2.outputs == O2.outputs == ((0, 0), (0, 1), (1, 0), (1, 1)),
    )
    P.step(
        "lambda = (e^{eps/2} + 1)^2 / (2 (e^eps + 1)) lies in [1/2, 1]: 2(e^eps + 1) - (e^{eps/2} "
        "+ 1)^2 = (e^{eps/2} - 1)^2",
        vanishes(2 * (t + 1) - (y + 1) ** 2 - (y - 1) ** 2),
    )
    P.step(
        "W is row-stochastic (rows sum to 1, entries are products of numbers in [0, 1])",
        vanishes(W * sp.ones(4, 1) - sp.ones(4, 1)),
    )
    P.step(
        "q.symbolic.sue(2, eps) · W = q.symbolic.oue(2, eps) for every eps",
        vanishes(S2.matrix * W - O2.matrix),
    )

    P.section("beyond the paper: k = 3 (LP, certified)")
    verdicts = {}
    for e in (0.5, 1.0, 2.0, 4.0):
        verdicts[e] = (
            bool(q.refines(q.sue(3, e), q.oue(3, e)).holds),
            bool(q.refines(q.oue(3, e), q.sue(3, e)).holds),
        )
    P.step(
        "k = 3: incomparable at eps = 0.5 and 1; SUE ⊑ OUE (and not conversely) at eps = 2 and 4",
        verdicts
        == {0.5: (False, False), 1.0: (False, False), 2.0: (True, False), 4.0: (True, False)},
        f"(SUE ⊑ OUE, OUE ⊑ SUE): {verdicts}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
