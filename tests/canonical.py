"""Canonical test objects shared by every test module, each with exact known values.

Provenance of the expected values is given next to each object.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import qifldp as q

#: Identity channel on 3 secrets: leaks everything. ML = 3, eps = inf.
IDENTITY3 = q.Channel(np.eye(3))

#: No-interference channel (one output): leaks nothing. ML = 1, eps = 0.
NO_INTERFERENCE3 = q.Channel(np.ones((3, 1)))

#: Binary symmetric channel with crossover 1/4: ML = 3/4 + 3/4 = 3/2, eps = ln 3.
BSC_QUARTER = q.Channel([[0.75, 0.25], [0.25, 0.75]])

#: A hand-computed example, exact in quarters (values worked out by hand below).
#: Column maxima 1/2, 1/2, 1/2, 1/4, so ML = 7/4 and V1 under the uniform prior 7/12.
HAND = q.Channel(
    [
        [0.5, 0.5, 0.0, 0.0],
        [0.0, 0.5, 0.5, 0.0],
        [0.5, 0.0, 0.25, 0.25],
    ]
)
HAND_ML = Fraction(7, 4)
HAND_PRIOR = [0.25, 0.5, 0.25]
#: V1 under HAND_PRIOR: Σ_y max_x π_x C[x, y] = max(1/8, 0, 1/8) + max(1/8, 1/4, 0)
#:   + max(0, 1/4, 1/16) + max(0, 0, 1/16) = 1/8 + 1/4 + 1/4 + 1/16 = 11/16
HAND_V1_PRIOR = Fraction(11, 16)


def exact_bayes_capacity(rows: list[list[Fraction]]) -> Fraction:
    """Σ_y max_x C[x, y] in exact rationals (an independent re-computation)."""
    return sum((max(col) for col in zip(*rows, strict=True)), Fraction(0))
