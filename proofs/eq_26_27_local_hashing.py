"""QIF paper, Eq. (26)/(27): ASR and Bayes capacity of local hashing, against the explicit channel.

Statement. For LH with k inputs, g hash values and t = e^eps,
    ML(LH)  = (t g^k + (g - 1)^k (1 - t)) / ((t + g - 1) g^(k-1))      (Eq. 27)
    ASR(LH) = ML(LH) / k                                               (Eq. 26).

Proved here:
* the channel: every entry of the library's explicit LH channel (labels (hash function as a
  k-tuple, perturbed value)) is p/g^k if h(x) = z_p and q/g^k otherwise (Eq. 24), checked on the
  labels for small k, g;
* the counting argument, for symbolic k and g: a column (h, z_p) has maximum p/g^k iff some x
  hashes to z_p, which fails for exactly (g - 1)^k of the g^k functions, so
  ML = g [(g^k - (g - 1)^k) p + (g - 1)^k q] / g^k, which simplifies to Eq. 27;
* the count (g - 1)^k by enumeration of the explicit channel's columns, and Eq. 27 against the
  library's symbolic Bayes capacity of q.symbolic.local_hashing(k, eps, g), k = 2..5, g = 2, 3
  (exactly, as functions of eps), and the numeric closed forms (q.formulas) against the
  enumerated numeric channels for k <= 5, g <= 4 and a grid of eps.
"""

from __future__ import annotations

import itertools

from _certificate import Proof, run, vanishes


def main() -> int:
    import numpy as np
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym

    P = Proof(
        "Eq. 26/27: ML(LH) = (e^eps g^k + (g-1)^k (1 - e^eps)) / ((e^eps + g - 1) g^(k-1)), ASR = "
        "ML/k",
        "QIF paper (Gonze et al., CSF 2026), Sec. V-C, Eq. (24), (26), (27) and appendix",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    t = sp.exp(eps)

    def eq27(k, g):
        return (t * g**k + (g - 1) ** k * (1 - t)) / ((t + g - 1) * g ** (k - 1))

    P.section("the explicit channel is Eq. (24)")
    bad = []
    for k, g in [(2, 2), (3, 2), (2, 3), (3, 3)]:
        C = q.local_hashing(k, 1.3, g)
        p, qq = np.exp(1.3) / (np.exp(1.3) + g - 1), 1 / (np.exp(1.3) + g - 1)
        for x in range(k):
            for j, (h, zp) in enumerate(C.outputs):
                want = (p if h[x] == zp else qq) / g**k
                if abs(C.matrix[x, j] - want) > 1e-15:
                    bad.append((k, g, x, h, zp))
        if sorted(C.outputs) != sorted(
            itertools.product(itertools.product(range(g), repeat=k), range(g))
        ):
            bad.append((k, g, "outputs"))
    P.step(
        "q.local_hashing(k, 1.3, g): outputs = all (h, z_p), entries p/g^k iff h(x) = z_p else "
        "q/g^k",
        not bad,
        f"mismatches: {bad[:3]}",
    )

    P.section("counting argument, symbolic k and g")
    k, g = sp.symbols("k g", positive=True, integer=True)
    A, B = sp.symbols("A B", positive=True)  # A = g^k, B = (g - 1)^k
    p, qq = t / (t + g - 1), 1 / (t + g - 1)
    ml_count = g * ((A - B) * p + B * qq) / A
    eq27_AB = (t * A + B * (1 - t)) / ((t + g - 1) * (A / g))  # g^(k-1) = A/g
    P.step(
        "g [(g^k - (g-1)^k) p + (g-1)^k q] / g^k = Eq. (27) (with A = g^k, B = (g-1)^k, g^(k-1) = "
        "A/g)",
        vanishes(ml_count - eq27_AB),
    )
    P.step(
        "Eq. (27) as typed here is the library's q.symbolic.formulas.bayes_capacity_lh (k = 4, g "
        "= 3)",
        vanishes(sym.formulas.bayes_capacity_lh(4, eps, 3) - eq27(4, 3)),
    )

    P.section(
        "enumeration: the count (g-1)^k and the symbolic Bayes capacity of the explicit channel"
    )
    for kk, gg in [(2, 2), (3, 2), (4, 2), (5, 2), (2, 3), (3, 3), (4, 3)]:
        C = sym.local_hashing(kk, eps, gg)
        pk, qk = (t / (t + gg - 1)) / gg**kk, (1 / (t + gg - 1)) / gg**kk
        # every distinct entry is identically p/g^k or q/g^k; classify the distinct ones
        # (the value at e^eps = 3 picks the candidate, vanishes() proves the identity)
        kind = {}
        for v in set(C.matrix):
            guess, ref = (
                ("p", pk) if sp.nsimplify((v - pk).subs(eps, sp.log(3))) == 0 else ("q", qk)
            )
            kind[v] = guess if vanishes(v - ref) else "?"
        if "?" in kind.values():
            P.step(f"k = {kk}, g = {gg}: entries are p/g^k or q/g^k", False, f"{kind}")
            continue
        n_p = sum(
            1 for j in range(C.shape[1]) if any(kind[C.matrix[x, j]] == "p" for x in range(kk))
        )
        n_cols = C.shape[1]
        ml_enum = n_p * pk + (n_cols - n_p) * qk
        ml_lib = q.bayes_capacity(C)
        P.step(
            f"k = {kk}, g = {gg}: columns without a p-entry = g (g-1)^k = {gg * (gg - 1) ** kk}; "
            "enumerated ML = library's symbolic ML = Eq. (27)",
            n_cols - n_p == gg * (gg - 1) ** kk
            and vanishes(ml_enum - eq27(kk, gg))
            and vanishes(ml_lib - eq27(kk, gg)),
            f"ML = {sp.factor(ml_lib)}",
        )

    P.section("numeric closed forms against the enumerated numeric channels")
    worst = 0.0
    for kk in range(2, 6):
        for gg in range(2, 5):
            if kk * gg**kk * gg > 5000:
                continue
            for e in (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0):
                C = q.local_hashing(kk, e, gg)
                ml, f = q.bayes_capacity(C), q.formulas.bayes_capacity_lh(kk, e, gg)
                a, fa = q.asr(C), q.formulas.asr_lh(kk, e, gg)
                ref = float(eq27(kk, gg).subs(eps, e))
                worst = max(
                    worst,
                    abs(ml - f) / f,
                    abs(ml - ref) / ref,
                    abs(a - fa) / fa,
                    abs(a * kk - ml) / ml,
                )
    P.step(
        "k = 2..5, g = 2..4, eps in {0, ..., 8}: q.bayes_capacity(q.local_hashing) = "
        "q.formulas.bayes_capacity_lh "
        "= Eq. (27), q.asr = q.formulas.asr_lh = ML/k (relative 1e-12)",
        worst < 1e-12,
        f"largest relative deviation {worst:.1e}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
