"""Unary encoding (UE, SUE, OUE) as a protocol object: one-hot bits through a bit channel."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit, gammaln

from ..channel import Channel, check_size, guard_size
from ..errors import InputTypeError, ParameterError
from ..operators import one_hot
from ..simulation import calibrate, support_counts
from ..simulation.samplers import n_reports
from ..simulation.util import (
    as_array,
    as_rng,
    as_values,
    bernoulli_fill,
    check_bits,
    choose_uniform_true,
    row_chunks,
)
from ..symbolic import SymbolicChannel
from ..symbolic.operators import one_hot as symbolic_one_hot_operator
from ..symbolic.parameters import (
    SymbolicParameters,
    guard_symbolic_size,
)
from ..symmetric.channel import SymmetricChannel
from ..symmetric.operators import one_hot_classes
from ..validation import check_choice, check_eps, check_int
from .base import ClosedForm, PQSupport, check_bit_width, no_options, size_alternative, ue_log_ratio
from .docstrings import ORACLE_DOCS, fill_doc
from .params import (
    check_k,
    check_pq,
    log_oue,
    log_pq,
    log_sue,
    oue_bit_matrix,
    oue_expressions,
    oue_probabilities,
    sue_bit_matrix,
    sue_bits,
    sue_expressions,
    sue_probabilities,
)
from .sympy_args import (
    check_bits as check_exact_bits,
    exact_eps,
    exact_int,
    exact_params,
    power_bits,
)
from .vectorize import (
    as_eps,
    as_floats,
    as_ints,
    asr_from,
    check_printed,
    closed_form_doc,
    is_scalar,
    one_minus_pow_over,
    output,
)

if TYPE_CHECKING:
    import sympy as sp


__all__ = [
    "UE",
    "UEClosedForm",
    "sue_bit",
    "oue_bit",
    "ue_capacity",
    "bayes_capacity_ue",
    "bayes_capacity_sue",
    "bayes_capacity_oue",
    "asr_ue",
    "asr_sue",
    "asr_oue",
    "acc_sue",
    "acc_oue",
    "symbolic_bayes_capacity_ue",
    "symbolic_bayes_capacity_sue",
    "symbolic_bayes_capacity_oue",
    "symbolic_unary_encoding",
    "symbolic_sue",
    "symbolic_oue",
    "symbolic_sue_bit",
    "symbolic_oue_bit",
    "symbolic_one_hot",
]

#: A symbolic bit channel's (p, 1-p, q, 1-q), with its parameters taken into a SymbolicParameters.
_Bits = Callable[["SymbolicParameters"], tuple]


@fill_doc(ORACLE_DOCS)
def symbolic_one_hot(name: str, args: tuple, k: int, bits: _Bits) -> SymbolicChannel:
    """``one_hot`` of a symbolic bit channel, size-guarded before anything is built.

    Parameters
    ----------
    name, args : str, tuple
        The constructor and its arguments after k, for the size error.
    {k}
    bits : callable
        Takes the parameters into a :class:`qifldp.symbolic.parameters.SymbolicParameters`
        and returns the bit channel's (p, 1-p, q, 1-q).

    Examples
    --------
    >>> from qifldp.protocols.params import oue_expressions
    >>> symbolic_one_hot("oue", (1,), 2, lambda P: oue_expressions(1)).shape
    (2, 4)
    """

    k = check_k(k)
    guard_symbolic_size(name, (k, *args), k, k * math.log10(2), lambda: 2**k)
    P = SymbolicParameters()
    return symbolic_one_hot_operator(P.bit_channel(*bits(P)), k)


def _sue_bits(eps: Any) -> _Bits:

    return lambda P: sue_expressions(P.take("eps", eps, "eps"))


def _oue_bits(eps: Any) -> _Bits:

    return lambda P: oue_expressions(P.take("eps", eps, "eps"))


def _ue_bits(p: Any, q: Any) -> _Bits:
    def bits(P: SymbolicParameters) -> tuple:

        pe = P.take("p", p, "probability")
        qe = P.take("q", q, "probability")
        P.require_pq(pe, qe)
        return pe, 1 - pe, qe, 1 - qe

    return bits


def symbolic_sue_bit(eps: Any) -> SymbolicChannel:
    """SUE's 2x2 bit channel, symbolically: keep a bit w.p. e^(eps/2) / (e^(eps/2) + 1).

    Rows = input bit 0/1, columns = output bit 0/1 (QIF paper, S_eps of Lemma 7).

    Examples
    --------
    >>> symbolic_sue_bit("eps").matrix
    Matrix([
    [exp(eps/2)/(exp(eps/2) + 1),            1/(exp(eps/2) + 1)],
    [           1/(exp(eps/2) + 1), exp(eps/2)/(exp(eps/2) + 1)]])
    """

    P = SymbolicParameters()
    return P.bit_channel(*_sue_bits(eps)(P))


def symbolic_oue_bit(eps: Any) -> SymbolicChannel:
    """OUE's 2x2 bit channel [[e^eps/(e^eps+1), 1/(e^eps+1)], [1/2, 1/2]] (QIF paper, O_eps).

    Examples
    --------
    >>> symbolic_oue_bit("eps")[1, 1]
    1/2
    """

    P = SymbolicParameters()
    return P.bit_channel(*_oue_bits(eps)(P))


@fill_doc(ORACLE_DOCS)
def symbolic_unary_encoding(k: int, p: Any, q: Any) -> SymbolicChannel:
    """Unary encoding with bit probabilities p (keep a 1) and q (flip a 0 to 1), symbolically.

    Parameters
    ----------
    {k}
    p, q : sympy expressions, numbers or symbol names
        Probabilities in [0, 1] with q < p (as for :func:`qifldp.unary_encoding`);
        for symbols the relation ``p > q`` is recorded in the channel's ``assume``.

    Returns
    -------
    SymbolicChannel, shape (k, 2^k)
        ``one_hot`` of [[1 - q, q], [1 - p, p]]; outputs all k-bit tuples.

    Raises
    ------
    ParameterError
        p or q outside [0, 1], or q >= p (provably, for symbols).
    SizeError
        Too many entries.

    Notes
    -----
    QIF paper Def. 7 and Eq. (22). Cost O(k 2^k).

    Examples
    --------
    >>> C = symbolic_unary_encoding(2, "p", "q")
    >>> C.assume
    (p > q,)
    >>> C[0, 2]
    p*(1 - q)
    """
    return symbolic_one_hot("unary_encoding", ("p", "q"), k, _ue_bits(p, q))


def symbolic_sue(k: int, eps: Any) -> SymbolicChannel:
    """Symmetric unary encoding (basic RAPPOR), symbolically: one_hot of :func:`symbolic_sue_bit`.

    Examples
    --------
    >>> C = symbolic_sue(3, "eps")
    >>> C.shape, C.outputs[3]
    ((3, 8), (0, 1, 1))
    """
    return symbolic_one_hot("sue", ("eps",), k, _sue_bits(eps))


def symbolic_oue(k: int, eps: Any) -> SymbolicChannel:
    """Optimized unary encoding, symbolically: ``one_hot`` of :func:`symbolic_oue_bit`.

    Examples
    --------
    >>> symbolic_oue(2, "eps")[0, 0]
    exp(eps)/(2*(exp(eps) + 1))
    """
    return symbolic_one_hot("oue", ("eps",), k, _oue_bits(eps))


def sue_bit(eps: float) -> Channel:
    """SUE's 2x2 bit channel: keep the bit w.p. p = e^(eps/2) / (e^(eps/2) + 1), flip it w.p. 1 - p.

    Parameters
    ----------
    eps : float
        Privacy parameter of the whole SUE protocol, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (2, 2)
        Row = input bit 0/1, column = output bit 0/1: [[p, 1 - p], [1 - p, p]].

    Raises
    ------
    InputTypeError, ParameterError
        ``eps`` not a finite real ``>= 0``.

    Notes
    -----
    Basic one-time RAPPOR (Erlingsson et al. 2014). The bit channel alone is
    (eps/2)-LDP; the one-hot protocol changes two bits between neighbours, hence
    eps. Entries from the logistic function: no overflow.

    Examples
    --------
    >>> import math, qifldp as q
    >>> q.sue_bit(2 * math.log(3)).matrix.round(6)
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    return Channel(sue_bit_matrix(eps))


def oue_bit(eps: float) -> Channel:
    """OUE's 2x2 bit channel: a 1 stays 1 w.p. 1/2, a 0 becomes 1 w.p. q = 1 / (e^eps + 1).

    ``eps`` (the whole protocol's) and the errors as for :func:`sue_bit`; the
    channel is [[1 - q, q], [1/2, 1/2]] (rows: input bit 0/1, columns: output bit).

    Notes
    -----
    Wang et al. 2017. The bit channel alone is ln((e^eps + 1) / 2)-LDP (< eps for
    eps > 0); the one-hot protocol is exactly eps-LDP. 1 - q is the logistic
    function of eps itself (never 1 - q in floating point).

    Examples
    --------
    >>> import math, qifldp as q
    >>> q.oue_bit(math.log(3)).matrix
    array([[0.75, 0.25],
           [0.5 , 0.5 ]])
    """
    return Channel(oue_bit_matrix(eps))


# -- closed forms (numeric, vectorised; their sympy twins) ---------------------------
def ue_capacity(k: Any, p: Any, q: Any, one_minus_p: Any) -> np.ndarray:
    """ML of unary encoding with bits p >= q: (1 - p)(1 - q)^(k-1) + p (1 - (1 - q)^k) / q.

    Arguments are checked arrays (THE passes its own bits); ``one_minus_p`` is
    given separately so that it keeps its digits when p is close to 1.

    Examples
    --------
    >>> float(ue_capacity(2, 0.75, 0.25, 0.25))
    1.5
    """
    k = np.asarray(k, dtype=np.float64)
    return one_minus_p * np.exp((k - 1.0) * np.log1p(-q)) + p * one_minus_pow_over(q, k)


@closed_form_doc(
    raises="Bad ``k``; ``p``/``q`` outside [0, 1] or ``q >= p``.",
)
def bayes_capacity_ue(k: Any, p: Any, q: Any) -> Any:
    """Bayes capacity of unary encoding with bit probabilities p (1 -> 1) and q (0 -> 1).

    ML = (1 - p)(1 - q)^(k-1) + (p / q)(1 - (1 - q)^k).

    {sections}

    Notes
    -----
    An output with i >= 1 ones is most likely under an input whose bit is among
    them (p q^(i-1) (1-q)^(k-i), as p (1 - q) >= (1 - p) q); the all-zero output
    has maximum (1 - p)(1 - q)^(k-1). Summing C(k, i) such maxima gives the formula
    (the QIF paper's derivations for SUE, OUE, THE in Sec. V-D/E, which are right).
    (1 - (1 - q)^k) / q is evaluated with expm1/log1p, or its series when k q is
    tiny, so q -> 0 gives (1 - p) + k p.

    Examples
    --------
    >>> bayes_capacity_ue(2, 0.75, 0.25)
    1.5
    >>> bayes_capacity_ue(3, 1.0, 0.0)  # the identity on one-hot vectors
    3.0
    """
    scalar = is_scalar(k=k, p=p, q=q)
    k = as_ints("k", k, 2)
    p, q = as_floats("p", p), as_floats("q", q)
    if np.any((p < 0) | (p > 1)) or np.any((q < 0) | (q > 1)) or np.any(q >= p):
        msg = f"p and q must satisfy 0 <= q < p <= 1, got p = {p.tolist()!r}, q = {q.tolist()!r}"
        raise ParameterError(msg)
    return output(ue_capacity(k, p, q, 1.0 - p), scalar)


def _eps_capacity(k: Any, eps: Any, bits: Callable[[np.ndarray], tuple]) -> Any:
    """:func:`ue_capacity` of the eps-parametrised UE, ``bits(eps) = (p, q, 1 - p)``."""
    scalar = is_scalar(k=k, eps=eps)
    k, eps = as_ints("k", k, 2), as_eps(eps)
    return output(ue_capacity(k, *bits(eps)), scalar)


@closed_form_doc(
    returns="The multiplicative Bayes capacity, in [1, k].",
)
def bayes_capacity_sue(k: Any, eps: Any) -> Any:
    """Bayes capacity of SUE (basic RAPPOR), p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p.

    {sections}

    Notes
    -----
    :func:`bayes_capacity_ue` with these p, q; equal to the QIF paper's
    (p + p^(k-1)(1 - 2p)) / (1 - p) (Sec. V-D, correct). p and q come from the
    logistic function, so eps = 800 gives k without overflow.

    Examples
    --------
    >>> import math
    >>> bayes_capacity_sue(2, 2 * math.log(3))
    1.5
    >>> round(bayes_capacity_sue(10**6, 50.0), 1)  # k - (k - 1) q / 2 -ish, q = e^-25
    999993.1
    """
    return _eps_capacity(k, eps, lambda e: (*sue_bits(e), sue_bits(e)[1]))


@closed_form_doc(
    returns="ML(OUE), in [1, (k + 1) / 2].",
)
def bayes_capacity_oue(k: Any, eps: Any) -> Any:
    """Bayes capacity of OUE, p = 1/2, q = 1 / (e^eps + 1).

    :func:`bayes_capacity_ue` with these p, q; equal to the QIF paper's
    ((1 - q)^(k-1)(2q - 1) + 1) / (2q) (Sec. V-D, correct), but evaluated without
    its cancellation (that form loses all digits when q is tiny). As eps grows,
    ML -> (k + 1) / 2.

    {sections}

    Examples
    --------
    >>> import math
    >>> round(bayes_capacity_oue(2, math.log(3)), 12)
    1.25
    >>> bayes_capacity_oue(9, 800.0)
    5.0
    """
    return _eps_capacity(k, eps, lambda e: (0.5, expit(-e), 0.5))


asr_ue = asr_from(bayes_capacity_ue, ">>> asr_ue(2, 0.75, 0.25)\n0.75")
asr_sue = asr_from(bayes_capacity_sue, ">>> asr_sue(2, 2 * math.log(3))\n0.75")
asr_oue = asr_from(bayes_capacity_oue, ">>> round(asr_oue(2, math.log(3)), 12)\n0.625")


def _log_binom_pmf(i: np.ndarray, n: int, q: float) -> np.ndarray:
    """log Bin(i; n, q) in log space (q in (0, 1))."""
    return (
        gammaln(n + 1.0)
        - gammaln(i + 1.0)
        - gammaln(n - i + 1.0)
        + i * math.log(q)
        + (n - i) * math.log1p(-q)
    )


def _printed_ue_acc(k: int, p: float, q: float, one_minus_p: float, one_minus_q: float) -> float:
    """The paper's ACC_UE: (1-p)(1-q)^(k-1)/k + Σ_{i=1..k} (p / i) Bin(i-1; k-1, q)."""
    i = np.arange(1, k + 1, dtype=np.float64)
    if q == 0.0:
        total = p  # only i = 1 has mass
    else:
        total = float(np.sum(p / i * np.exp(_log_binom_pmf(i - 1.0, k - 1, q))))
    return one_minus_p * math.exp((k - 1) * math.log(one_minus_q)) / k + total


def _printed_acc(k: Any, eps: Any, printed: bool, asr: Callable, bits: Any) -> Any:
    """``asr(k, eps)`` unless ``printed``; then the printed ACC sum at each (k, eps),
    with bits(eps) -> (p, q, 1 - p, 1 - q)."""
    if not check_printed(printed):
        return asr(k, eps)
    scalar = is_scalar(k=k, eps=eps)
    k, eps = as_ints("k", k, 2), as_eps(eps)

    def one(kk: int, e: float) -> float:
        return _printed_ue_acc(int(kk), *bits(e))

    return output(np.vectorize(one, otypes=[np.float64])(k, eps), scalar)


@closed_form_doc(
    printed=(
        "printed : bool\n"
        "    False (default): the closed form :func:`asr_sue`. True: the printed sum of\n"
        "    the multidimensional-risks paper (Arcolezi et al. 2023)\n"
        "    (1/(k(e^(eps/2)+1))) (e^(eps/2)/(e^(eps/2)+1))^(k-1) +\n"
        "    Σ_{i=1..k} e^(eps/2) / ((e^(eps/2)+1) i) Bin(i-1; k-1, 1/(e^(eps/2)+1)),\n"
        "    evaluated term by term (O(k))."
    ),
)
def acc_sue(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the plausible-deniability attacker on SUE.

    The attacker guesses uniformly among the reported 1 bits, or over the whole
    domain when there is none.

    {sections}

    Notes
    -----
    The printed sum is exact: Σ_m Bin(m; k-1, q) / (m+1) = (1 - (1-q)^k) / (k q),
    so it equals ML(SUE) / k, and the attacker is Bayes-optimal (a reported 1 is
    always at least as likely to be the true bit as a reported 0).

    Examples
    --------
    >>> round(acc_sue(5, 2.0), 12) == round(acc_sue(5, 2.0, printed=True), 12)
    True
    """

    def bits(e: float) -> tuple[float, float, float, float]:
        p, q = (float(v) for v in sue_bits(e))
        return p, q, q, p

    return _printed_acc(k, eps, printed, asr_sue, bits)


@closed_form_doc(
    returns=(
        "``printed=False``: the closed form :func:`asr_oue`. ``printed=True``: the\n"
        "multidimensional-risks paper's sum (1/(2k)) (e^eps/(e^eps+1))^(k-1) +\n"
        "Σ_{i=1..k} 1/(2i) Bin(i-1; k-1, 1/(e^eps+1)), term by term."
    ),
)
def acc_oue(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the plausible-deniability attacker on OUE.

    {sections}

    Notes
    -----
    The printed sum is exact, for the same reason as :func:`acc_sue`: it equals
    ML(OUE) / k.

    Examples
    --------
    >>> round(acc_oue(5, 2.0), 12) == round(acc_oue(5, 2.0, printed=True), 12)
    True
    """
    return _printed_acc(
        k, eps, printed, asr_oue, lambda e: (0.5, float(expit(-e)), 0.5, float(expit(e)))
    )


def symbolic_bayes_capacity_ue(k: Any, p: Any, q: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_ue`: (1 - q)^(k-1) (1 - p/q) + p/q, 0 < q < p <= 1.

    Notes
    -----
    An output with i >= 1 ones has maximum p q^(i-1) (1-q)^(k-i) (guess one of
    its ones, since p (1-q) >= (1-p) q iff p >= q); the all-zero output has
    (1-p)(1-q)^(k-1). Summing with binomial counts gives the closed form (the
    paper's THE derivation, Sec. V-E, with general p, q).

    Examples
    --------
    >>> symbolic_bayes_capacity_ue(2, "p", "q")
    p/q + (1 - q)*(-p/q + 1)
    """

    k = exact_int(k)
    pe, qe = exact_params(p=p, q=q)
    if (pe - qe).is_number and not (pe - qe).is_positive:
        msg = f"p and q must satisfy 0 < q < p <= 1, got p = {pe}, q = {qe}"
        raise ParameterError(msg)
    check_exact_bits(f"bayes_capacity_ue({k}, p, q)", power_bits(1 - qe, k - 1))
    return (1 - qe) ** (k - 1) * (1 - pe / qe) + pe / qe


def symbolic_bayes_capacity_sue(k: Any, eps: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_sue`: (p + p^(k-1) (1 - 2p)) / (1 - p).

    p = e^(eps/2) / (e^(eps/2) + 1): the QIF paper's final line (Sec. V-D1); its
    intermediate lines agree with it.

    Examples
    --------
    >>> symbolic_bayes_capacity_sue(2, 0)
    1
    """
    import sympy as sp

    k = exact_int(k)
    H = sp.exp(exact_eps(eps) / 2)
    p = H / (H + 1)
    check_exact_bits(f"bayes_capacity_sue({k}, eps)", power_bits(p, k - 1))
    return (p + p ** (k - 1) * (1 - 2 * p)) / (1 - p)


def symbolic_bayes_capacity_oue(k: Any, eps: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_oue`: ((1 - q)^(k-1) (2q - 1) + 1) / (2q).

    q = 1 / (e^eps + 1) (the QIF paper, Sec. V-D2).

    Examples
    --------
    >>> symbolic_bayes_capacity_oue(2, 0)
    1
    """
    import sympy as sp

    k = exact_int(k)
    q = 1 / (sp.exp(exact_eps(eps)) + 1)
    check_exact_bits(f"bayes_capacity_oue({k}, eps)", power_bits(1 - q, k - 1))
    return ((1 - q) ** (k - 1) * (2 * q - 1) + 1) / (2 * q)


class UEClosedForm(ClosedForm):
    """Closed forms of unary encoding (QIF paper Sec. V-D; Wang et al., USENIX Security 2017).

    Examples
    --------
    >>> UE(4, 1.0, variant="oue").closed_form  # what Protocol.closed_form gives
    <closed forms of protocol('oue', k=4, eps=1.0)>
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of UE with bits p, q (QIF paper Sec. V-D; :func:`bayes_capacity_ue`).

        SUE and OUE use :func:`bayes_capacity_sue` / :func:`bayes_capacity_oue`
        (log space from eps directly).

        Examples
        --------
        >>> round(UE(2, p=0.75, q=0.25).closed_form.bayes_capacity(), 12)
        1.5
        """
        P = self._protocol
        return self._by_variant(
            {"sue": bayes_capacity_sue, "oue": bayes_capacity_oue},
            lambda: bayes_capacity_ue(P.k, P.params["p"], P.params["q"]),
        )

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin: symbols for ``eps`` (SUE, OUE) or ``p``, ``q`` (UE).

        :func:`symbolic_bayes_capacity_sue`, :func:`symbolic_bayes_capacity_oue`,
        :func:`symbolic_bayes_capacity_ue` (the QIF paper's Sec. V-D lines).

        Examples
        --------
        >>> UE(2, 1.0, variant="oue").closed_form.symbolic_bayes_capacity(eps=0)
        1
        """
        P = self._protocol
        if P.name == "ue":
            return self._protocol._symbolic_at(symbolic_bayes_capacity_ue, symbols, ("p", "q"))
        build = symbolic_bayes_capacity_sue if P.name == "sue" else symbolic_bayes_capacity_oue
        return self._protocol._symbolic_at(build, symbols, ("eps",))

    def acc(self, printed: bool = False) -> float:
        """The plausible-deniability attacker's accuracy (:func:`acc_sue`, :func:`acc_oue`).

        Arcolezi et al. 2023 (multidimensional risks) print ACC as a sum over the
        number of reported 1 bits; the sum is exact and equals :meth:`asr`.
        ``printed=True`` evaluates it term by term (for UE with this p, q).

        Examples
        --------
        >>> cf = UE(4, p=0.75, q=0.25).closed_form
        >>> round(cf.acc(printed=True), 12) == round(cf.asr(), 12)
        True
        """
        P = self._protocol
        if P.name == "sue":
            return float(acc_sue(P.k, P.eps, printed))
        if P.name == "oue":
            return float(acc_oue(P.k, P.eps, printed))
        if not check_printed(printed):
            return self.asr()
        p, q = P.params["p"], P.params["q"]
        return _printed_ue_acc(P.k, p, q, 1.0 - p, 1.0 - q)

    def ldp_epsilon(self) -> float:
        """ln(p (1 - q) / ((1 - p) q)) (Wang et al. 2017, Sec. 4.3); eps for SUE and OUE.

        Inf when p = 1 or q = 0 (a column with a zero entry).

        Examples
        --------
        >>> import math
        >>> round(UE(3, p=0.75, q=0.25).closed_form.ldp_epsilon(), 12)
        2.197224577336
        """
        P = self._protocol
        if P.name in ("sue", "oue"):
            return P.eps
        return ue_log_ratio(P.params["p"], P.params["q"])


class BitVectorReports:
    """Estimation shared by the protocols whose reports are (n, k) bit vectors (UE, THE).

    A report supports the values of its 1-bits with the probabilities (p*, q*) of
    :meth:`support_probabilities`; the estimate calibrates the support counts with them.
    """

    __slots__ = ()
    k: int

    if TYPE_CHECKING:

        def support_probabilities(self, **options: Any) -> tuple[float, float]: ...

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from (n, k) bit vectors: the 1-bits, calibrated with (p*, q*).

        ``reports``: the (n, k) bit vectors of :meth:`sample` (booleans or 0/1); returns
        the float64 estimate of shape (k,). Raises ParameterError for p* = q* (SUE or OUE
        at eps = 0, THE at eps = 0), reports of another shape, or no reports.

        Notes
        -----
        :func:`estimate_bits`: C_v = number of reports with bit v set (for THE: of
        coordinates above theta); UE: p* = p, q* = q (Wang et al. 2017, Sec. 4.1); THE:
        p* = 1 - e^{eps (theta - 1)/2}/2, q* = e^{-eps theta/2}/2 (Sec. 4.2). O(n k).

        Examples
        --------
        >>> import numpy as np
        >>> P = UE(2, 2.0, variant="oue")
        >>> P.estimate(P.sample(np.repeat([0, 1], [7000, 3000]), rng=0)).round(1).tolist()
        [0.7, 0.3]
        >>> from qifldp.protocols.the import THE
        >>> P = THE(2, 3.0, 0.7)
        >>> P.estimate(P.sample(np.repeat([0, 1], [6000, 4000]), rng=0)).round(1).tolist()
        [0.6, 0.4]
        """
        check_bit_width(reports, self.k)
        p, q = self.support_probabilities()
        return estimate_bits(reports, p, q, project)


@fill_doc(ORACLE_DOCS)
class UE(BitVectorReports, PQSupport):
    """Unary encoding: one-hot encode x, report each bit 1 w.p. p (bit 1) or q (bit 0).

    Parameters
    ----------
    {k}
    eps : float, optional
        Privacy parameter of SUE and OUE (not taken by ``variant="ue"``).
    p, q : float, optional
        The bit probabilities of ``variant="ue"``, ``0 <= q < p <= 1``.
    variant : {"ue", "sue", "oue"}
        ``"sue"``: p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p (basic RAPPOR);
        ``"oue"``: p = 1/2, q = 1 / (e^eps + 1) (Wang et al. 2017).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.unary_encoding` / ``sue`` / ``oue``; eps given to UE, or
        p / q given to SUE or OUE.

    Examples
    --------
    >>> UE(3, 1.0, variant="oue").params["p"]
    0.5
    >>> round(UE(3, p=0.75, q=0.25).eps, 6)  # ln(p (1 - q) / ((1 - p) q)) = ln 9
    2.197225
    """

    __slots__ = ()
    #: The variants this family builds (their names are the protocols' names).
    _VARIANTS: tuple[str, ...] = ("ue", "sue", "oue")
    _closed_form_type = UEClosedForm

    def __init__(
        self,
        k: int,
        eps: float | None = None,
        *,
        p: float | None = None,
        q: float | None = None,
        variant: str = "ue",
    ) -> None:
        variant = check_choice("variant", variant, ("ue", "sue", "oue"))
        if variant == "ue":
            if eps is not None:
                msg = (
                    f"protocol 'ue' takes p and q, not eps (got eps={eps!r}); use 'sue' or "
                    "'oue' for unary encoding set by eps"
                )
                raise InputTypeError(msg)
            k = check_k(k)
            p, q = check_pq(p, q)
            params = {"p": p, "q": q}
            self._freeze("ue", k, ue_log_ratio(p, q), params, params, log_pq(p, q))
            return
        if p is not None or q is not None:
            msg = f"protocol {variant!r} sets p and q from eps (use 'ue' to give them)"
            raise InputTypeError(msg)
        k = check_k(k)
        eps = check_eps(eps)
        if variant == "sue":
            (p, q), log = sue_probabilities(eps), log_sue(eps)
        else:
            (p, q), log = oue_probabilities(eps), log_oue(eps)
        self._freeze(variant, k, eps, {"p": p, "q": q}, {"eps": eps}, log)

    def _bit(self) -> Channel:
        """The 2x2 bit channel, with the entries of ``sue_bit`` / ``oue_bit`` for the variants."""
        if self.name == "sue":
            return sue_bit(self.eps)
        if self.name == "oue":
            return oue_bit(self.eps)
        p, q = self._params["p"], self._params["q"]
        return Channel(np.array([[1.0 - q, q], [1.0 - p, p]]))

    def channel(self) -> Channel:
        """``one_hot`` of the bit channel: outputs all k-bit tuples (product order).

        Raises
        ------
        SizeError
            k 2^k above :data:`qifldp.channel.MAX_ENTRIES`, i.e. k >= 23.

        Examples
        --------
        >>> import math
        >>> UE(2, math.log(3), variant="oue").channel().matrix.round(6)
        array([[0.375, 0.125, 0.375, 0.125],
               [0.375, 0.375, 0.125, 0.125]])
        """
        k, B = self.k, self._bit()
        if self.name == "ue":
            p, q = self._params["p"], self._params["q"]
            what, sig, formula = f"unary_encoding({k}, {p}, {q})", "k, p, q", "bayes_capacity_ue"
            name = "unary_encoding"
        else:
            name = self.name
            what, sig, formula = f"{name}({k}, {self.eps})", "k, eps", f"bayes_capacity_{name}"
        alt = size_alternative(name, sig, formula)
        guard_size(what, k, k * math.log10(2), lambda: 2**k, alt)
        return one_hot(B, k)

    def symmetric(self) -> SymmetricChannel:
        """UE as a symmetric channel (output S = the set of 1-bits); ``qifldp.symmetric.sue`` ...

        Returns
        -------
        SymmetricChannel
            Sizes 0..k: a_s = p q^(s-1) (1-q)^(k-s), b_s = (1-p) q^s (1-q)^(k-s-1), i.e.
            P_in(s) = p Bin(k-1, q)(s-1) and P_out(s) = (1-p) Bin(k-1, q)(s), from the
            log-space p, q computed at construction (``log_sue``, ``log_oue``,
            ``log_pq`` of :mod:`qifldp.protocols.params`; no overflow for any eps).

        Notes
        -----
        QIF paper Definition 7; every bit vector is its own lumped output, so
        ``expand()`` equals :meth:`channel` (all k-bit tuples). The binomial masses
        are computed by Loader's saddle-point formula, accurate where p q^(k-1)
        underflows (:func:`qifldp.symmetric.operators.one_hot_classes`). O(k).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.ldp_epsilon(UE(10**6, 3.0, variant="sue").symmetric()), 9)
        3.0
        >>> round(q.bayes_capacity(UE(2, p=0.75, q=0.25).symmetric()), 12)
        1.5
        """

        k = self.k
        if self.name == "ue":
            name = f"unary_encoding(k={k}, p={self._params['p']:g}, q={self._params['q']:g})"
        else:
            name = f"{self.name}(k={k}, eps={self.eps:g})"
        s, log_in, log_out, ratio = one_hot_classes(k, *self._log)
        # SUE and OUE: p (1-q) / ((1-p) q) = e^eps identically in their closed forms
        # (tests/symmetric/test_exact_log_ratio.py proves it on the symbolic twin)
        exact = None if self.name == "ue" else self.eps
        return SymmetricChannel._make(
            k, s, log_in, log_out, name, ("bits",), log_ratio=ratio, exact_log_ratio=exact
        )

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """UE as a symbolic channel; symbols for ``eps`` (SUE, OUE) or ``p``, ``q`` (UE).

        Examples
        --------
        >>> UE(2, 1.0, variant="oue").symbolic(eps="e").matrix[0, 0]
        exp(e)/(2*(exp(e) + 1))
        """
        if self.name == "ue":
            return self._symbolic_at(symbolic_unary_encoding, symbols, ("p", "q"))
        build = symbolic_sue if self.name == "sue" else symbolic_oue
        return self._symbolic_at(build, symbols, ("eps",))

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Bit vectors for n users: one-hot encode, keep the 1-bit w.p. p, set each 0-bit w.p. q.

        Parameters as :meth:`Protocol.sample` (no options); returns the (n, k) boolean
        bit vectors (the output labels of :meth:`channel` are these rows as tuples of
        0/1). Raises ParameterError / InputTypeError for bad ``xs`` or ``rng`` or an
        option, SizeError when n k exceeds :data:`qifldp.MAX_ENTRIES`.

        Notes
        -----
        :func:`sample_bits` with this protocol's p and q (eps = 0, where SUE and
        OUE have p = q = 1/2, is allowed). O(n k).

        Examples
        --------
        >>> UE(3, 60.0, variant="sue").sample([1], rng=0).astype(int).tolist()
        [[0, 1, 0]]
        """
        no_options("sample", options)
        return sample_bits(xs, self.k, self.params["p"], self.params["q"], rng)

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the set bits, all k when none is set (:func:`attack_bits`).

        ``reports``: the (n, k) bit vectors of :meth:`sample`; ``rng`` draws the guesses.
        Returns one int64 guess per report; errors as :func:`attack_bits`.

        Examples
        --------
        >>> import numpy as np
        >>> UE(3, 1.0, variant="oue").attack(np.array([[0, 1, 0]], dtype=bool), rng=0).tolist()
        [1]
        """
        check_bit_width(reports, self.k)
        return attack_bits(reports, rng)


# ----------------------------------------------------------------------------------------
# simulation helpers: bit vectors (shared with THE)
# ----------------------------------------------------------------------------------------
@fill_doc(ORACLE_DOCS)
def sample_bits(xs: Any, k: int, p: float, q: float, rng: Any = None) -> np.ndarray:
    """Independent report bits: bit v of user j is 1 w.p. p if v = x_j, else w.p. q.

    Parameters
    ----------
    xs : array_like of int, shape (n,)
        Values in 0..k-1.
    {k}
    p, q : float
        Probabilities in [0, 1], not checked here (p = q is allowed: eps = 0).
    rng : numpy.random.Generator or int, optional
        Generator or seed; None draws fresh entropy.

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)
        Row j: the reported bits of user j.

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``k``, ``xs`` or ``rng``.
    SizeError
        n k beyond :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    Bit v of user j is [U < p] if v = x_j, U uniform on [0, 1); the other bits are
    Bernoulli(q) by :func:`qifldp.simulation.util.bernoulli_fill` (one random byte a
    bit), generated in cache-sized blocks. O(n k).

    Examples
    --------
    >>> sample_bits([0, 2], 3, 1.0, 0.0, rng=0).astype(int).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """

    k = check_int("k", k, minimum=2)
    xs = as_values(xs, k)
    gen = as_rng(rng)
    n = xs.size
    check_size(n, k, "the bit matrix of sample_ue", "fewer users per call")
    bits = np.empty((n, k), dtype=bool)
    for s, e in row_chunks(n, k):
        m = e - s
        bernoulli_fill(bits[s:e], q, gen)
        bits[np.arange(s, e), xs[s:e]] = gen.random(m) < p
    return bits


def estimate_bits(bits: Any, p: float, q: float, project: bool = False) -> np.ndarray:
    """Unbiased frequencies from (n, k) report bits with Pr[bit v | x = v] = p, else q.

    Parameters
    ----------
    bits : numpy.ndarray of bool (or 0/1), shape (n, k)
    p, q : float
        The support probabilities p* and q*, p != q.
    project : bool
        Project the estimate onto the probability simplex.

    Returns
    -------
    numpy.ndarray of float64, shape (k,)
        The estimated frequency of each value v = 0..k-1.

    Raises
    ------
    ParameterError
        p = q, bits not an (n, k) 0/1 matrix, no reports.

    Notes
    -----
    f_v = (C_v / n - q) / (p - q) with C_v the number of reports with bit v set
    (:func:`qifldp.simulation.calibrate`). O(n k).

    Examples
    --------
    >>> estimate_bits(np.array([[1, 0], [1, 1]], dtype=bool), 0.75, 0.25).tolist()
    [1.5, 0.5]
    """

    arr = check_bits(bits)
    return calibrate(support_counts(arr), n_reports(arr), p, q, project=project)


def attack_bits(bits: Any, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on bit vectors (UE, SUE, OUE, THE): a uniform guess
    among the set bits, or among all k values when no bit is set.

    Parameters
    ----------
    bits : numpy.ndarray of bool (or 0/1), shape (n, k)
    rng : numpy.random.Generator or int, optional
        Picks among the set bits (uniformly).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The index of a set bit of each row, or of any bit in a row of zeros.

    Raises
    ------
    ParameterError
        bits not 2-D.
    InputTypeError
        bits neither boolean nor 0/1 integers.

    Notes
    -----
    Arcolezi et al. (VLDB 2023, Sec. 3.2.1). Bayes-optimal under a uniform prior
    when p > q: the likelihood of x is proportional to (p/q)^{b_x}
    ((1-p)/(1-q))^{1-b_x}. Needs neither k nor eps. O(n k).

    Examples
    --------
    >>> attack_bits(np.array([[0, 1, 0]], dtype=bool), rng=0).tolist()
    [1]
    """

    arr = as_array(bits, "bits")
    if arr.ndim != 2 or arr.shape[1] == 0:
        msg = f"bits must be an (n, k) boolean matrix with k >= 1, got shape {arr.shape}"
        raise ParameterError(msg)
    if arr.dtype != np.bool_:
        if np.issubdtype(arr.dtype, np.integer) and np.all((arr == 0) | (arr == 1)):
            arr = arr.astype(bool)
        else:
            msg = f"bits must be boolean (or 0/1), got dtype {arr.dtype}"
            raise InputTypeError(msg)
    return choose_uniform_true(arr, as_rng(rng))


def bit_width(bits: Any) -> int:
    """The domain size k of (n, k) bit reports, checked as :func:`estimate_bits` checks them.

    Examples
    --------
    >>> bit_width([[True, False, False]])
    3
    """

    return int(check_bits(bits).shape[1])


__all__ += ["sample_bits", "estimate_bits", "attack_bits", "bit_width"]
