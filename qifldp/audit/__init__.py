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

from . import _core, bibliography, multidim_risks, pckv, qif_ldp, rr3  # noqa: F401  (registration, in this order)
from ._core import AGREE_RTOL as AGREE_RTOL
from ._core import CONDITIONAL as CONDITIONAL
from ._core import CONFIRMED as CONFIRMED
from ._core import CORRECTED as CORRECTED
from ._core import DIFFER_RTOL as DIFFER_RTOL
from ._core import INCONCLUSIVE as INCONCLUSIVE
from ._core import RECONSTRUCTED as RECONSTRUCTED
from ._core import REFUTED as REFUTED
from ._core import VERDICTS as VERDICTS
from ._core import AuditResult as AuditResult
from ._core import Claim as Claim
from ._core import audit as audit
from ._core import claim as claim
from ._core import format_audit as format_audit
from ._core import format_markdown as format_markdown
from ._core import get_claim as get_claim
from ._core import registered as registered
from .bibliography import BIBLIOGRAPHY as BIBLIOGRAPHY
from .bibliography import Reference as Reference
from .bibliography import reference as reference

__all__ = [*_core.__all__, "CLAIMS", *bibliography.__all__]

#: The registry: every checked claim of the four papers, in the order ``qifldp audit`` prints.
CLAIMS: tuple[Claim, ...] = registered()
