"""The later oracles' claims (qifldp.audit.oracles), each against values derived here.

Provenance: RAPPOR's channel by brute force over the permanent bits and CMS's by brute
force over the bits (tests/protocols/_enumeration.py); L-GRR's one-report epsilon and
the longitudinal variance from the rounds' probabilities written out here (the published
second round, the support rate of one report); dBitFlip's d = 1 ratio by hand.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
from qifldp import audit as A
from qifldp.protocols.rappor import RAPPOR
from tests.protocols._enumeration import enumerate_cms, enumerate_rappor

KEYS = [c.key for c in A.CLAIMS if c.references[0] in ("rappor", "longitudinal", "dbitflip")]
KEYS += [c.key for c in A.CLAIMS if c.references[0] in ("hr", "apple", "hm")]


@pytest.fixture(scope="module")
def results():
    return {r.key: r for r in A.audit(KEYS)}


def _eps(M):
    """ln of the largest ratio of two rows' entries in one column (all positive here)."""
    return max(math.log(np.max(M[a] / M[b])) for a, b in itertools.permutations(range(len(M)), 2))


def test_rappor_bounds_attained_on_disjoint_filters(results):
    assert results["rappor.eps_inf"].verdict == A.CONFIRMED
    assert results["rappor.eps_one"].verdict == A.CONFIRMED
    # a table whose two values have disjoint filters (h = 1, m = 2): the bounds are exact
    for seed in range(20):
        P = RAPPOR(2, m=2, h=1, f=0.5, p=0.25, q=0.75, seed=seed)
        if not np.any(P.bloom[0] & P.bloom[1]):
            break
    M = enumerate_rappor(P)
    qs = 0.25 * (0.25 + 0.75) + 0.5 * 0.75  # q* = f/2 (p + q) + (1 - f) q
    ps = 0.25 * (0.25 + 0.75) + 0.5 * 0.25
    assert _eps(M) == pytest.approx(math.log(qs * (1 - ps) / (ps * (1 - qs))), abs=1e-12)
    one_time = RAPPOR(2, m=2, h=1, f=0.5, rounds="one-time", seed=seed)
    assert _eps(enumerate_rappor(one_time)) == pytest.approx(2 * math.log(3), abs=1e-12)


def test_l_grr_published_second_round_leaks_less(results):
    r = results["longitudinal.l_grr_eps1"]
    assert r.verdict == A.CORRECTED
    k, E1 = 3, math.exp(0.5)
    p1, q1 = math.exp(2) / (math.exp(2) + k - 1), 1 / (math.exp(2) + k - 1)
    p2 = (E1 * p1 - q1) / (E1 * p1 - (k - 1) * E1 * q1 + (k - 1) * p1 - q1)
    q2 = (1 - p2) / (k - 1)
    true = math.log((p1 * p2 + (1 - p1) * q2) / (q1 * p2 + (1 - q1) * q2))
    assert f"{true:.4f}" in r.details and true < 0.5
    assert results["longitudinal.unary_eps1"].verdict == A.CONFIRMED
    assert results["longitudinal.eps_perm"].verdict == A.CONFIRMED


def test_l_grr_check_without_a_point_beyond_k_2_is_inconclusive():
    from qifldp.audit.oracles import _l_grr_eps1

    # at k = 2 the published second round gives eps_1 exactly: (p1 p2 + q1 q2) /
    # (q1 p2 + p1 q2) is then a report's own ratio, so no point shows the correction
    E1 = math.exp(0.5)
    p1, q1 = math.exp(2) / (math.exp(2) + 1), 1 / (math.exp(2) + 1)
    p2 = (E1 * p1 - q1) / (E1 * p1 - E1 * q1 + p1 - q1)  # the published formula at k = 2
    ratio = (p1 * p2 + q1 * (1 - p2)) / (q1 * p2 + p1 * (1 - p2))
    assert math.log(ratio) == pytest.approx(0.5, abs=1e-12)
    verdict, details = _l_grr_eps1([(2, 2.0, 0.5), (2, 3.0, 1.0)])
    assert verdict == A.INCONCLUSIVE
    assert "none with k > 2" in details and "2 points" in details
    verdict, _ = _l_grr_eps1([(2, 2.0, 0.5), (3, 2.0, 0.5)])
    assert verdict == A.CORRECTED


def test_longitudinal_variance_holds_only_at_zero_or_for_sue(results):
    r = results["longitudinal.variance"]
    assert r.verdict == A.CONDITIONAL and "only for l_sue" in r.details
    # L-GRR at f = 0.5 (k = 3, eps_perm = 2, eps_1 = 1): the published sigma against the
    # true support rate f p* + (1 - f) q* of iid users
    k, E1 = 3, math.exp(1.0)
    p1, q1 = math.exp(2) / (math.exp(2) + k - 1), 1 / (math.exp(2) + k - 1)
    p2 = (E1 * p1 - q1) / (E1 * p1 - (k - 1) * E1 * q1 + (k - 1) * p1 - q1)
    q2 = (1 - p2) / (k - 1)
    ps, qs = p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
    sigma = 0.5 * ps + 0.5 * qs
    exact = sigma * (1 - sigma) / (1000 * (ps - qs) ** 2)
    s_pub = 0.5 * (2 * p1 * p2 - 2 * p1 * q2 + 2 * q2 - 1) + p2 * q1 + q2 * (1 - q1)
    published = s_pub * (1 - s_pub) / (1000 * (p1 - q1) ** 2 * (p2 - q2) ** 2)
    assert f"{published:.4g}" in r.details and f"{exact:.4g}" in r.details


def test_dbitflip_single_bucket_is_half_the_budget(results):
    r = results["dbitflip.epsilon"]
    assert r.verdict == A.CORRECTED
    assert "b = 3, d = 1: 0.6000" in r.details and "b = 3, d = 2: 1.2000" in r.details


def test_exact_epsilons_confirmed(results):
    keys = ("hr.epsilon", "hm.epsilon", "hr.block_epsilon", "hm.t_epsilon")
    for key in (*keys, "apple.cms_epsilon", "apple.hcms_epsilon"):
        assert results[key].verdict == A.CONFIRMED, results[key].details


def test_cms_sketch_estimator_biased_for_a_fixed_table(results):
    assert results["apple.cms_unbiased"].verdict == A.CONDITIONAL
    # a fixed table mapping both values to one bucket: E[f̂(0)] under value 1 is 1, not 0
    P = q.protocol("cms", 2, 1.0, m=2, hashes=1, seed=0)
    assert P.table[0, 0] == P.table[0, 1]
    M = enumerate_cms(P)
    p = math.exp(0.5) / (math.exp(0.5) + 1)
    b = P.table[0, 0]
    bits = [((c >> (1 - b)) & 1) for c in range(4)]  # bit b of each output (j = 0 only)
    term = [2 * ((s - (1 - p)) / (2 * p - 1) - 0.5) for s in bits]
    assert float(M[1] @ np.array(term)) == pytest.approx(1.0, abs=1e-12)


def test_wang_histogram_encoding_claims():
    """SHE's eps and variance, THE's Var*: q* = e^(-eps theta/2)/2 and p* = 1 -
    e^(eps (theta - 1)/2)/2 written out here (Wang et al., Sec. 4.2)."""
    res = {
        r.key: r for r in A.audit(["wang.she_epsilon", "wang.she_variance", "wang.the_variance"])
    }
    assert all(r.verdict == A.CONFIRMED for r in res.values())
    eps, theta, n = 1.0, 0.75, 1000
    qs, ps = math.exp(-eps * theta / 2) / 2, 1 - math.exp(eps * (theta - 1) / 2) / 2
    var0 = qs * (1 - qs) / (n * (ps - qs) ** 2)
    assert f"{var0:.6g}" in res["wang.the_variance"].details
    half = 0.5 * ps * (1 - ps) + 0.5 * qs * (1 - qs)
    assert f"{half / (n * (ps - qs) ** 2) / var0:.3f}" in res["wang.the_variance"].details
    assert "32.000000 = 8/eps^2" in res["wang.she_variance"].details  # eps = 0.5
    assert A.reference("wang").year == 2017
