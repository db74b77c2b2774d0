"""Estimators: unbiasedness and variance formulas by Monte Carlo, closed forms, exact identities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import qifldp as q
from qifldp.errors import ChannelError, InputTypeError, ParameterError
from qifldp.simulation import (
    calibrate,
    estimate_grr,
    estimate_inversion,
    estimate_lh,
    estimate_oue,
    estimate_ss,
    estimate_sue,
    estimate_the,
    estimate_ue,
    frequency_variance,
    inversion_matrix,
    lh_pq_star,
    project_simplex,
    sample,
    sample_grr,
    sample_lh,
    sample_oue,
    sample_ss,
    sample_sue,
    sample_the,
    sample_ue,
    ss_pq_star,
    support_counts,
    universal_hash,
    universal_lh_channel,
    variance_grr,
    variance_inversion,
    variance_lh,
    variance_oue,
    variance_ss,
    variance_sue,
    variance_the,
    variance_ue,
)

from ._helpers import assert_mse_ratio, assert_unbiased, assert_variance

#: the fixed population of every Monte Carlo test: n = 500 users over k = 5 values
COUNTS = np.array([200, 125, 100, 50, 25])
K = COUNTS.size
N = int(COUNTS.sum())
F = COUNTS / N
R = 4000  # independent replications of the whole population
EPS = 1.5


def _population() -> np.ndarray:
    return np.tile(np.repeat(np.arange(K), COUNTS), R)


def _groups(n_total: int):
    return [slice(r * N, (r + 1) * N) for r in range(n_total // N)]


def _replicate(sample_all, estimate_one) -> np.ndarray:
    """R estimates, one per replication of the population (all users sampled at once)."""
    reports = sample_all(_population())
    return np.array([estimate_one(reports, g) for g in _groups(R * N)])


# ---------------------------------------------------------------------------------------
# Monte Carlo: unbiasedness and the variance formula, each protocol
# ---------------------------------------------------------------------------------------
def _check(est: np.ndarray, var: np.ndarray) -> None:
    """Per value: mean within 5 sd of f, sample variance within 5 se of the formula;
    pooled over values: mean squared z-score within 5 se of 1 (about 5 % at R = 4000)."""
    assert_unbiased(est, F, var)
    assert_variance(est, var)
    assert_mse_ratio(est, F, var)


def test_grr_unbiased_with_formula_variance():
    rng = np.random.default_rng(101)
    est = _replicate(
        lambda xs: sample_grr(xs, K, EPS, rng), lambda r, g: estimate_grr(r[g], K, EPS)
    )
    _check(est, variance_grr(K, EPS, N, F))


@pytest.mark.parametrize(
    "omega, output", [(1, "subsets"), (2, "subsets"), (4, "subsets"), (2, "membership")]
)
def test_ss_unbiased_with_formula_variance(omega, output):
    rng = np.random.default_rng(102)
    est = _replicate(
        lambda xs: sample_ss(xs, K, EPS, omega, rng, output=output),
        lambda r, g: estimate_ss(r[g], K, EPS, omega),
    )
    _check(est, variance_ss(K, EPS, N, F, omega=omega))


@pytest.mark.parametrize(
    "g, hash, prime",
    [(2, "universal", None), (4, "universal", None), (3, "universal", 7), (3, "uniform", None)],
)
def test_lh_unbiased_with_formula_variance(g, hash, prime):
    # prime = 7 makes the universal family's collision probability (0.2857) far from
    # 1/g = 1/3: the exact q* keeps the estimator unbiased
    rng = np.random.default_rng(103)
    kwargs = {"hash": hash} if prime is None else {"hash": hash, "prime": prime}
    est = _replicate(
        lambda xs: sample_lh(xs, K, EPS, g, rng, **kwargs),
        lambda r, sl: estimate_lh(r.take(sl), EPS),
    )
    R0 = sample_lh([0], K, EPS, g, 0, **kwargs)
    fam_prime = None if hash == "uniform" else R0.prime
    _check(est, variance_lh(EPS, g, N, F, prime=fam_prime))


def test_lh_with_small_prime_needs_the_exact_collision_probability():
    # with P = 7, g = 3 the naive q* = 1/g is off by 0.031; the bias it would cause,
    # (q*_exact - 1/g)/(p* - q*) per value, is far beyond the Monte Carlo error
    p, qe = lh_pq_star(EPS, 3, prime=7)
    _, qn = lh_pq_star(EPS, 3, prime=None)
    bias = (qe - qn) / (p - qn)
    assert abs(bias) > 20 * math.sqrt(variance_lh(EPS, 3, N, prime=7) / R)


@pytest.mark.parametrize(
    "sampler, estimator, variance",
    [
        (
            lambda xs, r: sample_sue(xs, K, EPS, r),
            lambda b: estimate_sue(b, EPS),
            lambda: variance_sue(EPS, N, F),
        ),
        (
            lambda xs, r: sample_oue(xs, K, EPS, r),
            lambda b: estimate_oue(b, EPS),
            lambda: variance_oue(EPS, N, F),
        ),
        (
            lambda xs, r: sample_ue(xs, K, 0.8, 0.3, r),
            lambda b: estimate_ue(b, 0.8, 0.3),
            lambda: variance_ue(0.8, 0.3, N, F),
        ),
        (
            lambda xs, r: sample_the(xs, K, EPS, 0.7, r),
            lambda b: estimate_the(b, EPS, 0.7),
            lambda: variance_the(EPS, 0.7, N, F),
        ),
    ],
    ids=["sue", "oue", "ue", "the"],
)
def test_bit_protocols_unbiased_with_formula_variance(sampler, estimator, variance):
    rng = np.random.default_rng(104)
    est = _replicate(lambda xs: sampler(xs, rng), lambda b, g: estimator(b[g]))
    _check(est, variance())


def test_inversion_estimator_unbiased_with_formula_variance():
    # a random full-row-rank 5 x 8 channel
    rng = np.random.default_rng(105)
    M = rng.random((K, 8)) ** 3
    M /= M.sum(axis=1, keepdims=True)
    C = q.Channel(M)
    est = _replicate(lambda xs: sample(C, xs, rng), lambda y, g: estimate_inversion(C, y[g]))
    _check(est, variance_inversion(C, F, N))


# ---------------------------------------------------------------------------------------
# exact identities and closed forms
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, eps", [(3, 0.5), (6, 2.0), (10, 4.0)])
def test_inversion_of_grr_is_the_grr_estimator(k, eps):
    # C^{-1} = (I - qJ)/(p - q) for GRR (p + (k-1) q = 1): algebraic identity
    rng = np.random.default_rng(1)
    ys = sample_grr(rng.integers(0, k, 500), k, eps, rng)
    C = q.grr(k, eps)
    assert np.allclose(estimate_inversion(C, ys), estimate_grr(ys, k, eps), atol=1e-12)
    f = rng.dirichlet(np.ones(k))
    assert np.allclose(variance_inversion(C, f, 500), variance_grr(k, eps, 500, f), rtol=1e-9)


def test_inversion_covariance_diagonal_and_psd():
    rng = np.random.default_rng(2)
    M = rng.random((4, 9))
    M /= M.sum(axis=1, keepdims=True)
    f = np.array([0.1, 0.2, 0.3, 0.4])
    cov = variance_inversion(M, f, 100, full=True)
    assert np.allclose(np.diag(cov), variance_inversion(M, f, 100), rtol=1e-10)
    assert np.allclose(cov, cov.T, atol=1e-15)
    assert np.linalg.eigvalsh(cov).min() > -1e-12
    # square invertible channel: C^-1 1 = 1 (from C 1 = 1), so the estimates sum to 1
    S = M[:, :4] / M[:, :4].sum(axis=1, keepdims=True)
    ys = sample(S, rng.integers(0, 4, 300), rng)
    assert math.isclose(estimate_inversion(S, ys).sum(), 1.0, abs_tol=1e-12)


def test_inversion_matrix_is_a_right_inverse():
    C = q.oue(4, 1.0)  # 4 x 16
    Cp = inversion_matrix(C)
    assert Cp.shape == (16, 4)
    assert np.allclose(C.matrix @ Cp, np.eye(4), atol=1e-10)


def test_inversion_rejects_rank_deficient_channels():
    with pytest.raises(ChannelError, match="rank 1 < 3"):
        inversion_matrix(q.grr(3, 0.0))
    with pytest.raises(ChannelError, match="2 outputs < 3 inputs"):
        inversion_matrix([[1, 0], [0, 1], [0.5, 0.5]])
    with pytest.raises(ParameterError, match="ys must not be empty"):
        estimate_inversion(q.grr(3, 1.0), [])
    with pytest.raises(ParameterError, match="f must sum to 1"):
        variance_inversion(q.grr(3, 1.0), [0.5, 0.5, 0.5], 10)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("n", [1, 1000])
def test_variance_closed_forms_of_wang_et_al(eps, n):
    # Wang et al., USENIX Security 2017: Var* for a value of frequency 0, divided by n^2
    e = math.exp(eps)
    assert math.isclose(variance_grr(7, eps, n), (e + 7 - 2) / (n * (e - 1) ** 2), rel_tol=1e-12)
    assert math.isclose(variance_oue(eps, n), 4 * e / (n * (e - 1) ** 2), rel_tol=1e-12)
    h = math.exp(eps / 2)
    assert math.isclose(variance_sue(eps, n), h / (n * (h - 1) ** 2), rel_tol=1e-12)
    for g in (2, 3, 9):
        want = (e - 1 + g) ** 2 / (n * (e - 1) ** 2 * (g - 1))
        assert math.isclose(variance_lh(eps, g, n), want, rel_tol=1e-12)
    # THE: p*, q* = 1 - F(theta - 1), 1 - F(theta) for Laplace(2/eps) (Wang et al. Sec. 4.2)
    theta = 0.75
    p = 1 - 0.5 * math.exp(-(1 - theta) * eps / 2)
    qq = 0.5 * math.exp(-theta * eps / 2)
    assert math.isclose(variance_the(eps, theta, n), qq * (1 - qq) / (n * (p - qq) ** 2))


def test_variance_with_frequencies_decomposes():
    # Var = q(1-q)/(n(p-q)^2) + f (1-p-q)/(n(p-q)) (Wang et al. 2017, Eq. 2): two forms agree
    p, qq, n = 0.7, 0.2, 50
    f = np.array([0.0, 0.3, 1.0])
    want = qq * (1 - qq) / (n * (p - qq) ** 2) + f * (1 - p - qq) / (n * (p - qq))
    assert np.allclose(frequency_variance(p, qq, n, f), want, rtol=1e-12)
    assert frequency_variance(p, qq, n) == pytest.approx(want[0])


def test_ss_pq_star_by_counting():
    # q* = Pr[v in subset | x != v]: count over the explicit channel (enumeration)
    k, eps, omega = 6, 1.2, 3
    C = q.subset_selection(k, eps, omega)
    x, v = 0, 4
    in_sub = np.array([v in y for y in C.outputs])
    p_star, q_star = ss_pq_star(k, eps, omega)
    assert math.isclose(float(C.matrix[v, in_sub].sum()), p_star, rel_tol=1e-12)
    assert math.isclose(float(C.matrix[x, in_sub].sum()), q_star, rel_tol=1e-12)


@pytest.mark.parametrize("g, prime", [(2, 5), (3, 7), (4, 5)])
def test_lh_pq_star_by_enumeration(g, prime):
    # Pr[h(v) = y | x] summed over the explicit universal-family channel (enumeration)
    k, eps = 4, 0.9
    C = universal_lh_channel(k, eps, g, prime)
    v = 2
    support = np.array([((a * v + b) % prime) % g == y for a, b, y in C.outputs])
    p_star, q_star = lh_pq_star(eps, g, prime)
    assert math.isclose(float(C.matrix[v, support].sum()), p_star, rel_tol=1e-12)
    for x in (0, 1, 3):
        assert math.isclose(float(C.matrix[x, support].sum()), q_star, rel_tol=1e-12)
    # and for the paper's channel (uniform hashing): q* = 1/g exactly
    L = q.local_hashing(3, eps, g)
    sup = np.array([h[v] == y for h, y in L.outputs])
    assert math.isclose(float(L.matrix[0, sup].sum()), 1 / g, rel_tol=1e-12)


# ---------------------------------------------------------------------------------------
# support counts
# ---------------------------------------------------------------------------------------
def test_support_counts_each_report_type():
    assert support_counts(np.array([1, 1, 0]), 3).tolist() == [1, 2, 0]
    assert support_counts(np.array([[0, 2], [1, 2]]), 4).tolist() == [1, 1, 2, 0]
    bits = np.array([[1, 0, 1], [0, 0, 1]], dtype=bool)
    assert support_counts(bits).tolist() == [1, 0, 2]
    with pytest.raises(ParameterError, match="k must be given"):
        support_counts(np.array([0, 1]))
    with pytest.raises(ParameterError, match="does not match"):
        support_counts(bits, 4)
    with pytest.raises(ParameterError, match="reports must lie in 0..2"):
        support_counts(np.array([0, 3]), 3)


def test_lh_support_counts_against_direct_hashing():
    # incremental uint32 hashing in chunks against int64 evaluation of ((a x + b) mod P) mod g
    rng = np.random.default_rng(7)
    k, g = 37, 5
    R = sample_lh(rng.integers(0, k, 150_000), k, 1.0, g, rng)
    H = universal_hash(R.a[:, None], R.b[:, None], np.arange(k)[None, :], g, R.prime)
    assert support_counts(R).tolist() == (H == R.y[:, None]).sum(axis=0).tolist()
    U = sample_lh(rng.integers(0, k, 1000), k, 1.0, g, rng, hash="uniform")
    want = (U.table == U.y[:, None]).sum(axis=0)
    assert support_counts(U, k).tolist() == want.tolist()


# ---------------------------------------------------------------------------------------
# calibration, projection, validation
# ---------------------------------------------------------------------------------------
def test_calibrate_and_degenerate_protocols():
    assert calibrate([30, 70], 100, 0.75, 0.25).tolist() == pytest.approx([0.1, 0.9])
    with pytest.raises(ParameterError, match="carry no information"):
        estimate_grr(np.array([0, 1]), 2, 0.0)
    with pytest.raises(ParameterError, match="carry no information"):
        estimate_oue(np.array([[True, False]]), 0.0)
    with pytest.raises(ParameterError, match="p\\* = q\\*"):
        variance_sue(0.0, 10)
    with pytest.raises(ParameterError, match="0 <= q < p <= 1"):
        estimate_ue(np.array([[True, False]]), 0.5, 0.5)
    with pytest.raises(ParameterError, match="carry no information"):
        estimate_ss(np.array([[0, 1, 2]]), 3, 1.0)  # omega = k
    with pytest.raises(ParameterError, match="omega = 2 does not match"):
        estimate_ss(np.array([[0, 1, 2]]), 4, 1.0, omega=2)
    with pytest.raises(ParameterError, match="same number omega"):
        estimate_ss(np.array([[1, 1, 0], [1, 0, 0]], dtype=bool), 3, 1.0)
    with pytest.raises(InputTypeError, match="LHReports"):
        estimate_lh(np.array([0, 1]), 1.0)
    with pytest.raises(ParameterError, match="must not be empty"):
        estimate_grr(np.array([], dtype=int), 3, 1.0)
    with pytest.raises(ParameterError, match="boolean"):
        estimate_oue(np.array([[0.5, 1.0]]), 1.0)
    # 0/1 integer bit matrices are accepted as bits
    assert estimate_ue(np.array([[1, 0], [1, 1]]), 0.75, 0.25).tolist() == [1.5, 0.5]


def test_projection_option():
    rng = np.random.default_rng(3)
    xs = np.repeat([0, 1, 2, 3], [90, 5, 3, 2])
    f = estimate_oue(sample_oue(xs, 4, 0.5, rng), 0.5, project=True)
    assert np.all(f >= 0) and math.isclose(f.sum(), 1.0, abs_tol=1e-12)


def _assert_projection_kkt(v: np.ndarray, x: np.ndarray) -> None:
    # KKT certificate of argmin ||x - v||^2 on the simplex: x >= 0, sum x = 1, and
    # v - x = tau on supp(x), v - x <= tau off it (tau the multiplier of sum x = 1)
    assert np.all(x >= 0)
    assert math.isclose(x.sum(), 1.0, abs_tol=1e-9)
    on = x > 0
    tau = np.mean((v - x)[on])
    scale = 1e-9 * max(1.0, float(np.abs(v).max()))
    assert np.all(np.abs((v - x)[on] - tau) <= scale)
    assert np.all(v[~on] <= tau + scale)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(1, 12), elements=st.floats(-5, 5)))
def test_project_simplex_kkt(v):
    _assert_projection_kkt(v, project_simplex(v))


def test_project_simplex_examples_and_rows():
    assert project_simplex([0.2, 0.3, 0.5]).tolist() == pytest.approx([0.2, 0.3, 0.5])
    assert project_simplex([2.0, 0.0]).tolist() == [1.0, 0.0]
    assert project_simplex([0.0, 0.0]).tolist() == [0.5, 0.5]
    V = np.array([[0.5, 0.8, -0.1], [3.0, 1.0, 1.0]])
    P = project_simplex(V)
    for v, x in zip(V, P, strict=True):
        _assert_projection_kkt(v, x)
    with pytest.raises(ParameterError, match="finite"):
        project_simplex([np.nan, 1.0])
    with pytest.raises(ParameterError, match="non-empty"):
        project_simplex([])
