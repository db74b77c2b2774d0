"""Operators that build symmetric channels from smaller ones: one-hot encoding of a bit channel."""

from __future__ import annotations

import numpy as np

from .binomial import log_binom_pmf
from .channel import guard_classes

__all__ = ["one_hot_classes"]


def one_hot_classes(
    k: int, lp: float, l1mp: float, lq: float, l1mq: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The size classes of ``one_hot(B, k)``, B = [[1-q, q], [1-p, p]] a bit channel, in log space.

    The output S is the set of 1-bits; its column depends only on s = |S| and on
    whether the secret is in S.

    Parameters
    ----------
    k : int
        Domain size (number of bits), ``k >= 2``.
    lp, l1mp, lq, l1mq : float
        log p, log(1 - p), log q, log(1 - q) (``-inf`` for a zero), with q < p.

    Returns
    -------
    sizes : numpy.ndarray, shape (k + 1,)
        The class sizes 0..k.
    log_in, log_out : numpy.ndarray, shape (k + 1,)
        log P_in(s) = log(p Bin(k-1, q)(s-1)) and log P_out(s) = log((1-p) Bin(k-1, q)(s)).
    log_ratio : float
        ln(p (1 - q) / ((1 - p) q)), the in/out ratio a_s / b_s of every column.

    Notes
    -----
    For 0 < s < k, P_out(s) is derived from P_in(s) through the exact identity
    P_out(s) / P_in(s) = (1-p) q / (p (1-q)) * (k-s) / s, so that every column has
    the same in/out ratio to the last ulp even where the binomial masses are tiny
    (k = 10^6). O(k) time and memory; more than :data:`~qifldp.symmetric.channel.MAX_CLASSES`
    classes are refused before anything is allocated (SizeError).

    Examples
    --------
    >>> import math
    >>> s, li, lo, r = one_hot_classes(2, *(math.log(v) for v in (0.75, 0.25, 0.25, 0.75)))
    >>> s.tolist(), [round(math.exp(v), 6) for v in li], round(r, 6)  # p (1-q), p q
    ([0, 1, 2], [0.0, 0.5625, 0.1875], 2.197225)
    """
    guard_classes(f"a one-hot symmetric channel with k = {k}", k + 1)
    s = np.arange(k + 1)
    pmf = log_binom_pmf(k - 1, np.arange(k), lq, l1mq)  # index j = number of other 1-bits
    log_in = np.full(k + 1, -np.inf)
    log_out = np.full(k + 1, -np.inf)
    if lp > -np.inf:
        log_in[1:] = lp + pmf
    if l1mp > -np.inf:
        log_out[0] = l1mp + pmf[0]
        if lq > -np.inf:  # otherwise no 1-bit from a 0-bit: P_out(s) = 0 for s >= 1
            inner = s[1:k].astype(np.float64)
            log_ratio = (lp - l1mp) + (l1mq - lq)  # ln(a_s / b_s)
            if lp > -np.inf:
                log_out[1:k] = log_in[1:k] + np.log((k - inner) / inner) - log_ratio
            else:  # p = 0 is excluded by q < p; kept for completeness
                log_out[1:k] = l1mp + pmf[1:]
    return s, log_in, log_out, (lp - l1mp) + (l1mq - lq)
