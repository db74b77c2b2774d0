"""Sympy values of the symbolic kind: parameters and entries as expressions, their domains.

:func:`to_expr` reads a parameter or an entry (a sympy expression, a symbol name, an
exact number, or a float made exact: ``1.3 -> 13/10``); the private helpers read the
domains, labels and relations (``p > q``) a symbolic channel is built with.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .lazy import sympy as _lazy_sympy

if TYPE_CHECKING:
    import sympy as sp
else:
    sp = _lazy_sympy

from ..errors import InputTypeError, ParameterError

__all__ = ["to_expr"]


def to_expr(value: Any, name: str, *, symbols: bool = True, infinite: bool = False) -> sp.Expr:
    """Convert a user value to an exact sympy expression.

    Python ints, fractions and sympy numbers stay exact; a float becomes the
    rational number of its shortest decimal representation (``1.3 -> 13/10``),
    also inside sympy expressions; a string becomes a plain ``Symbol``.

    Parameters
    ----------
    value : number, str or sympy expression
    name : str
        The argument's name, for error messages.
    symbols : bool
        Accept a string as a symbol name (False: a string is a TypeError, as for
        matrix entries, where ``"a"`` is almost always a mistake).
    infinite : bool
        Accept ``±inf`` (as ``±oo``); otherwise a float infinity is an error.

    Raises
    ------
    InputTypeError
        Booleans, complex numbers, strings (unless ``symbols``) and objects
        that are not numbers or sympy expressions.
    ParameterError
        NaN (float or sympy), complex infinity, and float infinities unless
        ``infinite``.

    Examples
    --------
    >>> to_expr(1.3, "eps")
    13/10
    >>> to_expr(float("nan"), "eps")
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: eps must be a real number, got nan
    """
    if isinstance(value, (bool, np.bool_)):
        msg = f"{name} must be a number or a sympy expression, got {value!r}"
        raise InputTypeError(msg)
    if isinstance(value, str):
        if not symbols:
            msg = f"{name} must be a number or a sympy expression, got the string {value!r}"
            raise InputTypeError(msg)
        if not value.isidentifier():
            msg = f"{name} given as a string must be a symbol name, got {value!r}"
            raise InputTypeError(msg)
        return sp.Symbol(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, sp.Basic):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Real) and not isinstance(value, sp.Basic):
        f = float(value)
        if math.isnan(f):
            msg = f"{name} must be a real number, got nan"
            raise ParameterError(msg)
        if math.isinf(f):
            if not infinite:
                msg = f"{name} must be finite, got {f}"
                raise ParameterError(msg)
            return sp.oo if f > 0 else -sp.oo
        return sp.Rational(repr(f))
    if isinstance(value, sp.Basic):
        if not isinstance(value, sp.Expr):
            msg = f"{name} must be a sympy expression, got {type(value).__name__}"
            raise InputTypeError(msg)
        if value.has(sp.nan):
            msg = f"{name} must be a real number or expression, got {value} (NaN)"
            raise ParameterError(msg)
        if value.has(sp.zoo):
            msg = f"{name} must be a real number or expression, got {value} (complex infinity)"
            raise ParameterError(msg)
        floats = value.atoms(sp.Float)
        if floats:
            value = value.xreplace({f: sp.Rational(repr(float(f))) for f in floats})
        return value
    msg = f"{name} must be a number or a sympy expression, got {type(value).__name__}"
    raise InputTypeError(msg)


def _as_domain(name: str, dom: Any) -> sp.Set:
    if isinstance(dom, sp.Set):
        return dom
    try:
        lo, hi = dom
    except (TypeError, ValueError):
        msg = f"domain of {name} must be a sympy Interval or a (low, high) pair, got {dom!r}"
        raise InputTypeError(msg) from None
    lo = -sp.oo if lo is None else to_expr(lo, f"domain of {name}", infinite=True)
    hi = sp.oo if hi is None else to_expr(hi, f"domain of {name}", infinite=True)
    if not (lo.is_extended_real and hi.is_extended_real):
        msg = f"domain of {name} must have real ends, got ({lo}, {hi})"
        raise ParameterError(msg)
    return sp.Interval(lo, hi)


def _label_seq(name: str, labels: Any) -> Any:
    """Reject label arguments that are not sequences before they reach ``tuple()``."""
    if labels is None or isinstance(labels, (str, bytes)):
        return labels  # None: default labels; a string: rejected by _labels by name
    if not isinstance(labels, Iterable):
        msg = f"{name} must be a sequence of labels, got {type(labels).__name__}"
        raise InputTypeError(msg)
    return labels


def _relations(assume: Any) -> tuple:
    """The ``assume`` argument as a tuple of sympy relations."""
    if assume is None:
        return ()
    if isinstance(assume, sp.core.relational.Relational):
        assume = (assume,)
    if isinstance(assume, (str, bytes)) or not isinstance(assume, Iterable):
        msg = (
            "assume must be an iterable of sympy relations such as p > q, got "
            f"{type(assume).__name__}"
        )
        raise InputTypeError(msg)
    rels = []
    for r in assume:
        if not isinstance(r, sp.core.relational.Relational):
            msg = f"assume must hold sympy relations such as p > q, got {r!r}"
            raise InputTypeError(msg)
        rels.append(r)
    return tuple(rels)
