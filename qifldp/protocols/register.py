"""The protocol objects' registrations on the dispatched operations of lower layers.

Imported by :mod:`qifldp.protocols`: registers :class:`Protocol` on
:func:`qifldp.refines` (decided on the protocols: the tight-ratio proof, then the
channels, rebuilt at high precision at the rounding boundary) with the highest rank of
the pair dispatcher, so that a protocol paired with a channel is refused (by
:func:`qifldp.max_case_refines` too); and registers on every protocol object
(:class:`Frozen`, composites included) the :func:`~qifldp.dispatch.remedy` that a
measure given a protocol instead of a channel names (:data:`PROTOCOL_ADVICE`).
"""

from __future__ import annotations

from ..dispatch import register_all, register_kind, remedy
from ..refinement.core import max_case_refines, refines
from .base import Frozen, Protocol
from .refinement import max_case_refines_protocol_pair, refines_protocol_pair

__all__ = ["PROTOCOL_RANK", "PROTOCOL_ADVICE"]

#: The rank of protocol objects for :func:`qifldp.dispatch.dispatch_on_pair`: above every
#: kind of channel.
PROTOCOL_RANK: int = 3

#: What a measure or operation of channels says when given a protocol object.
PROTOCOL_ADVICE: str = (
    "a protocol object is not a channel: pass P.channel() (the explicit Channel, small "
    "sizes) or, for a frequency oracle at large k, P.symmetric()"
)


register_kind(
    Protocol,
    PROTOCOL_RANK,
    {refines: refines_protocol_pair, max_case_refines: max_case_refines_protocol_pair},
)
register_all(Frozen, {remedy: lambda P: PROTOCOL_ADVICE})
