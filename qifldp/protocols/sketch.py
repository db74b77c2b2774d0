"""Apple's Count Mean Sketch (CMS) and Hadamard Count Mean Sketch (HCMS) as protocol objects.

Apple's Differential Privacy Team, *Learning with Privacy at Scale* (Apple Machine
Learning Journal, 2017): the server fixes K hash functions h_1..h_K: [k] -> [m]
(``hashes`` = K, the paper's k); a user with value x draws j uniformly from 1..K and

* CMS: encodes h_j(x) as a one-hot vector of m coordinates and flips each coordinate
  w.p. 1 / (e^(eps/2) + 1) (SUE's bits at eps); the report is (j, the m bits);
* HCMS: draws l uniformly from 0..m-1 (m a power of two) and reports (j, l, w), w the
  entry H_m[l, h_j(x)] of the Sylvester-Hadamard matrix, negated w.p. 1 / (e^eps + 1).

The server's sketch estimator (the paper's, pure-ldp's) is
f̂(d) = m / (m - 1) (1/n Σ_users Y_{h_j(d)} - 1/m) with Y the calibrated coordinate
((bit - q) / (p - q) for CMS, c w H_m[l, ·] for HCMS, c = (e^eps + 1) / (e^eps - 1));
it is unbiased over a uniformly random hash family (a value meets another in a bucket
w.p. 1/m), not for one fixed family member, where the collisions of the table bias it.

The hash family, both ways:

* a **fixed member** (``seed``): h_j(x) drawn uniformly and independently for every j
  and x by a seeded generator (:func:`~qifldp.protocols.bloom_reports.bloom_table`, RAPPOR's
  table): the explicit channel is the visible choice of j over the cascades of h_j into
  the one-hot SUE (CMS) or the Hadamard coefficient's randomized response (HCMS); its
  unbiased estimator is the sketch's mean solved for the table (``method="table"``,
  the default: E[Ȳ] = G f with G[d, x] the fraction of hash functions mapping d and x
  to one bucket);
* a **uniformly random** member, revealed with the report (the paper's analysis): the
  Bayes capacity is the average over tables, which depends on h_j only through its
  image, a uniform subset of size r with the occupancy law of k balls in m bins
  (:meth:`SketchClosedForm.bayes_capacity_random_hash`, any k).

Neither channel is invariant under permutations of the values for a fixed table: no
symmetric channel.
"""

from __future__ import annotations

import abc
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import sparse
from scipy.special import gammaln

from ..channel import Channel, guard_size
from ..errors import ParameterError
from ..simulation import project_simplex
from ..simulation.util import as_rng, as_values, check_n, choose_uniform_true, row_chunks
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..validation import check_choice, check_eps, check_int
from .base import ClosedForm, NotLumpable, PQSupport, Rows, integer_reports, no_options
from .bloom_reports import bloom_table
from .docstrings import fill_doc
from .he import he_coefficient
from .hr import fwht
from .params import check_k, sue_expressions, sue_probabilities
from .ue import sample_bits, ue_capacity

if TYPE_CHECKING:
    pass

__all__ = ["CMS", "HCMS", "SketchClosedForm", "image_size_distribution", "METHODS"]

#: The estimators: solved for the fixed table (unbiased) or the paper's sketch mean.
METHODS: tuple[str, ...] = ("table", "sketch")

#: The parameters CMS and HCMS share (docstring fragments).
_PARAMETERS = {
    "sketch_parameters": """Parameters
----------
k : int
    Domain size, ``k >= 2``.
eps : float
    Privacy parameter (finite, ``>= 0``).
m : int
    Buckets, ``m >= 2`` (HCMS: a power of two).
hashes : int
    Hash functions K (the paper's k), ``>= 1``.
seed : int
    Which member of the hash family (:func:`~qifldp.protocols.bloom_reports.bloom_table`).

Notes
-----
params : dict"""
}

#: Largest k of the table estimator and of the variance (they form the k x k matrix G).
MAX_TABLE_K: int = 4096


def image_size_distribution(k: int, m: int) -> np.ndarray:
    """Pr[|h([k])| = r], r = 0..min(k, m), for a uniformly random function h: [k] -> [m].

    The occupancy law C(m, r) r! S(k, r) / m^k, by the recursion over the k values
    (the next value lands in an occupied bin w.p. r / m), O(k min(k, m)).

    Examples
    --------
    >>> image_size_distribution(2, 4).tolist()  # same bin w.p. 1/4
    [0.0, 0.25, 0.75]
    """
    k = check_int("k", k, minimum=1)
    m = check_int("m", m, minimum=1)
    top = min(k, m)
    r = np.arange(top + 1)
    P = np.zeros(top + 1)
    P[1] = 1.0
    for _ in range(k - 1):
        new = P * (r / m)
        new[1:] += P[:-1] * ((m - r[:-1]) / m)
        P = new
    return P


class SketchClosedForm(ClosedForm):
    """Closed forms of CMS and HCMS: the fixed table's and the random hash's capacities.

    Examples
    --------
    >>> import qifldp as q
    >>> cf = q.protocol("cms", 3, 1.0, m=4, hashes=2).closed_form
    >>> round(cf.bayes_capacity(), 12) == round(q.bayes_capacity(cf._protocol.channel()), 12)
    True
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of the fixed table: the mean over j of the ML of h_j's image (see the module).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("hcms", 2, 1.0, m=2, hashes=1, seed=0).closed_form.bayes_capacity()
        1.0
        >>> P = q.protocol("hcms", 5, 1.0, m=4, hashes=3)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        P = self._protocol
        assert isinstance(P, _Sketch)
        return float(np.mean([P._image_capacity(np.unique(row)) for row in P.table]))

    def bayes_capacity_random_hash(self) -> float:
        """ML averaged over a uniformly random hash family, revealed (the paper's analysis).

        Σ_r Pr[|h([k])| = r] ML(r) with the image a uniform r-subset of the m buckets
        (:func:`image_size_distribution`); ML(r) is UE's capacity over r positions
        (CMS), (1 + (m - 1)(1 + (2p - 1) Pr[both signs])) / m for HCMS with
        Pr[both signs] = 1 - 2 C(m/2, r) / C(m, r) on a row l != 0.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("cms", 2, 1.0, m=2, hashes=1).closed_form
        >>> ml = cf.bayes_capacity_random_hash()  # the two values collide w.p. 1/2
        >>> two = q.protocol("cms", 2, 1.0, m=2, hashes=1, seed=1)  # a table that separates
        >>> round(ml, 12) == round((1 + two.closed_form.bayes_capacity()) / 2, 12)
        True
        """
        P = self._protocol
        assert isinstance(P, _Sketch)
        dist = image_size_distribution(P.k, P.params["m"])
        r = np.arange(dist.size)
        return float(np.sum(dist[1:] * P._random_image_capacity(r[1:])))

    def ldp_epsilon(self) -> float:
        """eps when some hash separates two values (then a report tells them apart by
        e^eps), 0 when every hash maps all values to one bucket.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("cms", 5, 1.5, m=8, hashes=2).closed_form.ldp_epsilon()
        1.5
        """
        P = self._protocol
        assert isinstance(P, _Sketch)
        separated = any(np.unique(row).size > 1 for row in P.table)
        return P.eps if separated else 0.0


class _Sketch(PQSupport, NotLumpable):
    """The shared part of CMS and HCMS: parameters, table, estimators, variance, attack."""

    __slots__ = ("_table",)
    _closed_form_type = SketchClosedForm
    _not_lumpable = "its hash table is not invariant under permutations"
    _table: np.ndarray
    #: The catalogue name.
    _NAME: str

    def __init__(self, k: int, eps: float, m: int, hashes: int, seed: int = 0) -> None:
        k, eps = check_k(k), check_eps(eps)
        m = check_int("m", m, minimum=2)
        hashes = check_int("hashes", hashes, minimum=1)
        seed = check_int("seed", seed, minimum=0)
        self._check_m(m)
        args = {"eps": eps, "m": m, "hashes": hashes, "seed": seed}
        params = {"m": m, "hashes": hashes, "seed": seed, **self._flip(eps)}
        self._freeze(self._NAME, k, eps, params, args)
        object.__setattr__(self, "_table", bloom_table(k, m, hashes, seed).T.copy())

    def __reduce__(self) -> tuple:
        return (type(self), (self.k, *self._args.values()))

    def _check_m(self, m: int) -> None:
        """Refuse an m the variant cannot use (HCMS: not a power of two)."""

    @staticmethod
    @abc.abstractmethod
    def _flip(eps: float) -> dict[str, float]:
        """The variant's bit probabilities (``p``, ``q``)."""

    @property
    def table(self) -> np.ndarray:
        """The fixed hash functions: (hashes, k) int64, row j = (h_j(0), ..., h_j(k-1)) (a copy).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("cms", 3, 1.0, m=4, hashes=2).table.shape
        (2, 3)
        """
        return self._table.copy()

    @abc.abstractmethod
    def _image_capacity(self, image: np.ndarray) -> float:
        """ML of one hash function's channel given its image (sorted buckets)."""

    @abc.abstractmethod
    def _random_image_capacity(self, r: np.ndarray) -> np.ndarray:
        """Mean ML of one hash function's channel over images of size r (uniform subsets)."""

    def _guard(self, n_cols_log10: float, cols: Any, symbolic: bool = False) -> None:
        k, pr = self.k, self._params
        what = f"{self._NAME}({k}, {self.eps}, m={pr['m']}, hashes={pr['hashes']})"
        if symbolic:
            guard_symbolic_size(self._NAME, (k, "eps"), k, n_cols_log10, cols)
            return
        alt = f"protocol({self._NAME!r}, ...).closed_form (no symmetric channel)"
        guard_size(what, k, n_cols_log10, cols, alt)

    # ---------------------------------------------------------------- server
    @abc.abstractmethod
    def _check_reports(self, reports: Any) -> np.ndarray: ...

    @abc.abstractmethod
    def _coordinate_means(self, arr: np.ndarray) -> np.ndarray:
        """Ȳ: for every value d, the mean over the users of their calibrated Y_{h_j(d)}."""

    @abc.abstractmethod
    def _second_moment(self, f: np.ndarray, G: np.ndarray) -> np.ndarray:
        """Σ_x f_x E[Y Yᵀ | x] (k x k) for the calibrated coordinates."""

    def _gram(self) -> np.ndarray:
        """G[d, x] = fraction of the hash functions with h_j(d) = h_j(x) (k x k)."""
        if self.k > MAX_TABLE_K:
            msg = (
                f"k = {self.k} is above {MAX_TABLE_K} for the table estimator and the variance "
                "(a k x k matrix): use estimate(..., method='sketch')"
            )
            raise ParameterError(msg)
        G = np.zeros((self.k, self.k))
        for row in self._table:
            G += row[:, None] == row[None, :]
        return G / self._table.shape[0]

    def _solver(self) -> np.ndarray:
        """G⁻¹ (checked: G singular means two values no hash separates)."""
        G = self._gram()
        if np.linalg.matrix_rank(G) < self.k:
            msg = (
                f"the {self.k} values are not identifiable from this hash table (m = "
                f"{self._params['m']}, hashes = {self._params['hashes']}, seed = "
                f"{self._params['seed']}): use more hashes or buckets, another seed, "
                "method='sketch', or qifldp.ibu on the channel"
            )
            raise ParameterError(msg)
        return np.linalg.inv(G)

    def estimate(self, reports: Any, project: bool = False, method: str = "table") -> np.ndarray:
        """Frequencies from the reports: unbiased for the fixed table, or the paper's sketch.

        Parameters
        ----------
        reports
            The output of :meth:`sample`.
        project : bool
            Project onto the probability simplex (then biased).
        method : {"table", "sketch"}
            ``"table"``: G⁻¹ Ȳ, unbiased for this table (k <= MAX_TABLE_K);
            ``"sketch"``: m / (m - 1) (Ȳ - 1/m), the paper's estimator (any k; unbiased
            only over a uniformly random hash family).

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> P = q.protocol("cms", 3, 4.0, m=8, hashes=4)
        >>> xs = np.repeat([0, 1, 2], [5000, 3000, 2000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        method = check_choice("method", method, METHODS)
        if self.eps == 0:
            msg = "eps = 0: the reports carry no information, no estimate"
            raise ParameterError(msg)
        y = self._coordinate_means(self._check_reports(reports))
        if method == "table":
            f = self._solver() @ y
        else:
            m = self._params["m"]
            f = m / (m - 1) * (y - 1 / m)
        return project_simplex(f) if project else f

    def variance(self, n: int, f: Any = None, **options: Any) -> np.ndarray:
        """The variance of each estimated frequency for n users (frequencies f; default uniform).

        Parameters
        ----------
        n : int
            Number of users, ``n >= 1``.
        f : array_like, optional
            The users' true frequencies (length k); default uniform.
        method : {"table", "sketch"}, optional (keyword)
            The estimator, as for :meth:`estimate` (default ``"table"``).

        Notes
        -----
        Per user, E[Y | x] = G[:, x] and Σ_x f_x Cov(Y | x) = M - G F G with M the
        variant's second moment (CMS: (1/K) Σ_j S_j F S_j + pq / (p - q)² G, S_j[d, x] =
        [h_j(d) = h_j(x)]; HCMS: c² G); Cov(Ȳ) = (M - G F G) / n, and the estimator is
        linear in Ȳ (G⁻¹, or m / (m - 1) times the identity). Exact for the fixed table.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("hcms", 4, 1.0, m=8, hashes=4).variance(1000).shape
        (4,)
        """
        method = check_choice("method", options.pop("method", "table"), METHODS)
        no_options("variance", options)
        n = check_n(n)
        if self.eps == 0:
            msg = "eps = 0: the estimator is undefined (infinite variance)"
            raise ParameterError(msg)
        freq = np.full(self.k, 1.0 / self.k) if f is None else np.asarray(f, dtype=float)
        if freq.shape != (self.k,):
            msg = f"f must have k = {self.k} frequencies, got shape {freq.shape}"
            raise ParameterError(msg)
        G = self._gram()
        cov = (self._second_moment(freq, G) - (G * freq) @ G.T) / n
        if method == "table":
            A = self._solver()
            return np.einsum("ij,jk,ik->i", A, cov, A)
        m = self._params["m"]
        return (m / (m - 1)) ** 2 * np.diag(cov)

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """The Bayes guess under a uniform prior: a uniform value the report supports
        (bit 1 at its bucket for CMS; w equal to its Hadamard entry for HCMS), else any.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("cms", 4, 60.0, m=64, hashes=1, seed=1)
        >>> P.attack(P.sample([3, 1], rng=0), rng=0).tolist()
        [3, 1]
        """
        arr = self._check_reports(reports)
        gen = as_rng(rng)
        out = np.empty(arr.shape[0], dtype=np.int64)
        for s, e in row_chunks(arr.shape[0], self.k):
            out[s:e] = choose_uniform_true(self._supports(arr[s:e]), gen)
        return out

    @abc.abstractmethod
    def _supports(self, arr: np.ndarray) -> np.ndarray:
        """(n, k) booleans: the report is most likely under value v."""

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """One report per user: j uniform in 0..K-1, then the variant's report of h_j(x).

        CMS: an (n, 1 + m) int32 array, column 0 the hash index j, columns 1..m the
        flipped one-hot bits; HCMS: an (n, 3) int64 array of triples (j, l, w)
        (pure-ldp's formats).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("cms", 3, 1.0, m=4, hashes=2).sample([0, 2], rng=0).shape
        (2, 5)
        >>> q.protocol("hcms", 3, 1.0, m=4, hashes=2).sample([0, 2], rng=0).shape
        (2, 3)
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        j = gen.integers(0, self._params["hashes"], size=xs.size)
        return self._report(j, self._table[j, xs], gen)

    @abc.abstractmethod
    def _report(self, j: np.ndarray, bucket: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The reports of users with hash indices j and buckets h_j(x)."""


def _sum_by_index(j: np.ndarray, rows: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """The row sums per index j in 0..K-1 ((K, m) int64) and the number of rows per index.

    One pass: the (n, K) indicator of j, one entry a row, as a sparse matrix (no sort:
    its row pointers are 0..n), transposed times the rows, in the rows' int32 when they
    are int32 (CMS's reports). O(n m), where an unbuffered
    ``add.at`` scatter costs ~15 ns per entry.

    Examples
    --------
    >>> s, c = _sum_by_index(np.array([1, 0, 1]), np.array([[1, 0], [0, 1], [1, 1]]), 3)
    >>> s.tolist(), c.tolist()
    ([[0, 1], [2, 1], [0, 0]], [1, 2, 0])
    """
    n = j.size
    # int32 throughout when the rows are (no upcast copy; a sum is at most n < 2^31)
    dtype = np.int32 if rows.dtype == np.int32 and n < 2**31 else np.int64
    ind = sparse.csr_array(
        (np.ones(n, dtype=dtype), j.astype(np.int64), np.arange(n + 1)), shape=(n, K)
    )
    sums = np.asarray(ind.T @ rows.astype(dtype, copy=False), dtype=np.int64)
    return sums, np.bincount(j, minlength=K)


@fill_doc(_PARAMETERS)
class CMS(_Sketch):
    """Apple's Count Mean Sketch: a hashed one-hot vector of m bits, each flipped (SUE at eps).

    {sketch_parameters}
        m, hashes, seed, and p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p (SUE's bits).

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("cms", 3, 1.0, m=4, hashes=2)
    >>> P.channel().shape  # K 2^m outputs
    (3, 32)
    """

    __slots__ = ()
    _NAME = "cms"

    @staticmethod
    def _flip(eps: float) -> dict[str, float]:
        p, q = sue_probabilities(eps)
        return {"p": p, "q": q}

    def _patterns(self) -> np.ndarray:
        m = self._params["m"]
        return (np.arange(2**m)[:, None] >> np.arange(m)[::-1]) & 1

    def channel(self) -> Channel:
        """The k x (K 2^m) channel; outputs (j, m-bit tuple).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("cms", 2, 1.0, m=2, hashes=1).channel().outputs[:2]
        ((0, (0, 0)), (0, (0, 1)))
        """
        m, K = self._params["m"], self._params["hashes"]
        self._guard(math.log10(K) + m * math.log10(2), lambda: K * 2**m)
        outs = [(j, tuple(int(b) for b in s)) for j in range(K) for s in self._patterns()]
        return Channel(self._rows(np.arange(self.k)), outputs=outs)

    def _rows(self, xs: np.ndarray) -> np.ndarray:
        """The rows of the channel at the values ``xs`` (one expression for every row)."""
        m, K = self._params["m"], self._params["hashes"]
        p, q = self._params["p"], self._params["q"]
        S = self._patterns()
        ones = S.sum(axis=1)
        base = q**ones * (1 - q) ** (m - ones) / K  # every bit from an input bit 0
        blocks = [
            base[None, :] * np.where(S[:, row[xs]].T == 1, p / q, (1 - p) / (1 - q))
            for row in self._table
        ]
        return np.hstack(blocks)

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        m, K = self._params["m"], self._params["hashes"]
        what = f"cms({self.k}, {self.eps}, m={m}, hashes={K})"
        self._check_restricted(xs.size, K * 2**m, what)

        def labels(cols: np.ndarray) -> list:
            bits = (cols[:, None] >> np.arange(m)[::-1]) & 1
            return [(c >> m, tuple(b)) for c, b in zip(cols.tolist(), bits.tolist(), strict=True)]

        return self._rows(xs), labels, None

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """CMS as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("cms", 2, 1.0, m=2, hashes=1, seed=0).symbolic(eps="e").shape
        (2, 4)
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        m, K = self._params["m"], self._params["hashes"]
        self._guard(math.log10(K) + m * math.log10(2), lambda: K * 2**m, symbolic=True)
        Ps = SymbolicParameters()
        p, one_minus_p, q, one_minus_q = sue_expressions(Ps.take("eps", values["eps"], "eps"))
        S = self._patterns()
        rows = []
        for x in range(self.k):
            row = []
            for h in self._table[:, x]:
                for s in S:
                    term = sp.Rational(1, K)
                    for i, bit in enumerate(s):
                        if i == h:
                            term *= p if bit else one_minus_p
                        else:
                            term *= q if bit else one_minus_q
                    row.append(term)
            rows.append(row)
        outs = [(j, tuple(int(b) for b in s)) for j in range(K) for s in S]
        return Ps.channel(rows, tuple(range(self.k)), tuple(outs))

    def _image_capacity(self, image: np.ndarray) -> float:
        return float(self._random_image_capacity(np.array([image.size]))[0])

    def _random_image_capacity(self, r: np.ndarray) -> np.ndarray:
        p, q = self._params["p"], self._params["q"]
        return np.asarray(ue_capacity(r, p, q, 1.0 - p), dtype=float)

    def _report(self, j: np.ndarray, bucket: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        # the m bits are UE's over the buckets (sample_bits: one random byte a bit), drawn
        # block by block into the int32 reports (each block copied while in cache)
        m, n = self._params["m"], j.size
        out = np.empty((n, 1 + m), dtype=np.int32)
        out[:, 0] = j
        for s, e in row_chunks(n, m):
            out[s:e, 1:] = sample_bits(bucket[s:e], m, self._params["p"], self._params["q"], gen)
        return out

    def _check_reports(self, reports: Any) -> np.ndarray:
        m, K = self._params["m"], self._params["hashes"]
        arr = integer_reports(
            reports, m + 1, f"rows (j, m = {m} bits)", bounds=((0, K),), copy=False
        )
        bits = arr[:, 1:]
        if bits.min() < 0 or bits.max() > 1:
            msg = "reports must hold bits (0 or 1) in columns 1..m"
            raise ParameterError(msg)
        return arr

    def _coordinate_means(self, arr: np.ndarray) -> np.ndarray:
        K = self._params["hashes"]
        p, q = self._params["p"], self._params["q"]
        # the whole (contiguous) rows summed, column 0 dropped after: no strided copy
        sums, users = _sum_by_index(arr[:, 0], arr, K)
        sketch = sums[:, 1:]
        cells = np.take_along_axis(sketch, self._table, axis=1)  # (K, k): row j at h_j(d)
        return ((cells - users[:, None] * q) / (p - q)).sum(axis=0) / arr.shape[0]

    def _second_moment(self, f: np.ndarray, G: np.ndarray) -> np.ndarray:
        p, q = self._params["p"], self._params["q"]
        M = p * q / (p - q) ** 2 * G
        for row in self._table:
            mass = np.bincount(row, weights=f, minlength=self._params["m"])
            M += (row[:, None] == row[None, :]) * mass[row][:, None] / self._table.shape[0]
        return M

    def _supports(self, arr: np.ndarray) -> np.ndarray:
        buckets = self._table[arr[:, 0]]  # (n, k)
        return np.take_along_axis(arr[:, 1:], buckets, axis=1) == 1


@fill_doc(_PARAMETERS)
class HCMS(_Sketch):
    """Hadamard Count Mean Sketch: one entry of the hashed value's Hadamard codeword, randomized.

    {sketch_parameters}
        m, hashes, seed, p = e^eps / (e^eps + 1) (w kept) and q = 1 - p.

    Examples
    --------
    >>> import qifldp as q
    >>> q.protocol("hcms", 3, 1.0, m=4, hashes=2).channel().shape  # 2 K m outputs
    (3, 16)
    """

    __slots__ = ()
    _NAME = "hcms"

    def _check_m(self, m: int) -> None:
        if m & (m - 1):
            msg = f"m must be a power of two for HCMS (the Hadamard matrix's order), got {m}"
            raise ParameterError(msg)

    @staticmethod
    def _flip(eps: float) -> dict[str, float]:
        p = 1.0 / (1.0 + math.exp(-eps))
        return {"p": p, "q": 1.0 - p}

    def _outputs(self) -> list[tuple[int, int, int]]:
        m, K = self._params["m"], self._params["hashes"]
        return [(j, l, w) for j in range(K) for l in range(m) for w in (-1, 1)]

    def channel(self) -> Channel:
        """The k x (2 K m) channel; outputs (j, l, w), w in (-1, +1).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("hcms", 2, 1.0, m=2, hashes=1).channel().outputs[:3]
        ((0, 0, -1), (0, 0, 1), (0, 1, -1))
        """
        m, K = self._params["m"], self._params["hashes"]
        self._guard(math.log10(2 * K * m), lambda: 2 * K * m)
        return Channel(self._rows(np.arange(self.k)), outputs=self._outputs())

    def _rows(self, xs: np.ndarray) -> np.ndarray:
        """The rows of the channel at the values ``xs``; columns in :meth:`_outputs`' order."""
        m, K = self._params["m"], self._params["hashes"]
        cols = np.arange(2 * K * m)
        js, ls, ws = cols // (2 * m), (cols // 2) % m, 2 * (cols % 2) - 1
        entry = he_coefficient(ls, self._table[:, xs][js].T)  # (rows, n_out): H_m[l, h_j(x)]
        p = self._params["p"]
        return np.where(entry == ws, p, 1 - p) / (K * m)

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        m, K = self._params["m"], self._params["hashes"]
        self._check_restricted(xs.size, 2 * K * m, f"hcms({self.k}, {self.eps}, m={m}, hashes={K})")

        def labels(cols: np.ndarray) -> list:
            return [(c // (2 * m), (c // 2) % m, 2 * (c % 2) - 1) for c in cols.tolist()]

        return self._rows(xs), labels, None

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """HCMS as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("hcms", 2, 1.0, m=2, hashes=1).symbolic(eps="e").matrix[0, 1]
        exp(e)/(2*exp(e) + 2)
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        m, K = self._params["m"], self._params["hashes"]
        self._guard(math.log10(2 * K * m), lambda: 2 * K * m, symbolic=True)
        Ps = SymbolicParameters()
        E = sp.exp(Ps.take("eps", values["eps"], "eps"))
        keep, flip = E / (K * m * (E + 1)), 1 / (K * m * (E + 1))
        outs = self._outputs()
        rows = [
            [keep if he_coefficient(l, self._table[j, x]) == w else flip for j, l, w in outs]
            for x in range(self.k)
        ]
        return Ps.channel(rows, tuple(range(self.k)), tuple(outs))

    def _image_capacity(self, image: np.ndarray) -> float:
        m, p = self._params["m"], self._params["p"]
        signs = he_coefficient(np.arange(m)[:, None], image[None, :])
        both = np.ptp(signs, axis=1) > 0
        return float((m + (2 * p - 1) * both.sum()) / m)

    def _random_image_capacity(self, r: np.ndarray) -> np.ndarray:
        m, p = self._params["m"], self._params["p"]
        half = m // 2
        with np.errstate(divide="ignore"):
            log_same = np.where(
                r <= half,
                math.log(2)
                + gammaln(half + 1)
                - gammaln(half - np.minimum(r, half) + 1)
                - gammaln(m + 1)
                + gammaln(m - r + 1),
                -np.inf,
            )
        both = 1 - np.exp(log_same)  # Pr[a row l != 0 gives the image both signs]
        return (1 + (m - 1) * (1 + (2 * p - 1) * both)) / m

    def _report(self, j: np.ndarray, bucket: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        l = gen.integers(0, self._params["m"], size=j.size)
        keep = gen.random(j.size) < self._params["p"]
        w = he_coefficient(l, bucket) * np.where(keep, 1, -1)
        return np.stack([j, l, w], axis=1)

    def _check_reports(self, reports: Any) -> np.ndarray:
        bounds = ((0, self._params["hashes"]), (1, self._params["m"]))
        return integer_reports(reports, 3, "triples (j, l, w)", bounds=bounds, sign=2)

    def _coordinate_means(self, arr: np.ndarray) -> np.ndarray:
        K, m, p = self._params["hashes"], self._params["m"], self._params["p"]
        flat = np.bincount(arr[:, 0] * m + arr[:, 1], weights=arr[:, 2], minlength=K * m)
        T = np.array([fwht(row) for row in flat.reshape(K, m)])  # T[j, a] = Σ_l sketch H[l, a]
        cells = np.take_along_axis(T, self._table, axis=1)
        return cells.sum(axis=0) / ((2 * p - 1) * arr.shape[0])

    def _second_moment(self, f: np.ndarray, G: np.ndarray) -> np.ndarray:
        p = self._params["p"]
        return G / (2 * p - 1) ** 2

    def _supports(self, arr: np.ndarray) -> np.ndarray:
        buckets = self._table[arr[:, 0]]  # (n, k)
        return he_coefficient(arr[:, 1:2], buckets) == arr[:, 2:3]
