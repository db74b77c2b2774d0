"""Preparation shared by the refinement engines: row normalisation and column reduction."""

from __future__ import annotations

import numpy as np

from ..reduction import REDUCE_RTOL, Reduced, reduce_columns
from .witness import MAX_DENSE_WITNESS, FactoredWitness

__all__ = ["REDUCE_RTOL", "Reduced", "reduce_columns", "normalise_rows", "expand_witness"]


def normalise_rows(M: np.ndarray) -> np.ndarray:
    """Divide each row by its floating sum (rows of a Channel sum to 1 within 1e-9)."""
    return M / M.sum(axis=1, keepdims=True)


def expand_witness(
    W: np.ndarray, red_a: Reduced, red_b: Reduced, rowsum: bool
) -> np.ndarray | FactoredWitness:
    """Map a witness between reduced channels back to the original columns.

    Original column z of A gets the row of its group (zero columns of A get an
    arbitrary row-stochastic row, the column weights of B, or zeros in the max
    case); the reduced column of B is split over its members by their weights.
    For the max-case witness R (A_red·R = B_red, A_red = A·M with M the 0/1
    merge matrix), every member of a group of A gets the same row, which
    still works because A·(M R) = A_red R. A witness of more than
    MAX_DENSE_WITNESS entries stays factored (:class:`FactoredWitness`).
    """
    if red_a.unchanged and red_b.unchanged:  # nothing merged, nothing dropped
        return W
    fill = red_b.weights / red_b.weights.sum() if rowsum and red_b.weights.sum() > 0 else None
    out = FactoredWitness(W, red_a.group_of, red_b.group_of, red_b.weights, fill, rowsum)
    pa, pb = out.shape
    return out if pa * pb > MAX_DENSE_WITNESS else out.toarray()
