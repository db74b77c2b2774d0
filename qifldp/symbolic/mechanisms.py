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

from ..mechanisms import BIT_CHANNELS, CONSTRUCTORS
from ..protocols import grr as _grr, lh as _lh, ss as _ss, the as _the, ue as _ue
from .channel import EPS_DOMAIN, PROBABILITY_DOMAIN, THETA_DOMAIN, SymbolicParameters

# The names of CONSTRUCTORS and BIT_CHANNELS, by family module.
grr = _grr.symbolic_grr
subset_selection = _ss.symbolic_subset_selection
local_hashing, blh, olh = _lh.symbolic_local_hashing, _lh.symbolic_blh, _lh.symbolic_olh
unary_encoding, sue, oue = _ue.symbolic_unary_encoding, _ue.symbolic_sue, _ue.symbolic_oue
the, the_bit = _the.symbolic_the, _the.symbolic_the_bit
sue_bit, oue_bit = _ue.symbolic_sue_bit, _ue.symbolic_oue_bit

#: The former private name of :class:`~qifldp.symbolic.channel.SymbolicParameters`
#: (``qifldp.symbolic.formulas`` imports it from here).
_Params = SymbolicParameters

__all__ = [*CONSTRUCTORS, *BIT_CHANNELS, "EPS_DOMAIN", "THETA_DOMAIN", "PROBABILITY_DOMAIN"]
