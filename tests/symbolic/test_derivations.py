"""Bayes capacities derived from the explicit symbolic channels, k = 2..5, against closed forms.

For each protocol the capacity Σ_y max_x C[x, y] is computed from the symbolic
channel (every column maximum proven for all eps >= 0, see qifldp.symbolic.measures)
and its difference to the symbolic closed form of qifldp.symbolic.formulas is
proven identically zero (exact: a rational function of exp(eps/m) whose numerator
cancels, or expansion/simplification). The closed forms are then compared with
the numeric qifldp.formulas at rational points. Where the QIF paper prints a
different formula, the derivation wins and a test records the discrepancy.
"""

from __future__ import annotations

import pytest
import sympy as sp

import qifldp as q
from qifldp import formulas as numeric, symbolic
from qifldp.symbolic import formulas as F
from qifldp.symbolic._sign import is_identically_zero

eps = sp.Symbol("eps")
theta = sp.Symbol("theta")
p, qq = sp.symbols("p q")
KS = [2, 3, 4, 5]
TH = sp.Rational(3, 4)

# name -> (symbolic channel, symbolic closed form) as functions of k
PROTOCOLS = {
    "GRR": (lambda k: symbolic.grr(k, eps), lambda k: F.bayes_capacity_grr(k, eps)),
    "SS-1": (
        lambda k: symbolic.subset_selection(k, eps, 1),
        lambda k: F.bayes_capacity_ss(k, eps, 1),
    ),
    "SS-2": (
        lambda k: symbolic.subset_selection(k, eps, 2),
        lambda k: F.bayes_capacity_ss(k, eps, 2),
    ),
    "BLH": (lambda k: symbolic.local_hashing(k, eps, 2), lambda k: F.bayes_capacity_lh(k, eps, 2)),
    "LH-3": (lambda k: symbolic.local_hashing(k, eps, 3), lambda k: F.bayes_capacity_lh(k, eps, 3)),
    "SUE": (lambda k: symbolic.sue(k, eps), lambda k: F.bayes_capacity_sue(k, eps)),
    "OUE": (lambda k: symbolic.oue(k, eps), lambda k: F.bayes_capacity_oue(k, eps)),
    "UE": (lambda k: symbolic.unary_encoding(k, p, qq), lambda k: F.bayes_capacity_ue(k, p, qq)),
    "THE-3/4": (lambda k: symbolic.the(k, eps, TH), lambda k: F.bayes_capacity_the(k, eps, TH)),
    "THE": (lambda k: symbolic.the(k, eps, theta), lambda k: F.bayes_capacity_the(k, eps, theta)),
}


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_derived_capacity_equals_closed_form(name, k):
    channel, closed = PROTOCOLS[name]
    C = channel(k)
    derived = q.bayes_capacity(C)
    assert not derived.has(sp.Max), "a column maximum was not proven"
    assert is_identically_zero(derived - closed(k), C.domains) is True


# numeric closed form of qifldp.formulas, symbolic closed form, parameter points
NUMERIC = [
    (lambda k, e: numeric.bayes_capacity_grr(k, e), lambda k: F.bayes_capacity_grr(k, eps)),
    (lambda k, e: numeric.bayes_capacity_ss(k, e, 2), lambda k: F.bayes_capacity_ss(k, eps, 2)),
    (lambda k, e: numeric.bayes_capacity_lh(k, e, 3), lambda k: F.bayes_capacity_lh(k, eps, 3)),
    (lambda k, e: numeric.bayes_capacity_sue(k, e), lambda k: F.bayes_capacity_sue(k, eps)),
    (lambda k, e: numeric.bayes_capacity_oue(k, e), lambda k: F.bayes_capacity_oue(k, eps)),
    (
        lambda k, e: numeric.bayes_capacity_the(k, e, 0.75),
        lambda k: F.bayes_capacity_the(k, eps, TH),
    ),
]
RATIONAL_EPS = [sp.Rational(1, 8), sp.Rational(3, 2), sp.Rational(7, 1), sp.Rational(45, 2)]


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("i", range(len(NUMERIC)))
def test_numeric_formulas_agree_with_symbolic_closed_forms(i, k):
    f_num, f_sym = NUMERIC[i]
    expr = f_sym(k)
    for r in RATIONAL_EPS:
        exact = sp.N(expr.subs(eps, r), 50)  # 50-digit reference
        assert f_num(k, float(r)) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("k", KS)
def test_numeric_ue_and_the_with_parameters(k):
    for pv, qv in [(sp.Rational(3, 4), sp.Rational(1, 5)), (sp.Rational(1, 2), sp.Rational(1, 3))]:
        exact = sp.N(F.bayes_capacity_ue(k, pv, qv), 50)
        assert numeric.bayes_capacity_ue(k, float(pv), float(qv)) == pytest.approx(
            float(exact), rel=1e-12
        )
    for th in (sp.Rational(11, 20), sp.Rational(9, 10)):
        exact = sp.N(F.bayes_capacity_the(k, 2, th), 50)
        assert numeric.bayes_capacity_the(k, 2.0, float(th)) == pytest.approx(
            float(exact), rel=1e-12
        )


# -- discrepancies with the printed paper ------------------------------------------------------
def test_ss_printed_formula_is_wrong_for_omega_at_least_two():
    # QIF paper Sec. V-B prints ML = k p / C(k-1, omega-1); the derivation gives k p / omega.
    # They agree only when C(k-1, omega-1) = omega: omega = 1, or (k, omega) = (3, 2) (the
    # paper's own example), and differ otherwise, e.g. (4, 2): 4p/3 versus 4p/2 = 2p.
    for k, w in [(3, 1), (4, 1), (3, 2)]:
        assert is_identically_zero(
            F.bayes_capacity_ss_printed(k, eps, w) - F.bayes_capacity_ss(k, eps, w)
        )
    for k, w in [(4, 2), (5, 2), (5, 3)]:
        derived = q.bayes_capacity(symbolic.subset_selection(k, eps, w))
        printed = F.bayes_capacity_ss_printed(k, eps, w)
        assert is_identically_zero(derived - printed) is False
        # e.g. at eps = ln 2 (p rational): the values differ as rationals
        a = sp.nsimplify(sp.simplify(derived.subs(eps, sp.log(2))))
        b = sp.nsimplify(sp.simplify(printed.subs(eps, sp.log(2))))
        assert a.is_Rational and b.is_Rational and a != b


def test_lh_eq27_holds_and_eq25_fails_for_small_k():
    # QIF paper: Eq. (27) (its correction) matches the channel; Gursoy's Eq. (25) for the
    # ASR does not for small k. Derivation: the explicit LH channel, k = 2, g = 2.
    derived = q.asr(symbolic.local_hashing(2, eps, 2))
    assert is_identically_zero(derived - F.asr_lh(2, eps, 2)) is True
    gursoy = F.asr_lh_gursoy(2, eps, 2)  # e^eps / (e^eps + 1) since max(k/g, 1) = 1
    assert is_identically_zero(derived - gursoy) is False
    # at eps = ln 3: channel ASR = (3*4 + 1*(1 - 3)) / (4 * 2 * 2) = 10/16, Eq. (25) gives 3/4
    assert sp.nsimplify(sp.simplify(derived.subs(eps, sp.log(3)))) == sp.Rational(5, 8)
    assert sp.simplify(gursoy.subs(eps, sp.log(3))) == sp.Rational(3, 4)


def test_sue_intermediate_and_final_lines_agree():
    # QIF paper Sec. V-D1: (p/q)(p+q)^k + p^k (q/p - p/q) and (p + p^(k-1)(1-2p))/(1-p)
    pp = sp.exp(eps / 2) / (sp.exp(eps / 2) + 1)
    qv = 1 - pp
    for k in KS:
        line = pp / qv * (pp + qv) ** k + pp**k * (qv / pp - pp / qv)
        assert is_identically_zero(line - F.bayes_capacity_sue(k, eps)) is True


def test_the_oue_threshold_limit():
    # QIF paper Lemma 10: the bound tends to 1/sqrt(2) as eps -> 0
    e = sp.Symbol("e", positive=True)
    assert sp.limit(F.the_oue_threshold(e), e, 0, "+") == 1 / sp.sqrt(2)
    for r in (sp.Rational(1, 2), 2, 8):
        assert numeric.the_oue_threshold(float(r)) == pytest.approx(
            float(sp.N(F.the_oue_threshold(r), 40)), rel=1e-12
        )
