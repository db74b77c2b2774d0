"""Unary encoding (UE, SUE, OUE) as a protocol object: one-hot bits through a bit channel."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..errors import InputTypeError
from ..operators import one_hot
from ..validation import check_choice, check_eps
from .base import ClosedForm, Protocol, check_bit_width, no_options, size_alternative, ue_log_ratio
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
    sue_expressions,
    sue_probabilities,
)

if TYPE_CHECKING:
    from ..symbolic import SymbolicChannel
    from ..symbolic.channel import SymbolicParameters
    from ..symmetric import SymmetricChannel

__all__ = [
    "UE",
    "UEClosedForm",
    "sue_bit",
    "oue_bit",
    "symbolic_unary_encoding",
    "symbolic_sue",
    "symbolic_oue",
    "symbolic_sue_bit",
    "symbolic_oue_bit",
    "symbolic_one_hot",
]

#: A symbolic bit channel's (p, 1-p, q, 1-q), with its parameters taken into a SymbolicParameters.
_Bits = Callable[["SymbolicParameters"], tuple]


def symbolic_one_hot(name: str, args: tuple, k: int, bits: _Bits) -> SymbolicChannel:
    """``one_hot`` of a symbolic bit channel, size-guarded before anything is built.

    Parameters
    ----------
    name, args : str, tuple
        The constructor and its arguments after k, for the size error.
    k : int
        Domain size, ``k >= 2``.
    bits : callable
        Takes the parameters into a :class:`qifldp.symbolic.channel.SymbolicParameters`
        and returns the bit channel's (p, 1-p, q, 1-q).

    Examples
    --------
    >>> from qifldp.protocols.params import oue_expressions
    >>> symbolic_one_hot("oue", (1,), 2, lambda P: oue_expressions(1)).shape
    (2, 4)
    """
    from ..symbolic.channel import SymbolicParameters, guard_symbolic_size
    from ..symbolic.operators import one_hot as symbolic_one_hot_operator

    k = check_k(k)
    guard_symbolic_size(name, (k, *args), k, k * math.log10(2), lambda: 2**k)
    P = SymbolicParameters()
    return symbolic_one_hot_operator(P.bit_channel(*bits(P)), k)


def _sue_bits(eps: Any) -> _Bits:
    from ..symbolic.channel import EPS_DOMAIN

    return lambda P: sue_expressions(P.take("eps", eps, EPS_DOMAIN))


def _oue_bits(eps: Any) -> _Bits:
    from ..symbolic.channel import EPS_DOMAIN

    return lambda P: oue_expressions(P.take("eps", eps, EPS_DOMAIN))


def _ue_bits(p: Any, q: Any) -> _Bits:
    def bits(P: SymbolicParameters) -> tuple:
        from ..symbolic.channel import PROBABILITY_DOMAIN

        pe = P.take("p", p, PROBABILITY_DOMAIN)
        qe = P.take("q", q, PROBABILITY_DOMAIN)
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
    from ..symbolic.channel import SymbolicParameters

    P = SymbolicParameters()
    return P.bit_channel(*_sue_bits(eps)(P))


def symbolic_oue_bit(eps: Any) -> SymbolicChannel:
    """OUE's 2x2 bit channel [[e^eps/(e^eps+1), 1/(e^eps+1)], [1/2, 1/2]] (QIF paper, O_eps).

    Examples
    --------
    >>> symbolic_oue_bit("eps")[1, 1]
    1/2
    """
    from ..symbolic.channel import SymbolicParameters

    P = SymbolicParameters()
    return P.bit_channel(*_oue_bits(eps)(P))


def symbolic_unary_encoding(k: int, p: Any, q: Any) -> SymbolicChannel:
    """Unary encoding with bit probabilities p (keep a 1) and q (flip a 0 to 1), symbolically.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
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


class UEClosedForm(ClosedForm):
    """Closed forms of unary encoding (QIF paper Sec. V-D; Wang et al., USENIX Security 2017).

    Examples
    --------
    >>> import qifldp as q
    >>> q.protocol("oue", 4, 1.0).closed_form.ldp_epsilon()
    1.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of UE with bits p, q (QIF paper Sec. VI; :func:`qifldp.formulas.bayes_capacity_ue`).

        SUE and OUE use ``bayes_capacity_sue`` / ``bayes_capacity_oue`` (log space
        from eps directly).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("ue", 2, p=0.75, q=0.25).closed_form.bayes_capacity(), 12)
        1.5
        """
        from .. import formulas

        P = self._protocol
        if P.name == "sue":
            return float(formulas.bayes_capacity_sue(P.k, P.eps))
        if P.name == "oue":
            return float(formulas.bayes_capacity_oue(P.k, P.eps))
        return float(formulas.bayes_capacity_ue(P.k, P.params["p"], P.params["q"]))

    def ldp_epsilon(self) -> float:
        """ln(p (1 - q) / ((1 - p) q)) (Wang et al. 2017, Sec. 4.3); eps for SUE and OUE.

        Inf when p = 1 or q = 0 (a column with a zero entry).

        Examples
        --------
        >>> import math, qifldp as q
        >>> round(q.protocol("ue", 3, p=0.75, q=0.25).closed_form.ldp_epsilon(), 12)
        2.197224577336
        """
        P = self._protocol
        if P.name in ("sue", "oue"):
            return P.eps
        return ue_log_ratio(P.params["p"], P.params["q"])


class UE(Protocol):
    """Unary encoding: one-hot encode x, report each bit 1 w.p. p (bit 1) or q (bit 0).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
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
        from ..symmetric.channel import SymmetricChannel
        from ..symmetric.operators import one_hot_classes

        k = self.k
        if self.name == "ue":
            name = f"unary_encoding(k={k}, p={self._params['p']:g}, q={self._params['q']:g})"
        else:
            name = f"{self.name}(k={k}, eps={self.eps:g})"
        s, log_in, log_out, ratio = one_hot_classes(k, *self._log)
        return SymmetricChannel._make(k, s, log_in, log_out, name, ("bits",), log_ratio=ratio)

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """UE as a symbolic channel; symbols for ``eps`` (SUE, OUE) or ``p``, ``q`` (UE).

        Examples
        --------
        >>> UE(2, 1.0, variant="oue").symbolic(eps="e").matrix[0, 0]
        exp(e)/(2*(exp(e) + 1))
        """
        if self.name == "ue":
            values = self._symbols(symbols, ("p", "q"))
            return symbolic_unary_encoding(self.k, values["p"], values["q"])
        values = self._symbols(symbols, ("eps",))
        build = symbolic_sue if self.name == "sue" else symbolic_oue
        return build(self.k, values["eps"])

    def sample(self, xs: Any, rng: Any = None) -> np.ndarray:
        """Bit vectors, shape (n, k) (``qifldp.simulation.sample_ue`` / ``_sue`` / ``_oue``).

        Examples
        --------
        >>> UE(3, 60.0, variant="sue").sample([1], rng=0).astype(int).tolist()
        [[0, 1, 0]]
        """
        from .. import simulation

        if self.name == "ue":
            return simulation.sample_ue(xs, self.k, self._params["p"], self._params["q"], rng)
        build = simulation.sample_sue if self.name == "sue" else simulation.sample_oue
        return build(xs, self.k, self.eps, rng)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from (n, k) bit vectors (``qifldp.simulation.estimate_ue`` ...).

        Examples
        --------
        >>> import numpy as np
        >>> P = UE(2, 2.0, variant="oue")
        >>> P.estimate(P.sample(np.repeat([0, 1], [7000, 3000]), rng=0)).round(1).tolist()
        [0.7, 0.3]
        """
        from .. import simulation

        check_bit_width(reports, self.k)
        if self.name == "ue":
            p, q = self._params["p"], self._params["q"]
            return simulation.estimate_ue(reports, p, q, project=project)
        build = simulation.estimate_sue if self.name == "sue" else simulation.estimate_oue
        return build(reports, self.eps, project=project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) = (p, q): a report supports the values of its 1-bits.

        Examples
        --------
        >>> UE(3, p=0.75, q=0.25).support_probabilities()
        (0.75, 0.25)
        """
        no_options("support_probabilities", options)
        return self._params["p"], self._params["q"]

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the set bits (all k when none) (``attack_ue``).

        Examples
        --------
        >>> import numpy as np
        >>> UE(3, 1.0, variant="oue").attack(np.array([[0, 1, 0]], dtype=bool), rng=0).tolist()
        [1]
        """
        from ..simulation import attack_ue

        check_bit_width(reports, self.k)
        return attack_ue(reports, rng)
