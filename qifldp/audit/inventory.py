"""The per-paper inventory: every checkable statement of the four papers, section by section.

The inventory (``inventory.json``) lists, paper by paper in the order of the text, each
statement the papers make: theorems, lemmas, corollaries, definitions, remarks, formulas,
prose about figures and tables, toy examples. Each entry either names the claims of the
claim table that check it (their verdicts are computed live by :func:`qifldp.audit.audit`)
or gives the reason it cannot be checked (a definition, an asymptotic statement, a
statement about real-world data, a formula not in the available text, ...). The table's
``numbered`` lists hold the numbered statements the papers' text extractions name
(derived by :func:`numbered_labels`); every one of them has an entry.

Examples
--------
>>> from qifldp.audit import inventory
>>> entries = inventory.entries("qif")
>>> entries[0].place, bool(entries[0].claims or entries[0].reason)
('Sec. I (ε only bounds worst-case distinguishability)', True)
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..errors import VerificationError
from ..validation import check_name
from ._core import AuditResult, _check_results, registered
from .bibliography import BIBLIOGRAPHY

__all__ = ["Statement", "entries", "numbered", "numbered_labels", "format_inventory", "records"]

_FILE = "inventory.json"

#: Kinds of numbered statement :func:`numbered_labels` collects from a text extraction.
_KINDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Definition", "Remark", "Algorithm")


@dataclass(frozen=True)
class Statement:
    """One statement of a paper.

    Attributes
    ----------
    paper : str
        Key of :data:`qifldp.audit.BIBLIOGRAPHY`.
    section : str
        The section it is in.
    place : str
        Its label (``"Lemma 4"``, ``"Eq. (26)"``, ``"Sec. VII-A, Fig. 4"``...).
    statement : str
        What it says, in one sentence.
    claims : tuple of str
        Keys of the claims that check it (empty when it cannot be checked).
    reason : str
        Why it cannot be checked (empty when ``claims`` is not).
    """

    paper: str
    section: str
    place: str
    statement: str
    claims: tuple[str, ...] = ()
    reason: str = ""


@functools.cache
def _table() -> dict[str, Any]:
    table: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath(_FILE).read_text(encoding="utf-8")
    )
    return table


@functools.cache
def _all() -> dict[str, tuple[Statement, ...]]:
    out = {}
    for paper, rows in _table()["papers"].items():
        out[paper] = tuple(
            Statement(
                paper,
                row["section"],
                row["place"],
                row["statement"],
                tuple(row.get("claims", ())),
                row.get("reason", ""),
            )
            for row in rows
        )
    return out


def entries(paper: str | None = None) -> tuple[Statement, ...]:
    """The inventory's statements, of one paper or of all (bibliography order).

    Parameters
    ----------
    paper : str, optional
        Key of :data:`qifldp.audit.BIBLIOGRAPHY`.

    Returns
    -------
    tuple of Statement

    Raises
    ------
    InputTypeError, ParameterError
        ``paper`` is not a string, or not a paper of the inventory.

    Examples
    --------
    >>> len(entries("rr3")) > 10
    True
    """
    table = _all()
    if paper is not None:
        return table[check_name("paper", paper, table, "paper")]
    return tuple(s for p in BIBLIOGRAPHY for s in table.get(p, ()))


def numbered(paper: str) -> tuple[str, ...]:
    """The numbered statements the paper's text extraction names (stored with the inventory).

    Parameters
    ----------
    paper : str

    Returns
    -------
    tuple of str
        E.g. ``("Lemma 1", "Lemma 2", ...)``.

    Examples
    --------
    >>> "Corollary 3" in numbered("qif")
    True
    """
    table = _table()["numbered"]
    return tuple(table[check_name("paper", paper, table, "paper")])


def numbered_labels(text: str) -> list[str]:
    """The numbered statements a text names: ``Theorem N``, ``Lemma N``, ... (sorted, unique).

    Parameters
    ----------
    text : str
        A paper's text extraction.

    Returns
    -------
    list of str

    Examples
    --------
    >>> numbered_labels("By Lemma 2 and Theorem 10, Lemma 2 again; Def. 3; Remark 1; Fig.4")
    ['Fig. 4', 'Lemma 2', 'Remark 1', 'Theorem 10']
    """
    text = text.replace("\u00a0", " ")  # no-break spaces of the extractions
    found = {f"{k} {n}" for k, n in re.findall(rf"\b({'|'.join(_KINDS)}) (\d+)\b", text)}
    found |= {f"Fig. {n}" for n in re.findall(r"\b(?:Fig\.|Figure) ?(\d+)\b", text)}
    return sorted(found)


def _check() -> None:
    """Every entry names known claims or a reason, and every claim of the papers is listed.

    Claims of papers outside the inventory (the later oracles' references, whose texts the
    project does not hold) are not required to appear.
    """
    covered = set(_table()["papers"])  # the four papers whose texts the inventory reads
    known = {c.key for c in registered()}
    keys = {c.key for c in registered() if c.references[0] in covered}
    listed: set[str] = set()
    for s in entries():
        if bool(s.claims) == bool(s.reason):
            msg = f"inventory entry {s.paper} {s.place!r}: give claims or a reason, not both"
            raise VerificationError(msg)
        unknown = [k for k in s.claims if k not in known]
        if unknown:
            msg = f"inventory entry {s.paper} {s.place!r} names unknown claims {unknown}"
            raise VerificationError(msg)
        listed.update(s.claims)
    missing = sorted(keys - listed)
    if missing:
        msg = f"claims not in the per-paper inventory: {missing}"
        raise VerificationError(msg)
    for paper in _table()["numbered"]:
        places = " | ".join(s.place for s in entries(paper))
        absent = [label for label in numbered(paper) if not re.search(rf"\b{label}\b", places)]
        if absent:
            msg = f"numbered statements of {paper} without an inventory entry: {absent}"
            raise VerificationError(msg)


def _verdicts(s: Statement, by_key: Mapping[str, AuditResult]) -> str:
    return "; ".join(f"{by_key[k].verdict} [{k}]" for k in s.claims if k in by_key)


def records(results: Sequence[AuditResult]) -> dict[str, list[dict[str, Any]]]:
    """The inventory as JSON records, per paper, with the verdicts of ``results``.

    Parameters
    ----------
    results : sequence of AuditResult
        From :func:`qifldp.audit.audit` (all claims, for every verdict to be filled in).

    Returns
    -------
    dict
        ``{paper: [{section, place, statement, claims, verdicts, reason}, ...]}``.

    Examples
    --------
    >>> recs = records([])
    >>> sorted(recs["qif"][0])
    ['claims', 'place', 'reason', 'section', 'statement', 'verdicts']
    """
    by_key = {r.key: r for r in _check_results(results)}
    out: dict[str, list[dict[str, Any]]] = {}
    for s in entries():
        out.setdefault(s.paper, []).append(
            {
                "section": s.section,
                "place": s.place,
                "statement": s.statement,
                "claims": list(s.claims),
                "verdicts": {k: by_key[k].verdict for k in s.claims if k in by_key},
                "reason": s.reason,
            }
        )
    return out


def summary(paper: str) -> str:
    """``"qif: 60 statements, 52 checked by claims, 8 not checkable"``.

    Examples
    --------
    >>> summary("rr3").startswith("rr3: ")
    True
    """
    rows = entries(paper)
    checked = sum(bool(s.claims) for s in rows)
    return (
        f"{paper}: {len(rows)} statements, {checked} checked by claims, "
        f"{len(rows) - checked} not checkable"
    )


def format_inventory(results: Sequence[AuditResult], *, width: int = 100) -> str:
    """The per-paper inventory as text: each statement with its verdicts or its reason.

    Parameters
    ----------
    results : sequence of AuditResult
        The verdicts to show (statements whose claims are not among them show the keys).
    width : int
        Line width for wrapping.

    Returns
    -------
    str

    Examples
    --------
    >>> format_inventory([]).splitlines()[0].startswith("Per-paper inventory: every statement")
    True
    """
    by_key = {r.key: r for r in _check_results(results)}
    lines = [
        "Per-paper inventory: every statement of the four papers, with its verdicts or the "
        "reason it cannot be checked",
        "",
    ]
    for paper in BIBLIOGRAPHY:
        if paper not in _all():
            continue
        lines.append(f"{BIBLIOGRAPHY[paper].cite} — {summary(paper)}")
        for s in entries(paper):
            head = f"  {s.section} | {s.place}: "
            tail = _verdicts(s, by_key) or ", ".join(s.claims) or f"not checkable: {s.reason}"
            lines += textwrap.wrap(
                f"{head}{s.statement} -> {tail}", width, subsequent_indent=" " * 6
            )
        lines.append("")
    return "\n".join(lines).rstrip()
