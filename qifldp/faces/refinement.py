"""``qifldp.refines`` and ``qifldp.max_case_refines``: the refinement orders, with the
symmetric kind's orbit decider for one-hot pairs.

Layer L7. The explicit driver (:mod:`qifldp.refinement`, L3) decides one-hot pairs by the
orbit decider that :mod:`qifldp.symmetric` registers from above; this module gives the
driver a loader that imports the symmetric kind the first time a one-hot pair needs it,
so that ``qifldp.refines`` decides a one-hot pair by orbits whatever was imported before
(an explicit ``qifldp.one_hot`` channel needs no protocol nor symmetric import of its
own), while the other explicit pairs never load the symmetric kind nor scipy.special
(about a second in a fresh interpreter).

>>> import qifldp as q
>>> bit = q.Channel([[0.7, 0.3], [0.2, 0.8]])
>>> post = q.Channel([[0.9, 0.1], [0.1, 0.9]])
>>> q.refines(q.one_hot(bit, 4), q.one_hot(q.cascade(bit, post), 4)).method
'orbits'
"""

from __future__ import annotations

import importlib

from ..refinement._orbits import register_orbit_decider_loader
from ..refinement.core import max_case_refines, refines

__all__ = ["refines", "max_case_refines"]


def _load_symmetric_kind() -> None:
    """Import :mod:`qifldp.symmetric`, whose register module registers the orbit decider."""
    importlib.import_module("qifldp.symmetric")


register_orbit_decider_loader(_load_symmetric_kind)
