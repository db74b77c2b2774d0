"""The symmetric (lumped) channel: a permutation-invariant protocol stored by size classes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..attributes import EqualByKey, ReadOnly
from ..channel import ROW_SUM_ATOL, Channel, guard_size
from ..errors import ChannelError, InputTypeError, SizeError, UnsupportedKindError
from ..refinement._certify import gamma
from ..validation import check_int
from .binomial import log_comb, logsumexp

__all__ = [
    "SymmetricChannel",
    "MAX_CLASSES",
    "CLASS_BYTES",
    "guard_classes",
    "restriction_rounding",
    "RESTRICTED_MAX_INPUTS",
    "RESTRICTED_MAX_WORK",
]

_ALTERNATIVE = "the symmetric channel itself (its measures and refines need no expansion)"

#: Largest number of size classes a symmetric constructor builds. Building costs about
#: CLASS_BYTES bytes per class at its peak (measured: 95 MB for k = 10^6, 0.93 GB for
#: k = 10^7), so 10^7 classes is about 1 GB; the refinement routes are measured up to
#: k = 10^6 (benchmarks/bench_lumped.py).
MAX_CLASSES: int = 10**7
#: Peak bytes per size class while a symmetric constructor builds its class tables.
CLASS_BYTES: int = 100
#: Most inputs :meth:`SymmetricChannel.restricted` keeps: its coefficients C(r - 1, t)
#: are floats (C(1023, 511) < 2^1018; r = 1600 overflowed).
RESTRICTED_MAX_INPUTS: int = 1024
#: Most r^2 x len(sizes) ratio products :meth:`SymmetricChannel.restricted` forms
#: (measured ~5.6 ns each: sue(10^6, 1).restricted(32), 1.0e9 of them, in 5.7 s).
RESTRICTED_MAX_WORK: int = 2**30


def guard_classes(what: str, n_classes: int) -> None:
    """Refuse a symmetric channel of more than :data:`MAX_CLASSES` size classes before
    anything is allocated, naming its memory and what answers without classes.

    Raises
    ------
    SizeError
        ``n_classes > MAX_CLASSES``.

    Examples
    --------
    >>> guard_classes("oue(k=10, eps=1)", 11)
    >>> guard_classes("oue(k=10^9, eps=1)", 10**9 + 1)
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: oue(k=10^9, eps=1) would have 1000000001 size classes ...
    """
    if n_classes <= MAX_CLASSES:
        return
    msg = (
        f"{what} would have {n_classes} size classes and need about "
        f"{n_classes * CLASS_BYTES / 2**30:.3g} GiB to build ({CLASS_BYTES} bytes per class); "
        f"the limit is MAX_CLASSES = {MAX_CLASSES:.0e} classes (k up to 10^7 on one machine; "
        "refinement measured to k = 10^6). Without classes: the closed forms of "
        "qifldp.formulas (bayes_capacity_grr/_ss/_lh/_sue/_oue/_the at any k) and the "
        "protocol object's parameters (qifldp.protocol(name, k, eps).params); or a smaller k"
    )
    raise SizeError(msg)


def _as_log_array(name: str, values: Any, n: int) -> np.ndarray:
    try:
        arr = np.array(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        msg = f"{name} must be a 1-D array of real numbers (log-probabilities)"
        raise InputTypeError(msg) from None
    if arr.shape != (n,):
        msg = f"{name} must have one entry per subset size ({n}), got {arr.shape[0]}"
        raise ChannelError(msg)
    if np.any(np.isnan(arr)) or np.any(arr == np.inf):
        msg = f"{name} must hold log-probabilities (finite or -inf), got NaN or +inf"
        raise ChannelError(msg)
    return arr


def _check_sizes(sizes: Any, k: int) -> np.ndarray:
    """Subset sizes as a strictly ascending int64 array in 0..k (vectorised checks)."""
    if isinstance(sizes, np.ndarray) and sizes.dtype.kind in "iu":
        arr = sizes.astype(np.int64).reshape(-1)
    else:
        try:
            arr = np.array([check_int("sizes[i]", s, minimum=0) for s in sizes], dtype=np.int64)
        except TypeError:
            msg = "sizes must be a sequence of integers"
            raise InputTypeError(msg) from None
    if arr.size == 0:
        msg = "sizes must not be empty"
        raise ChannelError(msg)
    if arr.min() < 0 or arr.max() > k:
        msg = f"sizes must lie in 0..k = 0..{k}, got {int(arr.min())}..{int(arr.max())}"
        raise ChannelError(msg)
    if np.any(np.diff(arr) <= 0):
        msg = "sizes must be strictly ascending"
        raise ChannelError(msg)
    return arr


class SymmetricChannel(EqualByKey):
    """A channel on inputs 0..k-1 invariant under every permutation of the inputs.

    Up to merging outputs with proportional columns (an equivalence under
    refinement both ways, see :meth:`qifldp.Channel.reduced`), every protocol of
    the QIF paper is a *subset channel*: its outputs are subsets S of
    {0, ..., k-1} of some sizes s, and the column of S is a_s on the inputs in S
    and b_s on the others. This class stores such a channel by its subset-size
    classes, in log space, so that k = 10^6 costs O(k) memory.

    Parameters
    ----------
    k : int
        Number of inputs, ``k >= 2``.
    sizes : sequence of int
        The subset sizes s of the outputs, strictly ascending in 0..k.
    log_in, log_out : array_like of float, shape (len(sizes),)
        For one input x (any x, by symmetry): ``log_in[i]`` = log Pr[the output
        has size sizes[i] and contains x | x] and ``log_out[i]`` = log Pr[size
        sizes[i], x not in it | x]; ``-inf`` for probability 0 (``log_in`` must
        be ``-inf`` for s = 0 and ``log_out`` for s = k). They must sum to 1
        within :data:`qifldp.channel.ROW_SUM_ATOL`.
    name : str, optional
        A description used by ``repr`` (the constructors set it).

    Attributes
    ----------
    k : int
    sizes : numpy.ndarray of int (read-only)
    log_in, log_out : numpy.ndarray of float (read-only)
    name : str

    Raises
    ------
    InputTypeError
        Non-integer ``k`` or sizes, non-numeric log arrays.
    ParameterError
        ``k < 2``.
    ChannelError
        Sizes out of range or not ascending, wrong lengths, NaN/+inf, impossible
        classes with positive mass, or class masses not summing to 1.

    Notes
    -----
    The per-output entries are a_s = P_in(s) / C(k-1, s-1) and
    b_s = P_out(s) / C(k-1, s) (:attr:`log_a`, :attr:`log_b`); keeping the class
    masses P_in, P_out (probabilities that sum to 1) instead of the entries keeps
    every computation well scaled: e.g. a_s / b_s = (P_in / P_out) (k - s) / s
    needs no binomial coefficient at all. Build channels with the constructors
    :func:`qifldp.symmetric.grr` etc.; :meth:`expand` gives the explicit channel.

    Examples
    --------
    Randomized response on 3 values with e^eps = 2 (p = 1/2, q = 1/4):

    >>> import math
    >>> C = SymmetricChannel(3, [1], [math.log(0.5)], [math.log(0.5)])
    >>> C.expand().matrix
    array([[0.5 , 0.25, 0.25],
           [0.25, 0.5 , 0.25],
           [0.25, 0.25, 0.5 ]])
    """

    __slots__ = (
        "_k",
        "_sizes",
        "_log_in",
        "_log_out",
        "_log_ratio",
        "_name",
        "_scheme",
        "_masses",
        "_exact_log_ratio",
        "_log_a",
        "_log_b",
    )

    def __init__(
        self,
        k: int,
        sizes: Sequence[int],
        log_in: Any,
        log_out: Any,
        *,
        name: str | None = None,
    ) -> None:
        self._init(k, sizes, log_in, log_out, name, ("subsets",), None)

    def _init(
        self, k, sizes, log_in, log_out, name, scheme, log_ratio, exact_log_ratio=None
    ) -> None:
        k = check_int("k", k, minimum=2)
        s_arr = _check_sizes(sizes, k)
        li = _as_log_array("log_in", log_in, s_arr.size)
        lo = _as_log_array("log_out", log_out, s_arr.size)
        if np.any(li[s_arr == 0] > -np.inf):
            msg = "log_in must be -inf for size 0 (no input lies in the empty set)"
            raise ChannelError(msg)
        if np.any(lo[s_arr == k] > -np.inf):
            msg = f"log_out must be -inf for size k = {k} (every input lies in the full set)"
            raise ChannelError(msg)
        total = float(logsumexp(np.concatenate([li, lo])))
        if not abs(math.expm1(total)) <= ROW_SUM_ATOL:
            msg = f"the class masses must sum to 1 (within {ROW_SUM_ATOL}), got {math.exp(total)!r}"
            raise ChannelError(msg)
        for arr in (s_arr, li, lo):
            arr.setflags(write=False)
        # ln(a_s / b_s) where both entries are positive (else 0; _log_ratios checks zeros)
        both = (li > -np.inf) & (lo > -np.inf)
        ratio = np.zeros(s_arr.size)
        if log_ratio is None:
            sf = s_arr[both].astype(np.float64)
            ratio[both] = li[both] - lo[both] + np.log((k - sf) / sf)
        else:
            ratio[both] = np.broadcast_to(np.asarray(log_ratio, dtype=np.float64), s_arr.shape)[
                both
            ]
        ratio.setflags(write=False)
        self._k, self._sizes, self._log_in, self._log_out = k, s_arr, li, lo
        self._log_ratio = ratio
        self._name = name if name is not None else f"subset channel (k={k})"
        self._scheme = scheme
        self._masses: tuple[np.ndarray, np.ndarray] | None = None
        self._log_a: np.ndarray | None = None  # the entries, computed on first use
        self._log_b: np.ndarray | None = None
        self._exact_log_ratio = None if exact_log_ratio is None else float(exact_log_ratio)

    @classmethod
    def _make(
        cls, k, sizes, log_in, log_out, name, scheme, log_ratio=None, exact_log_ratio=None
    ) -> SymmetricChannel:
        """Constructor for the protocol builders: ``log_ratio`` = ln(a_s / b_s) known to a few
        ulp; ``exact_log_ratio`` the real ln(a_s / b_s) of every class with both entries
        positive, exactly, where a closed-form identity of the protocol gives it."""
        obj = cls.__new__(cls)
        obj._init(k, sizes, log_in, log_out, name, scheme, log_ratio, exact_log_ratio)
        return obj

    @classmethod
    def _from_bit_table(cls, alpha: Any, name: str | None = None) -> SymmetricChannel:
        """The one-hot channel with explicit entries C[x, y] = alpha[y_x, |y|] (k = alpha cols - 1).

        ``alpha`` has shape (2, k + 1): ``alpha[1, s]`` = a_s (output y with bit x set and
        s ones), ``alpha[0, s]`` = b_s; the impossible entries alpha[1, 0] and alpha[0, k]
        are ignored (NaN allowed). Sizes whose classes both have zero mass are dropped
        (their outputs expand to zero columns). Class masses P_in(s) = C(k-1, s-1) a_s,
        P_out(s) = C(k-1, s) b_s, in log space; ``expand()`` gives all k-bit tuples.

        Raises
        ------
        ChannelError
            A shape other than (2, k + 1) with k >= 2, a negative or non-finite
            entry, or rows not summing to 1.

        Examples
        --------
        Two bits, each 1 w.p. 3/4 for its own input and 1/4 otherwise (one-hot UE):

        >>> alpha = [[3 / 16, 1 / 16, np.nan], [np.nan, 9 / 16, 3 / 16]]
        >>> C = SymmetricChannel._from_bit_table(alpha)
        >>> C.expand().matrix.round(6)
        array([[0.1875, 0.0625, 0.5625, 0.1875],
               [0.1875, 0.5625, 0.0625, 0.1875]])
        """
        try:
            al = np.array(alpha, dtype=np.float64)
        except (TypeError, ValueError):
            msg = "alpha must be a (2, k + 1) array of real numbers"
            raise InputTypeError(msg) from None
        if al.ndim != 2 or al.shape[0] != 2 or al.shape[1] < 3:
            msg = f"alpha must have shape (2, k + 1) with k >= 2, got {al.shape}"
            raise ChannelError(msg)
        k = al.shape[1] - 1
        s = np.arange(k + 1)
        a, b = al[1, 1:], al[0, :k]  # a_s for s = 1..k, b_s for s = 0..k-1
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            msg = "alpha must be finite where a class exists (y_x = 1, |y| >= 1; y_x = 0, |y| < k)"
            raise ChannelError(msg)
        if np.any(a < 0) or np.any(b < 0):
            msg = "alpha must be non-negative (its entries are channel entries)"
            raise ChannelError(msg)
        log_in = np.full(k + 1, -np.inf)
        log_out = np.full(k + 1, -np.inf)
        with np.errstate(divide="ignore"):
            log_in[1:] = np.log(a) + log_comb(k - 1, s[:k])
            log_out[:k] = np.log(b) + log_comb(k - 1, s[:k])
            la = np.concatenate([[-np.inf], np.log(a)])
            lb = np.concatenate([np.log(b), [-np.inf]])
        keep = (log_in > -np.inf) | (log_out > -np.inf)
        if not np.any(keep):
            msg = "alpha has no positive entry: the rows cannot sum to 1"
            raise ChannelError(msg)
        with np.errstate(invalid="ignore"):
            ratio = np.where((la > -np.inf) & (lb > -np.inf), la - lb, 0.0)
        return cls._make(
            k,
            s[keep],
            log_in[keep],
            log_out[keep],
            name if name is not None else f"one-hot bit channel (k={k})",
            ("bits",),
            log_ratio=ratio[keep],
        )

    # -- basic attributes ---------------------------------------------------------
    k = ReadOnly[int]("Number of inputs.")
    n_inputs = ReadOnly[int]("Number of inputs (= k).", slot="_k")
    sizes = ReadOnly[np.ndarray]("Subset sizes of the (lumped) outputs, ascending.")
    log_in = ReadOnly[np.ndarray]("log Pr[output of size s containing x | x], one per size.")
    log_out = ReadOnly[np.ndarray]("log Pr[output of size s not containing x | x], one per size.")
    name = ReadOnly[str]("Description of the protocol.")
    scheme = ReadOnly[tuple](
        "How :meth:`expand` forms the outputs: ``('bits',)`` (k-bit vectors: UE, THE), "
        "``('lh', g)`` ((hash, value) pairs of local hashing with g buckets), ``('grr',)`` "
        "(the k values) or ``('subsets',)`` (one output per subset)."
    )

    @property
    def inputs(self) -> range:
        """The input labels 0..k-1."""
        return range(self._k)

    @property
    def log_a(self) -> np.ndarray:
        """log a_s: the entry C[x, S] of a lumped output S of size s with x in S.

        ``-inf`` where the class is empty. Absolute error a few ulp of log C(k-1, s-1).
        Computed on first access and kept (a read-only array: the channel is immutable).

        >>> import qifldp.symmetric as sym
        >>> round(float(np.exp(sym.grr(3, 0.0).log_a[0])), 12)
        0.333333333333
        """
        if self._log_a is None:  # computed once (the channel is immutable), read-only
            s = self._sizes
            out = np.full(s.shape, -np.inf)
            m = s > 0
            out[m] = self._log_in[m] - log_comb(self._k - 1, s[m] - 1)
            out.setflags(write=False)
            self._log_a = out
        return self._log_a

    @property
    def log_b(self) -> np.ndarray:
        """log b_s: the entry C[x, S] of a lumped output S of size s with x not in S.

        >>> import qifldp.symmetric as sym
        >>> round(float(np.exp(sym.grr(3, 0.0).log_b[0])), 12)
        0.333333333333
        """
        if self._log_b is None:
            s = self._sizes
            out = np.full(s.shape, -np.inf)
            m = s < self._k
            out[m] = self._log_out[m] - log_comb(self._k - 1, s[m])
            out.setflags(write=False)
            self._log_b = out
        return self._log_b

    @property
    def log_ratio(self) -> np.ndarray:
        """ln(a_s / b_s) per size where both entries are positive (0 elsewhere).

        The protocol constructors set it from its closed form (e.g. eps for GRR, SS
        and LH; ln(p (1-q) / ((1-p) q)) for UE), exact to a few ulp; derived from
        log_in - log_out it would carry an error of a few ulp of |log_in|, ~1e-10
        in the far tails at k = 10^6.

        >>> import qifldp.symmetric as sym
        >>> sym.grr(10**6, 3.0).log_ratio.tolist()
        [3.0]
        """
        return self._log_ratio

    @property
    def exact_log_ratio(self) -> float | None:
        """The real ln(a_s / b_s), exactly, of every class with both entries positive, or None.

        Set by the protocol constructors whose closed forms make every such ratio e^eps
        (GRR, SS and LH by their definition p = e^eps q; SUE and OUE by the identity
        p (1-q) / ((1-p) q) = e^eps of their bit probabilities): the value is then the
        protocol's eps, an exact number, so two channels' ratios are equal in the reals
        iff these floats are equal. None for other channels (THE, UE with free p and q,
        channels built from class masses), whose :attr:`log_ratio` is known to a few ulp.

        >>> import qifldp.symmetric as sym
        >>> sym.sue(10, 2.0).exact_log_ratio, sym.the(10, 2.0, 0.8).exact_log_ratio
        (2.0, None)
        """
        return self._exact_log_ratio

    def class_masses(self) -> tuple[np.ndarray, np.ndarray]:
        """The class masses (P_in(s), P_out(s)) as probabilities (tiny ones underflow to 0).

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            Each of shape (len(sizes),); together they sum to 1.

        Examples
        --------
        >>> import math, qifldp.symmetric as sym
        >>> [v.round(6).tolist() for v in sym.grr(3, math.log(2)).class_masses()]
        [[0.5], [0.5]]
        """
        if self._masses is None:  # exp of 2 (k + 1) logs once (0.25 s at k = 10^6), then copies
            self._masses = (np.exp(self._log_in), np.exp(self._log_out))
        return self._masses[0].copy(), self._masses[1].copy()

    def exact_class_masses(self) -> list[tuple[int, Fraction, Fraction]]:
        """(size, P_in, P_out) per class: :meth:`class_masses`' stored floats as rationals,
        divided by their exact total (what the exact routes read a symmetric channel as).

        Examples
        --------
        >>> import qifldp.symmetric as sym
        >>> sym.grr(2, 0.0).exact_class_masses()
        [(1, Fraction(1, 2), Fraction(1, 2))]
        """
        pin, pout = self.class_masses()
        fin = [Fraction(float(v)) for v in pin]
        fout = [Fraction(float(v)) for v in pout]
        total = sum(fin) + sum(fout)
        sizes = self._sizes.tolist()
        return [(s, a / total, b / total) for s, a, b in zip(sizes, fin, fout, strict=True)]

    def singles_out_one_input(self) -> bool:
        """Whether every column singles out at most one input: sizes in {0, 1, k-1, k}.

        A column of size 1 is ``off + delta [x = j]`` with delta > 0, one of size k - 1
        the same with delta < 0 (j the input outside it), sizes 0 and k are constant
        (GRR, L-GRR, dBitFlipPM with d = 1 and b = k, HR with blocks of two outputs).

        >>> import qifldp.symmetric as sym
        >>> sym.grr(5, 1.0).singles_out_one_input(), sym.oue(5, 1.0).singles_out_one_input()
        (True, False)
        """
        k = self._k
        return set(self._sizes.tolist()) <= {0, 1, k - 1, k}

    def constant_ratio(self) -> bool:
        """Whether every class's column has one ratio a_s / b_s in the reals (proved, not measured).

        True when the construction proves it: one class with both entries positive; an
        exact ratio (:attr:`exact_log_ratio`: GRR, SS, LH, SUE, OUE); a product of
        independent bits (UE, THE, the longitudinal UE: every ratio is the bit's
        p (1 - q) / ((1 - p) q)); or local hashing's (hash, value) outputs. The classes of
        sizes 0 and k (one column each, constant on every input) never break it.

        Examples
        --------
        >>> import qifldp.symmetric as sym
        >>> sym.the(10, 2.0, 0.8).constant_ratio(), sym.grr(10, 1.0).constant_ratio()
        (True, True)
        """
        inner = (self._sizes > 0) & (self._sizes < self._k)
        li, lo = self._log_in[inner], self._log_out[inner]
        carried = (li > -np.inf) | (lo > -np.inf)
        if np.any(carried & ((li == -np.inf) | (lo == -np.inf))):
            return False  # a class with one zero entry: its ratio is 0 or infinite
        if int(np.count_nonzero(carried)) <= 1 or self._exact_log_ratio is not None:
            return True
        return self._scheme[0] in ("bits", "lh")

    def restricted(self, r: int) -> SymmetricChannel:
        """The channel on r of its inputs (any r: by symmetry all alike), as inputs 0..r-1.

        An output T restricted to the inputs S = {0..r-1} is its pattern U = T ∩ S; the
        columns of one pattern from classes of different sizes are proportional on S
        when the channel has one ratio a_s / b_s (:meth:`constant_ratio`), so they merge
        (an equivalence): the result is a symmetric channel on r inputs with one class
        per pattern size t. Its class masses are hypergeometric mixtures of the stored
        masses, P'_in(t) = Σ_s P_in(s) C(r-1, t-1) C(k-r, s-t) / C(k-1, s-1) and
        P'_out(t) = Σ_s P_out(s) C(r-1, t) C(k-r, s-t) / C(k-1, s), each coefficient a
        product of r - 1 ratios of integers (no binomial coefficient formed): every mass
        is within relative error :func:`restriction_rounding` of the exact marginal of
        the stored masses (``numpy.exp`` of :attr:`log_in`, :attr:`log_out`).

        If A ⊑ B then A restricted to any inputs refines B restricted to them (the same
        witness), so a counterexample on the restricted channels refutes A ⊑ B with its
        prior supported on S. Cost O(r^2 · len(sizes)): refused past
        :data:`RESTRICTED_MAX_WORK` products or :data:`RESTRICTED_MAX_INPUTS` inputs.

        Parameters
        ----------
        r : int
            Number of inputs kept, ``2 <= r <= k``.

        Returns
        -------
        SymmetricChannel
            On r inputs, sizes t in 0..r.

        Raises
        ------
        InputTypeError, ParameterError
            r not an integer in 2..k.
        SizeError
            r^2 len(sizes) > :data:`RESTRICTED_MAX_WORK` or r >
            :data:`RESTRICTED_MAX_INPUTS`.
        UnsupportedKindError
            The classes' ratios are not proved equal (:meth:`constant_ratio`): the
            patterns of different classes do not merge, and the restriction has one
            output per (pattern, size).

        Examples
        --------
        GRR on 10 values seen on 3 of them: each of the 3 outputs in S, and the 7 others
        merged into one column that says nothing (size 0):

        >>> import math, qifldp.symmetric as sym
        >>> R = sym.grr(10, math.log(2)).restricted(3)
        >>> R.sizes.tolist(), [m.round(4).tolist() for m in R.class_masses()]
        ([0, 1], [[0.0, 0.1818], [0.6364, 0.1818]])
        """
        k = self._k
        r = check_int("r", r, minimum=2, maximum=k)
        work = r * r * int(self._sizes.size)
        if r > RESTRICTED_MAX_INPUTS or work > RESTRICTED_MAX_WORK:
            msg = (
                f"{self._name}.restricted({r}) would form r^2 x {self._sizes.size} size classes "
                f"= {work:.3g} ratio products (RESTRICTED_MAX_WORK = {RESTRICTED_MAX_WORK:.3g}) "
                f"for r <= RESTRICTED_MAX_INPUTS = {RESTRICTED_MAX_INPUTS} (its coefficients "
                "C(r - 1, t) are floats); fewer inputs: a failure of refinement shows on a few "
                "(qifldp.protocols.structure.restriction tries r <= 8)"
            )
            raise SizeError(msg)
        if not self.constant_ratio():
            msg = (
                f"{self._name}: restricted() needs one ratio a_s / b_s for every class (it "
                "merges the columns of one pattern across classes); this channel's ratios "
                "are not proved equal (see constant_ratio()); the restriction of its "
                "explicit channel, expand(lumped=True).matrix[:r], has one output per "
                "(pattern, size)"
            )
            raise UnsupportedKindError(msg)
        s = self._sizes.astype(np.float64)
        p_in, p_out = self.class_masses()
        t = np.arange(r + 1)
        m_in = np.zeros(r + 1)
        m_out = np.zeros(r + 1)
        denominators = k - np.arange(1, r, dtype=np.float64)  # k-1 .. k-r+1
        for tt in range(r + 1):
            if tt >= 1:  # x in T: s-1 others of T among k-1, t-1 of them in S (r-1 others)
                factors = [s - i for i in range(1, tt)] + [k - s - j for j in range(r - tt)]
                m_in[tt] = math.comb(r - 1, tt - 1) * float(
                    np.dot(p_in, _ratio_product(factors, denominators, s.size))
                )
            if tt <= r - 1:  # x not in T: s of the k-1 others, t of them in S
                factors = [s - i for i in range(tt)] + [k - 1 - s - j for j in range(r - 1 - tt)]
                m_out[tt] = math.comb(r - 1, tt) * float(
                    np.dot(p_out, _ratio_product(factors, denominators, s.size))
                )
        keep = (m_in > 0) | (m_out > 0)
        with np.errstate(divide="ignore"):
            log_in, log_out = np.log(m_in[keep]), np.log(m_out[keep])
        ratio = self._exact_log_ratio
        if ratio is None:
            both = (self._log_in > -np.inf) & (self._log_out > -np.inf)
            ratio = float(self._log_ratio[both][0]) if np.any(both) else 0.0
        return SymmetricChannel._make(
            r,
            t[keep],
            log_in,
            log_out,
            f"{self._name} on {r} of its {k} inputs",
            ("subsets",),
            log_ratio=ratio,
            exact_log_ratio=self._exact_log_ratio,
        )

    def __repr__(self) -> str:
        return f"SymmetricChannel({self._name}; k={self._k}, {self._sizes.size} subset sizes)"

    def _key(self) -> tuple[int, tuple, np.ndarray, np.ndarray, np.ndarray]:
        return (self._k, self._scheme, self._sizes, self._log_in, self._log_out)

    # -- expansion ---------------------------------------------------------------
    def n_explicit_outputs(self, lumped: bool = False) -> int:
        """The number of outputs of :meth:`expand` (an exact integer, never built).

        Parameters
        ----------
        lumped : bool
            As for :meth:`expand`: False counts the numeric constructor's outputs (k-bit
            vectors of UE and THE: 2^k; (hash, value) pairs of LH with g buckets:
            g^(k+1); k for GRR); True the lumped outputs, one per subset of each size
            in :attr:`sizes`.

        Returns
        -------
        int
            May be far beyond the float range (use :meth:`log10_n_explicit_outputs` to compare).

        Examples
        --------
        >>> import qifldp.symmetric as sym
        >>> sym.oue(10, 1.0).n_explicit_outputs(), sym.olh(3, 1.0).n_explicit_outputs()
        (1024, 256)
        >>> S = sym.oue(3, 1.0)  # lumped: one output per subset of each size, 2^3 in all
        >>> S.n_explicit_outputs(lumped=True), sum(1 for _ in S.expand(lumped=True).outputs)
        (8, 8)
        """
        k = self._k
        kind = "subsets" if lumped else self._scheme[0]
        if kind == "grr":
            return k
        if kind == "bits":
            return 2**k
        if kind == "lh":
            return self._scheme[1] ** (k + 1)
        return sum(math.comb(k, int(s)) for s in self._sizes)

    def log10_n_explicit_outputs(self, lumped: bool = False) -> float:
        """log10 of :meth:`n_explicit_outputs`, without forming the (possibly huge) integer.

        Examples
        --------
        >>> import qifldp.symmetric as sym
        >>> round(sym.oue(10**6, 1.0).log10_n_explicit_outputs(), 3)  # 2^(10^6) bit vectors
        301029.996
        >>> round(sym.grr(100, 1.0).log10_n_explicit_outputs(lumped=True), 12)
        2.0
        """
        k = self._k
        kind = "subsets" if lumped else self._scheme[0]
        if kind == "grr":
            return math.log10(k)
        if kind == "bits":
            return k * math.log10(2)
        if kind == "lh":
            return (k + 1) * math.log10(self._scheme[1])
        return logsumexp(log_comb(k, self._sizes)) / math.log(10)

    def _explicit_outputs(self, lumped: bool = False) -> tuple[list[Any], np.ndarray, np.ndarray]:
        """Labels, membership matrix (n_outputs, k) of bool, and log multiplicity per output.

        Output y of the explicit channel belongs to the lumped output S(y) (its row
        of the membership matrix); ``mult`` is the number of explicit outputs that
        share S(y)'s column (so C[x, y] = a_s / mult or b_s / mult).
        """
        k = self._k
        kind = "subsets" if lumped else self._scheme[0]
        labels: list[Any]
        if kind == "grr":
            return list(range(k)), np.eye(k, dtype=bool), np.zeros(k)
        if kind == "bits":
            Y = np.indices((2,) * k, dtype=np.int8).reshape(k, -1).T.astype(bool)
            labels = list(itertools.product((0, 1), repeat=k))
            return labels, Y, np.zeros(Y.shape[0])
        if kind == "lh":
            g = self._scheme[1]
            H = np.indices((g,) * k, dtype=np.intp).reshape(k, -1).T
            hs = list(itertools.product(range(g), repeat=k))
            labels = [(h, z) for h in hs for z in range(g)]
            member = (H[:, None, :] == np.arange(g)[None, :, None]).reshape(-1, k)
            s = member.sum(axis=1)
            log_mult = math.log(g) + (k - s) * math.log(g - 1)
            return labels, member, log_mult
        labels = []
        rows = []
        for s in self._sizes:
            for combo in itertools.combinations(range(k), int(s)):
                labels.append(combo)
                row = np.zeros(k, dtype=bool)
                row[list(combo)] = True
                rows.append(row)
        return labels, np.array(rows, dtype=bool).reshape(-1, k), np.zeros(len(rows))

    def expand(self, lumped: bool = False) -> Channel:
        """The explicit channel (small k only), with the numeric constructor's labels.

        Parameters
        ----------
        lumped : bool
            False (default): the channel exactly as the numeric constructor builds
            it (e.g. ``qifldp.oue(k, eps)``: all k-bit tuples; LH: all (h, z)).
            True: the lumped subset channel, one output per subset S (a sorted
            tuple) of each size in :attr:`sizes` — equivalent under refinement.

        Returns
        -------
        Channel, shape (k, n_outputs)

        Raises
        ------
        SizeError
            Beyond :data:`qifldp.channel.MAX_ENTRIES` entries.

        Notes
        -----
        C[x, y] = a_s / m(s) if x in S(y), else b_s / m(s), where S(y) is the subset
        of output y and m(s) the number of outputs sharing its column (g (g-1)^(k-s)
        for local hashing, 1 otherwise). Cost O(k n_outputs).

        Examples
        --------
        >>> import math, qifldp.symmetric as sym
        >>> C = sym.oue(2, math.log(3)).expand()
        >>> C.outputs
        ((0, 0), (0, 1), (1, 0), (1, 1))
        >>> C.matrix.round(6)
        array([[0.375, 0.125, 0.375, 0.125],
               [0.375, 0.375, 0.125, 0.125]])
        """
        guard_size(
            f"{self._name}.expand()",
            self._k,
            self.log10_n_explicit_outputs(lumped),
            lambda: self.n_explicit_outputs(lumped),
            _ALTERNATIVE,
        )
        labels, member, log_mult = self._explicit_outputs(lumped)
        k = self._k
        la = np.full(k + 1, -np.inf)
        lb = np.full(k + 1, -np.inf)
        la[self._sizes] = self.log_a
        lb[self._sizes] = self.log_b
        s = member.sum(axis=1)
        L = np.where(member.T, la[s][None, :], lb[s][None, :]) - log_mult[None, :]
        M = np.exp(L)
        return Channel(M, tuple(range(k)), tuple(labels))


def _ratio_product(factors: list[Any], denominators: np.ndarray, n: int) -> np.ndarray:
    """Π_i factors[i] / denominators[i] per size (each factor an array over the sizes or a
    number; factors and denominators of equal length r - 1); 0 where a factor is <= 0."""
    out = np.ones(n)
    for f, d in zip(factors, denominators, strict=True):
        out = out * (np.maximum(f, 0.0) / d)
    return out


def restriction_rounding(n_sizes: int, r: int) -> float:
    """A bound on the relative error of each class mass of :meth:`SymmetricChannel.restricted`.

    Each mass is a sum of ``n_sizes`` non-negative terms, each a stored mass times a
    product of r - 1 ratios of exact integers (r - 1 divisions, r - 2 products, one
    product by the mass and one by C(r-1, t-1)): gamma_m = m u / (1 - m u) with
    m = n_sizes + 2 r + 2 and u = 2^-53, by the standard bound of a sum of products of
    non-negative floats (Higham, Accuracy and Stability of Numerical Algorithms, 3.1).

    Examples
    --------
    >>> restriction_rounding(10**4 + 1, 8) < 1.2e-12
    True
    """
    return gamma(n_sizes + 2 * r + 2)


def expand_channel(C: SymmetricChannel, name: str = "C") -> Channel:
    """``C.expand()``, the explicit channel where an operation expands other kinds."""
    return C.expand()


#: What to do with a symmetric channel where an operation does not support it.
REMEDY = (
    "use C.expand() for the explicit Channel (small k only), or an operation that "
    "accepts symmetric channels (bayes_capacity, asr, ldp_epsilon, refines, tradeoff_curve ...)"
)
