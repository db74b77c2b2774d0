"""Attribute inference on RS+FD / RS+RFD: the exact lumped computation and trained classifiers.

The secret is the sampled attribute j (uniform) and the user's tuple x (from a
population); the report y = (y_1, ..., y_d) has, given j,
Pr(y | j) = H_j(y_j) Π_{i != j} F_i(y_i), with H_j = m_j R_j the honest report's law
under the population's marginal m_j and F_i the fake report's law. So
Pr(j, y) = (1/d) Π_i F_i(y_i) L_j(y_j), L_j = H_j / F_j: the Bayes-optimal guess is
argmax_j L_j(y_j), and each L_j depends on y_j only, through a sufficient statistic:

- GRR: y_j itself (k_j states); H_j(y) = q + (p - q) m_j(y), F_j(y) = pi_j(y);
- UE: group the values v of attribute j into classes of equal (m_j(v), pi_j(v)) and
  let s_c be the number of bits set in class c. With a = p/q, b = (1-p)/(1-q) and
  Q(y) = Π_v q^{y_v} (1-q)^{1-y_v}, R(v, y) = Q(y) a^{y_v} b^{1-y_v}, so
  Pr_H(s) = B(s) Σ_c m_c (s_c a + (n_c - s_c) b), B(s) = Π_c Binom(s_c; n_c, q),
  and Pr_F(s) = B(s) (UE-z: the zero vector perturbed) or
  B(s) Σ_c pi_c (s_c a + (n_c - s_c) b) (UE-r): Π_c (n_c + 1) states instead of 2^k_j.

Then V = Σ_y max_j Pr(j, y) = (1/d) Σ_j Σ_s H_j(s) Π_{i != j} Pr_{F_i}(L_i beaten by
L_j(s)) (ties to the smaller index), because the attributes' reports are independent
given j. Cost O(Σ_j S_j log S_j) for S_j states of attribute j.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import gammaln, logsumexp, xlogy

from ..errors import InputTypeError, ParameterError, SizeError
from ..priors import as_prior
from ..simulation.categorical import nonempty_sequence
from ..simulation.estimators import project_simplex
from ..simulation.util import as_rng, check_memory, check_n
from ..validation import check_real
from .rsfd import RSFD, _check_priors, rsfd

if TYPE_CHECKING:
    import pandas as pd


__all__ = [
    "MAX_LUMPED_STATES",
    "attribute_inference_accuracy",
    "attribute_inference_comparison",
    "attribute_inference_table",
]

#: The most states of one attribute's sufficient statistic the lumped computation builds.
MAX_LUMPED_STATES: int = 2_000_000

#: Marginal probabilities closer than this are put in one class (then averaged).
CLASS_DECIMALS: int = 13


def _check_rsfd(P: Any) -> RSFD:
    """``P`` itself when it is an RS+FD / RS+RFD protocol, else InputTypeError (shared check)."""
    if not isinstance(P, RSFD):
        msg = f"P must be an RS+FD protocol (qifldp.rsfd or qifldp.rsrfd), got {type(P).__name__}"
        raise InputTypeError(msg)
    return P


def _classes(m: np.ndarray, pi: np.ndarray) -> list[tuple[int, float, float]]:
    """(n_c, m_c, pi_c) for the classes of values with equal (m, pi) (rounded)."""
    keys = np.stack([np.round(m, CLASS_DECIMALS), np.round(pi, CLASS_DECIMALS)], axis=1)
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    out = []
    for c in range(int(inverse.max()) + 1):
        sel = inverse == c
        out.append((int(sel.sum()), float(m[sel].mean()), float(pi[sel].mean())))
    return out


def _log_binom_terms(n: int, p: float, q: float) -> tuple[np.ndarray, ...]:
    """For s = 0..n: log B(s), log(s B(s) a), log((n - s) B(s) b) (a = p/q, b = (1-p)/(1-q))."""

    s = np.arange(n + 1, dtype=np.float64)
    comb = gammaln(n + 1) - gammaln(s + 1) - gammaln(n - s + 1)
    lb = comb + xlogy(s, q) + xlogy(n - s, 1 - q)
    with np.errstate(divide="ignore"):
        la = comb + np.log(s) + xlogy(s - 1, q) + xlogy(n - s, 1 - q) + math.log(p)
        lbb = comb + np.log(n - s) + xlogy(s, q) + xlogy(n - s - 1, 1 - q) + np.log1p(-p)
    la[0] = -np.inf
    lbb[n] = -np.inf
    return lb, la, lbb


def _ue_states(classes: list[tuple[int, float, float]], p: float, q: float, z: bool) -> tuple:
    """log Pr_H(s), log Pr_F(s) over the grid of class counts s (flattened)."""

    sizes = [n for n, _, _ in classes]
    n_states = math.prod(n + 1 for n in sizes)
    if n_states > MAX_LUMPED_STATES:
        msg = (
            f"the lumped attribute-inference computation needs {n_states} states for one "
            f"attribute ({len(classes)} classes of values with equal marginal and fake "
            f"probabilities), above MAX_LUMPED_STATES = {MAX_LUMPED_STATES}; give marginals "
            f"with fewer distinct values (e.g. uniform, or grouped) or fewer values, or use "
            f"qifldp.attribute_inference_bounds: a certified interval for any marginals, "
            f"exact for value counts"
        )
        raise SizeError(msg)
    terms = [_log_binom_terms(n, p, q) for n in sizes]
    shape = tuple(n + 1 for n in sizes)
    grids = np.ix_(*[np.arange(n + 1) for n in sizes])
    log_b = np.zeros(shape)
    for c, (lb, _, _) in enumerate(terms):
        log_b = log_b + lb[grids[c]]

    def mixture(weights: list[float]) -> np.ndarray:
        parts = []
        for c, (lb, la, lbb) in enumerate(terms):
            w = weights[c]
            if w <= 0:
                continue
            rest = log_b - lb[grids[c]]
            parts.append(rest + math.log(w) + np.logaddexp(la, lbb)[grids[c]])
        if not parts:
            return np.full(shape, -np.inf)
        return np.asarray(logsumexp(np.stack(parts), axis=0))

    log_h = mixture([m for _, m, _ in classes])
    log_f = log_b if z else mixture([pi for _, _, pi in classes])
    return log_h.ravel(), log_f.ravel()


def _states(P: RSFD, j: int, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log H_j, log F_j) over the states of attribute j's sufficient statistic."""
    o = P._oracles[j]
    p, q = o.params["p"], o.params["q"]
    pi = P._priors[j]
    if P.randomizer == "grr":
        with np.errstate(divide="ignore"):
            return np.log(q + (p - q) * m), np.log(pi)
    return _ue_states(_classes(m, pi), p, q, P.randomizer.endswith("-z"))


def lumped_accuracy(P: RSFD, marginals: list[np.ndarray]) -> float:
    """The exact Bayes-optimal accuracy from the per-attribute marginals (module docstring).

    Examples
    --------
    >>> import numpy as np, qifldp as q
    >>> P = q.rsfd([2, 2], 0.0)
    >>> lumped_accuracy(P, [np.full(2, 0.5)] * 2)
    0.5
    """
    d = len(P.ks)
    logs = []
    for j in range(d):
        lh, lf = _states(P, j, marginals[j])
        keep = np.isfinite(lh) | np.isfinite(lf)
        lh, lf = lh[keep], lf[keep]
        with np.errstate(invalid="ignore"):
            ratio = np.where(np.isneginf(lf), np.inf, lh - lf)
        logs.append((np.exp(lh), np.exp(lf), ratio))
    sorted_f = []
    for _, f, r in logs:
        order = np.argsort(r, kind="stable")
        sorted_f.append((r[order], np.concatenate([[0.0], np.cumsum(f[order])])))
    total = 0.0
    for j, (h, _, r) in enumerate(logs):
        win = np.ones_like(h)
        for i in range(d):
            if i == j:
                continue
            rs, cum = sorted_f[i]
            # ties go to the smaller index
            idx = (
                np.searchsorted(rs, r, side="left")
                if i < j
                else np.searchsorted(rs, r, side="right")
            )
            win = win * cum[idx]
        total += float(np.dot(h, win))
    return min(1.0, max(1.0 / d, total / d))


# -- classifiers trained on simulated reports ------------------------------------------
def _features(P: RSFD, reports: Any) -> list[np.ndarray]:
    """Per-attribute feature blocks: GRR one-hot of the reported value, UE the bits."""
    if P.randomizer == "grr":
        arr = np.asarray(reports)
        return [np.eye(k, dtype=np.float64)[arr[:, i]] for i, k in enumerate(P.ks)]
    return [np.asarray(b, dtype=np.float64) for b in reports]


def _fit_naive_bayes(P: RSFD, blocks: list[np.ndarray], labels: np.ndarray) -> tuple:
    """Naive Bayes with add-one smoothing: categorical per attribute (GRR), Bernoulli bits (UE)."""
    d = len(P.ks)
    counts = np.bincount(labels, minlength=d).astype(np.float64)
    log_prior = np.log((counts + 1) / (counts.sum() + d))
    params: list[tuple[np.ndarray, np.ndarray | None]] = []
    for X in blocks:
        sums = np.stack([X[labels == j].sum(axis=0) for j in range(d)])  # (d, k)
        if P.randomizer == "grr":
            theta = (sums + 1) / (counts[:, None] + X.shape[1])
            params.append((np.log(theta), None))
        else:
            theta = (sums + 1) / (counts[:, None] + 2)
            params.append((np.log(theta), np.log1p(-theta)))
    return log_prior, params


def _predict(model: tuple, blocks: list[np.ndarray]) -> np.ndarray:
    log_prior, params = model
    score = np.tile(log_prior, (blocks[0].shape[0], 1))
    for X, (l1, l0) in zip(blocks, params, strict=True):
        score += X @ l1.T
        if l0 is not None:
            score += (1 - X) @ l0.T
    return np.argmax(score, axis=1)


def _subset(P: RSFD, reports: Any, idx: np.ndarray) -> Any:
    if P.randomizer == "grr":
        return np.asarray(reports)[idx]
    return [b[idx] for b in reports]


def _marginals_of(P: RSFD, tuples: np.ndarray) -> list[np.ndarray]:
    return [np.bincount(tuples[:, j], minlength=k) / tuples.shape[0] for j, k in enumerate(P.ks)]


def attribute_inference_comparison(
    P: Any,
    tuples: Any = None,
    marginals: Any = None,
    n: int = 20_000,
    n_synthetic: int | None = None,
    known: float = 0.2,
    rng: Any = None,
) -> pd.DataFrame:
    """Attribute inference on RS+FD / RS+RFD: the exact Bayes-optimal accuracy and classifiers.

    Parameters
    ----------
    P : RSFD
        The protocol (:func:`qifldp.rsfd`, :func:`qifldp.rsrfd`).
    tuples : array_like of int, shape (n, d), optional
        Fixed users' data (each user reports once through ``P``); the bounds use the
        empirical marginals of the adversary's test users.
    marginals : sequence of array_like, optional
        Instead of ``tuples``: draw ``n`` users with independent attributes from these
        per-attribute marginals (default: uniform); the bound is the exact accuracy
        for them. Only the marginals matter for the bound.
    n : int
        Number of users drawn from ``marginals`` (ignored with ``tuples``), ``>= 2``.
    n_synthetic : int, optional
        Synthetic profiles of the no-knowledge adversary (default: the number of users).
    known : float
        Fraction of users whose sampled attribute the partial-knowledge adversary
        knows, in [0, 1], leaving at least one user on each side.
    rng : numpy.random.Generator or int, optional
        Generator or seed.

    Returns
    -------
    pandas.DataFrame
        One row per adversary, columns ``adversary``, ``accuracy``, ``se`` (binomial
        standard error of a classifier's test accuracy; 0 for the exact row),
        ``bound`` (the exact Bayes-optimal accuracy for the adversary's test users),
        ``n_train``, ``n_test``. Rows: ``"bayes-optimal (exact)"``,
        ``"no knowledge (naive Bayes)"``, ``"partial knowledge (naive Bayes)"``,
        ``"hybrid (naive Bayes)"``.

    Raises
    ------
    InputTypeError, ParameterError, PriorError
        Bad ``P``, ``tuples``, ``marginals``, ``n``, ``n_synthetic``, ``known`` or
        ``rng``; both ``tuples`` and ``marginals``.
    SizeError
        Too many users for the memory budget; UE with marginals of many distinct
        values on a large domain (the exact computation's states, see
        :func:`qifldp.attribute_inference_accuracy`: fixed ``tuples`` have empirical
        marginals with many distinct values, so use ``marginals`` at k_j = 74).

    Notes
    -----
    The adversaries of the multidimensional-risks paper (VLDB 2023, Sec. 3.3), with
    naive Bayes (numpy) in place of its trained classifiers: categorical per
    attribute for GRR (given the sampled attribute the attributes' reports are
    independent, so this is the true model's form), Bernoulli per bit for UE.

    - No knowledge: estimate the marginals from all reports (:meth:`RSFD.estimate`,
      projected onto the simplex), draw ``n_synthetic`` profiles with independent
      attributes from them, run ``P`` on them (labels known), train, and classify all
      real reports.
    - Partial knowledge: the sampled attribute of a random ``known`` fraction of the
      users is known; train on their reports, classify the others.
    - Hybrid (the paper's HM): train on both, the known users' reports and the
      ``n_synthetic`` synthetic profiles' reports; classify the other users.

    A classifier trained independently of the test reports has expected test
    accuracy at most ``bound`` (the no-knowledge one depends on them only through the
    aggregate estimate); tests check ``accuracy <= bound + 4 se``. Cost O(n Σ k_j).

    Examples
    --------
    >>> import qifldp as q
    >>> T = q.attribute_inference_comparison(q.rsfd([74, 7, 16], 3.0, "sue-z"), n=2000, rng=1)
    >>> T["adversary"].tolist()[1:]
    ['no knowledge (naive Bayes)', 'partial knowledge (naive Bayes)', 'hybrid (naive Bayes)']
    >>> bool((T["accuracy"] <= T["bound"] + 4 * T["se"]).all())
    True
    """
    import pandas as pd

    _check_rsfd(P)
    if tuples is not None and marginals is not None:
        msg = "give either tuples (fixed users) or marginals (users drawn from them), not both"
        raise InputTypeError(msg)
    gen = as_rng(rng)
    width = sum(P.ks)
    population: list[np.ndarray] | None = None
    if tuples is not None:
        xs = P._tuples(tuples)
    else:
        n = check_n(n)
        population = (
            [np.full(k, 1.0 / k) for k in P.ks]
            if marginals is None
            else list(_check_priors(marginals, P.ks, "marginals"))
        )
        check_memory(n, 8 * width, "the users' reports and features", "a smaller n")
        xs = np.stack(
            [gen.choice(k, size=n, p=m) for k, m in zip(P.ks, population, strict=True)], axis=1
        )
    n_users = xs.shape[0]
    if n_users < 2:
        msg = f"there must be at least 2 users (train and test), got {n_users}"
        raise ParameterError(msg)
    s = n_users if n_synthetic is None else check_n(n_synthetic, "n_synthetic")
    check_memory(
        s, 8 * width, "the synthetic profiles' reports and features", "a smaller n_synthetic"
    )
    known = check_real("known", known, minimum=0.0, maximum=1.0)
    n_known = int(round(known * n_users))
    if not 1 <= n_known <= n_users - 1:
        msg = (
            f"known must leave at least one user known and one unknown "
            f"({n_users} users), got {known}"
        )
        raise ParameterError(msg)

    def bound(rows: np.ndarray) -> float:
        ms = population if population is not None else _marginals_of(P, xs[rows])
        return lumped_accuracy(P, ms)

    everyone = np.arange(n_users)
    exact_all = bound(everyone)
    reports, sampled = P.sample(xs, gen, return_sampled=True)
    rows: list[tuple] = [("bayes-optimal (exact)", exact_all, 0.0, exact_all, 0, n_users)]

    # no knowledge: synthetic profiles from the estimated marginals
    est = [project_simplex(f) for f in P.estimate(reports)]
    synth = np.stack(
        [gen.choice(k, size=s, p=f / f.sum()) for k, f in zip(P.ks, est, strict=True)], axis=1
    )
    s_reports, s_labels = P.sample(synth, gen, return_sampled=True)
    model = _fit_naive_bayes(P, _features(P, s_reports), s_labels)
    acc = float(np.mean(_predict(model, _features(P, reports)) == sampled))
    se = math.sqrt(acc * (1 - acc) / n_users)
    rows.append(("no knowledge (naive Bayes)", acc, se, exact_all, s, n_users))

    # partial knowledge: a known subset of the real users
    perm = gen.permutation(n_users)
    train, test = perm[:n_known], perm[n_known:]
    model = _fit_naive_bayes(P, _features(P, _subset(P, reports, train)), sampled[train])
    pred = _predict(model, _features(P, _subset(P, reports, test)))
    acc = float(np.mean(pred == sampled[test]))
    se = math.sqrt(acc * (1 - acc) / test.size)
    rows.append(("partial knowledge (naive Bayes)", acc, se, bound(test), n_known, int(test.size)))

    # hybrid: the known users' reports and the synthetic profiles' together
    blocks = [
        np.concatenate([a, b])
        for a, b in zip(
            _features(P, s_reports), _features(P, _subset(P, reports, train)), strict=True
        )
    ]
    model = _fit_naive_bayes(P, blocks, np.concatenate([s_labels, sampled[train]]))
    acc = float(np.mean(_predict(model, _features(P, _subset(P, reports, test))) == sampled[test]))
    se = math.sqrt(acc * (1 - acc) / test.size)
    rows.append(("hybrid (naive Bayes)", acc, se, bound(test), s + n_known, int(test.size)))
    return pd.DataFrame(rows, columns=["adversary", "accuracy", "se", "bound", "n_train", "n_test"])


def attribute_inference_table(
    ks: Any,
    epss: Any,
    randomizers: Any = ("grr", "sue-z", "oue-z", "sue-r", "oue-r"),
    marginals: Any = None,
    n: int = 20_000,
    known: float = 0.2,
    rng: Any = None,
) -> pd.DataFrame:
    """:func:`attribute_inference_comparison` of RS+FD over a grid of eps and randomizers.

    Parameters
    ----------
    ks : sequence of int
        Domain sizes, e.g. the paper's (74, 7, 16).
    epss : sequence of float
        Privacy budgets (e.g. 1..10 as in the paper).
    randomizers : sequence of str
        RS+FD randomizers (default all five).
    marginals : sequence of array_like, optional
        Per-attribute marginals of the simulated users (default uniform); for UE at
        large k_j, with few distinct values (see
        :func:`qifldp.attribute_inference_accuracy`).
    n, known, rng
        As :func:`attribute_inference_comparison` (``rng`` seeds one generator used
        for the whole grid, in order).

    Returns
    -------
    pandas.DataFrame
        Columns ``randomizer``, ``eps``, then those of
        :func:`attribute_inference_comparison`; four rows per (randomizer, eps).

    Raises
    ------
    InputTypeError, ParameterError, SizeError
        As :func:`qifldp.rsfd` and :func:`attribute_inference_comparison`; an empty
        ``epss`` or ``randomizers``.

    Examples
    --------
    >>> import qifldp as q
    >>> T = q.attribute_inference_table([4, 3], [1.0, 3.0], ["grr", "oue-z"], n=500, rng=0)
    >>> T.shape, T.columns[:3].tolist()
    ((16, 8), ['randomizer', 'eps', 'adversary'])
    """
    import pandas as pd

    def as_list(name: str, value: Any) -> list[Any]:
        return list(
            nonempty_sequence(
                value,
                (str, bytes),
                f"{name} must be a non-empty sequence, got {type(value).__name__}",
                f"{name} must be a non-empty sequence, got an empty one",
            )
        )

    gen = as_rng(rng)
    frames = []
    for r in as_list("randomizers", randomizers):
        for eps in as_list("epss", epss):
            P = rsfd(ks, eps, r)
            T = attribute_inference_comparison(P, marginals=marginals, n=n, known=known, rng=gen)
            T.insert(0, "eps", P.eps)
            T.insert(0, "randomizer", P.randomizer)
            frames.append(T)
    return pd.concat(frames, ignore_index=True)


def attribute_inference_accuracy(P: Any, prior: Any = None, marginals: Any = None) -> float:
    """The exact Bayes-optimal probability of guessing the sampled attribute from one report.

    Parameters
    ----------
    P : RSFD
        An RS+FD or RS+RFD protocol (:func:`rsfd`, :func:`rsrfd`).
    prior : array_like, optional
        The distribution of the user's tuple over the Π k_j tuples in lexicographic
        order (the population's joint distribution); None means uniform.
    marginals : sequence of array_like, optional
        Instead of ``prior``: the population's per-attribute marginals (array j of
        length k_j, summing to 1); only these matter.

    Returns
    -------
    float
        V = Σ_y max_j Pr(j, y), in [1/d, 1].

    Raises
    ------
    InputTypeError
        ``P`` not an RSFD protocol; both ``prior`` and ``marginals`` given.
    PriorError
        A bad ``prior`` or marginal.
    SizeError
        UE: one attribute's lumped statistic above
        :data:`qifldp.protocols.rsfd_attack.MAX_LUMPED_STATES` states (marginals with
        many distinct values on a large domain).

    Notes
    -----
    The secret is (tuple x, sampled attribute j), x ~ prior and j uniform. Given j,
    C_j[x, y] = R_j[x_j, y_j] Π_{i != j} F_i[y_i] (R_j the randomizer at eps', F_i the
    fake-report law), so Pr(j, y) = (1/d) (m_j R_j)[y_j] Π_{i != j} F_i[y_i] with m_j the
    prior's marginal on attribute j: only the marginals matter, and the guess is
    argmax_j of the likelihood ratio L_j(y_j) = (m_j R_j)[y_j] / F_j[y_j]. That ratio
    depends on y_j through a sufficient statistic (GRR: the value; UE: the number of
    bits set in each class of values with equal marginal and fake probability, so
    k_j + 1 states for uniform marginals), and the reports of the attributes are
    independent given j, so V is a sum over each attribute's states
    (:mod:`qifldp.protocols.rsfd_attack`). Exact; ks = (74, 7, 16) with UE (2^97
    reports) takes milliseconds. Cost O(Σ_j S_j log S_j), S_j the states of attribute j.

    Examples
    --------
    >>> import qifldp as q
    >>> round(q.attribute_inference_accuracy(q.rsfd([2, 2], 0.0)), 6)  # eps = 0: a coin
    0.5
    >>> round(q.attribute_inference_accuracy(q.rsfd([74, 7, 16], 1.0, "oue-z")), 4)
    0.413
    """

    _check_rsfd(P)
    if marginals is not None:
        if prior is not None:
            msg = "give either prior (the joint distribution) or marginals, not both"
            raise InputTypeError(msg)
        ms = list(_check_priors(marginals, P.ks, "marginals"))
    else:
        n_tuples = math.prod(P.ks)
        pri = as_prior(prior, n_tuples)
        joint = pri.reshape(P.ks)
        d = len(P.ks)
        ms = [joint.sum(axis=tuple(i for i in range(d) if i != j)) for j in range(d)]
    return lumped_accuracy(P, ms)
