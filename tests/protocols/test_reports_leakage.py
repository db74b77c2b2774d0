"""What T memoised reports reveal, for every memoising protocol (L-*, RAPPOR, dBitFlipPM):
Bayes capacity, ASR and privacy profile of T reports, the limit as T grows, the T reaching
half of it.

Expected values: the explicit T-report channels (themselves equal to brute-force
enumerations in test_longitudinal.py, test_rappor.py, test_dbitflip.py) measured by
q.bayes_capacity and q.privacy_profile; at k = 10^4 the lumped values are checked against
their own invariants (nondecreasing in T, bounded by the permanent response, the first
crossing of half the limit's leakage).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q

EPSS = [0.0, 0.4, 1.1, 3.0]


def _small():
    yield from (q.protocol(v, 3, 2.0, 0.7) for v in ("l_grr", "l_sue", "l_oue", "l_osue", "l_soue"))
    yield q.protocol("rappor", 3, m=3, h=1, f=0.5, seed=2)
    yield q.protocol("rappor", 3, m=3, h=2, f=0.3, p=0.2, q=0.9, seed=4)
    yield q.protocol("rappor", 3, m=3, h=2, f=0.5, rounds="one-time", seed=1)


@pytest.mark.parametrize("P", list(_small()), ids=repr)
def test_t_reports_equal_the_explicit_channel(P):
    cf = P.closed_form
    for T in (1, 2, 3):
        C = P.channel(reports=T)
        assert cf.bayes_capacity_reports(T) == pytest.approx(q.bayes_capacity(C), rel=1e-12)
        assert cf.asr_reports(T) == pytest.approx(q.bayes_capacity(C) / P.k, rel=1e-12)
        np.testing.assert_allclose(
            cf.privacy_profile_reports(T, EPSS), q.privacy_profile(C, EPSS), atol=1e-13
        )


@pytest.mark.parametrize(("b", "d"), [(4, 1), (2, 2), (3, 2), (4, 3)])
def test_dbitflip_reports_are_one_report(b, d):
    # memoised whole: T reports are copies of one, so every measure is one report's
    P = q.protocol("dbitflip", 4, 1.3, b=b, d=d)
    cf, C = P.closed_form, P.channel()
    assert cf.bayes_capacity_reports(7) == cf.bayes_capacity_permanent() == cf.bayes_capacity()
    assert cf.reports_to_half_leakage() == 1
    np.testing.assert_allclose(
        cf.privacy_profile_reports(5, EPSS), q.privacy_profile(C, EPSS), atol=1e-13
    )


def _check_series(cf, Ts):
    mls = [cf.bayes_capacity_reports(T) for T in Ts]
    limit = cf.bayes_capacity_permanent()
    assert all(a <= b * (1 + 1e-9) for a, b in zip(mls, mls[1:], strict=False))  # rounding
    assert mls[-1] <= limit * (1 + 1e-9)
    half = cf.reports_to_half_leakage()
    if half is not None:
        target = math.log2(limit) / 2
        assert math.log2(cf.bayes_capacity_reports(half)) >= target
        assert half == 1 or math.log2(cf.bayes_capacity_reports(half - 1)) < target
    return mls, limit, half


@pytest.mark.parametrize("name", ["l_sue", "l_oue", "l_osue", "l_soue"])
def test_unary_longitudinal_at_k_ten_thousand(name):
    cf = q.protocol(name, 10**4, 4.0, 1.0).closed_form
    mls, limit, half = _check_series(cf, [1, 2, 4, 8, 16, 64])
    assert half is not None and mls[-1] > 0.9 * limit
    d = cf.privacy_profile_reports(64, [1.0, 3.0])
    assert 0 < d[1] < d[0]
    # one report's true eps is eps_1 = 1: its profile vanishes there, up to the rounding of
    # the log-space sum (5.6e-17 with numpy 2.4's exp and log)
    assert 0.0 <= cf.privacy_profile_reports(1, 1.0) <= 1e-15


@pytest.mark.parametrize("k", [2, 3, 5])
def test_l_grr_lumped_pair_equals_the_explicit_profile(k):
    P = q.protocol("l_grr", k, 2.0, 0.7)
    for T in (1, 2, 3, 4):
        np.testing.assert_allclose(
            P.closed_form.privacy_profile_reports(T, EPSS),
            q.privacy_profile(P.channel(reports=T), EPSS),
            atol=1e-13,
        )


def test_l_grr_rappor_and_dbitflip_at_k_ten_thousand():
    cf = q.protocol("l_grr", 10**4, 8.0, 4.0).closed_form
    _, _, half = _check_series(cf, [1, 2, 4, 8, 16])
    assert half is not None
    d = cf.privacy_profile_reports(8, [1.0, 4.0, 8.0])
    assert d[0] > d[1] > 0 == d[2]  # delta vanishes at eps_perm
    assert cf.privacy_profile_reports(1, 4.0) == 0.0  # one report leaks at most eps_1 = 4
    cf = q.protocol("rappor", 10**4, m=64, h=1, f=0.5).closed_form
    mls, limit, half = _check_series(cf, [1, 2, 4, 8, 64])
    assert half is not None and limit == pytest.approx(
        q.protocol("ue", 64, p=0.75, q=0.25).closed_form.bayes_capacity()
    )
    cf = q.protocol("dbitflip", 10**4, 1.0, d=4).closed_form
    assert cf.reports_to_half_leakage() == 1
    assert 0 < cf.privacy_profile_reports(16, 0.1) < 1e-3  # both buckets sampled w.p. 12/10^8


def _w_by_compositions(k, p2, q2, T):
    """W_T = Σ_y max_x p2^n_x q2^(T - n_x), summed over the count vectors of y (k = 3)."""
    assert k == 3
    total = 0.0
    for a in range(T + 1):
        for b in range(T + 1 - a):
            c = T - a - b
            lg = math.lgamma
            log_mult = lg(T + 1) - lg(a + 1) - lg(b + 1) - lg(c + 1)
            m = max(a, b, c)
            total += math.exp(log_mult + m * math.log(p2) + (T - m) * math.log(q2))
    return total


@pytest.mark.parametrize(("k", "T"), [(2, 90), (7, 130), (300, 80), (10**4, 70)])
def test_l_grr_cauchy_integral_equals_the_counting(k, T):
    from qifldp.protocols.longitudinal import _log_grr_mode_weight_counted
    from qifldp.protocols.reports import log_grr_mode_weight

    pr = q.protocol("l_grr", k, 3.0, 1.2).params
    counted = _log_grr_mode_weight_counted(k, pr["p2"], pr["q2"], T)
    assert log_grr_mode_weight(k, pr["p2"], pr["q2"], T) == pytest.approx(counted, abs=1e-11)


@pytest.mark.parametrize("T", [1, 4, 33, 70])
def test_l_grr_cauchy_integral_equals_the_compositions(T):
    from qifldp.protocols.reports import log_grr_mode_weight

    pr = q.protocol("l_grr", 3, 2.0, 0.7).params
    expected = _w_by_compositions(3, pr["p2"], pr["q2"], T)
    assert math.exp(log_grr_mode_weight(3, pr["p2"], pr["q2"], T)) == pytest.approx(
        expected, rel=1e-12
    )


def test_l_grr_reports_beyond_a_thousand_within_the_poisson_bracket():
    # With N ~ Poisson(tau) reports the counts are independent Poissons, so
    # E[ML_N] = k q1 + (p1 - q1) Σ_c Poi(tau p2)(c) (F(c)^k - F(c-1)^k) / f(c) (f, F the
    # Poisson(tau q2) pmf and cdf; the other k - 1 values below c, ties shared); ML_T is
    # nondecreasing in T between 1 and k p1, which brackets ML_T by tau = T -+ 8 sqrt(T).
    from scipy.stats import poisson

    k, T = 10**4, 20000
    P = q.protocol("l_grr", k, 4.0, 2.0)
    pr, cf = P.params, P.closed_form
    limit = k * pr["p1"]

    def poissonised(tau):
        c = np.arange(1, 4000)  # c = 0: x and every other value unseen, W's term 1 * Poi(0)^k
        # (F^k - Fm^k) / f = Fm^k ((1 + f / Fm)^k - 1) / f, no cancellation when f << 1,
        # formed in logs: log1p(f / Fm) = log F - log Fm
        with np.errstate(divide="ignore", invalid="ignore"):
            lf, lfm = poisson.logpmf(c, tau * pr["q2"]), poisson.logcdf(c - 1, tau * pr["q2"])
            B = k * (np.logaddexp(lfm, lf) - lfm)
            log_terms = poisson.logpmf(c, tau * pr["p2"]) + k * lfm + B + np.log(-np.expm1(-B)) - lf
        w = float(np.sum(np.exp(log_terms[np.isfinite(log_terms)])))
        w += math.exp(-tau * (pr["p2"] + (k - 1) * pr["q2"]))
        return k * pr["q1"] + (pr["p1"] - pr["q1"]) * w

    lo_tau, hi_tau = T - 8 * math.sqrt(T), T + 8 * math.sqrt(T)
    above = poisson.sf(T, lo_tau)  # Pr[N > T]
    lower = (poissonised(lo_tau) - above * limit) / (1 - above)
    below = poisson.cdf(T - 1, hi_tau)  # Pr[N < T]
    upper = (poissonised(hi_tau) - below * 1.0) / (1 - below)
    ml = cf.bayes_capacity_reports(T)
    assert lower <= ml <= upper and upper - lower < 0.05 * ml
    assert cf.bayes_capacity_reports(T // 2) < ml < limit


@pytest.mark.parametrize(("name", "eps_1"), [("l_grr", 2.0), ("l_oue", 0.02)])
def test_half_limit_beyond_a_thousand_reports_at_k_ten_thousand(name, eps_1):
    cf = q.protocol(name, 10**4, 4.0, eps_1).closed_form
    assert cf.max_reports() == 10**6
    half = cf.reports_to_half_leakage()
    assert half is not None and half > 1024
    target = math.log2(cf.bayes_capacity_permanent()) / 2
    assert math.log2(cf.bayes_capacity_reports(half - 1)) < target
    assert math.log2(cf.bayes_capacity_reports(half)) >= target


def test_l_grr_profile_beyond_its_limit_says_why_and_the_bound_it_names_holds():
    from qifldp.protocols.reports import MAX_GRR_PROFILE_REPORTS, grr_pair_classes, grr_reports_pair

    P = q.protocol("l_grr", 40, 2.0, 1.0)
    pr, cf = P.params, P.closed_form
    for T in (1, 2, 3, 6):  # the lumped pair's columns, enumerated there by partitions
        C = grr_reports_pair(40, pr["p1"], pr["q1"], pr["p2"], pr["q2"], T)
        assert C.shape[1] == grr_pair_classes(T)
    assert [grr_pair_classes(T) for T in (1, 2, 3)] == [3, 7, 14]  # by hand
    with pytest.raises(q.errors.ParameterError, match=r"partition.*q\.grr\(40, 2\.0\)"):
        cf.privacy_profile_reports(MAX_GRR_PROFILE_REPORTS + 1, 1.0)
    # the bound it names: T reports post-process the permanent GRR at eps_perm
    epss = [0.0, 0.5, 1.0, 1.5]
    bound = q.privacy_profile(q.grr(40, 2.0), epss)
    assert np.all(cf.privacy_profile_reports(6, epss) <= bound + 1e-15)


def _binom_rows(pr, T):
    from scipy.stats import binom

    c = np.arange(T + 1)
    on, off = binom.pmf(c, T, pr["p2"]), binom.pmf(c, T, pr["q2"])
    return pr["q1"] * on + (1 - pr["q1"]) * off, pr["p1"] * on + (1 - pr["p1"]) * off


@pytest.mark.parametrize("name", ["l_sue", "l_osue"])
def test_unary_reports_beyond_a_thousand_equal_the_enumerated_counts(name):
    # k = 2: ML = Σ_{c0, c1} max over the two values of B1(c_x) B0(c_other), and the
    # profile Σ (B1(c0) B0(c1) - e^eps B0(c0) B1(c1))^+, over all (T + 1)^2 count pairs
    P = q.protocol(name, 2, 3.0, 0.05)
    T, cf = 1500, P.closed_form
    b0, b1 = _binom_rows(P.params, T)
    first, second = np.outer(b1, b0), np.outer(b0, b1)
    assert cf.bayes_capacity_reports(T) == pytest.approx(np.maximum(first, second).sum(), rel=1e-11)
    epss = [0.0, 0.3, 1.0, 2.5]
    expected = [np.maximum(first - math.exp(e) * second, 0).sum() for e in epss]
    np.testing.assert_allclose(cf.privacy_profile_reports(T, epss), expected, atol=1e-13)


@pytest.mark.parametrize(("u", "v"), [(1, 0), (1, 1), (2, 1), (0, 3), (2, 2)])
def test_pair_profile_by_halves_equals_the_product_channel(u, v):
    from qifldp.protocols.reports import pair_profile

    rng = np.random.default_rng(u * 10 + v)
    B = rng.dirichlet(np.ones(4), size=2)
    B[0, 3] = 0.0  # a symbol only bit 1 gives: an infinite loss
    B[0] /= B[0].sum()
    rows = []
    for first, second in ((1, 0), (0, 1)):
        row = np.ones(1)
        for bit in [first] * u + [second] * v:
            row = np.outer(row, B[bit]).ravel()
        rows.append(row)
    expected = q.privacy_profile(q.Channel(np.array(rows)), EPSS)
    np.testing.assert_allclose(pair_profile(B, u, v, EPSS), expected, atol=1e-14)
    with np.errstate(divide="ignore"):
        logged = pair_profile(np.log(B), u, v, EPSS, log=True)
    np.testing.assert_allclose(logged, expected, atol=1e-14)


def test_unary_reports_at_a_million_stay_below_the_permanent_response():
    cf = q.protocol("l_oue", 10**4, 4.0, 0.02).closed_form
    limit, ml = cf.bayes_capacity_permanent(), cf.bayes_capacity_reports(10**6)
    assert ml == pytest.approx(limit, rel=1e-9) and ml <= limit


@pytest.mark.parametrize(("k", "T"), [(3, 20), (5, 20), (40, 12), (300, 8)])
def test_l_grr_profile_enclosure_holds_the_partition_count(k, T):
    # the exact profile by the partitions of the other values' counts (T <= 32) lies in
    # the enclosure, which is exact at k <= 3 (one other value: its count is n itself)
    from qifldp.protocols.reports import grr_reports_pair, grr_reports_profile_bounds

    epss = [0.0, 0.3, 0.7, 1.5, 3.0]
    for eps_perm, eps_1 in ((2.0, 0.7), (4.0, 1.0)):
        pr = q.protocol("l_grr", k, eps_perm, eps_1).params
        args = (k, pr["p1"], pr["q1"], pr["p2"], pr["q2"], T)
        exact = q.privacy_profile(grr_reports_pair(*args), epss)
        lo, hi = grr_reports_profile_bounds(*args, epss)
        assert np.all(lo <= exact + 1e-13) and np.all(exact <= hi + 1e-13)
        assert lo[0] == pytest.approx(hi[0], abs=1e-13)  # eps = 0 is exact
        if k <= 3:
            np.testing.assert_allclose(lo, exact, atol=1e-13)
            np.testing.assert_allclose(hi, exact, atol=1e-13)
        else:
            assert np.max(hi - lo) < 0.02


def test_l_grr_profile_bounds_beyond_the_partitions_at_k_ten_thousand():
    cf = q.protocol("l_grr", 10**4, 8.0, 4.0).closed_form
    epss = [1.0, 3.0, 8.0]
    exact = cf.privacy_profile_reports(8, epss)
    lo8, hi8 = cf.privacy_profile_reports_bounds(8, epss)  # exact up to T = 32
    np.testing.assert_array_equal(lo8, exact)
    np.testing.assert_array_equal(hi8, exact)
    lo, hi = cf.privacy_profile_reports_bounds(200, epss)
    assert np.all(lo <= hi) and hi[2] == 0.0  # nothing beyond eps_perm
    # the permanent GRR's profile, (e^eps_perm - e^eps)^+ / (e^eps_perm + k - 1), bounds all T
    grr = [max(math.exp(8.0) - math.exp(e), 0) / (math.exp(8.0) + 10**4 - 1) for e in epss]
    assert np.all(hi <= np.array(grr) + 1e-15)
    assert np.all(lo[:2] > exact[:2])  # 200 reports leak visibly more than 8
    assert np.all(hi[:2] - lo[:2] < 0.1 * lo[:2])  # 6% and 1.3% here
    with pytest.raises(q.errors.ParameterError, match="T must be <= 32768"):
        cf.privacy_profile_reports_bounds(32769, 1.0)


def test_l_grr_profile_bounds_on_the_window_of_counts(monkeypatch):
    # beyond GRR_BOUND_ALL_CLASSES reports the enclosure sums the classes within
    # Hoeffding's window of the counts' means: forced at T = 400 (window half-width 119),
    # it agrees with the sum over all classes (the dropped ones weigh < 1e-30)
    from qifldp.protocols import reports

    pr = q.protocol("l_grr", 40, 6.0, 2.0).params
    args = (40, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 400, [0.5, 2.0, 5.0])
    lo, hi = reports.grr_reports_profile_bounds(*args)
    monkeypatch.setattr(reports, "GRR_BOUND_ALL_CLASSES", 100)
    lo_w, hi_w = reports.grr_reports_profile_bounds(*args)
    np.testing.assert_allclose(lo_w, lo, rtol=1e-12)
    np.testing.assert_allclose(hi_w, hi, rtol=1e-12)
    assert np.all(lo_w <= hi_w) and np.all(hi_w >= hi - 1e-15)
