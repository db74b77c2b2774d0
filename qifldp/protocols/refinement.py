"""Refinement between protocol objects: at the rounding boundary, decided on the protocols.

Layer L5 (protocols): registers :class:`Protocol` on :func:`qifldp.refines` (the pair
dispatcher of :mod:`qifldp.dispatch` picks it when either argument is a protocol).

Two :class:`qifldp.protocols.Protocol` objects know their parameters exactly
(eps, p, q, theta as exact numbers, every entry a closed form in e^eps). Their
refinement is first decided on their float channels like any other pair; when
that verdict is only "up to rounding" (the stored floats straddle the boundary),
the channels are rebuilt from the symbolic twin at
:data:`HIGH_PRECISION_DIGITS` significant digits and decided in exact rational
arithmetic. The verdict is then about the protocols (``about="protocols"``),
exact up to rounding at 10^-HIGH_PRECISION_DIGITS instead of 10^-16.

One-hot pairs at the same eps (SUE and OUE) are first decided by the tight-ratio
reduction for the real channels (:func:`qifldp.protocols.tight_ratio.tight_ratio_refines`:
the equal-ratio premise proved with sympy on the symbolic twin, the weights
enclosed with arb), at any k; only when an enclosure contains 1 do they take the
route above.
"""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import budget, expired, left, spent, until
from ..digits import scientific
from ..errors import InputTypeError, SizeError, UnsupportedKindError
from ..refinement import exact as ex
from ..refinement._certify import gain_from_weighted
from ..refinement._prep import normalise_rows, reduce_columns
from ..refinement.core import max_case_refines, refinement_options, refines
from ..refinement.result import Counterexample, RefinementResult, undecided_result
from ..symmetric.orbit_lp import check_time_limit
from .base import Protocol
from .structure import channel_free_decision, restriction_refutation
from .tight_ratio import tight_ratio_refines

__all__ = [
    "HIGH_PRECISION_DIGITS",
    "MAX_HIGH_PRECISION_ENTRIES",
    "refines_protocols",
    "refines_protocol_pair",
    "max_case_refines_protocol_pair",
]

#: Significant digits of the channels rebuilt from the symbolic twin at the boundary.
HIGH_PRECISION_DIGITS: int = 60

#: Largest channel (entries) rebuilt at high precision (sympy evaluates each entry).
MAX_HIGH_PRECISION_ENTRIES: int = 20_000

#: A separating gap at high precision counts as real (not rounding at
#: HIGH_PRECISION_DIGITS) when it exceeds 10^-(HIGH_PRECISION_DIGITS - 15).
_REAL_GAP_DIGITS: int = HIGH_PRECISION_DIGITS - 15


def _rows(P: Any, M: np.ndarray, digits: int) -> list[list[Fraction]]:
    """The protocol's channel at ``digits`` digits as exact rationals, rows normalised exactly,
    columns merged within the groups of proportional columns of the float matrix M."""
    import sympy as sp

    S = P.symbolic().matrix
    out = []
    for i in range(S.rows):
        if spent():  # the decision's deadline (qifldp.deadline), checked row by row
            msg = f"the time limit ran out while rebuilding {P!r} at {digits} digits"
            raise ex.ExactTooLarge(msg)
        row = [
            Fraction(str(sp.N(S[i, j], digits))) if S[i, j] != 0 else Fraction(0)
            for j in range(S.cols)
        ]
        total = sum(row)
        out.append([v / total for v in row])
    groups = reduce_columns(normalise_rows(M)).groups
    return [[sum((row[y] for y in g), Fraction(0)) for g in groups] for row in out]


#: Seconds of a decision's time limit the restriction route may take (where no channel
#: can be built and the routes that need none did not decide).
RESTRICTION_SECONDS: float = 30.0


def refines_protocols(A: Any, B: Any, **options: Any) -> RefinementResult:
    """A ⊑ B for two protocol objects (see the module docstring).

    Parameters
    ----------
    A, B : qifldp.protocols.Protocol
    **options
        Passed on to :func:`qifldp.refines` for the float channels.

    Returns
    -------
    RefinementResult
        The channels' verdict, or at the rounding boundary the protocols' verdict
        (``about="protocols"``; ``up_to_rounding`` stays True only when even the
        high-precision channels differ by no more than their rounding).

    Examples
    --------
    >>> import qifldp as q
    >>> r = q.refines(q.protocol("olh", 2, 2.0), q.protocol("oue", 2, 2.0), exact=True)
    >>> r.holds, r.up_to_rounding, r.about
    (True, False, 'protocols')
    >>> r = q.refines(q.protocol("sue", 50, 9.0), q.protocol("oue", 50, 9.0))
    >>> r.holds, r.exact, r.about, r.method
    (True, True, 'protocols', 'symmetric: tight-ratio reduction (exact)')
    """
    limit = check_time_limit(options.get("time_limit", 120.0))
    with budget(limit):  # one deadline for every route below (qifldp.deadline)
        return _refines_protocols(A, B, options)


def _refines_protocols(A: Any, B: Any, options: dict[str, Any]) -> RefinementResult:
    t0 = time.perf_counter()
    limit = check_time_limit(options.get("time_limit", 120.0))
    if (
        options.get("prior") is None
        and options.get("method", "auto") == "auto"
        and options.get("exact") is not False
    ):
        tight = tight_ratio_refines(A, B, time_limit=options.get("time_limit", 120.0))
        if tight is not None:
            return tight
    if spent():  # the limit ran out in the reduction: no channel is built
        exc = expired(
            f"the time limit (time_limit = {limit:g} s) ran out in the tight-ratio "
            "reduction, before the channels were built: no verdict; raise time_limit",
            ["tight-ratio reduction"],
        )
        if options.get("strict"):
            raise exc
        return undecided_result(exc, "refinement", time.perf_counter() - t0)
    try:
        CA, CB = A.channel(), B.channel()
    except SizeError as exc:  # too large to enumerate: the symmetric route (no high-precision step)
        if not (A.lumpable and B.lumpable):
            return _without_channels(A, B, exc, options, t0)
        opts = {k: v for k, v in options.items() if k in ("time_limit", "strict")}
        return refines(A.symmetric(), B.symmetric(), **opts)
    r = refines(CA, CB, **options)
    if not r.up_to_rounding:
        return r
    if CA.matrix.size + CB.matrix.size > MAX_HIGH_PRECISION_ENTRIES:
        return replace(
            r,
            certified_by=r.certified_by
            + f"; the protocols were not rebuilt at high precision (more than "
            f"MAX_HIGH_PRECISION_ENTRIES = {MAX_HIGH_PRECISION_ENTRIES} entries)",
        )
    digits = HIGH_PRECISION_DIGITS
    try:
        Aq, Bq = _rows(A, CA.matrix, digits), _rows(B, CB.matrix, digits)
        out = ex.exact_decide(Aq, Bq, True, deadline=until(limit))
    except (ex.ExactTooLarge, SizeError) as exc:
        return replace(r, certified_by=r.certified_by + f"; high precision not decided: {exc}")
    where = (
        f"on the protocols: {A!r} and {B!r} rebuilt from their symbolic channels at {digits} "
        "significant digits, decided in exact rationals"
    )
    if out.holds:
        assert out.W is not None and ex.check_exact_witness(Aq, Bq, out.W)
        return replace(
            r,
            up_to_rounding=False,
            about="protocols",
            exact=True,
            certified_by=f"holds {where} ({out.how}); the float witness: {r.certified_by}",
            time=time.perf_counter() - t0,
        )
    assert out.H is not None  # an exact "fails" carries its Farkas gain
    n = len(Aq)
    gap = ex.exact_weighted_gap(Aq, Bq, out.H, True, [Fraction(1, n)] * n)
    top = max(abs(v) for row in out.H for v in row) * n
    gap = gap / top if top else gap
    if gap > Fraction(1, 10**_REAL_GAP_DIGITS):
        # the protocols fail beyond high-precision rounding: a counterexample for them
        prior = np.full(n, 1.0 / n)
        g = gain_from_weighted(np.array([[float(v) for v in row] for row in out.H]), prior)
        gq = ex.exact_gap(Aq, Bq, g, prior)
        if gq > 0:
            ce = Counterexample(gain=g, prior=prior, gap=float(gq), gap_exact=gq)
            return RefinementResult(
                holds=False,
                counterexample=ce,
                method="exact",
                exact=True,
                certified_by=(
                    f"fails {where} ({out.how}): exact gap {scientific(gq, 3)} of the float gain, "
                    f"beyond {digits}-digit rounding (the float channels: {r.certified_by})"
                ),
                time=time.perf_counter() - t0,
                about="protocols",
                channels=r.channels,
            )
        return replace(r, certified_by=r.certified_by + f"; {where}: undecided")
    return replace(
        r,
        about="protocols",
        certified_by=(
            f"{r.certified_by}; {where}: they fail only by {float(gap):.2g}, the size of "
            f"{digits}-digit rounding, so the protocols are on the refinement boundary "
            f"(equal up to rounding at 1e-{digits - 5})"
        ),
        time=time.perf_counter() - t0,
    )


def _without_channels(
    A: Protocol, B: Protocol, why: SizeError, options: dict[str, Any], t0: float
) -> RefinementResult:
    """A ⊑ B where the explicit channels are too large and a side has no symmetric channel:
    from the protocols' structure (:func:`~qifldp.protocols.structure.channel_free_decision`),
    then on a few inputs (:func:`~qifldp.protocols.structure.restriction_refutation`, its
    counterexample lifted to all k inputs: zero gain and prior elsewhere); otherwise
    undecided (or, ``strict``, an UnsupportedKindError) saying what was tried."""
    found = channel_free_decision(A, B)
    if found is not None:
        return RefinementResult(
            holds=found.holds,
            counterexample=found.counterexample,
            method=found.route,
            exact=True,
            certified_by=found.certified_by,
            time=time.perf_counter() - t0,
            details={"route": "without channels", "values": found.values},
        )
    spare = left()
    seconds = RESTRICTION_SECONDS if spare is None else min(RESTRICTION_SECONDS, spare)
    refuted = restriction_refutation(A, B, time_limit=seconds) if seconds > 0 else None
    if refuted is not None:
        ce, k, idx = refuted.counterexample, A.k, list(refuted.inputs)
        gain = np.zeros((np.shape(ce.gain)[0], k))
        gain[:, idx] = ce.gain
        prior = np.zeros(k)
        prior[idx] = ce.prior
        return RefinementResult(
            holds=False,
            counterexample=replace(ce, gain=gain, prior=prior),
            method="restriction",
            exact=ce.gap_exact is not None,
            certified_by=refuted.certified_by,
            time=time.perf_counter() - t0,
            details={"route": "without channels", "inputs": refuted.inputs},
        )
    msg = (
        f"{A!r} and {B!r}: the explicit channels are too large to enumerate ({why}), one "
        "has no symmetric channel, and neither the routes that need no channel "
        "(qifldp.protocols.structure.channel_free_decision) nor a restriction to a few "
        "inputs (restriction_refutation) decides them"
    )
    merged = [P.name for P in (A, B) if callable(getattr(P, "merged_channel", None))]
    if merged:
        msg += (
            f"; {' and '.join(merged)} offer merged_channel() (equal columns merged), and a "
            "symmetric channel .expand(lumped=True): q.refines on those explicit channels"
        )
    exc = UnsupportedKindError(msg)
    if options.get("strict"):
        raise exc
    return undecided_result(exc, "refinement", time.perf_counter() - t0)


def mixed_protocol_error() -> InputTypeError:
    """The error for a protocol object paired with a channel."""
    msg = (
        "A and B must both be protocol objects (qifldp.protocol) or both channels; "
        "use .channel() or .symmetric() on the protocol"
    )
    return InputTypeError(msg)


def refines_protocol_pair(A: Any, B: Any, prior: Any = None, **options: Any) -> Any:
    """:func:`qifldp.refines` when A or B is a protocol object: both must be.

    Registered for :class:`Protocol` on the pair dispatcher of :func:`qifldp.refines`;
    a protocol with a channel (either order) is refused.

    Examples
    --------
    >>> import qifldp as q
    >>> r = q.refines(q.protocol("grr", 4, 2.0), q.protocol("grr", 4, 1.0))
    >>> r.holds, r.about
    (True, 'channels')
    """
    opts = refinement_options("refines", options)
    if not (isinstance(A, Protocol) and isinstance(B, Protocol)):
        raise mixed_protocol_error()
    return refines_protocols(A, B, prior=prior, **opts)


def max_case_refines_protocol_pair(A: Any, B: Any, prior: Any = None, **options: Any) -> Any:
    """:func:`qifldp.max_case_refines` when A or B is a protocol object.

    A protocol with a channel (either order) is refused as by :func:`qifldp.refines`;
    two protocol objects are decided on their channels (``.channel()``; the symmetric
    channels when the explicit ones are too large to enumerate).

    Examples
    --------
    >>> import qifldp as q
    >>> q.max_case_refines(q.protocol("grr", 3, 2.0), q.protocol("grr", 3, 1.0)).holds
    True
    >>> q.max_case_refines(q.protocol("grr", 3, 1.0), q.grr(3, 1.0))
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: A and B must both be protocol objects ...
    """
    if not (isinstance(A, Protocol) and isinstance(B, Protocol)):
        raise mixed_protocol_error()
    try:
        CA, CB = A.channel(), B.channel()
    except SizeError:  # too large to enumerate: the symmetric route
        opts = {k: v for k, v in options.items() if k in ("time_limit", "strict")}
        return max_case_refines(A.symmetric(), B.symmetric(), **opts)
    return max_case_refines(CA, CB, prior, **options)
