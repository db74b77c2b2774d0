"""Re-identification from sanitised profiles (Arcolezi et al., VLDB 2023, Sec. 3.2.4).

After repeated surveys (:mod:`qifldp.protocols.profiling`) the adversary holds,
for a target user, a sanitised profile: the inferred value of every attribute
asked, nothing for the others. It matches the profile against background
knowledge, a table of the population's records (full knowledge, FK-RI: every
attribute; partial knowledge, PK-RI: the attributes in ``known`` only), with the
paper's distance: the number of attributes, reported and known, on which the
profile and the record differ. The records are ranked by distance (ties in a
uniformly random order) and the target counts as re-identified at top-k when its
own record is among the first k.

:func:`reidentification_accuracy` simulates this on a population (synthetic, or
the coded columns of a CSV table, :func:`qifldp.simulation.load_categorical_csv`);
:func:`reidentification_bayes` is the exact Bayes-optimal top-1 accuracy for a
tiny population, by enumeration of the channel from the user's identity to the
adversary's observation. For GRR the distance attacker *is* Bayes-optimal: every
report multiplies the likelihood of a record by p_j if it matches and q_j
otherwise, and p_j / q_j = e^eps for every attribute, so the likelihood is a
decreasing function of the distance alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..channel import Channel
from ..composition import compose
from ..errors import InputTypeError, ParameterError
from ..measures import bayes_vulnerability
from ..operators import visible_choice
from ..simulation.util import as_rng
from ..validation import check_int
from .oracles import oracle as protocol
from .profiling import _check_setting, _check_tuples, survey_profiles, survey_sets

__all__ = ["Reidentification", "reidentification_accuracy", "reidentification_bayes"]

#: Largest population of :func:`reidentification_bayes` (the identities are the inputs).
MAX_BAYES_POPULATION = 2_000
#: Cells (targets x records) of one block of the distance computation.
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class Reidentification:
    """Top-k re-identification accuracies of a simulated attack.

    Attributes
    ----------
    top_k : tuple of int
        The k of each accuracy.
    accuracy : tuple of float
        Fraction of targets whose record is among the first k (ties: the expected
        value over a uniformly random order of the tied records).
    stderr : tuple of float
        Standard error of each accuracy (sample standard deviation / sqrt(n)).
    n_targets : int
        Number of targets attacked.

    Examples
    --------
    >>> r = Reidentification((1, 5), (0.25, 0.5), (0.01, 0.02), 100)
    >>> r.as_dict()
    {1: 0.25, 5: 0.5}
    """

    top_k: tuple[int, ...]
    accuracy: tuple[float, ...]
    stderr: tuple[float, ...]
    n_targets: int

    def as_dict(self) -> dict[int, float]:
        """k -> accuracy.

        Examples
        --------
        >>> Reidentification((1,), (0.5,), (0.1,), 10).as_dict()
        {1: 0.5}
        """
        return dict(zip(self.top_k, self.accuracy, strict=True))


def _check_known(known: Any, d: int) -> np.ndarray:
    """Boolean mask of the attributes in the background knowledge."""
    if known is None:
        return np.ones(d, dtype=bool)
    if isinstance(known, (str, bytes, Mapping, set, float)) or not isinstance(
        known, (Iterable, np.ndarray)
    ):
        msg = f"known must be a sequence of attribute indices (0..{d - 1}), got {known!r}"
        raise InputTypeError(msg)
    idx = list(np.asarray(known).ravel().tolist()) if isinstance(known, np.ndarray) else list(known)
    if not idx:
        msg = "known must name at least one attribute, got an empty sequence"
        raise ParameterError(msg)
    mask = np.zeros(d, dtype=bool)
    for i, j in enumerate(idx):
        j = check_int(f"known[{i}]", j, minimum=0, maximum=d - 1)
        if mask[j]:
            msg = f"known names attribute {j} twice"
            raise ParameterError(msg)
        mask[j] = True
    return mask


def _check_top_k(top_k: Any, n: int) -> tuple[int, ...]:
    if isinstance(top_k, (Iterable, np.ndarray)) and not isinstance(top_k, (str, bytes)):
        if isinstance(top_k, (Mapping, set)):
            msg = f"top_k must be an integer or a sequence of integers, got {top_k!r}"
            raise InputTypeError(msg)
        ks = list(np.asarray(top_k).ravel().tolist()) if isinstance(top_k, np.ndarray) else top_k
        ks = list(ks)
        if not ks:
            msg = "top_k must hold at least one k, got an empty sequence"
            raise ParameterError(msg)
        return tuple(check_int(f"top_k[{i}]", k, minimum=1, maximum=n) for i, k in enumerate(ks))
    return (check_int("top_k", top_k, minimum=1, maximum=n),)


def reidentification_accuracy(
    population: Any,
    eps: float,
    oracle: str = "grr",
    surveys: int | None = None,
    metric: str = "uniform",
    known: Any = None,
    top_k: Any = 1,
    ks: Any = None,
    targets: int | None = None,
    rng: Any = None,
    hash: str = "uniform",
    prime: int | None = None,
) -> Reidentification:
    """Simulate the re-identification of surveyed users against background knowledge.

    Parameters
    ----------
    population : array_like of int, shape (N, d)
        The records of the background knowledge, one per user (the population
        the targets are drawn from), coded 0..k_j-1.
    eps, oracle, surveys, metric
        As in :func:`qifldp.profiling_accuracy`.
    known : sequence of int, optional
        The attributes the background knowledge holds (partial knowledge,
        PK-RI); None: all of them (FK-RI).
    top_k : int or sequence of int
        The k of the top-k accuracies, each in 1..N.
    ks : sequence of int, optional
        Domain sizes (default: each column's maximum + 1, at least 2).
    targets : int, optional
        Number of users attacked, drawn without replacement (default min(N, 2000)).
    rng : numpy.random.Generator or int, optional
    hash, prime
        Hash family of the olh / blh reports, as :func:`qifldp.survey_profiles`
        (default uniformly random functions, the channel of
        :func:`reidentification_bayes`).

    Returns
    -------
    Reidentification

    Raises
    ------
    ParameterError, InputTypeError
        A bad population, known, top_k or targets, or bad survey parameters.
    SizeError
        Beyond the simulation memory budget.

    Notes
    -----
    Each target answers the surveys (:func:`qifldp.survey_profiles`); its
    distance to record r is the number of attributes j, reported and known, with
    profile_j != r_j. With m records strictly closer than its own and t records
    (its own included) at its distance, its top-k success under a random order of
    ties is clip((k − m) / t, 0, 1). Cost O(targets N d).

    Examples
    --------
    >>> import qifldp as q
    >>> X = q.simulation.synthetic_population(500, (10, 10, 10), rho=0.0, rng=0)
    >>> r = reidentification_accuracy(X, 50.0, top_k=[1, 10], rng=1)  # eps = 50: the truth
    >>> bool(r.accuracy[0] > 0.5), r.accuracy[1] >= r.accuracy[0]
    (True, True)
    """
    X, ks = _check_tuples(population, ks)
    _, eps, oracle, surveys, metric = _check_setting(ks, eps, oracle, surveys, metric)
    N, d = X.shape
    mask = _check_known(known, d)
    tk = _check_top_k(top_k, N)
    n_t = min(N, 2000) if targets is None else check_int("targets", targets, minimum=1, maximum=N)
    rng = as_rng(rng)
    who = rng.choice(N, size=n_t, replace=False)
    profiles = survey_profiles(X[who], eps, oracle, surveys, metric, ks, rng, hash, prime)
    use = (profiles >= 0) & mask  # the attributes compared, per target
    BK = X[:, mask]
    P, U = profiles[:, mask], use[:, mask]
    scores = np.empty((n_t, len(tk)))
    step = max(1, _BLOCK_CELLS // max(1, N * max(1, BK.shape[1])))
    kk = np.array(tk, dtype=np.float64)
    for a in range(0, n_t, step):
        b = min(n_t, a + step)
        diff = (P[a:b, None, :] != BK[None, :, :]) & U[a:b, None, :]
        dist = diff.sum(axis=2)  # (block, N)
        own = dist[np.arange(b - a), who[a:b]]
        m = (dist < own[:, None]).sum(axis=1)
        t = (dist == own[:, None]).sum(axis=1)
        scores[a:b] = np.clip((kk[None, :] - m[:, None]) / t[:, None], 0.0, 1.0)
    acc = scores.mean(axis=0)
    sd = scores.std(axis=0, ddof=1) if n_t > 1 else np.zeros(len(tk))
    return Reidentification(
        tk,
        tuple(float(v) for v in acc),
        tuple(float(v) / math.sqrt(n_t) for v in sd),
        n_t,
    )


def reidentification_bayes(
    population: Any,
    eps: float,
    oracle: str = "grr",
    surveys: int | None = None,
    metric: str = "uniform",
    known: Any = None,
    ks: Any = None,
) -> float:
    """The exact Bayes-optimal top-1 re-identification accuracy for a tiny population.

    Parameters
    ----------
    population, eps, oracle, surveys, metric, known, ks
        As in :func:`reidentification_accuracy`; at most
        :data:`MAX_BAYES_POPULATION` records.

    Returns
    -------
    float
        V = Σ_S Pr(S) Σ_y max_i (1/N) Π_{j in S ∩ known} C_j[r_ij, y_j]: the
        Bayes vulnerability of the channel from the target's identity i (uniform
        over the N records) to the asked set S and the reports.

    Raises
    ------
    ParameterError, InputTypeError
        As :func:`reidentification_accuracy`; a population above the limit.
    SizeError
        A composed channel beyond the explicit-channel limit.

    Notes
    -----
    The channel is the visible choice over S (:func:`qifldp.survey_sets`) of the
    same-secret composition (:func:`qifldp.compose`) of the oracle's channel
    rows C_j[r_ij] over the known attributes of S. Reports on attributes outside
    ``known`` are left out: the adversary does not know those values of the
    records, and with one belief b_j about them for every record,
    Pr(y_j | i) = Σ_v b_j(v) C_j[v, y_j] is the same for every i, so they carry
    no information about the identity. Records that are equal cannot be
    told apart: the value counts one success among them.

    Examples
    --------
    >>> import math
    >>> # two records differing in their one attribute, GRR on k = 2: the RR accuracy
    >>> v = reidentification_bayes([[0], [1]], 1.0, ks=(2,))
    >>> round(v, 12) == round(math.e / (math.e + 1), 12)
    True
    """
    X, ks = _check_tuples(population, ks)
    _, eps, oracle, surveys, metric = _check_setting(ks, eps, oracle, surveys, metric)
    N, d = X.shape
    if N > MAX_BAYES_POPULATION:
        msg = (
            f"population has {N} records; the exact Bayes value enumerates identities, at "
            f"most MAX_BAYES_POPULATION = {MAX_BAYES_POPULATION} (simulate larger ones with "
            "reidentification_accuracy)"
        )
        raise ParameterError(msg)
    if d > 20:
        msg = f"population has {d} attributes; the exact value enumerates sets of at most 20"
        raise ParameterError(msg)
    mask = _check_known(known, d)
    rows = {
        j: Channel(protocol(oracle, ks[j], eps).channel().matrix[X[:, j]])
        for j in range(d)
        if mask[j]
    }
    blank = Channel(np.ones((N, 1)))
    sets = survey_sets(d, surveys, metric)
    branches = []
    for S in sets:
        parts = [rows[j] for j in S if mask[j]]
        branches.append(compose(*parts) if parts else blank)
    return float(bayes_vulnerability(visible_choice(branches, list(sets.values()))))
