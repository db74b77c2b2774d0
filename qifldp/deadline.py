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

__all__ = ["TickClock", "now", "use_clock", "wall_clock", "solver_seconds"]

_clock: Callable[[], float] = time.perf_counter


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
