"""Rigorous certificates for the orbit LP: gaps with error bounds, exact rational checks.

The *stored* problem is the one the channels' floats define: every class mass
P = exp(log P) as computed by :meth:`SymmetricChannel.class_masses` is read as
the binary fraction it holds, and all masses of a channel are divided by their
exact sum (the masses sum to 1 only up to rounding), as ``rational_rows`` does
for explicit channels. Everything here is about that problem:

* :func:`gap_with_bound` evaluates V_g[υ▷B] − V_g[υ▷A] for a symmetric gain in
  floating point with a rigorous bound on its error (so ``gap > bound`` proves
  the exact gap positive), and :func:`exact_gap` computes the same gap exactly in
  rationals (python-flint ``fmpq``) from the candidates the float pass leaves;
* :func:`exact_support_witness` solves the orbit equations exactly on the support
  of a float witness and checks u >= 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import now
from ..refinement._certify import UNIT_ROUNDOFF
from ..refinement.exact import rref
from .channel import SymmetricChannel
from .gain import SymmetricGain, overlap_range

# Any to mypy: the exact type is flint's or fractions', one per run (see refinement.exact)
fmpq: Any
fmpq_mat: Any
try:  # python-flint: exact rationals in C; fractions.Fraction (slower, same results) without it
    import flint as _flint

    fmpq, fmpq_mat = _flint.fmpq, _flint.fmpq_mat
except ImportError:  # pragma: no cover - python-flint is a dependency where it installs
    fmpq = Fraction
    fmpq_mat = None


class _Rref:
    """Row echelon form of a dense rational matrix, indexed R[r, c] as flint's."""

    def __init__(self, rows: list[list]) -> None:
        self._R, piv = rref(rows)
        self.rank = len(piv)

    def __getitem__(self, rc: tuple[int, int]):
        return self._R[rc[0]][rc[1]]


def _rref_rows(rows: list[list]) -> tuple[Any, int]:
    """(R, rank) of the rows: flint's fmpq_mat.rref when available, else Fractions."""
    if fmpq_mat is not None:
        return fmpq_mat(len(rows), len(rows[0]), [x for r in rows for x in r]).rref()
    R = _Rref(rows)
    return R, R.rank


__all__ = [
    "power_of_two_scale",
    "UNIT_ROUNDOFF",
    "EXACT_MAX_GAP_TERMS",
    "EXACT_MAX_SUPPORT_CELLS",
    "StoredMasses",
    "stored_masses",
    "exact_sum",
    "GapEvaluation",
    "gap_with_bound",
    "exact_gap",
    "exact_gain_vulnerabilities",
    "exact_support_witness",
    "EXACT_ORBIT_MAX_VARIABLES",
    "ExactOrbitOutcome",
    "OrbitTimeout",
    "exact_orbit_lp",
]

_U = UNIT_ROUNDOFF

#: Largest number of (output class, action size, overlap) terms whose value is computed
#: in rationals by :func:`exact_gap` (only the terms within the float error of a
#: maximum are; usually one or two per output class) and by
#: :func:`exact_gain_vulnerabilities` (every term: 2 x classes x action sizes per
#: channel). Measured: ~5 µs per term.
EXACT_MAX_GAP_TERMS: int = 200_000

#: Largest (equations x support size) of the exact support solve of
#: :func:`exact_support_witness` (a dense rational system; ~0.3 s at the limit,
#: e.g. UE pairs up to k ~ 60).
EXACT_MAX_SUPPORT_CELLS: int = 40_000

#: At most this many (output class, action size) pairs are evaluated per block (a gain
#: of few action sizes takes many classes per block: k = 10^6 in a few blocks).
_BLOCK_ENTRIES = 1 << 15


def _q(x: float) -> fmpq:
    n, d = float(x).as_integer_ratio()
    return fmpq(n, d)


def _to_fraction(x: fmpq) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))


def power_of_two_scale(top: Fraction) -> Fraction:
    """The power of 2, c, that puts c·top in (1/2, 1] (top > 0, any magnitude: from the
    bit lengths, no float).

    >>> power_of_two_scale(Fraction(3, 4)), power_of_two_scale(Fraction(5, 2))
    (Fraction(1, 1), Fraction(1, 4))
    >>> tiny = Fraction(1, 10**400)
    >>> Fraction(1, 2) < power_of_two_scale(tiny) * tiny <= 1
    True
    """
    e = top.numerator.bit_length() - top.denominator.bit_length()
    scale = Fraction(2) ** (-e)
    while top * scale > 1:
        scale /= 2
    while top * scale <= Fraction(1, 2):
        scale *= 2
    return scale


@dataclass(frozen=True)
class StoredMasses:
    """The class masses of a channel as stored: floats, their exact sum, and rationals.

    ``Pi``, ``Po`` are the floats; the stored problem uses Pi / total and
    Po / total (exactly), with ``norm_err`` >= |1 − 1/total| (rigorous).
    """

    k: int
    sizes: np.ndarray
    Pi: np.ndarray
    Po: np.ndarray
    total: Fraction
    norm_err: float

    def rational(self, i: int) -> tuple[fmpq, fmpq]:
        """(Pi_i / total, Po_i / total) exactly."""
        tot = fmpq(self.total.numerator, self.total.denominator)
        return _q(self.Pi[i]) / tot, _q(self.Po[i]) / tot


def exact_sum(values: np.ndarray) -> Fraction:
    """The exact sum of finite non-negative floats, as a Fraction, in O(n) vectorised steps.

    Each value is M 2^E with an integer M < 2^53 (``frexp``); M is split into 26-bit
    halves whose sums per exponent stay below 2^53 (exact in float64) for up to 2^26
    values; the few per-exponent sums are then added as Python integers.

    >>> exact_sum(np.array([0.1, 0.2, 5e-324])) == Fraction(0.1) + Fraction(0.2) + Fraction(5e-324)
    True
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[v != 0.0]
    if v.size == 0:
        return Fraction(0)
    if v.size >= 2**26:  # pragma: no cover - beyond any class table (MAX_CLASSES)
        return sum((Fraction(float(x)) for x in v), Fraction(0))
    m, e = np.frexp(v)
    M = (m * 2.0**53).astype(np.int64)  # exact: m has at most 53 significant bits
    E = e.astype(np.int64) - 53
    uniq, inv = np.unique(E, return_inverse=True)
    hi = np.bincount(inv, weights=(M >> 26).astype(np.float64))
    lo = np.bincount(inv, weights=(M & (2**26 - 1)).astype(np.float64))
    base = int(uniq[0])
    N = 0
    for Eg, h, low in zip(uniq.tolist(), hi.tolist(), lo.tolist(), strict=True):
        N += ((int(h) << 26) + int(low)) << (Eg - base)
    return Fraction(N * 2**base) if base >= 0 else Fraction(N, 2**-base)


def stored_masses(C: SymmetricChannel) -> StoredMasses:
    """The stored class masses of ``C`` and their exact normalisation.

    >>> import qifldp.symmetric as sym
    >>> m = stored_masses(sym.grr(3, 0.0))
    >>> m.norm_err < 1e-15
    True
    """
    Pi, Po = C.class_masses()
    total = exact_sum(np.concatenate([Pi, Po]))
    err = abs(1 - 1 / total)
    norm_err = float(err) * (1 + 4 * _U) + 1e-300 if err else 0.0
    return StoredMasses(C.k, C.sizes, Pi, Po, total, norm_err)


@dataclass
class GapEvaluation:
    """V_g[υ▷B] − V_g[υ▷A] in floating point, its rigorous error bound, and the
    near-maximal terms per output class (for :func:`exact_gap`)."""

    gap: float
    bound: float
    va: float
    vb: float
    candidates: tuple  # per channel: (class index, action index, overlap j) arrays


def _values(m: StoredMasses, G: SymmetricGain, rows: slice):
    """Values v(s, t, j) (output class s, action size t, extreme overlaps j) and error bounds."""
    k = m.k
    s = m.sizes[rows, None]
    Pi, Po = m.Pi[rows, None], m.Po[rows, None]
    t = G.sizes[None, :]
    gi, go = G.g_in[None, :], G.g_out[None, :]
    lo, hi = overlap_range(k, s, t)
    d = gi - go
    mass = Pi + Po
    out_v, out_e = [], []
    sf = np.maximum(s, 1).astype(np.float64)
    kf = np.maximum(k - s, 1).astype(np.float64)
    for j in (lo, hi):
        c_in = np.where(s > 0, Pi * j / sf, 0.0) + np.where(s < k, Po * (t - j) / kf, 0.0)
        a = go * mass
        b = d * c_in
        v = a + b
        # relative errors: mass u; go*mass 2u; c_in 3u (two products, one sum); d u; d*c_in 5u;
        # the final sum u: 6u (|a| + |b|) + u |v| with room to spare
        e = 8.0 * _U * (np.abs(a) + np.abs(b)) + 2.0 * _U * np.abs(v)
        out_v.append(v)
        out_e.append(e)
    return np.stack(out_v, axis=-1), np.stack(out_e, axis=-1), lo, hi


def _vulnerability(m: StoredMasses, G: SymmetricGain, check: Callable[[str], Any] | None = None):
    """V_g[υ▷C] (floats of the stored masses, unnormalised), error bound, candidates;
    ``check(stage)`` (the caller's time budget) is called before each block of classes."""
    parts: list[float] = []  # per block: the correctly rounded sum of its classes' maxima
    err = 0.0
    cs, ct, cj = [], [], []
    block = max(1, _BLOCK_ENTRIES // max(1, G.sizes.size))
    for start in range(0, m.sizes.size, block):
        if check is not None:
            check("the evaluation of a gain")
        rows = slice(start, start + block)
        v, e, lo, hi = _values(m, G, rows)
        n = v.shape[0]
        flat = v.reshape(n, -1)
        best = flat.max(axis=1)
        emax = e.reshape(n, -1).max(axis=1)
        parts.append(math.fsum(best.tolist()))
        err += float(emax.sum())
        near = flat >= (best - 2.0 * emax)[:, None]
        ii, kk = np.nonzero(near)
        ti, which = np.divmod(kk, 2)
        jj = np.where(which == 0, lo[ii, ti], hi[ii, ti])
        cs.append(ii + start)
        ct.append(ti)
        cj.append(jj)
    val = math.fsum(parts)
    # each fsum is correctly rounded (a block's within u of its value, the sum of the
    # blocks' within u |val|); the error of each class's maximum is at most its largest
    # term error; normalisation by the exact total changes V by <= |V| norm_err
    if len(parts) > 1:
        err += _U * (1.0 + 2 * _U) * math.fsum(abs(p) for p in parts)
    err = (err + _U * abs(val) + abs(val) * m.norm_err) * (1.0 + 8 * _U)
    cand = (np.concatenate(cs), np.concatenate(ct), np.concatenate(cj))
    return val, err, cand


def gap_with_bound(
    A: SymmetricChannel,
    B: SymmetricChannel,
    G: SymmetricGain,
    check: Callable[[str], Any] | None = None,
) -> GapEvaluation:
    """V_g[υ▷B] − V_g[υ▷A] (uniform prior) with a rigorous bound on its floating-point error.

    Parameters
    ----------
    A, B : SymmetricChannel
    G : SymmetricGain
        Over the same k.
    check : callable, optional
        Called with a stage name before each block of classes (a time budget that
        raises when spent: an evaluation over 10^6 classes then stops within a block).

    Returns
    -------
    GapEvaluation
        ``gap`` and ``bound``: the exact gap of the stored problem lies in
        [gap − bound, gap + bound].

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> ev = gap_with_bound(sym.grr(5, 1.0), sym.grr(5, 2.0), SymmetricGain.identity(5))
    >>> bool(ev.gap > ev.bound)
    True
    """
    ma = stored_masses(A)
    if check is not None and A.sizes.size > _BLOCK_ENTRIES:  # an O(k) pass
        check("the evaluation of a gain")
    mb = stored_masses(B)
    va, ea, ca = _vulnerability(ma, G, check)
    vb, eb, cb = _vulnerability(mb, G, check)
    gap = vb - va
    bound = (ea + eb + _U * abs(gap)) * (1.0 + 8 * _U)
    return GapEvaluation(gap, bound, va, vb, (ca, cb))


def _exact_vulnerability(m: StoredMasses, sizes: np.ndarray, gi: list, go: list, cand) -> fmpq:
    """V_g[υ▷C] of the stored problem in rationals, the maximum per output class taken
    over the terms ``cand`` = (class index, action index, overlap j) arrays; ``gi``,
    ``go`` the gain's values per action size (``fmpq``)."""
    k = m.k
    ci, ti, jj = cand
    best: dict[int, fmpq] = {}
    cache: dict[int, tuple[fmpq, fmpq]] = {}
    for i, a, j in zip(ci.tolist(), ti.tolist(), jj.tolist(), strict=True):
        if i not in cache:
            cache[i] = m.rational(i)
        Pi, Po = cache[i]
        s = int(m.sizes[i])
        t = int(sizes[a])
        d = gi[a] - go[a]
        v = fmpq(0)
        if s > 0 and Pi != 0:
            v += Pi * (go[a] + d * fmpq(j, s))
        if s < k and Po != 0:
            v += Po * (go[a] + d * fmpq(t - j, k - s))
        if i not in best or v > best[i]:
            best[i] = v
    return sum(best.values(), fmpq(0))


def _every_term(m: StoredMasses, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (output class, action size, extreme overlap j) of a channel and a gain: V_g's
    term is linear in j, so a class's maximum is at one of the two extreme overlaps."""
    ci, ti = np.divmod(np.arange(m.sizes.size * sizes.size), sizes.size)
    lo, hi = overlap_range(m.k, m.sizes[ci], sizes[ti])
    return np.repeat(ci, 2), np.repeat(ti, 2), np.stack([lo, hi], axis=1).ravel()


def exact_gain_vulnerabilities(
    A: SymmetricChannel,
    B: SymmetricChannel,
    sizes: Any,
    g_in: Any,
    g_out: Any,
) -> tuple[Fraction, Fraction] | None:
    """(V_g[υ▷A], V_g[υ▷B]) of a symmetric gain with rational values, exactly, over every term.

    Every output class of both channels, every action size and both extreme overlaps
    are evaluated in rationals on the stored class masses (no float screen); None when
    that is more than :data:`EXACT_MAX_GAP_TERMS` terms.

    Parameters
    ----------
    A, B : SymmetricChannel
        Over the same k.
    sizes : sequence of int
        The gain's action sizes.
    g_in, g_out : sequence of Fraction, int or float
        The gain per action size (a float is read as the rational it holds).

    Returns
    -------
    (fractions.Fraction, fractions.Fraction) or None

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> from fractions import Fraction
    >>> A, B = sym.grr(3, 1.0), sym.grr(3, 2.0)
    >>> va, vb = exact_gain_vulnerabilities(A, B, [1], [Fraction(1)], [Fraction(0)])
    >>> vb > va
    True
    """
    sz = np.asarray(sizes, dtype=np.int64).reshape(-1)
    if A.sizes.size * sz.size * 2 + B.sizes.size * sz.size * 2 > EXACT_MAX_GAP_TERMS:
        return None

    def rational(v: Any) -> fmpq:
        if isinstance(v, float):
            return _q(v)
        r = Fraction(v)
        return fmpq(r.numerator, r.denominator)

    gi = [rational(v) for v in g_in]
    go = [rational(v) for v in g_out]
    out = []
    for C in (A, B):
        m = stored_masses(C)
        out.append(_to_fraction(_exact_vulnerability(m, sz, gi, go, _every_term(m, sz))))
    return out[0], out[1]


def exact_gap(
    A: SymmetricChannel, B: SymmetricChannel, G: SymmetricGain, ev: GapEvaluation
) -> Fraction | None:
    """The exact gap V_g[υ▷B] − V_g[υ▷A] of the stored problem, or None beyond the budget.

    Only the terms the float evaluation ``ev`` could not rule out as a class's
    maximum are computed in rationals (at most :data:`EXACT_MAX_GAP_TERMS`;
    :func:`exact_gain_vulnerabilities` computes every term).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> A, B, G = sym.grr(3, 1.0), sym.grr(3, 1.0 + 1e-14), SymmetricGain.identity(3)
    >>> exact_gap(A, B, G, gap_with_bound(A, B, G)) > 0
    True
    """
    (ca, cb) = ev.candidates
    if ca[0].size + cb[0].size > EXACT_MAX_GAP_TERMS:
        return None
    gi = [_q(v) for v in G.g_in]
    go = [_q(v) for v in G.g_out]
    vb = _exact_vulnerability(stored_masses(B), G.sizes, gi, go, cb)
    va = _exact_vulnerability(stored_masses(A), G.sizes, gi, go, ca)
    return _to_fraction(vb - va)


def _orbit_coefficients(Pi: Any, Po: Any, k: int, s: int, t: int, j: int) -> tuple[Any, Any]:
    """Exact coefficients of the orbit variable (s, t, j) in B's inner and outer class
    equations, from A's class masses Pi (on S) and Po (off S) of the size-s class."""
    cin = fmpq(0)
    cout = fmpq(0)
    if s > 0:
        cin += Pi * fmpq(j, s)
        cout += Pi * fmpq(s - j, s)
    if s < k:
        cin += Po * fmpq(t - j, k - s)
        cout += Po * fmpq(k - s - t + j, k - s)
    return cin, cout


def exact_support_witness(
    A: SymmetricChannel,
    B: SymmetricChannel,
    variables: tuple,
    b_rows: tuple,
    u: np.ndarray,
    extra: np.ndarray | None = None,
) -> tuple[np.ndarray | None, str]:
    """Solve the orbit equations exactly on the support of ``u``; (u_exact as floats or None, why).

    ``extra``: further variables (value 0 in ``u``) that may enter the support,
    for equations the float solution leaves unmatched; they come after the
    support in the elimination order, so they are pivots only where the
    support cannot span an equation.

    ``variables`` = (iS, iT, s, t, j) of the orbit LP and ``b_rows`` = (row_in,
    row_out) its row numbers of B's classes. The equations (rows of A's sizes
    summing to 1, B's class masses) are built from the stored masses in
    rationals, restricted to the columns where u > 0, and solved by rational
    Gauss-Jordan elimination; free variables (a rank-deficient support) keep the
    rationalised float values. The witness is verified when the system is
    consistent and every solved entry is >= 0; the solution is re-substituted into
    every equation exactly.
    """
    iS, iT, s, t, j = variables
    row_in, row_out = b_rows
    # columns by decreasing value: the Gauss-Jordan pivots (which absorb the exact
    # correction of the float solution) are then the largest entries, so they stay >= 0
    sup = np.flatnonzero(u > 0)
    sup = sup[np.argsort(-u[sup], kind="stable")]
    if extra is not None and len(extra):
        more = np.setdiff1d(np.asarray(extra, dtype=np.int64), sup)
        sup = np.concatenate([sup, more])
    nS = A.sizes.size
    n_eq = nS + int((row_in >= 0).sum()) + int((row_out >= 0).sum())
    if n_eq * sup.size > EXACT_MAX_SUPPORT_CELLS:
        return None, (
            f"exact support solve skipped: {n_eq} x {sup.size} system "
            f"(> EXACT_MAX_SUPPORT_CELLS = {EXACT_MAX_SUPPORT_CELLS})"
        )
    ma, mb = stored_masses(A), stored_masses(B)
    k = A.k
    rows = [[fmpq(0)] * (sup.size + 1) for _ in range(n_eq)]
    for r in range(nS):
        rows[r][sup.size] = fmpq(1)
    for i in range(B.sizes.size):
        Pi, Po = mb.rational(i)
        if row_in[i] >= 0:
            rows[row_in[i]][sup.size] = Pi
        if row_out[i] >= 0:
            rows[row_out[i]][sup.size] = Po
    cache: dict[int, tuple[fmpq, fmpq]] = {}
    for c, v in enumerate(sup.tolist()):
        a, b = int(iS[v]), int(iT[v])
        sv, tv, jv = int(s[v]), int(t[v]), int(j[v])
        if a not in cache:
            cache[a] = ma.rational(a)
        Pi, Po = cache[a]
        cin, cout = _orbit_coefficients(Pi, Po, k, sv, tv, jv)
        rows[a][c] = fmpq(1)
        if row_in[b] >= 0:
            rows[row_in[b]][c] = cin
        if row_out[b] >= 0:
            rows[row_out[b]][c] = cout
    # drop rows that are 0 = 0; a row 0 = c != 0 makes the system inconsistent
    keep = []
    for eq in rows:
        if any(x != 0 for x in eq[:-1]):
            keep.append(eq)
        elif eq[-1] != 0:
            return None, "exact support solve: an equation has no support variable but mass > 0"
    m = sup.size
    R, rank = _rref_rows(keep)
    x = [_q(u[v]) for v in sup.tolist()]
    pivots = []
    for r in range(rank):
        col = next(c for c in range(m + 1) if R[r, c] != 0)
        if col == m:
            return None, "exact support solve: the orbit equations are inconsistent on the support"
        pivots.append(col)
    free = [c for c in range(m) if c not in set(pivots)]
    for r, col in enumerate(pivots):
        val = R[r, m]
        for f in free:
            if R[r, f] != 0:
                val -= R[r, f] * x[f]
        x[col] = val
    if any(v < 0 for v in x):
        return None, "exact support solve: the exact solution on the support has a negative entry"
    # re-substitute into every original equation
    for eq in rows:
        if sum((eq[c] * x[c] for c in range(m) if eq[c] != 0), fmpq(0)) != eq[-1]:
            return None, "exact support solve: re-substitution failed"  # pragma: no cover
    out = np.zeros_like(u)
    out[sup] = [float(_to_fraction(v)) for v in x]
    return out, (
        f"exact rational solve of the orbit equations on the witness's support "
        f"({len(keep)} equations, {m} orbit variables, rank {rank}): every equation holds "
        "exactly and every entry is >= 0"
    )


# --------------------------------------------------------------------------------------
# the exact orbit LP: a rational phase-1 simplex warm-started from the float witness
# --------------------------------------------------------------------------------------
#: Largest orbit LP (variables) the exact simplex of :func:`exact_orbit_lp` takes on
#: (UE pairs up to k ~ 150; measured: k = 50, 5,100 variables, ~2 s).
EXACT_ORBIT_MAX_VARIABLES: int = 50_000

#: After this many consecutive degenerate pivots (Dantzig's rule) the simplex switches
#: to Bland's rule for good, which cannot cycle.
_DEGENERATE_STREAK: int = 50
#: Columns priced per chunk (partial pricing) by the exact simplex.
_PRICING_CHUNK: int = 256
#: Columns of B^-1 summed between two readings of the deadline in :meth:`_Simplex.duals`.
_DUALS_TICK: int = 4096


class OrbitTimeout(Exception):
    """The exact simplex ran past its deadline (internal: callers turn it into SolverError)."""


@dataclass
class ExactOrbitOutcome:
    """The exact decision of the stored orbit LP M u = rhs, u >= 0.

    ``holds`` True: ``u`` (rationals, one per orbit variable) satisfies every orbit
    equation exactly with u >= 0. False: ``y`` (rationals, one per equation) is a
    Farkas certificate, y·M_v <= 0 for every variable v and y·rhs > 0, checked
    exactly. ``pivots``: simplex pivots (``crash``: of them, warm-start pivots of
    the float witness's support); ``basis``: the basic columns (variables; an
    index >= n_var is an artificial) of the final basis.
    """

    holds: bool
    u: list | None
    y: list | None
    pivots: int
    crash: int
    basis: list
    n_equations: int
    n_variables: int
    farkas_value: Any = None


def _exact_columns(
    A: SymmetricChannel, B: SymmetricChannel, variables: tuple, b_rows: tuple
) -> tuple[list[list[tuple[int, Any]]], list]:
    """The orbit system of the stored problem in rationals: sparse columns and rhs."""
    iS, iT, s, t, j = variables
    row_in, row_out = b_rows
    ma, mb = stored_masses(A), stored_masses(B)
    k = A.k
    nS = A.sizes.size
    n_eq = nS + int((row_in >= 0).sum()) + int((row_out >= 0).sum())
    rhs = [fmpq(1)] * nS + [fmpq(0)] * (n_eq - nS)
    for i in range(B.sizes.size):
        Pi, Po = mb.rational(i)
        if row_in[i] >= 0:
            rhs[int(row_in[i])] = Pi
        if row_out[i] >= 0:
            rhs[int(row_out[i])] = Po
    massA = [ma.rational(a) for a in range(nS)]
    cols = []
    for a, b, sv, tv, jv in zip(
        iS.tolist(), iT.tolist(), s.tolist(), t.tolist(), j.tolist(), strict=True
    ):
        Pi, Po = massA[a]
        cin, cout = _orbit_coefficients(Pi, Po, k, sv, tv, jv)
        col = [(int(a), fmpq(1))]
        if row_in[b] >= 0 and cin != 0:
            col.append((int(row_in[b]), cin))
        if row_out[b] >= 0 and cout != 0:
            col.append((int(row_out[b]), cout))
        cols.append(col)
    return cols, rhs


class _Simplex:
    """Phase 1 of min Σ a over M x + a = rhs (rhs >= 0), x, a >= 0, in exact rationals.

    The basis inverse is kept explicitly, by columns, as sparse dicts (the orbit
    basis is sparse: 3 nonzeros per column of M); an artificial that leaves the
    basis is dropped for good (which keeps the phase-1 LP valid).
    """

    def __init__(self, cols: list, rhs: list, deadline: float | None) -> None:
        self.cols = cols
        self.n = len(rhs)
        self.nv = len(cols)
        self.rhs = rhs
        self.deadline = deadline
        self.Binv: list[dict[int, Any]] = [{i: fmpq(1)} for i in range(self.n)]
        self.basis = [self.nv + i for i in range(self.n)]  # row r holds basis[r]
        self.xB = list(rhs)
        self.in_basis = set(self.basis)
        self.pivots = 0

    def _tick(self) -> None:
        if self.deadline is not None and now() > self.deadline:
            raise OrbitTimeout

    def column(self, v: int) -> dict[int, Any]:
        """B^-1 a_v (sparse)."""
        out: dict[int, Any] = {}
        for row, val in self.cols[v]:
            for i, b in self.Binv[row].items():
                out[i] = out.get(i, 0) + val * b
        return {i: x for i, x in out.items() if x != 0}

    def ratio(self, alpha: dict[int, Any]) -> int | None:
        """The leaving row: min x_B / alpha over alpha > 0 (ties: artificials first)."""
        best = None
        best_key = None
        for i, a in alpha.items():
            if a > 0:
                r = self.xB[i] / a
                key = (r, 0 if self.basis[i] >= self.nv else 1, self.basis[i])
                if best_key is None or key < best_key:
                    best, best_key = i, key
        return best

    def pivot(self, v: int, r: int, alpha: dict[int, Any]) -> None:
        self._tick()
        ar = alpha[r]
        theta = self.xB[r] / ar
        if theta != 0:
            for i, a in alpha.items():
                self.xB[i] -= theta * a
        self.xB[r] = theta
        for col in self.Binv:
            br = col.get(r)
            if br is None:
                continue
            w = br / ar
            for i, a in alpha.items():
                if i == r:
                    continue
                nv = col.get(i, 0) - a * w
                if nv == 0:
                    col.pop(i, None)
                else:
                    col[i] = nv
            col[r] = w
        self.in_basis.discard(self.basis[r])
        self.basis[r] = v
        self.in_basis.add(v)
        self.pivots += 1

    def duals(self) -> list:
        """y = c_B^T B^-1 (c = 1 on artificials): each column's entries on the artificials'
        rows, read from its nonzeros (O(nonzeros of B^-1), not rows x artificials: at
        20,000 orbit variables the latter was 4e8 lookups, minutes past any deadline)."""
        art = {r for r in range(self.n) if self.basis[r] >= self.nv}
        out = []
        for i, col in enumerate(self.Binv):
            if i % _DUALS_TICK == 0:
                self._tick()
            out.append(sum((v for r, v in col.items() if r in art), fmpq(0)))
        return out

    def reduced_cost(self, y: list, v: int) -> Any:
        """c_v − y·a_v (c_v = 0 for an orbit variable)."""
        d = fmpq(0)
        for row, val in self.cols[v]:
            yr = y[row]
            if yr != 0:
                d -= yr * val
        return d

    def run(self) -> list:
        """Pivot to phase-1 optimality; the final duals y.

        Partial pricing: columns are scanned in chunks of :data:`_PRICING_CHUNK` from
        where the last scan stopped, and the most negative reduced cost of the first
        chunk that has one enters (Dantzig's rule within the chunk); optimality is
        declared only after a full scan finds none.
        """
        bland = False
        streak = 0
        start = 0
        nv = self.nv
        while True:
            self._tick()
            y = self.duals()
            enter = None
            if bland:
                for v in range(nv):
                    if v not in self.in_basis and self.reduced_cost(y, v) < 0:
                        enter = v
                        break
            else:
                best = None
                scanned = 0
                v = start
                while scanned < nv:
                    if v not in self.in_basis:
                        d = self.reduced_cost(y, v)
                        if d < 0 and (best is None or d < best):
                            enter, best = v, d
                    scanned += 1
                    v = v + 1 if v + 1 < nv else 0
                    if enter is not None and scanned % _PRICING_CHUNK == 0:
                        break
                start = v
            if enter is None:
                return y
            alpha = self.column(enter)
            r = self.ratio(alpha)
            if r is None:  # pragma: no cover - phase 1 is bounded below by 0
                raise AssertionError("unbounded phase-1 simplex")
            streak = streak + 1 if self.xB[r] == 0 else 0
            if streak >= _DEGENERATE_STREAK:
                bland = True
            self.pivot(enter, r, alpha)


def exact_orbit_lp(
    A: SymmetricChannel,
    B: SymmetricChannel,
    variables: tuple,
    b_rows: tuple,
    hint: np.ndarray | None = None,
    deadline: float | None = None,
) -> ExactOrbitOutcome:
    """Decide the stored orbit LP M u = rhs, u >= 0 exactly (rational phase-1 simplex).

    Parameters
    ----------
    A, B, variables, b_rows
        The pair (over the same k) and the orbit variables (iS, iT, s, t, j) and B's
        row numbers (row_in, row_out) that :func:`~qifldp.symmetric.orbit_lp.orbit_equations`
        gives for it.
    hint : numpy.ndarray or None
        A float solution; its support (largest entries first) is pivoted into the
        all-artificial start basis where the ratio test lets an artificial leave
        (the warm start), so the simplex usually needs only a few more pivots.
    deadline : float or None
        ``qifldp.deadline.now()`` reading past which :class:`OrbitTimeout` is raised.

    Returns
    -------
    ExactOrbitOutcome
        Either an exact witness u (every equation re-checked exactly, u >= 0) or an
        exact Farkas certificate y (y·M <= 0 column by column, y·rhs > 0).

    Raises
    ------
    OrbitTimeout
        Past ``deadline``.

    Notes
    -----
    The data are the stored class masses read as rationals and normalised by their
    exact sums (see :func:`stored_masses`). Pricing is Dantzig's rule, switching to
    Bland's rule after a streak of degenerate pivots, so the simplex terminates.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> from qifldp.symmetric.orbit_lp import orbit_equations
    >>> A, B = sym.sue(4, 2.0), sym.oue(4, 2.0)
    >>> _, _, variables, _, b_rows = orbit_equations(A, B)
    >>> exact_orbit_lp(A, B, variables, b_rows).holds
    False
    """
    cols, rhs = _exact_columns(A, B, variables, b_rows)
    S = _Simplex(cols, rhs, deadline)
    crash = 0
    if hint is not None:
        sup = np.flatnonzero(np.asarray(hint) > 0)
        for v in sup[np.argsort(-np.asarray(hint)[sup], kind="stable")].tolist():
            alpha = S.column(v)
            r = S.ratio(alpha)
            if r is not None and S.basis[r] >= S.nv:
                S.pivot(v, r, alpha)
                crash += 1
    y = S.run()
    n, nv = S.n, S.nv
    value = sum((S.xB[r] for r in range(n) if S.basis[r] >= nv), fmpq(0))
    if value == 0:
        u = [fmpq(0)] * nv
        for r, v in enumerate(S.basis):
            if v < nv:
                u[v] = S.xB[r]
        # the certificate, re-checked from scratch: M u = rhs exactly, u >= 0
        acc = [fmpq(0)] * n
        for v, col in enumerate(cols):
            if u[v] != 0:
                for row, val in col:
                    acc[row] += val * u[v]
        if any(x < 0 for x in u) or acc != rhs:  # pragma: no cover - a bug, never a verdict
            raise AssertionError("the exact orbit witness failed its exact re-check")
        return ExactOrbitOutcome(True, u, None, S.pivots, crash, list(S.basis), n, nv)
    # Farkas: y·M_v <= 0 for every column, y·rhs = the phase-1 optimum > 0
    fv = sum((a * b for a, b in zip(y, rhs, strict=True)), fmpq(0))
    bad = any(sum((y[row] * val for row, val in col), fmpq(0)) > 0 for col in cols)
    if bad or not fv > 0:  # pragma: no cover - a bug, never a verdict
        raise AssertionError("the exact Farkas certificate failed its exact re-check")
    return ExactOrbitOutcome(False, None, y, S.pivots, crash, list(S.basis), n, nv, fv)
