"""Issue 8, reproducers 2 and 3: `qifldp compare` ends with a table and a diagram (or a
stated skip) at any k and eps, never a traceback; the per-pair budget and error handling."""

from __future__ import annotations

import json
import math
import tracemalloc

import pytest

import qifldp as q
from qifldp import cli, formulas as F
from qifldp.cli import main, routes
from qifldp.errors import VerificationError

NAMES = ("grr", "ss", "blh", "olh", "sue", "oue")


def _closed_forms(k: int, eps: float) -> dict[str, float]:
    # the published closed forms (QIF paper; LH: corrected Eq. 27), each checked
    # against enumeration in tests/protocols/test_formulas.py: an independent route to the table
    return {
        "grr": F.bayes_capacity_grr(k, eps),
        "ss": F.bayes_capacity_ss(k, eps),
        "blh": F.bayes_capacity_blh(k, eps),
        "olh": F.bayes_capacity_olh(k, eps),
        "sue": F.bayes_capacity_sue(k, eps),
        "oue": F.bayes_capacity_oue(k, eps),
    }


def _run_json(capsys, *args):
    code = main(["--json", "compare", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, json.loads(captured.out, parse_constant=_no_constants), captured.err


def _no_constants(name):
    raise AssertionError(f"JSON output holds {name}: infinity and NaN must be null")


def _check_document(doc, k, eps):
    caps = {p["name"]: p["bayes_capacity"] for p in doc["protocols"]}
    assert list(caps) == list(NAMES)
    for name, value in _closed_forms(k, eps).items():
        assert caps[name] == pytest.approx(value, rel=1e-9), name
    for p in doc["protocols"]:
        assert p["asr"] == pytest.approx(caps[p["name"]] / k, rel=1e-9)  # ASR = ML / k
        assert p["ldp_epsilon"] == pytest.approx(eps, rel=1e-9)
    # an edge u -> v (u ⊑ v) needs ML(v) <= ML(u): the identity gain would separate them
    for u, v in doc["edges"]:
        assert caps[v] <= caps[u] * (1 + 1e-9), (u, v)
    n_pairs = len(NAMES) * (len(NAMES) - 1)
    assert sum(doc["decided_by"].values()) + len(doc["skipped"]) == n_pairs
    for s in doc["skipped"]:
        assert s["reason"].startswith(("size rule", "time limit", "no verdict")), s


@pytest.mark.parametrize(
    ("k", "eps"), [(3, 2.0), (3, 1.6), (3, 2.5), (3, 3.0), (2, 2.0), (4, 2.0), (4, 3.0)]
)
def test_reproducer_2_small_k_compare_answers(k, eps, capsys):
    # issue 8 reproducer 2: these ended in a VerificationError traceback (exit 1), and
    # k = 4, eps = 3 ran past 290 s
    code, doc, _ = _run_json(capsys, "--k", str(k), "--eps", str(eps))
    assert code == 0
    _check_document(doc, k, eps)
    if k == 3:
        # 1-SS is GRR at k = 3 for eps >= 1.6 (omega = max(1, round(3 / (e^eps + 1))) = 1):
        # the same matrix, so the two must be one class (QIF paper Sec. V-B)
        assert doc["equivalent"] == [["grr", "ss"]]


def test_reproducer_2_text_output_has_table_then_diagram(capsys):
    assert main(["compare", "--k", "3", "--eps", "2"]) == 0
    out = capsys.readouterr().out
    table = out.index("name  bayes_capacity")
    diagram = out.index("Refinement (Hasse diagram")
    assert table < diagram
    assert "budget: 10 s per pair" in out


@pytest.mark.parametrize("k", [1000])
def test_reproducer_3_large_k_compare_decides_every_pair(k, capsys):
    # issue 8 reproducer 3: k = 10^6 died with MemoryError at 5.3 GB, k = 1000 printed
    # nothing for 285 s, k = 10^4 failed on an orbit-LP limit without advice; then the
    # size rule skipped pairs that the routes without an LP decide (set-guessing gains)
    tracemalloc.start()
    try:
        code, doc, _ = _run_json(capsys, "--k", str(k), "--eps", "1")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0
    _check_document(doc, k, 1.0)
    assert peak < 2**30  # the parent process; pair workers are separate processes
    assert doc["skipped"] == []
    assert doc["budget"]["max_lp_variables"] == cli.CLI_MAX_ORBIT_VARIABLES


def test_large_k_decides_a_lifted_pair_and_names_what_the_size_rule_left(capsys):
    # SUE ⊑ THE at k = 10^4 (QIF paper Lemma 11 on the bits, lifted by Lemma 4): decided
    # on the symmetric channels although their orbit LP (~2e8 variables) is far over
    # the budget; the reverse fails by capacity
    code, doc, _ = _run_json(capsys, "--k", "10000", "--eps", "2", "sue", "the:theta=0.7")
    assert code == 0 and doc["edges"] == [["sue", "the:theta=0.7"]]
    assert doc["decided_by"] == {"capacity": 1, "symmetric": 1}
    # SUE at eps 2 ⊑ GRR at eps 1 holds, but only the orbit LP proves it (GRR's class
    # masses are not of product form, so the bitwise lifting does not apply): over
    # --max-lp-variables it is skipped, naming the budget and the routes tried first; the
    # reverse fails by capacity
    args = ["compare", "--k", "1000", "--max-lp-variables", "1000", "sue:eps=2", "grr"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "sue:eps=2 ⊑ grr?  skipped: size rule" in out
    assert "max_lp_variables = 1e+03" in out and "the set-guessing gains" in out
    assert "raise --max-lp-variables" in out and "raise --time-limit" not in out
    assert "1 by Bayes capacity" in out


def test_capacity_shortcut_is_certified_by_a_margin(capsys):
    # grr(4, 1) vs grr(4, 1 + 1e-12): capacities differ by ~3e-13 relative, inside the
    # margin: the shortcut must not decide, the LP does (GRR is monotone in eps:
    # grr(k, e2) ⊑ grr(k, e1) for e1 <= e2, QIF paper Lemma 3)
    args = ["--k", "4", "--eps", "1", "grr", "grr:eps=1.0000000000001"]
    code, doc, _ = _run_json(capsys, *args)
    assert code == 0
    assert doc["decided_by"].get("capacity", 0) == 0


def test_time_limit_skips_a_pair_and_says_so(capsys):
    # grr and ss have equal capacity at k = 4, eps = 1 (1-SS is GRR), so the pair goes
    # to the LP, which cannot answer within 0.1 ms of wall time in a fresh worker
    args = ["--k", "4", "--eps", "1", "--time-limit", "0.0001", "grr", "ss"]
    code, doc, _ = _run_json(capsys, *args)
    assert code == 0
    assert doc["edges"] == [] and "equivalent" not in doc
    reasons = {(s["a"], s["b"]): s["reason"] for s in doc["skipped"]}
    assert set(reasons) == {("grr", "ss"), ("ss", "grr")}
    assert all(r.startswith("time limit: no answer within 0.0001 s") for r in reasons.values())
    assert doc["budget"]["time_limit"] == 0.0001


def test_a_failing_pair_is_reported_not_raised(monkeypatch, capsys):
    # until every route answers at the rounding boundary, a pair whose solver raises
    # is listed as undecided and the rest of the diagram still comes out
    real = routes._run_route

    def flaky(route, a, b, A, B, time_limit, max_lp=None):
        if (a.spec, b.spec) == ("sue", "oue"):
            msg = "the exact Farkas certificate does not survive rounding to floats"
            raise VerificationError(msg)
        return real(route, a, b, A, B, time_limit, max_lp)

    monkeypatch.setattr(routes, "_run_route", flaky)
    code, doc, _ = _run_json(capsys, "--k", "3", "--eps", "3", "sue", "oue", "the:theta=0.9")
    assert code == 0
    reasons = {(s["a"], s["b"]): s["reason"] for s in doc["skipped"]}
    assert list(reasons) == [("sue", "oue")]
    assert "VerificationError" in reasons[("sue", "oue")]
    # QIF paper Lemma 11 lifted by Lemma 4: SUE ⊑ THE, still decided
    assert ["sue", "the:theta=0.9"] in doc["edges"]


def test_transitivity_settles_pairs_without_a_solver(capsys):
    # grr at eps 3 > 2 > 1: grr(3) ⊑ grr(2) ⊑ grr(1) (Lemma 3); the LP decides the two
    # steps, the chain gives grr(3) ⊑ grr(1); the reverse pairs fail by capacity
    args = ["--k", "5", "--eps", "1", "grr:eps=3", "grr:eps=2", "grr"]
    code, doc, _ = _run_json(capsys, *args)
    assert code == 0
    assert doc["edges"] == [["grr:eps=2", "grr"], ["grr:eps=3", "grr:eps=2"]]
    assert doc["decided_by"]["capacity"] == 3
    assert doc["decided_by"]["transitivity"] == 1


def test_hasse_diagram_infers_failures_from_chains():
    from qifldp.refinement.graph import hasse_diagram

    # c ⊑ a decided and c ⋢ b decided: a ⊑ b would give c ⊑ b, so a ⋢ b
    G = hasse_diagram(["a", "b", "c"], {("c", "a"): True, ("c", "b"): False})
    assert G.graph["status"][("a", "b")] is False and G.graph["inferred"][("a", "b")] == "c"
    assert G.graph["status"][("b", "a")] is None
    assert ("b", "a") in G.graph["undecided"]
    # a decided cycle is one class; a contradiction is reported, or raised when strict
    v = {("a", "b"): True, ("b", "c"): True, ("a", "c"): False}
    assert hasse_diagram(["a", "b", "c"], v).graph["inconsistent"] == [("a", "c")]
    with pytest.raises(VerificationError, match="not transitive"):
        hasse_diagram(["a", "b", "c"], v, strict=True)


def test_compare_capacity_table_at_large_eps_has_no_inf_strings(capsys):
    code, doc, _ = _run_json(capsys, "--k", "3", "--eps", "5", "--no-graph", "ue:p=1,q=0.5", "grr")
    assert code == 0
    ue = doc["protocols"][0]
    assert ue["ldp_epsilon"] is None  # p = 1: a zero next to a positive entry, epsilon = inf
    assert math.isclose(ue["bayes_capacity"], q.bayes_capacity(q.unary_encoding(3, 1.0, 0.5)))


def test_compare_takes_the_oracles_without_a_symmetric_channel(capsys):
    # HR has no symmetric channel: compared on its explicit channel, next to the others'
    # symmetric ones (dBitFlipPM's with b = k, d = 1 too)
    code, doc, _ = _run_json(capsys, "--k", "4", "--eps", "1", "grr", "oue", "hr", "dbitflip")
    assert code == 0
    caps = {p["name"]: p["bayes_capacity"] for p in doc["protocols"]}
    assert caps["hr"] == pytest.approx(2 * math.e / (math.e + 1))  # Acharya et al. 2019
    eps = {p["name"]: p["ldp_epsilon"] for p in doc["protocols"]}
    assert eps["dbitflip"] == pytest.approx(0.5)  # d = 1: one SUE bit at eps, eps / 2
    assert ["hr", "dbitflip"] in doc["edges"]
    assert sum(doc["decided_by"].values()) == 12
