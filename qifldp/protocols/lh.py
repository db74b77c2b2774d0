"""Local hashing (LH, BLH, OLH) as a protocol object: the cascade of the encoding E and GRR."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel, check_size, guard_size
from ..errors import ParameterError
from ..validation import check_choice, check_eps
from .base import ClosedForm, Protocol, size_alternative
from .params import check_g, check_k, grr_expressions, lh_probabilities, log_grr, olh_g

if TYPE_CHECKING:
    from ..simulation import LHReports
    from ..symbolic import SymbolicChannel
    from ..symmetric import SymmetricChannel

__all__ = [
    "LH",
    "LHClosedForm",
    "lh_encoding",
    "lh_perturbation",
    "guard_olh_estimate",
    "OLH_EXACT_G_EPS",
    "symbolic_local_hashing",
    "symbolic_blh",
    "symbolic_olh",
]

#: Above this eps, OLH's channel is refused from log10 g ~ eps / ln 10 alone (it has
#: more than (e^50)^3 entries), without forming the huge integer g^(k+1).
OLH_EXACT_G_EPS: float = 50.0


def symbolic_local_hashing(k: int, eps: Any, g: int) -> SymbolicChannel:
    """Local hashing (the encoding, then GRR over [g]) as a symbolic channel.

    ``qifldp.symbolic.local_hashing``.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    eps : sympy expression, number or symbol name
        Privacy parameter (domain [0, oo)).
    g : int
        Hash range, ``g >= 2``.

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
    from ..symbolic.channel import EPS_DOMAIN, SymbolicParameters, guard_symbolic_size

    k = check_k(k)
    g = check_g(g)
    size = (k + 1) * math.log10(g)
    guard_symbolic_size("local_hashing", (k, "eps", g), k, size, lambda: g ** (k + 1))
    P = SymbolicParameters()
    hit, miss = grr_expressions(g, P.take("eps", eps, EPS_DOMAIN), scale=g**k)
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
    from ..symbolic.channel import EPS_DOMAIN, SymbolicParameters

    k = check_k(k)
    e = SymbolicParameters().take("eps", eps, EPS_DOMAIN)
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


def lh_encoding(k: int, g: int) -> Channel:
    """The encoding channel E of local hashing: a uniform hash function and the hash of x.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2``.
    g : int
        Hash range, ``g >= 2``.

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


def lh_perturbation(k: int, eps: float, g: int) -> Channel:
    """The perturbation channel G of local hashing: keep h, apply GRR_g to the hash value.

    Parameters
    ----------
    k : int
        Domain size, ``k >= 2`` (hash functions are k-tuples).
    eps : float
        Privacy parameter of the GRR on the hash range.
    g : int
        Hash range, ``g >= 2``.

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


class LHClosedForm(ClosedForm):
    """Closed forms of local hashing (QIF paper Sec. V-C and its corrected Eq. 27).

    Examples
    --------
    >>> import qifldp as q
    >>> q.protocol("blh", 4, 1.0).closed_form.ldp_epsilon()
    1.0
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of LH: the QIF paper's corrected Eq. 27 (:func:`qifldp.formulas.bayes_capacity_lh`).

        OLH uses :func:`qifldp.formulas.bayes_capacity_olh` (log space for large
        eps, where g has hundreds of digits), BLH ``bayes_capacity_blh``.

        Examples
        --------
        >>> import math, qifldp as q
        >>> round(q.protocol("lh", 2, math.log(3), g=2).closed_form.bayes_capacity(), 12)
        1.25
        """
        from .. import formulas

        P = self._protocol
        if P.name == "olh":
            return float(formulas.bayes_capacity_olh(P.k, P.eps))
        if P.name == "blh":
            return float(formulas.bayes_capacity_blh(P.k, P.eps))
        return float(formulas.bayes_capacity_lh(P.k, P.eps, P.params["g"]))

    def asr_gursoy(self) -> float:
        """The earlier LH attack formula (the QIF paper's Eq. 25, from Gursoy et al.), kept
        to show where it is wrong (:func:`qifldp.formulas.asr_lh_gursoy`).

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("olh", 3, 1.0).closed_form
        >>> cf.asr_gursoy() != cf.asr()
        True
        """
        from .. import formulas

        P = self._protocol
        return float(formulas.asr_lh_gursoy(P.k, P.eps, P.params["g"]))

    def ldp_epsilon(self) -> float:
        """eps: GRR_g on the hashed value is eps-LDP and the encoding is post-processed
        (Wang et al., USENIX Security 2017, Sec. 4.4); the bound is attained.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("olh", 4, 2.0).closed_form.ldp_epsilon()
        2.0
        """
        return self._protocol.eps


class LH(Protocol):
    """Local hashing: a uniform hash h: [k] -> [g], then GRR on h(x); output (h, value).

    Parameters
    ----------
    k, eps : int, float
        Domain size (``k >= 2``) and privacy parameter (finite, ``>= 0``).
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
        from ..symmetric.channel import SymmetricChannel
        from ..symmetric.operators import one_hot_classes

        k, eps, g = self.k, self.eps, self._params["g"]
        lp, l1mp = self._log
        s, log_in, log_out, _ = one_hot_classes(k, lp, l1mp, -math.log(g), math.log1p(-1.0 / g))
        name = f"local_hashing(k={k}, eps={eps:g}, g={g})"
        return SymmetricChannel._make(k, s, log_in, log_out, name, ("lh", g), log_ratio=eps)

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """LH as a symbolic channel (:func:`symbolic_local_hashing` with this g).

        ``eps`` may be a symbol; g stays the protocol's (for OLH, round(e^eps + 1)
        at the protocol's eps).

        Examples
        --------
        >>> LH(2, 1.0, variant="blh").symbolic(eps="e").shape
        (2, 8)
        """
        values = self._symbols(symbols, ("eps",))
        return symbolic_local_hashing(self.k, values["eps"], self._params["g"])

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> LHReports:
        """Reports for n users (``qifldp.simulation.sample_lh``; options ``hash``, ``prime``).

        Examples
        --------
        >>> LH(4, 1.0, variant="olh").sample([0, 1], rng=0).g
        4
        """
        from ..simulation import sample_lh

        return sample_lh(xs, self.k, self.eps, self._params["g"], rng, **options)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies (``qifldp.simulation.estimate_lh``); reports of this k and g.

        Raises
        ------
        ParameterError
            Reports sampled with another k or g.

        Examples
        --------
        >>> import numpy as np
        >>> P = LH(3, 3.0, variant="olh")
        >>> xs = np.repeat([0, 1, 2], [6000, 3000, 1000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.6, 0.3, 0.1]
        """
        from ..simulation import LHReports, estimate_lh

        if isinstance(reports, LHReports) and (reports.k, reports.g) != (self.k, self.params["g"]):
            msg = (
                f"reports were sampled with k = {reports.k}, g = {reports.g}; this protocol has "
                f"k = {self.k}, g = {self.params['g']}"
            )
            raise ParameterError(msg)
        return estimate_lh(reports, self.eps, project=project)

    def support_probabilities(
        self, hash: str = "universal", prime: int | None = None
    ) -> tuple[float, float]:
        """(p*, q*) for the hash family that :meth:`sample` uses.

        Parameters
        ----------
        hash : {"universal", "uniform"}
            As :meth:`sample` (default ``"universal"``).
        prime : int, optional
            The prime of the universal family (default
            :data:`qifldp.simulation.DEFAULT_PRIME`, as :meth:`sample`).

        Examples
        --------
        >>> LH(4, 0.0, 4).support_probabilities(hash="uniform")
        (0.25, 0.25)
        """
        from ..simulation import DEFAULT_PRIME, lh_pq_star

        hash = check_choice("hash", hash, ("universal", "uniform"))
        if hash == "uniform":
            return lh_pq_star(self.eps, self._params["g"], None)
        return lh_pq_star(self.eps, self._params["g"], DEFAULT_PRIME if prime is None else prime)

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """A uniform guess among the values that hash to the report (``attack_lh``).

        Examples
        --------
        >>> P = LH(3, 50.0, 2)
        >>> P.attack(P.sample([0, 1, 2], rng=0), rng=0).shape
        (3,)
        """
        from ..simulation import attack_lh

        return attack_lh(reports, rng)
