"""The symmetric kind registers itself on qifldp's dispatched operations (imported once,
by :mod:`qifldp.symmetric`).

Layer L4: registers downward, on the singledispatch functions of :mod:`qifldp.dispatch`
(channel kind, the pair dispatcher's rank), the measures, operators, composition,
privacy profiles and trade-off curves (L2) and the refinement engines (L3: the orbit LP
and the two-dimensional cone test, and the orbit LP as the refinement driver's decider
of explicit one-hot pairs, the accounts of its certificates for
``RefinementResult.explain`` and the exact re-check of its gains for
``Counterexample.recheck``), for :class:`SymmetricChannel` and
:class:`SymmetricComposition`. The operations a symmetric channel cannot answer get
:func:`~qifldp.dispatch.unsupported`, whose error says what to do instead
(:data:`~qifldp.symmetric.channel.REMEDY`).
"""

from __future__ import annotations

from .. import (
    composition as _comp,
    measures as _m,
    operators as _ops,
    profiles as _profiles,
    tradeoff as _fdp,
)
from ..dispatch import (
    entries,
    n_inputs,
    register_all,
    register_kind,
    register_same_names,
    register_unsupported,
    to_explicit,
)
from ..refinement._orbits import register_orbit_decider
from ..refinement.core import max_case_refines, refines
from ..refinement.explain import explain_gain, explain_witness
from ..refinement.result import recheck_gain, recheck_matrix_gain
from . import composition, measures, profiles
from .channel import REMEDY, SymmetricChannel, expand_channel
from .composition import SymmetricComposition
from .explain import explain_bitwise_witness, explain_orbit_witness, explain_symmetric_gain
from .explicit_orbits import decide_class_tables
from .gain import SymmetricGain
from .lifting import BitwiseWitness
from .max_case import max_case_refines_symmetric, recheck_max_case_gain
from .orbit_exact import recheck_symmetric_gain
from .orbit_witness import OrbitWitness
from .refinement import refines_symmetric

__all__ = ["SYMMETRIC_RANK"]

#: The symmetric kind's rank for :func:`qifldp.dispatch.dispatch_on_pair`: above the
#: explicit (0) and symbolic (1) kinds, so a pair with a symmetric channel is decided
#: (or refused) by the symmetric implementation.
SYMMETRIC_RANK: int = 2


# -- the channel kind ------------------------------------------------------------------------
register_kind(
    SymmetricChannel,
    SYMMETRIC_RANK,
    {n_inputs: lambda C: C.k, entries: expand_channel, to_explicit: expand_channel},
    advice=REMEDY,
)
register_all(SymmetricComposition, {n_inputs: lambda C: C.k})

# -- measures and trade-off curves ------------------------------------------------------------
register_same_names(SymmetricChannel, measures, *_m.PRIMITIVES, _fdp.tradeoff_curve)
register_unsupported(SymmetricChannel, _m.hyper)
register_all(
    SymmetricComposition,
    {
        _m.bayes_capacity: composition.composition_bayes_capacity,
        _m.ldp_epsilon: composition.composition_ldp_epsilon,
        _fdp.tradeoff_curve: composition.composition_tradeoff_curve,
    },
)

# -- operators --------------------------------------------------------------------------------
register_unsupported(
    SymmetricChannel,
    _ops.cascade,
    _ops.parallel,
    _ops.one_hot,
    _ops.visible_choice,
    _ops.hidden_choice,
)

# -- composition and privacy profiles ---------------------------------------------------------
register_all(
    SymmetricChannel,
    {
        _comp.compose: composition.compose_symmetric,
        _comp.repeated: composition.repeated_symmetric,
        _comp.composition_epsilon: composition.composition_epsilon_symmetric,
    },
)
for _kind in (SymmetricChannel, SymmetricComposition):
    register_all(
        _kind,
        {
            _profiles.privacy_profile: profiles.privacy_profile_symmetric,
            _profiles.tradeoff_envelope: profiles.tradeoff_envelope_symmetric,
        },
    )

# -- refinement -------------------------------------------------------------------------------
register_all(
    SymmetricChannel,
    {refines: refines_symmetric, max_case_refines: max_case_refines_symmetric},
)
register_orbit_decider(decide_class_tables)
explain_witness.register(OrbitWitness)(explain_orbit_witness)
explain_witness.register(BitwiseWitness)(explain_bitwise_witness)
explain_gain.register(SymmetricGain)(explain_symmetric_gain)
recheck_gain.register(SymmetricGain)(recheck_symmetric_gain)
recheck_matrix_gain.register(SymmetricChannel)(recheck_max_case_gain)
