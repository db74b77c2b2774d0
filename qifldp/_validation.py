"""Argument checks shared by every public function (one rule, one message)."""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import InputTypeError, ParameterError

__all__ = [
    "check_int",
    "check_eps",
    "check_probability",
    "check_open_interval",
]


def check_int(name: str, value: Any, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` after checking type and range.

    >>> check_int("k", 4, minimum=2)
    4
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if (
            isinstance(value, numbers.Real)
            and float(value).is_integer()
            and not isinstance(value, bool)
        ):
            value = int(value)
        else:
            msg = f"{name} must be an integer, got {value!r} of type {type(value).__name__}"
            raise InputTypeError(msg)
    value = int(value)
    if minimum is not None and value < minimum:
        msg = f"{name} must be >= {minimum}, got {value}"
        raise ParameterError(msg)
    if maximum is not None and value > maximum:
        msg = f"{name} must be <= {maximum}, got {value}"
        raise ParameterError(msg)
    return value


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = f"{name} must be a real number, got {value!r} of type {type(value).__name__}"
        raise InputTypeError(msg)
    value = float(value)
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
