"""Refinement of channels (A ⊑ B iff B = A·W) and max-case refinement, with verified certificates.

>>> import qifldp as q
>>> r = q.refines(q.Channel([[0.9, 0.1], [0.1, 0.9]]), q.Channel([[0.6, 0.4], [0.4, 0.6]]))
>>> bool(r), r.exact
(True, False)
"""

from __future__ import annotations

from ._driver import HIGHS_MAX_VARIABLES
from ._prep import REDUCE_RTOL
from .core import max_case_refines, refines
from .exact import EXACT_MAX_OPS
from .result import (
    TOLERANCES,
    WITNESS_ENTRY_ATOL,
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    Counterexample,
    RefinementResult,
)

__all__ = [
    "refines",
    "max_case_refines",
    "RefinementResult",
    "Counterexample",
    "TOLERANCES",
    "WITNESS_ENTRY_ATOL",
    "WITNESS_ROW_SUM_ATOL",
    "WITNESS_RESIDUAL_ATOL",
    "REDUCE_RTOL",
    "EXACT_MAX_OPS",
    "HIGHS_MAX_VARIABLES",
]
