"""One deadline per decision (issue 23, item 2): ``time_limit`` bounds the whole of
``refines`` — the routes a protocol pair goes through, the stages each route runs —
and a spent limit is an undecided result that says so and lists what was tried.

Every budget here is counted in readings of a :class:`qifldp.deadline.TickClock`
(conftest.ticks), never in the machine's seconds.
"""

from __future__ import annotations

import pytest

import qifldp as q
from qifldp.deadline import TickClock, budget, expired, left, reached, until, use_clock
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
    A, B = q.protocol("olh", 3, 2.0), q.protocol("oue", 3, 2.0)
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
