"""f-DP trade-off functions of channels, and what they decide on two secrets.

Layer L2: imports only the layers below (errors, validation, arrays, dispatch; the
explicit channel). The trade-off curve of two rows of a channel
(:mod:`~qifldp.tradeoff.curves`), the exact refinement criterion on two secrets
(:mod:`~qifldp.tradeoff.criterion`), the meet and join of the refinement lattice on
two secrets (:mod:`~qifldp.tradeoff.lattice`) and the lifting of bitwise refinement
to one-hot channels (:mod:`~qifldp.tradeoff.lifting`). The other kinds register their
trade-off curves from above.

>>> import qifldp as q
>>> q.tradeoff_point(q.grr(2, 0.0))
(0.5, 0.5)
"""

from __future__ import annotations

from .criterion import FAST_PATH_MARGIN, refines_2x2, refines_binary, witness_2x2
from .curves import (
    DEFAULT_TIE_RTOL,
    TradeoffCurve,
    tradeoff_channel,
    tradeoff_curve,
    tradeoff_point,
    tradeoff_value,
)
from .lattice import join, join_curve, meet, meet_curve
from .lifting import LiftedRefinement, kron_power, refines_one_hot_bitwise

__all__ = [
    "DEFAULT_TIE_RTOL",
    "FAST_PATH_MARGIN",
    "TradeoffCurve",
    "tradeoff_point",
    "tradeoff_curve",
    "tradeoff_value",
    "tradeoff_channel",
    "refines_2x2",
    "refines_binary",
    "witness_2x2",
    "meet",
    "join",
    "meet_curve",
    "join_curve",
    "LiftedRefinement",
    "refines_one_hot_bitwise",
    "kron_power",
]
