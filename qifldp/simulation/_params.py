"""Protocol parameters of the simulation, taken from the shared :mod:`qifldp.mechanisms._params`.

One definition of p, q, ω and g serves the explicit channels and the samplers,
so a simulated protocol is always the protocol whose channel the library builds
(the same rounding of ω and g, the same numerically stable forms).
"""

from __future__ import annotations

from .._validation import check_eps
from ..mechanisms._params import (
    check_k,
    check_omega,
    check_pq,
    grr_probabilities,
    lh_probabilities,
    oue_probabilities,
    ss_default_omega,
    ss_probabilities,
    sue_probabilities,
    the_probabilities,
)
from ..mechanisms._params import olh_g as olh_g

__all__: list[str] = []

grr_pq = grr_probabilities
default_omega = ss_default_omega
sue_pq = sue_probabilities
oue_pq = oue_probabilities
the_pq = the_probabilities
check_ue = check_pq


def check_ss(k, eps, omega) -> tuple[int, float, int]:
    """Validate (k, eps, omega) of ω-SS; omega None means the shared default ω."""
    k = check_k(k)
    eps = check_eps(eps)
    omega = ss_default_omega(k, eps) if omega is None else check_omega(omega, k)
    return k, eps, omega


def ss_p(k: int, eps: float, omega: int) -> float:
    """ω-SS: probability p = ω e^ε/(ω e^ε + k − ω) that the true value is in the subset."""
    return ss_probabilities(k, eps, omega)[0]


def ss_pq_star(k: int, eps: float, omega: int) -> tuple[float, float]:
    """ω-SS support probabilities (p*, q*) = (p, (ω − p)/(k − 1))."""
    return ss_probabilities(k, eps, omega)


def lh_pq(eps: float, g: int) -> tuple[float, float]:
    """LH: GRR on the g hash values, p = e^ε/(e^ε + g − 1), q' = 1/(e^ε + g − 1)."""
    return lh_probabilities(g, eps)
