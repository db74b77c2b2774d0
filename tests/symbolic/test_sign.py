"""The sign decision procedures behind the symbolic maxima: known facts and soundness."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from qifldp.symbolic import _sign

eps = sp.Symbol("eps")
theta = sp.Symbol("theta")
E = sp.exp(eps)
H = sp.exp(eps / 2)
DOM = {eps: sp.Interval(0, sp.oo), theta: sp.Interval.open(sp.Rational(1, 2), 1)}


@pytest.mark.parametrize(
    "expr, expected",
    [
        ((E - 1) / (E + 2), _sign.POS),  # > 0 for eps > 0 (0 only at the closed end)
        (E - 2, _sign.INDEF),  # root at ln 2
        ((E - 2) ** 2, _sign.NONNEG),  # double root at ln 2
        (H - E / 3, _sign.INDEF),  # root at 2 ln 3
        (E / (E + 1) - H / (H + 1), _sign.POS),  # OUE keeps a 0 more often than SUE
        (1 - E, _sign.NEG),
        (E * 0, _sign.ZERO),
        (E / (E + 1) + 1 / (E + 1) - 1, _sign.ZERO),
        # THE: p - q >= 0 for theta in (1/2, 1) (interval bounds + monotonicity)
        (1 - sp.exp(eps * (theta - 1) / 2) / 2 - sp.exp(-eps * theta / 2) / 2, _sign.NONNEG),
        (sp.exp(eps * (theta - 1) / 2) - 2, _sign.NEG),
    ],
)
def test_known_signs(expr, expected):
    assert _sign.sign_class(expr, DOM) == expected


def test_relations_and_unknowns():
    p, q = sp.symbols("p q")
    dom = {p: sp.Interval(0, 1), q: sp.Interval(0, 1)}
    assert _sign.sign_class(p * (1 - q) - q * (1 - p), dom) is None
    assert _sign.sign_class(p * (1 - q) - q * (1 - p), dom, [p > q]) == _sign.POS
    assert _sign.sign_class(q - p, dom, [p >= q]) == _sign.NONPOS
    # a complex symbol: nothing can be said
    z = sp.Symbol("z")
    assert _sign.sign_class(sp.exp(z), {}) is None


def test_identically_zero():
    assert _sign.is_identically_zero(E / (E + 1) + 1 / (E + 1) - 1, DOM) is True
    assert _sign.is_identically_zero((E - 2) ** 2, DOM) is False  # nonzero except at ln 2
    assert _sign.is_identically_zero(sp.sqrt(2) ** 2 - 2) is True
    assert _sign.is_identically_zero(sp.pi - 3) is False


def _value(expr: sp.Expr, **vals) -> mpmath.mpf:
    """The value at 50 digits (mpmath), symbols by name."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    f = sp.lambdify(syms, expr, modules="mpmath")
    with mpmath.workdps(50):
        return f(
            *(mpmath.mpf(sp.Rational(vals[s.name]).p) / sp.Rational(vals[s.name]).q for s in syms)
        )


coef = st.integers(-4, 4)
rate = st.sampled_from(
    [sp.Integer(0), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.Rational(-1, 2)]
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(coef, rate), min_size=1, max_size=4),
    st.lists(st.tuples(st.integers(1, 3), rate), min_size=1, max_size=3),
)
def test_univariate_claims_hold_at_sample_points(num_terms, den_terms):
    # soundness: whatever is claimed for all eps >= 0 must hold at sample points
    num = sp.Add(*(c * sp.exp(r * eps) for c, r in num_terms))
    den = sp.Add(*(c * sp.exp(r * eps) for c, r in den_terms))  # positive coefficients: den > 0
    f = num / den
    c = _sign.sign_class(f, DOM)
    for e in (sp.Rational(1, 100), sp.Rational(1, 3), 1, sp.Rational(5, 2), 7, 20):
        v = _value(f, eps=e)
        if c == _sign.POS:
            assert v > 0
        elif c == _sign.NONNEG:
            assert v >= -1e-40
        elif c == _sign.NEG:
            assert v < 0
        elif c == _sign.NONPOS:
            assert v <= 1e-40
        elif c == _sign.ZERO:
            assert abs(v) < 1e-40


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(coef, rate, rate), min_size=1, max_size=3))
def test_bivariate_claims_hold_at_sample_points(terms):
    # exp(a eps + b eps theta) terms: the interval/monotonicity route
    f = sp.Add(*(c * sp.exp(a * eps + b * eps * theta) for c, a, b in terms))
    c = _sign.sign_class(f, DOM)
    for e in (sp.Rational(1, 10), 1, 4, 15):
        for t in (sp.Rational(51, 100), sp.Rational(3, 4), sp.Rational(99, 100)):
            v = _value(f, eps=e, theta=t)
            if c == _sign.POS:
                assert v > 0
            elif c == _sign.NONNEG:
                assert v >= -1e-40
            elif c == _sign.NEG:
                assert v < 0
            elif c == _sign.NONPOS:
                assert v <= 1e-40
            elif c == _sign.ZERO:
                assert abs(v) < 1e-40
