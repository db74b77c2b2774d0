"""Lumped (symmetric) refinement at k = 10^2 ... 10^6: the decision against the orbit LP route.

Run: ``python -m pytest benchmarks/bench_lumped.py`` (``QIFLDP_BENCH_KS=100,1000`` to pick
k). Every (pair, k, route) runs in its own fresh interpreter with one BLAS thread; the
table printed at the end gives, per pair and k, the time and peak memory (ru_maxrss above
the interpreter's level before the call: solver memory included) of

- ``engine``: ``qifldp.symmetric.refines`` as shipped: the cheap routes first (bitwise
  lifting, the likelihood-ratio and Bayes-capacity gains, the set-guessing gains searched
  over t in O(k) per size, the tight-ratio reduction on its own O(k) orbits, a
  single-size-class A class by class, the bitwise lifting at the 2x2 boundary), then
  the orbit LP;
- ``orbit LP``: the same call with the lifting (plain and at the boundary), the
  set-guessing gains, the class-by-class route and the tight-ratio reduction switched off
  before the LP, i.e. the general orbit LP (HiGHS) with its float and exact certificates;
  refused by its size rule from k = 2000 on (MAX_ORBIT_VARIABLES).

- ``max case (sorted)`` / ``max case (scan)``: max-case refinement of the same pairs
  (:func:`qifldp.symmetric.max_case.max_case_refines`), O(k log k) beside the scan over
  every generator (O(k^2)), the scan up to ``SCAN_MAX_K``; verdicts asserted equal.

Seconds, CPU seconds and peak memory are the call's, taken before this script re-checks
its certificate. Both within ``TIME_LIMIT`` seconds, at every k: beyond
``ORBIT_LP_MAX_K`` the orbit LP route says what its size rule refuses (its row is
undecided, with the rule's words) unless its gain checks before the LP decide. Then
``LIMIT_CASES``: the engine under a time limit shorter than its decision, the seconds it
spent against the limit. A row says "undecided" with the error's first words when a
route gives no verdict; the test asserts that the verdicts agree wherever both routes
answer (except at the rounding boundary: a verdict up to rounding, or one refuted only
exactly on the stored floats by a gap below float resolution, marked so in the table),
and every returned certificate is re-checked here (the witness's orbit equations by
``OrbitProblem.check`` on its support, the counterexample's gap recomputed by
``qifldp.symmetric.g_vulnerability``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _report import write_report

from qifldp.formulas import the_oue_threshold

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 120.0
KS = [int(v) for v in os.environ.get("QIFLDP_BENCH_KS", "100,1000,10000,100000,1000000").split(",")]
#: Lemma 10's threshold theta*(2) (qifldp.formulas.the_oue_threshold): OUE ⊑ THE on the
#: boundary of the 2x2 order, decided up to rounding by the bitwise lifting at the boundary.
THETA_STAR_2 = float(the_oue_threshold(2.0))
#: Pairs (A, B) for "A ⊑ B", both directions; eps 24 puts SUE ⊑ OUE above its boundary up to
#: k = 10^5, eps 2 below it.
PAIRS = {
    "SUE ⊑ OUE (eps 24)": "sym.sue(k, 24.0), sym.oue(k, 24.0)",
    "OUE ⊑ SUE (eps 24)": "sym.oue(k, 24.0), sym.sue(k, 24.0)",
    "SUE ⊑ OUE (eps 2)": "sym.sue(k, 2.0), sym.oue(k, 2.0)",
    "OUE ⊑ SUE (eps 2)": "sym.oue(k, 2.0), sym.sue(k, 2.0)",
    "OUE ⊑ THE (eps 1, θ 0.8)": "sym.oue(k, 1.0), sym.the(k, 1.0, 0.8)",
    "THE ⊑ OUE (eps 1, θ 0.8)": "sym.the(k, 1.0, 0.8), sym.oue(k, 1.0)",
    "SUE ⊑ THE (eps 1, θ 0.8)": "sym.sue(k, 1.0), sym.the(k, 1.0, 0.8)",
    "THE ⊑ SUE (eps 1, θ 0.8)": "sym.the(k, 1.0, 0.8), sym.sue(k, 1.0)",
    "OUE ⊑ THE at threshold (eps 2)": f"sym.oue(k, 2.0), sym.the(k, 2.0, {THETA_STAR_2!r})",
    "THE at threshold ⊑ OUE (eps 2)": f"sym.the(k, 2.0, {THETA_STAR_2!r}), sym.oue(k, 2.0)",
    "GRR ⊑ BLH (eps 1)": "sym.grr(k, 1.0), sym.blh(k, 1.0)",
    "BLH ⊑ GRR (eps 1)": "sym.blh(k, 1.0), sym.grr(k, 1.0)",
}
ROUTES = ("engine", "orbit LP")
#: Max-case refinement of the same pairs: the O(k log k) route (sorted extremes) beside
#: the scan over every generator (O(k^2), the route it replaced), up to SCAN_MAX_K.
MAX_CASE_ROUTES = ("max case (sorted)", "max case (scan)")
SCAN_MAX_K = 1000
#: The orbit LP fits its size rule (2 |sizes|^2 <= MAX_ORBIT_VARIABLES) up to this k.
ORBIT_LP_MAX_K = 1000
#: (pair, k, time_limit): a decision longer than its limit, stopped by it; the table
#: prints the seconds spent over the limit (the target: within 10 %).
LIMIT_CASES = [
    ("OUE ⊑ SUE (eps 2)", 10**5, 0.5),
    ("OUE ⊑ SUE (eps 2)", 10**5, 1.0),
    ("OUE ⊑ SUE (eps 2)", 10**6, 1.0),
    ("OUE ⊑ SUE (eps 2)", 10**6, 2.0),
    ("OUE ⊑ SUE (eps 2)", 10**6, 5.0),
    ("OUE ⊑ SUE (eps 2)", 10**6, 10.0),
    ("SUE ⊑ OUE (eps 24)", 10**6, 1.0),
    ("OUE ⊑ THE (eps 1, θ 0.8)", 10**6, 2.0),
    ("OUE ⊑ THE (eps 1, θ 0.8)", 10**6, 5.0),
    ("GRR ⊑ BLH (eps 1)", 10**6, 1.0),
    ("SUE ⊑ THE (eps 1, θ 0.8)", 10**6, 0.5),
]
#: The target: a decision ends by its time limit plus this fraction of it.
LIMIT_SLACK = 0.10
_ROWS: dict[tuple[str, int, str], dict] = {}
_LIMITS: dict[tuple[str, int, float], dict] = {}

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
    R.tries_gains = lambda *a, **kw: []
    R.penalty_gains = lambda *a, **kw: []
    R.single_source_result = lambda *a, **kw: None
    R.boundary_lifting_result = lambda *a, **kw: None
A, B = eval("(" + pair + ")", {"sym": sym, "k": k})
# the solvers' imports and first-use loading (an orbit LP, the lifting's 2x2 decision
# either way), outside the measurement: a warm worker's state
sym.refines(sym.grr(3, 1.0), sym.grr(3, 2.0))
sym.refines(sym.oue(4, 2.0), sym.sue(4, 2.0))
sym.refines(sym.sue(4, 1.0), sym.the(4, 1.0, 0.8))
from qifldp.symmetric.max_case import max_case_refines
max_case = route.startswith("max case")
max_case_refines(sym.grr(3, 1.0), sym.grr(3, 2.0))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
c0 = time.process_time()
try:
    if max_case:
        how = "scan" if route == "max case (scan)" else "sorted"
        r = max_case_refines(A, B, time_limit=limit, method=how)
    else:
        r = sym.refines(A, B, time_limit=limit)
except Exception as exc:
    r = exc
# the decision's time and memory, before the certificate is re-checked here
spent = {
    "seconds": time.perf_counter() - t0,
    "cpu": time.process_time() - c0,
    "peak_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024,
}
if isinstance(r, Exception):
    out = {"verdict": None, "why": f"{type(r).__name__}: {str(r)[:160]}"}
else:
    out = {"verdict": bool(r.holds), "why": r.method}
    # a verdict at the rounding boundary: up to rounding, or refuted only exactly on the
    # stored floats by a gap below float resolution (the two may differ there)
    ce = r.counterexample
    out["rounding"] = bool(r.up_to_rounding) or bool(
        not r.holds and r.exact and ce is not None and ce.gap < 1e-15
    )
    if max_case:  # re-checked by the route: each class's weights, the gap (exact if small)
        ce = r.counterexample
        out["check"] = (
            f"class residual {r.witness.residual:.1e}" if r.holds
            else f"gap {ce.gap:.2e} (exact: {ce.gap_exact is not None})"
        )
    elif r.holds:
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
out.update(spent)
print(json.dumps(out))
"""


def _run(pair: str, k: int, route: str, limit: float = TIME_LIMIT) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    env["OMP_NUM_THREADS"] = "1"
    args = [sys.executable, "-c", _SCRIPT, PAIRS[pair], str(k), route, str(limit)]
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
            for route in ROUTES + MAX_CASE_ROUTES:
                row = _ROWS.get((pair, k, route))
                if row is None:
                    continue
                if row["verdict"] is None:
                    cells.append(f"{route}: undecided ({row['why'][:70]})")
                else:
                    t, m = row["seconds"], row.get("peak_mib", float("nan"))
                    v = "holds" if row["verdict"] else "fails"
                    if row.get("rounding"):
                        v += " (rounding boundary)"
                    cpu = row.get("cpu", float("nan"))  # the load stretches wall seconds
                    cells.append(f"{route}: {v} {t:.2f} s ({cpu:.2f} CPU) {m:.0f} MiB")
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
                if e.get("cpu") and o.get("cpu"):
                    cells.append(f"CPU {o['cpu'] / e['cpu']:.3g}x")
            n, c = (_ROWS.get((pair, k, r)) for r in MAX_CASE_ROUTES)
            if n and c and n.get("seconds") and c.get("seconds"):
                cells.append(f"max case speed-up {c['seconds'] / n['seconds']:.3g}x")
            lines.append(f"    k = {k:>7}: " + " | ".join(cells))
    if _LIMITS:
        lines.append(
            "  time limits (engine): wall seconds spent / limit (CPU seconds; the target: "
            f"<= {1 + LIMIT_SLACK:g} x the limit)"
        )
    for (pair, k, limit), row in _LIMITS.items():
        spent = row.get("seconds")
        what = "decided" if row["verdict"] is not None else row["why"][:90]
        if spent:
            ok = "met" if spent <= (1 + LIMIT_SLACK) * limit else "MISSED"
            over = (
                f"{spent:.2f} s / {limit:g} s = {spent / limit:.2f} ({row.get('cpu', 0):.2f} s "
                f"CPU) {ok}"
            )
        else:
            over = "no time"
        lines.append(f"    {pair}, k = {k}: {over} ({what})")
    write_report(request, lines)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("pair", list(PAIRS))
def test_lumped_routes(pair, k):
    for route in ROUTES:
        _ROWS[(pair, k, route)] = _run(pair, k, route)
    e, o = _ROWS[(pair, k, "engine")], _ROWS.get((pair, k, "orbit LP"))
    if o is not None and e["verdict"] is not None and o["verdict"] is not None:
        if not (e.get("rounding") or o.get("rounding")):
            assert e["verdict"] == o["verdict"], (pair, k, e, o)
    assert e["verdict"] is not None or k > 1000 or o is None or o["verdict"] is None, (pair, k)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("pair", list(PAIRS))
def test_max_case_routes(pair, k):
    for route in MAX_CASE_ROUTES:
        if route == "max case (scan)" and k > SCAN_MAX_K:
            continue  # quadratic: k = 10^4 would take ~100 times k = 10^3
        _ROWS[(pair, k, route)] = _run(pair, k, route)
    n, o = _ROWS[(pair, k, MAX_CASE_ROUTES[0])], _ROWS.get((pair, k, MAX_CASE_ROUTES[1]))
    if o is not None and o["verdict"] is not None:
        assert n["verdict"] == o["verdict"], (pair, k, n, o)


@pytest.mark.parametrize(("pair", "k", "limit"), LIMIT_CASES)
def test_time_limit_is_honoured(pair, k, limit):
    if k not in KS:
        pytest.skip(f"k = {k} not in QIFLDP_BENCH_KS")
    _LIMITS[(pair, k, limit)] = _run(pair, k, "engine", limit)
