"""Thresholding with histogram encoding (THE) as a protocol object."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..operators import one_hot
from ..validation import check_eps
from .base import ClosedForm, Protocol, check_bit_width, no_options, size_alternative
from .params import (
    check_k,
    check_theta,
    log_the,
    the_bit_matrix,
    the_expressions,
    the_probabilities,
)
from .ue import symbolic_one_hot

if TYPE_CHECKING:
    from ..symbolic import SymbolicChannel
    from ..symbolic.channel import SymbolicParameters
    from ..symmetric import SymmetricChannel

__all__ = ["THE", "THEClosedForm", "the_bit", "symbolic_the_bit", "symbolic_the"]


def _the_bits(eps: Any, theta: Any) -> Callable[[SymbolicParameters], tuple]:
    from ..symbolic.channel import EPS_DOMAIN, THETA_DOMAIN

    def bits(P: SymbolicParameters) -> tuple:
        e = P.take("eps", eps, EPS_DOMAIN)
        return the_expressions(e, P.take("theta", theta, THETA_DOMAIN))

    return bits


def symbolic_the_bit(eps: Any, theta: Any) -> SymbolicChannel:
    """THE's 2x2 bit channel, symbolically: Laplace(2/eps) noise on the bit, then threshold theta.

    Parameters
    ----------
    eps : sympy expression, number or symbol name
        Domain [0, oo).
    theta : sympy expression, number or symbol name
        Threshold, domain (1/2, 1).

    Returns
    -------
    SymbolicChannel, shape (2, 2)
        [[1 - q, q], [1 - p, p]] with q = Pr[N > theta] = e^(-eps theta / 2) / 2 and
        1 - p = Pr[1 + N <= theta] = e^(eps (theta - 1) / 2) / 2, N ~ Laplace(0, 2/eps)
        (:func:`qifldp.protocols.params.the_expressions`).

    Notes
    -----
    For N ~ Laplace(0, b), Pr[N > t] = e^(-t/b) / 2 when t >= 0, and
    Pr[N <= t] = e^(t/b) / 2 when t <= 0; here b = 2/eps, and theta - 1 < 0 <
    theta (QIF paper Sec. V-E, T_{eps,theta} of Lemma 5).

    Examples
    --------
    >>> symbolic_the_bit("eps", "theta").matrix
    Matrix([
    [ 1 - exp(-eps*theta/2)/2,          exp(-eps*theta/2)/2],
    [exp(eps*(theta - 1)/2)/2, 1 - exp(eps*(theta - 1)/2)/2]])
    """
    from ..symbolic.channel import SymbolicParameters

    P = SymbolicParameters()
    return P.bit_channel(*_the_bits(eps, theta)(P))


def symbolic_the(k: int, eps: Any, theta: Any) -> SymbolicChannel:
    """Thresholding with histogram encoding, symbolically: ``one_hot`` of :func:`symbolic_the_bit`.

    Examples
    --------
    >>> C = symbolic_the(2, "eps", "theta")
    >>> sorted(s.name for s in C.free_symbols)
    ['eps', 'theta']
    >>> C.domain("theta")
    Interval.open(1/2, 1)
    """
    return symbolic_one_hot("the", ("eps", "theta"), k, _the_bits(eps, theta))


def the_bit(eps: float, theta: float) -> Channel:
    """THE's 2x2 bit channel: add Laplace(2/eps) noise to the bit, output 1 iff it exceeds theta.

    Parameters
    ----------
    eps : float
        Privacy parameter of the whole THE protocol, finite and ``>= 0``.
    theta : float
        Threshold, in the open interval (0.5, 1).

    Returns
    -------
    Channel, shape (2, 2)
        Row = input bit 0/1, column = output bit 0/1: [[1 - q, q], [1 - p, p]] with
        q = e^(-eps theta / 2) / 2 and 1 - p = e^(-eps (1 - theta) / 2) / 2.

    Raises
    ------
    InputTypeError, ParameterError
        ``eps`` not a finite real ``>= 0``; ``theta`` outside (0.5, 1).

    Notes
    -----
    QIF paper Sec. V-E (Wang et al. 2017): with Z ~ Laplace(0, 2/eps),
    q = Pr[Z > theta], p = Pr[1 + Z > theta]. Both small entries are computed
    directly (never as 1 - p), so eps = 800 still gives positive entries. At
    eps = 0 (infinite noise) both rows are (1/2, 1/2).

    Examples
    --------
    >>> import qifldp as q
    >>> q.the_bit(4.0, 0.75).matrix.round(6)
    array([[0.888435, 0.111565],
           [0.303265, 0.696735]])
    """
    eps = check_eps(eps)
    theta = check_theta(theta)
    return Channel(the_bit_matrix(eps, theta))


class THEClosedForm(ClosedForm):
    """Closed forms of THE (QIF paper Sec. V-E; Wang et al., USENIX Security 2017).

    Examples
    --------
    >>> import qifldp as q
    >>> q.protocol("the", 3, 2.0, theta=0.75).closed_form.ldp_epsilon() < 2.0
    True
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of THE (:func:`qifldp.formulas.bayes_capacity_the`, the UE formula with THE's bits).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("the", 3, 2.0, theta=0.75).closed_form.bayes_capacity(), 6)
        1.660402
        """
        from .. import formulas

        P = self._protocol
        return float(formulas.bayes_capacity_the(P.k, P.eps, P.params["theta"]))

    def ldp_epsilon(self) -> float:
        """ln(p (1 - q) / ((1 - p) q)) with THE's bits (:func:`qifldp.formulas.ldp_epsilon_the`).

        Below eps for eps > 0: thresholding is post-processing of the eps-LDP
        Laplace histogram (QIF paper Sec. V-E).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("the", 3, 2.0, theta=0.75).closed_form.ldp_epsilon(), 6)
        1.623553
        """
        from .. import formulas

        P = self._protocol
        return float(formulas.ldp_epsilon_the(P.eps, P.params["theta"]))


class THE(Protocol):
    """Thresholding with histogram encoding: Laplace(2/eps) noise on one-hot bits, threshold theta.

    Parameters
    ----------
    k, eps : int, float
        Domain size (``k >= 2``) and privacy parameter (finite, ``>= 0``).
    theta : float
        Threshold in the open interval (0.5, 1).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.the`.

    Notes
    -----
    p = 1 - e^(eps (theta - 1) / 2) / 2, q = e^(-eps theta / 2) / 2 (QIF paper
    Sec. V-E; Wang et al. 2017).

    Examples
    --------
    >>> P = THE(3, 4.0, 0.75)
    >>> round(P.params["p"], 6), round(P.params["q"], 6), P.params["theta"]
    (0.696735, 0.111565, 0.75)
    """

    __slots__ = ()
    _closed_form_type = THEClosedForm

    def __init__(self, k: int, eps: float, theta: float) -> None:
        k = check_k(k)
        eps = check_eps(eps)
        theta = check_theta(theta)
        p, q = the_probabilities(eps, theta)
        params, args = {"p": p, "q": q, "theta": theta}, {"eps": eps, "theta": theta}
        self._freeze("the", k, eps, params, args, log_the(eps, theta))

    def channel(self) -> Channel:
        """``one_hot(the_bit(eps, theta), k)``: outputs all k-bit tuples (product order).

        Raises
        ------
        SizeError
            k >= 23 (k 2^k above :data:`qifldp.channel.MAX_ENTRIES`).

        Examples
        --------
        >>> C = THE(3, 2.0, 0.75).channel()
        >>> C.shape, C.outputs[:2]
        ((3, 8), ((0, 0, 0), (0, 0, 1)))
        """
        k, eps, theta = self.k, self.eps, self._params["theta"]
        B = Channel(the_bit_matrix(eps, theta))
        alt = size_alternative("the", "k, eps, theta", "bayes_capacity_the")
        guard_size(f"the({k}, {eps}, {theta})", k, k * math.log10(2), lambda: 2**k, alt)
        return one_hot(B, k)

    def symmetric(self) -> SymmetricChannel:
        """THE as a symmetric channel: UE with THE's bit channel; ``qifldp.symmetric.the``.

        Notes
        -----
        q = e^(-eps theta / 2) / 2, 1 - p = e^(-eps (1 - theta) / 2) / 2 (QIF paper
        Sec. V-E), both exact in log space (:func:`qifldp.protocols.params.log_the`,
        computed at construction); the classes are
        :func:`qifldp.symmetric.operators.one_hot_classes`.

        Examples
        --------
        >>> import qifldp as q
        >>> THE(10**5, 2.0, 0.75).symmetric().k
        100000
        >>> round(q.bayes_capacity(THE(3, 2.0, 0.75).symmetric()), 6)
        1.660402
        """
        from ..symmetric.channel import SymmetricChannel
        from ..symmetric.operators import one_hot_classes

        k, eps, theta = self.k, self.eps, self._params["theta"]
        s, log_in, log_out, ratio = one_hot_classes(k, *self._log)
        name = f"the(k={k}, eps={eps:g}, theta={theta:g})"
        return SymmetricChannel._make(k, s, log_in, log_out, name, ("bits",), log_ratio=ratio)

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """THE as a symbolic channel (:func:`symbolic_the`); ``eps``, ``theta`` may be symbols.

        Examples
        --------
        >>> sorted(map(str, THE(2, 1.0, 0.75).symbolic(eps="e", theta="t").matrix.free_symbols))
        ['e', 't']
        """
        values = self._symbols(symbols, ("eps", "theta"))
        return symbolic_the(self.k, values["eps"], values["theta"])

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Bit vectors, shape (n, k) (``qifldp.simulation.sample_the``; option ``method``).

        Examples
        --------
        >>> THE(3, 80.0, 0.7).sample([0, 1], rng=0).astype(int).tolist()
        [[1, 0, 0], [0, 1, 0]]
        """
        from ..simulation import sample_the

        return sample_the(xs, self.k, self.eps, self._params["theta"], rng, **options)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from (n, k) bit vectors (``qifldp.simulation.estimate_the``).

        Examples
        --------
        >>> import numpy as np
        >>> P = THE(2, 3.0, 0.7)
        >>> P.estimate(P.sample(np.repeat([0, 1], [7000, 3000]), rng=0)).round(1).tolist()
        [0.7, 0.3]
        """
        from ..simulation import estimate_the

        check_bit_width(reports, self.k)
        return estimate_the(reports, self.eps, self._params["theta"], project=project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) = (p, q) of THE's bit channel.

        Examples
        --------
        >>> THE(3, 0.0, 0.75).support_probabilities()
        (0.5, 0.5)
        """
        no_options("support_probabilities", options)
        return self._params["p"], self._params["q"]

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the coordinates above the threshold (``attack_the``).

        Examples
        --------
        >>> import numpy as np
        >>> THE(3, 1.0, 0.75).attack(np.array([[0, 0, 1]], dtype=bool), rng=0).tolist()
        [2]
        """
        from ..simulation import attack_the

        check_bit_width(reports, self.k)
        return attack_the(reports, rng)
