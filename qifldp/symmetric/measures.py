"""Leakage measures of symmetric channels in O(size classes), registered on qifldp's measures."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import measures as _m, tradeoff as _fdp
from ..channel import Channel
from ..errors import GainError, InputTypeError, ParameterError, PriorError
from ..priors import as_prior
from .binomial import logsumexp
from .channel import SymmetricChannel
from .gain import SymmetricGain, g_vulnerability_symmetric

__all__ = [
    "log_bayes_capacity",
    "bayes_capacity",
    "asr",
    "ldp_epsilon",
    "max_case_capacity",
    "bayes_vulnerability",
    "g_vulnerability",
    "min_entropy_leakage",
    "channel_prior_vulnerability",
    "tradeoff_curve",
    "pair_atoms",
]

# The derived measures are the generic ones, written once over the primitives below
# (ML(C) / k, e^eps, log2 of the ratio of vulnerabilities); kept here under their names.
asr = _m.asr
max_case_capacity = _m.max_case_capacity
min_entropy_leakage = _m.min_entropy_leakage

#: Above this many entries a non-uniform prior or an explicit gain is refused
#: rather than expanding the channel (the explicit-channel limit).
_EXPAND_ENTRIES = 10**7


def log_bayes_capacity(C: SymmetricChannel) -> float:
    """ln ML(C), the log of the multiplicative Bayes capacity, in log space.

    Parameters
    ----------
    C : SymmetricChannel

    Returns
    -------
    float

    Notes
    -----
    ML(C) = Σ_S max_x C[x, S] = Σ_s C(k, s) max(a_s [s > 0], b_s [s < k])
    = Σ_s max(k P_in(s) / s, k P_out(s) / (k - s)), since C(k, s) a_s =
    (k / s) C(k-1, s-1) a_s. Evaluated with logsumexp; cost O(number of sizes).

    Examples
    --------
    >>> import math, qifldp.symmetric as sym
    >>> round(log_bayes_capacity(sym.grr(3, math.log(2))), 12) == round(math.log(1.5), 12)
    True
    """
    _check(C)
    k = C.k
    s = C.sizes.astype(np.float64)
    log_k = math.log(k)
    with np.errstate(divide="ignore"):
        t_in = np.where(s > 0, log_k - np.log(np.maximum(s, 1.0)) + C.log_in, -np.inf)
        t_out = np.where(s < k, log_k - np.log(np.maximum(k - s, 1.0)) + C.log_out, -np.inf)
    return float(logsumexp(np.maximum(t_in, t_out)))


def _check(C: Any) -> None:
    if not isinstance(C, SymmetricChannel):
        msg = f"C must be a SymmetricChannel, got {type(C).__name__}"
        raise InputTypeError(msg)


def bayes_capacity(C: SymmetricChannel) -> float:
    """Multiplicative Bayes capacity of a symmetric channel (see :func:`log_bayes_capacity`).

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.bayes_capacity(sym.oue(10**6, 1.0)), 6)
    1.859141
    """
    return math.exp(log_bayes_capacity(C))


def _log_ratios(C: SymmetricChannel) -> tuple[np.ndarray, bool]:
    """|ln(a_s / b_s)| over sizes 0 < s < k with mass; flag for a 0-vs-positive column."""
    k = C.k
    s = C.sizes
    inner = (s > 0) & (s < k)
    li, lo = C.log_in[inner], C.log_out[inner]
    used = (li > -np.inf) | (lo > -np.inf)
    if np.any((li[used] == -np.inf) | (lo[used] == -np.inf)):
        return np.zeros(0), True
    return np.abs(C.log_ratio[inner][used]), False


def ldp_epsilon(C: SymmetricChannel, neighbors: Iterable[Any] | None = None) -> float:
    """The true LDP epsilon of a symmetric channel: max over sizes of |ln(a_s / b_s)|.

    Parameters
    ----------
    C : SymmetricChannel
    neighbors : iterable of (i, j), optional
        Pairs of input indices; by symmetry every pair of distinct inputs gives
        the same value, so only whether some pair has i != j matters.

    Returns
    -------
    float
        ``inf`` when some output of positive probability has a_s = 0 < b_s or
        a_s > 0 = b_s; 0 for the sizes 0 and k (constant columns).

    Notes
    -----
    a_s / b_s = (P_in(s) / P_out(s)) (k - s) / s: no binomial coefficient, so the
    value is exact to a few ulp even for k = 10^6 and eps where e^eps overflows.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> round(q.ldp_epsilon(sym.the(1000, 2.0, 0.75)), 9)  # ln(p (1-q) / ((1-p) q)) < eps
    1.623553112
    """
    _check(C)
    if neighbors is not None:
        pairs = _m._check_neighbors(neighbors, C.k)
        if not np.any(pairs[:, 0] != pairs[:, 1]):
            return 0.0
    r, infinite = _log_ratios(C)
    if infinite:
        return math.inf
    return float(r.max()) if r.size else 0.0


def _is_uniform(prior: Any, k: int) -> bool:
    if prior is None:
        return True
    pi = as_prior(prior, k)
    return bool(np.all(pi == pi[0]))


def _expand_for(C: SymmetricChannel, what: str) -> Channel:
    n = C.n_explicit_outputs(lumped=True)
    if C.k * n > _EXPAND_ENTRIES:
        msg = (
            f"{what} of a symmetric channel with k = {C.k} needs the explicit channel "
            f"({C.k} x {n} entries, more than {_EXPAND_ENTRIES}); use a uniform prior "
            "(and a SymmetricGain) instead"
        )
        raise PriorError(msg)
    return C.expand(lumped=True)


def bayes_vulnerability(C: SymmetricChannel, prior: Any = None) -> float:
    """Posterior Bayes vulnerability of a symmetric channel.

    Parameters
    ----------
    C : SymmetricChannel
    prior : array_like, optional
        Uniform (default) costs O(number of sizes): ML(C) / k. Any other prior
        is evaluated on the lumped explicit channel (small k only).

    Raises
    ------
    PriorError
        Invalid prior, or a non-uniform prior on a channel too large to expand.

    Examples
    --------
    >>> import math, qifldp as q, qifldp.symmetric as sym
    >>> round(q.bayes_vulnerability(sym.grr(3, math.log(2)), [0.5, 0.25, 0.25]), 12)
    0.5
    """
    _check(C)
    if _is_uniform(prior, C.k):
        return _m.asr(C)
    return _m.bayes_vulnerability(_expand_for(C, "a non-uniform prior"), prior)


def g_vulnerability(C: SymmetricChannel, gain: Any, prior: Any = None) -> float:
    """Posterior g-vulnerability of a symmetric channel.

    Parameters
    ----------
    C : SymmetricChannel
    gain : SymmetricGain or array_like (n_actions, k)
        A :class:`SymmetricGain` with a uniform prior costs
        O(sizes(C) x sizes(gain)); anything else is evaluated on the lumped
        explicit channel (small k only).
    prior : array_like, optional
        Defaults to uniform.

    Examples
    --------
    >>> import math, qifldp as q, qifldp.symmetric as sym
    >>> C = sym.grr(3, math.log(2))
    >>> round(q.g_vulnerability(C, sym.SymmetricGain.identity(3)), 12)
    0.5
    """
    _check(C)
    if isinstance(gain, SymmetricGain):
        if not _is_uniform(prior, C.k):
            return _m.g_vulnerability(_expand_for(C, "a non-uniform prior"), gain.expand(), prior)
        return g_vulnerability_symmetric(C, gain)
    return _m.g_vulnerability(_expand_for(C, "an explicit gain"), gain, prior)


def channel_prior_vulnerability(
    C: SymmetricChannel, gain: Any = None, prior: Any = None, *, nonnegative: bool = False
) -> float:
    """Prior vulnerability V_g(π) over the k inputs of a symmetric channel.

    Parameters
    ----------
    C : SymmetricChannel
    gain : SymmetricGain or array_like (n_actions, k), optional
        A :class:`SymmetricGain` with a uniform prior costs O(sizes(gain));
        another prior expands it (small k only). Default: the identity gain.
    prior : array_like, optional
        Defaults to uniform.
    nonnegative : bool
        Require a non-negative gain (multiplicative leakage).

    Examples
    --------
    >>> import math, qifldp.symmetric as sym
    >>> C = sym.grr(4, math.log(3))
    >>> channel_prior_vulnerability(C, sym.SymmetricGain.identity(4))
    0.25
    """
    _check(C)
    nonnegative = _m._check_nonnegative_flag(nonnegative)
    if isinstance(gain, SymmetricGain):
        if nonnegative and (np.any(gain.g_in < 0) or np.any(gain.g_out < 0)):
            msg = "gain must be non-negative for multiplicative leakage"
            raise GainError(msg)
        if _is_uniform(prior, C.k):
            return gain.prior_vulnerability()
        gain = gain.expand()
    if gain is None and prior is None:
        return 1.0 / C.k  # V1 of the uniform prior, without a prior vector of k floats
    return _m._prior_vulnerability(C.k, gain, prior, nonnegative)


def pair_atoms(C: SymmetricChannel, same: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The joint law of (C[x0, S], C[x1, S]) over lumped outputs S, as two mass vectors.

    Parameters
    ----------
    C : SymmetricChannel
    same : bool
        x0 = x1 (both vectors equal the class masses).

    Returns
    -------
    (P0, P1) : numpy.ndarray, each of shape (4 len(sizes),)
        Atom j groups the outputs of one size s by membership of x0 and x1, in the
        order (x0 only, x1 only, both, neither); P0[j] and P1[j] are their total
        probabilities under x0 and x1.

    Notes
    -----
    By 2-transitivity the law does not depend on x0 != x1. Among the C(k, s)
    subsets of size s, C(k-2, s-1) contain x0 but not x1, as many x1 but not x0,
    C(k-2, s-2) both and C(k-2, s) neither; dividing by C(k-1, s-1) or C(k-1, s):
    x0 only: (P_in (k-s), P_out s) / (k-1); both: P_in (s-1) / (k-1) twice;
    neither: P_out (k-1-s) / (k-1) twice.

    Examples
    --------
    >>> import math, qifldp.symmetric as sym
    >>> P0, P1 = pair_atoms(sym.grr(3, math.log(2)))
    >>> P0.round(6).tolist(), P1.round(6).tolist()
    ([0.5, 0.25, 0.0, 0.25], [0.25, 0.5, 0.0, 0.25])
    """
    _check(C)
    k = C.k
    s = C.sizes.astype(np.float64)
    Pi, Po = C.class_masses()
    if same:
        return np.concatenate([Pi, Po]), np.concatenate([Pi, Po])
    d = k - 1.0
    a0 = Pi * (k - s) / d  # x0 in S, x1 not: under x0
    a1 = Po * s / d  # same outputs under x1
    both = Pi * np.maximum(s - 1.0, 0.0) / d
    neither = Po * np.maximum(k - 1.0 - s, 0.0) / d
    P0 = np.concatenate([a0, a1, both, neither])
    P1 = np.concatenate([a1, a0, both, neither])
    return P0, P1


def tradeoff_curve(C: SymmetricChannel, x0: int = 0, x1: int = 1, **kwargs: Any):
    """The f-DP trade-off curve T(C[x0], C[x1]) of a symmetric channel.

    Same semantics and keyword arguments as :func:`qifldp.tradeoff.tradeoff_curve`
    (vertices (alpha, beta), alpha ascending, from (0, T(0)) to (1, 0)).

    Raises
    ------
    ParameterError, InputTypeError
        x0 or x1 not an input index in 0..k-1.

    Notes
    -----
    The two rows restricted to the lumped outputs are summarised by the at most
    4 len(sizes) atoms of :func:`pair_atoms`, then atoms of equal likelihood
    ratio (known exactly from :attr:`SymmetricChannel.log_ratio`) are merged,
    which leaves the Neyman–Pearson curve unchanged (3 atoms for UE and THE,
    whatever k); the curve of that 2-row channel is computed by
    :func:`qifldp.tradeoff.tradeoff_curve`. Cost O(sizes log sizes).

    Examples
    --------
    >>> import math, qifldp.tradeoff, qifldp.symmetric as sym
    >>> T = qifldp.tradeoff.tradeoff_curve(sym.grr(3, math.log(2)))
    >>> [(round(a, 6), round(b, 6)) for a, b in T]
    [(0.0, 1.0), (0.25, 0.5), (0.5, 0.25), (1.0, 0.0)]
    """
    _check(C)
    i0 = _index("x0", x0, C.k)
    i1 = _index("x1", x1, C.k)
    if i0 == i1:
        P0, P1 = pair_atoms(C, same=True)
        keep = P0 > 0
        return _fdp.tradeoff_curve(Channel(np.vstack([P0[keep], P1[keep]])), 0, 1, **kwargs)
    P0, P1 = pair_atoms(C)
    # Group the atoms by their exact log-likelihood ratio ln(P1 / P0): -ln(a_s/b_s) for
    # "x0 only", +ln(a_s/b_s) for "x1 only", 0 for "both"/"neither" (from log_ratio, not from
    # the rounded masses, so equal ratios stay equal even for subnormal masses).
    pos_in, pos_out = C.log_in > -np.inf, C.log_out > -np.inf
    r = np.where(pos_in & pos_out, C.log_ratio, np.where(pos_in, np.inf, -np.inf))
    key = np.concatenate([-r, r, np.zeros(r.size), np.zeros(r.size)])
    keep = (P0 > 0) | (P1 > 0)
    uniq, inv = np.unique(key[keep], return_inverse=True)
    G0 = np.bincount(inv, weights=P0[keep], minlength=uniq.size)
    G1 = np.bincount(inv, weights=P1[keep], minlength=uniq.size)
    return _fdp.tradeoff_curve(Channel(np.vstack([G0, G1])), 0, 1, **kwargs)


def _index(name: str, x: Any, k: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        msg = f"{name} must be an integer input index, got {x!r}"
        raise InputTypeError(msg)
    if not 0 <= int(x) < k:
        msg = f"{name} must be an input index in 0..{k - 1}, got {x}"
        raise ParameterError(msg)
    return int(x)
