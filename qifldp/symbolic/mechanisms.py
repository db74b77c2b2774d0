"""Symbolic twins of the LDP mechanism constructors (same names, arguments and labels)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import sympy as sp

from ..validation import check_int
from ..errors import ParameterError, SizeError
from . import _sign
from .channel import MAX_SYMBOLIC_ENTRIES, SymbolicChannel, to_expr
from .operators import one_hot

__all__ = [
    "grr",
    "subset_selection",
    "local_hashing",
    "blh",
    "olh",
    "unary_encoding",
    "sue",
    "oue",
    "the",
    "sue_bit",
    "oue_bit",
    "the_bit",
    "EPS_DOMAIN",
    "THETA_DOMAIN",
    "PROBABILITY_DOMAIN",
]

#: The privacy parameter ranges over [0, oo).
EPS_DOMAIN = sp.Interval(0, sp.oo)
#: THE's threshold ranges over the open interval (1/2, 1).
THETA_DOMAIN = sp.Interval.open(sp.Rational(1, 2), 1)
#: Bit probabilities p, q of unary encoding range over [0, 1].
PROBABILITY_DOMAIN = sp.Interval(0, 1)


class _Params:
    """Collects the parameters of one constructor call: checks, domains, relations."""

    def __init__(self) -> None:
        self.domains: dict = {}
        self.assume: list = []

    def take(self, name: str, value: Any, domain: sp.Interval) -> sp.Expr:
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

    def channel(self, rows: list, inputs: Any, outputs: Any) -> SymbolicChannel:
        return SymbolicChannel(
            rows, inputs, outputs, domains=self.domains, assume=self.assume, validate=False
        )


def _show(domain: sp.Interval) -> str:
    left = "(" if domain.left_open else "["
    right = ")" if domain.right_open else "]"
    return f"{left}{domain.start}, {domain.end}{right}"


def _check_k(k: Any) -> int:
    return check_int("k", k, minimum=2)


def _guard(what: str, n_rows: int, log10_cols: float, exact_cols: Any = None) -> None:
    """Refuse a channel of more than MAX_SYMBOLIC_ENTRIES entries, before building anything.

    ``log10_cols`` (cheap even for astronomically many columns) decides first;
    the exact count ``exact_cols()`` is computed only when it is small enough to
    print, so ``grr(10**9, eps)`` or ``sue(10**9, eps)`` is refused at once.
    """
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


def _fmt(n: int) -> str:
    """An integer for a message: in full up to 12 digits, else in scientific notation."""
    return str(n) if n < 10**12 else f"{n:.3e}"


def _log10_comb(n: int, r: int) -> float:
    """log10 C(n, r): exact when small, else the lower bound r log10(n / r) (r <= n/2)."""
    r = min(r, n - r)
    if r <= 0:
        return 0.0
    lower = r * math.log10(n / r)
    if lower > 30:
        return lower  # at least 10^30 columns: refused whatever the exact count
    return math.log10(math.comb(n, r))


def _float_eps(e: sp.Expr, what: str) -> float:
    if not e.is_number:
        msg = (
            f"{what} needs a numeric eps (it is rounded from e^eps); "
            f"give it explicitly for eps = {e}"
        )
        raise ParameterError(msg)
    return float(sp.N(e, 30))


# -- GRR -------------------------------------------------------------------------------
def grr(k: int, eps: Any) -> SymbolicChannel:
    """Generalized randomized response, symbolically.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``; inputs and outputs 0..k-1.
    eps : sympy expression, number or symbol name
        Privacy parameter (domain [0, oo)).

    Returns
    -------
    SymbolicChannel, shape (k, k)
        C[x, y] = e^eps / (e^eps + k - 1) if y = x, else 1 / (e^eps + k - 1).

    Raises
    ------
    ParameterError
        ``k < 2``; a numeric eps < 0 (or a symbolic one that is provably negative).

    Notes
    -----
    QIF paper Eq. (19)-(20). Cost O(k^2).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.grr(2, "eps").matrix
    Matrix([
    [exp(eps)/(exp(eps) + 1),        1/(exp(eps) + 1)],
    [       1/(exp(eps) + 1), exp(eps)/(exp(eps) + 1)]])
    """
    k = _check_k(k)
    _guard(f"grr({_fmt(k)}, eps)", k, math.log10(k), lambda: k)
    P = _Params()
    E = sp.exp(P.take("eps", eps, EPS_DOMAIN))
    p, q = E / (E + k - 1), 1 / (E + k - 1)
    rows = [[p if i == j else q for j in range(k)] for i in range(k)]
    return P.channel(rows, tuple(range(k)), tuple(range(k)))


# -- SS --------------------------------------------------------------------------------
def subset_selection(k: int, eps: Any, omega: int | None = None) -> SymbolicChannel:
    """omega-Subset Selection, symbolically.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : sympy expression, number or symbol name
        Privacy parameter (domain [0, oo)).
    omega : int, optional
        Subset size in [1, k]. Default ``max(1, round(k / (e^eps + 1)))``, which
        needs a numeric eps.

    Returns
    -------
    SymbolicChannel, shape (k, C(k, omega))
        Outputs the omega-subsets as sorted tuples in ``itertools.combinations``
        order; C[x, S] = p / C(k-1, omega-1) if x in S else (1 - p) / C(k-1, omega),
        p = omega e^eps / (omega e^eps + k - omega).

    Raises
    ------
    ParameterError
        Bad k, omega or eps; omega omitted with a symbolic eps.
    SizeError
        Too many entries.

    Notes
    -----
    QIF paper Sec. V-B, Eq. (21). Cost O(k C(k, omega)).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> C = symbolic.subset_selection(3, "eps", 2)
    >>> C.outputs
    ((0, 1), (0, 2), (1, 2))
    >>> C[2, 2]
    exp(eps)/(2*exp(eps) + 1)
    """
    k = _check_k(k)
    P = _Params()
    e = P.take("eps", eps, EPS_DOMAIN)
    if omega is None:
        from ..protocols.params import ss_default_omega

        omega = ss_default_omega(k, _float_eps(e, "the default omega"))
    omega = check_int("omega", omega, minimum=1, maximum=k)
    _guard(
        f"subset_selection({_fmt(k)}, eps, {_fmt(omega)})",
        k,
        _log10_comb(k, omega),
        lambda: math.comb(k, omega),
    )
    E = sp.exp(e)
    d = omega * E + k - omega
    inside = omega * E / d / math.comb(k - 1, omega - 1)
    outside = (k - omega) / d / math.comb(k - 1, omega) if omega < k else sp.Integer(0)
    outs = tuple(itertools.combinations(range(k), omega))
    rows = [[inside if x in S else outside for S in outs] for x in range(k)]
    return P.channel(rows, tuple(range(k)), outs)


# -- LH --------------------------------------------------------------------------------
def local_hashing(k: int, eps: Any, g: int) -> SymbolicChannel:
    """Local hashing (the cascade of the hash encoding and GRR over [g]), symbolically.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : sympy expression, number or symbol name
        Privacy parameter (domain [0, oo)).
    g : int
        Hash range, ``g >= 2``.

    Returns
    -------
    SymbolicChannel, shape (k, g^k g)
        Outputs (h, z): h one of the g^k functions as a k-tuple (``itertools.product``
        order), z the perturbed hash value in 0..g-1 (the labels of
        :func:`qifldp.local_hashing`). C[x, (h, z)] = e^eps / (g^k (e^eps + g - 1))
        if h(x) = z, else 1 / (g^k (e^eps + g - 1)).

    Raises
    ------
    ParameterError, SizeError

    Notes
    -----
    QIF paper Eq. (24) and its appendix (E·G). Cost O(k g^(k+1)).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> C = symbolic.local_hashing(2, "eps", 2)
    >>> C.shape, C.outputs[1]
    ((2, 8), ((0, 0), 1))
    """
    k = _check_k(k)
    g = check_int("g", g, minimum=2)
    _guard(
        f"local_hashing({_fmt(k)}, eps, {_fmt(g)})",
        k,
        (k + 1) * math.log10(g),
        lambda: g ** (k + 1),
    )
    P = _Params()
    E = sp.exp(P.take("eps", eps, EPS_DOMAIN))
    hit, miss = E / (g**k * (E + g - 1)), 1 / (g**k * (E + g - 1))
    outs = tuple((h, z) for h in itertools.product(range(g), repeat=k) for z in range(g))
    rows = [[hit if h[x] == z else miss for h, z in outs] for x in range(k)]
    return P.channel(rows, tuple(range(k)), outs)


def blh(k: int, eps: Any) -> SymbolicChannel:
    """Binary local hashing: :func:`local_hashing` with g = 2.

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.blh(3, "eps").shape
    (3, 16)
    """
    return local_hashing(k, eps, 2)


def olh(k: int, eps: Any) -> SymbolicChannel:
    """Optimized local hashing: g = round(e^eps + 1) (at least 2); eps must be numeric.

    Use :func:`local_hashing` with an explicit g for a symbolic eps.

    Examples
    --------
    >>> import sympy as sp
    >>> from qifldp import symbolic
    >>> symbolic.olh(2, sp.log(2)).shape  # g = round(2 + 1) = 3: 3^2 functions x 3 values
    (2, 27)
    """
    from ..protocols.params import olh_g

    k = _check_k(k)
    e = _Params().take("eps", eps, EPS_DOMAIN)
    g = olh_g(_float_eps(e, "olh"))
    return local_hashing(k, e, g)


# -- bit channels and one-hot encodings -------------------------------------------------
def _bit(
    P: _Params, one_minus_q: sp.Expr, q: sp.Expr, one_minus_p: sp.Expr, p: sp.Expr
) -> SymbolicChannel:
    return P.channel([[one_minus_q, q], [one_minus_p, p]], (0, 1), (0, 1))


def _sue_bit(P: _Params, eps: Any) -> SymbolicChannel:
    H = sp.exp(P.take("eps", eps, EPS_DOMAIN) / 2)
    return _bit(P, H / (H + 1), 1 / (H + 1), 1 / (H + 1), H / (H + 1))


def _oue_bit(P: _Params, eps: Any) -> SymbolicChannel:
    E = sp.exp(P.take("eps", eps, EPS_DOMAIN))
    half = sp.Rational(1, 2)
    return _bit(P, E / (E + 1), 1 / (E + 1), half, half)


def _the_bit(P: _Params, eps: Any, theta: Any) -> SymbolicChannel:
    e = P.take("eps", eps, EPS_DOMAIN)
    t = P.take("theta", theta, THETA_DOMAIN)
    q = sp.exp(-e * t / 2) / 2
    one_minus_p = sp.exp(e * (t - 1) / 2) / 2
    return _bit(P, 1 - q, q, one_minus_p, 1 - one_minus_p)


def sue_bit(eps: Any) -> SymbolicChannel:
    """SUE's 2x2 bit channel: keep a bit w.p. e^(eps/2) / (e^(eps/2) + 1).

    Rows = input bit 0/1, columns = output bit 0/1 (QIF paper, S_eps of Lemma 7).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.sue_bit("eps").matrix
    Matrix([
    [exp(eps/2)/(exp(eps/2) + 1),            1/(exp(eps/2) + 1)],
    [           1/(exp(eps/2) + 1), exp(eps/2)/(exp(eps/2) + 1)]])
    """
    return _sue_bit(_Params(), eps)


def oue_bit(eps: Any) -> SymbolicChannel:
    """OUE's 2x2 bit channel [[e^eps/(e^eps+1), 1/(e^eps+1)], [1/2, 1/2]] (QIF paper, O_eps).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.oue_bit("eps")[1, 1]
    1/2
    """
    return _oue_bit(_Params(), eps)


def the_bit(eps: Any, theta: Any) -> SymbolicChannel:
    """THE's 2x2 bit channel: Laplace(2/eps) noise added to the bit, then threshold theta.

    Parameters
    ----------
    eps : sympy expression, number or symbol name
        Domain [0, oo).
    theta : sympy expression, number or symbol name
        Threshold, domain (1/2, 1).

    Returns
    -------
    SymbolicChannel, shape (2, 2)
        [[1 - q, q], [1 - p, p]] with q = Pr[N > theta] = e^(-eps theta / 2) / 2 and
        1 - p = Pr[1 + N <= theta] = e^(eps (theta - 1) / 2) / 2, N ~ Laplace(0, 2/eps).

    Notes
    -----
    For N ~ Laplace(0, b), Pr[N > t] = e^(-t/b) / 2 when t >= 0, and
    Pr[N <= t] = e^(t/b) / 2 when t <= 0; here b = 2/eps, and theta - 1 < 0 <
    theta (QIF paper Sec. V-E, T_{eps,theta} of Lemma 5).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.the_bit("eps", "theta").matrix
    Matrix([
    [ 1 - exp(-eps*theta/2)/2,          exp(-eps*theta/2)/2],
    [exp(eps*(theta - 1)/2)/2, 1 - exp(eps*(theta - 1)/2)/2]])
    """
    return _the_bit(_Params(), eps, theta)


def unary_encoding(k: int, p: Any, q: Any) -> SymbolicChannel:
    """Unary encoding with bit probabilities p (keep a 1) and q (flip a 0 to 1).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    p, q : sympy expressions, numbers or symbol names
        Probabilities in [0, 1] with q < p (as for :func:`qifldp.unary_encoding`);
        for symbols the relation ``p > q`` is recorded in the channel's ``assume``.

    Returns
    -------
    SymbolicChannel, shape (k, 2^k)
        :func:`one_hot` of [[1 - q, q], [1 - p, p]]; outputs all k-bit tuples.

    Raises
    ------
    ParameterError
        p or q outside [0, 1], or q >= p (provably, for symbols).

    Notes
    -----
    QIF paper Def. 7 and Eq. (22). Cost O(k 2^k).

    Examples
    --------
    >>> from qifldp import symbolic
    >>> C = symbolic.unary_encoding(2, "p", "q")
    >>> C.assume
    (p > q,)
    >>> C[0, 2]
    p*(1 - q)
    """
    k = _check_k(k)
    _guard(f"unary_encoding({_fmt(k)}, p, q)", k, k * math.log10(2), lambda: 2**k)
    P = _Params()
    pe = P.take("p", p, PROBABILITY_DOMAIN)
    qe = P.take("q", q, PROBABILITY_DOMAIN)
    c = _sign.sign_class(pe - qe)
    if (pe - qe).is_number:
        if c != _sign.POS:
            msg = f"p and q must satisfy 0 <= q < p <= 1, got p = {pe}, q = {qe}"
            raise ParameterError(msg)
    elif c in (_sign.NEG, _sign.NONPOS, _sign.ZERO):
        msg = f"p and q must satisfy q < p, but p - q = {pe - qe} is provably <= 0"
        raise ParameterError(msg)
    else:
        P.assume.append(pe > qe)
    return one_hot(_bit(P, 1 - qe, qe, 1 - pe, pe), k)


def sue(k: int, eps: Any) -> SymbolicChannel:
    """Symmetric unary encoding (basic RAPPOR): :func:`one_hot` of :func:`sue_bit`.

    Examples
    --------
    >>> from qifldp import symbolic
    >>> C = symbolic.sue(3, "eps")
    >>> C.shape, C.outputs[3]
    ((3, 8), (0, 1, 1))
    """
    k = _check_k(k)
    _guard(f"sue({_fmt(k)}, eps)", k, k * math.log10(2), lambda: 2**k)
    return one_hot(_sue_bit(_Params(), eps), k)


def oue(k: int, eps: Any) -> SymbolicChannel:
    """Optimized unary encoding: :func:`one_hot` of :func:`oue_bit`.

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.oue(2, "eps")[0, 0]
    exp(eps)/(2*(exp(eps) + 1))
    """
    k = _check_k(k)
    _guard(f"oue({_fmt(k)}, eps)", k, k * math.log10(2), lambda: 2**k)
    return one_hot(_oue_bit(_Params(), eps), k)


def the(k: int, eps: Any, theta: Any) -> SymbolicChannel:
    """Thresholding with histogram encoding: :func:`one_hot` of :func:`the_bit`.

    Examples
    --------
    >>> from qifldp import symbolic
    >>> C = symbolic.the(2, "eps", "theta")
    >>> sorted(s.name for s in C.free_symbols)
    ['eps', 'theta']
    >>> C.domain("theta")
    Interval.open(1/2, 1)
    """
    k = _check_k(k)
    _guard(f"the({_fmt(k)}, eps, theta)", k, k * math.log10(2), lambda: 2**k)
    return one_hot(_the_bit(_Params(), eps, theta), k)
