"""Audit of the papers' published claims: every lemma, formula and theorem recomputed live.

The verdict machinery lives in :mod:`qifldp.audit._core`. The claims themselves are data:
one row each in the claim table ``claims.json`` (key, paper, place, statement, and how a
formula not legible in the paper's available text was reconstructed). Each source paper
has one module whose checks are bound to their rows by key (``@checks("qif.lemma1")``):
:mod:`~qifldp.audit.qif_ldp`, :mod:`~qifldp.audit.qif_ldp_formulas` and
:mod:`~qifldp.audit.converses` (the converses of its implications) (Gonze et al.,
CSF 2026), :mod:`~qifldp.audit.pckv`
(Gu et al., USENIX Security 2020), :mod:`~qifldp.audit.rr3` (Ma and Wang, arXiv 2021)
and :mod:`~qifldp.audit.multidim_risks` (Arcolezi et al., PVLDB 2023); the later
frequency oracles' papers (RAPPOR, the longitudinal L-* protocols, dBitFlip, Hadamard
Response, Apple's Count Mean Sketches, the Hadamard mechanism) in
:mod:`~qifldp.audit.oracles`. The full references are in :data:`BIBLIOGRAPHY`.

Layer L8 (consumers): may import every layer below (the faces included) but not the
package root; nothing in the package imports it.

Examples
--------
>>> from qifldp import audit
>>> r = audit.get_claim("pckv.theorem3").check()
>>> r.verdict, r.source
('reconstructed', 'Gu et al. (USENIX Security 2020), Theorem 3 (Eq. 6)')
"""

from __future__ import annotations

from . import (  # noqa: F401  (registration, in this order)
    _core,
    _verdicts,
    bibliography,
    converses,
    inventory,
    multidim_risks,
    oracles,
    pckv,
    pckv_prose,
    qif_ldp,
    qif_ldp_formulas,
    qif_prose,
    risks_prose,
    rr3,
)
from ._core import (
    AuditResult as AuditResult,
    Claim as Claim,
    audit as audit,
    claim as claim,
    format_audit as format_audit,
    format_markdown as format_markdown,
    get_claim as get_claim,
    registered as registered,
)
from ._verdicts import (
    AGREE_RTOL as AGREE_RTOL,
    CONDITIONAL as CONDITIONAL,
    CONFIRMED as CONFIRMED,
    CORRECTED as CORRECTED,
    DIFFER_RTOL as DIFFER_RTOL,
    INCONCLUSIVE as INCONCLUSIVE,
    RECONSTRUCTED as RECONSTRUCTED,
    REFUTED as REFUTED,
    VERDICTS as VERDICTS,
)
from .bibliography import (
    BIBLIOGRAPHY as BIBLIOGRAPHY,
    Reference as Reference,
    reference as reference,
)

_core._register_table()
inventory._check()

__all__ = [*_verdicts.__all__, *_core.__all__, "CLAIMS", *bibliography.__all__]

#: The registry: every checked claim of the papers, in the order ``qifldp audit`` prints.
CLAIMS: tuple[Claim, ...] = registered()
