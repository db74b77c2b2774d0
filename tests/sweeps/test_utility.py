"""Utility as the estimators' mean variance (QIF paper Sec. VII-A, issue 22).

Closed forms written here (Wang et al. 2017, Eq. 2 with the protocols' p*, q*), with
x = e^(eps/2) and the mean over the k items, which needs only Σ f = 1:
OUE 4 x^2 / (x^2 - 1)^2 + 1/k, SUE x / (x - 1)^2 (its f-term vanishes: 1 - p - q = 0).
The crossing at k = 50 is solved here by bisection on these formulas.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.sweeps.utility import mean_variance, utility_table, variance_crossing


def _oue(k, eps):
    x = math.exp(eps / 2)
    return 4 * x * x / (x * x - 1) ** 2 + 1 / k


def _sue(k, eps):
    x = math.exp(eps / 2)
    return x / (x - 1) ** 2


def _bisect(f, lo, hi):
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (f(mid) < 0) == (f(lo) < 0) else (lo, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("eps", [0.5, 2.0, 7.0, 12.0])
def test_mean_variances_are_the_closed_forms_for_any_data(eps):
    assert mean_variance("oue", 50, eps) == pytest.approx(_oue(50, eps), rel=1e-12)
    assert mean_variance("sue", 50, eps) == pytest.approx(_sue(50, eps), rel=1e-12)
    # the mean over the items does not depend on the distribution
    f = np.random.default_rng(0).dirichlet(np.ones(50))
    got = float(np.mean(q.protocol("oue", 50, eps).variance(1, f)))
    assert got == pytest.approx(_oue(50, eps), rel=1e-12)


def test_oue_is_not_always_more_useful_than_sue_at_k_50():
    want = _bisect(lambda e: _oue(50, e) - _sue(50, e), 1.0, 12.0)
    got = variance_crossing("oue", "sue", 50, 1.0, 12.0)
    assert got == pytest.approx(want, abs=1e-9)
    assert 7.74 < got < 7.75
    t = utility_table(["oue", "sue"], 50, [1.0, 4.0, 7.7, 7.8, 12.0])
    assert t["best"].tolist() == ["oue", "oue", "oue", "sue", "sue"]
    # for an item of frequency 0 OUE is always better: 4x/(x+1)^2 <= 1
    for eps in (0.5, 8.0, 12.0):
        assert q.protocol("oue", 50, eps).variance(1) < q.protocol("sue", 50, eps).variance(1)


def test_sue_beats_the_at_every_theta_on_the_grid():
    t = utility_table(
        ["sue", *[("the", {"theta": th}) for th in (0.55, 0.7, 0.8, 0.9, 0.97)]],
        50,
        [0.5, 2.0, 4.0, 8.0, 12.0],
    )
    assert (t["best"] == "sue").all()


def test_bad_arguments():
    with pytest.raises(ParameterError, match="no crossing"):
        variance_crossing("oue", "sue", 50, 1.0, 5.0)
    with pytest.raises(ParameterError, match="lo < hi"):
        variance_crossing("oue", "sue", 50, 5.0, 1.0)
    with pytest.raises(InputTypeError, match="protocols"):
        utility_table("oue", 50, [1.0])
    with pytest.raises(InputTypeError, match="each entry"):
        utility_table([("the", 0.8)], 50, [1.0])
    with pytest.raises(InputTypeError, match="epss"):
        utility_table(["oue"], 50, [])
