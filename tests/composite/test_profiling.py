"""Profiling over repeated surveys (issue 11, item 3): ACC^U and ACC^NU.

Expectations are derived independently of qifldp.protocols.profiling: a brute-force
enumeration over every sequence of asked attributes and every report of the explicit
oracle channels (no survey_sets, no compose), the paper's closed forms (Eqs. 4-5 as
reconstructed, ACC_GRR = e^eps / (e^eps + k - 1)), and Monte Carlo bands from the
binomial variance with fixed seeds.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError


def _brute(ks, eps, oracle, surveys, metric, prior=None):
    """Σ_seq Pr(seq) Σ_y max_x prior(x) Π_{j in set(seq)} C_j[x_j, y_j], by enumeration."""
    d = len(ks)
    X = list(itertools.product(*(range(k) for k in ks)))
    pri = np.full(len(X), 1 / len(X)) if prior is None else np.asarray(prior)
    Cs = [q.protocol(oracle, k, eps).channel().matrix for k in ks]
    if metric == "uniform":
        seqs = list(itertools.permutations(range(d), surveys))
    else:
        seqs = list(itertools.product(range(d), repeat=surveys))
    total = 0.0
    for seq in seqs:
        S = sorted(set(seq))
        best = 0.0
        for ys in itertools.product(*(range(Cs[j].shape[1]) for j in S)):
            best += max(
                pri[i] * math.prod(Cs[j][x[j], y] for j, y in zip(S, ys, strict=True))
                for i, x in enumerate(X)
            )
        total += best / len(seqs)
    return total


def _acc_grr(k, eps):
    return math.exp(eps) / (math.exp(eps) + k - 1)


@pytest.mark.parametrize("oracle", ["grr", "ss", "olh", "blh", "sue", "oue"])
@pytest.mark.parametrize("metric", ["uniform", "non-uniform"])
def test_closed_form_and_exact_match_brute_enumeration(oracle, metric):
    ks = (2, 3)
    for surveys in (1, 2) if metric == "uniform" else (1, 2, 3):
        want = _brute(ks, 1.0, oracle, surveys, metric)
        got_cf = q.profiling_accuracy(ks, 1.0, oracle, surveys, metric)
        got_ex = q.profiling_accuracy(ks, 1.0, oracle, surveys, metric, method="exact")
        assert got_cf == pytest.approx(want, rel=1e-10)
        assert got_ex == pytest.approx(want, rel=1e-10)


def test_three_attributes_grr_and_eq4_with_the_true_acc():
    ks, eps = (2, 3, 2), 0.7
    # Eq. 4 (reconstructed: product of the per-attribute ACC) holds for surveys = d
    eq4 = math.prod(_acc_grr(k, eps) for k in ks)
    assert q.profiling_accuracy(ks, eps) == pytest.approx(eq4, rel=1e-12)
    assert q.profiling_accuracy(ks, eps, method="exact") == pytest.approx(eq4, rel=1e-12)
    assert q.profiling_accuracy(ks, eps, method="paper") == pytest.approx(eq4, rel=1e-12)
    # one survey of three: one attribute reported, the two others guessed uniformly
    want = sum(_acc_grr(ks[j], eps) / math.prod(ks) * ks[j] for j in range(3)) / 3
    assert q.profiling_accuracy(ks, eps, surveys=1) == pytest.approx(want, rel=1e-12)
    assert _brute(ks, eps, "grr", 1, "uniform") == pytest.approx(want, rel=1e-12)


def test_non_uniform_two_attributes_by_hand_and_eq5_is_below():
    ks, eps = (3, 5), 1.3
    a0, a1 = _acc_grr(3, eps), _acc_grr(5, eps)
    # surveys = 2 with replacement: both attributes w.p. 1/2, one only w.p. 1/4 each
    want = a0 * a1 / 2 + (a0 / 5 + a1 / 3) / 4
    got = q.profiling_accuracy(ks, eps, metric="non-uniform")
    assert got == pytest.approx(want, rel=1e-12)
    eq5 = q.profiling_accuracy(ks, eps, metric="non-uniform", method="paper")
    assert eq5 == pytest.approx(0.5 * a0 * a1, rel=1e-12)  # d!/d^d = 1/2
    assert eq5 < got  # Eq. 5 credits only the users who covered both attributes


def test_survey_sets_probabilities():
    # d = 3, surveys = 3 with replacement: all three distinct w.p. 3!/3^3
    sets = q.survey_sets(3, 3, "non-uniform")
    assert sets[(0, 1, 2)] == pytest.approx(6 / 27)
    # a single attribute all three times: 1/27 each
    assert sets[(1,)] == pytest.approx(1 / 27)
    # exactly {0, 1}: 2^3 - 2 sequences of 27
    assert sets[(0, 1)] == pytest.approx(6 / 27)
    assert sum(sets.values()) == pytest.approx(1.0)
    assert q.survey_sets(3, 2) == {s: pytest.approx(1 / 3) for s in [(0, 1), (0, 2), (1, 2)]}


def test_exact_with_a_correlated_prior_matches_brute_force():
    ks = (2, 3)
    rng = np.random.default_rng(5)
    prior = rng.dirichlet(np.ones(6))
    for metric in ("uniform", "non-uniform"):
        want = _brute(ks, 1.0, "oue", 2, metric, prior)
        got = q.profiling_accuracy(ks, 1.0, "oue", 2, metric, method="exact", prior=prior)
        assert got == pytest.approx(want, rel=1e-10)


def test_many_surveys_with_replacement_tend_to_eq4():
    # with many surveys every attribute is asked: the value tends to the product
    ks, eps = (4, 3, 2), 1.0
    eq4 = math.prod(_acc_grr(k, eps) for k in ks)
    got = q.profiling_accuracy(ks, eps, surveys=200, metric="non-uniform")
    assert got == pytest.approx(eq4, rel=1e-12)


@pytest.mark.parametrize(
    ("oracle", "metric", "surveys"),
    [
        ("grr", "uniform", 3),
        ("oue", "non-uniform", 3),
        ("ss", "uniform", 2),
        ("olh", "non-uniform", 4),
    ],
)
def test_simulation_within_monte_carlo_band(oracle, metric, surveys):
    ks, eps, n = (4, 3, 5), 2.0, 40_000
    rng = np.random.default_rng(11)
    X = np.column_stack([rng.integers(0, k, n) for k in ks])
    want = q.profiling_accuracy(ks, eps, oracle, surveys, metric)
    r = q.simulate_profiling(X, eps, oracle, surveys, metric, ks=ks, rng=12)
    sigma = math.sqrt(want * (1 - want) / n)
    assert abs(r.rate - want) < 4 * sigma


def test_survey_profiles_report_only_asked_attributes():
    X = np.array([[0, 1, 2, 3]] * 50)
    P = q.survey_profiles(X, 60.0, "grr", surveys=2, ks=(4, 4, 4, 4), rng=0)
    assert ((P >= 0).sum(axis=1) == 2).all()
    assert np.all((P == -1) | (P == X))  # eps = 60: every report is the truth
    Pn = q.survey_profiles(X, 60.0, "sue", surveys=6, metric="non-uniform", ks=(4,) * 4, rng=0)
    assert ((Pn >= 0).sum(axis=1) <= 4).all() and np.all((Pn == -1) | (Pn == X))


def test_paper_fig1_curves_and_acc_ss_above_one():
    df = q.profiling_curves()
    assert len(df) == 5 * 2 * 10
    d, ks = 3, (74, 7, 16)
    for row in df.itertuples():
        if row.oracle == "ss":
            # the printed ACC_SS = (e^eps + 1) / (2k), its product (Eq. 4), times 3!/3^3 (Eq. 5)
            printed = math.prod((math.exp(row.eps) + 1) / (2 * k) for k in ks)
            if row.metric == "non-uniform":
                printed *= math.factorial(d) / d**d
            assert row.paper == pytest.approx(printed, rel=1e-12)
            assert row.paper_above_one == (printed > 1)
        if row.oracle == "grr":
            eq4 = math.prod(_acc_grr(k, row.eps) for k in ks)
            want = eq4 if row.metric == "uniform" else eq4 * 6 / 27
            assert row.paper == pytest.approx(want, rel=1e-12)
        assert 0 <= row.bayes <= 1
        if row.metric == "uniform":  # surveys = d: the Bayes value is Eq. 4 with the true ACC
            assert row.bayes == pytest.approx(row.paper_true_acc, rel=1e-9)
        else:  # Eq. 5 leaves out the partial profiles
            assert row.bayes >= row.paper_true_acc
    above = df[df.paper_above_one]
    assert set(above.oracle) == {"ss"}
    assert sorted(above[above.metric == "uniform"].eps) == [4.0, 5, 6, 7, 8, 9, 10]
    assert sorted(above[above.metric == "non-uniform"].eps) == [5.0, 6, 7, 8, 9, 10]
    # the audit agrees: the printed Fig. 1 values exceed 1 (claim refuted)
    from qifldp.audit.multidim_risks import FIG1_EPS, FIG1_KS

    assert FIG1_KS == ks and FIG1_EPS == tuple(float(e) for e in range(1, 11))


def test_closed_form_at_paper_sizes_equals_per_attribute_asr_product():
    # the product formula at ks = (74, 7, 16), checked against each protocol's symmetric
    # channel (Bayes capacity / k), independent of the closed form's formulas
    for oracle in ("grr", "ss", "oue"):
        for eps in (1.0, 4.0):
            asr = [q.symmetric.asr(q.protocol(oracle, k, eps).symmetric()) for k in (74, 7, 16)]
            got = q.profiling_accuracy((74, 7, 16), eps, oracle)
            assert got == pytest.approx(math.prod(asr), rel=1e-9)


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="surveys"):
        q.profiling_accuracy((2, 3), 1.0, surveys=3)  # without replacement: at most d
    with pytest.raises(ParameterError, match="oracle"):
        q.profiling_accuracy((2, 3), 1.0, "rappor")
    with pytest.raises(ParameterError, match="method='paper'"):
        q.profiling_accuracy((2, 3), 1.0, surveys=1, method="paper")
    with pytest.raises(ParameterError, match="prior"):
        q.profiling_accuracy((2, 3), 1.0, prior=np.full(6, 1 / 6))
    with pytest.raises(ParameterError, match="outside"):
        q.simulate_profiling([[0, 3]], 1.0, ks=(2, 3))
    with pytest.raises(InputTypeError, match="tuples"):
        q.survey_profiles("abc", 1.0)
    with pytest.raises(ParameterError, match="metric"):
        q.survey_sets(3, 2, "sometimes")


def test_audit_entries_on_surveys():
    from qifldp import audit as A

    r = {c.key: c for c in A.audit(["risks.surveys_decrease", "risks.fig1_non_uniform"])}
    assert r["risks.surveys_decrease"].verdict == A.CONDITIONAL
    # the whole-profile accuracy grows with the surveys (brute force, independent)
    ks = (3, 2, 4)
    whole = [_brute(ks, 1.0, "grr", s, "uniform") for s in (1, 2, 3)]
    assert whole[0] < whole[1] < whole[2]
    assert f"{whole[1]:.5f}" in r["risks.surveys_decrease"].details
    assert r["risks.fig1_non_uniform"].verdict == A.CONFIRMED
    # at d = 2, surveys = 2: ACC^NU / ACC^U = 1/2 + (1/(a1 k1) + 1/(a0 k0)) / 4 > d!/d^d
    a0, a1 = _acc_grr(2, 2.0), _acc_grr(3, 2.0)
    ratio = q.profiling_accuracy((2, 3), 2.0, metric="non-uniform") / q.profiling_accuracy(
        (2, 3), 2.0
    )
    assert ratio == pytest.approx(0.5 + (1 / (a1 * 3) + 1 / (a0 * 2)) / 4, rel=1e-12)


def test_exact_on_the_correlated_population_bounds_the_simulation():
    ks, eps, n = (4, 3, 3), 2.0, 40_000
    prior = q.synthetic_distribution(ks, s=1.0, rho=0.6)
    for metric, surveys in [("uniform", 2), ("non-uniform", 3)]:
        exact = q.profiling_accuracy(ks, eps, "grr", surveys, metric, method="exact", prior=prior)
        assert exact == pytest.approx(_brute(ks, eps, "grr", surveys, metric, prior), rel=1e-10)
        X = q.synthetic_population(n, ks, s=1.0, rho=0.6, rng=4)
        r = q.simulate_profiling(X, eps, "grr", surveys, metric, ks=ks, rng=5)
        # the plausible-deniability attacker ignores the prior: never above the Bayes value
        assert r.rate < exact + 4 * math.sqrt(exact * (1 - exact) / n)
        # the skewed, correlated prior helps the Bayes adversary beyond the uniform case
        assert exact > q.profiling_accuracy(ks, eps, "grr", surveys, metric)
