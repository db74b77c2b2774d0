"""Each protocol's closed forms live in one module, its family module, and agree everywhere.

Provenance of the expected values:

* enumeration: ``q.bayes_capacity`` / ``q.asr`` / ``q.ldp_epsilon`` of the explicit
  channel ``P.channel()`` (k = 2..5), and of the symmetric (orbit) channel
  ``P.symmetric()`` at k = 10^5, both computed without the closed forms;
* the printed formulas of the multidimensional-risks paper (Arcolezi et al. 2023)
  and Gursoy et al.'s Eq. 25, typed here from the papers;
* the sympy twins, evaluated exactly at ``sympy.Rational`` parameters;
* the source itself (``ast``): which module defines each formula.
"""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path

import pytest
import sympy as sp

import qifldp as q
from qifldp import formulas as F
from qifldp.errors import InputTypeError, ParameterError
from qifldp.protocols import grr, lh, ss, the, ue
from qifldp.symbolic import formulas as SF

#: (name, parameters besides k) -> the flat formulas' extra arguments after (k, ...).
CASES = [
    ("grr", {"eps": 1.3}),
    ("ss", {"eps": 1.3}),
    ("ss", {"eps": 0.5, "omega": 2}),
    ("lh", {"eps": 1.3, "g": 3}),
    ("lh", {"eps": 0.5, "g": 2}),
    ("blh", {"eps": 1.3}),
    ("olh", {"eps": 0.5}),
    ("olh", {"eps": 1.3}),
    ("ue", {"p": 0.7, "q": 0.2}),
    ("sue", {"eps": 1.3}),
    ("oue", {"eps": 0.5}),
    ("oue", {"eps": 3.0}),
    ("the", {"eps": 1.3, "theta": 0.75}),
    ("the", {"eps": 3.0, "theta": 0.6}),
]

#: The family module of each protocol name.
FAMILY = {
    "grr": grr,
    "ss": ss,
    "lh": lh,
    "blh": lh,
    "olh": lh,
    "ue": ue,
    "sue": ue,
    "oue": ue,
    "the": the,
}


def _flat_args(P: q.protocols.Protocol) -> tuple:
    """The flat formulas' arguments for protocol P (k first)."""
    extra = {"ss": ("omega",), "lh": ("g",), "the": ("theta",)}.get(P.name, ())
    if P.name == "ue":
        return (P.k, P.params["p"], P.params["q"])
    return (P.k, P.eps, *(P.params[name] for name in extra))


def _ids(cases):
    return [f"{name}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for name, kw in cases]


def _entries(P) -> int:
    """Number of entries of P's explicit channel (to skip ones above a few million)."""
    k = P.k
    if P.name in ("lh", "blh", "olh"):
        return k * P.params["g"] ** (k + 1)
    if P.name == "ss":
        return k * math.comb(k, P.params["omega"])
    if P.name == "grr":
        return k * k
    return k * 2**k


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize(("name", "kw"), CASES, ids=_ids(CASES))
def test_closed_form_equals_flat_formula_and_enumeration(name, kw, k):
    P = q.protocol(name, k, **kw)
    cf = P.closed_form
    args = _flat_args(P)
    flat_ml = getattr(F, f"bayes_capacity_{name}")
    flat_asr = getattr(F, f"asr_{name}")
    # the method evaluates the family's flat formula (blh/olh/sue/oue by their own name)
    assert cf.bayes_capacity() == pytest.approx(flat_ml(*args), rel=1e-14)
    assert cf.asr() == pytest.approx(flat_asr(*args), rel=1e-14)
    assert cf.asr() == pytest.approx(cf.bayes_capacity() / k, rel=1e-15)
    if _entries(P) > 2 * 10**6:
        pytest.skip("explicit channel too large for the enumeration check")
    C = P.channel()
    # enumeration of the explicit channel
    assert cf.bayes_capacity() == pytest.approx(q.bayes_capacity(C), rel=1e-10)
    assert cf.asr() == pytest.approx(q.asr(C), rel=1e-10)
    assert cf.ldp_epsilon() == pytest.approx(q.ldp_epsilon(C), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("name", "kw"), CASES, ids=_ids(CASES))
def test_closed_form_at_large_k_equals_the_symmetric_channel(name, kw):
    P = q.protocol(name, 10**5, **kw)
    cf, S = P.closed_form, P.symmetric()
    assert cf.bayes_capacity() == pytest.approx(q.bayes_capacity(S), rel=1e-12)
    assert cf.asr() == pytest.approx(q.asr(S), rel=1e-12)
    assert cf.ldp_epsilon() == pytest.approx(q.ldp_epsilon(S), rel=1e-12)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize(("name", "kw"), CASES, ids=_ids(CASES))
def test_acc_is_the_bayes_attacker_and_the_print_is_as_published(name, kw, k):
    P = q.protocol(name, k, **kw)
    cf = P.closed_form
    if name == "the":
        assert not hasattr(cf, "acc")  # the multidimensional-risks paper has no ACC for THE
        return
    # the attackers of the paper are Bayes-optimal: ACC = ASR, by enumeration where small
    assert cf.acc() == pytest.approx(cf.asr(), rel=1e-14)
    if _entries(P) <= 2 * 10**6:
        assert cf.acc() == pytest.approx(q.asr(P.channel()), rel=1e-10)
    e = P.eps
    printed = {
        "grr": lambda: math.exp(e) / (math.exp(e) + k - 1),
        "ss": lambda: (math.exp(e) + 1) / (2 * k),
        "olh": lambda: 1 / (2 * max(k / (math.exp(e) + 1), 1)),
    }
    if name in printed:
        assert cf.acc(printed=True) == pytest.approx(printed[name](), rel=1e-12)
        assert cf.acc(printed=True) == pytest.approx(getattr(F, f"acc_{name}")(k, e, printed=True))
    elif name in ("lh", "blh"):
        with pytest.raises(ParameterError, match="OLH only"):
            cf.acc(printed=True)
    else:  # the printed UE sums are exact: equal to the enumerated ASR
        assert cf.acc(printed=True) == pytest.approx(cf.asr(), rel=1e-12)
        if name != "ue":
            assert cf.acc(printed=True) == getattr(F, f"acc_{name}")(k, e, printed=True)
    with pytest.raises(InputTypeError, match="printed must be a bool"):
        cf.acc(printed="yes")


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("g", [2, 3, 5])
def test_lh_asr_gursoy_is_eq_25_as_printed(k, g):
    eps = 1.3
    cf = q.protocol("lh", k, eps, g=g).closed_form
    printed = math.exp(eps) / ((math.exp(eps) + g - 1) * max(k / g, 1))  # Gursoy et al. Eq. 25
    assert cf.asr_gursoy() == pytest.approx(printed, rel=1e-13)
    assert cf.asr_gursoy() == F.asr_lh_gursoy(k, eps, g)


@pytest.mark.parametrize("eps", [0.8, 2.0])
def test_the_oue_threshold_method_decides_refinement(eps):
    cf = q.protocol("the", 3, eps, theta=0.75).closed_form
    t = cf.oue_threshold()
    assert t == F.the_oue_threshold(eps)
    # Lemma 10: OUE_bit(eps) refines THE_bit(eps, theta) iff theta >= t (checked by the LP)
    assert q.refines(q.oue_bit(eps), q.the_bit(eps, min(t + 1e-3, 0.999))).holds
    assert not q.refines(q.oue_bit(eps), q.the_bit(eps, t - 1e-3)).holds


SYMBOLIC = {
    "eps": sp.Rational(13, 10),
    "theta": sp.Rational(3, 4),
    "p": sp.Rational(7, 10),
    "q": sp.Rational(1, 5),
}


@pytest.mark.parametrize("k", [2, 3, 5, 40])
@pytest.mark.parametrize(("name", "kw"), CASES, ids=_ids(CASES))
def test_symbolic_closed_form_at_rationals_equals_the_numeric_one(name, kw, k):
    exact = {key: sp.Rational(str(value)) for key, value in kw.items() if key != "omega"}
    exact = {key: value for key, value in exact.items() if not (name == "lh" and key == "g")}
    P = q.protocol(name, k, **kw)
    expr = P.closed_form.symbolic_bayes_capacity(**exact)
    assert expr.free_symbols == set()
    assert float(expr) == pytest.approx(P.closed_form.bayes_capacity(), rel=1e-12)
    # with a symbol in place of eps (or p), substituting the rational gives the same value
    free = "p" if name == "ue" else "eps"
    x = sp.Symbol("x", positive=True)
    with_symbol = P.closed_form.symbolic_bayes_capacity(**{free: x})
    assert float(with_symbol.subs(x, exact[free])) == pytest.approx(float(expr), rel=1e-12)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_flat_symbolic_formulas_agree_with_the_numeric_ones(k):
    e, t = SYMBOLIC["eps"], SYMBOLIC["theta"]
    pairs = [
        (SF.bayes_capacity_grr(k, e), F.bayes_capacity_grr(k, 1.3)),
        (SF.bayes_capacity_ss(k, e, 1), F.bayes_capacity_ss(k, 1.3, 1)),
        (SF.bayes_capacity_lh(k, e, 3), F.bayes_capacity_lh(k, 1.3, 3)),
        (SF.asr_lh(k, e, 3), F.asr_lh(k, 1.3, 3)),
        (SF.asr_lh_gursoy(k, e, 3), F.asr_lh_gursoy(k, 1.3, 3)),
        (SF.bayes_capacity_ue(k, SYMBOLIC["p"], SYMBOLIC["q"]), F.bayes_capacity_ue(k, 0.7, 0.2)),
        (SF.bayes_capacity_sue(k, e), F.bayes_capacity_sue(k, 1.3)),
        (SF.bayes_capacity_oue(k, e), F.bayes_capacity_oue(k, 1.3)),
        (SF.bayes_capacity_the(k, e, t), F.bayes_capacity_the(k, 1.3, 0.75)),
        (SF.the_oue_threshold(e), F.the_oue_threshold(1.3)),
    ]
    for expr, value in pairs:
        assert abs(float(expr) - value) <= 1e-12 * abs(value)


# -- one place -----------------------------------------------------------------------------
#: Family of every flat numeric formula (qifldp.formulas) ...
NUMERIC_HOME = {
    name: FAMILY[name.rsplit("_", 1)[-1]].__name__
    for name in F.__all__
    if name.startswith(("bayes_capacity_", "asr_", "acc_")) and name != "asr_lh_gursoy"
}
NUMERIC_HOME.update(
    asr_lh_gursoy=lh.__name__,
    the_oue_threshold=the.__name__,
    ldp_epsilon_the=the.__name__,
)


def test_every_flat_formula_is_listed():
    callables = {name for name in F.__all__ if callable(getattr(F, name))}
    assert callables == set(NUMERIC_HOME)
    assert set(SF.__all__) <= {*NUMERIC_HOME, "bayes_capacity_ss_printed"}


@pytest.mark.parametrize("name", sorted(NUMERIC_HOME))
def test_numeric_formula_is_defined_in_its_family_module(name):
    f = getattr(F, name)
    assert inspect.getmodule(f).__name__ == NUMERIC_HOME[name]
    assert getattr(inspect.getmodule(f), name) is f  # the flat name is the family's function


@pytest.mark.parametrize("name", sorted(SF.__all__))
def test_symbolic_formula_is_defined_in_its_family_module(name):
    f = getattr(SF, name)
    home = NUMERIC_HOME.get(name, ss.__name__)
    assert inspect.getmodule(f).__name__ == home
    assert f.__name__ == f"symbolic_{name}"
    assert getattr(inspect.getmodule(f), f.__name__) is f


def test_sue_and_oue_capacity_formulas_are_in_ue_only():
    assert inspect.getmodule(F.bayes_capacity_sue).__name__ == "qifldp.protocols.ue"
    assert inspect.getmodule(F.bayes_capacity_oue).__name__ == "qifldp.protocols.ue"
    assert inspect.getmodule(SF.bayes_capacity_sue).__name__ == "qifldp.protocols.ue"


def _definitions() -> dict[str, list[str]]:
    """function name -> the modules (paths below qifldp/) whose source defines it (ast)."""
    root = Path(q.__file__).parent
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault(node.name, []).append(str(path.relative_to(root)))
        for node in tree.body:
            if isinstance(node, ast.Assign):  # generated: asr_x = asr_from(...)
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(str(path.relative_to(root)))
    return found


def test_grep_each_formula_is_written_in_exactly_one_module():
    defs = _definitions()
    for name, home in NUMERIC_HOME.items():
        expected = "protocols/" + home.rsplit(".", 1)[-1] + ".py"
        assert defs.get(name) == [expected], name
        symbolic = f"symbolic_{name}"
        assert defs.get(symbolic, [expected]) == [expected], symbolic
    # no module outside the families writes an ASR wrapper or a Bayes-capacity formula
    for name, paths in defs.items():
        if name.startswith(("bayes_capacity_", "asr_", "symbolic_bayes_capacity_")):
            assert all(p.startswith("protocols/") for p in paths), (name, paths)


def test_asr_is_written_once():
    defs = _definitions()
    # the families call asr_from; none divides by k itself
    source = {mod: inspect.getsource(mod) for mod in (grr, ss, lh, ue, the)}
    for name in NUMERIC_HOME:
        if name.startswith("asr_") and name != "asr_lh_gursoy":
            f = getattr(F, name)
            assert f.__wrapped__ is getattr(F, name.replace("asr", "bayes_capacity"))
            assert f"{name} = asr_from(" in source[FAMILY[name.rsplit("_", 1)[-1]]]
            assert inspect.signature(f) == inspect.signature(f.__wrapped__)
    assert defs["asr_from"] == ["protocols/vectorize.py"]
