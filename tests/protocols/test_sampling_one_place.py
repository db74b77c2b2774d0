"""Each protocol samples, estimates, computes its variance and attacks in its own module.

Three kinds of check, for every family (GRR, SS, LH with both hash families,
BLH, OLH, UE, SUE, OUE, THE):

- the support probabilities (p*, q*) of ``P.support_probabilities`` against an
  enumeration of the explicit channel (the probability that a report supports v,
  given v or another value), and ``P.variance`` against the published closed
  forms (Wang et al., USENIX Security 2017);
- Monte Carlo: ``P.sample`` then ``P.estimate`` over many repetitions on a fixed
  population is unbiased (the mean within a normal band of width given by
  ``P.variance``) and the sample variance of the estimates matches
  ``P.variance(n, f)`` (a chi-square band), seeded so the test is deterministic;
- the flat names of :mod:`qifldp.simulation` return exactly what the methods
  return for the same seed, and the implementations live in the family modules.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
import textwrap

import numpy as np
import pytest
from scipy import stats

import qifldp as q
from qifldp import protocols, simulation as sim
from qifldp.simulation import LHReports

#: Significance of each Monte Carlo band, before the Bonferroni split over the k
#: values: a correct implementation fails a given test with probability 1e-6.
ALPHA = 1e-6

#: Repetitions of the whole population per Monte Carlo test.
REPS = 600

#: (name, k, eps, params, sampling options) of every family; LH twice (both hash families).
CASES = [
    ("grr", 5, 1.5, {}, {}),
    ("ss", 6, 1.0, {"omega": 2}, {}),
    ("ss", 6, 1.0, {"omega": 2}, {"output": "membership"}),
    ("lh", 5, 1.5, {"g": 3}, {"hash": "uniform"}),
    ("lh", 5, 1.5, {"g": 3}, {"hash": "universal"}),
    ("lh", 5, 1.5, {"g": 3}, {"hash": "universal", "prime": 7}),
    ("blh", 4, 2.0, {}, {}),
    ("olh", 5, 1.5, {}, {}),
    ("ue", 4, None, {"p": 0.7, "q": 0.2}, {}),
    ("sue", 4, 2.0, {}, {}),
    ("oue", 4, 1.5, {}, {}),
    ("the", 4, 2.0, {"theta": 0.7}, {}),
    ("the", 4, 2.0, {"theta": 0.7}, {"method": "bernoulli"}),
]


def _id(case: tuple) -> str:
    name, _, _, _, options = case
    return "-".join([name, *map(str, options.values())])


def _protocol(case: tuple) -> protocols.Protocol:
    name, k, eps, params, _ = case
    return q.protocol(name, k, eps, **params)


def _variance_options(options: dict) -> dict:
    """The options of ``P.variance`` that match the sampling options (LH's hash family)."""
    return {key: options[key] for key in ("hash", "prime") if key in options}


def _population(k: int) -> tuple[np.ndarray, np.ndarray]:
    """A fixed population of n = 150 k (k + 1) / 2 users with frequencies f_v ∝ k - v."""
    counts = 150 * np.arange(k, 0, -1)
    xs = np.repeat(np.arange(k), counts)
    return xs, counts / counts.sum()


def _block(reports, start: int, stop: int):
    if isinstance(reports, LHReports):
        return reports.take(slice(start, stop))
    return reports[start:stop]


# ----------------------------------------------------------------------------------------
# support probabilities and variance against independent derivations
# ----------------------------------------------------------------------------------------
def _supports(P: protocols.Protocol, label, v: int, prime: int | None) -> bool:
    """Does the output ``label`` of P's explicit channel support the value v?"""
    if P.name == "grr":
        return label == v
    if P.name == "ss":
        return v in label
    if P.name in ("lh", "blh", "olh"):
        if prime is None:  # the paper's channel: (hash table, perturbed hash)
            table, y = label
            return table[v] == y
        a, b, y = label  # universal_lh_channel: (a, b, perturbed hash)
        return int(sim.universal_hash(a, b, v, P.params["g"], prime)) == y
    return label[v] == 1  # bit vectors (UE, THE)


def _enumerated_support_probabilities(P: protocols.Protocol, prime: int | None) -> np.ndarray:
    """S[x, v] = Pr[the report of x supports v], summed over the explicit channel's outputs."""
    if P.name in ("lh", "blh", "olh") and prime is not None:
        C = sim.universal_lh_channel(P.k, P.eps, P.params["g"], prime)
    else:
        C = P.channel()
    S = np.zeros((P.k, P.k))
    for j, label in enumerate(C.outputs):
        for v in range(P.k):
            if _supports(P, label, v, prime):
                S[:, v] += C.matrix[:, j]
    return S


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_support_probabilities_enumerate_the_explicit_channel(case):
    P = _protocol(case)
    options = _variance_options(case[4])
    prime = None
    if P.name in ("lh", "blh", "olh") and options.get("hash", "universal") == "universal":
        prime = options.get("prime", 7)  # a small prime keeps the universal channel small
        options = {"hash": "universal", "prime": prime}
    p_star, q_star = P.support_probabilities(**options)
    S = _enumerated_support_probabilities(P, prime)
    off = ~np.eye(P.k, dtype=bool)
    np.testing.assert_allclose(np.diag(S), p_star, rtol=1e-12)
    np.testing.assert_allclose(S[off], q_star, rtol=1e-12)


def test_variance_is_wang_et_al_closed_form():
    # Var* of Wang et al. (USENIX Security 2017, Sec. 4), divided by n^2 (frequencies)
    n, eps, e = 1000, 1.5, math.exp(1.5)
    g = round(e + 1)
    expected = {
        ("grr", 6): (e + 6 - 2) / (n * (e - 1) ** 2),
        ("oue", 6): 4 * e / (n * (e - 1) ** 2),
        ("sue", 6): math.exp(eps / 2) / (n * (math.exp(eps / 2) - 1) ** 2),
        ("olh", 6): (e - 1 + g) ** 2 / (n * (e - 1) ** 2 * (g - 1)),
    }
    for (name, k), value in expected.items():
        options = {"hash": "uniform"} if name == "olh" else {}
        assert math.isclose(q.protocol(name, k, eps).variance(n, **options), value, rel_tol=1e-12)


def test_variance_with_frequencies_is_the_bernoulli_sum():
    # Var[f_v] = [f_v p*(1 - p*) + (1 - f_v) q*(1 - q*)] / (n (p* - q*)^2), exact rationals
    from fractions import Fraction as F

    P = q.protocol("ue", 3, p=0.75, q=0.25)
    f = [F(1, 2), F(1, 3), F(1, 6)]
    p, qq, n = F(3, 4), F(1, 4), 60
    expected = [(fv * p * (1 - p) + (1 - fv) * qq * (1 - qq)) / (n * (p - qq) ** 2) for fv in f]
    np.testing.assert_allclose(P.variance(n, [float(x) for x in f]), [float(x) for x in expected])


# ----------------------------------------------------------------------------------------
# Monte Carlo: unbiased, with the protocol's variance
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_sample_then_estimate_is_unbiased_with_the_protocols_variance(case):
    P = _protocol(case)
    options = case[4]
    xs, f = _population(P.k)
    n = xs.size
    rng = np.random.default_rng(20260 + CASES.index(case))
    reports = P.sample(np.tile(xs, REPS), rng=rng, **options)  # REPS populations at once
    est = np.array([P.estimate(_block(reports, r * n, (r + 1) * n)) for r in range(REPS)])
    var = np.asarray(P.variance(n, f, **_variance_options(options)))
    assert var.shape == (P.k,)
    tail = ALPHA / (2 * P.k)  # two-sided, Bonferroni over the k values
    z = stats.norm.isf(tail)
    bias = np.abs(est.mean(axis=0) - f)
    assert np.all(bias <= z * np.sqrt(var / REPS)), (bias, z * np.sqrt(var / REPS))
    # (REPS - 1) s^2 / sigma^2 is close to chi-square(REPS - 1): each estimate is a sum
    # of n independent Bernoulli terms, so close to normal
    ratio = est.var(axis=0, ddof=1) / var
    lo, hi = stats.chi2.ppf([tail, 1 - tail], REPS - 1) / (REPS - 1)
    assert np.all((lo <= ratio) & (ratio <= hi)), (ratio, lo, hi)


def test_the_variance_band_rejects_a_wrong_variance():
    # the design can fail: twice the variance of OUE is outside the chi-square band
    P = q.protocol("oue", 4, 1.5)
    xs, f = _population(4)
    n = xs.size
    reports = P.sample(np.tile(xs, REPS), rng=1)
    est = np.array([P.estimate(reports[r * n : (r + 1) * n]) for r in range(REPS)])
    ratio = est.var(axis=0, ddof=1) / (2 * np.asarray(P.variance(n, f)))
    lo = stats.chi2.ppf(ALPHA / 8, REPS - 1) / (REPS - 1)
    assert np.all(ratio < lo)


# ----------------------------------------------------------------------------------------
# the flat names are aliases: the same results for the same seed
# ----------------------------------------------------------------------------------------
def _same(a, b) -> bool:
    if isinstance(a, LHReports):
        fields = ("y", "a", "b", "table")
        same_arrays = all(
            (getattr(a, x) is None and getattr(b, x) is None)
            or np.array_equal(getattr(a, x), getattr(b, x))
            for x in fields
        )
        return same_arrays and (a.k, a.g, a.prime) == (b.k, b.g, b.prime)
    return bool(np.array_equal(a, b)) and np.asarray(a).dtype == np.asarray(b).dtype


XS = np.array([0, 3, 1, 1, 2, 0, 3, 2, 0, 0] * 30)

#: (flat sampler call, protocol, sampling options): the flat call takes xs and rng.
FLAT_SAMPLERS = [
    (lambda xs, rng: sim.sample_grr(xs, 4, 1.0, rng), ("grr", 4, 1.0, {}), {}),
    (lambda xs, rng: sim.sample_ss(xs, 4, 1.0, 2, rng), ("ss", 4, 1.0, {"omega": 2}), {}),
    (
        lambda xs, rng: sim.sample_ss(xs, 4, 1.0, rng=rng, output="membership"),
        ("ss", 4, 1.0, {}),
        {"output": "membership"},
    ),
    (lambda xs, rng: sim.sample_lh(xs, 4, 1.0, 3, rng), ("lh", 4, 1.0, {"g": 3}), {}),
    (
        lambda xs, rng: sim.sample_lh(xs, 4, 1.0, 3, rng, hash="uniform"),
        ("lh", 4, 1.0, {"g": 3}),
        {"hash": "uniform"},
    ),
    (lambda xs, rng: sim.sample_blh(xs, 4, 1.0, rng, prime=11), ("blh", 4, 1.0, {}), {"prime": 11}),
    (lambda xs, rng: sim.sample_olh(xs, 4, 1.0, rng), ("olh", 4, 1.0, {}), {}),
    (
        lambda xs, rng: sim.sample_ue(xs, 4, 0.7, 0.2, rng),
        ("ue", 4, None, {"p": 0.7, "q": 0.2}),
        {},
    ),
    (lambda xs, rng: sim.sample_sue(xs, 4, 1.0, rng), ("sue", 4, 1.0, {}), {}),
    (lambda xs, rng: sim.sample_oue(xs, 4, 1.0, rng), ("oue", 4, 1.0, {}), {}),
    (lambda xs, rng: sim.sample_the(xs, 4, 1.0, 0.7, rng), ("the", 4, 1.0, {"theta": 0.7}), {}),
    (
        lambda xs, rng: sim.sample_the(xs, 4, 1.0, 0.7, rng, method="bernoulli"),
        ("the", 4, 1.0, {"theta": 0.7}),
        {"method": "bernoulli"},
    ),
]


@pytest.mark.parametrize("flat, spec, options", FLAT_SAMPLERS)
def test_flat_samplers_return_what_the_method_returns(flat, spec, options):
    name, k, eps, params = spec
    P = q.protocol(name, k, eps, **params)
    assert _same(flat(XS, 5), P.sample(XS, rng=5, **options))
    assert _same(
        flat(XS, np.random.default_rng(6)), P.sample(XS, np.random.default_rng(6), **options)
    )


def test_flat_estimators_variances_and_support_probabilities_are_the_methods():
    eps, n, f = 1.0, 300, [0.4, 0.3, 0.2, 0.1]
    G, S, U = (
        q.protocol("grr", 4, eps),
        q.protocol("ss", 4, eps, omega=2),
        q.protocol("sue", 4, eps),
    )
    O, T = q.protocol("oue", 4, eps), q.protocol("the", 4, eps, theta=0.7)
    E, L = q.protocol("ue", 4, p=0.7, q=0.2), q.protocol("lh", 4, eps, g=3)
    rg, rs, ru, ro, rt, re = (P.sample(XS, rng=3) for P in (G, S, U, O, T, E))
    rl = L.sample(XS, rng=3)
    pairs = [
        (sim.estimate_grr(rg, 4, eps), G.estimate(rg)),
        (sim.estimate_grr(rg, 4, eps, project=True), G.estimate(rg, project=True)),
        (sim.estimate_ss(rs, 4, eps), S.estimate(rs)),
        (sim.estimate_ss(rs, 4, eps, 2, project=True), S.estimate(rs, project=True)),
        (sim.estimate_lh(rl, eps), L.estimate(rl)),
        (sim.estimate_ue(re, 0.7, 0.2), E.estimate(re)),
        (sim.estimate_sue(ru, eps), U.estimate(ru)),
        (sim.estimate_oue(ro, eps), O.estimate(ro)),
        (sim.estimate_the(rt, eps, 0.7), T.estimate(rt)),
        (sim.variance_grr(4, eps, n, f), G.variance(n, f)),
        (sim.variance_ss(4, eps, n, f, omega=2), S.variance(n, f)),
        (sim.variance_lh(eps, 3, n, f), L.variance(n, f, hash="uniform")),
        (sim.variance_lh(eps, 3, n, f, prime=7), L.variance(n, f, prime=7)),
        (sim.variance_ue(0.7, 0.2, n, f), E.variance(n, f)),
        (sim.variance_sue(eps, n), U.variance(n)),
        (sim.variance_oue(eps, n, f), O.variance(n, f)),
        (sim.variance_the(eps, 0.7, n), T.variance(n)),
        (sim.grr_pq_star(4, eps), G.support_probabilities()),
        (sim.ss_pq_star(4, eps, 2), S.support_probabilities()),
        (sim.lh_pq_star(eps, 3), L.support_probabilities(hash="uniform")),
        (sim.lh_pq_star(eps, 3, sim.DEFAULT_PRIME), L.support_probabilities()),
    ]
    for flat, method in pairs:
        assert np.array_equal(flat, method)


def test_flat_attacks_are_the_methods():
    G, S, U = q.protocol("grr", 4, 1.0), q.protocol("ss", 4, 1.0), q.protocol("oue", 4, 1.0)
    T, L = q.protocol("the", 4, 1.0, theta=0.7), q.protocol("olh", 4, 1.0)
    pairs = [
        (sim.attack_grr, G, False),
        (sim.attack_ss, S, True),
        (sim.attack_ue, U, True),
        (sim.attack_the, T, True),
        (sim.attack_lh, L, True),
    ]
    for flat, P, seeded in pairs:
        reports = P.sample(XS, rng=2)
        method = P.attack(reports, rng=4)
        assert np.array_equal(flat(reports, rng=4) if seeded else flat(reports), method)


# ----------------------------------------------------------------------------------------
# where the code lives
# ----------------------------------------------------------------------------------------
FAMILIES = [
    (protocols.GRR, "grr"),
    (protocols.SS, "ss"),
    (protocols.LH, "lh"),
    (protocols.UE, "ue"),
    (protocols.THE, "the"),
]
METHODS = ("sample", "estimate", "support_probabilities", "attack")


def _called_names(fn) -> set[str]:
    """Every name and attribute a function's body calls or imports."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Name):
            names.add(node.id)
    return names


@pytest.mark.parametrize("cls, module", FAMILIES)
def test_implementations_live_in_the_family_module(cls, module):
    flat = {name for name in sim.__all__ if name.split("_")[0] in ("sample", "estimate", "attack")}
    flat |= {name for name in sim.__all__ if name.startswith("variance_") or "pq_star" in name}
    flat -= {"sample", "estimate_inversion", "variance_inversion"}
    for method in METHODS:
        fn = getattr(cls, method)
        # in the family's module, or in a base shared by families (UE and THE's estimate)
        owner = next(base for base in cls.__mro__ if method in vars(base))
        home = module if owner is cls else owner.__module__.rsplit(".", 1)[-1]
        assert owner is cls or owner.__module__.startswith("qifldp.protocols."), (cls, method)
        assert inspect.getmodule(fn) is getattr(protocols, home), (cls, method)
        assert inspect.getsourcefile(fn).endswith(f"qifldp/protocols/{home}.py")
        assert not _called_names(fn) & flat, (cls, method, _called_names(fn) & flat)


def test_flat_names_are_one_line_aliases():
    from qifldp.faces.simulation import flat_method

    generated = flat_method("sample", "grr").__code__
    generated_names: set[str] = set()
    checked = 0
    for name in sim.__all__:
        fn = getattr(sim, name)
        is_flat = name.startswith(("sample_", "estimate_", "variance_", "attack_"))
        if not (inspect.isfunction(fn) and (is_flat or name.endswith("_pq_star"))):
            continue
        if name in ("estimate_inversion", "variance_inversion"):
            continue
        if fn.__code__ is generated:  # made from the catalogue by the one generator
            generated_names.add(name)
        else:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
            body = tree.body[0].body
            assert len(body) <= 2, name  # a return, or a check and a return
            assert isinstance(body[-1], ast.Return), name
        target = fn.__doc__.split("`")[1]
        assert target.startswith("qifldp.protocols."), name
        assert "Examples" in fn.__doc__ and ">>>" in fn.__doc__, name
        checked += 1
    assert (
        checked == 31
    )  # 9 samplers, 3 support probabilities, 7 estimators, 7 variances, 5 attacks
    assert len(generated_names) == 26  # all but the attacks, one-line functions


def test_the_protocol_objects_do_not_import_the_flat_names():
    # the family modules import simulation machinery only (no flat alias), so the
    # flat names can import the protocols at module level without a cycle
    flat = {n for n in sim.__all__ if n.startswith(("sample_", "estimate_", "variance_"))}
    flat |= {n for n in sim.__all__ if n.startswith("attack_") or n.endswith("_pq_star")}
    for module in ("grr", "ss", "lh", "ue", "the", "base"):
        source = inspect.getsource(
            getattr(protocols, module) if module != "base" else protocols.base
        )
        tree = ast.parse(source)
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert not imported & flat, (module, imported & flat)


@pytest.mark.parametrize("name", ["sample_oue", "estimate_ss", "variance_lh", "attack_lh"])
def test_flat_names_keep_their_signatures(name):
    expected = {
        "sample_oue": "(xs: Any, k: int, eps: float, rng: Any = None) -> numpy.ndarray",
        "estimate_ss": (
            "(reports: Any, k: int, eps: float, omega: int | None = None, *, "
            "project: bool = False) -> numpy.ndarray"
        ),
        "variance_lh": (
            "(eps: float, g: int, n: int, f: Any = None, prime: int | None = None)"
            " -> numpy.ndarray | float"
        ),
        "attack_lh": (
            "(reports: qifldp.simulation.samplers.LHReports, rng: Any = None) -> numpy.ndarray"
        ),
    }
    assert str(inspect.signature(getattr(sim, name), eval_str=True)) == expected[name]


def test_unknown_options_are_refused_by_name():
    P = q.protocol("ss", 4, 1.0)
    with pytest.raises(
        q.errors.InputTypeError, match="sample\\(\\) takes the option output; got hash"
    ):
        P.sample([0], rng=0, hash="uniform")
    with pytest.raises(q.errors.InputTypeError, match="takes no options"):
        q.protocol("grr", 4, 1.0).sample([0], rng=0, output="subsets")
    with pytest.raises(q.errors.InputTypeError, match="support_probabilities\\(\\) takes"):
        q.protocol("lh", 4, 1.0, g=2).support_probabilities(method="x")


def test_lh_estimate_uses_the_reports_hash_family():
    # the same protocol estimates reports of either family without being told which
    P = q.protocol("lh", 3, 2.0, g=2)
    for hash_, prime in itertools.product(("uniform", "universal"), (5, sim.DEFAULT_PRIME)):
        R = P.sample(np.repeat([0, 1, 2], [3000, 2000, 1000]), rng=0, hash=hash_, prime=prime)
        family = {"hash": hash_, "prime": prime}
        p, qq = P.support_probabilities(**family)
        counts = sim.support_counts(R)
        np.testing.assert_allclose(P.estimate(R), (counts / len(R) - qq) / (p - qq))
