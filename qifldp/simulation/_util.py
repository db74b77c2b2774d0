"""Private helpers of the simulation subpackage: random generators, value checks, chunking."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..validation import check_int
from ..errors import InputTypeError, ParameterError, SizeError

__all__: list[str] = []

#: Number of matrix cells processed per block by the chunked (n, k) loops: big
#: enough to amortise numpy's per-call overhead, small enough to stay in cache.
CHUNK_CELLS: int = 1 << 18

#: Memory budget of the simulation subpackage: the largest array (in bytes) a
#: sampler, estimator, attack or data generator may allocate, for its output or
#: its working storage. 1 GiB. Every size is estimated *before* allocating; a
#: request beyond the budget raises :class:`~qifldp.errors.SizeError` naming the
#: size and what to do instead (fewer users per call, sparse counts). Working
#: storage is sized by the data (users, subset sizes, observed values), never by
#: the domain size k alone.
MEMORY_BUDGET_BYTES: int = 1 << 30


def check_memory(n_items: int, item_bytes: int, what: str, alternative: str) -> None:
    """Raise SizeError when ``n_items * item_bytes`` exceeds :data:`MEMORY_BUDGET_BYTES`.

    >>> check_memory(10, 8, "x", "y")
    >>> check_memory(10**9, 8, "the estimates", "sparse counts")
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: the estimates would need 1000000000 x 8 bytes = 7.45 GiB, ...
    """
    size = float(n_items) * float(item_bytes)
    if size > MEMORY_BUDGET_BYTES:
        count = int(n_items) if float(n_items) < 1e30 else f"{float(n_items):.3g}"
        msg = (
            f"{what} would need {count} x {int(item_bytes)} bytes = {size / 2**30:.3g} GiB, "
            f"more than the simulation memory budget MEMORY_BUDGET_BYTES = "
            f"{MEMORY_BUDGET_BYTES / 2**30:.3g} GiB. Use {alternative} instead."
        )
        raise SizeError(msg)


def check_n(value: Any, name: str = "n") -> int:
    """A number of users: an integer (int or numpy integer, not a float) ``>= 1``.

    Floats are refused even when integral: a float here is almost always a
    swapped argument (``variance_oue(n, eps)`` instead of ``variance_oue(eps, n)``).

    >>> check_n(100)
    100
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        msg = (
            f"{name} must be an integer number of users, got {value!r} of type "
            f"{type(value).__name__} (check the argument order)"
        )
        raise InputTypeError(msg)
    return check_int(name, value, minimum=1)


def as_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a Generator, an int seed or None (fresh entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, bool) or not isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        msg = (
            f"{name} must be a numpy.random.Generator, an integer seed or None, "
            f"got {type(rng).__name__}"
        )
        raise InputTypeError(msg)
    if isinstance(rng, numbers.Integral) and int(rng) < 0:
        msg = f"{name} must be a non-negative integer seed, got {int(rng)}"
        raise ParameterError(msg)
    return np.random.default_rng(rng)


def as_array(value: Any, name: str) -> np.ndarray:
    """``np.asarray(value)`` with a clear error for None, strings, ragged lists and
    complex or object entries (report matrices hold integers, booleans or floats)."""
    if value is None or isinstance(value, (str, bytes, dict, set)):
        msg = f"{name} must be an array, got {type(value).__name__}"
        raise InputTypeError(msg)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        msg = f"{name} must be a rectangular array: {exc}"
        raise ParameterError(msg) from None
    if arr.dtype == object or np.issubdtype(arr.dtype, np.complexfloating):
        msg = f"{name} must hold integers, booleans or real numbers, got dtype {arr.dtype}"
        raise InputTypeError(msg)
    return arr


def as_values(xs: Any, k: int, name: str = "xs") -> np.ndarray:
    """``xs`` as a 1-D int64 array with every entry in 0..k-1."""
    if xs is None or isinstance(xs, (str, bytes, dict, set)):
        msg = f"{name} must be a 1-D array of input indices, got {type(xs).__name__}"
        raise InputTypeError(msg)
    try:
        arr = np.asarray(xs)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        msg = f"{name} must be a 1-D array of input indices: {exc}"
        raise ParameterError(msg) from None
    if arr.ndim != 1:
        msg = f"{name} must be a 1-D array of input indices, got shape {arr.shape}"
        raise ParameterError(msg)
    if arr.dtype == np.bool_ or not (
        np.issubdtype(arr.dtype, np.integer) or (arr.size == 0 and arr.dtype == np.float64)
    ):
        if (
            np.issubdtype(arr.dtype, np.floating)
            and np.all(np.isfinite(arr))
            and np.all(arr == np.round(arr))
        ):
            arr = arr.astype(np.int64)
        else:
            msg = f"{name} must hold integer input indices, got dtype {arr.dtype}"
            raise InputTypeError(msg)
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= k):
        bad = arr[(arr < 0) | (arr >= k)][0]
        msg = f"{name} must lie in 0..{k - 1} (k = {k}), got {int(bad)}"
        raise ParameterError(msg)
    return arr


def row_chunks(n_rows: int, n_cols: int, cells: int = CHUNK_CELLS):
    """Yield (start, stop) row ranges covering ``n_rows`` with about ``cells`` cells each."""
    step = max(1, cells // max(1, n_cols))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def choose_uniform_true(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each row of a boolean (n, k) mask, a column chosen uniformly among its True
    entries, or uniformly among all k columns when the row has none."""
    n, k = mask.shape
    out = np.empty(n, dtype=np.int64)
    for s, e in row_chunks(n, k):
        m = mask[s:e]
        counts = np.count_nonzero(m, axis=1)
        empty = counts == 0
        # rank r (0-based) of the chosen True entry within its row
        r = rng.integers(0, np.maximum(counts, 1))
        csum = np.cumsum(m, axis=1, dtype=np.int32)
        chosen = np.argmax(csum > r[:, None], axis=1)
        n_empty = int(np.count_nonzero(empty))
        if n_empty:
            chosen[empty] = rng.integers(0, k, size=n_empty)
        out[s:e] = chosen
    return out
