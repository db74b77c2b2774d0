"""Generalized randomized response (GRR) as a protocol object."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, guard_size
from ..errors import ParameterError
from ..simulation import calibrate, support_counts
from ..simulation.samplers import n_reports
from ..simulation.util import MAX_SS_K, as_array, as_rng, as_values
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.channel import SymmetricChannel
from ..validation import check_eps, check_int
from .base import EpsAttained, PQSupport, no_options, size_alternative
from .docstrings import ORACLE_DOCS, fill_doc
from .params import check_k, grr_expressions, grr_probabilities, log_grr
from .sympy_args import exact_eps, exact_int
from .vectorize import (
    as_eps,
    as_ints,
    asr_from,
    check_printed,
    closed_form_doc,
    is_scalar,
    output,
)

if TYPE_CHECKING:
    import sympy as sp


__all__ = [
    "GRR",
    "GRRClosedForm",
    "bayes_capacity_grr",
    "asr_grr",
    "acc_grr",
    "symbolic_bayes_capacity_grr",
    "symbolic_grr",
]


# -- closed forms (numeric, vectorised; their sympy twins) ---------------------------
@closed_form_doc(
    returns="In [1, k].",
    raises="Non-integer ``k`` or ``k < 2``; ``eps`` negative, NaN or infinite.",
)
def bayes_capacity_grr(k: Any, eps: Any) -> Any:
    """Bayes capacity of GRR: ML = k e^eps / (e^eps + k - 1).

    {sections}

    Notes
    -----
    Each column's maximum is p = e^eps / (e^eps + k - 1) (the QIF paper's Sec. V-A,
    whose displayed formula is not legible in the paper's available text). Evaluated as
    k / (1 + (k - 1) e^-eps). O(1).

    Examples
    --------
    >>> import math
    >>> round(bayes_capacity_grr(3, math.log(2)), 12)
    1.5
    >>> bayes_capacity_grr(10**6, 50.0)  # ~ k
    1000000.0
    """
    scalar = is_scalar(k=k, eps=eps)
    k, eps = as_ints("k", k, 2), as_eps(eps)
    kf = k.astype(np.float64)
    return output(kf / (1.0 + (kf - 1.0) * np.exp(-eps)), scalar)


asr_grr = asr_from(bayes_capacity_grr, ">>> round(asr_grr(3, math.log(2)), 12)\n0.5")


@closed_form_doc(
    returns=(
        "A probability (the multidimensional-risks paper, Arcolezi et al. 2023,\n"
        "Sec. 3.2.1, reports 100 times this, in percent)."
    ),
    printed=(
        "printed : bool\n"
        "    Evaluate the paper's printed expression; for GRR it is exact, so both\n"
        "    choices give the same value."
    ),
)
def acc_grr(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the plausible-deniability attacker on GRR (guess = report).

    ACC_GRR = e^eps / (e^eps + k - 1).

    {sections}

    Notes
    -----
    The attacker is the Bayes-optimal one, so ACC_GRR = :func:`asr_grr`.

    Examples
    --------
    >>> import math
    >>> round(acc_grr(3, math.log(2)), 12)
    0.5
    """
    check_printed(printed)
    return asr_grr(k, eps)


def symbolic_bayes_capacity_grr(k: Any, eps: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_grr`: ML(GRR) = k e^eps / (e^eps + k - 1).

    Notes
    -----
    Every column y has its maximum p = e^eps / (e^eps + k - 1) on the diagonal,
    so ML = k p (the QIF paper's Sec. V-A; its display is not legible in
    the paper's available text). ``k`` may be a sympy symbol, ``eps`` a symbol or its name.

    Examples
    --------
    >>> symbolic_bayes_capacity_grr(3, "eps")
    3*exp(eps)/(exp(eps) + 2)
    """
    import sympy as sp

    k, E = exact_int(k), sp.exp(exact_eps(eps))
    return k * E / (E + k - 1)


@fill_doc(ORACLE_DOCS)
def symbolic_grr(k: int, eps: Any) -> SymbolicChannel:
    """Generalized randomized response as a symbolic channel (``qifldp.symbolic.grr``).

    Parameters
    ----------
    {k}
    {symbolic_eps}

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

    k = check_k(k)
    guard_symbolic_size("grr", (k, "eps"), k, math.log10(k), lambda: k)
    P = SymbolicParameters()
    p, q = grr_expressions(k, P.take("eps", eps, "eps"))
    rows = [[p if i == j else q for j in range(k)] for i in range(k)]
    return P.channel(rows, tuple(range(k)), tuple(range(k)))


class GRRClosedForm(EpsAttained):
    """Closed forms of GRR (QIF paper Sec. V-A; Kairouz et al. 2016).

    Notes
    -----
    The LDP epsilon is eps: the diagonal over an off-diagonal entry is p / q = e^eps
    (Kairouz et al. 2016).

    Examples
    --------
    >>> round(GRR(3, 0.0).closed_form.bayes_capacity(), 12)
    1.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = k p = k e^eps / (e^eps + k - 1) (QIF paper Sec. V-A), :func:`bayes_capacity_grr`.

        Examples
        --------
        >>> import math
        >>> round(GRR(3, math.log(2)).closed_form.bayes_capacity(), 12)
        1.5
        """
        return float(bayes_capacity_grr(self._protocol.k, self._protocol.eps))

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin (:func:`symbolic_bayes_capacity_grr`); ``eps`` may be a symbol.

        Examples
        --------
        >>> GRR(3, 0.5).closed_form.symbolic_bayes_capacity()
        3*exp(1/2)/(exp(1/2) + 2)
        """
        return self._protocol._symbolic_at(symbolic_bayes_capacity_grr, symbols, ("eps",))

    def acc(self, printed: bool = False) -> float:
        """The plausible-deniability attacker's expected accuracy, :func:`acc_grr`.

        Arcolezi et al. 2023 (multidimensional risks), Sec. 3.2.1: e^eps / (e^eps + k - 1),
        exact as printed (``printed`` gives the same value).

        Examples
        --------
        >>> import math
        >>> round(GRR(3, math.log(2)).closed_form.acc(), 12)
        0.5
        """
        return float(acc_grr(self._protocol.k, self._protocol.eps, printed))


@fill_doc(ORACLE_DOCS)
class GRR(PQSupport):
    """Generalized randomized response: report the truth w.p. p, each other value w.p. q.

    Parameters
    ----------
    {k}
    {eps}

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

        lp, l1mp = self._log
        name = f"grr(k={self.k}, eps={self.eps:g})"
        return SymmetricChannel._make(
            self.k, [1], [lp], [l1mp], name, ("grr",), log_ratio=self.eps, exact_log_ratio=self.eps
        )

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """GRR as a symbolic channel (:func:`symbolic_grr`); ``eps`` may be a symbol.

        Examples
        --------
        >>> GRR(2, 1.0).symbolic(eps="e").matrix[0, 1]
        1/(exp(e) + 1)
        """
        return self._symbolic_at(symbolic_grr, symbols, ("eps",))

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Randomise n users' values: keep x w.p. p, else report one of the k - 1 others.

        Parameters as :meth:`Protocol.sample` (no options); returns int64 reports of
        shape (n,) in 0..k-1, the output labels of ``qifldp.grr(k, eps)``. Raises
        ParameterError / InputTypeError for bad ``xs`` or ``rng``, an option, or k above
        :data:`qifldp.simulation.util.MAX_SS_K` (values are int64).

        Notes
        -----
        Keep x with probability p = e^eps/(e^eps + k - 1); otherwise report one of
        the k - 1 other values uniformly (r uniform in 0..k-2, report r + [r >= x]),
        so each other value has probability q = 1/(e^eps + k - 1). O(n).

        Examples
        --------
        >>> GRR(4, 50.0).sample([3, 2], rng=0).tolist()
        [3, 2]
        """

        no_options("sample", options)
        k = check_int("k", self.k, minimum=2, maximum=MAX_SS_K)
        xs = as_values(xs, k)
        rng = as_rng(rng)
        n = xs.size
        keep = rng.random(n) < self.params["p"]
        r = rng.integers(0, k - 1, size=n)
        other = r + (r >= xs)
        return np.where(keep, xs, other)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from GRR reports: f_v = (C_v / n - q) / (p - q).

        ``reports``: the (n,) values of :meth:`sample`; returns the float64 estimate of
        shape (k,). Raises ParameterError for eps = 0 (p = q: no information), no
        reports, or reports outside 0..k-1.

        Notes
        -----
        C_v is the number of reports equal to v (:func:`qifldp.simulation.support_counts`),
        calibrated by :func:`qifldp.simulation.calibrate` (Wang et al. 2017). O(n + k).

        Examples
        --------
        >>> GRR(2, 50.0).estimate([0, 0, 1, 0]).tolist()
        [0.75, 0.25]
        """

        p, q = self.support_probabilities()
        counts = support_counts(reports, self.k)
        return calibrate(counts, n_reports(reports), p, q, project=project)

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """Guess the reported value (:func:`attack_values`).

        ``reports``: the (n,) values of :meth:`sample`; ``rng`` is unused (the guess is
        deterministic). Returns one int64 guess per report; errors as :func:`attack_values`.

        Examples
        --------
        >>> GRR(3, 1.0).attack([2, 0]).tolist()
        [2, 0]
        """
        return attack_values(reports)


# ----------------------------------------------------------------------------------------
# simulation helpers (the flat names of qifldp.simulation that need no protocol)
# ----------------------------------------------------------------------------------------
def attack_values(reports: Any) -> np.ndarray:
    """Plausible-deniability attack on GRR: guess the reported value.

    Parameters
    ----------
    reports : array_like of int, shape (n,)
        GRR reports (any integers: the range is not checked).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The reports themselves, as int64.

    Raises
    ------
    ParameterError
        Reports not a 1-D integer array.

    Notes
    -----
    Expected accuracy e^eps/(e^eps + k - 1) (Arcolezi et al., VLDB 2023, Sec. 3.2.1).
    Bayes-optimal under a uniform prior when eps > 0. Needs neither k nor eps. O(n).

    Examples
    --------
    >>> attack_values([2, 0]).tolist()
    [2, 0]
    """

    arr = as_array(reports, "reports")
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        msg = f"GRR reports must be a 1-D integer array, got shape {arr.shape} of {arr.dtype}"
        raise ParameterError(msg)
    return arr.astype(np.int64)


__all__ += ["attack_values"]
