"""PCKV budget allocation: the MSE approximation (Eqs. 16-18), a numeric minimiser, Fig. 4.

Expected values: g, h by hand at budgets with rational e^eps; the closed-form splits of
Lemma 2 (UE) and Eq. 21 (GRR, as reconstructed in ``pckv_allocation``) against
``pckv_numeric_allocation`` (scipy on the composition frontier), whose objective is
re-evaluated here; the frontier against ``pckv_epsilon`` and the explicit channel;
Fig. 4's stated orderings on ``pckv_allocation_curves``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError

EPSS = [0.05, 0.1, 0.3, 0.5, 1.0, 2.0, 4.0, 8.0]


def _objective(eps1, eps2, m, **kw):
    g, h = q.pckv_mse_coefficients(eps1, eps2, **kw)
    return g + h * m * m


def test_coefficients_by_hand():
    # UE, e^eps1 = 3, e^eps2 = 3: b = 1/4, p = 3/4 -> g = (1/4)/((1/4)(1/4)) = 4, h = 3
    g, h = q.pckv_mse_coefficients(math.log(3), math.log(3))
    assert math.isclose(g, 4.0, rel_tol=1e-13) and math.isclose(h, 3.0, rel_tol=1e-13)
    # GRR, d + ell = 4, e^eps1 = 3: a = 3/6 = 1/2, b = 1/6; e^eps2 = 3: p = 3/4
    # g = (1/6)/((1/4)(1/4)) = 8/3, h = (1/6)(5/6)/(1/3)^2 = 5/4
    g, h = q.pckv_mse_coefficients(math.log(3), math.log(3), ell=1, mechanism="grr", d=3)
    assert math.isclose(g, 8 / 3, rel_tol=1e-13) and math.isclose(h, 5 / 4, rel_tol=1e-13)
    # general a = 0.8, e^eps1 = 3: b = 0.8 / (0.8 + 0.2 * 3) = 4/7
    g, h = q.pckv_mse_coefficients(math.log(3), math.log(3), a=0.8)
    b = 4 / 7
    assert math.isclose(g, b / (0.64 * 0.25), rel_tol=1e-13)
    assert math.isclose(h, b * (1 - b) / (0.8 - b) ** 2, rel_tol=1e-13)


def test_coefficients_are_the_protocol_mse_approximation():
    P = q.PCKV(5, 1.5, 2, "grr")
    g, h = q.pckv_mse_coefficients(P.eps1, P.eps2, 2, "grr", d=5)
    n, f, m = 1000, 0.2, -0.4
    mse_f, mse_m = P.mse(n, f, m, approximate=True)
    assert math.isclose(mse_f, 4 * h / n, rel_tol=1e-13)
    assert math.isclose(mse_m, 4 / (n * f * f) * (g + h * m * m), rel_tol=1e-13)


@pytest.mark.parametrize("eps", EPSS)
@pytest.mark.parametrize("m", [0.0, 0.5])
def test_ue_numeric_minimiser_is_lemma_2(eps, m):
    num = q.pckv_numeric_allocation(eps, m=m)
    closed = q.pckv_allocation(eps)
    _same_optimum(num, closed, m)


def _same_optimum(num, closed, m, **kw):
    """The minimiser found the closed-form split: eps1 to 1e-6, the objective to 1e-8.

    eps2 is compared through the objective: near Lemma 2's corner of (4) the frontier
    has slope d eps2 / d eps1 = -1 / (2 e^(eps1 - eps) - 1), about -e^eps, so a 1e-8
    step in eps1 moves eps2 by ~e^eps 1e-8 while the objective stays flat.
    """
    assert abs(num[0] - closed[0]) <= 1e-6
    best, found = _objective(*closed, m, **kw), _objective(*num, m, **kw)
    assert best <= found * (1 + 1e-9)  # the closed form is not beaten
    assert found <= best * (1 + 1e-8)


# For |m| = 1 the Lemma 2 split is the minimiser only above eps* (measured with the
# directional derivative along the frontier: eps* = 0.8527 at |m| = 1, 0.5749 at 0.9,
# 0.2869 at 0.8): the h m^2 term, decreasing in eps1, moves the optimum inside (4).
GAPS = [(0.05, 0.0336), (0.1, 0.0294), (0.3, 0.0153), (0.5, 0.0060)]


@pytest.mark.parametrize(("eps", "gain"), GAPS)
def test_ue_lemma_2_is_not_the_minimiser_at_small_eps_and_m_1(eps, gain):
    num = q.pckv_numeric_allocation(eps, m=1.0)
    closed = q.pckv_allocation(eps)
    assert num[0] > closed[0] + 1e-3 and num[1] < closed[1]
    assert math.isclose(q.pckv_epsilon(*num), eps, rel_tol=1e-12)  # on the frontier
    measured = 1 - _objective(*num, 1.0) / _objective(*closed, 1.0)
    assert round(measured, 4) == gain


@pytest.mark.parametrize("eps", [1.0, 2.0, 4.0])
def test_ue_lemma_2_is_the_minimiser_above_the_threshold_even_at_m_1(eps):
    _same_optimum(q.pckv_numeric_allocation(eps, m=1.0), q.pckv_allocation(eps), 1.0)


@pytest.mark.parametrize("d", [2, 100])
@pytest.mark.parametrize("ell", [1, 2, 3])
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("m", [0.0, 1.0])
def test_grr_numeric_minimiser_is_eq_21(d, ell, eps, m):
    num = q.pckv_numeric_allocation(eps, ell, "grr", m=m, d=d)
    closed = q.pckv_allocation(eps, ell, "grr")
    _same_optimum(num, closed, m, ell=ell, mechanism="grr", d=d)


@pytest.mark.parametrize(("mechanism", "ell"), [("ue", 2), ("grr", 2), ("grr", 3)])
def test_frontier_spends_the_budget_on_the_explicit_channel(mechanism, ell):
    # the numeric split at m = 1, eps = 0.3 (UE: an interior point of (4)) spends eps
    eps = 0.3
    eps1, eps2 = q.pckv_numeric_allocation(eps, ell, mechanism, m=1.0, d=2)
    assert math.isclose(q.pckv_epsilon(eps1, eps2, ell, mechanism), eps, rel_tol=1e-10)
    P = q.PCKV(2, eps, ell, mechanism, eps1=eps1, eps2=eps2 * (1 - 1e-12))
    assert math.isclose(q.ldp_epsilon(P.channel()), eps, rel_tol=1e-9)


def test_grr_value_budget_can_be_unbounded():
    # Theorem 3 at ell = 2, eps1 = 0.5: eps increases with eps2 to ln(1 + 2 e^0.5) = 1.458;
    # a total budget above that admits any eps2 (EPS2_CAP is where the search stops)
    from qifldp.protocols.pckv import EPS2_CAP, _max_eps2

    limit = math.log(1 + 2 * math.exp(0.5))
    assert math.isclose(q.pckv_epsilon(0.5, 40.0, 2, "grr"), limit, rel_tol=1e-12)
    assert _max_eps2(1.5, 0.5, 2, "grr") == EPS2_CAP
    assert _max_eps2(1.4, 0.5, 2, "grr") < EPS2_CAP


def test_fig_4_orderings():
    # Fig. 4 (text): the optimized allocation has a much smaller g than the other two,
    # and a slightly larger h than the non-optimized one (h decreases in eps1).
    eps = np.linspace(0.1, 6.0, 60)
    c = q.pckv_allocation_curves(eps)
    assert np.array_equal(c["eps"], eps)
    g, h = c["g_optimized"], c["h_optimized"]
    assert np.all(g < c["g_naive"]) and np.all(g < c["g_nonoptimized"])
    assert np.all(h > c["h_nonoptimized"]) and np.all(h < c["h_naive"])
    # every allocation within the budget (Theorem 2); naive is strictly below it
    for name in ("optimized", "nonoptimized"):
        spent = [
            q.pckv_epsilon(a, b) for a, b in zip(c[f"eps1_{name}"], c[f"eps2_{name}"], strict=True)
        ]
        np.testing.assert_allclose(spent, eps, rtol=1e-12)
    assert all(q.pckv_epsilon(e / 2, e / 2) < e for e in eps)


def test_fig_4_values_by_hand():
    # eps = 2 ln 3 (e^eps = 9): optimized e^eps1 = 5 (b = 1/6), e^eps2 = 9 (p = 9/10):
    # g = (1/6)/((1/4)(16/25)) = 25/24, h = (1/6)(5/6)/(1/3)^2 = 5/4
    c = q.pckv_allocation_curves([2 * math.log(3)])
    assert math.isclose(c["g_optimized"][0], 25 / 24, rel_tol=1e-12)
    assert math.isclose(c["h_optimized"][0], 5 / 4, rel_tol=1e-12)
    # naive: e^eps1 = e^eps2 = 3: g = 4, h = 3 (as in test_coefficients_by_hand)
    assert math.isclose(c["g_naive"][0], 4.0, rel_tol=1e-12)
    # non-optimized: e^eps2 = 3, e^eps1 = 9 (1 + 1/3) / 2 = 6: b = 1/7, p = 3/4
    # g = (1/7)/((1/4)(1/4)) = 16/7, h = (1/7)(6/7)/(5/14)^2 = 24/25
    assert math.isclose(c["eps1_nonoptimized"][0], math.log(6), rel_tol=1e-12)
    assert math.isclose(c["g_nonoptimized"][0], 16 / 7, rel_tol=1e-12)
    assert math.isclose(c["h_nonoptimized"][0], 24 / 25, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: q.pckv_mse_coefficients(0.0, 1.0), ParameterError, "eps1 must be > 0"),
        (lambda: q.pckv_mse_coefficients(1.0, 1.0, mechanism="grr"), ParameterError, "d "),
        (lambda: q.pckv_mse_coefficients(1.0, 1.0, a=1.0), ParameterError, "a must lie"),
        (lambda: q.pckv_mse_coefficients(1.0, 1.0, 1, "grr", 3, 0.7), ParameterError, "UE only"),
        (lambda: q.pckv_numeric_allocation(1.0, m=1.5), ParameterError, "m"),
        (lambda: q.pckv_numeric_allocation(1.0, mechanism="grr"), ParameterError, "d "),
        (lambda: q.pckv_numeric_allocation(-1.0), ParameterError, "eps must be >"),
        (lambda: q.pckv_numeric_allocation(1.0, d=1.5), InputTypeError, "d"),
        (lambda: q.pckv_allocation_curves([]), ParameterError, "at least one"),
        (lambda: q.pckv_allocation_curves([1.0, 0.0]), ParameterError, "> 0"),
        (lambda: q.pckv_allocation_curves("1"), InputTypeError, "eps"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_plot_fig_4_draws_the_curves_data():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    eps = [0.5, 1.0, 2.0, 3.0]
    ax_g, ax_h = q.plot_pckv_allocation_curves(eps)
    c = q.pckv_allocation_curves(eps)
    for ax, coefficient in ((ax_g, "g"), (ax_h, "h")):
        lines = ax.get_lines()
        assert len(lines) == 3
        for line, name in zip(lines, ("optimized", "naive", "nonoptimized"), strict=True):
            np.testing.assert_array_equal(line.get_ydata(), c[f"{coefficient}_{name}"])
    fig, axes = plt.subplots(1, 2)
    assert q.plot_pckv_allocation_curves(eps, axes=axes)[1] is axes[1]
    with pytest.raises(InputTypeError, match="two matplotlib Axes"):
        q.plot_pckv_allocation_curves(eps, axes=[1, 2])
    plt.close("all")
