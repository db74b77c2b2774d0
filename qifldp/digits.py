"""Numbers stated with their digits: an exact rational in scientific notation, never
through a float (a gap of 1e-400 proved in rationals would print as 0.000e+00).

Layer L0: no qifldp imports.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational

__all__ = ["scientific"]

_LOG10_2 = math.log10(2.0)


def _exponent(n: int, d: int) -> int:
    """floor(log10(n / d)) for positive integers, by integer comparisons only."""
    e = math.floor((n.bit_length() - d.bit_length()) * _LOG10_2)

    def below(e: int) -> bool:  # n / d < 10^e
        return n < d * 10**e if e >= 0 else n * 10**-e < d

    while below(e):
        e -= 1
    while not below(e + 1):
        e += 1
    return e


def scientific(x: float | Rational, digits: int = 4) -> str:
    """``x`` in scientific notation with ``digits`` significant digits, as Python's
    ``f"{x:.{digits - 1}e}"`` writes a float, but exact for a rational of any magnitude.

    Parameters
    ----------
    x : float or fractions.Fraction (any numbers.Rational)
        The number; a rational is rounded to nearest (ties to even) from its exact value.
    digits : int
        Significant digits, >= 1.

    Returns
    -------
    str
        E.g. ``"3.162e-400"``.

    Raises
    ------
    ValueError
        ``digits`` < 1.

    Examples
    --------
    >>> from fractions import Fraction
    >>> scientific(Fraction(1, 3) * Fraction(1, 10**400))
    '3.333e-401'
    >>> scientific(Fraction(-99995, 10**5), 4), scientific(0.5, 2), scientific(Fraction(0))
    ('-1.000e+00', '5.0e-01', '0.000e+00')
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        msg = f"digits must be an integer >= 1, got {digits!r}"
        raise ValueError(msg)
    if not isinstance(x, Rational) or isinstance(x, bool):
        return f"{float(x):.{digits - 1}e}"
    q = Fraction(x)
    if q == 0:
        return f"{0.0:.{digits - 1}e}"
    sign = "-" if q < 0 else ""
    n, d = abs(q.numerator), q.denominator
    e = _exponent(n, d)
    shift = digits - 1 - e  # the mantissa's digits as one integer: x * 10^shift
    scaled = Fraction(n * 10**shift, d) if shift >= 0 else Fraction(n, d * 10**-shift)
    m = round(scaled)
    if m == 10**digits:  # rounded up to the next power of ten
        m //= 10
        e += 1
    text = str(m)
    mantissa = text[0] + ("." + text[1:] if digits > 1 else "")
    return f"{sign}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
