"""Posterior mixing: a witness of A ⊑ B into a channel whose columns single out one input.

Let A be an explicit k x n channel with column sums c_y, d >= 0 a weight per output
of A, D = diag(d), M = A D Aᵀ (k x k) and r = M·1 (so r_x = Σ_y A[x, y] d_y c_y). A
column of B of the form ``off + delta [x = j]`` (one input j singled out, or none:
delta = 0) is reached by the column

    w_y = mu d_y A[j, y] + (sigma - mu d_y c_y) / k,   sigma = k off + delta,

of W (A·1 = 1): (A w)_x = mu M[x, j] + (sigma - mu r_x) / k. When M = alpha J + beta I
(r = alpha k + beta for every x), this is off + delta [x = j] exactly for
mu = delta / beta: mu times "sample an input from the weighted posterior of the output",
mixed with the uniform distribution. Every column of a GRR-type channel (GRR, L-GRR:
one class of size 1) and of dBitFlipPM with d = 1, b = k (classes of sizes 1 and k - 1:
the column (j, 1) singles out j with delta > 0, (j, 0) with delta < 0) has this form, and
so has any symmetric channel whose sizes lie in {0, 1, k - 1, k}. The rows of W sum to 1
whenever B's do: Σ_col sigma_col / k = 1, and the terms in d_y cancel (the singled-out
deltas of B sum to the same value at every input). W >= 0 iff

    sigma + mu d_y (k A[j, y] - c_y) >= 0  for every column (j, delta) of B and output y,

i.e. mu max_y d_y (c_y - k min_x A[x, y]) <= sigma where delta > 0 and
|mu| max_y d_y (k max_x A[x, y] - c_y) <= sigma where delta < 0 (for a class of columns
covering every j; checked per column). The Gram matrix M is GRR-type for Hadamard-type
channels (HR, HE, HE with t coefficients merged) by the orthogonality of Hadamard rows,
with d = 1 (the scalar weights) or d = 1/c (the posterior); both are tried.

This route only proves "holds": it returns a witness verified like every other (the
rounding band of :mod:`qifldp.refinement._certify` on the row-normalised channels, then
the API tolerances), or None when the Gram matrix is not GRR-type, mu breaks the
non-negativity condition or the witness fails its check.

The same decision runs from a *Gram form* (alpha, beta, up, down, the weights) however it
was obtained (:func:`mixing_coefficients`): here from A's explicit matrix (screened in
floats, then the witness is built and verified), or from A's closed form without its
channel (exact rationals: :func:`posterior_mixing_from_gram`, e.g.
``protocol("hr", k, eps).gram_form()`` at k = 10^4, where A has 1.6e8 entries).

Lemma (the closed-form route). Let A be a k x n channel with A·1 = 1 exactly,
M = A Aᵀ = alpha J + beta I exactly (beta > 0), c = Aᵀ1, and let B have columns
``off + delta [x = j]`` whose rows all sum to S > 0, the deltas singling out each input
summing to the same D at every input. Then W with column w = mu A[j, :]ᵀ + (sigma − mu c)/k,
sigma = k off + delta, mu = delta / beta, satisfies A·W = B exactly (A w = mu M[:, j] +
(sigma − mu (alpha k + beta))/k = off + delta [x = j]), its rows sum to Σ sigma / k = S, and
W >= 0 when the conditions above hold (up and down bound d_y (c_y − k A[j, y]) and
d_y (k A[j, y] − c_y) for every j and y). So with the rows of B divided by S, A ⊑ B follows from
beta > 0 and the conditions checked in rational arithmetic: W = mu Aᵀ + column offsets
is never materialised.

Layer L4 (symmetric): imports the explicit channel and the refinement certificates.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..channel import MAX_ENTRIES, Channel, as_channel
from ..errors import ChannelError, InputTypeError, SizeError
from ..refinement._certify import UNIT_ROUNDOFF, band_excess, band_text, clean_witness
from ..refinement._screen import cached_view
from ..refinement.result import (
    WITNESS_ENTRY_ATOL,
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    RefinementResult,
)
from ..refinement.witness import MAX_DENSE_WITNESS, row_sums
from .channel import SymmetricChannel

__all__ = [
    "GRAM_MAX_WORK",
    "GRAM_RTOL",
    "GramForm",
    "implicit_mixing_result",
    "mixing_coefficients",
    "posterior_mixing_from_gram",
    "posterior_mixing_witness",
    "single_point_columns",
]

#: The screen of the Gram matrix: A D Aᵀ counts as alpha J + beta I when every entry is
#: within GRAM_RTOL of the largest. A screen only: the witness is verified afterwards.
GRAM_RTOL: float = 1e-10

#: The most products k x k x n (A's n outputs) one Gram matrix A D Aᵀ may cost (he_multi
#: at k = 256, eps = 0.5: 2.9e9 in ~1 s on one core); the Gram matrix and its screen
#: also hold a few k x k arrays, so k^2 is at most :data:`qifldp.channel.MAX_ENTRIES`.
GRAM_MAX_WORK: int = 2**34


def single_point_columns(B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each column of B as ``off + delta [x = j]``: (j, off, delta) per column, or None.

    A constant column has delta = 0 (and j = 0); a column whose entries are one stored
    float at every row but one has j that row; with two rows (k = 2) j is the row of the
    larger entry. The floats are compared as stored (an expanded symmetric channel
    stores one float per class).

    Examples
    --------
    >>> B = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    >>> j, off, delta = single_point_columns(B)
    >>> j.tolist(), off.tolist(), delta.tolist()
    ([0, 1, 2], [0.25, 0.25, 0.25], [0.25, 0.25, 0.25])
    >>> single_point_columns(np.array([[0.5, 0.5], [0.3, 0.7], [0.2, 0.8]])) is None
    True
    """
    k = B.shape[0]
    lo, hi = B.min(axis=0), B.max(axis=0)
    n_lo = (B == lo).sum(axis=0)
    n_hi = (B == hi).sum(axis=0)
    const = lo == hi
    # the singled-out row is the one whose value occurs once (k = 2: the larger entry)
    up = ~const & (n_hi == 1) & (n_lo == k - 1)
    down = ~const & ~up & (n_lo == 1) & (n_hi == k - 1)
    if not np.all(const | up | down):
        return None
    j = np.where(up, B.argmax(axis=0), np.where(down, B.argmin(axis=0), 0))
    off = np.where(up, lo, hi)
    delta = np.where(const, 0.0, np.where(up, hi - lo, lo - hi))
    return j.astype(np.int64), off, delta


@dataclass(frozen=True)
class GramForm:
    """A D Aᵀ = alpha J + beta I for a channel A (A·1 = 1) and weights d, with the bounds
    of the witness's entries: what posterior mixing needs of A, however it was obtained.

    Attributes
    ----------
    k, n : int
        A's inputs and outputs (n may be astronomically large: a closed form).
    alpha, beta : float or fractions.Fraction
        The Gram matrix's off-diagonal value and the excess of its diagonal.
    up, down : float or fractions.Fraction
        max_y d_y (c_y − k min_x A[x, y]) and max_y d_y (k max_x A[x, y] − c_y),
        c the column sums of A.
    exact : bool
        True: the five numbers are exact rationals of the channel described by ``law``
        (:func:`posterior_mixing_from_gram` decides from them alone); False: floats
        screened from an explicit matrix (the witness is then built and verified).
    weights : str
        "scalar" (d = 1) or "posterior" (d = 1/c).
    law : str
        What A is (e.g. a protocol's channel in closed form).
    deviation : float
        max |A D Aᵀ − alpha J − beta I| over its largest entry (0 for a closed form).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> G = GramForm(3, 3, F(1, 12), F(1, 4), F(1, 2), F(1, 2), True, law="toy")
    >>> G.applies, G.beta
    (True, Fraction(1, 4))
    """

    k: int
    n: int
    alpha: Any
    beta: Any
    up: Any
    down: Any
    exact: bool
    weights: str = "scalar"
    law: str = ""
    deviation: float = 0.0

    @property
    def applies(self) -> bool:
        """beta > 0, and (screened forms) the Gram matrix within :data:`GRAM_RTOL` of the form."""
        return bool(self.beta > 0) and (self.exact or self.deviation <= GRAM_RTOL)


def mixing_coefficients(form: GramForm, off: Any, delta: Any) -> Any:
    """mu = delta / beta per column ``off + delta [x = j]`` of B when W >= 0, else None.

    The condition of the module: mu up <= sigma where delta > 0, |mu| down <= sigma
    where delta < 0, sigma = k off + delta. An exact form takes sequences of Fraction
    (the columns of B read exactly) and decides in rational arithmetic; a screened form
    takes float arrays and lets the condition pass within 8 n u relative (its witness
    is verified afterwards).

    Parameters
    ----------
    form : GramForm
    off, delta : array_like of float, or sequences of Fraction (exact forms)
        One entry per column (or class of columns) of B.

    Returns
    -------
    numpy.ndarray, list of Fraction, or None
        mu per column (a list of Fraction for an exact form); None when the form does
        not apply (beta <= 0, or a screened Gram matrix off the form) or W would have a
        negative entry.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> G = GramForm(3, 3, F(1, 12), F(1, 4), F(1, 2), F(1, 2), True)
    >>> mixing_coefficients(G, [F(1, 6)], [F(1, 6)])  # sigma = 2/3 >= (2/3) (1/2)
    [Fraction(2, 3)]
    >>> mixing_coefficients(G, [F(0)], [F(1)]) is None  # sigma = 1 < 4 (1/2)
    True
    """
    if not form.applies:
        return None
    k = form.k
    if form.exact:
        mu = [d / form.beta for d in delta]
        for o, d, m in zip(off, delta, mu, strict=True):
            sigma = k * o + d
            need = m * form.up if d > 0 else (-m * form.down if d < 0 else 0)
            if need > sigma:
                return None
        return mu
    off, delta = np.asarray(off, dtype=float), np.asarray(delta, dtype=float)
    sigma = k * off + delta
    m = delta / form.beta
    need = np.where(m > 0, m * form.up, np.where(m < 0, -m * form.down, 0.0))
    if np.any(need > sigma * (1.0 + 8.0 * form.n * UNIT_ROUNDOFF)):
        return None
    return m


class _Gram:
    """A D Aᵀ = alpha J + beta I for one choice of weights d, screened in floats."""

    def __init__(self, A: np.ndarray, name: str, d: np.ndarray) -> None:
        k, n = A.shape
        M = (A * d) @ A.T
        mask = ~np.eye(k, dtype=bool)
        self.name, self.d = name, d
        alpha = float(M[mask].mean())
        beta = float(np.diag(M).mean()) - alpha
        ideal = alpha + beta * np.eye(k)
        scale = float(np.abs(M).max())
        deviation = float(np.abs(M - ideal).max()) / scale if scale > 0 else 0.0
        c = A.sum(axis=0)
        self.c = c
        # the non-negativity bounds: mu > 0 needs mu * up <= sigma, mu < 0 |mu| * down <= sigma
        up = float((d * (c - k * A.min(axis=0))).max())
        down = float((d * (k * A.max(axis=0) - c)).max())
        self.form = GramForm(k, n, alpha, beta, up, down, False, name, "explicit", deviation)


def _scalar(A: np.ndarray) -> _Gram:
    return _Gram(A, "scalar", np.ones(A.shape[1]))


def _posterior(A: np.ndarray) -> _Gram:
    c = A.sum(axis=0)
    return _Gram(A, "posterior", np.where(c > 0, 1.0 / np.where(c > 0, c, 1.0), 0.0))


def _grams(A: np.ndarray) -> Iterator[_Gram]:
    """The two weightings tried in turn, d = 1 (scalar) and d = 1/c (posterior), each
    formed on first use and kept per A (a cell tries one A against several B)."""
    for name, make in (("scalar", _scalar), ("posterior", _posterior)):
        yield cached_view(A, f"posterior mixing gram, {name}", make)


def _target(B: Any, k: int) -> np.ndarray | None:
    """B's explicit matrix (a symmetric channel of sizes in {0, 1, k-1, k} expanded lumped),
    or None when a symmetric B has other sizes."""
    if isinstance(B, SymmetricChannel):
        if B.k != k:
            msg = f"A and B must have the same inputs: A has {k}, B has {B.k}"
            raise ChannelError(msg)
        if not B.singles_out_one_input():
            return None
        return B.expand(lumped=True).matrix
    if isinstance(B, Channel) or isinstance(B, (list, tuple, np.ndarray)):
        M = as_channel(B, "B").matrix
        if M.shape[0] != k:
            msg = f"A and B must have the same inputs: A has {k}, B has {M.shape[0]}"
            raise ChannelError(msg)
        return M
    msg = (
        "B must be a SymmetricChannel, a Channel or a 2-D array (its explicit form), "
        f"got {type(B).__name__}"
    )
    raise InputTypeError(msg)


def posterior_mixing_witness(A: Any, B: Any) -> RefinementResult | None:
    """A verified witness of A ⊑ B by posterior mixing, or None when it does not apply.

    Every column of B must single out at most one input (``off + delta [x = j]``:
    GRR, L-GRR, dBitFlipPM with d = 1 and b = k, any symmetric channel of sizes in
    {0, 1, k-1, k}) and A D Aᵀ must be alpha J + beta I (beta > 0) for the weights
    d = 1 or d = 1/c (the column sums of A); see the module for the construction and
    the condition W >= 0. It proves only "holds": None says nothing about A ⊑ B.

    Parameters
    ----------
    A : Channel or array_like, shape (k, n)
        The explicit channel that should refine B (e.g. HR, HE, HE with t
        coefficients merged).
    B : SymmetricChannel, Channel or array_like
        On the same k inputs; a symmetric channel is expanded lumped (one output per
        subset: 2k + 2 at most for the sizes accepted).

    Returns
    -------
    RefinementResult or None
        ``holds`` True, ``method`` "posterior mixing", the witness W (n x outputs of
        B, dense), verified: |A·W − B| within the rounding band
        (:func:`qifldp.refinement._certify.band_excess`) on the row-normalised
        channels and rows of W summing to 1 within 8 (|Y_B| + 2) u, then the API
        tolerances on the channels as given. ``details`` has ``weights``
        ("scalar" or "posterior"), ``mu`` (one per column of B), ``alpha``, ``beta``
        and ``gram_deviation`` (max |A D Aᵀ − alpha J − beta I| over its largest entry).
        None when B's columns do not have the form, the Gram matrix is not GRR-type
        (within :data:`GRAM_RTOL`), W would have a negative entry, or the check fails.

    Raises
    ------
    InputTypeError
        B of another type.
    ChannelError
        A and B on different numbers of inputs, or not channels.
    SizeError
        B's columns have the form but the Gram matrix would cost more than
        :data:`GRAM_MAX_WORK` products or hold more than
        :data:`qifldp.channel.MAX_ENTRIES` entries (before it is formed), or the
        construction applies but W would have more than
        :data:`qifldp.refinement.witness.MAX_DENSE_WITNESS` entries.

    Examples
    --------
    Hadamard response on 3 values (4 outputs) refines GRR at a small enough eps:

    >>> import qifldp as q
    >>> import qifldp.symmetric as sym
    >>> A = q.protocol("hr", 3, 2.0).channel()
    >>> r = posterior_mixing_witness(A, sym.grr(3, 0.5))
    >>> bool(r), r.method, bool(np.allclose(A.matrix @ r.witness, sym.grr(3, 0.5).expand().matrix))
    (True, 'posterior mixing', True)
    >>> posterior_mixing_witness(A, sym.grr(3, 4.0)) is None  # past what mixing reaches
    True
    """
    t0 = time.perf_counter()
    A_ch = as_channel(A, "A")
    Am = A_ch.matrix
    k, n = Am.shape
    Bm = _target(B, k)
    if Bm is None:
        return None
    cols = single_point_columns(Bm)
    if cols is None:
        return None
    j, off, delta = cols
    if k * k * n > GRAM_MAX_WORK or k * k > MAX_ENTRIES:
        msg = (
            f"posterior mixing: the Gram matrix A D Aᵀ of A ({k} x {n}) would cost {k} x {k} "
            f"x {n} = {k * k * n:.3g} products (GRAM_MAX_WORK = {GRAM_MAX_WORK:.3g}) and hold "
            f"{k * k:.3g} entries (MAX_ENTRIES = {MAX_ENTRIES:.0e}); a smaller k, or the LP "
            "routes of qifldp.refines"
        )
        raise SizeError(msg)
    sigma = k * off + delta
    for G in _grams(Am):
        mu = mixing_coefficients(G.form, off, delta)
        if mu is None:
            continue
        m = Bm.shape[1]
        if n * m > MAX_DENSE_WITNESS:
            msg = (
                f"the posterior-mixing witness would have {n} x {m} = {n * m} entries "
                f"(> MAX_DENSE_WITNESS = {MAX_DENSE_WITNESS}); A has {n} outputs"
            )
            raise SizeError(msg)
        dA = G.d[:, None] * Am[j, :].T  # (n, m): d_y A[j_col, y]
        W = mu[None, :] * dA + (sigma[None, :] - np.outer(G.d * G.c, mu)) / k
        res = _verified(Am, Bm, W, t0, G, mu)
        if res is not None:
            return res
    return None


def _symmetric_classes(B: SymmetricChannel) -> list[tuple[Fraction, Fraction, int]] | None:
    """The column classes (off, delta, columns) of a symmetric B of sizes in {0, 1, k-1, k},
    its entries a_s = exp(log_a), b_s = exp(log_b) (the floats of its expansion) read
    exactly; None for other sizes."""
    k = B.k
    if not B.singles_out_one_input():
        return None
    out = []
    for s, la, lb in zip(B.sizes.tolist(), np.exp(B.log_a), np.exp(B.log_b), strict=True):
        a, b = Fraction(float(la)), Fraction(float(lb))
        if s == 0:
            out.append((b, Fraction(0), 1))
        elif s == k:
            out.append((a, Fraction(0), 1))
        elif s == 1:  # the column {j}: a_1 at j, b_1 elsewhere (k = 2: also size k - 1)
            out.append((b, a - b, k))
        else:  # s = k - 1: the column of all inputs but j
            out.append((a, b - a, k))
    return out


def _matrix_classes(Bm: np.ndarray) -> list[tuple[Fraction, Fraction, int]] | None:
    """The distinct column classes (off, delta, columns) of an explicit B read exactly, or
    None when its columns do not single out one input or the singled-out entries differ
    between inputs (then B's rows need not share one sum)."""
    cols = single_point_columns(Bm)
    if cols is None:
        return None
    j, off, delta = cols
    k = Bm.shape[0]
    hi = Bm[j, np.arange(Bm.shape[1])]  # the singled-out entry (off for a constant column)
    one = delta != 0
    if np.any(one):
        counts = np.bincount(j[one], minlength=k)
        if np.any(counts != counts[0]):
            return None
        order = np.lexsort((off[one], hi[one], j[one]))
        pairs = np.stack([hi[one][order], off[one][order]], axis=1).reshape(k, -1)
        if np.any(pairs != pairs[0]):
            return None
    keys, counts = np.unique(np.stack([off, hi], axis=1), axis=0, return_counts=True)
    return [
        (Fraction(float(o)), Fraction(float(h)) - Fraction(float(o)), int(c))
        for (o, h), c in zip(keys, counts, strict=True)
    ]


def posterior_mixing_from_gram(form: GramForm, B: Any) -> RefinementResult | None:
    """A ⊑ B proved from A's exact Gram form, without A's channel (the module's lemma).

    Parameters
    ----------
    form : GramForm
        Exact (``form.exact``): e.g. a protocol's ``gram_form()`` (HR, HE, HE with t
        coefficients: O(K log K) work for K Hadamard indices, never the channel).
    B : SymmetricChannel, Channel or array_like
        On the same k inputs; a symmetric channel of sizes in {0, 1, k-1, k} is read
        from its class entries (nothing expanded: any k).

    Returns
    -------
    RefinementResult or None
        ``holds`` True, ``exact`` True, ``method`` "posterior mixing", ``witness``
        None: W = mu Aᵀ + column offsets is implicit (never materialised; ``details``
        has ``witness`` saying so, ``mu`` one Fraction per class of columns of B,
        ``columns`` their (off, delta, count), ``alpha``, ``beta``, ``up``, ``down``,
        ``row_sum_b`` (B's exact row sum S: the verdict is about B's stored floats
        with rows divided by S, like every exact verdict) and ``law``). None when
        B's columns do not single out one input each way with one row sum, beta <= 0,
        or the condition W >= 0 fails in rational arithmetic (nothing is then said).

    Raises
    ------
    InputTypeError
        ``form`` not an exact GramForm, or B of another type.
    ChannelError
        A and B on different numbers of inputs.

    Examples
    --------
    >>> import qifldp as q
    >>> import qifldp.symmetric as sym
    >>> G = q.protocol("hr", 10**4, 0.5).gram_form()  # A: 10^4 x 16384, never built
    >>> r = posterior_mixing_from_gram(G, sym.grr(10**4, 0.001))
    >>> bool(r), r.exact, r.witness is None
    (True, True, True)
    >>> posterior_mixing_from_gram(G, sym.grr(10**4, 0.5)) is None
    True
    """
    t0 = time.perf_counter()
    if not isinstance(form, GramForm) or not form.exact:
        msg = f"form must be an exact GramForm (a protocol's gram_form()), got {form!r}"
        raise InputTypeError(msg)
    k = form.k
    if isinstance(B, SymmetricChannel):
        if B.k != k:
            msg = f"A and B must have the same inputs: A has {k}, B has {B.k}"
            raise ChannelError(msg)
        classes = _symmetric_classes(B)
    else:
        Bm = _target(B, k)
        classes = None if Bm is None else _matrix_classes(Bm)
    if classes is None:
        return None
    # every row of B: each class's off at all its c columns, plus its delta at the c / k
    # of them that single the row's input out (the same c / k for every input)
    S = sum((c * o + Fraction(c, k) * d for o, d, c in classes), Fraction(0))
    if not S > 0:
        return None
    mu = mixing_coefficients(form, [o / S for o, _, _ in classes], [d / S for _, d, _ in classes])
    if mu is None:
        return None
    how = (
        f"posterior mixing from A's exact Gram form ({form.law}; {form.weights} weights): "
        f"A Aᵀ = alpha J + beta I with alpha = {float(form.alpha):.6g}, beta = "
        f"{float(form.beta):.6g}, up = {float(form.up):.6g}, down = {float(form.down):.6g} "
        "as rationals; the witness W = mu Aᵀ + column offsets (mu = delta / beta per column "
        "of B) is implicit, not materialised: A·W = B (rows of B divided by their exact sum) "
        "and W·1 = 1 follow from the Gram form, W >= 0 from mu up <= sigma and |mu| down "
        "<= sigma, checked in rational arithmetic"
    )
    return implicit_mixing_result(
        how,
        t0,
        {
            "witness": "implicit: W = mu Aᵀ + column offsets (sigma − mu c) / k, not materialised",
            "weights": form.weights,
            "mu": tuple(mu),
            "columns": tuple(classes),
            "alpha": form.alpha,
            "beta": form.beta,
            "up": form.up,
            "down": form.down,
            "row_sum_b": S,
            "law": form.law,
        },
    )


def implicit_mixing_result(how: str, t0: float, details: dict[str, Any]) -> RefinementResult:
    """The verdict of an implicit posterior-mixing witness (checked in rationals by the
    caller): holds, exact, no witness matrix, its parameters in ``details``.

    Examples
    --------
    >>> r = implicit_mixing_result("checked", time.perf_counter(), {"mu": 1})
    >>> r.holds, r.exact, r.witness is None, r.method
    (True, True, True, 'posterior mixing')
    """
    return RefinementResult(
        holds=True,
        method="posterior mixing",
        exact=True,
        certified_by=how,
        time=time.perf_counter() - t0,
        details=details,
    )


def _verified(
    A: np.ndarray, B: np.ndarray, W: np.ndarray, t0: float, G: _Gram, mu: np.ndarray
) -> RefinementResult | None:
    """The result for W after the project's witness checks, or None when W fails them."""
    W = clean_witness(W, True)
    An = A / A.sum(axis=1, keepdims=True)
    Bn = B / B.sum(axis=1, keepdims=True)
    excess, resid_n = band_excess(An, Bn, W)
    if not excess <= 0:
        return None
    if not float(np.abs(row_sums(W) - 1.0).max()) <= 8.0 * (B.shape[1] + 2) * UNIT_ROUNDOFF:
        return None
    resid = float(np.abs(A @ W - B).max())
    rs = float(np.abs(row_sums(W) - 1.0).max())
    mn = float(W.min())
    if not (
        mn >= -WITNESS_ENTRY_ATOL and resid <= WITNESS_RESIDUAL_ATOL and rs <= WITNESS_ROW_SUM_ATOL
    ):
        return None
    top = float(np.abs(mu).max())
    how = (
        f"posterior mixing ({G.name} weights, max |mu| = {top:.6g}, A D Aᵀ = alpha J + beta I "
        f"within {G.form.deviation:.2g} of its largest entry): " + band_text(resid_n)
    )
    return RefinementResult(
        holds=True,
        witness=W,
        method="posterior mixing",
        exact=False,
        certified_by=how,
        residual=resid,
        row_sum_error=rs,
        min_entry=mn,
        time=time.perf_counter() - t0,
        details={
            "weights": G.name,
            "mu": mu,
            "alpha": G.form.alpha,
            "beta": G.form.beta,
            "gram_deviation": G.form.deviation,
        },
    )
