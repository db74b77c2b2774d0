"""Same-secret composition of symmetric channels: :class:`SymmetricComposition`.

Layer L4 (the symmetric kind): imports the layers below and :mod:`qifldp.symmetric`'s
channel and measures. The composition of permutation-invariant channels is
permutation-invariant, so the measures of a composition come from the law of the
privacy loss of one pair of secrets, at any k. :mod:`qifldp.symmetric.register`
registers these implementations on :func:`qifldp.compose`, :func:`qifldp.repeated`,
:func:`qifldp.composition_epsilon` and on the measures of a composition.

>>> import qifldp as q, qifldp.symmetric as sym
>>> q.ldp_epsilon(q.compose(sym.grr(5, 1.0), sym.oue(5, 0.5)))
1.5
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp

from .. import composition as _comp, measures as _m, tradeoff as _fdp
from ..channel import Channel, guard_size
from ..composition import CompositionEpsilon
from ..dispatch import to_explicit
from ..errors import ChannelError, InputTypeError, SizeError, UnsupportedKindError
from ..validation import check_bool, check_int
from .channel import SymmetricChannel
from .measures import pair_atoms

__all__ = [
    "SymmetricComposition",
    "compose_symmetric",
    "repeated_symmetric",
    "composition_epsilon_symmetric",
    "composition_bayes_capacity",
    "composition_ldp_epsilon",
    "composition_tradeoff_curve",
    "ATOM_MERGE_ATOL",
    "MAX_ATOMS",
    "REPEATED_GRR_MAX_RELEASES",
]

#: ``bayes_capacity`` of n releases of one symmetric GRR (``q.repeated(sym.grr(k, eps), n)``)
#: is computed for n up to this many: the counts of the outputs by their largest multiplicity
#: come from a float recursion in 1/j! (all terms positive, no cancellation), which stays
#: in range up to here (1/150! ~ 1.7e-263). Cost O(n^3 log n).
REPEATED_GRR_MAX_RELEASES: int = 150

#: Atoms of a symmetric composition whose privacy losses ln(P0/P1) differ by
#: less than this (absolute, in nats) are merged into one atom. Merging atoms of
#: equal loss leaves the trade-off curve and the privacy profile unchanged; the
#: losses are sums of a few exact log-ratios, so equal ones agree to ~1e-14.
ATOM_MERGE_ATOL: float = 1e-12

#: Largest number of (unmerged) atoms a symmetric composition may form in one step.
MAX_ATOMS: int = 10**7


def compose_symmetric(*channels: Any) -> Any:
    """:func:`qifldp.compose` when the first channel is symmetric.

    All symmetric with the same k: a :class:`SymmetricComposition`; mixed with
    explicit channels: the explicit composition of their expansions (small k).

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.compose(sym.grr(3, 1.0), sym.grr(3, 0.5))
    SymmetricComposition(k=3, 2 factors)
    """
    if len(channels) == 1 and isinstance(channels[0], (list, tuple)):
        channels = tuple(channels[0])
    if all(isinstance(C, SymmetricChannel) for C in channels):
        return SymmetricComposition(channels)
    return _comp.compose.registry[object](
        *(to_explicit(C, f"channels[{i}]") for i, C in enumerate(channels))
    )


def repeated_symmetric(C: Any, n: int, *, lumped: bool = True) -> SymmetricComposition:
    """:func:`qifldp.repeated` of a symmetric channel: a :class:`SymmetricComposition` of n copies.

    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.repeated(sym.grr(10, 1.0), 4)
    SymmetricComposition(k=10, 4 factors)
    """
    n = check_int("n", n, minimum=1)
    check_bool("lumped", lumped)
    return SymmetricComposition((C,) * n)


def composition_epsilon_symmetric(*channels: Any, neighbors: Any = None) -> CompositionEpsilon:
    """:func:`qifldp.composition_epsilon` when the first channel is symmetric.

    All symmetric (same k): every pair is worst for every factor (2-transitivity),
    so true = sequential = the sum of the epsilons; mixed: the explicit route.

    >>> import qifldp as q, qifldp.symmetric as sym
    >>> tuple(q.composition_epsilon(sym.grr(10**6, 1.0), sym.oue(10**6, 0.5)))
    (1.5, 1.5)
    """
    if not all(isinstance(C, SymmetricChannel) for C in channels):
        return _comp.composition_epsilon.registry[object](*channels, neighbors=neighbors)
    ks = {C.k for C in channels}
    if len(ks) > 1:
        msg = f"composition_epsilon needs symmetric channels over the same k, got {sorted(ks)}"
        raise ChannelError(msg)
    has_pair = neighbors is None or any(int(i) != int(j) for i, j in neighbors)
    s = float(sum(_m.ldp_epsilon(C) for C in channels)) if has_pair else 0.0
    return CompositionEpsilon(s, s)


class SymmetricComposition:
    """Same-secret composition of symmetric channels over one domain 0..k-1.

    The composition of permutation-invariant channels is permutation-invariant,
    so every pair of distinct secrets is as distinguishable as (0, 1): the
    privacy profile, the trade-off curve and the LDP epsilon come from the joint
    law of the privacy loss of that one pair, at any k (10^6 included). The
    Bayes capacity (and ASR) of n releases of one GRR is computed at any k too
    (n <= REPEATED_GRR_MAX_RELEASES); other Bayes capacities and refinement
    need the explicit channel (:meth:`expand`, small k).

    Parameters
    ----------
    factors : sequence of SymmetricChannel
        At least one, all with the same k.

    Attributes
    ----------
    factors : tuple of SymmetricChannel
    k : int

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> C = q.repeated(sym.grr(10**6, 1.0), 3)
    >>> C
    SymmetricComposition(k=1000000, 3 factors)
    >>> q.ldp_epsilon(C)
    3.0
    >>> round(q.bayes_capacity(C), 6)  # three reports of the same value, k = 10^6
    2.718282
    """

    __slots__ = ("factors", "k")

    def __init__(self, factors: Any) -> None:
        if isinstance(factors, (str, bytes)) or not hasattr(factors, "__iter__"):
            msg = f"factors must be a sequence of SymmetricChannels, got {type(factors).__name__}"
            raise InputTypeError(msg)
        factors = tuple(factors)
        if not factors or not all(isinstance(F, SymmetricChannel) for F in factors):
            msg = "SymmetricComposition needs at least one SymmetricChannel (qifldp.symmetric)"
            raise InputTypeError(msg)
        ks = {F.k for F in factors}
        if len(ks) > 1:
            msg = f"compose needs symmetric channels over the same k, got k = {sorted(ks)}"
            raise ChannelError(msg)
        self.factors = factors
        self.k = factors[0].k

    @property
    def n_inputs(self) -> int:
        """Number of inputs k."""
        return self.k

    def __repr__(self) -> str:
        return f"SymmetricComposition(k={self.k}, {len(self.factors)} factors)"

    def expand(self) -> Channel:
        """The explicit composed channel (small k only; size-guarded).

        >>> import qifldp as q, qifldp.symmetric as sym
        >>> q.repeated(sym.grr(3, 1.0), 2).expand().shape
        (3, 9)
        """
        guard_size(
            f"{self!r}.expand()",
            self.k,
            sum(F.log10_n_explicit_outputs(False) for F in self.factors),
            lambda: math.prod(F.n_explicit_outputs(False) for F in self.factors),
            "ldp_epsilon, privacy_profile or tradeoff_curve of the composition "
            "(no expansion needed)",
        )
        return _comp.compose(*(F.expand() for F in self.factors))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return np.asarray(self.expand().matrix, dtype=dtype)

    def loss_atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The law of the privacy loss of the pair (0, 1), merged by equal loss.

        Returns
        -------
        (loss, P0, P1) : numpy.ndarray
            Ascending losses ln(P0 / P1) (±inf where one side is 0) and the total
            probabilities of the outputs with that loss under secret 0 and secret 1.

        Notes
        -----
        Each factor's outputs are grouped into the atoms of
        :func:`qifldp.symmetric.pair_atoms` (membership of 0 and 1 in the output's
        subset), whose losses are ±log_ratio or 0 exactly. The factors are
        independent given the secret, so the composed law is the product of the
        atoms with losses added; atoms whose losses agree within
        :data:`ATOM_MERGE_ATOL` are merged after each factor (GRR released n
        times has 2n + 1 atoms).

        Examples
        --------
        >>> import math, qifldp as q, qifldp.symmetric as sym
        >>> loss, P0, P1 = q.repeated(sym.grr(3, math.log(2)), 2).loss_atoms()
        >>> (loss / math.log(2)).round(6).tolist()
        [-2.0, -1.0, 0.0, 1.0, 2.0]
        >>> P0.round(6).tolist()
        [0.0625, 0.125, 0.3125, 0.25, 0.25]
        """
        loss = np.zeros(1)
        P0 = np.ones(1)
        P1 = np.ones(1)
        for F in self.factors:
            f_loss, f0, f1 = _factor_atoms(F)
            n_new = loss.size * f_loss.size
            if n_new > MAX_ATOMS:
                msg = (
                    f"the privacy-loss law of {self!r} would need {n_new} atoms in one step, "
                    f"more than MAX_ATOMS = {MAX_ATOMS}"
                )
                raise SizeError(msg)
            with np.errstate(invalid="ignore"):
                new_loss = (loss[:, None] + f_loss[None, :]).reshape(-1)
            new0 = (P0[:, None] * f0[None, :]).reshape(-1)
            new1 = (P1[:, None] * f1[None, :]).reshape(-1)
            keep = (new0 > 0) | (new1 > 0)
            loss, P0, P1 = _merge(new_loss[keep], new0[keep], new1[keep])
        return loss, P0, P1


def _factor_atoms(F: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    P0, P1 = pair_atoms(F)
    r = np.asarray(F.log_ratio, dtype=float)
    n = r.size
    loss = np.concatenate([r, -r, np.zeros(n), np.zeros(n)])
    # where an entry a_s or b_s is 0 the loss is infinite on the x0-only / x1-only atoms
    loss = np.where((P0 > 0) & (P1 == 0), np.inf, loss)
    loss = np.where((P0 == 0) & (P1 > 0), -np.inf, loss)
    keep = (P0 > 0) | (P1 > 0)
    return _merge(loss[keep], P0[keep], P1[keep])


def _merge(loss: np.ndarray, P0: np.ndarray, P1: np.ndarray):
    order = np.argsort(loss, kind="stable")
    loss, P0, P1 = loss[order], P0[order], P1[order]
    if loss.size == 0:
        return loss, P0, P1
    fin = np.isfinite(loss)
    new_group = np.ones(loss.size, dtype=bool)
    d = np.diff(loss)
    with np.errstate(invalid="ignore"):
        same = (d <= ATOM_MERGE_ATOL) & fin[1:] & fin[:-1]
    same |= (loss[1:] == loss[:-1]) & ~fin[1:]
    new_group[1:] = ~same
    starts = np.flatnonzero(new_group)
    return loss[starts], np.add.reduceat(P0, starts), np.add.reduceat(P1, starts)


def _grr_factor(F: Any) -> tuple[float, float] | None:
    """(ln a, ln b) of a symmetric GRR (outputs the singletons; a = Pr[{x} | x], b =
    Pr[{y} | x] for y != x), or None for another symmetric channel."""
    if F.sizes.size != 1 or int(F.sizes[0]) != 1:
        return None
    return float(F.log_in[0]), float(F.log_out[0]) - math.log(F.k - 1)


def _log_capacity_repeated_grr(k: int, n: int, log_a: float, log_b: float) -> float:
    """ln ML of n releases of GRR over k values (a >= b per output, as in :func:`_grr_factor`).

    An output is a sequence (y_1, ..., y_n); C[x, y] = a^c b^(n - c) with c the number of
    releases equal to x, so max_x C[x, y] = a^m b^(n - m) with m the largest multiplicity
    in y. With N(m) the number of sequences whose largest multiplicity is m,
    ML = Σ_m N(m) a^m b^(n - m), and N(m) = n! Σ_d C(k, d) [t^n] H_{m,d}(t), where H_{m,d}
    is the generating function of d distinct letters each used 1..m times, m exactly at
    least once: H_{m,d} = E_m^d - E_{m-1}^d with E_m = Σ_{j=1}^m t^j / j!, recursed as two
    positive series (no subtraction).
    """
    D = min(n, k)
    log_fact = gammaln(np.arange(n + 1) + 1.0)
    inv_fact = np.exp(-log_fact)
    # ln C(k, d) as a sum of logs: exact to rounding at k = 10^6 (gammaln(k) is not)
    log_comb = np.cumsum(np.log(k - np.arange(D, dtype=float))) - log_fact[1 : D + 1]
    terms = []
    for m in range(1, n + 1):
        below = np.concatenate([[0.0], inv_fact[1:m]])  # Σ_{j=1}^{m-1} t^j / j!
        h0 = np.zeros(n + 1)  # [t^l] E_{m-1}^d
        h0[0] = 1.0
        h1 = np.zeros(n + 1)  # [t^l] (E_m^d - E_{m-1}^d)
        out = np.full(D, -np.inf)
        for i in range(D):
            n0 = np.convolve(h0, below)[: n + 1]
            n1 = np.convolve(h1, below)[: n + 1]
            n1[m:] += (h0[: n + 1 - m] + h1[: n + 1 - m]) * inv_fact[m]
            h0, h1 = n0, n1
            if h1[n] > 0:
                out[i] = math.log(h1[n])
        terms.append(log_fact[n] + log_comb + out + m * log_a + (n - m) * log_b)
    return float(logsumexp(np.concatenate(terms)))


# -- the measures of a composition (registered by qifldp.symmetric.register) -----------
def composition_bayes_capacity(C: SymmetricComposition) -> float:
    """ML of n releases of one symmetric GRR, at any k (see
    :func:`_log_capacity_repeated_grr`); other compositions: expand() (small k)."""
    F = C.factors[0]
    if len(C.factors) == 1:
        return float(_m.bayes_capacity(F))
    ab = _grr_factor(F)
    same = all(
        np.array_equal(G.sizes, F.sizes)
        and np.array_equal(G.log_in, F.log_in)
        and np.array_equal(G.log_out, F.log_out)
        for G in C.factors[1:]
    )
    if ab is None or not same or ab[0] < ab[1]:
        msg = (
            f"bayes_capacity of {C!r} is computed for n releases of one GRR "
            "(q.repeated(qifldp.symmetric.grr(k, eps), n)) only; use .expand() for the "
            "explicit channel (small k), or ldp_epsilon / privacy_profile / tradeoff_curve"
        )
        raise UnsupportedKindError(msg)
    n = len(C.factors)
    if n > REPEATED_GRR_MAX_RELEASES:
        msg = (
            f"bayes_capacity of {C!r}: {n} releases, more than "
            f"REPEATED_GRR_MAX_RELEASES = {REPEATED_GRR_MAX_RELEASES}"
        )
        raise SizeError(msg)
    return math.exp(_log_capacity_repeated_grr(C.k, n, ab[0], ab[1]))


def composition_ldp_epsilon(C: SymmetricComposition, neighbors: Any = None) -> float:
    """Sum of the factors' epsilons (every pair is worst for every factor)."""
    if neighbors is not None and not any(int(i) != int(j) for i, j in neighbors):
        return 0.0
    return float(sum(_m.ldp_epsilon(F) for F in C.factors))


def composition_tradeoff_curve(C: SymmetricComposition, x0: int = 0, x1: int = 1, **kwargs: Any):
    """T(C[x0], C[x1]) from the privacy-loss atoms (any x0 != x1 gives the same curve)."""
    x0 = check_int("x0", x0, minimum=0)
    x1 = check_int("x1", x1, minimum=0)
    if max(x0, x1) >= C.k:
        msg = f"x0 and x1 must be input indices in 0..{C.k - 1}, got {x0}, {x1}"
        raise ChannelError(msg)
    _, P0, P1 = C.loss_atoms()
    if x0 == x1:
        P1 = P0
    M = np.vstack([P0, P1])
    M = M / M.sum(axis=1, keepdims=True)
    return _fdp.tradeoff_curve(Channel(M), **kwargs)
