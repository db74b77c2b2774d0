"""Datasets for simulations: FIMI transaction files (Kosarak) and seeded synthetic Zipf data.

Multidimensional tables are in :mod:`qifldp.simulation.categorical`, key-value data in
:mod:`qifldp.simulation.keyvalue`.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError
from ..validation import check_choice, check_int, check_real
from .util import as_array, as_rng, check_memory

__all__ = [
    "FIMI_BLOCK_BYTES",
    "Transactions",
    "load_fimi",
    "write_fimi",
    "single_items",
    "top_k_items",
    "zipf_probabilities",
    "zipf_data",
    "zipf_transactions",
]

_POW10 = 10 ** np.arange(19, dtype=np.int64)
_MAX_DIGITS = 18  # 10^18 < 2^63: every item of at most 18 digits fits in int64


@dataclass(frozen=True, eq=False)
class Transactions:
    """A list of transactions (one per user) stored flat: ``items[offsets[i]:offsets[i+1]]``.

    Attributes
    ----------
    items : numpy.ndarray of int64
        All items, transaction after transaction, in file order.
    offsets : numpy.ndarray of int64, shape (n + 1,)
        Start of each transaction in ``items``; ``offsets[-1] == items.size``.

    Examples
    --------
    >>> T = Transactions.from_lists([[3, 5], [5], [1, 2, 3]])
    >>> len(T), T[2].tolist(), T.lengths.tolist()
    (3, [1, 2, 3], [2, 1, 3])
    """

    items: np.ndarray
    offsets: np.ndarray

    @classmethod
    def from_lists(cls, lists: Iterable[Iterable[int]]) -> Transactions:
        """Build from an iterable of item lists (each non-empty, non-negative integers).

        Examples
        --------
        >>> Transactions.from_lists([[1], [2, 3]]).offsets.tolist()
        [0, 1, 3]
        """
        if lists is None or isinstance(lists, (str, bytes)) or not hasattr(lists, "__iter__"):
            msg = f"transactions must be an iterable of item lists, got {type(lists).__name__}"
            raise InputTypeError(msg)
        rows = []
        for i, r in enumerate(lists):
            if isinstance(r, (str, bytes)) or not hasattr(r, "__iter__"):
                msg = f"transaction {i} must be a list of integer items, got {type(r).__name__}"
                raise InputTypeError(msg)
            arr = np.asarray(list(r))
            if arr.size and (arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer)):
                msg = f"transaction {i} must hold integer items, got dtype {arr.dtype}"
                raise InputTypeError(msg)
            rows.append(arr.astype(np.int64).reshape(-1))
        for i, r in enumerate(rows):
            if r.size == 0:
                msg = f"transaction {i} is empty (every user holds at least one item)"
                raise ParameterError(msg)
            if r.min() < 0:
                msg = f"transaction {i} has a negative item {int(r.min())} (items must be >= 0)"
                raise ParameterError(msg)
        lengths = np.array([r.size for r in rows], dtype=np.int64)
        items = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
        return cls(items, np.concatenate(([0], np.cumsum(lengths))).astype(np.int64))

    def __len__(self) -> int:
        return int(self.offsets.size - 1)

    def __getitem__(self, i: int) -> np.ndarray:
        n = len(self)
        if not -n <= i < n:
            msg = f"transaction index {i} out of range for {n} transactions"
            raise IndexError(msg)
        i %= n
        return self.items[self.offsets[i] : self.offsets[i + 1]]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"Transactions({len(self)} transactions, {self.items.size} items)"

    @property
    def lengths(self) -> np.ndarray:
        """Number of items of each transaction."""
        return np.diff(self.offsets)

    def to_lists(self) -> list[list[int]]:
        """The transactions as Python lists.

        Examples
        --------
        >>> Transactions.from_lists([[1], [2, 3]]).to_lists()
        [[1], [2, 3]]
        """
        return [self[i].tolist() for i in range(len(self))]


def _check_path(path: Any) -> str:
    """A file path (str or os.PathLike, not a file descriptor); opening errors stay OSError."""
    if isinstance(path, (str, os.PathLike)):
        path = os.fspath(path)
        if isinstance(path, str) and path:
            return path
    msg = f"path must be a file name (str or os.PathLike), got {path!r}"
    raise InputTypeError(msg)


def load_fimi(path: str | os.PathLike, max_transactions: int | None = None) -> Transactions:
    """Load a FIMI transaction file (Kosarak format): one transaction per line.

    Parameters
    ----------
    path : str or path-like
        Text file (``.gz`` files are decompressed); each line holds the
        space-separated non-negative integer items of one user. Blank lines are
        skipped; tabs and ``\\r`` count as spaces.
    max_transactions : int, optional
        Keep only the first this many transactions.

    Returns
    -------
    Transactions

    Raises
    ------
    ParameterError
        A token that is not a non-negative integer (the message gives the line),
        an item of more than 18 digits, or a file with no transaction.
    FileNotFoundError
        The file does not exist.

    Notes
    -----
    Parsed without a per-line Python loop, in blocks of
    :data:`FIMI_BLOCK_BYTES` whole lines: the bytes are classified with numpy,
    token starts and line numbers come from searches over sorted positions and
    the digits are combined with ``np.add.reduceat``. O(file size). Users bring the data set
    themselves (e.g. Kosarak from the FIMI repository, 990,002 transactions).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "t.dat")
    >>> _ = open(f, "w").write("1 2 3\\n\\n7 1\\n")
    >>> load_fimi(f).to_lists()
    [[1, 2, 3], [7, 1]]
    """
    path = _check_path(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        data = fh.read()
    T = _parse_fimi(data, path)
    if max_transactions is not None:
        m = check_int("max_transactions", max_transactions, minimum=1)
        if m < len(T):
            end = int(T.offsets[m])
            T = Transactions(T.items[:end], T.offsets[: m + 1])
    return T


#: Bytes parsed per block by :func:`load_fimi` (blocks end at a line break), so
#: that the temporaries stay small whatever the file size.
FIMI_BLOCK_BYTES: int = 1 << 20


def _parse_fimi(data: bytes, source: str) -> Transactions:
    items_parts: list[np.ndarray] = []
    length_parts: list[np.ndarray] = []
    line0 = 0  # lines before the current block
    pos, size = 0, len(data)
    while pos < size:
        end = min(size, pos + FIMI_BLOCK_BYTES)
        if end < size:
            nl = data.find(b"\n", end - 1)
            end = size if nl < 0 else nl + 1
        buf = np.frombuffer(data, dtype=np.uint8, count=end - pos, offset=pos)
        items, lengths, n_newlines = _parse_block(buf, data, pos, source, line0)
        items_parts.append(items)
        length_parts.append(lengths)
        line0 += n_newlines
        pos = end
    lengths = np.concatenate(length_parts) if length_parts else np.empty(0, dtype=np.int64)
    if lengths.size == 0:
        msg = f"{source}: no transaction found (the file holds no item)"
        raise ParameterError(msg)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return Transactions(np.concatenate(items_parts), offsets)


def _parse_block(
    buf: np.ndarray, data: bytes, start: int, source: str, line0: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Items and per-transaction lengths of one block of whole lines."""
    is_digit = (buf >= 48) & (buf <= 57)
    is_space = (buf == 32) | (buf == 9) | (buf == 13) | (buf == 10)
    newline = buf == 10
    bad = np.flatnonzero(~(is_digit | is_space))
    if bad.size:
        pos = int(bad[0])
        line = line0 + int(np.count_nonzero(newline[:pos])) + 1
        a = data.rfind(b"\n", 0, start + pos) + 1
        b = data.find(b"\n", start + pos)
        text = data[a : b if b >= 0 else len(data)].decode("utf-8", "replace").strip()
        msg = f"{source}: line {line} is not a list of non-negative integer items: {text[:80]!r}"
        raise ParameterError(msg)
    n_newlines = int(np.count_nonzero(newline))
    digit_pos = np.flatnonzero(is_digit)
    if digit_pos.size == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), n_newlines
    prev_digit = np.empty_like(is_digit)
    prev_digit[0] = False
    prev_digit[1:] = is_digit[:-1]
    tok_start = np.flatnonzero(is_digit & ~prev_digit)  # byte position of each token
    first_digit = np.searchsorted(digit_pos, tok_start)  # index in digit_pos of each start
    tok_len = np.diff(first_digit, append=digit_pos.size)
    if tok_len.max() > _MAX_DIGITS:
        t = int(np.argmax(tok_len > _MAX_DIGITS))
        line = line0 + int(np.count_nonzero(newline[: tok_start[t]])) + 1
        msg = f"{source}: line {line} has an item of more than {_MAX_DIGITS} digits"
        raise ParameterError(msg)
    last = np.repeat(first_digit + tok_len - 1, tok_len)  # index of each digit's token end
    place = last - np.arange(digit_pos.size)  # power of ten of each digit
    digits = (buf[digit_pos].astype(np.int64) - 48) * _POW10[place]
    items = np.add.reduceat(digits, first_digit)
    tok_line = np.searchsorted(np.flatnonzero(newline), tok_start)  # line of each token
    lengths = np.diff(np.flatnonzero(np.diff(tok_line, prepend=-1, append=tok_line[-1] + 1)))
    return items, lengths.astype(np.int64), n_newlines


def write_fimi(
    path: str | os.PathLike, transactions: Transactions | Iterable[Iterable[int]]
) -> None:
    """Write transactions as a FIMI file (one line of space-separated items per transaction).

    Parameters
    ----------
    path : str or path-like
        Destination (``.gz`` is compressed).
    transactions : Transactions or iterable of item lists

    Returns
    -------
    None

    Raises
    ------
    ParameterError
        An empty transaction or a negative item.

    Notes
    -----
    The inverse of :func:`load_fimi`. O(total number of items) in Python.

    Examples
    --------
    >>> import os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), "t.dat")
    >>> write_fimi(f, [[1, 2], [3]])
    >>> open(f).read()
    '1 2\\n3\\n'
    """
    path = _check_path(path)
    T = transactions
    if not isinstance(T, Transactions):
        T = Transactions.from_lists(T)
    text = "".join(" ".join(map(str, row.tolist())) + "\n" for row in T)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as fh:
        fh.write(text.encode("ascii"))


def single_items(transactions: Transactions, how: str = "first", rng: Any = None) -> np.ndarray:
    """One item per user, to feed a single-valued frequency oracle.

    Parameters
    ----------
    transactions : Transactions
    how : {"first", "random"}
        The first item of each transaction, or one drawn uniformly from it.
    rng : numpy.random.Generator or int, optional
        Used by ``how="random"``.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Original item labels (encode them with :func:`top_k_items`).

    Raises
    ------
    InputTypeError
        ``transactions`` is not a :class:`Transactions`.
    ParameterError
        Unknown ``how``.

    Notes
    -----
    The QIF paper's Kosarak experiments use one action per user. O(n).

    Examples
    --------
    >>> T = Transactions.from_lists([[4, 9], [2]])
    >>> single_items(T).tolist()
    [4, 2]
    """
    if not isinstance(transactions, Transactions):
        msg = f"transactions must be Transactions (load_fimi), got {type(transactions).__name__}"
        raise InputTypeError(msg)
    check_choice("how", how, ("first", "random"))
    if how == "first":
        return transactions.items[transactions.offsets[:-1]].copy()
    if how == "random":
        rng = as_rng(rng)
        pick = rng.integers(0, transactions.lengths)
        return transactions.items[transactions.offsets[:-1] + pick]
    msg = f"how must be 'first' or 'random', got {how!r}"
    raise ParameterError(msg)


def top_k_items(values: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Keep the users whose value is among the k most frequent, encoded as 0..k-1.

    Parameters
    ----------
    values : array_like of int, shape (n,)
        One item per user (e.g. from :func:`single_items`).
    k : int
        Number of items to keep, ``k >= 1``; at most the number of distinct items.

    Returns
    -------
    xs : numpy.ndarray of int64
        Codes 0..k-1 of the kept users, in their original order (code 0 = the
        most frequent item; ties go to the smaller item label).
    labels : numpy.ndarray of int64, shape (k,)
        ``labels[c]`` is the item with code c.

    Raises
    ------
    ParameterError
        k larger than the number of distinct items, or values not 1-D integers.

    Notes
    -----
    The QIF paper's Figure 4 restricts Kosarak to its 10 most frequent actions
    this way. O(n log n).

    Examples
    --------
    >>> xs, labels = top_k_items([7, 3, 7, 5, 3, 7], 2)
    >>> xs.tolist(), labels.tolist()
    ([0, 1, 0, 1, 0], [7, 3])
    """
    values = as_array(values, "values")
    if values.ndim != 1 or not np.issubdtype(values.dtype, np.integer):
        msg = f"values must be a 1-D integer array, got shape {values.shape} of {values.dtype}"
        raise ParameterError(msg)
    k = check_int("k", k, minimum=1)
    uniq, counts = np.unique(values, return_counts=True)
    if k > uniq.size:
        msg = f"k = {k} exceeds the number of distinct items ({uniq.size})"
        raise ParameterError(msg)
    order = np.lexsort((uniq, -counts))[:k]  # by count descending, then label ascending
    labels = uniq[order]
    code = np.full(uniq.size, -1, dtype=np.int64)
    code[order] = np.arange(k)
    c = code[np.searchsorted(uniq, values)]
    return c[c >= 0], labels.astype(np.int64)


def zipf_probabilities(k: int, s: float = 1.0) -> np.ndarray:
    """The Zipf distribution over 0..k-1: Pr(i) proportional to (i + 1)^(−s).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 1``.
    s : float
        Exponent, ``s >= 0`` (0 is uniform).

    Returns
    -------
    numpy.ndarray, shape (k,)

    Raises
    ------
    ParameterError, InputTypeError
        k < 1, or s negative, non-finite or not a number.
    SizeError
        k probabilities beyond the simulation memory budget.

    Notes
    -----
    O(k).

    Examples
    --------
    >>> zipf_probabilities(3, 1.0).round(4).tolist()   # (1, 1/2, 1/3) / (11/6)
    [0.5455, 0.2727, 0.1818]
    """
    k = check_int("k", k, minimum=1)
    s = _check_exponent(s)
    # the weights and the normalised probabilities
    check_memory(k, 16, f"zipf_probabilities(k = {k})", "a smaller domain (k values)")
    w = np.arange(1, k + 1, dtype=np.float64) ** (-s)
    return w / w.sum()


def _check_exponent(s: Any) -> float:
    s = check_real("s", s)
    if s < 0:
        msg = f"s must be finite and >= 0, got {s}"
        raise ParameterError(msg)
    return s


def zipf_data(n: int, k: int, s: float = 1.0, rng: Any = None) -> np.ndarray:
    """n i.i.d. values from :func:`zipf_probabilities` (k, s), seeded.

    Parameters
    ----------
    n : int
        Number of users, ``n >= 0``.
    k : int
        Domain size.
    s : float
        Zipf exponent, ``s >= 0``.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`zipf_probabilities`; n < 0.
    SizeError
        n or k values beyond the simulation memory budget.

    Notes
    -----
    Inverse-CDF sampling, O(n log k).

    Examples
    --------
    >>> xs = zipf_data(100_000, 3, 1.0, rng=0)
    >>> np.bincount(xs).round(-3).tolist()
    [55000, 27000, 18000]
    """
    n = check_int("n", n, minimum=0)
    # the uniform draws and the values
    check_memory(n, 16, f"zipf_data(n = {n})", "fewer users per call")
    p = zipf_probabilities(k, s)
    rng = as_rng(rng)
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return np.searchsorted(cdf, rng.random(n), side="right").astype(np.int64)


def zipf_transactions(
    n: int, k: int, s: float = 1.0, mean_length: float = 3.0, rng: Any = None
) -> Transactions:
    """Synthetic transactions: n users, each with distinct Zipf-distributed items.

    Parameters
    ----------
    n : int
        Number of transactions, ``n >= 1``.
    k : int
        Number of items (labels 0..k-1).
    s : float
        Zipf exponent.
    mean_length : float
        Each user draws 1 + Poisson(mean_length − 1) items (with replacement);
        repeated items are merged, so transactions hold distinct items, in
        increasing order. ``mean_length >= 1``.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    Transactions

    Raises
    ------
    ParameterError, InputTypeError
        n < 1, mean_length < 1 or not finite, bad k or s.
    SizeError
        The expected n · mean_length items beyond the simulation memory budget.

    Notes
    -----
    O(N log N) for N drawn items (one sort to merge repeats).

    Examples
    --------
    >>> T = zipf_transactions(5, 10, rng=0)
    >>> len(T), bool(all(np.all(np.diff(t) > 0) for t in T))
    (5, True)
    """
    n = check_int("n", n, minimum=1)
    if isinstance(mean_length, bool) or not isinstance(
        mean_length, (int, float, np.integer, np.floating)
    ):
        msg = f"mean_length must be a real number >= 1, got {type(mean_length).__name__}"
        raise InputTypeError(msg)
    mean_length = check_real("mean_length", mean_length)
    if not mean_length >= 1:
        msg = f"mean_length must be a finite number >= 1, got {mean_length!r}"
        raise ParameterError(msg)
    # the drawn items, their owners and the sort order: about 3 int64 per item
    check_memory(
        n * float(mean_length),
        24,
        f"zipf_transactions(n = {n}, mean_length = {mean_length})",
        "fewer transactions or a smaller mean_length",
    )
    rng = as_rng(rng)
    draws = 1 + rng.poisson(float(mean_length) - 1.0, size=n)
    items = zipf_data(int(draws.sum()), k, s, rng)
    owner = np.repeat(np.arange(n), draws)
    order = np.lexsort((items, owner))
    items, owner = items[order], owner[order]
    keep = np.ones(items.size, dtype=bool)
    keep[1:] = (owner[1:] != owner[:-1]) | (items[1:] != items[:-1])
    items, owner = items[keep], owner[keep]
    lengths = np.bincount(owner, minlength=n)
    return Transactions(items, np.concatenate(([0], np.cumsum(lengths))).astype(np.int64))
