"""Leakage measures: vulnerabilities, leakages, capacities, LDP epsilon, ASR.

Every measure taking a channel first is a :func:`functools.singledispatch`
function: explicit channels (and 2-D arrays) are handled here, and the symbolic
and symmetric channel kinds register their own implementations under the same
names, so ``q.bayes_capacity(C)`` works on each kind of channel (see
:mod:`qifldp.dispatch`). The primitives are the vulnerabilities, ``bayes_capacity``
and ``ldp_epsilon``; the derived measures (``asr``, ``max_case_capacity``, the
leakages) are written once over them and so hold for every kind; a kind
overrides one only where it is numerically better.

Conventions follow Alvim et al., *The Science of Quantitative Information Flow*
(Springer 2020), cited below as "the book".
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sized
from dataclasses import dataclass
from functools import singledispatch
from typing import TYPE_CHECKING, Any

import numpy as np

from .arrays import gain_products, nonnegative_column_max
from .channel import as_channel, checked_column_max, checked_matrix
from .dispatch import exp_value, is_nonpositive, log2_value, n_inputs, tidy_value
from .errors import GainError, InputTypeError, ParameterError, PriorError
from .gains import as_gain
from .priors import as_prior
from .reduction import reduce_columns
from .validation import _real, check_bool

if TYPE_CHECKING:  # sympy only for the hints: ``import qifldp`` does not import it
    import sympy

__all__ = [
    "prior_g_vulnerability",
    "prior_bayes_vulnerability",
    "channel_prior_vulnerability",
    "g_vulnerability",
    "bayes_vulnerability",
    "multiplicative_leakage",
    "additive_leakage",
    "bayes_capacity",
    "min_entropy_leakage",
    "max_case_capacity",
    "max_case_g_vulnerability",
    "max_case_leakage",
    "capacity_from_epsilon",
    "LOG_FLOAT_MAX",
    "ldp_epsilon",
    "asr",
    "Hyper",
    "hyper",
]


def prior_g_vulnerability(gain: Any, prior: Any) -> float:
    """Prior g-vulnerability V_g(π) = max_w Σ_x π_x g(w, x).

    Parameters
    ----------
    gain : array_like, shape (n_actions, n_inputs), or callable g(w, x)
    prior : array_like, shape (n_inputs,)

    Examples
    --------
    >>> prior_g_vulnerability([[1, 0], [0, 1]], [0.3, 0.7])
    0.7
    """
    pi = _given_prior(prior)
    G = as_gain(gain, pi.size)
    return float(np.max(G @ pi))


def prior_bayes_vulnerability(prior: Any) -> float:
    """Prior Bayes vulnerability V1(π) = max_x π_x.

    Examples
    --------
    >>> prior_bayes_vulnerability([0.2, 0.5, 0.3])
    0.5
    """
    return float(np.max(_given_prior(prior)))


def _given_prior(prior: Any) -> np.ndarray:
    """A prior given on its own (no channel fixes its length), validated."""
    if prior is None:
        msg = "prior must be given (a probability vector)"
        raise InputTypeError(msg)
    if not isinstance(prior, Sized):
        msg = f"prior must be a sequence of probabilities, got {type(prior).__name__}"
        raise InputTypeError(msg)
    n = len(prior)
    if n == 0:
        msg = "prior must have at least one entry (a distribution over one or more secrets)"
        raise PriorError(msg)
    return as_prior(prior, n)


@singledispatch
def g_vulnerability(C: Any, gain: Any, prior: Any = None) -> float | sympy.Expr:
    """Posterior g-vulnerability V_g[π▷C].

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
    gain : array_like, shape (n_actions, |X|), or callable g(w, x)
        ``gain[w, x]`` is the adversary's gain for action w when the secret is x.
    prior : array_like, shape (|X|,), optional
        Defaults to uniform.

    Returns
    -------
    float

    Raises
    ------
    GainError, PriorError
        When the gain or the prior does not match the channel's inputs.

    Notes
    -----
    V_g[π▷C] = Σ_y max_w Σ_x π_x C[x, y] g(w, x) (the book, Def. 5.22).
    Cost O(n_actions |X| |Y|).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> q.g_vulnerability(C, [[1, 0], [0, 1]])
    0.75
    """
    M = checked_matrix(C)
    pi = as_prior(prior, M.shape[0])
    G = as_gain(gain, M.shape[0])
    return float(np.sum(np.max(gain_products(G, pi, M), axis=0)))


@singledispatch
def bayes_vulnerability(C: Any, prior: Any = None) -> float | sympy.Expr:
    """Posterior Bayes vulnerability V1[π▷C]: the success of a one-try guess.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
    prior : array_like, shape (|X|,), optional
        Defaults to uniform.

    Notes
    -----
    V1[π▷C] = Σ_y max_x π_x C[x, y] (the book, Thm. 5.15).

    Examples
    --------
    >>> import qifldp as q
    >>> q.bayes_vulnerability(q.Channel([[0.75, 0.25], [0.25, 0.75]]), [0.5, 0.5])
    0.75
    """
    M = checked_matrix(C, signs=False)
    pi = as_prior(prior, M.shape[0])
    J = pi[:, None] * M
    # with π > 0 the signs of J are those of M: its column maxima check them in passing
    top = nonnegative_column_max(J)
    if top is None:  # a negative entry (or a zero of the prior hiding one): the full check
        J = pi[:, None] * as_channel(C).matrix
        top = np.max(J, axis=0)
    return float(np.sum(top))


@singledispatch
def channel_prior_vulnerability(
    C: Any, gain: Any = None, prior: Any = None, *, nonnegative: bool = False
) -> float | sympy.Expr:
    """Prior vulnerability V_g(π) over the inputs of C (V1(π) = max_x π_x without a gain).

    The prior half of every leakage, for each kind of channel: the prior and the
    gain are read as C reads them (a symbolic channel takes expressions, a
    symmetric one a :class:`~qifldp.symmetric.SymmetricGain`).

    Parameters
    ----------
    C : Channel
        Only its inputs are used.
    gain : array_like, shape (n_actions, |X|), or callable g(w, x), optional
        Defaults to the identity gain (Bayes vulnerability).
    prior : array_like, shape (|X|,), optional
        Defaults to uniform.
    nonnegative : bool
        Require a non-negative gain (multiplicative leakage).

    Raises
    ------
    GainError, PriorError
        The gain or the prior does not match C's inputs; a negative gain entry
        when ``nonnegative``.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp.measures import channel_prior_vulnerability
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> channel_prior_vulnerability(C, prior=[0.3, 0.7])
    0.7
    >>> channel_prior_vulnerability(C, [[1, 1], [0, 2]], [0.5, 0.5])
    1.0
    """
    return _prior_vulnerability(checked_matrix(C).shape[0], gain, prior, nonnegative)


def _check_nonnegative_flag(nonnegative: Any) -> bool:
    return check_bool("nonnegative", nonnegative)


def _prior_vulnerability(n: int, gain: Any, prior: Any, nonnegative: bool) -> float:
    """V_g(π) for a prior over n inputs and an explicit gain (None: Bayes)."""
    nonnegative = _check_nonnegative_flag(nonnegative)
    pi = as_prior(prior, n)
    if gain is None:
        return float(np.max(pi))
    G = as_gain(gain, n)
    if nonnegative and np.any(G < 0):
        msg = "gain must be non-negative for multiplicative leakage"
        raise GainError(msg)
    return float(np.max(G @ pi))


def _posterior(C: Any, gain: Any, prior: Any) -> float | sympy.Expr:
    return bayes_vulnerability(C, prior) if gain is None else g_vulnerability(C, gain, prior)


@singledispatch
def multiplicative_leakage(C: Any, gain: Any = None, prior: Any = None) -> float | sympy.Expr:
    """Multiplicative g-leakage L^×_g(π, C) = V_g[π▷C] / V_g(π).

    Written once over :func:`g_vulnerability` (or :func:`bayes_vulnerability`)
    and :func:`channel_prior_vulnerability`, so it holds for every kind of channel.

    Parameters
    ----------
    C : Channel, symmetric or symbolic channel
    gain : array_like or callable, optional
        Defaults to the identity gain (Bayes leakage). Must be non-negative.
    prior : array_like, optional
        Defaults to uniform.

    Returns
    -------
    float or sympy.Expr
        A sympy expression for a symbolic channel.

    Raises
    ------
    GainError
        When the gain has negative entries or V_g(π) = 0 (the ratio is undefined).

    Examples
    --------
    >>> import qifldp as q
    >>> q.multiplicative_leakage(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
    1.5
    """
    v0 = channel_prior_vulnerability(C, gain, prior, nonnegative=True)
    if is_nonpositive(v0):
        msg = "prior g-vulnerability is 0, multiplicative leakage is undefined"
        raise GainError(msg)
    return tidy_value(_posterior(C, gain, prior) / v0)


@singledispatch
def additive_leakage(C: Any, gain: Any = None, prior: Any = None) -> float | sympy.Expr:
    """Additive g-leakage L^+_g(π, C) = V_g[π▷C] − V_g(π).

    Written once over the posterior and prior vulnerabilities (every kind).

    Examples
    --------
    >>> import qifldp as q
    >>> q.additive_leakage(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
    0.25
    """
    v0 = channel_prior_vulnerability(C, gain, prior)
    return tidy_value(_posterior(C, gain, prior) - v0)


@singledispatch
def bayes_capacity(C: Any) -> float | sympy.Expr:
    """Multiplicative Bayes capacity ML(C) = Σ_y max_x C[x, y].

    It is the largest multiplicative Bayes leakage over all priors, attained by the
    uniform prior, and bounds the multiplicative g-leakage of every non-negative
    gain (the book, Thm. 7.2 and the miracle theorem 7.5).

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)

    Returns
    -------
    float
        A number in [1, min(|X|, |Y|)].

    Examples
    --------
    >>> import qifldp as q
    >>> q.bayes_capacity(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
    1.5
    """
    return float(np.sum(checked_column_max(C)))


@singledispatch
def min_entropy_leakage(C: Any, prior: Any = None) -> float | sympy.Expr:
    """Min-entropy leakage log2(V1[π▷C] / V1(π)) in bits.

    Written once over :func:`bayes_vulnerability` and
    :func:`channel_prior_vulnerability` (every kind of channel).

    Examples
    --------
    >>> import qifldp as q
    >>> identity = q.Channel([[1.0, 0.0], [0.0, 1.0]])
    >>> q.min_entropy_leakage(identity)
    1.0
    """
    v0 = channel_prior_vulnerability(C, None, prior)
    return log2_value(tidy_value(bayes_vulnerability(C, prior) / v0))


def _check_neighbors(neighbors: Iterable[Any], n: int) -> np.ndarray:
    try:
        pairs = np.array([tuple(p) for p in neighbors], dtype=object)
    except TypeError:
        msg = "neighbors must be an iterable of (i, j) pairs of input indices"
        raise InputTypeError(msg) from None
    if pairs.size == 0:
        return np.zeros((0, 2), dtype=np.intp)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        msg = "neighbors must be an iterable of (i, j) pairs of input indices"
        raise InputTypeError(msg)
    out = np.empty(pairs.shape, dtype=np.intp)
    for idx, v in np.ndenumerate(pairs):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            msg = f"neighbors must hold integer input indices, got {v!r}"
            raise InputTypeError(msg)
        if not 0 <= v < n:
            msg = f"neighbors index {v} is out of range for a channel with {n} inputs"
            raise ParameterError(msg)
        out[idx] = v
    return out


@singledispatch
def ldp_epsilon(C: Any, neighbors: Iterable[Any] | None = None) -> float | sympy.Expr:
    """The true LDP epsilon: ln max_y max_{x, x'} C[x, y] / C[x', y].

    Parameters
    ----------
    C : Channel
    neighbors : iterable of (i, j), optional
        Unordered pairs of input indices; only these pairs count (default: all).

    Returns
    -------
    float
        ``inf`` when some column mixes zero and positive entries among the
        compared inputs; all-zero columns are ignored.

    Notes
    -----
    Computed as ln(max) − ln(min) per column (no division, so no overflow).
    max_case_capacity(C) = exp(ldp_epsilon(C)).

    Examples
    --------
    >>> import qifldp as q
    >>> round(q.ldp_epsilon(q.Channel([[0.75, 0.25], [0.25, 0.75]])), 6)
    1.098612
    >>> q.ldp_epsilon(q.Channel([[1.0, 0.0], [0.5, 0.5]]))
    inf
    """
    if neighbors is None:
        M = checked_matrix(C, signs=False)
        hi, lo = M.max(axis=0), M.min(axis=0)
        if not float(lo.min()) >= 0.0:  # a negative entry (or NaN): as_channel says which
            M = as_channel(C).matrix
        used = hi > 0
        if np.any(lo[used] == 0):
            return math.inf
        if not np.any(used):
            return 0.0
        return float(np.max(np.log(hi[used]) - np.log(lo[used])))
    C = as_channel(C)
    M = C.matrix
    pairs = _check_neighbors(neighbors, C.n_inputs)
    if pairs.shape[0] == 0:
        return 0.0
    # pairs in blocks of about _PAIR_BLOCK_ENTRIES entries: memory bounded by the block,
    # not by (number of pairs) x |Y| (389,536 pairs x 8,288 outputs would be 24 GiB)
    step = max(1, _PAIR_BLOCK_ENTRIES // max(1, M.shape[1]))
    best = 0.0
    for start in range(0, pairs.shape[0], step):
        block = pairs[start : start + step]
        a, b = M[block[:, 0]], M[block[:, 1]]
        if np.any((a == 0) != (b == 0)):
            return math.inf
        both = (a > 0) & (b > 0)
        if np.any(both):
            best = max(best, float(np.max(np.abs(np.log(a[both]) - np.log(b[both])))))
    return best


#: Entries of the row pairs compared at once by :func:`ldp_epsilon` with neighbours.
_PAIR_BLOCK_ENTRIES: int = 2**22


#: ln(DBL_MAX) = 709.782712893384: the largest epsilon whose e^eps is a finite float.
LOG_FLOAT_MAX: float = math.log(sys.float_info.max)


def capacity_from_epsilon(eps: float) -> float:
    """e^eps as a float: finite whenever it is representable, ``inf`` only beyond.

    The max-case capacity of a channel is e^{ldp_epsilon}; it is finite for every
    finite epsilon, but e^eps exceeds the largest float (1.797e308) when
    eps > :data:`LOG_FLOAT_MAX` = ln(DBL_MAX) = 709.7827..., and is then returned
    as ``inf`` (IEEE overflow; ``ldp_epsilon`` still gives the exact exponent).
    An infinite (or NaN) epsilon is returned as ``inf`` (NaN raises).

    Parameters
    ----------
    eps : float
        An LDP epsilon, ``>= 0`` or ``inf``.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        eps is NaN or negative.

    Examples
    --------
    >>> capacity_from_epsilon(709.78)
    1.7928227943945155e+308
    >>> capacity_from_epsilon(709.79)
    inf
    """
    eps = _real("eps", eps)
    if eps < 0:
        msg = (
            f"eps must be >= 0 (an LDP epsilon bounds the log of a ratio of probabilities "
            f"from above, and the ratio of a row to itself is 1), got {eps}"
        )
        raise ParameterError(msg)
    return exp_value(eps)


@singledispatch
def max_case_capacity(C: Any) -> float | sympy.Expr:
    """Multiplicative max-case capacity ML^MAX(C) = e^{ldp_epsilon(C)}.

    Written once over :func:`ldp_epsilon` (every kind of channel; ``sympy.exp``
    of the symbolic epsilon for a symbolic channel).

    Returns
    -------
    float or sympy.Expr
        ``inf`` when ``ldp_epsilon(C)`` is infinite (a column mixes zero and
        positive entries), or when e^eps is beyond the largest float
        (eps > ``LOG_FLOAT_MAX`` = ln(DBL_MAX) ≈ 709.7827; the capacity is then
        finite but not representable: use :func:`ldp_epsilon`, its logarithm).
        Finite for every eps up to ln(DBL_MAX), e.g. 1.79e308 at eps = 709.78.

    Examples
    --------
    >>> import qifldp as q
    >>> round(q.max_case_capacity(q.Channel([[0.75, 0.25], [0.25, 0.75]])), 12)
    3.0
    """
    return exp_value(ldp_epsilon(C))


@singledispatch
def max_case_g_vulnerability(C: Any, gain: Any = None, prior: Any = None) -> float:
    """Max-case posterior g-vulnerability: V_g of the most vulnerable posterior.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
        An explicit channel (another kind: ``.expand()`` it first).
    gain : array_like, shape (n_actions, |X|), or callable g(w, x), optional
        Defaults to the identity gain (Bayes vulnerability of the posteriors).
    prior : array_like, shape (|X|,), optional
        Defaults to uniform.

    Returns
    -------
    float
        max over the outputs y with Pr(y) > 0 of V_g(δ^y), δ^y_x = π_x C[x, y] / Pr(y).

    Raises
    ------
    GainError, PriorError
        When the gain or the prior does not match the channel's inputs.
    UnsupportedKindError
        A symmetric or symbolic channel.

    Notes
    -----
    The max-case posterior vulnerability of the book (Ch. 5: V^max_g[π▷C] is the
    maximum of V_g over the support of the hyper [π▷C]), the worst case over the
    outputs where :func:`g_vulnerability` averages them. O(n_actions |X| |Y|).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> q.max_case_g_vulnerability(C, prior=[0.5, 0.5])   # both posteriors (3/4, 1/4)
    0.75
    >>> q.max_case_g_vulnerability(C, prior=[0.9, 0.1])   # output 0: 0.675 / 0.7
    0.9642857142857143
    """
    return _max_case_vulnerability(checked_matrix(C), gain, prior)


def _max_case_vulnerability(M: np.ndarray, gain: Any, prior: Any) -> float:
    """max_case_g_vulnerability of a validated matrix M."""
    pi = as_prior(prior, M.shape[0])
    J = pi[:, None] * M
    p = J.sum(axis=0)
    seen = p > 0
    if seen.all():
        J /= p  # J is ours: the posteriors in place
        posteriors = J
    else:
        posteriors = J[:, seen] / p[seen]
    if gain is None:
        return float(np.max(posteriors))
    G = as_gain(gain, M.shape[0])
    return float(np.max(G @ posteriors))


@singledispatch
def max_case_leakage(C: Any, gain: Any = None, prior: Any = None) -> float:
    """Multiplicative max-case g-leakage V^max_g[π▷C] / V_g(π).

    Parameters
    ----------
    C : Channel
        An explicit channel.
    gain : array_like or callable, optional
        Non-negative; defaults to the identity gain.
    prior : array_like, optional
        Defaults to uniform.

    Returns
    -------
    float
        At most e^eps for an eps-LDP channel (every posterior ratio
        δ^y_x / π_x = C[x, y] / Σ_x' π_x' C[x', y] is), and the supremum over
        priors and gains is e^eps = :func:`max_case_capacity` (approached by a
        prior concentrating on the denominator's input; Fernandes et al., the
        QIF paper's [30]).

    Raises
    ------
    GainError
        A negative gain entry, or V_g(π) = 0 (the ratio is undefined).

    Examples
    --------
    >>> import qifldp as q
    >>> q.max_case_leakage(q.Channel([[0.75, 0.25], [0.25, 0.75]]))  # 0.75 / 0.5
    1.5
    """
    M = checked_matrix(C)
    v0 = _prior_vulnerability(M.shape[0], gain, prior, nonnegative=True)
    if v0 <= 0:
        msg = "prior g-vulnerability is 0, multiplicative max-case leakage is undefined"
        raise GainError(msg)
    return _max_case_vulnerability(M, gain, prior) / v0


@singledispatch
def asr(C: Any, **options: Any) -> float | sympy.Expr:
    """Attack success rate: Bayes-optimal one-try guess under a uniform prior.

    ASR(C) = V1[υ▷C] = ML(C) / |X|, written once over :func:`bayes_capacity`
    (every kind of channel; ``options`` are passed to it, e.g. ``simplify`` for
    a symbolic channel).

    Examples
    --------
    >>> import qifldp as q
    >>> q.asr(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
    0.75
    """
    return bayes_capacity(C, **options) / n_inputs(C)


@dataclass(frozen=True)
class Hyper:
    """A hyper-distribution [π▷C]: posteriors and their outer probabilities.

    Attributes
    ----------
    outer : numpy.ndarray, shape (m,)
        Probability of each posterior (sums to 1).
    posteriors : numpy.ndarray, shape (m, |X|)
        Distinct posterior distributions over the inputs, one per row.
    outputs : tuple
        For each posterior, the tuple of output labels that produce it.

    Examples
    --------
    >>> import qifldp as q
    >>> H = q.hyper(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
    >>> H.outer, H.outputs
    (array([0.5, 0.5]), ((0,), (1,)))
    """

    outer: np.ndarray
    posteriors: np.ndarray
    outputs: tuple

    def __repr__(self) -> str:
        head = f"Hyper({len(self.outer)} posteriors)"
        return f"{head}\nouter={self.outer}\nposteriors=\n{self.posteriors}"


@singledispatch
def hyper(C: Any, prior: Any = None) -> Hyper:
    """The hyper-distribution of a prior through a channel.

    Outputs with probability 0 are dropped; outputs giving the same posterior
    (joint columns proportional within ``qifldp.reduction.REDUCE_RTOL``) are merged.
    Explicit channels only (another kind raises UnsupportedKindError).

    Parameters
    ----------
    C : Channel
    prior : array_like, optional
        Defaults to uniform.

    Notes
    -----
    p(y) = Σ_x π_x C[x, y] and δ^y(x) = π_x C[x, y] / p(y) (the book, Def. 4.6).
    Every posterior vulnerability is Σ_y p(y) V(δ^y).

    Examples
    --------
    >>> import qifldp as q
    >>> H = q.hyper(q.Channel([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]), [0.5, 0.5])
    >>> H.outer
    array([0.5, 0.5])
    >>> H.posteriors
    array([[1., 0.],
           [0., 1.]])
    """
    C = as_channel(C)
    pi = as_prior(prior, C.n_inputs)
    red = reduce_columns(pi[:, None] * C.matrix)
    outer = red.matrix.sum(axis=0)
    posteriors = (red.matrix / outer).T
    outputs = tuple(tuple(C.outputs[j] for j in g) for g in red.groups)
    return Hyper(outer, posteriors, outputs)


#: The primitive measures, which every kind of channel implements under these names (its
#: ``measures`` module, registered by its ``register``); the derived measures are written
#: once over them.
PRIMITIVES: tuple[Any, ...] = (
    bayes_vulnerability,
    g_vulnerability,
    channel_prior_vulnerability,
    bayes_capacity,
    ldp_epsilon,
)
