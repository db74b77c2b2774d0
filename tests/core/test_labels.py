"""Labels align channels (issue 8, reproducer 7): refines, max_case_refines, cascade, choices.

Expected values are by hand (2x2 and 3x3 matrices) or re-derived from the
returned certificate on the caller's matrices (A·W compared with B's rows taken
in A's label order).
"""

import numpy as np
import pytest

import qifldp as q
from qifldp.alignment import align_inputs, is_default_labels

M = np.array([[0.75, 0.25], [0.25, 0.75]])
# rows listed in the opposite order, same channel: secret "a" -> (0.75, 0.25)
A_AB = q.Channel(M, inputs=("a", "b"))
A_BA = q.Channel(M[::-1], inputs=("b", "a"))


def test_reproducer_7_reordered_identical_channels_refine_both_ways():
    # before: both directions "failed" (rows compared by position)
    assert q.refines(A_AB, A_BA).holds
    assert q.refines(A_BA, A_AB).holds
    assert q.max_case_refines(A_AB, A_BA).holds
    assert q.max_case_refines(A_BA, A_AB).holds


def test_refines_witness_in_callers_label_order():
    # A has 3 labelled secrets, B = A·R with rows listed in another order
    A = q.Channel([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]], inputs=("x", "y", "z"))
    R = np.array([[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]])
    AR = A.matrix @ R
    order = [2, 0, 1]  # B lists z, x, y
    B = q.Channel(AR[order], inputs=("z", "x", "y"), outputs=("u", "v"))
    r = q.refines(A, B)
    assert r.holds
    W = np.asarray(r.witness)
    assert W.shape == (3, 2)  # rows = A's outputs, columns = B's outputs in B's order
    # A·W equals B's rows taken in A's input order (x, y, z) = B.matrix[[1, 2, 0]]
    np.testing.assert_allclose(A.matrix @ W, B.matrix[[1, 2, 0]], atol=1e-9)
    assert np.all(W >= -1e-9) and np.allclose(W.sum(axis=1), 1)


def test_refines_counterexample_over_A_input_order():
    # B leaks more than A; B lists its rows reversed. The counterexample's gap,
    # recomputed on A and on B re-ordered into A's input order, is the stated gap.
    A = q.Channel([[0.6, 0.4], [0.4, 0.6]], inputs=("a", "b"))
    Bm = np.array([[0.9, 0.1], [0.1, 0.9]])
    B = q.Channel(Bm[::-1], inputs=("b", "a"))
    r = q.refines(A, B)
    assert not r.holds
    cx = r.counterexample
    gap = q.g_vulnerability(Bm, cx.gain, cx.prior) - q.g_vulnerability(A.matrix, cx.gain, cx.prior)
    assert gap == pytest.approx(cx.gap, rel=1e-9, abs=1e-15) and gap > 0


def test_max_case_refines_aligned_witness():
    A = q.Channel([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]], inputs=(0, 1, 2))
    B = q.Channel(np.full((3, 3), 1 / 3), inputs=(2, 0, 1))
    r = q.max_case_refines(A, B)
    assert r.holds
    np.testing.assert_allclose(A.matrix @ np.asarray(r.witness), np.full((3, 3), 1 / 3), atol=1e-9)
    # integer labels that are a permutation of 0..2 are aligned too
    N = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    P = q.Channel(N[[2, 0, 1]], inputs=(2, 0, 1))
    assert q.refines(q.Channel(N), P).holds and q.refines(P, q.Channel(N)).holds
    # positionally the same rows are another channel: secret 0 now has (0.2, 0.8)
    # and no row-stochastic W maps N to it (column 0's largest entry moves)
    assert not q.refines(q.Channel(N), q.Channel(N[[2, 0, 1]])).holds


def test_mismatched_custom_labels_raise_naming_labels():
    with pytest.raises(q.ChannelError, match=r"refines\(A, B\).*only in A's inputs: \['b'\]"):
        q.refines(A_AB, q.Channel(M, inputs=("a", "c")))
    with pytest.raises(q.ChannelError, match=r"max_case_refines\(A, B\).*only in B's inputs"):
        q.max_case_refines(A_AB, q.Channel(M, inputs=("a", "c")))


def test_default_labels_match_positionally():
    # an array or a default-labelled channel carries no names: rows by position
    N = np.array([[0.9, 0.1], [0.3, 0.7]])
    L = q.Channel(N, inputs=("a", "b"))
    assert q.refines(L, N).holds and q.refines(N, L).holds
    # by position, N and its row-reversal are not equivalent (N's secret 0 is the
    # likelier one to give output 0 in N, secret 1 in the reversal)
    assert not q.refines(L, q.Channel(N[::-1])).holds


def test_cascade_matches_outputs_to_inputs_by_label():
    # reproducer 7: A's output "yes" must feed B's row "yes" even when B lists "no" first
    A = q.Channel([[1.0, 0.0], [0.2, 0.8]], outputs=("yes", "no"))
    B = q.Channel([[0.1, 0.9], [0.7, 0.3]], inputs=("no", "yes"), outputs=("u", "v"))
    C = q.cascade(A, B)
    # by hand: row 0 = B["yes"] = (0.7, 0.3); row 1 = 0.2 (0.7, 0.3) + 0.8 (0.1, 0.9)
    np.testing.assert_allclose(C.matrix, [[0.7, 0.3], [0.22, 0.78]], atol=1e-15)
    assert C.outputs == ("u", "v")


def test_cascade_mismatched_labels_raise():
    A = q.Channel(np.eye(2), outputs=("yes", "no"))
    B = q.Channel(np.eye(2), inputs=("yes", "maybe"))
    with pytest.raises(q.ChannelError, match=r"cascade\(A, B\).*only in A's outputs: \['no'\]"):
        q.cascade(A, B)
    # a default-labelled B is fed positionally, as before
    np.testing.assert_allclose(q.cascade(A, q.Channel(M)).matrix, M)


def test_choices_align_rows_by_label():
    A = q.Channel([[1.0, 0.0], [0.0, 1.0]], inputs=("x", "y"))
    B = q.Channel([[0.3, 0.7], [0.6, 0.4]], inputs=("y", "x"))  # B["x"] = (0.6, 0.4)
    H = q.hidden_choice([A, B])
    np.testing.assert_allclose(H.matrix, [[0.8, 0.2], [0.15, 0.85]])
    assert H.inputs == ("x", "y")
    V = q.visible_choice([A, B], [0.5, 0.5])
    np.testing.assert_allclose(V.matrix, [[0.5, 0.0, 0.3, 0.2], [0.0, 0.5, 0.15, 0.35]])
    with pytest.raises(q.ChannelError, match=r"hidden_choice.*channels\[1\]'s inputs"):
        q.hidden_choice([A, q.Channel(np.eye(2), inputs=("x", "z"))])
    # default-labelled channel first: the result takes the custom labels
    D = q.Channel(np.eye(2))
    assert q.visible_choice([D, A]).inputs == ("x", "y")


def test_align_helpers():
    assert is_default_labels((0, 1, 2)) and not is_default_labels((1, 0))
    A2, B2 = align_inputs(A_AB, A_BA)
    assert A2 is A_AB and B2 == A_AB
