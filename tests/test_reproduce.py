"""Figure reproduction: files are written and the plotted numbers are right."""

import json

import numpy as np
import pytest

import qifldp as q
from qifldp.cli import main
from qifldp.reproduce import figure_6, figure_7, reproduce


def test_figure_6_matches_explicit_channels(tmp_path):
    fig = figure_6(tmp_path, quick=True, k=4)
    assert fig.path.exists() and fig.path.stat().st_size > 0
    eps = fig.series["eps"]
    i = 5
    # independent check: enumerate the explicit channels at k = 4
    assert fig.series["GRR"][i] == pytest.approx(q.bayes_capacity(q.grr(4, eps[i])))
    assert fig.series["OUE"][i] == pytest.approx(q.bayes_capacity(q.oue(4, eps[i])))
    assert fig.series["THE"][i] == pytest.approx(q.bayes_capacity(q.the(4, eps[i], 0.75)))
    assert fig.series["BLH"][i] == pytest.approx(q.bayes_capacity(q.blh(4, eps[i])))


def test_figure_7_simulation_agrees_with_eq26_not_eq25(tmp_path):
    fig = figure_7(tmp_path, quick=True)
    s = fig.series["eps=3"]
    sim, eq26, eq25 = map(np.asarray, (s["simulated"], s["eq26"], s["eq25"]))
    # 5 repeats x 1000 users: the standard error of a rate is <= 0.5/sqrt(5000) ~ 0.007
    assert np.all(np.abs(sim - eq26) < 5 * 0.5 / np.sqrt(5000))
    # at k = 2 Eq. (25) is off by far more than the simulation noise
    assert abs(sim[0] - eq25[0]) > 0.15


def test_cli_reproduce_json(tmp_path, capsys):
    assert main(["--json", "reproduce", "--quick", "--out", str(tmp_path), "--figures", "6"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["files"] == [str(tmp_path / "figure6_capacity_all_protocols.png")]


def test_reproduce_rejects_unknown_figure(tmp_path):
    with pytest.raises(ValueError, match="4, 5, 6, 7"):
        reproduce(tmp_path, which=[3])


@pytest.mark.slow
def test_reproduce_all_quick_with_fimi_data(tmp_path):
    from qifldp.simulation import data

    rng = np.random.default_rng(0)
    path = tmp_path / "toy.dat"
    data.write_fimi(path, data.zipf_transactions(3000, 60, rng=rng))
    figs = reproduce(tmp_path / "out", quick=True, data=path)
    assert [f.path.name[:7] for f in figs] == ["figure4", "figure5", "figure6", "figure7"]
    s4 = figs[0].series["eps=2"]
    # Lemma 11 (SUE leaks more than THE): the SUE line is above every THE point
    assert all(v <= s4["sue"] + 1e-12 for v in s4["the"])
