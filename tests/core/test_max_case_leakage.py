"""Max-case g-vulnerability and leakage (issue 22): the worst posterior instead of the average.

Expected values are worked by hand from the posteriors δ^y_x = π_x C[x, y] / Pr(y), in exact
rationals; the supremum over priors is e^eps, approached by a prior concentrating on the
input in the denominator of the largest likelihood ratio (the QIF paper's max-case capacity).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import GainError, UnsupportedKindError


def _posteriors(M, prior):
    cols = []
    for y in range(len(M[0])):
        p = sum(prior[x] * M[x][y] for x in range(len(M)))
        if p:
            cols.append([prior[x] * M[x][y] / p for x in range(len(M))])
    return cols


def test_bayes_case_by_hand():
    M = [[F(1, 2), F(1, 4), F(1, 4)], [F(1, 8), F(3, 4), F(1, 8)], [F(0), F(1, 2), F(1, 2)]]
    prior = [F(1, 2), F(1, 3), F(1, 6)]
    want = max(max(d) for d in _posteriors(M, prior))
    C = q.Channel([[float(v) for v in row] for row in M])
    got = q.max_case_g_vulnerability(C, prior=[float(v) for v in prior])
    assert got == pytest.approx(float(want), rel=1e-14)
    assert q.max_case_leakage(C, prior=[float(v) for v in prior]) == pytest.approx(
        float(want / F(1, 2)), rel=1e-14
    )
    # the average over outputs (g_vulnerability) never exceeds the worst posterior
    assert q.bayes_vulnerability(C, [float(v) for v in prior]) <= got


def test_gain_and_zero_probability_outputs():
    # output 2 has probability 0 under this prior: its (undefined) posterior is skipped
    C = q.Channel([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]])
    G = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]])
    got = q.max_case_g_vulnerability(C, G, prior=[1.0, 0.0])
    assert got == pytest.approx(1.0)
    # uniform prior: posteriors (2/3, 1/3), (2/3, 1/3), (0, 1); best action per posterior
    assert q.max_case_g_vulnerability(C, G) == pytest.approx(1.0)
    assert q.max_case_leakage(C, G) == pytest.approx(1.0 / 0.5)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_supremum_over_priors_is_e_to_the_eps(eps):
    C = q.grr(3, eps)
    gain = [[0.0, 1.0, 0.0]]  # one action, rewarded when the secret is 1
    for delta in (1e-2, 1e-4, 1e-6):
        prior = [1 - delta, delta / 2, delta / 2]
        # worst output y = 1: C[1,1] / ((1-δ) C[0,1] + δ/2 (C[1,1] + C[2,1]))
        p, r = math.exp(eps) / (math.exp(eps) + 2), 1 / (math.exp(eps) + 2)
        want = p / ((1 - delta) * r + delta / 2 * (p + r))
        assert q.max_case_leakage(C, gain, prior) == pytest.approx(want, rel=1e-9)
        assert want <= q.max_case_capacity(C) * (1 + 1e-12)
    assert want == pytest.approx(math.exp(eps), rel=1e-5)


def test_bad_input():
    C = q.grr(3, 1.0)
    with pytest.raises(GainError, match="negative"):
        q.max_case_leakage(C, [[-1.0, 0.0, 0.0]])
    with pytest.raises(GainError, match="undefined"):
        q.max_case_leakage(C, [[0.0, 1.0, 0.0]], prior=[1.0, 0.0, 0.0])
    with pytest.raises(UnsupportedKindError):
        q.max_case_g_vulnerability(q.symmetric.grr(3, 1.0))
