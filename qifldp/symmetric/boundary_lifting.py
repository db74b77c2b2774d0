"""Bitwise lifting at the bit channels' refinement boundary: one-hot pairs whose 2x2
witness has an entry that rounding puts just below 0 (OUE ⊑ THE at Lemma 10's threshold).

At a boundary of the 2x2 order (THE at theta*(eps), QIF paper Lemma 10) the bit witness
w = b_A⁻¹ b_B has an exact zero: OUE_bit ⊑ THE_bit(theta*) by w = [[1 − x, x], [0, 1]]
(every reported 1 kept, a 0 raised to 1 with probability x). The bit channels read off
the stored class masses (:func:`~qifldp.symmetric.lifting.bit_channel`) carry a relative
error that grows with k, so that zero comes out as −1e-14 … −1e-12 and the 2x2
decision refutes them: no lifted witness, and only the orbit LP (O(k²) variables) was
left, over its time limit from k = 200 and refused for size from k = 2000.

Here the boundary entry is set to 0 and the other parameter of w is solved from the bit-0
row, the row every class mass of a one-hot channel takes k − 1 factors from (the bit-1
row enters once): one_hot(b_A·w) then matches B to the rounding of b_B itself, and
the witness w^{⊗k} is checked class by class exactly as the bitwise lifting's
(:func:`~qifldp.symmetric.lifting.lifted_witness`): O(k), any k.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..refinement.result import RefinementResult
from .lifting import (
    lifted_result,
    lifted_witness,
    unverified_bit_channels,
    verified_bit_channels,
)

__all__ = ["BOUNDARY_ENTRY_TOL", "boundary_bit_witness", "boundary_lifting_result"]

#: The boundary route is tried when the least entry of b_A⁻¹ b_B (the bit channels read
#: off the class masses) lies in [−BOUNDARY_ENTRY_TOL, BOUNDARY_ENTRY_TOL]. It only
#: selects pairs: the class-by-class check decides.
BOUNDARY_ENTRY_TOL: float = 1e-8


def boundary_bit_witness(bA: np.ndarray, bB: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A 2x2 bit witness at the boundary: (w, the entry of b_A⁻¹ b_B set to 0), or None.

    ``bA``, ``bB``: bit channels [[1 − q, q], [1 − p, p]] (rows: the input's bit 0/1).
    Writing w = [[1 − x, x], [y, 1 − y]], the least entry of b_A⁻¹ b_B (within
    :data:`BOUNDARY_ENTRY_TOL` of 0) fixes x or y at 0 or 1, and the other is solved from
    the bit-0 row, (b_A·w)[0, 1] = q_B. None when there is no such entry, b_A is
    singular, or the solved parameter leaves [0, 1] by more than the tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> bA = np.array([[0.75, 0.25], [0.5, 0.5]])  # OUE's bit channel at e^eps = 3
    >>> bB = bA @ np.array([[0.9, 0.1], [0.0, 1.0]])
    >>> w, zero = boundary_bit_witness(bA, bB)
    >>> np.round(w, 12).tolist(), abs(zero) < 1e-15
    ([[0.9, 0.1], [0.0, 1.0]], True)
    """
    det = bA[0, 0] * bA[1, 1] - bA[0, 1] * bA[1, 0]
    if not abs(det) > 0:
        return None
    W0 = np.linalg.solve(bA, bB)
    i, j = np.unravel_index(int(np.argmin(W0)), W0.shape)
    least = float(W0[i, j])
    if not abs(least) <= BOUNDARY_ENTRY_TOL:
        return None
    q0, q1, qB = float(bA[0, 0]), float(bA[0, 1]), float(bB[0, 1])  # 1 − q_A, q_A, q_B
    # the bit-0 row of b_A·w: (1 − q_A) x + q_A (1 − y) = q_B
    if i == 1:  # y = w[1, 0] = 0 or 1 − y = w[1, 1] = 0
        y = 0.0 if j == 0 else 1.0
        if not q0 > 0:
            return None
        x = (qB - q1 * (1.0 - y)) / q0
    else:  # x = w[0, 1] = 0 or 1 − x = w[0, 0] = 0
        x = 0.0 if j == 1 else 1.0
        if not q1 > 0:
            return None
        y = 1.0 - (qB - q0 * x) / q1
    if not (-BOUNDARY_ENTRY_TOL <= x <= 1 + BOUNDARY_ENTRY_TOL):
        return None
    if not (-BOUNDARY_ENTRY_TOL <= y <= 1 + BOUNDARY_ENTRY_TOL):
        return None
    x, y = min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)
    return np.array([[1.0 - x, x], [y, 1.0 - y]]), least


def boundary_lifting_result(
    A, B, check: Callable[[str], Any] | None = None, t0: float | None = None
) -> RefinementResult | None:
    """A ⊑ B for one-hot symmetric channels at their bit channels' boundary, or None.

    The witness W = w^{⊗k} of :func:`boundary_bit_witness` on the bit channels of A and
    B (verified against every class, :func:`~qifldp.symmetric.lifting.bit_channel`),
    accepted when B matches one_hot(b_A·w) class by class within the bitwise lifting's
    rounding band (:func:`~qifldp.symmetric.lifting.lifted_witness`). ``check(stage)``
    (the caller's time budget) runs between the O(k) steps; ``t0`` the decision's start
    (for ``.time``). None: not one-hot, not at a boundary, or B outside the band (the
    other routes decide).

    A verdict *up to rounding* (``up_to_rounding`` True, ``about`` "rounding"): the pair
    lies on the boundary of the 2x2 order, so the stored floats may refine or fail by a
    gap below their own rounding (the exact orbit LP finds oue(20, eps) ⋢ the(20, eps,
    theta*(eps)) on the stored floats at eps = 4, 6, 8 by gaps of 1e-20 … 2e-18, and
    refinement at eps = 0.1 … 3 and 12); ``holds`` is the verdict on the channels
    within that band, as for the orbit LP's witnesses within the inputs' rounding.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> theta = 0.8995568723631193  # Lemma 10's threshold at eps = 2 (the_oue_threshold)
    >>> r = boundary_lifting_result(sym.oue(1000, 2.0), sym.the(1000, 2.0, theta))
    >>> r.holds, r.up_to_rounding, r.method, r.residual < 1e-10
    (True, True, 'symmetric: bitwise lifting at the boundary', True)
    """
    t0 = time.perf_counter() if t0 is None else t0
    pair0 = unverified_bit_channels(A, B)
    if pair0 is None or boundary_bit_witness(pair0[0][0], pair0[1][0]) is None:
        return None  # O(1): not near a boundary of the 2x2 order
    pair = verified_bit_channels(A, B, check, "bitwise lifting at the boundary")
    if pair is None:
        return None
    cand = boundary_bit_witness(pair[0][0], pair[1][0])
    if cand is None:
        return None
    w, least = cand
    lifted = lifted_witness(A, B, pair[0], pair[1], w, check)
    if lifted is None:
        return None
    Wb, err = lifted
    return lifted_result(
        lifted,
        "symmetric: bitwise lifting at the boundary",
        (
            "up to rounding: bitwise lifting (QIF paper, Lemma 4) at the bit channels' "
            f"refinement boundary: b_A⁻¹ b_B of the bit channels read off the class masses "
            f"has the entry {least:.2e} (0 up to their rounding); with it set to 0 and the "
            f"bit-0 row matched, w = {np.round(Wb.w, 12).tolist()}, and A·w^{{⊗k}} matches B "
            f"class by class within a relative {err:.2e} (the rounding of the product forms: "
            "A's and B's class masses against their bit channels, and of b_A·w); at the "
            "boundary the stored floats themselves may refine or fail by a gap below float "
            "resolution (not decided: the exact orbit LP has O(k^2) variables)"
        ),
        t0,
        {"boundary_entry": least},
        up_to_rounding=True,
        about="rounding",
    )
