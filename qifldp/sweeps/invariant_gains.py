"""Failures under invariant gains: a search in two dimensions where a group acts on both sides.

Let A and B be channels on r inputs, both invariant under a group G of permutations of
the inputs (each permutation permutes the outputs) that is 2-transitive, and let every
column of B single out at most one input (GRR, L-GRR, dBitFlipPM with d = 1, b = k, or
any symmetric channel: a symmetric B is invariant under every permutation). The
refinement problem B = A·W, W >= 0, W 1 = 1 is then G-equivariant, and so is its Farkas
alternative: if A ⋢ B, the average of a Farkas certificate over G is one too. A
G-invariant certificate is a gain with one action per output of B whose value at x
depends only on the orbit of (x, action): for a column singling out one input, on
whether x is that input. Under the uniform prior such a gain is

    g(j, x) = u_1 if x = j else v_1,    g(j', x) = u_0 if x = j' else v_0,

(two action types per input; :class:`~qifldp.symmetric.SymmetricGain` of sizes 1 and
r - 1), and its vulnerability through any channel C depends on each column y only
through its sum s_y, its maximum and its minimum (the best j for an action of type b is
the input where C[., y] is largest when u_b > v_b, smallest otherwise):

    V_g[C] = (1/r) Σ_y max_b ( v_b s_y + (u_b - v_b) (max or min of C[., y]) ).

A column class (columns equal up to a permutation of the inputs) enters through the sums
of these three numbers over its columns. Shifting g by a constant and scaling it do not
change the sign of V_g[B] - V_g[A]: the search is over (u_1 - v_1, u_0 - v_0, v_1 - v_0)
on the unit sphere, a grid then a local refinement, every candidate re-checked in exact
rationals on the classes' exact sums. The route proves failures only; at r inputs where
both channels are G-invariant it is complete (a failure has such a certificate), though
a float search can miss a narrow one.

Used for HE with t coefficients (invariant under the affine group of F_2^m on r = 2^m
values: :meth:`~qifldp.protocols.he_multi.HEMulti.affine_column_classes`) against the
symmetric oracles whose columns single out one input; at k not a power of two, on its
first r values (a restriction: a failure there is a failure on all k).

Layer L6 (sweeps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import minimize

from ..refinement.result import Counterexample
from ..symmetric import SymmetricChannel, SymmetricGain
from .negative_routes import PAIR_TEST_MARGIN

__all__ = [
    "InvariantRefutation",
    "invariant_gain_refutation",
    "symmetric_column_classes",
    "vulnerability_of_classes",
]

#: Points of the grid on the sphere of gain directions (azimuth x elevation).
GRID: tuple[int, int] = (720, 361)
#: The best grid points refined by a local search, each re-checked exactly.
CANDIDATES: int = 8

Classes = list[tuple[Fraction, Fraction, Fraction]]


@dataclass(frozen=True)
class InvariantRefutation:
    """A ⋢ B proved by an invariant gain on the inputs 0..r-1.

    Attributes
    ----------
    inputs : int
        r: the prior is uniform on 0..r-1 (zero elsewhere).
    counterexample : Counterexample
        Gain a :class:`~qifldp.symmetric.SymmetricGain` on r inputs (sizes 1 and
        r - 1), prior uniform on r inputs, ``gap_exact`` the exact gap (> 0).
    certified_by : str
        The statement of the certificate.
    """

    inputs: int
    counterexample: Counterexample
    certified_by: str


def symmetric_column_classes(S: SymmetricChannel, r: int | None = None) -> Classes | None:
    """A symmetric channel's output classes on its first r inputs as (S, Mx, Mn), exact.

    On all k inputs (``r`` None or k), a class of size s holds C(k, s) columns with a_s
    on s inputs and b_s on the other k - s: its columns sum to k (P_in + P_out) in all,
    and C(k, s) a_s = k P_in / s, C(k, s) b_s = k P_out / (k - s) (no binomial formed).
    On r < k inputs only sizes 0, 1, k - 1 and k are taken (None otherwise): a column
    singling out j keeps its form when j < r (r columns) and is constant on the r inputs
    otherwise (k - r columns). Masses are the stored floats as rationals, divided by
    their exact total.

    Examples
    --------
    >>> import qifldp as q
    >>> [tuple(float(v) for v in c) for c in symmetric_column_classes(q.symmetric.grr(3, 0.0))]
    [(3.0, 1.0, 1.0)]
    >>> G = q.symmetric.grr(4, 0.0)  # on 2 of its 4 inputs: 2 columns singling one out, 2 constant
    >>> [tuple(float(v) for v in c) for c in symmetric_column_classes(G, 2)]
    [(1.0, 0.5, 0.5), (1.0, 0.5, 0.5)]
    """
    k = S.k
    r = k if r is None else r
    pin, pout = S.class_masses()
    fin = [Fraction(float(v)) for v in pin]
    fout = [Fraction(float(v)) for v in pout]
    total = sum(fin) + sum(fout)
    out = []
    for size, a, b in zip(S.sizes.tolist(), fin, fout, strict=True):
        a, b = a / total, b / total
        if r == k:
            entries = ([k * a / size] if size > 0 else []) + (
                [k * b / (k - size)] if size < k else []
            )
            out.append((k * (a + b), max(entries), min(entries)))
            continue
        if size not in (0, 1, k - 1, k):
            return None
        if size in (0, k):  # one constant column
            v = a if size == k else b
            out.append((r * v, v, v))
            continue
        # per-output entries: at the singled-out input and elsewhere
        at, off = (a, b / (k - 1)) if size == 1 else (b, a / (k - 1))
        out.append((r * (at + (r - 1) * off), r * max(at, off), r * min(at, off)))
        out.append(((k - r) * r * off, (k - r) * off, (k - r) * off))
    return out


def vulnerability_of_classes(classes: Classes, r: int, gain: tuple[Any, Any, Any]) -> Any:
    """V_g under the uniform prior on r inputs, for the invariant gain (d1, d0, e).

    d1 = u_1 - v_1, d0 = u_0 - v_0 and e = v_1 - v_0 (v_0 = 0): exact with Fraction
    arguments, else float; ``gain`` entries may be numpy arrays (one value per gain).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> vulnerability_of_classes([(F(2), F(1), F(1, 2))], 2, (F(1), F(0), F(0)))  # Bayes
    Fraction(1, 2)
    """
    d1, d0, e = gain
    total: Any = 0
    for S, Mx, Mn in classes:
        if isinstance(d1, Fraction):
            one = e * S + d1 * (Mx if d1 > 0 else Mn)
            zero = d0 * (Mx if d0 > 0 else Mn)
            total += max(one, zero)
        else:
            s, mx, mn = float(S), float(Mx), float(Mn)
            one = e * s + d1 * np.where(d1 > 0, mx, mn)
            zero = d0 * np.where(d0 > 0, mx, mn)
            total = total + np.maximum(one, zero)
    return total / r


def _directions(theta: Any, phi: Any) -> tuple[Any, Any, Any]:
    return np.cos(theta) * np.cos(phi), np.sin(theta) * np.cos(phi), np.sin(phi)


def _search(A: Classes, B: Classes, r: int) -> list[tuple[float, float, float]]:
    """Gain directions (d1, d0, e) in decreasing order of their float gap V_B - V_A."""
    grid = np.meshgrid(
        np.linspace(0.0, 2 * math.pi, GRID[0], endpoint=False),
        np.linspace(-math.pi / 2, math.pi / 2, GRID[1]),
    )
    th, ph = grid[0].ravel(), grid[1].ravel()
    g = _directions(th, ph)
    gaps = vulnerability_of_classes(B, r, g) - vulnerability_of_classes(A, r, g)
    found: list[tuple[float, float, float]] = []
    for i in np.argsort(-gaps)[:CANDIDATES]:

        def loss(x: np.ndarray) -> float:
            d = _directions(x[0], x[1])
            return float(vulnerability_of_classes(A, r, d) - vulnerability_of_classes(B, r, d))

        best = minimize(loss, np.array([th[i], ph[i]]), method="Nelder-Mead")
        x = best.x if best.fun < -gaps[i] else np.array([th[i], ph[i]])
        d1, d0, e = _directions(x[0], x[1])
        found.append((float(d1), float(d0), float(e)))
    return found


def invariant_gain_refutation(
    P: Any, B: SymmetricChannel, margin: float = PAIR_TEST_MARGIN
) -> InvariantRefutation | None:
    """P ⋢ B by an invariant gain, P offering ``affine_column_classes`` (HE, t coefficients).

    Parameters
    ----------
    P : Protocol
        A protocol with ``affine_column_classes()`` -> (r, classes): its channel on the
        inputs 0..r-1, invariant under a 2-transitive group of them.
    B : SymmetricChannel
        On P's k inputs; when r < k, on its first r inputs (sizes 0, 1, k - 1, k only:
        :func:`symmetric_column_classes`).
    margin : float, optional
        A candidate's float gap must exceed ``margin`` times the vulnerabilities; the
        verdict is the exact gap.

    Returns
    -------
    InvariantRefutation or None
        The gain, the uniform prior on r inputs and the exact gap (> 0); None when no
        candidate's exact gap is positive (no verdict) or P offers no classes.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("he_multi", 64, 8.0)  # t = 12: 64^12 index tuples
    >>> found = invariant_gain_refutation(P, q.protocol("dbitflip", 64, 8.0).symmetric())
    >>> found.inputs, found.counterexample.gap_exact > 0
    (64, True)
    """
    classes = getattr(P, "affine_column_classes", None)
    if not callable(classes):
        return None
    r, A = classes()
    if r < 3 or B.k != P.k:
        return None
    Bc = symmetric_column_classes(B, r)
    if Bc is None:
        return None
    for d1, d0, e in _search(A, Bc, r):
        va, vb = (float(vulnerability_of_classes(c, r, (d1, d0, e))) for c in (A, Bc))
        if not vb - va > margin * (abs(va) + abs(vb)):
            continue
        scale = max(abs(d1 + e), abs(e), abs(d0))
        u1, v1, u0, v0 = (d1 + e) / scale, e / scale, d0 / scale, 0.0  # the stored gain
        fu1, fv1, fu0, fv0 = (Fraction(v) for v in (u1, v1, u0, v0))
        exact = (fu1 - fv1, fu0 - fv0, fv1 - fv0)  # its exact gap: a shift by v0 cancels
        gap = vulnerability_of_classes(Bc, r, exact) - vulnerability_of_classes(A, r, exact)
        if gap <= 0:
            continue
        ce = Counterexample(
            gain=SymmetricGain(r, (1, r - 1), (u1, v0), (v1, u0)),
            prior=np.full(r, 1.0 / r),
            gap=float(gap),
            gap_exact=gap,
            vulnerability_a=va / scale,
            vulnerability_b=vb / scale,
        )
        where = "every input" if r == P.k else f"the inputs 0..{r - 1}"
        return InvariantRefutation(
            inputs=r,
            counterexample=ce,
            certified_by=(
                f"an invariant gain (one action per input and type, g = u at the input, "
                f"v elsewhere) under the uniform prior on {where}: exact gap "
                f"{float(gap):.3g} > 0 from the channels' column classes"
            ),
        )
    return None
