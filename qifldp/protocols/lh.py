"""Local hashing (LH, BLH, OLH) as a protocol object: the cascade of the encoding E and GRR."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit

from ..channel import Channel, check_size, guard_size
from ..errors import InputTypeError, ParameterError
from ..simulation import (
    DEFAULT_PRIME,
    LHReports,
    calibrate,
    lh_collision_probability,
    support_counts,
    universal_hash,
)
from ..simulation.util import (
    CHUNK_CELLS,
    as_rng,
    as_values,
    check_prime,
    choose_uniform_true,
    method_options,
    row_chunks,
)
from ..symbolic import SymbolicChannel
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.channel import SymmetricChannel
from ..symmetric.operators import one_hot_classes
from ..validation import check_choice, check_eps, check_int
from .base import EpsAttained, Protocol, size_alternative
from .docstrings import ORACLE_DOCS, fill_doc
from .params import (
    OLH_FLOAT_EPS_LIMIT,
    check_g,
    check_k,
    grr_expressions,
    lh_probabilities,
    log_grr,
    olh_g,
)
from .sympy_args import check_bits, exact_eps, exact_int, power_bits
from .vectorize import (
    as_eps,
    as_ints,
    asr_from,
    check_printed,
    closed_form_doc,
    ints_as_floats,
    is_scalar,
    log_ints,
    one_minus_pow_over,
    output,
)

if TYPE_CHECKING:
    import sympy as sp


__all__ = [
    "LH",
    "LHClosedForm",
    "lh_encoding",
    "lh_perturbation",
    "guard_olh_estimate",
    "OLH_EXACT_G_EPS",
    "bayes_capacity_lh",
    "bayes_capacity_blh",
    "bayes_capacity_olh",
    "asr_lh",
    "asr_blh",
    "asr_olh",
    "asr_lh_gursoy",
    "acc_olh",
    "symbolic_bayes_capacity_lh",
    "symbolic_asr_lh",
    "symbolic_asr_lh_gursoy",
    "symbolic_local_hashing",
    "symbolic_blh",
    "symbolic_olh",
]

#: Above this eps, OLH's channel is refused from log10 g ~ eps / ln 10 alone (it has
#: more than (e^50)^3 entries), without forming the huge integer g^(k+1).
OLH_EXACT_G_EPS: float = 50.0


@fill_doc(ORACLE_DOCS)
def symbolic_local_hashing(k: int, eps: Any, g: int) -> SymbolicChannel:
    """Local hashing (the encoding, then GRR over [g]) as a symbolic channel.

    ``qifldp.symbolic.local_hashing``.

    Parameters
    ----------
    {k}
    {symbolic_eps}
    {g}

    Returns
    -------
    SymbolicChannel, shape (k, g^k g)
        Outputs (h, z): h one of the g^k functions as a k-tuple (``itertools.product``
        order), z the perturbed hash value in 0..g-1 (the labels of
        :func:`qifldp.local_hashing`). C[x, (h, z)] = e^eps / (g^k (e^eps + g - 1))
        if h(x) = z, else 1 / (g^k (e^eps + g - 1)).

    Raises
    ------
    ParameterError, SizeError

    Notes
    -----
    QIF paper Eq. (24) and its appendix (E·G). Cost O(k g^(k+1)).

    Examples
    --------
    >>> C = symbolic_local_hashing(2, "eps", 2)
    >>> C.shape, C.outputs[1]
    ((2, 8), ((0, 0), 1))
    >>> C[0, 0]
    exp(eps)/(4*exp(eps) + 4)
    """

    k = check_k(k)
    g = check_g(g)
    size = (k + 1) * math.log10(g)
    guard_symbolic_size("local_hashing", (k, "eps", g), k, size, lambda: g ** (k + 1))
    P = SymbolicParameters()
    hit, miss = grr_expressions(g, P.take("eps", eps, "eps"), scale=g**k)
    outs = _pair_labels(k, g)
    rows = [[hit if h[x] == z else miss for h, z in outs] for x in range(k)]
    return P.channel(rows, tuple(range(k)), outs)


def symbolic_blh(k: int, eps: Any) -> SymbolicChannel:
    """Binary local hashing as a symbolic channel: :func:`symbolic_local_hashing` with g = 2.

    Examples
    --------
    >>> symbolic_blh(3, "eps").shape
    (3, 16)
    """
    return symbolic_local_hashing(k, eps, 2)


def symbolic_olh(k: int, eps: Any) -> SymbolicChannel:
    """Optimized local hashing, symbolically: g = round(e^eps + 1) (at least 2); eps numeric.

    Use :func:`symbolic_local_hashing` with an explicit g for a symbolic eps.

    Examples
    --------
    >>> import sympy as sp
    >>> symbolic_olh(2, sp.log(2)).shape  # g = round(2 + 1) = 3: 3^2 functions x 3 values
    (2, 27)
    """

    k = check_k(k)
    e = SymbolicParameters().take("eps", eps, "eps")
    return symbolic_local_hashing(k, e, olh_g(SymbolicParameters.number(e, "olh")))


def _guard(what: str, k: int, log10_g: float, g: int | None, name: str = "local_hashing") -> None:
    if name == "local_hashing":
        sig, formula = "k, eps, g", "bayes_capacity_lh"
    else:
        sig, formula = "k, eps", f"bayes_capacity_{name}"
    alt = size_alternative(name, sig, formula)
    exact = None if g is None else (lambda: g ** (k + 1))  # None: refused from log10_g alone
    guard_size(what, k, (k + 1) * log10_g, exact, alt)


def guard_olh_estimate(k: int, eps: float) -> None:
    """Refuse OLH's channel from log10 g ~ eps / ln 10 alone when eps > :data:`OLH_EXACT_G_EPS`.

    Such a channel has more than (e^50)^3 entries; the check forms neither g^(k+1)
    nor, for eps beyond :data:`qifldp.protocols.params.OLH_MAX_EPS`, g itself.
    Arguments are assumed checked.

    Examples
    --------
    >>> guard_olh_estimate(3, 1.0)
    >>> guard_olh_estimate(3, 800.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: olh(3, 800.0) would have 3 x ~10^1389.7 entries, ...
    """
    if eps > OLH_EXACT_G_EPS:
        _guard(f"olh({k}, {eps})", k, eps / math.log(10), None, "olh")


def _hash_table(k: int, g: int) -> np.ndarray:
    """All g^k functions [k] -> [g] as rows h = (h(0), ..., h(k-1)), product order."""
    return np.indices((g,) * k, dtype=np.intp).reshape(k, -1).T


def _encoding_matrix(k: int, g: int) -> np.ndarray:
    """E as an array of shape (k, g^k, g): E[x, h, e] = [h(x) = e] / g^k."""
    H = _hash_table(k, g)
    n_h = H.shape[0]
    E = np.zeros((k, n_h, g))
    E[np.arange(k)[:, None], np.arange(n_h)[None, :], H.T] = 1.0 / n_h
    return E


def _pair_labels(k: int, g: int) -> tuple:
    return tuple(itertools.product(itertools.product(range(g), repeat=k), range(g)))


def _grr_block(g: int, eps: float) -> np.ndarray:
    p, q = lh_probabilities(g, eps)
    R = np.full((g, g), q)
    np.fill_diagonal(R, p)
    return R


@fill_doc(ORACLE_DOCS)
def lh_encoding(k: int, g: int) -> Channel:
    """The encoding channel E of local hashing: a uniform hash function and the hash of x.

    {parameters}

    Returns
    -------
    Channel, shape (k, g^(k+1))
        Outputs (h, e): h a function [k] -> [g] as a k-tuple over 0..g-1 (all
        g^k of them, in ``itertools.product`` order) and e in 0..g-1;
        E[x, (h, e)] = 1 / g^k if h(x) = e, else 0.

    Raises
    ------
    InputTypeError, ParameterError
        Bad ``k`` or ``g``.
    SizeError
        More than MAX_ENTRIES entries.

    Notes
    -----
    QIF paper, appendix "Definition of E". E is the visible choice, with uniform
    probabilities, of the deterministic channels x -> h(x). Cost O(k g^(k+1)).

    Examples
    --------
    >>> E = lh_encoding(2, 2)
    >>> E.outputs[:3]
    (((0, 0), 0), ((0, 0), 1), ((0, 1), 0))
    >>> E.matrix
    array([[0.25, 0.  , 0.25, 0.  , 0.  , 0.25, 0.  , 0.25],
           [0.25, 0.  , 0.  , 0.25, 0.25, 0.  , 0.  , 0.25]])
    """
    k = check_k(k)
    g = check_g(g)
    _guard(f"lh_encoding({k}, {g})", k, math.log10(g), g)
    return Channel(_encoding_matrix(k, g).reshape(k, -1), outputs=_pair_labels(k, g))


@fill_doc(ORACLE_DOCS)
def lh_perturbation(k: int, eps: float, g: int) -> Channel:
    """The perturbation channel G of local hashing: keep h, apply GRR_g to the hash value.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2`` (hash functions are k-tuples).
    eps : float
        Privacy parameter of the GRR on the hash range.
    {g}

    Returns
    -------
    Channel, shape (g^(k+1), g^(k+1))
        Inputs and outputs (h, value), labelled as :func:`lh_encoding`'s outputs;
        G[(h, e), (h', z)] = [h = h'] GRR_g(eps)[e, z], i.e. G = I_{g^k} (x) GRR_g
        (the parallel composition of the identity on hash functions and GRR).

    Raises
    ------
    SizeError
        When (g^(k+1))^2 exceeds MAX_ENTRIES: G is only for small checks, the
        channel of :class:`LH` never builds it.

    Notes
    -----
    QIF paper, appendix "Definition of G". Cost O(g^(2k+2)).

    Examples
    --------
    >>> import math
    >>> G = lh_perturbation(2, math.log(3), 2)
    >>> G.shape, G.matrix[0, :4].round(6).tolist()
    ((8, 8), [0.75, 0.25, 0.0, 0.0])
    """
    k = check_k(k)
    g = check_g(g)
    eps = check_eps(eps)
    n = g ** (k + 1) if (k + 1) * math.log10(g) < 30 else 10**30
    alt = "local_hashing(k, eps, g) (built blockwise)"
    check_size(n, n, f"lh_perturbation({k}, {eps}, {g})", alt)
    labels = _pair_labels(k, g)
    return Channel(np.kron(np.eye(g**k), _grr_block(g, eps)), inputs=labels, outputs=labels)


# -- closed forms (numeric, vectorised; their sympy twins) ---------------------------
def _lh_capacity(
    k: np.ndarray, eps: np.ndarray, log_g: np.ndarray, log_gm1: np.ndarray
) -> np.ndarray:
    """ML of LH = g [p - ((g-1)/g)^k (p - q)], written with logs of g and g - 1."""
    k = np.asarray(k, dtype=np.float64)
    ginv = np.exp(-log_g)
    # g (1 - (1 - 1/g)^k): k when 1/g underflows
    a = one_minus_pow_over(ginv, k)
    # log of g ((g - 1)/g)^k e^-eps and of the denominator 1 + (g - 1) e^-eps: both may
    # exceed the float range (huge g, small eps), their difference never does.
    log_b = log_g + k * np.log1p(-ginv) - eps
    log_d = np.logaddexp(0.0, log_gm1 - eps)
    return a * np.exp(-log_d) + np.exp(log_b - log_d)


def _olh_logs(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log g and log(g - 1) for OLH's g = round(e^eps + 1), for every finite eps."""
    small = eps <= OLH_FLOAT_EPS_LIMIT
    g = np.vectorize(
        lambda e: float(olh_g(e)) if e <= OLH_FLOAT_EPS_LIMIT else 2.0, otypes=[float]
    )(eps)
    # Beyond the float range g - 1 = round(e^eps) = e^eps (1 + O(e^-eps)) and g = g - 1 + 1:
    # both logs equal eps to double precision.
    log_g = np.where(small, np.log(g), eps)
    log_gm1 = np.where(small, np.log(g - 1.0), eps)
    return log_g, log_gm1


@closed_form_doc(
    returns="In [1, min(k, g)].",
    raises="Bad ``k``, ``eps`` or ``g``.",
)
def bayes_capacity_lh(k: Any, eps: Any, g: Any) -> Any:
    """Bayes capacity of local hashing (QIF paper Eq. 27, the corrected formula).

    ML = (e^eps g^k + (g - 1)^k (1 - e^eps)) / ((e^eps + g - 1) g^(k-1)).

    {sections}

    Notes
    -----
    A column (h, z) has maximum p / g^k when some x has h(x) = z, which happens for
    g^k - (g-1)^k of the g^k functions, and q / g^k otherwise; so
    ML = g [p - ((g-1)/g)^k (p - q)]. Evaluated as
    (g (1 - (1 - 1/g)^k) + g ((g-1)/g)^k e^-eps) / (1 + (g - 1) e^-eps) with
    log1p/expm1 (all terms positive, no cancellation). This matches the enumerated
    channel for every k; Gursoy et al.'s Eq. 25 does not (:func:`asr_lh_gursoy`).

    Examples
    --------
    >>> import math
    >>> bayes_capacity_lh(2, math.log(3), 2)  # (3*4 + 1*(1 - 3)) / (4 * 2)
    1.25
    >>> round(bayes_capacity_lh(10**6, 50.0, 3), 6)  # -> g as k grows
    3.0
    """
    scalar = is_scalar(k=k, eps=eps, g=g)
    k, eps, g = as_ints("k", k, 2), as_eps(eps), as_ints("g", g, 2)
    return output(_lh_capacity(k, eps, log_ints(g), log_ints(g - 1)), scalar)


@closed_form_doc(
    returns="ML(BLH), in [1, 2].",
)
def bayes_capacity_blh(k: Any, eps: Any) -> Any:
    """Bayes capacity of binary local hashing: :func:`bayes_capacity_lh` with g = 2.

    {sections}

    Examples
    --------
    >>> import math
    >>> bayes_capacity_blh(2, math.log(3))
    1.25
    """
    return bayes_capacity_lh(k, eps, 2)


@closed_form_doc(
    eps=(
        "eps : float or array_like\n"
        "    Privacy parameter(s), finite, ``>= 0``; any size (g is handled by its\n"
        "    logarithm beyond eps = 700)."
    ),
)
def bayes_capacity_olh(k: Any, eps: Any) -> Any:
    """Bayes capacity of OLH: :func:`bayes_capacity_lh` with g = round(e^eps + 1).

    {sections}

    Notes
    -----
    g is :func:`qifldp.protocols.params.olh_g` (the g of :func:`qifldp.olh`).
    As eps grows, ML -> (k + 1) / 2.

    Examples
    --------
    >>> round(bayes_capacity_olh(50, 800.0), 6)
    25.5
    """
    scalar = is_scalar(k=k, eps=eps)
    k, eps = as_ints("k", k, 2), as_eps(eps)
    log_g, log_gm1 = _olh_logs(eps)
    return output(_lh_capacity(k, eps, log_g, log_gm1), scalar)


asr_lh = asr_from(bayes_capacity_lh, ">>> asr_lh(2, math.log(3), 2)  # QIF paper Eq. 26\n0.625")
asr_blh = asr_from(bayes_capacity_blh, ">>> asr_blh(2, math.log(3))\n0.625")
asr_olh = asr_from(bayes_capacity_olh, ">>> round(asr_olh(50, 800.0), 6)\n0.51")


@closed_form_doc(
    returns="The printed value, *not* the true success rate (:func:`asr_lh`).",
)
def asr_lh_gursoy(k: Any, eps: Any, g: Any) -> Any:
    """Gursoy et al.'s LH attack success rate, QIF paper Eq. 25 -- kept to show it is wrong.

    ASR_Gursoy = e^eps / ((e^eps + g - 1) max(k / g, 1)).

    {sections}

    Notes
    -----
    The derivation (Gursoy et al. 2022, their Eq. 24) uses
    (E|U| - 1) / E|U| for the chance of guessing wrong inside the support set U,
    where E[1 - 1/|U|] is right (QIF paper, appendix A). It approaches the truth
    only for large k: at k = 2, g = 2, eps = 3 it gives 0.9526 against the true
    (enumerated) 0.7263.

    Examples
    --------
    >>> round(asr_lh_gursoy(2, 3.0, 2), 4), round(asr_lh(2, 3.0, 2), 4)
    (0.9526, 0.7263)
    """
    scalar = is_scalar(k=k, eps=eps, g=g)
    k, eps, g = as_ints("k", k, 2), as_eps(eps), as_ints("g", g, 2)
    kf, gf = ints_as_floats(k), ints_as_floats(g, "g")
    return output(1.0 / ((1.0 + (gf - 1.0) * np.exp(-eps)) * np.maximum(kf / gf, 1.0)), scalar)


@closed_form_doc(
    printed=(
        "printed : bool\n"
        "    False (default): the true expected accuracy on :func:`qifldp.olh`\n"
        "    (all g^k hash functions, g = round(e^eps + 1)). True: the paper's\n"
        "    printed 1 / (2 max(k / (e^eps + 1), 1))."
    ),
)
def acc_olh(k: Any, eps: Any, printed: bool = False) -> Any:
    """Expected accuracy of the support-set attacker on OLH.

    The attacker guesses uniformly among the values that hash to the reported
    value (uniformly over the domain if there are none).

    {sections}

    Notes
    -----
    Every input in the support set has the same, maximal likelihood, so this
    attacker is Bayes-optimal and its accuracy is :func:`asr_olh` exactly.
    The printed formula (the multidimensional-risks paper, Arcolezi et al. 2023)
    is Gursoy et al.'s Eq. 25 (:func:`asr_lh_gursoy`) at the real-valued
    g = e^eps + 1: an approximation that is wrong for small k. At k = 2,
    eps = 3 it prints 0.5 while the truth is 0.7267 (g = 21).

    Examples
    --------
    >>> round(acc_olh(2, 3.0), 4), acc_olh(2, 3.0, printed=True)
    (0.7267, 0.5)
    """
    if not check_printed(printed):
        return asr_olh(k, eps)
    scalar = is_scalar(k=k, eps=eps)
    k, eps = as_ints("k", k, 2), as_eps(eps)
    kf = ints_as_floats(k)
    return output(1.0 / (2.0 * np.maximum(kf * expit(-eps), 1.0)), scalar)


def _symbolic_lh_args(k: Any, eps: Any, g: Any) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """k, e^eps and g of the symbolic closed forms."""
    import sympy as sp

    return exact_int(k), sp.exp(exact_eps(eps)), exact_int(g, "g")


def symbolic_bayes_capacity_lh(k: Any, eps: Any, g: Any) -> sp.Expr:
    """The sympy twin of :func:`bayes_capacity_lh` (QIF paper Eq. 27).

    ML(LH) = (e^eps g^k + (g-1)^k (1 - e^eps)) / ((e^eps + g - 1) g^(k-1)).

    Notes
    -----
    A column (h, z) has maximum e^eps / (g^k (e^eps + g - 1)) iff some x has
    h(x) = z, which holds for g^k - (g-1)^k of the g^k functions, for each z.

    Examples
    --------
    >>> symbolic_bayes_capacity_lh(2, "eps", 2)
    (3*exp(eps) + 1)/(2*exp(eps) + 2)
    """

    k, E, g = _symbolic_lh_args(k, eps, g)
    check_bits(f"bayes_capacity_lh({k}, eps, {g})", power_bits(g, k))
    return (E * g**k + (g - 1) ** k * (1 - E)) / ((E + g - 1) * g ** (k - 1))


def _exact_per_k(ml: sp.Expr, k: Any) -> sp.Expr:

    return ml / exact_int(k)


symbolic_asr_lh = asr_from(
    symbolic_bayes_capacity_lh,
    ">>> symbolic_asr_lh(2, 0, 2)  # QIF paper Eq. 26\n1/2",
    _exact_per_k,
)


def symbolic_asr_lh_gursoy(k: Any, eps: Any, g: Any) -> sp.Expr:
    """The sympy twin of :func:`asr_lh_gursoy` (QIF paper Eq. 25, wrong in general).

    e^eps / ((e^eps + g - 1) max(k/g, 1)); it replaces E[1 - 1/|U|] by
    (E|U| - 1)/E|U| (the QIF paper, Sec. V-C and appendix A). Compare with
    :func:`symbolic_asr_lh`.

    Examples
    --------
    >>> symbolic_asr_lh_gursoy(2, 0, 2)
    1/2
    """
    import sympy as sp

    k, E, g = _symbolic_lh_args(k, eps, g)
    return E / ((E + g - 1) * sp.Max(k / g, 1))


class LHClosedForm(EpsAttained):
    """Closed forms of local hashing (QIF paper Sec. V-C and its corrected Eq. 27).

    Notes
    -----
    The LDP epsilon is eps: GRR_g on the hashed value is eps-LDP and the encoding is
    post-processed (Wang et al., USENIX Security 2017, Sec. 4.4); the bound is attained.

    Examples
    --------
    >>> LH(4, 1.0, variant="blh").closed_form.ldp_epsilon()
    1.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of LH: the QIF paper's corrected Eq. 27 (:func:`bayes_capacity_lh`).

        OLH uses :func:`bayes_capacity_olh` (log space for large eps, where g has
        hundreds of digits), BLH :func:`bayes_capacity_blh`.

        Examples
        --------
        >>> import math
        >>> round(LH(2, math.log(3), g=2).closed_form.bayes_capacity(), 12)
        1.25
        """
        P = self._protocol
        return self._by_variant(
            {"olh": bayes_capacity_olh, "blh": bayes_capacity_blh},
            lambda: bayes_capacity_lh(P.k, P.eps, P.params["g"]),
        )

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin (:func:`symbolic_bayes_capacity_lh` with this protocol's g).

        ``eps`` may be a symbol; g stays the protocol's (for OLH, round(e^eps + 1)
        at the protocol's eps).

        Examples
        --------
        >>> LH(2, 1.0, variant="blh").closed_form.symbolic_bayes_capacity(eps="eps")
        (3*exp(eps) + 1)/(2*exp(eps) + 2)
        """
        return self._protocol._symbolic_at(symbolic_bayes_capacity_lh, symbols, ("eps",), "g")

    def asr_gursoy(self) -> float:
        """The earlier LH attack formula (the QIF paper's Eq. 25, from Gursoy et al.), kept
        to show where it is wrong (:func:`asr_lh_gursoy`).

        Examples
        --------
        >>> cf = LH(3, 1.0, variant="olh").closed_form
        >>> cf.asr_gursoy() != cf.asr()
        True
        """
        return self._at(asr_lh_gursoy, "g")

    def acc(self, printed: bool = False) -> float:
        """The support-set attacker's expected accuracy (:func:`acc_olh` for OLH).

        Arcolezi et al. 2023 (multidimensional risks) give ACC for OLH; the attacker
        is Bayes-optimal for every g (all inputs in the support set are equally and
        maximally likely), so the true value is :meth:`asr`. ``printed=True``
        evaluates the paper's 1 / (2 max(k / (e^eps + 1), 1)), for OLH only.

        Raises
        ------
        ParameterError
            ``printed=True`` for LH or BLH (the print is for OLH's g = e^eps + 1).

        Examples
        --------
        >>> cf = LH(2, 3.0, variant="olh").closed_form
        >>> round(cf.acc(), 4), cf.acc(printed=True)
        (0.7267, 0.5)
        """
        P = self._protocol
        if P.name == "olh":
            return float(acc_olh(P.k, P.eps, printed))
        if check_printed(printed):
            msg = f"printed=True: the paper prints ACC for OLH only, this protocol is {P.name!r}"
            raise ParameterError(msg)
        return self.asr()


@fill_doc(ORACLE_DOCS)
class LH(Protocol):
    """Local hashing: a uniform hash h: [k] -> [g], then GRR on h(x); output (h, value).

    Parameters
    ----------
    {k}
    {eps}
    g : int, optional
        Hash range, ``g >= 2``; required for ``variant="lh"``, fixed by the
        variant otherwise (BLH: 2; OLH: round(e^eps + 1), at least 2).
    variant : {"lh", "blh", "olh"}
        The protocol's name.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`qifldp.local_hashing` / ``blh`` / ``olh``; a ``g`` given to BLH
        or OLH; OLH's g beyond the float range (eps above about 709.8, as
        ``qifldp.symmetric.olh``; the closed forms of :mod:`qifldp.formulas` take any eps).

    Notes
    -----
    p = e^eps / (e^eps + g - 1), q = 1 / (e^eps + g - 1) on the hash range
    (QIF paper Sec. V-C; Bassily and Smith 2015; Wang et al. 2017).

    Examples
    --------
    >>> LH(3, 1.0, variant="olh").params["g"]  # round(e + 1)
    4
    """

    __slots__ = ()
    #: The variants this family builds (their names are the protocols' names).
    _VARIANTS: tuple[str, ...] = ("lh", "blh", "olh")
    _closed_form_type = LHClosedForm

    def __init__(self, k: int, eps: float, g: int | None = None, *, variant: str = "lh") -> None:
        variant = check_choice("variant", variant, ("lh", "blh", "olh"))
        k = check_k(k)
        if variant == "lh":
            g = check_g(g)  # checked before eps, as local_hashing(k, eps, g) does
            eps = check_eps(eps)
        elif g is not None:
            msg = f"{variant} fixes g (for another g use protocol('lh', k, eps, g=...)), got {g!r}"
            raise ParameterError(msg)
        else:
            eps = check_eps(eps)
            g = 2 if variant == "blh" else olh_g(eps)
        p, q = lh_probabilities(g, eps)
        args = {"eps": eps, "g": g} if variant == "lh" else {"eps": eps}
        self._freeze(variant, k, eps, {"p": p, "q": q, "g": g}, args, log_grr(g, eps))

    def channel(self) -> Channel:
        """The explicit channel E . G over (h, z): all g^k hash functions, z in 0..g-1.

        Raises
        ------
        SizeError
            k g^(k+1) above :data:`qifldp.channel.MAX_ENTRIES`.

        Notes
        -----
        G = I_{g^k} (x) GRR_g is block diagonal, so the cascade is evaluated block
        by block in O(k g^(k+2)) time, without forming the (g^(k+1))^2 matrix G.

        Examples
        --------
        >>> import math
        >>> C = LH(2, math.log(3), 2).channel()
        >>> C.shape, C.outputs[1]
        ((2, 8), ((0, 0), 1))
        """
        k, eps, g = self.k, self.eps, self._params["g"]
        if self.name == "olh":
            guard_olh_estimate(k, eps)
        _guard(f"local_hashing({k}, {eps}, {g})", k, math.log10(g), g)
        M = (_encoding_matrix(k, g) @ _grr_block(g, eps)).reshape(k, -1)
        return Channel(M, outputs=_pair_labels(k, g))

    def symmetric(self) -> SymmetricChannel:
        """LH as a symmetric channel lumped by S = h^-1(z) (``qifldp.symmetric.local_hashing``).

        Returns
        -------
        SymmetricChannel
            Sizes 0..k: P_in(s) = p Bin(k-1, 1/g)(s-1), P_out(s) = (1-p) Bin(k-1, 1/g)(s),
            with p = e^eps / (e^eps + g - 1) (:func:`qifldp.protocols.params.log_grr`).

        Notes
        -----
        The explicit output (h, z) has column g^-k (p if h(x) = z else q): it depends
        only on S = h^-1(z), and g (g-1)^(k-s) pairs (h, z) share each S of size s
        (z free, h maps S to z and the other k - s values elsewhere). Merging them
        gives the subset channel a_s = g (g-1)^(k-s) g^-k p, b_s = g (g-1)^(k-s) g^-k q,
        whose class masses are those of one-hot bits with p and q = 1/g
        (:func:`qifldp.symmetric.operators.one_hot_classes`). ``expand()`` equals
        :meth:`channel` (all g^(k+1) outputs). O(k) memory; OLH's g is a Python
        integer, so any eps whose g is within the float range works.

        Examples
        --------
        >>> import math, qifldp as q
        >>> round(q.bayes_capacity(LH(2, math.log(3), 2).symmetric()), 12)
        1.25
        >>> LH(10, 1.0, variant="olh").symmetric().name
        'local_hashing(k=10, eps=1, g=4)'
        """

        k, eps, g = self.k, self.eps, self._params["g"]
        lp, l1mp = self._log
        s, log_in, log_out, _ = one_hot_classes(k, lp, l1mp, -math.log(g), math.log1p(-1.0 / g))
        name = f"local_hashing(k={k}, eps={eps:g}, g={g})"
        return SymmetricChannel._make(
            k, s, log_in, log_out, name, ("lh", g), log_ratio=eps, exact_log_ratio=eps
        )

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """LH as a symbolic channel (:func:`symbolic_local_hashing` with this g).

        ``eps`` may be a symbol; g stays the protocol's (for OLH, round(e^eps + 1)
        at the protocol's eps).

        Examples
        --------
        >>> LH(2, 1.0, variant="blh").symbolic(eps="e").shape
        (2, 8)
        """
        return self._symbolic_at(symbolic_local_hashing, symbols, ("eps",), "g")

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> LHReports:
        """Local hashing for n users: hash each value, then GRR on the g hash values.

        Parameters
        ----------
        xs, rng
            As :meth:`Protocol.sample`: values in 0..k-1, and a generator or seed.
        **options
            ``hash``: ``"universal"`` (default), each user draws
            h_{a,b}(x) = ((a x + b) mod P) mod g with a uniform in 1..P-1 and b in
            0..P-1 (Carter-Wegman), stored as two integers per user; ``"uniform"``,
            each user draws a uniformly random function over all g^k functions,
            stored as a table of k values (the exact channel of the QIF paper,
            :meth:`channel`; needs n k cells). ``prime``: the prime P of the
            universal family, max(k, g) <= P <= 2^31 - 1 (default
            :data:`qifldp.simulation.DEFAULT_PRIME`).

        Returns
        -------
        qifldp.simulation.LHReports

        Raises
        ------
        ParameterError, InputTypeError
            Bad ``xs``, ``rng``, ``hash`` or ``prime``; another option.
        SizeError
            ``hash="uniform"`` with n k beyond :data:`qifldp.MAX_ENTRIES`.

        Notes
        -----
        The universal family is pairwise independent, not fully random, so it is
        *not* the channel of the QIF paper: for x != x' the collision probability
        is :func:`qifldp.simulation.lh_collision_probability` (slightly below 1/g;
        :meth:`estimate` uses the exact value, so it stays unbiased), and the joint
        law of (h(0), ..., h(k-1)) differs, which changes the Bayes vulnerability
        for k >= 3 (compare ``qifldp.asr(universal_lh_channel(k, eps, g, prime))``
        with ``qifldp.asr(qifldp.local_hashing(k, eps, g))``). Use
        ``hash="uniform"`` to simulate the paper's channel exactly. O(n)
        (universal), O(n k) (uniform).

        Examples
        --------
        >>> R = LH(4, 2.0, 3).sample([0, 1, 2, 3], rng=7)
        >>> R.y.shape, int(R.y.max()) < 3, LH(4, 1.0, variant="olh").sample([0], rng=0).g
        ((4,), True, 4)
        """

        opts = method_options("sample", options, hash="universal", prime=DEFAULT_PRIME)
        k, g, p = self.k, self.params["g"], self.params["p"]
        check_choice("hash", opts["hash"], ("universal", "uniform"))
        xs = as_values(xs, k)
        rng = as_rng(rng)
        n = xs.size
        if opts["hash"] == "uniform":
            check_size(n, k, "the hash tables of sample_lh(hash='uniform')", "hash='universal'")
            dtype = np.uint8 if g <= 256 else (np.uint16 if g <= 65536 else np.uint32)
            table = rng.integers(0, g, size=(n, k), dtype=dtype)
            h = table[np.arange(n), xs].astype(np.int64)
            a = b = None
            prime_used = None
        else:
            prime_used = check_prime(opts["prime"], k, g)
            table = None
            a = rng.integers(1, prime_used, size=n, dtype=np.uint32)
            b = rng.integers(0, prime_used, size=n, dtype=np.uint32)
            h = universal_hash(a, b, xs, g, prime_used)
        keep = rng.random(n) < p
        r = rng.integers(0, g - 1, size=n)
        y = np.where(keep, h, r + (r >= h))
        return LHReports(y=y, k=k, g=g, a=a, b=b, prime=prime_used, table=table)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from LH reports of this k and g (either hash family).

        ``reports``: the :class:`~qifldp.simulation.LHReports` of :meth:`sample` (the hash
        family and prime are read from them); returns the float64 estimate of shape (k,).
        Raises InputTypeError when ``reports`` is not an LHReports, ParameterError for
        reports of another k or g, eps = 0, or no reports.

        Notes
        -----
        C_v = #{j : h_j(v) = y_j}; p* = e^eps/(e^eps + g - 1) and q* from
        :meth:`support_probabilities` with the exact collision probability of the
        reports' hash family, so the estimate is unbiased for the universal family
        too (Wang et al. 2017). O(n k).

        Examples
        --------
        >>> import numpy as np
        >>> P = LH(3, 3.0, variant="olh")
        >>> xs = np.repeat([0, 1, 2], [6000, 3000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.6, 0.3, 0.1]
        """

        R = check_lh_reports(reports)
        if (R.k, R.g) != (self.k, self.params["g"]):
            msg = (
                f"reports were sampled with k = {R.k}, g = {R.g}; this protocol has "
                f"k = {self.k}, g = {self.params['g']}"
            )
            raise ParameterError(msg)
        family = R.hash_family
        p, q = self.support_probabilities(hash=family, prime=R.prime)
        if len(R) == 0:
            msg = "reports must not be empty (n >= 1 users)"
            raise ParameterError(msg)
        return calibrate(support_counts(R), len(R), p, q, project=project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) for the hash family that :meth:`sample` uses.

        Parameters
        ----------
        **options
            ``hash``: ``"universal"`` (default) or ``"uniform"``, as :meth:`sample`;
            ``prime``: the prime of the universal family (default
            :data:`qifldp.simulation.DEFAULT_PRIME`, as :meth:`sample`).

        Returns
        -------
        (float, float)
            p* = Pr[h(v) = y | value v], q* = Pr[h(v) = y | another value]; neither
            depends on k.

        Raises
        ------
        ParameterError, InputTypeError
            A bad ``hash`` or ``prime``; another option.

        Notes
        -----
        For x != v: h(v) = h(x) w.p. c (:func:`qifldp.simulation.lh_collision_probability`),
        and then y = h(v) w.p. p*; otherwise y = h(v) w.p. q' = (1 - p*)/(g - 1).
        With c = 1/g (uniform hashing) this is 1/g (Wang et al. 2017). O(1).

        Examples
        --------
        >>> LH(4, 0.0, 4).support_probabilities(hash="uniform")
        (0.25, 0.25)
        """

        opts = method_options("support_probabilities", options, hash="universal", prime=None)
        family = check_choice("hash", opts["hash"], ("universal", "uniform"))
        g, p, qq = self.params["g"], self.params["p"], self.params["q"]
        if family == "uniform":
            return p, 1.0 / g
        prime = DEFAULT_PRIME if opts["prime"] is None else opts["prime"]
        c = lh_collision_probability(g, prime)
        return p, c * p + (1.0 - c) * qq

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the values that hash to the report (:func:`attack_hashes`).

        ``reports``: the :class:`~qifldp.simulation.LHReports` of :meth:`sample`; ``rng``
        draws the guesses. Returns one int64 guess per report; errors as :func:`attack_hashes`.

        Examples
        --------
        >>> P = LH(3, 50.0, 2)
        >>> P.attack(P.sample([0, 1, 2], rng=0), rng=0).shape
        (3,)
        """
        return attack_hashes(reports, rng)


# ----------------------------------------------------------------------------------------
# simulation helpers: the report check and the attack's routes
# ----------------------------------------------------------------------------------------
def check_lh_reports(reports: Any) -> LHReports:
    """``reports`` itself when it is an LHReports; a clear InputTypeError otherwise.

    Examples
    --------
    >>> check_lh_reports([1, 0])
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: reports must be LHReports (from sample_lh), got list
    """

    if not isinstance(reports, LHReports):
        msg = f"reports must be LHReports (from sample_lh), got {type(reports).__name__}"
        raise InputTypeError(msg)
    return reports


def attack_hashes(reports: LHReports, rng: Any = None) -> np.ndarray:
    """Plausible-deniability attack on local hashing: a uniform guess among the values
    hashing to the report, or among all values when none does.

    Parameters
    ----------
    reports : qifldp.simulation.LHReports
    rng : numpy.random.Generator or int, optional
        Picks among the matching values (uniformly).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        A value v with h_j(v) = y_j for each user j (any value when there is none).

    Raises
    ------
    InputTypeError
        ``reports`` is not an LHReports.

    Notes
    -----
    The attack A_LH of the QIF paper (Sec. V-C) and of Arcolezi et al. (2023).
    Bayes-optimal under a uniform prior (the posterior of x is proportional to
    p if h(x) = y, q' otherwise). O(n k) by enumeration; for universal-hash
    reports with k > :data:`LH_REJECTION_RATIO` g, about O(n g) by rejection
    sampling (same law), in memory independent of k. Needs no eps.

    Examples
    --------
    >>> R = LH(3, 50.0, 3).sample([0, 1, 2], rng=0)
    >>> bool(np.all(R.matches()[np.arange(3), attack_hashes(R, rng=0)]))
    True
    """

    R = check_lh_reports(reports)
    gen = as_rng(rng)
    if R.table is None and R.k > LH_REJECTION_RATIO * R.g:
        return _attack_lh_rejection(R, gen)
    out = np.empty(len(R), dtype=np.int64)
    for s, e in row_chunks(len(R), R.k, cells=1 << 20):
        out[s:e] = choose_uniform_true(R.matches(s, e), gen)
    return out


#: attack_lh on universal-hash reports draws its guess by rejection (uniform values
#: until one hashes to the report) when k > LH_REJECTION_RATIO * g, instead of
#: enumerating all k values of every user: about g hash evaluations per user, in
#: memory independent of k.
LH_REJECTION_RATIO: int = 8

#: Candidates per user tried by rejection before the exact enumeration takes over
#: (in multiples of g; the expected number is about g when h(v) = y for ~k/g values).
LH_REJECTION_TRIES: int = 64


def _attack_lh_rejection(R: LHReports, rng: np.random.Generator) -> np.ndarray:
    """Uniform guess among {v : h_j(v) = y_j} per user, by rejection sampling.

    The first hit of i.i.d. uniform candidates is uniform over the hits, so the
    guess has the law of :func:`choose_uniform_true` on the user's match row.
    Users without a hit after ``LH_REJECTION_TRIES * g`` candidates (very few
    matches, or none) are enumerated exactly in blocks of values
    (:func:`_lh_enumerate`); mixing the two routes keeps the law exact.
    """

    n, k, g = len(R), R.k, R.g
    a, b, prime = R.universal_parameters()
    out = np.empty(n, dtype=np.int64)
    active = np.arange(n)
    tried = 0
    while active.size and tried < LH_REJECTION_TRIES * g:
        per_user = max(1, min(4 * g, CHUNK_CELLS // active.size))
        v = rng.integers(0, k, size=(active.size, per_user), dtype=np.int64)
        h = universal_hash(a[active, None], b[active, None], v, g, prime)
        hit = h == R.y[active, None]
        found = hit.any(axis=1)
        first = hit.argmax(axis=1)
        out[active[found]] = v[found, first[found]]
        active = active[~found]
        tried += per_user
    for j in active:
        out[j] = _lh_enumerate(R, int(j), rng)
    return out


def _lh_enumerate(R: LHReports, j: int, rng: np.random.Generator) -> int:
    """Uniform value among {v : h_j(v) = y_j} (uniform over 0..k-1 if empty), in blocks."""

    A, B, prime = R.universal_parameters()
    a, b, y = int(A[j]), int(B[j]), int(R.y[j])
    blocks = [(s, min(R.k, s + CHUNK_CELLS)) for s in range(0, R.k, CHUNK_CELLS)]

    def hits(s: int, e: int) -> np.ndarray:
        return universal_hash(a, b, np.arange(s, e, dtype=np.int64), R.g, prime) == y

    counts = [int(np.count_nonzero(hits(s, e))) for s, e in blocks]
    total = sum(counts)
    if total == 0:
        return int(rng.integers(0, R.k))
    r = int(rng.integers(0, total))
    for (s, e), c in zip(blocks, counts, strict=True):
        if r < c:
            return s + int(np.flatnonzero(hits(s, e))[r])
        r -= c
    raise AssertionError("unreachable: r < total")


__all__ += [
    "LH_REJECTION_RATIO",
    "LH_REJECTION_TRIES",
    "check_lh_reports",
    "attack_hashes",
]


@fill_doc(ORACLE_DOCS)
def universal_lh_channel(k: int, eps: float, g: int, prime: int) -> Channel:
    """The explicit channel of local hashing with the universal family of :func:`sample_lh`.

    Parameters
    ----------
    {k}
    {eps}
    {g}
    prime : int
        A prime P >= max(k, g); keep it small (the channel has P (P − 1) g outputs).

    Returns
    -------
    Channel, shape (k, P (P − 1) g)
        Outputs labelled (a, b, y) with a in 1..P-1, b in 0..P-1, y in 0..g-1;
        C[x, (a, b, y)] = (p if h_{a,b}(x) = y else q') / (P (P − 1)),
        p = e^ε/(e^ε + g − 1), q' = 1/(e^ε + g − 1).

    Raises
    ------
    SizeError
        When k P (P − 1) g exceeds :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    This is the channel that :func:`sample_lh` (``hash="universal"``) realises;
    it differs from the paper's ``local_hashing`` (uniform over all g^k functions).
    O(k P² g).

    Examples
    --------
    >>> import qifldp as q
    >>> C = universal_lh_channel(2, 1.0, 2, prime=3)
    >>> C.shape
    (2, 12)
    """
    k = check_int("k", k, minimum=2)
    g = check_int("g", g, minimum=2)
    eps = check_eps(eps)
    prime = check_prime(prime, k, g)
    n_out = prime * (prime - 1) * g
    check_size(k, n_out, f"universal_lh_channel({k}, {eps}, {g}, {prime})")
    p, qq = lh_probabilities(g, eps)
    a = np.repeat(np.arange(1, prime), prime)
    b = np.tile(np.arange(prime), prime - 1)
    H = universal_hash(a[None, :], b[None, :], np.arange(k)[:, None], g, prime)  # (k, P(P-1))
    match = H[:, :, None] == np.arange(g)[None, None, :]
    M = np.where(match, p, qq) / (prime * (prime - 1))
    outputs = [(int(ai), int(bi), y) for ai, bi in zip(a, b, strict=True) for y in range(g)]
    return Channel(M.reshape(k, n_out), outputs=outputs)


@fill_doc(ORACLE_DOCS)
def universal_lh_asr(k: int, eps: float, g: int, prime: int) -> float:
    """Exact ASR (Bayes vulnerability, uniform prior) of local hashing with the universal family.

    Parameters
    ----------
    {k}
    eps : float
        Privacy parameter of GRR on the hash range.
    {g}
    prime : int
        The prime P of h_{a,b}(x) = ((a x + b) mod P) mod g, max(k, g) <= P; the
        P (P − 1) functions are enumerated, so P (P − 1) k may not exceed
        :data:`qifldp.MAX_ENTRIES` (the default prime of :func:`sample_lh`, 2^31 − 1,
        is far beyond: simulate with ``hash="uniform"`` to compare with the closed
        forms of the QIF paper).

    Returns
    -------
    float
        (g q' + (p − q') E|h([k])|) / k, with p = e^eps/(e^eps + g − 1),
        q' = 1/(e^eps + g − 1) and E|h([k])| the mean number of distinct hash
        values of the k inputs over the family.

    Raises
    ------
    ParameterError, InputTypeError
        Bad k, eps, g, or a prime that is not a prime >= max(k, g).
    SizeError
        P (P − 1) k beyond :data:`qifldp.MAX_ENTRIES`.

    Notes
    -----
    Given the function h and the report y, the posterior of x under the uniform
    prior is proportional to p when h(x) = y and to q' otherwise, so
    Σ_y max_x C[x, (h, y)] = w_h (p |h([k])| + q' (g − |h([k])|)). The
    plausible-deniability attack (a uniform guess among the values hashing to y)
    attains it. This equals ``asr(universal_lh_channel(k, eps, g, prime))``
    without building the channel; with uniformly random functions
    E|h([k])| = g (1 − (1 − 1/g)^k), the paper's Eq. 26. O(P² k) time,
    O(CHUNK_CELLS) memory.

    Examples
    --------
    >>> import qifldp as q
    >>> v = universal_lh_asr(3, 1.0, 2, prime=5)
    >>> round(v, 12) == round(q.asr(universal_lh_channel(3, 1.0, 2, 5)), 12)
    True
    """
    k = check_int("k", k, minimum=2)
    g = check_int("g", g, minimum=2)
    eps = check_eps(eps)
    prime = check_prime(prime, k, g)
    check_size(
        prime * (prime - 1),
        k,
        f"the {prime * (prime - 1)} functions of the universal family (prime {prime})",
        'hash="uniform" (the closed forms) or a smaller prime',
    )
    p, qq = lh_probabilities(g, eps)
    b = np.arange(prime, dtype=np.int64)[None, :, None]
    v = np.arange(k, dtype=np.int64)[None, None, :]
    step = max(1, CHUNK_CELLS // (prime * k))
    total = 0
    for start in range(1, prime, step):
        a = np.arange(start, min(prime, start + step), dtype=np.int64)[:, None, None]
        h = ((a * v + b) % prime) % g  # (na, P, k)
        rows = np.repeat(np.arange(h.shape[0] * prime), k)
        seen = np.zeros((h.shape[0] * prime, g), dtype=bool)
        seen[rows, h.ravel()] = True
        total += int(np.count_nonzero(seen))
    image = total / (prime * (prime - 1))
    return float((g * qq + (p - qq) * image) / k)


__all__ += ["universal_lh_asr"]
