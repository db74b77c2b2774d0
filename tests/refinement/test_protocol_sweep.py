"""Every ordered pair of built-in protocols, k = 2 … 10, eps = 0.1 … 60: a verdict, never an error.

Both relations (refinement and max-case refinement), explicit and symmetric channels.
With ``strict=False`` nothing is raised; a verdict's certificate is re-checked here
(tests/refinement/_helpers.assert_certificate: exact rational gaps, the witness band
recomputed from its documented formula), every explicit verdict is compared with the
exact decision on the stored floats where the test's own rational simplex can compute
it (tests/refinement/_helpers.compare_with_exact: "fails" must be exact, "holds" where
the floats fail exactly only within the rounding band), and an undecided pair must say
why. The full grid is slow (--run-campaign); the fast suite runs a seeded sample of it.
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as S

from ._helpers import assert_certificate, compare_with_exact, exact_certificate_gap

PROTOCOLS = ("grr", "ss", "blh", "olh", "sue", "oue", "the")
KS = tuple(range(2, 11))
EPSS = tuple(float(e) for e in np.round(np.geomspace(0.1, 60.0, 21), 4))

#: explicit pairs whose witness would exceed this many entries are left to the symmetric route
MAX_EXPLICIT_WITNESS = 2**22


def _build(kind, name: str, k: int, eps: float):
    if name == "ss":
        return kind.subset_selection(k, eps)
    if name == "the":
        return kind.the(k, eps, 0.75)
    return getattr(kind, name)(k, eps)


def _explicit(name: str, k: int, eps: float):
    try:
        return _build(q, name, k, eps)
    except q.errors.SizeError:  # e.g. olh at large eps: g^k hash functions
        return None


#: Counts of what the explicit verdicts were found to be against the exact decision
#: (compare_with_exact), printed by the campaign for the record.
TALLY: dict[str, int] = {}


def _check_explicit(a: str, b: str, k: int, eps: float, max_variables: int = 64) -> list[str]:
    A, B = _explicit(a, k, eps), _explicit(b, k, eps)
    if A is None or B is None or A.shape[1] * B.shape[1] > MAX_EXPLICIT_WITNESS:
        return []
    undecided = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for rowsum, decide in ((True, q.refines), (False, q.max_case_refines)):
            r = decide(A, B, time_limit=20.0)
            assert_certificate(A, B, r, rowsum=rowsum)
            found = compare_with_exact(A, B, r, rowsum, max_variables)
            TALLY[found] = TALLY.get(found, 0) + 1
            if r.holds is None:
                undecided.append(f"{a}({k}, {eps}) vs {b}: {r.certified_by[:120]}")
    return undecided


def _check_symmetric(a: str, b: str, k: int, eps: float) -> list[str]:
    A, B = _build(S, a, k, eps), _build(S, b, k, eps)
    undecided = []
    for decide in (q.refines, q.max_case_refines):
        r = decide(A, B, time_limit=20.0)
        assert r.holds in (True, False, None)
        if r.holds is None:
            assert r.certified_by
            undecided.append(f"symmetric {a}({k}, {eps}) vs {b}: {r.certified_by[:120]}")
        elif r.holds:
            assert r.witness is not None and r.counterexample is None
        else:
            ce = r.counterexample
            assert r.witness is None and ce is not None and ce.gap > 0
            # the user's own check, in rationals on the stored class masses (max case too)
            assert ce.recheck(A, B) > 0
    return undecided


def _sample(count: int, seed: int):
    rng = np.random.default_rng(seed)
    grid = list(itertools.product(PROTOCOLS, PROTOCOLS, KS, EPSS))
    picks = rng.choice(len(grid), size=count, replace=False)
    return [grid[i] for i in sorted(picks)]


#: Pairs of the seeded sample too costly for the fast suite: grr(2, 4.644) vs olh(2, 4.644)
#: (OLH's 1,157,625 columns; the test's own exact decision merges them). Its max-case
#: witness met the rounding band on the merged columns and missed it on the original ones
#: (relative residual 2e-13, band 3.5e-15): the merged sums drifted. Decided with the campaign;
#: the fast suite has the same defect on smaller OLH channels (test_expanded_band.py).
_COSTLY = {("grr", "olh", 9, 4.644)}


@pytest.mark.parametrize(("a", "b", "k", "eps"), [c for c in _sample(16, 2024) if c not in _COSTLY])
def test_sampled_pairs_decided_or_undecided_with_reason(a, b, k, eps):
    k = 2 + k % 3  # the fast sample keeps the channels small (k = 2 … 4)
    _check_explicit(a, b, k, eps, max_variables=16)
    _check_symmetric(a, b, k, eps)


@pytest.mark.campaign
@pytest.mark.parametrize(("a", "b", "k", "eps"), sorted(_COSTLY))
def test_costly_pairs_of_the_sample(a, b, k, eps):
    k = 2 + k % 3
    _check_explicit(a, b, k, eps, max_variables=16)
    _check_symmetric(a, b, k, eps)


@pytest.mark.campaign
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize(("a", "b"), list(itertools.product(PROTOCOLS, PROTOCOLS)))
def test_every_ordered_pair_every_k_every_eps(a, b, k):
    undecided = []
    for eps in EPSS:
        undecided += _check_explicit(a, b, k, eps)
        undecided += _check_symmetric(a, b, k, eps)
    # undecided pairs are allowed only with a stated reason (README, "How far a verdict
    # can be trusted"); the list and the running tally are printed for the record
    print("\n".join(undecided))
    print(f"{a} vs {b}, k = {k}: explicit verdicts against the exact decision so far: {TALLY}")


def test_a_float_gain_failing_within_rounding_decides_without_the_simplex():
    # sue(4, 31.6473) ⋢ blh(4, 31.6473): the float engines' gain fails the stored floats
    # by an exact 1e-14, less than a rounding-band perturbation could explain, and no
    # witness meets the rounding band: "fails" (exact) from that gain, as the sweep found
    # at k = 5 … 7 where the rational simplex is beyond its budget (6x64 vs 6x63: ~9e8
    # operations). The gap is re-checked here in the test's own rationals. (method="highs":
    # under "auto" the orbit LP's lifted gain decides this pair first, with the same verdict.)
    A, B = q.sue(4, 31.6473), q.blh(4, 31.6473)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert q.refines(A, B, time_limit=60.0).holds is False
        r = q.refines(A, B, time_limit=60.0, method="highs")
    assert r.holds is False and r.exact
    assert r.certified_by.startswith("float gain, exact gap")
    assert_certificate(A, B, r, rowsum=True)
    gap = exact_certificate_gap(A, B, r)
    assert 0 < gap < Fraction(1, 10**13)
    assert r.counterexample.gap_exact == gap


def test_a_rounding_band_search_the_time_left_cannot_pay_for_is_undecided(monkeypatch):
    # sue(4, 31.6473) vs blh(4, 31.6473) again: the stored floats fail exactly by less than
    # rounding explains, so "fails" needs the search for a rounding-band witness. Building
    # an L1 LP for HiGHS is not bounded by HiGHS's own limit (3.2 s for a 10^6-variable
    # witness under a 1 s limit): when the time left cannot pay for it at
    # LP_SECONDS_PER_VARIABLE, the result is undecided (time), neither "fails" nor
    # "holds up to rounding"; with the default rate the pair is decided as above
    import qifldp.refinement._exact_route as route

    A, B = q.sue(4, 31.6473), q.blh(4, 31.6473)
    monkeypatch.setattr(route, "LP_SECONDS_PER_VARIABLE", 1e9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = q.refines(A, B, time_limit=60.0)
    assert r.holds is None and r.details["cause"] == "time"
    assert "does not pay for the highs solve" in r.certified_by
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert q.refines(A, B, time_limit=60.0).holds is False
