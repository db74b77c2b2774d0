"""Merging proportional columns: the reduction shared by channels, hypers and refinement.

Columns y, y' with C[:, y] = c C[:, y'] (c > 0) give the same posterior under every
prior; adding them is a post-processing that is invertible up to refinement, so the
reduced channel is equivalent to the original both ways.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["REDUCE_RTOL", "Reduced", "reduce_columns"]

#: Two columns are merged when every ratio of their entries agrees within this
#: relative tolerance (and they have the same zero pattern): ~9 units of roundoff,
#: inside the rounding band within which verdicts are stated (see
#: :func:`qifldp.refines`), so merging never decides a verdict. Columns differing
#: by more, however small their entries, are kept apart (a tolerance relative to
#: each entry, unlike rounding to fixed decimals).
REDUCE_RTOL: float = 2e-15


@dataclass(frozen=True)
class Reduced:
    """A channel with proportional columns merged and zero columns dropped.

    ``matrix[:, g] = Σ_{y in groups[g]} original[:, y]``; ``weights[y]`` is the
    share of original column y in its group (column sums), 0 for dropped columns.
    """

    matrix: np.ndarray
    groups: list[np.ndarray]
    group_of: np.ndarray  # original column -> group index, -1 for zero columns
    weights: np.ndarray


def reduce_columns(M: np.ndarray, rtol: float = REDUCE_RTOL) -> Reduced:
    """Merge columns that are positive multiples of each other (relative tolerance ``rtol``).

    Columns are scaled by their largest entry and compared entry by entry in log
    space (bins of width ``rtol``), zero entries exactly. Cost O(|X| |Y| log |Y|).
    """
    n, p = M.shape
    colmax = M.max(axis=0)
    nz = np.flatnonzero(colmax > 0)
    group_of = np.full(p, -1, dtype=np.int64)
    if nz.size == 0:  # pragma: no cover - a Channel has no all-zero matrix
        return Reduced(np.zeros((n, 0)), [], group_of, np.zeros(p))
    S = M[:, nz] / colmax[nz]
    with np.errstate(divide="ignore"):
        L = np.log(S)
    keys = np.where(S > 0, np.round(L / rtol), np.iinfo(np.int64).min).astype(np.int64)
    _, first, inverse = np.unique(keys.T, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    g = rank[inverse]
    n_groups = order.size
    merged = np.zeros((n, n_groups))
    np.add.at(merged.T, g, M[:, nz].T)
    group_of[nz] = g
    groups = [nz[g == i] for i in range(n_groups)]
    colsum = M.sum(axis=0)
    gsum = merged.sum(axis=0)
    weights = np.zeros(p)
    weights[nz] = colsum[nz] / gsum[g]
    return Reduced(merged, groups, group_of, weights)
