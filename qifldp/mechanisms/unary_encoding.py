"""Unary encoding (UE, SUE, OUE) as explicit channels: aliases of the protocol objects.

The channel code and the bit channels ``sue_bit``, ``oue_bit`` live in
:mod:`qifldp.protocols.ue`.
"""

from __future__ import annotations

from ..channel import Channel
from ..protocols import UE, oue_bit, sue_bit

__all__ = ["unary_encoding", "sue", "oue", "sue_bit", "oue_bit"]


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
    return UE(k, p=p, q=q).channel()


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
    return UE(k, eps, variant="sue").channel()


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
    return UE(k, eps, variant="oue").channel()
