"""Audit of the papers' published claims: every lemma, formula and theorem recomputed live.

The verdict machinery lives in :mod:`qifldp.audit._core`; each source paper has one
module whose checks carry their claim in a ``@claim(...)`` decorator:
:mod:`~qifldp.audit.qif_ldp` (Gonze et al., CSF 2026), :mod:`~qifldp.audit.pckv`
(Gu et al., USENIX Security 2020), :mod:`~qifldp.audit.rr3` (Ma and Wang, arXiv 2021)
and :mod:`~qifldp.audit.multidim_risks` (Arcolezi et al., PVLDB 2023). The full
references are in :data:`BIBLIOGRAPHY`.

Examples
--------
>>> from qifldp import audit
>>> r = audit.get_claim("pckv.theorem3").check()
>>> r.verdict, r.source
('reconstructed', 'Gu et al. (USENIX Security 2020), Theorem 3 (Eq. 6)')
"""

from __future__ import annotations

from . import multidim_risks, pckv, qif_ldp, rr3  # noqa: F401  (registration, in this order)
from ._core import (
    AGREE_RTOL,
    CONDITIONAL,
    CONFIRMED,
    CORRECTED,
    DIFFER_RTOL,
    INCONCLUSIVE,
    RECONSTRUCTED,
    REFUTED,
    VERDICTS,
    AuditResult,
    Claim,
    audit,
    claim,
    format_audit,
    format_markdown,
    get_claim,
    registered,
)
from .bibliography import BIBLIOGRAPHY, Reference, reference

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
    "Claim",
    "AuditResult",
    "CLAIMS",
    "BIBLIOGRAPHY",
    "Reference",
    "reference",
    "claim",
    "registered",
    "get_claim",
    "audit",
    "format_audit",
    "format_markdown",
]

#: The registry: every checked claim of the four papers, in the order ``qifldp audit`` prints.
CLAIMS: tuple[Claim, ...] = registered()
