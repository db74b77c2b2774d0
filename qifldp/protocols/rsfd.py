"""RS+FD and RS+RFD as protocol objects, and the exact attribute-inference attack on them.

RS+FD (Arcolezi et al., CIKM 2021; VLDB 2023, Sec. 2.3.2): each user samples one
attribute j uniformly, reports v_j through a local randomizer (GRR or unary
encoding) with the amplified eps' = ln(d (e^eps - 1) + 1), and reports fake data
for every other attribute. RS+RFD (the VLDB 2023 paper's countermeasure) draws
the fake values from given per-attribute priors instead of uniformly. The
paper's description of RS+RFD is not legible in its available text; the version here
is reconstructed from its definition (fake value v ~ prior_i, then the same
fake-data generation as RS+FD: reported as is for GRR, one-hot encoded and
perturbed for UE-r).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..attributes import ReadOnly
from ..channel import Channel, check_size
from ..errors import InputTypeError, ParameterError
from ..operators import hidden_choice
from ..priors import as_prior
from ..simulation.util import as_array, as_rng, as_values
from ..validation import check_bool, check_choice, check_eps
from .docstrings import fill_doc
from .grr import GRR
from .multidim import (
    DOCS,
    _amplified_eps,
    _attribute_wise,
    _call,
    _check_ks,
    _guard,
    _per_attribute,
    _user_tuples,
)
from .rsfd_epsilon import lumped_epsilon
from .splsmp import MultidimEpsilon, MultidimProtocol
from .ue import UE, sample_bits

__all__ = ["RSFD", "rsfd", "rsrfd", "rsfd_epsilon"]

#: The local randomizers of RS+FD: GRR, and unary encoding (SUE or OUE parameters)
#: with zero-vector ("-z") or random one-hot ("-r") fake data.
RANDOMIZERS: tuple[str, ...] = ("grr", "sue-z", "oue-z", "sue-r", "oue-r")

#: The randomizers RS+RFD accepts: those whose fake data is a value drawn from a prior.
RFD_RANDOMIZERS: tuple[str, ...] = ("grr", "sue-r", "oue-r")


def _check_priors(priors: Any, ks: tuple[int, ...], name: str = "priors") -> tuple[np.ndarray, ...]:
    """One prior per attribute (length k_j, non-negative, summing to 1); errors name ``name``."""
    what = (
        f"{name} must be a sequence of {len(ks)} per-attribute priors "
        "(one array of length k_j per attribute)"
    )
    priors = _per_attribute(priors, len(ks), what, f"{name} must have one prior")
    return tuple(
        as_prior(p, k, name=f"{name}[{j}]") for j, (p, k) in enumerate(zip(priors, ks, strict=True))
    )


@fill_doc(DOCS)
class RSFD(MultidimProtocol):
    """RS+FD / RS+RFD over attribute tuples: a frozen protocol object.

    Build one with :func:`rsfd` or :func:`rsrfd`.

    {parameters}
    eps : float
        The privacy budget (finite, ``>= 0``); the sampled attribute is randomised
        with eps' = ln(d (e^eps - 1) + 1).
    randomizer : str
        One of ``"grr"``, ``"sue-z"``, ``"oue-z"``, ``"sue-r"``, ``"oue-r"``.
    priors : sequence of array_like, optional
        Per-attribute fake-data priors (RS+RFD); None means uniform (RS+FD). Not
        allowed with the ``-z`` randomizers (their fake data is the zero vector).

    Attributes
    ----------
    ks, eps, randomizer, priors, eps_amplified
        As given (``priors``: the validated tuple of arrays, uniform for RS+FD);
        ``eps_amplified``: eps'.

    Notes
    -----
    Two objects are equal (and hash alike) when ks, eps, randomizer and priors are.

    Examples
    --------
    >>> P = RSFD([2, 3], 1.0, "oue-z")
    >>> P
    rsfd([2, 3], 1.0, randomizer='oue-z')
    >>> round(P.eps_amplified, 6)  # ln(2 (e - 1) + 1)
    1.48988
    """

    __slots__ = ("_ks", "_eps", "_randomizer", "_priors", "_rfd", "_eps_amplified", "_oracles")
    _ks: tuple[int, ...]
    _eps: float
    _randomizer: str
    _priors: tuple[np.ndarray, ...]
    _rfd: bool
    _eps_amplified: float
    _oracles: tuple[Any, ...]

    def __init__(self, ks: Any, eps: float, randomizer: str = "grr", priors: Any = None) -> None:
        ks = _check_ks(ks)
        eps = check_eps(eps)
        if isinstance(randomizer, str):  # any case, "_" as "-"
            randomizer = randomizer.strip().lower().replace("_", "-")
        randomizer = check_choice("randomizer", randomizer, RANDOMIZERS)
        rfd = priors is not None
        if rfd:
            if randomizer not in RFD_RANDOMIZERS:
                msg = (
                    f"randomizer must be one of {', '.join(map(repr, RFD_RANDOMIZERS))} when "
                    f"priors are given (the fake data of {randomizer!r} is the zero vector), "
                    f"got {randomizer!r}"
                )
                raise ParameterError(msg)
            checked = _check_priors(priors, ks)
        else:
            for k in ks:  # the uniform priors are k floats each: the size rule first
                check_size(1, k, f"rsfd's uniform prior on {k} values", "fewer values")
            checked = tuple(np.full(k, 1.0 / k) for k in ks)
        amplified = _amplified_eps(len(ks), eps)
        if randomizer == "grr":
            oracles: tuple[Any, ...] = tuple(GRR(k, amplified) for k in ks)
        else:
            oracles = tuple(UE(k, amplified, variant=randomizer[:3]) for k in ks)
        self._set(_ks=ks, _eps=eps, _randomizer=randomizer, _priors=checked, _rfd=rfd)
        self._set(_eps_amplified=amplified, _oracles=oracles)

    def _key(self) -> tuple:
        priors = tuple(tuple(p.tolist()) for p in self._priors) if self._rfd else None
        return (self._ks, self._eps, self._randomizer, priors)

    def __reduce__(self) -> tuple:
        priors = [p.tolist() for p in self._priors] if self._rfd else None
        return (RSFD, (self._ks, self._eps, self._randomizer, priors))

    def __repr__(self) -> str:
        if self._rfd:
            priors = [[round(float(v), 6) for v in p] for p in self._priors]
            return (
                f"rsrfd({list(self._ks)}, {self._eps}, {priors}, randomizer={self._randomizer!r})"
            )
        return f"rsfd({list(self._ks)}, {self._eps}, randomizer={self._randomizer!r})"

    randomizer = ReadOnly[str](
        'The local randomizer (``"grr"``, ``"sue-z"``, ``"oue-z"``, ``"sue-r"``, ``"oue-r"``).'
    )
    priors = ReadOnly[tuple[np.ndarray, ...]](
        "The per-attribute fake-data priors (uniform for RS+FD); copies.",
        read=lambda priors: tuple(p.copy() for p in priors),
    )
    eps_amplified = ReadOnly[float](
        "eps' = ln(d (e^eps - 1) + 1), the budget of the sampled attribute."
    )

    # -- the channel ------------------------------------------------------------------
    def _honest(self, j: int) -> Channel:
        """The randomizer's channel on attribute j (eps')."""
        return self._oracles[j].channel()

    def _fake_row(self, j: int) -> np.ndarray:
        """The distribution of attribute j's fake report (over the randomizer's outputs)."""
        if self._randomizer == "grr":
            return self._priors[j].copy()
        R = self._honest(j)
        if self._randomizer.endswith("-r"):
            return self._priors[j] @ R.matrix
        q = self._oracles[j].params["q"]
        bits = np.array(R.outputs, dtype=float)  # one row per output bit vector
        return np.prod(np.where(bits == 1.0, q, 1.0 - q), axis=1)

    def _fake(self, j: int) -> Channel:
        R = self._honest(j)
        row = self._fake_row(j)
        return Channel(np.tile(row, (self._ks[j], 1)), R.inputs, R.outputs)

    def _n_outputs(self) -> int:
        if self._randomizer == "grr":
            return math.prod(self._ks)
        return 2 ** sum(self._ks)

    def channel(self) -> Channel:
        """The explicit channel: inputs value tuples, outputs the reported tuples.

        Returns
        -------
        Channel
            Inputs: value tuples in lexicographic order. Outputs: value tuples (GRR;
            equal to :func:`qifldp.rsfd_grr` for RS+FD) or tuples of per-attribute bit
            tuples (UE).

        Raises
        ------
        SizeError
            The channel above :data:`qifldp.channel.MAX_ENTRIES`.

        Notes
        -----
        The uniform hidden choice over the sampled attribute j of ``parallel`` over
        the attributes of the randomizer with eps' on attribute j and the constant
        fake-report channel on the others. Cost O(d |X| |Y|).

        Examples
        --------
        >>> C = rsfd([2, 2], 1.0, "sue-r").channel()
        >>> C.shape, C.outputs[0]
        ((4, 16), ((0, 0), (0, 0)))
        """
        ks, d = self._ks, len(self._ks)
        name = "rsrfd" if self._rfd else "rsfd"
        _guard(_call(name, ks, self._eps), ks, self._n_outputs())

        def sampled(j: int) -> Channel:
            return _attribute_wise([self._honest(i) if i == j else self._fake(i) for i in range(d)])

        C = sampled(0)
        for j in range(1, d):
            C = hidden_choice([C, sampled(j)], [j / (j + 1), 1 / (j + 1)])
        return C

    # -- client and server ------------------------------------------------------------
    def _tuples(self, tuples: Any) -> np.ndarray:
        return _user_tuples(tuples, self._ks, empty=True)

    @fill_doc(DOCS)
    def sample(self, tuples: Any, rng: Any = None, return_sampled: bool = False) -> Any:
        """One report per user tuple, vectorised.

        {sample_parameters}
        return_sampled : bool
            Also return the sampled attribute of each user (the attack's target).

        Returns
        -------
        numpy.ndarray or list of numpy.ndarray
            GRR: int64 reports of shape (n, d). UE: a list of d boolean arrays of
            shape (n, k_j). With ``return_sampled``: ``(reports, sampled)``, sampled
            an int64 array of shape (n,).

        Raises
        ------
        ParameterError, InputTypeError
            Bad ``tuples``, ``rng`` or ``return_sampled``.

        Notes
        -----
        j uniform in 0..d-1 per user; attribute j through the randomizer with eps';
        attribute i != j: a value from priors[i] (GRR), that value one-hot encoded
        and perturbed (UE-r), or the zero vector perturbed (UE-z). O(n Σ k_j).

        Examples
        --------
        >>> rsfd([2, 3], 1.0).sample([[0, 2], [1, 1]], rng=0).shape
        (2, 2)
        """

        return_sampled = check_bool("return_sampled", return_sampled)
        xs = self._tuples(tuples)
        gen = as_rng(rng)
        n, d = xs.shape
        sampled = gen.integers(0, d, size=n)
        reports: list[np.ndarray] = []
        for i, k in enumerate(self._ks):
            mine = sampled == i
            oracle = self._oracles[i]
            if self._randomizer.endswith("-z"):
                # every bit ~ Bernoulli(q) (the zero vector perturbed, in cache-sized
                # blocks), then the sampled attribute's bit x_i redrawn with p
                p, q = oracle.params["p"], oracle.params["q"]
                bits = sample_bits(np.zeros(n, dtype=np.int64), k, q, q, gen)
                rows = np.flatnonzero(mine)
                bits[rows, xs[rows, i]] = gen.random(rows.size) < p
                reports.append(bits)
                continue
            fake_values = gen.choice(k, size=n, p=self._priors[i])
            if self._randomizer == "grr":
                reports.append(np.where(mine, oracle.sample(xs[:, i], gen), fake_values))
            else:
                reports.append(oracle.sample(np.where(mine, xs[:, i], fake_values), gen))
        out: Any = np.stack(reports, axis=1) if self._randomizer == "grr" else reports
        return (out, sampled) if return_sampled else out

    def _report_means(self, reports: Any) -> list[np.ndarray]:
        """The fraction of reports supporting each value, per attribute."""

        d = len(self._ks)
        if self._randomizer == "grr":
            arr = as_array(reports, "reports")
            if arr.ndim != 2 or arr.shape[1] != d or arr.shape[0] == 0:
                msg = f"reports must have shape (n, {d}) with n >= 1, got {arr.shape}"
                raise ParameterError(msg)
            n = arr.shape[0]
            return [
                np.bincount(as_values(arr[:, j], k, name=f"reports[:, {j}]"), minlength=k) / n
                for j, k in enumerate(self._ks)
            ]
        what = f"reports must be a list of {d} bit arrays (one (n, k_j) array per attribute)"
        reports = _per_attribute(reports, d, what, "reports must hold one bit array", lists=True)
        means: list[np.ndarray] = []
        n0 = None
        for j, k in enumerate(self._ks):
            bits = as_array(reports[j], f"reports[{j}]")
            if bits.ndim != 2 or bits.shape[1] != k or bits.shape[0] == 0:
                msg = f"reports[{j}] must have shape (n, {k}) with n >= 1, got {bits.shape}"
                raise ParameterError(msg)
            if bits.dtype != np.bool_ and not ((bits == 0) | (bits == 1)).all():
                msg = f"reports[{j}] must hold bits (0/1 or booleans)"
                raise ParameterError(msg)
            if n0 is not None and bits.shape[0] != n0:
                msg = f"reports[{j}] has {bits.shape[0]} rows, reports[0] has {n0}"
                raise ParameterError(msg)
            n0 = bits.shape[0]
            means.append(np.count_nonzero(bits, axis=0) / bits.shape[0])
        return means

    def _estimate(self, reports: Any) -> list[np.ndarray]:
        """The estimators, from the fraction of reports supporting each value.

        Derived from the report distribution. With p, q the randomizer's parameters
        at eps', f the true frequencies of attribute j, pi_j its fake prior
        (uniform 1/k_j for RS+FD) and c(v) the fraction of reports supporting v
        (reporting v for GRR, with bit v set for UE):

        - GRR: E c(v) = (q + (p - q) f(v)) / d + (d - 1) pi_j(v) / d, so
          f^(v) = (d c(v) - q - (d - 1) pi_j(v)) / (p - q);
        - UE-z: E c(v) = q + (p - q) f(v) / d, so f^(v) = d (c(v) - q) / (p - q);
        - UE-r: E c(v) = q + (p - q) (f(v) + (d - 1) pi_j(v)) / d, so
          f^(v) = (d (c(v) - q) - (d - 1)(p - q) pi_j(v)) / (p - q).

        With uniform priors these are the paper's estimators (VLDB 2023, Sec.
        2.3.2; e.g. GRR: (C d k - n (d - 1 + q k)) / (n k (p - q))). O(n Σ k_j).

        Examples
        --------
        >>> P = rsfd([2, 2], 3.0)
        >>> [round(float(f.sum()), 12) for f in P.estimate(P.sample([[0, 1]] * 100, rng=1))]
        [1.0, 1.0]
        """
        return self._calibrate(self._report_means(reports))

    def _estimator_params(self, purpose: str) -> list[tuple[float, float, np.ndarray]]:
        """Per attribute: the randomizer's p and q at eps', and the fake prior pi.

        eps = 0 is refused: "eps must be > 0 {purpose} (at eps = 0, p = q)".
        """
        if self._eps == 0.0:
            msg = f"eps must be > 0 {purpose} (at eps = 0, p = q)"
            raise ParameterError(msg)
        return [
            (o.params["p"], o.params["q"], pi)
            for o, pi in zip(self._oracles, self._priors, strict=True)
        ]

    def _calibrate(self, means: list[np.ndarray]) -> list[np.ndarray]:
        """The estimators of :meth:`estimate` applied to the support fractions ``means``."""
        params = self._estimator_params("to estimate frequencies")
        d = len(self._ks)
        out = []
        for j, c in enumerate(means):
            p, q, pi = params[j]
            if self._randomizer == "grr":
                f = (d * c - q - (d - 1) * pi) / (p - q)
            elif self._randomizer.endswith("-z"):
                f = d * (c - q) / (p - q)
            else:
                f = (d * (c - q) - (d - 1) * (p - q) * pi) / (p - q)
            out.append(f)
        return out

    def _variance(self, n: int, fs: list[np.ndarray | None]) -> list[np.ndarray]:
        """Derived here (the papers state the estimators, not their variances). Whether a
        user's report supports v (reports v for GRR, has bit v set for UE) is a
        Bernoulli draw, independent across users, with probability r1 if the user's
        value is v and r0 otherwise; with p, q the randomizer's parameters at eps' and
        pi the fake prior (uniform for RS+FD):

        - GRR: r1 = (p + (d - 1) pi(v)) / d, r0 = (q + (d - 1) pi(v)) / d;
        - UE-z: r1 = (p + (d - 1) q) / d, r0 = q;
        - UE-r: with s = pi(v) p + (1 - pi(v)) q, r1 = (p + (d - 1) s) / d,
          r0 = (q + (d - 1) s) / d.

        Every estimator is d c(v) / (p - q) plus a constant, so
        Var = d^2 [f r1 (1 - r1) + (1 - f) r0 (1 - r0)] / (n (p - q)^2). O(Σ k_j).

        Examples
        --------
        >>> import math
        >>> v = rsfd([2, 2], math.log(2)).variance(100)  # eps' = ln 3: p = 3/4, q = 1/4
        >>> round(float(v[0][0]), 12)  # r0 = 3/8: 4 (3/8)(5/8) / (100 (1/2)^2)
        0.0375
        """

        params = self._estimator_params("for the estimator's variance")
        d = len(self._ks)
        out = []
        for (p, q, pi), fj in zip(params, fs, strict=True):
            if self._randomizer == "grr":
                r1, r0 = (p + (d - 1) * pi) / d, (q + (d - 1) * pi) / d
            elif self._randomizer.endswith("-z"):
                r1, r0 = np.full_like(pi, (p + (d - 1) * q) / d), np.full_like(pi, q)
            else:
                s = pi * p + (1 - pi) * q
                r1, r0 = (p + (d - 1) * s) / d, (q + (d - 1) * s) / d
            fv = np.zeros_like(pi) if fj is None else fj
            var = fv * r1 * (1 - r1) + (1 - fv) * r0 * (1 - r0)
            out.append(d * d * var / (n * (p - q) ** 2))
        return out

    def ldp_epsilon(self) -> Any:
        """The true LDP epsilon of :meth:`channel`: over all tuples and one-attribute neighbours.

        Returns
        -------
        MultidimEpsilon
            ``(tuples, one_attribute)`` (:func:`qifldp.protocols.splsmp.multidim_epsilon`).

        Notes
        -----
        Computed without the channel, lumped over report classes
        (:func:`qifldp.protocols.rsfd_epsilon.lumped_epsilon`, O(Σ k_j log k_j)), so the
        paper's ks = (74, 7, 16) answer at once; at small ks it equals
        :func:`~qifldp.protocols.splsmp.multidim_epsilon` of :meth:`channel` (tests).
        The paper claims eps-LDP by amplification: the sampled attribute gets eps'.
        On the channel (tests/composite pin the numbers): over all tuples the epsilon
        is eps' for GRR, not eps; over one-attribute neighbours it is eps for GRR with
        equal domain sizes and above eps for unequal ones.

        Examples
        --------
        >>> import math
        >>> e = rsfd([3, 3], 1.0).ldp_epsilon()
        >>> round(e.one_attribute, 9), round(e.tuples, 9) == round(math.log(2 * math.e - 1), 9)
        (1.0, True)
        """

        return MultidimEpsilon(*lumped_epsilon(self))

    # -- the attribute-inference attack --------------------------------------------
    def _joint_sampled(self, prior: np.ndarray) -> np.ndarray:
        """Pr(j, y) for j the sampled attribute and y the report: shape (d, |Y|)."""
        ks, d = self._ks, len(self._ks)
        P = prior.reshape(ks)
        honest = []
        fakes = []
        for j in range(d):
            marginal = P.sum(axis=tuple(i for i in range(d) if i != j))
            honest.append(marginal @ self._honest(j).matrix)
            fakes.append(self._fake_row(j))
        rows = []
        for j in range(d):
            r = np.ones(1)
            for i in range(d):
                r = np.multiply.outer(r, honest[i] if i == j else fakes[i]).ravel()
            rows.append(r / d)
        return np.array(rows)


@fill_doc(DOCS)
def rsfd(ks: Any, eps: float, randomizer: str = "grr") -> RSFD:
    """RS+FD: one attribute sampled uniformly and randomised with eps', uniform fakes elsewhere.

    {parameters}
    eps : float
        Privacy budget, finite and ``>= 0``; the sampled attribute uses
        eps' = ln(d (e^eps - 1) + 1).
    randomizer : str
        ``"grr"``, ``"sue-z"``, ``"oue-z"`` (UE, fake data: the zero vector
        perturbed), ``"sue-r"``, ``"oue-r"`` (UE, fake data: a uniform one-hot vector
        perturbed).

    Returns
    -------
    RSFD
        The protocol object (``.channel()``, ``.sample()``, ``.estimate()``).

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``ks``, ``eps`` or ``randomizer``.

    Notes
    -----
    Arcolezi et al., CIKM 2021; VLDB 2023, Sec. 2.3.2. ``rsfd(ks, eps).channel()``
    equals :func:`qifldp.rsfd_grr` ``(ks, eps)``.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.rsfd([2, 3], 1.0)
    >>> bool(np.allclose(P.channel().matrix, q.rsfd_grr([2, 3], 1.0).matrix))
    True
    """
    return RSFD(ks, eps, randomizer)


def rsrfd(ks: Any, eps: float, priors: Any, randomizer: str = "grr") -> RSFD:
    """RS+RFD: RS+FD with the fake values drawn from given per-attribute priors.

    Parameters
    ----------
    ks, eps : sequence of int, float
        As in :func:`rsfd`.
    priors : sequence of array_like
        One prior per attribute, prior j of length k_j (non-negative, summing to 1):
        the distribution of attribute j's fake values (e.g. a public estimate of
        the population's frequencies).
    randomizer : str
        ``"grr"``, ``"sue-r"`` or ``"oue-r"`` (the randomizers whose fake data is a
        value).

    Returns
    -------
    RSFD

    Raises
    ------
    InputTypeError, ParameterError, PriorError
        Bad ``ks``, ``eps``, ``randomizer`` (a ``-z`` one included) or ``priors``.

    Notes
    -----
    The paper's countermeasure to attribute inference (VLDB 2023); its description
    is not legible in the paper's available text and this is reconstructed from the definition: fake
    value v ~ priors[i], then reported as RS+FD reports a fake value.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.rsrfd([2, 2], 1.0, [[0.8, 0.2], [0.5, 0.5]])
    >>> P.channel().shape
    (4, 4)
    """
    if priors is None:
        msg = "priors must be given for rsrfd (one prior per attribute); use rsfd for uniform fakes"
        raise InputTypeError(msg)
    return RSFD(ks, eps, randomizer, priors)


def rsfd_epsilon(P: Any) -> tuple[float, float]:
    """(tuples, one_attribute) LDP epsilons of the RS+FD / RS+RFD protocol ``P``, lumped.

    Parameters
    ----------
    P : RSFD
        From :func:`qifldp.rsfd` or :func:`qifldp.rsrfd`.

    Returns
    -------
    tuple of float
        ln of the largest likelihood ratio of a report over all pairs of value tuples,
        and over pairs differing in one attribute (``inf`` when a report is possible
        under one tuple and not another).

    Raises
    ------
    InputTypeError
        ``P`` not an RS+FD protocol object.

    Examples
    --------
    >>> import qifldp as q
    >>> t, one = rsfd_epsilon(q.rsfd([74, 7, 16], 1.0, "grr"))
    >>> round(t, 6), round(one, 6)
    (1.81724, 1.139652)
    """
    if not isinstance(P, RSFD):
        msg = f"P must be an RS+FD protocol (qifldp.rsfd or qifldp.rsrfd), got {type(P).__name__}"
        raise InputTypeError(msg)
    return lumped_epsilon(P)
