"""Argument checks shared by every public function (one rule, one message)."""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Collection, Iterable
from typing import Any

import numpy as np

from .errors import InputTypeError, ParameterError

__all__ = [
    "parse_whole_number",
    "check_int",
    "check_eps",
    "check_probability",
    "check_open_interval",
    "check_bool",
    "check_optional_bool",
    "check_choice",
    "check_name",
    "check_sequence",
    "check_indices",
    "check_real",
    "as_real_array",
]


def parse_whole_number(text: str) -> int:
    """An integer written as text, also in scientific notation (``1e6``, ``2.5E3``).

    Raises ``ValueError`` saying why when the text is not a whole number, or when it is in
    scientific notation beyond 2^53, where the float read from it no longer carries the
    digits of the text.

    >>> parse_whole_number("1e6"), parse_whole_number("12")
    (1000000, 12)
    """
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a whole number, got {text!r}") from None
    if not value.is_integer():
        raise ValueError(f"expected a whole number, got {text!r}")
    if abs(value) > 2.0**53:
        raise ValueError(
            f"{text!r} is beyond 2^53, where a number in scientific notation is not exact; "
            "write its digits"
        )
    return int(value)


def check_int(
    name: str,
    value: Any,
    minimum: int | None = None,
    maximum: int | None = None,
    *,
    allow_huge: bool = False,
) -> int:
    """Return ``value`` as an ``int`` after checking type and range.

    Integers beyond the float range (:data:`MAX_FLOAT_INT`) are refused unless
    ``allow_huge`` (for a caller that evaluates the value exactly or in log space).

    >>> check_int("k", 4, minimum=2)
    4
    """
    if type(value) is int:  # the common case, checked without the numbers ABCs
        if (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
            if allow_huge or abs(value) <= MAX_FLOAT_INT:
                return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if (
            isinstance(value, numbers.Real)
            and float(value).is_integer()
            and not isinstance(value, bool)
        ):
            value = math.trunc(value)  # integral-valued: trunc is exact (also for Fraction)
        else:
            msg = f"{name} must be an integer, got {value!r} of type {type(value).__name__}"
            raise InputTypeError(msg)
    value = int(value)
    _check_range(name, value, minimum, maximum, _show(value))
    if abs(value) > MAX_FLOAT_INT and not allow_huge:
        msg = (
            f"{name} = {_show(value)} is beyond the float range (about 1.8e308); "
            "qifldp evaluates integer parameters in floating point too"
        )
        raise ParameterError(msg)
    return value


#: The largest integer parameter accepted anywhere (the largest finite float): every
#: integer parameter (k, n, omega, g, ...) also enters floating-point formulas.
MAX_FLOAT_INT: int = int(sys.float_info.max)


def _check_range(
    name: str, value: float, minimum: float | None, maximum: float | None, shown: str
) -> None:
    """Raise ParameterError unless minimum <= value <= maximum (a None bound is open)."""
    if minimum is not None and value < minimum:
        msg = f"{name} must be >= {minimum}, got {shown}"
        raise ParameterError(msg)
    if maximum is not None and value > maximum:
        msg = f"{name} must be <= {maximum}, got {shown}"
        raise ParameterError(msg)


def _show(value: int) -> str:
    """An integer for a message: exact when short, ~10^x beyond 30 digits (Python
    refuses to format integers of more than 4300 digits)."""
    if abs(value) < 10**30:
        return str(value)
    return f"{'-' if value < 0 else ''}~10^{math.log10(abs(value)):.1f}"


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = f"{name} must be a real number, got {value!r} of type {type(value).__name__}"
        raise InputTypeError(msg)
    try:
        value = float(value)
    except OverflowError:  # an exact integer beyond the float range
        msg = f"{name} = {_show(int(value))} is beyond the float range (about 1.8e308)"
        raise ParameterError(msg) from None
    if math.isnan(value):
        msg = f"{name} must not be NaN"
        raise ParameterError(msg)
    return value


def check_eps(value: Any, name: str = "eps", allow_inf: bool = False) -> float:
    """Check a privacy parameter: a real number ``>= 0`` (finite unless ``allow_inf``).

    >>> check_eps(1.5)
    1.5
    """
    value = _real(name, value)
    if value < 0:
        msg = f"{name} must be >= 0, got {value}"
        raise ParameterError(msg)
    if math.isinf(value) and not allow_inf:
        msg = f"{name} must be finite, got {value}"
        raise ParameterError(msg)
    return value


def check_probability(name: str, value: Any) -> float:
    """Check a probability in the closed interval [0, 1].

    >>> check_probability("p", 0.25)
    0.25
    """
    value = _real(name, value)
    if not 0.0 <= value <= 1.0:
        msg = f"{name} must lie in [0, 1], got {value}"
        raise ParameterError(msg)
    return value


def check_open_interval(name: str, value: Any, low: float, high: float) -> float:
    """Check ``low < value < high``.

    >>> check_open_interval("theta", 0.7, 0.5, 1.0)
    0.7
    """
    value = _real(name, value)
    if not low < value < high:
        msg = f"{name} must lie in the open interval ({low}, {high}), got {value}"
        raise ParameterError(msg)
    return value


def check_bool(name: str, value: Any) -> bool:
    """Check a flag: ``True``/``False`` (or a numpy bool).

    >>> check_bool("project", False)
    False
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    msg = f"{name} must be True or False, got {value!r} of type {type(value).__name__}"
    raise InputTypeError(msg)


def check_optional_bool(name: str, value: Any) -> bool | None:
    """Check a flag that may also be ``None`` (decide automatically).

    >>> check_optional_bool("exact", None) is None
    True
    """
    return None if value is None else check_bool(name, value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """Check a string option against its allowed values.

    >>> check_choice("how", "first", ("first", "random"))
    'first'
    """
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        msg = f"{name} must be one of {allowed}, got {value!r}"
        raise ParameterError(msg)
    return value


def check_name(name: str, value: Any, names: Collection[str], what: str) -> str:
    """Check a key naming one entry of a table (a protocol, a reference, a claim ...).

    Parameters
    ----------
    name : str
        The argument's name, for the messages.
    value : object
        The key received.
    names : collection of str
        The known keys (a tuple, or the keys of a mapping), listed by the message.
    what : str
        What a key names (``"protocol"``), for the messages.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    InputTypeError
        ``value`` is not a string.
    ParameterError
        ``value`` is not one of ``names``.

    Examples
    --------
    >>> check_name("name", "grr", ("grr", "oue"), "protocol")
    'grr'
    >>> check_name("name", "x", ("grr", "oue"), "protocol")
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: unknown protocol 'x'; name must be one of grr, oue
    """
    if not isinstance(value, str):
        msg = f"{name} must be a string naming a {what}, got {type(value).__name__}"
        raise InputTypeError(msg)
    if value not in names:
        msg = f"unknown {what} {value!r}; {name} must be one of {', '.join(names)}"
        raise ParameterError(msg)
    return value


def check_sequence(name: str, value: Any, of: type | tuple[type, ...], what: str) -> list:
    """Check a sequence (not a string) whose items are all instances of ``of``.

    Parameters
    ----------
    name : str
        The argument's name, for the messages.
    value : object
        Any iterable but a string (a list, a tuple, a generator ...).
    of : type or tuple of type
        What every item must be an instance of.
    what : str
        What the items are (``"strings"``), for the messages.

    Returns
    -------
    list
        The items of ``value``.

    Raises
    ------
    InputTypeError
        ``value`` is a string, bytes or not iterable, or holds an item of another type.

    Examples
    --------
    >>> check_sequence("na_values", ("", "?"), str, "strings")
    ['', '?']
    >>> check_sequence("na_values", "?", str, "strings")
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: na_values must be a sequence of strings, got str
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        msg = f"{name} must be a sequence of {what}, got {type(value).__name__}"
        raise InputTypeError(msg)
    items = list(value)
    bad = [v for v in items if not isinstance(v, of)]
    if bad:
        msg = f"{name} must hold {what} only, got {type(bad[0]).__name__}"
        raise InputTypeError(msg)
    return items


def check_indices(name: str, value: Any, n: int) -> list[int]:
    """Check a non-empty sequence of distinct integers in 0..n-1 (row indices, say).

    Parameters
    ----------
    name : str
        The argument's name, for the messages.
    value : object
        A sequence (list, tuple, range, 1-D array ...) of integers; not a string.
    n : int
        The number of indices: each item must lie in 0..n-1.

    Returns
    -------
    list of int
        The items, as Python ints, in the given order.

    Raises
    ------
    InputTypeError
        ``value`` is a string, a scalar or not iterable, or holds a non-integer.
    ParameterError
        ``value`` is empty, or holds an item outside 0..n-1 or an item twice.

    Examples
    --------
    >>> check_indices("inputs", (2, 0), 3)
    [2, 0]
    >>> check_indices("inputs", [1, 1], 3)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: inputs must hold distinct indices in 0..2, got 1 twice
    """
    if isinstance(value, np.ndarray) and value.ndim != 1:
        msg = f"{name} must be a 1-D sequence of integers in 0..{n - 1}, got shape {value.shape}"
        raise InputTypeError(msg)
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        msg = f"{name} must be a sequence of integers in 0..{n - 1}, got {type(value).__name__}"
        raise InputTypeError(msg)
    items = [check_int(f"{name}[{i}]", v, minimum=0, maximum=n - 1) for i, v in enumerate(value)]
    if not items:
        msg = f"{name} must hold at least one index in 0..{n - 1}, got none"
        raise ParameterError(msg)
    seen: set[int] = set()
    for v in items:
        if v in seen:
            msg = f"{name} must hold distinct indices in 0..{n - 1}, got {v} twice"
            raise ParameterError(msg)
        seen.add(v)
    return items


def check_real(
    name: str, value: Any, minimum: float | None = None, maximum: float | None = None
) -> float:
    """Check a finite real number in [minimum, maximum].

    >>> check_real("tie_rtol", 1e-9, minimum=0.0, maximum=1.0)
    1e-09
    """
    value = _real(name, value)
    if math.isinf(value):
        msg = f"{name} must be finite, got {value}"
        raise ParameterError(msg)
    _check_range(name, value, minimum, maximum, str(value))
    return value


def as_real_array(name: str, value: Any, ndim: int | tuple[int, ...] | None = None) -> np.ndarray:
    """``value`` as a finite float64 array, with a clear error for anything else.

    Rejects None, strings, complex numbers, ragged nested lists, NaN and inf, and
    (when ``ndim`` is given) a wrong number of dimensions.

    >>> as_real_array("W", [[1, 0], [0, 1]], ndim=2).shape
    (2, 2)
    """
    if value is None or isinstance(value, (str, bytes, dict, set)):
        msg = f"{name} must be an array of real numbers, got {type(value).__name__}"
        raise InputTypeError(msg)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:
        msg = f"{name} must be a rectangular array of real numbers: {exc}"
        raise ParameterError(msg) from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except OverflowError:
            msg = f"{name} holds an integer beyond the float range (about 1.8e308)"
            raise ParameterError(msg) from None
        except (ValueError, TypeError):
            msg = f"{name} must hold real numbers, got {arr.dtype} entries"
            raise InputTypeError(msg) from None
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        msg = f"{name} must hold real numbers, got dtype {arr.dtype}"
        raise InputTypeError(msg)
    arr = arr.astype(np.float64)
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if allowed is not None and arr.ndim not in allowed:
        msg = (
            f"{name} must have {' or '.join(map(str, allowed))} dimension(s), got shape {arr.shape}"
        )
        raise ParameterError(msg)
    if not np.all(np.isfinite(arr)):
        msg = f"{name} must be finite (no NaN or inf)"
        raise ParameterError(msg)
    return arr
