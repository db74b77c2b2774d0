"""Reading user input as float64 arrays with errors that name the argument."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InputTypeError

__all__ = ["float_array", "check_finite", "nonnegative_column_max"]


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
