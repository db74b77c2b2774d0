"""Hypothesis properties of random subset channels (the generic SymmetricChannel constructor)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import qifldp as q
import qifldp.symmetric as sym
from qifldp.tradeoff import tradeoff_curve

from ._helpers import assert_agrees, check_witness


@st.composite
def subset_channels(draw, k=None):
    """A random subset channel: random sizes, random class masses (some zero) summing to 1."""
    k = draw(st.integers(2, 5)) if k is None else k
    sizes = sorted(draw(st.sets(st.integers(0, k), min_size=1, max_size=k + 1)))
    n = len(sizes)
    raw = np.array(draw(st.lists(st.floats(0, 1), min_size=2 * n, max_size=2 * n)))
    zero = np.array(draw(st.lists(st.booleans(), min_size=2 * n, max_size=2 * n)))
    m_in, m_out = raw[:n] + 0.05, raw[n:] + 0.05
    m_in[zero[:n]] = 0.0
    m_out[zero[n:]] = 0.0
    s = np.array(sizes)
    m_in[s == 0] = 0.0
    m_out[s == k] = 0.0
    if m_in.sum() + m_out.sum() == 0:
        (m_in if s[0] > 0 else m_out)[0] = 1.0
    total = m_in.sum() + m_out.sum()
    with np.errstate(divide="ignore"):
        return sym.SymmetricChannel(k, sizes, np.log(m_in / total), np.log(m_out / total))


@settings(max_examples=40, deadline=None)
@given(subset_channels())
def test_measures_of_random_subset_channels(S) -> None:
    # provenance: the explicit (lumped) expansion, qifldp's generic measures
    E = S.expand()
    for f in [q.bayes_capacity, q.asr, q.ldp_epsilon]:
        assert f(S) == pytest.approx(f(E), rel=1e-10, abs=1e-12)
    assert np.asarray(tradeoff_curve(S)) == pytest.approx(np.asarray(tradeoff_curve(E)), abs=1e-12)
    assert E.matrix.sum(axis=1) == pytest.approx(np.ones(S.k), abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(subset_channels(k), subset_channels(k))))
def test_refinement_of_random_subset_channels(pair) -> None:
    # provenance: HiGHS on the full explicit witness (no symmetry); certificates re-checked
    A, B = pair
    r = sym.refines(A, B)
    Ae, Be = A.expand().matrix, B.expand().matrix
    if r.holds:
        check_witness(Ae, np.asarray(r.witness), Be)
    else:
        G = np.asarray(r.counterexample.gain)
        assert q.g_vulnerability(Be, G) - q.g_vulnerability(Ae, G) > 0
    assert_agrees(r, A, B)
    # every channel refines itself (W = I)
    assert sym.refines(A, A).holds
