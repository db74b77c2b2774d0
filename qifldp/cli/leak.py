"""``qifldp leak SPEC``: capacity, ASR, epsilon and min-entropy leakage of one protocol."""

from __future__ import annotations

import argparse
import math
from typing import Any

from .. import measures
from ..channel import Channel
from ..errors import QifldpError
from .output import _fmt, _short
from .specs import _check_renormalize, _resolve, is_channel_file

_UNITS = {
    "bayes_capacity": "× (multiplicative Bayes capacity ML = sum_y max_x C[x, y]; 1 = no leak)",
    "asr": "probability (Bayes-optimal one-try guess, uniform prior: ML / k)",
    "ldp_epsilon": "nats (ln of the largest likelihood ratio; inf when unbounded)",
    "min_entropy_leakage": "bits (log2 ML: min-entropy leakage under the uniform prior)",
}


def _leak_row(C: Any) -> dict[str, Any]:
    return {
        "bayes_capacity": float(measures.bayes_capacity(C)),
        "asr": float(measures.asr(C)),
        "ldp_epsilon": float(measures.ldp_epsilon(C)),
        "min_entropy_leakage": float(measures.min_entropy_leakage(C)),
    }


#: The measures a protocol's closed forms (:class:`qifldp.protocols.base.ClosedForm`) give.
_CLOSED_FORMS = ("bayes_capacity", "asr", "ldp_epsilon")

#: How a row from closed forms is described (a channel's row says which channel).
FROM_CLOSED_FORMS = (
    "closed forms: its explicit channel is over the size rule and it has no symmetric channel"
)


def _closed_form_row(P: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """The row of :func:`_leak_row` from the closed forms of protocol ``P`` (``P.closed_form``),
    and why a value is missing: a value they do not give (or not as a number) is None,
    shown as not available."""
    row: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for key in _CLOSED_FORMS:
        try:
            value = float(getattr(P.closed_form, key)())
        except (QifldpError, NotImplementedError, ArithmeticError, AttributeError) as exc:
            value, missing[key] = math.nan, _short(exc)
        if math.isnan(value):
            missing.setdefault(key, "not a number")
        row[key] = None if math.isnan(value) else value
    ml = row["bayes_capacity"]
    row["min_entropy_leakage"] = math.log2(ml) if ml is not None and ml > 0 else None
    if row["min_entropy_leakage"] is None:
        missing["min_entropy_leakage"] = "log2 of bayes_capacity, not available"
    return row, missing


def _describe(C: Any) -> str:
    if C is None:
        return FROM_CLOSED_FORMS
    if isinstance(C, Channel):
        return f"explicit channel, {C.shape[0]} x {C.shape[1]}"
    return f"symmetric (lumped) channel, k = {C.k}, {C.sizes.size} output size class(es)"


def run(args: argparse.Namespace) -> dict[str, Any]:
    _check_renormalize(args, [args.spec])
    s = _resolve(args.spec, renormalize=args.renormalize)
    C = s.auto_or_none()
    row, missing = (_leak_row(C), {}) if C is not None else _closed_form_row(s.protocol())
    desc = _describe(C) + (", read from a file" if is_channel_file(args.spec) else "")
    out = {"protocol": args.spec, **row, "channel": desc, "units": dict(_UNITS)}
    if missing:
        out["not_available"] = missing
    if not args.json:
        width = max(len(k) for k in row)
        print(f"{'protocol':<{width}}  {args.spec}  ({desc})")
        for key, val in row.items():
            print(f"{key:<{width}}  {_fmt(val):<12}  {_UNITS[key]}")
        for key, why in missing.items():
            print(f"-: {key} not given by its closed forms ({why})")
    return out
