"""Studies over whole parameter spaces: the sweep engine, comparability maps, the
boundary of a refinement by bisection, Monte Carlo at scale.

Layer L6 (studies): imports from the protocols (L5) and below, never from the faces
(``qifldp.mechanisms``, ``qifldp.formulas``, the package root) or the consumers.

- :mod:`.engine`: :func:`sweep`, a function at every point of a grid, on a process
  pool, any ``concurrent.futures.Executor`` or a Dask ``distributed.Client``;
- :mod:`.comparability`: :func:`comparability_map`, A ⊑ B and B ⊑ A over (k, eps),
  with the certificates of :mod:`.certificates`, each refinement in its warmed
  worker's process under its one deadline, or on request stopped at a hard time limit
  in a forked child (:mod:`.time_limited`);
- :mod:`.boundary`: :func:`refinement_boundary` and :func:`boundary_curve`, the eps
  where a verdict changes, by bisection;
- :mod:`.monte_carlo`: :func:`simulate_counts`, n users (10^9 and beyond) in seeded
  blocks;
- :mod:`.utility`: :func:`mean_variance`, :func:`variance_crossing`,
  :func:`utility_table`, the oracles' utility (mean estimator variance) over eps;
- :func:`channel_free_decision` and :func:`restriction_refutation`, re-exported from
  :mod:`qifldp.protocols.structure` (protocol-level refinement where the channels are
  too large to build: from the protocols' structure, on a few inputs), which the atlas
  takes as ``q.refines`` on protocol objects and the command line do;
- ``qifldp.sweeps.atlas``: the comparability atlas of the frequency oracles, every
  ordered pair at equal eps over a grid of (k, eps), certified or stated undecided;
  its failures by the capacity or a two-point prior proved by
  :mod:`qifldp.protocols.structure.rigorous_gaps` (float values with rigorous rounding
  bounds, exact values).
"""

from __future__ import annotations

from ..protocols.structure.channel_free import ChannelFree, channel_free_decision
from ..protocols.structure.restriction import Restriction, restriction_refutation
from .boundary import RefinementBoundary, boundary_curve, refinement_boundary
from .certificates import CERTIFICATE_COLUMNS, certificate_digest
from .comparability import RELATIONS, REPRESENTATIONS, comparability_map
from .engine import CANCELLED, sweep
from .monte_carlo import (
    MAX_USERS,
    SimulatedCounts,
    allocate_users,
    block_seed,
    simulate_counts,
)
from .time_limited import hard_time_limit
from .utility import mean_variance, utility_table, variance_crossing

__all__ = [
    # the engine
    "CANCELLED",
    "sweep",
    # comparability maps
    "CERTIFICATE_COLUMNS",
    "RELATIONS",
    "REPRESENTATIONS",
    "certificate_digest",
    "comparability_map",
    "hard_time_limit",
    # the boundary of a refinement
    "RefinementBoundary",
    "boundary_curve",
    "refinement_boundary",
    # protocols whose channels are too large: from their structure, on a few inputs
    "ChannelFree",
    "Restriction",
    "channel_free_decision",
    "restriction_refutation",
    # Monte Carlo at scale
    "MAX_USERS",
    "SimulatedCounts",
    "allocate_users",
    "block_seed",
    "simulate_counts",
    # utility over eps
    "mean_variance",
    "utility_table",
    "variance_crossing",
]
