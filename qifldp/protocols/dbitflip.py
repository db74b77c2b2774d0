"""dBitFlipPM (Ding, Kulkarni, Yekhanin: Collecting telemetry data privately, NeurIPS 2017).

The k values are mapped to b buckets (value x to bucket floor(x b / k), as
multi-freq-ldpy's ``int(x / (k / b))``); each user samples d distinct buckets
J = {j_1, ..., j_d} uniformly and reports, for each sampled j, a bit that is 1 w.p.
e^(eps/2) / (e^(eps/2) + 1) if j is the user's bucket and w.p. 1 / (e^(eps/2) + 1)
otherwise. The response is memoised (the same J and bits for every report of a
value: permanent memoisation), so T reports leak what one does.

A report is (J, bits on J); C[x, (J, s)] = Π_{j ∈ J} SUE_{eps}[[bucket(x) = j], s_j] / C(b, d).
The paper states eps-LDP; the true eps of the channel is eps for d >= 2 (two sampled
buckets, the user's and another, each contribute e^(eps/2)) but eps/2 for d = 1 (one
sampled bit never tells two buckets apart by more than e^(eps/2))
(:meth:`DBitFlipClosedForm.ldp_epsilon`). The symmetric group of the buckets acts on
it. With b = k buckets (no bucketing, the default) and d = 1 or d = k, every output is a
subset of the values with one entry on it and one off it, and the channel is a
symmetric channel (:meth:`DBitFlip.symmetric`): for d = 1 the report (j, 1) is the
subset {j} and (j, 0) the k - 1 values other than j; for d = k it is SUE at eps. Other
(b, d) have none: b < k buckets group the values (a permutation of the values does
not keep the buckets), and for 1 < d < k an output splits the values in three (sampled
with bit 1, sampled with bit 0, not sampled), a structure the two-class symmetric
channels of :mod:`qifldp.symmetric` do not hold (at eps = 0 every row is the same, a
trivial case the refusal does not single out).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..errors import ParameterError
from ..profiles import privacy_profile
from ..simulation import project_simplex, support_counts
from ..simulation.util import (
    as_array,
    as_rng,
    as_values,
    bernoulli_where,
    check_n,
    choose_uniform_true,
    row_chunks,
)
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.channel import SymmetricChannel
from ..symmetric.operators import one_hot_classes
from ..validation import check_eps, check_int
from .base import ClosedForm, PQSupport, Rows, no_options
from .docstrings import ORACLE_DOCS, fill_doc
from .params import check_k, log_sue, sue_bit_log_ratio, sue_expressions, sue_probabilities
from .reports import ReportsLeakage
from .ss import bitmask_members, floyd_bitmasks

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["DBitFlip", "DBitFlipClosedForm", "buckets", "BITMASK_MAX_B"]

#: Up to this many buckets the sampler draws each user's d sampled buckets as one uint64
#: bit mask (:func:`~qifldp.protocols.ss.floyd_bitmasks`) and only their d bits; beyond,
#: Floyd's algorithm on an (n, b) mask and all n b bits.
BITMASK_MAX_B: int = 64


def buckets(k: int, b: int) -> np.ndarray:
    """The bucket of each value 0..k-1: floor(x b / k) (k >= b, every bucket non-empty).

    Examples
    --------
    >>> buckets(5, 2).tolist()
    [0, 0, 0, 1, 1]
    """
    return (np.arange(k) * b) // k


def _nth_combination(b: int, d: int, index: int) -> tuple[int, ...]:
    """The ``index``-th d-subset of 0..b-1 in the order of ``itertools.combinations``.

    Examples
    --------
    >>> import itertools
    >>> all(_nth_combination(5, 3, i) == J
    ...     for i, J in enumerate(itertools.combinations(range(5), 3)))
    True
    """
    out: list[int] = []
    start = 0
    for left in range(d, 0, -1):
        for v in range(start, b):
            block = math.comb(b - v - 1, left - 1)  # subsets that take v next
            if index < block:
                out.append(v)
                start = v + 1
                break
            index -= block
    return tuple(out)


class DBitFlipClosedForm(ReportsLeakage, ClosedForm):
    """Closed forms of dBitFlipPM at its parameters (derived on its channel).

    Examples
    --------
    >>> import qifldp as q
    >>> q.protocol("dbitflip", 4, 1.0, b=4, d=1).closed_form.ldp_epsilon()
    0.5
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = r (1 - (1 - q)^d) + (1 - q)^d (1 if b > d else 1/r), r = e^(eps/2), q = 1/(r + 1).

        For the sampled set J and bits s: the likelihood of x is a common factor times
        r if x's bucket is sampled with bit 1, 1/r if sampled with bit 0, 1 if not
        sampled; the best guess takes r when some bit is 1, else an unsampled bucket
        (if any). Σ_J Pr[J] Σ_s Π_j Pr_0[s_j] · max = the formula.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("dbitflip", 4, 1.0, b=4, d=2)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        P = self._protocol
        r = math.exp(P.eps / 2)
        b, d = P.params["b"], P.params["d"]
        none = (r / (r + 1)) ** d  # no sampled bit is 1, under a value outside J
        return r * (1 - none) + none * (1.0 if b > d else 1 / r)

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin of :meth:`bayes_capacity`; ``eps`` may be a symbol.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("dbitflip", 4, 1.0, b=4, d=2).closed_form
        >>> abs(float(cf.symbolic_bayes_capacity()) - cf.bayes_capacity()) < 1e-12
        True
        """
        import sympy as sp

        P = self._protocol
        values = P._symbols(symbols, ("eps",))
        eps = SymbolicParameters().take("eps", values["eps"], "eps")
        r = sp.exp(eps / 2)
        b, d = P.params["b"], P.params["d"]
        none = (r / (r + 1)) ** d
        return r * (1 - none) + none * (1 if b > d else 1 / r)

    def ldp_epsilon(self) -> float:
        """The true eps: eps for d >= 2, eps / 2 for d = 1 (see the module).

        Examples
        --------
        >>> import qifldp as q
        >>> [q.protocol("dbitflip", 4, 1.0, b=2, d=d).closed_form.ldp_epsilon() for d in (2, 1)]
        [1.0, 0.5]
        """
        P = self._protocol
        return P.eps if P.params["d"] >= 2 else P.eps / 2

    def bayes_capacity_reports(self, T: int) -> float:
        """ML of T reports: one report's, for every T (the response is memoised whole: the
        same J and bits for every report of the value, so T reports are T copies).

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("dbitflip", 10**4, 1.0, d=2).closed_form
        >>> cf.bayes_capacity_reports(64) == cf.bayes_capacity(), cf.reports_to_half_leakage()
        (True, 1)
        """
        check_int("T", T, minimum=1)
        return self.bayes_capacity()

    def bayes_capacity_permanent(self) -> float:
        """ML of the permanent (memoised) response: one report's.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("dbitflip", 5, 1.0).closed_form
        >>> cf.bayes_capacity_permanent() == cf.bayes_capacity()
        True
        """
        return self.bayes_capacity()

    def privacy_profile_reports(self, T: int, epss: Any) -> Any:
        """delta(eps) of T reports (one report's, see :meth:`bayes_capacity_reports`), at any k.

        Notes
        -----
        Two values in different buckets beta, beta' (the worst pairs; values sharing a
        bucket have equal rows) differ only in the bits of beta and beta' when sampled:
        both w.p. C(b-2, d-2) / C(b, d), one of them w.p. C(b-2, d-1) / C(b, d) each,
        neither otherwise. Those cases and bits form a 2 x 9 channel with the pair's
        profile (:func:`qifldp.privacy_profile`).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("dbitflip", 4, 1.0, d=2)
        >>> d = P.closed_form.privacy_profile_reports(3, 0.2)
        >>> round(d, 12) == round(q.privacy_profile(P.channel(), 0.2), 12)
        True
        """
        P = self._protocol
        check_int("T", T, minimum=1)
        b, d, p, q = (P.params[n] for n in ("b", "d", "p", "q"))
        total = math.comb(b, d)
        both, one = (math.comb(b - 2, r) / total if r >= 0 else 0.0 for r in (d - 2, d - 1))
        bit = np.array([[1 - q, q], [1 - p, p]])  # rows: own bucket no / yes
        rows = []
        for own, other in ((1, 0), (0, 1)):  # value x (bucket beta), value x' (bucket beta')
            pair = both * np.outer(bit[own], bit[other]).ravel()
            rows.append([*pair, *(one * bit[own]), *(one * bit[other]), 1 - both - 2 * one])
        return privacy_profile(Channel(np.array(rows)), epss)


@fill_doc(ORACLE_DOCS)
class DBitFlip(PQSupport):
    """dBitFlipPM: d sampled buckets out of b, each reported by a SUE bit at eps (memoised).

    A symmetric channel (:meth:`symmetric`, ``lumpable``) for b = k and d = 1 or
    d = k only; no symmetric channel for other (b, d) (see the module).

    Parameters
    ----------
    {k}
    eps : float
        Privacy parameter (the bits are SUE's at eps: e^(eps/2) / (e^(eps/2) + 1)).
    b : int, optional
        Buckets, ``2 <= b <= k`` (default k: no bucketing).
    d : int
        Sampled buckets, ``1 <= d <= b``.

    Notes
    -----
    params : dict
        b, d, and p, q: Pr[bit 1 | own bucket], Pr[bit 1 | another bucket].

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("dbitflip", 6, 2.0, b=3, d=2)
    >>> P.channel().shape  # C(3, 2) 2^2 outputs
    (6, 12)
    """

    __slots__ = ()
    _closed_form_type = DBitFlipClosedForm

    def __init__(self, k: int, eps: float, b: int | None = None, d: int = 1) -> None:
        k, eps = check_k(k), check_eps(eps)
        b = k if b is None else check_int("b", b, minimum=2, maximum=k)
        d = check_int("d", d, minimum=1, maximum=b)
        p, q = sue_probabilities(eps)
        self._freeze(
            "dbitflip",
            k,
            eps,
            {"b": b, "d": d, "p": p, "q": q},
            {"eps": eps, "b": b, "d": d},
            log_sue(eps),
        )

    def _lumping_refusal(self) -> str | None:
        k, b, d = self.k, self._params["b"], self._params["d"]
        if b < k:
            return (
                f"its b = {b} < k = {k} buckets group the values, and a permutation of the "
                "values does not keep the buckets (b = k with d = 1 or d = k has one)"
            )
        if 1 < d < k:
            return (
                f"with 1 < d = {d} < k = {k} sampled buckets an output splits the values in "
                "three classes (sampled with bit 1, sampled with bit 0, not sampled), where a "
                "symmetric channel has two (d = 1 or d = k has one)"
            )
        return None

    def symmetric(self) -> SymmetricChannel:
        """dBitFlipPM with b = k buckets and d = 1 or d = k as a symmetric channel.

        Returns
        -------
        SymmetricChannel
            d = 1, k >= 3: sizes 1 and k - 1 (the report (j, 1) is the subset {j}, the
            report (j, 0) the k - 1 values other than j): P_in(1) = p / k,
            P_out(1) = (k - 1) q / k, P_in(k - 1) = (k - 1)(1 - q) / k,
            P_out(k - 1) = (1 - p) / k. d = 1, k = 2: the two sizes coincide and the
            columns of (j, 1) and (1 - j, 0) are equal (p / 2 on j, q / 2 off it, as
            1 - q = p): one size 1, P_in = p, P_out = q (randomized response at
            eps / 2). d = k: every bucket sampled, SUE at eps (the classes of
            ``qifldp.symmetric.sue(k, eps)``, equal to it). From the log-space SUE bits
            computed at construction (:func:`~qifldp.protocols.params.log_sue`).

        Raises
        ------
        UnsupportedKindError
            b < k, or 1 < d < k (the message says why; see the module).

        Notes
        -----
        ``expand()`` equals :meth:`channel` up to the output labels and order (d = 1:
        one output per subset, k >= 3; at k = 2 after merging the equal columns;
        d = k: SUE's k-bit tuples, the bits of :meth:`channel`'s outputs). For d = 1
        both classes have a_s / b_s = p / q = (1 - q) / (1 - p) = e^(eps/2) exactly
        (q = 1 - p), so ``exact_log_ratio`` is eps / 2, the true eps; for d = k it is
        SUE's eps. O(1) for d = 1, O(k) for d = k.

        Examples
        --------
        >>> import qifldp as q
        >>> S = DBitFlip(10**6, 2.0).symmetric()
        >>> S.sizes.tolist(), q.ldp_epsilon(S)
        ([1, 999999], 1.0)
        >>> DBitFlip(50, 2.0, d=50).symmetric() == q.symmetric.sue(50, 2.0)
        True
        """
        self._refuse_unless_lumpable()
        k, eps, d = self.k, self.eps, self._params["d"]
        name = f"dbitflip(k={k}, eps={eps:g}, b={k}, d={d})"
        if d == k:  # every bucket sampled: the one-hot classes of SUE
            s, bits_in, bits_out, ratio = one_hot_classes(k, *self._log)
            return SymmetricChannel._make(
                k, s, bits_in, bits_out, name, ("bits",), log_ratio=ratio, exact_log_ratio=eps
            )
        lp, l1mp, lq, l1mq = self._log
        half, exact = sue_bit_log_ratio(eps)
        sizes: list[int]
        log_in: list[float]
        log_out: list[float]
        if k == 2:
            sizes, log_in, log_out = [1], [lp], [lq]
        else:
            lk, lk1 = math.log(k), math.log(k - 1)
            sizes = [1, k - 1]
            log_in = [lp - lk, lk1 + l1mq - lk]
            log_out = [lk1 + lq - lk, l1mp - lk]
        return SymmetricChannel._make(
            k, sizes, log_in, log_out, name, ("subsets",), log_ratio=half, exact_log_ratio=exact
        )

    def _outputs(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        b, d = self._params["b"], self._params["d"]
        return [
            (J, s)
            for J in itertools.combinations(range(b), d)
            for s in itertools.product(range(2), repeat=d)
        ]

    def channel(self) -> Channel:
        """The k x (C(b, d) 2^d) channel; outputs (sampled buckets J, their bits).

        Examples
        --------
        >>> import qifldp as q
        >>> C = q.protocol("dbitflip", 2, 1.0, d=1).channel()
        >>> C.outputs
        (((0,), (0,)), ((0,), (1,)), ((1,), (0,)), ((1,), (1,)))
        """
        k, b, d = self.k, self._params["b"], self._params["d"]
        n_out = math.comb(b, d) * 2**d
        alt = (
            ".symmetric() or .closed_form"
            if self.lumpable
            else ".closed_form (no symmetric channel)"
        )
        guard_size(
            f"dbitflip({k}, {self.eps}, b={b}, d={d})", k, math.log10(n_out), lambda: n_out, alt
        )
        return Channel(self._rows(np.arange(k)), outputs=self._outputs())

    def _rows(self, xs: np.ndarray) -> np.ndarray:
        """The rows of the channel at the values ``xs``; columns in :meth:`_outputs`' order.

        Entry (J, s) is Π_c of the probability of bit s_c of sampled bucket J_c, the
        factors multiplied in the order c = 1..d (one expression for every row).
        """
        k, b, d = self.k, self._params["b"], self._params["d"]
        p, q = self._params["p"], self._params["q"]
        J = np.array(list(itertools.combinations(range(b), d)), dtype=np.int64)  # (C(b, d), d)
        bits = np.array(list(itertools.product((False, True), repeat=d)))  # (2^d, d)
        own = J[None, :, None, :] == ((xs * b) // k)[:, None, None, None]  # (rows, C, 1, d)
        bit = bits[None, None, :, :]

        def factor(c: int) -> np.ndarray:
            on, one = own[..., c], bit[..., c]
            return np.where(on, np.where(one, p, 1 - p), np.where(one, q, 1 - q))

        M = factor(0)
        for c in range(1, d):
            M = M * factor(c)
        return M.reshape(xs.size, -1) / math.comb(b, d)

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        b, d = self._params["b"], self._params["d"]
        what = f"dbitflip({self.k}, {self.eps}, b={b}, d={d})"
        self._check_restricted(xs.size, math.comb(b, d) * 2**d, what)

        def labels(cols: np.ndarray) -> list:
            outs = []
            for c in cols.tolist():
                J = _nth_combination(b, d, c >> d)
                outs.append((J, tuple((c >> (d - 1 - i)) & 1 for i in range(d))))
            return outs

        return self._rows(xs), labels, None

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """dBitFlipPM as a symbolic channel; ``eps`` may be a symbol.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("dbitflip", 2, 1.0).symbolic(eps="e").matrix[0, 1]
        exp(e/2)/(2*(exp(e/2) + 1))
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps",))
        k, b, d = self.k, self._params["b"], self._params["d"]
        n_out = math.comb(b, d) * 2**d
        guard_symbolic_size("dbitflip", (k, "eps", b, d), k, math.log10(n_out), lambda: n_out)
        Ps = SymbolicParameters()
        p, one_minus_p, q, one_minus_q = sue_expressions(Ps.take("eps", values["eps"], "eps"))
        weight = sp.Rational(1, math.comb(b, d))
        mine = buckets(k, b)
        outs = self._outputs()
        rows = []
        for x in range(k):
            row = []
            for J, s in outs:
                term = weight
                for j, bit in zip(J, s, strict=True):
                    if j == mine[x]:
                        term *= p if bit else one_minus_p
                    else:
                        term *= q if bit else one_minus_q
                row.append(term)
            rows.append(row)
        return Ps.channel(rows, tuple(range(k)), tuple(outs))

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Reports of n users as an (n, b) int8 array: -1 for an unsampled bucket, else the bit.

        (multi-freq-ldpy's format.) The d sampled buckets are a uniform d-subset (Floyd's
        algorithm, on one bit mask per user when b <= 64); only their d bits are drawn.
        O(n b) for the output.

        Examples
        --------
        >>> import qifldp as q
        >>> r = q.protocol("dbitflip", 4, 1.0, d=2).sample([0, 3], rng=0)
        >>> r.shape, (r >= 0).sum(axis=1).tolist()
        ((2, 4), [2, 2])
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        b, d = self._params["b"], self._params["d"]
        n = xs.size
        if b <= BITMASK_MAX_B:  # the d sampled buckets as a bit mask, then only their bits
            out = np.full((n, b), -1, dtype=np.int8)
            flat = out.reshape(-1)
            for s, e in row_chunks(n, d):
                J = bitmask_members(floyd_bitmasks(e - s, b, d, gen), d).T  # (d, users)
                own = J == buckets(self.k, b)[xs[s:e]]
                bits = np.empty(J.shape, dtype=bool)
                bernoulli_where(bits, own, self._params["p"], self._params["q"], gen)
                J += np.arange(s, e) * b
                flat[J.reshape(-1)] = bits.reshape(-1)
            return out
        base = np.arange(n) * b
        sampled = np.zeros((n, b), dtype=bool)
        flat_sampled = sampled.reshape(-1)
        for j in range(b - d, b):  # Floyd's algorithm, vectorised: d distinct of b per user
            t = gen.integers(0, j + 1, size=n)
            t += base
            flat_sampled[np.where(flat_sampled[t], base + j, t)] = True
        own_all = buckets(self.k, b)[xs][:, None] == np.arange(b)[None, :]
        bits_all = np.empty((n, b), dtype=bool)
        for s, e in row_chunks(n, b):
            bernoulli_where(bits_all[s:e], own_all[s:e], self._params["p"], self._params["q"], gen)
        out = bits_all.view(np.int8)
        np.copyto(out, np.int8(-1), where=~sampled)
        return out

    def _check_reports(self, reports: Any) -> np.ndarray:
        arr = as_array(reports, "reports")
        b = self._params["b"]
        if arr.ndim != 2 or arr.shape[1] != b or arr.shape[0] == 0:
            msg = f"reports must be an (n, b) array with n >= 1 and b = {b}, got shape {arr.shape}"
            raise ParameterError(msg)
        if np.issubdtype(arr.dtype, np.integer):
            valid = arr.min() >= -1 and arr.max() <= 1
        else:
            valid = bool(np.all((arr == -1) | (arr == 0) | (arr == 1)))
        if not valid:
            msg = "reports must hold -1 (bucket not sampled), 0 or 1"
            raise ParameterError(msg)
        return arr

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased bucket frequencies (length b).

        f_j = b / (n d) Σ_{users sampling j} (s_j (r + 1) - 1) / (r - 1), r = e^(eps/2)
        (Ding et al. 2017; multi-freq-ldpy's aggregator before its clipping).

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> P = q.protocol("dbitflip", 3, 4.0, d=2)
        >>> xs = np.repeat([0, 1, 2], [5000, 3000, 2000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        arr = self._check_reports(reports)
        if self.eps == 0:
            msg = "eps = 0: the bits carry no information, no estimate"
            raise ParameterError(msg)
        r = math.exp(self.eps / 2)
        b, d = self._params["b"], self._params["d"]
        # Σ over the users sampling j of (s_j (r + 1) - 1) / (r - 1), by counting
        ones = np.asarray(support_counts(np.ascontiguousarray(arr == 1)))
        sampled = np.asarray(support_counts(np.ascontiguousarray(arr >= 0)))
        f = ((r + 1) * ones - sampled) / (r - 1) * b / (arr.shape[0] * d)
        return project_simplex(f) if project else f

    def variance(self, n: int, f: Any = None, **options: Any) -> np.ndarray | float:
        """The variance of each bucket's estimate for n users.

        [f (b/d (r² - r + 1) / (r - 1)² - 1) + (1 - f) b/d r / (r - 1)²] / n, r = e^(eps/2)
        (each user's term is (b/d) [j sampled] Z_j with E[Z_j²] = (r² - r + 1) / (r - 1)² for
        the own bucket, r / (r - 1)² for another). ``f``: the buckets' true frequencies
        (length b); without it, a bucket of frequency 0.

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("dbitflip", 4, 2.0, d=4).variance(1), 6)  # b = d: r / (r - 1)^2
        0.920674
        """
        no_options("variance", options)
        n = check_n(n)
        if self.eps == 0:
            msg = "eps = 0: the estimator is undefined (infinite variance)"
            raise ParameterError(msg)
        r = math.exp(self.eps / 2)
        scale = self._params["b"] / self._params["d"]
        own = scale * (r * r - r + 1) / (r - 1) ** 2 - 1
        other = scale * r / (r - 1) ** 2
        if f is None:
            return other / n
        freq = np.asarray(f, dtype=float)
        if freq.shape != (self._params["b"],):
            msg = f"f must hold the b = {self._params['b']} bucket frequencies, got {freq.shape}"
            raise ParameterError(msg)
        return (freq * own + (1 - freq) * other) / n

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """The Bayes guess of the bucket (then a uniform value in it): a sampled bucket with
        bit 1, else an unsampled one, else any sampled one.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("dbitflip", 3, 1.0, d=2).attack([[1, 0, -1]], rng=0).tolist()
        [0]
        """
        arr = self._check_reports(reports)
        gen = as_rng(rng)
        ones = arr == 1
        fallback = np.where(np.any(arr == -1, axis=1, keepdims=True), arr == -1, arr == 0)
        bucket = choose_uniform_true(np.where(ones.any(axis=1, keepdims=True), ones, fallback), gen)
        members = buckets(self.k, self._params["b"])[None, :] == bucket[:, None]
        return choose_uniform_true(members, gen)
