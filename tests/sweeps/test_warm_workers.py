"""Maps decide in their workers' own processes (no fork per refinement), in workers
warmed once (issue 23, item 3): the warm-up runs once per worker process, on a process
pool (given or the default one) and on threads, through the one task function of
sweeps/engine.py (Dask's workers run the same task; benchmarks/bench_maps.py maps on a
LocalCluster).

Independent checks: the refinements a map makes are counted by a recording stand-in of
``qifldp.refinement.refines`` in this process (a forked child's calls would not reach
this list); the warm-ups by a counter each worker process reports with its points.
"""

from __future__ import annotations

import concurrent.futures as cf
import os

import pytest

import qifldp as q
from qifldp.errors import InputTypeError

_WARM_CALLS = {"n": 0}


def _count_warm() -> None:
    _WARM_CALLS["n"] += 1


def _report(k: int) -> dict:
    return {"pid": os.getpid(), "warmed": _WARM_CALLS["n"]}


def _count_warm_threads() -> None:
    _WARM_CALLS["threads"] = _WARM_CALLS.get("threads", 0) + 1


def _report_threads(k: int) -> dict:
    return {"warmed": _WARM_CALLS.get("threads", 0)}


def test_each_process_worker_is_warmed_once_before_its_points():
    # the default pool (its initializer; a given pool is warmed by the first task of each
    # worker, the path of the thread test below): every point ran in a worker whose
    # warm-up had run exactly once before it
    t = q.sweep(_report, {"k": list(range(4))}, progress=False, chunksize=1, warm=_count_warm)
    assert t["warmed"].tolist() == [1] * 4 and t["error"].tolist() == [None] * 4


def test_threads_share_one_warm_up_per_process():
    grid = {"k": list(range(5))}
    for _ in range(2):  # a second sweep in the same process is not warmed again
        with cf.ThreadPoolExecutor(3) as pool:
            t = q.sweep(
                _report_threads,
                grid,
                executor=pool,
                progress=False,
                chunksize=1,
                warm=_count_warm_threads,
            )
        assert t["warmed"].tolist() == [1] * 5


def test_warm_must_be_callable_and_picklable_for_a_process_pool():
    with pytest.raises(InputTypeError, match="warm must be None or a callable"):
        q.sweep(_report, {"k": [1]}, executor=cf.ThreadPoolExecutor(1), warm=3)
    with pytest.raises(InputTypeError, match="warm must be picklable"):
        q.sweep(_report, {"k": [1]}, progress=False, warm=lambda: None)


def test_map_refinements_run_in_this_process_without_a_fork(monkeypatch):
    import qifldp.refinement
    import qifldp.sweeps.comparability

    calls: list[int] = []
    real = qifldp.refinement.refines

    def recording(A, B, **options):
        calls.append(os.getpid())
        return real(A, B, **options)

    monkeypatch.setattr(qifldp.refinement, "refines", recording)
    # the workers' warm-up is not the subject here (test_each_process_worker_... is)
    monkeypatch.setattr(qifldp.sweeps.comparability, "warm_refinement", lambda: None)
    with cf.ThreadPoolExecutor(2) as pool:
        m = q.comparability_map("grr", "ss", [3], [4.0], executor=pool, progress=False)
    # both directions reached this process's refines
    assert calls == [os.getpid()] * 2
    for row in m.itertuples():
        A, B = q.protocol("grr", row.k, row.eps), q.protocol("ss", row.k, row.eps)
        assert (row.a_refines_b, row.b_refines_a) == (
            bool(real(A, B)),
            bool(real(B, A)),
        )


def _broken_warm() -> None:
    msg = "no solver here"
    raise ImportError(msg)


def test_a_failed_warm_up_is_logged_once_per_worker(caplog):
    # the points still run (and meet the error themselves); the warm-up's failure is
    # said once in this process, not once per point nor per sweep
    with caplog.at_level("WARNING", logger="qifldp.sweeps"):
        for _ in range(2):
            with cf.ThreadPoolExecutor(2) as pool:
                t = q.sweep(
                    _report,
                    {"k": [1, 2, 3]},
                    executor=pool,
                    progress=False,
                    chunksize=1,
                    warm=_broken_warm,
                )
            assert t["error"].tolist() == [None] * 3
    said = [r.getMessage() for r in caplog.records if r.name == "qifldp.sweeps"]
    assert len(said) == 1, said
    assert f"worker process {os.getpid()}" in said[0]
    assert "_broken_warm failed (ImportError: no solver here)" in said[0]
