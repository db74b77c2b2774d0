"""RefinementResult.explain(): every number of the account recomputed independently."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.refinement.explain import explain_refinement, explanation_data


def _enumerated_best(M: np.ndarray, gain: np.ndarray, prior: np.ndarray, y: int) -> float:
    """max_w sum_x gain[w, x] pi_x M[x, y], by loops."""
    best = -np.inf
    for w in range(gain.shape[0]):
        v = sum(gain[w, x] * prior[x] * M[x, y] for x in range(M.shape[0]))
        best = max(best, v)
    return best


def _labelled(M, inputs, outputs):
    return q.Channel(np.asarray(M, dtype=float), inputs=inputs, outputs=outputs)


@pytest.fixture(scope="module")
def pair():
    A = _labelled(q.grr(3, 1.0).matrix, ("ann", "bob", "cy"), ("u", "v", "w"))
    B = _labelled(q.grr(3, 2.0).matrix, ("ann", "bob", "cy"), ("p", "r", "s"))
    return A, B


def test_counterexample_numbers_match_g_vulnerability(pair):
    A, B = pair
    r = q.refines(A, B)
    assert not r
    ce = r.counterexample
    d = r.explanation()
    assert d["kind"] == "counterexample"
    va = q.g_vulnerability(A, ce.gain, ce.prior)
    vb = q.g_vulnerability(B, ce.gain, ce.prior)
    assert d["vulnerability_a"] == pytest.approx(va, abs=1e-12)
    assert d["vulnerability_b"] == pytest.approx(vb, abs=1e-12)
    assert d["gap"] == pytest.approx(vb - va, abs=1e-12)
    # normalisation: c_x = column minima, s = largest shifted entry
    c = ce.gain.min(axis=0)
    s = (ce.gain - c).max()
    gn = (ce.gain - c) / s
    assert gn.min() == pytest.approx(0.0) and gn.max() == pytest.approx(1.0)
    norm = d["normalisation"]
    assert norm["scale"] == pytest.approx(s)
    assert norm["shift"] == pytest.approx(c.tolist())
    assert norm["shift_effect"] == pytest.approx(float(ce.prior @ c))
    # shifting per input moves V_g of both channels by sum_x pi_x c_x ...
    shifted = ce.gain - c
    assert q.g_vulnerability(A, shifted, ce.prior) == pytest.approx(va - norm["shift_effect"])
    assert q.g_vulnerability(B, shifted, ce.prior) == pytest.approx(vb - norm["shift_effect"])
    # ... and scaling divides the gap
    van, vbn = q.g_vulnerability(A, gn, ce.prior), q.g_vulnerability(B, gn, ce.prior)
    assert norm["vulnerability_a_normalised"] == pytest.approx(van, abs=1e-12)
    assert norm["vulnerability_b_normalised"] == pytest.approx(vbn, abs=1e-12)
    assert norm["gap_normalised"] == pytest.approx(vbn - van, abs=1e-12)
    assert norm["gap_normalised"] == pytest.approx(d["gap"] / s)


def test_counterexample_actions_by_enumeration(pair):
    A, B = pair
    r = q.refines(A, B)
    ce = r.counterexample
    d = r.explanation()
    c = ce.gain.min(axis=0)
    gn = (ce.gain - c) / (ce.gain - c).max()
    for key, C in (("A", A), ("B", B)):
        M = C.matrix
        rows = d["actions"][key]
        assert len(rows) == 3
        for row in rows:
            y = C.outputs.index(row["output"])
            py = sum(ce.prior[x] * M[x, y] for x in range(3))
            assert row["probability"] == pytest.approx(py)
            # the stated action attains the enumerated maximum
            w = row["action"]
            got = sum(gn[w, x] * ce.prior[x] * M[x, y] for x in range(3))
            assert got == pytest.approx(_enumerated_best(M, gn, ce.prior, y), abs=1e-12)
            assert row["expected_gain"] == pytest.approx(got / py)
            # Bayes posterior, by hand
            for lab, p in row["posterior"]:
                x = C.inputs.index(lab)
                assert p == pytest.approx(ce.prior[x] * M[x, y] / py)
    # GRR under a Bayes-like gain: the best guess is the output itself, the top posterior
    for row in d["actions"]["B"]:
        assert row["posterior"][0][1] == pytest.approx(np.e**2 / (np.e**2 + 2))


def test_counterexample_text_uses_labels_and_one_sentence(pair):
    A, B = pair
    r = q.refines(A, B)
    text = r.explain(names=("grr(3,1)", "grr(3,2)"))
    assert text.startswith("grr(3,1) ⋢ grr(3,2)")
    for lab in ("ann", "bob", "cy", "u", "v", "w", "p", "r", "s"):
        assert lab in text
    d = r.explanation(names=("grr(3,1)", "grr(3,2)"))
    assert d["goal"] == "to guess the secret in one try"
    assert d["summary"].startswith("An adversary who wants to guess the secret in one try gains")
    assert "more (gain scaled to [0, 1];" in d["summary"]
    assert "from grr(3,2) than from grr(3,1) under the uniform prior on 3 inputs" in d["summary"]
    # str() carries the short form; repr() stays the verdict block
    assert "in short: An adversary who wants" in str(r)
    assert "in short" not in repr(r)


def test_counterexample_under_a_given_prior():
    A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    pi = np.array([0.5, 0.3, 0.2])
    r = q.refines(A, B, prior=pi)
    d = r.explanation()
    ce = r.counterexample
    assert d["prior"] == pytest.approx(pi.tolist())
    assert d["vulnerability_b"] - d["vulnerability_a"] == pytest.approx(
        q.g_vulnerability(B, ce.gain, pi) - q.g_vulnerability(A, ce.gain, pi), abs=1e-12
    )
    assert "0.5" in d["summary"] and "the prior π" in d["summary"]


def test_large_channels_are_summarised():
    A, B = q.sue(8, 1.0), q.oue(8, 1.0)  # 256 outputs each
    r = q.refines(A, B)
    assert not r
    text = r.explain(top=4)
    assert len(text.splitlines()) <= 20
    d = r.explanation(top=4)
    assert len(d["actions"]["A"]) == 4 and d["n_outputs"] == {"A": 256, "B": 256}
    # the likeliest output of SUE(8, 1) is the all-zero vector: Pr = (1-p)... by hand
    p = np.exp(0.5) / (np.exp(0.5) + 1)
    # SUE keeps a 1 w.p. p and turns a 0 into 1 w.p. 1 - p: Pr(all zero | x) = (1-p) p^7
    zero = (1 - p) * p**7
    assert d["actions"]["A"][0]["output"] == "00000000"
    assert d["actions"]["A"][0]["probability"] == pytest.approx(zero)
    ce = r.counterexample
    assert d["vulnerability_a"] == pytest.approx(q.g_vulnerability(A, ce.gain, ce.prior))


def test_witness_merges_and_sparsity():
    A = _labelled(q.grr(3, 2.0).matrix, ("x0", "x1", "x2"), ("a", "b", "c"))
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # a, b -> "ab"; c -> "c"
    B = _labelled(A.matrix @ W, ("x0", "x1", "x2"), ("ab", "c'"))
    r = q.refines(A, B)
    assert r
    d = r.explanation()
    assert d["kind"] == "witness" and d["shape"] == [3, 2]
    Wr = np.asarray(r.witness)
    assert d["nonzeros"] == int((Wr > 1e-9).sum())
    assert d["deterministic"] and d["deterministic_rows"] == 3 and not d["permutation"]
    assert d["merged_outputs_b"] == 1 and d["split_outputs_a"] == 0
    (m,) = d["merges"]
    assert m["output_b"] == "ab" and sorted(lab for lab, _ in m["from_a"]) == ["a", "b"]
    assert [w for _, w in m["from_a"]] == pytest.approx([1.0, 1.0])
    assert "deterministic post-processing" in d["summary"]
    assert "ab <- A's a (1), b (1)" in r.explain()


def test_witness_permutation_and_randomised():
    A = q.grr(3, 2.0)
    P = A.matrix[:, [2, 0, 1]]
    d = q.refines(A, q.Channel(P)).explanation()
    assert d["permutation"] and "relabelled" in d["summary"]
    r = q.refines(A, q.grr(3, 1.0))
    d = r.explanation()
    # GRR(2) -> GRR(1): W is itself GRR-shaped, all 9 entries positive
    assert d["nonzeros"] == 9 and d["deterministic_rows"] == 0 and d["split_outputs_a"] == 3
    assert "randomised post-processing" in d["summary"]


def test_max_case_counterexample_and_witness():
    A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    r = q.max_case_refines(A, B)
    assert not r
    d = r.explanation()
    assert d["kind"] == "max-case counterexample"
    g = np.asarray(r.counterexample.gain, dtype=float).reshape(-1)
    pi = np.full(3, 1 / 3)

    def vmax(C):
        J = pi[:, None] * C.matrix
        return max((g @ J[:, y]) / J[:, y].sum() for y in range(C.matrix.shape[1]))

    assert d["gap_recomputed"] == pytest.approx(vmax(B) - vmax(A), abs=1e-12)
    assert d["gap_recomputed"] == pytest.approx(r.counterexample.gap, abs=1e-9)
    d = q.max_case_refines(B, A).explanation()
    assert d["kind"] == "witness" and "A·R" in q.max_case_refines(B, A).explain()


def test_symmetric_counterexample_and_orbit_witness():
    from qifldp import symmetric as sym

    r = q.refines(sym.grr(10, 1.0), sym.grr(10, 2.0))
    d = r.explanation()
    assert d["kind"] == "symmetric counterexample"
    # the one-try guess: V_g = Bayes vulnerability = ML / k under the uniform prior
    vb = q.bayes_capacity(q.grr(10, 2.0)) / 10
    va = q.bayes_capacity(q.grr(10, 1.0)) / 10
    assert d["goal"] == "to guess the secret in one try"
    assert d["gap"] == pytest.approx(vb - va, rel=1e-9)
    assert d["normalisation"]["gap_normalised"] == pytest.approx(d["gap"])
    # GRR(10, 2): the output {y} has posterior e^2 / (e^2 + 9) on y; the best guess is y
    (row,) = d["actions"]["B"]
    assert row["posterior_in"] == pytest.approx(np.e**2 / (np.e**2 + 9))
    assert (row["action_size"], row["action_overlap"]) == (1, 1)
    assert row["expected_gain"] == pytest.approx(np.e**2 / (np.e**2 + 9))
    assert "|S| = 1" in r.explain()
    bare = sym.refines(sym.grr(10, 1.0), sym.grr(10, 2.0))  # the module's own entry point
    assert "pass the symmetric channels" in bare.explain()
    assert bare.explanation(sym.grr(10, 1.0), sym.grr(10, 2.0))["actions"] == d["actions"]
    r = q.refines(sym.grr(10, 2.0), sym.grr(10, 1.0))
    d = r.explanation()
    assert d["kind"] == "orbit witness" and d["k"] == 10
    # W of GRR(2) -> GRR(1): keep the output with mass u, move to one of the 9 others
    total = sum(e["mass"] for e in d["entries"] if e["s"] == 1)
    assert total == pytest.approx(1.0)
    assert "orbit" in str(r)


def test_symbolic_exact_results():
    import sympy as sp

    from qifldp import symbolic as s

    A, B = s.grr(3, sp.log(2)), s.grr(3, sp.log(4))
    r = s.refines(A, B)
    assert not r
    d = explanation_data(r, A, B)
    ce = r.counterexample
    assert d["gap_exact"] == str(ce.gap)
    gain = np.array([[float(v) for v in row] for row in ce.gain])
    prior = np.array([float(v) for v in ce.prior])
    An, Bn = A.evaluate(), B.evaluate()
    gap = q.g_vulnerability(Bn, gain, prior) - q.g_vulnerability(An, gain, prior)
    assert d["vulnerability_b"] - d["vulnerability_a"] == pytest.approx(gap, abs=1e-12)
    assert float(ce.gap) == pytest.approx(gap, abs=1e-12)
    w = s.refines(B, A)
    d = explanation_data(w, B, A)
    assert d["kind"] == "witness" and d["exact"]
    W = np.array([[float(Fraction(v)) for v in row] for row in w.witness])
    assert d["nonzeros"] == int((W > 1e-9).sum())
    assert "exact rationals" in explain_refinement(w)


def test_explain_takes_channels_when_the_result_has_none():
    A, B = q.grr(3, 1.0), q.grr(3, 2.0)
    r = q.refines(A, B)
    bare = r.__class__(**{**{f: getattr(r, f) for f in r.__dataclass_fields__}, "channels": None})
    assert "pass the explicit channels" in bare.explain()
    assert bare.explanation(A, B)["actions"] == r.explanation()["actions"]


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"top": 0}, ParameterError, "top"),
        ({"top": 1.5}, InputTypeError, "top"),
        ({"names": ("A",)}, InputTypeError, "names"),
        ({"names": "AB"}, InputTypeError, "names"),
    ],
)
def test_bad_arguments(kwargs, error, words):
    r = q.refines(q.grr(3, 1.0), q.grr(3, 2.0))
    with pytest.raises(error, match=words):
        r.explain(**kwargs)


def test_bad_channels():
    r = q.refines(q.grr(3, 1.0), q.grr(3, 2.0))
    with pytest.raises(InputTypeError, match="both channels"):
        r.explain(q.grr(3, 1.0))
    with pytest.raises(ParameterError, match="inputs"):
        r.explain(q.grr(4, 1.0), q.grr(4, 2.0))
    w = q.refines(q.grr(3, 2.0), q.grr(3, 1.0))
    with pytest.raises(ParameterError, match="outputs"):
        w.explain(q.grr(2, 1.0), q.grr(2, 1.0))
    with pytest.raises(InputTypeError, match="refinement result"):
        explanation_data(object())


def test_every_explicit_route_result_carries_its_channels():
    for A, B in itertools.permutations([q.grr(3, 1.0), q.grr(3, 2.0)], 2):
        r = q.refines(A, B)
        assert r.channels[0] == A and r.channels[1] == B
        assert r.explain()


def test_symbolic_result_has_explain():
    import sympy as sp

    from qifldp import symbolic as s

    A, B = s.grr(3, sp.log(2)), s.grr(3, sp.log(4))
    r = s.refines(A, B)
    text = r.explain(A, B, names=("GRR(ln 2)", "GRR(ln 4)"))
    assert text.startswith("GRR(ln 2) ⋢ GRR(ln 4)")
    assert text == explain_refinement(r, A, B, names=("GRR(ln 2)", "GRR(ln 4)"))
    assert "pass the explicit channels" in r.explain()


def test_protocol_results_carry_channels_for_the_account():
    r = q.refines(q.protocol("olh", 2, 2.0), q.protocol("oue", 2, 2.0), exact=True)
    assert r.about == "protocols" and r.channels is not None
    d = r.explanation()
    assert d["kind"] == "witness" and d["shape"] == [r.channels[0].shape[1], 4]
    r = q.refines(q.protocol("grr", 3, 1.0), q.protocol("grr", 3, 2.0))
    ce = r.counterexample
    d = r.explanation()
    assert d["vulnerability_b"] - d["vulnerability_a"] == pytest.approx(
        q.g_vulnerability(q.grr(3, 2.0), ce.gain, ce.prior)
        - q.g_vulnerability(q.grr(3, 1.0), ce.gain, ce.prior),
        abs=1e-12,
    )


def test_symmetric_counterexample_actions_by_enumeration():
    from qifldp import symmetric as sym

    k = 5
    A, B = sym.oue(k, 1.0), sym.sue(k, 1.0)
    r = q.refines(A, B)
    assert not r and r.channels is not None
    d = r.explanation()
    G = r.counterexample.gain
    gain = G.expand()  # all 2^k subsets as actions
    prior = np.full(k, 1 / k)
    norm = d["normalisation"]
    gn = (gain - norm["shift"]) / norm["scale"]
    assert gn.min() == pytest.approx(0.0, abs=1e-12) and gn.max() == pytest.approx(1.0)
    for key, C in (("A", A), ("B", B)):
        E = C.expand()
        # V_g' of the expanded channel and gain, by g_vulnerability
        van = q.g_vulnerability(E, gn, prior)
        assert norm[f"vulnerability_{key.lower()}_normalised"] == pytest.approx(van, abs=1e-12)
        for row in d["actions"][key]:
            # an explicit output whose subset has that size: its posterior and best action
            ys = [j for j, y in enumerate(E.outputs) if sum(y) == row["size"]]
            py_each = E.matrix[:, ys[0]].sum() / k
            assert row["probability"] == pytest.approx(py_each * len(ys))
            post = E.matrix[:, ys[0]] / E.matrix[:, ys[0]].sum()
            inside = [x for x in range(k) if E.outputs[ys[0]][x] == 1]
            if inside:
                assert row["posterior_in"] == pytest.approx(post[inside[0]])
            best = max(float(gn[w] @ post) for w in range(gn.shape[0]))
            assert row["expected_gain"] == pytest.approx(best, abs=1e-12)
    assert "a set of" in r.explain()


def test_goal_names_the_actions_that_are_best_for_some_input():
    # provenance: the certificate's own gain, normalised as the account says (each column
    # shifted by its minimum, scaled to [0, 1]); an action best for no input (here the
    # constant rows of the GRR vs OUE gain) has nothing to show and is left out
    r = q.refines(q.protocol("grr", 4, 1.0).channel(), q.protocol("oue", 4, 1.0).channel())
    assert not r.holds
    g = np.asarray(r.counterexample.gain, dtype=float)
    gn = (g - g.min(axis=0)) / (g - g.min(axis=0)).max()
    summary = explanation_data(r)["summary"]
    assert "(;" not in summary
    shown = re.findall(r"a(\d+) best for x = ([\d, ]+)", summary)
    assert shown
    for w, xs in shown:
        for x in xs.strip(", ").split(", "):
            assert gn[int(w), int(x)] == pytest.approx(gn[:, int(x)].max(), abs=1e-9)
