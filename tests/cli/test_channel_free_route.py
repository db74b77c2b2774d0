"""The command line takes the routes that need no channel
(qifldp.protocols.structure.channel_free), as the comparability atlas does: HE with t
coefficients and HR at sizes whose channels cannot be built."""

from __future__ import annotations

import json

import numpy as np
import pytest

import qifldp as q
from qifldp.cli import main
from qifldp.protocols.structure.invariant_gains import invariant_gain_refutation


def _run_json(capsys, *args):
    code = main(["--json", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, (json.loads(captured.out) if captured.out else None), captured.err


def test_refines_refutes_he_multi_into_dbitflip_by_an_invariant_gain(capsys):
    code, out, _ = _run_json(capsys, "refines", "he_multi:k=1024,eps=2", "dbitflip:k=1024,eps=2")
    assert code == 0
    assert out["holds"] is False and out["decided_by"] == "invariant gain"
    found = invariant_gain_refutation(
        q.protocol("he_multi", 1024, 2.0), q.protocol("dbitflip", 1024, 2.0).symmetric()
    )
    assert out["counterexample"]["gap"] == pytest.approx(float(found.counterexample.gap_exact))
    assert out["certified_by"] == found.certified_by


def test_refines_proves_hr_with_one_block_equal_to_hr_at_k_10_4(capsys):
    code, out, _ = _run_json(capsys, "refines", "hr:k=10000,eps=0.5", "hr_block:k=10000,eps=0.5")
    assert code == 0
    assert out["holds"] is True and out["decided_by"] == "equal channels"
    # the rows, spot-checked here: the same law on the same 16384 outputs
    a, b = q.protocol("hr", 10**4, 0.5), q.protocol("hr_block", 10**4, 0.5)
    for x in (0, 4999, 9999):
        ra, rb = a.restricted([x]).matrix, b.restricted([x]).matrix
        assert np.allclose(ra, rb, rtol=1e-15, atol=0)


def test_compare_counts_the_channel_free_routes(capsys):
    args = ["compare", "--k", "1024", "--eps", "8", "he_multi", "dbitflip", "grr"]
    code, doc, _ = _run_json(capsys, *args, "--time-limit", "20")
    assert code == 0 and doc["skipped"] == []
    how = {(d["a"], d["b"]): d["how"] for d in doc["decided"]}
    assert how[("he_multi", "dbitflip")] in ("invariant gain", "transitivity")
    assert ("he_multi", "grr") in how


def test_refines_proves_he_multi_into_l_grr_at_k_10_4_without_its_channel(capsys, monkeypatch):
    # L-GRR has a symmetric channel: the command line counts its outputs there and never
    # multiplies out its 10^4 x 10^4 cascade (36 s); the pair is proved by guess mixing
    from qifldp.protocols import longitudinal

    def refused(self, *args, **kwargs):
        raise AssertionError("the explicit L-GRR channel was built")

    monkeypatch.setattr(longitudinal.Memoized, "channel", refused)
    spec_b = "l_grr:k=10000,eps_perm=8,eps_1=4"
    code, out, _ = _run_json(capsys, "refines", "he_multi:k=10000,eps=4", spec_b)
    assert code == 0
    assert out["holds"] is True and out["decided_by"] == "guess mixing"


def test_refines_refutes_sue_into_he_multi_by_a_hyperplane(capsys):
    code, out, _ = _run_json(capsys, "refines", "sue:k=256,eps=8", "he_multi:k=256,eps=8")
    assert code == 0
    assert out["holds"] is False and out["decided_by"] == "hyperplane gain"
    assert out["counterexample"]["gap"] > 0
    main(["refines", "sue:k=256,eps=8", "he_multi:k=256,eps=8"])
    text = capsys.readouterr().out
    assert "gain: 2 actions x 256 inputs" in text and "array(" not in text
