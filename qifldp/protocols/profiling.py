"""Profiling over repeated surveys (Arcolezi et al., VLDB 2023, Sec. 3.2.2-3.2.3, Fig. 1).

A user holds a tuple x over d attributes with domain sizes ``ks`` and answers
``surveys`` surveys; in each one attribute j is sampled and x_j is reported with
a frequency oracle (GRR, SS, OLH, BLH, SUE, OUE) at budget eps, the attribute
disclosed (SMP). The adversary reconstructs the whole profile x.

Two privacy metrics (the paper's terms):

- ``"uniform"``: attributes sampled *without* replacement, one new attribute per
  survey (``surveys <= d``);
- ``"non-uniform"``: *with* replacement; a repeated attribute repeats its earlier
  report (memoisation), so the user releases reports on the distinct attributes
  drawn only.

Either way the adversary observes which set S of attributes was reported and one
report per attribute of S. Three values of the expected accuracy, all under the
uniform prior unless a prior is given:

- ``method="paper"``: the paper's Eqs. 4-5 with its printed ACC_FO (Sec. 3.2.1).
  Both equations are not legible in the paper's available text; the forms used are the
  reconstructions stated in :mod:`qifldp.audit.multidim_risks`
  (:data:`~qifldp.audit.multidim_risks.EQ4_RECONSTRUCTION`, ``EQ5_...``):
  ACC^U = Π_j ACC_FO(eps, k_j) and ACC^NU = (d!/d^d) Π_j ACC_FO(eps, k_j), for
  surveys = d. The printed ACC_SS exceeds 1 for large eps (the audit's claim
  ``risks.fig1_acc_ss``), and so can the products.
- ``method="closed_form"``: the Bayes-optimal accuracy as a product formula,
  Σ_S Pr(S) Π_{j in S} V_j Π_{j not in S} 1/k_j with V_j the oracle's ASR
  (its Bayes capacity / k_j, the closed form of the protocol object). It is
  exact under the uniform prior (a product prior over independent attributes:
  the Bayes vulnerability of independent channels on independent secrets is the
  product), whatever the sizes: at the paper's ks = (74, 7, 16) it is the exact
  value. Eq. 5 counts only the users whose surveys covered all d attributes;
  this value also credits the partial profiles completed by the best guess.
- ``method="exact"``: the Bayes vulnerability of the explicit channel
  :func:`profiling_channel` (visible choice over S of the same-secret
  composition, ``q.compose``, of the reports), by enumeration: small ks only, any
  joint prior over the tuples (correlated attributes included).

:func:`simulate_profiling` is the Monte Carlo counterpart (the protocols' own
samplers and plausible-deniability attacks), :func:`profiling_curves` the data
of the paper's Fig. 1 next to the exact values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel
from ..composition import compose
from ..errors import InputTypeError, ParameterError
from ..measures import bayes_vulnerability
from ..operators import cascade, visible_choice
from ..simulation import DEFAULT_PRIME
from ..simulation.attacks import EmpiricalRate
from ..simulation.categorical import nonempty_sequence
from ..simulation.util import as_rng, check_memory, check_prime
from ..validation import check_choice, check_eps, check_int
from .lh import universal_lh_asr, universal_lh_channel
from .multidim import _check_ks, _projection, _tuples
from .oracles import oracle as protocol

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PROFILING_ORACLES",
    "PROFILING_METRICS",
    "MAX_SURVEYS",
    "survey_sets",
    "profiling_accuracy",
    "profiling_channel",
    "survey_profiles",
    "simulate_profiling",
    "profiling_curves",
    "HASH_FAMILIES",
]

#: The frequency oracles a survey may use (names of :func:`qifldp.protocol`); the paper's
#: Fig. 1 shows grr, ss, olh, sue, oue (it prints no ACC for blh).
PROFILING_ORACLES: tuple[str, ...] = ("grr", "ss", "olh", "blh", "sue", "oue")
#: The privacy metrics: sampling without replacement / with replacement and memoisation.
PROFILING_METRICS: tuple[str, ...] = ("uniform", "non-uniform")
#: The largest number of surveys accepted (the distribution of the distinct attributes is
#: computed by a recursion over the surveys).
MAX_SURVEYS: int = 10_000
_METHODS = ("closed_form", "exact", "paper")
#: The hash families of the local-hashing oracles (olh, blh): ``"uniform"``, a uniformly
#: random function of all g^k (the channel of the QIF paper and of the closed forms), or
#: ``"universal"``, h(x) = ((a x + b) mod P) mod g (pairwise independent only, the default
#: of ``sample_lh``; its vulnerability differs: at k = 74, eps = 5 the ASR is 0.430 with
#: P = 1009 against 0.400 for uniform functions).
HASH_FAMILIES: tuple[str, ...] = ("uniform", "universal")
_HASHING = ("olh", "blh")


def _check_hash(hash: Any, prime: Any, oracle: str, ks: tuple[int, ...], eps: float) -> int | None:
    """The checked hash family: None for uniform functions, else the universal family's prime.

    ``hash`` must be one of :data:`HASH_FAMILIES` for every oracle (only olh and blh hash);
    ``prime`` is only accepted with ``hash="universal"`` (default ``DEFAULT_PRIME``).
    """
    family = check_choice("hash", hash, HASH_FAMILIES)
    if family == "uniform":
        if prime is not None:
            msg = f"prime is only used with hash='universal' (got prime={prime!r})"
            raise ParameterError(msg)
        return None
    if prime is None:
        prime = DEFAULT_PRIME
    g = protocol(oracle, ks[0], eps).params.get("g", 2) if oracle in _HASHING else 2
    return check_prime(prime, max(ks), g)


def _check_setting(
    ks: Any, eps: Any, oracle: Any, surveys: Any, metric: Any
) -> tuple[tuple[int, ...], float, str, int, str]:
    ks = _check_ks(ks)
    eps = check_eps(eps)
    oracle = check_choice("oracle", oracle, PROFILING_ORACLES)
    metric = check_choice("metric", metric, PROFILING_METRICS)
    d = len(ks)
    if surveys is None:
        surveys = d
    if metric == "uniform":
        surveys = check_int("surveys", surveys, minimum=1, maximum=d)
    else:
        surveys = check_int("surveys", surveys, minimum=1, maximum=MAX_SURVEYS)
    return ks, eps, oracle, surveys, metric


def _distinct_counts(d: int, surveys: int, metric: str) -> np.ndarray:
    """Pr(|S| = m), m = 0..d, for the set S of distinct attributes asked."""
    out = np.zeros(d + 1)
    if metric == "uniform":
        out[surveys] = 1.0
        return out
    out[0] = 1.0
    m = np.arange(d + 1)
    stay, move = m / d, (d - m) / d  # the next draw repeats an attribute / is a new one
    for _ in range(surveys):
        nxt = out * stay
        nxt[1:] += out[:-1] * move[:-1]
        out = nxt
    return out


def survey_sets(d: int, surveys: int | None = None, metric: str = "uniform") -> dict:
    """The distribution of the set of distinct attributes asked in ``surveys`` surveys.

    Parameters
    ----------
    d : int
        Number of attributes, ``1 <= d <= 20`` (the sets are enumerated).
    surveys : int, optional
        Number of surveys (default d); at most d for the uniform metric, at most
        :data:`MAX_SURVEYS` otherwise.
    metric : {"uniform", "non-uniform"}
        Sampling without replacement, or with replacement (and memoisation).

    Returns
    -------
    dict
        Sorted tuple of 0-based attribute indices -> probability (sets of
        probability 0 left out).

    Raises
    ------
    ParameterError, InputTypeError
        d or surveys out of range or not integers, an unknown metric.

    Notes
    -----
    Uniform: every s-subset with probability 1 / C(d, s). Non-uniform: by symmetry
    every set of size m has Pr(|S| = m) / C(d, m), with Pr(|S| = m) from the
    Markov chain of the number of distinct attributes (a new one with probability
    (d - m)/d); at surveys = d the full set has probability d!/d^d.

    Examples
    --------
    >>> sets = survey_sets(2, 2, "non-uniform")
    >>> {s: round(p, 3) for s, p in sets.items()}
    {(0,): 0.25, (1,): 0.25, (0, 1): 0.5}
    """
    d = check_int("d", d, minimum=1, maximum=20)
    _, _, _, surveys, metric = _check_setting([2] * d, 0.0, "grr", surveys, metric)
    counts = _distinct_counts(d, surveys, metric)
    out: dict[tuple[int, ...], float] = {}
    for m in range(1, d + 1):
        if counts[m] > 0:
            for S in combinations(range(d), m):
                out[S] = float(counts[m] / math.comb(d, m))
    return out


def _vulnerability_poly(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Coefficients of Π_j (b_j + a_j t): c_m = Σ_{|S| = m} Π_{S} a_j Π_{not S} b_j."""
    c = np.zeros(a.size + 1)
    c[0] = 1.0
    for aj, bj in zip(a, b, strict=True):
        c[1:] = c[1:] * bj + c[:-1] * aj
        c[0] *= bj
    return c


def profiling_accuracy(
    ks: Any,
    eps: float,
    oracle: str = "grr",
    surveys: int | None = None,
    metric: str = "uniform",
    method: str = "closed_form",
    prior: Any = None,
    hash: str = "uniform",
    prime: int | None = None,
) -> float:
    """Expected accuracy of reconstructing a user's whole profile after repeated surveys.

    Parameters
    ----------
    ks : sequence of int
        Domain sizes of the d attributes, each ``>= 2``.
    eps : float
        Budget of each survey's report, finite and ``>= 0``.
    oracle : str
        Frequency oracle of the reports, one of :data:`PROFILING_ORACLES`.
    surveys : int, optional
        Number of surveys (default d).
    metric : {"uniform", "non-uniform"}
        Without replacement (ACC^U), or with replacement and memoisation (ACC^NU).
    method : {"closed_form", "exact", "paper"}
        The Bayes-optimal product formula (exact under the uniform prior, any
        size), the enumerated composed channel (small ks, any prior), or the
        paper's Eqs. 4-5 as reconstructed, with the printed ACC_FO (surveys = d).
    prior : array_like, optional
        Joint distribution over the Π k_j tuples in lexicographic order; only
        with ``method="exact"`` (None: uniform).
    hash : {"uniform", "universal"}
        Hash family of the local-hashing oracles (olh, blh; the other oracles do
        not hash): uniformly random functions (the QIF paper's channel, default)
        or the universal family h(x) = ((a x + b) mod P) mod g that
        :func:`simulate_profiling` samples with ``hash="universal"``. Its
        per-attribute ASR is :func:`qifldp.protocols.lh.universal_lh_asr`, exact by
        enumerating the P (P − 1) functions: a small ``prime`` only.
    prime : int, optional
        The prime P of the universal family (only with ``hash="universal"``;
        default ``DEFAULT_PRIME``, too large to enumerate).

    Returns
    -------
    float
        A probability, except for ``method="paper"``, which returns the printed
        expression as it is (above 1 for ss at large eps).

    Raises
    ------
    ParameterError, InputTypeError
        Bad ks, eps, oracle, surveys (above d for the uniform metric), metric or
        method; ``method="paper"`` with surveys != d or oracle blh (the paper
        prints no ACC for it); a prior with another method; a bad ``hash`` or
        ``prime`` (a prime without ``hash="universal"``, the universal family with
        ``method="paper"``).
    SizeError
        ``method="exact"`` beyond the explicit-channel limit; ``hash="universal"``
        with a prime too large to enumerate the family.

    Notes
    -----
    See the module docstring for the three methods and the reconstruction of the
    Eqs. 4-5 (not legible in the paper). The closed form costs O(d^2 + surveys d); the exact method
    O(Σ_S Π k Π_{j in S} |Y_j|).

    Examples
    --------
    >>> import math
    >>> ks, eps = (3, 4), 1.0
    >>> a = [math.e / (math.e + k - 1) for k in ks]  # ACC_GRR of each attribute
    >>> round(profiling_accuracy(ks, eps), 12) == round(a[0] * a[1], 12)
    True
    >>> round(profiling_accuracy(ks, eps, method="exact"), 12) == round(a[0] * a[1], 12)
    True
    >>> profiling_accuracy((74, 7, 16), 5.0, "ss", method="paper") > 1  # the printed ACC_SS
    True
    """
    ks, eps, oracle, surveys, metric = _check_setting(ks, eps, oracle, surveys, metric)
    method = check_choice("method", method, _METHODS)
    universal = _check_hash(hash, prime, oracle, ks, eps)
    if prior is not None and method != "exact":
        msg = f"prior is only used with method='exact' (got method={method!r})"
        raise ParameterError(msg)
    d = len(ks)
    if method == "exact":
        C = profiling_channel(ks, eps, oracle, surveys, metric, hash=hash, prime=universal)
        return float(bayes_vulnerability(C, prior))
    if method == "paper":
        if universal is not None:
            msg = "method='paper' (Eqs. 4-5) has no hash family: use hash='uniform'"
            raise ParameterError(msg)
        if surveys != d:
            msg = f"method='paper' (Eqs. 4-5) is stated for surveys = d = {d}, got {surveys}"
            raise ParameterError(msg)
        acc = math.prod(_acc(oracle, k, eps, printed=True) for k in ks)
        return acc if metric == "uniform" else math.factorial(d) / d**d * acc
    a = np.array([_attribute_asr(oracle, k, eps, universal) for k in ks])
    b = 1.0 / np.array(ks, dtype=np.float64)
    coef = _vulnerability_poly(a, b)
    counts = _distinct_counts(d, surveys, metric)
    weights = np.array([counts[m] / math.comb(d, m) for m in range(d + 1)])
    return float(min(1.0, np.dot(weights, coef)))


def _acc(oracle: str, k: int, eps: float, printed: bool = False) -> float:
    """The paper's attacker accuracy ACC_FO (Sec. 3.2.1) from the protocol's closed forms."""
    cf: Any = protocol(oracle, k, eps).closed_form
    return float(cf.acc(printed=printed))


def _attribute_asr(oracle: str, k: int, eps: float, universal: int | None) -> float:
    """The oracle's ASR on one attribute; for olh / blh with the universal family of prime
    ``universal`` (None: uniformly random hash functions, the protocol's closed form)."""
    P = protocol(oracle, k, eps)
    if universal is None or oracle not in _HASHING:
        return float(P.closed_form.asr())
    return universal_lh_asr(k, eps, P.params["g"], universal)


def _attribute_channel(
    ks: tuple[int, ...], j: int, oracle: str, eps: float, universal: int | None = None
) -> Channel:
    """The report on attribute j, as a channel from the whole tuple."""
    P = protocol(oracle, ks[j], eps)
    if universal is None or oracle not in _HASHING:
        C = P.channel()
    else:
        C = universal_lh_channel(ks[j], eps, P.params["g"], universal)
    return cascade(_projection(ks, j), C)


def profiling_channel(
    ks: Any,
    eps: float,
    oracle: str = "grr",
    surveys: int | None = None,
    metric: str = "uniform",
    hash: str = "uniform",
    prime: int | None = None,
) -> Channel:
    """The explicit channel of ``surveys`` surveys: from a tuple to (asked set, reports).

    Parameters
    ----------
    ks, eps, oracle, surveys, metric, hash, prime
        As in :func:`profiling_accuracy` (with ``hash="universal"`` the olh / blh
        reports are those of :func:`qifldp.protocols.lh.universal_lh_channel`).

    Returns
    -------
    Channel
        Inputs: the value tuples in lexicographic order. Outputs: (i, y) with i the
        index of the asked set in :func:`survey_sets` order and y the tuple of the
        reports on its attributes (in increasing attribute order).

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`profiling_accuracy`.
    SizeError
        A composed channel beyond the explicit-channel limit.

    Notes
    -----
    The visible choice, with the probabilities of :func:`survey_sets`, of the
    same-secret composition (:func:`qifldp.compose`) of ``cascade(projection on
    j, oracle channel)`` over the attributes j of the set. A repeated attribute
    (non-uniform metric) repeats its report (memoisation), which releases
    nothing new, so only the set matters. Small ks only.

    Examples
    --------
    >>> import qifldp as q
    >>> C = profiling_channel((2, 2), 1.0)
    >>> C.shape, round(q.bayes_vulnerability(C), 6) == round(profiling_accuracy((2, 2), 1.0), 6)
    ((4, 4), True)
    """
    ks, eps, oracle, surveys, metric = _check_setting(ks, eps, oracle, surveys, metric)
    universal = _check_hash(hash, prime, oracle, ks, eps)
    if len(ks) > 20:
        msg = f"ks has {len(ks)} attributes; the exact channel enumerates sets of at most 20"
        raise ParameterError(msg)
    sets = survey_sets(len(ks), surveys, metric)
    X = _tuples(ks)
    per_attribute = {j: _attribute_channel(ks, j, oracle, eps, universal) for j in range(len(ks))}
    branches = []
    for S in sets:
        C = compose(*[per_attribute[j] for j in S]) if len(S) > 1 else per_attribute[S[0]]
        branches.append(C.relabel(inputs=X))
    return visible_choice(branches, list(sets.values()))


def _check_tuples(tuples: Any, ks: Any) -> tuple[np.ndarray, tuple[int, ...]]:
    """An (n, d) int64 array of value tuples and its domain sizes (inferred when None)."""
    if (
        tuples is None
        or isinstance(tuples, (str, bytes, Mapping, set))
        or not isinstance(tuples, (np.ndarray, Iterable))
    ):
        msg = f"tuples must be an (n, d) array of integer values, got {type(tuples).__name__}"
        raise InputTypeError(msg)
    try:
        X = np.asarray(tuples)
    except (ValueError, TypeError):
        msg = "tuples must be a rectangular (n, d) array (rows of equal length)"
        raise ParameterError(msg) from None
    if X.dtype == object or X.dtype == np.bool_ or not np.issubdtype(X.dtype, np.integer):
        if X.size == 0 and X.ndim == 2:
            X = X.astype(np.int64)
        else:
            msg = f"tuples must hold integers, got dtype {X.dtype}"
            raise InputTypeError(msg)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        msg = f"tuples must be an (n, d) array with n >= 1 and d >= 1, got shape {X.shape}"
        raise ParameterError(msg)
    X = X.astype(np.int64)
    if X.min() < 0:
        msg = f"tuples must hold values >= 0, got {int(X.min())}"
        raise ParameterError(msg)
    if ks is None:
        ks = tuple(max(2, int(v) + 1) for v in X.max(axis=0))
    ks = _check_ks(ks)
    if len(ks) != X.shape[1]:
        msg = f"ks has {len(ks)} domain sizes but tuples have {X.shape[1]} columns"
        raise ParameterError(msg)
    over = np.flatnonzero(X.max(axis=0) >= np.array(ks))
    if over.size:
        j = int(over[0])
        msg = f"tuples column {j} holds {int(X[:, j].max())}, outside 0..ks[{j}]-1 = {ks[j] - 1}"
        raise ParameterError(msg)
    return X, ks


def _asked(n: int, d: int, surveys: int, metric: str, rng: np.random.Generator) -> np.ndarray:
    """(n, d) boolean: attribute j asked of user i at least once."""
    if metric == "uniform":
        ranks = np.argsort(rng.random((n, d)), axis=1).argsort(axis=1)
        return ranks < surveys
    mask = np.zeros((n, d), dtype=bool)
    step = max(1, 2_000_000 // surveys)
    for a in range(0, n, step):
        b = min(n, a + step)
        draws = rng.integers(0, d, size=(b - a, surveys))
        rows = np.repeat(np.arange(a, b), surveys)
        mask[rows, draws.ravel()] = True
    return mask


def survey_profiles(
    tuples: Any,
    eps: float,
    oracle: str = "grr",
    surveys: int | None = None,
    metric: str = "uniform",
    ks: Any = None,
    rng: Any = None,
    hash: str = "uniform",
    prime: int | None = None,
) -> np.ndarray:
    """Simulate the surveys and the adversary's inferred profile of each user.

    Parameters
    ----------
    tuples : array_like of int, shape (n, d)
        The users' true tuples.
    eps, oracle, surveys, metric
        As in :func:`profiling_accuracy`.
    ks : sequence of int, optional
        Domain sizes (default: each column's maximum + 1, at least 2).
    rng : numpy.random.Generator or int, optional
    hash : {"uniform", "universal"}
        Hash family of the olh / blh reports (:data:`HASH_FAMILIES`): uniformly
        random functions (default; the channel of :func:`profiling_accuracy`'s
        default), drawn as tables of k values in blocks of users, or the universal
        family of ``sample_lh`` (two integers per user; its accuracy is
        ``profiling_accuracy(..., hash="universal", prime=...)``).
    prime : int, optional
        The universal family's prime (only with ``hash="universal"``).

    Returns
    -------
    numpy.ndarray of int64, shape (n, d)
        The plausible-deniability guess (the protocol's ``.attack`` on its own
        ``.sample``) of every asked attribute, −1 for the attributes never asked.

    Raises
    ------
    ParameterError, InputTypeError
        Bad tuples (not a 2-D integer array, values outside 0..k_j-1) or bad
        parameters as :func:`profiling_accuracy`.
    SizeError
        Beyond the simulation memory budget.

    Notes
    -----
    Asked sets: a uniformly random ordering of the attributes (uniform metric) or
    ``surveys`` uniform draws with replacement (non-uniform; memoisation: one
    report per distinct attribute). O(n (d + surveys)) plus the oracles' cost.

    Examples
    --------
    >>> P = survey_profiles([[0, 1, 2], [1, 0, 0]], 50.0, surveys=2, rng=0)
    >>> ((P == -1).sum(axis=1)).tolist()  # one attribute not asked per user
    [1, 1]
    >>> bool(np.all((P == -1) | (P == [[0, 1, 2], [1, 0, 0]])))  # eps = 50: the truth
    True
    """
    X, ks = _check_tuples(tuples, ks)
    _, eps, oracle, surveys, metric = _check_setting(ks, eps, oracle, surveys, metric)
    universal = _check_hash(hash, prime, oracle, ks, eps)
    rng = as_rng(rng)
    n, d = X.shape
    check_memory(n * (d + min(surveys, 64)), 16, f"survey_profiles(n = {n})", "fewer users")
    mask = _asked(n, d, surveys, metric, rng)
    out = np.full((n, d), -1, dtype=np.int64)
    for j, k in enumerate(ks):
        rows = np.flatnonzero(mask[:, j])
        if rows.size:
            out[rows, j] = _reports_attacked(protocol(oracle, k, eps), X[rows, j], universal, rng)
    return out


#: Cells of the hash tables drawn at once by the uniform family (users per block = this / k).
_TABLE_CELLS = 1 << 22


def _reports_attacked(
    P: Any, xs: np.ndarray, universal: int | None, rng: np.random.Generator
) -> np.ndarray:
    """The plausible-deniability guesses on the reports of ``xs`` (the protocol's own
    ``.sample`` and ``.attack``); olh / blh with the chosen hash family, uniform tables
    drawn in blocks of users so that memory stays bounded."""
    if P.name not in _HASHING:
        return np.asarray(P.attack(P.sample(xs, rng=rng), rng=rng))
    if universal is not None:
        return np.asarray(P.attack(P.sample(xs, rng=rng, hash="universal", prime=universal), rng))
    out = np.empty(xs.size, dtype=np.int64)
    step = max(1, _TABLE_CELLS // P.k)
    for a in range(0, xs.size, step):
        R = P.sample(xs[a : a + step], rng=rng, hash="uniform")
        out[a : a + step] = np.asarray(P.attack(R, rng=rng))
    return out


def simulate_profiling(
    tuples: Any,
    eps: float,
    oracle: str = "grr",
    surveys: int | None = None,
    metric: str = "uniform",
    ks: Any = None,
    rng: Any = None,
    hash: str = "uniform",
    prime: int | None = None,
) -> EmpiricalRate:
    """Monte Carlo profiling: the fraction of users whose whole tuple the adversary guessed.

    Parameters
    ----------
    tuples, eps, oracle, surveys, metric, ks, rng, hash, prime
        As in :func:`survey_profiles`.

    Returns
    -------
    EmpiricalRate
        ``.rate``, ``.stderr``, ``.interval()``.

    Raises
    ------
    ParameterError, InputTypeError, SizeError
        As :func:`survey_profiles`.

    Notes
    -----
    The asked attributes are guessed by the oracle's attack, the others uniformly
    at random (the Bayes guess under the uniform prior). On uniformly drawn
    tuples the rate estimates :func:`profiling_accuracy` (``"closed_form"``) *of
    the same hash family* (``hash`` and ``prime`` passed alike), a binomial
    proportion with variance ACC (1 − ACC) / n. The universal family is not the
    uniform one: at ks = (74, 7, 16), eps = 5 with olh the default prime gives
    about 0.127 where the uniform family's closed form is 0.113.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(20_000, 2))
    >>> r = simulate_profiling(X, 1.0, ks=(3, 3), rng=1)
    >>> bool(abs(r.rate - profiling_accuracy((3, 3), 1.0)) < 4 * r.stderr)
    True
    """
    X, ks = _check_tuples(tuples, ks)
    rng = as_rng(rng)
    guess = survey_profiles(X, eps, oracle, surveys, metric, ks, rng, hash, prime)
    missing = guess < 0
    fill = (rng.random(X.shape) * np.array(ks)).astype(np.int64)
    guess = np.where(missing, fill, guess)
    hits = int(np.count_nonzero(np.all(guess == X, axis=1)))
    return EmpiricalRate(hits, X.shape[0])


def profiling_curves(
    ks: Any = (74, 7, 16),
    epss: Any = tuple(range(1, 11)),
    oracles: Any = ("grr", "ss", "olh", "sue", "oue"),
    surveys: int | None = None,
) -> pd.DataFrame:
    """The data of the paper's Fig. 1 beside the exact Bayes-optimal values.

    Parameters
    ----------
    ks : sequence of int
        Domain sizes (default the paper's (74, 7, 16)).
    epss : sequence of float
        Budgets (default 1..10).
    oracles : sequence of str
        Oracles among grr, ss, olh, sue, oue (those the paper prints ACC for).
    surveys : int, optional
        Number of surveys (default d, the paper's setting).

    Returns
    -------
    pandas.DataFrame
        One row per (oracle, metric, eps): columns ``oracle``, ``metric``
        (uniform / non-uniform), ``eps``, ``paper`` (Eq. 4 / Eq. 5 as
        reconstructed, printed ACC_FO; NaN-free, only defined for surveys = d,
        else None), ``paper_true_acc`` (the same equation with the true ACC_FO),
        ``bayes`` (the exact Bayes-optimal accuracy, product formula: exact at any
        ks under the uniform prior), ``paper_above_one`` (the printed value
        exceeds 1).

    Raises
    ------
    ParameterError, InputTypeError
        Bad ks, an eps out of range, an unknown oracle, empty lists.

    Notes
    -----
    Eqs. 4-5 are not legible in the paper's available text; see the module docstring. The printed
    ACC_SS = (e^eps + 1)/(2k) exceeds 1 once e^eps > 2k − 1 (the audit claim
    ``risks.fig1_acc_ss``): at the paper's ks Eq. 4 exceeds 1 for ss from eps = 4,
    Eq. 5 from eps = 5.

    Examples
    --------
    >>> df = profiling_curves(epss=[1.0, 10.0], oracles=["grr", "ss"])
    >>> df.loc[df.paper_above_one, ["oracle", "metric", "eps"]].values.tolist()
    [['ss', 'uniform', 10.0], ['ss', 'non-uniform', 10.0]]
    """
    import pandas as pd

    ks = _check_ks(ks)
    epss_t = _check_list("epss", epss)
    oracles_t = _check_list("oracles", oracles)
    for o in oracles_t:
        check_choice("oracles[...]", o, ("grr", "ss", "olh", "sue", "oue"))
    eps_values = [check_eps(e, "epss[...]") for e in epss_t]
    d = len(ks)
    s = d if surveys is None else surveys
    rows = []
    for oracle in oracles_t:
        for metric in PROFILING_METRICS:
            for eps in eps_values:
                bayes = profiling_accuracy(ks, eps, oracle, s, metric)
                paper = true_acc = None
                if s == d:
                    paper = profiling_accuracy(ks, eps, oracle, s, metric, method="paper")
                    true_acc = math.prod(_acc(oracle, k, eps) for k in ks)
                    if metric == "non-uniform":
                        true_acc *= math.factorial(d) / d**d
                rows.append(
                    {
                        "oracle": oracle,
                        "metric": metric,
                        "eps": float(eps),
                        "paper": paper,
                        "paper_true_acc": true_acc,
                        "bayes": bayes,
                        "paper_above_one": bool(paper is not None and paper > 1.0),
                    }
                )
    return pd.DataFrame(rows)


def _check_list(name: str, value: Any) -> tuple:
    if isinstance(value, np.ndarray):
        value = value.ravel().tolist()
    out = nonempty_sequence(
        value,
        (str, bytes, Mapping, set),
        f"{name} must be a non-empty sequence, got {type(value).__name__}",
        f"{name} must be a non-empty sequence, got an empty one",
    )
    if len(out) > 1000:
        msg = f"{name} must have at most 1000 entries, got {len(out)}"
        raise ParameterError(msg)
    return out
