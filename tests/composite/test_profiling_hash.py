"""Profiling simulations against the closed form of the same hash family (issue 22).

The olh reports hash with either uniformly random functions (the QIF paper's channel,
Eq. 26) or the universal family ((a x + b) mod P) mod g. Expected values are derived
here without qifldp.protocols.profiling: the per-attribute ASR from the image size of
the hash functions (E|h([k])| = g (1 − (1 − 1/g)^k) for uniform functions; a
brute-force count over every (a, b) for the universal family), multiplied over the
attributes (all of them are asked at surveys = d, uniform metric).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ParameterError, SizeError
from qifldp.protocols.lh import universal_lh_asr, universal_lh_channel

KS, EPS, N = (74, 7, 16), 5.0, 20_000


def _grr_g(g, eps):
    """p and q' of GRR over the g hash values."""
    return math.exp(eps) / (math.exp(eps) + g - 1), 1 / (math.exp(eps) + g - 1)


def _asr_from_image(k, g, eps, image):
    p, qq = _grr_g(g, eps)
    return (g * qq + (p - qq) * image) / k


def _uniform_asr(k, eps):
    g = max(2, round(math.exp(eps) + 1))
    return _asr_from_image(k, g, eps, g * (1 - (1 - 1 / g) ** k))


def _universal_asr_brute(k, eps, g, prime):
    images = [
        len({((a * x + b) % prime) % g for x in range(k)})
        for a in range(1, prime)
        for b in range(prime)
    ]
    return _asr_from_image(k, g, eps, sum(images) / len(images))


def _uniform_tuples(seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(0, k, N) for k in KS])


@pytest.mark.parametrize(
    ("k", "eps", "g", "prime"), [(3, 1.0, 2, 5), (5, 2.0, 4, 7), (7, 0.5, 3, 11)]
)
def test_universal_asr_is_the_enumerated_channel(k, eps, g, prime):
    want = q.asr(universal_lh_channel(k, eps, g, prime))  # enumeration of the channel
    assert universal_lh_asr(k, eps, g, prime) == pytest.approx(want, rel=1e-12)
    assert universal_lh_asr(k, eps, g, prime) == pytest.approx(
        _universal_asr_brute(k, eps, g, prime), rel=1e-12
    )


def test_closed_forms_of_both_families_at_the_paper_sizes():
    uniform = math.prod(_uniform_asr(k, EPS) for k in KS)
    assert q.profiling_accuracy(KS, EPS, "olh") == pytest.approx(uniform, rel=1e-12)
    g = max(2, round(math.exp(EPS) + 1))  # 149
    universal = math.prod(_universal_asr_brute(k, EPS, g, 151) for k in KS)
    got = q.profiling_accuracy(KS, EPS, "olh", hash="universal", prime=151)
    assert got == pytest.approx(universal, rel=1e-12)
    # per attribute at k = 74 the universal family with P = 1009 gives 0.4305, the
    # uniform one 0.3998 (the 0.430 vs 0.400 of the issue)
    assert universal_lh_asr(74, EPS, g, 1009) == pytest.approx(0.4305, abs=5e-5)
    assert _uniform_asr(74, EPS) == pytest.approx(0.3998, abs=5e-5)


def test_uniform_family_simulation_agrees_with_its_closed_form_at_the_paper_sizes():
    want = math.prod(_uniform_asr(k, EPS) for k in KS)
    r = q.simulate_profiling(_uniform_tuples(), EPS, "olh", ks=KS, rng=1)
    assert abs(r.rate - want) < 3 * math.sqrt(want * (1 - want) / N)


@pytest.mark.parametrize("prime", [151, 1009])
def test_universal_family_simulation_agrees_with_its_closed_form(prime):
    g = max(2, round(math.exp(EPS) + 1))
    if prime == 151:
        want = math.prod(_universal_asr_brute(k, EPS, g, prime) for k in KS)
    else:  # the brute force is slow at P = 1009: the enumerated channel checked above
        want = q.profiling_accuracy(KS, EPS, "olh", hash="universal", prime=prime)
    r = q.simulate_profiling(
        _uniform_tuples(), EPS, "olh", ks=KS, rng=2, hash="universal", prime=prime
    )
    assert abs(r.rate - want) < 3 * math.sqrt(want * (1 - want) / N)


def test_default_universal_prime_is_not_the_uniform_closed_form():
    # the discrepancy of the issue: the pairwise-independent family leaks more
    want = q.profiling_accuracy(KS, EPS, "olh")
    r = q.simulate_profiling(_uniform_tuples(), EPS, "olh", ks=KS, rng=1, hash="universal")
    assert r.rate - want > 4 * r.stderr


def test_exact_enumeration_with_the_universal_family():
    ks = (3, 2)
    for metric in ("uniform", "non-uniform"):
        exact = q.profiling_accuracy(
            ks, 1.0, "olh", 2, metric, method="exact", hash="universal", prime=5
        )
        closed = q.profiling_accuracy(ks, 1.0, "olh", 2, metric, hash="universal", prime=5)
        assert exact == pytest.approx(closed, rel=1e-12)
    # the families differ already at k = 3 (g = 4, P = 5)
    assert q.profiling_accuracy((3, 2), 1.0, "olh", hash="universal", prime=5) != pytest.approx(
        q.profiling_accuracy((3, 2), 1.0, "olh")
    )


def test_hash_family_arguments_are_checked():
    with pytest.raises(ParameterError, match="hash"):
        q.profiling_accuracy(KS, EPS, "olh", hash="random")
    with pytest.raises(ParameterError, match="prime is only used"):
        q.simulate_profiling([[0, 1, 2]], EPS, "olh", ks=KS, prime=151)
    with pytest.raises(ParameterError, match="paper"):
        q.profiling_accuracy(KS, EPS, "ss", method="paper", hash="universal", prime=151)
    with pytest.raises(SizeError, match="uniform"):
        q.profiling_accuracy(KS, EPS, "olh", hash="universal")  # 2^31 − 1: not enumerable
    with pytest.raises(ParameterError, match="prime"):
        q.profiling_accuracy(KS, EPS, "olh", hash="universal", prime=101)  # below g = 149
