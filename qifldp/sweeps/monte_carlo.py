"""Monte Carlo at scale: n users (up to 10^9 and beyond) in blocks, on any executor.

:func:`simulate_counts` runs a protocol's sampler over n users whose values follow
the frequency vector ``f``, and returns the support counts (how many reports
support each value), merged exactly (integer counts add). The users are split into
*blocks* of ``block`` users, the unit of randomness: block b draws from its own
stream ``SeedSequence(seed).spawn(n_blocks)[b]``. Blocks are grouped into tasks of
``chunksize`` blocks run through :func:`qifldp.sweep` (a process pool, any
``concurrent.futures.Executor`` or a Dask ``distributed.Client``), so the result
depends on ``(seed, block)`` only, never on the executor or the chunking, and the
memory of a worker is bounded by one block's reports, not by n.

>>> import concurrent.futures as cf
>>> import qifldp as q
>>> with cf.ThreadPoolExecutor(2) as pool:
...     r = q.simulate_counts(q.protocol("grr", 3, 2.0), [0.5, 0.3, 0.2], 10**5,
...                           block=2**14, executor=pool, progress=False)
>>> r.n, r.true_counts.tolist(), int(r.counts.sum())  # a GRR report supports one value
(100000, [50000, 30000, 20000], 100000)
>>> bool(abs(r.estimate() - [0.5, 0.3, 0.2]).max() < 0.01)
True
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError, QifldpError
from ..protocols.base import Protocol
from ..simulation import calibrate, support_counts
from ..validation import as_real_array
from .arguments import _check_int
from .engine import CANCELLED, sweep

__all__ = ["SimulatedCounts", "simulate_counts", "allocate_users", "block_seed", "MAX_USERS"]

#: Tolerance on the sum of a frequency vector.
_F_SUM_ATOL = 1e-9

#: Most users of a simulation: n·f is rounded in floating point, exact up to 2^53.
MAX_USERS: int = 2**53


@dataclass(frozen=True, eq=False)
class SimulatedCounts:
    """The merged support counts of a simulation at scale.

    Attributes
    ----------
    protocol : Protocol
        The protocol simulated.
    counts : numpy.ndarray of int64, shape (k,)
        Reports supporting each value, summed over every block simulated.
    true_counts : numpy.ndarray of int64, shape (k,)
        Users holding each value among the users simulated.
    n : int
        Users simulated (``n_requested`` unless cancelled).
    n_requested : int
        Users asked for.
    blocks : int
        Blocks simulated.
    block : int
        Users per block (the unit of randomness).
    seed : int
        The root seed.
    cancelled : bool
        True when Ctrl-C stopped the run: the counts are those of the blocks that
        finished (``n`` users).
    """

    protocol: Protocol
    counts: np.ndarray
    true_counts: np.ndarray
    n: int
    n_requested: int
    blocks: int
    block: int
    seed: int
    cancelled: bool = False

    def estimate(self, project: bool = False) -> np.ndarray:
        """The unbiased frequency estimate f̂_v = (C_v / n − q*) / (p* − q*).

        Parameters
        ----------
        project : bool
            Project onto the probability simplex (then biased).

        Returns
        -------
        numpy.ndarray, shape (k,)

        Examples
        --------
        >>> import concurrent.futures as cf, qifldp as q
        >>> r = q.simulate_counts(q.protocol("oue", 2, 50.0), [1.0, 0.0], 1000,
        ...                       executor=cf.ThreadPoolExecutor(1), progress=False)
        >>> r.estimate().round(6).tolist()
        [1.0, 0.0]
        """
        if self.n == 0:
            msg = "no user was simulated (cancelled before the first block finished)"
            raise ParameterError(msg)
        p, q = self.protocol.support_probabilities()
        return calibrate(self.counts, self.n, p, q, project=project)

    @property
    def frequencies(self) -> np.ndarray:
        """The true frequencies of the users simulated, ``true_counts / n``."""
        return self.true_counts / max(self.n, 1)

    def mse(self) -> float:
        """Mean over the k values of (f̂_v − f_v)², f the true frequencies.

        Its expectation is the mean of ``protocol.variance(n, f)`` (the estimator
        is unbiased).

        Returns
        -------
        float

        Examples
        --------
        >>> import concurrent.futures as cf, qifldp as q
        >>> r = q.simulate_counts(q.protocol("grr", 2, 50.0), [0.5, 0.5], 1000,
        ...                       executor=cf.ThreadPoolExecutor(1), progress=False)
        >>> r.mse() < 1e-12
        True
        """
        return float(np.mean((self.estimate() - self.frequencies) ** 2))


def _show(n: int) -> str:
    digits = str(n)
    return digits if len(digits) <= 20 else f"an integer of {len(digits)} digits"


def _check_users(n: Any) -> int:
    n = int(_check_int("n", n, 1) or 1)
    if n > MAX_USERS:
        msg = f"n must be <= 2^53 = {MAX_USERS} (n·f is rounded in floating point), got {_show(n)}"
        raise ParameterError(msg)
    return n


def allocate_users(f: Any, n: int) -> np.ndarray:
    """How many of n users hold each value: n·f rounded by largest remainders.

    Parameters
    ----------
    f : array_like, shape (k,)
        Frequencies, nonnegative, summing to 1 (within 1e-9).
    n : int
        Users, ``1 <= n <= 2^53``.

    Returns
    -------
    numpy.ndarray of int64, shape (k,)
        Counts summing to exactly n, each within 1 of n·f_v.

    Raises
    ------
    InputTypeError, ParameterError
        A non-numeric, negative or non-finite f, a sum other than 1, a bad n.

    Examples
    --------
    >>> allocate_users([0.5, 0.25, 0.25], 10).tolist()
    [5, 3, 2]
    """
    n = _check_users(n)
    arr = as_real_array("f", f, ndim=1)
    if arr.size < 2:
        msg = f"f must hold at least 2 frequencies, got {arr.size}"
        raise ParameterError(msg)
    if (arr < 0).any():
        msg = f"every entry of f must be >= 0, got {float(arr.min())!r}"
        raise ParameterError(msg)
    if abs(float(arr.sum()) - 1.0) > _F_SUM_ATOL:
        msg = f"f must sum to 1 (within {_F_SUM_ATOL:g}), got {float(arr.sum())!r}"
        raise ParameterError(msg)
    exact = arr / arr.sum() * n
    counts = np.floor(exact).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:  # the largest remainders get one more user (ties: the lower value)
        order = np.argsort(-(exact - counts), kind="stable")
        counts[order[:short]] += 1
    return counts


def block_seed(seed: int, b: int) -> np.random.SeedSequence:
    """The stream of block ``b``: ``SeedSequence(seed).spawn(n_blocks)[b]``, built directly.

    Parameters
    ----------
    seed : int
        The root seed, >= 0.
    b : int
        The block index, >= 0.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> import numpy as np
    >>> child = np.random.SeedSequence(7).spawn(3)[2]
    >>> block_seed(7, 2).generate_state(2).tolist() == child.generate_state(2).tolist()
    True
    """
    seed = int(_check_int("seed", seed, 0) or 0)
    b = int(_check_int("b", b, 0) or 0)
    return np.random.SeedSequence(seed, spawn_key=(b,))


def _block_values(cum: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The values of users start..stop-1 (the users ordered by value)."""
    lo = np.clip(cum[:-1], start, stop)
    hi = np.clip(cum[1:], start, stop)
    return np.repeat(np.arange(len(cum) - 1), hi - lo)


def _simulate_chunk(
    first: int,
    stop: int,
    *,
    protocol: Protocol,
    cum: np.ndarray,
    n: int,
    block: int,
    seed: int,
    options: dict[str, Any],
) -> np.ndarray:
    """Support counts of blocks first..stop-1, one block's reports in memory at a time."""
    total = np.zeros(protocol.k, dtype=np.int64)
    for b in range(first, stop):
        xs = _block_values(cum, b * block, min(n, (b + 1) * block))
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(b,)))
        reports = protocol.sample(xs, rng=rng, **options)
        total += support_counts(reports, protocol.k)
        del reports, xs
    return total


def simulate_counts(
    protocol: Protocol,
    f: Any,
    n: int,
    *,
    seed: int = 0,
    block: int = 2**16,
    executor: Any = None,
    chunksize: int | None = None,
    progress: bool = True,
    **options: Any,
) -> SimulatedCounts:
    """Simulate n users of ``protocol`` with value frequencies ``f``; merged support counts.

    Parameters
    ----------
    protocol : Protocol
        A protocol object (``qifldp.protocol(name, k, eps)``), picklable.
    f : array_like, shape (k,)
        The frequencies of the users' values; the users are allocated by
        :func:`allocate_users` (exact counts summing to n).
    n : int
        Users, ``1 <= n <= 2^53`` (10^9 and beyond: memory does not grow with n).
    seed : int
        Root seed: block b draws from :func:`block_seed` ``(seed, b)``.
    block : int
        Users per block, >= 1: the unit of randomness (the result depends on it) and
        of memory (one block's reports at a time per worker).
    executor : None, concurrent.futures.Executor or distributed.Client
        As for :func:`qifldp.sweep` (None: a process pool on this machine).
    chunksize : int or None
        Blocks per task (None: about four tasks per core); the result does not
        depend on it.
    progress : bool
        A tqdm bar over the tasks (silent when stderr is not a terminal).
    **options
        Options of the protocol's sampler (``protocol.sample``).

    Returns
    -------
    SimulatedCounts
        ``counts``, ``true_counts``, ``n``; ``.estimate()`` and ``.mse()``.
        After Ctrl-C, the counts of the blocks that finished, ``cancelled=True``.

    Raises
    ------
    InputTypeError
        ``protocol`` not a Protocol; non-integer n, seed, block, chunksize.
    ParameterError
        A bad ``f`` (length other than k, negative, sum != 1), n, seed, block or
        chunksize < 1.
    QifldpError
        A block that failed (its error, with the block range): counts are never
        merged with a block missing.

    Examples
    --------
    >>> import concurrent.futures as cf
    >>> import qifldp as q
    >>> P = q.protocol("olh", 4, 1.0)
    >>> with cf.ThreadPoolExecutor(2) as pool:
    ...     a = q.simulate_counts(P, [0.4, 0.3, 0.2, 0.1], 20000, block=1000,
    ...                           executor=pool, chunksize=3, progress=False)
    ...     b = q.simulate_counts(P, [0.4, 0.3, 0.2, 0.1], 20000, block=1000,
    ...                           executor=pool, chunksize=7, progress=False)
    >>> bool((a.counts == b.counts).all()), a.blocks
    (True, 20)
    """
    if not isinstance(protocol, Protocol):
        msg = (
            "protocol must be a protocol object (qifldp.protocol(name, k, eps)), got "
            f"{type(protocol).__name__}"
        )
        raise InputTypeError(msg)
    n = _check_users(n)
    seed = int(_check_int("seed", seed, 0) or 0)
    block = int(_check_int("block", block, 1) or 1)
    chunksize = _check_int("chunksize", chunksize, 1, allow_none=True)
    true = allocate_users(f, n)
    if true.size != protocol.k:
        msg = f"f must hold k = {protocol.k} frequencies (one per value), got {true.size}"
        raise ParameterError(msg)
    protocol.sample(np.zeros(1, dtype=np.int64), rng=0, **options)  # the options' checks
    n_blocks = math.ceil(n / block)
    if chunksize is None:
        chunksize = max(1, math.ceil(n_blocks / (4 * (os.cpu_count() or 1))))
    cum = np.concatenate([[0], np.cumsum(true)]).astype(np.int64)
    fn = functools.partial(
        _simulate_chunk,
        protocol=protocol,
        cum=cum,
        n=n,
        block=block,
        seed=seed,
        options=dict(options),
    )
    grid = [
        {"first": j, "stop": min(n_blocks, j + chunksize)} for j in range(0, n_blocks, chunksize)
    ]
    table = sweep(fn, grid, executor=executor, progress=progress, chunksize=1)
    counts = np.zeros(protocol.k, dtype=np.int64)
    done_true = np.zeros(protocol.k, dtype=np.int64)
    users = blocks = 0
    cancelled = False
    for row in table.itertuples(index=False):
        if row.error == CANCELLED:
            cancelled = True
            continue
        if row.error is not None:
            msg = f"blocks {row.first}..{row.stop - 1} failed: {row.error}"
            raise QifldpError(msg)
        counts += np.asarray(row.value, dtype=np.int64)
        start, stop = row.first * block, min(n, row.stop * block)
        done_true += np.clip(cum[1:], start, stop) - np.clip(cum[:-1], start, stop)
        users += stop - start
        blocks += row.stop - row.first
    return SimulatedCounts(
        protocol=protocol,
        counts=counts,
        true_counts=done_true,
        n=users,
        n_requested=n,
        blocks=blocks,
        block=block,
        seed=seed,
        cancelled=cancelled,
    )
