"""Hadamard Response with blocks (Acharya, Sun, Zhang, AISTATS 2019, the general-eps
scheme) and Hadamard encoding with t coefficients (pure-ldp's Hadamard mechanism).

Expected values: the channels from scipy's Sylvester-Hadamard matrices
(tests/protocols/_enumeration.py); eps and the Bayes capacity by enumeration of those
channels; the sampler by a chi-square test against the enumerated rows; the estimator
and its variance by seeded Monte Carlo with normal and chi-square bands.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from scipy.linalg import hadamard as scipy_hadamard

import qifldp as q
from qifldp.errors import ParameterError, SizeError, UnsupportedKindError
from qifldp.protocols import he_multi as he_multi_module, hr_block as hr_block_module
from qifldp.protocols.he_multi import HEMulti, affine_subspaces, smallest_cell
from qifldp.protocols.hr import hr_membership
from qifldp.protocols.hr_block import HRBlock, hr_blocks
from tests.protocols._enumeration import (
    assert_gram_form_matches,
    assert_unbiased_with_variance,
    enumerate_he,
    enumerate_he_multi,
    enumerate_hr,
    enumerate_hr_block,
)
from tests.protocols._restriction import (
    assert_large_restriction,
    assert_restriction_is_the_merged_rows,
)

HR_CASES = [(2, 1.0, 2), (3, 2.0, 2), (5, 2.0, 4), (7, 0.5, 1), (9, 3.0, 4), (6, 3.0, 12)]


def _check_against_enumeration(P, M, eps) -> None:
    """The channel equals the enumeration M; its true eps and Bayes capacity are M's."""
    C = P.channel()
    np.testing.assert_allclose(C.matrix, M, atol=1e-15)
    assert q.ldp_epsilon(C) == pytest.approx(eps, abs=1e-12)
    assert P.closed_form.ldp_epsilon() == eps
    assert P.closed_form.bayes_capacity() == pytest.approx(M.max(axis=0).sum(), rel=1e-12)


@pytest.mark.parametrize(("k", "eps", "B"), HR_CASES)
def test_hr_block_channel_equals_the_enumeration(k, eps, B):
    _check_against_enumeration(
        q.protocol("hr_block", k, eps, B=B), enumerate_hr_block(k, eps, B), eps
    )


def test_hr_block_defaults_and_its_one_block_case():
    # the paper's B = 2^floor(log2 min(e^eps, 2k)), computed here from e^eps and 2k
    for k, eps in ((100, 1.0), (100, 3.0), (3, 5.0), (20, 0.2)):
        bound = min(math.exp(eps), 2 * k)
        expected = 1
        while 2 * expected <= bound:
            expected *= 2
        assert hr_blocks(k, eps) == q.protocol("hr_block", k, eps).params["B"] == expected
    # one block is the simple Hadamard Response
    for k in (3, 6):
        np.testing.assert_allclose(
            q.protocol("hr_block", k, 1.3, B=1).channel().matrix, enumerate_hr(k, 1.3), atol=1e-15
        )


def test_hr_block_symbolic_twins():
    P = q.protocol("hr_block", 5, 1.5, B=2)
    np.testing.assert_allclose(P.symbolic().evaluate().matrix, P.channel().matrix, atol=1e-14)
    sym = float(P.closed_form.symbolic_bayes_capacity())
    assert sym == pytest.approx(P.closed_form.bayes_capacity(), rel=1e-12)


def test_hr_block_sampler_estimator_and_variance():
    P = q.protocol("hr_block", 5, 2.0, B=2)  # blocks of 3 and 2 values
    n, M = 30000, P.channel().matrix
    for x in (0, 4):
        ys = P.sample(np.full(n, x), rng=x)
        observed = np.bincount(ys, minlength=M.shape[1])
        assert stats.chisquare(observed, n * M[x]).pvalue > 1e-6
    var, f, n = assert_unbiased_with_variance(P, np.array([50, 40, 30, 20, 10]) * 4, seed=5)
    # the variance's form, against the score's moments enumerated on the channel
    scores = np.where(P.members(np.arange(5)[:, None], np.arange(M.shape[1])), 1.0, 0.0)
    block = np.arange(M.shape[1])[None, :] // P.params["b"] == (np.arange(5) // 3)[:, None]
    scores = np.where(block, 2 * scores - 1, 0.0)  # (v, y): +1, -1 or 0
    c = math.expm1(2.0) ** -1 * (math.exp(2.0) + 3)
    per_user = M @ (c * scores).T  # (x, v): E[score of v | x] times c
    second = M @ (c * scores).T ** 2
    exact = (f @ second - (f[:, None] * per_user**2).sum(axis=0)) / n
    np.testing.assert_allclose(var, exact, rtol=1e-12)


def test_hr_block_attack_and_refusals():
    P = q.protocol("hr_block", 9, 3.0, B=4)
    ys = P.sample(np.arange(9).repeat(20), rng=0)
    guesses = P.attack(ys, rng=1)
    inside = P.members(guesses, ys)
    somewhere = P.members(np.arange(9)[:, None], ys).any(axis=0)
    assert np.all(inside | ~somewhere)
    with pytest.raises(UnsupportedKindError, match="no symmetric channel"):
        P.symmetric()
    with pytest.raises(ParameterError, match="B"):
        q.protocol("hr_block", 3, 1.0, B=7)
    with pytest.raises(ParameterError, match="outputs in 0..15"):
        P.estimate([0, 16])
    with pytest.raises(ParameterError, match="eps = 0"):
        q.protocol("hr_block", 3, 0.0).estimate([0])
    with pytest.raises(SizeError):
        q.protocol("hr_block", 10**6, 1.0, B=1).channel()
    assert q.protocol("Hadamard-Response-General", 4, 1.0) == HRBlock(4, 1.0)


HE_CASES = [(2, 1.0, 1), (2, 0.5, 2), (3, 2.0, 2), (5, 1.0, 2), (4, 3.0, 3)]


@pytest.mark.parametrize(("k", "eps", "t"), HE_CASES)
def test_he_multi_channel_equals_the_enumeration(k, eps, t):
    M = enumerate_he_multi(k, eps, t)
    _check_against_enumeration(q.protocol("he_multi", k, eps, t=t), M, eps)
    if t == 1:  # one coefficient is Hadamard encoding
        np.testing.assert_allclose(M, enumerate_he(k, eps), atol=1e-15)


@pytest.mark.parametrize(("k", "eps", "t"), [(3, 2.0, 2), (5, 1.0, 2), (4, 3.0, 3)])
def test_he_multi_merged_channel_sums_the_enumeration_by_agree_set(k, eps, t):
    # the enumerated columns grouped by the values whose signs they carry (Sylvester's H):
    # equal columns summed, so the merged channel is the enumeration's lumping
    M = enumerate_he_multi(k, eps, t)
    H = scipy_hadamard(1 << (k - 1).bit_length())
    pairs = [(j, s) for j in range(H.shape[0]) for s in (-1, 1)]
    groups: dict[tuple[int, ...], np.ndarray] = {}
    for o, out in enumerate(itertools.product(pairs, repeat=t)):
        agree = tuple(x for x in range(k) if all(H[j, x] == s for j, s in out))
        groups[agree] = groups.get(agree, 0) + M[:, o]
    merged = q.protocol("he_multi", k, eps, t=t).merged_channel()
    assert sorted(merged.outputs) == sorted(groups)
    for i, agree in enumerate(merged.outputs):
        np.testing.assert_allclose(merged.matrix[:, i], groups[agree], rtol=1e-12, atol=1e-16)
    if t == 3:  # at t = 12 (eps = 8) the merge stays small: with 2^4 = 16 indices the
        # agree-sets are the affine subspaces of F_2^4 (sum over d of 2^(4-d) [4 choose d]_2)
        # and the empty set, where the explicit channel has 32^12 outputs
        big = q.protocol("he_multi", 16, 8.0).merged_channel()
        gauss = [1, 15, 35, 15, 1]
        assert big.shape == (16, sum(2 ** (4 - d) * g for d, g in enumerate(gauss)) + 1)
        assert big.matrix.sum(axis=1) == pytest.approx(1.0, abs=1e-12)


def test_he_multi_default_t_and_symbolic_twins():
    # pure-ldp's optimal t = ceil(log2(e^eps + 1))
    for eps in (0.1, 1.0, 1.1, 3.0):
        t = next(t for t in itertools.count(1) if 2**t >= math.exp(eps) + 1)
        assert q.protocol("he_multi", 4, eps).params["t"] == t
    P = q.protocol("he_multi", 3, 0.7, t=2)
    np.testing.assert_allclose(P.symbolic().evaluate().matrix, P.channel().matrix, atol=1e-14)
    sym = float(P.closed_form.symbolic_bayes_capacity())
    assert sym == pytest.approx(P.closed_form.bayes_capacity(), rel=1e-12)


def test_he_multi_sampler_estimator_and_variance():
    P = q.protocol("he_multi", 3, 1.5, t=2)
    C = P.channel()
    index = {out: i for i, out in enumerate(C.outputs)}
    n = 30000
    for x in (0, 2):
        r = P.sample(np.full(n, x), rng=x)
        cols = [index[tuple((int(j), int(s)) for j, s in row)] for row in r]
        observed = np.bincount(cols, minlength=C.shape[1])
        assert stats.chisquare(observed, n * C.matrix[x]).pvalue > 1e-6
    var, f, n = assert_unbiased_with_variance(P, np.array([60, 30, 10]) * 4, seed=3)
    # the variance, against the per-user term's moments enumerated on the channel
    t, a = 2, P.params["a"]
    W = np.array(
        [
            [sum(s * (-1) ** bin(j & v).count("1") for j, s in out) for out in C.outputs]
            for v in range(3)
        ]
    )
    mean, second = C.matrix @ W.T, C.matrix @ (W.T**2)  # (x, v)
    exact = (f @ second - f @ mean**2) / (n * (t * a) ** 2)
    np.testing.assert_allclose(var, exact, rtol=1e-12)


def test_he_multi_attack_and_refusals():
    P = q.protocol("he_multi", 4, 2.0, t=3)
    r = P.sample(np.arange(4).repeat(30), rng=0)
    guesses = P.attack(r, rng=1)
    from qifldp.protocols.he import he_coefficient

    match = np.all(he_coefficient(r[:, :, 0], guesses[:, None]) == r[:, :, 1], axis=1)
    any_match = np.array(
        [np.any([np.all(he_coefficient(row[:, 0], v) == row[:, 1]) for v in range(4)]) for row in r]
    )
    assert np.all(match | ~any_match)
    with pytest.raises(ParameterError, match="t"):
        q.protocol("he_multi", 3, 1.0, t=0)
    with pytest.raises(ParameterError, match=r"\(n, t = 3, 2\)"):
        P.estimate(np.zeros((2, 2, 2), dtype=int))
    with pytest.raises(ParameterError, match="signs"):
        P.estimate(np.zeros((2, 3, 2), dtype=int))
    with pytest.raises(SizeError):
        q.protocol("he_multi", 1000, 1.0, t=4).channel()
    with pytest.raises(SizeError, match="K\\^t k"):
        q.protocol("he_multi", 1000, 1.0, t=4).closed_form.bayes_capacity()
    assert q.protocol("hadamard_mechanism", 4, 1.0, t=2) == HEMulti(4, 1.0, t=2)


# ---------------------------------------------------------------- restriction to rows


@pytest.mark.parametrize(("k", "eps", "B"), [*HR_CASES, (8, 0.0, 3)])
def test_hr_block_restricted_is_the_channel_rows_with_equal_columns_merged(k, eps, B):
    assert_restriction_is_the_merged_rows(q.protocol("hr_block", k, eps, B=B))


@pytest.mark.parametrize("k", [10**4, 10**5])
def test_hr_block_restricted_where_the_channel_is_refused(k):
    P = q.protocol("hr_block", k, 3.0)
    with pytest.raises(SizeError):
        P.channel()
    R = assert_large_restriction(P)
    pr = P.params
    # values 0..7 are rows 1..8 of block 0: an output y < b is in S_x by the parity of
    # (x + 1) & y, which depends on y mod 16 (the 16 classes are told apart, each b / 16
    # outputs); every output of the other blocks is q on every row (one merged column)
    assert R.outputs == (*range(16), pr["b"])
    inside = hr_membership(np.arange(8)[:, None], np.arange(16))
    assert np.array_equal(R.matrix[:, :16], np.where(inside, pr["p"], pr["q"]) * (pr["b"] // 16))
    assert np.all(R.matrix[:, 16] == (pr["K"] - pr["b"]) * pr["q"])


@pytest.mark.parametrize(("k", "eps", "t"), [*HE_CASES, (8, 0.0, 2), (9, 2.0, 2), (5, 1.0, 3)])
def test_he_multi_restricted_is_the_channel_rows_with_equal_columns_merged(k, eps, t):
    assert_restriction_is_the_merged_rows(q.protocol("he_multi", k, eps, t=t))


@pytest.mark.parametrize(("k", "t"), [(10**4, 1), (10**4, 3), (10**5, 2), (10**5, 30)])
def test_he_multi_restricted_where_the_channel_is_refused_is_he_multi_8_scaled(k, t):
    P = q.protocol("he_multi", k, 1.0, t=t)
    with pytest.raises(SizeError):
        P.channel()
    R = assert_large_restriction(P)
    # phi_j(x) for x < 8 depends on j mod 8: the agree-sets of he_multi(8) (K = 8), each
    # (K / 8)^t times more outputs of (8 / K)^t times the mass (powers of two: the same
    # floats; counts past 2^62 at t = 30 in exact integers)
    small = q.protocol("he_multi", 8, 1.0, t=t).restricted(range(8))
    assert R.outputs == small.outputs
    assert np.array_equal(R.matrix, small.matrix)


def test_he_multi_restricted_refuses_past_the_merge_work_limit():
    P = q.protocol("he_multi", 1024, 1.0, t=2)  # 2048 sign patterns on all 1024 values
    with pytest.raises(SizeError, match=r"of 1024 inputs would form 4194304 agree-sets of 16 w"):
        P.restricted(range(1024))


GRAM_KS = [2, 3, 5, 6, 7, 12, 16, 33]


@pytest.mark.parametrize("k", GRAM_KS)
def test_he_gram_form_is_the_gram_matrix_of_the_enumerated_channel(k):
    for eps in (0.5, 3.0):
        assert_gram_form_matches(q.protocol("he", k, eps).gram_form(), enumerate_he(k, eps))


def _he_size(k: int) -> int:
    return 1 << (k - 1).bit_length()


@pytest.mark.parametrize(
    ("k", "t"),
    [(k, t) for t in (1, 2, 3) for k in GRAM_KS if k * (2 * _he_size(k)) ** t <= 2 * 10**6],
)
def test_he_multi_gram_form_is_the_gram_matrix_of_the_enumerated_channel(k, t):
    # the (2K)^t columns by brute force (K^-t e^eps / (e^eps + 2^t - 1) where every sign
    # agrees); the closed form: Pr_J[h(J, x) = h(J, x')] = 2^-t, most from one FWHT,
    # least = smallest_cell(k, t)
    for eps in (0.5, 2.0):
        G = HEMulti(k, eps, t=t).gram_form()
        assert_gram_form_matches(G, enumerate_he_multi(k, eps, t))
    if t == 1:  # HE's law, the same floats: the same rationals
        G1, G2 = HEMulti(k, 2.0, t=1).gram_form(), q.protocol("he", k, 2.0).gram_form()
        assert (G1.alpha, G1.beta, G1.up, G1.down) == (G2.alpha, G2.beta, G2.up, G2.down)


def test_smallest_cell_by_enumeration_of_every_index_tuple():
    # min over J in [0, K)^t and s of the positive #{x < k : h(J, x) = s}: every tuple
    for K, ts in ((4, (1, 2, 3)), (8, (1, 2, 3)), (16, (1, 2))):
        bits = (np.bitwise_count(np.arange(K)[:, None] & np.arange(K)) & 1).astype(np.int64)
        for t in ts:
            for k in range(2, K + 1):
                best = k
                for J in itertools.product(range(K), repeat=t):
                    code = sum(bits[j, :k] << c for c, j in enumerate(J))
                    counts = np.bincount(code)
                    best = min(best, int(counts[counts > 0].min()))
                assert smallest_cell(k, t) == best, (K, t, k)


@pytest.mark.parametrize(
    ("k", "eps", "B"), [(3, 1.0, 2), (6, 3.0, None), (3, 4.0, None), (7, 0.25, None), (9, 3.0, 12)]
)
def test_hr_block_gram_form_where_it_is_grr_type(k, eps, B):
    # one block holds every value (B = 1 is HR; k <= b - 1) or each block one (b = 2)
    P = q.protocol("hr_block", k, eps, B=B)
    assert_gram_form_matches(P.gram_form(), enumerate_hr_block(k, eps, P.params["B"]))


def test_hr_block_gram_form_with_a_million_blocks_by_hand(monkeypatch):
    # k = 10^6, eps = 16: B = 2^20 blocks of b = 2 outputs, value x alone in block x on
    # its first output (p), every other output q: N(y) is 1 on those k outputs, 0 on the
    # rest, so up = g, down = g (k - 1), alpha = K q^2 + 2 q g, beta = g^2 (rows over
    # p + (K - 1) q). One transform serves every full block (it took one per block, 20 s)
    calls, fwht = [], hr_block_module.fwht

    def counted(v):
        calls.append(1)
        return fwht(v)

    monkeypatch.setattr(hr_block_module, "fwht", counted)
    k = 10**6
    P = HRBlock(k, 16.0)
    K = P.params["K"]
    assert (P.params["B"], P.params["b"]) == (2**20, 2)
    G = P.gram_form()
    assert len(calls) <= 2
    R = Fraction(P.params["p"]) + (K - 1) * Fraction(P.params["q"])
    p, q_ = Fraction(P.params["p"]) / R, Fraction(P.params["q"]) / R
    g = p - q_
    assert (G.up, G.down) == (g, g * (k - 1))
    assert (G.alpha, G.beta) == (K * q_ * q_ + 2 * q_ * g, g * g)


def test_hr_block_gram_form_is_none_where_its_gram_matrix_has_two_values():
    # B = 4 blocks of b = 4 outputs, 3 values each at k = 8: same block b/4, else 0
    P = q.protocol("hr_block", 8, 2.0)
    M = enumerate_hr_block(8, 2.0, P.params["B"])
    off = (M @ M.T)[~np.eye(8, dtype=bool)]
    assert np.ptp(off) > 0.01 * off.max() and P.gram_form() is None


def test_merged_channel_is_refused_before_its_coefficients_are_formed(monkeypatch):
    # k = 10^4: at least 2K = 32768 agree-sets (k x 2K past MAX_ENTRIES); the 2K x k
    # coefficients (2.6e9 bytes) were formed first and took 12 to 40 s
    def formed(*args):
        raise AssertionError("the coefficients were formed")

    monkeypatch.setattr(he_multi_module, "he_coefficient", formed)
    with pytest.raises(SizeError, match="32768"):
        HEMulti(10**4, 0.5).merged_channel()
    with pytest.raises(SizeError, match="MAX_MERGE_WORK"):  # 2K x 2K at a second coefficient
        HEMulti(4000, 0.5, t=2).merged_channel()
    # k = 1024, eps = 4 (t = 6): at least the 7.8e9 affine subspaces of F_2^10 of
    # codimension <= 6, each an agree-set; it used to merge for 4 to 7 s first
    with pytest.raises(SizeError, match="1024 x 7846092563 "):
        HEMulti(1024, 4.0).merged_channel()


def test_affine_subspaces_count_the_agree_sets_at_a_power_of_two():
    # at k = 16, eps = 8 (t = 12 >= 4) every affine subspace of F_2^4 is an agree-set,
    # and the empty set is one more (the enumeration of the test above)
    merged = q.protocol("he_multi", 16, 8.0).merged_channel()
    assert merged.shape[1] == affine_subspaces(4, 4) + 1 == 308
    assert [affine_subspaces(m, m) for m in range(1, 5)] == [3, 11, 51, 307]
    # below the dimension: codimension <= t only (k = 16, t = 2: 1 + 2 * 15 + 4 * 35)
    assert q.protocol("he_multi", 16, 0.5, t=2).merged_channel().shape[1] >= 171
    assert affine_subspaces(4, 2) == 171


@pytest.mark.parametrize(("k", "eps"), [(3, 5.0), (6, 3.0), (16, 8.0), (2, 8.0)])
def test_hr_block_with_one_value_per_block_is_symmetric(k, eps):
    P = q.protocol("hr_block", k, eps)
    assert P.params["b"] == 2 and P.lumpable
    C = P.channel().matrix
    own = C[:, 0 : 2 * k : 2]  # value x alone in block x: its set is output 2x
    rest = np.delete(C, np.arange(0, 2 * k, 2), axis=1)
    assert np.all(rest == rest[0])  # every other output is constant over the values
    lumped = P.symmetric().expand(lumped=True)
    L = lumped.matrix
    sizes = [len(o) for o in lumped.outputs]
    singles = L[:, [i for i, n in enumerate(sizes) if n == 1]]
    order = np.argmax(singles, axis=0) if k > 2 else np.arange(k)
    assert np.allclose(singles[:, np.argsort(order)], own, rtol=1e-13, atol=0)
    (empty,) = [i for i, n in enumerate(sizes) if n == 0]
    assert np.allclose(L[:, empty], rest.sum(axis=1), rtol=1e-13, atol=0)


def test_hr_block_with_several_values_per_block_has_no_symmetric_channel():
    P = q.protocol("hr_block", 5, 2.0)  # B = 4 blocks of 4 outputs
    assert P.params["b"] == 4 and not P.lumpable
    with pytest.raises(UnsupportedKindError, match="b = 2 outputs per block"):
        P.symmetric()
