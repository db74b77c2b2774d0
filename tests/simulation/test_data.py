"""Datasets: FIMI loading and writing, item selection, synthetic Zipf data."""

from __future__ import annotations

import gzip
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from qifldp.errors import InputTypeError, ParameterError
from qifldp.simulation import (
    Transactions,
    load_fimi,
    single_items,
    top_k_items,
    write_fimi,
    zipf_data,
    zipf_probabilities,
    zipf_transactions,
)

from ._helpers import assert_gof


def test_load_fimi_kosarak_style(tmp_path):
    # hand-written file: blank line, tab, CRLF, several spaces, no final newline
    f = tmp_path / "kosarak_small.dat"
    f.write_bytes(b"1 2 3\n\n6\t11 3\r\n  7   7 12\n41270 1")
    T = load_fimi(f)
    assert T.to_lists() == [[1, 2, 3], [6, 11, 3], [7, 7, 12], [41270, 1]]
    assert len(T) == 4 and T.lengths.tolist() == [3, 3, 3, 2]
    assert T[-1].tolist() == [41270, 1]
    assert load_fimi(str(f), max_transactions=2).to_lists() == [[1, 2, 3], [6, 11, 3]]
    assert load_fimi(f, max_transactions=10).to_lists() == T.to_lists()


@pytest.mark.parametrize("block", [1, 5, 8, 64])
def test_load_fimi_in_small_blocks(tmp_path, monkeypatch, block):
    # blocks end at line breaks: any block size gives the same transactions and the
    # same line numbers in errors
    import qifldp.simulation.data as data

    monkeypatch.setattr(data, "FIMI_BLOCK_BYTES", block)
    lists = [[1, 22, 333], [4444], [5, 6], [7, 77, 777, 7777]]
    f = tmp_path / "blocks.dat"
    f.write_bytes(b"1 22 333\n\n4444\n5 6\n\n\n7 77 777 7777\n")
    assert load_fimi(f).to_lists() == lists
    f.write_bytes(b"1 2\n3\n\n4 5\n6 ? 7\n")
    with pytest.raises(ParameterError, match="line 5 is not a list"):
        load_fimi(f)


def test_load_fimi_gzip(tmp_path):
    f = tmp_path / "t.dat.gz"
    with gzip.open(f, "wb") as fh:
        fh.write(b"5 4\n3\n")
    assert load_fimi(f).to_lists() == [[5, 4], [3]]


@pytest.mark.parametrize(
    "content, match",
    [
        (b"1 2\n3 x 4\n", "line 2 is not a list of non-negative integer items: '3 x 4'"),
        (b"1 -2\n", "line 1 is not a list"),
        (b"1.5\n", "line 1 is not a list"),
        (b"\n \n", "no transaction found"),
        (b"1\n" + b"9" * 19 + b"\n", "line 2 has an item of more than 18 digits"),
    ],
)
def test_load_fimi_errors(tmp_path, content, match):
    f = tmp_path / "bad.dat"
    f.write_bytes(content)
    with pytest.raises(ParameterError, match=match):
        load_fimi(f)


def test_load_fimi_largest_items_exact(tmp_path):
    f = tmp_path / "big.dat"
    f.write_bytes(b"999999999999999999 0 100000000000000000\n")
    assert load_fimi(f).to_lists() == [[999999999999999999, 0, 100000000000000000]]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, 10**12), min_size=1, max_size=6),
        min_size=1,
        max_size=30,
    )
)
def test_write_load_round_trip(tmp_path_factory, lists):
    # provenance: the lists themselves (Python's str/int as the reference parser)
    f = tmp_path_factory.mktemp("fimi") / "rt.dat"
    write_fimi(f, lists)
    assert f.read_text() == "".join(" ".join(map(str, row)) + "\n" for row in lists)
    assert load_fimi(f).to_lists() == lists


def test_write_fimi_gzip_and_transactions(tmp_path):
    T = Transactions.from_lists([[3, 1], [2]])
    f = tmp_path / "t.dat.gz"
    write_fimi(f, T)
    assert load_fimi(f).to_lists() == [[3, 1], [2]]
    with pytest.raises(ParameterError, match="transaction 1 is empty"):
        Transactions.from_lists([[1], []])
    with pytest.raises(ParameterError, match="negative item"):
        Transactions.from_lists([[1, -1]])


def test_single_items():
    T = Transactions.from_lists([[4, 9, 1], [2], [7, 8]])
    assert single_items(T).tolist() == [4, 2, 7]
    n_rep = 30_000
    big = Transactions.from_lists([[4, 9, 1]] * n_rep)
    picks = single_items(big, "random", rng=1)
    # uniform over the transaction's 3 items (chi-square, alpha = 1e-6)
    assert_gof(np.array([(picks == v).sum() for v in (4, 9, 1)]), np.full(3, 1 / 3))
    with pytest.raises(ParameterError, match="how must be"):
        single_items(T, "last")
    with pytest.raises(InputTypeError, match="Transactions"):
        single_items([[1]])


def test_top_k_items():
    values = np.array([7, 3, 7, 5, 3, 7, 9, 5])  # counts: 7 -> 3, 3 -> 2, 5 -> 2, 9 -> 1
    xs, labels = top_k_items(values, 3)
    assert labels.tolist() == [7, 3, 5]  # tie 3/5 broken by the smaller label
    assert xs.tolist() == [0, 1, 0, 2, 1, 0, 2]  # the user holding 9 is dropped
    xs1, labels1 = top_k_items(values, 1)
    assert labels1.tolist() == [7] and xs1.tolist() == [0, 0, 0]
    with pytest.raises(ParameterError, match="exceeds the number of distinct items"):
        top_k_items(values, 5)


def test_kosarak_pipeline(tmp_path):
    # synthetic transactions -> file -> load -> one item per user -> top 10 items
    T = zipf_transactions(5000, 200, s=1.1, mean_length=4.0, rng=3)
    f = tmp_path / "synthetic.dat"
    write_fimi(f, T)
    L = load_fimi(f)
    assert np.array_equal(L.items, T.items) and np.array_equal(L.offsets, T.offsets)
    xs, labels = top_k_items(single_items(L, "random", rng=4), 10)
    assert xs.min() == 0 and xs.max() == 9 and labels.size == 10


def test_zipf_probabilities_exact():
    # s = 1, k = 4: (1, 1/2, 1/3, 1/4) / (25/12) = (12, 6, 4, 3) / 25
    want = [Fraction(12, 25), Fraction(6, 25), Fraction(4, 25), Fraction(3, 25)]
    assert zipf_probabilities(4, 1.0).tolist() == pytest.approx([float(w) for w in want])
    assert zipf_probabilities(3, 0).tolist() == pytest.approx([1 / 3] * 3)
    with pytest.raises(ParameterError, match="s must be finite and >= 0"):
        zipf_probabilities(3, -1.0)
    with pytest.raises(InputTypeError, match="s must be a real number"):
        zipf_probabilities(3, "1")


def test_zipf_data_law_and_seed():
    xs = zipf_data(100_000, 20, 1.3, rng=5)
    assert_gof(np.bincount(xs, minlength=20), zipf_probabilities(20, 1.3))
    assert np.array_equal(xs, zipf_data(100_000, 20, 1.3, rng=np.random.default_rng(5)))
    assert zipf_data(0, 5, rng=1).shape == (0,)


def test_zipf_transactions_shape():
    T = zipf_transactions(20_000, 50, s=1.0, mean_length=3.0, rng=6)
    assert len(T) == 20_000
    lengths = T.lengths
    assert lengths.min() >= 1
    for t in list(T)[:500]:
        assert np.all(np.diff(t) > 0)  # distinct, increasing
    # each user draws 1 + Poisson(2) items before merging repeats: mean length <= 3
    assert 2.0 < lengths.mean() <= 3.0
    with pytest.raises(ParameterError, match="mean_length"):
        zipf_transactions(10, 5, mean_length=0.5)


def test_transactions_container():
    T = Transactions.from_lists([[1], [2, 3]])
    assert repr(T) == "Transactions(2 transactions, 3 items)"
    with pytest.raises(IndexError, match="out of range"):
        T[2]
