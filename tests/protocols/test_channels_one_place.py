"""Each protocol's channels come from one place: its protocol object and qifldp.protocols.params.

Provenance of the expected values: the explicit channels are enumerated here from
the protocols' definitions (QIF paper Sec. V: GRR, SS, LH as E . G, UE and THE as
one-hot bits, THE's bits from the Laplace tails); the large-k / large-eps class
masses are evaluated with mpmath at 50 digits from the binomial formulas of the
symmetric representation (P_in(s) = p Bin(k-1, q)(s-1), P_out(s) = (1-p) Bin(k-1, q)(s)).
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
import pathlib
import re

import mpmath
import numpy as np
import pytest
import sympy as sp

import qifldp as q
import qifldp.symbolic as symbolic
import qifldp.symmetric as symmetric
from qifldp import mechanisms
from qifldp.faces import symbolic as symbolic_face, symmetric as symmetric_face
from qifldp.protocols import (
    grr as grr_module,
    lh as lh_module,
    params,
    ss as ss_module,
    the as the_module,
    ue as ue_module,
)
from qifldp.symbolic.parameters import SymbolicParameters

EPS = sp.Symbol("eps")

# -- the channels enumerated from the definitions ---------------------------------------


def _grr_rows(k: int, eps: float) -> np.ndarray:
    E = math.exp(eps)
    return np.array([[(E if x == y else 1.0) / (E + k - 1) for y in range(k)] for x in range(k)])


def _ss_rows(k: int, eps: float, omega: int) -> np.ndarray:
    E = math.exp(eps)
    p = omega * E / (omega * E + k - omega)
    subsets = list(itertools.combinations(range(k), omega))
    inside = p / math.comb(k - 1, omega - 1)
    outside = (1 - p) / math.comb(k - 1, omega) if omega < k else 0.0
    return np.array([[inside if x in S else outside for S in subsets] for x in range(k)])


def _lh_rows(k: int, eps: float, g: int) -> np.ndarray:
    E = math.exp(eps)
    outs = [(h, z) for h in itertools.product(range(g), repeat=k) for z in range(g)]
    return np.array(
        [[(E if h[x] == z else 1.0) / ((E + g - 1) * g**k) for h, z in outs] for x in range(k)]
    )


def _one_hot_rows(k: int, p: float, qq: float) -> np.ndarray:
    def bit(m: int, x: int, y: int) -> float:
        one = p if m == x else qq
        return one if y else 1 - one

    ys = list(itertools.product((0, 1), repeat=k))
    return np.array([[math.prod(bit(m, x, y[m]) for m in range(k)) for y in ys] for x in range(k)])


def _sue_pq(eps: float) -> tuple[float, float]:
    h = math.exp(eps / 2)
    return h / (h + 1), 1 / (h + 1)


def _the_pq(eps: float, theta: float) -> tuple[float, float]:
    # Z ~ Laplace(0, 2/eps): q = Pr[Z > theta], p = Pr[1 + Z > theta] = 1 - Pr[Z <= theta - 1]
    return 1 - math.exp(eps * (theta - 1) / 2) / 2, math.exp(-eps * theta / 2) / 2


#: (protocol arguments, symbols for symbolic(), the definition's matrix)
CASES = [
    (("grr", 4, 1.3), {}, lambda: _grr_rows(4, 1.3)),
    (("grr", 2, 0.0), {}, lambda: _grr_rows(2, 0.0)),
    (("ss", 5, 0.7, {"omega": 2}), {}, lambda: _ss_rows(5, 0.7, 2)),
    (("ss", 4, 2.0, {}), {}, lambda: _ss_rows(4, 2.0, 1)),  # default omega = round(4/(e^2+1))
    (("ss", 3, 1.0, {"omega": 3}), {}, lambda: _ss_rows(3, 1.0, 3)),
    (("lh", 3, 0.9, {"g": 2}), {}, lambda: _lh_rows(3, 0.9, 2)),
    (("lh", 2, 1.5, {"g": 3}), {}, lambda: _lh_rows(2, 1.5, 3)),
    (("blh", 3, 2.0), {}, lambda: _lh_rows(3, 2.0, 2)),
    (("olh", 2, 1.0), {}, lambda: _lh_rows(2, 1.0, 4)),  # g = round(e + 1) = 4
    (("sue", 4, 1.2), {}, lambda: _one_hot_rows(4, *_sue_pq(1.2))),
    (("oue", 3, 0.8), {}, lambda: _one_hot_rows(3, 0.5, 1 / (math.exp(0.8) + 1))),
    (
        ("ue", 3, None, {"p": 0.7, "q": 0.2}),
        {"p": "p", "q": "q"},
        lambda: _one_hot_rows(3, 0.7, 0.2),
    ),
    (
        ("the", 3, 2.0, {"theta": 0.75}),
        {"theta": "t"},
        lambda: _one_hot_rows(3, *_the_pq(2.0, 0.75)),
    ),
    (("the", 4, 0.5, {"theta": 0.6}), {}, lambda: _one_hot_rows(4, *_the_pq(0.5, 0.6))),
]


def _protocol(args: tuple) -> q.protocols.Protocol:
    name, k, eps, *rest = args
    return q.protocol(name, k, eps, **(rest[0] if rest else {}))


def _ids(case: tuple) -> str:
    return "-".join(map(str, case[0][:3]))


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_the_three_kinds_agree_with_the_definition(case: tuple) -> None:
    # provenance: enumeration of the definitions (QIF paper Sec. V), entry by entry
    args, extra_symbols, definition = case
    P = _protocol(args)
    expected = definition()
    explicit = P.channel()
    expanded = P.symmetric().expand()
    symbols = {"eps": "eps"} if P.name != "ue" else {}
    symbols.update(extra_symbols)
    S = P.symbolic(**{name: sp.Symbol(s) for name, s in symbols.items()})
    values = {s: P.params[name] if name != "eps" else P.eps for name, s in symbols.items()}
    evaluated = S.evaluate(**values)
    assert explicit.outputs == expanded.outputs == evaluated.outputs
    for C in (explicit, expanded, evaluated):
        np.testing.assert_allclose(C.matrix, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_symbolic_without_symbols_is_exact_at_the_protocols_numbers(case: tuple) -> None:
    # provenance: the same enumeration; the exact channel is rounded only at the end
    args, _, definition = case
    P = _protocol(args)
    M = np.array(P.symbolic().matrix.evalf(30).tolist(), dtype=float)
    np.testing.assert_allclose(M, definition(), rtol=1e-12, atol=1e-15)


# -- large k and large eps: the symmetric channels against the log-space closed forms ----

#: Digits for the large-eps checks: 1 - p ~ e^-800 ~ 10^-348 must survive the subtraction.
DIGITS = 1000


def _mp_log_binom_pmf(n: int, j: int, q_: mpmath.mpf) -> mpmath.mpf:
    return mpmath.log(mpmath.binomial(n, j)) + j * mpmath.log(q_) + (n - j) * mpmath.log(1 - q_)


def _mp_one_hot_masses(k: int, p_: mpmath.mpf, q_: mpmath.mpf, s: int) -> tuple:
    """log P_in(s) = log(p Bin(k-1, q)(s-1)), log P_out(s) = log((1-p) Bin(k-1, q)(s))."""
    log_in = mpmath.log(p_) + _mp_log_binom_pmf(k - 1, s - 1, q_) if s >= 1 else -mpmath.inf
    log_out = mpmath.log(1 - p_) + _mp_log_binom_pmf(k - 1, s, q_) if s <= k - 1 else -mpmath.inf
    return log_in, log_out


def _mp_exp(x: float) -> mpmath.mpf:
    return mpmath.exp(mpmath.mpf(x))


LARGE = [
    # (protocol, (p, q) of the bits in mpmath, lumped with one-hot classes?)
    (("sue", 10**6, 800.0), lambda: (1 / (1 + _mp_exp(-400)), 1 / (_mp_exp(400) + 1))),
    (("oue", 10**6, 2.0), lambda: (mpmath.mpf(1) / 2, 1 / (_mp_exp(2) + 1))),
    (("oue", 10**6, 800.0), lambda: (mpmath.mpf(1) / 2, 1 / (_mp_exp(800) + 1))),
    (
        ("the", 10**6, 800.0, {"theta": 0.75}),
        lambda: (1 - _mp_exp(-100) / 2, _mp_exp(-300) / 2),
    ),
    (("ue", 10**6, None, {"p": 0.75, "q": 0.001}), lambda: (mpmath.mpf(0.75), mpmath.mpf(0.001))),
    # LH is lumped as one-hot bits with q = 1/g and GRR_g's p
    (("lh", 10**6, 800.0, {"g": 5}), lambda: (1 / (1 + 4 * _mp_exp(-800)), mpmath.mpf(1) / 5)),
    (("olh", 10**6, 5.0), lambda: (_mp_exp(5) / (_mp_exp(5) + 148), mpmath.mpf(1) / 149)),
]


@pytest.mark.parametrize("case", LARGE, ids=lambda c: "-".join(map(str, c[0][:3])))
def test_large_symmetric_channels_match_the_binomial_closed_forms(case: tuple) -> None:
    # provenance: mpmath at 50 digits of the class masses (symmetric channel docstrings)
    args, bits = case
    P = _protocol(args)
    C = P.symmetric()
    k = P.k
    assert C.sizes.tolist()[:3] == [0, 1, 2] and int(C.sizes[-1]) == k
    with mpmath.workdps(DIGITS):
        p_, q_ = bits()
        for s in (0, 1, 2, 3, 10, k // 3, k // 2, k - 1, k):
            want_in, want_out = _mp_one_hot_masses(k, p_, q_, s)
            for got, want in ((C.log_in[s], want_in), (C.log_out[s], want_out)):
                if want == -mpmath.inf:
                    assert got == -np.inf
                else:
                    assert got == pytest.approx(float(want), rel=1e-10, abs=1e-12), s


@pytest.mark.parametrize(
    ("args", "want"),
    [
        # log p = -log(1 + (k-1) e^-eps), log(1-p) = log(k-1) - eps + log p
        (("grr", 10**6, 800.0), (-(10**6 - 1) * _mp_exp(-800), mpmath.log(10**6 - 1) - 800)),
        (("grr", 10**6, 5.0), (-mpmath.log(1 + (10**6 - 1) * _mp_exp(-5)), None)),
        # SS: p = omega e^eps / (omega e^eps + k - omega), default omega = 1 at eps = 800
        (("ss", 10**6, 800.0, {}), (None, mpmath.log(10**6 - 1) - 800)),
        (("ss", 10**6, 2.0, {"omega": 1000}), (None, None)),
    ],
    ids=["grr-800", "grr-5", "ss-800", "ss-2"],
)
def test_large_single_class_channels_match_the_closed_forms(args: tuple, want: tuple) -> None:
    # provenance: mpmath at 50 digits of p = omega e^eps / (omega e^eps + k - omega)
    P = _protocol(args)
    C = P.symmetric()
    k, omega = P.k, P.params.get("omega", 1)
    with mpmath.workdps(DIGITS):
        E = mpmath.exp(mpmath.mpf(P.eps))
        p_ = omega * E / (omega * E + k - omega)
        log_p, log_1mp = mpmath.log(p_), mpmath.log(1 - p_)
    assert C.sizes.tolist() == [omega]
    assert C.log_in[0] == pytest.approx(float(log_p), rel=1e-12, abs=1e-300)
    assert C.log_out[0] == pytest.approx(float(log_1mp), rel=1e-12)
    if want[0] is not None:
        assert float(log_p) == pytest.approx(float(want[0]), rel=1e-12, abs=1e-300)
    if want[1] is not None:
        assert float(log_1mp) == pytest.approx(float(want[1]), rel=1e-12)


def test_log_parameters_are_computed_once_at_construction(monkeypatch) -> None:
    # symmetric() must use the protocol's stored log-space parameters, not recompute them
    protocols = {
        "log_grr": [q.protocol("grr", 50, 1.0), q.protocol("lh", 20, 1.0, g=3)],
        "log_ss": [q.protocol("ss", 50, 1.0)],
        "log_sue": [q.protocol("sue", 50, 1.0)],
        "log_oue": [q.protocol("oue", 50, 1.0)],
        "log_pq": [q.protocol("ue", 50, p=0.6, q=0.3)],
        "log_the": [q.protocol("the", 50, 1.0, theta=0.7)],
    }
    before = {name: [P.symmetric() for P in ps] for name, ps in protocols.items()}

    def refuse(*args: object) -> None:
        raise AssertionError("log-space parameters recomputed")

    for module in (grr_module, lh_module, ss_module, ue_module, the_module, params):
        for name in protocols:
            if hasattr(module, name):
                monkeypatch.setattr(module, name, refuse)
    for name, ps in protocols.items():
        assert [P.symmetric() for P in ps] == before[name]


def test_log_parameters_match_the_float_parameters() -> None:
    # provenance: the float formulas of params; exp of each log-space twin gives them back
    for P in [
        q.protocol("sue", 5, 3.0),
        q.protocol("oue", 5, 3.0),
        q.protocol("the", 5, 3.0, theta=0.8),
    ]:
        lp, l1mp, lq, l1mq = P._log
        p, qq = P.params["p"], P.params["q"]
        assert np.exp([lp, l1mp, lq, l1mq]) == pytest.approx([p, 1 - p, qq, 1 - qq], rel=1e-14)


# -- the flat names are aliases of the protocol objects ---------------------------------

FLAT = [
    ("grr", (5, 1.1), ("grr", 5, 1.1, {})),
    ("subset_selection", (5, 1.1, 2), ("ss", 5, 1.1, {"omega": 2})),
    ("subset_selection", (6, 0.3), ("ss", 6, 0.3, {})),
    ("local_hashing", (3, 1.1, 3), ("lh", 3, 1.1, {"g": 3})),
    ("blh", (3, 1.1), ("blh", 3, 1.1, {})),
    ("olh", (2, 1.1), ("olh", 2, 1.1, {})),
    ("unary_encoding", (4, 0.6, 0.3), ("ue", 4, None, {"p": 0.6, "q": 0.3})),
    ("sue", (4, 1.1), ("sue", 4, 1.1, {})),
    ("oue", (4, 1.1), ("oue", 4, 1.1, {})),
    ("the", (4, 1.1, 0.7), ("the", 4, 1.1, {"theta": 0.7})),
]


@pytest.mark.parametrize(("name", "args", "spec"), FLAT, ids=[f[0] + str(f[1]) for f in FLAT])
def test_flat_constructors_equal_the_methods(name: str, args: tuple, spec: tuple) -> None:
    P = _protocol(spec)
    assert getattr(q, name)(*args) == getattr(mechanisms, name)(*args) == P.channel()
    assert getattr(symmetric, name)(*args) == P.symmetric()
    assert getattr(symbolic, name)(*args).matrix == P.symbolic().matrix  # exact numbers
    if len(args) == 2 and name in ("subset_selection", "olh"):
        return  # their default omega / g is rounded from a numeric eps (tested elsewhere)
    symbols = {"p": "p", "q": "q"} if P.name == "ue" else {"eps": "eps"}
    names = inspect.signature(getattr(q, name)).parameters
    sargs = tuple(symbols.get(a, v) for a, v in zip(names, args, strict=False))
    assert getattr(symbolic, name)(*sargs).matrix == P.symbolic(**symbols).matrix


@pytest.mark.parametrize("name", symmetric_face.FLAT_NAMES)
def test_symmetric_aliases_have_the_explicit_signatures(name: str) -> None:
    explicit = inspect.signature(getattr(mechanisms, name))
    alias = inspect.signature(getattr(symmetric, name))
    assert list(alias.parameters.values()) == list(explicit.parameters.values())
    assert getattr(symmetric, name).__name__ == name
    with pytest.raises(TypeError, match=f"^{name}\\(\\) "):
        getattr(symmetric, name)(3)


BAD = [
    ("grr", (1, 1.0)),
    ("grr", (3, -1.0)),
    ("grr", (3.5, 1.0)),
    ("subset_selection", (4, 1.0, 5)),
    ("local_hashing", (3, 1.0, 1)),
    ("olh", (3, math.nan)),
    ("unary_encoding", (3, 0.25, 0.75)),
    ("sue", (3, math.inf)),
    ("oue", ("3", 1.0)),
    ("the", (3, 1.0, 0.4)),
]


@pytest.mark.parametrize(("name", "args"), BAD, ids=[f"{n}{a}" for n, a in BAD])
def test_symmetric_aliases_raise_as_the_explicit_constructors(name: str, args: tuple) -> None:
    with pytest.raises((ValueError, TypeError)) as explicit:
        getattr(q, name)(*args)
    with pytest.raises(type(explicit.value), match="^" + re.escape(str(explicit.value)) + "$"):
        getattr(symmetric, name)(*args)


def test_symbolic_names_are_the_family_builders() -> None:
    eps = sp.Symbol("eps")
    for name, builder in (
        ("grr", grr_module.symbolic_grr),
        ("subset_selection", ss_module.symbolic_subset_selection),
        ("local_hashing", lh_module.symbolic_local_hashing),
        ("sue", ue_module.symbolic_sue),
        ("the", the_module.symbolic_the),
    ):
        alias = getattr(symbolic, name)
        assert alias.__doc__ == inspect.getdoc(builder)
        args = {"k": 3, "eps": eps, "omega": 1, "g": 2, "theta": sp.Rational(7, 10)}
        params = inspect.signature(alias).parameters
        given = {a: v for a, v in args.items() if a in params}
        assert alias(**given).matrix == builder(**given).matrix
    assert symbolic.oue_bit is ue_module.symbolic_oue_bit
    assert symbolic.EPS_DOMAIN is symbolic.parameters.EPS_DOMAIN
    assert isinstance(symbolic.parameters.SymbolicParameters, type) and SymbolicParameters


def test_the_three_kinds_have_the_same_names() -> None:
    explicit = set(mechanisms.__all__)
    # the constructors (the face also keeps the tight-ratio names under their old spelling)
    assert set(symmetric_face.__all__) - set(symmetric_face.PROTOCOL_LEVEL) <= explicit
    constructors = set(symbolic_face.__all__) - {"formulas"}
    assert constructors == explicit - {"lh_encoding", "lh_perturbation"}
    assert set(symmetric_face.__all__) <= set(symmetric.__all__)
    assert set(symbolic_face.__all__) <= set(symbolic.__all__)
    for name in ("ss", "lh", "ue", "subset_selection"):  # the same spellings in every kind
        assert callable(getattr(q, name)) and callable(getattr(symmetric, name))
        assert callable(getattr(symbolic, name))


# -- each probability formula is written in protocols/params.py only --------------------

PACKAGE = pathlib.Path(q.__file__).parent

#: Modules of other parts of the issue (closed forms, samplers, the audit's printed
#: formulas) that still write a protocol formula out themselves; the channel code is
#: scanned in full.
ELSEWHERE = ("formulas.py", "symbolic/formulas.py", "simulation/", "audit/")

#: The published closed forms (vectorised over numpy arrays, or sympy) and the
#: protocols' samplers are other parts of the issue: functions and classes of these
#: names are not channel code.
CLOSED_FORM_PREFIXES = (
    "bayes_capacity_",
    "asr_",
    "acc_",
    "ldp_epsilon_",
    "the_oue_threshold",
    "symbolic_bayes",
    "symbolic_asr",
    "symbolic_the_oue",
)
SIMULATION_METHODS = ("sample", "estimate", "attack", "variance", "support_probabilities")


def _is_closed_form(node: ast.AST) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name.startswith(CLOSED_FORM_PREFIXES) or node.name in SIMULATION_METHODS
    return isinstance(node, ast.ClassDef) and node.name.endswith("ClosedForm")


def _formula_sites(tree: ast.AST) -> list[str]:
    """SUE's e^(eps/2) and THE's e^(-eps theta/2), e^(eps (theta-1)/2): divisions of eps by 2."""
    sites = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if _is_closed_form(node):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 2
            and "eps" in ast.unparse(node.left)
        ):
            sites.append(ast.unparse(node))
    return sites


def test_probability_formulas_are_defined_in_params_only() -> None:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(ELSEWHERE):
            continue
        sites = _formula_sites(ast.parse(path.read_text(encoding="utf-8")))
        if sites:
            found[rel] = sites
    assert set(found) == {"protocols/params.py"}, found
    # the scan sees all three versions of SUE's p side by side: float, log space, sympy
    sue = [s for s in found["protocols/params.py"] if s in ("eps / 2", "eps / 2.0", "-eps / 2.0")]
    assert {"eps / 2", "eps / 2.0"} <= set(sue)
    text = (PACKAGE / "protocols" / "params.py").read_text(encoding="utf-8")
    assert "expit(eps / 2)" in text and "log1pexp_neg(eps / 2.0)" in text
    assert "sp.exp(eps / 2)" in text


def test_formula_scan_would_catch_a_copy() -> None:
    # the scanner itself: a copy of SUE's p in any module is a site
    copy = "import math\ndef p(eps):\n    return math.exp(eps / 2) / (math.exp(eps / 2) + 1)\n"
    assert _formula_sites(ast.parse(copy)) == ["eps / 2", "eps / 2"]
    closed = "def bayes_capacity_sue(k, eps):\n    return expit(eps / 2)\n"
    assert _formula_sites(ast.parse(closed)) == []
