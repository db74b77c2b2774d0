"""Summation with histogram encoding (SHE): its closed forms against independent values.

Provenance: the Bayes capacity against a direct two-dimensional quadrature of
max_x p_x(y) (k = 2) and a one-dimensional quadrature of E[max_i r(Y_i)] written from
scipy's Laplace law (k = 3, 50), and the Bayes attacker's success by Monte Carlo; the
privacy profile against a two-dimensional quadrature of (p - e^eps' q)_+; the binned
channel against a brute-force enumeration from scipy's Laplace CDF, THE's published
capacity (one cut at theta) and its enumerated Bayes capacity; the estimator's
variance 8 / (n eps^2) in a chi-square band.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import qifldp as q
from qifldp.errors import ParameterError, UnsupportedKindError
from qifldp.protocols.she import SHE, laplace_cell_masses
from tests.protocols._enumeration import assert_unbiased_with_variance, enumerate_she


def _lap(z, b):
    return math.exp(-abs(z) / b) / (2 * b)


def _plane(fn, b):
    """int over R^2 of fn(y0, y1), split at the kinks 0 and 1 of each coordinate."""
    edges = [-30 * b, 0.0, 1.0, 1 + 30 * b]
    return sum(
        integrate.dblquad(
            lambda y1, y0: fn(y0, y1), edges[i], edges[i + 1], edges[j], edges[j + 1], epsabs=1e-10
        )[0]
        for i in range(3)
        for j in range(3)
    )


def test_bayes_capacity_is_the_planar_integral_of_the_largest_density():
    eps = 1.0
    b = 2 / eps

    def top(y0, y1):
        return max(_lap(y0 - 1, b) * _lap(y1, b), _lap(y0, b) * _lap(y1 - 1, b))

    assert SHE(2, eps).closed_form.bayes_capacity() == pytest.approx(_plane(top, b), abs=1e-8)


@pytest.mark.parametrize(("k", "eps"), [(3, 2.0), (50, 0.7), (50, 6.0)])
def test_bayes_capacity_is_the_mean_largest_likelihood_ratio(k, eps):
    # ML = int r(t) d(F(t)^k): r the ratio of the shifted to the centred Laplace density
    law = stats.laplace(scale=2 / eps)

    def integrand(t):  # r(t) d(F^k) = (l(t - 1) / l(t)) k F(t)^(k-1) l(t) dt
        return law.pdf(t - 1) * k * law.cdf(t) ** (k - 1)

    tail = 60 * 2 / eps
    pieces = [(-tail, 0.0), (0.0, 1.0), (1.0, 1 + tail)]
    value = sum(integrate.quad(integrand, lo, hi, epsabs=1e-13)[0] for lo, hi in pieces)
    ml = SHE(k, eps).closed_form.bayes_capacity()
    assert ml == pytest.approx(value, rel=1e-9)
    assert 1 <= ml <= math.exp(eps / 2)  # the largest coordinate exceeds 1 as k grows


def test_attack_success_matches_the_capacity():
    P = SHE(5, 1.5)
    n = 200_000
    xs = np.random.default_rng(1).integers(0, 5, n)
    hit = float(np.mean(P.attack(P.sample(xs, rng=2), rng=3) == xs))
    asr = P.closed_form.asr()
    assert abs(hit - asr) <= 5 * math.sqrt(asr * (1 - asr) / n)


@pytest.mark.parametrize("eps_prime", [0.0, 1.3])
def test_privacy_profile_is_the_hockey_stick_integral(eps_prime):
    eps = 1.5
    b = 2 / eps

    def excess(y0, y1):  # value 0 against value 1, coordinates 0 and 1
        p = _lap(y0 - 1, b) * _lap(y1, b)
        return max(p - math.exp(eps_prime) * _lap(y0, b) * _lap(y1 - 1, b), 0.0)

    delta = SHE(4, eps).closed_form.privacy_profile(eps_prime)
    assert delta == pytest.approx(_plane(excess, b), abs=1e-8)


def test_true_eps_is_eps():
    cf = SHE(3, 2.0).closed_form
    assert cf.privacy_profile(2.0) == 0.0 and cf.privacy_profile(2.0 - 1e-6) > 0
    C = SHE(3, 2.0).channel(bins=1)  # cuts 0 and 1: y_x > 1 against y_x' <= 0
    assert q.ldp_epsilon(C) == pytest.approx(2.0, abs=1e-12)
    # post-processing: the binned channel's profile stays below SHE's, close at fine bins
    fine = SHE(2, 2.0).channel(bins=40)
    epss = np.array([0.0, 0.5, 1.5])
    binned = q.privacy_profile(fine, epss)
    exact = SHE(2, 2.0).closed_form.privacy_profile(epss)
    assert np.all(binned <= exact + 1e-12) and np.all(exact - binned < 2e-3)


@pytest.mark.parametrize(("k", "eps", "bins"), [(2, 1.0, 3), (3, 2.5, 2)])
def test_binned_channel_is_the_enumeration(k, eps, bins):
    cuts = np.linspace(0, 1, bins + 1)
    C = SHE(k, eps).channel(bins=bins)
    np.testing.assert_allclose(C.matrix, enumerate_she(k, eps, cuts), rtol=1e-12, atol=1e-15)
    cf = SHE(k, eps).closed_form
    assert cf.binned_bayes_capacity(bins=bins) == pytest.approx(q.bayes_capacity(C), rel=1e-12)


def test_one_cut_is_the():
    for k, eps, theta in ((3, 2.0, 0.75), (1000, 1.0, 0.6)):
        the = q.protocol("the", k, eps, theta).closed_form.bayes_capacity()
        she = SHE(k, eps).closed_form.binned_bayes_capacity(cuts=[theta])
        assert she == pytest.approx(the, rel=1e-12)


@pytest.mark.parametrize(("k", "eps"), [(2, 1.0), (7, 3.0), (10**5, 2.0)])
def test_discretisation_brackets_the_capacity(k, eps):
    cf = SHE(k, eps).closed_form
    ml = cf.bayes_capacity()
    widths = []
    for bins in (1, 10, 100, 1000):
        lo, hi = cf.bayes_capacity_bounds(bins=bins)
        assert lo <= ml + 1e-12 and ml <= hi + 1e-12
        widths.append(hi - lo)
    a = eps / 2
    assert widths[-1] == pytest.approx(math.exp(a) * -math.expm1(-2 * a / 1000), rel=1e-9)
    assert widths == sorted(widths, reverse=True)


def test_binned_capacity_with_a_cut_far_in_the_tail():
    # at eps = 30 the cell (50, inf) has mass e^-750 / 2 under 0 (below the float range):
    # its ratio Pr_1/Pr_0 is e^(eps/2) (r is constant beyond 1), never 0/0
    P = SHE(2, 30.0)
    cf = P.closed_form
    for cuts in ([0.5, 50.0], [-60.0, 0.5]):
        C = P.channel(cuts=cuts)
        np.testing.assert_allclose(C.matrix, enumerate_she(2, 30.0, cuts), rtol=1e-12, atol=1e-15)
        lo, hi = cf.bayes_capacity_bounds(cuts=cuts)
        assert math.isfinite(lo) and lo == pytest.approx(q.bayes_capacity(C), rel=1e-12)
        assert lo <= cf.bayes_capacity() <= hi


def test_sizes_and_scalars_refused():
    cf = SHE(3, 1.0).closed_form
    with pytest.raises(ParameterError, match="bins must be <= 1000000"):
        cf.binned_bayes_capacity(bins=10**12)  # not 7 TiB of cut points
    with pytest.raises(ParameterError, match="bins must be <= 1000000"):
        SHE(3, 1.0).channel(bins=10**9)
    with pytest.raises(ParameterError, match="MAX_BINS"):
        cf.discretisation_error(cuts=np.linspace(0, 1, 10**6 + 2))
    with pytest.raises(ParameterError, match="after the shift"):
        laplace_cell_masses([1e16, 1e16 + 2], 1.0, 1.0)
    with pytest.raises(ParameterError, match="a .* must be a finite number > 0"):
        laplace_cell_masses([0.0], 0.0, 0.0)
    with pytest.raises(ParameterError, match="shift must be finite"):
        laplace_cell_masses([0.0], math.inf, 1.0)
    with pytest.raises(ParameterError, match="epss"):
        cf.privacy_profile("a")


def test_estimator_unbiased_with_variance_in_band():
    P = SHE(4, 1.0)
    var, _, n = assert_unbiased_with_variance(P, [10, 5, 3, 2], reps=400, seed=5)
    assert var == pytest.approx(np.full(4, 8 / (n * 1.0**2)))


def test_refusals():
    with pytest.raises(ParameterError, match="eps must be in"):
        SHE(3, 0.0)
    with pytest.raises(ParameterError, match="strictly increasing"):
        SHE(3, 1.0).channel(cuts=[0.5, 0.2])
    with pytest.raises(ParameterError, match="bins or cuts"):
        SHE(3, 1.0).closed_form.binned_bayes_capacity(bins=2, cuts=[0.5])
    with pytest.raises(ParameterError, match="epss"):
        SHE(3, 1.0).closed_form.privacy_profile(-0.1)
    for call in (SHE(3, 1.0).symbolic, SHE(3, 1.0).symmetric, SHE(3, 1.0).support_probabilities):
        with pytest.raises(UnsupportedKindError):
            call()
    with pytest.raises(ParameterError, match=r"\(n, k = 3\)"):
        SHE(3, 1.0).estimate(np.zeros((2, 4)))
    assert q.protocol("summation-histogram-encoding", 3, 1.0) == SHE(3, 1.0)
