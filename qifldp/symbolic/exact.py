"""Exact refinement of channels with rational entries (the symbolic-side entry point).

The channels are converted to exact ``Fraction`` rows (a :class:`SymbolicChannel`
without parameters and with rational entries, or a matrix of exact numbers) and
decided by the refinement package, with every certificate re-checked here in
rational arithmetic against the *rational* channels (not their float images):

1. the floating engine :func:`qifldp.refines` (``exact=False``) on the float
   images; its witness is re-solved exactly on its support
   (:func:`qifldp.refinement.exact.exact_verify_witness`), or the gap of its
   separating gain and prior (rationalised, the prior renormalised exactly) is
   computed exactly and must be > 0;
2. when that does not verify (near-degenerate pairs such as e^eps = 10^6 versus
   10^6 + 1, where the float images are within rounding),
   :func:`qifldp.refinement.exact.exact_decide` decides in rational arithmetic
   (closed form A⁻¹B for full column rank, else a rational simplex whose final dual
   is a Farkas certificate), and its certificate is checked again.

For two secrets the verdict is also compared with the exact trade-off criterion of
:mod:`qifldp.tradeoff` (QIF paper Lemma 1); a disagreement raises. A verdict is never
returned without a certificate that passed the exact check.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..alignment import align_inputs
from ..channel import Channel
from ..errors import ChannelError, InputTypeError, ParameterError, SolverError, VerificationError
from ..refinement.core import refinement_options, refines as float_refines
from ..refinement.exact import exact_decide, exact_verify_witness
from ..refinement.explain import explain_refinement
from ..tradeoff import refines_binary
from .channel import SymbolicChannel, as_symbolic

__all__ = [
    "ExactRefinement",
    "ExactCounterexample",
    "refines",
    "refines_symbolic",
    "to_fractions",
]


@dataclass(frozen=True)
class ExactCounterexample:
    """A gain function and prior under which B leaks strictly more than A (exact)."""

    gain: list[list[Fraction]]
    prior: list[Fraction]
    gap: Fraction


@dataclass(frozen=True)
class ExactRefinement:
    """The exact verdict on A ⊑ B with its checked certificate.

    Attributes
    ----------
    holds : bool
        True iff B = A·W for a row-stochastic W.
    witness : list of list of Fraction or None
        W with A·W = B exactly.
    counterexample : ExactCounterexample or None
        Gain and prior with V_g[π▷B] − V_g[π▷A] = gap > 0, exactly.
    method : str
        Which route produced the certificate: ``"float witness re-solved exactly"``,
        ``"float counterexample, exact gap"``, or ``"exact: ..."`` (the rational
        decision of :func:`qifldp.refinement.exact.exact_decide`).
    """

    holds: bool
    witness: list[list[Fraction]] | None
    counterexample: ExactCounterexample | None
    method: str

    def __bool__(self) -> bool:
        return self.holds

    def __repr__(self) -> str:
        what = "witness W" if self.holds else f"counterexample gap {self.counterexample.gap}"  # type: ignore[union-attr]
        return f"ExactRefinement(holds={self.holds}, {what}, method={self.method!r})"

    def explain(self, A: Any = None, B: Any = None, **options: Any) -> str:
        """A human-readable account of the certificate (pass A and B for the adversary's
        action per output); see :func:`qifldp.refinement.explain.explain_refinement`.

        >>> import sympy as sp, qifldp.symbolic as s
        >>> r = s.refines(s.grr(3, sp.log(4)), s.grr(3, sp.log(2)))
        >>> r.explain().splitlines()[0]
        'A ⊑ B: B = A·W for the row-stochastic W below (exact rationals).'
        """
        return explain_refinement(self, A, B, **options)


def to_fractions(C: Any, name: str = "C") -> list[list[Fraction]]:
    """Exact rational rows of a channel: a SymbolicChannel, or a matrix of exact numbers.

    Parameters
    ----------
    C : SymbolicChannel, sympy Matrix, or nested sequence of ints/Fractions/sympy Rationals
        Or an explicit ``qifldp.Channel``: its rows read exactly as stored
        (:func:`qifldp.symbolic.channel.as_symbolic`).
    name : str
        The argument's name, for error messages.

    Returns
    -------
    list of list of Fraction

    Raises
    ------
    ChannelError
        Non-rational entries, negative entries or rows not summing exactly to 1.
    ParameterError
        Free parameters remain.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> to_fractions([[F(1, 3), F(2, 3)], [1, 0]])
    [[Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 1), Fraction(0, 1)]]
    """
    if isinstance(C, np.ndarray) and C.dtype != object:
        msg = (
            f"{name} must have exact entries (ints, Fractions, sympy Rationals), not a float "
            "array (wrap it in qifldp.Channel to read the stored floats exactly)"
        )
        raise InputTypeError(msg)
    return as_symbolic(C, name).to_fractions()


# -- exact checks ------------------------------------------------------------------------------
def _g_vuln(rows: list[list[Fraction]], G: list[list[Fraction]], prior: list[Fraction]) -> Fraction:
    """V_g[π▷C] = Σ_y max_w Σ_x π_x C[x, y] g(w, x), exactly."""
    n, m = len(rows), len(rows[0])
    total = Fraction(0)
    for y in range(m):
        total += max(sum((prior[x] * rows[x][y] * g[x] for x in range(n)), Fraction(0)) for g in G)
    return total


def _witness_ok(a: list[list[Fraction]], b: list[list[Fraction]], W: list[list[Fraction]]) -> bool:
    n, m, l = len(a), len(a[0]), len(b[0])
    return (
        len(W) == m
        and all(len(r) == l for r in W)
        and all(v >= 0 for r in W for v in r)
        and all(sum(r) == 1 for r in W)
        and all(
            sum((a[x][y] * W[y][j] for y in range(m)), Fraction(0)) == b[x][j]
            for x in range(n)
            for j in range(l)
        )
    )


def _counterexample(
    a: list[list[Fraction]], b: list[list[Fraction]], G: list[list[Fraction]], prior: list[Fraction]
) -> ExactCounterexample | None:
    gap = _g_vuln(b, G, prior) - _g_vuln(a, G, prior)
    return ExactCounterexample(G, prior, gap) if gap > 0 else None


def _agree(expected: bool | None, holds: bool) -> None:
    if expected is not None and expected != holds:
        msg = (
            f"exact certificate says holds={holds} but the trade-off criterion says "
            f"{expected}; please report"
        )
        raise VerificationError(msg)


def refines(A: Any, B: Any) -> ExactRefinement:
    """Decide A ⊑ B exactly for channels with rational entries, with a checked certificate.

    Parameters
    ----------
    A, B : SymbolicChannel (no free parameters, rational entries), sympy Matrix
        or nested sequences of exact numbers (ints, Fractions, sympy Rationals),
        or explicit ``qifldp.Channel`` objects (read exactly as stored); same
        inputs: rows are matched by label when both carry custom labels (as in
        :func:`qifldp.refines`), else by position.

    Returns
    -------
    ExactRefinement
        Truthy iff A ⊑ B; ``.witness`` (exact W with A·W = B) or
        ``.counterexample`` (exact gain and prior, gap > 0).

    Raises
    ------
    ChannelError
        Different numbers of inputs, non-rational entries, rows not summing to 1.
    ParameterError
        Free parameters remain (substitute them first).
    VerificationError
        The pair is near-degenerate and too large for rational arithmetic
        (:data:`qifldp.refinement.EXACT_MAX_OPS`), or a certificate failed its check.

    Notes
    -----
    See the module docstring: the floating engine of :mod:`qifldp.refinement`
    proposes, exact rational arithmetic disposes. Cost: one LP plus an exact
    solve on the witness's support, or an exact gap O(|W| |X| |Y|); the rational
    fallback is bounded by ``EXACT_MAX_OPS``.

    Examples
    --------
    >>> import sympy as sp
    >>> from qifldp import symbolic
    >>> A = symbolic.grr(3, sp.log(4))   # entries 2/3, 1/6
    >>> B = symbolic.grr(3, sp.log(2))   # entries 1/2, 1/4
    >>> r = symbolic.refines(A, B)
    >>> r.holds, r.witness[0]
    (True, [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)])
    >>> symbolic.refines(B, A).counterexample.gap > 0
    True
    """
    A, B = align_inputs(as_symbolic(A, "A"), as_symbolic(B, "B"), what="symbolic.refines")
    a, b = to_fractions(A, "A"), to_fractions(B, "B")
    n = len(a)
    if len(b) != n:
        msg = f"A and B must have the same inputs: A has {n} rows, B has {len(b)}"
        raise ChannelError(msg)
    expected = None
    if n == 2:
        expected = bool(refines_binary(a, b))
    # 1. floating certificate, re-checked exactly on the rational channels
    r = None
    try:
        with warnings.catch_warnings():  # a float engine's warnings are moot: re-checked below
            warnings.simplefilter("ignore", RuntimeWarning)
            r = float_refines(
                Channel([[float(v) for v in row] for row in a]),
                Channel([[float(v) for v in row] for row in b]),
                exact=False,
                strict=True,
            )
    except (VerificationError, SolverError):
        r = None
    if r is not None and r.holds:
        W = exact_verify_witness(a, b, np.asarray(r.witness))
        if W is not None and _witness_ok(a, b, W):
            _agree(expected, True)
            return ExactRefinement(True, W, None, "float witness re-solved exactly")
    elif r is not None:
        cx = r.counterexample
        prior = [Fraction(float(v)) for v in cx.prior]
        total = sum(prior)
        prior = [v / total for v in prior]
        G = [[Fraction(float(g)) for g in row] for row in np.asarray(cx.gain)]
        found = _counterexample(a, b, G, prior)
        if found is not None:
            _agree(expected, False)
            return ExactRefinement(False, None, found, "float counterexample, exact gap")
    # 2. rational decision
    out = exact_decide(a, b)
    how = f"exact: {out.how}"
    if out.holds:
        if out.W is not None and _witness_ok(a, b, out.W):
            _agree(expected, True)
            return ExactRefinement(True, [list(r_) for r_ in out.W], None, how)
    elif out.H is not None:
        # H is the prior-weighted gain H[w][x] = π_x g(w, x); take π uniform, g = n H
        prior = [Fraction(1, n)] * n
        G = [[n * h for h in row] for row in out.H]
        found = _counterexample(a, b, G, prior)
        if found is not None:
            _agree(expected, False)
            return ExactRefinement(False, None, found, how)
    msg = f"the exact certificate ({how}) failed its re-check; please report"
    raise VerificationError(msg)


def refines_symbolic(A: Any, B: Any, prior: Any = None, **options: Any) -> Any:
    """:func:`qifldp.refines` of a pair with a symbolic channel (registered by
    :mod:`qifldp.symbolic`).

    Decided exactly in rationals by :func:`qifldp.symbolic.refines`; the channels
    must have no free parameters. ``options`` are the keyword options of
    :func:`qifldp.refines` (``method``, ``exact``, ``max_iter``, ``time_limit``); only
    the default ``method`` is accepted, and no prior.

    Examples
    --------
    >>> import sympy as sp, qifldp as q
    >>> from qifldp import symbolic
    >>> bool(q.refines(symbolic.grr(3, sp.log(4)), symbolic.grr(3, sp.log(2))))
    True
    """
    opts = refinement_options("refines_symbolic", options)
    A, B = align_inputs(A, B, what="refines")
    if prior is not None or opts["method"] != "auto":
        msg = "refinement of symbolic channels takes no prior or method option"
        raise ParameterError(msg)
    for name, C in (("A", A), ("B", B)):
        free = C.free_symbols if isinstance(C, SymbolicChannel) else frozenset()
        if free:
            syms = ", ".join(sorted(map(str, free)))
            msg = (
                f"{name} has free parameters ({syms}): substitute numbers with .subs(...) "
                "for an exact decision, or .evaluate(...) for a float one"
            )
            raise ParameterError(msg)
    return refines(A, B)
