"""Symbolic closed forms of the Bayes capacities (and the QIF paper's printed variants).

Each ``bayes_capacity_*`` function returns the closed form as a sympy expression;
``tests/symbolic/test_derivations.py`` derives the Bayes capacity from the explicit
symbolic channel for k = 2..5 and proves the difference identically zero. Where
the paper prints something else, the ``*_printed`` function returns the print
and its docstring says where it is wrong.

k may be a concrete integer or a sympy symbol (a positive integer).
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp

from ..validation import check_int
from ..errors import InputTypeError, ParameterError, SizeError
from .mechanisms import EPS_DOMAIN, PROBABILITY_DOMAIN, THETA_DOMAIN, _Params

__all__ = [
    "bayes_capacity_grr",
    "bayes_capacity_ss",
    "bayes_capacity_ss_printed",
    "bayes_capacity_lh",
    "bayes_capacity_ue",
    "bayes_capacity_sue",
    "bayes_capacity_oue",
    "bayes_capacity_the",
    "asr_lh",
    "asr_lh_gursoy",
    "the_oue_threshold",
]


def _k(k: Any, name: str = "k", minimum: int = 2) -> sp.Expr:
    if isinstance(k, sp.Basic) and not k.is_number:
        if not isinstance(k, sp.Expr):
            msg = f"{name} must be an integer or a sympy expression"
            raise InputTypeError(msg)
        return k
    return sp.Integer(check_int(name, int(k) if isinstance(k, sp.Integer) else k, minimum=minimum))


#: A closed form evaluated at a concrete k may form exact integers (g^k, (1 - q)^(k-1)
#: for a rational q, binomial coefficients); beyond this many bits it is refused
#: before sympy starts (a symbolic k, or the float forms of qifldp.formulas, answer).
MAX_EXACT_BITS: int = 10**6


def _check_bits(what: str, bits: float) -> None:
    if bits > MAX_EXACT_BITS:
        msg = (
            f"{what} would form an exact number of ~{bits:.3g} bits (more than "
            f"MAX_EXACT_BITS = {MAX_EXACT_BITS}); pass k as a sympy Symbol "
            "(positive integer) for the closed form, or use qifldp.formulas for a float value"
        )
        raise SizeError(msg)


def _power_bits(base: sp.Expr, exponent: sp.Expr) -> float:
    """Size in bits of base**exponent when sympy would evaluate it exactly, else 0."""
    if not (exponent.is_Integer and base.is_Rational) or base in (0, 1, -1):
        return 0.0
    b = sp.Rational(base)
    return abs(int(exponent)) * (math.log2(abs(int(b.p)) + 1) + math.log2(int(b.q)))


def _eps(eps: Any) -> sp.Expr:
    return _Params().take("eps", eps, EPS_DOMAIN)


def bayes_capacity_grr(k: Any, eps: Any) -> sp.Expr:
    """ML(GRR) = k e^eps / (e^eps + k - 1).

    Notes
    -----
    Every column y has its maximum p = e^eps / (e^eps + k - 1) on the diagonal,
    so ML = k p (the QIF paper's Sec. V-A; its display is lost in the text
    extraction).

    Examples
    --------
    >>> bayes_capacity_grr(3, "eps")
    3*exp(eps)/(exp(eps) + 2)
    """
    k, E = _k(k), sp.exp(_eps(eps))
    return k * E / (E + k - 1)


def bayes_capacity_ss(k: Any, eps: Any, omega: Any) -> sp.Expr:
    """ML(omega-SS) = k e^eps / (omega e^eps + k - omega).

    Notes
    -----
    Each of the C(k, omega) columns has its maximum p / C(k-1, omega-1) at the
    members of the subset, so ML = C(k, omega) p / C(k-1, omega-1) = k p / omega
    with p = omega e^eps / (omega e^eps + k - omega).

    Examples
    --------
    >>> bayes_capacity_ss(4, "eps", 2)
    4*exp(eps)/(2*exp(eps) + 2)
    """
    k, E = _k(k), sp.exp(_eps(eps))
    w = _k(omega, "omega", minimum=1)
    if k.is_number and w.is_number and w > k:
        msg = f"omega must be <= k = {k}, got {w}"
        raise ParameterError(msg)
    return k * E / (w * E + k - w)


def bayes_capacity_ss_printed(k: Any, eps: Any, omega: Any) -> sp.Expr:
    """The QIF paper's printed ML(SS) = k p / C(k-1, omega-1) -- wrong for most omega >= 2.

    Notes
    -----
    The print (Sec. V-B) counts k columns instead of C(k, omega): it equals the
    true value k p / omega only when C(k-1, omega-1) = omega, i.e. omega = 1 or
    (k, omega) = (3, 2), the paper's example. See :func:`bayes_capacity_ss`.

    Examples
    --------
    >>> bayes_capacity_ss_printed(4, "eps", 2)
    8*exp(eps)/(3*(2*exp(eps) + 2))
    """
    k, E = _k(k), sp.exp(_eps(eps))
    w = _k(omega, "omega", minimum=1)
    p = w * E / (w * E + k - w)
    if k.is_Integer and w.is_Integer and 1 <= w <= k:
        n, r = int(k) - 1, int(w) - 1
        r = min(r, n - r)
        # log2 C(n, r) >= r log2(n / r); exact below 2^64
        log2_comb = r * math.log2(n / r) if r > 0 else 0.0
        if log2_comb <= 64:
            log2_comb = math.log2(math.comb(n, r)) if r > 0 else 0.0
        _check_bits(f"bayes_capacity_ss_printed({k}, eps, {w})", log2_comb)
    return k * p / sp.binomial(k - 1, w - 1)


def bayes_capacity_lh(k: Any, eps: Any, g: Any) -> sp.Expr:
    """ML(LH) = (e^eps g^k + (g-1)^k (1 - e^eps)) / ((e^eps + g - 1) g^(k-1)) (paper Eq. 27).

    Notes
    -----
    A column (h, z) has maximum e^eps / (g^k (e^eps + g - 1)) iff some x has
    h(x) = z, which holds for g^k - (g-1)^k of the g^k functions, for each z.

    Examples
    --------
    >>> bayes_capacity_lh(2, "eps", 2)
    (3*exp(eps) + 1)/(2*exp(eps) + 2)
    """
    k, E = _k(k), sp.exp(_eps(eps))
    g = _k(g, "g")
    _check_bits(f"bayes_capacity_lh({k}, eps, {g})", _power_bits(g, k))
    return (E * g**k + (g - 1) ** k * (1 - E)) / ((E + g - 1) * g ** (k - 1))


def asr_lh(k: Any, eps: Any, g: Any) -> sp.Expr:
    """ASR(LH) = ML(LH) / k (paper Eq. 26).

    Examples
    --------
    >>> asr_lh(2, 0, 2)
    1/2
    """
    return bayes_capacity_lh(k, eps, g) / _k(k)


def asr_lh_gursoy(k: Any, eps: Any, g: Any) -> sp.Expr:
    """The earlier LH attack formula e^eps / ((e^eps + g - 1) max(k/g, 1)) (paper Eq. 25).

    Notes
    -----
    Wrong in general (the QIF paper, Sec. V-C and appendix A): it replaces
    E[1 - 1/|U|] by (E|U| - 1)/E|U|. Kept to exhibit the error; compare with
    :func:`asr_lh`.

    Examples
    --------
    >>> asr_lh_gursoy(2, 0, 2)
    1/2
    """
    k, E = _k(k), sp.exp(_eps(eps))
    g = _k(g, "g")
    return E / ((E + g - 1) * sp.Max(k / g, 1))


def bayes_capacity_ue(k: Any, p: Any, q: Any) -> sp.Expr:
    """ML(UE) = (1 - q)^(k-1) (1 - p/q) + p/q for bit probabilities 0 < q < p <= 1.

    Notes
    -----
    An output with i >= 1 ones has maximum p q^(i-1) (1-q)^(k-i) (guess one of
    its ones, since p (1-q) >= (1-p) q iff p >= q); the all-zero output has
    (1-p)(1-q)^(k-1). Summing with binomial counts gives the closed form (the
    paper's THE derivation, Sec. V-E, with general p, q).

    Examples
    --------
    >>> bayes_capacity_ue(2, "p", "q")
    p/q + (1 - q)*(-p/q + 1)
    """
    k = _k(k)
    P = _Params()
    pe = P.take("p", p, PROBABILITY_DOMAIN)
    qe = P.take("q", q, sp.Interval.Lopen(0, 1))
    if (pe - qe).is_number and not (pe - qe).is_positive:
        msg = f"p and q must satisfy 0 < q < p <= 1, got p = {pe}, q = {qe}"
        raise ParameterError(msg)
    _check_bits(f"bayes_capacity_ue({k}, p, q)", _power_bits(1 - qe, k - 1))
    return (1 - qe) ** (k - 1) * (1 - pe / qe) + pe / qe


def bayes_capacity_sue(k: Any, eps: Any) -> sp.Expr:
    """ML(SUE) = (p + p^(k-1) (1 - 2p)) / (1 - p), p = e^(eps/2) / (e^(eps/2) + 1).

    Notes
    -----
    The paper's final line (Sec. V-D1); its intermediate lines agree with it.

    Examples
    --------
    >>> bayes_capacity_sue(2, 0)
    1
    """
    k = _k(k)
    H = sp.exp(_eps(eps) / 2)
    p = H / (H + 1)
    _check_bits(f"bayes_capacity_sue({k}, eps)", _power_bits(p, k - 1))
    return (p + p ** (k - 1) * (1 - 2 * p)) / (1 - p)


def bayes_capacity_oue(k: Any, eps: Any) -> sp.Expr:
    """ML(OUE) = ((1 - q)^(k-1) (2q - 1) + 1) / (2q), q = 1 / (e^eps + 1) (paper Sec. V-D2).

    Examples
    --------
    >>> bayes_capacity_oue(2, 0)
    1
    """
    k = _k(k)
    q = 1 / (sp.exp(_eps(eps)) + 1)
    _check_bits(f"bayes_capacity_oue({k}, eps)", _power_bits(1 - q, k - 1))
    return ((1 - q) ** (k - 1) * (2 * q - 1) + 1) / (2 * q)


def bayes_capacity_the(k: Any, eps: Any, theta: Any) -> sp.Expr:
    """ML(THE) = (1 - q)^(k-1) (1 - p/q) + p/q (paper Sec. V-E).

    p = 1 - e^(eps (theta - 1) / 2) / 2 and q = e^(-eps theta / 2) / 2.

    Examples
    --------
    >>> bayes_capacity_the(2, 0, "theta")
    1
    """
    k = _k(k)
    P = _Params()
    e = P.take("eps", eps, EPS_DOMAIN)
    t = P.take("theta", theta, THETA_DOMAIN)
    p = 1 - sp.exp(e * (t - 1) / 2) / 2
    q = sp.exp(-e * t / 2) / 2
    _check_bits(f"bayes_capacity_the({k}, eps, theta)", _power_bits(1 - q, k - 1))
    return (1 - q) ** (k - 1) * (1 - p / q) + p / q


def the_oue_threshold(eps: Any) -> sp.Expr:
    """Lemma 10's bound: OUE ⊑ THE (bitwise) iff theta >= this value (eps > 0).

    (2 ln(e^eps + 1 + (e^(eps/2) - 1) sqrt(e^eps + 1)) - eps - 2 ln 2) / eps,
    with limit 1/sqrt(2) as eps -> 0 (the QIF paper, Lemma 10).

    Examples
    --------
    >>> import sympy as sp
    >>> eps = sp.Symbol("eps", positive=True)
    >>> sp.limit(the_oue_threshold(eps), eps, 0, "+")
    sqrt(2)/2
    >>> the_oue_threshold(0)  # the limit, where the formula is 0/0
    sqrt(2)/2
    """
    e = _eps(eps)
    if e == 0:  # 0/0 at eps = 0: the continuous extension (the limit above), not NaN
        return sp.sqrt(2) / 2
    E, H = sp.exp(e), sp.exp(e / 2)
    return (2 * sp.log(E + 1 + (H - 1) * sp.sqrt(E + 1)) - e - 2 * sp.log(2)) / e
