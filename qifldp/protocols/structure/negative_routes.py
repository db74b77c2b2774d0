"""Failures certified on the cheapest representation: the Bayes capacity and a two-point prior.

If A ⊑ B then no adversary gains more through B than through A. Two adversaries are
cheap to evaluate on any representation (explicit, symmetric) and find most failures of
the comparability atlas (:mod:`qifldp.sweeps.atlas`):

* the **capacity test**: the identity gain under the uniform prior (the multiplicative
  Bayes capacity ML): ML(B) > ML(A) gives A ⋢ B. Where A has no channel within the
  budget, an upper bound of its capacity from its closed forms
  (``closed_form.bayes_capacity_bounds``) takes its place (:func:`capacity_bound_test`);
* the **pair test** (:func:`pair_test`): a prior on two inputs under which B tells them
  apart better than A.

A float gap only makes a candidate (above :data:`PAIR_TEST_MARGIN` of the
vulnerabilities); the failure is decided by the gap proved positive, by a rigorous
bound on its rounding error (gamma_n = n u / (1 - n u) for n terms) or exactly in
rationals (:mod:`qifldp.protocols.structure.rigorous_gaps`).

Layer L5 (protocols): protocol-level refinement without whole channels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import ParameterError, QifldpError
from ...refinement._screen import cached_view
from ...refinement.result import Counterexample
from ...symmetric import SymmetricChannel, SymmetricGain
from ...symmetric.measures import pair_atoms
from .rigorous_gaps import (
    CertifiedGap,
    certified_gap,
    exact_two_point_vulnerability,
    exact_uniform_vulnerability,
    two_point_vulnerability,
    uniform_vulnerability,
)

__all__ = [
    "PAIR_TEST_CANDIDATES",
    "PAIR_TEST_MARGIN",
    "PAIR_TEST_MAX_INPUTS",
    "PAIR_WEIGHTS",
    "capacity_bound_test",
    "capacity_test",
    "pair_test",
]

#: The search threshold of the negative routes: a candidate (the uniform prior of the
#: capacity test, a prior of the pair test) is tried only when its float gap exceeds this
#: fraction of the vulnerabilities compared. It decides nothing: a candidate is a failure
#: once its gap is proved positive, by a rigorous bound on its rounding error or exactly
#: (:func:`qifldp.protocols.structure.rigorous_gaps.certified_gap`). Far above the vulnerabilities'
#: rounding (gamma_n ~ n 1.1e-16 for n outputs), it leaves the pairs that differ by
#: rounding alone to the LP routes, whose verdicts then say "up to rounding".
PAIR_TEST_MARGIN: float = 1e-9
#: The pair test of an explicit channel tries the ordered pairs of its first this many
#: inputs (all of them at k <= 64: 4,032 pairs; k (k - 1) pairs at k = 10^4 would be
#: 10^8); the restriction route (:mod:`qifldp.protocols.structure.restriction`) tries pairs and
#: larger sets spread over the whole domain.
PAIR_TEST_MAX_INPUTS: int = 64
#: At most this many candidates of the pair test are re-checked (the largest float gaps
#: first; with the default margin the first one is proved).
PAIR_TEST_CANDIDATES: int = 16


def _pair_vulnerability(C: Any, x0: int, x1: int, w: np.ndarray) -> np.ndarray:
    """V1 of the prior (w on x0, 1 - w on x1) through C: Σ_y max(w C[x0, y], (1-w) C[x1, y]).

    The outputs sorted once by their likelihood ratio C[x0, y] / C[x1, y]: the adversary
    guesses x0 on a prefix (ratio >= (1 - w) / w), so every weight costs a search and two
    cumulative sums, O(n log n + |w| log n), not |w| n (a channel of 2.6e4 outputs at
    k = 64 has 4,032 ordered pairs). The search only; a candidate is re-checked by
    :func:`_recheck_pair`.
    """
    if isinstance(C, SymmetricChannel):
        P0, P1 = pair_atoms(C)
    else:
        P0, P1 = C.matrix[x0], C.matrix[x1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(P1 > 0, P0 / np.where(P1 > 0, P1, 1.0), np.inf)
    ratio = np.where((P0 == 0) & (P1 == 0), 0.0, ratio)
    order = np.argsort(-ratio, kind="stable")
    c0 = np.concatenate([[0.0], np.cumsum(P0[order])])
    c1 = np.concatenate([[0.0], np.cumsum(P1[order])])
    with np.errstate(divide="ignore"):
        threshold = (1.0 - w) / w
    # the outputs with ratio >= threshold: a prefix of the descending order
    n_in = np.searchsorted(-ratio[order], -threshold, side="right")
    return w * c0[n_in] + (1.0 - w) * (c1[-1] - c1[n_in])


def _pair_table(C: Any) -> dict[tuple[int, int], np.ndarray]:
    """V1 at every weight of :data:`PAIR_WEIGHTS` for each ordered pair of C's inputs, kept
    for the channels tested last (:func:`qifldp.refinement._screen.cached_view`: a cell
    tests one channel against every other oracle, its table computed once)."""
    return cached_view(C, "atlas pair table", _make_pair_table)


def _make_pair_table(C: Any) -> dict[tuple[int, int], np.ndarray]:
    return {(x0, x1): _pair_vulnerability(C, x0, x1, PAIR_WEIGHTS) for x0, x1 in _pairs(C)}


def _pairs(C: Any) -> list[tuple[int, int]]:
    if isinstance(C, SymmetricChannel):
        return [(0, 1)]
    k = min(C.shape[0], PAIR_TEST_MAX_INPUTS)
    return [(a, b) for a in range(k) for b in range(k) if a != b]


#: The prior weights w of x0 the pair test tries: log-odds ln((1 - w) / w) on a grid of
#: 97 points in [-12, 12] (the range where eps <= 12 can separate), and w = 1/2.
PAIR_WEIGHTS: np.ndarray = np.unique(
    np.concatenate([1.0 / (1.0 + np.exp(np.linspace(-12.0, 12.0, 97))), [0.5]])
)


def pair_test(A: Any, B: Any, *, margin: float = PAIR_TEST_MARGIN) -> Counterexample | None:
    """A two-point-prior counterexample to A ⊑ B, proved, or None when none is found.

    If A ⊑ B then for every pair of inputs (x0, x1) and prior (w, 1 - w) on them, the
    adversary guessing which of the two it is does no better through B than through
    A. This searches the pairs (one pair for a symmetric channel, every ordered pair
    for an explicit one) and the weights :data:`PAIR_WEIGHTS` for V1[π▷B] − V1[π▷A] > 0.

    Parameters
    ----------
    A, B : Channel or SymmetricChannel
        The same number of inputs; either may be symmetric (its pairs all alike).
    margin : float
        The search threshold (default :data:`PAIR_TEST_MARGIN`, >= 0): a pair whose
        largest float gap exceeds ``margin`` times the vulnerabilities is a candidate.
        It decides nothing (0 makes every positive float gap a candidate).

    Returns
    -------
    Counterexample or None
        The identity gain on {x0, x1} (actions: guess x0, guess x1), the prior, and the
        gap proved positive on the channels as stored (rows divided by their exact sums,
        a symmetric channel's class masses by their exact total): the two vulnerabilities
        evaluated afresh (every output, or the atoms of
        :func:`qifldp.symmetric.measures.pair_atoms`) with rigorous bounds on their
        rounding errors (``gap_bound``, from gamma_n = n u / (1 - n u) for n terms:
        :func:`qifldp.protocols.structure.rigorous_gaps.two_point_vulnerability`), or, when the gap
        does not exceed that bound, computed exactly in rationals on the two rows
        (``gap_exact``, ``gap`` its float). None when no candidate's gap is proved
        positive (the largest :data:`PAIR_TEST_CANDIDATES` float gaps are tried).

    Raises
    ------
    ParameterError
        A and B over different numbers of inputs, or ``margin`` not a real >= 0.

    Examples
    --------
    >>> import qifldp as q
    >>> ce = pair_test(q.grr(4, 1.0), q.grr(4, 2.0))
    >>> bool(ce.gap > ce.gap_bound > 0), float(ce.prior.sum())
    (True, 1.0)
    >>> pair_test(q.grr(4, 2.0), q.grr(4, 1.0)) is None
    True
    """
    k, kb = _inputs(A), _inputs(B)
    if k != kb:
        msg = f"A and B must have the same number of inputs, got {k} and {kb}"
        raise ParameterError(msg)
    margin = _check_margin(margin)
    w = PAIR_WEIGHTS
    pairs = _pairs(A) if not isinstance(A, SymmetricChannel) else _pairs(B)
    table_a, table_b = _pair_table(A), _pair_table(B)
    candidates: list[tuple[float, int, int, float]] = []
    for x0, x1 in pairs:
        va = table_a[(0, 1) if isinstance(A, SymmetricChannel) else (x0, x1)]
        vb = table_b[(0, 1) if isinstance(B, SymmetricChannel) else (x0, x1)]
        gaps = vb - va
        i = int(np.argmax(gaps))
        if gaps[i] > margin * (va[i] + vb[i]):
            candidates.append((float(gaps[i]), x0, x1, float(w[i])))
    candidates.sort(key=lambda c: -c[0])
    for _, x0, x1, wi in candidates[:PAIR_TEST_CANDIDATES]:
        proved = _recheck_pair(A, B, x0, x1, wi)
        if proved is None:
            continue
        prior = np.zeros(k)
        prior[x0], prior[x1] = wi, 1.0 - wi
        gain = np.zeros((2, k))
        gain[0, x0] = gain[1, x1] = 1.0
        return _counterexample(gain, prior, proved)
    return None


def _inputs(C: Any) -> int:
    return C.k if isinstance(C, SymmetricChannel) else C.shape[0]


def _check_inputs(k: int, **channels: Any) -> None:
    """Refuse a channel over other than ``k`` inputs, naming it."""
    for name, C in channels.items():
        if _inputs(C) != k:
            msg = f"{name} must be over the {k} inputs compared, got {_inputs(C)}"
            raise ParameterError(msg)


def _check_margin(margin: Any) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.floating, np.integer)):
        msg = f"margin must be a real number >= 0 (the search threshold), got {margin!r}"
        raise ParameterError(msg)
    if not (math.isfinite(margin) and margin >= 0):
        msg = f"margin must be a finite real >= 0 (the search threshold), got {margin!r}"
        raise ParameterError(msg)
    return float(margin)


def _counterexample(gain: Any, prior: np.ndarray, proved: CertifiedGap) -> Counterexample:
    return Counterexample(
        gain=gain,
        prior=prior,
        gap=proved.gap,
        gap_exact=proved.exact,
        gap_bound=proved.bound,
        vulnerability_a=proved.va,
        vulnerability_b=proved.vb,
    )


def _recheck_pair(A: Any, B: Any, x0: int, x1: int, w: float) -> CertifiedGap | None:
    """The gap of the prior (w, fl(1 - w)) on (x0, x1) proved positive, or None.

    Evaluated afresh (not from the search's sorted cumulative sums) on each channel as
    stored, with a rigorous bound on its rounding error
    (:func:`~qifldp.protocols.structure.rigorous_gaps.two_point_vulnerability`: gamma_n for the n
    terms, and the rows' normalisation); exactly on the two rows (or the stored class
    masses) when the bound does not decide. None when the exact gap is <= 0.
    """
    w1 = 1.0 - w  # the prior's second weight as stored, read as the rational it holds
    return certified_gap(
        two_point_vulnerability(A, x0, x1, w, w1),
        two_point_vulnerability(B, x0, x1, w, w1),
        lambda: exact_two_point_vulnerability(A, x0, x1, w, w1),
        lambda: exact_two_point_vulnerability(B, x0, x1, w, w1),
    )


def _uniform(C: Any) -> tuple[float, float]:
    """The uniform vulnerability (value, rounding bound), kept as :func:`_pair_table`."""
    return cached_view(C, "atlas uniform vulnerability", uniform_vulnerability)


def capacity_test(
    A: Any, B: Any, k: int, margin: float = PAIR_TEST_MARGIN
) -> Counterexample | None:
    """ML(B) > ML(A) proved: the identity gain under the uniform prior separates.

    A candidate when the float gap of the uniform vulnerabilities exceeds ``margin``
    times them; proved by the rigorous bounds of
    :func:`~qifldp.protocols.structure.rigorous_gaps.uniform_vulnerability` (gamma_n for n
    outputs or output classes, and the rows' normalisation), exactly when they do not decide.

    Parameters
    ----------
    A, B : Channel or SymmetricChannel
        Over the same ``k`` inputs.
    k : int
        The number of inputs (the gain is the k x k identity, the prior uniform).
    margin : float, optional
        The search threshold (:data:`PAIR_TEST_MARGIN`); it decides nothing.

    Returns
    -------
    Counterexample or None
        The identity gain, the uniform prior and the gap proved positive; None when
        ML(B) > ML(A) is not proved.

    Raises
    ------
    ParameterError
        A or B not over ``k`` inputs.

    Examples
    --------
    >>> import qifldp as q
    >>> ce = capacity_test(q.grr(3, 1.0), q.grr(3, 2.0), 3)
    >>> bool(ce.gap > ce.gap_bound > 0), ce.gap_exact is None
    (True, True)
    """
    _check_inputs(k, A=A, B=B)
    return _identity_gap(
        _uniform(A),
        lambda: exact_uniform_vulnerability(A),
        B,
        np.eye(k),
        margin,
    )


def _identity_gap(
    a: tuple[float, float], exact_a: Any, B: Any, gain: Any, margin: float
) -> Counterexample | None:
    """The uniform prior's gap V(B) - V(A) under the identity ``gain`` proved positive:
    a candidate above ``margin`` of the vulnerabilities, then
    :func:`~qifldp.protocols.structure.rigorous_gaps.certified_gap` (A's (value, bound)
    ``a`` and its exact value ``exact_a``, B's on its channel as stored)."""
    b = _uniform(B)
    if not b[0] - a[0] > margin * (a[0] + b[0]):
        return None
    proved = certified_gap(a, b, exact_a, lambda: exact_uniform_vulnerability(B))
    if proved is None:
        return None
    k = B.k if isinstance(B, SymmetricChannel) else B.shape[0]
    return _counterexample(gain, np.full(k, 1.0 / k), proved)


def capacity_bound_test(
    P: Any, B: Any, margin: float = PAIR_TEST_MARGIN
) -> tuple[Counterexample, str] | None:
    """ML(B) above an upper bound of ML(P) proved: P ⋢ B without P's channel.

    For a protocol ``P`` whose channel is too large to build but whose closed forms
    bound its Bayes capacity (``P.closed_form.bayes_capacity_bounds()``: rigorous
    rationals, e.g. Hadamard encoding with t coefficients at K^t index tuples): the
    uniform vulnerability of P is at most hi / k, and B's (on its channel as stored,
    with its rigorous rounding bound, exactly when that does not decide) exceeds it.
    Under the identity gain and the uniform prior B then leaks more than P, so P ⋢ B.
    The margin (default 1e-9 of the vulnerabilities) also covers the difference
    between B's stored floats and its exact law.

    Parameters
    ----------
    P : Protocol
        The refining side, described by its closed forms.
    B : Channel or SymmetricChannel
        The refined side, over P's k inputs.
    margin : float, optional
        The search threshold, as for :func:`capacity_test`.

    Returns
    -------
    (Counterexample, str) or None
        The counterexample (the identity gain as a
        :class:`~qifldp.symmetric.SymmetricGain`, nothing of size k x k formed; the
        uniform prior; ``gap`` and ``gap_exact`` bound the true gap from below,
        ``vulnerability_a`` is the bound hi / k) and the reason the bound holds; None
        when P's family states no bounds or they do not separate.

    Raises
    ------
    ParameterError
        B not over P's k inputs.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("he_multi", 256, 2.0)  # t = 4: 256^4 index tuples, never built
    >>> ce, why = capacity_bound_test(P, q.symmetric.grr(256, 2.0))
    >>> bool(ce.gap > ce.gap_bound > 0), why, ce.gain.sizes.tolist()
    (True, 'each index tuple hits at most min(2^t, k) sign vectors', [1])
    """
    _check_inputs(P.k, B=B)
    try:
        bounds = P.closed_form.bayes_capacity_bounds()
    except QifldpError:  # the family's own size rule
        return None
    if bounds is None:
        return None
    k = P.k
    _, hi, why = bounds
    va = hi / k
    a = (float(va), abs(float(va)) * 2.0**-52)  # the bound, rounded once to a float
    ce = _identity_gap(a, lambda: va, B, SymmetricGain.identity(k), margin)
    return None if ce is None else (ce, why)
