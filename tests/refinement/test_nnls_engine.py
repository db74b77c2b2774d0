"""The max-case least-squares engine: verdicts as HiGHS's, Farkas vectors, cone edges."""

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ParameterError
from qifldp.refinement.nnls import solve_nnls_columns


def _instance(n, m, p, seed):
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.ones(m), size=n)
    B = A @ rng.dirichlet(np.ones(p), size=m)
    return A, B


def _max_case_v(C, g, prior):
    # V_g^max = max over outputs y of Σ_x g(x) π_x C[x, y] / Σ_x π_x C[x, y], by loops
    best = -np.inf
    for y in range(C.shape[1]):
        mass = sum(prior[x] * C[x, y] for x in range(C.shape[0]))
        if mass > 0:
            val = sum(g[0, x] * prior[x] * C[x, y] for x in range(C.shape[0])) / mass
            best = max(best, val)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_nnls_verdicts_agree_with_highs_and_certificates_recheck(seed):
    n, m, p = [(8, 20, 15), (12, 30, 30), (5, 9, 12)][seed % 3]
    A, B = _instance(n, m, p, seed)
    for X, Y in ((A, B), (B, A)):
        r = q.max_case_refines(X, Y)
        h = q.max_case_refines(X, Y, method="highs")
        assert r.holds == h.holds
        if r.holds:
            R = r.witness
            assert R.min() >= 0 and np.abs(X @ R - Y).max() <= 1e-12
        else:
            ce = r.counterexample
            gap = _max_case_v(Y, ce.gain, ce.prior) - _max_case_v(X, ce.gain, ce.prior)
            assert gap > 0 and gap == pytest.approx(ce.gap, rel=1e-9, abs=1e-15)


def test_farkas_vector_of_a_column_outside_the_cone():
    A = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    b = np.array([[0.9], [0.05], [0.05]])  # posterior more extreme than any of A's
    out = solve_nnls_columns(A, b)
    y = out.H[0]
    # a candidate (the driver certifies it): A^T y <= 0 up to the rounding of the
    # residual, tens of ulp of |y| (4.3e-15 with numpy 2.4 / scipy 1.17), and y . b > 0 by far
    assert np.all(A.T @ y <= 64 * np.finfo(float).eps * np.abs(y).max())
    # (y is D² (b − A r) with D scaled to max 1: its size is relative, its direction counts)
    assert y @ b[:, 0] > 0.5 * np.abs(y).max()
    assert out.optimum > 0.1


def test_a_column_on_an_edge_of_the_cone_is_fitted_to_rounding():
    # B's column is A's column 0 scaled: the single-column fit is exact to rounding,
    # in every entry relatively, including the tiny ones
    A = np.array([[1e-20, 0.3, 0.7 - 1e-20], [1e-12, 0.5, 0.5 - 1e-12]])
    b = 0.25 * A[:, :1]
    out = solve_nnls_columns(A, b)
    assert np.abs(A @ out.W - b).max() <= 4e-16 * b.max()
    assert abs(A[0] @ out.W[:, 0] - b[0, 0]) <= 4 * 2.0**-53 * b[0, 0]


def test_sue_oue_max_case_follows_refinement_at_the_boundary():
    # SUE ⊑ OUE at k = 8, eps = 9 (average case, up to rounding); refinement implies
    # max-case refinement, which the exact arithmetic on stored floats used to refute
    A, B = q.sue(8, 9.0), q.oue(8, 9.0)
    assert q.refines(A, B).holds
    r = q.max_case_refines(A, B)
    assert r.holds and r.method == "nnls"
    assert r.witness.min() >= 0 and np.abs(A.matrix @ r.witness - B.matrix).max() <= 1e-15
    # HiGHS alone: the stored floats fail exactly, by rounding; a witness within the band
    # makes the verdict "holds up to rounding", never "fails"
    h = q.max_case_refines(A, B, method="highs")
    assert h.holds and h.up_to_rounding and h.about == "rounding"
    assert h.witness.min() >= 0 and np.abs(A.matrix @ h.witness - B.matrix).max() <= 1e-15


def test_nnls_is_a_max_case_method_only():
    A, B = _instance(3, 4, 4, 0)
    with pytest.raises(ParameterError, match="method must be one of"):
        q.refines(A, B, method="nnls")
    assert q.max_case_refines(A, B, method="nnls").holds
    with pytest.raises(ParameterError, match="for max-case refinement"):
        q.max_case_refines(A, B, method="entropic")


def test_time_limit_spent_before_a_column_is_a_solver_error():
    A, B = _instance(4, 6, 6, 1)
    with pytest.raises(q.SolverError, match="time limit"):
        solve_nnls_columns(A, B, time_limit=-1.0)
