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
from ..profiles import privacy_profile
from ..validation import check_int
from .base import Protocol
from .params import check_k

__all__ = [
    "MAX_REPORTS",
    "MAX_GRR_PROFILE_REPORTS",
    "ReportsLeakage",
    "count_channel",
    "pair_profile",
    "grr_reports_pair",
]

#: Largest number of reports T of the lumped Bayes capacity.
MAX_REPORTS: int = 1024


class ReportsLeakage(abc.ABC):
    """What T memoised reports of one user reveal, for the closed forms of a memoising
    protocol: the subclass gives ``bayes_capacity_reports(T)`` and
    ``bayes_capacity_permanent()`` (the limit as T → ∞); the ASR of T reports and the
    fewest reports reaching half of the limit's min-entropy leakage come from here.
    """

    __slots__ = ()
    _protocol: Protocol

    @abc.abstractmethod
    def bayes_capacity_reports(self, T: int) -> float:
        """ML of T reports (the family's lumped computation)."""

    @abc.abstractmethod
    def bayes_capacity_permanent(self) -> float:
        """ML of the permanent response: the limit of T reports as T → ∞."""

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
        permanent response's (the limit as T → ∞); None beyond :data:`MAX_REPORTS`.

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

        hi = 1
        while not reached(hi):
            if hi == MAX_REPORTS:
                return None
            hi = min(2 * hi, MAX_REPORTS)
        lo = hi // 2  # not reached at lo (or lo = 0)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if reached(mid) else (mid, hi)
        return hi


def pair_profile(B: Any, u: int, v: int, epss: Any) -> Any:
    """delta(eps) of two inputs whose one-hot-like rows differ at u + v positions of a bit
    channel B: at u of them x has bit 1 and x' bit 0, at v the other way round.

    The rows are B[1]^{⊗u} ⊗ B[0]^{⊗v} and B[0]^{⊗u} ⊗ B[1]^{⊗v} (the positions where the
    two inputs agree have equal distributions and leave the hockey-stick divergence
    unchanged); the larger of the two orders' profiles (:func:`qifldp.privacy_profile`).

    Examples
    --------
    >>> import qifldp as q
    >>> B = [[0.75, 0.25], [0.25, 0.75]]
    >>> round(pair_profile(B, 1, 1, 0.0), 12)  # eps = 0: the rows' total variation
    0.5
    """
    B = np.asarray(B, dtype=float)
    rows = []
    for first, second in ((1, 0), (0, 1)):
        row = np.ones(1)
        for bit in [first] * u + [second] * v:
            row = np.outer(row, B[bit]).ravel()
        rows.append(row)
    return privacy_profile(Channel(np.array(rows)), epss)


def count_channel(pr: dict[str, float], T: int) -> np.ndarray:
    """The 2 x (T + 1) channel from a position's input bit to its count of 1s in T reports.

    ``pr``: the permanent bit kept as 1 w.p. ``p1`` (input 1) / set w.p. ``q1`` (input 0),
    each report's bit 1 w.p. ``p2`` (permanent 1) / ``q2`` (permanent 0).

    Examples
    --------
    >>> count_channel({"p1": 1.0, "q1": 0.0, "p2": 1.0, "q2": 0.0}, 2).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    from scipy.stats import binom

    c = np.arange(T + 1)
    on, off = binom.pmf(c, T, pr["p2"]), binom.pmf(c, T, pr["q2"])
    return np.array([pr["q1"] * on + (1 - pr["q1"]) * off, pr["p1"] * on + (1 - pr["p1"]) * off])


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
