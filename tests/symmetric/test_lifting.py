"""Bitwise lifting (QIF paper, Lemma 4): one-hot pairs decided by their 2x2 bit channels."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.symmetric import lifting
from qifldp.symmetric.lifting import bit_channel, lifted_refinement


@pytest.mark.parametrize("k", [3, 6])
def test_lifted_witness_is_a_witness_of_the_explicit_channels(k):
    # SUE ⊑ THE (Lemma 11 lifted): W = w^{⊗k}, checked on the explicit constructors' matrices
    A, B = sym.sue(k, 1.0), sym.the(k, 1.0, 0.8)
    r = q.refines(A, B)
    assert r.holds and r.method == "symmetric: bitwise lifting"
    W = r.witness.expand()
    EA, EB = q.sue(k, 1.0).matrix, q.the(k, 1.0, 0.8).matrix
    assert W.min() >= 0 and np.abs(W.sum(axis=1) - 1).max() < 1e-12
    assert np.abs(EA @ W - EB).max() < 1e-12
    # entry() agrees with the expansion (bit vectors in one_hot's output order)
    outs = q.sue(k, 1.0).outputs
    ya, yb = outs[1], outs[-1]
    S = [i for i, b in enumerate(ya) if b]
    T = [i for i, b in enumerate(yb) if b]
    assert r.witness.entry(S, T) == pytest.approx(W[1, -1], rel=1e-12)


def test_lifting_decides_lemma11_at_a_million_inputs():
    # the 2x2 statement (Lemma 11: sue_bit ⊑ the_bit), independently by the 2x2 criterion
    assert q.refines_2x2(q.sue_bit(1.0), q.the_bit(1.0, 0.8))
    r = q.refines(sym.sue(10**6, 1.0), sym.the(10**6, 1.0, 0.8))
    assert r.holds and "Lemma 4" in r.certified_by and r.residual < 1e-7


def test_bit_channel_recovers_the_protocol_parameters():
    # OUE: p = 1/2, q = 1/(e^eps + 1); SUE: p = e^(eps/2)/(e^(eps/2) + 1), q = 1 - p
    b, err = bit_channel(sym.oue(10**5, 3.0))
    qo = 1 / (math.exp(3.0) + 1)
    np.testing.assert_allclose(b, [[1 - qo, qo], [0.5, 0.5]], rtol=1e-9)
    b, err = bit_channel(sym.sue(50, 2.0))
    p = math.exp(1.0) / (math.exp(1.0) + 1)
    np.testing.assert_allclose(b, [[p, 1 - p], [1 - p, p]], rtol=1e-12)
    assert bit_channel(sym.grr(50, 2.0)) is None  # not one-hot


def test_no_bitwise_witness_leaves_the_pair_to_the_orbit_lp():
    # SUE and OUE bit channels are incomparable (Lemma 9): lifting proves nothing
    assert not q.refines_2x2(q.sue_bit(3.0), q.oue_bit(3.0))
    assert lifted_refinement(sym.sue(5, 3.0), sym.oue(5, 3.0)) is None
    # and the k-ary verdict then comes from the orbit LP, agreeing with the explicit route
    r = q.refines(sym.sue(4, 3.0), sym.oue(4, 3.0))
    assert r.method != "symmetric: bitwise lifting"
    assert r.holds == q.refines(q.sue(4, 3.0), q.oue(4, 3.0)).holds


def test_a_product_form_check_the_time_left_cannot_pay_for_is_not_started(monkeypatch):
    # the same pair decides by lifting within 100 s (first test above); predicted at
    # 10^6 s per class, its product-form check is refused before it starts, and the
    # decision is undecided for time, naming the lifting
    monkeypatch.setattr(lifting, "PRODUCT_FORM_SECONDS_PER_CLASS", 1e6)
    r = q.refines(sym.sue(5, 1.0), sym.the(5, 1.0, 0.8), time_limit=100.0)
    assert r.holds is None and r.details["cause"] == "time"
    assert "bitwise lifting" in r.certified_by


def _the_star(k, eps):
    return sym.the(k, eps, float(q.formulas.the_oue_threshold(eps)))


def test_hashed_channels_are_of_product_form():
    # local hashing: the input in the reported bucket w.p. p = e^eps / (e^eps + g - 1),
    # every other input w.p. 1/g independently (g = 8 for OLH at eps = 2; 2 for BLH)
    for C, g in [(sym.olh(200, 2.0), 8), (sym.blh(30, 1.0), 2)]:
        eps = 2.0 if g == 8 else 1.0
        b, err = bit_channel(C)
        p = math.exp(eps) / (math.exp(eps) + g - 1)
        np.testing.assert_allclose(b, [[1 - 1 / g, 1 / g], [1 - p, p]], rtol=1e-12)
        assert err < 1e-10


def test_olh_lifted_witness_is_a_witness_of_the_explicit_channels():
    # OLH (k = 3: 8^4 explicit outputs (hash, bucket)) ⊑ THE(θ*) at eps = 2 by w^{⊗k}
    A, B = sym.olh(3, 2.0), _the_star(3, 2.0)
    r = q.refines(A, B)
    assert r.holds and r.method == "symmetric: bitwise lifting"
    W = r.witness.expand()
    EA, EB = A.expand().matrix, B.expand().matrix
    assert W.shape == r.witness.shape == (8**4, 8)
    assert W.min() >= 0 and np.abs(W.sum(axis=1) - 1).max() < 1e-12
    assert np.abs(EA @ W - EB).max() < 1e-12


_HASHED_MAKERS = {
    "olh": sym.olh,
    "blh": sym.blh,
    "lh3": lambda k, eps: sym.lh(k, eps, 3),
    "oue": sym.oue,
    "sue": sym.sue,
    "the*": _the_star,
    "the(0.8)": lambda k, eps: sym.the(k, eps, 0.8),
}


def _hashed_agreement(k, names, monkeypatch, eps_grid=(1.0, 2.0, 3.0)):
    """The ordered pairs of ``names`` with a hashed member that lifting decides, each
    decided "holds" by the orbit LP route too (both liftings off), with an exact
    certificate (the rational support solve) or W = I; returns the lifted pairs."""
    import qifldp.symmetric.refinement as R

    makers = {n: _HASHED_MAKERS[n] for n in names}
    lifted = []
    for eps in eps_grid:
        for (na, fa), (nb, fb) in itertools.permutations(makers.items(), 2):
            if {na, nb} & {"olh", "blh", "lh3"}:
                A, B = fa(k, eps), fb(k, eps)
                if lifted_refinement(A, B) is not None:
                    lifted.append((na, nb, eps, A, B))
    with monkeypatch.context() as m:
        m.setattr(R, "lifted_refinement", lambda *a: None)
        m.setattr(R, "boundary_lifting_result", lambda *a: None)
        for na, nb, eps, A, B in lifted:
            lp = sym.refines(A, B)
            assert lp.holds and not lp.up_to_rounding, (na, nb, eps, lp.certified_by)
            assert lp.exact or lp.method == "symmetric: identical", (na, nb, eps, lp.method)
    return {t[:3] for t in lifted}


@pytest.mark.parametrize("k", [6, 20])
def test_lifting_of_hashed_pairs_agrees_with_the_exact_orbit_lp(k, monkeypatch):
    # every ordered pair with a hashed member (OLH, BLH, LH with g = 3) among UE and THE at
    # eps 1, 2, 3 (k = 20: OLH and THE only) that lifting decides is decided "holds" by
    # the orbit LP route too, exactly
    names = list(_HASHED_MAKERS) if k <= 6 else ["olh", "the*"]
    lifted = _hashed_agreement(k, names, monkeypatch)
    expected = {("olh", "the*", 2.0), ("olh", "the*", 3.0)}
    assert expected | ({("lh3", "the(0.8)", 1.0)} if k <= 6 else set()) <= lifted


@pytest.mark.campaign
@pytest.mark.parametrize("k", [10, 50])
def test_lifting_of_hashed_pairs_agrees_with_the_exact_orbit_lp_campaign(k, monkeypatch):
    # the same over every pair of the seven makers at eps 0.5 ... 4 (~15 s at k = 50)
    lifted = _hashed_agreement(k, list(_HASHED_MAKERS), monkeypatch, (0.5, 1.0, 2.0, 3.0, 4.0))
    assert ("olh", "the*", 2.0) in lifted


def test_olh_refines_the_star_at_ten_thousand_inputs():
    # the three cells of the seven-oracle map the orbit LP could not decide (80,002 orbit
    # variables at k = 200; ~2e8 at k = 10^4): the closed-form bit channels refine by the
    # exact 2x2 criterion (g = 8, p = e^2 / (e^2 + 7)), so lifting decides at any k
    p, theta = math.exp(2.0) / (math.exp(2.0) + 7), float(q.formulas.the_oue_threshold(2.0))
    assert q.refines_2x2(np.array([[7 / 8, 1 / 8], [1 - p, p]]), q.the_bit(2.0, theta))
    for k in (200, 10**4):
        r = q.refines(sym.olh(k, 2.0), _the_star(k, 2.0), time_limit=30)
        assert r.holds and not r.up_to_rounding and "Lemma 4" in r.certified_by
        assert r.residual < 1e-9 and "e+9031" in repr(r) if k == 10**4 else r.residual < 1e-9


def test_each_first_reading_of_the_class_entries_is_followed_by_a_check():
    # the table log C(k - 1, s) and log_a, log_b of each channel (O(k) each, computed on
    # first access) are read between checks of the budget, before the 2x2 decision; the
    # three product-form checks come after them, each with its predicted cost
    k = 2 * 10**5  # beyond one block (orbit_lp.ORBIT_BLOCK): a small k checks at its stages only
    calls: list[float] = []
    out = lifted_refinement(
        sym.sue(k, 1.0), sym.the(k, 1.0, 0.8), lambda stage, at_least=0.0: calls.append(at_least)
    )
    assert out is not None  # Lemma 11 lifted (first tests above)
    predicted = [c for c in calls if c]
    assert predicted == [k * lifting.PRODUCT_FORM_SECONDS_PER_CLASS] * 3
    assert calls[:6] == [0.0] * 6  # A: table, log_a, log_b; B: table (shared), log_a, log_b


def test_olh_account_names_the_bits_of_a_hash_value_report():
    # OLH's report is a pair (h, v): the account speaks of the bits "h(x) = v", not of
    # reported bits, and what it says is the witness: W[(h, v), t] = Π_x w[[h(x) = v], t_x]
    A, B = sym.olh(3, 2.0), _the_star(3, 2.0)
    r = q.refines(A, B)
    text = r.explain(names=("OLH", "THE"))
    assert "each of the k = 3 bits of a report (h, v), bit x being 1 when h(x) = v" in text
    assert "reported bit" not in text and "a bit 1 (h(x) = v) stays 1" in text
    w, W = r.witness.w, r.witness.expand()
    EA, EB = A.expand(), B.expand()
    for i, (h, v) in enumerate(EA.outputs):
        bits = [int(h[x] == v) for x in range(3)]
        for j, t in enumerate(EB.outputs):
            expected = math.prod(w[bits[x], t[x]] for x in range(3))
            assert W[i, j] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    # a unary encoding's account keeps its reported bits
    ue = sym.refines(sym.sue(12, 1.0), sym.the(12, 1.0, 0.8)).explain()
    assert "each of the k = 12 reported bits" in ue and "a reported 0 stays 0" in ue


@pytest.mark.parametrize(
    "make", [sym.oue, sym.olh, sym.grr, lambda k, eps: sym.subset_selection(k, eps, 2)]
)
def test_explicit_output_counts_are_the_expanded_shapes(make):
    S = make(4, 1.0)
    for lumped in (False, True):
        n = S.expand(lumped=lumped).shape[1]
        assert S.n_explicit_outputs(lumped) == n
        assert S.log10_n_explicit_outputs(lumped) == pytest.approx(math.log10(n), rel=1e-12)
    assert sym.oue(2000, 1.0).log10_n_explicit_outputs() == pytest.approx(2000 * math.log10(2))
    assert sym.oue(200, 1.0).n_explicit_outputs() == 2**200  # exact beyond 2^53
    # the scheme that forms them: bit vectors, (hash, value) pairs with g = 4 buckets
    assert sym.oue(4, 1.0).scheme == ("bits",) and sym.olh(4, 1.0).scheme == ("lh", 4)
