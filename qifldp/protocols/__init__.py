"""Protocols (layer L5): the frozen protocol objects, their parameters and the catalogue.

May import the layers below (kinds, kernels, refinement, measures, channel, errors);
never :mod:`qifldp.faces`, :mod:`qifldp.mechanisms`, the sweeps or the command line.

:data:`CATALOGUE` holds every protocol (:mod:`qifldp.protocols.catalogue`: name,
aliases, parameter schema, reference, family class) and ``protocol(name, *args,
**params)`` builds any of them, the composite ones included (PCKV, PrivKVM, RR, RR3,
bipartite RR3, SPL, SMP, RS+FD, RS+RFD). For a frequency oracle,
``protocol(name, k, eps, **params)`` returns a frozen :class:`Protocol` (one class
per family: :class:`GRR`, :class:`SS`, :class:`LH` for lh/blh/olh, :class:`UE` for
ue/sue/oue, :class:`THE`) whose parameters are validated and computed once; every
representation and formula of the protocol comes from it, like a frozen
scipy.stats distribution. The flat constructors ``qifldp.grr`` ... are aliases
(``qifldp.oue(k, eps)`` is ``protocol("oue", k, eps).channel()``). The protocols'
parameter formulas (p, q, omega, g, theta) live in :mod:`qifldp.protocols.params`.

>>> import qifldp as q
>>> P = q.protocol("oue", 4, 1.0)
>>> P.channel() == q.oue(4, 1.0), P.symmetric() == q.symmetric.oue(4, 1.0)
(True, True)
>>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
True
"""

from __future__ import annotations

from . import params
from .base import ClosedForm, Protocol
from .catalogue import CATALOGUE, Entry, Parameter, ProtocolName, lookup, protocol
from .grr import GRR, GRRClosedForm
from .lh import LH, LHClosedForm, lh_encoding, lh_perturbation
from .oracles import ORACLE_NAMES, ORACLE_PARAMETERS, oracle
from .ss import SS, SSClosedForm
from .the import THE, THEClosedForm, the_bit
from .ue import UE, UEClosedForm, oue_bit, sue_bit

__all__ = [
    "CATALOGUE",
    "Entry",
    "Parameter",
    "ProtocolName",
    "lookup",
    "PROTOCOL_NAMES",
    "protocol",
    "oracle",
    "Protocol",
    "ClosedForm",
    "GRR",
    "SS",
    "LH",
    "UE",
    "THE",
    "GRRClosedForm",
    "SSClosedForm",
    "LHClosedForm",
    "UEClosedForm",
    "THEClosedForm",
    "lh_encoding",
    "lh_perturbation",
    "sue_bit",
    "oue_bit",
    "the_bit",
    "params",
]

#: The frequency oracles' parameters besides k and eps (read by the sweeps).
_PARAMETERS = ORACLE_PARAMETERS

#: The frequency oracles' names (every catalogue name: ``tuple(CATALOGUE)``).
PROTOCOL_NAMES: tuple[str, ...] = ORACLE_NAMES


# registrations last: they import the engines, which read this package's classes
from . import register as register  # noqa: E402
