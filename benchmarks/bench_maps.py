"""A comparability map against the same refinements called by hand, serially, on a
process pool and on a Dask LocalCluster; and a 10^8-user OLH simulation whose peak
memory is bounded by the block.

Run: ``python benchmarks/bench_maps.py [--ks 2..9] [--epss 1,2,3,4] [--users 100000000]``.

1. The map: A vs B (``--pair sue/oue``) at every (k, eps) of the grid, on the
   protocol objects (``--representation protocol``, the default of
   ``comparability_map``) or their symmetric channels, with a per-refinement
   ``time_limit``. In the same run:

   - *by hand*: for every point, the protocols built and ``q.refines`` called both
     ways in this process (warmed first: the solvers and the symbolic premises
     loaded, as a map's workers are);
   - *map, serial*: ``comparability_map`` on a one-thread executor in this process;
   - *map, process pool*: on a ``ProcessPoolExecutor(--workers)`` whose workers
     were started and warmed once before (the initializer the default pool uses;
     the seconds it took printed beside);
   - *map, Dask*: on a ``distributed.LocalCluster(n_workers=--workers,
     threads_per_worker=1, processes=True)`` whose workers were preloaded once
     before (``client.run``, as the map does; the seconds printed beside).

   Printed: each time, wall and CPU; the serial map's overhead over by-hand, in wall
   and in CPU seconds (target <= 10 %; the least of ``--repeats`` runs of each,
   interleaved); the wall speed-ups of the pool and of Dask
   over by-hand beside the machine's ceiling measured in the same run (a pure-Python
   loop on ``--workers`` processes: a loaded machine caps every speed-up), and the
   speed-up on idle cores, which the load does not change: the by-hand CPU seconds
   over the CPU seconds of the busiest worker during the map (read by the workers
   themselves; target >= 1.7x on 2 workers), with the CPU of this process beside it
   (dispatch, the table; with Dask, the scheduler too). A Dask worker spends CPU when
   idle (~5 % of a core, heartbeats; the rate is printed): on a loaded machine, where
   the map's wall time is long, that adds up, so Dask's speed-up on idle cores is a
   lower bound.
   Verdicts must agree between the four wherever both decided (a clash fails the run).
   Each contender starts from the same state: warm (imports, the warm-up), with
   sympy's cache emptied (the pool's workers are forked from this process, the Dask
   workers start fresh).
   Every process runs with one BLAS thread (``--blas-threads``; OpenBLAS's default
   of one thread per core stalls small dense solves when the cores are busy).
2. The simulation: ``q.simulate_counts(olh(k=16, eps=1), f, n=--users)`` on a thread
   pool of ``--workers`` threads (in this process, so that ``tracemalloc`` sees every
   allocation), in blocks of 2^16 users. The peak traced memory is printed next to
   what one block's arrays take, and the estimate is checked against the variance
   of Wang et al. (5 sigma).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

if __name__ == "__main__":  # before numpy is loaded: one BLAS thread per process
    _threads = "1"
    if "--blas-threads" in sys.argv:
        _threads = sys.argv[sys.argv.index("--blas-threads") + 1]
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, _threads)

import concurrent.futures as cf  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

import qifldp as q  # noqa: E402
from qifldp.sweeps.engine import _start_worker, _warm_once  # noqa: E402
from qifldp.sweeps.time_limited import warm_refinement  # noqa: E402

_COLS = ["a_refines_b", "b_refines_a"]


def _by_hand(a, b, ks, epss, time_limit, representation):
    """The map's refinements called directly, point by point, in this process."""
    rows = []
    t0, c0 = time.perf_counter(), time.process_time()
    for k in ks:
        for eps in epss:
            A, B = q.protocol(a, k, eps), q.protocol(b, k, eps)
            if representation == "symmetric":
                A, B = A.symmetric(), B.symmetric()
            ab = q.refines(A, B, time_limit=time_limit).holds
            ba = q.refines(B, A, time_limit=time_limit).holds
            rows.append((ab, ba))
    return rows, time.perf_counter() - t0, time.process_time() - c0


def _map(a, b, executor, ks, epss, time_limit, representation):
    t0, c0 = time.perf_counter(), time.process_time()
    m = q.comparability_map(
        a,
        b,
        ks,
        epss,
        executor=executor,
        progress=False,
        time_limit=time_limit,
        representation=representation,
        chunksize=1,
    )
    return m, time.perf_counter() - t0, time.process_time() - c0


def _same_start() -> None:
    """Every contender starts from the same state: sympy's cache (which the protocol
    route's premises fill) emptied, then the warm-up every worker of a map runs. Without
    it the contender run first pays for what the later ones find cached (the pool's
    workers are forked from this process and would inherit its cache)."""
    import sympy

    sympy.core.cache.clear_cache()
    warm_refinement()


def _probe(seconds: float = 0.5) -> tuple[int, float]:
    """(pid, CPU seconds) of the worker that runs it; sleeping, so that each of a pool's
    idle workers takes one of ``workers`` probes submitted at once."""
    time.sleep(seconds)
    return os.getpid(), time.process_time()


def _pool_cpu(pool: cf.ProcessPoolExecutor, workers: int) -> dict[int, float]:
    """CPU seconds used so far by each worker of ``pool`` (by pid), read by the workers."""
    for _ in range(5):
        seen = dict(pool.map(_probe, [0.5] * workers))
        if len(seen) == workers:
            return seen
    raise RuntimeError("the probes did not reach every worker of the pool")


def _cpu_line(per_worker: list[float], t_hand_cpu: float, parent: float, idle: float = 0.0) -> str:
    """The CPU seconds of the workers and the speed-up they give on idle cores; ``idle``:
    a worker's CPU seconds per second when it has nothing to do (Dask's heartbeats,
    which a loaded machine's longer wall time multiplies: the speed-up is then a
    lower bound)."""
    busiest = max(per_worker)
    text = (
        f"CPU per worker {', '.join(f'{c:.2f}' for c in per_worker)} s, this process "
        f"{parent:.2f} s: speed-up on idle cores (by-hand CPU / busiest worker's CPU) "
        f"{t_hand_cpu / busiest:.2f}x"
    )
    if idle:
        text += (
            f" at least (a worker with nothing to do spends {idle:.3f} CPU s per second, "
            "measured before the map: more of it in a longer wall time)"
        )
    return text + " (target >= 1.7x)"


def _dask_idle_cpu(client, seconds: float = 3.0) -> float:
    """CPU seconds per second of the busiest idle Dask worker (heartbeats, the event loop)."""
    before, t = client.run(time.process_time), time.perf_counter()
    time.sleep(seconds)
    after = client.run(time.process_time)
    elapsed = time.perf_counter() - t
    return max(after[w] - before[w] for w in before) / elapsed


def _spin(n: int = 3_000_000) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _ceiling(workers: int) -> float:
    """The speed-up the machine gives ``workers`` processes right now: a pure-Python loop,
    ``workers`` times in this process against once in each of ``workers`` processes."""
    t = time.perf_counter()
    for _ in range(workers):
        _spin()
    alone = time.perf_counter() - t
    with cf.ProcessPoolExecutor(workers) as pool:
        list(pool.map(time.sleep, [0.1] * workers))
        t = time.perf_counter()
        list(pool.map(_spin, [3_000_000] * workers))
        return alone / (time.perf_counter() - t)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def _speed_up(
    label: str, seconds: float, note: str, t_hand: float, t_start: float, ceiling: float
) -> None:
    print(
        f"  {label:42s}{seconds:8.2f} s   wall speed-up {t_hand / seconds:.2f}x over by hand, "
        f"{t_hand / seconds / ceiling:.0%} of the machine's ceiling {ceiling:.2f}x "
        f"({note} warm-up before it: {t_start:.1f} s)"
    )


def bench_map(
    pair: str,
    ks: list[int],
    epss: list[float],
    workers: int,
    time_limit: float,
    representation: str,
    repeats: int = 3,
) -> None:
    a, b = pair.split("/")
    n = len(ks) * len(epss)
    print(
        f"map: {a.upper()} vs {b.upper()} ({representation}), k in {ks}, eps in {epss}: "
        f"{n} points, {2 * n} refinements, time_limit = {time_limit:g} s, {workers} workers"
    )
    print(f"  before: {_load()}")
    ceiling = _ceiling(workers)
    print(
        f"  the machine's ceiling: {ceiling:.2f}x for {workers} processes "
        "(a pure-Python loop; 2 idle cores give ~2x)"
    )
    cpu0 = time.process_time()
    t = time.perf_counter()
    _warm_once(warm_refinement)  # as every worker of a map does, once
    import pandas  # noqa: F401 - the map's table (loaded once per session)

    print(
        f"  warm-up of this process (imports, first-use loading): {time.perf_counter() - t:.2f} s"
    )
    runs: dict[str, list[tuple[Any, float, float]]] = {"hand": [], "serial": []}
    for _ in range(repeats):  # interleaved: the load's drift reaches both alike
        _same_start()
        runs["hand"].append(_by_hand(a, b, ks, epss, time_limit, representation))
        _same_start()
        with cf.ThreadPoolExecutor(1) as one:
            runs["serial"].append(_map(a, b, one, ks, epss, time_limit, representation))
    hand, serial = runs["hand"][-1][0], runs["serial"][-1][0]
    t_hand, c_hand = (min(r[i] for r in runs["hand"]) for i in (1, 2))
    t_serial, c_serial = (min(r[i] for r in runs["serial"]) for i in (1, 2))
    print(
        f"  by hand (q.refines both ways per point)   {t_hand:8.2f} s   CPU {c_hand:.2f} s "
        f"(the least of {repeats} runs, interleaved with the serial map's)"
    )
    inside = float(serial["ab_seconds"].sum() + serial["ba_seconds"].sum())
    print(
        f"  map, serial (1 thread)                    {t_serial:8.2f} s   overhead "
        f"{100 * (t_serial / t_hand - 1):+.1f} % wall, {100 * (c_serial / c_hand - 1):+.1f} % "
        f"CPU (target <= 10 %; {inside:.2f} s inside refines)"
    )
    _same_start()  # the workers are forked from this process, then warmed
    t = time.perf_counter()
    with cf.ProcessPoolExecutor(
        workers, initializer=_start_worker, initargs=(warm_refinement,)
    ) as pool:
        before = _pool_cpu(pool, workers)  # every worker started and warmed
        t_start = time.perf_counter() - t
        procs, t_pool, c_pool = _map(a, b, pool, ks, epss, time_limit, representation)
        after = _pool_cpu(pool, workers)
    pool_cpu = [after[pid] - before[pid] for pid in sorted(before)]
    pool_line = (f"map, process pool ({workers})", t_pool, "the pool's start and")
    _speed_up(*pool_line, t_hand, t_start, ceiling)
    print(f"    {_cpu_line(pool_cpu, c_hand, c_pool)}")
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        t = time.perf_counter()
        client.run(_warm_once, warm_refinement)  # the workers' preload
        t_start = time.perf_counter() - t
        idle = _dask_idle_cpu(client)
        before = client.run(time.process_time)
        dask, t_dask, c_dask = _map(a, b, client, ks, epss, time_limit, representation)
        after = client.run(time.process_time)
    dask_cpu = [after[w] - before[w] for w in sorted(before)]
    _speed_up(
        f"map, Dask LocalCluster ({workers})", t_dask, "the workers'", t_hand, t_start, ceiling
    )
    print(f"    {_cpu_line(dask_cpu, c_hand, c_dask, idle)}")
    print(f"  CPU of this process: {time.process_time() - cpu0:.1f} s; after: {_load()}")
    hand_table = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in hand], dtype=float
    )
    clash = 0
    last = runs["serial"][-1][1]  # the wall time of the run whose table is read
    contenders = (("serial", serial, last, 1), ("process pool", procs, t_pool, workers))
    for name, table, wall, n_workers in (*contenders, ("Dask", dask, t_dask, workers)):
        inside = float(table["ab_seconds"].sum() + table["ba_seconds"].sum())
        print(
            f"  {name}: {inside:.2f} s inside refines, summed over the workers: the workers "
            f"were deciding {100 * inside / (n_workers * wall):.0f} % of the map's wall time "
            f"(the refinements took {inside / t_hand:.2f}x their by-hand time: the CPU they got)"
        )
        got = table[_COLS].to_numpy(dtype=float, na_value=np.nan)
        both = ~np.isnan(got) & ~np.isnan(hand_table)
        bad = int((both & (got != hand_table)).sum())
        undecided = int((table["relation"] == "undecided").sum())
        print(
            f"  {name}: verdicts differing from by-hand where both decided: {bad}; "
            f"undecided points: {undecided}"
        )
        clash += bad
    assert not clash, "a verdict decided both ways"
    print(f"  relations: {serial['relation'].value_counts().to_dict()}")


def bench_simulation(users: int, workers: int, block: int = 2**16, k: int = 16) -> None:
    P = q.protocol("olh", k, 1.0)
    f = np.arange(k, 0, -1, dtype=float)
    f /= f.sum()
    tracemalloc.start()
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(workers) as pool:
        r = q.simulate_counts(P, f, users, seed=1, block=block, executor=pool, progress=False)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    est = r.estimate()
    sd = np.sqrt(P.variance(users, r.frequencies))
    worst = float(np.max(np.abs(est - r.frequencies) / sd))
    print(f"simulation: OLH k = {k}, eps = 1, n = {users:.3g} users, blocks of {block} users")
    print(
        f"  {seconds:.1f} s on {workers} threads ({users / seconds:.3g} users/s, {r.blocks} blocks)"
    )
    print(
        f"  peak traced memory {peak / 2**20:.1f} MiB "
        f"(one block's values: {block * 8 / 2**20:.2f} MiB per int64 array; n int64 values "
        f"would take {users * 8 / 2**20:.0f} MiB)"
    )
    print(f"  worst |f_hat - f| / sd = {worst:.2f} (5-sigma band), mse = {r.mse():.3g}")
    assert worst < 5


def _ints(text: str) -> list[int]:
    if ".." in text:
        lo, hi = text.split("..")
        return list(range(int(lo), int(hi) + 1))
    return [int(v) for v in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", default="sue/oue")
    parser.add_argument("--ks", default="2..9", help="e.g. 2..9 or 2,5,10")
    parser.add_argument("--epss", default="1,2,3,4")
    parser.add_argument("--representation", default="protocol")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--blas-threads", default="1")
    parser.add_argument("--users", type=float, default=1e8)
    parser.add_argument("--repeats", type=int, default=3, help="by-hand and serial runs")
    parser.add_argument("--skip-map", action="store_true")
    parser.add_argument("--skip-simulation", action="store_true")
    args = parser.parse_args()
    if not args.skip_map:
        bench_map(
            args.pair,
            _ints(args.ks),
            [float(v) for v in args.epss.split(",")],
            args.workers,
            args.time_limit,
            args.representation,
            args.repeats,
        )
    if not args.skip_simulation:
        bench_simulation(int(args.users), args.workers)


if __name__ == "__main__":
    main()
