"""One-hot pairs at the refinement boundary, explicit route: a verdict, never an exception.

SUE ⊑ OUE at the same eps holds for the real channels from a boundary eps*(k) on
(the tight-ratio reduction of qifldp.symmetric); on the explicit channels the orbit
witness, expanded to 2^k x 2^k floats, can miss the entrywise rounding band by
rounding alone (tiny entries). These pairs raised VerificationError before; the orbit
verdict is now carried over, "up to rounding" when the expansion misses the band.
"""

from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.refinement import _exact_route, _orbits
from qifldp.refinement._certify import INPUT_BAND_FACTOR, input_rounding_band
from qifldp.refinement._orbits import bit_symmetric
from qifldp.refinement._prep import normalise_rows, reduce_columns
from qifldp.refinement._problem import Problem

from ._helpers import assert_certificate, exact_certificate_gap

U = 2.0**-53
BOUNDARY = [(5, 7.0), (6, 5.0), (8, 6.5), (9, 5.0), (6, 12.0)]


def _recheck_witness(A, B, W, rowsum=True):
    A, B = np.asarray(A), np.asarray(B)
    assert W.min() >= 0
    if rowsum:
        assert np.abs(W.sum(axis=1) - 1).max() <= 1e-12
    # relative to the entries of B, summed over x: a loose but independent re-check
    assert np.abs(A @ W - B).max() <= 1e-12


@pytest.mark.parametrize(("k", "eps"), BOUNDARY)
def test_sue_oue_explicit_agrees_with_the_orbit_route(k, eps):
    A, B = q.sue(k, eps), q.oue(k, eps)
    r = q.refines(A, B)  # raised VerificationError before
    s = q.refines(sym.sue(k, eps), sym.oue(k, eps))
    assert r.holds and s.holds
    _recheck_witness(A.matrix, B.matrix, r.witness)
    # up to rounding unless the expanded witness fits the explicit band outright
    if r.up_to_rounding:
        assert r.about == "rounding" and "class masses read off these channels" in r.certified_by
    # the other direction fails with a gap recomputed here
    back = q.refines(B, A)
    assert not back.holds
    ce = back.counterexample
    gap = q.g_vulnerability(A, ce.gain, ce.prior) - q.g_vulnerability(B, ce.gain, ce.prior)
    assert gap > 0


def test_class_deviation_is_measured_in_units_of_log_space_rounding():
    C = sym.sue(4, 1.0).expand()
    M = C.matrix
    S = bit_symmetric(M, C.inputs, C.outputs)
    assert S is not None and S.deviation <= 16 + 4
    # an entry moved by 1e-13 (relative) inside its class, the row renormalised by its twin
    M2 = M.copy()
    j = 3
    M2[0, j] *= 1 + 1e-13
    S2 = bit_symmetric(M2, C.inputs, C.outputs)
    v = M[0, j]
    assert S2 is not None
    assert S2.deviation >= 0.4e-13 / (U * (1 + abs(np.log(v))))


def test_an_orbit_verdict_is_carried_over_only_for_entries_on_their_classes():
    A, B = q.sue(5, 7.0), q.oue(5, 7.0)
    sres = q.refines(sym.sue(5, 7.0), sym.oue(5, 7.0))
    W = q.refines(A, B).witness
    P = _problem(A.matrix, B.matrix, None)
    AW = P.An @ W
    limit = _orbits.ORBIT_TRANSFER_UNITS + 5
    out = _orbits.orbit_transfer_result(P, W, AW, sres, limit, 5)
    assert out.holds and out.up_to_rounding and "class masses" in out.certified_by
    why = _orbits.orbit_transfer_result(P, W, AW, sres, 2 * limit, 5)
    assert isinstance(why, str) and "deviate from their class values" in why


def _problem(A, B, W):
    An, Bn = normalise_rows(A), normalise_rows(B)
    P = Problem(
        A, B, An, Bn, reduce_columns(An), reduce_columns(Bn), np.full(A.shape[0], 0.5), True
    )
    P.hints = (W, None)
    return P


def test_input_band_verdict_within_and_beyond_the_inputs_rounding():
    tiny = 1e-30
    A = np.array([[1 - tiny, tiny, 0.0], [0.25, 0.25, 0.5]])
    W = np.eye(3)
    # B = A·W with the tiny entry moved by 300 u: beyond the rounding band 4 (3 + 2) u 2B
    # = 40 u B, within the inputs' band 16 u (1 + |ln 1e-30|) B ≈ 1121 u B
    for shift, inside in ((300.0, True), (3000.0, False)):
        B = A.copy()
        B[0, 1] = tiny * (1 + shift * U)
        B[0, 0] = 1 - B[0, 1]
        P = _problem(A, B, W)
        band = input_rounding_band(P.Br)
        assert band[0, 1] == pytest.approx(INPUT_BAND_FACTOR * U * (1 + np.log(1e30)) * B[0, 1])
        res = _exact_route.input_band_result(P, "test")
        if inside:
            assert res is not None and res.holds and res.up_to_rounding
            assert res.about == "rounding"
            assert np.abs(A @ res.witness - B).max() <= 1e-15
        else:
            assert res is None


def test_sue_against_hashed_blh_at_high_eps_fails_by_its_largest_exact_gap():
    # SUE ⋢ BLH at k = 6, eps = 43.6: the orbit LP's candidate gains all have float gaps
    # inside their rounding bounds; one (a refinement LP's dual) fails the class masses by
    # 1e-35 only, and the explicit floats' own rounding reverses it, so the pair was left
    # undecided. The gain of largest exact gap (3e-21, on B's classes of mass 1e-19) is
    # a proof for the explicit floats, labelled or raw alike.
    A, B = q.sue(6, 43.6), q.blh(6, 43.6)
    for a, b in ((A, B), (A.matrix, B.matrix)):
        r = q.refines(a, b)
        assert r.holds is False and r.exact
        assert_certificate(A.matrix, B.matrix, r)  # exact gap > 0, by loops over Fractions
        assert exact_certificate_gap(A.matrix, B.matrix, r) > Fraction(1, 10**22)
