"""The QIF paper's utility statements (Sec. VII-A, reading Fig. 5), issue 22.

Expected values derived here: the mean over the k items of Wang et al.'s variance
[f p*(1 - p*) + (1 - f) q*(1 - q*)] / (p* - q*)^2 with the mean frequency 1/k, from the
protocols' p*, q* written out: SUE p* = x/(x + 1), q* = 1/(x + 1) (x = e^(eps/2)); OUE
p* = 1/2, q* = 1/(e^eps + 1); THE p* = 1 - e^(eps(theta - 1)/2)/2, q* = e^(-eps theta/2)/2.
"""

from __future__ import annotations

import math

import pytest

from qifldp import audit as A

K = 50


def _mean_var(p, q, k=K):
    return ((p * (1 - p)) / k + (1 - 1 / k) * q * (1 - q)) / (p - q) ** 2


def _sue(eps):
    x = math.exp(eps / 2)
    return _mean_var(x / (x + 1), 1 / (x + 1))


def _oue(eps):
    return _mean_var(0.5, 1 / (math.exp(eps) + 1))


def _the(eps, theta):
    return _mean_var(1 - math.exp(eps * (theta - 1) / 2) / 2, math.exp(-eps * theta / 2) / 2)


@pytest.fixture(scope="module")
def results():
    return {r.key: r for r in A.audit(["qif.utility_oue_sue", "qif.utility_sue_the"])}


def test_oue_is_not_always_more_useful_than_sue(results):
    lo, hi = 7.0, 8.0
    assert _oue(lo) < _sue(lo) and _oue(hi) > _sue(hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _oue(mid) < _sue(mid) else (lo, mid)
    r = results["qif.utility_oue_sue"]
    assert r.verdict == A.REFUTED
    assert f"eps < {lo:.4f}" in r.details
    assert f"eps = 8: OUE {_oue(8.0):.5f}/n, SUE {_sue(8.0):.5f}/n" in r.details
    worse = [0.5 * i for i in range(1, 25) if _oue(0.5 * i) > _sue(0.5 * i)]
    assert worse[0] == 8.0 and f"SUE is better at {worse}" in r.details


def test_sue_is_more_useful_than_the_on_the_grid(results):
    thetas = [0.51 + 0.01 * i for i in range(49)]
    ratios = [
        (min(_the(e, t) for t in thetas) / _sue(e), e) for e in (0.5 * i for i in range(1, 25))
    ]
    low, at = min(ratios)
    assert low > 1
    r = results["qif.utility_sue_the"]
    assert r.verdict == A.CONFIRMED
    assert f"at least {low:.4f} (at eps = {at:g})" in r.details
