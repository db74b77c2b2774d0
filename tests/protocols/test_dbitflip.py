"""dBitFlipPM (Ding, Kulkarni, Yekhanin, NeurIPS 2017).

Expected values: the channel by brute force over the sampled buckets and bits
(tests/protocols/_enumeration.py); eps and the Bayes capacity from that enumeration;
Monte Carlo with seeded normal and chi-square bands. The symmetric channel (b = k,
d = 1 or d = k) against that enumeration, its exact log-ratio proved on the symbolic
twin, its refinement verdicts against those of the enumerated channels, and at
k = 10^4 against the verdicts proved by hand (post-processing, capacity).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import ParameterError, SizeError, UnsupportedKindError
from tests.protocols._enumeration import assert_unbiased_with_variance, enumerate_dbitflip
from tests.protocols._restriction import (
    assert_large_restriction,
    assert_restriction_is_the_merged_rows,
)


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
    with pytest.raises(UnsupportedKindError, match="no symmetric channel: .*b = 3 < k = 6"):
        P.symmetric()
    assert P.lumpable is False
    with pytest.raises(ParameterError, match="b"):
        q.protocol("dbitflip", 3, 1.0, b=4)
    with pytest.raises(ParameterError, match="-1"):
        P.estimate([[2, 0, 0]])
    guesses = P.attack(P.sample(xs, rng=1), rng=2)
    assert guesses.shape == xs.shape and guesses.max() < 6


# -- the symmetric channel: b = k buckets, d = 1 or d = k ---------------------------------


def _lumped_enumeration(k, eps, d):
    """The enumerated channel with its columns in the order of ``symmetric().expand()``.

    d = 1: the subset {j} is the report (j, 1) and the k - 1 values other than j the
    report (j, 0); at k = 2 these are the same subset, and its column is the sum of the
    two (they are equal: p / 2 on j, q / 2 off it). d = k: the k-bit tuple s is (J, s)."""
    outs, M = enumerate_dbitflip(k, eps, k, d)
    index = {out: i for i, out in enumerate(outs)}
    everything = tuple(range(k))
    if d == k:
        return lambda label: M[:, index[(everything, tuple(label))]]

    def column(label):
        S = tuple(label)
        cols = [index[((j,), (1,))] for j in S if len(S) == 1]
        cols += [index[((j,), (0,))] for j in everything if len(S) == k - 1 and j not in S]
        assert cols, label
        return M[:, cols].sum(axis=1)

    return column


CASES = [(k, d) for k in range(2, 8) for d in sorted({1, k})]


@pytest.mark.parametrize(("k", "d"), CASES)
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 8.0, 40.0])
def test_symmetric_expands_to_the_enumeration(k, d, eps):
    P = q.protocol("dbitflip", k, eps, d=d)
    assert P.lumpable is True
    S = P.symmetric()
    E = S.expand()
    column = _lumped_enumeration(k, eps, d)
    want = np.column_stack([column(label) for label in E.outputs])
    # every enumerated column is used once: the expansion is the channel up to labels
    n_out = 2 * k if d == 1 else 2**k
    assert E.shape[1] == (n_out if k > 2 or d == k else n_out // 2)
    np.testing.assert_allclose(E.matrix, want, rtol=0, atol=1e-15)
    np.testing.assert_allclose(want.sum(axis=1), 1.0, atol=1e-14)


@pytest.mark.parametrize(("k", "d"), CASES)
@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_symmetric_measures_equal_the_enumeration(k, d, eps):
    S = q.protocol("dbitflip", k, eps, d=d).symmetric()
    M = enumerate_dbitflip(k, eps, k, d)[1]
    # Bayes capacity Σ_y max_x and the LDP epsilon max ln ratio over each column
    assert q.bayes_capacity(S) == pytest.approx(float(M.max(axis=0).sum()), rel=1e-13)
    want_eps = float(np.log(M.max(axis=0) / M.min(axis=0)).max())
    assert q.ldp_epsilon(S) == pytest.approx(want_eps, rel=1e-12)
    assert q.ldp_epsilon(S) == pytest.approx(eps / 2 if d == 1 else eps, rel=1e-15)
    assert S.exact_log_ratio == (eps / 2 if d == 1 else eps)


def test_every_bucket_sampled_is_sue():
    # d = k: each value's own bit and every other bit, SUE's at eps (the module's claim)
    for k, eps in ((2, 1.0), (5, 0.3), (1000, 2.0)):
        assert q.protocol("dbitflip", k, eps, d=k).symmetric() == q.symmetric.sue(k, eps)


@pytest.mark.parametrize("k", [3, 4])
def test_exact_log_ratio_of_one_sampled_bucket_is_half_eps(k):
    """Every column of the symbolic twin (eps a positive symbol) takes one value on its
    subset and one off it, whose ratio simplifies to e^(eps/2) (d = 1, b = k)."""
    sp = pytest.importorskip("sympy")
    eps = sp.Symbol("eps", positive=True)
    C = q.protocol("dbitflip", k, 1.0).symbolic(eps=eps)
    for y, (J, s) in enumerate(C.outputs):
        inside = set(J) if s == (1,) else set(range(k)) - set(J)
        a = {C.matrix[x, y] for x in inside}
        b = {C.matrix[x, y] for x in range(k) if x not in inside}
        assert len(a) == len(b) == 1
        assert sp.simplify(a.pop() / b.pop() - sp.exp(eps / 2)) == 0


def test_symmetric_refusals_name_why():
    for k, b, d in ((6, 3, 1), (5, 2, 2), (4, 4, 2), (5, 5, 3)):
        P = q.protocol("dbitflip", k, 1.0, b=b, d=d)
        assert P.lumpable is False
        why = "buckets group the values" if b < k else "splits the values in three classes"
        with pytest.raises(
            UnsupportedKindError, match=f"dbitflip has no symmetric channel: .*{why}"
        ):
            P.symmetric()


ORACLES = ("sue", "oue", "grr", "blh")


@pytest.mark.parametrize("k", [3, 4, 5])
@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
@pytest.mark.parametrize("sampled", ["one", "all"])
def test_symmetric_refinements_agree_with_the_enumerated_channels(k, eps, sampled):
    # the reference: qifldp.refines on the brute-force channel and the explicit oracles
    d = 1 if sampled == "one" else k
    D = q.protocol("dbitflip", k, eps, d=d)
    De = q.Channel(enumerate_dbitflip(k, eps, k, d)[1])
    for name in ORACLES:
        O = q.protocol(name, k, eps)
        for A, B, Ae, Be in (
            (O.symmetric(), D.symmetric(), O.channel(), De),
            (D.symmetric(), O.symmetric(), De, O.channel()),
        ):
            got, want = q.refines(A, B), q.refines(Ae, Be)
            assert bool(got.holds) == bool(want.holds), (name, A, B)


def _orbit_image(r, A, B):
    """(P_in, P_out) of A·W for the orbit witness W of ``r``, by B's sizes, recomputed
    from the orbit masses: an output S of A (size s) sent to T (size t, |S ∩ T| = j)
    holds the input x in T w.p. j / s if x in S, (t - j) / (k - s) otherwise."""
    W, k = r.witness, A.k
    a_in, a_out = (dict(zip(A.sizes.tolist(), m.tolist(), strict=True)) for m in A.class_masses())
    got_in, got_out = dict.fromkeys(B.sizes.tolist(), 0.0), dict.fromkeys(B.sizes.tolist(), 0.0)
    for s, t, j, u in zip(W.s.tolist(), W.t.tolist(), W.j.tolist(), W.mass.tolist(), strict=True):
        pin, pout = a_in.get(s, 0.0), a_out.get(s, 0.0)
        f_in = j / s if s else 0.0
        f_out = (t - j) / (k - s) if s < k else 0.0
        got_in[t] += u * (pin * f_in + pout * f_out)
        got_out[t] += u * (pin * (1 - f_in) + pout * (1 - f_out))
    return got_in, got_out


@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_sue_refines_dbitflip_at_ten_thousand(eps):
    # SUE ⊑ dBitFlipPM (b = k, d = 1): dBitFlipPM is SUE followed by keeping one uniformly
    # sampled bit, a post-processing. The converse fails by the Bayes capacity: dBitFlipPM's
    # is Σ_j (p / k + (1 - q) / k) = 2 p, below SUE's (the closed form of qifldp.formulas),
    # so the uniform prior's identity gain separates them by (ML_SUE - 2 p) / k.
    k = 10**4
    D = q.protocol("dbitflip", k, eps).symmetric()
    U = q.protocol("sue", k, eps).symmetric()
    r = q.refines(U, D)
    assert r.holds
    W = r.witness
    assert np.all(W.mass >= 0)
    for s in np.unique(W.s):  # each output of A goes somewhere
        assert W.mass[W.s == s].sum() == pytest.approx(1.0, abs=1e-9)
    got_in, got_out = _orbit_image(r, U, D)
    for t, want_in, want_out in zip(D.sizes.tolist(), *D.class_masses(), strict=True):
        assert got_in[t] == pytest.approx(want_in, abs=1e-9)
        assert got_out[t] == pytest.approx(want_out, abs=1e-9)
    back = q.refines(D, U)
    assert not back.holds
    p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
    ml_sue = q.formulas.bayes_capacity_sue(k, eps)
    assert ml_sue > 2 * p
    assert back.counterexample.gap == pytest.approx((ml_sue - 2 * p) / k, rel=1e-9)


def test_exact_log_ratio_only_where_halving_eps_is_exact():
    # eps = 5e-324 (the least subnormal) halves to 0.0: the real eps / 2 is no float
    assert q.protocol("dbitflip", 4, 5e-324).symmetric().exact_log_ratio is None
    assert q.protocol("dbitflip", 4, 1e-300).symmetric().exact_log_ratio == 5e-301


# ---------------------------------------------------------------- restriction to rows


@pytest.mark.parametrize(
    ("k", "eps", "b", "d"),
    [
        (2, 1.0, 2, 1),
        (4, 0.5, 2, 2),
        (5, 1.0, 5, 2),
        (7, 2.0, 3, 1),
        (9, 1.0, 4, 3),
        (8, 0.0, 8, 1),
    ],
)
def test_restricted_is_the_channel_rows_with_equal_columns_merged(k, eps, b, d):
    assert_restriction_is_the_merged_rows(q.protocol("dbitflip", k, eps, b=b, d=d))


@pytest.mark.parametrize("k", [10**4, 10**5])
def test_restricted_where_the_channel_is_refused(k):
    P = q.protocol("dbitflip", k, 1.0)  # b = k, d = 1: value x is bucket x
    with pytest.raises(SizeError):
        P.channel()
    R = assert_large_restriction(P)
    # outputs (J, s): a bucket J = (x,) of x in 0..7 is its own column pair; the k - 8 other
    # buckets give the bits of another bucket on every row (two merged columns)
    assert R.outputs == (
        *(((x,), (s,)) for x in range(8) for s in (0, 1)),
        ((8,), (0,)),
        ((8,), (1,)),
    )
    p, qq = P.params["p"], P.params["q"]
    own = np.eye(8, dtype=bool)[:, :, None]
    bit = np.array([False, True])[None, None, :]
    single = np.where(own, np.where(bit, p, 1 - p), np.where(bit, qq, 1 - qq)) / k
    assert np.array_equal(R.matrix[:, :16], single.reshape(8, 16))
    assert np.all(R.matrix[:, 16] == (k - 8) * ((1 - qq) / k))
    assert np.all(R.matrix[:, 17] == (k - 8) * (qq / k))


def test_restricted_refuses_rows_past_the_entry_limit():
    P = q.protocol("dbitflip", 10**4, 1.0, d=2)  # C(10^4, 2) 4 outputs
    with pytest.raises(
        SizeError, match=r"d=2\).restricted\(\) of 1 inputs would have 1 x 199980000"
    ):
        P.restricted([0])
