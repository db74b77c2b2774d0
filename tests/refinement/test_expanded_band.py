"""A witness found on merged columns is re-checked on the columns the user passed (issue 24).

Provenance: the band is recomputed here from its documented formula on the
row-normalised channels as given (tests/refinement/_helpers.band_excess); merged sums are
compared with exact rational sums (fractions.Fraction); verdicts under a time limit are
compared with the same pair decided without one, on a deterministic clock.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as S
from qifldp.deadline import TickClock, use_clock
from qifldp.reduction import Reduced, reduce_columns
from qifldp.refinement import _driver, _exact_route, exact as ex

from ._helpers import band_excess, exact_certificate_gap, exact_decision, exact_gain_gap

U = 2.0**-53


def test_merged_sums_of_many_columns_are_exact_to_a_few_units():
    # 100,000 identical columns (an OLH channel has a million): summed entry by entry the
    # merged column drifted by 1.6e-12 relative, 10^4 times the rounding band
    v = np.array([4.36157095e-07, 4.53426100e-05])
    n = 100_000
    M = np.column_stack([np.repeat(v[:, None], n, axis=1), [0.5, 0.25]])
    red = reduce_columns(M)
    assert [g.size for g in red.groups] == [n, 1]
    for x in range(2):
        exact = Fraction(float(v[x])) * n
        got = Fraction(float(red.matrix[x, 0]))
        assert abs(got - exact) <= 8 * U * exact


def _drifting_reduce(M: np.ndarray) -> Reduced:
    """reduce_columns with each merged sum off by a relative 1e-12, unlike in each row: a
    merge whose sums drift (as an entry-by-entry accumulation over a million columns did)."""
    red = reduce_columns(M)
    merged = np.array([g.size > 1 for g in red.groups])
    drift = np.where(merged[None, :], 1.0 + 1e-12 * np.arange(1, M.shape[0] + 1)[:, None], 1.0)
    return Reduced(red.matrix * drift, red.groups, red.group_of, red.weights)


def test_a_witness_within_the_band_on_merged_columns_is_rechecked_on_the_originals(monkeypatch):
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    post = A @ np.array([[0.7, 0.3], [0.4, 0.6]])
    # B: its first column split into 40 identical columns (one merged group)
    B = np.column_stack([np.repeat(post[:, :1] / 40, 40, axis=1), post[:, 1:]])
    monkeypatch.setattr(_driver, "reduce_columns", _drifting_reduce)
    # the least-norm witness of the drifted merged columns, expanded: outside the band
    red_a, red_b = _drifting_reduce(A), _drifting_reduce(B)
    R = np.linalg.solve(red_a.matrix, red_b.matrix)
    expanded = R[:, red_b.group_of] * red_b.weights[None, :]
    assert band_excess(A, B, expanded, inputs_too=False) > 0
    # (it was returned as "A·W = B up to the rounding band"); now the band is re-checked on
    # B as given, and the witness polished there
    r = q.max_case_refines(A, B)
    assert r.holds and exact_decision(A, B, rowsum=False)
    assert band_excess(A, B, np.asarray(r.witness), inputs_too=r.up_to_rounding) <= 0


@pytest.mark.parametrize("eps", [2.5, 3.4])
@pytest.mark.parametrize("name", ["grr", "sue", "blh"])
def test_max_case_witness_of_an_olh_pair_meets_the_band_on_the_original_columns(name, eps):
    # olh(2, eps) has (e^eps + 2)^3 columns in 4 distinct ones; at eps = 2.5 and 3.4 the
    # witness met the band on the merged columns and missed it on B as given (max-case
    # grr(2, 4.644) ⊑ olh(2, 4.644), 1.16 million columns, is in the protocol sweep)
    A, B = getattr(q, name)(2, eps), q.olh(2, eps)
    r = q.max_case_refines(A, B)
    assert r.holds and not r.exact
    W = np.asarray(r.witness)
    assert W.min() >= 0
    assert band_excess(A, B, W, inputs_too=False) <= 0


def _pair_with_identical_columns(copies: int = 50):
    """A 3 x 4 channel and a 3 x (copies + 2) one: B's first column split into ``copies``
    identical columns (B = A·R in floats, so near the refinement boundary)."""
    rng = np.random.default_rng(5)
    A = rng.dirichlet(np.ones(4), size=3)
    post = A @ rng.dirichlet(np.ones(3), size=4)
    return A, np.column_stack([np.repeat(post[:, :1] / copies, copies, axis=1), post[:, 1:]])


def test_the_exact_problem_is_as_small_as_the_distinct_columns(monkeypatch):
    built = []
    inner = _exact_route.build_exact_problem

    def keep(P):
        built.append(inner(P))
        return built[-1]

    monkeypatch.setattr(_exact_route, "build_exact_problem", keep)
    A, B = _pair_with_identical_columns()
    gain = np.random.default_rng(1).uniform(-1, 1, size=(2, 3))
    prior = np.full(3, 1 / 3)
    for rowsum, decide in ((True, q.refines), (False, q.max_case_refines)):
        r = decide(A, B, method="exact")
        E = built[-1]
        # 52 columns of B stand as 3 distinct ones, the 50 copies with their mass merged
        assert len(E.Bq_full[0]) == 3 and sorted(E.b_counts.tolist()) == [1, 1, 50]
        assert len(E.Aq_full[0]) == 4
        # the verdict is the test's own rational simplex on all the columns
        assert r.holds == exact_decision(A, B, rowsum=rowsum) and r.exact
        # a gap on the merged columns is the gap on all of them (the test's own loops)
        kind = "average" if rowsum else "max-case"
        gap = (ex.exact_gap if rowsum else ex.exact_max_case_gap)(E.Aq_full, E.Bq_full, gain, prior)
        assert gap == exact_gain_gap(A, B, gain, prior, kind)
        # and the image of B's original column 0 is its exact entry
        assert E.b_value(1, 0) == ex.rational_rows(B)[1][0]


@pytest.mark.parametrize("decide", [q.refines, q.max_case_refines], ids=["average", "max-case"])
def test_the_conversion_to_rationals_honours_the_time_limit(monkeypatch, decide):
    # the clock is read every 2 entries of the conversion (CONVERT_CHUNK; 4096 by default):
    # under a deterministic clock, every budget of n readings ends in the full verdict or in
    # an undecided result that says why and what was tried, never in an exception
    monkeypatch.setattr(ex, "CONVERT_CHUNK", 2)
    A, B = _pair_with_identical_columns()
    with use_clock(TickClock()) as clock:
        full = decide(A, B, method="exact", time_limit=10**6)
    assert full.holds is not None and full.exact
    in_conversion = 0
    for n in range(1, clock.readings + 1):
        with use_clock(TickClock()):
            r = decide(A, B, method="exact", time_limit=n)
        assert r.holds in (full.holds, None), n
        if r.holds is None:
            assert "time_limit" in r.certified_by, (n, r.certified_by)
            if "conversion of the channel to rationals" in r.certified_by:
                assert r.certified_by.endswith("tried: exact method (failed)")
                in_conversion += 1
    assert in_conversion >= 3  # the limit is met inside the conversion, not only after it
    # 5 readings: past the decision's deadline and the reduction's checks, inside the
    # conversion
    with use_clock(TickClock()), pytest.raises(q.errors.VerificationError, match="time_limit"):
        decide(A, B, method="exact", time_limit=5, strict=True)


@pytest.mark.parametrize(
    ("A", "B"),
    [
        (q.grr(3, 1.0), q.grr(3, 1.0 + 1e-13)),  # float gain (an engine's dual)
        (q.grr(3, 1.0), q.grr(3, 1.0 + 1e-14)),  # exact route
        (q.sue(3, 2.0), q.sue(3, 2.0 + 1e-12)),  # orbit route's lifted gain (average case)
    ],
    ids=["float", "exact", "orbits"],
)
@pytest.mark.parametrize("decide", [q.refines, q.max_case_refines], ids=["average", "max-case"])
def test_a_gap_below_1e_12_relative_is_reported_exactly(A, B, decide):
    # the gap's float digits are mostly rounding there: .gap is the exact gap rounded, and
    # gap_exact the rational (the test's own exact evaluation on the channels as given)
    r = decide(A, B)
    ce = r.counterexample
    assert r.holds is False and ce is not None
    exact = exact_certificate_gap(A, B, r)
    assert exact > 0
    assert ce.gap_exact == exact and ce.gap == float(exact)
    assert ce.gap < 1e-12  # (relative to vulnerabilities <= 1)


def test_a_symmetric_gap_below_1e_12_relative_is_reported_exactly():
    # the orbit route's gain on the stored class masses; its exact gap is compared with the
    # explicit route's exact gap on the expanded channels (another rational problem: the
    # entries rounded once more), which it must match to far better than the float digits
    A, B = S.sue(3, 2.0), S.sue(3, 2.0 + 1e-12)
    r = q.refines(A, B)
    ce = r.counterexample
    assert r.holds is False and ce.gap_exact is not None and ce.gap == float(ce.gap_exact)
    explicit = q.refines(A.expand(), B.expand()).counterexample
    assert explicit.gap == float(explicit.gap_exact)
    assert abs(ce.gap_exact - explicit.gap_exact) <= Fraction(1, 10**3) * explicit.gap_exact
    assert "exact gap" in r.certified_by
