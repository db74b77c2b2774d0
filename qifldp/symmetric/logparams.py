"""Protocol probabilities in log space: the log-space twins of ``qifldp.protocols.params``.

``qifldp.protocols.params`` defines the protocols' p, q (and checks their
arguments); the functions here return the logarithms of the same numbers,
computed from eps directly so that neither e^eps overflows nor a tiny
probability underflows (the tests check ``exp`` of each against ``qifldp.protocols.params``).
"""

from __future__ import annotations

import math

__all__ = [
    "log1pexp_neg",
    "log_grr",
    "log_ss",
    "log_sue",
    "log_oue",
    "log_the",
    "log_pq",
]

_LOG_HALF = math.log(0.5)


def log1pexp_neg(z: float) -> float:
    """log(1 + e^-z) for z >= 0 (no overflow).

    >>> round(log1pexp_neg(0.0), 12) == round(math.log(2), 12)
    True
    """
    return math.log1p(math.exp(-z))


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

    >>> lp, lq = log_grr(3, math.log(2))
    >>> round(math.exp(lp), 12), round(math.exp(lq), 12)
    (0.5, 0.5)
    """
    log_km1 = math.log(k - 1)
    log_p = -_log1p_exp(log_km1 - eps)
    return log_p, log_km1 - eps + log_p


def log_ss(k: int, eps: float, omega: int) -> tuple[float, float]:
    """(log p, log(1 - p)) of omega-SS: p = omega e^eps / (omega e^eps + k - omega).

    ``log(1 - p) = -inf`` when omega = k.

    >>> lp, lq = log_ss(4, 0.0, 2)
    >>> round(math.exp(lp), 12), round(math.exp(lq), 12)
    (0.5, 0.5)
    """
    if omega == k:
        return 0.0, -math.inf
    r = math.log(k - omega) - math.log(omega) - eps  # log((k - omega) e^-eps / omega)
    log_p = -_log1p_exp(r)
    return log_p, r + log_p


def log_sue(eps: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) of SUE: p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p.

    >>> [round(math.exp(v), 12) for v in log_sue(2 * math.log(3))]
    [0.75, 0.25, 0.25, 0.75]
    """
    log_p = -log1pexp_neg(eps / 2.0)
    log_q = -eps / 2.0 + log_p
    return log_p, log_q, log_q, log_p


def log_oue(eps: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) of OUE: p = 1/2, q = 1 / (e^eps + 1).

    >>> [round(math.exp(v), 12) for v in log_oue(math.log(3))]
    [0.5, 0.5, 0.25, 0.75]
    """
    log_1mq = -log1pexp_neg(eps)
    return _LOG_HALF, _LOG_HALF, -eps + log_1mq, log_1mq


def log_the(eps: float, theta: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) of THE's bit channel.

    q = e^(-eps theta / 2) / 2 and 1 - p = e^(-eps (1 - theta) / 2) / 2 (QIF paper
    Sec. V-E), both small entries exact in log space.

    >>> [round(math.exp(v), 6) for v in log_the(4.0, 0.75)]
    [0.696735, 0.303265, 0.111565, 0.888435]
    """
    log_q = _LOG_HALF - eps * theta / 2.0
    log_1mp = _LOG_HALF - eps * (1.0 - theta) / 2.0
    return math.log1p(-math.exp(log_1mp)), log_1mp, log_q, math.log1p(-math.exp(log_q))


def _log(v: float) -> float:
    return math.log(v) if v > 0 else -math.inf


def log_pq(p: float, q: float) -> tuple[float, float, float, float]:
    """(log p, log(1-p), log q, log(1-q)) for given bit probabilities (``-inf`` for 0).

    >>> log_pq(1.0, 0.0)[1:3]
    (-inf, -inf)
    """
    log_1mp = math.log1p(-p) if p < 1 else -math.inf
    log_1mq = math.log1p(-q) if q < 1 else -math.inf
    return _log(p), log_1mp, _log(q), log_1mq
