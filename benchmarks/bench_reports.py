"""Longitudinal leakage of RAPPOR: what T reports reveal, by count compositions, same run.

Run: ``python -m pytest benchmarks/bench_reports.py -s``. Cases:

- baseline ratio, m = 8, h = 2, k = 300 (every pair and singleton a filter), T = 4: the
  enumeration of the (T + 1)^8 count patterns against the 495 count compositions
  (``RAPPORClosedForm._capacity_of_bits`` before and after the composition route); the
  values are asserted equal;
- at k = 10^4, m = 16: for the fixed table (h = 2; also at k = 100, where 65 of the 136
  filters are missing: the graph route; h = 4, where only the profile answers) and the
  average over a uniformly random hash (h = 2 and h = 4), the seconds of the Bayes
  capacity at T = 1, 2, 4, 8, of the permanent response (T → ∞), of the fewest T reaching
  half of its leakage, and of the privacy profile at T = 4 (three eps); a row that the
  size rule refuses says so.

Measured here (2 cores shared with other jobs): m = 8, T = 4 enumeration 1.3-1.8 s against
compositions 0.003-0.011 s (112-634x); at k = 10^4, m = 16, h = 2 the fixed table's T = 8
in 2.1 s, the random hash's in 12-15 s (735471 compositions x 54 atoms); the fixed table
at k = 100 (graph route) T = 8 in 3.8 s; h = 4 (random hash) T = 8 refused (735471 x 714
atoms x 4), T = 6 in about 8 s; the fixed table at h = 4 (2431 of the 2516 filters of
1 to 4 bits: neither route) refused but for its profile (0.7-1.2 s at T = 4); every other
quantity below 3 s (half-limit T = 4 in each case). The enumeration at m = 16, T = 2
would form 136 x 3^16 = 5.9e9 products (refused).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from _report import write_report

import qifldp as q
from qifldp.errors import SizeError
from qifldp.protocols.rappor import _bit_reports, _capacity_by_enumeration

_ROWS: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    yield
    write_report(request, ["", "bench_reports: seconds, same run", *_ROWS])


def _timed(fn):
    start = time.perf_counter()
    try:
        value = fn()
    except SizeError as err:
        return None, time.perf_counter() - start, "refused: " + str(err)[:150]
    return value, time.perf_counter() - start, ""


def test_compositions_against_the_enumeration():
    for seed in range(50):
        P = q.protocol("rappor", 300, m=8, h=2, seed=seed)
        sub = np.unique(P.bloom, axis=0)
        if len(sub) == 36:
            break
    L = _bit_reports(P, 4)
    enum, t_enum, _ = _timed(lambda: _capacity_by_enumeration(sub, L))
    comp, t_comp, _ = _timed(lambda: P.closed_form.bayes_capacity_reports(4))
    assert comp == pytest.approx(enum, rel=1e-12)
    _ROWS.append(
        f"  m = 8, h = 2, T = 4: enumeration {t_enum:.3f} s | compositions {t_comp:.4f} s | "
        f"ratio {t_enum / t_comp:.3g}x"
    )


@pytest.mark.parametrize(
    ("model", "h", "k"),
    [
        ("fixed", 2, 10**4),
        ("fixed", 2, 100),
        ("fixed", 4, 10**4),
        ("random hash", 2, 10**4),
        ("random hash", 4, 10**4),
    ],
)
def test_longitudinal_leakage_at_m_sixteen(model, h, k):
    cf = q.protocol("rappor", k, m=16, h=h).closed_form
    leak = cf if model == "fixed" else cf.random_hash
    cases = [(f"T = {T}", lambda T=T: leak.bayes_capacity_reports(T)) for T in (1, 2, 4, 8)]
    cases += [
        ("T = inf", leak.bayes_capacity_permanent),
        ("half-limit T", leak.reports_to_half_leakage),
        ("profile T = 4", lambda: leak.privacy_profile_reports(4, [0.5, 1.0, 2.0])),
    ]
    for name, fn in cases:
        value, seconds, refused = _timed(fn)
        shown = refused or np.array2string(np.asarray(value), precision=6)
        _ROWS.append(f"  k = {k}, m = 16, h = {h}, {model}, {name}: {seconds:.3f} s  ({shown})")
