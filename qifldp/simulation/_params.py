"""Protocol parameters (p, q, omega, g) of the frequency oracles, in numerically stable form.

Private to :mod:`qifldp.simulation`.  The explicit channel constructors of
:mod:`qifldp.mechanisms` use the same definitions (the QIF paper, Sec. V); the
two should be unified into one shared module.
"""

from __future__ import annotations

import math

from .._validation import check_eps, check_int, check_open_interval, check_probability
from ..errors import ParameterError

__all__: list[str] = []


def _exp_neg(eps: float) -> float:
    """e^{-eps} for eps >= 0 (underflows gracefully to 0)."""
    return math.exp(-eps)


def round_half_up(x: float) -> int:
    """⌊x⌉ = ⌊x + 1/2⌋, the rounding written ⌊·⌉ in the LDP papers (not banker's rounding)."""
    return int(math.floor(x + 0.5))


def grr_pq(k: int, eps: float) -> tuple[float, float]:
    """GRR: p = e^ε/(e^ε + k − 1) (keep), q = 1/(e^ε + k − 1) (each other value)."""
    k = check_int("k", k, minimum=2)
    eps = check_eps(eps)
    e = _exp_neg(eps)
    denom = 1.0 + (k - 1) * e
    return 1.0 / denom, e / denom


def default_omega(k: int, eps: float) -> int:
    """ω = max(1, ⌊k / (e^ε + 1)⌉), the variance-minimising subset size (Wang et al. 2016)."""
    k = check_int("k", k, minimum=2)
    eps = check_eps(eps)
    e = _exp_neg(eps)
    return max(1, round_half_up(k * e / (1.0 + e)))


def ss_p(k: int, eps: float, omega: int) -> float:
    """ω-SS: probability p = ω e^ε / (ω e^ε + k − ω) that the true value is in the subset."""
    e = _exp_neg(eps)
    return omega / (omega + (k - omega) * e)


def check_ss(k: int, eps: float, omega: int | None) -> tuple[int, float, int]:
    """Validate (k, eps, omega) of ω-SS; omega None means :func:`default_omega`."""
    k = check_int("k", k, minimum=2)
    eps = check_eps(eps)
    omega = default_omega(k, eps) if omega is None else check_int("omega", omega, 1, k)
    return k, eps, omega


def olh_g(eps: float) -> int:
    """OLH: g = max(2, ⌊e^ε + 1⌉) (Wang et al. 2017)."""
    eps = check_eps(eps)
    if eps > 700.0:
        msg = f"olh with eps = {eps} would need g = round(e^eps + 1) > 1e304 hash values; pass g"
        raise ParameterError(msg)
    return max(2, round_half_up(math.exp(eps) + 1.0))


def lh_pq(eps: float, g: int) -> tuple[float, float]:
    """LH: GRR on the g hash values, p = e^ε/(e^ε + g − 1), q' = 1/(e^ε + g − 1)."""
    return grr_pq(g, eps)


def sue_pq(eps: float) -> tuple[float, float]:
    """SUE (RAPPOR): p = e^{ε/2}/(e^{ε/2} + 1), q = 1/(e^{ε/2} + 1)."""
    eps = check_eps(eps)
    e = _exp_neg(eps / 2.0)
    return 1.0 / (1.0 + e), e / (1.0 + e)


def oue_pq(eps: float) -> tuple[float, float]:
    """OUE: p = 1/2, q = 1/(e^ε + 1)."""
    eps = check_eps(eps)
    e = _exp_neg(eps)
    return 0.5, e / (1.0 + e)


def the_pq(eps: float, theta: float) -> tuple[float, float]:
    """THE: p = 1 − e^{ε(θ−1)/2}/2, q = e^{−εθ/2}/2 (Laplace noise of scale 2/ε, threshold θ)."""
    eps = check_eps(eps)
    theta = check_open_interval("theta", theta, 0.5, 1.0)
    return 1.0 - 0.5 * math.exp(eps * (theta - 1.0) / 2.0), 0.5 * math.exp(-eps * theta / 2.0)


def check_ue(p: float, q: float) -> tuple[float, float]:
    """Validate UE parameters: probabilities with 0 <= q <= p <= 1."""
    p = check_probability("p", p)
    q = check_probability("q", q)
    if q > p:
        msg = f"unary encoding needs q <= p, got p = {p}, q = {q}"
        raise ParameterError(msg)
    return p, q
