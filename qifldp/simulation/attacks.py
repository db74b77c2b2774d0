"""Data-reconstruction attacks on simulated reports: Bayes-optimal and plausible-deniability."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..validation import check_real
from ..channel import as_channel
from ..errors import InputTypeError, ParameterError
from ..priors import as_prior
from ._util import (
    CHUNK_CELLS,
    as_array,
    as_rng,
    as_values,
    check_memory,
    check_n,
    choose_uniform_true,
    row_chunks,
)
from .samplers import LHReports, sample, universal_hash

__all__ = [
    "TIE_RTOL",
    "EmpiricalRate",
    "bayes_attack",
    "attack_grr",
    "attack_ss",
    "attack_ue",
    "attack_the",
    "attack_lh",
    "empirical_asr",
    "simulate_attack",
]

#: Two posterior weights π_x C[x, y] within this relative tolerance of the
#: column maximum count as tied (so that values equal up to rounding are tied).
TIE_RTOL: float = 1e-9


@dataclass(frozen=True)
class EmpiricalRate:
    """The fraction of users whose value an attacker guessed right.

    Attributes
    ----------
    successes : int
        Number of correct guesses.
    n : int
        Number of users.

    Examples
    --------
    >>> r = EmpiricalRate(30, 100)
    >>> r.rate, round(r.stderr, 4)
    (0.3, 0.0458)
    """

    successes: int
    n: int

    @property
    def rate(self) -> float:
        """successes / n."""
        return self.successes / self.n

    @property
    def stderr(self) -> float:
        """Estimated standard error sqrt(r (1 − r) / n) of the rate."""
        r = self.rate
        return math.sqrt(r * (1.0 - r) / self.n)

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval with z standard deviations (z = 1.96: 95 %).

        Examples
        --------
        >>> lo, hi = EmpiricalRate(50, 100).interval()
        >>> round(lo, 3), round(hi, 3)
        (0.404, 0.596)
        """
        n, r = self.n, self.rate
        z2 = z * z
        centre = (r + z2 / (2 * n)) / (1 + z2 / n)
        half = z * math.sqrt(r * (1 - r) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def __float__(self) -> float:
        return self.rate


def bayes_attack(
    C: Any, ys: Any, prior: Any = None, rng: Any = None, *, tie_rtol: float = TIE_RTOL
) -> np.ndarray:
    """The Bayes-optimal one-try guess of each user's value from their output.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
    ys : array_like of int, shape (n,)
        Observed output indices (e.g. from :func:`sample`).
    prior : array_like, shape (|X|,), optional
        The attacker's prior (default uniform).
    rng : numpy.random.Generator or int, optional
        Breaks ties uniformly at random, independently for each user.
    tie_rtol : float
        Relative tolerance of a tie, see :data:`TIE_RTOL`.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Guessed input indices.

    Raises
    ------
    ParameterError, PriorError, InputTypeError
        Output index out of range, bad prior or rng.

    Notes
    -----
    The guess maximises the posterior π_x C[x, y] / Pr(y); its expected success
    is the posterior Bayes vulnerability V1[π▷C] = Σ_y max_x π_x C[x, y]
    (``qifldp.bayes_vulnerability``), and ``qifldp.asr`` under a uniform prior.
    Only observed outputs are examined: O(n + |X| m) for m distinct outputs.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> bayes_attack(C, [0, 1, 1]).tolist()
    [0, 1, 1]
    """
    C = as_channel(C)
    tie_rtol = check_real("tie_rtol", tie_rtol, minimum=0.0, maximum=0.5)
    pi = as_prior(prior, C.n_inputs)
    ys = as_values(ys, C.n_outputs, name="ys")
    rng = as_rng(rng)
    uniq, inv = np.unique(ys, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    k = C.n_inputs
    # candidate lists per observed output, as CSR (cand_rows, offsets)
    cand_rows: list[np.ndarray] = []
    counts = np.empty(uniq.size, dtype=np.int64)
    for s, e in row_chunks(uniq.size, k):
        W = pi[:, None] * C.matrix[:, uniq[s:e]]  # (k, m)
        top = W.max(axis=0)
        cand = W >= top * (1.0 - tie_rtol)
        cols, rows = np.nonzero(cand.T)  # sorted by column
        cand_rows.append(rows)
        counts[s:e] = np.bincount(cols, minlength=e - s)
    rows_all = np.concatenate(cand_rows) if cand_rows else np.empty(0, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    c = counts[inv]
    pick = rng.integers(0, c)  # uniform among the tied candidates of each user's output
    return rows_all[offsets[inv] + pick].astype(np.int64)


def attack_grr(reports: Any) -> np.ndarray:
    """Plausible-deniability attack on GRR: guess the reported value.

    Parameters
    ----------
    reports : array_like of int, shape (n,)

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    ParameterError
        Reports not a 1-D integer array.

    Notes
    -----
    Expected accuracy e^ε/(e^ε + k − 1) (Arcolezi et al., VLDB 2023, Sec. 3.2.1).
    Bayes-optimal under a uniform prior when ε > 0. O(n).

    Examples
    --------
    >>> attack_grr([2, 0]).tolist()
    [2, 0]
    """
    arr = as_array(reports, "reports")
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        msg = f"GRR reports must be a 1-D integer array, got shape {arr.shape} of {arr.dtype}"
        raise ParameterError(msg)
    return arr.astype(np.int64)


def attack_ss(reports: Any, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on ω-SS: a uniform guess within the reported subset.

    Parameters
    ----------
    reports : numpy.ndarray
        (n, ω) subsets or (n, k) boolean membership (from :func:`sample_ss`).
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    ParameterError
        Reports not 2-D.
    InputTypeError
        Non-integer subsets.

    Notes
    -----
    Arcolezi et al. (VLDB 2023, Sec. 3.2.1). Bayes-optimal under a uniform
    prior: the posterior of x is proportional to p/C(k−1, ω−1) inside the
    subset and (1 − p)/C(k−1, ω) outside. O(n) (subsets) or O(n k) (membership).

    Examples
    --------
    >>> attack_ss(np.array([[1, 3], [0, 2]]), rng=0).tolist() in ([1, 0], [1, 2], [3, 0], [3, 2])
    True
    """
    arr = as_array(reports, "reports")
    rng = as_rng(rng)
    if arr.ndim != 2:
        msg = (
            "SS reports must be (n, omega) subsets or an (n, k) membership matrix, "
            f"got shape {arr.shape}"
        )
        raise ParameterError(msg)
    if arr.dtype == np.bool_:
        return choose_uniform_true(arr, rng)
    if not np.issubdtype(arr.dtype, np.integer):
        msg = f"SS subsets must be integers, got dtype {arr.dtype}"
        raise InputTypeError(msg)
    n, omega = arr.shape
    if omega == 0:
        msg = "SS subsets must have omega >= 1 columns, got shape (n, 0)"
        raise ParameterError(msg)
    return arr[np.arange(n), rng.integers(0, omega, size=n)].astype(np.int64)


def attack_ue(bits: Any, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on unary encoding (SUE, OUE) and THE bit vectors.

    Parameters
    ----------
    bits : numpy.ndarray of bool, shape (n, k)
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    ParameterError
        bits not 2-D.
    InputTypeError
        bits neither boolean nor 0/1 integers.

    Notes
    -----
    Guess uniformly among the set bits, or uniformly among all k values when no
    bit is set (Arcolezi et al., VLDB 2023, Sec. 3.2.1). Bayes-optimal under a
    uniform prior when p > q: the likelihood of x is proportional to
    (p/q)^{b_x} ((1−p)/(1−q))^{1−b_x}. O(n k).

    Examples
    --------
    >>> attack_ue(np.array([[0, 1, 0]], dtype=bool), rng=0).tolist()
    [1]
    """
    arr = as_array(bits, "bits")
    if arr.ndim != 2 or arr.shape[1] == 0:
        msg = f"bits must be an (n, k) boolean matrix with k >= 1, got shape {arr.shape}"
        raise ParameterError(msg)
    if arr.dtype != np.bool_:
        if np.issubdtype(arr.dtype, np.integer) and np.all((arr == 0) | (arr == 1)):
            arr = arr.astype(bool)
        else:
            msg = f"bits must be boolean (or 0/1), got dtype {arr.dtype}"
            raise InputTypeError(msg)
    return choose_uniform_true(arr, as_rng(rng))


def attack_the(bits: Any, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on THE: the bit-vector attack of :func:`attack_ue`.

    Parameters
    ----------
    bits : numpy.ndarray of bool, shape (n, k)
        Coordinates above the threshold (from :func:`sample_the`).
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`attack_ue`.

    Notes
    -----
    Bayes-optimal under a uniform prior since p > q for θ in (1/2, 1) and ε > 0. O(n k).

    Examples
    --------
    >>> attack_the(np.array([[0, 0, 1]], dtype=bool), rng=0).tolist()
    [2]
    """
    return attack_ue(bits, rng)


def attack_lh(reports: LHReports, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on local hashing: a uniform guess among the values
    hashing to the report, or among all values when none does.

    Parameters
    ----------
    reports : LHReports
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    InputTypeError
        ``reports`` is not an :class:`LHReports`.

    Notes
    -----
    The attack A_LH of the QIF paper (Sec. V-C) and of Arcolezi et al. (2023).
    Bayes-optimal under a uniform prior (the posterior of x is proportional to
    p if h(x) = y, q' otherwise). O(n k) by enumeration; for universal-hash
    reports with k > :data:`LH_REJECTION_RATIO` · g, about O(n g) by rejection
    sampling (same law), in memory independent of k.

    Examples
    --------
    >>> from qifldp.simulation import sample_lh
    >>> R = sample_lh([0, 1, 2], k=3, eps=50.0, g=3, rng=0)
    >>> bool(np.all(R.matches()[np.arange(3), attack_lh(R, rng=0)]))
    True
    """
    if not isinstance(reports, LHReports):
        msg = f"reports must be LHReports (from sample_lh), got {type(reports).__name__}"
        raise InputTypeError(msg)
    rng = as_rng(rng)
    if reports.table is None and reports.k > LH_REJECTION_RATIO * reports.g:
        return _attack_lh_rejection(reports, rng)
    out = np.empty(len(reports), dtype=np.int64)
    for s, e in row_chunks(len(reports), reports.k, cells=1 << 20):
        out[s:e] = choose_uniform_true(reports.matches(s, e), rng)
    return out


#: attack_lh on universal-hash reports draws its guess by rejection (uniform values
#: until one hashes to the report) when k > LH_REJECTION_RATIO * g, instead of
#: enumerating all k values of every user: about g hash evaluations per user, in
#: memory independent of k.
LH_REJECTION_RATIO: int = 8

#: Candidates per user tried by rejection before the exact enumeration takes over
#: (in multiples of g; the expected number is about g when h(v) = y for ~k/g values).
LH_REJECTION_TRIES: int = 64


def _attack_lh_rejection(R: LHReports, rng: np.random.Generator) -> np.ndarray:
    """Uniform guess among {v : h_j(v) = y_j} per user, by rejection sampling.

    The first hit of i.i.d. uniform candidates is uniform over the hits, so the
    guess has the law of :func:`choose_uniform_true` on the user's match row.
    Users without a hit after ``LH_REJECTION_TRIES * g`` candidates (very few
    matches, or none) are enumerated exactly in blocks of values
    (:func:`_lh_enumerate`); mixing the two routes keeps the law exact.
    """
    n, k, g = len(R), R.k, R.g
    out = np.empty(n, dtype=np.int64)
    active = np.arange(n)
    tried = 0
    while active.size and tried < LH_REJECTION_TRIES * g:
        per_user = max(1, min(4 * g, CHUNK_CELLS // active.size))
        v = rng.integers(0, k, size=(active.size, per_user), dtype=np.int64)
        h = universal_hash(R.a[active, None], R.b[active, None], v, g, R.prime)
        hit = h == R.y[active, None]
        found = hit.any(axis=1)
        first = hit.argmax(axis=1)
        out[active[found]] = v[found, first[found]]
        active = active[~found]
        tried += per_user
    for j in active:
        out[j] = _lh_enumerate(R, int(j), rng)
    return out


def _lh_enumerate(R: LHReports, j: int, rng: np.random.Generator) -> int:
    """Uniform value among {v : h_j(v) = y_j} (uniform over 0..k-1 if empty), in blocks."""
    a, b, y = int(R.a[j]), int(R.b[j]), int(R.y[j])
    blocks = [(s, min(R.k, s + CHUNK_CELLS)) for s in range(0, R.k, CHUNK_CELLS)]

    def hits(s: int, e: int) -> np.ndarray:
        return universal_hash(a, b, np.arange(s, e, dtype=np.int64), R.g, R.prime) == y

    counts = [int(np.count_nonzero(hits(s, e))) for s, e in blocks]
    total = sum(counts)
    if total == 0:
        return int(rng.integers(0, R.k))
    r = int(rng.integers(0, total))
    for (s, e), c in zip(blocks, counts, strict=True):
        if r < c:
            return s + int(np.flatnonzero(hits(s, e))[r])
        r -= c
    raise AssertionError("unreachable: r < total")


def empirical_asr(xs: Any, guesses: Any) -> EmpiricalRate:
    """The attacker's empirical success: the fraction of users whose value was guessed.

    Parameters
    ----------
    xs, guesses : array_like of int, shape (n,)
        True values and guesses.

    Returns
    -------
    EmpiricalRate
        ``.rate``, ``.stderr``, ``.interval(z)``.

    Raises
    ------
    ParameterError
        Different lengths or no users.

    Notes
    -----
    ACC of Arcolezi et al. (VLDB 2023, Sec. 3.2.1) as a fraction; its
    expectation is the attacker's expected success (for the Bayes attacker
    V1[π▷C], π the population's value distribution). O(n).

    Examples
    --------
    >>> empirical_asr([0, 1, 2, 3], [0, 1, 0, 0]).rate
    0.5
    """
    xs = as_array(xs, "xs")
    guesses = as_array(guesses, "guesses")
    if xs.shape != guesses.shape or xs.ndim != 1:
        msg = (
            "xs and guesses must be 1-D of the same length, "
            f"got shapes {xs.shape} and {guesses.shape}"
        )
        raise ParameterError(msg)
    if xs.size == 0:
        msg = "xs must not be empty (n >= 1 users)"
        raise ParameterError(msg)
    return EmpiricalRate(int(np.count_nonzero(xs == guesses)), int(xs.size))


def simulate_attack(
    C: Any,
    n: int,
    prior: Any = None,
    rng: Any = None,
    *,
    attacker_prior: Any = "same",
) -> EmpiricalRate:
    """Monte Carlo data-reconstruction attack on a channel: draw users, randomise, guess.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
    n : int
        Number of simulated users, each with a value drawn from ``prior``.
    prior : array_like, optional
        Distribution of the users' values (default uniform).
    rng : numpy.random.Generator or int, optional
    attacker_prior : array_like, None or "same"
        The prior the attacker uses (default: the true one; None: uniform).

    Returns
    -------
    EmpiricalRate
        Its expectation is V1[π▷C] (``qifldp.bayes_vulnerability(C, prior)``)
        when the attacker knows the prior.

    Raises
    ------
    ParameterError, PriorError, InputTypeError
        n < 1, a bad prior or rng.

    Notes
    -----
    Users' values are drawn i.i.d. from ``prior``, randomised with
    :func:`sample` and guessed with :func:`bayes_attack`, so the rate is a
    Bernoulli mean with variance V (1 − V)/n. O(n log n + |X| |Y|).

    Examples
    --------
    >>> import qifldp as q
    >>> r = simulate_attack(q.Channel([[0.75, 0.25], [0.25, 0.75]]), 100_000, rng=0)
    >>> abs(r.rate - 0.75) < 0.01
    True
    """
    C = as_channel(C)
    n = check_n(n)
    # the users' values, outputs, sort order and guesses: a few int64 per user
    check_memory(n, 32, f"simulate_attack(n = {n})", "fewer users per call")
    pi = as_prior(prior, C.n_inputs)
    rng = as_rng(rng)
    same = isinstance(attacker_prior, str) and attacker_prior == "same"
    guess_prior = pi if same else attacker_prior
    xs = rng.choice(C.n_inputs, size=n, p=pi)
    ys = sample(C, xs, rng)
    return empirical_asr(xs, bayes_attack(C, ys, guess_prior, rng))
