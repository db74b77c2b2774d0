"""max_case_refines: cone membership of B's columns, hyperplane certificates."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q

from ._helpers import assert_witness, random_channel


def _posterior_max_vuln(C: np.ndarray, g: np.ndarray, prior: np.ndarray) -> float:
    """max_y max_w Σ_x g[w, x] π_x C[x, y] / p(y), by loops (independent recomputation)."""
    best = -np.inf
    for y in range(C.shape[1]):
        py = sum(prior[x] * C[x, y] for x in range(C.shape[0]))
        if py == 0:
            continue
        for w in range(g.shape[0]):
            best = max(best, sum(g[w, x] * prior[x] * C[x, y] for x in range(C.shape[0])) / py)
    return best


def _assert_hyperplane(A, B, r):
    A, B = np.asarray(q.Channel(A).matrix), np.asarray(q.Channel(B).matrix)
    ce = r.counterexample
    assert not r.holds and r.witness is None and ce.kind == "max-case"
    gap = _posterior_max_vuln(B, ce.gain, ce.prior) - _posterior_max_vuln(A, ce.gain, ce.prior)
    assert gap > 0 and ce.gap > 0
    assert abs(gap - ce.gap) <= 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_refinement_implies_max_case_refinement(seed):
    # B = A·R with R row-stochastic: A ⊑ B, hence A ⊑max B (QIF paper Sec. III, [24])
    rng = np.random.default_rng(seed)
    n, m, p = 3, int(rng.integers(2, 6)), int(rng.integers(2, 6))
    A = random_channel(rng, n, m, alpha=0.5)
    B = A @ random_channel(rng, m, p, alpha=0.5)
    assert q.refines(A, B).holds
    r = q.max_case_refines(A, B)
    assert r.relation == "max-case refinement"
    assert_witness(A, B, r, rowsum=False)


def test_max_case_holds_where_average_case_fails():
    # A: posteriors 0.1, 0.5, 0.9 (masses 0.05, 0.9, 0.05); B: posteriors 0.2, 0.8 (masses 1/2).
    # B's posteriors lie in [0.1, 0.9] = hull of A's, so A ⊑max B; but Bayes vulnerability
    # (identity gain, uniform prior) is 0.8 for B and 0.54 for A by hand, so A ⋢ B.
    A = q.Channel([[0.01, 0.9, 0.09], [0.09, 0.9, 0.01]])
    B = q.Channel([[0.2, 0.8], [0.8, 0.2]])
    assert (
        abs(q.bayes_vulnerability(A) - 0.54) < 1e-12 and abs(q.bayes_vulnerability(B) - 0.8) < 1e-12
    )
    mc = q.max_case_refines(A, B)
    assert_witness(A, B, mc, rowsum=False)
    assert (mc.witness >= -1e-9).all()
    avg = q.refines(A, B)
    assert not avg.holds and avg.counterexample.gap > 0


@pytest.mark.parametrize("seed", range(5))
def test_max_case_failure_gives_a_separating_hyperplane(seed):
    # B nearly the identity, A noisy: B's posteriors leave the hull of A's
    # (its largest posterior probability exceeds A's largest; ldp_epsilon(B) > ldp_epsilon(A))
    rng = np.random.default_rng(seed)
    A = 0.5 * np.eye(3) + 0.5 * random_channel(rng, 3, 3)
    B = 0.95 * np.eye(3) + 0.05 * random_channel(rng, 3, 3)
    assert q.ldp_epsilon(B) > q.ldp_epsilon(A)
    r = q.max_case_refines(A, B)
    _assert_hyperplane(A, B, r)


def test_two_by_two_max_case_and_average_case_coincide():
    # QIF paper Cor. 2: on 2x2 channels the two orders coincide
    rng = np.random.default_rng(5)
    for _ in range(30):
        A = rng.dirichlet(np.ones(2), size=2)
        B = rng.dirichlet(np.ones(2), size=2)
        assert q.refines(A, B).holds == q.max_case_refines(A, B).holds


def test_max_case_near_boundary_grr():
    # eps-LDP order on GRR: grr(k, a) ⊑max grr(k, b) iff a >= b; at eps = 30 / 40 only
    # exact arithmetic (or the rounding-band bound) separates them
    for a, b in [(30.0, 31.0), (40.0, 41.0), (1.0, 1.0 + 1e-9)]:
        A, B = q.grr(3, a), q.grr(3, b)
        r = q.max_case_refines(A, B)
        assert not r.holds
        _assert_hyperplane(A, B, r)
        s = q.max_case_refines(B, A)
        assert s.holds


def test_max_case_exact_mode():
    A, B = q.grr(3, 2.0), q.grr(3, 1.0)
    r = q.max_case_refines(A, B, exact=True)
    assert r.holds and r.exact
    s = q.max_case_refines(B, A, exact=True)
    assert not s.holds and s.exact and s.counterexample.gap_exact > 0


def test_max_case_rejects_unknown_method():
    with pytest.raises(ValueError, match="method"):
        q.max_case_refines(q.grr(2, 1.0), q.grr(2, 1.0), method="entropic")
