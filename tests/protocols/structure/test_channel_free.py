"""The routes that need no channel (qifldp.protocols.structure.channel_free): each one
answers where it should, in its order, and agrees with the explicit LP where the
channels can be built."""

from __future__ import annotations

import pytest

import qifldp as q
from qifldp.errors import ParameterError
from qifldp.protocols.structure.channel_free import channel_free_decision
from qifldp.sweeps.atlas import ATLAS_ORACLES
from tests.sweeps._reference import explicit_oracle


@pytest.mark.parametrize(
    ("a", "b", "k", "eps", "route", "holds"),
    [
        ("hr", "hr_block", 16, 0.5, "equal channels", True),
        ("he_multi", "grr", 8, 2.0, "capacity bound", False),
        ("he_multi", "dbitflip", 16, 2.0, "invariant gain", False),
        ("hr", "l_grr", 7, 0.25, "posterior mixing", True),
        ("he_multi", "l_grr", 8, 0.5, "invariant witness", True),
    ],
)
def test_each_route_answers_and_agrees_with_the_explicit_lp(a, b, k, eps, route, holds):
    A, B = ATLAS_ORACLES[a][0](k, eps), ATLAS_ORACLES[b][0](k, eps)
    found = channel_free_decision(A, B)
    assert found is not None and (found.route, found.holds) == (route, holds)
    assert (found.counterexample is None) == holds
    assert found.values.size > 0 and found.certified_by
    assert q.refines(explicit_oracle(A), explicit_oracle(B)).holds is holds


def test_no_answer_where_no_route_applies():
    # two symmetric oracles: the orbit LP's business, not this module's
    assert channel_free_decision(q.protocol("sue", 8, 1.0), q.protocol("oue", 8, 1.0)) is None
    # a composite protocol has no rows to compare and no structure used here
    pckv = q.protocol("pckv", d=2, ell=2, eps=1.0)
    assert channel_free_decision(pckv, pckv) is None
    # HE with t coefficients into HR: B not symmetric, channels different
    he_multi, hr = q.protocol("he_multi", 16, 1.0), q.protocol("hr", 16, 1.0)
    assert channel_free_decision(he_multi, hr) is None


def test_protocols_over_different_inputs_are_refused():
    # the capacity bound answered here with a gain on A's 8 inputs against B's 16
    with pytest.raises(ParameterError, match="same inputs, got k = 8 and k = 16"):
        channel_free_decision(q.protocol("he_multi", 8, 2.0), q.protocol("grr", 16, 8.0))
