"""Hadamard Response (HR) as a protocol object.

Acharya, Sun, Zhang: *Hadamard Response: Estimating Distributions Privately,
Efficiently, and with Little Communication* (AISTATS 2019), Sec. 4 (the high-privacy
scheme with sets of size K/2). K is the smallest power of two above k; value x owns
the codeword set C_x = {y in 0..K-1 : H_K[x + 1, y] = +1} of the Sylvester-Hadamard
matrix (row 0, all ones, unused), i.e. the y whose bitwise AND with x + 1 has even
parity. A report is one y in 0..K-1 (log2 K bits):

    Pr[y | x] = 2 e^eps / (K (e^eps + 1))  if y in C_x,   2 / (K (e^eps + 1))  otherwise.

Two codeword sets meet in K/4 outputs, so a report lands in C_v with probability
p* = e^eps / (e^eps + 1) when x = v and q* = 1/2 otherwise: the usual calibrated
estimator and Wang et al.'s variance apply, the counts in every C_v coming from one
fast Walsh-Hadamard transform (O(n + K log K)). pure-ldp uses this scheme for eps <= 1
and a block variant beyond; the block variant is not built here.

HR is not invariant under the permutations of the values (a permutation does not map
codeword sets to codeword sets), so it has no symmetric (lumped) channel; its closed
forms need none: ML = 2 e^eps / (e^eps + 1) for k >= 3.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..errors import ParameterError
from ..simulation import calibrate
from ..simulation.samplers import n_reports
from ..simulation.util import as_array, as_rng, as_values, choose_uniform_true, row_chunks
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.posterior_mixing import GramForm
from ..validation import check_eps
from .base import EpsAttained, NotLumpable, Rows, no_options
from .docstrings import ORACLE_DOCS, fill_doc
from .params import check_k

if TYPE_CHECKING:
    import sympy as sp

__all__ = [
    "HR",
    "HRClosedForm",
    "CodewordOracle",
    "codeword_gram",
    "count_extremes",
    "hr_output_size",
    "hr_membership",
    "fwht",
    "output_reports",
    "two_valued_symbolic",
    "uniform_guesses",
]


def hr_output_size(k: int) -> int:
    """K: the smallest power of two strictly above k (the rows 1..k of H_K are used).

    Examples
    --------
    >>> hr_output_size(3), hr_output_size(4), hr_output_size(7)
    (4, 8, 8)
    """
    k = check_k(k)
    return 1 << k.bit_length()


def hr_membership(xs: Any, ys: Any) -> np.ndarray:
    """Whether output y is in the codeword set C_x: the parity of (x + 1) & y is even.

    Broadcasts ``xs`` against ``ys`` (integer arrays).

    Examples
    --------
    >>> hr_membership(np.arange(3)[:, None], np.arange(4)).astype(int).tolist()
    [[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]]
    """
    both = np.bitwise_and(np.asarray(xs, dtype=np.int64) + 1, np.asarray(ys, dtype=np.int64))
    return (np.bitwise_count(both) & 1) == 0


def two_valued_symbolic(P: Any, inside: np.ndarray, p: Any, q: Any) -> SymbolicChannel:
    """The symbolic channel with entry p where ``inside[x, y]`` and q elsewhere (inputs and
    outputs numbered from 0): the Hadamard responses' channels, whatever their blocks.

    Examples
    --------
    >>> from qifldp.symbolic.parameters import SymbolicParameters
    >>> two_valued_symbolic(SymbolicParameters(), np.eye(2, dtype=bool), 3, 1).matrix.tolist()
    [[3, 1], [1, 3]]
    """
    k, K = inside.shape
    rows = [[p if inside[x, y] else q for y in range(K)] for x in range(k)]
    return P.channel(rows, tuple(range(k)), tuple(range(K)))


def output_reports(reports: Any, K: int) -> np.ndarray:
    """Reports that are outputs 0..K-1, as a checked non-empty 1-D int64 array.

    Examples
    --------
    >>> output_reports([3, 0], 4).tolist()
    [3, 0]
    >>> output_reports([4], 4)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: reports must be outputs in 0..3, got 4..4
    """
    arr = as_array(reports, "reports")
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer) or arr.size == 0:
        msg = f"reports must be a non-empty 1-D array of outputs in 0..{K - 1}"
        raise ParameterError(msg)
    if arr.min() < 0 or arr.max() >= K:
        msg = f"reports must be outputs in 0..{K - 1}, got {arr.min()}..{arr.max()}"
        raise ParameterError(msg)
    return arr.astype(np.int64)


def uniform_guesses(
    holds: Callable[[np.ndarray, np.ndarray], np.ndarray],
    reports: np.ndarray,
    k: int,
    rng: Any = None,
    width: int = 1,
) -> np.ndarray:
    """For each report, a value chosen uniformly among those it supports (any value of
    0..k-1 when none): ``holds(values, chunk)`` is the (rows, k) boolean support of a
    chunk of the reports, each report ``width`` units of work per value.

    Bayes-optimal under a uniform prior when the supported values are those of the
    largest likelihood.

    Examples
    --------
    >>> uniform_guesses(lambda v, r: v == r[:, None], np.array([2, 0]), 3, rng=0).tolist()
    [2, 0]
    """
    gen = as_rng(rng)
    out = np.empty(reports.shape[0], dtype=np.int64)
    values = np.arange(k)
    for s, e in row_chunks(reports.shape[0], k * width):
        out[s:e] = choose_uniform_true(holds(values, reports[s:e]), gen)
    return out


def fwht(v: Any) -> np.ndarray:
    """The Walsh-Hadamard transform H_K v (Sylvester order, unnormalised), O(K log K).

    ``v`` has a power-of-two length K along its last axis (each row of a 2-D ``v`` is
    transformed); entry r of the result is Σ_y (-1)^|r & y| v[..., y].

    Examples
    --------
    >>> fwht(np.array([1, 0, 0, 0])).tolist(), fwht(np.array([0, 1, 0, 0])).tolist()
    ([1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 1.0, -1.0])
    >>> fwht(np.array([[1, 0], [0, 1]])).tolist()
    [[1.0, 1.0], [1.0, -1.0]]
    """
    a = np.asarray(v).astype(np.float64)  # a copy
    lead, K = a.shape[:-1], a.shape[-1]
    h = 1
    while h < K:
        a = a.reshape(*lead, -1, 2, h)
        a = np.stack([a[..., 0, :] + a[..., 1, :], a[..., 0, :] - a[..., 1, :]], axis=-2)
        a = a.reshape(*lead, K)
        h *= 2
    return a


def count_extremes(counts: Any, k: int) -> tuple[int, int]:
    """(most, least) of the counts N(y) = #{x < k : y in S_x} of a codeword channel: the
    largest below k (0 when none) and the smallest at least 1 (k when none).

    Examples
    --------
    >>> count_extremes(np.array([4, 2, 2, 0, 3]), 4)
    (3, 2)
    """
    N = np.asarray(counts)
    below, hit = N[N < k], N[N >= 1]
    return int(below.max()) if below.size else 0, int(hit.min()) if hit.size else k


def codeword_gram(
    k: int,
    n: int,
    size: int,
    meet: int,
    p: Fraction,
    q: Fraction,
    counts: tuple[int, int],
    law: str,
) -> GramForm:
    """The exact Gram form (scalar weights) of a k x n channel with entry p on a set S_x
    of ``size`` outputs and q on the others, |S_x ∩ S_x'| = ``meet`` for x != x'.

    The rows are divided by their exact sum R = size p + (n − size) q (1 where the
    stored floats already sum to 1), then with g = p − q:
    A Aᵀ has alpha = n q² + 2 size q g + meet g² off its diagonal and beta = (size −
    meet) g² more on it. A column y has sum k q + g N(y), N(y) = #{x : y in S_x}, and
    min_x A[x, y] = q unless N(y) = k; so c_y − k min_x A[x, y] = g N(y) for N(y) < k
    (else 0) and k max_x A[x, y] − c_y = g (k − N(y)) for N(y) >= 1 (else 0): up = g most,
    down = g (k − least) for g >= 0 (the roles swap for g < 0).

    Parameters
    ----------
    k, n, size, meet : int
    p, q : Fraction
        The entries as stored (the floats read exactly).
    counts : (int, int)
        (most, least) of :func:`count_extremes`.
    law : str
        What the channel is, for the certificate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> G = codeword_gram(3, 3, 1, 0, F(1, 2), F(1, 4), (1, 1), "GRR(3, ln 2)")
    >>> G.alpha, G.beta, G.up, G.down
    (Fraction(5, 16), Fraction(1, 16), Fraction(1, 4), Fraction(1, 2))
    """
    R = size * p + (n - size) * q
    p, q = p / R, q / R
    g = p - q
    most, least = counts
    up, down = (g * most, g * (k - least)) if g >= 0 else (-g * (k - least), -g * most)
    alpha = n * q * q + 2 * size * q * g + meet * g * g
    return GramForm(k, n, alpha, (size - meet) * g * g, up, down, True, "scalar", law)


class HRClosedForm(EpsAttained):
    """Closed forms of Hadamard Response (Acharya, Sun, Zhang 2019).

    Notes
    -----
    The LDP epsilon is eps: an output in C_x over one outside it (every pair of
    values has both kinds, k >= 2).

    Examples
    --------
    >>> round(HR(4, math.log(3)).closed_form.bayes_capacity(), 12)  # 2 e / (e + 1)
    1.5
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = Σ_y max_x C[x, y] = (2 / (K (e^eps + 1))) (e^eps U + K - U).

        U = |∪_x C_x| = K for k >= 3 (for any y, rows 1 and 2 with odd parity force row
        3 even), K - 1 for k = 2 (y = 3 is in neither set): ML = 2 e^eps / (e^eps + 1)
        for k >= 3 and (3 e^eps + 1) / (2 (e^eps + 1)) for k = 2.

        Examples
        --------
        >>> import qifldp as q
        >>> P = HR(2, 1.0)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        P = self._protocol
        E = math.exp(-P.eps)  # in 1/e^eps form: no overflow
        if P.k == 2:
            return (3 + E) / (2 * (1 + E))
        return 2 / (1 + E)

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin of :meth:`bayes_capacity`; ``eps`` may be a symbol.

        Examples
        --------
        >>> HR(5, 1.0).closed_form.symbolic_bayes_capacity(eps="e")
        2*exp(e)/(exp(e) + 1)
        """
        import sympy as sp

        P = self._protocol
        values = P._symbols(symbols, ("eps",))
        E = sp.exp(SymbolicParameters().take("eps", values["eps"], "eps"))
        if P.k == 2:
            return (3 * E + 1) / (2 * (E + 1))
        return 2 * E / (E + 1)


class CodewordOracle(NotLumpable):
    """An oracle whose report lands in a set of outputs per value: "supports v" w.p. p*
    = e^eps / (e^eps + 1) under v and 1/2 under any other value (HR, HE).

    Subclasses give :meth:`support_counts` and ``_holds(values, reports)`` (whether each
    report supports each value); the calibrated estimator, Wang et al.'s variance (of
    the base class) and the Bayes attack come from here.
    """

    __slots__ = ()

    @abc.abstractmethod
    def support_counts(self, reports: Any) -> np.ndarray:
        """C_v: how many reports support v, for every v."""

    @abc.abstractmethod
    def _check_reports(self, reports: Any) -> np.ndarray: ...

    @abc.abstractmethod
    def _holds(self, values: np.ndarray, reports: np.ndarray) -> np.ndarray:
        """(n, k) booleans: report i supports value v (``reports`` checked)."""

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies: f_v = (C_v / n - 1/2) / (e^eps / (e^eps + 1) - 1/2).

        Examples
        --------
        >>> P = HR(4, 2.0)
        >>> xs = np.repeat([0, 1, 2, 3], [4000, 3000, 2000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.4, 0.3, 0.2, 0.1]
        """
        a, b = self.support_probabilities()
        return calibrate(self.support_counts(reports), n_reports(reports), a, b, project=project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) = (e^eps / (e^eps + 1), 1/2).

        Examples
        --------
        >>> HR(3, 0.0).support_probabilities()
        (0.5, 0.5)
        """
        no_options("support_probabilities", options)
        return 1.0 / (1.0 + math.exp(-self.eps)), 0.5

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the values the report supports.

        Bayes-optimal under a uniform prior (those values have the largest likelihood).

        Examples
        --------
        >>> HR(3, 1.0).attack([3], rng=0).tolist()  # output 3 is in C_2 only
        [2]
        """
        return uniform_guesses(self._holds, self._check_reports(reports), self.k, rng)


@fill_doc(ORACLE_DOCS)
class HR(CodewordOracle):
    """Hadamard Response: report an output of the codeword set C_x w.p. e^eps / (e^eps + 1).

    Parameters
    ----------
    {k}
    {eps}

    Notes
    -----
    params : dict
        ``K`` (outputs 0..K-1), ``p`` = Pr[report y | y in C_x] = 2 e^eps / (K (e^eps + 1))
        and ``q`` = 2 / (K (e^eps + 1)).

    Examples
    --------
    >>> P = HR(3, math.log(3))
    >>> P.params["K"], round(P.params["p"], 12), round(P.params["q"], 12)
    (4, 0.375, 0.125)
    """

    __slots__ = ()
    _closed_form_type = HRClosedForm
    _not_lumpable = "a permutation does not map codeword sets to codeword sets"

    def __init__(self, k: int, eps: float) -> None:
        k, eps = check_k(k), check_eps(eps)
        K = hr_output_size(k)
        inside = 1.0 / (1.0 + math.exp(-eps))  # e^eps / (e^eps + 1)
        params = {"K": K, "p": 2 * inside / K, "q": 2 * (1 - inside) / K}
        self._freeze("hr", k, eps, params, {"eps": eps})

    def channel(self) -> Channel:
        """The k x K channel; outputs 0..K-1.

        Raises
        ------
        SizeError
            k K above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> HR(2, math.log(3)).channel().matrix.tolist()
        [[0.375, 0.125, 0.375, 0.125], [0.375, 0.375, 0.125, 0.125]]
        """
        k, K = self.k, self._params["K"]
        alt = "the closed forms protocol('hr', k, eps).closed_form (HR has no symmetric channel)"
        guard_size(f"hr({k}, {self.eps})", k, math.log10(K), lambda: K, alt)
        return Channel(self._rows(np.arange(k)))

    def gram_form(self) -> GramForm:
        """The exact Gram form of the channel, without building it (O(K log K)).

        Two codeword sets meet in K/4 outputs (rows x + 1 != x' + 1 of H_K are
        orthogonal), so A Aᵀ = alpha J + beta I (:func:`codeword_gram`: n = K, size
        K/2, meet K/4, p and q the stored floats, whose rows sum to 1 exactly:
        K/2 (p + q) = 1, 1 − p* being exact in floats). N(y) = #{x < k : H_K[x + 1, y]
        = +1} = (k + T[y]) / 2, T the Walsh-Hadamard transform of the indicator of the
        rows 1..k (:func:`fwht`).

        Returns
        -------
        qifldp.symmetric.posterior_mixing.GramForm
            Exact rationals, for
            :func:`qifldp.symmetric.posterior_mixing.posterior_mixing_from_gram`.

        Examples
        --------
        >>> G = HR(3, math.log(3)).gram_form()  # K = 4, p = 3/8, q = 1/8, N = (3, 1, 1, 1)
        >>> G.alpha, G.beta, G.up, G.down
        (Fraction(1, 4), Fraction(1, 16), Fraction(1, 4), Fraction(1, 2))
        """
        k, K = self.k, self._params["K"]
        rows = np.zeros(K)
        rows[1 : k + 1] = 1.0
        N = ((k + fwht(rows)) / 2).astype(np.int64)
        p, q = Fraction(self._params["p"]), Fraction(self._params["q"])
        law = f"hr({k}, {self.eps}): its channel, p and q its stored floats"
        return codeword_gram(k, K, K // 2, K // 4, p, q, count_extremes(N, k), law)

    def _rows(self, xs: np.ndarray) -> np.ndarray:
        """The rows of the channel at the values ``xs`` (one expression for every row)."""
        inside = hr_membership(xs[:, None], np.arange(self._params["K"]))
        return np.where(inside, self._params["p"], self._params["q"])

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        self._check_restricted(xs.size, self._params["K"], f"hr({self.k}, {self.eps})")
        return self._rows(xs), lambda cols: cols.tolist(), None

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """HR as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> HR(2, 1.0).symbolic(eps="e").matrix[0, 1]
        1/(2*(exp(e) + 1))
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        k, K = self.k, self._params["K"]
        guard_symbolic_size("hr", (k, "eps"), k, math.log10(K), lambda: K)
        P = SymbolicParameters()
        E = sp.exp(P.take("eps", values["eps"], "eps"))
        p, q = sp.Rational(2, K) * E / (E + 1), sp.Rational(2, K) / (E + 1)
        return two_valued_symbolic(P, hr_membership(np.arange(k)[:, None], np.arange(K)), p, q)

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """One output y in 0..K-1 per user (int64), vectorised.

        Notes
        -----
        A uniform y; if it is in C_x keep it w.p. e^eps / (e^eps + 1), else flip the bit
        of y at the lowest set bit of x + 1 (which moves y across the two halves); and
        the other way round. Both halves have K/2 outputs, so the report is uniform
        inside the chosen half (Acharya et al.'s coupling). O(n).

        Examples
        --------
        >>> P = HR(3, 60.0)
        >>> bool(np.all(hr_membership(np.array([0, 2]), P.sample([0, 2], rng=0))))
        True
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        K = self._params["K"]
        y = gen.integers(0, K, size=xs.size)
        want_inside = gen.random(xs.size) < 1.0 / (1.0 + math.exp(-self.eps))
        flip = hr_membership(xs, y) != want_inside
        low = (xs + 1) & -(xs + 1)  # the lowest set bit of x + 1
        return np.where(flip, y ^ low, y)

    def _check_reports(self, reports: Any) -> np.ndarray:
        return output_reports(reports, self._params["K"])

    def support_counts(self, reports: Any) -> np.ndarray:
        """C_v: how many reports fall in the codeword set C_v, for every v (one FWHT).

        Examples
        --------
        >>> HR(3, 1.0).support_counts([0, 1, 2, 3]).tolist()
        [2.0, 2.0, 2.0]
        """
        ys = self._check_reports(reports)
        K = self._params["K"]
        T = fwht(np.bincount(ys, minlength=K))  # T[r] = #inside - #outside for row r
        return (ys.size + T[1 : self.k + 1]) / 2

    def _holds(self, values: np.ndarray, reports: np.ndarray) -> np.ndarray:
        return hr_membership(values, reports[:, None])
