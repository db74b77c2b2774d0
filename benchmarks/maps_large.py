"""Comparability maps at k up to 10^4 (symmetric channels), run once.

Writes ``docs/gallery/map_<a>_<b>.csv`` (the table with its certificate columns) and
``.png`` (regions by relation, undecided hatched) for SUE vs OUE, GRR vs SS, OLH vs OUE
and THE(θ*) vs OUE. ``seven`` maps every pair of the seven oracles (GRR, SS, BLH, OLH,
SUE, OUE, THE(θ*)): the 21 tables in one ``docs/gallery/maps_seven.csv`` (columns ``A``
and ``B`` added) and their panels in ``maps_seven.png``. Not run by CI: minutes on 2 cores
(each point at most ``TIME_LIMIT`` seconds per direction). Usage:
``python benchmarks/maps_large.py [name ... | seven]``.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

import qifldp as q
from qifldp.plotting import RELATION_COLORS, comparability_figure, relation_handles

KS = [2, 5, 10, 50, 200, 1000, 10_000]
EPSS = [0.1, 2.0, 4.0, 8.0, 12.0]
TIME_LIMIT = 30.0
OUT = Path(__file__).resolve().parent.parent / "docs" / "gallery"


def the_star(k: int, eps: float):
    """THE at Lemma 10's threshold theta*(eps), as a symmetric channel."""
    theta = float(q.formulas.the_oue_threshold(eps))
    return q.protocol("the", k, eps, theta=theta).symmetric()


MAPS = {
    "sue_oue": ("sue", "oue", "SUE vs OUE (A = SUE, B = OUE)"),
    "grr_ss": ("grr", "ss", "GRR vs SS (A = GRR, B = SS)"),
    "olh_oue": ("olh", "oue", "OLH vs OUE (A = OLH, B = OUE)"),
    "the_oue": (the_star, "oue", "THE(θ*) vs OUE (A = THE(θ*), B = OUE)"),
}


SEVEN = {"grr": "grr", "ss": "ss", "blh": "blh", "olh": "olh", "sue": "sue", "oue": "oue"}
SEVEN["the*"] = the_star


def seven() -> None:
    """Every pair of the seven oracles: one table and one figure of 21 panels."""
    tables = []
    pairs = list(itertools.combinations(SEVEN, 2))
    rows = -(-len(pairs) // 7)
    fig = Figure(figsize=(26, 4.4 * rows), layout="constrained")
    axes = fig.subplots(rows, 7, squeeze=False).ravel()
    for spare in axes[len(pairs) :]:
        spare.set_axis_off()
    t_all = time.perf_counter()
    for ax, (a, b) in zip(axes, pairs, strict=False):
        t0 = time.perf_counter()
        table = q.comparability_map(
            SEVEN[a],
            SEVEN[b],
            KS,
            EPSS,
            representation="symmetric",
            time_limit=TIME_LIMIT,
            progress=False,
        )
        seconds = time.perf_counter() - t0
        comparability_figure(table, title=f"A = {a.upper()}, B = {b.upper()}", ax=ax, legend=False)
        table.insert(0, "B", b)
        table.insert(0, "A", a)
        tables.append(table)
        counts = table["relation"].value_counts().to_dict()
        print(f"{a} vs {b}: {len(table)} points in {seconds:.0f} s: {counts}", flush=True)
    seconds = time.perf_counter() - t_all
    fig.suptitle(f"The seven oracles pairwise, symmetric channels, {seconds:.0f} s")
    whole = pd.concat(tables, ignore_index=True)
    handles = relation_handles([r for r in RELATION_COLORS if (whole["relation"] == r).any()])
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))
    whole.to_csv(OUT / "maps_seven.csv", index=False)
    fig.savefig(OUT / "maps_seven.png", dpi=80, bbox_inches="tight")
    print(
        f"seven: {len(whole)} points in {seconds:.0f} s: "
        f"{whole['relation'].value_counts().to_dict()}",
        flush=True,
    )


def main(names: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    if names == ["seven"]:
        seven()
        return
    for name in names or list(MAPS):
        a, b, title = MAPS[name]
        t0 = time.perf_counter()
        table = q.comparability_map(
            a, b, KS, EPSS, representation="symmetric", time_limit=TIME_LIMIT, progress=False
        )
        seconds = time.perf_counter() - t0
        table.to_csv(OUT / f"map_{name}.csv", index=False)
        fig = comparability_figure(table, title=f"{title}, symmetric channels, {seconds:.0f} s")
        fig.savefig(OUT / f"map_{name}.png", dpi=110, bbox_inches="tight")
        counts = table["relation"].value_counts().to_dict()
        print(f"{name}: {len(table)} points in {seconds:.0f} s: {counts}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
