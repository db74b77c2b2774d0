"""SPL, SMP and RS+FD[GRR]: channels, true epsilons and attacker accuracies.

Paper: Arcolezi, Gambs, Couchot, Palamidessi, "On the Risks of Collecting
Multidimensional Data Under Local Differential Privacy" (VLDB 2023), cited as
"risks paper". Expected values: hand-computed small channels, a direct
enumeration of each protocol's description, and closed forms derived by hand in
the comments (provenance given next to each).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q

KS_CASES = [[2, 2], [2, 3], [3, 3, 3], [2, 5], [2, 3, 4], [4]]


def _acc_grr(eps, k):
    """Risks paper Sec. 3.2, plausible deniability of GRR: ACC = e^eps / (e^eps + k - 1)."""
    return math.exp(eps) / (math.exp(eps) + k - 1)


def _grr_entry(eps, k, x, y):
    p = math.exp(eps) / (math.exp(eps) + k - 1)
    return p if x == y else (1 - p) / (k - 1)


def _hamming_one(inputs):
    return [
        (i, j)
        for i, j in itertools.combinations(range(len(inputs)), 2)
        if sum(a != b for a, b in zip(inputs[i], inputs[j], strict=True)) == 1
    ]


def _amplified(d, eps):
    return math.log(d * (math.exp(eps) - 1) + 1)  # risks paper Sec. 2.3 (RS+FD)


# --- labels and hand-computed channels ---------------------------------------------------


def test_labels():
    tuples = ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2))
    for C in (q.spl([2, 3], 1.0), q.rsfd_grr([2, 3], 1.0)):
        assert C.inputs == tuples
        assert C.outputs == tuples
    S = q.smp([2, 3], 1.0)
    assert S.inputs == tuples
    assert S.outputs == ((0, 0), (0, 1), (1, 0), (1, 1), (1, 2))
    assert q.spl([3], 1.0).inputs == ((0,), (1,), (2,))


def test_spl_by_hand():
    # ks = [2, 2], eps = 2 ln 3: each attribute GRR(2, ln 3) with p = 3/4, so the
    # entries are products of 3/4 and 1/4 (written out by hand).
    C = q.spl([2, 2], 2 * math.log(3))
    expected = (
        np.array(
            [
                [9, 3, 3, 1],
                [3, 9, 1, 3],
                [3, 1, 9, 3],
                [1, 3, 3, 9],
            ]
        )
        / 16
    )
    np.testing.assert_allclose(C.matrix, expected, atol=1e-15)


def test_smp_by_hand():
    # ks = [2, 3], eps = ln 2: GRR(2) has p = 2/3, q = 1/3; GRR(3) has p = 1/2, q = 1/4;
    # each attribute is sampled w.p. 1/2.
    C = q.smp([2, 3], math.log(2))
    x00 = C.inputs.index((0, 0))
    x12 = C.inputs.index((1, 2))
    np.testing.assert_allclose(C.matrix[x00], [1 / 3, 1 / 6, 1 / 4, 1 / 8, 1 / 8], atol=1e-15)
    np.testing.assert_allclose(C.matrix[x12], [1 / 6, 1 / 3, 1 / 8, 1 / 8, 1 / 4], atol=1e-15)


def test_rsfd_by_hand():
    # ks = [2, 2], eps = ln 2: eps' = ln(2 (2 - 1) + 1) = ln 3, p' = 3/4, q' = 1/4.
    # Pr(y | x) = 1/2 [GRR'(x0, y0) 1/2] + 1/2 [1/2 GRR'(x1, y1)], so from x = (0, 0):
    # y = (0,0): 3/8, (0,1): 1/4, (1,0): 1/4, (1,1): 1/8.
    C = q.rsfd_grr([2, 2], math.log(2))
    np.testing.assert_allclose(C.matrix[0], [3 / 8, 1 / 4, 1 / 4, 1 / 8], atol=1e-15)
    np.testing.assert_allclose(C.matrix[3], [1 / 8, 1 / 4, 1 / 4, 3 / 8], atol=1e-15)


@pytest.mark.parametrize("ks", KS_CASES)
@pytest.mark.parametrize("eps", [0.0, 0.7, 2.0])
def test_channels_match_the_protocol_descriptions(ks, eps):
    # Enumeration of the risks paper's Sec. 2.3 descriptions, entry by entry.
    d = len(ks)
    X = list(itertools.product(*(range(k) for k in ks)))
    eps_rs = _amplified(d, eps)
    spl, smp, rsfd = q.spl(ks, eps), q.smp(ks, eps), q.rsfd_grr(ks, eps)
    for r, x in enumerate(X):
        for c, y in enumerate(X):
            # SPL: every attribute through GRR(eps / d), independently.
            expected = math.prod(
                _grr_entry(eps / d, k, a, b) for k, a, b in zip(ks, x, y, strict=True)
            )
            assert spl.matrix[r, c] == pytest.approx(expected, abs=1e-14)
            # RS+FD: attribute j (w.p. 1/d) through GRR(eps'), the others uniform.
            expected = (
                sum(
                    _grr_entry(eps_rs, ks[j], x[j], y[j])
                    * math.prod(1 / k for i, k in enumerate(ks) if i != j)
                    for j in range(d)
                )
                / d
            )
            assert rsfd.matrix[r, c] == pytest.approx(expected, abs=1e-14)
        for c, (j, v) in enumerate(smp.outputs):
            # SMP: (j, GRR(eps)(x_j)) w.p. 1/d.
            assert smp.matrix[r, c] == pytest.approx(_grr_entry(eps, ks[j], x[j], v) / d, abs=1e-14)


def test_one_attribute_reduces_to_grr():
    # d = 1: eps' = eps, no fake data, no split: all three are GRR (labels aside).
    G = q.grr(4, 1.3).matrix
    np.testing.assert_allclose(q.spl([4], 1.3).matrix, G, atol=1e-15)
    np.testing.assert_allclose(q.rsfd_grr([4], 1.3).matrix, G, atol=1e-15)
    np.testing.assert_allclose(q.smp([4], 1.3).matrix, G, atol=1e-15)


def test_rsfd_is_the_hidden_choice_of_its_components():
    # Rebuilt here from the operators: sampled attribute through grr(k, eps'), the other
    # through grr(k, 0) (uniform fakes), hidden uniform choice of the attribute.
    ks, eps = [2, 3], 0.9
    e = _amplified(2, eps)
    R0 = q.parallel(q.grr(2, e), q.grr(3, 0.0))
    R1 = q.parallel(q.grr(2, 0.0), q.grr(3, e))
    np.testing.assert_allclose(
        q.hidden_choice([R0, R1]).matrix, q.rsfd_grr(ks, eps).matrix, atol=1e-15
    )


# --- true epsilons --------------------------------------------------------------------


@pytest.mark.parametrize("ks", KS_CASES)
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
def test_spl_and_smp_epsilons(ks, eps):
    d = len(ks)
    S = q.spl(ks, eps)
    assert q.ldp_epsilon(S) == pytest.approx(eps, abs=1e-12)  # d * (eps / d): composition
    assert q.ldp_epsilon(S, _hamming_one(S.inputs)) == pytest.approx(eps / d, abs=1e-12)
    M = q.smp(ks, eps)
    assert q.ldp_epsilon(M) == pytest.approx(eps, abs=1e-12)  # each column is one GRR(eps)


def _rsfd_true_eps(ks, eps):
    # Hand derivation: Pr(y | x) = (1 / (d Π k)) Σ_j k_j [p'_j if y_j = x_j else q'_j];
    # all pairs: max over x at x = y, min at x differing everywhere (k_j >= 2).
    E = math.exp(_amplified(len(ks), eps))
    p = [E / (E + k - 1) for k in ks]
    qq = [1 / (E + k - 1) for k in ks]
    all_pairs = math.log(
        sum(k * a for k, a in zip(ks, p, strict=True))
        / sum(k * b for k, b in zip(ks, qq, strict=True))
    )
    # One attribute j changes, the others mismatch y (the smallest common part).
    base = sum(k * b for k, b in zip(ks, qq, strict=True))
    one = math.log(1 + max(k * (a - b) for k, a, b in zip(ks, p, qq, strict=True)) / base)
    return all_pairs, one


@pytest.mark.parametrize("ks", KS_CASES)
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
def test_rsfd_true_epsilon_closed_forms(ks, eps):
    C = q.rsfd_grr(ks, eps)
    all_pairs, one = _rsfd_true_eps(ks, eps)
    assert q.ldp_epsilon(C) == pytest.approx(all_pairs, abs=1e-12)
    assert q.ldp_epsilon(C, _hamming_one(C.inputs)) == pytest.approx(one, abs=1e-12)


@pytest.mark.parametrize("ks", [[2, 2], [3, 3, 3], [5, 5]])
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_rsfd_claim_equal_domains(ks, eps):
    # The risks paper (Sec. 2.3) says RS+FD with eps' = ln(d (e^eps - 1) + 1) is eps-LDP.
    # Equal domain sizes: true for tuples differing in ONE attribute, but over all pairs
    # of tuples (one user's whole tuple, the LDP notion) the channel has eps' > eps.
    C = q.rsfd_grr(ks, eps)
    assert q.ldp_epsilon(C, _hamming_one(C.inputs)) == pytest.approx(eps, abs=1e-12)
    assert q.ldp_epsilon(C) == pytest.approx(_amplified(len(ks), eps), abs=1e-12)
    assert q.ldp_epsilon(C) > eps + 0.1


def test_rsfd_claim_fails_for_unequal_domains_pinned():
    # ks = [2, 5], eps = 1: eps' = ln(2 (e - 1) + 1) = 1.489880 over all pairs; one
    # attribute changing already gives 1.137956 > 1 (through the k = 5 attribute).
    C = q.rsfd_grr([2, 5], 1.0)
    assert q.ldp_epsilon(C) == pytest.approx(1.489880, abs=1e-6)
    assert q.ldp_epsilon(C, _hamming_one(C.inputs)) == pytest.approx(1.137956, abs=1e-6)


@pytest.mark.parametrize("ks", KS_CASES)
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_rsfd_all_pairs_epsilon_is_the_amplified_budget(ks, eps):
    # k_j p'_j = e^eps' k_j q'_j for every j, so Σ_j k_j p'_j / Σ_j k_j q'_j = e^eps'.
    assert q.ldp_epsilon(q.rsfd_grr(ks, eps)) == pytest.approx(_amplified(len(ks), eps), abs=1e-12)


# --- attacker accuracy (risks paper Sec. 3.2) -------------------------------------------


def _smp_components(ks, eps):
    """The channel of SMP given that attribute j was sampled, read off the visible choice."""
    C = q.smp(ks, eps)
    d = len(ks)
    comps = []
    for j in range(d):
        cols = [c for c, (i, _) in enumerate(C.outputs) if i == j]
        comps.append(q.Channel(d * C.matrix[:, cols], C.inputs, [C.outputs[c] for c in cols]))
    return comps


def _same_input(channels):
    """All channels run on the same secret: cascade of the copy x -> (x, ..., x) and parallel."""
    X = channels[0].inputs
    P = channels[0]
    for B in channels[1:]:
        P = q.parallel(P, B)
    # P's inputs are nested pairs ((x, x'), x''), ...; the copy puts all mass on (x, ..., x).
    copy = np.zeros((len(X), P.n_inputs))
    for r, x in enumerate(X):
        label = x
        for _ in channels[1:]:
            label = (label, x)
        copy[r, P.inputs.index(label)] = 1.0
    return q.cascade(q.Channel(copy, X, P.inputs), P)


@pytest.mark.parametrize("ks", [[2, 3], [74, 7], [3, 4, 2]])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_smp_sampled_attribute_accuracy_is_acc_grr(ks, eps):
    # Given the disclosed attribute j, guessing v_j = y is Bayes-optimal and succeeds
    # w.p. ACC_GRR (risks paper Sec. 3.2): g-vulnerability with gain [w = x_j].
    for j, C in enumerate(_smp_components(ks, eps)):
        gain = np.array([[float(x[j] == w) for x in C.inputs] for w in range(ks[j])])
        assert q.g_vulnerability(C, gain) == pytest.approx(_acc_grr(eps, ks[j]), abs=1e-12)


@pytest.mark.parametrize("ks", [[2, 3], [3, 4, 2]])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_smp_one_survey_profile_accuracy(ks, eps):
    # Full tuple, uniform prior: guess the disclosed value, the others uniformly:
    # V = (1/d) Σ_j ACC_GRR(eps, k_j) / Π_{i != j} k_i (hand derivation).
    d, K = len(ks), math.prod(ks)
    expected = sum(_acc_grr(eps, k) * k / K for k in ks) / d
    assert q.bayes_vulnerability(q.smp(ks, eps)) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("ks", [[2, 3], [3, 2, 2]])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_smp_d_surveys_without_replacement_is_eq_4(ks, eps):
    # d surveys, attributes sampled without replacement (a uniformly random order,
    # disclosed): the channel is the visible choice over orders of the components run on
    # the same tuple. Risks paper Eq. (4) (not legible in the paper's available text; "the expected
    # probability of accurately profiling users with exactly d attributes", each survey
    # independent): ACC^U = Π_j ACC_GRR(eps, k_j). It equals the Bayes vulnerability.
    comps = _smp_components(ks, eps)
    orders = list(itertools.permutations(range(len(ks))))
    C = q.visible_choice([_same_input([comps[j] for j in o]) for o in orders])
    expected = math.prod(_acc_grr(eps, k) for k in ks)
    assert q.bayes_vulnerability(C) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("ks", [[2, 3], [3, 2, 2]])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_smp_d_surveys_with_replacement_vs_eq_5(ks, eps):
    # With replacement and memoization, a repeated attribute repeats its report (no new
    # information), so each sequence s of d attributes reveals the distinct set J(s).
    # Risks paper Eq. (5): ACC^NU = d!/d^d Π_j ACC_GRR counts only users with d distinct
    # attributes. The Bayes adversary also scores on partial profiles (guessing the
    # missing attributes uniformly): V = d^-d Σ_s Π_{j in J(s)} ACC_j Π_{j not in J(s)} 1/k_j
    # (enumeration of the sequences), which is strictly larger.
    d = len(ks)
    comps = _smp_components(ks, eps)
    sequences = list(itertools.product(range(d), repeat=d))
    branches = []
    expected = 0.0
    for s in sequences:
        J = sorted(set(s))
        branches.append(_same_input([comps[j] for j in J]))
        expected += math.prod(_acc_grr(eps, ks[j]) if j in J else 1 / ks[j] for j in range(d))
    expected /= d**d
    C = q.visible_choice(branches)
    V = q.bayes_vulnerability(C)
    assert V == pytest.approx(expected, abs=1e-12)
    eq5 = math.factorial(d) / d**d * math.prod(_acc_grr(eps, k) for k in ks)
    assert V > eq5 + 1e-3


def test_smp_eq_5_difference_pinned():
    # ks = [2, 3], eps = 1 (p0 = e/(e+1), p1 = e/(e+2)): channel (2 p0 p1 + p0/3 + p1/2)/4
    # = 0.343524 against Eq. (5)'s (2/4) p0 p1 = 0.210588.
    p0, p1 = _acc_grr(1.0, 2), _acc_grr(1.0, 3)
    comps = _smp_components([2, 3], 1.0)
    branches = [
        _same_input([comps[0], comps[1]]),
        _same_input([comps[0], comps[1]]),
        comps[0],
        comps[1],
    ]
    V = q.bayes_vulnerability(q.visible_choice(branches))
    assert V == pytest.approx((2 * p0 * p1 + p0 / 3 + p1 / 2) / 4, abs=1e-12)
    assert V == pytest.approx(0.343524, abs=1e-6)
    assert 0.5 * p0 * p1 == pytest.approx(0.210588, abs=1e-6)


@pytest.mark.parametrize("ks", [[2, 3], [2, 2], [3, 4, 2]])
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_rsfd_profile_accuracy_exceeds_smp(ks, eps):
    # Hand derivation: every term of Pr(y | x) is largest at x = y, so the Bayes guess is
    # y itself and V = (1/d) Σ_j p'_j k_j / Π k: SMP's formula with eps' > eps in place
    # of eps. One RS+FD report lets the adversary guess the whole tuple more often than
    # one SMP report at the same nominal eps.
    d, K = len(ks), math.prod(ks)
    e = _amplified(d, eps)
    expected = sum(_acc_grr(e, k) * k / K for k in ks) / d
    V = q.bayes_vulnerability(q.rsfd_grr(ks, eps))
    assert V == pytest.approx(expected, abs=1e-12)
    assert V > q.bayes_vulnerability(q.smp(ks, eps))


def test_rsfd_sampled_attribute_inference():
    # Which attribute was sampled? Secret j (uniform), observation y. Under a uniform prior
    # on the tuple, Σ_x Pr(x) Pr(y | x, j) = 1/Π k for every j: no information, accuracy
    # 1/d. Knowing the tuple x = (0, 0) (ks = [2, 2], eps = ln 2, p' = 3/4): by hand the
    # column maxima are 3/8, 3/8, 3/8, 1/8, so accuracy (1/2)(10/8) = 5/8 = (2p' + 1)/4.
    ks, eps = [2, 2], math.log(2)
    e = _amplified(2, eps)
    R = [q.parallel(q.grr(2, e), q.grr(2, 0.0)), q.parallel(q.grr(2, 0.0), q.grr(2, e))]
    uniform = q.Channel(np.array([Rj.matrix.mean(axis=0) for Rj in R]))
    assert q.bayes_vulnerability(uniform) == pytest.approx(0.5, abs=1e-12)
    known = q.Channel(np.array([Rj.matrix[0] for Rj in R]))
    assert q.bayes_vulnerability(known) == pytest.approx(5 / 8, abs=1e-12)
    # and these components are those of rsfd_grr (hidden choice)
    np.testing.assert_allclose(q.hidden_choice(R).matrix, q.rsfd_grr(ks, eps).matrix, atol=1e-15)


# --- validation and size guard ---------------------------------------------------------


@pytest.mark.parametrize("f", [q.spl, q.smp, q.rsfd_grr])
def test_bad_parameters(f):
    with pytest.raises(q.ParameterError, match="ks must be a non-empty sequence"):
        f([], 1.0)
    with pytest.raises(q.ParameterError, match=r"ks\[1\] must be >= 2"):
        f([3, 1], 1.0)
    with pytest.raises(q.InputTypeError, match="ks must be a non-empty sequence"):
        f("23", 1.0)
    with pytest.raises(q.InputTypeError, match="ks must be a non-empty sequence"):
        f(3, 1.0)
    with pytest.raises(q.InputTypeError, match=r"ks\[0\] must be an integer"):
        f([2.5, 2], 1.0)
    with pytest.raises(q.ParameterError, match="eps must be >= 0"):
        f([2, 2], -0.1)
    with pytest.raises(q.ParameterError, match="eps must be finite"):
        f([2, 2], math.inf)
    assert f(np.array([2, 3]), 1.0).n_inputs == 6  # numpy integers are fine


def test_size_guard_refuses_before_allocating():
    with pytest.raises(q.SizeError, match="spl"):
        q.spl([10] * 5, 1.0)  # 10^5 x 10^5 entries
    with pytest.raises(q.SizeError, match="smp"):
        q.smp([10] * 8, 1.0)  # 10^8 x 80
    with pytest.raises(q.SizeError, match="input tuples"):
        q.rsfd_grr([2] * 200, 1.0)  # 2^200 tuples


def test_large_eps_no_overflow():
    # eps' = eps + ln(d - (d-1) e^-eps) stays finite; GRR entries underflow to 0 cleanly.
    C = q.rsfd_grr([2, 3], 800.0)
    assert np.all(np.isfinite(C.matrix))
    assert q.ldp_epsilon(q.smp([2, 3], 800.0)) == math.inf
