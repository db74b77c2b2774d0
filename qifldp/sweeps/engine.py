"""The sweep engine: a function evaluated at every point of a grid, on any executor.

:func:`sweep` evaluates a function at every point of a parameter grid, on this
machine's cores (a process pool), on any :class:`concurrent.futures.Executor` or on
a Dask cluster (a ``distributed.Client``), and returns a labelled table (a pandas
DataFrame): one row a point, in grid order, whatever the executor or the chunking.
Seeds are spawned per point (``numpy.random.SeedSequence(seed).spawn(n)``), so a
seeded Monte Carlo sweep gives the same table on every executor. A point that
raises is recorded (column ``error``), never dropped.

pandas, Dask and tqdm are imported inside the functions: ``import qifldp`` does not
import them.

>>> import concurrent.futures as cf
>>> import qifldp as q
>>> with cf.ThreadPoolExecutor(2) as pool:
...     table = q.sweep(q.formulas.asr_grr, {"k": [2, 4], "eps": [0.0]}, executor=pool,
...                     progress=False)
>>> table[["k", "eps", "value"]].round(6).values.tolist()
[[2.0, 0.0, 0.5], [4.0, 0.0, 0.25]]
"""

from __future__ import annotations

import concurrent.futures as cf
import inspect
import itertools
import logging
import math
import os
import pickle
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputTypeError, ParameterError
from .arguments import _check_int, _type_name
from .blas_threads import one_blas_thread

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["sweep", "CANCELLED"]

#: The ``error`` of a point not run because the sweep was interrupted (Ctrl-C, or a
#: point raising KeyboardInterrupt): the partial table is returned.
CANCELLED: str = "cancelled"

#: Column names :func:`sweep` adds itself; a parameter or an output may not use them.
_RESERVED = ("error", "value")


def _points(grid: Any) -> list[dict[str, Any]]:
    """The grid's points, in order: the Cartesian product of a dict of lists (the last
    name varies fastest) or an explicit list of dicts."""
    if isinstance(grid, Mapping):
        names = list(grid)
        values = []
        for name in names:
            if not isinstance(name, str):
                msg = f"grid keys must be parameter names (str), got {name!r}"
                raise InputTypeError(msg)
            vals = grid[name]
            if isinstance(vals, (str, bytes, Mapping)) or not isinstance(vals, Iterable):
                msg = (
                    f"grid[{name!r}] must be a list of values, got {_type_name(vals)}; "
                    f"write [{vals!r}] for a single value"
                )
                raise InputTypeError(msg)
            vals = list(vals)
            if not vals:
                msg = f"grid[{name!r}] must hold at least one value, got an empty list"
                raise ParameterError(msg)
            values.append(vals)
        if not names:
            msg = "grid must name at least one parameter, got an empty dict"
            raise ParameterError(msg)
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]
    if isinstance(grid, (str, bytes, np.ndarray)) or not isinstance(grid, Sequence):
        msg = (
            "grid must be a dict (name -> list of values) or a list of dicts (one per "
            f"point), got {_type_name(grid)}"
        )
        raise InputTypeError(msg)
    points = []
    for i, point in enumerate(grid):
        if not isinstance(point, Mapping):
            msg = f"grid[{i}] must be a dict (name -> value), got {_type_name(point)}"
            raise InputTypeError(msg)
        for name in point:
            if not isinstance(name, str):
                msg = f"grid[{i}] keys must be parameter names (str), got {name!r}"
                raise InputTypeError(msg)
        points.append(dict(point))
    if not points:
        msg = "grid must hold at least one point, got an empty list"
        raise ParameterError(msg)
    return points


def _accepts_rng(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes a keyword argument ``rng`` (by name, not through **kwargs)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    p = params.get("rng")
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def _dask_client(executor: Any) -> Any:
    """``executor`` when it is a ``distributed.Client`` (Dask is imported only if the
    caller has imported it already: a Client cannot exist otherwise), else None."""
    distributed = sys.modules.get("distributed")
    if distributed is not None and isinstance(executor, distributed.Client):
        return executor
    return None


def _check_picklable(fn: Callable[..., Any], where: str, what: str = "fn") -> None:
    try:
        pickle.dumps(fn)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same
        msg = (
            f"{what} must be picklable to run on {where} (a function defined at module level, "
            f"not a lambda or a local function; or pass executor=a ThreadPoolExecutor or a "
            f"dask distributed.Client): pickling {fn!r} failed with "
            f"{type(exc).__name__}: {exc}"
        )
        raise InputTypeError(msg) from None


# ---------------------------------------------------------------------------------------
# the work of one chunk (runs in the workers)
# ---------------------------------------------------------------------------------------
def _run_point(
    fn: Callable[..., Any], point: dict[str, Any], seed: Any, retries: int
) -> dict[str, Any]:
    """``fn(**point)`` (with ``rng=`` a Generator from ``seed`` when given), tried
    ``1 + retries`` times; the outputs as columns, or the last error."""
    error = ""
    for _ in range(retries + 1):
        kwargs = dict(point)
        if seed is not None:
            kwargs["rng"] = np.random.default_rng(seed)  # a fresh stream on every try
        try:
            result = fn(**kwargs)
        except Exception as exc:  # noqa: BLE001 - every failure of a point is recorded
            error = f"{type(exc).__name__}: {exc}"
            continue
        if not isinstance(result, Mapping):
            return {"value": result, "error": None}
        out: dict[str, Any] = {}
        for key, val in result.items():
            if not isinstance(key, str) or key in point or key in _RESERVED:
                error = (
                    f"InputTypeError: fn's output key {key!r} must be a str other than the "
                    f"parameter names and {', '.join(_RESERVED)}"
                )
                break
            out[key] = val
        else:
            out["error"] = None
            return out
        return {"error": error}  # a bad output key: a retry would not change it
    return {"error": error}


_LOG = logging.getLogger("qifldp.sweeps")

#: The warm-up functions already run in this process (by module and name).
_WARMED: set[str] = set()
_WARM_LOCK = threading.Lock()


def _warm_once(warm: Callable[[], Any] | None) -> None:
    """Run ``warm()`` once in this process (the worker initializer of the process pool,
    the preload of the Dask workers, and the first task of any other worker). A failure
    is logged once (a warning of the ``qifldp.sweeps`` logger naming the process and the
    error: a broken environment shows) and otherwise left to the points themselves,
    which then raise it where it is recorded."""
    if warm is None:
        return
    key = f"{getattr(warm, '__module__', '')}.{getattr(warm, '__qualname__', repr(warm))}"
    with _WARM_LOCK:
        if key in _WARMED:
            return
        try:
            warm()
        except Exception as exc:  # noqa: BLE001 - warming is an optimisation only
            _LOG.warning(
                "warming worker process %d with %s failed (%s: %s); its points run unwarmed "
                "and meet the error themselves",
                os.getpid(),
                key,
                type(exc).__name__,
                exc,
            )
        _WARMED.add(key)


def _start_worker(warm: Callable[[], Any] | None) -> None:
    """The initializer of the default process pool: one BLAS thread per worker
    (``qifldp.sweeps.blas_threads.one_blas_thread``; the pool already uses every core), then the
    warm-up (:func:`_warm_once`)."""
    one_blas_thread()
    _warm_once(warm)


def _run_chunk(
    fn: Callable[..., Any],
    chunk: list[tuple[int, dict[str, Any], Any]],
    retries: int,
    warm: Callable[[], Any] | None = None,
) -> list[tuple[int, dict[str, Any]]]:
    """The task of every executor (process pool, Dask, threads): the points of one chunk,
    in a worker warmed once by ``warm``."""
    _warm_once(warm)
    return [(i, _run_point(fn, point, seed, retries)) for i, point, seed in chunk]


# ---------------------------------------------------------------------------------------
# sweep
# ---------------------------------------------------------------------------------------
def sweep(
    fn: Callable[..., Any],
    grid: Any,
    executor: Any = None,
    progress: bool = True,
    seed: int | None = None,
    *,
    retries: int = 0,
    chunksize: int | None = None,
    warm: Callable[[], Any] | None = None,
) -> pd.DataFrame:
    """Evaluate ``fn(**point)`` at every point of ``grid``; one table row per point.

    Parameters
    ----------
    fn : callable
        Called with the point's parameters as keywords; returns a dict (its keys become
        columns) or any other value (the column ``value``). Must be picklable for a
        process pool (a module-level function); a Dask Client pickles lambdas too.
    grid : dict or list of dict
        ``{name: [values, ...]}``: the Cartesian product, in order (the last name
        varies fastest); or an explicit list of points ``[{name: value, ...}, ...]``.
    executor : None, concurrent.futures.Executor or distributed.Client
        None: a process pool on all cores of this machine, each worker with one BLAS
        thread unless the environment sets a count (``qifldp.sweeps.blas_threads``), shut down
        on return; an executor or a Dask Client
        (``distributed.Client("tcp://scheduler:8786")``, whose nanny starts its workers
        with one BLAS thread) is used as given and left open.
    progress : bool
        A tqdm progress bar (when tqdm is installed and stderr is a terminal).
    seed : int or None
        When given and ``fn`` takes a keyword ``rng``, point ``i`` of ``n`` gets
        ``rng=numpy.random.default_rng(numpy.random.SeedSequence(seed).spawn(n)[i])``:
        the table does not depend on the executor or the chunking.
    retries : int
        A failed point is run again up to ``retries`` times (with the same seed)
        before its error is recorded.
    chunksize : int or None
        Points per task (cheap points: larger chunks); None: about four chunks per
        core.
    warm : callable or None
        Called once per worker process before its first point (imports, caches: what
        every point would otherwise load on first use): the initializer of the default
        process pool, run on every worker of a Dask Client before the points, and by
        the first task in any other worker (this process, for a thread pool). Must be
        picklable for a process pool.

    Returns
    -------
    pandas.DataFrame
        One row per point in grid order: the parameter columns, then fn's outputs,
        then ``error`` (None, or ``"TypeName: message"`` of the point's last failure,
        whose outputs are then NaN/None). Ctrl-C (a KeyboardInterrupt in this process
        or raised by a point) stops the sweep: the points not finished get ``error``
        :data:`CANCELLED` (``"cancelled"``) and the partial table is returned, with
        ``table.attrs["cancelled"]`` True (False otherwise).

    Raises
    ------
    InputTypeError
        ``fn`` not callable (or not picklable for a process pool), a malformed grid,
        an executor of another type, non-integer options, non-bool ``progress``.
    ParameterError
        An empty grid; ``seed`` < 0, ``retries`` < 0, ``chunksize`` < 1; a parameter
        named ``rng`` together with ``seed``, or named ``error``/``value``.

    Examples
    --------
    >>> import concurrent.futures as cf
    >>> import qifldp as q
    >>> def f(k, eps):
    ...     return {"cap": q.formulas.bayes_capacity_grr(k, eps), "half": 1 / (k - 3)}
    >>> with cf.ThreadPoolExecutor(2) as pool:
    ...     t = q.sweep(f, {"k": [2, 3], "eps": [0.0]}, executor=pool, progress=False)
    >>> t.columns.tolist()
    ['k', 'eps', 'cap', 'half', 'error']
    >>> t["cap"].tolist(), t["error"].tolist()
    ([1.0, nan], [None, 'ZeroDivisionError: division by zero'])
    """
    import pandas as pd

    if not callable(fn):
        msg = f"fn must be callable, got {_type_name(fn)}"
        raise InputTypeError(msg)
    points = _points(grid)
    if not isinstance(progress, (bool, np.bool_)):
        msg = f"progress must be a bool, got {progress!r} of type {_type_name(progress)}"
        raise InputTypeError(msg)
    seed = _check_int("seed", seed, 0, allow_none=True)
    retries = int(_check_int("retries", retries, 0) or 0)
    chunksize = _check_int("chunksize", chunksize, 1, allow_none=True)
    names: list[str] = []
    for point in points:
        names.extend(name for name in point if name not in names)
    for name in names:
        if name in _RESERVED:
            msg = f"a grid parameter may not be named {name!r} (a column of the result table)"
            raise ParameterError(msg)
    use_rng = seed is not None and _accepts_rng(fn)
    if use_rng and "rng" in names:
        msg = "grid may not name a parameter 'rng' when seed is given (sweep passes rng=)"
        raise ParameterError(msg)
    client = _dask_client(executor)
    if executor is not None and client is None and not isinstance(executor, cf.Executor):
        msg = (
            "executor must be None (a local process pool), a concurrent.futures.Executor or "
            f"a dask distributed.Client, got {_type_name(executor)}"
        )
        raise InputTypeError(msg)
    if warm is not None and not callable(warm):
        msg = f"warm must be None or a callable taking no arguments, got {_type_name(warm)}"
        raise InputTypeError(msg)
    for what, f in (("fn", fn), ("warm", warm)):
        if f is None:
            continue
        if executor is None:
            _check_picklable(f, "the default process pool (executor=None)", what)
        elif isinstance(executor, cf.ProcessPoolExecutor):
            _check_picklable(f, "a ProcessPoolExecutor", what)

    n = len(points)
    seeds: list[Any] = list(np.random.SeedSequence(seed).spawn(n)) if use_rng else [None] * n
    if chunksize is None:
        chunksize = max(1, math.ceil(n / (4 * (os.cpu_count() or 1))))
    work = [(i, points[i], seeds[i]) for i in range(n)]
    chunks = [work[j : j + chunksize] for j in range(0, n, chunksize)]
    results = _execute(fn, chunks, retries, executor, client, progress, n, warm)

    outputs: list[str] = []
    for res in results:
        outputs.extend(key for key in res if key != "error" and key not in outputs)
    columns = names + (outputs or ["value"]) + ["error"]  # every point failed: NaN values
    rows = [{**points[i], **results[i]} for i in range(n)]
    cancelled = any(res.get("error") == CANCELLED for res in results)
    data = {}
    for column in columns:
        values = [row.get(column) for row in rows]
        # text columns (error, relation, ...) keep None for "none": pandas >= 3 would
        # turn them into its str dtype, where None becomes NaN
        text = column == "error" or any(isinstance(v, str) for v in values)
        data[column] = pd.Series(values, dtype=object if text else None)
    table = pd.DataFrame(data, columns=columns)
    table.attrs["cancelled"] = cancelled
    return table


def _execute(
    fn: Callable[..., Any],
    chunks: list[list[tuple[int, dict[str, Any], Any]]],
    retries: int,
    executor: Any,
    client: Any,
    progress: bool,
    n: int,
    warm: Callable[[], Any] | None = None,
) -> list[dict[str, Any]]:
    """Run the chunks on the executor; the results by point index. A chunk whose task
    fails as a whole (a worker lost, an argument that does not pickle) records the
    failure at each of its points. Every worker is warmed once (:func:`_warm_once`)."""
    own = executor is None
    if own:
        pool: cf.Executor = cf.ProcessPoolExecutor(
            max_workers=os.cpu_count(), initializer=_start_worker, initargs=(warm,)
        )
    elif client is not None:
        if warm is not None:  # the workers' preload, all at once before the points
            try:
                client.run(_warm_once, warm)
            except Exception as exc:  # noqa: BLE001 - the first task of each worker warms it
                _LOG.warning(
                    "preloading the Dask workers with %s failed (%s: %s); each worker is "
                    "warmed by its first task instead",
                    getattr(warm, "__qualname__", repr(warm)),
                    type(exc).__name__,
                    exc,
                )
        pool = client.get_executor(pure=False)
    else:
        pool = executor
    bar = _progress_bar(n, progress)
    results: list[dict[str, Any]] = [{} for _ in range(n)]
    futures: dict[Any, list[tuple[int, dict[str, Any], Any]]] = {}
    try:
        for chunk in chunks:
            futures[pool.submit(_run_chunk, fn, chunk, retries, warm)] = chunk
        for future in cf.as_completed(futures):
            chunk = futures[future]
            try:
                done = future.result()
            except Exception as exc:  # noqa: BLE001 - recorded at every point of the chunk
                error = f"{type(exc).__name__}: {exc}"
                done = [(i, {"error": error}) for i, _, _ in chunk]
            for i, res in done:
                results[i] = res
            if bar is not None:
                bar.update(len(chunk))
    except KeyboardInterrupt:
        # Ctrl-C (in this process, or raised by a point): stop, keep what is done
        for future in futures:
            future.cancel()
        for future in futures:  # chunks that finished meanwhile are kept
            if future.done() and not future.cancelled() and future.exception() is None:
                for i, res in future.result():
                    results[i] = res
        for i in range(n):
            if not results[i]:
                results[i] = {"error": CANCELLED}
    finally:
        if bar is not None:
            bar.close()
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    return results


def _progress_bar(n: int, progress: bool) -> Any:
    """A tqdm bar over ``n`` points (None without tqdm or with ``progress=False``);
    tqdm itself stays silent when stderr is not a terminal."""
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=n, unit="point", disable=None)
