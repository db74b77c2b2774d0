"""A witness kept in the factored form W = E_A · R · S_B when its matrix is too large.

Column reduction merges equal columns of A and of B (:mod:`qifldp.reduction`). A witness
R found between the reduced channels expands to the original columns as
``W[z, y] = R[group_A(z), group_B(y)] · weight_B(y)`` (zero columns of A get the row
``fill``). For channels with many outputs (an OLH channel of 4 inputs at eps = 2 has
32,768) that matrix would take gigabytes; the factored form stores R and the two maps,
answers ``A @ W``, row sums and the smallest entry exactly as the matrix would, and
builds the matrix only on request, under a size rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError

__all__ = ["MAX_DENSE_WITNESS", "FactoredWitness", "row_sums"]

#: A witness of more entries than this (128 MiB of float64) is kept factored.
MAX_DENSE_WITNESS: int = 2**24


@dataclass(frozen=True, eq=False)
class FactoredWitness:
    """W = E_A · R · S_B: a witness on reduced columns and the maps back to the originals.

    Attributes
    ----------
    reduced : numpy.ndarray, shape (groups of A, groups of B)
        The witness R between the reduced channels.
    group_of_a, group_of_b : numpy.ndarray of int
        Original column -> its group (-1 for a zero column).
    weights_b : numpy.ndarray
        The share of each original column of B in its group (summing to 1 per group).
    fill : numpy.ndarray or None
        The row of W for a zero column of A (None: zeros).
    rowsum : bool
        True for an average-case witness (rows sum to 1), False for a max-case R.

    Examples
    --------
    >>> import numpy as np
    >>> W = FactoredWitness(np.eye(2), np.array([0, 1, 1]), np.array([0, 1, 1]),
    ...                     np.array([1.0, 0.5, 0.5]), None)
    >>> W.shape, W.toarray().tolist()[1]
    ((3, 3), [0.0, 0.5, 0.5])
    >>> A = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])
    >>> (A @ W).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]
    """

    reduced: np.ndarray
    group_of_a: np.ndarray
    group_of_b: np.ndarray
    weights_b: np.ndarray
    fill: np.ndarray | None
    rowsum: bool = True

    # numpy defers ``A @ W`` to __rmatmul__ instead of converting W to an array.
    __array_ufunc__ = None

    @property
    def shape(self) -> tuple[int, int]:
        """(outputs of A, outputs of B)."""
        return int(self.group_of_a.size), int(self.group_of_b.size)

    @property
    def ndim(self) -> int:
        return 2

    def __repr__(self) -> str:
        ra, rb = self.reduced.shape
        return f"FactoredWitness({self.shape[0]}x{self.shape[1]}, reduced {ra}x{rb})"

    def __rmatmul__(self, A: Any) -> np.ndarray:
        """A · W, computed through the reduced witness (|X| x |Y_B| floats)."""
        A = np.asarray(A, dtype=np.float64)
        if A.ndim != 2 or A.shape[1] != self.shape[0]:
            msg = f"A @ W: A has shape {A.shape}, W has {self.shape[0]} rows"
            raise ParameterError(msg)
        ia = self.group_of_a >= 0
        ib = self.group_of_b >= 0
        merged = np.zeros((self.reduced.shape[0], A.shape[0]))
        np.add.at(merged, self.group_of_a[ia], A[:, ia].T)
        through = merged.T @ self.reduced
        out = np.zeros((A.shape[0], self.shape[1]))
        out[:, ib] = through[:, self.group_of_b[ib]] * self.weights_b[ib]
        if self.fill is not None and not ia.all():
            out += A[:, ~ia].sum(axis=1)[:, None] * self.fill[None, :]
        return out

    def __getitem__(self, i: int) -> np.ndarray:
        """Row ``i`` of W (an integer index only)."""
        if not isinstance(i, (int, np.integer)):
            msg = f"FactoredWitness[i]: i must be one row index (an integer), got {i!r}"
            raise InputTypeError(msg)
        row = np.zeros(self.shape[1])
        g = self.group_of_a[i]
        if g < 0:
            return row if self.fill is None else self.fill.copy()
        ib = self.group_of_b >= 0
        row[ib] = self.reduced[g, self.group_of_b[ib]] * self.weights_b[ib]
        return row

    def sum(self, axis: int) -> np.ndarray:
        """Row sums (``axis=1``), as the matrix would give them."""
        if axis != 1:
            msg = f"FactoredWitness.sum: only axis=1 (row sums) is offered, got axis={axis!r}"
            raise ParameterError(msg)
        ib = self.group_of_b >= 0
        share = np.bincount(
            self.group_of_b[ib], weights=self.weights_b[ib], minlength=self.reduced.shape[1]
        )
        per_group = self.reduced @ share
        ia = self.group_of_a >= 0
        out = np.zeros(self.shape[0])
        out[ia] = per_group[self.group_of_a[ia]]
        if self.fill is not None:
            out[~ia] = self.fill.sum()
        return out

    def min(self) -> float:
        """The smallest entry of W."""
        ia = self.group_of_a >= 0
        ib = self.group_of_b >= 0
        values: list[float] = []
        if ia.any() and ib.any():
            used_a = np.unique(self.group_of_a[ia])
            gb = self.group_of_b[ib]
            wb = self.weights_b[ib]
            n = self.reduced.shape[1]
            lo = np.full(n, np.inf)
            hi = np.full(n, -np.inf)
            np.minimum.at(lo, gb, wb)
            np.maximum.at(hi, gb, wb)
            used_b = np.isfinite(lo)
            R = self.reduced[np.ix_(used_a, used_b)]
            values.append(float(np.minimum(R * lo[used_b], R * hi[used_b]).min()))
        if ia.any() and not ib.all():
            values.append(0.0)
        if not ia.all():
            values.append(0.0 if self.fill is None else float(self.fill.min()))
        return min(values)

    def toarray(self) -> np.ndarray:
        """The matrix W, when it has at most :data:`MAX_DENSE_WITNESS` entries.

        Raises
        ------
        ValueError
            For a larger witness, naming its size and the factored alternative.
        """
        pa, pb = self.shape
        if pa * pb > MAX_DENSE_WITNESS:
            msg = (
                f"the witness has {pa} x {pb} = {pa * pb:.3g} entries "
                f"({pa * pb * 8 / 2**30:.3g} GiB, > MAX_DENSE_WITNESS = {MAX_DENSE_WITNESS}); "
                "use it factored: A @ W, W.sum(axis=1), W.min(), or W.reduced with "
                "W.group_of_a, W.group_of_b and W.weights_b"
            )
            raise ParameterError(msg)
        out = np.zeros((pa, pb))
        ia = self.group_of_a >= 0
        ib = self.group_of_b >= 0
        rows = self.reduced[self.group_of_a[ia]]
        out[np.ix_(ia, ib)] = rows[:, self.group_of_b[ib]] * self.weights_b[ib]
        if self.fill is not None:
            out[~ia] = self.fill
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.toarray().astype(dtype or np.float64)


def row_sums(W: Any) -> np.ndarray:
    """W·1, the row sums of a witness (an array or a :class:`FactoredWitness`).

    An array's are one matrix-vector product: a sum along short rows
    (``W.sum(axis=1)``) costs numpy a loop per row, 3-4x the time at 256 x 32.
    Either order of summation is within the same rounding bound, (|Y_B| − 1) u Σ|W|.

    >>> row_sums(np.array([[0.25, 0.75], [1.0, 0.0]])).tolist()
    [1.0, 1.0]
    """
    if isinstance(W, np.ndarray):
        return W @ np.ones(W.shape[1])
    return np.asarray(W.sum(axis=1))
