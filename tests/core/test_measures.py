"""Leakage measures on canonical channels with exact known values."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.arrays import BLOCK_ENTRIES
from tests.canonical import (
    BSC_QUARTER,
    HAND,
    HAND_ML,
    HAND_PRIOR,
    HAND_V1_PRIOR,
    IDENTITY3,
    NO_INTERFERENCE3,
    exact_bayes_capacity,
)


def test_identity_and_no_interference():
    assert q.bayes_capacity(IDENTITY3) == 3.0
    assert q.asr(IDENTITY3) == 1.0
    assert q.ldp_epsilon(IDENTITY3) == math.inf
    assert q.max_case_capacity(IDENTITY3) == math.inf
    assert q.bayes_capacity(NO_INTERFERENCE3) == 1.0
    assert q.ldp_epsilon(NO_INTERFERENCE3) == 0.0
    assert q.max_case_capacity(NO_INTERFERENCE3) == 1.0
    assert q.min_entropy_leakage(NO_INTERFERENCE3) == 0.0
    assert q.min_entropy_leakage(IDENTITY3) == pytest.approx(math.log2(3))


def test_binary_symmetric_channel():
    # BSC(1/4): ML = 3/2, eps = ln 3, V1 under prior (p, 1-p) = max-sum by hand
    assert q.bayes_capacity(BSC_QUARTER) == 1.5
    assert q.ldp_epsilon(BSC_QUARTER) == pytest.approx(math.log(3))
    assert q.max_case_capacity(BSC_QUARTER) == pytest.approx(3.0)
    # prior (0.9, 0.1): y0: max(.675, .025) y1: max(.225, .075) -> .9 (no leakage)
    assert q.bayes_vulnerability(BSC_QUARTER, [0.9, 0.1]) == pytest.approx(0.9)
    assert q.min_entropy_leakage(BSC_QUARTER, [0.9, 0.1]) == pytest.approx(0.0, abs=1e-15)


def test_hand_example_exact():
    rows = [[Fraction(v).limit_denominator(8) for v in r] for r in HAND.matrix]
    assert exact_bayes_capacity(rows) == HAND_ML
    assert q.bayes_capacity(HAND) == float(HAND_ML)
    assert q.bayes_vulnerability(HAND) == pytest.approx(float(HAND_ML) / 3)
    assert q.bayes_vulnerability(HAND, HAND_PRIOR) == float(HAND_V1_PRIOR)
    assert q.multiplicative_leakage(HAND, prior=HAND_PRIOR) == pytest.approx(11 / 16 / 0.5)
    assert q.additive_leakage(HAND, prior=HAND_PRIOR) == pytest.approx(11 / 16 - 0.5)
    assert q.ldp_epsilon(HAND) == math.inf


@pytest.mark.parametrize("shape", [(100, 2000), (200, 700), (20, 8192)])
def test_g_vulnerability_over_many_row_blocks(shape):
    # more rows than one cache block (qifldp.arrays.BLOCK_ENTRIES): the block-by-block sums
    # (or one product, for M too wide for blocks of MIN_BLOCK_ROWS rows) against
    # Σ_y max_w Σ_x g[w, x] π_x C[x, y] with every sum over x correctly rounded
    # (math.fsum), the array and the Channel alike
    n, m = shape
    assert n > BLOCK_ENTRIES // m
    rng = np.random.default_rng(n)
    C = rng.dirichlet(np.ones(m), size=n)
    pi = rng.dirichlet(np.ones(n))
    G = rng.normal(size=(4, n))
    per_output = [max(math.fsum(G[w] * pi * C[:, y]) for w in range(G.shape[0])) for y in range(m)]
    expected = math.fsum(per_output)
    scale = math.fsum(np.abs(G).max(axis=0) * pi)
    for channel in (C, q.Channel(C)):
        assert abs(q.g_vulnerability(channel, G, pi) - expected) <= 1e-13 * scale


def test_g_vulnerability_identity_gain_is_bayes():
    G = q.identity_gain(3)
    assert q.g_vulnerability(HAND, G, HAND_PRIOR) == pytest.approx(float(HAND_V1_PRIOR))
    assert q.g_vulnerability(HAND, lambda w, x: float(w == x)) == pytest.approx(7 / 12)


def test_two_tries_gain_by_hand():
    # 2-tries on HAND, uniform prior: per column sum of two largest of C[:, y]/3:
    # y0: .5+.5, y1: .5+.5, y2: .5+.25, y3: .25+0 -> (1+1+.75+.25)/3 = 1
    G = q.k_tries_gain(3, 2)
    assert q.g_vulnerability(HAND, G) == pytest.approx(1.0)
    assert q.prior_g_vulnerability(G, [1 / 3] * 3) == pytest.approx(2 / 3)


def test_metric_gain_vulnerability():
    # BSC with distance gain |w - x| scaled to [0,1] = identity gain on 2 secrets
    G = q.metric_gain(lambda i, j: abs(i - j), n=2)
    np.testing.assert_array_equal(G, np.eye(2))


def test_ldp_epsilon_neighbors():
    C = q.Channel([[0.5, 0.5], [0.25, 0.75], [0.125, 0.875]])
    # all pairs: column 0 ratio 4 -> ln 4; pair (0, 1) only: ratio 2 -> ln 2
    assert q.ldp_epsilon(C) == pytest.approx(math.log(4))
    assert q.ldp_epsilon(C, neighbors=[(0, 1)]) == pytest.approx(math.log(2))
    assert q.ldp_epsilon(C, neighbors=[(1, 0), (1, 2)]) == pytest.approx(math.log(2))
    assert q.ldp_epsilon(C, neighbors=[]) == 0.0
    Z = q.Channel([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert q.ldp_epsilon(Z, neighbors=[(0, 1)]) == math.inf


def test_ldp_epsilon_ignores_all_zero_columns():
    C = q.Channel([[0.75, 0.25, 0.0], [0.25, 0.75, 0.0]])
    assert q.ldp_epsilon(C) == pytest.approx(math.log(3))


def test_ldp_epsilon_tiny_entries_no_overflow():
    # entries e^-700 and 1 - e^-700: ratio e^700 overflows no float; eps = 700 exactly-ish
    a = math.exp(-700)
    C = q.Channel([[1 - a, a], [a, 1 - a]])
    assert q.ldp_epsilon(C) == pytest.approx(700.0, rel=1e-12)
    assert q.max_case_capacity(q.Channel([[1 - a * a, a * a], [a * a, 1 - a * a]])) == math.inf


def test_hyper_distribution_by_hand():
    H = q.hyper(HAND, HAND_PRIOR)
    # p(y) = (1/4, 3/8, 5/16, 1/16); posteriors computed by hand
    np.testing.assert_allclose(H.outer, [0.25, 0.375, 0.3125, 0.0625])
    np.testing.assert_allclose(H.posteriors[0], [0.5, 0.0, 0.5])
    np.testing.assert_allclose(H.posteriors[1], [1 / 3, 2 / 3, 0.0])
    np.testing.assert_allclose(H.posteriors[2], [0.0, 0.8, 0.2])
    np.testing.assert_allclose(H.posteriors[3], [0.0, 0.0, 1.0])
    # V1 from the hyper equals the direct computation
    assert H.outer @ H.posteriors.max(axis=1) == pytest.approx(11 / 16)


def test_hyper_merges_equal_posteriors_and_drops_zero_outputs():
    C = q.Channel([[0.2, 0.4, 0.4, 0.0], [0.1, 0.2, 0.7, 0.0]])
    H = q.hyper(C)
    assert len(H.outer) == 2
    assert H.outputs[0] == (0, 1)
    np.testing.assert_allclose(H.outer, [0.45, 0.55])


@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (lambda: q.bayes_vulnerability(HAND, [0.5, 0.5]), q.PriorError, "one entry per input"),
        (lambda: q.bayes_vulnerability(HAND, [0.5, 0.6, -0.1]), q.PriorError, "non-negative"),
        (lambda: q.bayes_vulnerability(HAND, [0.5, 0.6, 0.1]), q.PriorError, "sum to 1"),
        (lambda: q.bayes_vulnerability(HAND, [np.nan, 0.5, 0.5]), q.PriorError, "finite"),
        (lambda: q.bayes_vulnerability(HAND, [[1.0]]), q.PriorError, "1-D"),
        (lambda: q.g_vulnerability(HAND, np.eye(2)), q.GainError, r"shape \(n_actions >= 1, 3\)"),
        (lambda: q.g_vulnerability(HAND, [1, 0, 0]), q.GainError, "2-D"),
        (lambda: q.g_vulnerability(HAND, [[np.inf, 0, 0]]), q.GainError, "finite"),
        (lambda: q.multiplicative_leakage(HAND, -np.eye(3)), q.GainError, "non-negative"),
        (lambda: q.ldp_epsilon(HAND, neighbors=[(0, 5)]), q.ParameterError, "out of range"),
        (lambda: q.ldp_epsilon(HAND, neighbors=[(0, 1, 2)]), TypeError, "pairs"),
        (lambda: q.ldp_epsilon(HAND, neighbors=[(0.5, 1)]), TypeError, "integer"),
        (lambda: q.bayes_capacity("abc"), TypeError, "Channel or a 2-D array"),
        (lambda: q.bayes_capacity([[0.5, 0.6]]), q.ChannelError, "sums to"),
        (lambda: q.k_tries_gain(3, 4), q.ParameterError, r"guesses\) must be <= n = 3"),
        (lambda: q.k_tries_gain(60, 30), q.SizeError, "entries"),
        (lambda: q.metric_gain(np.ones((2, 3))), q.GainError, "square"),
        (lambda: q.metric_gain(lambda i, j: 1.0), TypeError, "n must be given"),
        (lambda: q.metric_gain(-np.ones((2, 2))), q.GainError, "non-negative"),
        (lambda: q.point_prior(3, 3), q.ParameterError, "i must be <= 2"),
        (lambda: q.uniform_prior(0), q.ParameterError, "n must be >= 1"),
        (lambda: q.prior_g_vulnerability(np.eye(2), None), TypeError, "prior must be given"),
    ],
)
def test_bad_input_rejected(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_measures_accept_arrays():
    assert q.bayes_capacity([[0.75, 0.25], [0.25, 0.75]]) == 1.5
    assert q.asr(np.eye(4)) == 1.0


def test_ldp_epsilon_neighbours_in_blocks_equals_one_pass(monkeypatch):
    # the neighbour pairs are compared in blocks (memory bounded by the block); the answer
    # is the maximum over all pairs, computed here directly from the rows
    import qifldp.measures as measures

    rng = np.random.default_rng(7)
    M = rng.random((9, 5)) + 0.05
    M /= M.sum(axis=1, keepdims=True)
    C = q.Channel(M)
    pairs = [(i, j) for i in range(9) for j in range(9) if i < j and (i + j) % 3]
    expected = max(float(np.max(np.abs(np.log(M[i]) - np.log(M[j])))) for i, j in pairs)
    monkeypatch.setattr(measures, "_PAIR_BLOCK_ENTRIES", 7)  # one pair per block
    assert q.ldp_epsilon(C, neighbors=pairs) == pytest.approx(expected, rel=1e-15)
    Z = M.copy()
    Z[8] = [0.5, 0.5, 0, 0, 0]  # a zero against a positive entry in the last block only
    assert q.ldp_epsilon(q.Channel(Z), neighbors=pairs) == math.inf


# -- plain arrays are validated in place (checked_matrix), with the Channel's errors ------
def test_plain_array_measures_refuse_what_channel_refuses():
    from qifldp.channel import checked_matrix
    from qifldp.errors import ChannelError

    good = np.array([[0.5, 0.5], [0.25, 0.75]])
    assert checked_matrix(good) is good  # no copy
    bad = {
        "non-negative": np.array([[1.5, -0.5], [0.25, 0.75]]),  # rows sum to 1
        "finite": np.array([[np.nan, 0.5], [0.25, 0.75]]),
        "finite ": np.array([[np.inf, -np.inf], [0.25, 0.75]]),
        "sum to 1": np.array([[0.5, 0.6], [0.25, 0.75]]),
    }
    for rule, M in bad.items():
        for f in (q.bayes_capacity, q.ldp_epsilon, q.bayes_vulnerability):
            # the error names the rule, and no numpy RuntimeWarning (inf - inf) comes first
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                with pytest.raises(ChannelError, match=rule.strip()):
                    f(M)
    # the values equal the labelled Channel's (hand computed: 0.5 + 0.75; ln(0.5 / 0.25))
    assert q.bayes_capacity(good) == q.bayes_capacity(q.Channel(good)) == 1.25
    assert q.ldp_epsilon(good) == q.ldp_epsilon(q.Channel(good)) == pytest.approx(np.log(2))
    # other dtypes and layouts take the Channel route and give the same answers
    assert q.bayes_capacity(np.asfortranarray(good)) == 1.25
    assert q.bayes_capacity(np.array([[1, 0], [0, 1]])) == 2.0
    assert good.flags.writeable  # the caller's array is left as it was
