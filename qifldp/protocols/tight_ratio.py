"""The tight-ratio reduction decided for the real protocols: sympy premise, arb weights.

Layer L5 (protocols): uses the symmetric engines of :mod:`qifldp.symmetric` (the
reduction's plan and witness on class masses) and the protocols' symbolic twins.

For one-hot protocols at the same eps (SUE and OUE), every inner class of both
channels has likelihood ratio e^eps exactly, and A ⊑ B reduces to one comparison
per size s of A: used_s = Σ_t P^B_in(t) / P^A_in(s) <= 1 (the reduction of
:func:`qifldp.symmetric.tight_ratio.tight_ratio_plan`, an iff). The float route
bounds used_s from the stored class masses under the *premise* that the real
ratios are exactly e^eps. Here both steps are proved for the real channels:

1. the premise, as an identity of the closed forms: the bit channel of the
   protocol's symbolic twin (the marginals of ``protocol(name, 2, eps).symbolic()``)
   gives a_s = p q^(s-1) (1-q)^(k-s) and b_s = (1-p) q^s (1-q)^(k-1-s), and sympy
   simplifies a_s / b_s − e^eps to 0 for every inner s, with eps a positive symbol (the
   powers cancel to p (1-q) / ((1-p) q) for every s and k: one identity per family);
2. every used_s enclosed by interval arithmetic (python-flint ``arb``, at
   :data:`ARB_PRECISION_BITS` bits) from those closed forms at the protocol's exact
   eps (the symbolic twin's reading of the float: its shortest decimal, 9.0 -> 9).

An upper bound below 1 for every s proves A ⊑ B; a lower bound above 1 for some s
proves A ⋢ B. :func:`sue_oue_boundary` locates the eps where SUE ⊑ OUE begins.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from fractions import Fraction
from functools import cache
from typing import Any

from ..deadline import spent
from ..errors import InputTypeError, ParameterError, SolverError, VerificationError
from ..refinement.result import RefinementResult
from ..symmetric.orbit_lp import (
    MAX_ORBIT_VARIABLES,
    OrbitProblem,
    check_time_limit,
    witness_result,
)
from ..symmetric.refinement import refines as symmetric_refines
from ..symmetric.tight_ratio import tight_ratio_plan, tight_ratio_verdict, tight_ratio_witness
from ..validation import check_int, check_real
from .base import Protocol
from .ue import UE

__all__ = [
    "ARB_PRECISION_BITS",
    "TIGHT_RATIO_PROTOCOLS",
    "BOUNDARY_MAX_K",
    "tight_ratio_refines",
    "sue_oue_boundary",
]

#: Working precision (bits) of the arb enclosures of the class masses and weights.
ARB_PRECISION_BITS: int = 200
#: Protocols whose channels are one-hot of a bit channel with every inner class at
#: ratio e^eps (checked, not assumed): the pairs the exact reduction decides.
TIGHT_RATIO_PROTOCOLS: tuple[str, ...] = ("sue", "oue")
#: Largest k for :func:`sue_oue_boundary` (each bisection step is O(k) arb operations).
BOUNDARY_MAX_K: int = 10_000


def _eps_symbol() -> Any:
    import sympy as sp

    return sp.Symbol("eps", positive=True)


@cache
def _bits(name: str) -> tuple[Any, Any, Any, Any]:
    """(p, 1-p, q, 1-q) of a one-hot protocol in the positive symbol eps, from its symbolic
    twin at k = 2: row 0 of one_hot(B, 2) is B[1, y0] B[0, y1], whose marginals are B's rows.
    Built once per family and process (sympy expressions are immutable)."""
    import sympy as sp

    C = UE(2, 1.0, variant=name).symbolic(eps=_eps_symbol())
    M, outs = C.matrix, C.outputs

    def marginal(coord: int, v: int) -> Any:
        return sp.simplify(sum(M[0, c] for c, y in enumerate(outs) if y[coord] == v))

    b1 = (marginal(0, 0), marginal(0, 1))  # B[1, 0], B[1, 1]
    b0 = (marginal(1, 0), marginal(1, 1))  # B[0, 0], B[0, 1]
    for c, y in enumerate(outs):  # the twin is the product of its marginals
        if sp.simplify(M[0, c] - b1[y[0]] * b0[y[1]]) != 0:  # pragma: no cover - by one_hot
            msg = f"the symbolic twin of {name!r} is not one-hot of a bit channel"
            raise VerificationError(msg)
    return b1[1], b1[0], b0[1], b0[0]


@cache
def _premise(name: str) -> tuple[Any, Any, Any, Any]:
    """The bits of ``name``, after proving a_s / b_s = e^eps for every k and inner size s.

    a_s / b_s = p q^(s-1) (1-q)^(k-s) / ((1-p) q^s (1-q)^(k-1-s)) = p (1-q) / ((1-p) q)
    for every 0 < s < k and every k (the powers of q and 1 - q cancel to one each), so the
    premise of the whole family is the one identity p (1-q) / ((1-p) q) = e^eps, proved
    with sympy once per family and process instead of once per k (it was O(k) sympy
    expressions: seconds at k = 1000).
    """
    import sympy as sp

    eps = _eps_symbol()
    p, omp, q, omq = _bits(name)
    ratio = (p * omq) / (omp * q)
    if sp.simplify(ratio - sp.exp(eps)) != 0:
        msg = f"{name}: a_s / b_s = {ratio} is not e^eps identically"
        raise VerificationError(msg)
    return p, omp, q, omq


def _to_arb(e: Any, env: dict) -> Any:
    """A sympy expression in rationals, env's symbols, +, *, integer powers and exp, in arb."""
    import sympy as sp
    from flint import arb

    if e in env:
        return env[e]
    if e.is_Rational:
        return arb(int(e.p)) / int(e.q)
    if isinstance(e, sp.Add):
        out = arb(0)
        for a in e.args:
            out += _to_arb(a, env)
        return out
    if isinstance(e, sp.Mul):
        out = arb(1)
        for a in e.args:
            out *= _to_arb(a, env)
        return out
    if isinstance(e, sp.exp):
        return _to_arb(e.args[0], env).exp()
    if isinstance(e, sp.Pow) and e.exp.is_Integer:
        base, n = _to_arb(e.base, env), int(e.exp)
        return base**n if n >= 0 else 1 / base ** (-n)
    msg = f"no interval evaluation for {e}"  # pragma: no cover - the twins need none
    raise VerificationError(msg)


def _arb_masses(bits: tuple, eps: Fraction, k: int) -> tuple[list, list]:
    """(P_in(s), P_out(s)) for s = 0..k as arb: C(k-1, s-1) p q^(s-1) (1-q)^(k-s) and
    C(k-1, s) (1-p) q^s (1-q)^(k-1-s), the class masses of one_hot(B, k)."""
    from flint import arb

    env = {_eps_symbol(): arb(eps.numerator) / eps.denominator}
    p, omp, q, omq = (_to_arb(b, env) for b in bits)
    p_in = [arb(0)] + [
        math.comb(k - 1, s - 1) * p * q ** (s - 1) * omq ** (k - s) for s in range(1, k + 1)
    ]
    p_out = [math.comb(k - 1, s) * omp * q**s * omq ** (k - 1 - s) for s in range(k)] + [arb(0)]
    return p_in, p_out


def _exact_used(plan: Any, A: Any, bits_a: tuple, bits_b: tuple, eps: Fraction) -> tuple:
    """(weights per match, used_s per size index of A) as arb, from the closed forms."""
    k = A.k
    ain, aout = _arb_masses(bits_a, eps, k)
    bin_, _ = _arb_masses(bits_b, eps, k)
    w = [bin_[m.t] / (ain[m.s] if m.side == "in" else aout[m.s]) for m in plan.matches]
    used: dict[int, Any] = {}
    for m, wm in zip(plan.matches, w, strict=True):
        used[m.a] = used[m.a] + wm if m.a in used else wm
    return w, used


def _exact_eps(eps: Any) -> Fraction:
    """The protocol's eps as the symbolic twin reads it: a float as the rational of its
    shortest decimal representation (9.0 -> 9, 1.3 -> 13/10), an exact number as itself."""
    return Fraction(repr(eps)) if isinstance(eps, float) else Fraction(eps)


def _inner(C: Any) -> list[int]:
    """+1 on the inner classes (0 < s < k), whose ratio :func:`_premise` proved e^eps."""
    return [1 if 0 < s < C.k else 0 for s in C.sizes.tolist()]


def _check_pair(A: Any, B: Any) -> None:
    for name, C in (("A", A), ("B", B)):
        if not isinstance(C, Protocol):
            msg = f"{name} must be a protocol object (qifldp.protocol), got {type(C).__name__}"
            raise InputTypeError(msg)


def _reduction(A: Any, B: Any) -> tuple | None:
    """(plan, exact eps, used_s enclosures, weights, symmetric channels) or None when the
    reduction does not apply (other protocols, other k or eps, no python-flint)."""
    if A.name not in TIGHT_RATIO_PROTOCOLS or B.name not in TIGHT_RATIO_PROTOCOLS:
        return None
    if A.k != B.k or A.eps != B.eps or not (0 < A.eps < math.inf):
        return None
    try:
        from flint import ctx
    except ImportError:  # pragma: no cover - python-flint is a dependency where it installs
        return None
    bits_a, bits_b = _premise(A.name), _premise(B.name)
    if spent():  # the decision's deadline (qifldp.deadline): the caller says so
        return None
    SA, SB = A.symmetric(), B.symmetric()
    plan = tight_ratio_plan(SA, SB, (_inner(SA), _inner(SB)))
    if plan is None:  # pragma: no cover - one-hot channels have corners and inner classes
        return None
    eps = _exact_eps(A.eps)
    with ctx.workprec(ARB_PRECISION_BITS):
        w, used = _exact_used(plan, SA, bits_a, bits_b, eps)
    if spent():
        return None
    return plan, eps, used, w, SA, SB


def tight_ratio_refines(A: Any, B: Any, *, time_limit: float = 120.0) -> RefinementResult | None:
    """A ⊑ B for two one-hot protocols at the same eps, proved for the real channels, or None.

    Parameters
    ----------
    A, B : qifldp.protocols.Protocol
        Protocol objects (:func:`qifldp.protocol`); the reduction applies to
        :data:`TIGHT_RATIO_PROTOCOLS` at equal k and eps > 0.
    time_limit : float
        Seconds for the float route that supplies the counterexample of a "fails".

    Returns
    -------
    RefinementResult or None
        None when the reduction does not apply or an enclosure of some used_s
        contains 1 (the caller decides otherwise). "holds": ``about`` "protocols",
        ``exact`` True, ``up_to_rounding`` False, the orbit witness of the
        reduction in floats (its residual on the stored floats in ``residual``),
        ``details["tight_ratio_used_upper"]`` the largest upper bound of used_s.
        "fails": the symmetric float route's verified counterexample with
        ``about`` "protocols"; when the stored floats refine although the real
        channels do not, the float route's witness "up to rounding".

    Raises
    ------
    InputTypeError
        A or B not a protocol object.
    ParameterError
        ``time_limit`` not a positive number.

    Notes
    -----
    The premise (every inner class has a_s / b_s = e^eps) is an identity of the
    symbolic twin's closed forms (module docstring, step 1); the weights
    w = P^B_in(s) / P^A_in(s) are enclosed in arb at :data:`ARB_PRECISION_BITS`
    bits (step 2). Cost: one sympy identity per family and process (:func:`_premise`)
    and O(k) arb operations; the witness needs the orbit problem
    (O(k^2) variables).

    Examples
    --------
    >>> import qifldp as q
    >>> r = tight_ratio_refines(q.protocol("sue", 50, 9.0), q.protocol("oue", 50, 9.0))
    >>> r.holds, r.exact, r.about, r.up_to_rounding
    (True, True, 'protocols', False)
    >>> tight_ratio_refines(q.protocol("grr", 3, 1.0), q.protocol("oue", 3, 1.0)) is None
    True
    """
    _check_pair(A, B)
    limit = check_time_limit(time_limit)
    t0 = time.perf_counter()
    red = _reduction(A, B)
    if red is None:
        return None
    plan, eps, used, w, SA, SB = red
    bounds = [(bool(v < 1), bool(v > 1)) for v in used.values()]
    verdict = tight_ratio_verdict(bounds)
    if verdict is None:
        return None
    hi = max((float(v.mid()) + float(v.rad()) for v in used.values()), default=0.0)
    premise = (
        f"(1) the premise, proved: for every inner size s of {A!r} and {B!r}, a_s / b_s of "
        "the closed forms p q^(s-1) (1-q)^(k-s) / ((1-p) q^s (1-q)^(k-1-s)) (p, q the bit "
        "channel of the symbolic twin) simplifies to exactly e^eps with sympy, eps a "
        f"positive symbol; (2) at eps = {eps} exactly, used_s = Σ_t P^B_in(t) / P^A_in(s) "
        f"enclosed with arb at {ARB_PRECISION_BITS} bits from the closed forms"
    )
    if verdict:
        if 2 * SA.sizes.size * SB.sizes.size > MAX_ORBIT_VARIABLES:
            return None
        P = OrbitProblem(SA, SB)
        u, resid, row_err = tight_ratio_witness(P, plan, [float(v.mid()) for v in w])
        how = (
            "proved for the real channels by the tight-ratio reduction (a witness maps each "
            "inner output T of B to T alone with W[T, T] = P^B_in(t) / P^A_in(t), the rest of "
            "each row to B's corner classes; A ⊑ B iff these weights sum to <= 1 per size of "
            f"A): {premise}: every upper bound < 1 (largest {hi:.12g}). The orbit witness "
            f"in floats fits the stored floats within {resid:.2e} (rows {row_err:.1e})"
        )
        return witness_result(
            P,
            u,
            resid,
            row_err,
            how,
            t0,
            method="symmetric: tight-ratio reduction (exact)",
            about="protocols",
            exact=True,
            details={"tight_ratio_used_upper": hi, "tight_ratio_eps": eps},
        )
    worst = max(used.values(), key=lambda v: float(v.mid()))
    lo = float(worst.mid()) - float(worst.rad())
    fails = (
        f"the real channels do not refine, by the tight-ratio reduction (an iff): {premise}: "
        f"one used_s has lower bound {lo:.12g} > 1"
    )
    try:
        r = symmetric_refines(SA, SB, time_limit=limit)
    except (SolverError, VerificationError):
        return None
    if not r.holds:
        return replace(
            r,
            about="protocols",
            exact=True,
            certified_by=f"{fails}; the stored floats' counterexample: {r.certified_by}",
            time=time.perf_counter() - t0,
        )
    return replace(  # pragma: no cover - only within rounding of the boundary
        r,
        up_to_rounding=True,
        about="rounding",
        certified_by=f"{r.certified_by}; but {fails}: the stored floats refine by rounding",
        time=time.perf_counter() - t0,
    )


def _boundary_sign(k: int, eps: float, bits: tuple) -> int:
    """+1 when SUE ⋢ OUE at the float eps read exactly (some used_s > 1), −1 when SUE ⊑ OUE
    (every used_s < 1), 0 when an enclosure contains 1: the reduction's verdict in arb."""
    SA, SB = UE(k, eps, variant="sue").symmetric(), UE(k, eps, variant="oue").symmetric()
    plan = tight_ratio_plan(SA, SB, (_inner(SA), _inner(SB)))
    if plan is None:  # pragma: no cover - every eps > 0 gives the same matching
        msg = f"sue({k}, {eps!r}) and oue({k}, {eps!r}) are not a tight-ratio pair"
        raise VerificationError(msg)
    _, used = _exact_used(plan, SA, bits[0], bits[1], Fraction(eps))
    verdict = tight_ratio_verdict([(bool(v < 1), bool(v > 1)) for v in used.values()])
    return 0 if verdict is None else (-1 if verdict else 1)


def sue_oue_boundary(k: int, *, width: float = 1e-12) -> tuple[float, float]:
    """The eps*(k) from which SUE ⊑ OUE holds, enclosed: (lo, hi) with lo < eps* <= hi.

    Parameters
    ----------
    k : int
        Domain size, ``2 <= k <=`` :data:`BOUNDARY_MAX_K`.
    width : float
        Stop bisecting when hi − lo <= width (or when the floats between them run
        out), ``width > 0``.

    Returns
    -------
    (float, float)
        Floats lo < hi, each read as the exact rational it is, with
        max_s used_s(lo) > 1 (sue(k, lo) ⋢ oue(k, lo)) and max_s used_s(hi) < 1
        (sue(k, hi) ⊑ oue(k, hi)), both proved with arb. For k = 2, (0.0, 0.0):
        SUE ⊑ OUE at every eps (see Notes).

    Raises
    ------
    InputTypeError, ParameterError
        ``k`` not an integer in [2, BOUNDARY_MAX_K]; ``width`` not a positive number.

    Notes
    -----
    The tight-ratio reduction gives, with H = e^(eps/2), used_s = (1/2) H^(k-s-1)
    (1+H)^k / (1+H^2)^(k-1), largest at s = 1 (H > 1). Its log has derivative in
    h = eps/2 of 2(k-1)/(1+H^2) − k/(1+H), whose sign is that of
    −(k H^2 − 2(k-1) H − (k-2)): one positive root H0 (H0 = 1 for k = 2, > 1 beyond).
    So for k >= 3, used_1 rises from 1 at eps = 0 and falls to 1/2 as eps -> ∞: it
    crosses 1 exactly once, at eps*, and SUE ⊑ OUE iff eps >= eps*. For k = 2 it
    only falls: SUE ⊑ OUE at every eps >= 0. The bisection evaluates the reduction
    itself (max over all s, premise proved with sympy) at each float; each step's
    sign is an arb comparison, so (lo, hi) is a rigorous enclosure. Cost
    O(k log(1/width)) arb operations.

    Examples
    --------
    >>> lo, hi = sue_oue_boundary(50)
    >>> round(lo, 12), hi - lo <= 1e-12
    (8.514854727738, True)
    >>> sue_oue_boundary(2)
    (0.0, 0.0)
    """
    k = check_int("k", k, minimum=2)
    if k > BOUNDARY_MAX_K:
        msg = f"k must be at most BOUNDARY_MAX_K = {BOUNDARY_MAX_K}, got {k}"
        raise ParameterError(msg)
    width = check_real("width", width)
    if not (width > 0 and math.isfinite(width)):
        msg = f"width must be a positive finite number, got {width!r}"
        raise ParameterError(msg)
    if k == 2:
        return 0.0, 0.0
    from flint import ctx

    bits = (_premise("sue"), _premise("oue"))
    with ctx.workprec(ARB_PRECISION_BITS):

        def sign(e: float) -> int:
            return _boundary_sign(k, e, bits)

        hi = 1.0
        while sign(hi) >= 0:
            hi *= 2.0
        lo = hi / 2.0
        while sign(lo) <= 0:
            lo /= 2.0
            if lo < 1e-300:  # pragma: no cover - used_1 > 1 near 0 for k >= 3 (Notes)
                msg = f"no eps with used_s > 1 found for k = {k}"
                raise VerificationError(msg)
        while hi - lo > width:
            mid = lo + (hi - lo) / 2.0
            if mid in (lo, hi):
                break
            sg = sign(mid)
            if sg > 0:
                lo = mid
            elif sg < 0:
                hi = mid
            else:  # pragma: no cover - an enclosure of width 2^-200 around 1
                break
    return lo, hi
