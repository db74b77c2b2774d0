"""Closed forms for the leakage of the LDP protocols, checked against the explicit channels.

Every function takes numbers or numpy arrays (broadcast together) and returns a
float for scalar arguments, an ndarray otherwise. All are computed with e^-eps,
``log1p``/``expm1`` and logarithms, so they neither overflow nor lose precision
for large eps (e.g. 800) and large k (e.g. 10^6).

Each Bayes capacity ML(C) = Σ_y max_x C[x, y] equals the enumerated
:func:`qifldp.bayes_capacity` of the channel built by :mod:`qifldp.mechanisms`
(tests/test_formulas.py checks this on a grid). ASR = ML / k is the success of
the Bayes-optimal one-try attacker under a uniform prior (QIF paper Eq. 18).

Where a paper prints a different formula, the functions here return the true
value and say where the print is wrong:

* QIF paper Sec. V-B prints ML(SS) = k p / C(k-1, omega-1); the truth is
  k p / omega (they agree only for omega = 1 or omega = k - 1);
* Gursoy et al.'s LH success rate (QIF paper Eq. 25, :func:`asr_lh_gursoy`) is
  wrong for small k; the QIF paper's Eq. 26/27 is right;
* the multidimensional-risks paper's ACC of omega-SS uses the real-valued
  omega = k / (e^eps + 1) and can exceed 1; its ACC of OLH is Eq. 25 with the
  real-valued g = e^eps + 1 (``printed=True`` reproduces both).
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

import numpy as np
from scipy.special import expit, gammaln

from .errors import InputTypeError, ParameterError
from .protocols.params import OLH_FLOAT_EPS_LIMIT, olh_g

__all__ = [
    "bayes_capacity_grr",
    "bayes_capacity_ss",
    "bayes_capacity_lh",
    "bayes_capacity_blh",
    "bayes_capacity_olh",
    "bayes_capacity_ue",
    "bayes_capacity_sue",
    "bayes_capacity_oue",
    "bayes_capacity_the",
    "asr_grr",
    "asr_ss",
    "asr_lh",
    "asr_blh",
    "asr_olh",
    "asr_ue",
    "asr_sue",
    "asr_oue",
    "asr_the",
    "asr_lh_gursoy",
    "the_oue_threshold",
    "ldp_epsilon_the",
    "acc_grr",
    "acc_olh",
    "acc_ss",
    "acc_sue",
    "acc_oue",
    "SERIES_CUTOFF",
]

#: Where k q < SERIES_CUTOFF, (1 - (1 - q)^k) / q is evaluated by its series
#: k (1 - (k - 1) q / 2) (relative error below SERIES_CUTOFF^2 / 6), which stays
#: exact when q underflows to 0.
SERIES_CUTOFF: float = 1e-8


# -- argument handling ---------------------------------------------------------------
def _out(x: np.ndarray, scalar: bool) -> Any:
    return float(x) if scalar else x


def _scalar(**args: Any) -> bool:
    """True when every named argument is a scalar (a clear error for ragged sequences)."""
    return all(_asarray(name, a).ndim == 0 for name, a in args.items())


#: Integer arguments the closed forms evaluate in floating point: they must not
#: exceed the float range (g of local hashing is used through its logarithm and may).
_FLOAT_RANGE_INTS = frozenset({"k", "omega"})


def _asarray(name: str, value: Any) -> np.ndarray:
    """np.asarray with a clear error for ragged nested sequences."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as exc:
        msg = f"{name} must be a number or a rectangular array of numbers: {exc}"
        raise ParameterError(msg) from None


def _ints(name: str, value: Any, minimum: int) -> np.ndarray:
    """Integer array (dtype int64, or object for Python ints beyond int64) >= minimum."""
    arr = _asarray(name, value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf" and arr.dtype != object:
        msg = f"{name} must be an integer (or an array of integers), got {value!r}"
        raise InputTypeError(msg)
    if arr.dtype == object:
        flat = arr.reshape(-1)
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in flat):
            msg = f"{name} must be an integer (or an array of integers), got {value!r}"
            raise InputTypeError(msg)
        if any(v < minimum for v in flat):
            msg = f"{name} must be >= {minimum}, got {value!r}"
            raise ParameterError(msg)
        if name in _FLOAT_RANGE_INTS and any(v > sys.float_info.max for v in flat):
            msg = (
                f"{name} beyond the float range (about 1.8e308) is not supported by the "
                f"closed forms, got ~10^{math.log10(max(flat)):.1f}"
            )
            raise ParameterError(msg)
        return arr
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
            msg = f"{name} must be an integer (or an array of integers), got {value!r}"
            raise InputTypeError(msg)
        if np.any(np.abs(arr) >= 2.0**62):  # beyond int64: exact Python ints (object path)
            exact = np.empty(arr.shape, dtype=object)
            exact.reshape(-1)[:] = [int(v) for v in arr.reshape(-1)]
            return _ints(name, exact, minimum)
        arr = arr.astype(np.int64)
    if np.any(arr < minimum):
        msg = f"{name} must be >= {minimum}, got {value!r}"
        raise ParameterError(msg)
    return arr.astype(np.int64)


def _floats(name: str, value: Any) -> np.ndarray:
    arr = _asarray(name, value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        msg = f"{name} must be a real number (or an array of them), got {value!r}"
        raise InputTypeError(msg)
    arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        msg = f"{name} must not be NaN"
        raise ParameterError(msg)
    return arr


def _eps(value: Any) -> np.ndarray:
    arr = _floats("eps", value)
    if np.any(arr < 0):
        msg = f"eps must be >= 0, got {value!r}"
        raise ParameterError(msg)
    if np.any(np.isinf(arr)):
        msg = f"eps must be finite, got {value!r}"
        raise ParameterError(msg)
    return arr


def _theta(value: Any) -> np.ndarray:
    arr = _floats("theta", value)
    if np.any((arr <= 0.5) | (arr >= 1.0)):
        msg = f"theta must lie in the open interval (0.5, 1), got {value!r}"
        raise ParameterError(msg)
    return arr


def _log(arr: np.ndarray) -> np.ndarray:
    """Natural log of a positive integer array (object arrays of huge ints included)."""
    arr = np.asarray(arr)
    if arr.dtype == object:
        return np.vectorize(lambda v: math.log(v), otypes=[np.float64])(arr)
    return np.log(arr.astype(np.float64))


def _as_float(arr: np.ndarray, name: str = "k") -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype == object:
        try:
            return np.vectorize(float, otypes=[np.float64])(arr)
        except OverflowError:
            msg = f"{name} beyond the float range (about 1.8e308) is not supported by this formula"
            raise ParameterError(msg) from None
    return arr.astype(np.float64)


# -- shared closed forms -------------------------------------------------------------
def _one_minus_pow_over(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(1 - (1 - q)^k) / q, stable for tiny q (series) and any k."""
    q, k = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64))
    small = k * q < SERIES_CUTOFF
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = -np.expm1(k * np.log1p(-q)) / q
    return np.where(small, k * (1.0 - (k - 1.0) * q / 2.0), exact)


def _ue_capacity(
    k: np.ndarray, p: np.ndarray, q: np.ndarray, one_minus_p: np.ndarray
) -> np.ndarray:
    """ML of unary encoding, p >= q: (1 - p)(1 - q)^(k-1) + p (1 - (1 - q)^k) / q."""
    k = np.asarray(k, dtype=np.float64)
    return one_minus_p * np.exp((k - 1.0) * np.log1p(-q)) + p * _one_minus_pow_over(q, k)


def _lh_capacity(
    k: np.ndarray, eps: np.ndarray, log_g: np.ndarray, log_gm1: np.ndarray
) -> np.ndarray:
    """ML of LH = g [p - ((g-1)/g)^k (p - q)], written with logs of g and g - 1."""
    k = np.asarray(k, dtype=np.float64)
    ginv = np.exp(-log_g)
    # g (1 - (1 - 1/g)^k): k when 1/g underflows
    a = _one_minus_pow_over(ginv, k)
    # log of g ((g - 1)/g)^k e^-eps and of the denominator 1 + (g - 1) e^-eps: both may
    # exceed the float range (huge g, small eps), their difference never does.
    log_b = log_g + k * np.log1p(-ginv) - eps
    log_d = np.logaddexp(0.0, log_gm1 - eps)
    return a * np.exp(-log_d) + np.exp(log_b - log_d)


def _default_omega(k: np.ndarray, eps: np.ndarray) -> np.ndarray:
    # Same float expression as qifldp.protocols.params.ss_default_omega.
    return np.maximum(1, np.round(_as_float(k) * expit(-eps)))


def _omega(k: np.ndarray, eps: np.ndarray, omega: Any) -> np.ndarray:
    if omega is None:
        return _default_omega(k, eps)
    om = _ints("omega", omega, 1)
    if np.any(om > k):
        msg = f"omega must satisfy 1 <= omega <= k, got omega = {omega!r} for k = {k.tolist()!r}"
        raise ParameterError(msg)
    return om.astype(np.float64)


def _olh_logs(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log g and log(g - 1) for OLH's g = round(e^eps + 1), for every finite eps."""
    small = eps <= OLH_FLOAT_EPS_LIMIT
    g = np.vectorize(
        lambda e: float(olh_g(e)) if e <= OLH_FLOAT_EPS_LIMIT else 2.0, otypes=[float]
    )(eps)
    # Beyond the float range g - 1 = round(e^eps) = e^eps (1 + O(e^-eps)) and g = g - 1 + 1:
    # both logs equal eps to double precision.
    log_g = np.where(small, np.log(g), eps)
    log_gm1 = np.where(small, np.log(g - 1.0), eps)
    return log_g, log_gm1


# -- Bayes capacities --------------------------------------------------------------
def bayes_capacity_grr(k: Any, eps: Any) -> Any:
    """Bayes capacity of GRR: ML = k e^eps / (e^eps + k - 1).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.

    Returns
    -------
    float or numpy.ndarray
        In [1, k].

    Raises
    ------
    InputTypeError, ParameterError
        Non-integer ``k`` or ``k < 2``; ``eps`` negative, NaN or infinite.

    Notes
    -----
    Each column's maximum is p = e^eps / (e^eps + k - 1) (the QIF paper's Sec. V-A,
    whose displayed formula is lost in the text extraction). Evaluated as
    k / (1 + (k - 1) e^-eps). O(1).

    Examples
    --------
    >>> import math
    >>> round(bayes_capacity_grr(3, math.log(2)), 12)
    1.5
    >>> bayes_capacity_grr(10**6, 50.0)  # ~ k
    1000000.0
    """
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)
    kf = k.astype(np.float64)
    return _out(kf / (1.0 + (kf - 1.0) * np.exp(-eps)), scalar)


def bayes_capacity_ss(k: Any, eps: Any, omega: Any = None) -> Any:
    """Bayes capacity of omega-SS: ML = k e^eps / (omega e^eps + k - omega).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    omega : int or array_like of int, optional
        Subset size(s), ``1 <= omega <= k``; default ``max(1, round(k / (e^eps + 1)))``
        as in :func:`qifldp.subset_selection`.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k``, ``eps`` or ``omega``.

    Notes
    -----
    Every column S has maximum p / C(k-1, omega-1) (an input inside S), and there
    are C(k, omega) columns, so ML = C(k, omega) p / C(k-1, omega-1) = k p / omega
    with p = omega e^eps / (omega e^eps + k - omega).

    **Misprint.** The QIF paper (Sec. V-B) prints ML = k p / C(k-1, omega-1), i.e.
    it counts k columns instead of C(k, omega). That equals the truth only when
    C(k-1, omega-1) = omega (omega = 1 or omega = k - 1, e.g. its k = 3, omega = 2
    example); for k = 5, omega = 2, eps = 1 it gives 0.8055 (below 1, impossible for
    a capacity) against the true 1.6110.

    Examples
    --------
    >>> round(bayes_capacity_ss(5, 1.0, 2), 4)
    1.611
    >>> bayes_capacity_ss(4, 1.0, 4)  # omega = k: one output, no leakage
    1.0
    """
    scalar = _scalar(k=k, eps=eps, omega=omega)
    k, eps = _ints("k", k, 2), _eps(eps)
    om = _omega(k, eps, omega)
    kf = k.astype(np.float64)
    return _out(kf / (om + (kf - om) * np.exp(-eps)), scalar)


def bayes_capacity_lh(k: Any, eps: Any, g: Any) -> Any:
    """Bayes capacity of local hashing (QIF paper Eq. 27, the corrected formula).

    ML = (e^eps g^k + (g - 1)^k (1 - e^eps)) / ((e^eps + g - 1) g^(k-1)).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    g : int or array_like of int
        Hash range(s), ``>= 2`` (Python ints of any size are accepted).

    Returns
    -------
    float or numpy.ndarray
        In [1, min(k, g)].

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k``, ``eps`` or ``g``.

    Notes
    -----
    A column (h, z) has maximum p / g^k when some x has h(x) = z, which happens for
    g^k - (g-1)^k of the g^k functions, and q / g^k otherwise; so
    ML = g [p - ((g-1)/g)^k (p - q)]. Evaluated as
    (g (1 - (1 - 1/g)^k) + g ((g-1)/g)^k e^-eps) / (1 + (g - 1) e^-eps) with
    log1p/expm1 (all terms positive, no cancellation). This matches the enumerated
    channel for every k; Gursoy et al.'s Eq. 25 does not (:func:`asr_lh_gursoy`).

    Examples
    --------
    >>> import math
    >>> bayes_capacity_lh(2, math.log(3), 2)  # (3*4 + 1*(1 - 3)) / (4 * 2)
    1.25
    >>> round(bayes_capacity_lh(10**6, 50.0, 3), 6)  # -> g as k grows
    3.0
    """
    scalar = _scalar(k=k, eps=eps, g=g)
    k, eps, g = _ints("k", k, 2), _eps(eps), _ints("g", g, 2)
    return _out(_lh_capacity(k, eps, _log(g), _log(g - 1)), scalar)


def bayes_capacity_blh(k: Any, eps: Any) -> Any:
    """Bayes capacity of binary local hashing: :func:`bayes_capacity_lh` with g = 2.

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_lh` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        The multiplicative Bayes capacity, in [1, k].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_lh`.

    Examples
    --------
    >>> import math
    >>> bayes_capacity_blh(2, math.log(3))
    1.25
    """
    return bayes_capacity_lh(k, eps, 2)


def bayes_capacity_olh(k: Any, eps: Any) -> Any:
    """Bayes capacity of OLH: :func:`bayes_capacity_lh` with g = round(e^eps + 1).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``; any size (g is handled by its
        logarithm beyond eps = 700).

    Returns
    -------
    float or numpy.ndarray

    Notes
    -----
    g is :func:`qifldp.protocols.params.olh_g` (the g of :func:`qifldp.olh`).
    As eps grows, ML -> (k + 1) / 2.

    Examples
    --------
    >>> round(bayes_capacity_olh(50, 800.0), 6)
    25.5
    """
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)
    log_g, log_gm1 = _olh_logs(eps)
    return _out(_lh_capacity(k, eps, log_g, log_gm1), scalar)


def bayes_capacity_ue(k: Any, p: Any, q: Any) -> Any:
    """Bayes capacity of unary encoding with bit probabilities p (1 -> 1) and q (0 -> 1).

    ML = (1 - p)(1 - q)^(k-1) + (p / q)(1 - (1 - q)^k).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    p, q : float or array_like
        Probabilities with ``0 <= q < p <= 1``.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k``; ``p``/``q`` outside [0, 1] or ``q >= p``.

    Notes
    -----
    An output with i >= 1 ones is most likely under an input whose bit is among
    them (p q^(i-1) (1-q)^(k-i), as p (1 - q) >= (1 - p) q); the all-zero output
    has maximum (1 - p)(1 - q)^(k-1). Summing C(k, i) such maxima gives the formula
    (the QIF paper's derivations for SUE, OUE, THE in Sec. V-D/E, which are right).
    (1 - (1 - q)^k) / q is evaluated with expm1/log1p, or its series when k q is
    tiny, so q -> 0 gives (1 - p) + k p.

    Examples
    --------
    >>> bayes_capacity_ue(2, 0.75, 0.25)
    1.5
    >>> bayes_capacity_ue(3, 1.0, 0.0)  # the identity on one-hot vectors
    3.0
    """
    scalar = _scalar(k=k, p=p, q=q)
    k = _ints("k", k, 2)
    p, q = _floats("p", p), _floats("q", q)
    if np.any((p < 0) | (p > 1)) or np.any((q < 0) | (q > 1)) or np.any(q >= p):
        msg = f"p and q must satisfy 0 <= q < p <= 1, got p = {p.tolist()!r}, q = {q.tolist()!r}"
        raise ParameterError(msg)
    return _out(_ue_capacity(k, p, q, 1.0 - p), scalar)


def bayes_capacity_sue(k: Any, eps: Any) -> Any:
    """Bayes capacity of SUE (basic RAPPOR), p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p.

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_grr` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        The multiplicative Bayes capacity, in [1, k].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_grr`.

    Notes
    -----
    :func:`bayes_capacity_ue` with these p, q; equal to the QIF paper's
    (p + p^(k-1)(1 - 2p)) / (1 - p) (Sec. V-D, correct). p and q come from the
    logistic function, so eps = 800 gives k without overflow.

    Examples
    --------
    >>> import math
    >>> bayes_capacity_sue(2, 2 * math.log(3))
    1.5
    >>> round(bayes_capacity_sue(10**6, 50.0), 1)  # k - (k - 1) q / 2 -ish, q = e^-25
    999993.1
    """
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)
    p, q = expit(eps / 2), expit(-eps / 2)
    return _out(_ue_capacity(k, p, q, q), scalar)


def bayes_capacity_oue(k: Any, eps: Any) -> Any:
    """Bayes capacity of OUE, p = 1/2, q = 1 / (e^eps + 1).

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_grr` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        The multiplicative Bayes capacity, in [1, k].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_grr`.

    Notes
    -----
    :func:`bayes_capacity_ue` with these p, q; equal to the QIF paper's
    ((1 - q)^(k-1)(2q - 1) + 1) / (2q) (Sec. V-D, correct), but evaluated without
    its cancellation (that form loses all digits when q is tiny). As eps grows,
    ML -> (k + 1) / 2.

    Examples
    --------
    >>> import math
    >>> round(bayes_capacity_oue(2, math.log(3)), 12)
    1.25
    >>> bayes_capacity_oue(9, 800.0)
    5.0
    """
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)
    q = expit(-eps)
    return _out(_ue_capacity(k, 0.5, q, 0.5), scalar)


def bayes_capacity_the(k: Any, eps: Any, theta: Any) -> Any:
    """Bayes capacity of THE with threshold theta: ML = (1 - q)^(k-1)(1 - p/q) + p/q.

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    theta : float or array_like
        Threshold(s) in the open interval (0.5, 1).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k``, ``eps`` or ``theta``.

    Notes
    -----
    p = 1 - e^(-eps (1 - theta) / 2) / 2, q = e^(-eps theta / 2) / 2 (the THE bit
    channel). The QIF paper's Sec. V-E formula is correct; it is evaluated here as
    :func:`bayes_capacity_ue` with 1 - p computed directly.

    Examples
    --------
    >>> round(bayes_capacity_the(3, 2.0, 0.75), 6)
    1.660402
    """
    scalar = _scalar(k=k, eps=eps, theta=theta)
    k, eps, theta = _ints("k", k, 2), _eps(eps), _theta(theta)
    q = 0.5 * np.exp(-eps * theta / 2.0)
    one_minus_p = 0.5 * np.exp(-eps * (1.0 - theta) / 2.0)
    return _out(_ue_capacity(k, 1.0 - one_minus_p, q, one_minus_p), scalar)


# -- attack success rates -----------------------------------------------------------
def _per_k(ml: Any, k: Any) -> Any:
    kf = _as_float(_ints("k", k, 2))
    return _out(np.asarray(ml) / kf, np.ndim(ml) == 0 and np.ndim(k) == 0)


def asr_grr(k: Any, eps: Any) -> Any:
    """ASR of GRR = ML / k = e^eps / (e^eps + k - 1).

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_grr` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_grr`.

    Examples
    --------
    >>> import math
    >>> round(asr_grr(3, math.log(2)), 12)
    0.5
    """
    return _per_k(bayes_capacity_grr(k, eps), k)


def asr_ss(k: Any, eps: Any, omega: Any = None) -> Any:
    """ASR of omega-SS = ML / k = e^eps / (omega e^eps + k - omega).

    Parameters
    ----------
    k, eps, omega
        As in :func:`bayes_capacity_ss` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_ss`.

    Examples
    --------
    >>> round(asr_ss(6, math.log(2), 2), 12)  # e^eps / (2 e^eps + 4) = 2 / 8
    0.25
    """
    return _per_k(bayes_capacity_ss(k, eps, omega), k)


def asr_lh(k: Any, eps: Any, g: Any) -> Any:
    """ASR of LH = ML / k (QIF paper Eq. 26).

    Parameters
    ----------
    k, eps, g
        As in :func:`bayes_capacity_lh` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_lh`.

    Examples
    --------
    >>> asr_lh(2, math.log(3), 2)
    0.625
    """
    return _per_k(bayes_capacity_lh(k, eps, g), k)


def asr_blh(k: Any, eps: Any) -> Any:
    """ASR of BLH = ML / k.

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_blh` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_blh`.

    Examples
    --------
    >>> asr_blh(2, math.log(3))
    0.625
    """
    return _per_k(bayes_capacity_blh(k, eps), k)


def asr_olh(k: Any, eps: Any) -> Any:
    """ASR of OLH = ML / k, g = round(e^eps + 1).

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_olh` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_olh`.

    Examples
    --------
    >>> round(asr_olh(50, 800.0), 6)
    0.51
    """
    return _per_k(bayes_capacity_olh(k, eps), k)


def asr_ue(k: Any, p: Any, q: Any) -> Any:
    """ASR of unary encoding = ML / k.

    Parameters
    ----------
    k, p, q
        As in :func:`bayes_capacity_ue` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_ue`.

    Examples
    --------
    >>> asr_ue(2, 0.75, 0.25)
    0.75
    """
    return _per_k(bayes_capacity_ue(k, p, q), k)


def asr_sue(k: Any, eps: Any) -> Any:
    """ASR of SUE = ML / k.

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_sue` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_sue`.

    Examples
    --------
    >>> asr_sue(2, 2 * math.log(3))
    0.75
    """
    return _per_k(bayes_capacity_sue(k, eps), k)


def asr_oue(k: Any, eps: Any) -> Any:
    """ASR of OUE = ML / k.

    Parameters
    ----------
    k, eps
        As in :func:`bayes_capacity_oue` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_oue`.

    Examples
    --------
    >>> round(asr_oue(2, math.log(3)), 12)
    0.625
    """
    return _per_k(bayes_capacity_oue(k, eps), k)


def asr_the(k: Any, eps: Any, theta: Any) -> Any:
    """ASR of THE = ML / k.

    Parameters
    ----------
    k, eps, theta
        As in :func:`bayes_capacity_the` (scalars or broadcastable arrays).

    Returns
    -------
    float or numpy.ndarray
        Success probability of the Bayes-optimal one-try attacker, in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`bayes_capacity_the`.

    Examples
    --------
    >>> round(asr_the(3, 2.0, 0.75), 6)
    0.553467
    """
    return _per_k(bayes_capacity_the(k, eps, theta), k)


def asr_lh_gursoy(k: Any, eps: Any, g: Any) -> Any:
    """Gursoy et al.'s LH attack success rate, QIF paper Eq. 25 -- kept to show it is wrong.

    ASR_Gursoy = e^eps / ((e^eps + g - 1) max(k / g, 1)).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    g : int or array_like of int
        Hash range(s), ``>= 2``.

    Returns
    -------
    float or numpy.ndarray
        The printed value, *not* the true success rate (:func:`asr_lh`).

    Notes
    -----
    The derivation (Gursoy et al. 2022, their Eq. 24) uses
    (E|U| - 1) / E|U| for the chance of guessing wrong inside the support set U,
    where E[1 - 1/|U|] is right (QIF paper, appendix A). It approaches the truth
    only for large k: at k = 2, g = 2, eps = 3 it gives 0.9526 against the true
    (enumerated) 0.7263.

    Examples
    --------
    >>> round(asr_lh_gursoy(2, 3.0, 2), 4), round(asr_lh(2, 3.0, 2), 4)
    (0.9526, 0.7263)
    """
    scalar = _scalar(k=k, eps=eps, g=g)
    k, eps, g = _ints("k", k, 2), _eps(eps), _ints("g", g, 2)
    kf, gf = _as_float(k), _as_float(g)
    return _out(1.0 / ((1.0 + (gf - 1.0) * np.exp(-eps)) * np.maximum(kf / gf, 1.0)), scalar)


def the_oue_threshold(eps: Any) -> Any:
    """Lemma 10's threshold: OUE_bit(eps) ⊑ THE_bit(eps, theta) iff theta >= this value.

    theta*(eps) = (2 ln(e^eps + 1 + (e^(eps/2) - 1) sqrt(e^eps + 1)) - eps - 2 ln 2) / eps.

    Parameters
    ----------
    eps : float or array_like
        Finite, ``>= 0``. At eps = 0 the formula is 0/0 and its limit 1/sqrt(2) is
        returned.

    Returns
    -------
    float or numpy.ndarray
        Increasing in eps, from 1/sqrt(2) towards 1.

    Notes
    -----
    Rewritten as theta* = 1 + 2 ln(T / 2) / eps with
    T = 1 + e^-eps + (1 - e^(-eps/2)) sqrt(1 + e^-eps), evaluated with expm1/log1p:
    no overflow for large eps and no 0/0 for small eps. The paper's example
    eps = 0.8 gives theta* = 0.79999 ("theta >= 0.8"). Lemma 1(3) (the trade-off
    criterion) confirms it: tests/test_formulas.py checks refinement just above
    and its failure just below.

    Examples
    --------
    >>> round(the_oue_threshold(0.8), 5)
    0.79999
    >>> round(the_oue_threshold(0.0), 12) == round(2 ** -0.5, 12)
    True
    """
    scalar = _scalar(eps=eps)
    eps = _eps(eps)
    half = -np.expm1(-eps / 2)  # 1 - e^(-eps/2)
    t_minus_2 = np.expm1(-eps) + half * np.sqrt(1.0 + np.exp(-eps))  # T - 2
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = 1.0 + 2.0 * np.log1p(t_minus_2 / 2.0) / eps
    theta = np.where(eps > 0, theta, 1.0 / math.sqrt(2.0))
    return _out(theta, scalar)


def ldp_epsilon_the(eps: Any, theta: Any) -> Any:
    """The true LDP epsilon of THE(k, eps, theta), strictly below the nominal eps.

    eps_true = eps/2 + 2 ln 2 + ln(1 - e^(-eps (1 - theta)/2) / 2) + ln(1 - e^(-eps theta/2) / 2).

    Parameters
    ----------
    eps : float or array_like
        Nominal privacy parameter(s) (the Laplace noise has scale 2/eps), finite, ``>= 0``.
    theta : float or array_like
        Threshold(s) in the open interval (0.5, 1).

    Returns
    -------
    float or numpy.ndarray
        ``ldp_epsilon(the(k, eps, theta))`` for every k >= 2.

    Notes
    -----
    Neighbouring inputs x, x' differ in two bits of the one-hot vector, so the
    largest likelihood ratio is (p / q)((1 - q) / (1 - p)), with
    q = e^(-eps theta/2)/2 and 1 - p = e^(-eps (1 - theta)/2)/2. Its log is the
    expression above, evaluated as eps/2 + log1p(1 - e^(-eps (1 - theta)/2)) +
    log1p(1 - e^(-eps theta/2)) (no cancellation at small eps): eps to first
    order at eps -> 0, but eps/2 + 2 ln 2 + o(1) as eps grows (at eps = 10,
    theta = 0.75 it is 6.22). Thresholding is post-processing of the eps-LDP
    Laplace histogram, hence eps_true <= eps.

    Examples
    --------
    >>> round(ldp_epsilon_the(10.0, 0.75), 4)
    6.2199
    """
    scalar = _scalar(eps=eps, theta=theta)
    eps, theta = _eps(eps), _theta(theta)
    # ln 2 + ln(1 - e^-a / 2) = ln(2 - e^-a) = log1p(1 - e^-a): no cancellation near 0.
    value = (
        eps / 2.0
        + np.log1p(-np.expm1(-eps * (1.0 - theta) / 2.0))
        + np.log1p(-np.expm1(-eps * theta / 2.0))
    )
    return _out(value, scalar)


# -- expected attacker accuracy (multidimensional-risks paper) ------------------------
def _check_printed(printed: Any) -> bool:
    if not isinstance(printed, (bool, np.bool_)):
        msg = f"printed must be a bool, got {printed!r}"
        raise InputTypeError(msg)
    return bool(printed)


def acc_grr(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the plausible-deniability attacker on GRR (guess = report).

    ACC_GRR = e^eps / (e^eps + k - 1).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    printed : bool
        Evaluate the paper's printed expression; for GRR it is exact, so both
        choices give the same value.

    Returns
    -------
    float or numpy.ndarray
        A probability (the multidimensional-risks paper, Arcolezi et al. 2023,
        Sec. 3.2.1, reports 100 times this, in percent).

    Notes
    -----
    The attacker is the Bayes-optimal one, so ACC_GRR = :func:`asr_grr`.

    Examples
    --------
    >>> import math
    >>> round(acc_grr(3, math.log(2)), 12)
    0.5
    """
    _check_printed(printed)
    return asr_grr(k, eps)


def acc_olh(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the support-set attacker on OLH.

    The attacker guesses uniformly among the values that hash to the reported
    value (uniformly over the domain if there are none).

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    printed : bool
        False (default): the true expected accuracy on :func:`qifldp.olh`
        (all g^k hash functions, g = round(e^eps + 1)). True: the paper's
        printed 1 / (2 max(k / (e^eps + 1), 1)).

    Returns
    -------
    float or numpy.ndarray

    Notes
    -----
    Every input in the support set has the same, maximal likelihood, so this
    attacker is Bayes-optimal and its accuracy is :func:`asr_olh` exactly.
    The printed formula is Gursoy et al.'s Eq. 25 (:func:`asr_lh_gursoy`) at the
    real-valued g = e^eps + 1: an approximation that is wrong for small k. At
    k = 2, eps = 3 it prints 0.5 while the truth is 0.7267 (g = 21).

    Examples
    --------
    >>> round(acc_olh(2, 3.0), 4), acc_olh(2, 3.0, printed=True)
    (0.7267, 0.5)
    """
    if not _check_printed(printed):
        return asr_olh(k, eps)
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)
    kf = _as_float(k)
    return _out(1.0 / (2.0 * np.maximum(kf * expit(-eps), 1.0)), scalar)


def acc_ss(k: Any, eps: Any, omega: Any = None, printed: bool = False) -> Any:
    """Expected accuracy of the uniform-guess-in-the-subset attacker on omega-SS.

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    omega : int or array_like of int, optional
        Subset size; default as :func:`qifldp.subset_selection`. Not allowed with
        ``printed=True``.
    printed : bool
        False (default): the true accuracy e^eps / (omega e^eps + k - omega).
        True: the paper's printed (e^eps + 1) / (2 k).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ParameterError
        ``omega`` given together with ``printed=True``.

    Notes
    -----
    Inputs inside the reported subset are the most likely ones, all equally, so
    the attacker is Bayes-optimal: ACC = :func:`asr_ss` = p / omega. The printed
    formula is this at the real-valued omega = k / (e^eps + 1), which the protocol
    cannot use unless it is an integer (then both agree, e.g. k = 6,
    eps = ln 2). With the integer omega >= 1 it is off, and it exceeds 1 once
    e^eps > 2k - 1: at k = 10, eps = 5 it prints 7.47 (747 %), the truth being 0.943.
    The printed value is returned as +inf where e^eps overflows (eps > ~709).

    Examples
    --------
    >>> round(acc_ss(10, 5.0), 3), round(acc_ss(10, 5.0, printed=True), 2)
    (0.943, 7.47)
    """
    if not _check_printed(printed):
        return asr_ss(k, eps, omega)
    if omega is not None:
        msg = "omega must be None with printed=True (the paper fixes omega = k / (e^eps + 1))"
        raise ParameterError(msg)
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)
    kf = _as_float(k)
    # (e^eps + 1) / (2k) = 1 / (2 k expit(-eps)); +inf once e^eps overflows (eps > ~709).
    with np.errstate(divide="ignore", over="ignore"):
        return _out(1.0 / (2.0 * kf * expit(-eps)), scalar)


def _log_binom_pmf(i: np.ndarray, n: int, q: float) -> np.ndarray:
    """log Bin(i; n, q) in log space (q in (0, 1))."""
    return (
        gammaln(n + 1.0)
        - gammaln(i + 1.0)
        - gammaln(n - i + 1.0)
        + i * math.log(q)
        + (n - i) * math.log1p(-q)
    )


def _printed_ue_acc(k: int, p: float, q: float, one_minus_p: float, one_minus_q: float) -> float:
    """The paper's ACC_UE: (1-p)(1-q)^(k-1)/k + Σ_{i=1..k} (p / i) Bin(i-1; k-1, q)."""
    i = np.arange(1, k + 1, dtype=np.float64)
    if q == 0.0:
        total = p  # only i = 1 has mass
    else:
        total = float(np.sum(p / i * np.exp(_log_binom_pmf(i - 1.0, k - 1, q))))
    return one_minus_p * math.exp((k - 1) * math.log(one_minus_q)) / k + total


def acc_sue(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the plausible-deniability attacker on SUE.

    The attacker guesses uniformly among the reported 1 bits, or over the whole
    domain when there is none.

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    printed : bool
        False (default): the closed form :func:`asr_sue`. True: the paper's
        printed sum (1/(k(e^(eps/2)+1))) (e^(eps/2)/(e^(eps/2)+1))^(k-1) +
        Σ_{i=1..k} e^(eps/2) / ((e^(eps/2)+1) i) Bin(i-1; k-1, 1/(e^(eps/2)+1)),
        evaluated term by term (O(k)).

    Returns
    -------
    float or numpy.ndarray

    Notes
    -----
    The printed sum is exact: Σ_m Bin(m; k-1, q) / (m+1) = (1 - (1-q)^k) / (k q),
    so it equals ML(SUE) / k, and the attacker is Bayes-optimal (a reported 1 is
    always at least as likely to be the true bit as a reported 0).

    Examples
    --------
    >>> import math
    >>> round(acc_sue(5, 2.0), 12) == round(acc_sue(5, 2.0, printed=True), 12)
    True
    """
    if not _check_printed(printed):
        return asr_sue(k, eps)
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)

    def one(kk: int, e: float) -> float:
        p, q = float(expit(e / 2)), float(expit(-e / 2))
        return _printed_ue_acc(int(kk), p, q, q, p)

    return _out(np.vectorize(one, otypes=[np.float64])(k, eps), scalar)


def acc_oue(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the plausible-deniability attacker on OUE.

    Parameters
    ----------
    k : int or array_like of int
        Domain size(s), ``>= 2``.
    eps : float or array_like
        Privacy parameter(s), finite, ``>= 0``.
    printed : bool
        False (default): the closed form :func:`asr_oue`. True: the paper's
        printed sum (1/(2k)) (e^eps/(e^eps+1))^(k-1) +
        Σ_{i=1..k} 1/(2i) Bin(i-1; k-1, 1/(e^eps+1)), term by term.

    Returns
    -------
    float or numpy.ndarray

    Notes
    -----
    Exact, for the same reason as :func:`acc_sue`: it equals ML(OUE) / k.

    Examples
    --------
    >>> round(acc_oue(5, 2.0), 12) == round(acc_oue(5, 2.0, printed=True), 12)
    True
    """
    if not _check_printed(printed):
        return asr_oue(k, eps)
    scalar = _scalar(k=k, eps=eps)
    k, eps = _ints("k", k, 2), _eps(eps)

    def one(kk: int, e: float) -> float:
        return _printed_ue_acc(int(kk), 0.5, float(expit(-e)), 0.5, float(expit(e)))

    return _out(np.vectorize(one, otypes=[np.float64])(k, eps), scalar)
