"""Leakage measures of symbolic channels, registered into the numeric singledispatch measures.

Every measure of the form Σ_y max(...) must decide, column by column, which
candidate is the largest for every admissible parameter value. The decision is
made by :func:`compare` (see :mod:`qifldp.symbolic._sign` for the procedures:
sympy assumptions, exact Sturm root counting for one parameter, factorisation,
user relations such as ``p > q``, rigorous interval arithmetic). A candidate is
kept only when it is *proven* to dominate; when no single candidate can be proven
to dominate the others, the column contributes an unevaluated ``Max`` of the
undominated candidates, so the result is always correct, at worst less explicit.

Each measure also accepts an explicit :class:`qifldp.Channel` (up to
``MAX_CONVERTED_ENTRIES`` entries), converted to exact rationals by
:func:`~qifldp.symbolic.channel.as_symbolic` (the decimal reading of a row when
it sums to exactly 1, else its stored binary values divided by their exact sum),
and a nested sequence or sympy Matrix (validated as a :class:`SymbolicChannel`);
a symmetric channel is an InputTypeError that points to the numeric measures.

>>> import qifldp as q
>>> from qifldp import symbolic
>>> symbolic.asr(q.Channel([[0.75, 0.25], [0.25, 0.75]]))
3/4
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from math import gcd
from typing import TYPE_CHECKING, Any

from .lazy import sympy as _lazy_sympy

if TYPE_CHECKING:
    import sympy as sp
else:
    sp = _lazy_sympy

from .. import measures as _m
from ..errors import ChannelError, GainError, InputTypeError, ParameterError, PriorError
from . import _sign
from .channel import SymbolicChannel, as_symbolic
from .expressions import _relations, to_expr

__all__ = [
    "bayes_capacity",
    "bayes_vulnerability",
    "g_vulnerability",
    "ldp_epsilon",
    "max_case_capacity",
    "asr",
    "min_entropy_leakage",
    "channel_prior_vulnerability",
    "tradeoff_point",
    "compare",
    "tidy",
]


# -- deciding maxima -----------------------------------------------------------------------
class _Decider:
    """Pairwise comparisons under a channel's domains and relations, cached."""

    def __init__(self, domains: dict, assume: Iterable[Any]) -> None:
        self.domains = domains
        self.assume = tuple(assume)
        self.cache: dict = {}
        self.undecided = 0

    def ge(self, a: sp.Expr, b: sp.Expr) -> bool | None:
        """True if a >= b everywhere, False if b >= a everywhere, None otherwise."""
        if a == b:
            return True
        key = (a, b)
        if key in self.cache:
            return self.cache[key]
        c = _sign.sign_class(a - b, self.domains, self.assume)
        r = (
            True
            if c in (_sign.POS, _sign.NONNEG, _sign.ZERO)
            else False
            if c in (_sign.NEG, _sign.NONPOS)
            else None
        )
        self.cache[key] = r
        self.cache[(b, a)] = None if r is None else not r if c != _sign.ZERO else True
        return r

    def extreme(self, cands: Iterable[sp.Expr], largest: bool = True) -> sp.Expr:
        """The proven maximum (or minimum) of ``cands``, else Max/Min of the undominated."""
        best: list[sp.Expr] = []
        for c in dict.fromkeys(cands):
            dominated = False
            keep = []
            for b in best:
                r = self.ge(b, c) if largest else self.ge(c, b)
                if r is True:
                    dominated = True
                    keep = best
                    break
                if r is False:
                    continue  # c dominates b
                keep.append(b)
            best = keep if dominated else [*keep, c]
        if len(best) == 1:
            return best[0]
        self.undecided += 1
        return sp.Max(*best) if largest else sp.Min(*best)


def compare(a: Any, b: Any, domains: dict | None = None, assume: Iterable[Any] = ()) -> str | None:
    """Decide how two expressions compare for every admissible parameter value.

    Parameters
    ----------
    a, b : sympy expressions
    domains : dict, optional
        ``{symbol: Interval}``; a symbol without a domain ranges over what its
        sympy assumptions allow (and is treated as complex if none).
    assume : iterable of sympy relationals
        Facts such as ``p > q``.

    Returns
    -------
    str or None
        ``">"``, ``">="``, ``"=="``, ``"<="``, ``"<"`` (on the interior of the
        domains), ``"indefinite"`` (proven to take both orders), or ``None``
        (undecided).

    Examples
    --------
    >>> import sympy as sp
    >>> eps = sp.Symbol("eps", nonnegative=True)
    >>> compare(sp.exp(eps), 1 + eps)
    '>='
    >>> compare(sp.exp(eps), 2)
    'indefinite'
    """
    c = _sign.sign_class(
        to_expr(a, "a") - to_expr(b, "b"), _domains_arg(domains), _relations(assume)
    )
    return {
        _sign.POS: ">",
        _sign.NONNEG: ">=",
        _sign.ZERO: "==",
        _sign.NONPOS: "<=",
        _sign.NEG: "<",
        _sign.INDEF: "indefinite",
    }.get(c)  # type: ignore[arg-type]


def tidy(expr: Any, domains: dict | None = None) -> sp.Expr:
    """A compact form of a measure: one rational function of exp(s/m) when possible.

    When ``expr`` depends on a single parameter ``s`` only through ``exp(c s)``
    (rational c), it is rewritten as a rational function of t = exp(s/m),
    cancelled and factored, and t substituted back; otherwise ``sympy.cancel``
    and a factorisation in exponential generators (exp(eps theta / 2), ...) are
    tried and the shortest form kept. The value is unchanged.

    Examples
    --------
    >>> import sympy as sp
    >>> e = sp.Symbol("eps")
    >>> tidy(3 * sp.exp(e) / (sp.exp(e) + 2) + 0 * e)
    3*exp(eps)/(exp(eps) + 2)
    >>> tidy(sp.exp(e) / (sp.exp(e / 2) + 1) - 1 / (sp.exp(e / 2) + 1))
    exp(eps/2) - 1
    """
    e = to_expr(expr, "expr")
    _domains_arg(domains)
    if e.has(sp.Max, sp.Min) or not e.free_symbols:
        return sp.nsimplify(e) if e.is_Float else e
    free = e.free_symbols
    if len(free) == 1:
        (s,) = free
        exps = [a for a in e.atoms(sp.exp) if s in a.free_symbols]
        coeffs = [sp.cancel(a.args[0] / s) for a in exps]
        if all(c.is_Rational for c in coeffs):
            m = reduce(lambda u, v: u * v // gcd(u, v), (int(c.q) for c in coeffs), 1)
            t = sp.Dummy("t", positive=True)
            et = e.xreplace({a: t ** int(c * m) for a, c in zip(exps, coeffs, strict=True)})
            if exps and s not in et.free_symbols:
                r = sp.factor(sp.cancel(sp.together(et)))
                return r.xreplace({t: sp.exp(s / m)})
    best = e
    try:
        eg, gens = _sign.exp_generators(e)
        cands = [sp.cancel(sp.together(e))]
        if gens:
            cands.append(sp.factor(sp.cancel(sp.together(eg))).xreplace(gens))
    except sp.PolynomialError:
        return e
    for c in cands:
        if sp.count_ops(c) < sp.count_ops(best):
            best = c
    return best


# -- input helpers ---------------------------------------------------------------------------
def _check_flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        msg = f"{name} must be True or False, got {value!r}"
        raise InputTypeError(msg)


def _domains_arg(domains: Any) -> dict:
    """``domains`` of :func:`compare` / :func:`tidy` as {Symbol: Interval}."""
    if domains is None:
        return {}
    if not isinstance(domains, dict):
        msg = (
            "domains must be a dict {symbol: interval} (a sympy Interval or a (low, high) "
            f"pair), got {type(domains).__name__}"
        )
        raise InputTypeError(msg)
    return SymbolicChannel._check_domains(domains)


def _prior(C: SymbolicChannel, prior: Any, dec: _Decider) -> list[sp.Expr]:
    n = C.n_inputs
    if prior is None:
        return [sp.Rational(1, n)] * n
    if isinstance(prior, (str, bytes)):
        msg = "prior must be a sequence of probabilities"
        raise InputTypeError(msg)
    try:
        pi = [to_expr(v, f"prior[{i}]") for i, v in enumerate(prior)]
    except TypeError:
        msg = "prior must be a sequence of probabilities"
        raise InputTypeError(msg) from None
    if len(pi) != n:
        msg = f"prior must have one entry per input ({n}), got {len(pi)}"
        raise PriorError(msg)
    for i, v in enumerate(pi):
        c = _sign.sign_class(v, dec.domains, dec.assume)
        if c == _sign.NEG:
            msg = f"prior entries must be non-negative, prior[{i}] = {v} is negative"
            raise PriorError(msg)
    if _sign.is_identically_zero(sp.Add(*pi) - 1, dec.domains) is False:
        msg = f"prior must sum to 1, it sums to {sp.simplify(sp.Add(*pi))}"
        raise PriorError(msg)
    return pi


def _gain(C: SymbolicChannel, gain: Any) -> list[list[sp.Expr]]:
    n = C.n_inputs
    if callable(gain) and not isinstance(gain, sp.Basic):
        rows = [[gain(w, x) for x in range(n)] for w in range(n)]
    elif isinstance(gain, sp.MatrixBase):
        rows = gain.tolist()
    else:
        try:
            rows = [list(r) for r in gain]
        except TypeError:
            msg = (
                "gain must be a 2-D sequence (n_actions x n_inputs), a sympy Matrix "
                "or a callable g(w, x)"
            )
            raise InputTypeError(msg) from None
    if not rows or any(len(r) != n for r in rows):
        msg = f"gain must have shape (n_actions >= 1, {n}) (one column per input)"
        raise GainError(msg)
    return [[to_expr(v, f"gain[{w}, {x}]") for x, v in enumerate(r)] for w, r in enumerate(rows)]


def _sum_of_maxima(columns: Iterable[list[sp.Expr]], dec: _Decider) -> sp.Expr:
    memo: dict = {}
    terms = []
    for cands in columns:
        key = frozenset(cands)
        if key not in memo:
            memo[key] = dec.extreme(cands)
        terms.append(memo[key])
    return sp.Add(*terms)


def _finish(expr: sp.Expr, C: SymbolicChannel, simplify: bool) -> sp.Expr:
    return tidy(expr, C.domains) if simplify else expr


# -- the measures ----------------------------------------------------------------------------
def bayes_capacity(C: SymbolicChannel, *, simplify: bool = True) -> sp.Expr:
    """Multiplicative Bayes capacity ML(C) = Σ_y max_x C[x, y] as a sympy expression.

    Parameters
    ----------
    C : SymbolicChannel
        Or an explicit ``qifldp.Channel`` / matrix, converted exactly by
        :func:`qifldp.symbolic.channel.as_symbolic`.
    simplify : bool
        Return the :func:`tidy` form (default) instead of the raw sum.

    Returns
    -------
    sympy.Expr
        Exact; contains an unevaluated ``Max`` for each column whose maximum could
        not be proven (the Notes of :mod:`qifldp.symbolic.measures`).

    Notes
    -----
    The book, Thm. 7.2. Columns with the same set of entries are decided once;
    cost O(|X| |Y|) plus one sign decision per distinct pair of entries.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.bayes_capacity(symbolic.grr(3, "eps"))
    3*exp(eps)/(exp(eps) + 2)
    """
    C = as_symbolic(C)
    _check_flag("simplify", simplify)
    dec = _Decider(C.domains, C.assume)
    M = C.matrix
    cols = ([M[i, j] for i in range(M.rows)] for j in range(M.cols))
    return _finish(_sum_of_maxima(cols, dec), C, simplify)


def bayes_vulnerability(C: SymbolicChannel, prior: Any = None, *, simplify: bool = True) -> sp.Expr:
    """Posterior Bayes vulnerability V1[π▷C] = Σ_y max_x π_x C[x, y].

    Parameters
    ----------
    C : SymbolicChannel
        Or an explicit ``qifldp.Channel`` / matrix, converted exactly by
        :func:`qifldp.symbolic.channel.as_symbolic`.
    prior : sequence of numbers or expressions, optional
        Defaults to uniform. Rejected only when provably not a distribution.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.bayes_vulnerability(symbolic.grr(2, "eps"), [1, 0])
    1

    With prior (3/4, 1/4) the guess on output 1 depends on whether e^eps >= 3,
    which no single expression covers for all eps >= 0, so a ``Max`` remains:

    >>> import sympy as sp
    >>> q.bayes_vulnerability(symbolic.grr(2, "eps"), [sp.Rational(3, 4), sp.Rational(1, 4)])
    Max(exp(eps)/(4*(exp(eps) + 1)), 3/(4*(exp(eps) + 1))) + 3*exp(eps)/(4*(exp(eps) + 1))
    """
    C = as_symbolic(C)
    _check_flag("simplify", simplify)
    dec = _Decider(C.domains, C.assume)
    pi = _prior(C, prior, dec)
    M = C.matrix
    cols = ([pi[i] * M[i, j] for i in range(M.rows)] for j in range(M.cols))
    return _finish(_sum_of_maxima(cols, dec), C, simplify)


def g_vulnerability(
    C: SymbolicChannel, gain: Any, prior: Any = None, *, simplify: bool = True
) -> sp.Expr:
    """Posterior g-vulnerability V_g[π▷C] = Σ_y max_w Σ_x π_x C[x, y] g(w, x).

    Parameters
    ----------
    C : SymbolicChannel
        Or an explicit ``qifldp.Channel`` / matrix, converted exactly by
        :func:`qifldp.symbolic.channel.as_symbolic`.
    gain : 2-D sequence or sympy Matrix of shape (n_actions, |X|), or callable g(w, x)
    prior : sequence, optional
        Defaults to uniform.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.g_vulnerability(symbolic.grr(2, "eps"), [[1, 0], [0, 1]])
    exp(eps)/(exp(eps) + 1)
    """
    C = as_symbolic(C)
    _check_flag("simplify", simplify)
    dec = _Decider(C.domains, C.assume)
    pi = _prior(C, prior, dec)
    G = _gain(C, gain)
    M = C.matrix
    cols = (
        [sp.Add(*(pi[x] * M[x, j] * G[w][x] for x in range(M.rows))) for w in range(len(G))]
        for j in range(M.cols)
    )
    return _finish(_sum_of_maxima(cols, dec), C, simplify)


def channel_prior_vulnerability(
    C: SymbolicChannel, gain: Any = None, prior: Any = None, *, nonnegative: bool = False
) -> sp.Expr:
    """Prior vulnerability V_g(π) = max_w Σ_x π_x g(w, x) over the inputs of C.

    The prior half of the leakages (:func:`qifldp.multiplicative_leakage` ...);
    the maximum is proven under C's parameter domains (else a ``Max`` remains).

    Parameters
    ----------
    C : SymbolicChannel
        Or an explicit ``qifldp.Channel`` / matrix (only its inputs are used).
    gain : 2-D sequence, sympy Matrix or callable g(w, x), optional
        Defaults to the identity gain (V1(π) = max_x π_x).
    prior : sequence, optional
        Defaults to uniform.
    nonnegative : bool
        Reject a gain entry that is provably negative.

    Examples
    --------
    >>> import sympy as sp
    >>> from qifldp import symbolic
    >>> third = sp.Rational(1, 3)
    >>> channel_prior_vulnerability(symbolic.grr(2, "eps"), prior=[third, 1 - third])
    2/3
    """
    C = as_symbolic(C)
    _check_flag("nonnegative", nonnegative)
    dec = _Decider(C.domains, C.assume)
    pi = _prior(C, prior, dec)
    if gain is None:
        return dec.extreme(pi)
    G = _gain(C, gain)
    if nonnegative:
        for w, row in enumerate(G):
            for x, v in enumerate(row):
                if _sign.sign_class(v, dec.domains, dec.assume) == _sign.NEG:
                    msg = (
                        "gain must be non-negative for multiplicative leakage, "
                        f"gain[{w}, {x}] = {v} is negative"
                    )
                    raise GainError(msg)
    return dec.extreme([sp.Add(*(p * g for p, g in zip(pi, row, strict=True))) for row in G])


# The derived measures are the generic ones of qifldp.measures, written once over the
# primitives; these entry points only read an explicit channel exactly first.
def asr(C: Any, *, simplify: bool = True) -> sp.Expr:
    """Attack success rate ML(C) / |X| (uniform prior, one-try guess), exactly.

    The generic :func:`qifldp.asr` on :func:`~qifldp.symbolic.channel.as_symbolic` of C.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.asr(symbolic.grr(3, "eps"))
    exp(eps)/(exp(eps) + 2)
    """
    _check_flag("simplify", simplify)
    return _m.asr(as_symbolic(C), simplify=simplify)


def min_entropy_leakage(C: Any, prior: Any = None) -> sp.Expr:
    """Min-entropy leakage log2(V1[π▷C] / V1(π)) in bits, exactly.

    The generic :func:`qifldp.min_entropy_leakage` on ``as_symbolic(C)``.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.min_entropy_leakage(symbolic.grr(2, "eps").subs(eps=0))
    0
    """
    return _m.min_entropy_leakage(as_symbolic(C), prior)


def max_case_capacity(C: Any) -> sp.Expr:
    """Multiplicative max-case capacity e^{ldp_epsilon(C)}: the largest likelihood ratio.

    The generic :func:`qifldp.max_case_capacity` on ``as_symbolic(C)``; ``sympy.oo``
    when a column mixes zero and positive entries.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.max_case_capacity(symbolic.sue(3, "eps"))
    exp(eps)
    """
    return _m.max_case_capacity(as_symbolic(C))


def _zero_status(e: sp.Expr, C: SymbolicChannel) -> bool | None:
    """True: identically 0; False: positive for generic parameter values."""
    if e == 0:
        return True
    c = _sign.sign_class(e, C.domains, C.assume)
    if c == _sign.ZERO:
        return True
    if c in (_sign.POS, _sign.NONNEG):
        z = _sign.is_identically_zero(e, C.domains, heavy=False)
        return None if z is None and c == _sign.NONNEG else (True if z else False)
    return None


def _ratios(C: SymbolicChannel, neighbors: Any) -> tuple[list[sp.Expr], bool]:
    """Per column, the largest ratio of compared entries; flag for a zero/positive mix."""
    dec = _Decider(C.domains, C.assume)
    M = C.matrix
    status: dict = {}

    def zero(e: sp.Expr) -> bool:
        if e not in status:
            z = _zero_status(e, C)
            if z is None:
                msg = (
                    f"cannot decide whether the entry {e} is zero; the LDP epsilon would be "
                    "infinite exactly where it vanishes (substitute values first)"
                )
                raise ParameterError(msg)
            status[e] = z
        return status[e]

    if neighbors is None:
        pairs = None
    else:
        pairs = [tuple(p) for p in _m._check_neighbors(neighbors, C.n_inputs)]
    ratios = []
    memo: dict = {}
    for j in range(M.cols):
        col = [M[i, j] for i in range(M.rows)]
        if pairs is None:
            groups = [col]
        else:
            groups = [[col[a], col[b]] for a, b in pairs]
        for g in groups:
            key = frozenset(g)
            if key in memo:
                r = memo[key]
            else:
                zs = [zero(e) for e in key]
                if all(zs):
                    r = None
                elif any(zs):
                    return [], True
                else:
                    r = tidy(dec.extreme(key) / dec.extreme(key, largest=False), C.domains)
                memo[key] = r
            if r is not None:
                ratios.append(r)
    return ratios, False


def ldp_epsilon(C: SymbolicChannel, neighbors: Any = None) -> sp.Expr:
    """The true LDP epsilon ln max_y max_{x, x'} C[x, y] / C[x', y] as an expression.

    Parameters
    ----------
    C : SymbolicChannel
        Or an explicit ``qifldp.Channel`` / matrix, converted exactly by
        :func:`qifldp.symbolic.channel.as_symbolic`.
    neighbors : iterable of (i, j), optional
        Only these (unordered) pairs of input indices count.

    Returns
    -------
    sympy.Expr
        ``sympy.oo`` when a compared column mixes a zero and a positive entry;
        0 when every compared entry is zero; ``log(Max(...))`` when the largest
        ratio cannot be decided.

    Raises
    ------
    ParameterError
        When an entry can be neither proven identically zero nor positive for
        generic parameter values.

    Notes
    -----
    Per column, the ratio of the proven largest to the proven smallest entry;
    the logarithm is expanded with the parameters made real by their domains
    (``log(exp(eps)) = eps``).

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp import symbolic
    >>> q.ldp_epsilon(symbolic.grr(4, "eps"))
    eps
    >>> q.ldp_epsilon(symbolic.oue(3, "eps"))
    eps

    The OUE *bit* channel alone is not eps-DP between the two bits:

    >>> q.ldp_epsilon(symbolic.oue_bit("eps"))
    log(exp(eps)/2 + 1/2)
    """
    C = as_symbolic(C)
    ratios, infinite = _ratios(C, neighbors)
    if infinite:
        return sp.oo
    if not ratios:
        return sp.Integer(0)
    dec = _Decider(C.domains, C.assume)
    R = tidy(dec.extreme(ratios), C.domains)
    d, back = _sign.with_assumptions(R, C.domains)
    L = sp.expand_log(sp.log(d), force=True) if d.is_positive else sp.log(d)
    return L.xreplace(back)


def tradeoff_point(C: SymbolicChannel, *, exact: bool | None = None) -> tuple[Any, Any]:
    """The trade-off point (alpha, beta) of a 2x2 channel [[1 - alpha, alpha], [beta, 1 - beta]].

    Parameters
    ----------
    C : SymbolicChannel, shape (2, 2)
    exact : bool, optional
        None (default): sympy expressions; True: ``Fraction`` values (the channel must
        have rational entries); False: floats (no parameters may remain).

    Raises
    ------
    ChannelError
        C is not 2x2.

    Examples
    --------
    >>> from qifldp import symbolic
    >>> symbolic.tradeoff_point(symbolic.oue_bit("eps"))
    (1/(exp(eps) + 1), 1/2)
    """
    C = as_symbolic(C)
    if exact is not None and not isinstance(exact, bool):
        msg = f"exact must be None, True or False, got {exact!r}"
        raise InputTypeError(msg)
    if C.shape != (2, 2):
        msg = f"C must be a 2x2 channel (two secrets, two outputs), got shape {C.shape}"
        raise ChannelError(msg)
    if exact is None:
        return (C[0, 1], C[1, 0])
    if exact:
        rows = C.to_fractions()
        return (rows[0][1], rows[1][0])
    if C.free_symbols:
        msg = "exact=False needs a channel without parameters (substitute them first)"
        raise ParameterError(msg)
    return (float(sp.N(C[0, 1], 20)), float(sp.N(C[1, 0], 20)))


# -- the scalar steps of the derived measures on sympy values -----------------------------
def _exp(x: sp.Basic) -> sp.Expr:
    return tidy(sp.exp(x))


def _log2(x: sp.Basic) -> sp.Expr:
    return sp.simplify(sp.log(x) / sp.log(2))


def _nonpositive(x: sp.Basic) -> bool:
    return bool(x.is_nonpositive)
