"""Accurate logarithms of binomial probabilities and coefficients (Loader's saddle-point form)."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from .. import deadline

__all__ = [
    "log_binom_pmf",
    "log_comb",
    "reads_table",
    "comb_table",
    "logsumexp",
    "COMB_TABLE_MAX_N",
    "COMB_CHUNK",
]

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


#: log C(n, ·) for n up to this is kept as a table of all n + 1 values (8 (n + 1) bytes):
#: a decision at k = 10^6 reads log C(k - 1, ·) a dozen times (the channels' entries,
#: the bit channels' product forms), each a Loader sum of ~0.5 s CPU.
COMB_TABLE_MAX_N: int = 1 << 22
#: The table is computed in blocks of this many values, the decision's deadline
#: (:mod:`qifldp.deadline`) read between blocks (none below the first block's size).
COMB_CHUNK: int = 1 << 16
#: Tables kept (the most recently used n).
_TABLES_KEPT = 4
_TABLES: dict[int, np.ndarray] = {}
#: From this many values on, log_comb reads the table instead of computing each value.
_TABLE_FROM = 4096


def _log_comb_direct(n: int, x) -> np.ndarray:
    half = math.log(0.5)
    return log_binom_pmf(n, x, half, half) + n * math.log(2.0)


def _comb_table(n: int) -> np.ndarray:
    """log C(n, x) for x = 0..n (read-only; computed once per n, in deadline-read blocks)."""
    table = _TABLES.pop(n, None)
    if table is None:
        table = np.empty(n + 1)
        for lo in range(0, n + 1, COMB_CHUNK):
            if lo and not deadline.affordable():
                raise deadline.expired(f"the binomial coefficients log C({n}, x), x <= {n}")
            hi = min(n + 1, lo + COMB_CHUNK)
            table[lo:hi] = _log_comb_direct(n, np.arange(lo, hi))
        table.flags.writeable = False
        # the least recently used go (list() copies the keys at once: threads may share it)
        for old in list(_TABLES)[: max(0, len(_TABLES) - _TABLES_KEPT + 1)]:
            _TABLES.pop(old, None)
    _TABLES[n] = table  # most recently used last
    return table


def log_comb(n: int, x) -> np.ndarray:
    """log C(n, x) for integers 0 <= x <= n (array), via the pmf of Bin(n, 1/2).

    Notes
    -----
    log C(n, x) = log Pr[Bin(n, 1/2) = x] + n log 2; the absolute error is a few
    ulp of n log 2 (the value itself cannot be stored more precisely). Integer arrays
    of 4096 values or more (n <= :data:`COMB_TABLE_MAX_N`; over a quarter of the n + 1
    values, or a table already kept) are read from a table of log C(n, 0..n) kept for
    the last few n, computed by the same formula in blocks
    between which the decision's deadline is read (:mod:`qifldp.deadline`: a spent
    time limit raises its SolverError).

    Examples
    --------
    >>> round(float(np.exp(log_comb(10, [3])[0])), 9)
    120.0
    >>> x = np.arange(5000)
    >>> bool(np.array_equal(log_comb(9999, x), _log_comb_direct(9999, x)))
    True
    """
    xa = np.asarray(x)
    if reads_table(n, xa):
        return _comb_table(int(n))[xa]
    return _log_comb_direct(n, xa)


def reads_table(n: int, x) -> bool:
    """Whether :func:`log_comb` (n, x) reads the table of n (computed on first use, in
    deadline-read blocks), so that a caller can build it before a step it times.

    >>> reads_table(10**6, np.arange(10**6)), reads_table(10**6, np.arange(10))
    (True, False)
    """
    xa = np.asarray(x)
    return bool(
        xa.size >= _TABLE_FROM
        and 0 <= n <= COMB_TABLE_MAX_N
        and (4 * xa.size > n or n in _TABLES)  # a table only for a good share of its values
        and np.issubdtype(xa.dtype, np.integer)
        and int(xa.min()) >= 0
        and int(xa.max()) <= n
    )


def comb_table(n: int) -> np.ndarray:
    """log C(n, x) for x = 0..n, the table :func:`log_comb` reads (built once per n).

    >>> round(float(np.exp(comb_table(10)[3])), 9)
    120.0
    """
    return _comb_table(int(n))


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
