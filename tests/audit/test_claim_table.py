"""The claims are data: one row of qifldp/audit/claims.json each, bound to its check by key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qifldp import audit as A
from qifldp.audit import _core, multidim_risks, pckv
from qifldp.errors import InputTypeError, ParameterError, VerificationError

TABLE = json.loads((Path(A.__file__).parent / "claims.json").read_text(encoding="utf-8"))


def test_every_row_is_one_registered_claim_in_table_order():
    rows = TABLE["claims"]
    keys = [row["key"] for row in rows]
    assert len(keys) == len(set(keys)) == len(A.CLAIMS) >= 52
    # the registry prints paper by paper (bibliography order), each paper in table order
    papers = list(A.BIBLIOGRAPHY)
    expected = sorted(keys, key=lambda k: papers.index(k.split(".")[0]))
    assert [c.key for c in A.CLAIMS] == expected
    for row in rows:
        c = A.get_claim(row["key"])
        assert row["key"].startswith(row["paper"] + ".")
        assert c.claim == row["statement"] and c.claim.endswith(".")
        places = [(row["paper"], row["where"]), *map(tuple, row.get("also", ()))]
        assert c.source == "; ".join(f"{A.BIBLIOGRAPHY[p].cite}, {w}" for p, w in places)
        assert c.references == tuple(dict.fromkeys(p for p, _ in places))
        texts = [TABLE["reconstructions"][r] for r in row.get("reconstructed", ())]
        assert c.reconstructed == (" ".join(texts) or None)


def test_rows_with_an_argument_share_one_check():
    # the five attacker accuracies of Sec. 3.2.1 are one procedure called with the oracle
    accs = [row for row in TABLE["claims"] if row["key"].startswith("risks.acc_")]
    assert [row["argument"] for row in accs] == ["grr", "olh", "ss", "sue", "oue"]
    procs = [A.get_claim(row["key"]).procedure for row in accs]
    assert len({p.func for p in procs}) == 1
    assert [p.args for p in procs] == [(row["argument"],) for row in accs]


def test_reconstructions_are_the_tables_text():
    recon = TABLE["reconstructions"]
    assert pckv.EQ6_RECONSTRUCTION == recon["pckv.eq6"]
    assert pckv.ALLOCATION_RECONSTRUCTION == recon["pckv.allocation"]
    assert multidim_risks.EQ4_RECONSTRUCTION == recon["risks.eq4"]
    r = A.get_claim("risks.fig1_acc_ss").check()
    assert r.verdict == A.REFUTED
    assert r.details.endswith(f"Reconstruction: {recon['risks.eq4']} {recon['risks.eq5']}")
    with pytest.raises(ParameterError, match="unknown reconstruction 'risks.nope'"):
        _core.reconstruction("risks.nope")
    with pytest.raises(InputTypeError, match="name must be a string naming a reconstruction"):
        _core.reconstruction(4)


def test_binding_rules(monkeypatch):
    with pytest.raises(ParameterError, match="at least one claim key"):
        _core.checks()
    with pytest.raises(ParameterError, match="bound to a check twice"):
        _core.checks("qif.lemma1")
    # a row left without its check, or a check without a row, stops the registration
    unbound = dict(_core._CHECKS)
    del unbound["rr3.eq6"]
    monkeypatch.setattr(_core, "_CHECKS", unbound)
    with pytest.raises(VerificationError, match=r"rows without a check \['rr3.eq6'\]"):
        _core._register_table()
    extra = {**_core._CHECKS, "rr3.eq6": print, "rr3.unlisted": print}
    monkeypatch.setattr(_core, "_CHECKS", extra)
    with pytest.raises(VerificationError, match=r"checks without a row \['rr3.unlisted'\]"):
        _core._register_table()
