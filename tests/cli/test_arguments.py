"""Issue 8, CLI bullet and reproducer 9: every bad argument exits 2 with a message,
files are checked before any computation, JSON has no "inf" strings, leak picks the
cheap representation and states units, --version, and a light ``import qifldp``."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import qifldp as q
from qifldp import cli, formulas as F
from qifldp.cli import (
    audit as audit_command,
    compare as compare_command,
    main,
    output,
    reproduce as reproduce_command,
)

BAD = [
    (["leak", "nosuch:k=3,eps=1"], "unknown protocol 'nosuch'"),
    (["leak", "grr:k=1,eps=1"], "k"),
    (["leak", "grr:k=2.5,eps=1"], "k must be an integer"),
    (["leak", "grr:k=3,eps=-1"], "eps"),
    (["leak", "grr:k=3,eps=nan"], "eps must be a number"),
    (["leak", "oue:k=3,eps=NaN"], "eps must be a number"),
    (["leak", "the:k=3,eps=1,theta=1.2"], "theta"),
    (["leak", "grr:k=3,eps="], "eps must be a number"),
    (["leak", "grr:k=3,eps"], "expected key=value"),
    (["leak", "grr:k=3"], "needs parameter"),
    (["leak", "oue:k=3,k=4,eps=1"], "parameter k is given twice"),
    (["leak", "grr:k=3,eps=1,zz=2"], "unknown parameter"),
    (["leak"], "spec"),
    (["refines", "grr:k=3,eps=1", "grr:k=4,eps=1"], "inputs|rows"),
    (["refines", "grr:k=3,eps=1"], "spec_b"),
    (["compare", "--k", "1"], "k"),
    (["compare", "--k", "2.5"], "--k: expected a whole number, got .2.5."),
    (["leak", "grr:k=2.5e0,eps=1"], "k must be an integer: expected a whole number"),
    (["compare", "--k", "1e30"], "beyond 2\\^53"),
    (["compare", "--eps", "-1"], "eps"),
    (["compare", "--eps", "nan"], "--eps must be a finite number"),
    (["compare", "--eps", "inf"], "--eps must be a finite number"),
    (["compare", "--time-limit", "0"], "--time-limit must be a positive"),
    (["compare", "--time-limit", "-3"], "--time-limit must be a positive"),
    (["compare", "--time-limit", "inf"], "--time-limit must be a positive finite number"),
    (["compare", "--max-lp-variables", "-1"], "--max-lp-variables must be >= 0"),
    (["compare", "grr", "grr"], "named twice"),
    (["compare", "--k", "4", "grr:k=3", "sue"], "same number of inputs"),
    (["compare", "--k", "3", "the:theta=1.2"], "theta"),
    (["compare", "--plot", "/no/such/folder/hasse.png"], "does not exist"),
    (["compare", "--plot", "hasse.txt"], "must end in"),
    (["reproduce", "--data", "/no/such/kosarak.dat"], "no such file"),
    (["reproduce", "--figures", "8"], "argument --figures: invalid choice: 8"),
    (["reproduce", "--figures", "0", "1"], "argument --figures: invalid choice: 0"),
    (["audit", "--markdown-file", "/no/such/folder/claims.md"], "--markdown-file .*does not exist"),
    (["audit", "--markdown-file", "."], "--markdown-file .: is a folder"),
    (["compare", "--plot", "/"], "--plot /: is a folder"),
    (["nosuchcommand"], "invalid choice"),
]


@pytest.mark.parametrize(("argv", "pattern"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_exit_2_with_a_message(argv, pattern, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    import re

    assert re.search(pattern, err), err


def test_files_are_checked_before_any_computation(monkeypatch, capsys, tmp_path):
    def boom(*args, **kwargs):
        raise AssertionError("computation started before the file check")

    monkeypatch.setattr(compare_command, "_resolve", boom)
    assert main(["compare", "--plot", str(tmp_path / "missing" / "h.png")]) == 2
    monkeypatch.setattr(reproduce_command, "reproduce", boom)
    assert main(["reproduce", "--quick", "--data", str(tmp_path / "none.dat")]) == 2
    monkeypatch.setattr(audit_command, "audit", boom)
    assert main(["audit", "--markdown-file", str(tmp_path / "missing" / "a.md")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "no such file" in err
    assert "--markdown-file" in err


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"qifldp {q.__version__}"


def test_json_uses_null_for_infinity_everywhere():
    # every command's document goes through one encoder: check it on the shapes they use
    doc = {
        "x": math.inf,
        "y": [1.0, -math.inf, float("nan")],
        "z": {"gap": __import__("numpy").float64("inf")},
        "w": __import__("numpy").array([0.5, math.inf]),
    }
    text = json.dumps(output._jsonable(doc), allow_nan=False)
    assert json.loads(text) == {
        "x": None,
        "y": [1.0, None, None],
        "z": {"gap": None},
        "w": [0.5, None],
    }


def test_leak_infinite_epsilon_is_null(capsys):
    # UE with p = 1: bit 1 is never flipped to 0, so the column of the all-zero report
    # is 0 on every input... and a column mixing 0 and > 0 entries has epsilon = inf
    assert main(["--json", "leak", "ue:k=3,p=1,q=0.5"]) == 0
    out = capsys.readouterr().out
    assert "Infinity" not in out and '"inf"' not in out
    doc = json.loads(out)
    assert doc["ldp_epsilon"] is None
    assert math.isinf(q.ldp_epsilon(q.unary_encoding(3, 1.0, 0.5)))


def test_reproducer_9_leak_grr_10000_goes_symmetric(capsys):
    # issue 8 reproducer 9: leak grr:k=10000 built a 10^8-entry explicit matrix (1.75 GB)
    assert main(["--json", "leak", "grr:k=10000,eps=1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["channel"].startswith("symmetric")
    k, e = 10_000, math.e
    assert doc["bayes_capacity"] == pytest.approx(k * e / (e + k - 1), rel=1e-12)  # GRR closed form
    assert doc["min_entropy_leakage"] == pytest.approx(math.log2(k * e / (e + k - 1)), rel=1e-12)
    # below the command line's cap the explicit channel answers
    assert main(["--json", "leak", "grr:k=1000,eps=1"]) == 0
    assert json.loads(capsys.readouterr().out)["channel"] == "explicit channel, 1000 x 1000"
    assert 1000 * 1000 <= cli.CLI_MAX_EXPLICIT_ENTRIES < 10_000 * 10_000


def test_leak_states_units(capsys):
    assert main(["leak", "oue:k=5,eps=1.3"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    assert "×" in lines["bayes_capacity"] and "multiplicative" in lines["bayes_capacity"]
    assert "probability" in lines["asr"]
    assert "nats" in lines["ldp_epsilon"] and lines["ldp_epsilon"].split()[1] == "1.3"
    assert "bits" in lines["min_entropy_leakage"]


def test_refines_command_answers_or_exits_1_without_traceback(capsys):
    # SUE ⊑ THE (QIF paper Lemma 11 + Lemma 4), with its witness in JSON
    assert main(["--json", "refines", "sue:k=3,eps=1", "the:k=3,eps=1,theta=0.8"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["holds"] is True and len(doc["witness"]) == 8
    # a large pair: the routes without an LP run first whatever the LP's size; SUE ⋢ OUE
    # at k = 10^5 by the identity gain, whose gap is (ML(OUE) - ML(SUE)) / k from the
    # published closed forms (QIF paper)
    assert main(["--json", "refines", "sue:k=100000,eps=1", "oue:k=100000,eps=1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    gap = (F.bayes_capacity_oue(100_000, 1.0) - F.bayes_capacity_sue(100_000, 1.0)) / 100_000
    assert doc["holds"] is False
    assert doc["counterexample"]["gap"] == pytest.approx(gap, rel=1e-9)
    # SUE at eps 2 ⊑ GRR at eps 1 holds (the orbit LP's witness, 1002 orbit entries, when
    # its budget allows): no route without an LP proves it (SUE and GRR are not both
    # product forms, so the bitwise lifting does not apply), and the LP is over the
    # budget: exit 1, naming the budget and what was tried
    args = ["sue:k=1000,eps=2", "grr:k=1000,eps=1", "--max-lp-variables", "1000"]
    assert main(["refines", *args]) == 1
    err = capsys.readouterr().err
    assert "undecided" in err and "Traceback" not in err
    assert "max_lp_variables = 1e+03" in err and "the set-guessing gains" in err


def test_import_qifldp_leaves_heavy_packages_unloaded():
    # issue 8: `import qifldp` took 3.5 s; sympy, matplotlib, networkx and scipy.optimize
    # must load on first use only (checked in a fresh interpreter, not timed)
    code = (
        "import sys, qifldp\n"
        "heavy = ['sympy', 'matplotlib', 'networkx', 'scipy.optimize']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
        "qifldp.refines\n"
        "print('qifldp.refinement.core' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, after = r.stdout.splitlines()
    assert loaded == ""
    assert after == "True"  # the lazy name really loads the refinement package


def test_whole_numbers_in_scientific_notation_are_read_exactly(capsys):
    # --k 1e2 and a spec's k=1e2 mean k = 100: the table's capacity is GRR's closed form
    # e^eps k / (e^eps + k - 1) at k = 100, eps = 1.
    assert main(["--json", "leak", "grr:k=1e2,eps=1"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = math.e * 100 / (math.e + 99)
    assert out["bayes_capacity"] == pytest.approx(expected, rel=1e-12)
    assert main(["compare", "--k", "1e2", "--eps", "1", "--no-graph", "grr"]) == 0
    assert "k = 100," in capsys.readouterr().out
