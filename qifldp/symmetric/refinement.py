"""Refinement between symmetric channels by an LP over orbits (polynomial in k)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..channel import guard_size
from ..errors import (
    ChannelError,
    InputTypeError,
    ParameterError,
    SizeError,
    SolverError,
    VerificationError,
)
from ..refinement._certify import INPUT_BAND_FACTOR
from ..refinement.result import (
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    Counterexample,
    RefinementResult,
)
from .binomial import log_comb
from .channel import SymmetricChannel
from .gain import SymmetricGain, _c_in, overlap_range
from .lifting import lifted_refinement
from .measures import ldp_epsilon
from .orbit_certify import (
    EXACT_MAX_GAP_TERMS,
    EXACT_MAX_SUPPORT_CELLS,
    EXACT_ORBIT_MAX_VARIABLES,
    ExactOrbitOutcome,
    GapEvaluation,
    OrbitTimeout,
    exact_gap,
    exact_orbit_lp,
    exact_support_witness,
    gap_with_bound,
)

__all__ = [
    "refines",
    "OrbitWitness",
    "WITNESS_ATOL",
    "ROW_ATOL",
    "ORBIT_BAND_FACTOR",
    "INPUT_BAND_FACTOR",
    "REFINEMENT_ROUNDS",
    "MAX_ORBIT_VARIABLES",
    "ORBIT_LP_BYTES_PER_VARIABLE",
    "ORBIT_LP_MEMORY_BYTES",
    "EXACT_MAX_SUPPORT_CELLS",
    "EXACT_MAX_GAP_TERMS",
    "GAIN_EVAL_MAX_ENTRIES",
    "EXACT_ORBIT_MAX_VARIABLES",
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

_U = 2.0**-53


@dataclass(frozen=True, repr=False)
class OrbitWitness:
    """A symmetric refinement witness W, stored by orbits.

    W[S, T] depends only on (|S|, |T|, |S ∩ T|); ``mass[i]`` is
    u(s, t, j) = Pr[T in class (t, j) | S] for the ``i``-th triple
    (``s[i]``, ``t[i]``, ``j[i]``), so W[S, T] = u / (C(s, j) C(k-s, t-j)).
    Only the two extreme overlaps j occur (see :func:`refines`).

    Attributes
    ----------
    k : int
    s, t, j : numpy.ndarray of int
    mass : numpy.ndarray of float
        Non-negative; for each s the masses sum to 1 (within ROW_ATOL).
    residual : float
        max over B's classes (t, x in T or not) of |Pr_{A·W} - Pr_B|, which bounds
        max_{x, T} |(A·W)[x, T] - B[x, T]| on the lumped outputs.
    """

    k: int
    s: np.ndarray
    t: np.ndarray
    j: np.ndarray
    mass: np.ndarray
    residual: float
    _A: SymmetricChannel = field(repr=False, compare=False)
    _B: SymmetricChannel = field(repr=False, compare=False)

    def __repr__(self) -> str:
        n = int(np.count_nonzero(self.mass))
        return f"OrbitWitness(k={self.k}, {n} orbit entries, residual={self.residual:.2e})"

    @property
    def shape(self) -> tuple[int | float, int | float]:
        """(number of outputs of A.expand(), number of outputs of B.expand()), as integers.

        math.inf stands for a count beyond 10^300.
        """
        return _count(self._A), _count(self._B)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.expand().astype(dtype or np.float64)

    def entry(self, S: Any, T: Any) -> float:
        """W[S, T] for lumped outputs S of A and T of B (iterables of input indices).

        >>> import qifldp.symmetric as sym
        >>> r = sym.refines(sym.grr(3, 2.0), sym.grr(3, 1.0))
        >>> round(sum(r.witness.entry((0,), (y,)) for y in range(3)), 9)
        1.0
        """
        S, T = set(S), set(T)
        s, t, j = len(S), len(T), len(S & T)
        sel = (self.s == s) & (self.t == t) & (self.j == j)
        u = float(self.mass[sel].sum())
        k = self.k
        return u / (math.comb(s, j) * math.comb(k - s, t - j))

    def expand(self, lumped: bool = False) -> np.ndarray:
        """The explicit witness W with A.expand(lumped) · W = B.expand(lumped) (small k).

        Parameters
        ----------
        lumped : bool
            False: rows/columns are the outputs of the explicit channels
            (``A.expand()``, ``B.expand()``); an explicit output of B that shares
            its column with m - 1 others gets 1/m of the lumped entry. True: the
            lumped subset channels.

        Returns
        -------
        numpy.ndarray, shape (n_outputs(A), n_outputs(B))

        Raises
        ------
        SizeError
            When W would exceed MAX_ENTRIES.

        Examples
        --------
        >>> import numpy as np, qifldp as q, qifldp.symmetric as sym
        >>> A, B = sym.sue(4, 2.0), sym.the(4, 2.0, 0.7)
        >>> W = sym.refines(A, B).witness.expand()
        >>> W.shape, bool(np.abs(q.sue(4, 2.0).matrix @ W - q.the(4, 2.0, 0.7).matrix).max() < 1e-9)
        ((16, 16), True)
        """
        guard_size(
            "OrbitWitness.expand()",
            1,
            self._A._log10_n_explicit(lumped) + self._B._log10_n_explicit(lumped),
            lambda: self._A._n_explicit(lumped) * self._B._n_explicit(lumped),
            "the orbit form (entry, mass)",
        )
        _, memA, _ = self._A._explicit_outputs(lumped)
        _, memB, log_multB = self._B._explicit_outputs(lumped)
        k = self.k
        sA = memA.sum(axis=1)
        sB = memB.sum(axis=1)
        J = memA.astype(np.int64) @ memB.T.astype(np.int64)
        table = np.zeros((k + 1, k + 1, k + 1))
        np.add.at(table, (self.s, self.t, self.j), self.mass)
        s, t = sA[:, None], sB[None, :]
        log_count = _log_comb_table(k)
        L = log_count[s, J] + log_count[k - s, t - J]
        with np.errstate(divide="ignore"):
            W = table[s, t, J] * np.exp(-L) * np.exp(-log_multB)[None, :]
        return W


def _count(C: SymmetricChannel) -> int | float:
    """Number of explicit outputs of C, or math.inf beyond 10^300."""
    return math.inf if C._log10_n_explicit(False) > 300 else C._n_explicit(False)


def _log_comb_table(k: int) -> np.ndarray:
    """log C(n, r) for 0 <= n, r <= k (-inf where r > n)."""
    out = np.full((k + 1, k + 1), -np.inf)
    for n in range(k + 1):
        out[n, : n + 1] = log_comb(n, np.arange(n + 1)) if n > 0 else 0.0
    return out


# --------------------------------------------------------------------------------------
# the orbit LP
# --------------------------------------------------------------------------------------
def _orbit_variables(A: SymmetricChannel, B: SymmetricChannel):
    """Triples (s, t, j) of the LP: every pair of sizes and the two extreme overlaps j."""
    k = A.k
    gS, gT = np.meshgrid(np.arange(A.sizes.size), np.arange(B.sizes.size), indexing="ij")
    iS, iT = gS.ravel(), gT.ravel()
    s, t = A.sizes[iS], B.sizes[iT]
    lo, hi = overlap_range(k, s, t)
    two = hi > lo
    iS = np.concatenate([iS, iS[two]])
    iT = np.concatenate([iT, iT[two]])
    j = np.concatenate([lo, hi[two]])
    return iS, iT, A.sizes[iS], B.sizes[iT], j


def _equations(A: SymmetricChannel, B: SymmetricChannel):
    """Sparse orbit system M u = rhs: rows = A's row sums, then B's classes (t, in/out).

    Both coefficients are sums of non-negative terms (c_out is not formed as a
    difference), so each has a relative rounding error of a few ulp.
    """
    k = A.k
    iS, iT, s, t, j = _orbit_variables(A, B)
    n_var = s.size
    PiA, PoA = A.class_masses()
    PiB, PoB = B.class_masses()
    c_in = _c_in(PiA[iS], PoA[iS], s, t, j, k)
    c_out = _c_in(PiA[iS], PoA[iS], s, k - t, s - j, k)  # x ∉ T: the complement's overlap
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


class _Clock:
    """The time budget of one call: raises SolverError naming the limit when it is spent."""

    def __init__(self, limit: float, n_var: int = 0) -> None:
        self.t0 = time.perf_counter()
        self.limit = limit
        self.n_var = n_var

    def left(self) -> float:
        return self.limit - (time.perf_counter() - self.t0)

    def check(self, stage: str) -> float:
        left = self.left()
        if left <= 0:
            self.expire(stage)
        return left

    def expire(self, stage: str) -> None:
        size = f" ({self.n_var} orbit variables)" if self.n_var else ""
        msg = (
            f"time_limit = {self.limit:g} s reached during {stage}{size}: no verdict. "
            "Pass a larger time_limit (seconds), or compare the necessary conditions "
            "ldp_epsilon(B) <= ldp_epsilon(A) and bayes_capacity(B) <= bayes_capacity(A) "
            "(qifldp.symmetric), which cost O(k)"
        )
        raise SolverError(msg)


def _solve(c: np.ndarray, A_eq: Any, b_eq: np.ndarray, bounds: Any, clock: _Clock, stage: str):
    """HiGHS on a phase-1 LP, retrying other settings when it reports a failure."""
    messages = []
    for options in _ATTEMPTS:
        left = clock.check(stage)
        opts = dict(options, time_limit=left)
        res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs", options=opts)
        if res.status == 0 and res.x is not None:
            return res
        if clock.left() <= 0 or "time limit" in str(res.message).lower():
            clock.expire(stage)
        messages.append(f"status {res.status}: {res.message}")
    msg = f"HiGHS did not solve the orbit LP ({'; '.join(messages)}); no verdict"
    raise SolverError(msg)


def _check_pair(A: Any, B: Any) -> None:
    for name, C in (("A", A), ("B", B)):
        if not isinstance(C, SymmetricChannel):
            msg = f"{name} must be a SymmetricChannel, got {type(C).__name__}"
            raise InputTypeError(msg)
    if A.k != B.k:
        msg = f"A and B must have the same k, got {A.k} and {B.k}"
        raise ChannelError(msg)


def _check_time_limit(time_limit: Any) -> float:
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


def _uniform(k: int) -> np.ndarray:
    return np.full(k, 1.0 / k)


# --------------------------------------------------------------------------------------
# candidate gains and witnesses, and their rigorous checks
# --------------------------------------------------------------------------------------
def _band_allowance(n_terms: int, G: SymmetricGain) -> float:
    """Largest gap V_g[υ▷B] − V_g[υ▷A·W] of a pair whose orbit equations hold within the band.

    The gap is Σ_e g_e r_e over the residuals r of B's classes (plus the row sums);
    with |r_e| <= ORBIT_BAND_FACTOR (n + 2) u ((M u)_e + rhs_e) and both sides summing
    to 1, it is at most 2 ORBIT_BAND_FACTOR (n + 2) u max|g| (3 for room).
    """
    gmax = float(max(np.max(np.abs(G.g_in)), np.max(np.abs(G.g_out))))
    return 3.0 * (ORBIT_BAND_FACTOR + 1.0) * (n_terms + 2) * _U * gmax


@dataclass
class _GainCandidate:
    G: SymmetricGain
    ev: GapEvaluation
    source: str
    allowance: float
    gap_exact: Fraction | None = None
    exact_tried: bool = False


@dataclass
class _State:
    """What the decision has found so far (candidate certificates either way)."""

    gains: list = field(default_factory=list)
    band_witness: Any = None  # (u, residual, row_err, how)
    best_witness: Any = None  # (u, residual, row_err, input_band_ok)
    notes: list = field(default_factory=list)


def _eps_gains(A: SymmetricChannel, B: SymmetricChannel) -> list[tuple[SymmetricGain, str]]:
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


def _lp_gain(y: np.ndarray, sigma: np.ndarray, nS: int, B: SymmetricChannel, b_rows) -> Any:
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


class _Problem:
    """The orbit equations with everything the checks need (scaling, bands, sizes)."""

    def __init__(self, A: SymmetricChannel, B: SymmetricChannel) -> None:
        self.A, self.B = A, B
        M, rhs, variables, nS, b_rows = _equations(A, B)
        self.M, self.rhs, self.variables, self.nS, self.b_rows = M, rhs, variables, nS, b_rows
        self.iS = variables[0]
        self.n_var = M.shape[1]
        self.n_b = M.shape[0] - nS
        # each of B's rows e divided by its scale σ_e (largest coefficient or right-hand
        # side), so that HiGHS sees entries of order 1 (it drops |a| < 1e-9)
        sigma = np.ones(M.shape[0])
        row_max = np.asarray(abs(M[nS:]).max(axis=1).todense()).ravel()
        sigma[nS:] = np.maximum(row_max, rhs[nS:])
        sigma[sigma <= 0] = 1.0
        self.sigma = sigma
        D = sp.diags(1.0 / sigma)
        E = sp.vstack([sp.csr_matrix((nS, self.n_b)), sp.identity(self.n_b, format="csr")])
        self.A_eq = sp.hstack([D @ M, E, -E], format="csc")
        self.c = np.concatenate([np.zeros(self.n_var), sigma[nS:], sigma[nS:]])
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
        self.rel_A_eq = sp.hstack([Ms, E, -E], format="csc")
        self.rel_c = np.concatenate([np.zeros(self.n_var), np.ones(2 * self.n_b)])
        self.rel_b = rhs / rr
        self.rel_rows = rr
        self.rel_cols = cs
        ub = np.full(self.n_var, np.inf)
        ub[zero_cols] = 0.0
        self.rel_bounds = np.column_stack(
            [
                np.zeros(self.n_var + 2 * self.n_b),
                np.concatenate([ub, np.full(2 * self.n_b, np.inf)]),
            ]
        )
        self.n_terms_max = int(np.diff(M[nS:].tocsr().indptr).max(initial=1))
        # relative input-rounding error per class mass (log-space computation)
        self.deltaA = _input_delta(A)
        dB = _input_delta(B)
        self.delta_rows = np.zeros(M.shape[0])
        row_in, row_out = b_rows
        self.delta_rows[row_in[row_in >= 0]] = dB[row_in >= 0]
        self.delta_rows[row_out[row_out >= 0]] = dB[row_out >= 0]
        self.normA = _norm_err(A)
        self.normB = _norm_err(B)

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

    def refinement_lp(self, u: np.ndarray, clock: _Clock, stage: str):
        """One round of iterative refinement: (gain or None, corrected witness), or None.

        Solves M Δ + s⁺ − s⁻ = r (r = rhs − M u) with u + Δ >= 0, minimising the
        *relative* slack Σ |s_e| / ρ_e, ρ_e = max(|r_e|, band_e): row e is divided by
        ρ_e and column v multiplied by c_v = min_e ρ_e / |M_ev| (so every scaled entry
        is <= 1), which keeps classes of mass 1e-27 next to classes of mass 1
        visible to HiGHS. The dual of row e, divided by ρ_e, is a symmetric gain.
        """
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
        res = _solve(c, A_eq, r / rho, bounds, clock, stage)
        y = np.asarray(res.eqlin.marginals, dtype=np.float64)
        G = _lp_gain(y, rho, nS, self.B, self.b_rows)
        new = self.clean(u + cscale * np.asarray(res.x[: self.n_var], dtype=np.float64))
        return G, new

    def polish(self, u: np.ndarray, rounds: int = 2) -> np.ndarray | None:
        """Least-squares correction on the support (rows weighted to relative size), clipped."""
        sup = np.flatnonzero(u > 0)
        if sup.size * self.M.shape[0] > _POLISH_MAX_CELLS:
            return None
        Ms = self.M[:, sup].toarray()
        best = u
        for _ in range(rounds):
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


def _input_delta(C: SymmetricChannel) -> np.ndarray:
    """INPUT_BAND_FACTOR u (1 + |ln P|) per class (the larger of the two masses' logs)."""
    li = np.where(np.isfinite(C.log_in), np.abs(C.log_in), 0.0)
    lo = np.where(np.isfinite(C.log_out), np.abs(C.log_out), 0.0)
    return INPUT_BAND_FACTOR * _U * (1.0 + np.maximum(li, lo))


def _norm_err(C: SymmetricChannel) -> float:
    from .orbit_certify import stored_masses

    return stored_masses(C).norm_err


def _consider_gain(P: _Problem, st: _State, G: SymmetricGain | None, source: str):
    """Evaluate a candidate gain rigorously; a Counterexample when it beats bound + band."""
    if G is None:
        return None
    cost = (P.A.sizes.size + P.B.sizes.size) * G.sizes.size
    if cost > GAIN_EVAL_MAX_ENTRIES:
        st.notes.append(f"{source}: not evaluated ({cost} class x action pairs)")
        return None
    ev = gap_with_bound(P.A, P.B, G)
    allowance = _band_allowance(P.n_terms_max, G)
    if ev.gap > ev.bound + allowance:
        return _GainCandidate(G, ev, source, allowance)
    if ev.gap + ev.bound > 0:  # exact gap may be positive: keep for the exact check
        st.gains.append(_GainCandidate(G, ev, source, allowance))
    return None


def _fails_float(c: _GainCandidate, k: int, t0: float, details: dict) -> RefinementResult:
    ce = Counterexample(
        c.G,
        _uniform(k),
        c.ev.gap,
        gap_bound=c.ev.bound + c.allowance,
        vulnerability_a=c.ev.va,
        vulnerability_b=c.ev.vb,
    )
    return RefinementResult(
        False,
        counterexample=ce,
        method="symmetric: orbit LP (HiGHS)" if "LP" in c.source else "symmetric: gain",
        certified_by=(
            f"{c.source}; gap V_g[υ▷B] − V_g[υ▷A] = {c.ev.gap:.3e} evaluated on the stored "
            f"class masses exceeds its rigorous rounding bound {c.ev.bound:.1e} plus the "
            f"largest gap of a pair within the rounding band ({c.allowance:.1e})"
        ),
        time=time.perf_counter() - t0,
        details=details,
    )


def _exact_gain(st: _State, P: _Problem, clock: _Clock) -> _GainCandidate | None:
    """The first kept gain whose exact gap (stored problem, rationals) is > 0."""
    for c in sorted(st.gains, key=lambda c: -c.ev.gap):
        if clock.left() <= 0:
            break
        if not c.exact_tried:
            c.exact_tried = True
            c.gap_exact = exact_gap(P.A, P.B, c.G, c.ev)
        if c.gap_exact is not None and c.gap_exact > 0:
            return c
    return None


def _exact_of(c: _GainCandidate) -> Fraction:
    """The exact gap of a candidate returned by :func:`_exact_gain` (always set there)."""
    assert c.gap_exact is not None
    return c.gap_exact


def _witness_result(
    P: _Problem, u: np.ndarray, residual: float, row_err: float, how: str, t0: float, **kw
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


#: For each orbit equation the float witness misses beyond the rounding band, this many
#: of its largest-coefficient variables may enter the exact support solve.
AUGMENT_PER_EQUATION: int = 4


def _unmatched(P: _Problem, u: np.ndarray) -> np.ndarray:
    """Variables that may enter the exact support solve: for every orbit equation the float
    witness ``u`` misses beyond the rounding band, its AUGMENT_PER_EQUATION variables of
    largest coefficient (the float LP leaves tiny classes of B unmatched)."""
    M = P.M.tocsr()
    r = np.abs(M @ u - P.rhs)
    scale = abs(M) @ u + np.abs(P.rhs)
    n_terms = np.diff(M.indptr)
    band = ORBIT_BAND_FACTOR * (n_terms + 2) * _U * scale
    out = []
    for e in np.flatnonzero(r > band):
        lo, hi = M.indptr[e], M.indptr[e + 1]
        cols, vals = M.indices[lo:hi], np.abs(M.data[lo:hi])
        if cols.size:
            top = np.argsort(-vals, kind="stable")[:AUGMENT_PER_EQUATION]
            out.append(cols[top])
    return np.unique(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


def _exact_support_result(P: _Problem, v: np.ndarray, t0: float, details: dict):
    """(result, why): "holds" when the orbit equations solve exactly near the witness ``v``."""
    ue, why = exact_support_witness(P.A, P.B, P.variables, P.b_rows, v, _unmatched(P, v))
    if ue is None:
        return None, why
    _, _, resid, row_err, _ = P.check(ue)
    res = _witness_result(
        P,
        ue,
        resid,
        row_err,
        why,
        t0,
        method="symmetric: orbit LP (HiGHS) + exact",
        exact=True,
        details=details,
    )
    return res, why


_NO_EXACT = "exact checks skipped (exact=False)"


def _check_exact(exact: Any) -> bool | None:
    if exact is not None and not isinstance(exact, (bool, np.bool_)):
        msg = f"exact must be None, True or False, got {exact!r}"
        raise InputTypeError(msg)
    return None if exact is None else bool(exact)


def _run_exact_lp(
    P: _Problem, hint: np.ndarray | None, clock: _Clock, why_float: str | None = None
) -> ExactOrbitOutcome:
    """The exact orbit LP of the stored problem (SizeError beyond its budget).

    ``why_float``: set when the LP runs because the float route found no certificate
    (exact=None), so the refusal says that instead of suggesting exact=None."""
    if P.n_var > EXACT_ORBIT_MAX_VARIABLES:
        size = (
            f"the exact orbit LP for k = {P.A.k} has {P.n_var} orbit variables, more than "
            f"EXACT_ORBIT_MAX_VARIABLES = {EXACT_ORBIT_MAX_VARIABLES}"
        )
        if why_float is None:
            msg = f"{size}; decide with exact=None (float certificates), or a smaller k"
        else:
            msg = f"{why_float}; and {size}: no verdict (try a smaller k)"
        raise SizeError(msg)
    clock.check("the exact orbit LP")
    deadline = clock.t0 + clock.limit
    try:
        return exact_orbit_lp(P.A, P.B, P.variables, P.b_rows, hint=hint, deadline=deadline)
    except OrbitTimeout:
        clock.expire("the exact orbit LP (rational simplex)")
        raise  # pragma: no cover - expire raises


def _exact_how(out: ExactOrbitOutcome) -> str:
    return (
        f"exact orbit LP: rational phase-1 simplex on the stored class masses (read as "
        f"rationals, normalised by their exact sums), {out.n_equations} equations x "
        f"{out.n_variables} orbit variables, {out.pivots} pivots ({out.crash} of them "
        "warm-started from the float witness's support)"
    )


def _farkas_gain(P: _Problem, y: list) -> SymmetricGain | None:
    """The exact Farkas certificate's B-row duals as a float gain (max |g| in (1/2, 1])."""
    nS = P.nS
    yB = [Fraction(int(v.numerator), int(v.denominator)) for v in y[nS:]]
    top = max((abs(v) for v in yB), default=Fraction(0))
    if top == 0:
        return None
    e = math.ceil(math.log2(top)) if top.numerator else 0
    scale = Fraction(2) ** (-e)
    while top * scale > 1:
        scale /= 2
    while top * scale <= Fraction(1, 2):
        scale *= 2
    vals = np.array([float(v * scale) for v in yB])
    row_in, row_out = P.b_rows
    g_in = np.zeros(P.B.sizes.size)
    g_out = np.zeros(P.B.sizes.size)
    g_in[row_in >= 0] = vals[row_in[row_in >= 0] - nS]
    g_out[row_out >= 0] = vals[row_out[row_out >= 0] - nS]
    return SymmetricGain(P.B.k, P.B.sizes.tolist(), g_in, g_out)


def _exact_orbit_result(
    P: _Problem, hint: np.ndarray | None, clock: _Clock, details: dict, why_float: str
) -> RefinementResult:
    """The verdict of the exact orbit LP when the float route has no certificate either way."""
    out = _run_exact_lp(P, hint, clock, why_float)
    details = dict(details, exact_pivots=out.pivots, exact_crash_pivots=out.crash)
    how = _exact_how(out)
    if out.holds:
        return _exact_holds(P, out, clock, details, f"{why_float}; {how}")
    return _exact_fails(P, out, clock, details, f"{why_float}; {how}")


def _exact_holds(
    P: _Problem, out: ExactOrbitOutcome, clock: _Clock, details: dict, how: str
) -> RefinementResult:
    assert out.u is not None
    uq = [Fraction(int(v.numerator), int(v.denominator)) for v in out.u]
    ue = np.array([float(v) for v in uq])
    s, t, j = P.variables[2:]
    details = dict(
        details,
        exact_orbit_masses={
            (int(s[i]), int(t[i]), int(j[i])): uq[i] for i in range(len(uq)) if uq[i] != 0
        },
    )
    _, _, resid, row_err, _ = P.check(ue)
    return _witness_result(
        P,
        ue,
        resid,
        row_err,
        f"proved exactly: {how}; every orbit equation holds exactly and every entry is >= 0 "
        "(exact for the stored floats read as rationals)",
        clock.t0,
        method="symmetric: exact orbit LP",
        exact=True,
        details=details,
    )


def _exact_fails(
    P: _Problem, out: ExactOrbitOutcome, clock: _Clock, details: dict, how: str
) -> RefinementResult:
    """A ⋢ B proved by the exact Farkas certificate; the counterexample is its float gain."""
    assert out.y is not None
    fv = Fraction(int(out.farkas_value.numerator), int(out.farkas_value.denominator))
    G = _farkas_gain(P, out.y)
    gq = None
    if G is not None:
        ev = gap_with_bound(P.A, P.B, G)
        gq = exact_gap(P.A, P.B, G, ev)
    if G is None or gq is None or not gq > 0:
        msg = (
            f"the stored floats fail exactly ({how}; Farkas certificate y with y·M <= 0 and "
            f"y·rhs = {float(fv):.3e} > 0, checked exactly), but rounding the Farkas gain to "
            f"floats loses its gap (exact gap of the float gain "
            f"{'n/a' if gq is None else f'{float(gq):.3g}'}); no float counterexample can be stated"
        )
        raise VerificationError(msg)
    ce = Counterexample(
        G,
        _uniform(P.A.k),
        ev.gap if ev.gap > 0 else float(gq),
        gap_exact=gq,
        gap_bound=ev.bound,
        vulnerability_a=ev.va,
        vulnerability_b=ev.vb,
    )
    return RefinementResult(
        False,
        counterexample=ce,
        method="symmetric: exact orbit LP",
        exact=True,
        certified_by=(
            f"proved exactly: {how}; its Farkas certificate (y·M <= 0 column by column, "
            f"y·rhs = {float(fv):.3e} > 0, checked exactly) as a symmetric gain has exact gap "
            f"{float(gq):.3e} > 0 on the stored class masses (exact for the stored floats "
            "read as rationals)"
        ),
        time=time.perf_counter() - clock.t0,
        details=details,
    )


def _confirm_exact(
    A: SymmetricChannel, B: SymmetricChannel, r: RefinementResult, clock: _Clock
) -> RefinementResult:
    """exact=True: confirm a float-certified verdict by the exact orbit LP of the stored problem."""
    from dataclasses import replace

    P = _Problem(A, B)
    clock.n_var = P.n_var
    hint = None
    W = r.witness
    if isinstance(W, OrbitWitness):
        idx = {key: i for i, key in enumerate(zip(*P.variables[2:], strict=True))}
        hint = np.zeros(P.n_var)
        for sv, tv, jv, m in zip(W.s.tolist(), W.t.tolist(), W.j.tolist(), W.mass, strict=True):
            i = idx.get((sv, tv, jv))
            if i is not None:
                hint[i] += m
    out = _run_exact_lp(P, hint, clock)
    details = dict(r.details, exact_pivots=out.pivots, exact_crash_pivots=out.crash)
    how = _exact_how(out)
    if r.about == "protocols" and not out.holds:  # the tight-ratio reduction's verdict stands
        fv = Fraction(int(out.farkas_value.numerator), int(out.farkas_value.denominator))
        return replace(
            r,
            certified_by=(
                f"{r.certified_by}; the stored floats themselves fail exactly ({how}: Farkas "
                f"certificate with y·rhs = {float(fv):.3e} > 0): they break the ratio identity "
                "at the last bit"
            ),
            time=time.perf_counter() - clock.t0,
            details=details,
        )
    if out.holds:
        if r.holds:
            return _exact_holds(P, out, clock, details, f"{how} (confirming: {r.certified_by})")
        msg = (  # pragma: no cover - a float counterexample is rigorous: never contradicted
            f"the float counterexample ({r.certified_by}) contradicts the exact witness ({how})"
        )
        raise VerificationError(msg)
    fv = Fraction(int(out.farkas_value.numerator), int(out.farkas_value.denominator))
    if r.holds:  # a band witness, but the stored floats fail exactly: up to rounding
        return replace(
            r,
            up_to_rounding=True,
            about="rounding",
            certified_by=(
                f"{r.certified_by}; the stored floats fail exactly ({how}: Farkas certificate "
                f"with y·rhs = {float(fv):.3e} > 0), by less than the rounding band"
            ),
            time=time.perf_counter() - clock.t0,
            details=details,
        )
    ce = r.counterexample
    assert ce is not None and isinstance(ce.gain, SymmetricGain)
    gq = exact_gap(A, B, ce.gain, gap_with_bound(A, B, ce.gain))
    if gq is not None and gq > 0:
        return replace(
            r,
            counterexample=replace(ce, gap_exact=gq),
            exact=True,
            certified_by=(
                f"{r.certified_by}; confirmed exactly: the gain's exact gap is "
                f"{float(gq):.3e} > 0 and {how} ends with a Farkas certificate "
                f"(y·rhs = {float(fv):.3e} > 0)"
            ),
            time=time.perf_counter() - clock.t0,
            details=details,
        )
    return _exact_fails(P, out, clock, details, f"{how} (the float gain: {r.certified_by})")


@dataclass(frozen=True)
class _TightMatch:
    """One inner class of B in the tight-ratio reduction and the class of A it is forced from.

    B's class ``b`` (size t) receives only from A's class ``a`` (size s, orbit (s, t, j)):
    S = T (``side`` "in", j = t, w = P^B_in(t) / P^A_in(s)) or S = T^c (``side`` "out",
    j = 0, w = P^B_in(t) / P^A_out(s)).
    """

    a: int
    b: int
    s: int
    t: int
    j: int
    side: str


@dataclass(frozen=True)
class _TightPlan:
    """The matching of the tight-ratio reduction (see :func:`_tight_ratio_plan`)."""

    eps: float
    matches: tuple[_TightMatch, ...]


def _tight_ratio_plan(
    A: SymmetricChannel, B: SymmetricChannel, tight: tuple[Any, Any] | None = None
) -> _TightPlan | None:
    """The tight-ratio reduction's matching of B's inner classes to A's, or None.

    Let eps = ldp_epsilon(A) = ldp_epsilon(B) and suppose every inner class t of B
    (0 < t < k) has a_t / b_t = e^{±eps} *exactly*, as its matching class of A (SUE and
    OUE at the same eps). For x in T, x' not in T, B[x, T] / B[x', T] = e^{eps} while
    every output S of A has A[x, S] <= e^{eps} A[x', S], with equality only for x in S,
    x' not in S and a tight class of A. So a witness sends to T only from S = T (from
    S = T^c for ratio e^{-eps}), with W[S, T] = B[x, T] / A[x, S], the same for every x
    because both ratios are e^{eps}: w = P^B_in(t) / P^A_in(t) (resp. P^B_in(t) /
    P^A_out(k - t)). The rest of each row of A, 1 − used_s, goes to B's corner classes
    (|T| = 0, k), which every x sees with the same probability; their equations then
    hold because both channels sum to 1. So A ⊑ B iff used_s = Σ w <= 1 for every size
    s of A (:func:`_tight_ratio_verdict`).

    ``tight`` gives, per class of A and of B, +1 / −1 where the ratio is e^{±eps}
    exactly and 0 elsewhere (the protocol route, :mod:`qifldp.symmetric.tight_ratio`,
    after proving it with sympy; eps is then A's stored eps). Without it the classes
    are read from the stored log-ratios (== ±ldp_epsilon(A)): whether the real ratios
    are exactly e^{±eps} is then the premise the float route states.
    """
    k = A.k
    ea = ldp_epsilon(A)
    if not (math.isfinite(ea) and ea > 0):
        return None
    if tight is None:
        if ldp_epsilon(B) != ea:
            return None
        tight = (
            np.where(A.log_ratio == ea, 1, np.where(A.log_ratio == -ea, -1, 0)),
            np.where(B.log_ratio == ea, 1, np.where(B.log_ratio == -ea, -1, 0)),
        )
    tA, tB = (np.asarray(v).tolist() for v in tight)
    posA = {int(sz): i for i, sz in enumerate(A.sizes) if tA[i] == 1}
    if not any(t in (0, k) for t in B.sizes.tolist()):
        return None
    matches = []
    for i, t in enumerate(B.sizes.tolist()):
        if t in (0, k):
            continue
        if tB[i] == 1 and t in posA:
            matches.append(_TightMatch(posA[t], i, t, t, t, "in"))
        elif tB[i] == -1 and (k - t) in posA:
            matches.append(_TightMatch(posA[k - t], i, k - t, t, 0, "out"))
        else:
            return None
    return _TightPlan(ea, tuple(matches))


def _tight_ratio_verdict(bounds: list[tuple[bool, bool]]) -> bool | None:
    """The reduction's verdict from (used_s provably < 1, used_s provably > 1) per size s.

    True when every used_s is provably below 1 (A ⊑ B), False when one is provably
    above 1 (A ⋢ B: the reduction is an iff), None when an enclosure contains 1.
    """
    if any(above for _, above in bounds):
        return False
    if all(below for below, _ in bounds):
        return True
    return None


def _tight_ratio_witness(
    P: _Problem, plan: _TightPlan, w: list[float]
) -> tuple[np.ndarray, float, float]:
    """The orbit witness of the reduction from the weights ``w`` (one per match, floats):
    u(s, t, j) = w on the matched orbits, the rest of each row to B's corner classes in
    proportion to their masses; with its residual and row error on the stored floats."""
    A, B = P.A, P.B
    k = A.k
    PiB, PoB = B.class_masses()
    has0, hask = bool(np.any(B.sizes == 0)), bool(np.any(B.sizes == k))
    m0 = float(PoB[B.sizes == 0].sum()) if has0 else 0.0
    mk = float(PiB[B.sizes == k].sum()) if hask else 0.0
    c0 = m0 / (m0 + mk) if m0 + mk > 0 else 1.0
    index = {key: n for n, key in enumerate(zip(*P.variables[2:], strict=True))}
    u = np.zeros(P.n_var)
    used = np.zeros(A.sizes.size)
    for m, wm in zip(plan.matches, w, strict=True):
        u[index[(m.s, m.t, m.j)]] += wm
        used[m.a] += wm
    for a, sz in enumerate(A.sizes.tolist()):
        rest = max(0.0, 1.0 - float(used[a]))
        if has0:
            u[index[(sz, 0, 0)]] += rest * c0
        if hask:
            u[index[(sz, k, sz)]] += rest * (1.0 - c0 if has0 else 1.0)
    u = P.clean(u)
    _, _, resid, row_err, _ = P.check(u)
    return u, resid, row_err


def _tight_ratio_result(P: _Problem, clock: _Clock, details: dict, why_float: str):
    """A ⊑ B by the tight-ratio reduction (:func:`_tight_ratio_plan`) on the stored masses, or None.

    The weights are bounded from the stored class masses beyond their own rounding
    (INPUT_BAND_FACTOR u (1 + |ln P|) each, see :data:`INPUT_BAND_FACTOR`); the
    equal-ratio premise is stated, not proved (the protocol route proves it:
    :func:`qifldp.symmetric.tight_ratio.tight_ratio_refines`).
    """
    A, B = P.A, P.B
    plan = _tight_ratio_plan(A, B)
    if plan is None:
        return None
    ea = plan.eps
    dA = _input_delta(A)
    dB = _input_delta(B)
    lws = []
    per_a: dict[int, list[tuple[float, float]]] = {}
    for m in plan.matches:
        den = A.log_in[m.a] if m.side == "in" else A.log_out[m.a]
        lw = float(B.log_in[m.b] - den)
        err = float(dA[m.a] + dB[m.b]) + 4 * _U * (abs(float(B.log_in[m.b])) + abs(lw) + 1.0)
        lws.append(lw)
        per_a.setdefault(m.a, []).append((lw, err))
    # used_s <= 1 beyond rounding: bounds of Σ w per A size
    bounds, worst = [], 0.0
    for items in per_a.values():
        hi = math.fsum(math.exp(lw + err) for lw, err in items) * (1 + 8 * _U)
        lo = math.fsum(math.exp(lw - err) for lw, err in items) * (1 - 8 * _U)
        bounds.append((hi < 1.0, lo > 1.0))
        worst = max(worst, hi)
    if _tight_ratio_verdict(bounds) is not True:
        return None
    u, resid, row_err = _tight_ratio_witness(P, plan, [math.exp(lw) for lw in lws])
    how = (
        f"proved for the real channels by the tight-ratio reduction, under the premise that "
        f"every inner class of B and its matching class of A have likelihood ratio exactly "
        f"e^(±{ea!r}) = e^(±ldp_epsilon(A)) (their stored closed-form log-ratios agree to the "
        "last bit, as for SUE and OUE built at the same eps; the verdict does not apply to "
        "channels whose real ratios differ; protocol objects prove it: "
        "qifldp.refines(qifldp.protocol(...), ...)): a witness then maps each inner output T "
        "of B to T (or T^c) alone, with W[T, T] = "
        "P^B_in(t) / P^A_in(t), and the rest of each row to B's corner classes; A ⊑ B iff "
        f"these weights sum to <= 1 per size of A: largest sum {worst:.6g} < 1, beyond the "
        f"stored class masses' rounding ({INPUT_BAND_FACTOR:g} u (1 + |ln P|) each). The "
        f"orbit witness built from it fits the stored floats within {resid:.2e} "
        f"(rows {row_err:.1e}); ({why_float})"
    )
    return _witness_result(
        P,
        u,
        resid,
        row_err,
        how,
        clock.t0,
        method="symmetric: tight-ratio reduction",
        about="protocols",
        details=dict(details, tight_ratio_max_row_weight=worst),
    )


def _identical(A: SymmetricChannel, B: SymmetricChannel, t0: float) -> RefinementResult:
    """Equal class masses: W = I (u(s, s, s) = 1) satisfies every equation exactly."""
    s = A.sizes
    W = OrbitWitness(A.k, s.copy(), s.copy(), s.copy(), np.ones(s.size), 0.0, A, B)
    return RefinementResult(
        True,
        witness=W,
        method="symmetric: identical",
        exact=True,
        certified_by="identical class masses: W = I satisfies every orbit equation exactly",
        residual=0.0,
        row_sum_error=0.0,
        min_entry=0.0,
        time=time.perf_counter() - t0,
    )


def _decide(
    A: SymmetricChannel, B: SymmetricChannel, clock: _Clock, exact: bool | None
) -> RefinementResult:
    """The float route with its exact fallbacks (see :func:`refines`)."""
    t0 = clock.t0
    st = _State()
    if (
        np.array_equal(A.sizes, B.sizes)
        and np.array_equal(A.log_in, B.log_in)
        and np.array_equal(A.log_out, B.log_out)
    ):
        return _identical(A, B, t0)
    return _decide_pair(A, B, clock, exact, st)


def refines(
    A: SymmetricChannel,
    B: SymmetricChannel,
    *,
    time_limit: float = 120.0,
    exact: bool | None = None,
) -> RefinementResult:
    """Decide A ⊑ B for symmetric channels over the same k by an LP over orbits.

    Parameters
    ----------
    A, B : SymmetricChannel
        Over the same k.
    time_limit : float
        Seconds for the whole decision (HiGHS's ``time_limit`` and checks between
        steps).
    exact : bool or None
        None (default): float certificates, rational arithmetic where they are
        inconclusive, and the exact orbit LP (see Notes) when no certificate
        either way exists in floats. True: also confirm every verdict by the
        exact orbit LP (at most :data:`EXACT_ORBIT_MAX_VARIABLES` orbit
        variables). False: no rational arithmetic (a VerificationError instead).

    Returns
    -------
    qifldp.refinement.result.RefinementResult
        Truthy iff A ⊑ B. ``.witness`` is an :class:`OrbitWitness` (``numpy.asarray``
        or ``.expand()`` gives the explicit W for small k); ``.counterexample.gain``
        a :class:`SymmetricGain` (likewise expandable), ``.prior`` the uniform
        prior and ``.gap`` the recomputed V_g[υ▷B] − V_g[υ▷A] > 0 (``gap_exact``
        when it was computed in rationals). ``exact`` is True when the verdict was
        proved in rational arithmetic; ``up_to_rounding``/``about`` say when it
        holds only up to rounding (see Notes); ``details`` holds the LP size and
        least residual.

    Raises
    ------
    InputTypeError, ChannelError
        Not symmetric channels, or different k.
    ParameterError
        ``time_limit`` not a positive number.
    SizeError
        The orbit LP would exceed :data:`MAX_ORBIT_VARIABLES` variables or
        its estimated memory :data:`ORBIT_LP_MEMORY_BYTES`.
    SolverError
        HiGHS fails, or ``time_limit`` is reached (never reported as "does not refine").
    VerificationError
        No certificate either way, and the best witness is not even within the
        rounding band of the inputs; or the exact orbit LP proves that the stored
        floats fail, but only by a gap the float gain loses (equal-eps one-hot
        pairs at the boundary: see Notes); or ``exact=False`` forbids that LP.
    SizeError
        ``exact=True`` on an orbit LP beyond :data:`EXACT_ORBIT_MAX_VARIABLES`.

    Notes
    -----
    *Symmetrisation.* If B = A·W then also B = A·W̄ with W̄ the average of
    P_σ^T W P_σ over all permutations σ of the inputs, because A and B commute
    with the permutations. So a witness can be sought with W[S, T] depending only
    on (s, t, j) = (|S|, |T|, |S ∩ T|). Write u(s, t, j) = Pr[T in class (t, j) | S]
    (= C(s, j) C(k-s, t-j) W[S, T]); the rows of W sum to 1 iff Σ_{t,j} u(s, t, j) = 1.

    *Orbit equations.* (A·W)[x, T] depends only on t and whether x ∈ T. Multiplied by
    the number of such T they read, for every size t of B,

        Σ_{s,j} [P_in(s) j/s + P_out(s) (t-j)/(k-s)] u(s, t, j) = P^B_in(t)

    (x ∈ S is uniform in S, so Pr[x ∈ T | S, class (t, j)] = j / s; for x ∉ S it is
    (t-j)/(k-s)), and the same with the complementary coefficient for P^B_out(t).
    Every coefficient is a probability, so the LP is well scaled.

    *Extreme overlaps.* The coefficients are linear in j, so any u(s, t, ·) can be
    replaced by a mixture of its two extreme overlaps j = max(0, s+t-k) and
    min(s, t) with the same mass and mean: the LP has only ~2 |sizes(A)| |sizes(B)|
    variables (20,000 for UE at k = 100) and |sizes(A)| + 2 |sizes(B)| equations.
    All of this is exact, so the orbit LP is feasible iff A ⊑ B.

    *The stored problem.* The verdict is about the channels as stored (``about ==
    "channels"``): each class mass exp(log P) is read as the binary fraction it
    holds, and a channel's masses are divided by their exact sum (as the explicit
    route reads rows). No tolerance decides a verdict; a float solution is a hint:

    1. *Gains before the LP.* Likelihood-ratio gains from B's classes whose
       |ln(a/b)| exceeds ldp_epsilon(A) (refinement cannot raise epsilon), and
       the identity gain (Bayes capacity). A gain refutes A ⊑ B when its gap,
       evaluated with a rigorous rounding bound, exceeds that bound plus the
       largest gap a pair within the rounding band could have
       (3 (:data:`ORBIT_BAND_FACTOR` + 1)(n + 2) u max|g|, n the most terms of
       an orbit equation): so it excludes the band certificate of "holds".
    2. *The orbit LP* (HiGHS, L1 phase 1, rows scaled to unit size). Its dual is
       a symmetric gain (Farkas), checked as in 1; its primal u (clipped,
       renormalised) is a witness when every orbit equation's exact residual
       (the float residual plus its rigorous evaluation error) is within the
       rounding band ORBIT_BAND_FACTOR (n_e + 2) u ((M u)_e + rhs_e); if not, u
       is polished on its support (least squares).
    3. *Iterative refinement* (:data:`REFINEMENT_ROUNDS`): an LP for the
       correction on the residual scaled to unit size, whose dual resolves gaps
       (and whose primal residuals) far below HiGHS's 1e-10 tolerance.
    4. *Exact arithmetic* (python-flint) when the float certificates are not
       conclusive: the gap of each candidate gain in rationals (only the terms
       within the float error of a maximum, at most :data:`EXACT_MAX_GAP_TERMS`),
       and the orbit equations solved exactly on the witness's support (at most
       :data:`EXACT_MAX_SUPPORT_CELLS` equations x support entries) with u >= 0
       checked entry by entry (``exact`` True). A band witness is also
       confirmed exactly when that is affordable.

    *The exact orbit LP* (``exact=True``, or automatically when step 1-4 leave no
    certificate either way): a rational phase-1 simplex on the orbit equations of the
    stored problem (python-flint ``fmpq``; Dantzig's rule with partial pricing,
    Bland's rule after a streak of degenerate pivots, so it terminates), warm-started
    by pivoting the float witness's support into the all-artificial basis. It ends
    with an exact witness (re-substituted into every equation, u >= 0; ``exact``
    True, ``method`` "symmetric: exact orbit LP", ``certified_by`` "proved exactly",
    ``details["exact_orbit_masses"]`` the rational masses by (s, t, j)) or an exact
    Farkas certificate y (y·M <= 0, y·rhs > 0), stated as its float symmetric gain
    with a positive exact gap. Measured: sue(50, 8) vs oue(50, 8), 5,002 variables,
    ~5 s. What it proves is about the stored floats read as rationals. For one-hot
    pairs at equal eps (SUE, OUE, THE) every inner class of both channels has
    likelihood ratio e^eps exactly, so any witness maps each inner output T of B to
    T alone, scaled by the same factor for x in T and x not in T: an identity of
    e^eps that the stored floats break at the last bit. There the exact verdict on
    the floats follows rounding, not eps (sue(3, eps) vs oue(3, eps): the stored
    floats refine at eps = 3, fail at 2 and 5), and at k = 50, eps = 9 they fail
    by a Farkas value of 1.6e-18 (a VerificationError: no float gain keeps the gap).

    *The tight-ratio reduction* (before the exact orbit LP, when the float route has no
    certificate): if every inner class of B has the extreme likelihood ratio
    e^{±ldp_epsilon(A)} exactly, as its matching class of A (premise: their stored
    closed-form log-ratios agree to the last bit, as for SUE and OUE at the same eps),
    a witness must send each inner output T of B from S = T (or T^c) alone, with weight
    P^B_in(t) / P^A_in(t), and the rest of each row to B's corner classes; so A ⊑ B iff
    these weights sum to at most 1 per size of A. Checked beyond the stored masses'
    own rounding, this proves the verdict for the real channels (``about`` "protocols",
    ``method`` "symmetric: tight-ratio reduction", ``exact`` False): SUE ⊑ OUE at
    k = 50 holds iff (1/2)(1 − q)^49 <= p^50 (p = 1/(1 + e^{-eps/2}), q = 1/(1 + e^eps)),
    i.e. from eps* = 8.5152, and at eps = 9 with largest weight 0.863. The same
    reduction on protocol objects (``q.refines(q.protocol("sue", 50, 9.0),
    q.protocol("oue", 50, 9.0))``, :func:`qifldp.symmetric.tight_ratio_refines`)
    proves the premise (sympy, on the symbolic twin) and bounds the weights from the
    exact eps with arb: ``exact`` True, no premise; :func:`qifldp.symmetric.sue_oue_boundary`
    encloses eps*(k).

    *Up to rounding.* When a witness is within the rounding band but the stored
    floats fail exactly (a positive exact gap, or the exact support solve fails),
    or when no certificate exists either way but the witness is within the band
    of what rounding of the inputs explains (a class mass computed in log space
    is known to :data:`INPUT_BAND_FACTOR` u (1 + |ln P|) relative), the result
    has ``holds`` True, ``up_to_rounding`` True and ``about == "rounding"``;
    ``certified_by`` states the band and what the stored floats give. E.g. SUE ⊑
    OUE at k = 3 holds for the real protocols at every eps above the threshold;
    at eps = 35 and 40 OUE's q = 1/(e^eps + 1) is ~1e-16 and ~4e-18 and the
    stored floats may fail by less than their own rounding.

    *What holds=True certifies.* ``exact`` True: the stored problem refines
    exactly. Otherwise a witness whose orbit equations hold within the rounding
    band (the residual also bounds max |A·W − B| over the explicit outputs; every
    returned witness meets :data:`WITNESS_ATOL`). Cost: one LP with
    O(|sizes(A)| |sizes(B)|) variables (0.2 s for UE at k = 100, 16 s at
    k = 1000), one or two more near the boundary.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> r = sym.refines(sym.sue(50, 2.0), sym.the(50, 2.0, 0.7))  # QIF paper Lemma 11
    >>> r.holds, r.residual < 1e-9
    (True, True)
    >>> r = sym.refines(sym.grr(10**4, 1.0), sym.grr(10**4, 2.0))
    >>> r.holds, r.counterexample.gap > 0
    (False, True)
    >>> r = sym.refines(sym.grr(3, 40.0), sym.grr(3, 41.0))  # 1 - q rounds to 1
    >>> r.holds, r.exact, r.counterexample.gap_exact > 0
    (False, True, True)
    """
    _check_pair(A, B)
    clock = _Clock(_check_time_limit(time_limit))
    exact = _check_exact(exact)
    r = _decide(A, B, clock, exact)
    if exact is True and not r.exact:
        return _confirm_exact(A, B, r, clock)
    return r


def _decide_pair(
    A: SymmetricChannel, B: SymmetricChannel, clock: _Clock, exact: bool | None, st: _State
) -> RefinementResult:
    """Steps 0-4 of :func:`refines` for two channels with different class masses."""
    t0 = clock.t0
    k = A.k
    # 0. one-hot pairs whose bit channels refine: the lifted witness w^{⊗k} (Lemma 4)
    lift = lifted_refinement(A, B)
    if lift is not None:
        Wb, err, r2 = lift
        return RefinementResult(
            True,
            witness=Wb,
            method="symmetric: bitwise lifting",
            certified_by=(
                f"bitwise lifting (QIF paper, Lemma 4): the bit channels refine "
                f"({r2.certified_by}), and A·w^{{⊗k}} matches B class by class within a "
                f"relative {err:.2e} (the rounding of the product forms: A's and B's class "
                "masses against their bit channels, and of b_A·w)"
            ),
            residual=err,
            row_sum_error=float(np.abs(Wb.w.sum(axis=1) - 1).max()),
            min_entry=float(Wb.w.min()),
            time=time.perf_counter() - t0,
            details={"bit_witness": Wb.w, "bit_result": r2},
        )
    # 1. cheap gains: likelihood ratio beyond eps(A), then the identity (Bayes capacity)
    n_terms = 2 * A.sizes.size
    pre = _Problem.__new__(_Problem)
    pre.A, pre.B, pre.n_terms_max = A, B, n_terms
    cheap = [(SymmetricGain.identity(k), "identity gain (Bayes capacity)"), *_eps_gains(A, B)]
    for G, what in cheap:
        c = _consider_gain(pre, st, G, what)
        if c is not None:
            return _fails_float(c, k, t0, {})
        clock.check("the gain checks before the orbit LP")
    # 2. the orbit LP
    n_var_est = 2 * A.sizes.size * B.sizes.size
    mem = n_var_est * ORBIT_LP_BYTES_PER_VARIABLE
    if n_var_est > MAX_ORBIT_VARIABLES or mem > ORBIT_LP_MEMORY_BYTES:
        msg = (
            f"the orbit LP for k = {k} would have ~{n_var_est} variables "
            f"(2 |sizes(A)| |sizes(B)| = 2 x {A.sizes.size} x {B.sizes.size}) and need "
            f"~{mem / 2**30:.3g} GiB (ORBIT_LP_BYTES_PER_VARIABLE = "
            f"{ORBIT_LP_BYTES_PER_VARIABLE} bytes each); the limits are MAX_ORBIT_VARIABLES = "
            f"{MAX_ORBIT_VARIABLES} and ORBIT_LP_MEMORY_BYTES = {ORBIT_LP_MEMORY_BYTES / 2**30:g}"
            " GiB. No counterexample was found by the cheap gains (ldp_epsilon, Bayes "
            "capacity); compare other measures (qifldp.symmetric.g_vulnerability with a "
            "SymmetricGain), or decide a smaller k"
        )
        raise SizeError(msg)
    P = _Problem(A, B)
    P.n_terms_max = max(P.n_terms_max, 1)
    clock.n_var = P.n_var
    # the band allowance of the cheap gains used the bound n = 2 |sizes(A)| >= P.n_terms_max
    st.gains = [c for c in st.gains]
    bounds = (0, None)
    res = _solve(P.c, P.A_eq, P.rhs / P.sigma, bounds, clock, "the orbit LP")
    delta = float(res.fun)
    details: dict[str, Any] = {
        "n_variables": P.n_var,
        "n_equations": int(P.M.shape[0]),
        "lp_least_residual": delta,
    }

    def done_fails(c: _GainCandidate) -> RefinementResult:
        return _fails_float(c, k, t0, details)

    u = None
    for rnd in range(REFINEMENT_ROUNDS + 1):
        clock.check("the certificate checks")
        if rnd == 0:
            G = _lp_gain(res.eqlin.marginals, P.sigma, P.nS, B, P.b_rows)
            cand = P.clean(np.asarray(res.x[: P.n_var], dtype=np.float64))
            tag = "Farkas dual of the orbit LP"
            c = _consider_gain(P, st, G, f"{tag} as a symmetric gain")
            if c is not None:
                return done_fails(c)
            in_band = P.check(cand)[0]
            if not in_band:  # the relative LP (every class of B at its own scale)
                try:
                    rel = _solve(
                        P.rel_c, P.rel_A_eq, P.rel_b, P.rel_bounds, clock, "the relative LP"
                    )
                except SolverError:
                    if clock.left() <= 0:
                        raise
                    rel = None
                if rel is not None:
                    G = _lp_gain(rel.eqlin.marginals, P.rel_rows, P.nS, B, P.b_rows)
                    alt = P.clean(P.rel_cols * np.asarray(rel.x[: P.n_var], dtype=np.float64))
                    tag = "Farkas dual of the relative orbit LP"
                    if P.check(alt)[4] < P.check(cand)[4]:
                        cand = alt
        else:
            G, cand = res
            tag = f"dual of refinement LP {rnd}"
        c = _consider_gain(P, st, G, f"{tag} as a symmetric gain")
        if c is not None:
            return done_fails(c)
        for v in (cand, None):
            if v is None:
                v = P.polish(cand)
                if v is None:
                    break
            in_band, in_input, resid, row_err, excess = P.check(v)
            if st.best_witness is None or excess < st.best_witness[4]:
                st.best_witness = (v, resid, row_err, in_input, excess)
            if in_band:
                st.band_witness = (v, resid, row_err)
                break
        if st.band_witness is not None:
            break
        u = st.best_witness[0]
        if rnd == REFINEMENT_ROUNDS:
            break
        try:
            res = P.refinement_lp(u, clock, f"refinement LP {rnd + 1}")
        except SolverError as exc:
            if clock.left() <= 0:
                raise
            st.notes.append(str(exc))
            break
        if res is None:
            break
    # 4. exact arithmetic and the final table
    clock.check("the exact checks")
    if st.band_witness is not None:
        v, resid, row_err = st.band_witness
        band_how = (
            f"orbit witness: every orbit equation within the rounding band "
            f"{ORBIT_BAND_FACTOR:g} (n_e + 2) u ((M u)_e + rhs_e) including the rigorous "
            f"evaluation error (max residual {resid:.2e}, rows within {row_err:.1e}, "
            "entries >= 0)"
        )
        exact_res, why = (
            _exact_support_result(P, v, t0, details) if exact is not False else (None, _NO_EXACT)
        )
        if exact_res is not None:
            return exact_res
        exact_tried = "skipped" not in why
        c = _exact_gain(st, P, clock) if exact_tried else None
        if c is None:
            return _witness_result(
                P,
                v,
                resid,
                row_err,
                band_how + f"; {why}",
                t0,
                method="symmetric: orbit LP (HiGHS)",
                details=details,
            )
        stored = (
            f"the stored floats fail exactly (exact gap {float(_exact_of(c)):.3e} of the "
            f"{c.source}), by less than the rounding band"
        )
        return _witness_result(
            P,
            v,
            resid,
            row_err,
            f"{band_how}; {stored}",
            t0,
            method="symmetric: orbit LP (HiGHS)",
            details=details,
            up_to_rounding=True,
            about="rounding",
        )
    c = _exact_gain(st, P, clock) if exact is not False else None
    if c is not None and _exact_of(c) <= c.allowance and st.best_witness[3]:
        v, resid, row_err, _, excess = st.best_witness
        return _witness_result(
            P,
            v,
            resid,
            row_err,
            (
                f"up to rounding: the stored floats fail exactly (exact gap "
                f"{float(_exact_of(c)):.3e} of the {c.source}), by less than the "
                f"{c.allowance:.1e} a pair within the rounding band can have, and the best "
                f"orbit witness (max residual {resid:.2e}) is within the band of the inputs' "
                f"own rounding ({INPUT_BAND_FACTOR:g} u (1 + |ln P|) per class mass)"
            ),
            t0,
            method="symmetric: orbit LP (HiGHS) + exact",
            details=details,
            up_to_rounding=True,
            about="rounding",
        )
    if c is not None and _exact_of(c) <= c.allowance:
        # a gap that rounding of the masses explains: the stored floats fail, but a pair
        # with equal likelihood ratios is decided for the real channels first (otherwise
        # the verdict would depend on which of the two routes the time budget reaches)
        tight = _tight_ratio_result(
            P,
            clock,
            details,
            f"the stored floats fail exactly by a rounding-sized gap "
            f"{float(_exact_of(c)):.3e} <= {c.allowance:.1e}",
        )
        if tight is not None:
            return tight
    if c is not None:
        ce = Counterexample(
            c.G,
            _uniform(k),
            c.ev.gap if c.ev.gap > 0 else float(_exact_of(c)),
            gap_exact=c.gap_exact,
            gap_bound=c.ev.bound,
            vulnerability_a=c.ev.va,
            vulnerability_b=c.ev.vb,
        )
        return RefinementResult(
            False,
            counterexample=ce,
            method="symmetric: orbit LP (HiGHS) + exact",
            exact=True,
            certified_by=(
                f"{c.source}; exact gap V_g[υ▷B] − V_g[υ▷A] = {float(_exact_of(c)):.3e} > 0 "
                "in rational arithmetic on the stored class masses (float gap "
                f"{c.ev.gap:.3e}, rounding bound {c.ev.bound:.1e}: inconclusive in floats), "
                "and no orbit witness within the rounding band"
            ),
            time=time.perf_counter() - t0,
            details=details,
        )
    v, resid, row_err, in_input, excess = st.best_witness
    exact_res, why = (
        _exact_support_result(P, v, t0, details) if exact is not False else (None, _NO_EXACT)
    )
    if exact_res is not None:
        return exact_res
    if in_input:
        return _witness_result(
            P,
            v,
            resid,
            row_err,
            (
                f"no certificate either way: the best orbit witness misses the rounding band "
                f"(by a factor {excess:.3g}; max residual {resid:.2e}) but is within the band of "
                f"the inputs' own rounding ({INPUT_BAND_FACTOR:g} u (1 + |ln P|) per class "
                f"mass); no gain has a gap above its rounding bound; {why}"
            ),
            t0,
            method="symmetric: orbit LP (HiGHS)",
            details=details,
            up_to_rounding=True,
            about="rounding",
        )
    msg = (
        f"no certificate either way: the best orbit witness misses its equations by {resid:.3e} "
        f"(a factor {excess:.3g} beyond the rounding band, beyond the inputs' rounding too), "
        "and no candidate gain has a provably positive gap"
    )
    tight = _tight_ratio_result(P, clock, details, msg)
    if tight is not None:
        return tight
    if exact is False:
        raise VerificationError(msg + "; exact=False forbids the exact orbit LP; no verdict")
    return _exact_orbit_result(P, v, clock, details, msg)


# --------------------------------------------------------------------------------------
# max-case refinement: a two-dimensional cone per class of B
# --------------------------------------------------------------------------------------
#: Relative band (in log space, per class) within which a max-case comparison is left to
#: the tight-ratio premise: 64 u (1 + the largest |log| involved).
_MAX_CASE_BAND: float = 64.0 * _U


def _generators(
    A: SymmetricChannel, t: int, logs: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, ...]:
    """For B's class size t: A's columns averaged over the stabiliser of T, in log space.

    Rows (s, j) over A's sizes and the two extreme overlaps j; returns (s index, j,
    log of the value at x in T, log of the value at x not in T, pure), ``pure`` True where
    the average is one entry of A (a_s or b_s on each side: its ratio is A's closed form).
    """
    k = A.k
    la, lb = (A.log_a, A.log_b) if logs is None else logs
    idx = np.arange(A.sizes.size)
    s = A.sizes
    lo, hi = overlap_range(k, s, np.full(s.size, t))
    ii = np.concatenate([idx, idx])
    jj = np.concatenate([lo, hi])
    ss = s[ii]
    with np.errstate(divide="ignore"):
        fin = jj / t if t > 0 else np.zeros(jj.size)
        fout = (ss - jj) / (k - t) if t < k else np.zeros(jj.size)
        log_in = np.logaddexp(la[ii] + np.log(fin), lb[ii] + np.log1p(-fin))
        log_out = np.logaddexp(la[ii] + np.log(fout), lb[ii] + np.log1p(-fout))
    pure = ((fin == 1) & (fout == 0)) | ((fin == 0) & (fout == 1))
    return ii, jj, log_in, log_out, pure


def max_case_refines(
    A: SymmetricChannel, B: SymmetricChannel, *, time_limit: float = 120.0
) -> RefinementResult:
    """Decide A ⊑max B for symmetric channels: every column of B in the cone of A's columns.

    Parameters
    ----------
    A, B : SymmetricChannel
        Over the same k.
    time_limit : float
        Seconds (checked between classes).

    Returns
    -------
    qifldp.refinement.result.RefinementResult
        ``relation`` "max-case refinement". ``witness`` an :class:`OrbitWitness` of R
        (``mass[i]`` = Σ R[S, T] over the T of class (t, j) relative to S; rows need
        not sum to 1; ``inf`` where an orbit mass exceeds the float range, k beyond
        ~1000), or ``counterexample`` a one-action gain over the inputs
        (1 on T, −c off T) separating a column T of B from A's cone.

    Raises
    ------
    InputTypeError, ChannelError, ParameterError
        As :func:`refines`.
    VerificationError
        A class of B lies within the rounding band of its cone's boundary and the
        tight-ratio premise (below) does not apply.

    Notes
    -----
    If B[:, T] = Σ_S λ_S A[:, S] with λ >= 0, averaging λ over the permutations that
    fix T gives weights constant on the orbits (s, j = |S ∩ T|), so B[:, T] lies in the
    cone of the orbit averages, vectors with one value on T and one off T: the test
    is two-dimensional. With c_in(s, j) = a_s j/t + b_s (1 − j/t) and c_out(s, j) =
    a_s (s−j)/(k−t) + b_s (1 − (s−j)/(k−t)), linear in j (the extreme overlaps
    suffice), the inner class t of B (entries a_t on T, b_t off T) is in the cone iff
    min_{s,j} c_in/c_out <= a_t / b_t <= max_{s,j} c_in/c_out; the corner classes
    (t = 0, k) always are. O(|sizes(A)| |sizes(B)|). A ratio within
    64 u (1 + |log|) of an end of its interval is on the boundary: it counts as
    inside when the end is one of A's own classes whose stored closed-form log-ratio
    equals B's to the last bit (premise: the real ratios are then equal, as for SUE
    and OUE at the same eps; ``about`` "protocols"), else VerificationError.
    Measured: SUE vs OUE at k = 1000, ~1 s (numpy per class; k = 10^4 ~100 s).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> from qifldp.symmetric.refinement import max_case_refines
    >>> max_case_refines(sym.sue(50, 2.0), sym.oue(50, 2.0)).holds
    True
    >>> max_case_refines(sym.grr(100, 1.0), sym.grr(100, 2.0)).holds
    False
    """
    _check_pair(A, B)
    clock = _Clock(_check_time_limit(time_limit))
    k = A.k
    rows_s: list[int] = []
    rows_t: list[int] = []
    rows_j: list[int] = []
    rows_mass: list[float] = []
    premise = False
    logsA = (A.log_a, A.log_b)
    logaB, logbB, ratioB = B.log_a, B.log_b, B.log_ratio
    logck = log_comb(k, np.arange(k + 1))
    for i, t in enumerate(B.sizes.tolist()):
        clock.check("the max-case classes")
        ii, jj, lin, lout, pure = _generators(A, t, logsA)
        if t in (0, k):  # one coordinate: any generator positive there
            val = lout if t == 0 else lin
            g = int(np.argmax(val))
            if not np.isfinite(val[g]):
                return _max_case_fails_corner(A, B, t, clock)
            target = float(logbB[i] if t == 0 else logaB[i])
            mu = [(g, target - float(val[g]))]
        else:
            lr = lin - lout  # log c_in / c_out (+-inf where one side is 0)
            rb = float(ratioB[i])
            ok = np.isfinite(lin) & np.isfinite(lout)
            mag = np.maximum(np.abs(lin), np.abs(lout))
            band = _MAX_CASE_BAND * (1 + np.where(np.isfinite(mag), mag, 0.0))
            band_b = _MAX_CASE_BAND * (1 + abs(float(logaB[i])) + abs(float(logbB[i])))
            # a generator with exactly B's ratio (the pure one, same closed form): premise
            exactly = ok & pure & (_pure_ratio(A, ii, jj, t) == rb)
            valid = ok | np.isinf(lr)
            top = float(np.max(np.where(valid, lr, -np.inf)))
            bot = float(np.min(np.where(valid, lr, np.inf)))
            gt = int(np.argmax(np.where(valid, lr, -np.inf)))
            gb = int(np.argmin(np.where(valid, lr, np.inf)))
            interior = top - rb > band[gt] + band_b and rb - bot > band[gb] + band_b
            # the two extreme generators: the widest angle, the best-conditioned solve
            pair = (
                _two_generators(float(logaB[i]), float(logbB[i]), gt, gb, lin, lout)
                if interior
                else None
            )
            if pair is not None:
                mu = pair
            elif np.any(exactly):  # on the cone's edge, at one of A's own classes
                g = int(np.flatnonzero(exactly)[0])
                mu = [(g, float(logaB[i] - lin[g]))]
                premise = True
            elif rb - top > band[gt] + band_b or bot - rb > band[gb] + band_b:
                return _max_case_fails(A, B, i, t, top, bot, rb, clock)
            else:
                dist = min(abs(rb - top), abs(rb - bot))
                msg = (
                    f"max-case refinement: B's class of size {t} (log-ratio {rb!r}) is within "
                    f"the rounding band of the edge of A's cone (distance {dist:.2e}), and no "
                    "class of A has the same closed-form ratio; no verdict"
                )
                raise VerificationError(msg)
        for g, lm in mu:
            sidx, j = int(ii[g]), int(jj[g])
            sv = int(A.sizes[sidx])
            # u(s, t, j) = μ C(k, t) / C(k, s) (R[S, T] = μ / (C(t, j) C(k-t, s-j)))
            lcs = float(logck[t] - logck[sv])
            rows_s.append(sv)
            rows_t.append(t)
            rows_j.append(j)
            rows_mass.append(math.exp(lm + lcs) if lm + lcs < 709.0 else math.inf)
    W = OrbitWitness(
        k,
        np.array(rows_s),
        np.array(rows_t),
        np.array(rows_j),
        np.array(rows_mass),
        0.0,
        A,
        B,
    )
    how = (
        "every class of B lies in the two-dimensional cone of A's orbit-averaged columns "
        "(ratio a_t / b_t between the extreme generator ratios, beyond the rounding band)"
    )
    if premise:
        how += (
            "; classes on the cone's edge coincide with one of A's own classes, whose stored "
            "closed-form log-ratio equals B's to the last bit (premise: equal real ratios, as "
            "for SUE and OUE at the same eps)"
        )
    return RefinementResult(
        True,
        witness=W,
        relation="max-case refinement",
        method="symmetric: max-case cones",
        certified_by=how,
        residual=0.0,
        min_entry=0.0,
        time=time.perf_counter() - clock.t0,
        about="protocols" if premise else "channels",
    )


def _pure_ratio(A: SymmetricChannel, ii: np.ndarray, jj: np.ndarray, t: int) -> np.ndarray:
    """The closed-form log ratio of a pure generator: ±A.log_ratio of its class (nan otherwise)."""
    k = A.k
    s = A.sizes[ii]
    r = A.log_ratio[ii]
    fin_one = jj == t  # value a_s on T
    fout_zero = (s - jj) == 0  # value b_s off T
    fin_zero = jj == 0
    fout_one = (s - jj) == (k - t)
    return np.where(fin_one & fout_zero, r, np.where(fin_zero & fout_one, -r, np.nan))


def _two_generators(la_b, lb_b, g1, g2, lin, lout):
    """[(g, log μ)] with μ1 v1 + μ2 v2 = (a, b), μ >= 0, v = (c_in, c_out); None if singular.

    Each column and the target are scaled by their larger coordinate (log space), so
    classes of mass 1e-300 solve as well as classes of mass 1.
    """
    if g1 == g2:
        return [(g1, la_b - float(lin[g1]))]
    sc = [max(float(lin[g]), float(lout[g])) for g in (g1, g2)]
    st = max(la_b, lb_b)
    v = [
        (math.exp(float(lin[g]) - c), math.exp(float(lout[g]) - c))
        for g, c in zip((g1, g2), sc, strict=True)
    ]
    a, b = math.exp(la_b - st), math.exp(lb_b - st)
    det = v[0][0] * v[1][1] - v[1][0] * v[0][1]
    if det == 0:
        return None
    m1 = (a * v[1][1] - v[1][0] * b) / det
    m2 = (v[0][0] * b - v[0][1] * a) / det
    if m1 < 0 or m2 < 0:
        return None
    return [(g, math.log(m) + st - c) for g, m, c in ((g1, m1, sc[0]), (g2, m2, sc[1])) if m > 0]


def _max_case_fails(A, B, i, t, top, bot, rb, clock) -> RefinementResult:
    """A column T of B outside A's cone: the gain 1 on T, −c off T separates it."""
    k = A.k
    if rb > top:  # c between max ratio and B's (geometric mean in log space)
        c = math.exp(0.5 * (top + rb)) if math.isfinite(top) else math.exp(rb) / 2
        g = np.where(np.arange(k) < t, 1.0, -c * t / (k - t))
    else:
        c = math.exp(0.5 * (bot + rb)) if math.isfinite(bot) else math.exp(rb) * 2
        g = np.where(np.arange(k) < t, -1.0, c * t / (k - t))
    g = g / np.abs(g).max()
    ce = Counterexample(
        g[None, :],
        _uniform(k),
        _max_case_gap(A, B, g, t),
        kind="max-case",
    )
    return RefinementResult(
        False,
        counterexample=ce,
        relation="max-case refinement",
        method="symmetric: max-case cones",
        certified_by=(
            f"B's class of size {t} has log-ratio {rb:.6g} outside [{bot:.6g}, {top:.6g}] "
            "(the extreme ratios of A's orbit-averaged columns), beyond the rounding band; "
            "the gain 1 on T = {0..t-1}, −c off T separates it"
        ),
        time=time.perf_counter() - clock.t0,
    )


def _max_case_gap(A: SymmetricChannel, B: SymmetricChannel, g: np.ndarray, t: int) -> float:
    """V_g^max[υ▷B] − V_g^max[υ▷A] for the gain g (g_in on {0..t-1}, g_out elsewhere)."""
    gi, go = float(g[0]), float(g[-1])

    def vmax(C: SymmetricChannel) -> float:
        ii, jj, lin, lout, _ = _generators(C, t)
        with np.errstate(invalid="ignore"):
            num = t * gi * np.exp(lin) + (k - t) * go * np.exp(lout)
            den = t * np.exp(lin) + (k - t) * np.exp(lout)
        ok = den > 0
        return float(np.max(num[ok] / den[ok]))

    k = A.k
    return vmax(B) - vmax(A)


def _max_case_fails_corner(A, B, t, clock) -> RefinementResult:  # pragma: no cover
    msg = f"max-case refinement: A has no column with mass on B's corner class of size {t}"
    raise VerificationError(msg)
