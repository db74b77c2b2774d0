"""Merging proportional columns: the reduction shared by channels, hypers and refinement.

Columns y, y' with C[:, y] = c C[:, y'] (c > 0) give the same posterior under every
prior; adding them is a post-processing that is invertible up to refinement, so the
reduced channel is equivalent to the original both ways. :func:`reduce_columns`
merges proportional columns within a relative tolerance; :func:`merge_equal_columns`
merges exactly equal columns only (no tolerance), for a channel whose entries must
stay bit-for-bit those of the matrix it came from.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["REDUCE_RTOL", "Reduced", "reduce_columns", "merge_equal_columns"]

#: Two columns are merged when every ratio of their entries agrees within this
#: relative tolerance (and they have the same zero pattern): ~9 units of roundoff,
#: inside the rounding band within which verdicts are stated (see
#: :func:`qifldp.refines`), so merging never decides a verdict. Columns differing
#: by more, however small their entries, are kept apart (a tolerance relative to
#: each entry, unlike rounding to fixed decimals).
REDUCE_RTOL: float = 2e-15


class Reduced:
    """A channel with proportional columns merged and zero columns dropped.

    ``matrix[:, g] = Σ_{y in groups[g]} original[:, y]``; ``group_of[y]`` is the
    group of original column y (-1 for a dropped zero column); ``weights[y]`` is
    the share of original column y in its group (column sums), 0 for dropped
    columns. ``groups`` (the original columns of each group, ascending) is derived
    from ``group_of`` on first use unless given; ``unchanged`` is True when every
    column was kept alone, in order (``matrix`` is then the original matrix).
    Read-only once built.

    Examples
    --------
    >>> import numpy as np
    >>> red = reduce_columns(np.array([[0.2, 0.4, 0.4], [0.1, 0.2, 0.7]]))
    >>> red.matrix.shape, [g.tolist() for g in red.groups], red.unchanged
    ((2, 2), [[0, 1], [2]], False)
    """

    __slots__ = ("matrix", "group_of", "weights", "_groups", "_unchanged")
    matrix: np.ndarray
    group_of: np.ndarray
    weights: np.ndarray
    _groups: list[np.ndarray] | None
    _unchanged: bool | None

    def __init__(
        self,
        matrix: np.ndarray,
        groups: list[np.ndarray] | None,
        group_of: np.ndarray,
        weights: np.ndarray,
        unchanged: bool | None = None,
    ) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "matrix", matrix)
        setattr_(self, "group_of", group_of)
        setattr_(self, "weights", weights)
        setattr_(self, "_groups", groups)
        setattr_(self, "_unchanged", unchanged)

    def __setattr__(self, name: str, value: object) -> None:
        msg = f"Reduced is read-only: cannot set {name!r}"
        raise AttributeError(msg)

    def __repr__(self) -> str:
        return f"Reduced({self.group_of.size} columns -> {self.matrix.shape[1]} groups)"

    def __reduce__(self) -> tuple:
        # pickle and copy rebuild through __init__ (their default sets the slots one by
        # one, which __setattr__ refuses)
        args = (self.matrix, self._groups, self.group_of, self.weights, self._unchanged)
        return (Reduced, args)

    @property
    def groups(self) -> list[np.ndarray]:
        """The original columns of each group, ascending, groups in order."""
        groups = self._groups
        if groups is None:
            g = self.group_of
            kept = np.flatnonzero(g >= 0)
            members = kept[np.argsort(g[kept], kind="stable")]
            ends = np.cumsum(np.bincount(g[kept], minlength=self.matrix.shape[1])).tolist()
            groups = [members[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
            object.__setattr__(self, "_groups", groups)
        return groups

    @property
    def unchanged(self) -> bool:
        """True when the reduction kept every column alone, in order (nothing merged or dropped)."""
        same = self._unchanged
        if same is None:
            n = self.group_of.size
            same = self.matrix.shape[1] == n and bool(
                np.array_equal(self.group_of, np.arange(n)) and np.all(self.weights == 1.0)
            )
            object.__setattr__(self, "_unchanged", same)
        return same


def _proportional_groups(S: np.ndarray, rtol: float) -> np.ndarray:
    """Group labels of the columns of S (scaled to max 1) that agree within ``rtol`` in log space.

    Zero patterns first (exactly); then, one row at a time, the columns of every
    group still holding two or more are sorted by their log entry and split where
    two neighbours differ by more than ``rtol`` (single linkage along that row:
    no two columns within ``rtol`` in every row can end up apart, whatever the
    position of bin edges). A group whose spread exceeds 4 ``rtol`` in some row
    (a chain of near neighbours) is split again by bins of width ``rtol``.
    Cost O(|X| |Y| log |Y|), rows processed only while groups remain.
    """
    n, m = S.shape
    pos = S > 0
    with np.errstate(divide="ignore"):
        L = np.where(pos, np.log(np.where(pos, S, 1.0)), 0.0)
    packed = np.packbits(pos, axis=0)  # (ceil(n / 8), m): the zero pattern of each column
    if packed.shape[0] <= 8:  # one integer key per column: a 1-D unique, 3x faster
        key = np.zeros(m, dtype=np.uint64)
        for byte in packed:
            key = (key << np.uint64(8)) | byte.astype(np.uint64)
        _, lab = np.unique(key, return_inverse=True)
    else:
        _, lab = np.unique(packed.T, axis=0, return_inverse=True)
    lab = np.asarray(lab, dtype=np.int64).reshape(-1)
    for i in range(n):
        counts = np.bincount(lab)
        active = np.flatnonzero(counts[lab] >= 2)
        if active.size == 0:
            break
        order = active[np.lexsort((L[i, active], lab[active]))]
        la, va = lab[order], L[i, order]
        brk = np.ones(order.size, dtype=bool)
        brk[1:] = (la[1:] != la[:-1]) | (np.diff(va) > rtol)
        new = np.cumsum(brk) - 1 + lab.max() + 1
        lab = lab.copy()
        lab[order] = new
    # chains: a group spread wider than 4 rtol in some row is re-split by fixed bins
    _, lab = np.unique(lab, return_inverse=True)
    lab = np.asarray(lab, dtype=np.int64).reshape(-1)
    n_groups = int(lab.max()) + 1 if lab.size else 0
    if n_groups == m:  # every column alone: no group to spread
        return lab
    lo = np.full((n, n_groups), np.inf)
    hi = np.full((n, n_groups), -np.inf)
    for i in range(n):
        np.minimum.at(lo[i], lab, L[i])
        np.maximum.at(hi[i], lab, L[i])
    wide = np.flatnonzero((hi - lo).max(axis=0) > 4 * rtol) if n_groups else np.zeros(0, int)
    if wide.size:
        cols = np.flatnonzero(np.isin(lab, wide))
        keys = np.round(L[:, cols] / rtol).astype(np.int64)
        keys[~pos[:, cols]] = np.iinfo(np.int64).min
        _, sub = np.unique(np.vstack([lab[cols][None, :], keys]).T, axis=0, return_inverse=True)
        lab = lab.copy()
        lab[cols] = n_groups + np.asarray(sub).reshape(-1)
        _, lab = np.unique(lab, return_inverse=True)
        lab = np.asarray(lab, dtype=np.int64).reshape(-1)
    return lab


#: Log-ratios of two rows further apart than this tell two columns apart beyond any doubt
#: (the grouping's tolerance is a few ``REDUCE_RTOL``, rounding of the logs a few ulp).
_SURELY_APART: float = 1e-10


def _apart_by_two_rows(S: np.ndarray) -> np.ndarray | None:
    """Every column its own group when rows 0 and 1 alone tell the columns apart, else None.

    Proportional columns have equal ratios S[0, y] / S[1, y]; positive entries whose
    sorted log-ratios step by more than ``_SURELY_APART`` cannot be in one group of
    :func:`_proportional_groups` (whose groups spread at most 4 ``rtol`` in each row).
    This decides the common case (no two columns proportional) from two rows,
    O(|Y| log |Y|); anything else goes to the full grouping.
    """
    if S.shape[0] < 2 or S.shape[1] < 2:
        return None
    if not float(S[:2].min()) > 0.0:
        return None
    top, second = S[0], S[1]
    ratios = np.sort(np.log(top) - np.log(second))
    if not float(np.diff(ratios).min()) > _SURELY_APART:
        return None
    return np.arange(S.shape[1])


def reduce_columns(M: np.ndarray, rtol: float = REDUCE_RTOL) -> Reduced:
    """Merge columns that are positive multiples of each other (relative tolerance ``rtol``).

    Columns are scaled by their largest entry and compared entry by entry in log
    space (:func:`_proportional_groups`: sorted neighbours within ``rtol``, no
    fixed bin edges), zero entries exactly. Cost O(|X| |Y| log |Y|).
    Groups are numbered in the order of their first column. When nothing is merged
    or dropped and rows 0 and 1 already tell every column apart (the common case),
    the reduced matrix is ``M`` itself (a read-only view, no copy).

    Examples
    --------
    >>> M = np.array([[0.1, 0.2, 0.3, 0.4, 0.0], [0.2, 0.4, 0.3, 0.1, 0.0]])
    >>> red = reduce_columns(M)  # columns 0 and 1 proportional, column 4 zero
    >>> red.group_of.tolist(), red.weights.tolist()
    ([0, 0, 1, 2, -1], [0.3333333333333333, 0.6666666666666666, 1.0, 1.0, 0.0])
    >>> kept = reduce_columns(M[:, 1:4])  # nothing to merge: M itself, read-only
    >>> kept.unchanged, np.shares_memory(kept.matrix, M), kept.matrix.flags.writeable
    (True, True, False)
    """
    n, p = M.shape
    colmax = M.max(axis=0)
    # the common case first: no zero column, and rows 0 and 1 (scaled) tell every column
    # apart; M is then kept as it is (a read-only view, no copy; groups built on use)
    if float(colmax.min()) > 0 and _apart_by_two_rows(M[:2] / colmax) is not None:
        kept = M.view()
        kept.flags.writeable = False
        return Reduced(kept, None, np.arange(p), np.ones(p), unchanged=True)
    nz = np.flatnonzero(colmax > 0)
    group_of = np.full(p, -1, dtype=np.int64)
    if nz.size == 0:  # pragma: no cover - a Channel has no all-zero matrix
        return Reduced(np.zeros((n, 0)), [], group_of, np.zeros(p), unchanged=False)
    # (with no zero column, rows 0 and 1 were just tried)
    lab = None if nz.size == p else _apart_by_two_rows(M[:2, nz] / colmax[nz])
    if lab is None:
        lab = _proportional_groups(M[:, nz] / colmax[nz], rtol)
    n_groups = int(lab.max()) + 1
    if n_groups == nz.size:  # no two columns proportional: the channel without its zero columns
        group_of[nz] = np.arange(nz.size)
        weights = np.zeros(p)
        weights[nz] = 1.0
        unchanged = nz.size == p
        return Reduced(M[:, nz], None, group_of, weights, unchanged=unchanged)
    first = np.full(n_groups, lab.size)
    np.minimum.at(first, lab, np.arange(lab.size))
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    g = rank[lab]
    group_of[nz] = g
    by_group = np.argsort(g, kind="stable")  # columns of each group, ascending
    ends = np.cumsum(np.bincount(g, minlength=n_groups)).tolist()
    members = nz[by_group]
    # each group's sum by pairwise summation over its contiguous block (relative error
    # ~u log2(size)); an entry-by-entry accumulation (np.add.at) drifts by ~u·size, 2e-11
    # for a million columns, and the witness expanded back from the merged column
    # inherits that drift as a residual far outside the rounding band
    merged = np.add.reduceat(M[:, members], [0, *ends[:-1]], axis=1)
    colsum = M.sum(axis=0)
    gsum = merged.sum(axis=0)
    weights = np.zeros(p)
    weights[nz] = colsum[nz] / gsum[g]
    return Reduced(merged, None, group_of, weights, unchanged=False)


#: Counts up to this are exact float64 integers: a column times its count is then one
#: correctly rounded product.
_EXACT_FLOAT_INT: int = 2**53


def _times_counts(columns: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``columns[:, g] * counts[g]``, each entry the exact product rounded once to nearest.

    Below 2^53 the count is an exact float and the float product is that rounding; a
    larger count (a Python int) is multiplied in exact rationals.
    """
    if counts.size == 0 or int(counts.max()) <= _EXACT_FLOAT_INT:
        return columns * counts.astype(np.float64)
    out = np.empty(columns.shape)
    for g, n in enumerate(counts.tolist()):
        exact = [Fraction(float(v)) * int(n) for v in columns[:, g]]
        out[:, g] = [float(v) for v in exact]
    return out


def merge_equal_columns(M: np.ndarray, counts: np.ndarray | None = None) -> Reduced:
    """Merge exactly equal columns (no tolerance) into their sum; drop all-zero columns.

    Equal columns give the same posterior under every prior, so the merged matrix is
    equivalent to ``M`` both ways (every g-vulnerability is unchanged). Columns are
    compared entry by entry with ``==`` (a lexicographic sort, O(|X| |Y| log |Y|));
    a merged entry is the exact sum of its group's equal entries rounded once to
    nearest, n c for n equal entries c (the same value whatever the order in which
    the group's columns were found, so that a matrix built from fewer, counted columns
    merges to the same bits).

    Parameters
    ----------
    M : numpy.ndarray, shape (n, p)
        A nonnegative matrix (a channel's rows, say).
    counts : numpy.ndarray of int, shape (p,), optional
        How many original columns each column of ``M`` stands for (default 1 each:
        int64, or Python ints in an object array beyond the int64 range).

    Returns
    -------
    Reduced
        ``matrix[:, g]`` the sum of group g, groups numbered in the order of their
        first column; ``group_of[y]`` the group of column y (-1: an all-zero column,
        dropped); ``weights[y]`` = counts[y] / (the group's total count).

    Examples
    --------
    >>> M = np.array([[0.25, 0.5, 0.25, 0.0], [0.125, 0.75, 0.125, 0.0]])
    >>> red = merge_equal_columns(M)  # columns 0 and 2 equal, column 3 zero
    >>> red.matrix.tolist(), red.group_of.tolist(), red.weights.tolist()
    ([[0.5, 0.5], [0.25, 0.75]], [0, 1, 0, -1], [0.5, 1.0, 0.5, 0.0])
    >>> merge_equal_columns(M[:, :2], counts=np.array([3, 1])).matrix.tolist()
    [[0.75, 0.5], [0.375, 0.75]]
    """
    n, p = M.shape
    if counts is None:
        counts = np.ones(p, dtype=np.int64)
    group_of = np.full(p, -1, dtype=np.int64)
    weights = np.zeros(p)
    nz = np.flatnonzero(np.any(M != 0, axis=0))
    if nz.size == 0:
        return Reduced(np.zeros((n, 0)), [], group_of, weights, unchanged=False)
    sub = M[:, nz]
    order = np.lexsort(sub[::-1])  # row 0 the primary key; stable: ties by column
    ordered = sub[:, order]
    starts = np.ones(order.size, dtype=bool)
    starts[1:] = np.any(ordered[:, 1:] != ordered[:, :-1], axis=0)
    sorted_label = np.cumsum(starts) - 1
    firsts = order[starts]  # the first (smallest) column of each group, by sorted label
    by_first = np.argsort(firsts, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.size)
    g = np.empty(order.size, dtype=np.int64)
    g[order] = rank[sorted_label]
    group_of[nz] = g
    kept = counts[nz]
    total = np.zeros(by_first.size, dtype=kept.dtype)
    np.add.at(total, g, kept)
    merged = _times_counts(sub[:, firsts[by_first]], total)
    weights[nz] = np.asarray(kept / total[g], dtype=np.float64)
    unchanged = bool(nz.size == p and by_first.size == p and np.all(counts == 1))
    return Reduced(merged, None, group_of, weights, unchanged=unchanged)
