"""``qifldp refines SPEC_A SPEC_B``: decide A ⊑ B with its certificate and an explanation."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..channel import Channel
from ..errors import QifldpError, SizeError
from ..symmetric import SymmetricChannel
from .errors import _Skip
from .output import _short
from .routes import _check_max_lp, _check_time_limit, _pair_routes, _reason, _run_route
from .specs import _check_renormalize, _resolve


def run(args: argparse.Namespace) -> dict[str, Any]:
    _check_time_limit(args.time_limit)
    _check_max_lp(args.max_lp_variables)
    _check_renormalize(args, [args.spec_a, args.spec_b])
    a = _resolve(args.spec_a, renormalize=args.renormalize)
    b = _resolve(args.spec_b, renormalize=args.renormalize)
    A, B = a.auto(), b.auto()

    if isinstance(A, SymmetricChannel) != isinstance(B, SymmetricChannel):
        A, B = a.symmetric(), b.symmetric()  # one is too large: compare both lumped
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
        except QifldpError as exc:
            if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, SizeError):
                raise  # bad input: exit 2
            errors.append(f"{route} route: {_reason(exc)}")
    if res is None:
        raise _Skip(f"{args.spec_a} ⊑ {args.spec_b} undecided: " + "; ".join(errors))
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
