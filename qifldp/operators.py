"""Operators of the QIF algebra: cascade, parallel composition, one-hot lifting, choices.

Composite protocols are built from these so that their channels are correct by
construction (Alvim et al., *The Science of Quantitative Information Flow*, ch. 8).
Each operator dispatches on the kind of its first channel (:mod:`qifldp.dispatch`):
the explicit implementation is here, :mod:`qifldp.symbolic` registers cascade,
parallel and one_hot, and a kind without an implementation gets an error that
says what to do.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import singledispatch
from typing import Any

import numpy as np

from .alignment import align_many, align_rows, is_default_labels
from .channel import Channel, as_channel, check_size, guard_size
from .dispatch import dispatch_on_first_channel
from .errors import ChannelError, InputTypeError, ParameterError
from .validation import check_int

__all__ = ["cascade", "parallel", "one_hot", "visible_choice", "hidden_choice"]


@singledispatch
def cascade(A: Any, B: Any) -> Any:
    """The cascade A·B: the outputs of A are the inputs of B (post-processing).

    Parameters
    ----------
    A : Channel, shape (|X|, |Y|)
    B : Channel, shape (|Y|, |Z|)

    Returns
    -------
    Channel, shape (|X|, |Z|)
        Inputs of A, outputs of B (a SymbolicChannel when A is symbolic).

    Raises
    ------
    ChannelError
        When A's number of outputs differs from B's number of inputs, or when
        both carry custom labels and A's output labels are not B's input labels.

    Notes
    -----
    (A·B)[x, z] = Σ_y A[x, y] B[y, z]. Post-processing never increases leakage:
    A ⊑ A·B for every B (the data-processing inequality).

    *Labels.* A's output y is fed to B's input labelled y: when A's outputs and
    B's inputs hold the same labels in another order, B's rows are permuted to
    match; when either side has the default labels 0..n-1, rows are matched by
    position (see :mod:`qifldp.alignment`).

    Examples
    --------
    >>> import qifldp as q
    >>> A = q.Channel([[1.0, 0.0], [0.0, 1.0]])
    >>> B = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    >>> q.cascade(A, B).matrix
    array([[0.75, 0.25],
           [0.25, 0.75]])
    >>> E = q.Channel([[1.0, 0.0], [0.0, 1.0]], outputs=("y", "n"))
    >>> G = q.Channel([[0.1, 0.9], [0.8, 0.2]], inputs=("n", "y"))
    >>> q.cascade(E, G).matrix  # E's output "y" feeds G's row "y"
    array([[0.8, 0.2],
           [0.1, 0.9]])
    """
    A = as_channel(A, "A")
    B = as_channel(B, "B")
    B = align_rows(A.outputs, B, "cascade(A, B)", "A's outputs", "B's inputs")
    if A.n_outputs != B.n_inputs:
        msg = (
            f"cascade(A, B) needs A's outputs to be B's inputs: A has {A.n_outputs} outputs, "
            f"B has {B.n_inputs} inputs"
        )
        raise ChannelError(msg)
    check_size(A.n_inputs, B.n_outputs, "cascade(A, B)")
    M = A.matrix @ B.matrix
    # Rows of a product of stochastic matrices sum to 1 up to rounding; renormalise.
    M /= M.sum(axis=1, keepdims=True)
    return Channel(M, A.inputs, B.outputs)


@singledispatch
def parallel(A: Any, B: Any) -> Any:
    """Parallel composition A ⊗ B: independent release of two secrets (Kronecker).

    Parameters
    ----------
    A, B : Channel, shapes (|X1|, |Y1|) and (|X2|, |Y2|)

    Returns
    -------
    Channel, shape (|X1||X2|, |Y1||Y2|)
        Inputs (x1, x2) and outputs (y1, y2), in lexicographic order (a
        SymbolicChannel when A is symbolic).

    Notes
    -----
    (A ⊗ B)[(x1, x2), (y1, y2)] = A[x1, y1] B[x2, y2]; epsilons add:
    ldp_epsilon(A ⊗ B) = ldp_epsilon(A) + ldp_epsilon(B).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.parallel(q.Channel([[1.0, 0.0], [0.5, 0.5]]), q.Channel([[1.0]]))
    >>> C.inputs, C.outputs
    (((0, 0), (1, 0)), ((0, 0), (1, 0)))
    """
    A = as_channel(A, "A")
    B = as_channel(B, "B")
    check_size(A.n_inputs * B.n_inputs, A.n_outputs * B.n_outputs, "parallel(A, B)")
    M = np.kron(A.matrix, B.matrix)
    inputs = tuple(itertools.product(A.inputs, B.inputs))
    outputs = tuple(itertools.product(A.outputs, B.outputs))
    return Channel(M, inputs, outputs)


@singledispatch
def one_hot(B: Any, k: int) -> Any:
    """B^{⊗k} restricted to one-hot inputs: each bit of a one-hot vector through B.

    Parameters
    ----------
    B : Channel, shape (2, m)
        Bit channel; row = input bit 0/1, columns = the symbols a position may
        report (for the usual bit channels m = 2 and the symbols are the output
        bits 0/1; PCKV-UE's positions report one of 1, -1, 0).
    k : int
        Length of the one-hot vector (the domain size), ``k >= 1``.

    Returns
    -------
    Channel, shape (k, m^k)
        Inputs 0..k-1 (input x is the vector e_x); outputs all length-k vectors
        over B's output labels, as tuples in lexicographic order.

    Raises
    ------
    ChannelError
        When B does not have exactly two rows.
    SizeError
        When k * m^k exceeds the explicit limit (use the symmetric representation).

    Notes
    -----
    C[x, y] = B[1, y_x] Π_{i ≠ x} B[0, y_i]. Cost O(k m^k).
    This is the channel of unary encoding (SUE, OUE) and of thresholding (THE).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.one_hot(q.Channel([[1.0, 0.0], [0.0, 1.0]]), 3)
    >>> [C.outputs[j] for j in C.matrix.argmax(axis=1)]
    [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    """
    B = as_channel(B, "B")
    if B.n_inputs != 2:
        msg = f"one_hot needs a bit channel B with two rows (input bit 0/1), got shape {B.shape}"
        raise ChannelError(msg)
    k = check_int("k", k, minimum=1)
    m = B.n_outputs
    guard_size(
        f"one_hot(B, {k})",
        k,
        k * math.log10(m),
        lambda: m**k,
        "the symmetric representation (qifldp.symmetric)",
    )
    b0, b1 = B.matrix[0], B.matrix[1]
    M = np.ones((k, 1))
    for i in range(k):
        factor = np.tile(b0, (k, 1))
        factor[i] = b1
        M = (M[:, :, None] * factor[:, None, :]).reshape(k, -1)
    M /= M.sum(axis=1, keepdims=True)
    outputs = tuple(itertools.product(B.outputs, repeat=k))
    return Channel(M, tuple(range(k)), outputs)


def _check_choice(
    channels: Sequence[Any], probs: Any, what: str
) -> tuple[list[Channel], np.ndarray, tuple]:
    if isinstance(channels, Channel) or not isinstance(channels, Sequence) or not channels:
        msg = "channels must be a non-empty sequence of Channels"
        raise InputTypeError(msg)
    chans = [as_channel(C, f"channels[{i}]") for i, C in enumerate(channels)]
    chans = align_many(chans, what)
    n = chans[0].n_inputs
    for i, C in enumerate(chans):
        if C.n_inputs != n:
            msg = (
                f"{what}: channels must share their inputs: channels[{i}] has {C.n_inputs} "
                f"inputs, channels[0] has {n}"
            )
            raise ChannelError(msg)
    if probs is None:
        p = np.full(len(chans), 1.0 / len(chans))
    else:
        p = np.array(probs, dtype=np.float64)
        if p.shape != (len(chans),):
            msg = f"probs must have one entry per channel ({len(chans)}), got shape {p.shape}"
            raise ParameterError(msg)
        if not np.all(np.isfinite(p)) or np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
            msg = f"probs must be a probability vector (non-negative, summing to 1), got {p}"
            raise ParameterError(msg)
    # the inputs of the result: the first custom labels (the others were aligned to them)
    inputs = next((C.inputs for C in chans if not is_default_labels(C.inputs)), chans[0].inputs)
    return chans, p, inputs


@dispatch_on_first_channel
def visible_choice(channels: Sequence[Any], probs: Any = None) -> Channel:
    """Pick channel i with probability probs[i], run it, and reveal which one ran.

    Parameters
    ----------
    channels : sequence of Channel
        Channels over the same inputs, matched by label: the rows of each are put
        in the order of the first custom-labelled channel (same labels in any
        order); a channel with the default labels 0..n-1 is matched by
        position, and different custom labels raise ChannelError.
    probs : array_like, optional
        Choice probabilities (default uniform).

    Returns
    -------
    Channel
        Inputs: the first custom labels among the channels (else 0..n-1).
        Outputs (i, y) for each channel i and each of its outputs y.

    Notes
    -----
    C[x, (i, y)] = probs[i] C_i[x, y]. Its Bayes capacity is Σ_i probs[i] ML(C_i)
    (the external choice ⊕ of the QIF book).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.visible_choice([q.Channel([[1.0, 0.0], [0.0, 1.0]]), q.Channel([[1.0], [1.0]])])
    >>> C.outputs
    ((0, 0), (0, 1), (1, 0))
    >>> q.bayes_capacity(C)
    1.5
    """
    chans, p, inputs = _check_choice(channels, probs, "visible_choice")
    check_size(chans[0].n_inputs, sum(C.n_outputs for C in chans), "visible_choice")
    M = np.hstack([pi * C.matrix for pi, C in zip(p, chans, strict=True)])
    outputs = tuple((i, y) for i, C in enumerate(chans) for y in C.outputs)
    return Channel(M, inputs, outputs)


@dispatch_on_first_channel
def hidden_choice(channels: Sequence[Any], probs: Any = None) -> Channel:
    """Pick channel i with probability probs[i], run it, reveal only its output.

    Outputs with the same label in several channels are indistinguishable, so their
    probabilities add up. Parameters (``channels``, ``probs``) and input labels as
    for :func:`visible_choice`; the result is a Channel whose outputs are the union
    of the channels' output labels, in order of first appearance.

    Notes
    -----
    C[x, y] = Σ_i probs[i] C_i[x, y] (the internal choice of the QIF book). It is a
    post-processing of the visible choice (forget the index), so visible ⊑ hidden.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.hidden_choice([q.Channel([[1.0, 0.0], [0.0, 1.0]]),
    ...                      q.Channel([[0.0, 1.0], [1.0, 0.0]])])
    >>> C.matrix
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """
    chans, p, inputs = _check_choice(channels, probs, "hidden_choice")
    index: dict = {}
    for C in chans:
        for y in C.outputs:
            index.setdefault(y, len(index))
    check_size(chans[0].n_inputs, len(index), "hidden_choice")
    M = np.zeros((chans[0].n_inputs, len(index)))
    for pi, C in zip(p, chans, strict=True):
        cols = np.fromiter((index[y] for y in C.outputs), dtype=np.intp, count=C.n_outputs)
        np.add.at(M.T, cols, pi * C.matrix.T)
    return Channel(M, inputs, tuple(index))
