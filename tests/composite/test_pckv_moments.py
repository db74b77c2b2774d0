"""Theorem 4 / Lemma 1 of PCKV: bias and variance of the uncorrected estimators (7), (8).

Expected values: the formulas of ``PCKV.bias`` / ``PCKV.variance`` (derived from the
definitions; the printed Eqs. 9-12 are not legible in the paper) against Monte Carlo
runs of the real client and server (``PCKV.sample`` then ``PCKV.estimate``) at fixed
seeds. Bands come from the stated variance only: the sample variance of R runs must lie
in the chi-square band (R - 1) s^2 / sigma^2 in [chi2_{alpha/2}, chi2_{1-alpha/2}] of
R - 1 degrees of freedom, and the sample mean within z_{1-alpha/2} sigma / sqrt(R) of
truth + bias, with alpha = 1e-3 split (Bonferroni) over the comparisons of one test.
The population model is the one the formulas state: users i.i.d. (each run draws a
fresh population from a fixed menu of user sets, none larger than ell).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError

#: (set of pairs, probability): d = 3 keys, ell = 2, no set larger than ell.
MENU = [
    ({}, 0.20),
    ({1: 0.6}, 0.25),
    ({1: -0.2, 2: 0.9}, 0.20),
    ({2: -0.5}, 0.10),
    ({1: 1.0, 3: -1.0}, 0.15),
    ({3: 0.1}, 0.10),
]
D, ELL = 3, 2
ALPHA = 1e-3


def _truth():
    """(f_k, m_k) of the population the menu draws from, k = 1..3."""
    f = np.array([sum(w for S, w in MENU if k in S) for k in range(1, D + 1)])
    s = np.array([sum(w * S.get(k, 0.0) for S, w in MENU) for k in range(1, D + 1)])
    return f, s / f


def _runs(P, n, runs, seed, fixed=False):
    rng = np.random.default_rng(seed)
    sets = [S for S, _ in MENU]
    weights = [w for _, w in MENU]
    fixed_data = [sets[i] for i in rng.choice(len(sets), size=n, p=weights)]
    freqs, means = [], []
    for _ in range(runs):
        data = fixed_data if fixed else [sets[i] for i in rng.choice(len(sets), n, p=weights)]
        f_hat, m_hat = P.estimate(P.sample(data, rng=rng), correct=False)
        freqs.append(f_hat)
        means.append(m_hat)
    return np.array(freqs), np.array(means), fixed_data


def _in_variance_band(samples, sigma2, alpha):
    r = samples.size
    stat = (r - 1) * samples.var(ddof=1) / sigma2
    lo, hi = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], r - 1)
    return lo <= stat <= hi, stat / (r - 1)


def _in_mean_band(samples, centre, sigma2, alpha):
    z = stats.norm.ppf(1 - alpha / 2)
    return abs(samples.mean() - centre) <= z * math.sqrt(sigma2 / samples.size)


@pytest.mark.slow  # about 25 s: 2 x 400 runs of the client and server at n = 8000
@pytest.mark.parametrize("mechanism", ["ue", "grr"])
def test_theorem_4_moments_by_monte_carlo(mechanism):
    n, runs = 8000, 400
    P = q.PCKV(D, 3.0, ELL, mechanism)
    f, m = _truth()
    (bias_f, bias_m), (var_f, var_m) = P.bias(n, f, m), P.variance(n, f, m)
    freqs, means, _ = _runs(P, n, runs, seed=20200812)
    alpha = ALPHA / (4 * D)  # 4 comparisons per key
    for k in range(D):
        ok, ratio = _in_variance_band(freqs[:, k], var_f[k], alpha)
        assert ok, (k, "Var f", ratio)
        ok, ratio = _in_variance_band(means[:, k], var_m[k], alpha)
        assert ok, (k, "Var m", ratio)
        assert _in_mean_band(freqs[:, k], f[k] + bias_f[k], var_f[k], alpha)
        assert _in_mean_band(means[:, k], m[k] + bias_m[k], var_m[k], alpha)


@pytest.mark.slow  # about 8 s
def test_fixed_population_frequency_variance_is_smaller_by_f_minus_f2_over_n():
    # A fixed population (holders report key k w.p. b + (a - b)/ell, others w.p. b):
    # Var f_hat = ell^2 (n_k q_h (1 - q_h) + (n - n_k) b (1 - b)) / (n (a - b))^2
    #           = (i.i.d. variance) - (f - f^2) / n, f = n_k / n of that population.
    n, runs = 4000, 600
    P = q.PCKV(D, 1.0, ELL)
    freqs, _, data = _runs(P, n, runs, seed=7, fixed=True)
    f = np.array([sum(k in S for S in data) for k in range(1, D + 1)]) / n
    var_iid, _ = P.variance(n, f, np.zeros(D))
    var_fixed = var_iid - (f - f * f) / n
    a, b = P.params["a"], P.params["b"]
    q_h = b + (a - b) / ELL
    by_hand = ELL**2 * (n * f * q_h * (1 - q_h) + n * (1 - f) * b * (1 - b)) / (n * (a - b)) ** 2
    np.testing.assert_allclose(var_fixed, by_hand, rtol=1e-12)
    for k in range(D):
        ok, ratio = _in_variance_band(freqs[:, k], var_fixed[k], ALPHA / (2 * D))
        assert ok, (k, ratio)
        assert _in_mean_band(freqs[:, k], f[k], var_fixed[k], ALPHA / (2 * D))


def test_lemma_1_counts_are_unbiased():
    # Lemma 1: (n1*, n2*) = A^-1 (n1 - n b/2, n2 - n b/2) estimates the counts of sampled
    # pairs (k, 1), (k, -1); E[n1*] = n f (1 + m) / (2 ell). Checked on the estimator's
    # unclipped parts: f_hat m_hat (= (n1* - n2*) ell / n) and f_hat (= (n1* + n2*) ell / n).
    n, runs = 4000, 500
    P = q.PCKV(D, 2.0, ELL, "grr")
    f, m = _truth()
    freqs, means, _ = _runs(P, n, runs, seed=11)
    diff = freqs * means  # ell (n1* - n2*) / n
    a, b, p = P.params["a"], P.params["b"], P.params["p"]
    # Var(n1 - n2) = n (q1 + q2 - (q1 - q2)^2), q1 - q2 = a (2p - 1) f m / ell
    delta = (a - b) * f / ELL
    d12 = a * (2 * p - 1) * f * m / ELL
    var_diff = ELL**2 * (b + delta - d12**2) / (n * (a * (2 * p - 1)) ** 2)
    for k in range(D):
        assert _in_mean_band(diff[:, k], f[k] * m[k], var_diff[k], ALPHA / (2 * D))
        ok, ratio = _in_variance_band(diff[:, k], var_diff[k], ALPHA / (2 * D))
        assert ok, (k, ratio)


def test_moments_closed_forms_pinned():
    # ell = 1, UE at eps1 = ln 3 (b = 1/4), eps2 = ln 3 (p = 3/4); n = 100, f = 1/2, m = 1/2:
    # delta = (1/2 - 1/4)/2 = 1/8, Var f = (3/8)(5/8) / (100/16) = 3/80
    # c = (1/4) / ((1/2)(1/2)) = 1, Var m = (3/8 + (1/4)(3/16 - 1/8)) / (100/64) = 0.25
    # bias m = (1 - 1/4 - 1/8)(1/4)(1/2) / (100/64) = 0.05
    eps1 = eps2 = math.log(3)
    P = q.PCKV(4, q.pckv_epsilon(eps1, eps2), 1, eps1=eps1, eps2=eps2)
    vf, vm = P.variance(100, 0.5, 0.5)
    assert math.isclose(vf, 3 / 80, rel_tol=1e-12) and math.isclose(vm, 0.25, rel_tol=1e-12)
    assert P.bias(100, 0.5, 0.5) == (0.0, pytest.approx(0.05, rel=1e-12))
    mf, mm = P.mse(100, 0.5, 0.5)
    assert math.isclose(mf, 3 / 80, rel_tol=1e-12) and math.isclose(mm, 0.25 + 0.05**2)
    # Eqs. (16)-(18): mu = 1/(100/4) = 0.04, g = (1/4)/((1/4)(1/4)) = 4, h = (3/16)/(1/16) = 3
    af, am = P.mse(100, 0.5, 0.5, approximate=True)
    assert math.isclose(af, 3 / 100, rel_tol=1e-12)
    assert math.isclose(am, 0.04 * (4 + 3 * 0.25), rel_tol=1e-12)


def test_moments_broadcast_and_bad_input():
    P = q.PCKV(3, 1.0)
    vf, vm = P.variance(100, [0.2, 0.5], 0.3)
    assert vf.shape == vm.shape == (2,)
    assert isinstance(P.variance(100, 0.2, 0.3)[0], float)
    with pytest.raises(ParameterError, match=r"f .* must lie in \(0, 1\]"):
        P.variance(100, 0.0, 0.3)
    with pytest.raises(ParameterError, match=r"m .* must lie in \[-1, 1\]"):
        P.bias(100, 0.5, 1.5)
    with pytest.raises(ParameterError, match="n"):
        P.mse(0, 0.5, 0.5)
    with pytest.raises(ParameterError, match="broadcastable"):
        P.variance(100, [0.2, 0.5], [0.1, 0.2, 0.3])
    with pytest.raises(InputTypeError, match="approximate"):
        P.mse(100, 0.5, 0.5, approximate="yes")
    with pytest.raises(ParameterError, match="finite"):
        P.variance(100, float("nan"), 0.0)


@pytest.mark.parametrize(("f", "m"), [(0.5, 1.0), (0.8, 0.8)])
def test_mean_bias_resolved_by_the_count_model(f, m):
    # Theorem 4's mean bias (1 - b - delta) b m / (n delta^2) is far below the protocol
    # runs' resolution above; here it is resolved (about 50 and 27 standard errors from
    # 0). The counts (n1, n2) of key 1 are multinomial with the per-user probabilities
    # read off the explicit channel (d = 3, ell = 1; a share f of users holds key 1 with
    # value 1 w.p. (1 + m)/2, the others hold nothing), and m_hat = c X / Y of Eq. (8).
    # The formula is the leading term in 1 / (n delta^2); at n delta^2 >= 90 the next
    # term is below the Monte Carlo band (measured: at n delta^2 = 5.6, f = 0.5, m = 1,
    # n = 1000 the bias is 0.0419 against 0.0356 stated).
    n, runs = 16_000, 2_000_000
    P = q.PCKV(3, 1.0, 1)
    a, b, p = P.params["a"], P.params["b"], P.params["p"]
    C = P.channel()
    prior = np.zeros(C.n_inputs)
    prior[C.inputs.index(())] = 1 - f
    prior[C.inputs.index(((1, 1),))] = f * (1 + m) / 2
    prior[C.inputs.index(((1, -1),))] = f * (1 - m) / 2
    out = prior @ C.matrix
    q1 = sum(w for y, w in zip(C.outputs, out, strict=True) if y[0] == 1)
    q2 = sum(w for y, w in zip(C.outputs, out, strict=True) if y[0] == -1)
    rng = np.random.default_rng(31415)
    c = (a - b) / (a * (2 * p - 1))
    total, total2 = 0.0, 0.0
    for _ in range(4):
        N = rng.multinomial(n, [q1, q2, 1 - q1 - q2], size=runs // 4)
        m_hat = c * (N[:, 0] - N[:, 1]) / (N[:, 0] + N[:, 1] - n * b)
        total += m_hat.sum()
        total2 += (m_hat * m_hat).sum()
    mean = total / runs
    var = total2 / runs - mean * mean
    bias_m = P.bias(n, f, m)[1]
    z = stats.norm.ppf(1 - ALPHA / 2)
    assert abs(mean - m - bias_m) <= z * math.sqrt(var / runs)
    assert abs(bias_m) > 20 * math.sqrt(var / runs)  # the bias is resolved, not just 0
