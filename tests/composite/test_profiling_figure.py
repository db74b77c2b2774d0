"""The multidimensional paper's Fig. 1 drawn on a probability axis (issue 22).

The printed ACC_SS = (e^eps + 1) / (2k) (the paper, Sec. 3.2.1) is written out here; its
product over ks = (74, 7, 16) reaches ~1e8 at eps = 10, which squashed the valid curves on a
shared log axis. The figure must keep every drawn value of the accuracy panels within
[0, 1] (the printed values clipped at 1) and show the printed curve whole on its own axis.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError
from qifldp.plotting import PROFILING_YMAX, profiling_figure

KS = (74, 7, 16)


def _printed_eq4_ss(eps):
    return math.prod((math.exp(eps) + 1) / (2 * k) for k in KS)


@pytest.fixture(scope="module")
def drawn():
    table = q.profiling_curves(KS, list(range(1, 11)), ["grr", "ss", "olh", "sue", "oue"])
    return table, profiling_figure(table, title="Fig. 1")


def test_accuracy_panels_stay_on_a_probability_axis(drawn):
    table, fig = drawn
    uniform, non_uniform, whole = fig.axes[:3]
    for ax in (uniform, non_uniform):
        assert ax.get_yscale() == "linear"
        assert ax.get_ylim() == pytest.approx((0.0, PROFILING_YMAX)) and PROFILING_YMAX < 1.1
        for line in ax.lines:
            assert np.max(line.get_ydata()) <= 1.0 + 1e-12
    # the exact values are drawn as computed
    exact = [ln for ln in uniform.lines if ln.get_label() == "SUE exact (Bayes)"][0]
    part = table[(table.oracle == "sue") & (table.metric == "uniform")]
    assert exact.get_ydata() == pytest.approx(part.bayes.to_numpy())
    # the printed SS values above 1 are triangles at 1
    tri = [ln for ln in uniform.lines if ln.get_marker() == "^" and ln.get_linestyle() == "None"]
    assert len(tri) == 1
    above = [e for e in range(1, 11) if _printed_eq4_ss(e) > 1]
    assert tri[0].get_xdata().tolist() == above and above[0] == 4


def test_the_printed_curve_is_shown_whole_on_a_log_axis(drawn):
    _, fig = drawn
    whole = fig.axes[2]
    assert whole.get_yscale() == "log"
    (eq4,) = [ln for ln in whole.lines if ln.get_label() == "SS, ACC^U, Eq. 4"]
    want = [_printed_eq4_ss(e) for e in range(1, 11)]
    assert eq4.get_ydata() == pytest.approx(want, rel=1e-12)
    assert 1e8 < want[-1] < 1e9
    assert fig.get_suptitle() == "Fig. 1"


def test_needs_the_table_columns():
    with pytest.raises(InputTypeError, match="table must be a DataFrame"):
        profiling_figure({"eps": [1.0]})
