"""The random refinement pairs of the benchmarks, and the re-check of every answer."""

from __future__ import annotations

from typing import Any

import numpy as np

import qifldp as q


def random_pair(n: int, m: int, p: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A (n x m) with rows from Dirichlet(1) and B = A·R, R (m x p) with rows from Dirichlet(1)."""
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.ones(m), size=n)
    B = A @ rng.dirichlet(np.ones(p), size=m)
    return A, B


def check_certificate(A: Any, B: Any, r: Any) -> None:
    """The witness's tolerances, or the counterexample's gap, recomputed from the channels."""
    A = np.asarray(A.matrix if isinstance(A, q.Channel) else A)
    B = np.asarray(B.matrix if isinstance(B, q.Channel) else B)
    if r.holds:
        W = r.witness
        assert W.min() >= -1e-9 and np.abs(W.sum(axis=1) - 1).max() <= 1e-9
        assert np.abs(A @ W - B).max() <= 1e-7
    else:
        ce = r.counterexample
        assert q.g_vulnerability(B, ce.gain, ce.prior) - q.g_vulnerability(A, ce.gain, ce.prior) > 0
