"""PCKV, the full protocol: allocation, client sampler and server estimators.

Expected values: (i) hand-derived closed forms of the allocation (comments) and the
explicit channels' ``ldp_epsilon``; (ii) the explicit channels ``pckv_ue`` /
``pckv_grr`` (an independent construction from the QIF operators) for the sampler's
output distribution, by a chi-square test at a fixed seed; (iii) Monte Carlo bands
from the empirical standard error for the unbiasedness of the estimators.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError

EPSS = [0.05, 0.5, 1.0, 2.0, 5.0, 20.0]
ELLS = [1, 2, 3, 7]


# --- allocation ---------------------------------------------------------------------------


@pytest.mark.parametrize("eps", EPSS)
@pytest.mark.parametrize("ell", ELLS)
@pytest.mark.parametrize("mechanism", ["ue", "grr"])
def test_allocation_composes_to_eps(eps, ell, mechanism):
    eps1, eps2 = q.pckv_allocation(eps, ell, mechanism)
    assert 0 < eps1 <= eps2 + 1e-15
    assert math.isclose(q.pckv_epsilon(eps1, eps2, ell, mechanism), eps, rel_tol=1e-12)


@pytest.mark.parametrize("eps", EPSS)
def test_ue_allocation_closed_form(eps):
    # Lemma 2: theta = (e^eps + 1) / 2, eps1 = ln(theta), eps2 = eps.
    eps1, eps2 = q.pckv_allocation(eps, ell=4)
    assert eps2 == eps
    assert math.isclose(eps1, math.log((math.exp(eps) + 1) / 2), rel_tol=1e-13)


@pytest.mark.parametrize("eps", EPSS)
@pytest.mark.parametrize("ell", ELLS)
def test_grr_allocation_closed_form(eps, ell):
    # kink of Theorem 3: e^eps1 = (1 + e^eps2)/2 and e^eps = (ell - 1 + e^eps2) / ell
    eps1, eps2 = q.pckv_allocation(eps, ell, "grr")
    assert math.isclose(math.exp(eps2), ell * (math.exp(eps) - 1) + 1, rel_tol=1e-12)
    assert math.isclose(math.exp(eps1), (1 + math.exp(eps2)) / 2, rel_tol=1e-12)
    if ell == 1:  # Theorem 3 is Theorem 2 at ell = 1: the same split
        assert np.allclose((eps1, eps2), q.pckv_allocation(eps), rtol=1e-13)


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
@pytest.mark.parametrize(("mechanism", "d", "ell"), [("ue", 2, 1), ("ue", 2, 2), ("grr", 2, 2)])
def test_allocation_is_the_explicit_channels_eps(eps, mechanism, d, ell):
    # the truth is ldp_epsilon of the explicit channel (d >= ell, where Thm 2 is exact)
    P = q.PCKV(d, eps, ell, mechanism)
    assert math.isclose(q.ldp_epsilon(P.channel()), eps, rel_tol=1e-9)


def _mse_coefficients(eps1, eps2, a=0.5):
    """(g, h) of MSE(m_k) ~ mu (g + h m_k^2), mu = ell^2 / (n f_k^2), for PCKV-UE.

    Eqs. (16)-(18) are not legible in the paper; derived here by the delta method for
    delta = (a - b) f_k / ell << 1: Var(n1 - n2) ~ n b (fake values), so the numerator
    ell (n1 - n2) / (n a (2p - 1)) has variance ell^2 b / (n a^2 (2p - 1)^2), and
    Var(f_k) ~ ell^2 b (1 - b) / (n (a - b)^2) enters with weight m_k^2. As the text
    says of h, it depends on eps1 only and decreases with it.
    """
    b = 1 / (math.exp(eps1) + 1)
    p = 1 / (1 + math.exp(-eps2))
    return b / (a * a * (2 * p - 1) ** 2), b * (1 - b) / (a - b) ** 2


@pytest.mark.parametrize("eps", EPSS[:-1])
def test_allocation_beats_the_naive_split(eps):
    # PrivKVM's eps1 = eps2 = eps/2 composes (Thm 2) to less than eps, and is worse
    assert q.pckv_epsilon(eps / 2, eps / 2) < eps
    g, h = _mse_coefficients(*q.pckv_allocation(eps))
    g_naive, h_naive = _mse_coefficients(eps / 2, eps / 2)
    assert g < g_naive and h < h_naive


def _family_4(eps, thetas):
    """Eq. (4): eps1 = ln(theta), eps2 = -ln(2 theta e^-eps - 1), theta in [(e^eps+1)/2, e^eps)."""
    return np.log(thetas), -np.log(2 * thetas * math.exp(-eps) - 1)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("m", [0.0, 0.5])
def test_ue_allocation_is_the_numeric_minimiser(eps, m):
    lo = (math.exp(eps) + 1) / 2
    thetas = np.linspace(lo, math.exp(eps), 4001)[:-1]
    eps1s, eps2s = _family_4(eps, thetas)
    for e1, e2 in zip(eps1s, eps2s, strict=True):  # every member of (4) spends exactly eps
        assert math.isclose(q.pckv_epsilon(e1, e2), eps, rel_tol=1e-9)
    values = [
        _mse_coefficients(e1, e2)[0] + m * m * _mse_coefficients(e1, e2)[1]
        for e1, e2 in zip(eps1s, eps2s, strict=True)
    ]
    assert int(np.argmin(values)) == 0  # theta = (e^eps + 1)/2: Lemma 2
    assert np.allclose(_family_4(eps, np.array([lo])), np.array(q.pckv_allocation(eps))[:, None])


def test_ue_allocation_is_not_the_minimiser_for_extreme_means_at_small_eps():
    # an observation on the delta-method approximation above: for |m_k| = 1 and small
    # eps the h m^2 term (decreasing in eps1) moves the minimum inside (4)
    eps = 0.1
    thetas = np.linspace((math.exp(eps) + 1) / 2, math.exp(eps), 4001)[:-1]
    values = [
        sum(_mse_coefficients(e1, e2)) for e1, e2 in zip(*_family_4(eps, thetas), strict=True)
    ]
    assert 0 < int(np.argmin(values)) and min(values) < 0.98 * values[0]


# --- channel ------------------------------------------------------------------------------


@pytest.mark.parametrize(("mechanism", "d", "ell"), [("ue", 2, 1), ("ue", 3, 2), ("grr", 3, 2)])
def test_channel_is_the_explicit_channel(mechanism, d, ell):
    P = q.PCKV(d, 1.3, ell, mechanism)
    build = q.pckv_ue if mechanism == "ue" else q.pckv_grr
    C = build(d, P.eps1, P.eps2, ell)
    assert P.channel() == C
    assert np.array_equal(P.channel().matrix, C.matrix)


# --- sampler against the channel ----------------------------------------------------------


def _column_index(P, reports):
    """Each report's column in the explicit channel."""
    C = P.channel()
    column = {label: c for c, label in enumerate(C.outputs)}
    if P.mechanism == "ue":
        return np.array([column[tuple(int(x) for x in r)] for r in reports])
    return np.array([column[(int(r[0]), int(r[1]))] for r in reports])


def _row(P, S):
    C = P.channel()
    return C.matrix[C.inputs.index(tuple(sorted(S.items())))]


def _chi_square_pvalue(P, S, expected, n, seed):
    reports = P.sample([S] * n, rng=seed)
    counts = np.bincount(_column_index(P, reports), minlength=expected.size)
    assert counts[expected == 0].sum() == 0  # never an impossible report
    keep = expected > 0
    return stats.chisquare(counts[keep], n * expected[keep]).pvalue


CASES = [
    ("ue", 2, 1, {}),
    ("ue", 2, 1, {2: -1.0}),
    ("ue", 2, 2, {1: 1.0, 2: -1.0}),
    ("ue", 2, 2, {1: 1.0}),
    ("grr", 3, 2, {}),
    ("grr", 3, 2, {3: 1.0}),
    ("grr", 3, 2, {1: -1.0, 3: 1.0}),
]


@pytest.mark.parametrize(("mechanism", "d", "ell", "S"), CASES)
def test_sampler_matches_channel_row(mechanism, d, ell, S):
    P = q.PCKV(d, 1.0, ell, mechanism)
    assert _chi_square_pvalue(P, S, _row(P, S), 40_000, seed=12345) > 1e-4


@pytest.mark.parametrize("mechanism", ["ue", "grr"])
def test_sampler_discretises_values_unbiasedly(mechanism):
    # v* = 0.4 -> 1 w.p. 0.7, -1 w.p. 0.3 (E[v] = v*): a mixture of two channel rows
    P = q.PCKV(2, 1.0, 1, mechanism)
    expected = 0.7 * _row(P, {1: 1.0}) + 0.3 * _row(P, {1: -1.0})
    assert _chi_square_pvalue(P, {1: 0.4}, expected, 40_000, seed=7) > 1e-4


@pytest.mark.parametrize("mechanism", ["ue", "grr"])
def test_sampler_with_more_pairs_than_ell(mechanism):
    # |S| = 3 > ell = 1: eta = 1, one of S's pairs uniformly
    P = q.PCKV(3, 1.0, 1, mechanism)
    S = {1: 1.0, 2: -1.0, 3: 1.0}
    expected = sum(_row(P, {k: v}) for k, v in S.items()) / 3
    assert _chi_square_pvalue(P, S, expected, 40_000, seed=99) > 1e-4


# --- estimators ---------------------------------------------------------------------------


def _population(d, ell, n, seed):
    """n users, each with at most ell pairs; keys 1..d, values uniform in [-1, 1]."""
    rng = np.random.default_rng(seed)
    data = []
    for _ in range(n):
        size = int(rng.integers(0, ell + 1))
        keys = rng.choice(np.arange(1, d + 1), size=size, replace=False)
        data.append({int(k): float(rng.uniform(-1, 1)) for k in keys})
    f = np.array([sum(k in u for u in data) for k in range(1, d + 1)]) / n
    s = np.array([sum(u.get(k, 0.0) for u in data) for k in range(1, d + 1)]) / n
    return data, f, s  # s_k = f_k * (mean value of key k)


@pytest.mark.parametrize("mechanism", ["ue", "grr"])
def test_uncorrected_estimators_are_unbiased(mechanism):
    d, ell, n, runs = 4, 2, 1500, 300
    data, f, s = _population(d, ell, n, seed=1)
    P = q.PCKV(d, 2.0, ell, mechanism)
    a, p = P.params["a"], P.params["p"]
    rng = np.random.default_rng(2024)
    freqs, sums = [], []
    for _ in range(runs):
        reports = P.sample(data, rng=rng)
        fk, mk = P.estimate(reports, correct=False)
        freqs.append(fk)
        sums.append(fk * mk)  # = ell (n1 - n2) / (n a (2p - 1)): unbiased for f_k m_k
        n1n2 = P._counts(reports)
        assert np.allclose(fk * mk, ell * (n1n2[1] - n1n2[2]) / (n * a * (2 * p - 1)))
    for estimates, truth in ((np.array(freqs), f), (np.array(sums), s)):
        se = estimates.std(axis=0, ddof=1) / math.sqrt(runs)
        assert np.all(np.abs(estimates.mean(axis=0) - truth) < 4.0 * se)


@pytest.mark.parametrize("mechanism", ["ue", "grr"])
def test_corrected_estimates_are_in_range(mechanism):
    d, ell, n = 5, 2, 30
    data, _, _ = _population(d, ell, n, seed=3)
    P = q.PCKV(d, 0.5, ell, mechanism)
    rng = np.random.default_rng(5)
    raw_out = 0
    for _ in range(50):
        reports = P.sample(data, rng=rng)
        f_raw, _ = P.estimate(reports, correct=False)
        raw_out += int(np.any((f_raw < 1 / n) | (f_raw > 1)))
        fk, mk = P.estimate(reports)
        assert np.all((fk >= 1 / n) & (fk <= 1)) and np.all((mk >= -1) & (mk <= 1))
        assert np.all(np.isfinite(mk))
    assert raw_out > 0  # the correction had something to do


def test_noiseless_limit_recovers_the_data():
    # eps large: a -> 1 (GRR), b -> 0, p -> 1; values ±1 are kept exactly
    data = [{1: 1.0}, {1: -1.0, 2: 1.0}, {2: 1.0}, {}]
    P = q.PCKV(3, 60.0, 2, "grr")
    f, m = P.estimate(P.sample(data * 500, rng=0))
    assert np.allclose(f, [0.5, 0.5, 1 / 2000], atol=0.05)
    assert np.allclose(m[:2], [0.0, 1.0], atol=0.1)


# --- object and bad input -----------------------------------------------------------------


def test_frozen_equal_hashable():
    P = q.PCKV(3, 1.0)
    assert P == q.PCKV(3, 1.0) and hash(P) == hash(q.PCKV(3, 1.0))
    assert P != q.PCKV(3, 1.0, mechanism="grr")
    with pytest.raises(AttributeError):
        P.eps = 2.0  # type: ignore[misc]


def test_explicit_budgets():
    P = q.PCKV(3, 1.0, eps1=0.3, eps2=0.5)
    assert (P.eps1, P.eps2) == (0.3, 0.5)
    with pytest.raises(ParameterError, match="compose"):
        q.PCKV(3, 1.0, eps1=1.0, eps2=1.0)
    with pytest.raises(ParameterError, match="together"):
        q.PCKV(3, 1.0, eps1=0.3)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: q.pckv_allocation(0.0), ParameterError, "eps must be > 0"),
        (lambda: q.pckv_allocation(float("nan")), ParameterError, "eps"),
        (lambda: q.pckv_allocation(1.0, 0), ParameterError, "ell"),
        (lambda: q.pckv_allocation(1.0, 1, "oue"), ParameterError, "mechanism"),
        (lambda: q.pckv_allocation(1.0, 1, 3), InputTypeError, "mechanism"),
        (lambda: q.PCKV(0, 1.0), ParameterError, "d"),
        (lambda: q.PCKV(3, 1.0).sample([{4: 0.5}]), ParameterError, "keys"),
        (lambda: q.PCKV(3, 1.0).sample([{1: 1.5}]), ParameterError, r"\[-1, 1\]"),
        (lambda: q.PCKV(3, 1.0).sample([{1: float("nan")}]), ParameterError, "values"),
        (lambda: q.PCKV(3, 1.0).sample([{1.0: 0.5}]), InputTypeError, "keys"),
        (lambda: q.PCKV(3, 1.0).sample([[1, 0.5]]), InputTypeError, "dict"),
        (lambda: q.PCKV(3, 1.0).sample([]), ParameterError, "user"),
        (lambda: q.PCKV(3, 1.0).estimate(np.zeros((2, 3))), ParameterError, "shape"),
        (lambda: q.PCKV(3, 1.0).estimate(np.full((2, 4), 2)), ParameterError, "entries"),
        (lambda: q.PCKV(3, 1.0, mechanism="grr").estimate([[9, 1]]), ParameterError, "key"),
        (lambda: q.PCKV(3, 1.0).estimate(np.full((2, 4), 0.5)), InputTypeError, "integer"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_reports_labels_are_channel_outputs():
    P = q.PCKV(2, 1.0, 2)
    reports = P.sample([{1: 0.2}, {}], rng=1)
    outputs = set(P.channel().outputs)
    assert all(tuple(int(x) for x in r) in outputs for r in reports)
    assert set(itertools.chain.from_iterable(reports.tolist())) <= {1, -1, 0}
