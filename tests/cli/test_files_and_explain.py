"""Channel files wherever a protocol spec goes; refines with symmetric specs; explanations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import qifldp as q
from qifldp import formulas
from qifldp.cli import is_channel_file, main
from qifldp.errors import InputTypeError


def _grr_capacity(k: int, eps: float) -> float:
    # GRR: sum_y max_x C[x, y] = k e^eps / (e^eps + k - 1)
    return k * math.exp(eps) / (math.exp(eps) + k - 1)


@pytest.fixture()
def files(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.json"
    c = tmp_path / "c.npy"
    q.write_channel(q.Channel(q.grr(3, 1.0).matrix, outputs=("u", "v", "w")), a)
    q.write_channel(q.grr(3, 2.0), b)
    np.save(c, q.grr(3, 0.5).matrix)
    return {"a": str(a), "b": str(b), "c": str(c), "dir": tmp_path}


def _json(capsys, *argv):
    rc = main(["--json", *argv])
    out = capsys.readouterr()
    return rc, (json.loads(out.out) if rc == 0 else None), out.err


@pytest.mark.parametrize(("key", "eps"), [("a", 1.0), ("b", 2.0), ("c", 0.5)])
def test_leak_reads_every_file_format(files, capsys, key, eps):
    rc, out, _ = _json(capsys, "leak", files[key])
    assert rc == 0
    assert out["bayes_capacity"] == pytest.approx(_grr_capacity(3, eps))
    assert out["ldp_epsilon"] == pytest.approx(eps)
    assert out["asr"] == pytest.approx(_grr_capacity(3, eps) / 3)
    assert "read from a file" in out["channel"]


def test_refines_files_and_mixed_with_a_spec(files, capsys):
    rc, out, _ = _json(capsys, "refines", files["b"], files["a"])
    assert rc == 0 and out["holds"] is True
    W = np.array(out["witness"])
    A, B = q.grr(3, 2.0).matrix, q.grr(3, 1.0).matrix
    assert np.abs(A @ W - B).max() < 1e-7
    assert out["explanation"]["kind"] == "witness"
    assert out["explanation"]["nonzeros"] == int((W > 1e-9).sum())
    # a file against a protocol spec (same inputs 0..2)
    rc, out, _ = _json(capsys, "refines", files["a"], "grr:k=3,eps=2")
    assert rc == 0 and out["holds"] is False
    ex = out["explanation"]
    gain, prior = np.array(out["counterexample"]["gain"]), np.array(out["counterexample"]["prior"])
    gap = q.g_vulnerability(q.grr(3, 2.0), gain, prior) - q.g_vulnerability(
        q.grr(3, 1.0), gain, prior
    )
    assert ex["gap"] == pytest.approx(gap, abs=1e-12)
    assert ex["vulnerability_b"] - ex["vulnerability_a"] == pytest.approx(gap, abs=1e-12)
    assert files["a"] in ex["summary"] and "grr:k=3,eps=2" in ex["summary"]
    # the file's output labels appear in the account
    assert {r["output"] for r in ex["actions"]["A"]} == {"u", "v", "w"}


def test_refines_text_prints_the_explanation(files, capsys):
    assert main(["refines", files["c"], files["a"]]) == 0
    text = capsys.readouterr().out
    assert text.startswith("RefinementResult(A ⋢ B: fails)")
    assert "In short: An adversary who wants to guess the secret in one try gains" in text
    assert "y = u" in text


def test_compare_accepts_files(files, capsys):
    rc, out, _ = _json(capsys, "compare", "--k", "3", files["a"], files["b"], files["c"])
    assert rc == 0
    caps = {r["name"]: r["bayes_capacity"] for r in out["protocols"]}
    assert caps[files["b"]] == pytest.approx(_grr_capacity(3, 2.0))
    # GRR(2) ⊑ GRR(1) ⊑ GRR(0.5): a chain, as the Hasse diagram
    assert sorted(map(tuple, out["edges"])) == sorted(
        [(files["b"], files["a"]), (files["a"], files["c"])]
    )


def _bad(capsys, *argv):
    rc = main(list(argv))
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qifldp: error: ")
    return lines[0]


def test_bad_files_exit_2_with_one_line(files, capsys):
    d = files["dir"]
    assert "no such file" in _bad(capsys, "leak", str(d / "missing.csv"))
    ragged = d / "ragged.csv"
    ragged.write_text(",a,b\n0,0.5,0.5\n1,0.5\n")
    assert "ragged.csv" in _bad(capsys, "leak", str(ragged))
    text = d / "text.json"
    text.write_text("{not json")
    assert "text.json" in _bad(capsys, "refines", str(text), files["a"])
    folder = d / "folder.csv"
    folder.mkdir()
    assert "directory" in _bad(capsys, "leak", str(folder))
    far = d / "far.csv"
    far.write_text(",a,b\n0,0.4,0.4\n1,0.5,0.5\n")
    assert "far.csv" in _bad(capsys, "leak", "--renormalize", str(far))


def test_rounded_rows_need_renormalize(files, capsys):
    rounded = files["dir"] / "rounded.csv"
    rounded.write_text(",a,b,c\n0,0.333,0.333,0.333\n1,0.333,0.333,0.333\n2,0.333,0.333,0.333\n")
    assert "renormalize" in _bad(capsys, "leak", str(rounded))
    rc, out, _ = _json(capsys, "leak", "--renormalize", str(rounded))
    assert rc == 0 and out["bayes_capacity"] == pytest.approx(1.0)
    assert "channel files" in _bad(capsys, "leak", "--renormalize", "grr:k=3,eps=1")
    assert "same inputs" in _bad(capsys, "refines", files["a"], "grr:k=4,eps=1")
    assert "pass --k" in _bad(capsys, "compare", files["a"], "grr")


def test_refines_symmetric_specs_end_to_end(capsys):
    # k = 100: no explicit channel (2^100 outputs); the symmetric route decides
    rc, out, _ = _json(capsys, "refines", "sue:k=100,eps=1", "oue:k=100,eps=1")
    assert rc == 0 and out["holds"] is False
    # the identity gain: gap = (ML(OUE) - ML(SUE)) / k, from the closed forms
    gap = (formulas.bayes_capacity_oue(100, 1.0) - formulas.bayes_capacity_sue(100, 1.0)) / 100
    assert out["counterexample"]["gap"] == pytest.approx(gap, rel=1e-9)
    ex = out["explanation"]
    assert ex["kind"] == "symmetric counterexample" and ex["k"] == 100
    assert ex["gap"] == pytest.approx(gap, rel=1e-9)
    assert ex["goal"] == "to guess the secret in one try"
    assert main(["refines", "sue:k=100,eps=1", "oue:k=100,eps=1"]) == 0
    text = capsys.readouterr().out
    assert "In short: An adversary who wants to guess the secret in one try" in text


def test_is_channel_file(tmp_path):
    assert is_channel_file("x.CSV") and is_channel_file("dir/x.npy")
    assert not is_channel_file("grr:k=3,eps=1") and not is_channel_file("grr")
    plain = tmp_path / "mychannel"
    plain.write_text("0")
    assert is_channel_file(str(plain))
    with pytest.raises(InputTypeError, match="spec must be a string"):
        is_channel_file(3)
