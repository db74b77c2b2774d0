"""Building a protocol's symbolic channel: its parameters, their domains and the size guard.

The parameter domains (:data:`EPS_DOMAIN`, :data:`THETA_DOMAIN`,
:data:`PROBABILITY_DOMAIN`) and :class:`SymbolicParameters`, which reads a protocol's
parameters (sympy symbols, symbol names, exact numbers or floats made exact) into sympy
expressions with their domains, checks them, and builds the symbolic channel;
:func:`guard_symbolic_size` refuses a symbolic matrix of more than
:data:`~qifldp.symbolic.channel.MAX_SYMBOLIC_ENTRIES` entries before it is built.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .lazy import sympy as _lazy_sympy

if TYPE_CHECKING:
    import sympy as sp
else:
    sp = _lazy_sympy

from ..errors import ParameterError, SizeError
from . import _sign
from .channel import MAX_SYMBOLIC_ENTRIES, SymbolicChannel
from .expressions import to_expr

#: The domains by name -> the module constant (``EPS_DOMAIN`` ...) that holds it, built on
#: first use by the module ``__getattr__`` (so that importing this module loads no sympy):
#: EPS_DOMAIN = [0, oo) for the privacy parameter, THETA_DOMAIN = (1/2, 1) for THE's
#: threshold, PROBABILITY_DOMAIN = [0, 1] for unary encoding's bit probabilities p, q.
DOMAIN_NAMES = {"eps": "EPS_DOMAIN", "theta": "THETA_DOMAIN", "probability": "PROBABILITY_DOMAIN"}

__all__ = [
    "SymbolicParameters",
    "guard_symbolic_size",
    "named_domain",
    "DOMAIN_NAMES",
    *DOMAIN_NAMES.values(),
]

_DOMAINS: dict[str, sp.Interval] = {}


def named_domain(name: str) -> sp.Interval:
    """The domain called ``name``: "eps" [0, oo), "theta" (1/2, 1) or "probability" [0, 1].

    Also readable as the module constants ``EPS_DOMAIN``, ``THETA_DOMAIN`` and
    ``PROBABILITY_DOMAIN`` (built once, on first use).

    Examples
    --------
    >>> named_domain("theta")
    Interval.open(1/2, 1)
    """
    const = DOMAIN_NAMES.get(name, name)
    if const not in _DOMAINS:
        if const == "EPS_DOMAIN":
            _DOMAINS[const] = sp.Interval(0, sp.oo)
        elif const == "THETA_DOMAIN":
            _DOMAINS[const] = sp.Interval.open(sp.Rational(1, 2), 1)
        elif const == "PROBABILITY_DOMAIN":
            _DOMAINS[const] = sp.Interval(0, 1)
        else:
            msg = f"domain name must be one of {sorted(DOMAIN_NAMES)}, got {name!r}"
            raise ParameterError(msg)
    return _DOMAINS[const]


def __getattr__(name: str) -> Any:
    if name in DOMAIN_NAMES.values():
        return named_domain(name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


class SymbolicParameters:
    """The parameters of one symbolic channel being built: checks, domains, relations.

    :meth:`take` checks a value against its domain (a number must lie in it; a
    symbolic value is refused only when it is provably outside) and records the
    domain of a symbol, or the relations of a compound expression, for the
    channel that :meth:`channel` builds.

    Examples
    --------
    >>> P = SymbolicParameters()
    >>> P.take("eps", "e", "eps")
    e
    >>> P.channel([[1, 0], [0, 1]], (0, 1), (0, 1)).domain("e")
    Interval(0, oo)
    >>> P.take("theta", 2, "theta")
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: theta must lie in (1/2, 1), got 2
    """

    def __init__(self) -> None:
        self.domains: dict = {}
        self.assume: list = []

    def take(self, name: str, value: Any, domain: sp.Interval | str) -> sp.Expr:
        """The parameter ``name`` as an exact expression, checked against ``domain``
        (an interval, or the name of one for :func:`named_domain`).

        Raises
        ------
        ParameterError
            A number outside ``domain`` (or not finite and real); an expression
            provably outside it.

        Examples
        --------
        >>> SymbolicParameters().take("p", 0.25, "probability")
        1/4
        """
        if isinstance(domain, str):
            domain = named_domain(domain)
        v = to_expr(value, name)
        lo, hi = domain.start, domain.end
        if v.is_number:
            if v.is_extended_real is False or v.is_finite is False:
                msg = f"{name} must be a finite real number, got {v}"
                raise ParameterError(msg)
            if domain.contains(v) == sp.false:
                msg = f"{name} must lie in {_show(domain)}, got {v}"
                raise ParameterError(msg)
            return v
        # symbolic: raise only when the value is provably outside the domain
        if lo.is_finite:
            c = _sign.sign_class(v - lo)
            if c == _sign.NEG or (domain.left_open and c in (_sign.ZERO, _sign.NONPOS)):
                msg = f"{name} = {v} is provably outside {_show(domain)}"
                raise ParameterError(msg)
        if hi.is_finite:
            c = _sign.sign_class(hi - v)
            if c == _sign.NEG or (domain.right_open and c in (_sign.ZERO, _sign.NONPOS)):
                msg = f"{name} = {v} is provably outside {_show(domain)}"
                raise ParameterError(msg)
        if isinstance(v, sp.Symbol):
            old = self.domains.get(v)
            self.domains[v] = domain if old is None else sp.Intersection(old, domain)
        else:
            # sympy may already decide a relation from the symbols' assumptions
            # (e.g. a + b >= 0 for nonnegative a, b); keep only undecided ones.
            relations = []
            if lo.is_finite:
                relations.append(v > lo if domain.left_open else v >= lo)
            if hi.is_finite:
                relations.append(v < hi if domain.right_open else v <= hi)
            self.assume.extend(r for r in relations if r is not sp.true)
        return v

    def require_pq(self, p: sp.Expr, q: sp.Expr) -> None:
        """Require unary encoding's q < p: checked for numbers, recorded (or refuted) for symbols.

        Raises
        ------
        ParameterError
            Numbers with q >= p; expressions with p - q provably <= 0.

        Examples
        --------
        >>> P = SymbolicParameters()
        >>> P.require_pq(sp.Symbol("p"), sp.Symbol("q"))
        >>> P.assume
        [p > q]
        >>> P.require_pq(sp.Rational(1, 4), sp.Rational(1, 2))
        Traceback (most recent call last):
        ...
        qifldp.errors.ParameterError: p and q must satisfy 0 <= q < p <= 1, got p = 1/4, q = 1/2
        """
        c = _sign.sign_class(p - q)
        if (p - q).is_number:
            if c != _sign.POS:
                msg = f"p and q must satisfy 0 <= q < p <= 1, got p = {p}, q = {q}"
                raise ParameterError(msg)
        elif c in (_sign.NEG, _sign.NONPOS, _sign.ZERO):
            msg = f"p and q must satisfy q < p, but p - q = {p - q} is provably <= 0"
            raise ParameterError(msg)
        else:
            self.assume.append(p > q)

    @staticmethod
    def number(value: sp.Expr, what: str) -> float:
        """A numeric parameter as a float (30 digits before rounding), for a rounded default.

        Raises
        ------
        ParameterError
            ``value`` is not a number (``what`` names the default that needs it).

        Examples
        --------
        >>> import sympy as sp
        >>> round(SymbolicParameters.number(sp.log(2), "olh"), 12)
        0.69314718056
        """
        if not value.is_number:
            msg = (
                f"{what} needs a numeric eps (it is rounded from e^eps); "
                f"give it explicitly for eps = {value}"
            )
            raise ParameterError(msg)
        return float(sp.N(value, 30))

    def bit_channel(
        self, p: sp.Expr, one_minus_p: sp.Expr, q: sp.Expr, one_minus_q: sp.Expr
    ) -> SymbolicChannel:
        """The 2x2 bit channel [[1 - q, q], [1 - p, p]] (rows and columns: bit 0, bit 1).

        The four entries are given (in the order of the log-space parameters
        ``log p, log(1-p), log q, log(1-q)``) so that each keeps its own form.

        Examples
        --------
        >>> half = sp.Rational(1, 2)
        >>> quarter = sp.Rational(1, 4)
        >>> SymbolicParameters().bit_channel(half, half, quarter, 1 - quarter).matrix
        Matrix([
        [3/4, 1/4],
        [1/2, 1/2]])
        """
        return self.channel([[one_minus_q, q], [one_minus_p, p]], (0, 1), (0, 1))

    def channel(self, rows: list, inputs: Any, outputs: Any) -> SymbolicChannel:
        """The channel of these rows, with the recorded domains and relations (rows unchecked).

        Examples
        --------
        >>> SymbolicParameters().channel([[1]], (0,), (0,)).shape
        (1, 1)
        """
        return SymbolicChannel(
            rows, inputs, outputs, domains=self.domains, assume=self.assume, validate=False
        )


def _show(domain: sp.Interval) -> str:
    left = "(" if domain.left_open else "["
    right = ")" if domain.right_open else "]"
    return f"{left}{domain.start}, {domain.end}{right}"


def _fmt(n: Any) -> str:
    """An argument for a message: an integer in full up to 12 digits, else in scientific form."""
    if isinstance(n, int) and n >= 10**12:
        return f"{n:.3e}"
    return str(n)


def guard_symbolic_size(
    name: str, args: tuple, n_rows: int, log10_cols: float, exact_cols: Any = None
) -> None:
    """Refuse a channel of more than MAX_SYMBOLIC_ENTRIES entries, before building anything.

    Parameters
    ----------
    name, args : str, tuple
        The constructor call being refused, e.g. ``("grr", (k, "eps"))``.
    n_rows : int
        Number of rows.
    log10_cols : float
        log10 of the number of columns; decides first (cheap even for
        astronomically many columns).
    exact_cols : callable, optional
        The exact number of columns, called only when it is small enough to print.

    Raises
    ------
    SizeError
        Too many entries; the message names the symmetric kind and the closed forms.

    Examples
    --------
    >>> guard_symbolic_size("grr", (10, "eps"), 10, 1.0, lambda: 10)
    >>> guard_symbolic_size("grr", (10**9, "eps"), 10**9, 9.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: grr(1000000000, eps) would have 1000000000 x ~10^9 ...
    """
    what = f"{name}({', '.join(map(_fmt, args))})"
    log10_n = math.log10(n_rows) + log10_cols
    limit = MAX_SYMBOLIC_ENTRIES
    alt = (
        "use qifldp.symmetric (e.g. qifldp.symmetric.grr(k, eps): numeric at any k) or the "
        "closed forms of qifldp.symbolic.formulas / qifldp.formulas"
    )
    if log10_n <= math.log10(limit) + 2:
        n_cols = int(exact_cols()) if exact_cols is not None else round(10**log10_cols)
        if n_rows * n_cols <= limit:
            return
        size = f"{n_rows} x {n_cols} = {n_rows * n_cols}"
    else:
        size = f"{_fmt(n_rows)} x ~10^{log10_cols:.4g} (~10^{log10_n:.4g})"
    msg = (
        f"{what} would have {size} symbolic entries, more than "
        f"MAX_SYMBOLIC_ENTRIES = {limit}; {alt}"
    )
    raise SizeError(msg)
