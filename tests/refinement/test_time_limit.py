"""Issue 8, resource guards: explicit refinement honours ``time_limit`` on every route."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.refinement import lp

from ._helpers import assert_witness


def test_time_limit_ends_the_decision_with_a_clear_error_or_a_verdict():
    # 60 x 400 vs 60 x 300, B = A·R (holds): ~3 s to certify; 0.3 s is not enough
    rng = np.random.default_rng(1)
    A = rng.dirichlet(np.ones(400), size=60)
    B = A @ rng.dirichlet(np.ones(300), size=400)
    try:
        r = q.refines(A, B, time_limit=0.3, strict=True)
    except q.errors.SolverError as exc:
        assert "time_limit" in str(exc) and "raise time_limit" in str(exc)
    else:  # a fast machine: the verdict must still be certified
        assert_witness(A, B, r)


def test_highs_time_limit_is_reported_as_a_solver_error():
    # the LP layer passes the limit to HiGHS and names it when HiGHS stops there
    rng = np.random.default_rng(2)
    A = rng.dirichlet(np.ones(60), size=40)
    B = rng.dirichlet(np.ones(50), size=40)
    with pytest.raises(q.errors.SolverError, match="time limit"):
        lp.solve_l1_lp_columns(A, B, time_limit=0.0)
    out = lp.solve_l1_lp(A[:, :10] / A[:, :10].sum(1, keepdims=True), B, time_limit=60.0)
    assert out.W.shape == (10, 50)


def test_max_case_refines_honours_time_limit():
    # A ⋢max B (random 40x60 vs 40x50: B's posteriors leave the hull of A's); HiGHS decides
    # it column by column in ~0.05 s, so a limit of 1e-9 s is spent before the LPs end
    rng = np.random.default_rng(2)
    A = rng.dirichlet(np.ones(60), size=40)
    B = rng.dirichlet(np.ones(50), size=40)
    with pytest.raises(q.errors.SolverError, match="time_limit"):
        q.max_case_refines(A, B, time_limit=1e-9, strict=True)
    r = q.max_case_refines(A, B, time_limit=60.0)
    assert not r.holds and r.relation == "max-case refinement"
    ce = r.counterexample
    # the separating one-action gain: V_g^max of B above that of A, recomputed here
    post = lambda C: (ce.gain @ (ce.prior[:, None] * C)) / (ce.prior @ C)  # noqa: E731
    assert post(B).max() - post(A).max() == pytest.approx(ce.gap, rel=1e-9, abs=1e-15)
    assert ce.gap > 0
    with pytest.raises(q.errors.ParameterError, match="time_limit"):
        q.max_case_refines(A, B, time_limit=0)
    with pytest.raises(q.errors.ParameterError, match="time_limit"):
        q.max_case_refines(A, B, time_limit="1")
