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

   Printed: each time, the serial map's overhead over by-hand (target <= 10 %), the
   speed-ups of the pool and of Dask over by-hand (target >= 1.7x on 2 workers), the
   CPU seconds of this process and the machine's load average before and after (the
   speed-up needs two idle cores; a loaded machine caps it). Verdicts must agree
   between the four wherever both decided (a clash fails the run).
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
from qifldp.sweeps.engine import _warm_once  # noqa: E402
from qifldp.sweeps.time_limited import warm_refinement  # noqa: E402

_COLS = ["a_refines_b", "b_refines_a"]


def _by_hand(a, b, ks, epss, time_limit, representation):
    """The map's refinements called directly, point by point, in this process."""
    rows = []
    t0 = time.perf_counter()
    for k in ks:
        for eps in epss:
            A, B = q.protocol(a, k, eps), q.protocol(b, k, eps)
            if representation == "symmetric":
                A, B = A.symmetric(), B.symmetric()
            ab = q.refines(A, B, time_limit=time_limit).holds
            ba = q.refines(B, A, time_limit=time_limit).holds
            rows.append((ab, ba))
    return rows, time.perf_counter() - t0


def _map(a, b, executor, ks, epss, time_limit, representation):
    t0 = time.perf_counter()
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
    return m, time.perf_counter() - t0


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


def _speed_up(label: str, seconds: float, note: str, t_hand: float, t_start: float) -> None:
    print(
        f"  {label:42s}{seconds:8.2f} s   speed-up {t_hand / seconds:.2f}x over by hand "
        f"({note} warm-up before it: {t_start:.1f} s)"
    )


def bench_map(
    pair: str,
    ks: list[int],
    epss: list[float],
    workers: int,
    time_limit: float,
    representation: str,
) -> None:
    a, b = pair.split("/")
    n = len(ks) * len(epss)
    print(
        f"map: {a.upper()} vs {b.upper()} ({representation}), k in {ks}, eps in {epss}: "
        f"{n} points, {2 * n} refinements, time_limit = {time_limit:g} s, {workers} workers"
    )
    print(f"  before: {_load()}")
    print(
        f"  the machine's ceiling: {_ceiling(workers):.2f}x for {workers} processes "
        "(a pure-Python loop; 2 idle cores give ~2x)"
    )
    cpu0 = time.process_time()
    t = time.perf_counter()
    _warm_once(warm_refinement)  # as every worker of a map does, once
    import pandas  # noqa: F401 - the map's table (loaded once per session)

    print(
        f"  warm-up of this process (imports, first-use loading): {time.perf_counter() - t:.2f} s"
    )
    hand, t_hand = _by_hand(a, b, ks, epss, time_limit, representation)
    print(f"  by hand (q.refines both ways per point)   {t_hand:8.2f} s")
    with cf.ThreadPoolExecutor(1) as one:
        serial, t_serial = _map(a, b, one, ks, epss, time_limit, representation)
    inside = float(serial["ab_seconds"].sum() + serial["ba_seconds"].sum())
    print(
        f"  map, serial (1 thread)                    {t_serial:8.2f} s   overhead "
        f"{100 * (t_serial / t_hand - 1):+.1f} % (target <= 10 %; {inside:.2f} s inside "
        "refines)"
    )
    t = time.perf_counter()
    with cf.ProcessPoolExecutor(
        workers, initializer=_warm_once, initargs=(warm_refinement,)
    ) as pool:
        list(pool.map(time.sleep, [0.5] * workers))  # every worker started and warmed
        t_start = time.perf_counter() - t
        procs, t_pool = _map(a, b, pool, ks, epss, time_limit, representation)
    pool_line = (f"map, process pool ({workers})", t_pool, "target >= 1.7x; the pool's start and")
    _speed_up(*pool_line, t_hand, t_start)
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
        dask, t_dask = _map(a, b, client, ks, epss, time_limit, representation)
    _speed_up(f"map, Dask LocalCluster ({workers})", t_dask, "the workers'", t_hand, t_start)
    print(f"  CPU of this process: {time.process_time() - cpu0:.1f} s; after: {_load()}")
    hand_table = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in hand], dtype=float
    )
    clash = 0
    runs = (("serial", serial, t_serial, 1), ("process pool", procs, t_pool, workers))
    for name, table, wall, n_workers in (*runs, ("Dask", dask, t_dask, workers)):
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
        )
    if not args.skip_simulation:
        bench_simulation(int(args.users), args.workers)


if __name__ == "__main__":
    main()
