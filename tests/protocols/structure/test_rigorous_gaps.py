"""Rigorous and exact vulnerabilities of the atlas's negative routes
(qifldp.protocols.structure.rigorous_gaps): every float value lies within its stated bound of the
exact value, recomputed here in rationals from the channels' floats; the exact values
agree with Counterexample.recheck and with closed forms."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import InputTypeError, ParameterError
from qifldp.protocols.structure.rigorous_gaps import (
    UNIT_ROUNDOFF,
    certified_gap,
    exact_two_point_vulnerability,
    exact_uniform_vulnerability,
    gamma,
    row_scale_error,
    two_point_vulnerability,
    uniform_vulnerability,
)


def _rows(C: q.Channel) -> list[list[Fraction]]:
    """The rows of C as rationals, each divided by its exact sum (the stored problem)."""
    out = []
    for row in C.matrix:
        r = [Fraction(float(v)) for v in row]
        s = sum(r)
        out.append([v / s for v in r])
    return out


def _two_point(C: q.Channel, x0: int, x1: int, w0: float, w1: float) -> Fraction:
    R = _rows(C)
    a, b = Fraction(w0), Fraction(w1)
    return sum((max(a * p, b * r) for p, r in zip(R[x0], R[x1], strict=True)), Fraction(0))


def _uniform(C: q.Channel) -> Fraction:
    R = _rows(C)
    p = Fraction(1.0 / len(R))
    return p * sum((max(col) for col in zip(*R, strict=True)), Fraction(0))


def test_gamma_is_an_upper_bound_of_its_closed_form():
    u = Fraction(UNIT_ROUNDOFF)
    for n in (1, 2, 3, 97, 2**16, 10**9):
        exact = n * u / (1 - n * u)
        assert exact <= Fraction(gamma(n)) <= exact * (1 + 4 * u)
    assert gamma(0) == 0.0
    with pytest.raises(ParameterError, match="2\\^51"):
        gamma(2**51)
    with pytest.raises(ParameterError, match="n must be"):
        gamma(-1)


def _channels() -> list[q.Channel]:
    rng = np.random.default_rng(7)
    M = rng.random((4, 300)) ** 3
    M /= M.sum(axis=1, keepdims=True)
    off = M * (1.0 + np.array([3e-11, -2e-11, 0.0, 1e-12]))[:, None]  # rows off by ~1e-11
    zeros = [[0.5, 0.5, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0], [0.25, 0.25, 0.25, 0.25]]
    return [q.grr(5, 1.3), q.oue(4, 0.7), q.Channel(M), q.Channel(off), q.Channel(zeros)]


@pytest.mark.parametrize("index", range(5))
def test_float_values_lie_within_their_bounds_of_the_exact_values(index):
    C = _channels()[index]
    k = C.shape[0]
    for x0, x1, w0 in ((0, 1, 0.5), (1, 0, 0.3), (k - 1, 0, 0.9)):
        w1 = 1.0 - w0
        v, bound = two_point_vulnerability(C, x0, x1, w0, w1)
        exact = _two_point(C, x0, x1, w0, w1)
        assert abs(Fraction(v) - exact) <= Fraction(bound)
        assert bound < 1e-9 * v  # far below the atlas's search threshold
        assert exact_two_point_vulnerability(C, x0, x1, w0, w1) == exact
    v, bound = uniform_vulnerability(C)
    exact = _uniform(C)
    assert abs(Fraction(v) - exact) <= Fraction(bound)
    assert exact_uniform_vulnerability(C) == exact


def test_row_scale_error_bounds_the_exact_normalisation():
    C = _channels()[3]
    eta = row_scale_error(C.matrix)
    worst = max(abs(1 / sum(Fraction(float(v)) for v in row) - 1) for row in C.matrix)
    assert worst <= Fraction(eta) and eta < 2 * float(worst) + 1e-12
    with pytest.raises(ParameterError, match="positive sum"):
        row_scale_error(np.zeros((1, 3)))


@pytest.mark.parametrize("make", [sym.grr, sym.oue, sym.sue, sym.olh])
def test_symmetric_values_match_their_expansion(make):
    # the stored class masses and the expanded channel's floats are two roundings of the
    # same channel: their exact values agree to rounding, and each float value lies
    # within its bound of its own exact value
    S = make(5, 1.1)
    E = S.expand(lumped=True)
    v, bound = two_point_vulnerability(S, 0, 3, 0.25, 0.75)
    exact = exact_two_point_vulnerability(S, 0, 3, 0.25, 0.75)
    assert abs(Fraction(v) - exact) <= Fraction(bound)
    assert abs(exact - _two_point(E, 0, 3, 0.25, 0.75)) < Fraction(1, 10**13)
    v, bound = uniform_vulnerability(S)
    exact = exact_uniform_vulnerability(S)
    assert abs(Fraction(v) - exact) <= Fraction(bound)
    assert abs(exact - _uniform(E)) < Fraction(1, 10**13)


def test_certified_gap_decides_by_the_bound_or_exactly():
    # a gap above its bound needs no rational arithmetic
    def never() -> Fraction:
        raise AssertionError("the exact values are not needed")

    got = certified_gap((0.5, 1e-16), (0.5 + 1e-15, 1e-16), never, never)
    assert got is not None and got.exact is None and got.gap > got.bound
    # within the bound: the exact values decide, both ways
    third = Fraction(1, 3)
    assert certified_gap((1 / 3, 1e-16), (1 / 3, 1e-16), lambda: third, lambda: third) is None
    more = third + Fraction(1, 2**70)
    up = certified_gap((1 / 3, 1e-16), (1 / 3, 1e-16), lambda: third, lambda: more)
    assert up is not None and up.exact == Fraction(2**-70) and up.gap == 2**-70


def test_bad_pairs_and_weights():
    with pytest.raises(ParameterError, match="two distinct inputs"):
        two_point_vulnerability(q.grr(3, 1.0), 1, 1, 0.5, 0.5)
    with pytest.raises(ParameterError, match="two distinct inputs"):
        exact_two_point_vulnerability(sym.grr(3, 1.0), 0, 3, 0.5, 0.5)
    with pytest.raises(ParameterError, match="finite and >= 0"):
        two_point_vulnerability(q.grr(3, 1.0), 0, 1, -0.5, 0.5)
    # not an integer, not a real: named, instead of numpy's IndexError or a '>=' TypeError
    with pytest.raises(InputTypeError, match="x0 must be an integer"):
        two_point_vulnerability(q.grr(3, 1.0), 0.5, 1, 0.5, 0.5)
    with pytest.raises(InputTypeError, match="x1 must be an integer"):
        exact_two_point_vulnerability(q.grr(3, 1.0), 0, True, 0.5, 0.5)
    with pytest.raises(InputTypeError, match="w0 must be a real number"):
        two_point_vulnerability(q.grr(3, 1.0), 0, 1, "a", 0.5)


def test_exact_maxima_decide_columns_whose_products_underflow():
    # column 1 holds 2^-1074 in both rows: weighted by 1/4 and 1/2 (over row sums just
    # above 1) both products round to 0, yet row 1's is the larger
    t = 2.0**-1074
    C = q.Channel([[1.0, t], [1.0, t]])
    assert 0.25 * t == 0.5 * t == 0.0
    exact = exact_two_point_vulnerability(C, 0, 1, 0.25, 0.5)
    assert exact == _two_point(C, 0, 1, 0.25, 0.5) == Fraction(1, 2)  # (1 + t) / 2 / (1 + t)
    v, bound = two_point_vulnerability(C, 0, 1, 0.25, 0.5)
    assert abs(Fraction(v) - exact) <= Fraction(bound)


def _symmetric_by_counts(
    S: sym.SymmetricChannel, w0: float, w1: float
) -> tuple[Fraction, Fraction]:
    """(two-point, uniform) vulnerabilities of S's stored masses over their exact total,
    from the outputs counted by binomials: an output of size s has mass Pi / C(k-1, s-1)
    at an input in it and Po / C(k-1, s) at an input outside it."""

    def c(n: int, r: int) -> int:
        return comb(n, r) if 0 <= r <= n else 0

    k = S.k
    Pi, Po = S.class_masses()
    total = sum((Fraction(float(v)) for v in [*Pi, *Po]), Fraction(0))
    q0, q1, p = Fraction(w0), Fraction(w1), Fraction(1.0 / k)
    two, uni = Fraction(0), Fraction(0)
    for s, pi, po in zip(S.sizes.tolist(), Pi.tolist(), Po.tolist(), strict=True):
        a = Fraction(pi) / c(k - 1, s - 1) if s > 0 else Fraction(0)
        b = Fraction(po) / c(k - 1, s) if s < k else Fraction(0)
        two += c(k - 2, s - 1) * (max(q0 * a, q1 * b) + max(q0 * b, q1 * a))
        two += (c(k - 2, s - 2) * a + c(k - 2, s) * b) * max(q0, q1)
        uni += c(k, s) * max(a, b)
    return two / total, p * uni / total


@pytest.mark.parametrize("k", [7, 2**60 + 100])
def test_symmetric_bounds_hold_beyond_2_to_the_53(k):
    # beyond 2^53 the floats of k and s lose k - s (2^60 + 100 and its s = k - 200 round
    # to 2^60 and 2^60 - 128: 128 for 200); the counts are formed in integers instead
    L = float(np.log(0.25))
    S = sym.SymmetricChannel(k, [1, k - 200 if k > 200 else k - 2], [L, L], [L, L])
    two, uni = _symmetric_by_counts(S, 0.3, 0.7)
    assert exact_two_point_vulnerability(S, 0, 1, 0.3, 0.7) == two
    assert exact_uniform_vulnerability(S) == uni
    v, bound = two_point_vulnerability(S, 0, 1, 0.3, 0.7)
    assert abs(Fraction(v) - two) <= Fraction(bound) and bound < 1e-14
    v, bound = uniform_vulnerability(S)
    assert abs(Fraction(v) - uni) <= Fraction(bound) and bound < 1e-14
