"""Closed forms of qifldp.formulas against enumeration, the papers' prints, and high precision.

Provenance of expected values:
- "enumeration": qifldp.bayes_capacity / asr of the explicit channel (Σ_y max_x C[x, y]);
- "paper": the printed formula typed in literally here;
- "mpmath": the paper's formula evaluated with 60 significant digits (large k, eps);
- "attacker enumeration": the plausible-deniability attacker's exact expected
  accuracy, Σ_x (1/k) Σ_y C[x, y] Pr[guess = x | y], with the guess rule of the
  multidimensional-risks paper (Sec. 3.2.1) coded here;
- "Monte Carlo": simulated users, within a stated confidence interval.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import qifldp as q
from qifldp import formulas as F
from qifldp.errors import InputTypeError, ParameterError
from qifldp.protocols.params import olh_g, ss_default_omega, the_probabilities

#: Closed form vs enumeration: relative tolerance (float sums over up to 10^5 columns).
REL = 1e-11
EPS_GRID = [0.0, 0.3, 1.0, 2.5, 6.0, 20.0]


# -- closed forms = enumerated Bayes capacity ------------------------------------------
@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("eps", EPS_GRID)
def test_grr_matches_enumeration(k, eps):
    C = q.grr(k, eps)
    assert F.bayes_capacity_grr(k, eps) == pytest.approx(q.bayes_capacity(C), rel=REL)
    assert F.asr_grr(k, eps) == pytest.approx(q.asr(C), rel=REL)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("eps", EPS_GRID)
def test_ss_matches_enumeration_every_omega(k, eps):
    for omega in range(1, k + 1):
        C = q.subset_selection(k, eps, omega)
        assert F.bayes_capacity_ss(k, eps, omega) == pytest.approx(q.bayes_capacity(C), rel=REL)
        assert F.asr_ss(k, eps, omega) == pytest.approx(q.asr(C), rel=REL)
    # default omega, as in the constructor
    assert F.bayes_capacity_ss(k, eps) == pytest.approx(
        q.bayes_capacity(q.subset_selection(k, eps)), rel=REL
    )


@pytest.mark.parametrize(
    ("k", "g"), [(2, 2), (3, 2), (4, 2), (7, 2), (2, 3), (3, 3), (5, 3), (3, 4), (2, 6), (4, 5)]
)
@pytest.mark.parametrize("eps", EPS_GRID)
def test_lh_matches_enumeration(k, g, eps):
    C = q.local_hashing(k, eps, g)
    assert F.bayes_capacity_lh(k, eps, g) == pytest.approx(q.bayes_capacity(C), rel=REL)
    assert F.asr_lh(k, eps, g) == pytest.approx(q.asr(C), rel=REL)


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 1.5])
def test_blh_olh_match_enumeration(k, eps):
    assert F.bayes_capacity_blh(k, eps) == pytest.approx(q.bayes_capacity(q.blh(k, eps)), rel=REL)
    assert F.asr_blh(k, eps) == pytest.approx(q.asr(q.blh(k, eps)), rel=REL)
    C = q.olh(k, eps)
    assert F.bayes_capacity_olh(k, eps) == pytest.approx(q.bayes_capacity(C), rel=REL)
    assert F.asr_olh(k, eps) == pytest.approx(q.asr(C), rel=REL)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
@pytest.mark.parametrize(
    ("p", "qq"), [(0.75, 0.25), (0.5, 0.1), (0.9, 0.6), (1.0, 0.0), (0.3, 0.0), (1.0, 0.5)]
)
def test_ue_matches_enumeration(k, p, qq):
    C = q.unary_encoding(k, p, qq)
    assert F.bayes_capacity_ue(k, p, qq) == pytest.approx(q.bayes_capacity(C), rel=REL)
    assert F.asr_ue(k, p, qq) == pytest.approx(q.asr(C), rel=REL)


@pytest.mark.parametrize("k", [2, 3, 6, 10])
@pytest.mark.parametrize("eps", EPS_GRID)
def test_sue_oue_match_enumeration(k, eps):
    S, O = q.sue(k, eps), q.oue(k, eps)
    assert F.bayes_capacity_sue(k, eps) == pytest.approx(q.bayes_capacity(S), rel=REL)
    assert F.bayes_capacity_oue(k, eps) == pytest.approx(q.bayes_capacity(O), rel=REL)
    assert F.asr_sue(k, eps) == pytest.approx(q.asr(S), rel=REL)
    assert F.asr_oue(k, eps) == pytest.approx(q.asr(O), rel=REL)


@pytest.mark.parametrize("k", [2, 3, 6, 10])
@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("theta", [0.55, 0.75, 0.95])
def test_the_matches_enumeration(k, eps, theta):
    C = q.the(k, eps, theta)
    assert F.bayes_capacity_the(k, eps, theta) == pytest.approx(q.bayes_capacity(C), rel=REL)
    assert F.asr_the(k, eps, theta) == pytest.approx(q.asr(C), rel=REL)


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(2, 7),
    eps=st.floats(0, 12, allow_nan=False),
    data=st.data(),
)
def test_ss_and_lh_random_parameters(k, eps, data):
    omega = data.draw(st.integers(1, k))
    assert F.bayes_capacity_ss(k, eps, omega) == pytest.approx(
        q.bayes_capacity(q.subset_selection(k, eps, omega)), rel=REL
    )
    g = data.draw(st.integers(2, 4 if k <= 5 else 2))
    assert F.bayes_capacity_lh(k, eps, g) == pytest.approx(
        q.bayes_capacity(q.local_hashing(k, eps, g)), rel=REL
    )


# -- the papers' printed formulas --------------------------------------------------------
def test_qif_paper_ue_and_the_prints_are_right():
    # QIF paper Sec. V-D/E: SUE (p + p^(k-1)(1-2p))/(1-p); OUE ((1-q)^(k-1)(2q-1)+1)/(2q);
    # THE (1-q)^(k-1)(1 - p/q) + p/q. All three agree with enumeration.
    for k, eps, theta in itertools.product([2, 4, 7], [0.5, 2.0, 5.0], [0.6, 0.9]):
        p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
        sue_print = (p + p ** (k - 1) * (1 - 2 * p)) / (1 - p)
        assert sue_print == pytest.approx(q.bayes_capacity(q.sue(k, eps)), rel=1e-10)
        qq = 1 / (math.exp(eps) + 1)
        oue_print = ((1 - qq) ** (k - 1) * (2 * qq - 1) + 1) / (2 * qq)
        assert oue_print == pytest.approx(q.bayes_capacity(q.oue(k, eps)), rel=1e-10)
        pt, qt = the_probabilities(eps, theta)
        the_print = (1 - qt) ** (k - 1) * (1 - pt / qt) + pt / qt
        assert the_print == pytest.approx(q.bayes_capacity(q.the(k, eps, theta)), rel=1e-10)


def test_qif_paper_eq27_lh_is_right():
    # QIF paper Eq. 27: (e^eps g^k + (g-1)^k (1 - e^eps)) / ((e^eps + g - 1) g^(k-1)).
    for k, g, eps in itertools.product([2, 3, 5], [2, 3, 4], [0.0, 1.0, 3.0]):
        e = math.exp(eps)
        eq27 = (e * g**k + (g - 1) ** k * (1 - e)) / ((e + g - 1) * g ** (k - 1))
        assert eq27 == pytest.approx(q.bayes_capacity(q.local_hashing(k, eps, g)), rel=1e-12)


def test_qif_paper_ss_print_is_wrong():
    # QIF paper Sec. V-B prints ML(SS) = k p / C(k-1, omega-1). Enumeration disagrees
    # unless C(k-1, omega-1) = omega, i.e. omega = 1 or omega = k - 1.
    def printed(k, eps, omega):
        p = omega * math.exp(eps) / (omega * math.exp(eps) + k - omega)
        return k * p / math.comb(k - 1, omega - 1)

    # Pinned: k = 5, omega = 2, eps = 1: print 0.8055 (< 1, impossible), truth 1.6110.
    truth = q.bayes_capacity(q.subset_selection(5, 1.0, 2))
    assert printed(5, 1.0, 2) == pytest.approx(0.805506, abs=1e-6)
    assert truth == pytest.approx(1.611012, abs=1e-6)
    assert F.bayes_capacity_ss(5, 1.0, 2) == pytest.approx(truth, rel=REL)
    # Truth is k p / omega (enumeration) for all omega; the print only for omega in {1, k-1}.
    for k, eps in itertools.product([3, 4, 5, 6], [0.5, 2.0]):
        for omega in range(1, k):
            enum = q.bayes_capacity(q.subset_selection(k, eps, omega))
            p = omega * math.exp(eps) / (omega * math.exp(eps) + k - omega)
            assert enum == pytest.approx(k * p / omega, rel=REL)
            agrees = math.isclose(printed(k, eps, omega), enum, rel_tol=1e-9)
            assert agrees == (omega in (1, k - 1)), (k, eps, omega)


def test_gursoy_eq25_is_wrong_for_small_k():
    # QIF paper Eq. 25 (Gursoy et al.) vs the enumerated ASR of the LH channel.
    # Pinned: k = 2, g = 2, eps = 3: Eq. 25 = e^3/(e^3 + 1) = 0.9526, truth 0.7263
    # (= p - (p - q)/4 with p = e^3/(e^3 + 1), q = 1/(e^3 + 1), by hand).
    assert F.asr_lh_gursoy(2, 3.0, 2) == pytest.approx(math.exp(3) / (math.exp(3) + 1), rel=1e-15)
    truth = q.asr(q.local_hashing(2, 3.0, 2))
    assert truth == pytest.approx(0.726287, abs=1e-6)
    assert F.asr_lh_gursoy(2, 3.0, 2) - truth > 0.2
    # Over a grid of small k, Eq. 25 is off by more than 1% (enumeration).
    for k, g, eps in itertools.product([2, 3, 4], [2, 3], [3.0, 5.0]):
        enum = q.asr(q.local_hashing(k, eps, g))
        assert abs(F.asr_lh_gursoy(k, eps, g) / enum - 1) > 0.01, (k, g, eps)
    # For k >> g both tend to g p / k: relative gap ((g-1)/g)^k (p - q) / p -> 0.
    gap = F.asr_lh_gursoy(200, 3.0, 2) / F.asr_lh(200, 3.0, 2) - 1
    assert abs(gap) < 1e-12  # ((1/2)^200 ~ 6e-61, float rounding only)


# -- numerics: large k and eps, arrays -------------------------------------------------
def _mp_capacities(k: int, eps: float, g: int, theta: float) -> dict[str, mpmath.mpf]:
    """The papers' formulas in 60-digit arithmetic (independent of the float code)."""
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(eps))
        ps = mpmath.sqrt(e) / (mpmath.sqrt(e) + 1)
        qo = 1 / (e + 1)
        pt = 1 - mpmath.exp(mpmath.mpf(eps) * (theta - 1) / 2) / 2
        qt = mpmath.exp(-mpmath.mpf(eps) * theta / 2) / 2
        omega = 7
        return {
            "grr": k * e / (e + k - 1),
            "ss": k * e / (omega * e + k - omega),
            "lh": (e * mpmath.mpf(g) ** k + mpmath.mpf(g - 1) ** k * (1 - e))
            / ((e + g - 1) * mpmath.mpf(g) ** (k - 1)),
            "sue": (ps + ps ** (k - 1) * (1 - 2 * ps)) / (1 - ps),
            "oue": ((1 - qo) ** (k - 1) * (2 * qo - 1) + 1) / (2 * qo),
            "the": (1 - qt) ** (k - 1) * (1 - pt / qt) + pt / qt,
        }


@pytest.mark.parametrize(("k", "eps"), [(10**6, 50.0), (10**6, 1.0), (10**4, 20.0), (50, 0.01)])
def test_large_k_and_eps_against_high_precision(k, eps):
    g, theta = 3, 0.75
    ref = _mp_capacities(k, eps, g, theta)
    ours = {
        "grr": F.bayes_capacity_grr(k, eps),
        "ss": F.bayes_capacity_ss(k, eps, 7),
        "lh": F.bayes_capacity_lh(k, eps, g),
        "sue": F.bayes_capacity_sue(k, eps),
        "oue": F.bayes_capacity_oue(k, eps),
        "the": F.bayes_capacity_the(k, eps, theta),
    }
    for name, value in ours.items():
        assert math.isfinite(value), name
        assert value == pytest.approx(float(ref[name]), rel=1e-12), name


def test_overflow_range_eps_800():
    # e^800 overflows a float; the limits are exact: GRR, SUE -> k; SS -> k / omega;
    # OUE, OLH -> (k + 1)/2; LH(g) -> g (1 - ((g-1)/g)^k) (= 1.75 for k = 2, g = 4... by hand:
    # 4 (1 - 9/16) = 1.75); THE -> (1 - p) + k p with p -> 1, i.e. k.
    k = 9
    assert F.bayes_capacity_grr(k, 800.0) == k
    assert F.bayes_capacity_sue(k, 800.0) == k
    assert F.bayes_capacity_ss(k, 800.0, 3) == 3.0
    assert F.bayes_capacity_oue(k, 800.0) == 5.0
    assert F.bayes_capacity_olh(k, 800.0) == pytest.approx(5.0, rel=1e-15)
    assert F.bayes_capacity_lh(2, 800.0, 4) == pytest.approx(1.75, rel=1e-15)
    assert F.bayes_capacity_the(k, 800.0, 0.75) == pytest.approx(k, rel=1e-15)
    assert F.asr_lh_gursoy(k, 800.0, 2) == pytest.approx(2 / k)
    # OLH at eps beyond float range of g uses log g; continuous across eps = 700.
    assert F.bayes_capacity_olh(k, 699.0) == pytest.approx(F.bayes_capacity_olh(k, 701.0))
    for f in (F.acc_grr, F.acc_olh, F.acc_ss, F.acc_sue, F.acc_oue):
        assert math.isfinite(f(k, 800.0))
        if f is not F.acc_ss:
            assert math.isfinite(f(k, 800.0, printed=True))
    # the printed SS accuracy (e^eps + 1)/(2k) itself overflows: +inf, never NaN
    assert F.acc_ss(k, 800.0, printed=True) == math.inf


def test_vectorised_equals_scalar():
    ks = np.array([2, 5, 40, 1000])
    eps = np.array([0.0, 0.7, 3.0, 12.0])
    for f, extra in [
        (F.bayes_capacity_grr, ()),
        (F.bayes_capacity_ss, ()),
        (F.bayes_capacity_lh, (3,)),
        (F.bayes_capacity_blh, ()),
        (F.bayes_capacity_olh, ()),
        (F.bayes_capacity_sue, ()),
        (F.bayes_capacity_oue, ()),
        (F.bayes_capacity_the, (0.8,)),
        (F.asr_lh_gursoy, (4,)),
        (F.acc_sue, ()),
        (F.acc_ss, ()),
    ]:
        out = f(ks, eps, *extra)
        assert isinstance(out, np.ndarray) and out.shape == (4,)
        expected = [f(int(k), float(e), *extra) for k, e in zip(ks, eps, strict=True)]
        np.testing.assert_allclose(out, expected, rtol=1e-15)
        assert isinstance(expected[0], float)
    # broadcasting: a grid of eps against one k
    grid = F.bayes_capacity_oue(50, np.linspace(0, 10, 11))
    assert grid.shape == (11,) and np.all(np.diff(grid) > 0)
    # printed ACC sums vectorise too
    np.testing.assert_allclose(F.acc_oue(ks, eps, printed=True), F.acc_oue(ks, eps), rtol=1e-12)


def test_huge_python_int_g():
    # g with 400 digits (beyond float64): the log-space form gives ML -> 1 at eps = 1
    # (each hash value is almost never hit twice; ML = (k + g r^k e^-1) / (1 + (g-1) e^-1)).
    assert F.bayes_capacity_lh(5, 1.0, 10**400) == pytest.approx(1.0, rel=1e-12)


# -- Lemma 10 threshold ----------------------------------------------------------------
def test_the_oue_threshold_values():
    # eps -> 0: the formula is 0/0; limit 1/sqrt(2) (QIF paper, proof sketch of Lemma 10).
    assert F.the_oue_threshold(0.0) == pytest.approx(2**-0.5, rel=1e-15)
    assert F.the_oue_threshold(1e-9) == pytest.approx(2**-0.5, rel=1e-8)
    # Paper: "setting eps = 0.8 produces theta >= 0.8".
    assert F.the_oue_threshold(0.8) == pytest.approx(0.8, abs=2e-5)
    # Literal formula (paper) at moderate eps.
    for eps in [0.3, 1.0, 4.0, 20.0]:
        e = math.exp(eps)
        lit = (
            2 * math.log(e + 1 + (math.exp(eps / 2) - 1) * math.sqrt(e + 1)) - eps - 2 * math.log(2)
        ) / eps
        assert F.the_oue_threshold(eps) == pytest.approx(lit, rel=1e-12)
    # Increasing from 1/sqrt(2) towards 1, finite at eps = 800.
    grid = F.the_oue_threshold(np.linspace(0, 50, 101))
    assert np.all(np.diff(grid) > 0) and grid[-1] < 1
    assert 0.99 < F.the_oue_threshold(800.0) <= 1  # 1 - O(e^-400): rounds to 1


@pytest.mark.parametrize("eps", [0.3, 0.8, 1.5, 3.0, 6.0])
def test_lemma10_threshold_decides_refinement(eps):
    # OUE_bit ⊑ THE_bit iff W = O^{-1} T is row-stochastic (2x2, O invertible for eps > 0):
    # an exact witness, independent of the refinement module.
    theta_star = F.the_oue_threshold(eps)
    O = q.oue_bit(eps).matrix

    def witness_min(theta):
        return np.linalg.solve(O, q.the_bit(eps, theta).matrix).min()

    assert witness_min(min(theta_star + 1e-3, 0.999)) >= -1e-12
    if theta_star - 1e-3 > 0.5:
        assert witness_min(theta_star - 1e-3) < 0


# -- ACC (multidimensional-risks paper, Sec. 3.2.1) ------------------------------------
def attacker_accuracy(C: q.Channel, support) -> float:
    """Exact accuracy of "guess uniformly in support(y), or in the domain if empty"."""
    k = C.n_inputs
    total = 0.0
    for j, y in enumerate(C.outputs):
        S = support(y)
        if not S:
            S = range(k)
        total += sum(C.matrix[x, j] for x in S) / len(S)
    return total / k


def ue_support(y):
    return [i for i, b in enumerate(y) if b == 1]


@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 7.0])
def test_acc_grr_sue_oue_are_exact(k, eps):
    # GRR: guess = report.
    assert F.acc_grr(k, eps) == pytest.approx(
        attacker_accuracy(q.grr(k, eps), lambda y: [y]), rel=1e-12
    )
    assert F.acc_grr(k, eps, printed=True) == F.acc_grr(k, eps)
    for acc, channel in [(F.acc_sue, q.sue), (F.acc_oue, q.oue)]:
        exact = attacker_accuracy(channel(k, eps), ue_support)
        assert acc(k, eps) == pytest.approx(exact, rel=1e-12)
        assert acc(k, eps, printed=True) == pytest.approx(exact, rel=1e-12)
        # ... and the attacker is Bayes-optimal: ACC = ASR = ML / k.
        assert exact == pytest.approx(q.asr(channel(k, eps)), rel=1e-12)


@pytest.mark.parametrize("k", [3, 5, 8])
@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_acc_ss_exact_and_printed(k, eps):
    omega = ss_default_omega(k, eps)
    C = q.subset_selection(k, eps, omega)
    exact = attacker_accuracy(C, lambda S: list(S))
    assert F.acc_ss(k, eps) == pytest.approx(exact, rel=1e-12)
    assert exact == pytest.approx(q.asr(C), rel=1e-12)
    # printed (e^eps + 1)/(2k) = the same at the real-valued omega = k / (e^eps + 1).
    assert F.acc_ss(k, eps, printed=True) == pytest.approx((math.exp(eps) + 1) / (2 * k), rel=1e-14)


def test_acc_ss_printed_discrepancy_pinned():
    # Integer omega = k/(e^eps+1): k = 6, eps = ln 2 gives omega = 2, and the print is exact.
    eps = math.log(2)
    assert ss_default_omega(6, eps) == 2
    assert F.acc_ss(6, eps, printed=True) == pytest.approx(F.acc_ss(6, eps), rel=1e-12)
    assert F.acc_ss(6, eps) == pytest.approx(0.25, rel=1e-12)  # e^eps/(2 e^eps + 4) = 2/8
    # k = 10, eps = 5: omega = 1; print 7.47 (747 %), truth e^5/(e^5 + 9) = 0.9428.
    assert F.acc_ss(10, 5.0, printed=True) == pytest.approx((math.exp(5) + 1) / 20)
    assert F.acc_ss(10, 5.0, printed=True) > 7
    assert F.acc_ss(10, 5.0) == pytest.approx(math.exp(5) / (math.exp(5) + 9), rel=1e-12)
    assert F.acc_ss(10, 5.0) == pytest.approx(
        attacker_accuracy(q.subset_selection(10, 5.0), lambda S: list(S)), rel=1e-12
    )


@pytest.mark.parametrize(("k", "eps"), [(2, 0.5), (3, 1.0), (2, 1.5), (4, 0.3)])
def test_acc_olh_exact_and_printed(k, eps):
    C = q.olh(k, eps)
    g = olh_g(eps)

    def support(y):
        h, z = y
        return [x for x in range(k) if h[x] == z]

    exact = attacker_accuracy(C, support)
    assert F.acc_olh(k, eps) == pytest.approx(exact, rel=1e-12)
    assert exact == pytest.approx(q.asr(C), rel=1e-12)
    # printed = Gursoy's Eq. 25 at the real g = e^eps + 1.
    assert F.acc_olh(k, eps, printed=True) == pytest.approx(
        1 / (2 * max(k / (math.exp(eps) + 1), 1)), rel=1e-14
    )
    assert F.acc_olh(k, eps, printed=True) == pytest.approx(
        F.asr_lh_gursoy(k, eps, g), rel=0.5
    )  # same formula family, integer vs real g


def test_acc_olh_printed_discrepancy_pinned():
    # k = 2, eps = 3 (g = 21): printed 0.5, truth 0.7267 (enumeration of olh(2, 3) is 2 x 19448;
    # the closed form is checked against enumeration above).
    assert F.acc_olh(2, 3.0, printed=True) == 0.5
    assert F.acc_olh(2, 3.0) == pytest.approx(0.72672, abs=1e-5)
    assert F.acc_olh(2, 3.0) == pytest.approx(q.asr(q.olh(2, 3.0)), rel=1e-12)


def test_acc_oue_monte_carlo_k50():
    # Beyond enumeration (2^50 outputs): simulate the attacker on OUE, k = 50, eps = 4.
    # n = 200000 users, 99.9 % two-sided binomial interval (z = 3.29).
    rng = np.random.default_rng(20240601)
    k, eps, n = 50, 4.0, 200_000
    pq = 1 / (math.exp(eps) + 1)
    x = rng.integers(0, k, size=n)
    bits = rng.random((n, k)) < pq
    bits[np.arange(n), x] = rng.random(n) < 0.5
    ones = bits.sum(axis=1)
    hit = bits[np.arange(n), x]
    # guess uniform among ones (success 1/#ones if the true bit is 1), else uniform in [k]
    success = np.where(ones == 0, 1.0 / k, np.where(hit, 1.0 / np.maximum(ones, 1), 0.0))
    expected = F.acc_oue(k, eps)
    half_width = 3.29 * math.sqrt(expected * (1 - expected) / n)
    assert abs(success.mean() - expected) < half_width


# -- argument rules --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: F.bayes_capacity_grr(1, 1.0), ParameterError, "k must be >= 2"),
        (lambda: F.bayes_capacity_grr(2.5, 1.0), InputTypeError, "k must be an integer"),
        (lambda: F.bayes_capacity_grr([2, 1], 1.0), ParameterError, "k must be >= 2"),
        (lambda: F.bayes_capacity_grr(True, 1.0), InputTypeError, "k must be an integer"),
        (lambda: F.bayes_capacity_grr(3, -1.0), ParameterError, "eps must be >= 0"),
        (lambda: F.bayes_capacity_grr(3, math.inf), ParameterError, "eps must be finite"),
        (lambda: F.bayes_capacity_grr(3, math.nan), ParameterError, "eps must not be NaN"),
        (lambda: F.bayes_capacity_grr(3, "1"), InputTypeError, "eps must be a real"),
        (lambda: F.bayes_capacity_ss(5, 1.0, 0), ParameterError, "omega must be >= 1"),
        (lambda: F.bayes_capacity_ss(5, 1.0, 6), ParameterError, "1 <= omega <= k"),
        (lambda: F.bayes_capacity_lh(5, 1.0, 1), ParameterError, "g must be >= 2"),
        (lambda: F.bayes_capacity_the(5, 1.0, 0.5), ParameterError, "theta must lie"),
        (lambda: F.bayes_capacity_the(5, 1.0, 1.0), ParameterError, "theta must lie"),
        (lambda: F.bayes_capacity_ue(5, 0.3, 0.3), ParameterError, "0 <= q < p <= 1"),
        (lambda: F.bayes_capacity_ue(5, 1.1, 0.3), ParameterError, "0 <= q < p <= 1"),
        (lambda: F.the_oue_threshold(-1.0), ParameterError, "eps must be >= 0"),
        (lambda: F.acc_ss(5, 1.0, 2, printed=True), ParameterError, "omega must be None"),
        (lambda: F.acc_sue(5, 1.0, printed="yes"), InputTypeError, "printed must be a bool"),
        (lambda: F.ldp_epsilon_the(1.0, 0.2), ParameterError, "theta must lie"),
    ],
)
def test_argument_rules(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_float_k_beyond_int64_is_exact_not_wrapped():
    # issue 8 (bad-input sweep): k = 1e300 was cast to int64 (wrapping to a negative
    # number) and refused as "k must be >= 2". GRR's capacity k e^eps / (e^eps + k - 1)
    # tends to e^eps as k grows: at k = 1e300 it is e^eps to double precision.
    import math

    from qifldp import formulas as f

    assert math.isclose(f.bayes_capacity_grr(1e300, 1.0), math.e, rel_tol=1e-15)
    assert f.bayes_capacity_grr(1e300, 1.0) == f.bayes_capacity_grr(10**300, 1.0)
    out = f.asr_grr([4.0, 1e20], 1.0)
    assert math.isclose(out[1], math.e * 1e-20, rel_tol=1e-12)
    assert math.isclose(out[0], f.asr_grr(4, 1.0), rel_tol=1e-15)


def test_integer_k_beyond_the_float_range_is_refused_clearly():
    # issue 8 (bad-input sweep): k = 10**400 raised OverflowError from float(k)
    import pytest

    from qifldp import formulas as f
    from qifldp.errors import ParameterError

    for fn in (f.bayes_capacity_grr, f.asr_oue, f.bayes_capacity_ss, f.acc_sue):
        with pytest.raises(ParameterError, match=r"k beyond the float range.*10\^400.0"):
            fn(10**400, 1.0)
    with pytest.raises(ParameterError, match=r"10\^5000.0"):
        f.asr_grr(10**5000, 1.0)
    # g of local hashing enters through its logarithm: a huge g stays supported
    assert f.bayes_capacity_lh(5, 1.0, 10**400) == pytest.approx(1.0, rel=1e-12)
