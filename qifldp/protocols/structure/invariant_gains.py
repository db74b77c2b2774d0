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
change the sign of V_g[B] - V_g[A]. The candidates are the gain of a Farkas certificate of
the orbit equations below (where they apply), then a search over (u_1 - v_1, u_0 - v_0,
v_1 - v_0) on the unit sphere, a grid and a local refinement; every candidate is
re-checked in exact rationals on the classes' exact sums.

The primal side (:func:`invariant_witness`): a G-invariant witness has one value per
orbit of (output of A, output of B), and A·W = B reduces to a few orbit equations,
solved as a small LP whose vertex is solved again in rationals and checked exactly.
Where both channels are G-invariant on all k inputs the two sides are complete: exactly
one of them answers (tested at k = 8, 16, 64 against the explicit LP).

Used for HE with t coefficients (invariant under the affine group of F_2^m on r = 2^m
values: :meth:`~qifldp.protocols.he_multi.HEMulti.affine_column_classes`) against the
symmetric oracles whose columns single out one input; at k not a power of two, on its
first r values (a restriction: a failure there is a failure on all k).

Layer L5 (protocols): protocol-level refinement without whole channels.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import linprog, minimize

from ...errors import ParameterError
from ...refinement.result import Counterexample
from ...symmetric import SymmetricChannel, SymmetricGain
from .negative_routes import PAIR_TEST_MARGIN

__all__ = [
    "InvariantRefutation",
    "InvariantWitness",
    "invariant_witness",
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
    if r is not None and r < k:
        parts = _singled(S, r)
        if parts is None:
            return None
        singled, constant = parts
        out = [
            (r * (at + (r - 1) * off), r * max(at, off), r * min(at, off)) for at, off in singled
        ]
        return out + [(r * v, v, v) for v in constant]
    out = []
    for size, a, b in S.exact_class_masses():
        entries = ([k * a / size] if size > 0 else []) + ([k * b / (k - size)] if size < k else [])
        out.append((k * (a + b), max(entries), min(entries)))
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
    if isinstance(d1, Fraction):  # the two action types of :func:`_v_types`, v_0 = 0
        return _v_types(classes, r, [(d1 + e, e), (d0, Fraction(0))])
    total: Any = 0
    for S, Mx, Mn in classes:  # vectorised over many gains at once (the search's grid)
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
    for types in itertools.chain(_farkas_types(P, B), _searched_types(A, Bc, r)):
        scale = max(abs(v) for t in types for v in t)
        if not scale > 0:
            continue
        types = [(u / scale, v / scale) for u, v in types]  # the stored gain
        va, vb = (float(_v_types(c, r, types)) for c in (A, Bc))
        if not vb - va > margin * (abs(va) + abs(vb)):
            continue
        exact = [(Fraction(u), Fraction(v)) for u, v in types]
        gap = _v_types(Bc, r, exact) - _v_types(A, r, exact)
        if gap <= 0:
            continue
        ce = Counterexample(
            gain=_symmetric_gain(r, types),
            prior=np.full(r, 1.0 / r),
            gap=float(gap),
            gap_exact=gap,
            vulnerability_a=va,
            vulnerability_b=vb,
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


def _searched_types(A: Classes, B: Classes, r: int) -> Iterator[list[tuple[float, float]]]:
    """The search's directions as action types, lazily: the grid runs only when the Farkas
    gain (tried first) does not answer."""
    for d1, d0, e in _search(A, B, r):
        yield [(d1 + e, e), (d0, 0.0)]


def _v_types(classes: Classes, r: int, types: list[tuple[Any, Any]]) -> Any:
    """V_g under the uniform prior on r inputs for actions of the given types (u at the
    singled-out input, v elsewhere; u = v a constant action), exact for Fractions."""
    total: Any = 0
    for S, Mx, Mn in classes:
        total += max(v * S + (u - v) * (Mx if u > v else Mn) for u, v in types)
    return total / r


def _symmetric_gain(r: int, types: list[tuple[float, float]]) -> SymmetricGain:
    """The gain of up to two single-out types and constants as a SymmetricGain: the
    first type as actions of size 1, the second of size r - 1 (v inside, u outside),
    the largest constant as the action of size 0."""
    single = [t for t in types if t[0] != t[1]]
    const = [t[0] for t in types if t[0] == t[1]]
    if len(single) > 2:  # sizes 1 and r - 1 hold two single-out types, no more
        msg = f"a symmetric gain holds at most two single-out action types, got {len(single)}"
        raise ParameterError(msg)
    sizes, g_in, g_out = [], [], []
    if const:
        sizes.append(0)
        g_in.append(max(const))
        g_out.append(max(const))
    for size, (u, v) in zip((1, r - 1)[: len(single)], single, strict=True):
        sizes.append(size)
        g_in.append(u if size == 1 else v)
        g_out.append(v if size == 1 else u)
    return SymmetricGain(r, sizes, g_in, g_out)


def _farkas_types(P: Any, B: SymmetricChannel) -> list[list[tuple[float, float]]]:
    """The gain of a Farkas certificate of the orbit equations (empty when they are
    feasible or do not apply): the dual max rhsᵀy, Mᵀy <= 0, |y| <= 1 (positive: no
    witness); y on the two equations of a class (x = j for the r entries, x != j for the
    r (r - 1) others) gives its action's u and v, y on a constant column its value."""
    lp = _orbit_lp(P, B)
    if lp is None:
        return []
    M = np.array([[float(v) for v in row] for row in lp.M])
    rhs = np.array([float(v) for v in lp.rhs])
    dual = linprog(-rhs, A_ub=M.T, b_ub=np.zeros(M.shape[1]), bounds=(-1, 1), method="highs")
    if dual.status != 0 or not -dual.fun > 0:
        return []
    y, r, n = dual.x, lp.r, lp.n_singled
    types = [(y[2 * c] / r, y[2 * c + 1] / (r * (r - 1))) for c in range(n)]
    consts = [(y[2 * n + i] / r, y[2 * n + i] / r) for i in range(lp.n_constant)]
    if consts:
        types.append(max(consts))
    return [[(-u, -v) for u, v in types], types]


# --------------------------------------------------------------- the primal: a witness
@dataclass(frozen=True)
class InvariantWitness:
    """A ⊑ B proved by an invariant witness, exact (W is implicit: one value per orbit).

    Attributes
    ----------
    values : dict
        W's value per orbit of (output of A, output of B), exact rationals: keys
        ``(rho, c, "in" | "out")`` (A's outputs whose agree-set has codimension rho,
        B's singled-out class c, the singled-out input inside the agree-set or not),
        ``(rho, "const", i)``, ``("const", c)`` and ``("const", "const", i)``.
    certified_by : str
        The statement of the certificate.
    """

    values: dict[tuple[Any, ...], Fraction]
    certified_by: str


def _singled(
    S: SymmetricChannel, r: int
) -> tuple[list[tuple[Fraction, Fraction]], list[Fraction]] | None:
    """B on its first r inputs: (at, off) per class singling out one input (r columns
    each) and the values of its constant columns (a class's k - r columns singling out
    an input beyond r are constant there: one merged column), exact and normalised;
    None for other sizes."""
    k = S.k
    singled, constant = [], []
    for size, a, b in S.exact_class_masses():
        if size == 0 or size == k:
            constant.append(b if size == 0 else a)
            continue
        if size == 1:
            at, off = a, b / (k - 1)
        elif size == k - 1:
            at, off = b, a / (k - 1)
        else:
            return None
        singled.append((at, off))
        if r < k:
            constant.append((k - r) * off)
    return singled, constant


def _exact_solution(
    M: list[list[Fraction]], rhs: list[Fraction], x: np.ndarray
) -> list[Fraction] | None:
    """An exact solution of M z = rhs, z >= 0, on the support of the float vertex ``x``
    (Gauss-Jordan in rationals, free variables 0), or None."""
    support = [i for i in range(len(x)) if x[i] > 1e-13]
    rows = [[M[e][i] for i in support] + [rhs[e]] for e in range(len(M))]
    pivots: list[int] = []
    r = 0
    for col in range(len(support)):
        piv = next((i for i in range(r, len(rows)) if rows[i][col] != 0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        lead = rows[r][col]
        rows[r] = [v / lead for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][col] != 0:
                f = rows[i][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r], strict=True)]
        pivots.append(col)
        r += 1
    if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in rows):
        return None  # inconsistent on this support
    z = [Fraction(0)] * len(x)
    for i, col in enumerate(pivots):
        z[support[col]] = rows[i][-1]
    if any(v < 0 for v in z):
        return None
    return z


@dataclass(frozen=True)
class _OrbitLP:
    """The orbit equations of A·W = B on the first r inputs (see :func:`invariant_witness`)."""

    r: int
    m: int
    keys: list[tuple[Any, ...]]
    M: list[list[Fraction]]
    rhs: list[Fraction]
    n_singled: int
    n_constant: int


def _orbit_lp(P: Any, B: SymmetricChannel) -> _OrbitLP | None:
    """The orbit equations for P (``affine_rank_law``) against B on P's first r inputs
    (B's columns singling out an input beyond r are constant there), or None where they
    do not apply."""
    law = getattr(P, "affine_rank_law", None)
    if not callable(law) or B.k != P.k:
        return None
    r, hit, miss, ranks = law()
    parts = _singled(B, r)
    if r < 4 or parts is None:
        return None
    singled, constant = parts
    m, t = r.bit_length() - 1, P.params["t"]
    rhos = [rho for rho in ranks if rho >= 1 and ranks[rho] > 0]
    kappa = ranks[0] * hit + sum(pr * (2**t - 2**rho) * miss for rho, pr in ranks.items())
    keys: list[tuple[Any, ...]] = []
    for rho in rhos:
        keys += [(rho, c, side) for c in range(len(singled)) for side in ("in", "out")]
        keys += [(rho, "const", i) for i in range(len(constant))]
    keys += [("const", c) for c in range(len(singled))]
    keys += [("const", "const", i) for i in range(len(constant))]
    col = {key: i for i, key in enumerate(keys)}
    M: list[list[Fraction]] = []
    rhs: list[Fraction] = []

    def equation(terms: dict[tuple[Any, ...], Fraction], value: Fraction) -> None:
        row = [Fraction(0)] * len(keys)
        for key, coef in terms.items():
            row[col[key]] += coef
        M.append(row)
        rhs.append(value)

    for c, (at, off) in enumerate(singled):
        same: dict[tuple[Any, ...], Fraction] = {("const", c): kappa}
        other: dict[tuple[Any, ...], Fraction] = {("const", c): kappa}
        for rho in rhos:
            h, q = ranks[rho] * 2**rho, Fraction(1, 2**rho)
            pi = q * Fraction(2 ** (m - rho) - 1, 2**m - 1)
            same[(rho, c, "in")] = h * hit * q
            same[(rho, c, "out")] = h * miss * (1 - q)
            other[(rho, c, "in")] = h * (hit * pi + miss * (q - pi))
            other[(rho, c, "out")] = h * (hit * (q - pi) + miss * (1 - 2 * q + pi))
        equation(same, at)
        equation(other, off)
    for i, value in enumerate(constant):
        terms: dict[tuple[Any, ...], Fraction] = {("const", "const", i): kappa}
        for rho in rhos:
            q = Fraction(1, 2**rho)
            terms[(rho, "const", i)] = ranks[rho] * 2**rho * (hit * q + miss * (1 - q))
        equation(terms, value)
    for rho in rhos:
        q = Fraction(1, 2**rho)
        terms = {(rho, "const", i): Fraction(1) for i in range(len(constant))}
        for c in range(len(singled)):
            terms[(rho, c, "in")] = r * q
            terms[(rho, c, "out")] = r * (1 - q)
        equation(terms, Fraction(1))
    terms = {("const", c): Fraction(r) for c in range(len(singled))}
    terms.update({("const", "const", i): Fraction(1) for i in range(len(constant))})
    equation(terms, Fraction(1))
    return _OrbitLP(r, m, keys, M, rhs, len(singled), len(constant))


def invariant_witness(P: Any, B: SymmetricChannel) -> InvariantWitness | None:
    """P ⊑ B by a witness invariant under the affine group, exact; P is HE with t
    coefficients on k = 2^m values (``affine_rank_law``), B symmetric with columns
    singling out one input (sizes 0, 1, k - 1, k).

    Both channels are invariant under the affine group G of F_2^m (2-transitive on the
    values), so if P ⊑ B a G-invariant witness exists (average one over G), and P's
    equal columns (one per agree-set T, an affine subspace of codimension rho, or
    constant) may share their rows of W. Its value depends on the orbit of (T, output
    of B): rho, B's class and whether the singled-out input j lies in T. For a uniform
    T of codimension rho, x ∈ T w.p. 2^-rho and x, j ∈ T (x != j) w.p.
    pi = 2^-rho (2^(m-rho) - 1) / (2^m - 1): A·W = B reduces to two equations per class
    (x = j, x != j), one per constant column and one row sum per rho. The small LP is
    solved in floats; its vertex's support is solved again in rationals and checked:
    every equation exactly, every value >= 0.

    Parameters
    ----------
    P : Protocol
        With ``affine_rank_law()`` (HE with t coefficients) and k a power of two.
    B : SymmetricChannel
        On the same k inputs.

    Returns
    -------
    InvariantWitness or None
        None when k is not a power of two, B has other sizes, or no invariant witness
        is found (then P ⋢ B, which :func:`invariant_gain_refutation` may prove).

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("he_multi", 256, 2.0)
    >>> found = invariant_witness(P, q.protocol("l_grr", 256, 4.0, 2.0).symmetric())
    >>> found is not None and min(found.values.values()) >= 0
    True
    """
    lp = _orbit_lp(P, B)
    if lp is None or lp.r != P.k:
        return None
    keys, M, rhs, m = lp.keys, lp.M, lp.rhs, lp.m
    col = {key: i for i, key in enumerate(keys)}
    A_eq = np.array([[float(v) for v in row] for row in M])
    lp = linprog(
        np.zeros(len(keys)),
        A_eq=A_eq,
        b_eq=np.array([float(v) for v in rhs]),
        bounds=(0, None),
        method="highs",
    )
    if lp.status != 0:
        return None
    z = _exact_solution(M, rhs, lp.x)
    if z is None:
        return None
    if any(
        sum(a * b for a, b in zip(row, z, strict=True)) != v for row, v in zip(M, rhs, strict=True)
    ):
        return None  # every orbit equation, exactly (a guard on the elimination)
    values = {key: z[col[key]] for key in keys}
    return InvariantWitness(
        values=values,
        certified_by=(
            f"a witness invariant under the affine group of F_2^{m}: one value per orbit of "
            f"(agree-set of codimension rho, output of B), {len(M)} orbit equations of A·W = B "
            "and the row sums exact in rational arithmetic, every value >= 0"
        ),
    )
