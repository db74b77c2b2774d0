"""Issue 9, item 5b: the witness polish solves its support system by sparse LSQR when large."""

from __future__ import annotations

import numpy as np
import scipy.sparse.linalg

from qifldp.refinement import _certify


def _system(seed: int = 3, n: int = 10, m: int = 100, p: int = 25):
    """A, a positive row-stochastic W (full support) and a residual in the reachable range."""
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.ones(m), size=n)
    W = rng.dirichlet(np.ones(p), size=m)
    D0 = rng.normal(size=(m, p)) * 1e-9
    D0 -= (W * D0).sum(axis=1, keepdims=True)  # (W∘D0)·1 = 0
    R = A @ (W * D0)
    return A, W, R


def _least_norm_by_hand(A, W, R, scale):
    """The weighted least-norm D, from the equations written out entry by entry (dense pinv)."""
    n, m = A.shape
    p = W.shape[1]
    support = [(z, j) for z in range(m) for j in range(p) if W[z, j] > 0]
    M = np.zeros((n * p + m, len(support)))
    for c, (z, j) in enumerate(support):
        s = np.sqrt(W[z, j])
        for x in range(n):
            M[x * p + j, c] = A[x, z] * s / scale[x, j]
        M[n * p + z, c] = s
    rhs = np.concatenate([(R / scale).ravel(), np.zeros(m)])
    med = np.median(1.0 / scale)
    M[n * p :] *= med
    e = np.linalg.pinv(M, rcond=1e-15) @ rhs
    D = np.zeros_like(W)
    for c, (z, j) in enumerate(support):
        D[z, j] = e[c] / np.sqrt(W[z, j])
    return D


def test_large_support_uses_lsqr_and_finds_the_least_norm_correction(monkeypatch):
    A, W, R = _system()
    scale = A @ W + A @ W  # the size of each equation's entries, as band_certificate passes it
    rows = A.shape[0] * W.shape[1] + A.shape[1]
    assert rows * W.size >= _certify._SPARSE_CORRECTION_MIN  # the sparse path
    calls = []
    inner = scipy.sparse.linalg.lsqr

    def spy(*args, **kwargs):
        out = inner(*args, **kwargs)
        calls.append(out[1])
        return out

    monkeypatch.setattr(scipy.sparse.linalg, "lsqr", spy)
    D = _certify._support_correction(A, W, R, True, scale)
    assert len(calls) == 1 and calls[0] != 7  # LSQR converged
    D_ref = _least_norm_by_hand(A, W, R, scale)
    assert np.abs(D - D_ref).max() <= 1e-8 * np.abs(D_ref).max()
    # the correction removes the residual and keeps the row sums
    assert np.abs(A @ (W * D) - R).max() <= 1e-10 * np.abs(R).max()
    assert np.abs((W * D).sum(axis=1)).max() <= 1e-12 * np.abs(W * D).max()


def test_lsqr_at_its_iteration_limit_falls_back_to_the_dense_solve(monkeypatch):
    A, W, R = _system(seed=4)
    scale = 2 * (A @ W)

    def stalled(M, rhs, **kwargs):
        return (np.zeros(M.shape[1]), 7) + (0,) * 8  # istop 7: iteration limit

    monkeypatch.setattr(scipy.sparse.linalg, "lsqr", stalled)
    D = _certify._support_correction(A, W, R, True, scale)
    assert np.any(D != 0)  # not LSQR's zeros: the dense solve ran
    assert np.abs(A @ (W * D) - R).max() <= 1e-10 * np.abs(R).max()
    assert np.abs((W * D).sum(axis=1)).max() <= 1e-12 * np.abs(W * D).max()
    # a least-norm solution up to the conditioning of the system (singular values down to
    # 1e-17 relative: the dense SVD solve may keep a sliver of a near-null direction, whose
    # size depends on the LAPACK build: 1.1e-4 of the norm seen with numpy 2.4)
    D_ref = _least_norm_by_hand(A, W, R, scale)
    assert (W * D * D).sum() <= (1 + 1e-3) * (W * D_ref * D_ref).sum()


def _max_case_least_norm_by_hand(A, W, R, scale):
    """The max-case weighted least-norm D (no row-sum equations), written out entry by entry
    as one dense system over every column at once (dense pinv)."""
    n, m = A.shape
    p = W.shape[1]
    support = [(z, j) for z in range(m) for j in range(p) if W[z, j] > 0]
    M = np.zeros((n * p, len(support)))
    for c, (z, j) in enumerate(support):
        for x in range(n):
            M[x * p + j, c] = A[x, z] * np.sqrt(W[z, j]) / scale[x, j]
    e = np.linalg.pinv(M, rcond=1e-15) @ (R / scale).ravel()
    D = np.zeros_like(W)
    for c, (z, j) in enumerate(support):
        D[z, j] = e[c] / np.sqrt(W[z, j])
    return D


def test_max_case_correction_solved_column_by_column_is_the_whole_systems():
    # the max-case support system is block diagonal (one block per column of B): the
    # blockwise least-norm solution equals the whole system's, computed here in one piece
    A, W, _ = _system(seed=5, n=6, m=30, p=12)
    W[W < np.quantile(W, 0.4)] = 0.0  # a partial support, some columns sparser than others
    W[:, 3] = 0.0  # and a column with no support at all
    rng = np.random.default_rng(6)
    D0 = np.where(W > 0, rng.normal(size=W.shape) * 1e-9, 0.0)
    R = A @ (W * D0)
    scale = 2 * (A @ W) + 1e-3
    D = _certify._support_correction(A, W, R, False, scale)
    D_ref = _max_case_least_norm_by_hand(A, W, R, scale)
    assert np.abs(D - D_ref).max() <= 1e-8 * np.abs(D_ref).max()
    assert np.all(D[:, 3] == 0)
    assert np.abs(A @ (W * D) - R).max() <= 1e-10 * np.abs(R).max()


def test_the_hessian_solve_stops_at_the_deadline_in_force():
    # the least-change correction's CG (500 steps of O(n m p) at RAPPOR vs L-GRR, k = 1000:
    # 9 s) is bounded by the decision's time limit: past the deadline it stops, and its
    # unconverged answer is what the certificate check refuses; under a counted clock it
    # reads nothing (its budget counts the checks between steps)
    import time

    from qifldp.deadline import TickClock, budget, use_clock
    from qifldp.refinement import entropic

    rng = np.random.default_rng(3)
    A = rng.dirichlet(np.ones(6), size=4)
    W = rng.dirichlet(np.ones(5), size=6)
    B = A @ rng.dirichlet(np.ones(5), size=6)
    R = B - A @ W
    free = entropic.weighted_hessian_solve(A, W, R)
    assert np.abs(A @ (W + W * free) - B).max() < 1e-10  # converged without a budget
    with budget(1e-9):
        time.sleep(1e-3)
        stopped = entropic.weighted_hessian_solve(A, W, R)
    assert np.all(stopped == 0.0)  # no CG step was taken past the deadline
    assert entropic._wall_end() is None
    with use_clock(TickClock()) as clock, budget(5.0):
        before = clock.readings
        assert entropic._wall_end() is None and clock.readings == before
