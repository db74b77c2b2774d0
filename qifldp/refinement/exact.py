"""Exact rational decision and verification of refinement (rational arithmetic).

The channels are read exactly as stored: every float is the binary fraction it
holds, and every row is divided by its exact sum (a Channel's rows sum to 1 only
up to rounding). On these rational channels:

* a witness is *verified* by solving A·W = B, W·1 = 1 exactly on the support of a
  floating solution (free variables fixed to the rationalised floating values) and
  checking W >= 0 entry by entry;
* refinement is *decided* by the closed form W = A_S⁻¹ B_S when A has full column
  rank (unique candidate), and otherwise by a rational Phase-I simplex (Bland's
  rule, so it terminates) whose final dual is a Farkas certificate;
* a counterexample is verified by computing its gap exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import now
from ..errors import VerificationError
from ._screen import SCREEN_MIN_PAIRS, cached_view, max_case_screen, vuln_screen

__all__ = [
    "EXACT_MAX_OPS",
    "EXACT_SIMPLEX_MAX_OPS",
    "ExactTooLarge",
    "EXACT_NUMBER_TYPE",  # noqa: F822 - resolved by the module's __getattr__ on first read
    "EXACT_SIMPLEX_MAX_OPS_FLINT",
    "ExactOutcome",
    "rational_rows",
    "distinct_columns",
    "CONVERT_CHUNK",
    "check_deadline",
    "exact_decide",
    "exact_verify_witness",
    "exact_gap",
    "exact_weighted_gap",
    "exact_max_case_gap",
    "estimate_exact_cost",
    "check_exact_witness",
]

#: Largest estimated number of rational operations of the exact closed form
#: (a few seconds with fractions.Fraction); beyond it, exact arithmetic is refused.
EXACT_MAX_OPS: int = 4 * 10**6

#: The same for the rational simplex on rationalised floats (denominators of more
#: than 32 bits), whose entries grow much larger (measured: ~40 µs per operation);
#: data with small denominators gets EXACT_MAX_OPS.
EXACT_SIMPLEX_MAX_OPS: int = 2 * 10**5


class ExactTooLarge(VerificationError):
    """The exact rational decision would exceed its operation budget."""


Q = Fraction
_ZERO = Fraction(0)
_ONE = Fraction(1)

# The exact number type is Any to mypy: fmpq and Fraction interoperate with ints but not
# with each other, and each run uses only one of them (inputs are converted on entry).
# It is resolved by the first exact decision (:func:`_number_type`): importing
# python-flint costs 60-100 ms, which a refinement decided by a verified floating
# witness or counterexample never needs.
_R: Any = None
_RZ: Any = None
_RO: Any = None


def _number_type() -> type:
    """The exact decision's number type, resolved once: ``flint.fmpq`` if installed."""
    global _R, _RZ, _RO
    if _R is None:
        R: Any
        try:  # python-flint's fmpq: the same exact rationals, arithmetic in C (10-50x faster)
            import flint

            R = flint.fmpq
        except ImportError:  # pragma: no cover - python-flint is a dependency where it installs
            R = Fraction
        _RZ, _RO, _R = R(0), R(1), R
    return _R


def __getattr__(name: str) -> Any:
    """``EXACT_NUMBER_TYPE``: the number type of the exact decision (closed form and
    simplex), ``flint.fmpq`` when python-flint is installed, else ``fractions.Fraction``;
    reading it resolves the type (imports python-flint). Inputs and outputs of the public
    functions are Fractions either way."""
    if name == "EXACT_NUMBER_TYPE":
        return _number_type()
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


#: The simplex budget when python-flint is installed (measured: 0.1-1.5 µs per
#: estimated operation on rationalised floats, e.g. 4x15 vs 4x15 UE pairs at
#: eps = 20 in 0.5-2.5 s); a ``deadline`` bounds the time in any case.
EXACT_SIMPLEX_MAX_OPS_FLINT: int = 5 * 10**7


def check_deadline(deadline: float | None, what: str = "the exact rational simplex") -> None:
    """Raise :class:`ExactTooLarge` naming ``what`` once :func:`qifldp.deadline.now` is past
    ``deadline`` (None: no limit, and the clock is not read).

    Examples
    --------
    >>> check_deadline(None)
    >>> check_deadline(float("-inf"), "the test")
    Traceback (most recent call last):
    ...
    qifldp.refinement.exact.ExactTooLarge: the test reached the time limit ...
    """
    if deadline is not None and now() > deadline:
        msg = f"{what} reached the time limit (time_limit) before deciding"
        raise ExactTooLarge(msg)


#: Entries converted to rationals between two readings of the clock in :func:`rational_rows`.
CONVERT_CHUNK: int = 4096


def _fast(M: Sequence[Sequence[Fraction]]) -> list[list]:
    """Fractions (or ints) -> the decision's number type."""
    R = _number_type()
    if R is Fraction:
        return [list(r) for r in M]
    return [[R(int(v.numerator), int(v.denominator)) for v in r] for r in M]


def _slow(M: Sequence[Sequence]) -> list[list[Fraction]]:
    """The decision's number type -> Fractions."""
    if _R is Fraction:
        return [list(r) for r in M]
    return [[Fraction(int(v.numerator), int(v.denominator)) for v in r] for r in M]


@dataclass
class ExactOutcome:
    """Exact verdict: W (m x p Fractions) if it holds, else H (p x n, π-weighted gain)."""

    holds: bool
    W: list[list[Fraction]] | None = None
    H: list[list[Fraction]] | None = None
    how: str = ""


def rational_rows(
    M: np.ndarray, deadline: float | None = None, counts: np.ndarray | None = None
) -> list[list[Fraction]]:
    """The rows of a float matrix as exact fractions, each divided by its exact sum.

    Parameters
    ----------
    M : numpy.ndarray, shape (n, m)
    deadline : float, optional
        A :func:`qifldp.deadline.now` reading: the clock is read every
        ``CONVERT_CHUNK`` entries, and past the deadline the conversion stops with
        :class:`ExactTooLarge` (its message says how far it got).
    counts : numpy.ndarray of int, shape (m,), optional
        Column j stands for ``counts[j]`` identical columns merged into one (their
        masses added): its entries are ``counts[j] M[x, j]``, and the row sums count
        them so (the rows of the matrix the merged columns came from).

    Returns
    -------
    list of list of Fraction

    Examples
    --------
    >>> rational_rows(np.array([[0.25, 0.75]]))
    [[Fraction(1, 4), Fraction(3, 4)]]
    >>> rational_rows(np.array([[0.25, 0.25]]), counts=np.array([1, 3]))
    [[Fraction(1, 4), Fraction(3, 4)]]
    """
    M = np.asarray(M, dtype=np.float64)
    mult = None if counts is None else [int(c) for c in counts]
    total = 2 * M.size  # conversions and divisions
    done = 0

    def step(size: int, what: str) -> None:
        # the clock is read once per CONVERT_CHUNK entries (not at all for a small matrix)
        nonlocal done
        if (done + size) // CONVERT_CHUNK > done // CONVERT_CHUNK:
            check_deadline(deadline, f"{what} ({done} of {total} conversions and divisions)")
        done += size

    out = []
    for row in M:
        q: list[Fraction] = []
        for start in range(0, row.size, CONVERT_CHUNK):
            part = row[start : start + CONVERT_CHUNK].tolist()
            step(len(part), "the conversion of the channel to rationals")
            if mult is None:
                q.extend(Q(v) for v in part)
            else:
                counts_part = mult[start : start + len(part)]
                q.extend(Q(v) * c for v, c in zip(part, counts_part, strict=True))
        s = sum(q)
        normalised: list[Fraction] = []
        for start in range(0, len(q), CONVERT_CHUNK):
            part_q = q[start : start + CONVERT_CHUNK]
            step(len(part_q), "the division of the rational rows by their sums")
            normalised.extend(v / s for v in part_q)
        out.append(normalised)
    return out


def distinct_columns(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct columns, the distinct column of each column, multiplicities) of a float matrix.

    Identical float columns are identical rationals: an exact computation on the
    distinct columns with their masses merged (``rational_rows(U, counts=counts)``) is
    as small as the distinct columns (an OLH channel has a million columns and a few
    distinct ones). Sorted by row 0, then row 1, ...; O(|X| |Y| log |Y|).

    Examples
    --------
    >>> U, of, counts = distinct_columns(np.array([[0.5, 0.25, 0.5], [0.5, 0.75, 0.5]]))
    >>> U.tolist(), of.tolist(), counts.tolist()
    ([[0.25, 0.5], [0.75, 0.5]], [1, 0, 1], [1, 2])
    """
    M = np.asarray(M, dtype=np.float64)
    p = M.shape[1]
    order = np.lexsort(M[::-1])  # columns sorted by row 0, then row 1, ...
    S = M[:, order]
    new = np.ones(p, dtype=bool)
    new[1:] = np.any(S[:, 1:] != S[:, :-1], axis=0)
    inverse = np.empty(p, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    counts = np.diff(np.append(np.flatnonzero(new), p))
    return S[:, new], inverse, counts


def estimate_exact_cost(n: int, m: int, p: int, rowsum: bool = True) -> int:
    """Rough number of rational operations of :func:`exact_decide` on (n x m) vs (n x p).

    Closed form (m <= n): m² (n + p) + n m p; simplex: rows · columns · rows.

    Examples
    --------
    >>> estimate_exact_cost(3, 3, 3)
    81
    """
    if m <= n:
        return m * m * (n + p) + n * m * p
    if rowsum:
        r = n * p + m
        return r * (m * p + r) * max(r, 8)
    return p * n * (m + n) * max(n, 8)


# -- small exact linear algebra -------------------------------------------------------


def rref(M: list[list[Fraction]]) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form (copy) and the pivot columns."""
    R = [row[:] for row in M]
    rows = len(R)
    cols = len(R[0]) if rows else 0
    piv: list[int] = []
    r = 0
    for c in range(cols):
        k = next((i for i in range(r, rows) if R[i][c] != 0), None)
        if k is None:
            continue
        R[r], R[k] = R[k], R[r]
        pr = R[r]
        inv = 1 / pr[c]
        pr[:] = [v * inv for v in pr]
        for i in range(rows):
            if i != r and R[i][c] != 0:
                f = R[i][c]
                Ri = R[i]
                R[i] = [a - f * b if b else a for a, b in zip(Ri, pr, strict=True)]
        piv.append(c)
        r += 1
        if r == rows:
            break
    return R, piv


def _in_flint(*Ms: list[list]) -> bool:
    """True when python-flint is the number type and every entry is an fmpq or an int: the
    matrix products and solves then run in flint's fmpq_mat (common denominators, in C)."""
    R = _number_type()
    return R is not Fraction and all(isinstance(v, (R, int)) for M in Ms for row in M for v in row)


def _fmpq_mat(M: list[list]) -> Any:
    """A flint fmpq_mat of fmpq / int rows (only after :func:`_in_flint` said True)."""
    import flint

    return flint.fmpq_mat(M)


def _flint_rows(M: Any) -> list[list]:
    """The rows of a flint fmpq_mat as lists of fmpq."""
    flat, c = M.entries(), M.ncols()
    return [flat[i * c : (i + 1) * c] for i in range(M.nrows())]


def _solve_square(S: list[list[Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]]:
    """Solve S X = rhs exactly for invertible square S (rhs has several columns)."""
    k = len(S)
    if k and rhs and rhs[0] and _in_flint(S, rhs):
        try:
            return _flint_rows(_fmpq_mat(S).solve(_fmpq_mat(rhs)))
        except ZeroDivisionError:  # pragma: no cover - callers pass invertible S
            msg = "internal error: singular system in the exact closed form"
            raise VerificationError(msg) from None
    aug = [S[i][:] + rhs[i][:] for i in range(k)]
    R, piv = rref(aug)
    if piv[:k] != list(range(k)):  # pragma: no cover - callers pass invertible S
        msg = "internal error: singular system in the exact closed form"
        raise VerificationError(msg)
    return [R[i][k:] for i in range(k)]


def _transpose(M: list[list[Fraction]]) -> list[list[Fraction]]:
    return [list(col) for col in zip(*M, strict=True)]


def _matmul(X: list[list[Fraction]], Y: list[list[Fraction]]) -> list[list[Fraction]]:
    if X and Y and X[0] and Y[0] and _in_flint(X, Y):
        return _flint_rows(_fmpq_mat(X) * _fmpq_mat(Y))
    Yt = _transpose(Y)
    zero = X[0][0] * 0 if X and X[0] else _ZERO  # Fraction or fmpq, as given
    return [
        [sum((a * b for a, b in zip(row, col, strict=True) if a and b), zero) for col in Yt]
        for row in X
    ]


# -- exact gaps -----------------------------------------------------------------------


def _vuln(Hpi: list[list[Fraction]], C: list[list[Fraction]]) -> Fraction:
    """Σ_y max_w Σ_x Hpi[w][x] C[x][y] (Hpi: the gain already weighted by the prior)."""
    n = len(C)
    cols = len(C[0])
    total = _ZERO
    screened = vuln_screen(Hpi, C)  # the actions that can attain each column's maximum
    for y in range(cols):
        colv = [C[x][y] for x in range(n)]
        best: Fraction | None = None
        for hw in Hpi if screened is None else [Hpi[w] for w in screened[y]]:
            v = sum((h * c for h, c in zip(hw, colv, strict=True) if h and c), _ZERO)
            if best is None or v > best:
                best = v
        assert best is not None  # a gain has at least one action
        total += best
    return total


def exact_gap(
    Aq: list[list[Fraction]], Bq: list[list[Fraction]], gain: np.ndarray, prior: np.ndarray
) -> Fraction:
    """V_g[π▷B] − V_g[π▷A] in exact arithmetic, for the stored floats of ``gain`` and ``prior``.

    Parameters
    ----------
    Aq, Bq : list of list of Fraction
        Exact channels (e.g. :func:`rational_rows`).
    gain : numpy.ndarray, shape (n_actions, n)
    prior : numpy.ndarray, shape (n,)

    Returns
    -------
    Fraction

    Examples
    --------
    >>> A = rational_rows(np.array([[0.75, 0.25], [0.25, 0.75]]))
    >>> B = rational_rows(np.eye(2))
    >>> exact_gap(A, B, np.eye(2), np.array([0.5, 0.5]))
    Fraction(1, 4)
    """
    pi = [Q(float(v)) for v in prior]
    Hpi = [[Q(float(g)) * pi[x] for x, g in enumerate(row)] for row in np.asarray(gain)]
    return _vuln(Hpi, Bq) - _vuln(Hpi, Aq)


def exact_weighted_gap(
    Aq: list[list[Fraction]],
    Bq: list[list[Fraction]],
    Hpi: list[list[Fraction]],
    rowsum: bool,
    pi: list[Fraction],
) -> Fraction:
    """The gap of an exact π-weighted gain ``Hpi`` (rows = actions), average or max case.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> A = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    >>> B = [[F(1), F(0)], [F(0), F(1)]]
    >>> exact_weighted_gap(A, B, [[F(1, 2), F(0)], [F(0), F(1, 2)]], True, [F(1, 2)] * 2)
    Fraction(1, 4)
    """
    if rowsum:
        return _vuln(Hpi, Bq) - _vuln(Hpi, Aq)
    return _max_vuln(Hpi, Bq, pi) - _max_vuln(Hpi, Aq, pi)


def _max_vuln(Hpi: list[list[Fraction]], C: list[list[Fraction]], pi: list[Fraction]) -> Fraction:
    """max_y max_w Σ_x Hpi[w][x] C[x][y] / Σ_x π_x C[x][y] over outputs of positive probability.

    Only the outputs that a rigorous float screen (:func:`._screen.max_case_screen`)
    cannot rule out are evaluated exactly.
    """
    n = len(C)
    best = None
    screened = max_case_screen(Hpi, C, pi)
    outputs = range(len(C[0])) if screened is None else screened
    if len(outputs) * len(Hpi) >= SCREEN_MIN_PAIRS and _number_type() is not Fraction:
        return _max_vuln_flint(Hpi, C, pi, list(outputs))
    for y in outputs:
        colv = [C[x][y] for x in range(n)]
        den = sum((p * c for p, c in zip(pi, colv, strict=True) if c), _ZERO)
        if den == 0:
            continue
        for hw in Hpi:
            v = sum((h * c for h, c in zip(hw, colv, strict=True) if h and c), _ZERO) / den
            if best is None or v > best:
                best = v
    return best if best is not None else _ZERO


def _max_vuln_flint(
    Hpi: list[list[Fraction]], C: list[list[Fraction]], pi: list[Fraction], outputs: list[int]
) -> Fraction:
    """:func:`_max_vuln` on the given outputs, the products in flint's fmpq_mat."""
    import flint

    rows = cached_view(C, "exact", _fast)
    Cm = flint.fmpq_mat([[row[y] for y in outputs] for row in rows])
    num = _flint_rows(flint.fmpq_mat(_fast(Hpi)) * Cm)
    den = _flint_rows(flint.fmpq_mat(_fast([pi])) * Cm)[0]
    best = None
    for k, d in enumerate(den):
        if d == 0:
            continue
        for row in num:
            v = row[k] / d
            if best is None or v > best:
                best = v
    return _ZERO if best is None else Fraction(int(best.numerator), int(best.denominator))


def exact_max_case_gap(
    Aq: list[list[Fraction]], Bq: list[list[Fraction]], gain: np.ndarray, prior: np.ndarray
) -> Fraction:
    """V_g^max[π▷B] − V_g^max[π▷A] exactly (posterior max-case g-vulnerabilities).

    V_g^max[π▷C] = max over outputs of positive probability y and actions w of
    Σ_x g[w, x] π_x C[x, y] / Σ_x π_x C[x, y].

    Examples
    --------
    >>> A = rational_rows(np.array([[0.75, 0.25], [0.25, 0.75]]))
    >>> B = rational_rows(np.eye(2))
    >>> exact_max_case_gap(A, B, np.array([[1.0, 0.0]]), np.array([0.5, 0.5]))
    Fraction(1, 4)
    """
    pi = [Q(float(v)) for v in prior]
    Hpi = [[Q(float(g)) * pi[x] for x, g in enumerate(row)] for row in np.asarray(gain)]
    return _max_vuln(Hpi, Bq, pi) - _max_vuln(Hpi, Aq, pi)


# -- exact decision -------------------------------------------------------------------


def _closed_form(
    Aq: list[list[Fraction]], Bq: list[list[Fraction]], rowsum: bool
) -> ExactOutcome | None:
    """Decide when A has full column rank: the only candidate is W = A_S⁻¹ B_S."""
    n, m, p = len(Aq), len(Aq[0]), len(Bq[0])
    if m > n:
        return None
    _, piv = rref(_transpose(Aq))  # pivot columns of Aᵀ = independent rows of A
    if len(piv) < m:
        return None
    S = piv[:m]
    AS = [Aq[i] for i in S]
    W = _solve_square(AS, [Bq[i] for i in S])
    # (1) B outside the column span of A: c with cᵀA = 0 and cᵀB[:, j] != 0.
    AW = _matmul(Aq, W)
    for x in range(n):
        for j in range(p):
            d = Bq[x][j] - AW[x][j]
            if d != 0:
                # c = e_x − (A_x A_S⁻¹) placed on the rows S
                coef = _solve_square(_transpose(AS), [[v] for v in Aq[x]])  # A_Sᵀ u = A_xᵀ
                c = [_RZ] * n
                c[x] = _RO
                for k, i in enumerate(S):
                    c[i] -= coef[k][0]
                sign = _RO if d > 0 else -_RO
                H = [[_RZ] * n for _ in range(p)]
                H[j] = [sign * v for v in c]
                return ExactOutcome(False, H=H, how="closed form: B outside the span of A")
    # (2) a negative entry W[z, j] < 0: c with cᵀA = e_zᵀ, gain −c on action j.
    for z in range(m):
        for j in range(p):
            if W[z][j] < 0:
                ez = [[_RO if k == z else _RZ] for k in range(m)]
                u = _solve_square(_transpose(AS), ez)
                c = [_RZ] * n
                for k, i in enumerate(S):
                    c[i] = u[k][0]
                H = [[_RZ] * n for _ in range(p)]
                H[j] = [-v for v in c]
                return ExactOutcome(False, H=H, how="closed form: W = A⁻¹B has a negative entry")
    if rowsum and any(sum(row) != 1 for row in W):  # pragma: no cover - implied by full rank
        msg = "internal error: exact closed-form witness does not have unit row sums"
        raise VerificationError(msg)
    return ExactOutcome(True, W=W, how="closed form W = A_S⁻¹ B_S (A has full column rank)")


def _phase_one(
    M: list[list[Fraction]], c: list[Fraction], deadline: float | None = None
) -> tuple[bool, list[Fraction]]:
    """Phase-I simplex for {x >= 0 : M x = c}; returns (feasible, x) or (False, Farkas y).

    Farkas: yᵀM <= 0 entrywise and yᵀc > 0. Dense tableau, Bland's rule.
    """
    r = len(M)
    s = len(M[0]) if r else 0
    sign = [(-_RO if ci < 0 else _RO) for ci in c]
    # tableau columns: s originals, r artificials, rhs
    T = []
    for i in range(r):
        row = [sign[i] * v for v in M[i]] + [_RO if k == i else _RZ for k in range(r)]
        row.append(sign[i] * c[i])
        T.append(row)
    basis = [s + i for i in range(r)]
    width = s + r + 1
    # reduced costs of phase I: cost 1 on artificials
    d = [_RZ] * width
    for j in range(width):
        if s <= j < s + r:
            continue
        d[j] = -sum((T[i][j] for i in range(r)), _RZ)
    while True:
        check_deadline(deadline)
        enter = next((j for j in range(s + r) if d[j] < 0), None)
        if enter is None:
            break
        best = None
        leave = -1
        for i in range(r):
            a = T[i][enter]
            if a > 0:
                ratio = T[i][-1] / a
                if best is None or ratio < best or (ratio == best and basis[i] < basis[leave]):
                    best, leave = ratio, i
        if leave < 0:  # pragma: no cover - phase I is bounded below by 0
            break
        pr = T[leave]
        inv = 1 / pr[enter]
        pr[:] = [v * inv for v in pr]
        nzp = [j for j in range(width) if pr[j] != 0]
        for i in range(r):
            if i != leave:
                f = T[i][enter]
                if f != 0:
                    Ti = T[i]
                    for j in nzp:
                        Ti[j] -= f * pr[j]
        f = d[enter]
        for j in nzp:
            d[j] -= f * pr[j]
        basis[leave] = enter
    value = sum((T[i][-1] for i in range(r) if basis[i] >= s), _RZ)
    if value == 0:
        x = [_RZ] * s
        for i in range(r):
            if basis[i] < s:
                x[basis[i]] = T[i][-1]
        return True, x
    # reduced cost of artificial i = 1 − y'_i (y' for the sign-flipped rows)
    y = [sign[i] * (_RO - d[s + i]) for i in range(r)]
    return False, y


def _simplex_avg(Aq, Bq, deadline: float | None = None) -> ExactOutcome:
    n, m, p = len(Aq), len(Aq[0]), len(Bq[0])
    # variables W[z, j] at z*p + j; rows (x, j) at x*p + j, then row sums z
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for x in range(n):
        for j in range(p):
            row = [_RZ] * (m * p)
            for z in range(m):
                row[z * p + j] = Aq[x][z]
            rows.append(row)
            rhs.append(Bq[x][j])
    for z in range(m):
        row = [_RZ] * (m * p)
        for j in range(p):
            row[z * p + j] = _RO
        rows.append(row)
        rhs.append(_RO)
    ok, v = _phase_one(rows, rhs, deadline)
    if ok:
        W = [[v[z * p + j] for j in range(p)] for z in range(m)]
        return ExactOutcome(True, W=W, how="rational simplex (Phase I)")
    # y over rows: y[(x, j)] = Y[x][j] maximises ⟨Y, B⟩ + Σ t with AᵀY + t <= 0: H = Yᵀ
    H = [[v[x * p + j] for x in range(n)] for j in range(p)]
    return ExactOutcome(False, H=H, how="rational simplex (Phase I), Farkas dual")


def _simplex_max(Aq, Bq, deadline: float | None = None) -> ExactOutcome:
    n, m, p = len(Aq), len(Aq[0]), len(Bq[0])
    R = [[_RZ] * p for _ in range(m)]
    for j in range(p):
        ok, v = _phase_one([row[:] for row in Aq], [Bq[x][j] for x in range(n)], deadline)
        if not ok:
            H = [v]  # one action: a separating hyperplane
            return ExactOutcome(False, H=H, how=f"rational simplex, column {j}: Farkas dual")
        for z in range(m):
            R[z][j] = v[z]
    return ExactOutcome(True, W=R, how="rational simplex per column")


def exact_decide(
    Aq: list[list[Fraction]],
    Bq: list[list[Fraction]],
    rowsum: bool = True,
    deadline: float | None = None,
) -> ExactOutcome:
    """Decide A ⊑ B (``rowsum``) or A ⊑max B exactly; the outcome carries an exact certificate.

    Parameters
    ----------
    Aq, Bq : list of list of Fraction
        Exact row-stochastic channels on the same inputs.
    rowsum : bool
        True for refinement, False for max-case refinement.
    deadline : float or None
        A ``qifldp.deadline.now()`` reading after which the simplex gives up
        (:class:`ExactTooLarge`).

    Returns
    -------
    ExactOutcome
        ``holds`` with ``W`` (Fractions, A·W = B exactly) or the π-weighted
        gain ``H`` (V_H[B] − V_H[A] > 0 exactly).

    Notes
    -----
    Closed form when A has full column rank (the unique candidate
    W = A_S⁻¹B_S, S a set of independent rows; a negative entry or a residual
    yields the Farkas vector directly); otherwise a Phase-I simplex with
    Bland's rule on the dense rational tableau.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> A = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    >>> B = [[F(5, 8), F(3, 8)], [F(3, 8), F(5, 8)]]
    >>> exact_decide(A, B).W
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    >>> exact_decide(B, A).holds
    False

    Raises
    ------
    ExactTooLarge
        When the estimated cost exceeds :data:`EXACT_MAX_OPS` (closed form) or
        :data:`EXACT_SIMPLEX_MAX_OPS` (simplex; :data:`EXACT_SIMPLEX_MAX_OPS_FLINT`
        with python-flint), or at the ``deadline``.
    """
    n, m, p = len(Aq), len(Aq[0]), len(Bq[0])
    cost = estimate_exact_cost(n, m, p, rowsum)
    bits = max(Q(v).denominator.bit_length() for M in (Aq, Bq) for row in M for v in row)
    # small denominators (exact data, not rationalised floats) keep the simplex cheap
    exact_type = _number_type()
    simplex_limit = EXACT_SIMPLEX_MAX_OPS if exact_type is Fraction else EXACT_SIMPLEX_MAX_OPS_FLINT
    limit = EXACT_MAX_OPS if (m <= n or bits <= 32) else simplex_limit
    if cost > limit:
        what = "closed form" if m <= n else "rational simplex"
        msg = (
            f"the exact {what} for a {n}x{m} vs {n}x{p} problem would take ~{cost:.2g} "
            f"rational operations (limit {limit:.2g})"
        )
        raise ExactTooLarge(msg)
    Af, Bf = _fast(Aq), _fast(Bq)
    out = _closed_form(Af, Bf, rowsum)
    if out is None:
        out = _simplex_avg(Af, Bf, deadline) if rowsum else _simplex_max(Af, Bf, deadline)
    return ExactOutcome(
        out.holds,
        W=None if out.W is None else _slow(out.W),
        H=None if out.H is None else _slow(out.H),
        how=out.how,
    )


def exact_verify_witness(
    Aq: list[list[Fraction]],
    Bq: list[list[Fraction]],
    W: np.ndarray,
    rowsum: bool = True,
    max_unknowns: int = 400,
    signed: bool = False,
) -> list[list[Fraction]] | None:
    """An exact witness on the support of the float witness W, or None.

    Solves A·W = B (and W·1 = 1) restricted to the nonzero entries of W by
    sparse Gaussian elimination over the rationals, free unknowns fixed at the
    rationalised floating values, then checks W >= 0 and the equations exactly.

    Parameters
    ----------
    Aq, Bq : list of list of Fraction
    W : numpy.ndarray, shape (m, p)
        The float witness (its nonzero pattern is used).
    rowsum : bool
    max_unknowns : int
        Give up (None) on larger supports.
    signed : bool
        Solve on all entries (largest float entries as pivots, the others fixed
        at their float values) and return the exact solution whatever the signs
        of its entries (None only when the equations are inconsistent): a
        candidate to be clipped and re-checked, not a witness.

    Returns
    -------
    list of list of Fraction or None

    Examples
    --------
    >>> A = rational_rows(np.array([[0.75, 0.25], [0.25, 0.75]]))
    >>> B = rational_rows(np.array([[0.625, 0.375], [0.375, 0.625]]))
    >>> exact_verify_witness(A, B, np.array([[0.75, 0.25], [0.25, 0.75]]))
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    """
    n, m, p = len(Aq), len(Aq[0]), len(Bq[0])
    # in the decision's number type (python-flint's fmpq: the arithmetic in C, 10-50x
    # faster than Fraction on rationalised floats); Fractions again on return
    R = _number_type()
    one, zero = R(1), R(0)
    Aq, Bq = _fast(Aq), _fast(Bq)

    def rational(v: float) -> Any:
        return R(*float(v).as_integer_ratio())

    if signed:  # every entry may move; the largest float entries absorb the corrections
        supp = [(z, j) for z in range(m) for j in range(p)]
    else:
        supp = [(z, j) for z in range(m) for j in range(p) if W[z, j] > 0]
    if len(supp) > max_unknowns:
        return None
    index = {v: k for k, v in enumerate(supp)}
    eqs: list[tuple[dict[int, Any], Any]] = []
    by_col: dict[int, list[int]] = {}
    for k, (_z, j) in enumerate(supp):
        by_col.setdefault(j, []).append(k)
    for x in range(n):
        for j in range(p):
            row = {k: Aq[x][supp[k][0]] for k in by_col.get(j, []) if Aq[x][supp[k][0]] != 0}
            eqs.append((row, Bq[x][j]))
    if rowsum:
        for z in range(m):
            eqs.append(({index[(z, j)]: one for j in range(p) if (z, j) in index}, one))
    # sparse elimination: pick each equation's pivot, eliminate it from the others
    pivots: list[tuple[int, dict[int, Any], Any]] = []
    work = [(dict(r), b) for r, b in eqs]
    for i in range(len(work)):
        r, b = work[i]
        if not r:
            if b != 0:
                return None  # inconsistent on this support
            continue
        if signed:
            col = max(r, key=lambda k: (float(W[supp[k]]), -k))
        else:
            col = min(r, key=lambda k: (abs(r[k]).denominator.bit_length(), k))
        a = r[col]
        r = {k: v / a for k, v in r.items()}
        b = b / a
        pivots.append((col, r, b))
        for i2 in range(i + 1, len(work)):
            r2, b2 = work[i2]
            f = r2.get(col)
            if f:
                for k, v in r.items():
                    nv = r2.get(k, zero) - f * v
                    if nv:
                        r2[k] = nv
                    else:
                        r2.pop(k, None)
                work[i2] = (r2, b2 - f * b)
    pivot_cols = {c for c, _, _ in pivots}
    value = {k: rational(W[supp[k]]) for k in range(len(supp)) if k not in pivot_cols}
    for col, r, b in reversed(pivots):
        value[col] = b - sum((v * value[k] for k, v in r.items() if k != col), zero)
    Wq = [[zero] * p for _ in range(m)]
    for k, (z, j) in enumerate(supp):
        if value[k] < 0 and not signed:
            return None
        Wq[z][j] = value[k]
    if signed:
        return _slow(Wq)
    if not _check_exact_witness(Aq, Bq, Wq, rowsum):  # pragma: no cover - implied by the solve
        return None
    return _slow(Wq)


def _check_exact_witness(Aq, Bq, Wq, rowsum: bool) -> bool:
    if any(v < 0 for row in Wq for v in row):
        return False
    if rowsum and any(sum(row) != 1 for row in Wq):
        return False
    return _matmul(Aq, Wq) == [list(r) for r in Bq]


def check_exact_witness(
    Aq: Sequence[Sequence[Fraction]],
    Bq: Sequence[Sequence[Fraction]],
    Wq: Sequence[Sequence[Fraction]],
    rowsum: bool = True,
) -> bool:
    """True iff Wq >= 0, (rows of Wq sum to 1 when ``rowsum``) and A·W = B, all exactly.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> I = [[F(1), F(0)], [F(0), F(1)]]
    >>> check_exact_witness(I, [[F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]], [[F(1, 2), F(1, 2)]] * 2)
    True
    """
    # in the decision's number type (python-flint's fmpq: the products in C)
    return _check_exact_witness(_fast(Aq), _fast(Bq), _fast(Wq), rowsum)
