"""Symbolic twins of qifldp's channels and measures, in sympy, for derivations and proofs.

Layer L4, independent of :mod:`qifldp.symmetric`: may import refinement, measures,
operators, channel and errors; never the protocols or the faces. The constructors
(``grr`` ... ``the``, the bit channels) and the closed forms (``formulas``) are given
to this package from above by :mod:`qifldp.faces`.

A :class:`SymbolicChannel` is a labelled sympy matrix whose entries depend on
parameters (eps, theta, p, q). The mechanism constructors have the names,
arguments and labels of the numeric ones; eps and the other real parameters may
be sympy symbols (or symbol names), exact numbers, or floats (made exact:
``1.3 -> 13/10``). Importing this subpackage registers symbolic implementations
of the measures, so ``q.bayes_capacity`` and friends accept symbolic channels and
return sympy expressions.

>>> import sympy as sp
>>> import qifldp as q
>>> from qifldp import symbolic
>>> eps = sp.Symbol("eps")
>>> C = symbolic.grr(3, eps)
>>> C
SymbolicChannel(3 inputs x 3 outputs; symbols: eps)
Matrix([
[exp(eps)/(exp(eps) + 2),        1/(exp(eps) + 2),        1/(exp(eps) + 2)],
[       1/(exp(eps) + 2), exp(eps)/(exp(eps) + 2),        1/(exp(eps) + 2)],
[       1/(exp(eps) + 2),        1/(exp(eps) + 2), exp(eps)/(exp(eps) + 2)]])
>>> q.bayes_capacity(C)
3*exp(eps)/(exp(eps) + 2)
>>> q.ldp_epsilon(C)
eps
>>> round(q.bayes_capacity(C.evaluate(eps=1.3)), 6)
1.941668

Parameter domains. Each constructor records the range of its parameters (eps in
[0, oo), theta in (1/2, 1), p and q in [0, 1] with p > q); a symbol passed in
needs no assumptions. The measures decide which entry of a column is largest for
*every* value in these domains, with proofs (exact root counting, interval
arithmetic; see :mod:`qifldp.symbolic.measures`), and leave an unevaluated
``Max`` where no proof is found:

>>> theta = sp.Symbol("theta")
>>> q.bayes_capacity(symbolic.the_bit(eps, theta))
-exp(eps*(theta - 1)/2)/2 + 2 - exp(-eps*theta/2)/2
>>> x = sp.Symbol("x")
>>> q.bayes_capacity(symbolic.SymbolicChannel([[x, 1 - x], [sp.Rational(1, 2), sp.Rational(1, 2)]]))
Max(1/2, x) + Max(1/2, 1 - x)

Closed forms are in :mod:`qifldp.symbolic.formulas`:

>>> from qifldp.symbolic import formulas
>>> sp.simplify(q.bayes_capacity(symbolic.sue(3, eps)) - formulas.bayes_capacity_sue(3, eps))
0

Layer L4 (a kind of channel): imports the layers below it (the dispatch, the explicit
channel, the measures, operators, composition, profiles and trade-offs, the refinement
engines) and never :mod:`qifldp.symmetric`; it registers its implementations on their
dispatched operations from :mod:`qifldp.symbolic.register`. ``import qifldp`` does not
import it (nor sympy) until it is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dispatch import module_getattr
from . import measures, register as register  # the symbolic kind on qifldp's dispatched operations
from .channel import EVALUATE_DPS, MAX_SYMBOLIC_ENTRIES, SymbolicChannel
from .exact import refines, to_fractions
from .measures import *  # noqa: F403  (bayes_capacity, asr, ldp_epsilon, ...)
from .operators import cascade, one_hot, parallel
from .parameters import DOMAIN_NAMES, named_domain

__all__ = [
    "SymbolicChannel",
    "MAX_SYMBOLIC_ENTRIES",
    "EVALUATE_DPS",
    *DOMAIN_NAMES.values(),  # module __getattr__: built on first use
    "cascade",
    "parallel",
    "one_hot",
    *measures.__all__,
    "refines",
    "to_fractions",
]


#: The constructors and flat names this package receives from above (``qifldp.faces``).
_faces_getattr: Callable[[str], Any] = module_getattr(__name__)


def __getattr__(name: str) -> Any:
    """The parameter domains, built on first use (no sympy on import); any other name is
    the faces' (:func:`qifldp.dispatch.module_getattr`, replaced by :func:`qifldp.faces.attach`
    which asks this function for the names it does not give)."""
    if name in DOMAIN_NAMES.values():
        return named_domain(name)
    return _faces_getattr(name)
