"""Argument checks shared by the sweeps (integers, seconds, lists of numbers)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError


def _type_name(value: Any) -> str:
    return type(value).__name__


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
