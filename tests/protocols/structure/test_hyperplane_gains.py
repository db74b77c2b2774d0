"""The hyperplane gain of a symmetric channel against HE with t coefficients: its exact gap
against the explicit channels, its agreement with the forced witness, and the atlas's pairs
it settles (unary encodings against HE-t at eps = 8)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.protocols.structure.channel_free import channel_free_decision
from qifldp.protocols.structure.hyperplane_gains import hyperplane_gain_refutation
from qifldp.refinement.forced import forced_witness


def _he(k: int, eps: float):
    return q.protocol("he_multi", k, eps)


def _explicit(name: str, k: int, eps: float):
    return q.protocol(name, k, eps).symmetric().expand(lumped=True).matrix


@pytest.mark.parametrize(
    ("name", "k", "eps"),
    [("grr", 8, 8.0), ("oue", 8, 8.0), ("sue", 16, 8.0), ("grr", 16, 4.0), ("grr", 24, 8.0)],
)
def test_the_gap_is_the_gap_on_the_explicit_channels(name, k, eps):
    found = hyperplane_gain_refutation(q.protocol(name, k, eps).symmetric(), _he(k, eps))
    assert found is not None
    ce, why = found
    r = 1 << (k.bit_length() - 1)
    assert "exact gap" in why and ce.gap_exact > 0
    assert np.all(ce.gain[:, r:] == 0) and np.all(ce.prior[r:] == 0)  # on the first r only
    A, B = _explicit(name, k, eps), _he(k, eps).merged_channel().matrix
    va = q.g_vulnerability(q.Channel(A), ce.gain, ce.prior)
    vb = q.g_vulnerability(q.Channel(B), ce.gain, ce.prior)
    # B's law against its stored channel: a few units of rounding per entry
    assert vb - va == pytest.approx(float(ce.gap_exact), rel=1e-9)
    assert va == pytest.approx(ce.vulnerability_a, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("k", [8, 16])
def test_it_refutes_exactly_where_no_forced_witness_exists(k):
    # SUE and HE-t at eps = 8 have the same epsilon: a witness is forced entry by entry
    # (qifldp.refinement.forced), and exists at k = 8 only
    A = _explicit("sue", k, 8.0)
    B = _he(k, 8.0).merged_channel().matrix
    W = forced_witness(A, B)
    refuted = hyperplane_gain_refutation(q.symmetric.sue(k, 8.0), _he(k, 8.0))
    assert (W is None) == (refuted is not None)
    if W is not None:
        assert np.abs(A @ W - B).max() < 1e-14 and W.min() >= 0
    else:
        assert refuted[0].recheck(q.Channel(A), q.Channel(B)) > 0


def test_every_pair_of_the_atlas_left_open_is_refuted_at_k_10000():
    # SUE, L-SUE ⋢ HE-t at eps = 8 (14 cells were undecided: the float LP stalls at the
    # boundary): from k = 16 on, A's chance of reporting a half of the values falls like
    # e^(-eps r / 4), B's mass on that half's columns only like 2^(-t m)
    for A in (q.protocol("sue", 10**4, 8.0), q.protocol("l_sue", 10**4, 16.0, 8.0)):
        found = channel_free_decision(A, _he(10**4, 8.0))
        assert found is not None and not found.holds and found.route == "hyperplane gain"
        ce = found.counterexample
        assert ce.gap_exact > 0 and ce.gain.shape == (2, 10**4)
        assert ce.prior[:8192].sum() == 1.0 and ce.vulnerability_a < 1e-300


def test_no_verdict_where_the_symmetric_side_refines():
    # GRR ⊑ HE-t where GRR leaks more: grr(8, 8) ⊑ he_multi(8, 2) (the atlas's orbit
    # witness); no hyperplane gain may refute it
    assert q.refines(q.grr(8, 8.0), _he(8, 2.0).merged_channel()).holds
    assert hyperplane_gain_refutation(q.symmetric.grr(8, 8.0), _he(8, 2.0)) is None
    assert hyperplane_gain_refutation(q.symmetric.grr(8, 8.0), q.protocol("grr", 8, 8.0)) is None


def test_the_exact_gap_is_a_fraction_and_a_side_is_its_closed_form():
    ce, _ = hyperplane_gain_refutation(q.symmetric.sue(64, 8.0), _he(64, 8.0))
    assert isinstance(ce.gap_exact, Fraction)
    assert 0.5 < np.abs(ce.gain).max() <= 1.0 and ce.gain[0, 0] > 0 > ce.gain[0, 63]  # by 2^-n
    # A's vulnerability in closed form: only SUE's report of exactly the half S = {x < 32}
    # is worth > 0, p^33 q^31 at the 32 inputs of S and q^33 p^31 at the other 32
    P = q.protocol("sue", 64, 8.0)
    p_, q_ = P.params["p"], P.params["q"]
    g_in, g_out = ce.gain[0, 0], ce.gain[0, 63]
    v_a = (32 * g_in * p_**33 * q_**31 + 32 * g_out * q_**33 * p_**31) / 64
    assert ce.vulnerability_a == pytest.approx(v_a, rel=1e-9)


def test_refines_on_the_protocols_takes_the_routes_without_a_channel():
    # q.refines on the protocol objects has neither channel to work on (HE-t: 32^12
    # outputs, no symmetric form): it decides from their structure, as the command line
    A, B = q.protocol("sue", 16, 8.0), _he(16, 8.0)
    r = q.refines(A, B)
    assert r.holds is False and r.method == "hyperplane gain" and r.exact
    ce = r.counterexample
    assert ce.gain.shape == (2, 16) and ce.prior.shape == (16,)
    assert ce.recheck(q.Channel(_explicit("sue", 16, 8.0)), _he(16, 8.0).merged_channel()) > 0
    # at k = 8 the pair holds (the forced witness, on the explicit channels) and no route
    # without a channel proves it: undecided, saying what was tried and what would serve
    from qifldp.errors import UnsupportedKindError

    r8 = q.refines(q.protocol("sue", 8, 8.0), _he(8, 8.0))
    assert r8.holds is None and "merged_channel()" in r8.certified_by
    with pytest.raises(UnsupportedKindError, match="restriction_refutation"):
        q.refines(q.protocol("sue", 8, 8.0), _he(8, 8.0), strict=True)
    merged = q.refines(q.Channel(_explicit("sue", 8, 8.0)), _he(8, 8.0).merged_channel())
    assert merged.holds and merged.method == "forced"


def _brute_v(S, r, g_in, g_out):
    """Σ over every column class (s, i, j, l) of count x max(0, value), no early stop."""
    import math

    k, h = S.k, r // 2
    total = Fraction(0)
    for s, pin, pout in S.exact_class_masses():
        n = math.comb(k, s)
        a = k * pin / (s * n) if s > 0 else Fraction(0)
        b = k * pout / ((k - s) * n) if s < k else Fraction(0)
        for i in range(min(s, h) + 1):
            for j in range(min(s - i, h) + 1):
                if s - i - j > k - r:
                    continue
                v = g_in * (a * i + b * (h - i)) + g_out * (a * j + b * (h - j))
                if v > 0:
                    total += math.comb(h, i) * math.comb(h, j) * math.comb(k - r, s - i - j) * v
    return total


@pytest.mark.parametrize("name", ["sue", "oue", "grr", "ss"])
@pytest.mark.parametrize("k", [6, 8, 12])
def test_the_class_walk_is_the_full_enumeration(name, k):
    # the walk from each size's best corner stops at the first column worth <= 0; the
    # full enumeration of every class gives the same exact sum, for gains of any scale
    from qifldp.protocols.structure.hyperplane_gains import _v_symmetric

    rng = np.random.default_rng(k)
    r = 1 << (k.bit_length() - 1)
    for eps in (0.5, 2.0, 8.0):
        S = q.protocol(name, k, eps).symmetric()
        for scale in (0.1, 1.0, 10.0, 3000.0):
            g_in, g_out = Fraction(rng.random()), -Fraction(rng.random() * scale)
            assert _v_symmetric(S, r, g_in, g_out) == _brute_v(S, r, g_in, g_out)
