"""What T memoised reports of one user reveal: the shared part of the memoising protocols.

A memoising protocol (the longitudinal L-* oracles, RAPPOR, dBitFlipPM) draws a permanent
response once and reports fresh randomisations of it; T reports are a post-processing of
the permanent response, so their leakage rises with T to the permanent response's. The
closed forms of each such protocol give the Bayes capacity of T reports (on a lumped
channel) and of the permanent response; :class:`ReportsLeakage` adds the ASR of T reports
and the fewest reports reaching half of the limit; :func:`count_channel` and
:func:`pair_profile` are the lumped pieces the bit-wise protocols share (each bit's T
reports summarised by their count; the privacy profile of two values from the positions
where they differ) and :func:`grr_reports_pair`, two values' rows of T memoised GRR
reports with their outputs lumped.
"""

from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp

from ..channel import Channel
from ..errors import ParameterError, SizeError, VerificationError
from ..validation import check_int
from .base import Protocol
from .params import check_k

__all__ = [
    "MAX_REPORTS",
    "MAX_GRR_REPORTS",
    "MAX_GRR_PROFILE_REPORTS",
    "MAX_GRR_BOUND_REPORTS",
    "grr_reports_profile_bounds",
    "log_grr_mode_weight",
    "ReportsLeakage",
    "bayes_capacity_one_hot",
    "count_channel",
    "log_count_channel",
    "pair_profile",
    "grr_pair_classes",
    "grr_reports_pair",
]

#: Largest number of reports T of the lumped Bayes capacity, privacy profile and
#: half-limit search (the per-bit count channels have T + 1 symbols, formed in log space).
MAX_REPORTS: int = 10**6
#: Largest T of L-GRR's Bayes capacity of T reports (:func:`log_grr_mode_weight`) and
#: of its half-limit search.
MAX_GRR_REPORTS: int = MAX_REPORTS


class ReportsLeakage(abc.ABC):
    """What T memoised reports of one user reveal, for the closed forms of a memoising
    protocol: the subclass gives ``bayes_capacity_reports(T)`` and
    ``bayes_capacity_permanent()`` (the limit as T → ∞); the ASR of T reports and the
    fewest reports reaching half of the limit's min-entropy leakage come from here.
    """

    __slots__ = ()
    _protocol: Protocol

    def max_reports(self) -> int:
        """The largest T of :meth:`bayes_capacity_reports` (and of the half-limit search).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("l_sue", 4, 2.0, 1.0).closed_form.max_reports() == MAX_REPORTS
        True
        """
        return MAX_REPORTS

    @abc.abstractmethod
    def bayes_capacity_reports(self, T: int) -> float:
        """ML of T reports (the family's lumped computation)."""

    @abc.abstractmethod
    def bayes_capacity_permanent(self) -> float:
        """ML of the permanent response: the limit of T reports as T → ∞."""

    @abc.abstractmethod
    def privacy_profile_reports(self, T: int, epss: Any) -> Any:
        """delta(eps) of T reports over the worst pair of values (the family's lumped
        computation)."""

    def privacy_profile_reports_bounds(self, T: int, epss: Any) -> tuple[np.ndarray, np.ndarray]:
        """An enclosure (lower, upper) of :meth:`privacy_profile_reports` at each eps.

        Exact families (the unary encodings, RAPPOR, dBitFlipPM) give their profile
        twice; L-GRR gives its exact profile up to T = 32 and an enclosure beyond
        (:func:`grr_reports_profile_bounds`).

        Examples
        --------
        >>> import qifldp as q
        >>> lo, hi = q.protocol("l_sue", 4, 2.0, 1.0).closed_form.privacy_profile_reports_bounds(
        ...     3, [0.5, 1.0])
        >>> bool((lo == hi).all())
        True
        """
        d = np.atleast_1d(np.asarray(self.privacy_profile_reports(T, epss), dtype=float))
        return d, d.copy()

    def asr_reports(self, T: int) -> float:
        """The Bayes attacker's success from T reports under a uniform prior: ML_T / k.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("l_oue", 4, 2.0, 1.0).closed_form
        >>> round(cf.asr_reports(1), 12) == round(cf.asr(), 12)
        True
        """
        return self.bayes_capacity_reports(T) / self._protocol.k

    def reports_to_half_leakage(self) -> int | None:
        """The fewest reports T whose min-entropy leakage, log2 ML_T, reaches half of the
        permanent response's (the limit as T → ∞); None beyond :meth:`max_reports`
        (:data:`MAX_REPORTS`; L-GRR's :data:`MAX_GRR_REPORTS`).

        Notes
        -----
        ML_T is nondecreasing in T (T + 1 reports refine T), so a doubling search then a
        bisection on :meth:`bayes_capacity_reports` finds it in O(log T) evaluations.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("l_osue", 100, 4.0, 1.0).closed_form
        >>> T = cf.reports_to_half_leakage()
        >>> import math
        >>> half = math.log2(cf.bayes_capacity_permanent()) / 2
        >>> leak = [math.log2(cf.bayes_capacity_reports(t)) for t in (T - 1, T)]
        >>> T, leak[1] >= half > leak[0]
        (3, True)
        """
        target = math.log2(self.bayes_capacity_permanent()) / 2

        def reached(T: int) -> bool:
            return math.log2(self.bayes_capacity_reports(T)) >= target

        hi, top = 1, self.max_reports()
        while not reached(hi):
            if hi == top:
                return None
            hi = min(2 * hi, top)
        lo = hi // 2  # not reached at lo (or lo = 0)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if reached(mid) else (mid, hi)
        return hi


# -- the unary encodings: one_hot of a bit channel ----------------------------------------
def bayes_capacity_one_hot(B: Any, k: int, *, log: bool = False) -> float:
    """Bayes capacity of ``one_hot(B, k)`` for a bit channel B of shape (2, m), in O(m log m).

    Parameters
    ----------
    B : array_like, shape (2, m)
        Row 0: the symbols' probabilities for an input bit 0, row 1 for a bit 1.
    k : int
        Number of positions (domain size), ``k >= 1``.
    log : bool, optional
        B holds the natural logarithms of the probabilities (entries may be -inf): what
        T reports' count channel needs at large T, whose probabilities are below the
        floats (:func:`log_count_channel`).

    Returns
    -------
    float
        ML = Σ_j r_j (S_j^k - S_{j+1}^k): symbols sorted by r = B[1] / B[0]
        (decreasing), S_j = Σ_{i >= j} B[0, i].

    Raises
    ------
    ParameterError
        B of the wrong shape, a negative (or NaN) entry, or a symbol with
        B[0] = 0 < B[1].

    Notes
    -----
    C[x, y] = B[1, y_x] Π_{v≠x} B[0, y_v] = Π_v B[0, y_v] · r(y_x), so
    ML = Σ_y max_x C[x, y] = E_{y ~ B[0]^k}[max_v r(y_v)]: the expected largest
    ratio among k independent symbols. O(m log m), at any k. A symbol with
    B[0] = 0 < B[1] (an infinite ratio) is refused (the longitudinal oracles never
    have one: their second round has q2 > 0).

    Formed in log space: r_j as a difference of logarithms, S_j^k - S_{j+1}^k as
    S_j^k (1 - (1 - B[0, j] / S_j)^k) by log1p / expm1, the sum by logsumexp. The tails
    S_j are summed in extended precision over the symbols that matter: a symbol whose
    two probabilities are below 1e-30 contributes at most k B[1, j] and is dropped
    (at most k m 1e-30 in all).

    Examples
    --------
    >>> import qifldp as q
    >>> p, qq = 0.75, 0.25
    >>> round(bayes_capacity_one_hot([[1 - qq, qq], [1 - p, p]], 3), 12)
    1.875
    >>> round(q.bayes_capacity(q.unary_encoding(3, p, qq)), 12)
    1.875
    >>> round(bayes_capacity_one_hot(np.log([[1 - qq, qq], [1 - p, p]]), 3, log=True), 12)
    1.875
    """
    M = np.asarray(B, dtype=np.float64)
    k = check_int("k", k, minimum=1)
    if M.ndim != 2 or M.shape[0] != 2:
        msg = f"B must be a bit channel of shape (2, m), got shape {M.shape}"
        raise ParameterError(msg)
    if log:
        if np.any(np.isnan(M) | (M > 1e-9)):
            msg = "B must hold log-probabilities (<= 0, no NaN) when log=True"
            raise ParameterError(msg)
        L = np.minimum(M, 0.0)
    else:
        if np.any(~(M >= 0)):
            msg = f"B must be a nonnegative bit channel of shape (2, m), got shape {M.shape}"
            raise ParameterError(msg)
        with np.errstate(divide="ignore"):
            L = np.log(M)
    if np.any((L[0] == -np.inf) & (L[1] > -np.inf)):
        msg = "B must give every symbol positive probability under input bit 0"
        raise ParameterError(msg)
    keep = (L[0] > _NEGLIGIBLE) | (L[1] > _NEGLIGIBLE)
    if not np.any(keep):
        keep = L[0] > -np.inf
    lb0, lb1 = L[0, keep], L[1, keep]
    log_r = lb1 - lb0
    order = np.argsort(-log_r, kind="stable")
    log_r, lb0 = log_r[order], lb0[order]
    tails = np.cumsum(np.exp(lb0[::-1].astype(np.longdouble)))[::-1]  # S_j
    with np.errstate(divide="ignore"):
        log_tail = np.minimum(np.log(tails).astype(np.float64), 0.0)
        share = np.minimum(np.exp(lb0 - log_tail), 1.0)  # B[0, j] / S_j
        # log(S_j^k - S_{j+1}^k) = k log S_j + log(1 - (1 - share)^k)
        log_diff = k * log_tail + np.log(-np.expm1(k * np.log1p(-share)))
    terms = log_r + log_diff
    terms = terms[np.isfinite(terms)]
    return float(np.exp(logsumexp(terms))) if terms.size else 0.0


#: Log of the probability below which a symbol of :func:`bayes_capacity_one_hot` is dropped.
_NEGLIGIBLE: float = math.log(1e-30)


#: Most atoms of one half of :func:`pair_profile`'s product, formed explicitly.
MAX_PAIR_ATOMS: int = 2**24


def pair_profile(
    B: Any, u: int, v: int, epss: Any, *, log: bool = False, directed: bool = False
) -> Any:
    """delta(eps) of two inputs whose one-hot-like rows differ at u + v positions of a bit
    channel B: at u of them x has bit 1 and x' bit 0, at v the other way round.

    Parameters
    ----------
    B : array_like, shape (2, m)
        The bit channel (row 0: input bit 0); natural logarithms if ``log``.
    u, v : int
        The positions where the two inputs differ, each way.
    epss : float or array_like
        As for :func:`qifldp.privacy_profile`.
    log : bool, optional
        B holds log-probabilities (entries may be -inf).
    directed : bool, optional
        Only the divergence of x's row from x''s (a mean of it over pairs is what a
        mixture of pairs needs).

    Returns
    -------
    float or numpy.ndarray
        The larger of the two orders' hockey-stick divergences (``directed``: x's from x''s).

    Raises
    ------
    SizeError
        A half of the product with more than :data:`MAX_PAIR_ATOMS` atoms.

    Notes
    -----
    The rows are B[1]^{⊗u} ⊗ B[0]^{⊗v} and B[0]^{⊗u} ⊗ B[1]^{⊗v} (the positions where the
    two inputs agree have equal distributions and leave the hockey-stick divergence
    unchanged). The positions are split into two halves G, H whose products are formed
    explicitly (m^|G| and m^|H| atoms, each with its two probabilities and its privacy
    loss ℓ = log(P / Q)); then, exactly, with H sorted by ℓ and its suffix sums,
    delta(eps) = Σ_{g ∈ G} [P_g P_H(ℓ_h > eps - ℓ_g) - e^eps Q_g Q_H(ℓ_h > eps - ℓ_g)]:
    O(m^⌈(u+v)/2⌉ log m) instead of the m^(u+v) columns of the product. Each g's term is a
    sum of nonnegative ones and is clipped at 0 (rounding).

    Examples
    --------
    >>> import qifldp as q
    >>> B = [[0.75, 0.25], [0.25, 0.75]]
    >>> round(pair_profile(B, 1, 1, 0.0), 12)  # eps = 0: the rows' total variation
    0.5
    >>> C = q.Channel([[0.75 * 0.75, 0.75 * 0.25, 0.25 * 0.75, 0.25 * 0.25],
    ...                [0.25 * 0.25, 0.25 * 0.75, 0.75 * 0.25, 0.75 * 0.75]])
    >>> round(pair_profile(B, 0, 2, 0.7), 12) == round(q.privacy_profile(C, 0.7), 12)
    True
    """
    M = np.asarray(B, dtype=float)
    if log:
        L = M
    else:
        with np.errstate(divide="ignore"):
            L = np.log(M)
    scalar = np.ndim(epss) == 0
    eps = np.atleast_1d(np.asarray(epss, dtype=float))
    if u + v == 0:
        out = np.zeros(eps.shape)
        return float(out[0]) if scalar else out
    signs = [1] * u + [0] * v  # bit of x (the first row) at each differing position
    half = (u + v + 1) // 2
    groups = (signs[:half], signs[half:])
    for g in groups:
        atoms = M.shape[1] ** len(g)
        if atoms > MAX_PAIR_ATOMS:
            msg = (
                f"pair_profile would form {M.shape[1]}^{len(g)} = {atoms} atoms for one half "
                f"of the {u + v} differing positions, more than MAX_PAIR_ATOMS = "
                f"{MAX_PAIR_ATOMS}. Use fewer reports T (fewer symbols per position) or "
                "fewer differing positions."
            )
            raise SizeError(msg)
    best = np.zeros(eps.shape)
    for first in (True,) if directed else (True, False):
        (lpg, lqg), (lph, lqh) = (_atoms(L, g, first) for g in groups)
        best = np.maximum(best, _split_hockey_stick(lpg, lqg, lph, lqh, eps))
    return float(best[0]) if scalar else best


def _atoms(L: np.ndarray, bits: list[int], first: bool) -> tuple[np.ndarray, np.ndarray]:
    """log P and log Q of the product over ``bits`` (x's bit per position; the other row
    has the complement); ``first`` False swaps the rows."""
    lp, lq = np.zeros(1), np.zeros(1)
    for bit in bits:
        a, b = (bit, 1 - bit) if first else (1 - bit, bit)
        lp = np.add.outer(lp, L[a]).ravel()
        lq = np.add.outer(lq, L[b]).ravel()
    return lp, lq


def _split_hockey_stick(
    lpg: np.ndarray, lqg: np.ndarray, lph: np.ndarray, lqh: np.ndarray, eps: np.ndarray
) -> np.ndarray:
    """Σ over pairs (g, h) with ℓ_g + ℓ_h > eps of P_g P_h - e^eps Q_g Q_h (see pair_profile)."""
    live = (lph > -np.inf) | (lqh > -np.inf)
    lph, lqh = lph[live], lqh[live]
    with np.errstate(invalid="ignore"):
        loss_h = np.where(lph == -np.inf, -np.inf, lph - lqh)  # +inf where Q_h = 0 < P_h
    order = np.argsort(loss_h, kind="stable")
    loss_h = loss_h[order]
    ph, qh = np.exp(lph[order]), np.exp(lqh[order])
    suf_p = np.append(np.cumsum(ph[::-1])[::-1], 0.0)  # Σ_{i >= j}
    suf_q = np.append(np.cumsum(qh[::-1])[::-1], 0.0)
    keep = lpg > -np.inf  # P_g = 0: no positive term
    lpg, lqg = lpg[keep], lqg[keep]
    with np.errstate(invalid="ignore"):
        loss_g = np.where(lqg == -np.inf, np.inf, lpg - lqg)
    pg, qg = np.exp(lpg), np.exp(lqg)
    out = np.empty(eps.shape)
    for i, e in enumerate(eps):
        with np.errstate(invalid="ignore"):
            need = np.where(loss_g == np.inf, -np.inf, e - loss_g)
        j = np.searchsorted(loss_h, need, side="right")  # first h with ℓ_h > eps - ℓ_g
        term = pg * suf_p[j] - math.exp(e) * qg * suf_q[j]
        out[i] = float(np.sum(np.maximum(term, 0.0)))
    return out


def log_count_channel(pr: dict[str, float], T: int) -> np.ndarray:
    """log of :func:`count_channel`: finite where the probabilities are below the floats.

    Examples
    --------
    >>> L = log_count_channel({"p1": 0.75, "q1": 0.25, "p2": 0.6, "q2": 0.4}, 10**6)
    >>> L.shape, bool(np.all(np.isfinite(L)))
    ((2, 1000001), True)
    """
    from scipy.stats import binom

    T = check_int("T", T, minimum=0, maximum=MAX_REPORTS)
    c = np.arange(T + 1, dtype=float)
    log_choose = gammaln(T + 1) - gammaln(c + 1) - gammaln(T - c + 1)

    def log_binom(p: float) -> np.ndarray:
        # the pmf itself (relative error ~1e-15) where it is a normal float; log C(T, c)
        # by gammaln (absolute error ~1e-16 T log T) only where the pmf is below 1e-290
        pmf = binom.pmf(c, T, p)
        with np.errstate(divide="ignore", invalid="ignore"):
            tiny = log_choose + _xlogy(c, p) + _xlogy(T - c, 1 - p)
            return np.where(pmf > 1e-290, np.log(pmf), np.minimum(tiny, math.log(1e-290)))

    on, off = log_binom(pr["p2"]), log_binom(pr["q2"])

    def mix(w: float) -> np.ndarray:  # log(w on + (1 - w) off)
        if w <= 0 or w >= 1:
            return on if w >= 1 else off
        return np.logaddexp(math.log(w) + on, math.log1p(-w) + off)

    return np.vstack([mix(pr["q1"]), mix(pr["p1"])])


def _xlogy(x: np.ndarray, p: float) -> np.ndarray:
    """x log p with 0 log 0 = 0."""
    if p > 0:
        return x * math.log(p)
    return np.where(x == 0, 0.0, -np.inf)


def count_channel(pr: dict[str, float], T: int) -> np.ndarray:
    """The 2 x (T + 1) channel from a position's input bit to its count of 1s in T reports.

    ``pr``: the permanent bit kept as 1 w.p. ``p1`` (input 1) / set w.p. ``q1`` (input 0),
    each report's bit 1 w.p. ``p2`` (permanent 1) / ``q2`` (permanent 0).

    Examples
    --------
    >>> count_channel({"p1": 1.0, "q1": 0.0, "p2": 1.0, "q2": 0.0}, 2).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    return np.exp(log_count_channel(pr, T))


#: Largest T of the lumped privacy profile of L-GRR's T reports (the partitions of T).
MAX_GRR_PROFILE_REPORTS: int = 32


def _partitions(n: int, largest: int) -> Any:
    """The partitions of n into parts <= largest, in descending order (tuples)."""
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first, *rest)


def grr_pair_classes(T: int) -> int:
    """The number of lumped output classes of :func:`grr_reports_pair` (k large enough):
    Σ_n p(n) (T - n + 1), p the partition function.

    Examples
    --------
    >>> grr_pair_classes(1)  # one report: value 0, value 1, or one of the others
    3
    >>> grr_pair_classes(2)  # (2,0) (1,1) (0,2); (1,0) (0,1) with one other; two others
    7
    """
    T = check_int("T", T, minimum=0)
    p = [1] + [0] * T  # partitions of n, by adding parts of each size in turn
    for part in range(1, T + 1):
        for n in range(part, T + 1):
            p[n] += p[n - part]
    return sum(p[n] * (T - n + 1) for n in range(T + 1))


def grr_reports_pair(k: int, p1: float, q1: float, p2: float, q2: float, T: int) -> Channel:
    """Two values' rows of T memoised GRR reports, their outputs lumped (any k).

    Parameters
    ----------
    k, p1, q1, p2, q2, T
        As for :func:`~qifldp.protocols.longitudinal.bayes_capacity_grr_reports`;
        ``T <= MAX_GRR_PROFILE_REPORTS``.

    Returns
    -------
    Channel
        Rows the values 0 and 1; one column per class of sequences y with the same
        counts a of 0, b of 1 and multiset of the other values' counts.

    Notes
    -----
    C_T[x, y] = q1 S(y) + (p1 - q1) w(n_x), w(n) = p2^n q2^(T - n), S(y) = Σ_u w(n_u):
    a function of the class, which holds T! / (a! b! Π λ_i!) (k - 2)! / ((k - 2 - l)!
    Π_j m_j!) sequences (l parts, m_j equal parts). Merging outputs whose two entries
    are constant keeps every measure of the pair (the hockey-stick divergence). Formed in
    log space; the classes number Σ_n p(n) (T - n + 1), p the partition function.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("l_grr", 4, 2.0, 1.0)
    >>> pr = P.params
    >>> C = grr_reports_pair(4, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 2)
    >>> d = q.privacy_profile(C, 0.5)
    >>> round(d, 12) == round(q.privacy_profile(P.channel(reports=2), 0.5), 12)
    True
    """
    k = check_k(k)
    T = check_int("T", T, minimum=1, maximum=MAX_GRR_PROFILE_REPORTS)
    lr, lq1, ld = math.log(p2) - math.log(q2), math.log(q1), math.log(p1 - q1)
    others, lg = k - 2, gammaln(np.arange(T + 1) + 1.0)  # lg[n] = log n!
    cols: list[list[np.ndarray]] = [[], []]
    for n in range(T + 1):
        a = np.arange(T - n + 1)
        head = lg[T] - lg[a] - lg[T - n - a] + T * math.log(q2)
        for lam in _partitions(n, n):
            if len(lam) > others:
                continue
            counts = np.bincount(np.array(lam, dtype=np.int64), minlength=1)
            log_const = float(
                gammaln(others + 1)
                - gammaln(others - len(lam) + 1)
                - lg[counts].sum()
                - lg[list(lam)].sum()
            )
            rest = [v * lr for v in lam] + (
                [math.log(others - len(lam))] if others > len(lam) else []
            )
            log_s = np.logaddexp(a * lr, (T - n - a) * lr)
            if rest:
                log_s = np.logaddexp(log_s, float(logsumexp(rest)))
            for row, own in enumerate((a, T - n - a)):
                cols[row].append(head + log_const + np.logaddexp(lq1 + log_s, ld + own * lr))
    return Channel(np.exp(np.vstack([np.concatenate(cols[0]), np.concatenate(cols[1])])))


#: Largest T of the enclosure of L-GRR's privacy profile (:func:`grr_reports_profile_bounds`).
MAX_GRR_BOUND_REPORTS: int = 1 << 15

#: Up to this T the enclosure sums over all (T + 1)(T + 2) / 2 classes (n_0, n_1), about
#: 8.4 million at this T; beyond, over the classes of a window of counts around their
#: means, the rest bounded by its probability (:data:`GRR_BOUND_TAIL`).
GRR_BOUND_ALL_CLASSES: int = 4096

#: The bound on the probability of the classes outside the window (Hoeffding's, added
#: to the upper end of the enclosure beyond GRR_BOUND_ALL_CLASSES reports).
GRR_BOUND_TAIL: float = 1e-30


def grr_reports_profile_bounds(
    k: int, p1: float, q1: float, p2: float, q2: float, T: int, epss: Any
) -> tuple[np.ndarray, np.ndarray]:
    """An enclosure [lower, upper] of delta(eps) for T memoised GRR reports, any k.

    Parameters
    ----------
    k, p1, q1, p2, q2
        As for :func:`grr_reports_pair` (``p2 >= q2 > 0``).
    T : int
        Number of reports, ``1 <= T <= MAX_GRR_BOUND_REPORTS``.
    epss : float or array_like
        Nonnegative eps values.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        lower <= delta_T(eps) <= upper at each eps, delta_T the hockey-stick divergence
        of two values' rows of the T-report channel (every pair alike). Equal (exact)
        for k <= 3; for k > 3 the gap is the price of not enumerating the partitions
        of the other values' counts (:func:`grr_reports_pair` enumerates them, T <= 32).

    Notes
    -----
    For the values 0, 1 and a sequence y with counts a of 0, b of 1 and n = T - a - b of
    the j = k - 2 others, C_T[0, y] - e^eps C_T[1, y] = q2^T (A - B σ), with r = p2 / q2,
    A = q1 (1 - e^eps)(r^a + r^b) + (p1 - q1)(r^a - e^eps r^b), B = q1 (e^eps - 1) and
    σ = Σ_{u >= 2} r^(n_u). The class (a, b) holds T! / (a! b! n!) j^n sequences, its
    σ distributed as for n balls thrown uniformly into j bins, so
    delta = Σ_(a,b) T! / (a! b! n!) j^n q2^T E[(A - B σ)^+], and with
    E σ = m = j (1 + (r - 1)/j)^n, E σ^2 = j (1 + (r^2 - 1)/j)^n + j (j - 1)(1 + 2(r - 1)/j)^n:

    * lower: (A - B m)^+ (Jensen; it is the exact profile of the channel lumped to the
      classes (a, b), a post-processing, so a true lower bound);
    * upper: the least of (A - B σ_min)^+ (σ >= σ_min, the balanced occupancy
      (j - s) r^t + s r^(t+1), n = t j + s), the chord of (A - B σ)^+ between σ_min and
      σ_max = j - 1 + r^n (Edmundson-Madansky), and Scarf's bound
      B/2 ((τ - m) + sqrt(Var σ + (τ - m)^2)), τ = A / B, valid for any law of mean m
      and variance Var σ;
    * both also clipped by what holds for any T: upper <= the permanent response's
      (p1 - e^eps q1)^+ (post-processing).

    O(T^2) per eps, vectorised in chunks, up to T = :data:`GRR_BOUND_ALL_CLASSES`. Beyond,
    only the classes whose a and b both lie within t = sqrt(T ln(4 / tail) / 2) of T p2
    or T q2 are summed (tail = :data:`GRR_BOUND_TAIL`), O(T) classes: given the
    permanent response, a and b are binomial counts of mean T p2 or T q2, so by
    Hoeffding's inequality a sequence of the other classes has probability at most tail
    under value 0, and each adds at most its probability C_T[0, y] to delta: lower drops
    them, upper adds tail. At eps = 0 (B = 0) both are exact (up to tail beyond).

    Examples
    --------
    >>> import qifldp as q
    >>> pr = q.protocol("l_grr", 40, 2.0, 1.0).params
    >>> lo, hi = grr_reports_profile_bounds(40, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 6, 0.5)
    >>> C = grr_reports_pair(40, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 6)
    >>> from qifldp import privacy_profile
    >>> bool(lo[0] <= privacy_profile(C, 0.5) <= hi[0])
    True
    """
    k = check_k(k)
    T = check_int("T", T, minimum=1, maximum=MAX_GRR_BOUND_REPORTS)
    if not (q2 > 0 and p2 >= q2 and p1 >= q1 >= 0):
        msg = f"need p2 >= q2 > 0 and p1 >= q1 >= 0, got p1={p1!r} q1={q1!r} p2={p2!r} q2={q2!r}"
        raise ParameterError(msg)
    eps = np.atleast_1d(np.asarray(epss, dtype=float))
    if eps.ndim != 1 or np.any(~(eps >= 0)):
        msg = "epss must be nonnegative eps values (a float or a 1-d array)"
        raise ParameterError(msg)
    lower, upper = np.zeros(eps.size), np.zeros(eps.size)
    terms = _GRRClassTerms(k, p1, q1, p2, q2, T, eps)
    if T <= GRR_BOUND_ALL_CLASSES:
        starts = np.cumsum(np.arange(T + 1, 0, -1))  # pairs (a, b), a + b <= T, a-major
        for lo_a, hi_a in _row_blocks(starts, 2**20):
            rows = np.arange(lo_a, hi_a)
            lengths = T + 1 - rows  # b = 0 .. T - a
            a = np.repeat(rows, lengths)
            b = np.arange(a.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            terms.add(a, b, lower, upper)
    else:
        t = math.sqrt(T * math.log(4 / GRR_BOUND_TAIL) / 2)
        counts = np.arange(T + 1)
        window = np.zeros(T + 1, dtype=bool)
        for mean in (T * p2, T * q2):
            window |= np.abs(counts - mean) <= t
        kept = counts[window]
        step = max(1, 2**20 // kept.size)
        for s in range(0, kept.size, step):
            a = np.repeat(kept[s : s + step], kept.size)
            b = np.tile(kept, min(step, kept.size - s))
            fits = a + b <= T
            terms.add(a[fits], b[fits], lower, upper)
        upper += GRR_BOUND_TAIL
    permanent = np.maximum(p1 - np.exp(eps) * q1, 0.0)
    upper = np.minimum(upper, permanent)
    return np.minimum(lower, upper), upper


class _GRRClassTerms:
    """The classes' terms of :func:`grr_reports_profile_bounds` (lower and upper ends)."""

    def __init__(
        self, k: int, p1: float, q1: float, p2: float, q2: float, T: int, eps: np.ndarray
    ) -> None:
        self.j, self.lr = k - 2, math.log(p2) - math.log(q2)
        self.p1, self.q1, self.q2, self.T, self.eps = p1, q1, q2, T, eps
        self.lg = gammaln(np.arange(T + 1) + 1.0)

    def add(self, a: np.ndarray, b: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Add the classes (a, b)'s terms to ``lower`` and ``upper`` (one entry per eps)."""
        j, lr, lg, T, q1 = self.j, self.lr, self.lg, self.T, self.q1
        d, q2, eps = self.p1 - q1, self.q2, self.eps
        n = T - a - b
        parts = _grr_class_parts(j, lr, n)
        log_w = lg[T] - lg[a] - lg[b] - lg[n] + parts["log_count"] + T * math.log(q2)
        L = np.maximum(np.maximum(a, b) * lr, parts["log_m"])
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            weight = np.exp(log_w + L)
            ra, rb = np.exp(a * lr - L), np.exp(b * lr - L)
            mm, smin = np.exp(parts["log_m"] - L), np.exp(parts["log_min"] - L)
            smax, sd = np.exp(parts["log_max"] - L), mm * parts["rel_sd"]
        for i, e in enumerate(eps):
            E = math.exp(e)
            A = q1 * (1 - E) * (ra + rb) + d * (ra - E * rb)
            B = q1 * (E - 1)
            low = np.maximum(A - B * mm, 0.0)
            high = np.maximum(A - B * smin, 0.0)
            if B > 0:
                tau = A / B
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    scarf = 0.5 * B * ((tau - mm) + np.hypot(sd, tau - mm))
                    width = smax - smin
                    share = np.where(np.isfinite(smax) & (width > 0), (smax - mm) / width, 1.0)
                    chord = high * share + np.maximum(A - B * smax, 0.0) * (1 - share)
                high = np.minimum(high, np.where(np.isfinite(scarf), scarf, np.inf))
                high = np.minimum(high, np.where(np.isfinite(chord), chord, np.inf))
                high = np.maximum(high, low)  # rounding
            lower[i] += float(np.dot(weight, low))
            upper[i] += float(np.dot(weight, high))


def _row_blocks(starts: np.ndarray, size: int) -> Any:
    """Ranges [lo, hi) of a whose pairs (a, b) number about ``size`` together."""
    lo = 0
    base = 0
    while lo < starts.size:
        hi = int(np.searchsorted(starts, base + size, side="right"))
        hi = max(hi, lo + 1)
        yield lo, hi
        base = int(starts[hi - 1])
        lo = hi


def _grr_class_parts(j: int, lr: float, n: np.ndarray) -> dict[str, np.ndarray]:
    """For n balls thrown into j bins, σ = Σ r^(count): log of the number of sequences
    j^n, log E σ, log of σ's least and largest values, and sd(σ) / E σ."""
    nf = n.astype(float)
    if j == 0:  # k = 2: no other value, only n = 0 occurs and σ = 0
        zero = np.where(n == 0, 0.0, -np.inf)
        none = np.full(n.shape, -np.inf)
        return {
            "log_count": zero,
            "log_m": none,
            "log_min": none,
            "log_max": none,
            "rel_sd": np.zeros(n.shape),
        }
    r1 = math.expm1(lr)  # r - 1
    x = r1 / j
    t, s = np.divmod(n, j)
    log_min = t * lr + np.log((j - s) + s * math.exp(lr))
    log_max = np.logaddexp(math.log(j - 1) if j > 1 else -np.inf, nf * lr)
    # Var σ / m^2 = (e^(n D1) - 1) / j + (1 - 1/j)(e^(n D2) - 1)
    D1 = math.log1p(math.expm1(2 * lr) / j) - 2 * math.log1p(x)
    D2 = math.log1p(-((x / (1 + x)) ** 2))
    with np.errstate(over="ignore"):
        rel_var = np.expm1(nf * D1) / j + (1 - 1 / j) * np.expm1(nf * D2)
    return {
        "log_count": nf * math.log(j),
        "log_m": math.log(j) + nf * math.log1p(x),
        "log_min": log_min,
        "log_max": log_max,
        "rel_sd": np.sqrt(np.maximum(rel_var, 0.0)),
    }


# -- L-GRR's T reports at large T: a Cauchy integral on the saddle circle -----------------
def _log_log1p(log_u: np.ndarray) -> np.ndarray:
    """log(log(1 + u)) from log u (complex or real, any branch: it is exponentiated)."""
    u = np.exp(log_u)
    out = log_u - u / 2  # |u| < 1e-8: log(log1p(u) / u) = -u/2 + O(u^2)
    mid = np.abs(u) >= 1e-8
    v = u[mid]
    if np.iscomplexobj(v):
        x, y = v.real, v.imag
        # log|1 + u| without cancellation for small u, and the argument
        re = np.where(np.abs(v) < 0.5, 0.5 * np.log1p(2 * x + x * x + y * y), np.log(np.abs(1 + v)))
        out[mid] = np.log(re + 1j * np.arctan2(y, 1 + x))
    else:
        out[mid] = np.log(np.log1p(v))
    return out


def _cexpm1(B: np.ndarray) -> np.ndarray:
    """e^B - 1 for complex B, without cancellation in the real part near 0."""
    x, y = B.real, B.imag
    s = np.sin(y / 2)
    return (np.expm1(x) * np.cos(y) - 2 * s * s) + 1j * np.exp(x) * np.sin(y)


def _log_expm1(log_B: np.ndarray) -> np.ndarray:
    """log(e^B - 1) from log B (complex or real, any branch)."""
    B = np.exp(log_B)
    out = log_B + B / 2  # |B| < 1e-8: log((e^B - 1) / B) = B/2 + O(B^2)
    mid = np.abs(B) >= 1e-8
    v = B[mid]
    if np.iscomplexobj(v):
        big = v.real > 0.5
        w = np.empty_like(v)
        w[big] = v[big] + np.log(-_cexpm1(-v[big]))  # e^B (1 - e^-B)
        w[~big] = np.log(_cexpm1(v[~big]))
        out[mid] = w
    else:
        out[mid] = v + np.log(-np.expm1(-v))
    return out


#: Terms of the sum over the largest count c kept: within e^-60 of the largest at the
#: saddle point (each term's coefficients are nonnegative, so on the circle it is no
#: larger than there; what is dropped is below 1e-24 of the result).
_MODE_TAIL = 60.0
#: Points on the circle: 2 (40 sqrt(T) + 32); aliasing brings in the coefficients at
#: T ± N, N over 40 standard deviations of the Poisson(T)-like total away.
_MODE_WIDTH = 40.0


def log_grr_mode_weight(k: int, p2: float, q2: float, T: int) -> float:
    """log W_T, W_T = Σ_{y ∈ [k]^T} max_x Π_t I[x, y_t] for T reports of GRR(p2, q2).

    The part of L-GRR's Bayes capacity that the reports carry:
    ML_T = k q1 + (p1 - q1) W_T (:func:`~qifldp.protocols.longitudinal.bayes_capacity_grr_reports`),
    computed in O(sqrt(T) (c_hi - c_lo) + T) at any k, T.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    p2, q2 : float
        The second round's probabilities, ``p2 >= q2 > 0`` (p2 + (k - 1) q2 = 1).
    T : int
        Number of reports, ``1 <= T <= MAX_GRR_REPORTS``.

    Returns
    -------
    float
        log W_T, with 1 <= W_T <= k.

    Raises
    ------
    ParameterError
        p2 < q2 or q2 <= 0.
    VerificationError
        The integral lost its precision (its mean below 1e-9 of its largest term).

    Notes
    -----
    Grouping y by the largest count c and the number of values reaching it,
    W_T = T! q2^T [z^T] Ψ(z), Ψ(z) = Σ_c r^c (e_c(z)^k - e_{c-1}(z)^k), r = p2 / q2,
    e_c the exponential series truncated at degree c; Ψ(q2 τ) = Σ_T W_T τ^T / T!, a
    Poisson(τ) law reweighted by W_T in [1, k]. Its coefficient is Cauchy's integral
    on the circle of radius ρ = q2 T (the saddle point: the reweighted law centred
    at T), the trapezoidal rule on N = 2 (40 sqrt(T) + 32) points exact up to the
    coefficients T ± N. Every term has nonnegative coefficients, so its modulus on the
    circle is at most its value at ρ: the terms c with r^c (e_c^k - e_{c-1}^k)(ρ)
    below e^-60 of the largest are dropped, the rest formed in log space as
    e_{c-1}^k ((1 + u)^k - 1), u = (z^c / c!) / e_{c-1}(z) (once |u| < 1e-17 / k on
    the whole circle, k u e_{c-1}^k, by a recurrence in c). Agrees with the counting
    of :func:`~qifldp.protocols.longitudinal.bayes_capacity_grr_reports` to ~1e-13
    where both answer; at T = 10^6, k = 10^4 about 1e-9 (the integral's mean is
    ~1/sqrt(T) of its largest term).

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp.protocols.longitudinal import bayes_capacity_grr_reports
    >>> pr = q.protocol("l_grr", 10, 2.0, 1.0).params
    >>> w = math.exp(log_grr_mode_weight(10, pr["p2"], pr["q2"], 80))
    >>> counted = bayes_capacity_grr_reports(10, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 60)
    >>> w60 = math.exp(log_grr_mode_weight(10, pr["p2"], pr["q2"], 60))
    >>> abs(10 * pr["q1"] + (pr["p1"] - pr["q1"]) * w60 - counted) < 1e-12
    True
    >>> 10 * pr["q1"] + (pr["p1"] - pr["q1"]) * w > counted  # 80 reports leak more
    True
    """
    from scipy.stats import poisson

    k = check_k(k)
    T = check_int("T", T, minimum=1, maximum=MAX_GRR_REPORTS)
    if not (q2 > 0 and p2 >= q2):
        msg = f"p2 and q2 must satisfy p2 >= q2 > 0, got p2 = {p2!r}, q2 = {q2!r}"
        raise ParameterError(msg)
    if p2 == q2:
        return 0.0  # every y weighs q2^T: W_T = (k q2)^T = 1
    lr, lk, rho = math.log(p2) - math.log(q2), math.log(k), T * q2
    # the terms at the saddle point (real): which c matter
    c = np.arange(1, T + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lprev = poisson.logcdf(c - 1, rho)  # log(e^-ρ e_{c-1}(ρ))
        lterm = c * lr + k * lprev + _log_expm1(lk + _log_log1p(poisson.logpmf(c, rho) - lprev))
        first = lprev == -np.inf  # e_{c-1}(ρ) below the floats: the term is e_c^k
        lterm[first] = (c * lr + k * poisson.logcdf(c, rho))[first]
    lterm[~np.isfinite(lterm)] = -np.inf
    top = float(lterm.max())
    keep = np.flatnonzero(lterm >= top - _MODE_TAIL)
    c_lo, c_hi = int(c[keep[0]]), int(c[keep[-1]])
    # the circle (half of it: the coefficients are real)
    N = 2 * (math.ceil(_MODE_WIDTH * math.sqrt(T)) + 32)
    theta = 2 * math.pi * np.arange(N // 2 + 1) / N
    z = rho * np.exp(1j * theta)
    log_z = math.log(rho) + 1j * theta
    c0 = int(np.argmax(poisson.logpmf(np.arange(c_lo), rho) > -600.0))  # terms below: < e^-600
    e = np.zeros_like(z)  # e^-ρ e_c(z), summed from c0
    t = np.exp(c0 * log_z - gammaln(c0 + 1) - rho)
    for j in range(c0, c_lo):
        e += t
        t = t * z / (j + 1)
    S = np.zeros_like(z)
    tiny = math.log(1e-17 / k)
    cc = c_lo
    while cc <= c_hi:
        log_t = cc * log_z - gammaln(cc + 1) - rho
        log_e = np.log(e)
        log_u = log_t - log_e
        S += np.exp(cc * lr - top + k * log_e + _log_expm1(lk + _log_log1p(log_u)))
        e = e + np.exp(log_t)
        cc += 1
        if cc > rho and float(np.max(log_u.real)) < tiny:
            break
    if cc <= c_hi:  # the rest: k t_c e^(k - 1), e no longer moving
        v = np.exp(cc * (lr + log_z) - top + (k - 1) * np.log(e) + lk - gammaln(cc + 1) - rho)
        rz = (p2 / q2) * z
        for j in range(cc, c_hi + 1):
            S += v
            v = v * rz / (j + 1)
    weights = np.full(theta.size, 2.0)
    weights[0] = weights[-1] = 1.0
    mean = float(np.dot(weights, (S * np.exp(-1j * T * theta)).real)) / N
    largest = float(np.abs(S).max())
    if not (math.isfinite(mean) and mean > 1e-9 * largest):
        msg = (
            f"the Cauchy integral of W_T lost its precision (k = {k}, T = {T}: mean "
            f"{mean:.3g} against its largest term {largest:.3g})"
        )
        raise VerificationError(msg)
    log_w = float(gammaln(T + 1)) - T * math.log(T) + k * rho + top + math.log(mean)
    return min(max(log_w, 0.0), lk)  # 1 <= W_T <= k: the float's last digits
