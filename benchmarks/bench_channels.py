"""Building the explicit OUE and LH channels and their Bayes capacity, against baselines.

Run: ``python -m pytest benchmarks/bench_channels.py`` (pytest-benchmark). Each
group times qifldp's constructor + ``bayes_capacity`` and one or more baselines
measured in the same run; the ratios of the medians are printed at the end of the module.

Baselines (each builds the same channel, checked by an assertion):
- ``oue_kron``: one row per input as a chain of ``np.kron`` of the bit rows;
- ``oue_loops`` / ``lh_loops``: the paper's entry formula in plain Python loops
  over the output labels (how a direct transcription of the definition runs);
- ``lh_dense_cascade``: the literal product E . G with the dense (g^(k+1))^2
  matrix G = I ⊗ GRR_g, only feasible at small k (k = 6, g = 3: G has 4.8 M
  entries; at k = 10 it would have 3.1e10 entries, 250 GB).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from _report import write_report

import qifldp as q
from qifldp.mechanisms import lh_encoding, lh_perturbation

EPS = 1.0
_MEDIANS: dict[str, float] = {}
_PAIRS = [
    ("oue(16)", "qifldp_oue16", "oue_kron"),
    ("oue(16)", "qifldp_oue16", "oue_loops"),
    ("local_hashing(10, 3)", "qifldp_lh_10_3", "lh_loops"),
    ("local_hashing(6, 3)", "qifldp_lh_6_3", "lh_dense_cascade"),
]


# -- baselines ---------------------------------------------------------------------
def oue_kron(k: int, eps: float) -> q.Channel:
    B = q.oue_bit(eps).matrix
    rows = [
        functools.reduce(np.kron, [B[1] if m == x else B[0] for m in range(k)]) for x in range(k)
    ]
    return q.Channel(np.array(rows), outputs=list(itertools.product((0, 1), repeat=k)))


def oue_loops(k: int, eps: float) -> q.Channel:
    p, qq = 0.5, 1 / (math.exp(eps) + 1)
    outputs = list(itertools.product((0, 1), repeat=k))
    M = np.empty((k, len(outputs)))
    for x in range(k):
        for j, y in enumerate(outputs):
            v = 1.0
            for m, b in enumerate(y):
                one = p if m == x else qq
                v *= one if b else 1 - one
            M[x, j] = v
    return q.Channel(M, outputs=outputs)


def lh_loops(k: int, eps: float, g: int) -> q.Channel:
    e = math.exp(eps)
    p, qq = e / (e + g - 1), 1 / (e + g - 1)
    n = g**k
    outputs = [(h, z) for h in itertools.product(range(g), repeat=k) for z in range(g)]
    M = np.array([[(p if h[x] == z else qq) / n for (h, z) in outputs] for x in range(k)])
    return q.Channel(M, outputs=outputs)


def lh_dense_cascade(k: int, eps: float, g: int) -> q.Channel:
    return q.cascade(lh_encoding(k, g), lh_perturbation(k, eps, g))


# -- benchmarks --------------------------------------------------------------------
def _run(benchmark, name, build, rounds=None):
    def job():
        C = build()
        return C, q.bayes_capacity(C)

    if rounds is None:
        C, ml = benchmark(job)
    else:
        C, ml = benchmark.pedantic(job, rounds=rounds, iterations=1)
    if benchmark.stats is not None:
        _MEDIANS[name] = benchmark.stats.stats.median
    return C, ml


@pytest.fixture(scope="module", autouse=True)
def _ratio_report(request):
    yield
    lines = ["", "bench_channels: median time and speed-up over each baseline (same run)"]
    for what, ours, base in _PAIRS:
        if ours in _MEDIANS and base in _MEDIANS:
            lines.append(
                f"  {what}: qifldp {_MEDIANS[ours] * 1e3:.1f} ms, {base} "
                f"{_MEDIANS[base] * 1e3:.1f} ms -> {_MEDIANS[base] / _MEDIANS[ours]:.1f}x"
            )
    write_report(request, lines)


@pytest.mark.benchmark(group="oue(16, 1.0): build + bayes_capacity")
def test_qifldp_oue16(benchmark):
    C, ml = _run(benchmark, "qifldp_oue16", lambda: q.oue(16, EPS))
    assert C.shape == (16, 65536)
    assert ml == pytest.approx(q.formulas.bayes_capacity_oue(16, EPS), rel=1e-12)


@pytest.mark.benchmark(group="oue(16, 1.0): build + bayes_capacity")
def test_oue_kron(benchmark):
    C, ml = _run(benchmark, "oue_kron", lambda: oue_kron(16, EPS))
    assert C.isclose(q.oue(16, EPS), atol=1e-15)


@pytest.mark.benchmark(group="oue(16, 1.0): build + bayes_capacity")
def test_oue_loops(benchmark):
    C, ml = _run(benchmark, "oue_loops", lambda: oue_loops(16, EPS), rounds=2)
    assert C.isclose(q.oue(16, EPS), atol=1e-15)


@pytest.mark.benchmark(group="local_hashing(10, 1.0, 3): build + bayes_capacity")
def test_qifldp_lh_10_3(benchmark):
    C, ml = _run(benchmark, "qifldp_lh_10_3", lambda: q.local_hashing(10, EPS, 3))
    assert C.shape == (10, 177147)
    assert ml == pytest.approx(q.formulas.bayes_capacity_lh(10, EPS, 3), rel=1e-12)


@pytest.mark.benchmark(group="local_hashing(10, 1.0, 3): build + bayes_capacity")
def test_lh_loops(benchmark):
    C, ml = _run(benchmark, "lh_loops", lambda: lh_loops(10, EPS, 3), rounds=3)
    assert C.isclose(q.local_hashing(10, EPS, 3), atol=1e-15)


@pytest.mark.benchmark(group="local_hashing(6, 1.0, 3): build + bayes_capacity")
def test_qifldp_lh_6_3(benchmark):
    C, ml = _run(benchmark, "qifldp_lh_6_3", lambda: q.local_hashing(6, EPS, 3))
    assert ml == pytest.approx(q.formulas.bayes_capacity_lh(6, EPS, 3), rel=1e-12)


@pytest.mark.benchmark(group="local_hashing(6, 1.0, 3): build + bayes_capacity")
def test_lh_dense_cascade(benchmark):
    C, ml = _run(benchmark, "lh_dense_cascade", lambda: lh_dense_cascade(6, EPS, 3), rounds=3)
    assert C.isclose(q.local_hashing(6, EPS, 3), atol=1e-15)
