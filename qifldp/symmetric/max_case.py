"""Max-case refinement between symmetric channels: a two-dimensional cone test per class of B."""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from .. import deadline
from ..errors import (
    ChannelError,
    InputTypeError,
    ParameterError,
    SizeError,
    SolverError,
    VerificationError,
)
from ..refinement.exact import exact_weighted_gap
from ..refinement.exact_gap import state_gap_exactly
from ..refinement.result import (
    Counterexample,
    RefinementResult,
    undecided_result,
)
from .binomial import log_comb
from .channel import SymmetricChannel
from .gain import overlap_range
from .orbit_certify import (
    UNIT_ROUNDOFF as _U,
)
from .orbit_lp import (
    Clock,
    check_kinds,
    check_pair,
    check_time_limit,
    uniform_prior,
)
from .orbit_witness import (
    OrbitWitness,
)

__all__ = [
    "max_case_refines",
    "max_case_refines_symmetric",
    "exact_max_case_gap_symmetric",
    "recheck_max_case_gain",
    "EXACT_MAX_CASE_TERMS",
]


# --------------------------------------------------------------------------------------
# max-case refinement: a two-dimensional cone per class of B
# --------------------------------------------------------------------------------------
#: Relative band (in log space, per class) within which a max-case comparison is left to
#: the tight-ratio premise: 64 u (1 + the largest |log| involved).
_MAX_CASE_BAND: float = 64.0 * _U


def _generator_logs(
    la: np.ndarray, lb: np.ndarray, s: np.ndarray, k: int, t: Any, jj: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log value at x in T, log value at x not in T, pure) of the orbit averages of the
    columns of classes (log a_s = ``la``, log b_s = ``lb``, size ``s``) at overlap ``jj``
    with a set T of size ``t`` (a number or an array broadcasting with the others)."""
    t = np.asarray(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        fin = np.where(t > 0, jj / np.where(t > 0, t, 1), 0.0)
        fout = np.where(t < k, (s - jj) / np.where(t < k, k - t, 1), 0.0)
        log_in = np.logaddexp(la + np.log(fin), lb + np.log1p(-fin))
        log_out = np.logaddexp(la + np.log(fout), lb + np.log1p(-fout))
    pure = ((fin == 1) & (fout == 0)) | ((fin == 0) & (fout == 1))
    return log_in, log_out, pure


def _generators(A: SymmetricChannel, t: int) -> tuple[np.ndarray, ...]:
    """For B's class size t: A's columns averaged over the stabiliser of T, in log space.

    Rows (s, j) over A's sizes and the two extreme overlaps j; returns (s index, j,
    log of the value at x in T, log of the value at x not in T, pure), ``pure`` True where
    the average is one entry of A (a_s or b_s on each side: its ratio is A's closed form).
    """
    k = A.k
    la, lb = A.log_a, A.log_b
    idx = np.arange(A.sizes.size)
    s = A.sizes
    lo, hi = overlap_range(k, s, np.full(s.size, t))
    ii = np.concatenate([idx, idx])
    jj = np.concatenate([lo, hi])
    log_in, log_out, pure = _generator_logs(la[ii], lb[ii], s[ii], k, t, jj)
    return ii, jj, log_in, log_out, pure


def max_case_refines(
    A: SymmetricChannel,
    B: SymmetricChannel,
    *,
    time_limit: float = 120.0,
    method: str = "sorted",
) -> RefinementResult:
    """Decide A ⊑max B for symmetric channels: every column of B in the cone of A's columns.

    Parameters
    ----------
    A, B, time_limit
        As :func:`~qifldp.symmetric.refinement.refines` (``time_limit`` is checked
        between O(k) steps, and a step the time left cannot pay for, judged by the
        longest step so far, is not started: :func:`qifldp.deadline.affordable`).
    method : {"sorted", "scan"}
        "sorted" (default): the extreme generators of every class of B from prefix
        and suffix extremes over A's sorted sizes, O(k log k); "scan": every
        generator of A for every class of B, O(|sizes(A)| |sizes(B)|), the
        reference (same verdicts).

    Returns
    -------
    qifldp.refinement.result.RefinementResult
        ``relation`` "max-case refinement". ``witness`` an :class:`OrbitWitness` of R
        (``mass[i]`` = Σ R[S, T] over the T of class (t, j) relative to S; rows need
        not sum to 1; ``inf`` where an orbit mass exceeds the float range, k beyond
        ~1000), or ``counterexample`` a one-action gain over the inputs
        (1 on T, −c off T) separating a column T of B from A's cone; a gap below
        EXACT_GAP_RELATIVE (1e-12) of |V_g| <= 1 is computed exactly on the stored
        class masses (``gap_exact``, :func:`exact_max_case_gap_symmetric`) and
        ``gap`` is that value rounded.

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
    (t = 0, k) always are. A ratio within
    64 u (1 + |log|) of an end of its interval is on the boundary: it counts as
    inside when the end is one of A's own classes whose real ratio is proved equal to
    B's, exactly: the same stored class, or both channels' closed-form
    :attr:`~SymmetricChannel.exact_log_ratio` equal (the protocols' eps, as for SUE,
    OUE, GRR, SS and LH at the same eps; ``about`` "protocols"). Otherwise such a
    class has no verdict; when no other class lies outside the cone beyond the band,
    VerificationError.
    The extremes need no scan: with r_s = a_s / b_s, x_s = (r_s - 1) s and
    y_s = (k - s) / r_s + s, the ratio of class s against class t is 1 + x_s / t
    (s <= t, j = s), (k - t) / (y_s - t) (s > t, j = t), (k - t) / (k - t + x_s)
    (s <= k - t, j = 0) or (y_s + t - k) / t (s > k - t), each monotone in x_s or y_s;
    running extremes of x and y over A's sorted sizes give eight candidates per class
    (``method="sorted"``), whose log ratios are formed as the scan forms them; a class
    those candidates do not place inside the cone beyond the band, nor on the edge
    at a proved-equal class, gets the scan, which decides it (so "fails" and
    "undecided" are always the scan's). Every class's weights are re-checked against
    its two coordinates before return (relative residual <= 1e-12; ``residual`` of
    the witness bounds the class-mass error). Measured (benchmarks/bench_lumped.py,
    2 loaded cores): SUE ⊑ OUE, OUE ⊑ THE, GRR vs BLH at k = 10^3 in 0.05 s (the scan:
    11-15 s), k = 10^4 in 0.3 s, k = 10^5 in 1.5-2 s, k = 10^6 in 11-17 s and ~550 MB
    peak.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> from qifldp.symmetric.max_case import max_case_refines
    >>> max_case_refines(sym.sue(50, 2.0), sym.oue(50, 2.0)).holds
    True
    >>> max_case_refines(sym.grr(100, 1.0), sym.grr(100, 2.0)).holds
    False
    """
    check_pair(A, B)
    if method not in ("sorted", "scan"):
        msg = f"method must be 'sorted' or 'scan', got {method!r}"
        raise ParameterError(msg)
    with deadline.budget(check_time_limit(time_limit)):  # the decision's one deadline
        clock = Clock()
        try:
            return _max_case_decide(A, B, method, clock)
        except SolverError as exc:
            clock.restate(exc)
            raise


def _max_case_decide(
    A: SymmetricChannel, B: SymmetricChannel, method: str, clock: Clock
) -> RefinementResult:
    """The classes of B, one cone test each (see :func:`max_case_refines`)."""
    k = A.k
    rows = _Rows(A, B, clock)
    sizes = B.sizes
    inner = np.flatnonzero((sizes > 0) & (sizes < k))
    for i in np.flatnonzero((sizes == 0) | (sizes == k)).tolist():  # the corner classes
        clock.check("the max-case classes")
        _corner_class(A, B, i, rows, clock)
    if method == "sorted":
        inner = _classes_sorted(A, B, inner, rows, clock)
    for i in inner.tolist():  # classes the sorted extremes left open: every generator of A
        clock.check("the max-case classes")
        failed = _class_by_scan(A, B, i, rows, clock)
        if failed is not None:
            return failed
    if rows.undecided:
        n = len(rows.undecided)
        more = f" ({n - 1} more such classes)" if n > 1 else ""
        msg = f"max-case refinement: {rows.undecided[0]}{more}; no class fails; no verdict"
        raise VerificationError(msg)
    clock.check("the max-case witness")
    W = rows.witness()
    how = (
        "every class of B lies in the two-dimensional cone of A's orbit-averaged columns "
        "(ratio a_t / b_t between the extreme generator ratios, beyond the rounding band); "
        "each class's weights re-checked against its two coordinates (largest relative "
        f"residual {rows.rel_max:.2g})"
    )
    if rows.premise:
        how += (
            "; classes on the cone's edge are proportional to one of A's own classes: both "
            "channels' closed forms give every class the real log-ratio exact_log_ratio (the "
            "protocols' eps, equal: e.g. SUE, OUE and GRR at the same eps), so the ratios are "
            "equal in the reals although their stored floats differ in the last bits"
        )
    return RefinementResult(
        True,
        witness=W,
        relation="max-case refinement",
        method="symmetric: max-case cones",
        certified_by=how,
        residual=W.residual,
        min_entry=0.0,
        time=time.perf_counter() - clock.t0,
        about="protocols" if rows.premise else "channels",
    )


#: Largest relative residual (per class, against the larger of its two coordinates) of a
#: class's weights solved from two generators: the 2 x 2 solve in scaled floats is
#: accurate to a few u unless the two generators are nearly parallel, which leaves the
#: class to the scan.
_SOLVE_RTOL: float = 1e-12


class _Rows:
    """The witness being built: orbit rows (s, t, j, log u), the largest relative residual
    and the residual bound in class masses, the premise flag, the classes left undecided."""

    def __init__(self, A: SymmetricChannel, B: SymmetricChannel, clock: Clock) -> None:
        self.A, self.B = A, B
        for C in (A, B):  # the entries, each an O(k) pass on first access (then kept)
            for entries in ("log_a", "log_b"):
                clock.check("the max-case entries")
                getattr(C, entries)
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.rel_max = 0.0
        self.residual = 0.0
        self.premise = False
        self.undecided: list[str] = []
        self._logck: np.ndarray | None = None

    def add(self, sidx, t, j, log_mu, i, rel) -> None:
        """Rows u(s, t, j) = μ C(k, t) / C(k, s) (R[S, T] = μ / (C(t, j) C(k-t, s-j))) for
        generator weights ``log_mu`` of B's classes ``i``; ``rel`` their relative residuals."""
        k = self.A.k
        if self._logck is None:
            self._logck = log_comb(k, np.arange(k + 1))
        sv = self.A.sizes[sidx]
        lu = log_mu + self._logck[t] - self._logck[sv]
        with np.errstate(over="ignore"):
            mass = np.where(lu < 709.0, np.exp(np.minimum(lu, 709.0)), np.inf)
        shape = np.shape(sv)
        self.parts.append((sv, np.broadcast_to(t, shape), np.broadcast_to(j, shape), mass))
        rel = np.asarray(rel, dtype=np.float64)
        if rel.size:
            self.rel_max = max(self.rel_max, float(rel.max()))
            # |Pr_{A·W} − Pr_B| per class: rel x max(a_t, b_t) x the larger binomial count
            ib = np.asarray(i)
            tb = self.B.sizes[ib]
            la, lb = self.B.log_a[ib], self.B.log_b[ib]
            # log max(C(k-1, t-1), C(k-1, t)) = log C(k, t) + log(max(t, k-t) / k), with room
            lc = self._logck[tb] + np.log(np.maximum(tb, k - tb) / k) + 1e-9
            with np.errstate(divide="ignore"):
                bound = np.exp(np.log(rel) + np.maximum(la, lb) + lc)
            self.residual = max(self.residual, float(bound.max()))

    def witness(self) -> OrbitWitness:
        cat = [np.concatenate([p[c].ravel() for p in self.parts]) for c in range(4)]
        if not self.parts:  # pragma: no cover - B has at least one class
            cat = [np.zeros(0, dtype=np.int64)] * 3 + [np.zeros(0)]
        s, t, j, mass = cat
        keep = mass > 0
        return OrbitWitness(
            self.A.k,
            s[keep].astype(np.int64),
            t[keep].astype(np.int64),
            j[keep].astype(np.int64),
            mass[keep],
            self.residual,
            self.A,
            self.B,
        )


def _corner_class(A, B, i: int, rows: _Rows, clock) -> None:
    """B's class of size 0 or k (one coordinate): any generator positive there spans it."""
    t = int(B.sizes[i])
    h = int(np.argmax(np.maximum(A.log_in, A.log_out)))  # A's heaviest class first
    ii = np.array([h])
    jj = np.array([int(A.sizes[h]) if t else 0])
    lin, lout, _ = _generator_logs(A.log_a[ii], A.log_b[ii], A.sizes[ii], A.k, t, jj)
    val = lout if t == 0 else lin
    g = 0
    if not np.isfinite(val[g]):  # else the largest value over all of A's generators
        ii, jj, lin, lout, _ = _generators(A, t)
        val = lout if t == 0 else lin
        g = int(np.argmax(val))
    if not np.isfinite(val[g]):
        _max_case_fails_corner(A, B, t, clock)
    target = float(B.log_b[i] if t == 0 else B.log_a[i])
    rows.add(ii[g : g + 1], t, jj[g : g + 1], np.array([target - float(val[g])]), [i], [0.0])


def _class_by_scan(A, B, i: int, rows: _Rows, clock) -> RefinementResult | None:
    """One inner class of B against every generator of A (O(|sizes(A)|)): rows added, a
    verdict of "fails" returned, or the class recorded as undecided."""
    t = int(B.sizes[i])
    la_b, lb_b, rb = float(B.log_a[i]), float(B.log_b[i]), float(B.log_ratio[i])
    ii, jj, lin, lout, pure = _generators(A, t)
    with np.errstate(invalid="ignore"):
        lr = lin - lout  # log c_in / c_out (+-inf where one side is 0)
    ok = np.isfinite(lin) & np.isfinite(lout)
    mag = np.maximum(np.abs(lin), np.abs(lout))
    band = _MAX_CASE_BAND * (1 + np.where(np.isfinite(mag), mag, 0.0))
    band_b = _MAX_CASE_BAND * (1 + abs(la_b) + abs(lb_b))
    # a generator with exactly B's ratio (a pure one, equal real ratio): premise
    same, proved = _equal_ratio(A, B, i, ii, jj, t)
    exactly = ok & pure & (same | proved)
    valid = ok | np.isinf(lr)
    top = float(np.max(np.where(valid, lr, -np.inf)))
    bot = float(np.min(np.where(valid, lr, np.inf)))
    gt = int(np.argmax(np.where(valid, lr, -np.inf)))
    gb = int(np.argmin(np.where(valid, lr, np.inf)))
    if top - rb > band[gt] + band_b and rb - bot > band[gb] + band_b:
        # the two extreme generators: the widest angle, the best-conditioned solve
        g = np.array([gt, gb])
        lm, rel, good = _solve_pairs(
            np.array([la_b]), np.array([lb_b]), lin[g[:1]], lout[g[:1]], lin[g[1:]], lout[g[1:]]
        )
        if good[0]:
            rows.add(ii[g], t, jj[g], lm[:, 0], [i], rel)
            return None
    if np.any(exactly):  # on the cone's edge, at one of A's own classes
        g1 = int(
            np.flatnonzero(exactly & same)[0]
            if np.any(exactly & same)
            else np.flatnonzero(exactly)[0]
        )
        lm1, rel1 = _one_generator(la_b, lb_b, lin[g1], lout[g1])
        rows.add(ii[g1 : g1 + 1], t, jj[g1 : g1 + 1], np.array([lm1]), [i], [rel1])
        rows.premise = rows.premise or not bool(same[g1])
        return None
    if rb - top > band[gt] + band_b or bot - rb > band[gb] + band_b:
        return _max_case_fails(A, B, i, t, top, bot, rb, clock)
    dist = min(abs(rb - top), abs(rb - bot))  # no verdict here: a later class may still fail
    rows.undecided.append(
        f"B's class of size {t} (log-ratio {rb!r}) is within the rounding band of "
        f"the edge of A's cone (distance {dist:.2e}), and no class of A is proved "
        "to have the same real ratio (equal exact_log_ratio, or the same stored class)"
    )
    return None


def _one_generator(la_b: float, lb_b: float, lin: float, lout: float) -> tuple[float, float]:
    """(log μ, relative residual) of μ (c_in, c_out) = (a_t, b_t) fitted on the in side."""
    lm = la_b - float(lin)
    st = max(la_b, lb_b)
    rel = abs(math.exp(lm + float(lout) - st) - math.exp(lb_b - st))
    return lm, rel


def _solve_pairs(la_b, lb_b, lin1, lout1, lin2, lout2):
    """μ1 v1 + μ2 v2 = (a, b) per class (arrays), v = (c_in, c_out) of two generators.

    Returns (log μ of shape (2, n), relative residual per class, solved per class): the
    columns and the target scaled by their larger coordinate (log space, so classes of
    mass 1e-300 solve as well as classes of mass 1); solved where the system is regular,
    both μ >= 0 and the residual recomputed from the solution is <= _SOLVE_RTOL. One
    generator (the two the same) fits the in side alone.
    """
    with np.errstate(all="ignore"):
        sc1, sc2 = np.maximum(lin1, lout1), np.maximum(lin2, lout2)
        st = np.maximum(la_b, lb_b)
        v1i, v1o = np.exp(lin1 - sc1), np.exp(lout1 - sc1)
        v2i, v2o = np.exp(lin2 - sc2), np.exp(lout2 - sc2)
        a, b = np.exp(la_b - st), np.exp(lb_b - st)
        det = v1i * v2o - v2i * v1o
        m1 = (a * v2o - v2i * b) / det
        m2 = (v1i * b - v1o * a) / det
        same = (lin1 == lin2) & (lout1 == lout2)
        m1 = np.where(same, a / v1i, m1)
        m2 = np.where(same, 0.0, m2)
        rel = np.maximum(np.abs(m1 * v1i + m2 * v2i - a), np.abs(m1 * v1o + m2 * v2o - b))
        good = (same | (det != 0)) & (m1 >= 0) & (m2 >= 0) & np.isfinite(m1) & np.isfinite(m2)
        good &= rel <= _SOLVE_RTOL
        lm = np.stack([np.log(m1) + st - sc1, np.log(m2) + st - sc2])
    return lm, np.where(good, rel, 0.0), good


def _log_key_x(lr: np.ndarray, s: np.ndarray) -> np.ndarray:
    """A key increasing with x_s = (r_s - 1) s (r_s = a_s / b_s = e^lr), finite or ±inf:
    sign(x) log(1 + |x|) formed from log |x| (no overflow for any lr)."""
    with np.errstate(all="ignore"):
        la = np.where(lr > 0, lr + np.log1p(-np.exp(-lr)), np.log(-np.expm1(np.minimum(lr, 0.0))))
        la = la + np.log(s.astype(np.float64))
        key = np.sign(lr) * np.logaddexp(0.0, la)
    return np.where(np.isnan(key), 0.0, key)


def _log_key_y(lr: np.ndarray, s: np.ndarray, k: int) -> np.ndarray:
    """log y_s, y_s = (k - s) / r_s + s (+inf where r_s = 0)."""
    with np.errstate(all="ignore"):
        key = np.logaddexp(np.log((k - s).astype(np.float64)) - lr, np.log(s.astype(np.float64)))
    return np.where(np.isnan(key), np.inf, key)


def _running_arg(key: np.ndarray, largest: bool) -> np.ndarray:
    """Index of the largest (smallest) key among positions 0..i, for every i."""
    v = key if largest else -key
    best = np.maximum.accumulate(v)
    idx = np.arange(v.size)
    return np.maximum.accumulate(np.where(v == best, idx, 0))


#: Inner classes of B handled per block by :func:`_classes_sorted` (8 candidate generators
#: each: ~10 arrays of 8 x block floats, ~10 MB).
_SORTED_BLOCK: int = 1 << 14


def _classes_sorted(A, B, inner: np.ndarray, rows: _Rows, clock) -> np.ndarray:
    """The inner classes of B decided from the extreme generators found by prefix and
    suffix extremes over A's sorted sizes; returns the classes left to the scan.

    With r_s = a_s / b_s, x_s = (r_s - 1) s and y_s = (k - s) / r_s + s, the generator
    ratios c_in / c_out of A's class s against B's class t are: 1 + x_s / t (s <= t,
    j = s), (k - t) / (y_s - t) (s > t, j = t), (k - t) / (k - t + x_s) (s <= k - t, j = 0)
    and (y_s + t - k) / t (s > k - t, j = s + t - k), each monotone in x_s or y_s. So the
    largest and smallest ratio for every t come from the running extremes of x over the
    sizes <= t or <= k - t and of y over the sizes > t or > k - t: eight candidates per
    class, whose log ratios are then formed as the scan forms them. A class is decided
    here when those candidates put it inside the cone beyond the rounding band (two
    generators, weights re-checked) or when a pure generator has its ratio exactly
    (:func:`_equal_ratio`); any other class (outside, or within the band) is left to the
    scan over every generator, which returns its verdict.
    """
    k = A.k
    sA = A.sizes
    n = sA.size
    la, lb = A.log_a, A.log_b
    with np.errstate(invalid="ignore"):
        lr = la - lb
    kx = _log_key_x(lr, sA)
    ky = _log_key_y(lr, sA, k)
    pmax_x, pmin_x = _running_arg(kx, True), _running_arg(kx, False)
    rev = slice(None, None, -1)
    smax_y = (n - 1 - _running_arg(ky[rev], True))[rev]
    smin_y = (n - 1 - _running_arg(ky[rev], False))[rev]
    ea, eb = A.exact_log_ratio, B.exact_log_ratio
    left: list[np.ndarray] = []
    for start in range(0, inner.size, _SORTED_BLOCK):
        clock.check("the max-case classes")
        ib = inner[start : start + _SORTED_BLOCK]
        t = B.sizes[ib]
        p = np.searchsorted(sA, t, side="right") - 1  # last size <= t
        p2 = np.searchsorted(sA, k - t, side="right") - 1  # last size <= k - t
        q, q2 = p + 1, p2 + 1  # first size > t, > k - t
        pc, p2c = np.maximum(p, 0), np.maximum(p2, 0)
        qc, q2c = np.minimum(q, n - 1), np.minimum(q2, n - 1)
        cand = np.stack(
            [
                pmax_x[pc],
                pmin_x[pc],  # s <= t, j = s
                smin_y[qc],
                smax_y[qc],  # s > t, j = t
                pmin_x[p2c],
                pmax_x[p2c],  # s <= k - t, j = 0
                smax_y[q2c],
                smin_y[q2c],  # s > k - t, j = s + t - k
            ],
            axis=1,
        )
        have = np.stack([p >= 0] * 2 + [q < n] * 2 + [p2 >= 0] * 2 + [q2 < n] * 2, axis=1)
        sc = sA[cand]
        T = t[:, None]
        jj = np.concatenate(
            [
                sc[:, :2],
                np.broadcast_to(T, (t.size, 2)),
                np.zeros((t.size, 2), np.int64),
                sc[:, 6:] + T - k,
            ],
            axis=1,
        )
        lin, lout, _ = _generator_logs(la[cand], lb[cand], sc, k, T, jj)
        with np.errstate(invalid="ignore"):
            glr = lin - lout
        ok = np.isfinite(lin) & np.isfinite(lout)
        valid = have & (ok | np.isinf(glr))
        mag = np.maximum(np.abs(lin), np.abs(lout))
        band = _MAX_CASE_BAND * (1 + np.where(np.isfinite(mag), mag, 0.0))
        la_b, lb_b, rb = B.log_a[ib], B.log_b[ib], B.log_ratio[ib]
        band_b = _MAX_CASE_BAND * (1 + np.abs(la_b) + np.abs(lb_b))
        up = np.where(valid, glr, -np.inf)
        down = np.where(valid, glr, np.inf)
        gt, gb = np.argmax(up, axis=1), np.argmin(down, axis=1)
        r_ = np.arange(t.size)
        top, bot = up[r_, gt], down[r_, gb]
        with np.errstate(invalid="ignore"):
            inside = (top - rb > band[r_, gt] + band_b) & (rb - bot > band[r_, gb] + band_b)
        lm, rel, good = _solve_pairs(
            la_b, lb_b, lin[r_, gt], lout[r_, gt], lin[r_, gb], lout[r_, gb]
        )
        done = inside & good
        if np.any(done):
            d = np.flatnonzero(done)
            for gsel, m in ((gt, lm[0]), (gb, lm[1])):
                keep = d[np.isfinite(m[d])]
                rows.add(
                    cand[keep, gsel[keep]],
                    t[keep],
                    jj[keep, gsel[keep]],
                    m[keep],
                    ib[keep],
                    rel[keep],
                )
        # the others: a pure generator (A's class t, or k - t seen from outside) with
        # B's ratio exactly, else the scan
        rest = np.flatnonzero(~done)
        if rest.size:
            rest = _pure_classes(A, B, ib[rest], rows, ea, eb)
            left.append(rest)
    return np.concatenate(left) if left else np.zeros(0, dtype=np.int64)


def _pure_classes(A, B, ib: np.ndarray, rows: _Rows, ea, eb) -> np.ndarray:
    """Classes of B whose column is proportional to a pure generator of A, proved exactly
    (:func:`_equal_ratio`: the same stored class, or equal exact log-ratios): one row
    each; returns the other classes."""
    k = A.k
    sA = A.sizes
    t = B.sizes[ib]
    found = np.zeros(ib.size, dtype=bool)
    for side in ("same", "in", "out"):
        s_need = k - t if side == "out" else t
        pos = np.minimum(np.searchsorted(sA, s_need), sA.size - 1)
        has = (sA[pos] == s_need) & ~found
        if side == "same":
            has &= (A.log_in[pos] == B.log_in[ib]) & (A.log_out[pos] == B.log_out[ib])
        elif ea is None or eb is None:
            continue
        else:
            has &= (ea == eb) if side == "in" else (-ea == eb)
        jj = np.where(side == "out", 0, t)
        lin, lout, _ = _generator_logs(A.log_a[pos], A.log_b[pos], sA[pos], k, t, jj)
        has &= np.isfinite(lin) & np.isfinite(lout)
        h = np.flatnonzero(has)
        if h.size == 0:
            continue
        la_b, lb_b = B.log_a[ib[h]], B.log_b[ib[h]]
        lm = la_b - lin[h]
        st = np.maximum(la_b, lb_b)
        rel = np.abs(np.exp(lm + lout[h] - st) - np.exp(lb_b - st))
        rows.add(pos[h], t[h], np.broadcast_to(jj, t.shape)[h], lm, ib[h], rel)
        rows.premise = rows.premise or side != "same"
        found[h] = True
    return ib[~found]


def _equal_ratio(
    A: SymmetricChannel, B: SymmetricChannel, i: int, ii: np.ndarray, jj: np.ndarray, t: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per generator: (the same stored column as B's class ``i``, a real ratio proved equal
    to that class's), decided exactly, never within a tolerance.

    A pure generator is one column class of A: (a_s on T, b_s off T) at s = t, j = t, or
    (b_s on T, a_s off T) at s = k - t, j = 0, of real log-ratio +-ln(a_s / b_s). Equal to
    B's ln(a_t / b_t) when both channels state their exact log-ratio (the protocols' eps:
    :attr:`SymmetricChannel.exact_log_ratio`) and +-eps_A == eps_B, or, at s = t, when A's
    class holds the very floats of B's class (the same stored column).
    """
    k = A.k
    s = A.sizes[ii]
    in_side = (jj == t) & (s == t)  # value a_s on T, b_s off T
    out_side = (jj == 0) & (s == k - t)  # value b_s on T, a_s off T
    proved = np.zeros(ii.size, dtype=bool)
    ea, eb = A.exact_log_ratio, B.exact_log_ratio
    if ea is not None and eb is not None:
        proved |= in_side & (ea == eb)
        proved |= out_side & (-ea == eb)
    same = in_side & (A.log_in[ii] == B.log_in[i]) & (A.log_out[ii] == B.log_out[i])
    return same, proved


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
    gap = _max_case_gap(A, B, g, t)
    how = (
        f"B's class of size {t} has log-ratio {rb:.6g} outside [{bot:.6g}, {top:.6g}] "
        "(the extreme ratios of A's orbit-averaged columns), beyond the rounding band; "
        "the gain 1 on T = {0..t-1}, −c off T separates it"
    )
    ce = Counterexample(g[None, :], uniform_prior(k), gap, kind="max-case")
    # |V_g| <= max |g| = 1; a gap below EXACT_GAP_RELATIVE of it is stated exactly
    ce, note = state_gap_exactly(
        ce,
        1.0,
        lambda: exact_max_case_gap_symmetric(A, B, float(g[0]), float(g[-1]), t),
        on=" on the stored class masses",
    )
    return RefinementResult(
        False,
        counterexample=ce,
        relation="max-case refinement",
        method="symmetric: max-case cones",
        certified_by=how + note,
        time=time.perf_counter() - clock.t0,
    )


#: Largest number of generators whose column is formed in rationals by
#: :func:`exact_max_case_gap_symmetric` (only those within the float error of a maximum).
EXACT_MAX_CASE_TERMS: int = 100_000


def _near_maximal_columns(C: SymmetricChannel, gi: float, go: float, t: int) -> tuple[list, str]:
    """Rational columns (X_in, X_out) of C's generators for the class t whose posterior gain
    may be the maximum: those whose float value is within 64 u max(|gi|, |go|) of the float
    maximum (each value is within 16 u max |g| of its exact one)."""
    k = C.k
    s = C.sizes
    m = np.maximum(C.log_in, C.log_out)
    with np.errstate(invalid="ignore"):  # each class scaled to its larger mass
        Pi, Po = np.exp(C.log_in - m), np.exp(C.log_out - m)
    lo, hi = overlap_range(k, s, np.full(s.size, t))
    sf = np.maximum(s, 1).astype(np.float64)
    kf = np.maximum(k - s, 1).astype(np.float64)
    cols = []
    for j in (lo, hi):
        x_in = Pi * (j / sf) + Po * ((t - j) / kf)
        x_out = Pi * ((s - j) / sf) + Po * ((k - s - t + j) / kf)
        cols.append((j, x_in, x_out, (gi * x_in + go * x_out) / (x_in + x_out)))
    best = max(float(v.max()) for *_, v in cols)
    cut = best - 64.0 * _U * max(abs(gi), abs(go))
    keep = [(j, np.flatnonzero(v >= cut)) for j, _, _, v in cols]
    n = sum(idx.size for _, idx in keep)
    if n > EXACT_MAX_CASE_TERMS:
        return [], f"{n} near-maximal generators, beyond EXACT_MAX_CASE_TERMS"
    out = []
    for j, idx in keep:
        for a in idx.tolist():
            sv, jv = int(s[a]), int(j[a])
            pi, po = Fraction(float(Pi[a])), Fraction(float(Po[a]))
            xi = (pi * Fraction(jv, sv) if sv else 0) + (
                po * Fraction(t - jv, k - sv) if sv < k else 0
            )
            xo = (pi * Fraction(sv - jv, sv) if sv else 0) + (
                po * Fraction(k - sv - t + jv, k - sv) if sv < k else 0
            )
            out.append((Fraction(xi), Fraction(xo)))
    return out, ""


def exact_max_case_gap_symmetric(
    A: SymmetricChannel, B: SymmetricChannel, gi: float, go: float, t: int
) -> tuple[Fraction | None, str]:
    """The exact max-case gap of the gain (``gi`` on a set T of size t, ``go`` off it) under
    the uniform prior, on the stored class masses; (None, why) beyond its budget.

    The stored problem: each class's masses exp(log_in), exp(log_out), scaled by the larger
    of the two, read as the binary fractions they hold (a max-case vulnerability does not
    see a column's scale). A column S of class s at overlap j = |S ∩ T| then puts
    X_in = P_in j / s + P_out (t - j) / (k - s) on T and the rest of its class mass off T,
    so V_g^max is the largest (gi X_in + go X_out) / (X_in + X_out): the explicit routes'
    exact max-case vulnerability (:func:`qifldp.refinement.exact.exact_weighted_gap`) of
    the two-row channels (T, not T) whose columns are these near-maximal generators.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> gq, _ = exact_max_case_gap_symmetric(sym.grr(4, 1.0), sym.grr(4, 1.0 + 1e-13), 1.0, -0.9, 1)
    >>> 0 < gq < 1e-12
    True
    """
    cols, why = [], ""
    for C in (A, B):
        c, why = _near_maximal_columns(C, gi, go, t)
        if not c:
            return None, why
        cols.append(c)
    Aq = [[x for x, _ in cols[0]], [y for _, y in cols[0]]]
    Bq = [[x for x, _ in cols[1]], [y for _, y in cols[1]]]
    one = Fraction(1)
    return exact_weighted_gap(Aq, Bq, [[Fraction(gi), Fraction(go)]], False, [one, one]), ""


def recheck_max_case_gain(A: Any, gain: np.ndarray, ce: Counterexample, B: Any) -> Fraction:
    """:meth:`Counterexample.recheck` of a symmetric max-case counterexample: its exact gap.

    The gain is the one :func:`max_case_refines` returns, one action worth ``gi`` on
    T = {0..t-1} and ``go`` off it, under the uniform prior; the gap is
    :func:`exact_max_case_gap_symmetric` on the stored class masses of A and B.

    Raises
    ------
    InputTypeError
        B not a SymmetricChannel, or a gain of another form.
    ChannelError
        A, B and the gain not over the same k, or a prior that is not uniform.
    SizeError
        More than EXACT_MAX_CASE_TERMS near-maximal generators.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> ce = q.max_case_refines(sym.the(2, 0.1, 0.75), sym.grr(2, 0.1)).counterexample
    >>> float(ce.recheck(sym.the(2, 0.1, 0.75), sym.grr(2, 0.1))) > 0
    True
    """
    if not isinstance(B, SymmetricChannel):
        msg = f"B must be a SymmetricChannel as A is, to recheck this gain, got {type(B).__name__}"
        raise InputTypeError(msg)
    check_pair(A, B)
    k = A.k
    g = np.asarray(gain, dtype=np.float64)
    prior = np.asarray(ce.prior, dtype=np.float64)
    if g.shape != (1, k) or prior.shape != (k,) or np.any(prior != prior[0]):
        msg = (
            f"a symmetric max-case counterexample has one action over the k = {k} inputs "
            f"and the uniform prior, got a gain of shape {g.shape}"
        )
        raise ChannelError(msg)
    t = int(np.argmax(g[0] != g[0, 0])) if np.any(g[0] != g[0, 0]) else k
    if ce.kind != "max-case" or not 0 < t < k or np.any(g[0, t:] != g[0, -1]):
        msg = (
            "a gain matrix on symmetric channels is rechecked only as the max-case gain "
            "(one value on {0..t-1}, another off it, 0 < t < k); expand() the channels "
            "to recheck another gain"
        )
        raise InputTypeError(msg)
    gap, why = exact_max_case_gap_symmetric(A, B, float(g[0, 0]), float(g[0, -1]), t)
    if gap is None:
        raise SizeError(f"recheck of this max-case gain: {why}")
    return gap


def _max_case_gap(A: SymmetricChannel, B: SymmetricChannel, g: np.ndarray, t: int) -> float:
    """V_g^max[υ▷B] − V_g^max[υ▷A] for the gain g (g_in on {0..t-1}, g_out elsewhere)."""
    gi, go = float(g[0]), float(g[-1])

    def vmax(C: SymmetricChannel) -> float:
        # the posterior gain of each generator: the average of gi and go weighted by
        # t e^lin and (k - t) e^lout, formed in log space (the entries underflow at large k)
        ii, jj, lin, lout, _ = _generators(C, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.log(t) + lin if t > 0 else np.full(lin.size, -np.inf)
            b = np.log(k - t) + lout if t < k else np.full(lout.size, -np.inf)
            m = np.maximum(a, b)
            ok = m > -np.inf
            wa, wb = np.exp(a[ok] - m[ok]), np.exp(b[ok] - m[ok])
        return float(np.max((gi * wa + go * wb) / (wa + wb), initial=-np.inf))

    k = A.k
    return vmax(B) - vmax(A)


def _max_case_fails_corner(A, B, t, clock) -> RefinementResult:  # pragma: no cover
    msg = f"max-case refinement: A has no column with mass on B's corner class of size {t}"
    raise VerificationError(msg)


def max_case_refines_symmetric(
    A: Any, B: Any, prior: Any = None, **options: Any
) -> RefinementResult:
    """:func:`qifldp.max_case_refines` of a pair with a symmetric channel (registered by
    :mod:`qifldp.symmetric`).

    Both channels symmetric over the same k: one two-dimensional cone test per class
    of B (:func:`max_case_refines`), O(k log k). ``options`` are those of
    :func:`qifldp.max_case_refines`, of which only ``time_limit`` is used; a prior, a
    ``method`` other than ``"auto"`` and ``exact=True`` are refused.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.max_case_refines(sym.sue(200, 9.0), sym.oue(200, 9.0)).holds
    True
    >>> q.max_case_refines(sym.grr(200, 1.0), sym.grr(200, 2.0)).holds
    False
    """
    for name in options:
        if name not in ("method", "exact", "time_limit", "strict"):
            msg = f"max_case_refines_symmetric() got an unexpected keyword argument {name!r}"
            raise TypeError(msg)
    check_kinds("max_case_refines", A, B)
    if prior is not None or options.get("method", "auto") != "auto" or options.get("exact"):
        msg = (
            "max-case refinement of symmetric channels takes no prior, method or exact option "
            "(its counterexample uses the uniform prior; expand() the channels for more)"
        )
        raise ParameterError(msg)
    t0 = time.perf_counter()
    try:
        r = max_case_refines(A, B, time_limit=options.get("time_limit", 120.0))
    except (SolverError, VerificationError, SizeError) as exc:  # a route past its size rule too
        if options.get("strict", False):
            raise
        r = undecided_result(exc, "max-case refinement", time.perf_counter() - t0)
    return r.with_channels(A, B)
