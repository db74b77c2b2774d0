"""Generalized randomized response (GRR) as an explicit channel: an alias of the protocol object."""

from __future__ import annotations

from ..channel import Channel
from ..protocols import GRR

__all__ = ["grr"]


def grr(k: int, eps: float) -> Channel:
    """Generalized randomized response: report the truth w.p. p, any other value w.p. q.

    Parameters
    ----------
    k : int
        Domain size, an integer ``k >= 2``; inputs and outputs are 0..k-1.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (k, k)
        C[x, y] = p = e^eps / (e^eps + k - 1) if y = x, else q = 1 / (e^eps + k - 1).

    Raises
    ------
    InputTypeError
        ``k`` not an integer, ``eps`` not a real number.
    ParameterError
        ``k < 2``; ``eps`` negative, NaN or infinite.
    SizeError
        ``k^2`` above :data:`qifldp.channel.MAX_ENTRIES` (use
        ``qifldp.symmetric.grr`` or ``qifldp.formulas.bayes_capacity_grr``).

    Notes
    -----
    QIF paper Sec. V-A (Kairouz et al. 2016). ML = k p, ldp_epsilon = eps.
    p and q are computed with e^-eps, so large eps gives no overflow (q underflows
    to 0 beyond eps ~ 745 and the channel becomes the identity). Cost O(k^2).

    Examples
    --------
    >>> import math, qifldp as q
    >>> C = q.grr(3, math.log(2))
    >>> C.matrix.round(6)
    array([[0.5 , 0.25, 0.25],
           [0.25, 0.5 , 0.25],
           [0.25, 0.25, 0.5 ]])
    >>> round(q.bayes_capacity(C), 12)
    1.5
    """
    return GRR(k, eps).channel()
