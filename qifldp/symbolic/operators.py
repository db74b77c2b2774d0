"""Channel operators on symbolic channels: cascade, parallel composition, one-hot lifting."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from .lazy import sympy as _lazy_sympy

if TYPE_CHECKING:
    import sympy as sp
else:
    sp = _lazy_sympy

from ..alignment import align_rows
from ..errors import ChannelError, SizeError
from ..validation import check_int
from .channel import MAX_SYMBOLIC_ENTRIES, SymbolicChannel, as_symbolic

__all__ = ["cascade", "parallel", "one_hot"]


def _as_symbolic(C: Any, name: str) -> SymbolicChannel:
    return as_symbolic(C, name)


def _merge(*channels: SymbolicChannel) -> dict:
    doms: dict = {}
    for C in channels:
        for s, d in C.domains.items():
            doms[s] = sp.Intersection(doms[s], d) if s in doms else d
    return doms


def _assume(*channels: SymbolicChannel) -> tuple:
    return tuple(dict.fromkeys(r for C in channels for r in C.assume))


def cascade(A: Any, B: Any) -> SymbolicChannel:
    """The cascade A·B: the outputs of A are fed to B (post-processing).

    Parameters and labels as for :func:`qifldp.cascade`, with SymbolicChannel
    A (|X| x |Y|) and B (|Y| x |Z|); the result is a SymbolicChannel
    (|X| x |Z|) with the inputs of A, the outputs of B and the union of both
    parameter domains.

    Raises
    ------
    ChannelError
        When the shapes do not chain, or both sides carry custom labels and A's
        output labels differ from B's input labels (same labels in another
        order: B's rows are permuted to match, as in :func:`qifldp.cascade`).

    Notes
    -----
    (A·B)[x, z] = Σ_y A[x, y] B[y, z]; entries are left unsimplified. Cost
    O(|X| |Y| |Z|) sympy operations.

    Examples
    --------
    >>> from qifldp import symbolic
    >>> C = symbolic.cascade(symbolic.grr(2, "a"), symbolic.grr(2, "b"))
    >>> C.evaluate(a=0, b=5).matrix
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """
    A, B = _as_symbolic(A, "A"), _as_symbolic(B, "B")
    B = align_rows(A.outputs, B, "cascade(A, B)", "A's outputs", "B's inputs")
    if A.n_outputs != B.n_inputs:
        msg = f"cascade needs A's outputs to match B's inputs, got shapes {A.shape} and {B.shape}"
        raise ChannelError(msg)
    if A.n_inputs * B.n_outputs > MAX_SYMBOLIC_ENTRIES:
        msg = f"cascade would have {A.n_inputs * B.n_outputs} entries, over MAX_SYMBOLIC_ENTRIES"
        raise SizeError(msg)
    M = A.matrix * B.matrix
    return SymbolicChannel(
        M, A.inputs, B.outputs, domains=_merge(A, B), assume=_assume(A, B), validate=False
    )


def parallel(A: Any, B: Any) -> SymbolicChannel:
    """Independent release of two secrets: the Kronecker product A ⊗ B.

    Returns
    -------
    SymbolicChannel
        Inputs (x1, x2) and outputs (y1, y2), in product order.

    Notes
    -----
    (A ⊗ B)[(x1, x2), (y1, y2)] = A[x1, y1] B[x2, y2].

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.parallel(symbolic.sue_bit("e"), symbolic.oue_bit("e")).shape
    (4, 4)
    """
    A, B = _as_symbolic(A, "A"), _as_symbolic(B, "B")
    n, m = A.n_inputs * B.n_inputs, A.n_outputs * B.n_outputs
    if n * m > MAX_SYMBOLIC_ENTRIES:
        msg = f"parallel would have {n} x {m} entries, over MAX_SYMBOLIC_ENTRIES"
        raise SizeError(msg)
    rows = [
        [A[i, j] * B[u, v] for j in range(A.n_outputs) for v in range(B.n_outputs)]
        for i in range(A.n_inputs)
        for u in range(B.n_inputs)
    ]
    return SymbolicChannel(
        rows,
        tuple(itertools.product(A.inputs, B.inputs)),
        tuple(itertools.product(A.outputs, B.outputs)),
        domains=_merge(A, B),
        assume=_assume(A, B),
        validate=False,
    )


def one_hot(B: Any, k: int) -> SymbolicChannel:
    """B^{⊗k} restricted to one-hot inputs, for a 2x2 symbolic bit channel B.

    Parameters
    ----------
    B : SymbolicChannel, shape (2, 2)
        Row = input bit 0/1, column = output bit 0/1.
    k : int
        Vector length (the domain size), ``k >= 1``.

    Returns
    -------
    SymbolicChannel, shape (k, 2^k)
        Inputs 0..k-1, outputs all k-bit tuples in lexicographic order (the
        labels of :func:`qifldp.one_hot`).

    Notes
    -----
    C[x, y] = B[1, y_x] Π_{i ≠ x} B[0, y_i] (QIF paper, the construction before
    Lemma 4). Cost O(k 2^k).

    Examples
    --------
    >>> import sympy as sp
    >>> from qifldp import symbolic
    >>> p, q = sp.symbols("p q")
    >>> C = symbolic.one_hot(symbolic.SymbolicChannel([[1 - q, q], [1 - p, p]]), 2)
    >>> C.outputs
    ((0, 0), (0, 1), (1, 0), (1, 1))
    >>> C.matrix.row(0)
    Matrix([[(1 - p)*(1 - q), q*(1 - p), p*(1 - q), p*q]])
    """
    B = _as_symbolic(B, "B")
    if B.shape != (2, 2):
        msg = f"one_hot needs a 2x2 bit channel B, got shape {B.shape}"
        raise ChannelError(msg)
    k = check_int("k", k, minimum=1)
    if k > 40 or k * 2**k > MAX_SYMBOLIC_ENTRIES:  # k > 40: 2^k is not even formed
        size = f"{k} x 2^{k}" if k > 40 else f"{k} x {2**k} = {k * 2**k}"
        msg = (
            f"one_hot(B, {k}) would have {size} symbolic entries, more than "
            f"MAX_SYMBOLIC_ENTRIES = {MAX_SYMBOLIC_ENTRIES}; use qifldp.symmetric "
            "(qifldp.symmetric.unary_encoding) or the closed forms of qifldp.symbolic.formulas"
        )
        raise SizeError(msg)
    outputs = tuple(itertools.product((0, 1), repeat=k))
    rows = []
    for x in range(k):
        row = []
        for y in outputs:
            e = sp.Integer(1)
            for i, b in enumerate(y):
                e *= B[1 if i == x else 0, b]
            row.append(e)
        rows.append(row)
    return SymbolicChannel(
        rows, tuple(range(k)), outputs, domains=B.domains, assume=B.assume, validate=False
    )
