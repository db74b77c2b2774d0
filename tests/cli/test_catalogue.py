"""The command line and the catalogue of protocols: every entry through ``leak``, the
``protocols`` listing, ``--help`` naming the protocols, bad specs naming the parameter."""

from __future__ import annotations

import json

import pytest

import qifldp as q
from qifldp.cli import main, parse_spec
from qifldp.protocols import CATALOGUE


def _json(capsys, *argv):
    code = main(["--json", *argv])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_catalogue_entry_is_accepted_by_leak(capsys, name):
    entry = CATALOGUE[name]
    spec = entry.spec(**entry.example)
    code, doc, err = _json(capsys, "leak", spec)
    assert code == 0, err
    C = entry.build(**entry.example).channel()
    assert doc["bayes_capacity"] == pytest.approx(q.bayes_capacity(C), rel=1e-12)
    assert doc["ldp_epsilon"] == pytest.approx(q.ldp_epsilon(C), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_alias_is_accepted_by_leak(capsys, name):
    entry = CATALOGUE[name]
    example = dict(entry.example)
    for alias in entry.aliases:
        fixed = entry.presets.get(alias, {})
        params = {k: v for k, v in example.items() if k not in fixed}
        spec = entry.spec(**params).replace(entry.name, alias.upper(), 1)
        code, doc, err = _json(capsys, "leak", spec)
        assert code == 0, (spec, err)
        C = q.protocol(alias, **params).channel()
        assert doc["bayes_capacity"] == pytest.approx(q.bayes_capacity(C), rel=1e-12)


def test_list_parameters_in_every_spelling():
    assert parse_spec("rsfd:ks=3x4,eps=1") == ("rsfd", {"ks": (3, 4), "eps": 1.0})
    assert parse_spec("rsfd:ks=3/4,eps=1") == ("rsfd", {"ks": (3, 4), "eps": 1.0})
    assert parse_spec("spl:ks=2 X 3 x 4,eps=1")[1]["ks"] == (2, 3, 4)
    assert parse_spec("rr:P=0.9/0.1;0.2/0.8")[1]["P"] == ((0.9, 0.1), (0.2, 0.8))
    assert parse_spec("pckv:d=50,ell=4,eps=1") == ("pckv", {"d": 50, "ell": 4, "eps": 1.0})


def test_rsfd_with_its_randomizer_in_a_spec_and_an_alias(capsys):
    _, a, _ = _json(capsys, "leak", "rsfd:ks=2x3,eps=1,randomizer=OUE-Z")
    _, b, _ = _json(capsys, "leak", "rsfd-oue-z:ks=2/3,eps=1")
    assert a["bayes_capacity"] == b["bayes_capacity"]
    C = q.protocol("rsfd", (2, 3), 1.0, randomizer="oue-z").channel()
    assert a["bayes_capacity"] == pytest.approx(q.bayes_capacity(C), rel=1e-12)


def test_todays_spellings_still_work(capsys):
    for spec in (
        "subset_selection:k=4,eps=1",
        "local_hashing:k=3,eps=1,g=2",
        "unary_encoding:k=3,p=0.75,q=0.25",
        "the_bit:eps=1,theta=0.8",
        "OUE:k=3,eps=1",
    ):
        code, _, err = _json(capsys, "leak", spec)
        assert code == 0, (spec, err)


def test_protocols_command_lists_the_catalogue(capsys):
    code, doc, _ = _json(capsys, "protocols")
    assert code == 0
    assert [p["name"] for p in doc["protocols"]] == list(CATALOGUE)
    for row in doc["protocols"]:
        assert {"name", "aliases", "parameters", "reference"} <= set(row)
        entry = CATALOGUE[row["name"]]
        assert row["aliases"] == list(entry.aliases)
        assert [p["name"] for p in row["parameters"]] == list(entry.names)
        assert row["reference"] == entry.reference
    assert main(["protocols"]) == 0
    text = capsys.readouterr().out
    assert all(entry.signature() in text for entry in CATALOGUE.values())


@pytest.mark.parametrize("command", ["leak", "refines", "compare"])
def test_help_names_every_protocol(capsys, command):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in CATALOGUE)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("pckv:d=x,eps=1", "parameter d must be an integer"),
        ("pckv:d=2,eps=1,zz=3", "zz"),
        ("pckv:eps=1", "needs parameter(s): d"),
        ("rsfd:ks=3xy,eps=1", "parameter ks must be an integer"),
        ("rr:P=0.9/x;0.1/0.9", "parameter P must be a number"),
        ("spl:ks=2/3,eps=nan", "parameter eps must be a number"),
        ("rsfd:ks=2/3,eps=1,randomizer=nope", "randomizer"),
        ("pckv:d=0,eps=1", "d"),
        ("nosuch:k=2", "unknown protocol 'nosuch'"),
    ],
)
def test_bad_specs_exit_2_naming_the_parameter(capsys, spec, words):
    assert main(["leak", spec]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_composite_protocols_are_compared_and_refined(capsys):
    # RR3 with a weaker diagonal is a post-processing of a stronger one: A ⊑ B
    a = "rr3:P=0.6/0.2/0.2;0.2/0.6/0.2;0.2/0.2/0.6"
    b = "rr3:P=0.5/0.25/0.25;0.25/0.5/0.25;0.25/0.25/0.5"
    code, doc, err = _json(capsys, "refines", a, b)
    assert code == 0, err
    assert doc["holds"] is True and len(doc["witness"]) == 3
    code, doc, err = _json(capsys, "compare", "--eps", "1", "pckv:d=2", "pckv-grr:d=2")
    assert code == 0, err
    assert [p["name"] for p in doc["protocols"]] == ["pckv:d=2", "pckv-grr:d=2"]
    assert not doc["skipped"]


@pytest.mark.parametrize("command", [["protocols"], ["audit", "qif.eq25"]])
def test_a_reader_that_stops_early_gets_no_traceback(command):
    # ``qifldp protocols | head -1``, ``qifldp audit | head -1``: stdout is a pipe whose
    # reader has already gone, so the first write fails with EPIPE; the command exits 0
    # without a traceback
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "qifldp", *command],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
            timeout=120,
        )
    finally:
        os.close(write_end)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
