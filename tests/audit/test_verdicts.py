"""The RECONSTRUCTED verdict and the Markdown report."""

from __future__ import annotations

import re

import pytest

from qifldp import audit as A
from qifldp.cli import main
from qifldp.errors import VerificationError


def test_reconstructed_replaces_confirmed():
    c = A.Claim("t.r", "A claim.", "s", lambda: (A.CONFIRMED, "Numbers."), ("qif",), "How.")
    r = c.check()
    assert r.verdict == A.RECONSTRUCTED == "reconstructed"
    assert r.details == "Numbers. Reconstruction: How."
    # a failure against a reconstruction stays a failure, with the reconstruction stated
    c = A.Claim("t.r", "A claim.", "s", lambda: (A.REFUTED, "Numbers."), ("qif",), "How.")
    assert c.check().verdict == A.REFUTED and "Reconstruction: How." in c.check().details
    # nobody may say "reconstructed" without registering the reconstruction
    with pytest.raises(VerificationError, match="registers no reconstruction"):
        A.Claim("t.r", "A claim.", "s", lambda: (A.RECONSTRUCTED, "")).check()
    assert A.VERDICTS.index(A.RECONSTRUCTED) == A.VERDICTS.index(A.CONFIRMED) + 1


def test_reconstructed_claims_are_those_with_lost_formulas():
    lost = {c.key for c in A.CLAIMS if c.reconstructed}
    assert lost == {
        "pckv.theorem3",
        "pckv.theorem4",
        "pckv.lemma2",
        "pckv.eq21",
        "risks.eq4",
        "risks.eq5",
        "risks.fig1_acc_ss",
        "risks.fig1a_highest",  # Fig. 1's ACC^U is Eq. 4
        "pckv.lemma2_interpretation",  # Eq. (4) of PCKV
    }
    for key in lost:
        assert "not legible in the paper" in A.get_claim(key).reconstructed


def test_pckv_theorem3_says_reconstructed():
    r = A.get_claim("pckv.theorem3").check()
    assert r.verdict == A.RECONSTRUCTED and "confirmed" not in r.verdict


def _cells(line):
    """Cells of one Markdown table row, splitting on pipes not escaped with a backslash."""
    assert line.startswith("| ") and line.endswith(" |")
    return [c.strip() for c in re.split(r"(?<!\\)\|", line[1:-1])]


def _table(md):
    lines = md.splitlines()
    rows = [ln for ln in lines if ln.startswith("|")]
    header, sep, body = rows[0], rows[1], rows[2:]
    assert re.fullmatch(r"\|(---\|)+", sep)
    return _cells(header), [_cells(r) for r in body]


def test_markdown_table_one_row_per_claim():
    fake = [
        A.AuditResult(
            "a.x",
            "Claim | with pipe.",
            "Gonze et al. (CSF 2026), Lemma 1",
            A.REFUTED,
            "Line\nbreak | pipe.",
            0.0,
            ("qif",),
        ),
        A.AuditResult(
            "b.y",
            "Other.",
            "Gu et al. (USENIX Security 2020), Thm 2",
            A.RECONSTRUCTED,
            "D.",
            0.0,
            ("pckv",),
        ),
    ]
    md = A.format_markdown(fake)
    header, rows = _table(md)
    assert header == ["#", "key", "claim", "source", "verdict", "details"]
    assert [len(r) for r in rows] == [6, 6]
    assert rows[0][2] == "Claim \\| with pipe." and rows[0][5] == "Line break \\| pipe."
    assert [r[4] for r in rows] == ["refuted", "reconstructed"]
    assert "**References**" in md and A.BIBLIOGRAPHY["pckv"].full in md
    assert md.endswith("2 claims: 1 reconstructed, 1 refuted")
    header, rows = _table(A.format_markdown(fake, details=False))
    assert header == ["#", "key", "claim", "source", "verdict"]


def test_cli_markdown_subset(capsys):
    assert main(["audit", "--markdown", "qif.eq25", "pckv.theorem3", "rr3.sections_3_4"]) == 0
    out = capsys.readouterr().out
    header, rows = _table(out)
    assert len(rows) == 3 and header[3] == "source"
    assert [r[1] for r in rows] == ["`qif.eq25`", "`pckv.theorem3`", "`rr3.sections_3_4`"]
    assert [r[4] for r in rows] == ["refuted", "reconstructed", "inconclusive"]
    assert rows[1][3] == "Gu et al. (USENIX Security 2020), Theorem 3 (Eq. 6)"
    assert "claim:" not in out  # no text report mixed in


def test_cli_markdown_file_with_json(tmp_path, capsys):
    import json

    path = tmp_path / "audit.md"
    assert main(["--json", "audit", "--markdown-file", str(path), "rr3.remark4"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["claims"][0]["verdict"] == "confirmed"
    assert doc["references"] == {"rr3": A.BIBLIOGRAPHY["rr3"].full}
    _, rows = _table(path.read_text(encoding="utf-8"))
    assert len(rows) == 1 and rows[0][1] == "`rr3.remark4`"


def test_cli_markdown_stdout_clashes_with_json(capsys):
    assert main(["--json", "audit", "--markdown", "qif.eq25"]) == 2
    assert "--markdown-file" in capsys.readouterr().err
