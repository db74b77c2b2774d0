"""refines on random pairs: witnesses and counterexamples re-checked here, QIF properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import qifldp as q
from qifldp.refinement._driver import _pseudo_inverse
from tests.strategies import channels

from ._helpers import assert_counterexample, assert_witness, random_channel


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(2, 2, 2), (3, 5, 4), (4, 6, 3), (5, 3, 7)])
def test_random_refining_pairs_hold_with_verified_witness(seed, shape):
    # B = A·R by construction, so A ⊑ B (definition); the witness is re-checked entrywise.
    n, m, p = shape
    rng = np.random.default_rng(seed)
    A = random_channel(rng, n, m, alpha=0.5)
    R = random_channel(rng, m, p, alpha=0.5)
    B = A @ R
    r = q.refines(A, B)
    assert_witness(A, B, r)


@pytest.mark.parametrize("seed", range(3))
def test_random_refining_pairs_entropic_engine(seed):
    rng = np.random.default_rng(100 + seed)
    A = random_channel(rng, 8, 100)
    B = A @ random_channel(rng, 100, 40)
    r = q.refines(A, B, method="entropic")
    assert r.method == "entropic"
    assert_witness(A, B, r)
    # method="auto" may take the least-norm shortcut first; the verdict and checks are the same
    s = q.refines(A, B)
    assert s.method in ("min-norm", "entropic")
    assert_witness(A, B, s)


def test_min_norm_shortcut_on_an_interior_pair():
    # B = A·R with R dense and many more outputs in A: W = 1 b̄ᵀ + A⁺(B − 1 b̄ᵀ) is >= 0
    rng = np.random.default_rng(9)
    A = random_channel(rng, 4, 200)
    B = A @ random_channel(rng, 200, 5)
    r = q.refines(A, B)
    assert r.method == "min-norm"
    assert_witness(A, B, r)


def test_least_change_projections_reach_a_witness_the_least_norm_step_misses():
    # 50 x 200 vs 50 x 200, B = A·R with R dense: the least-norm W has negative entries
    # (recomputed here with numpy's pinv), yet a few projections with a margin give W >= 0
    rng = np.random.default_rng(0)
    A = random_channel(rng, 50, 200)
    B = A @ random_channel(rng, 200, 200)
    bbar = B.mean(axis=0)
    assert (bbar + np.linalg.pinv(A) @ (B - bbar)).min() < 0
    r = q.refines(A, B)
    assert r.method == "min-norm" and dict(r.trace)["min-norm"] == "decided"
    assert_witness(A, B, r)


@pytest.mark.parametrize(
    "case", ["full row rank", "two equal rows (A·Aᵀ singular)", "more rows than columns"]
)
def test_the_least_norm_step_is_pinv(case):
    # A⁺R + c dᵀ as the min-norm step forms it (Aᵀ(AAᵀ)⁻¹R, or pinv when AAᵀ is singular
    # or A has more rows than columns) against numpy's pinv, written out
    rng = np.random.default_rng(4)
    shape = {"full row rank": (6, 40), "more rows than columns": (9, 5)}.get(case, (6, 40))
    A = random_channel(rng, *shape)
    if case.startswith("two equal rows"):
        A[3] = A[1]
    R, c, d = rng.normal(size=(A.shape[0], 7)), rng.random(A.shape[1]), rng.random(7)
    got = _pseudo_inverse(A, 7)(R, c, d)
    expected = np.linalg.pinv(A) @ R + np.outer(c, d)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * np.abs(expected).max())


@pytest.mark.parametrize("seed", range(8))
def test_random_non_refining_pairs_give_verified_counterexample(seed):
    # B = sharper channel than A: the Bayes vulnerability (identity gain, uniform prior)
    # of B exceeds A's, so A ⋢ B by the Coriaceous theorem (independent of the solver).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    A = 0.5 * np.eye(n) + 0.5 * random_channel(rng, n, n)  # noisy
    B = 0.9 * np.eye(n) + 0.1 * random_channel(rng, n, n)  # nearly the identity
    assert q.bayes_vulnerability(B) > q.bayes_vulnerability(A)
    r = q.refines(A, B)
    assert_counterexample(A, B, r)


@pytest.mark.parametrize("seed", range(3))
def test_non_refining_entropic_engine(seed):
    rng = np.random.default_rng(200 + seed)
    A = random_channel(rng, 8, 100)
    B = 0.5 * np.eye(8)[:, rng.integers(0, 8, 60)] + 0.0
    B = np.abs(B) + random_channel(rng, 8, 60) * 0.5
    B = B / B.sum(axis=1, keepdims=True)
    r = q.refines(A, B)
    if q.bayes_vulnerability(B) > q.bayes_vulnerability(A):
        assert not r.holds
    if not r.holds:
        assert_counterexample(A, B, r)
    else:
        assert_witness(A, B, r)


def test_user_prior_shapes_the_counterexample():
    A = q.Channel([[0.6, 0.4], [0.4, 0.6]])
    B = q.Channel([[0.9, 0.1], [0.1, 0.9]])
    prior = [0.2, 0.8]
    r = q.refines(A, B, prior)
    assert_counterexample(A, B, r, prior)


@settings(max_examples=40, deadline=None)
@given(channels(max_inputs=4, max_outputs=5), channels(max_inputs=4, max_outputs=5), st.data())
def test_verdict_is_always_certified(A, B, data):
    # whatever the pair (zeros included), the verdict comes with a certificate that re-checks
    if A.n_inputs != B.n_inputs:
        B = (
            q.Channel(np.vstack([B.matrix, B.matrix])[: A.n_inputs])
            if B.n_inputs < A.n_inputs
            else q.Channel(B.matrix[: A.n_inputs])
        )
    r = q.refines(A, B)
    if r.holds:
        assert_witness(A, B, r)
    else:
        assert_counterexample(A, B, r)


@settings(max_examples=30, deadline=None)
@given(channels(max_inputs=4, max_outputs=5))
def test_reflexive(A):
    # A = A·I (definition)
    assert_witness(A, A, q.refines(A, A))


@pytest.mark.parametrize("seed", range(5))
def test_transitive_on_random_triples(seed):
    # A ⊑ A·R1 ⊑ A·R1·R2, and the decided verdict for (A, C) must be "holds" too
    rng = np.random.default_rng(seed)
    A = random_channel(rng, 3, 5, alpha=0.3)
    B = A @ random_channel(rng, 5, 4, alpha=0.3)
    C = B @ random_channel(rng, 4, 3, alpha=0.3)
    rab, rbc, rac = q.refines(A, B), q.refines(B, C), q.refines(A, C)
    assert rab.holds and rbc.holds and rac.holds
    # composing the two witnesses gives a third (re-checked)
    W = rab.witness @ rbc.witness
    assert np.abs(A @ W - C).max() <= 1e-7


@pytest.mark.parametrize("seed", range(6))
def test_transitivity_never_contradicted_on_arbitrary_triples(seed):
    rng = np.random.default_rng(50 + seed)
    chans = [random_channel(rng, 3, int(rng.integers(2, 5)), alpha=0.3) for _ in range(4)]
    chans.append(chans[0] @ random_channel(rng, chans[0].shape[1], 3))
    rel = {(i, j): q.refines(chans[i], chans[j]).holds for i in range(5) for j in range(5)}
    for i in range(5):
        for j in range(5):
            for k in range(5):
                if rel[i, j] and rel[j, k]:
                    assert rel[i, k], (i, j, k)


@pytest.mark.parametrize("seed", range(4))
def test_coriaceous_no_gain_or_prior_makes_the_refinement_leak_more(seed):
    # The Coriaceous theorem (the book, Thm. 9.11): A ⊑ B implies V_g[π▷B] <= V_g[π▷A]
    # for every prior and gain; checked on 200 random (gain, prior) pairs.
    rng = np.random.default_rng(seed)
    A = random_channel(rng, 4, 6, alpha=0.5)
    B = A @ random_channel(rng, 6, 5, alpha=0.5)
    assert q.refines(A, B).holds
    for _ in range(200):
        g = rng.normal(size=(int(rng.integers(1, 6)), 4))
        pi = rng.dirichlet(np.ones(4))
        assert q.g_vulnerability(B, g, pi) <= q.g_vulnerability(A, g, pi) + 1e-12


def test_no_leak_and_identity_extremes():
    # the identity leaks most (I ⊑ everything), the no-interference channel least
    I3 = q.Channel(np.eye(3))
    N3 = q.Channel(np.ones((3, 1)))
    rng = np.random.default_rng(7)
    C = q.Channel(random_channel(rng, 3, 4))
    assert_witness(I3, C, q.refines(I3, C))
    assert_witness(C, N3, q.refines(C, N3))
    r = q.refines(N3, C)
    assert_counterexample(N3, C, r)


def test_witness_is_mapped_back_through_the_reduction():
    # B has two proportional columns and an all-zero column; A has a zero column.
    A = np.array([[0.5, 0.5, 0.0], [0.2, 0.8, 0.0], [0.9, 0.1, 0.0]])
    Bbase = A[:, :2] @ np.array([[0.7, 0.3], [0.2, 0.8]])
    B = np.column_stack([Bbase[:, 0] * 0.25, Bbase[:, 1], Bbase[:, 0] * 0.75, np.zeros(3)])
    r = q.refines(A, B)
    assert r.details["reduced_shapes"] == ((3, 2), (3, 2))
    assert_witness(A, B, r)
    assert np.all(r.witness[:, 3] == 0)


def test_arrays_and_channels_are_accepted_alike():
    A = [[0.8, 0.2], [0.3, 0.7]]
    B = [[0.6, 0.4], [0.45, 0.55]]
    r1, r2 = q.refines(A, B), q.refines(q.Channel(A), q.Channel(B))
    assert r1.holds == r2.holds


def test_repr_is_readable():
    r = q.refines(q.grr(3, 2.0), q.grr(3, 1.0))
    s = repr(r)
    assert "holds" in s and "witness" in s and "tol 1e-07" in s and "method" in s and " s" in s
    t = repr(q.refines(q.grr(3, 1.0), q.grr(3, 2.0)))
    assert "fails" in t and "counterexample" in t and "V_g[π▷B] − V_g[π▷A]" in t
