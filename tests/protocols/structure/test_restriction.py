"""The restriction route: a failure proved on a few inputs, lifted to the whole domain
and checked there on the explicit channels, and against the explicit LP's verdict."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp import refinement
from qifldp.errors import InputTypeError, ParameterError
from qifldp.protocols.structure.restriction import (
    ERROR_FACTOR,
    restricted_pair,
    restriction_refutation,
)
from qifldp.sweeps.atlas import ATLAS_ORACLES
from tests.refinement._helpers import exact_gain_gap
from tests.sweeps._reference import explicit_oracle


def _oracle(name: str, k: int, eps: float):
    return ATLAS_ORACLES[name][0](k, eps)


@pytest.mark.parametrize(
    ("a", "b", "k"),
    [
        ("sue", "hr", 8),
        ("oue", "he", 8),
        ("blh", "hr", 8),
        ("hr", "blh", 8),
        ("sue", "cms", 6),
        ("ss", "hcms", 8),
        ("oue", "rappor", 8),
    ],
)
@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_refutation_lifts_to_the_whole_domain(a, b, k, eps):
    A, B = _oracle(a, k, eps), _oracle(b, k, eps)
    found = restriction_refutation(A, B, sizes=(2, 3, 4))
    full_a, full_b = explicit_oracle(A), explicit_oracle(B)
    verdict = q.refines(full_a, full_b)
    assert found is not None
    assert verdict.holds is False
    ce = found.counterexample
    # the gain and prior on S, extended by zeros: the same gap on the whole explicit pair
    prior = np.zeros(k)
    prior[list(found.inputs)] = ce.prior
    gain = np.zeros((ce.gain.shape[0], k))
    gain[:, list(found.inputs)] = ce.gain
    gap = exact_gain_gap(full_a, full_b, gain, prior)  # rationals, on the whole channels
    assert gap > 0
    assert abs(float(gap) - ce.gap) <= found.error_bound + 1e-12


def test_a_pair_that_refines_is_never_refuted():
    # L-SUE is SUE post-processed bit by bit: SUE ⊑ L-SUE at every k
    for k in (5, 40, 10**4):
        A, B = _oracle("sue", k, 1.0), _oracle("l_sue", k, 1.0)
        assert restriction_refutation(A, B) is None
    assert q.refines(
        _oracle("sue", 40, 1.0).symmetric(), _oracle("l_sue", 40, 1.0).symmetric()
    ).holds


@pytest.mark.parametrize(("a", "b"), [("sue", "cms"), ("oue", "rappor"), ("olh", "hcms")])
def test_refutation_at_ten_thousand_inputs(a, b):
    A, B = _oracle(a, 10**4, 2.0), _oracle(b, 10**4, 2.0)
    found = restriction_refutation(A, B, time_limit=60.0)
    assert found is not None
    ce = found.counterexample
    # the certificate re-checked on the restricted channels, exactly, above the bound
    assert ce.recheck(found.a, found.b) > Fraction(found.error_bound)
    assert found.a.shape[0] == found.b.shape[0] == found.r == len(found.inputs)


def _merged_columns(M: np.ndarray) -> list[tuple[float, ...]]:
    """Equal columns summed (a dictionary keyed by the column's exact floats), sorted."""
    groups: dict[tuple[float, ...], list[np.ndarray]] = {}
    for col in M.T:
        groups.setdefault(tuple(col.tolist()), []).append(col)
    return sorted(tuple(np.sum(cols, axis=0).tolist()) for cols in groups.values())


def test_restricted_pair_rows_are_the_explicit_rows():
    A, B = _oracle("oue", 7, 2.0), _oracle("hcms", 7, 2.0)
    rows = [4, 1, 6]
    a, b, d = restricted_pair(A, B, rows)
    assert 0 < d < 1e-6
    got_b = sorted(tuple(c) for c in b.matrix.T.tolist())
    assert np.allclose(got_b, _merged_columns(explicit_oracle(B).matrix[rows]), rtol=1e-15, atol=0)
    # the symmetric side: any 3 inputs alike; the lumped rows at S, equal columns summed
    # (OUE's lumped columns of one pattern on S are proportional, not equal: compare the
    # vulnerabilities of the identity gain under a non-uniform prior instead)
    prior = np.array([0.5, 0.3, 0.2])
    want = q.g_vulnerability(explicit_oracle(A).matrix[rows], np.eye(3), prior)
    assert q.g_vulnerability(a, np.eye(3), prior) == pytest.approx(want, rel=1e-13)
    assert np.allclose(a.matrix.sum(axis=1), 1.0) and np.allclose(b.matrix.sum(axis=1), 1.0)


def test_bad_arguments():
    A, B = _oracle("sue", 5, 1.0), _oracle("hr", 5, 1.0)
    with pytest.raises(ParameterError, match="same number of inputs"):
        restricted_pair(A, _oracle("hr", 6, 1.0), [0, 1])
    with pytest.raises(ParameterError, match="inputs"):
        restricted_pair(A, B, [0, 0])
    with pytest.raises(ParameterError, match="inputs"):
        restricted_pair(A, B, [0, 5])
    with pytest.raises(ParameterError, match="sizes"):
        restriction_refutation(A, B, sizes=(1,))
    with pytest.raises(ParameterError, match="time_limit"):
        restriction_refutation(A, B, time_limit=0)
    with pytest.raises(InputTypeError, match="protocol or a SymmetricChannel"):
        restriction_refutation(np.eye(2), B)


@pytest.mark.parametrize(
    ("inputs", "error", "match"),
    [
        ([0, 1.5], InputTypeError, r"inputs\[1\] must be an integer, got 1.5"),
        ([True, 0], InputTypeError, r"inputs\[0\] must be an integer, got True"),
        (["0", "3"], InputTypeError, r"inputs\[0\] must be an integer"),
        (3, InputTypeError, "inputs must be a sequence"),
        ([2], ParameterError, "at least 2"),
    ],
)
def test_inputs_that_are_not_distinct_integers_are_refused_by_name(inputs, error, match):
    # 1.5 was read as input 1 (int() truncates) and "0" as input 0
    A, B = _oracle("sue", 5, 1.0), _oracle("hr", 5, 1.0)
    with pytest.raises(error, match=match):
        restricted_pair(A, B, inputs)


@pytest.mark.parametrize(
    ("sizes", "error", "match"),
    [
        ((2.5,), InputTypeError, r"sizes\[0\] must be an integer, got 2.5"),
        (("3",), InputTypeError, r"sizes\[0\] must be an integer"),
        (3, InputTypeError, "sizes must be a sequence"),
        ("23", InputTypeError, "sizes must be a sequence"),
    ],
)
def test_sizes_that_are_not_integers_are_refused_by_name(sizes, error, match):
    # 2.5 was tried as 2 inputs, "3" as 3
    A, B = _oracle("sue", 5, 1.0), _oracle("hr", 5, 1.0)
    with pytest.raises(error, match=match):
        restriction_refutation(A, B, sizes=sizes)


@pytest.mark.parametrize("scale", [10**6, 1])
def test_a_rational_gain_is_read_at_the_scale_of_the_rounding_bound(monkeypatch, scale):
    # An exact certificate's rational Farkas gain is not scaled to max |g| = 1: its exact
    # gap is the gap of that gain. Give each counterexample of the restricted channels a
    # rational gain `scale` times its float gain with the exact gap 1000 times the
    # route's rounding bound: scaled to max |g| = 1 it is 1000 / scale times the bound,
    # so at scale 10^6 nothing is proved (was accepted: the unscaled gap was compared).
    A, B = _oracle("sue", 8, 1.0), _oracle("hr", 8, 1.0)
    real = refinement.refines

    def with_rational_gain(a, b, **options):
        res = real(a, b, **options)
        ce = res.counterexample
        if res.holds or ce is None:
            return res
        bound = ERROR_FACTOR * restricted_pair(A, B, list(a.inputs))[2]
        top = float(np.abs(ce.gain).max())
        gain = tuple(tuple(Fraction(v / top) * scale for v in row) for row in ce.gain.tolist())
        faked = replace(ce, gain_exact=gain, gap_exact=1000 * Fraction(bound))
        return replace(res, counterexample=faked)

    monkeypatch.setattr(refinement, "refines", with_rational_gain)
    found = restriction_refutation(A, B)
    if scale == 1:
        assert found is not None and found.counterexample.gap_exact > found.error_bound
    else:
        assert found is None


def test_sixteen_inputs_refute_hr_into_dbitflip_where_eight_do_not():
    # HR ⋢ dBitFlipPM (d = 1) at k = 10^4, eps = 0.5: no restriction to 8 inputs
    # separates them, 16 do (dBitFlipPM's side has 2 r + 2 lumped outputs)
    A, B = _oracle("hr", 10**4, 0.5), _oracle("dbitflip", 10**4, 0.5)
    assert restriction_refutation(A, B, sizes=(2, 3, 4, 6, 8)) is None
    found = restriction_refutation(A, B, time_limit=60.0)
    assert found is not None and found.r == 16
    assert found.counterexample.recheck(found.a, found.b) > Fraction(found.error_bound)


def test_refines_on_protocols_without_channels_lifts_the_restriction_to_every_input():
    # SUE has 2^32 outputs at k = 32 and HR no symmetric channel: q.refines on the protocol
    # objects refutes on a few inputs, its gain and prior zero on the other inputs
    A, B = q.protocol("sue", 32, 1.0), q.protocol("hr", 32, 1.0)
    r = q.refines(A, B)
    found = restriction_refutation(A, B)
    assert r.holds is False and r.method == "restriction" and found is not None
    ce, idx = r.counterexample, list(found.inputs)
    rest = [x for x in range(32) if x not in idx]
    assert ce.gain.shape == (found.counterexample.gain.shape[0], 32)
    np.testing.assert_array_equal(ce.gain[:, idx], found.counterexample.gain)
    assert not ce.gain[:, rest].any() and not ce.prior[rest].any()
    np.testing.assert_array_equal(ce.prior[idx], found.counterexample.prior)
    assert ce.gap == found.counterexample.gap > found.error_bound
