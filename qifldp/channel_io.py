"""Channels in and out of files: CSV, JSON and NPY, with labels.

The format is chosen by the file's extension (case-insensitive):

``.csv``
    The first row holds a corner cell (ignored; written as ``x\\y``) and the
    output labels; every other row an input label and the row's entries.
    A file whose first row is numbers only, corner cell included, is a plain
    matrix without labels (every row entries only; labels the defaults 0..n-1).
    Entries are decimal numbers or fractions such as ``1/3``.
    Labels are parsed per axis: integers when every label of the axis parses as
    an int; otherwise each label that is a Python tuple literal such as
    ``(0, 1)`` or ``('a', 'b')`` becomes that tuple (the outputs of ``compose``,
    ``subset_selection`` or ``Channel.reduced``) and every other label stays
    the string as written. So *string* labels that are all digits, or that look
    like tuples, do not round-trip through CSV; JSON keeps them strings.
``.json``
    One object ``{"inputs": [...], "outputs": [...], "matrix": [[...], ...]}``;
    ``inputs`` and ``outputs`` are optional (default 0..n-1). Labels are
    numbers, strings or lists (read back as tuples, recursively). Floats are
    written in their shortest exact form, so a round trip is exact.
``.npy``
    The matrix only (``numpy.save``); labels are the defaults 0..n-1.

>>> import os, tempfile, qifldp as q
>>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]], inputs=("no", "yes"))
>>> path = os.path.join(tempfile.mkdtemp(), "rr.csv")
>>> q.write_channel(C, path)
>>> q.read_channel(path) == C
True
"""

from __future__ import annotations

import ast
import csv
import errno
import json
import math
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .channel import ROW_SUM_ATOL, Channel, as_channel
from .errors import ChannelError, InputTypeError, ParameterError

__all__ = ["read_channel", "write_channel", "ChannelFileError", "RENORMALIZE_RTOL", "FORMATS"]

#: ``read_channel(..., renormalize=True)`` rescales a row only when its sum is within
#: this relative distance of 1 (rows rounded in print: 0.333/0.333/0.333 sums to 0.999).
RENORMALIZE_RTOL: float = 1e-2

#: Supported extensions.
FORMATS: tuple[str, ...] = (".csv", ".json", ".npy")

# The first bytes of every ``.npy`` file (``numpy.lib.format.MAGIC_PREFIX``).
_NPY_MAGIC: bytes = b"\x93NUMPY"

_CORNER = "x\\y"


class ChannelFileError(ChannelError):
    """A channel file is malformed (the message names the file, row and column)."""


def _format(path: Path, what: str) -> str:
    ext = path.suffix.lower()
    if ext not in FORMATS:
        msg = (
            f"{what}: unknown extension {path.suffix!r} of {str(path)!r}; "
            f"use one of {', '.join(FORMATS)}"
        )
        raise ParameterError(msg)
    return ext


def _as_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        msg = f"path must be a str or os.PathLike, got {type(path).__name__}"
        raise InputTypeError(msg)
    return Path(path)


# ----------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------
def read_channel(path: Any, renormalize: bool = False) -> Channel:
    """Read a channel from a CSV, JSON or NPY file (format by extension).

    Parameters
    ----------
    path : str or os.PathLike
    renormalize : bool
        False (default): rows must sum to 1 as :class:`qifldp.Channel` requires.
        True: a row whose sum is within :data:`RENORMALIZE_RTOL` (relative) of 1
        is divided by its sum (values rounded in print, e.g. 0.333 three times);
        a row further off still raises.

    Returns
    -------
    Channel

    Raises
    ------
    FileNotFoundError
        No such file.
    ParameterError
        Unknown extension.
    ChannelFileError
        Malformed content: ragged rows, a non-numeric entry, duplicate labels,
        invalid JSON or a wrong schema (the message names file, row and column),
        or a row sum off (with the hint to pass ``renormalize=True`` when that
        would apply).

    Examples
    --------
    >>> import os, tempfile, qifldp as q
    >>> path = os.path.join(tempfile.mkdtemp(), "rr.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("x\\\\y,a,b,c\\n0,0.334,0.333,0.333\\n1,0.333,0.333,0.333\\n")
    >>> q.read_channel(path)
    Traceback (most recent call last):
    ...
    qifldp.channel_io.ChannelFileError: ...row 1 (input 1) sums to 0.999...renormalize=True...
    >>> C = q.read_channel(path, renormalize=True)
    >>> C.outputs, C.matrix.sum(axis=1).tolist()
    (('a', 'b', 'c'), [1.0, 1.0])
    """
    p = _as_path(path)
    ext = _format(p, "read_channel")
    if not p.is_file():
        msg = f"read_channel: no such file {str(p)!r}"
        raise FileNotFoundError(errno.ENOENT, msg, str(p))
    inputs: tuple | None
    outputs: tuple | None
    if ext == ".csv":
        M, inputs, outputs = _read_csv(p)
    elif ext == ".json":
        M, inputs, outputs = _read_json(p)
    else:
        M, inputs, outputs = _read_npy(p)
    M = _fix_rows(M, p, inputs, renormalize)
    try:
        return Channel(M, inputs, outputs)
    except (ChannelError, InputTypeError) as exc:
        msg = f"{str(p)!r}: {exc}"
        raise ChannelFileError(msg) from None


def _fix_rows(M: np.ndarray, p: Path, inputs: Any, renormalize: bool) -> np.ndarray:
    if M.ndim != 2 or M.size == 0:
        msg = f"{str(p)!r}: the matrix must be 2-D and non-empty, got shape {M.shape}"
        raise ChannelFileError(msg)
    if not np.all(np.isfinite(M)) or np.any(M < 0):
        return M  # Channel names the bad entry
    sums = M.sum(axis=1)
    off = np.abs(sums - 1.0) > ROW_SUM_ATOL
    if not off.any():
        return M
    fixable = np.abs(sums - 1.0) <= RENORMALIZE_RTOL
    i = int(np.flatnonzero(off & ~fixable)[0]) if np.any(off & ~fixable) else None
    label = lambda j: inputs[j] if inputs is not None else j  # noqa: E731
    if i is not None:
        msg = (
            f"{str(p)!r}: row {i} (input {label(i)!r}) sums to {float(sums[i])!r}, "
            f"further from 1 than rounding in print (RENORMALIZE_RTOL = {RENORMALIZE_RTOL:g}); "
            "it is not a probability distribution"
        )
        raise ChannelFileError(msg)
    if not renormalize:
        j = int(np.flatnonzero(off)[0])
        msg = (
            f"{str(p)!r}: row {j} (input {label(j)!r}) sums to {float(sums[j])!r}, not 1 "
            f"(within {ROW_SUM_ATOL:g}); {int(off.sum())} row(s) are off by less than "
            f"RENORMALIZE_RTOL = {RENORMALIZE_RTOL:g}: pass renormalize=True to rescale "
            "rows rounded in print"
        )
        raise ChannelFileError(msg)
    M = M.copy()
    M[off] /= sums[off, None]
    return M


def _parse_number(s: str, p: Path, line: int, col: int) -> float:
    t = s.strip()
    try:
        return float(t)
    except ValueError:
        pass
    try:
        return float(Fraction(t))
    except (ValueError, ZeroDivisionError):
        msg = (
            f"{str(p)!r}, line {line}, column {col}: entry {s!r} is not a number "
            "(decimal or fraction such as 1/3)"
        )
        raise ChannelFileError(msg) from None


def _parse_int(s: str) -> int | None:
    t = s.strip()
    if t.lstrip("+-").isdigit():
        return int(t)
    return None


def _parse_tuple(s: str) -> tuple | None:
    t = s.strip()
    if not (t.startswith("(") and t.endswith(")")):
        return None
    try:
        v = ast.literal_eval(t)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return v if isinstance(v, tuple) else None


def _parse_labels(raw: list[str]) -> tuple:
    ints = [_parse_int(s) for s in raw]
    if all(v is not None for v in ints):
        return tuple(ints)
    return tuple(s if t is None else t for s, t in ((s, _parse_tuple(s)) for s in raw))


def _is_number(s: str) -> bool:
    """Whether a CSV cell is an entry (a decimal number or a fraction such as 1/3)."""
    t = s.strip()
    try:
        float(t)
    except ValueError:
        try:
            Fraction(t)
        except (ValueError, ZeroDivisionError):
            return False
    return True


def _read_plain_csv(rows: list[list[str]], p: Path) -> tuple[np.ndarray, None, None]:
    """A CSV of numbers only (no header, no labels): the matrix, default labels."""
    width = len(rows[0])
    for n, r in enumerate(rows, start=1):
        if len(r) != width:
            msg = (
                f"{str(p)!r}, line {n}: ragged row, {len(r)} cells where line 1 has {width} "
                "(read as a matrix without labels: line 1 holds numbers only)"
            )
            raise ChannelFileError(msg)
    M = np.array(
        [[_parse_number(c, p, n, j + 1) for j, c in enumerate(r)] for n, r in enumerate(rows, 1)],
        dtype=np.float64,
    )
    return M, None, None


def _read_csv(p: Path) -> tuple[np.ndarray, tuple | None, tuple | None]:
    try:
        with p.open(newline="", encoding="utf-8") as f:
            rows = [r for r in csv.reader(f) if any(c.strip() for c in r)]
    except UnicodeDecodeError as exc:
        msg = f"{str(p)!r}: not a UTF-8 text file ({exc.reason})"
        raise ChannelFileError(msg) from None
    except csv.Error as exc:
        msg = f"{str(p)!r}: not a valid CSV file ({exc})"
        raise ChannelFileError(msg) from None
    if rows and all(_is_number(c) for c in rows[0]):
        return _read_plain_csv(rows, p)
    if len(rows) < 2:
        msg = (
            f"{str(p)!r}: a channel CSV needs a header row (corner cell, output labels) "
            "and at least one input row"
        )
        raise ChannelFileError(msg)
    header = rows[0]
    width = len(header)
    if width < 2:
        msg = f"{str(p)!r}, line 1: the header needs a corner cell and at least one output label"
        raise ChannelFileError(msg)
    body = []
    for n, r in enumerate(rows[1:], start=2):
        if len(r) != width:
            msg = (
                f"{str(p)!r}, line {n}: ragged row, {len(r)} cells where the header has "
                f"{width} (an input label and {width - 1} entries)"
            )
            raise ChannelFileError(msg)
        body.append(r)
    M = np.array(
        [
            [_parse_number(c, p, n, j + 2) for j, c in enumerate(r[1:])]
            for n, r in enumerate(body, start=2)
        ],
        dtype=np.float64,
    )
    outputs = _parse_labels([c.strip() for c in header[1:]])
    inputs = _parse_labels([r[0].strip() for r in body])
    return M, inputs, outputs


def _to_label(v: Any, p: Path, where: str) -> Any:
    if isinstance(v, list):
        return tuple(_to_label(u, p, where) for u in v)
    if isinstance(v, (dict,)) or v is None:
        msg = f"{str(p)!r}: {where} must hold numbers, strings or lists, got {v!r}"
        raise ChannelFileError(msg)
    return v


def _read_json(p: Path) -> tuple[np.ndarray, tuple | None, tuple | None]:
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        msg = f"{str(p)!r}, line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})"
        raise ChannelFileError(msg) from None
    except UnicodeDecodeError as exc:
        msg = f"{str(p)!r}: not a UTF-8 text file ({exc.reason})"
        raise ChannelFileError(msg) from None
    if not isinstance(doc, dict) or "matrix" not in doc:
        msg = (
            f"{str(p)!r}: a channel JSON is an object "
            '{"inputs": [...], "outputs": [...], "matrix": [[...], ...]} with at least "matrix"'
        )
        raise ChannelFileError(msg)
    extra = sorted(set(doc) - {"inputs", "outputs", "matrix"})
    if extra:
        msg = f"{str(p)!r}: unknown keys {extra} (expected inputs, outputs, matrix)"
        raise ChannelFileError(msg)
    mat = doc["matrix"]
    if not isinstance(mat, list) or not mat or not all(isinstance(r, list) for r in mat):
        msg = f'{str(p)!r}: "matrix" must be a non-empty list of rows (lists of numbers)'
        raise ChannelFileError(msg)
    width = len(mat[0])
    for i, r in enumerate(mat):
        if len(r) != width:
            msg = f'{str(p)!r}: ragged "matrix", row {i} has {len(r)} entries, row 0 has {width}'
            raise ChannelFileError(msg)
        for j, v in enumerate(r):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                msg = f'{str(p)!r}: "matrix" row {i}, column {j}: entry {v!r} is not a number'
                raise ChannelFileError(msg)
    M = np.array(mat, dtype=np.float64)
    labels: list[tuple | None] = []
    for key in ("inputs", "outputs"):
        v = doc.get(key)
        if v is None:
            labels.append(None)
            continue
        if not isinstance(v, list):
            msg = f'{str(p)!r}: "{key}" must be a list of labels'
            raise ChannelFileError(msg)
        labels.append(tuple(_to_label(u, p, f'"{key}"') for u in v))
    return M, labels[0], labels[1]


def _read_npy(p: Path) -> tuple[np.ndarray, None, None]:
    with p.open("rb") as f:
        magic = f.read(len(_NPY_MAGIC))
    if magic != _NPY_MAGIC:  # numpy would speak of pickled data, or raise EOFError when empty
        msg = f"{str(p)!r}: not a .npy file (it does not start with the .npy header {_NPY_MAGIC!r})"
        raise ChannelFileError(msg)
    try:
        M = np.load(p, allow_pickle=False)
    except (ValueError, EOFError) as exc:
        msg = f"{str(p)!r}: not a numeric .npy array ({exc})"
        raise ChannelFileError(msg) from None
    if not isinstance(M, np.ndarray) or M.dtype.kind not in "biuf":
        msg = f"{str(p)!r}: the .npy file must hold a real 2-D array"
        raise ChannelFileError(msg)
    return M.astype(np.float64), None, None


# ----------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------
def write_channel(C: Any, path: Any, *, drop_labels: bool = False) -> None:
    """Write a channel to a CSV, JSON or NPY file (format by extension).

    Parameters
    ----------
    C : Channel, array_like or SymmetricChannel (expanded; small k only)
    path : str or os.PathLike
        Overwritten if it exists.
    drop_labels : bool
        NPY stores no labels: writing a channel with labels other than the
        defaults 0..n-1 to ``.npy`` raises unless this is True.

    Raises
    ------
    ParameterError
        Unknown extension; labels that NPY would drop.
    InputTypeError
        A label that the format cannot represent (JSON: numbers, strings and
        tuples/lists; CSV: any label, written with ``str`` and tuples with
        ``repr``).

    Notes
    -----
    Entries are written with ``repr`` (shortest exact form), so reading the
    file back gives the same matrix bit for bit (CSV and JSON: the labels too,
    under the parsing rules of the module docstring).

    Examples
    --------
    >>> import os, tempfile, qifldp as q
    >>> d = tempfile.mkdtemp()
    >>> C = q.compose(q.grr(2, 1.0), q.grr(2, 2.0))
    >>> q.write_channel(C, os.path.join(d, "c.json"))
    >>> q.read_channel(os.path.join(d, "c.json")).outputs
    ((0, 0), (0, 1), (1, 0), (1, 1))
    """
    p = _as_path(path)
    ext = _format(p, "write_channel")
    if not isinstance(C, Channel) and hasattr(C, "expand") and hasattr(C, "k"):
        C = C.expand()
    C = as_channel(C, "C")
    if ext == ".npy":
        default = C.inputs == tuple(range(C.n_inputs)) and C.outputs == tuple(range(C.n_outputs))
        if not default and not drop_labels:
            msg = (
                f"write_channel: {str(p)!r} is .npy, which stores the matrix only; the "
                "channel has labels. Write .csv or .json to keep them, or pass drop_labels=True"
            )
            raise ParameterError(msg)
        np.save(p, np.asarray(C.matrix))
    elif ext == ".json":
        doc = {
            "inputs": [_json_label(x) for x in C.inputs],
            "outputs": [_json_label(y) for y in C.outputs],
            "matrix": [[float(v) for v in row] for row in C.matrix],
        }
        p.write_text(json.dumps(doc), encoding="utf-8")
    else:
        with p.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([_CORNER] + [_csv_label(y) for y in C.outputs])
            for x, row in zip(C.inputs, C.matrix, strict=True):
                w.writerow([_csv_label(x)] + [repr(float(v)) for v in row])


def _json_label(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(float(v)):
            msg = f"label {v!r} cannot be written to JSON (not finite)"
            raise InputTypeError(msg)
        return float(v)
    if isinstance(v, str):
        return v
    if isinstance(v, tuple):
        return [_json_label(u) for u in v]
    msg = f"label {v!r} of type {type(v).__name__} cannot be written to JSON"
    raise InputTypeError(msg)


def _csv_label(v: Any) -> str:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(int(v))
    if isinstance(v, tuple):
        return repr(tuple(int(u) if isinstance(u, np.integer) else u for u in v))
    return str(v)
