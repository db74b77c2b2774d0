"""ldp_epsilon of each explicit channel against the protocol's claimed eps.

Findings (recorded here, and in the docstrings):
- GRR, omega-SS (1 <= omega < k), LH/BLH/OLH, SUE, OUE: exactly eps.
- omega-SS with omega = k: 0 (a single output).
- THE: strictly below eps for eps > 0, equal to
  eps/2 + ln(2 - e^(-eps(1-theta)/2)) + ln(2 - e^(-eps theta/2)) -> eps/2 + 2 ln 2;
  e.g. 6.22 at eps = 10, theta = 0.75.
- Bit channels: sue_bit is eps/2; oue_bit is ln((e^eps + 1)/2) < eps; the_bit is
  ln max(p/q, (1-q)/(1-p)) < eps/2.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.formulas import ldp_epsilon_the
from qifldp.protocols.params import the_probabilities

EPS_GRID = [0.05, 0.5, 1.0, 2.5, 6.0]
#: Relative tolerance of an enumerated epsilon (logs of float entries).
REL = 1e-9


@pytest.mark.parametrize("eps", EPS_GRID)
def test_exactly_eps(eps):
    channels = {
        "grr": q.grr(5, eps),
        "ss1": q.subset_selection(5, eps, 1),
        "ss2": q.subset_selection(5, eps, 2),
        "ss4": q.subset_selection(5, eps, 4),
        "lh2": q.local_hashing(3, eps, 2),
        "lh3": q.local_hashing(3, eps, 3),
        "blh": q.blh(4, eps),
        "sue": q.sue(5, eps),
        "oue": q.oue(5, eps),
    }
    if eps <= 2.5:
        channels["olh"] = q.olh(3, eps)
    for name, C in channels.items():
        assert q.ldp_epsilon(C) == pytest.approx(eps, rel=REL), name


def test_ss_omega_k_is_zero():
    assert q.ldp_epsilon(q.subset_selection(4, 3.0, 4)) == 0.0


@pytest.mark.parametrize("eps", EPS_GRID + [10.0, 30.0])
@pytest.mark.parametrize("theta", [0.55, 0.75, 0.95])
def test_the_strictly_below_eps(eps, theta):
    # Largest ratio of neighbouring rows: two bits change, ratio (p/q)((1-q)/(1-p)).
    p, qq = the_probabilities(eps, theta)
    one_minus_p = 0.5 * math.exp(-eps * (1 - theta) / 2)
    expected = math.log(p / qq) + math.log((1 - qq) / one_minus_p)
    for k in (2, 4):
        measured = q.ldp_epsilon(q.the(k, eps, theta))
        assert measured == pytest.approx(expected, rel=REL)
        assert measured == pytest.approx(ldp_epsilon_the(eps, theta), rel=REL)
        assert measured < eps


def test_the_epsilon_numbers():
    # Pinned values (closed form above, enumerated by the channel): far below eps at large eps.
    assert q.ldp_epsilon(q.the(3, 10.0, 0.75)) == pytest.approx(6.219853888166886, rel=1e-12)
    assert q.ldp_epsilon(q.the(3, 1.0, 0.75)) == pytest.approx(0.8831910713276696, rel=1e-12)
    # -> eps/2 + 2 ln 2 as eps grows
    assert ldp_epsilon_the(200.0, 0.75) == pytest.approx(100 + 2 * math.log(2), rel=1e-10)
    # vectorised
    np.testing.assert_allclose(
        ldp_epsilon_the(np.array([1.0, 10.0]), 0.75), [0.8831910713276696, 6.219853888166886]
    )


@pytest.mark.parametrize("eps", EPS_GRID)
def test_bit_channels(eps):
    assert q.ldp_epsilon(q.sue_bit(eps)) == pytest.approx(eps / 2, rel=REL)
    oue_eps = q.ldp_epsilon(q.oue_bit(eps))
    assert oue_eps == pytest.approx(math.log((math.exp(eps) + 1) / 2), rel=REL)
    assert oue_eps < eps
    for theta in (0.55, 0.8):
        p, qq = the_probabilities(eps, theta)
        the_eps = q.ldp_epsilon(q.the_bit(eps, theta))
        assert the_eps == pytest.approx(
            max(math.log(p / qq), math.log((1 - qq) / (1 - p))), rel=1e-8
        )
        assert the_eps < eps / 2


def test_large_eps_grr_is_the_identity():
    # eps = 800: q underflows to 0; the float channel is the identity (ldp_epsilon inf), no NaN.
    assert q.ldp_epsilon(q.grr(3, 800.0)) == math.inf
    assert q.ldp_epsilon(q.the(3, 800.0, 0.75)) == pytest.approx(ldp_epsilon_the(800.0, 0.75))
