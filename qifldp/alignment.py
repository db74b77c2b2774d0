"""Align channels by their labels before combining or comparing them.

Two channels that share an alphabet (A's inputs and B's inputs for refinement
and the choices, A's outputs and B's inputs for a cascade) are matched **by
label**, not by position, whenever the labels say something:

1. the two label tuples are equal: nothing to do;
2. they hold the same labels in another order: B's rows are permuted into the
   order of the reference labels (a relabelled copy of B, never a change to B);
3. they hold different labels: if one side has the default labels
   ``0..n-1`` (a channel built without labels carries no names), the rows are
   matched by position; otherwise a :class:`~qifldp.errors.ChannelError` names
   the call, the two arguments and the labels found on one side only.

Rule 3 makes mixing a default-labelled channel (an array, or a constructor
output such as ``q.grr(3, 1.0)`` whose inputs are 0..k-1) with a custom-labelled
one positional, as before labels were checked. Rule 2 applies to integer labels
too: ``Channel(M, inputs=(2, 1, 0))`` is aligned to ``q.grr(3, eps)`` row by row.

Only explicit :class:`~qifldp.channel.Channel` objects and symbolic channels
(``qifldp.symbolic.SymbolicChannel``) are aligned; anything else (an array, a
symmetric channel, whose inputs are always 0..k-1) is returned unchanged and
validated by the caller.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .channel import Channel, LabelledRows
from .dispatch import permute_inputs
from .errors import ChannelError

__all__ = ["align_inputs", "align_rows", "align_many", "is_default_labels"]

#: At most this many labels of each side are shown in a mismatch message.
_SHOW = 6


def is_default_labels(labels: tuple) -> bool:
    """True when ``labels`` are the default labels ``(0, 1, ..., n-1)``.

    >>> is_default_labels((0, 1, 2)), is_default_labels(("a", "b"))
    (True, False)
    """
    return labels == tuple(range(len(labels)))


def _labelled(C: Any) -> bool:
    return isinstance(C, LabelledRows)


def _show(labels: list) -> str:
    shown = ", ".join(repr(x) for x in labels[:_SHOW])
    return f"[{shown}{', ...' if len(labels) > _SHOW else ''}] ({len(labels)})"


def _sorted(labels: set) -> list:
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=repr)


@permute_inputs.register(Channel)
def _permute_rows(C: Channel, order: np.ndarray, labels: tuple) -> Channel:
    """C with row ``order[i]`` moved to position i and input labels ``labels``."""
    return Channel(C.matrix[order], labels, C.outputs)


def align_rows(
    reference: tuple, B: Any, what: str, ref_name: str, b_name: str = "B's inputs"
) -> Any:
    """B with its rows in the order of ``reference`` (see the module docstring).

    Parameters
    ----------
    reference : tuple
        The labels B's rows must follow (A's inputs, or A's outputs for a cascade).
    B : Channel or SymbolicChannel
        Returned unchanged unless its input labels are a permutation of
        ``reference``; other objects are returned unchanged.
    what : str
        The call, for the error message (e.g. ``"refines(A, B)"``).
    ref_name, b_name : str
        What the two label tuples are, for the message (``"A's inputs"``).

    Returns
    -------
    Channel or SymbolicChannel
        B, or a copy with permuted rows whose ``inputs`` are ``reference``.

    Raises
    ------
    ChannelError
        Different label sets, neither of them the default ``0..n-1``.

    Examples
    --------
    >>> import qifldp as q
    >>> B = q.Channel([[0.0, 1.0], [1.0, 0.0]], inputs=("b", "a"))
    >>> align_rows(("a", "b"), B, "refines(A, B)", "A's inputs").matrix
    array([[1., 0.],
           [0., 1.]])
    """
    if not _labelled(B):
        return B
    labels = tuple(B.inputs)
    reference = tuple(reference)
    if labels == reference:
        return B
    if len(labels) == len(reference) and set(labels) == set(reference):
        pos = {x: i for i, x in enumerate(labels)}
        order = np.fromiter((pos[x] for x in reference), dtype=np.intp, count=len(reference))
        return permute_inputs(B, order, reference)
    if is_default_labels(labels) or is_default_labels(reference):
        return B  # a default-labelled side carries no names: match by position
    only_ref = _sorted(set(reference) - set(labels))
    only_b = _sorted(set(labels) - set(reference))
    msg = (
        f"{what}: {ref_name} and {b_name} must carry the same labels (rows are matched "
        f"by label); only in {ref_name}: {_show(only_ref)}, only in {b_name}: "
        f"{_show(only_b)}. Relabel one side (Channel.relabel) to match them, or give "
        "one of them the default labels 0..n-1 to match by position"
    )
    raise ChannelError(msg)


def align_inputs(A: Any, B: Any, what: str = "refines") -> tuple[Any, Any]:
    """(A, B) with B's rows in the order of A's input labels, for comparing A and B.

    A is returned unchanged, so every result expressed over inputs (a prior, a
    counterexample's gain) is in A's input order, and a witness W of A ⊑ B
    satisfies ``A.matrix @ W == B'.matrix`` for the aligned B'.

    Examples
    --------
    >>> import qifldp as q
    >>> A = q.Channel([[0.75, 0.25], [0.25, 0.75]], inputs=("a", "b"))
    >>> B = q.Channel([[0.25, 0.75], [0.75, 0.25]], inputs=("b", "a"))
    >>> align_inputs(A, B)[1] == A
    True
    """
    if not _labelled(A):
        return A, B
    return A, align_rows(A.inputs, B, f"{what}(A, B)", "A's inputs")


def align_many(channels: list, what: str) -> list:
    """Align a list of channels over shared inputs (the choices).

    The reference is the first channel whose inputs are not the default labels
    (or the first channel); every other channel's rows are put in its order.

    Examples
    --------
    >>> import qifldp as q
    >>> A = q.Channel([[1.0, 0.0], [0.0, 1.0]], inputs=("x", "y"))
    >>> B = q.Channel([[0.0, 1.0], [1.0, 0.0]], inputs=("y", "x"))
    >>> [C.inputs for C in align_many([A, B], "hidden_choice")]
    [('x', 'y'), ('x', 'y')]
    """
    ref_i = next((i for i, C in enumerate(channels) if not is_default_labels(tuple(C.inputs))), 0)
    ref = tuple(channels[ref_i].inputs)
    out = []
    for i, C in enumerate(channels):
        if i == ref_i:
            out.append(C)
            continue
        out.append(
            align_rows(ref, C, what, f"channels[{ref_i}]'s inputs", f"channels[{i}]'s inputs")
        )
    return out
