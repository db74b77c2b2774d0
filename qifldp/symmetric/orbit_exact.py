"""Exact confirmation of orbit verdicts: the orbit equations solved exactly on a float
witness's support, the exact orbit LP (rational simplex) and its Farkas certificate, and
``exact=True``'s confirmation of a float verdict."""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..digits import scientific
from ..errors import (
    ChannelError,
    InputTypeError,
    SizeError,
    VerificationError,
)
from ..refinement.result import (
    Counterexample,
    RefinementResult,
)
from .channel import SymmetricChannel
from .gain import SymmetricGain
from .orbit_certify import (
    EXACT_MAX_GAP_TERMS,
    EXACT_ORBIT_MAX_VARIABLES,
    UNIT_ROUNDOFF as _U,
    ExactOrbitOutcome,
    OrbitTimeout,
    exact_gain_vulnerabilities,
    exact_gap,
    exact_orbit_lp,
    exact_support_witness,
    gap_with_bound,
    power_of_two_scale,
)
from .orbit_lp import (
    ORBIT_BAND_FACTOR,
    Clock,
    OrbitProblem,
    uniform_prior,
    witness_result,
)
from .orbit_witness import (
    OrbitWitness,
)

__all__ = [
    "AUGMENT_PER_EQUATION",
    "NO_EXACT",
    "check_exact",
    "run_exact_lp",
    "exact_support_result",
    "exact_orbit_result",
    "confirm_exact",
    "recheck_symmetric_gain",
    "rational_gain_certificate",
]


#: For each orbit equation the float witness misses beyond the rounding band, this many
#: of its largest-coefficient variables may enter the exact support solve.
AUGMENT_PER_EQUATION: int = 4


def _unmatched(P: OrbitProblem, u: np.ndarray) -> np.ndarray:
    """Variables that may enter the exact support solve: for every orbit equation the float
    witness ``u`` misses beyond the rounding band, its AUGMENT_PER_EQUATION variables of
    largest coefficient (the float LP leaves tiny classes of B unmatched)."""
    M = P.M.tocsr()
    r = np.abs(M @ u - P.rhs)
    scale = abs(M) @ u + np.abs(P.rhs)
    n_terms = np.diff(M.indptr)
    band = ORBIT_BAND_FACTOR * (n_terms + 2) * _U * scale
    out = []
    for e in np.flatnonzero(r > band):
        lo, hi = M.indptr[e], M.indptr[e + 1]
        cols, vals = M.indices[lo:hi], np.abs(M.data[lo:hi])
        if cols.size:
            top = np.argsort(-vals, kind="stable")[:AUGMENT_PER_EQUATION]
            out.append(cols[top])
    return np.unique(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


def exact_support_result(P: OrbitProblem, v: np.ndarray, t0: float, details: dict):
    """(result, why): "holds" when the orbit equations solve exactly near the witness ``v``."""
    ue, why = exact_support_witness(P.A, P.B, P.variables, P.b_rows, v, _unmatched(P, v))
    if ue is None:
        return None, why
    _, _, resid, row_err, _ = P.check(ue)
    res = witness_result(
        P,
        ue,
        resid,
        row_err,
        why,
        t0,
        method="symmetric: orbit LP (HiGHS) + exact",
        exact=True,
        details=details,
    )
    return res, why


NO_EXACT = "exact checks skipped (exact=False)"


def check_exact(exact: Any) -> bool | None:
    if exact is not None and not isinstance(exact, (bool, np.bool_)):
        msg = f"exact must be None, True or False, got {exact!r}"
        raise InputTypeError(msg)
    return None if exact is None else bool(exact)


def run_exact_lp(
    P: OrbitProblem, hint: np.ndarray | None, clock: Clock, why_float: str | None = None
) -> ExactOrbitOutcome:
    """The exact orbit LP of the stored problem (SizeError beyond its budget).

    ``why_float``: set when the LP runs because the float route found no certificate
    (exact=None), so the refusal says that instead of suggesting exact=None."""
    if P.n_var > EXACT_ORBIT_MAX_VARIABLES:
        size = (
            f"the exact orbit LP for k = {P.A.k} has {P.n_var} orbit variables, more than "
            f"EXACT_ORBIT_MAX_VARIABLES = {EXACT_ORBIT_MAX_VARIABLES}"
        )
        if why_float is None:
            msg = f"{size}; decide with exact=None (float certificates), or a smaller k"
        else:
            msg = f"{why_float}; and {size}: no verdict (try a smaller k)"
        raise SizeError(msg)
    clock.check("the exact orbit LP")
    deadline = clock.deadline
    try:
        return exact_orbit_lp(P.A, P.B, P.variables, P.b_rows, hint=hint, deadline=deadline)
    except OrbitTimeout:
        clock.expire("the exact orbit LP (rational simplex)")
        raise  # pragma: no cover - expire raises


def _exact_how(out: ExactOrbitOutcome) -> str:
    return (
        f"exact orbit LP: rational phase-1 simplex on the stored class masses (read as "
        f"rationals, normalised by their exact sums), {out.n_equations} equations x "
        f"{out.n_variables} orbit variables, {out.pivots} pivots ({out.crash} of them "
        "warm-started from the float witness's support)"
    )


def _farkas_gain_exact(P: OrbitProblem, y: list) -> tuple[list, list, Fraction] | None:
    """The exact Farkas certificate's B-row duals as a rational gain (g_in, g_out) per
    action size of B, scaled by a power of 2 (the third value) so that max |g| is in
    (1/2, 1]; None if they are all 0."""
    nS = P.nS
    yB = [Fraction(int(v.numerator), int(v.denominator)) for v in y[nS:]]
    top = max((abs(v) for v in yB), default=Fraction(0))
    if top == 0:
        return None
    scale = power_of_two_scale(top)
    row_in, row_out = P.b_rows
    g_in = [yB[r - nS] * scale if r >= 0 else Fraction(0) for r in row_in.tolist()]
    g_out = [yB[r - nS] * scale if r >= 0 else Fraction(0) for r in row_out.tolist()]
    return g_in, g_out, scale


def _farkas_gain(P: OrbitProblem, y: list) -> SymmetricGain | None:
    """The exact Farkas certificate's B-row duals as a float gain (max |g| in (1/2, 1])."""
    gq = _farkas_gain_exact(P, y)
    if gq is None:
        return None
    g_in, g_out = ([float(v) for v in g] for g in gq[:2])
    return SymmetricGain(P.B.k, P.B.sizes.tolist(), g_in, g_out)


def recheck_symmetric_gain(gain: SymmetricGain, ce: Counterexample, A: Any, B: Any) -> Fraction:
    """:meth:`Counterexample.recheck` for a symmetric gain: its exact gap on A, B.

    The gain is ``ce.gain_exact`` = (g_in, g_out) when set, else the stored floats of
    ``gain``; the prior is uniform. Every output class of both channels, every action
    size and both extreme overlaps are evaluated in rationals on the stored class
    masses (read as rationals, divided by their exact sums).

    Raises
    ------
    InputTypeError
        A or B not a SymmetricChannel.
    SizeError
        More than EXACT_MAX_GAP_TERMS terms.
    ChannelError
        A, B and the gain not over the same k, or a prior that is not uniform.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> A, B = sym.grr(4, 1.0), sym.grr(4, 2.0)
    >>> q.refines(A, B).counterexample.recheck(A, B) > 0
    True
    """
    for name, C in (("A", A), ("B", B)):
        if not isinstance(C, SymmetricChannel):
            msg = (
                f"{name} must be a SymmetricChannel to recheck a symmetric gain, got "
                f"{type(C).__name__}"
            )
            raise InputTypeError(msg)
        if C.k != gain.k:
            msg = f"{name} must have the gain's k = {gain.k} inputs, got k = {C.k}"
            raise ChannelError(msg)
    if ce.kind != "average":
        msg = f"a symmetric gain's counterexample is an average-case one, got {ce.kind!r}"
        raise ChannelError(msg)
    prior = np.asarray(ce.prior, dtype=np.float64)
    if prior.shape != (gain.k,) or np.any(prior != prior[0]):
        msg = "a symmetric gain's counterexample is under the uniform prior; its prior is not"
        raise ChannelError(msg)
    g_in, g_out = ce.gain_exact if ce.gain_exact is not None else (gain.g_in, gain.g_out)
    vs = exact_gain_vulnerabilities(A, B, gain.sizes, list(g_in), list(g_out))
    if vs is None:
        n = 2 * (A.sizes.size + B.sizes.size) * gain.sizes.size
        msg = (
            f"recheck of this symmetric gain takes {n} rational terms, more than "
            f"EXACT_MAX_GAP_TERMS = {EXACT_MAX_GAP_TERMS}"
        )
        raise SizeError(msg)
    return vs[1] - vs[0]


def exact_orbit_result(
    P: OrbitProblem, hint: np.ndarray | None, clock: Clock, details: dict, why_float: str
) -> RefinementResult:
    """The verdict of the exact orbit LP when the float route has no certificate either way."""
    out = run_exact_lp(P, hint, clock, why_float)
    details = dict(details, exact_pivots=out.pivots, exact_crash_pivots=out.crash)
    how = _exact_how(out)
    if out.holds:
        return _exact_holds(P, out, clock, details, f"{why_float}; {how}")
    return _exact_fails(P, out, clock, details, f"{why_float}; {how}")


def _exact_holds(
    P: OrbitProblem, out: ExactOrbitOutcome, clock: Clock, details: dict, how: str
) -> RefinementResult:
    assert out.u is not None
    uq = [Fraction(int(v.numerator), int(v.denominator)) for v in out.u]
    ue = np.array([float(v) for v in uq])
    s, t, j = P.variables[2:]
    details = dict(
        details,
        exact_orbit_masses={
            (int(s[i]), int(t[i]), int(j[i])): uq[i] for i in range(len(uq)) if uq[i] != 0
        },
    )
    _, _, resid, row_err, _ = P.check(ue)
    return witness_result(
        P,
        ue,
        resid,
        row_err,
        f"proved exactly: {how}; every orbit equation holds exactly and every entry is >= 0 "
        "(exact for the stored floats read as rationals)",
        clock.t0,
        method="symmetric: exact orbit LP",
        exact=True,
        details=details,
    )


def _exact_fails(
    P: OrbitProblem, out: ExactOrbitOutcome, clock: Clock, details: dict, how: str
) -> RefinementResult:
    """A ⋢ B proved by the exact Farkas certificate; the counterexample is its float gain,
    or the rational gain itself when the float gain loses the gap (:func:`_exact_certificate`)."""
    assert out.y is not None
    fv = Fraction(int(out.farkas_value.numerator), int(out.farkas_value.denominator))
    G = _farkas_gain(P, out.y)
    gq = None
    if G is not None:
        ev = gap_with_bound(P.A, P.B, G)
        gq = exact_gap(P.A, P.B, G, ev)
    if G is None or gq is None or not gq > 0:
        lost = (
            f"the stored floats fail exactly ({how}; Farkas certificate y with y·M <= 0 and "
            f"y·rhs = {scientific(fv, 4)} > 0, checked exactly), but rounding the Farkas gain "
            f"to floats loses its gap (exact gap of the float gain "
            f"{'n/a' if gq is None else scientific(gq, 3)})"
        )
        res, why = _exact_certificate(P, out, fv, lost, clock, details)
        if res is not None:
            return res
        raise VerificationError(f"{lost}; {why}; no float counterexample can be stated")
    ce = Counterexample(
        G,
        uniform_prior(P.A.k),
        ev.gap if ev.gap > 0 else float(gq),
        gap_exact=gq,
        gap_bound=ev.bound,
        vulnerability_a=ev.va,
        vulnerability_b=ev.vb,
    )
    return RefinementResult(
        False,
        counterexample=ce,
        method="symmetric: exact orbit LP",
        exact=True,
        certified_by=(
            f"proved exactly: {how}; its Farkas certificate (y·M <= 0 column by column, "
            f"y·rhs = {float(fv):.3e} > 0, checked exactly) as a symmetric gain has exact gap "
            f"{scientific(gq, 4)} > 0 on the stored class masses (exact for the stored floats "
            "read as rationals)"
        ),
        time=time.perf_counter() - clock.t0,
        details=details,
    )


def _exact_certificate(
    P: OrbitProblem, out: ExactOrbitOutcome, fv: Fraction, lost: str, clock: Clock, details: dict
) -> tuple[RefinementResult | None, str]:
    """(result, why): "fails" with the rational Farkas gain as the certificate.

    The Farkas certificate y (y·M <= 0, y·rhs > 0) refutes the stored orbit LP, but
    its gain rounded to floats has no positive gap (the pair fails by less than a
    float gain resolves). The counterexample then carries the rational gain
    g = c·y_B (``gain_exact`` = (g_in, g_out) per action size of B, c the power of 2
    that puts max |g| in (1/2, 1]), its float image as ``gain`` and its exact gap
    V_g[υ▷B] − V_g[υ▷A] computed in rationals over every output class, action size
    and extreme overlap of the stored class masses
    (:func:`~qifldp.symmetric.orbit_certify.exact_gain_vulnerabilities`). By LP
    duality that gap is at least c·y·rhs > 0 (on B, the action T = S of each class
    S gains its y_B-value; on A, y·M <= 0 bounds every term of a class by −y_A); the
    exact value is what is checked (> 0, and >= c·y·rhs) before returning. None with
    the reason when the gap is more than EXACT_MAX_GAP_TERMS terms.
    """
    assert out.y is not None
    gains = _farkas_gain_exact(P, out.y)
    if gains is None:  # pragma: no cover - y·M <= 0 with y_B = 0 forces y·rhs <= 0
        return None, "the Farkas certificate has no B-row duals"
    g_in, g_out, scale = gains
    return rational_gain_certificate(
        P.A, P.B, P.B.sizes.tolist(), g_in, g_out, scale * fv, lost, clock.t0, details
    )


def rational_gain_certificate(
    A: SymmetricChannel,
    B: SymmetricChannel,
    sizes: list[int],
    g_in: list,
    g_out: list,
    bound: Fraction,
    lost: str,
    t0: float,
    details: dict,
    method: str = "symmetric: exact orbit LP",
) -> tuple[RefinementResult | None, str]:
    """(result, why): "fails" with a rational symmetric gain as the certificate.

    The gain (actions of the given ``sizes``, values ``g_in``/``g_out``) comes from an
    exact Farkas certificate y of the stored orbit LP, scaled by a power of 2, whose
    scaled y·rhs is ``bound`` (> 0): its exact gap V_g[υ▷B] − V_g[υ▷A], computed in
    rationals over every output class, action size and extreme overlap
    (:func:`~qifldp.symmetric.orbit_certify.exact_gain_vulnerabilities`), is checked
    > 0 and >= ``bound`` before it is returned. None with the reason when the gap is
    more than EXACT_MAX_GAP_TERMS terms.
    """
    vs = exact_gain_vulnerabilities(A, B, sizes, g_in, g_out)
    if vs is None:
        n = 2 * (A.sizes.size + B.sizes.size) * len(sizes)
        return None, (
            f"the rational Farkas gain's exact gap takes {n} rational terms, more than "
            f"EXACT_MAX_GAP_TERMS = {EXACT_MAX_GAP_TERMS}"
        )
    va, vb = vs
    gap = vb - va
    if not (gap > 0 and gap >= bound):  # pragma: no cover - LP duality: a defect, never a verdict
        msg = (
            f"the rational Farkas gain failed its exact re-check (gap {gap}, y·rhs bound "
            f"{bound}); no verdict"
        )
        raise VerificationError(msg)
    G = SymmetricGain(B.k, sizes, [float(v) for v in g_in], [float(v) for v in g_out])
    ce = Counterexample(
        G,
        uniform_prior(A.k),
        float(gap),
        gap_exact=gap,
        gap_bound=0.0,
        vulnerability_a=float(va),
        vulnerability_b=float(vb),
        gain_exact=(tuple(g_in), tuple(g_out)),
    )
    text = (
        f"exact certificate: {lost}; the rational Farkas gain (Counterexample.gain_exact: "
        f"g_in, g_out per action size) has exact gap {scientific(gap, 4)} > 0, computed "
        "over every output class, action size and extreme overlap of the stored class "
        "masses (read as rationals, normalised by their exact sums) and re-checked; no "
        "float counterexample can be stated at this precision"
    )
    res = RefinementResult(
        False,
        counterexample=ce,
        method=method,
        exact=True,
        certified_by=text,
        time=time.perf_counter() - t0,
        details=dict(details, exact_certificate=True),
    )
    return res, ""


def confirm_exact(
    A: SymmetricChannel, B: SymmetricChannel, r: RefinementResult, clock: Clock
) -> RefinementResult:
    """exact=True: confirm a float-certified verdict by the exact orbit LP of the stored problem."""
    P = OrbitProblem(A, B)
    clock.n_var = P.n_var
    hint = None
    W = r.witness
    if isinstance(W, OrbitWitness):
        idx = {key: i for i, key in enumerate(zip(*P.variables[2:], strict=True))}
        hint = np.zeros(P.n_var)
        for sv, tv, jv, m in zip(W.s.tolist(), W.t.tolist(), W.j.tolist(), W.mass, strict=True):
            i = idx.get((sv, tv, jv))
            if i is not None:
                hint[i] += m
    out = run_exact_lp(P, hint, clock)
    details = dict(r.details, exact_pivots=out.pivots, exact_crash_pivots=out.crash)
    how = _exact_how(out)
    if r.about == "protocols" and not out.holds:  # the tight-ratio reduction's verdict stands
        fv = Fraction(int(out.farkas_value.numerator), int(out.farkas_value.denominator))
        return replace(
            r,
            certified_by=(
                f"{r.certified_by}; the stored floats themselves fail exactly ({how}: Farkas "
                f"certificate with y·rhs = {float(fv):.3e} > 0): they break the ratio identity "
                "at the last bit"
            ),
            time=time.perf_counter() - clock.t0,
            details=details,
        )
    if out.holds:
        if r.holds:
            return _exact_holds(P, out, clock, details, f"{how} (confirming: {r.certified_by})")
        msg = (  # pragma: no cover - a float counterexample is rigorous: never contradicted
            f"the float counterexample ({r.certified_by}) contradicts the exact witness ({how})"
        )
        raise VerificationError(msg)
    fv = Fraction(int(out.farkas_value.numerator), int(out.farkas_value.denominator))
    if r.holds:  # a band witness, but the stored floats fail exactly: up to rounding
        return replace(
            r,
            up_to_rounding=True,
            about="rounding",
            certified_by=(
                f"{r.certified_by}; the stored floats fail exactly ({how}: Farkas certificate "
                f"with y·rhs = {float(fv):.3e} > 0), by less than the rounding band"
            ),
            time=time.perf_counter() - clock.t0,
            details=details,
        )
    ce = r.counterexample
    assert ce is not None and isinstance(ce.gain, SymmetricGain)
    gq = exact_gap(A, B, ce.gain, gap_with_bound(A, B, ce.gain))
    if gq is not None and gq > 0:
        return replace(
            r,
            counterexample=replace(ce, gap_exact=gq),
            exact=True,
            certified_by=(
                f"{r.certified_by}; confirmed exactly: the gain's exact gap is "
                f"{scientific(gq, 4)} > 0 and {how} ends with a Farkas certificate "
                f"(y·rhs = {float(fv):.3e} > 0)"
            ),
            time=time.perf_counter() - clock.t0,
            details=details,
        )
    return _exact_fails(P, out, clock, details, f"{how} (the float gain: {r.certified_by})")
