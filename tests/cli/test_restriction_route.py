"""The command line at large k with protocols that have no symmetric channel and whose
explicit channel is over the size rule (HR at k = 10^4: 10^4 x 16384 entries): their
rows come from their closed forms, their pairs from the capacity, transitivity and the
restriction route (:mod:`qifldp.protocols.structure.restriction`)."""

from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pytest

import qifldp as q
from qifldp.cli import main
from qifldp.protocols.structure.restriction import RESTRICTION_SIZES, restriction_refutation

K, EPS = 10**4, 2.0
CMS = "cms:m=8,hashes=2"

SIZES = ", ".join(map(str, RESTRICTION_SIZES))


def _run_json(capsys, *args):
    code = main(["--json", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, (json.loads(captured.out) if captured.out else None), captured.err


@pytest.fixture(scope="module")
def compared():
    # run once for the tests below (capsys is function-scoped: capture by hand)
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        args = ["--json", "compare", "--k", str(K), "--eps", str(EPS), "sue", "hr", CMS]
        code = main([*args, "--time-limit", "10"])
    assert "Traceback" not in err.getvalue()
    return code, json.loads(buf.getvalue())


def test_compare_takes_a_protocol_over_the_size_rule_without_a_symmetric_channel(compared):
    code, doc = compared
    assert code == 0
    rows = {r["name"]: r for r in doc["protocols"]}
    assert list(rows) == ["sue", "hr", CMS]
    # HR's row: its closed forms (Acharya et al. 2019), said to be from them
    cf = q.protocol("hr", K, EPS).closed_form
    assert rows["hr"]["bayes_capacity"] == cf.bayes_capacity()
    assert rows["hr"]["asr"] == cf.asr()
    assert rows["hr"]["ldp_epsilon"] == cf.ldp_epsilon()
    assert rows["hr"]["bayes_capacity"] == pytest.approx(2 * math.exp(EPS) / (math.exp(EPS) + 1))
    assert rows["hr"]["source"].startswith("closed forms")
    assert "source" not in rows["sue"] and "source" not in rows[CMS]
    # every ordered pair decided: nothing skipped
    assert doc["skipped"] == []
    assert sum(doc["decided_by"].values()) == 6


def test_compare_refutes_on_a_restriction_as_the_library_does(compared):
    _, doc = compared
    decided = {(d["a"], d["b"]): d for d in doc["decided"]}
    assert doc["decided_by"].get("restriction", 0) >= 2
    for b, P in (("hr", q.protocol("hr", K, EPS)), (CMS, q.protocol("cms", K, EPS, m=8, hashes=2))):
        d = decided[("sue", b)]
        assert d["how"] == "restriction" and d["refines"] is False
        # the library's route on the same pair: the same verdict, the same certificate line
        found = restriction_refutation(q.protocol("sue", K, EPS), P, time_limit=10)
        assert found is not None
        assert found.counterexample.gap > found.error_bound
        assert d["certified_by"] == found.certified_by
        assert ["sue", b] not in doc["edges"]
    # the capacity shortcut with the closed-form capacity: ML(sue) = e^eps > ML(hr)
    assert decided[("hr", "sue")]["how"] == "capacity"


def test_compare_text_names_the_route_and_the_closed_forms(capsys):
    args = ["compare", "--k", str(K), "--eps", str(EPS), "sue", "hr", "--time-limit", "10"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "hr *" in out and "* from its closed forms" in out
    assert "1 on a restriction to a few inputs" in out and "1 by Bayes capacity" in out


def test_a_pair_no_route_decides_says_why(capsys):
    # HR at eps 2 into HR at eps 1: the capacity does not separate them (ML falls with
    # eps), no restriction to a few inputs does, and with HR's channel over the size rule
    # and no symmetric channel no route can prove the refinement; the reverse fails by
    # capacity
    code, doc, _ = _run_json(capsys, "compare", "--k", str(K), "--eps", str(EPS), "hr", "hr:eps=1")
    assert code == 0
    assert doc["decided"] == [{"a": "hr:eps=1", "b": "hr", "refines": False, "how": "capacity"}]
    [skip] = doc["skipped"]
    assert (skip["a"], skip["b"]) == ("hr", "hr:eps=1")
    assert skip["reason"].startswith("size rule: an explicit channel would exceed"), skip
    assert "no symmetric channel" in skip["reason"]
    assert skip["reason"].endswith(f"no restriction to {SIZES} inputs separates them")
    # the library's route agrees: no restriction separates them
    a, b = q.protocol("hr", K, EPS), q.protocol("hr", K, 1.0)
    assert restriction_refutation(a, b, time_limit=30) is None


def test_refines_proves_a_failure_on_a_restriction(capsys):
    code, out, _ = _run_json(capsys, "refines", f"sue:k={K},eps=2", f"hr:k={K},eps=2")
    assert code == 0
    assert out["holds"] is False and out["decided_by"] == "restriction"
    found = restriction_refutation(q.protocol("sue", K, EPS), q.protocol("hr", K, EPS))
    assert found is not None
    assert out["certified_by"] == found.certified_by
    ce = out["counterexample"]
    assert ce["inputs"] == list(found.inputs)
    # recompute the gap on the restricted channels from the printed gain and prior
    gain, prior = np.array(ce["gain"]), np.array(ce["prior"])
    gap = q.g_vulnerability(found.b, gain, prior) - q.g_vulnerability(found.a, gain, prior)
    assert gap == pytest.approx(ce["gap"], rel=1e-9) and gap > found.error_bound


def test_refines_names_what_stopped_a_pair_no_route_decides(capsys):
    code, _, err = _run_json(capsys, "refines", f"hr:k={K},eps=2", f"hr:k={K},eps=1")
    assert code == 1
    assert "undecided" in err and f"no restriction to {SIZES} inputs separates them" in err
    assert "no symmetric channel" in err


@pytest.mark.parametrize("spec", ["hr", "he"])
def test_leak_over_the_size_rule_gives_the_closed_forms(spec, capsys):
    code, out, _ = _run_json(capsys, "leak", f"{spec}:k={K},eps=2")
    assert code == 0
    cf = q.protocol(spec, K, EPS).closed_form
    assert out["bayes_capacity"] == cf.bayes_capacity() and out["asr"] == cf.asr()
    assert out["ldp_epsilon"] == cf.ldp_epsilon()
    assert out["min_entropy_leakage"] == pytest.approx(math.log2(cf.bayes_capacity()))
    assert out["channel"].startswith("closed forms")


def test_a_channel_file_has_no_protocol_to_restrict(tmp_path, capsys):
    # a channel file of k = 10^4 rows (two outputs) against HR over the size rule: no
    # route applies, and the message says why the restriction route does not
    x = np.linspace(0.3, 0.7, K)
    path = tmp_path / "mine.npy"
    np.save(path, np.column_stack([x, 1 - x]))
    code, _, err = _run_json(capsys, "refines", f"hr:k={K},eps=2", str(path))
    assert code == 1
    assert "not attempted" in err and "no symmetric channel" in err
    assert "the restriction route takes two protocols, not a channel file" in err


def test_a_value_the_closed_forms_refuse_is_not_available_and_says_why(capsys):
    # HE with t coefficients: its capacity's closed form enumerates K^t k pairs, refused
    # at k = 10^4; its eps is given (the stated eps, attained)
    P = q.protocol("he_multi", K, EPS)
    with pytest.raises(q.errors.SizeError) as refused:
        P.closed_form.bayes_capacity()
    code, out, _ = _run_json(capsys, "leak", f"he_multi:k={K},eps=2")
    assert code == 0
    assert out["bayes_capacity"] is None and out["asr"] is None
    assert out["min_entropy_leakage"] is None
    assert out["ldp_epsilon"] == P.closed_form.ldp_epsilon()
    assert "K^t k" in str(refused.value)
    assert out["not_available"]["bayes_capacity"].startswith("SizeError: ")
    assert "K^t k" in out["not_available"]["bayes_capacity"]
    # in compare: the row, the footnote, and its pairs still go to the routes
    args = ["compare", "--k", str(K), "--eps", str(EPS), "he_multi", "sue", "--time-limit", "10"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "he_multi *  -" in text and "(-: not given by them)" in text
    code, doc, _ = _run_json(capsys, *args)
    assert code == 0
    row = doc["protocols"][0]
    assert row["bayes_capacity"] is None and "bayes_capacity" in row["not_available"]
    assert doc["decided_by"].get("capacity", 0) == 0  # no capacity: no shortcut
    assert sum(doc["decided_by"].values()) + len(doc["skipped"]) == 2
