"""f-DP trade-off curves of symmetric channels against explicit channels and closed forms."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import InputTypeError, ParameterError
from qifldp.tradeoff import tradeoff_curve

from ._helpers import PROTOCOLS


def _close(T1, T2, atol: float = 1e-12) -> bool:
    a, b = np.asarray(T1, dtype=float), np.asarray(T2, dtype=float)
    return a.shape == b.shape and bool(np.max(np.abs(a - b)) <= atol)


@pytest.mark.parametrize(("make_sym", "make_num", "extra"), PROTOCOLS)
def test_curves_equal_the_explicit_channel(make_sym, make_num, extra) -> None:
    # provenance: Neyman–Pearson on every output of the explicit channel (qifldp.tradeoff)
    for k, eps in [(2, 1.0), (3, 0.0), (3, 2.0), (4, 0.7)]:
        S, C = make_sym(k, eps, **extra), make_num(k, eps, **extra)
        for x0, x1 in [(0, 1), (k - 1, 0), (1, 1)]:
            assert _close(tradeoff_curve(S, x0, x1), tradeoff_curve(C, x0, x1)), (S, x0, x1)


def test_pair_atoms_are_a_partition_of_both_rows() -> None:
    # provenance: enumeration of the lumped outputs of size s by membership of x0, x1
    S = sym.the(6, 1.5, 0.65)
    L = S.expand(lumped=True)
    P0, P1 = sym.pair_atoms(S)
    groups = {}
    for y, out in enumerate(L.outputs):
        key = (len(out), 0 in out, 1 in out)
        g0, g1 = groups.get(key, (0.0, 0.0))
        groups[key] = (g0 + L.matrix[0, y], g1 + L.matrix[1, y])
    n = S.sizes.size
    for i, s in enumerate(S.sizes):
        for block, (m0, m1) in enumerate(
            [(True, False), (False, True), (True, True), (False, False)]
        ):
            ref = groups.get((int(s), m0, m1), (0.0, 0.0))
            assert (P0[block * n + i], P1[block * n + i]) == pytest.approx(ref, abs=1e-15)


@pytest.mark.parametrize("eps", [0.5, 3.0, 20.0])
def test_grr_curve_closed_form_at_a_million(eps: float) -> None:
    # provenance: GRR rows x0, x1: outputs x1 (q, p), the k-2 others (q, q), x0 (p, q);
    # vertices (0, 1), (q, 1 - p), (1 - p, q), (1, 0) with p, q from 50-digit mpmath
    k = 10**6
    with mp.workdps(50):
        e = mp.exp(eps)
        p, qq = float(e / (e + k - 1)), float(1 / (e + k - 1))
        one_minus_p = float((k - 1) / (e + k - 1))
    T = tradeoff_curve(sym.grr(k, eps))
    expected = [(0.0, 1.0), (qq, one_minus_p), (one_minus_p, qq), (1.0, 0.0)]
    assert len(T) == 4
    for (a, b), (ea, eb) in zip(T, expected, strict=True):
        assert a == pytest.approx(ea, rel=1e-12, abs=1e-300)
        assert b == pytest.approx(eb, rel=1e-12, abs=1e-300)
    assert p + one_minus_p == pytest.approx(1.0)


@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_unary_encoding_curve_depends_only_on_the_two_bits(eps: float) -> None:
    # provenance: for x0 vs x1 only bits x0 and x1 differ in law (the other k - 2 bits are
    # i.i.d. noise under both hypotheses), so the curve is that of the 2-bit channel
    # rows (B[1, b0] B[0, b1]) and (B[0, b0] B[1, b1]) over (b0, b1), whatever k
    for make, bit in [(sym.sue, q.sue_bit), (sym.oue, q.oue_bit), (sym.the, q.the_bit)]:
        args = (eps, 0.75) if make is sym.the else (eps,)
        B = bit(*args).matrix
        outs = list(itertools.product((0, 1), repeat=2))
        two = q.Channel(
            [[B[1, b0] * B[0, b1] for b0, b1 in outs], [B[0, b0] * B[1, b1] for b0, b1 in outs]]
        )
        ref = tradeoff_curve(two)
        for k in [3, 1000, 10**5]:
            assert _close(tradeoff_curve(make(k, *args), 0, 1), ref, atol=1e-12), (make, k)


def test_exact_mode_and_arguments() -> None:
    T = tradeoff_curve(sym.grr(4, 1.0), exact=True)
    assert T.exact and all(isinstance(a, Fraction) for a in T.alphas)
    assert _close(T, tradeoff_curve(q.grr(4, 1.0)), atol=1e-12)
    assert list(tradeoff_curve(sym.oue(5, 1.0), 2, 2)) == [(0.0, 1.0), (1.0, 0.0)]
    with pytest.raises(ParameterError):
        tradeoff_curve(sym.grr(4, 1.0), 0, 4)
    with pytest.raises(InputTypeError):
        tradeoff_curve(sym.grr(4, 1.0), 0.5, 1)
