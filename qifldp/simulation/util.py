"""Input checks, memory budget and chunking shared by the simulators of every protocol.

The generic machinery of :mod:`qifldp.simulation` and the samplers, estimators
and attacks of each family (in :mod:`qifldp.protocols`) validate their inputs
and size their work with these helpers, so that every protocol raises the same
errors for the same mistakes.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError, SizeError
from ..validation import check_int

__all__ = [
    "CHUNK_CELLS",
    "MEMORY_BUDGET_BYTES",
    "MAX_SS_K",
    "check_memory",
    "check_n",
    "as_rng",
    "asarray_checked",
    "as_array",
    "as_values",
    "row_chunks",
    "bernoulli_fill",
    "bernoulli_where",
    "choose_uniform_true",
    "is_prime",
    "check_prime",
    "check_bits",
    "method_options",
]

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

#: Largest domain size of the GRR and SS samplers (values and row-coded values fit in int64).
MAX_SS_K: int = 1 << 62

#: The largest prime of the universal hash family of local hashing, 2^31 − 1
#: (``qifldp.simulation.DEFAULT_PRIME``): every intermediate value fits in 64-bit integers.
MAX_PRIME: int = (1 << 31) - 1


def check_memory(n_items: float, item_bytes: int, what: str, alternative: str) -> None:
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
    """A :class:`numpy.random.Generator` from a Generator, an int seed or None (fresh entropy).

    Examples
    --------
    >>> int(as_rng(3).integers(0, 10)) == int(np.random.default_rng(3).integers(0, 10))
    True
    """
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
    return np.random.default_rng(int(rng) if isinstance(rng, numbers.Integral) else rng)


def asarray_checked(value: Any, name: str, what: str, ragged: str | None = None) -> np.ndarray:
    """``np.asarray(value)``, refusing None, strings, mappings, sets and ragged nested lists.

    ``value`` and ``name`` are as for :func:`qifldp.arrays.float_array`; ``what``
    is what the argument must be (e.g. ``"a 1-D array of input indices"``) and
    ``ragged`` what to say it must be when the nested lists are ragged (default
    ``what``). Returns a numpy.ndarray.

    Raises
    ------
    InputTypeError
        None, a string, a dict or a set.
    ParameterError
        Ragged nested lists.

    Examples
    --------
    >>> asarray_checked("abc", "xs", "an array")
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: xs must be an array, got str
    """
    if value is None or isinstance(value, (str, bytes, dict, set)):
        msg = f"{name} must be {what}, got {type(value).__name__}"
        raise InputTypeError(msg)
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        msg = f"{name} must be {ragged or what}: {exc}"
        raise ParameterError(msg) from None


def as_array(value: Any, name: str) -> np.ndarray:
    """``np.asarray(value)`` with a clear error for None, strings, ragged lists and
    complex or object entries (report matrices hold integers, booleans or floats).

    Examples
    --------
    >>> as_array([[1, 0]], "bits").shape
    (1, 2)
    """
    arr = asarray_checked(value, name, "an array", "a rectangular array")
    if arr.dtype == object or np.issubdtype(arr.dtype, np.complexfloating):
        msg = f"{name} must hold integers, booleans or real numbers, got dtype {arr.dtype}"
        raise InputTypeError(msg)
    return arr


def as_values(xs: Any, k: int, name: str = "xs") -> np.ndarray:
    """``xs`` as a 1-D int64 array with every entry in 0..k-1.

    Examples
    --------
    >>> as_values([0, 2.0], 3).tolist()
    [0, 2]
    >>> as_values([3], 3)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: xs must lie in 0..2 (k = 3), got 3
    """
    arr = asarray_checked(xs, name, "a 1-D array of input indices")
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


def row_chunks(n_rows: int, n_cols: int, cells: int = CHUNK_CELLS) -> Iterator[tuple[int, int]]:
    """Yield (start, stop) row ranges covering ``n_rows`` with about ``cells`` cells each.

    Examples
    --------
    >>> list(row_chunks(5, 2, cells=4))
    [(0, 2), (2, 4), (4, 5)]
    """
    step = max(1, cells // max(1, n_cols))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def _split256(prob: float) -> tuple[int, float]:
    """256 prob = t + r with t an integer in 0..256 and 0 <= r < 1 (exact: 256 = 2^8)."""
    scaled = min(max(float(prob), 0.0), 1.0) * 256.0
    t = int(scaled)
    return t, scaled - t


def bernoulli_where(
    out: np.ndarray,
    which: np.ndarray | None,
    p_true: float,
    p_false: float,
    rng: np.random.Generator,
) -> None:
    """Fill the boolean array ``out`` with independent Bernoulli draws: probability
    ``p_true`` where ``which`` is True, ``p_false`` elsewhere (everywhere when ``which``
    is None).

    One random byte per cell instead of a float64 uniform (8x fewer random bits): with
    256 prob = t + r (t an integer, 0 <= r < 1, both exact since 256 is a power of
    two), a cell is 1 when its byte u < t, 0 when u > t, and on a tie (u = t,
    probability 1/256) 1 with probability r by a float64 uniform; so Pr[1] =
    t / 256 + r / 256 = prob, exactly the law of one uniform compared with prob.

    Parameters
    ----------
    out : numpy.ndarray of bool
        Filled in place (any shape, C-contiguous).
    which : numpy.ndarray of bool or None
        Same shape as ``out``: the cells that get ``p_true``.
    p_true, p_false : float
        Probabilities of a 1, in [0, 1] (values outside are clipped).
    rng : numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty(100_000, dtype=bool)
    >>> bernoulli_where(out, np.arange(100_000) < 50_000, 1.0, 0.2, np.random.default_rng(0))
    >>> bool(out[:50_000].all()), round(float(out[50_000:].mean()), 2)
    (True, 0.2)
    """
    t0, r0 = _split256(p_false)
    u = np.frombuffer(rng.bytes(out.size), dtype=np.uint8).reshape(out.shape)
    if which is None:
        np.less(u, t0, out=out)
        if r0 > 0.0:
            ties = np.flatnonzero(u == t0)
            out.reshape(-1)[ties] = rng.random(ties.size) < r0
        return
    t1, r1 = _split256(p_true)
    thresholds = np.where(which, np.uint16(t1), np.uint16(t0))
    np.less(u, thresholds, out=out)
    if r0 > 0.0 or r1 > 0.0:
        ties = np.flatnonzero(u == thresholds)
        rest = np.where(which.reshape(-1)[ties], r1, r0)
        out.reshape(-1)[ties] = rng.random(ties.size) < rest


def bernoulli_fill(out: np.ndarray, prob: float, rng: np.random.Generator) -> None:
    """Fill the boolean array ``out`` with independent Bernoulli(``prob``) draws, one
    random byte a cell (:func:`bernoulli_where` with no selector).

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty(100_000, dtype=bool)
    >>> bernoulli_fill(out, 0.3, np.random.default_rng(0))
    >>> round(float(out.mean()), 2)
    0.3
    """
    bernoulli_where(out, None, prob, prob, rng)


def choose_uniform_true(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each row of a boolean (n, k) mask, a column chosen uniformly among its True
    entries, or uniformly among all k columns when the row has none.

    Examples
    --------
    >>> choose_uniform_true(np.array([[False, True, False]]), np.random.default_rng(0)).tolist()
    [1]
    """
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


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.4e14 (bases 2, 3, 5, 7, 11, 13, 17).

    Examples
    --------
    >>> is_prime(2**31 - 1), is_prime(2**31 + 1)
    (True, False)
    """
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17)
    if n in small:
        return True
    if any(n % b == 0 for b in small):
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in small:
        y = pow(a, d, n)
        if y in (1, n - 1):
            continue
        for _ in range(r - 1):
            y = y * y % n
            if y == n - 1:
                break
        else:
            return False
    return True


def check_prime(prime: Any, k: int, g: int) -> int:
    """The prime P of the universal hash family: a prime with max(k, g) <= P <= 2^31 − 1.

    Examples
    --------
    >>> check_prime(7, 5, 2)
    7
    >>> check_prime(9, 5, 2)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: prime must be a prime number, got 9
    """
    prime = check_int("prime", prime, minimum=2, maximum=MAX_PRIME)
    if not is_prime(prime):
        msg = f"prime must be a prime number, got {prime}"
        raise ParameterError(msg)
    if prime < max(k, g):
        msg = (
            f"prime must be >= max(k, g) = {max(k, g)} (distinct values must stay distinct "
            f"mod prime), got {prime}"
        )
        raise ParameterError(msg)
    return prime


def check_bits(bits: Any) -> np.ndarray:
    """Bit reports as an (n, k) boolean matrix (0/1 integers are converted).

    Examples
    --------
    >>> check_bits([[0, 1], [1, 1]]).tolist()
    [[False, True], [True, True]]
    >>> check_bits([0, 1])
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: bits must be an (n, k) boolean (or 0/1) matrix, got (2,) of int64
    """
    arr = as_array(bits, "bits")
    if arr.ndim != 2 or arr.dtype != np.bool_:
        zero_one = np.issubdtype(arr.dtype, np.integer) and np.all((arr == 0) | (arr == 1))
        if arr.ndim == 2 and zero_one:
            return arr.astype(bool)
        msg = f"bits must be an (n, k) boolean (or 0/1) matrix, got {arr.shape} of {arr.dtype}"
        raise ParameterError(msg)
    return arr


def method_options(what: str, options: dict[str, Any], **defaults: Any) -> dict[str, Any]:
    """The options of a protocol method: ``defaults`` updated by ``options``; others refused.

    Parameters
    ----------
    what : str
        The method's name, for the message.
    options : dict
        The keyword options the caller passed.
    **defaults
        Every option the method takes, with its default.

    Returns
    -------
    dict

    Raises
    ------
    InputTypeError
        An option the method does not take.

    Examples
    --------
    >>> method_options("sample", {"output": "membership"}, output="subsets")
    {'output': 'membership'}
    >>> method_options("sample", {"hash": "uniform"}, output="subsets")
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: sample() takes the option output; got hash
    """
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        word = "option" if len(defaults) == 1 else "options"
        takes = f"the {word} {', '.join(defaults)}" if defaults else "no options"
        msg = f"{what}() takes {takes}; got {', '.join(unknown)}"
        raise InputTypeError(msg)
    return {**defaults, **options}
