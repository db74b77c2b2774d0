"""One refinement under a hard time limit: run in a forked child process and stopped
at :func:`hard_time_limit` (HiGHS and the rational-arithmetic fallback cannot be
interrupted from inside)."""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

# The refinement engines import the solvers on first use; every refinement of a map runs
# in a forked child (_decide), so the solvers are loaded here, once per worker, before the
# forks (else each child loads them again: 0.25 s a refinement)
import scipy.optimize  # noqa: F401
import scipy.sparse  # noqa: F401

from .. import deadline, refinement
from .arguments import _check_seconds

__all__ = ["hard_time_limit"]


def hard_time_limit(time_limit: float) -> float:
    """Seconds after which a refinement of a map is stopped: ``time_limit`` plus a grace
    of a quarter of it (at least 1 s) for the certificate's verification.

    :func:`qifldp.refines` stops its iterative engines at ``time_limit``, but HiGHS
    and the rational-arithmetic fallback are not interruptible (an OLH/OUE pair at
    k = 4 has run 180 s with ``time_limit=5``); a map therefore runs each refinement
    in a forked child process and stops it at this limit.

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


def _decide(X: Any, Y: Any, time_limit: float) -> Any:
    """``refines(X, Y, time_limit=...)``, stopped at :func:`hard_time_limit` (in a forked
    child process; in this process where forking is not possible: a daemonic worker
    such as a Dask worker process, or a platform without fork, where only the
    engines' own ``time_limit`` applies; likewise under a test's clock,
    ``qifldp.deadline.use_clock``)."""
    if not _can_fork():
        return refinement.refines(X, Y, time_limit=time_limit, strict=True)
    ctx = mp.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_refine_in_child, args=(sender, X, Y, time_limit), daemon=True)
    hard = hard_time_limit(time_limit)
    child.start()
    sender.close()
    try:
        if not receiver.poll(hard):
            msg = (
                f"no verdict within {hard:g} s (time_limit = {time_limit:g} s plus the "
                "grace of hard_time_limit): the refinement was stopped"
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
