"""Failures of a symmetric channel against HE with t coefficients, by a hyperplane's gain.

Let A be symmetric (a column of size s is a_s on its set T and b_s elsewhere: unary
encodings, GRR, subset selection) and B Hadamard encoding with t coefficients. On the
first r = 2^m values (a subspace of F_2^log2(K)) B's columns are cosets: an index tuple
of rank rho hits 2^rho cosets of codimension rho (entries ``hit`` on the coset, ``miss``
elsewhere) and misses the other 2^t - 2^rho sign vectors (constant ``miss`` columns).

When A and B have the same epsilon, a column of B whose top set is X can only come from
A's report of X (:mod:`qifldp.refinement.forced`), so A ⊑ B needs, for every X, B's mass
on the columns of top set X at most A's probability of reporting X. For a hyperplane
S = {x < r/2} that is Pr[rank 1] / (2^m − 1) · hit against a_{r/2}-type masses, and the
second falls like e^(-eps r/4) while the first falls only like 2^(-t m): unary encodings
fail against HE-t from k = 16 at eps = 8. The gain that shows it:

    g(S, x) = 1 on S, −lam on R \\ S (R = {0..r-1}), 0 beyond;  g(∅, x) = 0,

under the uniform prior on R, lam just below B's ratio hit / miss (a margin delta that
keeps every other column of both channels at a value <= 0). Its vulnerability through
each channel is computed exactly in rationals:

* through A by classes (s, i, j, l): i inputs of T in S, j in R \\ S, l beyond R,
  C(r/2, i) C(r/2, j) C(k − r, l) columns each, worth (a_s − b_s)(i − lam j) + b_s (r/2)
  (1 − lam); linear in (i, j), so each size s is enumerated from its best corner and
  left at the first column worth <= 0 in each direction;
* through B by the law of the rank
  (:meth:`~qifldp.protocols.he_multi.HEMulti.affine_rank_law`): an index tuple whose
  span V (uniform among rho-dimensional subspaces) holds the hyperplane's normal —
  probability (2^rho − 1) / (2^m − 1) — has half its hit cosets inside S and half
  outside; otherwise every hit coset is cut in half.

The gap is the exact difference (a failure on R is one on all k values: the gain and
prior vanish beyond R). Used by
:func:`~qifldp.protocols.structure.channel_free.channel_free_decision`.

Layer L5 (protocols): protocol-level refinement without whole channels.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ...refinement.result import Counterexample
from ...symmetric import SymmetricChannel

__all__ = ["hyperplane_gain_refutation", "MAX_CLASS_TERMS"]

#: The most column classes (s, i, j) whose value the exact vulnerability of A evaluates.
MAX_CLASS_TERMS: int = 10**6


def _v_symmetric(S: SymmetricChannel, r: int, g_in: Fraction, g_out: Fraction) -> Fraction | None:
    """Σ over A's columns of max(0, Σ_{x<r} g(x) A[x, T]) (g = g_in on the first r/2
    inputs, g_out on the next r/2), exact; None past :data:`MAX_CLASS_TERMS`."""
    k, h = S.k, r // 2
    total, terms = Fraction(0), 0
    for s, pin, pout in S.exact_class_masses():
        if pin == 0 and pout == 0:
            continue  # columns of zeros are worth 0
        # a_s = (k / C(k, s)) pin / s, b_s likewise: the common factor k / C(k, s) > 0 is
        # applied to the positive columns only (no binomial of k formed for the others)
        a = pin / s if s > 0 else Fraction(0)
        b = pout / (k - s) if s < k else Fraction(0)
        base = h * b * (g_in + g_out)
        found = Fraction(0)
        # g_in > 0 > g_out: the value (a - b)(g_in i + g_out j) + base falls along i and
        # rises along j or the reverse, and the j range of i shifts the same way, so both
        # loops run from the best corner and stop at the first column worth <= 0
        i_range = range(max(0, s - h - (k - r)), min(s, h) + 1)
        up = a > b
        for i in reversed(i_range) if up else i_range:
            lo, hi = max(0, s - i - (k - r)), min(h, s - i)
            if lo > hi:
                continue
            any_positive = False
            for j in range(lo, hi + 1) if up else reversed(range(lo, hi + 1)):
                terms += 1
                if terms > MAX_CLASS_TERMS:
                    return None
                v = (a - b) * (g_in * i + g_out * j) + base
                if v <= 0:
                    break
                any_positive = True
                found += math.comb(h, i) * math.comb(h, j) * math.comb(k - r, s - i - j) * v
            if not any_positive:
                break
        if found:
            total += Fraction(k, math.comb(k, s)) * found
    return total


def _v_hadamard(P: Any, g_in: Fraction, g_out: Fraction) -> tuple[int, Fraction]:
    """(r, Σ over B's columns of max(0, Σ_{x<r} g(x) B[x, y])), B = HE-t on its first r
    values by the law of the rank, exact (the K^-t of each entry against K^t tuples)."""
    r, hit, miss, ranks = P.affine_rank_law()
    m, t, h = r.bit_length() - 1, P.params["t"], r // 2

    def value(inside: Fraction, outside: Fraction) -> Fraction:  # masses on S, on R \ S
        return max(Fraction(0), g_in * inside + g_out * outside)

    total = Fraction(0)
    for rho, pr in ranks.items():
        if pr == 0:
            continue
        n = r >> rho
        cols = value(h * miss, h * miss) * (2**t - 2**rho)
        if rho == 0:
            cols += value(h * hit, h * hit)
        else:
            f = Fraction(2**rho - 1, 2**m - 1)
            split = value(n * hit / 2 + (h - n // 2) * miss, n * hit / 2 + (h - n // 2) * miss)
            whole_in = value(n * hit + (h - n) * miss, h * miss)
            whole_out = value(h * miss, n * hit + (h - n) * miss)
            cols += f * 2 ** (rho - 1) * (whole_in + whole_out) + (1 - f) * 2**rho * split
        total += pr * cols
    return r, total


def hyperplane_gain_refutation(A: SymmetricChannel, P: Any) -> tuple[Counterexample, str] | None:
    """A ⋢ P by the gain of a hyperplane of P's values (P is HE with t coefficients).

    Parameters
    ----------
    A : SymmetricChannel
        On P's k inputs.
    P : Protocol
        With ``affine_rank_law()`` (:class:`~qifldp.protocols.he_multi.HEMulti`).

    Returns
    -------
    (Counterexample, str) or None
        The gain (two actions over the k inputs), the uniform prior on the first r
        inputs, the exact gap (> 0) and the certificate's statement; None when P has no
        rank law, r < 4, the gap is not positive, or A's classes need more than
        :data:`MAX_CLASS_TERMS` evaluations.

    Examples
    --------
    >>> import qifldp as q
    >>> A = q.protocol("sue", 64, 8.0).symmetric()
    >>> ce, why = hyperplane_gain_refutation(A, q.protocol("he_multi", 64, 8.0))
    >>> ce.gap_exact > 0, ce.gain.shape, float(ce.prior.sum())
    (True, (2, 64), 1.0)
    """
    law = getattr(P, "affine_rank_law", None)
    if not callable(law) or A.k != P.k:
        return None
    r, hit, miss, _ = law()
    if r < 4 or not hit > miss > 0:
        return None
    k, h = P.k, r // 2
    rho = hit / miss
    delta = (rho - 1) / (4 * rho * (rho + h))  # keeps every other column at a value <= 0
    lam = float(rho * (1 - delta))
    scale = 2.0 ** -math.ceil(math.log2(max(1.0, lam)))  # exact: |g| <= 1
    gain = np.zeros((2, k))
    gain[0, :h], gain[0, h:r] = scale, -lam * scale
    g_in, g_out = Fraction(gain[0, 0]), Fraction(gain[0, h])
    va = _v_symmetric(A, r, g_in, g_out)
    if va is None:
        return None
    _, vb = _v_hadamard(P, g_in, g_out)
    gap = (vb - va) / r
    if not gap > 0:
        return None
    prior = np.zeros(k)
    prior[:r] = 1.0 / r
    ce = Counterexample(
        gain=gain,
        prior=prior,
        gap=float(gap),
        gap_exact=gap,
        vulnerability_a=float(va / r),
        vulnerability_b=float(vb / r),
    )
    where = "every input" if r == k else f"the inputs 0..{r - 1}"
    why = (
        f"the gain of the hyperplane {{x < {h}}} (1 on it, -{lam:.6g} on the rest of "
        f"{where}, or abstain) under the uniform prior on {where}: exact gap "
        f"{float(gap):.3g} > 0, A's vulnerability by column classes, B's by the law of the "
        "rank of its index tuples"
    )
    return ce, why
