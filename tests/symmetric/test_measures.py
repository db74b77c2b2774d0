"""Measures of symmetric channels: explicit channels (small k) and closed forms (k up to 10^6)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp import formulas as F
from qifldp.errors import GainError, ParameterError, PriorError
from qifldp.measures import channel_prior_vulnerability

from ._helpers import PROTOCOLS

MEASURES = [q.bayes_capacity, q.asr, q.ldp_epsilon, q.max_case_capacity, q.min_entropy_leakage]


@pytest.mark.parametrize(("make_sym", "make_num", "extra"), PROTOCOLS)
def test_measures_equal_the_explicit_channel(make_sym, make_num, extra) -> None:
    # provenance: enumeration over the explicit channel of qifldp.mechanisms
    for k in [2, 3, 4, 5]:
        for eps in [0.0, 0.4, 1.5, 6.0]:
            if make_sym in (sym.blh, sym.olh) and (k == 5 or eps > 2):
                continue
            S, C = make_sym(k, eps, **extra), make_num(k, eps, **extra)
            for f in MEASURES:
                assert f(S) == pytest.approx(f(C), rel=1e-12, abs=1e-14), (f.__name__, k, eps)


def test_unary_encoding_degenerate_bits_measures() -> None:
    # provenance: explicit channel; q = 0 makes columns with a single positive entry
    for p, qq in [(0.9, 0.0), (1.0, 0.2), (0.6, 0.1)]:
        S, C = sym.unary_encoding(4, p, qq), q.unary_encoding(4, p, qq)
        for f in [q.bayes_capacity, q.ldp_epsilon]:
            assert f(S) == pytest.approx(f(C), rel=1e-12)


@pytest.mark.parametrize("k", [10**4])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0, 20.0, 50.0])
def test_bayes_capacity_matches_closed_forms(k: int, eps: float) -> None:
    # provenance: qifldp.formulas closed forms (QIF paper, LH: corrected Eq. 27)
    omega = int(sym.subset_selection(k, eps).sizes[0])
    g = int(sym.olh(k, eps).name.split("g=")[1].rstrip(")"))
    cases = [
        (sym.grr(k, eps), F.bayes_capacity_grr(k, eps)),
        (sym.subset_selection(k, eps), F.bayes_capacity_ss(k, eps, omega)),
        (sym.sue(k, eps), F.bayes_capacity_sue(k, eps)),
        (sym.oue(k, eps), F.bayes_capacity_oue(k, eps)),
        (sym.the(k, eps, 0.7), F.bayes_capacity_the(k, eps, 0.7)),
        (sym.blh(k, eps), F.bayes_capacity_lh(k, eps, 2)),
        (sym.olh(k, eps), F.bayes_capacity_lh(k, eps, g)),
        (sym.unary_encoding(k, 0.8, 0.05), F.bayes_capacity_ue(k, 0.8, 0.05)),
    ]
    for S, ref in cases:
        assert q.bayes_capacity(S) == pytest.approx(ref, rel=1e-12), S
        assert q.asr(S) == pytest.approx(ref / k, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("eps", [1.0, 50.0])
def test_bayes_capacity_at_a_million(eps: float) -> None:
    # provenance: qifldp.formulas closed forms at k = 10^6
    k = 10**6
    cases = [
        (sym.sue(k, eps), F.bayes_capacity_sue(k, eps)),
        (sym.oue(k, eps), F.bayes_capacity_oue(k, eps)),
        (sym.the(k, eps, 0.8), F.bayes_capacity_the(k, eps, 0.8)),
        (sym.blh(k, eps), F.bayes_capacity_lh(k, eps, 2)),
    ]
    for S, ref in cases:
        assert q.bayes_capacity(S) == pytest.approx(ref, rel=1e-12), S


@pytest.mark.parametrize("eps", [0.0, 1.0, 12.0, 50.0])
def test_grr_and_ss_capacity_mpmath(eps: float) -> None:
    # provenance: 50-digit mpmath of ML = k e^eps / (e^eps + k - 1) (GRR) and
    # k e^eps / (omega e^eps + k - omega) (SS, exact in/out structure)
    with mp.workdps(50):
        for k in [10**4, 10**6]:
            e = mp.exp(eps)
            assert q.bayes_capacity(sym.grr(k, eps)) == pytest.approx(
                float(k * e / (e + k - 1)), rel=1e-14
            )
            w = int(sym.subset_selection(k, eps).sizes[0])
            assert q.bayes_capacity(sym.subset_selection(k, eps)) == pytest.approx(
                float(k * e / (w * e + k - w)), rel=1e-13
            )


@pytest.mark.parametrize("eps", [0.0, 0.1, 2.0, 50.0, 800.0])
def test_ldp_epsilon_exact_at_large_k(eps: float) -> None:
    # provenance: the protocols' design (eps exactly) and formulas.ldp_epsilon_the; at
    # eps = 800 the explicit channel underflows (q = 0, epsilon inf), log space does not
    k = 10**5
    for S in [sym.grr(k, eps), sym.subset_selection(k, eps), sym.sue(k, eps), sym.oue(k, eps)]:
        assert q.ldp_epsilon(S) == pytest.approx(eps, abs=1e-12), S
    assert q.ldp_epsilon(sym.blh(k, eps)) == pytest.approx(eps, abs=1e-12)
    assert q.ldp_epsilon(sym.the(k, eps, 0.7)) == pytest.approx(
        float(F.ldp_epsilon_the(eps, 0.7)), rel=1e-13, abs=1e-15
    )
    expected_mc = math.inf if eps > 709 else math.exp(eps)
    assert q.max_case_capacity(sym.grr(k, eps)) == pytest.approx(expected_mc, rel=1e-12)


def test_ldp_epsilon_neighbors_and_degenerate_columns() -> None:
    S = sym.grr(5, 1.3)
    assert q.ldp_epsilon(S, neighbors=[(2, 2)]) == 0.0
    assert q.ldp_epsilon(S, neighbors=[(0, 4)]) == pytest.approx(1.3)
    with pytest.raises(ParameterError):
        q.ldp_epsilon(S, neighbors=[(0, 5)])
    # SS with omega = k is the constant channel; UE with q = 0 mixes 0 and > 0 in a column
    assert q.ldp_epsilon(sym.subset_selection(4, 2.0, 4)) == 0.0
    assert q.ldp_epsilon(sym.unary_encoding(6, 0.7, 0.0)) == math.inf


def test_bayes_vulnerability_with_priors() -> None:
    # provenance: explicit channel; non-uniform priors go through the lumped expansion
    rng = np.random.default_rng(7)
    for S in [sym.oue(4, 1.0), sym.grr(5, 2.0), sym.local_hashing(3, 1.0, 3)]:
        E = S.expand()
        pi = rng.dirichlet(np.ones(S.k))
        assert q.bayes_vulnerability(S, pi) == pytest.approx(
            q.bayes_vulnerability(E, pi), rel=1e-12
        )
        assert q.bayes_vulnerability(S) == pytest.approx(q.bayes_vulnerability(E), rel=1e-12)
        assert q.min_entropy_leakage(S, pi) == pytest.approx(
            q.min_entropy_leakage(E, pi), rel=1e-12
        )
    with pytest.raises(PriorError):
        q.bayes_vulnerability(sym.oue(40, 1.0), np.r_[0.5, np.full(39, 0.5 / 39)])


def test_symmetric_gain_vulnerability_matches_explicit() -> None:
    # provenance: qifldp.g_vulnerability on the expanded channel and gain (enumeration)
    rng = np.random.default_rng(11)
    channels = [
        sym.oue(5, 1.0),
        sym.the(4, 2.0, 0.6),
        sym.grr(5, 0.5),
        sym.blh(4, 1.0),
        sym.subset_selection(5, 1.0, 2),
    ]
    for S in channels:
        for _ in range(4):
            sizes = np.sort(rng.choice(S.k + 1, size=rng.integers(1, S.k + 2), replace=False))
            G = sym.SymmetricGain(
                S.k, sizes, rng.normal(size=sizes.size), rng.normal(size=sizes.size)
            )
            ref = q.g_vulnerability(S.expand(), G.expand())
            assert q.g_vulnerability(S, G) == pytest.approx(ref, rel=1e-12, abs=1e-14)
            # an explicit gain array is evaluated on the expansion
            assert q.g_vulnerability(S, G.expand()) == pytest.approx(ref, rel=1e-12, abs=1e-14)
        assert G.prior_vulnerability() == pytest.approx(
            float(np.max(G.expand() @ np.full(S.k, 1 / S.k))), rel=1e-12
        )
    with pytest.raises(GainError):
        q.g_vulnerability(sym.grr(4, 1.0), sym.SymmetricGain.identity(5))


def test_identity_gain_gives_bayes_vulnerability_at_large_k() -> None:
    # provenance: V1[υ▷C] = ML(C) / k (the book, Thm 7.2)
    S = sym.the(10**5, 3.0, 0.8)
    assert q.g_vulnerability(S, sym.SymmetricGain.identity(S.k)) == pytest.approx(
        q.asr(S), rel=1e-12
    )


def test_uniform_prior_leakage_beyond_a_prior_vector() -> None:
    # provenance: mpmath of log2 ML with ML = k e^eps / (e^eps + k - 1) (GRR); the uniform
    # prior's Bayes vulnerability is 1/k, so k = 10^12 (no prior vector of k floats fits)
    # still has a min-entropy and an additive Bayes leakage
    k, eps = 10**12, 1.0
    S = sym.grr(k, eps)
    with mp.workdps(50):
        e = mp.exp(eps)
        ml = k * e / (e + k - 1)
        expected_bits, expected_add = float(mp.log(ml, 2)), float((ml - 1) / k)
    assert channel_prior_vulnerability(S) == 1.0 / k
    assert q.min_entropy_leakage(S) == pytest.approx(expected_bits, rel=1e-12)
    assert q.additive_leakage(S) == pytest.approx(expected_add, rel=1e-9)
