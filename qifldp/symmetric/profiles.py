"""Privacy profiles and f-DP envelopes of symmetric channels and their compositions.

Layer L4 (the symmetric kind): every pair of distinct secrets of a symmetric channel
(or composition) has the law of the privacy loss of (0, 1), so the profile and the
envelope cost nothing in k. :mod:`qifldp.symmetric.register` registers these on
:func:`qifldp.privacy_profile` and :func:`qifldp.tradeoff_envelope`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError
from ..measures import _check_neighbors
from ..profiles import _check_epss, _convex_minorant, _hockey, _shaped
from ..tradeoff import TradeoffCurve, tradeoff_curve
from ..validation import check_bool
from .composition import SymmetricComposition

__all__ = ["privacy_profile_symmetric", "tradeoff_envelope_symmetric"]


def _symmetric_atoms(C: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    S = C if isinstance(C, SymmetricComposition) else SymmetricComposition((C,))
    return S.loss_atoms()


def _symmetric_has_pair(C: Any, neighbors: Any) -> bool:
    if neighbors is None:
        return True
    pairs = _check_neighbors(neighbors, C.k)
    return bool(np.any(pairs[:, 0] != pairs[:, 1]))


def privacy_profile_symmetric(C: Any, epss: Any, neighbors: Any = None) -> Any:
    """:func:`qifldp.privacy_profile` of a symmetric channel or composition (cost independent of k).

    Every pair of distinct inputs has the law of the privacy loss of (0, 1)
    (2-transitivity); registered by :mod:`qifldp.symmetric.register`.

    >>> import math, qifldp as q, qifldp.symmetric as sym
    >>> float(q.privacy_profile(sym.grr(10**6, 1.0), 1.0))
    0.0
    """
    eps, scalar = _check_epss(epss)
    flat = eps.reshape(-1)
    if not _symmetric_has_pair(C, neighbors):
        return _shaped(np.zeros(flat.shape), scalar, eps)
    loss, P0, _ = _symmetric_atoms(C)
    return _shaped(_hockey(P0, loss, flat), scalar, eps)


def tradeoff_envelope_symmetric(
    C: Any, neighbors: Any = None, *, convex: bool = False
) -> TradeoffCurve:
    """:func:`qifldp.tradeoff_envelope` of a symmetric channel or composition.

    Every pair of distinct inputs is equivalent (2-transitivity).

    T = ``tradeoff_curve(C)``; registered by :mod:`qifldp.symmetric.register`.

    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.tradeoff_envelope(sym.grr(10**6, 1.0)) == q.tradeoff_curve(sym.grr(10**6, 1.0))
    True
    """
    if not _symmetric_has_pair(C, neighbors):
        msg = "neighbors has no pair of distinct inputs: nothing to compare"
        raise ParameterError(msg)
    T = tradeoff_curve(C, 0, 1, exact=False)
    return _convex_minorant(T) if check_bool("convex", convex) else T
