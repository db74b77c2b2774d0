"""Columns with entries near the bottom of the float range: the engines' scalings stay in
range, so no overflow or underflow reaches the user as a numpy warning (the verdicts of
such pairs are checked in test_every_pair_decided.py, with warnings as errors)."""

from __future__ import annotations

import warnings

import numpy as np

from qifldp.refinement._certify import gain_from_weighted
from qifldp.refinement.nnls import solve_nnls_columns


def test_nnls_weights_of_a_tiny_column_stay_finite():
    # B's first column ~1e-250: its relative weights 1 / B[x, j] ~ 1e250, squared unscaled,
    # were inf (then NaN in the hyperplane y)
    A = np.array([[0.9, 0.1], [0.3, 0.7]])
    B = np.array([[2e-250, 0.5, 0.5], [1e-250, 0.25, 0.75]])
    B = B / B.sum(axis=1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = solve_nnls_columns(A, B)
    assert np.all(np.isfinite(out.W)) and np.all(np.isfinite(out.H))
    # column 0 = (2, 1) 1e-250 is inside the cone of A's columns: by hand,
    # 13/6 (0.9, 0.3) + 1/2 (0.1, 0.7) = (2, 1), so r = (13/6, 1/2) 1e-250
    np.testing.assert_allclose(out.W[:, 0], [13 / 6 * 1e-250, 0.5e-250], rtol=1e-12)


def test_gain_of_a_subnormal_weighted_gain_is_scaled_exactly():
    H = np.array([[3 * 2.0**-1070, -(2.0**-1072)]])  # subnormal entries
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = gain_from_weighted(H, np.array([0.5, 0.5]))
    # by hand: H / 0.5 = (3 2^-1069, -2^-1071), whose largest magnitude 3/4 2^-1067 is put
    # in (1/2, 1] by the factor 2^1067: (3/4, -1/16)
    np.testing.assert_array_equal(g, [[0.75, -(2.0**-4)]])


def test_nnls_weights_of_a_subnormal_column_stay_finite():
    # B's first column ~1e-310 (subnormal): its relative weights 1 / B[x, j] overflowed
    # before any scaling; r solves A r = (2, 1) 1e-310 as above, to the subnormals' spacing
    A = np.array([[0.9, 0.1], [0.3, 0.7]])
    B = np.array([[2e-310, 0.5, 0.5], [1e-310, 0.25, 0.75]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = solve_nnls_columns(A, B)
    assert np.all(np.isfinite(out.W)) and np.all(np.isfinite(out.H))
    np.testing.assert_allclose(out.W[:, 0], [13 / 6 * 1e-310, 0.5e-310], rtol=1e-9, atol=0)
