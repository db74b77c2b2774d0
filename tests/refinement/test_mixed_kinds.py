"""refines on an explicit and a symbolic channel, in either order, is decided exactly."""

import sympy as sp

import qifldp as q
from qifldp import symbolic


def test_explicit_against_symbolic_is_decided_in_either_order():
    # provenance: UE(p, q) ⊑ UE(p', q') bitwise when the bit channels refine (QIF paper
    # Lemma 4); (0.9, 0.1) -> (3/4, 1/4) is the cascade with the symmetric bit channel of
    # flip probability 1/5 (0.9 * 0.8 + 0.1 * 0.2 = 3/4), so it holds one way only
    S = symbolic.unary_encoding(3, sp.Rational(3, 4), sp.Rational(1, 4))
    E = q.unary_encoding(3, 0.9, 0.1)
    forward, backward = q.refines(E, S), q.refines(S, E)
    assert forward.holds and backward.holds is False
    assert forward.witness is not None and backward.counterexample is not None
