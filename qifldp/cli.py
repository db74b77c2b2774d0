"""The ``qifldp`` command line: quick answers about LDP protocols as channels."""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .channel import Channel
from .errors import QifldpError, SizeError

__all__ = ["main", "parse_spec", "build", "PROTOCOLS"]

#: Protocol name -> (module, function) of its constructor; aliases share a target.
PROTOCOLS: dict[str, tuple[str, str]] = {
    "grr": ("qifldp.mechanisms", "grr"),
    "ss": ("qifldp.mechanisms", "subset_selection"),
    "subset_selection": ("qifldp.mechanisms", "subset_selection"),
    "lh": ("qifldp.mechanisms", "local_hashing"),
    "local_hashing": ("qifldp.mechanisms", "local_hashing"),
    "blh": ("qifldp.mechanisms", "blh"),
    "olh": ("qifldp.mechanisms", "olh"),
    "ue": ("qifldp.mechanisms", "unary_encoding"),
    "unary_encoding": ("qifldp.mechanisms", "unary_encoding"),
    "sue": ("qifldp.mechanisms", "sue"),
    "oue": ("qifldp.mechanisms", "oue"),
    "the": ("qifldp.mechanisms", "the"),
    "sue_bit": ("qifldp.mechanisms", "sue_bit"),
    "oue_bit": ("qifldp.mechanisms", "oue_bit"),
    "the_bit": ("qifldp.mechanisms", "the_bit"),
}

_INT_PARAMS = {"k", "omega", "g", "d", "ell"}
DEFAULT_COMPARE = ("grr", "ss", "blh", "olh", "sue", "oue")


class UsageError(QifldpError, ValueError):
    """A command-line argument is malformed (exit status 2)."""


def _constructor(name: str) -> Callable[..., Channel]:
    if name not in PROTOCOLS:
        known = ", ".join(sorted(PROTOCOLS))
        msg = f"unknown protocol {name!r}; known protocols: {known}"
        raise UsageError(msg)
    module, func = PROTOCOLS[name]
    return getattr(importlib.import_module(module), func)


def _value(key: str, text: str) -> Any:
    try:
        if key in _INT_PARAMS:
            return int(text)
        return float(text)
    except ValueError:
        kind = "an integer" if key in _INT_PARAMS else "a number"
        msg = f"parameter {key} must be {kind}, got {text!r}"
        raise UsageError(msg) from None


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME:key=value,...`` into the protocol name and its parameters.

    Examples
    --------
    >>> parse_spec("the:k=4,eps=1,theta=0.7")
    ('the', {'k': 4, 'eps': 1.0, 'theta': 0.7})
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    params: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            msg = f"protocol spec {spec!r}: expected key=value, got {item!r}"
            raise UsageError(msg)
        params[key] = _value(key, text.strip())
    return name, params


def build(spec: str, kind: str = "explicit", **defaults: Any) -> Any:
    """Build the channel of a protocol spec; ``defaults`` fill missing parameters.

    ``kind`` is "explicit" (a ``Channel``), "symmetric" (``qifldp.symmetric``) or
    "auto" (explicit, or symmetric when the explicit channel is too large).

    Examples
    --------
    >>> build("grr:k=3,eps=0").shape
    (3, 3)
    >>> type(build("oue:k=1000,eps=1", kind="auto")).__name__
    'SymmetricChannel'
    """
    name, params = parse_spec(spec)
    ctor = _constructor(name)
    accepted = inspect.signature(ctor).parameters
    for key, val in defaults.items():
        if key in accepted and key not in params and val is not None:
            params[key] = val
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        msg = (
            f"protocol {name!r} takes {', '.join(accepted)}; "
            f"unknown parameter(s): {', '.join(unknown)}"
        )
        raise UsageError(msg)
    missing = [
        p.name
        for p in accepted.values()
        if p.default is inspect.Parameter.empty and p.name not in params
    ]
    if missing:
        msg = f"protocol {name!r} needs parameter(s): {', '.join(missing)}"
        raise UsageError(msg)
    if kind == "explicit":
        return ctor(**params)
    from . import symmetric

    lumped = getattr(symmetric, ctor.__name__, None)
    if kind == "symmetric":
        if lumped is None:
            msg = f"protocol {name!r} has no symmetric (large-k) representation"
            raise UsageError(msg)
        return lumped(**params)
    try:
        return ctor(**params)
    except SizeError:
        if lumped is None:
            raise
        return lumped(**params)


def _num(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _leak_row(C: Channel) -> dict[str, Any]:
    from . import measures

    return {
        "bayes_capacity": _num(measures.bayes_capacity(C)),
        "asr": _num(measures.asr(C)),
        "ldp_epsilon": _num(measures.ldp_epsilon(C)),
        "min_entropy_leakage": _num(measures.min_entropy_leakage(C)),
    }


def _cmd_leak(args: argparse.Namespace) -> dict[str, Any]:
    C = build(args.spec, kind="auto")
    out = {"protocol": args.spec, **_leak_row(C)}
    if not args.json:
        width = max(len(k) for k in out)
        for key, val in out.items():
            print(f"{key:<{width}}  {val}")
    return out


def _cmd_refines(args: argparse.Namespace) -> dict[str, Any]:
    from .refinement import refines

    A, B = build(args.spec_a), build(args.spec_b)
    res = refines(A, B)
    out: dict[str, Any] = {"holds": bool(res.holds)}
    if res.witness is not None:
        out["witness"] = np.asarray(res.witness).tolist()
    if res.counterexample is not None:
        ce = res.counterexample
        out["counterexample"] = {
            "gain": np.asarray(ce.gain).tolist(),
            "prior": np.asarray(ce.prior).tolist(),
            "gap": float(ce.gap),
        }
    if not args.json:
        print(res)
    return out


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    def fmt(v: Any) -> str:
        return f"{v:.6g}" if isinstance(v, float) else str(v)

    cells = [[fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


def _cmd_compare(args: argparse.Namespace) -> dict[str, Any]:
    names = args.names or list(DEFAULT_COMPARE)
    channels: dict[str, Channel] = {}
    for spec in names:
        channels[spec] = build(spec, kind="auto", k=args.k, eps=args.eps)
    if len({type(C) for C in channels.values()}) > 1:
        # some protocol is too large to enumerate: compare all of them as symmetric channels
        channels = {s: build(s, kind="symmetric", k=args.k, eps=args.eps) for s in names}
    rows = []
    for spec, C in channels.items():
        row = _leak_row(C)
        rows.append({"name": spec, **{k: row[k] for k in ("bayes_capacity", "asr", "ldp_epsilon")}})
    edges: list[list[str]] = []
    equivalent: list[list[str]] = []
    G = None
    if not args.no_graph and len(channels) > 1:
        from .graph import refinement_graph

        G = refinement_graph(channels)
        edges = [[u, v] for u, v in sorted(G.edges())]
        equivalent = [sorted(m) for m in G.graph.get("equivalent", []) if len(m) > 1]
    out = {"k": args.k, "eps": args.eps, "protocols": rows, "edges": edges}
    if equivalent:
        out["equivalent"] = equivalent
    if args.plot:
        out["plot"] = _plot_hasse(G, args)
    if not args.json:
        print(f"k = {args.k}, eps = {args.eps}")
        print(_table(rows, ["name", "bayes_capacity", "asr", "ldp_epsilon"]))
        if not args.no_graph and len(channels) > 1:
            print("\nRefinement (Hasse diagram; A -> B means A ⊑ B, B leaks no more than A):")
            for u, v in edges:
                print(f"  {u} -> {v}")
            for members in equivalent:
                print(f"  {' = '.join(members)}  (equivalent: each refines the other)")
            if not edges and not equivalent:
                print("  (no two protocols are comparable)")
            elif not edges:
                print("  (no other pair is comparable)")
    return out


def _cmd_reproduce(args: argparse.Namespace) -> dict[str, Any]:
    from .reproduce import reproduce

    figures = reproduce(args.out, quick=args.quick, data=args.data, which=args.figures)
    files = [str(f.path) for f in figures]
    if not args.json:
        for f in files:
            print(f)
    return {"files": files}


def _cmd_audit(args: argparse.Namespace) -> dict[str, Any]:
    from .audit import audit, format_audit

    results = audit(args.claims or None)
    if not args.json:
        print(format_audit(results, details=not args.brief))
    return {"claims": [r.to_dict() for r in results]}


def _plot_hasse(G: Any, args: argparse.Namespace) -> str:
    """Write the Hasse diagram of ``compare`` to ``args.plot`` (PNG, SVG or PDF)."""
    if G is None:
        msg = "--plot needs the refinement diagram: give two or more protocols, without --no-graph"
        raise UsageError(msg)
    from matplotlib.figure import Figure

    from .graph import plot_refinement_graph

    fig = Figure(figsize=(6, 4.5))
    ax = fig.subplots()
    plot_refinement_graph(G, ax=ax)
    ax.set_title(f"k = {args.k}, eps = {args.eps:g}  (A -> B: A ⊑ B)")
    fig.tight_layout()
    fig.savefig(args.plot)
    return str(args.plot)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="qifldp",
        description="Quantitative information flow analysis of LDP protocols. "
        "Protocol specs look like oue:k=5,eps=1.3 or the:k=4,eps=1,theta=0.7.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    sub = p.add_subparsers(dest="command")

    s = sub.add_parser("leak", help="capacity, ASR, epsilon, min-entropy leakage of a protocol")
    s.add_argument("spec")
    s.set_defaults(func=_cmd_leak)

    s = sub.add_parser("refines", help="decide A ⊑ B (B leaks no more than A) with a certificate")
    s.add_argument("spec_a")
    s.add_argument("spec_b")
    s.set_defaults(func=_cmd_refines)

    s = sub.add_parser("compare", help="table of leakage measures and the refinement Hasse diagram")
    s.add_argument("--k", type=int, default=4, help="domain size (default 4)")
    s.add_argument("--eps", type=float, default=1.0, help="privacy parameter (default 1)")
    s.add_argument("--no-graph", action="store_true", help="skip the refinement diagram")
    s.add_argument("--plot", default=None, help="also draw the Hasse diagram to this file")
    s.add_argument(
        "names", nargs="*", help=f"protocol specs (default: {' '.join(DEFAULT_COMPARE)})"
    )
    s.set_defaults(func=_cmd_compare)

    s = sub.add_parser("reproduce", help="reproduce the QIF paper's figures 4-7 as PNG files")
    s.add_argument("--quick", action="store_true", help="fewer points and users (seconds)")
    s.add_argument("--out", default="figures", help="output directory (default ./figures)")
    s.add_argument("--data", default=None, help="FIMI transaction file (e.g. Kosarak)")
    s.add_argument(
        "--figures", type=int, nargs="+", default=[4, 5, 6, 7], help="figure numbers (default all)"
    )
    s.set_defaults(func=_cmd_reproduce)

    s = sub.add_parser("audit", help="check the papers' published claims live, with the numbers")
    s.add_argument("--brief", action="store_true", help="verdicts only, without the details")
    s.add_argument("claims", nargs="*", help="claim keys, e.g. qif.eq25 qif.lemma11 (default all)")
    s.set_defaults(func=_cmd_audit)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad arguments).

    With no command, prints the comparison table for k = 4, eps = 1.

    Examples
    --------
    >>> main(["--json", "leak", "grr:k=2,eps=0"])  # doctest: +ELLIPSIS
    {"protocol": "grr:k=2,eps=0", "bayes_capacity": 1.0, "asr": 0.5, "ldp_epsilon": 0.0, ...}
    0
    """
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # allow --json anywhere on the line
    want_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    if not argv or (argv[0].startswith("-") and argv[0] not in {"-h", "--help"}):
        argv = ["compare", *argv]  # no command: the comparison table
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its message
        return int(exc.code or 0)
    args.json = want_json
    try:
        out = args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"qifldp: error: {exc}", file=sys.stderr)
        return 2
    if want_json:
        print(json.dumps(out))
    return 0
