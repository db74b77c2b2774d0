"""Multidimensional data for simulations: synthetic populations of value tuples (Zipf marginals,
correlated through a Gaussian copula) and categorical census tables read from CSV."""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..errors import InputTypeError, ParameterError
from ..validation import check_choice, check_int, check_real, check_sequence
from .data import _check_exponent, _check_path, zipf_probabilities
from .util import as_rng, check_memory

__all__ = [
    "synthetic_population",
    "synthetic_distribution",
    "MAX_DISTRIBUTION_RHO",
    "QUADRATURE_NODES",
    "CategoricalTable",
    "load_categorical_csv",
]


# ------------------------------------------------------------------------------------------
# Multidimensional data: synthetic populations and categorical census tables
# ------------------------------------------------------------------------------------------
def nonempty_sequence(
    value: Any, refuse: tuple[type, ...], type_message: str, empty_message: str
) -> tuple:
    """``value`` as a non-empty tuple, refusing strings, mappings and the like.

    Parameters
    ----------
    value : iterable
        The sequence to check.
    refuse : tuple of type
        Iterable types refused as a whole (strings, mappings, sets).
    type_message : str
        The message of the error raised for a refused or non-iterable ``value``.
    empty_message : str
        The message of the error raised for an empty ``value``.

    Returns
    -------
    tuple
        The items of ``value``.

    Raises
    ------
    InputTypeError
        ``value`` is of a refused type or not iterable.
    ParameterError
        ``value`` is empty.

    Examples
    --------
    >>> nonempty_sequence([2, 3], (str,), "not a sequence", "empty")
    (2, 3)
    """
    if isinstance(value, refuse) or not isinstance(value, Iterable):
        raise InputTypeError(type_message)
    items = tuple(value)
    if not items:
        raise ParameterError(empty_message)
    return items


def check_domain_sizes(
    ks: Any,
    refuse: tuple[type, ...] = (str, bytes, dict, set),
    max_attributes: int | None = None,
) -> tuple[int, ...]:
    """``ks`` as a non-empty tuple of domain sizes, each an integer ``>= 2``.

    Parameters
    ----------
    ks : sequence of int
        The domain sizes.
    refuse : tuple of type, optional
        Iterable types refused as a whole (default: strings, bytes, dicts, sets).
    max_attributes : int, optional
        The most sizes allowed (default: no limit).

    Returns
    -------
    tuple of int
        The domain sizes.

    Raises
    ------
    InputTypeError
        ``ks`` not a sequence, or a size not an integer.
    ParameterError
        ``ks`` empty or longer than ``max_attributes``, or a size below 2.

    Examples
    --------
    >>> check_domain_sizes([2, 3])
    (2, 3)
    """
    ks = nonempty_sequence(
        ks,
        refuse,
        f"ks must be a non-empty sequence of domain sizes (integers >= 2), got {ks!r}",
        "ks must be a non-empty sequence of domain sizes (integers >= 2), got an empty one",
    )
    if max_attributes is not None and len(ks) > max_attributes:
        msg = f"ks must have at most {max_attributes} attributes, got {len(ks)}"
        raise ParameterError(msg)
    return tuple(check_int(f"ks[{j}]", k, minimum=2) for j, k in enumerate(ks))


#: The most attributes a synthetic population or census table may have.
_MAX_ATTRIBUTES = 10_000


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
    ks = check_domain_sizes(ks, max_attributes=_MAX_ATTRIBUTES)
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

    ks = check_domain_sizes(ks, max_attributes=_MAX_ATTRIBUTES)
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
    na = check_sequence("na_values", na_values, str, "strings")
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
    cols = list(
        nonempty_sequence(
            columns,
            (bytes, dict, set),
            f"columns must be a sequence of column names or indices, got {columns!r}",
            "columns must name at least one column, got an empty sequence",
        )
    )
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
