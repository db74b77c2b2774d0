"""Unary encoding (UE, SUE, OUE): one-hot vectors with each bit sent through a bit channel."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from .._validation import check_eps
from ..channel import Channel
from ..operators import one_hot
from ._params import check_k, check_pq
from ._size import alternative, guard_size

__all__ = ["unary_encoding", "sue", "oue", "sue_bit", "oue_bit"]


def _guard(what: str, k: int, name: str, sig: str, formula: str) -> None:
    guard_size(what, k, k * math.log10(2), lambda: 2**k, alternative(name, sig, formula))


def sue_bit(eps: float) -> Channel:
    """SUE's 2x2 bit channel: keep the bit w.p. p = e^(eps/2) / (e^(eps/2) + 1), flip it w.p. 1 - p.

    Parameters
    ----------
    eps : float
        Privacy parameter of the whole SUE protocol, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (2, 2)
        Row = input bit 0/1, column = output bit 0/1: [[p, 1 - p], [1 - p, p]].

    Raises
    ------
    InputTypeError, ParameterError
        ``eps`` not a finite real ``>= 0``.

    Notes
    -----
    Basic one-time RAPPOR (Erlingsson et al. 2014). The bit channel alone is
    (eps/2)-LDP; the one-hot protocol changes two bits between neighbours, hence
    eps. Entries from the logistic function: no overflow.

    Examples
    --------
    >>> import math, qifldp as q
    >>> q.sue_bit(2 * math.log(3)).matrix.round(6)
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    eps = check_eps(eps)
    p, q = float(expit(eps / 2)), float(expit(-eps / 2))
    return Channel(np.array([[p, q], [q, p]]))


def oue_bit(eps: float) -> Channel:
    """OUE's 2x2 bit channel: a 1 stays 1 w.p. 1/2, a 0 becomes 1 w.p. q = 1 / (e^eps + 1).

    Parameters
    ----------
    eps : float
        Privacy parameter of the whole OUE protocol, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (2, 2)
        Row = input bit 0/1, column = output bit 0/1: [[1 - q, q], [1/2, 1/2]].

    Raises
    ------
    InputTypeError, ParameterError
        ``eps`` not a finite real ``>= 0``.

    Notes
    -----
    Wang et al. 2017. The bit channel alone is ln((e^eps + 1) / 2)-LDP (< eps for
    eps > 0); the one-hot protocol is exactly eps-LDP.

    Examples
    --------
    >>> import math, qifldp as q
    >>> q.oue_bit(math.log(3)).matrix
    array([[0.75, 0.25],
           [0.5 , 0.5 ]])
    """
    eps = check_eps(eps)
    return Channel(np.array([[float(expit(eps)), float(expit(-eps))], [0.5, 0.5]]))


def unary_encoding(k: int, p: float, q: float) -> Channel:
    """Unary encoding: one-hot encode x, report each bit 1 w.p. p (bit 1) or q (bit 0).

    Parameters
    ----------
    k : int
        Domain size, an integer ``k >= 2``; inputs are 0..k-1.
    p : float
        Pr[output bit 1 | input bit 1].
    q : float
        Pr[output bit 1 | input bit 0]; the rule is ``0 <= q < p <= 1``.

    Returns
    -------
    Channel, shape (k, 2^k)
        ``qifldp.one_hot`` of the bit channel [[1 - q, q], [1 - p, p]]: outputs
        all k-bit vectors as tuples (``itertools.product`` order),
        C[x, y] = Π_m Pr[y_m | [m = x]].

    Raises
    ------
    InputTypeError
        Non-integer ``k``, non-real ``p``/``q``.
    ParameterError
        ``k < 2``; ``p``/``q`` outside [0, 1] or ``q >= p``.
    SizeError
        ``k 2^k`` above MAX_ENTRIES, i.e. k >= 23 (use
        ``qifldp.symmetric.unary_encoding`` or ``qifldp.formulas.bayes_capacity_ue``).

    Notes
    -----
    QIF paper Definition 7 and the B^{⊗k}_hot construction of Sec. VI-A2.
    ldp_epsilon = ln(p (1 - q) / ((1 - p) q)). Cost O(k 2^k).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.unary_encoding(2, 0.75, 0.25)
    >>> C.outputs
    ((0, 0), (0, 1), (1, 0), (1, 1))
    >>> C.matrix.round(6)
    array([[0.1875, 0.0625, 0.5625, 0.1875],
           [0.1875, 0.5625, 0.0625, 0.1875]])
    """
    k = check_k(k)
    p, q = check_pq(p, q)
    _guard(f"unary_encoding({k}, {p}, {q})", k, "unary_encoding", "k, p, q", "bayes_capacity_ue")
    return one_hot(Channel(np.array([[1.0 - q, q], [1.0 - p, p]])), k)


def sue(k: int, eps: float) -> Channel:
    """Symmetric unary encoding (basic RAPPOR): UE with p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (k, 2^k)
        ``one_hot(sue_bit(eps), k)``; outputs all k-bit tuples.

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``eps``.
    SizeError
        k >= 23 (use ``qifldp.symmetric.sue`` or ``qifldp.formulas.bayes_capacity_sue``).

    Notes
    -----
    QIF paper Sec. V-D1. ldp_epsilon = eps exactly.

    Examples
    --------
    >>> import math, qifldp as q
    >>> C = q.sue(2, 2 * math.log(3))  # p = 3/4: row 0 = (pq, q^2, p^2, pq)
    >>> C.matrix.round(6)
    array([[0.1875, 0.0625, 0.5625, 0.1875],
           [0.1875, 0.5625, 0.0625, 0.1875]])
    """
    k = check_k(k)
    B = sue_bit(eps)
    _guard(f"sue({k}, {eps})", k, "sue", "k, eps", "bayes_capacity_sue")
    return one_hot(B, k)


def oue(k: int, eps: float) -> Channel:
    """Optimized unary encoding: UE with p = 1/2, q = 1 / (e^eps + 1).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (k, 2^k)
        ``one_hot(oue_bit(eps), k)``; outputs all k-bit tuples.

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``eps``.
    SizeError
        k >= 23 (use ``qifldp.symmetric.oue`` or ``qifldp.formulas.bayes_capacity_oue``).

    Notes
    -----
    QIF paper Sec. V-D2 (Wang et al. 2017). ldp_epsilon = eps exactly. Building
    oue(16, eps) (65,536 outputs) takes a few tens of milliseconds
    (benchmarks/bench_channels.py).

    Examples
    --------
    >>> import math, qifldp as q
    >>> C = q.oue(2, math.log(3))  # q = 1/4
    >>> C.matrix.round(6)
    array([[0.375, 0.125, 0.375, 0.125],
           [0.375, 0.375, 0.125, 0.125]])
    """
    k = check_k(k)
    B = oue_bit(eps)
    _guard(f"oue({k}, {eps})", k, "oue", "k, eps", "bayes_capacity_oue")
    return one_hot(B, k)
