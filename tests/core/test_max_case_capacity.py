"""max_case_capacity near the float range (issue 8, reproducer 6).

e^eps is finite up to eps = ln(DBL_MAX) = 709.782712893384 (the closed form of
the largest float, 1.7976931348623157e308); the capacity was cut at eps = 709.0.
"""

import math
import sys

import pytest

import qifldp as q
from qifldp.measures import LOG_FLOAT_MAX, capacity_from_epsilon


def test_log_float_max_is_ln_dbl_max():
    assert LOG_FLOAT_MAX == math.log(sys.float_info.max)
    assert math.isfinite(math.exp(LOG_FLOAT_MAX))
    assert LOG_FLOAT_MAX == pytest.approx(709.782712893384, abs=1e-12)


@pytest.mark.parametrize("eps", [709.3, 709.5, 709.78])
def test_reproducer_6_explicit_capacity_finite_up_to_ln_dbl_max(eps):
    C = q.grr(2, eps)
    # GRR(2, eps): ldp_epsilon = eps (the two entries of a column are e^eps/(e^eps+1) and
    # 1/(e^eps+1)), so the capacity is e^eps, finite below ln(DBL_MAX)
    got = q.max_case_capacity(C)
    assert math.isfinite(got)
    assert got == pytest.approx(math.exp(q.ldp_epsilon(C)), rel=1e-15)
    assert math.log(got) == pytest.approx(eps, rel=1e-13)


def test_capacity_infinite_only_beyond_float_range():
    assert q.max_case_capacity(q.grr(2, 709.79)) == math.inf
    assert q.max_case_capacity(q.Channel([[1.0, 0.0], [0.5, 0.5]])) == math.inf
    assert capacity_from_epsilon(math.inf) == math.inf
    assert capacity_from_epsilon(709.78) == math.exp(709.78)
    assert capacity_from_epsilon(0.0) == 1.0


def test_capacity_from_epsilon_rejects_nan():
    with pytest.raises(q.ParameterError, match="eps must not be NaN"):
        capacity_from_epsilon(math.nan)
