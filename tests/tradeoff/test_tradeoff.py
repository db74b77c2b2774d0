"""Trade-off points and exact f-DP trade-off curves (Neyman–Pearson), zero-probability outputs."""

from __future__ import annotations

import math
from fractions import Fraction as F

import matplotlib
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import qifldp as q
from qifldp.errors import ChannelError, InputTypeError, ParameterError
from qifldp.tradeoff import (
    TradeoffCurve,
    tradeoff_channel,
    tradeoff_curve,
    tradeoff_point,
    tradeoff_value,
)

from ..strategies import channels
from ._helpers import rational_rows, subset_points

matplotlib.use("Agg")


# -- tradeoff_point -------------------------------------------------------------------
def test_tradeoff_point_reads_alpha_and_beta():
    # paper Eq. (14): C = [[1 - alpha, alpha], [beta, 1 - beta]]
    assert tradeoff_point([[0.7, 0.3], [0.4, 0.6]]) == (0.3, 0.4)
    assert tradeoff_point(q.Channel([[1.0, 0.0], [0.25, 0.75]])) == (0.0, 0.25)


def test_tradeoff_point_exact_and_symbolic():
    assert tradeoff_point([[F(2, 3), F(1, 3)], [F(1, 5), F(4, 5)]]) == (F(1, 3), F(1, 5))
    # a float channel read exactly: alpha is the exact binary value of 0.1 (row normalised)
    a, b = tradeoff_point([[0.9, 0.1], [0.5, 0.5]], exact=True)
    assert a == F(0.1) / (F(0.9) + F(0.1)) and b == F(1, 2)
    e = sp.Symbol("eps", positive=True)
    a = sp.exp(e / 2) / (sp.exp(e / 2) + 1)
    M = sp.Matrix([[a, 1 - a], [1 - a, a]])
    alpha, beta = tradeoff_point(M)
    assert sp.simplify(alpha - 1 / (sp.exp(e / 2) + 1)) == 0
    assert sp.simplify(beta - alpha) == 0


@pytest.mark.parametrize(
    "bad", [[[1.0]], [[0.5, 0.5]], np.full((3, 2), 0.5), np.full((2, 3), 1 / 3)]
)
def test_tradeoff_point_rejects_non_2x2(bad):
    with pytest.raises(ChannelError, match="2x2"):
        tradeoff_point(bad)


def test_tradeoff_point_is_the_inner_vertex_in_orientation():
    # alpha + beta < 1: the inner vertex is (alpha, beta)
    C = [[0.8, 0.2], [0.3, 0.7]]
    assert tradeoff_curve(C).vertices == [(0.0, 1.0), (0.2, 0.3), (1.0, 0.0)]
    # alpha + beta > 1 (columns swapped): the inner vertex is (1 - alpha, 1 - beta)
    Cs = [[0.2, 0.8], [0.7, 0.3]]
    assert tradeoff_point(Cs) == (0.8, 0.7)
    assert tradeoff_curve(Cs, exact=True).vertices == tradeoff_curve(C, exact=True).vertices


# -- 4-ary randomized response: the value a well-known package gets wrong --------------
def test_rr4_eps1_beta_at_0_1_is_exact():
    # closed form: outputs sorted by ratio C[1,y]/C[0,y] = e, 1, 1, 1/e; for
    # alpha <= 1/(e+3) the optimal test rejects on output 1 only, so
    # T(alpha) = 1 - (e/(e+3)) / (1/(e+3)) * alpha = 1 - e * alpha.
    e = math.e
    C = q.grr(4, 1.0)
    expected = 1 - e * 0.1  # 0.7281718171540955
    assert tradeoff_value(C, 0.1) == pytest.approx(expected, abs=1e-15)
    assert round(expected, 2) == 0.73
    # all vertices by hand: (0,1), (1/(e+3), 3/(e+3)), (3/(e+3), 1/(e+3)), (1, 0);
    # the two outputs of ratio 1 are one segment (ties merged)
    V = np.array(tradeoff_curve(C))
    hand = np.array([[0, 1], [1 / (e + 3), 3 / (e + 3)], [3 / (e + 3), 1 / (e + 3)], [1, 0]])
    np.testing.assert_allclose(V, hand, atol=1e-15)


def test_rr4_rational_curve_is_exact():
    # e^eps = 2 makes randomized response rational: P = (2,1,1,1)/5, Q = (1,2,1,1)/5
    P = [F(2, 5), F(1, 5), F(1, 5), F(1, 5)]
    Q = [F(1, 5), F(2, 5), F(1, 5), F(1, 5)]
    T = tradeoff_curve([P, Q])
    assert T.exact
    assert T.vertices == [(0, 1), (F(1, 5), F(3, 5)), (F(3, 5), F(1, 5)), (1, 0)]
    assert T(F(1, 10)) == F(4, 5)  # 1 - 2 * 1/10 by hand
    assert tradeoff_value([P, Q], F(2, 5)) == F(2, 5)  # midpoint of the tie segment
    # the float curve of grr(4, ln 2) agrees with the exact one
    np.testing.assert_allclose(
        np.array(tradeoff_curve(q.grr(4, math.log(2)))), np.array(T), atol=1e-15
    )
    # sympy rationals are exact input too
    assert tradeoff_curve(sp.Matrix([P, Q])).vertices == T.vertices


# -- zero-probability outputs -----------------------------------------------------------
def test_zero_probability_outputs():
    # outputs: y0 P=0<Q (ratio inf), y1 both 0 (ignored), y2 ratio 2, y3 Q=0 (ratio 0), y4 ratio 1/2
    P = [F(0), F(0), F(1, 4), F(1, 4), F(1, 2)]
    Q = [F(1, 4), F(0), F(1, 2), F(0), F(1, 4)]
    T = tradeoff_curve([P, Q])
    # by hand: start (0, 1 - 1/4); reject y2: (1/4, 1/4); add y4: (3/4, 0); add y3: (1, 0)
    assert T.vertices == [(0, F(3, 4)), (F(1, 4), F(1, 4)), (F(3, 4), 0), (1, 0)]
    Tf = tradeoff_curve(np.array([[float(v) for v in P], [float(v) for v in Q]]))
    np.testing.assert_allclose(np.array(Tf), np.array(T), atol=1e-15)


def test_identity_and_no_leak_curves():
    assert tradeoff_curve(np.eye(2)).vertices == [(0.0, 0.0), (1.0, 0.0)]  # perfect test
    assert tradeoff_curve([[0.5, 0.5], [0.5, 0.5]]).vertices == [(0.0, 1.0), (1.0, 0.0)]
    C = q.grr(3, 1.0)
    assert tradeoff_curve(C, 2, 2).vertices == [(0.0, 1.0), (1.0, 0.0)]  # x0 = x1


def test_rows_of_a_larger_channel_and_orientation_of_hypotheses():
    C = [[F(1, 2), F(1, 2), 0], [F(1, 4), F(1, 4), F(1, 2)], [0, F(1, 2), F(1, 2)]]
    # T(C[0], C[2]): y2 has P = 0 (inf) -> (0, 1/2); y1 ratio 1 -> (1/2, 0); y0 ratio 0 -> (1, 0)
    assert tradeoff_curve(C, 0, 2).vertices == [(0, F(1, 2)), (F(1, 2), 0), (1, 0)]
    # T(C[2], C[0]) is the mirror image: (0, 1/2), (1/2, 0), (1, 0) again by symmetry
    assert tradeoff_curve(C, 2, 0).vertices == [(0, F(1, 2)), (F(1, 2), 0), (1, 0)]
    # T(C[1], C[0]): ratios y0 2, y1 2, y2 0 -> (1/2, 0), then (1, 0)
    assert tradeoff_curve(C, 1, 0).vertices == [(0, 1), (F(1, 2), 0), (1, 0)]


@settings(max_examples=60, deadline=None)
@given(rational_rows(n_rows=2, max_outputs=5))
def test_curve_is_the_lower_hull_of_all_deterministic_tests(rows):
    # independent definition: the trade-off function is the lower convex envelope of
    # the points (P(S), 1 - Q(S)) over all subsets S (randomised tests fill the gaps)
    P, Q = rows
    T = tradeoff_curve(rows)
    pts = subset_points(P, Q)
    # (i) no deterministic test beats the curve (exact)
    assert all(T(a) <= b for a, b in pts)
    # (ii) every vertex is achieved by a deterministic test (exact)
    assert set(T.vertices) <= set(pts)
    # (iii) convex, non-increasing, between 0 and 1 - alpha
    V = T.vertices
    slopes = [(d - b) / (c - a) for (a, b), (c, d) in zip(V, V[1:], strict=False)]
    assert all(s1 < s2 for s1, s2 in zip(slopes, slopes[1:], strict=False))  # strictly: ties merged
    assert all(s <= 0 for s in slopes)
    assert all(0 <= b <= 1 - a for a, b in V)


@settings(max_examples=60, deadline=None)
@given(channels(min_inputs=2, max_inputs=4, max_outputs=7), st.data())
def test_float_curve_properties_and_agreement_with_exact(C, data):
    x0 = data.draw(st.integers(0, C.n_inputs - 1))
    x1 = data.draw(st.integers(0, C.n_inputs - 1))
    T = tradeoff_curve(C, x0, x1)
    A = np.array(T)
    assert A[0, 0] == 0 and tuple(A[-1]) == (1.0, 0.0)
    assert np.all(np.diff(A[:, 0]) > 0)
    assert np.all(np.diff(A[:, 1]) <= 0)
    assert np.all(A[:, 1] <= 1 - A[:, 0] + 1e-12)
    grid = np.linspace(0, 1, 41)
    vals = T(grid)
    assert np.all(np.diff(vals, 2) >= -1e-9)  # convex on a uniform grid
    Te = tradeoff_curve(C, x0, x1, exact=True)
    np.testing.assert_allclose(vals, [float(Te(F(float(a)))) for a in grid], atol=1e-9)


def test_tradeoff_value_vectorised_and_range_checked():
    T = tradeoff_curve([[0.75, 0.25], [0.25, 0.75]])
    np.testing.assert_allclose(T([0.0, 0.25, 0.625, 1.0]), [1.0, 0.25, 0.125, 0.0])
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ParameterError, match="alpha"):
            T(bad)
    with pytest.raises(ParameterError, match="alpha"):
        tradeoff_curve([[F(1, 2), F(1, 2)], [F(1, 4), F(3, 4)]])(F(3, 2))


def test_input_errors():
    with pytest.raises(ParameterError, match="x1"):
        tradeoff_curve(np.eye(2), 0, 2)
    with pytest.raises(InputTypeError, match="x0"):
        tradeoff_curve(np.eye(2), "a", 1)
    with pytest.raises(ChannelError, match="sum exactly to 1"):
        tradeoff_curve([[F(1, 2), F(1, 3)], [F(1, 2), F(1, 2)]])
    with pytest.raises(ChannelError, match="non-negative"):
        tradeoff_curve([[F(3, 2), F(-1, 2)], [F(1, 2), F(1, 2)]])
    with pytest.raises(ChannelError):
        tradeoff_curve([[0.6, 0.6], [0.5, 0.5]])  # float rows must sum to 1
    e = sp.Symbol("eps")
    with pytest.raises(InputTypeError, match="free symbols"):
        tradeoff_curve(sp.Matrix([[e, 1 - e], [0, 1]]))
    with pytest.raises(InputTypeError, match="exact"):
        tradeoff_curve(np.eye(2), exact="yes")


# -- from a curve back to a channel ---------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(rational_rows(n_rows=2, max_outputs=5))
def test_tradeoff_channel_round_trip(rows):
    T = tradeoff_curve(rows)
    C = tradeoff_channel(T)
    assert tradeoff_curve(C).vertices == T.vertices  # exact
    assert len(C[0]) <= len(rows[0])  # one output per segment (+ the infinite ratio)


def test_tradeoff_channel_orientation_and_errors():
    Ch = tradeoff_channel([(0.0, 1.0), (0.25, 0.5), (1.0, 0.0)])
    np.testing.assert_allclose(Ch.matrix, [[0.75, 0.25], [0.5, 0.5]])  # [[1-a, a], [b, 1-b]]
    with pytest.raises(ParameterError, match="convex"):
        tradeoff_channel([(0, 1), (F(1, 2), F(1, 2)), (F(3, 4), 0), (1, 0)])  # slope -1 then -2
    with pytest.raises(ParameterError, match="non-increasing"):
        tradeoff_channel([(0, F(1, 2)), (F(1, 2), F(3, 4)), (1, 0)])
    with pytest.raises(ParameterError, match="end"):
        tradeoff_channel([(0, 1), (1, F(1, 4))])
    with pytest.raises(ParameterError):
        TradeoffCurve([0, 0.5, 0.5, 1], [1, 0.5, 0.4, 0])


def test_curve_plot_draws_vertices():
    T = tradeoff_curve([[0.75, 0.25], [0.25, 0.75]])
    ax = T.plot(label="bsc")
    line = ax.get_lines()[-1]
    np.testing.assert_allclose(line.get_xydata(), np.array(T))
    assert repr(T) == "TradeoffCurve([(0, 1), (0.25, 0.25), (1, 0)])"
    assert repr(tradeoff_curve([[1, 0], [0, 1]])) == "TradeoffCurve([(0, 0), (1, 0)], exact=True)"


@pytest.mark.parametrize("eps", [20.0, 50.0, 200.0])
def test_float_curve_keeps_relative_precision_at_large_eps(eps):
    # grr(3, eps): ratios e^eps, 1, e^-eps; vertices (0, 1), (1/(E+2), 2/(E+2)),
    # (2/(E+2), 1/(E+2)), (1, 0) with E = e^eps (closed form). Tiny alphas and betas are
    # sums of small terms (never 1 - x), so they keep full relative precision.
    E = math.exp(eps)
    V = np.array(tradeoff_curve(q.grr(3, eps)))
    hand = np.array([[0, 1], [1 / (E + 2), 2 / (E + 2)], [2 / (E + 2), 1 / (E + 2)], [1, 0]])
    np.testing.assert_allclose(V, hand, rtol=1e-12, atol=0)
    # last segment, from (2/(E+2), 1/(E+2)) to (1, 0), at alpha = 1/2
    expected = (1 / (E + 2)) * 0.5 / (1 - 2 / (E + 2))
    assert tradeoff_value(q.grr(3, eps), 0.5) == pytest.approx(expected, rel=1e-12)
