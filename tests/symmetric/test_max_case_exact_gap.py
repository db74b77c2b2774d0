"""Symmetric max case: a counterexample's gap below 1e-12 is stated exactly (issue 24, item 3).

The exact gap is recomputed here by enumerating every output S of the lumped channels
(k small) in rationals: the stored problem is each class's masses exp(log_in),
exp(log_out) scaled by the larger, read as the binary fractions they hold, the entries of
S those masses over C(k-1, s-1) on S and C(k-1, s) off S (a column's scale does not
change its posterior gain).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as S


def _stored_vmax(C, g: np.ndarray) -> Fraction:
    """max over outputs S of Σ_x g[x] C[x, S] / Σ_x C[x, S], every S enumerated."""
    k = C.k
    best = None
    # the stored masses exp(log_in - m), exp(log_out - m) as numpy forms them on the arrays
    # (its exp may differ from math.exp in the last bit, and the exact gap sees that bit)
    m = np.maximum(C.log_in, C.log_out)
    with np.errstate(invalid="ignore"):
        P_in, P_out = np.exp(C.log_in - m), np.exp(C.log_out - m)
    for s, pi, po in zip(C.sizes.tolist(), P_in.tolist(), P_out.tolist(), strict=True):
        a = Fraction(pi) / math.comb(k - 1, s - 1) if s > 0 else Fraction(0)
        b = Fraction(po) / math.comb(k - 1, s) if s < k else Fraction(0)
        for T in itertools.combinations(range(k), s):
            col = [a if x in T else b for x in range(k)]
            v = sum(Fraction(float(g[x])) * col[x] for x in range(k)) / sum(col)
            best = v if best is None or v > best else best
    return best


@pytest.mark.parametrize(
    ("A", "B"),
    [
        (S.grr(4, 1.0), S.grr(4, 1.0 + 1e-13)),
        (S.oue(5, 2.0), S.grr(5, 2.0 + 1e-12)),
        (S.grr(6, 0.5), S.sue(6, 0.5 + 2e-13)),
    ],
)
def test_small_gap_is_the_exact_gap(A, B):
    r = q.max_case_refines(A, B, strict=True)
    assert r.holds is False
    ce = r.counterexample
    g = ce.gain[0]
    exact = _stored_vmax(B, g) - _stored_vmax(A, g)
    assert ce.gap_exact == exact > 0
    assert ce.gap == float(exact) < 1e-12
    assert "exact gap" in r.certified_by


def test_large_gap_stays_a_float():
    r = q.max_case_refines(S.grr(6, 1.0), S.grr(6, 1.5))
    assert r.holds is False and r.counterexample.gap_exact is None
    assert r.counterexample.gap > 1e-3


def test_exact_gap_at_large_k_from_the_near_maximal_generators():
    """k = 10^4: the gap (~3e-16) is below the float resolution of V_g; only the few
    generators within rounding of a maximum are formed in rationals."""
    r = q.max_case_refines(S.grr(10**4, 1.0), S.grr(10**4, 1.0 + 1e-12), strict=True)
    ce = r.counterexample
    assert r.holds is False and ce.gap_exact is not None and ce.gap_exact > 0
    assert ce.gap == float(ce.gap_exact)
