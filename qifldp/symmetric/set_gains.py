"""Set-guessing gains: a search for a separating gain on lumped channels in O(k) per size.

The adversary guesses a set T of t values and wins when the secret is in it,
g(T, x) = [x ∈ T] (t tries; t = 1 is Bayes vulnerability). On a symmetric channel its
vulnerability under the uniform prior is a sum over the channel's size classes
(:func:`tries_vulnerabilities`), so the gap V_t[υ▷B] − V_t[υ▷A] of every t on a grid
costs O(|sizes| × grid). :func:`tries_gains` searches t on a coarse grid refined
around its best point and returns the gains of positive float gap, best first: hints
only; the decision (:func:`qifldp.symmetric.refines`) keeps a gain only after its gap
is re-evaluated on every class with its rigorous rounding bound.

A wrong guess can also cost: g(T, x) = 1 if x ∈ T, −c if not, with the option to
abstain (g(∅, x) = 0). Each class then contributes max(0, (1 + c) win − c mass), so the
gap is piecewise linear in c with one breakpoint per class, and its maximum over c is at
a breakpoint: :func:`penalty_gains` finds it in O(classes log classes) per t. This
family tells a channel that is often sure from one that is often almost sure (GRR ⋢ OUE
at k = 10^4, eps = 12, where the t-tries gains and the Bayes gain do not separate).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .channel import SymmetricChannel
from .gain import SymmetricGain, overlap_range

__all__ = [
    "tries_vulnerabilities",
    "tries_gains",
    "penalty_gains",
    "penalty_vulnerability",
    "SEARCH_MASS_FLOOR",
    "GRID_POINTS",
]

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
    t_all = np.asarray(ts, dtype=np.float64).reshape(-1)
    classes = _Classes(C, floor)
    out = np.empty(t_all.size)
    step = max(1, _BLOCK_FLOATS // max(classes.s.size, 1))
    for start in range(0, t_all.size, step):
        if check is not None:
            check("the set-guessing search")
        out[start : start + step] = classes.wins(t_all[start : start + step]).sum(axis=0)
    return out


class _Classes:
    """A channel's size classes as the set-guessing gains see them (uniform prior)."""

    def __init__(self, C: SymmetricChannel, floor: float) -> None:
        k = C.k
        s, Pi, Po = _mass_classes(C, floor)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.a = np.where(s > 0, Pi / np.maximum(s, 1.0), 0.0)[:, None]
            self.b = np.where(s < k, Po / np.maximum(k - s, 1.0), 0.0)[:, None]
        self.k, self.s, self.up, self.mass = k, s, (self.a > self.b)[:, 0], Pi + Po

    def wins(self, t: np.ndarray) -> np.ndarray:
        """Win probability of each class (rows) for each set size t (columns)."""
        t = np.asarray(t, dtype=np.float64)[None, :]
        lo, hi = overlap_range(self.k, self.s[:, None], t)
        j = np.where(self.up[:, None], hi, lo)
        return self.a * j + self.b * (t - j)


def penalty_vulnerability(C: SymmetricChannel, t: int, c: float) -> float:
    """V[υ▷C] of the gain "guess t values, pay c when wrong, or abstain" (float).

    g(T, x) = 1 if x ∈ T and −c if not, for |T| = t, and g(∅, x) = 0: each size class
    adds max(0, (1 + c) win − c mass), win its best probability of a hit
    (:func:`tries_vulnerabilities`' rule) and mass its probability.

    Examples
    --------
    >>> import math, qifldp.symmetric as sym
    >>> C = sym.grr(3, math.log(2))  # p = 1/2: one guess is right half of the time
    >>> penalty_vulnerability(C, 1, 0.5), penalty_vulnerability(C, 1, 1.0)
    (0.25, 0.0)
    """
    classes = _Classes(C, 0.0)
    win = classes.wins(np.array([t]))[:, 0]
    return float(np.maximum(0.0, (1.0 + c) * win - c * classes.mass).sum())


def _best_penalty(ca: _Classes, cb: _Classes, t: int) -> tuple[float, float]:
    """(largest gap V[υ▷B] − V[υ▷A] over penalties c > 0, its c) for set size t.

    A class with win w and mass m adds w + c (w − m) while c < r = w / (m − w), 0 after
    (all of w when m = w): the gap is continuous and piecewise linear in c, so its
    maximum over c > 0 is at a breakpoint r, found by suffix sums over the sorted r.
    """
    wb, wa = cb.wins(np.array([t]))[:, 0], ca.wins(np.array([t]))[:, 0]
    w = np.concatenate([wb, wa])
    sg = np.concatenate([np.ones(wb.size), -np.ones(wa.size)])
    d = np.minimum(w - np.concatenate([cb.mass, ca.mass]), 0.0)  # a win never exceeds its mass
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(d < 0, w / -d, np.inf)
    order = np.argsort(r, kind="stable")
    w, d, r, sg = w[order], d[order], r[order], sg[order]
    finite = np.isfinite(r) & (r > 0)
    if not finite.any():
        return -np.inf, 0.0
    # at c = r_i the classes with r > r_i still guess (those with r = r_i add 0)
    suf_w = np.concatenate([np.cumsum((sg * w)[::-1])[::-1], [0.0]])
    suf_d = np.concatenate([np.cumsum((sg * d)[::-1])[::-1], [0.0]])
    after = np.searchsorted(r, r, side="right")  # first index with r > r_i
    with np.errstate(invalid="ignore"):
        gaps = np.where(finite, suf_w[after] + r * suf_d[after], -np.inf)
    i = int(np.argmax(gaps))
    return float(gaps[i]), float(r[i])


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

    def gaps_of(ts: np.ndarray) -> list[tuple[float, float]]:
        vb = tries_vulnerabilities(B, ts, floor=SEARCH_MASS_FLOOR, check=check)
        va = tries_vulnerabilities(A, ts, floor=SEARCH_MASS_FLOOR, check=check)
        return [(g, 0.0) for g in (vb - va).tolist()]

    seen = _search_sizes(k, gaps_of, check)
    ranked = sorted(((g, t) for t, (g, _) in seen.items() if g > 0), reverse=True)[:3]
    return [
        (SymmetricGain(k, [t], [1.0], [0.0]), f"t-tries gain (guess a set of t = {t} values)")
        for _, t in ranked
    ]


def _search_sizes(
    k: int,
    gaps_of: Callable[[np.ndarray], list[tuple[float, float]]],
    check: Callable[[str], Any] | None,
) -> dict[int, tuple[float, float]]:
    """Set size t -> (gap, parameter) over a grid of t in 1..k−1 refined around the best.

    A grid of :data:`GRID_POINTS` sizes (even and geometric spacing, dense near both
    ends), then grids around the best size until neighbours are adjacent.
    """
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
    seen: dict[int, tuple[float, float]] = {}

    def evaluate(ts: np.ndarray) -> None:
        new = np.array([t for t in ts.tolist() if t not in seen], dtype=np.int64)
        if new.size:
            seen.update(zip(new.tolist(), gaps_of(new), strict=True))

    stage = "the set-guessing search"
    evaluate(grid)
    for _ in range(64):
        if check is not None:
            check(stage)  # each round shrinks the bracket by a factor ~GRID_POINTS / 2
        keys = np.array(sorted(seen))
        best = int(keys[np.argmax([seen[t][0] for t in keys.tolist()])])
        i = int(np.searchsorted(keys, best))
        left = int(keys[i - 1]) if i > 0 else 1
        right = int(keys[i + 1]) if i + 1 < keys.size else hi_t
        if right - left <= 2:
            break
        evaluate(np.unique(np.linspace(left, right, GRID_POINTS).round().astype(np.int64)))
    return seen


def penalty_gains(
    A: SymmetricChannel, B: SymmetricChannel, check: Callable[[str], Any] | None = None
) -> list[tuple[SymmetricGain, str]]:
    """ "Guess t values, pay c when wrong, or abstain" gains of positive float gap, best first.

    For each set size t of the search (as :func:`tries_gains`, at most 3 returned), the
    penalty c > 0 that maximises V[υ▷B] − V[υ▷A] (:func:`_best_penalty`, exact over c).
    The gain: actions ∅ (g = 0) and the sets of size t (g = 1 in, −c out). The gaps are
    hints: the caller re-evaluates each gain on every class with its rounding bound.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> A, B = sym.grr(1000, 12.0), sym.oue(1000, 12.0)  # t-tries gains do not separate
    >>> (G, what), *rest = penalty_gains(A, B)
    >>> t, c = int(G.sizes[1]), -float(G.g_out[1])
    >>> bool(penalty_vulnerability(B, t, c) > penalty_vulnerability(A, t, c))
    True
    """
    k = A.k
    if k < 3:
        return []
    ca, cb = _Classes(A, SEARCH_MASS_FLOOR), _Classes(B, SEARCH_MASS_FLOOR)

    def gaps_of(ts: np.ndarray) -> list[tuple[float, float]]:
        out = []
        for t in ts.tolist():
            if check is not None:
                check("the penalised set-guessing search")
            out.append(_best_penalty(ca, cb, int(t)))
        return out

    seen = _search_sizes(k, gaps_of, check)
    ranked = sorted(((g, t, c) for t, (g, c) in seen.items() if g > 0), reverse=True)[:3]
    return [
        (
            SymmetricGain(k, [0, t], [0.0, 1.0], [0.0, -c]),
            f"penalised t-tries gain (guess t = {t} values, pay {c:.4g} when wrong, or abstain)",
        )
        for _, t, c in ranked
    ]
