"""Set-guessing (t-tries) gains on lumped channels: their vulnerabilities against the
explicit channels, and the "fails" verdicts they give against the orbit LP's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
import qifldp.symmetric.refinement as R
from qifldp.symmetric.set_gains import (
    _best_penalty,
    _Classes,
    penalty_gains,
    penalty_vulnerability,
    tries_gains,
    tries_vulnerabilities,
)


def _explicit_tries(C: sym.SymmetricChannel, t: int) -> float:
    """V_t[υ▷C] by enumeration: every output column, every t-subset as the guess."""
    M = C.expand().matrix
    k = C.k
    guesses = np.zeros((len(list(itertools.combinations(range(k), t))), k))
    for i, T in enumerate(itertools.combinations(range(k), t)):
        guesses[i, list(T)] = 1.0
    return float((guesses @ M).max(axis=0).sum() / k)


@pytest.mark.parametrize(
    "C",
    [sym.oue(5, 2.0), sym.sue(5, 1.0), sym.the(5, 1.0, 0.8), sym.blh(5, 1.0), sym.grr(5, 1.5)],
    ids=repr,
)
def test_tries_vulnerability_is_the_enumerated_one(C):
    ts = np.arange(1, C.k + 1)
    got = tries_vulnerabilities(C, ts)
    want = [_explicit_tries(C, int(t)) for t in ts]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert got[-1] == pytest.approx(1.0)  # guessing every value always wins


#: "fails" pairs that needed the orbit LP (none of the cheaper gains separates), and
#: pairs that hold or fail otherwise (the search must not change those verdicts)
PAIRS = [
    ("oue", 2.0, "sue", 2.0),
    ("oue", 1.0, "the", 1.0),
    ("grr", 1.0, "blh", 1.0),
    ("blh", 1.0, "grr", 1.0),
    ("sue", 8.0, "oue", 8.0),
    ("sue", 1.0, "the", 1.0),
    ("oue", 3.0, "oue", 2.0),
]


def _make(name, k, eps):
    return sym.the(k, eps, 0.8) if name == "the" else getattr(sym, name)(k, eps)


@pytest.mark.parametrize("k", [5, 16])
@pytest.mark.parametrize(("na", "ea", "nb", "eb"), PAIRS)
def test_verdicts_equal_the_orbit_lps(k, na, ea, nb, eb, monkeypatch):
    A, B = _make(na, k, ea), _make(nb, k, eb)
    r = sym.refines(A, B)
    with monkeypatch.context() as m:  # the orbit LP route: no search, no class-by-class
        m.setattr(R, "tries_gains", lambda *a: [])
        m.setattr(R, "single_source_result", lambda *a: None)
        m.setattr(R, "lifted_refinement", lambda *a: None)
        lp = sym.refines(A, B)
    assert r.holds == lp.holds, (r.method, lp.method)
    if k <= 5 and r.holds is False:  # the explicit route (2^k outputs) refutes it too
        assert q.refines(A.expand().matrix, B.expand().matrix, method="highs").holds == r.holds
    if r.method == "symmetric: set-guessing gain":
        ce = r.counterexample
        gap = sym.g_vulnerability(B, ce.gain) - sym.g_vulnerability(A, ce.gain)
        assert gap == pytest.approx(ce.gap, rel=1e-9) and gap > ce.gap_bound
        if k <= 5:  # and on the explicit channels
            t = int(ce.gain.sizes[0])
            assert _explicit_tries(B, t) - _explicit_tries(A, t) == pytest.approx(gap, rel=1e-9)


def test_fails_at_k_10_4_without_an_lp():
    # the orbit LP would have 2e8 variables (refused by its size rule); GRR vs BLH is
    # decided class by class before the search (test_lumped_scale.py)
    for A, B in [
        (sym.oue(10**4, 2.0), sym.sue(10**4, 2.0)),
        (sym.oue(10**4, 1.0), sym.the(10**4, 1.0, 0.8)),
    ]:
        r = q.refines(A, B)
        assert r.holds is False and r.method == "symmetric: set-guessing gain"
        G = r.counterexample.gain
        gap = sym.g_vulnerability(B, G) - sym.g_vulnerability(A, G)
        assert gap == pytest.approx(r.counterexample.gap, rel=1e-9) and gap > 0.001


def test_the_search_finds_the_best_size_on_its_grid():
    # OUE ⋢ SUE at k = 100, eps = 2: the best t over every size, by a full scan
    A, B = sym.oue(100, 2.0), sym.sue(100, 2.0)
    ts = np.arange(1, 100)
    gaps = tries_vulnerabilities(B, ts) - tries_vulnerabilities(A, ts)
    (G, what), *_ = tries_gains(A, B)
    assert int(G.sizes[0]) == int(ts[np.argmax(gaps)]) and "t = " in what
    assert tries_gains(sym.sue(50, 2.0), sym.the(50, 2.0, 0.7)) == []  # SUE ⊑ THE: none


# -- guess t values, pay c when wrong, or abstain -------------------------------------


def _explicit_penalty(C: sym.SymmetricChannel, t: int, c: float) -> float:
    """V[υ▷C] of the penalised t-set gain by enumeration (abstaining is the empty set)."""
    M = C.expand().matrix
    k = C.k
    rows = [np.zeros(k)]  # abstain: 0 whatever the secret
    for T in itertools.combinations(range(k), t):
        g = np.full(k, -c)
        g[list(T)] = 1.0
        rows.append(g)
    return float((np.array(rows) @ M).max(axis=0).sum() / k)


@pytest.mark.parametrize(
    "C", [sym.oue(5, 2.0), sym.grr(5, 3.0), sym.the(5, 1.0, 0.8), sym.blh(5, 1.0)], ids=repr
)
def test_penalty_vulnerability_is_the_enumerated_one(C):
    for t, c in itertools.product((1, 2, 4), (0.0, 0.3, 2.0, 40.0)):
        want = _explicit_penalty(C, t, c)
        assert penalty_vulnerability(C, t, c) == pytest.approx(want, rel=1e-12, abs=1e-15)
        G = sym.SymmetricGain(C.k, [0, t], [0.0, 1.0], [0.0, -c])
        assert float(sym.g_vulnerability(C, G)) == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_the_best_penalty_is_the_maximum_over_a_fine_scan_of_c():
    A, B = sym.grr(40, 9.0), sym.oue(40, 9.0)
    ca, cb = _Classes(A, 0.0), _Classes(B, 0.0)
    for t in (1, 3, 39):
        gap, c = _best_penalty(ca, cb, t)
        # the same gap summed in another order (c is large: cancellation of ~c u)
        want = penalty_vulnerability(B, t, c) - penalty_vulnerability(A, t, c)
        assert gap == pytest.approx(want, abs=1e-15 * max(c, 1.0) * 40)
        scan = [
            penalty_vulnerability(B, t, x) - penalty_vulnerability(A, t, x)
            for x in np.geomspace(1e-3, 1e7, 800)
        ]
        assert gap >= max(scan) - 1e-12


def test_grr_fails_to_refine_oue_at_large_k_by_a_penalised_gain_alone():
    # k = 10^4, eps = 12: neither the Bayes gain nor a plain t-set gain separates
    # (the orbit LP is 2 x 10^4 orbit variables and ran past its limit before)
    A, B = sym.grr(10**4, 12.0), sym.oue(10**4, 12.0)
    assert tries_gains(A, B) == []
    assert penalty_gains(A, B)
    r = q.refines(A, B, time_limit=60)
    assert r.holds is False and r.method == "symmetric: set-guessing gain"
    G = r.counterexample.gain
    t, c = int(G.sizes[1]), -float(G.g_out[1])
    gap = penalty_vulnerability(B, t, c) - penalty_vulnerability(A, t, c)
    assert gap == pytest.approx(r.counterexample.gap, rel=1e-9) and gap > 1e-3
