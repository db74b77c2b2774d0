"""Exact refinement of rational channels: every certificate re-checked here in Fractions."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import qifldp as q
from qifldp import symbolic, tradeoff as fdp
from qifldp.errors import ChannelError, InputTypeError, ParameterError
from qifldp.symbolic import exact

eps = sp.Symbol("eps")


def matmul(A, W):
    return [
        [sum((A[x][y] * W[y][j] for y in range(len(W))), Fraction(0)) for j in range(len(W[0]))]
        for x in range(len(A))
    ]


def check_result(A, B, r):
    """Independent re-check of the certificate (provenance: exact Fraction arithmetic)."""
    a, b = exact.to_fractions(A), exact.to_fractions(B)
    if r.holds:
        W = r.witness
        assert all(v >= 0 for row in W for v in row)
        assert all(sum(row) == 1 for row in W)
        assert matmul(a, W) == b
        assert r.counterexample is None
    else:
        cx = r.counterexample
        assert r.witness is None and cx.gap > 0

        def vg(rows):
            return sum(
                max(
                    sum((cx.prior[x] * rows[x][y] * g[x] for x in range(len(rows))), Fraction(0))
                    for g in cx.gain
                )
                for y in range(len(rows[0]))
            )

        assert vg(b) - vg(a) == cx.gap
        # the numeric measure agrees (floats, loose tolerance)
        Af, Bf = (
            q.Channel([[float(v) for v in r_] for r_ in a]),
            q.Channel([[float(v) for v in r_] for r_ in b]),
        )
        G = [[float(v) for v in g] for g in cx.gain]
        pi = [float(v) for v in cx.prior]
        assert q.g_vulnerability(Bf, G, pi) - q.g_vulnerability(Af, G, pi) == pytest.approx(
            float(cx.gap), rel=1e-6, abs=1e-12
        )


@pytest.mark.parametrize(
    "a, b, holds", [(4, 2, True), (2, 4, False), (3, 3, True), (1000, 1001, False)]
)
def test_grr_family(a, b, holds):
    # GRR is a refinement family (QIF paper Lemma 3): grr(eps) ⊑ grr(eps') iff eps >= eps'
    A, B = symbolic.grr(3, sp.log(a)), symbolic.grr(3, sp.log(b))
    r = symbolic.refines(A, B)
    assert r.holds is holds and bool(r) is holds
    check_result(A, B, r)


def test_nearly_equal_channels_are_decided_exactly():
    # e^eps = 10^6 versus 10^6 + 1: the floating LP cannot tell them apart (entries differ
    # by ~1e-12); the exact answer follows the family order (Lemma 3)
    A, B = symbolic.grr(3, sp.log(10**6)), symbolic.grr(3, sp.log(10**6 + 1))
    r1, r2 = symbolic.refines(A, B), symbolic.refines(B, A)
    assert not r1.holds and r2.holds
    check_result(A, B, r1)
    check_result(B, A, r2)


def test_two_secrets_agree_with_the_tradeoff_criterion():
    # SUE and OUE bit channels at the same eps = 2 ln 3 are incomparable (QIF paper Lemma 9)
    S, O = symbolic.sue_bit(2 * sp.log(3)), symbolic.oue_bit(2 * sp.log(3))
    for A, B in ((S, O), (O, S)):
        r = symbolic.refines(A, B)
        assert r.holds is False
        assert fdp.refines_2x2(A.to_fractions(), B.to_fractions()) is False
        check_result(A, B, r)
    # SUE family: S_eps' ⊑ S_eps for eps' >= eps (Lemma 7)
    r = symbolic.refines(symbolic.sue_bit(2 * sp.log(3)), symbolic.sue_bit(2 * sp.log(2)))
    assert r.holds
    check_result(symbolic.sue_bit(2 * sp.log(3)), symbolic.sue_bit(2 * sp.log(2)), r)


def test_one_hot_channels():
    # lifting (Lemma 4): S_eps' ⊑ S_eps bitwise implies the one-hot SUE channels refine
    A, B = symbolic.sue(3, 2 * sp.log(3)), symbolic.sue(3, 2 * sp.log(2))
    r = symbolic.refines(A, B)
    assert r.holds
    check_result(A, B, r)
    r = symbolic.refines(B, A)
    assert not r.holds
    check_result(B, A, r)


def test_near_degenerate_pairs_are_decided_exactly():
    # e^eps = 10^6 against 10^6 + 1: the float images are 1e-12 apart in relative terms.
    # GRR is a refinement family (QIF paper, Lemma 3): grr(e1) ⊑ grr(e2) iff e2 <= e1,
    # so B ⊑ A holds and A ⊑ B fails; both certificates are re-checked in rationals.
    A, B = symbolic.grr(3, sp.log(10**6)), symbolic.grr(3, sp.log(10**6 + 1))
    assert not symbolic.refines(A, B).holds
    assert symbolic.refines(B, A).holds
    for X, Y in ((A, B), (B, A)):
        check_result(X, Y, symbolic.refines(X, Y))


fractions_row = st.lists(st.integers(0, 6), min_size=3, max_size=3).filter(lambda r: sum(r) > 0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(fractions_row, min_size=3, max_size=3), st.lists(fractions_row, min_size=3, max_size=3)
)
def test_post_processing_always_refines(A_rows, W_rows):
    # provenance: construction. B = A·W with W row-stochastic, so A ⊑ B must hold.
    A = [[Fraction(v, sum(r)) for v in r] for r in A_rows]
    W = [[Fraction(v, sum(r)) for v in r] for r in W_rows]
    B = matmul(A, W)
    r = symbolic.refines(A, B)
    assert r.holds
    check_result(A, B, r)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(fractions_row, min_size=3, max_size=3), st.lists(fractions_row, min_size=3, max_size=3)
)
def test_any_verdict_carries_a_valid_certificate(A_rows, B_rows):
    A = [[Fraction(v, sum(r)) for v in r] for r in A_rows]
    B = [[Fraction(v, sum(r)) for v in r] for r in B_rows]
    check_result(A, B, symbolic.refines(A, B))


def test_errors():
    with pytest.raises(ParameterError):
        symbolic.refines(symbolic.grr(2, eps), symbolic.grr(2, 1))
    with pytest.raises(ChannelError, match="not a rational"):
        symbolic.refines(symbolic.grr(2, 1), symbolic.grr(2, 2))
    with pytest.raises(ChannelError, match="same inputs"):
        symbolic.refines(symbolic.grr(2, sp.log(2)), symbolic.grr(3, sp.log(2)))
    with pytest.raises(InputTypeError):
        exact.to_fractions(q.grr(2, 1.0).matrix)


def test_top_level_refines_dispatches_symbolic_channels():
    import qifldp as q

    # GRR family (QIF paper Lemma 3): grr(ln 4) ⊑ grr(ln 2), not the other way round
    A, B = symbolic.grr(3, sp.log(4)), symbolic.grr(3, sp.log(2))
    assert q.refines(A, B).holds and not q.refines(B, A).holds
    # Lemma 9: the SUE and OUE bit channels are incomparable (rational at eps = 2 ln 3)
    S, O = symbolic.sue_bit(2 * sp.log(3)), symbolic.oue_bit(2 * sp.log(3))
    r = q.refines(S, O)
    assert not r.holds and r.counterexample.gap > 0
    eps = sp.Symbol("eps", positive=True)
    with pytest.raises(ValueError, match="free parameters"):
        q.refines(symbolic.grr(3, eps), B)
