"""The max-case engines' column loop and exact gaps: batched LPs and the screened exact
maximum agree with their one-at-a-time forms, and a high-eps one-hot pair is decided
with a certificate re-checked here in rationals."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.refinement import exact as ex, lp

from ._helpers import assert_certificate, exact_gain_gap, exact_gap as exact_gap_by_loops


def _pair(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.ones(6), size=4)
    inside = A @ rng.dirichlet(np.ones(30), size=6)  # columns in the cone of A
    outside = rng.dirichlet(np.ones(10), size=4)  # most of them outside it
    return A, np.hstack([inside, outside]) / 2


@pytest.mark.parametrize("seed", [0, 1])
def test_batched_column_lps_give_each_column_its_own_optimum(seed, monkeypatch):
    A, B = _pair(seed)
    batched = lp.solve_l1_lp_columns(A, B)
    monkeypatch.setattr(lp, "BATCH_MAX_COLUMNS", 1)  # one LP per column
    single = lp.solve_l1_lp_columns(A, B)
    w = 1.0 / np.maximum(B, lp.EQUATION_FLOOR * B.max())
    for out in (batched, single):
        # each column: r >= 0, its weighted L1 residual is the dual's value y_j · b_j,
        # and the dual is feasible (Aᵀ y_j <= 0): the column's optimum, certified
        assert out.W.min() >= -1e-12
        resid = (w * np.abs(A @ out.W - B)).sum(axis=0)
        value = np.einsum("jx,xj->j", out.H, B)
        np.testing.assert_allclose(resid, value, rtol=1e-7, atol=1e-9)
        assert (A.T @ out.H.T).max() <= 1e-9 * np.abs(out.H).max()
    np.testing.assert_allclose(
        np.einsum("jx,xj->j", batched.H, B), np.einsum("jx,xj->j", single.H, B), atol=1e-8
    )
    assert batched.optimum == pytest.approx(single.optimum, abs=1e-9)


def test_batched_loop_stops_at_the_first_column_the_caller_accepts():
    A, B = _pair(2)
    seen: list[int] = []

    def stop(j, y, optimum):
        seen.append(j)
        return True

    order = np.arange(B.shape[1])[::-1]  # the outside columns first
    out = lp.solve_l1_lp_columns(A, B, order=order, stop=stop)
    assert seen == [order[0]]
    assert np.all(out.W[:, order[1:]] == 0) and np.all(out.H[order[1:]] == 0)


def _max_case_gap_by_loops(A, B, gain, prior) -> Fraction:
    return exact_gain_gap(A, B, gain, prior, kind="max-case")


@pytest.mark.parametrize("seed", range(6))
def test_screened_exact_max_case_gap_equals_the_full_rational_loop(seed):
    # near-ties (a column repeated one ulp apart), tiny and subnormal entries, zero columns
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 5)), int(rng.integers(64, 90))
    A = rng.random((n, m)) ** rng.choice([1, 30, 700])
    A[rng.random((n, m)) < 0.2] = 0
    A[:, 0] = A[:, 1] * (1 + 2.0**-52)
    A[:, 2] = 0
    A[0, 3] = 1.0
    B = rng.dirichlet(np.ones(m), size=n)
    A = A / A.sum(axis=1, keepdims=True)
    gain = rng.normal(size=(int(rng.integers(1, 3)), n))
    prior = rng.dirichlet(np.ones(n))
    got = ex.exact_max_case_gap(ex.rational_rows(A), ex.rational_rows(B), gain, prior)
    assert got == _max_case_gap_by_loops(A, B, gain, prior)


@pytest.mark.parametrize("seed", range(4))
def test_screened_exact_average_gap_equals_the_full_rational_loop(seed):
    # the average case's screen keeps, per column, the actions that can attain its maximum
    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(2, 5)), int(rng.integers(30, 60))
    A = rng.random((n, m)) ** rng.choice([1, 30, 700])
    A[rng.random((n, m)) < 0.2] = 0
    A[0, 0] = 1.0
    A = A / A.sum(axis=1, keepdims=True)
    B = rng.dirichlet(np.ones(m), size=n)
    gain = rng.normal(size=(3, n))
    gain[1] = gain[0] * (1 + 2.0**-52)  # two actions one ulp apart: near-ties everywhere
    prior = rng.dirichlet(np.ones(n))
    got = ex.exact_gap(ex.rational_rows(A), ex.rational_rows(B), gain, prior)
    assert got == exact_gap_by_loops(A, B, gain, prior)


def test_subset_selection_sue_k9_eps60_max_case_fails_exactly():
    # the floats separate by ~1e-26 of |V_g|: rational arithmetic on an engine's hyperplane
    A, B = q.subset_selection(9, 60.0), q.sue(9, 60.0)
    r = q.max_case_refines(A, B)
    assert r.holds is False and r.exact
    assert_certificate(A, B, r, rowsum=False)  # the gap re-computed here, in rationals


@pytest.mark.parametrize(("k", "eps"), [(6, 60.0), (7, 43.5756)])
def test_sue_blh_high_eps_fails_by_the_lifted_orbit_gain(k, eps):
    # a one-hot channel against a hashed one, failing by ~1e-20 .. 1e-28 of |V_g|: the
    # orbit LP's gain, its gap re-computed here in rationals on the stored floats
    A, B = q.sue(k, eps), q.blh(k, eps)
    r = q.refines(A, B)
    assert r.holds is False and r.exact
    assert_certificate(A, B, r)


@pytest.mark.parametrize("rowsum", [True, False])
def test_refinement_lp_equations_built_directly_equal_the_kronecker_form(rowsum):
    # D (A ⊗ I_p) vec(W) + P − N = D vec(B) and (I_m ⊗ 1_pᵀ) vec(W) = 1, written here
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    for _ in range(20):
        n, m, p = (int(v) for v in rng.integers(1, 7, size=3))
        A = rng.random((n, m))
        A[rng.random((n, m)) < 0.4] = 0
        w = rng.random(n * p) + 0.5
        top = sp.hstack(
            [
                sp.diags(w) @ sp.kron(sp.csr_matrix(A), sp.identity(p)),
                sp.identity(n * p),
                -sp.identity(n * p),
            ]
        )
        blocks = [top]
        if rowsum:
            rs = sp.kron(sp.identity(m), sp.csr_matrix(np.ones((1, p))))
            blocks.append(sp.hstack([rs, sp.csr_matrix((m, 2 * n * p))]))
        want = sp.vstack(blocks).toarray()
        got = sp.csc_matrix(lp._l1_lp_columns(A, w, p, rowsum), shape=want.shape)
        assert got.has_sorted_indices
        np.testing.assert_array_equal(got.toarray(), want)


_HIGH_EPS = (43.5756, 60.0)  # the top of np.round(np.geomspace(0.1, 60.0, 21), 4)


@pytest.mark.campaign
@pytest.mark.parametrize("k", [5, 6, 7])
@pytest.mark.parametrize("eps", _HIGH_EPS)
def test_sue_blh_high_eps_every_direction_and_relation_decided(k, eps):
    # both orders, both relations: a verdict with a certificate re-checked here
    for A, B in ((q.sue(k, eps), q.blh(k, eps)), (q.blh(k, eps), q.sue(k, eps))):
        for relation, rowsum in ((q.refines, True), (q.max_case_refines, False)):
            r = relation(A, B, time_limit=10.0)
            assert r.holds is not None, r.certified_by
            assert_certificate(A, B, r, rowsum=rowsum)


@pytest.mark.campaign
def test_the_oue_k10_eps60_fails_in_both_relations():
    A, B = q.the(10, 60.0, 0.75), q.oue(10, 60.0)
    for relation, rowsum in ((q.refines, True), (q.max_case_refines, False)):
        r = relation(A, B, time_limit=10.0)
        assert r.holds is False and r.exact
        assert_certificate(A, B, r, rowsum=rowsum)
