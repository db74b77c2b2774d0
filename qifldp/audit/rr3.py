"""Claims of Ma and Wang (arXiv 2021), randomized response with three answers (RR3).

The paper's available text holds the introduction and Sec. II (preliminaries) only. It defines
the m-elements RR in Definition 3 (the genuine answer with probability p, each other
answer with probability (1 - p)/(m - 1)) and, in Remark 5, the general three-answer
mechanism as a row-stochastic 3x3 matrix P (entry p_ij: answer i reported as j). Both
are built from those words, as explicit channels over the answers 1..m, in
:mod:`qifldp.protocols.rr3` (with the three-answer protocol object, its estimators and
the variance-optimal design) and :mod:`qifldp.protocols.bipartite` (the weighted
bipartite application); this module holds the claims and imports the mechanisms from
there. The RR3-based mechanisms of Secs. III-IV are not in the text, and their claim
says so.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from .. import symbolic as S
from ..channel import Channel
from ..measures import ldp_epsilon
from ..mechanisms import grr
from ..protocols.bipartite import BipartiteRR3
from ..protocols.rr3 import RR3, rr3_channel, rr_channel, rr_matrix
from ._core import checks
from ._tools import _exp_rational, _f, _same_secret, _show
from ._verdicts import AGREE_RTOL, CONDITIONAL, CONFIRMED, INCONCLUSIVE, REFUTED, _cmp

__all__ = ["rr_matrix", "rr_channel", "rr3_channel"]


@checks("rr3.remark3")
def _check_rr3_remark3() -> tuple[str, str]:
    bad = []
    for m in (2, 3):
        for r in (2, 3, 5):
            exact = S.SymbolicChannel(rr_matrix(m, sp.Rational(r, r + m - 1)))
            if _exp_rational(ldp_epsilon(exact), "RR epsilon") != r:
                bad.append((m, r))
    float_bad: list[tuple[Any, ...]] = []
    for m in (2, 3):
        for eps in (0.1, 1.0, 5.0):
            C = rr_channel(m, np.exp(eps) / (np.exp(eps) + m - 1))
            if _cmp(ldp_epsilon(C), eps, "RR") != 0:
                float_bad.append((m, eps))
            if _cmp(float(np.abs(C.matrix - grr(m, eps).matrix).max()), 0.0, "Def. 3 vs GRR"):
                float_bad.append(("GRR", m, eps))
    p = rr_matrix(3, sp.Rational(3, 5))[0, 0]
    details = (
        "The m-elements RR built from Definition 3's words (genuine answer w.p. p, each other "
        "answer w.p. (1-p)/(m-1); for m = 3 Remark 5's P_3x3 with p on the diagonal), p = "
        "e^eps / (e^eps + m - 1): true epsilon = eps exactly for m = 2, 3 and e^eps = 2, 3, 5 "
        f"(three answers, e^eps = 3: p = {_show(p)}), and to {AGREE_RTOL:g} at eps = 0.1, 1, 5 "
        f"({len(bad) + len(float_bad)} mismatches): eps-LDP and tight. By Definition 3 this "
        "mechanism is GRR over m answers (it equals qifldp.grr(m, eps) entrywise)."
    )
    return (CONFIRMED if not bad and not float_bad else REFUTED), details


@checks("rr3.remark4")
def _check_rr3_remark4() -> tuple[str, str]:
    p, pi = sp.symbols("p pi")
    P = rr_matrix(2, p)  # answer 1 = "Yes"
    expected_f = pi * P[0, 0] + (1 - pi) * P[1, 0]  # E[f]: expected share of reported "Yes"
    calibrated = (expected_f - (1 - p)) / (p - (1 - p))
    residual = sp.simplify(calibrated - pi)
    ex = calibrated.subs({p: sp.Rational(3, 4), pi: sp.Rational(1, 5)})
    details = (
        "Exact, symbolic in p (p != 1/2) and the true share pi of 'Yes': the RR channel of "
        "Definition 3 (m = 2) reports 'Yes' w.p. E[f] = pi p + (1 - pi)(1 - p), and (E[f] - (1 "
        f"- p)) / (2p - 1) - pi simplifies to {residual} (f' is linear in f, so E[f'] = pi). "
        f"E.g. p = 3/4, pi = 1/5: E[f'] = {_show(ex)}."
    )
    return (CONFIRMED if residual == 0 else REFUTED), details


@checks("rr3.composition")
def _check_rr3_composition() -> tuple[str, str]:
    A = rr_matrix(3, sp.Rational(2, 2 + 2))  # e^eps1 = 2
    B = rr_matrix(3, sp.Rational(3, 3 + 2))  # e^eps2 = 3
    joint = S.SymbolicChannel(_same_secret(A, B))
    e_joint = _exp_rational(ldp_epsilon(joint), "joint epsilon")
    rng = np.random.default_rng(20260104)
    over = tight = 0
    n = 100
    for _ in range(n):
        M1 = rr3_channel(rng.dirichlet([1.0] * 3, size=3))
        M2 = rr3_channel(rng.dirichlet([1.0] * 3, size=3))
        r = _cmp(
            ldp_epsilon(Channel(_same_secret(M1.matrix, M2.matrix))),
            ldp_epsilon(M1) + ldp_epsilon(M2),
            "composition",
        )
        over += r > 0
        tight += r == 0
    details = (
        "Two three-elements RRs of Definition 3 with e^eps1 = 2, e^eps2 = 3 on the same answer: "
        f"e^(true eps) = {_show(e_joint)} = e^(eps1 + eps2) exactly (the bound is attained). {n} "
        "random pairs of Remark 5's general 3x3 mechanisms P on the same answer: true epsilon "
        f"<= eps1 + eps2 in all but {over} (attained in {tight})."
    )
    return (CONFIRMED if over == 0 and e_joint == 6 else REFUTED), details


@checks("rr3.sections_3_4")
def _check_rr3_sections_3_4() -> tuple[str, str]:
    details = (
        "Not checkable from the text: the paper's legible text ends after Sec. II's preliminaries "
        "and the first paragraph of Sec. III, so the RR3-based mechanisms of Secs. III-IV (their "
        "3x3 matrices, estimators, variances and parameter bounds) are not defined in it and no "
        "channel can be built. Definition 3 alone makes the three-elements RR the 3-ary GRR, "
        "which rr3.remark3 checks; the audit does not pass 3-ary GRR off as the mechanisms of "
        "Secs. III-IV."
    )
    return INCONCLUSIVE, details


@checks("rr3.eq6")
def _check_rr3_eq6() -> tuple[str, str]:

    # 3 users, 2 items; edges (user, item, weight): 4 edges, weights +1, -1, +1, +1
    n, m = 3, 2
    reports = np.array([[2, 0], [1, 0], [2, 2]])  # no-noise reports of the states
    B = BipartiteRR3(m, rr=np.eye(3))
    k, w = B.estimate(reports)
    edges, weight = Fraction(int(k.sum())), Fraction(int(w.sum()))
    printed_k = edges / Fraction((n + m) * (n + m - 1), 2)
    printed_w = weight / Fraction((n + m) * (n + m - 1), 2)
    items_k, items_w = B.averages(reports)
    graph_k, _ = B.averages(reports, over="graph")
    exact_items = edges / m
    exact_graph = 2 * edges / (n + m)
    agree = (
        float(exact_items) == items_k
        and float(exact_graph) == graph_k
        and float(weight / m) == items_w
        and printed_k == exact_graph / (n + m - 1)
    )
    details = (
        "As printed, Eq. (6) divides the total degree of V2 by (n + m)(n + m - 1)/2, the "
        "number of vertex pairs of the n + m vertices: that is |E| / C(n + m, 2), the edge "
        "density of the complete graph on V1 u V2 (equal to the average vertex degree "
        "2|E|/(n + m) divided by n + m - 1), not an average. Example, n = 3 users, m = 2 "
        f"items, {edges} edges of total weight {weight}: Eq. (6) gives <k> = {printed_k} and "
        f"<w> = {printed_w}, while the average item degree is |E|/m = {exact_items} "
        f"(qifldp.BipartiteRR3.averages: {items_k:g}) and the average vertex degree "
        f"2|E|/(n + m) = {exact_graph} (over='graph': {graph_k:g}). qifldp implements the "
        "averages (over the items, or over all vertices), with unbiased estimators and "
        "exact variances."
    )
    return (REFUTED if agree and printed_k != exact_items else INCONCLUSIVE), details


@checks("rr3.edges_composition")
def _check_rr3_edges_composition() -> tuple[str, str]:
    eps = 1.0
    rng = np.random.default_rng(20261202)
    randoms = [RR3(rng.dirichlet([2.0] * 3, size=3)) for _ in range(3)]
    mismatch = 0
    checked = 0
    for rr in [RR3.grr(eps), *randoms]:
        for m in (1, 2, 3):
            B = BipartiteRR3(m, rr=rr)
            true = ldp_epsilon(B.channel())
            checked += 1
            mismatch += _cmp(true, m * rr.eps, "product channel") != 0
            mismatch += _cmp(B.epsilon(), true, "product structure") != 0
    m, s = 3, 1
    B = BipartiteRR3(m, eps=eps)
    C = B.channel()
    rows = [i for i, x in enumerate(C.inputs) if sum(v != 0 for v in x) <= s]
    bounded = ldp_epsilon(Channel(C.matrix[rows]))
    mismatch += _cmp(bounded, B.epsilon(max_degree=s), "bounded degree") != 0
    big = BipartiteRR3(1000, eps=eps)
    details = (
        "Holds only when a user's number of edges is bounded (s < m/2 for GRR(3)): then only "
        "tuples with at most s edges are inputs and the true epsilon of the whole report is "
        f"min(m, 2s) eps (m = {m}, s = {s}, eps = {eps:g}: ldp_epsilon of the explicit "
        f"27 x 27 product channel restricted to the {len(rows)} possible tuples = "
        f"{_f(bounded)} < m eps = {m * eps:g}; m = 1000, s = 10: {_f(big.epsilon(10))} "
        f"instead of {_f(big.epsilon())}). For arbitrary edge tuples it fails: the report is "
        "the product channel P^(x)m (q.compose of the per-edge channels), whose ldp_epsilon "
        "is exactly m eps(P), the sequential sum, since the worst pair of states can be "
        f"chosen on every edge ({checked} cases, GRR(3) and 3 random 3x3 P, m = 1..3, "
        f"explicit channel vs m eps and vs the product-structure formula: {mismatch} "
        "mismatches). Edge-level neighbours (tuples differing in one edge) give eps(P)."
    )
    return (CONDITIONAL if mismatch == 0 else REFUTED), details


@checks("rr3.remark3_necessity")
def _check_rr3_remark3_necessity() -> tuple[str, str]:
    rows = []
    ok = True
    for m in (2, 3, 5):
        E = sp.Integer(3)  # e^eps = 3
        p_star = E / (E + m - 1)
        lo = 1 / (1 + (m - 1) * E)  # below 1/m the ratio flips: ((1-p)/(m-1))/p <= e^eps
        inside = [lo, sp.Rational(1, m), (sp.Rational(1, m) + p_star) / 2, p_star]
        outside = [lo / 2, (p_star + 1) / 2]
        eps_in = [_exp_rational_ratio(m, p) for p in inside]
        eps_out = [_exp_rational_ratio(m, p) for p in outside]
        ok &= all(r <= E for r in eps_in) and all(r > E for r in eps_out)
        ok &= all(
            _cmp(ldp_epsilon(rr_channel(m, float(p))), float(sp.log(r)), "RR eps") == 0
            for p, r in zip(inside + outside, eps_in + eps_out, strict=True)
        )
        rows.append(
            f"m = {m}: p in [{_show(lo)}, {_show(p_star)}] gives e^eps' <= 3 (at p = 1/m it is "
            f"0-LDP), p = {_show(outside[1])} gives {_show(eps_out[1])}"
        )
    details = (
        "At e^eps = 3, the m-answer RR of Definition 3 with genuine-answer probability p has "
        "e^(true eps) = max(p(m-1)/(1-p), (1-p)/(p(m-1))) (exact; equal to qifldp.ldp_epsilon "
        f"of the explicit channel): {'; '.join(rows)}. So p = e^eps/(e^eps + m - 1) is the "
        "largest p (the most useful choice) that is eps-LDP, not a necessary one: every p in "
        "[1/(1 + (m-1)e^eps), e^eps/(e^eps + m - 1)] is eps-LDP."
    )
    return (REFUTED if ok else CONFIRMED), details


def _exp_rational_ratio(m: int, p: Any) -> Any:
    """e^(true eps) of the m-answer RR with genuine-answer probability p (exact)."""
    other = (1 - p) / (m - 1)
    return max(p / other, other / p)
