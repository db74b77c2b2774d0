"""Reading a channel for the trade-off routines: a Channel, an exact matrix, or a symbolic one.

Floats stay floats, exact entries (int, Fraction, exact nested lists) become
:class:`fractions.Fraction` rows, and a channel with sympy entries is kept symbolic;
the f-DP routines of :mod:`qifldp.tradeoff` decide from this reading which
arithmetic to use.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..channel import Channel, as_channel
from ..dispatch import entries as _entries_of
from ..errors import (
    ChannelError,
    InputTypeError,
    ParameterError,
    UnsupportedKindError,
)

__all__: list[str] = []


class _Parsed(NamedTuple):
    """A channel read by :func:`_parse`: floats, exact Fractions or sympy entries."""

    kind: str  # "float", "exact" or "symbolic"
    shape: tuple[int, int]
    floats: np.ndarray | None  # kind "float"
    rows: list[list[Fraction]] | None  # kind "exact"
    sym: Any  # kind "symbolic": a sympy Matrix with free symbols


def _is_sympy(obj: Any) -> bool:
    # a sympy number or matrix, recognised by what it has (sympy is not imported here)
    return hasattr(type(obj), "free_symbols") and hasattr(type(obj), "subs")


def _exact_scalar(v: Any) -> Fraction | None:
    """``v`` as a Fraction when it is an exact rational (int, Fraction, sympy Rational)."""
    if isinstance(v, (Fraction, numbers.Integral)):
        return Fraction(v)
    if _is_sympy(v) and getattr(v, "is_Rational", False):
        return Fraction(int(v.p), int(v.q))
    return None


def _parse(C: Any, name: str) -> _Parsed:
    """Read ``C`` without losing exactness.

    Exact input (ints, Fractions, sympy Rationals; a sympy Matrix or a symbolic
    channel with rational entries) gives kind "exact" and must have rows summing
    exactly to 1; a sympy matrix with free symbols gives kind "symbolic";
    everything else goes through :func:`as_channel` (kind "float").
    """
    C = _entries_of(C)  # a symmetric channel expanded, a symbolic one as its sympy matrix
    if isinstance(C, Channel):
        return _Parsed("float", C.shape, C.matrix, None, None)
    if _is_sympy(C) and hasattr(C, "tolist"):
        entries = C.tolist()
        if any(getattr(v, "free_symbols", None) for row in entries for v in row):
            return _Parsed("symbolic", (len(entries), len(entries[0])), None, None, C)
        exact = [[_exact_scalar(v) for v in row] for row in entries]
        if all(v is not None for row in exact for v in row):
            rows = _check_exact(exact, name)  # type: ignore[arg-type]  # no None: checked above
            return _Parsed("exact", (len(rows), len(rows[0])), None, rows, None)
        try:
            floats = [[float(v) for v in row] for row in entries]
        except TypeError as exc:
            msg = f"{name} has sympy entries that are not real numbers: {exc}"
            raise InputTypeError(msg) from None
        ch = as_channel(floats, name)
        return _Parsed("float", ch.shape, ch.matrix, None, None)
    if isinstance(C, np.ndarray) and C.dtype != object:
        ch = as_channel(C, name)
        return _Parsed("float", ch.shape, ch.matrix, None, None)
    if isinstance(C, (list, tuple, np.ndarray)):
        try:
            entries = [list(row) for row in C]
        except TypeError:
            entries = None
        if entries:
            exact = [[_exact_scalar(v) for v in row] for row in entries]
            if all(v is not None for row in exact for v in row):
                rows = _check_exact(exact, name)  # type: ignore[arg-type]  # no None: checked
                return _Parsed("exact", (len(rows), len(rows[0])), None, rows, None)
    ch = as_channel(C, name)
    return _Parsed("float", ch.shape, ch.matrix, None, None)


def _check_exact(rows: list[list[Fraction]], name: str) -> list[list[Fraction]]:
    n_cols = len(rows[0]) if rows else 0
    if not rows or n_cols == 0:
        msg = f"{name} must have at least one row and one column"
        raise ChannelError(msg)
    for i, row in enumerate(rows):
        if len(row) != n_cols:
            msg = (
                f"{name} must be a rectangular matrix: row {i} has {len(row)} entries, "
                f"row 0 has {n_cols}"
            )
            raise ChannelError(msg)
        for j, v in enumerate(row):
            if v < 0:
                msg = f"{name} entries must be non-negative, entry [{i}, {j}] is {v}"
                raise ChannelError(msg)
        s = sum(row)
        if s != 1:
            msg = f"{name} rows must sum exactly to 1 (exact input), row {i} sums to {s}"
            raise ChannelError(msg)
    return rows


def _exact_rows(parsed: _Parsed, name: str) -> list[list[Fraction]]:
    """Exact rows: exact input as is, floats converted exactly and normalised exactly."""
    if parsed.kind == "exact":
        return parsed.rows  # type: ignore[return-value]
    if parsed.kind == "symbolic":
        msg = (
            f"{name} has free symbols; substitute numbers first (C.evaluate(eps=...) for "
            "floats, C.subs(...) for exact values) to compare likelihood ratios"
        )
        raise UnsupportedKindError(msg)
    rows = []
    for row in parsed.floats:  # type: ignore[union-attr]
        fr = [Fraction(float(v)) for v in row]
        s = sum(fr)
        rows.append([v / s for v in fr])
    return rows


def _resolve_exact(parsed: _Parsed, exact: bool | None) -> bool:
    if exact is None:
        return parsed.kind == "exact"
    if not isinstance(exact, (bool, np.bool_)):
        msg = f"exact must be True, False or None, got {exact!r}"
        raise InputTypeError(msg)
    return bool(exact)


def _check_2x2(parsed: _Parsed, name: str) -> None:
    if parsed.shape != (2, 2):
        msg = f"{name} must be a 2x2 channel (two secrets, two outputs), got shape {parsed.shape}"
        raise ChannelError(msg)


def _check_two_rows(parsed: _Parsed, name: str) -> None:
    if parsed.shape[0] != 2:
        msg = f"{name} must have exactly two inputs (secrets), got {parsed.shape[0]}"
        raise ChannelError(msg)


def _row_index(name: str, x: Any, n: int) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        msg = f"{name} must be a row index (int), got {x!r} of type {type(x).__name__}"
        raise InputTypeError(msg)
    x = int(x)
    if not 0 <= x < n:
        msg = f"{name} must be a row index in 0..{n - 1}, got {x}"
        raise ParameterError(msg)
    return x
