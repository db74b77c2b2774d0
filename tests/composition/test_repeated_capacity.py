"""Bayes capacity (and ASR) of n releases of one symmetric GRR, at any k."""

from __future__ import annotations

import itertools
import math

import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import SizeError, UnsupportedKindError
from qifldp.symmetric.composition import REPEATED_GRR_MAX_RELEASES


def _brute(k: int, n: int, eps: float) -> float:
    """sum over all output sequences of max_x prod_i GRR[x, y_i], in plain Python."""
    e = math.exp(eps)
    p, r = e / (e + k - 1), 1 / (e + k - 1)
    total = 0.0
    for ys in itertools.product(range(k), repeat=n):
        total += max(math.prod(p if y == x else r for y in ys) for x in range(k))
    return total


@pytest.mark.parametrize(
    ("k", "n", "eps"),
    [(2, 5, 1.0), (3, 4, 1.0), (4, 3, 0.7), (5, 4, 2.0), (6, 2, 0.0), (3, 1, 1.5)],
)
def test_matches_enumeration_of_every_sequence(k, n, eps):
    C = q.repeated(sym.grr(k, eps), n)
    assert q.bayes_capacity(C) == pytest.approx(_brute(k, n, eps), rel=1e-12)
    assert q.asr(C) == pytest.approx(_brute(k, n, eps) / k, rel=1e-12)
    # and the explicit lumped channel of the package agrees
    assert q.bayes_capacity(C) == pytest.approx(q.bayes_capacity(C.expand()), rel=1e-12)


def test_k_a_million_by_hand():
    k, eps = 10**6, 1.0
    e = math.exp(eps)
    a, b = e / (e + k - 1), 1 / (e + k - 1)
    # n = 2: k(k-1) sequences of two distinct values (max a b), k repeated ones (a^2)
    two = k * (k - 1) * a * b + k * a * a
    # n = 3: all distinct (a b^2), one value twice (3 k (k-1) sequences, a^2 b), all equal (a^3)
    three = k * (k - 1) * (k - 2) * a * b * b + 3 * k * (k - 1) * a * a * b + k * a**3
    assert q.bayes_capacity(q.repeated(sym.grr(k, eps), 2)) == pytest.approx(two, rel=1e-13)
    assert q.bayes_capacity(q.repeated(sym.grr(k, eps), 3)) == pytest.approx(three, rel=1e-13)
    # the ASR is ML / k, without expanding the composition
    assert q.asr(q.repeated(sym.grr(k, eps), 3)) == pytest.approx(three / k, rel=1e-13)
    # two reports are no better than one: k(k-1) a b + k a^2 = k a ((k-1) b + a) = k a
    one = q.bayes_capacity(sym.grr(k, eps))
    assert two == pytest.approx(one, rel=1e-14)
    # more reports never leak less (one is a post-processing of n), nor beyond min(k, e^(n eps))
    prev = one
    for n in (3, 5, 20, 50):
        ml = q.bayes_capacity(q.repeated(sym.grr(k, eps), n))
        assert prev * (1 - 1e-13) <= ml <= min(k, math.exp(n * eps))
        prev = ml


def test_compose_of_identical_grr_is_the_repeated_release():
    k = 7
    C = q.compose(sym.grr(k, 1.2), sym.grr(k, 1.2), sym.grr(k, 1.2))
    assert q.bayes_capacity(C) == pytest.approx(_brute(k, 3, 1.2), rel=1e-12)


def test_other_compositions_say_what_to_do():
    with pytest.raises(UnsupportedKindError, match="expand"):
        q.bayes_capacity(q.compose(sym.grr(10, 1.0), sym.oue(10, 1.0)))
    with pytest.raises(UnsupportedKindError, match="one GRR"):
        q.bayes_capacity(q.compose(sym.grr(10, 1.0), sym.grr(10, 2.0)))
    with pytest.raises(SizeError, match="REPEATED_GRR_MAX_RELEASES"):
        q.bayes_capacity(q.repeated(sym.grr(10, 1.0), REPEATED_GRR_MAX_RELEASES + 1))
