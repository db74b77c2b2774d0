"""RAPPOR's T reports lumped by the composition of the bits' counts (protocols/bloom_reports).

Expected values: brute force over every hash table (each value's h positions) of the
explicit product channels over all count patterns, with the count channel taken from
scipy's binomial pmf (an independent enumeration); the enumeration of
rappor.RAPPORClosedForm over the used bits' count patterns; and, for the random hash's
one report, q.bayes_capacity / q.privacy_profile of RAPPOR.random_hash_channel.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.protocols.bloom_reports import (
    MAX_INDEPENDENT_SETS,
    _compositions,
    bayes_capacity_pair_filters,
    bayes_capacity_random_hash_bits,
    bayes_capacity_symmetric_filters,
    composition_count,
    filter_overlap_law,
)
from qifldp.protocols.rappor import _bit_reports, _capacity_by_enumeration, _permanent_bits

F, P_, Q_ = 0.4, 0.3, 0.8
EPSS = [0.0, 0.5, 1.5]


def _count_law(T):
    """(2, T + 1): Pr[c ones in T reports | Bloom bit], by scipy's binomial pmf."""
    keep = 1 - F / 2  # Pr[permanent bit 1 | Bloom bit 1]
    c = np.arange(T + 1)
    on, off = stats.binom.pmf(c, T, Q_), stats.binom.pmf(c, T, P_)
    return np.array([(1 - keep) * on + keep * off, keep * on + (1 - keep) * off])


def _table_rows(table, m, T):
    """The explicit rows (k, (T + 1)^m) of a fixed table: filters from the positions."""
    R = _count_law(T)
    ys = np.array(list(itertools.product(range(T + 1), repeat=m)))
    rows = []
    for positions in table:
        B = np.zeros(m, dtype=bool)
        B[list(positions)] = True
        rows.append(np.prod(np.where(B[None, :], R[1][ys], R[0][ys]), axis=1))
    return np.array(rows)


def _all_tables(k, m, h):
    return itertools.product(itertools.product(range(m), repeat=h), repeat=k)


@pytest.mark.parametrize(
    ("k", "m", "h", "T"), [(2, 3, 2, 1), (2, 3, 2, 2), (3, 3, 2, 2), (2, 3, 3, 2)]
)
def test_random_hash_equals_the_mean_over_every_table(k, m, h, T):
    tables = list(_all_tables(k, m, h))
    rows = [_table_rows(t, m, T) for t in tables]
    ml = np.mean([C.max(axis=0).sum() for C in rows])
    rh = q.protocol("rappor", k, m=m, h=h, f=F, p=P_, q=Q_).closed_form.random_hash
    assert rh.bayes_capacity_reports(T) == pytest.approx(ml, rel=1e-12)
    assert rh.asr_reports(T) == pytest.approx(ml / k, rel=1e-12)
    # the visible choice's hockey-stick divergence: the mean of the tables' (one pair)
    hs = [[np.maximum(C[0] - math.exp(e) * C[1], 0).sum() for e in EPSS] for C in rows]
    np.testing.assert_allclose(rh.privacy_profile_reports(T, EPSS), np.mean(hs, axis=0), atol=1e-13)


def test_random_hash_one_report_equals_the_visible_choice_channel():
    P = q.protocol("rappor", 2, m=3, h=2, f=F, p=P_, q=Q_)
    C = P.random_hash_channel()
    rh = P.closed_form.random_hash
    assert rh.bayes_capacity_reports(1) == pytest.approx(q.bayes_capacity(C), rel=1e-12)
    assert P.closed_form.bayes_capacity_random_hash() == pytest.approx(
        q.bayes_capacity(C), rel=1e-12
    )
    np.testing.assert_allclose(
        rh.privacy_profile_reports(1, EPSS), q.privacy_profile(C, EPSS), atol=1e-13
    )


def _all_pairs_seed(k, m):
    """A table of k values over m bits, h = 2, where every pair and singleton is a filter."""
    for seed in range(50):
        B = np.unique(q.protocol("rappor", k, m=m, h=2, seed=seed).bloom, axis=0)
        if len(B) == m + math.comb(m, 2):
            return seed
    raise AssertionError("no such seed")


@pytest.mark.parametrize(("m", "Ts"), [(6, (1, 2, 3, 4)), (8, (1, 2, 3))])
def test_fixed_table_by_compositions_equals_the_enumerations(m, Ts):
    seed = _all_pairs_seed(300, m)
    P = q.protocol("rappor", 300, m=m, h=2, f=F, p=P_, q=Q_, seed=seed)
    sub = np.unique(P.bloom, axis=0)
    for T in Ts:
        ml = P.closed_form.bayes_capacity_reports(T)  # the composition route
        L = _bit_reports(P, T)
        assert ml == pytest.approx(_capacity_by_enumeration(sub, L), rel=1e-12)
        # brute force, independent of both: every count pattern, every distinct filter
        R = _count_law(T)
        ys = np.array(list(itertools.product(range(T + 1), repeat=m)))
        probs = [np.prod(np.where(b[None, :], R[1][ys], R[0][ys]), axis=1) for b in sub]
        assert ml == pytest.approx(np.max(probs, axis=0).sum(), rel=1e-12)


@pytest.mark.parametrize(("m", "k", "seed"), [(6, 3, 0), (6, 8, 2), (8, 6, 3), (8, 30, 5)])
def test_fixed_table_with_missing_pairs_by_its_graph_equals_the_enumerations(m, k, seed):
    P = q.protocol("rappor", k, m=m, h=2, f=F, p=P_, q=Q_, seed=seed)
    sub = np.unique(P.bloom, axis=0)
    sub = sub[:, sub.any(axis=0)]
    u = sub.shape[1]
    assert len(sub) < u + math.comb(u, 2)  # not every pair: the graph route
    for T in (1, 2, 3, 4):
        ml = P.closed_form.bayes_capacity_reports(T)
        assert ml == pytest.approx(_capacity_by_enumeration(sub, _bit_reports(P, T)), rel=1e-12)
        if T <= 2:  # brute force over the explicit rows of the distinct filters
            R = _count_law(T)
            ys = np.array(list(itertools.product(range(T + 1), repeat=u)))
            probs = [np.prod(np.where(b[None, :], R[1][ys], R[0][ys]), axis=1) for b in sub]
            assert ml == pytest.approx(np.max(probs, axis=0).sum(), rel=1e-12)
    limit = _capacity_by_enumeration(sub, _permanent_bits(P))
    assert P.closed_form.bayes_capacity_permanent() == pytest.approx(limit, rel=1e-12)


def test_pair_filters_refuse_what_they_cannot_do():
    L = np.log(_count_law(2))
    # 20 disjoint pairs: 3^20 independent sets, refused before they are walked
    with pytest.raises(q.errors.SizeError, match=f"more than {MAX_INDEPENDENT_SETS} independent"):
        bayes_capacity_pair_filters(L, 40, [(2 * i, 2 * i + 1) for i in range(20)], [])
    with pytest.raises(q.errors.ParameterError, match="two different bits"):
        bayes_capacity_pair_filters(L, 3, [(1, 1)], [0, 2])
    with pytest.raises(q.errors.ParameterError, match="in some filter"):
        bayes_capacity_pair_filters(L, 3, [(0, 1)], [])


@pytest.mark.parametrize(
    ("pairs", "singles"), [([], [0, 1]), ([(0, 1), (1, 2)], [2]), ([(0, 2)], [1])]
)
def test_pair_filters_with_a_symbol_of_ratio_zero(pairs, singles):
    # a symbol impossible under Bloom bit 1: every filter can show ratio 0 (M = 0), which
    # the thresholds must include; brute force over the 3^3 patterns
    R = np.array([[0.5, 0.3, 0.2], [0.0, 0.4, 0.6]])
    filters = [set(p) for p in pairs] + [{i} for i in singles]
    u = 1 + max(i for S in filters for i in S)
    ml = 0.0
    for y in itertools.product(range(3), repeat=u):
        ml += max(math.prod(R[int(j in S), y[j]] for j in range(u)) for S in filters)
    with np.errstate(divide="ignore"):
        L = np.log(R)
    assert bayes_capacity_pair_filters(L, u, pairs, singles) == pytest.approx(ml, rel=1e-12)


def test_symmetric_filters_of_several_sizes_and_the_counts():
    # every 1-, 2- and 3-subset of 4 bits, 4 symbols: against a brute force over 4^4 patterns
    R = _count_law(3)
    filters = [S for z in (1, 3) for S in itertools.combinations(range(4), z)]
    ml = 0.0
    for y in itertools.product(range(4), repeat=4):
        ml += max(math.prod(R[int(j in S), y[j]] for j in range(4)) for S in filters)
    assert bayes_capacity_symmetric_filters(np.log(R), 4, [1, 3]) == pytest.approx(ml, rel=1e-12)
    for m, n in [(16, 3), (5, 4), (0, 2), (3, 1)]:
        rows = np.vstack(list(_compositions(m, n, 7)))
        assert rows.shape[0] == composition_count(m, n) == math.comb(m + n - 1, n - 1)
        assert len({tuple(r) for r in rows}) == rows.shape[0] and np.all(rows.sum(axis=1) == m)


def test_filter_overlap_law_by_enumeration():
    for m, h in [(3, 2), (4, 3), (2, 3), (4, 4), (1, 1)]:
        law = {}
        for a in itertools.product(range(m), repeat=h):
            for b in itertools.product(range(m), repeat=h):
                key = (len(set(a) - set(b)), len(set(b) - set(a)))
                law[key] = law.get(key, 0) + 1 / m ** (2 * h)
        got = filter_overlap_law(m, h)
        assert got.keys() == law.keys()
        assert all(got[key] == pytest.approx(law[key], rel=1e-12) for key in law)


def test_filter_overlap_law_at_many_hash_functions():
    # exact integer counts at any h <= m (the set partitions of the 2h draws numbered
    # Bell(16) = 1.0e10 at h = 8): a law, and the overlap of one draw each at h = 1
    for m, h in [(16, 8), (64, 64)]:
        law = filter_overlap_law(m, h)
        assert sum(law.values()) == pytest.approx(1.0, rel=1e-12)
        assert all(0 <= a <= h and 0 <= b <= h and p > 0 for (a, b), p in law.items())
        assert law[(0, 0)] > 0 and law == {(b, a): p for (a, b), p in law.items()}
    # two sets of 1 bit among 64: disjoint unless equal (1/64)
    assert filter_overlap_law(64, 1) == {(0, 0): 1 / 64, (1, 1): 63 / 64}
    with pytest.raises(q.errors.ParameterError, match="h must be <= 64"):
        filter_overlap_law(4, 65)


def test_longitudinal_leakage_at_k_ten_thousand_default_bits():
    # m = 16, h = 2: the fixed table has all 136 filters, so both models' maxima are the
    # products of the two largest ratios; with k = 10^4 values the random hash's largest
    # of k draws is its top atom but with probability ~e^-39: the two agree
    cf = q.protocol("rappor", 10**4, m=16, h=2).closed_form
    rh = cf.random_hash
    for model in (cf, rh):
        mls = [model.bayes_capacity_reports(T) for T in (1, 2, 4)]
        limit = model.bayes_capacity_permanent()
        assert mls[0] < mls[1] < mls[2] < limit
        half = model.reports_to_half_leakage()
        target = math.log2(limit) / 2
        assert math.log2(model.bayes_capacity_reports(half)) >= target
        assert math.log2(model.bayes_capacity_reports(half - 1)) < target
    assert cf.bayes_capacity_reports(4) == pytest.approx(rh.bayes_capacity_reports(4), rel=1e-9)
    h4 = q.protocol("rappor", 10**4, m=16, h=4).closed_form.random_hash
    assert (
        h4.bayes_capacity_reports(2) < h4.bayes_capacity_reports(4) < h4.bayes_capacity_permanent()
    )
    d = h4.privacy_profile_reports(4, [0.5, 2.0])
    assert 0 < d[1] < d[0] < 1
    with pytest.raises(q.errors.SizeError, match="random_hash"):
        q.protocol("rappor", 10**4, m=16, h=4).closed_form.bayes_capacity_reports(1)


@pytest.mark.parametrize(
    ("k", "m", "h", "extra"), [(2, 2, 1, {}), (3, 3, 2, {}), (2, 3, 2, {"p": 0.0, "q": 1.0})]
)
def test_permanent_filter_shown_as_is(k, m, h, extra):
    # f = 0: the permanent bits are the Bloom filter (and with p = 0, q = 1 every report
    # too): the Bayes capacity is the number of distinct filters, averaged over the
    # random tables; against the explicit channels (no 0 x log 0 in their products)
    P = q.protocol("rappor", k, m=m, h=h, f=0.0, **extra)
    one = q.protocol("rappor", k, m=m, h=h, f=0.0, rounds="one-time")
    cf = P.closed_form
    assert cf.bayes_capacity_permanent() == pytest.approx(
        q.bayes_capacity(one.channel()), rel=1e-12
    )
    mean = cf.random_hash.bayes_capacity_permanent()
    assert mean == pytest.approx(q.bayes_capacity(one.random_hash_channel()), rel=1e-12)
    tables = itertools.product(itertools.product(range(m), repeat=h), repeat=k)
    distinct = [len({frozenset(t) for t in table}) for table in tables]
    assert mean == pytest.approx(np.mean(distinct), rel=1e-12)
    if extra:  # reports show the permanent bits exactly
        assert cf.bayes_capacity_reports(2) == cf.bayes_capacity_permanent()
        assert cf.random_hash.bayes_capacity_reports(3) == pytest.approx(mean, rel=1e-12)


def test_counts_partly_impossible_under_bit_zero_refused():
    P = q.protocol("rappor", 3, m=8, h=2, f=0.0, p=0.0, q=0.5)
    for call in (
        P.closed_form.bayes_capacity_reports,
        P.closed_form.random_hash.bayes_capacity_reports,
    ):
        with pytest.raises(
            q.errors.ParameterError, match=r"f = 0.0, p = 0.0, q = 0.5: .* use f > 0"
        ):
            call(2)


def test_work_limit_shared_with_each_route_advice():
    # both composition sums refuse through channel.guard_work, each with its own advice;
    # the count is composition_count(40, 20) x terms per composition
    L = np.log(np.full((2, 20), 1 / 20))
    count = math.comb(40 + 19, 19)
    with pytest.raises(q.errors.SizeError) as err:
        bayes_capacity_symmetric_filters(L, 40, [1])
    assert f"sum over {count} compositions x 20 terms = {count * 20}, more than the work " in (
        str(err.value)
    )
    assert str(err.value).endswith("Use fewer reports T (fewer symbols per bit) or fewer bits.")
    with pytest.raises(q.errors.SizeError, match="work limit MAX_ENTRIES") as err:
        bayes_capacity_random_hash_bits(L, 40, 2, 3)
    assert str(err.value).endswith("fewer bits or hash functions.")
