"""Monte Carlo at scale (issue 12, item 4): q.simulate_counts.

Independent checks: the per-block streams against SeedSequence(seed).spawn called
here and a block-by-block reference computed here; the merged counts against
their expectation n_v p + (n - n_v) q with the binomial variance (5-sigma bands,
fixed seeds); the MSE against the mean of Wang et al.'s variance; memory by
tracemalloc at two n with the same block.
"""

from __future__ import annotations

import concurrent.futures as cf
import tracemalloc

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, QifldpError

F = np.array([0.5, 0.3, 0.2])
N = 10**6
BLOCK = 2**17  # 8 blocks at n = 10^6


def _reference_counts(P, f, n, block, seed):
    """Block by block, here: users sorted by value, block b from spawn(n_blocks)[b]."""
    true = q.allocate_users(f, n)
    xs_all = np.repeat(np.arange(P.k), true)
    n_blocks = -(-n // block)
    children = np.random.SeedSequence(seed).spawn(n_blocks)
    counts = np.zeros(P.k, dtype=np.int64)
    for b, child in enumerate(children):
        xs = xs_all[b * block : (b + 1) * block]
        counts += np.bincount(P.sample(xs, rng=np.random.default_rng(child)), minlength=P.k)
    return counts


def test_allocate_users_rounds_by_largest_remainders():
    c = q.allocate_users([1 / 3, 1 / 3, 1 / 3], 10)
    assert c.tolist() == [4, 3, 3] and c.sum() == 10
    f = np.array([0.123, 0.456, 0.421])
    c = q.allocate_users(f, 10**9 + 7)
    assert c.sum() == 10**9 + 7 and np.all(np.abs(c - f * (10**9 + 7)) < 1)


def test_block_seed_is_the_spawned_child():
    children = np.random.SeedSequence(11).spawn(5)
    for b, child in enumerate(children):
        assert np.array_equal(q.block_seed(11, b).generate_state(4), child.generate_state(4))


def test_identical_counts_whatever_the_executor_and_chunking():
    P = q.protocol("grr", 3, 1.0)
    ref = _reference_counts(P, F, N, BLOCK, seed=5)
    results = []
    with cf.ThreadPoolExecutor(2) as pool:
        for chunksize in (1, 5):
            results.append(
                q.simulate_counts(
                    P,
                    F,
                    N,
                    seed=5,
                    block=BLOCK,
                    executor=pool,
                    chunksize=chunksize,
                    progress=False,
                )
            )
    with cf.ProcessPoolExecutor(2) as pool:
        results.append(
            q.simulate_counts(
                P, F, N, seed=5, block=BLOCK, executor=pool, chunksize=3, progress=False
            )
        )
    results.append(q.simulate_counts(P, F, N, seed=5, block=BLOCK, progress=False))
    for r in results:
        assert r.counts.tolist() == ref.tolist() and r.n == N and r.blocks == 8
        assert r.true_counts.tolist() == [500000, 300000, 200000] and not r.cancelled
    other = q.simulate_counts(P, F, N, seed=6, block=BLOCK, executor=cf.ThreadPoolExecutor(2))
    assert other.counts.tolist() != ref.tolist()


@pytest.mark.slow
def test_identical_counts_on_a_multiprocess_dask_cluster():
    distributed = pytest.importorskip("distributed")
    P = q.protocol("grr", 3, 1.0)
    ref = _reference_counts(P, F, N, BLOCK, seed=5)
    with (
        distributed.LocalCluster(n_workers=2, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        for chunksize in (1, 5):
            r = q.simulate_counts(
                P,
                F,
                N,
                seed=5,
                block=BLOCK,
                executor=client,
                chunksize=chunksize,
                progress=False,
            )
            assert r.counts.tolist() == ref.tolist()
        assert len(client.run(lambda: 1)) == 2


@pytest.mark.parametrize(("name", "eps"), [("grr", 1.0), ("oue", 0.5), ("olh", 2.0)])
def test_counts_within_their_binomial_band(name, eps):
    P = q.protocol(name, 4, eps)
    f = np.array([0.4, 0.3, 0.2, 0.1])
    n = 200_000
    with cf.ThreadPoolExecutor(2) as pool:
        r = q.simulate_counts(P, f, n, seed=1, block=30_000, executor=pool, progress=False)
    p, qq = P.support_probabilities()
    nv = r.true_counts
    mean = nv * p + (n - nv) * qq
    sd = np.sqrt(nv * p * (1 - p) + (n - nv) * qq * (1 - qq))
    assert np.all(np.abs(r.counts - mean) < 5 * sd)
    assert np.all(np.abs(r.estimate() - f) < 5 * np.sqrt(P.variance(n, f)))


def test_mse_matches_the_mean_variance():
    P = q.protocol("grr", 4, 1.0)
    f = np.array([0.4, 0.3, 0.2, 0.1])
    n, runs = 5000, 300
    with cf.ThreadPoolExecutor(2) as pool:
        t = q.sweep(_mse_point, {"seed": list(range(runs))}, executor=pool, progress=False)
    expected = float(np.mean(P.variance(n, f)))
    m = t["value"].to_numpy(float)
    assert abs(m.mean() - expected) < 5 * m.std(ddof=1) / np.sqrt(runs)


def _mse_point(seed):
    P = q.protocol("grr", 4, 1.0)
    r = q.simulate_counts(
        P,
        [0.4, 0.3, 0.2, 0.1],
        5000,
        seed=seed,
        block=1000,
        executor=cf.ThreadPoolExecutor(1),
        progress=False,
    )
    return r.mse()


def test_memory_is_bounded_by_the_block_not_by_n():
    P = q.protocol("grr", 3, 1.0)
    peaks = []
    with cf.ThreadPoolExecutor(1) as pool:
        for n in (2 * 10**6, 2 * 10**7):
            tracemalloc.start()
            r = q.simulate_counts(P, F, n, block=2**16, executor=pool, chunksize=8, progress=False)
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
            assert r.n == n
    # one block's values and reports are int64: a few arrays of 2^16 x 8 bytes
    assert peaks[1] < 1.5 * peaks[0] and peaks[1] < 40 * 2**16 * 8


_CALLS = {"n": 0}


class InterruptingGRR(type(q.protocol("grr", 3, 1.0))):
    """GRR whose sampler raises KeyboardInterrupt at its 4th call (the 3rd block)."""

    def sample(self, xs, rng=None, **options):
        _CALLS["n"] += 1
        if _CALLS["n"] == 4:
            raise KeyboardInterrupt
        return super().sample(xs, rng=rng, **options)


def test_ctrl_c_returns_the_counts_of_the_blocks_done():
    P = InterruptingGRR(3, 1.0)
    _CALLS["n"] = 0
    with cf.ThreadPoolExecutor(1) as pool:
        r = q.simulate_counts(P, F, 10_000, block=1000, executor=pool, chunksize=1, seed=2)
    assert r.cancelled and r.n_requested == 10_000
    assert r.n % 1000 == 0 and 2000 <= r.n <= 9000 and r.blocks == r.n // 1000
    assert r.true_counts.sum() == r.n == r.counts.sum()


class FailingGRR(type(q.protocol("grr", 3, 1.0))):
    def sample(self, xs, rng=None, **options):
        if len(xs) == 7:
            raise RuntimeError("disk full")
        return super().sample(xs, rng=rng, **options)


def test_a_failed_block_is_never_merged_silently():
    with pytest.raises(QifldpError, match="blocks 2..2 failed: RuntimeError: disk full"):
        q.simulate_counts(
            FailingGRR(3, 1.0),
            F,
            27,
            block=10,
            executor=cf.ThreadPoolExecutor(1),
            chunksize=1,
            progress=False,
        )


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "words"),
    [
        ((q.grr(3, 1.0), F, 10), {}, InputTypeError, "protocol must be a protocol object"),
        ((q.protocol("grr", 4, 1.0), F, 10), {}, ParameterError, "f must hold k = 4"),
        ((q.protocol("grr", 3, 1.0), [0.5, 0.6, 0.1], 10), {}, ParameterError, "sum to 1"),
        ((q.protocol("grr", 3, 1.0), [1.5, -0.5, 0.0], 10), {}, ParameterError, ">= 0"),
        ((q.protocol("grr", 3, 1.0), F, 0), {}, ParameterError, "n must be >= 1"),
        ((q.protocol("grr", 3, 1.0), F, 10), {"block": 0}, ParameterError, "block must be"),
        ((q.protocol("grr", 3, 1.0), F, 10), {"seed": 1.5}, InputTypeError, "seed must be"),
        ((q.protocol("grr", 3, 1.0), F, 10), {"hash": "x"}, InputTypeError, "takes no options"),
    ],
)
def test_bad_simulation_arguments_are_named(args, kwargs, error, words):
    with pytest.raises(error) as info:
        q.simulate_counts(*args, executor=cf.ThreadPoolExecutor(1), progress=False, **kwargs)
    assert words in str(info.value)
