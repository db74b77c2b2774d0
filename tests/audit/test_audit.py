"""qifldp.audit: each claim's verdict against an expectation derived here, and `qifldp audit`.

Every expected verdict is re-derived in this file without the audit's own code:
exact enumeration of small channels with Fractions (written out from the papers'
protocol descriptions), closed-form 2x2 witnesses by Cramer's rule, the symmetric
GRR witness in closed form, and hand-computed numbers. Papers (qifldp.audit.BIBLIOGRAPHY):
QIF = Gonze et al., CSF 2026; PCKV = Gu et al., USENIX Security 2020; RR3 = Ma and Wang,
arXiv 2021 (three-answer RR); RISKS = Arcolezi et al., PVLDB 2023. The claims added with
the bibliography are tested in tests/audit/.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction as F

import numpy as np
import pytest

from qifldp import audit as A
from qifldp.audit._verdicts import _cmp
from qifldp.cli import main
from qifldp.errors import (
    InputTypeError,
    ParameterError,
    SolverError,
    VerificationError,
)

#: The only claim allowed to stay undecided, and why (its objects are not in the text).
UNDECIDABLE = {
    "rr3.sections_3_4": "not defined in it",
    # (qif.fig6_sue_oue is decided since issue 12: SUE ⊑ OUE above eps*(50) is proved for
    # the real channels by the tight-ratio reduction)
}


@pytest.fixture(scope="module")
def results():
    """One full audit run shared by the verdict tests (a few seconds)."""
    return {r.key: r for r in A.audit()}


# --- independent helpers -----------------------------------------------------------------


def _capacity(rows):
    """Bayes capacity Σ_y max_x C[x, y] of an exact channel (rows of Fractions)."""
    return sum(max(col) for col in zip(*rows, strict=True))


def _ratio(rows):
    """e^epsilon: the largest ratio of two entries of one column (all positive)."""
    return max(max(col) / min(col) for col in zip(*rows, strict=True))


def _inv_witness(Cm, Dm):
    """W = C^{-1} D for 2x2 channels by Cramer's rule (exact); C invertible."""
    (a, b), (c, d) = Cm
    det = a * d - b * c
    inv = [[d / det, -b / det], [-c / det, a / det]]
    return [[sum(inv[i][k] * Dm[k][j] for k in range(2)) for j in range(2)] for i in range(2)]


def _refines_2x2(Cm, Dm):
    """C ⊑ D for an invertible 2x2 C: the unique candidate C^{-1} D is nonnegative."""
    return all(v >= 0 for row in _inv_witness(Cm, Dm) for v in row)


def _np_min_witness(Cm, Dm):
    return float(np.min(np.linalg.solve(np.asarray(Cm, float), np.asarray(Dm, float))))


def _lh_rows(k, g, E):
    """LH by the QIF paper's Eq. 24: C[x, (h, z)] = g^-k (E if h(x) = z else 1) / (E + g - 1)."""
    out = itertools.product(itertools.product(range(g), repeat=k), range(g))
    cols = list(out)
    return [[F(1, g**k) * (E if h[x] == z else 1) / (E + g - 1) for h, z in cols] for x in range(k)]


def _ue_rows(k, p, qq):
    """Unary encoding: one-hot input, bit 1 kept w.p. p, bit 0 set to 1 w.p. q."""
    rows = []
    for x in range(k):
        row = []
        for y in itertools.product((0, 1), repeat=k):
            e = F(1)
            for i, b in enumerate(y):
                prob1 = p if i == x else qq
                e *= prob1 if b == 1 else 1 - prob1
            row.append(e)
        rows.append(row)
    return rows


def _bits_sue(eps):
    a = math.exp(eps / 2)
    return [[a / (a + 1), 1 / (a + 1)], [1 / (a + 1), a / (a + 1)]]


def _bits_oue(eps):
    E = math.exp(eps)
    return [[E / (E + 1), 1 / (E + 1)], [0.5, 0.5]]


def _bits_the(eps, theta):
    t0, t1 = 0.5 * math.exp(-eps * theta / 2), 0.5 * math.exp(-eps * (1 - theta) / 2)
    return [[1 - t0, t0], [t1, 1 - t1]]


# --- registry and vocabulary ----------------------------------------------------------------


def test_registry_is_well_formed():
    keys = [c.key for c in A.CLAIMS]
    assert len(keys) == len(set(keys))
    for c in A.CLAIMS:
        assert c.claim.endswith(".") and c.source and callable(c.procedure)
        assert A.get_claim(c.key) is c
    for c in A.CLAIMS:
        assert c.references and set(c.references) <= set(A.BIBLIOGRAPHY)
        for ref in c.references:
            assert A.BIBLIOGRAPHY[ref].cite in c.source
        assert "[00" not in c.source  # file numbers are no citation
    assert {r for c in A.CLAIMS for r in c.references} == set(A.BIBLIOGRAPHY)


def test_every_claim_is_decided(results):
    assert set(results) == {c.key for c in A.CLAIMS}
    for r in results.values():
        assert r.verdict in A.VERDICTS
        if r.key in UNDECIDABLE:
            assert r.verdict == A.INCONCLUSIVE and UNDECIDABLE[r.key] in r.details
        else:
            assert r.verdict != A.INCONCLUSIVE, (r.key, r.details)
        assert r.details and r.seconds >= 0


# --- QIF paper: 2x2 criteria ------------------------------------------------------------------


def test_lemma1_holds_only_in_orientation(results):
    # C and its column swap D are the same channel (C·swap = D, a permutation witness),
    # but the printed inequalities (no orientation) deny C ⊑ D: 9/2 > 1/8.
    C = [[F(1, 5), F(4, 5)], [F(9, 10), F(1, 10)]]
    D = [[F(4, 5), F(1, 5)], [F(1, 10), F(9, 10)]]
    aC, bC, aD, bD = C[0][1], C[1][0], D[0][1], D[1][0]
    assert bC / (1 - aC) == F(9, 2) and bD / (1 - aD) == F(1, 8)
    assert _inv_witness(C, D) == [[0, 1], [1, 0]]
    r = results["qif.lemma1"]
    assert r.verdict == A.CONDITIONAL
    assert r.details.startswith("Condition: both channels written with alpha + beta <= 1")
    assert "0 disagreements" in r.details


def test_lemma2_holds_only_for_oriented_d(results):
    # alpha_C = 1/10 <= 4/5, beta_C = 3/20 <= 9/10, but D equals (columns swapped)
    # D' = [[4/5, 1/5], [1/10, 9/10]] and C^{-1} D' has a negative entry: C ⋢ D.
    C = [[F(9, 10), F(1, 10)], [F(3, 20), F(17, 20)]]
    Dp = [[F(4, 5), F(1, 5)], [F(1, 10), F(9, 10)]]
    assert not _refines_2x2(C, Dp)
    r = results["qif.lemma2"]
    assert r.verdict == A.CONDITIONAL
    assert "alpha_D + beta_D <= 1" in r.details and "0 failures" in r.details


# --- QIF paper: families and comparisons -----------------------------------------------------


def test_grr_family_by_symmetric_witness(results):
    # GRR(p1)·(a I + b (J - I)) has diagonal p1 a + q1 (1 - a) (b = (1 - a)/(k - 1)), so the
    # symmetric witness to GRR(p2) is a = (p2 - q1)/(p1 - q1), valid iff 0 <= a <= 1. A witness
    # can always be averaged over the symmetry group, so "no symmetric witness" means "no witness".
    def pq(E, k):
        return F(E, E + k - 1), F(1, E + k - 1)

    k = 3
    for E1, E2 in ((3, 2), (5, 3), (5, 2)):
        (p1, q1), (p2, q2) = pq(E1, k), pq(E2, k)
        assert 0 <= (p2 - q1) / (p1 - q1) <= 1  # GRR(ln E1) ⊑ GRR(ln E2)
        assert not 0 <= (p1 - q2) / (p2 - q2) <= 1  # and not the reverse
    assert results["qif.grr_family"].verdict == A.CONFIRMED


@pytest.mark.parametrize(
    ("key", "point"),
    [
        ("qif.sue_family", lambda e: (1 / (math.exp(e / 2) + 1),) * 2),
        ("qif.oue_family", lambda e: (1 / (math.exp(e) + 1), 0.5)),
        ("qif.the_family", lambda e: (0.5 * math.exp(-e * 0.75 / 2), 0.5 * math.exp(-e * 0.125))),
    ],
)
def test_bit_families(results, key, point):
    # Trade-off points (alpha, beta) with alpha + beta <= 1 that decrease coordinatewise in eps:
    # by the paper's Lemma 2 (oriented) M(eps') ⊑ M(eps) for eps' >= eps; Lemma 4 lifts it.
    grid = [0.1, 0.5, 1, 2, 4, 8]
    pts = [point(e) for e in grid]
    assert all(a + b <= 1 for a, b in pts)
    for (a1, b1), (a2, b2) in itertools.pairwise(pts):
        assert a2 <= a1 and b2 <= b1 and (a2, b2) != (a1, b1)
    assert results[key].verdict == A.CONFIRMED


def test_lemma4_kronecker_lift(results):
    # (A W)^{⊗3} = A^{⊗3} W^{⊗3}; keeping the one-hot rows gives the lifted certificate.
    S, T = _bits_sue(1.0), _bits_the(1.0, 0.7)
    W = np.linalg.solve(np.asarray(S), np.asarray(T))
    assert W.min() >= 0
    hot = [4, 2, 1]  # rows of 100, 010, 001 in the 3-bit lexicographic order
    S3 = np.kron(np.kron(S, S), S)[hot]
    T3 = np.kron(np.kron(T, T), T)[hot]
    np.testing.assert_allclose(S3 @ np.kron(np.kron(W, W), W), T3, atol=1e-14)
    assert results["qif.lemma4"].verdict == A.CONFIRMED


def test_lemma9_incomparable(results):
    for eps in (0.5, 1.0, 4.0):
        S, O = _bits_sue(eps), _bits_oue(eps)
        assert _np_min_witness(S, O) < -1e-3 and _np_min_witness(O, S) < -1e-3
    r = results["qif.lemma9"]
    assert r.verdict == A.CONFIRMED and "comparable at no eps" in r.details
    # the one-hot channels are not always incomparable: what holds is stated with thresholds
    assert "NOT always incomparable" in r.details
    for bracket in ("[1.955, 1.956]", "[2.851, 2.852]", "[3.456, 3.457]", "[8.514, 8.515]"):
        assert bracket in r.details


def test_lemma10_threshold(results):
    # Threshold as printed in Lemma 10; the unique 2x2 witness O^{-1} T changes sign there.
    eps = 2.0
    E = math.exp(eps)
    th = (
        2 * math.log(E + 1 + (math.exp(eps / 2) - 1) * math.sqrt(E + 1)) - eps - 2 * math.log(2)
    ) / eps
    assert th == pytest.approx(0.899557, abs=1e-6)
    assert _np_min_witness(_bits_oue(eps), _bits_the(eps, th + 1e-3)) > 0
    assert _np_min_witness(_bits_oue(eps), _bits_the(eps, th - 1e-3)) < 0
    r = results["qif.lemma10"]
    assert r.verdict == A.CONFIRMED and "0.799989" in r.details


def test_lemma10_onehot(results):
    # eps = 20 ln(21/20), theta = 9/10 is above the threshold: a bit witness exists, and its
    # Kronecker cube certifies the one-hot refinement at k = 3 (paper's Lemma 4).
    eps, theta = 20 * math.log(21 / 20), 0.9
    O, T = _bits_oue(eps), _bits_the(eps, theta)
    W = np.linalg.solve(np.asarray(O), np.asarray(T))
    assert W.min() > 0
    hot = [4, 2, 1]
    np.testing.assert_allclose(
        np.kron(np.kron(O, O), O)[hot] @ np.kron(np.kron(W, W), W),
        np.kron(np.kron(T, T), T)[hot],
        atol=1e-14,
    )
    assert results["qif.lemma10_onehot"].verdict == A.CONFIRMED


def test_lemma11(results):
    for eps in (0.5, 2.0, 8.0):
        for theta in (0.55, 0.75, 0.99):
            assert _np_min_witness(_bits_sue(eps), _bits_the(eps, theta)) >= 0
    assert results["qif.lemma11"].verdict == A.CONFIRMED


def test_cor2_average_and_max_case_coincide(results):
    # Max-case: B = A R with R >= 0. For invertible 2x2 A, R = A^{-1} B is unique and its rows
    # sum to 1 (A 1 = 1 and B 1 = 1 give R 1 = A^{-1} 1 = 1), so R >= 0 iff R is a
    # row-stochastic witness: the two refinements coincide.
    for Cm, Dm in (
        ([[F(3, 4), F(1, 4)], [F(1, 3), F(2, 3)]], [[F(1, 2), F(1, 2)], [F(2, 5), F(3, 5)]]),
        ([[F(9, 10), F(1, 10)], [F(1, 5), F(4, 5)]], [[F(1, 7), F(6, 7)], [F(5, 8), F(3, 8)]]),
    ):
        assert all(sum(row) == 1 for row in _inv_witness(Cm, Dm))
    r = results["qif.cor2"]
    assert r.verdict == A.CONFIRMED and "agree on 60" in r.details


# --- QIF paper: closed forms -----------------------------------------------------------------


def test_eq25_refuted_by_enumeration(results):
    # k = g = 2, e^eps = 3: the enumerated channel gives ASR 5/8, Eq. 25 gives 3/4.
    assert _capacity(_lh_rows(2, 2, 3)) / 2 == F(5, 8)
    assert F(3, 3 + 1) / max(F(2, 2), 1) == F(3, 4)
    # the brief's numbers at eps = 3: enumeration vs e^3 / (e^3 + 1)
    E = math.exp(3)
    rows = [[float(v) for v in row] for row in _lh_rows(2, 2, F(E))]
    assert sum(max(c) for c in zip(*rows, strict=True)) / 2 == pytest.approx(0.7263, abs=1e-4)
    assert E / (E + 1) == pytest.approx(0.9526, abs=1e-4)
    r = results["qif.eq25"]
    assert r.verdict == A.REFUTED
    assert "0.9526" in r.details and "0.7263" in r.details and "5/8" in r.details


def test_eq26_confirmed(results):
    for k, g in ((3, 3), (4, 2)):
        E = 3
        eq26 = F(E * g**k + (g - 1) ** k * (1 - E), (E + g - 1) * k * g ** (k - 1))
        assert _capacity(_lh_rows(k, g, E)) / k == eq26
    assert results["qif.eq26"].verdict == A.CONFIRMED


def test_ss_capacity_conditional(results):
    # omega-SS over k = 5 at e^eps = 3: entries p / C(4, omega-1) inside the subset and
    # (1 - p) / C(4, omega) outside (QIF Sec. V-B), enumerated over all omega-subsets.
    def capacity(k, omega):
        p = F(omega * 3, omega * 3 + k - omega)
        cols = list(itertools.combinations(range(k), omega))
        rows = [
            [
                p / math.comb(k - 1, omega - 1) if x in S else (1 - p) / math.comb(k - 1, omega)
                for S in cols
            ]
            for x in range(k)
        ]
        return _capacity(rows), k * p / math.comb(k - 1, omega - 1)

    true, printed = capacity(5, 2)
    assert (true, printed) == (F(5, 3), F(5, 6))
    assert capacity(5, 1)[0] == capacity(5, 1)[1] and capacity(5, 4)[0] == capacity(5, 4)[1]
    r = results["qif.ss_capacity"]
    assert r.verdict == A.CONDITIONAL and r.details.startswith(
        "Condition: omega = 1 or omega = k - 1"
    )


@pytest.mark.parametrize(
    ("key", "p", "qq", "printed"),
    [
        # SUE at e^(eps/2) = 3: p = 3/4, q = 1/4; printed (p + p^(k-1)(1 - 2p)) / (1 - p)
        (
            "qif.sue_capacity",
            F(3, 4),
            F(1, 4),
            lambda k, p, qq: (p + p ** (k - 1) * (1 - 2 * p)) / (1 - p),
        ),
        # OUE at e^eps = 3: p = 1/2, q = 1/4; printed ((1 - q)^(k-1)(2q - 1) + 1) / (2q)
        (
            "qif.oue_capacity",
            F(1, 2),
            F(1, 4),
            lambda k, p, qq: ((1 - qq) ** (k - 1) * (2 * qq - 1) + 1) / (2 * qq),
        ),
        # THE at eps = 6 ln 2, theta = 2/3: q = 1/8, 1 - p = 1/4; printed (1-q)^(k-1)(1 - p/q) + p/q
        (
            "qif.the_capacity",
            F(3, 4),
            F(1, 8),
            lambda k, p, qq: (1 - qq) ** (k - 1) * (1 - p / qq) + p / qq,
        ),
    ],
)
def test_ue_capacities_confirmed(results, key, p, qq, printed):
    for k in (2, 3, 4):
        assert _capacity(_ue_rows(k, p, qq)) == printed(k, p, qq)
    assert results[key].verdict == A.CONFIRMED


def test_epsilons_confirmed(results):
    # GRR(4) at e^eps = 3: p / q = 3 exactly; OUE(3) at e^eps = 3: (p/q)((1-q)/(1-p)) = 3.
    grr = [[F(3, 6) if x == y else F(1, 6) for y in range(4)] for x in range(4)]
    assert _ratio(grr) == 3
    assert _ratio(_ue_rows(3, F(1, 2), F(1, 4))) == 3
    assert results["qif.epsilons"].verdict == A.CONFIRMED


def test_the_epsilon_corrected(results):
    # THE at eps = 6 ln 2, theta = 2/3: p = 3/4, q = 1/8, e^(true eps) = 6 * (7/2) = 21 < 64.
    assert _ratio(_ue_rows(3, F(3, 4), F(1, 8))) == 21
    r = results["qif.the_epsilon"]
    assert r.verdict == A.CORRECTED and "= 21 < e^eps = 64" in r.details
    assert "6.2199" in r.details  # eps = 10, theta = 0.75 (tests/mechanisms pin 6.219854)


def test_fig6_crossing(results):
    # The QIF paper's printed SUE and OUE capacities at k = 50: sign change in [6.5, 7].
    def diff(eps):
        p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
        sue = (p + p**49 * (1 - 2 * p)) / (1 - p)
        qq = 1 / (math.exp(eps) + 1)
        oue = ((1 - qq) ** 49 * (2 * qq - 1) + 1) / (2 * qq)
        return sue - oue

    lo, hi = 6.5, 7.0
    assert diff(lo) < -1 and diff(hi) > 0.5
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if diff(mid) < 0 else (lo, mid)
    r = results["qif.fig6_crossing"]
    assert r.verdict == A.CONFIRMED and f"{lo:.4f}" in r.details


def test_fig6_limits_corrected(results):
    # OUE: ((1-q)^(k-1)(2q-1) + 1)/(2q) = (1 + k)/2 + O(q) as q = 1/(e^eps + 1) -> 0;
    # BLH: g (1 - ((g-1)/g)^k) with g = 2 -> 2 (1 - 2^-k) = 1.9375 at k = 5.
    qq = F(1, 10**12 + 1)  # e^eps = 10^12, exact
    assert abs(((1 - qq) ** 4 * (2 * qq - 1) + 1) / (2 * qq) - 3) < F(1, 10**10)
    assert 2 * (1 - 0.5**5) == 1.9375
    r = results["qif.fig6_limits"]
    assert r.verdict == A.CORRECTED and "BLH 1.9375" in r.details and "(k + 1)/2" in r.details


# --- PCKV --------------------------------------------------------------------------------------


def test_pckv_theorem2_and_padding(results):
    # Theorem 2 at eps1 = eps2 = 1: 1 + ln(2 / (1 + e^-1)); true epsilon for d = 1 < ell = 2 from
    # the per-slot likelihood ratios (tests/composite/test_keyvalue.py derivation): m = 1 key.
    stated = 1 + math.log(2 / (1 + math.exp(-1)))
    E, p = math.e, math.e / (math.e + 1)
    R1, Rm, R0 = p * (E + 1), (1 - p) * (E + 1), (E + 1) / (2 * E)
    true = math.log((R1 + R0) / min(2 * R0, Rm + R0))
    assert (round(stated, 6), round(true, 6)) == (1.379885, 0.911167)
    r2 = results["pckv.theorem2"]
    assert r2.verdict == A.CONFIRMED and "1.379885 stated, 0.911167 true" in r2.details
    r = results["pckv.ue_no_amplification"]
    assert r.verdict == A.CONDITIONAL and r.details.startswith("Condition: d >= ell")


def _pckv_grr_by_hand(eps1, eps2):
    """PCKV-GRR, d = 1 key, ell = 2, from Algorithms 1 and 3 written out by hand.

    Inputs {}, {(1, 1)}, {(1, -1)}; padded to 2 slots with dummy keys 2, 3 (value ±1 w.p. 1/2);
    a uniformly sampled slot; key kept w.p. a = e^eps1/(e^eps1 + 2) else moved to one of the
    2 other keys; kept value flipped w.p. 1 - p, moved key gets a uniform value.
    """
    a = math.exp(eps1) / (math.exp(eps1) + 2)
    b = (1 - a) / 2
    p = math.exp(eps2) / (math.exp(eps2) + 1)
    outputs = [(k, v) for k in (1, 2, 3) for v in (1, -1)]

    def pair_row(k, v):
        return [a * (p if w == v else 1 - p) if kk == k else b / 2 for kk, w in outputs]

    dummy = np.mean([pair_row(k, v) for k in (2, 3) for v in (1, -1)], axis=0)
    rows = [dummy]
    for v in (1, -1):
        rows.append(0.5 * np.array(pair_row(1, v)) + 0.5 * dummy)
    M = np.array(rows)
    return math.log(max(M[:, j].max() / M[:, j].min() for j in range(M.shape[1])))


def test_pckv_theorem3(results):
    eps1, eps2 = 1.0, 1.0
    lam = (2 - 1) * (1 + math.exp(eps2)) / 2  # Eq. 6 with ell = 2
    eq6 = math.log(
        (lam + math.exp(eps1 + eps2)) / (lam + min(math.exp(eps1), (1 + math.exp(eps2)) / 2))
    )
    assert _pckv_grr_by_hand(eps1, eps2) == pytest.approx(eq6, rel=1e-12)
    # Eq. 6 is not legible in the paper: checked against our reconstruction, so never "confirmed"
    r = results["pckv.theorem3"]
    assert r.verdict == A.RECONSTRUCTED
    assert "Reconstruction: Theorem 3's Eq. 6 is not legible" in r.details
    assert "27/27" in r.details and "(0 failures)" in r.details


def test_ue_epsilon(results):
    assert _ratio(_ue_rows(4, F(3, 4), F(1, 5))) == F(3, 4) * F(4, 5) / (F(1, 4) * F(1, 5))
    assert results["pckv.ue_epsilon"].verdict == A.CONFIRMED


# --- three-answer RR -------------------------------------------------------------------------


def test_rr3(results):
    rr = [[F(3, 5) if x == y else F(1, 5) for y in range(3)] for x in range(3)]  # e^eps = 3
    assert _ratio(rr) == 3
    rr2 = [[F(2, 4) if x == y else F(1, 4) for y in range(3)] for x in range(3)]  # e^eps = 2
    joint = [[a * b for a in r1 for b in r2] for r1, r2 in zip(rr, rr2, strict=True)]
    assert _ratio(joint) == 6  # e^(eps1 + eps2): sequential composition is attained
    assert results["rr3.remark3"].verdict == A.CONFIRMED
    assert results["rr3.composition"].verdict == A.CONFIRMED


# --- multidimensional risks -------------------------------------------------------------------


def test_rsfd_conditional(results):
    # ks = [2, 2], eps = ln 2: eps' = ln 3, rows (0,0) = [3/8, 1/4, 1/4, 1/8] and
    # (0,1) = [1/4, 3/8, 1/8, 1/4] (tests/composite hand derivation); (1,1) reverses (0,0).
    r00 = [F(3, 8), F(1, 4), F(1, 4), F(1, 8)]
    r01 = [F(1, 4), F(3, 8), F(1, 8), F(1, 4)]
    r11 = r00[::-1]
    assert _ratio([r00, r11]) == 3  # whole tuples: e^eps' = 3 > e^eps = 2
    assert _ratio([r00, r01]) == 2  # one attribute changes: exactly e^eps
    assert round(math.log(2 * (math.e - 1) + 1), 6) == 1.48988
    r = results["risks.rsfd"]
    assert r.verdict == A.CONDITIONAL and "1.489880" in r.details and "1.137956" in r.details


def test_spl_smp(results):
    # SPL over [2, 2] with eps = 2 ln 3: entries (9, 3, 3, 1)/16, largest ratio 9 = e^eps.
    rows = [[F(v, 16) for v in r] for r in ([9, 3, 3, 1], [3, 9, 1, 3], [3, 1, 9, 3], [1, 3, 3, 9])]
    assert _ratio(rows) == 9
    assert results["risks.spl_smp"].verdict == A.CONFIRMED


def test_acc_grr(results):
    # Guessing the report succeeds w.p. C[x, x] = p; k = 3, e^eps = 3: p = 3/5 = 3/(3 + 2).
    k, E = 3, 3
    rows = [[F(E, E + k - 1) if x == y else F(1, E + k - 1) for y in range(k)] for x in range(k)]
    assert sum(rows[x][x] for x in range(k)) / k == F(3, 5)
    r = results["risks.acc_grr"]
    assert r.verdict == A.CONFIRMED and "printed 3/5 = 0.6000, attacker 3/5" in r.details


def test_acc_olh_refuted(results):
    # k = 2, e^eps = 3, g = round(e^eps + 1) = 4: all inputs in the support set are equally
    # likely, so the support-set attacker is Bayes-optimal: ACC = ML / k = 5/8; printed 1/2.
    rows = _lh_rows(2, 4, 3)
    assert _capacity(rows) / 2 == F(5, 8)
    assert 1 / (2 * max(F(2, 4), 1)) == F(1, 2)
    r = results["risks.acc_olh"]
    assert r.verdict == A.REFUTED and "printed 1/2 = 0.5000, attacker 5/8" in r.details


def test_acc_ss_conditional(results):
    # k = 6, e^eps = 2: omega = 2 = k/(e^eps + 1), p = 1/2, ACC = p/omega = 1/4 = 3/12 (printed);
    # k = 5, e^eps = 3: omega = 1, ACC = p = 3/7, printed 4/10.
    assert F(1, 2) / 2 == F(2 + 1, 12)
    assert F(3, 3 + 4) != F(3 + 1, 10)
    r = results["risks.acc_ss"]
    assert r.verdict == A.CONDITIONAL and r.details.startswith("Condition: k/(e^eps + 1)")
    assert "7.4707" in r.details  # k = 10, eps = 5: the print exceeds 1


@pytest.mark.parametrize(
    ("key", "p", "qq"), [("risks.acc_sue", F(3, 4), F(1, 4)), ("risks.acc_oue", F(1, 2), F(1, 4))]
)
def test_acc_ue_confirmed(results, key, p, qq):
    # The attacker guessing among the 1 bits, enumerated over all outputs, equals the printed sum
    # (1-p)(1-q)^(k-1)/k + Σ_i (p/i) Bin(i-1; k-1, q).
    for k in (2, 3, 4):
        rows = _ue_rows(k, p, qq)
        outs = list(itertools.product((0, 1), repeat=k))
        acc = F(0)
        for x in range(k):
            for y, c in zip(outs, rows[x], strict=True):
                ones = sum(y)
                acc += c * (F(y[x], ones) if ones else F(1, k))
        printed = (1 - p) * (1 - qq) ** (k - 1) / k + sum(
            p / i * math.comb(k - 1, i - 1) * qq ** (i - 1) * (1 - qq) ** (k - i)
            for i in range(1, k + 1)
        )
        assert acc / k == printed
    assert results[key].verdict == A.CONFIRMED


# --- mechanics: results, errors, inconclusive ---------------------------------------------------


def test_to_dict_and_format():
    r = A.AuditResult("x", "A claim.", "Paper, Eq. 1", A.REFUTED, "Numbers.", 0.1)
    assert r.to_dict() == {
        "claim": "A claim.",
        "source": "Paper, Eq. 1",
        "verdict": "refuted",
        "details": "Numbers.",
    }
    text = A.format_audit([r, r])
    assert text.splitlines()[0].split()[:2] == ["1", "refuted"]
    assert text.endswith("2 claims: 2 refuted")
    assert "details:" not in A.format_audit([r], details=False)
    with pytest.raises(ParameterError, match="width"):
        A.format_audit([r], width=20)


def test_bad_arguments():
    with pytest.raises(InputTypeError, match="single string"):
        A.audit("qif.eq25")
    with pytest.raises(InputTypeError, match="Claim objects or keys"):
        A.audit([3])
    with pytest.raises(ParameterError, match="unknown claim 'nope'"):
        A.audit(["nope"])
    with pytest.raises(InputTypeError, match="key must be a string"):
        A.get_claim(3)


def test_solver_failure_is_inconclusive_never_refuted():
    def failing():
        raise SolverError("HiGHS: iteration limit")

    r = A.Claim("t.fail", "A claim.", "test", failing).check()
    assert r.verdict == A.INCONCLUSIVE and "iteration limit" in r.details

    def undecided():
        _cmp(1.0, 1.0 + 1e-7, "demo")  # inside the refusal band (1e-9, 1e-6]
        return A.CONFIRMED, ""

    r = A.Claim("t.band", "A claim.", "test", undecided).check()
    assert r.verdict == A.INCONCLUSIVE and "refusing to decide" in r.details


def test_unknown_verdict_is_a_bug():
    with pytest.raises(VerificationError, match="not one of"):
        A.Claim("t.bad", "A claim.", "test", lambda: ("maybe", "")).check()


def test_comparison_margins():
    assert _cmp(1.0, 1.0 + 1e-12) == 0
    assert _cmp(0.5, 0.5 + 1e-5) == -1
    assert _cmp(2.0, 1.0) == 1
    assert _cmp(math.inf, 1.0) == 1
    with pytest.raises(VerificationError, match="NaN"):
        _cmp(math.nan, 1.0)


def test_audit_subset_in_given_order():
    out = A.audit([A.get_claim("rr3.remark3"), "qif.eq25"])
    assert [r.key for r in out] == ["rr3.remark3", "qif.eq25"]
    assert [r.verdict for r in out] == [A.CONFIRMED, A.REFUTED]


# --- command line ------------------------------------------------------------------------------


def test_cli_json_all_claims(results, capsys, monkeypatch):
    # the command's own path with every claim (no key given), fed the module's audit run
    # instead of a second run of the same claims
    from qifldp.cli import audit as cli_audit

    asked = []
    monkeypatch.setattr(cli_audit, "audit", lambda keys: asked.append(keys) or [*results.values()])
    assert main(["--json", "audit"]) == 0
    assert asked == [None]
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["claims", "references", "inventory"]
    assert len(doc["claims"]) == len(A.CLAIMS)
    for item, c in zip(doc["claims"], A.CLAIMS, strict=True):
        assert list(item) == ["key", "claim", "source", "verdict", "details", "references"]
        assert item["key"] == c.key
        assert item["claim"] == c.claim and item["source"] == c.source
        assert item["verdict"] in A.VERDICTS
        assert (item["verdict"] == A.INCONCLUSIVE) == (c.key in UNDECIDABLE)
    assert doc["references"] == {k: ref.full for k, ref in A.BIBLIOGRAPHY.items()}


def test_cli_prints_the_per_paper_inventory_after_all_claims(results, capsys, monkeypatch):
    """`qifldp audit` (every claim) ends with the inventory: each paper's statements with the
    verdicts of their claims or the reason; --json carries the same per paper."""
    from qifldp.audit import inventory
    from qifldp.cli import audit as cli_audit

    monkeypatch.setattr(cli_audit, "audit", lambda keys: list(results.values()))
    assert main(["audit", "--brief"]) == 0
    text = capsys.readouterr().out
    head, _, inv = text.partition("Per-paper inventory")
    assert inv and f"{len(A.CLAIMS)} claims:" in head
    for paper in ("qif", "pckv", "rr3", "risks"):
        assert inventory.summary(paper) in inv
    for key, r in results.items():
        if r.references[0] in ("qif", "pckv", "rr3", "risks"):  # the papers it covers
            assert f"{r.verdict} [{key}]" in " ".join(inv.split())
    assert main(["--json", "audit"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["inventory"]) == ["qif", "pckv", "rr3", "risks"]
    for paper, rows in doc["inventory"].items():
        assert len(rows) == len(inventory.entries(paper))
        for row in rows:
            assert bool(row["claims"]) != bool(row["reason"])
            assert row["verdicts"] == {k: results[k].verdict for k in row["claims"]}


def test_cli_text_and_subset(capsys):
    assert main(["audit", "--brief", "qif.eq25", "rr3.remark3"]) == 0
    out = capsys.readouterr().out
    assert "refuted" in out and "[qif.eq25]" in out and "details:" not in out
    assert out.rstrip().endswith("2 claims: 1 confirmed, 1 refuted")
    assert "References" in out and "Ma and Wang (arXiv 2021): Fei Ma and Ping Wang." in out


def test_cli_unknown_claim_exits_2(capsys):
    assert main(["audit", "nope"]) == 2
    assert "unknown claim 'nope'" in capsys.readouterr().err
