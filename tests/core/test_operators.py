"""QIF operators: cascade, parallel, one_hot, visible and hidden choice."""

import itertools
import math

import numpy as np
import pytest

import qifldp as q
from tests.canonical import BSC_QUARTER, HAND, IDENTITY3


def test_cascade_matrix_product_and_labels():
    A = q.Channel([[1.0, 0.0], [0.5, 0.5]], inputs=("a", "b"))
    B = q.Channel([[0.75, 0.25], [0.25, 0.75]], outputs=("u", "v"))
    C = q.cascade(A, B)
    # by hand: row b = 0.5*[.75,.25] + 0.5*[.25,.75] = [.5, .5]
    np.testing.assert_allclose(C.matrix, [[0.75, 0.25], [0.5, 0.5]])
    assert C.inputs == ("a", "b") and C.outputs == ("u", "v")


def test_cascade_shape_mismatch():
    with pytest.raises(q.ChannelError, match="A has 4 outputs, B has 2 inputs"):
        q.cascade(HAND, BSC_QUARTER)


def test_cascade_identity_is_noop():
    assert q.cascade(IDENTITY3, HAND).isclose(HAND, atol=0)
    assert q.cascade(HAND, q.Channel(np.eye(4))).isclose(HAND.relabel(), atol=0)


def test_parallel_kronecker_entries_and_labels():
    A, B = BSC_QUARTER, q.Channel([[1.0, 0.0], [0.5, 0.5]])
    C = q.parallel(A, B)
    assert C.shape == (4, 4)
    for (i, x), (j, y) in itertools.product(enumerate(C.inputs), enumerate(C.outputs)):
        assert C.matrix[i, j] == pytest.approx(A.matrix[x[0], y[0]] * B.matrix[x[1], y[1]])
    assert C.inputs == ((0, 0), (0, 1), (1, 0), (1, 1))


def test_one_hot_matches_bitwise_product():
    # enumeration: C[x, y] = Π_i B[[i == x], y_i]
    B = q.Channel([[0.8, 0.2], [0.3, 0.7]])
    C = q.one_hot(B, 4)
    assert C.shape == (4, 16)
    for x in range(4):
        for j, y in enumerate(C.outputs):
            expected = math.prod(B.matrix[int(i == x), y[i]] for i in range(4))
            assert C.matrix[x, j] == pytest.approx(expected, rel=1e-14)


def test_one_hot_with_three_symbols_per_position():
    # a position reports one of three symbols; enumeration of Π_i B[[i == x], y_i]
    B = q.Channel([[0.25, 0.25, 0.5], [0.6, 0.0, 0.4]], outputs=(1, -1, 0))
    C = q.one_hot(B, 3)
    assert C.shape == (3, 27) and C.outputs[:2] == ((1, 1, 1), (1, 1, -1))
    col = {y: j for j, y in enumerate(B.outputs)}
    for x in range(3):
        for j, y in enumerate(C.outputs):
            expected = math.prod(B.matrix[int(i == x), col[y[i]]] for i in range(3))
            assert C.matrix[x, j] == pytest.approx(expected, rel=1e-14, abs=0)


def test_one_hot_rejects_non_bit_channel_and_huge_k():
    with pytest.raises(q.ChannelError, match="two rows"):
        q.one_hot(IDENTITY3, 3)
    with pytest.raises(q.SizeError, match="symmetric"):
        q.one_hot(BSC_QUARTER, 40)
    with pytest.raises(q.ParameterError, match="k must be >= 1"):
        q.one_hot(BSC_QUARTER, 0)
    with pytest.raises(TypeError, match="k must be an integer"):
        q.one_hot(BSC_QUARTER, 2.5)


def test_visible_choice_capacity_is_weighted_sum():
    # the book: ML(C1 p⊕ C2) = p ML(C1) + (1-p) ML(C2)
    C1 = q.Channel(np.eye(2))
    C2 = BSC_QUARTER
    V = q.visible_choice([C1, C2], [0.25, 0.75])
    assert q.bayes_capacity(V) == pytest.approx(0.25 * 2 + 0.75 * 1.5)
    assert V.outputs == ((0, 0), (0, 1), (1, 0), (1, 1))


def test_hidden_choice_adds_same_labels():
    C1 = q.Channel(np.eye(2), outputs=("a", "b"))
    C2 = q.Channel([[0.0, 1.0], [1.0, 0.0]], outputs=("a", "c"))
    H = q.hidden_choice([C1, C2], [0.5, 0.5])
    assert H.outputs == ("a", "b", "c")
    np.testing.assert_allclose(H.matrix, [[0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])


def test_hidden_choice_is_post_processing_of_visible_choice():
    C1, C2 = BSC_QUARTER, q.Channel([[0.9, 0.1], [0.4, 0.6]])
    V = q.visible_choice([C1, C2], [0.3, 0.7])
    H = q.hidden_choice([C1, C2], [0.3, 0.7])
    # forgetting the index is the deterministic map (i, y) -> y
    W = np.array([[1.0 if vy[1] == hy else 0.0 for hy in H.outputs] for vy in V.outputs])
    assert q.cascade(V, q.Channel(W)).isclose(H, atol=1e-15, labels=False)
    assert q.bayes_capacity(H) <= q.bayes_capacity(V) + 1e-15


@pytest.mark.parametrize("op", [q.visible_choice, q.hidden_choice])
def test_choice_validation(op):
    with pytest.raises(q.ChannelError, match="share their inputs"):
        op([BSC_QUARTER, IDENTITY3])
    with pytest.raises(q.ParameterError, match="probability vector"):
        op([BSC_QUARTER, BSC_QUARTER], [0.5, 0.6])
    with pytest.raises(q.ParameterError, match="one entry per channel"):
        op([BSC_QUARTER, BSC_QUARTER], [1.0])
    with pytest.raises(TypeError, match="non-empty sequence"):
        op([])
    with pytest.raises(TypeError, match="non-empty sequence"):
        op(BSC_QUARTER)
