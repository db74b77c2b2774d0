"""One deadline per decision (issue 23, item 2): ``time_limit`` bounds the whole of
``refines`` — the routes a protocol pair goes through, the stages each route runs —
and a spent limit is an undecided result that says so and lists what was tried.

Every budget here is counted in readings of a :class:`qifldp.deadline.TickClock`
(conftest.ticks), never in the machine's seconds.
"""

from __future__ import annotations

import pytest

import qifldp as q
from qifldp.deadline import (
    TickClock,
    affordable,
    budget,
    expired,
    left,
    reached,
    solver_seconds,
    until,
    use_clock,
)
from qifldp.errors import SolverError


def test_nested_budgets_never_extend_the_enclosing_deadline():
    with use_clock(TickClock()):
        with budget(10.0) as outer:  # read at 1: the deadline is 11
            assert outer == 11.0
            with budget(100.0) as inner:  # read at 2
                assert inner == 11.0
                assert until(3.0) == 6.0  # read at 3: 6 < 11
                assert left() == 11.0 - 4.0  # read at 4
            with budget(2.0) as short:  # read at 5: 7 < 11
                assert short == 7.0
        assert left() is None  # outside every budget


def test_a_step_is_affordable_while_the_time_left_pays_for_the_longest_so_far():
    # scripted readings (clock units): the budget at 0 (deadline 10), then stretches of
    # 1, 3 and 4: with 2 units left after a step of 4, the next is not started
    with use_clock(iter([0.0, 1.0, 4.0, 8.0]).__next__), budget(10.0):
        assert affordable() and affordable()  # 9 left (longest 1), 6 left (longest 3)
        assert not affordable()  # 2 left < 4
    # a solver's stretch (1 -> 7), bounded by the seconds handed to it, is no step of
    # the decision: 3 units left pay for the longest step, 1
    with use_clock(iter([0.0, 1.0, 7.0, 9.5]).__next__), budget(10.0):
        assert affordable()
        assert solver_seconds(9.0) is None  # a test's clock: the solver gets no limit
        assert affordable()
        assert not affordable(cost=1.0)  # at 9.5: 0.5 left < 1
    assert affordable()  # outside every budget


def test_a_pass_predicted_longer_than_the_time_left_is_not_started():
    # the machine's clock: 100 s left pay for a pass predicted at 1 ms, not one at 1000 s
    # (whatever the machine's speed: the budget is far from both)
    with budget(100.0):
        assert affordable(at_least=1e-3)
        assert not affordable(at_least=1000.0)
    # a test's clock counts readings, not seconds: the prediction does not apply
    with use_clock(TickClock()), budget(10.0):
        assert affordable(at_least=1000.0)


@pytest.fixture
def no_tight_ratio(monkeypatch):
    """SUE ⊑ OUE at k = 200, eps = 12 without the tight-ratio reduction: the orbit LP and
    its checks, > 20 clock readings (tests/sweeps/test_maps.py)."""
    import qifldp.symmetric.refinement as R

    monkeypatch.setattr(R, "tight_ratio_result", lambda *args, **kwargs: None)
    monkeypatch.setattr(R, "tight_ratio_first", lambda *args, **kwargs: None)


def test_an_enclosing_deadline_bounds_a_stage_given_the_whole_time_limit(no_tight_ratio, ticks):
    A = q.protocol("sue", 200, 12.0).symmetric()
    B = q.protocol("oue", 200, 12.0).symmetric()
    with budget(10.0):  # read at 1: the deadline is 11
        r = q.refines(A, B, time_limit=1e6)
    # stopped at its first check past reading 11, not after a million readings
    assert ticks.readings <= 12
    assert r.holds is None and r.details["cause"] == "time"
    assert r.details["tried"] and r.details["tried"][-1] in r.certified_by  # the stage
    assert "reached during" in r.certified_by


def test_a_spent_limit_is_undecided_time_with_what_was_tried(ticks):
    # (OLH ⊑ OUE at this cell has its witness forced at equal epsilon in one cheap step:
    # THE's columns take more than two values, so nothing is forced against it)
    A, B = q.protocol("olh", 3, 2.0), q.protocol("the", 3, 2.0, 0.75)
    r = q.refines(A, B, time_limit=8)
    assert ticks.readings <= 8 + 1 + 4  # the budget's reading, then at most a few steps
    assert r.holds is None and not r.decided and r.details["cause"] == "time"
    tried = r.details["tried"]
    assert tried[0].startswith("exact method: skipped") and "engine" in tried[-1]
    with pytest.raises(SolverError, match="time limit"):
        q.refines(A, B, time_limit=8, strict=True)


def test_a_limit_that_suffices_decides_as_without_one(ticks):
    # GRR ⊑ SS at k = 3, eps = 1 (SS's omega is 1: the same channel), within 10 readings
    r = q.refines(q.protocol("grr", 3, 1.0), q.protocol("ss", 3, 1.0), time_limit=10)
    assert r.holds is True and "cause" not in r.details


def test_the_mark_of_a_spent_limit():
    e = expired("out of time", ["orbit LP"])
    assert isinstance(e, SolverError) and reached(e) and e.tried == ("orbit LP",)
    assert not reached(SolverError("HiGHS status 4"))
