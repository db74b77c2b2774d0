"""Shared numerical check for the refinement-family lemmas (5-8): the LP on a grid of eps."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from _certificate import Proof

__all__ = ["lp_family_grid"]


def lp_family_grid(
    P: Proof, label: str, make: Callable[[float], object], grid: Sequence[float]
) -> bool:
    """Check ``q.refines(make(a), make(b)).holds == (a >= b)`` for all a, b in ``grid``."""
    import qifldp as q

    chans = {e: make(e) for e in grid}
    wrong = []
    for ea, eb in itertools.product(grid, grid):
        r = q.refines(chans[ea], chans[eb])
        if bool(r.holds) != (ea >= eb):
            wrong.append((ea, eb, bool(r.holds)))
        elif not r.holds and (r.counterexample is None or not r.counterexample.gap > 0):
            wrong.append((ea, eb, "no separating gain"))
    n = len(grid) ** 2
    return P.step(
        f"LP: q.refines({label}(a), {label}(b)).holds == (a >= b) on {n} pairs, a, b in "
        f"{list(grid)}",
        not wrong,
        f"wrong: {wrong[:4]}"
        if wrong
        else "every failure comes with a gain function of positive gap",
    )
