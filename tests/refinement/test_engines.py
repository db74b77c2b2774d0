"""Engines agree; solver failures are reported as failures; bad input is rejected."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from scipy.optimize import OptimizeResult

import qifldp as q
from qifldp.errors import ChannelError, InputTypeError, ParameterError, PriorError, SolverError
from qifldp.refinement import entropic, lp

from ._helpers import assert_counterexample, assert_witness, random_channel


@pytest.mark.parametrize("method", ["highs", "entropic", "lbfgs"])
@pytest.mark.parametrize("seed", range(3))
def test_engines_agree_and_certify(method, seed):
    rng = np.random.default_rng(seed)
    A = random_channel(rng, 4, 12)
    B_yes = A @ random_channel(rng, 12, 6)
    B_no = 0.8 * np.eye(4) + 0.2 * random_channel(rng, 4, 4)  # sharper than A
    r = q.refines(A, B_yes, method=method)
    assert_witness(A, B_yes, r)
    s = q.refines(A, B_no, method=method)
    assert q.bayes_vulnerability(B_no) > q.bayes_vulnerability(A)  # so A ⋢ B_no
    assert_counterexample(A, B_no, s)


def test_entropic_dual_gives_the_max_entropy_witness():
    # W = row-softmax(−AᵀG) at the optimum: every entry strictly positive for an interior pair
    rng = np.random.default_rng(4)
    A = random_channel(rng, 3, 8)
    B = A @ random_channel(rng, 8, 5)
    out = entropic.solve_entropic(A, B)
    assert out.message == "converged" and out.residual <= 1e-13
    assert (out.W > 0).all()
    np.testing.assert_allclose(out.W.sum(axis=1), 1.0, atol=1e-14)


def test_entropic_divergence_yields_a_separating_gain():
    # infeasible pair: the dual decreases without bound and −Gᵀ separates (Farkas)
    A = np.array([[0.6, 0.4], [0.4, 0.6]])
    B = np.eye(2)
    seen = []

    def accept(H):
        seen.append(H)
        return True

    out = entropic.solve_entropic(A, B, on_separation=accept)
    assert out.separated and seen
    H = seen[-1]  # π-weighted gain, one action per column of B
    vb = np.max(H @ B, axis=0).sum()
    va = np.max(H @ A, axis=0).sum()
    assert vb > va


def test_lp_dual_is_a_farkas_certificate():
    # min Σ|A·W − B| > 0 and the dual H = Yᵀ gives V_H[B] − V_H[A] >= optimum
    A = np.array([[0.7, 0.3], [0.3, 0.7]])
    B = np.array([[0.9, 0.1], [0.1, 0.9]])
    out = lp.solve_l1_lp(A, B)
    assert out.optimum > 0.1
    gap = np.max(out.H @ B, axis=0).sum() - np.max(out.H @ A, axis=0).sum()
    assert gap >= out.optimum * (1 - 1e-12)


def _failed_linprog(*args, **kwargs):
    return OptimizeResult(status=4, message="numerical difficulties (simulated)", x=None, fun=None)


def test_highs_failure_is_a_solver_error_not_a_no(monkeypatch):
    # every route fails (HiGHS, the entropic engine, and rational arithmetic refused):
    # a SolverError that names the failures, never "does not refine"
    from qifldp.refinement import _driver

    def broken(A, B, **kwargs):
        m, p = A.shape[1], B.shape[1]
        return entropic.EntropicOutcome(
            np.full((m, p), np.nan), np.zeros((A.shape[0], p)), np.nan, False, 1
        )

    def broken_nnls(A, B, **kwargs):
        raise SolverError("the nonnegative least squares did not converge (simulated)")

    monkeypatch.setattr(scipy.optimize, "linprog", _failed_linprog)
    monkeypatch.setattr(_driver, "solve_entropic", broken)
    monkeypatch.setattr(_driver, "solve_nnls_columns", broken_nnls)
    with pytest.raises(SolverError, match="HiGHS failed"):
        q.refines(q.grr(3, 1.0), q.grr(3, 2.0), exact=False, strict=True)
    with pytest.raises(SolverError, match="HiGHS failed") as info:
        q.max_case_refines(q.grr(3, 1.0), q.grr(3, 2.0), exact=False, strict=True)
    assert "least squares did not converge" in str(info.value)


def test_failed_engine_hands_over_to_a_verified_verdict(monkeypatch):
    # HiGHS fails; the entropic engine or exact arithmetic still decide, with a certificate
    # re-checked as always. GRR family (QIF paper Lemma 3): grr(1) ⋢ grr(2), grr(2) ⊑ grr(1).
    monkeypatch.setattr(scipy.optimize, "linprog", _failed_linprog)
    r = q.refines(q.grr(3, 1.0), q.grr(3, 2.0))
    assert not r.holds and r.counterexample.gap > 0
    assert "HiGHS failed" in " ".join(r.details.get("solver_failures", []))
    assert q.refines(q.grr(3, 2.0), q.grr(3, 1.0)).holds
    m = q.max_case_refines(q.grr(3, 1.0), q.grr(3, 2.0))  # least squares decides
    assert not m.holds and m.method == "nnls" and m.counterexample.gap > 0
    m = q.max_case_refines(q.grr(3, 1.0), q.grr(3, 2.0), method="highs")  # HiGHS only: exact
    assert not m.holds and m.exact


def test_entropic_failure_is_a_solver_error(monkeypatch):
    def broken(A, B, **kwargs):
        m, p = A.shape[1], B.shape[1]
        return entropic.EntropicOutcome(
            np.full((m, p), np.nan), np.zeros((A.shape[0], p)), np.nan, False, 1
        )

    from qifldp.refinement import _driver

    monkeypatch.setattr(_driver, "solve_entropic", broken)
    # HiGHS takes over (small problem) and its certificate is verified as usual
    r = q.refines(q.grr(3, 1.0), q.grr(3, 2.0), method="entropic")
    assert not r.holds and "non-finite" in " ".join(r.details["solver_failures"])
    # with HiGHS failing too and rational arithmetic forbidden: no verdict
    monkeypatch.setattr(scipy.optimize, "linprog", _failed_linprog)
    with pytest.raises(SolverError):
        q.refines(q.grr(3, 1.0), q.grr(3, 2.0), method="entropic", exact=False, strict=True)


def test_input_validation():
    A = q.grr(3, 1.0)
    with pytest.raises(ChannelError, match="same inputs"):
        q.refines(A, q.grr(2, 1.0))
    with pytest.raises(ValueError):
        q.refines(A, [[0.5, 0.6], [0.5, 0.5], [0.5, 0.5]])  # row sums to 1.1
    with pytest.raises(ParameterError, match="method"):
        q.refines(A, A, method="simplex")
    with pytest.raises(PriorError, match="positive"):
        q.refines(A, A, prior=[0.5, 0.5, 0.0])
    with pytest.raises(ValueError):
        q.refines(A, A, prior=[0.5, 0.5])
    with pytest.raises(InputTypeError):
        q.refines(A, "not a channel")
    with pytest.raises(InputTypeError):
        q.refines(A, A, exact="yes")
    with pytest.raises(ParameterError):
        q.refines(A, A, max_iter=0)


def test_result_fields_and_tolerances():
    r = q.refines(q.grr(4, 2.0), q.grr(4, 1.0))
    assert r.tolerances == {"entry": 1e-9, "row_sum": 1e-9, "residual": 1e-7}
    assert r.residual <= 1e-7 and r.min_entry >= -1e-9 and r.row_sum_error <= 1e-9
    assert r.time >= 0 and r.method and r.certified_by
    assert r.relation == "refinement"


def test_a_time_limit_spent_merging_columns_is_a_solver_error(monkeypatch):
    import time as _time

    from qifldp.refinement import _driver

    inner = _driver.reduce_columns

    def slow(M):
        _time.sleep(0.3)
        return inner(M)

    monkeypatch.setattr(_driver, "reduce_columns", slow)
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    B = A @ np.array([[0.7, 0.3], [0.4, 0.6]])
    with pytest.raises(q.SolverError, match="while merging proportional columns"):
        q.refines(A, B, time_limit=0.5, strict=True)
    assert q.refines(A, B, time_limit=5).holds


@pytest.mark.parametrize("uniform", [True, False])
def test_block_preconditioner_solves_each_column_block(uniform):
    # block j of the preconditioner is A diag(W[:, j] − W[:, j]²) Aᵀ plus its ridge: the
    # solve is checked against each block formed column by column and solved on its own
    # (the first Newton step's uniform W takes the one-inverse path, a general W the batch)
    rng = np.random.default_rng(5)
    A = random_channel(rng, 4, 9)
    W = np.full((9, 6), 1 / 6) if uniform else random_channel(rng, 9, 6)
    R = rng.standard_normal((4, 6))
    prec = entropic._Preconditioner(A)
    prec.update(W, ridge=1e-3)
    assert prec.shared is uniform
    for j in range(6):
        block = A @ np.diag(W[:, j] - W[:, j] ** 2) @ A.T
        block += (1e-3 * np.trace(block) / 4 + 1e-300) * np.eye(4)
        np.testing.assert_allclose(prec(R)[:, j], np.linalg.solve(block, R[:, j]), rtol=1e-10)


def test_a_permuted_copy_is_decided_by_its_permutation():
    # B = A with its columns permuted: W is the permutation matrix
    rng = np.random.default_rng(6)
    A = random_channel(rng, 5, 7)
    perm = rng.permutation(7)
    r = q.refines(A, A[:, perm])
    assert r.holds and r.method == "identical"
    np.testing.assert_array_equal(r.witness, np.eye(7)[:, perm])
