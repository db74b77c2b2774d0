"""Reading user input as float64 arrays with errors that name the argument."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InputTypeError

__all__ = ["float_array", "check_finite"]


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
