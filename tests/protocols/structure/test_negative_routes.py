"""Failures certified on the cheapest representation
(qifldp.protocols.structure.negative_routes): the capacity test, its closed-form bound
for a protocol without a channel, and the pair test.

Each counterexample's gap is recomputed here: by hand on the rows, in rationals on the
stored floats, or from the protocol's explicit channel at sizes where it can be built.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ParameterError
from qifldp.protocols import he_multi
from qifldp.protocols.structure import negative_routes
from qifldp.protocols.structure.negative_routes import (
    PAIR_TEST_MARGIN,
    capacity_bound_test,
    capacity_test,
    pair_test,
)
from qifldp.protocols.structure.rigorous_gaps import exact_uniform_vulnerability
from qifldp.sweeps import atlas


def test_pair_test_certifies_grr_monotonicity():
    # GRR(4, 1) ⊑ GRR(4, 2) fails: two-point prior (w, 1 - w) on (x0, x1); by hand,
    # V = Σ_y max(w C[x0, y], (1 - w) C[x1, y]) over the 4 outputs
    A, B = q.grr(4, 1.0), q.grr(4, 2.0)
    ce = pair_test(A, B)
    support = np.flatnonzero(ce.prior)
    assert support.size == 2 and math.isclose(ce.prior.sum(), 1.0)
    x0, x1 = support
    w0, w1 = ce.prior[x0], ce.prior[x1]

    def v(C):
        M = C.matrix
        return sum(max(w0 * M[x0, y], w1 * M[x1, y]) for y in range(4))

    assert math.isclose(ce.gap, v(B) - v(A), rel_tol=1e-9)
    assert ce.gap > PAIR_TEST_MARGIN
    assert pair_test(B, A) is None  # GRR(4, 2) ⊑ GRR(4, 1) holds: nothing separates


def test_pair_test_on_a_symmetric_channel_matches_explicit():
    S, E = q.symmetric.oue(5, 1.0), q.grr(5, 1.0)
    ce_sym = pair_test(S, E)
    ce_exp = pair_test(S.expand(), E)
    assert ce_sym is not None and ce_exp is not None
    assert math.isclose(ce_sym.gap, ce_exp.gap, rel_tol=1e-9)


_A2 = np.array([[0.75, 0.25], [0.25, 0.75]])
_NUDGE = 2.0**-52


def _exact_pair_gap(A, B, x0, x1, w0, w1):
    """V1[π▷B] − V1[π▷A] of the two-point prior in rationals, each row over its exact sum."""

    def v(M):
        rows = []
        for r in (M[x0], M[x1]):
            f = [Fraction(float(t)) for t in r]
            rows.append([t / sum(f) for t in f])
        return sum(max(Fraction(w0) * p, Fraction(w1) * r) for p, r in zip(*rows, strict=True))

    return v(B) - v(A)


def test_pair_test_decides_a_tiny_exactly_positive_gap_exactly():
    B2 = _A2.copy()
    B2[0, 0] += _NUDGE  # row sums 1 + 2^-52: within Channel's rounding
    A, B = q.Channel(_A2), q.Channel(B2)
    assert pair_test(A, B) is None  # below the search threshold PAIR_TEST_MARGIN
    ce = pair_test(A, B, margin=0.0)
    assert ce is not None and ce.gap_exact is not None
    (x0, x1) = np.flatnonzero(ce.prior)
    gap = _exact_pair_gap(_A2, B2, x0, x1, ce.prior[x0], ce.prior[x1])
    assert ce.gap_exact == gap > 0 and ce.gap == float(gap)
    assert ce.recheck(A, B) == gap  # the counterexample's own exact re-check agrees
    # the float evaluation cannot tell: the float gap is within its rounding bound
    g_float = q.g_vulnerability(B, ce.gain, ce.prior) - q.g_vulnerability(A, ce.gain, ce.prior)
    assert abs(g_float) <= ce.gap_bound and float(gap) < 1e-15
    row = atlas._row("a", "b", False, "pair test", ce, 0.0)
    assert row["rounding_boundary"] is True and row["gap"] == float(gap)
    # the capacity test the same way: ML(B) > ML(A) by 2^-54 exactly, below float resolution
    cap = capacity_test(A, B, 2, margin=0.0)
    assert capacity_test(A, B, 2) is None
    assert cap is not None and cap.gap_exact == cap.recheck(A, B) > 0


def test_a_candidate_whose_exact_gap_is_not_positive_is_not_returned():
    # B's first row is A's times 1 + 2^-50, exactly: divided by its exact sum it IS A's
    # row, so every exact gap is 0, yet the float gap at w = 1/2 is 3 * 2^-53 > 0
    B2 = _A2.copy()
    B2[0] *= 1.0 + 2.0**-50
    assert Fraction(B2[0, 0]) == Fraction(3, 4) * (1 + Fraction(2) ** -50)
    assert Fraction(B2[0, 1]) == Fraction(1, 4) * (1 + Fraction(2) ** -50)
    A, B = q.Channel(_A2), q.Channel(B2)
    float_gap = (0.5 * B2[0, 0] + 0.5 * B2[1, 1]) - (0.5 * _A2[0, 0] + 0.5 * _A2[1, 1])
    assert float_gap > 0 and _exact_pair_gap(_A2, B2, 0, 1, 0.5, 0.5) == 0
    assert negative_routes._recheck_pair(A, B, 0, 1, 0.5) is None
    assert pair_test(A, B, margin=0.0) is None
    assert pair_test(B, A, margin=0.0) is None
    assert capacity_test(A, B, 2, margin=0.0) is None


def test_pair_test_gap_is_proved_by_its_bound():
    # a clear failure is proved by the rounding bound alone, on both representations
    for A, B in ((q.grr(4, 1.0), q.grr(4, 2.0)), (q.symmetric.oue(5, 1.0), q.grr(5, 1.0))):
        ce = pair_test(A, B)
        assert ce.gap_exact is None and ce.gap > ce.gap_bound > 0
        assert ce.gap_bound < 1e-12
    with pytest.raises(ParameterError, match="margin must be"):
        pair_test(q.grr(3, 1.0), q.grr(3, 2.0), margin=-1.0)
    with pytest.raises(ParameterError, match="margin must be"):
        pair_test(q.grr(3, 1.0), q.grr(3, 2.0), margin="0")


def test_pair_test_refuses_channels_of_different_sizes():
    with pytest.raises(ParameterError, match="same number of inputs"):
        pair_test(q.grr(3, 1.0), q.grr(4, 1.0))


def _ml_bound(k: int, eps: float, t: int) -> float:
    """The capacity of HE with t coefficients were every index tuple to hit min(2^t, k)
    sign vectors: (2^t + (e^eps - 1) min(2^t, k)) / (e^eps + 2^t - 1), by hand."""
    E, n = math.exp(eps), min(2**t, k)
    return (2**t + (E - 1) * n) / (E + 2**t - 1)


@pytest.mark.parametrize(("k", "eps", "t"), [(3, 1.0, 2), (5, 0.5, 1), (6, 2.0, 3), (8, 3.0, 2)])
def test_he_multi_capacity_bounds_enclose_the_explicit_capacity(monkeypatch, k, eps, t):
    P = q.protocol("he_multi", k, eps, t=t)
    C = P.channel()
    # ML of the channel as stored, each row over its exact sum, in rationals
    ml = exact_uniform_vulnerability(C) * k
    lo, hi, why = P.closed_form.bayes_capacity_bounds()
    assert "enumerated" in why and lo <= ml <= hi and hi / lo - 1 < Fraction(1, 2**44)
    # past the enumeration's size rule: the bounds from 1 <= N̄ <= min(2^t, k)
    monkeypatch.setattr(he_multi, "MAX_CAPACITY_WORK", 0)
    lo, hi, why = P.closed_form.bayes_capacity_bounds()
    assert why == "each index tuple hits at most min(2^t, k) sign vectors"
    assert lo <= ml <= hi
    assert math.isclose(float(hi), _ml_bound(k, eps, t), rel_tol=1e-13)
    assert lo <= 1 < lo * (1 + Fraction(1, 2**44))  # N̄ = 1: ML = 1, widened


def test_a_channel_is_never_refuted_against_itself_by_its_bound():
    # the bound is of the stored channel, not of the law at e^eps: even with no search
    # margin P ⋢ P is never "proved" (floats of p and o rounded apart from e^eps)
    for eps in (5.254237288135593, 2.0, 0.7):
        for k, t in ((11, 2), (2, 1), (6, 3)):
            P = q.protocol("he_multi", k, eps, t=t)
            assert capacity_bound_test(P, P.channel(), margin=0.0) is None


def test_capacity_bound_test_refutes_he_multi_into_grr_without_its_channel():
    # he_multi(256, 2) has t = 4 coefficients: 256^4 index tuples, its channel never built
    P, B = q.protocol("he_multi", 256, 2.0), q.symmetric.grr(256, 2.0)
    ce, why = capacity_bound_test(P, B)
    ml_grr = 256 * math.exp(2.0) / (math.exp(2.0) + 255)  # GRR's capacity, by hand
    assert math.isclose(ce.vulnerability_b, ml_grr / 256, rel_tol=1e-12)
    assert math.isclose(ce.vulnerability_a, _ml_bound(256, 2.0, 4) / 256, rel_tol=1e-12)
    assert math.isclose(ce.gap, (ml_grr - _ml_bound(256, 2.0, 4)) / 256, rel_tol=1e-9)
    assert ce.gap > ce.gap_bound > 0 and np.allclose(ce.prior, 1 / 256)
    assert "min(2^t, k)" in why
    # B = he_multi's own bound cannot be beaten by a GRR that leaks less: no verdict
    assert capacity_bound_test(P, q.symmetric.grr(256, 0.5)) is None
    # a family that states no bounds
    assert capacity_bound_test(q.protocol("hr", 256, 2.0), B) is None


def test_capacity_bound_decides_the_atlas_pair_and_agrees_with_the_explicit_route(monkeypatch):
    # at k = 8 the explicit channel exists: the capacity test on it and the bound agree
    P = q.protocol("he_multi", 8, 4.0)  # t = 6, 2^t > k: at most 8 sign vectors
    B = q.symmetric.grr(8, 4.0)
    explicit = capacity_test(P.merged_channel(), B, 8)
    monkeypatch.setattr(he_multi, "MAX_CAPACITY_WORK", 0)
    bound = capacity_bound_test(P, B)
    assert explicit is not None and bound is not None
    assert 0 < bound[0].gap <= explicit.gap  # the bound's gap is a lower bound of the gap
    cell = atlas.atlas_cell(256, 2.0, ("he_multi", "grr"), time_limit=20.0)
    (row,) = [r for r in cell["pairs"] if (r["a"], r["b"]) == ("he_multi", "grr")]
    assert row["holds"] is False and row["route"] == "capacity bound"
    assert row["certified_by"].startswith("ML(B) above the closed-form bound of ML(A)")


def test_capacity_bound_test_at_a_million_inputs_forms_no_k_by_k_gain():
    # he_multi(10^6, 8) has t = 12 coefficients; its bound and GRR's capacity by hand:
    # the gap (ML(GRR) − bound) / k, the identity gain a SymmetricGain (np.eye(10^6)
    # would be 7.3 TiB)
    k, eps = 10**6, 8.0
    P = q.protocol("he_multi", k, eps)
    t = P.params["t"]
    ce, why = capacity_bound_test(P, q.symmetric.grr(k, eps))
    ml_grr = k * math.exp(eps) / (math.exp(eps) + k - 1)
    assert math.isclose(ce.gap, (ml_grr - _ml_bound(k, eps, t)) / k, rel_tol=1e-9)
    assert ce.gap > ce.gap_bound > 0 and "min(2^t, k)" in why
    assert ce.gain.k == k and ce.gain.sizes.tolist() == [1]
    assert ce.gain.g_in.tolist() == [1.0] and ce.gain.g_out.tolist() == [0.0]


def test_the_capacity_tests_refuse_channels_over_other_inputs():
    # he_multi(8) against GRR on 16 inputs was "refuted" with an 8 x 8 gain
    with pytest.raises(ParameterError, match="B must be over the 8 inputs compared, got 16"):
        capacity_bound_test(q.protocol("he_multi", 8, 2.0), q.symmetric.grr(16, 8.0))
    with pytest.raises(ParameterError, match="B must be over the 3 inputs compared, got 4"):
        capacity_test(q.grr(3, 1.0), q.grr(4, 2.0), 3)
    with pytest.raises(ParameterError, match="A must be over the 4 inputs compared, got 3"):
        capacity_test(q.grr(3, 1.0), q.grr(4, 2.0), 4)
