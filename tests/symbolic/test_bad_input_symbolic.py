"""The symbolic API answers or refuses clearly (issue 8, reproducers 9 (symbolic) and 10).

Every public callable of ``qifldp.symbolic`` (its ``__all__``, and the closed forms
of ``qifldp.symbolic.formulas``) is called with each bad-value class in place of
each argument. It must return (a value without NaN) or raise a qifldp error that
is a ValueError or TypeError, within a few seconds: no AttributeError, no raw
sympy/numpy exception, no hang. Expected values in the reproducer tests are exact
(Fractions of the stored floats, or by hand).
"""

from __future__ import annotations

import inspect
import math
import signal
import time
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import qifldp as q
from qifldp import symbolic as S
from qifldp.errors import QifldpError

EPS = sp.Symbol("eps")

#: A valid value for every required parameter name of the public symbolic API.
GOOD = {
    "k": 3,
    "eps": EPS,
    "omega": 2,
    "g": 2,
    "p": sp.Rational(3, 4),
    "q": sp.Rational(1, 4),
    "theta": sp.Rational(3, 4),
    "C": S.grr(2, EPS),
    "A": S.grr(2, sp.log(3)),
    "B": S.grr(2, sp.log(2)),
    "gain": [[1, 0], [0, 1]],
    "a": sp.exp(EPS),
    "b": 1 + EPS,
    "expr": sp.exp(EPS) / (sp.exp(EPS) + 1),
    "matrix": [[sp.Rational(1, 2)] * 2] * 2,
}

#: The bad-value classes of issue 8.
BAD = {
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "negative": -1,
    "complex": 1j,
    "string": "a b",
    "None": None,
    "empty list": [],
    "wrong shape": [[1, 2, 3]],
    "object": object(),
    "0": 0,
    "1": 1,
    "2.5": 2.5,
    "10**9": 10**9,
    "1e308": 1e308,
    "explicit Channel": q.grr(3, 1.0),
    "symmetric channel": q.symmetric.grr(3, 1.0),
    "float list": [[0.5, 0.5], [0.5, 0.5]],
    "sympy nan": sp.nan,
    "sympy zoo": sp.zoo,
    "sympy I": sp.I,
    "bool": True,
}

#: CPU seconds a single call may use (this process's CPU time: other jobs on the machine
#: do not count); a wall-clock backstop of WALL_LIMIT seconds catches a call that waits.
TIME_LIMIT = 5
WALL_LIMIT = 60


def _public_callables():
    out = []
    for name in S.__all__:
        obj = getattr(S, name)
        if name == "formulas":
            out += [(f"formulas.{n}", getattr(S.formulas, n)) for n in S.formulas.__all__]
        elif callable(obj):
            out.append((name, obj))
    return out


def _cases():
    cases = []
    for name, f in _public_callables():
        for p in inspect.signature(f).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            cases.append(pytest.param(f, p.name, id=f"{name}-{p.name}"))
    return cases


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def _call(f, kwargs):
    old = signal.signal(signal.SIGALRM, _alarm)
    old_prof = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT)
    signal.alarm(WALL_LIMIT)
    t0 = time.perf_counter()
    try:
        return f(**kwargs), None, time.perf_counter() - t0
    except _Timeout:
        return None, "no answer within the time limit", TIME_LIMIT
    except QifldpError as exc:
        if isinstance(exc, (ValueError, TypeError)):
            return None, None, time.perf_counter() - t0
        return None, f"{type(exc).__name__} (not a ValueError/TypeError): {exc}", 0
    except Exception as exc:  # noqa: BLE001 - exactly what the sweep looks for
        return None, f"raw {type(exc).__name__}: {str(exc)[:120]}", 0
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        signal.signal(signal.SIGPROF, old_prof)


def _has_nan(value) -> bool:
    if isinstance(value, sp.Basic):
        return value.has(sp.nan)
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, tuple):
        return any(_has_nan(v) for v in value)
    return False


def test_sweep_covers_the_public_api():
    names = {n for n, _ in _public_callables()}
    assert {"grr", "asr", "bayes_capacity", "refines", "SymbolicChannel", "tidy"} <= names
    assert "formulas.bayes_capacity_lh" in names
    assert len(_cases()) > 60


@pytest.mark.parametrize(("f", "param"), _cases())
def test_bad_values_answered_or_refused_clearly(f, param):
    sig = inspect.signature(f)
    base = {
        p.name: GOOD[p.name]
        for p in sig.parameters.values()
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    problems = []
    for label, bad in BAD.items():
        value, problem, _ = _call(f, {**base, param: bad})
        if problem is None and _has_nan(value):
            problem = f"returned a NaN: {value}"
        if problem is not None:
            problems.append(f"{param}={label}: {problem}")
    assert not problems, "\n".join(problems)


# -- reproducer 10 -------------------------------------------------------------------------
def test_reproducer_10_asr_of_explicit_channel_is_exact():
    C = q.grr(3, 1.0)
    got = S.asr(C)
    # independently: each stored row as exact Fractions, divided by its exact sum
    rows = [[Fraction(float(v)) for v in r] for r in C.matrix]
    rows = [[v / sum(r) for v in r] for r in rows]
    expected = sum(max(r[j] for r in rows) for j in range(3)) / 3
    assert got == sp.Rational(expected.numerator, expected.denominator)
    assert float(got) == pytest.approx(q.asr(C), rel=1e-15)


def test_measures_accept_explicit_channels_by_hand():
    C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    assert S.bayes_capacity(C) == sp.Rational(3, 2)
    assert S.max_case_capacity(C) == 3
    assert S.ldp_epsilon(C) == sp.log(3)
    assert S.tradeoff_point(C) == (sp.Rational(1, 4), sp.Rational(1, 4))
    assert S.g_vulnerability(C, [[1, 0], [0, 1]]) == sp.Rational(3, 4)
    assert sp.simplify(S.min_entropy_leakage(C) - sp.log(sp.Rational(3, 2), 2)) == 0


def test_symmetric_channel_refused_with_advice():
    with pytest.raises(q.InputTypeError, match=r"SymmetricChannel.*expand\(\)"):
        S.bayes_capacity(q.symmetric.grr(3, 1.0))


def test_nan_eps_names_the_argument():
    with pytest.raises(q.ParameterError, match="eps must be a real number, got nan"):
        S.grr(3, math.nan)
    with pytest.raises(q.ParameterError, match="eps"):
        S.formulas.bayes_capacity_grr(3, sp.nan)
    with pytest.raises(q.ParameterError, match="theta"):
        S.the_bit(1, math.inf)


def test_string_entries_rejected_naming_matrix():
    with pytest.raises(q.InputTypeError, match=r"matrix entry \[0, 0\].*string 'a'"):
        S.SymbolicChannel([["a", "b"], ["c", "d"]])


def test_row_sums_provably_not_one_rejected_undecided_recorded():
    x, y = sp.symbols("x y")
    half = sp.Rational(1, 2)
    with pytest.raises(q.ChannelError, match="row 1 sums to 2/3"):
        S.SymbolicChannel([[half, half], [sp.Rational(1, 3), sp.Rational(1, 3)]])
    with pytest.raises(q.ChannelError, match="row 0 sums to 2"):
        S.SymbolicChannel([[x, 2 - x]])
    # proven: nothing recorded
    assert S.SymbolicChannel([[x, 1 - x], [half, half]]).unverified_rows == ()
    # x + y = 1 is neither provable nor refutable for free x, y: accepted, recorded
    C = S.SymbolicChannel([[x, y], [half, half]])
    assert C.unverified_rows == (0,)
    # evaluation re-checks numerically
    with pytest.raises(q.ChannelError, match="sum to 1"):
        C.evaluate(x=0.5, y=0.25)


def test_symbolic_cascade_aligns_labels():
    A = S.SymbolicChannel([[1, 0], [0, 1]], outputs=("y", "n"))
    B = S.SymbolicChannel([[sp.Rational(1, 10), sp.Rational(9, 10)], [1, 0]], inputs=("n", "y"))
    assert S.cascade(A, B).matrix == sp.Matrix([[1, 0], [sp.Rational(1, 10), sp.Rational(9, 10)]])


def test_symbolic_refines_accepts_explicit_channels_and_aligns():
    M = np.array([[0.75, 0.25], [0.25, 0.75]])
    A = q.Channel(M, inputs=("a", "b"))
    B = q.Channel(M[::-1], inputs=("b", "a"))
    assert S.refines(A, B).holds and S.refines(B, A).holds


# -- reproducer 9 (symbolic part) ----------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "size"),
    [
        (lambda: S.grr(10**4, EPS), "10000 x 10000 = 100000000"),
        (lambda: S.grr(10**9, EPS), "~10^18"),
        (lambda: S.sue(10**9, EPS), "x ~10^3.01e+08"),
        (lambda: S.oue(40, EPS), "40 x ~10^12.04"),
        (lambda: S.the(10**9, EPS, sp.Rational(3, 4)), "~10^3.01e+08"),
        (lambda: S.unary_encoding(10**9, "p", "q"), "~10^3.01e+08"),
        (lambda: S.local_hashing(10**9, EPS, 2), "~10^3.01e+08"),
        (lambda: S.blh(10**9, EPS), "~10^3.01e+08"),
        (lambda: S.olh(10**9, 1.0), "~10^"),
        (lambda: S.subset_selection(10**9, EPS, 3), "~10^"),
        (lambda: S.one_hot(S.sue_bit(EPS), 10**9), "2^1000000000"),
    ],
)
def test_reproducer_9_symbolic_size_refused_at_once(make, size):
    t0 = time.process_time()  # CPU time: refused before building, not after
    with pytest.raises(q.SizeError) as info:
        make()
    assert time.process_time() - t0 < 0.5
    msg = str(info.value)
    assert size in msg
    assert "qifldp.symmetric" in msg


def test_closed_forms_refuse_huge_exact_powers():
    with pytest.raises(q.SizeError, match="pass k as a sympy Symbol"):
        S.formulas.bayes_capacity_oue(10**9, 0)
    # a symbolic k keeps the closed form
    k = sp.Symbol("k", positive=True, integer=True)
    assert S.formulas.bayes_capacity_oue(k, 0).subs(k, 5) == 1


_GRR2 = S.grr(2, EPS)
METHOD_CALLS = {
    "subs(mapping)": lambda b: _GRR2.subs(b),
    "subs(eps=...)": lambda b: _GRR2.subs(eps=b),
    "subs(eps, ...)": lambda b: _GRR2.subs(EPS, b),
    "evaluate(eps=...)": lambda b: _GRR2.evaluate(eps=b),
    "evaluate(mapping)": lambda b: _GRR2.evaluate(b),
    "equals": lambda b: _GRR2.equals(b),
    "applyfunc": lambda b: _GRR2.applyfunc(b),
    "domain": lambda b: _GRR2.domain(b),
    "from_channel": lambda b: S.SymbolicChannel.from_channel(b),
    "from_channel(max_denominator)": lambda b: S.SymbolicChannel.from_channel(q.grr(2, 1.0), b),
}


@pytest.mark.parametrize("call", list(METHOD_CALLS), ids=list(METHOD_CALLS))
def test_symbolic_channel_methods_refuse_bad_values_clearly(call):
    f = METHOD_CALLS[call]
    problems = []
    for label, bad in BAD.items():
        value, problem, _ = _call(lambda b=bad: f(b), {})
        if problem is None and _has_nan(value):
            problem = f"returned a NaN: {value}"
        if problem is not None:
            problems.append(f"{label}: {problem}")
    assert not problems, "\n".join(problems)


def test_huge_numeric_eps_substituted_quickly():
    # the row-sum check after subs used to evaluate exp(10^308) numerically (10 s)
    t0 = time.process_time()  # CPU time, as the 10 s was spent computing
    C = S.grr(2, EPS).subs(eps=1e308)
    assert time.process_time() - t0 < 2
    assert C.evaluate().matrix.tolist() == [[1.0, 0.0], [0.0, 1.0]]
