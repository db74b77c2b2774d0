"""omega-Subset Selection (SS) as a protocol object."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from .base import ClosedForm, Protocol, no_options, size_alternative
from .params import (
    check_k,
    check_omega,
    check_ss,
    log_ss,
    ss_default_omega,
    ss_expressions,
    ss_inclusion_probabilities,
    ss_probabilities,
)

if TYPE_CHECKING:
    from ..symbolic import SymbolicChannel
    from ..symmetric import SymmetricChannel

__all__ = ["SS", "SSClosedForm", "symbolic_subset_selection"]


def _log10_comb(n: int, r: int) -> float:
    """log10 C(n, r), for the size guard.

    Beyond n = 10^15 (lgamma loses the difference and overflows near 1e305) the
    lower bound r log10(n / r) <= log10 C(n, r), r = min(r, n - r), is returned:
    it is only compared with the size limit, which every such channel exceeds
    anyway through its n rows.
    """
    r = min(r, n - r)
    if n > 10**15:
        return r * math.log10(n / max(r, 1)) if r else 0.0
    return (math.lgamma(n + 1) - math.lgamma(r + 1) - math.lgamma(n - r + 1)) / math.log(10)


def symbolic_subset_selection(k: int, eps: Any, omega: int | None = None) -> SymbolicChannel:
    """omega-Subset Selection as a symbolic channel (``qifldp.symbolic.subset_selection``).

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : sympy expression, number or symbol name
        Privacy parameter (domain [0, oo)).
    omega : int, optional
        Subset size in [1, k]. Default ``max(1, round(k / (e^eps + 1)))``, which
        needs a numeric eps.

    Returns
    -------
    SymbolicChannel, shape (k, C(k, omega))
        Outputs the omega-subsets as sorted tuples in ``itertools.combinations``
        order; C[x, S] = p / C(k-1, omega-1) if x in S else (1 - p) / C(k-1, omega),
        p = omega e^eps / (omega e^eps + k - omega)
        (:func:`qifldp.protocols.params.ss_expressions`).

    Raises
    ------
    ParameterError
        Bad k, omega or eps; omega omitted with a symbolic eps.
    SizeError
        Too many entries.

    Notes
    -----
    QIF paper Sec. V-B, Eq. (21). Cost O(k C(k, omega)).

    Examples
    --------
    >>> C = symbolic_subset_selection(3, "eps", 2)
    >>> C.outputs
    ((0, 1), (0, 2), (1, 2))
    >>> C[2, 2]
    exp(eps)/(2*exp(eps) + 1)
    """
    from ..symbolic.channel import EPS_DOMAIN, SymbolicParameters, guard_symbolic_size

    k = check_k(k)
    P = SymbolicParameters()
    e = P.take("eps", eps, EPS_DOMAIN)
    if omega is None:
        omega = ss_default_omega(k, P.number(e, "the default omega"))
    omega = check_omega(omega, k)
    guard_symbolic_size(
        "subset_selection",
        (k, "eps", omega),
        k,
        _log10_comb(k, omega),
        lambda: math.comb(k, omega),
    )
    p, one_minus_p = ss_expressions(k, e, omega)
    inside = p / math.comb(k - 1, omega - 1)
    # omega = k: 1 - p is sympy's 0 and C(k-1, k) = 0, so the (absent) outside entry is 0
    outside = one_minus_p / math.comb(k - 1, omega) if omega < k else one_minus_p
    outs = tuple(itertools.combinations(range(k), omega))
    rows = [[inside if x in S else outside for S in outs] for x in range(k)]
    return P.channel(rows, tuple(range(k)), outs)


class SSClosedForm(ClosedForm):
    """Closed forms of omega-SS (QIF paper Sec. V-B; Ye and Barg 2018; Wang et al. 2016).

    Examples
    --------
    >>> import qifldp as q
    >>> q.protocol("ss", 4, 1.0, omega=4).closed_form.ldp_epsilon()
    0.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = k e^eps / (omega e^eps + k - omega) (:func:`qifldp.formulas.bayes_capacity_ss`).

        Notes
        -----
        The QIF paper prints k p / C(k-1, omega-1); the value here is the true
        one, checked against enumeration (see the formula's docstring).

        Examples
        --------
        >>> import math, qifldp as q
        >>> round(q.protocol("ss", 3, math.log(2), omega=2).closed_form.bayes_capacity(), 12)
        1.2
        """
        from .. import formulas

        P = self._protocol
        return float(formulas.bayes_capacity_ss(P.k, P.eps, P.params["omega"]))

    def ldp_epsilon(self) -> float:
        """eps for omega < k (every column's in/out ratio is e^eps); 0 for omega = k.

        Ye and Barg 2018; omega = k is the constant channel (one output).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("ss", 5, 2.0).closed_form.ldp_epsilon()
        2.0
        """
        P = self._protocol
        return P.eps if P.params["omega"] < P.k else 0.0


class SS(Protocol):
    """omega-Subset Selection: report an omega-subset that contains the truth w.p. p.

    Parameters
    ----------
    k, eps : int, float
        Domain size (``k >= 2``) and privacy parameter (finite, ``>= 0``).
    omega : int, optional
        Subset size in 1..k; default ``max(1, round(k / (e^eps + 1)))``.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.subset_selection`.

    Notes
    -----
    p = omega e^eps / (omega e^eps + k - omega) and
    q = (p (omega - 1) + (1 - p) omega) / (k - 1), the probability that another
    value is in the subset (Ye and Barg 2018; Wang et al. 2016).

    Examples
    --------
    >>> P = SS(10, 1.0)
    >>> P.params["omega"]  # round(10 / (e + 1))
    3
    """

    __slots__ = ()
    _closed_form_type = SSClosedForm

    def __init__(self, k: int, eps: float, omega: int | None = None) -> None:
        k, eps, omega = check_ss(k, eps, omega)
        p, q = ss_probabilities(k, eps, omega)
        params = {"p": p, "q": q, "omega": omega}
        self._freeze("ss", k, eps, params, {"eps": eps, "omega": omega}, log_ss(k, eps, omega))

    def channel(self) -> Channel:
        """The k x C(k, omega) channel over omega-subsets (sorted tuples, combinations order).

        Raises
        ------
        SizeError
            k C(k, omega) above :data:`qifldp.channel.MAX_ENTRIES`.

        Examples
        --------
        >>> import math
        >>> C = SS(3, math.log(2), omega=2).channel()
        >>> C.outputs, C.matrix[0].round(6).tolist()
        (((0, 1), (0, 2), (1, 2)), [0.4, 0.4, 0.2])
        """
        k, eps, omega = self.k, self.eps, self._params["omega"]
        guard_size(
            f"subset_selection({k}, {eps}, omega={omega})",
            k,
            _log10_comb(k, omega),
            lambda: math.comb(k, omega),
            size_alternative("subset_selection", "k, eps, omega", "bayes_capacity_ss"),
        )
        p, one_minus_p = ss_inclusion_probabilities(k, eps, omega)
        inside = p / math.comb(k - 1, omega - 1)
        outside = one_minus_p / math.comb(k - 1, omega) if omega < k else 0.0
        subsets = tuple(itertools.combinations(range(k), omega))
        members = np.array(subsets, dtype=np.intp).reshape(len(subsets), omega)
        M = np.full((k, len(subsets)), outside)
        M[members.T, np.arange(len(subsets))] = inside
        return Channel(M, outputs=subsets)

    def symmetric(self) -> SymmetricChannel:
        """SS as a symmetric channel over the omega-subsets (``qifldp.symmetric.subset_selection``).

        Returns
        -------
        SymmetricChannel
            One size class s = omega: P_in = p = omega e^eps / (omega e^eps + k - omega),
            P_out = 1 - p (:func:`qifldp.protocols.params.log_ss`, computed at construction).

        Notes
        -----
        QIF paper Sec. V-B. ``expand()`` equals :meth:`channel` (outputs sorted
        tuples in ``itertools.combinations`` order).

        Examples
        --------
        >>> import qifldp as q
        >>> C = SS(10**6, 2.0).symmetric()
        >>> int(C.sizes[0]), round(q.ldp_epsilon(C), 9)  # omega = round(10^6 / (e^2 + 1))
        (119203, 2.0)
        """
        from ..symmetric.channel import SymmetricChannel

        k, eps, omega = self.k, self.eps, self._params["omega"]
        lp, l1mp = self._log
        name = f"subset_selection(k={k}, eps={eps:g}, omega={omega})"
        return SymmetricChannel._make(k, [omega], [lp], [l1mp], name, ("subsets",), log_ratio=eps)

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """SS as a symbolic channel (:func:`symbolic_subset_selection`); ``eps`` may be a symbol.

        Examples
        --------
        >>> SS(3, 1.0, omega=2).symbolic(eps="e").shape
        (3, 3)
        """
        values = self._symbols(symbols, ("eps",))
        return symbolic_subset_selection(self.k, values["eps"], self._params["omega"])

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Subsets for n users (``qifldp.simulation.sample_ss``; option ``output``).

        Examples
        --------
        >>> SS(4, 1.0, omega=2).sample([0, 3], rng=0).shape
        (2, 2)
        """
        from ..simulation import sample_ss

        return sample_ss(xs, self.k, self.eps, self._params["omega"], rng, **options)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies (``qifldp.simulation.estimate_ss``; omega checked on the reports).

        Examples
        --------
        >>> import numpy as np
        >>> P = SS(4, 2.0, omega=2)
        >>> xs = np.repeat([0, 1, 2, 3], [4000, 3000, 2000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.4, 0.3, 0.2, 0.1]
        """
        from ..simulation import estimate_ss

        return estimate_ss(reports, self.k, self.eps, self._params["omega"], project=project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) = (p, q): Pr[v in the subset | x = v] and Pr[v in the subset | x != v].

        Examples
        --------
        >>> [round(t, 6) for t in SS(4, 0.0, omega=2).support_probabilities()]
        [0.5, 0.5]
        """
        no_options("support_probabilities", options)
        return self._params["p"], self._params["q"]

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess within each reported subset (``qifldp.simulation.attack_ss``).

        Examples
        --------
        >>> SS(4, 1.0, omega=1).attack([[2], [0]], rng=0).tolist()
        [2, 0]
        """
        from ..simulation import attack_ss

        return attack_ss(reports, rng)
