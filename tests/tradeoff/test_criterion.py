"""The exact 2x2 refinement criterion (Lemma 1 (3)), its witness, and two-secret refinement."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import qifldp as q
from qifldp.errors import ChannelError
from qifldp.tradeoff import (
    refines_2x2,
    refines_binary,
    tradeoff_curve,
    tradeoff_point,
    witness_2x2,
)

from ._helpers import exact_2x2, inverse_witness, matmul_exact, random_2x2, rational_rows


def _printed_lemma_1_3(C, D):
    """Lemma 1 (3) exactly as printed (no orientation), cross-multiplied."""
    aC, bC = tradeoff_point(C, exact=True)
    aD, bD = tradeoff_point(D, exact=True)
    return bC * (1 - aD) <= bD * (1 - aC) and aD * (1 - bC) >= aC * (1 - bD)


def _inverse_verdict(A, B):
    """Independent exact verdict: A ⊑ B iff A^{-1} B >= 0 (A invertible), else B has equal rows."""
    W = inverse_witness(A, B)
    if W is None:  # A has equal rows: only channels with equal rows are refined by A
        return B[0] == B[1]
    return all(v >= 0 for row in W for v in row)


def test_criterion_agrees_with_the_inverse_witness_on_3000_random_pairs():
    # provenance: W = A^{-1} B computed by Cramer's rule in exact rationals (tests' own code)
    rng = np.random.default_rng(20240501)
    As, Bs = random_2x2(rng, 3000), random_2x2(rng, 3000)
    n_true = 0
    for A, B in zip(As, Bs, strict=True):
        expected = _inverse_verdict(exact_2x2(A), exact_2x2(B))
        assert refines_2x2(A, B) == expected
        n_true += expected
    assert 200 < n_true < 2800  # both verdicts are well represented


@settings(max_examples=200, deadline=None)
@given(rational_rows(n_rows=2, min_outputs=2, max_outputs=2), rational_rows(2, 2, 2))
def test_criterion_and_exact_witness_on_rational_pairs(A, B):
    verdict = refines_2x2(A, B)
    assert verdict == _inverse_verdict(A, B)
    W = witness_2x2(A, B)
    if verdict:
        assert all(v >= 0 for row in W for v in row)
        assert all(sum(row) == 1 for row in W)
        assert matmul_exact(A, W) == B  # exact certificate
    else:
        assert W is None


@pytest.mark.slow
@pytest.mark.parametrize(
    "n", [500, pytest.param(2000, marks=pytest.mark.campaign)], ids=["500", "2000"]
)
def test_criterion_agrees_with_the_lp_on_random_pairs(n):
    # provenance: q.refines (HiGHS LP with verified witness / Farkas counterexample,
    # exact rational fallback near the boundary); pairs include zero entries, entries
    # equal to 1 and channels with equal rows. ~12 ms per LP, ~0.4 ms per criterion.
    # The suite draws 500 pairs (171 hold, 329 fail); 2000 run in the campaign.
    rng = np.random.default_rng(2024)
    As, Bs = random_2x2(rng, n), random_2x2(rng, n)
    counts = {True: 0, False: 0}
    for A, B in zip(As, Bs, strict=True):
        lp = q.refines(A, B)
        assert refines_2x2(A, B) == lp.holds, (A, B, lp)
        counts[lp.holds] += 1
    assert min(counts.values()) > 0.3 * n  # both verdicts well represented


def test_criterion_agrees_with_the_lp_on_pairs_near_the_boundary():
    # B = A·W for a random W, then B pushed slightly outside/inside along the curve:
    # provenance: construction (A·W refines) and q.refines for the perturbed pairs
    rng = np.random.default_rng(5)
    for _ in range(40):
        A = random_2x2(rng, 1, zero_prob=0)[0]
        W = random_2x2(rng, 1, zero_prob=0)[0]
        B = A @ W
        assert refines_2x2(A, B) and q.refines(A, B).holds
        for t in (1e-6, -1e-6):  # move B's point alpha by t (beta kept)
            a, b = B[0, 1] + t, B[1, 0]
            if 0 <= a <= 1:
                Bt = np.array([[1 - a, a], [b, 1 - b]])
                assert refines_2x2(A, Bt) == q.refines(A, Bt).holds


def test_printed_criterion_is_wrong_without_orientation():
    # C and its column swap D are the same channel up to relabelling: C ⊑ D and D ⊑ C.
    C = [[F(1, 5), F(4, 5)], [F(9, 10), F(1, 10)]]  # alpha + beta = 17/10 > 1
    D = [[F(4, 5), F(1, 5)], [F(1, 10), F(9, 10)]]
    assert matmul_exact(C, [[0, 1], [1, 0]]) == D and matmul_exact(D, [[0, 1], [1, 0]]) == C
    assert refines_2x2(C, D) and refines_2x2(D, C)
    # the printed Lemma 1 (3) on the unoriented points denies C ⊑ D (beta_C/(1-alpha_C) = 9/2 > 1/8)
    assert not _printed_lemma_1_3(C, D)
    assert _printed_lemma_1_3(D, C)


def test_degenerate_channels():
    none = [[F(3, 10), F(7, 10)], [F(3, 10), F(7, 10)]]  # alpha + beta = 1: leaks nothing
    bsc = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    ident = [[1, 0], [0, 1]]
    swap = [[0, 1], [1, 0]]
    assert refines_2x2(bsc, none) and refines_2x2(ident, none)
    assert not refines_2x2(none, bsc)
    assert refines_2x2(none, [[F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]])
    assert refines_2x2(ident, swap) and refines_2x2(swap, ident)  # alpha = beta = 1 oriented to 0
    assert refines_2x2(ident, bsc) and not refines_2x2(bsc, ident)
    W = witness_2x2(none, [[F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]])
    assert W == [[F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]]
    assert witness_2x2(none, bsc) is None


def test_lemma_2_sufficient_condition():
    # paper's Lemma 2: alpha_C <= alpha_D and beta_C <= beta_D (oriented) imply C ⊑ D
    rng = np.random.default_rng(7)
    for _ in range(500):
        aC, bC = rng.random(2) * 0.5
        aD, bD = aC + rng.random() * (0.5 - aC), bC + rng.random() * (0.5 - bC)
        C = [[1 - aC, aC], [bC, 1 - bC]]
        D = [[1 - aD, aD], [bD, 1 - bD]]
        assert refines_2x2(C, D)


def test_float_criterion_is_exact_near_the_boundary():
    # binary randomized response: grr(2, e) ⊑ grr(2, e') iff e >= e'; 1e-12 apart still decided
    for e in (0.5, 1.0, 5.0, 30.0):
        A, B = q.grr(2, e), q.grr(2, e + 1e-12)
        if A.matrix[0, 0] != B.matrix[0, 0]:  # distinct floats
            assert refines_2x2(B, A) and not refines_2x2(A, B)


def test_errors():
    with pytest.raises(ChannelError, match="2x2"):
        refines_2x2(np.eye(3), np.eye(2))
    with pytest.raises(ChannelError, match="2x2"):
        witness_2x2(np.eye(2), [[0.5, 0.25, 0.25], [0.25, 0.25, 0.5]])
    with pytest.raises(ChannelError, match="two inputs"):
        refines_binary(np.eye(3), np.eye(2))


def test_float_witness_is_a_certificate():
    A, B = q.grr(2, 2.0), q.grr(2, 1.0)
    W = witness_2x2(A, B)
    assert np.all(W >= 0)
    np.testing.assert_allclose(W.sum(axis=1), 1, atol=1e-15)
    np.testing.assert_allclose(A.matrix @ W, B.matrix, atol=1e-15)


# -- two secrets, any number of outputs (Blackwell for dichotomies) --------------------
@settings(max_examples=100, deadline=None)
@given(rational_rows(n_rows=2, min_outputs=2, max_outputs=2), rational_rows(2, 2, 2))
def test_refines_binary_equals_refines_2x2(A, B):
    assert refines_binary(A, B) == refines_2x2(A, B)


@settings(max_examples=60, deadline=None)
@given(rational_rows(n_rows=2, max_outputs=4), st.data())
def test_refines_binary_on_post_processings(A, data):
    # any A·R with R row-stochastic (exact) is refined by A; provenance: construction
    R = data.draw(rational_rows(n_rows=len(A[0]), max_outputs=3, max_weight=4))
    B = matmul_exact(A, R)
    assert refines_binary(A, B)
    # and the post-processing's curve lies above A's curve at every vertex of A
    TB = tradeoff_curve(B)
    assert all(TB(a) >= b for a, b in tradeoff_curve(A))
