"""SPL and SMP over attribute tuples as frozen protocol objects, with any frequency oracle.

SPL (split) reports every attribute with its own frequency oracle and budget eps/d
(sequential composition); SMP (sampling) draws one attribute uniformly, reports it
with the whole budget eps, and discloses which attribute it was (Arcolezi et al.,
VLDB 2023, Sec. 2.3). Each attribute may use a different oracle (``grr``, ``ss``,
``blh``, ``olh``, ``sue``, ``oue``: the names of :func:`qifldp.protocol` that take
only k and eps). The channels are built with the operators (``parallel`` for SPL,
``visible_choice`` of ``cascade(projection, oracle)`` for SMP); the estimators are
each oracle's own unbiased estimator.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np

from ..attributes import ReadOnly
from ..channel import Channel
from ..errors import InputTypeError, ParameterError
from ..measures import ldp_epsilon
from ..operators import cascade, visible_choice
from ..simulation.samplers import n_reports
from ..simulation.util import as_rng, check_n
from ..validation import as_real_array, check_choice, check_eps
from .base import Frozen, Protocol
from .docstrings import fill_doc
from .multidim import (
    DOCS,
    _attribute_wise,
    _call,
    _check_ks,
    _guard,
    _per_attribute,
    _projection,
    _user_tuples,
)
from .oracles import oracle as build_oracle

__all__ = [
    "ORACLES",
    "SPL",
    "SMP",
    "SMPReports",
    "MultidimEpsilon",
    "spl_protocol",
    "smp_protocol",
    "multidim_epsilon",
]

#: The frequency oracles an attribute can use: the :func:`qifldp.protocol` names
#: whose only parameters are k and eps.
ORACLES: tuple[str, ...] = ("grr", "ss", "blh", "olh", "sue", "oue")


class MultidimEpsilon(NamedTuple):
    """The LDP epsilon of a multidimensional channel, over two neighbour relations.

    Attributes
    ----------
    tuples : float
        ln max_y max_{x, x'} C[x, y] / C[x', y] over all pairs of value tuples
        (one user's whole tuple is the secret).
    one_attribute : float
        The same maximum over pairs of tuples that differ in exactly one attribute.
    """

    tuples: float
    one_attribute: float


def _one_attribute_pairs(inputs: tuple) -> list[tuple[int, int]]:
    """Index pairs (i, j), i < j, of tuples differing in exactly one attribute."""
    index = {x: i for i, x in enumerate(inputs)}
    tops = [max(t[a] for t in inputs) for a in range(len(inputs[0]))] if inputs else []
    pairs = []
    for i, x in enumerate(inputs):
        for a, v in enumerate(x):
            for w in range(v + 1, tops[a] + 1):
                other = x[:a] + (w,) + x[a + 1 :]
                j = index.get(other)
                if j is not None:
                    pairs.append((i, j))
    return pairs


def multidim_epsilon(C: Channel) -> MultidimEpsilon:
    """The LDP epsilon of a channel over value tuples: all pairs, and one-attribute neighbours.

    Parameters
    ----------
    C : Channel
        Inputs: value tuples (as the multidimensional channels label them).

    Returns
    -------
    MultidimEpsilon
        ``(tuples, one_attribute)``.

    Raises
    ------
    InputTypeError
        ``C`` not a Channel, or its inputs not tuples of integers of one length.

    Notes
    -----
    :func:`qifldp.ldp_epsilon` of ``C``, without and with ``neighbors`` = the pairs of
    inputs at Hamming distance 1. Cost O(|X|^2 |Y|).

    Examples
    --------
    >>> import qifldp as q
    >>> e = multidim_epsilon(q.spl([2, 3], 1.0))
    >>> round(e.tuples, 12), round(e.one_attribute, 12)
    (1.0, 0.5)
    """

    if not isinstance(C, Channel):
        msg = f"C must be a Channel over value tuples, got {type(C).__name__}"
        raise InputTypeError(msg)
    inputs = C.inputs
    if not all(
        isinstance(x, tuple)
        and len(x) == len(inputs[0])
        and all(isinstance(v, (int, np.integer)) for v in x)
        for x in inputs
    ):
        msg = "C must have value tuples (tuples of integers of one length) as inputs"
        raise InputTypeError(msg)
    pairs = _one_attribute_pairs(inputs)
    one = ldp_epsilon(C, neighbors=pairs) if pairs else 0.0
    return MultidimEpsilon(float(ldp_epsilon(C)), float(one))


def _check_oracles(oracle: Any, d: int) -> tuple[str, ...]:
    """One oracle name per attribute (a single name is used for all)."""
    if isinstance(oracle, str):
        return (check_choice("oracle", _lower(oracle), ORACLES),) * d
    if isinstance(oracle, (bytes, Mapping)) or not isinstance(oracle, Iterable):
        msg = (
            f"oracle must be a name in {', '.join(ORACLES)} or a sequence of {d} such names, "
            f"got {type(oracle).__name__}"
        )
        raise InputTypeError(msg)
    names = list(oracle)
    if len(names) != d:
        msg = f"oracle must name one oracle per attribute ({d}), got {len(names)}"
        raise ParameterError(msg)
    return tuple(
        check_choice(f"oracle[{j}]", _lower(name), ORACLES) for j, name in enumerate(names)
    )


def _lower(name: Any) -> Any:
    """A name in lower case (names are case-insensitive); anything else as it is."""
    return name.strip().lower() if isinstance(name, str) else name


def check_frequencies(f: Any, ks: tuple[int, ...]) -> list[np.ndarray | None]:
    """Per-attribute true frequencies: array j of length k_j in [0, 1] (None: each None).

    Examples
    --------
    >>> check_frequencies([[0.5, 0.5], [0, 1, 0]], (2, 3))[1].tolist()
    [0.0, 1.0, 0.0]
    """

    if f is None:
        return [None] * len(ks)
    what = f"f must be a sequence of {len(ks)} per-attribute frequency arrays"
    fs = _per_attribute(f, len(ks), what, "f must hold one frequency array")
    out: list[np.ndarray | None] = []
    for j, (fj, k) in enumerate(zip(fs, ks, strict=True)):
        arr = as_real_array(f"f[{j}]", fj, ndim=1)
        if arr.shape != (k,):
            msg = f"f[{j}] must have length k_{j} = {k}, got {arr.size}"
            raise ParameterError(msg)
        if arr.size and (arr.min() < 0 or arr.max() > 1):
            msg = f"f[{j}] must hold frequencies in [0, 1]"
            raise ParameterError(msg)
        out.append(arr)
    return out


class MultidimProtocol(Frozen, abc.ABC):
    """What the multidimensional protocol objects share (SPL, SMP, RS+FD): d attributes of
    domain sizes ks, a budget eps, and per-attribute frequency estimates with their variance.

    A subclass stores ``_ks`` and ``_eps`` and implements its estimator and its
    variance (``_estimate``, ``_variance``, documented there with their derivation).

    Examples
    --------
    >>> P = spl_protocol([2, 3], 1.0, oracle=["grr", "oue"])
    >>> P.ks, P.eps, smp_protocol([2, 3], 1.0).eps
    ((2, 3), 1.0, 1.0)
    """

    __slots__ = ()
    _ks: tuple[int, ...]
    _eps: float
    ks = ReadOnly[tuple[int, ...]]("The domain sizes k_1..k_d.")
    eps = ReadOnly[float]("The total privacy budget.")

    def estimate(self, reports: Any) -> list[np.ndarray]:
        """Unbiased per-attribute frequency estimates from :meth:`sample`'s reports.

        Parameters
        ----------
        reports
            As returned by ``sample`` (SPL: a list of the d oracles' reports; SMP:
            :class:`SMPReports`; RS+FD: an (n, d) array for GRR, a list of d bit
            arrays for UE).

        Returns
        -------
        list of numpy.ndarray
            d float64 arrays, array j of length k_j (not projected: entries may be
            negative).

        Raises
        ------
        ParameterError, InputTypeError
            Reports of the wrong type, length, shape or range (SMP: an attribute
            nobody sampled); eps = 0 (then p = q and nothing can be estimated).

        Notes
        -----
        Each protocol's ``_estimate`` states its estimator and where it comes from.

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> tuples = np.repeat([[0, 1], [1, 1]], [6000, 4000], axis=0)
        >>> spl, smp = q.spl_protocol([2, 2], 8.0), q.smp_protocol([2, 2], 5.0)
        >>> for P in (spl, smp, q.rsfd([2, 2], 3.0)):
        ...     print([f.round(1).tolist() for f in P.estimate(P.sample(tuples, rng=1))])
        [[0.6, 0.4], [0.0, 1.0]]
        [[0.6, 0.4], [0.0, 1.0]]
        [[0.6, 0.4], [0.0, 1.0]]
        """
        return self._estimate(reports)

    def variance(self, n: int, f: Any = None) -> list[np.ndarray]:
        """The variance of each estimated frequency (:meth:`estimate`) for n users.

        Parameters
        ----------
        n : int
            Number of users, ``n >= 1``.
        f : sequence of array_like, optional
            The data's per-attribute frequencies (array j of length k_j); None gives
            each value's variance at frequency 0.

        Returns
        -------
        list of numpy.ndarray
            d arrays, array j of length k_j.

        Raises
        ------
        ParameterError, InputTypeError
            eps = 0, bad ``n`` or ``f``.

        Notes
        -----
        Each protocol's ``_variance`` states the variance and its derivation.

        Examples
        --------
        >>> import qifldp as q
        >>> [a.shape for a in q.smp_protocol([2, 3], 2.0).variance(10**6)]
        [(2,), (3,)]
        """
        return self._variance(check_n(n), check_frequencies(f, self._ks))

    @abc.abstractmethod
    def _estimate(self, reports: Any) -> list[np.ndarray]:
        """The estimator of :meth:`estimate`."""

    @abc.abstractmethod
    def _variance(self, n: int, fs: list[np.ndarray | None]) -> list[np.ndarray]:
        """:meth:`variance` from a checked n and per-attribute frequencies (None: 0)."""


class _Multidim(MultidimProtocol):
    """What SPL and SMP share: one oracle per attribute.

    Examples
    --------
    >>> spl_protocol([2, 3], 1.0, oracle=["grr", "oue"]).oracles
    (protocol('grr', k=2, eps=0.5), protocol('oue', k=3, eps=0.5))
    """

    __slots__ = ("_ks", "_eps", "_oracle_names", "_oracles")
    _oracle_names: tuple[str, ...]
    _oracles: tuple[Protocol, ...]
    _name = ""

    def __init__(self, ks: Any, eps: float, oracle: Any = "grr") -> None:
        ks = _check_ks(ks)
        eps = check_eps(eps)
        names = _check_oracles(oracle, len(ks))
        budget = self._budget(eps, len(ks))
        oracles = tuple(build_oracle(name, k, budget) for name, k in zip(names, ks, strict=True))
        self._set(_ks=ks, _eps=eps, _oracle_names=names, _oracles=oracles)

    @staticmethod
    @abc.abstractmethod
    def _budget(eps: float, d: int) -> float:
        """Each oracle's budget from the total eps and the number d of attributes."""

    def _key(self) -> tuple:
        return (self._name, self._ks, self._eps, self._oracle_names)

    def __reduce__(self) -> tuple:
        return (type(self), (self._ks, self._eps, self._oracle_names))

    def __repr__(self) -> str:
        names = self._oracle_names
        shown = repr(names[0]) if len(set(names)) == 1 else repr(list(names))
        return f"{self._name}_protocol({list(self._ks)}, {self._eps}, oracle={shown})"

    oracles = ReadOnly[tuple[Protocol, ...]](
        "The per-attribute frequency oracles (protocol objects, with their budget)."
    )

    def ldp_epsilon(self) -> MultidimEpsilon:
        """The true LDP epsilon of :meth:`channel`: over all tuples and one-attribute neighbours.

        Returns
        -------
        MultidimEpsilon
            ``(tuples, one_attribute)``.

        Notes
        -----
        From the oracles' own epsilons e_j (:func:`qifldp.ldp_epsilon` of their
        symmetric channels, any k): SPL's channel is the product of the oracles, so the
        largest ratio over tuples is the product of theirs (Σ_j e_j) and over one
        attribute max_j e_j; SMP's outputs (j, y_j) carry one oracle each, so both are
        max_j e_j. At small ks this equals :func:`multidim_epsilon` of :meth:`channel`
        (tests).

        Examples
        --------
        >>> e = smp_protocol([2, 3], 1.0).ldp_epsilon()
        >>> round(e.tuples, 12), round(e.one_attribute, 12)
        (1.0, 1.0)
        >>> e = spl_protocol([74, 7, 16], 1.0, "oue").ldp_epsilon()
        >>> round(e.tuples, 12), round(e.one_attribute, 12)
        (1.0, 0.333333333333)
        """

        per = [float(ldp_epsilon(o.symmetric())) for o in self._oracles]
        return MultidimEpsilon(self._combine_tuples(per), max(per))

    @staticmethod
    @abc.abstractmethod
    def _combine_tuples(per: list[float]) -> float:
        """The epsilon over whole tuples from the oracles' epsilons."""

    def channel(self) -> Channel:
        """The explicit channel over value tuples, from the attributes' oracle channels.

        SPL: their ``parallel`` product, outputs the tuples (y_1, ..., y_d) of the
        oracles' output labels. SMP: the uniform visible choice of projection-then-oracle,
        outputs the pairs (j, y), y an output label of oracle j.

        Returns
        -------
        Channel
            Inputs: value tuples in lexicographic order. For GRR equal to
            :func:`qifldp.spl` (SPL) or :func:`qifldp.smp` (SMP).

        Raises
        ------
        SizeError
            An oracle's channel or the result above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> C = spl_protocol([2, 2], 1.0, oracle=["grr", "sue"]).channel()
        >>> C.shape, C.outputs[1]
        ((4, 8), (0, (0, 1)))
        >>> smp_protocol([2, 3], 1.0).channel().outputs
        ((0, 0), (0, 1), (1, 0), (1, 1), (1, 2))
        """
        channels = [o.channel() for o in self._oracles]
        call = _call(f"{self._name}_protocol", self._ks, self._eps)
        _guard(call, self._ks, self._n_outputs([C.shape[1] for C in channels]))
        return self._combine(channels)

    @staticmethod
    @abc.abstractmethod
    def _n_outputs(widths: list[int]) -> int:
        """The number of outputs of :meth:`channel` from its oracles' numbers of outputs."""

    @abc.abstractmethod
    def _combine(self, channels: list[Channel]) -> Channel:
        """:meth:`channel` from the attributes' oracle channels."""


@fill_doc(DOCS)
class SPL(_Multidim):
    """SPL: every attribute j reported with its oracle at budget eps / d.

    Build one with :func:`spl_protocol`.

    {parameters}
    eps : float
        Total privacy budget, finite and ``>= 0``.
    oracle : str or sequence of str
        One of :data:`ORACLES` for every attribute, or one name per attribute.

    Notes
    -----
    Frozen and hashable; equal when ks, eps and the oracles are.

    Examples
    --------
    >>> SPL([2, 3], 1.0, "oue")
    spl_protocol([2, 3], 1.0, oracle='oue')
    """

    __slots__ = ()
    _name = "spl"

    @staticmethod
    def _budget(eps: float, d: int) -> float:
        return eps / d

    @staticmethod
    def _combine_tuples(per: list[float]) -> float:
        return math.fsum(per)  # the product channel multiplies the ratios

    @staticmethod
    def _n_outputs(widths: list[int]) -> int:
        return math.prod(widths)

    def _combine(self, channels: list[Channel]) -> Channel:
        return _attribute_wise(channels)

    @fill_doc(DOCS)
    def sample(self, tuples: Any, rng: Any = None) -> list[Any]:
        """One report per user and attribute, vectorised.

        {sample_parameters}

        Returns
        -------
        list
            d entries: entry j is oracle j's reports (its ``sample`` format) of the n
            users' attribute j.

        {sample_raises}

        Examples
        --------
        >>> R = spl_protocol([2, 3], 1.0).sample([[0, 2], [1, 1]], rng=0)
        >>> len(R), R[1].shape
        (2, (2,))
        """

        xs = _user_tuples(tuples, self._ks)
        gen = as_rng(rng)
        return [o.sample(xs[:, j], gen) for j, o in enumerate(self._oracles)]

    def _estimate(self, reports: Any) -> list[np.ndarray]:
        """Each oracle's estimator on its reports (a list of d entries, in ``sample``'s format).

        Examples
        --------
        >>> P = spl_protocol([2, 2], 8.0)
        >>> [f.round(1).tolist() for f in P.estimate(P.sample([[0, 1]] * 2000, rng=1))]
        [[1.0, 0.0], [0.0, 1.0]]
        """
        d = len(self._ks)
        what = f"reports must be a list of {d} per-attribute reports"
        reports = _per_attribute(reports, d, what, "reports must hold one entry", lists=True)
        return [
            np.asarray(o.estimate(r), dtype=np.float64)
            for o, r in zip(self._oracles, reports, strict=True)
        ]

    def _variance(self, n: int, fs: list[np.ndarray | None]) -> list[np.ndarray]:
        """Every user reports every attribute, so attribute j's estimate is oracle j's at
        eps/d from n users: [f p*(1 - p*) + (1 - f) q*(1 - q*)] / (n (p* - q*)^2)
        (Wang et al. 2017).

        Examples
        --------
        >>> import math
        >>> v = spl_protocol([2, 2], 2 * math.log(3)).variance(100)  # GRR(2, ln 3): p = 3/4
        >>> round(float(v[0][0]), 12)  # (3/16) / (100 (1/2)^2)
        0.0075
        """
        out = []
        for o, fj in zip(self._oracles, fs, strict=True):
            v = o.variance(n, fj)
            out.append(np.broadcast_to(np.asarray(v, dtype=np.float64), (o.k,)).copy())
        return out


class SMPReports(NamedTuple):
    """The reports of SMP: which attribute each user sampled, and each oracle's reports.

    Attributes
    ----------
    attributes : numpy.ndarray
        int64, shape (n,): user u's sampled attribute (disclosed).
    reports : tuple
        d entries: entry j is oracle j's reports (its ``sample`` format) of the users
        with ``attributes == j``, in user order (None when no user sampled j).
    """

    attributes: np.ndarray
    reports: tuple


#: Above this many binomial terms :func:`_expected_inverse` uses its series instead.
_MAX_BINOMIAL_TERMS = 10**6


def _expected_inverse(n: int, d: int) -> float:
    """E[1/m | m >= 1] for m ~ Binomial(n, 1/d).

    Summed over the pmf within 40 standard deviations of the mean (the rest is below
    1e-300); beyond :data:`_MAX_BINOMIAL_TERMS` terms (mean mu > ~1.5e8) by the series
    (1/mu) E[1 - D + D^2 - D^3 + D^4], D = (m - mu)/mu, with the binomial's central
    moments, whose truncation error is O(mu^-3) relative (below 1e-24).
    """
    if d == 1:
        return 1.0 / n
    p = 1.0 / d
    mean, var = n * p, n * p * (1 - p)
    sd = math.sqrt(var)
    lo = max(1, int(mean - 40 * sd))
    hi = min(n, int(math.ceil(mean + 40 * sd)))
    if hi - lo + 1 > _MAX_BINOMIAL_TERMS:
        k3 = var * (1 - 2 * p)
        k4 = var * (1 - 6 * p * (1 - p))
        m2, m3, m4 = var / mean**2, k3 / mean**3, (3 * var**2 + k4) / mean**4
        return (1 + m2 - m3 + m4) / mean

    import scipy.stats  # heavy: on first use

    m = np.arange(lo, hi + 1, dtype=np.float64)
    pmf = scipy.stats.binom.pmf(m, n, p)
    zero = scipy.stats.binom.pmf(0, n, p)
    return float(np.sum(pmf / m) / (1.0 - zero))


class SMP(_Multidim):
    """SMP: one attribute j sampled uniformly, reported with its oracle at budget eps, j disclosed.

    Build one with :func:`smp_protocol`.

    Parameters
    ----------
    ks, eps, oracle
        As :class:`SPL` (the sampled attribute's oracle gets the whole eps).

    Examples
    --------
    >>> SMP([2, 3], 1.0, ["grr", "olh"])
    smp_protocol([2, 3], 1.0, oracle=['grr', 'olh'])
    """

    __slots__ = ()
    _name = "smp"

    @staticmethod
    def _budget(eps: float, d: int) -> float:
        return eps

    @staticmethod
    def _combine_tuples(per: list[float]) -> float:
        return max(per)  # each output discloses one attribute's oracle

    @staticmethod
    def _n_outputs(widths: list[int]) -> int:
        return sum(widths)

    def _combine(self, channels: list[Channel]) -> Channel:
        return visible_choice(
            [cascade(_projection(self._ks, j), C) for j, C in enumerate(channels)]
        )

    @fill_doc(DOCS)
    def sample(self, tuples: Any, rng: Any = None) -> SMPReports:
        """Each user samples an attribute uniformly and reports it with its oracle.

        {sample_parameters}

        Returns
        -------
        SMPReports

        {sample_raises}

        Examples
        --------
        >>> R = smp_protocol([2, 3], 50.0).sample([[0, 2], [1, 1], [1, 0]], rng=0)
        >>> R.attributes.shape, sum(len(r) for r in R.reports if r is not None)
        ((3,), 3)
        """

        xs = _user_tuples(tuples, self._ks)
        gen = as_rng(rng)
        attributes = gen.integers(0, len(self._ks), size=xs.shape[0])
        reports = tuple(
            o.sample(xs[attributes == j, j], gen) if np.any(attributes == j) else None
            for j, o in enumerate(self._oracles)
        )
        return SMPReports(np.asarray(attributes, dtype=np.int64), reports)

    def _estimate(self, reports: Any) -> list[np.ndarray]:
        """Oracle j's estimator on the users who sampled j (``reports``: an SMPReports
        consistent with its ``attributes``, every attribute sampled by someone).

        Given the m_j >= 1 users who sampled j, a uniformly random subset of the n, the
        oracle's estimate is unbiased for their frequencies, whose mean is the
        population's: unbiased for every m_j.

        Examples
        --------
        >>> P = smp_protocol([2, 2], 5.0)
        >>> P.estimate(P.sample([[0, 1]], rng=1))
        Traceback (most recent call last):
        ...
        qifldp.errors.ParameterError: no user sampled attribute 1: its frequencies ...
        """
        if not isinstance(reports, SMPReports):
            msg = f"reports must be the SMPReports of SMP.sample, got {type(reports).__name__}"
            raise InputTypeError(msg)
        attributes = np.asarray(reports.attributes)
        d = len(self._ks)
        if len(reports.reports) != d:
            got = len(reports.reports)
            msg = f"reports.reports must hold one entry per attribute ({d}), got {got}"
            raise ParameterError(msg)
        out = []
        for j, (o, r) in enumerate(zip(self._oracles, reports.reports, strict=True)):
            m = int(np.count_nonzero(attributes == j))
            if m == 0 or r is None:
                msg = f"no user sampled attribute {j}: its frequencies cannot be estimated"
                raise ParameterError(msg)
            if n_reports(r) != m:
                msg = (
                    f"reports.reports[{j}] has {n_reports(r)} reports, "
                    f"{m} users sampled attribute {j}"
                )
                raise ParameterError(msg)
            out.append(np.asarray(o.estimate(r), dtype=np.float64))
        return out

    def _variance(self, n: int, fs: list[np.ndarray | None]) -> list[np.ndarray]:
        """The variance conditional on at least one user sampling j (the estimator's domain).

        Derived (not in the paper): the m ~ Binomial(n, 1/d) users who sample j are a
        uniform m-subset of the n. Given it, oracle j's estimate has variance A(f_S) / m,
        A(f) = f p*(1 - p*) + (1 - f) q*(1 - q*) over (p* - q*)^2, around the subset's
        frequency f_S, which has mean f and variance f (1 - f)(n - m) / (m (n - 1)).
        So Var = E[1/m] (A(f) + f (1 - f) n / (n - 1)) - f (1 - f) / (n - 1), with E[1/m]
        over m >= 1 summed from the binomial pmf. About d A(f) / n for large n.

        Examples
        --------
        >>> import math
        >>> v = smp_protocol([2], math.log(3)).variance(100)  # d = 1: GRR(2, ln 3)
        >>> round(float(v[0][0]), 12)  # (3/16) / (100 (1/2)^2)
        0.0075
        """
        inv = _expected_inverse(n, len(self._ks))
        out = []
        for o, fj in zip(self._oracles, fs, strict=True):
            a = np.broadcast_to(np.asarray(o.variance(1, fj), dtype=np.float64), (o.k,))
            b = np.zeros(o.k) if fj is None else fj * (1 - fj)
            if n == 1:
                out.append(a * inv)
            else:
                out.append(inv * (a + b * n / (n - 1)) - b / (n - 1))
        return out


@fill_doc(DOCS)
def spl_protocol(ks: Any, eps: float, oracle: Any = "grr") -> SPL:
    """SPL as a protocol object: every attribute with its frequency oracle and budget eps / d.

    {parameters}
    eps : float
        Total privacy budget, finite and ``>= 0``.
    oracle : str or sequence of str
        ``"grr"``, ``"ss"``, ``"blh"``, ``"olh"``, ``"sue"`` or ``"oue"`` for every
        attribute, or one such name per attribute.

    Returns
    -------
    SPL
        ``.channel()``, ``.sample()``, ``.estimate()``, ``.variance()``, ``.ldp_epsilon()``.

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``ks``, ``eps`` or ``oracle``.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.spl_protocol([2, 3], 1.0)
    >>> P.channel() == q.spl([2, 3], 1.0)
    True
    """
    return SPL(ks, eps, oracle)


def smp_protocol(ks: Any, eps: float, oracle: Any = "grr") -> SMP:
    """SMP as a protocol object: one uniformly sampled attribute, disclosed, reported with eps.

    Parameters
    ----------
    ks, eps, oracle
        As :func:`spl_protocol`.

    Returns
    -------
    SMP
        With the methods of :func:`spl_protocol`'s SPL.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`spl_protocol`.

    Examples
    --------
    >>> import qifldp as q
    >>> q.smp_protocol([2, 3], 1.0).channel() == q.smp([2, 3], 1.0)
    True
    """
    return SMP(ks, eps, oracle)
