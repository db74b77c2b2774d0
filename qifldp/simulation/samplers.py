"""Client side: randomise n users' values through any explicit channel; LH's reports.

:func:`sample` draws the outputs of any :class:`~qifldp.Channel`. Each protocol's
own vectorised sampler is its method ``Protocol.sample`` in
:mod:`qifldp.protocols`; the flat names ``sample_grr`` ... ``sample_the`` are
aliases of :mod:`qifldp.faces.simulation`. Local hashing's reports
(:class:`LHReports`) and the universal hash family are generic machinery and live here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..channel import as_channel
from ..errors import InputTypeError, ParameterError
from ..validation import check_int
from .util import (
    MAX_PRIME,
    MAX_SS_K as MAX_SS_K,
    as_array,
    as_rng,
    as_values,
    check_memory,
    check_prime,
)

__all__ = [
    "DEFAULT_PRIME",
    "LHReports",
    "sample",
    "universal_hash",
    "lh_collision_probability",
    "n_reports",
]

#: Default prime P of the universal hash family h(x) = ((a x + b) mod P) mod g:
#: the Mersenne prime 2^31 − 1 (keeps every intermediate value in 32/64-bit integers).
DEFAULT_PRIME: int = MAX_PRIME


# ----------------------------------------------------------------------------------------
# generic channel
# ----------------------------------------------------------------------------------------
def sample(C: Any, xs: Any, rng: Any = None) -> np.ndarray:
    """Randomise the values of n users through an explicit channel.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
        Any channel (or 2-D row-stochastic array).
    xs : array_like of int, shape (n,)
        The users' secret values as input indices 0..|X|-1.
    rng : numpy.random.Generator or int, optional
        Generator or seed; None draws fresh entropy.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Output indices; ``C.outputs[y]`` is the label of output ``y``.

    Raises
    ------
    ParameterError
        An entry of ``xs`` outside 0..|X|-1.
    InputTypeError
        Non-integer ``xs`` or a bad ``rng``.

    Notes
    -----
    Users are grouped by input (a stable sort, O(n log n)); each group draws
    uniform numbers u and inverts the cumulative row, y = #{j : F[j] <= u} with
    F normalised so that F[-1] = 1 exactly. A zero-probability output is never
    drawn. Cost O(n log n + |X| |Y|).

    Examples
    --------
    >>> import numpy as np, qifldp as q
    >>> C = q.Channel([[0.9, 0.1], [0.2, 0.8]])
    >>> ys = sample(C, np.zeros(100_000, dtype=int), rng=1)
    >>> round(float(np.mean(ys == 0)), 2)
    0.9
    """
    C = as_channel(C)
    xs = as_values(xs, C.n_inputs)
    rng = as_rng(rng)
    out = np.empty(xs.size, dtype=np.int64)
    if xs.size == 0:
        return out
    order = np.argsort(xs, kind="stable")
    counts = np.bincount(xs, minlength=C.n_inputs)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    M = C.matrix
    for x in np.flatnonzero(counts):
        cdf = np.cumsum(M[x])
        cdf /= cdf[-1]
        idx = order[bounds[x] : bounds[x + 1]]
        out[idx] = np.searchsorted(cdf, rng.random(idx.size), side="right")
    return out


# ----------------------------------------------------------------------------------------
# local hashing: the universal family and its reports
# ----------------------------------------------------------------------------------------
def universal_hash(a: Any, b: Any, x: Any, g: int, prime: int = DEFAULT_PRIME) -> np.ndarray:
    """The universal hash h_{a,b}(x) = ((a x + b) mod P) mod g (Carter and Wegman 1979).

    Parameters
    ----------
    a, b : array_like of int
        Hash parameters, 1 <= a < P and 0 <= b < P (broadcast against ``x``).
    x : array_like of int
        Values, 0 <= x < P.
    g : int
        Number of hash values.
    prime : int
        The prime P (<= 2^31 − 1).

    Returns
    -------
    numpy.ndarray of int64
        Hash values in 0..g-1.

    Raises
    ------
    InputTypeError, ParameterError
        Non-integer a, b, x; a bad g or prime. The ranges of a, b, x are not
        checked (a hot inner function); use values in the stated ranges.

    Notes
    -----
    a x + b < 2^62 fits in int64. O(size of the broadcast).

    Examples
    --------
    >>> universal_hash(3, 5, [0, 1, 2], g=4, prime=7).tolist()  # (5, 8, 11) mod 7 = (5, 1, 4)
    [1, 1, 0]
    """
    g = check_int("g", g, minimum=1, maximum=1 << 62)
    prime = check_int("prime", prime, minimum=2, maximum=MAX_PRIME)
    a, b, x = (_hash_ints(name, v) for name, v in (("a", a), ("b", b), ("x", x)))
    return ((a * x + b) % prime) % g


def _hash_ints(name: str, value: Any) -> np.ndarray:
    """An int64 array for universal_hash (type check only: the hot path stays O(size))."""
    if value is None or isinstance(value, (str, bytes)):
        msg = f"{name} must be integers, got {type(value).__name__}"
        raise InputTypeError(msg)
    arr = as_array(value, name)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        msg = f"{name} must be integers, got dtype {arr.dtype}"
        raise InputTypeError(msg)
    return arr.astype(np.int64, copy=False)


def lh_collision_probability(g: int, prime: int | None = DEFAULT_PRIME) -> float:
    """Pr[h(x) = h(x')] for x != x' under the hash family of :func:`sample_lh`.

    Parameters
    ----------
    g : int
        Number of hash values, ``g >= 2``.
    prime : int or None
        The prime P of the universal family; ``None`` for a uniformly random
        function (collision probability exactly 1/g).

    Returns
    -------
    float

    Raises
    ------
    ParameterError, InputTypeError
        g < 2 or a non-integer g or prime.

    Notes
    -----
    For x != x', (a x + b, a x' + b) mod P is uniform over the P(P − 1) ordered
    pairs of distinct residues, so the collision probability is
    Σ_r c_r (c_r − 1) / (P (P − 1)) with c_r = #{z < P : z mod g = r}; writing
    P = m g + s, Σ_r c_r (c_r − 1) = s (m + 1) m + (g − s) m (m − 1). Slightly
    below 1/g. Computed in exact integers, O(1).

    Examples
    --------
    >>> lh_collision_probability(2, prime=5)   # residues {0,2,4} and {1,3}: (6 + 2)/20
    0.4
    >>> lh_collision_probability(4, prime=None)
    0.25
    """
    g = check_int("g", g, minimum=2)
    if prime is None:
        return 1.0 / g
    prime = check_int("prime", prime, minimum=2)
    m, s = divmod(prime, g)
    same = s * (m + 1) * m + (g - s) * m * (m - 1)
    return same / (prime * (prime - 1))


#: What to do instead of an (m, k) LHReports table beyond the memory budget.
_ROWS_ALT = "a smaller user range (start, stop) per call"


@dataclass(frozen=True, eq=False)
class LHReports:
    """The reports of n users under local hashing: each user's hash function and perturbed hash.

    Attributes
    ----------
    y : numpy.ndarray of int64, shape (n,)
        The perturbed hash values, in 0..g-1.
    k, g : int
        Domain size and number of hash values.
    a, b : numpy.ndarray of uint32, shape (n,), or None
        Parameters of the universal hash h_{a,b}(x) = ((a x + b) mod P) mod g
        (``hash_family == "universal"``).
    prime : int or None
        The prime P of the universal family.
    table : numpy.ndarray, shape (n, k), or None
        Uniformly random hash functions as value tables, row j = (h_j(0), ...,
        h_j(k−1)) (``hash_family == "uniform"``).

    Examples
    --------
    >>> from qifldp.simulation import sample_lh
    >>> R = sample_lh([0, 1, 2], k=3, eps=1.0, g=2, rng=0)
    >>> len(R), R.hash_family, R.hash_values().shape
    (3, 'universal', (3, 3))
    """

    y: np.ndarray
    k: int
    g: int
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    prime: int | None = None
    table: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        object.__setattr__(self, "g", check_int("g", self.g, minimum=2))
        y = as_array(self.y, "y")
        if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer):
            msg = f"y must be a 1-D integer array, got shape {y.shape} of {y.dtype}"
            raise ParameterError(msg)
        if y.size and (y.min() < 0 or y.max() >= self.g):
            msg = f"y must lie in 0..{self.g - 1} (g = {self.g})"
            raise ParameterError(msg)
        object.__setattr__(self, "y", y.astype(np.int64, copy=False))
        n = y.size
        if self.table is not None:
            table = as_array(self.table, "table")
            if table.shape != (n, self.k):
                msg = f"table must have shape (n, k) = ({n}, {self.k}), got {table.shape}"
                raise ParameterError(msg)
            return
        if self.a is None or self.b is None or self.prime is None:
            msg = "LHReports needs either a hash table or the universal parameters a, b, prime"
            raise ParameterError(msg)
        check_prime(self.prime, self.k, self.g)
        for name in ("a", "b"):
            arr = as_array(getattr(self, name), name)
            if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer):
                msg = f"{name} must be an integer array of shape ({n},), got {arr.shape}"
                raise ParameterError(msg)
            low = 1 if name == "a" else 0
            if n and (arr.min() < low or arr.max() >= self.prime):
                msg = f"{name} must lie in {low}..{self.prime - 1}"
                raise ParameterError(msg)
            # the incremental hashing in _columns relies on uint32 arithmetic
            object.__setattr__(self, name, arr.astype(np.uint32, copy=False))

    def __len__(self) -> int:
        return int(self.y.size)

    def take(self, index: Any) -> LHReports:
        """The reports of a subset of users (a slice, integer indices or a boolean mask).

        Examples
        --------
        >>> from qifldp.simulation import sample_lh
        >>> R = sample_lh([0, 1, 2, 0], k=3, eps=1.0, g=2, rng=0)
        >>> len(R.take(slice(1, 3))), len(R.take(np.array([True, False, True, True])))
        (2, 3)
        """

        def pick(arr: np.ndarray | None) -> np.ndarray | None:
            return None if arr is None else arr[index]

        return LHReports(
            y=self.y[index],
            k=self.k,
            g=self.g,
            a=pick(self.a),
            b=pick(self.b),
            prime=self.prime,
            table=pick(self.table),
        )

    @property
    def hash_family(self) -> str:
        """``"universal"`` or ``"uniform"``."""
        return "uniform" if self.table is not None else "universal"

    @property
    def collision_probability(self) -> float:
        """Pr[h(x) = h(x')] for x != x' (see :func:`lh_collision_probability`)."""
        return lh_collision_probability(self.g, self.prime if self.table is None else None)

    def _columns(self, start: int, stop: int) -> Iterator[tuple[int, np.ndarray]]:
        """Yield (v, h_j(v) for users j in start..stop-1) for v = 0..k-1."""
        if self.table is not None:
            for v in range(self.k):
                yield v, self.table[start:stop, v]
            return
        A, B, prime = self.universal_parameters()
        P = np.uint32(prime)
        g = np.uint32(self.g)
        a = A[start:stop]
        h = B[start:stop].copy()  # (a·0 + b) mod P
        tmp = np.empty_like(h)
        for v in range(self.k):
            yield v, np.remainder(h, g, out=tmp)
            # h <- (h + a) mod P: h + a < 2P < 2^32; subtracting P wraps below P, min() picks
            np.add(h, a, out=h)
            np.minimum(h, h - P, out=h)

    def _range(self, start: Any, stop: Any) -> tuple[int, int]:
        """Checked user range start..stop-1 (0 <= start <= stop <= n)."""
        n = len(self)
        start = check_int("start", start, minimum=0, maximum=n)
        stop = n if stop is None else check_int("stop", stop, minimum=start, maximum=n)
        return start, stop

    def hash_values(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The (m, k) table of h_j(v) for users j in ``start..stop-1`` and every value v.

        Examples
        --------
        >>> from qifldp.simulation import sample_lh
        >>> R = sample_lh([0, 1], k=3, eps=1.0, g=2, rng=0)
        >>> bool((R.hash_values()[[0, 1], [0, 1]] >= 0).all())
        True
        """
        start, stop = self._range(start, stop)
        check_memory((stop - start) * self.k, 8, "the (m, k) hash table of LHReports", _ROWS_ALT)
        out = np.empty((stop - start, self.k), dtype=np.int64)
        for v, col in self._columns(start, stop):
            out[:, v] = col
        return out

    def matches(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Boolean (m, k) table of [h_j(v) = y_j]: the support set of each report.

        Examples
        --------
        >>> from qifldp.simulation import sample_lh
        >>> R = sample_lh([0, 1], k=3, eps=50.0, g=2, rng=0)
        >>> R.matches()[[0, 1], [0, 1]].tolist()   # with eps = 50 the true value always matches
        [True, True]
        """
        start, stop = self._range(start, stop)
        check_memory((stop - start) * self.k, 1, "the (m, k) match table of LHReports", _ROWS_ALT)
        y = self.y[start:stop].astype(np.uint32)
        out = np.empty((stop - start, self.k), dtype=bool)
        for v, col in self._columns(start, stop):
            np.equal(col, y, out=out[:, v])
        return out

    def labels(self) -> list[tuple]:
        """Output labels, one per user: ``(hash tuple, y)`` (uniform family, the labels of
        ``qifldp.local_hashing``) or ``(a, b, y)`` (universal family, the labels of
        :func:`universal_lh_channel`).

        Examples
        --------
        >>> from qifldp.simulation import sample_lh
        >>> R = sample_lh([1], k=2, eps=1.0, g=2, rng=0, hash="uniform")
        >>> R.labels()[0][0] in {(0, 0), (0, 1), (1, 0), (1, 1)}
        True
        """
        if self.table is not None:
            rows = zip(self.table.tolist(), self.y.tolist(), strict=True)
            return [(tuple(row), y) for row, y in rows]
        A, B, _ = self.universal_parameters()
        return [(int(a), int(b), int(y)) for a, b, y in zip(A, B, self.y, strict=True)]

    def universal_parameters(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(a, b, P) of universal-hash reports: h_j(x) = ((a_j x + b_j) mod P) mod g.

        Raises
        ------
        ParameterError
            Reports of the uniform family (``hash_family == "uniform"``).

        Examples
        --------
        >>> from qifldp.simulation import sample_lh
        >>> R = sample_lh([0, 1], k=3, eps=1.0, g=2, rng=0, prime=5)
        >>> R.universal_parameters()[2]
        5
        """
        if self.a is None or self.b is None or self.prime is None:
            msg = "uniform-hash reports have hash tables, not universal parameters (a, b, P)"
            raise ParameterError(msg)
        return self.a, self.b, self.prime


def n_reports(reports: Any) -> int:
    """The number n >= 1 of users behind some reports (rows of an array, or an LHReports).

    Examples
    --------
    >>> n_reports(np.zeros((4, 2)))
    4
    >>> n_reports(3)
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: reports must be an array with one row per user, got a scalar 3
    >>> n_reports([])
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: reports must not be empty (n >= 1 users)
    """
    if isinstance(reports, LHReports):
        n = len(reports)
    else:
        try:
            shape = np.shape(reports)
        except ValueError as exc:  # ragged nested lists
            msg = f"reports must be an array of reports (one row per user): {exc}"
            raise InputTypeError(msg) from None
        if not shape:
            msg = f"reports must be an array with one row per user, got a scalar {reports!r}"
            raise InputTypeError(msg)
        n = int(shape[0])
    if n == 0:
        msg = "reports must not be empty (n >= 1 users)"
        raise ParameterError(msg)
    return n
