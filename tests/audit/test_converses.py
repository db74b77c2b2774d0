"""The converses of the QIF paper's implications (qifldp.audit.converses), against exact
computations written here: binary-input refinement by the ROC criterion in Fractions, the 2x2
criterion by Cramer's rule, channels enumerated from the paper's definitions."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from qifldp import audit as A
from qifldp.audit import converses as C
from qifldp.formulas import the_oue_threshold
from tests.audit.test_audit import _ue_rows

KEYS = {
    "qif.lemma2_converse": "refuted",
    "qif.lemma4_converse": "refuted",
    "qif.lemma10_onehot_converse": "refuted",
    "qif.cor3": "confirmed",
    "qif.cor3_converse": "refuted",
    "qif.avg_max_converse": "confirmed",
    "qif.capacity_converse": "refuted",
    "qif.def10_reverse": "holds only when",
}


def _one_hot(p, qq, k):
    """Rows x of the one-hot channel of the bit channel (1 kept w.p. p, 0 -> 1 w.p. q)."""
    return _ue_rows(k, p, qq)


def _roc(rows):
    """Vertices (FPR, TPR) of the ROC of a binary-input channel: columns by ratio row0/row1."""
    cols = sorted(zip(rows[0], rows[1], strict=True), key=lambda c: -(c[0] / c[1]))
    pts = [(F(0), F(0))]
    for t, f in cols:
        pts.append((pts[-1][0] + f, pts[-1][1] + t))
    return pts


def _roc_at(pts, f):
    for (f0, t0), (f1, t1) in itertools.pairwise(pts):
        if f0 <= f <= f1:
            return t0 if f1 == f0 else t0 + (t1 - t0) * (f - f0) / (f1 - f0)
    raise AssertionError(f)


def _margin(Arows, Brows):
    """min over B's ROC vertices of ROC_A - ROC_B: A ⊑ B iff >= 0 (binary inputs, Blackwell)."""
    ra = _roc(Arows)
    return min(_roc_at(ra, f) - t for f, t in _roc(Brows))


def _refines_binary(Arows, Brows):
    return _margin(Arows, Brows) >= 0


@pytest.fixture(scope="module")
def results():
    return {r.key: r for r in A.audit(list(KEYS))}


def test_verdicts(results):
    assert {k: r.verdict for k, r in results.items()} == KEYS


def test_lemma4_converse_exact_instance_by_roc():
    # eps = 2 ln 2: SUE bits p = 2/3, q = 1/3; OUE bits p = 1/2, q = 1/5 (e^eps = 4)
    sue = _one_hot(F(2, 3), F(1, 3), 2)
    oue = _one_hot(F(1, 2), F(1, 5), 2)
    assert _refines_binary(sue, oue)  # one-hot SUE ⊑ OUE at k = 2
    sue_bit = [[F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]]  # rows: bit 1, bit 0
    oue_bit = [[F(1, 2), F(1, 2)], [F(1, 5), F(4, 5)]]
    assert not _refines_binary(sue_bit, oue_bit) and not _refines_binary(oue_bit, sue_bit)
    assert "k = 2: one-hot SUE ⊑ OUE holds (exact witness), bitwise S ⊑ O fails" in (
        A.get_claim("qif.lemma4_converse").check().details
    )


def test_lemma10_onehot_converse_exact_instance_by_roc():
    # eps = 40 ln(41/40), theta = 7/10: e^(eps theta/2) = (41/40)^14, e^(eps(1-theta)/2) = (41/40)^6
    r = F(41, 40)
    E = r**40
    oue_p, oue_q = F(1, 2), 1 / (E + 1)
    the_p, the_q = 1 - F(1, 2) / r**6, F(1, 2) / r**14
    assert 0.7 < the_oue_threshold(float(40 * 0.024692612590371414))  # ln(41/40)
    assert _refines_binary(_one_hot(oue_p, oue_q, 2), _one_hot(the_p, the_q, 2))
    bit_o = [[oue_p, 1 - oue_p], [oue_q, 1 - oue_q]]
    bit_t = [[the_p, 1 - the_p], [the_q, 1 - the_q]]
    assert not _refines_binary(bit_o, bit_t)


def test_grid_agrees_with_roc_at_k2():
    """Every k = 2 point of the audit's grid against the ROC criterion on the float channels."""
    import math

    def bit(name, e, t):
        if name == "SUE":
            a = math.exp(e / 2)
            return a / (a + 1), 1 / (a + 1)
        if name == "OUE":
            return 0.5, 1 / (math.exp(e) + 1)
        return 1 - 0.5 * math.exp(e * (t - 1) / 2), 0.5 * math.exp(-e * t / 2)

    n = 0
    for p in C.one_hot_grid():
        if p.k != 2 or p.one_hot is None:
            continue
        A_, B_ = (_one_hot(*map(F, bit(x, p.eps, p.theta)), 2) for x in (p.first, p.second))
        m = _margin(A_, B_)
        # SUE ⊑ OUE at k = 2 is tight (margin exactly 0 in rationals; see below): rounding
        assert (m >= -1e-14) == p.one_hot, (p.label(), float(m))
        n += 1
    assert n >= 20
    for a in (F(3, 2), F(2), F(3), F(7)):  # e^(eps/2) = a: SUE ⊑ OUE with margin exactly 0
        assert (
            _margin(_one_hot(a / (a + 1), 1 / (a + 1), 2), _one_hot(F(1, 2), 1 / (a * a + 1), 2))
            == 0
        )


def test_def10_reverse_condition_numbers(results):
    d = results["qif.def10_reverse"].details
    assert d.startswith("Condition:") and "M_1 ⊑ M_2 (exact witness" in d
    n = len(C.AUDIT_EPS) - 1
    assert f"({7 * len(C.GRID_K) * n}/{7 * len(C.GRID_K) * n} refuted" in d


@pytest.mark.parametrize(
    ("grid_args", "pairs_args"),
    [
        # the audit's own grids, called as the audit calls them (cached: computed once)
        ((), ()),
        # the finer grids, beyond the suite's budget (some 10 s)
        pytest.param((C.FULL_EPS, C.FULL_THETAS), (C.GRID_K,), marks=pytest.mark.campaign),
    ],
    ids=["audit", "full"],
)
def test_grid_keeps_the_verdicts(grid_args, pairs_args):
    grid = C.one_hot_grid(*grid_args)
    lifted = [p for p in grid if p.one_hot and not p.bitwise]
    assert {p.k for p in lifted} >= {2, 3}
    below = [
        p
        for p in grid
        if p.first == "OUE" and p.second == "THE" and p.theta < the_oue_threshold(p.eps)
    ]
    assert any(p.one_hot for p in below)
    rows = C.protocol_pairs(*pairs_args)
    assert not any(avg and mx is False for *_, avg, mx in rows)
    assert any(mx and not avg for *_, avg, mx in rows)
