"""The prepared problem of the refinement driver, and the one re-check of every certificate.

:class:`Problem` holds the channels as given and row-normalised, their column
reductions, the prior and the options, and what the pipeline learns on the way;
:func:`verify` re-checks a witness or a gain on the channels as given, and
:func:`holds_result` / :func:`fails_result` make the verdicts from them."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import now
from ..errors import VerificationError
from ..measures import g_vulnerability
from . import exact as ex
from ._certify import (
    UNIT_ROUNDOFF,
    band_certificate,
    band_excess,
    clean_witness,
    float_gap,
    float_max_case_gap,
    gain_from_weighted,
    witness_errors,
)
from ._prep import Reduced, expand_witness
from .exact_gap import state_gap_exactly
from .result import (
    TOLERANCES,
    WITNESS_ENTRY_ATOL,
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    Counterexample,
    RefinementResult,
)
from .witness import row_sums

__all__ = [
    "Options",
    "Problem",
    "Checked",
    "relation_name",
    "verify",
    "make_result",
    "holds_result",
    "RationalChannels",
    "rational_channels",
    "EXACT_GAP_MAX_PRODUCTS",
    "witness_in_band",
    "band_miss",
    "BAND_POLISH_MAX_ENTRIES",
    "fails_result",
    "gain_candidates",
    "certify_gain_float",
    "order_rows_for_max_case",
    "prune_actions",
]


@dataclass
class Options:
    """Knobs of the decision procedure (documented in :func:`qifldp.refines`)."""

    method: str = "auto"
    exact: bool | None = None
    max_iter: int = 200
    time_limit: float = 120.0
    tol: float = 1e-13
    #: qifldp.deadline.now() reading by which the decision must end (set by decide)
    deadline: float | None = None

    def left(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - now()


@dataclass
class Problem:
    """The prepared problem, shared by every strategy of the pipeline.

    The channels as given and row-normalised, their column reductions, the
    prior and the options; what the strategies learn on the way (engines tried,
    solver failures, candidate certificates as hints for exact arithmetic, the
    trace); and the exact (rational) problem, built once on first use.
    """

    A: np.ndarray  # as given
    B: np.ndarray
    An: np.ndarray  # rows normalised (original columns)
    Bn: np.ndarray
    ra: Reduced
    rb: Reduced
    prior: np.ndarray
    rowsum: bool
    details: dict[str, Any] = field(default_factory=dict)
    opts: Options = field(default_factory=Options)
    t0: float = 0.0
    labels: tuple | None = None
    #: (strategy, outcome) per strategy run or skipped, in order (RefinementResult.trace)
    trace: list[tuple[str, str]] = field(default_factory=list)
    #: engines run, their failures, the last reason a float certificate failed, hints (W, H)
    tried: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    reason: str = ""
    hints: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    #: witnesses on the original columns that met the rounding band (e.g. the orbit route's),
    #: offered again when rational arithmetic refutes the stored floats ("up to rounding")
    band_witnesses: list[np.ndarray] = field(default_factory=list)
    #: the complete float witness (reduced channels) of each engine run, by solver
    #: ("highs", "nnls"), and those the rounding band already refused: the exact route's
    #: search for a rounding-band witness reuses them instead of solving again
    engine_witnesses: dict[str, np.ndarray] = field(default_factory=dict)
    band_refused: list[np.ndarray] = field(default_factory=list)
    #: max case: each engine's rows of H that separate their own column of B (y_j · b_j > 0),
    #: best first; offered to rational arithmetic before the last engine's other rows
    separating: list[np.ndarray] = field(default_factory=list)
    #: (H, its float certificate) when an engine's callback has just certified H: the
    #: driver's certification of the same H reuses it instead of recomputing the gap
    float_certified: tuple[np.ndarray, tuple[np.ndarray, float, float]] | None = None
    #: the rational problem, built once on first use (``_exact_route.exact_problem``)
    exact_cache: Any = None
    #: the channels as rationals on their distinct columns (:func:`rational_channels`)
    rational_cache: Any = None

    @property
    def Ar(self) -> np.ndarray:
        return self.ra.matrix

    @property
    def Br(self) -> np.ndarray:
        return self.rb.matrix


@dataclass
class RationalChannels:
    """The stored floats of A and B as exact rationals, each row divided by its exact sum,
    on their distinct columns: ``Aq[x][u]`` is the mass of the ``a_counts[u]`` identical
    columns of A whose distinct column is u (``a_distinct[z]`` for column z); the same for B."""

    Aq: list[list[Fraction]]
    Bq: list[list[Fraction]]
    a_distinct: np.ndarray
    b_distinct: np.ndarray
    a_counts: np.ndarray
    b_counts: np.ndarray


def rational_channels(P: Problem) -> RationalChannels:
    """The channels of P as rationals on their distinct columns, built once, within the time
    limit (:class:`qifldp.refinement.exact.ExactTooLarge` once it is spent).

    Every gap of a gain is the same on the distinct columns with their masses merged as
    on all the columns: V_g adds over outputs a term positively homogeneous in the
    column, and the max-case posterior of a column does not depend on its scale.
    """
    if P.rational_cache is None:
        ua, ia, ca = ex.distinct_columns(P.A)
        ub, ib, cb = ex.distinct_columns(P.B)
        Aq = ex.rational_rows(ua, P.opts.deadline, counts=ca)
        Bq = ex.rational_rows(ub, P.opts.deadline, counts=cb)
        P.rational_cache = RationalChannels(Aq, Bq, ia, ib, ca, cb)
    cached: RationalChannels = P.rational_cache
    return cached


#: The exact gap of such a counterexample is computed when (entries of the distinct columns
#: of A and B) x (actions of the gain) is at most this many rational products; beyond it,
#: or when the time limit runs out, the float gap is reported and the result says so.
EXACT_GAP_MAX_PRODUCTS: int = 2 * 10**6


def _small_gap_exact(P: Problem, gain: np.ndarray) -> tuple[Fraction | None, str]:
    """The exact gap of ``gain`` on the stored floats, or None and why it was not computed."""
    if P.rational_cache is None:
        ua, ub = ex.distinct_columns(P.A)[2].size, ex.distinct_columns(P.B)[2].size
    else:
        ua, ub = P.rational_cache.a_counts.size, P.rational_cache.b_counts.size
    products = P.A.shape[0] * (ua + ub) * gain.shape[0]
    if products > EXACT_GAP_MAX_PRODUCTS:
        return None, f"{products} rational products, beyond EXACT_GAP_MAX_PRODUCTS"
    try:
        rc = rational_channels(P)
    except ex.ExactTooLarge as exc:
        return None, str(exc)
    gap_of = ex.exact_gap if P.rowsum else ex.exact_max_case_gap
    return gap_of(rc.Aq, rc.Bq, gain, P.prior), ""


# -- verification and results ---------------------------------------------------------


def relation_name(rowsum: bool) -> str:
    return "refinement" if rowsum else "max-case refinement"


@dataclass
class Checked:
    """What :func:`verify` recomputed on the channels as given."""

    residual: float | None = None
    row_sum_error: float | None = None
    min_entry: float | None = None
    #: a gain's counterexample (gap recomputed, a small gap stated exactly) and the text
    #: :func:`qifldp.refinement.exact_gap.state_gap_exactly` gave it
    counterexample: Counterexample | None = None
    note: str = ""


def verify(
    P: Problem,
    *,
    witness: np.ndarray | None = None,
    gain: np.ndarray | None = None,
    gap_exact: Fraction | None = None,
    what: str = "",
) -> Checked:
    """The one re-check of every certificate, on the channels as given.

    A witness must meet the tolerances of :mod:`qifldp.refinement.result`
    (entries >= −WITNESS_ENTRY_ATOL, |A·W − B| <= WITNESS_RESIDUAL_ATOL, rows
    within WITNESS_ROW_SUM_ATOL in the average case). A gain's gap V_g[π▷B] −
    V_g[π▷A] (max case: of the posterior max-case vulnerabilities) is recomputed
    in floating point and must be positive, or, when the two vulnerabilities
    agree to every float digit, its exact gap must be. A gap below
    ``EXACT_GAP_RELATIVE`` of the vulnerabilities is reported exactly (its rational
    value, computed here unless given, rounded once:
    :func:`qifldp.refinement.exact_gap.state_gap_exactly`). Raises VerificationError.
    """
    if witness is not None:
        resid, rs, mn = witness_errors(P.A, P.B, witness, P.rowsum)
        if not (
            mn >= -WITNESS_ENTRY_ATOL
            and resid <= WITNESS_RESIDUAL_ATOL
            and (rs is None or rs <= WITNESS_ROW_SUM_ATOL)
        ):
            name = what or f"the {relation_name(P.rowsum)} witness"
            msg = (
                f"{name} failed its re-check (max|A·W − B| = {resid:.3g}, min entry {mn:.3g}, "
                f"row-sum error {rs}); tolerances {TOLERANCES}"
            )
            raise VerificationError(msg)
        return Checked(residual=resid, row_sum_error=rs, min_entry=mn)
    assert gain is not None
    if P.rowsum:
        va = g_vulnerability(P.A, gain, P.prior)
        vb = g_vulnerability(P.B, gain, P.prior)
        gap = vb - va
        scale = float(P.prior @ np.abs(gain).max(axis=0))  # |V_g| is at most this
    else:
        gap, _ = float_max_case_gap(P.A, P.B, gain, P.prior)
        va = vb = float("nan")
        scale = float(np.abs(gain).max())  # posterior expected gains are at most this
    ce = Counterexample(
        gain=gain,
        prior=P.prior.copy(),
        gap=float(gap),
        gap_exact=gap_exact,
        kind="average" if P.rowsum else "max-case",
        vulnerability_a=float(va),
        vulnerability_b=float(vb),
    )
    # a gap this small is mostly rounding in floats: stated by its exact gap
    ce, note = state_gap_exactly(ce, scale, lambda: _small_gap_exact(P, gain))
    return Checked(counterexample=ce, note=note)


def make_result(P: Problem, holds: bool, **fields: Any) -> RefinementResult:
    """A RefinementResult of this problem (relation, time, details filled in)."""
    return RefinementResult(
        holds=holds,
        relation=relation_name(P.rowsum),
        time=time.perf_counter() - P.t0,
        details=P.details,
        **fields,
    )


#: A witness that misses its band once expanded to the original columns is polished there
#: (:func:`band_certificate` on the channels as given) when it has at most this many entries.
BAND_POLISH_MAX_ENTRIES: int = 2 * 10**6


def band_miss(P: Problem, W: Any, inputs_too: bool) -> tuple[str | None, float]:
    """Why W (original columns) is not within its band on the channels as given (None: it is),
    and its max residual."""
    excess, resid = band_excess(P.An, P.Bn, W, inputs_too)
    if not excess <= 0:
        which = "the band of the inputs' own rounding" if inputs_too else "the rounding band"
        return (
            f"the witness expanded to the {P.B.shape[1]} original columns of B misses "
            f"{which} by up to {excess:.3g} (max residual {resid:.3g})"
        ), resid
    if P.rowsum:
        row_err = float(np.abs(row_sums(W) - 1.0).max())
        if not row_err <= 8.0 * (P.Bn.shape[1] + 2) * UNIT_ROUNDOFF:
            return f"rows of the expanded witness miss 1 by up to {row_err:.3g}", resid
    return None, resid


def witness_in_band(
    P: Problem, W: Any, inputs_too: bool = False, expanded: bool = False, clean: bool = False
) -> tuple[Any, str, float]:
    """A witness on the original columns within its band on the channels as given, or why not.

    W (on the reduced columns unless ``expanded``) is mapped back to the original
    columns (:func:`expand_witness`) and its band re-checked on the row-normalised
    channels as given: a band met by the merged columns need not survive the split of
    a merged column over its members (the merge is within ``REDUCE_RTOL``, and the
    reduced band leaves no room for it). A witness that misses is polished on the
    original columns (:func:`band_certificate`, up to ``BAND_POLISH_MAX_ENTRIES``
    entries). ``clean`` as :func:`holds_result`. Returns (witness or None, the reason it
    failed or "", max residual).
    """
    Wo = W
    if not expanded:
        Wo = expand_witness(W, P.ra, P.rb, P.rowsum)
        if not (clean and Wo is W):
            Wo = clean_witness(Wo, P.rowsum)
    why, resid = band_miss(P, Wo, inputs_too)
    if why is None:
        return Wo, "", resid
    if isinstance(Wo, np.ndarray) and Wo.size <= BAND_POLISH_MAX_ENTRIES and not inputs_too:
        bc = band_certificate(P.An, P.Bn, Wo, P.rowsum)
        if bc.W is not None and band_miss(P, bc.W, False)[0] is None:
            return bc.W, "", bc.residual
        why += f"; polished on the original columns: {bc.reason}"
    return None, why, resid


def holds_result(
    P: Problem,
    W_red: np.ndarray,
    method: str,
    exact: bool,
    how: str,
    Wq: Any = None,
    expanded: bool = False,
    clean: bool = False,
    band: str | None = None,
) -> RefinementResult:
    """The verdict "holds" with the witness W_red (reduced unless ``expanded``), verified.

    ``clean``: W_red is already clipped and row-normalised (the rounding-band
    certificate's witness); when no column was merged it is returned as certified.
    ``band``: the band ``how`` states, re-checked on the original columns of the
    channels as given — "rounding" (:func:`rounding_band`), "inputs" (plus the inputs'
    own rounding) or None (an exact witness, or one :func:`witness_in_band` has just
    checked: the API tolerances only).
    """
    W: Any = W_red
    if not expanded:
        W = expand_witness(W_red, P.ra, P.rb, P.rowsum)
        if not (clean and W is W_red):
            W = clean_witness(W, P.rowsum)
    if band is not None:
        why, _ = band_miss(P, W, band == "inputs")
        if why is not None:
            msg = f"the {relation_name(P.rowsum)} witness failed its band re-check: {why}"
            raise VerificationError(msg)
    c = verify(P, witness=W)
    return make_result(
        P,
        True,
        witness=W,
        method=method,
        exact=exact,
        certified_by=how,
        residual=c.residual,
        row_sum_error=c.row_sum_error,
        min_entry=c.min_entry,
        exact_witness=Wq,
    )


def fails_result(
    P: Problem,
    g: np.ndarray,
    gap_exact: Fraction | None,
    bound: float,
    method: str,
    exact: bool,
    how: str,
) -> RefinementResult:
    """The verdict "fails" with the gain g, its gap recomputed and verified."""
    c = verify(P, gain=g, gap_exact=gap_exact)
    assert c.counterexample is not None
    ce = replace(c.counterexample, gap_bound=bound)
    return make_result(
        P, False, counterexample=ce, method=method, exact=exact, certified_by=how + c.note
    )


# -- certificates ---------------------------------------------------------------------


def gain_candidates(H: np.ndarray, rowsum: bool) -> list[np.ndarray]:
    """π-weighted gains to try: the whole H (average case) or each nonzero row (max case)."""
    if rowsum:
        return [H]
    rows = [H[j : j + 1] for j in range(H.shape[0]) if np.any(H[j])]
    return rows


def prune_actions(g: np.ndarray, P: Problem) -> np.ndarray:
    """Keep only the actions that are optimal for some output of A or B (V_g is unchanged)."""
    used: set[int] = set()
    gt = np.ascontiguousarray(g.T)
    step = max(1, 2**21 // max(1, g.shape[0]))  # bounded memory: outputs in chunks
    for C in (P.An, P.Bn):
        Jt = (P.prior[:, None] * C).T
        for i in range(0, Jt.shape[0], step):
            # (outputs x actions), arg-max along contiguous rows
            used.update(np.argmax(Jt[i : i + step] @ gt, axis=1).tolist())
    return g[sorted(used)]


def certify_gain_float(P: Problem, H: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """The first candidate gain whose float gap provably exceeds its rounding error."""
    best = None
    for Hc in gain_candidates(H, P.rowsum):
        g = gain_from_weighted(Hc, P.prior)
        if P.rowsum and g.shape[0] > 32:
            g = prune_actions(g, P)
        gap, bound = (float_gap if P.rowsum else float_max_case_gap)(P.An, P.Bn, g, P.prior)
        if gap > bound:
            if best is None or gap > best[1]:
                best = (g, gap, bound)
            if P.rowsum:
                break
    return best


def order_rows_for_max_case(H: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Rows of H sorted by how strongly they separate (y_j · b_j, descending)."""
    score = np.einsum("jx,xj->j", H, B) if H.shape[0] == B.shape[1] else np.zeros(H.shape[0])
    return H[np.argsort(-score)]
