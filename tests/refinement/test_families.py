"""Refinement families over an eps grid, with composed certificates."""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.refinement.families import check_refinement_family
from qifldp.tradeoff import refines_2x2


def test_grr_family_certificates_compose():
    # paper's Lemma 3 ([24]): GRR is a refinement family; consecutive LP certificates
    grid = [2.0, 0.5, 1.0, 3.0]  # any order: sorted internally
    r = check_refinement_family(lambda e: q.grr(4, e), grid, strict=True)
    assert r and r.holds and r.eps == (0.5, 1.0, 2.0, 3.0)
    assert len(r.steps) == 3 and not r.failures
    assert all(s.eps_large > s.eps_small for s in r.steps)
    assert all(s.result.witness is not None for s in r.steps)
    assert all(s.reverse.counterexample.gap > 0 for s in r.steps)  # strict: reverse refuted
    # composed witness: grr(4, 3)·W = grr(4, 0.5) (independent float check)
    W = r.witness(3.0, 0.5)
    assert np.all(W >= -1e-9)
    np.testing.assert_allclose(W.sum(axis=1), 1, atol=1e-8)
    np.testing.assert_allclose(q.grr(4, 3.0).matrix @ W, q.grr(4, 0.5).matrix, atol=1e-7)
    assert "is a strict refinement family" in repr(r)
    assert len(r.certificates) == 3


def test_a_non_family_is_detected():
    # eps -> grr(2, 1/eps) reverses the order: every step fails, with counterexamples
    r = check_refinement_family(lambda e: q.grr(2, 1 / e), [0.5, 1.0, 2.0])
    assert not r and len(r.failures) == 2
    assert all(s.result.counterexample is not None for s in r.failures)
    assert "is not a refinement family" in repr(r)
    with pytest.raises(ParameterError, match="no witness"):
        r.witness(2.0, 0.5)


def test_non_strict_family_with_equivalent_members():
    # a constant family is a refinement family but not a strict one
    const = check_refinement_family(lambda e: q.grr(3, 1.0), [0.1, 0.2], strict=False)
    assert const.holds
    strict = check_refinement_family(lambda e: q.grr(3, 1.0), [0.1, 0.2], strict=True)
    assert not strict.holds and len(strict.failures) == 1


def test_bit_family_with_the_exact_criterion():
    # binary randomized response with p = e^eps/(1+e^eps): refinement family (closed form)
    def rr(eps):
        p = 1 / (1 + math.exp(-eps))
        return [[p, 1 - p], [1 - p, p]]

    r = check_refinement_family(rr, np.linspace(0, 5, 26), decide=refines_2x2, strict=True)
    assert r.holds and r.certificates == [True] * 25


def test_errors():
    with pytest.raises(InputTypeError, match="mechanism"):
        check_refinement_family(3, [1, 2])
    with pytest.raises(InputTypeError, match="decide"):
        check_refinement_family(lambda e: q.grr(2, e), [1, 2], decide="lp")
    with pytest.raises(ParameterError, match="two distinct"):
        check_refinement_family(lambda e: q.grr(2, e), [1.0, 1.0])
    with pytest.raises(ParameterError):
        check_refinement_family(lambda e: q.grr(2, e), [-1.0, 1.0])
    with pytest.raises(InputTypeError):
        check_refinement_family(lambda e: q.grr(2, e), "12")
    r = check_refinement_family(lambda e: q.grr(2, e), [1.0, 2.0])
    with pytest.raises(ParameterError, match="grid points"):
        r.witness(3.0, 1.0)
    with pytest.raises(ParameterError, match=">="):
        r.witness(1.0, 2.0)
