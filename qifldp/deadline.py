"""The clock every ``time_limit`` reads (layer L0), and its deterministic stand-in.

Every route that honours a ``time_limit`` (the explicit engines, the orbit LP, the
exact simplexes, the protocol routes) computes its deadline as :func:`now` plus the
limit and compares :func:`now` with it between steps. By default :func:`now` is
:func:`time.perf_counter`. :func:`use_clock` installs another clock for a block, e.g.
a :class:`TickClock` that advances by one unit at every reading: a ``time_limit`` of
n then allows exactly n checks, whatever the machine's speed or load, so a test of a
time limit is deterministic. Under such a clock the solvers get no wall-clock limit
of their own (:func:`solver_seconds`), and a map decides in its own process
(nothing is stopped by wall-clock time).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import SolverError

__all__ = [
    "TickClock",
    "now",
    "use_clock",
    "wall_clock",
    "solver_seconds",
    "budget",
    "until",
    "left",
    "spent",
    "limit",
    "expired",
    "reached",
]

_clock: Callable[[], float] = time.perf_counter

#: The :func:`now` reading by which the decision in progress must end, and the
#: ``time_limit`` that set it (None: no decision in progress).
_deadline: ContextVar[tuple[float, float] | None] = ContextVar("qifldp_deadline", default=None)


def now() -> float:
    """The current reading of the clock time limits are measured on.

    >>> isinstance(now(), float)
    True
    """
    return _clock()


def wall_clock() -> bool:
    """Whether :func:`now` reads the machine's time (no :func:`use_clock` in force).

    >>> wall_clock()
    True
    """
    return _clock is time.perf_counter


def solver_seconds(left: float | None) -> float | None:
    """The wall-clock limit to hand a solver when ``left`` units of budget remain:
    ``left`` itself on the machine's clock, None (no limit) under another clock,
    whose budget is counted at the checks between steps only.

    >>> solver_seconds(2.5)
    2.5
    >>> with use_clock(TickClock()):
    ...     solver_seconds(2.5) is None
    True
    """
    return left if wall_clock() else None


def until(seconds: float) -> float:
    """The :func:`now` reading past which a budget of ``seconds`` is spent: now + seconds,
    but never later than the deadline of an enclosing :func:`budget`.

    >>> with use_clock(TickClock()):
    ...     with budget(5.0):            # read at 1: the deadline is 6
    ...         until(100.0), until(2.0)  # read at 2 and 3
    (6.0, 5.0)
    """
    end = now() + seconds
    outer = _deadline.get()
    return end if outer is None or end < outer[0] else outer[0]


def left() -> float | None:
    """Seconds (clock units) left before the deadline in force; None outside a budget.

    >>> left() is None
    True
    >>> with use_clock(TickClock()), budget(10.0):
    ...     left()      # the deadline 11, read at 2
    9.0
    """
    held = _deadline.get()
    return None if held is None else held[0] - now()


def spent() -> bool:
    """Whether the deadline in force has passed (False outside a budget).

    >>> with use_clock(TickClock()), budget(1.0):
    ...     spent()
    True
    """
    held = _deadline.get()
    return held is not None and now() >= held[0]


def limit() -> float | None:
    """The ``time_limit`` of the deadline in force (the budget that ends first), to name
    in messages; None outside a budget.

    >>> with budget(10.0), budget(60.0):
    ...     limit()
    10.0
    """
    held = _deadline.get()
    return None if held is None else held[1]


def expired(message: str, tried: tuple[str, ...] | list[str] = ()) -> SolverError:
    """The error of a decision whose time limit was reached: a :class:`SolverError`
    (never "does not refine") marked as such, with the stages tried before it.

    ``refines`` (``strict=False``) turns it into an undecided result whose ``details``
    say ``cause="time"`` and ``tried`` (:func:`reached` reads the mark).

    >>> e = expired("time_limit = 1 s reached during the orbit LP", ["gains", "orbit LP"])
    >>> isinstance(e, SolverError), reached(e), e.tried
    (True, True, ('gains', 'orbit LP'))
    """
    error = SolverError(message)
    error.time_limit_reached = True  # type: ignore[attr-defined]
    error.tried = tuple(tried)  # type: ignore[attr-defined]
    return error


def reached(error: BaseException) -> bool:
    """Whether ``error`` says the time limit was reached (made by :func:`expired`).

    >>> reached(SolverError("HiGHS failed")), reached(expired("out of time"))
    (False, True)
    """
    return bool(getattr(error, "time_limit_reached", False))


@contextmanager
def budget(seconds: float) -> Iterator[float]:
    """The deadline of one decision: ``until(seconds)`` in force for the block.

    Nested budgets never extend an enclosing one (a stage given the whole
    ``time_limit`` again still ends by the decision's deadline).

    Parameters
    ----------
    seconds : float
        The ``time_limit`` (positive; clock units under :func:`use_clock`).

    Yields
    ------
    float
        The deadline (a :func:`now` reading).

    Examples
    --------
    >>> with use_clock(TickClock()):
    ...     with budget(10.0) as outer:     # read at 1
    ...         with budget(60.0) as inner:  # read at 2: 62 > 11, the outer one stays
    ...             outer, inner
    (11.0, 11.0)
    """
    outer = _deadline.get()
    end = until(seconds)
    binding = seconds if outer is None or end < outer[0] else outer[1]
    token = _deadline.set((end, binding))
    try:
        yield end
    finally:
        _deadline.reset(token)


class TickClock:
    """A deterministic clock: each reading advances it by ``step``.

    Parameters
    ----------
    step : float
        Units added at every reading (default 1: a ``time_limit`` of n allows n
        readings after the one that sets the deadline).

    Attributes
    ----------
    readings : int
        How many times the clock was read.

    Examples
    --------
    >>> c = TickClock()
    >>> c(), c(), c.readings
    (1.0, 2.0, 2)
    """

    def __init__(self, step: float = 1.0) -> None:
        if not step > 0:
            msg = f"step must be a positive number, got {step!r}"
            raise ValueError(msg)
        self.step = float(step)
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return self.readings * self.step


@contextmanager
def use_clock(clock: Callable[[], float]) -> Iterator[Callable[[], float]]:
    """Measure every time limit on ``clock`` inside the block (then the machine's again).

    Parameters
    ----------
    clock : callable
        Returns a float that never decreases (e.g. a :class:`TickClock`).

    Examples
    --------
    >>> with use_clock(TickClock()) as c:
    ...     now(), now()
    (1.0, 2.0)
    >>> wall_clock()
    True
    """
    global _clock
    if not callable(clock):
        msg = f"clock must be callable, got {type(clock).__name__}"
        raise TypeError(msg)
    previous, _clock = _clock, clock
    try:
        yield clock
    finally:
        _clock = previous
