"""Questions over whole parameter spaces: sweeps and comparability maps.

:func:`sweep` evaluates a function at every point of a parameter grid, on this
machine's cores (a process pool), on any :class:`concurrent.futures.Executor` or on
a Dask cluster (a ``distributed.Client``), and returns a labelled table (a pandas
DataFrame): one row a point, in grid order, whatever the executor or the chunking.
Seeds are spawned per point (``numpy.random.SeedSequence(seed).spawn(n)``), so a
seeded Monte Carlo sweep gives the same table on every executor. A point that
raises is recorded (column ``error``), never dropped.

:func:`comparability_map` decides, at every (k, eps), whether protocol A refines
protocol B and B refines A, through :func:`sweep`.

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
import functools
import inspect
import itertools
import math
import numbers
import os
import pickle
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputTypeError, ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "sweep",
    "comparability_map",
    "certificate_digest",
    "hard_time_limit",
    "RELATIONS",
    "CANCELLED",
    "CERTIFICATE_COLUMNS",
]

#: The values of the ``relation`` column of :func:`comparability_map`.
RELATIONS: tuple[str, ...] = ("equivalent", "A⊑B", "B⊑A", "incomparable", "undecided")

#: The ``error`` of a point not run because the sweep was interrupted (Ctrl-C, or a
#: point raising KeyboardInterrupt): the partial table is returned.
CANCELLED: str = "cancelled"

#: Column names :func:`sweep` adds itself; a parameter or an output may not use them.
_RESERVED = ("error", "value")


# ---------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------
def _type_name(value: Any) -> str:
    return type(value).__name__


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


def _check_int(name: str, value: Any, minimum: int, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        what = "None or an integer" if allow_none else "an integer"
        msg = f"{name} must be {what} >= {minimum}, got {value!r} of type {_type_name(value)}"
        raise InputTypeError(msg)
    if value < minimum:
        msg = f"{name} must be >= {minimum}, got {value}"
        raise ParameterError(msg)
    return int(value)


def _float(value: Any) -> float:
    """``float(value)``; an integer beyond the float range is infinite (then refused)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _check_seconds(name: str, value: Any, unit: str = "a number of seconds") -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        msg = f"{name} must be {unit}, got {value!r} of type {_type_name(value)}"
        raise InputTypeError(msg)
    f = _float(value)
    if not (math.isfinite(f) and f > 0):
        msg = f"{name} must be finite and > 0, got {value!r}"
        raise ParameterError(msg)
    return f


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


def _check_picklable(fn: Callable[..., Any], where: str) -> None:
    try:
        pickle.dumps(fn)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same
        msg = (
            f"fn must be picklable to run on {where} (a function defined at module level, "
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


def _run_chunk(
    fn: Callable[..., Any], chunk: list[tuple[int, dict[str, Any], Any]], retries: int
) -> list[tuple[int, dict[str, Any]]]:
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
        None: a process pool on all cores of this machine, shut down on return; an
        executor or a Dask Client (``distributed.Client("tcp://scheduler:8786")``) is
        used as given and left open.
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
    if executor is None:
        _check_picklable(fn, "the default process pool (executor=None)")
    elif isinstance(executor, cf.ProcessPoolExecutor):
        _check_picklable(fn, "a ProcessPoolExecutor")

    n = len(points)
    seeds: list[Any] = list(np.random.SeedSequence(seed).spawn(n)) if use_rng else [None] * n
    if chunksize is None:
        chunksize = max(1, math.ceil(n / (4 * (os.cpu_count() or 1))))
    work = [(i, points[i], seeds[i]) for i in range(n)]
    chunks = [work[j : j + chunksize] for j in range(0, n, chunksize)]
    results = _execute(fn, chunks, retries, executor, client, progress, n)

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
) -> list[dict[str, Any]]:
    """Run the chunks on the executor; the results by point index. A chunk whose task
    fails as a whole (a worker lost, an argument that does not pickle) records the
    failure at each of its points."""
    own = executor is None
    if own:
        pool: cf.Executor = cf.ProcessPoolExecutor(max_workers=os.cpu_count())
    elif client is not None:
        pool = client.get_executor(pure=False)
    else:
        pool = executor
    bar = _progress_bar(n, progress)
    results: list[dict[str, Any]] = [{} for _ in range(n)]
    futures: dict[Any, list[tuple[int, dict[str, Any], Any]]] = {}
    try:
        for chunk in chunks:
            futures[pool.submit(_run_chunk, fn, chunk, retries)] = chunk
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


# ---------------------------------------------------------------------------------------
# comparability maps
# ---------------------------------------------------------------------------------------
def _protocol_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    from .protocols import _PARAMETERS

    return {key: val for key, val in params.items() if key in _PARAMETERS.get(name, ())}


#: The representations :func:`comparability_map` decides on.
REPRESENTATIONS: tuple[str, ...] = ("protocol", "symmetric")


def _build(
    spec: Any, k: int, eps: float, params: dict[str, Any], representation: str = "protocol"
) -> Any:
    if isinstance(spec, str):
        from .protocols import protocol

        P = protocol(spec, k, eps, **_protocol_params(spec, params))
        return P.symmetric() if representation == "symmetric" else P
    return spec(k, eps)


def _check_protocols(A: Any, B: Any) -> list[str]:
    """Check that A and B are each a protocol name or a callable; the names among them."""
    from .protocols import PROTOCOL_NAMES

    for label, spec in (("A", A), ("B", B)):
        if isinstance(spec, str):
            if spec not in PROTOCOL_NAMES:
                msg = f"{label} must be one of {', '.join(PROTOCOL_NAMES)}, got {spec!r}"
                raise ParameterError(msg)
        elif not callable(spec):
            msg = (
                f"{label} must be a protocol name (str) or a callable (k, eps) -> channel, "
                f"got {_type_name(spec)}"
            )
            raise InputTypeError(msg)
    return [spec for spec in (A, B) if isinstance(spec, str)]


def _check_representation(representation: Any) -> str:
    if not isinstance(representation, str):
        msg = f"representation must be a str, got {_type_name(representation)}"
        raise InputTypeError(msg)
    if representation not in REPRESENTATIONS:
        msg = f"representation must be one of {', '.join(REPRESENTATIONS)}, got {representation!r}"
        raise ParameterError(msg)
    return representation


#: The certificate columns of :func:`comparability_map`, per direction (prefix ``ab_``
#: for A ⊑ B, ``ba_`` for B ⊑ A).
CERTIFICATE_COLUMNS: tuple[str, ...] = (
    "certified_by",
    "about",
    "up_to_rounding",
    "exact",
    "certificate",
    "residual",
    "gap",
    "seconds",
)


def _arrays(obj: Any) -> list[np.ndarray]:
    """The numeric arrays a certificate is made of (a witness matrix, an OrbitWitness's
    fields, a counterexample's gain and prior), in a fixed order."""
    if obj is None:
        return []
    if isinstance(obj, np.ndarray):
        return [obj]
    fields = getattr(obj, "__dataclass_fields__", None)
    names = list(fields) if fields is not None else sorted(vars(obj))
    out: list[np.ndarray] = []
    for name in names:
        val = getattr(obj, name)
        if isinstance(val, np.ndarray):
            out.append(val)
        elif isinstance(val, numbers.Real) and not isinstance(val, bool):
            out.append(np.asarray([val], dtype=float))
        elif hasattr(val, "__dataclass_fields__") or hasattr(val, "__dict__"):
            if not callable(val):
                out.extend(_arrays(val))
    return out


def certificate_digest(obj: Any) -> str:
    """A short hash of a certificate's arrays (witness or counterexample gain and prior).

    SHA-256 of each array's dtype, shape and bytes (C order), the first 16 hex digits:
    equal certificates give equal digests on every machine and executor.

    Parameters
    ----------
    obj : numpy.ndarray, dataclass or object with array attributes, or None
        A witness (a matrix, or an ``OrbitWitness``) or a ``Counterexample``.

    Returns
    -------
    str
        16 hexadecimal digits ("" for None).

    Examples
    --------
    >>> import numpy as np
    >>> certificate_digest(np.eye(2)) == certificate_digest(np.eye(2).copy())
    True
    >>> len(certificate_digest(np.eye(2))), certificate_digest(None)
    (16, '')
    """
    import hashlib

    if obj is None:
        return ""
    h = hashlib.sha256()
    for arr in _arrays(obj):
        a = np.ascontiguousarray(arr)
        if a.dtype == object:
            a = a.astype(float)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _certificate(prefix: str, result: Any, seconds: float) -> dict[str, Any]:
    """The certificate columns of one direction from its RefinementResult."""
    ce = result.counterexample
    residual = getattr(result, "residual", None)
    if residual is None and result.witness is not None:
        residual = getattr(result.witness, "residual", None)
    values = {
        "certified_by": str(result.certified_by),
        "about": str(result.about),
        "up_to_rounding": bool(result.up_to_rounding),
        "exact": bool(result.exact),
        "certificate": certificate_digest(result.witness if ce is None else ce),
        "residual": None if residual is None or ce is not None else float(residual),
        "gap": None if ce is None else float(ce.gap),
        "seconds": float(seconds),
    }
    return {f"{prefix}_{key}": val for key, val in values.items()}


def _empty_certificate(prefix: str, seconds: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {f"{prefix}_{key}": None for key in CERTIFICATE_COLUMNS}
    out[f"{prefix}_seconds"] = seconds
    return out


def hard_time_limit(time_limit: float) -> float:
    """Seconds after which a refinement of a map is stopped: ``time_limit`` plus a grace
    of a quarter of it (at least 1 s) for the certificate's verification.

    :func:`qifldp.refines` stops its iterative engines at ``time_limit``, but HiGHS
    and the rational-arithmetic fallback are not interruptible (an OLH/OUE pair at
    k = 4 has run 180 s with ``time_limit=5``); a map therefore runs each refinement
    in a forked child process and stops it at this limit.

    Parameters
    ----------
    time_limit : float
        The ``time_limit`` of the map, seconds.

    Returns
    -------
    float

    Examples
    --------
    >>> hard_time_limit(2.0), hard_time_limit(60.0)
    (3.0, 75.0)
    """
    t = _check_seconds("time_limit", time_limit)
    return t + max(1.0, 0.25 * t)


def _refine_in_child(conn: Any, X: Any, Y: Any, time_limit: float) -> None:
    from .refinement import refines

    try:
        payload: tuple[bool, Any] = (True, refines(X, Y, time_limit=time_limit))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
        payload = (False, exc)
    try:
        conn.send(payload)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
        what = payload[1]
        text = f"{type(what).__name__}: {what}" if not payload[0] else repr(exc)
        conn.send((False, RuntimeError(f"the result could not be sent back: {text}")))
    finally:
        conn.close()


def _can_fork() -> bool:
    import multiprocessing as mp

    return "fork" in mp.get_all_start_methods() and not mp.current_process().daemon


def _decide(X: Any, Y: Any, time_limit: float) -> Any:
    """``refines(X, Y, time_limit=...)``, stopped at :func:`hard_time_limit` (in a forked
    child process; in this process where forking is not possible: a daemonic worker
    such as a Dask worker process, or a platform without fork, where only the
    engines' own ``time_limit`` applies)."""
    if not _can_fork():
        from .refinement import refines

        return refines(X, Y, time_limit=time_limit)
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_refine_in_child, args=(sender, X, Y, time_limit), daemon=True)
    hard = hard_time_limit(time_limit)
    child.start()
    sender.close()
    try:
        if not receiver.poll(hard):
            msg = (
                f"no verdict within {hard:g} s (time_limit = {time_limit:g} s plus the "
                "grace of hard_time_limit): the refinement was stopped"
            )
            raise TimeoutError(msg)
        try:
            ok, payload = receiver.recv()
        except EOFError:
            child.join()
            msg = f"the refinement process ended without a result (exit code {child.exitcode})"
            raise RuntimeError(msg) from None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()
    if not ok:
        raise payload
    return payload


def _compare_point(
    k: int,
    eps: float,
    *,
    a: Any,
    b: Any,
    params: dict[str, Any],
    time_limit: float = 60.0,
    representation: str = "protocol",
) -> dict:
    """The verdicts A ⊑ B and B ⊑ A at one (k, eps), with their certificates: the row
    of the map."""
    import time

    reasons = []
    verdicts: list[bool | None] = []
    certs: dict[str, Any] = {}
    try:
        A = _build(a, k, eps, params, representation)
        B = _build(b, k, eps, params, representation)
    except Exception as exc:  # noqa: BLE001 - recorded as the reason of "undecided"
        reason = f"building the protocols: {type(exc).__name__}: {exc}"
        return {
            "a_refines_b": None,
            "b_refines_a": None,
            "relation": "undecided",
            "reason": reason,
            **_empty_certificate("ab"),
            **_empty_certificate("ba"),
        }
    for label, prefix, (X, Y) in (("A⊑B", "ab", (A, B)), ("B⊑A", "ba", (B, A))):
        start = time.perf_counter()
        try:
            result = _decide(X, Y, time_limit)
        except Exception as exc:  # noqa: BLE001 - recorded as the reason of "undecided"
            seconds = time.perf_counter() - start
            verdicts.append(None)
            over = (
                f" (over the time limit: {seconds:.1f} s > time_limit = {time_limit:g} s)"
                if seconds > time_limit
                else ""
            )
            reasons.append(f"{label}: {type(exc).__name__}{over}: {exc}")
            certs.update(_empty_certificate(prefix, seconds))
            continue
        seconds = time.perf_counter() - start
        verdicts.append(bool(result))
        certs.update(_certificate(prefix, result, seconds))
        if result.exact and result.about == "channels" and not result.holds:
            # decided only in rational arithmetic on the stored floats (the float route
            # could not): a gap below float resolution, which says nothing of the protocols
            gap = float(result.counterexample.gap)
            reasons.append(
                f"{label} fails only exactly on the stored floats (gap {gap:.3g}, below "
                "float resolution): a rounding-boundary point, the protocols may refine"
            )
    ab, ba = verdicts
    if ab is None or ba is None:
        relation = "undecided"
    else:
        relation = {(True, True): "equivalent", (True, False): "A⊑B", (False, True): "B⊑A"}.get(
            (ab, ba), "incomparable"
        )
    return {
        "a_refines_b": ab,
        "b_refines_a": ba,
        "relation": relation,
        "reason": "; ".join(reasons) or None,
        **certs,
    }


def _values(name: str, values: Any, integer: bool) -> list[Any]:
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        msg = f"{name} must be a list of numbers, got {_type_name(values)}"
        raise InputTypeError(msg)
    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=object)
    if arr.ndim != 1:
        msg = f"{name} must be a flat list of numbers, got shape {arr.shape}"
        raise InputTypeError(msg)
    if arr.size == 0:
        msg = f"{name} must hold at least one value, got an empty list"
        raise ParameterError(msg)
    out: list[Any] = []
    for v in arr:
        if integer:
            out.append(_check_int(f"every entry of {name}", v, 2))
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            msg = f"every entry of {name} must be a real number, got {v!r} of type {_type_name(v)}"
            raise InputTypeError(msg)
        f = _float(v)
        if not math.isfinite(f) or f < 0:
            msg = f"every entry of {name} must be finite and >= 0, got {v!r}"
            raise ParameterError(msg)
        out.append(f)
    return out


def comparability_map(
    A: Any,
    B: Any,
    ks: Any,
    epss: Any,
    *,
    executor: Any = None,
    progress: bool = True,
    chunksize: int | None = None,
    time_limit: float = 60.0,
    representation: str = "protocol",
    **params: Any,
) -> pd.DataFrame:
    """Where A ⊑ B, B ⊑ A, both or neither, over a grid of (k, eps).

    At every (k, eps), the two refinements are decided by :func:`qifldp.refines` on
    the protocol objects (``qifldp.protocol(A, k, eps)``: their best representation,
    the orbit LP for symmetric pairs) or on the channels the callables return. The
    points run through :func:`sweep`.

    Parameters
    ----------
    A, B : str or callable
        Protocol names (as :func:`qifldp.protocol` takes: ``"grr"``, ``"ss"``, ``"oue"``,
        ...) or callables ``(k, eps) -> channel`` (module-level for the default process
        pool).
    ks : list of int
        Domain sizes, each >= 2.
    epss : list of float
        Privacy parameters, each finite and >= 0.
    executor, progress, chunksize
        As for :func:`sweep`.
    time_limit : float
        Seconds per refinement, passed to :func:`qifldp.refines` (whose iterative
        engines stop there); each refinement runs in a forked child process that is
        stopped at :func:`hard_time_limit` (``time_limit`` + max(1 s, 25 %)), so no
        point hangs the map (in daemonic workers such as Dask's worker processes,
        which may not fork, only the engines' limit applies). A direction without a
        verdict is recorded as ``"undecided"`` with the reason (a ``TimeoutError``
        when stopped; the seconds it took), and the map goes on.
    representation : {"protocol", "symmetric"}
        What :func:`qifldp.refines` decides on for named protocols: the protocol
        objects (their best representation, explicit at small k) or their symmetric
        channels (``.symmetric()``: the orbit LP at every k, which certifies one-hot
        pairs such as SUE/OUE at large eps where explicit engines give up).
    **params
        Protocol parameters (``theta``, ``omega``, ``g``): each goes to the named
        protocols that take it.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``eps`` (k outer, eps inner), ``a_refines_b`` (A ⊑ B),
        ``b_refines_a``, ``relation`` in ``{"equivalent", "A⊑B", "B⊑A",
        "incomparable"}``, or ``"undecided"`` (a verdict None) with the failure in
        ``reason`` (which also names a direction that fails only exactly on the
        stored floats, by a gap below float resolution: a rounding-boundary point,
        where the protocols themselves may refine); then the certificate of each
        direction (prefix ``ab_`` for A ⊑ B, ``ba_`` for B ⊑ A;
        :data:`CERTIFICATE_COLUMNS`): ``certified_by``, ``about`` and
        ``up_to_rounding`` of the :class:`qifldp.RefinementResult`,
        ``exact`` (proved in rational arithmetic), ``certificate`` (the
        :func:`certificate_digest` of the witness or of the counterexample),
        ``residual`` (of the witness) or ``gap`` (of the counterexample) and
        ``seconds``; and ``error`` (a failure of the point itself, from :func:`sweep`,
        ``"cancelled"`` for points not run after Ctrl-C).

    Raises
    ------
    InputTypeError
        A or B neither a str nor callable; a parameter no named protocol takes;
        non-numeric ks or epss; bad sweep options.
    ParameterError
        An unknown protocol name; empty ks or epss; k < 2; eps negative or not finite;
        protocol parameters out of range (checked at the first point); ``time_limit``
        not positive and finite; an unknown ``representation``.

    Examples
    --------
    >>> import concurrent.futures as cf
    >>> import qifldp as q
    >>> with cf.ThreadPoolExecutor(2) as pool:
    ...     m = q.comparability_map("oue", "grr", [3], [0.5, 4.0], executor=pool,
    ...                             progress=False)
    >>> m[["k", "eps", "relation"]].values.tolist()
    [[3, 0.5, 'incomparable'], [3, 4.0, 'incomparable']]
    """
    import pandas as pd

    from .protocols import _PARAMETERS

    named = _check_protocols(A, B)
    for key in params:
        if not any(key in _PARAMETERS[name] for name in named):
            msg = (
                f"comparability_map() got a parameter {key!r} that neither protocol "
                f"({', '.join(map(repr, named)) or 'none named'}) takes"
            )
            raise InputTypeError(msg)
    k_list = _values("ks", ks, integer=True)
    eps_list = _values("epss", epss, integer=False)
    # the protocols' own checks (names, parameters, sizes) at the first point, here
    for spec in (A, B):
        if isinstance(spec, str):
            _build(spec, k_list[0], eps_list[0], params)
    time_limit = _check_seconds("time_limit", time_limit)
    representation = _check_representation(representation)
    fn = functools.partial(
        _compare_point,
        a=A,
        b=B,
        params=dict(params),
        time_limit=time_limit,
        representation=representation,
    )
    table = sweep(
        fn,
        {"k": k_list, "eps": eps_list},
        executor=executor,
        progress=progress,
        chunksize=chunksize,
    )
    if "relation" not in table:  # every point failed as a whole (a worker lost ...)
        table = table.drop(columns="value")
        certificate = [f"{p}_{c}" for p in ("ab", "ba") for c in CERTIFICATE_COLUMNS]
        for column in ("a_refines_b", "b_refines_a", "relation", "reason", *certificate):
            table.insert(
                len(table.columns) - 1, column, pd.Series([None] * len(table), dtype=object)
            )
        table["relation"] = "undecided"
    return table
