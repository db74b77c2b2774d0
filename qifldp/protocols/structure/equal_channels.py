"""Equal channels: A ⊑ B and B ⊑ A by W = I, compared row by row without building either.

Two protocols of different families can define the same channel (Hadamard response
with one block *is* Hadamard response: the same K outputs, the same sets, the same two
probabilities). Then W = I is a witness both ways, and no LP is needed; at k = 10^4 the
explicit channels (10^4 x 16384 entries) are past the atlas's budget, but their rows
can be compared a chunk at a time (:meth:`~qifldp.protocols.base.Protocol.restricted`'s
rows before merging, which these families build from the requested rows alone).

The rows are compared entry for entry on the same output labels. Stored floats of the
same exact law computed along two formulas may differ in the last place, so equality
is accepted within :data:`EQUAL_BAND_FACTOR` u (A + B) entrywise (u = 2^-53): A·I = A
exactly, so this is the rounding band of the witness W = I. Exactly equal rows are
reported as such.

Layer L5 (protocols): protocol-level refinement without whole channels.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import QifldpError
from ...refinement._certify import UNIT_ROUNDOFF

__all__ = [
    "EQUAL_BAND_FACTOR",
    "EQUAL_CHUNK_ENTRIES",
    "EQUAL_MAX_ENTRIES",
    "EqualChannels",
    "equal_channels",
]

#: Entries whose difference is at most this many units of rounding of their sum count
#: as equal: two evaluations of the same expression, each within a few ulps.
EQUAL_BAND_FACTOR: float = 4.0
#: The most entries of one side compared per chunk of rows (32 MiB of float64).
EQUAL_CHUNK_ENTRIES: int = 2**22
#: The most entries k x outputs compared in all (HR at k = 10^4: 1.6e8, ~2 s).
EQUAL_MAX_ENTRIES: int = 2**31


@dataclass(frozen=True)
class EqualChannels:
    """A verified W = I between two protocols' channels.

    Attributes
    ----------
    exact : bool
        Every entry equal as stored.
    max_difference : float
        max |A − B| over all k x n entries (0.0 when ``exact``).
    entries : int
        k x n, the entries compared.
    certified_by : str
        The statement of the certificate.

    Examples
    --------
    >>> import qifldp as q
    >>> same = equal_channels(q.protocol("grr", 3, 1.0), q.protocol("grr", 3, 1.0))
    >>> same.exact, same.max_difference, same.entries
    (True, 0.0, 9)
    """

    exact: bool
    max_difference: float
    entries: int
    certified_by: str


def _rows(P: Any, xs: np.ndarray) -> tuple[np.ndarray, Any] | None:
    """P's rows at ``xs`` on its full output set (no merging), or None where it has none."""
    try:
        M, labels, counts = P._restricted_rows(xs)
    except QifldpError:  # the family's own size rule
        return None
    if counts is not None:  # rows already merged over outputs (multiplicities): not comparable
        return None
    return np.asarray(M, dtype=float), labels


def _row_chunks(
    A: Any, B: Any, first: tuple[np.ndarray, np.ndarray], step: int
) -> Iterator[tuple[np.ndarray, np.ndarray] | None]:
    """Both sides' rows, ``first`` (row 0, already read) then ``step`` rows at a time;
    None (and the end) where a side gives no rows."""
    yield first
    for start in range(1, A.k, step):
        xs = np.arange(start, min(A.k, start + step))
        ra, rb = _rows(A, xs), _rows(B, xs)
        if ra is None or rb is None:
            yield None
            return
        yield ra[0], rb[0]


def equal_channels(A: Any, B: Any, *, max_entries: int = EQUAL_MAX_ENTRIES) -> EqualChannels | None:
    """Whether two protocols have the same channel (then W = I proves A ⊑ B and B ⊑ A).

    The rows are built a chunk at a time (at most :data:`EQUAL_CHUNK_ENTRIES` entries per
    side) and compared on the same output labels; the first chunk is one row, so a pair
    of different sizes or labels, or past ``max_entries``, costs one row.

    Parameters
    ----------
    A, B : Protocol
        Over the same k inputs, both building rows from the requested inputs alone
        (HR, HR with blocks, HE, the sketches, RAPPOR); a family whose rows come merged
        (HE with t coefficients) or whose rows need the whole channel is not compared.
    max_entries : int, optional
        The most k x n entries compared (default :data:`EQUAL_MAX_ENTRIES`).

    Returns
    -------
    EqualChannels or None
        The certificate, every entry checked: equal, or within
        :data:`EQUAL_BAND_FACTOR` u (A + B); None when the channels differ, have different
        output sets or labels, or are not compared (sizes, merged rows, different k).

    Examples
    --------
    >>> import qifldp as q
    >>> same = equal_channels(q.protocol("hr", 100, 0.5), q.protocol("hr_block", 100, 0.5))
    >>> same.entries, same.max_difference < 1e-18  # one block: HR itself
    (12800, True)
    >>> equal_channels(q.protocol("hr", 100, 2.0), q.protocol("hr_block", 100, 2.0)) is None
    True
    """
    k = A.k
    if B.k != k:
        return None
    first = np.arange(1)  # one row: the output count, checked before any larger chunk
    got_a, got_b = _rows(A, first), _rows(B, first)
    if got_a is None or got_b is None or got_a[0].shape != got_b[0].shape:
        return None
    n = got_a[0].shape[1]
    cols = np.arange(n)
    if k * n > max_entries or list(got_a[1](cols)) != list(got_b[1](cols)):
        return None
    exact, worst = True, 0.0
    for pair in _row_chunks(A, B, (got_a[0], got_b[0]), max(1, EQUAL_CHUNK_ENTRIES // n)):
        if pair is None:
            return None
        Ma, Mb = pair
        R = np.abs(Ma - Mb)
        if np.any(R > EQUAL_BAND_FACTOR * UNIT_ROUNDOFF * (Ma + Mb)):
            return None
        exact = exact and not np.any(R)
        worst = max(worst, float(R.max()))
    how = (
        "equal entry for entry"
        if exact
        else f"equal within {EQUAL_BAND_FACTOR:g} u (A + B) entrywise (max |A - B| {worst:.3g})"
    )
    return EqualChannels(
        exact=exact,
        max_difference=worst,
        entries=k * n,
        certified_by=f"the same channel: all {k} x {n} entries {how}; W = I both ways",
    )
