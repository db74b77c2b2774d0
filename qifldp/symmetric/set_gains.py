"""Set-guessing gains: a search for a separating gain on lumped channels in O(k) per size.

The adversary guesses a set T of t values and wins when the secret is in it,
g(T, x) = [x ∈ T] (t tries; t = 1 is Bayes vulnerability). On a symmetric channel its
vulnerability under the uniform prior is a sum over the channel's size classes
(:func:`tries_vulnerabilities`), so the gap V_t[υ▷B] − V_t[υ▷A] of every t on a grid
costs O(|sizes| × grid). :func:`tries_gains` searches t on a coarse grid refined
around its best point and returns the gains of positive float gap, best first: hints
only; the decision (:func:`qifldp.symmetric.refines`) keeps a gain only after its gap
is re-evaluated on every class with its rigorous rounding bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .channel import SymmetricChannel
from .gain import SymmetricGain, overlap_range

__all__ = ["tries_vulnerabilities", "tries_gains", "SEARCH_MASS_FLOOR", "GRID_POINTS"]

#: Size classes whose mass is below this fraction of the largest class mass are left out
#: of the search (their contribution to any gap is below it times k); the returned gain
#: is re-evaluated on every class before it is used.
SEARCH_MASS_FLOOR: float = 1e-18
#: Points of the grid of set sizes t per round of the search (rounds refine around the
#: best point until neighbouring sizes are adjacent).
GRID_POINTS: int = 48
#: Floats per block of the (classes x sizes) table of :func:`tries_vulnerabilities`.
_BLOCK_FLOATS = 2**22


def _mass_classes(C: SymmetricChannel, floor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Pi, Po = C.class_masses()
    m = Pi + Po
    keep = m >= floor * float(m.max()) if floor > 0 else m > 0
    return C.sizes[keep].astype(np.float64), Pi[keep], Po[keep]


def tries_vulnerabilities(
    C: SymmetricChannel,
    ts: np.ndarray,
    *,
    floor: float = 0.0,
    check: Callable[[str], Any] | None = None,
) -> np.ndarray:
    """V_t[υ▷C] of the t-tries gain g(T, x) = [x ∈ T], |T| = t, for each t in ``ts``.

    Parameters
    ----------
    C : SymmetricChannel
    ts : array_like of int
        Set sizes in 1..k.
    floor : float
        Leave out classes of mass below ``floor`` times the largest (0: none).
    check : callable, optional
        Called with a stage name before each block of the (classes x sizes) table
        (the caller's time budget: it raises when spent).

    Returns
    -------
    numpy.ndarray of float, shape (len(ts),)

    Notes
    -----
    An output S of size s is best answered by a T of size t overlapping S in j values,
    j an end of [max(0, s + t − k), min(s, t)]: the win probability summed over the
    outputs of size s is P_in(s) j / s + P_out(s) (t − j) / (k − s), linear in j, so j is
    the larger end when P_in(s) / s > P_out(s) / (k − s). Cost O(classes × len(ts)).

    Examples
    --------
    >>> import math, qifldp.symmetric as sym
    >>> C = sym.grr(3, math.log(2))  # p = 1/2, q = 1/4
    >>> tries_vulnerabilities(C, [1, 2, 3]).round(12).tolist()  # 1/2, then 3/4, then 1
    [0.5, 0.75, 1.0]
    """
    k = C.k
    t_all = np.asarray(ts, dtype=np.float64).reshape(-1)
    s, Pi, Po = _mass_classes(C, floor)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(s > 0, Pi / np.maximum(s, 1.0), 0.0)[:, None]
        b = np.where(s < k, Po / np.maximum(k - s, 1.0), 0.0)[:, None]
    up = (a > b)[:, 0]
    out = np.empty(t_all.size)
    step = max(1, _BLOCK_FLOATS // max(s.size, 1))
    for start in range(0, t_all.size, step):
        if check is not None:
            check("the set-guessing search")
        t = t_all[None, start : start + step]
        lo, hi = overlap_range(k, s[:, None], t)
        j = np.where(up[:, None], hi, lo)
        out[start : start + step] = (a * j + b * (t - j)).sum(axis=0)
    return out


def tries_gains(
    A: SymmetricChannel, B: SymmetricChannel, check: Callable[[str], Any] | None = None
) -> list[tuple[SymmetricGain, str]]:
    """t-tries gains with a positive float gap V_t[υ▷B] − V_t[υ▷A], best first (at most 3).

    A grid of :data:`GRID_POINTS` sizes over 1..k−1 (even and geometric spacing), then
    grids around the best size until neighbours are adjacent; the search reads only
    the classes above :data:`SEARCH_MASS_FLOOR`. The gaps are hints: the caller
    re-evaluates each gain on every class with its rounding bound. ``check(stage)`` is
    called after each grid (the caller's time budget: it raises when spent).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> (G, what), *rest = tries_gains(sym.oue(100, 2.0), sym.sue(100, 2.0))
    >>> int(G.sizes[0]), what
    (33, 't-tries gain (guess a set of t = 33 values)')
    """
    k = A.k
    if k < 3:
        return []
    hi_t = k - 1
    grid = np.unique(
        np.concatenate(
            [
                np.linspace(1, hi_t, GRID_POINTS // 2),
                np.geomspace(1, hi_t, GRID_POINTS // 2),
                hi_t + 1 - np.geomspace(1, hi_t, GRID_POINTS // 4),
            ]
        ).round()
    ).astype(np.int64)
    grid = grid[(grid >= 1) & (grid <= hi_t)]
    seen: dict[int, float] = {}

    def evaluate(ts: np.ndarray) -> None:
        new = np.array([t for t in ts.tolist() if t not in seen], dtype=np.int64)
        if new.size == 0:
            return
        vb = tries_vulnerabilities(B, new, floor=SEARCH_MASS_FLOOR, check=check)
        gaps = vb - tries_vulnerabilities(A, new, floor=SEARCH_MASS_FLOOR, check=check)
        seen.update(zip(new.tolist(), gaps.tolist(), strict=True))

    stage = "the set-guessing search"
    evaluate(grid)
    for _ in range(64):
        if check is not None:
            check(stage)  # each round shrinks the bracket by a factor ~GRID_POINTS / 2
        keys = np.array(sorted(seen))
        best = int(keys[np.argmax([seen[t] for t in keys.tolist()])])
        i = int(np.searchsorted(keys, best))
        left = int(keys[i - 1]) if i > 0 else 1
        right = int(keys[i + 1]) if i + 1 < keys.size else hi_t
        if right - left <= 2:
            break
        evaluate(np.unique(np.linspace(left, right, GRID_POINTS).round().astype(np.int64)))
    ranked = sorted(((g, t) for t, g in seen.items() if g > 0), reverse=True)[:3]
    return [
        (SymmetricGain(k, [t], [1.0], [0.0]), f"t-tries gain (guess a set of t = {t} values)")
        for _, t in ranked
    ]
