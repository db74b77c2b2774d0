"""What T reports of a Bloom-filter protocol reveal, lumped by the composition of the bits.

Each of the m Bloom bits goes through the same channel from its Bloom bit to what its
reports show (for RAPPOR, each bit's T reports summarised by their count of ones: n = T + 1
symbols with log-probabilities ``L[b, y]``); given the value's filter the bits are
independent. With r(y) = c_1(y) / c_0(y) the per-bit likelihood ratio,

    ML = Σ_{y ∈ [n]^m} Π_j c_0(y_j) · max_x Π_{j ∈ B(x)} r(y_j).

When the maximum depends on y only through the multiset of its symbols, the n^m outputs
are grouped by their composition a (a_s bits show symbol s; Σ_s a_s = m), each weighing
m! / Π a_s! Π_s c_0(s)^(a_s): C(m + n - 1, n - 1) terms instead of n^m. Two hash models
have that property:

* a **uniformly random hash** (:func:`bayes_capacity_random_hash_bits`): each value's h
  positions drawn independently and uniformly from the m bits (collisions allowed), the
  table revealed to the adversary (the visible choice over tables); given y the values'
  products V_x are i.i.d. and their law depends on a alone, so E max_x V_x is the
  expected largest of k i.i.d. draws;
* a **fixed table whose filters are every subset of the used bits of some sizes**
  (:func:`bayes_capacity_symmetric_filters`): the maximum over filters of size z is the
  product of the z largest ratios.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
from scipy.special import gammaln

from ..channel import check_size, guard_work
from ..errors import ParameterError, SizeError
from ..validation import check_int

__all__ = [
    "bloom_table",
    "bloom_bits",
    "MAX_INDEPENDENT_SETS",
    "MAX_OVERLAP_DRAWS",
    "MAX_PAIR_STEPS",
    "MAX_PAIR_TERMS",
    "bayes_capacity_pair_filters",
    "bit_revealed",
    "check_hashes",
    "mean_distinct_filters",
    "bayes_capacity_random_hash_bits",
    "bayes_capacity_symmetric_filters",
    "composition_count",
    "filter_overlap_law",
]

#: Compositions formed per chunk (bounded memory at any size).
_CHUNK: int = 2**16


def composition_count(m: int, n: int) -> int:
    """The number of compositions of m bits into n symbols' counts: C(m + n - 1, n - 1).

    Examples
    --------
    >>> composition_count(16, 3)  # m = 16 bits, T = 2 reports: counts 0, 1, 2
    153
    """
    return math.comb(m + n - 1, n - 1)


def _compositions(m: int, n: int, chunk: int = _CHUNK) -> Iterator[np.ndarray]:
    """All compositions of m into n nonnegative parts, in chunks of rows (int64): the
    first parts chosen in a loop until the rest numbers at most about ``chunk``."""
    if n == 1 or composition_count(m, n) <= chunk:
        yield _expand(np.zeros((1, 0), dtype=np.int64), np.array([m]), n)
        return
    for first in range(m, -1, -1):
        for rest in _compositions(m - first, n - 1, chunk):
            head = np.full((rest.shape[0], 1), first, dtype=np.int64)
            yield np.hstack([head, rest])


def _expand(prefix: np.ndarray, left: np.ndarray, n: int) -> np.ndarray:
    """Every completion of the rows of ``prefix`` (``left`` still to place) to n parts."""
    rows = prefix
    while rows.shape[1] < n - 1:
        counts = left + 1
        starts = np.cumsum(counts) - counts
        value = np.arange(int(counts.sum())) - np.repeat(starts, counts)
        rows = np.hstack([np.repeat(rows, counts, axis=0), value[:, None]])
        left = np.repeat(left, counts) - value
    return np.hstack([rows, left[:, None]])


def _check_bits_channel(L: Any) -> np.ndarray:
    M = np.asarray(L, dtype=float)
    if M.ndim != 2 or M.shape[0] != 2 or M.shape[1] < 1:
        msg = f"L must be a log bit channel of shape (2, n), got shape {M.shape}"
        raise ParameterError(msg)
    if np.any(np.isnan(M) | (M > 1e-9)):
        msg = "L must hold log-probabilities (<= 0, no NaN)"
        raise ParameterError(msg)
    if np.any((M[0] == -np.inf) & (M[1] > -np.inf)):
        msg = "L must give every symbol positive probability under Bloom bit 0"
        raise ParameterError(msg)
    return np.minimum(M, 0.0)


def _log_weights(a: np.ndarray, m: int, L0: np.ndarray) -> np.ndarray:
    """log of m! / Π a_s! Π_s c_0(s)^(a_s) per composition (row of a)."""
    with np.errstate(invalid="ignore"):
        powers = np.where(a > 0, a * L0[None, :], 0.0)  # 0 * -inf = 0: an unused symbol
    return float(gammaln(m + 1)) - gammaln(a + 1.0).sum(axis=1) + powers.sum(axis=1)


def bayes_capacity_symmetric_filters(L: Any, u: int, sizes: Any) -> float:
    """ML of a fixed table whose distinct filters are every subset of its u used bits of
    the given sizes, each bit through the log bit channel L (shape (2, n)).

    Parameters
    ----------
    L : array_like, shape (2, n)
        log Pr[symbol | Bloom bit]; row 0 for bit 0 (every symbol positive there).
    u : int
        The bits some filter sets (the others have the same law under every value and
        factor out).
    sizes : iterable of int
        The filter sizes z; the filters must be exactly all z-subsets of the u bits for
        each z (the caller checks it).

    Returns
    -------
    float
        Σ_a u! / Π a_s! Π_s c_0(s)^(a_s) · max_z Π (the z largest ratios of a).

    Raises
    ------
    SizeError
        More than :data:`~qifldp.channel.MAX_ENTRIES` compositions x sizes x symbols.

    Notes
    -----
    O(C(u + n - 1, n - 1) |sizes| n) in chunks, in log space.

    Examples
    --------
    >>> import itertools
    >>> R = np.array([[0.75, 0.25], [0.25, 0.75]])  # every pair of 3 bits is a filter
    >>> ml = bayes_capacity_symmetric_filters(np.log(R), 3, [2])
    >>> brute = sum(max(np.prod([R[int(j in S), y[j]] for j in range(3)])
    ...                 for S in itertools.combinations(range(3), 2))
    ...             for y in itertools.product(range(2), repeat=3))
    >>> round(ml, 12) == round(float(brute), 12)
    True
    """
    M = _check_bits_channel(L)
    u = check_int("u", u, minimum=1)
    zs = sorted({check_int("sizes", z, minimum=1, maximum=u) for z in sizes})
    if not zs:
        msg = "sizes must name at least one filter size"
        raise ParameterError(msg)
    n = M.shape[1]
    count = composition_count(u, n)
    per = len(zs) * n
    guard_work(
        f"the Bayes capacity over {u} bits with {n} symbols each",
        f"sum over {count} compositions x {per} terms",
        math.log10(max(count * per, 1)),
        lambda: count * per,
        "Use fewer reports T (fewer symbols per bit) or fewer bits.",
    )
    with np.errstate(invalid="ignore"):
        log_r = np.where(M[1] == -np.inf, -np.inf, M[1] - M[0])
    order = np.argsort(-log_r, kind="stable")  # symbols by decreasing ratio
    total = 0.0
    for a in _compositions(u, n):
        log_w = _log_weights(a, u, M[0])
        sorted_a = a[:, order]
        above = np.cumsum(sorted_a, axis=1) - sorted_a  # bits of larger ratio
        best = np.full(a.shape[0], -np.inf)
        for z in zs:
            take = np.clip(z - above, 0, sorted_a)  # bits of each symbol among the top z
            with np.errstate(invalid="ignore"):
                terms = np.where(take > 0, take * log_r[order][None, :], 0.0)
            best = np.maximum(best, terms.sum(axis=1))
        total += float(np.exp(log_w + best).sum())
    return total


def _multisets(n: int, size: int) -> np.ndarray:
    """All count vectors of n symbols summing to ``size`` (rows)."""
    return np.vstack(list(_compositions(size, n)))


def _surjections(h: int, d: int) -> int:
    """The sequences of h positions whose set is a given set of d positions: d! S(h, d)."""
    return sum((-1) ** i * math.comb(d, i) * (d - i) ** h for i in range(d + 1))


def bayes_capacity_random_hash_bits(L: Any, m: int, h: int, k: int) -> float:
    """ML of k values' Bloom filters under a uniformly random hash (the table revealed),
    each of the m bits through the log bit channel L (shape (2, n)).

    The hash draws each value's h positions independently and uniformly from the m bits
    (collisions allowed: a filter has 1 to h bits); the result is the mean of the fixed
    tables' ML over all (m^h)^k tables, which is the Bayes capacity of their visible
    choice.

    Parameters
    ----------
    L : array_like, shape (2, n)
        log Pr[symbol | Bloom bit]; row 0 for bit 0 (every symbol positive there).
    m, h, k : int
        Bits, hash functions, values.

    Returns
    -------
    float
        Σ_a m! / Π a_s! Π_s c_0(s)^(a_s) · E[max of k i.i.d. V], V = Π_s r(s)^(μ_s) with
        Pr[μ | a] = d! S(h, d) Π_s C(a_s, μ_s) / m^h for a set of d = |μ| distinct bits
        showing the symbols μ.

    Raises
    ------
    SizeError
        More than :data:`~qifldp.channel.MAX_ENTRIES` compositions x atoms of V x h.

    Notes
    -----
    Given the symbols y, the values' filters are independent, so their products
    V_x = Π_{j ∈ B(x)} r(y_j) are i.i.d. with a law depending on the composition of y
    alone: E max = Σ_i v_i (F_i^k - F_{i-1}^k) over the atoms sorted by value (the order
    is the same for every composition), formed as F_i^k (1 - (1 - p_i / F_i)^k) in log
    space. O(C(m + n - 1, n - 1) A) with A = Σ_{d <= h} C(n + d - 1, d) atoms.

    Examples
    --------
    >>> import itertools
    >>> R = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> ml = bayes_capacity_random_hash_bits(np.log(R), 2, 1, 2)
    >>> tables = list(itertools.product(range(2), repeat=2))  # each value's one position
    >>> brute = np.mean([sum(max(np.prod([R[int(j == t[x]), y[j]] for j in range(2)])
    ...                          for x in range(2))
    ...                      for y in itertools.product(range(2), repeat=2)) for t in tables])
    >>> round(ml, 12) == round(float(brute), 12)
    True
    """
    M = _check_bits_channel(L)
    m = check_int("m", m, minimum=1)
    h = check_int("h", h, minimum=1)
    k = check_int("k", k, minimum=1)
    n = M.shape[1]
    with np.errstate(invalid="ignore"):
        log_r = np.where(M[1] == -np.inf, -np.inf, M[1] - M[0])
    atoms = np.vstack([_multisets(n, d) for d in range(1, min(h, m) + 1)])  # (A, n)
    count = composition_count(m, n)
    per = atoms.shape[0] * h
    guard_work(
        f"the random-hash Bayes capacity over {m} bits with {n} symbols each and h = {h}",
        f"sum over {count} compositions x {per} terms",
        math.log10(max(count * per, 1)),
        lambda: count * per,
        "Use fewer reports T (fewer symbols per bit), fewer bits or hash functions.",
    )
    with np.errstate(invalid="ignore"):
        log_v = np.where(atoms > 0, atoms * log_r[None, :], 0.0).sum(axis=1)
    order = np.argsort(log_v, kind="stable")
    atoms, log_v = atoms[order], log_v[order]
    # each atom as (symbol, count) pairs, at most h of them (count 0: padding)
    width = min(h, m)
    sym = np.zeros((atoms.shape[0], width), dtype=np.int64)
    cnt = np.zeros((atoms.shape[0], width), dtype=np.int64)
    for i, row in enumerate(atoms):
        nz = np.flatnonzero(row)
        sym[i, : nz.size], cnt[i, : nz.size] = nz, row[nz]
    d = atoms.sum(axis=1)
    # log Pr[atom | a] = log surj(h, d) - h log m + Σ_s log(a_s! / ((a_s - μ_s)! μ_s!))
    base = np.array([math.log(_surjections(h, int(di))) for di in d]) - h * math.log(m)
    ra = np.arange(m + 1)[:, None]
    rc = np.arange(width + 1)[None, :]
    with np.errstate(invalid="ignore"):
        log_choose = np.where(
            rc <= ra,
            gammaln(ra + 1.0) - gammaln(rc + 1.0) - gammaln(np.maximum(ra - rc, 0) + 1.0),
            -np.inf,
        )  # (m + 1, width + 1): log C(a, c)
    chunk = max(1, 2**22 // (atoms.shape[0] * width))
    total = 0.0
    for a in _compositions(m, n, chunk):
        log_w = _log_weights(a, m, M[0])
        lp = base[None, :] + log_choose[a[:, sym], cnt[None, :, :]].sum(axis=2)  # (c, A)
        prob = np.exp(lp)
        prob /= prob.sum(axis=1, keepdims=True)  # rounding: the law sums to 1
        F = np.cumsum(prob, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(prob > 0, np.minimum(prob / F, 1.0), 0.0)
            log_diff = k * np.log(F) + np.log(-np.expm1(k * np.log1p(-share)))
            terms = np.where(prob > 0, log_diff + log_v[None, :], -np.inf)
        total += float(np.exp(log_w[:, None] + terms).sum())
    return total


def bit_revealed(L: Any, params: dict) -> bool:
    """Whether every symbol of the log bit channel L is possible under one Bloom bit only
    (RAPPOR with f = 0, and p = 0, q = 1 for its reports: the output shows the filter).

    Raises
    ------
    ParameterError
        Some symbols possible under Bloom bit 1 only, others under both (the count
        compositions need every symbol possible under bit 0); ``params`` (f, p, q) are named.

    Examples
    --------
    >>> shown = np.array([[0.0, -np.inf], [-np.inf, 0.0]])  # f = 0: the bit itself
    >>> bit_revealed(shown, {}), bit_revealed(np.zeros((2, 1)), {})
    (True, False)
    """
    with np.errstate(divide="ignore"):
        possible = np.asarray(L, dtype=float) > -np.inf
    if not np.any(possible[1] & ~possible[0]):
        return False
    if np.any(possible[0] & possible[1]):
        named = ", ".join(f"{key} = {params[key]}" for key in ("f", "p", "q") if key in params)
        msg = (
            f"rappor with {named}: some report counts are impossible under Bloom bit 0 and "
            "others possible under both, which the Bayes capacity by count compositions "
            "cannot weigh; use f > 0 (or p > 0)"
        )
        raise ParameterError(msg)
    return True


def mean_distinct_filters(m: int, h: int, k: int) -> float:
    """E[number of distinct filters of k values], each the set of h uniform draws from m
    bits: Σ_d C(m, d) (1 - (1 - d! S(h, d) / m^h)^k) over the d-sets of bits (the Bayes
    capacity of a revealed filter under a random hash).

    Examples
    --------
    >>> mean_distinct_filters(2, 1, 2)  # two values on two bits: 1 or 2 filters
    1.5
    """
    m = check_int("m", m, minimum=1)
    h = check_int("h", h, minimum=1, maximum=MAX_OVERLAP_DRAWS)
    k = check_int("k", k, minimum=1)
    total = 0.0
    for d in range(1, min(h, m) + 1):
        pi = _surjections(h, d) / m**h
        total += math.comb(m, d) * -math.expm1(k * math.log1p(-pi))
    return total


#: Most hash functions h of :func:`filter_overlap_law` (RAPPOR's h <= m <= 64): h^3 steps.
MAX_OVERLAP_DRAWS: int = 64


def check_hashes(h: Any, m: int) -> int:
    """RAPPOR's number of hash functions h: an integer in 1..m, with the reason in the error.

    A filter sets at most m bits, so hashes beyond m only collide; and the random-hash
    leakage (:func:`filter_overlap_law`, :func:`mean_distinct_filters`) takes h <=
    :data:`MAX_OVERLAP_DRAWS` = 64, the largest m: h <= m keeps it computable.

    Examples
    --------
    >>> check_hashes(2, 8)
    2
    >>> check_hashes(3, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: h must be <= m = 2 (one hash per Bloom bit at most), got 3: ...
    """
    h = check_int("h", h, minimum=1)
    if h > m:
        msg = (
            f"h must be <= m = {m} (one hash per Bloom bit at most), got {h}: a filter sets "
            "at most m bits, so more hashes only collide, and the random-hash leakage "
            "(closed_form.random_hash: bloom_reports.filter_overlap_law, h^3 steps) takes "
            f"h <= MAX_OVERLAP_DRAWS = {MAX_OVERLAP_DRAWS}, the largest m. Use h <= {m}, or "
            "more bits m (up to 64)"
        )
        raise ParameterError(msg)
    return h


def filter_overlap_law(m: int, h: int) -> dict[tuple[int, int], float]:
    """The law of (|A \\ B|, |B \\ A|) for two filters A, B of h uniformly random positions
    each among m bits (independent, collisions allowed).

    Notes
    -----
    A has d distinct bits with probability C(m, d) d! S(h, d) / m^h (d! S(h, d) the
    sequences of h draws onto a given d-set); given A, B's draws cover i of A's bits and
    j others with probability C(d, i) C(m - d, j) (i + j)! S(h, i + j) / m^h; then
    |A \\ B| = d - i and |B \\ A| = j. O(min(h, m)^2 h) exact integer
    terms, h <= :data:`MAX_OVERLAP_DRAWS`.

    Examples
    --------
    >>> law = filter_overlap_law(4, 1)  # one position each: equal w.p. 1/4
    >>> law[(0, 0)], law[(1, 1)]
    (0.25, 0.75)
    """
    m = check_int("m", m, minimum=1)
    h = check_int("h", h, minimum=1, maximum=MAX_OVERLAP_DRAWS)
    top = min(h, m)  # distinct bits of a filter
    surj = [_surjections(h, d) for d in range(top + 1)]
    law: dict[tuple[int, int], int] = {}
    for d in range(1, top + 1):
        n_a = math.comb(m, d) * surj[d]
        for i in range(min(d, h) + 1):
            for j in range(min(h - i, m - d) + 1):
                n_b = math.comb(d, i) * math.comb(m - d, j) * surj[i + j]
                if n_a * n_b:
                    key = (d - i, j)
                    law[key] = law.get(key, 0) + n_a * n_b
    denom = m ** (2 * h)
    return {key: count / denom for key, count in sorted(law.items())}


#: Most independent sets of the filters' graph that :func:`bayes_capacity_pair_filters`
#: walks (each is a step of a loop, at each threshold).
MAX_INDEPENDENT_SETS: int = 10**4
#: Most (independent set, threshold, bit) steps of :func:`bayes_capacity_pair_filters`
#: (each a small array operation: 10^5 take 2 to 8 s on a shared machine).
MAX_PAIR_STEPS: int = 5 * 10**5
#: Most (independent set, symbols of its bits) terms per threshold of
#: :func:`bayes_capacity_pair_filters`, summed over its thresholds, before it is refused.
MAX_PAIR_TERMS: int = 10**7


def bayes_capacity_pair_filters(L: Any, u: int, pairs: Any, singles: Any) -> float:
    """ML of a fixed table whose distinct filters are single bits and pairs of bits
    (h <= 2), any of them missing, each bit through the log bit channel L.

    Parameters
    ----------
    L : array_like, shape (2, n)
        log Pr[symbol | Bloom bit]; row 0 for bit 0 (every symbol positive there).
    u : int
        The used bits, 0 .. u - 1 (each in some filter).
    pairs : iterable of (int, int)
        The two-bit filters: the edges of a graph G on the bits.
    singles : iterable of int
        The one-bit filters.

    Returns
    -------
    float
        E[M] for y ~ c_0^u, M = max(max_{i single} r(y_i), max_{ij ∈ G} r(y_i) r(y_j)).

    Raises
    ------
    SizeError
        More than :data:`MAX_INDEPENDENT_SETS` independent sets,
        :data:`MAX_PAIR_STEPS` steps or :data:`MAX_PAIR_TERMS` terms (sparse graphs on
        many bits).

    Notes
    -----
    M takes the values w_1 < … < w_K of the single ratios and the pairs' products, so
    E[M] = w_1 + Σ_{t >= 2} (w_t - w_(t-1)) (1 - Pr[M <= w_(t-1)]). At a threshold w, call
    a symbol high when r(s)^2 > w: two adjacent bits both high exceed w, two low ones do
    not, so the high bits H form an independent set of G; given H and its symbols, the
    other bits are independent, each bounded by its highest neighbour in H (the symbols
    s with r(s) r(σ) <= w, a down-set in the ratio order). Thus
    Pr[M <= w] = Σ_{H independent} Σ_{(s_i)_{i ∈ H} high} Π_{i ∈ H} c_0(s_i) Π_{j ∉ H}
    Pr_0[y_j low, r(y_j) r(σ_j) <= w, and r(y_j) <= w if j is single], σ_j the highest
    symbol among j's neighbours in H. Bits on no edge factor out. The comparisons are
    made on the same float sums of log-ratios that give the w_t. Cost: Σ_H |high|^|H|
    terms per threshold, small on the dense graphs of large k.

    Examples
    --------
    >>> import itertools
    >>> R = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    >>> filters = [{0, 1}, {1, 2}, {3}]  # a path and a lone bit
    >>> ml = bayes_capacity_pair_filters(np.log(R), 4, [(0, 1), (1, 2)], [3])
    >>> brute = sum(max(math.prod(R[int(j in S), y[j]] for j in range(4)) for S in filters)
    ...             for y in itertools.product(range(3), repeat=4))
    >>> round(ml, 12) == round(float(brute), 12)
    True
    """
    M = _check_bits_channel(L)
    u = check_int("u", u, minimum=1)
    edges = {
        tuple(
            sorted(
                (
                    check_int("pairs", a, minimum=0, maximum=u - 1),
                    check_int("pairs", b, minimum=0, maximum=u - 1),
                )
            )
        )
        for a, b in pairs
    }
    if any(a == b for a, b in edges):
        msg = "pairs must join two different bits (a one-bit filter goes in singles)"
        raise ParameterError(msg)
    single = np.zeros(u, dtype=bool)
    for i in singles:
        single[check_int("singles", i, minimum=0, maximum=u - 1)] = True
    neighbours: list[set[int]] = [set() for _ in range(u)]
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    if any(not neighbours[i] and not single[i] for i in range(u)):
        msg = "every bit 0 .. u - 1 must be in some filter (pairs or singles)"
        raise ParameterError(msg)
    live = M[0] > -np.inf  # a symbol impossible under bit 0 is impossible under 1 too
    c0 = np.exp(M[0, live])
    with np.errstate(invalid="ignore"):
        lam = np.where(M[1, live] == -np.inf, -np.inf, M[1, live] - M[0, live])
    order = np.argsort(lam, kind="stable")
    c0, lam = c0[order], lam[order]  # symbols by increasing ratio
    n = lam.size
    sums = lam[:, None] + lam[None, :]
    values = list(sums[np.triu_indices(n)]) if edges else []
    if single.any():
        values += list(lam)
    # -inf stays a value: M = 0 when every filter shows a symbol of ratio 0
    w = np.unique(np.asarray(values, dtype=float))
    isolated = [i for i in range(u) if not neighbours[i]]
    joined = [i for i in range(u) if neighbours[i]]
    sets = _independent_sets(joined, neighbours, MAX_INDEPENDENT_SETS)
    steps = len(sets) * max(0, w.size - 1) * max(1, len(joined))
    if steps > MAX_PAIR_STEPS:
        msg = (
            f"the pair-filter Bayes capacity over {u} bits would take {len(sets)} independent "
            f"sets x {w.size - 1} thresholds x {len(joined)} bits = {steps} steps, more than "
            f"MAX_PAIR_STEPS = {MAX_PAIR_STEPS}. Use fewer reports T or a denser table "
            "(more values)."
        )
        raise SizeError(msg)
    plans = []
    for H in sets:
        inside = set(H)
        others = [j for j in joined if j not in inside]
        cols = [[H.index(i) for i in neighbours[j] if i in inside] for j in others]
        plans.append((H, others, cols))
    work = 0

    def at_most(t: float) -> float:
        """Pr[M <= t]."""
        nonlocal work
        ok1 = lam <= t
        ok2 = sums <= t
        high = ~np.diag(ok2)
        # per kind of bit (plain, single): Pr_0 of a low symbol within its bounds, below
        # a neighbour's symbol σ (columns 0 .. n - 1) or with no neighbour in H (column n)
        tables = []
        for lone in (False, True):
            base = ~high & (ok1 if lone else True)
            tables.append(np.append((c0 * base) @ ok2, c0[base].sum()))
        total = 0.0
        for H, others, cols in plans:
            allowed = [np.flatnonzero(high & (ok1 if single[i] else True)) for i in H]
            if any(a.size == 0 for a in allowed):
                continue
            grid = (
                np.stack(np.meshgrid(*allowed, indexing="ij"), axis=-1).reshape(-1, len(H))
                if H
                else np.zeros((1, 0), dtype=np.int64)
            )
            work += grid.shape[0] * max(1, len(others))
            if work > MAX_PAIR_TERMS:
                msg = (
                    f"the pair-filter Bayes capacity over {u} bits would sum more than "
                    f"MAX_PAIR_TERMS = {MAX_PAIR_TERMS} (independent set, symbols) terms "
                    f"({len(sets)} independent sets of the filters' graph). Use fewer reports "
                    "T or a denser table (more values)."
                )
                raise SizeError(msg)
            term = np.prod(c0[grid], axis=1)
            for j, c in zip(others, cols, strict=True):
                table = tables[int(single[j])]
                if not c:
                    term = term * table[n]
                else:  # the most binding neighbour: the highest symbol
                    term = term * table[grid[:, c].max(axis=1)]
            total += float(term.sum())
        for _ in isolated:
            total *= float(c0[ok1].sum())
        return total

    ev = np.exp(w)
    out = float(ev[0])
    for t in range(1, w.size):
        out += float(ev[t] - ev[t - 1]) * max(0.0, 1.0 - at_most(float(w[t - 1])))
    return out


def _independent_sets(vertices: list[int], neighbours: list[set[int]], limit: int) -> list:
    """Every independent set of the graph on ``vertices`` (tuples), at most ``limit``."""
    out: list[tuple[int, ...]] = []

    def grow(i: int, chosen: tuple[int, ...], banned: frozenset) -> None:
        if len(out) > limit:
            msg = f"the filters' graph has more than {limit} independent sets"
            raise SizeError(msg)
        if i == len(vertices):
            out.append(chosen)
            return
        v = vertices[i]
        grow(i + 1, chosen, banned)
        if v not in banned:
            grow(i + 1, (*chosen, v), banned | neighbours[v])

    grow(0, (), frozenset())
    return out


def bloom_table(k: int, m: int, h: int, seed: int) -> np.ndarray:
    """The fixed hash family member: h positions in 0..m-1 per value (k x h, int64).

    Drawn by ``numpy.random.default_rng(seed)``, independently per value and function.
    Refused before it is drawn (SizeError) beyond ``MAX_ENTRIES`` entries (k h).

    Examples
    --------
    >>> bloom_table(3, 8, 2, 0).shape
    (3, 2)
    """
    check_size(k, h, f"the hash table of {k} values x {h} functions", _TABLE_ALTERNATIVE)
    return np.random.default_rng(seed).integers(0, m, size=(k, h))


#: What a hashed protocol too large for its hash table offers instead.
_TABLE_ALTERNATIVE = (
    "a smaller k (the table holds every value's hashes), or the protocol's closed forms "
    "(.closed_form) where they need no table"
)


def bloom_bits(table: np.ndarray, m: int) -> np.ndarray:
    """The Bloom filters of the values of a hash table (k x h positions): (k, m) booleans.

    Examples
    --------
    >>> bloom_bits(np.array([[0, 2], [1, 1]]), 3).astype(int).tolist()
    [[1, 0, 1], [0, 1, 0]]
    """
    k = table.shape[0]
    check_size(k, m, f"the Bloom filters of {k} values x {m} bits", _TABLE_ALTERNATIVE)
    B = np.zeros((table.shape[0], m), dtype=bool)
    B[np.arange(table.shape[0])[:, None], table] = True
    return B
