"""The default pool's workers run one BLAS thread (sweeps/blas_threads.py), whatever the
process that forks them runs; a count the environment sets is respected.

Independent check: each worker reads its OpenBLAS thread counts back through OpenBLAS's
own ``openblas_get_num_threads``, forked from this process with its environment setting
no count and its own OpenBLAS libraries set to 2 threads for the test."""

from __future__ import annotations

import ctypes
import os
from unittest import mock

import numpy  # noqa: F401 - so that its OpenBLAS, if any, is loaded and listed
import pytest
import scipy.linalg  # noqa: F401

import qifldp as q
from qifldp.sweeps.blas_threads import THREAD_VARIABLES, openblas_libraries

_GET = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads")
_GET += ("openblas_get_num_threads64_", "openblas_get_num_threads")
_SET = tuple(name.replace("_get_", "_set_") for name in _GET)


def _call(path: str, names: tuple[str, ...], *args: int) -> int:
    lib = ctypes.CDLL(path)
    fn = next(getattr(lib, n) for n in names if hasattr(lib, n))
    fn.restype = ctypes.c_int if not args else None
    return fn(*args)


def _counts(k: int = 0) -> dict:
    return {"threads": str([_call(p, _GET) for p in openblas_libraries()])}


def test_default_pool_workers_run_one_blas_thread():
    paths = openblas_libraries()
    if not paths:
        pytest.skip("numpy and scipy use no OpenBLAS here")
    before = [_call(p, _GET) for p in paths]
    two, one = str([2] * len(paths)), str([1] * len(paths))
    unset = {var: "" for var in THREAD_VARIABLES}
    try:
        for p in paths:
            _call(p, _SET, 2)
        with mock.patch.dict(os.environ, unset):
            for var in THREAD_VARIABLES:
                del os.environ[var]
            t = q.sweep(_counts, {"k": [0, 1]}, progress=False, chunksize=1)
            assert _counts()["threads"] == two  # this process keeps its threads
            assert t["threads"].tolist() == [one, one] and t["error"].tolist() == [None] * 2
            os.environ["OMP_NUM_THREADS"] = "2"  # an explicit count is left to the workers
            t = q.sweep(_counts, {"k": [0, 1]}, progress=False, chunksize=1)
            assert t["threads"].tolist() == [two, two]
    finally:
        for p, n in zip(paths, before, strict=True):
            _call(p, _SET, n)
