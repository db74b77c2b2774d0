"""The clock every ``time_limit`` reads (layer L0), and its deterministic stand-in.

Every route that honours a ``time_limit`` (the explicit engines, the orbit LP, the
exact simplexes, the protocol routes) computes its deadline as :func:`now` plus the
limit and compares :func:`now` with it between steps. A step is started only when
the time left can pay for it (:func:`affordable`: by default, the longest stretch
between two readings of the decision so far), so that a decision ends by its limit
rather than one step past it. By default :func:`now` is
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
    "affordable",
    "end",
    "limit",
    "expired",
    "reached",
]

_clock: Callable[[], float] = time.perf_counter


class _Stretches:
    """The readings of one decision's clock: the last one and the longest stretch between
    two (a solver's stretch, bounded by the seconds handed to it, is not counted)."""

    __slots__ = ("last", "longest", "solver")

    def __init__(self, first: float) -> None:
        self.last = first
        self.longest = 0.0
        self.solver = False

    def read(self, t: float) -> None:
        if not self.solver and t - self.last > self.longest:
            self.longest = t - self.last
        self.last, self.solver = t, False


#: The :func:`now` reading by which the decision in progress must end, the
#: ``time_limit`` that set it and its readings so far (None: no decision in progress).
_deadline: ContextVar[tuple[float, float, _Stretches] | None] = ContextVar(
    "qifldp_deadline", default=None
)


def now() -> float:
    """The current reading of the clock time limits are measured on.

    >>> isinstance(now(), float)
    True
    """
    t = _clock()
    held = _deadline.get()
    if held is not None:
        held[2].read(t)
    return t


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

    The stretch until the next reading is then the solver's, bounded by the limit it
    was handed: :func:`affordable` does not count it as a step of the decision.
    """
    held = _deadline.get()
    if held is not None:
        held[2].solver = True
    return left if wall_clock() else None


def until(seconds: float) -> float:
    """The :func:`now` reading past which a budget of ``seconds`` is spent: now + seconds,
    but never later than the deadline of an enclosing :func:`budget`.

    >>> with use_clock(TickClock()):
    ...     with budget(5.0):            # read at 1: the deadline is 6
    ...         until(100.0), until(2.0)  # read at 2 and 3
    (6.0, 5.0)
    """
    due = now() + seconds
    outer = _deadline.get()
    return due if outer is None or due < outer[0] else outer[0]


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


def affordable(cost: float | None = None, *, at_least: float = 0.0) -> bool:
    """Whether a step of ``cost`` seconds can still end by the deadline in force (True
    outside a budget): some time is left, and at least ``cost``.

    By default ``cost`` is the longest stretch between two readings of the decision's
    clock so far, the one just ended included (a solver's excluded: see
    :func:`solver_seconds`): the steps between checks are passes of similar cost, so
    a step the time left cannot pay for is not started, and the decision ends by its
    limit instead of one step past it. On a :class:`TickClock` every stretch is one
    step, and this is ``not spent()``.

    ``at_least``: the step's own predicted cost in seconds (an O(n) pass: n times its
    seconds per element, e.g. :data:`qifldp.symmetric.lifting.PRODUCT_FORM_SECONDS_PER_CLASS`),
    for a step longer than any the decision has timed so far (the first O(k) passes of
    a decision have no history to predict them). It counts on the machine's clock only:
    under another clock (:func:`use_clock`) its units are not seconds.

    >>> with budget(100.0):  # the machine's clock: a pass predicted at 1000 s is refused
    ...     affordable(at_least=1000.0), affordable(at_least=1e-3)
    (False, True)

    Examples
    --------
    >>> readings = iter([0.0, 1.0, 4.0, 8.0, 8.5]).__next__
    >>> with use_clock(readings), budget(10.0):  # read at 0: the deadline is 10
    ...     affordable(), affordable(), affordable(), affordable(cost=1.0)
    (True, True, False, True)

    (read at 1: 9 left, the longest stretch 1; at 4: 6 left, stretch 3; at 8: 2 left,
    stretch 4, not affordable; at 8.5: 1.5 left for a step of 1)
    """
    held = _deadline.get()
    if held is None:
        return True
    left = held[0] - now()
    need = held[2].longest if cost is None else cost
    if at_least > need and wall_clock():
        need = at_least
    return left > 0 and left >= need


def end() -> float | None:
    """The :func:`now` reading by which the decision in force must end; None outside a
    budget (no reading is taken).

    >>> with use_clock(TickClock()), budget(10.0):  # read at 1
    ...     end()
    11.0
    """
    held = _deadline.get()
    return None if held is None else held[0]


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
    t = now()
    due, binding = t + seconds, seconds
    if outer is not None and outer[0] <= due:  # never later than the enclosing deadline
        due, binding = outer[0], outer[1]
    # the readings are the decision's: an enclosed budget shares its stretches
    stretches = _Stretches(t) if outer is None else outer[2]
    token = _deadline.set((due, binding, stretches))
    try:
        yield due
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
