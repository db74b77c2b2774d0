"""Simulation kernels (layer L4): sampling, counting, rates, data and RNG helpers.

May import the layers below (channel, measures, errors, validation); never the
protocols, the faces or anything above (the kinds symmetric and symbolic neither).

Each protocol samples, estimates, computes its variance and attacks its own
reports: ``q.protocol("oue", k, eps).sample(xs)``, ``.estimate(reports)``,
``.variance(n, f)``, ``.support_probabilities()``, ``.attack(reports)``, all
implemented in its family module of :mod:`qifldp.protocols` on the kernels here.
The flat names ``sample_grr`` ... ``sample_the``, ``estimate_*``, ``variance_*``,
``*_pq_star``, ``attack_*`` are one-line aliases onto those methods, with their
former signatures, values and errors: they live in :mod:`qifldp.faces.simulation`
and are attached to this package from above (``from qifldp.simulation import
sample_oue`` works once ``qifldp`` is imported, which any import of this package does).

What is generic lives here and serves every protocol: client side
(:mod:`.samplers`): :func:`sample` through any explicit channel, local
hashing's reports :class:`LHReports` and the universal hash family; server side
(:mod:`.estimators`): :func:`support_counts`, :func:`calibrate`,
:func:`frequency_variance`, :func:`project_simplex` and the matrix-inversion
estimator for any channel; attacks (:mod:`.attacks`): the Bayes-optimal guess
for any channel and the empirical success rate; the shared input checks
(:mod:`.util`).

Data (:mod:`.data`): FIMI transaction files (Kosarak) and synthetic Zipf data.

Memory: every function sizes its work by the data (users, subset sizes, observed
values), not by the domain size k alone, and checks each array it must allocate
against :data:`MEMORY_BUDGET_BYTES` (1 GiB) *before* allocating; beyond it a
:class:`~qifldp.errors.SizeError` names the size and what to do instead (fewer
users per call, ``support_counts(..., sparse=True)`` for huge domains).

>>> import qifldp as q
>>> from qifldp.simulation import zipf_data, sample_oue, estimate_oue
>>> xs = zipf_data(100_000, 10, 1.0, rng=0)
>>> f_hat = estimate_oue(sample_oue(xs, 10, 2.0, rng=1), 2.0)
>>> bool(abs(f_hat[0] - (xs == 0).mean()) < 0.02)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dispatch import module_getattr
from . import attacks, categorical, data, estimators, keyvalue, samplers
from .attacks import *  # noqa: F403 (the names of attacks.__all__)
from .categorical import *  # noqa: F403
from .data import *  # noqa: F403
from .estimators import *  # noqa: F403
from .keyvalue import *  # noqa: F403
from .samplers import *  # noqa: F403
from .util import MEMORY_BUDGET_BYTES

__all__ = [
    "MEMORY_BUDGET_BYTES",
    *samplers.__all__,
    *estimators.__all__,
    *attacks.__all__,
    *data.__all__,
    *categorical.__all__,
    *keyvalue.__all__,
]


#: The constructors and flat names this package receives from above (``qifldp.faces``).
__getattr__: Callable[[str], Any] = module_getattr(__name__)
