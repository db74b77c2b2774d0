"""Refinement of channels (A ⊑ B iff B = A·W) and max-case refinement, with verified certificates.

Layer L3 (the refinement engines): imports only from L0-L2 (errors, validation,
dispatch, channel, priors, gains, alignment, measures, operators, ...), never from
the kinds, protocols or faces above; :mod:`qifldp.symmetric`, :mod:`qifldp.symbolic`
and :mod:`qifldp.protocols` register their implementations of :func:`refines` and
:func:`max_case_refines` (and the orbit decider of one-hot pairs) from above.

>>> import qifldp as q
>>> r = q.refines(q.Channel([[0.9, 0.1], [0.1, 0.9]]), q.Channel([[0.6, 0.4], [0.4, 0.6]]))
>>> bool(r), r.exact
(True, False)
"""

from __future__ import annotations

import importlib
from typing import Any

# The deciding engines import scipy.optimize (HiGHS); they load on first use so
# that ``import qifldp`` (which imports the f-DP and lattice modules of this
# package) stays light.
_LAZY: dict[str, str] = {
    "HIGHS_MAX_VARIABLES": "._driver",
    "REDUCE_RTOL": "._prep",
    "max_case_refines": ".core",
    "refines": ".core",
    "EXACT_MAX_OPS": ".exact",
    "TOLERANCES": ".result",
    "WITNESS_ENTRY_ATOL": ".result",
    "WITNESS_RESIDUAL_ATOL": ".result",
    "WITNESS_ROW_SUM_ATOL": ".result",
    "Counterexample": ".result",
    "RefinementResult": ".result",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
