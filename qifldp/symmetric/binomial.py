"""Accurate logarithms of binomial probabilities and coefficients (Loader's saddle-point form)."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

__all__ = ["log_binom_pmf", "log_comb", "logsumexp"]

_LOG_2PI = math.log(2.0 * math.pi)

# Coefficients of the Stirling series of log(n!) - [(n + 1/2) log n - n + log(2 pi) / 2].
_S0, _S1, _S2, _S3, _S4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188

#: Below this n the Stirling error is computed from ``gammaln`` (small values, no
#: cancellation worth speaking of); above it from the 5-term series (truncation
#: error < 1e-17 at n = 16).
_STIRLERR_SERIES_FROM = 16

#: Number of terms of the series used by ``_bd0`` when x is close to n p; with
#: |v| < 0.1 each term gains two digits, so 12 terms exhaust double precision.
_BD0_TERMS = 12


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """log(n!) - [(n + 1/2) log n - n + log(2 pi)/2] for integers n >= 1 (float array)."""
    n = np.asarray(n, dtype=np.float64)
    out = np.empty_like(n)
    small = n < _STIRLERR_SERIES_FROM
    ns = n[small]
    out[small] = gammaln(ns + 1.0) - (ns + 0.5) * np.log(ns) + ns - 0.5 * _LOG_2PI
    nl = n[~small]
    nn = nl * nl
    out[~small] = (_S0 - (_S1 - (_S2 - (_S3 - _S4 / nn) / nn) / nn) / nn) / nl
    return out


def _bd0(x: np.ndarray, log_m: np.ndarray) -> np.ndarray:
    """The deviance term x log(x / m) + m - x (>= 0) for x > 0, m = exp(log_m) > 0.

    Computed by the series of Loader (2000) when x is within 10% of m (where the
    direct form cancels), directly otherwise; m is passed by its logarithm so that
    a subnormal m never overflows x / m.
    """
    m = np.exp(log_m)
    out = x * (np.log(x) - log_m) + m - x
    near = np.abs(x - m) < 0.1 * (x + m)
    if np.any(near):
        xn, mn = x[near], m[near]
        v = (xn - mn) / (xn + mn)
        s = (xn - mn) * v
        ej = 2.0 * xn * v
        v2 = v * v
        for j in range(1, _BD0_TERMS + 1):
            ej = ej * v2
            s = s + ej / (2 * j + 1)
        out[near] = s
    return out


def log_binom_pmf(n: int, x, log_theta: float, log_1m_theta: float) -> np.ndarray:
    """log Pr[Bin(n, theta) = x], accurate even where the probability underflows.

    Parameters
    ----------
    n : int
        Number of trials, ``n >= 0``.
    x : array_like of int
        Values in 0..n.
    log_theta, log_1m_theta : float
        log theta and log(1 - theta), each possibly ``-inf`` (theta = 0 or 1);
        passing both (instead of theta) keeps full relative accuracy of tiny
        theta and of tiny 1 - theta.

    Returns
    -------
    numpy.ndarray of float
        ``-inf`` where the probability is exactly 0.

    Notes
    -----
    Loader's saddle-point expansion (C. Loader, *Fast and accurate computation
    of binomial probabilities*, 2000): for 0 < x < n,
    log p(x) = stirlerr(n) - stirlerr(x) - stirlerr(n-x) - bd0(x, n theta)
    - bd0(n-x, n(1-theta)) - log(2 pi x (n-x) / n) / 2, which has no
    cancellation between large terms, so the relative error of p(x) stays near
    machine precision for n up to 10^6 and beyond (the naive gammaln form
    loses ~1e-9 there). p(0) = (1-theta)^n and p(n) = theta^n. Cost O(len(x)).

    Examples
    --------
    >>> import math
    >>> round(float(math.exp(log_binom_pmf(4, [2], math.log(0.5), math.log(0.5))[0])), 12)
    0.375
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, -np.inf)
    if n == 0:
        out[x == 0] = 0.0
        return out
    lo = x == 0
    hi = x == n
    mid = ~(lo | hi)
    with np.errstate(invalid="ignore"):
        # x = 0: (1 - theta)^n; x = n: theta^n (0 * -inf never occurs since n >= 1)
        out[lo] = n * log_1m_theta
        out[hi] = n * log_theta
    if np.any(mid) and log_theta > -np.inf and log_1m_theta > -np.inf:
        xm = x[mid]
        nf = float(n)
        log_n = math.log(nf)
        lc = (
            _stirlerr(np.array([nf]))[0]
            - _stirlerr(xm)
            - _stirlerr(nf - xm)
            - _bd0(xm, np.full(xm.shape, log_n + log_theta))
            - _bd0(nf - xm, np.full(xm.shape, log_n + log_1m_theta))
        )
        lf = _LOG_2PI + np.log(xm) + (np.log(nf - xm) - log_n)  # log(2 pi x (n-x) / n)
        out[mid] = lc - 0.5 * lf
    return out


def log_comb(n: int, x) -> np.ndarray:
    """log C(n, x) for integers 0 <= x <= n (array), via the pmf of Bin(n, 1/2).

    Notes
    -----
    log C(n, x) = log Pr[Bin(n, 1/2) = x] + n log 2; the absolute error is a few
    ulp of n log 2 (the value itself cannot be stored more precisely).

    Examples
    --------
    >>> round(float(np.exp(log_comb(10, [3])[0])), 9)
    120.0
    """
    half = math.log(0.5)
    return log_binom_pmf(n, x, half, half) + n * math.log(2.0)


def logsumexp(values) -> float:
    """log Σ exp(values) without overflow (``-inf`` for an empty or all ``-inf`` input).

    >>> round(logsumexp([0.0, 0.0]), 12) == round(math.log(2), 12)
    True
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size == 0:
        return -math.inf
    m = float(v.max())
    if m == -math.inf:
        return -math.inf
    return m + math.log(float(np.sum(np.exp(v - m))))
