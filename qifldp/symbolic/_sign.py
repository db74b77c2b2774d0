"""Sign decisions for symbolic expressions over parameter domains (exact where possible).

The symbolic measures need to know which of two entries of a column is larger
for *every* admissible parameter value (e.g. every eps >= 0). This module
decides the sign of an expression over a box of parameter domains with three
sound procedures, tried from the cheapest to the most expensive:

1. sympy's assumption system, after replacing each parameter by a dummy that
   carries the assumptions implied by its domain (eps in [0, oo) -> nonnegative);
2. an exact univariate procedure: when the expression depends on one parameter
   ``s`` only, through ``exp(c*s)`` with rational ``c`` (or polynomially), the
   substitution ``t = exp(s/m)`` turns it into a rational function of ``t`` whose
   sign on the image interval is decided by Sturm root counting of the square-free
   factors of numerator and denominator (sympy ``Poly.count_roots``);
3. factorisation of numerator and denominator, each factor decided by 1, 2, by a
   user relation (``p > q``: a factor that is a constant multiple of ``p - q``),
   or by rigorous interval arithmetic (``mpmath.iv``, outward rounding) over the
   domain box; and interval arithmetic on the whole expression.

Every answer is a proof: ``None`` means "not decided", never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import reduce
from math import gcd
from typing import TYPE_CHECKING

from .lazy import mpmath as _lazy_mpmath, sympy as _lazy_sympy

if TYPE_CHECKING:
    import mpmath
    import sympy as sp
else:
    mpmath = _lazy_mpmath
    sp = _lazy_sympy


__all__: list[str] = []  # private module

# Sign classes.
POS, NONNEG, ZERO, NEG, NONPOS, INDEF = "pos", "nonneg", "zero", "neg", "nonpos", "indefinite"

_SIGN = {POS: (1, True), NONNEG: (1, False), NEG: (-1, True), NONPOS: (-1, False)}


def _from_pair(sign: int, strict: bool) -> str:
    if sign > 0:
        return POS if strict else NONNEG
    return NEG if strict else NONPOS


def _negate(c: str | None) -> str | None:
    return {POS: NEG, NEG: POS, NONNEG: NONPOS, NONPOS: NONNEG}.get(c, c)  # type: ignore[arg-type]


# -- domains -----------------------------------------------------------------------------
def effective_domain(sym: sp.Symbol, domains: Mapping[sp.Symbol, sp.Set]) -> sp.Set | None:
    """The real interval a parameter ranges over, or ``None`` if it may be complex."""
    dom = domains.get(sym)
    if sym.is_positive:
        a = sp.Interval.open(0, sp.oo)
    elif sym.is_nonnegative:
        a = sp.Interval(0, sp.oo)
    elif sym.is_negative:
        a = sp.Interval.open(-sp.oo, 0)
    elif sym.is_nonpositive:
        a = sp.Interval(-sp.oo, 0)
    elif sym.is_extended_real:
        a = sp.Reals
    else:
        a = None
    if dom is None:
        return a
    return dom if a is None else sp.Intersection(dom, a)


def _assumptions_of(dom: sp.Set) -> dict[str, bool]:
    if not isinstance(dom, sp.Interval) and dom != sp.Reals:
        return {"real": True}
    if dom == sp.Reals:
        return {"real": True}
    lo, hi = dom.start, dom.end
    out: dict[str, bool] = {"real": True}
    if lo.is_nonnegative:
        if lo.is_positive or dom.left_open:
            out = {"positive": True}
        else:
            out = {"nonnegative": True}
    elif hi.is_nonpositive:
        if hi.is_negative or dom.right_open:
            out = {"negative": True}
        else:
            out = {"nonpositive": True}
    return out


def with_assumptions(expr: sp.Expr, domains: Mapping[sp.Symbol, sp.Set]):
    """Replace each parameter by a dummy carrying its domain's assumptions.

    Returns the new expression and the reverse substitution (dummy -> symbol).
    """
    fwd, back = {}, {}
    for s in expr.free_symbols:
        dom = effective_domain(s, domains)
        if dom is None or dom.is_empty:
            continue
        d = sp.Dummy(s.name, **_assumptions_of(dom))
        fwd[s], back[d] = d, s
    return expr.xreplace(fwd), back


# -- 1. sympy assumptions ------------------------------------------------------------------
def _by_assumptions(e: sp.Expr) -> str | None:
    if e.is_zero:
        return ZERO
    if e.is_positive:
        return POS
    if e.is_negative:
        return NEG
    if e.is_nonnegative:
        return NONNEG
    if e.is_nonpositive:
        return NONPOS
    return None


def _number_sign(e: sp.Expr) -> str | None:
    """Sign of a constant, by sympy's own numeric sign test (which answers None
    rather than guess when the evaluation cannot separate the value from 0)."""
    if e.is_zero:
        return ZERO
    if e.is_extended_real is False:
        return None
    if e.is_positive:
        return POS
    if e.is_negative:
        return NEG
    if sp.simplify(e) == 0:
        return ZERO
    return None


# -- 2. exact univariate procedure ---------------------------------------------------------
def _rational_point(lo: sp.Expr, hi: sp.Expr) -> sp.Rational:
    if lo.is_finite and hi.is_finite:
        return (lo + hi) / 2
    if lo.is_finite:
        return lo + 1
    if hi.is_finite:
        return hi - 1
    return sp.Integer(0)


def _poly_sign(P: sp.Poly, lo: sp.Expr, hi: sp.Expr) -> str | None:
    """Sign of a nonzero rational polynomial on the open interval (lo, hi)."""
    if P.is_zero:
        return ZERO
    c, factors = P.sqf_list()
    sign = 1 if c > 0 else -1
    strict = True
    x0 = _rational_point(lo, hi)
    a = None if lo == -sp.oo else lo
    b = None if hi == sp.oo else hi
    for f, mult in factors:
        n = f.count_roots(a, b)
        if a is not None and f.eval(a) == 0:
            n -= 1
        if b is not None and f.eval(b) == 0:
            n -= 1
        if n == 0:
            if mult % 2 and f.eval(x0) < 0:
                sign = -sign
        elif mult % 2:
            # f is square-free, so it changes sign at each of its roots, and so does P
            return INDEF
        else:
            strict = False
    return _from_pair(sign, strict)


def _univariate(e: sp.Expr, s: sp.Symbol, dom: sp.Set) -> tuple[str | None, bool]:
    """Decide the sign of ``e(s)`` on ``dom``; second value: e is a rational function
    of exp(s/m) (so "not identically zero" is then also decided)."""
    if not isinstance(dom, sp.Interval) and dom != sp.Reals:
        return None, False
    lo, hi = (-sp.oo, sp.oo) if dom == sp.Reals else (dom.start, dom.end)
    exps = [a for a in e.atoms(sp.exp) if s in a.free_symbols]
    t = sp.Dummy("t", positive=True)
    if exps:
        coeffs = []
        for a in exps:
            c = sp.cancel(a.args[0] / s)
            if not c.is_Rational:
                return None, False
            coeffs.append(c)
        m = reduce(lambda u, v: u * v // gcd(u, v), (int(c.q) for c in coeffs), 1)
        et = e.xreplace({a: t ** int(c * m) for a, c in zip(exps, coeffs, strict=True)})
        if s in et.free_symbols:
            return None, False
        bounds = []
        for v in (lo, hi):
            if v == -sp.oo:
                bounds.append(sp.Integer(0))
            elif v == sp.oo:
                bounds.append(sp.oo)
            elif v == 0:
                bounds.append(sp.Integer(1))
            else:
                return None, False
        tlo, thi = bounds
    else:
        et, tlo, thi = e.xreplace({s: t}), lo, hi
        if not (tlo.is_Rational or tlo == -sp.oo) or not (thi.is_Rational or thi == sp.oo):
            return None, False
    try:
        R = sp.cancel(sp.together(et))
        num, den = sp.fraction(R)
        P, Q = sp.Poly(num, t), sp.Poly(den, t)
    except (sp.PolynomialError, sp.GeneratorsNeeded):
        return None, False
    if P.domain not in (sp.ZZ, sp.QQ) or Q.domain not in (sp.ZZ, sp.QQ):
        return None, False
    if P.is_zero:
        return ZERO, True
    sp_ = _poly_sign(P, tlo, thi)
    sq = _poly_sign(Q, tlo, thi)
    if sq in (None, INDEF, ZERO):
        return None, True  # a pole inside the domain: no single sign
    if sp_ == INDEF:
        return INDEF, True
    s1, st1 = _SIGN[sp_]  # type: ignore[index]
    s2, _ = _SIGN[sq]
    return _from_pair(s1 * s2, st1), True


def exp_generators(e: sp.Expr) -> tuple[sp.Expr, dict]:
    """Rewrite the exponentials of ``e`` as monomials in positive generators.

    Each argument of ``exp`` is a polynomial in the parameters with rational
    coefficients, sum_m c_m m; with d_m the common denominator of the c_m of
    monomial m over all exponentials, X_m = exp(m / d_m) and
    exp(arg) = exp(c_0) prod_m X_m^(c_m d_m). Polynomial algebra (factorisation,
    cancellation) then sees the relations between, e.g., exp(eps theta),
    exp(eps theta / 2) and exp(eps (theta - 1) / 2). Returns the rewritten
    expression and the map generator -> exponential (to substitute back).
    """
    atoms = [a for a in e.atoms(sp.exp) if a.free_symbols]
    if not atoms:
        return e, {}
    syms = sorted(set().union(*(a.free_symbols for a in atoms)), key=lambda u: u.name)
    decomp = {}
    for a in atoms:
        try:
            P = sp.Poly(a.args[0], *syms)
        except sp.PolynomialError:
            continue
        terms = P.terms()
        if any(not c.is_Rational for _, c in terms):
            continue
        decomp[a] = terms
    if not decomp:
        return e, {}
    den: dict = {}
    for terms in decomp.values():
        for mono, c in terms:
            if any(mono):
                d = den.get(mono, 1)
                den[mono] = d * int(c.q) // gcd(d, int(c.q))
    gen = {mono: sp.Dummy("X", positive=True) for mono in den}
    back = {}
    for mono, X in gen.items():
        m = sp.Mul(*(s**k for s, k in zip(syms, mono, strict=True)))
        back[X] = sp.exp(m / den[mono])
    repl = {}
    for a, terms in decomp.items():
        val = sp.Integer(1)
        for mono, c in terms:
            if any(mono):
                val *= gen[mono] ** int(c * den[mono])
            else:
                val *= sp.exp(c)
        repl[a] = val
    return e.xreplace(repl), back


# -- 3a. interval arithmetic ---------------------------------------------------------------
class _NoInterval(Exception):
    pass


def _iv(e: sp.Expr, box: Mapping[sp.Symbol, object]):
    iv = mpmath.iv
    if e.is_Symbol:
        if e not in box:
            raise _NoInterval
        return box[e]
    if e.is_Integer:
        return iv.mpf(int(e))
    if e.is_Rational:
        return iv.mpf(int(e.p)) / iv.mpf(int(e.q))
    if e is sp.E:
        return iv.e
    if e is sp.pi:
        return iv.pi
    if e.is_Add:
        return reduce(lambda u, v: u + v, (_iv(a, box) for a in e.args))
    if e.is_Mul:
        return reduce(lambda u, v: u * v, (_iv(a, box) for a in e.args))
    if isinstance(e, sp.exp):
        a = e.args[0]
        r = _iv(a, box)
        fa = sp.factor(a) if a.is_Add else a
        if fa != a:  # the factored argument has fewer repeated variables: intersect
            r2 = _iv(fa, box)
            lo, hi = max(r.a, r2.a), min(r.b, r2.b)
            r = iv.mpf([lo, hi])
        return iv.exp(r)
    if isinstance(e, sp.log):
        return iv.log(_iv(e.args[0], box))
    if e.is_Pow:
        b, x = e.args
        if x.is_Integer:
            B = _iv(b, box)
            n = int(x)
            if n >= 0:
                return B**n
            return iv.mpf(1) / (B ** (-n))
        if x == sp.Rational(1, 2):
            return iv.sqrt(_iv(b, box))
        if x == -sp.Rational(1, 2):
            return iv.mpf(1) / iv.sqrt(_iv(b, box))
    raise _NoInterval


def _endpoint(v: sp.Expr):
    """An interval enclosing the real number (or infinity) ``v``."""
    iv = mpmath.iv
    if v == sp.oo:
        return iv.mpf([mpmath.inf, mpmath.inf])
    if v == -sp.oo:
        return iv.mpf([-mpmath.inf, -mpmath.inf])
    if v.is_Rational:
        return iv.mpf(int(v.p)) / iv.mpf(int(v.q))
    w = sp.N(v, 30)
    return iv.mpf([str(w - sp.Float("1e-25", 30)), str(w + sp.Float("1e-25", 30))])


def _box(symbols: Iterable[sp.Symbol], domains: Mapping[sp.Symbol, sp.Set]) -> dict | None:
    box = {}
    for s in symbols:
        dom = effective_domain(s, domains)
        if dom is None:
            return None
        if dom == sp.Reals:
            lo, hi = -mpmath.inf, mpmath.inf
        elif isinstance(dom, sp.Interval):
            lo, hi = _endpoint(dom.start).a, _endpoint(dom.end).b
        else:
            return None
        box[s] = mpmath.iv.mpf([lo, hi])
    return box


def _enclose(e: sp.Expr, box: Mapping[sp.Symbol, object]):
    try:
        r = _iv(e, box)
    except (_NoInterval, ZeroDivisionError, ValueError, TypeError, OverflowError):
        return None
    if mpmath.isnan(r.a) or mpmath.isnan(r.b):
        return None
    return r


def _lower(e: sp.Expr, box: dict, fixed: frozenset, depth: int):
    """A rigorous lower bound of ``e`` over ``box``: interval arithmetic, sharpened
    by fixing a variable in which ``e`` is provably monotone at the minimising end."""
    r = _enclose(e, box)
    if r is None:
        return None
    best = r.a
    if best > 0 or depth == 0:
        return best
    for v in sorted(e.free_symbols - fixed, key=lambda u: u.name):
        d = _enclose(sp.diff(e, v), box)
        if d is None:
            continue
        if d.a >= 0 and mpmath.isfinite(box[v].a):
            pt = box[v].a
        elif d.b <= 0 and mpmath.isfinite(box[v].b):
            pt = box[v].b
        else:
            continue
        sub = _lower(e, {**box, v: mpmath.iv.mpf([pt, pt])}, fixed | {v}, depth - 1)
        if sub is not None and sub > best:
            best = sub
        break
    return best


def _by_intervals(e: sp.Expr, domains: Mapping[sp.Symbol, sp.Set], depth: int = 3) -> str | None:
    """Sign by rigorous interval bounds (mpmath.iv) over the domain box.

    Plain interval arithmetic overestimates when a variable occurs several times;
    where a partial derivative has a provable sign the variable is fixed at the
    end of its interval that minimises (maximises) the expression (monotonicity),
    up to ``depth`` variables deep.
    """
    box = _box(e.free_symbols, domains)
    if box is None:
        return None
    if e.has(sp.exp):
        # exp(a) exp(b) -> exp(a + b): a variable repeated across factors is a loss
        e = sp.powsimp(e, combine="exp")
    lo = _lower(e, box, frozenset(), depth)
    if lo is not None and lo > 0:
        return POS
    m = _lower(-e, box, frozenset(), depth)
    hi = None if m is None else -m
    if hi is not None and hi < 0:
        return NEG
    if lo is not None and lo >= 0:
        return NONNEG
    if hi is not None and hi <= 0:
        return NONPOS
    return None


def _by_normalized_intervals(e: sp.Expr, domains: Mapping[sp.Symbol, sp.Set]) -> str | None:
    """Interval bounds of ``e / t`` for each term ``t`` of the sum ``e`` whose sign is
    known: dividing by a large term removes the unbounded parts (e.g.
    ``1 - 2G + G^2 e^(-eps/2)`` over G = e^(eps theta/2) becomes bounded exponentials)."""
    if not e.is_Add or not e.has(sp.exp):
        return None
    for t in e.args:
        if not t.free_symbols:
            continue
        td, _ = with_assumptions(t, domains)
        if td.is_positive:
            st = 1
        elif td.is_negative:
            st = -1
        else:
            continue
        g = sp.powsimp(sp.expand(e / t), combine="exp")
        c = _by_intervals(g, domains)
        if c is not None:
            return c if st > 0 else _negate(c)
    return None


# -- 3b. relations -------------------------------------------------------------------------
def normalize_relations(relations: Iterable[sp.Basic]) -> tuple[tuple[sp.Expr, bool], ...]:
    """``a > b`` -> (a - b, True), ``a >= b`` -> (a - b, False), and so on."""
    out = []
    for r in relations:
        if isinstance(r, sp.StrictGreaterThan):
            out.append((r.lhs - r.rhs, True))
        elif isinstance(r, sp.GreaterThan):
            out.append((r.lhs - r.rhs, False))
        elif isinstance(r, sp.StrictLessThan):
            out.append((r.rhs - r.lhs, True))
        elif isinstance(r, sp.LessThan):
            out.append((r.rhs - r.lhs, False))
    return tuple(out)


def _by_relations(f: sp.Expr, rels: tuple[tuple[sp.Expr, bool], ...]) -> str | None:
    for d, strict in rels:
        r = sp.cancel(f / d)
        if r.is_number and r.is_extended_real and not r.is_zero:
            return _from_pair(1 if r > 0 else -1, strict)
    return None


# -- the combination -----------------------------------------------------------------------
def _merge(a: str | None, b: str | None) -> str | None:
    """Combine two proven facts about the same expression."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if INDEF in (a, b):
        return INDEF
    if ZERO in (a, b):
        return ZERO
    if a in (POS, NEG):
        return a
    if b in (POS, NEG):
        return b
    return ZERO  # nonneg and nonpos


def _strict(c: str | None) -> bool:
    return c in (POS, NEG, ZERO, INDEF)


def _with_relations(c: str | None, e: sp.Expr, rels) -> str | None:
    """``c`` merged with what the relations between the parameters decide (if any)."""
    return _merge(c, _by_relations(e, rels)) if rels else c


def _with_intervals(c: str | None, e: sp.Expr, domains) -> str | None:
    """``c`` merged with interval arithmetic, then (if still open) on the normalized form."""
    c = _merge(c, _by_intervals(e, domains))
    return c if _strict(c) else _merge(c, _by_normalized_intervals(e, domains))


def _by_one_variable(e: sp.Expr, domains) -> tuple[str | None, bool]:
    """``(sign, decided)`` by the univariate analysis when ``e`` has one free symbol with a
    known domain; ``(None, False)`` otherwise."""
    free = e.free_symbols
    if len(free) == 1:
        (s,) = free
        dom = effective_domain(s, domains)
        if dom is not None:
            return _univariate(e, s, dom)
    return None, False


def _single(e: sp.Expr, domains, rels, dummied: sp.Expr) -> str | None:
    """Sign of one factor (no factorisation)."""
    c = _by_assumptions(dummied)
    if _strict(c):
        return c
    c = _with_relations(c, e, rels)
    if _strict(c):
        return c
    u, decided = _by_one_variable(e, domains)
    if decided:
        return _merge(c, u) if u is not None else c
    return _with_intervals(c, e, domains)


def _product(classes: list[tuple[str | None, int]]) -> str | None:
    sign, strict = 1, True
    for c, m in classes:
        if c == ZERO:
            if m > 0:
                return ZERO
            return None
        if c is None or c == INDEF:
            if m % 2 == 0:
                strict = False  # an even power is >= 0 whatever the base
                continue
            return None
        s, st = _SIGN[c]
        if m % 2:
            sign *= s
        if not st:
            if m < 0:
                continue  # a denominator that may vanish on the boundary: sign where defined
            strict = False
    return _from_pair(sign, strict)


def sign_class(
    expr: sp.Expr,
    domains: Mapping[sp.Symbol, sp.Set] | None = None,
    relations: Iterable[sp.Basic] = (),
) -> str | None:
    """Sign of ``expr`` for every admissible parameter value, or ``None``.

    Returns one of ``"pos"`` (> 0 everywhere), ``"nonneg"`` (>= 0), ``"zero"``
    (identically 0), ``"neg"``, ``"nonpos"``, ``"indefinite"`` (proven to take
    both signs), or ``None`` (not decided).
    """
    domains = domains or {}
    rels = normalize_relations(relations)
    e = sp.sympify(expr)
    if not e.free_symbols:
        return _number_sign(e)
    dummied, back = with_assumptions(e, domains)
    c = _by_assumptions(dummied)
    if _strict(c):
        return c
    u, decided = _by_one_variable(e, domains)
    if decided:
        return _merge(c, u) if u is not None else c
    # factorisation, with the exponentials written as monomials in a few generators
    try:
        eg, gens = exp_generators(e)
        num, den = sp.fraction(sp.together(eg))
        parts: list[tuple[sp.Expr, int]] = []
        for x, sgn in ((num, 1), (den, -1)):
            coeff, factors = sp.factor_list(x)
            parts.append((sp.sympify(coeff), sgn))
            parts.extend((f.xreplace(gens), sgn * m) for f, m in factors)
    except (sp.PolynomialError, sp.GeneratorsNeeded, NotImplementedError):
        parts = []
    if len(parts) > 1 or (parts and parts[0][0] != e):
        classes = []
        for f, m in parts:
            if not f.free_symbols:
                classes.append((_number_sign(f), m))
            else:
                fd = f.xreplace({v: k for k, v in back.items()})
                classes.append((_single(f, domains, rels, fd), m))
        c = _merge(c, _product(classes))
        if _strict(c):
            return c
    c = _with_relations(c, e, rels)
    if _strict(c):
        return c
    return _with_intervals(c, e, domains)


def is_identically_zero(
    expr: sp.Expr, domains: Mapping[sp.Symbol, sp.Set] | None = None, heavy: bool = True
) -> bool | None:
    """True if ``expr`` is 0 for all parameter values, False if provably not, else None."""
    domains = domains or {}
    e = sp.sympify(expr)
    if e == 0:
        return True
    if not e.free_symbols:
        # exact cancellation first: cheap, and it avoids sympy's numeric sign test,
        # which evaluates exp(10^308) to a huge exponent before it answers
        if sp.cancel(sp.together(e)) == 0:
            return True
        c = _number_sign(e)
        return None if c is None else c == ZERO
    x = sp.expand(e)
    if x == 0:
        return True
    x = sp.cancel(sp.together(x))
    if x == 0:
        return True
    if len(e.free_symbols) == 1:
        (s,) = e.free_symbols
        dom = effective_domain(s, domains) or sp.Reals
        c, decided = _univariate(e, s, dom)
        if decided and c is not None:
            # a nonzero rational function of exp(s/m) has finitely many roots
            return c == ZERO
    if not heavy:
        c = sign_class(e, domains)
        return False if c in (POS, NEG, INDEF) else None
    x = sp.simplify(e)
    if x == 0:
        return True
    dummied, _ = with_assumptions(x, domains)
    if dummied.is_zero is False:
        return False
    c = sign_class(x, domains)
    if c in (POS, NEG, INDEF):
        return False
    if c == ZERO:
        return True
    return None
