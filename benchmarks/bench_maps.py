"""A SUE/OUE comparability map serially, on a process pool and on a Dask LocalCluster;
and a 10^8-user OLH simulation whose peak memory is bounded by the block.

Run: ``python benchmarks/bench_maps.py [--grid 40] [--kmax 200] [--users 100000000]``.

1. The map: ``--grid`` x ``--grid`` points, k evenly spaced in 2..kmax and eps in
   0.1..12, decided on the symmetric channels (the orbit LP) with a per-point
   ``time_limit``; timed on a one-thread executor (serial), on a process pool of
   ``--workers`` processes and on a ``distributed.LocalCluster(n_workers=--workers,
   processes=True)``. A point decided on two executors must have the same verdicts (a
   point decided both ways is listed and fails the run; ``--save DIR`` keeps the three
   tables); the speed-ups over serial are printed. Measured here (40 x 40, k <= 200, idle
   2-core machine): serial 422 s, process pool 276 s (1.53x), Dask 179 s (2.36x: Dask's
   worker processes are daemonic and cannot fork, so each refinement runs in the worker
   under the engines' time limit only, without the fork the other two pay per refinement);
   1,220 incomparable, 379 SUE ⊑ OUE, 1 undecided; no point decided both ways.
2. The simulation: ``q.simulate_counts(olh(k=16, eps=1), f, n=--users)`` on a thread
   pool of ``--workers`` threads (in this process, so that ``tracemalloc`` sees every
   allocation), in blocks of 2^16 users. The peak traced memory is printed next to
   what one block's arrays take, and the estimate is checked against the variance
   of Wang et al. (5 sigma).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import time
import tracemalloc

import numpy as np

import qifldp as q


def _map(executor, ks, epss, time_limit):
    t0 = time.perf_counter()
    m = q.comparability_map(
        "sue",
        "oue",
        ks,
        epss,
        executor=executor,
        progress=False,
        time_limit=time_limit,
        representation="symmetric",
        chunksize=1,
    )
    return m, time.perf_counter() - t0


def bench_map(grid: int, kmax: int, workers: int, time_limit: float, save: str = "") -> None:
    ks = sorted({int(round(k)) for k in np.linspace(2, kmax, grid)})
    epss = [round(float(e), 4) for e in np.linspace(0.1, 12.0, grid)]
    print(f"map: SUE vs OUE, {len(ks)} k in {ks[0]}..{ks[-1]} x {len(epss)} eps in 0.1..12,")
    print(f"     time_limit = {time_limit:g} s per refinement, {workers} workers")
    with cf.ThreadPoolExecutor(1) as one:
        serial, t_serial = _map(one, ks, epss, time_limit)
    print(f"  serial (1 thread)           {t_serial:8.1f} s")
    with cf.ProcessPoolExecutor(workers) as pool:
        procs, t_pool = _map(pool, ks, epss, time_limit)
    print(f"  process pool ({workers})          {t_pool:8.1f} s   speed-up {t_serial / t_pool:.2f}")
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        dask, t_dask = _map(client, ks, epss, time_limit)
    print(f"  Dask LocalCluster ({workers})     {t_dask:8.1f} s   speed-up {t_serial / t_dask:.2f}")
    # verdicts decided everywhere must agree; a point undecided on one executor only
    # (a time limit met under a different load) is counted, not compared
    if save:
        for name, table in (("serial", serial), ("pool", procs), ("dask", dask)):
            table.to_csv(f"{save}/map40_{name}.csv", index=False)
    cols = ["a_refines_b", "b_refines_a"]
    clash = []
    for name, other in (("process pool", procs), ("Dask", dask)):
        both = serial["relation"].ne("undecided") & other["relation"].ne("undecided")
        bad = both & (serial[cols].ne(other[cols])).any(axis=1)
        diff = int((serial["relation"] != other["relation"]).sum())
        print(
            f"  {name}: verdicts differing where both decided: {int(bad.sum())}; "
            f"relations differing: {diff}"
        )
        for i in np.flatnonzero(bad.to_numpy()):
            a, b = serial.iloc[i], other.iloc[i]
            where = f"k = {a['k']}, eps = {a['eps']}"
            print(f"    {where}: serial {a['relation']}, {name} {b['relation']}")
            for d in ("ab", "ba"):
                print(f"      serial {d}: {str(a[d + '_certified_by'])[:160]}")
                print(f"      {name} {d}: {str(b[d + '_certified_by'])[:160]}")
        clash.append(int(bad.sum()))
    assert not any(clash), "a point decided both ways"
    counts = serial["relation"].value_counts().to_dict()
    print(f"  relations (serial): {counts}")
    timed_out = serial["reason"].fillna("").str.contains("TimeoutError").sum()
    print(f"  undecided by the hard time limit (serial): {timed_out}")


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=40)
    parser.add_argument("--kmax", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--users", type=float, default=1e8)
    parser.add_argument("--skip-map", action="store_true")
    parser.add_argument("--skip-simulation", action="store_true")
    parser.add_argument("--save", default="", help="folder for the three tables (CSV)")
    args = parser.parse_args()
    if not args.skip_map:
        bench_map(args.grid, args.kmax, args.workers, args.time_limit, args.save)
    if not args.skip_simulation:
        bench_simulation(int(args.users), args.workers)


if __name__ == "__main__":
    main()
