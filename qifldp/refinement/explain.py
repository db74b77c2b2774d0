"""Explanations of refinement certificates: what a witness merges, what a counterexample's
adversary does, in words and as JSON-ready numbers.

Reads any refinement result by its fields (the explicit, symmetric, symbolic and
protocol routes alike); recomputes every number it shows from the certificate and
the channels.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import singledispatch
from typing import Any

import numpy as np

from ..channel import Channel, as_channel
from ..errors import InputTypeError, ParameterError
from ..validation import check_int
from .witness import FactoredWitness

__all__ = [
    "explain_refinement",
    "explanation_data",
    "explain_witness",
    "explain_gain",
    "finish_account",
    "EXPLAIN_SUPPORT_ATOL",
    "EXPLAIN_MAX_WORK",
]

#: A witness entry counts as part of the sparsity pattern when it exceeds this.
EXPLAIN_SUPPORT_ATOL: float = 1e-9
#: Per-output adversary analysis only when n_actions * n_inputs * n_outputs is below this
#: (per channel); beyond it the account gives the stored vulnerabilities and gap only.
EXPLAIN_MAX_WORK: float = 5e7


def _label(v: Any, width: int = 24) -> str:
    """A short text form of an input/output label (bit tuples as bit strings)."""
    if isinstance(v, tuple) and v and all(isinstance(b, (int, np.integer)) for b in v):
        if all(b in (0, 1) for b in v):
            text = "".join(str(int(b)) for b in v)
        else:
            text = "(" + ",".join(str(int(b)) for b in v) + ")"
    else:
        text = str(v)
    return text if len(text) <= width else text[: width - 3] + "..."


def _matrix_labels(C: Any, name: str) -> tuple[np.ndarray, tuple, tuple]:
    """(float matrix, input labels, output labels) of an explicit or symbolic channel."""

    if not isinstance(C, Channel) and hasattr(C, "free_symbols") and hasattr(C, "matrix"):
        if C.free_symbols:
            msg = f"{name} has free parameters: substitute numbers before explaining"
            raise ParameterError(msg)
        M = np.array([[float(v) for v in row] for row in C.matrix.tolist()], dtype=float)
        return M, tuple(C.inputs), tuple(C.outputs)
    Cc = as_channel(C, name)
    return np.asarray(Cc.matrix, dtype=float), tuple(Cc.inputs), tuple(Cc.outputs)


def _prior_text(prior: np.ndarray, inputs: tuple, top: int) -> str:
    if prior.size and np.allclose(prior, prior[0], rtol=1e-12, atol=0):
        return f"the uniform prior on {prior.size} inputs"
    order = np.argsort(-prior, kind="stable")[:top]
    parts = ", ".join(f"{_label(inputs[i])}: {prior[i]:.3g}" for i in order)
    more = "" if prior.size <= top else f", ... ({prior.size} inputs)"
    return f"the prior π = ({parts}{more})"


def _top_entries(vec: np.ndarray, labels: tuple, top: int) -> list[list[Any]]:
    order = np.argsort(-vec, kind="stable")[: min(top, 3)]
    return [[_label(labels[i]), float(vec[i])] for i in order if vec[i] > 0]


def _goal(gn: np.ndarray, inputs: tuple, top: int) -> str:
    """What an adversary with the normalised gain ``gn`` (actions x inputs) wants, in words."""
    r = np.round(gn, 9)
    binary = bool(np.all((r == 0) | (r == 1)))
    n_act, n_in = r.shape
    if n_act == 1:
        return "to raise the expected value of one linear test of the secret"
    if binary and np.all(r.sum(axis=0) == 1):
        if n_act == n_in and np.all(r.sum(axis=1) == 1):
            return "to guess the secret in one try"
        groups = [[inputs[x] for x in np.flatnonzero(r[w])] for w in range(n_act)]
        shown = "; ".join("{" + ", ".join(_label(v) for v in g) + "}" for g in groups[:top])
        return f"to guess which group the secret is in ({shown}{'; ...' if n_act > top else ''})"
    best = [np.flatnonzero(r[w] == r.max(axis=0)) for w in range(n_act)]
    useful = [w for w in range(n_act) if best[w].size]  # an action best for no input: unshown
    shown = "; ".join(
        f"a{w} best for x = "
        + ", ".join(_label(inputs[x]) for x in best[w][:4])
        + (", ..." if best[w].size > 4 else "")
        for w in useful[:top]
    )
    more = "; ..." if len(useful) > top else ""
    if binary:
        return f"to name a set of secrets containing the true one, among {n_act} ({shown}{more})"
    return f"to pick the best of {n_act} weighted guesses ({shown}{more}; gains in [0, 1])"


def _per_output(
    M: np.ndarray, gn: np.ndarray, prior: np.ndarray, inputs: tuple, outputs: tuple, top: int
) -> tuple[list[dict[str, Any]], int, float]:
    """The best action per output of M under the normalised gain, for the ``top`` likeliest
    outputs; returns (rows, number of distinct best actions, V_gn[π▷M])."""
    J = prior[:, None] * M  # joint Pr(x, y)
    E = gn @ J  # E[w, y] = sum_x gn[w, x] π_x M[x, y]
    best = np.argmax(E, axis=0)
    py = J.sum(axis=0)
    V = float(E[best, np.arange(E.shape[1])].sum())
    rows = []
    for y in np.argsort(-py, kind="stable")[:top]:
        if py[y] <= 0:
            continue
        post = J[:, y] / py[y]
        rows.append(
            {
                "output": _label(outputs[y]),
                "probability": float(py[y]),
                "action": int(best[y]),
                "posterior": _top_entries(post, inputs, top),
                "expected_gain": float(E[best[y], y] / py[y]),
            }
        )
    used = int(np.unique(best[py > 0]).size)
    return rows, used, V


def _normalise(gain: np.ndarray, prior: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(gn, c, s, shift): gn = (gain − c_x)/s in [0, 1] with c_x = min_w gain[w, x] and
    s the largest shifted entry; shift = Σ_x π_x c_x, the change of V_g it causes."""
    c = gain.min(axis=0)
    shifted = gain - c[None, :]
    s = float(shifted.max())
    s = s if s > 0 else 1.0
    return shifted / s, c, s, float(prior @ c)


def _channel_pair(result: Any, A: Any, B: Any) -> tuple[Any, Any]:
    if A is None and B is None:
        pair = getattr(result, "channels", None)
        if pair is not None:
            return pair
        return None, None
    if A is None or B is None:
        msg = "explain takes both channels A and B, or neither"
        raise InputTypeError(msg)
    return A, B


def _explain_average(
    ce: Any, pair: tuple[Any, Any], names: tuple[str, str], top: int, exact_gap: Any
) -> dict[str, Any]:

    na, nb = names
    gain = np.asarray(ce.gain, dtype=float)
    prior = np.asarray(ce.prior, dtype=float)
    gn, c, s, shift = _normalise(gain, prior)
    out: dict[str, Any] = {
        "kind": "counterexample",
        "prior": prior.tolist(),
        "gap": float(ce.gap),
        "gain_shape": list(gain.shape),
        "normalisation": {
            "shift": c.tolist(),
            "scale": s,
            "shift_effect": shift,
            "gap_normalised": float(ce.gap) / s,
        },
    }
    if exact_gap is not None:
        out["gap_exact"] = str(exact_gap)
    A, B = pair
    inputs: tuple = tuple(range(gain.shape[1]))
    lines = [f"{na} ⋢ {nb}: {nb} leaks more than {na} to the adversary below."]
    if A is not None:
        MA, inputs, outA = _matrix_labels(A, "A")
        MB, _, outB = _matrix_labels(B, "B")
        if MA.shape[0] != gain.shape[1] or MB.shape[0] != gain.shape[1]:
            msg = (
                f"A and B must have {gain.shape[1]} inputs, as the counterexample's gain; "
                f"got {MA.shape[0]} and {MB.shape[0]}"
            )
            raise ParameterError(msg)
    lines.append(f"  prior: {_prior_text(prior, inputs, top)}")
    goal = _goal(gn, inputs, top)
    lines.append(
        f"  gain: {gain.shape[0]} actions x {gain.shape[1]} inputs, normalised to g' = (g − c_x)/s "
        f"in [0, 1] with c_x = min_w g[w, x] and s = {s:.6g}"
    )
    lines.append(
        f"    shifting by c_x changes V_g by Σ_x π_x c_x = {shift:.6g} for both channels (the gap "
        f"is unchanged); scaling by 1/s divides it: gap {float(ce.gap):.6g} -> "
        f"{float(ce.gap) / s:.6g}"
    )
    work = max(
        (gain.shape[0] * gain.shape[1] * M.shape[1] for M in ((MA, MB) if A is not None else ())),
        default=0,
    )
    if A is not None and work <= EXPLAIN_MAX_WORK:
        ra, ua, va_n = _per_output(MA, gn, prior, inputs, outA, top)
        rb, ub, vb_n = _per_output(MB, gn, prior, inputs, outB, top)
        out["vulnerability_a"] = va_n * s + shift
        out["vulnerability_b"] = vb_n * s + shift
        out["normalisation"]["vulnerability_a_normalised"] = va_n
        out["normalisation"]["vulnerability_b_normalised"] = vb_n
        out["actions"] = {"A": ra, "B": rb}
        out["distinct_actions"] = {"A": ua, "B": ub}
        out["n_outputs"] = {"A": int(MA.shape[1]), "B": int(MB.shape[1])}
        lines.append(
            f"  V_g'[π▷{na}] = {va_n:.6g}, V_g'[π▷{nb}] = {vb_n:.6g} "
            f"(V_g: {out['vulnerability_a']:.6g} and {out['vulnerability_b']:.6g})"
        )
        for nm, rows, used, M in ((na, ra, ua, MA), (nb, rb, ub, MB)):
            lines.append(
                f"  under {nm} ({M.shape[1]} outputs, {used} distinct best actions); "
                f"the {len(rows)} likeliest outputs:"
            )
            for row in rows:
                post = ", ".join(f"{lab}: {p:.3g}" for lab, p in row["posterior"])
                lines.append(
                    f"    y = {row['output']}  Pr {row['probability']:.3g}  posterior ({post}"
                    f"{', ...' if len(inputs) > len(row['posterior']) else ''})  "
                    f"best a{row['action']}, E[g'] = {row['expected_gain']:.3g}"
                )
    else:
        va, vb = float(ce.vulnerability_a), float(ce.vulnerability_b)
        if np.isfinite(va) and np.isfinite(vb):
            out["vulnerability_a"], out["vulnerability_b"] = va, vb
            lines.append(
                f"  V_g[π▷{na}] = {va:.6g}, V_g[π▷{nb}] = {vb:.6g} (V_g': {(va - shift) / s:.6g} "
                f"and {(vb - shift) / s:.6g})"
            )
        why = (
            "pass the explicit channels to explain() for the adversary's action per output"
            if A is None
            else f"the per-output analysis exceeds EXPLAIN_MAX_WORK = {EXPLAIN_MAX_WORK:g}"
        )
        lines.append(f"  ({why})")
    pri = _prior_text(prior, inputs, top)
    summary = (
        f"an adversary who wants {goal} gains {float(ce.gap) / s:.3g} more (gain scaled to [0, 1]; "
        f"{float(ce.gap):.3g} on the certificate's gain) from {nb} than from {na} under {pri}"
    )
    out["goal"] = goal
    return finish_account(out, lines, summary[0].upper() + summary[1:] + ".")


def _explain_max_case(ce: Any, pair: tuple[Any, Any], names: tuple[str, str], top: int) -> dict:
    na, nb = names
    g = np.asarray(ce.gain, dtype=float).reshape(-1)
    prior = np.asarray(ce.prior, dtype=float)
    out: dict[str, Any] = {"kind": "max-case counterexample", "gap": float(ce.gap)}
    out["gain"] = g.tolist()
    lines = [f"{na} ⋢max {nb}: a posterior of {nb} lies outside the convex hull of {na}'s."]
    A, B = pair
    inputs: tuple = tuple(range(g.size))
    if A is not None:
        best: dict[str, dict[str, Any]] = {}
        for key, C in (("A", A), ("B", B)):
            M, inputs, outs = _matrix_labels(C, key)
            J = prior[:, None] * M
            py = J.sum(axis=0)
            keep = np.flatnonzero(py > 0)
            vals = (g @ J[:, keep]) / py[keep]
            i = int(np.argmax(vals))
            y = int(keep[i])
            best[key] = {
                "output": _label(outs[y]),
                "value": float(vals[i]),
                "posterior": _top_entries(J[:, y] / py[y], inputs, top),
            }
        out["best"] = best
        out["gap_recomputed"] = best["B"]["value"] - best["A"]["value"]
        for key, nm in (("A", na), ("B", nb)):
            b = best[key]
            post = ", ".join(f"{lab}: {p:.3g}" for lab, p in b["posterior"])
            lines.append(
                f"  {nm}'s best output y = {b['output']}: posterior ({post}), "
                f"E[g] = {b['value']:.6g}"
            )
    shown = ", ".join(f"{_label(inputs[x])}: {g[x]:.3g}" for x in np.argsort(-np.abs(g))[:top])
    lines.append(f"  linear test g over the inputs (largest |g|: {shown})")
    summary = (
        f"The test g reaches {float(ce.gap):.3g} higher on a posterior of {nb} than on any "
        f"posterior of {na}, so {nb} has an output no mixture of {na}'s outputs explains."
    )
    return finish_account(out, lines, summary)


def finish_account(out: dict[str, Any], lines: list[str], summary: str) -> dict[str, Any]:
    """Close an account: its one-sentence summary, appended to the lines, and the text."""
    out["summary"] = summary
    lines.append(f"  In short: {summary}")
    out["text"] = "\n".join(lines)
    return out


def _explain_witness(
    W: np.ndarray,
    pair: tuple[Any, Any],
    names: tuple[str, str],
    top: int,
    average: bool,
    exact: bool,
) -> dict[str, Any]:
    na, nb = names
    A, B = pair
    outA: tuple = tuple(range(W.shape[0]))
    outB: tuple = tuple(range(W.shape[1]))
    if A is not None:
        _, _, outA = _matrix_labels(A, "A")
        _, _, outB = _matrix_labels(B, "B")
        if (len(outA), len(outB)) != W.shape:
            msg = f"A and B must have {W.shape[0]} and {W.shape[1]} outputs, as the witness"
            raise ParameterError(msg)
    S = W > EXPLAIN_SUPPORT_ATOL
    nnz = int(S.sum())
    per_row = S.sum(axis=1)
    per_col = S.sum(axis=0)
    det_rows = int(np.sum((per_row == 1) & (np.abs(W.max(axis=1) - 1) <= 1e-9)))
    deterministic = det_rows == W.shape[0]
    permutation = deterministic and W.shape[0] == W.shape[1] and bool(np.all(per_col == 1))
    merges: list[dict[str, Any]] = []
    for j in np.argsort(-per_col, kind="stable"):
        if per_col[j] < 2 or len(merges) >= top:
            break
        src = np.flatnonzero(S[:, j])
        src = src[np.argsort(-W[src, j], kind="stable")]
        merges.append(
            {
                "output_b": _label(outB[j]),
                "from_a": [[_label(outA[i]), float(W[i, j])] for i in src[:top]],
                "n_sources": int(src.size),
            }
        )
    out: dict[str, Any] = {
        "kind": "witness",
        "shape": list(W.shape),
        "nonzeros": nnz,
        "density": nnz / W.size if W.size else 0.0,
        "deterministic_rows": det_rows,
        "deterministic": deterministic,
        "permutation": permutation,
        "merged_outputs_b": int(np.sum(per_col >= 2)),
        "split_outputs_a": int(np.sum(per_row >= 2)),
        "unused_outputs_b": int(np.sum(per_col == 0)),
        "merges": merges,
        "exact": exact,
    }
    sym = "⊑" if average else "⊑max"
    what = "row-stochastic W" if average else "nonnegative R"
    letter = "W" if average else "R"
    lines = [
        f"{na} {sym} {nb}: {nb} = {na}·{letter} for the {what} below"
        + (" (exact rationals)" if exact else "")
        + "."
    ]
    lines.append(
        f"  sparsity: {nnz} of {W.size} entries > {EXPLAIN_SUPPORT_ATOL:g} "
        f"({100 * out['density']:.3g}%); {det_rows} of {W.shape[0]} rows deterministic"
    )
    lines.append(
        f"  {out['merged_outputs_b']} outputs of {nb} merge two or more outputs of {na}; "
        f"{out['split_outputs_a']} outputs of {na} are split (randomised); "
        f"{out['unused_outputs_b']} outputs of {nb} receive nothing"
    )
    for m in merges:
        text = ", ".join(f"{lab} ({w:.3g})" for lab, w in m["from_a"])
        more = f", ... ({m['n_sources']} in all)" if m["n_sources"] > len(m["from_a"]) else ""
        lines.append(f"    {nb}'s y = {m['output_b']} <- {na}'s {text}{more}")
    if permutation:
        summary = (
            f"{nb} is {na} with its outputs relabelled (W is a permutation): they leak the same."
        )
    elif deterministic:
        summary = (
            f"{nb} is a deterministic post-processing of {na}: W maps each of {na}'s "
            f"{W.shape[0]} outputs to one of {nb}'s, merging {int(np.sum(per_col >= 2))} groups; "
            f"so {nb} leaks no more than {na} for every prior and gain."
        )
    else:
        summary = (
            f"{nb} is {na} followed by a randomised post-processing W ({nnz} nonzero entries, "
            f"{int(np.sum(per_row >= 2))} outputs of {na} split): "
            f"{nb} leaks no more than {na} for every prior and gain."
        )
    if not average:
        summary = (
            f"Every posterior of {nb} is a mixture of {na}'s (R >= 0, {nnz} nonzero entries): "
            f"{nb} leaks no more than {na} in the max case."
        )
    return finish_account(out, lines, summary)


@singledispatch
def explain_witness(W: Any, names: tuple[str, str], top: int) -> dict[str, Any] | None:
    """The account of a witness stored in another form than a matrix (None: a matrix).

    Other kinds register theirs (the orbit witness of :mod:`qifldp.symmetric`).

    >>> explain_witness([[1.0]], ("A", "B"), 6) is None
    True
    """
    return None


@explain_witness.register
def _explain_factored(W: FactoredWitness, names: tuple[str, str], top: int) -> dict[str, Any]:
    """A factored witness explained on the reduced channels (groups of equal columns)."""
    out = _explain_witness(W.reduced, (None, None), names, top, W.rowsum, False)
    pa, pb = W.shape
    note = (
        f"  (W is {pa} x {pb}, held factored: outputs are numbered by their group of equal "
        f"columns, {W.reduced.shape[0]} groups of {names[0]}'s outputs and "
        f"{W.reduced.shape[1]} of {names[1]}'s)"
    )
    out["shape"] = [pa, pb]
    out["factored"] = True
    lines = out["text"].split("\n")
    out["text"] = "\n".join([*lines[:-1], note, lines[-1]])
    return out


@singledispatch
def explain_gain(
    gain: Any, ce: Any, pair: tuple[Any, Any], names: tuple[str, str], top: int
) -> dict[str, Any] | None:
    """The account of a counterexample whose gain is not a matrix (None: a matrix).

    Other kinds register theirs (the symmetric gain of :mod:`qifldp.symmetric`).

    >>> explain_gain([[1.0]], None, (None, None), ("A", "B"), 6) is None
    True
    """
    return None


def explanation_data(
    result: Any,
    A: Any = None,
    B: Any = None,
    *,
    names: tuple[str, str] = ("A", "B"),
    top: int = 6,
) -> dict[str, Any]:
    """The account of a refinement certificate, as a JSON-ready dict.

    Parameters
    ----------
    result : RefinementResult or qifldp.symbolic.ExactRefinement
        A verdict of :func:`qifldp.refines`, :func:`qifldp.max_case_refines`
        or :func:`qifldp.symbolic.refines`.
    A, B : Channel or SymbolicChannel, optional
        The pair, when ``result`` does not carry it (see
        :meth:`RefinementResult.explain`).
    names : (str, str)
        How to call A and B in the text.
    top : int
        How many outputs, actions or merges to show.

    Returns
    -------
    dict
        ``kind`` ("counterexample", "max-case counterexample", "witness",
        "orbit witness", "symmetric counterexample"), ``summary`` (one sentence),
        ``text`` (the full account) and the numbers shown: for a counterexample
        ``gap``, ``prior``, ``normalisation`` (``shift`` c_x, ``scale`` s,
        ``shift_effect`` Σ π_x c_x, ``gap_normalised`` = gap/s, and the
        normalised vulnerabilities), ``vulnerability_a``/``_b``, ``actions``
        (per channel, the likeliest outputs with their best action, posterior
        and expected normalised gain); for a witness ``shape``, ``nonzeros``,
        ``density``, ``deterministic_rows``, ``merges`` (outputs of B fed by two
        or more outputs of A, with the weights).

    Raises
    ------
    InputTypeError
        ``result`` is not a refinement result; ``names`` not two strings; only
        one of A and B given.
    ParameterError
        ``top`` < 1; channels that do not match the certificate.

    Examples
    --------
    >>> import qifldp as q
    >>> d = explanation_data(q.refines(q.grr(3, 2.0), q.grr(3, 1.0)))
    >>> d["kind"], d["shape"], d["nonzeros"]
    ('witness', [3, 3], 9)
    """

    if not (hasattr(result, "holds") and hasattr(result, "witness")):
        msg = f"result must be a refinement result, got {type(result).__name__}"
        raise InputTypeError(msg)
    if (
        not isinstance(names, (tuple, list))
        or len(names) != 2
        or not all(isinstance(n, str) for n in names)
    ):
        msg = f"names must be two strings (what to call A and B), got {names!r}"
        raise InputTypeError(msg)
    top = check_int("top", top, minimum=1)
    pair = _channel_pair(result, A, B)
    names = (str(names[0]), str(names[1]))
    average = getattr(result, "relation", "refinement") == "refinement"
    if result.holds is None:  # undecided (strict=False)
        why = getattr(result, "certified_by", "")
        return {
            "kind": "undecided",
            "summary": f"{names[0]} ⊑ {names[1]} is undecided ({why}).",
            "text": f"{names[0]} ⊑ {names[1]}: undecided, no certificate either way.\n  {why}",
        }
    if result.holds:
        W = result.witness
        if W is None:
            return {
                "kind": "verdict",
                "summary": f"{names[0]} ⊑ {names[1]} holds (no witness stored: "
                f"{getattr(result, 'certified_by', '')}).",
                "text": f"{names[0]} ⊑ {names[1]}: holds; no witness stored.",
            }
        special = explain_witness(W, names, top)
        if special is not None:
            return special
        exact = isinstance(W, list)
        Wf = np.array([[float(v) for v in row] for row in W], dtype=float) if exact else W
        return _explain_witness(np.asarray(Wf, dtype=float), pair, names, top, average, exact)
    ce = result.counterexample
    if ce is None:
        return {
            "kind": "verdict",
            "summary": f"{names[0]} ⋢ {names[1]} (no counterexample stored).",
            "text": f"{names[0]} ⋢ {names[1]}: fails; no counterexample stored.",
        }
    special = explain_gain(ce.gain, ce, pair, names, top)
    if special is not None:
        return special
    if not average or getattr(ce, "kind", "average") != "average":
        return _explain_max_case(ce, pair, names, top)
    exact_gap = getattr(ce, "gap_exact", None)
    if isinstance(ce.gap, Fraction):  # symbolic.ExactRefinement: exact gain, prior and gap
        exact_gap = ce.gap

        @dataclass(frozen=True)
        class _Float:
            gain: Any
            prior: Any
            gap: float
            vulnerability_a: float = float("nan")
            vulnerability_b: float = float("nan")

        ce = _Float(
            np.array([[float(v) for v in row] for row in ce.gain]),
            np.array([float(v) for v in ce.prior]),
            float(ce.gap),
        )
    return _explain_average(ce, pair, names, top, exact_gap)


def explain_refinement(result: Any, A: Any = None, B: Any = None, **options: Any) -> str:
    """A human-readable account of a refinement certificate (any kind of result).

    :meth:`RefinementResult.explain` for the results of :func:`qifldp.refines`;
    this function also takes the exact results of :func:`qifldp.symbolic.refines`
    (pass the symbolic channels for the per-output adversary). Arguments as in
    :func:`explanation_data`.

    Returns
    -------
    str

    Examples
    --------
    >>> import qifldp as q, qifldp.symbolic as s
    >>> import sympy as sp
    >>> A, B = s.grr(3, sp.log(2)), s.grr(3, sp.log(4))
    >>> print(explain_refinement(s.refines(B, A), B, A).splitlines()[0])
    A ⊑ B: B = A·W for the row-stochastic W below (exact rationals).
    """
    return str(explanation_data(result, A, B, **options)["text"])
