"""scientific(): exact rationals in scientific notation, checked against Python's correctly
rounded float formatting on the floats' exact values and on those values scaled far below
the float range (the same digits, the exponent shifted)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from qifldp.digits import scientific

finite = st.floats(allow_nan=False, allow_infinity=False).filter(lambda v: v != 0.0)


@settings(max_examples=300, deadline=None)
@given(finite, st.integers(1, 17))
def test_a_float_read_exactly_prints_as_python_prints_it(v: float, digits: int) -> None:
    # Python rounds a float's exact binary value to nearest, ties to even: the same rule
    assert scientific(Fraction(v), digits) == f"{v:.{digits - 1}e}"


@settings(max_examples=200, deadline=None)
@given(finite, st.integers(1, 8), st.integers(-2000, 2000))
def test_a_power_of_ten_only_moves_the_exponent(v: float, digits: int, shift: int) -> None:
    mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
    e = int(exponent) + shift
    expected = f"{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
    assert scientific(Fraction(v) * Fraction(10) ** shift, digits) == expected


def test_below_the_float_range_the_digits_survive() -> None:
    gap = Fraction(1, 3) / 10**400
    assert float(gap) == 0.0  # what the float route printed: 0.000e+00
    assert scientific(gap) == "3.333e-401"
    assert scientific(Fraction(10**5000 + 1, 10**5000)) == "1.000e+00"  # past str()'s digit limit
    assert scientific(Fraction(math.pi)) == f"{math.pi:.3e}"


def test_rounding_up_to_the_next_power_of_ten_carries_the_exponent() -> None:
    assert scientific(Fraction(99995, 10**9), 4) == "1.000e-04"  # ties to even: 9999.5 -> 10000
    assert scientific(Fraction(99985, 10**9), 4) == "9.998e-05"


@pytest.mark.parametrize("digits", [0, -1, 1.5, True])
def test_digits_must_be_a_positive_integer(digits: object) -> None:
    with pytest.raises(ValueError, match="digits must be an integer >= 1"):
        scientific(Fraction(1, 3), digits)  # type: ignore[arg-type]
