"""Max-case refinement between symmetric channels: a two-dimensional cone test per class of B."""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import (
    ParameterError,
    SolverError,
    VerificationError,
)
from ..refinement._problem import EXACT_GAP_RELATIVE
from ..refinement.exact import exact_weighted_gap
from ..refinement.result import (
    Counterexample,
    RefinementResult,
    undecided_result,
)
from .binomial import log_comb
from .channel import SymmetricChannel
from .gain import overlap_range
from .orbit_certify import (
    UNIT_ROUNDOFF as _U,
)
from .orbit_lp import (
    Clock,
    check_kinds,
    check_pair,
    check_time_limit,
    uniform_prior,
)
from .orbit_witness import (
    OrbitWitness,
)

__all__ = [
    "max_case_refines",
    "max_case_refines_symmetric",
    "exact_max_case_gap_symmetric",
    "EXACT_MAX_CASE_TERMS",
]


# --------------------------------------------------------------------------------------
# max-case refinement: a two-dimensional cone per class of B
# --------------------------------------------------------------------------------------
#: Relative band (in log space, per class) within which a max-case comparison is left to
#: the tight-ratio premise: 64 u (1 + the largest |log| involved).
_MAX_CASE_BAND: float = 64.0 * _U


def _generators(
    A: SymmetricChannel, t: int, logs: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, ...]:
    """For B's class size t: A's columns averaged over the stabiliser of T, in log space.

    Rows (s, j) over A's sizes and the two extreme overlaps j; returns (s index, j,
    log of the value at x in T, log of the value at x not in T, pure), ``pure`` True where
    the average is one entry of A (a_s or b_s on each side: its ratio is A's closed form).
    """
    k = A.k
    la, lb = (A.log_a, A.log_b) if logs is None else logs
    idx = np.arange(A.sizes.size)
    s = A.sizes
    lo, hi = overlap_range(k, s, np.full(s.size, t))
    ii = np.concatenate([idx, idx])
    jj = np.concatenate([lo, hi])
    ss = s[ii]
    with np.errstate(divide="ignore"):
        fin = jj / t if t > 0 else np.zeros(jj.size)
        fout = (ss - jj) / (k - t) if t < k else np.zeros(jj.size)
        log_in = np.logaddexp(la[ii] + np.log(fin), lb[ii] + np.log1p(-fin))
        log_out = np.logaddexp(la[ii] + np.log(fout), lb[ii] + np.log1p(-fout))
    pure = ((fin == 1) & (fout == 0)) | ((fin == 0) & (fout == 1))
    return ii, jj, log_in, log_out, pure


def max_case_refines(
    A: SymmetricChannel, B: SymmetricChannel, *, time_limit: float = 120.0
) -> RefinementResult:
    """Decide A ⊑max B for symmetric channels: every column of B in the cone of A's columns.

    Parameters
    ----------
    A, B, time_limit
        As :func:`~qifldp.symmetric.refinement.refines` (``time_limit`` is checked
        between classes).

    Returns
    -------
    qifldp.refinement.result.RefinementResult
        ``relation`` "max-case refinement". ``witness`` an :class:`OrbitWitness` of R
        (``mass[i]`` = Σ R[S, T] over the T of class (t, j) relative to S; rows need
        not sum to 1; ``inf`` where an orbit mass exceeds the float range, k beyond
        ~1000), or ``counterexample`` a one-action gain over the inputs
        (1 on T, −c off T) separating a column T of B from A's cone; a gap below
        EXACT_GAP_RELATIVE (1e-12) of |V_g| <= 1 is computed exactly on the stored
        class masses (``gap_exact``, :func:`exact_max_case_gap_symmetric`) and
        ``gap`` is that value rounded.

    Raises
    ------
    InputTypeError, ChannelError, ParameterError
        As :func:`refines`.
    VerificationError
        A class of B lies within the rounding band of its cone's boundary and the
        tight-ratio premise (below) does not apply.

    Notes
    -----
    If B[:, T] = Σ_S λ_S A[:, S] with λ >= 0, averaging λ over the permutations that
    fix T gives weights constant on the orbits (s, j = |S ∩ T|), so B[:, T] lies in the
    cone of the orbit averages, vectors with one value on T and one off T: the test
    is two-dimensional. With c_in(s, j) = a_s j/t + b_s (1 − j/t) and c_out(s, j) =
    a_s (s−j)/(k−t) + b_s (1 − (s−j)/(k−t)), linear in j (the extreme overlaps
    suffice), the inner class t of B (entries a_t on T, b_t off T) is in the cone iff
    min_{s,j} c_in/c_out <= a_t / b_t <= max_{s,j} c_in/c_out; the corner classes
    (t = 0, k) always are. O(|sizes(A)| |sizes(B)|). A ratio within
    64 u (1 + |log|) of an end of its interval is on the boundary: it counts as
    inside when the end is one of A's own classes whose real ratio is proved equal to
    B's, exactly: the same stored class, or both channels' closed-form
    :attr:`~SymmetricChannel.exact_log_ratio` equal (the protocols' eps, as for SUE,
    OUE, GRR, SS and LH at the same eps; ``about`` "protocols"). Otherwise such a
    class has no verdict; when no other class lies outside the cone beyond the band,
    VerificationError.
    Measured: SUE vs OUE at k = 1000, ~1 s (numpy per class; k = 10^4 ~100 s).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> from qifldp.symmetric.max_case import max_case_refines
    >>> max_case_refines(sym.sue(50, 2.0), sym.oue(50, 2.0)).holds
    True
    >>> max_case_refines(sym.grr(100, 1.0), sym.grr(100, 2.0)).holds
    False
    """
    check_pair(A, B)
    clock = Clock(check_time_limit(time_limit))
    k = A.k
    rows_s: list[int] = []
    rows_t: list[int] = []
    rows_j: list[int] = []
    rows_mass: list[float] = []
    premise = False
    undecided: list[str] = []
    logsA = (A.log_a, A.log_b)
    logaB, logbB, ratioB = B.log_a, B.log_b, B.log_ratio
    logck = log_comb(k, np.arange(k + 1))
    for i, t in enumerate(B.sizes.tolist()):
        clock.check("the max-case classes")
        ii, jj, lin, lout, pure = _generators(A, t, logsA)
        if t in (0, k):  # one coordinate: any generator positive there
            val = lout if t == 0 else lin
            g = int(np.argmax(val))
            if not np.isfinite(val[g]):
                return _max_case_fails_corner(A, B, t, clock)
            target = float(logbB[i] if t == 0 else logaB[i])
            mu = [(g, target - float(val[g]))]
        else:
            lr = lin - lout  # log c_in / c_out (+-inf where one side is 0)
            rb = float(ratioB[i])
            ok = np.isfinite(lin) & np.isfinite(lout)
            mag = np.maximum(np.abs(lin), np.abs(lout))
            band = _MAX_CASE_BAND * (1 + np.where(np.isfinite(mag), mag, 0.0))
            band_b = _MAX_CASE_BAND * (1 + abs(float(logaB[i])) + abs(float(logbB[i])))
            # a generator with exactly B's ratio (a pure one, equal real ratio): premise
            same, proved = _equal_ratio(A, B, i, ii, jj, t)
            exactly = ok & pure & (same | proved)
            valid = ok | np.isinf(lr)
            top = float(np.max(np.where(valid, lr, -np.inf)))
            bot = float(np.min(np.where(valid, lr, np.inf)))
            gt = int(np.argmax(np.where(valid, lr, -np.inf)))
            gb = int(np.argmin(np.where(valid, lr, np.inf)))
            interior = top - rb > band[gt] + band_b and rb - bot > band[gb] + band_b
            # the two extreme generators: the widest angle, the best-conditioned solve
            pair = (
                _two_generators(float(logaB[i]), float(logbB[i]), gt, gb, lin, lout)
                if interior
                else None
            )
            if pair is not None:
                mu = pair
            elif np.any(exactly):  # on the cone's edge, at one of A's own classes
                g = int(
                    np.flatnonzero(exactly & same)[0]
                    if np.any(exactly & same)
                    else np.flatnonzero(exactly)[0]
                )
                mu = [(g, float(logaB[i] - lin[g]))]
                premise = premise or not bool(same[g])
            elif rb - top > band[gt] + band_b or bot - rb > band[gb] + band_b:
                return _max_case_fails(A, B, i, t, top, bot, rb, clock)
            else:  # no verdict for this class: a later class may still fail
                dist = min(abs(rb - top), abs(rb - bot))
                undecided.append(
                    f"B's class of size {t} (log-ratio {rb!r}) is within the rounding band of "
                    f"the edge of A's cone (distance {dist:.2e}), and no class of A is proved "
                    "to have the same real ratio (equal exact_log_ratio, or the same stored "
                    "class)"
                )
                continue
        for g, lm in mu:
            sidx, j = int(ii[g]), int(jj[g])
            sv = int(A.sizes[sidx])
            # u(s, t, j) = μ C(k, t) / C(k, s) (R[S, T] = μ / (C(t, j) C(k-t, s-j)))
            lcs = float(logck[t] - logck[sv])
            rows_s.append(sv)
            rows_t.append(t)
            rows_j.append(j)
            rows_mass.append(math.exp(lm + lcs) if lm + lcs < 709.0 else math.inf)
    if undecided:
        more = f" ({len(undecided) - 1} more such classes)" if len(undecided) > 1 else ""
        msg = f"max-case refinement: {undecided[0]}{more}; no class fails; no verdict"
        raise VerificationError(msg)
    W = OrbitWitness(
        k,
        np.array(rows_s),
        np.array(rows_t),
        np.array(rows_j),
        np.array(rows_mass),
        0.0,
        A,
        B,
    )
    how = (
        "every class of B lies in the two-dimensional cone of A's orbit-averaged columns "
        "(ratio a_t / b_t between the extreme generator ratios, beyond the rounding band)"
    )
    if premise:
        how += (
            "; classes on the cone's edge are proportional to one of A's own classes: both "
            "channels' closed forms give every class the real log-ratio exact_log_ratio (the "
            "protocols' eps, equal: e.g. SUE, OUE and GRR at the same eps), so the ratios are "
            "equal in the reals although their stored floats differ in the last bits"
        )
    return RefinementResult(
        True,
        witness=W,
        relation="max-case refinement",
        method="symmetric: max-case cones",
        certified_by=how,
        residual=0.0,
        min_entry=0.0,
        time=time.perf_counter() - clock.t0,
        about="protocols" if premise else "channels",
    )


def _equal_ratio(
    A: SymmetricChannel, B: SymmetricChannel, i: int, ii: np.ndarray, jj: np.ndarray, t: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per generator: (the same stored column as B's class ``i``, a real ratio proved equal
    to that class's), decided exactly, never within a tolerance.

    A pure generator is one column class of A: (a_s on T, b_s off T) at s = t, j = t, or
    (b_s on T, a_s off T) at s = k - t, j = 0, of real log-ratio +-ln(a_s / b_s). Equal to
    B's ln(a_t / b_t) when both channels state their exact log-ratio (the protocols' eps:
    :attr:`SymmetricChannel.exact_log_ratio`) and +-eps_A == eps_B, or, at s = t, when A's
    class holds the very floats of B's class (the same stored column).
    """
    k = A.k
    s = A.sizes[ii]
    in_side = (jj == t) & (s == t)  # value a_s on T, b_s off T
    out_side = (jj == 0) & (s == k - t)  # value b_s on T, a_s off T
    proved = np.zeros(ii.size, dtype=bool)
    ea, eb = A.exact_log_ratio, B.exact_log_ratio
    if ea is not None and eb is not None:
        proved |= in_side & (ea == eb)
        proved |= out_side & (-ea == eb)
    same = in_side & (A.log_in[ii] == B.log_in[i]) & (A.log_out[ii] == B.log_out[i])
    return same, proved


def _two_generators(la_b, lb_b, g1, g2, lin, lout):
    """[(g, log μ)] with μ1 v1 + μ2 v2 = (a, b), μ >= 0, v = (c_in, c_out); None if singular.

    Each column and the target are scaled by their larger coordinate (log space), so
    classes of mass 1e-300 solve as well as classes of mass 1.
    """
    if g1 == g2:
        return [(g1, la_b - float(lin[g1]))]
    sc = [max(float(lin[g]), float(lout[g])) for g in (g1, g2)]
    st = max(la_b, lb_b)
    v = [
        (math.exp(float(lin[g]) - c), math.exp(float(lout[g]) - c))
        for g, c in zip((g1, g2), sc, strict=True)
    ]
    a, b = math.exp(la_b - st), math.exp(lb_b - st)
    det = v[0][0] * v[1][1] - v[1][0] * v[0][1]
    if det == 0:
        return None
    m1 = (a * v[1][1] - v[1][0] * b) / det
    m2 = (v[0][0] * b - v[0][1] * a) / det
    if m1 < 0 or m2 < 0:
        return None
    return [(g, math.log(m) + st - c) for g, m, c in ((g1, m1, sc[0]), (g2, m2, sc[1])) if m > 0]


def _max_case_fails(A, B, i, t, top, bot, rb, clock) -> RefinementResult:
    """A column T of B outside A's cone: the gain 1 on T, −c off T separates it."""
    k = A.k
    if rb > top:  # c between max ratio and B's (geometric mean in log space)
        c = math.exp(0.5 * (top + rb)) if math.isfinite(top) else math.exp(rb) / 2
        g = np.where(np.arange(k) < t, 1.0, -c * t / (k - t))
    else:
        c = math.exp(0.5 * (bot + rb)) if math.isfinite(bot) else math.exp(rb) * 2
        g = np.where(np.arange(k) < t, -1.0, c * t / (k - t))
    g = g / np.abs(g).max()
    gap = _max_case_gap(A, B, g, t)
    how = (
        f"B's class of size {t} has log-ratio {rb:.6g} outside [{bot:.6g}, {top:.6g}] "
        "(the extreme ratios of A's orbit-averaged columns), beyond the rounding band; "
        "the gain 1 on T = {0..t-1}, −c off T separates it"
    )
    gq = None
    if not gap >= EXACT_GAP_RELATIVE:  # |V_g| <= max |g| = 1: its float digits are rounding
        gq, why_not = exact_max_case_gap_symmetric(A, B, float(g[0]), float(g[-1]), t)
        if gq is None:
            how += (
                f"; the gap {gap:.3g} is below {EXACT_GAP_RELATIVE:g} of |V_g| <= 1 and its "
                f"digits were not computed exactly ({why_not})"
            )
        elif not gq > 0:
            msg = (
                f"max-case refinement: the separating gain of B's class of size {t} has exact "
                f"gap {float(gq):.3g} <= 0 on the stored class masses (float {gap:.3g}); no "
                "verdict"
            )
            raise VerificationError(msg)
        else:
            how += (
                f"; the gap is below {EXACT_GAP_RELATIVE:g} of |V_g| <= 1: .gap is the exact "
                f"gap {float(gq):.6g} on the stored class masses, rounded (float evaluation "
                f"{gap:.3g})"
            )
            gap = float(gq)
    ce = Counterexample(g[None, :], uniform_prior(k), gap, gap_exact=gq, kind="max-case")
    return RefinementResult(
        False,
        counterexample=ce,
        relation="max-case refinement",
        method="symmetric: max-case cones",
        certified_by=how,
        time=time.perf_counter() - clock.t0,
    )


#: Largest number of generators whose column is formed in rationals by
#: :func:`exact_max_case_gap_symmetric` (only those within the float error of a maximum).
EXACT_MAX_CASE_TERMS: int = 100_000


def _near_maximal_columns(C: SymmetricChannel, gi: float, go: float, t: int) -> tuple[list, str]:
    """Rational columns (X_in, X_out) of C's generators for the class t whose posterior gain
    may be the maximum: those whose float value is within 64 u max(|gi|, |go|) of the float
    maximum (each value is within 16 u max |g| of its exact one)."""
    k = C.k
    s = C.sizes
    m = np.maximum(C.log_in, C.log_out)
    Pi, Po = np.exp(C.log_in - m), np.exp(C.log_out - m)  # each class scaled to its larger mass
    lo, hi = overlap_range(k, s, np.full(s.size, t))
    sf = np.maximum(s, 1).astype(np.float64)
    kf = np.maximum(k - s, 1).astype(np.float64)
    cols = []
    for j in (lo, hi):
        x_in = Pi * (j / sf) + Po * ((t - j) / kf)
        x_out = Pi * ((s - j) / sf) + Po * ((k - s - t + j) / kf)
        cols.append((j, x_in, x_out, (gi * x_in + go * x_out) / (x_in + x_out)))
    best = max(float(v.max()) for *_, v in cols)
    cut = best - 64.0 * _U * max(abs(gi), abs(go))
    keep = [(j, np.flatnonzero(v >= cut)) for j, _, _, v in cols]
    n = sum(idx.size for _, idx in keep)
    if n > EXACT_MAX_CASE_TERMS:
        return [], f"{n} near-maximal generators, beyond EXACT_MAX_CASE_TERMS"
    out = []
    for j, idx in keep:
        for a in idx.tolist():
            sv, jv = int(s[a]), int(j[a])
            pi, po = Fraction(float(Pi[a])), Fraction(float(Po[a]))
            xi = (pi * Fraction(jv, sv) if sv else 0) + (
                po * Fraction(t - jv, k - sv) if sv < k else 0
            )
            xo = (pi * Fraction(sv - jv, sv) if sv else 0) + (
                po * Fraction(k - sv - t + jv, k - sv) if sv < k else 0
            )
            out.append((Fraction(xi), Fraction(xo)))
    return out, ""


def exact_max_case_gap_symmetric(
    A: SymmetricChannel, B: SymmetricChannel, gi: float, go: float, t: int
) -> tuple[Fraction | None, str]:
    """The exact max-case gap of the gain (``gi`` on a set T of size t, ``go`` off it) under
    the uniform prior, on the stored class masses; (None, why) beyond its budget.

    The stored problem: each class's masses exp(log_in), exp(log_out), scaled by the larger
    of the two, read as the binary fractions they hold (a max-case vulnerability does not
    see a column's scale). A column S of class s at overlap j = |S ∩ T| then puts
    X_in = P_in j / s + P_out (t - j) / (k - s) on T and the rest of its class mass off T,
    so V_g^max is the largest (gi X_in + go X_out) / (X_in + X_out): the explicit routes'
    exact max-case vulnerability (:func:`qifldp.refinement.exact.exact_weighted_gap`) of
    the two-row channels (T, not T) whose columns are these near-maximal generators.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> gq, _ = exact_max_case_gap_symmetric(sym.grr(4, 1.0), sym.grr(4, 1.0 + 1e-13), 1.0, -0.9, 1)
    >>> 0 < gq < 1e-12
    True
    """
    cols, why = [], ""
    for C in (A, B):
        c, why = _near_maximal_columns(C, gi, go, t)
        if not c:
            return None, why
        cols.append(c)
    Aq = [[x for x, _ in cols[0]], [y for _, y in cols[0]]]
    Bq = [[x for x, _ in cols[1]], [y for _, y in cols[1]]]
    one = Fraction(1)
    return exact_weighted_gap(Aq, Bq, [[Fraction(gi), Fraction(go)]], False, [one, one]), ""


def _max_case_gap(A: SymmetricChannel, B: SymmetricChannel, g: np.ndarray, t: int) -> float:
    """V_g^max[υ▷B] − V_g^max[υ▷A] for the gain g (g_in on {0..t-1}, g_out elsewhere)."""
    gi, go = float(g[0]), float(g[-1])

    def vmax(C: SymmetricChannel) -> float:
        # the posterior gain of each generator: the average of gi and go weighted by
        # t e^lin and (k - t) e^lout, formed in log space (the entries underflow at large k)
        ii, jj, lin, lout, _ = _generators(C, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.log(t) + lin if t > 0 else np.full(lin.size, -np.inf)
            b = np.log(k - t) + lout if t < k else np.full(lout.size, -np.inf)
            m = np.maximum(a, b)
            ok = m > -np.inf
            wa, wb = np.exp(a[ok] - m[ok]), np.exp(b[ok] - m[ok])
        return float(np.max((gi * wa + go * wb) / (wa + wb), initial=-np.inf))

    k = A.k
    return vmax(B) - vmax(A)


def _max_case_fails_corner(A, B, t, clock) -> RefinementResult:  # pragma: no cover
    msg = f"max-case refinement: A has no column with mass on B's corner class of size {t}"
    raise VerificationError(msg)


def max_case_refines_symmetric(
    A: Any, B: Any, prior: Any = None, **options: Any
) -> RefinementResult:
    """:func:`qifldp.max_case_refines` of a pair with a symmetric channel (registered by
    :mod:`qifldp.symmetric`).

    Both channels symmetric over the same k: one two-dimensional cone test per class
    of B (:func:`max_case_refines`), O(k^2). ``options`` are those of
    :func:`qifldp.max_case_refines`, of which only ``time_limit`` is used; a prior, a
    ``method`` other than ``"auto"`` and ``exact=True`` are refused.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.max_case_refines(sym.sue(200, 9.0), sym.oue(200, 9.0)).holds
    True
    >>> q.max_case_refines(sym.grr(200, 1.0), sym.grr(200, 2.0)).holds
    False
    """
    for name in options:
        if name not in ("method", "exact", "time_limit", "strict"):
            msg = f"max_case_refines_symmetric() got an unexpected keyword argument {name!r}"
            raise TypeError(msg)
    check_kinds("max_case_refines", A, B)
    if prior is not None or options.get("method", "auto") != "auto" or options.get("exact"):
        msg = (
            "max-case refinement of symmetric channels takes no prior, method or exact option "
            "(its counterexample uses the uniform prior; expand() the channels for more)"
        )
        raise ParameterError(msg)
    t0 = time.perf_counter()
    try:
        r = max_case_refines(A, B, time_limit=options.get("time_limit", 120.0))
    except (SolverError, VerificationError) as exc:
        if options.get("strict", False):
            raise
        r = undecided_result(exc, "max-case refinement", time.perf_counter() - t0)
    return r.with_channels(A, B)
