"""Issue 9, item 4: the refinement driver as a pipeline of strategies, with a trace."""

from __future__ import annotations

import re

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import VerificationError
from qifldp.refinement import _driver, _exact_route, _problem, entropic

from ._helpers import assert_counterexample, assert_witness

OUTCOME = re.compile(r"^(decided|skipped: .+|undecided: .+|failed: .+)$")
ORDER = ["exact method", "orbits", "quick", "forced", "min-norm", "engine", "engine", "exact"]


def _check_trace(r) -> None:
    """Outcomes are well formed, the steps follow STRATEGIES in order, only the last decided."""
    assert r.trace, "explicit refinement records its pipeline"
    names = [name for name, _ in r.trace]
    outcomes = [out for _, out in r.trace]
    assert all(OUTCOME.match(o) for o in outcomes), outcomes
    steps = [n for n in names if n != "exact confirmation"]
    assert [n.split(" ")[0] if n.startswith("engine") else n for n in steps] == ORDER[: len(steps)]
    decided = [i for i, o in enumerate(outcomes) if o == "decided"]
    if names[-1] == "exact confirmation":
        assert decided == [len(names) - 2, len(names) - 1]
    else:
        assert decided == [len(names) - 1]


def test_interior_pair_is_decided_by_the_least_norm_step():
    # grr(3, 2) ⊑ grr(3, 1) (QIF paper Lemma 3); A is invertible so A⁻¹B >= 0 is the witness
    A, B = q.grr(3, 2.0), q.grr(3, 1.0)
    r = q.refines(A, B)
    assert_witness(A, B, r)
    _check_trace(r)
    assert r.trace[-1] == ("min-norm", "decided") and r.method == "min-norm"
    assert r.trace[0] == ("exact method", "skipped: method='auto'")
    assert r.trace[1] == ("orbits", "undecided: A is not a bit-symmetric (one-hot) channel")


def test_failing_pair_reaches_highs():
    A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    r = q.refines(A, B)
    assert_counterexample(A, B, r)
    _check_trace(r)
    assert dict(r.trace)["min-norm"] == "undecided: the least-norm W is negative"
    assert r.trace[-1] == ("engine highs", "decided")


def test_one_hot_pair_is_decided_by_orbits():
    # SUE ⊑ THE at eps = 1, theta = 0.8 (QIF paper Lemma 11 + Lemma 4)
    A, B = q.sue(4, 1.0), q.the(4, 1.0, 0.8)
    r = q.refines(A, B)
    assert_witness(A, B, r)
    _check_trace(r)
    assert r.trace[-1] == ("orbits", "decided") and r.method == "orbits"


def test_method_exact_and_exact_true():
    A, B = q.grr(3, 2.0), q.grr(3, 1.0)
    r = q.refines(A, B, method="exact")
    assert r.trace == (("exact method", "decided"),) and r.exact
    s = q.refines(A, B, exact=True)
    _check_trace(s)
    assert dict(s.trace)["orbits"].startswith("undecided: A is not a bit-symmetric")
    assert s.trace[-1] == ("exact confirmation", "decided") and s.exact
    # a one-hot pair: the orbit verdict, then confirmed in rationals like every float verdict
    u = q.refines(q.sue(3, 1.0), q.oue(3, 0.5), exact=True)
    _check_trace(u)
    assert dict(u.trace)["orbits"] == "decided" and u.trace[-1][0] == "exact confirmation"
    assert u.exact and u.holds
    m = q.max_case_refines(q.grr(3, 1.0), q.grr(3, 2.0))
    _check_trace(m)
    assert dict(m.trace)["orbits"] == "skipped: max-case refinement"


def test_boundary_pair_goes_through_both_engines_to_exact():
    # grr(3, 1) vs grr(3, 1 + 1e-14) after a mixing M of three-valued columns (so that
    # no witness is forced at equal epsilon): too close for floats, decided in rationals
    M = np.array([[0.9, 0.1, 0.0], [0.0, 0.9, 0.1], [0.1, 0.0, 0.9]])
    A, B = q.grr(3, 1.0), q.Channel(q.grr(3, 1.0 + 1e-14).matrix @ M)
    r = q.refines(A, B)
    _check_trace(r)
    names = [n for n, _ in r.trace]
    assert names[-3:] == ["engine highs", "engine entropic", "exact"]
    assert r.trace[-1] == ("exact", "decided") and r.exact and not r.holds
    assert r.details["float_undecided"].startswith("floating point could not certify")


def test_failed_engine_is_recorded(monkeypatch):
    def broken(A, B, **kwargs):
        m, p = A.shape[1], B.shape[1]
        return entropic.EntropicOutcome(
            np.full((m, p), np.nan), np.zeros((A.shape[0], p)), np.nan, False, 1
        )

    monkeypatch.setattr(_driver, "solve_entropic", broken)
    A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    r = q.refines(A, B, method="entropic")
    assert_counterexample(A, B, r)
    _check_trace(r)
    out = dict(r.trace)
    assert out["engine entropic"].startswith("failed: the entropic engine produced non-finite")
    assert out["min-norm"] == "skipped: method='entropic'"
    assert r.trace[-1] == ("engine highs", "decided")


@pytest.mark.parametrize(
    ("A", "B", "exact", "builds"),
    [
        (q.grr(3, 2.0), q.grr(3, 1.0), None, 0),  # float certificate: no rational problem
        (q.grr(3, 1.0), q.grr(3, 1.0 + 1e-14), None, 1),  # exact fallback
        (q.grr(3, 2.0), q.grr(3, 1.0), True, 1),  # exact confirmation
        # the float witness fails in rationals: confirmation, then the exact decision
        # (holds up to rounding), on the same rational problem
        (q.grr(3, 1.0), q.grr(3, 1.0 + 1e-15), True, 1),
    ],
)
def test_exact_problem_is_built_at_most_once(monkeypatch, A, B, exact, builds):
    calls = []
    inner = _exact_route.build_exact_problem

    def counted(P):
        calls.append(1)
        return inner(P)

    monkeypatch.setattr(_exact_route, "build_exact_problem", counted)
    r = q.refines(A, B, exact=exact)
    assert len(calls) == builds
    if builds and exact:
        assert r.trace[-1] == ("exact confirmation", "decided")


def test_a_witness_off_by_more_than_the_tolerance_is_refused(monkeypatch):
    # corrupt the witness after certification: the shared re-check must catch it
    inner = _problem.expand_witness

    def corrupted(W, ra, rb, rowsum):
        out = inner(W, ra, rb, rowsum).copy()
        out[0] = np.roll(out[0], 1)  # still row-stochastic, but A·W != B
        return out

    monkeypatch.setattr(_problem, "expand_witness", corrupted)
    # (the driver takes a witness as certified on the columns as given when the expansion
    # leaves it unchanged: corrupted there too, it goes to the re-check on the original columns)
    monkeypatch.setattr(_driver, "expand_witness", corrupted)
    # the band re-check on the original columns refuses the corrupted witness and polishes
    # it there: a valid witness
    r = q.refines(q.grr(3, 2.0), q.grr(3, 1.0))
    assert r.holds and np.abs(q.grr(3, 2.0).matrix @ r.witness - q.grr(3, 1.0).matrix).max() < 1e-15
    # with that band check defective too, the last re-check (the API tolerances) catches it
    monkeypatch.setattr(_problem, "band_miss", lambda P, W, inputs_too: (None, 0.0))
    with pytest.raises(VerificationError, match=r"witness failed its re-check .*tolerances"):
        q.refines(q.grr(3, 2.0), q.grr(3, 1.0), strict=True)
    # strict=False (the default): no verdict, the reason stated, never a false certificate
    r = q.refines(q.grr(3, 2.0), q.grr(3, 1.0))
    assert r.holds is None and not r and r.witness is None and r.counterexample is None
    assert "witness failed its re-check" in r.certified_by and "undecided" in repr(r)
