"""Thresholding with histogram encoding (THE) as an explicit channel: an alias of the protocol.

The channel code and the bit channel ``the_bit`` live in :mod:`qifldp.protocols.the`.
"""

from __future__ import annotations

from ..channel import Channel
from ..protocols import THE, the_bit

__all__ = ["the", "the_bit"]


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
    return THE(k, eps, theta).channel()
