"""Floating-point certificates: witness cleaning and checks, the margin test, rigorous gap bounds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .entropic import weighted_hessian_solve

__all__ = [
    "UNIT_ROUNDOFF",
    "clean_witness",
    "witness_errors",
    "MarginOutcome",
    "margin_certificate",
    "gain_from_weighted",
    "float_gap",
    "float_max_case_gap",
]

#: Unit roundoff of float64.
UNIT_ROUNDOFF: float = 2.0**-53

#: After the correction of the final residual, what is left must be below this
#: fraction of it (or below the rounding bound): otherwise the residual is not
#: in the range of the support's equations, i.e. no exact witness is nearby.
_CONSISTENCY_RTOL: float = 1e-6

#: Each entry of the corrected witness must stay above (1 − this) times its value.
_MARGIN: float = 0.5


def clean_witness(W: np.ndarray, rowsum: bool) -> np.ndarray:
    """Clip negative entries to 0 and (average case) renormalise the rows to sum to 1."""
    W = np.where(W > 0, W, 0.0)
    if rowsum:
        s = W.sum(axis=1, keepdims=True)
        bad = s[:, 0] <= 0
        if np.any(bad):
            W[bad] = 1.0 / W.shape[1]
            s = W.sum(axis=1, keepdims=True)
        W = W / s
    return W


def witness_errors(A: np.ndarray, B: np.ndarray, W: np.ndarray, rowsum: bool) -> tuple[float, float | None, float]:
    """(max |A·W − B|, max |W·1 − 1| or None, min entry) for the channels as given."""
    resid = float(np.abs(A @ W - B).max())
    rs = float(np.abs(W.sum(axis=1) - 1.0).max()) if rowsum else None
    return resid, rs, float(W.min())


def _rounding_bound(A: np.ndarray, B: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Componentwise bound on the rounding error of evaluating B − A·W (with normalised rows)."""
    n, m = A.shape
    k = max(m, B.shape[1]) + n + 4
    return 4.0 * k * UNIT_ROUNDOFF * (A @ np.abs(W) + np.abs(B))


def _correction(A: np.ndarray, W: np.ndarray, R: np.ndarray, rowsum: bool) -> np.ndarray:
    """D with A(W∘D) ≈ R (and (W∘D)·1 = 0 when ``rowsum``), weighted least norm."""
    if rowsum:
        return weighted_hessian_solve(A, W, R)
    n = A.shape[0]
    blocks = np.einsum("xz,zj,yz->jxy", A, W, A) if n * A.shape[1] * W.shape[1] <= 5 * 10**7 else None
    if blocks is None:
        out = np.empty_like(W)
        for j in range(W.shape[1]):
            Mj = (A * W[:, j]) @ A.T
            out[:, j] = A.T @ (np.linalg.pinv(Mj, rcond=1e-14, hermitian=True) @ R[:, j])
        return out
    Y = np.einsum("jxy,yj->xj", np.linalg.pinv(blocks, rcond=1e-14, hermitian=True), R)
    return A.T @ Y


@dataclass
class MarginOutcome:
    """Result of the margin test: the corrected witness or None, and why."""

    W: np.ndarray | None
    reason: str
    snap: float = 0.0
    residual: float = float("nan")
    margin: float = float("nan")


def margin_certificate(
    A: np.ndarray,
    B: np.ndarray,
    W: np.ndarray,
    rowsum: bool = True,
    snaps: tuple[float, ...] = (0.0, 1e-13, 1e-10),
    rounds: int = 3,
) -> MarginOutcome:
    """Correct a float witness and test that an exact witness lies next to it.

    Entries of W below ``snap`` are set to 0 (each snap level is tried in turn).
    The residual R = B − A·W is then removed by the least-change correction
    W ← W + W∘D on the support of W (:func:`weighted_hessian_solve`), a few
    rounds. The witness passes when, for the final residual R_f:

    * the correction D of R_f explains it: |R_f − A(W∘D)| <= 1e-6 |R_f|_max or
      within the componentwise rounding bound of evaluating B − A·W, i.e. R_f is
      in the range of the equations restricted to the support; and
    * every entry keeps at least half its value: D >= −1/2 on the support.

    Then W∘(1 + D) solves the equations with every entry >= W/2 >= 0: an exact
    witness exists next to W, up to the accuracy of that linear solve (which is
    re-checked). Near-boundary pairs fail this test (the only nearby solutions
    need entries of the wrong sign, or a residual outside the support's range)
    and are sent to exact arithmetic.
    """
    last = "no snap level left a usable support"
    for snap in snaps:
        Ws = np.where(W > snap, W, 0.0)
        if rowsum:
            s = Ws.sum(axis=1, keepdims=True)
            if np.any(s <= 0):
                continue
            Ws = Ws / s
        supp = Ws > 0
        failed = False
        for _ in range(rounds):
            R = B - A @ Ws
            if not np.any(R):
                break
            D = _correction(A, Ws, R, rowsum)
            if not np.all(np.isfinite(D)) or D[supp].min() < -_MARGIN:
                failed = True
                last = f"snap {snap:g}: the correction would cut an entry by more than half"
                break
            Wn = Ws + Ws * D
            Rn = B - A @ Wn
            if np.abs(Rn).max() >= np.abs(R).max():
                break
            Ws = Wn
            if rowsum:
                Ws = Ws / Ws.sum(axis=1, keepdims=True)
        if failed:
            continue
        R = B - A @ Ws
        rmax = float(np.abs(R).max())
        if rmax == 0.0:
            return MarginOutcome(Ws, "A·W = B holds in floating point with no residual", snap, 0.0, 1.0)
        D = _correction(A, Ws, R, rowsum)
        left = R - A @ (Ws * D)
        eta = _rounding_bound(A, B, Ws)
        consistent = np.abs(left).max() <= _CONSISTENCY_RTOL * rmax or np.all(np.abs(left) <= eta)
        if not consistent:
            last = f"snap {snap:g}: residual {rmax:.3g} is outside the range of the support's equations"
            continue
        dmin = float(D[supp].min()) if np.any(supp) else 0.0
        if dmin < -_MARGIN:
            last = f"snap {snap:g}: the final correction would cut an entry by {-dmin:.3g} of its value"
            continue
        return MarginOutcome(
            Ws,
            f"a correction within the support absorbs the residual {rmax:.3g} "
            f"changing no entry by more than {abs(dmin):.3g} of its value",
            snap,
            rmax,
            1.0 + dmin,
        )
    return MarginOutcome(None, last)


def gain_from_weighted(H: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """g[w, x] = H[w, x] / π_x, scaled so that max |g| = 1 (positive scaling keeps the sign of gaps)."""
    g = np.asarray(H, dtype=np.float64) / prior[None, :]
    top = np.abs(g).max()
    if top > 0 and np.isfinite(top):
        # scale by a power of two: exact, so the scaled gain's gap is the same rational multiple
        g = g * 2.0 ** (-np.ceil(np.log2(top)))
    return g


def float_gap(An: np.ndarray, Bn: np.ndarray, g: np.ndarray, prior: np.ndarray) -> tuple[float, float]:
    """V_g[π▷B] − V_g[π▷A] for row-normalised channels, and a rigorous bound on its rounding error.

    The bound covers the products π_x C[x, y], the inner sums over x (γ_n |g||J|),
    the sums over y, and the row normalisation (relative (|Y| + 2) u per entry).
    """
    total = 0.0
    bound = 0.0
    for sign, C in ((1.0, Bn), (-1.0, An)):
        J = prior[:, None] * C
        V = g @ J
        VA = np.abs(g) @ J
        idx = np.argmax(V, axis=0)
        best = V[idx, np.arange(V.shape[1])]
        val = float(best.sum())
        k = C.shape[0] + C.shape[1] + 6
        err = 2.0 * k * UNIT_ROUNDOFF * float(VA.max(axis=0).sum()) + 2.0 * k * UNIT_ROUNDOFF * float(np.abs(best).sum())
        total += sign * val
        bound += err
    return total, bound + 4 * UNIT_ROUNDOFF * abs(total)


def float_max_case_gap(An: np.ndarray, Bn: np.ndarray, g: np.ndarray, prior: np.ndarray) -> tuple[float, float]:
    """V_g^max[π▷B] − V_g^max[π▷A] (posterior max-case) for row-normalised channels, with an error bound.

    V_g^max[π▷C] = max_{y: p(y) > 0} max_w Σ_x g[w, x] π_x C[x, y] / Σ_x π_x C[x, y].
    """
    vals = []
    bound = 0.0
    for C in (Bn, An):
        J = prior[:, None] * C
        den = J.sum(axis=0)
        keep = den > 0
        num = g @ J[:, keep]
        numa = np.abs(g) @ J[:, keep]
        post = num / den[keep]
        idx = np.unravel_index(np.argmax(post), post.shape)
        vals.append(float(post[idx]))
        k = C.shape[0] + C.shape[1] + 8
        rel = 2.0 * k * UNIT_ROUNDOFF
        bound += float((rel * numa / den[keep]).max() + rel * np.abs(post).max())
    gap = vals[0] - vals[1]
    return gap, bound
