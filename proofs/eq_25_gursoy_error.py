"""QIF paper, Eq. (25) and appendix A: the earlier LH attack formula of Gursoy et al. is wrong.

Claim checked. Eq. (25), ASR = e^eps / ((e^eps + g - 1) max(k/g, 1)), does not give the success
rate of the Bayes-optimal attacker on LH; Eq. (26) does (see eq_26_27_local_hashing.py). The
paper locates the mistake in using (E|U| - 1)/E|U| for the probability of guessing wrong inside
the support set U = {x : h(x) = reported value}, where E[1 - 1/|U|] is right; the two agree only
for large k, and the larger eps, the larger k must be (Fig. 7).

Proved here:
* Eq. (25) as printed is the library's q.formulas / q.symbolic.formulas.asr_lh_gursoy;
* k = g = 2: Eq. (25) - Eq. (26) = (e^eps - 1)/(4 (e^eps + 1)) > 0 for every eps > 0, and the
  explicit channel (q.asr(q.local_hashing(2, eps, 2))) agrees with Eq. (26), not with Eq. (25);
* the correct decomposition: given x, the report equals h(x) w.p. p and then |U| = 1 + B with
  B ~ Bin(k-1, 1/g), E[1/|U|] = (g/k)(1 - ((g-1)/g)^k); otherwise x is not in U and the attacker
  only wins by a uniform guess when U is empty (probability ((g-1)/g)^(k-1)). Then
  ASR = p E[1/|U|] + (1 - p) ((g-1)/g)^(k-1)/k equals Eq. (26) (symbolic k, g);
* the identified error: E[1 - 1/|U|] < 1 - 1/E|U| strictly (Jensen, B non-degenerate), checked
  exactly (rational arithmetic) for k = 2..8, g = 2..5;
* Eq. (25)/Eq. (26) -> 1 as k -> oo (sympy limit, k >= g); for OLH the k from which the
  relative error stays below 1% grows with eps (94 at eps = 3, 685 at eps = 5); for g = 2 it is
  7 for both.
"""

from __future__ import annotations

from fractions import Fraction as Fr
from math import comb

from _certificate import Proof, run, vanishes


def main() -> int:
    import numpy as np
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Eq. 25 (Gursoy et al.) is not the LH attack success rate; Eq. 26 is, "
        "and the appendix's diagnosis holds",
        "QIF paper (Gonze et al., CSF 2026), Sec. V-C Eq. (25)/(26), Sec. VII-C (Fig. 7), "
        "appendix A",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    t = sp.exp(eps)

    def eq25(k, g):
        return t / ((t + g - 1) * sp.Max(sp.Rational(k, g) if isinstance(k, int) else k / g, 1))

    def eq26(k, g):
        return (t * g**k + (g - 1) ** k * (1 - t)) / ((t + g - 1) * k * g ** (k - 1))

    P.section("Eq. (25) as printed is the library's asr_lh_gursoy")
    ok = all(
        vanishes(sym.formulas.asr_lh_gursoy(k, eps, g) - eq25(k, g))
        for k, g in [(2, 2), (3, 2), (5, 3), (2, 5)]
    )
    num = all(
        abs(q.formulas.asr_lh_gursoy(k, e, g) - float(eq25(k, g).subs(eps, e))) < 1e-12
        for k, g in [(2, 2), (7, 3), (50, 21)]
        for e in (0.5, 3.0, 5.0)
    )
    P.step("symbolic and numeric asr_lh_gursoy = e^eps/((e^eps + g - 1) max(k/g, 1))", ok and num)

    P.section("k = g = 2: Eq. (25) overestimates for every eps > 0")
    d = eq25(2, 2) - eq26(2, 2)
    P.step(
        "Eq. (25) - Eq. (26) = (e^eps - 1)/(4 (e^eps + 1)) (> 0 iff eps > 0)",
        vanishes(d - (t - 1) / (4 * (t + 1))),
    )
    asr_sym = q.asr(sym.local_hashing(2, eps, 2))
    P.step(
        "q.asr of the explicit symbolic channel local_hashing(2, eps, 2) is Eq. (26) "
        "= (3 e^eps + 1)/(4 (e^eps + 1))",
        vanishes(asr_sym - eq26(2, 2)) and vanishes(asr_sym - (3 * t + 1) / (4 * (t + 1))),
        f"at eps = 3: explicit {float(asr_sym.subs(eps, 3)):.4f}, "
        f"Eq. (25) {float(eq25(2, 2).subs(eps, 3)):.4f}",
    )

    P.section("the correct computation reproduces Eq. (26) (symbolic k, g)")
    k, g = sp.symbols("k g", positive=True)
    A, B = sp.symbols("A B", positive=True)  # A = g^k, B = (g - 1)^k
    p = t / (t + g - 1)
    e_inv_U = (g / k) * (1 - B / A)  # E[1/(1 + Bin(k-1, 1/g))] = (g/k)(1 - ((g-1)/g)^k)
    p_empty = (B / (g - 1)) / (A / g)  # ((g-1)/g)^(k-1)
    asr = p * e_inv_U + (1 - p) * p_empty / k
    eq26_AB = (t * A + B * (1 - t)) / ((t + g - 1) * k * (A / g))
    P.step("p E[1/|U|] + (1 - p) P(U empty)/k = Eq. (26)", vanishes(asr - eq26_AB))
    bad = []
    jensen_gaps = []
    for kk in range(2, 9):
        for gg in range(2, 6):
            pr = Fr(1, gg)
            e_inv = sum(
                comb(kk - 1, b) * pr**b * (1 - pr) ** (kk - 1 - b) / (1 + b) for b in range(kk)
            )
            if e_inv != Fr(gg, kk) * (1 - Fr(gg - 1, gg) ** kk):
                bad.append((kk, gg, "closed form"))
            e_U = 1 + Fr(kk - 1, gg)
            wrong_guess_true, wrong_guess_gursoy = 1 - e_inv, (e_U - 1) / e_U
            if not wrong_guess_true < wrong_guess_gursoy:
                bad.append((kk, gg, "Jensen"))
            jensen_gaps.append(wrong_guess_gursoy - wrong_guess_true)
    P.step(
        "exact, k = 2..8, g = 2..5: E[1/|U|] = (g/k)(1 - ((g-1)/g)^k) and "
        "E[1 - 1/|U|] < (E|U| - 1)/E|U|",
        not bad,
        f"smallest gap {float(min(jensen_gaps)):.4f}, largest {float(max(jensen_gaps)):.4f}",
    )

    P.section("large k: the two formulas meet; how large depends on eps (Fig. 7)")
    kk = sp.Symbol("k", positive=True)
    gg = sp.Symbol("g", positive=True)
    ratio = (t / ((t + gg - 1) * (kk / gg))) / eq26(kk, gg)  # k >= g: max(k/g, 1) = k/g
    lim = (
        sp.limit(ratio.subs({gg: 2, eps: 3}), kk, sp.oo),
        sp.limit(ratio.subs({gg: 5, eps: 1}), kk, sp.oo),
    )
    P.step(
        "Eq. (25)/Eq. (26) -> 1 as k -> oo (g = 2, eps = 3 and g = 5, eps = 1)",
        lim == (1, 1),
        f"limits {lim}",
    )

    def k_from(e, g):
        """Smallest K with relative error < 1% for every k in K..20000."""
        ks = np.arange(2, 20_001)
        true = q.formulas.asr_lh(ks, e, g)
        err = np.abs(q.formulas.asr_lh_gursoy(ks, e, g) - true) / true
        above = np.nonzero(err >= 0.01)[0]
        return int(ks[above[-1]] + 1) if len(above) else 2

    olh = {e: max(2, int(round(np.exp(e) + 1))) for e in (3.0, 5.0)}
    K = {(e, g): k_from(e, g) for e in (3.0, 5.0) for g in (2, olh[e])}
    P.step(
        "OLH (g = round(e^eps + 1)): Eq. (25) is within 1% of Eq. (26) only from k = K on, "
        "and K grows "
        "with eps (Fig. 7's observation); with g = 2 (BLH) K hardly depends on eps",
        K[(5.0, olh[5.0])] > K[(3.0, olh[3.0])] and K[(3.0, 2)] == K[(5.0, 2)],
        ", ".join(f"eps = {e}, g = {g}: K = {v}" for (e, g), v in K.items()),
    )
    rows = []
    for kk_ in (2, 3, 5, 10, 50):
        C = q.local_hashing(kk_, 3.0, 2) if kk_ <= 10 else None
        true = q.asr(C) if C is not None else q.formulas.asr_lh(kk_, 3.0, 2)
        rows.append(
            f"k = {kk_:>2}: explicit/Eq.26 {true:.4f}  "
            f"Eq.25 {q.formulas.asr_lh_gursoy(kk_, 3.0, 2):.4f}"
        )
    P.note("eps = 3, g = 2:")
    for r in rows:
        P.note("  " + r)
    P.note(
        f"eps = 3, OLH g = {olh[3.0]} (for k << g Eq. (25) misses the uniform guess when U is "
        "empty; near k = g it overestimates):"
    )
    for kk_ in (2, 5, 21, 100):
        P.note(
            f"  k = {kk_:>3}: Eq.26 {q.formulas.asr_lh(kk_, 3.0, olh[3.0]):.4f}  "
            f"Eq.25 {q.formulas.asr_lh_gursoy(kk_, 3.0, olh[3.0]):.4f}"
        )
    P.discrepancy(
        "Eq. (25) (Gursoy et al. 2022) is not the attack success rate of LH: e.g. k = g = 2, "
        "eps = 3 gives "
        "0.9526 against the true 0.7263; Eq. (26) is correct (confirms the QIF paper's correction)."
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
