"""Attacks: empirical success against asr / Bayes vulnerability of the explicit channels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp import formulas
from qifldp.errors import InputTypeError, ParameterError, PriorError
from qifldp.simulation import (
    EmpiricalRate,
    attack_grr,
    attack_lh,
    attack_ss,
    attack_the,
    attack_ue,
    bayes_attack,
    empirical_asr,
    sample,
    sample_grr,
    sample_lh,
    sample_oue,
    sample_ss,
    sample_sue,
    sample_the,
    simulate_attack,
    universal_lh_channel,
)

from ._helpers import assert_gof, assert_rate


def _population(prior, n: int) -> np.ndarray:
    """A fixed population: round(n * prior_x) users with value x, shuffled."""
    counts = np.round(np.asarray(prior) * n).astype(int)
    xs = np.repeat(np.arange(len(prior)), counts)
    np.random.default_rng(0).shuffle(xs)
    return xs


def _pd_expected(C: q.Channel, prior) -> float:
    """Expected success of the plausible-deniability attacker under ``prior``, by
    enumeration: guess uniformly in S(y) = argmax_x C[x, y] (the uniform-prior posterior
    maxima), so success = sum_x prior_x sum_y C[x, y] [x in S(y)] / |S(y)|."""
    M = C.matrix
    top = M.max(axis=0)
    S = M >= top * (1 - 1e-12)
    return float(np.sum(np.asarray(prior)[:, None] * M * S / S.sum(axis=0)))


CHANNELS = {
    "grr": lambda: q.grr(4, 1.0),
    "grr-eps0": lambda: q.grr(3, 0.0),
    "ss": lambda: q.subset_selection(5, 1.0, 2),
    "lh": lambda: q.local_hashing(3, 1.0, 2),
    "oue": lambda: q.oue(4, 1.0),
    "the": lambda: q.the(3, 1.0, 0.7),
    "random": lambda: q.Channel(
        (lambda M: M / M.sum(axis=1, keepdims=True))(np.random.default_rng(5).random((4, 7)))
    ),
    "ties": lambda: q.Channel([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25], [0.25, 0.25, 0.5]]),
}


# ---------------------------------------------------------------------------------------
# Bayes-optimal attacker on any channel
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_bayes_attack_achieves_asr(name):
    C = CHANNELS[name]()
    n = 40_000
    xs = _population(np.full(C.n_inputs, 1 / C.n_inputs), n)
    rng = np.random.default_rng(21)
    guesses = bayes_attack(C, sample(C, xs, rng), rng=rng)
    assert_rate(empirical_asr(xs, guesses).rate, q.asr(C), xs.size)


@pytest.mark.parametrize("name", ["grr", "ss", "oue", "random", "ties"])
def test_bayes_attack_with_prior_achieves_bayes_vulnerability(name):
    C = CHANNELS[name]()
    k = C.n_inputs
    prior = np.arange(1, k + 1, dtype=float) ** 2
    prior /= prior.sum()
    xs = _population(prior, 40_000)
    pop_prior = np.bincount(xs, minlength=k) / xs.size  # the population's exact frequencies
    rng = np.random.default_rng(22)
    guesses = bayes_attack(C, sample(C, xs, rng), pop_prior, rng)
    assert_rate(empirical_asr(xs, guesses).rate, q.bayes_vulnerability(C, pop_prior), xs.size)


def test_bayes_attack_breaks_ties_uniformly_and_only_among_maxima():
    # column 0: inputs 0 and 1 tie at 0.5; column 1: input 0 alone; column 2: input 2 alone
    C = q.Channel([[0.5, 0.5, 0.0], [0.5, 0.25, 0.25], [0.25, 0.25, 0.5]])
    rng = np.random.default_rng(23)
    g0 = bayes_attack(C, np.zeros(20_000, dtype=int), rng=rng)
    assert set(np.unique(g0)) == {0, 1}
    assert_gof(np.bincount(g0, minlength=2), [0.5, 0.5])
    assert np.all(bayes_attack(C, np.ones(100, dtype=int), rng=rng) == 0)
    # identical rows: every input ties, guesses uniform over the 3 inputs
    flat = q.Channel(np.full((3, 2), 0.5))
    g = bayes_attack(flat, rng.integers(0, 2, 30_000), rng=rng)
    assert_gof(np.bincount(g, minlength=3), np.full(3, 1 / 3))
    # a prior breaks the tie of column 0 in favour of input 1
    assert np.all(bayes_attack(C, [0, 0, 0], prior=[0.3, 0.4, 0.3], rng=rng) == 1)


def test_simulate_attack_with_and_without_the_prior():
    C = q.subset_selection(5, 1.0, 2)
    prior = np.array([0.4, 0.3, 0.15, 0.1, 0.05])
    n = 60_000
    r = simulate_attack(C, n, prior, rng=24)
    # users drawn i.i.d. from the prior: the rate is a Bernoulli mean with variance V(1-V)/n
    assert_rate(r.rate, q.bayes_vulnerability(C, prior), n)
    # an attacker who ignores the prior guesses like the plausible-deniability attacker
    r0 = simulate_attack(C, n, prior, rng=25, attacker_prior=None)
    assert_rate(r0.rate, _pd_expected(C, prior), n)
    assert _pd_expected(C, prior) < q.bayes_vulnerability(C, prior)


# ---------------------------------------------------------------------------------------
# plausible-deniability attackers on the fast samplers vs the explicit channels
# ---------------------------------------------------------------------------------------
N_USERS = 60_000

PD_CASES = {
    "grr": (
        lambda: q.grr(5, 1.2),
        lambda xs, r: attack_grr(sample_grr(xs, 5, 1.2, r)),
    ),
    "grr-eps0": (
        lambda: q.grr(4, 0.0),
        lambda xs, r: attack_grr(sample_grr(xs, 4, 0.0, r)),
    ),
    "ss": (
        lambda: q.subset_selection(6, 1.0, 2),
        lambda xs, r: attack_ss(sample_ss(xs, 6, 1.0, 2, r), r),
    ),
    "ss-membership": (
        lambda: q.subset_selection(6, 1.0, 3),
        lambda xs, r: attack_ss(sample_ss(xs, 6, 1.0, 3, r, output="membership"), r),
    ),
    "lh-uniform": (
        lambda: q.local_hashing(4, 1.5, 2),
        lambda xs, r: attack_lh(sample_lh(xs, 4, 1.5, 2, r, hash="uniform"), r),
    ),
    "lh-universal": (
        lambda: universal_lh_channel(4, 1.5, 3, 7),
        lambda xs, r: attack_lh(sample_lh(xs, 4, 1.5, 3, r, prime=7), r),
    ),
    "sue": (
        lambda: q.sue(4, 2.0),
        lambda xs, r: attack_ue(sample_sue(xs, 4, 2.0, r), r),
    ),
    "oue": (
        lambda: q.oue(5, 1.0),
        lambda xs, r: attack_ue(sample_oue(xs, 5, 1.0, r), r),
    ),
    "the": (
        lambda: q.the(4, 1.0, 0.8),
        lambda xs, r: attack_the(sample_the(xs, 4, 1.0, 0.8, r), r),
    ),
}


@pytest.mark.parametrize("name", sorted(PD_CASES))
def test_plausible_deniability_attack_achieves_asr(name):
    # uniform population: the literature's attacker is Bayes-optimal, so its success is
    # asr(C) of the explicit channel (qifldp.mechanisms, enumeration)
    channel, attack = PD_CASES[name]
    C = channel()
    xs = _population(np.full(C.n_inputs, 1 / C.n_inputs), N_USERS)
    rng = np.random.default_rng(31)
    assert_rate(empirical_asr(xs, attack(xs, rng)).rate, q.asr(C), xs.size)


@pytest.mark.parametrize("name", ["grr", "ss", "oue", "the", "lh-uniform"])
def test_plausible_deniability_attack_under_a_prior(name):
    # a skewed population: the attacker still guesses as under a uniform prior; its
    # expected success is enumerated from the channel (and is below V1[prior > C])
    channel, attack = PD_CASES[name]
    C = channel()
    k = C.n_inputs
    prior = np.linspace(1.0, 3.0, k)
    prior /= prior.sum()
    xs = _population(prior, N_USERS)
    pop = np.bincount(xs, minlength=k) / xs.size
    rng = np.random.default_rng(32)
    assert_rate(empirical_asr(xs, attack(xs, rng)).rate, _pd_expected(C, pop), xs.size)
    assert _pd_expected(C, pop) <= q.bayes_vulnerability(C, pop) + 1e-12


@pytest.mark.parametrize(
    "expected, attack",
    [
        (lambda: formulas.asr_grr(100, 2.0), lambda xs, r: attack_grr(sample_grr(xs, 100, 2.0, r))),
        (
            lambda: formulas.asr_ss(100, 2.0, 12),
            lambda xs, r: attack_ss(sample_ss(xs, 100, 2.0, 12, r), r),
        ),
        (
            lambda: formulas.asr_oue(100, 2.0),
            lambda xs, r: attack_ue(sample_oue(xs, 100, 2.0, r), r),
        ),
        (
            lambda: formulas.asr_sue(100, 2.0),
            lambda xs, r: attack_ue(sample_sue(xs, 100, 2.0, r), r),
        ),
        (
            lambda: formulas.asr_the(100, 2.0, 0.7),
            lambda xs, r: attack_the(sample_the(xs, 100, 2.0, 0.7, r), r),
        ),
        (
            lambda: formulas.asr_lh(100, 2.0, 8),
            lambda xs, r: attack_lh(sample_lh(xs, 100, 2.0, 8, r, hash="uniform"), r),
        ),
    ],
    ids=["grr", "ss", "oue", "sue", "the", "lh-uniform"],
)
def test_attacks_at_k100_match_the_closed_forms(expected, attack):
    # k = 100 is far beyond enumeration for UE/THE/LH; the closed forms of
    # qifldp.formulas (checked against enumeration for small k) are the reference
    n = 50_000
    xs = np.arange(n) % 100
    rng = np.random.default_rng(33)
    assert_rate(empirical_asr(xs, attack(xs, rng)).rate, float(expected()), n)


# ---------------------------------------------------------------------------------------
# EmpiricalRate and validation
# ---------------------------------------------------------------------------------------
def test_empirical_rate_interval_matches_scipy_wilson():
    for s, n in [(81, 263), (0, 10), (10, 10), (500, 1000)]:
        r = EmpiricalRate(s, n)
        ci = stats.binomtest(s, n).proportion_ci(0.95, method="wilson")
        lo, hi = r.interval(stats.norm.ppf(0.975))
        assert lo == pytest.approx(ci.low, abs=1e-9) and hi == pytest.approx(ci.high, abs=1e-9)
    assert float(EmpiricalRate(3, 4)) == 0.75
    assert EmpiricalRate(3, 4).stderr == pytest.approx(np.sqrt(0.75 * 0.25 / 4))


def test_attack_validation():
    C = q.grr(3, 1.0)
    with pytest.raises(ParameterError, match="ys must lie in 0..2"):
        bayes_attack(C, [3])
    with pytest.raises(PriorError):
        bayes_attack(C, [0], prior=[0.5, 0.5])
    with pytest.raises(ParameterError, match="same length"):
        empirical_asr([0, 1], [0])
    with pytest.raises(ParameterError, match="must not be empty"):
        empirical_asr([], [])
    with pytest.raises(ParameterError, match="1-D integer"):
        attack_grr(np.array([[0, 1]]))
    with pytest.raises(ParameterError, match="SS reports"):
        attack_ss(np.array([0, 1]))
    with pytest.raises(InputTypeError, match="SS subsets must be integers"):
        attack_ss(np.array([[0.5, 1.0]]))
    with pytest.raises(InputTypeError, match="boolean"):
        attack_ue(np.array([[0.5, 1.0]]))
    with pytest.raises(InputTypeError, match="LHReports"):
        attack_lh(np.array([0, 1]))
    with pytest.raises(ParameterError, match="n must be >= 1"):
        simulate_attack(C, 0)


def test_ue_attack_guesses_a_set_bit_or_anything():
    rng = np.random.default_rng(41)
    bits = np.zeros((30_000, 3), dtype=bool)
    bits[:10_000, [0, 2]] = True  # two set bits: uniform between 0 and 2
    bits[10_000:20_000, 1] = True  # one set bit: always 1
    g = attack_ue(bits, rng)  # last 10 000 rows: no bit set, uniform over 0..2
    assert set(np.unique(g[:10_000])) == {0, 2}
    assert_gof(np.bincount(g[:10_000], minlength=3)[[0, 2]], [0.5, 0.5])
    assert np.all(g[10_000:20_000] == 1)
    assert_gof(np.bincount(g[20_000:], minlength=3), np.full(3, 1 / 3))
