"""Shared helpers of the paper modules: exact numbers, library access, attackers."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from .. import symbolic
from ..errors import VerificationError
from ..refinement import refines


def _rational(x: Any, what: str) -> sp.Rational:
    """x as an exact sympy Rational, or VerificationError."""
    v = sp.sympify(x)
    if not v.is_Rational:
        v = sp.simplify(v)
    if not v.is_Rational:
        msg = f"{what} did not reduce to an exact rational number: {v}"
        raise VerificationError(msg)
    return v


def _exp_rational(eps: Any, what: str) -> sp.Rational:
    """e^eps as an exact Rational (for exact symbolic epsilons such as log(21))."""
    if eps == sp.oo:
        msg = f"{what} is infinite"
        raise VerificationError(msg)
    return _rational(sp.exp(eps), what)


def _show(x: Any) -> str:
    """An exact rational as 'p/q = 0.1234' (decimal only when the fraction is long)."""
    v = sp.Rational(x)
    if v.q == 1:
        return str(v.p)
    s = f"{v.p}/{v.q}"
    return f"{float(v):.6g}" if len(s) > 13 else f"{s} = {float(v):.4f}"


def _f(x: float, digits: int = 4) -> str:
    return f"{float(x):.{digits}f}"


def _eps_of(r: Any) -> sp.Expr:
    """The exact eps with e^eps = r."""
    return sp.log(sp.Rational(r))


# ------------------------------------------------------------------------------------------
# Library access: exact (symbolic) and float (LP) refinement verdicts
# ------------------------------------------------------------------------------------------
def _exact_refines(A: Any, B: Any):
    """Exact verdict on A ⊑ B for rational channels, certificate checked by the library."""
    return symbolic.refines(A, B)


def _float_refines(A: Any, B: Any):
    """Verdict on A ⊑ B for float channels: qifldp.refines (verified witness or gap)."""
    return refines(A, B, strict=True)


def _fractions(C: Any) -> list[list[Fraction]]:
    return symbolic.to_fractions(C)


def _gap_text(res: Any) -> str:
    return _show(sp.Rational(res.counterexample.gap.numerator, res.counterexample.gap.denominator))


def _attacker_accuracy(matrix: Any, guess: Any, k: int) -> Any:
    """Success of an attacker with guess distribution guess[y, x] under a uniform prior.

    ACC = (1/k) Σ_x Σ_y C[x, y] guess[y, x]; exact for sympy matrices.
    """
    if isinstance(matrix, sp.MatrixBase):
        return (matrix * sp.Matrix(guess)).trace() / k
    return float(np.trace(np.asarray(matrix) @ np.asarray(guess, dtype=float))) / k


def _guess(outputs: Sequence[Any], k: int, support: Callable[[Any], list[int]], exact: bool) -> Any:
    """Guess matrix: uniform over support(y), or over the whole domain when it is empty."""
    one = sp.Integer(1) if exact else 1.0
    rows = []
    for y in outputs:
        s = support(y)
        row = [0 * one] * k
        for x in s or range(k):
            row[x] = one / (len(s) or k)
        rows.append(row)
    return sp.Matrix(rows) if exact else np.array(rows, dtype=float)


def _ue_support(y: tuple[int, ...]) -> list[int]:
    return [i for i, b in enumerate(y) if b == 1]


def _lh_support(y: tuple[tuple[int, ...], int]) -> list[int]:
    h, z = y
    return [x for x, v in enumerate(h) if v == z]


def _same_secret(A: Any, B: Any) -> Any:
    """Two mechanisms run on the same secret: C[x, (y1, y2)] = A[x, y1] B[x, y2]."""
    if isinstance(A, sp.MatrixBase):
        return sp.Matrix(
            [
                [A[x, i] * B[x, j] for i in range(A.cols) for j in range(B.cols)]
                for x in range(A.rows)
            ]
        )
    A, B = np.asarray(A), np.asarray(B)
    return (A[:, :, None] * B[:, None, :]).reshape(A.shape[0], -1)


def _hamming_one(inputs: Sequence[tuple[int, ...]]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, j in itertools.combinations(range(len(inputs)), 2)
        if sum(a != b for a, b in zip(inputs[i], inputs[j], strict=True)) == 1
    ]
