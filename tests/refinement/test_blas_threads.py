"""Issue 9, item 5b: the suite runs BLAS with the thread count set in tests/conftest.py."""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np
import pytest


def _openblas() -> ctypes.CDLL | None:
    """numpy's OpenBLAS, as loaded in this process (None when numpy uses another BLAS)."""
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(paths):
        if "numpy" in path:
            return ctypes.CDLL(path)
    return None


def test_conftest_set_the_limit_before_numpy_was_imported():
    conftest = sys.modules.get("tests.conftest")
    assert conftest is not None, "tests/conftest.py was not loaded as tests.conftest"
    assert conftest.THREAD_LIMITED, "numpy was imported before tests/conftest.py set the limit"
    assert os.environ["OPENBLAS_NUM_THREADS"].isdigit()


def test_openblas_runs_with_the_configured_threads():
    lib = _openblas()
    if lib is None:
        pytest.skip("numpy is not linked against a loadable OpenBLAS here")
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
        fn = getattr(lib, name, None)
        if fn is not None:
            break
    else:
        pytest.skip("this OpenBLAS exports no thread query")
    fn.restype = ctypes.c_int
    np.ones((2, 2)) @ np.ones((2, 2))  # BLAS initialised
    assert fn() == int(os.environ["OPENBLAS_NUM_THREADS"])
