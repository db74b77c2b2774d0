"""SUE ⊑ OUE for the real one-hot channels: proved at k = 50, eps = 9; the boundary eps*(k).

Statement. sue(50, 9) ⊑ oue(50, 9) for the real channels (not only their stored floats).
For every k in 3..50 there is one eps*(k) > 0 with sue(k, eps) ⊑ oue(k, eps) iff
eps >= eps*(k); for k = 2 the refinement holds at every eps. The enclosures of eps*(k)
printed here have width <= 1e-12; eps*(50) = 8.514854727738 (bisection of the float route).

Proof checked here. The tight-ratio reduction (qifldp.protocols.tight_ratio): every inner
class of both channels has a_s / b_s = e^eps exactly (an identity of the symbolic twin's
closed forms, sympy), so a witness maps each inner output T of OUE to T alone and
SUE ⊑ OUE iff used_s = P^OUE_in(s) / P^SUE_in(s) <= 1 for every s. With H = e^{eps/2},
used_s = (1/2) H^{k-s-1} (1+H)^k / (1+H^2)^{k-1} (checked below for k = 50, every s),
largest at s = 1; d/dh log used_1 (h = eps/2) = 2(k-1)/(1+H^2) - k/(1+H) (checked), whose
sign is that of -(k H^2 - 2(k-1) H - (k-2)): one crossing of 1 for k >= 3, none for k = 2.
Each enclosure's ends are proved with arb (python-flint) at 200 bits.
"""

from __future__ import annotations

from _certificate import Proof, run, vanishes


def main() -> int:
    import sympy as sp

    import qifldp as q
    from qifldp.protocols.tight_ratio import sue_oue_boundary

    P = Proof(
        "SUE ⊑ OUE for the real channels at k = 50, eps = 9; the boundary eps*(k), k = 2..50",
        "qifldp: the tight-ratio reduction decided from the protocols' exact parameters",
    )

    P.section("k = 50, eps = 9: the protocol objects (premise by sympy, weights by arb)")
    r = q.refines(q.protocol("sue", 50, 9.0), q.protocol("oue", 50, 9.0))
    P.step(
        "q.refines(protocol('sue', 50, 9.0), protocol('oue', 50, 9.0)) holds, exact, about the "
        "protocols, not up to rounding",
        r.holds and r.exact and r.about == "protocols" and not r.up_to_rounding,
        r.certified_by,
    )
    P.step(
        "its largest used_s upper bound is < 1",
        r.details["tight_ratio_used_upper"] < 1.0,
        f"{r.details['tight_ratio_used_upper']:.15g}",
    )
    r2 = q.refines(q.protocol("oue", 50, 9.0), q.protocol("sue", 50, 9.0))
    P.step(
        "and OUE ⋢ SUE (a lower bound > 1; the float route's verified counterexample)",
        (not r2.holds) and r2.counterexample is not None and r2.counterexample.gap > 0,
        r2.certified_by[:400],
    )

    P.section("the closed form of used_s (sympy, every eps)")
    eps, h = sp.symbols("eps h", positive=True)
    H = sp.exp(eps / 2)
    k = 50
    ps, qs = H / (1 + H), 1 / (1 + H)
    qo = 1 / (1 + H**2)
    ok = True
    for s in range(1, k):
        sue_in = sp.binomial(k - 1, s - 1) * ps * qs ** (s - 1) * (1 - qs) ** (k - s)
        oue_in = sp.binomial(k - 1, s - 1) * sp.Rational(1, 2) * qo ** (s - 1) * (1 - qo) ** (k - s)
        claim = sp.Rational(1, 2) * H ** (k - s - 1) * (1 + H) ** k / (1 + H**2) ** (k - 1)
        ok = ok and vanishes(sp.simplify(oue_in / sue_in / claim) - 1)
    P.step("k = 50: used_s = (1/2) H^(k-s-1) (1+H)^k / (1+H^2)^(k-1) for s = 1..49", ok)
    kk, Hh = sp.symbols("k H", positive=True)
    log_used = (kk - 2) * h + kk * sp.log(1 + sp.exp(h)) - (kk - 1) * sp.log(1 + sp.exp(2 * h))
    d = sp.diff(log_used, h).subs(sp.exp(h), Hh)
    d = d.subs(sp.exp(2 * h), Hh**2)
    claim = 2 * (kk - 1) / (1 + Hh**2) - kk / (1 + Hh)
    P.step(
        "d/dh log used_1 = 2(k-1)/(1+H^2) - k/(1+H) (k symbolic)",
        vanishes(sp.simplify(d - claim)),
    )
    num = sp.factor(sp.together(claim * (1 + Hh) * (1 + Hh**2)))
    P.step(
        "its numerator is -(k H^2 - 2(k-1) H - (k-2)): one positive root, = 1 at k = 2",
        vanishes(sp.expand(num + (kk * Hh**2 - 2 * (kk - 1) * Hh - (kk - 2)))),
        f"numerator {num}",
    )

    P.section("eps*(k) for k = 2..50, enclosures [lo, hi] proved with arb")
    rows, good = [], True
    for kk_ in range(2, 51):
        lo, hi = sue_oue_boundary(kk_)
        good = good and (hi - lo <= 1e-12) and (kk_ == 2 or 0 < lo < hi)
        rows.append(f"k = {kk_:2d}: eps* in [{lo!r}, {hi!r}]")
        if kk_ == 50:
            lo50, hi50 = lo, hi
    P.step("every enclosure has width <= 1e-12 (k = 2: eps* = 0)", good, "\n".join(rows))
    P.step(
        "eps*(50) = 8.514854727738 (bisection of the float route) lies in its enclosure",
        lo50 <= 8.514854727738 <= hi50 + 1e-12,
        f"[{lo50!r}, {hi50!r}]",
    )
    ends = []
    for kk_ in (3, 10, 50):
        lo, hi = sue_oue_boundary(kk_)
        e_lo, e_hi = lo * (1 - 1e-9), hi * (1 + 1e-9)
        below = q.refines(q.protocol("sue", kk_, e_lo), q.protocol("oue", kk_, e_lo))
        above = q.refines(q.protocol("sue", kk_, e_hi), q.protocol("oue", kk_, e_hi))
        ends.append((kk_, below.holds, below.about, above.holds, above.about))
    P.step(
        "protocol objects just below eps* fail, just above hold (k = 3, 10, 50)",
        all((not b) and a for _, b, _, a, _ in ends),
        f"{ends}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
