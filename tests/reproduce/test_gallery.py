"""The README gallery: every image it shows exists as a small PNG, and its numbers hold."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from qifldp.reproduce import figure_6

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "docs" / "gallery"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Largest gallery image committed (bytes).
MAX_BYTES = 200_000


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Gallery\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def test_gallery_images_exist_are_small_pngs_and_all_shown():
    section = _section()
    links = re.findall(r"!\[[^\]]+\]\((docs/gallery/[^)]+\.png)\)", section)
    assert len(links) == 14 and len(set(links)) == 14
    for link in links:
        raw = (ROOT / link).read_bytes()
        assert raw.startswith(PNG_SIGNATURE), link
        assert 10_000 < len(raw) < MAX_BYTES, (link, len(raw))
    on_disk = {f"docs/gallery/{p.name}" for p in GALLERY.glob("*.png")}
    assert on_disk == set(links)  # nothing committed that the README does not show
    # one line per image, saying what it shows
    for line in section.splitlines():
        if "](docs/gallery/" in line:
            assert line.startswith("- ") and " — " in line


def test_gallery_numbers_match_figure_6(tmp_path):
    fig = figure_6(tmp_path, quick=True)
    ss, olh = fig.series["coincide"]["SS"], fig.series["coincide"]["OLH"]
    section = _section()
    assert f"SS = GRR exactly from eps = {ss['equal_from']:.3f}" in section
    assert f"within 1% of OUE from eps = {olh['close_from']:.2f}" in section
    # independent: omega = round(50 / (e^eps + 1)) is 1 exactly for eps > ln(2k/3 - 1)
    assert abs(ss["equal_from"] - np.log(2 * 50 / 3 - 1)) < 1e-3


def test_the_seven_oracle_maps_counts_match_their_table():
    import pandas as pd

    table = pd.read_csv(GALLERY / "maps_seven.csv")
    pairs = {tuple(p) for p in table[["A", "B"]].itertuples(index=False)}
    assert len(pairs) == 21 and len(table) == 21 * 35  # 7 k x 5 eps per pair
    assert (table["relation"] != "undecided").all()
    assert f"every one of the {len(table)} points decided" in _section()
    # OLH ⊑ THE(θ*) at eps = 2 (k up to 10^4): the bitwise lifting's witness, not up to rounding
    cells = table[(table["A"] == "olh") & (table["B"] == "the*") & (table["eps"] == 2.0)]
    assert sorted(cells["k"].tolist()) == [2, 5, 10, 50, 200, 1000, 10_000]
    assert (cells["relation"] == "A⊑B").all() and not cells["ab_up_to_rounding"].any()
    assert cells["ab_certified_by"].str.startswith("bitwise lifting (QIF paper, Lemma 4)").all()
