"""Figure reproduction: files are written and the plotted numbers are right."""

import json

import numpy as np
import pytest

import qifldp as q
from qifldp.cli import main
from qifldp.reproduce import DPI, figure_6, figure_7, reproduce


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
    stem = str(tmp_path / "figure6_capacity_all_protocols")
    assert out["files"] == [f"{stem}.png", f"{stem}.pdf", f"{stem}.svg"]
    assert (
        main(["--json", "reproduce", "--out", str(tmp_path), "--figures", "1", "--formats", "svg"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["files"] == [str(tmp_path / "figure1_the_family_tradeoff.svg")]


def test_reproduce_rejects_unknown_figure(tmp_path):
    with pytest.raises(ValueError, match="1, 2, ..., 7"):
        reproduce(tmp_path, which=[8])
    with pytest.raises(ValueError, match="formats"):
        reproduce(tmp_path, which=[6], formats=["png", "jpg"])
    with pytest.raises(ValueError, match="formats"):
        reproduce(tmp_path, which=[6], formats=[])
    with pytest.raises(TypeError, match="formats"):
        reproduce(tmp_path, which=[6], formats="png")


@pytest.mark.slow
def test_reproduce_all_quick_with_fimi_data(tmp_path):
    from qifldp.simulation import data

    rng = np.random.default_rng(0)
    path = tmp_path / "toy.dat"
    data.write_fimi(path, data.zipf_transactions(3000, 60, rng=rng))
    # one format (png): the three formats are written and checked by
    # test_figures_1_3.test_print_formats_are_written and the command-line test above
    figs = reproduce(tmp_path / "out", quick=True, data=path, formats=["png"])
    assert [f.path.name[:7] for f in figs] == [f"figure{i}" for i in range(1, 8)]
    figs = figs[3:]
    s4 = figs[0].series["eps=2"]
    # Lemma 11 (SUE leaks more than THE): the SUE line is above every THE point
    assert all(v <= s4["sue"] + 1e-12 for v in s4["the"])
    # the captions name the user's file, not the Zipf stand-in, with k and n
    for fig, k in zip(figs[:2], (10, 50), strict=True):
        assert "data: user data toy.dat" in fig.caption and "Zipf" not in fig.caption
        assert f"k = {k}, n = 2000 users" in fig.caption


# --- figures that show what they claim (issue 13, item 5) ---------------------------

#: The first bytes of every PNG file (PNG specification, section 5.2).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Student-t quantile t_{4}(0.975) from statistical tables: the 95% interval of 5 runs.
T4_975 = 2.7764451051977987


@pytest.fixture(scope="module")
def quick_figures(tmp_path_factory):
    """Figs. 1-7 in quick mode on the Zipf stand-in, drawn once for this module (as png)."""
    figs = reproduce(tmp_path_factory.mktemp("figures"), quick=True, formats=["png"])
    return {int(f.name[6]): f for f in figs}


def _ci_half_width(runs):
    """95% Student-t half-width of the mean of 5 runs, from the statistics module."""
    import statistics

    assert len(runs) == 5
    return T4_975 * statistics.stdev(runs) / np.sqrt(len(runs))


def test_figures_are_nonempty_pngs(quick_figures):
    from matplotlib.image import imread

    for fig in quick_figures.values():
        raw = fig.path.read_bytes()
        assert raw.startswith(PNG_SIGNATURE), fig.path
        assert 10_000 < len(raw) < 200_000, (fig.path, len(raw))
        pixels = imread(fig.path)
        w, h = fig.figure.get_size_inches() * DPI
        assert pixels.shape[:2] == (round(h), round(w))
        assert pixels[..., :3].std() > 0.05  # something is drawn on the white canvas


def test_every_figure_states_k_n_and_data_source(quick_figures):
    expected = {  # quick mode, as documented in reproduce.py
        4: ("k = 10,", "n = 2000 users", "Zipf stand-in"),
        5: ("k = 50,", "n = 2000 users, 5 seeded runs", "Zipf stand-in"),
        6: ("k = 50,", "n: none (exact closed forms, no sampled data)", ""),
        7: ("k = 2..10,", "n = 1000 users, 5 seeded runs", "synthetic, uniform"),
    }
    for i, fig in quick_figures.items():
        assert fig.figure.get_suptitle() == fig.caption  # drawn, not only returned
        assert f"Fig. {i}:" in fig.caption
        if i not in expected:  # Figs. 1-3: exact bit channels, nothing sampled
            assert "n: none" in fig.caption and "bit channels" in fig.caption
            continue
        for part in expected[i]:
            assert part in fig.caption, (i, part, fig.caption)
        assert f"Fig. {i}:" in fig.caption


def test_figure_5_has_error_bars_over_seeded_runs(quick_figures):
    from matplotlib.container import ErrorbarContainer

    fig = quick_figures[5]
    assert fig.series["runs"] == 5
    thetas = fig.series["thetas"]
    panels = [ax for ax in fig.figure.axes if ax.get_title().startswith("eps = ")]
    assert [ax.get_title() for ax in panels] == ["eps = 1", "eps = 4"]
    for ax in panels:
        s = fig.series[ax.get_title().replace(" ", "")]
        bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 3  # THE over theta, OUE and SUE
        markers = {c.lines[0].get_marker() for c in bars}
        assert len(markers) == 3  # distinct markers
        the = bars[0]
        x, y = the.lines[0].get_data()
        assert list(x) == pytest.approx(thetas)
        runs = np.asarray(s["the_mse_runs"])
        assert runs.shape == (5, len(thetas))
        assert y == pytest.approx(runs.mean(axis=0))
        # the drawn bar spans mean ± the t-interval recomputed from the runs
        segments = the.lines[2][0].get_segments()
        for j, seg in enumerate(segments):
            half = _ci_half_width(runs[:, j])
            assert seg[0][1] == pytest.approx(y[j] - half)
            assert seg[1][1] == pytest.approx(y[j] + half)
        for name, bar in (("oue", bars[1]), ("sue", bars[2])):
            runs = s[f"{name}_mse_runs"]
            assert bar.lines[0].get_data()[1][0] == pytest.approx(np.mean(runs))
            assert s[f"{name}_mse_ci"] == pytest.approx(_ci_half_width(runs))
        # unbiased estimators: the mean MSE of 5 runs sits within 2 half-widths of the
        # theoretical variance (the lines); seeded, so this cannot flake
        m, h, v = (np.asarray(s[key]) for key in ("the_mse", "the_mse_ci", "the_variance"))
        assert np.all(np.abs(m - v) < 2 * h)


def test_figure_7_has_error_bars(quick_figures):
    from matplotlib.container import ErrorbarContainer

    fig = quick_figures[7]
    for ax, key in zip(fig.figure.axes, ("eps=3", "eps=5"), strict=False):
        bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 1
        runs = np.asarray(fig.series[key]["simulated_runs"])
        assert bars[0].lines[0].get_data()[1] == pytest.approx(runs.mean(axis=0))
        assert fig.series[key]["simulated_ci"][0] == pytest.approx(_ci_half_width(runs[:, 0]))


def test_figure_6_curves_distinguishable_and_coincidences_stated(quick_figures):
    fig = quick_figures[6]
    (ax,) = fig.figure.axes
    lines = {ln.get_label().split(" ")[0]: ln for ln in ax.lines}
    assert set(lines) == {"GRR", "SS", "BLH", "OLH", "SUE", "OUE", "THE"}
    styles = [(ln.get_marker(), ln.get_linestyle()) for ln in lines.values()]
    assert len(set(styles)) == len(styles)
    assert len({m for m, _ in styles}) == len(styles)  # markers alone tell them apart
    for a, b in (("SS", "GRR"), ("OLH", "OUE")):
        # markers of coinciding curves are staggered, so both stay visible
        assert lines[a].get_markevery() != lines[b].get_markevery()
    k = 50
    # SS = GRR exactly once omega = round(k / (e^eps + 1)) = 1: eps > ln(2k/3 - 1)
    threshold = np.log(2 * k / 3 - 1)
    ss = fig.series["coincide"]["SS"]
    assert threshold <= ss["equal_from"] <= threshold + 1e-3 + 1e-9
    sym = q.symmetric
    below, above = threshold - 0.01, threshold + 0.01
    assert q.bayes_capacity(sym.subset_selection(k, above)) == pytest.approx(
        q.bayes_capacity(sym.grr(k, above)), rel=1e-12
    )
    assert q.bayes_capacity(sym.subset_selection(k, below)) < 0.9 * q.bayes_capacity(
        sym.grr(k, below)
    )
    # OLH never equals OUE: at eps = 0.916 the symmetric channels differ by 4.75%
    olh = fig.series["coincide"]["OLH"]
    assert olh["equal_from"] is None
    a = q.bayes_capacity(sym.olh(k, 0.916))
    b = q.bayes_capacity(sym.oue(k, 0.916))
    assert olh["max_rel_diff"] == pytest.approx(abs(a - b) / max(a, b), rel=1e-6)
    assert 0.04 < olh["max_rel_diff"] < 0.05
    # the legend says so, with the numbers
    legend = [t.get_text() for lg in fig.figure.legends for t in lg.get_texts()]
    assert f"SS (= GRR exactly for eps ≥ {ss['equal_from']:.3f}: omega = 1)" in legend
    (olh_text,) = [t for t in legend if t.startswith("OLH")]
    assert "never equal" in olh_text and f"{olh['max_rel_diff']:.1%}" in olh_text
    assert f"{olh['close_from']:.2f}" in olh_text
