"""Local hashing (LH, BLH, OLH) as explicit channels: aliases of the protocol objects.

The channel code (and the encoding E and perturbation G of the QIF paper's
appendix) lives in :mod:`qifldp.protocols.lh`.
"""

from __future__ import annotations

from ..validation import check_eps
from ..channel import Channel
from ..protocols import LH, lh_encoding, lh_perturbation
from ..protocols.lh import guard_olh_estimate
from ..protocols.params import check_k

__all__ = ["local_hashing", "blh", "olh", "lh_encoding", "lh_perturbation"]


def local_hashing(k: int, eps: float, g: int) -> Channel:
    """Local hashing: a uniformly random hash h: [k] -> [g], then GRR on h(x); output (h, value).

    Parameters
    ----------
    k : int
        Domain size, an integer ``k >= 2``; inputs are 0..k-1.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    g : int
        Hash range, an integer ``g >= 2``.

    Returns
    -------
    Channel, shape (k, g^(k+1))
        Outputs (h, z): h a hash function as a k-tuple over 0..g-1 (all g^k,
        ``itertools.product`` order), z the perturbed hash value in 0..g-1.
        C[x, (h, z)] = p / g^k if h(x) = z else q / g^k, with
        p = e^eps / (e^eps + g - 1), q = 1 / (e^eps + g - 1).

    Raises
    ------
    InputTypeError
        Non-integer ``k``/``g``, non-real ``eps``.
    ParameterError
        ``k < 2``, ``g < 2``, ``eps`` negative/NaN/infinite.
    SizeError
        ``k g^(k+1)`` above MAX_ENTRIES (use ``qifldp.symmetric.local_hashing`` or
        ``qifldp.formulas.bayes_capacity_lh``).

    Notes
    -----
    An alias of ``qifldp.protocol('lh', k, eps, g=g).channel()`` (:class:`qifldp.protocols.LH`),
    built exactly as the QIF paper composes it (Sec. V-C and appendix): the
    cascade E . G of the encoding :func:`lh_encoding` and the perturbation
    :func:`lh_perturbation`. G = I_{g^k} (x) GRR_g is block diagonal, so the
    cascade is evaluated block by block, (E . G)[x, (h, z)] = Σ_e E[x, (h, e)] GRR_g[e, z],
    in O(k g^(k+2)) time without ever forming the (g^(k+1))^2 matrix G; the tests
    check it entrywise against ``qifldp.cascade(lh_encoding(k, g), lh_perturbation(k, eps, g))``.
    ML is the paper's corrected Eq. 27 and ``ldp_epsilon = eps``.

    Examples
    --------
    >>> import math, qifldp as q
    >>> C = q.local_hashing(2, math.log(3), 2)
    >>> C.shape, C.outputs[1]
    ((2, 8), ((0, 0), 1))
    >>> C.matrix[:, :2].round(6)  # h = (0, 0) maps both inputs to 0
    array([[0.1875, 0.0625],
           [0.1875, 0.0625]])
    >>> round(q.bayes_capacity(C), 12)  # Eq. 27: (3*4 + 1*(1 - 3)) / (4 * 2)
    1.25
    """
    return LH(k, eps, g).channel()


def blh(k: int, eps: float) -> Channel:
    """Binary local hashing: :func:`local_hashing` with g = 2.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (k, 2^(k+1))

    Raises
    ------
    InputTypeError, ParameterError, SizeError
        As :func:`local_hashing`.

    Notes
    -----
    Bassily and Smith 2015; QIF paper Sec. V-C.

    Examples
    --------
    >>> import qifldp as q
    >>> q.blh(3, 1.0).shape
    (3, 16)
    """
    return LH(k, eps, variant="blh").channel()


def olh(k: int, eps: float) -> Channel:
    """Optimized local hashing: :func:`local_hashing` with g = round(e^eps + 1) (at least 2).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (k, g^(k+1))

    Raises
    ------
    InputTypeError, ParameterError, SizeError
        As :func:`local_hashing` (g grows like e^eps, so large eps is refused).

    Notes
    -----
    Wang et al. 2017; g from :func:`qifldp.protocols.params.olh_g` (Python's
    round, half to even).

    Examples
    --------
    >>> import qifldp as q
    >>> q.olh(3, 1.0).shape  # g = round(e + 1) = 4
    (3, 256)
    """
    k = check_k(k)
    eps = check_eps(eps)
    guard_olh_estimate(k, eps)  # before forming g (refused at eps > 9000)
    return LH(k, eps, variant="olh").channel()
