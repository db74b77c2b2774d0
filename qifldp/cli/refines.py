"""``qifldp refines SPEC_A SPEC_B``: decide A ⊑ B with its certificate and an explanation."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..channel import Channel
from ..errors import QifldpError, SizeError
from ..protocols.structure.channel_free import ChannelFree
from ..protocols.structure.restriction import Restriction
from ..sweeps.routes import RESTRICTION
from ..symmetric import SymmetricChannel
from .errors import _Skip
from .output import _short
from .routes import (
    _check_max_lp,
    _check_time_limit,
    _NotSeparated,
    _pair_routes,
    _reason,
    _run_route,
)
from .specs import _check_renormalize, _resolve


def run(args: argparse.Namespace) -> dict[str, Any]:
    _check_time_limit(args.time_limit)
    _check_max_lp(args.max_lp_variables)
    _check_renormalize(args, [args.spec_a, args.spec_b])
    a = _resolve(args.spec_a, renormalize=args.renormalize)
    b = _resolve(args.spec_b, renormalize=args.renormalize)
    # None: a protocol over the size rule without a symmetric channel (the restriction
    # route takes the protocol itself)
    A, B = a.auto_or_none(), b.auto_or_none()

    mixed = isinstance(A, SymmetricChannel) != isinstance(B, SymmetricChannel)
    if mixed and a.lumped is not None and b.lumped is not None:
        A, B = a.symmetric(), b.symmetric()  # one is too large: compare both lumped
    elif mixed and (a.channel is not None or b.channel is not None):
        A, B = a.symmetric(), b.symmetric()  # says that a channel file has no symmetric form
    routes, why = _pair_routes(a, b, A, B, explicit_first=True)
    if not routes:
        msg = f"{args.spec_a} ⊑ {args.spec_b} not attempted: " + "; ".join(why)
        raise _Skip(msg)
    errors = []
    res = None
    for route in routes:
        try:
            res = _run_route(route, a, b, A, B, args.time_limit, args.max_lp_variables)
            break
        except _NotSeparated as exc:
            errors.append(str(exc))
        except QifldpError as exc:
            if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, SizeError):
                raise  # bad input: exit 2
            errors.append(f"{route} route: {_reason(exc)}")
    if res is None:
        if RESTRICTION in routes:
            errors = [*why, *errors]
        raise _Skip(f"{args.spec_a} ⊑ {args.spec_b} undecided: " + "; ".join(errors))
    if isinstance(res, Restriction):
        return _restriction_out(res, args)
    if isinstance(res, ChannelFree):
        return _channel_free_out(res, args)
    out: dict[str, Any] = {"holds": bool(res.holds), "certified_by": res.certified_by}
    if res.witness is not None and isinstance(A, Channel):
        out["witness"] = np.asarray(res.witness).tolist()
    if res.counterexample is not None:
        ce = res.counterexample
        out["counterexample"] = {"gap": float(ce.gap)}
        if isinstance(A, Channel):
            out["counterexample"]["gain"] = np.asarray(ce.gain).tolist()
            out["counterexample"]["prior"] = np.asarray(ce.prior).tolist()
    names = (args.spec_a, args.spec_b)
    try:
        explanation = res.explanation(names=names)
    except QifldpError as exc:  # the verdict stands; say why there is no account
        explanation = {"summary": f"no explanation: {_short(exc)}", "text": ""}
    out["explanation"] = explanation
    if not args.json:
        print(repr(res))
        print(explanation["text"] or explanation["summary"])
    return out


def _restriction_out(found: Restriction, args: argparse.Namespace) -> dict[str, Any]:
    """The output of a failure proved on a restriction to a few inputs."""
    ce = found.counterexample
    names = (args.spec_a, args.spec_b)
    inputs = list(found.inputs)
    summary = (
        f"{names[0]} ⋢ {names[1]}: restricted to the inputs {inputs}, {names[1]} leaks more "
        f"than {names[0]} under a gain and a prior on them"
    )
    text = "\n".join(
        [
            summary + ".",
            f"  certified: {found.certified_by}",
            f"  prior on the inputs {inputs}: {np.round(np.asarray(ce.prior), 6).tolist()} "
            "(0 on every other input)",
            f"  gain: {_shape(ce.gain)} on those inputs, V_g[π▷B|S] − V_g[π▷A|S] = {ce.gap:.6g}",
            "  If A ⊑ B held (B = A·W), the rows of B at these inputs would be the rows of A "
            "there times the same W, so B could leak no more than A under any gain and prior "
            "supported on them: the gap refutes A ⊑ B on the whole domain.",
        ]
    )
    out: dict[str, Any] = {
        "holds": False,
        "certified_by": found.certified_by,
        "decided_by": RESTRICTION,
        "counterexample": {
            "gap": float(ce.gap),
            "inputs": inputs,
            "gain": np.asarray(ce.gain).tolist(),
            "prior": np.asarray(ce.prior).tolist(),
        },
        "explanation": {"summary": summary, "text": text},
    }
    if not args.json:
        print(f"{names[0]} ⋢ {names[1]}: fails (the restriction route)")
        print(text)
    return out


def _channel_free_out(found: ChannelFree, args: argparse.Namespace) -> dict[str, Any]:
    """The output of a verdict from the protocols' structure (no channel built)."""
    names = (args.spec_a, args.spec_b)
    verdict = "holds" if found.holds else "fails"
    summary = f"{names[0]} {'⊑' if found.holds else '⋢'} {names[1]}: {verdict} ({found.route})"
    lines = [summary + ".", f"  certified: {found.certified_by}"]
    out: dict[str, Any] = {
        "holds": found.holds,
        "certified_by": found.certified_by,
        "decided_by": found.route,
    }
    ce = found.counterexample
    if ce is not None:
        out["counterexample"] = {"gap": float(ce.gap)}
        gain = (
            f"{_shape(ce.gain)} (as stated above; the prior on "
            f"{int(np.count_nonzero(ce.prior))} of them)"
            if isinstance(ce.gain, np.ndarray)
            else repr(ce.gain)
        )
        lines.append(f"  gain: {gain}; gap V_g[π▷B] − V_g[π▷A] = {ce.gap:.6g}")
    text = "\n".join(lines)
    out["explanation"] = {"summary": summary, "text": text}
    if not args.json:
        print(text)
    return out


def _shape(gain: Any) -> str:
    rows, cols = np.shape(gain)
    return f"{rows} actions x {cols} inputs"
