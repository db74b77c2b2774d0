"""Refinement of one pair on the command line: the routes that fit the budgets (orbit LP,
explicit LP), run in order under a wall-clock deadline."""

from __future__ import annotations

import math
import multiprocessing as mp
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

# The refinement engines import the solvers on first use; every pair runs in a forked
# child (_with_deadline), so the solvers are loaded here, once, before the forks (else
# each child loads them again: 0.25 s a pair)
import scipy.optimize  # noqa: F401
import scipy.sparse  # noqa: F401

from ..channel import Channel
from ..errors import QifldpError
from ..refinement import refines
from ..symmetric import SymmetricChannel
from .defaults import (
    CLI_MAX_EXPLICIT_ENTRIES,
    CLI_MAX_EXPLICIT_WITNESS,
    ORBIT_EQUATION_WEIGHT,
)
from .errors import UsageError, _Undecided
from .output import _short
from .specs import _Spec

# -- refinement of one pair, with a route chosen by size ------------------------------


def _pair_routes(
    a: _Spec, b: _Spec, A: Any, B: Any, max_lp: int, *, explicit_first: bool = False
) -> tuple[list[str], list[str]]:
    """The refinement routes that fit the budgets, and why the others do not."""
    routes: list[str] = []
    why: list[str] = []
    if isinstance(A, SymmetricChannel) and isinstance(B, SymmetricChannel):
        n_var = 2 * A.sizes.size * B.sizes.size
        n_eq = A.sizes.size + 2 * B.sizes.size
        if n_var <= max_lp and ORBIT_EQUATION_WEIGHT * n_eq <= max_lp:
            routes.append("symmetric")
        else:
            why.append(
                f"the orbit LP would have ~{n_var:.3g} variables and {n_eq} equations "
                f"(> {max_lp:.3g} variables or {max_lp / ORBIT_EQUATION_WEIGHT:.3g} equations, "
                "--max-lp-variables)"
            )
    if a.explicit_fits() and b.explicit_fits():
        n_w = a.n_outputs() * b.n_outputs()
        if n_w <= CLI_MAX_EXPLICIT_WITNESS:
            if explicit_first:
                routes.insert(0, "explicit")
            else:
                routes.append("explicit")
        else:
            why.append(f"the explicit witness would have ~{n_w:.3g} entries")
    elif not why or a.lumped is None or b.lumped is None:
        why.append(
            f"an explicit channel would exceed {CLI_MAX_EXPLICIT_ENTRIES:.3g} entries"
            + ("" if a.lumped and b.lumped else " and one protocol has no symmetric form")
        )
    return routes, why


def _run_route(route: str, a: _Spec, b: _Spec, A: Any, B: Any, time_limit: float) -> Any:
    if route == "explicit":
        A = A if isinstance(A, Channel) else a.explicit()
        B = B if isinstance(B, Channel) else b.explicit()
    return refines(A, B, time_limit=time_limit, strict=True)


def _decide_pair(
    a: _Spec, b: _Spec, A: Any, B: Any, routes: Sequence[str], time_limit: float
) -> tuple[bool, str]:
    """Run the routes in order until one decides; raise the last error otherwise."""
    errors = []
    t0 = time.monotonic()
    for route in routes:
        left = time_limit - (time.monotonic() - t0)
        if left <= 0:
            break
        try:
            res = _run_route(route, a, b, A, B, left)
        except (QifldpError, MemoryError) as exc:
            errors.append(f"{route} route: {_short(exc)}")
            continue
        if time.monotonic() - t0 > time_limit:  # an answer after the budget is no answer in it
            raise _Undecided("no time left: the answer came after --time-limit")
        return bool(res.holds), route
    msg = "; ".join(errors) or "no time left"
    raise _Undecided(msg)


def _with_deadline(fn: Callable[[], Any], seconds: float) -> tuple[str, Any]:
    """Run ``fn()`` with a wall-clock limit: ("ok", value), ("error", text) or ("timeout", None).

    On POSIX the call runs in a forked child that is killed at the deadline (a
    solver stuck in C code cannot overrun it, and its memory is returned to the
    system when it ends); elsewhere it runs in-process (the time limit is then
    only the one passed to the solver).
    """
    if "fork" not in mp.get_all_start_methods():
        try:
            return "ok", fn()
        except _Undecided as exc:
            return "error", str(exc)
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("ok", fn()))
        except _Undecided as exc:
            send.send(("error", str(exc)))
        except BaseException as exc:  # report anything: the parent must not crash
            send.send(("error", _short(exc)))

    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # the child must not print the parent's pending output again
    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        if recv.poll(seconds):
            try:
                return recv.recv()
            except EOFError:
                proc.join()
                return "error", (
                    f"the worker process ended without an answer (exit code {proc.exitcode}; "
                    "out of memory?)"
                )
        return "timeout", None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def _check_time_limit(t: float) -> None:
    if not (math.isfinite(t) and t > 0):
        msg = f"--time-limit must be a positive number of seconds, got {t}"
        raise UsageError(msg)
