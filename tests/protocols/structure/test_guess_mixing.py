"""Guess mixing: HE with t coefficients into GRR-type channels at any k, the implicit
witness rebuilt entry by entry on the explicit channels and checked."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.protocols.structure.channel_free import channel_free_decision
from qifldp.protocols.structure.guess_mixing import guess_mixing_witness


def _guess_matrix(P) -> np.ndarray:
    """W1: each output ((j_1, s_1), ..., (j_t, s_t)) of P's explicit channel answered by a
    value uniform in {x < K : (-1)^|j_c & x| = s_c for every c}, or in 0..K-1 if empty."""
    K = P.params["K"]
    outs = P._outputs()
    W1 = np.zeros((len(outs), K))
    xs = np.arange(K)
    for i, out in enumerate(outs):
        ok = np.ones(K, dtype=bool)
        for j, s in out:
            signs = 1 - 2 * (np.array([bin(j & x).count("1") for x in xs]) % 2)
            ok &= signs == s
        W1[i] = ok / ok.sum() if ok.any() else 1.0 / K
    return W1


@pytest.mark.parametrize(
    ("k", "eps", "t", "eps_b"), [(5, 2.0, 2, 0.5), (6, 1.0, 2, 0.3), (3, 3.0, 3, 1.0)]
)
def test_the_implicit_witness_rebuilt_on_the_explicit_channels(k, eps, t, eps_b):
    P = q.protocol("he_multi", k, eps, t=t)
    B = q.symmetric.grr(k, eps_b)
    found = guess_mixing_witness(P, B)
    assert found is not None
    v = {key: float(x) for key, x in found.values.items()}
    K = P.params["K"]
    A = P.channel().matrix
    W1 = _guess_matrix(P)
    # the guess law on the K values, exactly GRR-type, read off the explicit product
    full = q.protocol("he_multi", K, eps, t=t)
    G = full.channel().matrix @ _guess_matrix(full)
    off = G[~np.eye(K, dtype=bool)]
    assert np.allclose(np.diag(G), v["a"], rtol=1e-12) and np.allclose(off, v["b"], rtol=1e-12)
    spread = np.zeros((K, k))
    spread[:k, :k] = np.eye(k)
    spread[k:, :] = 1.0 / k
    W2 = v["lambda_0"] * np.eye(k) + v["mu_0"]  # GRR: one class, column j singles out j
    W = W1 @ spread @ W2
    assert W.min() >= 0 and np.allclose(W.sum(axis=1), 1.0, atol=1e-14)
    assert np.abs(A @ W - B.expand().matrix).max() < 1e-14


def test_it_proves_the_last_pair_of_the_atlas():
    # HE-t ⊑ L-GRR at k = 10^4, eps = 4: not a power of two (no affine group on the
    # values), and posterior mixing's nonnegativity fails by a factor 23
    A = q.protocol("he_multi", 10**4, 4.0)
    B = q.protocol("l_grr", 10**4, 8.0, 4.0)
    found = channel_free_decision(A, B)
    assert found is not None and found.holds and found.route == "guess mixing"
    K, a, b = A.guess_law()
    assert K == 16384 and a + (K - 1) * b == 1 and a / b > 29


def test_no_witness_past_the_guess():
    # B leaking more than the guess can give: grr at eps 8 from he_multi at eps 1
    P = q.protocol("he_multi", 12, 1.0)
    assert guess_mixing_witness(P, q.symmetric.grr(12, 8.0)) is None
    assert guess_mixing_witness(P, q.symmetric.sue(12, 0.1)) is None  # not GRR-type
    assert not q.refines(P.merged_channel(), q.symmetric.grr(12, 8.0).expand()).holds


def test_values_are_exact():
    found = guess_mixing_witness(q.protocol("he_multi", 100, 2.0), q.symmetric.grr(100, 1.0))
    assert all(isinstance(x, Fraction) for x in found.values.values())
    assert found.values["d"] + 99 * found.values["o"] == 1
