"""Issue 9, item 1: protocol objects (``q.protocol``) against the flat constructors and the papers.

Provenance of the hand-computed parameters: GRR p = e^eps / (e^eps + k - 1) (Kairouz
et al. 2016; QIF paper Sec. V-A); SS p = omega e^eps / (omega e^eps + k - omega),
default omega = max(1, round(k / (e^eps + 1))) (Ye and Barg 2018; Wang et al. 2016);
LH p = e^eps / (e^eps + g - 1), OLH g = round(e^eps + 1) (Wang et al., USENIX
Security 2017, Sec. 4.4); SUE p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p (RAPPOR);
OUE p = 1/2, q = 1 / (e^eps + 1) (Wang et al. 2017, Sec. 4.3); THE
q = e^(-eps theta / 2) / 2, p = 1 - e^(eps (theta - 1) / 2) / 2 (QIF paper Sec. V-E).
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import sympy as sp

import qifldp as q
from qifldp import symbolic as sym_b, symmetric as sym_s
from qifldp.errors import InputTypeError, ParameterError, SizeError
from tests.protocols._restriction import assert_restriction_is_the_merged_rows

#: name -> (params, flat explicit constructor, flat symmetric, flat symbolic), each (k, eps).
FLAT = {
    "grr": ({}, q.grr, sym_s.grr, sym_b.grr),
    "ss": ({}, q.subset_selection, sym_s.subset_selection, sym_b.subset_selection),
    "ss2": (
        {"omega": 2},
        lambda k, e: q.subset_selection(k, e, 2),
        lambda k, e: sym_s.subset_selection(k, e, 2),
        lambda k, e: sym_b.subset_selection(k, e, 2),
    ),
    "lh": (
        {"g": 3},
        lambda k, e: q.local_hashing(k, e, 3),
        lambda k, e: sym_s.local_hashing(k, e, 3),
        lambda k, e: sym_b.local_hashing(k, e, 3),
    ),
    "blh": ({}, q.blh, sym_s.blh, sym_b.blh),
    "olh": ({}, q.olh, sym_s.olh, sym_b.olh),
    "sue": ({}, q.sue, sym_s.sue, sym_b.sue),
    "oue": ({}, q.oue, sym_s.oue, sym_b.oue),
    "the": (
        {"theta": 0.7},
        lambda k, e: q.the(k, e, 0.7),
        lambda k, e: sym_s.the(k, e, 0.7),
        lambda k, e: sym_b.the(k, e, 0.7),
    ),
}

NAMES = ["grr", "ss", "lh", "blh", "olh", "ue", "sue", "oue", "the"]


def _make(case: str, k: int, eps: float) -> q.Protocol:
    params = FLAT[case][0]
    return q.protocol("ss" if case == "ss2" else case, k, eps, **params)


def _same_channel(A: q.Channel, B: q.Channel) -> None:
    assert A.inputs == B.inputs
    assert A.outputs == B.outputs
    assert np.array_equal(A.matrix, B.matrix)


@pytest.mark.parametrize("case", list(FLAT))
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("eps", [0.0, 1.0, 40.0])
def test_channel_and_symmetric_equal_flat_constructors(case, k, eps):
    P = _make(case, k, eps)
    _, flat, flat_sym, _ = FLAT[case]
    if case == "olh" and eps == 40.0:  # g = round(e^40 + 1): too large for any explicit channel
        with pytest.raises(SizeError):
            P.channel()
        with pytest.raises(SizeError):
            flat(k, eps)
    else:
        C = P.channel()
        _same_channel(C, flat(k, eps))
        # an independent code path: the symmetric channel expanded
        E = P.symmetric().expand()
        assert E.inputs == C.inputs and E.outputs == C.outputs
        np.testing.assert_allclose(E.matrix, C.matrix, rtol=1e-9, atol=1e-12)
    assert P.symmetric() == flat_sym(k, eps)


LARGE = [(case, 10**5, eps) for case in FLAT for eps in (1.0, 40.0)] + [
    ("grr", 10**6, 3.0),
    ("oue", 10**6, 3.0),
]


@pytest.mark.parametrize(("case", "k", "eps"), LARGE)
def test_symmetric_at_large_k(case, k, eps):
    P = _make(case, k, eps)
    S = P.symmetric()
    assert S == FLAT[case][2](k, eps)
    assert math.isclose(q.bayes_capacity(S), P.closed_form.bayes_capacity(), rel_tol=1e-9)
    with pytest.raises(SizeError):
        P.channel()


@pytest.mark.parametrize("case", list(FLAT))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("eps", [0.0, 1.3, 40.0])
def test_symbolic_equals_flat_and_channel(case, k, eps):
    P = _make(case, k, eps)
    if case == "olh" and eps == 40.0:
        return  # no explicit channel to compare with (checked in the test above)
    C = P.channel()
    S = P.symbolic()
    flat = FLAT[case][3](k, eps)
    assert S.outputs == flat.outputs and S.inputs == flat.inputs
    assert S.matrix == flat.matrix
    np.testing.assert_allclose(S.evaluate().matrix, C.matrix, rtol=0, atol=1e-12)
    # eps as a symbol, evaluated at the protocol's eps
    e = sp.Symbol("eps")
    T = P.symbolic(eps=e)
    if not (case == "ss2" and k == 2):  # omega = k: the constant channel
        assert e in T.matrix.free_symbols
    np.testing.assert_allclose(T.evaluate(eps=eps).matrix, C.matrix, rtol=0, atol=1e-12)


def test_symbolic_other_parameters_as_symbols():
    P = q.protocol("the", 3, 1.3, theta=0.7)
    T = P.symbolic(eps="e", theta="t")
    assert {str(s) for s in T.matrix.free_symbols} == {"e", "t"}
    np.testing.assert_allclose(T.evaluate(e=1.3, t=0.7).matrix, P.channel().matrix, atol=1e-12)
    U = q.protocol("ue", 3, p=0.75, q=0.25)
    V = U.symbolic(p=sp.Symbol("p"), q=sp.Symbol("q"))
    np.testing.assert_allclose(V.evaluate(p=0.75, q=0.25).matrix, U.channel().matrix, atol=1e-12)
    with pytest.raises(InputTypeError, match="theta"):
        q.protocol("grr", 3, 1.0).symbolic(theta="t")
    with pytest.raises(InputTypeError, match="eps"):
        U.symbolic(eps="e")


def test_ue_from_p_and_q_equals_unary_encoding():
    P = q.protocol("ue", 4, p=0.7, q=0.2)
    _same_channel(P.channel(), q.unary_encoding(4, 0.7, 0.2))
    assert P.symmetric() == sym_s.unary_encoding(4, 0.7, 0.2)
    assert P.symbolic().matrix == sym_b.unary_encoding(4, 0.7, 0.2).matrix
    assert math.isclose(P.eps, math.log(0.7 * 0.8 / (0.3 * 0.2)), rel_tol=1e-12)
    assert math.isclose(P.eps, q.ldp_epsilon(P.channel()), rel_tol=1e-9)


# ------------------------------------------------------------------------------ params
@pytest.mark.parametrize("k", [2, 7, 1000])
@pytest.mark.parametrize("eps", [0.0, 0.5, 3.0, 40.0])
def test_params_against_the_papers(k, eps):
    E = math.exp(eps)
    P = q.protocol("grr", k, eps).params
    assert math.isclose(P["p"], E / (E + k - 1), rel_tol=1e-12)
    assert math.isclose(P["q"], 1 / (E + k - 1), rel_tol=1e-12)

    P = q.protocol("ss", k, eps).params
    omega = max(1, round(k / (E + 1)))
    assert P["omega"] == omega
    assert math.isclose(P["p"], omega * E / (omega * E + k - omega), rel_tol=1e-12)
    # q = (p (omega - 1) + (1 - p) omega) / (k - 1), written without the cancellation in 1 - p
    want = omega * (E * (omega - 1) + k - omega) / ((k - 1) * (omega * E + k - omega))
    assert math.isclose(P["q"], want, rel_tol=1e-12)

    for name, g in (("blh", 2), ("olh", max(2, round(E + 1))), ("lh", 5)):
        P = q.protocol(name, k, eps, **({"g": 5} if name == "lh" else {})).params
        assert P["g"] == g
        assert math.isclose(P["p"], E / (E + g - 1), rel_tol=1e-12)
        assert math.isclose(P["q"], 1 / (E + g - 1), rel_tol=1e-12)

    H = math.exp(eps / 2)
    P = q.protocol("sue", k, eps).params
    assert math.isclose(P["p"], H / (H + 1), rel_tol=1e-12)
    assert math.isclose(P["q"], 1 / (H + 1), rel_tol=1e-12)

    P = q.protocol("oue", k, eps).params
    assert P["p"] == 0.5
    assert math.isclose(P["q"], 1 / (E + 1), rel_tol=1e-12)

    P = q.protocol("the", k, eps, theta=0.8).params
    assert P["theta"] == 0.8
    assert math.isclose(P["q"], math.exp(-eps * 0.8 / 2) / 2, rel_tol=1e-12)
    assert math.isclose(P["p"], 1 - math.exp(eps * (0.8 - 1) / 2) / 2, rel_tol=1e-12)


def test_name_k_eps_and_params_is_a_copy():
    P = q.protocol("olh", 6, 2)
    assert (P.name, P.k, P.eps) == ("olh", 6, 2.0)
    assert isinstance(P.eps, float)
    d = P.params
    d["g"] = 99
    assert P.params["g"] == round(math.exp(2) + 1)
    assert isinstance(P, q.LH) and isinstance(P, q.Protocol)
    assert isinstance(q.protocol("sue", 3, 1.0), q.UE)
    assert isinstance(q.protocol("the", 3, 1.0, theta=0.7), q.THE)
    assert isinstance(q.protocol("ss", 3, 1.0), q.SS)
    assert isinstance(q.protocol("grr", 3, 1.0), q.GRR)


# ------------------------------------------------------------------------------ object
def test_frozen_hashable_equal():
    P = q.protocol("oue", 4, 1.0)
    with pytest.raises(AttributeError, match="frozen"):
        P.k = 5
    with pytest.raises(AttributeError, match="frozen"):
        P.eps = 2.0
    with pytest.raises(AttributeError, match="frozen"):
        del P.k
    assert P.k == 4
    same = q.protocol("oue", 4, 1)
    assert P == same and hash(P) == hash(same)
    assert P != q.protocol("oue", 4, 1.5)
    assert P != q.protocol("oue", 5, 1.0)
    assert P != q.protocol("sue", 4, 1.0)
    ue = q.protocol("ue", 4, p=P.params["p"], q=P.params["q"])
    assert ue != P  # same p, q, another name
    assert q.protocol("ss", 10, 1.0) == q.protocol("ss", 10, 1.0, omega=3)  # default omega = 3
    assert q.protocol("ss", 10, 1.0) != q.protocol("ss", 10, 1.0, omega=2)
    assert q.protocol("lh", 4, 1.0, g=2) != q.protocol("blh", 4, 1.0)
    assert P != "oue" and P != None  # noqa: E711
    table = {P: "a", q.protocol("grr", 4, 1.0): "b"}
    assert table[q.protocol("oue", 4, 1.0)] == "a"
    assert len({P, same, ue}) == 2
    assert pickle.loads(pickle.dumps(ue)) == ue
    assert pickle.loads(pickle.dumps(q.protocol("the", 3, 1.0, theta=0.7))).params["theta"] == 0.7


def test_repr_is_readable_and_rebuilds():
    cases = [
        (q.protocol("oue", 4, 1.0), "protocol('oue', k=4, eps=1.0)"),
        (q.protocol("ss", 10, 1.0), "protocol('ss', k=10, eps=1.0, omega=3)"),
        (q.protocol("lh", 4, 1.0, g=3), "protocol('lh', k=4, eps=1.0, g=3)"),
        (q.protocol("the", 4, 2, theta=0.75), "protocol('the', k=4, eps=2.0, theta=0.75)"),
        (q.protocol("ue", 4, p=0.75, q=0.25), "protocol('ue', k=4, p=0.75, q=0.25)"),
    ]
    for P, text in cases:
        assert repr(P) == text
        assert eval(text, {"protocol": q.protocol}) == P
    assert "closed forms" in repr(cases[0][0].closed_form)


# ------------------------------------------------------------------------------ errors
def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return type(exc), str(exc)
    return None


BAD = [
    ("grr", (1, 1.0), {}, lambda: q.grr(1, 1.0)),
    ("grr", (2.5, 1.0), {}, lambda: q.grr(2.5, 1.0)),
    ("grr", (3, -1.0), {}, lambda: q.grr(3, -1.0)),
    ("grr", (3, math.nan), {}, lambda: q.grr(3, math.nan)),
    ("grr", (3, math.inf), {}, lambda: q.grr(3, math.inf)),
    ("grr", (3, "1"), {}, lambda: q.grr(3, "1")),
    ("ss", (4, 1.0), {"omega": 0}, lambda: q.subset_selection(4, 1.0, 0)),
    ("ss", (4, 1.0), {"omega": 5}, lambda: q.subset_selection(4, 1.0, 5)),
    ("ss", (4, -1.0), {"omega": 5}, lambda: q.subset_selection(4, -1.0, 5)),
    ("lh", (3, 1.0), {"g": 1}, lambda: q.local_hashing(3, 1.0, 1)),
    ("lh", (3, -1.0), {"g": 1}, lambda: q.local_hashing(3, -1.0, 1)),  # g is checked first
    ("lh", (3, 1.0), {"g": None}, lambda: q.local_hashing(3, 1.0, None)),  # omitted: "needs g"
    ("blh", (1, 1.0), {}, lambda: q.blh(1, 1.0)),
    ("olh", (3, -0.5), {}, lambda: q.olh(3, -0.5)),
    ("ue", (3,), {"p": 0.2, "q": 0.5}, lambda: q.unary_encoding(3, 0.2, 0.5)),
    ("ue", (3,), {"p": 1.2, "q": 0.5}, lambda: q.unary_encoding(3, 1.2, 0.5)),
    ("ue", (1,), {"p": 0.7, "q": 0.2}, lambda: q.unary_encoding(1, 0.7, 0.2)),
    ("sue", (3, -1.0), {}, lambda: q.sue(3, -1.0)),
    ("oue", (0, 1.0), {}, lambda: q.oue(0, 1.0)),
    ("the", (3, 1.0), {"theta": 0.5}, lambda: q.the(3, 1.0, 0.5)),
    ("the", (3, 1.0), {"theta": 1.2}, lambda: q.the(3, 1.0, 1.2)),
    ("the", (3, -1.0), {"theta": 1.2}, lambda: q.the(3, -1.0, 1.2)),
    ("the", (3, 1.0), {"theta": "x"}, lambda: q.the(3, 1.0, "x")),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "flat"), BAD)
def test_bad_parameters_raise_as_the_flat_constructors(name, args, kwargs, flat):
    got = _error(lambda: q.protocol(name, *args, **kwargs))
    want = _error(flat)
    assert want is not None and got == want
    assert issubclass(got[0], (ValueError, TypeError))


def test_large_olh_eps_is_refused_as_before():
    # the flat olh refuses eps > 50 from the size estimate (before forming g);
    # the protocol itself cannot form g beyond eps = 9000 and says so.
    with pytest.raises(SizeError, match="olh"):
        q.olh(3, 10_000.0)
    with pytest.raises(SizeError, match="olh"):
        q.olh(3, 800.0)
    # as qifldp.symmetric.olh: g = round(e^eps + 1) beyond the float range is refused
    with pytest.raises(ParameterError, match="g = ~10"):
        q.protocol("olh", 3, 800.0)
    with pytest.raises(ParameterError, match="g = ~10"):
        q.symmetric.olh(3, 800.0)
    with pytest.raises(SizeError, match="qifldp.symmetric.olh"):
        q.protocol("olh", 3, 600.0).channel()


def test_names_and_parameters_checked():
    with pytest.raises(ParameterError, match="name must be one of grr, ss, lh, blh, olh, ue"):
        q.protocol("no-such-oracle", 3, 1.0)
    with pytest.raises(InputTypeError, match="name"):
        q.protocol(3, 3, 1.0)
    with pytest.raises(InputTypeError, match="takes theta; got omega"):
        q.protocol("the", 3, 1.0, theta=0.7, omega=2)
    with pytest.raises(InputTypeError, match="no parameters besides k and eps; got g"):
        q.protocol("grr", 3, 1.0, g=2)
    with pytest.raises(InputTypeError, match="no parameters besides k and eps; got g"):
        q.protocol("olh", 3, 1.0, g=2)
    with pytest.raises(ParameterError, match="blh fixes g"):
        q.LH(3, 1.0, 3, variant="blh")
    with pytest.raises(InputTypeError, match="takes p and q, not eps"):
        q.protocol("ue", 3, 1.0, p=0.7, q=0.2)
    with pytest.raises(InputTypeError, match="sets p and q from eps"):
        q.UE(3, 1.0, p=0.7, variant="sue")
    with pytest.raises(ParameterError, match="variant"):
        q.UE(3, 1.0, variant="rappor")
    with pytest.raises(InputTypeError, match="family"):
        q.protocols.UEClosedForm(q.protocol("grr", 3, 1.0))
    with pytest.raises(InputTypeError, match="takes no options"):
        q.protocol("grr", 3, 1.0).support_probabilities(hash="uniform")


# ------------------------------------------------------------------------------ closed forms
CLOSED = [
    ("grr", {}),
    ("ss", {}),
    ("ss", {"omega": 3}),
    ("lh", {"g": 3}),
    ("blh", {}),
    ("olh", {}),
    ("sue", {}),
    ("oue", {}),
    ("the", {"theta": 0.7}),
]


#: (name, params, k, eps); OLH only where g = round(e^eps + 1) keeps the channel small.
CLOSED_CASES = [
    (name, params, k, eps)
    for name, params in CLOSED
    for k in (3, 5)
    for eps in (0.5, 2.0, 6.0)
    if name != "olh" or eps <= 2.0
]


@pytest.mark.parametrize(("name", "params", "k", "eps"), CLOSED_CASES)
def test_closed_forms_equal_the_measures_of_the_channel(name, params, k, eps):
    P = q.protocol(name, k, eps, **params)
    C = P.channel()
    cf = P.closed_form
    assert math.isclose(cf.bayes_capacity(), q.bayes_capacity(C), rel_tol=1e-9)
    assert math.isclose(cf.asr(), q.asr(C), rel_tol=1e-9)
    assert math.isclose(cf.ldp_epsilon(), q.ldp_epsilon(C), rel_tol=1e-7, abs_tol=1e-9)
    for method in ("bayes_capacity", "asr", "ldp_epsilon"):
        assert getattr(type(cf), method).__doc__  # each formula documents its source


def test_closed_forms_special_cases():
    U = q.protocol("ue", 4, p=0.7, q=0.2)
    assert math.isclose(U.closed_form.bayes_capacity(), q.bayes_capacity(U.channel()), rel_tol=1e-9)
    assert math.isclose(U.closed_form.ldp_epsilon(), q.ldp_epsilon(U.channel()), rel_tol=1e-9)
    assert q.protocol("ue", 4, p=1.0, q=0.2).closed_form.ldp_epsilon() == math.inf
    assert q.protocol("ss", 4, 1.0, omega=4).closed_form.ldp_epsilon() == 0.0
    assert q.ldp_epsilon(q.protocol("ss", 4, 1.0, omega=4).channel()) == 0.0
    L = q.protocol("lh", 3, 1.0, g=2).closed_form
    assert math.isclose(L.asr_gursoy(), q.formulas.asr_lh_gursoy(3, 1.0, 2))
    # a formula of the flat module, for the same parameters
    assert q.protocol("oue", 30, 2.0).closed_form.asr() == pytest.approx(
        q.formulas.asr_oue(30, 2.0), rel=1e-12
    )


# ------------------------------------------------------------------------------ simulation
SIM = [
    ("grr", {}),
    ("ss", {}),
    ("lh", {"g": 3}),
    ("blh", {}),
    ("olh", {}),
    ("ue", {"p": 0.7, "q": 0.3}),
    ("sue", {}),
    ("oue", {}),
    ("the", {"theta": 0.7}),
]


def _protocol(name, params, k, eps):
    if name == "ue":
        return q.protocol("ue", k, **params)
    return q.protocol(name, k, eps, **params)


#: A fixed distribution over k = 8 values (counts of n = 200,000 users).
COUNTS = np.array([50_000, 40_000, 30_000, 25_000, 20_000, 15_000, 12_000, 8_000])


@pytest.mark.parametrize(("name", "params"), SIM)
def test_sample_estimate_is_unbiased(name, params):
    P = _protocol(name, params, 8, 1.0)
    n = int(COUNTS.sum())
    xs = np.repeat(np.arange(8), COUNTS)
    f = COUNTS / n
    f_hat = P.estimate(P.sample(xs, rng=12345))
    assert f_hat.shape == (8,)
    sd = np.sqrt(P.variance(n, f))
    assert np.all(np.abs(f_hat - f) <= 5 * sd), (f_hat - f) / sd
    projected = P.estimate(P.sample(xs, rng=1), project=True)
    assert np.all(projected >= 0) and math.isclose(projected.sum(), 1.0)


@pytest.mark.parametrize(("name", "params"), SIM)
def test_empirical_variance_matches_variance(name, params):
    from scipy import stats

    k, n, reps = 8, 1000, 40
    P = _protocol(name, params, k, 1.0)
    counts = np.array([300, 200, 150, 100, 100, 80, 40, 30])
    xs = np.repeat(np.arange(k), counts)
    f = counts / n
    est = np.array([P.estimate(P.sample(xs, rng=seed)) for seed in range(reps)])
    var = P.variance(n, f)
    # Σ_v (reps - 1) s_v² / σ_v² is about χ²(k (reps - 1)) (the k estimates are nearly
    # independent at k = 8); band at 1e-5 each side
    T = float(np.sum((reps - 1) * est.var(axis=0, ddof=1) / var))
    df = k * (reps - 1)
    assert stats.chi2.ppf(1e-5, df) < T < stats.chi2.ppf(1 - 1e-5, df), T / df


def test_variance_without_f_and_lh_hash_options():
    P = q.protocol("oue", 8, 1.0)
    E = math.e
    assert math.isclose(P.variance(1000), 4 * E / (1000 * (E - 1) ** 2), rel_tol=1e-12)
    L = q.protocol("olh", 8, 1.0)
    g = L.params["g"]
    p = E / (E + g - 1)
    # uniform hashing: q* = 1/g (Wang et al. 2017)
    assert L.support_probabilities(hash="uniform") == pytest.approx((p, 1 / g), rel=1e-12)
    want = (1 / g) * (1 - 1 / g) / (1000 * (p - 1 / g) ** 2)
    assert math.isclose(L.variance(1000, hash="uniform"), want, rel_tol=1e-12)
    xs = np.repeat(np.arange(8), 2000)
    R = L.sample(xs, rng=3, hash="uniform")
    assert R.table is not None
    sd = np.sqrt(L.variance(xs.size, np.full(8, 1 / 8), hash="uniform"))
    assert np.all(np.abs(L.estimate(R) - 1 / 8) <= 5 * sd)
    with pytest.raises(ParameterError, match="variance|eps|undefined"):
        q.protocol("grr", 4, 0.0).variance(100)


def test_estimate_refuses_reports_of_another_protocol():
    L = q.protocol("olh", 4, 1.0)
    R = q.protocol("blh", 4, 1.0).sample([0, 1, 2], rng=0)
    with pytest.raises(ParameterError, match="g = 2"):
        L.estimate(R)
    U = q.protocol("oue", 4, 1.0)
    bits = q.protocol("oue", 3, 1.0).sample([0, 1, 2], rng=0)
    with pytest.raises(ParameterError, match="k = 4 columns"):
        U.estimate(bits)
    with pytest.raises(ParameterError, match="k = 4 columns"):
        U.attack(bits)


@pytest.mark.parametrize(
    ("name", "params"),
    [("grr", {}), ("ss", {}), ("sue", {}), ("oue", {}), ("the", {"theta": 0.7})],
)
def test_attack_success_matches_closed_form_asr(name, params):
    # these attacks are Bayes-optimal under a uniform prior, so their success is ASR = ML / k
    k, n = 8, 40_000
    P = _protocol(name, params, k, 1.5)
    rng = np.random.default_rng(7)
    xs = rng.integers(0, k, size=n)
    guesses = P.attack(P.sample(xs, rng=8), rng=9)
    assert guesses.shape == (n,) and guesses.min() >= 0 and guesses.max() < k
    rate = float(np.mean(guesses == xs))
    a = P.closed_form.asr()
    assert abs(rate - a) <= 5 * math.sqrt(a * (1 - a) / n)


def test_lh_attack_guesses_in_domain():
    P = q.protocol("olh", 6, 2.0)
    xs = np.arange(6).repeat(50)
    guesses = P.attack(P.sample(xs, rng=0), rng=1)
    assert guesses.shape == xs.shape and set(guesses.tolist()) <= set(range(6))
    assert np.mean(guesses == xs) > 1 / 6  # better than a blind guess (ASR ~ 0.35 here)


def test_all_names_covered():
    assert q.protocols.PROTOCOL_NAMES == tuple(NAMES)
    assert {name for name, _ in SIM} == set(NAMES)


# ----------------------------------------------------------------------------------------
# ADP: the oracle of smaller variance
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("k", [2, 3, 5, 6, 10, 11, 20, 50, 200])
def test_adp_chooses_the_oracle_of_smaller_variance(k, eps):
    # the choice against the two oracles' own variances at frequency 0 (Wang et al. 2017)
    grr = q.protocol("grr", k, eps).variance(1000)
    oue = q.protocol("oue", k, eps).variance(1000)
    P = q.protocol("adp", k, eps)
    assert P == q.protocol("grr" if grr <= oue else "oue", k, eps)


def test_adp_at_the_boundary_and_the_limits():
    assert q.protocol("adp", 10, 1.0).name == "grr"  # 10 <= 3 e + 2 = 10.15
    assert q.protocol("adp", 11, 1.0).name == "oue"
    assert q.protocol("adp", 5, 0.0).name == "grr" and q.protocol("adp", 6, 0.0).name == "oue"
    assert q.protocol("adp", 10**6, 800.0).name == "grr"
    assert q.protocol("Adaptive", 4, 1.0) == q.protocol("grr", 4, 1.0)


# ---------------------------------------------------------------- restriction to rows


@pytest.mark.parametrize(
    ("name", "args", "params"),
    [
        ("grr", (5, 1.0), {}),
        ("ss", (6, 1.0), {"omega": 2}),
        ("olh", (4, 2.0), {}),
        ("blh", (3, 1.0), {}),
        ("sue", (4, 1.0), {}),
        ("oue", (5, 0.0), {}),
        ("the", (4, 1.0), {"theta": 0.75}),
    ],
)
def test_restricted_by_default_is_the_channel_rows_with_equal_columns_merged(name, args, params):
    assert_restriction_is_the_merged_rows(q.protocol(name, *args, **params))


def test_restricted_refutes_a_refinement_on_rows_where_the_full_channels_refute_it():
    # A ⊑ B gives A|S ⊑ B|S with the same witness: a failure on 8 rows is one on all 16
    A, B = q.protocol("sue", 16, 1.0), q.protocol("hr", 16, 1.0)
    rows = range(8)
    assert not q.refines(A.restricted(rows), B.restricted(rows)).holds
    # and a refinement that holds on the full channels holds on their rows
    G, H = q.protocol("grr", 6, 2.0), q.protocol("grr", 6, 1.0)
    assert q.refines(G.restricted([4, 1, 2]), H.restricted([4, 1, 2])).holds


BAD_INPUTS = [
    ([], ParameterError, "at least one"),
    ([0, 2, 0], ParameterError, "distinct"),
    ([4], ParameterError, r"inputs\[0\] must be <= 3"),
    ([1, -1], ParameterError, r"inputs\[1\] must be >= 0"),
    ([0.5], InputTypeError, "must be an integer"),
    ([True], InputTypeError, "must be an integer"),
    ([None], InputTypeError, "must be an integer"),
    ("01", InputTypeError, "sequence of integers"),
    (3, InputTypeError, "sequence of integers"),
    (None, InputTypeError, "sequence of integers"),
    (np.zeros((2, 2), dtype=int), InputTypeError, "1-D"),
    ([[0, 1]], InputTypeError, "must be an integer"),
]


@pytest.mark.parametrize("name", ["hr", "grr", "rappor"])
@pytest.mark.parametrize(("inputs", "error", "match"), BAD_INPUTS)
def test_restricted_refuses_bad_inputs_naming_them(name, inputs, error, match):
    P = q.protocol(name, 4, 1.0) if name != "rappor" else q.protocol(name, 4, m=4)
    with pytest.raises(error, match=match) as info:
        P.restricted(inputs)
    assert "inputs" in str(info.value)
