"""GRR-type ⊑ any explicit channel, by GRR's closed-form inverse.

A symmetric channel with one class, of size 1 (GRR, L-GRR: columns {j}, a on the
diagonal and b off it), is the k x k matrix A = (a - b) I + b J with a + (k - 1) b = 1,
invertible for a != b: A^-1 = (I - b J) / (a - b). So B = A·W has exactly one solution,
W = A^-1 B = (B - b 1 c^T) / (a - b) with c the column sums of B, and A ⊑ B iff it is
non-negative: min_x B[x, y] >= b c_y for every output y of B. Its rows sum to 1 whenever
B's do. That decides the refinement at the cost of reading B once (O(k n)), where the
explicit LP would search a k x n witness; the witness is then verified like any other
(:func:`qifldp.refinement._certify.band_certificate`: clipped, polished on its support,
A·W = B within the rounding band). Only "holds" is returned: a negative entry of W
refutes the pair, but the refutation's gain is left to the routes that build one.

>>> import qifldp as q, qifldp.symmetric as sym
>>> found = grr_inverse_witness(sym.grr(3, 1.0), q.protocol("hr", 3, 1.0).channel())
>>> found.W.shape, bool(found.W.min() >= 0)
((3, 4), True)
>>> grr_inverse_witness(sym.grr(4, 1.0), q.protocol("hr", 4, 1.0).channel()) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..channel import MAX_ENTRIES, Channel, as_channel
from ..errors import InputTypeError, ParameterError, SizeError
from ..refinement._certify import band_certificate
from .channel import SymmetricChannel

__all__ = ["GRR_INVERSE_MAX_WORK", "GrrInverse", "grr_inverse_witness", "is_grr_type"]


#: The most multiply-adds verifying A·W may cost (k^2 n for B's n outputs: 2e10 is a few
#: seconds of one core's matrix product); A's k x k matrix is at most
#: :data:`qifldp.channel.MAX_ENTRIES` entries.
GRR_INVERSE_MAX_WORK: float = 2e10


@dataclass(frozen=True)
class GrrInverse:
    """A ⊑ B proved by A's inverse: the witness and its account.

    Attributes
    ----------
    W : numpy.ndarray, shape (k, n)
        Row-stochastic, non-negative; A·W = B within the rounding band.
    residual : float
        max |A·W - B|.
    certified_by : str
        One line: the closed form and the band.
    """

    W: np.ndarray
    residual: float
    certified_by: str


def is_grr_type(A: SymmetricChannel) -> bool:
    """True when A's only class has size 1 (GRR, L-GRR): A = (a - b) I + b J.

    >>> import qifldp.symmetric as sym
    >>> is_grr_type(sym.grr(5, 1.0)), is_grr_type(sym.sue(5, 1.0))
    (True, False)
    """
    return A.sizes.tolist() == [1]


def grr_inverse_witness(A: SymmetricChannel, B: Channel) -> GrrInverse | None:
    """A ⊑ B by the witness W = A^-1 B, verified, or None when it is not one.

    Parameters
    ----------
    A : SymmetricChannel
        GRR-type (:func:`is_grr_type`) on k inputs, a != b.
    B : Channel or array_like
        Explicit, k rows (an array is checked as a channel).

    Returns
    -------
    GrrInverse or None
        None when W = A^-1 B has an entry below zero by more than the rounding band can
        explain (then A ⋢ B: W is the only solution of A·W = B), or when the witness
        does not pass the band test.

    Raises
    ------
    InputTypeError
        A not a SymmetricChannel; B neither a Channel nor a 2-D array.
    ChannelError
        B's array not a channel (NaN, a negative entry, a row not summing to 1).
    ParameterError
        A not GRR-type, a = b, or B over another number of inputs.
    SizeError
        Verifying A·W would cost more than :data:`GRR_INVERSE_MAX_WORK` multiply-adds, or
        A's matrix would hold more than :data:`qifldp.channel.MAX_ENTRIES` entries.

    Examples
    --------
    GRR at eps = 2 refines GRR at eps = 1 (the inverse of one composed with the other):

    >>> import qifldp.symmetric as sym
    >>> found = grr_inverse_witness(sym.grr(3, 2.0), sym.grr(3, 1.0).expand())
    >>> bool(found.residual < 1e-15)
    True
    """
    if not isinstance(A, SymmetricChannel):
        msg = f"A must be a GRR-type SymmetricChannel, got {type(A).__name__}"
        raise InputTypeError(msg)
    if not is_grr_type(A):
        msg = "A must be a GRR-type symmetric channel (one class, of size 1)"
        raise ParameterError(msg)
    M = as_channel(B, "B").matrix  # a channel: finite, non-negative rows summing to 1
    k = A.k
    if M.ndim != 2 or M.shape[0] != k:
        msg = f"B must have k = {k} rows, got shape {M.shape}"
        raise ParameterError(msg)
    n = M.shape[1]
    if k * k * n > GRR_INVERSE_MAX_WORK or k * k > MAX_ENTRIES:
        msg = (
            f"verifying W = A^-1 B would cost {k} x {k} x {n} = {k * k * n:.3g} multiply-adds "
            f"(GRR_INVERSE_MAX_WORK = {GRR_INVERSE_MAX_WORK:.3g}) on A's {k} x {k} matrix "
            f"(MAX_ENTRIES = {MAX_ENTRIES:.0e}); a smaller k, or qifldp.refines"
        )
        raise SizeError(msg)
    E = A.expand()
    a, b = float(E.matrix[0, 0]), float(E.matrix[0, 1])
    if not a > b:
        msg = f"A must have a > b (an invertible GRR-type channel), got a = {a!r}, b = {b!r}"
        raise ParameterError(msg)
    c = M.sum(axis=0)
    W = (M - b * c[None, :]) / (a - b)
    # what the rounding of the two products and the difference can explain per entry
    slack = 8 * (k + 2) * 2.0**-53 * (M + b * c[None, :]) / (a - b)
    if float((W + slack).min()) < 0:
        return None
    outcome = band_certificate(E.matrix, M, np.maximum(W, 0.0))
    if outcome.W is None:
        return None
    text = (
        f"GRR-type A is invertible: W = A^-1 B = (B - b 1 c^T) / (a - b) >= 0 "
        f"(a = {a:.6g}, b = {b:.6g}), {outcome.reason}"
    )
    return GrrInverse(outcome.W, outcome.residual, text)
