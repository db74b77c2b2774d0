"""Floating-point certificates: witness cleaning, the rounding-band test, rigorous gap bounds."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sparse

from ..errors import ParameterError
from .entropic import weighted_hessian_solve
from .witness import FactoredWitness, row_sums

__all__ = [
    "UNIT_ROUNDOFF",
    "gamma",
    "BAND_FACTOR",
    "INPUT_BAND_FACTOR",
    "input_rounding_band",
    "clean_witness",
    "witness_errors",
    "rounding_band",
    "band_gap_allowance",
    "BandOutcome",
    "band_certificate",
    "band_excess",
    "band_text",
    "gain_from_weighted",
    "float_gap",
    "float_max_case_gap",
]

#: Unit roundoff of float64.
UNIT_ROUNDOFF: float = 2.0**-53

#: The rounding band: B "equals" A·W when |B − A·W| <= BAND_FACTOR (|Y_A| + 2) u (A·W + B)
#: entrywise, i.e. up to the rounding of evaluating A·W and of storing B.
BAND_FACTOR: float = 4.0


def gamma(n: int) -> float:
    """An upper bound (as a float) on gamma_n = n u / (1 - n u), u = 2^-53.

    The relative error of a sum of n + 1 non-negative floats in any order, or of a
    product of n roundings, is at most gamma_n (Higham, Lemma 3.1).

    Parameters
    ----------
    n : int
        The number of roundings, 0 <= n < 2^51 (n u < 1/4).

    Returns
    -------
    float
        >= gamma_n: n u and 1 - n u are exact in float64 for such n, and the quotient
        is rounded up by a factor 1 + 2u.

    Raises
    ------
    ParameterError
        n negative or n u >= 1/4 (no meaningful bound).

    Examples
    --------
    >>> gamma(0), gamma(1) > 2.0**-53
    (0.0, True)
    >>> bool(gamma(2**16) < 7.3e-12)
    True
    """
    if not 0 <= n < 2**51:
        msg = f"n must be an integer in [0, 2^51) for gamma_n = n u / (1 - n u), got {n}"
        raise ParameterError(msg)
    nu = n * UNIT_ROUNDOFF
    return nu / (1.0 - nu) * (1.0 + 2.0 * UNIT_ROUNDOFF)


def clean_witness(W: Any, rowsum: bool) -> Any:
    """Clip negative entries to 0 and (average case) renormalise the rows to sum to 1.

    A factored witness is cleaned on its reduced witness (its rows are the rows of W).
    """
    if isinstance(W, FactoredWitness):
        return replace(W, reduced=clean_witness(W.reduced, rowsum))
    # a new array either way; the clipping copy is skipped when nothing is negative (nor NaN)
    clipped = float(W.min()) >= 0.0
    if not clipped:
        W = np.where(W > 0, W, 0.0)
    if not rowsum:
        return W.copy() if clipped else W
    s = row_sums(W)
    if float(s.min()) <= 0:  # a row of zeros becomes uniform
        W = W.copy() if clipped else W
        W[s <= 0] = 1.0 / W.shape[1]
        s = row_sums(W)
    return W / s[:, None]


def witness_errors(
    A: np.ndarray, B: np.ndarray, W: np.ndarray, rowsum: bool
) -> tuple[float, float | None, float]:
    """(max |A·W − B|, max |W·1 − 1| or None, min entry) for the channels as given."""
    resid = float(np.abs(A @ W - B).max())
    rs = float(np.abs(row_sums(W) - 1.0).max()) if rowsum else None
    return resid, rs, float(W.min())


#: The band of what rounding of the *inputs* can explain: an entry P computed in log
#: space (or as a product of factors) carries a relative error up to
#: INPUT_BAND_FACTOR u (1 + |ln P|). A pair whose best witness is within this band (but
#: not the rounding band) and has no certificate either way is "holds up to rounding".
INPUT_BAND_FACTOR: float = 16.0


def input_rounding_band(M: np.ndarray) -> np.ndarray:
    """Entrywise INPUT_BAND_FACTOR u (1 + |ln M|) M: what the inputs' own rounding explains.

    Examples
    --------
    >>> import numpy as np
    >>> float(input_rounding_band(np.array([1.0]))[0]) == INPUT_BAND_FACTOR * 2.0**-53
    True
    """
    with np.errstate(divide="ignore"):
        logs = np.abs(np.log(np.where(M > 0, M, 1.0)))
    return INPUT_BAND_FACTOR * UNIT_ROUNDOFF * (1.0 + logs) * np.abs(M)


def rounding_band(
    A: np.ndarray, B: np.ndarray, W: np.ndarray, AW: np.ndarray | None = None
) -> np.ndarray:
    """Entrywise band BAND_FACTOR (|Y_A| + 2) u (A·W + B) within which B counts as A·W (W >= 0)."""
    if AW is None:
        AW = A @ W
    return BAND_FACTOR * (A.shape[1] + 2) * UNIT_ROUNDOFF * (AW + B)


def band_gap_allowance(m: int, g: np.ndarray, prior: np.ndarray) -> float:
    """Largest gap V_g[π▷B] − V_g[π▷A] a pair can have when B is A·W up to the rounding band.

    With |B − A·W| <= (BAND_FACTOR + 1)(m + 2) u (A·W + B) exactly and A·W, B
    row-stochastic, V_g[π▷B] − V_g[π▷A] <= V_g[π▷B] − V_g[π▷A·W]
    <= Σ_x π_x max_w |g[w, x]| Σ_y |B − A·W|[x, y]
    <= 2 (BAND_FACTOR + 1)(m + 2) u Σ_x π_x max_w |g[w, x]|.
    A counterexample must beat this (with margin), so that the two certificates exclude each other.
    """
    return (
        3.0 * (BAND_FACTOR + 1.0) * (m + 2) * UNIT_ROUNDOFF * float(prior @ np.abs(g).max(axis=0))
    )


def _row_consistent(R: np.ndarray) -> np.ndarray:
    """R minus its row means: the part of a residual that a row-stochastic correction can reach.

    With both channels' rows summing to exactly 1 (the exact semantics) and
    W·1 = 1, the exact residual has R·1 = 0; its float row sums are rounding.
    """
    return R - R.mean(axis=1, keepdims=True)


#: Up to this many (support entries x equations), the correction is a least-squares solve on
#: the support (dense below ``_SPARSE_CORRECTION_MIN``, sparse LSQR above); beyond it, the
#: Hessian solve of the entropic engine.
_DENSE_CORRECTION_MAX: int = 4 * 10**6

#: From this many (support entries x equations) on, the support system is solved by sparse
#: LSQR: the dense SVD-based ``lstsq`` costs O(rows² · entries) (0.6 s at 600 x 4000 on one
#: core, 7 s with oversubscribed BLAS threads), LSQR O(entries · |X|) per iteration.
_SPARSE_CORRECTION_MIN: int = 2 * 10**5


def _support_system(
    A: np.ndarray, W: np.ndarray, R: np.ndarray, rowsum: bool, scale: np.ndarray | None
) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """The (weighted) equations of refinement on the support of W, sparse: (M, rhs, zs, js).

    Variables e = ΔW / sqrt(W) on the support (z, j) of W; equation (x, j) is
    Σ_z A[x, z] sqrt(W[z, j]) e[z, j] = R[x, j], and in the average case equation z
    is Σ_j sqrt(W[z, j]) e[z, j] = 0. With ``scale``, equation (x, j) is divided by
    the size of its entries (the band is relative per entry) and the row-sum
    equations get the median weight. Each column of M has |X| (+1) entries.
    """
    import scipy.sparse as sparse

    n, m = A.shape
    p = W.shape[1]
    zs, js = np.nonzero(W > 0)
    sq = np.sqrt(W[zs, js])
    rows = n * p + (m if rowsum else 0)
    cols = np.arange(zs.size)
    r_idx = [x * p + js for x in range(n)]
    vals = [A[x, zs] * sq for x in range(n)]
    if rowsum:
        r_idx.append(n * p + zs)
        vals.append(sq)
    ri = np.concatenate(r_idx)
    ci = np.tile(cols, len(r_idx))
    v = np.concatenate(vals)
    rhs = np.concatenate([R.reshape(-1), np.zeros(m)]) if rowsum else R.reshape(-1).copy()
    if scale is not None:
        w = 1.0 / np.maximum(scale.reshape(-1), 1e-300)
        if rowsum:
            w = np.concatenate([w, np.full(m, np.median(w))])
        v = v * w[ri]
        rhs = rhs * w
    keep = v != 0
    M = sparse.csr_matrix((v[keep], (ri[keep], ci[keep])), shape=(rows, zs.size))
    return M, rhs, zs, js


def _support_correction(
    A: np.ndarray, W: np.ndarray, R: np.ndarray, rowsum: bool, scale: np.ndarray | None = None
) -> np.ndarray:
    """Weighted least-norm, least-squares ΔW on the support of W (A ΔW = R, ΔW·1 = 0); ΔW / W.

    The equations of :func:`_support_system`, solved for the least-norm
    least-squares e (robust to rank deficiency and to residuals outside the
    range): by dense ``lstsq`` for small systems, by sparse LSQR from
    ``_SPARSE_CORRECTION_MIN`` (support entries x equations) on; LSQR from 0
    converges to the same least-norm solution (relative difference ~1e-14
    measured at 600 x 4000). An LSQR run that stops at its iteration limit
    falls back to the dense solve.
    """
    from scipy.sparse.linalg import lsqr

    M, rhs, zs, js = _support_system(A, W, R, rowsum, scale)
    sq = np.sqrt(W[zs, js])
    e = None
    if not rowsum:
        e = _blockwise_least_squares(M, rhs, js, A.shape[0], W.shape[1])
    elif M.shape[0] * M.shape[1] >= _SPARSE_CORRECTION_MIN:
        limit = 4 * min(M.shape) + 100
        out = lsqr(M, rhs, atol=1e-16, btol=1e-16, conlim=1e16, iter_lim=limit)
        if out[1] != 7:  # 7: iteration limit reached
            e = out[0]
    if e is None:
        e = np.linalg.lstsq(M.toarray(), rhs, rcond=1e-15)[0]
    D = np.zeros_like(W)
    D[zs, js] = e / sq
    return D


def _blockwise_least_squares(M: Any, rhs: np.ndarray, js: np.ndarray, n: int, p: int) -> np.ndarray:
    """The least-norm least-squares solution of the max-case support system, column by column.

    Without the row-sum equations, equation (x, j) involves only the entries of column
    j of W: the system is block diagonal (one n x |support of column j| block per
    column of B), and its least-norm least-squares solution is the blocks' own.
    """
    Mc = M.tocsc()
    e = np.zeros(M.shape[1])
    order = np.argsort(js, kind="stable")
    bounds = np.searchsorted(js[order], np.arange(p + 1))
    for j in range(p):
        idx = order[bounds[j] : bounds[j + 1]]
        if idx.size:
            rows = np.arange(n) * p + j
            block = Mc[:, idx][rows].toarray()
            e[idx] = np.linalg.lstsq(block, rhs[rows], rcond=1e-15)[0]
    return e


def _correction(
    A: np.ndarray, W: np.ndarray, R: np.ndarray, rowsum: bool, scale: np.ndarray | None = None
) -> np.ndarray:
    """D with A(W∘D) ≈ R (and (W∘D)·1 = 0 when ``rowsum``), weighted least norm.

    ``scale`` (n x p, optional): the size of each equation's entries; small
    problems then solve the equations in relative terms.
    """
    n, m = A.shape
    nnz = int(np.count_nonzero(W))
    if nnz * (n * W.shape[1] + m) <= _DENSE_CORRECTION_MAX:
        return _support_correction(A, W, R, rowsum, scale)
    if rowsum:
        return weighted_hessian_solve(A, W, _row_consistent(R))
    n = A.shape[0]
    blocks = (
        np.einsum("xz,zj,yz->jxy", A, W, A) if n * A.shape[1] * W.shape[1] <= 5 * 10**7 else None
    )
    if blocks is None:
        out = np.empty_like(W)
        for j in range(W.shape[1]):
            Mj = (A * W[:, j]) @ A.T
            out[:, j] = A.T @ (np.linalg.pinv(Mj, rcond=1e-14, hermitian=True) @ R[:, j])
        return out
    Y = np.einsum("jxy,yj->xj", np.linalg.pinv(blocks, rcond=1e-14, hermitian=True), R)
    return A.T @ Y


def band_text(residual: float) -> str:
    """The statement of a witness within the rounding band, with its max residual."""
    return (
        f"A·W = B up to the rounding band (max residual {residual:.3g}, "
        f"entrywise <= {BAND_FACTOR:g} (|Y_A| + 2) u (A·W + B))"
    )


def band_excess(
    A: np.ndarray, B: np.ndarray, W: Any, inputs_too: bool = False
) -> tuple[float, float]:
    """(largest |B − A·W| beyond the band, max |B − A·W|) for the channels and W as given.

    The band is :func:`rounding_band`; with ``inputs_too`` (a verdict "up to rounding"
    of the inputs' own rounding) plus :func:`input_rounding_band` of B and of A carried
    through W. An excess <= 0: W is within the band entrywise. W may be a
    :class:`FactoredWitness` (A·W is formed through its reduced witness).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> excess, residual = band_excess(A, A, np.eye(2))
    >>> excess < 0, residual
    (True, 0.0)
    """
    AW = A @ W
    R = np.abs(B - AW)
    band = rounding_band(A, B, W, AW)
    if inputs_too:
        band = band + input_rounding_band(B) + input_rounding_band(A) @ W
    return float((R - band).max()), float(R.max())


@dataclass
class BandOutcome:
    """Result of the rounding-band test: the (polished) witness or None, and why."""

    W: np.ndarray | None
    reason: str
    residual: float = float("nan")


def band_certificate(
    A: np.ndarray, B: np.ndarray, W: np.ndarray, rowsum: bool = True, rounds: int = 2
) -> BandOutcome:
    """Polish a float witness and test that A·W equals B up to the rounding band.

    W (clipped, rows renormalised) is corrected on its support by the
    least-change step W ← W + W∘D with A(W∘D) = R = B − A·W (and
    (W∘D)·1 = 0 in the average case; :func:`weighted_hessian_solve`), negative
    entries clipped, a few rounds. It passes when every entry satisfies
    |B − A·W| <= :func:`rounding_band`, i.e. B is A·W up to the rounding of
    evaluating A·W and of storing B; rows of W sum to 1 within 8 (|Y_B| + 2) u.

    Near-boundary pairs whose difference is genuine, however small in absolute
    terms, fail: at grr(k, 30) vs grr(k, 31) the off-diagonal residual of W = I is
    ~6e-14, while the band there is ~1e-27 (relative to the entries ~1e-13).
    """
    Ws = clean_witness(W, rowsum)
    best_left = float("inf")
    for it in range(rounds + 1):
        AW = A @ Ws
        R = B - AW
        absR = np.abs(R)
        band = rounding_band(A, B, Ws, AW)
        worst = float((absR - band).max())
        resid = float(absR.max())
        if worst <= 0:
            if rowsum and np.abs(row_sums(Ws) - 1).max() > 8.0 * (B.shape[1] + 2) * UNIT_ROUNDOFF:
                return BandOutcome(None, "rows of the witness do not sum to 1 within rounding")
            return BandOutcome(Ws, band_text(resid), resid)
        if it == rounds or worst >= best_left:
            return BandOutcome(
                None,
                f"residual exceeds the rounding band by up to {worst:.3g} (max residual "
                f"{resid:.3g}) and the correction on the witness's support "
                "cannot remove it",
                resid,
            )
        best_left = worst
        D = _correction(A, Ws, R, rowsum, AW + B)
        if not np.all(np.isfinite(D)):
            return BandOutcome(None, "the correction step is not finite")
        Wn = clean_witness(Ws + Ws * D, rowsum)
        if float((np.abs(B - A @ Wn) - band).max()) >= worst:
            return BandOutcome(
                None,
                f"residual exceeds the rounding band by up to {worst:.3g} and the correction "
                "on the witness's support does not reduce it",
                resid,
            )
        Ws = Wn
    return BandOutcome(None, "unreachable")  # pragma: no cover


def gain_from_weighted(H: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """g[w, x] = H[w, x] / π_x, scaled by a power of 2 so that 1/2 < max |g| <= 1."""
    g = np.asarray(H, dtype=np.float64) / prior[None, :]
    top = np.abs(g).max()
    if top > 0 and np.isfinite(top):
        # scale by a power of two: exact, so the scaled gain's gap is the same rational
        # multiple; by ldexp, whose factor 2^-e is never formed (a subnormal top needs
        # 2^1074, past the float range)
        mant, e = np.frexp(top)
        g = np.ldexp(g, -(int(e) - 1 if mant == 0.5 else int(e)))
    return g


def float_gap(
    An: np.ndarray, Bn: np.ndarray, g: np.ndarray, prior: np.ndarray
) -> tuple[float, float]:
    """V_g[π▷B] − V_g[π▷A] for row-normalised channels, and the bound it must exceed.

    The bound is a rigorous bound on the rounding error of the evaluation (the
    products π_x C[x, y], the inner sums over x (γ_n |g||J|), the sums over y,
    the row normalisation, relative (|Y| + 2) u per entry) plus
    :func:`band_gap_allowance`: a gap above it is positive for the channels as
    given, and for every pair within the rounding band of them.
    """
    total = 0.0
    bound = 0.0
    for sign, C in ((1.0, Bn), (-1.0, An)):
        Jt = (prior[:, None] * C).T  # (outputs x inputs)
        gt = np.ascontiguousarray(g.T)
        step = max(1, 2**21 // max(1, g.shape[0]))  # bounded memory: outputs in chunks
        best = np.concatenate(
            [(Jt[i : i + step] @ gt).max(axis=1) for i in range(0, Jt.shape[0], step)]
        )
        val = float(best.sum())
        scale = float((Jt @ np.abs(g).max(axis=0)).sum())  # >= Σ_y max_w (|g| J)[w, y]
        k = C.shape[0] + C.shape[1] + 6
        err = 2.0 * k * UNIT_ROUNDOFF * scale + 2.0 * k * UNIT_ROUNDOFF * float(np.abs(best).sum())
        total += sign * val
        bound += err
    allowance = band_gap_allowance(An.shape[1], g, prior)
    return total, bound + allowance + 4 * UNIT_ROUNDOFF * abs(total)


def float_max_case_gap(
    An: np.ndarray, Bn: np.ndarray, g: np.ndarray, prior: np.ndarray
) -> tuple[float, float]:
    """V_g^max[π▷B] − V_g^max[π▷A] (posterior max-case), row-normalised channels, with its bound.

    V_g^max[π▷C] = max_{y: p(y) > 0} max_w Σ_x g[w, x] π_x C[x, y] / Σ_x π_x C[x, y].
    The bound adds to the evaluation error the change a rounding-band
    perturbation of the entries can cause (posterior expectations move by at
    most twice the relative perturbation times max |g|).
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
    rel = (BAND_FACTOR + 1.0) * (An.shape[1] + 2) * UNIT_ROUNDOFF
    return gap, bound + 8.0 * rel * float(np.abs(g).max())
