"""The longitudinal (memoised) oracles L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE.

Provenance of the expected values:

- the channels: an enumeration written here with plain loops over the permanent
  response u and the T reports (C[x, y] = Σ_u P1[x, u] Π_t P2[u, y_t]), independent of
  the operators the protocol builds them with;
- the parameters: the closed forms of the paper's authors (Arcolezi et al. 2022,
  as shipped by multi-freq-ldpy), evaluated at (eps_perm, eps_1) = (2, 0.5) with
  numpy: the printed numbers below;
- eps: ``ldp_epsilon`` of the enumerated channel;
- Monte Carlo: seeded, mean in a normal band and sample variance in a chi-square
  band around ``P.variance``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import ParameterError, SizeError
from qifldp.protocols.longitudinal import (
    LONGITUDINAL,
    Memoized,
    bayes_capacity_grr_reports,
    bayes_capacity_one_hot,
)
from tests.protocols._enumeration import (
    assert_unbiased_with_variance,
    enumerate_memoized as _enumerate,
    round_probabilities as _rounds,
)

VARIANTS = tuple(LONGITUDINAL)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("T", [1, 2])
def test_channel_equals_enumeration(name, T):
    P = q.protocol(name, 3, 2.0, 1.0)
    C, M = _enumerate(P, T)
    np.testing.assert_allclose(C.matrix, M, atol=1e-14)


def test_parameters_match_the_published_closed_forms():
    ep, e1 = 2.0, 0.5
    # L-OSUE: p2 = (1 - e^(e1 + ep)) / (e^e1 - e^ep - e^(e1 + ep) + 1), q2 = 1 - p2
    E, E1 = math.exp(ep), math.exp(e1)
    osue = (1 - E * E1) / (E1 - E - E * E1 + 1)
    assert q.protocol("l_osue", 4, ep, e1).params["p2"] == pytest.approx(osue, rel=1e-13)
    # the long closed forms of L-SUE (p2), L-OUE and L-SOUE (q2), evaluated
    assert q.protocol("l_sue", 4, ep, e1).params["p2"] == pytest.approx(0.6345470513461454, 1e-12)
    assert q.protocol("l_oue", 4, ep, e1).params["q2"] == pytest.approx(0.22214827508718146, 1e-12)
    assert q.protocol("l_soue", 4, ep, e1).params["q2"] == pytest.approx(0.24821566650673338, 1e-12)
    # first rounds: GRR / SUE / OUE at eps_perm
    assert q.protocol("l_oue", 4, ep, e1).params["q1"] == pytest.approx(1 / (E + 1))
    assert q.protocol("l_sue", 4, ep, e1).params["p1"] == pytest.approx(1 / (1 + math.exp(-1.0)))
    # L-GRR: the paper's p2 = (e1 p1 - q1) / (e1 p1 - (k-1) e1 q1 + (k-1) p1 - q1)
    k = 5
    p1, q1 = E / (E + k - 1), 1 / (E + k - 1)
    p2 = (E1 * p1 - q1) / (E1 * p1 - (k - 1) * E1 * q1 + (k - 1) * p1 - q1)
    pr = q.protocol("l_grr", k, ep, e1).params
    assert pr["p2"] == pytest.approx(p2) and pr["q2"] == pytest.approx((1 - p2) / (k - 1))


@pytest.mark.parametrize("name", ["l_sue", "l_oue", "l_osue", "l_soue"])
@pytest.mark.parametrize(("eps_perm", "eps_1"), [(2.0, 0.5), (4.0, 1.0), (1.0, 0.3)])
def test_one_report_has_eps_1_exactly(name, eps_perm, eps_1):
    P = q.protocol(name, 3, eps_perm, eps_1)
    _, M = _enumerate(P, 1)
    assert q.ldp_epsilon(q.Channel(M)) == pytest.approx(eps_1, abs=1e-10)
    assert P.closed_form.ldp_epsilon() == pytest.approx(eps_1, abs=1e-12)


def test_l_grr_one_report_eps_is_eps_1_only_for_two_values():
    # the published second round solves (p1 p2 + q1 q2) / (q1 p2 + p1 q2) = e^eps_1,
    # the ratio of a report only when k = 2; beyond, a report leaks strictly less
    _, M2 = _enumerate(q.protocol("l_grr", 2, 2.0, 0.5), 1)
    assert q.ldp_epsilon(q.Channel(M2)) == pytest.approx(0.5, abs=1e-12)
    P = q.protocol("l_grr", 5, 2.0, 0.5)
    _, M5 = _enumerate(P, 1)
    eps = q.ldp_epsilon(q.Channel(M5))
    assert eps == pytest.approx(P.eps_one, abs=1e-12)
    assert 0.39 < eps < 0.41  # 0.399 < 0.5


@pytest.mark.parametrize("name", VARIANTS)
def test_reports_never_leak_more_than_the_permanent_response(name):
    P = q.protocol(name, 3, 2.0, 1.0)
    first, _ = _rounds(P)
    eps = [q.ldp_epsilon(P.channel(reports=T)) for T in (1, 2, 3)]
    assert eps == sorted(eps)
    assert eps[-1] <= 2.0 + 1e-12  # eps_perm bounds any number of reports


@pytest.mark.parametrize("name", VARIANTS)
def test_symmetric_and_symbolic_equal_the_explicit_channel(name):
    P = q.protocol(name, 3, 2.0, 1.0)
    C = P.channel()
    S = P.symmetric().expand()
    np.testing.assert_allclose(S.matrix, C.matrix, atol=1e-13)
    assert S.outputs == C.outputs
    P = q.protocol(name, 2, 2.0, 1.0)  # symbolic: k = 2 (the capacity's sign proofs)
    C = P.channel()
    Y = P.symbolic().evaluate()
    np.testing.assert_allclose(Y.matrix, C.matrix, atol=1e-12)
    Z = P.symbolic(eps_perm="a", eps_1="b").evaluate(a=2.0, b=1.0)
    np.testing.assert_allclose(Z.matrix, C.matrix, atol=1e-12)
    assert float(P.closed_form.symbolic_bayes_capacity()) == pytest.approx(q.bayes_capacity(C))


@pytest.mark.parametrize("name", VARIANTS)
def test_closed_forms_equal_the_enumerated_measures(name):
    P = q.protocol(name, 3, 2.0, 1.0)
    cf = P.closed_form
    assert cf.bayes_capacity() == pytest.approx(q.bayes_capacity(P.channel()), rel=1e-12)
    for T in (1, 2, 3):
        _, M = _enumerate(P, T) if T < 3 or name == "l_grr" else (None, P.channel(3).matrix)
        ml = float(np.sum(np.max(M, axis=0)))
        assert cf.bayes_capacity_reports(T) == pytest.approx(ml, rel=1e-12)
    # the permanent response alone: GRR / UE at (p1, q1)
    pr = P.params
    if name == "l_grr":
        perm = q.protocol("grr", 3, 2.0).channel()
    else:
        perm = q.unary_encoding(3, pr["p1"], pr["q1"])
    assert cf.bayes_capacity_permanent() == pytest.approx(q.bayes_capacity(perm), rel=1e-12)


@pytest.mark.parametrize("name", VARIANTS)
def test_leakage_of_many_reports_rises_to_the_permanent_response(name):
    cf = q.protocol(name, 5, 2.0, 0.5).closed_form
    mls = [cf.bayes_capacity_reports(T) for T in (1, 2, 4, 8, 16, 64, 256, 1024)]
    assert all(a <= b * (1 + 1e-12) for a, b in zip(mls, mls[1:], strict=False))
    assert mls[-1] == pytest.approx(cf.bayes_capacity_permanent(), rel=1e-6)
    assert mls[-1] <= cf.bayes_capacity_permanent() * (1 + 1e-12)


def test_lumped_one_hot_capacity_matches_known_unary_encodings():
    for k, p, qq in [(3, 0.75, 0.25), (5, 0.5, 0.1), (4, 0.9, 0.3)]:
        B = [[1 - qq, qq], [1 - p, p]]
        assert bayes_capacity_one_hot(B, k) == pytest.approx(
            q.bayes_capacity(q.unary_encoding(k, p, qq)), rel=1e-12
        )
    # a 2 x 3 channel against one_hot's enumeration
    B = np.array([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    C = q.one_hot(q.Channel(B), 4)
    assert bayes_capacity_one_hot(B, 4) == pytest.approx(q.bayes_capacity(C), rel=1e-12)


def test_grr_reports_capacity_at_large_k_is_between_one_report_and_the_permanent():
    P = q.protocol("l_grr", 10**4, 4.0, 1.0)
    pr = P.params
    ml1 = bayes_capacity_grr_reports(10**4, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 1)
    assert ml1 == pytest.approx(P.closed_form.bayes_capacity(), rel=1e-10)
    ml = P.closed_form.bayes_capacity_reports(64)
    assert ml1 < ml < P.closed_form.bayes_capacity_permanent()


# ----------------------------------------------------------------------------------------
# client and server
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", VARIANTS)
def test_sample_then_estimate_is_unbiased_with_the_protocols_variance(name):
    P = q.protocol(name, 4, 3.0, 1.5)
    var, f, n = assert_unbiased_with_variance(
        P, np.arange(1, 5) * 40, seed=7 + VARIANTS.index(name)
    )
    # the variance is Wang et al.'s with the one-report support probabilities
    a, b = P.support_probabilities()
    expected = (f * a * (1 - a) + (1 - f) * b * (1 - b)) / (n * (a - b) ** 2)
    np.testing.assert_allclose(var, expected, rtol=1e-12)


def test_memoised_reports_follow_the_two_report_channel():
    # two reports of the same users are drawn from channel(reports=2), not from two
    # independent one-report channels: a chi-square goodness of fit on the pairs
    P = q.protocol("l_grr", 2, 1.0, 0.9)
    n = 20000
    R = P.sample(np.zeros(n, dtype=int), rng=3, reports=2)
    pairs = R[0] * 2 + R[1]
    observed = np.bincount(pairs, minlength=4)
    C = P.channel(reports=2)
    cells = [(a, b) for a in (0, 1) for b in (0, 1)]
    expected = n * np.array([C.matrix[0, C.outputs.index(cell)] for cell in cells])
    assert stats.chisquare(observed, expected).pvalue > 1e-6
    independent = n * np.outer(P.channel().matrix[0], P.channel().matrix[0]).ravel()
    assert stats.chisquare(observed, independent).pvalue < 1e-6


@pytest.mark.parametrize("name", ["l_grr", "l_sue"])
def test_composite_reports_follow_the_one_report_channel(name):
    # method="composite" draws one report from its one-report law: a chi-square goodness
    # of fit of the reported outputs (L-GRR: values; L-SUE at k = 2: the 4 bit pairs)
    # against the one-report channel P.channel(), enumerated from the two rounds
    P = q.protocol(name, 2, 1.0, 0.9)
    n = 20000
    R = P.sample(np.zeros(n, dtype=int), rng=5, method="composite")
    codes = R if name == "l_grr" else R[:, 0] * 2 + R[:, 1]
    C = P.channel()
    cells = [0, 1] if name == "l_grr" else [(a, b) for a in (0, 1) for b in (0, 1)]
    expected = n * np.array([C.matrix[0, C.outputs.index(cell)] for cell in cells])
    observed = np.bincount(np.asarray(codes, dtype=int), minlength=len(cells))
    assert stats.chisquare(observed, expected).pvalue > 1e-6
    with pytest.raises(ParameterError, match="method"):
        P.sample([0], method="direct")
    with pytest.raises(TypeError, match="reports"):
        P.sample([0], method="composite", reports=2)


def test_sampler_shapes_and_attack():
    P = q.protocol("l_soue", 5, 3.0, 1.0)
    assert P.sample([0, 1], rng=0).shape == (2, 5)
    assert P.sample([0, 1], rng=0, reports=3).shape == (3, 2, 5)
    assert P.attack(P.sample([0, 1, 2], rng=0), rng=0).shape == (3,)
    G = q.protocol("l_grr", 5, 60.0, 1.0)
    assert G.memoize([4, 2], rng=0).tolist() == [4, 2]


# ----------------------------------------------------------------------------------------
# the catalogue and bad input
# ----------------------------------------------------------------------------------------
def test_catalogue_builds_them_and_they_are_values():
    P = q.protocol("L-OSUE", 4, eps_perm=2.0, eps_1=1.0)
    assert isinstance(P, Memoized) and P.name == "l_osue" and P.rounds == ("oue", "sue")
    assert P == Memoized(4, 2.0, 1.0, variant="l_osue")
    assert P != q.protocol("l_osue", 4, 2.0, 0.5)
    assert P.eps == 2.0 and P.params["eps_1"] == 1.0


def test_bad_budgets_are_refused_with_their_rule():
    with pytest.raises(ParameterError, match="eps_1 < eps_perm"):
        q.protocol("l_grr", 3, 1.0, 1.0)
    with pytest.raises(ParameterError, match="eps_perm must be in"):
        q.protocol("l_sue", 3, 0.0, 0.0)
    with pytest.raises(ParameterError, match="eps_1 must be below"):
        q.protocol("l_oue", 3, 2.0, 1.9)  # OUE's second round cannot reach it
    with pytest.raises(ParameterError, match="eps_1 must be >= 0"):
        q.protocol("l_osue", 3, 2.0, -1.0)
    with pytest.raises(SizeError, match="closed_form.bayes_capacity_reports"):
        q.protocol("l_oue", 12, 2.0, 1.0).channel(reports=3)


@pytest.mark.parametrize("name", VARIANTS)
def test_reports_to_half_leakage_is_the_first_crossing(name):
    cf = q.protocol(name, 4, 3.0, 0.8).closed_form
    T = cf.reports_to_half_leakage()
    half = math.log2(cf.bayes_capacity_permanent()) / 2
    leak = [math.log2(cf.bayes_capacity_reports(t)) for t in range(1, T + 1)]
    assert leak[-1] >= half and all(v < half for v in leak[:-1])
