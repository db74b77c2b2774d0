"""Posterior mixing by blocks (qifldp.symmetric.block_mixing): the Gram form against the
explicit channel's A Aᵀ, and the implicit witness built entry by entry and checked."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.protocols.structure.channel_free import channel_free_decision
from qifldp.sweeps.atlas import ATLAS_ORACLES
from qifldp.symmetric.block_mixing import block_mixing_from_gram


def _explicit_witness(P, S):
    """W by the module's formula, from the explicit channel (rows over their sums)."""
    A = P.channel().matrix
    A = A / A.sum(axis=1, keepdims=True)
    Bm = S.expand(lumped=True).matrix
    Bm = Bm / Bm.sum(axis=1, keepdims=True)
    k = A.shape[0]
    per = P.params["b"] - 1
    block = np.arange(k) // per
    groups = np.unique(block)
    n = np.array([np.sum(block == g) for g in groups])
    M = A @ A.T
    alpha = M[0, per] if k > per else None  # two blocks
    same = M[0, 1]
    beta = M[0, 0] - same
    D = same - alpha
    j_of = np.argmax(Bm, axis=0)
    at, off = Bm[j_of[0], 0], Bm[(j_of[0] + 1) % k, 0]
    mu = (at - off) / beta
    nu = -mu * D / (n * D + beta)
    theta = -(mu + nu * n) / k
    c = np.stack([A[block == g].sum(axis=0) for g in groups])
    W = np.empty((A.shape[1], Bm.shape[1]))
    for col, j in enumerate(j_of):
        g = block[j]
        kappa = off - mu * alpha - nu[g] * n[g] * alpha - (theta * n).sum() * alpha + mu * beta / k
        W[:, col] = mu * A[j] + nu[g] * c[g] + theta @ c + kappa
    return A, W, Bm, (alpha, D, beta)


@pytest.mark.parametrize(("k", "eps", "b_eps"), [(20, 2.0, 0.5), (40, 2.0, 0.5), (100, 1.0, 0.5)])
def test_the_witness_by_blocks_is_a_witness_on_the_explicit_channels(k, eps, b_eps):
    P = q.protocol("hr_block", k, eps)
    S = q.protocol("l_grr", k, 2 * b_eps, b_eps).symmetric()
    form = P.block_gram_form()
    A, W, Bm, (alpha, D, beta) = _explicit_witness(P, S)
    assert len(form.sizes) >= 2  # a block term: the plain Gram form does not apply
    assert P.gram_form() is None
    for exact, seen in ((form.alpha, alpha), (form.block, D), (form.beta, beta)):
        assert float(exact) == pytest.approx(seen, rel=1e-12)
    res = block_mixing_from_gram(form, S)
    assert res is not None and res.holds and res.exact and res.witness is None
    assert np.abs(A @ W - Bm).max() < 1e-13
    assert np.abs(W.sum(axis=1) - 1).max() < 1e-12
    # the certified smallest entry is a lower bound of W's
    assert W.min() >= float(res.details["smallest_entry"]) - 1e-15 >= -1e-15
    assert q.refines(P.channel(), S.expand(lumped=True)).holds  # the explicit LP agrees


def test_no_witness_when_some_entry_would_be_negative():
    # at k = 1024, eps = 2 the combinations reach a negative entry: no verdict (the
    # explicit LP proves this pair with another witness)
    P = ATLAS_ORACLES["hr_block"][0](1024, 2.0)
    S = ATLAS_ORACLES["l_grr"][0](1024, 2.0).symmetric()
    assert block_mixing_from_gram(P.block_gram_form(), S) is None
    assert block_mixing_from_gram(P.block_gram_form(), q.symmetric.oue(1024, 2.0)) is None


@pytest.mark.parametrize("eps", [1.0, 2.0])
def test_hr_with_blocks_into_l_grr_at_k_10_4(eps):
    P = ATLAS_ORACLES["hr_block"][0](10**4, eps)
    L = ATLAS_ORACLES["l_grr"][0](10**4, eps)
    found = channel_free_decision(P, L)
    assert found is not None and found.holds and found.route == "posterior mixing"
    assert "by blocks" in found.certified_by
