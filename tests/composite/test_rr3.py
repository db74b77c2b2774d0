"""Randomized response with m answers and the three-answer family (qifldp.protocols.rr3).

Provenance of the expected values: the eps of a matrix by hand (the largest column
ratio, written here); GRR(3) from Definition 3 and Remark 3 (p = e^eps / (e^eps + 2));
the estimator's exact covariance by enumerating every answer sequence of a few users
(their probabilities multiplied out here), and Monte Carlo bands from the stated
variance with fixed seeds; the EM estimate against the optimality (KKT) conditions of
the multinomial likelihood on the simplex; the design against a brute-force grid of
the eps-LDP polytope and random feasible points.
"""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ChannelError, InputTypeError, ParameterError
from qifldp.protocols.rr3 import rr3_design_grid, rr_total_variance

#: A non-symmetric three-answer matrix (rows: true answer; columns: reported answer).
P_ASYM = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]])


def _eps_by_hand(P):
    P = np.asarray(P)
    return max(
        math.log(P[x, y] / P[x2, y])
        for y in range(P.shape[1])
        for x in range(P.shape[0])
        for x2 in range(P.shape[0])
    )


# ---------------------------------------------------------------- the channel / object
def test_eps_is_the_largest_column_ratio():
    R = q.RR3(P_ASYM)
    assert R.eps == pytest.approx(_eps_by_hand(P_ASYM), rel=1e-12)
    assert R.m == 3 and R.channel() == q.Channel(P_ASYM)
    assert q.RR(P_ASYM, eps=R.eps).eps == R.eps  # its own eps passes the check
    with pytest.raises(ParameterError, match="eps >= "):
        q.RR(P_ASYM, eps=R.eps * 0.99)


def test_general_m_answers():
    P = np.full((5, 5), 0.1) + np.eye(5) * 0.5  # p = 0.6, others 0.1: e^eps = 6
    R = q.RR(P)
    assert R.m == 5 and R.eps == pytest.approx(math.log(6))
    assert R.channel() == q.grr(5, math.log(6))


def test_grr3_is_a_member_with_definition_3_parameters():
    for eps in (0.0, 0.5, 2.0):
        p = math.exp(eps) / (math.exp(eps) + 2)  # Remark 3
        R = q.RR3.grr(eps)
        expected = np.where(np.eye(3, dtype=bool), p, (1 - p) / 2)  # Definition 3
        assert np.allclose(R.matrix, expected, rtol=0, atol=1e-15)
        assert R.eps == pytest.approx(eps, abs=1e-12)
        assert R.params["p11"] == pytest.approx(p) and R.params["p23"] == pytest.approx((1 - p) / 2)


def test_named_entries_are_remark_5():
    names = {f"p{i + 1}{j + 1}": P_ASYM[i, j] for i in range(3) for j in range(3)}
    R = q.RR3(**names)
    assert R == q.RR3(P_ASYM) and hash(R) == hash(q.RR3(P_ASYM))
    assert R.params == pytest.approx(names)
    assert pickle.loads(pickle.dumps(R)) == R
    with pytest.raises(AttributeError, match="frozen"):
        R.m = 4  # type: ignore[misc]
    assert R.matrix.flags.writeable is False


def test_audit_uses_the_protocol_module():
    from qifldp.audit import rr3 as audit_rr3
    from qifldp.protocols import rr3

    assert audit_rr3.rr_channel is rr3.rr_channel
    assert audit_rr3.rr3_channel is rr3.rr3_channel and audit_rr3.rr_matrix is rr3.rr_matrix


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ([[0.5, 0.5]], ParameterError, "square"),
        ([[1.0]], ParameterError, "m >= 2"),
        ([[0.5, 0.6], [0.5, 0.5]], ChannelError, "sum"),
        ([[1.5, -0.5], [0.5, 0.5]], ChannelError, None),
        ([[np.nan, 1.0], [0.5, 0.5]], ParameterError, "NaN|finite"),
        ("abc", InputTypeError, None),
    ],
)
def test_bad_matrices(bad, error, match):
    with pytest.raises(error, match=match):
        q.RR(bad)


def test_rr3_bad_arguments():
    with pytest.raises(ParameterError, match="3x3"):
        q.RR3(np.eye(2))
    with pytest.raises(InputTypeError, match="p11 .. p33"):
        q.RR3(p14=0.5)
    with pytest.raises(ParameterError, match="missing"):
        q.RR3(p11=1.0)
    with pytest.raises(ParameterError, match="not both"):
        q.RR3(P_ASYM, p11=0.6)
    entries = {f"p{i}{j}": 0.5 for i in (1, 2, 3) for j in (1, 2, 3)}
    with pytest.raises(ParameterError, match="p12"):
        q.RR3(**{**entries, "p12": 2.0})


def test_sample_rows_follow_the_matrix():
    R = q.RR3(P_ASYM)
    n = 60_000
    xs = np.repeat([0, 1, 2], n)
    ys = R.sample(xs, rng=11)
    for x in range(3):
        freq = np.bincount(ys[xs == x], minlength=3) / n
        sd = np.sqrt(P_ASYM[x] * (1 - P_ASYM[x]) / n)
        assert np.all(np.abs(freq - P_ASYM[x]) < 5 * sd)
    with pytest.raises(ParameterError, match="0..2"):
        R.sample([3])


# ---------------------------------------------------------------- estimation
def _enumerated_covariance(P, xs):
    """Exact covariance of lambda-hat P^-1 over every answer sequence of the users xs."""
    Pinv = np.linalg.inv(P)
    n = len(xs)
    mean = np.zeros(3)
    second = np.zeros((3, 3))
    for ys in itertools.product(range(3), repeat=n):
        prob = math.prod(P[x, y] for x, y in zip(xs, ys, strict=True))
        est = np.bincount(ys, minlength=3) / n @ Pinv
        mean += prob * est
        second += prob * np.outer(est, est)
    return mean, second - np.outer(mean, mean)


def test_covariance_fixed_population_equals_enumeration():
    xs = [0, 0, 1, 2]  # pi = (1/2, 1/4, 1/4)
    mean, cov = _enumerated_covariance(P_ASYM, xs)
    pi = np.array([0.5, 0.25, 0.25])
    assert np.allclose(mean, pi, atol=1e-12)  # unbiased
    assert np.allclose(q.RR3(P_ASYM).covariance(pi, 4, model="fixed"), cov, atol=1e-12)


def test_covariance_iid_equals_enumeration():
    pi = np.array([0.5, 0.3, 0.2])
    n = 3
    lam = pi @ P_ASYM  # iid users: each answer is y with probability lambda_y
    Pinv = np.linalg.inv(P_ASYM)
    mean = np.zeros(3)
    second = np.zeros((3, 3))
    for ys in itertools.product(range(3), repeat=n):
        prob = math.prod(lam[y] for y in ys)
        est = np.bincount(ys, minlength=3) / n @ Pinv
        mean += prob * est
        second += prob * np.outer(est, est)
    cov = second - np.outer(mean, mean)
    R = q.RR3(P_ASYM)
    assert np.allclose(mean, pi, atol=1e-12)
    assert np.allclose(R.covariance(pi, n), cov, atol=1e-12)
    # the two models differ by the multinomial covariance of the true answers
    gap = R.covariance(pi, n) - R.covariance(pi, n, model="fixed")
    assert np.allclose(gap, (np.diag(pi) - np.outer(pi, pi)) / n, atol=1e-12)
    assert R.total_variance(pi, n) == pytest.approx(np.trace(cov))
    assert rr_total_variance(P_ASYM, pi) == pytest.approx(np.trace(cov) * n)


def test_covariance_monte_carlo_band():
    """T data sets of n iid users through sample(): sample covariance within 5 SE."""
    R = q.RR3(P_ASYM)
    pi = np.array([0.6, 0.3, 0.1])
    n, T = 500, 2000
    gen = np.random.default_rng(20261202)
    xs = gen.choice(3, size=n * T, p=pi)
    ys = R.sample(xs, rng=gen).reshape(T, n)
    est = np.stack([R.estimate(row) for row in ys])
    cov = R.covariance(pi, n)
    assert np.all(np.abs(est.mean(axis=0) - pi) < 5 * np.sqrt(np.diag(cov) / T))
    emp = np.cov(est, rowvar=False)
    var = np.diag(cov)
    se = np.sqrt((np.outer(var, var) + cov**2) / (T - 1))  # SE of a sample covariance
    assert np.all(np.abs(emp - cov) < 5 * se)


def test_estimate_is_the_inversion_estimate():
    R = q.RR3(P_ASYM)
    ys = [0, 0, 1, 2, 2, 2, 1]
    counts = np.bincount(ys, minlength=3) / len(ys)
    assert np.allclose(R.estimate(ys), counts @ np.linalg.inv(P_ASYM))
    assert np.all(R.estimate(ys, project=True) >= 0)
    with pytest.raises(ParameterError, match="method"):
        R.estimate(ys, method="mle")
    with pytest.raises(ParameterError, match="empty"):
        R.estimate([])
    with pytest.raises(ChannelError):
        q.RR(np.full((3, 3), 1 / 3)).estimate([0, 1])


def _loglik(P, counts, pi):
    return float(counts @ np.log(pi @ P))


def test_em_is_the_constrained_mle():
    R = q.RR3.grr(1.0)
    # inside the simplex: EM = inversion (the unconstrained maximum)
    ys = np.repeat([0, 1, 2], [40, 33, 27])
    assert R.estimate(ys).min() > 0
    assert np.allclose(R.estimate(ys, method="em"), R.estimate(ys), atol=1e-12)
    # outside: on the boundary, with the KKT conditions of the likelihood
    for ys in (np.repeat([0, 1, 2], [9, 1, 0]), np.repeat([0, 1, 2], [5, 5, 0]), [0, 0, 0, 1]):
        inv = R.estimate(ys)
        assert inv.min() < 0
        em = R.estimate(ys, method="em")
        assert np.all(em >= 0) and em.sum() == pytest.approx(1.0)
        counts = np.bincount(ys, minlength=3).astype(float)
        share = counts / counts.sum()
        grad = R.matrix @ (share / (em @ R.matrix))
        on = em > 1e-6
        assert np.allclose(grad[on], 1.0, atol=1e-6)  # stationary on its support
        assert np.all(grad[~on] <= 1.0 + 1e-6)  # no ascent direction off it
        # and no random point of the simplex has a higher likelihood
        others = np.random.default_rng(3).dirichlet(np.ones(3), size=2000)
        best = max(_loglik(R.matrix, counts, p) for p in others)
        assert _loglik(R.matrix, counts, em) >= best - 1e-9


def test_mse_table_inversion_matches_theory_and_em_wins_at_small_n():
    R = q.RR3.grr(1.0)
    pi = [0.8, 0.15, 0.05]
    rows = q.rr_estimator_mse(R, pi, [100, 2000], trials=400, rng=5)
    for row in rows:
        assert abs(row["inversion_mse"] - row["inversion_theory"]) < 5 * row["inversion_se"]
        assert row["inversion_theory"] == pytest.approx(R.total_variance(pi, int(row["n"])))
    assert rows[0]["em_mse"] < rows[0]["inversion_mse"]  # measured: EM's clipping helps
    assert rows[1]["em_over_inversion"] <= 1.0 + 1e-9
    with pytest.raises(InputTypeError, match="RR"):
        q.rr_estimator_mse(P_ASYM, pi, [10])
    with pytest.raises(ParameterError, match="10\\^8"):
        q.rr_estimator_mse(R, pi, [10**6], trials=1000)


# ---------------------------------------------------------------- design
def _random_feasible(eps, count, seed):
    """Dirichlet rows mixed with the uniform matrix until eps-LDP (written here)."""
    gen = np.random.default_rng(seed)
    conc = gen.choice([0.3, 1.0, 3.0], size=(count, 1, 1))
    P = gen.gamma(np.broadcast_to(conc, (count, 3, 3)))
    P /= P.sum(axis=2, keepdims=True)
    U = np.full((3, 3), 1 / 3)

    def ok(t):
        Q = (1 - t[:, None, None]) * P + t[:, None, None] * U
        return np.all(Q.max(axis=1) <= math.exp(eps) * Q.min(axis=1), axis=1)

    low, high = np.zeros(count), np.ones(count)
    for _ in range(40):  # the least feasible mixing weight, by bisection
        mid = (low + high) / 2
        good = ok(mid)
        high = np.where(good, mid, high)
        low = np.where(good, low, mid)
    t = high + (1 - high) * gen.random(count) ** 3  # on the boundary or inside
    return (1 - t[:, None, None]) * P + t[:, None, None] * U


def _total_variance(Ps, pi):
    """sum_y lambda_y |P^-1[y]|^2 - |pi|^2, from the iid covariance formula (here)."""
    pi = np.asarray(pi)
    inv = np.linalg.inv(Ps)
    lam = np.einsum("x,nxy->ny", pi, Ps)
    return np.einsum("ny,nyx->n", lam, inv**2) - pi @ pi


@pytest.mark.parametrize("eps", [0.5, 2.0])
@pytest.mark.parametrize("pi", [[1 / 3, 1 / 3, 1 / 3], [0.7, 0.2, 0.1], [0.55, 0.45, 0.0]])
def test_design_is_eps_ldp_and_beats_every_brute_force_point(eps, pi):
    d = q.rr3_design(pi, eps, starts=8)
    assert d.rr.eps <= eps * (1 + 1e-12) + 1e-12  # checked on the channel
    assert d.total_variance == pytest.approx(rr_total_variance(d.rr, pi), rel=1e-12)
    assert d.total_variance <= d.grr_total_variance + 1e-12
    assert d.grr_total_variance == pytest.approx(rr_total_variance(q.RR3.grr(eps), pi))
    _, grid_value = rr3_design_grid(pi, eps, steps=12)
    assert d.total_variance <= grid_value
    Ps = _random_feasible(eps, 20_000, seed=int(eps * 10))
    Ps = Ps[np.abs(np.linalg.det(Ps)) > 1e-9]
    assert np.all(Ps.max(axis=1) <= math.exp(eps) * (1 + 1e-9) * Ps.min(axis=1))
    assert d.total_variance <= _total_variance(Ps, pi).min() + 1e-12
    assert d.total_variance == pytest.approx(_total_variance(d.rr.matrix[None], pi)[0])


def test_design_uniform_prior_grr_is_optimal_up_to_relabelling():
    """The finding: at the uniform distribution the optimum is GRR(3) (columns permuted)."""
    for eps in (0.5, 3.0):
        d = q.rr3_design([1 / 3] * 3, eps, starts=8)
        assert d.total_variance == pytest.approx(d.grr_total_variance, rel=1e-7)
        G = q.grr(3, eps).matrix
        perms = [G[:, list(p)] for p in itertools.permutations(range(3))]
        assert any(np.allclose(d.rr.matrix, Gp, atol=1e-4) for Gp in perms)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_grr_optimal_at_every_prior_reduces_to_the_point_masses(eps):
    """Why GRR(3) stays optimal for skewed priors (issue 22): the trace is
    sum_x pi_x c_x(P) - |pi|^2, so min_P >= sum_x pi_x min_P c_x(P); GRR's c_x being
    equal for every x is not the reason: GRR must minimise c_x for each x, i.e. be the
    optimum at each point mass. Checked here at the point masses (design and 20 000
    random feasible matrices), and the bound then holds at every prior of the grid."""
    G = q.grr(3, eps).matrix
    c_grr = _total_variance(G[None], [1.0, 0.0, 0.0])[0] + 1.0  # c_0(GRR)
    # equal per-input cost: c_x(GRR) is the same for every x (the notebook's old remark)
    for x in range(3):
        pi = np.eye(3)[x]
        assert _total_variance(G[None], pi)[0] + 1.0 == pytest.approx(c_grr, rel=1e-12)
    Ps = _random_feasible(eps, 20_000, seed=7)
    Ps = Ps[np.abs(np.linalg.det(Ps)) > 1e-9]
    for x in range(3):
        pi = np.eye(3)[x]
        c = _total_variance(Ps, pi) + 1.0  # c_x(P) of every sampled design
        assert c.min() >= c_grr * (1 - 1e-12)
        d = q.rr3_design(list(pi), eps, starts=6)
        assert d.total_variance == pytest.approx(c_grr - 1.0, rel=1e-7)
    # hence at any prior: sum_x pi_x c_x(P) >= c_grr for every sampled P
    gen = np.random.default_rng(3)
    for pi in gen.dirichlet(np.ones(3), size=20):
        assert _total_variance(Ps, pi).min() >= c_grr - pi @ pi - 1e-12


def test_design_bad_input():
    with pytest.raises(ParameterError, match="eps must be > 0"):
        q.rr3_design([1 / 3] * 3, 0.0)
    with pytest.raises(ParameterError, match="sum to 1"):
        q.rr3_design([0.5, 0.5, 0.5], 1.0)
    with pytest.raises(ParameterError, match="length m = 3"):
        q.rr3_design([0.5, 0.5], 1.0)
