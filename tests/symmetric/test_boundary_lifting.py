"""Bitwise lifting at the 2x2 boundary: OUE ⊑ THE at Lemma 10's threshold, any k, no LP."""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
import qifldp.symmetric.refinement as R
from qifldp.symmetric.boundary_lifting import boundary_bit_witness, boundary_lifting_result


def _pair(k, eps, shift=0.0):
    theta = float(q.formulas.the_oue_threshold(eps)) + shift
    return sym.oue(k, eps), sym.the(k, eps, theta), theta


def _lemma10_x(eps, theta):
    # the 2x2 witness at the threshold: every 1 kept, a 0 raised to 1 with probability
    # x = (q_THE − q_OUE) / (1 − q_OUE) (the QIF paper's p, q of THE, Sec. V-E)
    q_the = math.exp(-eps * theta / 2) / 2
    q_oue = 1 / (math.exp(eps) + 1)
    return (q_the - q_oue) / (1 - q_oue)


@pytest.mark.parametrize(("k", "eps"), [(200, 2.0), (10**4, 0.1), (10**4, 4.0)])
def test_the_map_cells_are_decided_without_the_orbit_lp(k, eps):
    # the gallery's undecided cells (the orbit LP: over its time limit at k = 200 and 1000,
    # refused for size at 10^4); (200, 2) was refuted only exactly on the stored floats
    A, B, theta = _pair(k, eps)
    r = sym.refines(A, B, time_limit=30)
    assert r.holds and r.up_to_rounding and r.about == "rounding"
    assert r.method == "symmetric: bitwise lifting at the boundary"
    w = r.witness.w
    assert w[1, 0] == 0.0 and w[1, 1] == 1.0
    assert w[0, 1] == pytest.approx(_lemma10_x(eps, theta), rel=1e-9)
    assert r.residual < 1e-9
    # the other direction is refuted by a gain, as before
    assert not sym.refines(B, A, time_limit=30).holds


def test_verdicts_of_the_orbit_lp_at_small_k(monkeypatch):
    # the orbit LP (every cheaper route off) either refines, or refutes only exactly on the
    # stored floats by a gap below float resolution: the rounding boundary the route states
    with monkeypatch.context() as m:
        for name in ("lifted_refinement", "single_source_result", "boundary_lifting_result"):
            m.setattr(R, name, lambda *a, **kw: None)
        m.setattr(R, "tries_gains", lambda *a, **kw: [])
        m.setattr(R, "penalty_gains", lambda *a, **kw: [])
        seen = set()
        # which cell lands on the failing side of the rounding boundary depends on the last
        # bits of exp and log in the installed numpy: (20, 4) with one build, (20, 8) with
        # numpy 2.4 (both stored pairs fail by ~1e-18 … 1e-20 there)
        for k, eps in [(5, 0.1), (5, 8.0), (10, 2.0), (10, 4.0), (20, 4.0), (20, 8.0)]:
            A, B, _ = _pair(k, eps)
            mine = boundary_lifting_result(A, B)
            assert mine is not None and mine.holds and mine.up_to_rounding
            lp = sym.refines(A, B, time_limit=60)
            if not lp.holds:
                assert lp.exact and 0 < lp.counterexample.gap < 1e-15, (k, eps)
            seen.add(lp.holds)
    assert seen == {True, False}


@pytest.mark.parametrize(("k", "eps"), [(4, 0.5), (6, 2.0), (8, 8.0)])
def test_the_lifted_witness_on_the_explicit_channels(k, eps):
    A, B, theta = _pair(k, eps)
    r = boundary_lifting_result(A, B)
    W = r.witness.expand()
    EA, EB = q.oue(k, eps).matrix, q.the(k, eps, theta).matrix
    assert W.min() >= 0 and np.abs(W.sum(axis=1) - 1).max() < 1e-12
    assert np.abs(EA @ W - EB).max() < 1e-13
    assert q.refines(EA, EB).holds  # the explicit route agrees


def test_off_the_boundary_the_route_stays_out():
    A, B, _ = _pair(1000, 2.0, shift=-1e-3)  # below the threshold: fails
    assert boundary_lifting_result(A, B) is None
    r = sym.refines(A, B)
    assert not r.holds and r.counterexample.gap > 1e-5
    A, B, _ = _pair(1000, 2.0, shift=1e-3)  # above: the plain lifting, strictly
    assert boundary_lifting_result(A, B) is None
    assert sym.refines(A, B).method == "symmetric: bitwise lifting"
    assert boundary_lifting_result(sym.grr(50, 1.0), sym.grr(50, 2.0)) is None  # not one-hot


@pytest.mark.parametrize(
    "w",
    [
        [[0.9, 0.1], [0.0, 1.0]],  # y = 0
        [[1.0, 0.0], [0.3, 0.7]],  # x = 0
        [[0.0, 1.0], [0.4, 0.6]],  # x = 1
        [[0.2, 0.8], [1.0, 0.0]],  # y = 1
    ],
)
def test_boundary_bit_witness_recovers_a_zero_entry(w):
    bA = np.array([[0.8, 0.2], [0.35, 0.65]])
    w = np.array(w)
    got = boundary_bit_witness(bA, bA @ w)
    assert got is not None
    np.testing.assert_allclose(got[0], w, atol=1e-12)
    assert abs(got[1]) < 1e-12
    assert boundary_bit_witness(bA, bA @ np.array([[0.9, 0.1], [0.2, 0.8]])) is None
