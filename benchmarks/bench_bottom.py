"""The everyday calls at the speed of their arithmetic: ratios against numpy and qif, same run.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m pytest benchmarks/bench_bottom.py``.
The table printed at the end gives

- warm: ``q.bayes_capacity`` and ``q.ldp_epsilon`` of a 1000 x 1000 plain array against
  the bare numpy expressions (``M.max(0).sum()``; ``log(max(M.max(0) / M.min(0)))``),
  best of 7 x 30 calls each (target: within 2x; the array is validated in place:
  row sums and a minimum, which the numpy expressions skip);
- first use in a fresh interpreter after ``import qifldp`` (the cost a script or a CLI
  call pays): the first call minus numpy's own first call, minimum over 3 interpreters
  (target: within 20 ms), and the first ``q.oue(10, 1.0)`` and ``q.refines`` of two
  small explicit channels (sympy is no longer loaded by them);
- certified refinement of the standard "holds" cases (a: 16x1024 vs 16x64, b: 50x200 vs
  50x200, c: 16x1024 vs 16x1024; random instances as in bench_refinement.py), warm,
  median of 3, beside qif's default method (``qif.refinement.refined_by``, uncertified)
  when qif is installed (it is not a dependency; ``pip install qif``).

Note: with several BLAS threads on a loaded machine (more runnable processes than cores),
OpenBLAS's spinning threads make the refinement cases 2-5x slower than with one thread
(measured here: b 2.5 s with one thread, 11 s with two, load average 10 on 2 cores);
run benchmarks with one BLAS thread.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

import numpy as np
import pytest
from _report import write_report

import qifldp as q

try:  # benchmark-only baseline, never a dependency of qifldp
    import qif  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    qif = None

ROOT = Path(__file__).resolve().parent.parent
_LINES: list[str] = []


def _array(n: int = 1000) -> np.ndarray:
    M = np.random.default_rng(0).random((n, n))
    return M / M.sum(axis=1, keepdims=True)


def _best(f, number: int = 30, repeat: int = 7) -> float:
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number


def _np_eps(M: np.ndarray) -> float:
    return float(np.log(np.max(M.max(axis=0) / M.min(axis=0))))


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    yield
    write_report(request, ["", "bench_bottom: qifldp against numpy and qif, same run", *_LINES])


def test_measures_warm():
    M = _array()
    for name, ours, base in (
        ("bayes_capacity", lambda: q.bayes_capacity(M), lambda: float(M.max(axis=0).sum())),
        ("ldp_epsilon", lambda: q.ldp_epsilon(M), lambda: _np_eps(M)),
    ):
        assert ours() == pytest.approx(base(), rel=1e-12)
        t_ours, t_base = _best(ours), _best(base)
        _LINES.append(
            f"  warm {name} 1000x1000: qifldp {t_ours * 1e3:.3f} ms, numpy {t_base * 1e3:.3f} ms "
            f"-> {t_ours / t_base:.2f}x (target <= 2x)"
        )


_FRESH = """
import time
import qifldp as q, numpy as np
M = np.random.default_rng(0).random((1000, 1000)); M /= M.sum(axis=1, keepdims=True)
t0 = time.perf_counter(); float(M.max(axis=0).sum()); t1 = time.perf_counter()
q.bayes_capacity(M); t2 = time.perf_counter()
q.ldp_epsilon(M); t3 = time.perf_counter()
q.oue(10, 1.0); t4 = time.perf_counter()
q.refines(q.grr(4, 2.0), q.grr(4, 1.0)); t5 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)
"""


def test_first_use_in_a_fresh_interpreter(tmp_path):
    # as installed: compiled bytecode cached (PYTHONDONTWRITEBYTECODE would make every
    # interpreter compile qifldp's sources again, ~0.1 s of the first call); one warm-up run
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(tmp_path)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, env=env, check=True)
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", _FRESH], capture_output=True, text=True, env=env, check=True
        )
        runs.append([float(v) for v in out.stdout.split()])
    np_first, cap, eps, oue, ref = (min(col) for col in zip(*runs, strict=True))
    _LINES.append(
        f"  first use after import qifldp: bayes_capacity {cap * 1e3:.1f} ms, ldp_epsilon "
        f"{eps * 1e3:.1f} ms; numpy's first call {np_first * 1e3:.1f} ms -> "
        f"+{(cap - np_first) * 1e3:.1f} ms (target <= 20 ms)"
    )
    _LINES.append(
        f"  first use: q.oue(10, 1.0) {oue:.3f} s (the protocols, no sympy); "
        f"q.refines(grr(4, 2), grr(4, 1)) {ref:.3f} s (the solvers' imports)"
    )


def _instance(n: int, m: int, p: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.ones(m), size=n)
    return A, A @ rng.dirichlet(np.ones(p), size=m)


HOLDS = {"a 16x1024 vs 16x64": (16, 1024, 64), "b 50x200 vs 50x200": (50, 200, 200)}
HOLDS["c 16x1024 vs 16x1024"] = (16, 1024, 1024)


@pytest.mark.parametrize("case", list(HOLDS))
def test_refinement_holds_cases(case):
    A, B = _instance(*HOLDS[case])
    q.refines(A, B)  # warm
    times = []
    for _ in range(3):
        t = time.perf_counter()
        r = q.refines(A, B)
        times.append(time.perf_counter() - t)
        W = r.witness
        assert r.holds and W.min() >= -1e-9 and np.abs(A @ W - B).max() <= 1e-7
    ours = statistics.median(times)
    text = f"  refines {case} (holds, certified): {ours:.3f} s"
    if qif is not None:
        t = time.perf_counter()
        verdict = bool(qif.refinement.refined_by(A, B))
        base = time.perf_counter() - t
        text += f" | qif default (uncertified, {verdict}) {base:.3f} s -> {ours / base:.2f}x"
    else:
        text += " | qif not installed (pip install qif for the ratio)"
    _LINES.append(text)
