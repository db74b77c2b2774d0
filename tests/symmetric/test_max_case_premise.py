"""Max-case refinement of symmetric protocol channels on the edge of the cone: the
equal-ratio premise decided exactly (issue 24).

A class of B whose ratio a_t / b_t equals that of one of A's classes lies on the edge of
A's cone; its stored log-ratios differ in the last bits (SUE's is computed from its
log-probabilities, GRR's is eps itself), so floats cannot say on which side it lies. The
constructors of GRR, SS, LH, SUE and OUE state the real log-ratio exactly
(``exact_log_ratio`` = eps); the identity behind it is proved here on the symbolic twins,
and the verdicts are compared with the explicit max-case decision on the expanded
channels.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as S

PROTOCOLS = ("grr", "ss", "blh", "olh", "sue", "oue", "the")
EPSS = tuple(float(e) for e in np.round(np.geomspace(0.1, 60.0, 21), 4))


def _build(name: str, k: int, eps: float):
    if name == "ss":
        return S.subset_selection(k, eps)
    if name == "the":
        return S.the(k, eps, 0.75)
    return getattr(S, name)(k, eps)


@pytest.mark.parametrize("name", ["grr", "ss", "blh", "olh", "sue", "oue"])
def test_exact_log_ratio_is_the_closed_form(name):
    """Every column of the symbolic twin (eps a positive symbol) takes two values whose
    ratio simplifies to e^eps: the real ln(a_s / b_s) is eps for every class."""
    sp = pytest.importorskip("sympy")
    eps = sp.Symbol("eps", positive=True)
    P = q.protocol(name, 3, 1.0)
    assert P.symmetric().exact_log_ratio == 1.0
    C = P.symbolic(eps=eps)
    M = C.matrix
    seen: dict = {}
    for y, label in enumerate(C.outputs):
        inside = [x for x in range(3) if _member(name, x, label)]
        a = {M[x, y] for x in inside}
        b = {M[x, y] for x in range(3) if x not in inside}
        assert len(a) <= 1 and len(b) <= 1  # one value on S(y), one off it
        if a and b:
            key = (a.pop(), b.pop())
            if key not in seen:
                seen[key] = sp.simplify(key[0] / key[1] - sp.exp(eps))
            assert seen[key] == 0, (name, key)
    assert seen  # some class has both entries


def _member(name: str, x: int, label) -> bool:
    """x in S(y) for the explicit output ``label`` of the protocol's channel."""
    if name == "grr":
        return x == label
    if name == "ss":
        return x in label
    if name in ("blh", "olh"):
        h, z = label
        return h[x] == z
    return label[x] == 1  # unary encoding: the bit of x is set


def test_exact_log_ratio_unset_where_not_a_closed_form():
    assert S.the(5, 2.0, 0.8).exact_log_ratio is None
    assert q.protocol("ue", 5, p=0.7, q=0.2).symmetric().exact_log_ratio is None
    assert S.sue(5, 2.0).expand is not None and S.sue(5, 2.0).exact_log_ratio == 2.0


def _check_against_explicit(a: str, b: str, k: int, eps: float):
    A, B = _build(a, k, eps), _build(b, k, eps)
    r = q.max_case_refines(A, B, strict=True)
    Ae, Be = A.expand(lumped=True).matrix, B.expand(lumped=True).matrix
    e = q.max_case_refines(Ae, Be)
    assert r.holds is not None and r.holds == e.holds, (a, b, k, eps, r.certified_by)
    if r.holds:
        R = r.witness.expand(lumped=True)
        assert R.min() >= 0
        assert np.abs(Ae @ R - Be).max() <= 1e-12 * Be.max()
    else:
        g = r.counterexample.gain[0]
        col_a, col_b = Ae.sum(axis=0), Be.sum(axis=0)
        va = np.max((g @ Ae)[col_a > 0] / col_a[col_a > 0])
        vb = np.max((g @ Be)[col_b > 0] / col_b[col_b > 0])
        assert vb - va > 0
    return r


#: Pairs at k = 5 .. 10 that were undecided before the premise was decided exactly (one
#: class on the edge of the cone, the stored log-ratios a few ulp apart), a seeded sample.
_EDGE = [
    (a, b)
    for a, b in itertools.product(PROTOCOLS, PROTOCOLS)
    if ("sue" in (a, b) or "oue" in (a, b)) and "the" not in (a, b) and a != b
]


def _sample(count: int, seed: int):
    rng = np.random.default_rng(seed)
    grid = [(a, b, k, e) for (a, b) in _EDGE for k in (5, 6, 7) for e in EPSS[:14]]
    return [grid[i] for i in sorted(rng.choice(len(grid), size=count, replace=False))]


@pytest.mark.parametrize(("a", "b", "k", "eps"), _sample(8, 24))
def test_edge_pairs_decided(a, b, k, eps):
    _check_against_explicit(a, b, k, eps)


def test_equal_protocols_on_the_edge_are_decided_as_protocols():
    """SUE ⊑max GRR at the same eps: GRR's class {y} has ratio e^eps, SUE's class of size 1
    too (not to the last bit): holds, about the protocols' closed forms."""
    for k in (5, 10, 1000):
        r = q.max_case_refines(S.sue(k, 2.0), S.grr(k, 2.0), strict=True)
        assert r.holds and r.about == "protocols"
        assert "exact_log_ratio" in r.certified_by
        s = q.max_case_refines(S.grr(k, 2.0), S.sue(k, 2.0), strict=True)
        assert s.holds is False  # SUE's class of size 2 is outside GRR's cone


def test_nearby_eps_is_not_a_premise():
    """Ratios that differ in the reals (eps one ulp apart) are never taken as equal."""
    k, eps = 6, 2.0
    r = q.max_case_refines(S.sue(k, eps), S.grr(k, np.nextafter(eps, 3.0)))
    assert r.holds is not True


@pytest.mark.campaign
@pytest.mark.parametrize("k", range(5, 11))
def test_every_symmetric_pair_decided(k):
    """The full grid: every ordered pair of the seven protocols x 21 eps, 0 undecided; at
    k <= 7 every verdict equals the explicit decision on the expanded channels."""
    undecided = []
    for a, b in itertools.product(PROTOCOLS, PROTOCOLS):
        for eps in EPSS:
            if k <= 7:
                _check_against_explicit(a, b, k, eps)
                continue
            r = q.max_case_refines(_build(a, k, eps), _build(b, k, eps))
            if r.holds is None:
                undecided.append((a, b, eps, r.certified_by[:100]))
    assert not undecided, undecided
