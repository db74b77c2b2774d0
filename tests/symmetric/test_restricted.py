"""SymmetricChannel.restricted: the channel on r of its inputs, against the explicit
channel's rows with its proportional columns merged, and its masses against the exact
marginal of the stored masses."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import ParameterError, SizeError, UnsupportedKindError
from qifldp.symmetric.channel import (
    RESTRICTED_MAX_INPUTS,
    RESTRICTED_MAX_WORK,
    SymmetricChannel,
    restriction_rounding,
)

CONSTRUCTORS = {
    "grr": lambda k, e: sym.grr(k, e),
    "ss": lambda k, e: q.protocol("ss", k, e).symmetric(),
    "blh": lambda k, e: sym.blh(k, e),
    "olh": lambda k, e: sym.olh(k, e),
    "sue": lambda k, e: sym.sue(k, e),
    "oue": lambda k, e: sym.oue(k, e),
    "the": lambda k, e: sym.the(k, e, 0.8),
    "l_sue": lambda k, e: q.protocol("l_sue", k, 2 * e, e).symmetric(),
    "l_grr": lambda k, e: q.protocol("l_grr", k, 2 * e, e).symmetric(),
}


def _column_multiset(M: np.ndarray) -> np.ndarray:
    """The columns with proportional ones summed (exact patterns: one column per
    direction), in a canonical order: compares two channels up to output labels."""
    scaled = M / M.sum(axis=0, keepdims=True)
    key = np.round(scaled, 9)
    _, inverse = np.unique(key, axis=1, return_inverse=True)
    merged = np.zeros((M.shape[0], inverse.max() + 1))
    np.add.at(merged.T, inverse.ravel(), M.T)
    order = np.lexsort(np.round(merged, 9)[::-1])
    return merged[:, order]


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
@pytest.mark.parametrize("k", [4, 7])
@pytest.mark.parametrize("eps", [0.5, 2.0, 5.0])
def test_restriction_is_the_explicit_rows_merged(name, k, eps):
    C = CONSTRUCTORS[name](k, eps)
    assert C.constant_ratio()
    full = C.expand(lumped=True).matrix
    for r in range(2, k + 1):
        R = C.restricted(r)
        assert R.k == r
        got = _column_multiset(R.expand(lumped=True).matrix)
        want = _column_multiset(full[:r])
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def _exact_masses(C: SymmetricChannel, r: int) -> tuple[list[Fraction], list[Fraction]]:
    """P'_in(t), P'_out(t) in rationals from the stored masses (numpy's exp of the logs)
    and exact binomial coefficients."""
    k = C.k
    p_in, p_out = (np.exp(v) for v in (C.log_in, C.log_out))
    m_in = [Fraction(0)] * (r + 1)
    m_out = [Fraction(0)] * (r + 1)
    for s, pi, po in zip(C.sizes.tolist(), p_in.tolist(), p_out.tolist(), strict=True):
        for t in range(r + 1):
            if t >= 1 and s >= 1 and pi > 0:
                m_in[t] += (
                    Fraction(pi)
                    * Fraction(
                        math.comb(r - 1, t - 1) * math.comb(k - r, s - t), math.comb(k - 1, s - 1)
                    )
                    if 0 <= s - t <= k - r
                    else 0
                )
            if t <= r - 1 and s <= k - 1 and po > 0:
                m_out[t] += (
                    Fraction(po)
                    * Fraction(math.comb(r - 1, t) * math.comb(k - r, s - t), math.comb(k - 1, s))
                    if 0 <= s - t <= k - r
                    else 0
                )
    return m_in, m_out


@pytest.mark.parametrize(("name", "k"), [("sue", 60), ("olh", 45), ("the", 80), ("grr", 50)])
@pytest.mark.parametrize("r", [2, 5])
def test_masses_within_the_stated_rounding_of_the_exact_marginal(name, k, r):
    C = CONSTRUCTORS[name](k, 2.0)
    R = C.restricted(r)
    bound = restriction_rounding(C.sizes.size, r)
    got_in, got_out = R.class_masses()
    # the stored restricted masses are logs: allow exp(log(m)) its two roundings
    slack = bound + 4 * 2.0**-53 * (
        1
        + float(
            np.max(
                np.abs(
                    np.concatenate(
                        [R.log_in[np.isfinite(R.log_in)], R.log_out[np.isfinite(R.log_out)]]
                    )
                )
            )
        )
    )
    m_in, m_out = _exact_masses(C, r)
    by_size = dict(zip(R.sizes.tolist(), range(R.sizes.size), strict=True))
    for t in range(r + 1):
        for exact, got in ((m_in[t], got_in), (m_out[t], got_out)):
            value = got[by_size[t]] if t in by_size else 0.0
            if exact == 0:
                assert value == 0.0
            else:
                assert abs(Fraction(value) - exact) <= Fraction(slack) * exact


def test_masses_at_k_ten_thousand_sum_to_one_and_match_sue_on_r_inputs():
    # SUE's bits are independent: its restriction to r inputs is SUE on r inputs
    R = sym.sue(10**4, 1.5).restricted(6)
    S = sym.sue(6, 1.5)
    for got, want in zip(R.class_masses(), S.class_masses(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)


def test_different_ratios_are_refused_and_bad_r():
    # sizes 1 and 2 on 4 inputs with ratios 2 and 3
    k = 4
    a1, b1 = 0.2, 0.1  # a/b = 2 for size 1
    a2, b2 = 0.075, 0.025  # a/b = 3 for size 2
    p_in = [a1, 3 * a2]  # C(3, 0) a1, C(3, 1) a2
    p_out = [3 * b1, 3 * b2]
    total = sum(p_in) + sum(p_out)
    C = SymmetricChannel(k, [1, 2], np.log(np.array(p_in) / total), np.log(np.array(p_out) / total))
    assert not C.constant_ratio()
    with pytest.raises(UnsupportedKindError, match="one ratio"):
        C.restricted(2)
    with pytest.raises(ParameterError, match="r"):
        sym.grr(5, 1.0).restricted(6)
    with pytest.raises(ParameterError, match="r"):
        sym.grr(5, 1.0).restricted(1)


def test_restrictions_past_the_size_rule_are_refused_before_any_work():
    # r = 1600 overflowed C(r - 1, t) (an OverflowError after seconds of work); r = k
    # at k = 10^6 would form 10^12 ratio products
    G = sym.grr(10**6, 1.0)
    with pytest.raises(SizeError, match="RESTRICTED_MAX_INPUTS = 1024"):
        G.restricted(RESTRICTED_MAX_INPUTS + 1)
    with pytest.raises(SizeError, match="RESTRICTED_MAX_WORK"):
        G.restricted(10**6)
    S = sym.sue(10**6, 1.0)  # 10^6 + 1 classes: r = 33 is past 2^30 products
    assert 32 * 32 * S.sizes.size <= RESTRICTED_MAX_WORK < 33 * 33 * S.sizes.size
    with pytest.raises(SizeError, match="fewer inputs"):
        S.restricted(33)
