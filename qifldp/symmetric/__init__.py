"""Symmetric (lumped) channels: the paper's protocols for domains of 10^6 values and more.

Layer L4, independent of :mod:`qifldp.symbolic`: may import refinement, measures,
operators, channel and errors; never the protocols or the faces. The constructors
(``grr``, ``ss``/``subset_selection``, ... ``the``) are given to this package from
above by :mod:`qifldp.faces` (they are ``protocol(name, ...).symmetric()``).

Every frequency oracle of the QIF paper (GRR, SS, LH, UE, THE) is invariant under
permutations of the secret values. Up to merging outputs with proportional
columns, its outputs are subsets S of {0..k-1} and the column of S only depends
on |S| and on whether the secret lies in S. A :class:`SymmetricChannel` stores
the channel by these subset-size classes in log space, so the measures and the
refinement test cost a polynomial in k instead of an exponential:

>>> import qifldp as q
>>> import qifldp.symmetric as sym
>>> C = sym.oue(10**6, 2.0)
>>> round(q.bayes_capacity(C), 4), q.ldp_epsilon(C)
(4.1945, 2.0)
>>> bool(sym.refines(sym.sue(10, 1.0), sym.the(10, 1.0, 0.8)))
True

Small channels expand to the explicit :class:`qifldp.Channel` of the numeric
constructor (same labels), which the tests use to cross-check everything:

>>> sym.grr(3, 1.0).expand().shape
(3, 3)

Importing this module registers the symmetric implementations on qifldp's
``bayes_capacity``, ``asr``, ``ldp_epsilon``, ``max_case_capacity``,
``bayes_vulnerability``, ``g_vulnerability``, ``min_entropy_leakage`` and
``tradeoff_curve``.

Layer L4 (a kind of channel): imports the layers below it (the dispatch, the explicit
channel, the measures, operators, composition, profiles and trade-offs, the refinement
engines) and never :mod:`qifldp.symbolic`; it registers its implementations on their
dispatched operations from :mod:`qifldp.symmetric.register`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dispatch import module_getattr
from . import (
    measures,
    register as register,  # the symmetric kind on qifldp's dispatched operations
)
from .channel import SymmetricChannel
from .gain import SymmetricGain
from .measures import *  # noqa: F403  (bayes_capacity, asr, ldp_epsilon, ...)
from .orbit_witness import OrbitWitness
from .refinement import refines

__all__ = [
    "SymmetricChannel",
    "SymmetricGain",
    *measures.__all__,
    "refines",
    "OrbitWitness",
]


#: The constructors and flat names this package receives from above (``qifldp.faces``).
__getattr__: Callable[[str], Any] = module_getattr(__name__)
