"""Samplers against the explicit channels: every protocol's output law, validation, seeding."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, SizeError
from qifldp.simulation import (
    DEFAULT_PRIME,
    LHReports,
    lh_collision_probability,
    sample,
    sample_blh,
    sample_grr,
    sample_lh,
    sample_olh,
    sample_oue,
    sample_ss,
    sample_sue,
    sample_the,
    sample_ue,
    universal_hash,
    universal_lh_channel,
)

from ._helpers import assert_gof, row_counts

N_PER_INPUT = 20_000


def _flat(label) -> tuple:
    if isinstance(label, tuple):
        return tuple(v for part in label for v in _flat(part))
    return (int(label),)


def _check_against_channel(C: q.Channel, draw, n_per_input: int = N_PER_INPUT) -> None:
    """For each input x, n users with value x; their output rows follow C's row x.

    ``draw(xs)`` returns an (n, d) integer array of flattened output labels.
    """
    labels = [_flat(y) for y in C.outputs]
    for x in range(C.n_inputs):
        rows = draw(np.full(n_per_input, x))
        assert_gof(row_counts(rows, labels), C.matrix[x])


# ---------------------------------------------------------------------------------------
# generic sampler
# ---------------------------------------------------------------------------------------
def test_sample_generic_matches_rows():
    # a random channel with a zero column and a zero entry: provenance = the matrix itself
    rng = np.random.default_rng(11)
    M = rng.random((4, 6))
    M[:, 2] = 0.0
    M[1, 4] = 0.0
    M /= M.sum(axis=1, keepdims=True)
    C = q.Channel(M)
    xs = np.repeat(np.arange(4), 20_000)
    rng.shuffle(xs)
    ys = sample(C, xs, rng=5)
    for x in range(4):
        assert_gof(np.bincount(ys[xs == x], minlength=6), M[x])


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 6),
    st.integers(0, 2**32 - 1),
)
def test_sample_never_draws_impossible_outputs(n_in, n_out, seed):
    # exact property: an output with C[x, y] = 0 is never drawn for input x
    rng = np.random.default_rng(seed)
    M = rng.random((n_in, n_out)) * (rng.random((n_in, n_out)) < 0.6)
    M[:, 0] += 1e-3  # every row has mass
    M /= M.sum(axis=1, keepdims=True)
    xs = rng.integers(0, n_in, 500)
    ys = sample(M, xs, rng)
    assert np.all(M[xs, ys] > 0)


def test_sample_seeded_and_validated():
    C = q.grr(3, 1.0)
    xs = np.array([0, 1, 2, 2, 1])
    assert np.array_equal(sample(C, xs, 3), sample(C, xs, np.random.default_rng(3)))
    assert sample(C, np.array([], dtype=int), 0).shape == (0,)
    with pytest.raises(ParameterError, match="xs must lie in 0..2"):
        sample(C, [0, 3], 0)
    with pytest.raises(InputTypeError, match="integer input indices"):
        sample(C, [0.5, 1.0], 0)
    with pytest.raises(InputTypeError, match="rng must be"):
        sample(C, [0, 1], rng="seed")
    with pytest.raises(ParameterError, match="1-D"):
        sample(C, [[0, 1]], 0)


# ---------------------------------------------------------------------------------------
# each protocol against its explicit channel (qifldp.mechanisms)
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, eps", [(4, 1.0), (3, 0.0), (2, 3.0)])
def test_grr_law(k, eps):
    rng = np.random.default_rng(1)
    _check_against_channel(q.grr(k, eps), lambda xs: sample_grr(xs, k, eps, rng)[:, None])


@pytest.mark.parametrize(
    "k, eps, omega",
    [(5, 1.0, 2), (5, 0.5, 4), (4, 2.0, 1), (6, 1.0, 3), (4, 1.0, 4), (9, 1.0, 2), (10, 0.5, 1)],
)
@pytest.mark.parametrize("output", ["subsets", "membership"])
def test_ss_law(k, eps, omega, output):
    # omega = 4 of k = 5 exercises the complement branch of Floyd's algorithm;
    # k > SS_DENSE_RATIO * omega (9 > 8, 10 > 4) the sparse first-distinct-draws branch
    rng = np.random.default_rng(2)
    C = q.subset_selection(k, eps, omega)

    def draw(xs):
        S = sample_ss(xs, k, eps, omega, rng, output=output)
        if output == "membership":
            assert S.dtype == np.bool_ and np.all(S.sum(axis=1) == omega)
            S = np.nonzero(S)[1].reshape(-1, omega)
        return S

    _check_against_channel(C, draw, n_per_input=10_000)


@pytest.mark.parametrize("k, eps, omega", [(5, 1.0, 2), (5, 0.5, 4), (4, 2.0, 1), (4, 1.0, 4)])
def test_ss_law_random_keys_route(k, eps, omega, monkeypatch):
    # the random-keys route (used for 1024 < k <= 2^22 + 1 in the dense regime) forced
    # at small k, against the explicit channel
    from qifldp.protocols import ss

    monkeypatch.setattr(ss, "SS_KEYS_MIN_K", 1)
    rng = np.random.default_rng(9)
    C = q.subset_selection(k, eps, omega)
    _check_against_channel(C, lambda xs: sample_ss(xs, k, eps, omega, rng), n_per_input=10_000)


@pytest.mark.parametrize("k, eps, omega", [(5, 0.5, 4), (6, 1.0, 3), (9, 1.0, 2)])
@pytest.mark.parametrize("output", ["subsets", "membership"])
def test_ss_law_mask_and_sparse_routes(k, eps, omega, output, monkeypatch):
    # k <= SS_BITS_MAX_K draws on bit masks: the (n, k) mask route (complement and
    # plain) and the sparse route, used for larger k, forced here at small k
    from qifldp.protocols import ss

    monkeypatch.setattr(ss, "SS_BITS_MAX_K", 1)
    rng = np.random.default_rng(4)
    C = q.subset_selection(k, eps, omega)

    def draw(xs):
        S = sample_ss(xs, k, eps, omega, rng, output=output)
        return np.nonzero(S)[1].reshape(-1, omega) if output == "membership" else S

    _check_against_channel(C, draw, n_per_input=5_000)


def test_ss_bit_masks_at_64_values():
    # the widest bit-mask domain (all 64 bits): sorted distinct rows of omega values,
    # the true value kept w.p. p (normal band), every other value at its rate
    from scipy import stats

    k, omega, n = 64, 40, 20_000
    P = q.protocol("ss", k, 1.0, omega=omega)
    S = P.sample(np.full(n, 63), rng=5)
    assert S.shape == (n, omega) and np.all(np.diff(S, axis=1) > 0)
    p = P.params["p"]
    kept = np.mean(S[:, -1] == 63)
    assert abs(kept - p) <= stats.norm.isf(1e-7) * np.sqrt(p * (1 - p) / n)
    other = (p * (omega - 1) + (1 - p) * omega) / (k - 1)  # Pr[value v != x in the subset]
    rates = np.bincount(S.ravel(), minlength=k)[:63] / n
    assert np.all(np.abs(rates - other) <= stats.norm.isf(1e-7 / 63) * np.sqrt(other / n))


def test_ss_default_omega_is_the_channels():
    S = sample_ss(np.zeros(3, dtype=int), 10, 1.0, rng=0)
    assert S.shape[1] == len(q.subset_selection(10, 1.0).outputs[0])


@pytest.mark.parametrize("k, eps, g", [(3, 1.0, 2), (2, 2.0, 3), (3, 0.0, 2)])
def test_lh_uniform_hashing_is_the_papers_channel(k, eps, g):
    rng = np.random.default_rng(3)
    C = q.local_hashing(k, eps, g)

    def draw(xs):
        R = sample_lh(xs, k, eps, g, rng, hash="uniform")
        return np.column_stack([R.table.astype(np.int64), R.y])

    _check_against_channel(C, draw)


@pytest.mark.parametrize("k, eps, g, prime", [(3, 1.0, 2, 5), (2, 2.0, 3, 3), (4, 0.5, 3, 5)])
def test_lh_universal_hashing_is_universal_lh_channel(k, eps, g, prime):
    rng = np.random.default_rng(4)
    C = universal_lh_channel(k, eps, g, prime)

    def draw(xs):
        R = sample_lh(xs, k, eps, g, rng, prime=prime)
        return np.column_stack([R.a.astype(np.int64), R.b.astype(np.int64), R.y])

    _check_against_channel(C, draw, n_per_input=40 * C.n_outputs)


def test_universal_lh_channel_entries_by_enumeration():
    # C[x, (a, b, y)] = (p if ((a x + b) mod P) mod g == y else q') / (P (P - 1)), evaluated
    # here with exact rationals and Python integers (provenance: definition, enumeration)
    k, g, P = 3, 2, 5
    eps = float(np.log(3.0))  # e^eps = 3: p = 3/4, q' = 1/4 for g = 2
    C = universal_lh_channel(k, eps, g, P)
    p, qq = Fraction(3, 4), Fraction(1, 4)
    for j, (a, b, y) in enumerate(C.outputs):
        for x in range(k):
            want = (p if ((a * x + b) % P) % g == y else qq) / (P * (P - 1))
            assert C.matrix[x, j] == pytest.approx(float(want), abs=1e-15)


@pytest.mark.parametrize("g, P", [(2, 5), (3, 7), (4, 11), (5, 5), (7, 13)])
def test_collision_probability_by_enumeration(g, P):
    # exact: count pairs (a, b) with h(x) = h(x') over the whole family, for x != x'
    x, x2 = 0, 1
    hits = sum(
        ((a * x + b) % P) % g == ((a * x2 + b) % P) % g for a in range(1, P) for b in range(P)
    )
    assert lh_collision_probability(g, P) == pytest.approx(hits / (P * (P - 1)), abs=1e-15)
    # and the same for another pair: the family is pairwise uniform
    hits2 = sum(
        ((a * 2 + b) % P) % g == ((a * 4 + b) % P) % g for a in range(1, P) for b in range(P)
    )
    assert hits2 == hits


def test_universal_and_uniform_hashing_differ_in_bayes_vulnerability():
    # documented difference: the pairwise-independent family is not the paper's channel.
    # Provenance: enumeration of both explicit channels (k = 3, g = 2, P = 5).
    U = universal_lh_channel(3, 1.0, 2, 5)
    L = q.local_hashing(3, 1.0, 2)
    assert q.asr(U) != pytest.approx(q.asr(L), abs=1e-6)
    # with P = 5 and g = 2 the residues split 3 / 2, so collisions are rarer than 1/2
    assert lh_collision_probability(2, 5) == pytest.approx(0.4)


def test_universal_hash_uses_the_large_prime_without_overflow():
    # a x + b close to 2^62 stays exact in int64; provenance: Python integers
    a = np.array([DEFAULT_PRIME - 1, 123456789], dtype=np.int64)
    b = np.array([DEFAULT_PRIME - 2, 987654321], dtype=np.int64)
    x = np.array([DEFAULT_PRIME - 3, 5])
    got = universal_hash(a, b, x, 1000, DEFAULT_PRIME)
    want = [
        ((int(ai) * int(xi) + int(bi)) % DEFAULT_PRIME) % 1000
        for ai, bi, xi in zip(a, b, x, strict=True)
    ]
    assert got.tolist() == want


def test_lh_reports_hash_values_match_direct_evaluation():
    # incremental uint32 evaluation in LHReports against int64 universal_hash
    rng = np.random.default_rng(9)
    R = sample_lh(rng.integers(0, 50, 3000), 50, 1.0, 7, rng)
    direct = universal_hash(R.a[:, None], R.b[:, None], np.arange(50)[None, :], 7, R.prime)
    assert np.array_equal(R.hash_values(), direct)
    assert np.array_equal(R.matches(), direct == R.y[:, None])
    sub = R.take(slice(100, 200))
    assert np.array_equal(sub.hash_values(), direct[100:200])


def test_blh_olh_parameters():
    assert sample_blh([0, 1], 4, 1.0, 0).g == 2
    assert sample_olh([0, 1], 4, 1.0, 0).g == 4  # round(e + 1)
    assert sample_olh([0, 1], 40, 3.0, 0).g == 21  # round(e^3 + 1)


@pytest.mark.parametrize(
    "channel, draw",
    [
        (lambda: q.unary_encoding(4, 0.7, 0.2), lambda xs, r: sample_ue(xs, 4, 0.7, 0.2, r)),
        (lambda: q.sue(4, 1.0), lambda xs, r: sample_sue(xs, 4, 1.0, r)),
        (lambda: q.oue(4, 1.0), lambda xs, r: sample_oue(xs, 4, 1.0, r)),
        (lambda: q.the(3, 1.0, 0.7), lambda xs, r: sample_the(xs, 3, 1.0, 0.7, r)),
        (lambda: q.the(3, 0.0, 0.6), lambda xs, r: sample_the(xs, 3, 0.0, 0.6, r)),
        (lambda: q.the(3, 3.0, 0.9), lambda xs, r: sample_the(xs, 3, 3.0, 0.9, r)),
        (
            lambda: q.the(3, 2.0, 0.7),
            lambda xs, r: sample_the(xs, 3, 2.0, 0.7, r, method="bernoulli"),
        ),
        (lambda: q.sue(3, 0.0), lambda xs, r: sample_sue(xs, 3, 0.0, r)),
        (lambda: q.oue(3, 0.0), lambda xs, r: sample_oue(xs, 3, 0.0, r)),
        (
            lambda: q.the(3, 0.0, 0.7),
            lambda xs, r: sample_the(xs, 3, 0.0, 0.7, r, method="bernoulli"),
        ),
    ],
    ids=[
        "ue",
        "sue",
        "oue",
        "the",
        "the-eps0",
        "the-theta.9",
        "the-bernoulli",
        "sue-eps0",
        "oue-eps0",
        "the-bernoulli-eps0",
    ],
)
def test_bit_vector_laws(channel, draw):
    rng = np.random.default_rng(6)
    _check_against_channel(channel(), lambda xs: draw(xs, rng).astype(np.int64))


def test_large_blocks_are_consistent():
    # several cache blocks: the per-coordinate rates over 200k users x 20 bits
    # match p (own bit) and q (other bits) within 5 sigma (binomial sd)
    rng = np.random.default_rng(8)
    n, k, p, qq = 200_000, 20, 0.6, 0.3
    xs = rng.integers(0, k, n)
    bits = sample_ue(xs, k, p, qq, rng)
    own = bits[np.arange(n), xs]
    others = bits.sum() - own.sum()
    assert abs(own.mean() - p) <= 5 * np.sqrt(p * (1 - p) / n)
    m = n * (k - 1)
    assert abs(others / m - qq) <= 5 * np.sqrt(qq * (1 - qq) / m)


# ---------------------------------------------------------------------------------------
# validation and seeding
# ---------------------------------------------------------------------------------------
def test_seeding_is_reproducible():
    xs = np.arange(10) % 5
    for f in (
        lambda r: sample_grr(xs, 5, 1.0, r),
        lambda r: sample_ss(xs, 5, 1.0, 2, r),
        lambda r: sample_lh(xs, 5, 1.0, 3, r).y,
        lambda r: sample_oue(xs, 5, 1.0, r),
        lambda r: sample_the(xs, 5, 1.0, 0.7, r),
    ):
        assert np.array_equal(f(42), f(np.random.default_rng(42)))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: sample_grr([0], 1, 1.0), ParameterError, "k must be >= 2"),
        (lambda: sample_grr([0], 2.5, 1.0), InputTypeError, "k must be an integer"),
        (lambda: sample_grr([0], 3, -1.0), ParameterError, "eps must be >= 0"),
        (lambda: sample_grr([0], 3, float("inf")), ParameterError, "eps must be finite"),
        (lambda: sample_grr([0], 3, float("nan")), ParameterError, "NaN"),
        (lambda: sample_grr([3], 3, 1.0), ParameterError, "xs must lie in 0..2"),
        (lambda: sample_grr([-1], 3, 1.0), ParameterError, "xs must lie in 0..2"),
        (lambda: sample_grr([0], 3, 1.0, rng=True), InputTypeError, "rng must be"),
        (lambda: sample_grr([0], 3, 1.0, rng=-4), ParameterError, "non-negative integer seed"),
        (lambda: sample_ss([0], 4, 1.0, 0), ParameterError, "omega must be >= 1"),
        (lambda: sample_ss([0], 4, 1.0, 5), ParameterError, "omega must be <= 4"),
        (lambda: sample_ss([0], 4, 1.0, 2, output="bits"), ParameterError, "output must be"),
        (lambda: sample_lh([0], 4, 1.0, 1), ParameterError, "g must be >= 2"),
        (lambda: sample_lh([0], 4, 1.0, 2, hash="md5"), ParameterError, "hash must be"),
        (lambda: sample_lh([0], 4, 1.0, 2, prime=9), ParameterError, "prime must be a prime"),
        (lambda: sample_lh([0], 8, 1.0, 2, prime=7), ParameterError, r"prime must be >= max"),
        (lambda: sample_lh([0], 4, 1.0, 2, prime=2**31 + 11), ParameterError, "prime must be <="),
        (lambda: sample_ue([0], 3, 0.2, 0.5), ParameterError, "0 <= q < p <= 1"),
        (lambda: sample_ue([0], 3, 1.2, 0.5), ParameterError, r"p must lie in \[0, 1\]"),
        (lambda: sample_the([0], 3, 1.0, 0.5), ParameterError, r"theta must lie in the open"),
        (lambda: sample_the([0], 3, 1.0, 1.0), ParameterError, r"theta must lie in the open"),
        (lambda: sample_the([0], 3, 1.0, 0.7, method="x"), ParameterError, "method must be"),
        (
            lambda: sample_lh(np.zeros(10**6, dtype=int), 200, 1.0, 2, hash="uniform"),
            SizeError,
            "hash='universal'",
        ),
        (lambda: universal_lh_channel(3, 1.0, 2, 7919), SizeError, "entries"),
    ],
)
def test_validation(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_the_methods_agree_on_their_bit_rates():
    # both THE methods against the closed forms p = 1 - e^{eps(theta-1)/2}/2 and
    # q = e^{-eps theta/2}/2 (QIF paper Sec. V-E), 5-sigma binomial bounds
    eps, theta, n, k = 1.5, 0.8, 100_000, 10
    p = 1 - 0.5 * np.exp(eps * (theta - 1) / 2)
    qq = 0.5 * np.exp(-eps * theta / 2)
    xs = np.zeros(n, dtype=int)
    for method in ("laplace", "bernoulli"):
        bits = sample_the(xs, k, eps, theta, 7, method=method)
        assert abs(bits[:, 0].mean() - p) <= 5 * np.sqrt(p * (1 - p) / n)
        rest = bits[:, 1:].mean()
        assert abs(rest - qq) <= 5 * np.sqrt(qq * (1 - qq) / (n * (k - 1)))


def test_ss_rows_are_sorted_distinct_subsets():
    S = sample_ss(np.arange(1000) % 9, 9, 0.7, 4, rng=1)
    assert np.all(np.diff(S, axis=1) > 0)
    assert S.min() >= 0 and S.max() <= 8


def test_lh_reports_built_by_hand():
    # int64 parameters are accepted (cast to uint32) and hash as universal_hash does
    a = np.array([3, 6], dtype=np.int64)
    b = np.array([5, 0], dtype=np.int64)
    R = LHReports(y=np.array([1, 0]), k=3, g=4, a=a, b=b, prime=7)
    assert (
        R.hash_values().tolist() == universal_hash(a[:, None], b[:, None], [0, 1, 2], 4, 7).tolist()
    )
    with pytest.raises(ParameterError, match="y must lie in 0..3"):
        LHReports(y=np.array([4]), k=3, g=4, a=a[:1], b=b[:1], prime=7)
    with pytest.raises(ParameterError, match="a must lie in 1..6"):
        LHReports(y=np.array([1]), k=3, g=4, a=np.array([0]), b=b[:1], prime=7)
    with pytest.raises(ParameterError, match="either a hash table"):
        LHReports(y=np.array([1]), k=3, g=4)
    with pytest.raises(ParameterError, match="table must have shape"):
        LHReports(y=np.array([1]), k=3, g=4, table=np.zeros((1, 2), dtype=np.uint8))
