"""One refinement of a map under its time limit: in this process, bounded by the one
deadline of :func:`qifldp.refines` (:mod:`qifldp.deadline`); on request (``hard_limit``)
in a forked child process stopped at :func:`hard_time_limit`, a safety net for a
refinement whose construction or solver cannot be stopped from inside."""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

from .. import deadline, refinement
from ..protocols import protocol
from ..refinement import refines as _refines_at_import
from .arguments import _check_seconds

__all__ = ["hard_time_limit", "warm_refinement"]


def warm_refinement() -> None:
    """Load what :func:`qifldp.refines` loads on first use (the solvers, sympy and arb for
    the tight-ratio proof) by deciding three small pairs, one per route: run once per
    worker process by the maps (:func:`qifldp.sweep`'s ``warm``), so that no point pays
    it and no point's time limit is spent on it.

    Examples
    --------
    >>> warm_refinement()  # idempotent; a second call costs the three small decisions
    """
    import scipy.optimize  # noqa: F401 - the LP engines
    import scipy.sparse  # noqa: F401
    import sympy  # noqa: F401 - the premises of the protocol routes

    A, B = protocol("sue", 3, 1.0), protocol("oue", 3, 1.0)
    _refines_at_import(A, B, time_limit=60.0)  # the tight-ratio proof (sympy, arb)
    _refines_at_import(A.symmetric(), B.symmetric(), time_limit=60.0)  # the orbit route
    _refines_at_import(A.channel(), B.channel(), time_limit=60.0)  # the explicit engines


def hard_time_limit(time_limit: float) -> float:
    """Seconds after which a refinement of a map is stopped: ``time_limit`` plus a grace
    of a quarter of it (at least 1 s) for the certificate's verification.

    :func:`qifldp.refines` ends every stage by one deadline, checked between the
    steps that cannot be stopped from inside (a HiGHS call, a dense solve, building an
    explicit channel); a map asked for a ``hard_limit`` also runs each refinement in
    a forked child process and stops it at this limit.

    Parameters
    ----------
    time_limit : float
        The ``time_limit`` of the map, seconds.

    Returns
    -------
    float

    Examples
    --------
    >>> hard_time_limit(2.0), hard_time_limit(60.0)
    (3.0, 75.0)
    """
    t = _check_seconds("time_limit", time_limit)
    return t + max(1.0, 0.25 * t)


def _refine_in_child(conn: Any, X: Any, Y: Any, time_limit: float) -> None:
    try:
        payload: tuple[bool, Any] = (
            True,
            refinement.refines(X, Y, time_limit=time_limit, strict=True),
        )
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
        payload = (False, exc)
    try:
        conn.send(payload)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
        what = payload[1]
        text = f"{type(what).__name__}: {what}" if not payload[0] else repr(exc)
        conn.send((False, RuntimeError(f"the result could not be sent back: {text}")))
    finally:
        conn.close()


def _can_fork() -> bool:
    # under a test's clock (qifldp.deadline.use_clock) nothing is stopped by wall-clock
    # time: the refinement runs here, bounded by its own time_limit on that clock
    return (
        deadline.wall_clock()
        and "fork" in mp.get_all_start_methods()
        and not mp.current_process().daemon
    )


def _decide(X: Any, Y: Any, time_limit: float, hard: bool = False) -> Any:
    """``refines(X, Y, time_limit=..., strict=True)`` in this process (its one deadline
    bounds every stage); with ``hard``, in a forked child process stopped at
    :func:`hard_time_limit` where forking is possible (not in a daemonic worker such
    as a Dask worker process, nor on a platform without fork, nor under a test's
    clock, ``qifldp.deadline.use_clock``)."""
    if not (hard and _can_fork()):
        return refinement.refines(X, Y, time_limit=time_limit, strict=True)
    ctx = mp.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_refine_in_child, args=(sender, X, Y, time_limit), daemon=True)
    hard_seconds = hard_time_limit(time_limit)
    child.start()
    sender.close()
    try:
        if not receiver.poll(hard_seconds):
            msg = (
                f"no verdict within {hard_seconds:g} s (time_limit = {time_limit:g} s plus "
                "the grace of hard_time_limit): the refinement was stopped"
            )
            raise TimeoutError(msg)
        try:
            ok, payload = receiver.recv()
        except EOFError:
            child.join()
            msg = f"the refinement process ended without a result (exit code {child.exitcode})"
            raise RuntimeError(msg) from None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()
    if not ok:
        raise payload
    return payload
