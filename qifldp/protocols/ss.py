"""omega-Subset Selection (SS) as a protocol object."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit

from ..channel import Channel, guard_size
from ..errors import ParameterError
from .base import ClosedForm, Protocol, no_options, size_alternative
from .params import check_ss, ss_probabilities
from .vectorize import (
    as_eps,
    as_ints,
    asr_from,
    check_printed,
    closed_form_doc,
    ints_as_floats,
    is_scalar,
    output,
)

if TYPE_CHECKING:
    import sympy as sp

    from ..symbolic import SymbolicChannel
    from ..symmetric import SymmetricChannel

__all__ = [
    "SS",
    "SSClosedForm",
    "bayes_capacity_ss",
    "asr_ss",
    "acc_ss",
    "symbolic_bayes_capacity_ss",
    "symbolic_bayes_capacity_ss_printed",
]


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


# -- closed forms (numeric, vectorised; their sympy twins) ---------------------------
def _omega(k: np.ndarray, eps: np.ndarray, omega: Any) -> np.ndarray:
    """omega as floats: the given subset size(s) in 1..k, or the default of :class:`SS`."""
    if omega is None:
        # Same float expression as qifldp.protocols.params.ss_default_omega.
        return np.maximum(1, np.round(ints_as_floats(k) * expit(-eps)))
    om = as_ints("omega", omega, 1)
    if np.any(om > k):
        msg = f"omega must satisfy 1 <= omega <= k, got omega = {omega!r} for k = {k.tolist()!r}"
        raise ParameterError(msg)
    return om.astype(np.float64)


@closed_form_doc(
    raises="Bad ``k``, ``eps`` or ``omega``.",
    omega=(
        "omega : int or array_like of int, optional\n"
        "    Subset size(s), ``1 <= omega <= k``; default ``max(1, round(k / (e^eps + 1)))``\n"
        "    as in :func:`qifldp.subset_selection`."
    ),
)
def bayes_capacity_ss(k: Any, eps: Any, omega: Any = None) -> Any:
    """Bayes capacity of omega-SS: ML = k e^eps / (omega e^eps + k - omega).

    {sections}

    Notes
    -----
    Every column S has maximum p / C(k-1, omega-1) (an input inside S), and there
    are C(k, omega) columns, so ML = C(k, omega) p / C(k-1, omega-1) = k p / omega
    with p = omega e^eps / (omega e^eps + k - omega).

    **Misprint.** The QIF paper (Sec. V-B) prints ML = k p / C(k-1, omega-1), i.e.
    it counts k columns instead of C(k, omega). That equals the truth only when
    C(k-1, omega-1) = omega (omega = 1 or omega = k - 1, e.g. its k = 3, omega = 2
    example); for k = 5, omega = 2, eps = 1 it gives 0.8055 (below 1, impossible for
    a capacity) against the true 1.6110 (:func:`symbolic_bayes_capacity_ss_printed`).

    Examples
    --------
    >>> round(bayes_capacity_ss(5, 1.0, 2), 4)
    1.611
    >>> bayes_capacity_ss(4, 1.0, 4)  # omega = k: one output, no leakage
    1.0
    """
    scalar = is_scalar(k=k, eps=eps, omega=omega)
    k, eps = as_ints("k", k, 2), as_eps(eps)
    om = _omega(k, eps, omega)
    kf = k.astype(np.float64)
    return output(kf / (om + (kf - om) * np.exp(-eps)), scalar)


asr_ss = asr_from(
    bayes_capacity_ss,
    ">>> round(asr_ss(6, math.log(2), 2), 12)  # e^eps / (2 e^eps + 4) = 2 / 8\n0.25",
)


@closed_form_doc(
    raises="A bad argument; ``omega`` given together with ``printed=True``.",
    omega=(
        "omega : int or array_like of int, optional\n"
        "    Subset size; default as :func:`qifldp.subset_selection`. Not allowed with\n"
        "    ``printed=True``."
    ),
    printed=(
        "printed : bool\n"
        "    False (default): the true accuracy e^eps / (omega e^eps + k - omega).\n"
        "    True: the paper's printed (e^eps + 1) / (2 k)."
    ),
)
def acc_ss(k: Any, eps: Any, omega: Any = None, printed: bool = False) -> Any:
    """Expected accuracy of the uniform-guess-in-the-subset attacker on omega-SS.

    {sections}

    Notes
    -----
    Inputs inside the reported subset are the most likely ones, all equally, so
    the attacker is Bayes-optimal: ACC = :func:`asr_ss` = p / omega. The printed
    formula (the multidimensional-risks paper, Arcolezi et al. 2023) is this at
    the real-valued omega = k / (e^eps + 1), which the protocol cannot use unless
    it is an integer (then both agree, e.g. k = 6, eps = ln 2). With the integer
    omega >= 1 it is off, and it exceeds 1 once e^eps > 2k - 1: at k = 10,
    eps = 5 it prints 7.47 (747 %), the truth being 0.943. The printed value is
    returned as +inf where e^eps overflows (eps > ~709).

    Examples
    --------
    >>> round(acc_ss(10, 5.0), 3), round(acc_ss(10, 5.0, printed=True), 2)
    (0.943, 7.47)
    """
    if not check_printed(printed):
        return asr_ss(k, eps, omega)
    if omega is not None:
        msg = "omega must be None with printed=True (the paper fixes omega = k / (e^eps + 1))"
        raise ParameterError(msg)
    scalar = is_scalar(k=k, eps=eps)
    k, eps = as_ints("k", k, 2), as_eps(eps)
    kf = ints_as_floats(k)
    # (e^eps + 1) / (2k) = 1 / (2 k expit(-eps)); +inf once e^eps overflows (eps > ~709).
    with np.errstate(divide="ignore", over="ignore"):
        return output(1.0 / (2.0 * kf * expit(-eps)), scalar)


def _symbolic_ss_args(k: Any, eps: Any, omega: Any) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """k, e^eps and omega of the symbolic closed forms, omega <= k checked when concrete."""
    import sympy as sp

    from .sympy_args import exact_eps, exact_int

    k, E = exact_int(k), sp.exp(exact_eps(eps))
    w = exact_int(omega, "omega", minimum=1)
    if k.is_number and w.is_number and w > k:
        msg = f"omega must be <= k = {k}, got {w}"
        raise ParameterError(msg)
    return k, E, w


def symbolic_bayes_capacity_ss(k: Any, eps: Any, omega: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_ss`: k e^eps / (omega e^eps + k - omega).

    Notes
    -----
    Each of the C(k, omega) columns has its maximum p / C(k-1, omega-1) at the
    members of the subset, so ML = C(k, omega) p / C(k-1, omega-1) = k p / omega
    with p = omega e^eps / (omega e^eps + k - omega).

    Examples
    --------
    >>> symbolic_bayes_capacity_ss(4, "eps", 2)
    4*exp(eps)/(2*exp(eps) + 2)
    """
    k, E, w = _symbolic_ss_args(k, eps, omega)
    return k * E / (w * E + k - w)


def symbolic_bayes_capacity_ss_printed(k: Any, eps: Any, omega: Any) -> sp.Expr:
    """The QIF paper's printed ML(SS) = k p / C(k-1, omega-1) -- wrong for most omega >= 2.

    Notes
    -----
    The print (Sec. V-B) counts k columns instead of C(k, omega): it equals the
    true value k p / omega only when C(k-1, omega-1) = omega, i.e. omega = 1 or
    (k, omega) = (3, 2), the paper's example. See :func:`bayes_capacity_ss`.

    Examples
    --------
    >>> symbolic_bayes_capacity_ss_printed(4, "eps", 2)
    8*exp(eps)/(3*(2*exp(eps) + 2))
    """
    import sympy as sp

    from .sympy_args import check_bits

    k, E, w = _symbolic_ss_args(k, eps, omega)
    p = w * E / (w * E + k - w)
    if k.is_Integer and w.is_Integer:
        n, r = int(k) - 1, int(w) - 1
        r = min(r, n - r)
        # log2 C(n, r) >= r log2(n / r); exact below 2^64
        log2_comb = r * math.log2(n / r) if r > 0 else 0.0
        if log2_comb <= 64:
            log2_comb = math.log2(math.comb(n, r)) if r > 0 else 0.0
        check_bits(f"bayes_capacity_ss_printed({k}, eps, {w})", log2_comb)
    return k * p / sp.binomial(k - 1, w - 1)


class SSClosedForm(ClosedForm):
    """Closed forms of omega-SS (QIF paper Sec. V-B; Ye and Barg 2018; Wang et al. 2016).

    Examples
    --------
    >>> SS(4, 1.0, omega=4).closed_form.ldp_epsilon()
    0.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML = k e^eps / (omega e^eps + k - omega) (:func:`bayes_capacity_ss`).

        Notes
        -----
        The QIF paper prints k p / C(k-1, omega-1); the value here is the true
        one, checked against enumeration (see the formula's docstring).

        Examples
        --------
        >>> import math
        >>> round(SS(3, math.log(2), omega=2).closed_form.bayes_capacity(), 12)
        1.2
        """
        P = self._protocol
        return float(bayes_capacity_ss(P.k, P.eps, P.params["omega"]))

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin (:func:`symbolic_bayes_capacity_ss`); ``eps`` may be a symbol.

        Examples
        --------
        >>> SS(4, 1.0, omega=2).closed_form.symbolic_bayes_capacity(eps="e")
        4*exp(e)/(2*exp(e) + 2)
        """
        P = self._protocol
        eps = P._symbols(symbols, ("eps",))["eps"]
        return symbolic_bayes_capacity_ss(P.k, eps, P.params["omega"])

    def acc(self, printed: bool = False) -> float:
        """The uniform-guess-in-the-subset attacker's expected accuracy, :func:`acc_ss`.

        Arcolezi et al. 2023 (multidimensional risks): the truth is ASR = p / omega;
        ``printed=True`` gives the paper's (e^eps + 1) / (2 k), which fixes the
        real-valued omega = k / (e^eps + 1) whatever the protocol's omega.

        Examples
        --------
        >>> cf = SS(10, 5.0).closed_form
        >>> round(cf.acc(), 3), round(cf.acc(printed=True), 2)
        (0.943, 7.47)
        """
        P = self._protocol
        if check_printed(printed):
            return float(acc_ss(P.k, P.eps, printed=True))
        return float(acc_ss(P.k, P.eps, P.params["omega"]))

    def ldp_epsilon(self) -> float:
        """eps for omega < k (every column's in/out ratio is e^eps); 0 for omega = k.

        Ye and Barg 2018; omega = k is the constant channel (one output).

        Examples
        --------
        >>> SS(5, 2.0).closed_form.ldp_epsilon()
        2.0
        """
        P = self._protocol
        return P.eps if P.params["omega"] < P.k else 0.0


class SS(Protocol):
    """omega-Subset Selection: report an omega-subset that contains the truth w.p. p.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0``.
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
        self._freeze("ss", k, eps, {"p": p, "q": q, "omega": omega}, {"eps": eps, "omega": omega})

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
        t = math.exp(-eps)
        d = omega + (k - omega) * t
        p, one_minus_p = omega / d, (k - omega) * t / d  # 1 - p without cancellation
        inside = p / math.comb(k - 1, omega - 1)
        outside = one_minus_p / math.comb(k - 1, omega) if omega < k else 0.0
        subsets = tuple(itertools.combinations(range(k), omega))
        members = np.array(subsets, dtype=np.intp).reshape(len(subsets), omega)
        M = np.full((k, len(subsets)), outside)
        M[members.T, np.arange(len(subsets))] = inside
        return Channel(M, outputs=subsets)

    def symmetric(self) -> SymmetricChannel:
        """SS as a symmetric channel (``qifldp.symmetric.subset_selection``).

        Examples
        --------
        >>> int(SS(10**6, 2.0).symmetric().sizes[0])
        119203
        """
        from .. import symmetric

        return symmetric.subset_selection(self.k, self.eps, self._params["omega"])

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """SS as a symbolic channel (``qifldp.symbolic.subset_selection``); ``eps`` may be a symbol.

        Examples
        --------
        >>> SS(3, 1.0, omega=2).symbolic(eps="e").shape
        (3, 3)
        """
        from .. import symbolic

        values = self._symbols(symbols, ("eps",))
        return symbolic.subset_selection(self.k, values["eps"], self._params["omega"])

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
