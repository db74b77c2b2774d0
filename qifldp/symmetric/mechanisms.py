"""Constructors of the paper's protocols as symmetric channels (no size limit from enumeration)."""

from __future__ import annotations

import math

import numpy as np

from ..validation import check_eps
from ..protocols.params import (
    check_g,
    check_k,
    check_pq,
    check_ss,
    check_theta,
    olh_g,
)
from .binomial import log_binom_pmf
from .channel import SymmetricChannel
from .logparams import log_grr, log_oue, log_pq, log_ss, log_sue, log_the

__all__ = [
    "grr",
    "subset_selection",
    "local_hashing",
    "blh",
    "olh",
    "unary_encoding",
    "sue",
    "oue",
    "the",
]


def _one_hot_classes(k: int, lp: float, l1mp: float, lq: float, l1mq: float):
    """Class masses of one-hot bits: P_in(s) = p Bin(k-1,q)(s-1), P_out(s) = (1-p) Bin(k-1,q)(s).

    For 0 < s < k, P_out(s) is derived from P_in(s) through the exact identity
    P_out(s) / P_in(s) = (1-p) q / (p (1-q)) * (k-s) / s, so that every column has
    the same in/out ratio a_s / b_s = p (1-q) / ((1-p) q) to the last ulp even
    where the binomial masses are tiny (k = 10^6).
    """
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


def grr(k: int, eps: float) -> SymmetricChannel:
    """Generalized randomized response as a symmetric channel (outputs: singletons).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    SymmetricChannel
        One size class s = 1: P_in = p = e^eps / (e^eps + k - 1), P_out = (k-1) q.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.grr`.

    Notes
    -----
    QIF paper Sec. V-A. Output y is the singleton {y}. ``expand()`` equals
    ``qifldp.grr(k, eps)``. O(1) memory.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.bayes_capacity(sym.grr(10**6, 5.0)), 6)  # k p = k e^5 / (e^5 + k - 1)
    148.391284
    """
    k = check_k(k)
    eps = check_eps(eps)
    lp, l1mp = log_grr(k, eps)
    name = f"grr(k={k}, eps={eps:g})"
    return SymmetricChannel._make(k, [1], [lp], [l1mp], name, ("grr",), log_ratio=eps)


def subset_selection(k: int, eps: float, omega: int | None = None) -> SymmetricChannel:
    """omega-subset selection as a symmetric channel (outputs: the omega-subsets).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    omega : int, optional
        Subset size in 1..k; default ``max(1, round(k / (e^eps + 1)))``
        (:func:`qifldp.protocols.params.ss_default_omega`).

    Returns
    -------
    SymmetricChannel
        One size class s = omega: P_in = p = omega e^eps / (omega e^eps + k - omega),
        P_out = 1 - p.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.subset_selection`.

    Notes
    -----
    QIF paper Sec. V-B. ``expand()`` equals ``qifldp.subset_selection(k, eps, omega)``
    (outputs sorted tuples in ``itertools.combinations`` order).

    Examples
    --------
    >>> import math, qifldp as q, qifldp.symmetric as sym
    >>> C = sym.subset_selection(10**6, 2.0)
    >>> int(C.sizes[0])  # round(10^6 / (e^2 + 1))
    119203
    >>> round(q.ldp_epsilon(C), 9)
    2.0
    """
    k, eps, omega = check_ss(k, eps, omega)
    lp, l1mp = log_ss(k, eps, omega)
    return SymmetricChannel._make(
        k,
        [omega],
        [lp],
        [l1mp],
        f"subset_selection(k={k}, eps={eps:g}, omega={omega})",
        ("subsets",),
        log_ratio=eps,
    )


def local_hashing(k: int, eps: float, g: int) -> SymmetricChannel:
    """Local hashing as a symmetric channel, lumped by the preimage S = h^-1(z).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    g : int
        Hash range, ``g >= 2``.

    Returns
    -------
    SymmetricChannel
        Sizes 0..k: P_in(s) = p Bin(k-1, 1/g)(s-1), P_out(s) = (1-p) Bin(k-1, 1/g)(s),
        with p = e^eps / (e^eps + g - 1).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.local_hashing`.

    Notes
    -----
    The explicit output (h, z) has column g^-k (p if h(x) = z else q): it depends
    only on S = h^-1(z), and g (g-1)^(k-s) pairs (h, z) share each S of size s
    (z free, h maps S to z and the other k - s values elsewhere). Merging them
    gives the subset channel a_s = g (g-1)^(k-s) g^-k p, b_s = g (g-1)^(k-s) g^-k q,
    whose class masses are the binomial expressions above. ``expand()`` equals
    ``qifldp.local_hashing(k, eps, g)`` (all g^(k+1) outputs). O(k) memory.

    Examples
    --------
    >>> import math, qifldp as q, qifldp.symmetric as sym
    >>> round(q.bayes_capacity(sym.local_hashing(2, math.log(3), 2)), 12)
    1.25
    """
    k = check_k(k)
    g = check_g(g)
    eps = check_eps(eps)
    lp, l1mp = log_grr(g, eps)
    log_theta = -math.log(g)
    s, log_in, log_out, _ = _one_hot_classes(k, lp, l1mp, log_theta, math.log1p(-1.0 / g))
    name = f"local_hashing(k={k}, eps={eps:g}, g={g})"
    return SymmetricChannel._make(k, s, log_in, log_out, name, ("lh", g), log_ratio=eps)


def blh(k: int, eps: float) -> SymmetricChannel:
    """Binary local hashing (g = 2) as a symmetric channel.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    SymmetricChannel

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``eps``.

    Notes
    -----
    :func:`local_hashing` with g = 2 (Bassily and Smith 2015).

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.ldp_epsilon(sym.blh(1000, 1.5)), 9)
    1.5
    """
    return local_hashing(k, eps, 2)


def olh(k: int, eps: float) -> SymmetricChannel:
    """Optimized local hashing (g = round(e^eps + 1), at least 2) as a symmetric channel.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    SymmetricChannel

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``eps``.

    Notes
    -----
    g from :func:`qifldp.protocols.params.olh_g` (Wang et al. 2017). Any eps
    works (g is a Python integer; everything else is in log space), though only
    small k and g can be expanded.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> sym.olh(10, 1.0).name
    'local_hashing(k=10, eps=1, g=4)'
    """
    k = check_k(k)
    eps = check_eps(eps)
    return local_hashing(k, eps, olh_g(eps))


def unary_encoding(k: int, p: float, q: float) -> SymmetricChannel:
    """Unary encoding as a symmetric channel (output S = the set of 1-bits).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    p, q : float
        Pr[bit 1 | input bit 1] and Pr[bit 1 | input bit 0], ``0 <= q < p <= 1``.

    Returns
    -------
    SymmetricChannel
        Sizes 0..k: a_s = p q^(s-1) (1-q)^(k-s), b_s = (1-p) q^s (1-q)^(k-s-1), i.e.
        P_in(s) = p Bin(k-1, q)(s-1) and P_out(s) = (1-p) Bin(k-1, q)(s).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.unary_encoding`.

    Notes
    -----
    QIF paper Definition 7; every bit vector is its own lumped output, so
    ``expand()`` equals ``qifldp.unary_encoding(k, p, q)`` (all k-bit tuples).
    The binomial masses are computed by Loader's saddle-point formula, accurate
    where p q^(k-1) underflows. O(k) time and memory.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.bayes_capacity(sym.unary_encoding(2, 0.75, 0.25)), 12)
    1.5
    """
    k = check_k(k)
    p, q = check_pq(p, q)
    s, log_in, log_out, ratio = _one_hot_classes(k, *log_pq(p, q))
    return SymmetricChannel._make(
        k,
        s,
        log_in,
        log_out,
        f"unary_encoding(k={k}, p={p:g}, q={q:g})",
        ("bits",),
        log_ratio=ratio,
    )


def sue(k: int, eps: float) -> SymmetricChannel:
    """Symmetric unary encoding (basic RAPPOR) as a symmetric channel.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    SymmetricChannel

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``eps``.

    Notes
    -----
    UE with p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p (QIF paper Sec. V-D1), in log
    space from eps (no overflow for any finite eps).

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.ldp_epsilon(sym.sue(10**6, 3.0)), 9)
    3.0
    """
    k = check_k(k)
    eps = check_eps(eps)
    s, log_in, log_out, ratio = _one_hot_classes(k, *log_sue(eps))
    return SymmetricChannel._make(
        k, s, log_in, log_out, f"sue(k={k}, eps={eps:g})", ("bits",), log_ratio=ratio
    )


def oue(k: int, eps: float) -> SymmetricChannel:
    """Optimized unary encoding as a symmetric channel.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    SymmetricChannel

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``eps``.

    Notes
    -----
    UE with p = 1/2, q = 1 / (e^eps + 1) (QIF paper Sec. V-D2).

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.ldp_epsilon(sym.oue(10**6, 50.0)), 9)
    50.0
    """
    k = check_k(k)
    eps = check_eps(eps)
    s, log_in, log_out, ratio = _one_hot_classes(k, *log_oue(eps))
    return SymmetricChannel._make(
        k, s, log_in, log_out, f"oue(k={k}, eps={eps:g})", ("bits",), log_ratio=ratio
    )


def the(k: int, eps: float, theta: float) -> SymmetricChannel:
    """Thresholding with histogram encoding as a symmetric channel.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    theta : float
        Threshold in the open interval (0.5, 1).

    Returns
    -------
    SymmetricChannel

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k``, ``eps`` or ``theta``.

    Notes
    -----
    UE with THE's bit channel: q = e^(-eps theta / 2) / 2, 1 - p =
    e^(-eps (1 - theta) / 2) / 2 (QIF paper Sec. V-E), both exact in log space.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.bayes_capacity(sym.the(3, 2.0, 0.75)), 6)
    1.660402
    """
    k = check_k(k)
    eps = check_eps(eps)
    theta = check_theta(theta)
    s, log_in, log_out, ratio = _one_hot_classes(k, *log_the(eps, theta))
    return SymmetricChannel._make(
        k,
        s,
        log_in,
        log_out,
        f"the(k={k}, eps={eps:g}, theta={theta:g})",
        ("bits",),
        log_ratio=ratio,
    )
