"""The witness forced at equal epsilon, and the likelihood-ratio gain where it misses by
rounding: unary encodings against HE with t coefficients at eps = 8, where the float LP
stalls at the boundary."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.refinement.forced import forced_witness, ratio_gain

from ._helpers import assert_witness


def _pair(name: str, k: int, eps: float, *extra: float):
    A = q.protocol(name, k, eps, *extra).symmetric().expand(lumped=True)
    return A, q.protocol("he_multi", k, eps if not extra else extra[-1]).merged_channel()


@pytest.mark.parametrize("k", [4, 8])
def test_sue_refines_he_multi_at_eps_8_by_the_forced_witness(k):
    A, B = _pair("sue", k, 8.0)
    r = q.refines(A, B)
    assert_witness(A, B, r)
    assert r.method == "forced" and r.trace[-1] == ("forced", "decided")


def test_the_forced_witness_is_the_only_one():
    # every column of B with a top set X takes W[z_X, y] = B[x, y] / A[x, z_X]: the
    # witness's entries on those columns are those ratios, read off independently
    A, B = _pair("sue", 8, 8.0)
    Am, Bm = A.matrix, B.matrix
    W = forced_witness(Am, Bm)
    for y in range(Bm.shape[1]):
        col = Bm[:, y]
        if col.max() / col.min() < 2:
            continue
        top = col > np.sqrt(col.max() * col.min())
        z = [i for i in range(Am.shape[1]) if np.array_equal(Am[:, i] > Am[:, i].min() * 2, top)]
        assert len(z) == 1 and np.flatnonzero(W[:, y]).tolist() == z
        assert W[z[0], y] == pytest.approx(col[top][0] / Am[top, z[0]][0], rel=1e-12)


def test_no_candidate_at_different_epsilons_or_when_a_row_overflows():
    A, _ = _pair("sue", 8, 8.0)
    assert forced_witness(A.matrix, q.protocol("he_multi", 8, 4.0).merged_channel().matrix) is None
    A16, B16 = _pair("sue", 16, 8.0)  # the half of the values: B's mass exceeds A's
    assert forced_witness(A16.matrix, B16.matrix) is None


@pytest.mark.parametrize("k", [4, 8])
def test_l_sue_fails_by_rounding_with_an_exact_gap(k):
    # L-SUE(eps_perm 16, eps_1 8) is SUE(8) in law; its stored ratio falls below HE-t's
    # by ~1e-13 (the second round's quadratic): the stored floats fail exactly
    A, B = _pair("l_sue", k, 16.0, 8.0)
    r = q.refines(A, B)
    assert not r.holds and r.exact and r.about == "channels"
    assert r.trace[-1] == ("forced", "decided") and "likelihood-ratio gain" in r.certified_by
    assert r.counterexample.recheck(A, B) > 0


def test_grr_against_a_grr_rounded_above_it_fails_at_the_forced_step():
    # grr(3, 1 + 1e-14) has the larger ratio: the pair's likelihood-ratio gain, exact
    A, B = q.grr(3, 1.0), q.grr(3, 1.0 + 1e-14)
    r = q.refines(A, B)
    assert not r.holds and r.exact and r.trace[-1] == ("forced", "decided")
    assert r.counterexample.recheck(A, B) > 0
    assert q.refines(B, A).holds  # and the other way round, W forced: nearly I


def test_ratio_gain_needs_a_larger_ratio():
    A = np.array([[0.7, 0.3], [0.3, 0.7]])
    B = np.array([[0.6, 0.4], [0.4, 0.6]])
    assert ratio_gain(A, B, np.full(2, 0.5)) is None
    g = ratio_gain(B, A, np.full(2, 0.5))
    values = [sum(g[w] * 0.5 * M[:, y]) for M in (A, B) for y in range(2) for w in range(2)]
    assert max(values[4:]) == 0.0 and max(values[:4]) > 0  # B leaks 0 under it, A > 0
