"""The protocol objects' registrations on the dispatched operations of lower layers.

Imported by :mod:`qifldp.protocols`: registers :class:`Protocol` on
:func:`qifldp.refines` (decided on the protocols: the tight-ratio proof, then the
channels, rebuilt at high precision at the rounding boundary) with the highest rank of
the pair dispatcher, so that a protocol paired with a channel is refused (by
:func:`qifldp.max_case_refines` too).
"""

from __future__ import annotations

from ..dispatch import register_kind
from ..refinement.core import max_case_refines, refines
from .base import Protocol
from .refinement import max_case_refines_protocol_pair, refines_protocol_pair

__all__ = ["PROTOCOL_RANK"]

#: The rank of protocol objects for :func:`qifldp.dispatch.dispatch_on_pair`: above every
#: kind of channel.
PROTOCOL_RANK: int = 3


register_kind(
    Protocol,
    PROTOCOL_RANK,
    {refines: refines_protocol_pair, max_case_refines: max_case_refines_protocol_pair},
)
