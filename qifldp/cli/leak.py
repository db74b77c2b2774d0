"""``qifldp leak SPEC``: capacity, ASR, epsilon and min-entropy leakage of one protocol."""

from __future__ import annotations

import argparse
from typing import Any

from .. import measures
from ..channel import Channel
from .output import _fmt
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


def _describe(C: Any) -> str:
    if isinstance(C, Channel):
        return f"explicit channel, {C.shape[0]} x {C.shape[1]}"
    return f"symmetric (lumped) channel, k = {C.k}, {C.sizes.size} output size class(es)"


def run(args: argparse.Namespace) -> dict[str, Any]:
    _check_renormalize(args, [args.spec])
    C = _resolve(args.spec, renormalize=args.renormalize).auto()
    row = _leak_row(C)
    desc = _describe(C) + (", read from a file" if is_channel_file(args.spec) else "")
    out = {"protocol": args.spec, **row, "channel": desc, "units": dict(_UNITS)}
    if not args.json:
        width = max(len(k) for k in row)
        print(f"{'protocol':<{width}}  {args.spec}  ({desc})")
        for key, val in row.items():
            print(f"{key:<{width}}  {_fmt(val):<12}  {_UNITS[key]}")
    return out
