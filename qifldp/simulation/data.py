"""Datasets for simulations: FIMI transaction files (Kosarak) and seeded synthetic Zipf data."""

from __future__ import annotations

import csv
import gzip
import io
import math
import numbers
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

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
    "synthetic_population",
    "synthetic_distribution",
    "MAX_DISTRIBUTION_RHO",
    "QUADRATURE_NODES",
    "CategoricalTable",
    "load_categorical_csv",
    "keyvalue_arrays",
    "keyvalue_data",
    "load_keyvalue_csv",
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


# ------------------------------------------------------------------------------------------
# Multidimensional data: synthetic populations and categorical census tables
# ------------------------------------------------------------------------------------------
def _check_domains(ks: Any) -> tuple[int, ...]:
    if isinstance(ks, (str, bytes, dict, set)) or not isinstance(ks, Iterable):
        msg = f"ks must be a non-empty sequence of domain sizes (integers >= 2), got {ks!r}"
        raise InputTypeError(msg)
    ks = tuple(ks)
    if not ks:
        msg = "ks must be a non-empty sequence of domain sizes (integers >= 2), got an empty one"
        raise ParameterError(msg)
    if len(ks) > 10_000:
        msg = f"ks must have at most 10000 attributes, got {len(ks)}"
        raise ParameterError(msg)
    return tuple(check_int(f"ks[{j}]", k, minimum=2) for j, k in enumerate(ks))


def synthetic_population(
    n: int, ks: Any, s: float = 1.0, rho: float = 0.5, rng: Any = None
) -> np.ndarray:
    """A seeded population of n tuples with Zipf marginals, correlated by a Gaussian copula.

    Parameters
    ----------
    n : int
        Number of users, ``n >= 1``.
    ks : sequence of int
        Domain sizes of the d attributes, each ``>= 2``.
    s : float
        Zipf exponent of every marginal, ``s >= 0`` (0: uniform marginals).
    rho : float
        Correlation of the copula's latent normals, in [0, 1): 0 gives independent
        attributes, values near 1 nearly comonotone ones (value 0 of every
        attribute together, and so on).
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n, d)
        Column j holds values in 0..k_j-1 with Pr(x_j = v) exactly
        :func:`zipf_probabilities` (k_j, s)[v].

    Raises
    ------
    ParameterError, InputTypeError
        n < 1, bad ks, s negative or not finite, rho outside [0, 1).
    SizeError
        n d values beyond the simulation memory budget.

    Notes
    -----
    A Gaussian copula with equicorrelation rho (one latent factor):
    z_j = sqrt(rho) g_0 + sqrt(1 - rho) g_j with independent standard normals,
    u_j = Φ(z_j) and x_j the Zipf quantile of u_j. Each marginal is exactly Zipf;
    Pr(x_i = 0, x_j = 0) = Φ_2(Φ^-1(p_i0), Φ^-1(p_j0); rho), the bivariate normal
    CDF. Zipf's value 0 is the most frequent, so frequent values go together (as
    in census tables). O(n d log k).

    Examples
    --------
    >>> X = synthetic_population(50_000, (5, 3), s=1.0, rho=0.0, rng=0)
    >>> X.shape, np.bincount(X[:, 1]).round(-3).tolist()  # Zipf(3): 6/11, 3/11, 2/11
    ((50000, 2), [27000, 14000, 9000])
    """

    n = check_int("n", n, minimum=1)
    ks = _check_domains(ks)
    s = _check_exponent(s)
    rho = check_real("rho", rho, minimum=0.0)
    if not rho < 1.0:
        msg = f"rho must lie in [0, 1), got {rho}"
        raise ParameterError(msg)
    d = len(ks)
    check_memory(float(n) * d, 32, f"synthetic_population(n = {n}, d = {d})", "fewer users")
    for k in ks:
        check_memory(k, 16, f"synthetic_population(k = {k})", "smaller domains")
    rng = as_rng(rng)
    common = rng.standard_normal(n)
    out = np.empty((n, d), dtype=np.int64)
    for j, k in enumerate(ks):
        z = np.sqrt(rho) * common + np.sqrt(1.0 - rho) * rng.standard_normal(n)
        cdf = np.cumsum(zipf_probabilities(k, s))
        cdf /= cdf[-1]
        out[:, j] = np.minimum(np.searchsorted(cdf, ndtr(z), side="right"), k - 1)
    return out


#: Gauss-Hermite nodes of :func:`synthetic_distribution` (the integral over the latent factor).
QUADRATURE_NODES: int = 96
#: The largest rho of :func:`synthetic_distribution`: beyond it the integrand's transitions
#: (width ~ sqrt((1 - rho) / rho)) are too sharp for the quadrature.
MAX_DISTRIBUTION_RHO: float = 0.9


def synthetic_distribution(ks: Any, s: float = 1.0, rho: float = 0.5) -> np.ndarray:
    """The joint distribution of :func:`synthetic_population`'s tuples, computed.

    Parameters
    ----------
    ks, s
        As in :func:`synthetic_population`.
    rho : float
        As in :func:`synthetic_population`, at most :data:`MAX_DISTRIBUTION_RHO`.

    Returns
    -------
    numpy.ndarray, shape (Π k_j,)
        Pr(x) for the tuples x in lexicographic order (``itertools.product``), the
        order of the inputs of the multidimensional channels; usable as their prior.

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`synthetic_population`; rho above :data:`MAX_DISTRIBUTION_RHO`.
    SizeError
        Π k_j probabilities beyond the simulation memory budget.

    Notes
    -----
    Given the copula's latent factor g_0 = g the attributes are independent, with
    Pr(x_j = v | g) = Φ((Φ^-1(c_v) − sqrt(rho) g) / sqrt(1 − rho)) − (the same at
    c_{v−1}), c the Zipf CDF; Pr(x) = E_g Π_j Pr(x_j | g), integrated by
    Gauss-Hermite quadrature with :data:`QUADRATURE_NODES` nodes: agreement with
    the bivariate normal CDF to ~1e-16 at rho = 0.5 and ~3e-7 at rho = 0.9 (the
    limit). The marginals are the Zipf probabilities to ~1e-9.
    O(QUADRATURE_NODES Π k_j).

    Examples
    --------
    >>> p = synthetic_distribution((2, 2), s=1.0, rho=0.0)  # independent Zipf(2) = (2/3, 1/3)
    >>> p.round(6).tolist()
    [0.444444, 0.222222, 0.222222, 0.111111]
    """

    ks = _check_domains(ks)
    s = _check_exponent(s)
    rho = check_real("rho", rho, minimum=0.0)
    if rho > MAX_DISTRIBUTION_RHO:
        msg = (
            f"rho must lie in [0, {MAX_DISTRIBUTION_RHO}] for the computed distribution (the "
            f"quadrature is not accurate beyond), got {rho}; sample synthetic_population instead"
        )
        raise ParameterError(msg)
    n_cells = float(np.prod(np.array(ks, dtype=np.float64)))
    check_memory(
        n_cells * 2, 8, f"synthetic_distribution(ks with {n_cells:.3g} tuples)", "smaller ks"
    )
    nodes, weights = np.polynomial.hermite_e.hermegauss(QUADRATURE_NODES)
    weights = weights / weights.sum()
    out = np.zeros(int(n_cells))
    per_attr = []
    for k in ks:
        cdf = np.cumsum(zipf_probabilities(k, s))
        cdf /= cdf[-1]
        with np.errstate(divide="ignore"):
            cuts = ndtri(np.clip(cdf[:-1], 0.0, 1.0))  # the k - 1 inner cut points
        z = (cuts[None, :] - math.sqrt(rho) * nodes[:, None]) / math.sqrt(1.0 - rho)
        F = np.concatenate([np.zeros((nodes.size, 1)), ndtr(z), np.ones((nodes.size, 1))], axis=1)
        per_attr.append(np.diff(F, axis=1))  # (nodes, k): Pr(x_j = v | g)
    for i, w in enumerate(weights):
        joint = per_attr[0][i]
        for P in per_attr[1:]:
            joint = np.multiply.outer(joint, P[i]).ravel()
        out += w * joint
    return out / out.sum()


@dataclass(frozen=True, eq=False)
class CategoricalTable:
    """Categorical columns of a table, coded 0..k-1, with the code of every category.

    Attributes
    ----------
    data : numpy.ndarray of int64, shape (n, d)
        One row per record, column j coded in 0..k_j-1.
    columns : tuple of str
        The names of the d columns (from the header).
    categories : tuple of tuple of str
        ``categories[j][v]`` is the category of code v in column j (sorted).

    Examples
    --------
    >>> T = CategoricalTable(np.array([[0, 1], [1, 0]]), ("a", "b"), (("x", "y"), ("u", "v")))
    >>> T.ks, T.mapping("b")
    ((2, 2), {'u': 0, 'v': 1})
    """

    data: np.ndarray
    columns: tuple[str, ...]
    categories: tuple[tuple[str, ...], ...]

    @property
    def ks(self) -> tuple[int, ...]:
        """The domain size of each column (its number of categories)."""
        return tuple(len(c) for c in self.categories)

    def mapping(self, column: str) -> dict[str, int]:
        """Category -> code of one column.

        Examples
        --------
        >>> T = CategoricalTable(np.array([[0], [1]]), ("sex",), (("Female", "Male"),))
        >>> T.mapping("sex")
        {'Female': 0, 'Male': 1}
        """
        if not isinstance(column, str) or column not in self.columns:
            msg = f"column must be one of {list(self.columns)}, got {column!r}"
            raise ParameterError(msg)
        return {c: i for i, c in enumerate(self.categories[self.columns.index(column)])}

    def __repr__(self) -> str:
        return f"CategoricalTable({self.data.shape[0]} rows, columns {list(self.columns)})"


def load_categorical_csv(
    path: str | os.PathLike,
    columns: Any = None,
    delimiter: str = ",",
    missing: str = "error",
    na_values: Any = ("", "?"),
) -> CategoricalTable:
    """Load categorical columns of a CSV table with a header row (an Adult-style census file).

    Parameters
    ----------
    path : str or path-like
        A text file (``.gz`` decompressed): a header row of column names, then one
        record per line. Fields are stripped of surrounding spaces (Adult writes
        ``", State-gov"``); blank lines are skipped.
    columns : sequence of str or int, optional
        The columns to keep, by header name or 0-based index, in this order;
        None keeps them all.
    delimiter : str
        One character.
    missing : {"error", "drop"}
        What a missing value (one of ``na_values``) in a kept column does: raise,
        naming the line and the column, or drop the record.
    na_values : sequence of str
        The spellings of a missing value (Adult uses "?").

    Returns
    -------
    CategoricalTable
        ``.data`` (n, d) coded 0..k_j-1 (categories sorted as strings),
        ``.columns``, ``.categories`` (the mapping back), ``.ks``.

    Raises
    ------
    ParameterError
        An empty file, a duplicate or unknown column, a record with another
        number of fields than the header (the message gives the line), a missing
        value with ``missing="error"`` (line and column), no record left, or a
        kept column with a single category (a domain needs 2).
    InputTypeError
        ``path``, ``columns``, ``delimiter`` or ``na_values`` of the wrong type.
    FileNotFoundError
        The file does not exist.

    Notes
    -----
    Python's :mod:`csv` reader (quoted fields allowed); O(file size).

    Examples
    --------
    >>> import os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), "adult.csv")
    >>> _ = open(f, "w").write("age,sex,race\\n39, Male, White\\n50, Female, Black\\n")
    >>> T = load_categorical_csv(f, columns=["sex", "race"])
    >>> T.data.tolist(), T.categories
    ([[1, 1], [0, 0]], (('Female', 'Male'), ('Black', 'White')))
    """

    path = _check_path(path)
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '\r\n"':
        msg = f"delimiter must be one character (not a quote or line break), got {delimiter!r}"
        raise InputTypeError(msg)
    missing = check_choice("missing", missing, ("error", "drop"))
    if isinstance(na_values, str) or not isinstance(na_values, Iterable):
        msg = f"na_values must be a sequence of strings, got {type(na_values).__name__}"
        raise InputTypeError(msg)
    na = tuple(na_values)
    if not all(isinstance(v, str) for v in na):
        msg = "na_values must hold strings only"
        raise InputTypeError(msg)
    na_set = {v.strip() for v in na}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        msg = f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise ParameterError(msg) from None
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, skipinitialspace=True)
    header: list[str] | None = None
    header_line = 0
    for row in reader:
        if any(f.strip() for f in row):
            header = [f.strip() for f in row]
            header_line = reader.line_num
            break
    if header is None:
        msg = f"{path}: empty file (expected a header row of column names)"
        raise ParameterError(msg)
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        msg = f"{path}: duplicate column names in the header (line {header_line}): {dup}"
        raise ParameterError(msg)
    keep = _column_indices(columns, header, path)
    values: list[list[str]] = [[] for _ in keep]
    for row in reader:
        if not any(f.strip() for f in row):
            continue
        if len(row) != len(header):
            msg = (
                f"{path}: line {reader.line_num} has {len(row)} fields, the header has "
                f"{len(header)}"
            )
            raise ParameterError(msg)
        fields = [row[c].strip() for c in keep]
        bad = [i for i, f in enumerate(fields) if f in na_set]
        if bad:
            if missing == "drop":
                continue
            msg = (
                f"{path}: line {reader.line_num}, column {header[keep[bad[0]]]!r}: missing "
                f"value {fields[bad[0]]!r} (pass missing='drop' to skip such records)"
            )
            raise ParameterError(msg)
        for i, f in enumerate(fields):
            values[i].append(f)
    if not values[0]:
        msg = f"{path}: no record left (the file holds a header only, or every record was dropped)"
        raise ParameterError(msg)
    codes, cats = [], []
    for i, col in enumerate(values):
        uniq, inv = np.unique(np.array(col, dtype=object).astype(str), return_inverse=True)
        if uniq.size < 2:
            msg = (
                f"{path}: column {header[keep[i]]!r} has a single category {str(uniq[0])!r} "
                "(a domain needs at least 2 values)"
            )
            raise ParameterError(msg)
        codes.append(inv.astype(np.int64))
        cats.append(tuple(str(u) for u in uniq))
    return CategoricalTable(np.column_stack(codes), tuple(header[c] for c in keep), tuple(cats))


def _column_indices(columns: Any, header: list[str], path: str) -> list[int]:
    if columns is None:
        return list(range(len(header)))
    if isinstance(columns, (str, int)) and not isinstance(columns, bool):
        columns = [columns]
    if isinstance(columns, (bytes, dict, set)) or not isinstance(columns, Iterable):
        msg = f"columns must be a sequence of column names or indices, got {columns!r}"
        raise InputTypeError(msg)
    cols = list(columns)
    if not cols:
        msg = "columns must name at least one column, got an empty sequence"
        raise ParameterError(msg)
    out = []
    for c in cols:
        if isinstance(c, str):
            if c not in header:
                msg = f"{path}: column {c!r} is not in the header (columns: {header})"
                raise ParameterError(msg)
            out.append(header.index(c))
        elif isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= int(c) < len(header):
                msg = f"columns: index {int(c)} out of range for {len(header)} columns"
                raise ParameterError(msg)
            out.append(int(c))
        else:
            msg = f"columns must hold column names (str) or indices (int), got {c!r}"
            raise InputTypeError(msg)
    if len(set(out)) != len(out):
        msg = f"columns names a column twice: {cols}"
        raise ParameterError(msg)
    return out


# ---------------------------------------------------------------------- key-value data
# (the ``data`` format of qifldp.PCKV: a list with one dict key -> value per user, keys
# 1..d, values in [-1, 1]; the same list is a weighted bipartite graph users x items)


def keyvalue_arrays(data: Any, d: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate key-value data and flatten it: (lengths, keys, values), user after user.

    Parameters
    ----------
    data : list of dict
        One dict per user, key (int in 1..d) -> value (real in [-1, 1]); a user may hold
        no pair.
    d : int, optional
        Number of keys; default: the largest key present (at least 1).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        ``lengths`` (int64, one per user), ``keys`` (int64) and ``values`` (float64),
        the pairs of user 0, then user 1, ...

    Raises
    ------
    InputTypeError
        ``data`` not a list of dicts; a key not an integer or a value not a real number.
    ParameterError
        No users; a key outside 1..d; a value outside [-1, 1] or NaN.

    Examples
    --------
    >>> lengths, keys, values = keyvalue_arrays([{1: 0.5}, {}, {3: -1.0, 2: 0.0}])
    >>> lengths.tolist(), keys.tolist(), values.tolist()
    ([1, 0, 2], [1, 3, 2], [0.5, -1.0, 0.0])
    """

    if isinstance(data, (Mapping, str, bytes)) or not hasattr(data, "__len__"):
        msg = "data must be a list with one dict (key -> value) per user"
        raise InputTypeError(msg)
    if len(data) == 0:
        msg = "data must hold at least one user, got an empty list"
        raise ParameterError(msg)
    for i, user in enumerate(data):
        if not isinstance(user, Mapping):
            msg = f"data[{i}] must be a dict (key -> value), got {type(user).__name__}"
            raise InputTypeError(msg)
    lengths = np.fromiter((len(user) for user in data), dtype=np.int64, count=len(data))
    raw_keys = list(chain.from_iterable(user.keys() for user in data))
    raw_values = list(chain.from_iterable(user.values() for user in data))
    for kind in set(map(type, raw_keys)):  # one check per type, not per key
        if issubclass(kind, (bool, np.bool_)) or not issubclass(kind, (int, np.integer)):
            bad = next(key for key in raw_keys if type(key) is kind)
            msg = f"data's keys must be integers >= 1, got {bad!r}"
            raise InputTypeError(msg)
    for kind in set(map(type, raw_values)):
        if issubclass(kind, (bool, np.bool_)) or not issubclass(kind, numbers.Real):
            bad = next(v for v in raw_values if type(v) is kind)
            msg = f"data's values must be real numbers in [-1, 1], got {bad!r}"
            raise InputTypeError(msg)
    keys = np.array(raw_keys, dtype=np.int64)
    values = np.array(raw_values, dtype=np.float64)
    top = int(keys.max()) if keys.size else 1
    d = max(top, 1) if d is None else check_int("d", d, minimum=1)
    if keys.size and (keys.min() < 1 or keys.max() > d):
        bad_key = keys[(keys < 1) | (keys > d)][0]
        msg = f"data's keys must be in 1..d = 1..{d}, got {int(bad_key)}"
        raise ParameterError(msg)
    if values.size and not (np.all(values >= -1.0) and np.all(values <= 1.0)):
        bad_value = values[~((values >= -1.0) & (values <= 1.0))][0]
        msg = f"data's values must be in [-1, 1], got {bad_value}"
        raise ParameterError(msg)
    return lengths, keys, values


def keyvalue_data(
    n: int,
    d: int,
    s: float = 1.0,
    mean_length: float = 2.0,
    concentration: float = 4.0,
    rng: Any = None,
) -> list[dict[int, float]]:
    """Seeded synthetic key-value data (a weighted bipartite graph users x keys).

    Parameters
    ----------
    n : int
        Number of users, ``n >= 1``.
    d : int
        Number of keys (items), ``d >= 1``; keys are 1..d.
    s : float, optional
        Power-law exponent of key popularity, ``s >= 0``: key j is picked with weight
        j^(-s) (:func:`zipf_probabilities`; 0 is uniform). Default 1.
    mean_length : float, optional
        Each user holds min(d, Poisson(mean_length)) distinct keys,
        ``0 <= mean_length <= 10^6`` (default 2; users with no key occur).
    concentration : float, optional
        Spread of the values: key j has a mean mu_j uniform in [-1, 1]; its values are
        2 B - 1 with B ~ Beta(c (1 + mu_j) / 2, c (1 - mu_j) / 2), so E[value] = mu_j
        and Var = (1 - mu_j^2) / (c + 1). ``concentration > 0`` (default 4).
    rng : numpy.random.Generator or int, optional
        Seed or generator (default: fresh entropy).

    Returns
    -------
    list of dict
        One dict per user, key (int, 1..d) -> value (float in [-1, 1]): the ``data``
        argument of :class:`qifldp.PCKV` and of the bipartite RR3 protocol.

    Raises
    ------
    ParameterError, InputTypeError
        Bad n, d, s, mean_length, concentration or rng.
    SizeError
        n x d beyond the simulation memory budget.

    Notes
    -----
    Distinct keys by weight, without replacement, with the Gumbel top-L trick (the L
    largest of log w_j + Gumbel noise): O(n d log d).

    Examples
    --------
    >>> data = keyvalue_data(4, 5, rng=0)
    >>> len(data), all(1 <= k <= 5 and -1 <= v <= 1 for u in data for k, v in u.items())
    (4, True)
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    mean_length = check_real("mean_length", mean_length, minimum=0.0, maximum=1e6)
    concentration = check_real("concentration", concentration)
    if concentration <= 0:
        msg = f"concentration must be > 0, got {concentration}"
        raise ParameterError(msg)
    check_memory(float(n) * d, 24, f"keyvalue_data(n = {n}, d = {d})", "fewer users or keys")
    w = zipf_probabilities(d, s)
    gen = as_rng(rng)
    mu = gen.uniform(-1.0, 1.0, size=d)
    lengths = np.minimum(gen.poisson(mean_length, size=n), d)
    scores = np.log(w)[None, :] + gen.gumbel(size=(n, d))
    order = np.argsort(-scores, axis=1)
    a = concentration * (1.0 + mu) / 2.0
    b = concentration * (1.0 - mu) / 2.0
    chosen = np.arange(d)[None, :] < lengths[:, None]
    picked = order[chosen]  # user after user, each user's keys in score order
    raw = gen.beta(np.maximum(a[picked], 1e-300), np.maximum(b[picked], 1e-300))
    values = np.clip(2.0 * raw - 1.0, -1.0, 1.0).tolist()
    keys = (picked + 1).tolist()
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]]
    return [
        dict(zip(keys[i:j], values[i:j], strict=True)) for i, j in zip(starts, ends, strict=True)
    ]


def load_keyvalue_csv(path: str | os.PathLike, d: int | None = None) -> list[dict[int, float]]:
    """Read key-value data from a CSV file of ``user,key,value`` rows.

    Parameters
    ----------
    path : str or os.PathLike
        The file: one pair per line, three comma-separated fields: a user id (any
        text), a key (integer >= 1) and a value (real in [-1, 1]). A first line whose
        key field is not an integer is taken as a header and skipped; blank lines are
        skipped.
    d : int, optional
        Number of keys: keys must be in 1..d (default: the largest key in the file).

    Returns
    -------
    list of dict
        One dict per user (key -> value), users in the order of their first row.

    Raises
    ------
    ParameterError
        A row with a wrong number of fields, a key or value that is not a number or out
        of range, a NaN, a (user, key) pair given twice, no rows: the message names the
        line number (1-based).
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "kv.csv")
    >>> _ = open(path, "w").write("user,key,value\\nalice,2,0.5\\nbob,1,-1\\nalice,1,0\\n")
    >>> load_keyvalue_csv(path)
    [{2: 0.5, 1: 0.0}, {1: -1.0}]
    """

    source = _check_path(path)
    d = None if d is None else check_int("d", d, minimum=1)
    users: dict[str, dict[int, float]] = {}
    with open(source, newline="", encoding="utf-8") as fh:
        try:
            rows = list(csv.reader(fh))
        except (UnicodeDecodeError, csv.Error) as exc:
            msg = f"{source} is not a readable UTF-8 CSV file: {exc}"
            raise ParameterError(msg) from None
        for line_no, row in enumerate(rows, start=1):
            if not row or all(not field.strip() for field in row):
                continue
            if len(row) != 3:
                msg = (
                    f"{source}, line {line_no}: expected 3 fields (user,key,value), "
                    f"got {len(row)}: {row!r}"
                )
                raise ParameterError(msg)
            user, key_text, value_text = (field.strip() for field in row)
            try:
                key = int(key_text)
            except ValueError:
                if line_no == 1 and not users:
                    continue  # a header
                msg = f"{source}, line {line_no}: key must be an integer >= 1, got {key_text!r}"
                raise ParameterError(msg) from None
            if key < 1 or (d is not None and key > d):
                upper = f"1..{d}" if d is not None else ">= 1"
                msg = f"{source}, line {line_no}: key must be {upper}, got {key}"
                raise ParameterError(msg)
            try:
                value = float(value_text)
            except ValueError:
                msg = f"{source}, line {line_no}: value must be a real number, got {value_text!r}"
                raise ParameterError(msg) from None
            if math.isnan(value) or not -1.0 <= value <= 1.0:
                msg = f"{source}, line {line_no}: value must be in [-1, 1], got {value_text!r}"
                raise ParameterError(msg)
            pairs = users.setdefault(user, {})
            if key in pairs:
                msg = f"{source}, line {line_no}: user {user!r} has key {key} twice"
                raise ParameterError(msg)
            pairs[key] = value
    if not users:
        msg = f"{source}: no (user, key, value) rows"
        raise ParameterError(msg)
    return list(users.values())
