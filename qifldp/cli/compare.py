"""``qifldp compare``: a table of leakage measures and the refinement Hasse diagram."""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..refinement.graph import hasse_diagram, plot_refinement_graph
from .defaults import (
    CAPACITY_MARGIN,
    CLI_MAX_EXPLICIT_ENTRIES,
    CLI_MAX_EXPLICIT_WITNESS,
    DEFAULT_COMPARE,
)
from .errors import UsageError
from .leak import FROM_CLOSED_FORMS, _closed_form_row, _leak_row
from .output import _check_output_file, _table
from .routes import (
    _check_max_lp,
    _check_time_limit,
    _decide_pair,
    _pair_routes,
    _with_deadline,
)
from .specs import _check_renormalize, _resolve


def _chain(status: dict[tuple[str, str], bool | None], names: Sequence[str], a: str, b: str):
    """Settle a ⊑ b from decided pairs through one intermediate c (refinement is transitive)."""
    for c in names:
        if c in (a, b):
            continue
        if status.get((a, c)) and status.get((c, b)):
            return True, c
        if (status.get((c, a)) and status.get((c, b)) is False) or (
            status.get((b, c)) and status.get((a, c)) is False
        ):
            return False, c
    return None, None


def run(args: argparse.Namespace) -> dict[str, Any]:
    _check_time_limit(args.time_limit)
    _check_max_lp(args.max_lp_variables)
    if args.plot:
        _check_output_file(args.plot, "--plot", PLOT_SUFFIXES)
        if args.no_graph:
            msg = "--plot needs the refinement diagram: leave out --no-graph"
            raise UsageError(msg)
    if not math.isfinite(args.eps):
        msg = f"--eps must be a finite number, got {args.eps}"
        raise UsageError(msg)
    names = args.names or list(DEFAULT_COMPARE)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        msg = f"protocol(s) named twice: {', '.join(dup)}"
        raise UsageError(msg)
    if args.plot and len(names) < 2:
        msg = "--plot needs the refinement diagram: give two or more protocols"
        raise UsageError(msg)
    _check_renormalize(args, names)
    specs = {n: _resolve(n, renormalize=args.renormalize, k=args.k, eps=args.eps) for n in names}
    # the cheapest representation of each: symmetric where the protocol has one; None for
    # a protocol whose explicit channel is over the size rule and that has no symmetric
    # one (its row from its closed forms, its pairs by the routes without its channel)
    channels = {n: (s.symmetric() if s.lumped else s.auto_or_none()) for n, s in specs.items()}
    n_inputs = {n: _n_inputs(specs[n], C) for n, C in channels.items()}
    if len(set(n_inputs.values())) > 1:
        shown = ", ".join(f"{n}: {v}" for n, v in n_inputs.items())
        msg = f"all protocols must have the same number of inputs k, got {shown}"
        if any(specs[n].channel is not None for n in names):
            msg += " (a channel file fixes its k: pass --k to match it)"
        raise UsageError(msg)
    rows: list[dict[str, Any]] = []
    for spec, C in channels.items():
        row, missing = (
            (_leak_row(C), {}) if C is not None else _closed_form_row(specs[spec].protocol())
        )
        rows.append({"name": spec, **{k: row[k] for k in ("bayes_capacity", "asr", "ldp_epsilon")}})
        if C is None:
            rows[-1]["source"] = FROM_CLOSED_FORMS
            lacks = {k: v for k, v in missing.items() if k in rows[-1]}
            if lacks:
                rows[-1]["not_available"] = lacks
    if not args.json:
        print(f"k = {args.k}, eps = {args.eps}")
        marked = [{**r, "name": r["name"] + (" *" if "source" in r else "")} for r in rows]
        print(_table(marked, ["name", "bayes_capacity", "asr", "ldp_epsilon"]))
        if any("source" in r for r in rows):
            lacking = any("not_available" in r for r in rows)
            note = " (-: not given by them)" if lacking else ""
            print(f"* from its {FROM_CLOSED_FORMS}{note}")
        sys.stdout.flush()
    out: dict[str, Any] = {"k": args.k, "eps": args.eps, "protocols": rows}
    if args.no_graph or len(names) < 2:
        out["edges"] = []
        return out

    # a capacity the closed forms do not give is unknown: no shortcut, last in the order
    caps = {
        r["name"]: math.nan if r["bayes_capacity"] is None else r["bayes_capacity"] for r in rows
    }
    status: dict[tuple[str, str], bool | None] = {}
    how: dict[tuple[str, str], str] = {}
    certified: dict[tuple[str, str], str] = {}
    skipped: dict[tuple[str, str], str] = {}
    pairs = [(a, b) for a in names for b in names if a != b]
    for a, b in pairs:  # certified shortcut: a more leaky B cannot refine A
        ca, cb = caps[a], caps[b]
        if math.isfinite(ca) and math.isfinite(cb) and cb > ca * (1.0 + CAPACITY_MARGIN):
            status[(a, b)] = False
            how[(a, b)] = "capacity"

    def distance(pair: tuple[str, str]) -> float:
        ca, cb = caps[pair[0]], caps[pair[1]]
        d = abs(math.log(ca) - math.log(cb)) if ca > 0 and cb > 0 else math.inf
        return d if math.isfinite(d) else math.inf

    # pairs of close capacity first: the long-range pairs then often follow by transitivity
    todo = sorted((p for p in pairs if p not in status), key=distance)
    t_start = time.monotonic()
    for a, b in todo:
        verdict, via = _chain(status, names, a, b)
        if verdict is not None:
            status[(a, b)] = verdict
            how[(a, b)] = "transitivity"
            continue
        routes, why = _pair_routes(specs[a], specs[b], channels[a], channels[b])
        if not routes:
            status[(a, b)] = None
            skipped[(a, b)] = "size rule: " + "; ".join(why)
            continue
        sa, sb, A, B = specs[a], specs[b], channels[a], channels[b]
        kind, value = _with_deadline(
            functools.partial(
                _decide_pair, sa, sb, A, B, routes, args.time_limit, args.max_lp_variables, why
            ),
            args.time_limit,
        )
        if kind == "error" and ("time_limit" in str(value) or "no time left" in str(value)):
            kind = "timeout"  # the solver itself stopped at the limit before the deadline
        if kind == "ok":
            status[(a, b)], how[(a, b)], line = value
            if line:
                certified[(a, b)] = line
        else:
            status[(a, b)] = None
            skipped[(a, b)] = (
                f"time limit: no answer within {args.time_limit:g} s (--time-limit)"
                if kind == "timeout"
                else f"{value} (--max-lp-variables)"
                if str(value).startswith("size rule") and "max_lp_variables" in str(value)
                else str(value)
                if str(value).startswith("size rule")
                else f"no verdict: {value}"
            )
    elapsed = time.monotonic() - t_start
    G = hasse_diagram(names, status)
    final = G.graph["status"]
    for p in G.graph["inferred"]:
        how[p] = "transitivity"
        skipped.pop(p, None)
    edges = [[u, v] for u, v in sorted(G.edges())]
    equivalent = [list(m) for m in G.graph["equivalent"]]
    counts = {key: sum(1 for v in how.values() if v == key) for key in sorted(set(how.values()))}
    left = [(a, b) for (a, b) in pairs if final[(a, b)] is None]
    budget = {
        "time_limit": args.time_limit,
        "max_lp_variables": args.max_lp_variables,
        "max_explicit_entries": CLI_MAX_EXPLICIT_ENTRIES,
        "max_explicit_witness": CLI_MAX_EXPLICIT_WITNESS,
        "capacity_margin": CAPACITY_MARGIN,
    }
    out.update(
        {
            "edges": edges,
            "incomparable": [list(p) for p in G.graph["incomparable"]],
            "decided_by": counts,
            "decided": [
                {
                    "a": a,
                    "b": b,
                    "refines": final[(a, b)],
                    "how": how[(a, b)],
                    **({"certified_by": certified[(a, b)]} if (a, b) in certified else {}),
                }
                for a, b in pairs
                if final[(a, b)] is not None and (a, b) in how
            ],
            "skipped": [
                {"a": a, "b": b, "reason": skipped.get((a, b), "undecided")} for a, b in left
            ],
            "budget": budget,
            "refinement_seconds": elapsed,
        }
    )
    if equivalent:
        out["equivalent"] = equivalent
    if G.graph["inconsistent"]:
        out["inconsistent"] = [list(p) for p in G.graph["inconsistent"]]
    if args.plot:
        out["plot"] = _plot_hasse(G, args)
    if not args.json:
        _print_diagram(G, edges, equivalent, counts, left, skipped, budget, elapsed)
    return out


#: The image files ``--plot`` writes (matplotlib picks the format from the ending).
PLOT_SUFFIXES: tuple[str, ...] = (".png", ".svg", ".pdf", ".eps", ".ps", ".jpg", ".jpeg")

_HOW = {
    "capacity": "by Bayes capacity",
    "symmetric": "on the symmetric channels",
    "explicit": "by the explicit LP",
    "transitivity": "by transitivity",
    "restriction": "on a restriction to a few inputs",
    "equal channels": "as equal channels (W = I)",
    "capacity bound": "by a closed-form bound of the capacity",
    "invariant gain": "by a gain invariant under the affine group",
    "hyperplane gain": "by the gain of a hyperplane of the values",
    "guess mixing": "by a guess in the hit coset, then mixing",
    "invariant witness": "by a witness invariant under the affine group",
    "posterior mixing": "by posterior mixing from an exact Gram form",
}


def _n_inputs(spec: Any, C: Any) -> int:
    """The number of inputs of a spec's representation (its protocol's k without one)."""
    if C is None:
        return int(spec.protocol().k)
    return int(C.k if hasattr(C, "sizes") else C.shape[0])


def _print_diagram(G, edges, equivalent, counts, left, skipped, budget, elapsed) -> None:
    print("\nRefinement (Hasse diagram; A -> B means A ⊑ B, B leaks no more than A):")
    depth = _depths(G)
    for u, v in sorted(edges, key=lambda e: depth[e[0]]):  # chains read from top to bottom
        print(f"  {u} -> {v}")
    for members in equivalent:
        print(f"  {' = '.join(members)}  (equivalent: each refines the other)")
    # a class without an edge would otherwise not appear at all
    open_pairs = {n for pair in G.graph["undecided"] for n in pair}
    alone = [n for n in G.nodes if G.degree(n) == 0] if G.number_of_nodes() > 1 else []
    for known, label in (
        (False, "incomparable with every other protocol"),
        (True, "no edge known, some of its pairs undecided (skipped below)"),
    ):
        classes = [" = ".join(G.nodes[n]["members"]) for n in alone if (n in open_pairs) == known]
        if classes:
            print(f"  {label}: {', '.join(classes)}")
    n = sum(counts.values())
    parts = ", ".join(f"{c} {_HOW.get(k, k)}" for k, c in counts.items())
    print(
        f"Decided {n} of {n + len(left)} ordered pairs ({parts}) in {elapsed:.1f} s; budget: "
        f"{budget['time_limit']:g} s per pair, orbit LP <= {budget['max_lp_variables']:.3g} "
        f"variables, explicit channels <= {budget['max_explicit_entries']:.3g} entries."
    )
    if G.graph["inconsistent"]:
        shown = ", ".join(f"{a} ⊑ {b}" for a, b in G.graph["inconsistent"])
        print(f"Warning: verdicts not transitive (decided false, implied by a chain): {shown}")
    if left:
        print(f"Skipped {len(left)} pair(s), undecided (no edge drawn for them):")
        for a, b in left:
            print(f"  {a} ⊑ {b}?  skipped: {skipped.get((a, b), 'undecided')}")
        print(f"  ({_advice([skipped.get(p, '') for p in left])})")


def _depths(G: Any) -> dict[Any, int]:
    """Each class's longest chain of refinements above it in the Hasse diagram ``G``."""
    depth: dict[Any, int] = {}

    def of(v: Any) -> int:
        if v not in depth:
            depth[v] = 1 + max((of(u) for u in G.predecessors(v)), default=-1)
        return depth[v]

    for v in G.nodes:
        of(v)
    return depth


def _advice(reasons: Sequence[str]) -> str:
    """What to change for the skipped pairs, from what stopped them."""
    out = []
    if any(r.startswith("time limit") for r in reasons):
        out.append("raise --time-limit")
    if any(r.startswith("size rule") and "orbit LP" in r for r in reasons):
        out.append(
            "raise --max-lp-variables (the orbit LP is the only route left: the routes "
            "without an LP ran and did not decide)"
        )
    if any(r.startswith("size rule") and "explicit" in r for r in reasons):
        out.append("use protocols with a symmetric channel (qifldp protocols lists them)")
    if not out:
        out.append("no budget stopped them: see each reason")
    return "; ".join(out)


def _plot_hasse(G: Any, args: argparse.Namespace) -> str:
    """Write the Hasse diagram of ``compare`` to ``args.plot`` (PNG, SVG or PDF)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4.5))
    ax = fig.subplots()
    plot_refinement_graph(G, ax=ax)
    ax.set_title(f"k = {args.k}, eps = {args.eps:g}  (A -> B: A ⊑ B)")
    fig.tight_layout()
    fig.savefig(args.plot)
    return str(args.plot)
