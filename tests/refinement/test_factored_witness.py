"""A witness too large for a matrix is held factored (W = E_A · R · S_B) and re-checked as such."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ParameterError
from qifldp.refinement import _prep
from qifldp.refinement.witness import MAX_DENSE_WITNESS, FactoredWitness


def _pair(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A with repeated (proportional) columns and zero columns; B = A·W for a random W."""
    rng = np.random.default_rng(seed)
    base = rng.random((3, 4))
    A = np.concatenate([base, base[:, :2] * 0.5, np.zeros((3, 1))], axis=1)
    A /= A.sum(axis=1, keepdims=True)
    G = rng.random((A.shape[1], 3))
    G[:, 2] = G[:, 1]  # two equal columns in B
    G /= G.sum(axis=1, keepdims=True)
    return A, A @ G


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("which", ["refines", "max_case_refines"])
def test_factored_witness_equals_the_matrix_it_stands_for(monkeypatch, seed, which):
    A, B = _pair(seed)
    dense = getattr(q, which)(A, B)
    assert dense.holds and isinstance(dense.witness, np.ndarray)
    monkeypatch.setattr(_prep, "MAX_DENSE_WITNESS", 0)
    held = getattr(q, which)(A, B)
    W = held.witness
    assert held.holds and isinstance(W, FactoredWitness)
    M = W.toarray()
    # Same matrix as the dense route built, and every operation agrees with it.
    np.testing.assert_allclose(M, dense.witness, atol=1e-12)
    np.testing.assert_allclose(A @ W, A @ M, atol=1e-15)
    np.testing.assert_allclose(W.sum(axis=1), M.sum(axis=1), atol=1e-15)
    assert W.min() == M.min()
    # The certificate: A·W = B within the stated residual, W >= 0 (and stochastic).
    assert np.abs(A @ M - B).max() <= held.tolerances["residual"]
    assert M.min() >= -held.tolerances["entry"]
    if which == "refines":
        assert np.abs(M.sum(axis=1) - 1).max() <= held.tolerances["row_sum"]
    assert held.residual == pytest.approx(float(np.abs(A @ M - B).max()), abs=1e-15)


def test_olh_against_itself_has_a_32768_square_witness_without_allocating_it():
    A = q.olh(4, 2.0)  # 4 x 32768: the witness matrix would take 8 GiB
    r = q.refines(A, q.olh(4, 2.0))
    W = r.witness
    assert r.holds and isinstance(W, FactoredWitness) and W.shape == (32768, 32768)
    M = np.asarray(A.matrix)
    assert np.abs(M @ W - M).max() <= 1e-15
    assert np.abs(W.sum(axis=1) - 1).max() <= 1e-9 and W.min() >= 0.0
    assert "held factored" in r.explain()
    with pytest.raises(ParameterError, match=r"32768 x 32768 .*MAX_DENSE_WITNESS"):
        np.asarray(W)
    assert 32768 * 32768 > MAX_DENSE_WITNESS


def test_factored_witness_refuses_what_it_does_not_offer():
    W = FactoredWitness(np.eye(1), np.array([0]), np.array([0]), np.ones(1), None)
    with pytest.raises(ParameterError, match="axis=1"):
        W.sum(axis=0)
    with pytest.raises(ParameterError, match="A has shape"):
        np.ones((2, 3)) @ W
