"""The QIF paper's Figs. 1-3 (trade-off functions of bit channels), the print formats and
the panel layout (issue 22).

Expected values are derived here from the bit channels' closed forms, not from qifldp:
a 2x2 channel [[1 − α, α], [β, 1 − β]] has the trade-off function through (0, 1),
(α, β), (1, 0); Lemma 1(3) of the paper decides C ⊑ D from the two points:
β_C / (1 − α_C) <= β_D / (1 − α_D) and (1 − β_C) / α_C >= (1 − β_D) / α_D.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from qifldp.reproduce import (
    FIG1_EPS,
    FIG1_THETA,
    FIG2_EPS,
    FIG2_THETA,
    FIG3_EPS,
    PRINT_DPI,
    _grid_size,
    _panels,
    figure_1,
    figure_2,
    figure_3,
)


def _the_point(eps, theta):
    return 0.5 * math.exp(-eps * theta / 2), 0.5 * math.exp(eps * (theta - 1) / 2)


def _oue_point(eps):
    return 1 / (math.exp(eps) + 1), 0.5


def _sue_point(eps):
    a = 1 / (math.exp(eps / 2) + 1)
    return a, a


def _lemma1(c, d):
    (ac, bc), (ad, bd) = c, d
    return bc / (1 - ac) <= bd / (1 - ad) and (1 - bc) / ac >= (1 - bd) / ad


def _lemma10_threshold(eps):
    """The paper's Lemma 10 bound, written out: theta >= this."""
    e = math.exp(eps)
    return (
        2 * math.log(e + 1 + (math.exp(eps / 2) - 1) * math.sqrt(e + 1)) - eps - 2 * math.log(2)
    ) / eps


@pytest.fixture(scope="module")
def figs(tmp_path_factory):
    out = tmp_path_factory.mktemp("fig13")
    return {1: figure_1(out), 2: figure_2(out), 3: figure_3(out)}


def test_figure_1_curves_and_verdicts(figs):
    s = figs[1].series
    for eps in FIG1_EPS:
        v = np.asarray(s["curves"][f"eps={eps:g}"])
        assert v[0] == pytest.approx((0, 1)) and v[-1] == pytest.approx((1, 0))
        assert v[1] == pytest.approx(_the_point(eps, FIG1_THETA), rel=1e-12)
    for up, down in zip(
        s["larger_eps_refines_smaller"], s["smaller_eps_refines_larger"], strict=True
    ):
        e, e2 = up["eps"], up["eps'"]
        assert up["holds"] == _lemma1(_the_point(e2, FIG1_THETA), _the_point(e, FIG1_THETA)) is True
        assert (
            down["holds"] == _lemma1(_the_point(e, FIG1_THETA), _the_point(e2, FIG1_THETA)) is False
        )
        assert down["gap"] > 0


def test_figure_2_verdicts_follow_lemma_10(figs):
    s = figs[2].series
    assert s["theta"] == FIG2_THETA == 0.8
    for eps in FIG2_EPS:
        p = s[f"eps={eps:g}"]
        thr = _lemma10_threshold(eps)
        assert p["threshold"] == pytest.approx(thr, rel=1e-9)
        holds = _lemma1(_oue_point(eps), _the_point(eps, FIG2_THETA))
        assert p["oue_refines_the"]["holds"] == holds == (FIG2_THETA >= thr)
        # the plotted difference T_THE − T_OUE is negative somewhere iff refinement fails
        assert (p["min_difference"] < -1e-12) == (not holds)
    # the paper: "for theta = 0.8, refinement holds for eps <= 0.8 and breaks above"
    assert s["eps=0.8"]["oue_refines_the"]["holds"] and not s["eps=2"]["oue_refines_the"]["holds"]


def test_figure_3_meet_is_the_envelope_of_the_two_points(figs):
    for eps in FIG3_EPS:
        p = figs[3].series[f"eps={eps:g}"]
        want = [(0, 1), _oue_point(eps), _sue_point(eps), (1, 0)]  # alpha ascending
        assert np.asarray(p["paper_meet"]) == pytest.approx(np.asarray(want), abs=1e-12)
        assert p["max_gap_to_lattice"] < 1e-12
        assert p["meet_refines_sue"]["holds"] and p["meet_refines_oue"]["holds"]
        # Lemma 9: SUE and OUE bit channels are incomparable
        assert _lemma1(_sue_point(eps), _oue_point(eps)) is False
        assert _lemma1(_oue_point(eps), _sue_point(eps)) is False
        assert not p["sue_refines_oue"]["holds"] and not p["oue_refines_sue"]["holds"]


def test_print_formats_are_written(figs):
    from matplotlib.image import imread

    for fig in figs.values():
        assert set(fig.files) == {"png", "pdf", "svg"} and fig.path == fig.files["png"]
        assert fig.files["pdf"].read_bytes().startswith(b"%PDF-")
        root = ET.parse(fig.files["svg"]).getroot()
        assert root.tag.endswith("svg")
        w, h = fig.figure.get_size_inches()
        # SVG sizes are in points (1/72 in): the vector drawing keeps the figure's size
        assert float(root.get("width").removesuffix("pt")) == pytest.approx(72 * w, abs=0.5)
        assert float(root.get("height").removesuffix("pt")) == pytest.approx(72 * h, abs=0.5)
        assert imread(fig.files["png"]).shape[2] in (3, 4)
    assert PRINT_DPI >= 300


def test_four_panels_are_laid_out_two_by_two():
    from matplotlib.figure import Figure

    fig = Figure(figsize=_grid_size(4))
    axes = _panels(fig, 4)
    rows = [ax.get_subplotspec().rowspan.start for ax in axes]
    cols = [ax.get_subplotspec().colspan.start for ax in axes]
    assert rows == [0, 0, 1, 1] and cols == [0, 1, 0, 1]
    w, h = _grid_size(4)
    assert 0.8 < w / h < 1.4  # not a strip: the full Figs. 4 and 5 were 1760 x 429
    three = _panels(Figure(figsize=_grid_size(3)), 3)
    assert len(three) == 3 and len(three[0].figure.axes) == 3  # the unused cell removed


@pytest.mark.slow
def test_full_figure_5_is_readable(tmp_path):
    from qifldp.reproduce import DPI, figure_5

    fig = figure_5(tmp_path, formats=["png"])
    panels = [ax for ax in fig.figure.axes if ax.get_title().startswith("eps = ")]
    assert len(panels) == 4
    w, h = fig.figure.get_size_inches() * DPI
    assert w < 1.5 * h
