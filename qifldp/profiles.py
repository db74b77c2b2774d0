"""Privacy profiles delta(eps) of a channel's worst pair, trade-off envelopes and Gaussian DP.

The three views of the same guarantee on a channel C, over all ordered pairs of
inputs (or the neighbouring ones):

- the privacy profile delta(eps) = max_{x, x'} Σ_y max(0, C[x, y] - e^eps C[x', y])
  (the hockey-stick divergence; C is (eps, delta(eps))-LDP and no smaller delta works);
- the trade-off envelope T(alpha) = min_{x, x'} T(C[x], C[x'])(alpha) (f-DP);
- the Gaussian-DP parameter mu: the smallest mu with T >= G_mu.

They are converted into one another exactly (up to rounding): ``privacy_profile(C,
e) == profile_from_tradeoff(tradeoff_envelope(C), e)``.

>>> import math, qifldp as q
>>> C = q.grr(4, math.log(3))
>>> q.privacy_profile(C, [0.0, math.log(2), math.log(3)]).round(6).tolist()
[0.333333, 0.166667, 0.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import singledispatch
from typing import Any

import numpy as np
from scipy.special import ndtri

from .channel import as_channel
from .errors import InputTypeError, ParameterError, SizeError
from .measures import _check_neighbors
from .tradeoff import TradeoffCurve, tradeoff_curve
from .validation import check_bool

__all__ = [
    "privacy_profile",
    "tradeoff_envelope",
    "profile_from_tradeoff",
    "tradeoff_from_profile",
    "gdp_mu",
    "VERTEX_MERGE_ATOL",
    "MAX_ENVELOPE_ENTRIES",
]

#: Work arrays of :func:`privacy_profile` are processed in chunks of about this many entries.
_CHUNK_ENTRIES = 2_000_000


def _check_epss(epss: Any) -> tuple[np.ndarray, bool]:
    return _real_values("epss", epss)


def _real_values(name: str, value: Any) -> tuple[np.ndarray, bool]:
    """``value`` as a float64 array of reals (inf allowed, NaN and negatives refused)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"{name} must be a real number or an array of real numbers, got {value!r}"
        raise InputTypeError(msg) from None
    except OverflowError:
        msg = f"{name} holds an integer beyond the float range (about 1.8e308)"
        raise ParameterError(msg) from None
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        msg = f"{name} must be >= 0 (inf allowed), got {value!r}"
        raise ParameterError(msg)
    return arr, arr.ndim == 0


def _pair_mask(k: int, neighbors: Any) -> np.ndarray:
    if neighbors is None:
        return ~np.eye(k, dtype=bool)
    pairs = _check_neighbors(neighbors, k)
    mask = np.zeros((k, k), dtype=bool)
    mask[pairs[:, 0], pairs[:, 1]] = True
    mask[pairs[:, 1], pairs[:, 0]] = True
    np.fill_diagonal(mask, False)
    return mask


def _hockey(P: np.ndarray, L: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Σ_y P_y max(0, 1 - e^{eps - L_y}) for each eps; L = ln(P/Q), +inf where Q = 0.

    P has shape (..., m), L broadcastable to it; returns shape (len(eps), ...).
    Terms with L = +inf count P_y at every eps (inf included); no e^eps is formed.
    """
    e = eps.reshape((-1,) + (1,) * L.ndim)
    with np.errstate(invalid="ignore", over="ignore"):
        t = -np.expm1(e - L)
    t = np.where(L == np.inf, 1.0, t)
    on = (L > e) | (L == np.inf)
    return np.where(on, P * t, 0.0).sum(axis=-1)


@singledispatch
def privacy_profile(C: Any, epss: Any, neighbors: Any = None) -> Any:
    """delta(eps) of the channel's worst pair: the tight (eps, delta)-LDP curve.

    Parameters
    ----------
    C : Channel, array_like, SymmetricChannel or SymmetricComposition
    epss : float or array_like of float
        Values eps >= 0; ``inf`` allowed.
    neighbors : iterable of (i, j), optional
        Unordered pairs of input indices that count (both orders are used);
        default: all pairs of distinct inputs.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``epss``: delta(eps) = max over ordered pairs (x, x') of
        Σ_y max(0, C[x, y] - e^eps C[x', y]). delta(inf) is the largest mass
        C[x] puts where C[x'] is 0 (0 iff ``ldp_epsilon`` is finite).

    Raises
    ------
    ParameterError
        A negative or NaN eps; a neighbour index out of range.

    Notes
    -----
    Each term is written C[x, y] max(0, 1 - e^{eps - L_y}) with the privacy
    loss L_y = ln C[x, y] - ln C[x', y], so no e^eps is formed: eps = 1000
    gives 0 without overflow. delta is non-increasing and convex in e^eps, and
    it is 0 exactly from eps = ``ldp_epsilon(C)`` on. Cost O(k^2 m) per eps for
    k inputs and m outputs. Symmetric channels (and their compositions) use
    the law of the privacy loss of the pair (0, 1), which every pair shares:
    cost independent of k.

    Compared with Google's ``dp_accounting`` 0.6.0 (privacy loss distributions,
    correct for discrete mechanisms up to their loss discretisation of 1e-4):
    on GRR at k = 2 .. 10^6, OUE's explicit rows, a same-secret composition of
    two different channels and 2-, 3- and 10-fold repetition, this profile lies
    between its optimistic and pessimistic estimates, which are within 5e-5 of
    each other; for 50 releases of GRR at k = 10^6 its pessimistic delta stops
    at its truncated tail mass (1e-15), where the exact values are 4e-27 and
    below (``tests/core/test_profiles_dp_accounting.py``).

    Examples
    --------
    Binary randomized response with e^eps = 3: delta(eps') = (3 - e^eps') / 4.

    >>> import math, qifldp as q
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> q.privacy_profile(C, [0.0, math.log(2), math.log(3), math.inf]).tolist()
    [0.5, 0.25, 0.0, 0.0]
    >>> q.privacy_profile(C, 0.0)
    0.5
    """
    eps, scalar = _check_epss(epss)
    flat = eps.reshape(-1)
    C = as_channel(C, "C")
    M = C.matrix
    k, m = M.shape
    mask = _pair_mask(k, neighbors)
    with np.errstate(divide="ignore"):
        logM = np.log(M)
    out = np.zeros(flat.shape)
    step = max(1, _CHUNK_ENTRIES // max(1, k * m))
    for x in range(k):
        others = np.flatnonzero(mask[x])
        if others.size == 0:
            continue
        P = M[x]
        pos = P > 0
        with np.errstate(invalid="ignore"):
            L = logM[x][None, pos] - logM[others][:, pos]  # +inf where C[x'] = 0
        for s in range(0, flat.size, step):
            e = flat[s : s + step]
            d = _hockey(P[pos], L, e)  # (len(e), len(others))
            out[s : s + step] = np.maximum(out[s : s + step], d.max(axis=1))
    return _shaped(out, scalar, eps)


def _shaped(out: np.ndarray, scalar: bool, eps: np.ndarray) -> Any:
    out = np.clip(out, 0.0, 1.0)
    return float(out[0]) if scalar else out.reshape(eps.shape)


# ----------------------------------------------------------------------------------
# Piecewise-linear envelopes
# ----------------------------------------------------------------------------------
def _min_lines(a: np.ndarray, s: np.ndarray) -> list[tuple[float, float]]:
    """Breakpoints in (0, 1) of t -> min_p (a_p + s_p t), with their values (ascending t)."""
    order = np.lexsort((a, -s))  # slope descending, then intercept ascending
    a, s = a[order], s[order]
    keep = np.r_[True, s[1:] != s[:-1]]  # equal slopes: the lowest intercept wins
    a, s = a[keep], s[keep]
    stack: list[int] = []

    def cross(i: int, j: int) -> float:
        return (a[j] - a[i]) / (s[i] - s[j])

    for j in range(a.size):
        while len(stack) >= 2 and cross(stack[-2], j) <= cross(stack[-2], stack[-1]):
            stack.pop()
        stack.append(j)
    pts = []
    for i, j in zip(stack[:-1], stack[1:], strict=True):
        t = cross(i, j)
        if 0.0 < t < 1.0:
            pts.append((float(t), float(a[i] + s[i] * t)))
    return pts


#: Largest (number of distinct pair curves) x (number of distinct vertex alphas) that
#: :func:`tradeoff_envelope` evaluates (float64 entries, 400 MB).
MAX_ENVELOPE_ENTRIES: int = 5 * 10**7


def _lower_envelope(curves: Sequence[TradeoffCurve]) -> TradeoffCurve:
    grid = np.unique(np.concatenate([np.asarray(c.alphas, dtype=float) for c in curves]))
    if len(curves) * grid.size > MAX_ENVELOPE_ENTRIES:
        msg = (
            f"the trade-off envelope of {len(curves)} distinct pair curves over {grid.size} "
            f"vertex alphas needs {len(curves) * grid.size} entries, more than "
            f"MAX_ENVELOPE_ENTRIES = {MAX_ENVELOPE_ENTRIES}; restrict the pairs with "
            "neighbors=..., or use privacy_profile (no envelope needed)"
        )
        raise SizeError(msg)
    V = np.vstack(
        [np.interp(grid, np.asarray(c.alphas, float), np.asarray(c.betas, float)) for c in curves]
    )
    env = V.min(axis=0)
    on = V == env[None, :]
    # linear on (g_j, g_j+1) iff one curve is minimal at both ends (then it is below all)
    bends = set(np.flatnonzero(~np.any(on[:, :-1] & on[:, 1:], axis=0)).tolist())
    alphas, betas = [float(grid[0])], [float(env[0])]
    for j in range(grid.size - 1):
        if j in bends:  # the envelope bends inside (g_j, g_j+1)
            g0, g1 = grid[j], grid[j + 1]
            for t, v in _min_lines(V[:, j], V[:, j + 1] - V[:, j]):
                al = float(g0 + (g1 - g0) * t)
                if alphas[-1] < al < g1:
                    alphas.append(al)
                    betas.append(v)
        alphas.append(float(grid[j + 1]))
        betas.append(float(env[j + 1]))
    return _simplify(alphas, betas)


#: Vertices of a computed envelope closer than this in both alpha and beta are one
#: vertex (the lower beta is kept): several lines crossing at one point give
#: breakpoints a few ulp apart.
VERTEX_MERGE_ATOL: float = 1e-14


def _simplify(alphas: list[float], betas: list[float]) -> TradeoffCurve:
    """Merge vertices a few ulp apart; drop vertices exactly on their neighbours' segment."""
    ma, mb = [alphas[0]], [betas[0]]
    for a, b in zip(alphas[1:], betas[1:], strict=True):
        if a <= ma[-1] or (
            a - ma[-1] <= VERTEX_MERGE_ATOL and abs(b - mb[-1]) <= VERTEX_MERGE_ATOL
        ):
            mb[-1] = min(mb[-1], b)
            if a == 1.0:
                ma[-1] = 1.0
        else:
            ma.append(a)
            mb.append(b)
    if len(ma) == 1:  # everything merged into alpha = 0 (cannot happen for alpha 0..1)
        ma, mb = [0.0, 1.0], [mb[0], 0.0]
    alphas, betas = ma, mb
    A, B = [alphas[0]], [betas[0]]
    for i in range(1, len(alphas) - 1):
        a0, b0, a1, b1, a2, b2 = A[-1], B[-1], alphas[i], betas[i], alphas[i + 1], betas[i + 1]
        if (b1 - b0) * (a2 - a0) == (b2 - b0) * (a1 - a0):
            continue
        A.append(a1)
        B.append(b1)
    A.append(alphas[-1])
    B.append(betas[-1])
    return TradeoffCurve(A, [min(max(b, 0.0), 1.0) for b in B])


def _convex_minorant(T: TradeoffCurve) -> TradeoffCurve:
    """Greatest convex minorant of a piecewise-linear function (lower hull of its vertices)."""
    hull: list[tuple[float, float]] = []
    for p in zip(T.alphas, T.betas, strict=True):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return TradeoffCurve([h[0] for h in hull], [h[1] for h in hull])


@singledispatch
def tradeoff_envelope(C: Any, neighbors: Any = None, *, convex: bool = False) -> TradeoffCurve:
    """The worst-pair f-DP trade-off envelope T(alpha) = min_{x != x'} T(C[x], C[x'])(alpha).

    Parameters
    ----------
    C : Channel, array_like, SymmetricChannel or SymmetricComposition
    neighbors : iterable of (i, j), optional
        Unordered pairs of input indices (both orders count); default all pairs.
    convex : bool
        False (default): the pointwise minimum itself (piecewise linear, not
        always convex). True: its greatest convex minorant, the tightest
        trade-off *function* f with C f-DP (same privacy profile).

    Returns
    -------
    TradeoffCurve
        Vertices (alpha, beta) from (0, T(0)) to (1, 0) (float).

    Raises
    ------
    ParameterError
        No pair of distinct inputs to compare.
    SizeError
        More than :data:`MAX_ENVELOPE_ENTRIES` (distinct curves x vertices).

    Notes
    -----
    Every pair's curve is exact (:func:`qifldp.tradeoff_curve`, Neyman–Pearson).
    On each interval between consecutive vertex alphas of all curves every curve
    is linear; where no single curve is minimal at both ends, the envelope's
    inner breakpoints are those of the lower envelope of the lines (a stack
    sweep over slopes). The set of ordered pairs is closed under swapping, so
    the envelope is symmetric. Cost O(P V log P) for P pairs and V vertices.
    Symmetric channels: every pair is equivalent, T = ``tradeoff_curve(C)``.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> [(round(a, 6), round(b, 6)) for a, b in q.tradeoff_envelope(C)]
    [(0.0, 1.0), (0.25, 0.25), (1.0, 0.0)]
    """
    C = as_channel(C, "C")
    mask = _pair_mask(C.n_inputs, neighbors)
    pairs = np.argwhere(mask)
    if pairs.size == 0:
        msg = "no pair of distinct inputs to compare (a single input, or empty neighbors)"
        raise ParameterError(msg)
    curves = []
    seen: set = set()
    for x, y in pairs:
        T = tradeoff_curve(C, int(x), int(y), exact=False)
        key = (T.alphas, T.betas)
        if key not in seen:
            seen.add(key)
            curves.append(T)
    env = curves[0] if len(curves) == 1 else _lower_envelope(curves)
    return _convex_minorant(env) if check_bool("convex", convex) else env


def _as_curve(T: Any) -> TradeoffCurve:
    if isinstance(T, TradeoffCurve):
        return T
    try:
        pts = [(float(a), float(b)) for a, b in T]
    except (TypeError, ValueError):
        msg = "T must be a TradeoffCurve or a sequence of (alpha, beta) vertices"
        raise InputTypeError(msg) from None
    return TradeoffCurve([p[0] for p in pts], [p[1] for p in pts])


def profile_from_tradeoff(T: Any, epss: Any) -> Any:
    """delta(eps) = sup_alpha (1 - e^eps alpha - T(alpha)) of a piecewise-linear trade-off curve.

    Parameters
    ----------
    T : TradeoffCurve or sequence of (alpha, beta)
        E.g. :func:`tradeoff_envelope` of a channel.
    epss : float or array_like of float, each >= 0 (inf allowed)

    Returns
    -------
    float or numpy.ndarray
        Shaped like ``epss``.

    Notes
    -----
    delta(eps) = 1 + T*(-e^eps) with T* the convex conjugate (Dong, Roth, Su,
    *Gaussian differential privacy*, Prop. 2.12). With alpha = P(test rejects)
    under C[x] and 1 - beta = Q(rejects) under C[x'], 1 - beta - e^eps alpha =
    Q(S) - e^eps P(S), whose sup over tests is Σ_y max(0, Q_y - e^eps P_y): the
    hockey-stick divergence of the swapped pair, so the envelope over all
    ordered pairs gives :func:`privacy_profile`. The supremum of a
    piecewise-linear function is at a vertex: max_i (1 - e^eps alpha_i - beta_i),
    clipped at 0; e^eps alpha_i is formed as exp(eps + ln alpha_i) and vanishes
    for alpha_i = 0, so eps = inf gives 1 - T(0).

    Examples
    --------
    >>> import math, qifldp as q
    >>> T = q.tradeoff_envelope(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
    >>> round(q.profile_from_tradeoff(T, math.log(2)), 12)
    0.25
    """
    T = _as_curve(T)
    eps, scalar = _check_epss(epss)
    a = np.asarray(T.alphas, dtype=float)
    b = np.asarray(T.betas, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        la = np.log(a)
        ea = np.where(a[None, :] > 0, np.exp(eps.reshape(-1, 1) + la[None, :]), 0.0)
    d = np.max(1.0 - b[None, :] - ea, axis=1)
    out = np.clip(d, 0.0, 1.0)
    return float(out[0]) if scalar else out.reshape(eps.shape)


#: Above this eps the line beta = 1 - delta - e^eps alpha of :func:`tradeoff_from_profile`
#: meets beta = 0 before alpha = e^-700 ~ 1e-304; it is left out (see its Notes).
_STEEP_EPS = 700.0


def tradeoff_from_profile(epss: Any, deltas: Any) -> TradeoffCurve:
    """The trade-off lower bound implied by (eps, delta(eps))-DP at every given eps.

    Parameters
    ----------
    epss : array_like of float
        eps >= 0 (inf allowed).
    deltas : array_like of float
        delta(eps) in [0, 1], same length.

    Returns
    -------
    TradeoffCurve
        T(alpha) = max over the grid of max(0, 1 - delta - e^eps alpha,
        e^-eps (1 - delta - alpha)): the largest trade-off function that every
        (eps, delta)-DP pair of distributions satisfies (Dong, Roth, Su, Prop.
        2.5), as exact vertices of the upper envelope of those lines.

    Raises
    ------
    ParameterError
        Lengths differ, eps < 0, delta outside [0, 1].

    Notes
    -----
    The result is a convex piecewise-linear lower bound of the channel's convex
    envelope; it equals it when the grid holds every slope ln(-slope) of the
    envelope's segments (e.g. eps = 0 and the true eps for randomized
    response). For eps > 700 (inf included) the line 1 - delta - e^eps alpha
    reaches 0 before alpha = 1e-304: it would only raise T(0), making the
    bound jump at alpha = 0, which a continuous trade-off curve cannot
    express; it is left out (the result stays a valid lower bound for every
    alpha, and only T(0) may be lower than the profile allows).

    Examples
    --------
    Binary randomized response with e^eps = 3 from its profile at eps = 0 and ln 3:

    >>> import math, qifldp as q
    >>> T = q.tradeoff_from_profile([0.0, math.log(3)], [0.5, 0.0])
    >>> [(round(a, 6), round(b, 6)) for a, b in T]
    [(0.0, 1.0), (0.25, 0.25), (1.0, 0.0)]
    """
    eps = _real_values("epss", epss)[0].reshape(-1)
    dl = _real_values("deltas", deltas)[0].reshape(-1)
    if eps.shape != dl.shape or eps.size == 0:
        msg = f"epss and deltas must be non-empty and of the same length, got {eps.size}, {dl.size}"
        raise ParameterError(msg)
    _check_epss(eps)
    if np.any(np.isnan(dl)) or np.any(dl < 0) or np.any(dl > 1):
        msg = "deltas must lie in [0, 1]"
        raise ParameterError(msg)
    finite = eps <= _STEEP_EPS
    # beta = max(lines) = -min(-lines); lines as (intercept, slope)
    icpt = [np.zeros(1), (1.0 - dl[finite]), np.exp(-eps) * (1.0 - dl)]
    slope = [np.zeros(1), -np.exp(eps[finite]), -np.exp(-eps)]
    a = np.concatenate(icpt)
    s = np.concatenate(slope)
    pts = [(t, -v) for t, v in _min_lines(-a, -s)]
    top = float(np.max(a))  # T(0) from the lines
    end = float(np.max(a + s))  # value at alpha = 1 (0 for eps >= 0, delta >= 0)
    alphas = [0.0] + [p[0] for p in pts] + [1.0]
    betas = [min(top, 1.0)] + [p[1] for p in pts] + [max(end, 0.0)]
    return _simplify(alphas, betas)


@singledispatch
def gdp_mu(C: Any, neighbors: Any = None) -> float:
    """The smallest mu such that the channel is mu-GDP: T(alpha) >= G_mu(alpha) for all alpha.

    Parameters
    ----------
    C : Channel, array_like, SymmetricChannel, SymmetricComposition or TradeoffCurve
        A channel (its :func:`tradeoff_envelope` over ``neighbors`` is used) or
        a trade-off curve given by its vertices.
    neighbors : iterable of (i, j), optional
        As in :func:`tradeoff_envelope` (channels only).

    Returns
    -------
    float
        mu >= 0; ``inf`` when no Gaussian trade-off lies below T (T(0) < 1 or T
        reaches 0 before alpha = 1: an output rules a secret out, eps = inf).

    Notes
    -----
    G_mu(alpha) = Φ(Φ^{-1}(1 - alpha) - mu) is convex and decreasing in mu.
    On each segment of the piecewise-linear T, T - G_mu is concave, so its
    minimum is at an end point: T >= G_mu everywhere iff it holds at every
    vertex (alpha_i, beta_i). There G_mu(alpha_i) <= beta_i iff
    mu >= Φ^{-1}(1 - alpha_i) - Φ^{-1}(beta_i), hence the closed form
    mu = max_i (-Φ^{-1}(alpha_i) - Φ^{-1}(beta_i)) over the vertices with
    0 < alpha_i < 1 (no search needed). For binary randomized response at eps
    this is -2 Φ^{-1}(1 / (1 + e^eps)) (Dong, Roth, Su, Cor. 2.13).

    Examples
    --------
    >>> import math, qifldp as q
    >>> from scipy.stats import norm
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> round(q.gdp_mu(C), 9) == round(-2 * float(norm.ppf(0.25)), 9)
    True
    """
    return _gdp_mu_of_curve(tradeoff_envelope(C, neighbors))


@gdp_mu.register(TradeoffCurve)
def _gdp_mu_curve(C: TradeoffCurve, neighbors: Any = None) -> float:
    return _gdp_mu_of_curve(C)


def _gdp_mu_of_curve(T: TradeoffCurve) -> float:
    a = np.asarray(T.alphas, dtype=float)
    b = np.asarray(T.betas, dtype=float)
    if b[0] < 1.0 or np.any((b[:-1] <= 0.0) & (a[:-1] < 1.0)):
        return math.inf
    inner = (a > 0) & (a < 1)
    if not np.any(inner):
        return 0.0
    mu = float(np.max(-ndtri(a[inner]) - ndtri(b[inner])))
    return max(mu, 0.0)
