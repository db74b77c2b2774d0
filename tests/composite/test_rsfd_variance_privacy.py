"""RS+FD / RS+RFD: the estimators' variances (Monte Carlo) and the epsilons on the channel.

Expectations: variances by Monte Carlo over fixed data (chi-square band from the
stated variance, fixed seeds); epsilons from the plain enumeration of the protocol
description in test_rsfd (no operators), maximised over pairs by numpy here, and the
closed forms derived in the comments.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q

from .test_rsfd import RANDOMIZERS, _enumerate


def _fixed_data(ks, n, seed):
    rng = np.random.default_rng(seed)
    cols = []
    for k in ks:
        w = rng.random(k) + 0.3
        cols.append(rng.choice(k, size=n, p=w / w.sum()))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
@pytest.mark.parametrize("rfd", [False, True])
def test_variance_by_monte_carlo(randomizer, rfd):
    if rfd and randomizer.endswith("-z"):
        pytest.skip("RS+RFD has no zero-vector variant")
    ks, eps, n, reps = (3, 4, 2), 1.5, 300, 500
    tuples = _fixed_data(ks, n, seed=3)
    f = [np.bincount(tuples[:, j], minlength=k) / n for j, k in enumerate(ks)]
    priors = [np.array([0.6, 0.3, 0.1]), np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.7, 0.3])]
    P = q.rsrfd(ks, eps, priors, randomizer) if rfd else q.rsfd(ks, eps, randomizer)
    rng = np.random.default_rng(21)
    est = [np.empty((reps, k)) for k in ks]
    for r in range(reps):
        for j, fj in enumerate(P.estimate(P.sample(tuples, rng))):
            est[j][r] = fj
    var = P.variance(n, f)
    lo, hi = stats.chi2.ppf([1e-4, 1 - 1e-4], reps - 1)
    for j in range(len(ks)):
        assert np.all(np.abs(est[j].mean(axis=0) - f[j]) <= 4.5 * np.sqrt(var[j] / reps))
        ratio = (reps - 1) * est[j].var(axis=0, ddof=1) / var[j]
        assert np.all((ratio > lo) & (ratio < hi)), (j, ratio / (reps - 1))


def test_variance_by_hand_grr():
    # ks = (2, 2), eps = ln 2: eps' = ln 3, GRR(2, ln 3) has p = 3/4, q = 1/4; uniform
    # fakes pi = 1/2. A user with value v supports v w.p. r1 = (3/4 + 1/2) / 2 = 5/8,
    # otherwise r0 = (1/4 + 1/2) / 2 = 3/8. f = (1, 0) on attribute 0:
    # Var = 4 [1 (5/8)(3/8)] / (n (1/2)^2) for v = 0, 4 (3/8)(5/8) / (n / 4) for v = 1.
    v = q.rsfd([2, 2], math.log(2)).variance(10, [[1.0, 0.0], [0.5, 0.5]])
    np.testing.assert_allclose(v[0], [16 * 15 / 64 / 10] * 2, rtol=1e-12)
    np.testing.assert_allclose(v[1], [16 * 15 / 64 / 10] * 2, rtol=1e-12)


def _epsilons(ks, eps, randomizer):
    """(all pairs, one-attribute pairs) of the enumerated channel, maximised here."""
    X, _, cond = _enumerate(ks, eps, randomizer)
    C = cond.mean(axis=0)
    logC = np.log(C)
    diff = logC[:, None, :] - logC[None, :, :]
    every = float(diff.max())
    hamming = np.array(
        [[sum(a != b for a, b in zip(x, y, strict=True)) == 1 for y in X] for x in X]
    )
    one = float(diff[hamming].max())
    return every, one


EPS_CASES = [((2, 2), "equal"), ((3, 3), "equal"), ((2, 3), "unequal"), ((2, 2, 3), "unequal")]


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
@pytest.mark.parametrize(("ks", "kind"), EPS_CASES)
def test_what_holds_on_the_channel(randomizer, ks, kind):
    """What holds of the paper's claim "RS+FD is eps-LDP (sampled attribute with eps')":

    - over whole tuples: the epsilon is eps' > eps for every randomizer (the claim fails);
    - over one-attribute neighbours:
      * UE-z: exactly eps, whatever the domain sizes. Derivation: Pr(y | x) =
        Q(y) / d Σ_j t_j with t_j = a = p/q if bit x_j of y_j is set, else
        b = (1-p)/(1-q); changing x_j changes one term, so the ratio is at most
        ((d-1) b + a) / (d b) = (d - 1 + e^eps') / d = e^eps;
      * GRR: eps for equal domain sizes, above eps for unequal ones;
      * UE-r: above eps unless every k_j = 2 (found by the enumeration; no closed
        form derived here: the fake one-hot reports are not the zero vector's, so the
        other attributes' terms no longer bound the ratio as for UE-z).
    """
    eps = 1.0
    P = q.rsfd(ks, eps, randomizer)
    got = P.ldp_epsilon()
    every, one = _epsilons(ks, eps, randomizer)
    assert got.tuples == pytest.approx(every, abs=1e-9)
    assert got.one_attribute == pytest.approx(one, abs=1e-9)
    d = len(ks)
    assert got.tuples == pytest.approx(math.log(d * (math.e - 1) + 1), abs=1e-9)  # eps'
    assert got.tuples > eps
    if randomizer.endswith("-z") or (randomizer == "grr" and kind == "equal"):
        assert got.one_attribute == pytest.approx(eps, abs=1e-9)
    elif randomizer.endswith("-r") and all(k == 2 for k in ks):
        assert got.one_attribute == pytest.approx(eps, abs=1e-9)
    else:
        assert got.one_attribute > eps + 1e-3


def test_ue_r_equal_domains_three_values_pinned():
    # ks = (3, 3), eps = 1: one-attribute epsilon 1.125039 (enumeration), above eps = 1.
    e = q.rsfd([3, 3], 1.0, "oue-r").ldp_epsilon()
    assert e.one_attribute == pytest.approx(1.125039, abs=1e-6)
    assert e.one_attribute == pytest.approx(_epsilons((3, 3), 1.0, "oue-r")[1], abs=1e-12)


def test_rsrfd_epsilons_on_the_channel():
    # RS+RFD: a skewed fake prior makes the neighbour epsilon exceed eps even for GRR
    # with equal domains; the value is the enumerated channel's.
    ks, eps = (2, 2), 1.0
    priors = [[0.9, 0.1], [0.2, 0.8]]
    P = q.rsrfd(ks, eps, priors, "grr")
    X, _, cond = _enumerate(ks, eps, "grr", priors)
    logC = np.log(cond.mean(axis=0))
    diff = logC[:, None, :] - logC[None, :, :]
    pairs = [
        (i, j)
        for i, j in itertools.permutations(range(4), 2)
        if sum(np.array(X[i]) != np.array(X[j])) == 1
    ]
    one = max(diff[i, j].max() for i, j in pairs)
    e = P.ldp_epsilon()
    assert e.one_attribute == pytest.approx(one, abs=1e-9)
    assert e.tuples == pytest.approx(float(diff.max()), abs=1e-9)
    assert e.one_attribute > eps
