"""The symmetric flat constructors: ``qifldp.symmetric.oue(k, eps)`` is
``qifldp.protocol("oue", k, eps).symmetric()``.

Generated from the catalogue by :func:`qifldp.faces.generate.constructor`, with the
names, arguments, checks and errors of the explicit constructors of
:mod:`qifldp.mechanisms` and no size limit from enumeration; attached to
:mod:`qifldp.symmetric` by :mod:`qifldp.faces.attach`. The channel code lives with its
protocol (``GRR.symmetric`` in :mod:`qifldp.protocols.grr` ...).

>>> import qifldp.symmetric as sym
>>> sym.ss(10, 1.0) == sym.subset_selection(10, 1.0)
True
"""

from __future__ import annotations

from ..protocols.tight_ratio import (  # noqa: F401 - re-exported through __all__
    BOUNDARY_MAX_K,
    sue_oue_boundary,
    tight_ratio_refines,
)
from .generate import FLAT_NAMES, constructor, doctests

#: The tight-ratio proof works on protocol parameters (layer L5); its long-standing
#: spellings ``qifldp.symmetric.sue_oue_boundary`` ... are kept here.
PROTOCOL_LEVEL = ("sue_oue_boundary", "tight_ratio_refines", "BOUNDARY_MAX_K")

__all__ = [*FLAT_NAMES, *PROTOCOL_LEVEL]

grr = constructor("symmetric", "grr")
ss = constructor("symmetric", "ss")
subset_selection = constructor("symmetric", "subset_selection")
lh = constructor("symmetric", "lh")
local_hashing = constructor("symmetric", "local_hashing")
blh = constructor("symmetric", "blh")
olh = constructor("symmetric", "olh")
ue = constructor("symmetric", "ue")
unary_encoding = constructor("symmetric", "unary_encoding")
sue = constructor("symmetric", "sue")
oue = constructor("symmetric", "oue")
the = constructor("symmetric", "the")

__test__ = doctests(globals(), tuple(FLAT_NAMES))
