"""The protocols' parameters (p, q, omega, g, theta) and their checks: their one home.

Every representation of a frequency oracle (explicit, symmetric and symbolic
channels, samplers, estimators, closed forms) takes its parameters from here,
through the protocol objects of :mod:`qifldp.protocols` or these functions.
Each formula is written here three times, side by side: in floating point
(``sue_probabilities``), in log space for huge k or eps (``log_sue``) and as a
sympy expression of a symbolic eps (``sue_expressions``); the tests check the
three against each other.
"""

from __future__ import annotations

import decimal
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit

from ..errors import ParameterError
from ..symbolic.parameters import SymbolicParameters
from ..validation import check_eps, check_int, check_open_interval, check_probability
from .vectorize import as_eps, as_theta

if TYPE_CHECKING:
    import sympy as sp

__all__ = [
    "check_k",
    "check_omega",
    "check_ss",
    "check_g",
    "check_theta",
    "check_pq",
    "grr_probabilities",
    "ss_default_omega",
    "ss_probabilities",
    "ss_inclusion_probabilities",
    "olh_g",
    "lh_probabilities",
    "sue_bits",
    "the_small_bits",
    "sue_probabilities",
    "oue_probabilities",
    "the_probabilities",
    "OLH_FLOAT_EPS_LIMIT",
    "OLH_MAX_EPS",
    "sue_bit_matrix",
    "oue_bit_matrix",
    "the_bit_matrix",
    "log1pexp_neg",
    "log_grr",
    "log_ss",
    "log_sue",
    "sue_bit_log_ratio",
    "log_oue",
    "log_the",
    "log_pq",
    "grr_expressions",
    "ss_expressions",
    "sue_expressions",
    "oue_expressions",
    "the_expressions",
]

#: Up to this eps, ``olh_g`` rounds the float e^eps + 1; beyond it (where the
#: float would overflow) it rounds the exact decimal value.
OLH_FLOAT_EPS_LIMIT: float = 700.0

#: Largest eps for which ``olh_g`` forms the integer g (about 3900 decimal digits).
OLH_MAX_EPS: float = 9000.0


def check_k(k: Any) -> int:
    """Check a domain size: an integer ``k >= 2``.

    Raises
    ------
    InputTypeError
        ``k`` is not an integer.
    ParameterError
        ``k < 2``.

    Examples
    --------
    >>> check_k(5)
    5
    """
    return check_int("k", k, minimum=2)


def check_omega(omega: Any, k: int) -> int:
    """Check a subset size of omega-SS: an integer with ``1 <= omega <= k``.

    ``omega = k`` is allowed: it is the constant channel (every user reports the
    whole domain), which leaks nothing and has ``ldp_epsilon = 0``.

    Examples
    --------
    >>> check_omega(2, 5)
    2
    """
    return check_int("omega", omega, minimum=1, maximum=check_k(k))


def check_ss(k: Any, eps: Any, omega: Any) -> tuple[int, float, int]:
    """Validate (k, eps, omega) of omega-SS; omega None means the default :func:`ss_default_omega`.

    Examples
    --------
    >>> check_ss(10, 1.0, None)  # round(10 / (e + 1)) = 3
    (10, 1.0, 3)
    """
    k = check_k(k)
    eps = check_eps(eps)
    omega = ss_default_omega(k, eps) if omega is None else check_omega(omega, k)
    return k, eps, omega


def check_g(g: Any) -> int:
    """Check a hash range of local hashing: an integer ``g >= 2``.

    Examples
    --------
    >>> check_g(3)
    3
    """
    return check_int("g", g, minimum=2)


def check_theta(theta: Any) -> float:
    """Check a THE threshold: a real number in the open interval (0.5, 1).

    Examples
    --------
    >>> check_theta(0.75)
    0.75
    """
    return check_open_interval("theta", theta, 0.5, 1.0)


def check_pq(p: Any, q: Any) -> tuple[float, float]:
    """Check unary-encoding bit probabilities: ``0 <= q < p <= 1``.

    ``p`` = Pr[output bit 1 | input bit 1], ``q`` = Pr[output bit 1 | input bit 0].

    Examples
    --------
    >>> check_pq(0.5, 0.25)
    (0.5, 0.25)
    """
    p = check_probability("p", p)
    q = check_probability("q", q)
    if not q < p:
        msg = (
            "p and q must satisfy 0 <= q < p <= 1 (a 1 bit reported as 1 more often than a 0 "
            f"bit), got p = {p}, q = {q}"
        )
        raise ParameterError(msg)
    return p, q


def grr_probabilities(k: Any, eps: Any) -> tuple[float, float]:
    """GRR's p = e^eps / (e^eps + k - 1) (report the truth) and q = 1 / (e^eps + k - 1).

    Notes
    -----
    Computed as p = 1 / (1 + (k-1) e^-eps), q = e^-eps / (1 + (k-1) e^-eps): no
    overflow for any finite eps (q underflows to 0 beyond eps ~ 745).

    Examples
    --------
    >>> p, q = grr_probabilities(3, math.log(2))
    >>> round(p, 12), round(q, 12)
    (0.5, 0.25)
    """
    k = check_k(k)
    eps = check_eps(eps)
    t = math.exp(-eps)
    d = 1.0 + (k - 1) * t
    return 1.0 / d, t / d


def ss_default_omega(k: Any, eps: Any) -> int:
    """The default subset size of omega-SS: ``max(1, round(k / (e^eps + 1)))``.

    Notes
    -----
    k / (e^eps + 1) is evaluated as k * expit(-eps) (no overflow); ``round`` is
    Python's round-half-to-even (e.g. k = 5, eps = 0 gives 2.5 -> 2).

    Examples
    --------
    >>> ss_default_omega(10, 1.0), ss_default_omega(5, 0.0), ss_default_omega(10, 800.0)
    (3, 2, 1)
    """
    k = check_k(k)
    eps = check_eps(eps)
    return max(1, round(k * float(expit(-eps))))


def ss_probabilities(k: Any, eps: Any, omega: Any) -> tuple[float, float]:
    """omega-SS support probabilities p = Pr[x in Omega | x] and q = Pr[v in Omega | x != v].

    Notes
    -----
    p = omega e^eps / (omega e^eps + k - omega) and
    q = (p (omega - 1) + (1 - p) omega) / (k - 1) (Ye-Barg; multidimensional-risks
    paper Sec. 2.2.3). Computed with e^-eps (no overflow).

    Examples
    --------
    >>> p, q = ss_probabilities(4, 0.0, 2)
    >>> round(p, 12), round(q, 12)
    (0.5, 0.5)
    """
    p, one_minus_p = ss_inclusion_probabilities(k, eps, omega)
    k = check_k(k)
    omega = check_omega(omega, k)
    q = (p * (omega - 1) + one_minus_p * omega) / (k - 1)
    return p, q


def ss_inclusion_probabilities(k: Any, eps: Any, omega: Any) -> tuple[float, float]:
    """omega-SS's p = omega e^eps / (omega e^eps + k - omega) = Pr[x in Omega | x] and 1 - p.

    Notes
    -----
    Computed with e^-eps (no overflow), 1 - p = (k - omega) e^-eps / (omega +
    (k - omega) e^-eps) without cancellation.

    Examples
    --------
    >>> ss_inclusion_probabilities(3, math.log(2), 2)
    (0.8, 0.2)
    """
    k = check_k(k)
    eps = check_eps(eps)
    omega = check_omega(omega, k)
    t = math.exp(-eps)
    d = omega + (k - omega) * t
    return omega / d, (k - omega) * t / d


def olh_g(eps: Any) -> int:
    """OLH's hash range g = round(e^eps + 1) (at least 2).

    Raises
    ------
    ParameterError
        ``eps`` above :data:`OLH_MAX_EPS` (g would have thousands of digits; use
        the log-space closed forms of :mod:`qifldp.formulas`).

    Notes
    -----
    Python's round (half to even). For eps above :data:`OLH_FLOAT_EPS_LIMIT` the
    value is rounded from a 50-digit decimal evaluation of e^eps (a Python int;
    such g are far too large for an explicit channel anyway).

    Examples
    --------
    >>> olh_g(0.0), olh_g(1.0), olh_g(3.0)
    (2, 4, 21)
    """
    eps = check_eps(eps)
    if eps <= OLH_FLOAT_EPS_LIMIT:
        return max(2, round(math.exp(eps) + 1.0))
    if eps > OLH_MAX_EPS:
        msg = (
            f"eps must be <= {OLH_MAX_EPS} for olh_g (g = round(e^eps + 1) would have over "
            f"3900 digits), got {eps}"
        )
        raise ParameterError(msg)
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        value = decimal.Decimal(eps).exp() + 1
        return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def lh_probabilities(g: Any, eps: Any) -> tuple[float, float]:
    """LH's GRR on the hashed value: p = e^eps / (e^eps + g - 1), q = 1 / (e^eps + g - 1).

    :func:`grr_probabilities` with k = g, once ``g`` is checked as a hash range.

    Examples
    --------
    >>> [round(v, 12) for v in lh_probabilities(2, math.log(3))]
    [0.75, 0.25]
    """
    g = check_g(g)
    return grr_probabilities(g, eps)


def sue_bits(eps: Any) -> tuple[Any, Any]:
    """SUE's (p, q) = (e^(eps/2) / (e^(eps/2) + 1), 1 / (e^(eps/2) + 1)) of checked eps.

    The formula's one home: ``eps`` a finite real ``>= 0`` or an array of them (the
    vectorised closed forms pass arrays); logistic, so no overflow.

    Examples
    --------
    >>> p, q = sue_bits(np.array([0.0, 2 * math.log(3)]))
    >>> p.round(12).tolist(), q.round(12).tolist()
    ([0.5, 0.75], [0.5, 0.25])
    """
    eps = as_eps(eps)
    return expit(eps / 2), expit(-eps / 2)


def the_small_bits(eps: Any, theta: Any) -> tuple[Any, Any]:
    """THE's q = e^(-eps theta / 2) / 2 and 1 - p = e^(-eps (1 - theta) / 2) / 2.

    The formula's one home: ``eps`` (finite, ``>= 0``) and ``theta`` (in (0.5, 1)),
    floats or numpy arrays; both small probabilities formed as exponentials (never
    as ``1 - p``).

    Examples
    --------
    >>> q, one_minus_p = the_small_bits(4.0, 0.75)
    >>> round(float(q), 6), round(float(one_minus_p), 6)
    (0.111565, 0.303265)
    """
    eps, theta = as_eps(eps), as_theta(theta)
    return 0.5 * np.exp(-eps * theta / 2.0), 0.5 * np.exp(-eps * (1.0 - theta) / 2.0)


def sue_probabilities(eps: Any) -> tuple[float, float]:
    """SUE (basic RAPPOR): p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p = 1 / (e^(eps/2) + 1).

    Examples
    --------
    >>> p, q = sue_probabilities(2 * math.log(3))
    >>> round(p, 12), round(q, 12)
    (0.75, 0.25)
    """
    p, q = sue_bits(check_eps(eps))
    return float(p), float(q)


def oue_probabilities(eps: Any) -> tuple[float, float]:
    """OUE (Wang et al. 2017): p = 1/2, q = 1 / (e^eps + 1).

    Examples
    --------
    >>> oue_probabilities(math.log(3))
    (0.5, 0.25)
    """
    eps = check_eps(eps)
    return 0.5, float(expit(-eps))


def the_probabilities(eps: Any, theta: Any) -> tuple[float, float]:
    """THE bit probabilities after Laplace(2/eps) noise and the threshold theta.

    p = Pr[x + Z > theta | x = 1] = 1 - e^(eps (theta - 1) / 2) / 2 and
    q = Pr[Z > theta] = e^(-eps theta / 2) / 2, Z ~ Laplace(0, 2 / eps) (QIF
    paper Sec. V-E; Wang et al. 2017).

    Examples
    --------
    >>> p, q = the_probabilities(4.0, 0.75)
    >>> round(p, 6), round(q, 6)
    (0.696735, 0.111565)
    """
    q, one_minus_p = the_small_bits(check_eps(eps), check_theta(theta))
    return 1.0 - float(one_minus_p), float(q)


def the_bit_matrix(eps: float, theta: float) -> np.ndarray:
    """THE's 2x2 bit channel [[1 - q, q], [1 - p, p]], both small entries computed directly.

    ``q`` and ``1 - p`` are formed as exponentials (never as ``1 - p``), so they
    stay positive at eps = 800.

    Raises
    ------
    InputTypeError, ParameterError
        ``eps`` not a finite real ``>= 0``; ``theta`` outside (0.5, 1).

    Examples
    --------
    >>> the_bit_matrix(4.0, 0.75).round(6)
    array([[0.888435, 0.111565],
           [0.303265, 0.696735]])
    """
    q, one_minus_p = the_small_bits(check_eps(eps), check_theta(theta))
    return np.array([[1.0 - q, q], [one_minus_p, 1.0 - one_minus_p]])


def sue_bit_matrix(eps: Any) -> np.ndarray:
    """SUE's 2x2 bit channel [[p, q], [q, p]] with :func:`sue_probabilities` (keep or flip).

    Examples
    --------
    >>> sue_bit_matrix(2 * math.log(3)).round(6)
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    p, q = sue_probabilities(eps)
    return np.array([[p, q], [q, p]])


def oue_bit_matrix(eps: Any) -> np.ndarray:
    """OUE's 2x2 bit channel [[1 - q, q], [1/2, 1/2]], q = 1 / (e^eps + 1).

    1 - q is the logistic function of eps itself (never ``1 - q`` in floating point).

    Examples
    --------
    >>> oue_bit_matrix(math.log(3))
    array([[0.75, 0.25],
           [0.5 , 0.5 ]])
    """
    eps = check_eps(eps)
    return np.array([[float(expit(eps)), float(expit(-eps))], [0.5, 0.5]])


# -- log space: the same probabilities, for huge k or eps ------------------------------
# Each function checks its arguments as the float twin does and returns the
# logarithms, computed from eps directly so that neither e^eps overflows nor a tiny
# probability underflows. The protocol objects compute them once, at construction.

_LOG_HALF = math.log(0.5)


def log1pexp_neg(z: float) -> float:
    """log(1 + e^-z) for z >= 0 (no overflow); ``z`` is checked as an eps.

    Examples
    --------
    >>> round(log1pexp_neg(0.0), 12) == round(math.log(2), 12)
    True
    """
    return math.log1p(math.exp(-check_eps(z, "z")))


def _log1p_exp(u: float) -> float:
    """log(1 + e^u) for any real u (overflow-free softplus)."""
    if u > 35.0:
        return u + math.log1p(math.exp(-u))
    return math.log1p(math.exp(u))


def log_grr(k: int, eps: float) -> tuple[float, float]:
    """(log p, log(1 - p)) of GRR: p = e^eps / (e^eps + k - 1).

    Notes
    -----
    log p = -log(1 + (k-1) e^-eps) and log(1 - p) = log(k-1) - eps + log p. For a
    huge integer k (OLH's g at large eps) the product (k-1) e^-eps is formed in
    log space.

    Examples
    --------
    >>> lp, lq = log_grr(3, math.log(2))
    >>> round(math.exp(lp), 12), round(math.exp(lq), 12)
    (0.5, 0.5)
    """
    k = check_int("k", k, minimum=2, allow_huge=True)  # OLH's g may exceed the float range
    eps = check_eps(eps)
    log_km1 = math.log(k - 1)
    log_p = -_log1p_exp(log_km1 - eps)
    return log_p, log_km1 - eps + log_p


def log_ss(k: int, eps: float, omega: int) -> tuple[float, float]:
    """(log p, log(1 - p)) of omega-SS: p = omega e^eps / (omega e^eps + k - omega).

    ``log(1 - p) = -inf`` when omega = k.

    Examples
    --------
    >>> lp, lq = log_ss(4, 0.0, 2)
    >>> round(math.exp(lp), 12), round(math.exp(lq), 12)
    (0.5, 0.5)
    """
    k, eps = check_k(k), check_eps(eps)
    omega = check_omega(omega, k)
    if omega == k:
        return 0.0, -math.inf
    r = math.log(k - omega) - math.log(omega) - eps  # log((k - omega) e^-eps / omega)
    log_p = -_log1p_exp(r)
    return log_p, r + log_p


def log_sue(eps: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) of SUE: p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p.

    Examples
    --------
    >>> [round(math.exp(v), 12) for v in log_sue(2 * math.log(3))]
    [0.75, 0.25, 0.25, 0.75]
    """
    eps = check_eps(eps)
    log_p = -log1pexp_neg(eps / 2.0)
    log_q = -eps / 2.0 + log_p
    return log_p, log_q, log_q, log_p


def sue_bit_log_ratio(eps: float) -> tuple[float, float | None]:
    """ln(p / q) = ln((1 - q) / (1 - p)) = eps / 2 of one SUE bit, and that float again where
    it is the real half of ``eps`` exactly (None where halving rounds: a subnormal eps).

    SUE's p = e^(eps/2) q and 1 - q = p, so both columns of one bit have the ratio
    e^(eps/2): dBitFlipPM with one sampled bucket is eps/2-LDP.

    Examples
    --------
    >>> sue_bit_log_ratio(3.0), sue_bit_log_ratio(5e-324)
    ((1.5, 1.5), (0.0, None))
    """
    half = check_eps(eps) / 2
    return half, (half if half * 2 == eps else None)


def log_oue(eps: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) of OUE: p = 1/2, q = 1 / (e^eps + 1).

    Examples
    --------
    >>> [round(math.exp(v), 12) for v in log_oue(math.log(3))]
    [0.5, 0.5, 0.25, 0.75]
    """
    log_1mq = -log1pexp_neg(check_eps(eps))
    return _LOG_HALF, _LOG_HALF, -eps + log_1mq, log_1mq


def log_the(eps: float, theta: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) of THE's bit channel.

    q = e^(-eps theta / 2) / 2 and 1 - p = e^(-eps (1 - theta) / 2) / 2 (QIF paper
    Sec. V-E), both small entries exact in log space.

    Examples
    --------
    >>> [round(math.exp(v), 6) for v in log_the(4.0, 0.75)]
    [0.696735, 0.303265, 0.111565, 0.888435]
    """
    eps, theta = check_eps(eps), check_theta(theta)
    log_q = _LOG_HALF - eps * theta / 2.0
    log_1mp = _LOG_HALF - eps * (1.0 - theta) / 2.0
    return math.log1p(-math.exp(log_1mp)), log_1mp, log_q, math.log1p(-math.exp(log_q))


def _log(v: float) -> float:
    return math.log(v) if v > 0 else -math.inf


def log_pq(p: float, q: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) for given bit probabilities (``-inf`` for 0).

    Examples
    --------
    >>> log_pq(1.0, 0.0)[1:3]
    (-inf, -inf)
    """
    p, q = check_pq(p, q)
    log_1mp = math.log1p(-p) if p < 1 else -math.inf
    log_1mq = math.log1p(-q) if q < 1 else -math.inf
    return _log(p), log_1mp, _log(q), log_1mq


# -- symbolic: the same probabilities as sympy expressions of eps (and theta) -----------
# eps and theta may be sympy expressions, numbers or symbol names; each is checked
# against its domain (refused only when provably outside it) by
# ``qifldp.symbolic.parameters.SymbolicParameters``, which the symbolic channels also
# use to record the domains.


def _symbolic(name: str, value: Any) -> sp.Expr:

    return SymbolicParameters().take(name, value, "eps" if name == "eps" else "theta")


def grr_expressions(k: int, eps: Any, scale: int = 1) -> tuple[sp.Expr, sp.Expr]:
    """GRR's (p, q) = (e^eps / (e^eps + k - 1), 1 / (e^eps + k - 1)) as sympy expressions.

    ``scale`` divides both (LH's entries are GRR_g's over the g^k hash functions).

    Examples
    --------
    >>> import sympy as sp
    >>> grr_expressions(3, sp.Symbol("eps"))
    (exp(eps)/(exp(eps) + 2), 1/(exp(eps) + 2))
    >>> grr_expressions(2, sp.Symbol("eps"), scale=4)[1]
    1/(4*exp(eps) + 4)
    """
    import sympy as sp

    k, scale = check_int("k", k, minimum=2), check_int("scale", scale, minimum=1)
    E = sp.exp(_symbolic("eps", eps))
    d = scale * (E + k - 1)
    return E / d, 1 / d


def ss_expressions(k: int, eps: Any, omega: int) -> tuple[sp.Expr, sp.Expr]:
    """omega-SS's (p, 1 - p), p = omega e^eps / (omega e^eps + k - omega), as sympy expressions.

    Examples
    --------
    >>> import sympy as sp
    >>> ss_expressions(3, sp.Symbol("eps"), 2)
    (2*exp(eps)/(2*exp(eps) + 1), 1/(2*exp(eps) + 1))
    """
    import sympy as sp

    k = check_k(k)
    omega = check_omega(omega, k)
    E = sp.exp(_symbolic("eps", eps))
    d = omega * E + k - omega
    return omega * E / d, (k - omega) / d


def sue_expressions(eps: Any) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """SUE's (p, 1-p, q, 1-q), p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p, as sympy expressions.

    Examples
    --------
    >>> import sympy as sp
    >>> sue_expressions(sp.Symbol("eps"))[:2]
    (exp(eps/2)/(exp(eps/2) + 1), 1/(exp(eps/2) + 1))
    """
    import sympy as sp

    eps = _symbolic("eps", eps)
    H = sp.exp(eps / 2)
    return H / (H + 1), 1 / (H + 1), 1 / (H + 1), H / (H + 1)


def oue_expressions(eps: Any) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """OUE's (p, 1-p, q, 1-q), p = 1/2, q = 1 / (e^eps + 1), as sympy expressions.

    Examples
    --------
    >>> import sympy as sp
    >>> oue_expressions(sp.Symbol("eps"))
    (1/2, 1/2, 1/(exp(eps) + 1), exp(eps)/(exp(eps) + 1))
    """
    import sympy as sp

    E = sp.exp(_symbolic("eps", eps))
    half = sp.Rational(1, 2)
    return half, half, 1 / (E + 1), E / (E + 1)


def the_expressions(eps: Any, theta: Any) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """THE's (p, 1-p, q, 1-q): q = e^(-eps theta / 2) / 2, 1 - p = e^(eps (theta - 1) / 2) / 2.

    Examples
    --------
    >>> import sympy as sp
    >>> the_expressions(sp.Symbol("eps"), sp.Rational(3, 4))[1:3]
    (exp(-eps/8)/2, exp(-3*eps/8)/2)
    """
    import sympy as sp

    eps, theta = _symbolic("eps", eps), _symbolic("theta", theta)
    q = sp.exp(-eps * theta / 2) / 2
    one_minus_p = sp.exp(eps * (theta - 1) / 2) / 2
    return 1 - one_minus_p, one_minus_p, q, 1 - q
