"""Issue 8, reproducers 8 and 9: no silent wrong numbers and no huge allocations in simulation.

Each test is a reproducer from the issue; the expected values are closed forms
(Wang et al. 2017 variances) or the exact size of the refused allocation.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from qifldp.errors import InputTypeError, ParameterError, SizeError
from qifldp.simulation import (
    MEMORY_BUDGET_BYTES,
    calibrate,
    estimate_grr,
    estimate_ss,
    frequency_variance,
    sample_grr,
    sample_ss,
    support_counts,
    variance_oue,
    zipf_data,
    zipf_probabilities,
)


# ---------------------------------------------------------------------------------------
# reproducer 8: silent wrong numbers
# ---------------------------------------------------------------------------------------
def test_frequency_variance_rejects_negative_q_star():
    # issue 8, reproducer 8: returned a negative variance
    with pytest.raises(ParameterError, match="q_star must lie in"):
        frequency_variance(0.6, -1, 100)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), 1.5, -0.1])
@pytest.mark.parametrize("which", ["p_star", "q_star"])
def test_calibrate_rejects_bad_pq_star(bad, which):
    args = {"p_star": 0.75, "q_star": 0.25, which: bad}
    with pytest.raises(ParameterError, match=which):
        calibrate([30, 70], 100, **args)


@pytest.mark.parametrize("which", ["p_star", "q_star"])
def test_calibrate_rejects_complex_pq_star(which):
    args = {"p_star": 0.75, "q_star": 0.25, which: 0.5 + 0.1j}
    with pytest.raises(InputTypeError, match=which):
        calibrate([30, 70], 100, **args)


@pytest.mark.parametrize(
    "counts, match",
    [
        ([30, 170], r"counts must lie in \[0, n\]"),
        ([-1, 70], r"counts must lie in \[0, n\]"),
        ([np.nan, 70], "finite"),
        ([[30, 70]], "1-D"),
    ],
)
def test_calibrate_rejects_impossible_counts(counts, match):
    with pytest.raises(ParameterError, match=match):
        calibrate(counts, 100, 0.75, 0.25)


def test_calibrate_rejects_complex_counts():
    with pytest.raises(InputTypeError, match="counts must hold real numbers"):
        calibrate([30 + 1j, 70], 100, 0.75, 0.25)


def test_calibrate_still_exact_on_valid_input():
    # f = (C/n - q*)/(p* - q*): (0.3 - 0.25)/0.5 = 0.1 and (0.7 - 0.25)/0.5 = 0.9
    assert np.allclose(calibrate([30, 70], 100, 0.75, 0.25), [0.1, 0.9], rtol=0, atol=1e-15)
    # counts exactly n and 0 are allowed
    assert calibrate([0, 100], 100, 0.75, 0.25).tolist() == [-0.5, 1.5]


def test_variance_oue_swapped_arguments_raise():
    # issue 8, reproducer 8: variance_oue(10**6, 1.0) (n and eps swapped) returned 0.0
    with pytest.raises(InputTypeError, match="n must be an integer number of users"):
        variance_oue(10**6, 1.0)
    # the right order gives Wang et al.'s Var* = 4 e^eps / (n (e^eps - 1)^2)
    e = math.e
    assert math.isclose(variance_oue(1.0, 10**6), 4 * e / (10**6 * (e - 1) ** 2), rel_tol=1e-12)


def test_frequency_variance_f_must_be_frequencies():
    with pytest.raises(ParameterError, match=r"f must hold frequencies in \[0, 1\]"):
        frequency_variance(0.75, 0.25, 100, f=[1.5, -0.5])
    # valid f: [f p*(1-p*) + (1-f) q*(1-q*)] / (n (p*-q*)^2) = 0.1875 / 25 for every f
    assert np.allclose(frequency_variance(0.75, 0.25, 100, f=[0.2, 0.8]), 0.1875 / 25)


# ---------------------------------------------------------------------------------------
# reproducer 9: memory sized by the data, not by k
# ---------------------------------------------------------------------------------------
def _peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_sample_ss_huge_output_refused_before_allocating():
    # issue 8, reproducer 9: 10^6 users at k = 10^4 (omega = 2689) tried to allocate 20 GiB
    xs = np.zeros(10**6, dtype=np.int64)

    def refused():
        with pytest.raises(SizeError, match=r"2689000000 x 8 bytes = 20 GiB.*fewer users per call"):
            sample_ss(xs, 10**4, 1.0, rng=0)

    # refused before allocating: nothing near the 20 GiB (nor one n-sized float copy) is made
    assert _peak_bytes(refused) < 2**20


def test_sample_ss_huge_k_small_omega_is_sized_by_the_data():
    # k = 10^9 with omega = 3: the old (n, k) mask needed n GB; now O(n omega)
    xs = np.array([0, 5, 10**9 - 1] * 100, dtype=np.int64)
    out = {}
    peak = _peak_bytes(lambda: out.setdefault("S", sample_ss(xs, 10**9, 2.0, 3, rng=1)))
    S = out["S"]
    assert S.shape == (300, 3)
    assert np.all(np.diff(S, axis=1) > 0) and S.min() >= 0 and S.max() < 10**9
    assert peak < 10 * 2**20


def test_sample_ss_sparse_branch_includes_true_value_at_rate_p():
    # Pr[x in subset] = p = omega e^eps / (omega e^eps + k - omega) (Wang et al. 2016)
    k, eps, omega, n = 10**6, 3.0, 2, 40_000
    xs = np.full(n, 123_456, dtype=np.int64)
    S = sample_ss(xs, k, eps, omega, rng=3)
    p = omega * math.exp(eps) / (omega * math.exp(eps) + k - omega)
    rate = np.mean(np.any(S == 123_456, axis=1))
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-12


def test_estimate_grr_huge_k_refused_and_sparse_counts_offered():
    # issue 8, reproducer 9: estimate_grr(ys, 10**9, eps) allocated 7.45 GiB for 8 reports
    ys = np.array([0, 1, 2, 3, 4, 5, 6, 10**9 - 1])

    def refused():
        # the old 7.45 GiB count vector, plus the calibration's copies: 4 x 8 bytes per value
        with pytest.raises(SizeError, match=r"1000000000 x 32 bytes = 29.8 GiB.*sparse=True"):
            estimate_grr(ys, 10**9, 1.0)

    assert _peak_bytes(refused) < 2**20
    out = {}
    peak = _peak_bytes(lambda: out.setdefault("vc", support_counts(ys, 10**9, sparse=True)))
    assert peak < 2**20  # sized by the 8 reports, not by k
    values, counts = out["vc"]
    assert values.tolist() == [0, 1, 2, 3, 4, 5, 6, 10**9 - 1]
    assert counts.tolist() == [1] * 8


def test_sparse_calibration_matches_dense_on_a_small_domain():
    k, eps = 50, 2.0
    xs = np.repeat(np.arange(5), 200)
    ys = sample_grr(xs, k, eps, rng=4)
    dense = estimate_grr(ys, k, eps)
    values, counts = support_counts(ys, k, sparse=True)
    p = math.exp(eps) / (math.exp(eps) + k - 1)
    q = 1 / (math.exp(eps) + k - 1)
    sparse = calibrate(counts, ys.size, p, q)
    assert np.allclose(dense[values], sparse, rtol=0, atol=1e-12)
    unseen = np.setdiff1d(np.arange(k), values)
    assert np.allclose(dense[unseen], -q / (p - q), rtol=0, atol=1e-12)


def test_estimate_ss_huge_k_refused():
    S = np.array([[0, 7], [3, 10**9 - 1]])
    with pytest.raises(SizeError, match="sparse=True"):
        estimate_ss(S, 10**9, 1.0, 2)


def test_zipf_huge_domain_refused():
    with pytest.raises(SizeError, match="zipf_probabilities"):
        zipf_probabilities(10**9)
    with pytest.raises(SizeError, match="zipf_data"):
        zipf_data(10**9, 3)


def test_memory_budget_is_documented_constant():
    assert MEMORY_BUDGET_BYTES == 2**30


# ---------------------------------------------------------------------------------------
# attack_lh: rejection sampling instead of an (n, k) match table at large k
# ---------------------------------------------------------------------------------------
def _replicated_report(n, k, g, prime, a, b, y):
    from qifldp.simulation import LHReports

    full = np.full(n, 1, dtype=np.int64)
    return LHReports(y=full * y, k=k, g=g, a=full * a, b=full * b, prime=prime)


@pytest.mark.parametrize("tries", [None, 0])  # None: rejection route; 0: exact enumeration
def test_attack_lh_large_k_is_uniform_over_the_matching_values(tries, monkeypatch):
    from qifldp.protocols import lh
    from qifldp.simulation import attack_lh

    from ._helpers import assert_gof

    if tries is not None:
        monkeypatch.setattr(lh, "LH_REJECTION_TRIES", tries)
    k, g, prime = 400, 2, 401  # k > LH_REJECTION_RATIO * g: the large-k route
    R = _replicated_report(30_000, k, g, prime, a=7, b=3, y=1)
    match = R.take(slice(0, 1)).matches()[0]  # h(v) = y, by enumeration
    assert 150 < match.sum() < 250
    guesses = attack_lh(R, rng=5)
    counts = np.bincount(guesses, minlength=k)
    assert_gof(counts, match / match.sum())  # uniform on the matches, never elsewhere


def test_attack_lh_huge_k_memory_is_independent_of_k():
    from qifldp.simulation import attack_lh, sample_blh, universal_hash

    R = sample_blh(np.arange(2000) * 499_999, 10**9, 1.0, rng=2)
    out = {}
    peak = _peak_bytes(lambda: out.setdefault("g", attack_lh(R, rng=3)))
    guesses = out["g"]
    # every guess hashes to its report (with g = 2 and k = 10^9 each report has matches)
    assert np.all(universal_hash(R.a, R.b, guesses, 2, R.prime) == R.y)
    assert peak < 64 * 2**20  # the enumeration route needed k bytes per user (1 GB)


def test_lh_tables_refused_beyond_the_memory_budget():
    from qifldp.simulation import estimate_lh, sample_blh

    R = sample_blh([0, 1, 2], 10**9, 1.0, rng=0)
    with pytest.raises(SizeError, match="match table of LHReports"):
        R.matches()
    with pytest.raises(SizeError, match="length-k vectors.*smaller domain"):
        estimate_lh(R, 1.0)
    with pytest.raises(ParameterError, match="stop must be <= 3"):
        R.matches(0, 5)


def test_sample_ss_dense_large_k_uses_random_keys():
    # k = 5000, omega = 2000 (dense regime, k > SS_KEYS_MIN_K): sorted distinct rows,
    # the true value at rate p = omega e^eps / (omega e^eps + k - omega), every other
    # value at rate q* = (omega - p) / (k - 1) (Wang et al. 2016)
    k, eps, omega, n = 5000, 1.0, 2000, 2000
    xs = np.full(n, 17, dtype=np.int64)
    S = sample_ss(xs, k, eps, omega, rng=8)
    assert S.shape == (n, omega) and np.all(np.diff(S, axis=1) > 0)
    p = omega * math.exp(eps) / (omega * math.exp(eps) + k - omega)
    rate = np.mean(np.any(S == 17, axis=1))
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / n)
    q_star = (omega - p) / (k - 1)
    other = np.bincount(S.reshape(-1), minlength=k)[np.arange(k) != 17] / n
    assert abs(other.mean() - q_star) < 1e-12 + 5 * math.sqrt(q_star / (n * (k - 1)))
