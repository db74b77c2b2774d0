"""Same-secret composition: several mechanisms run on one secret, and repeated release.

The QIF book's *parallel composition* of channels over the same secret
(Alvim et al., *The Science of Quantitative Information Flow*, Def. 8.1):
C[x, (y1, ..., yn)] = C1[x, y1] ... Cn[x, yn]. It is what a user releases when
it answers several LDP queries about the same value; :func:`qifldp.parallel` is
something else (independent secrets, Kronecker product).

>>> import qifldp as q
>>> C = q.compose(q.grr(3, 1.0), q.grr(3, 0.5))
>>> C.shape
(3, 9)
>>> true, sequential = q.composition_epsilon(q.grr(3, 1.0), q.grr(3, 0.5))
>>> round(true, 6), round(sequential, 6)
(1.5, 1.5)
"""

from __future__ import annotations

import itertools
import math
from functools import singledispatch
from typing import Any, NamedTuple

import numpy as np

from .channel import Channel, as_channel, check_size
from .dispatch import dispatch_on_first_channel, to_explicit
from .errors import ChannelError, InputTypeError, SizeError, UnsupportedKindError
from .validation import check_bool, check_int

__all__ = [
    "compose",
    "repeated",
    "composition_epsilon",
    "CompositionEpsilon",
    "SymmetricComposition",
    "compose_symmetric",
    "repeated_symmetric",
    "composition_epsilon_symmetric",
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


def _default_labels(C: Channel) -> bool:
    return C.inputs == tuple(range(C.n_inputs))


def _align(channels: list[Channel]) -> list[Channel]:
    """Put every channel's rows in the input order of the first labelled channel."""
    ref = next((C for C in channels if not _default_labels(C)), channels[0])
    n = ref.n_inputs
    out = []
    for i, C in enumerate(channels):
        if C.inputs == ref.inputs:
            out.append(C)
            continue
        if set(C.inputs) == set(ref.inputs):
            pos = {x: j for j, x in enumerate(C.inputs)}
            order = [pos[x] for x in ref.inputs]
            out.append(Channel(C.matrix[order], ref.inputs, C.outputs))
            continue
        if C.n_inputs == n and (_default_labels(C) or _default_labels(ref)):
            # default labels 0..n-1 carry no meaning: align by position
            out.append(C if C.inputs == ref.inputs else Channel(C.matrix, ref.inputs, C.outputs))
            continue
        only_c = [x for x in C.inputs if x not in set(ref.inputs)]
        only_r = [x for x in ref.inputs if x not in set(C.inputs)]
        msg = (
            f"compose needs channels over the same inputs: channel {i} has inputs "
            f"{only_c[:5]!r}{'...' if len(only_c) > 5 else ''} that the others lack, and lacks "
            f"{only_r[:5]!r}{'...' if len(only_r) > 5 else ''} (labels are matched by value; "
            "relabel with Channel.relabel to align them)"
        )
        raise ChannelError(msg)
    return out


def _explicit_factors(channels: Any, what: str) -> list[Channel]:
    """The factors as explicit channels over the same inputs, rows aligned by label.

    A factor of another kind after an explicit first one is expanded (size-guarded).
    """
    chans = [to_explicit(C, f"channels[{i}]") for i, C in enumerate(channels)]
    if len({C.n_inputs for C in chans}) > 1:
        msg = (
            f"{what} needs channels over the same inputs, got numbers of inputs "
            f"{[C.n_inputs for C in chans]}"
        )
        raise ChannelError(msg)
    return _align(chans)


def _log(M: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(M)


@dispatch_on_first_channel
def compose(*channels: Any) -> Any:
    """Same-secret (QIF "parallel") composition: C[x, (y1, ..., yn)] = Π_i C_i[x, y_i].

    Parameters
    ----------
    *channels : Channel or array_like, at least one
        Channels over the same inputs. Labelled inputs are matched by label (the
        same label set in any order: rows are permuted to the first labelled
        channel's order); channels with the default labels 0..n-1 are matched by
        position. Symmetric channels (:mod:`qifldp.symmetric`) are accepted: all
        symmetric with the same k gives a :class:`SymmetricComposition`; mixed
        with explicit channels they are expanded (small k only).

    Returns
    -------
    Channel or SymmetricComposition
        Inputs of the (first labelled) channel; outputs the tuples (y1, ..., yn)
        in lexicographic order of the factors' output indices.

    Raises
    ------
    ChannelError
        Different input sets (the message names the labels that do not match)
        or different numbers of inputs.
    SizeError
        When the composed channel would exceed :data:`qifldp.MAX_ENTRIES`
        entries (checked before allocating); use :func:`repeated` for one
        channel released n times, :func:`composition_epsilon` or
        :func:`qifldp.privacy_profile` on the symmetric channels.

    Notes
    -----
    The answers are independent given the secret, hence the product. The
    entries are computed as exp of the sum of logs (an entry below ~1e-308
    underflows to 0). Cost O(|X| Π_i |Y_i|).

    Examples
    --------
    >>> import qifldp as q
    >>> A = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> C = q.compose(A, A)
    >>> C.outputs
    ((0, 0), (0, 1), (1, 0), (1, 1))
    >>> C.matrix
    array([[0.5625, 0.1875, 0.1875, 0.0625],
           [0.0625, 0.1875, 0.1875, 0.5625]])
    """
    if not channels:
        msg = "compose needs at least one channel"
        raise InputTypeError(msg)
    if len(channels) == 1 and isinstance(channels[0], (list, tuple)) and channels[0]:
        if isinstance(channels[0][0], Channel):
            channels = tuple(channels[0])
    chans = _explicit_factors(channels, "compose")
    n = chans[0].n_inputs
    n_out = math.prod(C.n_outputs for C in chans)
    check_size(
        n,
        n_out,
        f"compose of {len(chans)} channels with {[C.n_outputs for C in chans]} outputs",
        "repeated(C, n) for one channel released n times (lumped), composition_epsilon, "
        "or privacy_profile of the symmetric channels",
    )
    M = np.array(chans[0].matrix)
    for C in chans[1:]:
        M = (M[:, :, None] * C.matrix[:, None, :]).reshape(n, -1)
    outs = tuple(itertools.product(*(C.outputs for C in chans)))
    return Channel(M, chans[0].inputs, outs)


@singledispatch
def repeated(C: Any, n: int, *, lumped: bool = True) -> Any:
    """The channel of n independent releases of C on the same secret.

    Parameters
    ----------
    C : Channel, array_like or SymmetricChannel
    n : int
        Number of releases, ``n >= 1``.
    lumped : bool
        True (default): one output per multiset of C's outputs (the order of
        the releases carries no information), probabilities by the multinomial
        law. False: the full :func:`compose` of n copies (ordered tuples).

    Returns
    -------
    Channel or SymmetricComposition
        Lumped outputs are sorted tuples of C's output labels (with repetition,
        ordered as C's outputs), e.g. ``(0, 0, 2)``.

    Raises
    ------
    SizeError
        Beyond :data:`qifldp.MAX_ENTRIES` entries (C(m + n - 1, n) multisets of
        m outputs, checked before allocating).

    Notes
    -----
    The n-fold composition gives every ordering of the same multiset the same
    column (the product only depends on the counts c_y), so summing those
    columns is an equivalence under refinement both ways (every vulnerability,
    capacity and ``ldp_epsilon`` is unchanged): C^n[x, c] = n! / Π_y c_y! ·
    Π_y C[x, y]^{c_y}, computed in log space. m^n ordered outputs become
    C(m + n - 1, n): GRR on k = 10 values released 5 times has 2002 outputs,
    not 100000. A symmetric channel gives a :class:`SymmetricComposition`.

    Examples
    --------
    >>> import qifldp as q
    >>> R = q.repeated(q.Channel([[0.75, 0.25], [0.25, 0.75]]), 2)
    >>> R.outputs
    ((0, 0), (0, 1), (1, 1))
    >>> R.matrix
    array([[0.5625, 0.375 , 0.0625],
           [0.0625, 0.375 , 0.5625]])
    """
    n = check_int("n", n, minimum=1)
    C = as_channel(C, "C")
    if not check_bool("lumped", lumped):
        return compose(*([C] * n))
    k, m = C.shape
    n_out = math.comb(m + n - 1, n)
    check_size(
        k,
        n_out,
        f"repeated(C, {n}) of a channel with {m} outputs",
        "composition_epsilon or privacy_profile of the symmetric channel (qifldp.symmetric)",
    )
    combos = np.array(list(itertools.combinations_with_replacement(range(m), n)), dtype=np.intp)
    counts = np.zeros((combos.shape[0], m), dtype=np.int64)
    rows = np.repeat(np.arange(combos.shape[0]), n)
    np.add.at(counts, (rows, combos.reshape(-1)), 1)
    lgamma = np.vectorize(math.lgamma, otypes=[float])
    log_multinom = math.lgamma(n + 1) - lgamma(counts + 1.0).sum(axis=1)
    M = C.matrix
    logM = np.where(M > 0, _log(np.where(M > 0, M, 1.0)), 0.0)
    L = counts @ logM.T  # (n_out, k)
    impossible = (counts > 0).astype(np.int64) @ (M == 0).T.astype(np.int64) > 0
    L = np.where(impossible, -np.inf, L + log_multinom[:, None])
    P = np.exp(L.T)
    P /= P.sum(axis=1, keepdims=True)  # rounding only: the multinomial law sums to 1
    labels = tuple(tuple(C.outputs[j] for j in row) for row in combos)
    return Channel(P, C.inputs, labels)


class CompositionEpsilon(NamedTuple):
    """The true LDP epsilon of a same-secret composition and the sequential bound.

    Attributes
    ----------
    true : float
        ``ldp_epsilon`` of the composed channel.
    sequential : float
        Σ_i ldp_epsilon(C_i), the sequential-composition theorem's bound.

    Examples
    --------
    >>> r = CompositionEpsilon(1.5, 2.0)
    >>> true, sequential = r
    >>> r.sequential - r.true
    0.5
    """

    true: float
    sequential: float


def _pair_loss(M: np.ndarray) -> np.ndarray:
    """D[x, x'] = max_y ln(M[x, y] / M[x', y]) over y with M[x, y] > 0 (inf if M[x', y] = 0)."""
    k = M.shape[0]
    L = _log(M)
    D = np.empty((k, k))
    pos = M > 0
    for x in range(k):
        with np.errstate(invalid="ignore"):
            diff = L[x][None, :] - L  # (k, m); inf where M[x', y] = 0 < M[x, y]
        diff = np.where(pos[x][None, :], diff, -np.inf)
        D[x] = diff.max(axis=1)
    return D


@dispatch_on_first_channel
def composition_epsilon(*channels: Any, neighbors: Any = None) -> CompositionEpsilon:
    """The true epsilon of a same-secret composition against the sequential sum.

    Parameters
    ----------
    *channels : Channel, array_like or SymmetricChannel
        Channels over the same inputs (aligned as in :func:`compose`).
    neighbors : iterable of (i, j), optional
        Unordered pairs of input indices that count (default: all pairs).

    Returns
    -------
    CompositionEpsilon
        ``(true, sequential)``: ``true`` = ldp_epsilon(compose(*channels)),
        computed without building the composition; ``sequential`` = the sum of
        the channels' epsilons. Always ``true <= sequential``.

    Notes
    -----
    For an ordered pair (x, x') the log-ratio of the composed column
    (y1, ..., yn) is Σ_i ln(C_i[x, y_i] / C_i[x', y_i]); the y_i vary
    independently, so its maximum over columns is Σ_i D_i[x, x'] with
    D_i[x, x'] = max_y ln(C_i[x, y] / C_i[x', y]) over the outputs with
    C_i[x, y] > 0. Hence true = max_{x, x'} Σ_i D_i[x, x'], at cost
    O(n k^2 m) instead of k Π m_i. It equals the sequential sum iff one pair is
    worst for every channel. Symmetric channels (every pair equivalent by
    2-transitivity) always give true = sequential: their composition is never
    cheaper than the sum.

    Examples
    --------
    Two binary channels that leak about different pairs of a 3-valued secret:

    >>> import numpy as np, qifldp as q
    >>> A = q.Channel([[0.75, 0.25], [0.25, 0.75], [0.5, 0.5]])
    >>> B = q.Channel([[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]])
    >>> r = q.composition_epsilon(A, B)
    >>> round(r.true, 4), round(r.sequential, 4)
    (1.7918, 2.1972)
    >>> bool(np.isclose(r.true, q.ldp_epsilon(q.compose(A, B))))
    True
    """
    from .measures import ldp_epsilon

    if not channels:
        msg = "composition_epsilon needs at least one channel"
        raise InputTypeError(msg)
    chans = _explicit_factors(channels, "composition_epsilon")
    k = chans[0].n_inputs
    total = np.zeros((k, k))
    for C in chans:
        total += _pair_loss(C.matrix)
    if neighbors is None:
        mask = ~np.eye(k, dtype=bool)
    else:
        from .measures import _check_neighbors

        pairs = _check_neighbors(neighbors, k)
        mask = np.zeros((k, k), dtype=bool)
        mask[pairs[:, 0], pairs[:, 1]] = True
        mask[pairs[:, 1], pairs[:, 0]] = True
        np.fill_diagonal(mask, False)
    true = float(total[mask].max()) if mask.any() else 0.0
    seq = float(sum(ldp_epsilon(C, neighbors) for C in chans))
    return CompositionEpsilon(max(true, 0.0), seq)


def compose_symmetric(*channels: Any) -> Any:
    """:func:`compose` when the first channel is symmetric (registered by qifldp.symmetric).

    All symmetric with the same k: a :class:`SymmetricComposition`; mixed with
    explicit channels: the explicit composition of their expansions (small k).

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.compose(sym.grr(3, 1.0), sym.grr(3, 0.5))
    SymmetricComposition(k=3, 2 factors)
    """
    from .symmetric import SymmetricChannel

    if len(channels) == 1 and isinstance(channels[0], (list, tuple)):
        channels = tuple(channels[0])
    if all(isinstance(C, SymmetricChannel) for C in channels):
        return SymmetricComposition(channels)
    return compose.registry[object](
        *(to_explicit(C, f"channels[{i}]") for i, C in enumerate(channels))
    )


def repeated_symmetric(C: Any, n: int, *, lumped: bool = True) -> SymmetricComposition:
    """:func:`repeated` of a symmetric channel: a :class:`SymmetricComposition` of n copies.

    >>> import qifldp as q, qifldp.symmetric as sym
    >>> q.repeated(sym.grr(10, 1.0), 4)
    SymmetricComposition(k=10, 4 factors)
    """
    n = check_int("n", n, minimum=1)
    check_bool("lumped", lumped)
    return SymmetricComposition((C,) * n)


def composition_epsilon_symmetric(*channels: Any, neighbors: Any = None) -> CompositionEpsilon:
    """:func:`composition_epsilon` when the first channel is symmetric.

    All symmetric (same k): every pair is worst for every factor (2-transitivity),
    so true = sequential = the sum of the epsilons; mixed: the explicit route.

    >>> import qifldp as q, qifldp.symmetric as sym
    >>> tuple(q.composition_epsilon(sym.grr(10**6, 1.0), sym.oue(10**6, 0.5)))
    (1.5, 1.5)
    """
    from .measures import ldp_epsilon
    from .symmetric import SymmetricChannel

    if not all(isinstance(C, SymmetricChannel) for C in channels):
        return composition_epsilon.registry[object](*channels, neighbors=neighbors)
    ks = {C.k for C in channels}
    if len(ks) > 1:
        msg = f"composition_epsilon needs symmetric channels over the same k, got {sorted(ks)}"
        raise ChannelError(msg)
    has_pair = neighbors is None or any(int(i) != int(j) for i, j in neighbors)
    s = float(sum(ldp_epsilon(C) for C in channels)) if has_pair else 0.0
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
        from .symmetric import SymmetricChannel

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
        from .channel import guard_size

        guard_size(
            f"{self!r}.expand()",
            self.k,
            sum(F._log10_n_explicit(False) for F in self.factors),
            lambda: math.prod(F._n_explicit(False) for F in self.factors),
            "ldp_epsilon, privacy_profile or tradeoff_curve of the composition "
            "(no expansion needed)",
        )
        return compose(*(F.expand() for F in self.factors))

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
    from .symmetric import pair_atoms

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
    from scipy.special import gammaln, logsumexp

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


def _register() -> None:
    from .dispatch import n_inputs
    from .measures import bayes_capacity, ldp_epsilon
    from .refinement.fdp import tradeoff_curve

    n_inputs.register(SymmetricComposition, lambda C: C.k)

    @bayes_capacity.register(SymmetricComposition)
    def _bayes_capacity(C: SymmetricComposition) -> float:
        """ML of n releases of one symmetric GRR, at any k (see
        :func:`_log_capacity_repeated_grr`); other compositions: expand() (small k)."""
        F = C.factors[0]
        if len(C.factors) == 1:
            return float(bayes_capacity(F))
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

    @ldp_epsilon.register(SymmetricComposition)
    def _ldp_epsilon(C: SymmetricComposition, neighbors: Any = None) -> float:
        """Sum of the factors' epsilons (every pair is worst for every factor)."""
        if neighbors is not None and not any(int(i) != int(j) for i, j in neighbors):
            return 0.0
        return float(sum(ldp_epsilon(F) for F in C.factors))

    @tradeoff_curve.register(SymmetricComposition)
    def _tradeoff_curve(C: SymmetricComposition, x0: int = 0, x1: int = 1, **kwargs: Any):
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
        return tradeoff_curve(Channel(M), **kwargs)


_register()
