"""Refinement of one pair on the command line: the routes that fit the budgets (symmetric
channels, explicit LP, a restriction to a few inputs), run in order under a wall-clock
deadline."""

from __future__ import annotations

import math
import multiprocessing as mp
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..channel import Channel
from ..errors import QifldpError, SizeError
from ..protocols.structure.channel_free import ChannelFree, channel_free_decision
from ..protocols.structure.restriction import (
    RESTRICTION_SHARE,
    RESTRICTION_SIZES,
    Restriction,
    restriction_refutation,
)
from ..refinement import refines
from ..sweeps.routes import CHANNEL_FREE, RESTRICTION, SYMMETRIC, refinement_routes
from ..symmetric import SymmetricChannel, refines as symmetric_refines
from .defaults import CLI_MAX_EXPLICIT_ENTRIES, CLI_MAX_EXPLICIT_WITNESS
from .errors import UsageError, _Undecided
from .output import _short
from .specs import _Spec

# -- refinement of one pair, with the routes of the shared chooser ---------------------


def _pair_routes(
    a: _Spec, b: _Spec, A: Any, B: Any, *, explicit_first: bool = False
) -> tuple[list[str], list[str]]:
    """The refinement routes that fit the budgets (:func:`qifldp.sweeps.routes.refinement_routes`),
    and why the others do not. The orbit LP's own budget is applied by the symmetric
    route at its LP stage, after the routes that need no LP. The restriction route
    takes two protocols (a channel file has no protocol to restrict)."""
    fits = [s.n_outputs() if s.explicit_fits() else None for s in (a, b)]
    restrictable = a.make_protocol is not None and b.make_protocol is not None
    routes, why = refinement_routes(
        (isinstance(A, SymmetricChannel), isinstance(B, SymmetricChannel)),
        fits,
        max_witness=CLI_MAX_EXPLICIT_WITNESS,
        explicit_budget=f"{CLI_MAX_EXPLICIT_ENTRIES:.3g} entries",
        explicit_first=explicit_first,
        restrictable=restrictable,
    )
    if not routes and (a.channel is not None or b.channel is not None):
        why.append("the restriction route takes two protocols, not a channel file")
    return routes, why


class _NotSeparated(QifldpError, RuntimeError):
    """The restriction route found no failure (it proves failures only); ``timed_out``:
    it stopped at its time limit."""

    def __init__(self, msg: str, timed_out: bool) -> None:
        super().__init__(msg)
        self.timed_out = timed_out


def _restriction(a: _Spec, b: _Spec, time_limit: float) -> Restriction:
    """A ⋢ B proved on a few inputs
    (:func:`qifldp.protocols.structure.restriction.restriction_refutation`), or
    :class:`_NotSeparated` saying why not."""
    t0 = time.monotonic()
    found = restriction_refutation(a.protocol(), b.protocol(), time_limit=time_limit)
    if found is not None:
        return found
    if time.monotonic() - t0 >= time_limit:
        msg = f"no time left: the restriction route used its {time_limit:.3g} s"
        raise _NotSeparated(msg, timed_out=True)
    sizes = ", ".join(map(str, RESTRICTION_SIZES))
    raise _NotSeparated(f"no restriction to {sizes} inputs separates them", timed_out=False)


def _channel_free(a: _Spec, b: _Spec, A: Any, B: Any) -> ChannelFree:
    """A verdict from the protocols' structure
    (:func:`qifldp.protocols.structure.channel_free.channel_free_decision`), or
    :class:`_NotSeparated`."""
    found = channel_free_decision(
        a.protocol(),
        b.protocol(),
        A if isinstance(A, SymmetricChannel) else None,
        B if isinstance(B, SymmetricChannel) else None,
    )
    if found is None:
        msg = (
            "no route without a channel decides them (equal channels, a capacity bound, "
            "an invariant gain or witness, an exact Gram form, a guess in the hit coset, a "
            "hyperplane's gain)"
        )
        raise _NotSeparated(msg, timed_out=False)
    return found


def _run_route(
    route: str, a: _Spec, b: _Spec, A: Any, B: Any, time_limit: float, max_lp: int | None = None
) -> Any:
    """One route: the symmetric one with the orbit LP's budget ``max_lp`` (variables); the
    channel-free route returns a
    :class:`~qifldp.protocols.structure.channel_free.ChannelFree`, the restriction route a
    :class:`~qifldp.protocols.structure.restriction.Restriction` (a failure); both raise
    :class:`_NotSeparated` when they do not answer."""
    if route == CHANNEL_FREE:
        return _channel_free(a, b, A, B)
    if route == RESTRICTION:
        return _restriction(a, b, time_limit)
    if route == SYMMETRIC:
        r = symmetric_refines(A, B, time_limit=time_limit, max_lp_variables=max_lp)
        return r.with_channels(A, B)
    A = A if isinstance(A, Channel) else a.explicit()
    B = B if isinstance(B, Channel) else b.explicit()
    return refines(A, B, time_limit=time_limit, strict=True)


def _decide_pair(
    a: _Spec,
    b: _Spec,
    A: Any,
    B: Any,
    routes: Sequence[str],
    time_limit: float,
    max_lp: int | None = None,
    why: Sequence[str] = (),
) -> tuple[bool, str, str]:
    """Run the routes in order until one decides: (holds, route, certificate line of a
    restriction or ""); raise the errors otherwise (prefixed "size rule: " when every
    route that ran stopped at a size rule or was the restriction route finding no
    failure, then naming ``why``: the routes the size rule left out).

    The restriction route gets :data:`~qifldp.protocols.structure.restriction.RESTRICTION_SHARE` of
    the time left when another route follows it."""
    errors = []
    sized = True
    t0 = time.monotonic()
    for i, route in enumerate(routes):
        left = time_limit - (time.monotonic() - t0)
        if left <= 0:
            break
        if route == RESTRICTION and i + 1 < len(routes):
            left *= RESTRICTION_SHARE
        try:
            res = _run_route(route, a, b, A, B, left, max_lp)
        except _NotSeparated as exc:  # proves failures only: no verdict, no size rule
            sized = sized and not exc.timed_out
            errors.append(str(exc))
            continue
        except (QifldpError, MemoryError) as exc:
            sized = sized and isinstance(exc, SizeError)
            errors.append(f"{route} route: {_reason(exc)}")
            continue
        if time.monotonic() - t0 > time_limit:  # an answer after the budget is no answer in it
            raise _Undecided("no time left: the answer came after --time-limit")
        if isinstance(res, Restriction):
            return False, route, res.certified_by
        if isinstance(res, ChannelFree):
            return res.holds, res.route, res.certified_by
        return bool(res.holds), route, ""
    if RESTRICTION in routes:
        errors = [*why, *errors]
    msg = "; ".join(errors) or "no time left"
    raise _Undecided(("size rule: " + msg) if errors and sized else msg)


def _reason(exc: BaseException) -> str:
    """Why a route gave no verdict, on one line: a size rule's reason in full (it names
    the routes tried before it), any other error shortened."""
    if isinstance(exc, SizeError):
        return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return _short(exc)


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
    # The refinement engines import the solvers on first use; each pair runs in a forked
    # child, so they are loaded once in the parent before the first fork (else each child
    # loads them again: 0.25 s a pair) and never by a command that refines nothing.
    import scipy.optimize  # noqa: F401
    import scipy.sparse  # noqa: F401

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
        msg = f"--time-limit must be a positive finite number of seconds, got {t}"
        raise UsageError(msg)


def _check_max_lp(n: int) -> None:
    if n < 0:
        msg = f"--max-lp-variables must be >= 0, got {n}"
        raise UsageError(msg)
