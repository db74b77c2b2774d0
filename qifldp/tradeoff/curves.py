"""f-DP trade-off functions of channels: the curve T(C[x0], C[x1]), its values, and back.

The trade-off curve of two rows is the Neyman–Pearson lower boundary of the type I /
type II errors of tests between them (Dong, Roth and Su, *Gaussian differential
privacy*); it is computed exactly (Fractions) for exact entries, in floating point
otherwise, and a curve's vertices give back a 2-row channel (:func:`tradeoff_channel`).
"""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import singledispatch
from itertools import pairwise
from typing import Any

import numpy as np

from ..arrays import float_array
from ..channel import Channel
from ..errors import (
    InputTypeError,
    ParameterError,
)
from ..validation import check_bool, check_optional_bool, check_real
from .parse import (
    _check_2x2,
    _exact_rows,
    _exact_scalar,
    _parse,
    _resolve_exact,
    _row_index,
)

__all__ = [
    "DEFAULT_TIE_RTOL",
    "TradeoffCurve",
    "tradeoff_point",
    "tradeoff_curve",
    "tradeoff_value",
    "tradeoff_channel",
]

#: Relative tolerance under which two floating-point likelihood ratios count as
#: equal when a float trade-off curve merges tied outputs into one segment.
#: Merging two ratios this close moves no vertex by more than ~1e-12.  Exact
#: curves (``exact=True``) compare ratios exactly and do not use it.
DEFAULT_TIE_RTOL: float = 1e-12


def _float_alpha(alpha: Any) -> np.ndarray:
    """alpha as a float64 array, with a clear error for strings, complex numbers, None."""
    if alpha is None or isinstance(alpha, (str, bytes)):
        msg = f"alpha must be a real number or an array of them, got {type(alpha).__name__}"
        raise InputTypeError(msg)
    overflow = "alpha must lie in [0, 1], got an integer beyond the float range"
    return float_array(
        alpha, "alpha", "a real number or an array of them", ParameterError, overflow
    )


class TradeoffCurve(Sequence):
    """The vertices of an f-DP trade-off function, alpha ascending.

    A sequence of ``(alpha, beta)`` pairs from ``(0, T(0))`` to ``(1, 0)``; the
    function T is the linear interpolation between consecutive vertices. Calling
    the curve evaluates T.

    Parameters
    ----------
    alphas, betas : sequence of float or Fraction
        Vertex coordinates; alphas strictly ascending from 0 to 1.
    exact : bool
        True when the coordinates are :class:`fractions.Fraction`.

    Attributes
    ----------
    alphas, betas : tuple
        Type-I errors (ascending) and the matching smallest type-II errors.
    exact : bool

    Examples
    --------
    >>> T = TradeoffCurve([0, 0.25, 1], [1, 0.25, 0])
    >>> list(T)
    [(0, 1), (0.25, 0.25), (1, 0)]
    >>> float(T(0.5))
    0.1666...
    """

    __slots__ = ("alphas", "betas", "exact")

    def __init__(self, alphas: Sequence[Any], betas: Sequence[Any], exact: bool = False) -> None:
        for name, seq in (("alphas", alphas), ("betas", betas)):
            if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__"):
                msg = f"{name} must be a sequence of numbers, got {type(seq).__name__}"
                raise InputTypeError(msg)
        if len(alphas) != len(betas) or len(alphas) < 2:
            msg = "alphas and betas must have the same length, at least 2"
            raise ParameterError(msg)
        self.alphas = tuple(alphas)
        self.betas = tuple(betas)
        self.exact = check_bool("exact", exact)
        if self.alphas[0] != 0 or self.alphas[-1] != 1 or self.betas[-1] != 0:
            msg = "a trade-off curve must run from alpha = 0 to the vertex (1, 0)"
            raise ParameterError(msg)
        if any(b <= a for a, b in pairwise(self.alphas)):
            msg = "the alphas of a trade-off curve must be strictly ascending"
            raise ParameterError(msg)

    def __len__(self) -> int:
        return len(self.alphas)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(zip(self.alphas[i], self.betas[i], strict=True))
        return (self.alphas[i], self.betas[i])

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return iter(zip(self.alphas, self.betas, strict=True))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return np.array([[float(a), float(b)] for a, b in self], dtype=dtype or np.float64)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TradeoffCurve):
            return NotImplemented
        return self.alphas == other.alphas and self.betas == other.betas

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        def fmt(v: Any) -> str:
            return str(v) if isinstance(v, Fraction) else f"{float(v):.6g}"

        pts = ", ".join(f"({fmt(a)}, {fmt(b)})" for a, b in self)
        return f"TradeoffCurve([{pts}]{', exact=True' if self.exact else ''})"

    @property
    def vertices(self) -> list[tuple[Any, Any]]:
        """The vertices as a list of ``(alpha, beta)`` tuples.

        >>> TradeoffCurve([0, 1], [1, 0]).vertices
        [(0, 1), (1, 0)]
        """
        return list(self)

    def __call__(self, alpha: Any) -> Any:
        """T(alpha), by linear interpolation between the vertices.

        Parameters
        ----------
        alpha : float, Fraction or array_like of float, each in [0, 1]

        Returns
        -------
        float, Fraction (exact curve, exact alpha) or numpy.ndarray

        Raises
        ------
        ParameterError
            When alpha lies outside [0, 1] or is NaN.

        Examples
        --------
        >>> T = TradeoffCurve([0, 0.25, 1], [1, 0.25, 0])
        >>> T([0.0, 0.125, 1.0])
        array([1.   , 0.625, 0.   ])
        """
        if self.exact and not isinstance(alpha, np.ndarray) and np.ndim(alpha) == 0:
            a = _exact_scalar(alpha)
            if a is None:
                a = Fraction(_check_alpha(alpha))
            elif not 0 <= a <= 1:
                msg = f"alpha must lie in [0, 1], got {alpha}"
                raise ParameterError(msg)
            return _interp_exact(self.alphas, self.betas, a)
        arr = _float_alpha(alpha)
        if np.any(np.isnan(arr)) or np.any(arr < 0) or np.any(arr > 1):
            msg = f"alpha must lie in [0, 1], got {alpha!r}"
            raise ParameterError(msg)
        out = np.interp(arr, np.array(self.alphas, float), np.array(self.betas, float))
        return float(out) if out.ndim == 0 else out

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the curve (and the diagonal beta = 1 - alpha) on a matplotlib axes.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (a new figure when None).
        **kwargs
            Passed to ``ax.plot`` for the curve (e.g. ``label``, ``color``).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> ax = TradeoffCurve([0, 0.25, 1], [1, 0.25, 0]).plot(label="bsc")
        >>> ax.get_lines()[-1].get_xydata().tolist()
        [[0.0, 1.0], [0.25, 0.25], [1.0, 0.0]]
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4, 4))
        a = np.array(self, dtype=float)
        ax.plot([0, 1], [1, 0], color="0.7", linestyle=":", linewidth=1)
        ax.plot(a[:, 0], a[:, 1], marker="o", markersize=3, **kwargs)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("type I error alpha")
        ax.set_ylabel("type II error beta")
        ax.set_aspect("equal")
        return ax


def _check_alpha(alpha: Any) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        msg = f"alpha must be a real number in [0, 1], got {alpha!r}"
        raise InputTypeError(msg) from None
    if not 0.0 <= a <= 1.0:
        msg = f"alpha must lie in [0, 1], got {alpha!r}"
        raise ParameterError(msg)
    return a


def _interp_exact(alphas: Sequence[Fraction], betas: Sequence[Fraction], a: Fraction) -> Fraction:
    i = bisect.bisect_right(alphas, a)
    if i >= len(alphas):
        return Fraction(betas[-1])
    if i == 0:
        return Fraction(betas[0])
    a0, a1, b0, b1 = alphas[i - 1], alphas[i], betas[i - 1], betas[i]
    return b0 + (b1 - b0) * (a - a0) / (a1 - a0)


def _curve_exact(P: Sequence[Fraction], Q: Sequence[Fraction]) -> TradeoffCurve:
    """Exact Neyman–Pearson curve of T(P, Q); P and Q sum exactly to 1."""
    q_inf = sum((q for p, q in zip(P, Q, strict=True) if p == 0 and q > 0), Fraction(0))
    pairs = [(q / p, p, q) for p, q in zip(P, Q, strict=True) if p > 0]
    finite = sorted(pairs, key=lambda t: -t[0])
    alphas, betas = [Fraction(0)], [1 - q_inf]
    a, b = Fraction(0), 1 - q_inf
    i = 0
    while i < len(finite):
        r = finite[i][0]
        gp = gq = Fraction(0)
        while i < len(finite) and finite[i][0] == r:
            gp += finite[i][1]
            gq += finite[i][2]
            i += 1
        a, b = a + gp, b - gq
        alphas.append(a)
        betas.append(b)
    return TradeoffCurve(alphas, betas, exact=True)


def _curve_float(P: np.ndarray, Q: np.ndarray, tie_rtol: float) -> TradeoffCurve:
    """Float Neyman–Pearson curve of T(P, Q) (vectorised; ties within ``tie_rtol``)."""
    P = P / P.sum()
    Q = Q / Q.sum()
    fin = P > 0
    p, q = P[fin], Q[fin]
    r = q / p
    order = np.argsort(-r, kind="stable")
    p, q, r = p[order], q[order], r[order]
    starts = np.flatnonzero(np.r_[True, r[1:] < r[:-1] * (1.0 - tie_rtol)])
    gp = np.add.reduceat(p, starts)
    gq = np.add.reduceat(q, starts)
    # alpha as prefix sums of P, beta as suffix sums of Q (the mass not yet rejected):
    # both small ends are sums of small terms, never differences (no cancellation)
    alphas = np.minimum(np.concatenate([[0.0], np.cumsum(gp)]), 1.0)
    betas = np.concatenate([np.cumsum(gq[::-1])[::-1], [0.0]])
    alphas[-1] = 1.0
    if not np.any(Q[~fin] > 0):
        betas[0] = 1.0  # Q has no mass where P = 0: T(0) = 1 exactly, whatever the summation order
    betas = np.minimum(betas, 1.0)
    # rounding may make two alphas equal when a group has a tiny mass: keep the lower beta
    keep = np.r_[alphas[1:] > alphas[:-1], True]
    if not keep.all():
        alphas, betas = alphas[keep], betas[keep]
    return TradeoffCurve([float(v) for v in alphas], [float(v) for v in betas], exact=False)


@singledispatch
def tradeoff_curve(
    C: Any,
    x0: int = 0,
    x1: int = 1,
    *,
    exact: bool | None = None,
    tie_rtol: float = DEFAULT_TIE_RTOL,
) -> TradeoffCurve:
    """The exact f-DP trade-off function T(C[x0], C[x1]) as its vertices.

    Parameters
    ----------
    C : Channel, array_like, sympy Matrix or symbolic channel
        Any channel; rows x0 and x1 are the two hypotheses. Exact entries (ints,
        :class:`fractions.Fraction`, sympy Rationals) must have rows summing
        exactly to 1 and give an exact curve by default.
    x0, x1 : int
        Row indices: the null hypothesis "the secret is x0" against "it is x1".
    exact : bool, optional
        True: compute in rationals and return Fractions (float entries are
        converted exactly and each row is normalised exactly, so the curve is
        the exact one of the channel the floats represent). False: floats.
        None (default): exact iff the entries are exact.
    tie_rtol : float
        Float mode only: likelihood ratios within this relative distance are one
        tie (see :data:`DEFAULT_TIE_RTOL`).

    Returns
    -------
    TradeoffCurve
        Vertices (alpha, beta), alpha ascending, from (0, T(0)) to (1, 0):
        alpha is the type-I error of a test rejecting x0 and beta = T(alpha) the
        smallest type-II error at that level (not symmetrised).

    Raises
    ------
    ChannelError
        Invalid channel (exact rows must sum exactly to 1).
    ParameterError, InputTypeError
        x0 or x1 is not a row index; a symbolic channel with free symbols.

    Notes
    -----
    Neyman–Pearson: the most powerful tests reject x0 on the outputs of largest
    likelihood ratio Q(y)/P(y) (P = C[x0], Q = C[x1]). Outputs with P = 0 < Q
    (ratio infinity) come first and give the vertical drop to (0, T(0)) with
    T(0) = 1 - Q(P = 0); outputs with P = Q = 0 are ignored; outputs with
    Q = 0 < P come last (the flat part at beta = 0). Outputs of equal ratio are
    one segment, so consecutive slopes differ and every returned point is a true
    vertex. T is convex, non-increasing and T(alpha) <= 1 - alpha.
    For a 2x2 channel [[1-a, a], [b, 1-b]] with a + b <= 1 the inner vertex is
    (a, b) = ``tradeoff_point(C)``; when a + b > 1 it is (1-a, 1-b), the point of
    the channel with its output columns swapped (the same channel up to
    relabelling). Cost O(|Y| log |Y|).

    References
    ----------
    Dong, Roth, Su, *Gaussian differential privacy*, JRSS B 84 (2022), Def. 2.1.

    Examples
    --------
    Randomized response on 4 values with e^eps = 2 is rational, so the curve is exact:

    >>> from fractions import Fraction as F
    >>> rr = [[F(2, 5), F(1, 5), F(1, 5), F(1, 5)], [F(1, 5), F(2, 5), F(1, 5), F(1, 5)]]
    >>> [tuple(map(str, v)) for v in tradeoff_curve(rr)]
    [('0', '1'), ('1/5', '3/5'), ('3/5', '1/5'), ('1', '0')]
    >>> tradeoff_curve(rr)(F(1, 10))
    Fraction(4, 5)
    """
    parsed = _parse(C, "C")
    n = parsed.shape[0]
    x0 = _row_index("x0", x0, n)
    x1 = _row_index("x1", x1, n)
    if _resolve_exact(parsed, exact):
        rows = _exact_rows(parsed, "C")
        return _curve_exact(rows[x0], rows[x1])
    if parsed.kind != "float":
        if parsed.kind == "symbolic":
            _exact_rows(parsed, "C")  # raises with the message about free symbols
        M = np.array([[float(v) for v in row] for row in parsed.rows], dtype=np.float64)  # type: ignore[union-attr]
    else:
        M = parsed.floats  # type: ignore[assignment]
    tie_rtol = check_real("tie_rtol", tie_rtol)
    if not 0.0 <= tie_rtol < 1.0:
        msg = f"tie_rtol must lie in [0, 1), got {tie_rtol}"
        raise ParameterError(msg)
    return _curve_float(np.asarray(M[x0], float), np.asarray(M[x1], float), tie_rtol)


@singledispatch
def tradeoff_value(
    C: Any, alpha: Any, x0: int = 0, x1: int = 1, *, exact: bool | None = None
) -> Any:
    """T(alpha): the smallest type-II error of a level-alpha test of C[x0] against C[x1].

    Parameters
    ----------
    C : Channel, array_like, or TradeoffCurve
        A channel (its curve is computed) or a curve from :func:`tradeoff_curve`.
    alpha : float, Fraction or array_like, in [0, 1]
    x0, x1 : int
        Hypotheses (rows), as in :func:`tradeoff_curve`.
    exact : bool, optional
        As in :func:`tradeoff_curve`.

    Returns
    -------
    float, Fraction or numpy.ndarray
        Linear interpolation between the vertices (randomised tests fill the gaps).

    Raises
    ------
    ParameterError
        alpha outside [0, 1].

    Notes
    -----
    For 4-ary randomized response at eps, T(alpha) = 1 - e^eps alpha for
    alpha <= 1/(e^eps + 3): the first Neyman–Pearson segment.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.e
    >>> rr4 = np.array([[e, 1, 1, 1], [1, e, 1, 1]]) / (e + 3)
    >>> round(tradeoff_value(rr4, 0.1), 6)
    0.728172
    """
    curve = C if isinstance(C, TradeoffCurve) else tradeoff_curve(C, x0, x1, exact=exact)
    return curve(alpha)


@singledispatch
def tradeoff_point(C: Any, *, exact: bool | None = None) -> tuple[Any, Any]:
    """The trade-off point (alpha, beta) of a 2x2 channel C = [[1-alpha, alpha], [beta, 1-beta]].

    Parameters
    ----------
    C : Channel, array_like, sympy Matrix or symbolic channel, shape (2, 2)
    exact : bool, optional
        True: Fractions (float rows converted exactly and normalised exactly).
        None (default): Fractions for exact input, sympy expressions for a
        symbolic channel, floats otherwise.

    Returns
    -------
    (alpha, beta)
        alpha = C[0, 1], the type-I error of the test rejecting x0 = 0 on output 1;
        beta = C[1, 0], its type-II error.

    Raises
    ------
    ChannelError
        C is not 2x2.

    Notes
    -----
    The paper's Eq. (14). When alpha + beta < 1 this is the inner vertex of
    ``tradeoff_curve(C)``; when alpha + beta > 1 the inner vertex is
    (1 - alpha, 1 - beta) (swap the output columns); alpha + beta = 1 means the
    two rows are equal (no leakage).

    Examples
    --------
    >>> tradeoff_point([[0.75, 0.25], [0.5, 0.5]])
    (0.25, 0.5)
    """
    parsed = _parse(C, "C")
    _check_2x2(parsed, "C")
    if parsed.kind == "symbolic":
        if exact:
            _exact_rows(parsed, "C")
        return (parsed.sym[0, 1], parsed.sym[1, 0])
    if _resolve_exact(parsed, exact):
        rows = _exact_rows(parsed, "C")
        return (rows[0][1], rows[1][0])
    M = parsed.floats if parsed.kind == "float" else np.array(parsed.rows, dtype=float)
    return (float(M[0, 1]), float(M[1, 0]))  # type: ignore[index]


def tradeoff_channel(vertices: Any, *, exact: bool | None = None) -> Any:
    """The two-row channel whose trade-off function has the given vertices.

    Parameters
    ----------
    vertices : TradeoffCurve or sequence of (alpha, beta)
        A convex, non-increasing curve from (0, T(0)) to (1, 0), alpha ascending.
    exact : bool, optional
        True: return the matrix as a list of two lists of Fractions. Default:
        exact iff the vertices are exact (Fractions/ints).

    Returns
    -------
    Channel or list of list of Fraction, shape (2, m)
        Row 0 = P (hypothesis x0), row 1 = Q. Columns in ascending likelihood
        ratio Q/P: column 0 is the output most indicative of x0. For a single
        inner vertex (a, b) with a + b < 1 this is [[1-a, a], [b, 1-b]].

    Raises
    ------
    ParameterError
        The vertices do not form a trade-off function (not starting at alpha = 0,
        not ending at (1, 0), not convex, or increasing).

    Notes
    -----
    Segment i between vertices (a_i, b_i) and (a_{i+1}, b_{i+1}) becomes one
    output with P = a_{i+1} - a_i and Q = b_i - b_{i+1}; a start below 1 adds an
    output with P = 0, Q = 1 - T(0). By Blackwell's theorem for two hypotheses
    this channel is, up to refinement equivalence, the only one with that curve.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> tradeoff_channel([(0, 1), (F(1, 4), F(1, 2)), (1, 0)])
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 2), Fraction(1, 2)]]
    """
    if isinstance(vertices, (str, bytes)) or not hasattr(vertices, "__iter__"):
        msg = f"vertices must be a sequence of (alpha, beta) pairs, got {type(vertices).__name__}"
        raise InputTypeError(msg)
    pts = list(vertices)
    if len(pts) < 2 or any(
        isinstance(p, (str, bytes)) or np.ndim(p) != 1 or len(p) != 2 for p in pts
    ):
        msg = "vertices must be a sequence of at least two (alpha, beta) pairs"
        raise ParameterError(msg)
    ex = [(_exact_scalar(a), _exact_scalar(b)) for a, b in pts]
    all_exact = all(a is not None and b is not None for a, b in ex)
    exact = check_optional_bool("exact", exact)
    if exact is None:
        exact = all_exact or (isinstance(vertices, TradeoffCurve) and vertices.exact)
    for (a, b), (ea, eb) in zip(pts, ex, strict=True):
        for v, ev in ((a, ea), (b, eb)):
            if ev is None and not (isinstance(v, numbers.Real) and np.isfinite(float(v))):
                msg = f"vertices must hold finite real (alpha, beta) values, got {v!r}"
                raise ParameterError(msg)
    fpts = [
        (Fraction(float(a)) if ea is None else ea, Fraction(float(b)) if eb is None else eb)
        for (a, b), (ea, eb) in zip(pts, ex, strict=True)
    ]
    P, Q = _channel_rows_from_curve(fpts)
    if exact:
        return [P, Q]
    M = np.array([[float(v) for v in P], [float(v) for v in Q]])
    M /= M.sum(axis=1, keepdims=True)
    return Channel(M)


def _channel_rows_from_curve(
    pts: list[tuple[Fraction, Fraction]],
) -> tuple[list[Fraction], list[Fraction]]:
    a0, b0 = pts[0]
    if a0 != 0 or pts[-1] != (1, 0) or not 0 <= b0 <= 1:
        msg = "a trade-off curve must start at alpha = 0 with 0 <= T(0) <= 1 and end at (1, 0)"
        raise ParameterError(msg)
    P: list[Fraction] = []
    Q: list[Fraction] = []
    prev_slope = None
    for (a, b), (c, d) in pairwise(pts):
        if c <= a:
            msg = f"the alphas of the vertices must be strictly ascending, got {a} then {c}"
            raise ParameterError(msg)
        if d > b:
            msg = f"a trade-off curve is non-increasing, got beta {b} then {d}"
            raise ParameterError(msg)
        slope = (d - b) / (c - a)
        if prev_slope is not None and slope < prev_slope:
            msg = (
                f"a trade-off curve is convex, the slope drops from {prev_slope} to {slope} "
                f"at alpha = {a}"
            )
            raise ParameterError(msg)
        prev_slope = slope
        P.append(c - a)
        Q.append(b - d)
    if b0 < 1:
        P.append(Fraction(0))
        Q.append(1 - b0)
    # ascending ratio Q/P: reverse of the curve order, the infinite ratio last
    seg = list(zip(P, Q, strict=True))
    body = seg[: len(pts) - 1][::-1]
    tail = seg[len(pts) - 1 :]
    merged: list[tuple[Fraction, Fraction]] = []
    for p, q in body + tail:
        if merged and merged[-1][0] * q == merged[-1][1] * p:  # equal ratio: collinear
            merged[-1] = (merged[-1][0] + p, merged[-1][1] + q)
        else:
            merged.append((p, q))
    return [p for p, _ in merged], [q for _, q in merged]
