"""Verdict machinery of the audit: claims, the claim table, the registry, running and reporting."""

from __future__ import annotations

import functools
import json
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeVar

from ..errors import InputTypeError, ParameterError, SolverError, VerificationError
from ..validation import check_bool, check_name
from ._verdicts import CONFIRMED, INCONCLUSIVE, RECONSTRUCTED, VERDICTS
from .bibliography import BIBLIOGRAPHY, Reference, _lookup

__all__ = [
    "AuditResult",
    "Claim",
    "claim",
    "registered",
    "get_claim",
    "audit",
    "format_audit",
    "format_markdown",
]


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
        When the formula checked is not legible in the paper's available text: how we reconstructed
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
# The registry: the claim table's rows, each with the check bound to its key
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
        How the formula checked was reconstructed when the paper's available text does not show it.

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


#: The claim table: one row a published claim (see its "about" entry), in print order.
_TABLE = "claims.json"
#: Checks bound to claim keys by :func:`checks`, waiting for their rows of the table.
_CHECKS: dict[str, Callable[..., tuple[str, str]]] = {}

_Check = TypeVar("_Check", bound=Callable[..., tuple[str, str]])


@functools.cache
def _table() -> dict[str, Any]:
    """The claim table, read once from the package's ``claims.json``."""
    table: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath(_TABLE).read_text(encoding="utf-8")
    )
    return table


def reconstruction(name: str) -> str:
    """How a formula not legible in the paper's text was reconstructed (the claim table's text).

    Parameters
    ----------
    name : str
        Key of the table's ``reconstructions``, ``"<paper>.<formula>"``.

    Returns
    -------
    str
        The reconstruction, as the verdicts of the claims that rest on it state it.

    Raises
    ------
    InputTypeError, ParameterError
        ``name`` is not a string, or no reconstruction has it.

    Examples
    --------
    >>> reconstruction("risks.eq4").startswith("Eq. 4 is not legible in the paper")
    True
    """
    texts = _table()["reconstructions"]
    return str(texts[check_name("name", name, texts, "reconstruction")])


def checks(*keys: str) -> Callable[[_Check], _Check]:
    """Bind the decorated function as the check of the claim table's rows ``keys``.

    The row's metadata (statement, paper, place, reconstruction) stays in the table; the
    check is called with no argument, or with the row's ``argument`` when it has one (one
    check serving the same kind of claim about several protocols).

    Parameters
    ----------
    *keys : str
        Keys of rows of the claim table, at least one.

    Returns
    -------
    callable
        A decorator that records the function under each key and hands it back as it was.

    Raises
    ------
    ParameterError
        No key, or a key already bound to a check. A row without a check, or a check
        without a row, is refused when the package registers the table.

    Examples
    --------
    >>> from qifldp.audit import qif_ldp
    >>> _CHECKS["qif.lemma1"] is qif_ldp._check_lemma1
    True
    """
    if not keys:
        msg = "checks needs at least one claim key"
        raise ParameterError(msg)
    bound = [k for k in keys if k in _CHECKS]
    if bound:
        msg = f"claim keys {bound} are bound to a check twice"
        raise ParameterError(msg)

    def bind(fn: _Check) -> _Check:
        _CHECKS.update(dict.fromkeys(keys, fn))
        return fn

    return bind


def _register_table() -> None:
    """Register every row of the claim table with the check bound to its key."""
    rows = _table()["claims"]
    keys = [row["key"] for row in rows]
    unbound = [k for k in keys if k not in _CHECKS]
    unlisted = [k for k in _CHECKS if k not in keys]
    if unbound or unlisted:
        msg = (
            f"the claim table and the checks disagree: rows without a check {unbound}, "
            f"checks without a row {unlisted}"
        )
        raise VerificationError(msg)
    for row in rows:
        fn = _CHECKS[row["key"]]
        if "argument" in row:
            fn = functools.partial(fn, row["argument"])
        recon = " ".join(reconstruction(r) for r in row.get("reconstructed", ()))
        claim(
            row["key"],
            row["statement"],
            paper=row["paper"],
            where=row["where"],
            also=[tuple(a) for a in row.get("also", ())],
            reconstructed=recon or None,
        )(fn)


def registered() -> tuple[Claim, ...]:
    """All registered claims: paper by paper (bibliography order), in the claim table's order.

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
    """Check published claims of the papers live with the library.

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
    ``"reconstructed"`` (the printed formula is not legible in the paper's available
    text; the formula as reconstructed it holds, the reconstruction given in ``details``),
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
    refused. The whole registry runs in about fifteen seconds.

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
    >>> from qifldp.audit import REFUTED
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
