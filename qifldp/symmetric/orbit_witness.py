"""A symmetric refinement witness stored by orbits of the symmetric group (OrbitWitness)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..channel import guard_size
from .binomial import log_comb
from .channel import SymmetricChannel

__all__ = [
    "OrbitWitness",
]


@dataclass(frozen=True, repr=False)
class OrbitWitness:
    """A symmetric refinement witness W, stored by orbits.

    W[S, T] depends only on (|S|, |T|, |S ∩ T|); ``mass[i]`` is
    u(s, t, j) = Pr[T in class (t, j) | S] for the ``i``-th triple
    (``s[i]``, ``t[i]``, ``j[i]``), so W[S, T] = u / (C(s, j) C(k-s, t-j)).
    Only the two extreme overlaps j occur (see :func:`refines`).

    Attributes
    ----------
    k : int
    s, t, j : numpy.ndarray of int
    mass : numpy.ndarray of float
        Non-negative; for each s the masses sum to 1 (within ROW_ATOL).
    residual : float
        max over B's classes (t, x in T or not) of |Pr_{A·W} - Pr_B|, which bounds
        max_{x, T} |(A·W)[x, T] - B[x, T]| on the lumped outputs.
    """

    k: int
    s: np.ndarray
    t: np.ndarray
    j: np.ndarray
    mass: np.ndarray
    residual: float
    _A: SymmetricChannel = field(repr=False, compare=False)
    _B: SymmetricChannel = field(repr=False, compare=False)

    def __repr__(self) -> str:
        n = int(np.count_nonzero(self.mass))
        return f"OrbitWitness(k={self.k}, {n} orbit entries, residual={self.residual:.2e})"

    @property
    def shape(self) -> tuple[int | float, int | float]:
        """(number of outputs of A.expand(), number of outputs of B.expand()), as integers.

        math.inf stands for a count beyond 10^300.
        """
        return _count(self._A), _count(self._B)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.expand().astype(dtype or np.float64)

    def entry(self, S: Any, T: Any) -> float:
        """W[S, T] for lumped outputs S of A and T of B (iterables of input indices).

        >>> import qifldp.symmetric as sym
        >>> r = sym.refines(sym.grr(3, 2.0), sym.grr(3, 1.0))
        >>> round(sum(r.witness.entry((0,), (y,)) for y in range(3)), 9)
        1.0
        """
        S, T = set(S), set(T)
        s, t, j = len(S), len(T), len(S & T)
        sel = (self.s == s) & (self.t == t) & (self.j == j)
        u = float(self.mass[sel].sum())
        k = self.k
        return u / (math.comb(s, j) * math.comb(k - s, t - j))

    def expand(self, lumped: bool = False) -> np.ndarray:
        """The explicit witness W with A.expand(lumped) · W = B.expand(lumped) (small k).

        Parameters
        ----------
        lumped : bool
            False: rows/columns are the outputs of the explicit channels
            (``A.expand()``, ``B.expand()``); an explicit output of B that shares
            its column with m - 1 others gets 1/m of the lumped entry. True: the
            lumped subset channels.

        Returns
        -------
        numpy.ndarray, shape (n_outputs(A), n_outputs(B))

        Raises
        ------
        SizeError
            When W would exceed MAX_ENTRIES.

        Examples
        --------
        >>> import numpy as np, qifldp as q, qifldp.symmetric as sym
        >>> A, B = sym.sue(4, 2.0), sym.the(4, 2.0, 0.7)
        >>> W = sym.refines(A, B).witness.expand()
        >>> W.shape, bool(np.abs(q.sue(4, 2.0).matrix @ W - q.the(4, 2.0, 0.7).matrix).max() < 1e-9)
        ((16, 16), True)
        """
        guard_size(
            "OrbitWitness.expand()",
            1,
            self._A.log10_n_explicit_outputs(lumped) + self._B.log10_n_explicit_outputs(lumped),
            lambda: self._A.n_explicit_outputs(lumped) * self._B.n_explicit_outputs(lumped),
            "the orbit form (entry, mass)",
        )
        _, memA, _ = self._A._explicit_outputs(lumped)
        _, memB, log_multB = self._B._explicit_outputs(lumped)
        k = self.k
        sA = memA.sum(axis=1)
        sB = memB.sum(axis=1)
        J = memA.astype(np.int64) @ memB.T.astype(np.int64)
        table = np.zeros((k + 1, k + 1, k + 1))
        np.add.at(table, (self.s, self.t, self.j), self.mass)
        s, t = sA[:, None], sB[None, :]
        log_count = _log_comb_table(k)
        L = log_count[s, J] + log_count[k - s, t - J]
        with np.errstate(divide="ignore"):
            W = table[s, t, J] * np.exp(-L) * np.exp(-log_multB)[None, :]
        return W


def _count(C: SymmetricChannel) -> int | float:
    """Number of explicit outputs of C, or math.inf beyond 10^300."""
    return math.inf if C.log10_n_explicit_outputs(False) > 300 else C.n_explicit_outputs(False)


def _log_comb_table(k: int) -> np.ndarray:
    """log C(n, r) for 0 <= n, r <= k (-inf where r > n)."""
    out = np.full((k + 1, k + 1), -np.inf)
    for n in range(k + 1):
        out[n, : n + 1] = log_comb(n, np.arange(n + 1)) if n > 0 else 0.0
    return out
