"""Orbit-LP refinement of symmetric channels: explicit LPs, certificates, the paper's facts."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp import formulas as F
from qifldp.errors import ChannelError, InputTypeError, SizeError

from ._helpers import assert_agrees, check_witness, hidden_mixture


def _family(k: int, eps_grid) -> list[sym.SymmetricChannel]:
    out = []
    for e in eps_grid:
        out += [
            sym.grr(k, e),
            sym.sue(k, e),
            sym.oue(k, e),
            sym.the(k, e, 0.6),
            sym.the(k, e, 0.9),
            sym.subset_selection(k, e),
        ]
    return out


def _check_certificate(A: sym.SymmetricChannel, B: sym.SymmetricChannel, r) -> None:
    """Re-check a verdict on the explicit channels (expansion, qifldp's generic measures)."""
    Ae, Be = A.expand(), B.expand()
    if r.holds:
        assert r.counterexample is None
        check_witness(Ae.matrix, np.asarray(r.witness), Be.matrix)
        check_witness(
            A.expand(lumped=True).matrix,
            r.witness.expand(lumped=True),
            B.expand(lumped=True).matrix,
        )
    else:
        assert r.witness is None
        G = np.asarray(r.counterexample.gain)
        pi = r.counterexample.prior
        gap = q.g_vulnerability(Be, G, pi) - q.g_vulnerability(Ae, G, pi)
        assert gap > 0
        assert gap == pytest.approx(r.counterexample.gap, rel=1e-9, abs=1e-13)


def _agreement(k: int, eps_grid) -> None:
    F_ = _family(k, eps_grid)
    undecided = 0
    for A, B in itertools.product(F_, F_):
        r = sym.refines(A, B)
        _check_certificate(A, B, r)
        # provenance: HiGHS on the full explicit W (no symmetry)
        undecided += not assert_agrees(r, A, B)
    assert undecided <= len(F_) ** 2 // 20


def test_agrees_with_the_explicit_lp_k3() -> None:
    _agreement(3, [0.5, 2.0])


@pytest.mark.slow
@pytest.mark.parametrize(("k", "eps_grid"), [(4, [1.0, 4.0]), (5, [0.7, 3.0])])
def test_agrees_with_the_explicit_lp(k: int, eps_grid) -> None:
    _agreement(k, eps_grid)


def test_grr_family_at_a_million() -> None:
    # provenance: QIF paper [24] (Chatzikokolakis et al.): grr(k, e1) ⊑ grr(k, e2) iff e2 <= e1
    k = 10**6
    grid = [0.5, 1.0, 2.0, 5.0]
    for e1, e2 in itertools.product(grid, grid):
        r = sym.refines(sym.grr(k, e1), sym.grr(k, e2))
        assert r.holds == (e2 <= e1), (e1, e2)
        if not r.holds:
            assert r.counterexample.gap > 0


@pytest.mark.parametrize("k", [3, 10**6])
def test_grr_30_vs_31_is_decided_right(k: int) -> None:
    # API.md: W = I fits grr(k, 31) within 1e-7, yet grr(k, 31) leaks more (Bayes
    # capacity k / (1 + (k-1) e^-31) > k / (1 + (k-1) e^-30)); the reverse holds (family)
    r = sym.refines(sym.grr(k, 30.0), sym.grr(k, 31.0))
    assert not r.holds and r.counterexample.gap > 0
    ml30 = k / (1 + (k - 1) * math.exp(-30.0))
    ml31 = k / (1 + (k - 1) * math.exp(-31.0))
    assert r.counterexample.gap == pytest.approx((ml31 - ml30) / k, rel=1e-6)
    assert sym.refines(sym.grr(k, 31.0), sym.grr(k, 30.0)).holds


@pytest.mark.parametrize("k", [10, 12, 50])
def test_sue_refines_the(k: int) -> None:
    # provenance: QIF paper Lemma 11 (S_eps ⊑ T_eps,theta bitwise) with Lemma 4 (one-hot);
    # the reverse fails: SUE's Bayes capacity is larger (Fig. 6)
    for eps, theta in [(0.5, 0.6), (2.0, 0.9), (4.0, 0.75)]:
        r = sym.refines(sym.sue(k, eps), sym.the(k, eps, theta))
        assert r.holds and r.residual <= 1e-9, (k, eps, theta)
        back = sym.refines(sym.the(k, eps, theta), sym.sue(k, eps))
        assert not back.holds and back.counterexample.gap > 0


def test_sue_the_witness_expands_at_k10() -> None:
    # the orbit witness, expanded to the 1024 x 1024 W, is a witness of the explicit channels
    A, B = sym.sue(10, 1.0), sym.the(10, 1.0, 0.8)
    r = sym.refines(A, B)
    W = np.asarray(r.witness)
    assert W.shape == r.witness.shape == (1024, 1024)
    check_witness(q.sue(10, 1.0).matrix, W, q.the(10, 1.0, 0.8).matrix)


@pytest.mark.parametrize("make", [sym.sue, sym.oue, lambda k, e: sym.the(k, e, 0.7)])
def test_ue_and_the_families_at_k30(make) -> None:
    # provenance: QIF paper Lemmas 5-8 (bitwise families) and Lemma 4: M(e1) ⊑ M(e2) iff e1 >= e2
    grid = [0.5, 1.5, 4.0]
    for e1, e2 in itertools.product(grid, grid):
        assert sym.refines(make(30, e1), make(30, e2)).holds == (e1 >= e2), (e1, e2)


@pytest.mark.parametrize("eps", [0.8, 2.0, 4.0])
def test_oue_refines_the_above_lemma10_threshold(eps: float) -> None:
    # provenance: QIF paper Lemma 10 (bitwise, theta above the threshold) with Lemma 4
    theta = float(F.the_oue_threshold(eps)) + 0.01
    assert theta < 1
    assert sym.refines(sym.oue(20, eps), sym.the(20, eps, theta)).holds


def test_near_the_lemma10_threshold_agrees_with_explicit_lp() -> None:
    # provenance: explicit LP on the full W; theta just below and above the bitwise threshold
    for eps in [0.8, 3.0]:
        t0 = float(F.the_oue_threshold(eps))
        for theta in [t0 - 0.02, t0 - 1e-3, t0 + 1e-3]:
            A, B = sym.oue(4, eps), sym.the(4, eps, theta)
            r = sym.refines(A, B)
            _check_certificate(A, B, r)
            assert_agrees(r, A, B)


def test_identical_and_near_identical_channels() -> None:
    # A ⊑ A always; grr(k, 1) vs grr(k, 1 + 1e-9) fails (capacity grows with eps)
    for C in [sym.oue(8, 1.0), sym.grr(10**5, 2.0), sym.subset_selection(7, 1.0)]:
        assert sym.refines(C, C).holds
    r = sym.refines(sym.grr(50, 1.0), sym.grr(50, 1.0 + 1e-9))
    assert not r.holds and r.counterexample.gap > 0
    assert sym.refines(sym.grr(50, 1.0 + 1e-9), sym.grr(50, 1.0)).holds


def test_orbit_witness_entries() -> None:
    # W[S, .] sums to 1 over B's lumped outputs, by orbits
    A, B = sym.oue(5, 2.0), sym.grr(5, 0.5)
    r = sym.refines(A, B)
    assert r.holds
    for S in [(), (0,), (1, 3), (0, 1, 2, 3, 4)]:
        total = sum(r.witness.entry(S, (y,)) for y in range(5))
        assert total == pytest.approx(1.0, abs=1e-9)
    W = r.witness.expand(lumped=True)
    row = A.expand(lumped=True).outputs.index((1, 3))
    assert r.witness.entry((1, 3), (3,)) == pytest.approx(W[row, 3])


def test_argument_errors() -> None:
    with pytest.raises(ChannelError):
        sym.refines(sym.grr(4, 1.0), sym.grr(5, 1.0))
    with pytest.raises(InputTypeError):
        sym.refines(q.grr(4, 1.0), sym.grr(4, 1.0))
    A = sym.sue(2000, 2.0)  # B = A·(I + w^{⊗k}) / 2 holds; no cheap route: LP
    with pytest.raises(SizeError):
        sym.refines(A, hidden_mixture(sym.blh(2000, 1.0), A, 0.5))


def test_top_level_refines_dispatches_to_the_orbit_lp():
    # QIF paper Lemma 11 lifted by Lemma 4: SUE ⊑ THE one-hot, here at k = 30 where the
    # explicit channel (30 x 2^30) cannot be built; and the GRR family (Lemma 3).
    import qifldp as q
    import qifldp.symmetric as sym

    assert q.refines(sym.sue(30, 1.0), sym.the(30, 1.0, 0.7)).holds
    r = q.refines(sym.grr(30, 2.0), sym.grr(30, 1.0))
    assert r.holds
    r = q.refines(sym.grr(30, 1.0), sym.grr(30, 2.0))
    assert not r.holds and r.counterexample.gap > 0
    with pytest.raises(TypeError, match="must both be symmetric"):
        q.refines(sym.grr(3, 1.0), q.grr(3, 1.0))
    with pytest.raises(ValueError, match="no prior"):
        q.refines(sym.grr(3, 1.0), sym.grr(3, 2.0), prior=[0.2, 0.3, 0.5])


def test_a_route_past_its_size_rule_is_an_undecided_result_not_an_exception() -> None:
    # sue(2000) vs a hidden mixture of itself and blh(2000) (not of product form: no
    # lifting): no cheap route decides it and the orbit LP is over its size rule;
    # q.refines says so in an undecided result (strict=True raises the SizeError)
    A = sym.sue(2000, 2.0)
    B = hidden_mixture(sym.blh(2000, 1.0), A, 0.5)
    r = q.refines(A, B)
    assert r.holds is None and r.details["error"] == "SizeError"
    assert "MAX_ORBIT_VARIABLES" in r.certified_by
    with pytest.raises(SizeError):
        q.refines(A, B, strict=True)
