"""RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014) as a protocol object.

A value x is hashed by h hash functions into a Bloom filter B(x) of m bits. The
*permanent* randomized response replaces each bit by 1 w.p. f/2, by 0 w.p. f/2, and
keeps it w.p. 1 - f (memoised: drawn once per user and value). Each report is then
an *instantaneous* randomized response of the permanent bits: a bit is sent as 1 w.p.
q if the permanent bit is 1, w.p. p if it is 0 (paper Sec. 3). One-time RAPPOR
(``rounds="one-time"``) reports the permanent bits themselves.

Every bit goes through the same 2x2 channel, so a report is the product over the m
bits: C[x, s] = Π_i R[B_i(x), s_i] with R the permanent channel cascaded into the
instantaneous one (R[1, 1] = q* = f/2 (p + q) + (1 - f) q, R[0, 1] = p* =
f/2 (p + q) + (1 - f) p, paper Sec. 3.1). T reports of the same user are, per bit,
the permanent bit followed by T parallel instantaneous bits.

The hash functions: a fixed member of the family (``seed``: h positions per value
drawn uniformly from 0..m-1 by a seeded generator, collisions allowed, as h independent
hash functions) gives the channel above; the paper's analysis assumes the hash is a
uniformly random member, revealed to the server (the user's cohort): that is the
visible choice over all (m^h)^k tables (:meth:`RAPPOR.random_hash_channel`, tiny
sizes), whose Bayes capacity is the average over tables. What T reports reveal in each
model: :class:`RAPPORClosedForm` (the fixed table) and :class:`RAPPORRandomHash` (the
average, ``closed_form.random_hash``), both lumped by the compositions of the bits' counts
where the model allows (:mod:`qifldp.protocols.bloom_reports`).

Published privacy (paper Sec. 3.1): eps_inf = 2 h ln((1 - f/2) / (f/2)) for the
permanent response (any number of reports) and eps_1 = h ln(q* (1 - p*) / (p* (1 - q*)))
for one report. For a fixed table the true eps of one report is
max_{x != x'} |B(x) \\ B(x')| ln(q*/p*) + |B(x') \\ B(x)| ln((1-p*)/(1-q*)): equal to
eps_1 when two values have disjoint sets of h distinct bits, below it otherwise
(:meth:`RAPPORClosedForm.ldp_epsilon`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..channel import Channel, check_size, guard_size, guard_work
from ..errors import InputTypeError, ParameterError, SizeError
from ..operators import visible_choice
from ..simulation import project_simplex
from ..simulation.util import (
    as_rng,
    as_values,
    bernoulli_where,
    check_bits,
    check_n,
    choose_uniform_true,
    row_chunks,
)
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..validation import check_choice, check_indices, check_int, check_probability
from .base import ClosedForm, NotLumpable, no_options, restricted_channel
from .bloom_reports import (
    bayes_capacity_pair_filters,
    bayes_capacity_random_hash_bits,
    bayes_capacity_symmetric_filters,
    bit_revealed,
    bloom_bits,
    bloom_table,
    check_hashes,
    filter_overlap_law,
    mean_distinct_filters,
)
from .docstrings import ORACLE_DOCS, fill_doc
from .longitudinal import bayes_capacity_one_hot, sample_memoized
from .params import check_k
from .reports import MAX_REPORTS, ReportsLeakage, log_count_channel, pair_profile

__all__ = ["RAPPOR", "RAPPORClosedForm", "RAPPORRandomHash", "ROUNDS", "bloom_table"]

#: The two forms of the protocol.
ROUNDS: tuple[str, ...] = ("longitudinal", "one-time")


class RAPPORClosedForm(ReportsLeakage, ClosedForm):
    """The privacy of RAPPOR with its fixed hash table (paper Sec. 3.1) and its capacities.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("rappor", 3, m=8, h=2, f=0.5, seed=1)
    >>> round(P.closed_form.eps_inf(), 6)  # 2 h ln(3)
    4.394449
    """

    __slots__ = ()

    def eps_inf(self) -> float:
        """The paper's eps_inf = 2 h ln((1 - f/2) / (f/2)): the permanent response's bound.

        Examples
        --------
        >>> RAPPOR(3, m=4, h=1, f=1.0).closed_form.eps_inf()  # f = 1: the bits are coin flips
        0.0
        """
        P = self._protocol
        f = P.params["f"]
        return math.inf if f == 0 else 2 * P.params["h"] * math.log((1 - f / 2) / (f / 2))

    def eps_one(self) -> float:
        """The paper's eps_1 = h ln(q* (1 - p*) / (p* (1 - q*))) of one report.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=8, h=2, f=0.5, p=0.5, q=0.75)
        >>> round(P.closed_form.eps_one(), 6)
        1.074286
        """
        P = self._protocol
        a, b = P.support_probabilities()
        return P.params["h"] * _log_odds_ratio(a, b)

    def ldp_epsilon(self) -> float:
        """The true eps of one report with the fixed table (see the module; <= eps_1).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 4, m=8, h=2, f=0.5, seed=3)
        >>> round(P.closed_form.ldp_epsilon(), 9) == round(q.ldp_epsilon(P.channel()), 9)
        True
        """
        P = self._protocol
        a, b = P.support_probabilities()
        up = _log(a) - _log(b)  # a bit of B(x) \\ B(x') read as 1
        down = _log(1 - b) - _log(1 - a)  # a bit of B(x') \\ B(x) read as 0
        B = cast(RAPPOR, P).bloom.astype(np.int64)
        only = B @ (1 - B).T  # only[x, x'] = |B(x) \\ B(x')|
        ratio = only * up + only.T * down
        np.fill_diagonal(ratio, 0.0)
        return float(np.max(ratio))

    def bayes_capacity(self) -> float:
        """ML = Σ_s max_x C[x, s] of :meth:`RAPPOR.channel` (one report), on the bits the
        filters use (:meth:`bayes_capacity_reports` at T = 1).

        Examples
        --------
        >>> RAPPOR(3, m=6, h=1, f=0.5, seed=0).closed_form.bayes_capacity()
        1.125
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=6, h=2, f=0.5, seed=0)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        return self._capacity_of_bits(self._bit_reports(1))

    def bayes_capacity_random_hash(self) -> float:
        """ML of one report averaged over a uniformly random table (the cohort revealed):
        the mean of the fixed tables' ML over all (m^h)^k tables, at any k
        (:meth:`RAPPORRandomHash.bayes_capacity_reports` at T = 1).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 2, m=2, h=1, f=0.5, rounds="one-time")
        >>> ml = P.closed_form.bayes_capacity_random_hash()
        >>> round(ml, 12) == round(q.bayes_capacity(P.random_hash_channel()), 12)
        True
        """
        return self.random_hash.bayes_capacity_reports(1)

    @property
    def random_hash(self) -> RAPPORRandomHash:
        """What T reports reveal averaged over a uniformly random hash (the paper's model):
        :class:`RAPPORRandomHash`. The other methods here are those of the fixed table.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("rappor", 10**4, m=16, h=2).closed_form
        >>> cf.random_hash.reports_to_half_leakage()
        4
        """
        return RAPPORRandomHash(cast(RAPPOR, self._protocol))

    def _bit_reports(self, T: int) -> np.ndarray:
        """Per Bloom bit, the log of the channel to its count of 1s in T reports (one-time:
        the permanent bit itself, whatever T)."""
        return _bit_reports(self._protocol, T)

    def _capacity_of_bits(self, L: np.ndarray) -> float:
        """ML of the product channel x -> (R[B_i(x)])_i, L = log R: lumped for one-bit
        filters (UE over the used bits), by compositions when the filters are every subset
        of the used bits of their sizes, by the filters' graph when they have at most two
        bits (:func:`~qifldp.protocols.bloom_reports.bayes_capacity_pair_filters`, within
        its limits), else by enumeration of the symbols on the bits some filter sets
        (work-limited, :func:`_guard_work`; in chunks).

        A bit no filter sets has the law R[0] under every value: it factors out of
        max_x and sums to 1, so only the union U of the filters' bits is enumerated,
        |R's symbols|^|U| patterns (|U| <= min(m, k h), whatever m). For h >= 2 the
        maximum over values of a product of h bits' ratios does not factor over bits,
        which is what the enumeration pays for; when the distinct filters are all the
        z-subsets of U for each size z that occurs (typical once k is large against
        C(m, h): at k = 10^4, m = 16, h = 2 all 16 + 120 filters occur), the maximum is
        that of the products of the z largest ratios and depends on the symbols' counts
        alone (:func:`~qifldp.protocols.bloom_reports.bayes_capacity_symmetric_filters`)."""
        P = cast(RAPPOR, self._protocol)
        B = P.bloom
        used = np.unique(B, axis=0)
        if bit_revealed(L, P.params):  # the output shows the filter: one guess per filter
            return float(used.shape[0])
        if np.all(used.sum(axis=1) == 1):  # h = 1: unary encoding over the used bits
            return bayes_capacity_one_hot(L, used.shape[0], log=True)
        sub = used[:, used.any(axis=0)]
        rows, u, n = sub.shape[0], sub.shape[1], L.shape[1]
        sizes = sorted({int(z) for z in sub.sum(axis=1)})
        if rows == sum(math.comb(u, z) for z in sizes):  # distinct rows: all such subsets
            return bayes_capacity_symmetric_filters(L, u, sizes)
        if sizes[-1] <= 2:
            try:
                return _capacity_of_pairs(sub, L)
            except SizeError:
                pass  # a sparse graph: the enumeration, if it is small enough
        _guard_work(P, rows, u, n)
        return _capacity_by_enumeration(sub, L)

    def bayes_capacity_reports(self, T: int) -> float:
        """ML of T memoised reports of one user (the fixed table), on per-bit counts.

        Each bit's T reports are summarised by their count (iid given the permanent
        bit), a 2 x (T + 1) channel; with one-bit filters (h = 1) the values are a
        unary encoding over the used bits (:func:`bayes_capacity_one_hot`, any k); when
        the distinct filters are every subset of the used bits U of the sizes that occur
        (k = 10^4, m = 16, h = 2: all 136 but with probability ~10^-16), the C(|U| + T, T) count
        compositions are summed; filters of at most two bits, some missing (h = 2 at
        smaller k), go by their graph's independent sets (m = 16: k >= 100 up to T = 8,
        k = 30 up to T = 4, within seconds); otherwise the (T + 1)^|U| count vectors on
        U are enumerated (guarded; |U| <= min(m, k h)): h >= 3 with some filter missing
        (h = 4 at m = 16, k = 10^4) is refused beyond that. The average over a random
        hash is :attr:`random_hash` (any h, k).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=3, h=1, f=0.5, seed=2)
        >>> ml = P.closed_form.bayes_capacity_reports(2)
        >>> round(ml, 12) == round(q.bayes_capacity(P.channel(reports=2)), 12)
        True
        """
        T = check_int("T", T, minimum=1, maximum=MAX_REPORTS)
        return self._capacity_of_bits(self._bit_reports(T))

    def bayes_capacity_permanent(self) -> float:
        """ML of the permanent response (one-time RAPPOR's report): the limit as T → ∞.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("rappor", 10**4, m=64, h=1, f=0.5).closed_form
        >>> cf.bayes_capacity_permanent() > cf.bayes_capacity_reports(8)
        True
        """
        return self._capacity_of_bits(_permanent_bits(self._protocol))

    def privacy_profile_reports(self, T: int, epss: Any) -> Any:
        """delta(eps) of T reports over the worst pair of values (the fixed table), any k.

        Two values' rows differ only on B(x) \\ B(x') and B(x') \\ B(x); the profile of a
        pair depends on the two sizes alone (:func:`pair_profile` on the per-bit count
        channel), so the worst pair is found among the sizes that occur.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=3, h=2, f=0.5, seed=4)
        >>> d = P.closed_form.privacy_profile_reports(2, 0.3)
        >>> round(d, 12) == round(q.privacy_profile(P.channel(reports=2), 0.3), 12)
        True
        """
        T = check_int("T", T, minimum=1, maximum=MAX_REPORTS)
        R = self._bit_reports(T)
        B = np.unique(cast(RAPPOR, self._protocol).bloom, axis=0).astype(np.int64)
        only = B @ (1 - B).T
        keys = np.unique(only * 65 + only.T)  # sizes of B(x) - B(x') and B(x') - B(x), <= 64
        sizes = {(int(key) // 65, int(key) % 65) for key in keys} - {(0, 0)}
        if not sizes:
            return pair_profile(R, 0, 0, epss, log=True)
        profiles = [np.asarray(pair_profile(R, u, v, epss, log=True)) for u, v in sorted(sizes)]
        out = np.max(profiles, axis=0)
        return float(out) if out.ndim == 0 else out


class RAPPORRandomHash(ReportsLeakage):
    """What T reports of RAPPOR reveal averaged over a uniformly random hash: each value's
    h positions drawn independently and uniformly from the m bits (collisions allowed),
    the table revealed to the adversary (the user's cohort, paper Sec. 3) — the visible
    choice over all (m^h)^k tables (:meth:`RAPPOR.random_hash_channel`). The fixed
    table's leakage is :class:`RAPPORClosedForm`'s.

    Bayes capacity by the counts' compositions
    (:func:`~qifldp.protocols.bloom_reports.bayes_capacity_random_hash_bits`), privacy
    profile from the law of two random filters' differences; the ASR and the half-limit
    search from :class:`ReportsLeakage`. Exact, at any k.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("rappor", 2, m=2, h=1, f=0.5, rounds="one-time")
    >>> rh = P.closed_form.random_hash
    >>> round(rh.asr_reports(1), 12) == round(q.asr(P.random_hash_channel()), 12)
    True
    """

    __slots__ = ("_protocol",)

    def __init__(self, protocol: RAPPOR) -> None:
        if not isinstance(protocol, RAPPOR):
            msg = (
                "protocol must be a RAPPOR protocol object (its m, h, f, p, q and rounds are "
                f"read), got {type(protocol).__name__}; use q.protocol('rappor', ...)"
                ".closed_form.random_hash"
            )
            raise InputTypeError(msg)
        self._protocol = protocol

    def __repr__(self) -> str:
        return f"<random-hash leakage of {self._protocol!r}>"

    def _capacity(self, L: np.ndarray) -> float:
        P = self._protocol
        m, h = P.params["m"], P.params["h"]
        if bit_revealed(L, P.params):  # the mean number of distinct filters of the k values
            return mean_distinct_filters(m, h, P.k)
        return bayes_capacity_random_hash_bits(L, m, h, P.k)

    def bayes_capacity_reports(self, T: int) -> float:
        """ML of T memoised reports averaged over the random hash (exact, any k).

        Raises
        ------
        SizeError
            More than MAX_ENTRIES terms: C(m + T, T) compositions x A atoms x h,
            A = Σ_{d <= h} C(T + d, d) (m = 16: up to T = 8 for h = 2, T = 6 for h = 4).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 2, m=2, h=1, f=0.5, rounds="one-time")
        >>> ml = P.closed_form.random_hash.bayes_capacity_reports(3)  # one-time: any T
        >>> round(ml, 12) == round(q.bayes_capacity(P.random_hash_channel()), 12)
        True
        """
        T = check_int("T", T, minimum=1, maximum=MAX_REPORTS)
        return self._capacity(_bit_reports(self._protocol, T))

    def bayes_capacity_permanent(self) -> float:
        """ML of the permanent response averaged over the random hash: the limit T → ∞.

        Examples
        --------
        >>> import qifldp as q
        >>> rh = q.protocol("rappor", 10**4, m=16, h=2).closed_form.random_hash
        >>> round(rh.bayes_capacity_permanent(), 6), round(rh.bayes_capacity_reports(4), 6)
        (8.592414, 3.372902)
        """
        return self._capacity(_permanent_bits(self._protocol))

    def privacy_profile_reports(self, T: int, epss: Any) -> Any:
        """delta(eps) of T reports of the visible choice over tables, any pair of values.

        Notes
        -----
        The rows of x and x' are the tables' rows side by side, each weighted by its
        probability, so their hockey-stick divergence is the mean over tables of the
        fixed table's; that depends on u = |B(x) \\ B(x')| and v = |B(x') \\ B(x)| alone
        (:func:`pair_profile`, one direction), whose law is the same for every pair
        x != x' (:func:`~qifldp.protocols.bloom_reports.filter_overlap_law`) and
        symmetric in (u, v), so both directions give the same mean.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 2, m=2, h=1, f=0.5, rounds="one-time")
        >>> d = P.closed_form.random_hash.privacy_profile_reports(1, 0.4)
        >>> round(d, 12) == round(q.privacy_profile(P.random_hash_channel(), 0.4), 12)
        True
        """
        T = check_int("T", T, minimum=1, maximum=MAX_REPORTS)
        P = self._protocol
        R = _bit_reports(P, T)
        law = filter_overlap_law(P.params["m"], P.params["h"])
        eps = np.atleast_1d(np.asarray(epss, dtype=float))
        out = np.zeros(eps.shape)
        if P.k > 1:
            for (u, v), w in law.items():
                out += w * np.asarray(pair_profile(R, u, v, eps, log=True, directed=True))
        return float(out[0]) if np.ndim(epss) == 0 else out


def _bit_reports(P: Any, T: int) -> np.ndarray:
    """Per Bloom bit of P, log Pr[count of 1s in T reports | Bloom bit] (2 x (T + 1);
    one-time: the permanent bit, 2 x 2, whatever T)."""
    f, p, q = (P.params[n] for n in ("f", "p", "q"))
    if P.params["rounds"] == "one-time":
        p, q, T = 0.0, 1.0, 1
    return log_count_channel({"p1": 1 - f / 2, "q1": f / 2, "p2": q, "q2": p}, T)


def _permanent_bits(P: Any) -> np.ndarray:
    """Per Bloom bit of P, log Pr[permanent bit | Bloom bit] (2 x 2)."""
    f = P.params["f"]
    with np.errstate(divide="ignore"):
        return np.log([[1 - f / 2, f / 2], [f / 2, 1 - f / 2]])


def _capacity_of_pairs(sub: np.ndarray, L: np.ndarray) -> float:
    """The Bayes capacity of filters of one or two of the used bits (rows of ``sub``) by
    their graph (:func:`~qifldp.protocols.bloom_reports.bayes_capacity_pair_filters`)."""
    pairs = [tuple(np.flatnonzero(row)) for row in sub if row.sum() == 2]
    singles = [int(np.flatnonzero(row)[0]) for row in sub if row.sum() == 1]
    return bayes_capacity_pair_filters(L, sub.shape[1], pairs, singles)


def _capacity_by_enumeration(sub: np.ndarray, L: np.ndarray) -> float:
    """Σ over the n^u symbol patterns of the u used bits of the largest of the distinct
    filters' (rows of ``sub``) probabilities, L the log bit channel; in chunks."""
    rows, u, n = sub.shape[0], sub.shape[1], L.shape[1]
    on, off = sub.astype(float), (~sub).astype(float)
    place = n ** np.arange(u - 1, -1, -1, dtype=np.int64)
    step = max(1, 2**22 // rows)
    total = 0.0
    for start in range(0, n**u, step):
        idx = np.arange(start, min(start + step, n**u), dtype=np.int64)
        symbols = (idx[:, None] // place) % n  # (chunk, u) base-n digits
        logC = on @ L[1][symbols].T + off @ L[0][symbols].T
        total += float(np.exp(logC).max(axis=0).sum())
    return total


def _guard_work(P: Any, rows: int, u: int, n: int) -> None:
    """Refuse more than MAX_ENTRIES (filter, count pattern) products (the work limit of
    :func:`~qifldp.channel.guard_work`, with this route's advice): the capacity of h >= 2
    filters sums over the n^u count patterns of the u used bits the largest of the
    ``rows`` distinct filters' probabilities, rows x n^u products formed in chunks.

    Examples
    --------
    >>> import qifldp as q
    >>> _guard_work(q.protocol("rappor", 4, m=4, h=2, seed=0), 4, 4, 2)
    """
    guard_work(
        f"rappor(k={P.k}, m={P.params['m']}, h={P.params['h']}).closed_form",
        f"enumerate {rows} distinct filters x {n}^{u} count patterns",
        math.log10(rows) + u * math.log10(n),
        lambda: rows * n**u,
        f"({n} count values per bit on the {u} bits its filters use; filters that are every "
        "subset of the used bits of their sizes are summed by count compositions instead, "
        "and filters of at most two bits by their graph within bloom_reports.MAX_PAIR_STEPS: "
        "neither here.) Use h = 1 (lumped at any k), fewer reports T (fewer count patterns), "
        "fewer values or bits (k h bits at most are used), the average over a uniformly "
        "random hash (closed_form.random_hash, any k), or what needs no enumeration: "
        "closed_form.ldp_epsilon(), eps_one(), eps_inf(), privacy_profile_reports(T, eps) "
        "(any k, m).",
        unit="products",
    )


def _log(v: float) -> float:
    return math.log(v) if v > 0 else -math.inf


def _log_odds_ratio(a: float, b: float) -> float:
    return _log(a) + _log(1 - b) - _log(b) - _log(1 - a)


@fill_doc(ORACLE_DOCS)
class RAPPOR(NotLumpable):
    """RAPPOR: a Bloom filter, a permanent randomized response (f), an instantaneous one (p, q).

    Parameters
    ----------
    {k}
    m : int
        Bloom filter bits, ``1 <= m <= 64``.
    h : int
        Hash functions, ``1 <= h <= m``.
    f : float
        Permanent randomisation, in [0, 1].
    p, q : float
        Pr[report bit 1 | permanent bit 0] and [... | permanent bit 1] (longitudinal);
        the paper's defaults 0.5 and 0.75.
    rounds : {"longitudinal", "one-time"}
        One-time RAPPOR reports the permanent bits (p and q are not used).
    seed : int
        Which member of the hash family (:func:`bloom_table`).

    Notes
    -----
    eps : float
        The paper's eps_inf = 2 h ln((1 - f/2) / (f/2)) (inf at f = 0).
    params : dict
        m, h, f, p, q, rounds, seed.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("rappor", 4, m=8, h=2, f=0.5)
    >>> P.channel().shape, round(P.eps, 6)
    ((4, 256), 4.394449)
    """

    __slots__ = ("_bloom",)
    _closed_form_type = RAPPORClosedForm
    _not_lumpable = "its hash table is not invariant under permutations"
    _bloom: np.ndarray

    def __init__(
        self,
        k: int,
        m: int = 16,
        h: int = 2,
        f: float = 0.5,
        p: float = 0.5,
        q: float = 0.75,
        rounds: str = "longitudinal",
        seed: int = 0,
    ) -> None:
        k = check_k(k)
        m = check_int("m", m, minimum=1, maximum=64)
        h = check_hashes(h, m)
        f = check_probability("f", f)
        p, q = check_probability("p", p), check_probability("q", q)
        rounds = check_choice("rounds", rounds, ROUNDS)
        seed = check_int("seed", seed, minimum=0)
        params = {"m": m, "h": h, "f": f, "p": p, "q": q, "rounds": rounds, "seed": seed}
        eps = math.inf if f == 0 else 2 * h * math.log((1 - f / 2) / (f / 2))
        self._freeze("rappor", k, eps, params, params)
        table = bloom_table(k, m, h, seed)
        object.__setattr__(self, "_bloom", bloom_bits(table, m))

    def __reduce__(self) -> tuple:
        return (_rebuild_rappor, (self.k, dict(self._args)))

    @property
    def bloom(self) -> np.ndarray:
        """The values' Bloom filters under the fixed table: (k, m) booleans (a copy).

        Examples
        --------
        >>> import qifldp as q
        >>> bool(q.protocol("rappor", 3, m=8, h=2).bloom.sum(axis=1).max() <= 2)
        True
        """
        return self._bloom.copy()

    def _bit_channel(self) -> np.ndarray:
        """R: rows the Bloom bit 0/1, columns the reported bit 0/1."""
        a, b = self.support_probabilities()
        return np.array([[1 - b, b], [1 - a, a]])

    def _product(self, R: np.ndarray, B: np.ndarray) -> Channel:
        """C[x, s] = Π_i R[B_i(x), s_i] over every report s (m symbols, product order): exp
        of the sum of the logs added bit by bit, i = 0..m-1 (a Kronecker sum), the same float
        operations for every row (R = 0, f = 0: log -inf, entry exp(-inf) = 0)."""
        with np.errstate(divide="ignore"):
            L = np.log(R)  # (2, n_sym)
        rows = B.shape[0]
        acc = L[B[:, 0].astype(np.intp)]
        for i in range(1, B.shape[1]):
            acc = (acc[:, :, None] + L[B[:, i].astype(np.intp)][:, None, :]).reshape(rows, -1)
        return Channel(np.exp(acc))

    # ---------------------------------------------------------------- representations
    def channel(self, reports: int = 1) -> Channel:
        """The explicit channel of ``reports`` reports of one user (the fixed table).

        Outputs: m-bit tuples (T = 1), or tuples of T m-bit tuples.

        Raises
        ------
        SizeError
            k 2^(m T) entries above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("rappor", 2, m=3, h=1).channel(reports=2).shape
        (2, 64)
        """
        T = self._rounds(reports)
        k, m = self.k, self._params["m"]
        alt = ".closed_form.ldp_epsilon() / eps_one() / eps_inf() (no symmetric channel)"
        guard_size(
            f"rappor({k}, m={m}).channel({T})", k, m * T * math.log10(2), lambda: 2 ** (m * T), alt
        )
        outs = self._labels(T, np.arange(2 ** (m * T)))
        return Channel(self._product(self._per_bit(T), self._bloom).matrix, outputs=outs)

    def _rounds(self, reports: int) -> int:
        """T, the reports that matter: ``reports`` checked, 1 for one-time RAPPOR (the
        report is the permanent response itself: repeating it adds nothing)."""
        T = check_int("reports", reports, minimum=1, maximum=64)
        return 1 if self._params["rounds"] == "one-time" else T

    def _labels(self, T: int, cols: np.ndarray) -> list:
        """Labels of the outputs ``cols``: m-bit tuples (T = 1), or tuples of T m-bit tuples."""
        m, base = self._params["m"], 2**T
        digits = base ** np.arange(m - 1, -1, -1, dtype=np.int64)
        symbols = ((cols[:, None] // digits) % base).tolist()  # (len(cols), m)
        if T == 1:
            return [tuple(s) for s in symbols]
        patterns = list(itertools.product(range(2), repeat=T))  # a bit's T reported values
        return [tuple(zip(*(patterns[j] for j in s), strict=True)) for s in symbols]

    def restricted(self, inputs: Sequence[int], reports: int = 1) -> Channel:
        """:meth:`Protocol.restricted` of :meth:`channel` with ``reports`` reports, built from the
        rows at ``inputs`` alone (SizeError past len(inputs) 2^(m T) > MAX_ENTRIES entries).

        Examples
        --------
        >>> import qifldp as q
        >>> C = q.protocol("rappor", 10**4, m=8, h=2).restricted([5, 0, 9], reports=2)
        >>> C.inputs, C.shape[1] <= 2**16, bool(np.allclose(C.matrix.sum(axis=1), 1.0))
        ((5, 0, 9), True, True)
        """
        xs, T, m = check_indices("inputs", inputs, self.k), self._rounds(reports), self._params["m"]
        what = f"rappor({self.k}, m={m}).restricted() of {len(xs)} inputs, {T} reports"
        check_size(len(xs), 2 ** (m * T), what, "fewer inputs or reports, or .closed_form")
        rows = self._product(self._per_bit(T), self._bloom[xs]).matrix
        return restricted_channel(xs, (rows, lambda cols: self._labels(T, cols), None))

    def _per_bit(self, T: int) -> np.ndarray:
        """One bit: Bloom bit -> its T reported bits (2 x 2^T, patterns in product order)."""
        f = self._params["f"]
        perm = np.array([[1 - f / 2, f / 2], [f / 2, 1 - f / 2]])
        if self._params["rounds"] == "one-time":
            return perm
        p, q = self._params["p"], self._params["q"]
        inst = np.array([[1 - p, p], [1 - q, q]])
        cols = [
            np.prod([inst[:, t] for t in pattern], axis=0)
            for pattern in itertools.product(range(2), repeat=T)
        ]
        return perm @ np.array(cols).T

    def random_hash_channel(self) -> Channel:
        """The visible choice over all (m^h)^k hash tables, uniform: the cohort revealed.

        Outputs (table index, report). Tiny sizes only (guarded).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("rappor", 2, m=2, h=1, rounds="one-time").random_hash_channel().shape
        (2, 16)
        """
        return visible_choice(list(self._tables()))

    def _tables(self) -> list[Channel]:
        k, m, h = self.k, self._params["m"], self._params["h"]
        n_tables = (m**h) ** k
        what = f"rappor({k}, m={m}, h={h}) over all {n_tables} hash tables"
        guard_size(
            what,
            k,
            math.log10(n_tables) + m * math.log10(2),
            lambda: n_tables * 2**m,
            "a fixed table",
        )
        R = self._per_bit(1)
        rows = list(itertools.product(range(m), repeat=h))
        return [
            self._product(R, bloom_bits(np.array([rows[i] for i in choice]), m))
            for choice in itertools.product(range(len(rows)), repeat=k)
        ]

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """One report as a symbolic channel; ``f``, ``p``, ``q`` may be symbols.

        Examples
        --------
        >>> import qifldp as q
        >>> C = q.protocol("rappor", 2, m=1, h=1, rounds="one-time").symbolic(f="f")
        >>> C.matrix[0, 0] + C.matrix[0, 1]
        1
        """
        values = self._symbols(symbols, ("f", "p", "q"))
        k, m = self.k, self._params["m"]
        guard_symbolic_size("rappor", (k, m), k, m * math.log10(2), lambda: 2**m)
        Ps = SymbolicParameters()
        f = Ps.take("f", values["f"], "probability")
        keep1, keep0 = 1 - f / 2, f / 2  # Pr[permanent 1 | bit 1], Pr[permanent 1 | bit 0]
        if self._params["rounds"] == "one-time":
            a, b = keep1, keep0
        else:
            p = Ps.take("p", values["p"], "probability")
            q = Ps.take("q", values["q"], "probability")
            a, b = keep1 * q + (1 - keep1) * p, keep0 * q + (1 - keep0) * p
        R = [[1 - b, b], [1 - a, a]]
        outs = list(itertools.product(range(2), repeat=m))
        rows = [
            [_prod(R[int(self._bloom[x, i])][s[i]] for i in range(m)) for s in outs]
            for x in range(k)
        ]
        return Ps.channel(rows, tuple(range(k)), tuple(outs))

    # ---------------------------------------------------------------- simulation
    def memoize(self, xs: Any, rng: Any = None) -> np.ndarray:
        """The permanent bits of n users, (n, m) booleans (drawn once, reused by every report).

        Each bit is 1 w.p. 1 - f/2 where the Bloom bit is 1, f/2 where it is 0 (one uniform
        per bit; the paper's "replace by a fair coin w.p. f" has this law). O(n m).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=8, h=2, f=0.0)
        >>> bool(np.array_equal(P.memoize([1], rng=0)[0], P.bloom[1]))
        True
        """
        xs = as_values(xs, self.k)
        gen = as_rng(rng)
        B = self._bloom[xs]
        f = self._params["f"]
        if f == 0:
            return B
        return _bernoulli_by_bit(B, 1 - f / 2, f / 2, gen)

    def report(self, permanent: Any, rng: Any = None) -> np.ndarray:
        """One instantaneous report per user from the permanent bits (one-time: them).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=8)
        >>> P.report(P.memoize([0, 2], rng=0), rng=1).shape
        (2, 8)
        """
        bits = check_bits(permanent)
        if bits.shape[1] != self._params["m"]:
            msg = f"permanent bits must have m = {self._params['m']} columns, got {bits.shape[1]}"
            raise ParameterError(msg)
        if self._params["rounds"] == "one-time":
            return bits.copy()
        p, q = self._params["p"], self._params["q"]
        return _bernoulli_by_bit(bits, q, p, as_rng(rng))

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Reports of n users: (n, m) bits, or (T, n, m) with ``reports=T`` (memoised).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("rappor", 3, m=8).sample([0, 1], rng=0, reports=4).shape
        (4, 2, 8)
        """
        return sample_memoized(self, xs, rng, options)

    def _design(self) -> np.ndarray:
        """The pseudo-inverse of the Bloom design X (m x k, X[i, x] = B_i(x)), checked."""
        X = self._bloom.T.astype(float)
        if np.linalg.matrix_rank(X) < self.k:
            msg = (
                f"the {self.k} values' Bloom filters are linearly dependent (m = "
                f"{self._params['m']}, h = {self._params['h']}, seed = {self._params['seed']}): "
                "frequencies are not identifiable by regression; use more bits, another "
                "seed, or qifldp.ibu on the channel"
            )
            raise ParameterError(msg)
        return np.linalg.pinv(X)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies: per-bit counts calibrated, then least squares on the Bloom design.

        Notes
        -----
        t_i = (c_i / n - p*) / (q* - p*) estimates Σ_x f_x B_i(x) without bias (paper
        Sec. 4); f̂ = X⁺ t with X the m x k Bloom design of full column rank (else
        ParameterError). Linear, hence unbiased. O(n m + m k^2).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 3, m=16, h=2, f=0.2, p=0.25, q=0.75)
        >>> xs = np.repeat([0, 1, 2], [5000, 3000, 2000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        bits = check_bits(reports)
        if bits.shape[1] != self._params["m"] or bits.shape[0] == 0:
            msg = f"reports must be an (n, m) bit matrix with n >= 1, m = {self._params['m']}"
            raise ParameterError(msg)
        a, b = self.support_probabilities()
        if a == b:
            msg = "the reports carry no information (q* = p*): no estimate"
            raise ParameterError(msg)
        t = (bits.mean(axis=0) - b) / (a - b)
        f = self._design() @ t
        return project_simplex(f) if project else f

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(q*, p*): Pr[report bit 1 | Bloom bit 1] and [... | Bloom bit 0] (paper Sec. 3.1).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("rappor", 3, f=0.5, p=0.5, q=0.75).support_probabilities()
        (0.6875, 0.5625)
        """
        no_options("support_probabilities", options)
        f, p, q = self._params["f"], self._params["p"], self._params["q"]
        if self._params["rounds"] == "one-time":
            return 1 - f / 2, f / 2
        return f / 2 * (p + q) + (1 - f) * q, f / 2 * (p + q) + (1 - f) * p

    def variance(self, n: int, f: Any = None, **options: Any) -> np.ndarray:
        """The variance of each estimated frequency for n users (frequencies f; default uniform).

        Notes
        -----
        Bits are independent given the values, so Cov(t) is diagonal with
        Var(t_i) = Σ_x f_x r_i(x) (1 - r_i(x)) / (n (q* - p*)^2), r_i(x) = q* if
        B_i(x) else p*; Var(f̂) = diag(X⁺ Cov(t) X⁺ᵀ).

        Examples
        --------
        >>> import qifldp as q
        >>> v = q.protocol("rappor", 3, m=16, h=2).variance(1000)
        >>> v.shape
        (3,)
        """
        no_options("variance", options)
        n = check_n(n)
        freq = np.full(self.k, 1.0 / self.k) if f is None else np.asarray(f, dtype=float)
        if freq.shape != (self.k,):
            msg = f"f must have k = {self.k} frequencies, got shape {freq.shape}"
            raise ParameterError(msg)
        a, b = self.support_probabilities()
        r = np.where(self._bloom, a, b)  # (k, m)
        var_t = (freq @ (r * (1 - r))) / (n * (a - b) ** 2)
        A = self._design()
        return (A**2) @ var_t

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """The Bayes-optimal guess under a uniform prior: a value of largest likelihood.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("rappor", 4, m=16, h=2, f=0.0, p=0.0, q=1.0)
        >>> P.attack(P.sample([3, 1], rng=0), rng=0).tolist()
        [3, 1]
        """
        bits = check_bits(reports).astype(float)
        with np.errstate(divide="ignore"):
            L = np.log(self._bit_channel())  # L[Bloom bit, reported bit]
        B = self._bloom
        score = np.zeros((bits.shape[0], self.k))
        impossible = np.zeros_like(score)
        for reported, weight in ((1, bits), (0, 1 - bits)):
            W = np.where(B, L[1, reported], L[0, reported])  # (k, m)
            finite = np.isfinite(W)
            score += weight @ np.where(finite, W, 0.0).T
            impossible += weight @ (~finite).T
        score[impossible > 0] = -np.inf
        return choose_uniform_true(score == score.max(axis=1, keepdims=True), as_rng(rng))


def _bernoulli_by_bit(
    bits: np.ndarray, one: float, zero: float, gen: np.random.Generator
) -> np.ndarray:
    """Independent bits: 1 w.p. ``one`` where ``bits`` is 1, w.p. ``zero`` where it is 0.

    One random byte a bit (:func:`~qifldp.simulation.util.bernoulli_where`, the exact law
    of a uniform compared with the probability), in cache-sized row blocks. O(n m).

    Examples
    --------
    >>> _bernoulli_by_bit(np.array([[True, False]]), 1.0, 0.0, np.random.default_rng(0)).tolist()
    [[True, False]]
    """
    bits = np.ascontiguousarray(bits, dtype=bool)
    out = np.empty(bits.shape, dtype=bool)
    for s, e in row_chunks(*bits.shape):
        bernoulli_where(out[s:e], bits[s:e], one, zero, gen)
    return out


def _prod(items: Any) -> Any:
    out: Any = 1
    for v in items:
        out = out * v
    return out


def _rebuild_rappor(k: int, args: dict) -> RAPPOR:
    return RAPPOR(k, **args)
