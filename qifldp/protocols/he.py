"""Hadamard encoding (HE) as a protocol object: one Hadamard coefficient, randomized.

pure-ldp's Hadamard mechanism with one coefficient (``t = 1``; Cormode, Kulkarni,
Srivastava: *Marginal release under local differential privacy*, SIGMOD 2018).
K is the smallest power of two at least k; a user with value x draws an index j
uniformly from 0..K-1 and reports (j, s) with s the coefficient phi_j(x) = (-1)^|j & x|
of the Sylvester-Hadamard matrix H_K, kept w.p. e^eps / (e^eps + 1) and negated
otherwise:

    Pr[(j, s) | x] = e^eps / (K (e^eps + 1))  if s = phi_j(x),   1 / (K (e^eps + 1))  otherwise.

A report supports v when s = phi_v(j): w.p. p* = e^eps / (e^eps + 1) under v, 1/2
under any other value (half of the indices separate two values), so the calibrated
estimator and Wang et al.'s variance apply; the support counts of every value come
from one fast Walsh-Hadamard transform of the per-index sums (O(n + K log K)), which
is pure-ldp's server. j = 0 (phi_0 = 1 for every value) is drawn as in pure-ldp: it
carries no information.

Not permutation-invariant (the coefficients are not), so no symmetric channel; the
closed forms need none: ML = (1 + 2 (K - 1) e^eps / (e^eps + 1)) / K, eps exact.

Histogram encoding's summation variant (SHE: the one-hot vector plus Laplace noise of
scale 2/eps on every coordinate, Wang et al., USENIX Security 2017) has continuous
outputs: :mod:`qifldp.protocols.she` (``protocol("she", k, eps)``) gives its exact
privacy profile, its true eps (eps) and Bayes capacity, and its discretisation by
binning each coordinate (an exact channel with a stated capacity error); THE
(``protocol("the", k, eps, theta)``) is the discretisation with one cut at theta.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..simulation.util import as_rng, as_values
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.posterior_mixing import GramForm
from ..validation import check_eps
from .base import EpsAttained, Rows, integer_reports, no_options
from .docstrings import ORACLE_DOCS, fill_doc
from .hr import CodewordOracle, codeword_gram, count_extremes, fwht
from .params import check_k

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["HE", "HEClosedForm", "he_coefficient", "interval_character_sums"]


def he_coefficient(js: Any, xs: Any) -> np.ndarray:
    """phi_j(x) = (-1)^|j & x|, broadcast over integer arrays (int64, +1 or -1).

    Examples
    --------
    >>> he_coefficient(np.arange(4)[:, None], np.arange(4)).tolist()
    [[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]]
    """
    both = np.bitwise_and(np.asarray(js, dtype=np.int64), np.asarray(xs, dtype=np.int64))
    return 1 - 2 * (np.bitwise_count(both).astype(np.int64) & 1)


def interval_character_sums(k: int, K: int) -> np.ndarray:
    """S_j = Σ_{x < k} phi_j(x) for j in 0..K-1: one Walsh-Hadamard transform of the
    indicator of 0..k-1 (exact integers).

    #{x < k : phi_j(x) = ±1} = (k ± S_j) / 2.

    Examples
    --------
    >>> interval_character_sums(3, 4).tolist()
    [3, 1, 1, -1]
    """
    v = np.zeros(K)
    v[:k] = 1.0
    return fwht(v).astype(np.int64)


class HEClosedForm(EpsAttained):
    """Closed forms of Hadamard encoding (derived on its channel).

    Notes
    -----
    The LDP epsilon is eps: index 1 separates values 0 and 1 (p / (1 - p) = e^eps).

    Examples
    --------
    >>> round(HE(4, math.log(3)).closed_form.bayes_capacity(), 12)  # (1 + 3 * 1.5) / 4
    1.375
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = (1 + 2 (K - 1) p) / K, p = e^eps / (e^eps + 1).

        Index 0 gives every value the coefficient +1 (its two outputs sum to 1); every
        other index j separates two values below k (x = the lowest set bit of j, and
        x = 0), so both of its outputs have maximum p / K.

        Examples
        --------
        >>> HE(5, math.log(3)).closed_form.bayes_capacity()  # K = 8, p = 3/4
        1.4375
        """
        P = self._protocol
        K = P.params["K"]
        return (1 + 2 * (K - 1) * P.params["p"]) / K

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin of :meth:`bayes_capacity`; ``eps`` may be a symbol.

        Examples
        --------
        >>> HE(4, 1.0).closed_form.symbolic_bayes_capacity(eps="e")
        1/4 + 3*exp(e)/(2*(exp(e) + 1))
        """
        import sympy as sp

        P = self._protocol
        values = P._symbols(symbols, ("eps",))
        E = sp.exp(SymbolicParameters().take("eps", values["eps"], "eps"))
        K = P.params["K"]
        return sp.Rational(1, K) + sp.Rational(2 * (K - 1), K) * E / (E + 1)


@fill_doc(ORACLE_DOCS)
class HE(CodewordOracle):
    """Hadamard encoding: a random Hadamard coefficient of the value, kept w.p. e^eps / (e^eps + 1).

    {parameters}

    Notes
    -----
    params : dict
        ``K`` (indices 0..K-1) and ``p`` = e^eps / (e^eps + 1), the probability that
        the reported coefficient is the true one.

    Examples
    --------
    >>> P = HE(3, math.log(3))
    >>> P.params["K"], P.params["p"], P.channel().shape
    (4, 0.75, (3, 8))
    """

    __slots__ = ()
    _closed_form_type = HEClosedForm
    _not_lumpable = "a permutation of the values does not keep the coefficients"

    def __init__(self, k: int, eps: float) -> None:
        k, eps = check_k(k), check_eps(eps)
        K = 1 << (k - 1).bit_length()  # the smallest power of two >= k
        params = {"K": K, "p": 1.0 / (1.0 + math.exp(-eps))}
        self._freeze("he", k, eps, params, {"eps": eps})

    def _outputs(self) -> list[tuple[int, int]]:
        return [(j, s) for j in range(self._params["K"]) for s in (-1, 1)]

    def _size(self, symbolic: bool) -> None:
        k, K = self.k, self._params["K"]
        if symbolic:
            guard_symbolic_size("he", (k, "eps"), k, math.log10(2 * K), lambda: 2 * K)
            return
        alt = "the closed forms protocol('he', k, eps).closed_form (HE has no symmetric channel)"
        guard_size(f"he({k}, {self.eps})", k, math.log10(2 * K), lambda: 2 * K, alt)

    def channel(self) -> Channel:
        """The k x 2K channel; outputs (j, s), j in 0..K-1, s in (-1, +1).

        Raises
        ------
        SizeError
            2 k K above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> HE(2, math.log(3)).channel().matrix.tolist()
        [[0.125, 0.375, 0.125, 0.375], [0.125, 0.375, 0.375, 0.125]]
        """
        self._size(symbolic=False)
        return Channel(self._rows(np.arange(self.k)), outputs=self._outputs())

    def gram_form(self) -> GramForm:
        """The exact Gram form of the channel, without building it (O(K log K)).

        S_x = {(j, phi_j(x))}: K outputs, and two values agree on K/2 indices (the
        character of x xor x' != 0 is balanced over 0..K-1), so A Aᵀ = alpha J + beta I
        (:func:`~qifldp.protocols.hr.codeword_gram`: n = 2K, size K, meet K/2, entries
        p / K and (1 − p) / K as stored, rows summing to 1 exactly). N(j, ±1) =
        (k ± S_j) / 2 (:func:`interval_character_sums`).

        Returns
        -------
        qifldp.symmetric.posterior_mixing.GramForm

        Examples
        --------
        >>> G = HE(3, math.log(3)).gram_form()  # K = 4, p = 3/4: (p - q) / K = 1/8
        >>> G.beta, G.up, G.down  # (K/2) / 64; N = 2 at most below k, 1 at least: 2/8, 2/8
        (Fraction(1, 32), Fraction(1, 4), Fraction(1, 4))
        """
        k, K, p = self.k, self._params["K"], self._params["p"]
        S = interval_character_sums(k, K)
        N = np.concatenate([(k + S) // 2, (k - S) // 2])
        a, b = Fraction(p) / K, Fraction(1 - p) / K  # the stored entries (K a power of two)
        law = f"he({k}, {self.eps}): its channel, p / K and (1 − p) / K its stored floats"
        return codeword_gram(k, 2 * K, K, K // 2, a, b, count_extremes(N, k), law)

    def _rows(self, xs: np.ndarray) -> np.ndarray:
        """The rows of the channel at the values ``xs``; columns in :meth:`_outputs`' order."""
        p, K = self._params["p"], self._params["K"]
        js, ss = np.repeat(np.arange(K), 2), np.tile([-1, 1], K)
        agree = he_coefficient(js, xs[:, None]) == ss
        return np.where(agree, p, 1 - p) / K

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        self._check_restricted(xs.size, 2 * self._params["K"], f"he({self.k}, {self.eps})")
        return self._rows(xs), lambda cols: [(c // 2, 2 * (c % 2) - 1) for c in cols.tolist()], None

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """HE as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> HE(2, 1.0).symbolic(eps="e").matrix[0, 1]
        exp(e)/(2*exp(e) + 2)
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        self._size(symbolic=True)
        P = SymbolicParameters()
        E = sp.exp(P.take("eps", values["eps"], "eps"))
        K = self._params["K"]
        keep, flip = E / (K * (E + 1)), 1 / (K * (E + 1))
        outs = self._outputs()
        rows = [
            [keep if he_coefficient(j, x) == s else flip for j, s in outs] for x in range(self.k)
        ]
        return P.channel(rows, tuple(range(self.k)), tuple(outs))

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """One report (j, s) per user: an (n, 2) int64 array (pure-ldp's pairs).

        Examples
        --------
        >>> r = HE(4, 60.0).sample([0, 3], rng=0)
        >>> bool(np.all(r[:, 1] == he_coefficient(r[:, 0], [0, 3])))
        True
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        j = gen.integers(0, self._params["K"], size=xs.size)
        keep = gen.random(xs.size) < self._params["p"]
        s = he_coefficient(j, xs) * np.where(keep, 1, -1)
        return np.stack([j, s], axis=1)

    def _check_reports(self, reports: Any) -> np.ndarray:
        bounds = ((0, self._params["K"]),)
        return integer_reports(reports, 2, "pairs (j, s)", bounds=bounds, sign=1)

    def support_counts(self, reports: Any) -> np.ndarray:
        """C_v: how many reports have s = phi_j(v), for every v (one FWHT of the index sums).

        Examples
        --------
        >>> HE(3, 1.0).support_counts([[1, 1], [1, -1], [3, -1]]).tolist()
        [1.0, 2.0, 2.0]
        """
        arr = self._check_reports(reports)
        sums = np.bincount(arr[:, 0], weights=arr[:, 1], minlength=self._params["K"])
        T = fwht(sums)  # T[v] = #agreeing - #disagreeing with phi(v)
        return (arr.shape[0] + T[: self.k]) / 2

    def _holds(self, values: np.ndarray, reports: np.ndarray) -> np.ndarray:
        return he_coefficient(reports[:, :1], values) == reports[:, 1:]
