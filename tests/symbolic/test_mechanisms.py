"""Symbolic mechanism constructors against the numeric ones (same labels, same matrices)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import qifldp as q
from qifldp import symbolic
from qifldp.errors import InputTypeError, ParameterError

eps = sp.Symbol("eps")
theta = sp.Symbol("theta")

# (symbolic constructor call, numeric constructor call, parameter values)
CASES = [
    (lambda: symbolic.grr(4, eps), lambda e: q.grr(4, e)),
    (lambda: symbolic.subset_selection(5, eps, 2), lambda e: q.subset_selection(5, e, 2)),
    (lambda: symbolic.subset_selection(4, eps, 4), lambda e: q.subset_selection(4, e, 4)),
    (lambda: symbolic.local_hashing(3, eps, 2), lambda e: q.local_hashing(3, e, 2)),
    (lambda: symbolic.local_hashing(2, eps, 3), lambda e: q.local_hashing(2, e, 3)),
    (lambda: symbolic.blh(3, eps), lambda e: q.blh(3, e)),
    (lambda: symbolic.sue(3, eps), lambda e: q.sue(3, e)),
    (lambda: symbolic.oue(4, eps), lambda e: q.oue(4, e)),
    (lambda: symbolic.the(3, eps, sp.Rational(3, 4)), lambda e: q.the(3, e, 0.75)),
    (lambda: symbolic.sue_bit(eps), lambda e: q.sue_bit(e)),
    (lambda: symbolic.oue_bit(eps), lambda e: q.oue_bit(e)),
    (lambda: symbolic.the_bit(eps, sp.Rational(2, 3)), lambda e: q.the_bit(e, 2 / 3)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("e", [0.0, 0.3, 1.3, 4.0, 40.0])
def test_evaluate_matches_numeric_constructor(case, e):
    sym, num = CASES[case]
    S = sym().evaluate(eps=e)
    N = num(e)
    assert S.inputs == N.inputs and S.outputs == N.outputs
    np.testing.assert_allclose(S.matrix, N.matrix, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("th", [0.55, 0.75, 0.95])
def test_the_with_symbolic_theta_matches_numeric(th):
    S = symbolic.the(3, eps, theta).evaluate(eps=2.5, theta=th)
    np.testing.assert_allclose(S.matrix, q.the(3, 2.5, th).matrix, rtol=1e-12)


def test_unary_encoding_matches_numeric():
    p, qq = sp.symbols("p q")
    S = symbolic.unary_encoding(3, p, qq).evaluate(p=0.8, q=0.15)
    N = q.unary_encoding(3, 0.8, 0.15)
    assert S.outputs == N.outputs
    np.testing.assert_allclose(S.matrix, N.matrix, rtol=1e-12)


def test_olh_and_default_omega_follow_the_numeric_rules():
    e = 1.7
    assert symbolic.olh(3, e).outputs == q.olh(3, e).outputs
    S, N = symbolic.subset_selection(6, e), q.subset_selection(6, e)
    assert S.outputs == N.outputs
    np.testing.assert_allclose(S.evaluate().matrix, N.matrix, rtol=1e-12)


# -- exact values at rational points -----------------------------------------------------------
def test_exact_entries_at_log_points():
    # provenance: hand computation. GRR, k = 3, eps = ln 2: p = 2/4, q = 1/4.
    C = symbolic.grr(3, sp.log(2))
    assert C[0, 0] == sp.Rational(1, 2) and C[0, 1] == sp.Rational(1, 4)
    # SUE bit, eps = 2 ln 3: e^(eps/2) = 3, p = 3/4.
    assert symbolic.sue_bit(2 * sp.log(3)).to_fractions() == [
        [Fraction(3, 4), Fraction(1, 4)],
        [Fraction(1, 4), Fraction(3, 4)],
    ]
    # OUE bit, eps = ln 3: q = 1/4.
    assert symbolic.oue_bit(sp.log(3)).to_fractions() == [
        [Fraction(3, 4), Fraction(1, 4)],
        [Fraction(1, 2), Fraction(1, 2)],
    ]
    # SS, k = 4, omega = 2, eps = ln 3: p = 6/8, entries p/3 = 1/4 and (1-p)/3 = 1/12.
    S = symbolic.subset_selection(4, sp.log(3), 2)
    assert set(S.matrix) == {sp.Rational(1, 4), sp.Rational(1, 12)}
    # THE bit, eps = 4 ln 2, theta = 3/4: q = e^(-3 ln 2 / 2)/2 = 2^(-5/2), 1-p = 2^(-1/2)/2.
    T = symbolic.the_bit(4 * sp.log(2), sp.Rational(3, 4))
    assert sp.simplify(T[0, 1] - 2 ** sp.Rational(-5, 2)) == 0
    assert sp.simplify(T[1, 0] - 2 ** sp.Rational(-3, 2)) == 0


def test_the_bit_is_the_laplace_tail_probability():
    # provenance: direct integration of the Laplace(0, 2/eps) density, independent of
    # the constructor: Pr[1 + N > theta] and Pr[0 + N > theta].
    z = sp.Symbol("z", real=True)
    e, t = sp.Rational(3, 2), sp.Rational(7, 10)
    b = 2 / e
    left, right = sp.exp(z / b) / (2 * b), sp.exp(-z / b) / (2 * b)  # density on z < 0, z >= 0
    p = sp.integrate(left, (z, t - 1, 0)) + sp.integrate(right, (z, 0, sp.oo))
    qv = sp.integrate(right, (z, t, sp.oo))
    assert sp.integrate(left, (z, -sp.oo, 0)) + sp.integrate(right, (z, 0, sp.oo)) == 1
    T = symbolic.the_bit(e, t)
    assert sp.simplify(T[1, 1] - p) == 0
    assert sp.simplify(T[0, 1] - qv) == 0


def test_floats_are_made_exact():
    C = symbolic.the_bit(1.5, 0.7)
    assert C[0, 1] == sp.exp(-sp.Rational(21, 40)) / 2


# -- parameter checks ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: symbolic.grr(1, eps), ParameterError),
        (lambda: symbolic.grr(2.5, eps), InputTypeError),
        (lambda: symbolic.grr(3, -1), ParameterError),
        (lambda: symbolic.grr(3, sp.oo), ParameterError),
        (lambda: symbolic.grr(3, sp.I), ParameterError),
        (lambda: symbolic.grr(3, -sp.Symbol("a", positive=True)), ParameterError),
        (lambda: symbolic.the(3, eps, sp.Rational(1, 2)), ParameterError),
        (lambda: symbolic.the(3, eps, 1), ParameterError),
        (lambda: symbolic.the(3, eps, 1 + sp.Symbol("a", positive=True)), ParameterError),
        (lambda: symbolic.subset_selection(4, eps, 5), ParameterError),
        (lambda: symbolic.subset_selection(4, eps), ParameterError),  # default omega needs numbers
        (lambda: symbolic.local_hashing(3, eps, 1), ParameterError),
        (lambda: symbolic.olh(3, eps), ParameterError),
        (lambda: symbolic.unary_encoding(3, sp.Rational(1, 4), sp.Rational(1, 2)), ParameterError),
        (lambda: symbolic.unary_encoding(3, 2, 0), ParameterError),
        (lambda: symbolic.unary_encoding(3, "p", "p"), ParameterError),
        (lambda: symbolic.grr(3, True), InputTypeError),
        (lambda: symbolic.grr(3, [1]), InputTypeError),
    ],
)
def test_bad_parameters(call, err):
    with pytest.raises(err):
        call()


def test_symbolic_parameters_are_accepted_when_not_provably_wrong():
    a = sp.Symbol("a")
    symbolic.grr(3, a - 1)  # could be >= 0
    C = symbolic.the(2, eps, a)  # could be in (1/2, 1)
    assert C.domain(a) == sp.Interval.open(sp.Rational(1, 2), 1)
    D = symbolic.grr(2, 2 * a)  # an expression: its constraint is kept as a relation
    assert (2 * a >= 0) in D.assume


def test_domains_recorded():
    C = symbolic.the(2, eps, theta)
    assert C.domain(eps) == sp.Interval(0, sp.oo)
    assert C.domain(theta) == sp.Interval.open(sp.Rational(1, 2), 1)
    p, qq = sp.symbols("p q")
    U = symbolic.unary_encoding(2, p, qq)
    assert U.domain(p) == sp.Interval(0, 1) and U.assume == (p > qq,)
    # a positive symbol narrows the domain
    e = sp.Symbol("e", positive=True)
    assert symbolic.grr(2, e).domain(e) == sp.Interval.open(0, sp.oo)


def test_rows_sum_to_one_exactly():
    # the constructors skip validation; this checks it holds
    for C in (
        symbolic.grr(4, eps),
        symbolic.subset_selection(5, eps, 3),
        symbolic.local_hashing(2, eps, 3),
        symbolic.sue(3, eps),
        symbolic.oue(3, eps),
        symbolic.the(3, eps, theta),
        symbolic.unary_encoding(3, "p", "q"),
    ):
        for i in range(C.n_inputs):
            assert sp.simplify(sp.Add(*C.matrix.row(i)) - 1) == 0


def test_expression_parameter_with_decided_domain():
    # eps = a + b with a, b >= 0: sympy already knows eps >= 0; that must not be an error
    import sympy as sp

    from qifldp import symbolic

    a, b = sp.symbols("a b", nonnegative=True)
    C = symbolic.sue_bit(a + b)
    ev = C.evaluate(a=0.5, b=0.5)
    import qifldp as q

    assert ev.isclose(q.sue_bit(1.0), atol=1e-12)
