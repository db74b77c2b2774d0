"""SymmetricChannel._from_bit_table: the subset channel of an explicit one-hot table α(y_x, |y|)."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ChannelError, InputTypeError
from qifldp.symmetric import SymmetricChannel


def _alpha(C: q.Channel) -> np.ndarray:
    """α[r, s] read off the explicit channel at input 0 (bit 0 of the output is r, s ones)."""
    k = C.n_inputs
    alpha = np.full((2, k + 1), np.nan)
    for col, y in enumerate(C.outputs):
        alpha[y[0], sum(y)] = C.matrix[0, col]
    return alpha


def _random_bit_channel(seed: int) -> q.Channel:
    rng = np.random.default_rng(seed)
    return q.Channel(rng.dirichlet(np.ones(2), size=2))


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("kind", ["sue", "oue", "the", "random"])
def test_expand_equals_the_explicit_channel(k, kind) -> None:
    # provenance: the explicit constructors (q.sue, q.oue, q.the; one_hot of a random 2x2 bit
    # channel), compared entrywise with the same labels; α is read at one input only, so the
    # other k - 1 rows are an independent check of the symmetry the table encodes
    C = {
        "sue": lambda: q.sue(k, 1.3),
        "oue": lambda: q.oue(k, 0.8),
        "the": lambda: q.the(k, 1.0, 0.7),
        "random": lambda: q.one_hot(_random_bit_channel(k), k),
    }[kind]()
    S = SymmetricChannel._from_bit_table(_alpha(C))
    E = S.expand()
    assert E.inputs == C.inputs and E.outputs == C.outputs
    assert np.max(np.abs(E.matrix - C.matrix)) <= 1e-15


def test_class_masses_and_zero_classes() -> None:
    # provenance: hand computation. OUE-like bits with q = 0 (bit x is 1 w.p. 1/2, others 0):
    # only outputs with |y| <= 1 occur, α[1, 1] = α[0, 0] = 1/2, so P_in(1) = 1/2 and
    # P_out(0) = 1/2; sizes 2 and 3 carry no mass and are dropped
    alpha = np.array([[0.5, 0.0, 0.0, np.nan], [np.nan, 0.5, 0.0, 0.0]])
    S = SymmetricChannel._from_bit_table(alpha)
    assert S.k == 3 and S.sizes.tolist() == [0, 1]
    p_in, p_out = S.class_masses()
    np.testing.assert_allclose(p_in, [0.0, 0.5], atol=1e-16)
    np.testing.assert_allclose(p_out, [0.5, 0.0], atol=1e-16)
    # ln(a_1 / b_1) is undefined (b_1 = 0): stored as 0 like the other constructors
    assert S.log_ratio.tolist() == [0.0, 0.0]


def test_bad_tables_are_rejected() -> None:
    with pytest.raises(ChannelError, match="shape"):
        SymmetricChannel._from_bit_table(np.ones((3, 4)))
    with pytest.raises(ChannelError, match="shape"):
        SymmetricChannel._from_bit_table(np.ones((2, 2)))  # k = 1
    with pytest.raises(ChannelError, match="non-negative"):
        SymmetricChannel._from_bit_table([[0.75, -0.25, np.nan], [np.nan, 0.25, 0.25]])
    with pytest.raises(ChannelError, match="finite"):
        SymmetricChannel._from_bit_table([[np.nan, 0.25, np.nan], [np.nan, 0.25, 0.25]])
    with pytest.raises(ChannelError, match="sum to 1"):
        SymmetricChannel._from_bit_table([[0.5, 0.5, np.nan], [np.nan, 0.5, 0.5]])
    with pytest.raises(InputTypeError):
        SymmetricChannel._from_bit_table([["a", "b", "c"], ["d", "e", "f"]])
