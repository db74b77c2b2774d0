"""omega-Subset Selection (SS) as a protocol object."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit

from ..channel import Channel, guard_size
from ..errors import InputTypeError, ParameterError
from ..simulation import calibrate, support_counts
from ..simulation.samplers import n_reports
from ..simulation.util import (
    MAX_SS_K,
    as_array,
    as_rng,
    as_values,
    check_memory,
    choose_uniform_true,
    method_options,
)
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.channel import SymmetricChannel
from ..validation import check_choice, check_int
from .base import ClosedForm, PQSupport, size_alternative
from .docstrings import ORACLE_DOCS, fill_doc
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
from .sympy_args import check_bits, exact_eps, exact_int
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


__all__ = [
    "SS",
    "SSClosedForm",
    "bayes_capacity_ss",
    "asr_ss",
    "acc_ss",
    "symbolic_bayes_capacity_ss",
    "symbolic_bayes_capacity_ss_printed",
    "symbolic_subset_selection",
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


@closed_form_doc()
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


@fill_doc(ORACLE_DOCS)
def symbolic_subset_selection(k: int, eps: Any, omega: int | None = None) -> SymbolicChannel:
    """omega-Subset Selection as a symbolic channel (``qifldp.symbolic.subset_selection``).

    Parameters
    ----------
    {k}
    {symbolic_eps}
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

    k = check_k(k)
    P = SymbolicParameters()
    e = P.take("eps", eps, "eps")
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
        return self._at(bayes_capacity_ss, "omega")

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin (:func:`symbolic_bayes_capacity_ss`); ``eps`` may be a symbol.

        Examples
        --------
        >>> SS(4, 1.0, omega=2).closed_form.symbolic_bayes_capacity(eps="e")
        4*exp(e)/(2*exp(e) + 2)
        """
        return self._protocol._symbolic_at(symbolic_bayes_capacity_ss, symbols, ("eps",), "omega")

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


@fill_doc(ORACLE_DOCS)
class SS(PQSupport):
    """omega-Subset Selection: report an omega-subset that contains the truth w.p. p.

    Parameters
    ----------
    {k}
    {eps}
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

        k, eps, omega = self.k, self.eps, self._params["omega"]
        lp, l1mp = self._log
        name = f"subset_selection(k={k}, eps={eps:g}, omega={omega})"
        return SymmetricChannel._make(
            k, [omega], [lp], [l1mp], name, ("subsets",), log_ratio=eps, exact_log_ratio=eps
        )

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """SS as a symbolic channel (:func:`symbolic_subset_selection`); ``eps`` may be a symbol.

        Examples
        --------
        >>> SS(3, 1.0, omega=2).symbolic(eps="e").shape
        (3, 3)
        """
        return self._symbolic_at(symbolic_subset_selection, symbols, ("eps",), "omega")

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """omega-subsets for n users: the truth w.p. p, the rest uniform among the others.

        Parameters
        ----------
        xs, rng
            As :meth:`Protocol.sample`: values in 0..k-1, and a generator or seed.
        **options
            ``output``: ``"subsets"`` (default), an (n, omega) int64 array, each row
            sorted ascending (the output labels of ``qifldp.subset_selection`` are
            these rows as tuples); ``"membership"``, an (n, k) boolean matrix, row j
            marking user j's subset.

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        ParameterError, InputTypeError
            Bad ``xs``, ``rng`` or ``output``; another option; k above
            :data:`qifldp.simulation.util.MAX_SS_K`.
        SizeError
            The output (n omega int64, or n k booleans) beyond the memory budget.

        Notes
        -----
        The true value is included with probability p = omega e^eps/(omega e^eps + k - omega);
        the remaining omega - 1 (or omega) values are a uniform subset of the k - 1
        others. For k <= :data:`SS_BITS_MAX_K` they are drawn by Floyd's algorithm on
        one 64-bit mask per user (:func:`_ss_bitmasks`, blocks of
        :data:`SS_BITS_BLOCK` users). Otherwise, when k <= :data:`SS_DENSE_RATIO` omega, by Floyd's
        algorithm on a membership mask, vectorised over users (drawing the
        complement when it is smaller), or by random keys for
        :data:`SS_KEYS_MIN_K` < k <= :data:`SS_KEYS_MAX_K`; otherwise sparsely, as
        the first distinct values of uniform draws, so the work is sized by
        n omega, never by n k. Blocks of about 2^20 cells. Time O(n omega log omega)
        (plus O(n k) for the membership matrix); the output is checked against
        ``qifldp.simulation.MEMORY_BUDGET_BYTES`` before it is allocated.

        Examples
        --------
        >>> S = SS(6, 1.0, omega=2).sample([0, 3], rng=0)
        >>> S.shape, bool((S[:, 0] < S[:, 1]).all())
        ((2, 2), True)
        """

        output = method_options("sample", options, output="subsets")["output"]
        k, omega, p = self.k, self.params["omega"], self.params["p"]
        check_choice("output", output, ("subsets", "membership"))
        if k > MAX_SS_K:
            msg = f"k must be <= {MAX_SS_K} for sample_ss (values are stored as int64), got {k}"
            raise ParameterError(msg)
        xs = as_values(xs, k)
        rng = as_rng(rng)
        n = xs.size
        alt = "fewer users per call (sample in batches and concatenate)"
        if output == "membership":
            check_memory(n, k, f"the (n, k) membership matrix of sample_ss (n = {n}, k = {k})", alt)
            out = np.zeros((n, k), dtype=bool)
        else:
            check_memory(
                n * omega, 8, f"the (n, omega) subsets of sample_ss (n = {n}, omega = {omega})", alt
            )
            out = np.empty((n, omega), dtype=np.int64)
        if k <= SS_BITS_MAX_K:
            for s in range(0, n, SS_BITS_BLOCK):
                e = min(n, s + SS_BITS_BLOCK)
                masks = _ss_bitmasks(xs[s:e], k, omega, p, rng)
                if output == "membership":
                    out[s:e] = (masks[:, None] >> np.arange(k, dtype=np.uint64)) & _ONE != 0
                else:
                    out[s:e] = bitmask_members(masks, omega)
            return out
        dense = k <= SS_DENSE_RATIO * omega
        keys = dense and SS_KEYS_MIN_K < k <= SS_KEYS_MAX_K
        # rows per block: about 2^20 cells of working storage, and row * k < 2^62 (int64 codes)
        step = max(1, min((1 << 20) // (k + 1 if dense else omega), (1 << 62) // (k + 1)))
        for s in range(0, n, step):
            e = min(n, s + step)
            if dense and not keys:
                mask = _ss_mask(xs[s:e], k, omega, p, rng)
                if output == "membership":
                    out[s:e] = mask[:, :k]
                else:  # row-major positions of the True cells, already sorted within each row
                    out[s:e] = (np.flatnonzero(mask) % (k + 1)).reshape(e - s, omega)
            else:
                draw = _ss_subsets_keys if keys else _ss_subsets_sparse
                sub = draw(xs[s:e], k, omega, p, rng)
                if output == "membership":
                    out[np.repeat(np.arange(s, e), omega), sub.reshape(-1)] = True
                else:
                    out[s:e] = sub
        return out

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from omega-SS reports (subsets or membership rows).

        ``reports``: the (n, omega) subsets or (n, k) membership rows of :meth:`sample`;
        returns the float64 estimate of shape (k,). Raises ParameterError for p* = q*
        (eps = 0 or omega = k), reports of another omega, or no reports.

        Notes
        -----
        Support counts C_v = #subsets containing v, calibrated with (p*, q*) of
        :meth:`support_probabilities` (Wang et al. 2016). O(n omega) or O(n k).

        Examples
        --------
        >>> import numpy as np
        >>> P = SS(4, 2.0, omega=2)
        >>> xs = np.repeat([0, 1, 2, 3], [4000, 3000, 2000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.4, 0.3, 0.2, 0.1]
        """

        report_omega(reports, self.k, self.params["omega"])  # omega read from the reports
        counts = support_counts(reports, self.k)
        return calibrate(counts, n_reports(reports), *self.support_probabilities(), project=project)

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess within each reported subset (:func:`attack_subsets`).

        ``reports``: the subsets or membership rows of :meth:`sample`; ``rng`` draws the
        guesses. Returns one int64 guess per report; errors as :func:`attack_subsets`.

        Examples
        --------
        >>> SS(4, 1.0, omega=1).attack([[2], [0]], rng=0).tolist()
        [2, 0]
        """
        return attack_subsets(reports, rng)


# ----------------------------------------------------------------------------------------
# simulation helpers: the sampler's routes and the report checks
# ----------------------------------------------------------------------------------------
#: SS.sample draws subsets on an (n, k) membership mask (Floyd's algorithm) when
#: k <= SS_DENSE_RATIO * omega (the mask is then at most this many times the output);
#: otherwise it draws each subset sparsely, in O(omega) memory per user.
SS_DENSE_RATIO: int = 4

#: In the dense regime (k <= SS_DENSE_RATIO * omega), domains with
#: SS_KEYS_MIN_K < k <= SS_KEYS_MAX_K draw each subset as the smallest of k − 1
#: uniform keys (one vectorised argpartition per block of users) instead of
#: Floyd's algorithm, whose ω − 1 sequential steps per block dominate when a block
#: holds few users; the keys of one user take at most 8 SS_KEYS_MAX_K bytes.
SS_KEYS_MIN_K: int = 1024
SS_KEYS_MAX_K: int = (1 << 22) + 1

#: Domains of at most this many values draw each user's subset as the bits of one
#: uint64 (Floyd's algorithm on bit masks, no (n, k) mask), in blocks of SS_BITS_BLOCK
#: users (their working arrays stay in cache).
SS_BITS_MAX_K: int = 64
SS_BITS_BLOCK: int = 1 << 16

_ONE = np.uint64(1)


def _radix_groups(sizes: list[int], limit: int = 1 << 62) -> list[tuple[list[int], int]]:
    """``sizes`` cut into consecutive groups whose product stays <= ``limit``: one uniform
    integer below a group's product holds one uniform digit per size (mixed radix)."""
    groups: list[tuple[list[int], int]] = []
    cur: list[int] = []
    prod = 1
    for size in sizes:
        if cur and prod * size > limit:
            groups.append((cur, prod))
            cur, prod = [], 1
        cur.append(size)
        prod *= size
    if cur:
        groups.append((cur, prod))
    return groups


def floyd_bitmasks(
    n: int, m: int, steps: int, rng: np.random.Generator, first: np.ndarray | None = None
) -> np.ndarray:
    """n uniform subsets of 0..m-1 (m <= 64) as uint64 bit masks, by Floyd's algorithm.

    For j = m − steps, ..., m − 1: t uniform in 0..j, add t, or j if t is taken; each
    mask then holds ``steps`` distinct indices, a uniform subset. ``first``: the users
    that take the first step (the others get ``steps - 1`` indices, equally uniform).
    The t of all steps are the mixed-radix digits of a few uniform integers (exact: a
    uniform integer below Π (j + 1) has independent uniform digits). O(n steps).

    Examples
    --------
    >>> masks = floyd_bitmasks(4, 10, 3, np.random.default_rng(0))
    >>> np.bitwise_count(masks).tolist(), bool(np.all(masks < 1 << 10))
    ([3, 3, 3, 3], True)
    """
    chosen = np.zeros(n, dtype=np.uint64)
    j = m - steps
    for group, prod in _radix_groups([size + 1 for size in range(m - steps, m)]):
        r = rng.integers(0, prod, size=n, dtype=np.int64)
        for size in group:
            r, digit = np.divmod(r, size)
            t = digit.astype(np.uint64)
            bit = _ONE << t
            hit = chosen & bit  # bit when index t is taken (then index j is added)
            new = (bit ^ hit) | ((hit >> t) << np.uint64(j))
            if j == m - steps and first is not None:
                new *= first
            chosen |= new
            j += 1
    return chosen


def _ss_bitmasks(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """ω-SS subsets of a block of users as uint64 bit masks (bit v: value v), k <= 64.

    The true value x is in the subset w.p. p; the rest is a uniform subset of the m =
    k − 1 other values, of size ω − 1 (x in) or ω (x out), drawn by
    :func:`floyd_bitmasks` on index masks (index i the value i + [i >= x]); the
    complement (sizes m − ω + 1, m − ω) is drawn when smaller. The group of the larger
    size alone takes the first step.
    """
    n = xs.size
    m = k - 1
    incl, complement, s_in, s_out = _floyd_plan(n, k, omega, p, rng)
    big = None if s_in == s_out else (incl if s_in > s_out else ~incl)
    chosen = floyd_bitmasks(n, m, max(s_in, s_out), rng, big)
    x = xs.astype(np.uint64)
    below = (_ONE << x) - _ONE
    values = (chosen & below) | ((chosen & ~below) << _ONE)  # index i >= x -> value i + 1
    if complement:
        values = ((~np.uint64(0) >> np.uint64(64 - k)) ^ (_ONE << x)) & ~values
    values |= incl.astype(np.uint64) << x
    return values


def bitmask_members(masks: np.ndarray, omega: int) -> np.ndarray:
    """The (n, ω) sorted set bits of n bit masks of ω bits each: the lowest, ω times.

    A transposed view of an (ω, n) array (``.T`` of the result is C-contiguous).

    Examples
    --------
    >>> bitmask_members(np.array([0b101, 0b110], dtype=np.uint64), 2).tolist()
    [[0, 2], [1, 2]]
    """
    out = np.empty((omega, masks.size), dtype=np.int64)
    rest = masks.copy()
    for c in range(omega):
        lowest = rest & (~rest + _ONE)
        out[c] = np.bitwise_count(lowest - _ONE)
        rest ^= lowest
    return out.T


def _floyd_plan(n: int, k: int, omega: int, p: float, rng) -> tuple[np.ndarray, bool, int, int]:
    """Floyd's plan for n users of ω-SS: (whether each keeps its value (w.p. p), whether
    the complement is drawn, the sizes s_in and s_out drawn among the k − 1 others
    when the value is kept or not)."""
    m = k - 1
    incl = rng.random(n) < p
    complement = omega - 1 > m - omega
    s_in, s_out = (m - omega + 1, m - omega) if complement else (omega - 1, omega)
    return incl, complement, s_in, s_out


def _ss_mask(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """Membership rows of ω-SS for a block of users, shape (n, k + 1) (last column False).

    The true value x is in the subset w.p. p; the rest is a uniform subset of
    the m = k − 1 other values, of size s_in = ω − 1 (x in) or s_out = ω (x out),
    drawn by Floyd's algorithm over indices 0..m-1 mapped to values by
    i -> i + [i >= x]: for j = m − s, ..., m − 1 draw t uniform in 0..j and add t,
    or j if t is already chosen. When ω − 1 > m − ω the complement (sizes
    m − ω + 1, m − ω) is drawn instead and inverted. The two sizes differ by
    one, so all users share Floyd's steps except the first, which only the
    larger group takes (the others write to a scratch column).
    """
    n = xs.size
    m = k - 1
    incl, complement, s_in, s_out = _floyd_plan(n, k, omega, p, rng)
    steps = max(s_in, s_out)
    big = incl if s_in > s_out else ~incl  # the group of the larger size
    mask = np.zeros((n, k + 1), dtype=bool)  # column k: scratch
    if steps:
        flat = mask.reshape(-1)
        base = np.arange(n) * (k + 1)
        for step, j in enumerate(range(m - steps, m)):
            t = rng.integers(0, j + 1, size=n)  # uniform in 0..j (exact)
            t += t >= xs  # index -> value (skip x)
            t += base
            vj = base + (xs <= j)  # j -> value, as a flat index
            vj += j
            choice = np.where(flat[t], vj, t)
            if step == 0 and s_in != s_out:
                choice = np.where(big, choice, base + k)
            flat[choice] = True
    rows = np.arange(n)
    if complement:
        np.logical_not(mask, out=mask)
        mask[rows, xs] = False
    mask[:, k] = False
    mask[rows[incl], xs[incl]] = True
    return mask  # (n, k + 1), last column all False


def _ss_subsets_keys(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """Sorted ω-SS subsets of a block of users, shape (n, ω), by random keys.

    The true value x is in the subset w.p. p; the other values are the indices
    of the ω − 1 (x in) or ω (x out) smallest of m = k − 1 i.i.d. uniform keys,
    a uniform subset of that size, mapped to values by i -> i + [i >= x]. One
    argpartition at position ω − 1 gives both: its first ω − 1 columns are the
    ω − 1 smallest keys and its first ω columns the ω smallest. O(n k).
    """
    n = xs.size
    m = k - 1
    incl = rng.random(n) < p
    if omega - 1 >= m:  # omega = k: p = 1, every subset is the whole domain
        return np.broadcast_to(np.arange(k, dtype=np.int64), (n, k)).copy()
    part = np.argpartition(rng.random((n, m)), omega - 1, axis=1)[:, :omega]
    part = part.astype(np.int64, copy=False)
    values = part + (part >= xs[:, None])
    values[incl, omega - 1] = xs[incl]  # x replaces the ω-th smallest key
    values.sort(axis=1)
    return values


def _ss_subsets_sparse(xs: np.ndarray, k: int, omega: int, p: float, rng) -> np.ndarray:
    """Sorted ω-SS subsets of a block of users, shape (n, ω), in O(n ω) memory.

    The true value x is in the subset w.p. p; the other s = ω − 1 (x in) or ω
    (x out) values are the first s *distinct* values of an i.i.d. uniform
    sequence over the m = k − 1 indices 0..m-1 (mapped to values by
    i -> i + [i >= x]). That set is uniform over the s-subsets (the sequence's
    law is invariant under permutations of the indices). Vectorised in rounds:
    each user draws exactly as many values as it still lacks, and the new
    distinct ones join its set, so no user ever overshoots. With s < m / 3 at
    most a third of the draws collide, so the number of rounds is O(log s).
    Values are kept as row-coded int64 ``row * m + index`` in one sorted array.
    """
    n = xs.size
    m = k - 1
    rows = np.arange(n, dtype=np.int64)
    incl = rng.random(n) < p
    s_row = np.where(incl, omega - 1, omega).astype(np.int64)
    codes = np.empty(0, dtype=np.int64)
    need = s_row.copy()
    while True:
        total = int(need.sum())
        if total == 0:
            break
        new = np.repeat(rows, need) * m + rng.integers(0, m, size=total, dtype=np.int64)
        new.sort()
        if new.size > 1:  # distinct new values (np.unique without its hashing path)
            new = new[np.concatenate(([True], new[1:] != new[:-1]))]
        if codes.size:
            pos = np.searchsorted(codes, new)
            seen = pos < codes.size
            seen[seen] = codes[pos[seen]] == new[seen]
            new = new[~seen]
        codes = np.sort(np.concatenate((codes, new)), kind="stable")
        need = s_row - np.bincount(codes // m, minlength=n)
    owner = codes // m
    idx = codes % m
    values = idx + (idx >= xs[owner])
    coded = owner * k + values
    coded = np.concatenate((coded, rows[incl] * k + xs[incl]))
    coded.sort(kind="stable")
    return (coded % k).reshape(n, omega)


@fill_doc(ORACLE_DOCS)
def report_omega(reports: Any, k: int, omega: int | None = None) -> int:
    """The subset size omega of SS reports, checked against ``omega`` when given.

    Parameters
    ----------
    reports : numpy.ndarray
        (n, omega) subsets or an (n, k) boolean membership matrix.
    {k}
    omega : int, optional
        The expected subset size.

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        Reports not 2-D, membership rows of different sizes, a mismatch with
        ``omega``, or no reports and no ``omega``.

    Examples
    --------
    >>> report_omega(np.array([[0, 2], [1, 3]]), 4)
    2
    """

    check_int("k", k, minimum=2)
    arr = as_array(reports, "reports")
    if arr.ndim != 2:
        msg = (
            "SS reports must be (n, omega) subsets or an (n, k) membership matrix, "
            f"got shape {arr.shape}"
        )
        raise ParameterError(msg)
    found: int | None
    if arr.dtype == np.bool_:
        sizes = np.count_nonzero(arr, axis=1)
        found = int(sizes[0]) if sizes.size else omega
        if sizes.size and np.any(sizes != found):
            msg = "SS membership rows must all have the same number omega of set entries"
            raise ParameterError(msg)
    else:
        found = arr.shape[1]
    if omega is not None:
        omega = check_int("omega", omega, minimum=1)
    if omega is not None and found is not None and omega != found:
        msg = f"omega = {omega} does not match the reports' subset size {found}"
        raise ParameterError(msg)
    if found is None:
        msg = "omega must be given when there are no reports"
        raise ParameterError(msg)
    return found


def attack_subsets(reports: Any, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on omega-SS: a uniform guess within the reported subset.

    Parameters
    ----------
    reports : numpy.ndarray
        (n, omega) subsets or (n, k) boolean membership (from :meth:`SS.sample`).
    rng : numpy.random.Generator or int, optional
        Picks the member of each subset (uniformly).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        One member of each reported subset.

    Raises
    ------
    ParameterError
        Reports not 2-D.
    InputTypeError
        Non-integer subsets.

    Notes
    -----
    Arcolezi et al. (VLDB 2023, Sec. 3.2.1). Bayes-optimal under a uniform
    prior: the posterior of x is proportional to p/C(k-1, omega-1) inside the
    subset and (1 - p)/C(k-1, omega) outside. Needs neither k nor eps.
    O(n) (subsets) or O(n k) (membership).

    Examples
    --------
    >>> guesses = attack_subsets(np.array([[1, 3], [0, 2]]), rng=0).tolist()
    >>> guesses in ([1, 0], [1, 2], [3, 0], [3, 2])
    True
    """

    arr = as_array(reports, "reports")
    rng = as_rng(rng)
    if arr.ndim != 2:
        msg = (
            "SS reports must be (n, omega) subsets or an (n, k) membership matrix, "
            f"got shape {arr.shape}"
        )
        raise ParameterError(msg)
    if arr.dtype == np.bool_:
        return choose_uniform_true(arr, rng)
    if not np.issubdtype(arr.dtype, np.integer):
        msg = f"SS subsets must be integers, got dtype {arr.dtype}"
        raise InputTypeError(msg)
    n, omega = arr.shape
    if omega == 0:
        msg = "SS subsets must have omega >= 1 columns, got shape (n, 0)"
        raise ParameterError(msg)
    return arr[np.arange(n), rng.integers(0, omega, size=n)].astype(np.int64)


__all__ += ["SS_DENSE_RATIO", "SS_KEYS_MIN_K", "SS_KEYS_MAX_K", "report_omega", "attack_subsets"]
__all__ += ["SS_BITS_MAX_K", "floyd_bitmasks", "bitmask_members"]
