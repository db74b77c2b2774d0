"""Client side: vectorised randomisers for n users, for any channel and for each LDP protocol."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..validation import check_choice, check_eps, check_int
from ..channel import Channel, as_channel, check_size
from ..errors import InputTypeError, ParameterError
from ..protocols import params as _mp
from ._util import as_array, as_rng, as_values, check_memory, row_chunks

__all__ = [
    "DEFAULT_PRIME",
    "LHReports",
    "sample",
    "sample_grr",
    "sample_ss",
    "sample_lh",
    "sample_blh",
    "sample_olh",
    "sample_ue",
    "sample_sue",
    "sample_oue",
    "sample_the",
    "universal_hash",
    "universal_lh_channel",
    "lh_collision_probability",
]

#: Default prime P of the universal hash family h(x) = ((a x + b) mod P) mod g:
#: the Mersenne prime 2^31 − 1 (keeps every intermediate value in 32/64-bit integers).
DEFAULT_PRIME: int = (1 << 31) - 1


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
# GRR
# ----------------------------------------------------------------------------------------
def sample_grr(xs: Any, k: int, eps: float, rng: Any = None) -> np.ndarray:
    """Generalized randomized response for n users.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Reports in 0..k-1 (the output labels of ``qifldp.grr(k, eps)``).

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``k``, ``eps`` or ``xs``.

    Notes
    -----
    Keep x with probability p = e^ε/(e^ε + k − 1), otherwise report one of the
    k − 1 other values uniformly (r uniform in 0..k-2, report r + [r >= x]), so
    each other value has probability q = 1/(e^ε + k − 1). O(n).

    Examples
    --------
    >>> ys = sample_grr([0, 1, 2, 3], k=4, eps=50.0, rng=0)
    >>> ys.tolist()
    [0, 1, 2, 3]
    """
    p, _ = _mp.grr_probabilities(k, eps)
    k = check_int("k", k, minimum=2, maximum=MAX_SS_K)
    xs = as_values(xs, k)
    rng = as_rng(rng)
    n = xs.size
    keep = rng.random(n) < p
    r = rng.integers(0, k - 1, size=n)
    other = r + (r >= xs)
    return np.where(keep, xs, other)


# ----------------------------------------------------------------------------------------
# SS
# ----------------------------------------------------------------------------------------
def _ss_mask(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """Membership rows of ω-SS for a block of users, shape (n, k + 1) (last column False).

    The true value x is in the subset w.p. p; the rest is a uniform subset of
    the m = k − 1 other values, of size s_in = ω − 1 (x in) or s_out = ω (x out),
    drawn by Floyd's algorithm over indices 0..m-1 mapped to values by
    i -> i + [i >= x]: for j = m − s, ..., m − 1 draw t uniform in 0..j and add t,
    or j if t is already chosen. When ω − 1 > m − ω the complement (sizes
    m − ω + 1, m − ω) is drawn instead and inverted. The two sizes differ by
    one, so all users share Floyd's steps except the first, which only the
    larger group takes (the others write to a scratch column).
    """
    n = xs.size
    m = k - 1
    incl = rng.random(n) < p
    complement = omega - 1 > m - omega
    s_in, s_out = (m - omega + 1, m - omega) if complement else (omega - 1, omega)
    steps = max(s_in, s_out)
    big = incl if s_in > s_out else ~incl  # the group of the larger size
    mask = np.zeros((n, k + 1), dtype=bool)  # column k: scratch
    if steps:
        flat = mask.reshape(-1)
        base = np.arange(n) * (k + 1)
        for step, j in enumerate(range(m - steps, m)):
            t = rng.integers(0, j + 1, size=n)  # uniform in 0..j (exact)
            t += t >= xs  # index -> value (skip x)
            t += base
            vj = base + (xs <= j)  # j -> value, as a flat index
            vj += j
            choice = np.where(flat[t], vj, t)
            if step == 0 and s_in != s_out:
                choice = np.where(big, choice, base + k)
            flat[choice] = True
    rows = np.arange(n)
    if complement:
        np.logical_not(mask, out=mask)
        mask[rows, xs] = False
    mask[:, k] = False
    mask[rows[incl], xs[incl]] = True
    return mask  # (n, k + 1), last column all False


def sample_ss(
    xs: Any,
    k: int,
    eps: float,
    omega: int | None = None,
    rng: Any = None,
    *,
    output: str = "subsets",
) -> np.ndarray:
    """ω-Subset Selection for n users.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    omega : int, optional
        Subset size, 1 <= ω <= k; default max(1, ⌊k/(e^ε + 1)⌉).
    rng : numpy.random.Generator or int, optional
    output : {"subsets", "membership"}
        ``"subsets"``: an (n, ω) int64 array, each row sorted ascending (the
        output labels of ``qifldp.subset_selection`` are these rows as tuples);
        ``"membership"``: an (n, k) boolean matrix, row j marking user j's subset.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``k``, ``eps``, ``omega``, ``xs`` or ``output``.
    SizeError
        The output (n ω int64, or n k booleans) beyond the memory budget.

    Notes
    -----
    The true value is included with probability p = ω e^ε/(ω e^ε + k − ω); the
    remaining ω − 1 (or ω) values are a uniform subset of the k − 1 others.
    When k <= :data:`SS_DENSE_RATIO` · ω they are drawn by Floyd's algorithm on
    a membership mask, vectorised over users (drawing the complement when it
    is smaller); otherwise sparsely, as the first distinct values of uniform
    draws (:func:`_ss_subsets_sparse`), so the work is sized by n ω, never by
    n k. Blocks of about 2^20 cells. Time O(n ω log ω) (plus O(n k) for the
    membership matrix); the output is checked against
    ``qifldp.simulation.MEMORY_BUDGET_BYTES`` before it is allocated.

    Examples
    --------
    >>> S = sample_ss([0, 3], k=6, eps=1.0, omega=2, rng=0)
    >>> S.shape, bool((S[:, 0] < S[:, 1]).all())
    ((2, 2), True)
    """
    k, eps, omega = _mp.check_ss(k, eps, omega)
    check_choice("output", output, ("subsets", "membership"))
    if k > MAX_SS_K:
        msg = f"k must be <= {MAX_SS_K} for sample_ss (values are stored as int64), got {k}"
        raise ParameterError(msg)
    xs = as_values(xs, k)
    rng = as_rng(rng)
    p = _mp.ss_probabilities(k, eps, omega)[0]
    n = xs.size
    alt = "fewer users per call (sample in batches and concatenate)"
    if output == "membership":
        check_memory(n, k, f"the (n, k) membership matrix of sample_ss (n = {n}, k = {k})", alt)
        out = np.zeros((n, k), dtype=bool)
    else:
        check_memory(
            n * omega, 8, f"the (n, omega) subsets of sample_ss (n = {n}, omega = {omega})", alt
        )
        out = np.empty((n, omega), dtype=np.int64)
    dense = k <= SS_DENSE_RATIO * omega
    keys = dense and SS_KEYS_MIN_K < k <= SS_KEYS_MAX_K
    # rows per block: about 2^20 cells of working storage, and row * k < 2^62 (int64 codes)
    step = max(1, min((1 << 20) // (k + 1 if dense else omega), (1 << 62) // (k + 1)))
    for s in range(0, n, step):
        e = min(n, s + step)
        if dense and not keys:
            mask = _ss_mask(xs[s:e], k, omega, p, rng)
            if output == "membership":
                out[s:e] = mask[:, :k]
            else:  # row-major positions of the True cells, already sorted within each row
                out[s:e] = (np.flatnonzero(mask) % (k + 1)).reshape(e - s, omega)
        else:
            draw = _ss_subsets_keys if keys else _ss_subsets_sparse
            sub = draw(xs[s:e], k, omega, p, rng)
            if output == "membership":
                out[np.repeat(np.arange(s, e), omega), sub.reshape(-1)] = True
            else:
                out[s:e] = sub
    return out


#: sample_ss draws subsets on an (n, k) membership mask (Floyd's algorithm) when
#: k <= SS_DENSE_RATIO * omega (the mask is then at most this many times the output);
#: otherwise it draws each subset sparsely, in O(omega) memory per user.
SS_DENSE_RATIO: int = 4

#: In the dense regime (k <= SS_DENSE_RATIO * omega), domains with
#: SS_KEYS_MIN_K < k <= SS_KEYS_MAX_K draw each subset as the smallest of k − 1
#: uniform keys (one vectorised argpartition per block of users) instead of
#: Floyd's algorithm, whose ω − 1 sequential steps per block dominate when a block
#: holds few users; the keys of one user take at most 8 SS_KEYS_MAX_K bytes.
SS_KEYS_MIN_K: int = 1024
SS_KEYS_MAX_K: int = (1 << 22) + 1


def _ss_subsets_keys(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """Sorted ω-SS subsets of a block of users, shape (n, ω), by random keys.

    The true value x is in the subset w.p. p; the other values are the indices
    of the ω − 1 (x in) or ω (x out) smallest of m = k − 1 i.i.d. uniform keys,
    a uniform subset of that size, mapped to values by i -> i + [i >= x]. One
    argpartition at position ω − 1 gives both: its first ω − 1 columns are the
    ω − 1 smallest keys and its first ω columns the ω smallest. O(n k).
    """
    n = xs.size
    m = k - 1
    incl = rng.random(n) < p
    if omega - 1 >= m:  # omega = k: p = 1, every subset is the whole domain
        return np.broadcast_to(np.arange(k, dtype=np.int64), (n, k)).copy()
    part = np.argpartition(rng.random((n, m)), omega - 1, axis=1)[:, :omega]
    part = part.astype(np.int64, copy=False)
    values = part + (part >= xs[:, None])
    values[incl, omega - 1] = xs[incl]  # x replaces the ω-th smallest key
    values.sort(axis=1)
    return values


#: Largest domain size of sample_ss and sample_grr (values and row-coded values fit in int64).
MAX_SS_K: int = 1 << 62


def _ss_subsets_sparse(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """Sorted ω-SS subsets of a block of users, shape (n, ω), in O(n ω) memory.

    The true value x is in the subset w.p. p; the other s = ω − 1 (x in) or ω
    (x out) values are the first s *distinct* values of an i.i.d. uniform
    sequence over the m = k − 1 indices 0..m-1 (mapped to values by
    i -> i + [i >= x]). That set is uniform over the s-subsets (the sequence's
    law is invariant under permutations of the indices). Vectorised in rounds:
    each user draws exactly as many values as it still lacks, and the new
    distinct ones join its set, so no user ever overshoots. With s < m / 3 at
    most a third of the draws collide, so the number of rounds is O(log s).
    Values are kept as row-coded int64 ``row * m + index`` in one sorted array.
    """
    n = xs.size
    m = k - 1
    rows = np.arange(n, dtype=np.int64)
    incl = rng.random(n) < p
    s_row = np.where(incl, omega - 1, omega).astype(np.int64)
    codes = np.empty(0, dtype=np.int64)
    need = s_row.copy()
    while True:
        total = int(need.sum())
        if total == 0:
            break
        new = np.repeat(rows, need) * m + rng.integers(0, m, size=total, dtype=np.int64)
        new.sort()
        if new.size > 1:  # distinct new values (np.unique without its hashing path)
            new = new[np.concatenate(([True], new[1:] != new[:-1]))]
        if codes.size:
            pos = np.searchsorted(codes, new)
            seen = pos < codes.size
            seen[seen] = codes[pos[seen]] == new[seen]
            new = new[~seen]
        codes = np.sort(np.concatenate((codes, new)), kind="stable")
        need = s_row - np.bincount(codes // m, minlength=n)
    owner = codes // m
    idx = codes % m
    values = idx + (idx >= xs[owner])
    coded = owner * k + values
    coded = np.concatenate((coded, rows[incl] * k + xs[incl]))
    coded.sort(kind="stable")
    return (coded % k).reshape(n, omega)


# ----------------------------------------------------------------------------------------
# LH
# ----------------------------------------------------------------------------------------
def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.4e14 (bases 2, 3, 5, 7, 11, 13, 17)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17)
    if n in small:
        return True
    if any(n % b == 0 for b in small):
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in small:
        y = pow(a, d, n)
        if y in (1, n - 1):
            continue
        for _ in range(r - 1):
            y = y * y % n
            if y == n - 1:
                break
        else:
            return False
    return True


def _check_prime(prime: int, k: int, g: int) -> int:
    prime = check_int("prime", prime, minimum=2, maximum=DEFAULT_PRIME)
    if not _is_prime(prime):
        msg = f"prime must be a prime number, got {prime}"
        raise ParameterError(msg)
    if prime < max(k, g):
        msg = (
            f"prime must be >= max(k, g) = {max(k, g)} (distinct values must stay distinct "
            f"mod prime), got {prime}"
        )
        raise ParameterError(msg)
    return prime


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
    prime = check_int("prime", prime, minimum=2, maximum=DEFAULT_PRIME)
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
        _check_prime(self.prime, self.k, self.g)
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
        P = np.uint32(self.prime)
        g = np.uint32(self.g)
        a = self.a[start:stop]
        h = self.b[start:stop].copy()  # (a·0 + b) mod P
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
        >>> R = sample_lh([1], k=2, eps=1.0, g=2, rng=0, hash="uniform")
        >>> R.labels()[0][0] in {(0, 0), (0, 1), (1, 0), (1, 1)}
        True
        """
        if self.table is not None:
            rows = zip(self.table.tolist(), self.y.tolist(), strict=True)
            return [(tuple(row), y) for row, y in rows]
        return [(int(a), int(b), int(y)) for a, b, y in zip(self.a, self.b, self.y, strict=True)]


def sample_lh(
    xs: Any,
    k: int,
    eps: float,
    g: int,
    rng: Any = None,
    *,
    hash: str = "universal",
    prime: int = DEFAULT_PRIME,
) -> LHReports:
    """Local hashing (BLH/OLH/LH) for n users: hash each value, then GRR on the g hash values.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    g : int
        Number of hash values, ``g >= 2``.
    rng : numpy.random.Generator or int, optional
    hash : {"universal", "uniform"}
        ``"universal"`` (default): each user draws h_{a,b}(x) = ((a x + b) mod P) mod g
        with a uniform in 1..P-1 and b in 0..P-1 (Carter-Wegman), stored as two
        integers per user. ``"uniform"``: each user draws a uniformly random
        function over all g^k functions, stored as a table of k values (the
        exact channel of the QIF paper, ``qifldp.local_hashing``); needs n·k cells.
    prime : int
        The prime P of the universal family, max(k, g) <= P <= 2^31 − 1.

    Returns
    -------
    LHReports

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``k``, ``eps``, ``g``, ``xs``, ``hash`` or ``prime``.
    SizeError
        ``hash="uniform"`` with n·k beyond :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    The universal family is pairwise independent, not fully random, so it is
    *not* the channel of the QIF paper: for x != x' the collision probability
    is :func:`lh_collision_probability` (slightly below 1/g; the estimators use
    the exact value, so they stay unbiased), and the joint law of (h(0), ...,
    h(k−1)) differs, which changes the Bayes vulnerability for k >= 3 (compare
    ``qifldp.asr(universal_lh_channel(k, eps, g, prime))`` with
    ``qifldp.asr(qifldp.local_hashing(k, eps, g))``). Use ``hash="uniform"``
    to simulate the paper's channel exactly. O(n) (universal), O(n k) (uniform).

    Examples
    --------
    >>> R = sample_lh([0, 1, 2, 3], k=4, eps=2.0, g=3, rng=7)
    >>> R.y.shape, int(R.y.max()) < 3
    ((4,), True)
    """
    k = check_int("k", k, minimum=2)
    g = check_int("g", g, minimum=2)
    p, _ = _mp.lh_probabilities(g, eps)
    check_choice("hash", hash, ("universal", "uniform"))
    xs = as_values(xs, k)
    rng = as_rng(rng)
    n = xs.size
    if hash == "uniform":
        check_size(n, k, "the hash tables of sample_lh(hash='uniform')", "hash='universal'")
        dtype = np.uint8 if g <= 256 else (np.uint16 if g <= 65536 else np.uint32)
        table = rng.integers(0, g, size=(n, k), dtype=dtype)
        h = table[np.arange(n), xs].astype(np.int64)
        a = b = None
        prime_used = None
    else:
        prime_used = _check_prime(prime, k, g)
        table = None
        a = rng.integers(1, prime_used, size=n, dtype=np.uint32)
        b = rng.integers(0, prime_used, size=n, dtype=np.uint32)
        h = universal_hash(a, b, xs, g, prime_used)
    keep = rng.random(n) < p
    r = rng.integers(0, g - 1, size=n)
    y = np.where(keep, h, r + (r >= h))
    return LHReports(y=y, k=k, g=g, a=a, b=b, prime=prime_used, table=table)


def sample_blh(xs: Any, k: int, eps: float, rng: Any = None, **kwargs: Any) -> LHReports:
    """Binary local hashing: :func:`sample_lh` with g = 2.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    rng : numpy.random.Generator or int, optional
    **kwargs
        ``hash`` and ``prime`` of :func:`sample_lh`.

    Returns
    -------
    LHReports

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`sample_lh`.

    Notes
    -----
    BLH (Bassily and Smith 2015) as described in the QIF paper, Sec. V-C. O(n).

    Examples
    --------
    >>> sample_blh([0, 1], k=4, eps=1.0, rng=0).g
    2
    """
    return sample_lh(xs, k, eps, 2, rng, **kwargs)


def sample_olh(xs: Any, k: int, eps: float, rng: Any = None, **kwargs: Any) -> LHReports:
    """Optimized local hashing: :func:`sample_lh` with g = max(2, round(e^ε + 1)).

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    rng : numpy.random.Generator or int, optional
    **kwargs
        ``hash`` and ``prime`` of :func:`sample_lh`.

    Returns
    -------
    LHReports

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`sample_lh`; also when g exceeds ``prime`` (eps above ~21.5 with
        the default prime).

    Notes
    -----
    g is the shared ``olh_g`` of :mod:`qifldp.mechanisms` (the same rounding as
    ``qifldp.olh``). O(n).

    Examples
    --------
    >>> sample_olh([0, 1], k=4, eps=1.0, rng=0).g   # round(e + 1) = 4
    4
    """
    return sample_lh(xs, k, eps, _mp.olh_g(eps), rng, **kwargs)


def universal_lh_channel(k: int, eps: float, g: int, prime: int) -> Channel:
    """The explicit channel of local hashing with the universal family of :func:`sample_lh`.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter.
    g : int
        Number of hash values, ``g >= 2``.
    prime : int
        A prime P >= max(k, g); keep it small (the channel has P (P − 1) g outputs).

    Returns
    -------
    Channel, shape (k, P (P − 1) g)
        Outputs labelled (a, b, y) with a in 1..P-1, b in 0..P-1, y in 0..g-1;
        C[x, (a, b, y)] = (p if h_{a,b}(x) = y else q') / (P (P − 1)),
        p = e^ε/(e^ε + g − 1), q' = 1/(e^ε + g − 1).

    Raises
    ------
    SizeError
        When k P (P − 1) g exceeds :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    This is the channel that :func:`sample_lh` (``hash="universal"``) realises;
    it differs from the paper's ``local_hashing`` (uniform over all g^k functions).
    O(k P² g).

    Examples
    --------
    >>> import qifldp as q
    >>> C = universal_lh_channel(2, 1.0, 2, prime=3)
    >>> C.shape
    (2, 12)
    """
    k = check_int("k", k, minimum=2)
    g = check_int("g", g, minimum=2)
    eps = check_eps(eps)
    prime = _check_prime(prime, k, g)
    n_out = prime * (prime - 1) * g
    check_size(k, n_out, f"universal_lh_channel({k}, {eps}, {g}, {prime})")
    p, qq = _mp.lh_probabilities(g, eps)
    a = np.repeat(np.arange(1, prime), prime)
    b = np.tile(np.arange(prime), prime - 1)
    H = universal_hash(a[None, :], b[None, :], np.arange(k)[:, None], g, prime)  # (k, P(P-1))
    match = H[:, :, None] == np.arange(g)[None, None, :]
    M = np.where(match, p, qq) / (prime * (prime - 1))
    outputs = [(int(ai), int(bi), y) for ai, bi in zip(a, b, strict=True) for y in range(g)]
    return Channel(M.reshape(k, n_out), outputs=outputs)


# ----------------------------------------------------------------------------------------
# UE, SUE, OUE
# ----------------------------------------------------------------------------------------
def sample_ue(xs: Any, k: int, p: float, q: float, rng: Any = None) -> np.ndarray:
    """Unary encoding for n users: one-hot encode, keep the 1-bit w.p. p, set each 0-bit w.p. q.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    p, q : float
        Probabilities 0 <= q < p <= 1.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)
        Row j is user j's reported bit vector (the output labels of
        ``qifldp.unary_encoding`` are these rows as tuples of 0/1).

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``k``, ``p``, ``q`` or ``xs``.
    SizeError
        n·k beyond :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    Bit i of user j is [U < p] if i = x_j else [U < q], U uniform on [0, 1),
    generated in cache-sized blocks. O(n k).

    Examples
    --------
    >>> sample_ue([0, 2], k=3, p=1.0, q=0.0, rng=0).astype(int).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    p, q = _mp.check_pq(p, q)
    return _sample_bits(xs, k, p, q, rng)


def _sample_bits(xs: Any, k: int, p: float, q: float, rng: Any) -> np.ndarray:
    """UE bits for probabilities already checked (p = q allowed: ε = 0)."""
    k = check_int("k", k, minimum=2)
    xs = as_values(xs, k)
    rng = as_rng(rng)
    n = xs.size
    check_size(n, k, "the bit matrix of sample_ue", "fewer users per call")
    bits = np.empty((n, k), dtype=bool)
    buf = np.empty(0)
    for s, e in row_chunks(n, k):
        m = e - s
        if buf.size != m * k:
            buf = np.empty((m, k))
        rng.random(out=buf)
        np.less(buf, q, out=bits[s:e])
        bits[np.arange(s, e), xs[s:e]] = rng.random(m) < p
    return bits


def sample_sue(xs: Any, k: int, eps: float, rng: Any = None) -> np.ndarray:
    """Symmetric UE (RAPPOR): :func:`sample_ue` with p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)

    Raises
    ------
    ParameterError, InputTypeError, SizeError
        As :func:`sample_ue` (ε = 0, where p = q = 1/2, is allowed).

    Notes
    -----
    O(n k).

    Examples
    --------
    >>> sample_sue([1], k=3, eps=60.0, rng=0).astype(int).tolist()
    [[0, 1, 0]]
    """
    p, q = _mp.sue_probabilities(eps)
    return _sample_bits(xs, k, p, q, rng)


def sample_oue(xs: Any, k: int, eps: float, rng: Any = None) -> np.ndarray:
    """Optimized unary encoding: :func:`sample_ue` with p = 1/2, q = 1/(e^ε + 1).

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)

    Raises
    ------
    ParameterError, InputTypeError, SizeError
        As :func:`sample_ue` (ε = 0, where p = q = 1/2, is allowed).

    Notes
    -----
    O(n k).

    Examples
    --------
    >>> bool(sample_oue([1, 1], k=3, eps=60.0, rng=0)[:, [0, 2]].any())
    False
    """
    p, q = _mp.oue_probabilities(eps)
    return _sample_bits(xs, k, p, q, rng)


# ----------------------------------------------------------------------------------------
# THE
# ----------------------------------------------------------------------------------------
def sample_the(
    xs: Any, k: int, eps: float, theta: float, rng: Any = None, *, method: str = "laplace"
) -> np.ndarray:
    """Thresholding with histogram encoding for n users.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    theta : float
        Threshold, 1/2 < θ < 1.
    rng : numpy.random.Generator or int, optional
    method : {"laplace", "bernoulli"}
        ``"laplace"``: the protocol as written — add Laplace(2/ε) noise to each
        coordinate of the one-hot vector and report the coordinates above θ.
        ``"bernoulli"``: draw each reported bit directly with its probability
        p = 1 − e^{ε(θ−1)/2}/2 (1-coordinate) or q = e^{−εθ/2}/2 (0-coordinates);
        the same distribution, about twice as fast.

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)
        Row j marks the coordinates of user j above the threshold.

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``k``, ``eps``, ``theta``, ``xs`` or ``method``.
    SizeError
        n·k beyond :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    Laplace(0, b) noise with b = 2/ε is drawn by inverting its CDF: Z = b L with
    L = ln(2U) if U < 1/2 and L = −ln(2(1 − U)) otherwise, U uniform on [0, 1).
    The event x_i + Z > θ is evaluated as L > (θ − x_i) ε/2 (the same event
    divided by b), which also gives the ε = 0 limit p = q = 1/2. Thresholding
    this inverse-CDF draw is the same as comparing U with 1 − q (or 1 − p), which
    is what ``"bernoulli"`` does. O(n k).

    Examples
    --------
    >>> sample_the([0, 1], k=3, eps=80.0, theta=0.7, rng=0).astype(int).tolist()
    [[1, 0, 0], [0, 1, 0]]
    """
    p, q = _mp.the_probabilities(eps, theta)
    eps = float(eps)
    theta = float(theta)
    check_choice("method", method, ("laplace", "bernoulli"))
    if method == "bernoulli":
        return _sample_bits(xs, k, p, q, rng)
    k = check_int("k", k, minimum=2)
    xs = as_values(xs, k)
    rng = as_rng(rng)
    n = xs.size
    check_size(n, k, "the bit matrix of sample_the", "fewer users per call")
    bits = np.empty((n, k), dtype=bool)
    t0 = theta * eps / 2.0  # threshold of L for a 0-coordinate
    t1 = (theta - 1.0) * eps / 2.0  # ... and for the 1-coordinate (negative)
    U = L = np.empty(0)
    for s, e in row_chunks(n, k):
        m = e - s
        if U.size != m * k:
            U, L = np.empty((m, k)), np.empty((m, k))
        rng.random(out=U)
        np.subtract(1.0, U, out=L)
        np.minimum(U, L, out=L)
        L *= 2.0
        with np.errstate(divide="ignore"):  # U = 0 gives ln 0 = -inf: a bit 0, as it should
            np.log(L, out=L)  # ln(2 min(U, 1 - U)) <= 0
        U -= 0.5
        np.copysign(L, U, out=L)  # standard Laplace sample: negative iff U < 1/2
        np.greater(L, t0, out=bits[s:e])
        rows = np.arange(m)
        bits[rows + s, xs[s:e]] = L[rows, xs[s:e]] > t1
    return bits
