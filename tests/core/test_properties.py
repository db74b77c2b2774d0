"""Hypothesis property tests of the measures and operators on random channels."""

import numpy as np
from hypothesis import given, settings, strategies as st

import qifldp as q
from tests.strategies import channels, gains, priors

SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(data=st.data())
def test_no_negative_leakage_for_nonnegative_gains(data):
    C = data.draw(channels())
    pi = data.draw(priors(C.n_inputs))
    G = data.draw(gains(C.n_inputs))
    assert q.g_vulnerability(C, G, pi) >= q.prior_g_vulnerability(G, pi) - 1e-12


@SETTINGS
@given(data=st.data())
def test_bayes_capacity_is_max_leakage_attained_by_uniform(data):
    C = data.draw(channels())
    pi = data.draw(priors(C.n_inputs))
    ml = q.bayes_capacity(C)
    assert q.multiplicative_leakage(C, prior=pi) <= ml * (1 + 1e-12)
    # the uniform prior attains it (the book, Thm. 7.2)
    assert abs(q.multiplicative_leakage(C) - ml) <= 1e-12 * ml


@SETTINGS
@given(data=st.data())
def test_reduced_preserves_every_measure(data):
    C = data.draw(channels(max_outputs=5))
    # duplicate and rescale some columns so that reduction has work to do
    M = np.hstack([C.matrix * 0.5, C.matrix * 0.5, np.zeros((C.n_inputs, 1))])
    D = q.Channel(M)
    R = D.reduced()
    pi = data.draw(priors(C.n_inputs))
    G = data.draw(gains(C.n_inputs, nonnegative=False))
    assert R.n_outputs <= C.n_outputs
    assert abs(q.bayes_capacity(R) - q.bayes_capacity(D)) <= 1e-12
    assert abs(q.g_vulnerability(R, G, pi) - q.g_vulnerability(D, G, pi)) <= 1e-12
    eR, eD = q.ldp_epsilon(R), q.ldp_epsilon(D)
    assert eR == eD or abs(eR - eD) <= 1e-9


@SETTINGS
@given(C=channels())
def test_cascade_with_identity_is_noop(C):
    left = q.cascade(q.Channel(np.eye(C.n_inputs)), C)
    right = q.cascade(C, q.Channel(np.eye(C.n_outputs)))
    assert left.isclose(C, atol=1e-15, labels=False) and right.isclose(C, atol=1e-15)


@SETTINGS
@given(A=channels(max_inputs=3, max_outputs=3), B=channels(max_inputs=3, max_outputs=3))
def test_ldp_epsilon_adds_under_parallel(A, B):
    total = q.ldp_epsilon(q.parallel(A, B))
    expected = q.ldp_epsilon(A) + q.ldp_epsilon(B)
    assert total == expected or abs(total - expected) <= 1e-9


@SETTINGS
@given(C=channels())
def test_max_case_capacity_at_least_bayes_capacity(C):
    assert q.max_case_capacity(C) >= q.bayes_capacity(C) * (1 - 1e-12)


@SETTINGS
@given(data=st.data())
def test_hyper_reproduces_vulnerabilities(data):
    C = data.draw(channels())
    pi = data.draw(priors(C.n_inputs))
    H = q.hyper(C, pi)
    assert abs(H.outer.sum() - 1) <= 1e-12
    assert abs(H.outer @ H.posteriors.max(axis=1) - q.bayes_vulnerability(C, pi)) <= 1e-9
