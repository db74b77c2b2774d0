"""Data-reconstruction attacks on simulated reports: Bayes-optimal for any channel.

:func:`bayes_attack`, :func:`empirical_asr` and :func:`simulate_attack` work on
any channel. Each protocol's attack is its method ``Protocol.attack`` in
:mod:`qifldp.protocols`; the flat names ``attack_grr`` ... ``attack_lh`` are
aliases of :mod:`qifldp.faces.simulation` (the attacks need neither k nor eps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..channel import as_channel
from ..errors import ParameterError
from ..priors import as_prior
from ..validation import check_real
from .samplers import sample
from .util import as_array, as_rng, as_values, check_memory, check_n, row_chunks

__all__ = [
    "TIE_RTOL",
    "EmpiricalRate",
    "bayes_attack",
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
