"""Hadamard Response (Acharya, Sun, Zhang, AISTATS 2019).

Expected values: the channel from scipy's Sylvester-Hadamard matrix
(tests/protocols/_enumeration.py); eps, the Bayes capacity and the support counts by
enumeration of that channel; Monte Carlo with seeded normal and chi-square bands.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import ParameterError, SizeError, UnsupportedKindError
from qifldp.protocols.hr import HR, hr_membership, hr_output_size
from tests.protocols._enumeration import (
    assert_gram_form_matches,
    assert_unbiased_with_variance,
    enumerate_hr,
)
from tests.protocols._restriction import (
    assert_large_restriction,
    assert_restriction_is_the_merged_rows,
)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 8, 9, 16])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
def test_channel_equals_the_hadamard_enumeration(k, eps):
    P = q.protocol("hr", k, eps)
    C = P.channel()
    M = enumerate_hr(k, eps)
    np.testing.assert_allclose(C.matrix, M, atol=1e-15)
    assert C.outputs == tuple(range(hr_output_size(k)))
    assert q.ldp_epsilon(C) == pytest.approx(eps, abs=1e-12)
    ml = float(M.max(axis=0).sum())
    assert P.closed_form.bayes_capacity() == pytest.approx(ml, rel=1e-12)
    assert P.closed_form.ldp_epsilon() == eps


def test_bayes_capacity_published_form_and_symbolic_twin():
    # 2 e^eps / (e^eps + 1) for k >= 3 (every output lies in some codeword set)
    for k in (3, 6, 100):
        assert q.protocol("hr", k, 1.0).closed_form.bayes_capacity() == pytest.approx(
            2 * math.e / (math.e + 1)
        )
    for k in (2, 3, 5):
        P = q.protocol("hr", k, 0.8)
        np.testing.assert_allclose(P.symbolic().evaluate().matrix, P.channel().matrix, atol=1e-14)
        sym = float(P.closed_form.symbolic_bayes_capacity())
        assert sym == pytest.approx(P.closed_form.bayes_capacity(), rel=1e-12)


def test_support_counts_by_transform_equal_direct_counting():
    P = q.protocol("hr", 11, 1.0)
    ys = np.random.default_rng(0).integers(0, 16, size=500)
    direct = [int(np.sum(hr_membership(v, ys))) for v in range(11)]
    assert P.support_counts(ys).tolist() == direct
    # (p*, q*): the probability of landing in C_v, enumerated from the channel
    M = P.channel().matrix
    inside = hr_membership(np.arange(11)[:, None], np.arange(16))
    land = M @ inside.T.astype(float)  # land[x, v] = Pr[report in C_v | x]
    a, b = P.support_probabilities()
    np.testing.assert_allclose(np.diag(land), a)
    np.testing.assert_allclose(land[~np.eye(11, dtype=bool)], b)


def test_sampler_follows_the_channel():
    P = q.protocol("hr", 5, 1.2)
    n = 40000
    for x in (0, 4):
        ys = P.sample(np.full(n, x), rng=x)
        observed = np.bincount(ys, minlength=8)
        assert stats.chisquare(observed, n * P.channel().matrix[x]).pvalue > 1e-6


def test_sample_then_estimate_is_unbiased_with_the_variance():
    assert_unbiased_with_variance(
        q.protocol("hr", 6, 1.5), np.array([60, 50, 40, 30, 20, 10]) * 4, seed=11
    )


def test_attack_guesses_a_value_whose_set_holds_the_report():
    P = q.protocol("hr", 7, 2.0)
    ys = P.sample(np.arange(7).repeat(50), rng=0)
    guesses = P.attack(ys, rng=1)
    assert np.all(hr_membership(guesses, ys))


def test_refusals():
    with pytest.raises(UnsupportedKindError, match="no symmetric channel"):
        q.protocol("hr", 4, 1.0).symmetric()
    with pytest.raises(ParameterError, match="outputs in 0..7"):
        q.protocol("hr", 5, 1.0).estimate([0, 8])
    assert q.protocol("Hadamard-Response", 4, 1.0) == HR(4, 1.0)


# ---------------------------------------------------------------- restriction to rows


@pytest.mark.parametrize("k", [2, 3, 5, 8, 9])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
def test_restricted_is_the_channel_rows_with_equal_columns_merged(k, eps):
    assert_restriction_is_the_merged_rows(q.protocol("hr", k, eps))


@pytest.mark.parametrize("k", [10**4, 10**5])
def test_restricted_where_the_channel_is_refused_is_a_smaller_hr_scaled(k):
    P = q.protocol("hr", k, 1.0)
    with pytest.raises(SizeError):
        P.channel()
    R = assert_large_restriction(P)
    # for x + 1 <= 8 the parity of (x + 1) & y depends on y mod 16 alone: the groups are
    # those of hr(15) (K = 16), each K / 16 times larger with 16 / K times the mass per
    # output (powers of two: the same floats)
    small = q.protocol("hr", 15, 1.0).restricted(range(8))
    assert R.outputs == small.outputs
    assert np.array_equal(R.matrix, small.matrix)


def test_restricted_refuses_rows_past_the_entry_limit():
    with pytest.raises(SizeError, match=r"restricted\(\) of 1000 inputs would have 1000 x 131072"):
        q.protocol("hr", 10**5, 1.0).restricted(range(1000))


@pytest.mark.parametrize("k", [2, 3, 5, 6, 7, 12, 16, 33])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_gram_form_is_the_gram_matrix_of_the_enumerated_channel(k, eps):
    # alpha, beta, up, down in closed form (one FWHT of the rows 1..k, never the channel)
    # equal those of the k x K channel from scipy's Sylvester matrix
    assert_gram_form_matches(HR(k, eps).gram_form(), enumerate_hr(k, eps))


def test_gram_form_counts_by_enumeration():
    # K = 16 > k = 12: N(y) = #{x < 12 : H[x + 1, y] = +1}; most = max below 12, least
    # = min at least 1; here from the rows of scipy's matrix, there from one FWHT
    M = enumerate_hr(12, 1.0)
    N = (M == M.max()).sum(axis=0)
    G = HR(12, 1.0).gram_form()
    g = Fraction(HR(12, 1.0).params["p"]) - Fraction(HR(12, 1.0).params["q"])
    assert G.up == g * int(N[N < 12].max()) and G.down == g * (12 - int(N[N >= 1].min()))
