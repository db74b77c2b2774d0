"""Simulation of LDP protocols: client-side samplers, server-side estimators, attacks, data.

Client side (:mod:`.samplers`): randomise n users' values for each protocol
without building its channel (``sample_grr``, ``sample_ss``, ``sample_lh`` /
``sample_blh`` / ``sample_olh``, ``sample_ue`` / ``sample_sue`` / ``sample_oue``,
``sample_the``) or through any explicit channel (``sample``).

Server side (:mod:`.estimators`): unbiased frequency estimators
(``estimate_*``, ``estimate_inversion`` for any channel), their variance
(``variance_*``) and the projection onto the probability simplex.

Attacks (:mod:`.attacks`): the Bayes-optimal guess for any channel and the
plausible-deniability attacks of the literature, with the empirical success rate.

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

from ._util import MEMORY_BUDGET_BYTES
from .attacks import (
    TIE_RTOL,
    EmpiricalRate,
    attack_grr,
    attack_lh,
    attack_ss,
    attack_the,
    attack_ue,
    bayes_attack,
    empirical_asr,
    simulate_attack,
)
from .data import (
    Transactions,
    load_fimi,
    single_items,
    top_k_items,
    write_fimi,
    zipf_data,
    zipf_probabilities,
    zipf_transactions,
)
from .estimators import (
    RANK_RTOL,
    calibrate,
    estimate_grr,
    estimate_inversion,
    estimate_lh,
    estimate_oue,
    estimate_ss,
    estimate_sue,
    estimate_the,
    estimate_ue,
    frequency_variance,
    grr_pq_star,
    inversion_matrix,
    lh_pq_star,
    project_simplex,
    ss_pq_star,
    support_counts,
    variance_grr,
    variance_inversion,
    variance_lh,
    variance_oue,
    variance_ss,
    variance_sue,
    variance_the,
    variance_ue,
)
from .samplers import (
    DEFAULT_PRIME,
    LHReports,
    lh_collision_probability,
    sample,
    sample_blh,
    sample_grr,
    sample_lh,
    sample_olh,
    sample_oue,
    sample_ss,
    sample_sue,
    sample_the,
    sample_ue,
    universal_hash,
    universal_lh_channel,
)

__all__ = [
    "MEMORY_BUDGET_BYTES",
    # samplers
    "DEFAULT_PRIME",
    "LHReports",
    "sample",
    "sample_grr",
    "sample_ss",
    "sample_lh",
    "sample_blh",
    "sample_olh",
    "sample_ue",
    "sample_sue",
    "sample_oue",
    "sample_the",
    "universal_hash",
    "universal_lh_channel",
    "lh_collision_probability",
    # estimators
    "RANK_RTOL",
    "support_counts",
    "calibrate",
    "frequency_variance",
    "project_simplex",
    "grr_pq_star",
    "ss_pq_star",
    "lh_pq_star",
    "estimate_grr",
    "estimate_ss",
    "estimate_lh",
    "estimate_ue",
    "estimate_sue",
    "estimate_oue",
    "estimate_the",
    "variance_grr",
    "variance_ss",
    "variance_lh",
    "variance_ue",
    "variance_sue",
    "variance_oue",
    "variance_the",
    "inversion_matrix",
    "estimate_inversion",
    "variance_inversion",
    # attacks
    "TIE_RTOL",
    "EmpiricalRate",
    "bayes_attack",
    "attack_grr",
    "attack_ss",
    "attack_ue",
    "attack_the",
    "attack_lh",
    "empirical_asr",
    "simulate_attack",
    # data
    "Transactions",
    "load_fimi",
    "write_fimi",
    "single_items",
    "top_k_items",
    "zipf_probabilities",
    "zipf_data",
    "zipf_transactions",
]
