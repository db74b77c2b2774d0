"""Privacy profiles, worst-pair trade-off envelopes, their conversions, and Gaussian-DP mu.

Independent references: GRR's closed-form profile (derived below), a brute-force
hockey-stick over pairs in plain Python, the pair curves of ``tradeoff_curve``
evaluated on a dense grid, and Dong-Roth-Su's formula for randomized response.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import ParameterError

GRID = np.linspace(0.0, 1.0, 4001)


def grr_delta(k: float, eps: float, e: float) -> float:
    """GRR(k, eps), worst pair (x, x'). With p = e^eps / (e^eps + k - 1) and q = 1 / (...):
    y = x gives p - e^e q, y = x' gives q - e^e p <= 0, every other y q (1 - e^e) <= 0, so
    delta(e) = max(0, (e^eps - e^e) / (e^eps + k - 1)) (0 for e >= eps, e = inf included).
    """
    if math.isinf(e):
        return 0.0
    return max(0.0, (math.exp(eps) - math.exp(e)) / (math.exp(eps) + k - 1))


def brute_profile(M, e, pairs=None):
    """max over ordered pairs of Σ_y max(0, M[x, y] - e^e M[x', y]), plain Python loops."""
    k = len(M)
    pairs = pairs or [(x, y) for x in range(k) for y in range(k) if x != y]
    best = 0.0
    for x, y in pairs:
        for a, b in ((x, y), (y, x)):
            s = 0.0
            for u, v in zip(M[a], M[b], strict=True):
                if math.isinf(e):
                    s += u if v == 0 else 0.0
                else:
                    s += max(0.0, u - math.exp(e) * v)
            best = max(best, s)
    return best


def random_channel(seed, k=4, m=5, zeros=False):
    rng = np.random.default_rng(seed)
    M = rng.dirichlet(np.ones(m), size=k)
    if zeros:
        M[rng.random(M.shape) < 0.25] = 0.0
        M[:, 0] += M.sum(axis=1) == 0
        M /= M.sum(axis=1, keepdims=True)
    return q.Channel(M)


# ----------------------------------------------------------------------------------
# privacy_profile
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("k", "eps"), [(2, 1.0), (4, math.log(3)), (10, 2.5), (50, 0.3)])
def test_grr_profile_closed_form(k, eps):
    epss = [0.0, eps / 3, eps / 2, eps * 0.99, eps, eps + 1, 50.0, math.inf]
    expected = [grr_delta(k, eps, e) for e in epss]
    np.testing.assert_allclose(q.privacy_profile(q.grr(k, eps), epss), expected, atol=1e-15)
    # the symmetric GRR at k = 10^6 from the same closed form
    big = q.privacy_profile(sym.grr(10**6, eps), epss)
    np.testing.assert_allclose(big, [grr_delta(10**6, eps, e) for e in epss], rtol=1e-12, atol=0)


@pytest.mark.parametrize("seed", range(6))
def test_profile_matches_brute_force_hockey_stick(seed):
    C = random_channel(seed, zeros=seed % 2 == 1)
    epss = [0.0, 0.1, 0.5, 1.0, 2.0, 4.0, math.inf]
    M = C.matrix.tolist()
    expected = [brute_profile(M, e) for e in epss]
    np.testing.assert_allclose(q.privacy_profile(C, epss), expected, atol=1e-15)


def test_profile_shape_and_scalar():
    C = q.grr(3, 1.0)
    assert isinstance(q.privacy_profile(C, 0.5), float)
    out = q.privacy_profile(C, [[0.0, 0.5], [1.0, 2.0]])
    assert out.shape == (2, 2)
    assert out[1, 0] == 0.0 and out[1, 1] == 0.0


def test_profile_at_infinity_is_the_mass_ruled_out():
    # rows 0, 1: C[0] puts 0.5 on output 0 where C[1] is 0 (and vice versa 0.5 on output 2)
    C = q.Channel([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.25, 0.5, 0.25]])
    assert q.privacy_profile(C, math.inf) == 0.5
    # pairs (0, 2), (1, 2): C[2] puts 0.25 on output 2 where C[0] is 0 (and on 0 vs C[1])
    assert q.privacy_profile(C, math.inf, neighbors=[(0, 2), (1, 2)]) == 0.25
    D = q.Channel([[0.5, 0.5], [0.25, 0.75]])
    assert q.privacy_profile(D, math.inf) == 0.0


def test_profile_large_eps_without_overflow():
    # loss ln((1 - t) / t) = 690.78 for t = 1e-300; delta(e) = (1 - t) - e^e t below it
    t = 1e-300
    C = q.Channel([[1 - t, t], [t, 1 - t]])
    with np.errstate(all="raise"):
        d = q.privacy_profile(C, [600.0, 690.0, 691.0, 800.0, 1e6, math.inf])
    assert d[0] == pytest.approx(1.0 - math.exp(600.0 + math.log(t)), rel=1e-12)
    assert d[1] == pytest.approx(1.0 - math.exp(690.0 + math.log(t)), rel=1e-9)
    assert d[2:].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_profile_neighbors_restrict_pairs():
    # a 3-valued channel where the far pair (0, 2) is the worst
    C = q.Channel([[0.8, 0.1, 0.1], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]])
    epss = [0.0, 0.5, 1.0, 2.0]
    chain = [(0, 1), (1, 2)]
    got = q.privacy_profile(C, epss, neighbors=chain)
    M = C.matrix.tolist()
    np.testing.assert_allclose(got, [brute_profile(M, e, chain) for e in epss], atol=1e-15)
    assert np.all(got <= q.privacy_profile(C, epss))
    assert got[0] < q.privacy_profile(C, 0.0)
    assert q.privacy_profile(C, 1.0, neighbors=[]) == 0.0


def test_profile_bad_eps():
    with pytest.raises(ParameterError, match="epss must be >= 0"):
        q.privacy_profile(q.grr(3, 1.0), [-1.0])
    with pytest.raises(ParameterError, match="epss must be >= 0"):
        q.privacy_profile(q.grr(3, 1.0), float("nan"))


def test_profile_zero_from_true_epsilon_on():
    C = random_channel(11)
    e = q.ldp_epsilon(C)
    assert q.privacy_profile(C, e) == 0.0
    assert q.privacy_profile(C, e * (1 - 1e-6)) > 0.0


def test_composition_of_two_grrs_profile_by_enumeration():
    # C[x, (y1, y2)] = G1[x, y1] G2[x, y2], enumerated with GRR's closed-form entries
    k, e1, e2 = 3, 1.0, 0.5

    def g(e, x, y):
        return (math.exp(e) if x == y else 1.0) / (math.exp(e) + k - 1)

    M = [[g(e1, x, y1) * g(e2, x, y2) for y1 in range(k) for y2 in range(k)] for x in range(k)]
    epss = [0.0, 0.4, 0.9, 1.2, 1.5, 2.0]
    expected = [brute_profile(M, e) for e in epss]
    C = q.compose(q.grr(k, e1), q.grr(k, e2))
    np.testing.assert_allclose(q.privacy_profile(C, epss), expected, atol=1e-15)
    S = q.compose(sym.grr(k, e1), sym.grr(k, e2))
    np.testing.assert_allclose(q.privacy_profile(S, epss), expected, atol=1e-15)


# ----------------------------------------------------------------------------------
# trade-off envelope and the two conversions
# ----------------------------------------------------------------------------------
def pair_curves_min(C, pairs=None):
    k = C.n_inputs
    pairs = pairs or [(x, y) for x in range(k) for y in range(k) if x != y]
    vals = []
    for x, y in pairs:
        vals.append(q.tradeoff_value(C, GRID, x, y, exact=False))
        vals.append(q.tradeoff_value(C, GRID, y, x, exact=False))
    return np.min(vals, axis=0)


@pytest.mark.parametrize("seed", range(5))
def test_envelope_is_the_pointwise_min_of_pair_curves(seed):
    C = random_channel(seed, k=4, m=4, zeros=seed == 4)
    T = q.tradeoff_envelope(C)
    np.testing.assert_allclose(T(GRID), pair_curves_min(C), atol=1e-14)
    # symmetric: the inverse of T (swap the axes) is T itself
    inv = np.interp(GRID, np.array(T.betas)[::-1], np.array(T.alphas)[::-1])
    np.testing.assert_allclose(T(GRID)[GRID > T.betas[0]] * 0, 0)  # (domain check)
    inside = (GRID >= min(T.betas[1:])) & (GRID <= T.betas[0])
    np.testing.assert_allclose(inv[inside], T(GRID)[inside], atol=1e-12)


def test_envelope_neighbors():
    C = q.Channel([[0.8, 0.1, 0.1], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]])
    T = q.tradeoff_envelope(C, neighbors=[(0, 1), (1, 2)])
    np.testing.assert_allclose(T(GRID), pair_curves_min(C, [(0, 1), (1, 2)]), atol=1e-14)
    with pytest.raises(ParameterError, match="no pair"):
        q.tradeoff_envelope(C, neighbors=[])


@pytest.mark.parametrize("seed", range(6))
def test_profile_equals_tradeoff_route(seed):
    C = random_channel(seed, zeros=seed % 3 == 2)
    epss = np.r_[np.linspace(0.0, 5.0, 41), math.inf]
    direct = q.privacy_profile(C, epss)
    for convex in (False, True):
        via = q.profile_from_tradeoff(q.tradeoff_envelope(C, convex=convex), epss)
        np.testing.assert_allclose(via, direct, atol=1e-13)


def test_convex_envelope_is_a_convex_minorant():
    C = random_channel(2, k=5, m=4)
    T, H = q.tradeoff_envelope(C), q.tradeoff_envelope(C, convex=True)
    assert np.all(H(GRID) <= T(GRID) + 1e-15)
    slopes = np.diff(H.betas) / np.diff(H.alphas)
    assert np.all(np.diff(slopes) >= -1e-12)


def test_grr_round_trip_profile_to_tradeoff_exact():
    # GRR(k, eps) pair curve by hand: P = C[x0], Q = C[x1]; ratios Q/P are e^eps (y = x1),
    # 1 (k - 2 outputs), e^-eps (y = x0): vertices (0, 1), (q, 1 - p), ((k - 1) q, q), (1, 0)
    k, eps = 5, 1.2
    p = math.exp(eps) / (math.exp(eps) + k - 1)
    qq = 1 / (math.exp(eps) + k - 1)
    expected = [(0.0, 1.0), (qq, 1 - p), ((k - 1) * qq, qq), (1.0, 0.0)]
    T = q.tradeoff_envelope(q.grr(k, eps))
    np.testing.assert_allclose(np.array(T), expected, atol=1e-15)
    # the profile at the slopes' eps values (0 and eps) determines the curve exactly
    epss = [0.0, eps]
    back = q.tradeoff_from_profile(epss, [grr_delta(k, eps, e) for e in epss])
    np.testing.assert_allclose(np.array(back), expected, atol=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_profile_to_tradeoff_is_a_lower_bound_and_tight_on_fine_grids(seed):
    C = random_channel(seed)
    H = q.tradeoff_envelope(C, convex=True)
    coarse = np.linspace(0.0, 3.0, 7)
    Tc = q.tradeoff_from_profile(coarse, q.privacy_profile(C, coarse))
    assert np.all(Tc(GRID) <= H(GRID) + 1e-13)
    # with every segment's slope on the grid, the bound is the convex envelope itself
    slopes = -np.diff(H.betas) / np.diff(H.alphas)
    exact = np.unique(np.abs(np.log(slopes[slopes > 0])))
    Te = q.tradeoff_from_profile(exact, q.privacy_profile(C, exact))
    np.testing.assert_allclose(Te(GRID), H(GRID), atol=1e-12)


def test_tradeoff_from_profile_infinite_and_huge_eps():
    # the lines of eps = 1e4 and inf only bound T at alpha ~ 0 (a jump a continuous curve
    # cannot hold): the bound is the one of eps = 0 alone, 0.5 - alpha, still valid
    T = q.tradeoff_from_profile([0.0, 1e4, math.inf], [0.5, 0.25, 0.25])
    assert list(T) == [(0.0, 0.5), (0.5, 0.0), (1.0, 0.0)]
    # eps = 700 is kept: its line drops from 1 - delta to 0 within alpha = 0.75 e^-700
    T = q.tradeoff_from_profile([0.0, 700.0], [0.5, 0.25])
    assert T.betas[0] == 0.75 and T.alphas[1] == pytest.approx(0.25 * math.exp(-700.0))
    with pytest.raises(ParameterError, match="same length"):
        q.tradeoff_from_profile([0.0, 1.0], [0.5])
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        q.tradeoff_from_profile([0.0], [1.5])


# ----------------------------------------------------------------------------------
# Gaussian DP
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_gdp_mu_randomized_response_formula(eps):
    # Dong, Roth, Su (2022), Cor. 2.13: eps-DP randomized response is mu-GDP with
    # mu = -2 Φ^{-1}(1 / (1 + e^eps)), and no smaller mu
    a = 1 / (1 + math.exp(eps))
    C = q.Channel([[1 - a, a], [a, 1 - a]])
    assert q.gdp_mu(C) == pytest.approx(-2 * norm.ppf(a), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_gdp_mu_by_dense_grid_bisection(seed):
    # independent route: bisection on mu of min_alpha T(alpha) - G_mu(alpha) on a dense grid
    C = random_channel(seed, k=3, m=4)
    T = q.tradeoff_envelope(C)
    grid = np.linspace(1e-9, 1 - 1e-9, 200001)
    t = T(grid)
    z = norm.ppf(1 - grid)

    def ok(mu):
        return np.all(t >= norm.cdf(z - mu) - 1e-12)

    lo, hi = 0.0, 20.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    mu = q.gdp_mu(C)
    assert mu == pytest.approx(hi, abs=1e-4)
    assert ok(mu) and not ok(mu - 1e-3)


def test_gdp_mu_infinite_and_zero():
    assert q.gdp_mu(q.Channel([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])) == math.inf
    assert q.gdp_mu(q.Channel([[0.5, 0.5], [0.5, 0.5]])) == 0.0
    # symmetric channels and compositions at large k
    mu1 = q.gdp_mu(sym.grr(10**6, 1.0))
    assert mu1 == pytest.approx(q.gdp_mu(q.tradeoff_curve(sym.grr(10**6, 1.0))))
    assert q.gdp_mu(q.repeated(sym.grr(10**6, 1.0), 4)) > mu1


def test_envelope_size_guard(monkeypatch):
    import qifldp.profiles as prof
    from qifldp.errors import SizeError

    monkeypatch.setattr(prof, "MAX_ENVELOPE_ENTRIES", 10)
    with pytest.raises(SizeError, match="neighbors="):
        q.tradeoff_envelope(random_channel(0))
