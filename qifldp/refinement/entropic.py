"""The entropic (max-entropy) dual of the refinement problem, solved by Newton-CG or L-BFGS.

Among the row-stochastic W with A·W = B, the one of maximum entropy is
W = row-softmax(−AᵀG) where G (|X| x |Y_B|) minimises the smooth convex dual

    f(G) = ⟨G, B⟩ + Σ_z logsumexp_j(−(AᵀG)[z, j]),   ∇f(G) = B − A·W(G).

When A ⋢ B, f is unbounded below and for any G with
φ(G) = ⟨G, B⟩ + Σ_z max_j(−(AᵀG)[z, j]) < 0, the π-weighted gain H = −Gᵀ (one
action per column of B) separates: V_H[B] − V_H[A] >= −φ(G) > 0. Since
φ <= f <= φ + |Y_A| log|Y_B|, such a G appears once f is negative enough.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..deadline import left, now, until, wall_clock

__all__ = ["EntropicOutcome", "solve_entropic", "solve_lbfgs", "weighted_hessian_solve"]

#: Largest number of floats of the block preconditioner's (a_z a_zᵀ) table.
_PRECOND_MAX_FLOATS = 3 * 10**7


@dataclass
class EntropicOutcome:
    """Last iterate: W (m x p) row-softmax(−AᵀG), G, the gain H = −Gᵀ if it separated."""

    W: np.ndarray
    G: np.ndarray
    residual: float
    separated: bool
    iterations: int
    cg_iterations: int = 0
    message: str = ""
    history: list = field(default_factory=list)


def _softmax_rows(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mx = S.max(axis=1, keepdims=True)
    E = np.exp(S - mx)
    Z = E.sum(axis=1, keepdims=True)
    return E / Z, (np.log(Z) + mx)[:, 0]


def _evaluate(G: np.ndarray, A: np.ndarray, B: np.ndarray):
    S = -(A.T @ G)
    W, lse = _softmax_rows(S)
    gb = float(np.sum(G * B))
    f = gb + float(lse.sum())
    phi = gb + float(S.max(axis=1).sum())
    return f, phi, W


def _hvp(V: np.ndarray, A: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Hessian of f at W applied to V: A (W∘U − W∘((W∘U)1)1ᵀ) with U = AᵀV."""
    Q = W * (A.T @ V)
    Q -= W * Q.sum(axis=1, keepdims=True)
    return A @ Q


class _Preconditioner:
    """Block-diagonal (one |X| x |X| block per column j of B) approximation of the Hessian.

    Block j is A diag(W[:, j] − W[:, j]²) Aᵀ (the softmax coupling between columns
    is dropped) plus a small ridge; it is formed as one matrix product with the
    table P[z] = a_z a_zᵀ and inverted in a batch. When every column of W − W∘W is the
    same (the uniform W of the first Newton step) the blocks are one, c·AAᵀ, inverted
    once. Falls back to the diagonal of those blocks when the table would be too large.
    """

    def __init__(self, A: np.ndarray):
        n, m = A.shape
        self.A = A
        self.full = m * n * n <= _PRECOND_MAX_FLOATS and n <= 400
        self.P: np.ndarray | None = None  # the table, built on the first update that needs it
        if not self.full:
            self.A2 = A * A
        self.inv: np.ndarray = np.ones((n, 0))  # set by update()
        self.shared = False  # one block for every column (self.inv is |X| x |X|)

    def update(self, W: np.ndarray, ridge: float = 1e-10) -> None:
        D = W - W * W
        n = self.A.shape[0]
        self.shared = self.full and float(D.min()) == float(D.max())
        if self.shared:  # every block the same (the uniform W of the first step): one inverse
            block = float(D[0, 0]) * (self.A @ self.A.T)
            idx = np.arange(n)
            block[idx, idx] += ridge * max(float(block[idx, idx].mean()), 1e-300) + 1e-300
            try:
                self.inv = np.linalg.inv(block)
                return
            except np.linalg.LinAlgError:
                self.shared = False
        if self.full:
            if self.P is None:
                m = self.A.shape[1]
                self.P = np.einsum("xz,yz->zxy", self.A, self.A).reshape(m, n * n)
            p = W.shape[1]
            blocks = (D.T @ self.P).reshape(p, n, n)
            idx = np.arange(n)
            tr = blocks[:, idx, idx].mean(axis=1)
            blocks[:, idx, idx] += (ridge * np.maximum(tr, 1e-300) + 1e-300)[:, None]
            try:
                self.inv = np.linalg.inv(blocks)
            except np.linalg.LinAlgError:
                self.full = False
                self.A2 = self.A * self.A
        if not self.full:
            d = self.A2 @ D
            self.inv = 1.0 / (d + ridge * d.mean() + 1e-300)

    def __call__(self, R: np.ndarray) -> np.ndarray:
        if self.shared:
            return self.inv @ R
        if self.full:
            return np.einsum("jxy,yj->xj", self.inv, R)
        return self.inv * R


def _wall_end() -> float | None:
    """The machine-clock time past which an iterative solve stops: the deadline in force,
    on the machine's clock; None outside a budget or under another clock (a
    :class:`~qifldp.deadline.TickClock` counts the checks between steps, not iterations,
    and is not read here)."""
    if not wall_clock():
        return None
    spare = left()
    return None if spare is None else time.perf_counter() + spare


def _pcg(
    apply_h: Callable[[np.ndarray], np.ndarray],
    rhs: np.ndarray,
    prec: _Preconditioner,
    rtol: float,
    max_iter: int,
) -> tuple[np.ndarray, int]:
    """Preconditioned CG, stopped at the deadline in force (an unconverged solution is
    what the callers' certificate checks then refuse: the limit bounds the solve too)."""
    # overflow on a nearly singular system shows up as non-finite output, handled by callers
    with np.errstate(over="ignore", invalid="ignore"):
        return _pcg_loop(apply_h, rhs, prec, rtol, max_iter, _wall_end())


def _pcg_loop(apply_h, rhs, prec, rtol, max_iter, end=None) -> tuple[np.ndarray, int]:
    x = np.zeros_like(rhs)
    r = rhs.copy()
    z = prec(r)
    d = z.copy()
    rz = float(np.sum(r * z))
    r0 = np.sqrt(max(rz, 0.0))
    k = 0
    if r0 == 0.0:
        return x, 0
    for k in range(1, max_iter + 1):  # noqa: B007
        if end is not None and time.perf_counter() > end:
            break  # the time limit: the callers' checks refuse an unconverged solution
        Hd = apply_h(d)
        dHd = float(np.sum(d * Hd))
        if not dHd > 0.0:
            break
        a = rz / dHd
        x += a * d
        r -= a * Hd
        z = prec(r)
        rzn = float(np.sum(r * z))
        if not rzn > (rtol * r0) ** 2:
            break
        d = z + (rzn / rz) * d
        rz = rzn
    return x, k


def weighted_hessian_solve(
    A: np.ndarray, W: np.ndarray, R: np.ndarray, rtol: float = 1e-12, max_iter: int = 500
) -> np.ndarray:
    """Solve A (W∘D) = R for D = AᵀY − (row means of AᵀY under W), by PCG on Y.

    This is the least-change correction of a row-stochastic W (weighted by 1/W):
    W + W∘D keeps the rows' sums and the zero pattern of W.

    Parameters
    ----------
    A : numpy.ndarray, shape (n, m)
    W : numpy.ndarray, shape (m, p)
        Row-stochastic, nonnegative.
    R : numpy.ndarray, shape (n, p)
        The residual to remove (rows summing to 0).
    rtol, max_iter : float, int
        Relative tolerance and iteration limit of the preconditioned CG.

    Returns
    -------
    numpy.ndarray, shape (m, p)
        D.

    Notes
    -----
    The normal equations of min Σ ΔW²/W s.t. A ΔW = R, ΔW·1 = 0 are the
    Hessian system of the entropic dual at W; each CG step costs O(n m p).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.4], [0.2, 0.8]])
    >>> W = np.full((2, 2), 0.5)
    >>> B = np.array([[0.55, 0.45], [0.45, 0.55]])
    >>> D = weighted_hessian_solve(A, W, B - A @ W)
    >>> bool(np.abs(A @ (W + W * D) - B).max() < 1e-12)
    True
    """
    prec = _Preconditioner(A)
    prec.update(W)
    Y, _ = _pcg(lambda V: _hvp(V, A, W), R, prec, rtol, max_iter)
    with np.errstate(invalid="ignore", over="ignore"):  # a diverged solve: non-finite,
        U = A.T @ Y  # which the caller's certificate check refuses
    return U - (W * U).sum(axis=1, keepdims=True)


def solve_entropic(
    A: np.ndarray,
    B: np.ndarray,
    *,
    tol: float = 1e-13,
    max_iter: int = 200,
    time_limit: float = 60.0,
    on_separation: Callable[[np.ndarray], bool] | None = None,
) -> EntropicOutcome:
    """Minimise the entropic dual f by Newton's method with preconditioned CG and backtracking.

    Parameters
    ----------
    A, B : numpy.ndarray, shapes (n, m) and (n, p)
        Row-stochastic (reduced) channels.
    tol : float
        Stop when max |B − A·W| <= tol.
    max_iter : int
        Newton iterations.
    time_limit : float
        Seconds.
    on_separation : callable, optional
        Called with the candidate π-weighted gain H = −Gᵀ whenever φ(G) < 0;
        returns True to stop (the gain was certified).

    Returns
    -------
    EntropicOutcome
        The last iterate W = row-softmax(−AᵀG), G, the residual max |B − A·W|,
        whether a separating gain was accepted, iteration counts, a message.

    Notes
    -----
    One Newton step costs a few Hessian-vector products, each O(n m p) (two
    matrix products), plus the block preconditioner, O(p n² m + p n³). Near the
    optimum the line search accepts steps that reduce the residual once the
    decrease of f is below its rounding.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.8, 0.2], [0.3, 0.7]])
    >>> B = A @ np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> out = solve_entropic(A, B)
    >>> out.message, bool(out.residual <= 1e-13)
    ('converged', True)
    """
    n, m = A.shape
    p = B.shape[1]
    end = until(time_limit)  # never past the deadline of the decision in force
    G = np.zeros((n, p))
    f, phi, W = _evaluate(G, A, B)
    prec = _Preconditioner(A)
    total_cg = 0
    it = 0
    message = "iteration limit"
    resid = float("inf")
    lam = 0.0  # damping, relative to hscale
    for it in range(max_iter + 1):  # noqa: B007
        grad = B - A @ W
        hscale = float(np.mean((A * A) @ (W - W * W))) + 1e-300
        resid = float(np.abs(grad).max())
        if phi < 0 and on_separation is not None and on_separation(-G.T.copy()):
            return EntropicOutcome(W, G, resid, True, it, total_cg, "separating gain")
        if resid <= tol:
            message = "converged"
            break
        if it == max_iter or now() > end:
            message = "iteration limit" if it == max_iter else "time limit"
            break
        prec.update(W, ridge=1e-10 + lam)

        def damped(V: np.ndarray, W: np.ndarray = W, c: float = lam * hscale) -> np.ndarray:
            return _hvp(V, A, W) + c * V

        step_dir, k = _pcg(damped, -grad, prec, 0.1, 100)
        total_cg += k
        slope = float(np.sum(grad * step_dir))
        if not np.isfinite(slope):  # CG broke down: damp and retry
            lam = max(10.0 * lam, 1e-6)
            if lam > 1e8:
                message = "no usable Newton direction"
                break
            continue
        if not slope < 0:
            message = "no descent direction"
            break
        # Near the optimum the decrease of f falls below its rounding (|f| u): then
        # steps are accepted when they reduce the residual max |B − A·W| instead.
        flat = -slope < 1e3 * np.finfo(float).eps * (1.0 + abs(f))
        t = 1.0
        while True:
            Gn = G + t * step_dir
            fn, phin, Wn = _evaluate(Gn, A, B)
            if fn <= f + 1e-4 * t * slope:
                break
            if flat and float(np.abs(B - A @ Wn).max()) < resid:
                break
            t *= 0.5
            if t < 1e-6:
                break
        if t < 1e-6:
            # Levenberg-Marquardt damping: the Newton direction is unreliable here
            # (a nearly singular Hessian when W concentrates); shorten it and retry.
            lam = max(10.0 * lam, 1e-6)
            if lam > 1e8:
                message = "line search failed"
                break
            continue
        lam = lam / 10.0 if t == 1.0 else lam
        lam = 0.0 if lam < 1e-9 else lam
        G, f, phi, W = Gn, fn, phin, Wn
    return EntropicOutcome(W, G, resid, False, it, total_cg, message)


def solve_lbfgs(
    A: np.ndarray,
    B: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 20000,
    on_separation: Callable[[np.ndarray], bool] | None = None,
) -> EntropicOutcome:
    """Minimise the same dual with scipy's L-BFGS-B (the first-order engine of the issue).

    Parameters are as for :func:`solve_entropic` (``A``, ``B``, ``max_iter``,
    ``on_separation``), except ``tol``, the gradient tolerance (max |B − A·W|),
    and that there is no ``time_limit``.

    Returns
    -------
    EntropicOutcome

    Notes
    -----
    Each iteration costs two products O(n m p). Slower than Newton-CG on
    ill-conditioned instances; kept as ``method="lbfgs"`` for comparison.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.8, 0.2], [0.3, 0.7]])
    >>> B = A @ np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> bool(solve_lbfgs(A, B).residual < 1e-8)
    True
    """
    from scipy.optimize import minimize

    n, p = B.shape
    state: dict[str, Any] = {"sep": False, "G": np.zeros((n, p))}

    def fun(x):
        G = x.reshape(n, p)
        f, _, W = _evaluate(G, A, B)
        return f, (B - A @ W).ravel()

    class _Stop(Exception):
        pass

    def cb(x):
        G = x.reshape(n, p)
        state["G"] = G.copy()
        _, phi, _ = _evaluate(G, A, B)
        if phi < 0 and on_separation is not None and on_separation(-G.T.copy()):
            state["sep"] = True
            raise _Stop

    x0 = np.zeros(n * p)
    it = 0
    msg = ""
    try:
        res = minimize(
            fun,
            x0,
            jac=True,
            method="L-BFGS-B",
            callback=cb,
            options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0, "maxcor": 20},
        )
        G = res.x.reshape(n, p)
        it = int(res.nit)
        msg = str(res.message)
    except _Stop:
        G = state["G"]
        msg = "separating gain"
    _, _, W = _evaluate(G, A, B)
    resid = float(np.abs(B - A @ W).max())
    return EntropicOutcome(W, G, resid, bool(state["sep"]), it, 0, msg)
