"""Accounts of the symmetric certificates: an orbit witness and a symmetric gain, in words.

Registered on :func:`qifldp.refinement.explain.explain_witness` and
:func:`qifldp.refinement.explain.explain_gain` by :mod:`qifldp.symmetric.register`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..digits import scientific
from ..refinement.explain import EXPLAIN_MAX_WORK, finish_account
from .gain import SymmetricGain
from .lifting import BitwiseWitness
from .orbit_witness import OrbitWitness

__all__ = [
    "explain_bitwise_witness",
    "explain_orbit_witness",
    "explain_symmetric_gain",
    "symmetric_actions",
]


#: What the k bits a lifted witness post-processes are, per scheme of A's outputs
#: (:attr:`SymmetricChannel.scheme`): (the bits, bit 0, bit 1, the summary's bits).
_BIT_WORDS: dict[str, tuple[str, str, str, str]] = {
    "bits": (
        "each of the k = {k} reported bits",
        "a reported 0",
        "a reported 1",
        "every reported bit",
    ),
    "lh": (
        "each of the k = {k} bits of a report (h, v), bit x being 1 when h(x) = v (input x "
        "hashes to the reported value)",
        "a bit 0 (h(x) ≠ v)",
        "a bit 1 (h(x) = v)",
        "every bit 'x hashes to the reported value' of its report (hash, value)",
    ),
    "subsets": (
        "each of the k = {k} membership bits of the reported set, bit x being 1 when x is in it",
        "a bit 0 (x not in the set)",
        "a bit 1 (x in the set)",
        "every membership bit of the reported set",
    ),
}


def explain_bitwise_witness(W: BitwiseWitness, names: tuple[str, str], top: int) -> dict[str, Any]:
    """The account of a lifted witness w^{⊗k}: the 2x2 w applied to each of k bits of A's
    report, named per protocol: the reported bits of UE and THE; for local hashing, whose
    report is a (hash, value) pair (h, v), the bits "h(x) = v" of the k inputs x; the
    membership bits of the reported set otherwise. Never expanded (A's outputs number 2^k,
    or g^(k+1) for local hashing).

    >>> import qifldp.symmetric as sym
    >>> r = sym.refines(sym.sue(12, 1.0), sym.the(12, 1.0, 0.8))
    >>> explain_bitwise_witness(r.witness, ("A", "B"), 3)["kind"]
    'bitwise witness'
    >>> r = sym.refines(sym.olh(12, 2.0), sym.the(12, 2.0, 0.9))
    >>> print(explain_bitwise_witness(r.witness, ("OLH", "THE"), 3)["text"].splitlines()[1])
        a bit 0 (h(x) ≠ v) stays 0 with probability 0.9075, turns 1 with 0.09251
    """
    na, nb = names
    w = np.asarray(W.w, dtype=float)
    out: dict[str, Any] = {"kind": "bitwise witness", "k": int(W.k), "w": w.tolist()}
    scheme = "bits" if W.channels is None else W.channels[0].scheme[0]
    bits, zero, one, every = _BIT_WORDS.get(scheme, _BIT_WORDS["subsets"])
    lines = [
        f"{na} ⊑ {nb}: {nb} = {na}·w^{{⊗k}}, the 2x2 witness w applied independently to "
        f"{bits.format(k=W.k)} (QIF paper, Lemma 4):",
        f"    {zero} stays 0 with probability {w[0, 0]:.4g}, turns 1 with {w[0, 1]:.4g}",
        f"    {one} stays 1 with probability {w[1, 1]:.4g}, turns 0 with {w[1, 0]:.4g}",
        "  (witness.entry(S, T) gives one entry; witness.expand() the matrix, small k)",
    ]
    summary = (
        f"{nb} is {na} with {every} post-processed alike by a 2x2 channel: "
        f"{nb} leaks no more than {na} for every prior and gain."
    )
    return finish_account(out, lines, summary)


def explain_orbit_witness(W: OrbitWitness, names: tuple[str, str], top: int) -> dict[str, Any]:
    """The account of an orbit witness: its largest orbit masses u(s, t, j), in words.

    >>> import qifldp.symmetric as sym
    >>> r = sym.refines(sym.grr(10, 2.0), sym.grr(10, 1.0))
    >>> explain_orbit_witness(r.witness, ("A", "B"), 3)["kind"]
    'orbit witness'
    """
    na, nb = names
    mass = np.asarray(W.mass, dtype=float)
    order = np.lexsort((-mass, np.asarray(W.s)))
    entries = [
        {"s": int(W.s[i]), "t": int(W.t[i]), "j": int(W.j[i]), "mass": float(mass[i])}
        for i in order
        if mass[i] > 0
    ]
    out: dict[str, Any] = {
        "kind": "orbit witness",
        "k": int(W.k),
        "orbit_entries": len(entries),
        "entries": entries[:top],
        "residual": float(W.residual),
    }
    lines = [
        f"{na} ⊑ {nb}: {nb} = {na}·W, W symmetric under permutations of the k = {W.k} inputs, "
        f"stored by orbits ({len(entries)} orbit entries, residual {W.residual:.2e})."
    ]
    lines.append(
        "  an output S of A (a set of s inputs) goes to an output T of B with |T| = t and "
        "|S ∩ T| = j with probability mass u:"
    )
    for e in entries[:top]:
        lines.append(f"    s = {e['s']} -> t = {e['t']}, j = {e['j']}: u = {e['mass']:.4g}")
    if len(entries) > top:
        lines.append(f"    ... ({len(entries)} in all)")
    lines.append("  (witness.entry(S, T) gives one entry; witness.expand() the matrix, small k)")
    summary = (
        f"{nb} is {na} followed by a post-processing that treats all inputs alike "
        f"({len(entries)} orbit entries): {nb} leaks no more than {na} for every prior and gain."
    )
    return finish_account(out, lines, summary)


def symmetric_actions(
    C: Any, G: Any, c: float, s: float, top: int
) -> tuple[list[dict[str, Any]], float]:
    """Per output size class of the symmetric channel C: posterior, best action of the
    normalised symmetric gain (g - c)/s and its expected value; returns (rows, V_g')."""
    k = int(C.k)
    sizes = np.asarray(C.sizes)
    p_in, p_out = np.exp(np.asarray(C.log_in)), np.exp(np.asarray(C.log_out))
    mass = p_in + p_out  # Pr[the output has size s], uniform prior
    t_all = np.asarray(G.sizes)
    gi = (np.asarray(G.g_in, dtype=float) - c) / s
    go = (np.asarray(G.g_out, dtype=float) - c) / s
    rows = []
    V = 0.0
    for i in range(sizes.size):
        if mass[i] <= 0:
            continue
        sz = int(sizes[i])
        u_in = p_in[i] / (sz * mass[i]) if sz > 0 else 0.0  # posterior of each x in S
        u_out = p_out[i] / ((k - sz) * mass[i]) if sz < k else 0.0  # of each x not in S
        # both extreme overlaps j of an action of size t with S (linear in j: one is best)
        lo = np.maximum(0, t_all - (k - sz))
        hi = np.minimum(sz, t_all)
        w_in = np.where(t_all > 0, gi, 0.0)
        w_out = np.where(t_all < k, go, 0.0)
        best = (-np.inf, 0, 0)
        for j in (lo, hi):
            v = (j * u_in + (t_all - j) * u_out) * w_in + (
                (sz - j) * u_in + (k - sz - t_all + j) * u_out
            ) * w_out
            b = int(np.argmax(v))
            if v[b] > best[0]:
                best = (float(v[b]), int(t_all[b]), int(j[b]))
        V += mass[i] * best[0]
        rows.append(
            {
                "size": sz,
                "probability": float(mass[i]),
                "posterior_in": float(u_in),
                "posterior_out": float(u_out),
                "action_size": int(best[1]),
                "action_overlap": int(best[2]),
                "expected_gain": float(best[0]),
            }
        )
    rows.sort(key=lambda r: -r["probability"])
    return rows[:top], float(V)


def explain_symmetric_gain(
    G: SymmetricGain, ce: Any, pair: tuple[Any, Any], names: tuple[str, str], top: int
) -> dict[str, Any]:
    """The account of a counterexample with the symmetric gain G (of ``ce``): the gain
    normalised to [0, 1], and per output size of each channel the best action.

    >>> import qifldp.symmetric as sym
    >>> A, B = sym.grr(10, 1.0), sym.grr(10, 2.0)
    >>> ce = sym.refines(A, B).counterexample
    >>> explain_symmetric_gain(ce.gain, ce, (A, B), ("A", "B"), 3)["kind"]
    'symmetric counterexample'
    """
    na, nb = names
    k = int(G.k)
    sizes = np.asarray(G.sizes)
    g_in = np.asarray(G.g_in, dtype=float)
    g_out = np.asarray(G.g_out, dtype=float)
    vals = np.concatenate([g_in[sizes >= 1], g_out[sizes < k]])
    c = float(vals.min())
    s = float(vals.max()) - c
    s = s if s > 0 else 1.0
    gap = float(ce.gap)
    out: dict[str, Any] = {
        "kind": "symmetric counterexample",
        "k": k,
        "sizes": sizes.tolist(),
        "g_in": g_in.tolist(),
        "g_out": g_out.tolist(),
        "gap": gap,
        "normalisation": {"shift": c, "scale": s, "shift_effect": c, "gap_normalised": gap / s},
    }
    lines = [f"{na} ⋢ {nb}: {nb} leaks more than {na} to the adversary below."]
    lines.append(f"  prior: the uniform prior on k = {k} inputs")
    lines.append(
        "  gain (symmetric): the adversary names a set T of t inputs and gets g_in[t] if the "
        "secret is in T, g_out[t] if not; normalised g' = (g − c)/s in [0, 1] with "
        f"c = {c:.6g}, s = {s:.6g}"
    )
    for i in range(min(sizes.size, top)):
        t = int(sizes[i])
        gin = f"{(g_in[i] - c) / s:.3g}" if t >= 1 else "-"
        gout = f"{(g_out[i] - c) / s:.3g}" if t < k else "-"
        lines.append(f"    t = {t}: g'_in = {gin}, g'_out = {gout}")
    lines.append(
        f"    the constant shift c changes V_g by c = {c:.6g} for both channels (gap unchanged); "
        f"scaling by 1/s: gap {gap:.6g} -> {gap / s:.6g}"
    )
    va, vb = float(ce.vulnerability_a), float(ce.vulnerability_b)
    if np.isfinite(va) and np.isfinite(vb):
        out["vulnerability_a"], out["vulnerability_b"] = va, vb
        lines.append(f"  V_g[υ▷{na}] = {va:.6g}, V_g[υ▷{nb}] = {vb:.6g}")
    A, B = pair
    symmetric_pair = hasattr(A, "log_in") and hasattr(B, "log_in")
    work = (
        max(np.asarray(A.sizes).size, np.asarray(B.sizes).size) * sizes.size
        if symmetric_pair
        else 0
    )
    if symmetric_pair and work > EXPLAIN_MAX_WORK:
        lines.append(
            f"  (the per-size analysis, {work:.3g} terms, exceeds EXPLAIN_MAX_WORK = "
            f"{EXPLAIN_MAX_WORK:g})"
        )
    elif symmetric_pair and int(A.k) == k == int(B.k):
        ra, van = symmetric_actions(A, G, c, s, top)
        rb, vbn = symmetric_actions(B, G, c, s, top)
        out["actions"] = {"A": ra, "B": rb}
        out["normalisation"]["vulnerability_a_normalised"] = van
        out["normalisation"]["vulnerability_b_normalised"] = vbn
        lines.append(f"  V_g'[υ▷{na}] = {van:.6g}, V_g'[υ▷{nb}] = {vbn:.6g}")
        for nm, rows in ((na, ra), (nb, rb)):
            lines.append(f"  under {nm}, by output size |S| (the {len(rows)} likeliest sizes):")
            for r in rows:
                lines.append(
                    f"    |S| = {r['size']}  Pr {r['probability']:.3g}  posterior "
                    f"{r['posterior_in']:.3g} on each x in S, {r['posterior_out']:.3g} on each "
                    f"x not in S  best: a set of {r['action_size']} sharing "
                    f"{r['action_overlap']} with S, E[g'] = {r['expected_gain']:.3g}"
                )
    else:
        lines.append(
            "  (pass the symmetric channels to explain() for the best action per output size)"
        )
    if (
        sizes.size == 1
        and int(sizes[0]) >= 1
        and np.isclose((g_in[0] - c) / s, 1.0)
        and np.isclose((g_out[0] - c) / s, 0.0)
    ):
        goal = f"to name a set of {int(sizes[0])} inputs containing the secret"
        if int(sizes[0]) == 1:
            goal = "to guess the secret in one try"
    else:
        shown = ", ".join(map(str, sizes.tolist()[:top])) + (", ..." if sizes.size > top else "")
        goal = (
            "to name a set T of inputs, scored by whether it contains the secret "
            f"(|T| in {{{shown}}})"
        )
    out["goal"] = goal
    more, on_g = f"{gap / s:.3g}", f"{gap:.3g}"
    if ce.gap_exact is not None and ce.gain_exact is not None:  # an exact certificate: its
        # gap may be below the smallest float (grr(200, 12) vs THE: 1.2e-327)
        more = scientific(Fraction(ce.gap_exact) / Fraction(s), 3)
        on_g = scientific(ce.gap_exact, 3)
    summary = (
        f"An adversary who wants {goal} gains {more} more (gain scaled to [0, 1]; "
        f"{on_g} on the certificate's gain) from {nb} than from {na} under the uniform prior."
    )
    return finish_account(out, lines, summary)
