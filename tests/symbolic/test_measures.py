"""Symbolic measures: dispatch, exact values at rational points, numeric cross-checks."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import qifldp as q
from qifldp import symbolic, tradeoff as fdp
from qifldp.errors import ChannelError, GainError, ParameterError, PriorError
from qifldp.symbolic import SymbolicChannel
from tests.canonical import exact_bayes_capacity

eps = sp.Symbol("eps")
theta = sp.Symbol("theta")
half = sp.Rational(1, 2)


def num(expr: sp.Expr, **values: float) -> float:
    """Evaluate a symbolic measure at 40 digits (symbols by name)."""
    subs = {s: sp.nsimplify(values[s.name]) for s in expr.free_symbols}
    return float(sp.N(expr.subs(subs), 40))


# symbolic channel, numeric constructor
PROTOCOLS = [
    (symbolic.grr(4, eps), lambda e: q.grr(4, e)),
    (symbolic.subset_selection(5, eps, 2), lambda e: q.subset_selection(5, e, 2)),
    (symbolic.local_hashing(3, eps, 3), lambda e: q.local_hashing(3, e, 3)),
    (symbolic.sue(4, eps), lambda e: q.sue(4, e)),
    (symbolic.oue(4, eps), lambda e: q.oue(4, e)),
    (symbolic.the(3, eps, sp.Rational(3, 4)), lambda e: q.the(3, e, 0.75)),
    (symbolic.oue_bit(eps), lambda e: q.oue_bit(e)),
]
POINTS = [0.25, 1.0, 2.5, 6.0]


@pytest.mark.parametrize("i", range(len(PROTOCOLS)))
def test_measures_dispatch_and_match_numeric(i):
    S, make = PROTOCOLS[i]
    ml = q.bayes_capacity(S)
    le = q.ldp_epsilon(S)
    a = q.asr(S)
    mc = q.max_case_capacity(S)
    for f in (ml, le, a, mc):
        assert isinstance(f, sp.Expr) and not f.has(sp.Max)  # every column decided
    for e in POINTS:
        N = make(e)
        assert num(ml, eps=e) == pytest.approx(q.bayes_capacity(N), rel=1e-12)
        assert num(le, eps=e) == pytest.approx(q.ldp_epsilon(N), rel=1e-10, abs=1e-12)
        assert num(a, eps=e) == pytest.approx(q.asr(N), rel=1e-12)
        assert num(mc, eps=e) == pytest.approx(q.max_case_capacity(N), rel=1e-10)


def test_ldp_epsilon_closed_forms():
    # provenance: the largest column ratio by hand. GRR, SS, LH: e^eps; SUE, OUE (one-hot):
    # p (1 - q) / (q (1 - p)) = e^eps; OUE's bit channel alone: max(2 e^eps / (e^eps + 1),
    # (e^eps + 1) / 2) = (e^eps + 1) / 2 since (e^eps + 1)^2 >= 4 e^eps.
    for C in (symbolic.grr(3, eps), symbolic.subset_selection(4, eps, 2), symbolic.blh(3, eps)):
        assert q.ldp_epsilon(C) == eps
    assert q.ldp_epsilon(symbolic.sue(3, eps)) == eps
    assert q.ldp_epsilon(symbolic.oue(3, eps)) == eps
    assert sp.simplify(q.max_case_capacity(symbolic.oue_bit(eps)) - (sp.exp(eps) + 1) / 2) == 0
    assert q.ldp_epsilon(symbolic.sue_bit(eps)) == eps / 2


def test_bayes_capacity_exact_at_rational_point():
    # provenance: Fraction enumeration Σ_y max_x C[x, y] of the exact channel at
    # eps = 2 ln 3 (e^eps = 9, e^(eps/2) = 3: every entry rational)
    point = 2 * sp.log(3)
    for S, _ in PROTOCOLS[:5]:
        at = S.subs(eps=point)
        expected = exact_bayes_capacity(at.to_fractions())
        value = sp.nsimplify(sp.simplify(q.bayes_capacity(S).subs(eps, point)))
        assert value == sp.Rational(expected.numerator, expected.denominator)
        assert q.bayes_capacity(at) == sp.Rational(expected.numerator, expected.denominator)


def test_undecidable_column_gives_unevaluated_max_that_is_still_correct():
    # prior (3/4, 1/4) on GRR(2): on output 1 the guess is x = 1 iff e^eps >= 3, so no
    # single expression is the maximum for all eps >= 0
    prior = [sp.Rational(3, 4), sp.Rational(1, 4)]
    v = q.bayes_vulnerability(symbolic.grr(2, eps), prior)
    assert v.has(sp.Max)
    for r in (2, 3, 5):  # e^eps = r: exact rational channel
        C = symbolic.grr(2, sp.log(r))
        rows = C.to_fractions()
        pi = [Fraction(3, 4), Fraction(1, 4)]
        expected = sum(max(pi[x] * rows[x][y] for x in range(2)) for y in range(2))
        assert sp.nsimplify(sp.simplify(v.subs(eps, sp.log(r)))) == sp.Rational(
            expected.numerator, expected.denominator
        )


def test_bayes_capacity_of_user_channel_with_domain():
    x = sp.Symbol("x")
    C = SymbolicChannel([[x, 1 - x], [half, half]])
    assert q.bayes_capacity(C) == sp.Max(half, x) + sp.Max(half, 1 - x)
    # with x in [1/2, 1] both maxima are decided: x + 1/2
    D = SymbolicChannel([[x, 1 - x], [half, half]], domains={x: (half, 1)})
    assert q.bayes_capacity(D) == x + half


def test_relations_decide_generic_unary_encoding():
    p, qq = sp.symbols("p q")
    C = symbolic.unary_encoding(3, p, qq)  # records p > q
    ml = q.bayes_capacity(C)
    assert not ml.has(sp.Max)
    # without the relation the same matrix is undecidable column by column
    bare = SymbolicChannel(C.matrix, C.inputs, C.outputs, domains=C.domains)
    assert q.bayes_capacity(bare).has(sp.Max)
    # numeric cross-check
    N = q.unary_encoding(3, 0.7, 0.2)
    assert num(ml, p=0.7, q=0.2) == pytest.approx(q.bayes_capacity(N), rel=1e-12)


def test_the_with_symbolic_theta_is_decided():
    ml = q.bayes_capacity(symbolic.the(3, eps, theta))
    assert not ml.has(sp.Max)
    for e, t in [(0.5, 0.6), (3.0, 0.75), (8.0, 0.95)]:
        assert num(ml, eps=e, theta=t) == pytest.approx(q.bayes_capacity(q.the(3, e, t)), rel=1e-12)


def test_g_vulnerability_matches_numeric():
    C = symbolic.grr(3, eps)
    gain = [[1, 1, 0], [0, 1, 1], [1, 0, 1]]  # 2-tries gain, one action per pair
    prior = [sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(1, 6)]
    v = q.g_vulnerability(C, gain, prior)
    for e in POINTS:
        N = q.grr(3, e)
        expected = q.g_vulnerability(N, gain, [0.5, 1 / 3, 1 / 6])
        assert num(v, eps=e) == pytest.approx(expected, rel=1e-12)
    # a callable gain (identity) gives the Bayes vulnerability
    ident = q.g_vulnerability(C, lambda w, x: 1 if w == x else 0)
    assert sp.simplify(ident - q.bayes_vulnerability(C)) == 0


def test_symbolic_gain_entries():
    a = sp.Symbol("a", positive=True)
    C = symbolic.grr(2, sp.log(3))  # [[3/4, 1/4], [1/4, 3/4]]
    # gain a for guessing x = 0 right, 1 for x = 1: Σ_y max(a C[0,y], C[1,y]) / 2
    v = q.g_vulnerability(C, [[a, 0], [0, 1]])
    expected = (sp.Max(3 * a / 4, sp.Rational(1, 4)) + sp.Max(a / 4, sp.Rational(3, 4))) / 2
    for val in (sp.Rational(1, 5), 1, 2, 5):
        assert sp.simplify(v.subs(a, val) - expected.subs(a, val)) == 0


def test_min_entropy_leakage():
    C = symbolic.grr(2, eps)
    assert q.min_entropy_leakage(C.subs(eps=0)) == 0
    L = q.min_entropy_leakage(C)
    assert num(L, eps=1.5) == pytest.approx(q.min_entropy_leakage(q.grr(2, 1.5)), rel=1e-12)


def test_ldp_epsilon_infinite_zero_columns_and_neighbors():
    x = sp.Symbol("x")
    dom = {x: sp.Interval.open(0, 1)}
    C = SymbolicChannel([[1, 0], [x, 1 - x]], domains=dom)
    assert q.ldp_epsilon(C) == sp.oo
    assert q.max_case_capacity(C) == sp.oo
    # an all-zero column is ignored
    D = SymbolicChannel([[x, 1 - x, 0], [1 - x, x, 0]], domains=dom)
    L = q.ldp_epsilon(D)  # log(Max(x, 1 - x) / Min(x, 1 - x)): undecided, still exact
    for v in (sp.Rational(1, 10), sp.Rational(1, 2), sp.Rational(4, 5)):
        assert sp.simplify(sp.exp(L.subs(x, v)) - max(v / (1 - v), (1 - v) / v)) == 0
    # neighbors: only the pair (0, 1) of GRR(3) compared, still eps
    assert q.ldp_epsilon(symbolic.grr(3, eps), neighbors=[(0, 1)]) == eps
    G = symbolic.grr(3, sp.log(2))
    assert q.ldp_epsilon(G, neighbors=[]) == 0
    # undecidable zero-ness raises instead of guessing
    with pytest.raises(ParameterError, match="cannot decide"):
        q.ldp_epsilon(SymbolicChannel([[x, 1 - x], [half, half]]))


def test_tradeoff_point_registered_into_fdp():
    alpha, beta = fdp.tradeoff_point(symbolic.oue_bit(eps))
    assert alpha == 1 / (sp.exp(eps) + 1) and beta == half
    C = symbolic.oue_bit(sp.log(3))
    assert fdp.tradeoff_point(C, exact=True) == (Fraction(1, 4), Fraction(1, 2))
    assert fdp.tradeoff_point(C, exact=False) == (0.25, 0.5)
    with pytest.raises(ChannelError):
        fdp.tradeoff_point(symbolic.grr(3, eps))


def test_prior_and_gain_validation():
    C = symbolic.grr(2, eps)
    with pytest.raises(PriorError, match="sum to 1"):
        q.bayes_vulnerability(C, [half, sp.Rational(1, 3)])
    with pytest.raises(PriorError, match="non-negative"):
        q.bayes_vulnerability(C, [-half, 3 * half])
    with pytest.raises(PriorError):
        q.bayes_vulnerability(C, [1])
    with pytest.raises(GainError):
        q.g_vulnerability(C, [[1, 0, 0]])
    # a symbolic prior that is not provably wrong is accepted
    t = sp.Symbol("t")
    q.bayes_vulnerability(C, [t, 1 - t])


def test_compare():
    e = sp.Symbol("e", nonnegative=True)
    assert symbolic.compare(sp.exp(e) / (sp.exp(e) + 2), 1 / (sp.exp(e) + 2)) == ">"
    assert symbolic.compare(sp.exp(e), 2) == "indefinite"  # e^e = 2 at e = ln 2
    assert symbolic.compare(e, e) == "=="
    p, qq = sp.symbols("p q")
    assert symbolic.compare(p * (1 - qq), qq * (1 - p), assume=[p > qq]) == ">"
    assert symbolic.compare(p, qq) is None


def test_simplify_false_returns_raw_sum():
    C = symbolic.grr(3, eps)
    raw = q.bayes_capacity(C, simplify=False)
    assert raw == 3 * sp.exp(eps) / (sp.exp(eps) + 2)
    assert math.isclose(num(raw, eps=1.0), q.bayes_capacity(q.grr(3, 1.0)), rel_tol=1e-12)
    assert isinstance(q.bayes_capacity(C.evaluate(eps=1.0)), float)
    assert np.isfinite(q.bayes_capacity(C.evaluate(eps=1.0)))


def test_the_true_epsilon_with_symbolic_theta():
    # provenance: the largest one-hot ratio (p / q)((1 - q) / (1 - p)) by hand, as in
    # qifldp.formulas.ldp_epsilon_the: eps/2 + 2 ln 2 + ln(1 - e^(-eps(1-theta)/2)/2)
    # + ln(1 - e^(-eps theta/2)/2)
    L = q.ldp_epsilon(symbolic.the(3, eps, theta))
    assert not L.has(sp.Max)
    by_hand = (
        sp.exp(eps / 2)
        * 4
        * (1 - sp.exp(-eps * (1 - theta) / 2) / 2)
        * (1 - sp.exp(-eps * theta / 2) / 2)
    )
    from qifldp.symbolic._sign import is_identically_zero

    assert is_identically_zero(sp.exp(L) - by_hand) is True
    for e, t in [(0.5, 0.6), (10.0, 0.75), (3.0, 0.9)]:
        assert num(L, eps=e, theta=t) == pytest.approx(q.formulas.ldp_epsilon_the(e, t), rel=1e-12)
    # the bit channel alone: ln(p / q), decided for every theta in (1/2, 1)
    Lb = q.ldp_epsilon(symbolic.the_bit(eps, theta))
    assert not Lb.has(sp.Max)
    for e, t in [(0.5, 0.6), (10.0, 0.75)]:
        assert num(Lb, eps=e, theta=t) == pytest.approx(q.ldp_epsilon(q.the_bit(e, t)), rel=1e-12)
