"""Meet and join on two secrets: bounds in the refinement order and the paper's M_eps."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings

import qifldp as q
from qifldp.errors import ChannelError, InputTypeError
from qifldp.tradeoff import refines_2x2, refines_binary, tradeoff_curve, tradeoff_point
from qifldp.tradeoff.lattice import join, join_curve, meet, meet_curve

from ._helpers import rational_rows


def _paper_m_eps(eps: float) -> np.ndarray:
    """The paper's M_eps (Sec. VI-B, remark after Lemma 11), entries as printed."""
    a, b = math.exp(eps / 2), math.exp(eps)
    return np.array(
        [
            [a / (a + 1), 1 / (a + 1) - 1 / (b + 1), 1 / (b + 1)],
            [1 / (a + 1), a / (a + 1) - 0.5, 0.5],
        ]
    )


@pytest.mark.parametrize("eps", [0.25, 1.0, 2.0, 4.0, 8.0])
def test_meet_of_sue_and_oue_bits_is_the_papers_m_eps(eps):
    M = meet(q.sue_bit(eps), q.oue_bit(eps))
    assert M.shape == (2, 3)
    np.testing.assert_allclose(M.matrix, _paper_m_eps(eps), atol=1e-14)


def test_meet_of_sue_and_oue_bits_exact():
    # e^(eps/2) = 2: SUE = [[2/3, 1/3], [1/3, 2/3]], OUE = [[4/5, 1/5], [1/2, 1/2]];
    # the paper's M_eps: [[2/3, 1/3 - 1/5, 1/5], [1/3, 2/3 - 1/2, 1/2]] (by hand)
    S = [[F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]]
    O = [[F(4, 5), F(1, 5)], [F(1, 2), F(1, 2)]]
    assert meet(S, O) == [[F(2, 3), F(2, 15), F(1, 5)], [F(1, 3), F(1, 6), F(1, 2)]]
    # its inner vertices are the two trade-off points (OUE's first: smaller alpha)
    assert meet_curve(S, O).vertices == [(0, 1), (F(1, 5), F(1, 2)), (F(1, 3), F(1, 3)), (1, 0)]
    # the join: the crossing of 1 - 2a (SUE, a <= 1/3) and (1 - a) * 5/8 (OUE, a >= 1/5):
    # 1 - 2a = 5/8 - 5a/8  =>  a = 3/11, beta = 5/11 (by hand)
    assert join(S, O) == [[F(8, 11), F(3, 11)], [F(5, 11), F(6, 11)]]


@pytest.mark.parametrize("eps", [0.5, 2.0, 6.0])
def test_join_of_sue_and_oue_bits_is_the_crossing(eps):
    aS, bS = tradeoff_point(q.sue_bit(eps))
    aO, bO = tradeoff_point(q.oue_bit(eps))
    # lines through (0, 1)-(aS, bS) and (aO, bO)-(1, 0); crossing by a 2x2 linear solve
    sS = (bS - 1) / aS
    sO = -bO / (1 - aO)
    a = np.linalg.solve([[-sS, 1], [-sO, 1]], [1, -sO])[0]
    J = join(q.sue_bit(eps), q.oue_bit(eps))
    assert J.shape == (2, 2)
    np.testing.assert_allclose(tradeoff_point(J), (a, 1 + sS * a), atol=1e-12)


def test_comparable_channels_meet_and_join_are_the_ends():
    A = [[F(9, 10), F(1, 10)], [F(1, 10), F(9, 10)]]
    B = [[F(7, 10), F(3, 10)], [F(3, 10), F(7, 10)]]
    assert refines_2x2(A, B)
    assert meet(A, B) == A and join(A, B) == B
    assert meet(A) == A and join(B) == B


def test_meet_join_float_and_errors():
    M = meet([[0.75, 0.25], [0.25, 0.75]], [[0.5, 0.5], [0.0, 1.0]])
    assert isinstance(M, q.Channel)
    np.testing.assert_allclose(M.matrix, [[0.5, 0.25, 0.25], [0.0, 0.25, 0.75]])
    exact = meet([[0.75, 0.25], [0.25, 0.75]], [[0.5, 0.5], [0.0, 1.0]], exact=True)
    assert exact == [[F(1, 2), F(1, 4), F(1, 4)], [0, F(1, 4), F(3, 4)]]
    with pytest.raises(InputTypeError, match="at least one"):
        meet()
    with pytest.raises(ChannelError, match="two inputs"):
        join(np.eye(3), np.eye(2))


@settings(max_examples=80, deadline=None)
@given(
    rational_rows(n_rows=2, max_outputs=3),
    rational_rows(n_rows=2, max_outputs=3),
    rational_rows(n_rows=2, max_outputs=3),
)
def test_meet_and_join_are_bounds_exactly(A, B, N):
    # exact verdicts by trade-off dominance (Blackwell), an oracle validated in
    # test_criterion.py against A^{-1} B and, on random pairs, against the LP
    M, J = meet(A, B), join(A, B)
    assert refines_binary(M, A) and refines_binary(M, B)
    assert refines_binary(A, J) and refines_binary(B, J)
    # greatest lower / least upper bound, tested on a third random channel N
    if refines_binary(N, A) and refines_binary(N, B):
        assert refines_binary(N, M)
    if refines_binary(A, N) and refines_binary(B, N):
        assert refines_binary(J, N)
    # the meet curve lies below both curves, the join curve above (pointwise, exact)
    TM, TJ, TA, TB = (tradeoff_curve(C) for C in (M, J, A, B))
    for a in {v[0] for T in (TA, TB, TM, TJ) for v in T}:
        assert TM(a) <= min(TA(a), TB(a)) and TJ(a) == max(TA(a), TB(a))


def test_meet_and_join_are_bounds_by_lp():
    # provenance: q.refines (LP, verified witness or counterexample). The float meet and
    # join are rounded so that they stay bounds exactly (a margin <= 1e-8 towards the
    # safe side); the "greatest/least" part is checked exactly in the Hypothesis test
    # above, and here the LP must agree with the exact two-secret decision.
    rng = np.random.default_rng(11)
    ab = np.linspace(0, 0.5, 4)
    grid = [np.array([[1 - a, a], [b, 1 - b]]) for a in ab for b in ab]
    for _ in range(6):
        a1, b1, a2, b2 = rng.random(4) * 0.5
        A = np.array([[1 - a1, a1], [b1, 1 - b1]])
        B = np.array([[1 - a2, a2], [b2, 1 - b2]])
        M, J = meet(A, B), join(A, B)
        for C in (A, B):
            assert q.refines(M, C).holds and q.refines(C, J).holds
        for N in grid:
            assert q.refines(N, M).holds == refines_binary(N, M)
            assert q.refines(J, N).holds == refines_binary(J, N)


def test_meet_of_several_channels():
    chans = [q.grr(2, e) for e in (1.0, 2.0)] + [q.oue_bit(1.5), q.sue_bit(3.0)]
    M = meet(*chans)
    T = meet_curve(*chans)
    for C in chans:
        assert refines_binary(M, C)
        TC = tradeoff_curve(C, exact=True)
        assert all(T(a) <= b for a, b in TC)
    assert join_curve(*chans) == join_curve(*reversed(chans))
