"""Former home of :mod:`qifldp.simulation.util` (kept for the modules that import it)."""

from __future__ import annotations

from .util import CHUNK_CELLS, MEMORY_BUDGET_BYTES, as_array, as_rng, check_memory

__all__ = ["CHUNK_CELLS", "MEMORY_BUDGET_BYTES", "as_array", "as_rng", "check_memory"]
