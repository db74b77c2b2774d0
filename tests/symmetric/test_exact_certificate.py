"""The symmetric route's exact certificate: "fails" with the rational Farkas gain where its
float image loses the gap (issue 24, item 1), and Counterexample.recheck on symmetric gains.

Expectations are derived independently: V_g recomputed here in Fractions from the stored
class masses' per-output entries a_s, b_s (binomials, every overlap j of every action
size), and by enumerating every lumped output S and action T on small channels.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.digits import scientific
from qifldp.errors import ChannelError, InputTypeError, VerificationError
from qifldp.symmetric import orbit_certify, orbit_exact, orbit_lp, single_source
from qifldp.symmetric.orbit_certify import exact_gain_vulnerabilities, exact_gap, gap_with_bound
from tests.symmetric.test_refinement_rigour import (
    _exact_vulnerability_by_enumeration,
    _rational_entries,
)


def _v_every_overlap(C: sym.SymmetricChannel, sizes, g_in, g_out) -> Fraction:
    """V_g[υ▷C] = Σ_s C(k, s)/k · max over action size t and overlap j of
    a_s (j g_in + (s − j) g_out) + b_s ((t − j) g_in + (k − s − t + j) g_out)."""
    k = C.k
    total = Fraction(0)
    for s, (a, b) in _rational_entries(C).items():
        best = None
        for t, gi, go in zip(sizes, g_in, g_out, strict=True):
            gi, go = Fraction(gi), Fraction(go)
            for j in range(max(0, s + t - k), min(s, t) + 1):
                v = a * (j * gi + (s - j) * go) + b * ((t - j) * gi + (k - s - t + j) * go)
                best = v if best is None or v > best else best
        total += best * math.comb(k, s) / k
    return total


def _the_star(k: int, eps: float) -> sym.SymmetricChannel:
    theta = float(q.formulas.the_oue_threshold(eps))
    return q.protocol("the", k, eps, theta=theta).symmetric()


def _check_exact_certificate(A, B, r) -> None:
    """fails, exact, the rational gain's gap > 0 recomputed here; its float image's gap <= 0."""
    assert r.holds is False and r.exact and r.witness is None
    assert "no float counterexample can be stated at this precision" in r.certified_by
    ce = r.counterexample
    assert not ce.float_certificate and ce.prior_exact is None
    g_in, g_out = ce.gain_exact
    sizes = ce.gain.sizes.tolist()
    assert len(g_in) == len(g_out) == len(sizes)
    if r.method == "symmetric: exact orbit LP":  # a gain on every action size of B
        assert len(sizes) == B.sizes.size
    # the float gain is the rational one rounded
    assert ce.gain.g_in.tolist() == [float(v) for v in g_in]
    assert ce.gain.g_out.tolist() == [float(v) for v in g_out]
    gap = _v_every_overlap(B, sizes, g_in, g_out) - _v_every_overlap(A, sizes, g_in, g_out)
    assert gap > 0
    assert ce.gap_exact == gap == ce.recheck(A, B)
    assert ce.gap == float(gap)
    # its float image loses the gap: recheck (every term) and exact_gap (the terms the
    # float screen leaves) agree on it
    float_gap = replace(ce, gain_exact=None).recheck(A, B)
    assert not float_gap > 0
    assert float_gap == exact_gap(A, B, ce.gain, gap_with_bound(A, B, ce.gain))


def test_grr_vs_the_at_k50_fails_with_an_exact_certificate(monkeypatch):
    """Reproducer: the orbit LP's Farkas certificate at y·rhs = 7.8e-44, whose float gain
    has exact gap −2.2e-20: undecided before, now "fails" with the rational gain. The
    class-by-class route finds it first (one class's Cramer solution, in rationals,
    is negative); without that step the exact orbit LP gives the same verdict."""
    A, B = sym.grr(50, 8.0), _the_star(50, 8.0)
    r = q.refines(A, B, time_limit=30)
    _check_exact_certificate(A, B, r)
    assert r.method == "symmetric: single source (class by class)"
    monkeypatch.setattr(single_source, "_exact_class", lambda *args: None)
    r = q.refines(A, B, time_limit=30)
    _check_exact_certificate(A, B, r)
    assert r.method == "symmetric: exact orbit LP"
    assert "exact certificate" in repr(r)


def test_the_route_step_at_k12_against_every_overlap():
    """grr(12, 6) vs THE(θ*): the float route decides it with another gain, but the exact
    orbit LP's own Farkas gain loses its gap in floats; the step gives the exact certificate."""
    A, B = sym.grr(12, 6.0), _the_star(12, 6.0)
    P = orbit_lp.OrbitProblem(A, B)
    out = orbit_certify.exact_orbit_lp(A, B, P.variables, P.b_rows)
    assert not out.holds
    r = orbit_exact._exact_fails(P, out, orbit_lp.Clock(), {}, "test")
    _check_exact_certificate(A, B, r)


def test_beyond_the_term_budget_no_verdict(monkeypatch):
    A, B = sym.grr(12, 6.0), _the_star(12, 6.0)
    P = orbit_lp.OrbitProblem(A, B)
    out = orbit_certify.exact_orbit_lp(A, B, P.variables, P.b_rows)
    monkeypatch.setattr(orbit_certify, "EXACT_MAX_GAP_TERMS", 100)
    with pytest.raises(VerificationError, match=r"loses its gap.*more than EXACT_MAX_GAP_TERMS"):
        orbit_exact._exact_fails(P, out, orbit_lp.Clock(), {}, "test")


def _random_symmetric(rng: np.random.Generator, k: int) -> sym.SymmetricChannel:
    sizes = np.flatnonzero(rng.random(k + 1) < 0.6)
    if sizes.size == 0:
        sizes = np.array([1])
    w_in = np.where(sizes > 0, rng.random(sizes.size) + 0.05, 0.0)
    w_out = np.where(sizes < k, rng.random(sizes.size) + 0.05, 0.0)
    tot = w_in.sum() + w_out.sum()
    with np.errstate(divide="ignore"):
        return sym.SymmetricChannel(k, sizes.tolist(), np.log(w_in / tot), np.log(w_out / tot))


@pytest.mark.parametrize("seed", range(6))
def test_rational_gain_vulnerabilities_against_enumeration(seed):
    rng = np.random.default_rng(seed)
    k = 4 + seed % 2
    A, B = _random_symmetric(rng, k), _random_symmetric(rng, k)
    sizes = sorted(set(rng.integers(0, k + 1, size=3).tolist()))
    g_in = [Fraction(int(v), 7) for v in rng.integers(-7, 8, size=len(sizes))]
    g_out = [Fraction(int(v), 3) for v in rng.integers(-3, 4, size=len(sizes))]
    G = sym.SymmetricGain(k, sizes, [float(v) for v in g_in], [float(v) for v in g_out])
    va, vb = exact_gain_vulnerabilities(A, B, sizes, g_in, g_out)
    assert va == _exact_vulnerability_by_enumeration(A, G, (g_in, g_out))
    assert vb == _exact_vulnerability_by_enumeration(B, G, (g_in, g_out))
    # the rational entries are the lumped expansion's, up to its rounding
    for C in (A, B):
        M = C.expand(lumped=True).matrix
        labels = C.expand(lumped=True).outputs
        ent = _rational_entries(C)
        want = np.array(
            [[float(ent[len(S)][0 if x in S else 1]) for S in labels] for x in range(k)]
        )
        assert np.allclose(M, want, rtol=1e-13, atol=0)


def test_recheck_of_a_symmetric_float_gain():
    A, B = sym.grr(5, 1.0), sym.grr(5, 2.0)
    ce = q.refines(A, B).counterexample
    assert ce.float_certificate
    assert ce.recheck(A, B) == _exact_vulnerability_by_enumeration(
        B, ce.gain
    ) - _exact_vulnerability_by_enumeration(A, ce.gain)
    with pytest.raises(InputTypeError, match="A must be a SymmetricChannel"):
        ce.recheck(A.expand(), B)
    with pytest.raises(ChannelError, match="B must have the gain's k = 5"):
        ce.recheck(A, sym.grr(6, 2.0))


def test_explain_states_the_exact_certificate_gap():
    A, B = sym.grr(12, 6.0), _the_star(12, 6.0)
    P = orbit_lp.OrbitProblem(A, B)
    out = orbit_certify.exact_orbit_lp(A, B, P.variables, P.b_rows)
    r = orbit_exact._exact_fails(P, out, orbit_lp.Clock(), {}, "test")
    summary = r.explanation(A, B)["summary"]
    gq = r.counterexample.gap_exact
    assert f"; {scientific(gq, 3)} on the certificate's gain" in summary


def _max_case_by_enumeration(C: sym.SymmetricChannel, g: np.ndarray) -> Fraction:
    """max_S Σ_x C[x, S] g[x] / Σ_x C[x, S] over every lumped output S, in Fractions."""
    k = C.k
    best = None
    for s, (a, b) in _rational_entries(C).items():
        for S in itertools.combinations(range(k), s):
            col = [a if x in S else b for x in range(k)]
            if sum(col):
                v = sum(c * Fraction(float(w)) for c, w in zip(col, g, strict=True)) / sum(col)
                best = v if best is None or v > best else best
    return best


@pytest.mark.parametrize(
    ("A", "B"),
    [(sym.the(2, 0.1, 0.75), sym.grr(2, 0.1)), (sym.grr(4, 1.0), sym.grr(4, 2.0))],
)
def test_recheck_of_a_symmetric_max_case_counterexample(A, B):
    # the max-case route's gain is one action (a matrix, not a SymmetricGain): recheck on
    # the symmetric pair it was returned for, not only on expanded channels
    ce = q.max_case_refines(A, B).counterexample
    gap = ce.recheck(A, B)
    g = np.asarray(ce.gain)[0]
    want = _max_case_by_enumeration(B, g) - _max_case_by_enumeration(A, g)
    assert gap > 0 and want > 0
    assert abs(gap - want) <= Fraction(1, 10**12) * want
    with pytest.raises(InputTypeError, match="B must be a SymmetricChannel"):
        ce.recheck(A, B.expand())
    with pytest.raises(ChannelError, match="one action over the k"):
        replace(ce, gain=np.vstack([ce.gain, ce.gain])).recheck(A, B)
