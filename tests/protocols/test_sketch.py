"""Apple's Count Mean Sketch and Hadamard Count Mean Sketch (Apple, 2017), and Hadamard
encoding (pure-ldp's Hadamard mechanism with one coefficient).

Expected values: the channels by brute-force enumeration (tests/protocols/_enumeration.py,
scipy's Sylvester-Hadamard matrix, the table re-drawn from numpy's seeded generator);
Bayes capacities and eps of those enumerations; the random-hash average by enumerating
every table of tiny sizes; the variances by enumerating the per-user estimator terms
over each report (exact); Monte Carlo with seeded normal and chi-square bands.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import ParameterError, SizeError, UnsupportedKindError
from qifldp.protocols.sketch import image_size_distribution
from tests.protocols._enumeration import (
    assert_unbiased_with_variance,
    enumerate_cms,
    enumerate_hcms,
    enumerate_he,
)
from tests.protocols._restriction import (
    assert_large_restriction,
    assert_restriction_is_the_merged_rows,
    merged_rows,
)

ENUMERATE = {"cms": enumerate_cms, "hcms": enumerate_hcms}
SMALL = [("cms", {"m": 4, "hashes": 2}), ("hcms", {"m": 4, "hashes": 2}), ("he", {})]


@pytest.mark.parametrize(
    ("name", "k", "eps", "m", "hashes", "seed"),
    [
        ("cms", 2, 1.0, 2, 1, 0),
        ("cms", 4, 0.5, 3, 2, 5),
        ("cms", 5, 2.0, 4, 3, 1),
        ("hcms", 2, 1.0, 2, 1, 0),
        ("hcms", 5, 0.7, 4, 3, 2),
        ("hcms", 6, 3.0, 8, 2, 4),
    ],
)
def test_sketch_channel_equals_the_enumeration(name, k, eps, m, hashes, seed):
    P = q.protocol(name, k, eps, m=m, hashes=hashes, seed=seed)
    table = np.random.default_rng(seed).integers(0, m, size=(k, hashes)).T
    assert np.array_equal(P.table, table)
    C, M = P.channel(), ENUMERATE[name](P)
    np.testing.assert_allclose(C.matrix, M, atol=1e-15)
    ml = float(M.max(axis=0).sum())
    assert P.closed_form.bayes_capacity() == pytest.approx(ml, rel=1e-12)
    ratio = max(float(np.max(M[a] / M[b])) for a, b in itertools.permutations(range(k), 2))
    assert P.closed_form.ldp_epsilon() == pytest.approx(math.log(ratio), abs=1e-12)
    assert q.ldp_epsilon(C) == pytest.approx(math.log(ratio), abs=1e-12)
    np.testing.assert_allclose(P.symbolic().evaluate().matrix, M, atol=1e-14)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 8])
@pytest.mark.parametrize("eps", [0.0, 1.3])
def test_he_channel_equals_the_enumeration(k, eps):
    P = q.protocol("he", k, eps)
    M = enumerate_he(k, eps)
    np.testing.assert_allclose(P.channel().matrix, M, atol=1e-15)
    assert P.closed_form.bayes_capacity() == pytest.approx(float(M.max(axis=0).sum()), rel=1e-12)
    assert q.ldp_epsilon(P.channel()) == pytest.approx(eps, abs=1e-12)
    np.testing.assert_allclose(P.symbolic().evaluate().matrix, M, atol=1e-14)
    sym = float(P.closed_form.symbolic_bayes_capacity())
    assert sym == pytest.approx(P.closed_form.bayes_capacity(), rel=1e-12)


@pytest.mark.parametrize("name", ["cms", "hcms"])
def test_random_hash_capacity_is_the_mean_over_every_table(name):
    # k = 3 values, m = 4 buckets, one hash: all 4^3 tables, each equally likely
    k, m, eps = 3, 4, 1.1
    P = q.protocol(name, k, eps, m=m, hashes=1)
    mls = []
    for table in itertools.product(range(m), repeat=k):
        T = np.array(table)
        # a channel of this table from its enumeration: swap in the table by seed search
        # is not possible, so enumerate with a stand-in object carrying the table
        stand_in = _WithTable(P, T[None, :])
        mls.append(float(ENUMERATE[name](stand_in).max(axis=0).sum()))
    assert P.closed_form.bayes_capacity_random_hash() == pytest.approx(np.mean(mls), rel=1e-12)


class _WithTable:
    """The protocol's parameters with another table (for the enumeration only)."""

    def __init__(self, P, table):
        self.k, self.eps, self.params, self.table = P.k, P.eps, P.params, table


def test_image_size_distribution_is_the_occupancy_law():
    # C(m, r) r! S(k, r) / m^k with Stirling numbers of the second kind
    def stirling(n, r):
        return sum(
            (-1) ** i * math.comb(r, i) * (r - i) ** n for i in range(r + 1)
        ) // math.factorial(r)

    for k, m in ((5, 3), (4, 6), (7, 7)):
        expected = [
            math.comb(m, r) * math.factorial(r) * stirling(k, r) / m**k
            for r in range(min(k, m) + 1)
        ]
        np.testing.assert_allclose(image_size_distribution(k, m), expected, atol=1e-15)


def _exact_moments(P, method):
    """Mean and variance of one user's estimator term, per true value, by enumerating the
    channel's outputs (the estimate of one report is linear: estimate of a single row)."""
    C = P.channel()
    reports = [_as_report(P, y) for y in C.outputs]
    terms = np.array([P.estimate(r[None, :], method=method) for r in reports])  # (n_out, k)
    mean = C.matrix @ terms
    second = C.matrix @ terms**2
    return mean, second - mean**2


def _as_report(P, y):
    if P.name == "cms":
        j, bits = y
        return np.array([j, *bits])
    return np.array(y)


@pytest.mark.parametrize("name", ["cms", "hcms"])
@pytest.mark.parametrize("method", ["table", "sketch"])
def test_estimators_and_variance_by_enumeration(name, method):
    P = q.protocol(name, 4, 1.5, m=4, hashes=3, seed=2)
    mean, var = _exact_moments(P, method)
    f = np.array([0.4, 0.3, 0.2, 0.1])
    n = 50
    # the population variance: users are fixed, so Var = Σ_x n_x Var(term | x) / n²
    expected = (f @ var) / n
    np.testing.assert_allclose(P.variance(n, f, method=method), expected, rtol=1e-10)
    if method == "table":
        np.testing.assert_allclose(mean, np.eye(4), atol=1e-12)  # unbiased for the table
    else:
        # the sketch estimator's mean is m/(m-1) (G - 1/m), G the table's collision rates
        G = np.mean([row[:, None] == row[None, :] for row in P.table], axis=0)
        np.testing.assert_allclose(mean, (4 / 3) * (G - 1 / 4).T, atol=1e-12)


@pytest.mark.parametrize("name", ["cms", "hcms"])
def test_sketch_sample_then_estimate_is_unbiased_with_the_variance(name):
    P = q.protocol(name, 5, 2.0, m=8, hashes=4, seed=3)
    assert_unbiased_with_variance(P, np.array([50, 40, 30, 20, 10]) * 4, reps=300, seed=5)


def test_he_sample_then_estimate_is_unbiased_with_the_variance():
    assert_unbiased_with_variance(q.protocol("he", 6, 1.5), [240, 200, 160, 120, 80, 40], seed=2)


@pytest.mark.parametrize(("name", "params"), SMALL)
def test_sampler_follows_the_channel(name, params):
    P = q.protocol(name, 3, 1.2, **params)
    C = P.channel()
    index = {_key(name, y): i for i, y in enumerate(C.outputs)}
    n = 20000
    for x in (0, 2):
        reports = P.sample(np.full(n, x), rng=x)
        cols = [index[_key(name, r)] for r in reports.tolist()]
        observed = np.bincount(cols, minlength=C.shape[1])
        assert stats.chisquare(observed, n * C.matrix[x]).pvalue > 1e-6


def _key(name, y):
    if name == "cms":
        if isinstance(y[1], tuple):
            return (y[0], *y[1])
        return tuple(y)
    return tuple(y)


@pytest.mark.parametrize(("name", "params"), SMALL)
def test_attack_picks_a_most_likely_value(name, params):
    P = q.protocol(name, 4, 1.0, **params)
    C = P.channel()
    reports = P.sample(np.arange(4).repeat(30), rng=0)
    guesses = P.attack(reports, rng=1)
    index = {_key(name, y): i for i, y in enumerate(C.outputs)}
    for r, g in zip(reports.tolist(), guesses, strict=True):
        col = C.matrix[:, index[_key(name, r)]]
        assert col[g] == pytest.approx(col.max())


def test_refusals():
    with pytest.raises(UnsupportedKindError, match="no symmetric channel"):
        q.protocol("cms", 4, 1.0, m=4, hashes=2).symmetric()
    with pytest.raises(UnsupportedKindError, match="hcms has no symmetric channel: its hash"):
        q.protocol("hcms", 4, 1.0, m=4, hashes=2).symmetric()
    with pytest.raises(UnsupportedKindError, match="no symmetric channel"):
        q.protocol("he", 4, 1.0).symmetric()
    with pytest.raises(ParameterError, match="power of two"):
        q.protocol("hcms", 4, 1.0, m=6, hashes=2)
    with pytest.raises(ParameterError, match="not identifiable"):
        q.protocol("cms", 4, 1.0, m=2, hashes=1).estimate(np.zeros((3, 3), dtype=int))
    with pytest.raises(ParameterError, match=r"column 0 in 0..1"):
        q.protocol("hcms", 4, 1.0, m=4, hashes=2).estimate([[2, 0, 1]])
    with pytest.raises(ParameterError, match=r"\(n, 2\)"):
        q.protocol("he", 4, 1.0).estimate([0, 1])
    assert q.protocol("Hadamard-Encoding", 4, 1.0) == q.protocol("he", 4, 1.0)
    # the sketch estimator works beyond the table's size limit
    P = q.protocol("hcms", 5000, 2.0, m=64, hashes=2)
    assert P.estimate(P.sample(np.arange(100), rng=0), method="sketch").shape == (5000,)
    with pytest.raises(ParameterError, match="method='sketch'"):
        P.variance(10)


# ---------------------------------------------------------------- restriction to rows


@pytest.mark.parametrize(
    ("name", "k", "eps", "params"),
    [
        ("cms", 2, 1.0, {"m": 2, "hashes": 1}),
        ("cms", 5, 0.5, {"m": 4, "hashes": 2, "seed": 3}),
        ("cms", 9, 2.0, {"m": 3, "hashes": 3}),
        ("hcms", 2, 1.0, {"m": 2, "hashes": 1}),
        ("hcms", 6, 0.7, {"m": 4, "hashes": 3, "seed": 2}),
        ("hcms", 9, 3.0, {"m": 8, "hashes": 2}),
        ("he", 2, 0.0, {}),
        ("he", 5, 1.0, {}),
        ("he", 8, 2.0, {}),
        ("he", 9, 0.5, {}),
    ],
)
def test_restricted_is_the_channel_rows_with_equal_columns_merged(name, k, eps, params):
    assert_restriction_is_the_merged_rows(q.protocol(name, k, eps, **params))


@pytest.mark.parametrize("k", [10**4, 10**5])
@pytest.mark.parametrize(
    ("name", "params"), [("cms", {"m": 8, "hashes": 16}), ("hcms", {"m": 1024, "hashes": 64})]
)
def test_sketch_restricted_at_a_large_k_is_that_of_its_first_values(k, name, params):
    # the table's first rows are the generator's first draws whatever k: the rows at
    # 0..7 are those of the protocol on 8 values (checked against its channel above)
    R = assert_large_restriction(q.protocol(name, k, 1.0, **params))
    matrix, labels = merged_rows(q.protocol(name, 8, 1.0, **params).channel(), list(range(8)))
    assert list(R.outputs) == labels
    assert np.array_equal(R.matrix, matrix)


@pytest.mark.parametrize("k", [10**4, 10**5])
def test_he_restricted_where_the_channel_is_refused_is_he_8_scaled(k):
    P = q.protocol("he", k, 1.0)
    with pytest.raises(SizeError):
        P.channel()
    R = assert_large_restriction(P)
    # phi_j(x) for x < 8 depends on j mod 8: the groups of he(8) (K = 8), K / 8 times
    # larger with 8 / K times the mass per output (powers of two: the same floats)
    small = q.protocol("he", 8, 1.0).restricted(range(8))
    assert R.outputs == small.outputs
    assert np.array_equal(R.matrix, small.matrix)


def test_sketch_restricted_refuses_rows_past_the_entry_limit():
    P = q.protocol("cms", 10, 1.0, m=20, hashes=100)  # 100 x 2^20 outputs
    with pytest.raises(SizeError, match=r"cms\(10, 1.0, m=20, hashes=100\).restricted\(\) of 1"):
        P.restricted([3])
