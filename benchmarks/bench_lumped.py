"""Lumped (symmetric) refinement at k = 10^2 ... 10^6: the decision against the orbit LP route.

Run: ``python -m pytest benchmarks/bench_lumped.py`` (``QIFLDP_BENCH_KS=100,1000`` to pick
k). Every (pair, k, route) runs in its own fresh interpreter with one BLAS thread; the
table printed at the end gives, per pair and k, the time and peak memory (ru_maxrss above
the interpreter's level before the call: solver memory included) of

- ``engine``: ``qifldp.symmetric.refines`` as shipped: the cheap complete routes first
  (bitwise lifting, the likelihood-ratio and Bayes-capacity gains, the tight-ratio
  reduction on its own O(k) orbits), then the orbit LP;
- ``orbit LP``: the same call with the lifting and the tight-ratio reduction switched off
  before the LP, i.e. the general orbit LP (HiGHS) with its float and exact
  certificates; refused by its size rule from k = 2000 on (MAX_ORBIT_VARIABLES).

Both within ``TIME_LIMIT`` seconds. A row says "undecided" with the error's first words
when a route gives no verdict; the test asserts that the verdicts agree wherever both
routes answer, and every returned certificate is re-checked here (the witness's orbit
equations by ``OrbitProblem.check`` on its support, the counterexample's gap recomputed
by ``qifldp.symmetric.g_vulnerability``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _report import write_report

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 120.0
KS = [int(v) for v in os.environ.get("QIFLDP_BENCH_KS", "100,1000,10000,100000,1000000").split(",")]
#: Pairs (A, B) for "A ⊑ B"; eps 24 puts SUE ⊑ OUE above its boundary up to k = 10^5.
PAIRS = {
    "SUE ⊑ OUE (eps 24)": "sym.sue(k, 24.0), sym.oue(k, 24.0)",
    "OUE ⊑ SUE (eps 2)": "sym.oue(k, 2.0), sym.sue(k, 2.0)",
    "OUE ⊑ THE (eps 1, θ 0.8)": "sym.oue(k, 1.0), sym.the(k, 1.0, 0.8)",
    "SUE ⊑ THE (eps 1, θ 0.8)": "sym.sue(k, 1.0), sym.the(k, 1.0, 0.8)",
    "GRR ⊑ BLH (eps 1)": "sym.grr(k, 1.0), sym.blh(k, 1.0)",
    "BLH ⊑ GRR (eps 1)": "sym.blh(k, 1.0), sym.grr(k, 1.0)",
}
ROUTES = ("engine", "orbit LP")
_ROWS: dict[tuple[str, int, str], dict] = {}

_SCRIPT = r"""
import json, resource, sys, time
import numpy as np
import qifldp.symmetric as sym
import qifldp.symmetric.refinement as R
from qifldp.symmetric.orbit_lp import OrbitProblem
pair, k, route, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
if route == "orbit LP":
    R.lifted_refinement = lambda *a, **kw: None
    R.tight_ratio_first = lambda *a, **kw: None
A, B = eval("(" + pair + ")", {"sym": sym, "k": k})
sym.refines(sym.grr(3, 1.0), sym.grr(3, 2.0))  # the solvers' imports, outside the measurement
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
try:
    r = sym.refines(A, B, time_limit=limit)
except Exception as exc:
    out = {"verdict": None, "why": f"{type(exc).__name__}: {str(exc)[:160]}"}
else:
    out = {"verdict": bool(r.holds), "why": r.method}
    if r.holds:
        W = r.witness
        if hasattr(W, "mass"):  # an orbit witness: its equations on its own support
            iS = np.searchsorted(A.sizes, W.s)
            iT = np.searchsorted(B.sizes, W.t)
            P = OrbitProblem(A, B, support=(iS, iT, W.j))
            res = float(np.abs(P.residual(W.mass)).max())
            assert res <= 1e-7, res
            out["check"] = f"orbit residual {res:.1e}"
        else:
            out["check"] = "bitwise witness (lifting: checked class by class)"
    else:
        ce = r.counterexample
        gap = sym.g_vulnerability(B, ce.gain) - sym.g_vulnerability(A, ce.gain)
        out["check"] = f"gap {gap:.2e} (certified {ce.gap:.2e})"
out["seconds"] = time.perf_counter() - t0
out["peak_mib"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps(out))
"""


def _run(pair: str, k: int, route: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    env["OMP_NUM_THREADS"] = "1"
    args = [sys.executable, "-c", _SCRIPT, PAIRS[pair], str(k), route, str(TIME_LIMIT)]
    try:
        done = subprocess.run(
            args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=TIME_LIMIT * 1.5 + 60
        )
    except subprocess.TimeoutExpired:
        return {"verdict": None, "why": "killed: over 1.5 x the time limit", "seconds": None}
    if done.returncode != 0:
        return {"verdict": None, "why": "crash: " + done.stderr.strip()[-160:], "seconds": None}
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    yield
    lines = ["", f"bench_lumped: seconds / peak MiB per route (time limit {TIME_LIMIT:g} s)"]
    for pair in PAIRS:
        lines.append(f"  {pair}")
        for k in KS:
            cells = []
            for route in ROUTES:
                row = _ROWS.get((pair, k, route))
                if row is None:
                    continue
                if row["verdict"] is None:
                    cells.append(f"{route}: undecided ({row['why'][:70]})")
                else:
                    t, m = row["seconds"], row.get("peak_mib", float("nan"))
                    v = "holds" if row["verdict"] else "fails"
                    cells.append(f"{route}: {v} {t:.2f} s {m:.0f} MiB")
            e, o = _ROWS.get((pair, k, "engine")), _ROWS.get((pair, k, "orbit LP"))
            if (
                e
                and o
                and e.get("seconds")
                and o.get("seconds")
                and None
                not in (
                    e["verdict"],
                    o["verdict"],
                )
            ):
                cells.append(f"speed-up {o['seconds'] / e['seconds']:.3g}x")
            lines.append(f"    k = {k:>7}: " + " | ".join(cells))
    write_report(request, lines)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("pair", list(PAIRS))
def test_lumped_routes(pair, k):
    for route in ROUTES:
        _ROWS[(pair, k, route)] = _run(pair, k, route)
    e, o = _ROWS[(pair, k, "engine")], _ROWS[(pair, k, "orbit LP")]
    if e["verdict"] is not None and o["verdict"] is not None:
        assert e["verdict"] == o["verdict"], (pair, k, e, o)
    assert e["verdict"] is not None or k > 1000 or o["verdict"] is None, (pair, k, e)
