"""The command line: JSON contract, exit codes, and the README's main-job command."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import qifldp as q
from qifldp.cli import main, parse_spec
from qifldp.cli.compare import _print_diagram
from qifldp.refinement.graph import hasse_diagram

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "qifldp", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_leak_json_matches_library(capsys):
    assert main(["--json", "leak", "oue:k=5,eps=1.3"]) == 0
    out = json.loads(capsys.readouterr().out)
    C = q.oue(5, 1.3)
    assert out["bayes_capacity"] == pytest.approx(q.bayes_capacity(C))
    assert out["asr"] == pytest.approx(q.asr(C))
    assert out["ldp_epsilon"] == pytest.approx(1.3)
    assert out["min_entropy_leakage"] == pytest.approx(q.min_entropy_leakage(C))


def test_leak_zero_epsilon_json(capsys):
    assert main(["leak", "--json", "grr:k=3,eps=0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ldp_epsilon"] == 0.0 and out["bayes_capacity"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["leak", "foo:k=2"], "unknown protocol 'foo'"),
        (["leak", "grr:k=1,eps=1"], "k must be >= 2"),
        (["leak", "grr:k=x,eps=1"], "k must be an integer"),
        (["leak", "grr:k=3"], "needs parameter"),
        (["leak", "grr:k=3,eps=1,zz=2"], "unknown parameter"),
        (["leak", "grr:k=3,eps"], "expected key=value"),
        (["leak", "the:k=3,eps=1,theta=1.5"], "theta"),
        (["compare", "--k", "3", "--eps", "-1", "--no-graph"], "eps must be >= 0"),
    ],
)
def test_bad_arguments_exit_2_with_message(args, pattern, capsys):
    assert main(args) == 2
    assert re.search(pattern, capsys.readouterr().err)


def test_argparse_errors_exit_2():
    r = run("compare", "--k", "notanint")
    assert r.returncode == 2 and "--k: expected a whole number, got 'notanint'" in r.stderr


def test_parse_spec():
    assert parse_spec("SS:k=5, eps=2, omega=2") == ("ss", {"k": 5, "eps": 2.0, "omega": 2})


def test_compare_json_table(capsys):
    assert main(["--json", "compare", "--k", "3", "--eps", "1", "--no-graph", "grr", "sue"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = [p["name"] for p in out["protocols"]]
    assert names == ["grr", "sue"]
    # GRR closed form ML = k e^eps / (e^eps + k - 1) (QIF paper)
    e = 2.718281828459045
    assert out["protocols"][0]["bayes_capacity"] == pytest.approx(3 * e / (e + 2))


def test_readme_main_job_command_prints_a_table():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", readme, flags=re.S)
    first = blocks[0].strip().splitlines()[0]
    invocation = first.split("&&")[-1].split()
    assert invocation[0] == "qifldp"
    r = run(*invocation[1:])
    assert r.returncode == 0, r.stderr
    assert re.search(r"^name\s+bayes_capacity\s+asr\s+ldp_epsilon$", r.stdout, flags=re.M)
    assert re.search(r"^grr\s+\d", r.stdout, flags=re.M)


def test_compare_reports_equivalent_protocols(capsys):
    # at k = 4, eps = 1 the default omega of SS is round(4 / (e + 1)) = 1: 1-SS is GRR
    # (same matrix, QIF paper Sec. V-B), so the two must be one equivalence class
    assert main(["--json", "compare", "--k", "4", "--eps", "1", "grr", "ss", "sue"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["equivalent"] == [["grr", "ss"]]
    assert ["grr", "ss"] not in out["edges"] and ["ss", "grr"] not in out["edges"]


def test_compare_hasse_edges_match_refines(capsys):
    assert main(["--json", "compare", "--k", "3", "--eps", "3", "sue", "the:theta=0.9"]) == 0
    out = json.loads(capsys.readouterr().out)
    # QIF paper Lemma 11 lifted by Lemma 4: SUE ⊑ THE for every theta
    assert out["edges"] == [["sue", "the:theta=0.9"]]


def test_leak_falls_back_to_the_symmetric_channel_for_large_k(capsys):
    # the explicit OLH channel at k = 10^6 cannot be built; the closed form (QIF paper
    # Eq. 27 with g = round(e^3 + 1)) is an independent check of the lumped value
    assert main(["--json", "leak", "olh:k=1000000,eps=3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bayes_capacity"] == pytest.approx(q.formulas.bayes_capacity_olh(10**6, 3.0))
    assert out["ldp_epsilon"] == pytest.approx(3.0)


def test_compare_large_k_uses_symmetric_channels_for_all(capsys):
    args = ["--json", "compare", "--k", "200", "--eps", "2", "grr", "sue", "the:theta=0.8"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    caps = {p["name"]: p["bayes_capacity"] for p in out["protocols"]}
    # GRR closed form k e^eps / (e^eps + k - 1), QIF paper
    assert caps["grr"] == pytest.approx(200 * math.exp(2) / (math.exp(2) + 199))
    assert caps["sue"] == pytest.approx(q.formulas.bayes_capacity_sue(200, 2.0))
    # Lemma 11 lifted by Lemma 4: SUE ⊑ THE; GRR is comparable with neither here
    assert out["edges"] == [["sue", "the:theta=0.8"]]


def test_build_kinds():
    from qifldp.cli import UsageError, build

    assert type(build("grr:k=3,eps=1", kind="symmetric")).__name__ == "SymmetricChannel"
    with pytest.raises(q.SizeError):
        build("oue:k=40,eps=1")
    with pytest.raises(UsageError, match="no symmetric"):
        build("sue_bit:eps=1", kind="symmetric")
    # dBitFlipPM has a symmetric channel for b = k and d = 1 or k only (its protocol says)
    S = build("dbitflip:k=1000,eps=2", kind="symmetric")
    assert S.sizes.tolist() == [1, 999] and q.ldp_epsilon(S) == 1.0
    with pytest.raises(UsageError, match="no symmetric"):
        build("dbitflip:k=6,eps=2,b=3", kind="symmetric")
    with pytest.raises(UsageError, match="no symmetric"):
        build("dbitflip:k=6,eps=2,d=2", kind="symmetric")
    assert build("dbitflip:k=6,eps=2,d=2", kind="auto").shape == (6, 60)  # C(6, 2) 2^2
    with pytest.raises(q.errors.ParameterError, match="b"):  # the protocol's own error
        build("dbitflip:k=3,eps=2,b=4", kind="symmetric")


def test_compare_plot_writes_the_hasse_diagram(tmp_path, capsys):
    path = tmp_path / "hasse.png"
    args = ["--json", "compare", "--k", "3", "--eps", "2", "--plot", str(path), "sue", "oue"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["plot"] == str(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["compare", "--no-graph", "--plot", str(path), "sue", "oue"]) == 2
    assert "--plot needs" in capsys.readouterr().err


def test_audit_json_keeps_every_field_the_text_shows(capsys):
    import json as _json
    import re as _re

    keys = ["qif.eq25", "rr3.remark3"]
    assert main(["audit", *keys]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the wrapped lines joined
    assert main(["--json", "audit", *keys]) == 0
    doc = _json.loads(capsys.readouterr().out)
    assert [item["key"] for item in doc["claims"]] == keys
    for item in doc["claims"]:
        assert list(item) == ["key", "claim", "source", "verdict", "details", "references"]
        assert f"[{item['key']}]" in text and item["verdict"] in text
        for field in ("claim", "source", "details"):
            assert " ".join(item[field].split()) in text, field
        assert item["references"] and set(item["references"]) <= set(doc["references"])
        for ref in item["references"]:
            # the text's References section names each cited work
            assert _re.search(_re.escape(doc["references"][ref][:30]), text)


def _diagram_lines(out):
    return out[out.index("Refinement (Hasse diagram") :].splitlines()[1:]


def test_compare_diagram_names_the_protocols_without_an_edge(capsys):
    # provenance: q.refines on the explicit channels (the explicit LP route, not the CLI's
    # capacity and symmetric routes) decides every pair of the README's k = 4, eps = 1
    names = ["grr", "ss", "blh", "olh", "sue", "oue"]
    C = {n: q.protocol(n, 4, 1.0).channel() for n in names}
    holds = {(a, b): q.refines(C[a], C[b]).holds for a in names for b in names if a != b}
    alone = [
        a
        for a in names
        if not any(holds[(a, b)] != holds[(b, a)] for b in names if b != a)  # no strict edge
        and not any(holds[(a, b)] and holds[(b, a)] for b in names if b != a)  # no class
    ]
    assert alone == ["blh", "olh", "sue", "oue"]
    assert main(["compare", "--k", "4", "--eps", "1"]) == 0
    lines = _diagram_lines(capsys.readouterr().out)
    shown = [line for line in lines if "incomparable with every other protocol" in line]
    assert len(shown) == 1
    listed = shown[0].split(": ", 1)[1].split(", ")
    assert [n for n in listed if "=" not in n] == alone


def test_compare_diagram_prints_chains_from_top_to_bottom(capsys):
    # at k = 2, eps = 0.5 the diagram is one chain grr -> sue -> blh -> olh: each printed
    # edge u -> v comes after every printed edge into u
    assert main(["--json", "compare", "--k", "2", "--eps", "0.5"]) == 0
    edges = {tuple(e) for e in json.loads(capsys.readouterr().out)["edges"]}
    assert main(["compare", "--k", "2", "--eps", "0.5"]) == 0
    printed = [
        tuple(line.strip().split(" -> "))
        for line in _diagram_lines(capsys.readouterr().out)
        if " -> " in line
    ]
    assert set(printed) == edges and len(printed) == len(edges) == 3
    for i, (u, _) in enumerate(printed):
        assert all(printed.index(e) < i for e in edges if e[1] == u)


def test_compare_diagram_says_which_protocols_have_undecided_pairs(capsys):
    # a ⊑ b decided, c skipped against both: c has no edge, but it is not incomparable
    G = hasse_diagram(["a", "b", "c"], {("a", "b"): True, ("b", "a"): False})
    left = [p for p, v in G.graph["status"].items() if v is None]
    budget = {"time_limit": 10.0, "max_lp_variables": 1, "max_explicit_entries": 1}
    _print_diagram(G, [["a", "b"]], [], {"symmetric": 2}, left, {}, budget, 0.0)
    lines = _diagram_lines(capsys.readouterr().out)
    assert lines[:2] == [
        "  a -> b",
        "  no edge known, some of its pairs undecided (skipped below): c",
    ]
    assert not any("incomparable with every other" in line for line in lines)


def test_compare_diagram_of_one_class_has_no_incomparable_line(capsys):
    # at eps = 0 every channel's rows are equal: each refines each (W = any row of B), so
    # the six protocols are one class and nothing is left to be incomparable with
    assert main(["compare", "--k", "4", "--eps", "0"]) == 0
    lines = _diagram_lines(capsys.readouterr().out)
    assert lines[0] == "  grr = ss = blh = olh = sue = oue  (equivalent: each refines the other)"
    assert not any("incomparable" in line or "no edge known" in line for line in lines)
