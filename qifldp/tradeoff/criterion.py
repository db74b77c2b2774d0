"""The exact refinement criterion on two secrets (the QIF paper's Lemma 1 (3)), from trade-offs.

Two channels on two secrets compare through their trade-off curves: A ⊑ B iff B's
curve lies above A's. For 2x2 channels this is a sign test on the one vertex of each
curve (:func:`refines_2x2`), with a witness (:func:`witness_2x2`); for two rows and
any outputs, :func:`refines_binary`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import singledispatch
from typing import Any

import numpy as np

from ..errors import (
    VerificationError,
)
from ..validation import check_optional_bool
from .curves import _curve_exact, _interp_exact
from .parse import _check_2x2, _check_two_rows, _exact_rows, _parse

__all__ = [
    "FAST_PATH_MARGIN",
    "refines_2x2",
    "refines_binary",
    "witness_2x2",
]

#: Float fast path of :func:`refines_2x2`: a sign computed in floating point is
#: trusted only when the quantity is farther than this from 0 (the rounding error
#: of the few operations involved is below ~1e-15); closer calls are exact.
FAST_PATH_MARGIN: float = 1e-12


def _oriented_point(rows: list[list[Fraction]]) -> tuple[Fraction, Fraction]:
    """(alpha, beta) with alpha + beta <= 1 (swap the output columns otherwise)."""
    a, b = rows[0][1], rows[1][0]
    if a + b > 1:
        a, b = 1 - a, 1 - b
    return a, b


def _criterion(aC: Fraction, bC: Fraction, aD: Fraction, bD: Fraction) -> bool:
    """Lemma 1 (3) cross-multiplied, for oriented points (alpha + beta <= 1)."""
    if aD + bD == 1:  # D leaks nothing: refined by every channel
        return True
    if aC + bC == 1:  # C leaks nothing, D leaks something
        return False
    return bC * (1 - aD) <= bD * (1 - aC) and aD * (1 - bC) >= aC * (1 - bD)


@singledispatch
def refines_2x2(A: Any, B: Any) -> bool:
    """Decide A ⊑ B for 2x2 channels exactly, by the trade-off criterion (Lemma 1 (3)).

    Parameters
    ----------
    A, B : Channel, array_like or sympy Matrix, shape (2, 2)
        Float entries are taken as the exact binary numbers they are (each row
        normalised exactly), so the verdict is exact for the channels given.

    Returns
    -------
    bool
        True iff B = A·W for a row-stochastic W (B is safer than A).

    Raises
    ------
    ChannelError
        A or B is not 2x2.
    InputTypeError
        A symbolic channel with free symbols.

    Notes
    -----
    Both channels are first put in the orientation alpha + beta <= 1 by swapping
    their output columns when needed (a relabelling, equivalent both ways): the
    paper's Lemma 1 (3) is only correct in that orientation. It then reads
    beta_A / (1 - alpha_A) <= beta_B / (1 - alpha_B) and
    (1 - beta_A) / alpha_A >= (1 - beta_B) / alpha_B, evaluated here
    cross-multiplied in exact rationals (no division by zero):
    beta_A (1 - alpha_B) <= beta_B (1 - alpha_A) and
    alpha_B (1 - beta_A) >= alpha_A (1 - beta_B), i.e. the point of B lies on or
    above the trade-off curve of A. A channel with alpha + beta = 1 has equal
    rows: it is refined by every channel and refines only such channels.
    Float input is first decided in floating point when every quantity involved
    (alpha + beta - 1 of each channel and both margins) is farther than
    :data:`FAST_PATH_MARGIN` from 0, far above the rounding error (~1e-15) of
    those few operations; otherwise in exact rationals. Cost O(1).

    Examples
    --------
    >>> refines_2x2([[0.8, 0.2], [0.2, 0.8]], [[0.7, 0.3], [0.3, 0.7]])
    True
    >>> refines_2x2([[0.7, 0.3], [0.3, 0.7]], [[0.8, 0.2], [0.2, 0.8]])
    False
    """
    pA, pB = _parse(A, "A"), _parse(B, "B")
    _check_2x2(pA, "A")
    _check_2x2(pB, "B")
    if pA.kind == "float" and pB.kind == "float":
        fast = _criterion_float(pA.floats, pB.floats)  # type: ignore[arg-type]
        if fast is not None:
            return fast
    aA, bA = _oriented_point(_exact_rows(pA, "A"))
    aB, bB = _oriented_point(_exact_rows(pB, "B"))
    return _criterion(aA, bA, aB, bB)


def _float_point(M: np.ndarray) -> tuple[float, float, float] | None:
    """Oriented (alpha, beta) and alpha + beta - 1 in floats, None when too close to call."""
    a = float(M[0, 1]) / (float(M[0, 0]) + float(M[0, 1]))
    b = float(M[1, 0]) / (float(M[1, 0]) + float(M[1, 1]))
    d = a + b - 1.0
    if abs(d) <= FAST_PATH_MARGIN:
        return None
    if d > 0:
        a, b, d = 1.0 - a, 1.0 - b, -d
    return a, b, d


def _criterion_float(MA: np.ndarray, MB: np.ndarray) -> bool | None:
    """Lemma 1 (3) in floats when every sign is certain, else None (decide exactly)."""
    pa, pb = _float_point(MA), _float_point(MB)
    if pa is None or pb is None:
        return None
    (aA, bA, _), (aB, bB, _) = pa, pb
    m1 = bB * (1.0 - aA) - bA * (1.0 - aB)
    m2 = aB * (1.0 - bA) - aA * (1.0 - bB)
    if m1 < -FAST_PATH_MARGIN or m2 < -FAST_PATH_MARGIN:
        return False
    if m1 > FAST_PATH_MARGIN and m2 > FAST_PATH_MARGIN:
        return True
    return None


@singledispatch
def witness_2x2(A: Any, B: Any, *, exact: bool | None = None) -> Any:
    """The refinement witness W (A·W = B, W row-stochastic) of 2x2 channels, or None.

    Parameters
    ----------
    A, B : Channel, array_like or sympy Matrix, shape (2, 2)
    exact : bool, optional
        True: W as a list of lists of Fractions with A·W = B exactly (for float
        input: for the exactly normalised rows). Default: exact iff both inputs
        are exact; otherwise a float numpy array.

    Returns
    -------
    numpy.ndarray, list of list of Fraction, or None
        None when A ⋢ B.

    Raises
    ------
    ChannelError
        A or B is not 2x2.
    VerificationError
        The computed W disagrees with :func:`refines_2x2` (never expected).

    Notes
    -----
    When A has distinct rows it is invertible (det = 1 - alpha - beta != 0) and
    W = A^{-1} B is the only candidate; its rows always sum to 1, so A ⊑ B iff
    W >= 0. When A's rows are equal, B must have equal rows and W has B's row
    twice. Exact rational arithmetic, O(1).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> A = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    >>> B = [[F(5, 8), F(3, 8)], [F(3, 8), F(5, 8)]]
    >>> witness_2x2(A, B)
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    >>> witness_2x2(B, A) is None
    True
    """
    pA, pB = _parse(A, "A"), _parse(B, "B")
    _check_2x2(pA, "A")
    _check_2x2(pB, "B")
    exact = check_optional_bool("exact", exact)
    if exact is None:
        exact = pA.kind == "exact" and pB.kind == "exact"
    a, b = _exact_rows(pA, "A"), _exact_rows(pB, "B")
    holds = _criterion(*_oriented_point(a), *_oriented_point(b))
    det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
    if det == 0:
        W = [list(b[0]), list(b[0])] if b[0] == b[1] else None
    else:
        inv = [[a[1][1] / det, -a[0][1] / det], [-a[1][0] / det, a[0][0] / det]]
        W = [[inv[i][0] * b[0][j] + inv[i][1] * b[1][j] for j in range(2)] for i in range(2)]
        if any(v < 0 for row in W for v in row):
            W = None
    if (W is not None) != holds:
        msg = f"2x2 witness and trade-off criterion disagree (criterion: {holds}); please report"
        raise VerificationError(msg)
    if W is None or exact:
        return W
    return np.array([[float(v) for v in row] for row in W])


@singledispatch
def refines_binary(A: Any, B: Any) -> bool:
    """Decide A ⊑ B exactly for channels on two secrets with any number of outputs.

    Parameters
    ----------
    A, B : Channel, array_like or sympy Matrix, two rows each
        Float entries are taken exactly (rows normalised exactly).

    Returns
    -------
    bool
        True iff B = A·W for a row-stochastic W.

    Raises
    ------
    ChannelError
        A or B does not have exactly two rows.

    Notes
    -----
    Blackwell's theorem for two hypotheses: A ⊑ B iff T_A <= T_B pointwise,
    where T = T(C[0], C[1]) is the (non-symmetrised) trade-off function. T_A is
    convex and T_B piecewise linear, so it suffices that every vertex of T_B lies
    on or above T_A. Exact rational arithmetic; cost O((m_A + m_B) log(m_A + m_B))
    for m_A, m_B outputs. On 2x2 channels this is :func:`refines_2x2`.

    References
    ----------
    D. Blackwell, *Equivalent comparisons of experiments*, Ann. Math. Stat. 24 (1953).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> M = [[F(2, 3), F(2, 15), F(1, 5)], [F(1, 3), F(1, 6), F(1, 2)]]
    >>> refines_binary(M, [[F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]])
    True
    """
    pA, pB = _parse(A, "A"), _parse(B, "B")
    _check_two_rows(pA, "A")
    _check_two_rows(pB, "B")
    a, b = _exact_rows(pA, "A"), _exact_rows(pB, "B")
    TA = _curve_exact(a[0], a[1])
    TB = _curve_exact(b[0], b[1])
    return all(_interp_exact(TA.alphas, TA.betas, x) <= y for x, y in TB)
