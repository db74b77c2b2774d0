"""The max-case cone test by nonnegative least squares: one active-set solve per column of B.

Column b of B lies in the cone of A's columns iff min ||D (A r − b)|| over r >= 0 is 0
(D = diag(1 / B[:, j]), so that every entry counts relatively, as in the rounding band
that certifies the witness). Lawson and Hanson's active-set method (scipy's ``nnls``)
returns a vertex r of at most |X| nonzeros, and at its optimum the weighted residual
gives the separating hyperplane for free: with y = D² (b − A r), the optimality
conditions read Aᵀy <= 0 and, by complementarity, yᵀb = ||D (b − A r)||² > 0 — the
same Farkas certificate as the LP dual of :func:`qifldp.refinement.lp.solve_l1_lp_columns`.
One solve costs O(|X|² |Y_A|) per active-set step instead of a simplex on
|Y_A| + 2 |X| variables: 50 x 200 vs 50 x 200 (holds) in 0.14 s against 1.8 s, 2–23 times
faster over the cases of ``benchmarks/bench_refinement.py``.
Like every engine's output, W and H are candidates; the driver certifies them.
"""

from __future__ import annotations

from typing import Unpack

import numpy as np

from ..errors import SolverError
from .lp import ColumnLoop, LPOutcome, solve_columns

__all__ = ["solve_nnls_columns"]


def _relative_weights(B: np.ndarray) -> np.ndarray:
    """f_j / B[x, j], f_j the column's smallest positive entry (zero entries: 1): relative
    equations, each column's weights at most 1 (1 / B[x, j] overflowed for a subnormal
    entry, 1 / 1e-310).

    Unlike the LP's floored weights, tiny entries keep their relative weight: the
    rounding band that certifies the witness is relative entry by entry.
    """
    pos = np.where(B > 0, B, np.inf)
    floor = pos.min(axis=0)
    floor[~np.isfinite(floor)] = 1.0
    return floor[None, :] / np.where(B > 0, B, floor[None, :])


def _edge_fit(A: np.ndarray, b: np.ndarray, w: np.ndarray, r: np.ndarray) -> np.ndarray:
    """r, or c·e_z for a column z of its support when that fits b better (relative max-norm).

    A column of B on an edge of A's cone is a multiple of one column of A; the
    active-set solution then spreads rounding-sized weights over nearly collinear
    columns and its residual can stay far above rounding in the small entries
    (SUE vs OUE at the same eps: 1e-12 relative). The single-column fit is exact
    to rounding there.
    """
    # the weights may be scaled by a common factor (w b = unit on b's positive entries):
    # residuals are compared in that unit
    unit = float(np.abs(w * b).max()) or 1.0
    err = float(np.abs(w * (A @ r - b)).max()) / unit
    support = np.flatnonzero(r)
    if err <= 8 * A.shape[0] * 2.0**-53 or support.size == 0:  # already at rounding
        return r
    a = A[:, support] * w[:, None]  # weighted candidate columns
    # each scaled to max 1 before the least-squares coefficient: the squares of a column
    # of tiny entries (1e-200) would underflow to 0
    top = np.abs(a).max(axis=0)
    usable = (top > 0) & (top > np.abs(w * b).max() * 2.0**-1000)  # c = c1 / top stays finite
    ah = a[:, usable] / top[usable]
    c1 = np.zeros(support.size)
    c1[usable] = (ah.T @ (w * b)) / np.einsum("ij,ij->j", ah, ah)
    c = np.zeros(support.size)
    c[usable] = c1[usable] / top[usable]
    errs = np.full(support.size, np.inf)
    errs[usable] = np.abs(ah * c1[usable][None, :] - (w * b)[:, None]).max(axis=0) / unit
    errs[~(c > 0)] = np.inf
    z = int(np.argmin(errs))
    if not errs[z] < err:
        return r
    best = np.zeros_like(r)
    best[support[z]] = c[z]
    return best


def solve_nnls_columns(
    A: np.ndarray,
    B: np.ndarray,
    **loop: Unpack[ColumnLoop],
) -> LPOutcome:
    """Per column b of B: r >= 0 minimising ||D (A r − b)||₂, and its Farkas vector.

    Parameters
    ----------
    A, B : numpy.ndarray, shapes (n, m) and (n, p)
    **loop
        ``order``, ``stop``, ``time_limit``: :class:`~qifldp.refinement.lp.ColumnLoop`
        (the optimum of a column is its L1 residual).

    Returns
    -------
    LPOutcome
        W = R (m x p); row j of H is y_j = D² (b_j − A r_j), D scaled so that its largest
        entry is 1 (Aᵀ y_j <= 0 and y_j·b_j > 0 when b_j is outside the cone, up to
        rounding); ``optimum`` is the
        largest Σ_x |A r_j − b_j| over the columns; ``iterations`` counts columns.

    Raises
    ------
    SolverError
        The active-set method did not converge on a column, or the time limit passed.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    >>> out = solve_nnls_columns(A, np.array([[0.25, 0.75], [0.75, 0.25]]))
    >>> float(np.abs(A @ out.W - [[0.25, 0.75], [0.75, 0.25]]).max()) < 1e-15
    True
    >>> A = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> out = solve_nnls_columns(A, np.array([[1.0], [0.0]]))  # outside the cone
    >>> y = out.H[0]
    >>> bool(np.all(A.T @ y <= 1e-15) and y @ [1.0, 0.0] > 0)
    True
    """
    from scipy.optimize import nnls

    n, m = A.shape
    weights = _relative_weights(B)

    def column(j: int, left: float | None) -> tuple[np.ndarray, np.ndarray, float, int]:
        # the relative weights 1 / B[x, j] scaled so that the largest is 1: a column with
        # a tiny entry (1e-202) would otherwise square them past the float range (1e404)
        # in the column norms and in y; a common factor changes neither r nor y's direction
        w = weights[:, j]
        w = w / w.max()
        Aw = A * w[:, None]
        scale = np.linalg.norm(Aw, axis=0)
        scale[scale == 0] = 1.0
        try:
            r, _ = nnls(Aw / scale, w * B[:, j], maxiter=50 * max(m, n))
        except RuntimeError as exc:  # the active set did not settle
            msg = f"the nonnegative least squares of column {j} did not converge ({exc})"
            raise SolverError(msg) from None
        r = _edge_fit(A, B[:, j], w, r / scale)
        res = B[:, j] - A @ r
        return r, w * w * res, float(np.abs(res).sum()), 1

    what = "max-case least-squares solves"
    return solve_columns(A.shape, B.shape[1], column, what, **loop)
