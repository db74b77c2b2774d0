"""dBitFlipPM (Ding, Kulkarni, Yekhanin, NeurIPS 2017).

Expected values: the channel by brute force over the sampled buckets and bits
(tests/protocols/_enumeration.py); eps and the Bayes capacity from that enumeration;
Monte Carlo with seeded normal and chi-square bands.
"""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ParameterError, UnsupportedKindError
from tests.protocols._enumeration import assert_unbiased_with_variance, enumerate_dbitflip


@pytest.mark.parametrize(("k", "b", "d"), [(3, 3, 1), (4, 4, 2), (5, 2, 2), (6, 3, 2), (4, 4, 4)])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_channel_equals_enumeration_with_its_eps_and_capacity(k, b, d, eps):
    P = q.protocol("dbitflip", k, eps, b=b, d=d)
    outs, M = enumerate_dbitflip(k, eps, b, d)
    C = P.channel()
    assert list(C.outputs) == outs
    np.testing.assert_allclose(C.matrix, M, atol=1e-15)
    # the paper states eps; the channel has eps for d >= 2 and eps / 2 for d = 1
    assert q.ldp_epsilon(q.Channel(M)) == pytest.approx(P.closed_form.ldp_epsilon(), abs=1e-12)
    assert P.closed_form.ldp_epsilon() == (eps if d >= 2 else eps / 2)
    ml = float(M.max(axis=0).sum())
    assert P.closed_form.bayes_capacity() == pytest.approx(ml, rel=1e-12)


def test_symbolic_twin():
    P = q.protocol("dbitflip", 4, 1.3, b=4, d=2)
    np.testing.assert_allclose(P.symbolic().evaluate().matrix, P.channel().matrix, atol=1e-14)
    assert float(P.closed_form.symbolic_bayes_capacity()) == pytest.approx(
        P.closed_form.bayes_capacity()
    )


@pytest.mark.parametrize(("b", "d"), [(4, 1), (4, 3)])
def test_sample_then_estimate_is_unbiased_with_the_variance(b, d):
    P = q.protocol("dbitflip", 4, 2.0, b=b, d=d)
    assert_unbiased_with_variance(P, np.array([40, 30, 20, 10]) * 10, seed=b + d)


@pytest.mark.parametrize("bitmask", [True, False])
def test_sampler_follows_the_channel(bitmask, monkeypatch):
    # both routes of the sampler (bit masks for b <= 64, the (n, b) mask beyond, forced)
    from scipy import stats

    from qifldp.protocols import dbitflip

    if not bitmask:
        monkeypatch.setattr(dbitflip, "BITMASK_MAX_B", 0)
    P = q.protocol("dbitflip", 5, 1.5, b=4, d=2)
    outs, M = enumerate_dbitflip(5, 1.5, 4, 2)
    index = {out: i for i, out in enumerate(outs)}
    n = 20000
    for x in (0, 4):
        r = P.sample(np.full(n, x), rng=x + 10 * bitmask)
        J = np.nonzero(r >= 0)[1].reshape(n, 2)
        bits = np.take_along_axis(r, J, axis=1)
        cols = [index[(tuple(j), tuple(s))] for j, s in zip(J.tolist(), bits.tolist(), strict=True)]
        observed = np.bincount(cols, minlength=len(outs))
        assert stats.chisquare(observed, n * M[x]).pvalue > 1e-6


def test_bucketed_estimates_and_refusals():
    P = q.protocol("dbitflip", 6, 3.0, b=3, d=2)
    xs = np.repeat(np.arange(6), [100, 100, 300, 100, 200, 200])
    est = P.estimate(P.sample(np.tile(xs, 20), rng=0))
    np.testing.assert_allclose(est, [0.2, 0.4, 0.4], atol=0.05)  # buckets {0,1}, {2,3}, {4,5}
    with pytest.raises(UnsupportedKindError, match="no symmetric channel"):
        P.symmetric()
    with pytest.raises(ParameterError, match="b"):
        q.protocol("dbitflip", 3, 1.0, b=4)
    with pytest.raises(ParameterError, match="-1"):
        P.estimate([[2, 0, 0]])
    guesses = P.attack(P.sample(xs, rng=1), rng=2)
    assert guesses.shape == xs.shape and guesses.max() < 6
