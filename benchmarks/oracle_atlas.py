"""The comparability atlas of the frequency oracles (``qifldp.sweeps.atlas``), run once.

Every ordered pair of the oracles of :data:`qifldp.sweeps.atlas.ATLAS_ORACLES` at equal
eps, over k in ``KS`` and eps in ``EPSS``: decided with a certificate (orbit LP, explicit
LP, Bayes capacity, two-point prior, or a chain) or stated undecided with the reason.
Writes ``docs/gallery/atlas.csv`` (one row per ordered pair and cell) and
``docs/gallery/atlas.json`` (per cell: the oracles' capacity and true eps, the Hasse
diagram's edges, the equivalence classes) after each k, and prints the share of ordered
pairs decided (the target: at least 95 % at k <= 64). Not run by CI: tens of minutes on
one core. Usage: ``python benchmarks/oracle_atlas.py [k ...]``; ``--extend [k ...]``
keeps the stored table's verdicts and decides only the pairs of oracles added to
:data:`~qifldp.sweeps.atlas.ATLAS_ORACLES` since (``oracle_atlas(..., known=table)``),
merging them in after each k (a k the table lacks: every pair); ``--redecide [k ...]``
decides again the pairs the stored table states undecided (after a route is added);
``--time-limit T`` sets the seconds per pair (default 8);
``--plot`` draws ``docs/gallery/atlas_hasse.png`` (the
Hasse diagrams of two cells) from the stored table.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import sys
import time
from pathlib import Path

import pandas as pd

from qifldp.sweeps.atlas import ATLAS_ORACLES, oracle_atlas

KS = [2, 3, 4, 8, 16, 32, 64]
EPSS = [0.5, 1.0, 2.0, 4.0, 8.0]
TIME_LIMIT = 8.0
TARGET = 0.95
OUT = Path(__file__).resolve().parent.parent / "docs" / "gallery"


def main(ks: list[int]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    tables, cells = [], []
    t0 = time.perf_counter()
    with cf.ProcessPoolExecutor(1) as pool:  # one core: the refinements fork their own child
        for k in ks:
            table, got = oracle_atlas(
                [k], EPSS, time_limit=TIME_LIMIT, executor=pool, progress=False
            )
            tables.append(table)
            cells.extend(got)
            whole = pd.concat(tables, ignore_index=True)
            whole.to_csv(OUT / "atlas.csv", index=False)
            doc = {
                "oracles": {n: conv for n, (_, conv) in ATLAS_ORACLES.items()},
                "ks": ks,
                "epss": EPSS,
                "time_limit": TIME_LIMIT,
                "cells": [{key: c[key] for key in c if key != "pairs"} for c in cells],
            }
            (OUT / "atlas.json").write_text(json.dumps(doc, indent=1) + "\n")
            share = whole["holds"].notna().mean()
            print(
                f"k = {k}: {table['holds'].notna().sum()} of {len(table)} ordered pairs "
                f"decided; so far {share:.1%} in {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    whole = pd.concat(tables, ignore_index=True)
    n, d = len(whole), int(whole["holds"].notna().sum())
    print(
        f"decided {d} of {n} ordered pairs ({d / n:.2%}); target {TARGET:.0%}: "
        f"{'met' if d / n >= TARGET else 'NOT met'}"
    )
    print(whole["route"].value_counts().to_string())


def extend(ks: list[int], redecide: bool = False) -> None:
    """Decide the pairs the stored table lacks (with ``redecide``, also those it states
    undecided), cell by cell, and merge them in; a k the table lacks gets all its pairs."""
    whole = pd.read_csv(OUT / "atlas.csv")
    columns = list(whole.columns)
    doc = json.loads((OUT / "atlas.json").read_text())
    t0 = time.perf_counter()
    with cf.ProcessPoolExecutor(1) as pool:
        for k in ks:
            table, got = oracle_atlas(
                [k],
                EPSS,
                time_limit=TIME_LIMIT,
                executor=pool,
                progress=False,
                known=whole[whole["holds"].notna()] if redecide else whole,
            )
            rest = whole[whole["k"] != k]
            whole = pd.concat([rest, table.reindex(columns=columns)], ignore_index=True)
            whole = whole.sort_values("k", kind="stable", ignore_index=True)
            whole.to_csv(OUT / "atlas.csv", index=False)
            cells = [c for c in doc["cells"] if c["k"] != k]
            cells += [{key: c[key] for key in c if key != "pairs"} for c in got]
            doc["cells"] = sorted(cells, key=lambda c: (c["k"], c["eps"]))
            doc["ks"] = sorted({*doc["ks"], k})
            doc["oracles"] = {n: conv for n, (_, conv) in ATLAS_ORACLES.items()}
            (OUT / "atlas.json").write_text(json.dumps(doc, indent=1) + "\n")
            print(
                f"k = {k}: {table['holds'].notna().sum()} of {len(table)} ordered pairs "
                f"decided; table {whole['holds'].notna().mean():.2%} of {len(whole)} "
                f"in {time.perf_counter() - t0:.0f} s",
                flush=True,
            )


def plot(cells: tuple[tuple[int, float], ...] = ((4, 1.0), (64, 4.0))) -> Path:
    """The Hasse diagrams of ``cells`` from the stored table, side by side (PNG)."""
    from matplotlib.figure import Figure

    from qifldp.refinement.graph import hasse_diagram, plot_refinement_graph

    table = pd.read_csv(OUT / "atlas.csv")
    fig = Figure(figsize=(8.5 * len(cells), 5.5))
    for ax, (k, eps) in zip(fig.subplots(1, len(cells)), cells, strict=True):
        cell = table[(table.k == k) & (table.eps == eps)]
        verdicts = {
            (r.a, r.b): None if pd.isna(r.holds) else bool(r.holds) for r in cell.itertuples()
        }
        plot_refinement_graph(hasse_diagram(list(ATLAS_ORACLES), verdicts), ax=ax, font_size=8)
        ax.set_title(f"k = {k}, eps = {eps:g} (A -> B: A ⊑ B; exact, no sampled data)")
    fig.tight_layout()
    path = OUT / "atlas_hasse.png"
    fig.savefig(path, dpi=100)
    return path


if __name__ == "__main__":
    if "--time-limit" in sys.argv:  # seconds per pair, e.g. to settle a boundary pair
        at = sys.argv.index("--time-limit")
        TIME_LIMIT = float(sys.argv[at + 1])
        del sys.argv[at : at + 2]
    if sys.argv[1:] == ["--plot"]:
        print(plot())
    elif sys.argv[1:2] == ["--extend"]:
        extend([int(a) for a in sys.argv[2:]] or KS)
    elif sys.argv[1:2] == ["--redecide"]:
        extend([int(a) for a in sys.argv[2:]] or KS, redecide=True)
    else:
        main([int(a) for a in sys.argv[1:]] or KS)
