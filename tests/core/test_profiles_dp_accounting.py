"""privacy_profile against an independent library: Google's dp_accounting (PLD accounting).

dp_accounting's privacy loss distributions are correct for discrete mechanisms up to their
discretisation of the privacy loss (``value_discretization_interval`` = 1e-4): its
pessimistic estimate bounds delta(eps) from above, its optimistic one from below. Our exact
profile must lie in that bracket, and the bracket is narrow (measured: within 5e-5). Checked:
k-ary randomized response (= GRR) at k = 2 .. 10^6, arbitrary pairs of rows (OUE's explicit
channel), same-secret composition of two different channels, and n-fold repetition.
Skipped where dp_accounting is not installed (it is not a dependency of qifldp).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym

pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

#: Width of the bracket [optimistic, pessimistic] measured on these cases (discretisation 1e-4).
BRACKET = 1e-4
EPSS = np.array([0.0, 0.25, 0.5, 1.0, 1.5, 3.0])


def _assert_bracketed(ours, lower, upper):
    ours, lower, upper = map(np.asarray, (ours, lower, upper))
    assert np.all(lower <= ours + 1e-12), (lower, ours)
    assert np.all(ours <= upper + 1e-12), (ours, upper)
    assert np.all(upper - lower <= BRACKET)


def _rr(k: int, eps: float, pessimistic: bool):
    # dp_accounting's randomized response: the true value w.p. 1 - p, else uniform over k
    # values; GRR(k, eps) has p = k / (e^eps + k - 1)
    return pld.from_randomized_response(k / (math.exp(eps) + k - 1), k, pessimistic)


@pytest.mark.parametrize(("k", "eps"), [(2, 1.0), (5, 0.5), (50, 2.0), (10**6, 1.0)])
def test_grr_profile_matches_randomized_response_pld(k, eps):
    C = sym.grr(k, eps) if k > 1000 else q.grr(k, eps)
    ours = q.privacy_profile(C, EPSS)
    lower = [_rr(k, eps, False).get_delta_for_epsilon(e) for e in EPSS]
    upper = [_rr(k, eps, True).get_delta_for_epsilon(e) for e in EPSS]
    _assert_bracketed(ours, lower, upper)


def _pmf(row):
    return {j: math.log(v) for j, v in enumerate(row) if v > 0}


def _worst_pair(channels, pessimistic: bool, epss):
    """max over ordered input pairs of the delta of the composed per-channel PLDs."""
    n = channels[0].shape[0]
    best = np.zeros(len(epss))
    for i, j in itertools.permutations(range(n), 2):
        P = None
        for C in channels:
            # lower = the row of x' (j), upper = the row of x (i): loss ln C[i, y] / C[j, y]
            D = pld.from_two_probability_mass_functions(
                _pmf(C.matrix[j]), _pmf(C.matrix[i]), pessimistic_estimate=pessimistic
            )
            P = D if P is None else P.compose(D)
        best = np.maximum(best, [P.get_delta_for_epsilon(e) for e in epss])
    return best


def test_explicit_channel_profile_matches_two_pmf_plds():
    C = q.oue(4, 1.0)
    ours = q.privacy_profile(C, EPSS)
    _assert_bracketed(ours, _worst_pair([C], False, EPSS), _worst_pair([C], True, EPSS))


def test_same_secret_composition_matches_composed_plds():
    A = q.Channel([[0.75, 0.25], [0.25, 0.75], [0.5, 0.5]])
    B = q.Channel([[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]])
    ours = q.privacy_profile(q.compose(A, B), EPSS)
    lower, upper = _worst_pair([A, B], False, EPSS), _worst_pair([A, B], True, EPSS)
    _assert_bracketed(ours, lower, upper)


@pytest.mark.parametrize("n", [2, 3, 10])
def test_repeated_release_matches_self_composed_pld(n):
    epss = EPSS * n / 2
    ours = q.privacy_profile(q.repeated(q.grr(3, 1.0), n), epss)
    lower = [_rr(3, 1.0, False).self_compose(n).get_delta_for_epsilon(e) for e in epss]
    upper = [_rr(3, 1.0, True).self_compose(n).get_delta_for_epsilon(e) for e in epss]
    _assert_bracketed(ours, lower, upper)


def test_fifty_releases_at_k_a_million():
    # the symmetric composition: no expansion; dp_accounting floors its pessimistic delta
    # at the truncated tail mass (~1e-15), far above the true values
    epss = [5.0, 10.0, 20.0]
    ours = np.asarray(q.privacy_profile(q.repeated(sym.grr(10**6, 1.0), 50), epss))
    upper = [_rr(10**6, 1.0, True).self_compose(50).get_delta_for_epsilon(e) for e in epss]
    assert np.all(ours <= np.asarray(upper)) and np.all(np.asarray(upper) <= 1e-14)
    # exact, by hand: under row x each release adds a privacy loss +1 (y = x, prob. p), -1
    # (y = x', prob. q) or 0; delta(e) = sum over the trinomial counts (a, b) of
    # Pr(a, b) (1 - e^{e - (a - b)})_+
    k, n = 10**6, 50
    pp, qq = math.e / (math.e + k - 1), 1 / (math.e + k - 1)

    for e, got in zip(epss, ours, strict=True):
        want = 0.0
        for a in range(n + 1):
            for b in range(n - a + 1):
                if a - b > e:
                    log_pr = (
                        math.lgamma(n + 1)
                        - math.lgamma(a + 1)
                        - math.lgamma(b + 1)
                        - math.lgamma(n - a - b + 1)
                        + a * math.log(pp)
                        + b * math.log(qq)
                        + (n - a - b) * math.log1p(-pp - qq)
                    )
                    want += math.exp(log_pr) * (1 - math.exp(e - (a - b)))
        assert got == pytest.approx(want, rel=1e-9)
