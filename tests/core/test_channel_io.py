"""Channels in and out of CSV / JSON / NPY files: round trips, labels, renormalize, errors."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.channel_io import RENORMALIZE_RTOL, ChannelFileError
from qifldp.errors import InputTypeError, ParameterError


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------------
# round trips
# ----------------------------------------------------------------------------------
ROUND_TRIP = {
    "int labels": q.grr(4, 1.3),
    "string labels": q.Channel(
        [[0.1, 0.2, 0.7], [1 / 3, 1 / 3, 1 / 3]], inputs=("no", "yes"), outputs=("a", "b c", "d,e")
    ),
    "tuple outputs (compose)": q.compose(q.grr(3, 1.0), q.grr(3, 0.2)),
    "tuple outputs (subset selection)": q.subset_selection(5, 1.0, 2),
    "repeated multisets": q.repeated(q.grr(3, 0.7), 3),
    "mixed tuple and string outputs (reduced)": q.Channel(
        [[0.2, 0.4, 0.4], [0.1, 0.2, 0.7]], outputs=("a", "b", "c, d")
    ).reduced(),
    "quotes and commas": q.compose(
        q.Channel([[0.5, 0.5], [0.1, 0.9]], inputs=("lo", "hi"), outputs=("a, b", 'q"x')),
        q.Channel([[0.5, 0.5], [0.1, 0.9]], inputs=("hi", "lo"), outputs=("a, b", 'q"x')),
    ),
}


@pytest.mark.parametrize("ext", [".csv", ".json"])
@pytest.mark.parametrize("name", list(ROUND_TRIP))
def test_round_trip_with_labels(tmp_path, ext, name):
    C = ROUND_TRIP[name]
    path = tmp_path / f"c{ext}"
    q.write_channel(C, path)
    R = q.read_channel(path)
    # bit-for-bit: entries are written in their shortest exact form
    assert R == C
    assert R.inputs == C.inputs and R.outputs == C.outputs
    assert [type(v) for v in R.inputs] == [type(v) for v in C.inputs]
    assert [type(v) for v in R.outputs] == [type(v) for v in C.outputs]


def test_npy_round_trip_default_labels(tmp_path):
    C = q.oue(3, 1.0).relabel(outputs=range(8))
    q.write_channel(C, tmp_path / "c.npy")
    R = q.read_channel(tmp_path / "c.npy")
    assert R == C
    assert np.load(tmp_path / "c.npy").shape == (3, 8)


def test_npy_refuses_to_drop_labels(tmp_path):
    C = q.oue(3, 1.0)  # outputs are bit tuples
    with pytest.raises(ParameterError, match="drop_labels=True"):
        q.write_channel(C, tmp_path / "c.npy")
    q.write_channel(C, tmp_path / "c.npy", drop_labels=True)
    R = q.read_channel(tmp_path / "c.npy")
    assert R.outputs == tuple(range(8))
    np.testing.assert_array_equal(R.matrix, C.matrix)


def test_write_symmetric_channel_expands(tmp_path):
    q.write_channel(sym.grr(3, 1.0), tmp_path / "s.json")
    R = q.read_channel(tmp_path / "s.json")
    assert R.isclose(q.grr(3, 1.0), atol=1e-15)


def test_json_schema_and_defaults(tmp_path):
    doc = {"matrix": [[0.5, 0.5], [0.25, 0.75]]}
    C = q.read_channel(write(tmp_path / "m.json", json.dumps(doc)))
    assert C.inputs == (0, 1) and C.outputs == (0, 1)
    q.write_channel(q.Channel([[1.0]], inputs=[("a", 1)], outputs=["y"]), tmp_path / "w.json")
    written = json.loads((tmp_path / "w.json").read_text())
    assert written == {"inputs": [["a", 1]], "outputs": ["y"], "matrix": [[1.0]]}


# ----------------------------------------------------------------------------------
# CSV label parsing
# ----------------------------------------------------------------------------------
def test_csv_labels_ints_only_when_all_parse(tmp_path):
    p = write(tmp_path / "a.csv", "x\\y,1,b\n10,0.5,0.5\n-2,1,0\n")
    C = q.read_channel(p)
    assert C.inputs == (10, -2)  # all ints
    assert C.outputs == ("1", "b")  # one label is not an int: all strings
    p = write(tmp_path / "t.csv", "x\\y,\"(0, 'a')\",b\n0,0.5,0.5\n")
    assert q.read_channel(p).outputs == ((0, "a"), "b")  # tuple literals become tuples


def test_csv_accepts_fractions(tmp_path):
    p = write(tmp_path / "f.csv", "x\\y,a,b,c\n0,1/3,1/3,1/3\n1, 1/2 ,1/4,0.25\n")
    C = q.read_channel(p)
    np.testing.assert_allclose(C.matrix, [[1 / 3] * 3, [0.5, 0.25, 0.25]], rtol=1e-15)


# ----------------------------------------------------------------------------------
# renormalize
# ----------------------------------------------------------------------------------
def test_rows_rounded_in_print_rejected_by_default(tmp_path):
    p = write(tmp_path / "r.csv", "x\\y,a,b,c\n0,0.333,0.333,0.333\n1,0.5,0.25,0.25\n")
    with pytest.raises(
        ChannelFileError, match=r"row 0 \(input 0\) sums to 0\.999.*renormalize=True"
    ):
        q.read_channel(p)
    C = q.read_channel(p, renormalize=True)
    np.testing.assert_allclose(C.matrix[0], [1 / 3] * 3, rtol=1e-15)
    np.testing.assert_array_equal(C.matrix[1], [0.5, 0.25, 0.25])  # exact rows untouched


def test_renormalize_refuses_rows_far_off(tmp_path):
    assert RENORMALIZE_RTOL == 1e-2
    p = write(tmp_path / "r.json", json.dumps({"matrix": [[0.6, 0.45], [0.5, 0.5]]}))
    with pytest.raises(ChannelFileError, match="sums to 1.05"):
        q.read_channel(p, renormalize=True)
    with pytest.raises(ChannelFileError, match="sums to 1.05"):
        q.read_channel(p)


def test_renormalize_json(tmp_path):
    p = write(tmp_path / "r.json", json.dumps({"matrix": [[0.67, 0.33], [0.333, 0.666]]}))
    C = q.read_channel(p, renormalize=True)
    np.testing.assert_allclose(C.matrix, [[0.67, 0.33], [1 / 3, 2 / 3]], rtol=1e-15)


# ----------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------
def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file.*nothere.csv"):
        q.read_channel(tmp_path / "nothere.csv")


def test_unknown_extension(tmp_path):
    with pytest.raises(ParameterError, match=r"unknown extension '\.txt'.*\.csv, \.json, \.npy"):
        q.read_channel(write(tmp_path / "c.txt", "1"))
    with pytest.raises(ParameterError, match="unknown extension"):
        q.write_channel(q.grr(2, 1.0), tmp_path / "c.xlsx")


def test_ragged_csv_names_the_line(tmp_path):
    p = write(tmp_path / "g.csv", "x\\y,a,b\n0,0.5,0.5\n1,1.0\n")
    with pytest.raises(ChannelFileError, match=r"g\.csv', line 3: ragged row, 2 cells"):
        q.read_channel(p)


def test_non_numeric_csv_names_line_and_column(tmp_path):
    p = write(tmp_path / "n.csv", "x\\y,a,b\n0,0.5,0.5\n1,half,0.5\n")
    with pytest.raises(ChannelFileError, match=r"line 3, column 2: entry 'half' is not a number"):
        q.read_channel(p)


def test_negative_entry_named(tmp_path):
    p = write(tmp_path / "neg.csv", "x\\y,a,b\n0,1.5,-0.5\n1,0.5,0.5\n")
    with pytest.raises(ChannelFileError, match=r"neg\.csv.*non-negative.*\[0, 1\]"):
        q.read_channel(p)


def test_duplicate_labels(tmp_path):
    p = write(tmp_path / "d.csv", "x\\y,a,a\n0,0.5,0.5\n")
    with pytest.raises(ChannelFileError, match="distinct"):
        q.read_channel(p)


def test_json_errors(tmp_path):
    with pytest.raises(ChannelFileError, match="line 1, column"):
        q.read_channel(write(tmp_path / "a.json", "{not json"))
    with pytest.raises(ChannelFileError, match='ragged "matrix", row 1'):
        q.read_channel(write(tmp_path / "b.json", '{"matrix": [[1.0], [0.5, 0.5]]}'))
    with pytest.raises(ChannelFileError, match="row 0, column 1: entry 'x'"):
        q.read_channel(write(tmp_path / "c.json", '{"matrix": [[0.5, "x"]]}'))
    with pytest.raises(ChannelFileError, match="unknown keys"):
        q.read_channel(write(tmp_path / "d.json", '{"matrix": [[1.0]], "labels": [0]}'))
    with pytest.raises(ChannelFileError, match='at least "matrix"'):
        q.read_channel(write(tmp_path / "e.json", "[[1.0]]"))


def test_bad_path_type():
    with pytest.raises(InputTypeError, match="path must be"):
        q.read_channel(3)


def test_a_plain_numeric_csv_is_a_matrix_without_labels(tmp_path):
    # no header: the first row is numbers only (corner included), so no row is eaten as labels
    p = write(tmp_path / "plain.csv", "0.75,0.25\n0.25,0.75\n")
    C = q.read_channel(p)
    assert C.matrix.tolist() == [[0.75, 0.25], [0.25, 0.75]]
    assert C.inputs == (0, 1) and C.outputs == (0, 1)
    p = write(tmp_path / "frac.csv", "1/3,2/3\n")
    assert q.read_channel(p).matrix.tolist() == [[1 / 3, 2 / 3]]
    # the labelled form is unchanged: a corner cell that is not a number marks a header
    p = write(tmp_path / "lab.csv", "x\\y,0,1\n0,0.75,0.25\n1,0.25,0.75\n")
    assert q.read_channel(p) == C


def test_a_plain_numeric_csv_with_ragged_rows_says_how_it_was_read(tmp_path):
    p = write(tmp_path / "plain.csv", "0.75,0.25\n1.0\n")
    with pytest.raises(q.channel_io.ChannelFileError, match=r"line 2: ragged row.*without labels"):
        q.read_channel(p)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a .npy file"),
        (b"0.5,0.5\n0.5,0.5\n", "not a .npy file"),
        (b"\x93NUMPY\x01\x00", "not a numeric .npy array"),
    ],
)
def test_npy_that_is_not_a_npy_file(tmp_path, content, message):
    # provenance: the .npy format starts with the 6 bytes \x93NUMPY (numpy.lib.format);
    # without them numpy's own message speaks of pickled data or raises EOFError
    p = tmp_path / "c.npy"
    p.write_bytes(content)
    with pytest.raises(ChannelFileError, match=r"c\.npy': " + re.escape(message)) as info:
        q.read_channel(p)
    assert "pickle" not in str(info.value)
