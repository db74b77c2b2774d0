"""Near-boundary pairs: verdicts must be the exact truth, in float or in rational arithmetic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import VerificationError

from ._helpers import assert_counterexample, assert_witness, exact_gap, rational_rows


def _grr_by_hand(k: int, eps: float) -> np.ndarray:
    # diagonal e^eps/(e^eps + k - 1) = 1/(1 + (k-1)e^-eps), off-diagonal e^-eps/(1 + (k-1)e^-eps)
    t = np.exp(-eps)
    d = 1.0 / (1.0 + (k - 1) * t)
    M = np.full((k, k), t * d)
    np.fill_diagonal(M, d)
    return M


def test_grr_constructor_matches_the_hand_formula():
    for k, eps in [(3, 1.0), (4, 30.0), (2, 40.0)]:
        np.testing.assert_allclose(q.grr(k, eps).matrix, _grr_by_hand(k, eps), rtol=1e-14, atol=0)


# GRR is a refinement family ([24], QIF paper Lemma 3): grr(k, a) ⊑ grr(k, b) iff a >= b.
# Exact truth for the stored channels: W = A⁻¹B must be >= 0 (A invertible), checked in rationals.
PAIRS = [(1.0, 1.0 + 1e-5), (20.0, 21.0), (30.0, 31.0), (40.0, 41.0), (1.0, 1.0 + 1e-9)]


def _exact_truth(A: np.ndarray, B: np.ndarray) -> bool:
    """A ⊑ B for invertible A: the unique candidate W = A⁻¹B (exact rationals) is >= 0."""
    import sympy as sp

    Aq = sp.Matrix(rational_rows(A))
    Bq = sp.Matrix(rational_rows(B))
    W = Aq.LUsolve(Bq)
    return all(v >= 0 for v in W)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("a, b", PAIRS)
def test_grr_near_boundary_both_directions(k, a, b):
    A, B = q.grr(k, a), q.grr(k, b)
    assert _exact_truth(A.matrix, B.matrix) is False
    assert _exact_truth(B.matrix, A.matrix) is True
    r = q.refines(A, B)  # the less private channel B leaks more: fails
    assert not r.holds
    assert_counterexample(A, B, r)
    # the gap of the returned float gain is positive in exact rational arithmetic
    assert exact_gap(A, B, r.counterexample.gain, r.counterexample.prior) > 0
    s = q.refines(B, A)
    assert s.holds
    assert_witness(B, A, s)


@pytest.mark.parametrize("k", [3, 4])
def test_float_tolerance_alone_would_accept_the_wrong_verdict(k):
    # W = I fits within the API tolerance 1e-7, yet grr(k, 30) ⋢ grr(k, 31)
    A, B = q.grr(k, 30.0), q.grr(k, 31.0)
    assert np.abs(A.matrix @ np.eye(k) - B.matrix).max() < 1e-7
    r = q.refines(A, B)
    assert not r.holds and r.counterexample.gap > 0


@pytest.mark.parametrize("eps", [20.0, 30.0, 40.0])
def test_exact_mode_certificates(eps):
    A, B = q.grr(3, eps), q.grr(3, eps + 1.0)
    r = q.refines(A, B, exact=True)
    assert not r.holds and r.exact
    ce = r.counterexample
    assert ce.gap_exact is not None and ce.gap_exact > 0
    assert ce.gap_exact == exact_gap(A, B, ce.gain, ce.prior)  # independent exact recomputation
    s = q.refines(B, A, exact=True)
    assert s.holds and s.exact
    Wq = [list(row) for row in s.exact_witness]
    Bq, Aq = rational_rows(B.matrix), rational_rows(A.matrix)
    # exact check of B·W = A, W >= 0, rows summing to 1 (fractions, by hand)
    for row in Wq:
        assert all(v >= 0 for v in row) and sum(row) == 1
    prod = [[sum(Bq[x][z] * Wq[z][y] for z in range(3)) for y in range(3)] for x in range(3)]
    assert prod == Aq


def test_exact_mode_on_a_small_random_pair():
    rng = np.random.default_rng(3)
    A = rng.dirichlet(np.ones(3), size=3)
    R = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    B = A @ R
    r = q.refines(A, B, exact=True)
    # A is square and invertible, B = A·R rounded: exactly refinable iff A⁻¹B >= 0 exactly
    assert r.holds == _exact_truth(A, B)
    if r.holds:
        assert r.exact and r.exact_witness is not None


def test_exact_method_agrees_with_float_on_small_pairs():
    rng = np.random.default_rng(11)
    for _ in range(10):
        A = rng.dirichlet(np.ones(3), size=2)
        B = rng.dirichlet(np.ones(2), size=2)
        r_float = q.refines(A, B)
        r_exact = q.refines(A, B, method="exact")
        assert r_exact.exact
        assert r_float.holds == r_exact.holds


def test_exact_simplex_when_a_is_wide():
    # A has more columns than rows: the closed form does not apply, the rational simplex decides
    A = q.Channel([[0.5, 0.25, 0.25], [0.25, 0.25, 0.5]])
    B = q.Channel([[0.375, 0.625], [0.375, 0.625]])  # no leakage: refines
    r = q.refines(A, B, method="exact")
    assert r.holds and r.exact
    C = q.Channel([[0.75, 0.25], [0.25, 0.75]])  # leaks more than A (Bayes: 0.75 > 0.625)
    s = q.refines(A, C, method="exact")
    assert not s.holds and s.exact and s.counterexample.gap_exact > 0
    assert "simplex" in s.certified_by


def test_band_straddling_pair_without_rational_arithmetic_raises():
    # eps = 40: 1 − q rounds to 1; only exact arithmetic sees grr(3, 40) ⋢ grr(3, 41)
    with pytest.raises(VerificationError):
        q.refines(q.grr(3, 40.0), q.grr(3, 41.0), exact=False, strict=True)


def test_rounding_only_refinement_is_not_claimed_exact():
    # B = A·R computed in floats with A of full column rank (tall): B is A·W up to
    # rounding (holds), but the stored B is not exactly in the column span of A.
    rng = np.random.default_rng(0)
    A = rng.dirichlet(np.ones(3), size=5)
    B = A @ rng.dirichlet(np.ones(7), size=3)
    r = q.refines(A, B)
    assert r.holds and not r.exact
    assert_witness(A, B, r)
    Aq, Bq = rational_rows(A), rational_rows(B)
    import sympy as sp

    M = sp.Matrix(Aq)
    # independent: rank [A | B] > rank A in exact arithmetic, so no exact witness exists
    assert sp.Matrix.hstack(M, sp.Matrix(Bq)).rank() > M.rank()
    # exact=True decides the stored floats (they fail) and says the verdict holds up to rounding
    e = q.refines(A, B, exact=True)
    assert e.holds and e.up_to_rounding and not e.exact and e.about == "rounding"
    assert "up to rounding" in e.certified_by and "fail exactly" in e.certified_by
    assert_witness(A, B, e)


def test_exact_witness_fractions_type():
    r = q.refines(
        q.Channel([[0.75, 0.25], [0.25, 0.75]]), q.Channel([[0.5, 0.5], [0.5, 0.5]]), exact=True
    )
    assert r.holds and r.exact
    assert all(isinstance(v, Fraction) for row in r.exact_witness for v in row)


@pytest.mark.parametrize("delta", [1e-13, 3e-14])
def test_grr_tiny_eps_difference_still_fails(delta):
    # outside the rounding band: the exact truth for the stored values (A⁻¹B has a negative entry)
    A, B = q.grr(3, 1.0), q.grr(3, 1.0 + delta)
    assert _exact_truth(A.matrix, B.matrix) is False
    r = q.refines(A, B)
    assert not r.holds
    assert_counterexample(A, B, r)


def test_pair_inside_the_rounding_band_refines_both_ways_up_to_rounding():
    # grr(3, 1) and grr(3, 1 + 1e-15) differ by less than the rounding of their entries
    A, B = q.grr(3, 1.0), q.grr(3, 1.0 + 1e-15)
    assert np.abs(A.matrix - B.matrix).max() < 1e-15
    r, s = q.refines(A, B), q.refines(B, A)
    assert r.holds and s.holds and not r.exact and not s.exact
    # method="exact" decides the stored floats exactly; exact=True states the boundary case
    truth = _exact_truth(A.matrix, B.matrix)
    assert q.refines(A, B, method="exact").holds is truth
    if not truth:
        e = q.refines(A, B, exact=True)
        assert e.holds and e.up_to_rounding and not e.exact
