"""Exact arguments of the symbolic closed forms (the sympy twins in the family modules).

Each family module keeps the sympy twin of its closed forms beside the numeric
ones (``symbolic_bayes_capacity_grr`` beside ``bayes_capacity_grr`` ...); they
import this module lazily, so that ``import qifldp`` does not load sympy. It
turns the arguments into sympy expressions with the domains of
:mod:`qifldp.symbolic` and refuses exact numbers too large to form.

>>> exact_int(3), exact_eps(0.5)
(3, 1/2)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..errors import InputTypeError, SizeError
from ..symbolic.lazy import sympy as _lazy_sympy
from ..symbolic.parameters import SymbolicParameters, named_domain
from ..validation import check_int

if TYPE_CHECKING:
    import sympy as sp
else:
    sp = _lazy_sympy

__all__ = ["MAX_EXACT_BITS", "exact_int", "exact_eps", "exact_params", "check_bits", "power_bits"]

#: A closed form evaluated at a concrete k may form exact integers (g^k, (1 - q)^(k-1)
#: for a rational q, binomial coefficients); beyond this many bits it is refused
#: before sympy starts (a symbolic k, or the float forms of qifldp.formulas, answer).
MAX_EXACT_BITS: int = 10**6

#: The domain of each real parameter of the closed forms (a name of
#: :func:`~qifldp.symbolic.parameters.named_domain`; q's is (0, 1], built on use).
_DOMAINS = {"eps": "eps", "theta": "theta", "p": "probability", "q": None}


def _domain(name: str) -> Any:
    d = _DOMAINS[name]
    return sp.Interval.Lopen(0, 1) if d is None else named_domain(d)


def exact_int(k: Any, name: str = "k", minimum: int = 2) -> sp.Expr:
    """An integer parameter (k, omega, g): a checked sympy Integer, or a symbolic expression.

    Examples
    --------
    >>> exact_int(sp.Symbol("k", integer=True, positive=True))
    k
    >>> exact_int(1)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: k must be >= 2, got 1
    """
    if isinstance(k, sp.Basic) and not k.is_number:
        if not isinstance(k, sp.Expr):
            msg = f"{name} must be an integer or a sympy expression"
            raise InputTypeError(msg)
        return k
    return sp.Integer(check_int(name, int(k) if isinstance(k, sp.Integer) else k, minimum=minimum))


def exact_params(**values: Any) -> tuple[sp.Expr, ...]:
    """The real parameters (eps, theta, p, q), each checked against its domain, in call order.

    Examples
    --------
    >>> exact_params(eps="e", theta=0.75)
    (e, 3/4)
    """
    P = SymbolicParameters()
    return tuple(P.take(name, value, _domain(name)) for name, value in values.items())


def exact_eps(eps: Any) -> sp.Expr:
    """eps as a sympy expression in [0, oo) (a name becomes a Symbol).

    Examples
    --------
    >>> exact_eps("eps")
    eps
    """
    return exact_params(eps=eps)[0]


def check_bits(what: str, bits: float) -> None:
    """Refuse an exact number of more than :data:`MAX_EXACT_BITS` bits, before it is formed.

    Examples
    --------
    >>> check_bits("g**k", 10.0)
    >>> check_bits("g**k", 1e7)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: g**k would form an exact number of ~1e+07 bits ...
    """
    if bits > MAX_EXACT_BITS:
        msg = (
            f"{what} would form an exact number of ~{bits:.3g} bits (more than "
            f"MAX_EXACT_BITS = {MAX_EXACT_BITS}); pass k as a sympy Symbol "
            "(positive integer) for the closed form, or use qifldp.formulas for a float value"
        )
        raise SizeError(msg)


def power_bits(base: sp.Expr, exponent: sp.Expr) -> float:
    """Size in bits of base**exponent when sympy would evaluate it exactly, else 0.

    Examples
    --------
    >>> power_bits(sp.Integer(2), sp.Integer(10)) > 10, power_bits(sp.Symbol("g"), sp.Integer(3))
    (True, 0.0)
    """
    if not (exponent.is_Integer and base.is_Rational) or base in (0, 1, -1):
        return 0.0
    b = sp.Rational(base)
    return abs(int(exponent)) * (math.log2(abs(int(b.p)) + 1) + math.log2(int(b.q)))
