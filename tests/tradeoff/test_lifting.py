"""Bitwise refinement lifts to one-hot channels (paper's Lemma 4): a sufficient test."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ChannelError, ParameterError
from qifldp.tradeoff import refines_binary
from qifldp.tradeoff.lifting import kron_power, refines_one_hot_bitwise

from ._helpers import random_2x2


@pytest.mark.slow
def test_bitwise_test_never_contradicts_the_lp():
    """Lemma 4 on random bit pairs, k = 2 and 3, against q.refines on the one-hot channels.

    Finding (recorded, not claimed by the paper beyond "sufficient but not necessary"):
    with this seed, some pairs whose bits do *not* refine still have refining one-hot
    channels; the bitwise test is then inconclusive (holds is None), never wrong.
    """
    rng = np.random.default_rng(3)
    bits = random_2x2(rng, 60, zero_prob=0.05)
    lifted_only = 0
    for i in range(0, len(bits), 2):
        B1, B2 = bits[i], bits[i + 1]
        r = refines_one_hot_bitwise(B1, B2)
        for k in (2, 3):
            C1, C2 = q.one_hot(B1, k), q.one_hot(B2, k)
            lp = q.refines(C1, C2)
            if r.holds:
                assert lp.holds
                # the lifted witness W^{⊗k} is a certificate (entrywise, float)
                W = r.witness(k)
                np.testing.assert_allclose(C1.matrix @ W, C2.matrix, atol=1e-12)
            else:
                assert r.holds is None
                lifted_only += lp.holds
            if k == 2:  # one_hot(B, 2) has two secrets: exact decision by trade-off curves
                assert lp.holds == refines_binary(C1, C2)
    assert lifted_only > 0  # the test is strictly weaker than the LP


def test_lifted_witness_is_exact_for_rational_bits():
    # bits with rational entries: W = B1^{-1} B2 is rational and W^{⊗k} an exact witness
    from fractions import Fraction as F

    B1 = [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    B2 = [[F(5, 8), F(3, 8)], [F(3, 8), F(5, 8)]]
    r = refines_one_hot_bitwise(B1, B2, k=3)
    assert r and r.bit_holds and r.bit_witness == [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    W = r.witness()
    assert W.shape == (8, 8)
    np.testing.assert_allclose(W.sum(axis=1), 1, atol=1e-15)
    C1 = q.one_hot(np.array(B1, dtype=float), 3)
    C2 = q.one_hot(np.array(B2, dtype=float), 3)
    np.testing.assert_allclose(C1.matrix @ W, C2.matrix, atol=1e-15)
    assert "holds" in repr(r) and "k=3" in repr(r)


def test_inconclusive_result():
    r = refines_one_hot_bitwise([[0.6, 0.4], [0.4, 0.6]], [[0.9, 0.1], [0.1, 0.9]], k=4)
    assert r.holds is None and not r and not r.bit_holds and r.bit_witness is None
    assert "inconclusive" in repr(r)
    with pytest.raises(ParameterError, match="no lifted witness"):
        r.witness()


def test_errors():
    with pytest.raises(ChannelError, match="2x2"):
        refines_one_hot_bitwise(np.eye(3), np.eye(2))
    r = refines_one_hot_bitwise(np.eye(2), [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ParameterError, match="k must be given"):
        r.witness()
    with pytest.raises(ValueError, match="k"):
        refines_one_hot_bitwise(np.eye(2), np.eye(2), k=0)


def test_kron_power():
    W = np.array([[0.5, 0.5], [0.25, 0.75]])
    np.testing.assert_allclose(kron_power(W, 3), np.kron(np.kron(W, W), W))
    with pytest.raises(q.SizeError):
        kron_power(W, 40)
