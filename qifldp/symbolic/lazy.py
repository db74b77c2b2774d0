"""sympy and mpmath for the symbolic kind, imported on first use rather than on import.

The protocols import :mod:`qifldp.symbolic` (their ``.symbolic()`` view and exact
closed forms) but most calls never ask for a symbolic answer; sympy costs ~0.3-0.6 s
to load. The modules of this package therefore bind ``sp`` (and ``mpmath``) to the
proxies below, which import the library on the first attribute read and forward every
read to it; type checkers see the real modules (``TYPE_CHECKING``).

>>> from qifldp.symbolic.lazy import sympy as sp
>>> sp.Rational(1, 3) + sp.Rational(1, 6)
1/2
"""

from __future__ import annotations

import sys
from abc import ABCMeta
from collections.abc import Callable
from typing import Any

__all__ = ["sympy", "mpmath", "SympyValue", "sympy_loaded"]


class _Lazy:
    """Forwards attribute reads to the module ``load()`` returns, loading it on the first."""

    __slots__ = ("_load",)

    def __init__(self, load: Callable[[], Any]) -> None:
        self._load = load

    def __getattr__(self, name: str) -> Any:
        return getattr(self._load(), name)

    def __repr__(self) -> str:
        return f"<{self._load.__name__.strip('_')}, imported on first use>"


def _sympy() -> Any:
    import sympy

    return sympy


def _mpmath() -> Any:
    import mpmath

    return mpmath


sympy: Any = _Lazy(_sympy)
mpmath: Any = _Lazy(_mpmath)


def sympy_loaded() -> bool:
    """Whether sympy has been imported in this process.

    >>> isinstance(sympy_loaded(), bool)
    True
    """
    return "sympy" in sys.modules


class SympyValue(metaclass=ABCMeta):  # noqa: B024  (a virtual class: no methods)
    """Every sympy object (``sympy.Basic``), as a class dispatch can register on
    without importing sympy: a class is a subclass once sympy is loaded and it
    derives from ``sympy.Basic`` (no sympy object exists before that).

    >>> isinstance(1.5, SympyValue)
    False
    >>> isinstance(sympy.Integer(2), SympyValue)
    True
    """

    @classmethod
    def __subclasshook__(cls, C: type) -> bool | Any:
        mod = sys.modules.get("sympy")
        if mod is not None and issubclass(C, mod.Basic):
            return True
        return NotImplemented
