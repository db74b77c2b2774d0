"""Deciding refinement with verified certificates: qifldp against HiGHS and libqif, same run.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m pytest benchmarks/bench_refinement.py``
(pytest-benchmark; one BLAS thread = one core). At the end of the module a table
lists, per case, qifldp's median time and peak traced memory (tracemalloc, a
separate run), the baselines' times measured in the same run, and the ratios.
Set ``QIFLDP_BENCH_FULL=1`` to also run the slow baselines (minutes each).

Cases (random instances: rows of A from Dirichlet(1), B = A·R with R's rows from
Dirichlet(1), seeded; "fails" cases swap the pair):
- 16x1024 vs 16x64, 50x200 vs 50x200, 16x1024 vs 16x1024 (the issue's targets:
  <= 1 s, 1 s, 5 s with a verified certificate);
- one-hot SUE vs THE (eps = 1, theta = 0.8) at k = 10 and 12 (target <= 2 s);
- the plain HiGHS LP baseline (find row-stochastic W with A·W = B, sparse
  constraints, zero objective: the textbook formulation) needs minutes at the target
  sizes, so it runs on 16x256 vs 16x32 and 30x80 vs 30x80, where qifldp runs too;
- ``qif`` (libqif's Python bindings, ``pip install qif``; benchmark-only, skipped
  when absent): ``qif.refinement.refined_by`` with its default method, which
  returns no certificate, at every size where it finishes in reasonable time. Its
  verdict is compared with qifldp's (the last lines list disagreements; e.g. qif
  answers True to grr(3, 1) ⊑ grr(3, 1 + 1e-4), which is false: the less private
  grr(3, 1 + 1e-4) has the larger Bayes vulnerability). qif's default method is
  fast on pairs deep inside the cone but certifies nothing; its ``"lp"`` method
  took 409 s on 50x200 vs 50x200 (holds) in a one-off measurement here, and its
  default needed 33 s for one-hot SUE vs THE at k = 8.

Measured here (one BLAS thread, median of 3, wall clock on 2 cores shared with about
six other processes, so the ratios matter more than the seconds; 2026-12-03):
16x1024 vs 16x64: 0.076 s holds (qif 0.011 s, 0.15x) / 0.21 s fails (qif 7.4 s, 35x);
50x200 vs 50x200: 0.031 s / 0.18 s (qif 2.1x / 3.8x); 16x1024 vs 16x1024: 0.18 s /
0.92 s (38 MiB); one-hot k = 10: 0.79 s / 0.18 s; k = 12: 4.3 s (141 MiB, the 4096 x
4096 witness) / 0.35 s. Plain HiGHS: 73 s on 16x256 vs 16x32 and 78 s on 30x80 vs 30x80
(holds), about 5,000x slower than qifldp. Max case, holds: nnls 0.15-1.4 s against one
HiGHS LP per column 4-20 s (7-26x). The one verdict that differs from qif's is qif's
"True" for grr(3, 1) vs grr(3, 1 + 1e-4), which is false.

Every qifldp answer is re-checked here: the witness against the API tolerances, the
counterexample's gap with ``g_vulnerability``.
"""

from __future__ import annotations

import os
import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from _pairs import check_certificate as _check, random_pair as _instance
from _report import write_report
from scipy.optimize import linprog

import qifldp as q

try:  # benchmark-only baseline, never a dependency of qifldp
    import qif  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    qif = None

FULL = os.environ.get("QIFLDP_BENCH_FULL", "") == "1"
_MEDIANS: dict[str, float] = {}
_PEAKS: dict[str, float] = {}
_VERDICTS: dict[str, tuple[bool, bool]] = {}


CASES = {
    "16x1024 vs 16x64": _instance(16, 1024, 64),
    "50x200 vs 50x200": _instance(50, 200, 200),
    "16x1024 vs 16x1024": _instance(16, 1024, 1024),
    "16x256 vs 16x32": _instance(16, 256, 32),
    "30x80 vs 30x80": _instance(30, 80, 80),
}
ONE_HOT = {k: (q.sue(k, 1.0), q.the(k, 1.0, 0.8)) for k in (10, 12)}


def _peak(job) -> float:
    tracemalloc.start()
    job()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _timed(benchmark, name, job, rounds):
    out = benchmark.pedantic(job, rounds=rounds, iterations=1)
    if benchmark.stats is not None:
        _MEDIANS[name] = benchmark.stats.stats.median
    return out


def plain_highs(A: np.ndarray, B: np.ndarray) -> bool:
    """The textbook LP: W >= 0, (A ⊗ I) vec W = vec B, W·1 = 1 (HiGHS, zero objective)."""
    n, m = A.shape
    p = B.shape[1]
    A_eq = sp.vstack(
        [
            sp.kron(sp.csr_matrix(A), sp.identity(p)),
            sp.kron(sp.identity(m), sp.csr_matrix(np.ones((1, p)))),
        ],
        format="csc",
    )
    b_eq = np.concatenate([B.ravel(), np.ones(m)])
    res = linprog(np.zeros(m * p), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    assert res.status in (0, 2), res.message
    return res.status == 0


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    yield
    names = [f"{c} {d}" for c in CASES for d in ("holds", "fails")] + [
        f"one-hot k={k} {d}" for k in ONE_HOT for d in ("holds", "fails")
    ]
    lines = ["", "bench_refinement: median seconds (peak traced MiB) and ratios, same run"]
    for name in names:
        ours = _MEDIANS.get("qifldp " + name)
        if ours is None:
            continue
        text = f"  {name}: qifldp {ours:.3f} s ({_PEAKS.get(name, float('nan')):.0f} MiB)"
        for base in ("highs", "qif"):
            t = _MEDIANS.get(f"{base} {name}")
            if t is not None:
                text += f" | {base} {t:.3f} s ({t / ours:.3g}x)"
        lines.append(text)
    for name in [f"{c} {d}" for c in _MAX_CASE_CASES for d in ("holds", "fails")]:
        ours, lp = _MEDIANS.get("max-case nnls " + name), _MEDIANS.get("max-case highs " + name)
        if ours is not None and lp is not None:
            lines.append(
                f"  max-case {name}: nnls {ours:.3f} s | one HiGHS LP per column {lp:.3f} s "
                f"({lp / ours:.3g}x)"
            )
    for name, (a, b) in _VERDICTS.items():
        if a != b:
            lines.append(f"  verdicts differ on {name}: qifldp {a}, qif {b}")
    write_report(request, lines)


@pytest.mark.parametrize("direction", ["holds", "fails"])
@pytest.mark.parametrize("case", list(CASES))
def test_qifldp(benchmark, case, direction):
    A, B = CASES[case]
    if direction == "fails":
        A, B = B, A
    name = f"{case} {direction}"
    r = _timed(benchmark, "qifldp " + name, lambda: q.refines(A, B), rounds=3)
    assert r.holds == (direction == "holds")
    _check(A, B, r)
    _PEAKS[name] = _peak(lambda: q.refines(A, B))


@pytest.mark.parametrize("direction", ["holds", "fails"])
@pytest.mark.parametrize("k", list(ONE_HOT))
def test_qifldp_one_hot(benchmark, k, direction):
    S, T = ONE_HOT[k]
    A, B = (S, T) if direction == "holds" else (T, S)  # QIF paper Lemma 11 + Lemma 4
    name = f"one-hot k={k} {direction}"
    r = _timed(benchmark, "qifldp " + name, lambda: q.refines(A, B), rounds=3)
    assert r.holds == (direction == "holds")
    _check(A, B, r)
    _PEAKS[name] = _peak(lambda: q.refines(A, B))


@pytest.mark.parametrize("direction", ["holds", "fails"])
@pytest.mark.parametrize(
    "case", ["16x256 vs 16x32", "30x80 vs 30x80"] + (["16x1024 vs 16x64"] if FULL else [])
)
def test_plain_highs_baseline(benchmark, case, direction):
    A, B = CASES[case]
    if direction == "fails":
        A, B = B, A
    name = f"{case} {direction}"
    ok = _timed(benchmark, "highs " + name, lambda: plain_highs(A, B), rounds=1)
    assert ok == (direction == "holds")


_QIF_CASES = ["16x256 vs 16x32", "30x80 vs 30x80", "16x1024 vs 16x64", "50x200 vs 50x200"] + (
    ["16x1024 vs 16x1024"] if FULL else []
)


@pytest.mark.skipif(qif is None, reason="qif (libqif bindings) not installed")
@pytest.mark.parametrize("direction", ["holds", "fails"])
@pytest.mark.parametrize("case", _QIF_CASES)
def test_qif_baseline(benchmark, case, direction):
    A, B = CASES[case]
    if direction == "fails":
        A, B = B, A
    name = f"{case} {direction}"
    verdict = _timed(
        benchmark, "qif " + name, lambda: bool(qif.refinement.refined_by(A, B)), rounds=1
    )
    _VERDICTS[name] = (direction == "holds", verdict)


@pytest.mark.skipif(qif is None, reason="qif (libqif bindings) not installed")
@pytest.mark.skipif(not FULL, reason="minutes per call; set QIFLDP_BENCH_FULL=1")
@pytest.mark.parametrize("k", [10])
def test_qif_one_hot(benchmark, k):
    S, T = ONE_HOT[k]
    verdict = _timed(
        benchmark,
        f"qif one-hot k={k} holds",
        lambda: bool(qif.refinement.refined_by(S.matrix, T.matrix)),
        rounds=1,
    )
    _VERDICTS[f"one-hot k={k} holds"] = (True, verdict)


@pytest.mark.skipif(qif is None, reason="qif (libqif bindings) not installed")
def test_qif_near_boundary_verdict():
    # grr(3, 1) ⋢ grr(3, 1 + 1e-4): the Bayes vulnerability of the second is larger
    A, B = q.grr(3, 1.0), q.grr(3, 1.0 + 1e-4)
    assert q.bayes_vulnerability(B) > q.bayes_vulnerability(A)
    t = time.perf_counter()
    r = q.refines(A, B)
    _MEDIANS["qifldp grr(3,1) vs grr(3,1+1e-4)"] = time.perf_counter() - t
    assert not r.holds
    _VERDICTS["grr(3, 1) vs grr(3, 1 + 1e-4)"] = (
        r.holds,
        bool(qif.refinement.refined_by(A.matrix, B.matrix)),
    )


_MAX_CASE_CASES = ["30x80 vs 30x80", "50x200 vs 50x200", "16x1024 vs 16x64"]


@pytest.mark.parametrize("method", ["nnls", "highs"])
@pytest.mark.parametrize("direction", ["holds", "fails"])
@pytest.mark.parametrize("case", _MAX_CASE_CASES)
def test_max_case(benchmark, case, direction, method):
    """max_case_refines: least squares per column (the default) vs one HiGHS LP per column."""
    A, B = CASES[case]
    if direction == "fails":
        A, B = B, A
    r = _timed(
        benchmark,
        f"max-case {method} {case} {direction}",
        lambda: q.max_case_refines(A, B, method=method),
        rounds=3,
    )
    assert r.holds == (direction == "holds")
    if r.holds:
        assert r.witness.min() >= 0 and np.abs(A @ r.witness - B).max() <= 1e-12
    else:
        assert r.counterexample.gap > 0
