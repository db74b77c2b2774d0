"""Every count the README states is checked against what it counts (issue 22): no typed number
drifts from the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_claim_count_is_the_audit_registry():
    from qifldp import audit

    text = (ROOT / "README.md").read_text()
    counts = [int(n) for n in re.findall(r"\b(\d+) (?:published |registered )?claims\b", text)]
    assert counts, "the README states how many claims the audit recomputes"
    assert set(counts) == {len(audit.CLAIMS)}, (counts, len(audit.CLAIMS))


def test_readme_gallery_and_reproduce_counts():
    from qifldp.reproduce import reproduce

    text = (ROOT / "README.md").read_text()
    # "Figs. 1-7": the figures reproduce makes, by its default
    (first, last) = re.search(r"Figs\. (\d+)-(\d+): PNG, PDF, SVG", text).groups()
    default = reproduce.__defaults__[3]  # out, quick, data, which
    assert list(default) == list(range(int(first), int(last) + 1))


def test_readme_atlas_counts_are_the_stored_table():
    import pandas as pd

    text = (ROOT / "README.md").read_text()
    found = re.search(
        r"the (\d+) frequency oracles of the catalogue.*?([\d,]+) of ([\d,]+) ordered pairs "
        r"decided \(([\d.]+) %; every pair at k ≤ (\d+); (\d+) of them",
        text,
    )
    assert found, "the README's atlas entry states its counts"
    n_oracles, decided, total, share, k_full, boundary = found.groups()
    table = pd.read_csv(ROOT / "docs" / "gallery" / "atlas.csv")
    assert int(n_oracles) == len(set(table["a"]))
    assert int(decided.replace(",", "")) == int(table["holds"].notna().sum())
    assert int(total.replace(",", "")) == len(table)
    assert float(share) == round(100 * table["holds"].notna().mean(), 1)
    full = table.groupby("k")["holds"].apply(lambda s: bool(s.notna().all()))
    assert int(k_full) == max(k for k in full.index if full.loc[:k].all())
    rounding = (
        table["holds"].eq(False)
        & table["certified_by"].fillna("").str.contains("in rational arithmetic on the stored")
        & (table["gap"].abs() < 1e-12)
    )
    assert int(boundary) == int(rounding.sum())


def test_readme_inventory_counts_are_the_inventory():
    from qifldp.audit import inventory

    text = " ".join((ROOT / "README.md").read_text().split())
    named = {
        "QIF paper": "qif",
        "PCKV": "pckv",
        "three-answer RR": "rr3",
        "multidimensional risks": "risks",
    }
    for words, paper in named.items():
        m = re.search(rf"{words} (\d+)(?: statements)?", text)
        assert m, words
        assert int(m.group(1)) == len(inventory.entries(paper)), (paper, m.group(1))
