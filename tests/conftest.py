"""Test configuration shared by every test package.

BLAS threads: the suite limits OpenBLAS/MKL/OpenMP to one thread each (unless
the variables are already set), before numpy is first imported. Several test
processes share the machine's cores, and a multi-threaded BLAS on a small
dense solve only spins: measured on 2 shared cores (load 6-8), a dense 600 x 4000
``lstsq`` (the former witness polish of a 20x200 vs 20x20 refinement) took 16 s
with the default threads and 2 s with one; that refinement took 25 s and 1.9 s
(0.55 s and 0.22 s with the sparse polish, benchmarks/bench_polish.py). pytest
loads this file (``testpaths`` includes ``tests``) before it collects the
doctests of ``qifldp``, so numpy is not imported yet; ``THREAD_LIMITED``
records whether the limit took effect (tests/refinement/test_blas_threads.py).

Hypothesis runs derandomized by default, so CI sees the same examples on every
run (no flaky red from a new random draw); set HYPOTHESIS_PROFILE=explore to
search with fresh random examples locally.
"""

import os
import sys

_BLAS_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
#: True when the BLAS thread variables were set before numpy was loaded (they then apply).
THREAD_LIMITED: bool = "numpy" not in sys.modules
for _var in _BLAS_THREAD_VARS:
    os.environ.setdefault(_var, "1")

from hypothesis import settings  # noqa: E402 - after the BLAS thread limit

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest  # noqa: E402


@pytest.fixture
def ticks():
    """Every time limit measured on a :class:`qifldp.deadline.TickClock` in the test: a
    ``time_limit`` of n allows n clock readings (the checks between steps), whatever the
    machine's speed or load; the solvers get no wall-clock limit and maps decide in the
    test's process. Yields the clock (``.readings`` counts the checks)."""
    from qifldp.deadline import TickClock, use_clock

    with use_clock(TickClock()) as clock:
        yield clock
