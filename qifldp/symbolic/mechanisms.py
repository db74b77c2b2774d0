"""Symbolic twins of the LDP mechanism constructors (same names, arguments and labels).

Each name is the symbolic builder of its protocol's family module
(``qifldp.symbolic.grr`` is :func:`qifldp.protocols.grr.symbolic_grr`, what
``protocol("grr", k, eps).symbolic()`` calls), where the explicit, symmetric and
symbolic code of the protocol live together; the sympy expressions of the
parameters are in :mod:`qifldp.protocols.params`. The builders take sympy
symbols, so they are functions rather than (float-validated) protocol objects.
The parameter domains are those of :mod:`qifldp.symbolic.channel`.
"""

from __future__ import annotations

from ..protocols.grr import symbolic_grr as grr
from ..protocols.lh import symbolic_blh as blh
from ..protocols.lh import symbolic_local_hashing as local_hashing
from ..protocols.lh import symbolic_olh as olh
from ..protocols.ss import symbolic_subset_selection as subset_selection
from ..protocols.the import symbolic_the as the
from ..protocols.the import symbolic_the_bit as the_bit
from ..protocols.ue import symbolic_oue as oue
from ..protocols.ue import symbolic_oue_bit as oue_bit
from ..protocols.ue import symbolic_sue as sue
from ..protocols.ue import symbolic_sue_bit as sue_bit
from ..protocols.ue import symbolic_unary_encoding as unary_encoding
from .channel import EPS_DOMAIN, PROBABILITY_DOMAIN, THETA_DOMAIN, SymbolicParameters

#: The former private name of :class:`~qifldp.symbolic.channel.SymbolicParameters`
#: (``qifldp.symbolic.formulas`` imports it from here).
_Params = SymbolicParameters

__all__ = [
    "grr",
    "subset_selection",
    "local_hashing",
    "blh",
    "olh",
    "unary_encoding",
    "sue",
    "oue",
    "the",
    "sue_bit",
    "oue_bit",
    "the_bit",
    "EPS_DOMAIN",
    "THETA_DOMAIN",
    "PROBABILITY_DOMAIN",
]
