"""Failures under invariant gains (qifldp.protocols.structure.invariant_gains).

The column classes are checked against the explicit channels (the vulnerability of the
same gain computed by g_vulnerability on the expanded gain matrix); the verdicts against
the explicit LP of q.refines; every counterexample's gap is recomputed on the explicit
channels.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.protocols.structure import invariant_gains as ig
from qifldp.protocols.structure.invariant_gains import (
    invariant_gain_refutation,
    invariant_witness,
    symmetric_column_classes,
    vulnerability_of_classes,
)
from qifldp.sweeps.atlas import ATLAS_ORACLES, atlas_cell
from qifldp.symmetric import SymmetricGain

_RNG = np.random.default_rng(7)
_GAINS = [tuple(float(v) for v in _RNG.normal(size=3)) for _ in range(6)]


def _explicit_v(M: np.ndarray, r: int, d1: float, d0: float, e: float) -> float:
    """V_g under the uniform prior on the first r rows, the gain expanded to a matrix."""
    G = SymmetricGain(r, (1, r - 1), (d1 + e, 0.0), (e, d0)).expand()
    rows = M[:r] / M[:r].sum(axis=1, keepdims=True)
    return float(q.g_vulnerability(q.Channel(rows), G, np.full(r, 1.0 / r)))


@pytest.mark.parametrize(("k", "eps", "t"), [(4, 1.0, 1), (8, 0.5, 2), (8, 3.0, 3), (6, 2.0, 2)])
def test_he_multi_classes_give_the_explicit_vulnerability(k, eps, t):
    P = q.protocol("he_multi", k, eps, t=t)
    r, classes = P.affine_column_classes()
    assert r == 1 << (k.bit_length() - 1) and sum(S for S, _, _ in classes) == r
    M = P.channel().matrix
    for g in _GAINS:
        got = float(vulnerability_of_classes(classes, r, tuple(Fraction(v) for v in g)))
        assert got == pytest.approx(_explicit_v(M, r, *g), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("name", ["grr", "dbitflip", "l_grr", "oue", "ss"])
@pytest.mark.parametrize("r", [None, 4])
def test_symmetric_classes_give_the_explicit_vulnerability(name, r):
    k = 7
    S = ATLAS_ORACLES[name][0](k, 1.5).symmetric()
    classes = symmetric_column_classes(S, r)
    if r is not None and not set(S.sizes.tolist()) <= {0, 1, k - 1, k}:
        assert classes is None  # only columns singling out one input restrict
        return
    M = S.expand(lumped=True).matrix
    for g in _GAINS:
        got = float(vulnerability_of_classes(classes, r or k, tuple(Fraction(v) for v in g)))
        assert got == pytest.approx(_explicit_v(M, r or k, *g), rel=1e-12, abs=1e-14)


def _recomputed_gap(A: np.ndarray, B: np.ndarray, found) -> float:
    r = found.inputs
    ce = found.counterexample
    G = ce.gain.expand()
    pad = np.zeros((G.shape[0], A.shape[0]))
    pad[:, :r] = G  # the gain on all k inputs; the prior is 0 beyond r
    prior = np.zeros(A.shape[0])
    prior[:r] = ce.prior
    return float(q.g_vulnerability(q.Channel(B), pad, prior)) - float(
        q.g_vulnerability(q.Channel(A), pad, prior)
    )


@pytest.mark.parametrize("k", [8, 16])
@pytest.mark.parametrize("b", ["dbitflip", "l_grr", "grr"])
def test_verdicts_agree_with_the_explicit_lp(k, b):
    for eps in (0.5, 2.0, 8.0):
        P = ATLAS_ORACLES["he_multi"][0](k, eps)
        S = ATLAS_ORACLES[b][0](k, eps).symmetric()
        A, B = P.merged_channel(), S.expand(lumped=True)
        holds = q.refines(A, B).holds
        found = invariant_gain_refutation(P, S)
        # k a power of two: the route is complete for this pair class
        assert (found is None) == bool(holds), (k, b, eps)
        if found is not None:
            ce = found.counterexample
            assert ce.gap_exact > 0 and ce.gap == float(ce.gap_exact)
            assert _recomputed_gap(A.matrix, B.matrix, found) == pytest.approx(ce.gap, rel=1e-9)


def test_a_prefix_refutes_at_k_not_a_power_of_two():
    P = ATLAS_ORACLES["he_multi"][0](12, 8.0)
    S = ATLAS_ORACLES["dbitflip"][0](12, 8.0).symmetric()
    found = invariant_gain_refutation(P, S)
    assert found is not None and found.inputs == 8
    assert "inputs 0..7" in found.certified_by
    A, B = P.merged_channel().matrix, S.expand(lumped=True).matrix
    assert _recomputed_gap(A, B, found) == pytest.approx(found.counterexample.gap, rel=1e-9)
    assert not q.refines(P.merged_channel(), S.expand(lumped=True)).holds


def test_no_classes_no_verdict():
    S = q.symmetric.grr(16, 1.0)
    assert invariant_gain_refutation(q.protocol("hr", 16, 1.0), S) is None
    assert (
        invariant_gain_refutation(q.protocol("he_multi", 16, 1.0), q.symmetric.grr(8, 1.0)) is None
    )


def test_the_atlas_decides_he_multi_into_dbitflip_at_k_256():
    cell = atlas_cell(256, 8.0, ("he_multi", "dbitflip"), time_limit=20.0)
    (row,) = [r for r in cell["pairs"] if (r["a"], r["b"]) == ("he_multi", "dbitflip")]
    assert row["holds"] is False and row["route"] == "invariant gain"
    assert row["rounding_boundary"] is False and row["gap"] > 0


def _explicit_witness(P, S, found) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, W, B): W built entry by entry from the orbit values, on P's merged channel and
    B's lumped one (B of a single class singling out one input: L-GRR)."""
    A = P.merged_channel().matrix
    B = S.expand(lumped=True).matrix
    k = A.shape[0]
    assert list(S.sizes) == [1]  # one class: the column singles out its argmax
    W = np.zeros((A.shape[1], B.shape[1]))
    for o in range(A.shape[1]):
        col = A[:, o]
        inside = np.isclose(col, col.max(), rtol=1e-12, atol=0)
        if inside.all():  # a constant column
            W[o] = [float(found.values[("const", 0)])] * B.shape[1]
            continue
        rho = int(round(np.log2(k / inside.sum())))
        for y in range(B.shape[1]):
            j = int(np.argmax(B[:, y]))
            side = "in" if inside[j] else "out"
            W[o, y] = float(found.values[(rho, 0, side)])
    return A, W, B


@pytest.mark.parametrize(("k", "eps"), [(8, 0.5), (16, 1.0), (64, 2.0)])
def test_invariant_witness_is_a_witness_on_the_explicit_channels(k, eps):
    P = ATLAS_ORACLES["he_multi"][0](k, eps)
    S = ATLAS_ORACLES["l_grr"][0](k, eps).symmetric()
    found = invariant_witness(P, S)
    assert found is not None and min(found.values.values()) >= 0
    A, W, B = _explicit_witness(P, S, found)
    assert np.allclose(W.sum(axis=1), 1.0, atol=1e-12)
    assert np.abs(A @ W - B).max() < 1e-12
    assert q.refines(q.Channel(A), q.Channel(B)).holds  # the explicit LP agrees


@pytest.mark.parametrize("k", [8, 16, 64])
@pytest.mark.parametrize("b", ["dbitflip", "l_grr", "grr"])
def test_witness_and_gain_decide_every_pair_at_a_power_of_two(k, b):
    # the orbit equations are complete for this pair class: exactly one certificate
    for eps in (0.5, 1.0, 2.0, 4.0, 8.0):
        P = ATLAS_ORACLES["he_multi"][0](k, eps)
        S = ATLAS_ORACLES[b][0](k, eps).symmetric()
        witness, gain = invariant_witness(P, S), invariant_gain_refutation(P, S)
        assert (witness is None) != (gain is None), (k, b, eps)


def test_the_farkas_gain_refutes_where_the_grid_misses(monkeypatch):
    # he_multi ⋢ dBitFlipPM at k = 256, eps = 0.5: a narrow direction (d1 = 0)
    P = ATLAS_ORACLES["he_multi"][0](256, 0.5)
    S = ATLAS_ORACLES["dbitflip"][0](256, 0.5).symmetric()
    found = invariant_gain_refutation(P, S)
    assert found is not None and found.counterexample.gap_exact > 0
    assert invariant_witness(P, S) is None
    # the Farkas gain alone (no grid), recomputed on the explicit channels at k = 16
    monkeypatch.setattr(ig, "_search", lambda A, B, r: [])
    P = ATLAS_ORACLES["he_multi"][0](16, 0.5)
    S = ATLAS_ORACLES["dbitflip"][0](16, 0.5).symmetric()
    found = invariant_gain_refutation(P, S)
    assert found is not None and set(found.counterexample.gain.sizes.tolist()) <= {0, 1, 15}
    A, B = P.merged_channel().matrix, S.expand(lumped=True).matrix
    gap = _recomputed_gap(A, B, found)
    assert gap > 0 and gap == pytest.approx(found.counterexample.gap, rel=1e-9)
