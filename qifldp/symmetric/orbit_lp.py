"""The orbit LP of symmetric refinement and its float certificates.

The orbit equations M u = rhs of a pair of symmetric channels (:class:`OrbitProblem`),
HiGHS on them (:func:`solve_orbit_lp`, with the time budget :class:`Clock`), and the
float certificates either way: candidate gains evaluated with rigorous rounding bounds
(:func:`consider_gain`), witnesses checked against the rounding band
(:meth:`OrbitProblem.check`), and the results they make (:func:`fails_float`,
:func:`witness_result`). The decision that runs them is :func:`qifldp.symmetric.refines`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .. import deadline
from ..errors import (
    ChannelError,
    InputTypeError,
    ParameterError,
    SolverError,
    UnsupportedKindError,
)
from ..refinement._certify import INPUT_BAND_FACTOR
from ..refinement.result import (
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    Counterexample,
    RefinementResult,
)
from .channel import SymmetricChannel
from .gain import SymmetricGain, _c_in, overlap_range
from .measures import ldp_epsilon
from .orbit_certify import (
    UNIT_ROUNDOFF as _U,
    GapEvaluation,
    exact_gap,
    gap_with_bound,
    stored_masses,
)
from .orbit_witness import (
    OrbitWitness,
)

__all__ = [
    "WITNESS_ATOL",
    "ROW_ATOL",
    "ORBIT_BAND_FACTOR",
    "REFINEMENT_ROUNDS",
    "MAX_ORBIT_VARIABLES",
    "ORBIT_LP_BYTES_PER_VARIABLE",
    "ORBIT_LP_MEMORY_BYTES",
    "GAIN_EVAL_MAX_ENTRIES",
    "Clock",
    "OrbitProblem",
    "GainCandidate",
    "DecisionState",
    "orbit_equations",
    "orbit_variables",
    "orbit_coefficients",
    "in_blocks",
    "check_large",
    "ORBIT_BLOCK",
    "solve_orbit_lp",
    "check_pair",
    "check_kinds",
    "check_time_limit",
    "uniform_prior",
    "eps_gains",
    "lp_gain",
    "input_delta",
    "consider_gain",
    "fails_float",
    "exact_gain",
    "exact_of",
    "witness_result",
    "band_allowance",
]

#: The API's witness tolerance (qifldp.refinement): every returned orbit witness also
#: has every orbit equation within it. It bounds the certificate; it decides nothing.
WITNESS_ATOL: float = WITNESS_RESIDUAL_ATOL
#: Returned witness rows sum to 1 within ROW_ATOL (entries are >= 0). Decides nothing.
ROW_ATOL: float = WITNESS_ROW_SUM_ATOL
#: The rounding band of an orbit equation e with n_e support terms: B's class mass
#: counts as (A·W)'s when |rhs_e − (M u)_e| <= ORBIT_BAND_FACTOR (n_e + 2) u ((M u)_e + rhs_e)
#: (u = 2^-53) for the *exact* residual of the stored problem (the float residual plus
#: its rigorous evaluation error): the orbit analogue of the explicit route's rounding
#: band (qifldp.refinement, BAND_FACTOR = 4, |Y_A| terms per entry).
ORBIT_BAND_FACTOR: float = 4.0
#: INPUT_BAND_FACTOR (from qifldp.refinement._certify, shared with the explicit route):
#: a class mass P computed in log space carries a relative error up to
#: INPUT_BAND_FACTOR u (1 + |ln P|); a pair whose witness is within this band (but not the
#: rounding band) and has no certificate either way is "holds up to rounding".
#: Iterative-refinement rounds: LPs on the scaled residual of the previous solution, which
#: resolve gaps and residuals far below HiGHS's own tolerances.
REFINEMENT_ROUNDS: int = 3
#: The orbit LP has about 2 |sizes(A)| |sizes(B)| variables; beyond this, refuse.
MAX_ORBIT_VARIABLES: int = 4_000_000
#: Measured peak memory of HiGHS (through scipy) per orbit variable, bytes (0.17 GB at
#: 1.8e5 variables, 0.75 GB at 7.2e5: ~1 KB each, with ~3 nonzeros per column).
ORBIT_LP_BYTES_PER_VARIABLE: int = 1100
#: Memory the orbit LP may take (estimated before it is built), bytes.
ORBIT_LP_MEMORY_BYTES: int = 4 << 30
#: A candidate gain is evaluated (with its rigorous bound) only up to this many
#: (output class, action size) pairs; larger LP duals are skipped.
GAIN_EVAL_MAX_ENTRIES: int = 50_000_000
#: HiGHS primal/dual feasibility tolerances (tighter than its default 1e-7).
_HIGHS_TOL: float = 1e-10
#: Dense float polishing of a witness on its support up to this many (equations x support).
_POLISH_MAX_CELLS: int = 4_000_000
#: The refinement LP keeps 0 <= u + Δ <= 1; its scaled bounds are capped here (HiGHS
#: treats bounds beyond 1e20 as infinite).
_REFINEMENT_BOX: float = 1e8


# --------------------------------------------------------------------------------------
# the orbit LP
# --------------------------------------------------------------------------------------
def orbit_variables(
    A: SymmetricChannel, B: SymmetricChannel, check: Callable[[str], Any] | None = None
):
    """The LP's variables (index into A's sizes, into B's sizes, s, t, j): every pair of
    sizes and the two extreme overlaps j (``check(stage)`` between the passes of a
    large problem, :func:`check_large`).

    >>> import qifldp.symmetric as sym
    >>> [v.tolist() for v in orbit_variables(sym.grr(3, 1.0), sym.grr(3, 1.0))]
    [[0, 0], [0, 0], [1, 1], [1, 1], [0, 1]]
    """
    k = A.k
    stage = "the orbit variables"
    gS, gT = np.meshgrid(np.arange(A.sizes.size), np.arange(B.sizes.size), indexing="ij")
    iS, iT = gS.ravel(), gT.ravel()
    s, t = A.sizes[iS], B.sizes[iT]
    check_large(check, s.size, stage)
    lo, hi = overlap_range(k, s, t)
    two = hi > lo
    check_large(check, s.size, stage)
    iS = np.concatenate([iS, iS[two]])
    iT = np.concatenate([iT, iT[two]])
    j = np.concatenate([lo, hi[two]])
    return iS, iT, A.sizes[iS], B.sizes[iT], j


def _support_variables(A: SymmetricChannel, B: SymmetricChannel, support: Any):
    """Triples (s, t, j) of a chosen support: (index into A's sizes, into B's sizes, overlap)."""
    iS, iT, j = (np.asarray(v, dtype=np.int64).reshape(-1) for v in support)
    s, t = A.sizes[iS], B.sizes[iT]
    lo, hi = overlap_range(A.k, s, t)
    if not (np.all(lo <= j) and np.all(j <= hi)):
        msg = "support overlaps j must lie in max(0, s + t - k)..min(s, t)"
        raise ParameterError(msg)
    return iS, iT, s, t, j


#: The O(k) passes over orbit variables run in blocks of this many, the time budget
#: read between blocks (a pass over 2 x 10^6 variables stops within one block).
ORBIT_BLOCK: int = 1 << 17


def in_blocks(
    n: int,
    fn: Callable[[slice], tuple[np.ndarray, ...]],
    check: Callable[[str], Any] | None,
    stage: str,
) -> tuple[np.ndarray, ...]:
    """``fn`` on consecutive slices of range(n) (:data:`ORBIT_BLOCK` each), its arrays
    concatenated; ``check(stage)`` between blocks (none when n fits one block).

    >>> in_blocks(5, lambda sl: (np.arange(5)[sl] * 2,), None, "doubling")[0].tolist()
    [0, 2, 4, 6, 8]
    """
    if n <= ORBIT_BLOCK:
        return fn(slice(0, n))
    parts: list[tuple[np.ndarray, ...]] = []
    for lo in range(0, n, ORBIT_BLOCK):
        if lo and check is not None:
            check(stage)
        parts.append(fn(slice(lo, lo + ORBIT_BLOCK)))
    return tuple(np.concatenate(col) for col in zip(*parts, strict=True))


def check_large(check: Callable[[str], Any] | None, n: int, stage: str) -> None:
    """``check(stage)`` after an O(n) step when n is beyond one block (:data:`ORBIT_BLOCK`):
    a large problem reads the time budget between its passes, a small one at its stages
    only (the readings a deterministic clock counts do not depend on k below a block).

    >>> seen = []
    >>> check_large(seen.append, 10, "a pass"), check_large(seen.append, 10**6, "a pass")
    (None, None)
    >>> seen
    ['a pass']
    """
    if check is not None and n > ORBIT_BLOCK:
        check(stage)


def orbit_coefficients(
    A: SymmetricChannel,
    variables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    check: Callable[[str], Any] | None = None,
    stage: str = "the orbit coefficients",
) -> tuple[np.ndarray, np.ndarray]:
    """(c_in, c_out) of the orbit variables (index into A's sizes, s, t, j): the
    coefficients of u(s, t, j) in B's (t, in) and (t, out) equations, computed in blocks
    (:func:`in_blocks`, ``check(stage)`` between them).

    >>> import qifldp.symmetric as sym
    >>> A = sym.grr(3, 0.0)
    >>> c_in, c_out = orbit_coefficients(A, (np.array([0]), np.array([1]), np.array([1]),
    ...                                      np.array([1])))
    >>> round(float(c_in[0]), 6), round(float(c_out[0]), 6)
    (0.333333, 0.666667)
    """
    iS, s, t, j = variables
    k = A.k
    PiA, PoA = A.class_masses()

    def block(sl: slice) -> tuple[np.ndarray, np.ndarray]:
        pi, po, sb, tb, jb = PiA[iS[sl]], PoA[iS[sl]], s[sl], t[sl], j[sl]
        # x ∉ T: the complement's overlap
        return _c_in(pi, po, sb, tb, jb, k), _c_in(pi, po, sb, k - tb, sb - jb, k)

    c_in, c_out = in_blocks(int(s.size), block, check, stage)
    return c_in, c_out


def orbit_equations(
    A: SymmetricChannel,
    B: SymmetricChannel,
    support: Any = None,
    check: Callable[[str], Any] | None = None,
):
    """Sparse orbit system M u = rhs: rows = A's row sums, then B's classes (t, in/out).

    Both coefficients are sums of non-negative terms (c_out is not formed as a
    difference), so each has a relative rounding error of a few ulp. ``support``
    (index arrays into A's sizes and B's sizes, and overlaps j) keeps only those
    variables: the equations of a witness supported there, in O(support) memory
    instead of O(|sizes(A)| |sizes(B)|). ``check(stage)`` is called between the
    steps (a :meth:`Clock.check`: the building ends by the decision's deadline).
    """
    import scipy.sparse as sp

    k = A.k
    if support is None:
        iS, iT, s, t, j = orbit_variables(A, B, check)
    else:
        iS, iT, s, t, j = _support_variables(A, B, support)
    n_var = s.size
    stage = f"building the orbit equations ({n_var} orbit variables)"
    if check is not None:
        check(stage)
    PiA, PoA = A.class_masses()
    PiB, PoB = B.class_masses()
    c_in, c_out = orbit_coefficients(A, (iS, s, t, j), check, stage)
    if check is not None:
        check(stage)
    nS = A.sizes.size
    # B's equations: class (t, in) exists for t > 0, (t, out) for t < k
    has_in = B.sizes > 0
    has_out = B.sizes < k
    row_in = np.full(B.sizes.size, -1)
    row_out = np.full(B.sizes.size, -1)
    row_in[has_in] = nS + np.arange(int(has_in.sum()))
    row_out[has_out] = nS + int(has_in.sum()) + np.arange(int(has_out.sum()))
    n_eq = nS + int(has_in.sum()) + int(has_out.sum())
    cols = np.arange(n_var)
    rows = [iS]
    vals = [np.ones(n_var)]
    m_in = row_in[iT] >= 0
    rows.append(row_in[iT][m_in])
    vals.append(c_in[m_in])
    m_out = row_out[iT] >= 0
    rows.append(row_out[iT][m_out])
    vals.append(c_out[m_out])
    M = sp.csr_matrix(
        (
            np.concatenate(vals),
            (np.concatenate(rows), np.concatenate([cols, cols[m_in], cols[m_out]])),
        ),
        shape=(n_eq, n_var),
    )
    rhs = np.concatenate([np.ones(nS), PiB[has_in], PoB[has_out]])
    b_rows = (row_in, row_out)
    return M, rhs, (iS, iT, s, t, j), nS, b_rows


#: Solver settings tried in turn: tight tolerances first; HiGHS occasionally fails on
#: the tight setting (status 4) when class masses span hundreds of orders of magnitude.
_ATTEMPTS = (
    {"primal_feasibility_tolerance": _HIGHS_TOL, "dual_feasibility_tolerance": _HIGHS_TOL},
    {
        "primal_feasibility_tolerance": _HIGHS_TOL,
        "dual_feasibility_tolerance": _HIGHS_TOL,
        "presolve": False,
    },
    {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9},
)


class Clock:
    """The stages of one decision, checked against its one deadline (:mod:`qifldp.deadline`:
    the caller's ``budget(time_limit)``; outside a budget nothing expires).

    :meth:`check` raises SolverError naming the limit and the stages passed when the time
    left cannot pay for a step as long as the longest so far
    (:func:`qifldp.deadline.affordable`): the decision ends by its limit, not one step
    past it.

    >>> from qifldp.deadline import TickClock, budget, use_clock
    >>> with use_clock(TickClock()), budget(2.0):  # read at 1: the deadline is 3
    ...     clock = Clock()
    ...     clock.check("a pass")  # read at 2: one unit left, for steps of one
    ...     clock.check("another pass")  # read at 3: spent
    Traceback (most recent call last):
    ...
    qifldp.errors.SolverError: time_limit = 2 s reached during another pass: no verdict...
    """

    def __init__(self, n_var: int = 0) -> None:
        self.t0 = time.perf_counter()  # for the reported times
        self.n_var = n_var
        self.passed: list[str] = []  # the stages checked so far

    @property
    def limit(self) -> float | None:
        """The ``time_limit`` of the deadline in force (None outside a budget)."""
        return deadline.limit()

    def left(self) -> float:
        """Seconds (clock units) left before the deadline (``inf`` outside a budget)."""
        left = deadline.left()
        return math.inf if left is None else left

    @property
    def deadline(self) -> float | None:
        """The ``qifldp.deadline.now()`` reading past which the budget is spent (None
        outside a budget)."""
        return deadline.end()

    def check(self, stage: str, at_least: float = 0.0) -> None:
        """Raise (:meth:`expire`) unless the time left pays for the next step: as long as
        the longest so far, and ``at_least`` seconds (its own predicted cost, on the
        machine's clock: :func:`qifldp.deadline.affordable`)."""
        if not deadline.affordable(at_least=at_least):
            self.expire(stage)
        if not self.passed or self.passed[-1] != stage:
            self.passed.append(stage)  # what was tried, for an undecided result

    def restate(self, error: SolverError) -> None:
        """A time limit reached inside a shared step (:func:`qifldp.deadline.expired` names
        the step) raised as every stage's is, with the stages passed before it; any other
        error is left to the caller."""
        if deadline.reached(error) and not str(error).startswith("time_limit = "):
            self.expire(str(error))

    def expire(self, stage: str) -> None:
        size = f" ({self.n_var} orbit variables)" if self.n_var else ""
        limit = self.limit
        said = "the time limit" if limit is None else f"time_limit = {limit:g} s"
        msg = (
            f"{said} reached during {stage}{size}: no verdict. "
            "Pass a larger time_limit (seconds), or compare the necessary conditions "
            "ldp_epsilon(B) <= ldp_epsilon(A) and bayes_capacity(B) <= bayes_capacity(A) "
            "(qifldp.symmetric), which cost O(k)"
        )
        tried = self.passed if self.passed[-1:] == [stage] else [*self.passed, stage]
        raise deadline.expired(msg, tried)


def solve_orbit_lp(
    c: np.ndarray, A_eq: Any, b_eq: np.ndarray, bounds: Any, clock: Clock, stage: str
):
    """HiGHS on a phase-1 LP, retrying other settings when it reports a failure."""
    from scipy.optimize import linprog

    messages = []
    for options in _ATTEMPTS:
        clock.check(stage)
        left = clock.left()
        seconds = deadline.solver_seconds(left if math.isfinite(left) else None)
        opts = dict(options) if seconds is None else dict(options, time_limit=seconds)
        res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs", options=opts)
        if res.status == 0 and res.x is not None:
            return res
        if clock.left() <= 0 or "time limit" in str(res.message).lower():
            clock.expire(stage)
        messages.append(f"status {res.status}: {res.message}")
    msg = f"HiGHS did not solve the orbit LP ({'; '.join(messages)}); no verdict"
    raise SolverError(msg)


def check_pair(A: Any, B: Any) -> None:
    for name, C in (("A", A), ("B", B)):
        if not isinstance(C, SymmetricChannel):
            msg = f"{name} must be a SymmetricChannel, got {type(C).__name__}"
            raise InputTypeError(msg)
    if A.k != B.k:
        msg = f"A and B must have the same k, got {A.k} and {B.k}"
        raise ChannelError(msg)


def check_kinds(operation: str, A: Any, B: Any) -> None:
    """Refuse a symmetric channel paired with another kind, where ``operation`` (a
    dispatched relation) reaches the symmetric kind's implementation.

    >>> from qifldp.symmetric import grr
    >>> check_kinds("refines", grr(3, 1.0), [[1.0, 0.0], [0.0, 1.0]])
    Traceback (most recent call last):
    ...
    qifldp.errors.UnsupportedKindError: refines does not support ... with a list B: ...
    """
    if not (isinstance(A, SymmetricChannel) and isinstance(B, SymmetricChannel)):
        other, name = (B, "B") if isinstance(A, SymmetricChannel) else (A, "A")
        msg = (
            f"{operation} does not support a symmetric channel with a {type(other).__name__} "
            f"{name}: A and B must both be symmetric channels (qifldp.symmetric) or both "
            "explicit; use .expand() for the explicit Channel (small k only)"
        )
        raise UnsupportedKindError(msg)


def check_time_limit(time_limit: Any) -> float:
    try:
        value = float(time_limit)
    except (TypeError, ValueError, OverflowError):
        value = math.nan
    if (
        math.isnan(value)
        or isinstance(time_limit, bool)
        or not isinstance(time_limit, (int, float, np.integer, np.floating))
        or not value > 0
    ):
        msg = f"time_limit must be a positive number of seconds, got {time_limit!r}"
        raise ParameterError(msg)
    return value


def uniform_prior(k: int) -> np.ndarray:
    return np.full(k, 1.0 / k)


# --------------------------------------------------------------------------------------
# candidate gains and witnesses, and their rigorous checks
# --------------------------------------------------------------------------------------
def band_allowance(n_terms: int, G: SymmetricGain) -> float:
    """Largest gap V_g[υ▷B] − V_g[υ▷A·W] of a pair whose orbit equations hold within the band.

    The gap is Σ_e g_e r_e over the residuals r of B's classes (plus the row sums);
    with |r_e| <= ORBIT_BAND_FACTOR (n + 2) u ((M u)_e + rhs_e) and both sides summing
    to 1, it is at most 2 ORBIT_BAND_FACTOR (n + 2) u max|g| (3 for room).
    """
    gmax = float(max(np.max(np.abs(G.g_in)), np.max(np.abs(G.g_out))))
    return 3.0 * (ORBIT_BAND_FACTOR + 1.0) * (n_terms + 2) * _U * gmax


@dataclass
class GainCandidate:
    G: SymmetricGain
    ev: GapEvaluation
    source: str
    allowance: float
    gap_exact: Fraction | None = None
    exact_tried: bool = False


@dataclass
class DecisionState:
    """What the decision has found so far (candidate certificates either way)."""

    gains: list = field(default_factory=list)
    band_witness: Any = None  # (u, residual, row_err, how)
    best_witness: Any = None  # (u, residual, row_err, input_band_ok)
    notes: list = field(default_factory=list)


def eps_gains(A: SymmetricChannel, B: SymmetricChannel) -> list[tuple[SymmetricGain, str]]:
    """Likelihood-ratio gains from B's classes of largest |ln(a_t / b_t)| beyond ldp_epsilon(A).

    For a class t of B with a_t / b_t = e^r, r > eps_A: actions T of size t,
    g = 1 for x in T and -λ otherwise (plus a null action of gain 0), with
    λ = t e^{(eps_A + r') / 2} / (k - t), r' = min(r, eps_A + 2). Every output of A
    then has Σ_x A[x, S] g(T, x) <= 0 (its entries are within e^{eps_A} of each
    other), so V_g[υ▷A] = 0, while B's outputs of size t earn > 0 at T = S. The
    mirror image (g = 1 for x ∉ T) serves r < -eps_A. The gap is large (no
    cancellation), unlike the Bayes-capacity gap, where e^{-eps} rounds away.
    """
    ea = ldp_epsilon(A)
    if not math.isfinite(ea):
        return []
    k = B.k
    s = B.sizes
    inner = (s > 0) & (s < k)
    li, lo = B.log_in, B.log_out
    r = np.full(s.size, np.nan)
    both = inner & (li > -np.inf) & (lo > -np.inf)
    r[both] = B.log_ratio[both]
    r[inner & (li > -np.inf) & (lo == -np.inf)] = np.inf
    r[inner & (li == -np.inf) & (lo > -np.inf)] = -np.inf
    ok = np.flatnonzero(np.abs(np.nan_to_num(r, nan=0.0)) > ea)
    out = []
    for i in ok[np.argsort(-np.abs(r[ok]))][:3]:
        t = int(s[i])
        ri = float(r[i])
        mid = 0.5 * (ea + min(abs(ri), ea + 2.0))
        if ri > 0:
            lam = t * math.exp(mid) / (k - t)
            g_in, g_out = 1.0, -lam
        else:
            lam = (k - t) * math.exp(mid) / t
            g_in, g_out = -lam, 1.0
        if not math.isfinite(lam):
            continue
        scale = 2.0 ** -math.ceil(math.log2(max(1.0, lam)))  # exact: |g| <= 1
        G = SymmetricGain(k, [0, t], [0.0, g_in * scale], [0.0, g_out * scale])
        out.append(
            (G, f"likelihood-ratio gain on B's class of size {t} (|ln a/b| = {abs(ri):.6g})")
        )
    return out


def lp_gain(y: np.ndarray, sigma: np.ndarray, nS: int, B: SymmetricChannel, b_rows) -> Any:
    """The symmetric gain g(T, x) = y_(|T|, x ∈ T) from the duals of the scaled B rows."""
    row_in, row_out = b_rows
    sg = sigma[nS:]
    # y / σ without overflow: scale by the smallest σ first (the gain is normalised below)
    yB = np.asarray(y, dtype=np.float64)[nS:] * (sg.min() / sg) if sg.size else sg
    if not np.all(np.isfinite(yB)) or not np.any(yB):
        return None
    g_in = np.zeros(B.sizes.size)
    g_out = np.zeros(B.sizes.size)
    g_in[row_in >= 0] = yB[row_in[row_in >= 0] - nS]
    g_out[row_out >= 0] = yB[row_out[row_out >= 0] - nS]
    top = float(max(np.abs(g_in).max(), np.abs(g_out).max()))
    scale = 2.0 ** -math.ceil(math.log2(top))  # exact power of two: 1/2 < max|g| <= 1
    return SymmetricGain(B.k, B.sizes.tolist(), g_in * scale, g_out * scale)


class OrbitProblem:
    """The orbit equations with everything the checks need (scaling, bands, sizes).

    ``support`` (see :func:`orbit_equations`) restricts the variables to those of a
    known witness: its checks are then exact for that witness at O(support) cost.
    ``clock`` (a :class:`Clock`) is checked between the steps of the building.
    """

    @classmethod
    def for_gains(cls, A: SymmetricChannel, B: SymmetricChannel, n_terms_max: int) -> OrbitProblem:
        """The pair alone, for evaluating gains (:func:`consider_gain`) before any orbit
        equation is built: ``n_terms_max`` bounds the terms of an orbit equation (it sets
        the band allowance; a larger bound is conservative)."""
        pre = cls.__new__(cls)
        pre.A, pre.B, pre.n_terms_max = A, B, int(n_terms_max)
        return pre

    def __init__(
        self,
        A: SymmetricChannel,
        B: SymmetricChannel,
        support: Any = None,
        clock: Clock | None = None,
    ) -> None:
        self.A, self.B = A, B
        # the building is bounded by the decision's clock (checked between its steps)
        check = None if clock is None else clock.check
        M, rhs, variables, nS, b_rows = orbit_equations(A, B, support, check)
        self.M, self.rhs, self.variables, self.nS, self.b_rows = M, rhs, variables, nS, b_rows
        self.iS = variables[0]
        self.n_var = M.shape[1]
        self.n_b = M.shape[0] - nS
        self.n_terms_max = int(np.diff(M[nS:].tocsr().indptr).max(initial=1))
        # relative input-rounding error per class mass (log-space computation)
        self.deltaA = input_delta(A)
        dB = input_delta(B)
        self.delta_rows = np.zeros(M.shape[0])
        row_in, row_out = b_rows
        self.delta_rows[row_in[row_in >= 0]] = dB[row_in >= 0]
        self.delta_rows[row_out[row_out >= 0]] = dB[row_out >= 0]
        self.normA = _norm_err(A)
        self.normB = _norm_err(B)

    # The LP's scaled forms are built on first use: the routes that only check a
    # candidate (class by class, tight ratio) need M and rhs alone (k = 10^6: seconds).
    @cached_property
    def _scaled(self) -> tuple[np.ndarray, Any, np.ndarray]:
        import scipy.sparse as sp

        M, rhs, nS = self.M, self.rhs, self.nS
        # each of B's rows e divided by its scale σ_e (largest coefficient or right-hand
        # side), so that HiGHS sees entries of order 1 (it drops |a| < 1e-9)
        sigma = np.ones(M.shape[0])
        row_max = np.asarray(abs(M[nS:]).max(axis=1).todense()).ravel()
        sigma[nS:] = np.maximum(row_max, rhs[nS:])
        sigma[sigma <= 0] = 1.0
        # a subnormal scale would make 1/σ overflow; any positive scale keeps the LP's answer
        np.maximum(sigma, 2.0**-1000, out=sigma)
        D = sp.diags(1.0 / sigma)
        A_eq = sp.hstack([D @ M, self._slack, -self._slack], format="csc")
        c = np.concatenate([np.zeros(self.n_var), sigma[nS:], sigma[nS:]])
        return sigma, A_eq, c

    @cached_property
    def _slack(self) -> Any:
        import scipy.sparse as sp

        return sp.vstack([sp.csr_matrix((self.nS, self.n_b)), sp.identity(self.n_b, format="csr")])

    @property
    def sigma(self) -> np.ndarray:
        """Scale of each equation in the LP (B's rows by their largest entry or mass)."""
        return self._scaled[0]

    @property
    def A_eq(self) -> Any:
        """The phase-1 LP's equality matrix [D M, E, −E] (sparse, CSC)."""
        return self._scaled[1]

    @property
    def c(self) -> np.ndarray:
        """The phase-1 LP's costs (the slacks, at their rows' scale)."""
        return self._scaled[2]

    @cached_property
    def _relative(self) -> dict[str, Any]:
        import scipy.sparse as sp

        M, rhs, nS = self.M, self.rhs, self.nS
        E = self._slack
        # the relative LP: B's row e divided by its mass rhs_e, column v multiplied by
        # c_v = min(1, min_e rhs_e / M_ev), so that classes of mass 1e-30 next to classes of
        # mass 1 stay visible to HiGHS (entries <= 1); a column meeting a class of mass 0
        # must be 0
        Mc = M.tocoo()
        bmask = (Mc.row >= nS) & (Mc.data != 0)
        rb = rhs[Mc.row[bmask]]
        zero_cols = np.unique(Mc.col[bmask][rb <= 0])
        pos = rb > 0
        cs = np.ones(self.n_var)
        with np.errstate(over="ignore"):  # a ratio beyond the float range is capped at 1 anyway
            np.minimum.at(cs, Mc.col[bmask][pos], rb[pos] / np.abs(Mc.data[bmask][pos]))
        cs = np.maximum(cs, 1e-300)
        rr = np.ones(M.shape[0])
        rr[nS:] = np.where(rhs[nS:] > 0, rhs[nS:], 1.0)
        data = Mc.data * cs[Mc.col] / rr[Mc.row]
        keep = np.abs(data) >= 1e-12
        Ms = sp.csr_matrix((data[keep], (Mc.row[keep], Mc.col[keep])), shape=M.shape)
        ub = np.full(self.n_var, np.inf)
        ub[zero_cols] = 0.0
        return {
            "A_eq": sp.hstack([Ms, E, -E], format="csc"),
            "c": np.concatenate([np.zeros(self.n_var), np.ones(2 * self.n_b)]),
            "b": rhs / rr,
            "rows": rr,
            "cols": cs,
            "bounds": np.column_stack(
                [
                    np.zeros(self.n_var + 2 * self.n_b),
                    np.concatenate([ub, np.full(2 * self.n_b, np.inf)]),
                ]
            ),
        }

    # the relative LP's parts, by name (built together on first use)
    rel_A_eq = property(lambda self: self._relative["A_eq"])
    rel_c = property(lambda self: self._relative["c"])
    rel_b = property(lambda self: self._relative["b"])
    rel_rows = property(lambda self: self._relative["rows"])
    rel_cols = property(lambda self: self._relative["cols"])
    rel_bounds = property(lambda self: self._relative["bounds"])

    def clean(self, x: np.ndarray) -> np.ndarray:
        """Clip at 0 and renormalise per A-size (an empty row gets one arbitrary orbit)."""
        u = np.clip(np.asarray(x[: self.n_var], dtype=np.float64), 0.0, None)
        sums = np.bincount(self.iS, weights=u, minlength=self.nS)
        for e in np.flatnonzero(sums <= 0):
            u[np.flatnonzero(self.iS == e)[0]] = 1.0
            sums[e] = 1.0
        return u / sums[self.iS]

    def residual(self, u: np.ndarray) -> np.ndarray:
        """rhs − M u (float), all rows."""
        return self.rhs - self.M @ u

    def check(self, u: np.ndarray):
        """(in rounding band, in input band, max |residual| of B rows, max row error, excess)."""
        nS = self.nS
        sup = u > 0
        Mu = self.M @ u
        r = self.rhs - Mu
        n_e = np.diff(self.M[:, sup].tocsr().indptr) if np.any(sup) else np.zeros(self.M.shape[0])
        mag = np.abs(Mu) + np.abs(self.rhs)
        # rigorous error of the float residual against the stored problem's exact residual:
        # coefficients 4u, the sum of n_e non-negative terms (n_e + 2) u, the normalisation
        eval_err = ((n_e + 6) * _U) * mag + self.normA * np.abs(Mu) + self.normB * np.abs(self.rhs)
        eval_err[:nS] = (n_e[:nS] + 2) * _U * mag[:nS]
        band = ORBIT_BAND_FACTOR * (n_e + 2) * _U * mag
        exact_bound = np.abs(r) + eval_err * (1 + 1e-3)
        in_band = bool(np.all(exact_bound <= band))
        wideA = np.abs(self.M) @ (u * self.deltaA[self.iS])
        wide = band + wideA + np.abs(self.rhs) * self.delta_rows
        in_input = bool(np.all(exact_bound <= wide))
        res = float(np.max(np.abs(r[nS:]), initial=0.0))
        row_err = float(np.max(np.abs(r[:nS]), initial=0.0))
        excess = float(np.max(exact_bound / np.maximum(band, 1e-300)))
        return in_band, in_input, res, row_err, excess

    def refinement_lp(self, u: np.ndarray, clock: Clock, stage: str):
        """One round of iterative refinement: (gain or None, corrected witness), or None.

        Solves M Δ + s⁺ − s⁻ = r (r = rhs − M u) with u + Δ >= 0, minimising the
        *relative* slack Σ |s_e| / ρ_e, ρ_e = max(|r_e|, band_e): row e is divided by
        ρ_e and column v multiplied by c_v = min_e ρ_e / |M_ev| (so every scaled entry
        is <= 1), which keeps classes of mass 1e-27 next to classes of mass 1
        visible to HiGHS. The dual of row e, divided by ρ_e, is a symmetric gain.
        """
        import scipy.sparse as sp

        nS = self.nS
        M = self.M.tocoo()
        Mu = self.M @ u
        r = self.rhs - Mu
        sup = u > 0
        n_e = np.diff(self.M[:, sup].tocsr().indptr) if np.any(sup) else np.zeros(r.size)
        band = ORBIT_BAND_FACTOR * (n_e + 2) * _U * (np.abs(Mu) + np.abs(self.rhs))
        rho = np.maximum(np.abs(r), band)
        pos = rho[nS:][rho[nS:] > 0]
        if pos.size == 0:
            return None
        rho[nS:][rho[nS:] <= 0] = pos.min() * 1e-3
        # column scales from B's rows only; A's rows (Σ u = 1) get the largest column scale
        b = M.row >= nS
        nz = (M.data != 0) & b
        with np.errstate(over="ignore"):  # inf scales are replaced below
            ratio = rho[M.row[nz]] / np.abs(M.data[nz])
        cscale = np.full(self.n_var, np.inf)
        np.minimum.at(cscale, M.col[nz], ratio)
        cscale[~(np.isfinite(cscale) & (cscale > 0))] = pos.min()
        rowA = np.zeros(nS)
        np.maximum.at(rowA, self.iS, cscale)
        rho[:nS] = np.maximum(np.maximum(np.abs(r[:nS]), rowA), pos.min())
        with np.errstate(all="ignore"):
            data = M.data * cscale[M.col] / rho[M.row]
        if not (np.all(np.isfinite(data)) and np.all(np.isfinite(r / rho))):
            return None
        keep = np.abs(data) >= 1e-12
        Ms = sp.csr_matrix((data[keep], (M.row[keep], M.col[keep])), shape=M.shape)
        n_b = self.n_b
        E = sp.vstack([sp.csr_matrix((nS, n_b)), sp.identity(n_b, format="csr")])
        A_eq = sp.hstack([Ms, E, -E], format="csc")
        c = np.concatenate([np.zeros(self.n_var), np.ones(2 * n_b)])
        # a box: the correction is of the size of the residual (u + Δ >= 0 inside it)
        with np.errstate(over="ignore", divide="ignore"):  # -inf is clipped by the box
            lower = np.concatenate([np.maximum(-u / cscale, -_REFINEMENT_BOX), np.zeros(2 * n_b)])
        upper = np.concatenate([np.full(self.n_var, _REFINEMENT_BOX), np.full(2 * n_b, np.inf)])
        bounds = np.column_stack([lower, upper])
        res = solve_orbit_lp(c, A_eq, r / rho, bounds, clock, stage)
        y = np.asarray(res.eqlin.marginals, dtype=np.float64)
        G = lp_gain(y, rho, nS, self.B, self.b_rows)
        new = self.clean(u + cscale * np.asarray(res.x[: self.n_var], dtype=np.float64))
        return G, new

    def polish(
        self, u: np.ndarray, rounds: int = 2, clock: Clock | None = None
    ) -> np.ndarray | None:
        """Least-squares correction on the support (rows weighted to relative size), clipped.

        With a ``clock``: checked before each round (one dense least-squares solve, which
        cannot be stopped: not started when the time left cannot pay for it,
        :func:`qifldp.deadline.affordable`)."""
        sup = np.flatnonzero(u > 0)
        if sup.size * self.M.shape[0] > _POLISH_MAX_CELLS:
            return None
        best = u
        stage = "the least-squares polish of the orbit witness"
        if clock is not None:
            clock.check(stage)
        Ms = self.M[:, sup].toarray()
        for i in range(rounds):
            if i and clock is not None:
                clock.check(stage)
            r = self.residual(best)
            w = 1.0 / np.maximum(np.abs(self.M @ best) + np.abs(self.rhs), 1e-300)
            d = np.linalg.lstsq(Ms * w[:, None], r * w, rcond=1e-15)[0]
            new = best.copy()
            new[sup] = np.maximum(best[sup] + d, 0.0)
            new = self.clean(new)
            if np.max(np.abs(self.residual(new)) * w) >= np.max(np.abs(r) * w):
                break
            best = new
        return best


def input_delta(C: SymmetricChannel) -> np.ndarray:
    """INPUT_BAND_FACTOR u (1 + |ln P|) per class (the larger of the two masses' logs)."""
    li = np.where(np.isfinite(C.log_in), np.abs(C.log_in), 0.0)
    lo = np.where(np.isfinite(C.log_out), np.abs(C.log_out), 0.0)
    return INPUT_BAND_FACTOR * _U * (1.0 + np.maximum(li, lo))


def _norm_err(C: SymmetricChannel) -> float:
    return stored_masses(C).norm_err


def consider_gain(
    P: OrbitProblem,
    st: DecisionState,
    G: SymmetricGain | None,
    source: str,
    check: Callable[[str], Any] | None = None,
):
    """Evaluate a candidate gain rigorously; a Counterexample when it beats bound + band.
    ``check`` (a :meth:`Clock.check`) bounds the evaluation by the time budget."""
    if G is None:
        return None
    cost = (P.A.sizes.size + P.B.sizes.size) * G.sizes.size
    if cost > GAIN_EVAL_MAX_ENTRIES:
        st.notes.append(f"{source}: not evaluated ({cost} class x action pairs)")
        return None
    ev = gap_with_bound(P.A, P.B, G, check)
    allowance = band_allowance(P.n_terms_max, G)
    if ev.gap > ev.bound + allowance:
        return GainCandidate(G, ev, source, allowance)
    if ev.gap + ev.bound > 0:  # exact gap may be positive: keep for the exact check
        st.gains.append(GainCandidate(G, ev, source, allowance))
    return None


def fails_float(
    c: GainCandidate, k: int, t0: float, details: dict, method: str | None = None
) -> RefinementResult:
    ce = Counterexample(
        c.G,
        uniform_prior(k),
        c.ev.gap,
        gap_bound=c.ev.bound + c.allowance,
        vulnerability_a=c.ev.va,
        vulnerability_b=c.ev.vb,
    )
    return RefinementResult(
        False,
        counterexample=ce,
        method=method or ("symmetric: orbit LP (HiGHS)" if "LP" in c.source else "symmetric: gain"),
        certified_by=(
            f"{c.source}; gap V_g[υ▷B] − V_g[υ▷A] = {c.ev.gap:.3e} evaluated on the stored "
            f"class masses exceeds its rigorous rounding bound {c.ev.bound:.1e} plus the "
            f"largest gap of a pair within the rounding band ({c.allowance:.1e})"
        ),
        time=time.perf_counter() - t0,
        details=details,
    )


def exact_gain(st: DecisionState, P: OrbitProblem, clock: Clock) -> GainCandidate | None:
    """The kept gain of largest positive exact gap relative to its allowance (their float gaps,
    inside the rounding bounds, order nothing), or None; each only while deadline.affordable()."""
    best: GainCandidate | None = None
    seen: set[bytes] = set()
    for c in sorted(st.gains, key=lambda c: -c.ev.gap):
        key = np.concatenate([c.G.sizes, c.G.g_in, c.G.g_out]).astype(np.float64).tobytes()
        if key not in seen and not c.exact_tried and deadline.affordable():
            c.exact_tried = True
            c.gap_exact = exact_gap(P.A, P.B, c.G, c.ev)
        seen.add(key)
        if c.gap_exact is not None and c.gap_exact > 0:
            if best is None or c.gap_exact / c.allowance > exact_of(best) / best.allowance:
                best = c
    return best


def exact_of(c: GainCandidate) -> Fraction:
    """The exact gap of a candidate returned by :func:`exact_gain` (always set there)."""
    assert c.gap_exact is not None
    return c.gap_exact


def witness_result(
    P: OrbitProblem, u: np.ndarray, residual: float, row_err: float, how: str, t0: float, **kw
) -> RefinementResult:
    s, t, j = P.variables[2:]
    keep = u > 0
    W = OrbitWitness(P.A.k, s[keep], t[keep], j[keep], u[keep], residual, P.A, P.B)
    return RefinementResult(
        True,
        witness=W,
        certified_by=how,
        residual=residual,
        row_sum_error=row_err,
        min_entry=0.0,
        time=time.perf_counter() - t0,
        **kw,
    )
