"""Symmetric max case in O(k log k): the extreme generators of every class of B from
prefix and suffix extremes over A's sorted sizes (issue 23), against the scan over every
generator (method="scan", O(k^2)) and the explicit max-case decision."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as S
from qifldp.deadline import TickClock, use_clock
from qifldp.errors import ParameterError, VerificationError
from qifldp.symmetric import SymmetricChannel
from qifldp.symmetric.max_case import max_case_refines
from tests.refinement.test_max_case_scale import PAIRS, _make


def _random_channel(rng, k: int):
    sizes = np.sort(rng.choice(np.arange(k + 1), size=int(rng.integers(1, k + 2)), replace=False))
    li = np.log(rng.random(sizes.size)) * rng.choice([1.0, 5.0, 30.0])
    lo = np.log(rng.random(sizes.size)) * rng.choice([1.0, 5.0, 30.0])
    li[sizes == 0] = -np.inf
    lo[sizes == k] = -np.inf
    if rng.random() < 0.2:  # a class with a_s = 0
        li[rng.integers(sizes.size)] = -np.inf
    total = np.logaddexp.reduce(np.concatenate([li, lo]))
    if not np.isfinite(total):  # no class has mass
        return None
    return SymmetricChannel(k, sizes, li - total, lo - total)


def _verdict(A, B, method):
    try:
        return max_case_refines(A, B, method=method)
    except VerificationError:
        return None


def test_sorted_equals_scan_on_random_channels():
    """60 random pairs of subset channels (k = 2 .. 8, random sizes and masses, classes
    with a_s = 0): the same verdict by both routes, and where it holds or fails the
    explicit max-case decision on the expanded channels agrees (k <= 4, first 25 pairs)."""
    rng = np.random.default_rng(23)
    seen = set()
    for n in range(60):
        k = int(rng.integers(2, 9))
        A, B = _random_channel(rng, k), _random_channel(rng, k)
        if A is None or B is None:
            continue
        r, s = _verdict(A, B, "sorted"), _verdict(A, B, "scan")
        vr = None if r is None else r.holds
        assert vr == (None if s is None else s.holds)
        seen.add(vr)
        if r is not None and k <= 4 and n < 25:
            Ae, Be = A.expand(lumped=True).matrix, B.expand(lumped=True).matrix
            if r.holds:
                R = r.witness.expand(lumped=True)
                assert R.min() >= 0 and np.abs(Ae @ R - Be).max() <= 1e-12
            else:
                assert q.max_case_refines(Ae, Be).holds is False
    assert seen == {True, False, None}


@pytest.mark.parametrize(("na", "ea", "nb", "eb"), PAIRS)
def test_sorted_equals_scan_on_protocols(na, ea, nb, eb):
    A, B = _make(na, 40, ea), _make(nb, 40, eb)
    r, s = max_case_refines(A, B), max_case_refines(A, B, method="scan")
    assert r.holds == s.holds
    if r.holds:
        assert r.witness.residual <= 1e-7 and r.about == s.about


def test_large_k_decided():
    k = 10**4
    r = q.max_case_refines(S.sue(k, 24.0), S.oue(k, 24.0), strict=True)
    assert r.holds and r.about == "protocols" and r.witness.residual <= 1e-7
    f = q.max_case_refines(S.grr(k, 1.0), S.blh(k, 1.0), strict=True)
    assert f.holds is False and f.counterexample.gap > 0


def test_time_limit_counted_in_clock_readings():
    """A deterministic clock (one unit per reading): the decision stops at its limit, an
    undecided result naming the time, never past the budget by more than one reading."""
    A, B = S.oue(3000, 2.0), S.sue(3000, 2.0)
    with use_clock(TickClock()) as clock:
        r = q.max_case_refines(A, B, time_limit=4)
        assert r.holds is None and "time_limit = 4" in r.certified_by
        assert clock.readings <= 4 + 2
    tried = r.details["tried"]  # the stages passed, each named once, the last one stopped
    assert tried[-1] in r.certified_by
    assert all(a != b for a, b in zip(tried[:-1], tried[1:], strict=True))
    with use_clock(TickClock()):
        assert q.max_case_refines(A, B, time_limit=10**6).holds


def test_bad_method():
    with pytest.raises(ParameterError, match="method must be"):
        max_case_refines(S.grr(3, 1.0), S.grr(3, 1.0), method="fast")
