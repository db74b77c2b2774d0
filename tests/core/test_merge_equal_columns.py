"""Exactly equal columns merged into their sum (no tolerance): reduction.merge_equal_columns.

Expected values: groups by a dictionary keyed by the column (exact equality), sums by
``math.fsum`` (the exact sum rounded once) or exact rationals for counts past 2^53.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from qifldp.reduction import merge_equal_columns


@pytest.mark.parametrize("seed", range(20))
def test_groups_sums_and_weights_are_those_of_a_dictionary_of_columns(seed):
    rng = np.random.default_rng(seed)
    base = rng.random((3, 6)) * rng.integers(0, 2, size=(1, 6))  # maybe zero columns
    cols = rng.integers(0, 6, size=25)
    M = base[:, cols]
    red = merge_equal_columns(M)
    groups: dict[tuple, list[int]] = {}
    for y in range(M.shape[1]):
        if M[:, y].any():
            groups.setdefault(tuple(M[:, y]), []).append(y)
    expected = [[math.fsum([c[i]] * len(ys)) for c, ys in groups.items()] for i in range(3)]
    assert np.array_equal(red.matrix, np.array(expected).reshape(3, len(groups)))
    assert [g.tolist() for g in red.groups] == list(groups.values())
    for g, ys in enumerate(groups.values()):
        assert red.group_of[ys].tolist() == [g] * len(ys)
        assert red.weights[ys].tolist() == [1 / len(ys)] * len(ys)
    dropped = [y for y in range(M.shape[1]) if not M[:, y].any()]
    assert red.group_of[dropped].tolist() == [-1] * len(dropped)
    assert red.unchanged == (len(groups) == M.shape[1])


def test_proportional_columns_are_not_merged_and_near_equal_ones_neither():
    a = np.array([0.25, 0.5])
    M = np.column_stack([a, 2 * a, a, np.nextafter(a, 1)])
    red = merge_equal_columns(M)
    assert red.group_of.tolist() == [0, 1, 0, 2]
    assert red.matrix[:, 0].tolist() == [0.5, 1.0]


def test_counts_give_the_sum_of_that_many_columns_also_past_2_to_53():
    c = np.array([[0.1], [0.7]])
    n = 3 * 2**60 + 1
    red = merge_equal_columns(np.hstack([c, c]), counts=np.array([n, 5], dtype=object))
    exact = [float(Fraction(v) * (n + 5)) for v in (0.1, 0.7)]
    assert red.matrix[:, 0].tolist() == exact
    assert red.weights.tolist() == [n / (n + 5), 5 / (n + 5)]
    small = merge_equal_columns(np.hstack([c, c, c]), counts=np.array([2, 1, 4]))
    assert small.matrix[:, 0].tolist() == [math.fsum([0.1] * 7), math.fsum([0.7] * 7)]
