"""Rigorous float screens for the exact gaps: the outputs (max case) or actions (average
case) that can attain a maximum.

The exact g-vulnerabilities are maxima of sums of products; in doubles every such value
is known to within a bound, so only the candidates whose interval reaches the largest
lower end need rational arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "SCREEN_TINY",
    "SCREEN_MIN_PAIRS",
    "VIEWS_KEPT",
    "cached_view",
    "max_case_screen",
    "vuln_screen",
]

#: The unit roundoff of doubles.
_UNIT: float = 2.0**-53

#: A float product or sum below this may have lost its relative accuracy (the subnormal
#: range and its neighbourhood): :func:`max_case_screen` keeps such outputs unscreened.
SCREEN_TINY: float = 1e-280

#: :func:`max_case_screen` screens only problems with at least this many (action,
#: output) pairs (below it, evaluating every pair exactly costs less than the screen).
SCREEN_MIN_PAIRS: int = 64


#: The channels last seen by :func:`cached_view` (at most ``VIEWS_KEPT``): the gap of
#: every candidate gain of one decision is computed on the same two channels.
_VIEWS: dict[int, tuple[list[list[Fraction]], dict[str, Any]]] = {}
VIEWS_KEPT: int = 4


def cached_view(C: Any, kind: str, make: Callable[[Any], Any]) -> Any:
    """``make(C)``, kept for the last few channels under ``kind`` ("floats", "exact", ...).

    C is any object not changed after it is built: the rational rows of the exact gaps
    here, the channels of the atlas's negative routes (:mod:`qifldp.sweeps.atlas`).

    Keyed by identity; the entry holds C itself, so the key cannot be reused while it is
    kept (the channels are not changed after they are built): the max-case gaps of
    many candidate gains on the same channels convert them once.

    Examples
    --------
    >>> C = [[Fraction(1, 2), Fraction(1, 2)]]
    >>> cached_view(C, "floats", _floats) is cached_view(C, "floats", _floats)
    True
    """
    key = id(C)
    hit = _VIEWS.get(key)
    if hit is None or hit[0] is not C:
        if len(_VIEWS) >= VIEWS_KEPT:
            _VIEWS.pop(next(iter(_VIEWS)))
        hit = (C, {})
        _VIEWS[key] = hit
    views = hit[1]
    if kind not in views:
        views[kind] = make(C)
    return views[kind]


def _floats(C: list[list[Fraction]]) -> np.ndarray:
    """C in doubles, each entry correctly rounded."""
    return np.array([[float(v) for v in row] for row in C])


def _lost_outputs(
    C: list[list[Fraction]], Cf: np.ndarray, Hf: np.ndarray, floor: float
) -> np.ndarray:
    """The outputs where an entry rounded to 0 or a product (of an entry, a gain entry and
    ``floor``) may be in the subnormal range: their float values carry no bound."""
    lost = np.zeros(Cf.shape[1], dtype=bool)
    for x, row in enumerate(C):
        lost[[y for y in np.flatnonzero(Cf[x] == 0).tolist() if row[y] != 0]] = True
    hmin = float(np.abs(Hf[Hf != 0]).min()) if np.any(Hf != 0) else 1.0
    Cpos = np.where(Cf > 0, Cf, np.inf)
    return lost | (Cpos.min(axis=0) * min(hmin, floor, 1.0) < SCREEN_TINY)


def max_case_screen(
    Hpi: list[list[Fraction]], C: list[list[Fraction]], pi: list[Fraction]
) -> list[int] | None:
    """The outputs y that can attain max_y max_w Σ_x Hpi[w][x] C[x][y] / Σ_x π_x C[x][y].

    A float screen with a rigorous error bound: every posterior value v[w, y] is
    evaluated in doubles from the correctly rounded entries; each term carries at
    most 5 roundings and each sum of n terms n − 1 more, so |v_f − v| <= 2 γ S / d
    with γ = (n + 6) u, S = Σ_x |Hpi[w][x]| C[x][y] and d the column's mass (the
    bound used is twice that). An output whose v_f + err is below the largest
    v_f − err cannot attain the maximum and is dropped. Outputs where a float may
    have underflowed (an entry, product or mass below :data:`SCREEN_TINY`) are
    always kept. None: no screen (small problems, or non-finite floats).

    Examples
    --------
    >>> C = [[Fraction(1, 2)] + [Fraction(1, 126)] * 63]
    >>> len(max_case_screen([[Fraction(1)]], C, [Fraction(1)]))  # every posterior is 1: a tie
    64
    >>> C = [[Fraction(1, 2)] * 64, [Fraction(0)] * 63 + [Fraction(1)]]
    >>> max_case_screen([[Fraction(1), Fraction(0)]], C, [Fraction(1, 2)] * 2)[:3]
    [0, 1, 2]
    """
    n, cols = len(C), len(C[0])
    if cols * len(Hpi) < SCREEN_MIN_PAIRS:
        return None
    Cf = cached_view(C, "floats", _floats)
    Hf = np.array([[float(v) for v in row] for row in Hpi])
    pf = np.array([float(v) for v in pi])
    if not (np.all(np.isfinite(Cf)) and np.all(np.isfinite(Hf)) and np.all(np.isfinite(pf))):
        return None
    flat = [(h, float(h)) for row in Hpi for h in row] + [(p, float(p)) for p in pi]
    if any(h != 0 and not abs(hf) > SCREEN_TINY for h, hf in flat):
        return None  # a gain or prior entry in the subnormal range: no screen
    if not np.any(pf > 0):
        return None
    J = pf[:, None] * Cf
    den = J.sum(axis=0)
    num = Hf @ Cf
    S = np.abs(Hf) @ Cf
    if not (np.all(np.isfinite(num)) and np.all(np.isfinite(S))):
        return None
    lost = _lost_outputs(C, Cf, Hf, float(pf[pf > 0].min()))
    lost |= (den > 0) & (den < SCREEN_TINY)
    live = ~lost & (den > 0)
    if not np.any(live):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(live, num / np.where(live, den, 1.0), -np.inf)
        err = np.where(live, 4.0 * (n + 6) * _UNIT * S / np.where(live, den, 1.0), 0.0)
    low = float(np.max(v - err))
    keep = lost | (live & np.any(v + err >= low, axis=0))
    return np.flatnonzero(keep).tolist()


def vuln_screen(Hpi: list[list[Fraction]], C: list[list[Fraction]]) -> list[list[int]] | None:
    """For each output y, the actions w that can attain max_w Σ_x Hpi[w][x] C[x][y].

    The average-case twin of :func:`max_case_screen`: each value is evaluated in
    doubles from correctly rounded entries (3 roundings per term, n − 1 in the sum),
    so |v_f − v| <= γ S with γ = (n + 2) u and S = Σ_x |Hpi[w][x]| C[x][y]; twice
    that is used. An action whose v_f + err is below the column's largest v_f − err
    cannot attain the column's maximum. Columns where a float may have underflowed
    keep every action. None: no screen (small problems, or non-finite floats).

    Examples
    --------
    >>> C = [[Fraction(1, 64)] * 64, [Fraction(1, 64)] * 64]
    >>> H = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1, 2)]]
    >>> vuln_screen(H, C)[0]  # the first action is larger in every column
    [0]
    """
    n, cols = len(C), len(C[0])
    if cols * len(Hpi) < SCREEN_MIN_PAIRS:
        return None
    try:
        Cf = cached_view(C, "floats", _floats)
        flat = [(h, float(h)) for row in Hpi for h in row]
    except TypeError:  # entries that do not convert to floats
        return None
    if not np.all(np.isfinite(Cf)) or any(h != 0 and not abs(hf) > SCREEN_TINY for h, hf in flat):
        return None
    Hf = np.array([hf for _, hf in flat]).reshape(len(Hpi), n)
    v = Hf @ Cf
    S = np.abs(Hf) @ Cf
    if not (np.all(np.isfinite(v)) and np.all(np.isfinite(S))):
        return None
    lost = _lost_outputs(C, Cf, Hf, 1.0)
    err = 4.0 * (n + 2) * _UNIT * S
    low = np.max(v - err, axis=0)
    keep = (v + err >= low[None, :]) | lost[None, :]
    return [np.flatnonzero(keep[:, y]).tolist() for y in range(cols)]
