"""A gap that is mostly rounding in floats is stated exactly, by one function on every route
(qifldp.refinement.exact_gap.state_gap_exactly; issue 24, item 3).

Provenance: exact gaps are enumerated here in fractions.Fraction — every output and every
action of a 2 x 2 pair, each stored float read as the rational it holds and each row
divided by its exact sum — never taken from the library's own exact arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as S
from qifldp.digits import scientific
from qifldp.errors import VerificationError
from qifldp.refinement.exact_gap import EXACT_GAP_RELATIVE, state_gap_exactly
from qifldp.refinement.result import Counterexample

from ._helpers import exact_gain_gap, exact_gain_gap_fractions


def _pair(a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Binary symmetric channels with crossovers a and b (b < a: B leaks more)."""
    return np.array([[1 - a, a], [a, 1 - a]]), np.array([[1 - b, b], [b, 1 - b]])


def _rows(C: np.ndarray) -> list[list[Fraction]]:
    out = []
    for row in C.tolist():
        r = [Fraction(v) for v in row]
        out.append([v / sum(r) for v in r])
    return out


def _v(C: np.ndarray, g: np.ndarray, prior: np.ndarray, max_case: bool) -> Fraction:
    """V_g[π▷C] (average case), or max over outputs of the posterior expected gain."""
    Cq, gq, pq = _rows(C), [[Fraction(v) for v in w] for w in g.tolist()], prior.tolist()
    pq = [Fraction(v) for v in pq]
    n, m = len(Cq), len(Cq[0])
    terms = []
    for y in range(m):
        joint = [pq[x] * Cq[x][y] for x in range(n)]
        best = max(sum(w[x] * joint[x] for x in range(n)) for w in gq)
        terms.append(best / sum(joint) if max_case else best)
    return max(terms) if max_case else sum(terms)


def _exact_gap(A, B, ce: Counterexample) -> Fraction:
    max_case = ce.kind == "max-case"
    return _v(B, ce.gain, ce.prior, max_case) - _v(A, ce.gain, ce.prior, max_case)


IDENTITY = np.eye(2)
UNIFORM = np.full(2, 0.5)


def test_a_gap_within_rounding_is_restated_by_its_enumerated_exact_gap():
    # crossovers 1e-20 and 5e-21: 1 - a rounds to 1, so the float rows are the same up
    # to their last entry and the float gap is all rounding
    A, B = _pair(1e-20, 5e-21)
    exact = _v(B, IDENTITY, UNIFORM, False) - _v(A, IDENTITY, UNIFORM, False)
    assert 0 < exact < Fraction(1, 10**20)
    floats = q.g_vulnerability(B, IDENTITY, UNIFORM) - q.g_vulnerability(A, IDENTITY, UNIFORM)
    ce = Counterexample(IDENTITY, UNIFORM, floats, vulnerability_a=0.5, vulnerability_b=0.5)
    calls = []

    def exact_gap():
        calls.append(1)
        return exact, ""

    stated, text = state_gap_exactly(ce, 1.0, exact_gap, on=" on the test's rationals")
    assert calls == [1]
    assert stated.gap_exact == exact and stated.gap == float(exact)
    assert scientific(exact, 6) + " on the test's rationals" in text
    assert text.startswith("; the gap ")
    # the same pair decided: every route's counterexample carries that exact gap
    for decide in (q.refines, q.max_case_refines):
        r = decide(A, B)
        assert r.holds is False
        got = _exact_gap(A, B, r.counterexample)
        assert got > 0 and r.counterexample.gap_exact == got
        assert r.counterexample.gap == float(got)
        assert f"exact gap {scientific(got, 6)}" in r.certified_by


def test_a_large_gap_is_left_alone_without_computing_it():
    ce = Counterexample(IDENTITY, UNIFORM, 0.25)

    def never():
        raise AssertionError("the exact gap of a large gap was computed")

    assert state_gap_exactly(ce, 1.0, never) == (ce, "")
    # the threshold scales with |V_g|'s bound: 1e-13 is small next to 1, not next to 0.01
    tiny = Counterexample(IDENTITY, UNIFORM, 1e-13)
    assert state_gap_exactly(tiny, 0.01, never) == (tiny, "")
    assert 1e-13 < EXACT_GAP_RELATIVE


def test_a_float_gap_of_zero_is_stated_by_its_exact_gap_below_the_resolution():
    A, B = _pair(1e-300, 5e-301)
    exact = _v(B, IDENTITY, UNIFORM, False) - _v(A, IDENTITY, UNIFORM, False)
    ce = Counterexample(IDENTITY, UNIFORM, 0.0, vulnerability_a=0.5, vulnerability_b=0.5)
    stated, text = state_gap_exactly(ce, 1.0, lambda: (exact, ""))
    assert stated.gap == float(exact) > 0 and stated.gap_exact == exact
    assert "below the float resolution of V_g (0.5" in text


def test_an_exact_gap_not_computed_is_said_and_a_nonpositive_one_refused():
    small = Counterexample(IDENTITY, UNIFORM, 3e-17)
    stated, text = state_gap_exactly(small, 1.0, lambda: (None, "over its budget"))
    assert stated is small and "not computed exactly (over its budget)" in text
    with pytest.raises(VerificationError, match="too close to the boundary"):
        state_gap_exactly(Counterexample(IDENTITY, UNIFORM, 0.0), 1.0, lambda: (None, "x"))
    with pytest.raises(VerificationError, match="<= 0: no verdict"):
        state_gap_exactly(small, 1.0, lambda: (Fraction(-1, 10**30), ""))
    # a known exact gap is used as it is
    known = Counterexample(IDENTITY, UNIFORM, 3e-17, gap_exact=Fraction(1, 10**17))
    stated, _ = state_gap_exactly(known, 1.0, None)
    assert stated.gap == 1e-17 and stated.gap_exact == Fraction(1, 10**17)


@pytest.mark.parametrize("decide", [q.refines, q.max_case_refines], ids=["orbits", "max-case"])
def test_the_symmetric_routes_state_a_small_gap_by_the_same_text(decide):
    # the orbit LP and the max-case cones restate their gap on the stored class masses; the
    # expanded channels' exact gap (another rational problem: the entries rounded once more)
    # must agree with it far better than the float digits do
    A, B = S.sue(3, 2.0), S.sue(3, 2.0 + 1e-12)
    r = decide(A, B)
    ce = r.counterexample
    assert r.holds is False and ce.gap_exact is not None and ce.gap == float(ce.gap_exact)
    assert f"of |V_g| <= 1: .gap is the exact gap {scientific(ce.gap_exact, 6)} on the " in (
        r.certified_by
    )
    g = ce.gain.expand() if isinstance(ce.gain, S.SymmetricGain) else ce.gain
    Ae, Be = A.expand().matrix, B.expand().matrix
    max_case = ce.kind == "max-case"
    expanded = _v(Be, g, ce.prior, max_case) - _v(Ae, g, ce.prior, max_case)
    assert 0 < expanded < Fraction(1, 10**12)
    assert abs(ce.gap_exact - expanded) <= Fraction(1, 10**3) * expanded


def test_the_tests_exact_gap_agrees_with_its_term_by_term_fractions():
    # the shared re-check (_helpers.exact_gain_gap, python-flint) against the same sums
    # written term by term in Python's Fractions, average and max case, float and
    # rational gains, zero columns and a zero prior entry included
    rng = np.random.default_rng(1)
    for t in range(24):
        n, ma, mb, nw = (int(v) for v in rng.integers([2, 2, 2, 1], [6, 9, 9, 5]))
        A = rng.dirichlet(np.ones(ma), size=n)
        B = rng.dirichlet(np.ones(mb), size=n)
        if t % 3 == 0:
            A[:, 0] = 0.0
            A /= A.sum(axis=1, keepdims=True)
        g = rng.normal(size=(nw, n)).tolist()
        if t % 2:
            g = [
                [Fraction(int(rng.integers(-9, 9)), int(rng.integers(1, 9))) for _ in range(n)]
                for _ in range(nw)
            ]
        pi = rng.dirichlet(np.ones(n))
        if t % 4 == 0:
            pi[0] = 0.0
        for kind in ("average", "max"):
            assert exact_gain_gap(A, B, g, pi, kind) == exact_gain_gap_fractions(A, B, g, pi, kind)
