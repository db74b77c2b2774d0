"""The issue's four comparability maps at k up to 10^4 (symmetric channels), run once.

Writes ``docs/gallery/map_<a>_<b>.csv`` (the table with its certificate columns) and
``.png`` (regions by relation, undecided hatched) for SUE vs OUE, GRR vs SS, OLH vs OUE
and THE(θ*) vs OUE. Not run by CI: minutes on 2 cores (each point at most
``TIME_LIMIT`` seconds per direction). Usage: ``python benchmarks/maps_large.py [name ...]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import qifldp as q
from qifldp.plotting import comparability_figure

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


def main(names: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
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
