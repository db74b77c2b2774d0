"""Proportional columns are merged whatever the position of rounding bin edges (issue 9, item 5)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import qifldp as q
from qifldp.reduction import REDUCE_RTOL, reduce_columns


@pytest.mark.parametrize("seed", range(60))
def test_split_column_merges_back(seed):
    # B random 4 x 5; its column 0 split into 0.2, 0.5 and 0.3 of itself: 7 columns, 5 classes.
    # With bins of width rtol in log space ~17% of such draws kept 6 columns (a bin edge
    # between two ratios 1 ulp apart).
    rng = np.random.default_rng(seed)
    B = rng.dirichlet(np.ones(5), size=4)
    M = np.column_stack([0.2 * B[:, 0], 0.5 * B[:, 0], 0.3 * B[:, 0], B[:, 1:]])
    C = q.Channel(M / M.sum(axis=1, keepdims=True))
    R = C.reduced()
    assert R.shape == (4, 5)
    # the merged column is B's column 0 (up to rounding), the others unchanged
    np.testing.assert_allclose(R.matrix[:, 0], C.matrix[:, :3].sum(axis=1), rtol=1e-15)
    red = reduce_columns(C.matrix)
    assert [g.tolist() for g in red.groups] == [[0, 1, 2], [3], [4], [5], [6]]


def test_columns_apart_by_more_than_the_tolerance_stay_apart():
    # ratios that differ by 100 rtol in one row are not proportional: kept apart
    a = np.array([0.5, 0.25, 0.25])
    b = a * np.array([1.0, 1.0 + 100 * REDUCE_RTOL, 1.0])
    red = reduce_columns(np.column_stack([a, b / b.sum() * a.sum(), 1 - a]))
    assert len(red.groups) == 3


def test_a_chain_of_near_neighbours_is_not_merged_beyond_the_tolerance():
    # columns whose log ratios step by 0.9 rtol: neighbours are within rtol, the ends are not
    base = np.array([0.4, 0.6])
    cols = [base * np.array([1.0, np.exp(0.9 * REDUCE_RTOL * i)]) for i in range(12)]
    red = reduce_columns(np.column_stack(cols))
    spread = [
        np.ptp(np.log(np.column_stack(cols)[1, g] / np.column_stack(cols)[0, g]))
        for g in red.groups
    ]
    assert max(spread) <= 4 * REDUCE_RTOL + 1e-16


@pytest.mark.parametrize("n", [3, 64, 65, 130])
def test_zero_patterns_group_alike_above_and_below_64_rows(n):
    # the zero-pattern key is one integer per column up to 64 rows, a row of bytes above:
    # both give the groups of a brute-force comparison of patterns and ratios
    rng = np.random.default_rng(n)
    base = rng.random((n, 6)) * (rng.random((n, 6)) > 0.4)
    base[0] = 1.0  # no zero column
    M = np.column_stack([base, 3.0 * base[:, [1, 4]], base[:, [2]] * 0.5])
    red = reduce_columns(M)
    expected = {0: [0], 1: [1, 6], 2: [2, 8], 3: [3], 4: [4, 7], 5: [5]}
    assert sorted(g.tolist() for g in red.groups) == sorted(expected.values())


def test_a_channel_without_proportional_columns_is_kept_as_it_is():
    # no two columns proportional (checked by brute force on their ratios), one zero column:
    # every column its own group, in order, weight 1; the zero column dropped
    rng = np.random.default_rng(3)
    M = rng.dirichlet(np.ones(40), size=6)
    M[:, 7] = 0.0
    ratios = M[:, None, :] / np.where(M > 0, M, 1.0)[:, :, None]
    spread = np.ptp(ratios, axis=0)
    nz = [y for y in range(40) if y != 7]
    assert all(spread[y, z] > 1e-6 for y in nz for z in nz if y != z)
    # rows 0 and 1 positive (their ratios tell the columns apart at once), and a zero in
    # row 0 (the full grouping): the same answer
    Z = M.copy()
    Z[0, 3] = 0.0
    for C in (M, Z):
        red = reduce_columns(C)
        assert [g.tolist() for g in red.groups] == [[y] for y in nz]
        assert np.array_equal(red.matrix, C[:, nz])
        assert red.group_of.tolist() == [*range(7), -1, *range(7, 39)]
        assert red.weights.tolist() == [1.0] * 7 + [0.0] + [1.0] * 32


def test_a_channel_kept_as_it_is_is_not_copied():
    # no zero column, rows 0 and 1 tell the columns apart: the reduced matrix is M itself
    # (read-only), each column its own group in order, as the brute-force ratios say
    rng = np.random.default_rng(5)
    M = rng.dirichlet(np.ones(30), size=4)
    ratios = M[:, None, :] / M[:, :, None]
    assert all(np.ptp(ratios[:, y, z]) > 1e-6 for y in range(30) for z in range(30) if y != z)
    red = reduce_columns(M)
    assert np.shares_memory(red.matrix, M) and not red.matrix.flags.writeable
    assert np.array_equal(red.matrix, M) and red.unchanged
    assert [g.tolist() for g in red.groups] == [[y] for y in range(30)]
    assert red.group_of.tolist() == list(range(30)) and red.weights.tolist() == [1.0] * 30
    with pytest.raises(AttributeError, match="read-only"):
        red.matrix = M  # type: ignore[misc]
    # a zero column dropped, or two columns merged: not unchanged, groups as stated
    Z = M.copy()
    Z[:, 4] = 0.0
    assert not reduce_columns(Z).unchanged
    merged = reduce_columns(np.column_stack([M, 2.0 * M[:, 7]]))
    assert not merged.unchanged
    assert [g.tolist() for g in merged.groups] == [[y] for y in range(7)] + [[7, 30]] + [
        [y] for y in range(8, 30)
    ]


def test_a_reduction_pickles_and_copies():
    # read-only attributes must not stop pickle or copy: the copy holds the same groups
    M = np.array([[0.2, 0.4, 0.4, 0.0], [0.1, 0.2, 0.7, 0.0]])
    red = reduce_columns(M)
    for twin in (pickle.loads(pickle.dumps(red)), copy.deepcopy(red), copy.copy(red)):
        assert np.array_equal(twin.matrix, np.column_stack([M[:, 0] + M[:, 1], M[:, 2]]))
        assert [g.tolist() for g in twin.groups] == [[0, 1], [2]]
        assert twin.group_of.tolist() == [0, 0, 1, -1] and not twin.unchanged
        assert np.array_equal(twin.weights, red.weights)
