"""RS+FD / RS+RFD protocol objects and the exact attribute-inference accuracy.

Expectations are derived independently of the implementation: the channel by a
plain enumeration from the randomizers' closed-form p and q (no operators), the
estimator's unbiasedness from the report distribution of that enumeration, the
sampler by a chi-square test against a channel row, and the attack by
enumerating the joint Pr(sampled attribute, report) over all tuples.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, PriorError

RANDOMIZERS = ("grr", "sue-z", "oue-z", "sue-r", "oue-r")


def _pq(randomizer: str, k: int, eps_amp: float) -> tuple[float, float]:
    """p, q of the randomizer at eps' (closed forms: GRR, SUE, OUE)."""
    if randomizer == "grr":
        e = math.exp(eps_amp)
        return e / (e + k - 1), 1 / (e + k - 1)
    if randomizer.startswith("sue"):
        h = math.exp(eps_amp / 2)
        return h / (h + 1), 1 / (h + 1)
    return 0.5, 1 / (math.exp(eps_amp) + 1)


def _outputs(randomizer: str, k: int) -> list:
    if randomizer == "grr":
        return list(range(k))
    return list(itertools.product((0, 1), repeat=k))


def _honest(randomizer: str, k: int, p: float, qq: float, x: int, y) -> float:
    """Pr(report y | value x) of the randomizer."""
    if randomizer == "grr":
        return p if y == x else qq
    out = 1.0
    for v, b in enumerate(y):
        s = p if v == x else qq
        out *= s if b else 1 - s
    return out


def _fake(randomizer: str, k: int, p: float, qq: float, prior, y) -> float:
    """Pr(fake report y)."""
    if randomizer == "grr":
        return prior[y]
    if randomizer.endswith("-z"):
        return math.prod(qq if b else 1 - qq for b in y)
    return sum(prior[v] * _honest(randomizer, k, p, qq, v, y) for v in range(k))


def _enumerate(ks, eps, randomizer, priors=None):
    """(inputs, outputs, joint[j][x][y] = Pr(y | x, sampled j)) by plain loops."""
    d = len(ks)
    eps_amp = math.log(d * (math.exp(eps) - 1) + 1)
    priors = priors if priors is not None else [[1 / k] * k for k in ks]
    pqs = [_pq(randomizer, k, eps_amp) for k in ks]
    X = list(itertools.product(*(range(k) for k in ks)))
    Y = list(itertools.product(*(_outputs(randomizer, k) for k in ks)))
    cond = np.zeros((d, len(X), len(Y)))
    for j in range(d):
        for a, x in enumerate(X):
            for b, y in enumerate(Y):
                r = 1.0
                for i, k in enumerate(ks):
                    p, qq = pqs[i]
                    if i == j:
                        r *= _honest(randomizer, k, p, qq, x[i], y[i])
                    else:
                        r *= _fake(randomizer, k, p, qq, priors[i], y[i])
                cond[j, a, b] = r
    return X, Y, cond


def _as_matrix(C, Y):
    """C's matrix with columns in the order of the labels Y."""
    col = {y: i for i, y in enumerate(C.outputs)}
    return C.matrix[:, [col[y] for y in Y]]


# -- channels -------------------------------------------------------------------------
@pytest.mark.parametrize("ks", [(2, 3), (3, 2, 2)])
@pytest.mark.parametrize("randomizer", RANDOMIZERS)
def test_channel_matches_enumeration(ks, randomizer):
    eps = 0.8
    C = q.rsfd(ks, eps, randomizer).channel()
    X, Y, cond = _enumerate(ks, eps, randomizer)
    assert list(C.inputs) == X
    assert set(C.outputs) == set(Y)
    np.testing.assert_allclose(C.matrix.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(_as_matrix(C, Y), cond.mean(axis=0), atol=1e-13)


@pytest.mark.parametrize("ks", [(2, 3), (3, 2, 2)])
@pytest.mark.parametrize("randomizer", ["grr", "sue-r", "oue-r"])
def test_rsrfd_channel_matches_enumeration(ks, randomizer):
    rng = np.random.default_rng(5)
    priors = [rng.dirichlet(np.ones(k)) for k in ks]
    C = q.rsrfd(ks, 1.3, priors, randomizer).channel()
    X, Y, cond = _enumerate(ks, 1.3, randomizer, priors)
    np.testing.assert_allclose(C.matrix.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(_as_matrix(C, Y), cond.mean(axis=0), atol=1e-13)


@pytest.mark.parametrize("ks", [(2, 3), (3, 2, 2), (2, 5)])
def test_grr_channel_equals_rsfd_grr(ks):
    C, D = q.rsfd(ks, 1.1).channel(), q.rsfd_grr(ks, 1.1)
    assert C.inputs == D.inputs and C.outputs == D.outputs
    np.testing.assert_allclose(C.matrix, D.matrix, rtol=0, atol=1e-14)


def test_amplified_eps_is_the_channels_epsilon():
    # over all pairs of tuples RS+FD[GRR] leaks exactly eps' (rsfd_grr's pinned finding)
    P = q.rsfd([2, 3], 1.0)
    assert q.ldp_epsilon(P.channel()) == pytest.approx(P.eps_amplified, abs=1e-12)
    assert P.eps_amplified == pytest.approx(math.log(2 * (math.e - 1) + 1), abs=1e-14)


# -- the sampler ----------------------------------------------------------------------
def _labels(P, reports):
    if P.randomizer == "grr":
        return [tuple(int(v) for v in r) for r in reports]
    n = reports[0].shape[0]
    return [tuple(tuple(int(b) for b in a[u]) for a in reports) for u in range(n)]


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
@pytest.mark.parametrize("rfd", [False, True])
def test_sample_matches_channel_row(randomizer, rfd):
    if rfd and randomizer.endswith("-z"):
        pytest.skip("RS+RFD has no zero-vector variant")
    ks, eps, n = (2, 3), 1.0, 20_000
    P = (
        q.rsrfd(ks, eps, [[0.7, 0.3], [0.2, 0.3, 0.5]], randomizer)
        if rfd
        else q.rsfd(ks, eps, randomizer)
    )
    C = P.channel()
    x = (1, 2)
    row = C.matrix[C.inputs.index(x)]
    reports = P.sample(np.tile(x, (n, 1)), rng=2024)
    col = {y: i for i, y in enumerate(C.outputs)}
    counts = np.bincount([col[y] for y in _labels(P, reports)], minlength=C.n_outputs)
    # merge the rare outputs (expected count < 5) into one cell for the chi-square test
    expected = n * row
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chisquare(obs, exp).pvalue > 1e-3


def test_sample_returns_the_sampled_attribute():
    P = q.rsfd([2, 3, 4], 1.0)
    reports, sampled = P.sample(np.zeros((30_000, 3), dtype=int), rng=1, return_sampled=True)
    assert reports.shape == (30_000, 3) and sampled.shape == (30_000,)
    # sampled attribute uniform over 3 (binomial band, 5 sigma)
    frac = np.bincount(sampled, minlength=3) / 30_000
    assert np.all(np.abs(frac - 1 / 3) < 5 * math.sqrt(2 / 9 / 30_000))
    # a sampled attribute keeps its true value 0 w.p. p' (GRR at eps')
    e = math.exp(P.eps_amplified)
    for j, k in enumerate((2, 3, 4)):
        kept = np.mean(reports[sampled == j, j] == 0)
        m = np.sum(sampled == j)
        p = e / (e + k - 1)
        assert abs(kept - p) < 5 * math.sqrt(p * (1 - p) / m)


# -- the estimator --------------------------------------------------------------------
def _expected_support(P, pop):
    """E c_j(v) under iid tuples x ~ pop, from the enumerated channel (not the estimator)."""
    X, Y, cond = _enumerate(P.ks, P.eps, P.randomizer, None if not P._rfd else P.priors)
    out = pop @ cond.mean(axis=0)  # distribution of one report
    c = []
    for j, k in enumerate(P.ks):
        if P.randomizer == "grr":
            c.append(
                np.array([sum(out[b] for b, y in enumerate(Y) if y[j] == v) for v in range(k)])
            )
        else:
            c.append(np.array([sum(out[b] for b, y in enumerate(Y) if y[j][v]) for v in range(k)]))
    return c


def _marginals(pop, ks):
    P = pop.reshape(ks)
    d = len(ks)
    return [P.sum(axis=tuple(i for i in range(d) if i != j)) for j in range(d)]


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
@pytest.mark.parametrize("rfd", [False, True])
def test_estimator_exactly_unbiased_on_the_report_distribution(randomizer, rfd):
    """The estimator is affine in the support fractions c: fed E c (from the enumerated
    channel, x ~ pop) it must return the population's marginals exactly."""
    if rfd and randomizer.endswith("-z"):
        pytest.skip("RS+RFD has no zero-vector variant")
    ks = (3, 2, 2)
    rng = np.random.default_rng(7)
    pop = rng.dirichlet(np.ones(12))
    priors = [rng.dirichlet(np.ones(k)) for k in ks]
    P = q.rsrfd(ks, 0.9, priors, randomizer) if rfd else q.rsfd(ks, 0.9, randomizer)
    est = P._calibrate(_expected_support(P, pop))
    for e, f in zip(est, _marginals(pop, ks), strict=True):
        np.testing.assert_allclose(e, f, atol=1e-12)


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
def test_estimator_is_the_papers_for_rsfd(randomizer):
    """RS+FD (uniform fakes): the printed estimators of VLDB 2023 Sec. 2.3.2, c = C / n."""
    ks, d = (3, 2, 4), 3
    P = q.rsfd(ks, 1.4, randomizer)
    c = [np.linspace(0.1, 0.6, k) for k in ks]
    for j, (e, k) in enumerate(zip(P._calibrate(c), ks, strict=True)):
        p, qq = _pq(randomizer, k, P.eps_amplified)
        if randomizer == "grr":
            paper = (c[j] * d * k - (d - 1 + qq * k)) / (k * (p - qq))
        elif randomizer.endswith("-z"):
            paper = d * (c[j] - qq) / (p - qq)
        else:
            paper = (c[j] * d * k - (qq * k + (p - qq) * (d - 1) + qq * k * (d - 1))) / (
                k * (p - qq)
            )
        np.testing.assert_allclose(e, paper, atol=1e-12)


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
@pytest.mark.parametrize("rfd", [False, True])
def test_estimate_unbiased_by_monte_carlo(randomizer, rfd):
    if rfd and randomizer.endswith("-z"):
        pytest.skip("RS+RFD has no zero-vector variant")
    ks, eps, n = (3, 2, 2), 2.0, 200_000
    rng = np.random.default_rng(11)
    pop = rng.dirichlet(np.ones(12))
    priors = [rng.dirichlet(np.ones(k)) for k in ks]
    P = q.rsrfd(ks, eps, priors, randomizer) if rfd else q.rsfd(ks, eps, randomizer)
    X = np.array(list(itertools.product(*(range(k) for k in ks))))
    tuples = X[rng.choice(len(X), size=n, p=pop)]
    est = P.estimate(P.sample(tuples, rng=rng))
    c = _expected_support(P, pop)
    f = _marginals(pop, ks)
    d = len(ks)
    for j, k in enumerate(ks):
        p, qq = _pq(randomizer, k, P.eps_amplified)
        # f^ = (d / (p - q)) c + const; c a mean of n iid indicators with mean c_j
        sd = d / (p - qq) * np.sqrt(c[j] * (1 - c[j]) / n)
        assert est[j].shape == (k,)
        assert np.all(np.abs(est[j] - f[j]) < 5 * sd), (j, est[j], f[j], sd)


def test_estimate_checks_reports():
    P = q.rsfd([2, 3], 1.0)
    with pytest.raises(ParameterError, match="reports"):
        P.estimate(np.zeros((4, 3), dtype=int))
    with pytest.raises(ParameterError, match="reports"):
        P.estimate(np.array([[0, 3]]))
    U = q.rsfd([2, 3], 1.0, "oue-z")
    with pytest.raises(InputTypeError, match="reports"):
        U.estimate(np.zeros((4, 5)))
    with pytest.raises(ParameterError, match=r"reports\[1\]"):
        U.estimate([np.zeros((4, 2)), np.zeros((4, 2))])
    with pytest.raises(ParameterError, match="eps"):
        q.rsfd([2, 3], 0.0).estimate(np.zeros((2, 2), dtype=int))


# -- attribute inference --------------------------------------------------------------
def _aia_by_enumeration(P, pop):
    """sum_y max_j Pr(j, y), Pr(j, y) = (1/d) sum_x pop(x) Pr(y | x, j), all tuples."""
    X, Y, cond = _enumerate(P.ks, P.eps, P.randomizer, P.priors if P._rfd else None)
    joint = np.einsum("x,jxy->jy", pop, cond) / len(P.ks)
    return float(joint.max(axis=0).sum())


def test_attribute_inference_d2_closed_form():
    # ks = (2, 2), tuple (0, 0) known: Pr(j, y) = M(y_j) / 4 with M = (p', 1 - p');
    # y = 00, 01, 10 give p'/4, y = 11 gives (1 - p')/4: accuracy (1 + 2 p') / 4
    for eps in (0.1, 1.0, 3.0):
        P = q.rsfd([2, 2], eps)
        e = math.exp(P.eps_amplified)
        p = e / (e + 1)
        got = q.attribute_inference_accuracy(P, prior=[1.0, 0.0, 0.0, 0.0])
        assert got == pytest.approx((1 + 2 * p) / 4, abs=1e-14)


def test_attribute_inference_uniform_population_grr_is_blind():
    # uniform tuples: the honest report is uniform too, exactly like the fakes
    for ks in [(2, 3), (3, 2, 2)]:
        assert q.attribute_inference_accuracy(q.rsfd(ks, 2.0)) == pytest.approx(1 / len(ks))


@pytest.mark.parametrize("ks", [(2, 3), (3, 2, 2)])
@pytest.mark.parametrize("randomizer", RANDOMIZERS)
def test_attribute_inference_matches_enumeration_and_is_at_least_1_over_d(ks, randomizer):
    rng = np.random.default_rng(3)
    n = math.prod(ks)
    for _ in range(3):
        pop = rng.dirichlet(np.full(n, 0.3))
        P = q.rsfd(ks, float(rng.uniform(0.2, 3.0)), randomizer)
        got = q.attribute_inference_accuracy(P, prior=pop)
        assert got == pytest.approx(_aia_by_enumeration(P, pop), abs=1e-12)
        assert got >= 1 / len(ks) - 1e-12
        assert got <= 1 + 1e-12


@pytest.mark.parametrize("randomizer", ["sue-r", "oue-r"])
def test_rsrfd_ue_r_with_true_marginals_is_blind(randomizer):
    """Finding: RS+RFD[UE-r] with the population's true marginals as fake priors makes the
    fake reports distributed exactly like the honest ones (prior R), so the attack is a
    blind guess, 1/d, for every eps and any (even correlated) population; uniform fakes
    on the same skewed population leak (accuracy > 1/d)."""
    ks = (3, 2, 2)
    pop = np.random.default_rng(9).dirichlet(np.full(12, 0.5))
    marg = _marginals(pop, ks)
    for eps in (0.5, 1.0, 2.0, 4.0):
        fd = q.attribute_inference_accuracy(q.rsfd(ks, eps, randomizer), prior=pop)
        P = q.rsrfd(ks, eps, marg, randomizer)
        rfd = q.attribute_inference_accuracy(P, prior=pop)
        assert rfd == pytest.approx(1 / 3, abs=1e-12)
        assert rfd == pytest.approx(_aia_by_enumeration(P, pop), abs=1e-12)
        assert fd > 1 / 3 + 1e-3


def test_rsrfd_grr_true_prior_is_not_always_better():
    """Finding for GRR (fakes reported as is): on a skewed population, true-marginal fakes
    lower the accuracy below RS+FD's uniform fakes at eps >= 1 but RAISE it at eps = 0.5
    (the honest reports are smoothed towards uniform at small eps' while the fakes stay
    skewed); the fake prior that makes the attack blind (exactly 1/d) is the honest
    report distribution m_j R_j (m_j the marginal, R_j = GRR at eps')."""
    ks = (3, 2, 2)
    marg = [np.array([0.7, 0.2, 0.1]), np.array([0.85, 0.15]), np.array([0.6, 0.4])]
    pop = np.einsum("a,b,c->abc", *marg).ravel()
    found = {}
    for eps in (0.5, 1.0, 2.0, 4.0):
        fd = q.attribute_inference_accuracy(q.rsfd(ks, eps), prior=pop)
        P = q.rsrfd(ks, eps, marg)
        rfd = q.attribute_inference_accuracy(P, prior=pop)
        assert rfd == pytest.approx(_aia_by_enumeration(P, pop), abs=1e-12)
        found[eps] = (fd, rfd)
        e = math.exp(P.eps_amplified)
        report = [
            (e - 1) / (e + k - 1) * m + 1 / (e + k - 1) for m, k in zip(marg, ks, strict=True)
        ]
        blind = q.attribute_inference_accuracy(q.rsrfd(ks, eps, report), prior=pop)
        assert blind == pytest.approx(1 / 3, abs=1e-12)
    assert found[0.5][1] > found[0.5][0]  # 0.4566 > 0.4198
    for eps in (1.0, 2.0, 4.0):
        assert found[eps][1] < found[eps][0]  # e.g. eps = 2: 0.3589 < 0.5094
    assert found[2.0] == pytest.approx((0.509443, 0.358893), abs=1e-6)


def test_attribute_inference_at_paper_sizes_grr():
    # ks = (74, 7, 16): 8288 reports, exact and cheap (only marginals matter)
    ks = (74, 7, 16)
    marg = [np.arange(1, k + 1)[::-1] / (k * (k + 1) / 2) for k in ks]
    pop = np.einsum("a,b,c->abc", *marg).ravel()
    v = q.attribute_inference_accuracy(q.rsfd(ks, 1.0), prior=pop)
    assert 1 / 3 < v < 1


# -- the object -----------------------------------------------------------------------
def test_frozen_equal_hashable():
    P = q.rsfd([2, 3], 1.0, "sue-r")
    assert P == q.rsfd([2, 3], 1.0, "sue-r") and hash(P) == hash(q.rsfd((2, 3), 1.0, "sue-r"))
    assert P != q.rsfd([2, 3], 1.0, "oue-r")
    assert q.rsrfd([2, 2], 1.0, [[0.5, 0.5], [0.5, 0.5]]) != q.rsfd([2, 2], 1.0)
    with pytest.raises(AttributeError):
        P.eps = 2.0  # type: ignore[misc]


def test_bad_parameters():
    with pytest.raises(ParameterError, match="randomizer"):
        q.rsfd([2, 3], 1.0, "olh")
    with pytest.raises(ParameterError, match="randomizer"):
        q.rsrfd([2, 3], 1.0, [[0.5, 0.5], [1 / 3] * 3], "oue-z")
    with pytest.raises(ParameterError, match="priors"):
        q.rsrfd([2, 3], 1.0, [[0.5, 0.5]])
    with pytest.raises(PriorError, match=r"priors\[1\]"):
        q.rsrfd([2, 3], 1.0, [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(InputTypeError, match="priors"):
        q.rsrfd([2, 3], 1.0, None)
    with pytest.raises(InputTypeError, match="P must"):
        q.attribute_inference_accuracy(q.grr(3, 1.0))
    with pytest.raises(PriorError):
        q.attribute_inference_accuracy(q.rsfd([2, 3], 1.0), prior=[1.0, 0.0])
    with pytest.raises(ParameterError, match="tuples"):
        q.rsfd([2, 3], 1.0).sample([[0, 3]])
    with pytest.raises(ParameterError, match="tuples"):
        q.rsfd([2, 3], 1.0).sample([0, 1])
