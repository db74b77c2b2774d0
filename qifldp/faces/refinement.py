"""``qifldp.refines`` and ``qifldp.max_case_refines``: the refinement orders with every kind
registered.

Layer L7. The explicit driver (:mod:`qifldp.refinement`, L3) decides one-hot pairs by the
orbit decider that :mod:`qifldp.symmetric` registers from above; the package's names are
read from here, which imports the symmetric kind's registrations, so that
``qifldp.refines`` decides a one-hot pair by orbits whatever was imported before (an
explicit ``qifldp.one_hot`` channel needs no protocol nor symmetric import of its own).

>>> import qifldp as q
>>> bit = q.Channel([[0.7, 0.3], [0.2, 0.8]])
>>> post = q.Channel([[0.9, 0.1], [0.1, 0.9]])
>>> q.refines(q.one_hot(bit, 4), q.one_hot(q.cascade(bit, post), 4)).method
'orbits'
"""

from __future__ import annotations

from ..refinement.core import max_case_refines, refines
from ..symmetric import register as symmetric_register

__all__ = ["refines", "max_case_refines", "symmetric_register"]
