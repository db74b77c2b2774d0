"""The symbolic kind registers itself on qifldp's dispatched operations (imported once, by
:mod:`qifldp.symbolic`).

Layer L4: registers downward, on the singledispatch functions of :mod:`qifldp.dispatch`
(channel kind, alignment, the pair dispatcher's rank, scalar steps of the derived
measures), the measures, operators, composition and privacy profiles (L2) and the
refinement engines (L3: :func:`qifldp.refines` decided exactly in rationals, unsupported
on :func:`qifldp.max_case_refines`). The operations a symbolic channel cannot answer get
:func:`~qifldp.dispatch.unsupported`, whose error says what to do instead
(:data:`~qifldp.symbolic.channel.REMEDY`).
"""

from __future__ import annotations

from .. import composition, measures as _m, operators as _ops, profiles, tradeoff as fdp
from ..dispatch import (
    entries,
    exp_value,
    is_nonpositive,
    log2_value,
    n_inputs,
    permute_inputs,
    register_all,
    register_kind,
    register_same_names,
    register_unsupported,
    tidy_value,
)
from ..refinement.core import max_case_refines, refines
from . import measures, operators
from .channel import REMEDY, SymbolicChannel, permute_inputs as _permute_inputs
from .exact import refines_symbolic
from .lazy import SympyValue

__all__ = ["SYMBOLIC_RANK"]

#: The symbolic kind's rank for :func:`qifldp.dispatch.dispatch_on_pair`: above the
#: explicit kind (0), so an explicit channel with a symbolic one is decided exactly.
SYMBOLIC_RANK: int = 1


# -- the channel kind ------------------------------------------------------------------------
register_kind(
    SymbolicChannel,
    SYMBOLIC_RANK,
    {
        n_inputs: lambda C: C.n_inputs,
        entries: lambda C: C.matrix,
        permute_inputs: _permute_inputs,
    },
    advice=REMEDY,
)

# -- measures ---------------------------------------------------------------------------------
register_same_names(SymbolicChannel, measures, *_m.PRIMITIVES, fdp.tradeoff_point)
register_unsupported(SymbolicChannel, _m.hyper)

# the scalar steps of the derived measures on sympy values
register_all(
    SympyValue,
    {
        exp_value: measures._exp,
        log2_value: measures._log2,
        is_nonpositive: measures._nonpositive,
        tidy_value: measures.tidy,
    },
)

# -- operators --------------------------------------------------------------------------------
register_same_names(SymbolicChannel, operators, _ops.cascade, _ops.parallel, _ops.one_hot)
register_unsupported(SymbolicChannel, _ops.visible_choice, _ops.hidden_choice)

# -- composition and privacy profiles ---------------------------------------------------------
register_unsupported(
    SymbolicChannel,
    composition.compose,
    composition.repeated,
    composition.composition_epsilon,
    profiles.privacy_profile,
    profiles.tradeoff_envelope,
    profiles.gdp_mu,
)

# -- refinement -------------------------------------------------------------------------------
register_all(SymbolicChannel, {refines: refines_symbolic})
register_unsupported(SymbolicChannel, max_case_refines)
