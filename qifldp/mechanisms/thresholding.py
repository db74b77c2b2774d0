"""Thresholding with histogram encoding (THE): Laplace noise on one-hot bits, then a threshold."""

from __future__ import annotations

import math

from .._validation import check_eps
from ..channel import Channel
from ..operators import one_hot
from ._params import _the_bit_matrix, check_k, check_theta
from ._size import alternative, guard_size

__all__ = ["the", "the_bit"]


def the_bit(eps: float, theta: float) -> Channel:
    """THE's 2x2 bit channel: add Laplace(2/eps) noise to the bit, output 1 iff it exceeds theta.

    Parameters
    ----------
    eps : float
        Privacy parameter of the whole THE protocol, finite and ``>= 0``.
    theta : float
        Threshold, in the open interval (0.5, 1).

    Returns
    -------
    Channel, shape (2, 2)
        Row = input bit 0/1, column = output bit 0/1: [[1 - q, q], [1 - p, p]] with
        q = e^(-eps theta / 2) / 2 and 1 - p = e^(-eps (1 - theta) / 2) / 2.

    Raises
    ------
    InputTypeError, ParameterError
        ``eps`` not a finite real ``>= 0``; ``theta`` outside (0.5, 1).

    Notes
    -----
    QIF paper Sec. V-E (Wang et al. 2017): with Z ~ Laplace(0, 2/eps),
    q = Pr[Z > theta], p = Pr[1 + Z > theta]. Both small entries are computed
    directly (never as 1 - p), so eps = 800 still gives positive entries. At
    eps = 0 (infinite noise) both rows are (1/2, 1/2).

    Examples
    --------
    >>> import qifldp as q
    >>> q.the_bit(4.0, 0.75).matrix.round(6)
    array([[0.888435, 0.111565],
           [0.303265, 0.696735]])
    """
    eps = check_eps(eps)
    theta = check_theta(theta)
    return Channel(_the_bit_matrix(eps, theta))


def the(k: int, eps: float, theta: float) -> Channel:
    """Thresholding with histogram encoding: ``one_hot(the_bit(eps, theta), k)``.

    Parameters
    ----------
    k : int
        Domain size, an integer ``k >= 2``; inputs are 0..k-1.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    theta : float
        Threshold, in the open interval (0.5, 1).

    Returns
    -------
    Channel, shape (k, 2^k)
        Outputs all k-bit vectors as tuples (``itertools.product`` order).

    Raises
    ------
    InputTypeError
        Non-integer ``k``, non-real ``eps``/``theta``.
    ParameterError
        ``k < 2``; ``eps`` negative/NaN/infinite; ``theta`` outside (0.5, 1).
    SizeError
        k >= 23 (use ``qifldp.symmetric.the`` or ``qifldp.formulas.bayes_capacity_the``).

    Notes
    -----
    QIF paper Sec. V-E. The Laplace histogram is eps-LDP and thresholding is
    post-processing, so ldp_epsilon(the(k, eps, theta)) <= eps; it is in fact
    strictly smaller for eps > 0: ln(p (1 - q) / ((1 - p) q)) with p, q above.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.the(3, 2.0, 0.75)
    >>> C.shape, C.outputs[:2]
    ((3, 8), ((0, 0, 0), (0, 0, 1)))
    >>> round(q.bayes_capacity(C), 6)
    1.660402
    """
    k = check_k(k)
    B = the_bit(eps, theta)
    guard_size(
        f"the({k}, {eps}, {theta})",
        k,
        k * math.log10(2),
        lambda: 2**k,
        alternative("the", "k, eps, theta", "bayes_capacity_the"),
    )
    return one_hot(B, k)
