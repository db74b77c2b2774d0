"""GRR-type ⊑ explicit B by GRR's inverse: its verdicts against the explicit LP's, its
witness re-checked with numpy, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import ChannelError, InputTypeError, ParameterError, SizeError
from qifldp.sweeps.atlas import ATLAS_ORACLES
from qifldp.symmetric.grr_inverse import GRR_INVERSE_MAX_WORK, grr_inverse_witness, is_grr_type
from tests.sweeps._reference import explicit_oracle


@pytest.mark.parametrize("b", ["hr", "he", "hr_block", "cms", "hcms", "rappor", "he_multi"])
@pytest.mark.parametrize("k", [3, 4, 6])
@pytest.mark.parametrize("eps", [0.5, 2.0, 4.0, 8.0])
def test_agrees_with_the_explicit_lp(b, k, eps):
    A = sym.grr(k, eps)
    B = explicit_oracle(ATLAS_ORACLES[b][0](k, eps))
    found = grr_inverse_witness(A, B)
    verdict = q.refines(A.expand(), B, time_limit=60)
    if found is not None:
        assert verdict.holds is True
        W = found.W
        assert W.min() >= 0
        np.testing.assert_allclose(W.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(A.expand().matrix @ W, B.matrix, rtol=0, atol=1e-13)
    else:
        # the inverse has an entry below zero: the LP must not find a witness (a pair on
        # the boundary may be "holds up to rounding" there)
        assert verdict.holds is not True or "rounding" in str(verdict.certified_by)


def test_the_only_solution_decides_exactly_where_it_is_clear():
    # W = A^-1 B: for B = A itself the identity, for B = GRR at a smaller eps a GRR
    A = sym.grr(5, 2.0)
    found = grr_inverse_witness(A, A.expand())
    np.testing.assert_allclose(found.W, np.eye(5), atol=1e-15)
    assert grr_inverse_witness(sym.grr(5, 1.0), sym.grr(5, 2.0).expand()) is None


def test_refusals():
    assert not is_grr_type(sym.oue(4, 1.0))
    with pytest.raises(ParameterError, match="GRR-type"):
        grr_inverse_witness(sym.oue(4, 1.0), sym.grr(4, 1.0).expand())
    with pytest.raises(ParameterError, match="rows"):
        grr_inverse_witness(sym.grr(4, 1.0), sym.grr(5, 1.0).expand())


@pytest.mark.parametrize(
    ("B", "error", "match"),
    [
        # NaN reached the witness's least squares (LinAlgError), the others gave None
        (np.full((3, 2), np.nan), ChannelError, "B: "),
        (np.array([[1.5, -0.5], [0.5, 0.5], [0.5, 0.5]]), ChannelError, "B: "),
        (np.full((3, 2), 5.0), ChannelError, "B: "),
        ("abc", InputTypeError, "B must be a Channel or a 2-D array"),
    ],
)
def test_b_that_is_not_a_channel_is_refused_by_name(B, error, match):
    with pytest.raises(error, match=match):
        grr_inverse_witness(sym.grr(3, 1.0), B)


def test_a_that_is_not_a_symmetric_channel_is_a_type_error():
    with pytest.raises(InputTypeError, match="A must be a GRR-type SymmetricChannel, got str"):
        grr_inverse_witness("grr", np.eye(3))


def test_a_verification_past_its_work_rule_is_refused_before_any_product():
    # 2048 x 2048 x 4800 > 2e10 multiply-adds (the atlas's budget, now the function's):
    # A's matrix and the product A·W were formed
    k, n = 2048, 4800
    assert k * k * (n - 32) <= GRR_INVERSE_MAX_WORK < k * k * n
    B = np.random.default_rng(0).dirichlet(np.ones(n), size=k)
    with pytest.raises(SizeError, match="GRR_INVERSE_MAX_WORK"):
        grr_inverse_witness(sym.grr(k, 1.0), B)
