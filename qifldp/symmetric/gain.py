"""Permutation-invariant gain functions and their g-vulnerability on symmetric channels."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..channel import guard_size
from ..errors import GainError, InputTypeError
from ..validation import check_int
from .binomial import log_comb, logsumexp
from .channel import SymmetricChannel

__all__ = ["SymmetricGain", "g_vulnerability_symmetric", "overlap_range"]

#: Number of size classes of the channel processed per block in
#: :func:`g_vulnerability_symmetric` (bounds memory to ~block x sizes(gain)).
_BLOCK = 256


def overlap_range(k: int, s: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest |S ∩ T| for |S| = s, |T| = t in a k-set (broadcasting).

    >>> overlap_range(5, np.array([3]), np.array([4]))
    (array([2]), array([3]))
    """
    return np.maximum(0, s + t - k), np.minimum(s, t)


class SymmetricGain:
    """A gain function invariant under permutations of the inputs 0..k-1.

    The actions are all subsets T of {0..k-1} of the given sizes t, and
    g(T, x) = ``g_in[t]`` if x is in T, else ``g_out[t]``.

    Parameters
    ----------
    k : int
        Number of inputs, ``k >= 2``.
    sizes : sequence of int
        Action sizes, strictly ascending in 0..k.
    g_in, g_out : array_like of float, shape (len(sizes),)
        Finite gains (``g_in`` is irrelevant for t = 0, ``g_out`` for t = k).

    Raises
    ------
    GainError
        Bad sizes or lengths, non-finite gains.

    Examples
    --------
    >>> G = SymmetricGain.identity(3)
    >>> G.expand()
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """

    __slots__ = ("k", "sizes", "g_in", "g_out")

    def __init__(self, k: int, sizes: Sequence[int], g_in: Any, g_out: Any) -> None:
        k = check_int("k", k, minimum=2)
        try:
            sz = np.array([check_int("sizes[i]", t, 0, k) for t in sizes], dtype=np.int64)
        except TypeError:
            msg = "sizes must be a sequence of integers"
            raise InputTypeError(msg) from None
        if sz.size == 0 or np.any(np.diff(sz) <= 0):
            msg = "sizes must be non-empty and strictly ascending"
            raise GainError(msg)
        gi = np.array(g_in, dtype=np.float64).reshape(-1)
        go = np.array(g_out, dtype=np.float64).reshape(-1)
        if gi.shape != sz.shape or go.shape != sz.shape:
            msg = f"g_in and g_out must have one entry per action size ({sz.size})"
            raise GainError(msg)
        if not (np.all(np.isfinite(gi)) and np.all(np.isfinite(go))):
            msg = "gains must be finite"
            raise GainError(msg)
        for arr in (sz, gi, go):
            arr.setflags(write=False)
        self.k, self.sizes, self.g_in, self.g_out = k, sz, gi, go

    @classmethod
    def identity(cls, k: int) -> SymmetricGain:
        """The identity gain (guess the secret): actions are singletons, g({w}, x) = [w = x].

        >>> SymmetricGain.identity(4).sizes.tolist()
        [1]
        """
        return cls(k, [1], [1.0], [0.0])

    def __repr__(self) -> str:
        return f"SymmetricGain(k={self.k}, {self.sizes.size} action sizes)"

    def _log10_n_actions(self) -> float:
        return logsumexp(log_comb(self.k, self.sizes)) / math.log(10)

    @property
    def shape(self) -> tuple[int | float, int]:
        """(number of actions, k) of the explicit gain matrix.

        The number of actions is an int, or ``math.inf`` beyond 10^300.

        >>> SymmetricGain(4, [1, 2], [1, 1], [0, 0]).shape
        (10, 4)
        """
        if self._log10_n_actions() > 300:
            return math.inf, self.k
        return sum(math.comb(self.k, int(t)) for t in self.sizes), self.k

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.expand().astype(dtype or np.float64)

    def action_labels(self) -> list[tuple[int, ...]]:
        """The actions as sorted tuples, sizes ascending, ``itertools.combinations`` order.

        >>> SymmetricGain(3, [0, 2], [0.0, 1.0], [0.5, -1.0]).action_labels()
        [(), (0, 1), (0, 2), (1, 2)]
        """
        return [c for t in self.sizes for c in itertools.combinations(range(self.k), int(t))]

    def expand(self) -> np.ndarray:
        """The explicit gain matrix, shape (n_actions, k) (small k only).

        Raises
        ------
        SizeError
            More than :data:`qifldp.channel.MAX_ENTRIES` entries.

        Examples
        --------
        >>> SymmetricGain(3, [0, 2], [0.0, 1.0], [0.5, -1.0]).expand()
        array([[ 0.5,  0.5,  0.5],
               [ 1. ,  1. , -1. ],
               [ 1. , -1. ,  1. ],
               [-1. ,  1. ,  1. ]])
        """
        guard_size(
            "SymmetricGain.expand()",
            self.k,
            self._log10_n_actions(),
            lambda: sum(math.comb(self.k, int(t)) for t in self.sizes),
            "the SymmetricGain itself",
        )
        rows = []
        for t, gi, go in zip(self.sizes, self.g_in, self.g_out, strict=True):
            for combo in itertools.combinations(range(self.k), int(t)):
                row = np.full(self.k, go)
                row[list(combo)] = gi
                rows.append(row)
        return np.array(rows).reshape(-1, self.k)

    def prior_vulnerability(self) -> float:
        """V_g(υ) for the uniform prior: max_t (t g_in + (k - t) g_out) / k.

        >>> SymmetricGain.identity(4).prior_vulnerability()
        0.25
        """
        t = self.sizes.astype(np.float64)
        return float(np.max((t * self.g_in + (self.k - t) * self.g_out) / self.k))


def _c_in(Pi, Po, s, t, j, k):
    """Pr[output class s, then action T in class (t, j), and x in T | x]/ (per unit of u)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        term_in = np.where(s > 0, Pi * j / np.maximum(s, 1), 0.0)
        term_out = np.where(s < k, Po * (t - j) / np.maximum(k - s, 1), 0.0)
    return term_in + term_out


def g_vulnerability_symmetric(C: SymmetricChannel, G: SymmetricGain) -> float:
    """V_g[υ▷C] for a symmetric channel and a symmetric gain under the uniform prior.

    Parameters
    ----------
    C : SymmetricChannel
    G : SymmetricGain
        Over the same k.

    Returns
    -------
    float

    Raises
    ------
    GainError
        Different k.

    Notes
    -----
    For a lumped output S of size s the best action T of size t with |S ∩ T| = j
    earns (1/k) Σ_x C[x, S] g(T, x); summed over the C(k, s) outputs of size s
    this is g_out (P_in + P_out) + (g_in - g_out) c(s, t, j) with
    c = P_in j / s + P_out (t - j) / (k - s) (an orbit count, see
    :func:`qifldp.symmetric.refines`). It is linear in j, so the best j is an end
    of [max(0, s + t - k), min(s, t)]. Cost O(sizes(C) x sizes(G)).

    Examples
    --------
    >>> import math, qifldp.symmetric as sym
    >>> round(g_vulnerability_symmetric(sym.grr(3, math.log(2)), SymmetricGain.identity(3)), 12)
    0.5
    """
    if G.k != C.k:
        msg = f"the gain is over k = {G.k} inputs, the channel over k = {C.k}"
        raise GainError(msg)
    k = C.k
    Pi_all, Po_all = C.class_masses()
    s_all = C.sizes
    t = G.sizes[None, :]
    gi, go = G.g_in[None, :], G.g_out[None, :]
    parts = []
    for start in range(0, s_all.size, _BLOCK):
        s = s_all[start : start + _BLOCK, None]
        Pi, Po = Pi_all[start : start + _BLOCK, None], Po_all[start : start + _BLOCK, None]
        lo, hi = overlap_range(k, s, t)
        base = go * (Pi + Po)
        v_lo = base + (gi - go) * _c_in(Pi, Po, s, t, lo, k)
        v_hi = base + (gi - go) * _c_in(Pi, Po, s, t, hi, k)
        best = np.maximum(v_lo, v_hi).max(axis=1)
        mass = (Pi + Po)[:, 0]
        parts.extend(best[mass > 0].tolist())
    return math.fsum(parts)
