"""Channel validation, immutability, labels, reduction (issue: core)."""

import numpy as np
import pytest

import qifldp as q
from qifldp.channel import MAX_ENTRIES, guard_work
from qifldp.errors import SizeError
from tests.canonical import BSC_QUARTER, HAND


def test_matrix_is_read_only_and_float64():
    C = q.Channel([[1, 0], [0, 1]])
    assert C.matrix.dtype == np.float64
    with pytest.raises(ValueError):
        C.matrix[0, 0] = 0.5
    # to_numpy gives an independent writable copy
    M = C.to_numpy()
    M[0, 0] = 0.0
    assert C.matrix[0, 0] == 1.0


def test_constructor_copies_its_input():
    raw = np.array([[0.5, 0.5], [0.5, 0.5]])
    C = q.Channel(raw)
    raw[0, 0] = 0.9
    assert C.matrix[0, 0] == 0.5


def test_default_and_given_labels():
    C = q.Channel(np.eye(2), inputs=("a", "b"), outputs=("u", "v"))
    assert C.inputs == ("a", "b") and C.outputs == ("u", "v")
    assert q.Channel(np.eye(2)).inputs == (0, 1)
    assert C.shape == (2, 2) and C.n_inputs == 2 and C.n_outputs == 2
    np.testing.assert_array_equal(C.row("b"), [0.0, 1.0])


def test_rounding_accepted_real_error_rejected():
    q.Channel([[0.1 + 0.2, 0.7]])  # sums to 1.0000000000000002
    q.Channel([[0.5 + 5e-10, 0.5]])
    with pytest.raises(q.ChannelError, match=r"row 0 sums to 1.001"):
        q.Channel([[0.501, 0.5]])


@pytest.mark.parametrize(
    ("matrix", "pattern"),
    [
        ([0.5, 0.5], "must be 2-D"),
        ([[[1.0]]], "must be 2-D"),
        (np.zeros((0, 2)), "at least one row"),
        ([[1.5, -0.5]], r"non-negative, entry \[0, 1\]"),
        ([[np.nan, 1.0]], "finite"),
        ([[np.inf, 0.0]], "finite"),
        ([[0.5, 0.5], [0.2, 0.2]], "row 1 sums to 0.4"),
    ],
)
def test_invalid_matrices(matrix, pattern):
    with pytest.raises(q.ChannelError, match=pattern):
        q.Channel(matrix)


def test_invalid_matrix_errors_are_value_errors():
    with pytest.raises(ValueError):
        q.Channel([[0.5, 0.6]])


def test_non_numeric_matrix_is_type_error():
    with pytest.raises(TypeError, match="matrix"):
        q.Channel([["a", "b"]])


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"inputs": ("a",)}, "inputs must have one label per input"),
        ({"outputs": ("a", "b", "c")}, "outputs must have one label per output"),
        ({"inputs": ("a", "a")}, "inputs labels must be distinct, 'a'"),
        ({"outputs": (1, 1)}, "outputs labels must be distinct"),
    ],
)
def test_invalid_labels(kwargs, pattern):
    with pytest.raises(q.ChannelError, match=pattern):
        q.Channel(np.eye(2), **kwargs)


def test_unhashable_or_string_labels_are_type_errors():
    with pytest.raises(TypeError, match="hashable"):
        q.Channel(np.eye(2), inputs=([1], [2]))
    with pytest.raises(TypeError, match="string"):
        q.Channel(np.eye(2), inputs="ab")


def test_equality_hash_and_closeness():
    A = q.Channel([[0.5, 0.5], [0.25, 0.75]])
    B = q.Channel([[0.5, 0.5], [0.25, 0.75]])
    assert A == B and hash(A) == hash(B)
    assert A != A.relabel(outputs=("x", "y"))
    C = q.Channel([[0.5, 0.5], [0.25 + 1e-6, 0.75 - 1e-6]])
    assert A != C
    assert A.isclose(C, atol=1e-5) and not A.isclose(C, atol=1e-7)
    assert not A.isclose(q.Channel(np.eye(3)))


def test_numpy_round_trip():
    C = q.Channel.from_numpy(np.asarray(BSC_QUARTER))
    assert C == BSC_QUARTER
    assert np.asarray(C).flags.writeable


def test_repr_small_and_large():
    assert repr(BSC_QUARTER).startswith("Channel(2 inputs x 2 outputs)\n[[0.75 0.25]")
    assert repr(q.Channel(np.full((10, 10), 0.1))) == "Channel(10 inputs x 10 outputs)"


def test_reduced_merges_proportional_and_drops_zero_columns():
    # columns 0 and 1 are proportional (factor 2), column 3 is zero: worked by hand.
    C = q.Channel([[0.1, 0.2, 0.7, 0.0], [0.2, 0.4, 0.4, 0.0]], outputs=("a", "b", "c", "d"))
    R, groups = C.reduced(return_groups=True)
    np.testing.assert_allclose(R.matrix, [[0.3, 0.7], [0.6, 0.4]])
    assert R.outputs == (("a", "b"), "c")
    assert [g.tolist() for g in groups] == [[0, 1], [2]]


def test_reduced_of_reduced_is_identity_on_hand():
    R = HAND.reduced()
    assert R.reduced() == R
    assert R.shape == (3, 4)  # no two columns of HAND are proportional


def test_reduced_never_merges_columns_that_differ_only_in_tiny_entries():
    # columns 0 and 1 agree in rows 0-1 but their row-2 entries are 1e-20 vs 2e-20: not
    # proportional. Merging them would change ldp_epsilon from ln(0.4/1e-20) (column 0)
    # to ln(0.8/3e-20): computed by hand.
    C = q.Channel([[0.4, 0.4, 0.2], [0.3, 0.3, 0.4], [1e-20, 2e-20, 1 - 3e-20]])
    R = C.reduced()
    assert R.n_outputs == 3
    assert q.ldp_epsilon(R) == q.ldp_epsilon(C) == pytest.approx(np.log(0.4 / 1e-20))


def test_guard_work_is_the_shared_work_limit():
    # the count is compared exactly with MAX_ENTRIES; the caller's advice ends the message
    guard_work("a sum", "add a x b terms", 8.0, lambda: MAX_ENTRIES, "Do less.")  # at the limit
    with pytest.raises(SizeError) as err:
        guard_work("a sum", "add a x b terms", 8.0, lambda: MAX_ENTRIES + 1, "Do less.", "terms")
    assert str(err.value) == (
        f"a sum would add a x b terms = {MAX_ENTRIES + 1} terms, more than the work limit "
        f"MAX_ENTRIES = {MAX_ENTRIES}. Do less."
    )

    def never() -> int:
        raise AssertionError("a count of 41 digits is not formed")

    with pytest.raises(SizeError, match=r"= ~10\^40.0, more than the work limit"):
        guard_work("a sum", "add a x b terms", 40.0, never, "")
