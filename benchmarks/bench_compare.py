"""`qifldp compare` over the grid of issue 8: wall time and peak memory of each run.

Run: ``python benchmarks/bench_compare.py`` (or ``python -m pytest -s
benchmarks/bench_compare.py``). Not part of the test suite (``testpaths`` in
pyproject.toml leaves ``benchmarks/`` out) and not a timed assertion: it prints
one row per (k, eps) with the exit status, the seconds, the peak resident memory
(of the command and the worker processes it forks, from ``wait4``), and how many
ordered pairs the diagram decided or skipped. The target is every run within
60 s and 2 GB, with a table and a diagram or a stated skip.

Options: ``--ks 2,3,4`` and ``--epss 0.5,1`` restrict the grid; ``--time-limit``
is passed on to ``compare``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

KS = (2, 3, 4, 5, 8, 10, 100, 1000, 10**6)
EPSS = (0.5, 1.0, 1.6, 2.0, 3.0, 5.0)
TARGET_SECONDS = 60.0
TARGET_BYTES = 2 * 2**30


def run_compare(k: int, eps: float, extra: tuple[str, ...]) -> dict:
    """One ``qifldp --json compare`` in a fresh interpreter: exit status, seconds, peak RSS
    (``wait4`` on the child: its own and its reaped workers' maximum), decided/skipped pairs."""
    cmd = [sys.executable, "-m", "qifldp", "--json", "compare", "--k", str(k), "--eps", str(eps)]
    t0 = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        r_out, w_out = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: exec the command with stdout to the pipe
            os.close(r_out)
            os.dup2(w_out, 1)
            os.dup2(devnull.fileno(), 2)
            os.execv(sys.executable, [*cmd, *extra])
        os.close(w_out)
        chunks = []
        with os.fdopen(r_out) as reader:
            chunks.append(reader.read())
        _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - t0
    row = {
        "k": k,
        "eps": eps,
        "status": os.waitstatus_to_exitcode(status),
        "seconds": seconds,
        "peak_mb": usage.ru_maxrss / 1024,
    }
    try:
        doc = json.loads("".join(chunks))
        row["decided"] = sum(doc.get("decided_by", {}).values())
        row["skipped"] = len(doc.get("skipped", []))
        row["edges"] = len(doc.get("edges", []))
    except json.JSONDecodeError:
        row["decided"] = row["skipped"] = row["edges"] = -1
    return row


def grid(ks=KS, epss=EPSS, extra: tuple[str, ...] = (), echo: bool = True) -> list[dict]:
    rows = []
    if echo:
        print(
            f"{'k':>8} {'eps':>5} {'exit':>4} {'seconds':>8} {'peak MB':>8} "
            f"{'decided':>7} {'skipped':>7} {'edges':>5}  target"
        )
    for k in ks:
        for eps in epss:
            row = run_compare(k, eps, extra)
            row["ok"] = (
                row["status"] == 0
                and row["seconds"] <= TARGET_SECONDS
                and row["peak_mb"] * 2**20 <= TARGET_BYTES
            )
            rows.append(row)
            if echo:
                print(
                    f"{k:>8} {eps:>5g} {row['status']:>4} {row['seconds']:>8.2f} "
                    f"{row['peak_mb']:>8.0f} {row['decided']:>7} {row['skipped']:>7} "
                    f"{row['edges']:>5}  {'ok' if row['ok'] else 'MISSED'}",
                    flush=True,
                )
    if echo:
        worst_t = max(r["seconds"] for r in rows)
        worst_m = max(r["peak_mb"] for r in rows)
        missed = sum(not r["ok"] for r in rows)
        print(
            f"{len(rows)} runs; slowest {worst_t:.1f} s, largest peak {worst_m:.0f} MB; "
            f"{missed} missed the target (exit 0, <= {TARGET_SECONDS:g} s, <= 2 GB)"
        )
    return rows


def test_compare_grid():
    """pytest entry point (run explicitly): prints the grid; every run must exit 0."""
    rows = grid()
    assert all(r["status"] == 0 for r in rows)


def _floats(text: str) -> list[float]:
    return [float(t) for t in text.split(",") if t.strip()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", default=",".join(map(str, KS)))
    parser.add_argument("--epss", default=",".join(map(str, EPSS)))
    parser.add_argument("--time-limit", default=None)
    a = parser.parse_args()
    extra = ("--time-limit", a.time_limit) if a.time_limit else ()
    grid([int(x) for x in _floats(a.ks)], _floats(a.epss), extra)
