"""SPL and SMP protocol objects with any frequency oracle per attribute.

Expectations derived independently of the implementation: the channels by plain
loops over the flat oracle constructors (SPL: the product of the attributes'
entries; SMP: (1/d) times the sampled attribute's entry), the epsilons from
sequential / parallel composition of the oracles' own epsilons, and unbiasedness
and variance by Monte Carlo over fixed data (a normal band for the mean, a
chi-square band for the sample variance, both from the stated variance).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.protocols.splsmp import multidim_epsilon

FLAT = {
    "grr": q.grr,
    "ss": q.subset_selection,
    "blh": q.blh,
    "olh": q.olh,
    "sue": q.sue,
    "oue": q.oue,
}

CONFIGS = [
    ([2, 3], "grr"),
    ([2, 3], "oue"),
    ([3, 2], ["sue", "grr"]),
    ([2, 2, 2], ["ss", "olh", "blh"]),
    ([4, 2], ["ss", "oue"]),
]


def _names(oracle, d):
    return [oracle] * d if isinstance(oracle, str) else list(oracle)


def _entry(C, x, y):
    return C.matrix[C.inputs.index(x), C.outputs.index(y)]


@pytest.mark.parametrize(("ks", "oracle"), CONFIGS)
def test_spl_channel_is_the_product_of_the_oracles(ks, oracle):
    eps = 1.3
    d = len(ks)
    parts = [FLAT[n](k, eps / d) for n, k in zip(_names(oracle, d), ks, strict=True)]
    C = q.spl_protocol(ks, eps, oracle).channel()
    X = list(itertools.product(*(range(k) for k in ks)))
    Y = list(itertools.product(*(P.outputs for P in parts)))
    assert C.inputs == tuple(X)
    assert set(C.outputs) == set(Y)
    for x in X:
        for y in Y:
            want = math.prod(_entry(P, xi, yi) for P, xi, yi in zip(parts, x, y, strict=True))
            assert _entry(C, x, y) == pytest.approx(want, abs=1e-14)


@pytest.mark.parametrize(("ks", "oracle"), CONFIGS)
def test_smp_channel_is_the_disclosed_choice(ks, oracle):
    eps = 1.3
    d = len(ks)
    parts = [FLAT[n](k, eps) for n, k in zip(_names(oracle, d), ks, strict=True)]
    C = q.smp_protocol(ks, eps, oracle).channel()
    X = list(itertools.product(*(range(k) for k in ks)))
    Y = [(j, y) for j, P in enumerate(parts) for y in P.outputs]
    assert set(C.outputs) == set(Y)
    for x in X:
        for j, y in Y:
            want = _entry(parts[j], x[j], y) / d
            assert _entry(C, x, (j, y)) == pytest.approx(want, abs=1e-14)


@pytest.mark.parametrize("ks", [[2, 2], [2, 3], [3, 2, 2], [5]])
def test_grr_objects_equal_the_flat_channels(ks):
    for eps in (0.0, 0.7, 3.0):
        assert q.spl_protocol(ks, eps).channel() == q.spl(ks, eps)
        assert q.smp_protocol(ks, eps, "grr").channel() == q.smp(ks, eps)


@pytest.mark.parametrize(("ks", "oracle"), CONFIGS)
def test_epsilons_by_composition(ks, oracle):
    # Each oracle's channel has ldp_epsilon equal to its budget. SPL: sequential
    # composition over all tuples (sum of d budgets eps/d = eps), one attribute: eps/d.
    # SMP: every output names one attribute, so both relations give eps.
    eps = 1.3
    d = len(ks)
    spl = q.spl_protocol(ks, eps, oracle).ldp_epsilon()
    assert spl.tuples == pytest.approx(eps, abs=1e-12)
    assert spl.one_attribute == pytest.approx(eps / d, abs=1e-12)
    smp = q.smp_protocol(ks, eps, oracle).ldp_epsilon()
    assert smp.tuples == pytest.approx(eps, abs=1e-12)
    assert smp.one_attribute == pytest.approx(eps, abs=1e-12)


def test_multidim_epsilon_neighbours_by_hand():
    # A hand-made channel over tuples (0,0), (0,1), (1,0), (1,1): the pair (0,0)-(1,1)
    # differs in both attributes and carries the largest ratio 4 (0.8 / 0.2); among
    # neighbours the largest is (0,0)-(0,1) on the second output, 0.6 / 0.2 = 3.
    C = q.Channel(
        [[0.8, 0.2], [0.4, 0.6], [0.4, 0.6], [0.2, 0.8]],
        inputs=[(0, 0), (0, 1), (1, 0), (1, 1)],
    )
    e = multidim_epsilon(C)
    assert e.tuples == pytest.approx(math.log(4))
    assert e.one_attribute == pytest.approx(math.log(3))
    with pytest.raises(InputTypeError, match="value tuples"):
        multidim_epsilon(q.grr(3, 1.0))


def _data(ks, n, seed):
    rng = np.random.default_rng(seed)
    cols = []
    for k in ks:
        w = rng.random(k) + 0.2
        cols.append(rng.choice(k, size=n, p=w / w.sum()))
    return np.stack(cols, axis=1)


MC_CONFIGS = [
    ([3, 4], "grr", 2.0),
    ([3, 4], "oue", 2.0),
    ([4, 3, 2], ["sue", "olh", "ss"], 3.0),
]


@pytest.mark.parametrize("kind", ["spl", "smp"])
@pytest.mark.parametrize(("ks", "oracle", "eps"), MC_CONFIGS)
def test_unbiased_and_variance_by_monte_carlo(kind, ks, oracle, eps):
    n, reps = 400, 400
    tuples = _data(ks, n, seed=5)
    f = [np.bincount(tuples[:, j], minlength=k) / n for j, k in enumerate(ks)]
    make = q.spl_protocol if kind == "spl" else q.smp_protocol
    P = make(ks, eps, oracle)
    rng = np.random.default_rng(11)
    est = [np.empty((reps, k)) for k in ks]
    for r in range(reps):
        for j, fj in enumerate(P.estimate(P.sample(tuples, rng))):
            est[j][r] = fj
    var = P.variance(n, f)
    lo, hi = stats.chi2.ppf([1e-4, 1 - 1e-4], reps - 1)
    for j in range(len(ks)):
        mean = est[j].mean(axis=0)
        band = 4.5 * np.sqrt(var[j] / reps)
        assert np.all(np.abs(mean - f[j]) <= band), (j, mean, f[j], band)
        ratio = (reps - 1) * est[j].var(axis=0, ddof=1) / var[j]
        assert np.all((ratio > lo) & (ratio < hi)), (j, ratio / (reps - 1))


def test_smp_variance_is_about_d_times_the_oracles():
    # For large n, m ~ n / d: the oracle's noise gives d A(f) / n (A: its variance for
    # one user) and sampling m of the n users without replacement gives
    # f (1 - f) (1 / m - 1 / n) ~ (d - 1) f (1 - f) / n.
    ks, eps, n = [3, 4], 1.5, 10**6
    f = [np.array([0.5, 0.3, 0.2]), np.array([0.1, 0.2, 0.3, 0.4])]
    v = q.smp_protocol(ks, eps, "oue").variance(n, f)
    for j, k in enumerate(ks):
        a = q.protocol("oue", k, eps).variance(1, f[j])
        np.testing.assert_allclose(v[j], (2 * a + f[j] * (1 - f[j])) / n, rtol=1e-5)


def test_spl_variance_is_the_oracles_at_eps_over_d():
    ks, eps, n = [3, 4], 1.5, 1000
    v = q.spl_protocol(ks, eps, ["grr", "sue"]).variance(n)
    # GRR(3, 0.75): Var* = q (1 - q) / (n (p - q)^2); SUE bit e^(eps/4) = e^0.1875...
    e = math.exp(0.75)
    p, qq = e / (e + 2), 1 / (e + 2)
    assert v[0] == pytest.approx(np.full(3, qq * (1 - qq) / (n * (p - qq) ** 2)))
    h = math.exp(0.75 / 2)
    p, qq = h / (h + 1), 1 / (h + 1)
    assert v[1] == pytest.approx(np.full(4, qq * (1 - qq) / (n * (p - qq) ** 2)))


def test_frozen_equal_hashable_repr():
    P = q.spl_protocol([2, 3], 1.0, ["grr", "oue"])
    assert P == q.spl_protocol((2, 3), 1.0, ("grr", "oue"))
    assert P != q.smp_protocol([2, 3], 1.0, ["grr", "oue"])
    assert hash(P) == hash(q.spl_protocol([2, 3], 1.0, ["grr", "oue"]))
    assert q.spl_protocol([2, 3], 1.0, ["oue", "oue"]) == q.spl_protocol([2, 3], 1.0, "oue")
    assert repr(P) == "spl_protocol([2, 3], 1.0, oracle=['grr', 'oue'])"
    with pytest.raises(AttributeError, match="frozen"):
        P.eps = 2.0  # type: ignore[misc]


def test_bad_input():
    with pytest.raises(ParameterError, match="oracle must be one of"):
        q.spl_protocol([2, 3], 1.0, "lh")
    with pytest.raises(ParameterError, match="one oracle per attribute"):
        q.smp_protocol([2, 3], 1.0, ["grr"])
    with pytest.raises(InputTypeError, match="oracle"):
        q.smp_protocol([2, 3], 1.0, 3)
    P = q.smp_protocol([2, 3], 1.0)
    with pytest.raises(ParameterError, match="tuples must have shape"):
        P.sample([[0, 1, 2]], rng=0)
    with pytest.raises(InputTypeError, match="SMPReports"):
        P.estimate([np.zeros(3)])
    R = P.sample([[0, 1]], rng=0)  # one user: one attribute nobody sampled
    with pytest.raises(ParameterError, match="no user sampled attribute"):
        P.estimate(R)
    S = q.spl_protocol([2, 3], 1.0)
    with pytest.raises(ParameterError, match="one entry per attribute"):
        S.estimate([np.zeros(2, dtype=int)])
    with pytest.raises(ParameterError, match="eps"):
        q.spl_protocol([2, 3], 0.0).estimate(S.sample([[0, 1]], rng=0))
    with pytest.raises(ParameterError, match="one frequency array per attribute"):
        S.variance(10, [[0.5, 0.5]])


def test_expected_inverse_binomial_sum_and_series(monkeypatch):
    # E[1/m | m >= 1], m ~ Binomial(n, 1/d): by hand for n = 2, d = 2 (m = 1 w.p. 1/2,
    # m = 2 w.p. 1/4, given m >= 1: (1/2 * 1 + 1/4 * 1/2) / (3/4) = 5/6); the series
    # used for huge n agrees with the summed pmf where both run (n = 10^7).
    from qifldp.protocols import splsmp

    assert splsmp._expected_inverse(2, 2) == pytest.approx(5 / 6, abs=1e-15)
    summed = splsmp._expected_inverse(10**7, 3)
    monkeypatch.setattr(splsmp, "_MAX_BINOMIAL_TERMS", 10)
    assert splsmp._expected_inverse(10**7, 3) == pytest.approx(summed, rel=1e-13)
    assert splsmp._expected_inverse(10**15, 3) == pytest.approx(3e-15, rel=1e-14)


def test_objects_pickle():
    # process pools (q.sweep's default executor) pickle their arguments
    import pickle

    for P in (
        q.spl_protocol([2, 3], 1.0, ["grr", "oue"]),
        q.smp_protocol([2, 3], 1.0, "olh"),
        q.rsfd([2, 3], 1.0, "oue-r"),
        q.rsrfd([2, 2], 1.0, [[0.3, 0.7], [0.5, 0.5]]),
    ):
        Q = pickle.loads(pickle.dumps(P))
        assert Q == P
        assert type(Q) is type(P)
