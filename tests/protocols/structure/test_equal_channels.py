"""Equal channels (qifldp.protocols.structure.equal_channels): W = I both ways, rows
compared by chunks.

Every verdict is checked against the explicit channels built here in full.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.protocols.structure import equal_channels as eq
from qifldp.protocols.structure.equal_channels import equal_channels
from qifldp.sweeps.atlas import atlas_cell


class _Rows:
    """A protocol stand-in: the rows of a fixed matrix, labelled 0..n-1."""

    def __init__(self, M: np.ndarray, counts: np.ndarray | None = None) -> None:
        self.M, self.k, self.counts = M, M.shape[0], counts

    def _restricted_rows(self, xs):
        return self.M[xs], lambda cols: cols.tolist(), self.counts


@pytest.mark.parametrize("k", [3, 5, 16, 100])
def test_hr_with_one_block_is_hr(k):
    eps = 0.5  # e^0.5 < 2: one block
    A, B = q.protocol("hr", k, eps), q.protocol("hr_block", k, eps)
    assert B.params["B"] == 1
    same = equal_channels(A, B)
    MA, MB = A.channel().matrix, B.channel().matrix
    assert same is not None and same.entries == MA.size
    assert same.max_difference == float(np.abs(MA - MB).max())
    assert same.exact == bool(np.all(MA == MB))
    assert "W = I both ways" in same.certified_by
    # and W = I is a witness both ways on the explicit channels
    for X, Y in ((A, B), (B, A)):
        res = q.refines(X.channel(), Y.channel())
        assert res.holds


def test_different_channels_are_not_equal():
    A, B = q.protocol("hr", 16, 2.0), q.protocol("hr_block", 16, 2.0)  # 4 blocks
    assert not np.allclose(A.channel().matrix, B.channel().matrix)
    assert equal_channels(A, B) is None
    assert equal_channels(q.protocol("hr", 16, 1.0), q.protocol("he", 16, 1.0)) is None
    assert equal_channels(q.protocol("hr", 16, 0.5), q.protocol("hr_block", 17, 0.5)) is None
    # rows that come merged over outputs (HE with t coefficients) are not compared
    assert equal_channels(q.protocol("he_multi", 4, 1.0), q.protocol("he_multi", 4, 1.0)) is None


def test_grr_against_itself_is_exactly_equal():
    same = equal_channels(q.protocol("grr", 6, 1.0), q.protocol("grr", 6, 1.0))
    assert same.exact and same.max_difference == 0.0 and same.entries == 36


def test_every_chunk_is_compared(monkeypatch):
    monkeypatch.setattr(eq, "EQUAL_CHUNK_ENTRIES", 40)  # 10 columns: 4 rows per chunk
    rng = np.random.default_rng(3)
    M = rng.random((50, 10))
    M /= M.sum(axis=1, keepdims=True)
    far = M.copy()
    far[47, 3] += 1e-9  # a difference in the last chunk
    assert equal_channels(_Rows(M), _Rows(far)) is None
    ulp = M.copy()
    ulp[47, 3] = np.nextafter(ulp[47, 3], 1.0)  # one ulp: the same value up to rounding
    same = equal_channels(_Rows(M), _Rows(ulp))
    assert same is not None and not same.exact
    assert same.max_difference == ulp[47, 3] - M[47, 3]
    assert equal_channels(_Rows(M), _Rows(M, counts=np.ones(10))) is None
    assert equal_channels(_Rows(M), _Rows(M), max_entries=499) is None  # 500 entries


def test_the_atlas_decides_hr_and_hr_with_one_block_both_ways():
    cell = atlas_cell(64, 0.5, ("hr", "hr_block"), time_limit=10.0)
    rows = {(r["a"], r["b"]): r for r in cell["pairs"]}
    for pair in (("hr", "hr_block"), ("hr_block", "hr")):
        assert rows[pair]["holds"] is True and rows[pair]["route"] == "equal channels"
    assert math.isclose(
        float(cell["oracles"]["hr"]["bayes_capacity"]),
        float(cell["oracles"]["hr_block"]["bayes_capacity"]),
        rel_tol=1e-12,
    )
