"""Random small pairs near the refinement boundary: a verdict re-checked exactly, never an error.

B = A·W computed in floats, then perturbed entrywise by a relative 1e-15 … 1e-9 and
renormalised (2 … 8 rows, 2 … 4 columns): pairs on both sides of the boundary and
within the rounding band of it, in both orders and both relations, with
``strict=False``. Every certificate is re-checked here in exact rationals
(tests/refinement/_helpers.assert_certificate), and every verdict is compared with the
exact decision on the stored floats by the test's own rational simplex
(tests/refinement/_helpers.compare_with_exact). 1,000 pairs under --run-campaign, a
seeded sample of them in the fast suite.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import qifldp as q

from ._helpers import assert_certificate, compare_with_exact


def near_boundary_pair(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    A = rng.dirichlet(np.ones(int(rng.integers(2, 5))), size=n)
    W = rng.dirichlet(np.ones(int(rng.integers(2, 5))), size=A.shape[1])
    B = A @ W
    rel = 10.0 ** rng.uniform(-15, -9)
    B = np.abs(B * (1.0 + rel * rng.standard_normal(B.shape)))
    return A, B / B.sum(axis=1, keepdims=True)


#: What the verdicts were found to be against the exact decision (printed by the campaign).
TALLY: dict[str, int] = {}


def _check(seed: int) -> None:
    A, B = near_boundary_pair(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for X, Y in ((A, B), (B, A)):
            for rowsum, decide in ((True, q.refines), (False, q.max_case_refines)):
                r = decide(X, Y, strict=False)
                assert_certificate(X, Y, r, rowsum=rowsum)
                found = compare_with_exact(X, Y, r, rowsum)
                TALLY[found] = TALLY.get(found, 0) + 1


@pytest.mark.parametrize("seed", range(0, 1000, 50))
def test_random_near_boundary_pairs_sample(seed):
    _check(seed)


@pytest.mark.campaign
@pytest.mark.parametrize("block", range(10))
def test_random_near_boundary_pairs_1000(block):
    for seed in range(block * 100, (block + 1) * 100):
        _check(seed)
    print(f"block {block}: verdicts against the exact decision so far: {TALLY}")
