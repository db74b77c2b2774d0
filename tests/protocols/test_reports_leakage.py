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
    assert 0 < d[1] < d[0] and cf.privacy_profile_reports(1, 1.0) == 0.0  # eps_1 = 1


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
