"""Generalized randomized response (GRR) as a protocol object."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..validation import check_eps
from .base import ClosedForm, Protocol, no_options, size_alternative
from .params import check_k, grr_expressions, grr_probabilities, log_grr

if TYPE_CHECKING:
    from ..symbolic import SymbolicChannel
    from ..symmetric import SymmetricChannel

__all__ = ["GRR", "GRRClosedForm", "symbolic_grr"]


def symbolic_grr(k: int, eps: Any) -> SymbolicChannel:
    """Generalized randomized response as a symbolic channel (``qifldp.symbolic.grr``).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``; inputs and outputs 0..k-1.
    eps : sympy expression, number or symbol name
        Privacy parameter (domain [0, oo)).

    Returns
    -------
    SymbolicChannel, shape (k, k)
        C[x, y] = e^eps / (e^eps + k - 1) if y = x, else 1 / (e^eps + k - 1)
        (:func:`qifldp.protocols.params.grr_expressions`).

    Raises
    ------
    ParameterError
        ``k < 2``; a numeric eps < 0 (or a symbolic one that is provably negative).
    SizeError
        More than :data:`qifldp.symbolic.MAX_SYMBOLIC_ENTRIES` entries.

    Notes
    -----
    QIF paper Eq. (19)-(20). Cost O(k^2).

    Examples
    --------
    >>> symbolic_grr(2, "eps").matrix
    Matrix([
    [exp(eps)/(exp(eps) + 1),        1/(exp(eps) + 1)],
    [       1/(exp(eps) + 1), exp(eps)/(exp(eps) + 1)]])
    """
    from ..symbolic.channel import EPS_DOMAIN, SymbolicParameters, guard_symbolic_size

    k = check_k(k)
    guard_symbolic_size("grr", (k, "eps"), k, math.log10(k), lambda: k)
    P = SymbolicParameters()
    p, q = grr_expressions(k, P.take("eps", eps, EPS_DOMAIN))
    rows = [[p if i == j else q for j in range(k)] for i in range(k)]
    return P.channel(rows, tuple(range(k)), tuple(range(k)))


class GRRClosedForm(ClosedForm):
    """Closed forms of GRR (QIF paper Sec. V-A; Kairouz et al. 2016).

    Examples
    --------
    >>> import qifldp as q
    >>> round(q.protocol("grr", 3, 0.0).closed_form.bayes_capacity(), 12)
    1.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = k p = k e^eps / (e^eps + k - 1) (QIF paper Sec. V-A).

        Delegates to :func:`qifldp.formulas.bayes_capacity_grr` (log space, any k and eps).

        Examples
        --------
        >>> import math, qifldp as q
        >>> round(q.protocol("grr", 3, math.log(2)).closed_form.bayes_capacity(), 12)
        1.5
        """
        from .. import formulas

        P = self._protocol
        return float(formulas.bayes_capacity_grr(P.k, P.eps))

    def ldp_epsilon(self) -> float:
        """eps: the diagonal over an off-diagonal entry is p / q = e^eps (Kairouz et al. 2016).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("grr", 3, 0.5).closed_form.ldp_epsilon()
        0.5
        """
        return self._protocol.eps


class GRR(Protocol):
    """Generalized randomized response: report the truth w.p. p, each other value w.p. q.

    Parameters
    ----------
    k, eps : int, float
        Domain size (``k >= 2``) and privacy parameter (finite, ``>= 0``).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.grr`.

    Notes
    -----
    p = e^eps / (e^eps + k - 1), q = 1 / (e^eps + k - 1) (QIF paper Sec. V-A).

    Examples
    --------
    >>> import math
    >>> P = GRR(3, math.log(2))
    >>> {key: round(v, 12) for key, v in P.params.items()}
    {'p': 0.5, 'q': 0.25}
    """

    __slots__ = ()
    _closed_form_type = GRRClosedForm

    def __init__(self, k: int, eps: float) -> None:
        k = check_k(k)
        eps = check_eps(eps)
        p, q = grr_probabilities(k, eps)
        self._freeze("grr", k, eps, {"p": p, "q": q}, {"eps": eps}, log_grr(k, eps))

    def channel(self) -> Channel:
        """The k x k GRR channel: p on the diagonal, q elsewhere.

        Raises
        ------
        SizeError
            k^2 above :data:`qifldp.channel.MAX_ENTRIES` (use :meth:`symmetric`).

        Examples
        --------
        >>> import math
        >>> GRR(3, math.log(2)).channel().matrix.round(6)
        array([[0.5 , 0.25, 0.25],
               [0.25, 0.5 , 0.25],
               [0.25, 0.25, 0.5 ]])
        """
        k = self.k
        alt = size_alternative("grr", "k, eps", "bayes_capacity_grr")
        guard_size(f"grr({k}, {self.eps})", k, math.log10(k), lambda: k, alt)
        M = np.full((k, k), self._params["q"])
        np.fill_diagonal(M, self._params["p"])
        return Channel(M)

    def symmetric(self) -> SymmetricChannel:
        """GRR as a symmetric channel (outputs: the singletons {y}); ``qifldp.symmetric.grr``.

        Returns
        -------
        SymmetricChannel
            One size class s = 1: P_in = p = e^eps / (e^eps + k - 1), P_out = (k-1) q,
            from :func:`qifldp.protocols.params.log_grr` (computed at construction).

        Notes
        -----
        QIF paper Sec. V-A. ``expand()`` equals :meth:`channel`. O(1) memory.

        Examples
        --------
        >>> import qifldp as q
        >>> C = GRR(10**6, 5.0).symmetric()
        >>> C.name, round(q.bayes_capacity(C), 6)  # k p = k e^5 / (e^5 + k - 1)
        ('grr(k=1000000, eps=5)', 148.391284)
        """
        from ..symmetric.channel import SymmetricChannel

        lp, l1mp = self._log
        name = f"grr(k={self.k}, eps={self.eps:g})"
        return SymmetricChannel._make(self.k, [1], [lp], [l1mp], name, ("grr",), log_ratio=self.eps)

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """GRR as a symbolic channel (:func:`symbolic_grr`); ``eps`` may be a symbol.

        Examples
        --------
        >>> GRR(2, 1.0).symbolic(eps="e").matrix[0, 1]
        1/(exp(e) + 1)
        """
        return symbolic_grr(self.k, **self._symbols(symbols, ("eps",)))

    def sample(self, xs: Any, rng: Any = None) -> np.ndarray:
        """Reports in 0..k-1 (``qifldp.simulation.sample_grr``).

        Examples
        --------
        >>> GRR(4, 50.0).sample([3, 2], rng=0).tolist()
        [3, 2]
        """
        from ..simulation import sample_grr

        return sample_grr(xs, self.k, self.eps, rng)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies (``qifldp.simulation.estimate_grr``).

        Examples
        --------
        >>> GRR(2, 50.0).estimate([0, 0, 1, 0]).tolist()
        [0.75, 0.25]
        """
        from ..simulation import estimate_grr

        return estimate_grr(reports, self.k, self.eps, project=project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) = (p, q): a report supports the value it names.

        Examples
        --------
        >>> GRR(3, 0.0).support_probabilities()
        (0.3333333333333333, 0.3333333333333333)
        """
        no_options("support_probabilities", options)
        return self._params["p"], self._params["q"]

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """Guess the reported value (``qifldp.simulation.attack_grr``); ``rng`` is unused.

        Examples
        --------
        >>> GRR(3, 1.0).attack([2, 0]).tolist()
        [2, 0]
        """
        from ..simulation import attack_grr

        return attack_grr(reports)
