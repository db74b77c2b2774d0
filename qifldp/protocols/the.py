"""Thresholding with histogram encoding (THE) as a protocol object."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, check_size, guard_size
from ..operators import one_hot
from ..simulation.util import as_rng, as_values, method_options, row_chunks
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters
from ..symmetric.channel import SymmetricChannel
from ..symmetric.operators import one_hot_classes
from ..validation import check_choice, check_eps
from .base import ClosedForm, PQSupport, check_bit_width, size_alternative
from .docstrings import ORACLE_DOCS, fill_doc
from .params import (
    check_k,
    check_theta,
    log_the,
    the_bit_matrix,
    the_expressions,
    the_probabilities,
    the_small_bits,
)
from .sympy_args import check_bits, exact_eps, exact_int, exact_params, power_bits
from .ue import BitVectorReports, attack_bits, sample_bits, symbolic_one_hot, ue_capacity
from .vectorize import as_eps, as_ints, as_theta, asr_from, closed_form_doc, is_scalar, output

if TYPE_CHECKING:
    import sympy as sp


__all__ = [
    "THE",
    "THEClosedForm",
    "the_bit",
    "bayes_capacity_the",
    "asr_the",
    "ldp_epsilon_the",
    "the_oue_threshold",
    "symbolic_bayes_capacity_the",
    "symbolic_the_oue_threshold",
    "symbolic_the_bit",
    "symbolic_the",
]


def _the_bits(eps: Any, theta: Any) -> Callable[[SymbolicParameters], tuple]:

    def bits(P: SymbolicParameters) -> tuple:
        e = P.take("eps", eps, "eps")
        return the_expressions(e, P.take("theta", theta, "theta"))

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


# -- closed forms (numeric, vectorised; their sympy twins) ---------------------------
@closed_form_doc(
    raises="Bad ``k``, ``eps`` or ``theta``.",
)
def bayes_capacity_the(k: Any, eps: Any, theta: Any) -> Any:
    """Bayes capacity of THE with threshold theta: ML = (1 - q)^(k-1)(1 - p/q) + p/q.

    {sections}

    Notes
    -----
    p = 1 - e^(-eps (1 - theta) / 2) / 2, q = e^(-eps theta / 2) / 2 (the THE bit
    channel). The QIF paper's Sec. V-E formula is correct; it is evaluated here as
    :func:`qifldp.protocols.ue.ue_capacity` with 1 - p computed directly.

    Examples
    --------
    >>> round(bayes_capacity_the(3, 2.0, 0.75), 6)
    1.660402
    """
    scalar = is_scalar(k=k, eps=eps, theta=theta)
    k, eps, theta = as_ints("k", k, 2), as_eps(eps), as_theta(theta)
    q, one_minus_p = the_small_bits(eps, theta)
    return output(ue_capacity(k, 1.0 - one_minus_p, q, one_minus_p), scalar)


asr_the = asr_from(bayes_capacity_the, ">>> round(asr_the(3, 2.0, 0.75), 6)\n0.553467")


@closed_form_doc(
    returns="``ldp_epsilon(the(k, eps, theta))`` for every k >= 2.",
    eps=(
        "eps : float or array_like\n"
        "    Nominal privacy parameter(s) (the Laplace noise has scale 2/eps), finite, ``>= 0``."
    ),
)
def ldp_epsilon_the(eps: Any, theta: Any) -> Any:
    """The true LDP epsilon of THE(k, eps, theta), strictly below the nominal eps.

    eps_true = eps/2 + 2 ln 2 + ln(1 - e^(-eps (1 - theta)/2) / 2) + ln(1 - e^(-eps theta/2) / 2).

    {sections}

    Notes
    -----
    Neighbouring inputs x, x' differ in two bits of the one-hot vector, so the
    largest likelihood ratio is (p / q)((1 - q) / (1 - p)), with
    q = e^(-eps theta/2)/2 and 1 - p = e^(-eps (1 - theta)/2)/2. Its log is the
    expression above, evaluated as eps/2 + log1p(1 - e^(-eps (1 - theta)/2)) +
    log1p(1 - e^(-eps theta/2)) (no cancellation at small eps): eps to first
    order at eps -> 0, but eps/2 + 2 ln 2 + o(1) as eps grows (at eps = 10,
    theta = 0.75 it is 6.22). Thresholding is post-processing of the eps-LDP
    Laplace histogram, hence eps_true <= eps.

    Examples
    --------
    >>> round(ldp_epsilon_the(10.0, 0.75), 4)
    6.2199
    """
    scalar = is_scalar(eps=eps, theta=theta)
    eps, theta = as_eps(eps), as_theta(theta)
    # ln 2 + ln(1 - e^-a / 2) = ln(2 - e^-a) = log1p(1 - e^-a): no cancellation near 0.
    value = (
        eps / 2.0
        + np.log1p(-np.expm1(-eps * (1.0 - theta) / 2.0))
        + np.log1p(-np.expm1(-eps * theta / 2.0))
    )
    return output(value, scalar)


@closed_form_doc(
    returns="Increasing in eps, from 1/sqrt(2) towards 1.",
    eps=(
        "eps : float or array_like\n"
        "    Finite, ``>= 0``. At eps = 0 the formula is 0/0 and its limit 1/sqrt(2) is\n"
        "    returned."
    ),
)
def the_oue_threshold(eps: Any) -> Any:
    """Lemma 10's threshold: OUE_bit(eps) ⊑ THE_bit(eps, theta) iff theta >= this value.

    theta*(eps) = (2 ln(e^eps + 1 + (e^(eps/2) - 1) sqrt(e^eps + 1)) - eps - 2 ln 2) / eps.

    {sections}

    Notes
    -----
    Rewritten as theta* = 1 + 2 ln(T / 2) / eps with
    T = 1 + e^-eps + (1 - e^(-eps/2)) sqrt(1 + e^-eps), evaluated with expm1/log1p:
    no overflow for large eps and no 0/0 for small eps. The paper's example
    eps = 0.8 gives theta* = 0.79999 ("theta >= 0.8"). Lemma 1(3) (the trade-off
    criterion) confirms it: tests/protocols/test_formulas.py checks refinement just above
    and its failure just below.

    Examples
    --------
    >>> round(the_oue_threshold(0.8), 5)
    0.79999
    >>> round(the_oue_threshold(0.0), 12) == round(2 ** -0.5, 12)
    True
    """
    scalar = is_scalar(eps=eps)
    eps = as_eps(eps)
    half = -np.expm1(-eps / 2)  # 1 - e^(-eps/2)
    t_minus_2 = np.expm1(-eps) + half * np.sqrt(1.0 + np.exp(-eps))  # T - 2
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = 1.0 + 2.0 * np.log1p(t_minus_2 / 2.0) / eps
    theta = np.where(eps > 0, theta, 1.0 / math.sqrt(2.0))
    return output(theta, scalar)


def symbolic_bayes_capacity_the(k: Any, eps: Any, theta: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_the`: (1 - q)^(k-1) (1 - p/q) + p/q.

    p = 1 - e^(eps (theta - 1) / 2) / 2 and q = e^(-eps theta / 2) / 2 (the QIF
    paper, Sec. V-E).

    Examples
    --------
    >>> symbolic_bayes_capacity_the(2, 0, "theta")
    1
    """
    import sympy as sp

    k = exact_int(k)
    e, t = exact_params(eps=eps, theta=theta)
    p = 1 - sp.exp(e * (t - 1) / 2) / 2
    q = sp.exp(-e * t / 2) / 2
    check_bits(f"bayes_capacity_the({k}, eps, theta)", power_bits(1 - q, k - 1))
    return (1 - q) ** (k - 1) * (1 - p / q) + p / q


def symbolic_the_oue_threshold(eps: Any) -> sp.Expr:
    """The sympy twin of :func:`the_oue_threshold` (the QIF paper, Lemma 10).

    (2 ln(e^eps + 1 + (e^(eps/2) - 1) sqrt(e^eps + 1)) - eps - 2 ln 2) / eps,
    with limit 1/sqrt(2) as eps -> 0, returned at eps = 0.

    Examples
    --------
    >>> import sympy as sp
    >>> eps = sp.Symbol("eps", positive=True)
    >>> sp.limit(symbolic_the_oue_threshold(eps), eps, 0, "+")
    sqrt(2)/2
    >>> symbolic_the_oue_threshold(0)  # the limit, where the formula is 0/0
    sqrt(2)/2
    """
    import sympy as sp

    e = exact_eps(eps)
    if e == 0:  # 0/0 at eps = 0: the continuous extension (the limit above), not NaN
        return sp.sqrt(2) / 2
    E, H = sp.exp(e), sp.exp(e / 2)
    return (2 * sp.log(E + 1 + (H - 1) * sp.sqrt(E + 1)) - e - 2 * sp.log(2)) / e


class THEClosedForm(ClosedForm):
    """Closed forms of THE (QIF paper Sec. V-E; Wang et al., USENIX Security 2017).

    Examples
    --------
    >>> THE(3, 2.0, theta=0.75).closed_form.ldp_epsilon() < 2.0
    True
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of THE (QIF paper Sec. V-E; :func:`bayes_capacity_the`, UE's formula with THE's bits).

        Examples
        --------
        >>> round(THE(3, 2.0, theta=0.75).closed_form.bayes_capacity(), 6)
        1.660402
        """
        return self._at(bayes_capacity_the, "theta")

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin (:func:`symbolic_bayes_capacity_the`); ``eps``, ``theta`` may be symbols.

        Examples
        --------
        >>> THE(2, 1.0, theta=0.75).closed_form.symbolic_bayes_capacity(eps=0)
        1
        """
        return self._protocol._symbolic_at(symbolic_bayes_capacity_the, symbols, ("eps", "theta"))

    def ldp_epsilon(self) -> float:
        """ln(p (1 - q) / ((1 - p) q)) with THE's bits (:func:`ldp_epsilon_the`).

        Below eps for eps > 0: thresholding is post-processing of the eps-LDP
        Laplace histogram (QIF paper Sec. V-E).

        Examples
        --------
        >>> round(THE(3, 2.0, theta=0.75).closed_form.ldp_epsilon(), 6)
        1.623553
        """
        P = self._protocol
        return float(ldp_epsilon_the(P.eps, P.params["theta"]))

    def oue_threshold(self) -> float:
        """The theta above which OUE's bit refines THE's at this eps (QIF paper Lemma 10).

        OUE_bit(eps) ⊑ THE_bit(eps, theta) iff theta >= :func:`the_oue_threshold` (eps).

        Examples
        --------
        >>> round(THE(3, 0.8, theta=0.75).closed_form.oue_threshold(), 5)
        0.79999
        """
        return float(the_oue_threshold(self._protocol.eps))


@fill_doc(ORACLE_DOCS)
class THE(BitVectorReports, PQSupport):
    """Thresholding with histogram encoding: Laplace(2/eps) noise on one-hot bits, threshold theta.

    Parameters
    ----------
    {k}
    {eps}
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
        return self._symbolic_at(symbolic_the, symbols, ("eps", "theta"))

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Bit vectors for n users: Laplace(2/eps) noise on each one-hot coordinate, then theta.

        Parameters
        ----------
        xs, rng
            As :meth:`Protocol.sample`: values in 0..k-1, and a generator or seed.
        **options
            ``method``: ``"laplace"`` (default), the protocol as written (add
            Laplace(2/eps) noise to each coordinate of the one-hot vector and report
            the coordinates above theta); ``"bernoulli"``, each reported bit drawn
            directly with its probability p = 1 - e^{eps (theta - 1)/2}/2
            (1-coordinate) or q = e^{-eps theta/2}/2 (0-coordinates): the same
            distribution, about twice as fast.

        Returns
        -------
        numpy.ndarray of bool, shape (n, k)
            Row j marks the coordinates of user j above the threshold.

        Raises
        ------
        ParameterError, InputTypeError
            Bad ``xs``, ``rng`` or ``method``; another option.
        SizeError
            n k beyond :data:`qifldp.MAX_ENTRIES`.

        Notes
        -----
        Laplace(0, b) noise with b = 2/eps is drawn by inverting its CDF: Z = b L with
        L = ln(2U) if U < 1/2 and L = -ln(2(1 - U)) otherwise, U uniform on [0, 1).
        The event x_i + Z > theta is evaluated as L > (theta - x_i) eps/2 (the same
        event divided by b), which also gives the eps = 0 limit p = q = 1/2.
        Thresholding this inverse-CDF draw is the same as comparing U with 1 - q
        (or 1 - p), which is what ``"bernoulli"`` does. O(n k).

        Examples
        --------
        >>> THE(3, 80.0, 0.7).sample([0, 1], rng=0).astype(int).tolist()
        [[1, 0, 0], [0, 1, 0]]
        """

        method = method_options("sample", options, method="laplace")["method"]
        k, eps, theta = self.k, self.eps, self.params["theta"]
        check_choice("method", method, ("laplace", "bernoulli"))
        if method == "bernoulli":
            return sample_bits(xs, k, self.params["p"], self.params["q"], rng)
        xs = as_values(xs, k)
        gen = as_rng(rng)
        n = xs.size
        check_size(n, k, "the bit matrix of sample_the", "fewer users per call")
        bits = np.empty((n, k), dtype=bool)
        t0 = theta * eps / 2.0  # threshold of L for a 0-coordinate
        t1 = (theta - 1.0) * eps / 2.0  # ... and for the 1-coordinate (negative)
        U = L = np.empty(0)
        for s, e in row_chunks(n, k):
            m = e - s
            if U.size != m * k:
                U, L = np.empty((m, k)), np.empty((m, k))
            gen.random(out=U)
            np.subtract(1.0, U, out=L)
            np.minimum(U, L, out=L)
            L *= 2.0
            with np.errstate(divide="ignore"):  # U = 0 gives ln 0 = -inf: a bit 0, as it should
                np.log(L, out=L)  # ln(2 min(U, 1 - U)) <= 0
            U -= 0.5
            np.copysign(L, U, out=L)  # standard Laplace sample: negative iff U < 1/2
            np.greater(L, t0, out=bits[s:e])
            rows = np.arange(m)
            bits[rows + s, xs[s:e]] = L[rows, xs[s:e]] > t1
        return bits

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the coordinates above the threshold (UE's bit-vector attack).

        ``reports``: the (n, k) bit vectors of :meth:`sample`; ``rng`` draws the guesses.
        Returns one int64 guess per report; errors as :func:`qifldp.protocols.ue.attack_bits`.

        Notes
        -----
        Bayes-optimal under a uniform prior since p > q for theta in (1/2, 1) and eps > 0.
        O(n k).

        Examples
        --------
        >>> THE(3, 1.0, 0.75).attack([[0, 0, 1], [1, 0, 0]], rng=0).tolist()  # 0/1 rows
        [2, 0]
        """

        check_bit_width(reports, self.k)
        return attack_bits(reports, rng)
