"""Columns with entries near the bottom of the float range: the engines' scalings stay in
range (no overflow or underflow reaches the user as a numpy warning) and the verdicts keep
certificates re-checked here in rationals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import qifldp as q
from qifldp.refinement._certify import gain_from_weighted
from qifldp.refinement.nnls import solve_nnls_columns

from ._helpers import assert_certificate, exact_decision

# a max-case pair of the differential campaign: B's first column is ~1e-201 in both rows
A_TINY = [
    [0.9836757552006588, 0.016324244799341248],
    [0.2881474983149188, 0.7118525016850812],
]
B_TINY = [
    [1.1240757281659282e-202, 0.30516574604686697, 0.6948342539531329],
    [4.9021910773867904e-201, 0.446225702600245, 0.553774297399755],
]


@pytest.mark.parametrize("relation", [q.max_case_refines, q.refines])
def test_tiny_column_pair_is_decided_without_a_warning(relation):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning of the internal numerics fails
        r = relation(A_TINY, B_TINY)
    rowsum = relation is q.refines
    # the truth by an exact rational simplex written in the test helpers
    assert r.holds is exact_decision(A_TINY, B_TINY, rowsum=rowsum) is False
    assert_certificate(A_TINY, B_TINY, r, rowsum=rowsum)


def test_nnls_weights_of_a_tiny_column_stay_finite():
    # relative weights 1 / B[x, j] ~ 1e202: squared unscaled they were inf (then NaN in y)
    out = solve_nnls_columns(np.asarray(A_TINY), np.asarray(B_TINY))
    assert np.all(np.isfinite(out.W)) and np.all(np.isfinite(out.H))
    assert np.all(np.abs(out.H).max(axis=1) > 0)  # no hyperplane lost to underflow


def test_gain_of_a_subnormal_weighted_gain_is_scaled_exactly():
    H = np.array([[3 * 2.0**-1070, -(2.0**-1072)]])  # subnormal entries
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = gain_from_weighted(H, np.array([0.5, 0.5]))
    # by hand: g = H / 0.5 = (3 2^-1069, -2^-1071), scaled by 2^1068 to (3/2, ...) -> 2^1067
    np.testing.assert_array_equal(g, [[0.75, -(2.0**-4)]])
