"""A failure of refinement proved on a few inputs: the restriction route, at any k.

If A ⊑ B (B = A·W) then the rows of A at any inputs S refine the rows of B at S, by the
same W. So a counterexample found on the two small restricted channels, a gain and a
prior supported on S under which B|S leaks more than A|S, refutes A ⊑ B on the whole
domain: the prior extended by zeros is a prior on every input and the gap is the same.
A symmetric channel restricts to a symmetric channel on r inputs
(:meth:`qifldp.symmetric.SymmetricChannel.restricted`, O(r) classes from its O(k)), a
protocol without one gives its rows at S directly (``P.restricted(inputs)``), so the
test costs an explicit refinement of r inputs and at most 2^r outputs on a side, where
the whole pair at k = 10^4 has ~2^10000 outputs on the symmetric side.

The restricted channels are computed, not stored: a symmetric side's class masses
carry a relative rounding error of at most
:func:`qifldp.symmetric.channel.restriction_rounding` (plus its expansion's exp and
log); a protocol's rows are its stored entries, each group of n equal columns stored as
n c rounded once (:func:`qifldp.reduction.merge_equal_columns`). A gap is accepted only
above the effect of those errors on the two vulnerabilities (a relative error d of every
entry moves V_g[π▷C] by at most d max|g| for a gain scaled to max|g| = 1),
:data:`ERROR_FACTOR` times over; a gap below it leaves the pair undecided here. Only a
failure is decided: a restriction that refines says nothing of the whole.

>>> import qifldp as q
>>> found = restriction_refutation(q.protocol("sue", 40, 1.0), q.protocol("hr", 40, 1.0))
>>> found.r, bool(found.counterexample.gap > found.error_bound)
(3, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ... import refinement
from ...channel import Channel
from ...errors import InputTypeError, ParameterError, QifldpError, SizeError
from ...refinement._certify import UNIT_ROUNDOFF
from ...refinement.result import Counterexample
from ...symmetric import SymmetricChannel
from ...symmetric.channel import restriction_rounding
from ...validation import check_indices, check_int, check_real

__all__ = [
    "ERROR_FACTOR",
    "RESTRICTION_SHARE",
    "RESTRICTION_MAX_WITNESS",
    "RESTRICTION_SIZES",
    "Restriction",
    "restricted_pair",
    "restriction_refutation",
]

#: The numbers of inputs tried, in order (each r with the first r inputs, then r inputs
#: spread evenly over 0..k-1 where those differ): the explicit problem of r inputs has at
#: most 2^r outputs on a symmetric side.
RESTRICTION_SIZES: tuple[int, ...] = (2, 3, 4, 6, 8, 12, 16)
#: A restriction whose explicit problem (outputs of A|S times outputs of B|S) exceeds
#: this is skipped: a unary encoding on 16 inputs has 2^16 lumped outputs, a GRR-type or
#: dBitFlipPM side r + 1 or 2 r + 2 (HR into dBitFlipPM at k = 10^4, eps = 0.5 is refuted
#: on 16 inputs, on none of 8).
RESTRICTION_MAX_WITNESS: int = 2**20
#: The share of a pair's time limit the restriction route may spend when a route that can
#: also prove a refinement follows it (the explicit LP); the atlas and the command line.
RESTRICTION_SHARE: float = 0.5
#: A gap is accepted when it exceeds this multiple of the bound on the restricted
#: channels' rounding (the rows' normalisation and the bound itself add at most a factor
#: of two).
ERROR_FACTOR: float = 4.0


@dataclass(frozen=True)
class Restriction:
    """A ⋢ B proved on the inputs ``inputs`` (a restriction of both channels).

    Attributes
    ----------
    r : int
        Number of inputs.
    inputs : tuple of int
        The inputs S; the counterexample's prior is supported on them (index i of the
        restricted channels is input ``inputs[i]``).
    counterexample : Counterexample
        On the restricted channels A|S, B|S, verified by :func:`qifldp.refines` there.
    error_bound : float
        The largest change of the gap that the restricted channels' rounding can cause
        (:data:`ERROR_FACTOR` times the bound); the gap proved exceeds it.
    a, b : Channel
        The restricted channels (explicit, r rows).
    """

    r: int
    inputs: tuple[int, ...]
    counterexample: Counterexample
    error_bound: float
    a: Channel
    b: Channel

    @property
    def certified_by(self) -> str:
        """One line: the inputs, the gap and the bound it exceeds."""
        ce = self.counterexample
        gap = float(ce.gap_exact) if ce.gap_exact is not None else ce.gap
        shown = list(self.inputs) if self.r <= 8 else f"{self.r} inputs"
        return (
            f"restriction to the inputs {shown}: a gain and a prior on them under which B "
            f"leaks more, gap {gap:.3g} (proved on the restricted channels, above their "
            f"rounding bound {self.error_bound:.2g})"
        )


def _inputs_tried(k: int, r: int) -> list[tuple[int, ...]]:
    first = tuple(range(r))
    spread = tuple(int(v) for v in np.unique(np.linspace(0, k - 1, r).round().astype(int)))
    return [first] if spread == first or len(spread) != r else [first, spread]


def _restrict(P: Any, S: SymmetricChannel | None, inputs: tuple[int, ...]) -> tuple[Channel, float]:
    """The explicit channel of P at ``inputs`` and the relative error bound of its entries."""
    r = len(inputs)
    if S is not None:  # any r inputs of a symmetric channel are alike
        R = S.restricted(r)
        logs = np.concatenate([R.log_a, R.log_b])
        worst = float(np.max(np.abs(logs[np.isfinite(logs)]), initial=0.0))
        d = restriction_rounding(S.sizes.size, r) + 8 * UNIT_ROUNDOFF * (1.0 + worst)
        C = R.expand(lumped=True)
        return Channel(C.matrix, inputs, C.outputs), d
    # the stored entries, each group of n equal columns as n c rounded once
    # (qifldp.reduction.merge_equal_columns): one rounding of relative error u
    return P.restricted(list(inputs)), 2 * UNIT_ROUNDOFF


def _symmetric_of(P: Any) -> SymmetricChannel | None:
    if isinstance(P, SymmetricChannel):
        return P
    if not getattr(P, "lumpable", False):
        return None
    try:
        S = P.symmetric()
    except QifldpError:
        return None
    return S if S.constant_ratio() else None


def restricted_pair(A: Any, B: Any, inputs: Sequence[int]) -> tuple[Channel, Channel, float]:
    """A and B restricted to ``inputs``, with the bound on the rounding of their entries.

    Parameters
    ----------
    A, B : protocol or SymmetricChannel
        A protocol of :func:`qifldp.protocol` (its symmetric channel where it has one
        with :meth:`~qifldp.symmetric.SymmetricChannel.constant_ratio`, else its
        ``restricted(inputs)`` rows) or a symmetric channel, over the same k.
    inputs : sequence of int
        Distinct inputs in 0..k-1 (at least 2).

    Returns
    -------
    (Channel, Channel, float)
        A|S, B|S (rows in the order of ``inputs``) and the sum of their relative error
        bounds.

    Raises
    ------
    InputTypeError
        A or B not a protocol or a symmetric channel; ``inputs`` not a sequence of
        integers.
    ParameterError
        Different domains; ``inputs`` with fewer than 2 items, an item twice or outside
        0..k-1.

    Examples
    --------
    >>> import qifldp as q
    >>> a, b, d = restricted_pair(q.protocol("grr", 100, 1.0), q.protocol("hr", 100, 1.0),
    ...                           [0, 1, 2])
    >>> a.shape, b.shape, d < 1e-7
    ((3, 4), (3, 4), True)
    """
    k = _domain(A)
    if _domain(B) != k:
        msg = f"A and B must have the same number of inputs, got {k} and {_domain(B)}"
        raise ParameterError(msg)
    S = tuple(check_indices("inputs", inputs, k))
    if len(S) < 2:
        msg = f"inputs must be at least 2 distinct inputs in 0..{k - 1}, got {list(S)!r}"
        raise ParameterError(msg)
    a, da = _restrict(A, _symmetric_of(A), S)
    b, db = _restrict(B, _symmetric_of(B), S)
    # a counterexample's gap is re-checked on the rows divided by their sums: a row sum
    # off 1 by s moves each entry by a relative s / (1 - s) more
    return a, b, da + db + _row_sum_error(a) + _row_sum_error(b)


def _row_sum_error(C: Channel) -> float:
    """max_x |Σ_y C[x, y] - 1| / (1 - that), the row sums by math.fsum (exact, then rounded)."""
    worst = max(abs(math.fsum(row) - 1.0) for row in C.matrix.tolist())
    return worst / (1.0 - worst) if worst < 1.0 else math.inf


def _domain(P: Any) -> int:
    k = getattr(P, "k", None)
    if not isinstance(k, int):
        msg = f"expected a protocol or a SymmetricChannel, got {type(P).__name__}"
        raise InputTypeError(msg)
    return k


def restriction_refutation(
    A: Any,
    B: Any,
    *,
    sizes: Sequence[int] = RESTRICTION_SIZES,
    time_limit: float = 30.0,
) -> Restriction | None:
    """A ⋢ B proved on a restriction to r inputs, or None when none of ``sizes`` finds one.

    For each r of ``sizes`` (up to k), the first r inputs and then r inputs spread over
    the domain: :func:`qifldp.refines` on the two restricted channels
    (:func:`restricted_pair`); its counterexample, verified there, is accepted when its
    gap exceeds :data:`ERROR_FACTOR` times the bound on the restricted channels'
    rounding. A restriction that refines, or a gap below the bound, moves on to the
    next; the time limit is shared by all (a spent limit ends the search: None).

    Parameters
    ----------
    A, B : protocol or SymmetricChannel
        As for :func:`restricted_pair`.
    sizes : sequence of int
        Numbers of inputs to try (each >= 2; those above k are skipped).
    time_limit : float
        Seconds for the whole search (> 0).

    Returns
    -------
    Restriction or None

    Raises
    ------
    InputTypeError
        ``sizes`` not a sequence of integers, ``time_limit`` not a real number.
    ParameterError
        Different domains, ``sizes`` with an entry below 2, ``time_limit`` <= 0.

    Examples
    --------
    >>> import qifldp as q
    >>> restriction_refutation(q.protocol("sue", 50, 1.0), q.protocol("dbitflip", 50, 1.0))
    """
    k = _domain(A)
    limit = check_real("time_limit", time_limit)
    if not limit > 0:
        msg = f"time_limit must be > 0 seconds, got {time_limit!r}"
        raise ParameterError(msg)
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable):
        msg = f"sizes must be a sequence of integers >= 2, got {type(sizes).__name__}"
        raise InputTypeError(msg)
    rs = [check_int(f"sizes[{i}]", r, minimum=2) for i, r in enumerate(sizes)]
    t_end = _now() + limit
    tried = False
    for r in rs:
        if r > k:
            continue
        for inputs in _inputs_tried(k, r):
            left = t_end - _now()
            if left <= 0:
                return None
            try:
                a, b, d = restricted_pair(A, B, inputs)
            except SizeError:  # past a size rule: so are larger r (the first one: say so)
                if not tried:
                    raise
                return None
            tried = True
            if a.shape[1] * b.shape[1] > RESTRICTION_MAX_WITNESS:
                break
            try:
                res = refinement.refines(a, b, time_limit=left)
            except (QifldpError, TimeoutError):
                continue
            ce = res.counterexample
            if res.holds or ce is None:
                continue
            bound = ERROR_FACTOR * d
            if _proved_gap(ce) > bound:  # exact: a Fraction compares with a float exactly
                return Restriction(r, inputs, ce, bound, a, b)
    return None


def _proved_gap(ce: Counterexample) -> Fraction | float:
    """The gap a counterexample proves, for its gain scaled to max |g| = 1 (the scale of
    the rounding bound): the exact gap, or the float gap less its error bound.

    An exact certificate's rational gain (``gain_exact``) is not scaled: its exact gap
    is divided by the gain's largest magnitude.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from qifldp.refinement.result import Counterexample
    >>> g = ((Fraction(4), Fraction(-2)), (Fraction(0), Fraction(1)))
    >>> ce = Counterexample(gain=np.array([[1.0, -0.5], [0.0, 0.25]]), prior=np.ones(2) / 2,
    ...                     gap=2e-9, gap_exact=Fraction(2, 10**9), gain_exact=g)
    >>> _proved_gap(ce)
    Fraction(1, 2000000000)
    """
    if ce.gap_exact is None:
        return ce.gap - ce.gap_bound
    gap = Fraction(ce.gap_exact)
    if ce.gain_exact is not None:
        top = max((abs(Fraction(v)) for row in ce.gain_exact for v in row), default=Fraction(0))
        if top > 0:
            gap /= top
    return gap


def _now() -> float:
    return time.perf_counter()
