"""The symbolic kind's registrations on the dispatched operations of lower layers.

Imported by :mod:`qifldp.symbolic`: registers :class:`SymbolicChannel` on
:func:`qifldp.refines` (decided exactly in rationals), as unsupported on
:func:`qifldp.max_case_refines`, and its rank for the pair dispatcher.
"""

from __future__ import annotations

from ..dispatch import kind_rank, register_all, register_unsupported
from ..refinement.core import max_case_refines, refines
from .channel import SymbolicChannel
from .exact import refines_symbolic

__all__ = ["SYMBOLIC_RANK"]

#: The symbolic kind's rank for :func:`qifldp.dispatch.dispatch_on_pair`: above the
#: explicit kind (0), so an explicit channel with a symbolic one is decided exactly.
SYMBOLIC_RANK: int = 1


def _rank(C: SymbolicChannel) -> int:
    return SYMBOLIC_RANK


register_all(SymbolicChannel, {kind_rank: _rank, refines: refines_symbolic})
register_unsupported(SymbolicChannel, max_case_refines)
