"""Lifting bitwise refinement to one-hot channels (the paper's Lemma 4): a fast sufficient test."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..channel import MAX_ENTRIES, check_size
from ..errors import ParameterError, SizeError
from ..validation import as_real_array, check_int
from .criterion import witness_2x2

__all__ = ["LiftedRefinement", "refines_one_hot_bitwise", "kron_power"]


def kron_power(W: Any, k: int) -> np.ndarray:
    """The k-fold Kronecker power W^{⊗k} of a square matrix.

    Parameters
    ----------
    W : array_like, shape (n, n)
    k : int, ``k >= 1``

    Returns
    -------
    numpy.ndarray, shape (n^k, n^k)
        Row and column order: k-digit base-n vectors in lexicographic order (the
        output order of :func:`qifldp.one_hot`).

    Raises
    ------
    SizeError
        When n^k x n^k exceeds the explicit-size limit.

    Examples
    --------
    >>> kron_power([[1.0, 0.0], [0.5, 0.5]], 2).shape
    (4, 4)
    """
    W = as_real_array("W", W, ndim=2)
    k = check_int("k", k, minimum=1)
    n, m = W.shape
    if n == 0 or m == 0:
        msg = f"W must be a non-empty matrix, got shape {W.shape}"
        raise ParameterError(msg)
    # size from logarithms first: n**k itself has ~k digits (k = 10^9 would hang)
    if n == m == 1:
        return W**k
    if k * (math.log10(n) + math.log10(m)) > math.log10(MAX_ENTRIES) + 1:
        msg = (
            f"kron_power(W, {k}) would have ~10^{k * (math.log10(n) + math.log10(m)):.4g} "
            f"entries, more than the explicit limit MAX_ENTRIES = {MAX_ENTRIES}"
        )
        raise SizeError(msg)
    check_size(n**k, m**k, f"kron_power(W, {k})")
    out = W
    for _ in range(k - 1):
        out = np.kron(out, W)
    return out


@dataclass(frozen=True, repr=False)
class LiftedRefinement:
    """Outcome of the bitwise sufficient test for one-hot refinement.

    Attributes
    ----------
    holds : bool or None
        True: one_hot(B1, k) ⊑ one_hot(B2, k) for every k (proved by Lemma 4).
        None: the bits do not refine, so the test decides nothing (the one-hot
        channels may still refine; use ``refines`` on them).
    bit_holds : bool
        Whether B1 ⊑ B2 (exact 2x2 criterion).
    bit_witness : list of list of Fraction or None
        The exact 2x2 witness W with B1·W = B2 (for float bits: of the exactly
        normalised rows).
    k : int or None
        The domain size the caller asked about (for :meth:`witness`).

    Examples
    --------
    >>> r = refines_one_hot_bitwise([[0.8, 0.2], [0.2, 0.8]], [[0.7, 0.3], [0.3, 0.7]], k=3)
    >>> bool(r), r.witness().shape
    (True, (8, 8))
    """

    holds: bool | None
    bit_holds: bool
    bit_witness: list[list[Fraction]] | None
    k: int | None = None

    def __bool__(self) -> bool:
        return self.holds is True

    def witness(self, k: int | None = None) -> np.ndarray:
        """The lifted witness W^{⊗k}: one_hot(B1, k) · W^{⊗k} = one_hot(B2, k).

        Parameters
        ----------
        k : int, optional
            Domain size (default: the ``k`` given to the test).

        Returns
        -------
        numpy.ndarray, shape (2^k, 2^k)

        Raises
        ------
        ParameterError
            No k known, or the bits do not refine (no witness).
        SizeError
            2^k x 2^k too large to build.

        Examples
        --------
        >>> r = refines_one_hot_bitwise([[1.0, 0.0], [0.0, 1.0]], [[0.75, 0.25], [0.25, 0.75]])
        >>> r.witness(2).round(4).tolist()[0]
        [0.5625, 0.1875, 0.1875, 0.0625]
        """
        if self.bit_witness is None:
            msg = "the bit channels do not refine: there is no lifted witness"
            raise ParameterError(msg)
        k = self.k if k is None else k
        if k is None:
            msg = "k must be given (here or to refines_one_hot_bitwise)"
            raise ParameterError(msg)
        W = np.array([[float(v) for v in row] for row in self.bit_witness])
        W /= W.sum(axis=1, keepdims=True)
        return kron_power(W, k)

    def __repr__(self) -> str:
        verdict = {True: "holds", None: "inconclusive"}[self.holds]
        extra = f", k={self.k}" if self.k is not None else ""
        wit = (
            f", bit witness [[{', '.join(f'{float(v):.6g}' for v in self.bit_witness[0])}], "
            f"[{', '.join(f'{float(v):.6g}' for v in self.bit_witness[1])}]]"
            if self.bit_witness is not None
            else ""
        )
        return f"LiftedRefinement({verdict}: bits refine = {self.bit_holds}{wit}{extra})"


def refines_one_hot_bitwise(B1: Any, B2: Any, k: int | None = None) -> LiftedRefinement:
    """Sufficient test for one_hot(B1, k) ⊑ one_hot(B2, k): check B1 ⊑ B2 on bits.

    Parameters
    ----------
    B1, B2 : Channel, array_like or sympy Matrix, shape (2, 2)
        The bit channels (row = input bit, column = output bit).
    k : int, optional
        Domain size, only used by :meth:`LiftedRefinement.witness` and the repr;
        the verdict holds for every k.

    Returns
    -------
    LiftedRefinement
        ``holds`` is True when the bits refine (then the one-hot channels refine
        for every k, with witness W^{⊗k}) and None otherwise: a failing bitwise
        test is no verdict about the one-hot channels.

    Raises
    ------
    ChannelError
        B1 or B2 is not 2x2.

    Notes
    -----
    Lemma 4 of the paper: B1·W = B2 gives B1^{⊗k}·W^{⊗k} = B2^{⊗k}, and deleting
    the non-one-hot rows of both sides keeps the equation. The bit check is the
    exact 2x2 criterion (:func:`qifldp.tradeoff.refines_2x2`, O(1)), against an LP of
    size 2^k x 2^k for the one-hot channels.

    Examples
    --------
    SUE ⊑ THE bitwise at eps = 1, theta = 0.7 (paper's Lemma 11):

    >>> import numpy as np
    >>> a = np.exp(0.5)
    >>> sue = [[a / (a + 1), 1 / (a + 1)], [1 / (a + 1), a / (a + 1)]]
    >>> t0, t1 = 0.5 * np.exp(-0.35), 0.5 * np.exp(-0.15)
    >>> the = [[1 - t0, t0], [t1, 1 - t1]]
    >>> refines_one_hot_bitwise(sue, the).holds
    True
    >>> print(refines_one_hot_bitwise(the, sue).holds)
    None
    """
    if k is not None:
        k = check_int("k", k, minimum=1)
    W = witness_2x2(B1, B2, exact=True)
    return LiftedRefinement(True if W is not None else None, W is not None, W, k)
