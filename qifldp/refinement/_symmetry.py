"""Refinement of one-hot (bit-vector) channels by an LP over orbits of the symmetric group.

A channel with inputs 0..k-1 and outputs all k-bit vectors is *bit-symmetric*
when permuting the inputs and the output bits together leaves it unchanged:
C[x, y] = α(y_x, |y|). All unary-encoding and THE channels (``one_hot`` of a
2x2 bit channel) are. If A and B are, and A ⊑ B, then averaging a witness over
the k! permutations gives a witness constant on orbits of pairs (y, y'), which
are indexed by (a, b, c) = (|y|, |y'|, |y ∧ y'|): O(k³) unknowns instead of 4^k,
and O(k) equations (one per (y'_x, |y'|) and one row sum per |y|).

Writing ν(a, b, c) = C(a, c) C(k − a, b − c) w(a, b, c) (the mass a row of
weight a sends to the orbit), the LP is

    Σ_{r, a, c} N(r, a, c | s, b) α(r, a) ν(a, b, c) / (C(a, c) C(k − a, b − c)) = β(s, b),
    Σ_{b, c} ν(a, b, c) = 1,    ν >= 0,

where N(r, a, c | s, b) = C(b − s, c − r s) C(k − 1 − b + s, a − r − c + r s)
counts the y with y_x = r, |y| = a, |y ∧ y'| = c for a fixed (x, y') with
y'_x = s, |y'| = b. Solved as min Σ n_E(s, b)|slack(s, b)| (n_E = number of
explicit equations in the orbit), its dual Ŷ gives the explicit Farkas gain
H[y', x] = Ŷ(y'_x, |y'|) / n_E(y'_x, |y'|) (summing the explicit dual
constraints over an orbit shows the correspondence). Both certificates are
re-checked on the explicit channels.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..errors import SolverError

__all__ = ["BitSymmetric", "bit_symmetric", "solve_orbit_lp", "OrbitOutcome", "MAX_WITNESS_ENTRIES"]

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
    alpha = np.where(counts > 0, mean, np.nan).reshape(2, k + 1)
    return BitSymmetric(k, alpha, bits.astype(np.int8), weight)


@dataclass
class OrbitOutcome:
    """ν on the orbit variables, the orbit LP optimum and the explicit π-weighted gain H."""

    optimum: float
    W: np.ndarray | None  # explicit witness (2^k x 2^k) when materialised
    H: np.ndarray  # explicit gain, one action per output of B (2^k x k)
    n_variables: int


def _orbit_system(k: int, alpha: np.ndarray):
    """Variables (a, b, c), E1 rows (s, b), E2 rows a, with the coefficient matrices."""
    var = [
        (a, b, c)
        for a in range(k + 1)
        for b in range(k + 1)
        for c in range(max(0, a + b - k), min(a, b) + 1)
    ]
    vidx = {v: i for i, v in enumerate(var)}
    rows = [(s, b) for b in range(k + 1) for s in (0, 1) if (s <= b and b - s <= k - 1)]
    ridx = {r: i for i, r in enumerate(rows)}
    data, ri, ci = [], [], []
    for (a, b, c), j in vidx.items():
        K = comb(a, c) * comb(k - a, b - c)
        for s in (0, 1):
            if (s, b) not in ridx:
                continue
            tot = 0.0
            for r in (0, 1):
                if not np.isfinite(alpha[r, a]):
                    continue
                cc = c - r * s
                rest = a - r - cc
                ones = b - s
                if cc < 0 or rest < 0 or cc > ones or rest > k - 1 - ones:
                    continue
                tot += comb(ones, cc) * comb(k - 1 - ones, rest) * alpha[r, a]
            if tot != 0.0:
                data.append(tot / K)
                ri.append(ridx[(s, b)])
                ci.append(j)
    E1 = sp.csr_matrix((data, (ri, ci)), shape=(len(rows), len(var)))
    E2 = sp.csr_matrix(
        (np.ones(len(var)), ([a for a, _, _ in var], np.arange(len(var)))), shape=(k + 1, len(var))
    )
    return var, rows, E1, E2


def _polish(nu: np.ndarray, M: np.ndarray, rhs: np.ndarray, rounds: int = 3) -> np.ndarray:
    """Least-change correction of ν on its support (weights 1/ν) so that M ν = rhs to rounding."""
    for _ in range(rounds):
        r = rhs - M @ nu
        if not np.any(r):
            break
        S = (M * nu) @ M.T
        lam = np.linalg.lstsq(S, r, rcond=1e-15)[0]
        step = nu * (M.T @ lam)
        new = np.maximum(nu + step, 0.0)
        if np.abs(rhs - M @ new).max() >= np.abs(r).max():
            break
        nu = new
    return nu


def solve_orbit_lp(SA: BitSymmetric, SB: BitSymmetric, zero: float = 1e-9) -> OrbitOutcome:
    """Solve the orbit LP of A ⊑ B for bit-symmetric A, B over the same k (HiGHS).

    The explicit witness is built only when the LP optimum is at most ``zero``
    and it has at most :data:`MAX_WITNESS_ENTRIES` entries.

    Raises
    ------
    SolverError
        When HiGHS does not return an optimum.
    """
    k = SA.k
    var, rows, E1, E2 = _orbit_system(k, SA.alpha)
    nv, nr = len(var), len(rows)
    beta = np.array([SB.alpha[s, b] for s, b in rows])
    nE = np.array([(b if s == 1 else k - b) * comb(k, b) for s, b in rows], dtype=float)
    I = sp.identity(nr, format="csr")
    A_eq = sp.vstack(
        [sp.hstack([E1, I, -I]), sp.hstack([E2, sp.csr_matrix((k + 1, 2 * nr))])], format="csc"
    )
    b_eq = np.concatenate([beta, np.ones(k + 1)])
    c = np.concatenate([np.zeros(nv), nE, nE])
    res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        msg = f"HiGHS failed on the orbit LP (status {res.status}: {res.message}); no verdict"
        raise SolverError(msg)
    yhat = np.asarray(res.eqlin.marginals)[:nr]
    Y = np.zeros((2, k + 1))
    for (s, b), v, ne in zip(rows, yhat, nE, strict=True):
        Y[s, b] = v / ne
    H = Y[SB.bits.astype(np.int64), SB.weight[:, None]]  # H[y', x] = Y(y'_x, |y'|)
    W = None
    p = 2**k
    if res.fun <= zero and p * p <= MAX_WITNESS_ENTRIES:
        M = sp.vstack([E1, E2]).toarray()
        nu = _polish(np.maximum(np.asarray(res.x[:nv]), 0.0), M, b_eq)
        table = np.zeros((k + 1, k + 1, k + 1))
        for (a, b, cc), v in zip(var, nu, strict=True):
            table[a, b, cc] = v / (comb(a, cc) * comb(k - a, b - cc))
        W = np.empty((p, p))
        bitsA = SA.bits
        bitsB = SB.bits.T.astype(np.int16)
        wa, wb = SA.weight, SB.weight
        step = max(1, 2**20 // p)
        for i in range(0, p, step):
            ov = bitsA[i : i + step].astype(np.int16) @ bitsB
            W[i : i + step] = table[wa[i : i + step, None], wb[None, :], ov]
    return OrbitOutcome(float(res.fun), W, H, nv)
