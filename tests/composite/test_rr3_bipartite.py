"""Three-answer RR on a weighted bipartite graph (qifldp.protocols.bipartite).

Provenance: exact moments by enumerating every rounding and every answer of a tiny
graph (probabilities multiplied out here); Monte Carlo bands from the stated variance
with fixed seeds on a graph from qifldp.keyvalue_data; the epsilon of a user's whole
report against ldp_epsilon of the explicit product channel (q.compose of the per-edge
channels), restricted to the possible state tuples when the degree is bounded.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, SizeError

P_ASYM = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]])


def _truth(data, m):
    k = np.zeros(m)
    w = np.zeros(m)
    for user in data:
        for item, weight in user.items():
            k[item - 1] += 1
            w[item - 1] += weight
    return k, w


def test_rounding_keeps_the_weight_in_expectation():
    B = q.BipartiteRR3(3, eps=1.0)
    n = 40_000
    data = [{1: 0.5, 2: -0.2}] * n
    S = B.states(data, rng=1)
    assert np.all(S[:, 2] == 0) and np.all(S[:, :2] > 0)
    for j, w in ((0, 0.5), (1, -0.2)):
        p = (1 + w) / 2
        assert abs((S[:, j] == 2).mean() - p) < 5 * math.sqrt(p * (1 - p) / n)


def _exact_moments(P, data, m):
    """Mean and variance of (k-hat, w-hat) over every rounding and answer (enumerated)."""
    B = q.BipartiteRR3(m, rr=P)
    cells = [(i, j) for i in range(len(data)) for j in range(m)]
    dists = []  # per cell: list of (probability, answer)
    for i, j in cells:
        w = data[i].get(j + 1)
        states = [(1.0, 0)] if w is None else [((1 - w) / 2, 1), ((1 + w) / 2, 2)]
        dist: dict[int, float] = {}
        for ps, s in states:
            for y in range(3):
                dist[y] = dist.get(y, 0.0) + ps * P[s, y]
        dists.append(list(dist.items()))
    mean = np.zeros((2, m))
    second = np.zeros((2, m))
    for combo in itertools.product(*dists):
        prob = math.prod(p for _, p in combo)
        R = np.zeros((len(data), m), dtype=np.int64)
        for (i, j), (y, _) in zip(cells, combo, strict=True):
            R[i, j] = y
        est = np.array(B.estimate(R))
        mean += prob * est
        second += prob * est**2
    return mean, second - mean**2


def test_estimates_unbiased_and_variance_exact_on_a_tiny_graph():
    data = [{1: 0.5}, {1: -1.0, 2: 0.25}, {}]
    mean, var = _exact_moments(P_ASYM, data, 2)
    k, w = _truth(data, 2)
    assert np.allclose(mean[0], k, atol=1e-12) and np.allclose(mean[1], w, atol=1e-12)
    var_k, var_w = q.BipartiteRR3(2, rr=P_ASYM).variance(data)
    assert np.allclose(var_k, var[0], atol=1e-12) and np.allclose(var_w, var[1], atol=1e-12)


@pytest.mark.parametrize("rr", [q.RR3.grr(1.5), q.RR3(P_ASYM)])
def test_monte_carlo_band_on_a_generated_graph(rr):
    n, m, T = 300, 5, 2000
    data = q.keyvalue_data(n, m, s=1.0, mean_length=2.0, rng=8)
    B = q.BipartiteRR3(m, rr=rr)
    reports = B.sample(data * T, rng=9).reshape(T, n, m)
    est = np.array([np.concatenate(B.estimate(R)) for R in reports])  # (T, 2m)
    k, w = _truth(data, m)
    var = np.concatenate(B.variance(data))
    truth = np.concatenate((k, w))
    assert np.all(np.abs(est.mean(axis=0) - truth) < 5 * np.sqrt(var / T))
    emp = est.var(axis=0, ddof=1)
    assert np.all(np.abs(emp - var) < 5 * var * math.sqrt(2 / (T - 1)))
    # the averages: the sums over items / m, variance the sum / m^2
    avg = np.array([B.averages(R) for R in reports])
    assert np.allclose(avg[:, 0], est[:, :m].sum(axis=1) / m)
    vk, vw = B.average_variance(data)
    assert vk == pytest.approx(var[:m].sum() / m**2) and vw == pytest.approx(var[m:].sum() / m**2)
    assert abs(avg[:, 0].var(ddof=1) - vk) < 5 * vk * math.sqrt(2 / (T - 1))
    assert abs(avg[:, 0].mean() - k.sum() / m) < 5 * math.sqrt(vk / T)


def test_graph_average_counts_both_ends():
    B = q.BipartiteRR3(2, rr=np.eye(3))
    R = np.array([[2, 0], [1, 0], [2, 2]])  # 4 edges, weights +1, -1, +1, +1
    assert B.averages(R) == (2.0, 1.0)
    assert B.averages(R, over="graph") == pytest.approx((2 * 4 / 5, 2 * 2 / 5))
    with pytest.raises(ParameterError, match="over"):
        B.averages(R, over="pairs")


def _random_rr3(seed, eps_max=3.0):
    gen = np.random.default_rng(seed)
    while True:
        P = gen.dirichlet(np.ones(3) * 2, size=3)
        if q.RR3(P).eps <= eps_max:
            return q.RR3(P)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
@pytest.mark.parametrize("rr", [q.RR3.grr(1.0), _random_rr3(1), _random_rr3(2)])
def test_epsilon_of_all_edges_is_the_product_channel_epsilon(m, rr):
    B = q.BipartiteRR3(m, rr=rr)
    C = B.channel()
    assert C.shape == (3**m, 3**m)
    true = q.ldp_epsilon(C)
    assert B.epsilon() == pytest.approx(true, rel=1e-12)
    assert true == pytest.approx(m * rr.eps, rel=1e-12)  # sequential sum attained
    r = q.composition_epsilon(*B.edge_channels())
    assert r.true == pytest.approx(true) and r.sequential == pytest.approx(m * rr.eps)
    # bounded degree: only tuples with at most s edges are possible inputs
    tuples = C.inputs
    for s in range(m + 1):
        rows = [i for i, x in enumerate(tuples) if sum(v != 0 for v in x) <= s]
        sub = q.Channel(C.matrix[rows], [tuples[i] for i in rows], C.outputs)
        expected = q.ldp_epsilon(sub) if len(rows) > 1 else 0.0
        assert B.epsilon(max_degree=s) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_grr_bounded_degree_is_min_m_2s_times_eps():
    for m, s in ((10, 2), (10, 7), (1000, 3), (10**9, 10**6)):
        B = q.BipartiteRR3(m, eps=0.5)
        assert B.epsilon(max_degree=s) == pytest.approx(min(m, 2 * s) * 0.5, rel=1e-12)
        assert B.epsilon() == pytest.approx(m * 0.5, rel=1e-12)


def test_bad_input():
    with pytest.raises(ParameterError, match="exactly one"):
        q.BipartiteRR3(3)
    with pytest.raises(ParameterError, match="exactly one"):
        q.BipartiteRR3(3, rr=P_ASYM, eps=1.0)
    with pytest.raises(ParameterError, match="invertible"):
        q.BipartiteRR3(3, rr=np.full((3, 3), 1 / 3))
    with pytest.raises(ParameterError, match="m must be >= 1"):
        q.BipartiteRR3(0, eps=1.0)
    B = q.BipartiteRR3(3, eps=1.0)
    with pytest.raises(ParameterError, match="1..d = 1..3"):
        B.sample([{4: 0.5}])
    with pytest.raises(ParameterError, match="shape"):
        B.estimate(np.zeros((2, 4), dtype=int))
    with pytest.raises(ParameterError, match="answers 0, 1, 2"):
        B.estimate(np.full((2, 3), 3))
    with pytest.raises(InputTypeError, match="integer"):
        B.estimate(np.zeros((2, 3)))
    with pytest.raises(SizeError, match="epsilon"):
        q.BipartiteRR3(7, eps=1.0).channel()
    with pytest.raises(ParameterError, match="max_degree"):
        B.epsilon(max_degree=-1)


def test_audit_entries_eq6_and_edges_composition():
    from qifldp import audit as A

    r = {x.key: x for x in A.audit(["rr3.eq6", "rr3.edges_composition"])}
    assert r["rr3.eq6"].verdict == A.REFUTED
    # 4 edges, n + m = 5: printed 4 / 10 = 2/5; the averages 4 / 2 and 8 / 5
    assert "<k> = 2/5" in r["rr3.eq6"].details and "|E|/m = 2 " in r["rr3.eq6"].details
    c = r["rr3.edges_composition"]
    assert c.verdict == A.CONDITIONAL and "0 mismatches" in c.details
