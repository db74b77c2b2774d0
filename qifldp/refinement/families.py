"""Refinement families: check that a mechanism gets safer as eps decreases, with certificates."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError
from ..validation import check_bool, check_eps
from .core import refines

__all__ = ["FamilyStep", "FamilyResult", "check_refinement_family"]


@dataclass(frozen=True)
class FamilyStep:
    """One consecutive pair of the grid: the verdict of M(eps_large) ⊑ M(eps_small).

    Attributes
    ----------
    eps_large, eps_small : float
        eps_large > eps_small, neighbours in the grid.
    result : object
        What the decision function returned (a ``RefinementResult`` by default,
        truthy iff the refinement holds, with its certificate).
    reverse : object or None
        With ``strict=True``: the verdict of M(eps_small) ⊑ M(eps_large), which
        a strict family must refute.
    """

    eps_large: float
    eps_small: float
    result: Any
    reverse: Any = None

    @property
    def holds(self) -> bool:
        """Whether M(eps_large) ⊑ M(eps_small)."""
        return bool(self.result)


@dataclass(frozen=True, repr=False)
class FamilyResult:
    """Outcome of :func:`check_refinement_family`.

    Attributes
    ----------
    holds : bool
        M(eps) ⊑ M(eps') for all eps >= eps' in the grid (and, with
        ``strict=True``, never the reverse for eps > eps').
    eps : tuple of float
        The grid, ascending.
    steps : tuple of FamilyStep
        One per consecutive pair, each with its certificate. By transitivity of
        refinement (compose the witnesses) they cover every pair of the grid.
    strict : bool
        Whether the reverse direction was checked too.
    """

    holds: bool
    eps: tuple[float, ...]
    steps: tuple[FamilyStep, ...]
    strict: bool = False

    def __bool__(self) -> bool:
        return self.holds

    @property
    def certificates(self) -> list[Any]:
        """The results of the forward checks, in grid order."""
        return [s.result for s in self.steps]

    @property
    def failures(self) -> list[FamilyStep]:
        """Steps where the forward refinement fails or (strict) the reverse holds."""
        return [s for s in self.steps if not s.holds or (self.strict and bool(s.reverse))]

    def witness(self, eps_large: float, eps_small: float) -> np.ndarray:
        """Compose the step witnesses into W with M(eps_large)·W = M(eps_small).

        Parameters
        ----------
        eps_large, eps_small : float
            Grid points with eps_large >= eps_small.

        Returns
        -------
        numpy.ndarray
            Product of the consecutive witnesses (row-stochastic).

        Raises
        ------
        ParameterError
            Points not on the grid, in the wrong order, or a step without a witness.

        Examples
        --------
        >>> import qifldp as q
        >>> r = check_refinement_family(lambda e: q.grr(3, e), [1.0, 2.0, 3.0])
        >>> W = r.witness(3.0, 1.0)
        >>> bool(abs(q.grr(3, 3.0).matrix @ W - q.grr(3, 1.0).matrix).max() < 1e-7)
        True
        """
        try:
            i, j = self.eps.index(float(eps_small)), self.eps.index(float(eps_large))
        except ValueError:
            msg = f"eps_large = {eps_large} and eps_small = {eps_small} must be grid points"
            raise ParameterError(msg) from None
        if j < i:
            msg = f"eps_large must be >= eps_small, got {eps_large} < {eps_small}"
            raise ParameterError(msg)
        W = None
        for step in reversed(self.steps[i:j]):  # from eps_large down to eps_small
            Wi = getattr(step.result, "witness", None)
            if Wi is None:
                msg = f"step {step.eps_large} -> {step.eps_small} has no witness"
                raise ParameterError(msg)
            Wi = np.asarray(Wi, dtype=np.float64)
            W = Wi if W is None else W @ Wi
        if W is None:
            msg = "eps_large equals eps_small: the witness is the identity"
            raise ParameterError(msg)
        return W

    def __repr__(self) -> str:
        grid = ", ".join(f"{e:g}" for e in self.eps)
        bad = self.failures
        tail = "" if not bad else f"; fails at {[(s.eps_large, s.eps_small) for s in bad]}"
        kind = "strict refinement family" if self.strict else "refinement family"
        return f"FamilyResult({'is' if self.holds else 'is not'} a {kind} on eps = [{grid}]{tail})"


def _strict_refines(A: Any, B: Any) -> Any:
    """:func:`qifldp.refines` that raises on an undecided pair (``strict=True``)."""
    return refines(A, B, strict=True)


def decider(decide: Callable[[Any, Any], Any] | None) -> Callable[[Any, Any], Any]:
    """``decide``, :func:`qifldp.refines` when None; InputTypeError when not callable."""
    if decide is None:
        return _strict_refines
    if not callable(decide):
        msg = f"decide must be callable (A, B) -> verdict, got {type(decide).__name__}"
        raise InputTypeError(msg)
    return decide


def check_refinement_family(
    mechanism: Callable[[float], Any],
    eps_grid: Iterable[float],
    *,
    decide: Callable[[Any, Any], Any] | None = None,
    strict: bool = False,
) -> FamilyResult:
    """Check that ``mechanism`` is a refinement family on a grid of eps values.

    A family is a refinement family (the paper's Def. 10) when eps >= eps' implies
    M(eps) ⊑ M(eps'): lowering eps is a post-processing.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(eps)`` returns the channel at ``eps`` (e.g.
        ``lambda e: q.grr(4, e)``); all channels share their inputs.
    eps_grid : iterable of float
        At least two distinct values ``>= 0``, any order.
    decide : callable, optional
        ``decide(A, B)`` returns a truthy certificate iff A ⊑ B. Default:
        :func:`qifldp.refines` (witness or counterexample, verified). For 2x2
        channels :func:`qifldp.tradeoff.refines_2x2` is an exact shortcut.
    strict : bool
        Also check that the reverse fails for every consecutive pair
        (M(eps') ⋢ M(eps) for eps > eps').

    Returns
    -------
    FamilyResult
        Truthy iff the family property holds on the grid; ``steps`` carry the
        certificates of each consecutive pair.

    Raises
    ------
    InputTypeError
        ``mechanism`` or ``decide`` not callable.
    ParameterError
        Fewer than two distinct eps, or a negative/NaN eps.

    Notes
    -----
    Only consecutive pairs are decided (n - 1 decisions, or 2(n - 1) with
    ``strict``): refinement is transitive (A·W = B and B·V = C give A·(WV) = C),
    so the steps certify every pair; :meth:`FamilyResult.witness` composes them.

    Examples
    --------
    Binary randomized response, decided by the exact 2x2 criterion:

    >>> import numpy as np
    >>> from qifldp.tradeoff import refines_2x2
    >>> def rr(eps):
    ...     p = 1 / (1 + np.exp(-eps))
    ...     return [[p, 1 - p], [1 - p, p]]
    >>> check_refinement_family(rr, [0.5, 1, 2], decide=refines_2x2, strict=True)
    FamilyResult(is a strict refinement family on eps = [0.5, 1, 2])
    """
    if not callable(mechanism):
        msg = f"mechanism must be callable (eps -> channel), got {type(mechanism).__name__}"
        raise InputTypeError(msg)
    decide = decider(decide)
    strict = check_bool("strict", strict)
    if isinstance(eps_grid, (str, bytes)) or not hasattr(eps_grid, "__iter__"):
        msg = f"eps_grid must be an iterable of numbers, got {type(eps_grid).__name__}"
        raise InputTypeError(msg)
    grid = sorted({check_eps(e, "eps_grid entry") for e in eps_grid})
    if len(grid) < 2:
        msg = f"eps_grid must hold at least two distinct values, got {grid}"
        raise ParameterError(msg)
    channels = [mechanism(e) for e in grid]
    steps = []
    for i in range(len(grid) - 1):
        small, large = channels[i], channels[i + 1]
        forward = decide(large, small)
        reverse = decide(small, large) if strict else None
        steps.append(FamilyStep(grid[i + 1], grid[i], forward, reverse))
    holds = all(s.holds for s in steps) and not (strict and any(bool(s.reverse) for s in steps))
    return FamilyResult(holds, tuple(grid), tuple(steps), bool(strict))
