"""One BLAS thread in each worker of a sweep's own process pool.

The default pool of :func:`qifldp.sweep` runs one worker per core; a multi-threaded
BLAS inside each worker oversubscribes the cores, and OpenBLAS's threads spin while
they wait: on 2 shared cores under load, small refinements (16x256 vs 16x32 up to
50x200 vs 50x200) took 2-9x longer with OpenBLAS's default threads than with one
(benchmarks/bench_maps.py prints the map with both). Dask's nanny already starts its
worker processes with ``OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = MKL_NUM_THREADS = 1``
(``distributed.nanny.pre-spawn-environ``); this module does the same for the workers
of the default pool. They are forked from the caller's process, where numpy is
loaded already, so the variables alone would not reach the OpenBLAS libraries loaded
before the fork: those are set through their own ``openblas_set_num_threads``.

A thread count the caller's environment sets explicitly is respected.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys

__all__ = ["THREAD_VARIABLES", "one_blas_thread", "openblas_libraries"]

#: The environment variables that set the thread count of a BLAS loaded after them.
THREAD_VARIABLES: tuple[str, ...] = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

#: The setter of the thread count as OpenBLAS builds export it (numpy's and scipy's
#: wheels bundle ``scipy_openblas`` with a prefix and, for 64-bit integers, a suffix).
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def openblas_libraries() -> list[str]:
    """The OpenBLAS libraries loaded in this process (paths): read from
    ``/proc/self/maps`` where it exists, else the libraries bundled with the loaded
    numpy and scipy wheels.

    Returns
    -------
    list of str
        Sorted paths; empty when no OpenBLAS is found (another BLAS, or none loaded).

    Examples
    --------
    >>> import numpy
    >>> all("openblas" in path.lower() for path in openblas_libraries())
    True
    """
    try:
        with open("/proc/self/maps") as fh:
            found = {line.split()[-1] for line in fh if "openblas" in line.lower()}
        return sorted(p for p in found if os.path.isfile(p))
    except OSError:
        pass
    found = set()
    for name in ("numpy", "scipy"):
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if where is None:
            continue
        root = os.path.dirname(where)
        for folder in (root + ".libs", os.path.join(root, ".dylibs")):
            found.update(glob.glob(os.path.join(folder, "*openblas*")))
    return sorted(found)


def one_blas_thread() -> int:
    """Give this process one BLAS thread, unless its environment sets a thread count.

    Sets :data:`THREAD_VARIABLES` to 1 (for a BLAS loaded later, and the processes this
    one starts) and calls ``openblas_set_num_threads(1)`` in every OpenBLAS already
    loaded. Run by the workers of :func:`qifldp.sweep`'s own process pool before their
    first point; never in the caller's process.

    Returns
    -------
    int
        The number of loaded OpenBLAS libraries set to one thread (0 when the
        environment sets a count, or no OpenBLAS is loaded).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"OPENBLAS_NUM_THREADS": "4"}):
    ...     one_blas_thread()  # a count the environment sets is respected
    0
    """
    if any(os.environ.get(var) for var in THREAD_VARIABLES):
        return 0
    for var in THREAD_VARIABLES:
        os.environ[var] = "1"
    done = 0
    for path in openblas_libraries():
        try:
            lib = ctypes.CDLL(path)
        except OSError:  # pragma: no cover - a library mapped but not loadable again
            continue
        setter = next((getattr(lib, s) for s in _SETTERS if hasattr(lib, s)), None)
        if setter is None:  # pragma: no cover - an OpenBLAS without the setter
            continue
        setter.argtypes = [ctypes.c_int]
        setter.restype = None
        setter(1)
        done += 1
    return done
