"""The LDP epsilon of RS+FD / RS+RFD without the channel: lumped over report classes.

One report of RS+FD is y = (y_1, ..., y_d), with

    Pr(y | x) = (1/d) Σ_j H_j(y_j | x_j) Π_{i≠j} F_i(y_i),

H_j the randomizer of attribute j (at eps') and F_i the distribution of attribute i's
fake report. Each x_j enters one term only, so the extremes over x separate: with
A_j(y_j) = max_{x_j} H_j(y_j | x_j), B_j(y_j) = min_{x_j} H_j(y_j | x_j) and, where
every F_i(y_i) > 0, a_j = A_j / F_j, b_j = B_j / F_j,

    max_x Pr(y | x) / min_x Pr(y | x) = Σ_j a_j(y_j) / Σ_j b_j(y_j)               (tuples)

and for x, x' differing in attribute j only (the others set to minimise the shared
terms, which only lowers the denominator's share)

    max Pr(y | x) / Pr(y | x') = 1 + (a_j - b_j) / (b_j + Σ_{i≠j} b_i)     (one attribute).

(a_j, b_j) depend on y_j through a few classes: the reported value's fake probability
for GRR; for unary encoding the number c of ones of the bit vector and, for the ``-r``
randomizers with a non-uniform prior, the prior mass s of its ones — the optimum of
both ratios is at the smallest or largest s for each c (the ratios are monotone in s),
so 2 (k + 1) classes per attribute suffice. The tuple ratio, a linear-fractional
maximum over a product of finite sets, is found by Dinkelbach's iteration (finite and
exact: each step solves the separable problem max Σ_j (a_j - λ b_j) attribute by
attribute). A report class whose fake probability is 0 (a prior with a zero) leaves
one term: its ratio is A_j / B_j.

The explicit route, :func:`qifldp.protocols.splsmp.multidim_epsilon` of
:meth:`RSFD.channel`, agrees at small ks (tests/composite); this one costs O(Σ k_j log k_j).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["lumped_epsilon"]


def _classes(P: Any, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a, b) of the positive-fake classes and (A, B) of the zero-fake classes of attribute j."""
    oracle = P._oracles[j]
    p, q = float(oracle.params["p"]), float(oracle.params["q"])
    k = P.ks[j]
    prior = np.asarray(P.priors[j], dtype=float)
    if P.randomizer == "grr":
        values = np.unique(prior)
        pos = values[values > 0]
        zero = values.size - pos.size
        return (
            p / pos,
            q / pos,
            np.full(zero, p),
            np.full(zero, q),
        )
    hi, lo = p / q, (1.0 - p) / (1.0 - q)  # the true bit's factor: reported 1, reported 0
    c = np.arange(k + 1)
    fa = np.where(c >= 1, hi, lo)  # some x has its bit among the ones
    fb = np.where(c <= k - 1, lo, hi)  # some x has its bit among the zeros
    if P.randomizer.endswith("-z"):
        # the fake is the zero vector perturbed: F = q^c (1-q)^(k-c), the base of H
        return fa, fb, np.empty(0), np.empty(0)
    # -r: F = base * g(s), g(s) = hi s + lo (1 - s), s = prior mass of the ones
    ordered = np.sort(prior)
    cums = np.concatenate([[0.0], np.cumsum(ordered)])
    s_min = cums[c]  # the c smallest masses
    s_max = np.concatenate([[0.0], np.cumsum(ordered[::-1])])[c]  # the c largest
    s = np.concatenate([s_min, s_max])
    g = hi * s + lo * (1.0 - s)
    return np.concatenate([fa, fa]) / g, np.concatenate([fb, fb]) / g, np.empty(0), np.empty(0)


def _max_ratio(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    """max over one class per attribute of Σ a / Σ b (Dinkelbach), b > 0."""
    lam = sum(float(x[0]) for x in a) / sum(float(x[0]) for x in b)
    for _ in range(10_000):
        picks = [int(np.argmax(x - lam * y)) for x, y in zip(a, b, strict=True)]
        num = sum(float(x[i]) for x, i in zip(a, picks, strict=True))
        den = sum(float(y[i]) for y, i in zip(b, picks, strict=True))
        new = num / den
        if new <= lam:
            return lam
        lam = new
    return lam  # pragma: no cover - Dinkelbach terminates on finite sets


def lumped_epsilon(P: Any) -> tuple[float, float]:
    """(tuples, one_attribute) LDP epsilons of an RS+FD / RS+RFD protocol object, lumped
    (no type check: :func:`qifldp.protocols.rsfd.rsfd_epsilon` is the public entry)."""
    d = len(P.ks)
    pos_a, pos_b, zero_ratios = [], [], []
    for j in range(d):
        a, b, A, B = _classes(P, j)
        pos_a.append(a)
        pos_b.append(b)
        if A.size:
            zero_ratios.append(math.inf if np.any(B == 0) else float(np.max(A / B)))
    if any(np.any(b == 0) for b in pos_b):
        return math.inf, math.inf
    tuples = _max_ratio(pos_a, pos_b)
    mins = [float(np.min(b)) for b in pos_b]
    total = sum(mins)
    one = max(
        float(np.max(1.0 + (a - b) / (b + (total - m))))
        for a, b, m in zip(pos_a, pos_b, mins, strict=True)
    )
    extra = max(zero_ratios, default=1.0)
    return math.log(max(tuples, extra)), math.log(max(one, extra))
