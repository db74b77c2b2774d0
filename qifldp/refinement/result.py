"""Result objects of the refinement checks: the verdict with its verified certificate."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import singledispatch
from typing import Any

import numpy as np

from ..channel import as_channel
from ..deadline import reached
from ..digits import scientific
from ..dispatch import kind_rank
from ..errors import ChannelError, InputTypeError
from .exact import exact_weighted_gap, rational_rows
from .explain import explanation_data

__all__ = [
    "undecided_result",
    "recheck_gain",
    "recheck_matrix_gain",
    "Counterexample",
    "RefinementResult",
    "WITNESS_ENTRY_ATOL",
    "WITNESS_ROW_SUM_ATOL",
    "WITNESS_RESIDUAL_ATOL",
    "TOLERANCES",
]

#: A returned witness W has every entry >= -WITNESS_ENTRY_ATOL (API.md).
WITNESS_ENTRY_ATOL: float = 1e-9
#: ... every row of W sums to 1 within WITNESS_ROW_SUM_ATOL (average-case only).
WITNESS_ROW_SUM_ATOL: float = 1e-9
#: ... and |A·W − B| <= WITNESS_RESIDUAL_ATOL entrywise.
WITNESS_RESIDUAL_ATOL: float = 1e-7

#: The three tolerances as a dict, as stored in every result.
TOLERANCES: dict[str, float] = {
    "entry": WITNESS_ENTRY_ATOL,
    "row_sum": WITNESS_ROW_SUM_ATOL,
    "residual": WITNESS_RESIDUAL_ATOL,
}


def _shape(obj: Any) -> str:
    """'r actions x c inputs' for a gain matrix (or the type name of another representation)."""
    shape = getattr(obj, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 2:
        return f"{_count(shape[0])} actions x {_count(shape[1])} inputs"
    return type(obj).__name__


def _num(v: Any, fmt: str = ".3g") -> str:
    return "n/a" if v is None else format(v, fmt)


def _count(n: Any) -> str:
    """A dimension for display: exact up to 10^9, else in scientific notation (beyond a
    float too: an OLH witness at k = 10^4 has 8^10001 rows).

    >>> _count(12), _count(2**40), _count(8**10_001)
    ('12', '1.1e+12', '6.35e+9031')
    """
    try:
        return str(n) if n < 10**9 else f"{float(n):.3g}"
    except OverflowError:
        return scientific(Fraction(int(n)), 3)
    except TypeError:
        return str(n)


@dataclass(frozen=True, repr=False)
class Counterexample:
    """An adversary under which B leaks strictly more than A.

    Attributes
    ----------
    gain : numpy.ndarray, shape (n_actions, n_inputs)
        ``gain[w, x]``; entries in [-1, 1] (scaled so that the largest magnitude is 1).
    prior : numpy.ndarray, shape (n_inputs,)
        The prior (uniform unless one was given).
    gap : float
        Average case: V_g[π▷B] − V_g[π▷A], recomputed with
        :func:`qifldp.g_vulnerability` on the channels as given.
        Max case: V_g^max[π▷B] − V_g^max[π▷A] (posterior max-case vulnerabilities).
    gap_exact : fractions.Fraction or None
        The same gap computed in exact rational arithmetic from the stored
        floats of the gain, the prior and the channels (rows divided by their
        exact sums), when the exact check was run.
    gap_bound : float
        A rigorous bound on the floating-point error of ``gap``'s evaluation;
        ``gap > gap_bound`` proves the gap positive without rational arithmetic.
    kind : str
        ``"average"`` (a g-vulnerability) or ``"max-case"``.
    vulnerability_a, vulnerability_b : float
        V_g[π▷A] and V_g[π▷B] (average case).
    gain_exact, prior_exact : tuple of tuple of Fraction, tuple of Fraction, or None
        An *exact certificate*: set when the stored floats fail exactly but no
        float gain keeps a positive gap (the pair fails by less than the
        resolution of a float gain). ``gain_exact``/``prior_exact`` are the
        rational Farkas gain and prior, ``gap_exact`` their exact gap (> 0);
        ``gain`` and ``prior`` are their float images and ``gap`` is
        ``float(gap_exact)``. :meth:`recheck` recomputes the exact gap.
        For a symmetric gain (:class:`qifldp.symmetric.SymmetricGain`, from the
        symmetric route) ``gain_exact`` is ``(g_in, g_out)``: two tuples of
        Fraction, one value per action size of ``gain.sizes`` (g(T, x) is
        ``g_in[i]`` for x in T, ``g_out[i]`` otherwise, |T| = ``sizes[i]``), and
        ``prior_exact`` is None (the prior is uniform).

    Examples
    --------
    >>> import qifldp as q
    >>> ce = q.refines(q.grr(3, 1.0), q.grr(3, 2.0)).counterexample
    >>> ce.gain.shape[1], bool(ce.gap > 0)
    (3, True)
    >>> ce.recheck(q.grr(3, 1.0), q.grr(3, 2.0)) > 0
    True
    """

    #: numpy.ndarray here; a SymmetricGain from qifldp.symmetric.refines (Any: both routes)
    gain: Any
    prior: np.ndarray
    gap: float
    gap_exact: Fraction | None = None
    gap_bound: float = 0.0
    kind: str = "average"
    vulnerability_a: float = float("nan")
    vulnerability_b: float = float("nan")
    gain_exact: tuple[tuple[Fraction, ...], ...] | None = None
    prior_exact: tuple[Fraction, ...] | None = None

    @property
    def float_certificate(self) -> bool:
        """False when only the rational gain (``gain_exact``) carries the gap."""
        return self.gain_exact is None

    def recheck(self, A: Any, B: Any) -> Fraction:
        """The exact gap of this counterexample on the channels A, B as given.

        Each stored float is read as the rational it holds and each channel row
        is divided by its exact sum; the gain and prior are ``gain_exact`` and
        ``prior_exact`` when set, else the stored floats of ``gain`` and
        ``prior``. The certificate is valid iff the value is > 0.

        A symmetric gain is re-checked on the stored class masses of two
        symmetric channels, over every output class, action size and extreme
        overlap (:func:`recheck_gain` dispatches on the gain's type).

        Parameters
        ----------
        A, B : Channel or array_like
            The pair the counterexample was returned for (SymmetricChannels for a
            symmetric gain).

        Returns
        -------
        fractions.Fraction
            V_g[π▷B] − V_g[π▷A] (max case: of the posterior max-case vulnerabilities).

        Examples
        --------
        >>> import qifldp as q
        >>> A, B = q.grr(3, 1.0), q.grr(3, 2.0)
        >>> q.refines(A, B).counterexample.recheck(A, B) > 0
        True
        """
        return recheck_gain(self.gain, self, A, B)

    def __repr__(self) -> str:
        exact = "" if self.gap_exact is None else f", exact gap {scientific(self.gap_exact, 6)} > 0"
        if self.gain_exact is not None:
            exact += ", rational gain (no float gain keeps the gap)"
        return f"Counterexample({self.kind}: gain {_shape(self.gain)}, gap {self.gap:.6g}{exact})"


@singledispatch
def recheck_gain(gain: Any, ce: Counterexample, A: Any, B: Any) -> Fraction:
    """The exact gap of ``ce`` (whose gain is ``gain``) on A, B: :meth:`Counterexample.recheck`.

    Dispatched on the gain's type: an explicit gain matrix here; other kinds register
    theirs (the symmetric gain, from :mod:`qifldp.symmetric`).

    >>> recheck_gain("g", None, None, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: recheck needs a gain matrix or a registered gain kind; ...
    """
    msg = (
        "recheck needs a gain matrix or a registered gain kind; this counterexample's gain "
        f"is a {type(gain).__name__}"
    )
    raise InputTypeError(msg)


@recheck_gain.register(np.ndarray)
def _recheck_matrix(gain: np.ndarray, ce: Counterexample, A: Any, B: Any) -> Fraction:
    return recheck_matrix_gain(A, gain, ce, B)


@singledispatch
def recheck_matrix_gain(A: Any, gain: np.ndarray, ce: Counterexample, B: Any) -> Fraction:
    """The exact gap of ``ce`` (a gain matrix) on A, B, dispatched on A's kind.

    Explicit channels and arrays here; a channel kind that returns gain matrices
    registers its own (the symmetric max-case gain, on the stored class masses).

    >>> import qifldp as q
    >>> A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    >>> ce = q.max_case_refines(A, B).counterexample
    >>> recheck_matrix_gain(A, ce.gain, ce, B) > 0
    True
    """
    Aq = rational_rows(as_channel(A, "A").matrix)
    Bq = rational_rows(as_channel(B, "B").matrix)
    if ce.gain_exact is not None and ce.prior_exact is not None:
        g = [list(r) for r in ce.gain_exact]
        pi = list(ce.prior_exact)
    else:
        g = [[Fraction(float(v)) for v in r] for r in gain]
        pi = [Fraction(float(v)) for v in ce.prior]
    if len(pi) != len(Aq) or len(Bq) != len(Aq) or any(len(r) != len(Aq) for r in g):
        msg = (
            f"A and B must have the counterexample's {len(pi)} inputs (rows), got "
            f"{len(Aq)} and {len(Bq)}"
        )
        raise ChannelError(msg)
    Hpi = [[gw[x] * pi[x] for x in range(len(pi))] for gw in g]
    return exact_weighted_gap(Aq, Bq, Hpi, ce.kind == "average", pi)


@dataclass(frozen=True, repr=False)
class RefinementResult:
    """The verdict on A ⊑ B (or A ⊑max B) and its verified certificate.

    Truthy iff the refinement holds. Exactly one of ``witness`` and
    ``counterexample`` is set.

    Attributes
    ----------
    holds : bool or None
        The verdict, exact for the channels as given (see ``exact`` and the
        Notes of :func:`qifldp.refines`); None when the pair is *undecided*
        (``strict=False`` and no certificate either way within the budgets:
        ``certified_by`` says why and ``details["undecided"]`` what was tried).
        An undecided result is falsy, like one that fails.
    witness : numpy.ndarray or None, shape (|Y_A|, |Y_B|)
        Average case: a row-stochastic W with A·W = B; max case: R >= 0 with
        A·R = B; in the original output order of both channels. Verified:
        entries >= -1e-9, rows summing to 1 within 1e-9 (average case) and
        |A·W − B| <= 1e-7 entrywise (see ``tolerances``).
    counterexample : Counterexample or None
        A gain function and a prior under which B leaks more than A.
    relation : str
        ``"refinement"`` or ``"max-case refinement"``.
    method : str
        Which engine produced the certificate (``"highs"``, ``"entropic"``,
        ``"exact"``, ``"identical"``, ``"no-leak"``, ...).
    exact : bool
        True when the verdict was proved in rational arithmetic (an exact
        witness checked entry by entry, or an exact positive gap); False when it
        rests on the floating-point certificate described by ``certified_by``.
    certified_by : str
        How the verdict was certified.
    residual : float or None
        max |A·W − B| of the returned witness (against the channels as given).
    row_sum_error : float or None
        max |W·1 − 1| of the returned witness (average case).
    min_entry : float or None
        Smallest entry of the returned witness.
    tolerances : dict
        The witness tolerances (``entry``, ``row_sum``, ``residual``).
    time : float
        Wall-clock seconds.
    exact_witness : tuple of tuple of Fraction or None
        The rational witness on the reduced channels, when one was computed.
    up_to_rounding : bool
        True when the verdict is stated *up to rounding*: the stored floats of
        the two channels lie within the rounding band of the refinement
        boundary, so rational arithmetic on them and the real-number protocols
        they approximate may disagree. ``holds`` is then the verdict on channels
        within that band (e.g. ``olh(2, 2) ⊑ oue(2, 2)``, true of the real
        protocols, which their stored floats fail by 1e-18); ``certified_by`` states
        the band and what the stored floats give exactly. False for every verdict
        certified on the channels as given: an exact certificate, or (``exact`` None,
        the default) a witness within the rounding band, which does not ask whether
        the stored floats also refine exactly (``exact=True`` asks, and then says
        "up to rounding" where they do not; ``method="exact"`` answers for the
        stored floats alone).
    about : str
        What the verdict is about: ``"channels"`` (the channels as given, i.e.
        their stored floats), ``"protocols"`` (the real-number protocols they
        were built from, decided from their exact parameters) or ``"rounding"``
        (with ``up_to_rounding``).
    details : dict
        Engine details (iterations, reduced shapes, ...).
    trace : tuple of (str, str)
        The decision pipeline of explicit refinement, step by step: one
        ``(strategy, outcome)`` pair per strategy in order ("exact method",
        "orbits", "quick", "forced", "min-norm", "engine highs", "engine entropic", ...,
        "exact", "exact confirmation"), the outcome being ``"decided"``,
        ``"skipped: <why>"``, ``"undecided: <why>"`` or ``"failed: <error>"``; the
        last entry decided. Empty for verdicts not reached by that pipeline
        (symmetric, symbolic and protocol routes).

    Examples
    --------
    >>> import qifldp as q
    >>> r = q.refines(q.grr(3, 2.0), q.grr(3, 1.0))
    >>> bool(r), r.witness.shape, r.relation
    (True, (3, 3), 'refinement')
    >>> r.trace[-1][1]
    'decided'
    """

    holds: bool | None
    #: numpy.ndarray, or an OrbitWitness from qifldp.symmetric.refines (Any: both routes)
    witness: Any = None
    counterexample: Counterexample | None = None
    relation: str = "refinement"
    method: str = ""
    exact: bool = False
    certified_by: str = ""
    residual: float | None = None
    row_sum_error: float | None = None
    min_entry: float | None = None
    tolerances: dict[str, float] = field(default_factory=lambda: dict(TOLERANCES))
    time: float = 0.0
    exact_witness: Any = None
    details: dict[str, Any] = field(default_factory=dict)
    up_to_rounding: bool = False
    about: str = "channels"
    trace: tuple[tuple[str, str], ...] = ()
    #: (A, B) as explicit Channels when the explicit route decided (for ``explain``)
    channels: Any = field(default=None, compare=False)

    def __bool__(self) -> bool:
        return bool(self.holds)

    @property
    def decided(self) -> bool:
        """False for an undecided result (``holds`` None, ``strict=False``)."""
        return self.holds is not None

    def with_channels(self, A: Any, B: Any) -> RefinementResult:
        """This result with the two channels it decided attached (used by :meth:`explain`).

        Parameters
        ----------
        A, B : Channel or array_like
            The channels of the pair, as given to :func:`qifldp.refines`.

        Returns
        -------
        RefinementResult
            A copy; ``channels`` is ``(A, B)`` as explicit Channels (symmetric
            channels are kept as they are).

        Examples
        --------
        >>> import qifldp as q
        >>> A, B = q.grr(3, 2.0), q.grr(3, 1.0)
        >>> q.refines(A, B).with_channels(A, B).channels[1].shape
        (3, 3)
        """

        def keep(C: Any, name: str) -> Any:
            if kind_rank(C):  # another kind (symmetric): kept as it is
                return C
            return as_channel(C, name)

        return replace(self, channels=(keep(A, "A"), keep(B, "B")))

    def explanation(
        self, A: Any = None, B: Any = None, *, names: tuple[str, str] = ("A", "B"), top: int = 6
    ) -> dict[str, Any]:
        """The numbers of :meth:`explain` as a JSON-ready dict (see :func:`explanation_data`).

        Examples
        --------
        >>> import qifldp as q
        >>> A, B = q.grr(3, 1.0), q.grr(3, 2.0)
        >>> q.refines(A, B).explanation()["kind"]
        'counterexample'
        """
        return explanation_data(self, A, B, names=names, top=top)

    def explain(
        self, A: Any = None, B: Any = None, *, names: tuple[str, str] = ("A", "B"), top: int = 6
    ) -> str:
        """A human-readable account of the certificate.

        For a counterexample: the gain normalised to [0, 1] (and what that does to
        the gap), the adversary's best action for each of the most likely outputs
        under each channel with the posteriors involved, and one sentence; for a
        witness: its sparsity pattern and which outputs of A merge into which
        outputs of B. Every number is recomputed from the certificate and the
        channels. Labels of inputs and outputs are used; large channels are
        summarised by their ``top`` entries.

        Parameters
        ----------
        A, B : Channel, optional
            The channels of the pair; needed only when the result does not carry
            them (``channels`` is None: symmetric, symbolic and protocol routes
            that rebuilt the result). Explicit channels give the per-output
            adversary; without them the account says what the certificate holds.
        names : (str, str)
            How to call A and B in the text (e.g. their protocol specs).
        top : int
            How many outputs, actions or merges to show (at least 1).

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            ``top`` < 1, or channels whose shapes do not match the certificate.
        InputTypeError
            ``names`` not two strings.

        Examples
        --------
        >>> import qifldp as q
        >>> A, B = q.grr(3, 1.0), q.grr(3, 2.0)
        >>> print(q.refines(A, B).explain().splitlines()[0])
        A ⋢ B: B leaks more than A to the adversary below.
        """
        return explanation_data(self, A, B, names=names, top=top)["text"]

    def __str__(self) -> str:
        text = repr(self)
        try:
            short = explanation_data(self)["summary"]
        except Exception:  # str() must never fail; the summary is a courtesy
            return text
        return f"{text}\n  in short: {short}"

    def __repr__(self) -> str:
        sym = "⊑" if self.relation == "refinement" else "⊑max"
        if self.holds is None:
            return (
                f"RefinementResult(A {sym}? B: undecided)\n  no certificate either way "
                f"({self.certified_by}); {self.time:.3g} s"
            )
        verdict = f"A {sym} B" if self.holds else f"A ⋢{sym[1:]} B"
        word = "holds" if self.holds else "fails"
        if self.up_to_rounding:
            word += " up to rounding"
        elif self.counterexample is not None and not self.counterexample.float_certificate:
            word += " (exact certificate: no float gain keeps the gap)"
        elif self.about != "channels":
            word += f" (about the {self.about})"
        lines = [f"RefinementResult({verdict}: {word})"]
        if self.witness is not None:
            shape = getattr(self.witness, "shape", None)
            kind = "W row-stochastic" if self.relation == "refinement" else "R >= 0"
            size = (
                f"{_count(shape[0])}x{_count(shape[1])} "
                if isinstance(shape, tuple) and len(shape) == 2
                else ""
            )
            text = (
                f"  witness: {size}{kind}, max|A·W − B| = {_num(self.residual)} "
                f"(tol {self.tolerances['residual']:g}), min entry {_num(self.min_entry)} "
                f"(tol −{self.tolerances['entry']:g})"
            )
            if self.row_sum_error is not None:
                text += (
                    f", max|W·1 − 1| = {_num(self.row_sum_error)} "
                    f"(tol {self.tolerances['row_sum']:g})"
                )
            lines.append(text)
        if self.counterexample is not None:
            ce = self.counterexample
            exact = "" if ce.gap_exact is None else f" (exact: {scientific(ce.gap_exact, 6)})"
            what = "V_g[π▷B] − V_g[π▷A]" if ce.kind == "average" else "V_g^max[π▷B] − V_g^max[π▷A]"
            lines.append(f"  counterexample: gain {_shape(ce.gain)}, {what} = {ce.gap:.6g}{exact}")
        lines.append(
            f"  certified: {'exact rational arithmetic' if self.exact else 'floating point'}"
            f" ({self.certified_by}); method {self.method}; {self.time:.3g} s"
        )
        return "\n".join(lines)


def undecided_result(error: Exception, relation: str, seconds: float) -> RefinementResult:
    """The result of a pair no route could decide (``strict=False``): ``holds`` None.

    ``certified_by`` carries the reason (the error ``strict=True`` raises) and, when
    the error carries the decision's ``trace`` (the steps run and what each found),
    the steps tried; ``details`` has ``undecided`` (that reason) and ``error`` (its
    type); ``trace`` is the error's trace; when the time limit was
    reached (:func:`qifldp.deadline.expired`) ``details`` also has ``cause`` "time" and
    ``tried``, the stages tried before it.

    Examples
    --------
    >>> r = undecided_result(RuntimeError("out of time"), "refinement", 1.0)
    >>> r.holds is None, bool(r), r.decided
    (True, False, False)
    """
    reason = str(error)
    trace = tuple(getattr(error, "trace", ()))
    tried = [
        f"{step} ({outcome.split(':')[0]})"
        for step, outcome in trace
        if not outcome.startswith("skipped")
    ]
    text = reason if not tried or "tried:" in reason else f"{reason}; tried: " + ", ".join(tried)
    details: dict[str, Any] = {"undecided": reason, "error": type(error).__name__}
    if reached(error):  # the time limit: say so, with the stages tried before it
        details.update(cause="time", tried=getattr(error, "tried", ()))
    return RefinementResult(
        holds=None,
        relation=relation,
        method="undecided",
        certified_by=text,
        time=seconds,
        details=details,
        trace=trace,
    )
