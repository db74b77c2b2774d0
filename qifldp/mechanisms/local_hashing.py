"""Local hashing (LH, BLH, OLH) as the cascade of the encoding E and GRR on the hash."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._validation import check_eps
from ..channel import Channel, check_size
from ._params import check_g, check_k, lh_probabilities, olh_g
from ._size import alternative, guard_size

__all__ = ["local_hashing", "blh", "olh", "lh_encoding", "lh_perturbation"]

#: Above this eps, olh() refuses from log10 g ~ eps / ln 10 alone (the channel has
#: more than (e^50)^3 entries), without forming the huge integer g.
_OLH_EXACT_G_EPS: float = 50.0


def _hash_table(k: int, g: int) -> np.ndarray:
    """All g^k functions [k] -> [g] as rows h = (h(0), ..., h(k-1)), product order."""
    return np.indices((g,) * k, dtype=np.intp).reshape(k, -1).T


def _hash_labels(k: int, g: int) -> list[tuple[int, ...]]:
    return list(itertools.product(range(g), repeat=k))


def _guard(what: str, k: int, log10_g: float, g: int | None, name: str = "local_hashing") -> None:
    if name == "local_hashing":
        sig, formula = "k, eps, g", "bayes_capacity_lh"
    else:
        sig, formula = "k, eps", f"bayes_capacity_{name}"
    guard_size(what, k, (k + 1) * log10_g, lambda: g ** (k + 1), alternative(name, sig, formula))


def lh_encoding(k: int, g: int) -> Channel:
    """The encoding channel E of local hashing: a uniform hash function and the hash of x.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    g : int
        Hash range, ``g >= 2``.

    Returns
    -------
    Channel, shape (k, g^(k+1))
        Outputs (h, e): h a function [k] -> [g] as a k-tuple over 0..g-1 (all
        g^k of them, in ``itertools.product`` order) and e in 0..g-1;
        E[x, (h, e)] = 1 / g^k if h(x) = e, else 0.

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``g``.
    SizeError
        More than MAX_ENTRIES entries.

    Notes
    -----
    QIF paper, appendix "Definition of E". E is the visible choice, with uniform
    probabilities, of the deterministic channels x -> h(x). Cost O(k g^(k+1)).

    Examples
    --------
    >>> E = lh_encoding(2, 2)
    >>> E.outputs[:3]
    (((0, 0), 0), ((0, 0), 1), ((0, 1), 0))
    >>> E.matrix
    array([[0.25, 0.  , 0.25, 0.  , 0.  , 0.25, 0.  , 0.25],
           [0.25, 0.  , 0.  , 0.25, 0.25, 0.  , 0.  , 0.25]])
    """
    k = check_k(k)
    g = check_g(g)
    _guard(f"lh_encoding({k}, {g})", k, math.log10(g), g)
    return _encoding(k, g)


def _encoding_matrix(k: int, g: int) -> np.ndarray:
    """E as an array of shape (k, g^k, g): E[x, h, e] = [h(x) = e] / g^k."""
    H = _hash_table(k, g)
    n_h = H.shape[0]
    E = np.zeros((k, n_h, g))
    E[np.arange(k)[:, None], np.arange(n_h)[None, :], H.T] = 1.0 / n_h
    return E


def _pair_labels(k: int, g: int) -> tuple:
    return tuple(itertools.product(_hash_labels(k, g), range(g)))


def _encoding(k: int, g: int) -> Channel:
    return Channel(_encoding_matrix(k, g).reshape(k, -1), outputs=_pair_labels(k, g))


def lh_perturbation(k: int, eps: float, g: int) -> Channel:
    """The perturbation channel G of local hashing: keep h, apply GRR_g to the hash value.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2`` (hash functions are k-tuples).
    eps : float
        Privacy parameter of the GRR on the hash range.
    g : int
        Hash range, ``g >= 2``.

    Returns
    -------
    Channel, shape (g^(k+1), g^(k+1))
        Inputs and outputs (h, value), labelled as :func:`lh_encoding`'s outputs;
        G[(h, e), (h', z)] = [h = h'] GRR_g(eps)[e, z], i.e. G = I_{g^k} (x) GRR_g
        (the parallel composition of the identity on hash functions and GRR).

    Raises
    ------
    SizeError
        When (g^(k+1))^2 exceeds MAX_ENTRIES: G is only for small checks, the
        constructor :func:`local_hashing` never builds it.

    Notes
    -----
    QIF paper, appendix "Definition of G". Cost O(g^(2k+2)).

    Examples
    --------
    >>> import math
    >>> G = lh_perturbation(2, math.log(3), 2)
    >>> G.shape, G.matrix[0, :4].round(6).tolist()
    ((8, 8), [0.75, 0.25, 0.0, 0.0])
    """
    k = check_k(k)
    g = check_g(g)
    eps = check_eps(eps)
    n = g ** (k + 1) if (k + 1) * math.log10(g) < 30 else 10**30
    alt = "local_hashing(k, eps, g) (built blockwise)"
    check_size(n, n, f"lh_perturbation({k}, {eps}, {g})", alt)
    p, q = lh_probabilities(g, eps)
    R = np.full((g, g), q)
    np.fill_diagonal(R, p)
    labels = _pair_labels(k, g)
    return Channel(np.kron(np.eye(g**k), R), inputs=labels, outputs=labels)


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
    Built exactly as the QIF paper composes it (Sec. V-C and appendix): the
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
    k = check_k(k)
    g = check_g(g)
    eps = check_eps(eps)
    _guard(f"local_hashing({k}, {eps}, {g})", k, math.log10(g), g)
    p, q = lh_probabilities(g, eps)
    R = np.full((g, g), q)
    np.fill_diagonal(R, p)
    # The cascade E . G with the block-diagonal G = I_{g^k} (x) R: each (h, .) block of
    # E's row is multiplied by R.
    M = (_encoding_matrix(k, g) @ R).reshape(k, -1)
    return Channel(M, outputs=_pair_labels(k, g))


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
    return local_hashing(k, eps, 2)


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
    Wang et al. 2017; g from :func:`qifldp.mechanisms._params.olh_g` (Python's
    round, half to even).

    Examples
    --------
    >>> import qifldp as q
    >>> q.olh(3, 1.0).shape  # g = round(e + 1) = 4
    (3, 256)
    """
    k = check_k(k)
    eps = check_eps(eps)
    if eps > _OLH_EXACT_G_EPS:  # g ~ e^eps: refuse from the estimate, without forming g
        _guard(f"olh({k}, {eps})", k, eps / math.log(10), None, "olh")
    return local_hashing(k, eps, olh_g(eps))
