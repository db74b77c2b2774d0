"""Exact refinement of channels with rational entries: a floating LP, then exact certificates.

A ⊑ B (B = A·W, W row-stochastic) is decided by solving, in floating point, the
LP min Σ|A·W − B| over row-stochastic W, and then *proving* the answer in exact
rational arithmetic, whatever the solver said:

* when the optimum is ~0, the support of the floating (vertex) solution is taken,
  the linear system A·W = B, W·1 = 1 restricted to it is solved exactly (Gaussian
  elimination over the rationals, free variables set to the rationalised floating
  values), and the exact W is checked: W >= 0, W·1 = 1, A·W = B;
* otherwise the LP dual λ (|X| x |Y_B|) gives a gain function G[w, x] = λ[x, w]
  (one action per output of B), rationalised; the gap V_G[υ▷B] − V_G[υ▷A] under
  the uniform prior υ is computed exactly and must be > 0.

(Duality: for the dual optimum (λ, μ), Σ_x A[x, y] λ[x, w] <= −μ_y for every y, w,
so V_G[υ▷A] <= −Σμ/n, while V_G[υ▷B] >= Σ λ·B / n; the difference is the LP
optimum / n > 0.) If neither certificate verifies, :class:`VerificationError` is
raised: a solver failure is never reported as a "no".

Channels on two secrets are decided directly by the exact trade-off criterion of
:mod:`qifldp.fdp` (the QIF paper's Lemma 1) when that module is available.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import ChannelError, InputTypeError, SolverError, VerificationError
from .channel import SymbolicChannel

__all__ = [
    "ExactRefinement",
    "ExactCounterexample",
    "refines",
    "to_fractions",
    "LP_ZERO_TOL",
    "EXACT_SIMPLEX_MAX_VARS",
]

#: A floating LP optimum below this is taken as "refinement holds" and an exact
#: witness is sought; above it, a separating gain function. Either way the exact
#: re-check decides; this only chooses which certificate to try first.
LP_ZERO_TOL: float = 1e-9

#: Denominator bound when rationalising floating solver output.
_MAX_DEN = 10**12

#: Largest number of unknowns (|Y_A| |Y_B|) for the exact rational simplex used when
#: the floating certificates cannot be verified (near-degenerate instances).
EXACT_SIMPLEX_MAX_VARS: int = 2000


@dataclass(frozen=True)
class ExactCounterexample:
    """A gain function and prior under which B leaks strictly more than A (exact)."""

    gain: list[list[Fraction]]
    prior: list[Fraction]
    gap: Fraction


@dataclass(frozen=True)
class ExactRefinement:
    """The exact verdict on A ⊑ B with its checked certificate.

    Attributes
    ----------
    holds : bool
        True iff B = A·W for a row-stochastic W.
    witness : list of list of Fraction or None
        W with A·W = B exactly.
    counterexample : ExactCounterexample or None
        Gain and prior with V_g[π▷B] − V_g[π▷A] = gap > 0, exactly.
    method : str
        ``"trade-off"`` (two secrets, QIF paper Lemma 1) or ``"lp+exact"``.
    """

    holds: bool
    witness: list[list[Fraction]] | None
    counterexample: ExactCounterexample | None
    method: str

    def __bool__(self) -> bool:
        return self.holds

    def __repr__(self) -> str:
        what = "witness W" if self.holds else f"counterexample gap {self.counterexample.gap}"  # type: ignore[union-attr]
        return f"ExactRefinement(holds={self.holds}, {what}, method={self.method!r})"


def to_fractions(C: Any) -> list[list[Fraction]]:
    """Exact rational rows of a channel: a SymbolicChannel, or a matrix of exact numbers.

    Parameters
    ----------
    C : SymbolicChannel, sympy Matrix, or nested sequence of ints/Fractions/sympy Rationals

    Returns
    -------
    list of list of Fraction

    Raises
    ------
    ChannelError
        Non-rational entries, negative entries or rows not summing exactly to 1.
    ParameterError
        Free parameters remain.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> to_fractions([[F(1, 3), F(2, 3)], [1, 0]])
    [[Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 1), Fraction(0, 1)]]
    """
    if isinstance(C, SymbolicChannel):
        rows = C.to_fractions()
    else:
        if isinstance(C, np.ndarray) and C.dtype != object:
            msg = (
                "to_fractions needs exact entries (ints, Fractions, sympy Rationals), "
                "not a float array"
            )
            raise InputTypeError(msg)
        rows = SymbolicChannel(C).to_fractions()
    return rows


# -- exact linear algebra --------------------------------------------------------------------
def _solve_exact(
    M: list[list[Fraction]], b: list[Fraction], guess: list[Fraction]
) -> list[Fraction] | None:
    """A solution of M z = b (exact); free variables take the values in ``guess``."""
    n_rows, n = len(M), len(guess)
    A = [row[:] + [bi] for row, bi in zip(M, b, strict=True)]
    pivots: list[int] = []
    r = 0
    for c in range(n):
        piv = next((i for i in range(r, n_rows) if A[i][c] != 0), None)
        if piv is None:
            continue
        A[r], A[piv] = A[piv], A[r]
        inv = 1 / A[r][c]
        A[r] = [v * inv for v in A[r]]
        for i in range(n_rows):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [u - f * v for u, v in zip(A[i], A[r], strict=True)]
        pivots.append(c)
        r += 1
        if r == n_rows:
            break
    if any(all(v == 0 for v in A[i][:n]) and A[i][n] != 0 for i in range(n_rows)):
        return None  # inconsistent
    z = list(guess)
    free = [c for c in range(n) if c not in pivots]
    for i, c in enumerate(pivots):
        z[c] = A[i][n] - sum((A[i][f] * z[f] for f in free), Fraction(0))
    return z


def _system(a: list[list[Fraction]], b: list[list[Fraction]]):
    """Rows of A·W = B and W·1 = 1 over the unknowns W[y, j] (row-major)."""
    n, m, l = len(a), len(a[0]), len(b[0])
    rows, rhs = [], []
    for x in range(n):
        for j in range(l):
            row = [Fraction(0)] * (m * l)
            for y in range(m):
                row[y * l + j] = a[x][y]
            rows.append(row)
            rhs.append(b[x][j])
    for y in range(m):
        row = [Fraction(0)] * (m * l)
        for j in range(l):
            row[y * l + j] = Fraction(1)
        rows.append(row)
        rhs.append(Fraction(1))
    return rows, rhs


def _phase_one(M: list[list[Fraction]], rhs: list[Fraction]):
    """Exact phase-I simplex (Bland's rule) for M z = rhs, z >= 0.

    Returns ``(z, None)`` for a feasible point, or ``(None, y)`` with a Farkas
    certificate: y^T M <= 0 and y^T rhs > 0.
    """
    R, N = len(M), len(M[0])
    sign = [1 if v >= 0 else -1 for v in rhs]
    T = [
        [sign[i] * v for v in M[i]]
        + [Fraction(1) if r == i else Fraction(0) for r in range(R)]
        + [sign[i] * rhs[i]]
        for i in range(R)
    ]
    basis = [N + i for i in range(R)]
    obj = [-sum((T[i][j] for i in range(R)), Fraction(0)) for j in range(N)]
    obj += [Fraction(0)] * R + [-sum((T[i][-1] for i in range(R)), Fraction(0))]
    while True:
        col = next((j for j in range(N + R) if obj[j] < 0), None)
        if col is None:
            break
        best = None
        for i in range(R):
            if T[i][col] > 0:
                ratio = T[i][-1] / T[i][col]
                if (
                    best is None
                    or ratio < best[0]
                    or (ratio == best[0] and basis[i] < basis[best[1]])
                ):
                    best = (ratio, i)
        if best is None:  # pragma: no cover - phase I is bounded below by 0
            msg = "exact simplex: unbounded phase-I problem"
            raise VerificationError(msg)
        r = best[1]
        piv = T[r][col]
        T[r] = [v / piv for v in T[r]]
        for i in range(R):
            f = T[i][col]
            if i != r and f != 0:
                Ti, Tr = T[i], T[r]
                T[i] = [u - f * v for u, v in zip(Ti, Tr, strict=True)]
        f = obj[col]
        obj = [u - f * v for u, v in zip(obj, T[r], strict=True)]
        basis[r] = col
    if obj[-1] == 0:
        z = [Fraction(0)] * N
        for i, j in enumerate(basis):
            if j < N:
                z[j] = T[i][-1]
        return z, None
    y = [sign[i] * (1 - obj[N + i]) for i in range(R)]
    return None, y


def _g_vuln(rows: list[list[Fraction]], G: list[list[Fraction]], prior: list[Fraction]) -> Fraction:
    n, m = len(rows), len(rows[0])
    total = Fraction(0)
    for y in range(m):
        total += max(sum((prior[x] * rows[x][y] * g[x] for x in range(n)), Fraction(0)) for g in G)
    return total


def _lp(Af: np.ndarray, Bf: np.ndarray):
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, hstack, identity, kron, vstack

    n, m = Af.shape
    l = Bf.shape[1]
    # variables: W (m*l, row-major), s+ (n*l), s- (n*l)
    AW = kron(coo_matrix(Af), identity(l))  # (n*l) x (m*l): row (x, j), col (y, j)
    eq1 = hstack([AW, identity(n * l), -identity(n * l)])
    rs = kron(identity(m), np.ones((1, l)))
    eq2 = hstack([rs, coo_matrix((m, 2 * n * l))])
    A_eq = vstack([eq1, eq2]).tocsr()
    b_eq = np.concatenate([Bf.reshape(-1), np.ones(m)])
    c = np.concatenate([np.zeros(m * l), np.ones(2 * n * l)])
    res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs-ds")
    if res.status != 0:
        msg = f"the refinement LP failed: {res.message}"
        raise SolverError(msg)
    return res, n, m, l


def _rat(v: float) -> Fraction:
    return Fraction(float(v)).limit_denominator(_MAX_DEN)


def _exact_witness(
    a: list[list[Fraction]], b: list[list[Fraction]], Wf: np.ndarray
) -> list[list[Fraction]] | None:
    n, m, l = len(a), len(a[0]), len(b[0])
    support = [(y, j) for y in range(m) for j in range(l) if Wf[y, j] > LP_ZERO_TOL]
    idx = {v: i for i, v in enumerate(support)}
    M: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for x in range(n):
        for j in range(l):
            row = [Fraction(0)] * len(support)
            for y in range(m):
                if (y, j) in idx:
                    row[idx[(y, j)]] = a[x][y]
            M.append(row)
            rhs.append(b[x][j])
    for y in range(m):
        row = [Fraction(0)] * len(support)
        for j in range(l):
            if (y, j) in idx:
                row[idx[(y, j)]] = Fraction(1)
        M.append(row)
        rhs.append(Fraction(1))
    z = _solve_exact(M, rhs, [_rat(Wf[y, j]) for y, j in support])
    if z is None:
        return None
    W = [[Fraction(0)] * l for _ in range(m)]
    for (y, j), v in zip(support, z, strict=True):
        W[y][j] = v
    return W if _exact_witness_ok(a, b, W) else None


def _exact_witness_ok(
    a: list[list[Fraction]], b: list[list[Fraction]], W: list[list[Fraction]]
) -> bool:
    n, m, l = len(a), len(a[0]), len(b[0])
    return (
        all(v >= 0 for r in W for v in r)
        and all(sum(r) == 1 for r in W)
        and all(
            sum((a[x][y] * W[y][j] for y in range(m)), Fraction(0)) == b[x][j]
            for x in range(n)
            for j in range(l)
        )
    )


def refines(A: Any, B: Any) -> ExactRefinement:
    """Decide A ⊑ B exactly for channels with rational entries, with a checked certificate.

    Parameters
    ----------
    A, B : SymbolicChannel (without free parameters, rational entries), sympy
        Matrix or nested sequences of exact numbers; same number of inputs.

    Returns
    -------
    ExactRefinement
        Truthy iff A ⊑ B; ``.witness`` (exact W with A·W = B) or
        ``.counterexample`` (exact gain, uniform prior, gap > 0).

    Raises
    ------
    ChannelError
        Different numbers of inputs, non-rational entries, rows not summing to 1.
    SolverError
        The LP solver failed.
    VerificationError
        Neither certificate could be verified exactly (never a silent "no").

    Notes
    -----
    Two-input channels: the exact trade-off criterion (:func:`qifldp.fdp.refines_binary`,
    QIF paper Lemma 1) decides; the certificate is then still computed and checked
    here. Otherwise: floating LP with |Y_A| |Y_B| + 2 |X| |Y_B| variables (HiGHS dual
    simplex, so the solution is a vertex) followed by exact Gaussian elimination on
    its support, O((|X| |Y_B| + |Y_A|)^2 |support|) rational operations.

    Examples
    --------
    >>> import sympy as sp
    >>> from qifldp import symbolic
    >>> A = symbolic.grr(3, sp.log(4))   # entries 2/3, 1/6
    >>> B = symbolic.grr(3, sp.log(2))   # entries 1/2, 1/4
    >>> r = symbolic.refines(A, B)
    >>> r.holds, r.witness[0]
    (True, [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)])
    >>> symbolic.refines(B, A).counterexample.gap > 0
    True
    """
    a, b = to_fractions(A), to_fractions(B)
    n = len(a)
    if len(b) != n:
        msg = f"A and B must have the same inputs: A has {n} rows, B has {len(b)}"
        raise ChannelError(msg)
    method = "lp+exact"
    expected = None
    if n == 2:
        try:
            from ..fdp import refines_binary
        except ImportError:  # pragma: no cover - fdp is part of the package
            refines_binary = None
        if refines_binary is not None:
            expected = bool(refines_binary(a, b))
            method = "trade-off"
    Af = np.array([[float(v) for v in r] for r in a])
    Bf = np.array([[float(v) for v in r] for r in b])
    res, n, m, l = _lp(Af, Bf)
    W = None
    if res.fun <= LP_ZERO_TOL or expected is True:
        W = _exact_witness(a, b, res.x[: m * l].reshape(m, l))
    if W is not None:
        if expected is False:
            msg = "exact witness found although the trade-off criterion says no; please report"
            raise VerificationError(msg)
        return ExactRefinement(True, W, None, method)
    lam = np.asarray(res.eqlin.marginals[: n * l]).reshape(n, l)
    prior = [Fraction(1, n)] * n
    for sign in (1, -1):  # solvers differ in the sign convention of the marginals
        G = [[sign * _rat(lam[x, w]) for x in range(n)] for w in range(l)]
        gap = _g_vuln(b, G, prior) - _g_vuln(a, G, prior)
        if gap > 0:
            if expected is True:
                msg = (
                    "exact counterexample found although the trade-off criterion says yes; "
                    "please report"
                )
                raise VerificationError(msg)
            return ExactRefinement(False, None, ExactCounterexample(G, prior, gap), method)
    if m * l > EXACT_SIMPLEX_MAX_VARS:
        msg = (
            f"could not verify either floating certificate exactly (LP optimum {res.fun:.3g}) "
            f"and the instance is too large for the exact simplex ({m * l} unknowns > "
            f"EXACT_SIMPLEX_MAX_VARS = {EXACT_SIMPLEX_MAX_VARS})"
        )
        raise VerificationError(msg)
    return _exact_simplex(a, b, expected, "exact simplex" if method == "lp+exact" else method)


def _exact_simplex(
    a: list[list[Fraction]], b: list[list[Fraction]], expected: bool | None, method: str
) -> ExactRefinement:
    n, m, l = len(a), len(a[0]), len(b[0])
    M, rhs = _system(a, b)
    z, y = _phase_one(M, rhs)
    if z is not None:
        W = [z[r * l : (r + 1) * l] for r in range(m)]
        if _exact_witness_ok(a, b, W) and expected is not False:
            return ExactRefinement(True, W, None, method)
    else:
        lam = y[: n * l]  # type: ignore[index]
        G = [[lam[x * l + w] for x in range(n)] for w in range(l)]
        prior = [Fraction(1, n)] * n
        gap = _g_vuln(b, G, prior) - _g_vuln(a, G, prior)
        if gap > 0 and expected is not True:
            return ExactRefinement(False, None, ExactCounterexample(G, prior, gap), method)
    msg = "the exact simplex certificate failed its re-check; please report"  # pragma: no cover
    raise VerificationError(msg)  # pragma: no cover
