"""PCKV-UE with a general (a, b) (Algorithm 2 with any a): channel, budget, protocol.

Expected values: (i) Algorithms 1 and 2 enumerated directly with a general a (coded
here, independently of the operator construction); (ii) the exact budget derived by
hand (below) and Theorem 2; (iii) the sampler against the explicit channel by a
chi-square test at a fixed seed.

Derivation of the budget. Given the sampled pair (k, v), position i of the output is
independent of the others: P0 = (b/2, b/2, 1 - b) over (1, -1, 0) for i != k, and
(a p, a (1 - p), 1 - a) over (v, -v, 0) for i = k. Relative to P0 the own position has
the likelihood ratios R1 = 2ap/b, R- = 2a(1 - p)/b, R0 = (1 - a)/(1 - b). A set S
samples each of its pairs w.p. 1/ell and a dummy otherwise; the worst pair of sets
(m = min(d, ell) real keys, all values matching the output in the numerator and all
opposite in the denominator) gives
    eps = ln((m R1 + (ell - m) R0) / min(ell R0, m R- + (ell - m) R0)),
and R1 / R0 = 2p e^eps1, R- / R0 = 2(1 - p) e^eps1 (eps1 = ln(a(1 - b)/(b(1 - a)))):
a cancels. At m = ell it is max(eps2, eps1 + ln(2p)) = Theorem 2.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp.errors import ParameterError

A_VALUES = [0.1, 0.3, 0.5, 0.75, 0.95]
BUDGETS = [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3), (0.0, 1.0), (1.2, 0.0)]
SIZES = [(1, 1), (2, 1), (2, 2), (3, 2), (1, 2), (1, 3), (2, 3)]


def _b(a, eps1):
    # eps1 = ln(a (1 - b) / (b (1 - a)))  <=>  b = a / (a + (1 - a) e^eps1)
    return a / (a + (1 - a) * math.exp(eps1))


def _reference(d, ell, eps1, eps2, a):
    """Algorithms 1 and 2 enumerated with a general a: (sets, outputs, matrix)."""
    b = _b(a, eps1)
    p = math.exp(eps2) / (math.exp(eps2) + 1)
    sets = [()]
    for j in range(1, min(d, ell) + 1):
        for keys in itertools.combinations(range(1, d + 1), j):
            for values in itertools.product((1, -1), repeat=j):
                sets.append(tuple(zip(keys, values, strict=True)))
    width = d + ell
    outputs = list(itertools.product((1, -1, 0), repeat=width))
    M = np.zeros((len(sets), len(outputs)))
    for r, S in enumerate(sets):
        sampled = {pair: 1 / ell for pair in S}
        for k in range(d + 1, d + ell + 1):
            for v in (1, -1):
                sampled[(k, v)] = (ell - len(S)) / ell / ell / 2
        for (k, v), w in sampled.items():
            for c, y in enumerate(outputs):
                prob = 1.0
                for i, yi in enumerate(y, start=1):
                    if i == k:
                        prob *= {v: a * p, -v: a * (1 - p), 0: 1 - a}[yi]
                    else:
                        prob *= {1: b / 2, -1: b / 2, 0: 1 - b}[yi]
                M[r, c] += w * prob
    return sets, outputs, M


def _exact_eps(d, ell, eps1, eps2, a):
    b = _b(a, eps1)
    p = math.exp(eps2) / (math.exp(eps2) + 1)
    r1, r_minus, r0 = 2 * a * p / b, 2 * a * (1 - p) / b, (1 - a) / (1 - b)
    m = min(d, ell)
    return math.log((m * r1 + (ell - m) * r0) / min(ell * r0, m * r_minus + (ell - m) * r0))


@pytest.mark.parametrize(("d", "ell"), [(1, 1), (2, 1), (2, 2), (1, 3)])
@pytest.mark.parametrize("a", [0.2, 0.5, 0.9])
@pytest.mark.parametrize(("eps1", "eps2"), [(1.0, 0.5), (2.5, 0.0)])
def test_channel_matches_algorithm_2_with_general_a(d, ell, a, eps1, eps2):
    sets, outputs, M = _reference(d, ell, eps1, eps2, a)
    C = q.pckv_ue(d, eps1, eps2, ell, a=a)
    assert C.inputs == tuple(sets) and C.outputs == tuple(outputs)
    np.testing.assert_allclose(C.matrix, M, rtol=0, atol=1e-13)


def test_default_a_is_the_papers_one_half():
    C = q.pckv_ue(2, 1.0, 0.5, 2)
    np.testing.assert_allclose(q.pckv_ue(2, 1.0, 0.5, 2, a=0.5).matrix, C.matrix, atol=1e-15)
    assert q.pckv_ue(2, 1.0, 0.5, 2, a=None) == C


@pytest.mark.parametrize(("d", "ell"), SIZES)
@pytest.mark.parametrize(("eps1", "eps2"), BUDGETS)
@pytest.mark.parametrize("a", A_VALUES)
def test_true_epsilon_is_the_derived_closed_form(d, ell, eps1, eps2, a):
    true = q.ldp_epsilon(q.pckv_ue(d, eps1, eps2, ell, a=a))
    assert math.isclose(true, _exact_eps(d, ell, eps1, eps2, a), rel_tol=1e-9, abs_tol=1e-12)
    stated = q.pckv_epsilon(eps1, eps2, ell, "ue")
    if d >= ell:  # Theorem 2 holds with equality for every a
        assert math.isclose(true, stated, rel_tol=1e-9, abs_tol=1e-12)
    else:
        assert true <= stated + 1e-12
    # and the protocol object's closed form (positive budgets only)
    if eps1 > 0 and eps2 > 0:
        P = q.PCKV(d, stated, ell, eps1=eps1, eps2=eps2, a=a)
        assert math.isclose(P.true_epsilon(), true, rel_tol=1e-9, abs_tol=1e-12)


def test_budget_does_not_depend_on_a_pinned():
    # d = 1, ell = 2, eps1 = eps2 = 1 (d < ell): 2p e = 2e^2/(e + 1), 2(1 - p) e = 2e/(e + 1)
    # eps = ln((2e^2/(e+1) + 1) / min(2, 2e/(e+1) + 1)); (3e + 1)/(e + 1) > 2, so
    # eps = ln((2e^2 + e + 1) / (2 (e + 1)))
    e = math.e
    expected = math.log((2 * e * e + e + 1) / (2 * (e + 1)))
    assert round(expected, 6) == 0.911167
    for a in (0.05, 0.5, 0.99):
        assert math.isclose(q.ldp_epsilon(q.pckv_ue(1, 1.0, 1.0, 2, a=a)), expected, rel_tol=1e-12)


@pytest.mark.parametrize("a", [0.3, 0.8])
def test_protocol_with_general_a(a):
    P = q.PCKV(3, 1.0, 2, a=a)
    assert P.params["a"] == a
    assert math.isclose(P.params["b"], _b(a, P.eps1), rel_tol=1e-13)
    assert P.channel() == q.pckv_ue(3, P.eps1, P.eps2, 2, a=a)
    assert math.isclose(q.ldp_epsilon(P.channel()), 1.0, rel_tol=1e-9)  # fully spent
    assert P != q.PCKV(3, 1.0, 2) and P == q.PCKV(3, 1.0, 2, a=a)
    assert repr(P).endswith(f"a={a!r})") and eval(repr(P), {"PCKV": q.PCKV}) == P
    import pickle

    assert pickle.loads(pickle.dumps(P)) == P


@pytest.mark.parametrize("S", [{}, {1: 1.0, 2: -1.0}, {2: 1.0}])
def test_sampler_matches_channel_with_general_a(S):
    P = q.PCKV(2, 1.0, 2, a=0.8)
    C = P.channel()
    expected = C.matrix[C.inputs.index(tuple(sorted(S.items())))]
    n = 40_000
    reports = P.sample([S] * n, rng=2468)
    column = {label: c for c, label in enumerate(C.outputs)}
    idx = np.array([column[tuple(int(x) for x in r)] for r in reports])
    counts = np.bincount(idx, minlength=expected.size)
    assert counts[expected == 0].sum() == 0
    keep = expected > 0
    assert stats.chisquare(counts[keep], n * expected[keep]).pvalue > 1e-4


def test_general_a_rejected_where_it_does_not_apply():
    with pytest.raises(ParameterError, match="a applies to PCKV-UE only"):
        q.PCKV(3, 1.0, mechanism="grr", a=0.7)
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ParameterError, match=r"a must lie in the open interval \(0"):
            q.PCKV(3, 1.0, a=bad)
        with pytest.raises(ParameterError, match="a must lie"):
            q.pckv_ue(2, 1.0, 1.0, a=bad)
    with pytest.raises(ParameterError, match="a must not be NaN"):
        q.PCKV(3, 1.0, a=float("nan"))
