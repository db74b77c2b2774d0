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
from .errors import ChannelError, InputTypeError
from .measures import _check_neighbors, ldp_epsilon
from .validation import check_bool, check_int

__all__ = [
    "compose",
    "repeated",
    "composition_epsilon",
    "CompositionEpsilon",
]

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
        symmetric with the same k gives a
        :class:`~qifldp.symmetric.composition.SymmetricComposition`; mixed with
        explicit channels they are expanded (small k only).

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
    not 100000. A symmetric channel gives a
    :class:`~qifldp.symmetric.composition.SymmetricComposition`.

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
        ``(true, sequential)``: ``true`` = ``ldp_epsilon(compose(*channels))``,
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
        pairs = _check_neighbors(neighbors, k)
        mask = np.zeros((k, k), dtype=bool)
        mask[pairs[:, 0], pairs[:, 1]] = True
        mask[pairs[:, 1], pairs[:, 0]] = True
        np.fill_diagonal(mask, False)
    true = float(total[mask].max()) if mask.any() else 0.0
    seq = float(sum(ldp_epsilon(C, neighbors) for C in chans))
    return CompositionEpsilon(max(true, 0.0), seq)
