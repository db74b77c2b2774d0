"""Meet and join of channels on two secrets in the refinement lattice (via trade-off curves)."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise
from typing import Any

from ..channel import Channel
from ..errors import InputTypeError, ParameterError, VerificationError
from ..validation import check_optional_bool
from .curves import TradeoffCurve, _curve_exact, _interp_exact, tradeoff_channel
from .parse import _check_two_rows, _exact_rows, _parse

__all__ = ["meet", "join", "meet_curve", "join_curve"]

_Point = tuple[Fraction, Fraction]


def _curves(channels: tuple[Any, ...], what: str) -> tuple[list[TradeoffCurve], bool]:
    if not channels:
        msg = f"{what} needs at least one channel"
        raise InputTypeError(msg)
    curves, all_exact = [], True
    for i, C in enumerate(channels):
        name = f"channels[{i}]"
        parsed = _parse(C, name)
        _check_two_rows(parsed, name)
        all_exact &= parsed.kind == "exact"
        rows = _exact_rows(parsed, name)
        curves.append(_curve_exact(rows[0], rows[1]))
    return curves, all_exact


def _cross(o: _Point, a: _Point, b: _Point) -> Fraction:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _lower_hull(points: list[_Point]) -> list[_Point]:
    """Lower convex hull (Andrew's monotone chain), collinear points dropped."""
    best: dict[Fraction, Fraction] = {}
    for a, b in points:
        if a not in best or b < best[a]:
            best[a] = b
    hull: list[_Point] = []
    for p in sorted(best.items()):
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], p) <= 0:
            hull.pop()
        hull.append(p)
    return hull


def _drop_collinear(points: list[_Point]) -> list[_Point]:
    out: list[_Point] = []
    for p in points:
        while len(out) >= 2 and _cross(out[-2], out[-1], p) == 0:
            out.pop()
        out.append(p)
    return out


def _max_curve(S: TradeoffCurve, T: TradeoffCurve) -> list[_Point]:
    """Vertices of the pointwise maximum of two convex piecewise-linear functions."""
    xs = sorted(set(S.alphas) | set(T.alphas))

    def diff(x: Fraction) -> Fraction:
        return _interp_exact(S.alphas, S.betas, x) - _interp_exact(T.alphas, T.betas, x)

    grid: list[Fraction] = [xs[0]]
    for u, v in pairwise(xs):
        du, dv = diff(u), diff(v)
        if du * dv < 0:  # both linear on [u, v]: one crossing inside
            grid.append(u + (v - u) * du / (du - dv))
        grid.append(v)
    pts = [
        (x, max(_interp_exact(S.alphas, S.betas, x), _interp_exact(T.alphas, T.betas, x)))
        for x in grid
    ]
    return _drop_collinear(pts)


def _meet_of(curves: list[TradeoffCurve]) -> TradeoffCurve:
    hull = _lower_hull([p for T in curves for p in T])
    return TradeoffCurve([a for a, _ in hull], [b for _, b in hull], exact=True)


def _join_of(curves: list[TradeoffCurve]) -> TradeoffCurve:
    pts = list(curves[0])
    for T in curves[1:]:
        S = TradeoffCurve([a for a, _ in pts], [b for _, b in pts], exact=True)
        pts = _max_curve(S, T)
    return TradeoffCurve([a for a, _ in pts], [b for _, b in pts], exact=True)


#: Relative margins tried, in order, when a float meet/join is rounded: the inner
#: vertices are lowered by the factor (1 - delta) (meet), or the curve is mixed with
#: the no-leak diagonal, T' = (1 - delta) T + delta (1 - alpha) (join), until the float
#: channel is a bound of every argument in exact arithmetic (checked, never assumed).
SAFE_DELTAS: tuple[Fraction, ...] = (
    Fraction(0),
    Fraction(1, 10**14),
    Fraction(1, 10**12),
    Fraction(1, 10**10),
    Fraction(1, 10**8),
)


def _dominates(upper: TradeoffCurve, lower: TradeoffCurve) -> bool:
    """upper >= lower pointwise (both exact): lower ⊑ upper as channels."""
    return all(_interp_exact(lower.alphas, lower.betas, a) <= b for a, b in upper)


def _safe_float(curve: TradeoffCurve, curves: list[TradeoffCurve], lower: bool) -> Channel:
    """Round a meet (lower=True) or join to a float Channel that is still a bound, exactly."""
    for delta in SAFE_DELTAS:
        a, b = curve.alphas, curve.betas
        if lower:  # lower the inner vertices: same vertex count, T' <= T
            betas = [b[0], *((1 - delta) * v for v in b[1:-1]), b[-1]]
        else:  # mix with the diagonal 1 - alpha (a post-processing): T' >= T
            betas = [(1 - delta) * v + delta * (1 - u) for u, v in zip(a, b, strict=True)]
        try:
            lowered = TradeoffCurve(a, betas, exact=True)
            C = tradeoff_channel(lowered, exact=False)
        except ParameterError:  # lowering broke convexity: try the next margin
            continue
        rows = _exact_rows(_parse(C, "C"), "C")
        T = _curve_exact(rows[0], rows[1])
        if all(_dominates(Ti, T) if lower else _dominates(T, Ti) for Ti in curves):
            return C
    msg = "could not round the {} to a float channel that is a bound; use exact=True".format(
        "meet" if lower else "join"
    )
    raise VerificationError(msg)


def meet_curve(*channels: Any) -> TradeoffCurve:
    """The exact trade-off curve of the meet: the convex envelope of min_i T_i.

    Parameters
    ----------
    *channels : Channel or array_like with two rows

    Returns
    -------
    TradeoffCurve
        Exact (Fractions); float entries are taken exactly.

    Examples
    --------
    >>> T = meet_curve([[0.75, 0.25], [0.25, 0.75]], [[0.5, 0.5], [0.0, 1.0]])
    >>> [tuple(map(str, v)) for v in T]
    [('0', '1'), ('1/4', '1/4'), ('1/2', '0'), ('1', '0')]
    """
    curves, _ = _curves(channels, "meet_curve")
    return _meet_of(curves)


def join_curve(*channels: Any) -> TradeoffCurve:
    """The exact trade-off curve of the join: the pointwise maximum max_i T_i.

    Parameters
    ----------
    *channels
        As in :func:`meet_curve`.

    Returns
    -------
    TradeoffCurve
        The curve of :func:`join`, exact like that of :func:`meet_curve`.

    Examples
    --------
    >>> T = join_curve([[0.75, 0.25], [0.25, 0.75]], [[0.5, 0.5], [0.0, 1.0]])
    >>> [tuple(map(str, v)) for v in T]
    [('0', '1'), ('2/5', '1/5'), ('1', '0')]
    """
    curves, _ = _curves(channels, "join_curve")
    return _join_of(curves)


def meet(*channels: Any, exact: bool | None = None) -> Any:
    """The meet (greatest lower bound) of channels on two secrets in the refinement order.

    The most private channel that is at least as useful as every argument: M ⊑ C_i
    for each i, and every N with N ⊑ C_i for all i satisfies N ⊑ M.

    Parameters
    ----------
    *channels : Channel, array_like or sympy Matrix, two rows each
        Typically 2x2 bit channels; any number of outputs is accepted.
    exact : bool, optional
        True: the matrix as two lists of Fractions (float inputs taken exactly).
        Default: exact iff every input is exact; else a :class:`Channel`.

    Returns
    -------
    Channel or list of list of Fraction, shape (2, m)
        Columns in ascending likelihood ratio C[1, y] / C[0, y]; the meet of two
        incomparable 2x2 channels has three outputs.

    Raises
    ------
    ChannelError
        A channel does not have two rows.
    InputTypeError
        No channel given.

    Notes
    -----
    On two secrets A ⊑ B iff T_A <= T_B (Blackwell), so the meet's trade-off
    function is the largest convex function below every T_i: the lower convex
    hull of the union of their vertices (exact, O(m log m)). The paper's
    M_eps (Sec. VI-B) is the meet of the bitwise SUE and OUE channels: its
    inner vertices are the two trade-off points (alpha_O, beta_O), (alpha_S, beta_S).

    References
    ----------
    The paper's Sec. VI-B remark (refinement on two secrets is a lattice, [17]).

    Examples
    --------
    SUE and OUE bits at e^(eps/2) = 2 (paper's M_eps with exact entries):

    >>> from fractions import Fraction as F
    >>> S = [[F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]]
    >>> O = [[F(4, 5), F(1, 5)], [F(1, 2), F(1, 2)]]
    >>> [[str(v) for v in row] for row in meet(S, O)]
    [['2/3', '2/15', '1/5'], ['1/3', '1/6', '1/2']]
    """
    return _bound(channels, exact, "meet")


def join(*channels: Any, exact: bool | None = None) -> Any:
    """The join (least upper bound) of channels on two secrets in the refinement order.

    The most useful channel that is at least as private as every argument:
    C_i ⊑ J for each i, and every N with C_i ⊑ N for all i satisfies J ⊑ N.

    Parameters
    ----------
    *channels : Channel, array_like or sympy Matrix, two rows each
    exact : bool, optional
        As in :func:`meet`.

    Returns
    -------
    Channel or list of list of Fraction, shape (2, m)
        As for :func:`meet`; the join of two 2x2 channels is again 2x2: its trade-off
        point is the crossing of the two curves (or the safer channel if they are
        comparable).

    Raises
    ------
    ChannelError, InputTypeError
        As :func:`meet`.

    Notes
    -----
    The join's trade-off function is max_i T_i (a maximum of convex functions is
    convex). Its vertices are computed exactly: the union of the arguments'
    vertices plus one crossing per interval where the sign of T_A - T_B changes,
    collinear points removed; O(m^2) for m vertices in total.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> S = [[F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]]
    >>> O = [[F(4, 5), F(1, 5)], [F(1, 2), F(1, 2)]]
    >>> [[str(v) for v in row] for row in join(S, O)]
    [['8/11', '3/11'], ['5/11', '6/11']]
    """
    return _bound(channels, exact, "join")


def _bound(channels: tuple[Any, ...], exact: bool | None, which: str) -> Any:
    """The meet or the join (``which``) as an exact matrix or a float Channel still a bound."""
    exact = check_optional_bool("exact", exact)
    curves, all_exact = _curves(channels, which)
    lower = which == "meet"
    curve = _meet_of(curves) if lower else _join_of(curves)
    if all_exact if exact is None else exact:
        return tradeoff_channel(curve, exact=True)
    return _safe_float(curve, curves, lower=lower)
