"""The explicit mechanism channels against independent, entry-by-entry definitions.

Expected matrices are rebuilt here from the protocol descriptions (QIF paper
Sec. V, appendix for LH), by plain loops over the output labels, in exact
rational arithmetic where eps = ln(r) makes e^eps rational.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import laplace

import qifldp as q
from qifldp.mechanisms import lh_encoding, lh_perturbation
from qifldp.protocols.params import (
    grr_probabilities,
    olh_g,
    oue_probabilities,
    ss_default_omega,
    ss_probabilities,
    sue_probabilities,
    the_probabilities,
)

#: Float entries agree with the exact rational definition within this.
EXACT_ATOL = 1e-14


def as_float_matrix(rows: list[list[Fraction]]) -> np.ndarray:
    return np.array([[float(v) for v in row] for row in rows])


# -- GRR ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("r", [Fraction(1), Fraction(2), Fraction(7, 2)])
def test_grr_exact_entries(k, r):
    # QIF paper Sec. V-A with e^eps = r: p = r / (r + k - 1), q = 1 / (r + k - 1).
    rows = [[r / (r + k - 1) if y == x else 1 / (r + k - 1) for y in range(k)] for x in range(k)]
    C = q.grr(k, math.log(r))
    assert C.inputs == C.outputs == tuple(range(k))
    np.testing.assert_allclose(C.matrix, as_float_matrix(rows), atol=EXACT_ATOL, rtol=0)


def test_grr_paper_example_ln2():
    # QIF paper Eq. (GRR example): R^{ln 2} on 3 secrets has 1/2 on the diagonal, 1/4 elsewhere.
    np.testing.assert_allclose(
        q.grr(3, math.log(2)).matrix, [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    )


# -- SS ----------------------------------------------------------------------------
def ss_rows(k: int, r: Fraction, omega: int) -> tuple[list[tuple], list[list[Fraction]]]:
    # QIF paper Sec. V-B: p = omega r / (omega r + k - omega);
    # C[x, S] = p / C(k-1, omega-1) if x in S else (1 - p) / C(k-1, omega).
    p = omega * r / (omega * r + k - omega)
    subsets = list(itertools.combinations(range(k), omega))
    rows = []
    for x in range(k):
        row = []
        for S in subsets:
            if x in S:
                row.append(p / math.comb(k - 1, omega - 1))
            else:
                row.append((1 - p) / math.comb(k - 1, omega))
        rows.append(row)
    return subsets, rows


@pytest.mark.parametrize(("k", "omega"), [(2, 1), (3, 2), (4, 2), (5, 2), (5, 3), (6, 3), (6, 5)])
@pytest.mark.parametrize("r", [Fraction(1), Fraction(3), Fraction(10)])
def test_subset_selection_exact_entries(k, omega, r):
    subsets, rows = ss_rows(k, r, omega)
    C = q.subset_selection(k, math.log(r), omega)
    assert C.outputs == tuple(subsets)
    assert all(tuple(sorted(S)) == S for S in C.outputs)
    np.testing.assert_allclose(C.matrix, as_float_matrix(rows), atol=EXACT_ATOL, rtol=0)


def test_subset_selection_paper_example():
    # QIF paper Sec. V-B example, k = 3, omega = 2: p/2 for the two subsets with x, 1 - p else.
    eps = 0.9
    p = 2 * math.exp(eps) / (2 * math.exp(eps) + 1)
    C = q.subset_selection(3, eps, 2)
    assert C.outputs == ((0, 1), (0, 2), (1, 2))
    expected = [[p / 2, p / 2, 1 - p], [p / 2, 1 - p, p / 2], [1 - p, p / 2, p / 2]]
    np.testing.assert_allclose(C.matrix, expected, atol=EXACT_ATOL)


@pytest.mark.parametrize(
    ("k", "eps", "omega"),
    # round(k / (e^eps + 1)), half to even, at least 1 (values worked out by hand):
    # 10/(e+1) = 2.69 -> 3; 5/2 = 2.5 -> 2; 7/2 = 3.5 -> 4; 20/(e^2+1) = 2.38 -> 2;
    # 4/(e^3+1) = 0.19 -> max(1, 0) = 1.
    [(10, 1.0, 3), (5, 0.0, 2), (7, 0.0, 4), (20, 2.0, 2), (4, 3.0, 1), (10, 800.0, 1)],
)
def test_subset_selection_default_omega(k, eps, omega):
    assert ss_default_omega(k, eps) == omega
    C = q.subset_selection(k, eps)
    assert C.n_outputs == math.comb(k, omega)
    assert all(len(S) == omega for S in C.outputs)


def test_subset_selection_omega_equal_k_is_constant():
    # Rule 1 <= omega <= k: omega = k is the one-output channel (everyone reports the domain).
    C = q.subset_selection(4, 2.0, 4)
    assert C.outputs == ((0, 1, 2, 3),)
    np.testing.assert_array_equal(C.matrix, np.ones((4, 1)))


def test_ss_probabilities_match_channel():
    # p = Pr[x in S | x], q = Pr[v in S | x != v]: column sums over subsets of the channel.
    k, eps, omega = 6, 1.3, 2
    p, qq = ss_probabilities(k, eps, omega)
    C = q.subset_selection(k, eps, omega)
    contains = np.array([[v in S for S in C.outputs] for v in range(k)])
    assert C.matrix[0][contains[0]].sum() == pytest.approx(p, abs=1e-14)
    assert C.matrix[0][contains[3]].sum() == pytest.approx(qq, abs=1e-14)
    # Multidimensional-risks paper Sec. 2.2.3:
    # q = (w e^eps (w-1) + (k-w) w) / ((k-1)(w e^eps + k-w)).
    e = math.exp(eps)
    assert qq == pytest.approx(
        (omega * e * (omega - 1) + (k - omega) * omega) / ((k - 1) * (omega * e + k - omega))
    )


# -- LH ----------------------------------------------------------------------------
def lh_rows(k: int, r: Fraction, g: int) -> tuple[list, list[list[Fraction]]]:
    # QIF paper Eq. 24: C[x, (h, z)] = (1/g^k) r/(r+g-1) if h(x) = z, else (1/g^k) 1/(r+g-1).
    outputs = [(h, z) for h in itertools.product(range(g), repeat=k) for z in range(g)]
    rows = [
        [Fraction(1, g**k) * (r if h[x] == z else 1) / (r + g - 1) for (h, z) in outputs]
        for x in range(k)
    ]
    return outputs, rows


@pytest.mark.parametrize(("k", "g"), [(2, 2), (3, 2), (2, 3), (3, 3), (4, 2), (2, 5)])
@pytest.mark.parametrize("r", [Fraction(1), Fraction(4)])
def test_local_hashing_exact_entries(k, g, r):
    outputs, rows = lh_rows(k, r, g)
    C = q.local_hashing(k, math.log(r), g)
    assert C.outputs == tuple(outputs)
    np.testing.assert_allclose(C.matrix, as_float_matrix(rows), atol=EXACT_ATOL, rtol=0)


@pytest.mark.parametrize(("k", "g"), [(2, 2), (3, 2), (3, 3), (4, 3), (2, 4)])
def test_local_hashing_is_the_literal_cascade(k, g):
    # The paper's construction LH = E . G, with the core cascade on the dense G.
    eps = 1.1
    literal = q.cascade(lh_encoding(k, g), lh_perturbation(k, eps, g))
    assert literal.isclose(q.local_hashing(k, eps, g), atol=1e-15)


def test_lh_encoding_is_visible_choice_of_hash_functions():
    # E = visible choice, uniformly over h, of the deterministic channels x -> h(x).
    k, g = 3, 2
    hs = list(itertools.product(range(g), repeat=k))
    deterministic = [q.Channel(np.eye(g)[list(h)]) for h in hs]
    V = q.visible_choice(deterministic)
    E = lh_encoding(k, g)
    np.testing.assert_allclose(V.matrix, E.matrix, atol=1e-15)
    # visible_choice labels (index of h, value) <-> (h, value)
    assert [(hs[i], e) for i, e in V.outputs] == list(E.outputs)


def test_lh_perturbation_is_parallel_identity_grr():
    # G = I_{g^k} (x) GRR_g: the core parallel composition.
    k, g, eps = 2, 3, 0.7
    P = q.parallel(q.Channel(np.eye(g**k)), q.grr(g, eps))
    np.testing.assert_allclose(lh_perturbation(k, eps, g).matrix, P.matrix, atol=1e-15)


def test_blh_and_olh_choose_g():
    assert q.blh(3, 1.0).isclose(q.local_hashing(3, 1.0, 2))
    # g = round(e^eps + 1): e^0 + 1 = 2, e^0.5 + 1 = 2.65 -> 3, e + 1 = 3.72 -> 4,
    # e^3 + 1 = 21.09 -> 21.
    assert [olh_g(e) for e in (0.0, 0.5, 1.0, 3.0)] == [2, 3, 4, 21]
    assert q.olh(3, 0.5).isclose(q.local_hashing(3, 0.5, 3))
    assert q.olh(2, 0.0).isclose(q.local_hashing(2, 0.0, 2))


# -- UE ----------------------------------------------------------------------------
def ue_rows(k: int, p: Fraction, qq: Fraction) -> list[list[Fraction]]:
    # QIF paper Definition 7: Pr[y | x] = prod_m Pr[y_m | x_m], x the one-hot vector of x.
    rows = []
    for x in range(k):
        row = []
        for y in itertools.product((0, 1), repeat=k):
            v = Fraction(1)
            for m, bit in enumerate(y):
                one = p if m == x else qq
                v *= one if bit else 1 - one
            row.append(v)
        rows.append(row)
    return rows


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize(
    ("p", "qq"), [(Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 2), Fraction(1, 5)), (1, 0)]
)
def test_unary_encoding_exact_entries(k, p, qq):
    C = q.unary_encoding(k, float(p), float(qq))
    assert C.outputs == tuple(itertools.product((0, 1), repeat=k))
    np.testing.assert_allclose(C.matrix, as_float_matrix(ue_rows(k, p, qq)), atol=EXACT_ATOL)


def test_sue_paper_example_k2():
    # QIF paper Sec. V-D1, k = 2: rows 01 -> (pq, p^2, q^2, pq), 10 -> (pq, q^2, p^2, pq).
    # Our input 0 is the vector (1, 0), i.e. the paper's row "10".
    p, qq = 0.75, 0.25  # eps = 2 ln 3
    C = q.sue(2, 2 * math.log(3))
    expected = [[p * qq, qq * qq, p * p, p * qq], [p * qq, p * p, qq * qq, p * qq]]
    np.testing.assert_allclose(C.matrix, expected, atol=1e-15)


def test_oue_paper_example_k2():
    # QIF paper Sec. V-D2, k = 2, row "01" (our input 1):
    # ((1-p)(1-q), p(1-q), q(1-p), pq) with p = 1/2, q = 1/(e^eps + 1).
    eps = 1.7
    p, qq = 0.5, 1 / (math.exp(eps) + 1)
    expected_row1 = [(1 - p) * (1 - qq), p * (1 - qq), qq * (1 - p), p * qq]
    np.testing.assert_allclose(q.oue(2, eps).matrix[1], expected_row1, atol=1e-15)


@pytest.mark.parametrize("eps", [0.0, 0.4, 2.0, 9.0])
def test_sue_oue_are_unary_encoding_with_their_parameters(eps):
    # SUE p = e^{eps/2}/(e^{eps/2}+1), q = 1 - p; OUE p = 1/2, q = 1/(e^eps+1) (QIF paper V-D).
    e2 = math.exp(eps / 2)
    assert sue_probabilities(eps) == pytest.approx((e2 / (e2 + 1), 1 / (e2 + 1)), abs=1e-15)
    assert oue_probabilities(eps) == pytest.approx((0.5, 1 / (math.exp(eps) + 1)), abs=1e-15)
    bit_s = [[1 / (e2 + 1) * e2, 1 / (e2 + 1)], [1 / (e2 + 1), e2 / (e2 + 1)]]
    np.testing.assert_allclose(q.sue_bit(eps).matrix, bit_s, atol=1e-15)
    qq = 1 / (math.exp(eps) + 1)
    np.testing.assert_allclose(q.oue_bit(eps).matrix, [[1 - qq, qq], [0.5, 0.5]], atol=1e-15)
    assert q.sue(4, eps).isclose(q.one_hot(q.sue_bit(eps), 4), atol=0)
    assert q.oue(4, eps).isclose(q.one_hot(q.oue_bit(eps), 4), atol=0)
    if eps > 0:  # unary_encoding needs q < p
        assert q.sue(4, eps).isclose(q.unary_encoding(4, *sue_probabilities(eps)), atol=1e-15)
        assert q.oue(4, eps).isclose(q.unary_encoding(4, *oue_probabilities(eps)), atol=1e-15)


# -- THE ---------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0, 12.0])
@pytest.mark.parametrize("theta", [0.51, 0.75, 0.99])
def test_the_bit_is_thresholded_laplace(eps, theta):
    # Independent: scipy's Laplace(0, 2/eps) survival function at theta (bit 0) and
    # theta - 1 (bit 1, as 1 + Z > theta).
    scale = 2.0 / eps
    qq = laplace.sf(theta, scale=scale)
    p = laplace.sf(theta - 1.0, scale=scale)
    np.testing.assert_allclose(
        q.the_bit(eps, theta).matrix, [[1 - qq, qq], [1 - p, p]], atol=1e-15, rtol=0
    )
    assert the_probabilities(eps, theta) == pytest.approx((p, qq), abs=1e-15)


def test_the_paper_example_k2_and_one_hot():
    # QIF paper Sec. V-E, k = 2, first row ((1-p)(1-q), (1-p)q, p(1-q), pq) is our input 0 = (1, 0).
    eps, theta = 2.5, 0.7
    p, qq = the_probabilities(eps, theta)
    C = q.the(2, eps, theta)
    np.testing.assert_allclose(
        C.matrix[0], [(1 - p) * (1 - qq), (1 - p) * qq, p * (1 - qq), p * qq], atol=1e-15
    )
    assert q.the(4, eps, theta).isclose(q.one_hot(q.the_bit(eps, theta), 4), atol=0)


# -- degenerate and extreme eps ----------------------------------------------------
def all_channels(eps: float) -> dict[str, q.Channel]:
    return {
        "grr": q.grr(4, eps),
        "ss": q.subset_selection(5, eps, 2),
        "lh": q.local_hashing(3, eps, 3),
        "blh": q.blh(3, eps),
        "sue": q.sue(4, eps),
        "oue": q.oue(4, eps),
        "the": q.the(4, eps, 0.75),
        "sue_bit": q.sue_bit(eps),
        "oue_bit": q.oue_bit(eps),
        "the_bit": q.the_bit(eps, 0.6),
    }


def test_eps_zero_gives_constant_rows():
    # eps = 0: the output does not depend on the input; every row equals row 0.
    for name, C in all_channels(0.0).items():
        np.testing.assert_allclose(C.matrix, np.tile(C.matrix[0], (C.n_inputs, 1)), atol=1e-15)
        assert q.bayes_capacity(C) == pytest.approx(1.0, abs=1e-12), name


def test_large_eps_no_nan_and_limits():
    # eps = 800: e^eps overflows a float; the constructors must still be exact channels.
    chans = all_channels(800.0)
    for name, C in chans.items():
        assert np.all(np.isfinite(C.matrix)), name
    # Limits (enumerated by hand): GRR, SS(omega=2) -> identity-like leakage k and k/omega.
    assert q.bayes_capacity(chans["grr"]) == pytest.approx(4.0)
    assert q.bayes_capacity(chans["ss"]) == pytest.approx(5 / 2)
    assert q.bayes_capacity(chans["sue"]) == pytest.approx(4.0)
    # OUE -> (k + 1) / 2 (a 1 bit is reported w.p. 1/2, zeros stay zero).
    assert q.bayes_capacity(chans["oue"]) == pytest.approx(2.5)
    # THE's small entries are computed directly: still positive at eps = 800, theta = 0.6.
    assert chans["the_bit"].matrix.min() == pytest.approx(0.5 * math.exp(-800 * 0.4 / 2))
    assert chans["the_bit"].matrix.min() > 0


def test_grr_probabilities_do_not_overflow():
    p, qq = grr_probabilities(10, 1000.0)
    assert (p, qq) == (1.0, 0.0)
