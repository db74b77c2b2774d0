"""The symmetric kind's registrations on the dispatched operations of lower layers.

Imported by :mod:`qifldp.symmetric`: registers :class:`SymmetricChannel` on
:func:`qifldp.refines` and :func:`qifldp.max_case_refines` (the orbit LP and the
two-dimensional cone test) and its rank for the pair dispatcher, and its orbit LP as
the refinement driver's decider of explicit one-hot pairs, and the accounts of its
certificates (orbit witness, symmetric gain) for ``RefinementResult.explain``.
"""

from __future__ import annotations

from ..dispatch import kind_rank, register_all
from ..refinement._orbits import register_orbit_decider
from ..refinement.core import max_case_refines, refines
from ..refinement.explain import explain_gain, explain_witness
from .channel import SymmetricChannel
from .explain import explain_orbit_witness, explain_symmetric_gain
from .explicit_orbits import decide_class_tables
from .gain import SymmetricGain
from .max_case import max_case_refines_symmetric
from .orbit_witness import OrbitWitness
from .refinement import refines_symmetric

__all__ = ["SYMMETRIC_RANK"]

#: The symmetric kind's rank for :func:`qifldp.dispatch.dispatch_on_pair`: above the
#: explicit (0) and symbolic (1) kinds, so a pair with a symmetric channel is decided
#: (or refused) by the symmetric implementation.
SYMMETRIC_RANK: int = 2


def _rank(C: SymmetricChannel) -> int:
    return SYMMETRIC_RANK


register_all(
    SymmetricChannel,
    {
        kind_rank: _rank,
        refines: refines_symmetric,
        max_case_refines: max_case_refines_symmetric,
    },
)
register_orbit_decider(decide_class_tables)
explain_witness.register(OrbitWitness)(explain_orbit_witness)
explain_gain.register(SymmetricGain)(explain_symmetric_gain)
