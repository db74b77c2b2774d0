"""The protocols' parameters (p, q, omega, g, theta) and their checks: their one home.

Every representation of a frequency oracle (explicit, symmetric and symbolic
channels, samplers, estimators, closed forms) takes its parameters from here,
through the protocol objects of :mod:`qifldp.protocols` or these functions.
The log-space twins used for huge k or eps are in ``qifldp.symmetric``; the
tests check them against these.
"""

from __future__ import annotations

import decimal
import math
from typing import Any

import numpy as np
from scipy.special import expit

from ..validation import check_eps, check_int, check_open_interval, check_probability
from ..errors import ParameterError

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
    "olh_g",
    "lh_probabilities",
    "sue_probabilities",
    "oue_probabilities",
    "the_probabilities",
    "OLH_FLOAT_EPS_LIMIT",
    "OLH_MAX_EPS",
    "the_bit_matrix",
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
    k = check_k(k)
    eps = check_eps(eps)
    omega = check_omega(omega, k)
    t = math.exp(-eps)
    d = omega + (k - omega) * t
    p = omega / d
    one_minus_p = (k - omega) * t / d
    q = (p * (omega - 1) + one_minus_p * omega) / (k - 1)
    return p, q


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

    Examples
    --------
    >>> p, q = lh_probabilities(2, math.log(3))
    >>> round(p, 12), round(q, 12)
    (0.75, 0.25)
    """
    g = check_g(g)
    return grr_probabilities(g, eps)


def sue_probabilities(eps: Any) -> tuple[float, float]:
    """SUE (basic RAPPOR): p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p = 1 / (e^(eps/2) + 1).

    Examples
    --------
    >>> p, q = sue_probabilities(2 * math.log(3))
    >>> round(p, 12), round(q, 12)
    (0.75, 0.25)
    """
    eps = check_eps(eps)
    return float(expit(eps / 2)), float(expit(-eps / 2))


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
    eps = check_eps(eps)
    theta = check_theta(theta)
    return 1.0 - 0.5 * math.exp(eps * (theta - 1.0) / 2.0), 0.5 * math.exp(-eps * theta / 2.0)


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
    eps = check_eps(eps)
    theta = check_theta(theta)
    q = 0.5 * math.exp(-eps * theta / 2.0)
    one_minus_p = 0.5 * math.exp(-eps * (1.0 - theta) / 2.0)
    return np.array([[1.0 - q, q], [one_minus_p, 1.0 - one_minus_p]])
