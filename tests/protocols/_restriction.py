"""The tests' reference for ``Protocol.restricted``: the explicit channel's rows, their
equal columns merged by a dictionary keyed by the column (exact float equality), each
group summed with ``math.fsum`` (the exact sum, rounded once)."""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np

import qifldp as q


def merged_rows(C: q.Channel, S: list[int]) -> tuple[np.ndarray, list]:
    """(matrix, output labels) of the rows S of C, equal columns summed, zero columns
    dropped, groups in the order of their first column, labelled by it."""
    M = C.matrix[S]
    groups: dict[tuple, list[int]] = {}
    for y in range(M.shape[1]):
        column = tuple(M[:, y].tolist())
        if any(column):
            groups.setdefault(column, []).append(y)
    matrix = np.array(
        [[math.fsum([col[i]] * len(ys)) for col, ys in groups.items()] for i in range(len(S))]
    )
    return matrix, [C.outputs[ys[0]] for ys in groups.values()]


def subsets(k: int) -> list[list[int]]:
    """All inputs, a single input, an unsorted pair and the upper half reversed."""
    return [list(range(k)), [k - 1], [k - 1, 0], list(range(k - 1, (k - 1) // 2 - 1, -1))]


def assert_restriction_is_the_merged_rows(P, **options) -> None:
    """P.restricted(S) equals the reference of P.channel() at every S of :func:`subsets`."""
    C = P.channel(**options)
    for S in subsets(P.k):
        R = P.restricted(S, **options)
        matrix, labels = merged_rows(C, S)
        assert R.inputs == tuple(S)
        assert list(R.outputs) == labels, (P, S)
        assert np.array_equal(R.matrix, matrix), (P, S)


def assert_large_restriction(P, n_rows: int = 8, **options) -> q.Channel:
    """restricted(range(n_rows)) at a k whose explicit channel is refused: inputs as asked,
    rows summing to 1 within 1e-12, no two columns equal, no zero column. Returns it."""
    R = P.restricted(range(n_rows), **options)
    assert R.inputs == tuple(range(n_rows))
    np.testing.assert_allclose(R.matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.unique(R.matrix, axis=1).shape[1] == R.shape[1]
    assert np.all(R.matrix.max(axis=0) > 0)
    return R


def cost(build) -> tuple[float, float]:
    """(CPU seconds, peak traced MiB) of ``build()`` (for reports, not asserted)."""
    tracemalloc.start()
    t0 = time.process_time()
    build()
    seconds = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak
