"""One-hot (bit-vector) channels as symmetric channels: detection, explicit orbit certificates.

A channel with inputs 0..k-1 and outputs all k-bit vectors is *bit-symmetric*
when permuting the inputs and the output bits together leaves it unchanged:
C[x, y] = α(y_x, |y|). All unary-encoding and THE channels (``one_hot`` of a
2x2 bit channel) are. Such a channel is the subset channel of
:class:`qifldp.symmetric.SymmetricChannel` with S = the set of 1-bits:
a_s = α(1, s), b_s = α(0, s). The refinement driver decides a pair of them with
:func:`qifldp.symmetric.refines` (an LP with O(k²) variables over orbits of the
symmetric group) and maps its certificate to the explicit channels: the orbit
witness W[y, y'] = u(|y|, |y'|, |y ∧ y'|) / (C(|y|, j) C(k − |y|, |y'| − j)) and
the symmetric gain g(T, x) as an explicit matrix; the driver re-checks both on
the explicit channels.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..symmetric import OrbitWitness, SymmetricChannel, SymmetricGain

__all__ = [
    "BitSymmetric",
    "bit_symmetric",
    "as_symmetric",
    "explicit_witness",
    "polished_masses",
    "weighted_gain",
    "MAX_WITNESS_ENTRIES",
]

#: The explicit witness of the orbit LP is materialised up to this many entries (k <= 13,
#: 512 MiB); beyond it refines raises SizeError and points to qifldp.symmetric.
MAX_WITNESS_ENTRIES: int = 2**26

#: Entries of a class (y_x, |y|) must agree within this relative tolerance.
_CLASS_RTOL: float = 1e-12


@dataclass(frozen=True)
class BitSymmetric:
    """k, the table α[r, a] = C[x, y] for y_x = r, |y| = a, and the output bit matrix."""

    k: int
    alpha: np.ndarray  # (2, k + 1), NaN where the class is empty
    bits: np.ndarray  # (2^k, k) int8, row j = output label j
    weight: np.ndarray  # (2^k,) Hamming weights
    #: largest |C[x, y] − α| / (α u (1 + |ln α|)) over the entries, u = 2^-53
    #: (0.0: every entry equals its class value bit for bit)
    deviation: float = 0.0


def bit_symmetric(M: np.ndarray, inputs: tuple, outputs: tuple) -> BitSymmetric | None:
    """Detect a bit-symmetric channel (inputs 0..k-1, outputs all k-bit tuples, C = α(y_x, |y|))."""
    n, p = M.shape
    k = n
    if k < 2 or k > 24 or p != 2**k or tuple(inputs) != tuple(range(k)):
        return None
    try:
        bits = np.array(outputs, dtype=np.int64)
    except (TypeError, ValueError):
        return None
    if bits.shape != (p, k) or not np.all((bits == 0) | (bits == 1)):
        return None
    weight = bits.sum(axis=1)
    cls = (bits * (k + 1) + weight[:, None]).ravel()  # class of (y, x): r (k+1) + a
    vals = M.T.ravel()
    sums = np.bincount(cls, weights=vals, minlength=2 * (k + 1))
    counts = np.bincount(cls, minlength=2 * (k + 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / counts
    dev = np.abs(vals - mean[cls])
    if np.any(dev > _CLASS_RTOL * np.abs(mean[cls])):
        return None
    lo = np.full(counts.size, np.inf)
    hi = np.full(counts.size, -np.inf)
    np.minimum.at(lo, cls, vals)
    np.maximum.at(hi, cls, vals)
    mean = np.where(lo == hi, lo, mean)  # a class of equal floats keeps its value bit for bit
    dev = np.abs(vals - mean[cls])
    alpha = np.where(counts > 0, mean, np.nan).reshape(2, k + 1)
    nz = vals != 0
    ref = np.abs(mean[cls][nz])
    # in units of u (1 + |ln α|): the rounding of an entry computed in log space
    deviation = (
        float((dev[nz] / (ref * 2.0**-53 * (1.0 + np.abs(np.log(ref))))).max())
        if np.any(nz)
        else 0.0
    )
    return BitSymmetric(k, alpha, bits.astype(np.int8), weight, deviation)


def as_symmetric(S: BitSymmetric) -> SymmetricChannel:
    """The :class:`~qifldp.symmetric.SymmetricChannel` with the entries α (its expand() is C)."""
    from ..symmetric import SymmetricChannel

    return SymmetricChannel._from_bit_table(S.alpha, name=f"detected one-hot channel (k={S.k})")


def _orbit_sizes(k: int, s: np.ndarray, t: np.ndarray, j: np.ndarray) -> np.ndarray:
    """C(s, j) C(k − s, t − j): the number of outputs y' of weight t with |y ∧ y'| = j, |y| = s."""
    return np.array(
        [
            comb(int(a), int(c)) * comb(k - int(a), int(b) - int(c))
            for a, b, c in zip(s, t, j, strict=True)
        ],
        dtype=np.float64,
    )


def _polish(nu: np.ndarray, M: np.ndarray, rhs: np.ndarray, rounds: int = 3) -> np.ndarray:
    """Least-change correction of ν on its support (weights ν) so that M ν = rhs to rounding."""
    for _ in range(rounds):
        r = rhs - M @ nu
        if not np.any(r):
            break
        S = (M * nu) @ M.T
        lam = np.linalg.lstsq(S, r, rcond=1e-15)[0]
        new = np.maximum(nu + nu * (M.T @ lam), 0.0)
        if np.abs(rhs - M @ new).max() >= np.abs(r).max():
            break
        nu = new
    return nu


def polished_masses(
    W: OrbitWitness, SA: BitSymmetric, SB: BitSymmetric, A: np.ndarray, B: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(s, t, j, u) of the orbit witness, u corrected so that A·W = B holds to rounding.

    :func:`qifldp.symmetric.refines` accepts a witness whose orbit equations hold
    within WITNESS_ATOL, on class masses computed in log space; the explicit
    re-check asks for A·W = B up to the rounding band. The equations are therefore
    evaluated on the explicit (row-normalised) channels A, B: for each weight t of
    B and bit r, one representative entry (x, y') with |y'| = t, y'_x = r, where
    (A·W)[x, y'] = Σ_(s,j) u(s, t, j) Σ_(|y| = s, |y ∧ y'| = j) A[x, y] / count(s, t, j),
    plus the row sums Σ_(t,j) u(s, t, j) = 1; u moves (least change, on its
    support, entries kept >= 0) onto them. O(k 2^k + (number of orbits) k).
    """
    k = SA.k
    s, t, j = (np.asarray(v, dtype=np.int64) for v in (W.s, W.t, W.j))
    u = np.asarray(W.mass, dtype=np.float64).copy()
    count = _orbit_sizes(k, s, t, j)
    rows, rhs = [], []
    for a in np.unique(s):
        rows.append((s == a).astype(np.float64))
        rhs.append(1.0)
    bitsA = SA.bits.astype(np.int16)
    for tb in np.unique(t):
        col = int(np.flatnonzero(SB.weight == tb)[0])
        yb = SB.bits[col].astype(np.int16)
        ov = bitsA @ yb  # |y ∧ y'| for every output y of A
        cls = SA.weight * (k + 1) + ov
        for r in (0, 1):
            xs = np.flatnonzero(yb == r)
            if xs.size == 0:
                continue
            x = int(xs[0])
            sums = np.bincount(cls, weights=A[x], minlength=(k + 1) ** 2)
            sel = t == tb
            coef = np.zeros(s.size)
            coef[sel] = sums[s[sel] * (k + 1) + j[sel]] / count[sel]
            rows.append(coef)
            rhs.append(float(B[x, col]))
    u = _polish(u, np.array(rows), np.array(rhs))
    keep = u > 0
    return s[keep], t[keep], j[keep], u[keep]


def explicit_witness(
    orbits: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    SA: BitSymmetric,
    SB: BitSymmetric,
) -> np.ndarray:
    """The orbit witness (s, t, j, u) on the explicit outputs (in the channels' own label order).

    W[y, y'] = u(|y|, |y'|, j) / (C(|y|, j) C(k − |y|, |y'| − j)) with j = |y ∧ y'|;
    for the masses of an :class:`~qifldp.symmetric.OrbitWitness` this is
    ``numpy.asarray(witness)`` up to the order of the labels, built in row blocks
    of ~2^20 entries with int16 overlaps (O(4^k) time, no 4^k temporaries). The
    caller checks the size against :data:`MAX_WITNESS_ENTRIES`.
    """
    s, t, j, u = orbits
    k = SA.k
    table = np.zeros((k + 1, k + 1, k + 1))
    count = _orbit_sizes(k, s, t, j)
    np.add.at(table, (s, t, j), u / count)
    p, q = SA.bits.shape[0], SB.bits.shape[0]
    out = np.empty((p, q))
    bitsB = SB.bits.T.astype(np.int16)
    wa, wb = SA.weight, SB.weight
    step = max(1, 2**20 // q)
    for i in range(0, p, step):
        ov = SA.bits[i : i + step].astype(np.int16) @ bitsB
        out[i : i + step] = table[wa[i : i + step, None], wb[None, :], ov]
    return out


def weighted_gain(G: SymmetricGain) -> np.ndarray:
    """The π-weighted explicit gain H[T, x] = g(T, x) / k of a symmetric gain (uniform prior).

    ``qifldp.refinement._certify.gain_from_weighted(H, prior)`` turns it into the gain
    with the same V_g gap under any positive prior.
    """
    return np.asarray(G) / G.k
