"""Hadamard encoding with t coefficients (pure-ldp's Hadamard mechanism, any t).

Cormode, Kulkarni, Srivastava: *Marginal release under local differential privacy*
(SIGMOD 2018), the Hadamard mechanism as pure-ldp's ``HadamardMechClient`` runs it with
t >= 1. K is the smallest power of two at least k; a user with value x draws t indices
j_1..j_t independently and uniformly from 0..K-1, forms the sign vector
h = (phi_{j_1}(x), ..., phi_{j_t}(x)), phi_j(x) = (-1)^|j & x|, and reports the t pairs
(j_c, s_c) with s = h w.p. e^eps / (e^eps + 2^t - 1) and otherwise one of the
2^t - 1 other sign vectors, uniformly (t-ary randomized response on the signs):

    Pr[(j, s) | x] = K^-t e^eps / (e^eps + 2^t - 1)  if s = h(j, x),
                     K^-t / (e^eps + 2^t - 1)        otherwise.

Each sign is then kept w.p. (e^eps + 2^(t-1) - 1) / (e^eps + 2^t - 1), so
E[s_c phi_{j_c}(v)] = a [x = v] with a = (e^eps - 1) / (e^eps + 2^t - 1), and
f̂_v = Σ_{users, c} s_c phi_{j_c}(v) / (n t a), from one Walsh-Hadamard transform of
the per-index sums (pure-ldp's server). t = 1 is :class:`~qifldp.protocols.he.HE`'s law.
pure-ldp's ``use_optimal_t`` takes t = ceil(log2(e^eps + 1)), the default here.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, check_size, guard_size
from ..errors import ParameterError, SizeError
from ..simulation import project_simplex
from ..simulation.util import as_array, as_rng, as_values, check_n
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.posterior_mixing import GramForm
from ..validation import check_eps, check_int
from .base import EpsAttained, NotLumpable, Rows, no_options
from .docstrings import ORACLE_DOCS, fill_doc
from .he import he_coefficient, interval_character_sums
from .hr import codeword_gram, fwht, uniform_guesses
from .params import check_k

if TYPE_CHECKING:
    import sympy as sp

__all__ = [
    "HEMulti",
    "HEMultiClosedForm",
    "affine_subspaces",
    "he_optimal_t",
    "rank_law",
    "smallest_cell",
    "MAX_T",
]

#: The largest number of coefficients (the sign vectors are coded in an int64).
MAX_T: int = 30

#: The most (index tuple, value) pairs the Bayes capacity enumerates.
MAX_CAPACITY_WORK: int = 10**8

#: The most (agree-set, coefficient) pairs one step of :meth:`HEMulti.merged_channel` forms.
MAX_MERGE_WORK: int = 2 * 10**7


def he_optimal_t(eps: float) -> int:
    """pure-ldp's optimal number of coefficients: t = ceil(log2(e^eps + 1)), at most MAX_T.

    Examples
    --------
    >>> he_optimal_t(0.5), he_optimal_t(1.0), he_optimal_t(3.0)
    (2, 2, 5)
    """
    eps = check_eps(eps)
    if eps >= MAX_T * math.log(2):
        return MAX_T
    return max(1, math.ceil(math.log2(math.exp(eps) + 1) - 1e-12))


def rank_law(t: int, m: int) -> dict[int, Fraction]:
    """Pr[rank = rho] of t vectors drawn uniformly from F_2^m, rho = 0..min(t, m): the
    Gaussian-binomial count Π_{i<rho} (2^t − 2^i)(2^m − 2^i) / (2^rho − 2^i) over 2^(t m).

    Examples
    --------
    >>> rank_law(2, 2)  # two vectors of F_2^2: both 0, rank 1 (9 of 16), rank 2 (6 of 16)
    {0: Fraction(1, 16), 1: Fraction(9, 16), 2: Fraction(3, 8)}
    """
    ranks = {}
    for rho in range(min(t, m) + 1):
        count = 1
        for i in range(rho):
            count *= (2**t - 2**i) * (2**m - 2**i)
        for i in range(rho):
            count //= 2**rho - 2**i
        ranks[rho] = Fraction(count, 2 ** (t * m))
    return ranks


def affine_subspaces(m: int, codim: int) -> int:
    """The number of affine subspaces of F_2^m of codimension at most ``codim``:
    Σ_{rho <= codim} 2^rho [m choose rho]_2 (the Gaussian binomial counts the subspaces
    of codimension rho, each with 2^rho cosets).

    Examples
    --------
    >>> affine_subspaces(2, 2)  # F_2^2: the plane, 3 directions x 2 lines, 4 points
    11
    """
    total = 0
    for rho in range(min(codim, m) + 1):
        count = 1
        for i in range(rho):
            count = count * (2 ** (m - i) - 1) // (2 ** (i + 1) - 1)
        total += count * 2**rho
    return total


def smallest_cell(k: int, t: int) -> int:
    """min over index tuples J in [0, K)^t and sign vectors s of #{x < k : h(J, x) = s},
    among the positive counts: 1 + (k − 1 with its t highest set bits cleared).

    Proof. A cell {x : phi_{J_c}(x) = s_c for every c} is an affine subspace U of
    F_2^m (K = 2^m > k - 1) of codimension r <= t, and every such U is a cell. Let
    F(m, t, k) be the smallest positive |U ∩ [0, k)|. If k <= 2^(m-1), [0, k) lies in
    the subspace H of top bit 0 and F(m, t, k) = F(m − 1, t, k). Else, with
    k' = k − 2^(m-1) and L = (phi_{J_c}): a cell meeting H only outside [0, k) (L(H)
    a proper subspace I, s outside it) counts #{x' < k' : L x' = s + L e_top}, a positive
    cell of L on H, of rank <= t − 1; a cell s in I counts 2^(m-1-r0) (r0 = dim I) plus its
    part above 2^(m-1): >= 2^(m-t) when r0 <= t − 1, and when r0 = t it is at least the
    count of the union of its top part with one other cell of L on [0, k'), a positive
    cell of a map of rank t − 1 (each cell of L within H has 2^(m-1-t) points). Both
    bounds are reached (the cell of the t − 1 best indices and the top bit; F(n, r, k')
    <= 2^(n-r) always), so F(m, t, k) = F(m − 1, t − 1, k'), F(m, 0, k) = k: reading the
    bits of k − 1 from the top, each set bit spends one coefficient. Checked against an
    enumeration of every J for K <= 64.

    Examples
    --------
    >>> smallest_cell(13, 1), smallest_cell(13, 2), smallest_cell(16, 2)  # 12 = 1100b
    (5, 1, 4)
    """
    r = k - 1
    for _ in range(t):
        if r == 0:
            break
        r &= ~(1 << (r.bit_length() - 1))
    return r + 1


class HEMultiClosedForm(EpsAttained):
    """Closed forms of Hadamard encoding with t coefficients (derived on its channel).

    Notes
    -----
    The LDP epsilon is eps: t copies of index 1 separate values 0 and 1 in every sign.

    Examples
    --------
    >>> round(HEMulti(2, math.log(3), t=2).closed_form.bayes_capacity(), 12)  # (4 + 2 * 7/4) / 6
    1.25
    """

    __slots__ = ()

    def distinct(self) -> Fraction:
        """The mean over the K^t index tuples j of N(j), the number of distinct sign
        vectors h(j, x) over the k values (enumerated).

        Raises
        ------
        SizeError
            K^t k above :data:`MAX_CAPACITY_WORK`.

        Examples
        --------
        >>> HEMulti(2, 1.0, t=2).closed_form.distinct()  # 3 of the 4 tuples separate 0 and 1
        Fraction(7, 4)
        """
        P = self._protocol
        k, t, K = P.k, P.params["t"], P.params["K"]
        work = K**t * k
        if work > MAX_CAPACITY_WORK:
            msg = (
                f"the Bayes capacity of he_multi(k={k}, t={t}) enumerates K^t k = {work} pairs "
                f"(limit {MAX_CAPACITY_WORK}); use fewer coefficients or a smaller k"
            )
            raise SizeError(msg)
        # code of h(j, x): bit c set when phi_{j_c}(x) = -1
        bits = (he_coefficient(np.arange(K)[:, None], np.arange(k)) < 0).astype(np.int64)
        codes = np.zeros((1, k), dtype=np.int64)
        for c in range(t):  # all K^c tuples so far, extended by one index
            codes = (codes[:, None, :] | (bits[None, :, :] << c)).reshape(-1, k)
        codes.sort(axis=1)
        total = int(codes.shape[0] + np.count_nonzero(codes[:, 1:] != codes[:, :-1]))
        return Fraction(total, K**t)

    def bayes_capacity(self) -> float:
        """ML = (2^t + (e^eps - 1) N̄) / (e^eps + 2^t - 1), N̄ of :meth:`distinct`.

        A column (j, s) has maximum e^eps K^-t / (e^eps + 2^t - 1) when s is the sign
        vector of some value, else K^-t / (e^eps + 2^t - 1).

        Examples
        --------
        >>> import qifldp as q
        >>> P = HEMulti(3, 1.0, t=2)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        P = self._protocol
        t, N = P.params["t"], float(self.distinct())
        E = math.exp(-P.eps)  # in 1/e^eps form
        return (2**t * E + (1 - E) * N) / (1 + (2**t - 1) * E)

    def bayes_capacity_bounds(self) -> tuple[Fraction, Fraction, str]:
        """Rational bounds (lo, hi) on the ML of the stored channel at any k and t, and why.

        With p the stored float and o = fl((1 - p) / (2^t - 1)) (as :meth:`HEMulti.channel`
        computes them), a column whose sign vector is the value's carries p / K^t and
        the others o / K^t, so with every row divided by its sum p + (2^t - 1) o,
        ML = (N̄ p + (2^t - N̄) o) / (p + (2^t - 1) o), which increases in N̄ (p >= o).
        N̄ is :meth:`distinct` where it enumerates, else 1 <= N̄ <= min(2^t, k): the t
        signs of one index tuple take at most 2^t values, over k values at most k. The
        channel as stored rounds each entry of a row after scaling it by one factor:
        divided by their exact row sums, its entries are within 2u/(1 - u) relative of
        those above, so lo and hi are widened by 2^-46 relative (far above 2u) and
        bound the stored channel's ML, rows over their exact sums, exactly.

        Examples
        --------
        >>> lo, hi, why = HEMulti(256, 2.0).closed_form.bayes_capacity_bounds()  # t = 4
        >>> round(float(hi), 6), why  # 16 e^2 / (e^2 + 15)
        (5.280477, 'each index tuple hits at most min(2^t, k) sign vectors')
        >>> cf = HEMulti(3, 1.0, t=2).closed_form  # enumerated: ML within 2^-45 relative
        >>> lo, hi, why = cf.bayes_capacity_bounds()
        >>> float(hi / lo - 1) < 2**-44, abs(float(hi) - cf.bayes_capacity()) < 1e-13
        (True, True)
        """
        P = self._protocol
        t, k, p = P.params["t"], P.k, P.params["p"]
        hit, off = Fraction(p), Fraction((1 - p) / (2**t - 1))
        try:
            lo_n = hi_n = self.distinct()
            why = "N̄, the mean number of distinct sign vectors, enumerated"
        except SizeError:
            lo_n, hi_n = Fraction(1), Fraction(min(2**t, k))
            why = "each index tuple hits at most min(2^t, k) sign vectors"

        def ml(n: Fraction) -> Fraction:
            return (n * hit + (2**t - n) * off) / (hit + (2**t - 1) * off)

        widen = Fraction(1, 2**46)
        return ml(lo_n) * (1 - widen), ml(hi_n) * (1 + widen), why

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin of :meth:`bayes_capacity`; ``eps`` may be a symbol.

        Examples
        --------
        >>> HEMulti(2, 1.0, t=2).closed_form.symbolic_bayes_capacity(eps="e")
        (7*exp(e)/4 + 9/4)/(exp(e) + 3)
        """
        import sympy as sp

        P = self._protocol
        values = P._symbols(symbols, ("eps",))
        E = sp.exp(SymbolicParameters().take("eps", values["eps"], "eps"))
        t, N = P.params["t"], sp.Rational(self.distinct())
        return (2**t + (E - 1) * N) / (E + 2**t - 1)


def _check_merge_work(what: str, work: int) -> None:
    """Refuse a step of :meth:`HEMulti.merged_channel` that forms more than
    :data:`MAX_MERGE_WORK` agree-sets.

    >>> _check_merge_work("he_multi(3, 1.0, t=2).merged_channel()", 64)
    """
    if work > MAX_MERGE_WORK:
        msg = (
            f"{what} would form {work} agree-sets in one step "
            f"(limit MAX_MERGE_WORK = {MAX_MERGE_WORK})"
        )
        raise SizeError(msg)


def _first_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, group) of the rows of a 2-D uint8 array (packed bits): the index of the first
    occurrence of each distinct row, in order of first occurrence, and each row's group.

    Examples
    --------
    >>> [a.tolist() for a in _first_rows(np.array([[3], [1], [3], [0]], dtype=np.uint8))]
    [[0, 1, 3], [0, 1, 0, 2]]
    """
    keys = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1])))[:, 0]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[np.asarray(inverse).reshape(-1)]


@fill_doc(ORACLE_DOCS)
class HEMulti(NotLumpable):
    """Hadamard encoding with t coefficients: t random Hadamard coefficients of the value,
    their signs through 2^t-ary randomized response.

    Parameters
    ----------
    {k}
    {eps}
    t : int, optional
        Coefficients per report, an integer in 1..MAX_T; default pure-ldp's optimal
        ceil(log2(e^eps + 1)).

    Notes
    -----
    params : dict
        ``t``, ``K`` (indices 0..K-1), ``p`` = e^eps / (e^eps + 2^t - 1) (the signs
        kept) and ``a`` = (e^eps - 1) / (e^eps + 2^t - 1) (the mean of a sign times the
        true coefficient).

    Examples
    --------
    >>> P = HEMulti(3, math.log(3), t=2)
    >>> P.params["K"], P.params["p"], P.channel().shape  # (2 K)^t outputs
    (4, 0.5, (3, 64))
    """

    __slots__ = ()
    _closed_form_type = HEMultiClosedForm
    _not_lumpable = "a permutation of the values does not keep the coefficients"

    def __init__(self, k: int, eps: float, t: int | None = None) -> None:
        k, eps = check_k(k), check_eps(eps)
        t = he_optimal_t(eps) if t is None else check_int("t", t, minimum=1, maximum=MAX_T)
        K = 1 << (k - 1).bit_length()  # the smallest power of two >= k
        E = math.exp(-eps)
        den = 1 + (2**t - 1) * E  # (e^eps + 2^t - 1) / e^eps
        params = {"t": t, "K": K, "p": 1 / den, "a": -math.expm1(-eps) / den}
        self._freeze("he_multi", k, eps, params, {"eps": eps, "t": t})

    # ---------------------------------------------------------------- channels
    def affine_column_classes(self) -> tuple[int, list[tuple[Fraction, Fraction, Fraction]]]:
        """The channel on the values 0..r-1 (r the largest power of two <= k) as column
        classes: per class (S, Mx, Mn), the sums over its columns of the column sums,
        maxima and minima, in exact rationals, each row divided by its exact sum.

        On r = 2^m values (a subspace of F_2^log2(K)) index j acts through j mod r,
        uniform, and an index tuple J of F_2-rank rho maps the values onto 2^rho sign
        vectors, r / 2^rho values each (a coset of J's kernel), and onto none of the other
        2^t - 2^rho. Of the t-tuples of F_2^m, Π_{i<rho} (2^t - 2^i)(2^m - 2^i) /
        (2^rho - 2^i) have rank rho (the Gaussian-binomial count). Column entries are
        the stored p / K^t and (1 - p) / (2^t - 1) / K^t of :meth:`channel`; rows sum
        to p + (2^t - 1) other, the same for every value. These r rows are invariant
        under the affine group of F_2^m acting on the values (it permutes the outputs),
        which is 2-transitive: :mod:`qifldp.protocols.structure.invariant_gains` uses this.

        Examples
        --------
        >>> r, classes = HEMulti(6, 1.0, t=2).affine_column_classes()  # r = 4
        >>> r, sum(S for S, _, _ in classes) == r  # every row sums to 1: Σ S = r
        (4, True)
        """
        r, hit, miss, ranks = self.affine_rank_law()
        t = self._params["t"]
        classes = []
        for rho, pr in ranks.items():
            n = r >> rho  # values per hit sign vector
            w = pr * 2**rho
            classes.append((w * (n * hit + (r - n) * miss), w * hit, w * (hit if n == r else miss)))
            if 2**t > 2**rho:
                w = pr * (2**t - 2**rho)
                classes.append((w * r * miss, w * miss, w * miss))
        return r, classes

    def affine_rank_law(self) -> tuple[int, Fraction, Fraction, dict[int, Fraction]]:
        """(r, hit, miss, Pr[rank]): the law of :meth:`affine_column_classes` on 0..r-1.

        ``hit`` and ``miss`` are the stored p and (1 - p) / (2^t - 1), each divided by the
        exact row sum p + (2^t - 1) miss (the factor K^-t of every entry left out: it
        cancels against the K^t index tuples); Pr[rank = rho] of t uniform vectors of
        F_2^m, rho = 0..min(t, m), by the Gaussian-binomial count.

        Examples
        --------
        >>> r, hit, miss, ranks = HEMulti(4, 1.0, t=2).affine_rank_law()
        >>> r, ranks  # two vectors of F_2^2: both 0 (1/16), rank 1 (9/16), rank 2 (6/16)
        (4, {0: Fraction(1, 16), 1: Fraction(9, 16), 2: Fraction(3, 8)})
        >>> hit + 3 * miss
        Fraction(1, 1)
        """
        m = self.k.bit_length() - 1
        hit, miss = self._hit_miss()
        return 1 << m, hit, miss, rank_law(self._params["t"], m)

    def _hit_miss(self) -> tuple[Fraction, Fraction]:
        """The stored p and (1 - p) / (2^t - 1) as rationals over their exact row sum."""
        t, p = self._params["t"], self._params["p"]
        hit, miss = Fraction(p), Fraction((1 - p) / (2**t - 1))
        row = hit + (2**t - 1) * miss
        return hit / row, miss / row

    def guess_law(self) -> tuple[int, Fraction, Fraction]:
        """(K, a, b): the channel of "report, then guess a value uniformly in the hit coset"
        on all K values, exactly: a on the diagonal, b off it (GRR-type).

        A report (J, s) whose sign vector s is hit (by the coset T of J's kernel through
        the values with h(J, x) = s, n = K / 2^rho values for J of rank rho) is answered by
        a value uniform in T; an unhit s (the column is constant) by a value uniform in
        0..K-1. On F_2^m (K = 2^m) the span of J is uniform among the subspaces of its
        dimension, so y != x lies in x's coset w.p. (n − 1) / (K − 1) and

            a = Σ_rho Pr[rho] (hit / n + u_rho),
            b = Σ_rho Pr[rho] (((n − 1) hit + (K − n) miss) / ((K − 1) n) + u_rho),

        with u_rho = (2^t − 2^rho) miss / K from the unhit sign vectors and ``hit``,
        ``miss`` as in :meth:`affine_rank_law`; a + (K − 1) b = 1. The rows
        of the channel with k < K values are the first k rows of the channel with K
        (the same K, t and p), so the first k rows of this law are reached from it too:
        :mod:`qifldp.protocols.structure.guess_mixing` mixes them into GRR-type channels.

        Examples
        --------
        >>> K, a, b = HEMulti(3, math.log(3), t=1).guess_law()  # HE: p = 3/4, K = 4
        >>> K, a, b, a + 3 * b  # j = 0 (1/4): 1/4 each; else (3/4): 3/8 at x, 1/8 elsewhere
        (4, Fraction(11, 32), Fraction(7, 32), Fraction(1, 1))
        """
        t, K = self._params["t"], self._params["K"]
        m = K.bit_length() - 1
        hit, miss = self._hit_miss()
        a, b = Fraction(0), Fraction(0)
        for rho, pr in rank_law(t, m).items():
            n = K >> rho
            uniform = (2**t - 2**rho) * miss / K
            a += pr * (hit / n + uniform)
            b += pr * (((n - 1) * hit + (K - n) * miss) / ((K - 1) * n) + uniform)
        return K, a, b

    def _outputs(self) -> list[tuple[tuple[int, int], ...]]:
        one = [(j, s) for j in range(self._params["K"]) for s in (-1, 1)]
        return list(itertools.product(one, repeat=self._params["t"]))

    def _size(self, symbolic: bool) -> None:
        k, K, t = self.k, self._params["K"], self._params["t"]
        log10_cols = t * math.log10(2 * K)
        if symbolic:
            guard_symbolic_size("he_multi", (k, "eps", t), k, log10_cols, lambda: (2 * K) ** t)
            return
        alt = "the closed forms protocol('he_multi', k, eps, t).closed_form (no symmetric channel)"
        guard_size(f"he_multi({k}, {self.eps}, t={t})", k, log10_cols, lambda: (2 * K) ** t, alt)

    def _agree(self) -> np.ndarray:
        """(k, (2K)^t) booleans: output o carries every true sign of value x."""
        K, t = self._params["K"], self._params["t"]
        js = np.repeat(np.arange(K), 2)
        ss = np.tile([-1, 1], K)
        one = he_coefficient(js, np.arange(self.k)[:, None]) == ss  # (k, 2K)
        agree = np.ones((self.k, 1), dtype=bool)
        for _ in range(t):
            agree = (agree[:, :, None] & one[:, None, :]).reshape(self.k, -1)
        return agree

    def channel(self) -> Channel:
        """The k x (2K)^t channel; outputs t-tuples of pairs (j, s).

        Raises
        ------
        SizeError
            k (2K)^t above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> C = HEMulti(2, math.log(3), t=2).channel()  # K = 2, den = 6 K^2
        >>> C.shape, C.outputs[0], round(float(C.matrix[0, 5]) * 24, 12)  # ((0, 1), (0, 1)): agrees
        ((2, 16), ((0, -1), (0, -1)), 3.0)
        """
        self._size(symbolic=False)
        K, t, p = self._params["K"], self._params["t"], self._params["p"]
        other = (1 - p) / (2**t - 1)
        M = np.where(self._agree(), p, other) / K**t
        return Channel(M, outputs=self._outputs())

    def gram_form(self) -> GramForm:
        """The exact Gram form of the (unmerged) channel, without building it (O(K log K)).

        Output (J, s), J in [0, K)^t, s in {±1}^t, has entry K^-t p where s = h(J, x)
        and K^-t q' otherwise (q' = (1 − p) / (2^t − 1) as the channel stores it), rows
        divided by their exact sum. Two values x != x' share their sign vector on
        (K/2)^t of the K^t index tuples (Pr_J[h(J, x) = h(J, x')] = 2^-t: the character of
        x xor x' is balanced over 0..K-1), so A Aᵀ = alpha J + beta I
        (:func:`~qifldp.protocols.hr.codeword_gram`: n = (2K)^t, size K^t, meet
        (K/2)^t): beta = K^-t (p − q')^2 (1 − 2^-t) after normalising. The counts
        N(J, s) = #{x < k : h(J, x) = s}: an index J_c != 0 gives N(J, s) <= #{x < k :
        phi_{J_c}(x) = s_c} <= N1 = max_{j != 0} (k + |S_j|) / 2 < k (phi_j is not constant
        on 0..k-1: x = 2^b < k for every bit b of j, K/2 < k), reached with J =
        (0, .., 0, j); J = (0, .., 0) gives k (s = +1..+1) or 0. So most = N1
        (:func:`~qifldp.protocols.he.interval_character_sums`) and least =
        :func:`smallest_cell`.

        Returns
        -------
        qifldp.symmetric.posterior_mixing.GramForm

        Examples
        --------
        >>> G = HEMulti(3, math.log(3), t=2).gram_form()  # K = 4, p = 1/2, q' = 1/6
        >>> G.n, round(float(G.beta) * 192, 12)  # K^-2 (1/3)^2 (3/4) = 1/192
        (64, 1.0)
        """
        k, K, t, p = self.k, self._params["K"], self._params["t"], self._params["p"]
        S = interval_character_sums(k, K)[1:]
        most = int((k + np.abs(S)).max()) // 2
        scale = Fraction(1, K**t)
        other = (1 - p) / (2**t - 1)
        law = (
            f"he_multi({k}, {self.eps}, t={t}): its channel, p / K^t and (1 − p) / (2^t − 1) "
            "/ K^t its stored floats, rows divided by their exact sum"
        )
        return codeword_gram(
            k,
            (2 * K) ** t,
            K**t,
            (K // 2) ** t,
            Fraction(p) * scale,
            Fraction(other) * scale,
            (most, smallest_cell(k, t)),
            law,
        )

    def merged_channel(self) -> Channel:
        """The channel with its equal columns merged: one output per agree-set, any t.

        The column of an output o = (j, s) is K^-t (p on A(o), the values whose sign
        vector is s, and (1 - p) / (2^t - 1) off it), so outputs with one agree-set
        A = ∩_c {x : phi_{j_c}(x) = s_c} have equal columns; merging them gives a channel
        equivalent to :meth:`channel` both ways (each refines the other: a merge and its
        split in proportion). A is an affine subspace of F_2^log2(K) met with 0..k-1 (or
        empty), so at most ~2.6e4 outputs at K = 64 whatever t, where the explicit channel
        has (2K)^t. The masses of the agree-sets are formed one coefficient at a time
        (the 2K pairs (j, s) of a coefficient are equally likely).

        Returns
        -------
        Channel
            k x (distinct agree-sets); output labels are the agree-sets as tuples of
            values (the empty tuple: no value's sign vector), column masses from the
            counts of the (2K)^t outputs, exact up to rounding.

        Raises
        ------
        SizeError
            A step past :data:`MAX_MERGE_WORK` (agree-sets x 2K) or the merged channel past
            :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> P = HEMulti(3, 1.0, t=2)
        >>> M, C = P.merged_channel(), P.channel()
        >>> M.shape, C.shape  # the 64 outputs of K = 4, t = 2 share 8 agree-sets
        ((3, 8), (3, 64))
        >>> col = C.outputs.index(((1, 1), (2, 1)))  # agree-set {0}
        >>> bool(np.isclose(M.matrix[0, M.outputs.index((0,))],
        ...      sum(C.matrix[0, i] for i, o in enumerate(C.outputs) if
        ...          {x for x in range(3) if all((-1) ** bin(j & x).count("1") == s
        ...           for j, s in o)} == {0})))
        True
        """
        k, K, t, p = self.k, self._params["K"], self._params["t"], self._params["p"]
        what = f"he_multi({k}, {self.eps}, t={t}).merged_channel()"
        # the 2K pairs (j, s) have 2K distinct agree-sets on 0..k-1 (K/2 < k: phi_j and
        # phi_j' differ there for j != j', and phi_j = -phi_j' nowhere as phi(0) = 1): at
        # least 2K outputs, and a second coefficient forms 2K x 2K agree-sets; both are
        # refused before the 2K x k coefficients are formed (2.6e9 bytes at k = 10^4)
        check_size(k, 2 * K, what)
        for step in range(min(t, 2)):
            _check_merge_work(what, (2 * K) ** (step + 1))
        # every affine subspace of codimension <= t of the first r = 2^m values is an
        # agree-set there, and distinct ones stay distinct on 0..k-1: refused before the
        # t merging steps when even that count is past the size rule (k = 1024, eps = 4:
        # 7.8e9 agree-sets, refused at once instead of after seconds of merging)
        m = k.bit_length() - 1
        check_size(k, affine_subspaces(m, min(t, m)), what)
        js = np.repeat(np.arange(K), 2)
        ss = np.tile([-1, 1], K)
        one = np.packbits(he_coefficient(js[:, None], np.arange(k)) == ss[:, None], axis=1)
        width = -(-one.shape[1] // 8) * 8  # whole uint64 words: rows compared as integers
        one = np.pad(one, ((0, 0), (0, width - one.shape[1])))
        masks = np.packbits(np.ones((1, k), dtype=bool), axis=1)
        masks = np.pad(masks, ((0, 0), (0, width - masks.shape[1])))
        mass: np.ndarray = np.ones(1)
        for _ in range(t):
            _check_merge_work(what, masks.shape[0] * 2 * K)
            both = (masks[:, None, :] & one[None, :, :]).reshape(-1, width)
            keys = np.ascontiguousarray(both).view(np.dtype((np.void, width)))[:, 0]
            uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            mass = np.bincount(inverse.ravel(), np.repeat(mass / (2 * K), 2 * K), len(uniq))
            masks = both[first]
        check_size(k, masks.shape[0], what)
        inside = np.unpackbits(masks, axis=1, count=k).astype(bool).T  # (k, sets)
        other = (1 - p) / (2**t - 1)
        M = np.where(inside, p, other) * (mass * 2**t)
        labels = [tuple(int(x) for x in np.flatnonzero(col)) for col in inside.T]
        return Channel(M, outputs=labels)

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        """The rows at ``xs``, one column per agree-set on ``xs`` (never the (2K)^t outputs).

        On row x, output o = ((j_1, s_1), ..., (j_t, s_t)) has entry p / K^t if x carries
        every sign s_c, else (1 - p) / (2^t - 1) / K^t (the expression of :meth:`channel`):
        its column on ``xs`` is fixed by its agree-set A(o) ∩ xs. The agree-sets are formed
        one coefficient at a time as in :meth:`merged_channel`, over the requested values
        only, with exact integer counts of the outputs in each (Python ints past 2^62) and
        the first output of :meth:`channel`'s order reaching it (its label: the pairs
        (j, s) of a coefficient are taken in order, the agree-sets of the previous step in
        the order of their first outputs, so the first occurrence is the least output).
        Merging these counted columns gives the bits of the merged default.

        Raises
        ------
        SizeError
            A step past :data:`MAX_MERGE_WORK` 64-bit words (agree-sets x distinct sign
            patterns of one coefficient on ``xs`` x words of a mask of ``xs``), or the
            rows past MAX_ENTRIES.
        """
        K, t, p = self._params["K"], self._params["t"], self._params["p"]
        r = xs.size
        js, ss = np.repeat(np.arange(K), 2), np.tile([-1, 1], K)
        one = np.packbits(he_coefficient(js[:, None], xs[None, :]) == ss[:, None], axis=1)
        first_pair, group = _first_rows(one)  # the 2K pairs' distinct sign patterns on xs
        pattern = one[first_pair]
        exact = object if (2 * K) ** t >= 2**62 else np.int64  # the counts' type
        mult = np.bincount(group).astype(exact)
        masks = np.packbits(np.ones((1, r), dtype=bool), axis=1)
        counts = np.ones(1, dtype=exact)
        prefix = np.zeros((1, 0), dtype=np.int64)  # the first output reaching each agree-set
        n_pat = pattern.shape[0]
        words = -(-r // 64)  # 64-bit words of a mask
        for _ in range(t):
            work = masks.shape[0] * n_pat
            if work * words > MAX_MERGE_WORK:
                msg = (
                    f"he_multi({self.k}, {self.eps}, t={t}).restricted() of {r} inputs would "
                    f"form {work} agree-sets of {words} words in one step (limit "
                    f"MAX_MERGE_WORK = {MAX_MERGE_WORK} words); use fewer inputs, or .closed_form"
                )
                raise SizeError(msg)
            both = (masks[:, None, :] & pattern[None, :, :]).reshape(work, -1)
            keep, group = _first_rows(both)
            counts_new = np.zeros(keep.size, dtype=exact)
            np.add.at(counts_new, group, (counts[:, None] * mult[None, :]).reshape(-1))
            counts, masks = counts_new, both[keep]
            prefix = np.hstack([prefix[keep // n_pat], first_pair[keep % n_pat][:, None]])
        masks = np.unpackbits(masks, axis=1, count=r).astype(bool)
        self._check_restricted(r, masks.shape[0], f"he_multi({self.k}, {self.eps}, t={t})")
        other = (1 - p) / (2**t - 1)
        rows = np.where(masks.T, p, other) / K**t

        def labels(cols: np.ndarray) -> list:
            return [tuple((i // 2, 2 * (i % 2) - 1) for i in prefix[c].tolist()) for c in cols]

        return rows, labels, counts

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """Hadamard encoding with t coefficients as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> HEMulti(2, 1.0, t=1).symbolic(eps="e").matrix[0, 1]
        exp(e)/(2*exp(e) + 2)
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        self._size(symbolic=True)
        P = SymbolicParameters()
        E = sp.exp(P.take("eps", values["eps"], "eps"))
        K, t = self._params["K"], self._params["t"]
        den = K**t * (E + 2**t - 1)
        keep, other = E / den, 1 / den
        agree = self._agree()
        rows = [[keep if a else other for a in row] for row in agree]
        return P.channel(rows, tuple(range(self.k)), tuple(self._outputs()))

    # ---------------------------------------------------------------- client and server
    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """t pairs (j, s) per user: an (n, t, 2) int64 array (pure-ldp's list of pairs).

        Notes
        -----
        The true signs are kept w.p. p; otherwise they are multiplied by the sign
        pattern of a uniform u in 1..2^t - 1 (bit c of u set: sign c negated), which is
        a uniform choice among the other 2^t - 1 sign vectors. O(n t).

        Examples
        --------
        >>> r = HEMulti(4, 60.0, t=3).sample([0, 3], rng=0)
        >>> r.shape, bool(np.all(r[:, :, 1] == he_coefficient(r[:, :, 0], np.array([[0], [3]]))))
        ((2, 3, 2), True)
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        K, t, p = self._params["K"], self._params["t"], self._params["p"]
        n = xs.size
        j = gen.integers(0, K, size=(n, t))
        keep = gen.random(n) < p
        u = np.where(keep, 0, gen.integers(1, 1 << t, size=n))
        flip = (u[:, None] >> np.arange(t)) & 1
        s = he_coefficient(j, xs[:, None]) * (1 - 2 * flip)
        return np.stack([j, s], axis=2)

    def _check_reports(self, reports: Any) -> np.ndarray:
        arr = as_array(reports, "reports")
        K, t = self._params["K"], self._params["t"]
        shape_ok = arr.ndim == 3 and arr.shape[0] > 0 and arr.shape[1:] == (t, 2)
        if not shape_ok or arr.dtype.kind not in "iu":
            msg = (
                f"reports must be a non-empty (n, t = {t}, 2) integer array of pairs (j, s), "
                f"got shape {arr.shape} of {arr.dtype}"
            )
            raise ParameterError(msg)
        arr = arr.astype(np.int64)
        j, s = arr[:, :, 0], arr[:, :, 1]
        if j.min() < 0 or j.max() >= K:
            msg = f"reports must have indices j in 0..{K - 1}, got {j.min()}..{j.max()}"
            raise ParameterError(msg)
        if not np.all(np.abs(s) == 1):
            msg = "reports must have signs s in (-1, 1)"
            raise ParameterError(msg)
        return arr

    def coefficient_sums(self, reports: Any) -> np.ndarray:
        """Σ over the reports and their t pairs of s phi_j(v), for every v (one FWHT).

        Examples
        --------
        >>> HEMulti(3, 1.0, t=2).coefficient_sums([[[1, 1], [2, -1]]]).tolist()
        [0.0, -2.0, 2.0]
        """
        return self._sums(self._check_reports(reports))

    def _sums(self, arr: np.ndarray) -> np.ndarray:
        K = self._params["K"]
        sums = np.bincount(arr[:, :, 0].ravel(), weights=arr[:, :, 1].ravel(), minlength=K)
        return fwht(sums)[: self.k]

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies: f̂_v = Σ s phi_j(v) / (n t a) (:meth:`coefficient_sums`).

        Raises ParameterError at eps = 0 (a = 0: the signs carry no information).

        Examples
        --------
        >>> P = HEMulti(4, 2.0, t=2)
        >>> xs = np.repeat([0, 1, 2, 3], [4000, 3000, 2000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.4, 0.3, 0.2, 0.1]
        """
        if self.eps == 0:
            msg = "eps = 0: the signs carry no information, no estimate"
            raise ParameterError(msg)
        arr = self._check_reports(reports)
        f = self._sums(arr) / (arr.shape[0] * self._params["t"] * self._params["a"])
        return project_simplex(f) if project else f

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) of one pair (j, s): Pr[s = phi_j(v) | v] = (e^eps + 2^(t-1) - 1) /
        (e^eps + 2^t - 1), and 1/2 under another value.

        The t pairs of a report are not independent (one randomized response on all the
        signs): :meth:`variance` is not Wang et al.'s form in these (p*, q*).

        Examples
        --------
        >>> p, q = HEMulti(3, math.log(3), t=2).support_probabilities()
        >>> round(p, 12), q  # (3 + 1) / (3 + 3)
        (0.666666666667, 0.5)
        """
        no_options("support_probabilities", options)
        return (1 + self._params["a"]) / 2, 0.5

    def variance(self, n: int, f: Any = None, **options: Any) -> np.ndarray | float:
        """Var[f̂_v] = [1 / (t a²) + f_v ((t - 1) / (t a) - 1)] / n.

        A user's term W = Σ_c s_c phi_{j_c}(v) has E[W²] = t + t (t - 1) a [x = v] (two
        signs' noises correlate by E[ε_c ε_c'] = a, the true coefficients of another
        value are independent signs) and E[W] = t a [x = v]. ``f``: the k true
        frequencies; without them, a value of frequency 0.

        Examples
        --------
        >>> P = HEMulti(3, math.log(3), t=2)  # a = 1/3: 1 / (2 a^2) = 4.5
        >>> round(P.variance(1), 12)
        4.5
        """
        no_options("variance", options)
        n = check_n(n)
        if self.eps == 0:
            msg = "eps = 0: the estimator is undefined (infinite variance)"
            raise ParameterError(msg)
        t, a = self._params["t"], self._params["a"]
        if f is None:
            return 1 / (t * a * a * n)
        freq = np.asarray(f, dtype=float)
        if freq.shape != (self.k,):
            msg = f"f must hold the k = {self.k} true frequencies, got shape {freq.shape}"
            raise ParameterError(msg)
        return (1 / (t * a * a) + freq * ((t - 1) / (t * a) - 1)) / n

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the values whose coefficients all match the report's
        signs (any value if none): Bayes-optimal under a uniform prior.

        Examples
        --------
        >>> HEMulti(3, 1.0, t=2).attack([[[1, -1], [2, 1]]], rng=0).tolist()  # only x = 1
        [1]
        """

        def holds(values: np.ndarray, chunk: np.ndarray) -> np.ndarray:
            return np.all(he_coefficient(chunk[:, :, :1], values) == chunk[:, :, 1:], axis=1)

        arr = self._check_reports(reports)
        return uniform_guesses(holds, arr, self.k, rng, width=self._params["t"])
