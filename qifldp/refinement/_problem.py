"""The prepared problem of the refinement driver, and the one re-check of every certificate.

:class:`Problem` holds the channels as given and row-normalised, their column
reductions, the prior and the options, and what the pipeline learns on the way;
:func:`verify` re-checks a witness or a gain on the channels as given, and
:func:`holds_result` / :func:`fails_result` make the verdicts from them."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import now
from ..errors import VerificationError
from ..measures import g_vulnerability
from ._certify import (
    clean_witness,
    float_gap,
    float_max_case_gap,
    gain_from_weighted,
    witness_errors,
)
from ._prep import Reduced, expand_witness
from .result import (
    TOLERANCES,
    WITNESS_ENTRY_ATOL,
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    Counterexample,
    RefinementResult,
)

__all__ = [
    "Options",
    "Problem",
    "Checked",
    "relation_name",
    "verify",
    "make_result",
    "holds_result",
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
    #: the rational problem, built once on first use (``_exact_route.exact_problem``)
    exact_cache: Any = None

    @property
    def Ar(self) -> np.ndarray:
        return self.ra.matrix

    @property
    def Br(self) -> np.ndarray:
        return self.rb.matrix


# -- verification and results ---------------------------------------------------------


def relation_name(rowsum: bool) -> str:
    return "refinement" if rowsum else "max-case refinement"


@dataclass
class Checked:
    """What :func:`verify` recomputed on the channels as given."""

    residual: float | None = None
    row_sum_error: float | None = None
    min_entry: float | None = None
    gap: float = float("nan")
    vulnerability_a: float = float("nan")
    vulnerability_b: float = float("nan")
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
    agree to every float digit, its exact gap must be. Raises VerificationError.
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
    else:
        gap, _ = float_max_case_gap(P.A, P.B, gain, P.prior)
        va = vb = float("nan")
    note = ""
    if not gap > 0:
        if gap_exact is None or not gap_exact > 0:
            msg = (
                f"the counterexample's gap recomputed in floating point is {gap!r} (exact gap "
                f"{gap_exact}): the pair is too close to the boundary to state the gap in floats"
            )
            raise VerificationError(msg)
        # V_g of A and B agree to every float digit; the exact gap is the certificate
        note = (
            f"; the gap {float(gap_exact):.3g} is below the float resolution of V_g "
            f"({max(abs(va), abs(vb)):.3g}), so .gap is the exact gap rounded"
        )
        gap = float(gap_exact)
    return Checked(gap=float(gap), vulnerability_a=float(va), vulnerability_b=float(vb), note=note)


def make_result(P: Problem, holds: bool, **fields: Any) -> RefinementResult:
    """A RefinementResult of this problem (relation, time, details filled in)."""
    return RefinementResult(
        holds=holds,
        relation=relation_name(P.rowsum),
        time=time.perf_counter() - P.t0,
        details=P.details,
        **fields,
    )


def holds_result(
    P: Problem,
    W_red: np.ndarray,
    method: str,
    exact: bool,
    how: str,
    Wq: Any = None,
    expanded: bool = False,
    clean: bool = False,
) -> RefinementResult:
    """The verdict "holds" with the witness W_red (reduced unless ``expanded``), verified.

    ``clean``: W_red is already clipped and row-normalised (the rounding-band
    certificate's witness); when no column was merged it is returned as certified.
    """
    W: Any = W_red
    if not expanded:
        W = expand_witness(W_red, P.ra, P.rb, P.rowsum)
        if not (clean and W is W_red):
            W = clean_witness(W, P.rowsum)
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
    ce = Counterexample(
        gain=g,
        prior=P.prior.copy(),
        gap=c.gap,
        gap_exact=gap_exact,
        gap_bound=bound,
        kind="average" if P.rowsum else "max-case",
        vulnerability_a=c.vulnerability_a,
        vulnerability_b=c.vulnerability_b,
    )
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
