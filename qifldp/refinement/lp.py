"""The refinement LP solved by HiGHS: min Σ|A·W − B| over row-stochastic W (sparse constraints)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict, Unpack

import numpy as np

from ..deadline import now, solver_seconds
from ..errors import SolverError

__all__ = [
    "LPOutcome",
    "ColumnLoop",
    "solve_l1_lp",
    "solve_l1_lp_columns",
    "solve_columns",
    "BATCH_MAX_COLUMNS",
    "BATCH_MAX_ENTRIES",
]


@dataclass
class LPOutcome:
    """Primal witness W (m x p), dual gain H (p x n, π-weighted), optimum = min Σ|A·W − B|."""

    W: np.ndarray
    H: np.ndarray
    optimum: float
    iterations: int


#: What one column's solve gives: (r_j, y_j, optimum_j, iterations).
ColumnResult = tuple[np.ndarray, np.ndarray, float, int]

#: ``column(j, seconds_left)`` of :func:`solve_columns`: (r_j, y_j, optimum_j, iterations);
#: batched, ``columns(js, seconds_left)`` gives one such result per column of ``js``.
ColumnSolve = Callable[[int, float | None], ColumnResult]
ColumnBatchSolve = Callable[[list[int], float | None], list[ColumnResult]]


class ColumnLoop(TypedDict, total=False):
    """The options of the max-case engines' loop over the columns of B (:func:`solve_columns`).

    Attributes
    ----------
    order : array of int or None
        Order in which the columns are solved (None: 0, 1, ...).
    stop : callable or None
        ``stop(j, y_j, optimum_j)`` is called after each column with a positive
        optimum; returning True ends the loop (the remaining columns stay 0).
    time_limit : float or None
        Seconds for all columns together; None: no limit.
    """

    order: np.ndarray | None
    stop: Callable[[int, np.ndarray, float], bool] | None
    time_limit: float | None


#: Equations (x, j) are divided by max(B[x, j], EQUATION_FLOOR · max B) so that
#: HiGHS's absolute tolerances become relative ones for small entries of B.
EQUATION_FLOOR: float = 1e-12


def _equation_weights(B: np.ndarray) -> np.ndarray:
    """1 / max(B[x, j], EQUATION_FLOOR · max B): each equation A·W = B in relative terms."""
    return 1.0 / np.maximum(B, EQUATION_FLOOR * float(B.max()))


def _options(time_limit: float | None) -> dict:
    """HiGHS options: its own time limit (seconds) when one is given (on the machine's
    clock; none under a test's clock, ``qifldp.deadline.solver_seconds``)."""
    seconds = None if time_limit is None else solver_seconds(float(time_limit))
    return {} if seconds is None else {"time_limit": max(seconds, 0.01)}


def _raise_on_failure(res, what: str) -> None:
    if res.status == 1 and "time" in str(res.message).lower():
        msg = (
            f"HiGHS reached the time limit (time_limit) on the {what} ({res.message}); no "
            "verdict: raise time_limit, or use qifldp.symmetric channels for large symmetric "
            "protocols"
        )
        raise SolverError(msg)
    if res.status != 0:
        msg = f"HiGHS failed on the {what} (status {res.status}: {res.message}); no verdict"
        raise SolverError(msg)


def solve_l1_lp(
    A: np.ndarray,
    B: np.ndarray,
    rowsum: bool = True,
    method: str = "highs",
    time_limit: float | None = None,
) -> LPOutcome:
    """Solve min Σ_{x,j} |(A·W − B)[x, j]| s.t. W >= 0 (and W·1 = 1 when ``rowsum``).

    The LP is always feasible and bounded, so HiGHS's answer is either an
    optimum or a solver failure (raised as :class:`SolverError`).

    Parameters
    ----------
    A, B : numpy.ndarray, shapes (n, m) and (n, p)
        Row-stochastic matrices.
    rowsum : bool
        Impose W·1 = 1 (refinement); False gives the max-case LP in one piece.
    method : str
        scipy's ``linprog`` method (a HiGHS variant).
    time_limit : float or None
        Seconds HiGHS may take (its ``time_limit`` option); None: no limit.

    Returns
    -------
    LPOutcome
        ``W`` (m x p), ``H`` (p x n), ``optimum``, ``iterations``.

    Raises
    ------
    SolverError
        HiGHS did not return an optimum.

    Notes
    -----
    Variables vec(W) (row-major, m p), P, N >= 0 (n p each); constraints
    D (A ⊗ I_p) vec(W) + P − N = D vec(B) and (I_m ⊗ 1_pᵀ) vec(W) = 1, where
    the diagonal D = 1 / max(B, 1e-12 max B) makes the deviations relative
    (HiGHS's tolerances are absolute); the dual is scaled back by D. The dual
    (Y, t) satisfies AᵀY + t 1ᵀ <= 0, |Y| <= 1 and ⟨Y, B⟩ + Σ t = optimum, so
    the π-weighted gain H = Yᵀ (one action per column of B) has
    V_H[B] − V_H[A] >= optimum: the Farkas certificate of A ⋢ B when the
    optimum is positive. Size: m p + 2 n p variables, n p + m equations.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.7, 0.3], [0.3, 0.7]])
    >>> out = solve_l1_lp(A, np.eye(2))  # the identity leaks more than A
    >>> bool(out.optimum > 0.1), out.H.shape
    (True, (2, 2))
    >>> H = out.H  # V_H[I] − V_H[A] >= optimum
    >>> gap = np.max(H @ np.eye(2), axis=0).sum() - np.max(H @ A, axis=0).sum()
    >>> bool(gap >= out.optimum * (1 - 1e-12))  # relative: the optimum is ~6e11 here
    True
    """
    import scipy.sparse as sp
    from scipy.optimize import linprog

    n, m = A.shape
    p = B.shape[1]
    nw = m * p
    npv = n * p
    w = _equation_weights(B).reshape(-1)
    A_eq = sp.csc_matrix(
        _l1_lp_columns(A, w, p, rowsum), shape=(npv + (m if rowsum else 0), nw + 2 * npv)
    )
    b = [w * B.reshape(-1)]
    if rowsum:
        b.append(np.ones(m))
    b_eq = np.concatenate(b)
    c = np.concatenate([np.zeros(nw), np.ones(2 * npv)])
    try:
        res = linprog(
            c,
            A_eq=A_eq,
            b_eq=b_eq,
            bounds=(0, None),
            method=method,
            options=_options(time_limit),
        )
    except ValueError as exc:  # pragma: no cover - input is validated upstream
        msg = f"HiGHS rejected the refinement LP: {exc}"
        raise SolverError(msg) from None
    _raise_on_failure(res, "refinement LP")
    W = np.asarray(res.x[:nw]).reshape(m, p)
    y = np.asarray(res.eqlin.marginals)
    H = (w * y[:npv]).reshape(n, p).T.copy()  # undo the equation weights: still a Farkas vector
    return LPOutcome(W, H, float(res.fun), int(getattr(res, "nit", 0) or 0))


def _l1_lp_columns(
    A: np.ndarray, w: np.ndarray, p: int, rowsum: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data, indices, indptr) in CSC of the equations of :func:`solve_l1_lp`, built directly.

    Column z p + j (W[z, j]) holds w[x p + j] A[x, z] in the rows x p + j (the nonzero
    A[x, z], x increasing) and, with ``rowsum``, a 1 in row n p + z; the columns of P
    and N hold 1 and −1 in row i. One pass of index arithmetic: no Kronecker product,
    stacking or sort of the (up to 10^7) entries.
    """
    n, m = A.shape
    npv = n * p
    nz = A.T != 0  # (m, n): the nonzero entries of each column of A
    per = nz.sum(axis=1)  # entries of A's column z
    size = per + (1 if rowsum else 0)  # entries of each W column of column z
    zs, xs = np.nonzero(nz)  # row-major in z: for each z, its x increasing
    j = np.arange(p)
    # W columns in order (z, j): A's entries of column z, then the row-sum entry
    starts = np.concatenate([[0], np.cumsum(np.repeat(size, p))])
    total_w = int(starts[-1])
    indices = np.empty(total_w + 2 * npv, dtype=np.int64)
    data = np.empty(total_w + 2 * npv)
    pos = starts[:-1].reshape(m, p)  # first entry of column (z, j)
    # offset of each nonzero (z, x) within its column: its rank among the x of column z
    rank = np.arange(zs.size) - np.concatenate([[0], np.cumsum(per)])[zs]
    at = (pos[zs, :] + rank[:, None]).reshape(-1)
    rows = (xs[:, None] * p + j[None, :]).reshape(-1)
    indices[at] = rows
    data[at] = A[xs, zs][:, None].repeat(p, axis=1).reshape(-1) * w[rows]
    if rowsum:
        last = (pos + per[:, None]).reshape(-1)
        indices[last] = npv + np.repeat(np.arange(m), p)
        data[last] = 1.0
    indices[total_w:] = np.tile(np.arange(npv), 2)
    data[total_w : total_w + npv] = 1.0
    data[total_w + npv :] = -1.0
    indptr = np.concatenate([starts, total_w + np.arange(1, 2 * npv + 1)])
    return data, indices, indptr


def solve_l1_lp_columns(
    A: np.ndarray,
    B: np.ndarray,
    method: str = "highs",
    **loop: Unpack[ColumnLoop],
) -> LPOutcome:
    """The max-case LP per column b of B: min Σ_x |(A·r − b)[x]| s.t. r >= 0.

    Parameters
    ----------
    A, B : numpy.ndarray, shapes (n, m) and (n, p)
    method : str
        scipy's ``linprog`` method (a HiGHS variant).
    **loop
        ``order``, ``stop``, ``time_limit``: :class:`ColumnLoop` (the optimum of a
        column is its LP optimum).

    Returns
    -------
    LPOutcome
        W = R (m x p) and H (p x n): row j of H is the dual y_j of column j
        (Aᵀ y_j <= 0, y_j·b_j = optimum_j). ``optimum`` is the largest column optimum.

    Raises
    ------
    SolverError
        HiGHS did not return an optimum for some column.

    Notes
    -----
    p LPs with n equations and m + 2n variables each, handed to HiGHS in
    block-diagonal batches (:data:`BATCH_MAX_COLUMNS`): the blocks are independent,
    so each block's part of the solution and of the dual is optimal for its column.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    >>> out = solve_l1_lp_columns(A, np.array([[0.25, 0.75], [0.75, 0.25]]))
    >>> round(out.optimum, 9)
    0.0
    """
    import scipy.sparse as sp
    from scipy.optimize import linprog

    n, m = A.shape
    weights = _equation_weights(B)
    c = np.concatenate([np.zeros(m), np.ones(2 * n)])

    # [A | I | -I] built once; a batch of columns is one block-diagonal LP of copies of
    # it (CSC: each copy's first indptr[m] stored entries are its A part, row indices in
    # .indices), the A part of each copy scaled by its column's equation weights
    base = sp.hstack([sp.csc_matrix(A), sp.identity(n), -sp.identity(n)], format="csc")
    a_end = int(base.indptr[m])
    in_a = np.arange(base.nnz) < a_end

    def columns(js: list[int], left: float | None) -> list[ColumnResult]:
        s = len(js)
        A_eq = sp.block_diag([base] * s, format="csc")
        w = weights[:, js]  # (n, s)
        scale = np.where(in_a[None, :], w[base.indices].T, 1.0)  # (s, nnz of base)
        A_eq.data = A_eq.data * scale.reshape(-1)
        res = linprog(
            np.tile(c, s),
            A_eq=A_eq,
            b_eq=(w * B[:, js]).T.reshape(-1),
            bounds=(0, None),
            method=method,
            options=_options(left),
        )
        what = f"max-case LP of column {js[0]}" if s == 1 else f"max-case LPs of {s} columns"
        _raise_on_failure(res, what)
        x = np.asarray(res.x).reshape(s, m + 2 * n)
        y = w.T * np.asarray(res.eqlin.marginals).reshape(s, n)
        optima = x[:, m:].sum(axis=1)
        its = [int(getattr(res, "nit", 0) or 0)] + [0] * (s - 1)
        return [(x[k, :m], y[k], float(optima[k]), its[k]) for k in range(s)]

    return solve_columns(A.shape, B.shape[1], columns, "max-case LPs", batched=True, **loop)


#: :func:`solve_l1_lp_columns` solves the columns in block-diagonal LPs of 1, 2, 4, ...
#: columns (the first few small, for the loop's early stop), at most this many columns and
#: ``BATCH_MAX_ENTRIES`` stored entries each: one call of HiGHS per block instead of per
#: column (its set-up costs more than a small column's solve).
BATCH_MAX_COLUMNS: int = 128
BATCH_MAX_ENTRIES: int = 400_000


def _batches(order: list[int], nnz: int) -> list[list[int]]:
    """``order`` cut into batches of 1, 2, 4, ... columns (at most the caps above)."""
    cap = max(1, min(BATCH_MAX_COLUMNS, BATCH_MAX_ENTRIES // max(nnz, 1)))
    out, start, size = [], 0, 1
    while start < len(order):
        out.append(order[start : start + size])
        start += size
        size = min(2 * size, cap)
    return out


def solve_columns(
    shape: tuple[int, int],
    p: int,
    column: ColumnSolve | ColumnBatchSolve,
    what: str,
    batched: bool = False,
    **loop: Unpack[ColumnLoop],
) -> LPOutcome:
    """The loop of the max-case engines over the columns of B, one solve per column or batch.

    Parameters
    ----------
    shape : (int, int)
        (n, m), the shape of A.
    p : int
        The number of columns of B.
    column : callable
        ``column(j, seconds_left)`` solves column j (``seconds_left`` None: no limit)
        and returns (r_j, y_j, optimum_j, iterations): the column of W, the row of H,
        the column's optimum (0 when b_j is in the cone) and the solver's steps.
        With ``batched``, ``column(js, seconds_left)`` solves the columns ``js`` and
        returns one such tuple per column.
    what : str
        The solves, for the time-limit message (``"max-case LPs"``).
    batched : bool
        Hand ``column`` batches of 1, 2, 4, ... columns (:func:`_batches`); ``stop``
        is still asked after each column, in order.
    **loop
        ``order``, ``stop``, ``time_limit``: :class:`ColumnLoop`.

    Returns
    -------
    LPOutcome
        W (m x p), H (p x n), the largest column optimum and the steps summed.

    Raises
    ------
    SolverError
        The time limit passed before a column (or batch) was solved.

    Examples
    --------
    >>> import numpy as np
    >>> def column(j, seconds_left):
    ...     return np.ones(1), np.zeros(1), j / 2, 1
    >>> out = solve_columns((1, 1), 2, column, "solves")
    >>> out.W, out.optimum, out.iterations
    (array([[1., 1.]]), 0.5, 2)
    >>> def columns(js, seconds_left):
    ...     return [column(j, seconds_left) for j in js]
    >>> solve_columns((1, 1), 3, columns, "solves", batched=True).optimum
    1.0
    """
    n, m = shape
    order, stop, time_limit = loop.get("order"), loop.get("stop"), loop.get("time_limit")
    W = np.zeros((m, p))
    H = np.zeros((p, n))
    worst = 0.0
    steps = 0
    deadline = None if time_limit is None else now() + time_limit
    js = [int(j) for j in (range(p) if order is None else order)]
    batches = _batches(js, n * (m + 2)) if batched else [[j] for j in js]
    for batch in batches:
        left = None if deadline is None else deadline - now()
        if left is not None and left <= 0:
            msg = (
                f"the {what} reached the time limit (time_limit = {time_limit:g} s) "
                f"before column {batch[0]} of {p}; no verdict: raise time_limit"
            )
            raise SolverError(msg)
        results: list[ColumnResult]
        if batched:
            results = column(batch, left)  # type: ignore[arg-type, assignment]
        else:
            results = [column(batch[0], left)]  # type: ignore[arg-type, list-item]
        for j, (r, y, optimum, its) in zip(batch, results, strict=True):
            W[:, j], H[j] = r, y
            worst = max(worst, optimum)
            steps += its
            if stop is not None and optimum > 0 and stop(j, H[j], optimum):
                return LPOutcome(W, H, worst, steps)
    return LPOutcome(W, H, worst, steps)
