"""The tight-ratio reduction of symmetric refinement on class masses.

When every inner class of B has the extreme likelihood ratio e^{±eps} of its matching
class of A (SUE and OUE at the same eps), a witness is forced, and A ⊑ B reduces to one
sum of weights per size of A (:func:`tight_ratio_plan`, :func:`tight_ratio_verdict`).
:func:`tight_ratio_result` decides it from the stored masses under the equal-ratio
premise; :mod:`qifldp.protocols.tight_ratio` proves the premise for protocol objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..refinement._certify import INPUT_BAND_FACTOR
from .channel import SymmetricChannel
from .measures import ldp_epsilon
from .orbit_certify import (
    UNIT_ROUNDOFF as _U,
)
from .orbit_lp import (
    Clock,
    OrbitProblem,
    check_large,
    input_delta,
    witness_result,
)

__all__ = [
    "TightMatch",
    "TightPlan",
    "tight_ratio_plan",
    "tight_ratio_verdict",
    "tight_ratio_witness",
    "tight_ratio_result",
    "tight_ratio_support",
    "tight_ratio_first",
    "near_tight_witness",
    "NEAR_TIGHT_RTOL",
]


@dataclass(frozen=True)
class TightMatch:
    """One inner class of B in the tight-ratio reduction and the class of A it is forced from.

    B's class ``b`` (size t) receives only from A's class ``a`` (size s, orbit (s, t, j)):
    S = T (``side`` "in", j = t, w = P^B_in(t) / P^A_in(s)) or S = T^c (``side`` "out",
    j = 0, w = P^B_in(t) / P^A_out(s)).
    """

    a: int
    b: int
    s: int
    t: int
    j: int
    side: str


@dataclass(frozen=True, eq=False)
class TightPlan:
    """The matching of the tight-ratio reduction (see :func:`tight_ratio_plan`), as arrays
    with one entry per match: ``a``, ``b`` (indices into A's and B's sizes), ``s``, ``t``,
    ``j`` (the orbit) and ``inside`` (True: S = T, False: S = T^c)."""

    eps: float
    a: np.ndarray
    b: np.ndarray
    s: np.ndarray
    t: np.ndarray
    j: np.ndarray
    inside: np.ndarray

    @property
    def matches(self) -> tuple[TightMatch, ...]:
        """The matches one by one (:class:`TightMatch`)."""
        cols = (v.tolist() for v in (self.a, self.b, self.s, self.t, self.j, self.inside))
        return tuple(
            TightMatch(a, b, s, t, j, "in" if inside else "out")
            for a, b, s, t, j, inside in zip(*cols, strict=True)
        )


def tight_ratio_plan(
    A: SymmetricChannel,
    B: SymmetricChannel,
    tight: tuple[Any, Any] | None = None,
    check: Callable[[str], Any] | None = None,
) -> TightPlan | None:
    """The tight-ratio reduction's matching of B's inner classes to A's, or None.

    Let eps = ldp_epsilon(A) = ldp_epsilon(B) and suppose every inner class t of B
    (0 < t < k) has a_t / b_t = e^{±eps} *exactly*, as its matching class of A (SUE and
    OUE at the same eps). For x in T, x' not in T, B[x, T] / B[x', T] = e^{eps} while
    every output S of A has A[x, S] <= e^{eps} A[x', S], with equality only for x in S,
    x' not in S and a tight class of A. So a witness sends to T only from S = T (from
    S = T^c for ratio e^{-eps}), with W[S, T] = B[x, T] / A[x, S], the same for every x
    because both ratios are e^{eps}: w = P^B_in(t) / P^A_in(t) (resp. P^B_in(t) /
    P^A_out(k - t)). The rest of each row of A, 1 − used_s, goes to B's corner classes
    (|T| = 0, k), which every x sees with the same probability; their equations then
    hold because both channels sum to 1. So A ⊑ B iff used_s = Σ w <= 1 for every size
    s of A (:func:`tight_ratio_verdict`).

    ``tight`` gives, per class of A and of B, +1 / −1 where the ratio is e^{±eps}
    exactly and 0 elsewhere (the protocol route, :mod:`qifldp.symmetric.tight_ratio`,
    after proving it with sympy; eps is then A's stored eps). Without it the classes
    are read from the stored log-ratios (== ±ldp_epsilon(A)): whether the real ratios
    are exactly e^{±eps} is then the premise the float route states. ``check(stage)``
    (a time budget) is called between the passes of a large problem.
    """
    k = A.k
    stage = "the tight-ratio reduction"
    ea = ldp_epsilon(A)
    if not (math.isfinite(ea) and ea > 0):
        return None
    if tight is None:
        check_large(check, k, stage)
        if ldp_epsilon(B) != ea:
            return None
        check_large(check, k, stage)
        tight = (
            np.where(A.log_ratio == ea, 1, np.where(A.log_ratio == -ea, -1, 0)),
            np.where(B.log_ratio == ea, 1, np.where(B.log_ratio == -ea, -1, 0)),
        )
    check_large(check, k, stage)
    tA, tB = (np.asarray(v).reshape(-1) for v in tight)
    sA, sB = A.sizes.astype(np.int64), B.sizes.astype(np.int64)
    corner = (sB == 0) | (sB == k)
    if not corner.any():
        return None
    # the index in A of each size with ratio e^{+eps} (-1: none)
    pos = np.full(k + 1, -1, dtype=np.int64)
    up = np.flatnonzero(tA == 1)
    pos[sA[up]] = up  # a symmetric channel has one class per size
    ib = np.flatnonzero(~corner)
    t = sB[ib]
    tb = tB[ib]
    a_in = pos[t]
    a_out = pos[k - t]
    inside = (tb == 1) & (a_in >= 0)
    outside = ~inside & (tb == -1) & (a_out >= 0)
    if not np.all(inside | outside):
        return None
    a = np.where(inside, a_in, a_out)
    return TightPlan(
        ea,
        a,
        ib,
        np.where(inside, t, k - t),
        t,
        np.where(inside, t, 0),
        inside,
    )


def tight_ratio_verdict(bounds: list[tuple[bool, bool]]) -> bool | None:
    """The reduction's verdict from (used_s provably < 1, used_s provably > 1) per size s.

    True when every used_s is provably below 1 (A ⊑ B), False when one is provably
    above 1 (A ⋢ B: the reduction is an iff), None when an enclosure contains 1.
    """
    if any(above for _, above in bounds):
        return False
    if all(below for below, _ in bounds):
        return True
    return None


def tight_ratio_witness(
    P: OrbitProblem, plan: TightPlan, w: Any
) -> tuple[np.ndarray, float, float]:
    """The orbit witness of the reduction from the weights ``w`` (one per match, floats):
    u(s, t, j) = w on the matched orbits, the rest of each row to B's corner classes in
    proportion to their masses; with its residual and row error on the stored floats."""
    A, B = P.A, P.B
    k = A.k
    PiB, PoB = B.class_masses()
    has0, hask = bool(np.any(B.sizes == 0)), bool(np.any(B.sizes == k))
    m0 = float(PoB[B.sizes == 0].sum()) if has0 else 0.0
    mk = float(PiB[B.sizes == k].sum()) if hask else 0.0
    # both shares from the masses (1 − c0 would round to 0 beside a corner of mass 1e-59)
    c0 = m0 / (m0 + mk) if m0 + mk > 0 else 1.0
    ck = mk / (m0 + mk) if m0 + mk > 0 else 0.0
    index = _orbit_index(P)
    u = np.zeros(P.n_var)
    w = np.asarray(w, dtype=np.float64)  # a list (one per match) or an array
    np.add.at(u, index(plan.s, plan.t, plan.j), w)
    used = np.bincount(plan.a, weights=w, minlength=A.sizes.size)
    rest = np.maximum(0.0, 1.0 - used)
    sz = A.sizes.astype(np.int64)
    if has0:
        np.add.at(u, index(sz, np.zeros_like(sz), np.zeros_like(sz)), rest * c0)
    if hask:
        np.add.at(u, index(sz, np.full_like(sz, k), sz), rest * (ck if has0 else 1.0))
    u = P.clean(u)
    _, _, resid, row_err, _ = P.check(u)
    return u, resid, row_err


def _orbit_index(P: OrbitProblem) -> Any:
    """A function (s, t, j) arrays -> the positions of those orbits among P's variables
    (each must be one of them)."""
    s_, t_, j_ = (np.asarray(v, dtype=np.int64) for v in P.variables[2:])
    base = P.A.k + 1
    key = (s_ * base + t_) * base + j_  # < 2^63 for k < 2 x 10^6
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]

    def index(s: np.ndarray, t: np.ndarray, j: np.ndarray) -> np.ndarray:
        q = (np.asarray(s, dtype=np.int64) * base + np.asarray(t, dtype=np.int64)) * base + j
        at = np.searchsorted(sorted_keys, q)
        if not (
            np.all(at < key.size) and np.array_equal(sorted_keys[np.minimum(at, key.size - 1)], q)
        ):
            msg = "an orbit of the tight-ratio witness is not a variable of the orbit problem"
            raise ValueError(msg)
        return order[at]

    if float(base) ** 3 >= 2.0**62:  # beyond int64 keys: one dict lookup per orbit
        table = {
            key3: n
            for n, key3 in enumerate(zip(s_.tolist(), t_.tolist(), j_.tolist(), strict=True))
        }

        def index(s: np.ndarray, t: np.ndarray, j: np.ndarray) -> np.ndarray:  # noqa: F811
            cols = (np.asarray(v).tolist() for v in (s, t, j))
            return np.array([table[key3] for key3 in zip(*cols, strict=True)], dtype=np.int64)

    return index


def tight_ratio_support(
    A: SymmetricChannel, B: SymmetricChannel, plan: TightPlan
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The orbits the reduction's witness uses (index into A's sizes, into B's sizes, j):
    the matches, and every size of A to B's corner classes; O(|sizes(A)| + |sizes(B)|)."""
    k = A.k
    nA = A.sizes.size
    iS, iT, j = [plan.a], [plan.b], [plan.j]
    for corner in (0, k):
        hit = np.flatnonzero(B.sizes == corner)
        if hit.size:
            iS.append(np.arange(nA))
            iT.append(np.full(nA, int(hit[0])))
            j.append(np.zeros(nA, dtype=np.int64) if corner == 0 else A.sizes.astype(np.int64))
    return tuple(np.concatenate(v).astype(np.int64) for v in (iS, iT, j))  # type: ignore[return-value]


def tight_ratio_first(A: SymmetricChannel, B: SymmetricChannel, clock: Clock) -> Any:
    """The tight-ratio reduction before any orbit LP, in O(|sizes(A)| + |sizes(B)|): a
    verified "holds" (:func:`tight_ratio_result` on the witness's own orbits), or None.

    Needs no orbit LP, so it is never refused for the LP's size (SUE ⊑ OUE above their
    boundary at k = 10^6). None when the premise's plan does not exist or the weights do
    not prove "holds" (the orbit LP then decides).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> r = tight_ratio_first(sym.sue(10**5, 24.0), sym.oue(10**5, 24.0), Clock())
    >>> r.holds, r.method
    (True, 'symmetric: tight-ratio reduction')
    """
    plan = tight_ratio_plan(A, B, check=clock.check)
    if plan is None:
        return None
    clock.check("the tight-ratio reduction")
    if _used_bounds(A, B, plan, clock.check)[0] is not True:
        return None  # the orbit problem of the support is built only for a proof
    clock.check("the tight-ratio reduction")
    P = OrbitProblem(A, B, support=tight_ratio_support(A, B, plan), clock=clock)
    details = {"n_variables": P.n_var, "n_equations": int(P.M.shape[0]), "support_only": True}
    return tight_ratio_result(P, clock, details, "decided before the orbit LP", plan)


#: Classes whose stored log-ratio is within NEAR_TIGHT_RTOL max(1, eps) of ±eps are
#: matched by :func:`near_tight_witness` (a candidate, verified in the band; the tolerance
#: only decides which candidate is tried, never a verdict).
NEAR_TIGHT_RTOL: float = 1e-9


def near_tight_witness(P: OrbitProblem) -> np.ndarray | None:
    """The tight-ratio witness as a *candidate* on classes whose ratios are e^{±eps} only up
    to rounding: its orbit masses u (unverified), or None when no such plan exists.

    Class masses read off explicit floats (a detected one-hot channel) have log-ratios
    that miss ±ldp_epsilon(A) in the last bits, so :func:`tight_ratio_plan`'s premise
    does not hold for them and the orbit LP, on masses spanning 60 orders of magnitude
    (SUE vs OUE at k = 4, eps = 45), ends with a witness far outside the band. The plan
    is then built with the classes matched within :data:`NEAR_TIGHT_RTOL` and its weights
    w = P^B_in(t) / P^A_in(s) taken from the stored masses. The caller checks it
    (:meth:`OrbitProblem.check`) like any other candidate witness: a verdict it supports
    is about the channels as stored (no premise). The in and out equations of a class
    share one weight, so on masses whose ratios differ by their log-space rounding the
    candidate meets the band of the inputs' own rounding rather than the rounding band
    of a one-term orbit equation; on the explicit channels (whose band counts |Y_A|
    terms) it is re-checked entry by entry.

    Examples
    --------
    >>> import numpy as np
    >>> import qifldp as q
    >>> from qifldp.refinement._orbits import bit_symmetric
    >>> A, B = q.sue(4, 45.0), q.oue(4, 45.0)
    >>> CA, CB = (
    ...     SymmetricChannel._from_bit_table(bit_symmetric(C.matrix, C.inputs, C.outputs).alpha)
    ...     for C in (A, B)
    ... )
    >>> tight_ratio_plan(CA, CB) is None  # the stored ratios miss e^45 in the last bits
    True
    >>> P = OrbitProblem(CA, CB)
    >>> in_band, in_input, resid, rows, excess = P.check(near_tight_witness(P))
    >>> in_input, bool(resid < 1e-15)
    (True, True)
    """
    A, B = P.A, P.B
    ea = ldp_epsilon(A)
    if not (math.isfinite(ea) and ea > 0):
        return None
    tol = NEAR_TIGHT_RTOL * max(1.0, ea)
    if not abs(ldp_epsilon(B) - ea) <= tol:
        return None

    def classes(C: SymmetricChannel) -> np.ndarray:
        lr = np.asarray(C.log_ratio)
        return np.where(np.abs(lr - ea) <= tol, 1, np.where(np.abs(lr + ea) <= tol, -1, 0))

    plan = tight_ratio_plan(A, B, (classes(A), classes(B)))
    if plan is None:
        return None
    w = _weights(A, B, plan)[1]
    if not np.all(np.isfinite(w)):
        return None
    return tight_ratio_witness(P, plan, w)[0]


def _weights(
    A: SymmetricChannel, B: SymmetricChannel, plan: TightPlan
) -> tuple[np.ndarray, np.ndarray]:
    """(ln w, w) per match from the stored masses: w = P^B_in(t) / P^A_in(s) (or P^A_out),
    inf beyond the float range (a weight that large proves "fails", not a crash)."""
    den = np.where(plan.inside, A.log_in[plan.a], A.log_out[plan.a])
    lw = np.asarray(B.log_in[plan.b], dtype=np.float64) - den
    with np.errstate(over="ignore"):
        return lw, np.exp(lw)


def _used_bounds(
    A: SymmetricChannel,
    B: SymmetricChannel,
    plan: TightPlan,
    check: Callable[[str], Any] | None = None,
) -> tuple[bool | None, float, np.ndarray]:
    """The reduction's verdict on the stored masses (:func:`tight_ratio_verdict`), the
    largest upper bound of a used_s, and the float weights w; O(|sizes|).

    Each ln w is bounded beyond the stored masses' own rounding; the sum over a size of A
    is bounded with exp within 4 ulp and a sum of n non-negative terms within (n - 1) u.
    """
    stage = "the tight-ratio reduction"
    dA = input_delta(A)
    dB = input_delta(B)
    lw, w = _weights(A, B, plan)
    check_large(check, plan.a.size, stage)
    err = dA[plan.a] + dB[plan.b] + 4 * _U * (np.abs(B.log_in[plan.b]) + np.abs(lw) + 1.0)
    n = np.bincount(plan.a, minlength=A.sizes.size)
    check_large(check, plan.a.size, stage)
    with np.errstate(over="ignore"):
        hi = np.bincount(plan.a, weights=np.exp(lw + err), minlength=n.size)
        lo = np.bincount(plan.a, weights=np.exp(lw - err), minlength=n.size)
    check_large(check, plan.a.size, stage)
    hi = hi * (1 + (n + 8) * _U)
    lo = lo * (1 - (n + 8) * _U)
    has = n > 0
    below, above = hi[has] < 1.0, lo[has] > 1.0
    # tight_ratio_verdict on the arrays (no Python tuple per size: k = 10^6 in one pass)
    verdict = False if above.any() else (True if below.all() else None)
    return verdict, float(hi[has].max(initial=0.0)), w


def tight_ratio_result(
    P: OrbitProblem,
    clock: Clock,
    details: dict,
    why_float: str,
    plan: TightPlan | None = None,
):
    """A ⊑ B by the tight-ratio reduction (:func:`tight_ratio_plan`) on the stored masses, or None.

    The weights are bounded from the stored class masses beyond their own rounding
    (INPUT_BAND_FACTOR u (1 + |ln P|) each, see :data:`INPUT_BAND_FACTOR`); the
    equal-ratio premise is stated, not proved (the protocol route proves it:
    :func:`qifldp.symmetric.tight_ratio.tight_ratio_refines`).
    """
    A, B = P.A, P.B
    stage = "the tight-ratio reduction"
    if plan is None:
        plan = tight_ratio_plan(A, B, check=clock.check)
    if plan is None:
        return None
    ea = plan.eps
    clock.check(stage)
    verdict, worst, w = _used_bounds(A, B, plan, clock.check)
    if verdict is not True:
        return None
    clock.check(stage)  # the witness and its check on the stored floats: O(support)
    u, resid, row_err = tight_ratio_witness(P, plan, w)
    how = (
        f"proved for the real channels by the tight-ratio reduction, under the premise that "
        f"every inner class of B and its matching class of A have likelihood ratio exactly "
        f"e^(±{ea!r}) = e^(±ldp_epsilon(A)) (their stored closed-form log-ratios agree to the "
        "last bit, as for SUE and OUE built at the same eps; the verdict does not apply to "
        "channels whose real ratios differ; protocol objects prove it: "
        "qifldp.refines(qifldp.protocol(...), ...)): a witness then maps each inner output T "
        "of B to T (or T^c) alone, with W[T, T] = "
        "P^B_in(t) / P^A_in(t), and the rest of each row to B's corner classes; A ⊑ B iff "
        f"these weights sum to <= 1 per size of A: largest sum {worst:.6g} < 1, beyond the "
        f"stored class masses' rounding ({INPUT_BAND_FACTOR:g} u (1 + |ln P|) each). The "
        f"orbit witness built from it fits the stored floats within {resid:.2e} "
        f"(rows {row_err:.1e}); ({why_float})"
    )
    return witness_result(
        P,
        u,
        resid,
        row_err,
        how,
        clock.t0,
        method="symmetric: tight-ratio reduction",
        about="protocols",
        details=dict(details, tight_ratio_max_row_weight=worst),
    )
