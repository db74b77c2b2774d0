"""Where a refinement starts to hold: the boundary in eps, located by bisection.

:func:`refinement_boundary` brackets the eps at which the verdict of A ⊑ B changes
(for protocol families A and B at a fixed k) and halves the bracket until it is
narrower than ``tol``; :func:`boundary_curve` does it for every k of a list,
through :func:`qifldp.sweep`. Bisection finds *a* change of the verdict: it is the
boundary only where the verdict is monotone in eps, which is checked at the bracket
ends (they must differ) and stated in ``note`` when it is not.

>>> import qifldp as q
>>> b = q.refinement_boundary("grr", "grr", 3, 0.5, 1.5, tol=0.5)
>>> b.eps is None, b.holds_lo, b.holds_hi
(True, True, True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputTypeError, ParameterError
from ..protocols.oracles import ORACLE_PARAMETERS
from .arguments import _check_int, _check_seconds, _values
from .comparability import _build, _check_protocols, _check_representation
from .engine import sweep
from .time_limited import _decide, warm_refinement

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RefinementBoundary", "refinement_boundary", "boundary_curve"]


@dataclass(frozen=True)
class RefinementBoundary:
    """The eps at which the verdict of A ⊑ B changes, with the bracketing verdicts.

    Attributes
    ----------
    k : int
        The domain size.
    eps : float or None
        The midpoint of the final bracket (within ``tol / 2`` of a change of the
        verdict); None when the bracket ends agree or a verdict is undecided.
    lo, hi : float
        The final bracket: the verdict at ``lo`` is ``holds_lo``, at ``hi``
        ``holds_hi``.
    holds_lo, holds_hi : bool or None
        The verdicts of A ⊑ B at ``lo`` and ``hi`` (None: undecided).
    evaluations : tuple of (float, bool or None)
        Every (eps, verdict) evaluated, in order.
    note : str
        "" when a change was bracketed to ``tol``; otherwise why not (the ends agree:
        no change, or an even number of changes, the verdict is not monotone there;
        a verdict undecided, with its error).
    """

    k: int
    eps: float | None
    lo: float
    hi: float
    holds_lo: bool | None
    holds_hi: bool | None
    evaluations: tuple[tuple[float, bool | None], ...]
    note: str = ""


def _verdict(
    a: Any, b: Any, k: int, eps: float, params: dict[str, Any], time_limit: float, rep: str
) -> tuple[bool | None, str]:
    try:
        A, B = _build(a, k, eps, params, rep), _build(b, k, eps, params, rep)
        return bool(_decide(A, B, time_limit)), ""
    except Exception as exc:  # noqa: BLE001 - an undecided verdict stops the bisection
        return None, f"{type(exc).__name__}: {exc}"


def _check_bracket(lo: Any, hi: Any, tol: Any) -> tuple[float, float, float]:
    lo_, hi_ = _values("[lo, hi]", [lo, hi], integer=False)
    if not lo_ < hi_:
        msg = f"lo must be < hi, got lo = {lo_!r}, hi = {hi_!r}"
        raise ParameterError(msg)
    return lo_, hi_, _check_seconds("tol", tol, unit="a positive number")


def refinement_boundary(
    A: Any,
    B: Any,
    k: int,
    lo: float,
    hi: float,
    tol: float = 1e-3,
    *,
    time_limit: float = 60.0,
    representation: str = "protocol",
    **params: Any,
) -> RefinementBoundary:
    """The eps in [lo, hi] where the verdict of A ⊑ B changes, to within ``tol``.

    The verdicts at ``lo`` and ``hi`` are decided first (:func:`qifldp.refines` on
    ``qifldp.protocol(A, k, eps)`` and ``qifldp.protocol(B, k, eps)``); when they
    differ, the bracket is halved until ``hi - lo <= tol`` (about
    log2((hi - lo) / tol) refinements).

    Parameters
    ----------
    A, B : str or callable
        Protocol names or callables ``(k, eps) -> channel``, as for
        :func:`qifldp.comparability_map`.
    k : int
        Domain size, ``k >= 2``.
    lo, hi : float
        The bracket, ``0 <= lo < hi``, finite.
    tol : float
        Width of the final bracket, > 0.
    time_limit : float
        Seconds per refinement (see :func:`qifldp.comparability_map`).
    representation : {"protocol", "symmetric"}
        As for :func:`qifldp.comparability_map`.
    **params
        Protocol parameters (``theta``, ``omega``, ``g``).

    Returns
    -------
    RefinementBoundary
        ``eps`` (None when no change was bracketed: ``note`` says why) with the
        final bracket and the verdicts at its ends.

    Raises
    ------
    InputTypeError
        A or B neither a name nor callable; non-numeric k, lo, hi, tol.
    ParameterError
        k < 2; lo >= hi, a negative or non-finite end; tol or time_limit not
        positive; an unknown protocol or parameter value.

    Examples
    --------
    >>> import qifldp as q
    >>> b = q.refinement_boundary("sue", "oue", 3, 0.5, 8.0, tol=0.5)
    >>> b.holds_lo, b.holds_hi, b.hi - b.lo <= 0.5, b.lo < b.eps < b.hi
    (False, True, True, True)
    """
    k_ = _check_int("k", k, 2)
    assert k_ is not None
    lo_, hi_, tol_ = _check_bracket(lo, hi, tol)
    time_limit = _check_seconds("time_limit", time_limit)
    representation = _check_representation(representation)
    _check_specs(A, B, k_, lo_, params)
    evaluations: list[tuple[float, bool | None]] = []

    def decide(eps: float) -> tuple[bool | None, str]:
        v, why = _verdict(A, B, k_, eps, params, time_limit, representation)
        evaluations.append((eps, v))
        return v, why

    v_lo, why_lo = decide(lo_)
    v_hi, why_hi = decide(hi_)

    def result(eps: float | None, note: str) -> RefinementBoundary:
        return RefinementBoundary(k_, eps, lo_, hi_, v_lo, v_hi, tuple(evaluations), note)

    if v_lo is None or v_hi is None:
        which = f"at lo = {lo_:g}: {why_lo}" if v_lo is None else f"at hi = {hi_:g}: {why_hi}"
        return result(None, f"undecided {which}")
    if v_lo == v_hi:
        return result(
            None,
            f"A ⊑ B is {v_lo} at both ends of [{lo_:g}, {hi_:g}]: no change of the verdict "
            "bracketed (none, or an even number: the verdict is not monotone in eps there)",
        )
    while hi_ - lo_ > tol_:
        mid = 0.5 * (lo_ + hi_)
        v, why = decide(mid)
        if v is None:
            return result(None, f"undecided at eps = {mid:g}: {why}")
        if v == v_lo:
            lo_ = mid
        else:
            hi_ = mid
    return result(0.5 * (lo_ + hi_), "")


def _check_specs(A: Any, B: Any, k: int, eps: float, params: dict) -> None:
    """The names, parameters and sizes checks of :func:`qifldp.comparability_map`
    (which builds both protocols at its first point), without running a refinement."""
    named = _check_protocols(A, B)
    for key in params:
        if not any(key in ORACLE_PARAMETERS[name] for name in named):
            msg = f"got a parameter {key!r} that neither protocol takes"
            raise InputTypeError(msg)
    for spec in (A, B):
        if isinstance(spec, str):
            _build(spec, k, eps, params)


def _boundary_point(k: int, *, a: Any, b: Any, options: dict, params: dict) -> dict[str, Any]:
    r = refinement_boundary(a, b, k, **options, **params)
    return {
        "eps_star": math.nan if r.eps is None else r.eps,
        "lo": r.lo,
        "hi": r.hi,
        "holds_lo": r.holds_lo,
        "holds_hi": r.holds_hi,
        "evaluations": len(r.evaluations),
        "note": r.note or None,
    }


def boundary_curve(
    A: Any,
    B: Any,
    ks: Any,
    lo: float,
    hi: float,
    tol: float = 1e-3,
    *,
    executor: Any = None,
    progress: bool = True,
    time_limit: float = 60.0,
    representation: str = "protocol",
    **params: Any,
) -> pd.DataFrame:
    """k ↦ eps*(k): :func:`refinement_boundary` at every k, through :func:`qifldp.sweep`.

    Parameters
    ----------
    A, B, lo, hi, tol, time_limit, representation, **params
        As for :func:`refinement_boundary`.
    ks : list of int
        Domain sizes, each >= 2.
    executor, progress
        As for :func:`qifldp.sweep`.

    Returns
    -------
    pandas.DataFrame
        One row per k: ``k``, ``eps_star`` (NaN when no change was bracketed),
        ``lo``, ``hi``, ``holds_lo``, ``holds_hi`` (verdicts of A ⊑ B at the final
        bracket), ``evaluations`` (refinements run), ``note`` and ``error``.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`refinement_boundary` and :func:`qifldp.sweep`.

    Examples
    --------
    >>> import concurrent.futures as cf
    >>> import qifldp as q
    >>> with cf.ThreadPoolExecutor(1) as pool:
    ...     c = q.boundary_curve("sue", "oue", [2], 2.0, 12.0, tol=1.0, executor=pool,
    ...                          progress=False)
    >>> c[["k", "holds_lo", "holds_hi"]].values.tolist()  # SUE ⊑ OUE at every eps at k = 2
    [[2, True, True]]
    """
    k_list = _values("ks", ks, integer=True)
    lo_, hi_, tol_ = _check_bracket(lo, hi, tol)
    time_limit = _check_seconds("time_limit", time_limit)
    representation = _check_representation(representation)
    _check_specs(A, B, k_list[0], lo_, params)
    options = {
        "lo": lo_,
        "hi": hi_,
        "tol": tol_,
        "time_limit": time_limit,
        "representation": representation,
    }
    fn = functools.partial(_boundary_point, a=A, b=B, options=options, params=params)
    return sweep(
        fn,
        {"k": k_list},
        executor=executor,
        progress=progress,
        chunksize=1,
        warm=warm_refinement,
    )
