"""Hadamard Response with blocks: Acharya, Sun, Zhang's scheme for every privacy regime.

Acharya, Sun, Zhang: *Hadamard Response: Estimating Distributions Privately,
Efficiently, and with Little Communication* (AISTATS 2019), the general-eps scheme, as
the authors' own code implements it (``Hadamard_Rand_general_original``, which pure-ldp
runs for eps > 1). The simple HR (:mod:`.hr`, codeword sets of half of all K outputs)
is the best for eps <= 1; beyond, the outputs are cut in B blocks:

* B = 2^floor(log2 min(e^eps, 2k)) blocks (``B`` may be given), each of b outputs, b
  the smallest power of two with (b - 1) B >= k; K = B b outputs, y = block * b + pos.
* Value x lives in block x // (b - 1), at row r = x mod (b - 1) + 1 of H_b; its set
  S_x holds the b/2 outputs of its block whose position has an even parity with r.
* Pr[y | x] = 2 e^eps / (b D) if y in S_x, 2 / (b D) otherwise, D = e^eps + 2B - 1:
  the paper's e^eps / (s e^eps + K - s) and 1 / (s e^eps + K - s) with s = b/2.

Sampling: uniform over the K outputs w.p. 2B / D, else uniform over S_x (the coupling
of :class:`~qifldp.protocols.hr.HR` inside the block). Estimation: the score of a
report for v is +1 in S_v, -1 in the rest of v's block, 0 elsewhere; its mean is
(e^eps - 1) f_v / D, so f̂_v = D / ((e^eps - 1) n) Σ score, the scores of all values
from one Walsh-Hadamard transform per block (the authors' estimator: their
``dist_inter - dist_block`` is this sum). B = 1 is the simple HR.

pure-ldp also relabels the values by a random permutation before encoding (a row
permutation of the channel, which changes no leakage measure); qifldp uses the
identity labelling. Not invariant under permutations of the values (the blocks and
codewords are not), so no symmetric channel, except with b = 2 outputs per block (one
value per block: B >= k, e.g. eps = 8 up to k = 2048): then every value has its own
output and the others are constant, a GRR-type symmetric channel with a class of size 0.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..errors import ParameterError
from ..simulation import project_simplex
from ..simulation.util import as_rng, as_values, check_n
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric import SymmetricChannel
from ..symmetric.block_mixing import BlockGramForm
from ..symmetric.posterior_mixing import GramForm
from ..validation import check_eps, check_int
from .base import EpsAttained, Protocol, Rows, no_options
from .docstrings import ORACLE_DOCS, fill_doc
from .hr import (
    codeword_gram,
    count_extremes,
    fwht,
    output_reports,
    two_valued_symbolic,
    uniform_guesses,
)
from .params import check_k

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["HRBlock", "HRBlockClosedForm", "hr_blocks", "hr_block_size"]


def hr_blocks(k: int, eps: float) -> int:
    """The paper's number of blocks: B = 2^floor(log2 min(e^eps, 2k)).

    Examples
    --------
    >>> hr_blocks(100, 1.0), hr_blocks(100, 3.0), hr_blocks(3, 5.0)
    (2, 16, 4)
    """
    k, eps = check_k(k), check_eps(eps)
    log2 = min(eps / math.log(2), math.log2(2 * k))
    return 1 << math.floor(log2 + 1e-12)  # e^eps a power of two: that power


def hr_block_size(k: int, B: int) -> int:
    """b: the smallest power of two with (b - 1) B >= k (rows 1..b-1 of H_b hold values).

    Examples
    --------
    >>> hr_block_size(100, 16), hr_block_size(3, 1), hr_block_size(4, 4)
    (8, 4, 2)
    """
    b = 2
    while (b - 1) * B < k:
        b *= 2
    return b


def _same_parity(r: Any, pos: Any) -> np.ndarray:
    """Whether the parity of r & pos is even (H_b[r, pos] = +1)."""
    both = np.bitwise_and(np.asarray(r, dtype=np.int64), np.asarray(pos, dtype=np.int64))
    return (np.bitwise_count(both) & 1) == 0


class HRBlockClosedForm(EpsAttained):
    """Closed forms of Hadamard Response with blocks (derived on its channel).

    Notes
    -----
    The LDP epsilon is eps: an output of S_x outside S_x' (there is one for every
    pair of values) has likelihood ratio e^eps, and no ratio is larger.

    Examples
    --------
    >>> P = HRBlock(5, math.log(3), B=2)  # b = 4, D = 6, U / b = 7/4
    >>> round(P.closed_form.bayes_capacity(), 12)  # (4 + 4 * 7/4) / 6
    1.833333333333
    """

    __slots__ = ()

    def covered(self) -> Fraction:
        """U / b: the outputs in some value's set, in units of a block.

        A block holding m values covers b/2 outputs (m = 1), 3b/4 (m = 2: positions with
        bits 0 and 1 both odd are in neither set) or all b (m >= 3: the parities of rows
        1, 2 and 3 cannot all be odd).

        Examples
        --------
        >>> HRBlock(5, 2.0, B=2).closed_form.covered()  # blocks of 3 and 2 values
        Fraction(7, 4)
        """
        P = self._protocol
        k, per = P.k, P.params["b"] - 1
        full, rest = divmod(k, per)
        share = {0: Fraction(0), 1: Fraction(1, 2), 2: Fraction(3, 4)}
        return full * share.get(per, Fraction(1)) + share.get(rest, Fraction(1))

    def bayes_capacity(self) -> float:
        """ML = (2B + 2 (e^eps - 1) U / b) / (e^eps + 2B - 1), U / b of :meth:`covered`.

        Each output's column maximum is 2 e^eps / (b D) when it lies in some set, else
        2 / (b D); B = 1, k >= 3 gives the simple HR's 2 e^eps / (e^eps + 1).

        Examples
        --------
        >>> import qifldp as q
        >>> P = HRBlock(6, 2.0)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        P = self._protocol
        B, u = P.params["B"], float(self.covered())
        E = math.exp(-P.eps)  # in 1/e^eps form: no overflow
        return (2 * B * E + 2 * (1 - E) * u) / (1 + (2 * B - 1) * E)

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin of :meth:`bayes_capacity`; ``eps`` may be a symbol.

        Examples
        --------
        >>> HRBlock(5, 1.0, B=2).closed_form.symbolic_bayes_capacity(eps="e")
        (7*exp(e)/2 + 1/2)/(exp(e) + 3)
        """
        import sympy as sp

        P = self._protocol
        values = P._symbols(symbols, ("eps",))
        E = sp.exp(SymbolicParameters().take("eps", values["eps"], "eps"))
        B, u = P.params["B"], sp.Rational(self.covered())
        return (2 * B + 2 * (E - 1) * u) / (E + 2 * B - 1)


@fill_doc(ORACLE_DOCS)
class HRBlock(Protocol):
    """Hadamard Response with B blocks: an output of the value's set w.p. e^eps / D
    (D = e^eps + 2B - 1), else uniform.

    Parameters
    ----------
    {k}
    {eps}
    B : int, optional
        Blocks, an integer in 1..2k; default the paper's 2^floor(log2 min(e^eps, 2k)).

    Notes
    -----
    params : dict
        ``B``, ``b`` (outputs per block), ``K`` = B b, ``p`` = 2 e^eps / (b D) (an output
        of the value's set) and ``q`` = 2 / (b D) (any other output).

    Examples
    --------
    >>> P = HRBlock(6, 3.0)
    >>> P.params["B"], P.params["b"], P.params["K"], P.channel().shape
    (8, 2, 16, (6, 16))
    """

    __slots__ = ()
    _closed_form_type = HRBlockClosedForm

    def __init__(self, k: int, eps: float, B: int | None = None) -> None:
        k, eps = check_k(k), check_eps(eps)
        B = hr_blocks(k, eps) if B is None else check_int("B", B, minimum=1, maximum=2 * k)
        b = hr_block_size(k, B)
        E = math.exp(-eps)
        D = 1 + (2 * B - 1) * E  # D / e^eps
        params = {"B": B, "b": b, "K": B * b, "p": 2 / (b * D), "q": 2 * E / (b * D)}
        self._freeze("hr_block", k, eps, params, {"eps": eps, "B": B})

    def _lumping_refusal(self) -> str | None:
        if self._params["b"] == 2:
            return None
        return (
            "a permutation does not map the blocks' codeword sets to codeword sets (with "
            "b = 2 outputs per block, one value in each, it does)"
        )

    def symmetric(self) -> SymmetricChannel:
        """HR with blocks of b = 2 outputs as a symmetric channel: sizes 0 and 1.

        Value x sits alone in block x; its set is the block's first output, 2x. So
        output 2x singles out x (p on x, q elsewhere) and the K - k other outputs are
        q on every value: P_in(1) = p, P_out(1) = (k - 1) q, P_out(0) = (K - k) q,
        p / q = e^eps (the stated eps is attained).

        Raises
        ------
        UnsupportedKindError
            b > 2 (a block holds several values).

        Examples
        --------
        >>> import qifldp as q
        >>> S = HRBlock(1000, 8.0).symmetric()  # B = 2048 blocks of 2 outputs
        >>> S.sizes.tolist(), round(q.ldp_epsilon(S), 12)
        ([0, 1], 8.0)
        """
        self._refuse_unless_lumpable()
        k, K, p, q = self.k, self._params["K"], self._params["p"], self._params["q"]
        lp, lq = math.log(p), math.log(q)
        return SymmetricChannel._make(
            k,
            [0, 1],
            [-math.inf, lp],
            [math.log(K - k) + lq, math.log(k - 1) + lq],
            f"hr_block(k={k}, eps={self.eps:g}, B={self._params['B']})",
            ("subsets",),
            log_ratio=self.eps,
            exact_log_ratio=self.eps,
        )

    # ---------------------------------------------------------------- the code
    def _placement(self, xs: Any) -> tuple[np.ndarray, np.ndarray]:
        """(block, row r of H_b) of each value."""
        per = self._params["b"] - 1
        xs = np.asarray(xs, dtype=np.int64)
        return xs // per, xs % per + 1

    def members(self, xs: Any, ys: Any) -> np.ndarray:
        """Whether output y is in the set S_x (broadcast over integer arrays).

        Examples
        --------
        >>> HRBlock(3, 1.0, B=2).members(  # b = 4: rows 1, 2, 3 of block 0
        ...     np.arange(3)[:, None], np.arange(8)
        ... ).astype(int).tolist()
        [[1, 0, 1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0, 0, 0]]
        """
        b = self._params["b"]
        block, r = self._placement(xs)
        ys = np.asarray(ys, dtype=np.int64)
        return (ys // b == block) & _same_parity(r, ys % b)

    def _size(self, symbolic: bool) -> None:
        k, K, B = self.k, self._params["K"], self._params["B"]
        if symbolic:
            guard_symbolic_size("hr_block", (k, "eps", B), k, math.log10(K), lambda: K)
            return
        alt = "the closed forms protocol('hr_block', k, eps).closed_form (no symmetric channel)"
        guard_size(f"hr_block({k}, {self.eps}, B={B})", k, math.log10(K), lambda: K, alt)

    def channel(self) -> Channel:
        """The k x K channel; outputs 0..K-1 (block * b + position).

        Raises
        ------
        SizeError
            k K above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> (HRBlock(2, math.log(3), B=2).channel().matrix * 6).round(12).tolist()  # D = 6
        [[3.0, 1.0, 1.0, 1.0], [1.0, 1.0, 3.0, 1.0]]
        """
        self._size(symbolic=False)
        return Channel(self._rows(np.arange(self.k)))

    def gram_form(self) -> GramForm | None:
        """The exact Gram form of the channel where A Aᵀ is alpha J + beta I, else None.

        S_x has b/2 outputs; two values in one block share b/4 of them (rows of H_b),
        in two blocks none. So the Gram matrix has one off-diagonal value iff all values
        share block 0 (k <= b − 1: B = 1 is HR, and so is the block 0 of any B) or each
        block holds one value (b = 2); otherwise it has two and None is returned. Then
        :func:`~qifldp.protocols.hr.codeword_gram` with n = K, size b/2, meet b/4 (one
        block) or 0 (b = 2), p and q the stored floats, rows divided by their exact sum;
        N(y) per block from the Walsh-Hadamard transform of the indicator of the rows it
        holds, one transform for all full blocks (O(K + b log b)).

        Returns
        -------
        qifldp.symmetric.posterior_mixing.GramForm or None

        Examples
        --------
        >>> HRBlock(6, 3.0).gram_form().up > 0  # B = 8, b = 2: one value per block
        True
        >>> HRBlock(8, 2.0).gram_form() is None  # B = 4, b = 4: three values per block
        True
        """
        k, B, b, K = self.k, self._params["B"], self._params["b"], self._params["K"]
        per = b - 1
        if k > per and b != 2:
            return None
        N = np.zeros((B, b), dtype=np.int64)
        full, rest = divmod(k, per)  # blocks holding per values, and the last one's
        N[:full] = self._block_counts(per)
        if rest:
            N[full] = self._block_counts(rest)
        meet = b // 4 if k <= per else 0
        p, q = Fraction(self._params["p"]), Fraction(self._params["q"])
        law = (
            f"hr_block({k}, {self.eps}, B={B}): its channel, p and q its stored floats, rows "
            "divided by their exact sum"
        )
        return codeword_gram(k, K, b // 2, meet, p, q, count_extremes(N, k), law)

    def block_gram_form(self) -> BlockGramForm:
        """The Gram matrix by blocks, A Aᵀ = alpha J + D Σ_g 1_g 1_gᵀ + beta I, exact.

        S_x has b/2 of the K outputs; two values of one block share b/4 of them (rows of
        H_b), of two blocks none: with p and q the stored floats over the exact row sum
        (b/2) p + (K - b/2) q, alpha = K q^2 + b q (p - q) and D = beta = (p - q)^2 b / 4.
        Per block, the smallest and largest N_g(y) from one Walsh-Hadamard transform of
        the indicator of the rows it holds (one for all full blocks). For
        :func:`qifldp.symmetric.block_mixing.block_mixing_from_gram`.

        Examples
        --------
        >>> form = HRBlock(10, 2.0).block_gram_form()  # B = 4 blocks of 4 outputs, 3 values
        >>> form.sizes, form.empty_blocks, form.spread[0]
        ((3, 3, 3, 1), False, (1, 3))
        """
        k, B, b, K = self.k, self._params["B"], self._params["b"], self._params["K"]
        per = b - 1
        full, rest = divmod(k, per)
        sizes = (per,) * full + ((rest,) if rest else ())
        spread = {}
        for held in set(sizes):
            N = self._block_counts(held)
            spread[held] = (int(N.min()), int(N.max()))
        p, q = Fraction(self._params["p"]), Fraction(self._params["q"])
        row = Fraction(b, 2) * p + (K - Fraction(b, 2)) * q
        p, q = p / row, q / row
        D = (p - q) ** 2 * Fraction(b, 4)
        return BlockGramForm(
            sizes=sizes,
            empty_blocks=len(sizes) < B,
            hit=p,
            miss=q,
            alpha=K * q * q + b * q * (p - q),
            block=D,
            beta=D,
            spread=tuple(spread[h] for h in sizes),
            law=f"hr_block({k}, {self.eps}, B={B}): stored p and q, rows over their exact sum",
        )

    def _block_counts(self, held: int) -> np.ndarray:
        """N(y) = #{values of a block in S_x containing y} for the b outputs of a block
        holding ``held`` values (rows 1..held of H_b)."""
        b = self._params["b"]
        rows = np.zeros(b)
        rows[1 : held + 1] = 1.0
        return ((held + fwht(rows)) / 2).astype(np.int64)

    def _rows(self, xs: np.ndarray) -> np.ndarray:
        """The rows of the channel at the values ``xs`` (one expression for every row)."""
        inside = self.members(xs[:, None], np.arange(self._params["K"]))
        return np.where(inside, self._params["p"], self._params["q"])

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        what = f"hr_block({self.k}, {self.eps}, B={self._params['B']})"
        self._check_restricted(xs.size, self._params["K"], what)
        return self._rows(xs), lambda cols: cols.tolist(), None

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """Hadamard Response with blocks as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> HRBlock(2, 1.0, B=2).symbolic(eps="e").matrix[0, 0]
        exp(e)/(exp(e) + 3)
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        self._size(symbolic=True)
        P = SymbolicParameters()
        E = sp.exp(P.take("eps", values["eps"], "eps"))
        B, b, K = self._params["B"], self._params["b"], self._params["K"]
        D = E + 2 * B - 1
        half = sp.Rational(b, 2)
        p, q = E / (half * D), 1 / (half * D)
        return two_valued_symbolic(P, self.members(np.arange(self.k)[:, None], np.arange(K)), p, q)

    # ---------------------------------------------------------------- client and server
    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """One output y in 0..K-1 per user (int64), vectorised.

        Notes
        -----
        W.p. 2B / D a uniform output; else a uniform position in the value's block,
        moved into S_x (when outside) by flipping its bit at the lowest set bit of the
        value's row r: both halves of the block have b/2 positions, so the result is
        uniform on S_x. O(n).

        Examples
        --------
        >>> P = HRBlock(5, 60.0, B=2)
        >>> xs = np.array([0, 2, 4])
        >>> bool(np.all(P.members(xs, P.sample(xs, rng=0))))
        True
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        B, b, K = self._params["B"], self._params["b"], self._params["K"]
        n = xs.size
        uniform = gen.integers(0, K, size=n)
        E = math.exp(-self.eps)
        own = gen.random(n) >= 2 * B * E / (1 + (2 * B - 1) * E)  # w.p. (e^eps - 1) / D
        block, r = self._placement(xs)
        pos = uniform % b
        pos = np.where(_same_parity(r, pos), pos, pos ^ (r & -r))
        return np.where(own, block * b + pos, uniform)

    def _check_reports(self, reports: Any) -> np.ndarray:
        return output_reports(reports, self._params["K"])

    def scores(self, reports: Any) -> np.ndarray:
        """Σ over the reports of the score for v (+1 in S_v, -1 elsewhere in v's block).

        One Walsh-Hadamard transform per block of the output counts: O(n + K log b).

        Examples
        --------
        >>> HRBlock(3, 1.0, B=2).scores([0, 1, 4, 5, 6]).tolist()  # block 1 holds no value
        [0.0, 2.0, 0.0]
        """
        return self._scores(self._check_reports(reports))

    def _scores(self, ys: np.ndarray) -> np.ndarray:
        B, b = self._params["B"], self._params["b"]
        T = fwht(np.bincount(ys, minlength=B * b).reshape(B, b))
        block, r = self._placement(np.arange(self.k))
        return T[block, r]

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies: f̂_v = D / ((e^eps - 1) n) Σ score_v (:meth:`scores`).

        Raises ParameterError at eps = 0 (the reports carry no information).

        Examples
        --------
        >>> P = HRBlock(4, 2.0)
        >>> xs = np.repeat([0, 1, 2, 3], [4000, 3000, 2000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.4, 0.3, 0.2, 0.1]
        """
        if self.eps == 0:
            msg = "eps = 0: the reports carry no information, no estimate"
            raise ParameterError(msg)
        ys = self._check_reports(reports)
        E = math.exp(-self.eps)  # D / (e^eps - 1) = (1 + (2B - 1) / e^eps) / (1 - 1 / e^eps)
        scale = (1 + (2 * self._params["B"] - 1) * E) / (-math.expm1(-self.eps) * ys.size)
        f = self._scores(ys) * scale
        return project_simplex(f) if project else f

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(Pr[report in S_v | v], Pr[report in S_v | a value of another block]) =
        (e^eps / D, 1 / D).

        A value of v's own block lands in S_v w.p. (e^eps + 1) / (2D): the estimator
        subtracts the block's share (:meth:`estimate`), and :meth:`variance` is its own.

        Examples
        --------
        >>> HRBlock(3, math.log(3), B=2).support_probabilities()  # D = 6
        (0.5, 0.16666666666666666)
        """
        no_options("support_probabilities", options)
        E = math.exp(-self.eps)
        D = 1 + (2 * self._params["B"] - 1) * E
        return 1 / D, E / D

    def variance(self, n: int, f: Any = None, **options: Any) -> np.ndarray | float:
        """Var[f̂_v] = [D (2 + (e^eps - 1) f_B) / (e^eps - 1)^2 - f_v] / n, f_B the frequency
        of v's block.

        Per report the score has E[score²] = Pr[report in v's block] = (2 + (e^eps - 1)
        f_B) / D and mean (e^eps - 1) f_v / D (users of fixed values, independent
        reports). ``f``: the k true frequencies; without them, a value of frequency 0 in
        a block of frequency 0.

        Examples
        --------
        >>> P = HRBlock(3, math.log(3), B=2)  # D = 6: 12 / 4 / n
        >>> round(P.variance(1), 12)
        3.0
        """
        no_options("variance", options)
        n = check_n(n)
        if self.eps == 0:
            msg = "eps = 0: the estimator is undefined (infinite variance)"
            raise ParameterError(msg)
        B = self._params["B"]
        g = math.expm1(self.eps)  # e^eps - 1
        D = g + 2 * B
        if f is None:
            return 2 * D / (g * g * n)
        freq = np.asarray(f, dtype=float)
        if freq.shape != (self.k,):
            msg = f"f must hold the k = {self.k} true frequencies, got shape {freq.shape}"
            raise ParameterError(msg)
        block, _ = self._placement(np.arange(self.k))
        f_block = np.bincount(block, weights=freq, minlength=B)[block]
        return (D * (2 + g * f_block) / (g * g) - freq) / n

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the values whose set holds the report (any value if none).

        Bayes-optimal under a uniform prior (those values have the largest likelihood).

        Examples
        --------
        >>> HRBlock(3, 1.0, B=2).attack([3], rng=0).tolist()  # output 3: S_2 only
        [2]
        """
        arr = self._check_reports(reports)
        return uniform_guesses(lambda v, ys: self.members(v, ys[:, None]), arr, self.k, rng)
