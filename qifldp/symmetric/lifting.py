"""Bitwise lifting: a 2x2 witness w between the bit channels of two one-hot (UE-type)
channels gives the witness w^{⊗k} between the k-ary channels (QIF paper, Lemma 4).

A one-hot channel built from the bit channel b = [[1 − q, q], [1 − p, p]] (rows: the
input's bit 0/1, columns: the reported bit) has entries a_s = p q^(s−1) (1−q)^(k−s)
(the input's own bit set, s ones in all) and b_s = (1−p) q^s (1−q)^(k−1−s): log-linear
in s. If b_A·w = b_B for a row-stochastic 2x2 w, post-processing every reported bit
by w turns one_hot(b_A) into one_hot(b_A·w) = one_hot(b_B) exactly (the bits are
independent given the input). So the k-ary verdict "holds" needs only a 2x2
certificate and a check that the stored class masses are those product forms — a
rigorous certificate at any k, with no orbit LP.

Which channels are of that form is read off their class masses, not their names: UE
and THE, and the lumped local-hashing channels too (OLH, BLH, LH with g buckets: the
input lies in the reported set with probability p = e^eps / (e^eps + g − 1) and every
other input with probability 1/g, independently, the hash being uniform), so
OLH ⊑ THE(θ*) at eps = 2 is decided at k = 10^4 where its orbit LP has 2e8 variables.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..channel import Channel, guard_size
from ..refinement.core import refines as explicit_refines
from ..refinement.result import RefinementResult
from .binomial import comb_table, log_comb, reads_table
from .channel import SymmetricChannel
from .orbit_lp import check_large

__all__ = [
    "BitwiseWitness",
    "bit_channel",
    "eval_error",
    "lifted_refinement",
    "lifted_result",
    "lifted_witness",
    "unverified_bit_channels",
    "verified_bit_channels",
    "relative_class_error",
    "LIFT_BAND_FACTOR",
    "PRODUCT_FORM_SECONDS_PER_CLASS",
]

#: The stored class masses must equal the product form within LIFT_BAND_FACTOR (k + 2) u
#: relative per class, and so must A·W and B (u = 2^-53): the rounding of k factors.
LIFT_BAND_FACTOR: float = 16.0

_U = 2.0**-53

#: Seconds per class of one product-form check (a product form over the k size classes and
#: its comparison with the stored class masses: :func:`bit_channel`, :func:`lifted_witness`),
#: measured 1.5e-7 ... 2.5e-7 at k = 10^5 and 10^6 on a loaded 2-core machine. A check
#: the time left cannot pay for at this rate is not started (the first O(k) pass of a
#: decision has no history to predict it: a 0.5 s limit at k = 10^6 was overrun by it).
PRODUCT_FORM_SECONDS_PER_CLASS: float = 3e-7


@dataclass(frozen=True, repr=False)
class BitwiseWitness:
    """The witness W = w^{⊗k} of a lifted refinement: every reported bit post-processed by w.

    Attributes
    ----------
    k : int
    w : numpy.ndarray, shape (2, 2)
        Row-stochastic; ``w[b, c]`` = Pr(report c | bit b).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> A, B = sym.sue(2, 1.0), sym.the(2, 1.0, 0.8)
    >>> W = BitwiseWitness(2, np.array([[0.75, 0.25], [0.25, 0.75]]), A, B)
    >>> W.expand().shape, round(W.entry((0,), (0, 1)), 6)
    ((4, 4), 0.1875)
    """

    k: int
    w: np.ndarray
    _A: SymmetricChannel | None = field(default=None, repr=False, compare=False)
    _B: SymmetricChannel | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"BitwiseWitness(k={self.k}, w={np.round(self.w, 6).tolist()})"

    @property
    def channels(self) -> tuple[SymmetricChannel, SymmetricChannel] | None:
        """(A, B), the symmetric channels the witness lifts between (None when not given).

        >>> import qifldp.symmetric as sym
        >>> A, B = sym.sue(2, 1.0), sym.the(2, 1.0, 0.8)
        >>> BitwiseWitness(2, np.eye(2), A, B).channels == (A, B)
        True
        """
        return None if self._A is None or self._B is None else (self._A, self._B)

    @property
    def shape(self) -> tuple[int, int]:
        """Outputs of A.expand() by outputs of B.expand() ((2^k, 2^k) for two UE channels)."""
        if self._A is None or self._B is None:
            return 2**self.k, 2**self.k
        return self._A.n_explicit_outputs(False), self._B.n_explicit_outputs(False)

    def entry(self, S, T) -> float:
        """W[S, T] for the bit vectors with ones at S and T (iterables of input indices)."""
        S, T = set(S), set(T)
        w, k = self.w, self.k
        n11, n10, n01 = len(S & T), len(S - T), len(T - S)
        n00 = k - n11 - n10 - n01
        return float(w[1, 1] ** n11 * w[1, 0] ** n10 * w[0, 1] ** n01 * w[0, 0] ** n00)

    def expand(self, lumped: bool = False) -> np.ndarray:
        """The explicit witness (small k), rows/columns as the outputs of ``A.expand(lumped)``
        and ``B.expand(lumped)``."""
        assert self._A is not None and self._B is not None  # set by lifted_refinement
        A, B = self._A, self._B
        guard_size(
            "BitwiseWitness.expand()",
            1,
            A.log10_n_explicit_outputs(lumped) + B.log10_n_explicit_outputs(lumped),
            lambda: A.n_explicit_outputs(lumped) * B.n_explicit_outputs(lumped),
            "the bit witness w",
        )
        _, memA, _ = self._A._explicit_outputs(lumped)
        _, memB, log_multB = self._B._explicit_outputs(lumped)
        sA = memA.sum(axis=1)[:, None].astype(np.int64)
        sB = memB.sum(axis=1)[None, :].astype(np.int64)
        J = memA.astype(np.int64) @ memB.T.astype(np.int64)
        w = self.w
        W = (
            w[1, 1] ** J
            * w[1, 0] ** (sA - J)
            * w[0, 1] ** (sB - J)
            * w[0, 0] ** (self.k - sA - sB + J)
        )
        return W * np.exp(-np.asarray(log_multB))[None, :]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.expand().astype(dtype or np.float64)


def bit_channel(C, verify: bool = True) -> tuple[np.ndarray, float] | None:
    """The bit channel [[1 − q, q], [1 − p, p]] of a one-hot symmetric channel, or None.

    Returns the 2x2 matrix b and a bound on the relative difference between the
    stored class masses of ``C`` and the exact product form of b (None when ``C``
    is not of product form within :func:`eval_error`, the rounding of computing one).
    ``verify=False``: b from two classes only, unchecked (O(1); the bound is NaN).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> b, err = bit_channel(sym.oue(5, 1.0))
    >>> np.round(b, 6).tolist(), err < 1e-13
    ([[0.731059, 0.268941], [0.5, 0.5]], True)
    """
    k = C.k
    la, lb = C.log_a, C.log_b
    s = C.sizes
    ok = np.isfinite(la) & (s >= 1)
    if ok.sum() < 2 or np.any(~np.isfinite(lb[s < k])):
        return None
    idx = np.flatnonzero(ok)
    i1, i2 = idx[0], idx[-1]  # the far ends: the slope error shrinks with their distance
    s1, s2 = int(s[i1]), int(s[i2])
    L = (la[i2] - la[i1]) / (s2 - s1)  # ln(q / (1 − q))
    q = 1.0 / (1.0 + math.exp(-L)) if L > -700 else math.exp(L)
    log1q = -math.log1p(math.exp(L)) if L < 700 else -L
    logq = L + log1q
    logp = la[i1] - (s1 - 1) * logq - (k - s1) * log1q
    okb = np.isfinite(lb) & (s < k)
    log1mp = -math.inf
    if logp > -math.log(2) and okb.any():  # p near 1: 1 − p from a class of b, accurately
        i0 = int(np.flatnonzero(okb)[0])
        s0 = int(s[i0])
        log1mp = lb[i0] - s0 * logq - (k - 1 - s0) * log1q
        if not log1mp <= 0:
            return None
        p = -math.expm1(log1mp)
    else:
        if not logp <= 0:
            return None
        p = math.exp(logp)
    if not (0 <= q <= 1 and 0 <= p <= 1):
        return None
    if not (logp > -math.log(2) and okb.any()):
        log1mp = math.log1p(-p) if p < 1 else -math.inf
    logp = math.log1p(-math.exp(log1mp)) if log1mp > -math.inf else 0.0
    logs = np.array([[log1q, logq], [log1mp, logp]])  # ln of [[1 − q, q], [1 − p, p]]
    b = np.exp(logs)
    if not verify:
        return b, math.nan
    err = relative_class_error(C, product_classes(k, logs, C.sizes))
    if err is None or err > eval_error(k, b):
        return None
    return b, err + eval_error(k, b)


class _Classes:
    """Log class masses (``sizes``, ``log_in``, ``log_out``) of a product-form one-hot channel."""

    def __init__(self, sizes: np.ndarray, log_in: np.ndarray, log_out: np.ndarray) -> None:
        self.sizes, self.log_in, self.log_out = sizes, log_in, log_out


def product_classes(k: int, logs: np.ndarray, sizes: np.ndarray) -> _Classes:
    """The class masses of one_hot(b) on ``sizes``, from ``logs`` = ln b (2x2, -inf for 0).

    P_in(s) = C(k−1, s−1) b11 b01^(s−1) b00^(k−s), P_out(s) = C(k−1, s) b10 b01^s b00^(k−1−s),
    summed in log space from the logs of the entries themselves (so 1 − p near 0 keeps
    its relative precision, unlike 1 − float(p)).
    """
    s = np.asarray(sizes, dtype=np.int64)
    l00, l01, l10, l11 = logs[0, 0], logs[0, 1], logs[1, 0], logs[1, 1]
    log_in = np.full(s.shape, -np.inf)
    log_out = np.full(s.shape, -np.inf)
    m = s >= 1
    with np.errstate(invalid="ignore"):
        log_in[m] = (
            log_comb(k - 1, s[m] - 1)
            + l11
            + np.where(s[m] > 1, (s[m] - 1) * l01, 0.0)
            + np.where(s[m] < k, (k - s[m]) * l00, 0.0)
        )
        m = s <= k - 1
        log_out[m] = (
            log_comb(k - 1, s[m])
            + l10
            + np.where(s[m] > 0, s[m] * l01, 0.0)
            + np.where(s[m] < k - 1, (k - 1 - s[m]) * l00, 0.0)
        )
    return _Classes(s, log_in, log_out)


def relative_class_error(C, D) -> float | None:
    """max over classes of |mass_C / mass_D − 1| (rigorous upper bound), None if the
    supports differ."""
    if not np.array_equal(C.sizes, D.sizes):
        return None
    out = 0.0
    for x, y in ((C.log_in, D.log_in), (C.log_out, D.log_out)):
        fin = np.isfinite(x)
        if not np.array_equal(fin, np.isfinite(y)):
            return None
        # x - y is exact when the logs are close (Sterbenz); expm1 and exp add a few ulp
        d = np.abs(np.expm1(x[fin] - y[fin]))
        if d.size:
            out = max(out, float((d * (1 + 4 * _U) + 8 * _U).max()))
    return out


def eval_error(k: int, b: np.ndarray) -> float:
    """Bound on the relative error of the stored class masses of ``unary_encoding(k, p, q)``
    against the exact product form of the 2x2 bit channel ``b`` (log-space sums of k terms)."""
    logs = [abs(math.log(v)) for v in (b[0, 0], b[0, 1], b[1, 0], b[1, 1]) if v > 0]
    return LIFT_BAND_FACTOR * (k + 2) * _U * (1.0 + max(logs, default=0.0))


def lifted_refinement(A, B, check=None):
    """A ⊑ B by bitwise lifting, as (BitwiseWitness, relative error, 2x2 result) or None.

    ``check(stage)`` (the caller's time budget, raising when spent) is called between
    the O(k) steps, as ``check(stage, seconds)`` before each product-form check with its
    predicted cost (k times :data:`PRODUCT_FORM_SECONDS_PER_CLASS`).

    Both channels must be one-hot of bit channels b_A, b_B (:func:`bit_channel`);
    b_A ⊑ b_B is decided by :func:`qifldp.refines` on the 2x2 channels (a certified
    verdict, exact arithmetic near the boundary). When it holds with witness w,
    A·w^{⊗k} equals one_hot(b_A·w) up to A's own class error, and B is compared with
    one_hot(b_A·w) class by class, within the rounding of computing two product forms
    (:func:`eval_error` of b_B and of b_A·w), else None (the orbit LP decides). The
    relative error returned bounds |A·W − B| / B per class: A's own class error, B's
    against one_hot(b_A·w), and the rounding of b_A·w.
    """
    # the 2x2 decision first, on the bit channels read from two classes each (O(1)); the
    # product forms are checked on every class (O(k)) only when the bit channels refine
    pair0 = unverified_bit_channels(A, B, check, "bitwise lifting")
    if pair0 is None:
        return None
    ga, gb = pair0
    r2 = explicit_refines(Channel(ga[0]), Channel(gb[0]), strict=True)
    if not r2.holds or r2.up_to_rounding:
        return None
    pair = verified_bit_channels(A, B, check, "bitwise lifting")
    if pair is None:
        return None
    lifted = lifted_witness(A, B, pair[0], pair[1], r2.witness, check)
    if lifted is None:
        return None
    return (*lifted, r2)


def unverified_bit_channels(A, B, check=None, stage: str = "bitwise lifting"):
    """(bit_channel(A, verify=False), bit_channel(B, verify=False)), or None when either
    channel cannot be one-hot of a bit channel (O(1) per channel once its entries are read).
    ``check(stage)`` (the caller's time budget) between the O(k) steps of reading the
    entries the first time (:func:`_class_entries`).

    Any pair of symmetric channels is screened, whatever built them: UE, THE and the
    hashed protocols (local hashing: every other input shares the reported bucket with
    probability 1/g, independently) are all of product form; :func:`verified_bit_channels`
    then checks the product form on every class.

    >>> import qifldp.symmetric as sym
    >>> olh = sym.olh(20, 2.0)  # g = 8 buckets
    >>> [np.round(b[0, 1], 6) for b, _ in unverified_bit_channels(olh, sym.oue(20, 2.0))]
    [np.float64(0.125), np.float64(0.119203)]
    >>> unverified_bit_channels(sym.grr(20, 2.0), olh) is None
    True
    """
    if not (isinstance(A, SymmetricChannel) and isinstance(B, SymmetricChannel)):
        return None
    if check is not None:
        _class_entries(A, check, stage)
    ga = bit_channel(A, verify=False)
    if check is not None and ga is not None:
        _class_entries(B, check, stage)
    gb = None if ga is None else bit_channel(B, verify=False)
    if ga is None or gb is None:
        return None
    return ga, gb


def _table_first(C, check, stage: str) -> None:
    """The binomial table C's classes read (log C(k − 1, s)), built first (its blocks read
    the deadline), then ``check(stage)`` beyond one block: a step timed after it does not
    include it."""
    if reads_table(C.k - 1, C.sizes[C.sizes <= C.k - 1]):
        comb_table(C.k - 1)
        check_large(check, C.k, stage)


def _class_entries(C, check, stage: str) -> None:
    """C's entries per class (log_a, log_b: O(k) each, computed on first access), with
    ``check(stage)`` after the table they read and after each when k is beyond one block
    (:func:`qifldp.symmetric.orbit_lp.check_large`)."""
    _table_first(C, check, stage)
    for entries in ("log_a", "log_b"):
        getattr(C, entries)
        check_large(check, C.k, stage)


def _before_product_form(C, check, stage: str) -> None:
    """``check(stage, seconds)`` before the product-form check of C, with its predicted cost
    (the table it reads built first, so that the check starts only the product form)."""
    _table_first(C, check, stage)
    check(stage, C.k * PRODUCT_FORM_SECONDS_PER_CLASS)


def verified_bit_channels(A, B, check=None, stage: str = "bitwise lifting"):
    """(bit_channel(A), bit_channel(B)), each verified against every class (O(k)), or None
    when either is not of product form; ``check(stage, seconds)`` (the caller's time budget,
    with the check's predicted cost) before each, ``check(stage)`` after.

    >>> import qifldp.symmetric as sym
    >>> (bA, eA), (bB, eB) = verified_bit_channels(sym.oue(10, 1.0), sym.sue(10, 1.0))
    >>> float(bA[1, 1]), eA < 1e-13
    (0.5, True)
    """
    if check is not None:
        _before_product_form(A, check, stage)
    fa = bit_channel(A)
    if check is not None and fa is not None:
        _before_product_form(B, check, stage)
    fb = None if fa is None else bit_channel(B)
    if fa is None or fb is None:
        return None
    if check is not None:
        check(stage)
    return fa, fb


def lifted_result(
    lifted: tuple[BitwiseWitness, float],
    method: str,
    certified_by: str,
    t0: float,
    details: dict[str, Any],
    **flags: Any,
) -> RefinementResult:
    """The RefinementResult "holds" of a lifted witness (BitwiseWitness, relative error)
    from :func:`lifted_witness`: its residual, row sums and least entry stated; ``flags``
    (``up_to_rounding``, ``about``) passed on.

    >>> import qifldp.symmetric as sym
    >>> A, B = sym.sue(8, 2.0), sym.the(8, 2.0, 0.7)
    >>> fa, fb = verified_bit_channels(A, B)
    >>> w = np.linalg.solve(fa[0], fb[0])
    >>> r = lifted_result(lifted_witness(A, B, fa, fb, w), "m", "c", time.perf_counter(), {})
    >>> r.holds, r.min_entry >= 0
    (True, True)
    """
    Wb, err = lifted
    return RefinementResult(
        True,
        witness=Wb,
        method=method,
        certified_by=certified_by,
        residual=err,
        row_sum_error=float(np.abs(Wb.w.sum(axis=1) - 1).max()),
        min_entry=float(Wb.w.min()),
        time=time.perf_counter() - t0,
        details={"bit_witness": Wb.w, **details},
        **flags,
    )


def lifted_witness(A, B, fa, fb, w, check=None) -> tuple[BitwiseWitness, float] | None:
    """The lifted witness w^{⊗k} checked class by class, as (BitwiseWitness, relative
    error), or None when B is not one_hot(b_A·w) within the rounding band.

    ``fa``, ``fb``: the verified bit channels of A and B (:func:`bit_channel`); ``w``: a
    2x2 witness candidate (clipped to >= 0 and its rows renormalised: the witness is
    row-stochastic whatever was passed). A·w^{⊗k} equals one_hot(b_A·w) up to A's own
    class error, and B must match one_hot(b_A·w) within the rounding of computing two
    product forms (:func:`eval_error` of b_B and of b_A·w). The relative error returned
    bounds |A·W − B| / B per class. ``check("bitwise lifting", seconds)`` (the caller's
    time budget, with the predicted cost of the product form) before the O(k) steps,
    ``check("bitwise lifting")`` between them.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> A, B = sym.sue(50, 2.0), sym.the(50, 2.0, 0.7)  # QIF paper, Lemma 11
    >>> w = np.linalg.solve(bit_channel(A)[0], bit_channel(B)[0])
    >>> W, err = lifted_witness(A, B, bit_channel(A), bit_channel(B), w)
    >>> W.k, err < 1e-11
    (50, True)
    """
    (bA, eA), (bB, _) = fa, fb
    w = np.clip(np.asarray(w, dtype=np.float64), 0.0, None)
    w = w / w.sum(axis=1, keepdims=True)
    D = bA @ w  # entries are sums of non-negative terms: accurate to a few ulp each
    D = D / D.sum(axis=1, keepdims=True)
    if check is not None:
        check("bitwise lifting", A.k * PRODUCT_FORM_SECONDS_PER_CLASS)
    with np.errstate(divide="ignore"):
        classes = product_classes(A.k, np.log(D), B.sizes)
    if check is not None:
        check("bitwise lifting")
    eD = relative_class_error(B, classes)
    if eD is None:
        return None
    k = A.k
    # B must match the product form of b_A·w within the rounding of computing two product
    # forms (B's own, and this one); A matched its own within eval_error (bit_channel)
    if eD > eval_error(k, bB) + eval_error(k, D):
        return None
    return BitwiseWitness(k, w, A, B), eA + eD + 4 * (k + 2) * _U
