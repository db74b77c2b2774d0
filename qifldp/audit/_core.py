"""Verdict machinery of the audit: verdicts, claims, the registry, running and reporting."""

from __future__ import annotations

import functools
import math
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputTypeError, ParameterError, SolverError, VerificationError
from ..validation import check_bool
from .bibliography import BIBLIOGRAPHY, Reference, _lookup

__all__ = [
    "CONFIRMED",
    "RECONSTRUCTED",
    "CORRECTED",
    "CONDITIONAL",
    "REFUTED",
    "INCONCLUSIVE",
    "VERDICTS",
    "AGREE_RTOL",
    "DIFFER_RTOL",
    "AuditResult",
    "Claim",
    "claim",
    "registered",
    "get_claim",
    "audit",
    "format_audit",
    "format_markdown",
]

# -- verdict vocabulary --------------------------------------------------------------------
#: The statement holds as printed on every instance checked.
CONFIRMED = "confirmed"
#: The statement's formula is lost in the text extraction; the check confirms the formula
#: as we reconstructed it from what the text says about it (the reconstruction is stated in
#: ``details``). It is not a confirmation of the printed formula, which nobody here has seen.
#: A claim registered with ``reconstructed=...`` can never come out "confirmed".
RECONSTRUCTED = "reconstructed"
#: The statement holds once a number or formula in it is corrected; ``details`` gives
#: the correction (e.g. a stated bound that holds but is not the true value, or an
#: approximate limit whose exact value the library computes).
CORRECTED = "confirmed with correction"
#: The statement holds only under a condition the paper does not state; ``details``
#: opens with the condition and gives an instance outside it where the statement fails.
CONDITIONAL = "holds only when"
#: The statement fails; ``details`` gives the counterexample with its numbers.
REFUTED = "refuted"
#: The check could not decide: a solver failure, a float comparison inside the band
#: between AGREE_RTOL and DIFFER_RTOL, or a claim whose objects the source text does not
#: define well enough to build (``details`` says which and why). Never a hidden "no".
INCONCLUSIVE = "inconclusive"
#: All verdicts, from the strongest agreement to the failure to decide.
VERDICTS: tuple[str, ...] = (
    CONFIRMED,
    RECONSTRUCTED,
    CORRECTED,
    CONDITIONAL,
    REFUTED,
    INCONCLUSIVE,
)

# -- tolerances of float comparisons --------------------------------------------------------
#: Two floats a, b count as equal when |a - b| <= AGREE_RTOL * max(1, |a|, |b|). The
#: quantities compared (enumerated capacities, log-ratios of channel entries, closed forms)
#: are computed to ~1e-15 relative, so equal quantities meet this with six orders of
#: magnitude to spare.
AGREE_RTOL: float = 1e-9
#: ... and as different when |a - b| > DIFFER_RTOL * max(1, |a|, |b|). Between the two
#: thresholds a comparison is refused (the claim becomes "inconclusive"), so a verdict
#: never rests on a float comparison that rounding could flip. Exact claims are decided
#: in rational arithmetic instead (eps chosen with e^eps rational, so that every
#: channel entry is an exact rational).
DIFFER_RTOL: float = 1e-6


class _Undecided(VerificationError):
    """A float comparison fell inside the band where rounding could flip it."""


def _cmp(a: float, b: float, what: str = "values") -> int:
    """-1, 0, 1 for a < b, a = b, a > b under AGREE_RTOL / DIFFER_RTOL; raise in between."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        msg = f"{what}: NaN in the comparison of {a!r} and {b!r}"
        raise _Undecided(msg)
    if math.isinf(a) or math.isinf(b):
        return 0 if a == b else (1 if a > b else -1)
    scale = max(1.0, abs(a), abs(b))
    diff = a - b
    if abs(diff) <= AGREE_RTOL * scale:
        return 0
    if abs(diff) > DIFFER_RTOL * scale:
        return 1 if diff > 0 else -1
    msg = (
        f"{what}: {a!r} and {b!r} differ by {diff:.3g}, between AGREE_RTOL = {AGREE_RTOL:g} and "
        f"DIFFER_RTOL = {DIFFER_RTOL:g} (relative): refusing to decide"
    )
    raise _Undecided(msg)


# ------------------------------------------------------------------------------------------
# Result objects
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditResult:
    """The outcome of one claim's live check.

    Attributes
    ----------
    key : str
        Identifier of the claim (e.g. ``"qif.lemma11"``).
    claim : str
        The claim, in one sentence.
    source : str
        Citation and lemma / equation number.
    verdict : str
        One of :data:`VERDICTS`.
    details : str
        The numbers behind the verdict.
    seconds : float
        Wall-clock time of the check.
    references : tuple of str
        Keys of :data:`qifldp.audit.BIBLIOGRAPHY` the source cites.
    """

    key: str
    claim: str
    source: str
    verdict: str
    details: str
    seconds: float = 0.0
    references: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, str]:
        """The JSON record ``{claim, source, verdict, details}`` of ``qifldp audit --json``.

        Returns
        -------
        dict
            Four string entries.

        Examples
        --------
        >>> r = AuditResult("k", "c", "s", CONFIRMED, "d")
        >>> r.to_dict()
        {'claim': 'c', 'source': 's', 'verdict': 'confirmed', 'details': 'd'}
        """
        return {
            "claim": self.claim,
            "source": self.source,
            "verdict": self.verdict,
            "details": self.details,
        }


@dataclass(frozen=True)
class Claim:
    """A published claim and the procedure that checks it with the library.

    Attributes
    ----------
    key : str
        Identifier, unique in the registry.
    claim : str
        The claim, in one sentence.
    source : str
        Citation and lemma / equation number.
    procedure : callable
        ``procedure() -> (verdict, details)``; recomputes everything on each call.
    references : tuple of str
        Keys of :data:`qifldp.audit.BIBLIOGRAPHY` cited by ``source``.
    reconstructed : str or None
        When the formula checked is lost in the text extraction: how we reconstructed
        it. A "confirmed" outcome is then reported as :data:`RECONSTRUCTED`.
    """

    key: str
    claim: str
    source: str
    procedure: Callable[[], tuple[str, str]]
    references: tuple[str, ...] = ()
    reconstructed: str | None = None

    def check(self) -> AuditResult:
        """Recompute the claim now.

        Returns
        -------
        AuditResult
            The verdict with its numbers. A solver failure or an undecidable float
            comparison gives the verdict :data:`INCONCLUSIVE` (with the reason), never
            a "refuted". For a reconstructed formula "confirmed" becomes
            :data:`RECONSTRUCTED` and the reconstruction is appended to the details.

        Raises
        ------
        VerificationError
            The procedure returned a verdict outside :data:`VERDICTS`, or
            :data:`RECONSTRUCTED` for a claim registered without a reconstruction (a bug).

        Examples
        --------
        >>> c = Claim("t", "A claim.", "s", lambda: (CONFIRMED, "ok."), reconstructed="R.")
        >>> c.check().verdict
        'reconstructed'
        """
        t0 = time.perf_counter()
        try:
            verdict, details = self.procedure()
        except (SolverError, VerificationError) as exc:
            verdict, details = INCONCLUSIVE, f"could not decide: {exc}"
        if verdict not in VERDICTS:
            msg = f"claim {self.key!r} returned the verdict {verdict!r}, not one of {VERDICTS}"
            raise VerificationError(msg)
        if verdict == RECONSTRUCTED and not self.reconstructed:
            msg = f"claim {self.key!r} says {RECONSTRUCTED!r} but registers no reconstruction"
            raise VerificationError(msg)
        if self.reconstructed:
            if verdict == CONFIRMED:
                verdict = RECONSTRUCTED
            details = f"{details} Reconstruction: {self.reconstructed}"
        return AuditResult(
            self.key,
            self.claim,
            self.source,
            verdict,
            details,
            time.perf_counter() - t0,
            self.references,
        )


# ------------------------------------------------------------------------------------------
# The registry: each paper module registers its claims beside their checks
# ------------------------------------------------------------------------------------------
_REGISTRY: dict[str, Claim] = {}


def _source(where: Sequence[tuple[str, str]]) -> str:
    parts = []
    for ref_key, loc in where:
        if ref_key not in BIBLIOGRAPHY:
            msg = f"unknown reference {ref_key!r}; known: {', '.join(BIBLIOGRAPHY)}"
            raise ParameterError(msg)
        parts.append(f"{BIBLIOGRAPHY[ref_key].cite}, {loc}")
    return "; ".join(parts)


def claim(
    key: str,
    statement: str,
    *,
    paper: str,
    where: str,
    also: Sequence[tuple[str, str]] = (),
    reconstructed: str | None = None,
) -> Callable[[Callable[[], tuple[str, str]]], Callable[[], tuple[str, str]]]:
    """Register the decorated check as the procedure of a published claim.

    Parameters
    ----------
    key : str
        Unique identifier, ``"<paper>.<name>"``.
    statement : str
        The claim in one sentence, ending with a period.
    paper : str
        Key of :data:`qifldp.audit.BIBLIOGRAPHY`.
    where : str
        Lemma, equation or section in that paper.
    also : sequence of (str, str)
        Further (paper, where) sources of the same claim.
    reconstructed : str, optional
        How the formula checked was reconstructed when the text lost it.

    Returns
    -------
    callable
        The decorator; it returns the check unchanged.

    Raises
    ------
    ParameterError
        A duplicate key, an unknown paper, or a statement without a final period.

    Examples
    --------
    >>> get_claim("qif.eq25").references  # registered by qifldp.audit.qif_ldp_formulas
    ('qif',)
    """
    if key in _REGISTRY:
        msg = f"claim key {key!r} is registered twice"
        raise ParameterError(msg)
    if not statement.endswith("."):
        msg = f"claim {key!r}: the statement must be one sentence ending with a period"
        raise ParameterError(msg)
    sources = [(paper, where), *also]
    source = _source(sources)
    refs = tuple(dict.fromkeys(p for p, _ in sources))

    def register(fn: Callable[[], tuple[str, str]]) -> Callable[[], tuple[str, str]]:
        _REGISTRY[key] = Claim(key, statement, source, fn, refs, reconstructed)
        return fn

    return register


def _claim_each(
    check: Callable[[str], tuple[str, str]],
    variants: Sequence[tuple[str, str, str, str]],
    *,
    paper: str,
) -> None:
    """Register one claim per variant ``(key, statement, where, arg)``, checked by ``check(arg)``.

    For a paper that states the same kind of claim for several protocols, each checked by
    the same procedure with the protocol's name; registered in the order given.
    """
    for key, statement, where, arg in variants:
        claim(key, statement, paper=paper, where=where)(functools.partial(check, arg))


def registered() -> tuple[Claim, ...]:
    """All registered claims: paper by paper (bibliography order), in registration order.

    Returns
    -------
    tuple of Claim

    Examples
    --------
    >>> registered()[0].key
    'qif.lemma1'
    """
    order = {key: i for i, key in enumerate(BIBLIOGRAPHY)}
    return tuple(sorted(_REGISTRY.values(), key=lambda c: order[c.references[0]]))


def get_claim(key: str) -> Claim:
    """The registered claim with this key.

    Parameters
    ----------
    key : str
        E.g. ``"qif.eq25"``; :data:`qifldp.audit.CLAIMS` lists all.

    Returns
    -------
    Claim

    Raises
    ------
    InputTypeError, ParameterError
        As for :func:`qifldp.audit.reference`: ``key`` is not a string, or no claim has it.

    Examples
    --------
    >>> get_claim("qif.eq25").source
    "Gonze et al. (CSF 2026), Eq. 25 (Gursoy et al.'s formula)"
    """
    return _lookup(_REGISTRY, key, "claim")


def audit(claims: Iterable[Claim | str] | None = None) -> list[AuditResult]:
    """Check published claims of the four papers live with the library.

    Parameters
    ----------
    claims : iterable of Claim or str, optional
        Which claims (objects or keys of :data:`qifldp.audit.CLAIMS`); default all, in
        registry order.

    Returns
    -------
    list of AuditResult
        One per claim, in the order given.

    Raises
    ------
    InputTypeError
        ``claims`` is a string or holds something other than a Claim or a key.
    ParameterError
        An unknown key.

    Notes
    -----
    Verdicts (:data:`VERDICTS`): ``"confirmed"`` (holds as printed),
    ``"reconstructed"`` (the printed formula is lost in the text; the formula as we
    reconstructed it holds, the reconstruction given in ``details``),
    ``"confirmed with correction"`` (holds once a stated number or formula is
    corrected; the correction is in ``details``), ``"holds only when"`` (holds only
    under a condition the paper does not state, given first in ``details``, with a
    failing instance outside it), ``"refuted"`` (a counterexample in ``details``) and
    ``"inconclusive"`` (the check could not decide, or the text does not define what
    the claim is about; never a hidden "no").

    How verdicts are decided: exact rational arithmetic where possible (eps chosen
    with e^eps rational so that the channels are rational; exact refinement
    certificates from :func:`qifldp.symbolic.refines`, the exact 2x2 criterion of
    :func:`qifldp.tradeoff.refines_2x2`), LP certificates verified by
    :func:`qifldp.refines` and :func:`qifldp.symmetric.refines` (floating-point
    certificates, reported as such), and float comparisons only with the two-sided
    margin :data:`AGREE_RTOL` / :data:`DIFFER_RTOL`: a comparison between them is
    refused. The whole registry runs in about ten seconds.

    Examples
    --------
    >>> [r.verdict for r in audit(["qif.eq25", "qif.lemma11"])]
    ['refuted', 'confirmed']
    """
    if claims is None:
        chosen = list(registered())
    else:
        if isinstance(claims, (str, bytes)):
            msg = "claims must be an iterable of Claim objects or keys, not a single string"
            raise InputTypeError(msg)
        chosen = []
        for c in claims:
            if isinstance(c, Claim):
                chosen.append(c)
            elif isinstance(c, str):
                chosen.append(get_claim(c))
            else:
                msg = f"claims must hold Claim objects or keys (str), got {type(c).__name__}"
                raise InputTypeError(msg)
    return [c.check() for c in chosen]


# ------------------------------------------------------------------------------------------
# Reports
# ------------------------------------------------------------------------------------------
def _cited(results: Sequence[AuditResult]) -> list[Reference]:
    keys = dict.fromkeys(k for r in results for k in r.references)
    return [BIBLIOGRAPHY[k] for k in BIBLIOGRAPHY if k in keys]


def _summary(results: Sequence[AuditResult]) -> str:
    counts = [
        f"{sum(r.verdict == v for r in results)} {v}"
        for v in VERDICTS
        if any(r.verdict == v for r in results)
    ]
    n = len(results)
    return f"{n} claim{'s' if n != 1 else ''}: " + ", ".join(counts)


def _check_results(results: Any) -> list[AuditResult]:
    """``results`` as a list of AuditResult, or a clear InputTypeError."""
    if isinstance(results, (str, bytes)) or not hasattr(results, "__iter__"):
        msg = f"results must be a sequence of AuditResult, got {type(results).__name__}"
        raise InputTypeError(msg)
    results = list(results)
    for r in results:
        if not isinstance(r, AuditResult):
            msg = f"results must hold AuditResult objects (from audit()), got {type(r).__name__}"
            raise InputTypeError(msg)
    return results


def format_audit(results: Sequence[AuditResult], *, details: bool = True, width: int = 100) -> str:
    """A readable report of audit results (the text output of ``qifldp audit``).

    Parameters
    ----------
    results : sequence of AuditResult
    details : bool
        Print each claim's details under its row (default True).
    width : int
        Line width for wrapping, ``>= 60``.

    Returns
    -------
    str
        One block per claim (number, verdict, source, claim, details), the full
        references of the papers cited, and a summary line counting the verdicts.

    Raises
    ------
    ParameterError
        ``width < 60``.

    Examples
    --------
    >>> r = AuditResult("k", "A claim.", "Paper, Lemma 1", CONFIRMED, "Numbers.")
    >>> print(format_audit([r]))
     1  confirmed                  Paper, Lemma 1  [k]
        claim:   A claim.
        details: Numbers.
    <BLANKLINE>
    1 claim: 1 confirmed
    """
    if isinstance(width, bool) or not isinstance(width, int) or width < 60:
        msg = f"width must be an integer >= 60, got {width!r}"
        raise ParameterError(msg)
    results = _check_results(results)
    vw = max(len(v) for v in VERDICTS)
    lines = []
    indent = " " * 4
    for i, r in enumerate(results, 1):
        lines.append(f"{i:>2}  {r.verdict:<{vw}}  {r.source}  [{r.key}]")
        lines += textwrap.wrap(
            r.claim, width, initial_indent=indent + "claim:   ", subsequent_indent=indent + " " * 9
        )
        if details:
            lines += textwrap.wrap(
                r.details,
                width,
                initial_indent=indent + "details: ",
                subsequent_indent=indent + " " * 9,
            )
        lines.append("")
    refs = _cited(results)
    if refs:
        lines.append("References")
        for ref in refs:
            lines += textwrap.wrap(
                f"{ref.cite}: {ref.full}", width, initial_indent="  ", subsequent_indent=" " * 4
            )
        lines.append("")
    lines.append(_summary(results))
    return "\n".join(lines)


def _cell(text: str) -> str:
    """Text safe inside one Markdown table cell (pipes escaped, one line)."""
    return " ".join(str(text).split()).replace("\\", "\\\\").replace("|", "\\|")


def format_markdown(results: Sequence[AuditResult], *, details: bool = True) -> str:
    """The audit report as a Markdown table (``qifldp audit --markdown``).

    Parameters
    ----------
    results : sequence of AuditResult
    details : bool
        Include the details column (default True).

    Returns
    -------
    str
        A table with one row per claim (number, key, claim, source with its citation,
        verdict, details), then the full references of the cited papers and the
        summary line.

    Examples
    --------
    >>> r = AuditResult("k", "A | B.", "Paper, Lemma 1", REFUTED, "Numbers.")
    >>> print(format_markdown([r]))
    | # | key | claim | source | verdict | details |
    |---|---|---|---|---|---|
    | 1 | `k` | A \\| B. | Paper, Lemma 1 | refuted | Numbers. |
    <BLANKLINE>
    1 claim: 1 refuted
    """
    results = _check_results(results)
    details = check_bool("details", details)
    cols = ["#", "key", "claim", "source", "verdict"] + (["details"] if details else [])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for i, r in enumerate(results, 1):
        row = [str(i), f"`{r.key}`", _cell(r.claim), _cell(r.source), r.verdict]
        if details:
            row.append(_cell(r.details))
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    refs = _cited(results)
    if refs:
        lines.append("**References**")
        lines.append("")
        lines += [f"- **{ref.cite}**: {ref.full}" for ref in refs]
        lines.append("")
    lines.append(_summary(results))
    return "\n".join(lines)
