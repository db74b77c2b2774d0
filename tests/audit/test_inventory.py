"""The per-paper inventory (qifldp.audit.inventory): every numbered statement of the four
papers has an entry, every claim is listed, and each entry has claims or a reason.

The numbered statements below are read from the papers' text extractions by hand (the QIF
paper's Lemmas 6-8 and Corollaries 1-2 are in its text by order only); where the text
extractions are present (/work/shared/papers) the labels are also re-derived from them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qifldp import audit as A
from qifldp.audit import inventory as I
from qifldp.errors import VerificationError

PAPERS = Path("/work/shared/papers")
FILES = {
    "pckv": "000_5eaa4ce4a3620db6.txt",
    "rr3": "001_b2891de2a5e5cc5b.txt",
    "qif": "002_a9f9700a98e16885.txt",
    "risks": "003_30d340390ed9fcff.txt",
}
BY_HAND = {
    "qif": [f"Lemma {i}" for i in range(1, 12)]
    + [f"Corollary {i}" for i in (1, 2, 3)]
    + ["Definition 7", "Definition 10"]
    + [f"Fig. {i}" for i in range(1, 8)]
    + ["Eq. (18)", "Eq. (24)", "Eq. (25)"],
    "pckv": [f"Theorem {i}" for i in range(1, 5)]
    + ["Lemma 1", "Lemma 2"]
    + [f"Algorithm {i}" for i in range(1, 5)]
    + [f"Fig. {i}" for i in range(1, 5)]
    + ["Eq. (21)"],
    "rr3": [f"Definition {i}" for i in range(1, 6)]
    + [f"Remark {i}" for i in range(1, 10)]
    + ["Fig. 1", "Eq. (6)"],
    "risks": ["Fig. 1", "Eq. (4)", "Eq. (5)", "Eq. (2)"],
}


def _places(paper):
    return " | ".join(s.place for s in I.entries(paper))


@pytest.mark.parametrize("paper", list(BY_HAND))
def test_every_numbered_statement_has_an_entry(paper):
    places = _places(paper)
    missing = [lbl for lbl in BY_HAND[paper] if not re.search(rf"{re.escape(lbl)}(?!\d)", places)]
    assert not missing, missing
    assert set(I.numbered(paper)) <= set(BY_HAND[paper])


@pytest.mark.skipif(not PAPERS.is_dir(), reason="the papers' text extractions are not here")
@pytest.mark.parametrize("paper", list(FILES))
def test_numbered_statements_of_the_text_are_listed(paper):
    text = (PAPERS / FILES[paper]).read_text(encoding="utf-8")
    derived = I.numbered_labels(text)
    assert set(derived) <= set(I.numbered(paper)), set(derived) - set(I.numbered(paper))
    # the appendix of the QIF paper refers to its lemmas as "See N"
    if paper == "qif":
        seen = {f"Lemma {n}" for n in re.findall(r"^See (\d+)$", text, flags=re.M)}
        assert seen and seen <= set(I.numbered(paper))


def test_every_claim_is_in_the_inventory_and_entries_are_well_formed():
    listed = {k for s in I.entries() for k in s.claims}
    assert listed == {c.key for c in A.CLAIMS if c.references[0] in FILES}
    for s in I.entries():
        assert bool(s.claims) != bool(s.reason), s
        assert s.statement and s.place and s.section
    assert [s.paper for s in I.entries()] == sorted(
        (s.paper for s in I.entries()), key=list(A.BIBLIOGRAPHY).index
    )


def test_counts_per_paper():
    for paper in FILES:
        rows = I.entries(paper)
        checked = sum(bool(s.claims) for s in rows)
        assert I.summary(paper) == (
            f"{paper}: {len(rows)} statements, {checked} checked by claims, "
            f"{len(rows) - checked} not checkable"
        )
    assert len(I.entries()) == sum(len(I.entries(p)) for p in FILES)


def test_a_claim_left_out_of_the_inventory_is_refused(monkeypatch):
    rows = {p: I.entries(p) for p in FILES}
    rows["qif"] = tuple(s for s in rows["qif"] if "qif.meet" not in s.claims)
    monkeypatch.setattr(I, "_all", lambda: rows)
    with pytest.raises(VerificationError, match="qif.meet"):
        I._check()


def test_an_entry_with_both_claims_and_reason_is_refused(monkeypatch):
    bad = I.Statement("qif", "I", "Lemma 1", "x.", ("qif.lemma1",), "because")
    rows = {p: I.entries(p) for p in FILES}
    rows["qif"] = (bad, *rows["qif"])
    monkeypatch.setattr(I, "_all", lambda: rows)
    with pytest.raises(VerificationError, match="claims or a reason"):
        I._check()


def test_format_inventory_shows_reasons_and_keys():
    text = I.format_inventory([])
    assert text.startswith("Per-paper inventory")
    assert "not checkable: about real-world data" in text
    assert "qif.lemma4, qif.lemma4_converse" in text  # no verdicts given: the keys
