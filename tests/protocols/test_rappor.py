"""RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014).

Expected values: the channels by brute force over the permanent bits
(tests/protocols/_enumeration.py); the paper's eps_inf and eps_1 (Sec. 3.1) against
``ldp_epsilon`` of those channels; Monte Carlo with seeded normal and chi-square bands.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, SizeError, UnsupportedKindError
from qifldp.protocols.rappor import RAPPORRandomHash
from tests.protocols._enumeration import assert_unbiased_with_variance, enumerate_rappor
from tests.protocols._restriction import (
    assert_large_restriction,
    assert_restriction_is_the_merged_rows,
    merged_rows,
)


@pytest.mark.parametrize("rounds", ["longitudinal", "one-time"])
@pytest.mark.parametrize("T", [1, 2])
def test_channel_equals_enumeration(rounds, T):
    P = q.protocol("rappor", 3, m=3, h=2, f=0.4, p=0.3, q=0.8, rounds=rounds, seed=5)
    np.testing.assert_allclose(P.channel(reports=T).matrix, enumerate_rappor(P, T), atol=1e-15)


def _disjoint_seed(k, m, h):
    """A seed whose table gives two values disjoint sets of h distinct bits."""
    for seed in range(200):
        B = q.protocol("rappor", k, m=m, h=h, seed=seed).bloom
        if any(
            B[x].sum() == h and B[y].sum() == h and not np.any(B[x] & B[y])
            for x in range(k)
            for y in range(k)
            if x != y
        ):
            return seed
    raise AssertionError("no such seed")


def test_paper_eps_1_is_reached_with_disjoint_sets_and_bounds_every_table():
    f, p, qq, h = 0.5, 0.5, 0.75, 2
    # q* = f/2 (p + q) + (1 - f) q, p* = f/2 (p + q) + (1 - f) p; eps_1 = h ln(q*(1-p*)/(p*(1-q*)))
    qs, ps = f / 2 * (p + qq) + (1 - f) * qq, f / 2 * (p + qq) + (1 - f) * p
    eps_1 = h * math.log(qs * (1 - ps) / (ps * (1 - qs)))
    seed = _disjoint_seed(3, 6, h)
    P = q.protocol("rappor", 3, m=6, h=h, f=f, p=p, q=qq, seed=seed)
    assert P.closed_form.eps_one() == pytest.approx(eps_1)
    assert q.ldp_epsilon(P.channel()) == pytest.approx(eps_1, abs=1e-10)
    for s in range(6):
        Q = q.protocol("rappor", 3, m=6, h=h, f=f, p=p, q=qq, seed=s)
        eps = q.ldp_epsilon(q.Channel(enumerate_rappor(Q)))
        assert eps == pytest.approx(Q.closed_form.ldp_epsilon(), abs=1e-10)
        assert eps <= eps_1 + 1e-10


def test_eps_inf_bounds_any_number_of_reports_and_is_the_one_time_eps():
    f, h = 0.5, 2
    eps_inf = 2 * h * math.log((1 - f / 2) / (f / 2))
    seed = _disjoint_seed(3, 4, h)
    P = q.protocol("rappor", 3, m=4, h=h, f=f, p=0.5, q=0.75, seed=seed)
    assert P.eps == pytest.approx(eps_inf) == P.closed_form.eps_inf()
    eps = [q.ldp_epsilon(P.channel(reports=T)) for T in (1, 2, 3)]
    assert eps == sorted(eps) and eps[-1] < eps_inf
    one = q.protocol("rappor", 3, m=4, h=h, f=f, rounds="one-time", seed=seed)
    assert q.ldp_epsilon(q.Channel(enumerate_rappor(one))) == pytest.approx(eps_inf, abs=1e-10)


def test_random_hash_is_the_average_over_tables():
    P = q.protocol("rappor", 2, m=2, h=1, f=0.5, p=0.25, q=0.75)
    V = P.random_hash_channel()
    assert V.shape == (2, 4 * 4)
    ml = P.closed_form.bayes_capacity_random_hash()
    assert q.bayes_capacity(V) == pytest.approx(ml, rel=1e-12)
    # the worst table has disjoint sets: the paper's eps_1
    assert q.ldp_epsilon(V) == pytest.approx(P.closed_form.eps_one(), abs=1e-10)


def test_symbolic_and_closed_forms():
    P = q.protocol("rappor", 2, m=2, h=1, f=0.3, p=0.2, q=0.9, seed=1)
    np.testing.assert_allclose(P.symbolic().evaluate().matrix, P.channel().matrix, atol=1e-14)
    Z = P.symbolic(f="f").evaluate(f=0.3)
    np.testing.assert_allclose(Z.matrix, P.channel().matrix, atol=1e-14)
    ml = float(np.max(enumerate_rappor(P), axis=0).sum())
    assert P.closed_form.bayes_capacity() == pytest.approx(ml)
    assert float(P.closed_form.symbolic_bayes_capacity()) == pytest.approx(ml)


def test_sample_then_estimate_is_unbiased_with_the_variance():
    P = q.protocol("rappor", 4, m=12, h=2, f=0.3, p=0.25, q=0.75, seed=2)
    assert_unbiased_with_variance(P, np.array([40, 30, 20, 10]) * 8, seed=4)


def test_one_time_sample_then_estimate_is_unbiased_with_the_variance():
    # one-time RAPPOR reports the permanent bits: each user's estimate term is linear in
    # one report, so its mean and variance given x are sums over the enumerated row of x
    P = q.protocol("rappor", 4, m=6, h=2, f=0.3, rounds="one-time", seed=2)
    M = enumerate_rappor(P)
    C = P.channel()
    terms = np.array([P.estimate(np.array([y])) for y in C.outputs])  # (2^m, k)
    mean, second = M @ terms, M @ terms**2
    np.testing.assert_allclose(mean, np.eye(4), atol=1e-12)  # unbiased for every value
    counts = np.array([40, 30, 20, 10]) * 8
    f = counts / counts.sum()
    exact = f @ (second - mean**2) / counts.sum()  # fixed users: Σ_x n_x Var(term | x) / n²
    np.testing.assert_allclose(P.variance(counts.sum(), f), exact, rtol=1e-10)
    assert_unbiased_with_variance(P, counts, seed=6)


def test_memoised_reports_follow_the_two_report_channel():
    P = q.protocol("rappor", 2, m=1, h=1, f=0.2, p=0.1, q=0.9, seed=0)
    n = 20000
    R = P.sample(np.zeros(n, dtype=int), rng=3, reports=2).astype(int)[:, :, 0]
    observed = np.bincount(R[0] * 2 + R[1], minlength=4)
    C = P.channel(reports=2)
    cells = [((a,), (b,)) for a in (0, 1) for b in (0, 1)]
    expected = n * np.array([C.matrix[0, C.outputs.index(c)] for c in cells])
    assert stats.chisquare(observed, expected).pvalue > 1e-6


def test_attack_and_refusals():
    P = q.protocol("rappor", 5, m=16, h=2, f=0.0, p=0.0, q=1.0, seed=0)
    B = P.bloom
    xs = np.arange(5)
    guesses = P.attack(P.sample(xs, rng=0), rng=0)
    assert all(np.array_equal(B[g], B[x]) for g, x in zip(guesses, xs, strict=True))
    with pytest.raises(UnsupportedKindError, match="no symmetric channel"):
        P.symmetric()
    clash = q.protocol("rappor", 4, m=2, h=1)
    with pytest.raises(ParameterError, match="not identifiable"):
        clash.estimate(clash.sample([0, 1], rng=0))
    with pytest.raises(ParameterError, match="h must be <= m = 2") as err:
        q.protocol("rappor", 3, m=2, h=3)
    # the reason (the random-hash laws' h^3 route takes h <= 64, the largest m) and the
    # alternative are stated
    assert "MAX_OVERLAP_DRAWS = 64" in str(err.value) and "Use h <= 2" in str(err.value)
    assert q.protocol("rappor", 3, m=64, h=64).params["h"] == 64  # the largest h allowed


def test_random_hash_leakage_needs_a_rappor_protocol():
    with pytest.raises(InputTypeError, match="protocol must be a RAPPOR protocol object") as e:
        RAPPORRandomHash(q.protocol("grr", 3, 1.0))
    assert isinstance(e.value, TypeError) and "got GRR" in str(e.value)


@pytest.mark.parametrize("T", [1, 2])
def test_capacity_with_two_hashes_at_large_m_enumerates_the_used_bits(T):
    # m = 64 bits, of which at most k h = 6 are set by some filter: the others have the
    # same law under every value and drop out of Σ_s max_x C[x, s]; enumerated here by
    # hand over the used bits, each bit's T reports summarised by their count of 1s
    f, p, qq = 0.5, 0.3, 0.8
    P = q.protocol("rappor", 3, m=64, h=2, f=f, p=p, q=qq, seed=0)
    B = np.asarray(P.bloom, dtype=bool)
    used = [i for i in range(64) if B[:, i].any()]
    assert 2 <= len(used) <= 6

    def law(bit, c):  # Pr[c ones in T reports | Bloom bit]
        keep = 1 - f / 2
        pr_one = keep if bit else 1 - keep  # permanent bit 1
        return pr_one * stats.binom.pmf(c, T, qq) + (1 - pr_one) * stats.binom.pmf(c, T, p)

    table = {(bit, c): law(bit, c) for bit in (False, True) for c in range(T + 1)}
    ml = 0.0
    for s in itertools.product(range(T + 1), repeat=len(used)):
        pairs = list(zip(used, s, strict=True))
        ml += max(math.prod(table[B[x, i], c] for i, c in pairs) for x in range(3))
    assert P.closed_form.bayes_capacity_reports(T) == pytest.approx(ml, rel=1e-12)
    if T == 1:
        assert P.closed_form.bayes_capacity() == pytest.approx(ml, rel=1e-12)
    with pytest.raises(q.errors.SizeError, match="on the 32 bits its filters use") as err:
        q.protocol("rappor", 100, m=32, h=2, f=f, seed=0).closed_form.bayes_capacity()
    # the rule it applies: distinct filters x patterns products against the work limit
    rows = len(np.unique(q.protocol("rappor", 100, m=32, h=2, seed=0).bloom, axis=0))
    assert f"{rows} distinct filters x 2^32 count patterns = {rows * 2**32} products" in str(
        err.value
    )
    assert "work limit MAX_ENTRIES = 100000000" in str(err.value)
    assert "GiB" not in str(err.value)


# ---------------------------------------------------------------- restriction to rows


@pytest.mark.parametrize(
    ("k", "params", "T"),
    [
        (2, {"m": 3, "h": 1}, 1),
        (5, {"m": 6, "h": 2}, 1),
        (9, {"m": 5, "h": 2, "f": 0.3, "p": 0.2, "q": 0.9}, 1),
        (4, {"m": 3, "h": 2, "f": 0.4, "p": 0.3, "q": 0.8, "seed": 5}, 2),
        (6, {"m": 4, "h": 1, "rounds": "one-time"}, 1),
        (6, {"m": 4, "h": 2, "rounds": "one-time"}, 3),  # one-time: T = 1 whatever reports
        (7, {"m": 4, "h": 2, "f": 0.0}, 2),  # f = 0: zero entries, dropped columns
        (3, {"m": 3, "h": 2, "f": 1.0}, 1),
    ],
)
def test_restricted_is_the_channel_rows_with_equal_columns_merged(k, params, T):
    assert_restriction_is_the_merged_rows(q.protocol("rappor", k, **params), reports=T)


@pytest.mark.parametrize("k", [10**4, 10**5])
@pytest.mark.parametrize(("params", "T"), [({}, 1), ({"rounds": "one-time"}, 1), ({"m": 8}, 2)])
def test_restricted_at_a_large_k_is_that_of_its_first_values(k, params, T):
    # the table's first rows are the generator's first draws whatever k: the rows at
    # 0..7 are those of rappor on 8 values, whose explicit channel is built here
    P = q.protocol("rappor", k, **params)
    with pytest.raises(SizeError):
        P.channel(reports=T)
    R = assert_large_restriction(P, reports=T)
    matrix, labels = merged_rows(
        q.protocol("rappor", 8, **params).channel(reports=T), list(range(8))
    )
    assert list(R.outputs) == labels
    assert np.array_equal(R.matrix, matrix)


def test_restricted_refuses_rows_past_the_entry_limit_and_bad_reports():
    P = q.protocol("rappor", 10**4)  # m = 16: 2^32 outputs of two reports
    with pytest.raises(SizeError, match=r"restricted\(\) of 8 inputs, 2 reports would have 8 x"):
        P.restricted(range(8), reports=2)
    with pytest.raises(ParameterError, match="reports"):
        P.restricted(range(8), reports=0)
