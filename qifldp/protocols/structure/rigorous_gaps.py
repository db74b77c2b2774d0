"""Rigorous vulnerabilities for the atlas's negative routes: the float value with a bound
on its rounding error, and the exact value in rationals when the bound does not decide.

The *stored* problem is the one the channels' floats define, as for
:meth:`qifldp.refinement.result.Counterexample.recheck`: an explicit channel's rows
divided by their exact sums, a symmetric channel's class masses divided by their exact
total (:func:`qifldp.symmetric.orbit_certify.stored_masses`), the prior's floats read as
the rationals they hold. Two vulnerabilities are evaluated on it, each over n terms:

* the *two-point* one, V = Σ_y max(w0 C[x0, y], w1 C[x1, y]) (the identity gain on
  {x0, x1} under the prior (w0, w1) on them): n outputs of an explicit channel, or the
  4 len(sizes) atoms of a symmetric one (:func:`qifldp.symmetric.measures.pair_atoms`);
* the *uniform* one, V = p Σ_y max_x C[x, y] (the identity gain under the prior p =
  fl(1/k) on every input): n outputs, or len(sizes) output classes.

Every float evaluation is a sum of n non-negative terms, each computed from stored floats
by at most m roundings; with u = 2^-53 and gamma_j = j u / (1 - j u) (Higham, *Accuracy
and Stability of Numerical Algorithms*, 2nd ed., Lemma 3.1 and Eq. 4.4: any summation
order) the computed value V^ of the unnormalised value T satisfies
|V^ - T| <= gamma_{n + m - 1} T. The rows (or masses) divided by their exact sums change
T by a factor within 1 ± eta, eta >= |1/S - 1| rigorous; so

    |V - V^| <= (gamma_{n + m - 1} + eta) V^ / (1 - gamma_{n + m - 1}) + 4 n 2^-1074

(the last term: products and quotients that underflow), inflated by (1 + 8u) for the
rounding of the bound itself. :func:`certified_gap` decides a gap V_B - V_A by these
bounds and, when |gap| is within them, by the exact values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...refinement._certify import UNIT_ROUNDOFF, gamma
from ...symmetric import SymmetricChannel
from ...symmetric.orbit_certify import exact_sum, stored_masses
from ...validation import check_int, check_real

__all__ = [
    "UNIT_ROUNDOFF",
    "CertifiedGap",
    "certified_gap",
    "exact_two_point_vulnerability",
    "exact_uniform_vulnerability",
    "gamma",
    "row_scale_error",
    "two_point_vulnerability",
    "uniform_vulnerability",
]

_U = UNIT_ROUNDOFF  # u = 2^-53, the unit roundoff of float64 (round to nearest)
#: Absolute error allowance per term for products and quotients that underflow.
_TINY = 4.0 * 2.0**-1074


def _bound(value: float, roundings: int, eta: float, n: int) -> float:
    """The rigorous error bound of the module docstring for a computed value."""
    g = gamma(roundings)
    return ((g + eta) * value / (1.0 - g) + n * _TINY) * (1.0 + 8.0 * _U)


def row_scale_error(M: np.ndarray) -> float:
    """A rigorous eta >= max_x |1/S_x - 1|, S_x the exact sum of row x of M (>= 0).

    From the float row sums s_x (n entries: |s_x - S_x| <= gamma_{n-1} S_x, any order):
    |1/S - 1| = |S - 1| / S <= |s - 1| (1 + gamma) / s + gamma.

    Examples
    --------
    >>> row_scale_error(np.array([[0.5, 0.5], [0.25, 0.75]])) / 2.0**-53  # exact sums: gamma_1
    1.000000000000001
    >>> bool(row_scale_error(np.array([[0.5, 0.5 + 2.0**-40]])) > 2.0**-40)
    True
    """
    M = np.asarray(M, dtype=np.float64)
    g = gamma(max(M.shape[-1] - 1, 0))
    s = M.sum(axis=-1)
    if np.any(s <= 0.0):
        msg = "every row of M must have a positive sum to bound its normalisation"
        raise ParameterError(msg)
    eta = np.abs(s - 1.0) * (1.0 + g) / s + g
    return float(np.max(eta)) * (1.0 + 8.0 * _U)


def _check_pair(C: Any, x0: Any, x1: Any, w0: Any, w1: Any) -> tuple[int, int, float, float]:
    k = C.k if isinstance(C, SymmetricChannel) else C.shape[0]
    x0, x1 = check_int("x0", x0), check_int("x1", x1)
    if not (0 <= x0 < k and 0 <= x1 < k and x0 != x1):
        msg = f"x0 and x1 must be two distinct inputs in 0..{k - 1}, got {x0} and {x1}"
        raise ParameterError(msg)
    w0, w1 = check_real("w0", w0), check_real("w1", w1)
    if not (w0 >= 0.0 and w1 >= 0.0 and math.isfinite(w0 + w1)):
        msg = f"the prior weights w0, w1 must be finite and >= 0, got {w0} and {w1}"
        raise ParameterError(msg)
    return x0, x1, w0, w1


class _Counts:
    """A symmetric channel's stored masses and its integer counts as floats.

    Each count (s, k - s, (s - 1)^+, (k - 1 - s)^+, k, k - 1) is formed exactly in
    integers and then converted: exact when k <= 2^53, else one rounding each, which
    ``extra`` (2) adds to a term's roundings (a term converts at most two counts). A
    difference of the floats of k and s would not do: beyond 2^53 it may lose all of
    k - s (k = 2^60 + 100, s = k - 200: 128 for 200).
    """

    def __init__(self, C: SymmetricChannel) -> None:
        self.Pi, self.Po = C.class_masses()
        k = C.k
        if k <= 2**53:  # every count is an integer of at most 53 bits: exact in int64 and float64
            s = C.sizes.astype(np.int64)
            counts = [s, k - s, np.maximum(s - 1, 0), np.maximum(k - 1 - s, 0)]
            self.s, self.out, self.both, self.neither = (c.astype(np.float64) for c in counts)
            self.extra = 0
        else:
            sizes = C.sizes.tolist()
            self.s = np.array([float(v) for v in sizes])
            self.out = np.array([float(k - v) for v in sizes])
            self.both = np.array([float(max(v - 1, 0)) for v in sizes])
            self.neither = np.array([float(max(k - 1 - v, 0)) for v in sizes])
            self.extra = 2
        self.k, self.d = float(k), float(k - 1)


def two_point_vulnerability(C: Any, x0: int, x1: int, w0: float, w1: float) -> tuple[float, float]:
    """V = Σ_y max(w0 C[x0, y], w1 C[x1, y]) in floats, with a rigorous error bound.

    Explicit channel: n outputs, each term one rounding (a product), m = 1. Symmetric
    channel: the 4 len(sizes) atoms of :func:`qifldp.symmetric.measures.pair_atoms`
    (P_in (k - s) / (k - 1) and the like: two roundings, then the product), m = 3, and
    m = 5 when k > 2^53 (the counts k - s and k - 1 rounded to floats); the value does
    not depend on the pair by symmetry. eta: the row sums of x0 and x1
    (:func:`row_scale_error`), or the stored masses' exact normalisation.

    Parameters
    ----------
    C : Channel or SymmetricChannel
    x0, x1 : int
        Two distinct inputs.
    w0, w1 : float
        Their prior weights, read as the rationals they hold.

    Returns
    -------
    (float, float)
        The value V^ and a bound: the exact V of the stored problem lies in
        [V^ - bound, V^ + bound].

    Examples
    --------
    >>> import qifldp as q
    >>> v, b = two_point_vulnerability(q.grr(3, 0.0), 0, 1, 0.5, 0.5)
    >>> v, bool(0 < b < 1e-15)  # 3 outputs, each max(1/6, 1/6)
    (0.5, True)
    """
    x0, x1, w0, w1 = _check_pair(C, x0, x1, w0, w1)
    if isinstance(C, SymmetricChannel):
        c = _Counts(C)
        Pi, Po, d = c.Pi, c.Po, c.d
        P0 = np.concatenate([Pi * c.out / d, Po * c.s / d])
        P1 = np.concatenate([Po * c.s / d, Pi * c.out / d])
        shared = np.concatenate([Pi * c.both / d, Po * c.neither / d])
        terms = np.concatenate([np.maximum(w0 * P0, w1 * P1), np.maximum(w0, w1) * shared])
        value = float(np.sum(terms))
        roundings = terms.size + 2 + c.extra
        return value, _bound(value, roundings, stored_masses(C).norm_err, terms.size)
    M = C.matrix
    terms = np.maximum(w0 * M[x0], w1 * M[x1])
    value = float(np.sum(terms))
    eta = row_scale_error(M[[x0, x1]])
    return value, _bound(value, terms.size, eta, terms.size)


def _exact_sum_of_maxima(M: np.ndarray, scales: list[Fraction]) -> Fraction:
    """Σ_y max_x scales[x] M[x, y] exactly (M >= 0 floats, scales > 0 rationals).

    The maximising row of each column is found in floats where it is clear (every other
    row's float image below the top one by more than 8 u relative: the product of a
    rounded scale and an entry is within 3 u of its exact value), exactly among the
    near-tied rows otherwise (products that underflow included); the sums per row are
    exact sums of floats.
    """
    cf = np.array([float(c) for c in scales])
    F = cf[:, None] * M
    top = F.max(axis=0)
    near = F >= top * (1.0 - 8.0 * _U) - _TINY
    arg = np.argmax(F, axis=0)
    # a column of zeros may take any row; a column whose products all underflow to 0
    # (top 0, entries not) is near-tied in every row and decided exactly like the others
    for y in np.flatnonzero((near.sum(axis=0) > 1) & (M.max(axis=0) > 0.0)).tolist():
        rows = np.flatnonzero(near[:, y]).tolist()
        arg[y] = max(rows, key=lambda x: scales[x] * Fraction(float(M[x, y])))
    total = Fraction(0)
    for x, c in enumerate(scales):
        total += c * exact_sum(M[x, arg == x])
    return total


def exact_two_point_vulnerability(C: Any, x0: int, x1: int, w0: float, w1: float) -> Fraction:
    """The two-point vulnerability of :func:`two_point_vulnerability`, exactly.

    Explicit channel: rows x0 and x1 divided by their exact sums (two rows matter);
    symmetric channel: the atoms of the stored class masses divided by their exact total.

    Examples
    --------
    >>> import qifldp as q
    >>> exact_two_point_vulnerability(q.grr(2, 0.0), 0, 1, 0.5, 0.5)
    Fraction(1, 2)
    >>> import qifldp.symmetric as sym
    >>> exact_two_point_vulnerability(sym.grr(2, 0.0), 0, 1, 0.25, 0.75)
    Fraction(3, 4)
    """
    x0, x1, w0, w1 = _check_pair(C, x0, x1, w0, w1)
    q0, q1 = Fraction(w0), Fraction(w1)
    if isinstance(C, SymmetricChannel):
        m = stored_masses(C)
        k = C.k
        V = Fraction(0)
        for s, pi, po in zip(C.sizes.tolist(), m.Pi.tolist(), m.Po.tolist(), strict=True):
            Pi, Po = Fraction(pi), Fraction(po)
            a0, a1 = Pi * (k - s), Po * s
            V += max(q0 * a0, q1 * a1) + max(q0 * a1, q1 * a0)
            V += max(q0, q1) * (Pi * max(s - 1, 0) + Po * max(k - 1 - s, 0))
        return V / ((k - 1) * m.total)
    M = C.matrix[[x0, x1]]
    S0, S1 = exact_sum(M[0]), exact_sum(M[1])
    return _exact_sum_of_maxima(M, [q0 / S0, q1 / S1])


def _uniform_prior(C: Any) -> float:
    return 1.0 / (C.k if isinstance(C, SymmetricChannel) else C.shape[0])


def uniform_vulnerability(C: Any) -> tuple[float, float]:
    """V = p Σ_y max_x C[x, y], p = fl(1/k), in floats with a rigorous error bound.

    Explicit channel: n outputs, the column maxima exact, the sum and the product by p
    (m = 1). Symmetric channel: the len(sizes) output classes, each contributing
    max(P_in k / s, P_out k / (k - s)) (the C(k, s) outputs of size s, each worth
    max(P_in / C(k-1, s-1), P_out / C(k-1, s)): two roundings), then the product by p
    (m = 3; m = 5 when k > 2^53, the counts k and s or k - s rounded to floats). eta:
    the rows' (masses') normalisation.

    Returns
    -------
    (float, float)
        The value and a bound on the distance to the exact value of the stored problem.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> v, b = uniform_vulnerability(sym.grr(4, 1.0))
    >>> abs(v - float(q.bayes_vulnerability(q.grr(4, 1.0)))) < 1e-15, bool(b < 1e-14)
    (True, True)
    """
    p = _uniform_prior(C)
    if isinstance(C, SymmetricChannel):
        c = _Counts(C)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_in = np.where(c.s > 0, c.Pi * c.k / np.maximum(c.s, 1.0), 0.0)
            t_out = np.where(c.out > 0, c.Po * c.k / np.maximum(c.out, 1.0), 0.0)
        terms = np.maximum(t_in, t_out)
        value = p * float(np.sum(terms))
        roundings = terms.size + 2 + c.extra
        return value, _bound(value, roundings, stored_masses(C).norm_err, terms.size)
    M = C.matrix
    cols = M.max(axis=0)
    value = p * float(np.sum(cols))
    return value, _bound(value, cols.size, row_scale_error(M), cols.size)


def exact_uniform_vulnerability(C: Any) -> Fraction:
    """The uniform vulnerability of :func:`uniform_vulnerability`, exactly.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> exact_uniform_vulnerability(q.grr(2, 0.0)) == exact_uniform_vulnerability(sym.grr(2, 0.0))
    True
    >>> exact_uniform_vulnerability(q.Channel([[1.0, 0.0], [0.0, 1.0]]))
    Fraction(1, 1)
    """
    p = Fraction(_uniform_prior(C))
    if isinstance(C, SymmetricChannel):
        m = stored_masses(C)
        k = C.k
        ml = Fraction(0)
        for s, pi, po in zip(C.sizes.tolist(), m.Pi.tolist(), m.Po.tolist(), strict=True):
            t_in = Fraction(pi) * k / s if s > 0 else Fraction(0)
            t_out = Fraction(po) * k / (k - s) if s < k else Fraction(0)
            ml += max(t_in, t_out)
        return p * ml / m.total
    M = C.matrix
    return p * _exact_sum_of_maxima(M, [1 / exact_sum(row) for row in M])


@dataclass(frozen=True)
class CertifiedGap:
    """A gap V_B - V_A proved positive: by its float bound, or in rationals.

    Attributes
    ----------
    gap : float
        The float gap (``float(exact)`` when the bound did not decide).
    bound : float
        The rigorous bound on the float gap's error; ``gap > bound`` when ``exact`` is None.
    exact : fractions.Fraction or None
        The exact gap (> 0), when the rationals decided.
    va, vb : float
        The float vulnerabilities.

    Examples
    --------
    >>> import qifldp as q
    >>> A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    >>> got = certified_gap(
    ...     uniform_vulnerability(A), uniform_vulnerability(B),
    ...     lambda: exact_uniform_vulnerability(A), lambda: exact_uniform_vulnerability(B),
    ... )
    >>> got.exact is None, bool(got.gap > got.bound), got.vb > got.va
    (True, True, True)
    """

    gap: float
    bound: float
    exact: Fraction | None
    va: float
    vb: float


def certified_gap(
    a: tuple[float, float],
    b: tuple[float, float],
    exact_a: Callable[[], Fraction],
    exact_b: Callable[[], Fraction],
) -> CertifiedGap | None:
    """The gap V_B - V_A decided: positive by the bounds, else by the exact values.

    Parameters
    ----------
    a, b : (float, float)
        (value, bound) of V_A and V_B, as the float evaluations above return them.
    exact_a, exact_b : callable
        The exact values, called only when |gap| does not exceed its bound.

    Returns
    -------
    CertifiedGap or None
        None when the exact gap is <= 0 (the float gap was rounding).

    Notes
    -----
    The float gap g = fl(V_B^ - V_A^) is within u |g| (1 + 2u) of V_B^ - V_A^, hence
    within bound = (bound_A + bound_B + u |g| (1 + 2u)) (1 + 8u) of the exact gap:
    g > bound proves it positive.

    Examples
    --------
    >>> ok = certified_gap((0.5, 1e-16), (0.75, 1e-16), lambda: None, lambda: None)
    >>> ok.gap, ok.exact is None
    (0.25, True)
    >>> half = Fraction(1, 2)
    >>> certified_gap((0.5, 1e-16), (0.5, 1e-16), lambda: half, lambda: half) is None
    True
    >>> more = half + Fraction(1, 2**60)
    >>> certified_gap((0.5, 1e-16), (0.5, 1e-16), lambda: half, lambda: more).exact
    Fraction(1, 1152921504606846976)
    """
    va, ba = a
    vb, bb = b
    gap = vb - va
    bound = (ba + bb + _U * abs(gap) * (1.0 + 2.0 * _U)) * (1.0 + 8.0 * _U)
    if gap > bound:
        return CertifiedGap(gap, bound, None, va, vb)
    exact = exact_b() - exact_a()
    if exact <= 0:
        return None
    return CertifiedGap(float(exact), bound, exact, va, vb)
