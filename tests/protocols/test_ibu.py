"""The generic IBU / EM server: the maximum-likelihood distribution of any channel.

Expected values: the maximiser of the multinomial log-likelihood found independently
by scipy's SLSQP on the simplex; the same reports on the explicit and the symmetric
channel; the certificate (the duality gap) recomputed here from the gradient.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError


def _loglik(pi, P, counts):
    lam = np.asarray(pi) @ P
    return float(np.sum(counts * np.log(np.maximum(lam, 1e-300))) / np.sum(counts))


def _slsqp(P, counts):
    k = P.shape[0]
    res = minimize(
        lambda x: -_loglik(x, P, counts),
        np.full(k, 1.0 / k),
        method="SLSQP",
        bounds=[(0.0, 1.0)] * k,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1.0}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success
    return res.x


@pytest.mark.parametrize(
    ("C", "counts"),
    [
        (q.grr(3, 1.0), [50, 30, 20]),
        (q.grr(4, 0.5), [10, 0, 3, 1]),
        (q.oue(3, 1.0), [5, 9, 2, 7, 4, 1, 3, 6]),
        (q.Channel([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]]), [4, 4, 10]),
    ],
)
def test_ibu_is_the_maximum_likelihood_distribution(C, counts):
    P, c = C.matrix, np.asarray(counts, dtype=float)
    pi, info = q.ibu(counts, C, info=True)
    assert info.converged and info.gap <= 1e-10
    assert pi.min() >= 0 and pi.sum() == pytest.approx(1.0)
    ref = _slsqp(P, c)
    # the certificate bounds the likelihood gap; SLSQP's optimum is no better
    assert _loglik(pi, P, c) >= _loglik(ref, P, c) - 1e-9
    np.testing.assert_allclose(pi, ref, atol=2e-4)
    # the gap recomputed: max_x Σ_y P[x, y] (c_y / n) / (π P)_y - 1
    grad = P @ (c / c.sum() / (pi @ P))
    assert grad.max() - 1.0 <= 1e-10 + 1e-12


def test_several_data_sets_at_once():
    C = q.grr(3, 1.0)
    both = q.ibu([[50, 30, 20], [10, 10, 80]], C)
    np.testing.assert_allclose(both[0], q.ibu([50, 30, 20], C), atol=1e-12)
    np.testing.assert_allclose(both[1], q.ibu([10, 10, 80], C), atol=1e-12)


def test_symmetric_channel_from_reports_equals_explicit_counts():
    rng = np.random.default_rng(0)
    # GRR: reports are values
    ys = rng.integers(0, 4, size=300)
    sym = q.ibu(ys, q.symmetric.grr(4, 1.5))
    exp = q.ibu(np.bincount(ys, minlength=4), q.grr(4, 1.5))
    np.testing.assert_allclose(sym, exp, atol=1e-7)
    # OUE: reports are bit vectors, the explicit outputs all 4-bit tuples
    P = q.protocol("oue", 4, 1.5)
    bits = P.sample(rng.integers(0, 4, size=400), rng=1)
    C = P.channel()
    index = {y: j for j, y in enumerate(C.outputs)}
    counts = np.bincount([index[tuple(int(b) for b in row)] for row in bits], minlength=16)
    np.testing.assert_allclose(q.ibu(bits, P.symmetric()), q.ibu(counts, C), atol=1e-7)


def test_ibu_on_a_longitudinal_oracle_at_large_k():
    P = q.protocol("l_grr", 1000, 10.0, 6.0)
    xs = np.repeat([0, 1, 2], [3000, 2000, 1000])
    ys = P.sample(xs, rng=0)
    est, info = q.ibu(ys, P.symmetric(), info=True)
    assert est.shape == (1000,) and info.converged
    assert est.argsort()[::-1][:3].tolist() == [0, 1, 2]
    # a maximum of the likelihood: at least that of the true distribution
    a, b = P.support_probabilities()
    truth = np.zeros(1000)
    truth[:3] = [0.5, 1 / 3, 1 / 6]

    def loglik(pi):
        return np.sum(np.log(b + (a - b) * pi[ys]))

    assert loglik(est) >= loglik(truth)


def test_rr3_em_is_ibu():
    R = q.RR3.grr(1.0)
    reports = [0, 0, 0, 1, 2, 2, 1, 0]
    counts = np.bincount(reports, minlength=3)
    np.testing.assert_allclose(R.estimate(reports, method="em"), q.ibu(counts, R.channel()))


def test_not_converged_is_stated():
    _, info = q.ibu([50, 30, 20], q.grr(3, 1.0), max_iter=1, info=True)
    assert not info.converged and info.gap > 1e-10 and info.iterations == 1


def test_bad_input():
    with pytest.raises(ParameterError, match="one entry per output"):
        q.ibu([1, 2], q.grr(3, 1.0))
    with pytest.raises(ParameterError, match="nonnegative with a positive total"):
        q.ibu([0, 0, 0], q.grr(3, 1.0))
    with pytest.raises(ParameterError, match="no input of the channel can give"):
        q.ibu([1, 1, 1], q.Channel([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]))
    with pytest.raises(ParameterError, match="values in 0..2"):
        q.ibu([0, 5], q.symmetric.grr(3, 1.0))
    with pytest.raises(ParameterError, match="impossible"):
        q.ibu(np.ones((2, 3), dtype=bool), q.symmetric.grr(3, 1.0))
    with pytest.raises(InputTypeError):
        q.ibu([1, 2], "grr")
    with pytest.raises(ParameterError, match="tol"):
        q.ibu([1, 2, 3], q.grr(3, 1.0), tol=-1.0)


def test_every_output_order_gives_the_same_estimate():
    # permuting the outputs (and the counts alike) leaves the estimate unchanged
    C = q.oue(3, 1.0)
    counts = np.array([5, 9, 2, 7, 4, 1, 3, 6])
    base = q.ibu(counts, C)
    for perm in itertools.islice(itertools.permutations(range(8)), 0, 40, 7):
        D = q.Channel(C.matrix[:, list(perm)])
        np.testing.assert_allclose(q.ibu(counts[list(perm)], D), base, atol=1e-9)
