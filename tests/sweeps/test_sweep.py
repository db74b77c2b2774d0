"""q.sweep and q.comparability_map (issue 12, items 1-2).

Values are checked against what they must be independently: the grid order by
itertools.product, the seeded points against SeedSequence(seed).spawn(n) called
here, the Monte Carlo estimates against the GRR variance band, the comparability
verdicts against direct q.refines calls and a plain LP on the explicit channels.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import math
import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.sweeps import CERTIFICATE_COLUMNS
from tests.sweeps._reference import plain_lp_refines

F = np.array([0.5, 0.3, 0.2])  # the true frequencies of the Monte Carlo points


def product(k, eps):
    return k * eps


def two_outputs(k, eps):
    return {"kk": k * k, "ratio": eps / (k - 3)}


def grr_estimate(n, eps, rng):
    """GRR sample + estimate of the fixed frequency vector F (a seeded Monte Carlo point)."""
    counts = np.round(F * n).astype(int)
    xs = np.repeat(np.arange(len(F)), counts)
    ys = q.sample_grr(xs, len(F), eps, rng=rng)
    est = q.estimate_grr(ys, len(F), eps)
    return {f"f{i}": float(v) for i, v in enumerate(est)}


MC_GRID = {"n": [2000, 5000], "eps": [0.5, 1.0, 2.0]}


def _threads(n=2):
    return cf.ThreadPoolExecutor(n)


# ---------------------------------------------------------------------------------------
# sweep: order, columns, outputs, errors, retries
# ---------------------------------------------------------------------------------------
def test_grid_order_and_columns():
    grid = {"k": [2, 5, 3], "eps": [0.5, 1.5]}
    with _threads() as pool:
        t = q.sweep(product, grid, executor=pool, progress=False, chunksize=2)
    expected = list(itertools.product(grid["k"], grid["eps"]))
    assert list(zip(t["k"], t["eps"], strict=True)) == expected
    assert t.columns.tolist() == ["k", "eps", "value", "error"]
    assert t["value"].tolist() == [k * e for k, e in expected]
    assert t["error"].tolist() == [None] * 6


def test_list_of_points_keeps_its_order():
    points = [{"k": 4, "eps": 1.0}, {"k": 2, "eps": 3.0}, {"k": 9, "eps": 0.0}]
    with _threads() as pool:
        t = q.sweep(product, points, executor=pool, progress=False)
    assert t[["k", "eps", "value"]].values.tolist() == [[4, 1.0, 4.0], [2, 3.0, 6.0], [9, 0, 0]]


def test_default_executor_is_a_process_pool():
    t = q.sweep(product, {"k": [2, 3], "eps": [2.0]}, progress=False)
    assert t["value"].tolist() == [4.0, 6.0]


def test_dict_output_becomes_columns_and_an_error_is_recorded():
    with _threads() as pool:
        t = q.sweep(two_outputs, {"k": [2, 3, 4], "eps": [1.0]}, executor=pool, progress=False)
    assert t.columns.tolist() == ["k", "eps", "kk", "ratio", "error"]
    assert len(t) == 3  # the failed point is kept, in its place
    assert t["kk"].iloc[[0, 2]].tolist() == [4, 16] and t["ratio"].iloc[[0, 2]].tolist() == [-1, 1]
    assert math.isnan(t["kk"].iloc[1]) and math.isnan(t["ratio"].iloc[1])
    assert t["error"].tolist() == [None, "ZeroDivisionError: float division by zero", None]


def clashing(k):
    return {"k": k, "other": 1}


def test_an_output_key_clashing_with_a_parameter_is_recorded():
    with _threads() as pool:
        t = q.sweep(clashing, {"k": [2]}, executor=pool, progress=False)
    assert t["k"].tolist() == [2] and "output key 'k'" in t["error"].iloc[0]


class Flaky:
    """Fails the first ``fails`` calls at every point, then returns k."""

    def __init__(self, fails):
        self.fails = fails
        self.calls: dict[int, int] = {}
        self.lock = threading.Lock()

    def __call__(self, k):
        with self.lock:
            self.calls[k] = self.calls.get(k, 0) + 1
            n = self.calls[k]
        if n <= self.fails:
            raise RuntimeError(f"attempt {n} at k={k}")
        return k


def test_retries_rerun_a_failed_point_then_record_it():
    grid = {"k": [1, 2, 3]}
    with _threads() as pool:
        once = Flaky(1)
        t = q.sweep(once, grid, executor=pool, progress=False, retries=1)
        assert t["value"].tolist() == [1, 2, 3] and t["error"].tolist() == [None] * 3
        assert once.calls == {1: 2, 2: 2, 3: 2}
        twice = Flaky(2)
        t = q.sweep(twice, grid, executor=pool, progress=False, retries=1)
        assert twice.calls == {1: 2, 2: 2, 3: 2}  # 1 + retries attempts, then recorded
        assert t["error"].tolist() == [f"RuntimeError: attempt 2 at k={k}" for k in (1, 2, 3)]
        assert t["value"].isna().all()
        none = Flaky(1)
        t = q.sweep(none, grid, executor=pool, progress=False)  # retries=0: one attempt
        assert none.calls == {1: 1, 2: 1, 3: 1} and t["error"].notna().all()


# ---------------------------------------------------------------------------------------
# seeding: the same table on every executor
# ---------------------------------------------------------------------------------------
def _reference_table(seed):
    """The seeded points computed here, one by one, from SeedSequence(seed).spawn(n)."""
    points = [dict(zip(MC_GRID, v, strict=True)) for v in itertools.product(*MC_GRID.values())]
    children = np.random.SeedSequence(seed).spawn(len(points))
    rows = [
        {**p, **grr_estimate(**p, rng=np.random.default_rng(c)), "error": None}
        for p, c in zip(points, children, strict=True)
    ]
    return pd.DataFrame(rows)


def test_seeded_points_follow_the_spawned_seed_sequence_and_the_variance_band():
    with _threads() as pool:
        t = q.sweep(grr_estimate, MC_GRID, executor=pool, progress=False, seed=7, chunksize=4)
    ref = _reference_table(7)
    pd.testing.assert_frame_equal(t, ref, check_dtype=False)
    for row in t.itertuples():
        sd = np.sqrt(q.variance_grr(3, row.eps, row.n, F))
        est = np.array([row.f0, row.f1, row.f2])
        assert np.all(np.abs(est - F) < 5 * sd)  # a 5-sigma band (the seed is fixed)
    with _threads() as pool:
        other = q.sweep(grr_estimate, MC_GRID, executor=pool, progress=False, seed=8)
    assert not np.allclose(other["f0"], t["f0"])


def test_identical_tables_on_threads_processes_and_dask():
    distributed = pytest.importorskip("distributed")
    tables = []
    with _threads(3) as pool:
        tables.append(q.sweep(grr_estimate, MC_GRID, executor=pool, progress=False, seed=3))
        tables.append(
            q.sweep(grr_estimate, MC_GRID, executor=pool, progress=False, seed=3, chunksize=1)
        )
    with cf.ProcessPoolExecutor(2) as pool:
        tables.append(
            q.sweep(grr_estimate, MC_GRID, executor=pool, progress=False, seed=3, chunksize=5)
        )
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as client:
        tables.append(q.sweep(grr_estimate, MC_GRID, executor=client, progress=False, seed=3))
    tables.append(q.sweep(grr_estimate, MC_GRID, progress=False, seed=3))  # default pool
    for t in tables[1:]:
        pd.testing.assert_frame_equal(t, tables[0])
    pd.testing.assert_frame_equal(tables[0], _reference_table(3), check_dtype=False)


def test_dask_client_takes_a_lambda_and_records_errors():
    distributed = pytest.importorskip("distributed")
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as client:
        t = q.sweep(lambda k: 10 // (k - 1), {"k": [2, 1, 3]}, executor=client, progress=False)
    assert t["value"].iloc[[0, 2]].tolist() == [10, 5]
    assert t["error"].iloc[1] == "ZeroDivisionError: integer division or modulo by zero"


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"fn": 3}, InputTypeError, "fn must be callable"),
        ({"grid": 5}, InputTypeError, "grid must be a dict"),
        ({"grid": {"k": 3}}, InputTypeError, "grid['k'] must be a list"),
        ({"grid": {"k": []}}, ParameterError, "at least one value"),
        ({"grid": []}, ParameterError, "at least one point"),
        ({"grid": [{"k": 1}, 4]}, InputTypeError, "grid[1] must be a dict"),
        ({"grid": {"error": [1]}}, ParameterError, "may not be named 'error'"),
        ({"seed": -1}, ParameterError, "seed must be >= 0"),
        ({"seed": 1.5}, InputTypeError, "seed must be None or an integer"),
        ({"retries": -1}, ParameterError, "retries must be >= 0"),
        ({"chunksize": 0}, ParameterError, "chunksize must be >= 1"),
        ({"progress": "yes"}, InputTypeError, "progress must be a bool"),
        ({"executor": "local"}, InputTypeError, "executor must be None"),
    ],
)
def test_bad_sweep_arguments_are_named(kwargs, error, words):
    args = {"fn": product, "grid": {"k": [2]}, "executor": cf.ThreadPoolExecutor(1)}
    args.update(kwargs)
    with pytest.raises(error) as info:
        q.sweep(**{"progress": False, **args})
    assert words in str(info.value)


def test_unpicklable_fn_on_a_process_pool_says_so():
    with pytest.raises(InputTypeError, match="fn must be picklable"):
        q.sweep(lambda k: k, {"k": [2]}, progress=False)
    with cf.ProcessPoolExecutor(1) as pool, pytest.raises(InputTypeError, match="picklable"):
        q.sweep(lambda k: k, {"k": [2]}, executor=pool, progress=False)


def test_import_qifldp_imports_neither_pandas_nor_dask():
    code = (
        "import sys, qifldp; "
        "print([m for m in ('pandas', 'distributed', 'dask', 'tqdm') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------
# comparability maps
# ---------------------------------------------------------------------------------------
def _relation(ab, ba):
    return {(True, True): "equivalent", (True, False): "A⊑B", (False, True): "B⊑A"}.get(
        (ab, ba), "incomparable"
    )


def test_grr_ss_map_agrees_with_direct_refinement():
    with _threads() as pool:
        m = q.comparability_map("grr", "ss", ks=[3, 4, 8], epss=[0.2, 1.0, 2.0], executor=pool)
    certificates = [f"{p}_{c}" for p in ("ab", "ba") for c in CERTIFICATE_COLUMNS]
    assert m.columns.tolist() == [
        "k",
        "eps",
        "a_refines_b",
        "b_refines_a",
        "relation",
        "reason",
        *certificates,
        "error",
    ]
    assert list(zip(m["k"], m["eps"], strict=True)) == list(
        itertools.product([3, 4, 8], [0.2, 1.0, 2.0])
    )
    for row in m.itertuples():
        A, B = q.protocol("grr", row.k, row.eps), q.protocol("ss", row.k, row.eps)
        ab, ba = bool(q.refines(A, B)), bool(q.refines(B, A))
        assert (row.a_refines_b, row.b_refines_a) == (ab, ba)
        assert row.relation == _relation(ab, ba) and row.reason is None and row.error is None
    assert set(m["relation"]) >= {"equivalent"}




def test_sue_refines_oue_at_k2():
    epss = [0.3, 1.0, 4.0, 8.0]
    m = q.comparability_map("sue", "oue", ks=[2], epss=epss, progress=False)  # process pool
    assert m["a_refines_b"].tolist() == [True] * 4
    for row in m.itertuples():
        sue, oue = q.sue(2, row.eps), q.oue(2, row.eps)
        assert plain_lp_refines(sue, oue)
        assert row.b_refines_a == plain_lp_refines(oue, sue) == bool(q.refines(oue, sue))
        assert row.relation == _relation(True, row.b_refines_a)


def channel_pair_a(k, eps):
    return q.grr(k, eps)


def channel_pair_b(k, eps):
    return q.grr(k + (k == 3), eps)  # at k = 3 a channel on 4 secrets: refines raises


class LostWorkers(cf.Executor):
    """Every task fails as a whole (as when a worker process dies)."""

    def submit(self, fn, /, *args, **kwargs):
        future: cf.Future = cf.Future()
        future.set_exception(RuntimeError("worker lost"))
        return future


def test_a_task_that_fails_as_a_whole_is_recorded_at_each_point():
    t = q.sweep(product, {"k": [2, 3, 4]}, executor=LostWorkers(), progress=False, chunksize=2)
    assert t.columns.tolist() == ["k", "value", "error"] and t["k"].tolist() == [2, 3, 4]
    assert t["value"].isna().all() and t["error"].tolist() == ["RuntimeError: worker lost"] * 3
    m = q.comparability_map("grr", "ss", [3], [1.0, 2.0], executor=LostWorkers(), progress=False)
    assert m["relation"].tolist() == ["undecided"] * 2
    assert m["a_refines_b"].tolist() == [None, None]
    assert m["error"].tolist() == ["RuntimeError: worker lost"] * 2


def test_a_point_that_does_not_pickle_is_recorded():
    with cf.ProcessPoolExecutor(1) as pool:
        t = q.sweep(
            product,
            [{"k": 2, "eps": 1.0}, {"k": lambda: 0, "eps": 1.0}],
            executor=pool,
            progress=False,
            chunksize=1,
        )
    assert t["value"].iloc[0] == 2.0 and t["error"].iloc[0] is None
    assert "pickle" in t["error"].iloc[1].lower()


def test_callables_and_an_undecided_point():
    with _threads() as pool:
        m = q.comparability_map(channel_pair_a, channel_pair_b, [2, 3], [1.0], executor=pool)
    assert m["relation"].tolist() == ["equivalent", "undecided"]
    assert m["a_refines_b"].iloc[1] is None and m["b_refines_a"].iloc[1] is None
    assert "A⊑B: " in m["reason"].iloc[1] and "B⊑A: " in m["reason"].iloc[1]


def test_the_parameter_goes_to_the_protocol_that_takes_it():
    with _threads() as pool:
        m = q.comparability_map("the", "oue", [3], [1.0], executor=pool, theta=0.7)
    A, B = q.protocol("the", 3, 1.0, theta=0.7), q.protocol("oue", 3, 1.0)
    assert m["a_refines_b"].iloc[0] == bool(q.refines(A, B))
    assert m["b_refines_a"].iloc[0] == bool(q.refines(B, A))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "words"),
    [
        (("nope", "grr", [3], [1.0]), {}, ParameterError, "A must be one of"),
        (("grr", 3, [3], [1.0]), {}, InputTypeError, "B must be a protocol name"),
        (("grr", "ss", [1], [1.0]), {}, ParameterError, "every entry of ks must be >= 2"),
        (("grr", "ss", [2.5], [1.0]), {}, InputTypeError, "ks must be an integer"),
        (("grr", "ss", [], [1.0]), {}, ParameterError, "ks must hold at least one"),
        (("grr", "ss", [3], [-1.0]), {}, ParameterError, "finite and >= 0"),
        (("grr", "ss", [3], [[1.0]]), {}, InputTypeError, "flat list"),
        (("grr", "ss", [3], 1.0), {}, InputTypeError, "epss must be a list"),
        (("grr", "oue", [3], [1.0]), {"theta": 0.5}, InputTypeError, "'theta'"),
        (("ss", "grr", [3], [1.0]), {"omega": 7}, ParameterError, "omega"),
    ],
)
def test_bad_map_arguments_are_named(args, kwargs, error, words):
    with pytest.raises(error) as info:
        q.comparability_map(*args, progress=False, executor=cf.ThreadPoolExecutor(1), **kwargs)
    assert words in str(info.value)


@pytest.mark.slow
def test_identical_table_on_a_multiprocess_dask_cluster():
    # a real cluster of two worker processes (the tasks travel pickled to them)
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        t = q.sweep(grr_estimate, MC_GRID, executor=client, progress=False, seed=3, chunksize=2)
        workers = client.run(lambda: 1)
    assert len(workers) == 2
    pd.testing.assert_frame_equal(t, _reference_table(3), check_dtype=False)
