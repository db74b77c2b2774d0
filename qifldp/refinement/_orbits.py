"""One-hot (bit-vector) channels decided by the orbit LP: detection, the orbit route of
the driver, and its certificates on the explicit channels.

A channel with inputs 0..k-1 and outputs all k-bit vectors is *bit-symmetric*
when permuting the inputs and the output bits together leaves it unchanged:
C[x, y] = α(y_x, |y|). All unary-encoding and THE channels (``one_hot`` of a
2x2 bit channel) are. Such a channel is a symmetric channel (subsets S = the
1-bits, a_s = α(1, s), b_s = α(0, s)); the driver hands the two class tables α
to the orbit decider that :mod:`qifldp.symmetric` registers
(:func:`register_orbit_decider`: an LP with O(k²) variables over orbits of the
symmetric group) and maps its certificate to the explicit channels: the orbit
witness W[y, y'] = u(|y|, |y'|, |y ∧ y'|) / (C(|y|, j) C(k − |y|, |y'| − j)) and
the symmetric gain as an explicit matrix; both are re-checked here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from math import comb
from typing import Any

import numpy as np

from ..errors import SizeError, SolverError, VerificationError
from ._certify import (
    BAND_FACTOR,
    INPUT_BAND_FACTOR,
    gain_from_weighted,
    input_rounding_band,
    rounding_band,
)
from ._exact_route import exact_gain_result
from ._problem import Problem, certify_gain_float, fails_result, holds_result, prune_actions
from .result import RefinementResult

__all__ = [
    "BitSymmetric",
    "bit_symmetric",
    "inferred_bit_symmetric",
    "one_hot_view",
    "explicit_witness",
    "polished_masses",
    "OrbitVerdict",
    "register_orbit_decider",
    "register_orbit_decider_loader",
    "try_orbits",
    "orbit_transfer_result",
    "MAX_WITNESS_ENTRIES",
    "ORBIT_TRANSFER_UNITS",
    "EXACT_GAP_MAX_TERMS",
    "EXACT_GAP_SECONDS_PER_TERM",
]

#: The explicit witness of the orbit LP is materialised up to this many entries (k <= 13,
#: 512 MiB); beyond it refines raises SizeError and points to qifldp.symmetric.
MAX_WITNESS_ENTRIES: int = 2**26

#: The exact gap of a lifted orbit gain is computed on the explicit stored floats when
#: |X| |Y| (number of actions) is at most this: a float screen (refinement/_screen.py)
#: leaves the rational sums only the actions that can attain each column's maximum
#: (the(10, 60) vs blh(10, 60): 10 x 1024 x 1023 terms, 3.3 s) ...
EXACT_GAP_MAX_TERMS: int = 2**24

#: ... and when the time left pays for them at this rate (seconds per term, about 1.5 x
#: the screened rate measured there), so that a time limit stays a time limit.
EXACT_GAP_SECONDS_PER_TERM: float = 5e-7

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


def inferred_bit_symmetric(M: np.ndarray) -> BitSymmetric | None:
    """A bit-symmetric reading of a channel whose output labels do not say it (raw arrays).

    In a one-hot channel each column y holds two values, α(1, |y|) on the rows x with
    y_x = 1 and α(0, |y|) on the others, and the larger one is on the same side for
    every column (p > q or p < q); the two constant columns are y = 0 and y = 1...1.
    The bits are read off the values that way (each orientation, each assignment of
    the constant columns) and the reading is accepted only when :func:`bit_symmetric`
    confirms it on every entry. A hypothesis tested on the floats, not a label.

    Examples
    --------
    >>> import qifldp as q
    >>> inferred_bit_symmetric(np.asarray(q.oue(3, 1.0).matrix)).k
    3
    >>> inferred_bit_symmetric(np.asarray(q.grr(3, 1.0).matrix)) is None
    True
    """
    n, p = M.shape
    if n < 2 or n > 24 or p != 2**n:
        return None
    hi, lo = M.max(axis=0), M.min(axis=0)
    const = np.flatnonzero(hi - lo <= _CLASS_RTOL * hi)
    if const.size != 2:
        return None
    top = np.abs(M - hi[None, :]) <= _CLASS_RTOL * hi[None, :]
    for bits in (top, ~top):
        for full in (const, const[::-1]):
            b = bits.T.astype(np.int8).copy()
            b[full[0]] = 0
            b[full[1]] = 1
            if np.unique(b, axis=0).shape[0] != p:
                continue
            found = bit_symmetric(M, tuple(range(n)), tuple(map(tuple, b.tolist())))
            if found is not None:
                return found
    return None


def one_hot_view(
    M: np.ndarray, inputs: tuple, outputs: tuple
) -> tuple[BitSymmetric | None, np.ndarray, np.ndarray | None]:
    """The channel as a bit-symmetric one: (its classes, the matrix read, column map).

    By its labels, else by its values (:func:`inferred_bit_symmetric`), else after
    merging identical columns: a local-hashing channel repeats the column of each
    set S = {x : h(x) = v} once per (h, v) giving it, and its merged columns are the
    one-hot channel C[x, S] = α(x ∈ S, |S|). The map sends each original column to
    its merged column (None: the matrix is read as it is); a witness on the merged
    columns of B is split equally over identical members.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.blh(3, 1.0)
    >>> S, M, cols = one_hot_view(np.asarray(C.matrix), C.inputs, C.outputs)
    >>> S.k, M.shape, cols.shape
    (3, (3, 8), (16,))
    """
    found = bit_symmetric(M, inputs, outputs) or inferred_bit_symmetric(M)
    if found is not None:
        return found, M, None
    n, p = M.shape
    if n < 2 or n > 24 or p <= 2**n:
        return None, M, None
    uniq, inv = np.unique(M.T, axis=0, return_inverse=True)
    if uniq.shape[0] != 2**n:
        return None, M, None
    inv = np.asarray(inv).reshape(-1)
    merged = uniq.T * np.bincount(inv)[None, :]
    found = inferred_bit_symmetric(merged)
    return (found, merged, inv) if found is not None else (None, M, None)


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
    W: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    SA: BitSymmetric,
    SB: BitSymmetric,
    A: np.ndarray,
    B: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(s, t, j, u) of the orbit witness W = (s, t, j, u), u corrected so that A·W = B holds
    to rounding.

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
    s, t, j = (np.asarray(v, dtype=np.int64) for v in W[:3])
    u = np.asarray(W[3], dtype=np.float64).copy()
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
    # relative equations: a tiny class value must be met to its own precision, not to
    # the precision of the largest one
    M, b = np.array(rows), np.array(rhs)
    scale = np.where(b > 0, 1.0 / np.where(b > 0, b, 1.0), 1.0)
    u = _polish(u, M * scale[:, None], b * scale, rounds=6)
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


@dataclass(frozen=True)
class OrbitVerdict:
    """The orbit decider's verdict on two one-hot channels given by their class tables.

    ``masses`` (s, t, j, u): the orbit witness; ``bitwise``: a 2x2 bit witness w whose
    k-fold product is the witness (lifting); ``weighted_gain``: the π-weighted explicit
    gain H[T, x] = g(T, x) / k of a "fails" (uniform prior).
    """

    holds: bool
    method: str
    certified_by: str
    masses: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    bitwise: np.ndarray | None = None
    weighted_gain: np.ndarray | None = None
    n_variables: int | None = None
    lp_optimum: float | None = None
    details: dict[str, Any] = field(default_factory=dict)


#: The registered orbit decider: class tables α_A, α_B (2, k + 1) -> OrbitVerdict.
_ORBIT_DECIDERS: list[Callable[[np.ndarray, np.ndarray], OrbitVerdict]] = []


def register_orbit_decider(decider: Callable[[np.ndarray, np.ndarray], OrbitVerdict]) -> None:
    """Register the decider of one-hot pairs by their class tables (one; a later one replaces it).

    :mod:`qifldp.symmetric` registers its orbit LP from its register module.

    >>> len(_ORBIT_DECIDERS) <= 1
    True
    """
    _ORBIT_DECIDERS[:] = [decider]


#: What registers the orbit decider when a one-hot pair first needs it (one; see
#: :func:`register_orbit_decider_loader`).
_ORBIT_DECIDER_LOADERS: list[Callable[[], None]] = []


def register_orbit_decider_loader(load: Callable[[], None]) -> None:
    """Register ``load``, which registers the orbit decider, to run when a pair first needs it.

    :mod:`qifldp.faces.refinement` gives one that imports :mod:`qifldp.symmetric`, so
    that explicit pairs which are not one-hot never load the symmetric kind (nor the
    scipy.special it uses).

    >>> len(_ORBIT_DECIDER_LOADERS) <= 1
    True
    """
    _ORBIT_DECIDER_LOADERS[:] = [load]


def try_orbits(P: Problem, labels: Any) -> RefinementResult | str:
    """Bit-symmetric (one-hot) pairs by the orbit LP; why not, when it does not apply.

    The two channels' class tables α are decided by the registered orbit decider
    (:func:`register_orbit_decider`; the orbit LP of :mod:`qifldp.symmetric`); its
    certificate is made explicit (orbit witness expanded, symmetric gain as a
    matrix) and re-checked on the explicit channels like every other certificate.
    A reason (the general engines decide) when no decider is registered, when it
    gives no verdict, or when its certificate does not pass the explicit re-check.
    """
    (ia, oa), (ib, ob) = labels
    SA, Av, col_a = one_hot_view(P.An, ia, oa)
    if SA is None:
        return "A is not a bit-symmetric (one-hot) channel"
    SB, Bv, col_b = one_hot_view(P.Bn, ib, ob)
    if SB is None or SB.k != SA.k:
        return "B is not a bit-symmetric (one-hot) channel over the same k"
    if not _ORBIT_DECIDERS and _ORBIT_DECIDER_LOADERS:
        _ORBIT_DECIDER_LOADERS[0]()
    if not _ORBIT_DECIDERS:
        return "no orbit decider is registered (qifldp.symmetric registers one)"
    # a hashed channel against a one-hot one: only a "fails" is taken from the orbit LP
    # (its gain, re-checked on the explicit channels, does not depend on the columns);
    # a witness is left to the general engines and the exact step
    mixed = (col_a is None) != (col_b is None)
    if col_a is not None and P.A.shape[1] * P.B.shape[1] > MAX_WITNESS_ENTRIES:
        return (
            "the merged columns are one-hot, but a witness on the original "
            f"{P.A.shape[1]} x {P.B.shape[1]} columns would exceed MAX_WITNESS_ENTRIES"
        )
    try:
        sres = _ORBIT_DECIDERS[0](SA.alpha, SB.alpha)
    except (SolverError, VerificationError) as exc:
        P.details["orbits_undecided"] = str(exc)
        return f"failed: {exc}"
    P.details.update(
        engine="orbits",
        orbit_variables=sres.n_variables,
        lp_optimum=sres.lp_optimum,
        orbit_method=sres.method,
    )
    if mixed and sres.holds:
        return "only one channel is one-hot after merging identical columns, and A ⊑ B holds"
    if not sres.holds:
        assert sres.weighted_gain is not None
        c = certify_gain_float(P, sres.weighted_gain)
        if c is not None:
            g, gap, bound = c
            how = (
                f"{sres.method} certificate ({sres.certified_by}) lifted to an explicit gain; "
                f"float gap {gap:.3g} exceeds {bound:.2g} "
                "(rigorous rounding bound plus the rounding-band allowance)"
            )
            return fails_result(P, g, None, bound, "orbits", False, how)
        # its gap in rational arithmetic on the stored floats (a few Fraction sums)
        g = gain_from_weighted(sres.weighted_gain, P.prior)
        if g.shape[0] > 32:
            g = prune_actions(g, P)
        left = P.opts.left()
        if left is not None and left <= 0:
            return "the time limit was reached before the lifted gain's exact gap"
        terms = P.A.size * g.shape[0]
        if (
            left is not None
            and terms <= EXACT_GAP_MAX_TERMS
            and terms * EXACT_GAP_SECONDS_PER_TERM > left
        ):
            return (
                f"the time left ({left:.3g} s) does not pay for the lifted gain's exact gap "
                f"({terms} terms)"
            )
        if terms <= EXACT_GAP_MAX_TERMS:
            how = f"{sres.method} certificate ({sres.certified_by}) lifted to an explicit gain"
            res = exact_gain_result(P, g, how)
            if res is not None:
                return res
            return "the lifted symmetric gain has no positive exact gap on the explicit floats"
        return "the lifted symmetric gain's gap is not above its rounding bound"
    p, pb = SA.bits.shape[0], SB.bits.shape[0]
    if p * pb > MAX_WITNESS_ENTRIES:
        msg = (
            f"A ⊑ B holds by the orbit LP of qifldp.symmetric.refines ({sres.certified_by}), "
            f"but the explicit witness would have {p} x {pb} = {p * pb} entries (limit "
            f"MAX_WITNESS_ENTRIES = {MAX_WITNESS_ENTRIES}); use qifldp.symmetric.refines, "
            "whose witness is stored by orbits"
        )
        raise SizeError(msg)
    if sres.bitwise is not None:  # a lifted bitwise witness w^{⊗k}
        w = np.asarray(sres.bitwise, dtype=np.float64)
        J = SA.bits.astype(np.int64) @ SB.bits.T.astype(np.int64)
        sa, sb = SA.weight[:, None].astype(np.int64), SB.weight[None, :].astype(np.int64)
        W = (
            w[1, 1] ** J
            * w[1, 0] ** (sa - J)
            * w[0, 1] ** (sb - J)
            * w[0, 0] ** (SA.k - sa - sb + J)
        )
    else:
        assert sres.masses is not None
        W = explicit_witness(polished_masses(sres.masses, SA, SB, Av, Bv), SA, SB)
    if col_a is not None or col_b is not None:  # back from the merged identical columns
        W = W if col_a is None else W[col_a]
        if col_b is not None:
            W = W[:, col_b] / np.bincount(col_b)[col_b][None, :]
    AW = P.An @ W
    if (
        np.all(np.abs(P.Bn - AW) <= rounding_band(P.An, P.Bn, W, AW))
        and np.abs(W.sum(axis=1) - 1.0).max() <= 8.0 * (W.shape[1] + 2) * 2.0**-53
    ):
        how = (
            "orbit witness of qifldp.symmetric.refines (constant on orbits of the symmetric "
            "group), expanded: A·W = B up to the rounding band (max residual "
            f"{float(np.abs(P.Bn - AW).max()):.3g})"
        )
        P.band_witnesses.append(W)
        return holds_result(P, W, "orbits", False, how, expanded=True, band="rounding")
    return orbit_transfer_result(P, W, AW, sres, max(SA.deviation, SB.deviation), SA.k)


#: Largest deviation of an explicit entry C from its class value, in units of
#: u (1 + |ln C|), for which an orbit verdict is carried over to the explicit channels
#: "up to rounding": the rounding of an entry computed in log space, the band the
#: symmetric route grants its own stored masses (INPUT_BAND_FACTOR there); k more units
#: are allowed for an entry computed as a product of k factors.
ORBIT_TRANSFER_UNITS: float = 16.0


def orbit_transfer_result(
    P: Problem,
    W: np.ndarray,
    AW: np.ndarray,
    sres: Any,
    deviation: float,
    k: int,
) -> RefinementResult | str:
    """The orbit verdict "holds" on the explicit channels when its expansion misses the band.

    The orbit LP decided the class masses read off these channels (each explicit entry
    is its class value up to ``deviation`` u (1 + |ln C|), u = 2^-53; the symmetric
    channel stores the masses in log space, another few units of rounding). Expanded to
    2^k x 2^k floats, its witness can miss the explicit entrywise band (tiny entries,
    many terms) by rounding of the expansion alone. The verdict is then carried over
    as "holds up to rounding" (``about="rounding"``), with the explicit residual
    stated, instead of no verdict.
    """
    limit = ORBIT_TRANSFER_UNITS + k  # + the rounding of a product of k factors
    if not deviation <= limit:
        return (
            "the expanded orbit witness is not within the rounding band, and the channels' "
            f"entries deviate from their class values by up to {deviation:.3g} u (1 + |ln C|), "
            f"beyond ORBIT_TRANSFER_UNITS + k = {limit:g}"
        )
    unused = ~np.any(P.An > 0, axis=0)  # outputs of A that never occur: any row will do
    if np.any(unused):
        W = W.copy()
        W[unused] = P.Bn.sum(axis=0) / P.Bn.sum()
    row_err = float(np.abs(W.sum(axis=1) - 1.0).max())
    if not row_err <= 8.0 * (W.shape[1] + 2) * 2.0**-53:
        return (
            "the expanded orbit witness is not within the rounding band, and its rows miss 1 "
            f"by up to {row_err:.3g}"
        )
    resid = float(np.abs(P.Bn - AW).max())
    band = rounding_band(P.An, P.Bn, W, AW)
    excess = float(np.max(np.abs(P.Bn - AW) - band))
    # the documented band of "up to rounding": the rounding band plus what the inputs'
    # own rounding explains (INPUT_BAND_FACTOR u (1 + |ln P|) per entry of B, and of A
    # carried through W); outside it the orbit verdict is not carried over
    wide = band + input_rounding_band(P.Bn) + input_rounding_band(P.An) @ W
    over = np.abs(P.Bn - AW) - wide
    if np.any(over > 0):
        at = np.unravel_index(int(np.argmax(over / np.where(wide > 0, wide, np.inf))), over.shape)
        rel = float(np.abs(P.Bn - AW)[at] / max(float(P.Bn[at]), float(AW[at]), 2.0**-1074))
        return (
            "the expanded orbit witness misses the band of the inputs' own rounding "
            f"(rounding band + {INPUT_BAND_FACTOR:g} u (1 + |ln P|) per entry): at entry "
            f"{tuple(int(i) for i in at)} its relative residual is {rel:.3g}, "
            f"{float(np.abs(P.Bn - AW)[at] / wide[at]):.3g} times that band"
        )
    how = (
        f"up to rounding: A ⊑ B holds for the class masses read off these channels "
        f"({sres.certified_by}); the channels' entries equal their class values within "
        f"{deviation:.3g} u (1 + |ln C|), and the orbit witness expanded to {W.shape[0]} x "
        f"{W.shape[1]} floats re-checks to max|A·W − B| = {resid:.3g}, missing the explicit "
        f"entrywise rounding band {BAND_FACTOR:g} (|Y_A| + 2) u (A·W + B) by up to "
        f"{excess:.2g}, within the band of the inputs' own rounding (rounding band + "
        f"{INPUT_BAND_FACTOR:g} u (1 + |ln P|) per entry of B, and of A through W): rounding "
        "of the expansion and of the class masses"
    )
    res = holds_result(P, W, "orbits", False, how, expanded=True, band="inputs")
    return replace(res, up_to_rounding=True, about="rounding")
