"""Attribute inference at the paper's sizes: the lumped exact accuracy and trained classifiers.

Expectations: the plain enumeration of test_rsfd at small ks (the lumping actually
merging values: marginals with repeated probabilities, RS+RFD priors); at
ks = (74, 7, 16) (UE: 2^97 reports) a Monte Carlo of the Bayes rule computed here
per report from its bits, without lumping (L_j = Σ_v m(v) t_v / Σ_v pi(v) t_v with
t_v = p/q or (1-p)/(1-q) by bit v), within a binomial band; classifiers bounded by
the exact value within their Monte Carlo band.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, SizeError

from .test_rsfd import _aia_by_enumeration

PAPER_KS = (74, 7, 16)
UE = ("sue-z", "oue-z", "sue-r", "oue-r")


def _grouped(k, rng, levels=3):
    """A skewed marginal taking `levels` distinct values (so UE lumps into few classes)."""
    cut = np.sort(rng.choice(np.arange(1, k), size=min(levels, k) - 1, replace=False))
    sizes = np.diff(np.concatenate([[0], cut, [k]]))
    weights = rng.random(len(sizes)) + 0.1
    m = np.repeat(weights, sizes)
    return m / m.sum()


@pytest.mark.parametrize("randomizer", UE + ("grr",))
@pytest.mark.parametrize("rfd", [False, True])
def test_lumped_equals_enumeration_with_merged_classes(randomizer, rfd):
    if rfd and randomizer.endswith("-z"):
        pytest.skip("RS+RFD has no zero-vector variant")
    ks = (4, 3, 2)
    rng = np.random.default_rng(17)
    for _ in range(2):
        marg = [np.array([0.3, 0.3, 0.2, 0.2]), np.array([0.5, 0.25, 0.25]), np.array([0.5, 0.5])]
        pop = np.einsum("a,b,c->abc", *marg).ravel()
        eps = float(rng.uniform(0.3, 3.0))
        if rfd:
            priors = [
                np.array([0.1, 0.1, 0.4, 0.4]),
                np.array([0.2, 0.2, 0.6]),
                np.array([0.7, 0.3]),
            ]
            P = q.rsrfd(ks, eps, priors, randomizer)
        else:
            P = q.rsfd(ks, eps, randomizer)
        want = _aia_by_enumeration(P, pop)
        assert q.attribute_inference_accuracy(P, prior=pop) == pytest.approx(want, abs=1e-12)
        got = q.attribute_inference_accuracy(P, marginals=marg)
        assert got == pytest.approx(want, abs=1e-12)


def _bayes_rule_monte_carlo(P, marg, n, seed):
    """Accuracy of argmax_j L_j(y_j), L_j computed from the bits (no lumping)."""
    rng = np.random.default_rng(seed)
    xs = np.stack([rng.choice(k, size=n, p=m) for k, m in zip(P.ks, marg, strict=True)], axis=1)
    reports, sampled = P.sample(xs, rng, return_sampled=True)
    scores = []
    for j, bits in enumerate(reports):
        p, qq = P._oracles[j].params["p"], P._oracles[j].params["q"]
        t = np.where(bits, p / qq, (1 - p) / (1 - qq))  # per bit: R(v, y) / Q(y)
        honest = t @ marg[j]
        fake = np.ones(n) if P.randomizer.endswith("-z") else t @ P.priors[j]
        scores.append(honest / fake)
    guess = np.argmax(np.stack(scores, axis=1), axis=1)
    return float(np.mean(guess == sampled))


@pytest.mark.parametrize("randomizer", UE)
@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_paper_sizes_exact_against_the_bayes_rule_by_monte_carlo(randomizer, eps):
    rng = np.random.default_rng(5)
    marg = [_grouped(k, rng) for k in PAPER_KS]
    P = q.rsfd(PAPER_KS, eps, randomizer)
    exact = q.attribute_inference_accuracy(P, marginals=marg)
    n = 60_000
    mc = _bayes_rule_monte_carlo(P, marg, n, seed=7)
    assert abs(mc - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / n), (mc, exact)
    assert 1 / 3 < exact < 1


def test_paper_sizes_uniform_population_values():
    # Uniform population: UE-r and GRR are blind (honest and fake reports share one
    # law); UE-z is not (the fake is the zero vector perturbed).
    for r in ("grr", "sue-r", "oue-r"):
        v = q.attribute_inference_accuracy(q.rsfd(PAPER_KS, 2.0, r))
        assert v == pytest.approx(1 / 3, abs=1e-12)
    for r in ("sue-z", "oue-z"):
        P = q.rsfd(PAPER_KS, 2.0, r)
        exact = q.attribute_inference_accuracy(P)
        n = 60_000
        mc = _bayes_rule_monte_carlo(P, [np.full(k, 1 / k) for k in PAPER_KS], n, seed=3)
        assert abs(mc - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / n)
        assert exact > 0.4


def test_many_distinct_marginal_values_on_a_large_domain_is_refused_clearly():
    marg = [np.arange(1, k + 1) / (k * (k + 1) / 2) for k in PAPER_KS]
    with pytest.raises(SizeError, match="MAX_LUMPED_STATES"):
        q.attribute_inference_accuracy(q.rsfd(PAPER_KS, 1.0, "oue-z"), marginals=marg)
    # GRR needs no lumping: any marginals
    v = q.attribute_inference_accuracy(q.rsfd(PAPER_KS, 1.0), marginals=marg)
    assert 1 / 3 < v < 1


@pytest.mark.parametrize("randomizer", ["grr", "oue-z", "sue-r"])
def test_classifiers_are_bounded_by_the_exact_value(randomizer):
    rng = np.random.default_rng(11)
    marg = [_grouped(k, rng) for k in PAPER_KS]
    P = q.rsfd(PAPER_KS, 3.0, randomizer)
    T = q.attribute_inference_comparison(P, marginals=marg, n=30_000, rng=2)
    exact = q.attribute_inference_accuracy(P, marginals=marg)
    assert T["bound"].tolist() == pytest.approx([exact] * 4, abs=1e-15)
    assert T.loc[0, "accuracy"] == exact
    for i in (1, 2, 3):
        acc, se = T.loc[i, "accuracy"], T.loc[i, "se"]
        assert acc <= exact + 4 * se
        assert acc > 1 / 3 - 4 * se  # never worse than a blind guess, up to noise
    if randomizer == "grr":
        # naive Bayes has the true model's form for GRR: close to the optimum
        assert T.loc[2, "accuracy"] >= exact - 4 * T.loc[2, "se"] - 0.01


def test_comparison_with_fixed_tuples_grr():
    rng = np.random.default_rng(4)
    ks = (6, 3, 4)
    marg = [np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05]), np.array([0.7, 0.2, 0.1]), np.full(4, 0.25)]
    tuples = np.stack(
        [rng.choice(k, size=20_000, p=m) for k, m in zip(ks, marg, strict=True)], axis=1
    )
    P = q.rsfd(ks, 2.0)
    T = q.attribute_inference_comparison(P, tuples, rng=3)
    emp = [np.bincount(tuples[:, j], minlength=k) / len(tuples) for j, k in enumerate(ks)]
    assert T.loc[0, "bound"] == pytest.approx(q.attribute_inference_accuracy(P, marginals=emp))
    for i in (1, 2, 3):
        assert T.loc[i, "accuracy"] <= T.loc[i, "bound"] + 4 * T.loc[i, "se"]
    assert T["n_test"].tolist() == [20_000, 20_000, 16_000, 16_000]
    # the hybrid adversary trains on the synthetic profiles and the known users
    assert T["n_train"].tolist() == [0, 20_000, 4_000, 24_000]


def test_hybrid_adversary_at_uniform_marginals_is_a_blind_guess():
    # GRR under uniform marginals: fake values are distributed as the sanitised true one, so
    # the exact accuracy is 1/d (independently: every report is uniform given any j)
    P = q.rsfd((5, 4, 3), 2.0)
    T = q.attribute_inference_comparison(P, n=20_000, rng=5)
    hm = T[T["adversary"] == "hybrid (naive Bayes)"].iloc[0]
    assert hm["bound"] == pytest.approx(1 / 3, abs=1e-12)
    assert abs(hm["accuracy"] - 1 / 3) < 4 * hm["se"]


def test_comparison_bad_input():
    P = q.rsfd((2, 3), 1.0)
    with pytest.raises(InputTypeError, match="RS\\+FD protocol"):
        q.attribute_inference_comparison(q.spl_protocol((2, 3), 1.0))
    with pytest.raises(InputTypeError, match="not both"):
        q.attribute_inference_comparison(P, [[0, 1]], [[0.5, 0.5], [0.2, 0.3, 0.5]])
    with pytest.raises(ParameterError, match="at least 2 users"):
        q.attribute_inference_comparison(P, [[0, 1]])
    with pytest.raises(ParameterError, match="known"):
        q.attribute_inference_comparison(P, n=10, known=0.0)
    with pytest.raises(InputTypeError, match="not both"):
        q.attribute_inference_accuracy(
            P, prior=np.full(6, 1 / 6), marginals=[[0.5, 0.5], [1, 0, 0]]
        )


def test_table_over_a_grid_is_the_comparisons_in_order():
    marg = [np.array([0.6, 0.2, 0.1, 0.1]), np.array([0.5, 0.25, 0.25])]
    T = q.attribute_inference_table([4, 3], [1.0, 4.0], ["grr", "sue-r"], marg, n=3000, rng=9)
    gen = np.random.default_rng(9)
    parts = []
    for r in ("grr", "sue-r"):
        for eps in (1.0, 4.0):
            P = q.rsfd([4, 3], eps, r)
            C = q.attribute_inference_comparison(P, marginals=marg, n=3000, rng=gen)
            assert C.loc[0, "bound"] == q.attribute_inference_accuracy(P, marginals=marg)
            parts.append(C)
    assert T["randomizer"].tolist() == ["grr"] * 8 + ["sue-r"] * 8
    assert T["eps"].tolist() == [1.0] * 4 + [4.0] * 4 + [1.0] * 4 + [4.0] * 4
    for col in ("accuracy", "se", "bound", "n_train", "n_test"):
        assert T[col].tolist() == [v for C in parts for v in C[col].tolist()]
    assert (T["accuracy"] <= T["bound"] + 4 * T["se"]).all()
    with pytest.raises(ParameterError, match="epss must be a non-empty"):
        q.attribute_inference_table([4, 3], [])
