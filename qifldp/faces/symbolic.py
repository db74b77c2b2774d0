"""The symbolic flat constructors and closed forms, attached to :mod:`qifldp.symbolic`.

``qifldp.symbolic.grr(k, eps)`` is the symbolic builder of its protocol's family module
(:func:`qifldp.protocols.grr.symbolic_grr`, what ``protocol("grr", k, eps).symbolic()``
calls), generated with the catalogue's names and signature by
:func:`qifldp.faces.generate.constructor`; eps, p, q and theta may be sympy symbols or
exact numbers. The bit channels (``sue_bit``, ``oue_bit``, ``the_bit``) and the sympy
closed forms (``qifldp.symbolic.formulas``, :mod:`qifldp.faces.symbolic_formulas`) come
from the same family modules.

>>> import sympy as sp, qifldp.symbolic as S
>>> S.ss(3, sp.Symbol("eps", positive=True), omega=1).matrix.shape
(3, 3)
"""

from __future__ import annotations

from ..protocols.the import symbolic_the_bit as the_bit
from ..protocols.ue import symbolic_oue_bit as oue_bit, symbolic_sue_bit as sue_bit
from . import symbolic_formulas as formulas
from .generate import FLAT_NAMES, constructor

__all__ = [*FLAT_NAMES, "sue_bit", "oue_bit", "the_bit", "formulas"]

grr = constructor("symbolic", "grr")
ss = constructor("symbolic", "ss")
subset_selection = constructor("symbolic", "subset_selection")
lh = constructor("symbolic", "lh")
local_hashing = constructor("symbolic", "local_hashing")
blh = constructor("symbolic", "blh")
olh = constructor("symbolic", "olh")
ue = constructor("symbolic", "ue")
unary_encoding = constructor("symbolic", "unary_encoding")
sue = constructor("symbolic", "sue")
oue = constructor("symbolic", "oue")
the = constructor("symbolic", "the")
