"""Same-secret composition, lumped repeated release and the true epsilon of a composition."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import ChannelError, SizeError


def grr_entry(k: int, eps: float, x: int, y: int) -> float:
    """GRR's closed form: e^eps / (e^eps + k - 1) on the diagonal, 1 / (e^eps + k - 1) off it."""
    return (math.exp(eps) if x == y else 1.0) / (math.exp(eps) + k - 1)


def random_channel(rng, k, m, zeros=False):
    M = rng.dirichlet(np.ones(m), size=k)
    if zeros:
        M[rng.random(M.shape) < 0.2] = 0.0
        M[:, 0] += M.sum(axis=1) == 0
        M /= M.sum(axis=1, keepdims=True)
    return q.Channel(M)


# ----------------------------------------------------------------------------------
# compose
# ----------------------------------------------------------------------------------
def test_compose_two_grrs_matches_enumeration():
    # provenance: enumeration of the product formula with GRR's closed-form entries
    k, e1, e2 = 4, 1.0, 0.4
    C = q.compose(q.grr(k, e1), q.grr(k, e2))
    assert C.shape == (k, k * k)
    assert C.outputs == tuple(itertools.product(range(k), range(k)))
    for x in range(k):
        for j, (y1, y2) in enumerate(C.outputs):
            expected = grr_entry(k, e1, x, y1) * grr_entry(k, e2, x, y2)
            assert C.matrix[x, j] == pytest.approx(expected, rel=1e-14)
    # the true epsilon: both factors are worst on the same pair, so e1 + e2
    assert q.ldp_epsilon(C) == pytest.approx(e1 + e2, rel=1e-13)


def test_compose_three_channels_and_flat_tuple_labels():
    A = q.Channel([[0.75, 0.25], [0.25, 0.75]], outputs=("a", "b"))
    C = q.compose(A, A, A)
    assert C.shape == (2, 8)
    assert C.outputs[0] == ("a", "a", "a")
    # C[0, (a, b, b)] = 3/4 * 1/4 * 1/4 (exact in binary floating point)
    assert C.matrix[0, C.outputs.index(("a", "b", "b"))] == 0.75 * 0.25 * 0.25


def test_compose_aligns_rows_by_label():
    A = q.Channel([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]], inputs=("a", "b", "c"))
    B = q.Channel([[0.3, 0.7], [0.6, 0.4], [1.0, 0.0]], inputs=("c", "a", "b"))
    C = q.compose(A, B)
    assert C.inputs == ("a", "b", "c")
    # row "a": A["a"] = (.5, .5), B["a"] = (.6, .4)
    np.testing.assert_allclose(C.row("a"), [0.3, 0.2, 0.3, 0.2], rtol=1e-14)
    np.testing.assert_allclose(C.row("b"), [0.9, 0.0, 0.1, 0.0], rtol=1e-14)


def test_compose_default_labels_are_positional():
    A = q.Channel([[0.5, 0.5], [0.9, 0.1]], inputs=("u", "v"))
    B = q.Channel([[1.0, 0.0], [0.0, 1.0]])  # default labels 0, 1
    C = q.compose(A, B)
    assert C.inputs == ("u", "v")
    np.testing.assert_allclose(C.matrix, [[0.5, 0.0, 0.5, 0.0], [0.0, 0.9, 0.0, 0.1]])


def test_compose_mismatched_labels_names_them():
    A = q.Channel(np.eye(2), inputs=("a", "b"))
    B = q.Channel(np.eye(2), inputs=("a", "z"))
    with pytest.raises(ChannelError, match=r"'z'.*'b'"):
        q.compose(A, B)


def test_compose_different_numbers_of_inputs():
    with pytest.raises(ChannelError, match="numbers of inputs"):
        q.compose(q.grr(3, 1.0), q.grr(4, 1.0))


def test_compose_size_guard_before_allocating():
    # 1000 inputs x 1000^3 outputs = 10^12 entries: refused, the size is named
    with pytest.raises(SizeError, match="1000000000"):
        q.compose(q.grr(1000, 1.0), q.grr(1000, 1.0), q.grr(1000, 1.0))


def test_compose_is_not_parallel():
    # parallel = independent secrets (4 inputs); compose = one secret (2 inputs)
    A = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    assert q.parallel(A, A).shape == (4, 4)
    assert q.compose(A, A).shape == (2, 4)


# ----------------------------------------------------------------------------------
# repeated
# ----------------------------------------------------------------------------------
def test_repeated_grr_multinomial_closed_form():
    # provenance: Pr[multiset | x] = n! / Π c! · p^{c_x} q^{n - c_x} for GRR
    k, eps, n = 3, 0.9, 4
    R = q.repeated(q.grr(k, eps), n)
    assert R.shape == (k, math.comb(k + n - 1, n))
    p, qq = grr_entry(k, eps, 0, 0), grr_entry(k, eps, 0, 1)
    for j, ms in enumerate(R.outputs):
        counts = [ms.count(y) for y in range(k)]
        mult = math.factorial(n) / math.prod(math.factorial(c) for c in counts)
        for x in range(k):
            expected = mult * p ** counts[x] * qq ** (n - counts[x])
            assert R.matrix[x, j] == pytest.approx(expected, rel=1e-12)


def test_repeated_lumped_equals_merged_full_composition():
    rng = np.random.default_rng(3)
    C = random_channel(rng, 3, 3, zeros=True)
    n = 3
    full = q.repeated(C, n, lumped=False)
    lumped = q.repeated(C, n)
    # merge the ordered outputs by their sorted multiset: must give the lumped channel
    merged = {}
    for j, y in enumerate(full.outputs):
        key = tuple(sorted(y))
        merged[key] = merged.get(key, 0.0) + full.matrix[:, j]
    for j, ms in enumerate(lumped.outputs):
        np.testing.assert_allclose(lumped.matrix[:, j], merged[ms], rtol=1e-12, atol=1e-300)
    # refinement-equivalent: same capacity and epsilon
    assert q.bayes_capacity(lumped) == pytest.approx(q.bayes_capacity(full), rel=1e-12)
    assert q.ldp_epsilon(lumped) == pytest.approx(q.ldp_epsilon(full), rel=1e-12)


def test_repeated_grr_stays_small():
    # 10^5 ordered outputs lump to C(14, 5) = 2002 multisets
    R = q.repeated(q.grr(10, 1.0), 5)
    assert R.shape == (10, 2002)
    assert q.ldp_epsilon(R) == pytest.approx(5.0, rel=1e-12)


def test_repeated_size_guard():
    with pytest.raises(SizeError, match="repeated"):
        q.repeated(q.grr(200, 1.0), 6)


# ----------------------------------------------------------------------------------
# composition_epsilon
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_composition_epsilon_matches_built_channel(seed):
    rng = np.random.default_rng(seed)
    chans = [random_channel(rng, 4, int(rng.integers(2, 5)), zeros=seed % 2 == 1) for _ in range(3)]
    r = q.composition_epsilon(*chans)
    built = q.ldp_epsilon(q.compose(*chans))
    if math.isinf(built):
        assert math.isinf(r.true)
    else:
        assert r.true == pytest.approx(built, rel=1e-12, abs=1e-12)
    assert r.sequential == pytest.approx(sum(q.ldp_epsilon(C) for C in chans))
    assert r.true <= r.sequential + 1e-12


def test_composition_epsilon_strictly_below_sum():
    # A separates inputs 0/1 (ratio 3), B separates 1/2 (ratio 3); for the pair (0, 1)
    # B's best ratio is 0.5/0.25 = 2, so true = ln 6 while the sum is ln 9.
    A = q.Channel([[0.75, 0.25], [0.25, 0.75], [0.5, 0.5]])
    B = q.Channel([[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]])
    r = q.composition_epsilon(A, B)
    assert r.true == pytest.approx(math.log(6), rel=1e-14)
    assert r.sequential == pytest.approx(math.log(9), rel=1e-14)
    true, seq = r  # unpacks as a pair
    assert (true, seq) == (r.true, r.sequential)


def test_composition_epsilon_neighbors():
    A = q.Channel([[0.75, 0.25], [0.25, 0.75], [0.5, 0.5]])
    B = q.Channel([[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]])
    nb = [(0, 2)]
    r = q.composition_epsilon(A, B, neighbors=nb)
    assert r.true == pytest.approx(q.ldp_epsilon(q.compose(A, B), neighbors=nb), rel=1e-13)
    # pair (0, 2): A ratio 1.5, B ratio 2 -> ln 3
    assert r.true == pytest.approx(math.log(3), rel=1e-14)


# ----------------------------------------------------------------------------------
# symmetric channels
# ----------------------------------------------------------------------------------
def test_symmetric_composition_matches_expansion():
    S = q.compose(sym.grr(4, 1.0), sym.oue(4, 0.7))
    assert isinstance(S, q.SymmetricComposition)
    E = S.expand()
    assert E == q.compose(sym.grr(4, 1.0).expand(), sym.oue(4, 0.7).expand())
    assert E.isclose(q.compose(q.grr(4, 1.0), q.oue(4, 0.7)), atol=1e-15)
    assert q.ldp_epsilon(S) == pytest.approx(q.ldp_epsilon(E), rel=1e-12)
    epss = np.array([0.0, 0.3, 1.0, 1.69, 2.0, np.inf])
    np.testing.assert_allclose(q.privacy_profile(S, epss), q.privacy_profile(E, epss), atol=1e-14)
    T, TE = q.tradeoff_curve(S), q.tradeoff_envelope(E)
    grid = np.linspace(0, 1, 1001)
    np.testing.assert_allclose(T(grid), TE(grid), atol=1e-13)
    r = q.composition_epsilon(sym.grr(4, 1.0), sym.oue(4, 0.7))
    assert (
        r.true
        == r.sequential
        == pytest.approx(
            q.composition_epsilon(*[C.expand() for C in (sym.grr(4, 1.0), sym.oue(4, 0.7))]).true,
            rel=1e-12,
        )
    )


def test_symmetric_repeated_grr_large_k_profile_by_enumeration():
    # provenance: the pair (x0, x1) sees, per release, x0 w.p. p, x1 w.p. q, another
    # value w.p. 1 - p - q; the loss of counts (n0, n1, n2) is eps (n0 - n1).
    k, eps, n = 10**6, 1.0, 3
    R = q.repeated(sym.grr(k, eps), n)
    p = math.exp(eps) / (math.exp(eps) + k - 1)
    qq = 1.0 / (math.exp(eps) + k - 1)
    r = 1.0 - p - qq
    epss = [0.0, 0.5, 1.0, 2.5, 3.0]
    expected = []
    for e in epss:
        d = 0.0
        for n0 in range(n + 1):
            for n1 in range(n + 1 - n0):
                n2 = n - n0 - n1
                mult = math.factorial(n) / (
                    math.factorial(n0) * math.factorial(n1) * math.factorial(n2)
                )
                P0 = mult * p**n0 * qq**n1 * r**n2
                P1 = mult * qq**n0 * p**n1 * r**n2
                d += max(0.0, P0 - math.exp(e) * P1)
        expected.append(d)
    # delta(3) = 0 exactly (no loss exceeds 3 eps); the reference sum leaves ~1e-33 there
    np.testing.assert_allclose(q.privacy_profile(R, epss), expected, rtol=1e-9, atol=1e-30)
    assert q.ldp_epsilon(R) == pytest.approx(3.0)


def test_symmetric_repeated_many_times_is_fast():
    R = q.repeated(sym.grr(10**6, 1.0), 50)
    loss, P0, P1 = R.loss_atoms()
    assert loss.size == 101  # losses eps * (-50..50)
    assert P0.sum() == pytest.approx(1.0) and P1.sum() == pytest.approx(1.0)
    assert q.privacy_profile(R, 50.0) == 0.0
    assert q.privacy_profile(R, 49.0) > 0.0


def test_symmetric_composition_errors():
    with pytest.raises(ChannelError, match="same k"):
        q.compose(sym.grr(4, 1.0), sym.grr(5, 1.0))
    with pytest.raises(SizeError, match="privacy_profile"):
        q.compose(sym.oue(10**6, 1.0), sym.grr(10**6, 1.0)).expand()
    # mixed with an explicit channel: the symmetric one is expanded (small k)
    C = q.compose(sym.grr(3, 1.0), q.grr(3, 0.5))
    assert C.isclose(q.compose(q.grr(3, 1.0), q.grr(3, 0.5)), atol=1e-15)


def test_subset_selection_then_grr_on_the_same_secret():
    # small k: the symmetric composition against the explicit one built from the
    # numeric constructors (an independent construction)
    k = 6
    S = q.compose(sym.subset_selection(k, 1.0, 2), sym.grr(k, 0.5))
    E = q.compose(q.subset_selection(k, 1.0, 2), q.grr(k, 0.5))
    epss = [0.0, 0.5, 1.0, 1.4, 1.5, np.inf]
    np.testing.assert_allclose(q.privacy_profile(S, epss), q.privacy_profile(E, epss), atol=1e-14)
    assert q.ldp_epsilon(S) == pytest.approx(q.ldp_epsilon(E), rel=1e-12)
    # k = 10^6: every pair is worst for both factors, so the true eps is the sum
    big = q.compose(sym.subset_selection(10**6, 1.0), sym.grr(10**6, 0.5))
    assert q.ldp_epsilon(big) == pytest.approx(1.5)
    d = q.privacy_profile(big, [0.0, 1.5])
    assert d[0] > 0.0 and d[1] == 0.0
