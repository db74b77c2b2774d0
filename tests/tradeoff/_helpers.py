"""Shared helpers of the f-DP/refinement-order tests: random channels and independent checks."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st


@st.composite
def rational_rows(draw, n_rows=2, min_outputs=1, max_outputs=5, max_weight=6):
    """A random channel with exact rational entries (integer weights / row sum), zeros allowed."""
    m = draw(st.integers(min_outputs, max_outputs))
    rows = []
    for _ in range(n_rows):
        w = draw(st.lists(st.integers(0, max_weight), min_size=m, max_size=m))
        if sum(w) == 0:
            w[draw(st.integers(0, m - 1))] = 1
        s = sum(w)
        rows.append([Fraction(v, s) for v in w])
    return rows


def random_2x2(rng: np.random.Generator, n: int, zero_prob: float = 0.1) -> np.ndarray:
    """n random 2x2 channels (shape (n, 2, 2)); some entries exactly 0 or rows equal."""
    a = rng.random((n, 2))
    a[rng.random((n, 2)) < zero_prob] = 0.0
    a[rng.random((n, 2)) < zero_prob / 2] = 1.0
    M = np.empty((n, 2, 2))
    M[:, 0, 0], M[:, 0, 1] = 1 - a[:, 0], a[:, 0]
    M[:, 1, 0], M[:, 1, 1] = a[:, 1], 1 - a[:, 1]
    eq = rng.random(n) < zero_prob / 2  # some channels leak nothing
    M[eq, 1] = M[eq, 0]
    return M


def exact_2x2(M) -> list[list[Fraction]]:
    """The exact rationals of a float 2x2 channel [[1-a, a], [b, 1-b]] (a, b taken exactly)."""
    a, b = Fraction(float(M[0][1])), Fraction(float(M[1][0]))
    return [[1 - a, a], [b, 1 - b]]


def inverse_witness(A, B):
    """W = A^{-1} B in exact rationals (Cramer's rule), or None when A is singular.

    Independent of the library: A ⊑ B for 2x2 A with distinct rows iff this W >= 0.
    """
    (a, b), (c, d) = A
    det = a * d - b * c
    if det == 0:
        return None
    inv = [[d / det, -b / det], [-c / det, a / det]]
    return [[inv[i][0] * B[0][j] + inv[i][1] * B[1][j] for j in range(2)] for i in range(2)]


def subset_points(P, Q):
    """All deterministic tests S (reject x0 on S): points (P(S), 1 - Q(S)), exact."""
    m = len(P)
    pts = []
    for mask in itertools.product((0, 1), repeat=m):
        pts.append(
            (
                sum((p for p, s in zip(P, mask, strict=True) if s), Fraction(0)),
                1 - sum((q for q, s in zip(Q, mask, strict=True) if s), Fraction(0)),
            )
        )
    return pts


def matmul_exact(A, W):
    """Exact product of two matrices given as lists of lists of Fractions."""
    return [
        [sum((A[i][k] * W[k][j] for k in range(len(W))), Fraction(0)) for j in range(len(W[0]))]
        for i in range(len(A))
    ]
