"""Reading user input as float64 arrays with errors that name the argument."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InputTypeError

__all__ = [
    "float_array",
    "check_finite",
    "nonnegative_column_max",
    "gain_products",
    "BLOCK_ENTRIES",
    "MIN_BLOCK_ROWS",
]


def float_array(
    value: Any, name: str, expected: str, error: type[Exception], overflow: str | None = None
) -> np.ndarray:
    """``value`` as a new float64 array, or a clear error naming ``name``.

    Parameters
    ----------
    value : array_like
    name : str
        The argument's name, for the messages.
    expected : str
        What the argument must be, e.g. ``"a 1-D array of real numbers"``.
    error : type
        The error class for an integer beyond the float range (a ValueError
        subclass of qifldp.errors: GainError, PriorError, ParameterError ...).
    overflow : str, optional
        The message for that case (default: "<name> holds an integer beyond the
        float range (about 1.8e308)").

    Raises
    ------
    InputTypeError
        Entries that are not real numbers (strings, complex numbers, ragged rows).

    Examples
    --------
    >>> float_array([1, 2], "prior", "a 1-D array of real numbers", ValueError)
    array([1., 2.])
    >>> float_array(["a"], "prior", "a 1-D array of real numbers", ValueError)
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: prior must be a 1-D array of real numbers: could not convert ...
    """
    try:
        return np.array(value, dtype=np.float64)
    except OverflowError:
        msg = overflow or f"{name} holds an integer beyond the float range (about 1.8e308)"
        raise error(msg) from None
    except (TypeError, ValueError) as exc:
        msg = f"{name} must be {expected}: {exc}"
        raise InputTypeError(msg) from None


def check_finite(arr: np.ndarray, error: type[Exception], message: str) -> np.ndarray:
    """``arr`` itself when every entry is finite, else ``error(message)`` (NaN or infinite entries).

    Examples
    --------
    >>> check_finite(np.array([1.0, 2.0]), ValueError, "x must be finite")
    array([1., 2.])
    >>> check_finite(np.array([np.inf]), ValueError, "x must be finite")
    Traceback (most recent call last):
    ...
    ValueError: x must be finite
    """
    if not np.all(np.isfinite(arr)):
        raise error(message)
    return arr


#: The bits of +inf read as an unsigned integer. A float64 whose bits are below it is
#: finite and >= +0: negative floats (-0.0 included) have the sign bit set and NaNs lie
#: above; on such floats the integer order of the bits is the order of the values.
_INF_BITS: int = 0x7FF0000000000000


def nonnegative_column_max(M: np.ndarray) -> np.ndarray | None:
    """The column maxima of the float64 matrix M when every entry is finite and >= +0, else None.

    One pass over M: the maxima of the columns' bit patterns (as unsigned integers) are
    the maxima of the values when no entry is negative, infinite or NaN, and one of
    them is at least the bits of +inf otherwise. So a validity check of the entries
    costs nothing beyond the reduction a measure computes anyway. -0.0 counts as
    negative here (None); the caller then checks the values the ordinary way.

    Examples
    --------
    >>> nonnegative_column_max(np.array([[0.25, 0.5], [0.75, 0.0]])).tolist()
    [0.75, 0.5]
    >>> nonnegative_column_max(np.array([[0.25, -0.5], [0.75, 0.0]])) is None
    True
    >>> nonnegative_column_max(np.array([[np.nan, 0.5]])) is None
    True
    """
    bits = M.view(np.uint64).max(axis=0)
    if bits.size == 0 or int(bits.max()) >= _INF_BITS:
        return None
    return bits.view(np.float64)


#: Entries of M per block of :func:`gain_products` (512 KiB of float64): a block stays in
#: the cache between its weighting by the prior and its product with the gain.
BLOCK_ENTRIES: int = 2**16
#: Fewest rows of M per block of :func:`gain_products`: a wider M (more than
#: BLOCK_ENTRIES / 16 = 4096 columns) is one product, as thin blocks make thin matrix
#: products (one row: 6-14x the time of the whole product, 16 x 65536 to 20 x 2^20).
MIN_BLOCK_ROWS: int = 16


def gain_products(G: np.ndarray, pi: np.ndarray, M: np.ndarray) -> np.ndarray:
    """G·(π ∘ M) = Σ_x G[:, x] π_x M[x, :], shape (actions, |Y|), by blocks of rows of M.

    Each block of rows is weighted by the prior and multiplied by its columns of G while
    it is in the cache, instead of writing the whole |X| x |Y| matrix π ∘ M and reading
    it back (1000 x 1000, 10 actions: ~0.8x the time of ``G @ (pi[:, None] * M)``). The
    products are the same; the sums over x are accumulated block by block (a different
    order of the same float additions). A matrix of one block, or one too wide for
    blocks of :data:`MIN_BLOCK_ROWS` rows, is that expression.

    Examples
    --------
    >>> M = np.array([[0.5, 0.5], [0.25, 0.75]])
    >>> gain_products(np.eye(2), np.array([0.5, 0.5]), M).tolist()
    [[0.25, 0.25], [0.125, 0.375]]
    """
    n, m = M.shape
    rows = max(1, BLOCK_ENTRIES // max(m, 1))
    if n <= rows or rows < MIN_BLOCK_ROWS:
        return G @ (pi[:, None] * M)
    weighted = np.empty((rows, m))
    out = G[:, :rows] @ np.multiply(pi[:rows, None], M[:rows], out=weighted)
    part = np.empty_like(out)
    for i in range(rows, n, rows):
        block = np.multiply(
            pi[i : i + rows, None], M[i : i + rows], out=weighted[: min(rows, n - i)]
        )
        out += np.matmul(G[:, i : i + rows], block, out=part)
    return out
