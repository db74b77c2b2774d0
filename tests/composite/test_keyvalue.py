"""PCKV-UE, PCKV-GRR and the budget composition of PCKV's Theorems 2 and 3.

Expected values come from (i) a direct enumeration of Algorithms 1-3 of the PCKV
paper, coded here independently of the operator construction; (ii) the paper's
worked examples (Sec. 5.2); (iii) closed forms derived by hand in the comments.
"""

from __future__ import annotations

import itertools
import math
from math import comb

import numpy as np
import pytest

import qifldp as q

EPS_PAIRS = [(1.0, 1.0), (0.3, 2.0), (2.0, 0.2), (0.0, 1.0), (1.0, 0.0), (3.0, 3.0)]


# --- independent reference: Algorithms 1-3 of PCKV enumerated directly -------------------


def _sampling_distribution(S, d, ell):
    """Algorithm 1: Pr[sampled, discretised pair (k, v) | S] for |S| <= ell."""
    dist = {}
    for pair in S:  # each own pair w.p. eta / |S| = 1 / ell
        dist[pair] = dist.get(pair, 0.0) + 1.0 / ell
    dummy = (ell - len(S)) / ell  # a dummy key, uniform over d+1..d+ell, value 0 -> ±1
    for k in range(d + 1, d + ell + 1):
        for v in (1, -1):
            dist[(k, v)] = dist.get((k, v), 0.0) + dummy / ell / 2
    return dist


def _ue_pair(k, v, y, eps1, eps2):
    """Algorithm 2: Pr[y | sampled (k, v)], a = 1/2, b = 1/(e^eps1 + 1), p = e^eps2/(e^eps2 + 1)."""
    a, b = 0.5, 1.0 / (math.exp(eps1) + 1.0)
    p = math.exp(eps2) / (math.exp(eps2) + 1.0)
    prob = 1.0
    for position, yi in enumerate(y, start=1):
        if position == k:
            prob *= {v: a * p, -v: a * (1 - p), 0: 1 - a}[yi]
        else:
            prob *= {1: b / 2, -1: b / 2, 0: 1 - b}[yi]
    return prob


def _grr_pair(k, v, y, eps1, eps2, n_keys):
    """Algorithm 3: Pr[(k', v') | sampled (k, v)] with GRR over n_keys keys."""
    a = math.exp(eps1) / (math.exp(eps1) + n_keys - 1)
    b = (1 - a) / (n_keys - 1)
    p = math.exp(eps2) / (math.exp(eps2) + 1.0)
    k2, v2 = y
    if k2 == k:
        return a * (p if v2 == v else 1 - p)
    return b / 2


def _reference(mechanism, d, eps1, eps2, ell):
    sets = [()]
    for j in range(1, min(d, ell) + 1):
        for keys in itertools.combinations(range(1, d + 1), j):
            for values in itertools.product((1, -1), repeat=j):
                sets.append(tuple(zip(keys, values, strict=True)))
    n = d + ell
    if mechanism == "ue":
        outputs = list(itertools.product((1, -1, 0), repeat=n))
    else:
        outputs = list(itertools.product(range(1, n + 1), (1, -1)))
    M = np.zeros((len(sets), len(outputs)))
    for r, S in enumerate(sets):
        for (k, v), w in _sampling_distribution(S, d, ell).items():
            for c, y in enumerate(outputs):
                if mechanism == "ue":
                    M[r, c] += w * _ue_pair(k, v, y, eps1, eps2)
                else:
                    M[r, c] += w * _grr_pair(k, v, y, eps1, eps2, n)
    return sets, outputs, M


@pytest.mark.parametrize("d, ell", [(1, 1), (2, 1), (2, 2), (1, 3), (3, 2)])
@pytest.mark.parametrize("eps1, eps2", [(1.0, 0.5), (0.0, 2.0), (2.5, 0.0)])
def test_pckv_ue_matches_algorithms_1_and_2(d, ell, eps1, eps2):
    sets, outputs, M = _reference("ue", d, eps1, eps2, ell)
    C = q.pckv_ue(d, eps1, eps2, ell)
    assert C.inputs == tuple(sets)
    assert C.outputs == tuple(outputs)
    np.testing.assert_allclose(C.matrix, M, rtol=0, atol=1e-13)


@pytest.mark.parametrize("d, ell", [(1, 1), (2, 1), (2, 2), (1, 3), (3, 3), (4, 2)])
@pytest.mark.parametrize("eps1, eps2", [(1.0, 0.5), (0.0, 2.0), (2.5, 0.0)])
def test_pckv_grr_matches_algorithms_1_and_3(d, ell, eps1, eps2):
    sets, outputs, M = _reference("grr", d, eps1, eps2, ell)
    C = q.pckv_grr(d, eps1, eps2, ell)
    assert C.inputs == tuple(sets)
    assert C.outputs == tuple(outputs)
    np.testing.assert_allclose(C.matrix, M, rtol=0, atol=1e-13)


def test_input_labels_written_out():
    # d = 2, ell = 2: the empty set, 4 singletons, 4 pairs (written by hand).
    expected = (
        (),
        ((1, 1),),
        ((1, -1),),
        ((2, 1),),
        ((2, -1),),
        ((1, 1), (2, 1)),
        ((1, 1), (2, -1)),
        ((1, -1), (2, 1)),
        ((1, -1), (2, -1)),
    )
    assert q.pckv_grr(2, 1.0, 1.0, ell=2).inputs == expected
    assert q.pckv_ue(2, 1.0, 1.0, ell=2).inputs == expected


@pytest.mark.parametrize("d, ell", [(1, 1), (3, 1), (3, 2), (3, 5), (5, 3)])
def test_number_of_inputs_and_outputs(d, ell):
    # Σ_{j <= min(d, ell)} C(d, j) 2^j sets; 3^(d+ell) UE vectors; 2 (d+ell) GRR pairs.
    n_sets = sum(comb(d, j) * 2**j for j in range(min(d, ell) + 1))
    assert q.pckv_grr(d, 1.0, 1.0, ell).shape == (n_sets, 2 * (d + ell))
    if d + ell <= 7:
        assert q.pckv_ue(d, 1.0, 1.0, ell).shape == (n_sets, 3 ** (d + ell))


def test_ue_key_part_is_oue():
    # Forgetting the values (1 and -1 both -> key reported) leaves OUE on the key
    # (PCKV Sec. 5.2: the key is perturbed by UE with a = 1/2, b = 1/(e^eps1 + 1)).
    d, eps1 = 3, 1.3
    C = q.pckv_ue(d, eps1, 0.7)  # ell = 1: S = {(k, v)} is always sampled
    forget = np.zeros((C.n_outputs, 2 ** (d + 1)))
    bits = list(itertools.product((0, 1), repeat=d + 1))
    for c, y in enumerate(C.outputs):
        forget[c, bits.index(tuple(int(t != 0) for t in y))] = 1.0
    keys_only = q.cascade(C, q.Channel(forget))
    oue = q.oue(d + 1, eps1)
    for r, S in enumerate(C.inputs):
        k = S[0][0] if S else None
        if k is not None:
            np.testing.assert_allclose(keys_only.matrix[r], oue.matrix[k - 1], atol=1e-14)
    # The empty set samples the dummy key d+1.
    np.testing.assert_allclose(keys_only.matrix[0], oue.matrix[d], atol=1e-14)


# --- the paper's worked examples (PCKV Sec. 5.2) ---------------------------------------


def test_paper_toy_example_ue_no_amplification():
    # K = {1,2,3,4}, ell = 2, eps2 = 0; S1 = {1, 2}, S2 = {3, 4}, y = [110000] (keys only):
    # Pr(y | S1) = a b (1-b)^4, Pr(y | S2) = b^2 (1-a)(1-b)^3, ratio e^eps1.
    eps1 = 1.2
    a, b = 0.5, 1 / (math.exp(eps1) + 1)
    C = q.pckv_ue(4, eps1, 0.0, ell=2)
    support = (1, 1, 0, 0, 0, 0)
    cols = [c for c, y in enumerate(C.outputs) if tuple(int(t != 0) for t in y) == support]
    s1 = C.inputs.index(((1, 1), (2, 1)))
    s2 = C.inputs.index(((3, -1), (4, 1)))
    p1, p2 = C.matrix[s1, cols].sum(), C.matrix[s2, cols].sum()
    assert p1 == pytest.approx(a * b * (1 - b) ** 4, rel=1e-12)
    assert p2 == pytest.approx(b**2 * (1 - a) * (1 - b) ** 3, rel=1e-12)
    assert p1 / p2 == pytest.approx(math.exp(eps1), rel=1e-12)


@pytest.mark.parametrize("ell", [2, 3])
def test_paper_toy_example_grr_amplification(ell):
    # Same sets, y = {1}: Pr(y | S1) = a/ell + (1 - 1/ell) b, Pr(y | S2) = b, ratio
    # 1 + (a/b - 1)/ell < e^eps1 (a, b: GRR over d + ell keys).
    eps1, d = 1.2, 4
    n = d + ell
    a = math.exp(eps1) / (math.exp(eps1) + n - 1)
    b = (1 - a) / (n - 1)
    C = q.pckv_grr(d, eps1, 0.0, ell=ell)
    s1 = C.inputs.index(((1, 1), (2, 1)))
    s2 = C.inputs.index(((3, 1), (4, -1)))
    cols = [C.outputs.index((1, 1)), C.outputs.index((1, -1))]
    p1, p2 = C.matrix[s1, cols].sum(), C.matrix[s2, cols].sum()
    assert p1 == pytest.approx(a / ell + (1 - 1 / ell) * b, rel=1e-12)
    assert p2 == pytest.approx(b, rel=1e-12)
    assert p1 / p2 == pytest.approx(1 + (a / b - 1) / ell, rel=1e-12)
    assert p1 / p2 < math.exp(eps1)


def test_theorem_2_worst_case_output():
    # Interpretation of Theorem 2 (ell = 1): y[k1] = v1, y[k2] = 0 against the input
    # (k2, v2) gives the ratio 2 e^(eps1+eps2) / (e^eps2 + 1).
    eps1, eps2 = 0.8, 1.7
    C = q.pckv_ue(2, eps1, eps2)
    y = C.outputs.index((1, 0, 0))
    x1 = C.inputs.index(((1, 1),))
    x2 = C.inputs.index(((2, -1),))
    ratio = C.matrix[x1, y] / C.matrix[x2, y]
    assert ratio == pytest.approx(2 * math.exp(eps1 + eps2) / (math.exp(eps2) + 1), rel=1e-12)


# --- budget composition: Theorems 2 and 3 against the explicit channel ------------------


def _theorem_2(eps1, eps2):
    # Paper Eq. (3), as read from the interpretation of Theorem 2.
    return max(eps2, eps1 + math.log(2 / (1 + math.exp(-eps2))))


@pytest.mark.parametrize("eps1, eps2", EPS_PAIRS)
def test_pckv_epsilon_ue_closed_form(eps1, eps2):
    for ell in (1, 2, 5):
        assert q.pckv_epsilon(eps1, eps2, ell, "ue") == pytest.approx(
            _theorem_2(eps1, eps2), abs=1e-12
        )


@pytest.mark.parametrize("eps1, eps2", EPS_PAIRS)
def test_pckv_epsilon_grr_special_cases(eps1, eps2):
    # Paper Sec. 5.2 after Theorem 3: ell = 1 gives Theorem 2; eps2 = 0 gives
    # ln((e^eps1 + ell - 1) / ell); eps decreases as ell grows.
    assert q.pckv_epsilon(eps1, eps2, 1, "grr") == pytest.approx(_theorem_2(eps1, eps2), abs=1e-12)
    for ell in (2, 3, 7):
        assert q.pckv_epsilon(eps1, 0.0, ell, "grr") == pytest.approx(
            math.log((math.exp(eps1) + ell - 1) / ell), abs=1e-12
        )
    values = [q.pckv_epsilon(eps1, eps2, ell, "grr") for ell in range(1, 8)]
    assert all(x >= y - 1e-15 for x, y in zip(values, values[1:], strict=False))


@pytest.mark.parametrize("d, ell", [(1, 1), (2, 1), (1, 2), (2, 2), (3, 2), (2, 3), (1, 4)])
@pytest.mark.parametrize("eps1, eps2", EPS_PAIRS)
def test_theorem_3_is_the_true_epsilon_of_pckv_grr(d, ell, eps1, eps2):
    # LDP over all pairs of sets (neighbors=None): the paper's notion (Sec. 5.2).
    C = q.pckv_grr(d, eps1, eps2, ell)
    assert q.ldp_epsilon(C) == pytest.approx(q.pckv_epsilon(eps1, eps2, ell, "grr"), abs=1e-12)


def _true_ue_epsilon(d, eps1, eps2, ell):
    # Hand derivation. Pr(y | S) = base(y) * mean over the ell slots of the likelihood
    # ratio r(slot, y); r = R1 when y shows the slot's pair, R- when y shows its key with
    # the other value, R0 when y[key] = 0 (dummy slots with zeros on the dummy keys too).
    # At most m = min(d, ell) slots are real, so
    # eps = ln((m R1 + (ell-m) R0) / min(ell R0, m R- + (ell-m) R0)).
    E, p = math.exp(eps1), math.exp(eps2) / (math.exp(eps2) + 1)
    R1, Rm, R0 = p * (E + 1), (1 - p) * (E + 1), (E + 1) / (2 * E)
    m = min(d, ell)
    return math.log((m * R1 + (ell - m) * R0) / min(ell * R0, m * Rm + (ell - m) * R0))


@pytest.mark.parametrize("d, ell", [(1, 1), (2, 1), (2, 2), (3, 2), (3, 3)])
@pytest.mark.parametrize("eps1, eps2", EPS_PAIRS)
def test_theorem_2_is_the_true_epsilon_of_pckv_ue_when_d_at_least_ell(d, ell, eps1, eps2):
    C = q.pckv_ue(d, eps1, eps2, ell)
    assert q.ldp_epsilon(C) == pytest.approx(q.pckv_epsilon(eps1, eps2, ell, "ue"), abs=1e-12)


@pytest.mark.parametrize("d, ell", [(1, 2), (1, 3), (2, 3), (1, 4)])
@pytest.mark.parametrize("eps1, eps2", EPS_PAIRS)
def test_theorem_2_is_only_an_upper_bound_when_d_below_ell(d, ell, eps1, eps2):
    C = q.pckv_ue(d, eps1, eps2, ell)
    true = q.ldp_epsilon(C)
    assert true == pytest.approx(_true_ue_epsilon(d, eps1, eps2, ell), abs=1e-12)
    assert true < q.pckv_epsilon(eps1, eps2, ell, "ue") - 1e-3


def test_theorem_2_discrepancy_pinned():
    # d = 1 key, ell = 2, eps1 = eps2 = 1: Theorem 2 states 1 + ln(2 / (1 + e^-1))
    # = 1.379885; the channel has ln((1 + 2 p e) / 2) = 0.911167 (p = e / (1 + e)).
    C = q.pckv_ue(1, 1.0, 1.0, ell=2)
    assert q.pckv_epsilon(1.0, 1.0, 2, "ue") == pytest.approx(1.379885, abs=1e-6)
    p = math.e / (1 + math.e)
    assert q.ldp_epsilon(C) == pytest.approx(math.log((1 + 2 * p * math.e) / 2), abs=1e-12)
    assert q.ldp_epsilon(C) == pytest.approx(0.911167, abs=1e-6)


def test_pckv_epsilon_large_budgets_do_not_overflow():
    # Theorem 2 at eps1 = eps2 = 800: 800 + ln(2 / (1 + e^-800)) = 800 + ln 2.
    assert q.pckv_epsilon(800.0, 800.0) == pytest.approx(800 + math.log(2), abs=1e-9)
    # Theorem 3 at ell = 3: lam = (1 + e^800) ≈ e^800, min(e^800, (1 + e^800)/2) ≈ e^800 / 2,
    # so eps = ln((e^800 + e^1600) / (1.5 e^800)) = 800 - ln 1.5 to double precision.
    assert q.pckv_epsilon(800.0, 800.0, 3, "grr") == pytest.approx(800 - math.log(1.5), abs=1e-9)


def test_large_budget_channels_stay_valid():
    C = q.pckv_grr(2, 800.0, 800.0)
    assert np.all(np.isfinite(C.matrix))
    U = q.pckv_ue(2, 50.0, 50.0)
    assert np.all(np.isfinite(U.matrix))


# --- validation and size guard -------------------------------------------------------


@pytest.mark.parametrize("f", [q.pckv_ue, q.pckv_grr])
def test_bad_parameters(f):
    with pytest.raises(q.ParameterError, match="d must be >= 1"):
        f(0, 1.0, 1.0)
    with pytest.raises(q.ParameterError, match="ell must be >= 1"):
        f(2, 1.0, 1.0, ell=0)
    with pytest.raises(q.ParameterError, match="eps1 must be >= 0"):
        f(2, -1.0, 1.0)
    with pytest.raises(q.ParameterError, match="eps2 must be finite"):
        f(2, 1.0, math.inf)
    with pytest.raises(q.InputTypeError, match="d must be an integer"):
        f(2.5, 1.0, 1.0)
    with pytest.raises(q.InputTypeError, match="eps2 must be a real number"):
        f(2, 1.0, "1")


def test_pckv_epsilon_bad_parameters():
    with pytest.raises(q.ParameterError, match="mechanism must be 'ue'"):
        q.pckv_epsilon(1.0, 1.0, mechanism="olh")
    with pytest.raises(q.InputTypeError, match="mechanism must be the string"):
        q.pckv_epsilon(1.0, 1.0, mechanism=None)
    with pytest.raises(q.ParameterError, match="ell must be >= 1"):
        q.pckv_epsilon(1.0, 1.0, ell=0)
    with pytest.raises(q.ParameterError, match="eps1 must not be NaN"):
        q.pckv_epsilon(math.nan, 1.0)


def test_size_guard_refuses_before_allocating():
    # 3^31 UE outputs; C(200, j) 2^j sets for j <= 6 is ~10^13 inputs.
    with pytest.raises(q.SizeError, match="pckv_ue"):
        q.pckv_ue(30, 1.0, 1.0)
    with pytest.raises(q.SizeError, match="more than MAX_ENTRIES"):
        q.pckv_grr(200, 1.0, 1.0, ell=6)
    with pytest.raises(q.SizeError):
        q.pckv_ue(10**6, 1.0, 1.0)
