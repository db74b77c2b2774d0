"""SymbolicChannel: construction, validation only when provably broken, subs, evaluate."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import qifldp as q
from qifldp import symbolic
from qifldp.errors import ChannelError, InputTypeError, ParameterError, SizeError
from qifldp.symbolic import SymbolicChannel
from qifldp.symbolic.channel import as_symbolic

x, y = sp.symbols("x y")
r = sp.Symbol("r", real=True)
eps = sp.Symbol("eps")
half = sp.Rational(1, 2)


# -- construction and accessors ---------------------------------------------------------------
def test_accessors_and_labels():
    C = SymbolicChannel([[x, 1 - x], [half, half]], inputs=("a", "b"), outputs=("u", "v"))
    assert C.shape == (2, 2) and C.n_inputs == 2 and C.n_outputs == 2
    assert C.inputs == ("a", "b") and C.outputs == ("u", "v")
    assert C.free_symbols == frozenset({x})
    assert isinstance(C.matrix, sp.ImmutableMatrix)
    with pytest.raises(TypeError):
        C.matrix[0, 0] = 1  # immutable


def test_default_labels_are_ranges():
    C = SymbolicChannel([[1, 0, 0], [0, half, half]])
    assert C.inputs == (0, 1) and C.outputs == (0, 1, 2)


def test_floats_become_exact_rationals():
    # provenance: repr(0.1) == "0.1", so the intended value is exactly 1/10
    C = SymbolicChannel([[0.1, 0.9], [0.25 * sp.exp(x) / sp.exp(x), 0.75]])
    assert C[0, 0] == sp.Rational(1, 10) and C[0, 1] == sp.Rational(9, 10)
    assert C[1, 0] == sp.Rational(1, 4)
    assert not C.matrix.atoms(sp.Float)


def test_string_parameter_becomes_symbol():
    C = symbolic.grr(2, "eps")
    assert {s.name for s in C.free_symbols} == {"eps"}


# -- validation: raise only when provably broken ------------------------------------------------
def test_undecidable_entries_are_accepted():
    # x - 1/2 is negative for some x, positive for others: not provably broken
    SymbolicChannel([[x, 1 - x]])
    SymbolicChannel([[x - half, 3 * half - x]])
    SymbolicChannel([[x**2, 1 - x**2], [y, 1 - y]])


@pytest.mark.parametrize(
    "rows, fragment",
    [
        ([[x, 2 - x]], "sums to 2"),  # row sum identically 2
        ([[half, sp.Rational(1, 3)]], "sums to 5/6"),
        ([[sp.Rational(-1, 4), sp.Rational(5, 4)]], "non-negative"),
        ([[-sp.exp(r), 1 + sp.exp(r)]], "non-negative"),  # -e^r < 0 for every real r
        ([[sp.I, 1 - sp.I]], "real"),
        ([[sp.exp(eps) / (sp.exp(eps) + 1), 1 / (sp.exp(eps) + 2)]], "sum to 1"),
    ],
)
def test_provably_broken_rules_raise(rows, fragment):
    with pytest.raises(ChannelError, match=fragment):
        SymbolicChannel(rows)


def test_negative_symbol_entry_is_provably_negative():
    n = sp.Symbol("n", negative=True)
    with pytest.raises(ChannelError, match="negative"):
        SymbolicChannel([[n, 1 - n]])


def test_domain_makes_negativity_provable():
    # 1/2 - x is negative for x in [3/4, 1]: provable only with the domain
    SymbolicChannel([[half - x, half + x]])
    with pytest.raises(ChannelError, match="non-negative"):
        SymbolicChannel([[half - x, half + x]], domains={x: sp.Interval(sp.Rational(3, 4), 1)})
    # a complex x: -e^x is not negative, nothing is provable
    SymbolicChannel([[-sp.exp(x), 1 + sp.exp(x)]])


def test_shape_and_type_errors():
    with pytest.raises(ChannelError):
        SymbolicChannel([[half, half], [1]])
    with pytest.raises(ChannelError):
        SymbolicChannel([])
    with pytest.raises(InputTypeError):
        SymbolicChannel([[True, False]])
    with pytest.raises(InputTypeError):
        SymbolicChannel("01")
    with pytest.raises(ChannelError):
        SymbolicChannel([[1]], inputs=("a", "b"))
    with pytest.raises(InputTypeError):
        SymbolicChannel([[1]], assume=["x > 1"])


def test_size_limit(monkeypatch):
    from qifldp.symbolic import channel as chmod

    monkeypatch.setattr(chmod, "MAX_SYMBOLIC_ENTRIES", 3)
    with pytest.raises(SizeError, match="MAX_SYMBOLIC_ENTRIES"):
        SymbolicChannel([[half, half], [half, half]])


# -- subs / evaluate ------------------------------------------------------------------------
def test_subs_returns_symbolic_channel_with_exact_entries():
    # provenance: grr(2, ln 3) = [[3/4, 1/4], [1/4, 3/4]] (p = e^eps / (e^eps + 1))
    C = symbolic.grr(2, eps).subs(eps, sp.log(3))
    assert isinstance(C, SymbolicChannel)
    assert C.matrix == sp.Matrix(
        [[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]]
    )
    assert C.free_symbols == frozenset()
    assert C.to_fractions() == [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]


def test_subs_forms_are_equivalent():
    C = symbolic.the_bit(eps, "theta")
    theta = next(s for s in C.free_symbols if s.name == "theta")
    a = C.subs({theta: sp.Rational(3, 4)})
    b = C.subs(theta=sp.Rational(3, 4))
    c = C.subs([(theta, sp.Rational(3, 4))])
    assert a == b == c
    assert a.free_symbols == frozenset({eps})
    assert theta not in a.domains


def test_subs_rename_keeps_domain():
    e2 = sp.Symbol("e2")
    C = symbolic.grr(3, eps).subs(eps, e2)
    assert C.domain(e2) == sp.Interval(0, sp.oo)


def test_subs_outside_domain_raises():
    with pytest.raises(ParameterError, match="outside its domain"):
        symbolic.grr(3, eps).subs(eps=-1)
    with pytest.raises(ParameterError, match="outside its domain"):
        symbolic.the(2, eps, "theta").subs(theta=sp.Rational(1, 2))
    with pytest.raises(ParameterError, match="not a parameter"):
        symbolic.grr(3, eps).subs(delta=1)


def test_evaluate_round_trip_matches_exact_values():
    # provenance: exact rational entries at eps = ln 3 (hand computation, as above)
    C = symbolic.grr(3, eps).evaluate(eps=float(np.log(3)))
    assert isinstance(C, q.Channel)
    assert C.inputs == (0, 1, 2) and C.outputs == (0, 1, 2)
    np.testing.assert_allclose(
        C.matrix, [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]], atol=1e-15
    )


def test_evaluate_accepts_mapping_symbols_and_exact_values():
    C = symbolic.grr(2, eps)
    a = C.evaluate({eps: sp.log(3)})
    b = C.evaluate({"eps": 1.0986122886681098})
    assert a.isclose(b, atol=1e-15)
    np.testing.assert_allclose(a.matrix, [[0.75, 0.25], [0.25, 0.75]], atol=1e-15)


def test_evaluate_does_not_overflow_for_huge_eps():
    # e^1000 overflows float64; the mpmath evaluation does not: p -> 1 exactly in float
    C = symbolic.grr(3, eps).evaluate(eps=1000)
    np.testing.assert_array_equal(C.matrix, np.eye(3))


def test_evaluate_errors():
    C = symbolic.the(2, eps, "theta")
    with pytest.raises(ParameterError, match="missing: theta"):
        C.evaluate(eps=1)
    with pytest.raises(ParameterError, match="outside its domain"):
        C.evaluate(eps=1, theta=1.5)
    with pytest.raises(ParameterError, match="symbolic"):
        C.evaluate(eps=x, theta=0.7)
    # a user channel that is a channel only for x in [0, 1]
    with pytest.raises(ChannelError):
        SymbolicChannel([[x, 1 - x]]).evaluate(x=2)


def test_to_fractions_rejects_irrational_entries():
    with pytest.raises(ChannelError, match="not a rational"):
        symbolic.grr(2, 1).to_fractions()
    with pytest.raises(ParameterError):
        symbolic.grr(2, eps).to_fractions()
    # an entry that simplifies to a rational number is accepted
    C = SymbolicChannel([[sp.sqrt(2) ** 2 / 4, half], [half, half]], validate=False)
    assert C.to_fractions()[0][0] == Fraction(1, 2)


def test_from_channel_recovers_simple_fractions():
    C = SymbolicChannel.from_channel(q.Channel([[1 / 3, 2 / 3], [0.1, 0.9]], outputs=("a", "b")))
    assert C.to_fractions() == [
        [Fraction(1, 3), Fraction(2, 3)],
        [Fraction(1, 10), Fraction(9, 10)],
    ]
    assert C.outputs == ("a", "b")


def test_equals_and_eq():
    A = SymbolicChannel([[x, 1 - x]])
    B = SymbolicChannel([[(x**2 - x) / (x - 1), 1 - x]])
    assert A.equals(B) is True
    assert A != B  # structural equality differs
    assert A == SymbolicChannel([[x, 1 - x]])
    assert A.equals(SymbolicChannel([[1 - x, x]])) is False
    assert hash(A) == hash(SymbolicChannel([[x, 1 - x]]))


def test_repr_and_latex():
    C = symbolic.oue(2, eps)
    r = repr(C)
    assert r.startswith("SymbolicChannel(2 inputs x 4 outputs; symbols: eps)")
    assert "exp(eps)" in r
    tex = C._repr_latex_()
    assert tex.startswith("$\\begin{array}") and "e^{eps}" in tex and "01" in tex
    big = symbolic.local_hashing(4, eps, 3)  # 4 x 243 entries: header only
    assert repr(big) == "SymbolicChannel(4 inputs x 243 outputs; symbols: eps)"
    assert "SymbolicChannel" in big._repr_latex_()


def test_applyfunc_keeps_domains():
    C = symbolic.sue_bit(eps).applyfunc(sp.factor)
    assert C.domain(eps) == sp.Interval(0, sp.oo)


# -- operators --------------------------------------------------------------------------------
def test_one_hot_matches_the_unary_encoding_constructor():
    p, qq = sp.symbols("p q")
    B = SymbolicChannel([[1 - qq, qq], [1 - p, p]])
    C = symbolic.one_hot(B, 3)
    D = symbolic.unary_encoding(3, p, qq)
    assert C.matrix == D.matrix and C.outputs == D.outputs


def test_cascade_and_parallel_against_numeric_operators():
    A, B = symbolic.grr(3, eps), symbolic.grr(3, 2 * eps)
    num = q.cascade(A.evaluate(eps=0.7), B.evaluate(eps=0.7))
    assert symbolic.cascade(A, B).evaluate(eps=0.7).isclose(num, atol=1e-12)
    S, O = symbolic.sue_bit(eps), symbolic.oue_bit(eps)
    num = q.parallel(S.evaluate(eps=1.1), O.evaluate(eps=1.1))
    sym = symbolic.parallel(S, O).evaluate(eps=1.1)
    assert sym.isclose(num, atol=1e-12, labels=False)
    assert sym.inputs == num.inputs and sym.outputs == num.outputs
    with pytest.raises(ChannelError):
        symbolic.cascade(symbolic.grr(2, eps), symbolic.grr(3, eps))


# -- lazy import --------------------------------------------------------------------------------
def test_importing_qifldp_does_not_import_sympy():
    code = (
        "import qifldp, sys; "
        "assert 'sympy' not in sys.modules, sorted(m for m in sys.modules if 'sympy' in m)[:3]"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_symbolic_is_reachable_lazily_from_the_package():
    code = (
        "import sys, qifldp as q; C = q.symbolic.grr(2, 'eps'); "
        "assert 'sympy' in sys.modules; print(q.bayes_capacity(C))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2*exp(eps)/(exp(eps) + 1)"


def test_a_protocol_object_is_pointed_to_its_symbolic_channel():
    # the symbolic routines take P.symbolic(); the numeric advice (P.channel() or
    # P.symmetric()) would send the user to a kind they do not convert either
    P = q.protocol("grr", 4, 1.0)
    with pytest.raises(InputTypeError, match=r"pass C\.symbolic\(\)") as info:
        as_symbolic(P)
    assert "symmetric()" not in str(info.value)
    assert as_symbolic(P.symbolic()) is not None
