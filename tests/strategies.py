"""Hypothesis strategies for random channels, priors and gains."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qifldp as q


def _stochastic(raw: np.ndarray, sparsity: np.ndarray | None = None) -> np.ndarray:
    M = raw + 1e-3 if sparsity is None else np.where(sparsity, 0.0, raw + 1e-3)
    M[:, 0] += 1e-3  # never an all-zero row
    return M / M.sum(axis=1, keepdims=True)


@st.composite
def channels(draw, min_inputs=2, max_inputs=5, min_outputs=1, max_outputs=6, zeros=True):
    """Random row-stochastic channels, optionally with zero entries."""
    n = draw(st.integers(min_inputs, max_inputs))
    m = draw(st.integers(min_outputs, max_outputs))
    raw = draw(arrays(np.float64, (n, m), elements=st.floats(0, 1)))
    mask = draw(arrays(np.bool_, (n, m))) if zeros else None
    return q.Channel(_stochastic(raw, mask))


@st.composite
def priors(draw, n):
    raw = draw(arrays(np.float64, (n,), elements=st.floats(0, 1)))
    raw = raw + 1e-6
    return raw / raw.sum()


@st.composite
def gains(draw, n, min_actions=1, max_actions=5, nonnegative=True):
    w = draw(st.integers(min_actions, max_actions))
    low = 0.0 if nonnegative else -1.0
    return draw(arrays(np.float64, (w, n), elements=st.floats(low, 1)))
