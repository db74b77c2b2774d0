"""Re-identification from sanitised profiles (issue 11, item 3).

Expectations: hand-derived Bayes values for tiny populations, a brute-force
enumeration over every sequence of asked attributes and every report (independent of
survey_sets / compose), and Monte Carlo bands (fixed seeds) around the exact value:
for GRR the distance-matching attacker is Bayes-optimal (p_j / q_j = e^eps for every
attribute), so its simulated top-1 accuracy must match the exact Bayes value.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError


def _brute_bayes(pop, ks, eps, oracle, surveys, metric, known=None):
    pop = np.asarray(pop)
    N, d = pop.shape
    known = set(range(d)) if known is None else set(known)
    Cs = [q.protocol(oracle, k, eps).channel().matrix for k in ks]
    if metric == "uniform":
        seqs = list(itertools.permutations(range(d), surveys))
    else:
        seqs = list(itertools.product(range(d), repeat=surveys))
    total = 0.0
    for seq in seqs:
        S = sorted(set(seq) & known)
        best = 0.0
        for ys in itertools.product(*(range(Cs[j].shape[1]) for j in S)):
            best += max(
                math.prod(Cs[j][pop[i, j], y] for j, y in zip(S, ys, strict=True)) for i in range(N)
            )
        total += best / N / len(seqs)
    return total


def test_bayes_by_hand():
    e = math.e
    assert q.reidentification_bayes([[0], [1]], 1.0, ks=(2,)) == pytest.approx(e / (e + 1))
    # three distinct records on k = 3: Σ_y max_i C / 3 = p
    assert q.reidentification_bayes([[0], [1], [2]], 1.0) == pytest.approx(e / (e + 2))
    # identical records cannot be told apart
    assert q.reidentification_bayes([[0], [0]], 3.0, ks=(2,)) == pytest.approx(0.5)
    # records (0, 0) and (1, 1): p^2 + p q = p whatever is asked
    p = e / (e + 1)
    for surveys, metric in [(1, "uniform"), (2, "uniform"), (3, "non-uniform")]:
        v = q.reidentification_bayes([[0, 0], [1, 1]], 1.0, surveys=surveys, metric=metric)
        assert v == pytest.approx(p)
    # nothing known about the asked attribute: a blind guess
    v = q.reidentification_bayes([[0, 0], [1, 0]], 1.0, surveys=1, known=[1], ks=(2, 2))
    assert v == pytest.approx(0.5)


@pytest.mark.parametrize("oracle", ["grr", "oue", "ss"])
@pytest.mark.parametrize(
    ("surveys", "metric"), [(1, "uniform"), (2, "uniform"), (2, "non-uniform")]
)
def test_bayes_matches_brute_force(oracle, surveys, metric):
    pop = [[0, 1], [1, 1], [2, 0], [0, 0], [2, 1]]
    ks = (3, 2)
    for known in (None, [0]):
        want = _brute_bayes(pop, ks, 1.2, oracle, surveys, metric, known)
        got = q.reidentification_bayes(pop, 1.2, oracle, surveys, metric, known=known, ks=ks)
        assert got == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize(("metric", "known"), [("uniform", None), ("non-uniform", [0, 2])])
def test_grr_distance_attacker_is_bayes_optimal(metric, known):
    pop = q.synthetic_population(60, (3, 3, 2), s=1.0, rho=0.4, rng=3)
    want = q.reidentification_bayes(pop, 1.5, "grr", 3, metric, known=known, ks=(3, 3, 2))
    runs = [
        q.reidentification_accuracy(
            pop, 1.5, "grr", 3, metric, known=known, ks=(3, 3, 2), targets=60, rng=seed
        ).accuracy[0]
        for seed in range(60)
    ]
    # each run's mean over 60 targets: the runs are i.i.d. with mean = the Bayes value
    sd = np.std(runs, ddof=1) / math.sqrt(len(runs))
    assert abs(np.mean(runs) - want) < 4 * sd + 1e-12


def test_non_grr_attacker_does_not_beat_bayes():
    pop = q.synthetic_population(40, (4, 3), rho=0.5, rng=1)
    want = q.reidentification_bayes(pop, 1.0, "oue", ks=(4, 3))
    runs = [
        q.reidentification_accuracy(pop, 1.0, "oue", ks=(4, 3), targets=40, rng=s).accuracy[0]
        for s in range(40)
    ]
    sd = np.std(runs, ddof=1) / math.sqrt(len(runs))
    assert np.mean(runs) < want + 4 * sd


def test_top_k_at_high_eps_counts_duplicates():
    # eps = 60: profiles are the truth; a record shared by m users is found w.p. min(1, k/m)
    pop = np.array([[0, 0], [0, 0], [0, 0], [1, 2], [2, 1], [1, 1]])
    r = q.reidentification_accuracy(pop, 60.0, top_k=[1, 2, 3, 6], ks=(3, 3), rng=0)
    want = [(3 * min(1, k / 3) + 3) / 6 for k in (1, 2, 3, 6)]
    assert r.accuracy == pytest.approx(tuple(want))
    assert r.n_targets == 6 and r.as_dict()[6] == pytest.approx(1.0)


def test_partial_knowledge_lowers_accuracy_and_topk_grows():
    pop = q.synthetic_population(3000, (20, 7, 10), rho=0.3, rng=2)
    full = q.reidentification_accuracy(pop, 4.0, top_k=[1, 10, 100], targets=500, rng=5)
    part = q.reidentification_accuracy(
        pop, 4.0, known=[1, 2], top_k=[1, 10, 100], targets=500, rng=5
    )
    assert list(full.accuracy) == sorted(full.accuracy)
    assert all(f >= p for f, p in zip(full.accuracy, part.accuracy, strict=True))
    assert full.accuracy[0] > part.accuracy[0] + 5 * max(full.stderr[0], part.stderr[0])


def test_on_a_user_supplied_csv(tmp_path):
    f = tmp_path / "census.csv"
    rows = ["age,workclass,sex,race"]
    rng = np.random.default_rng(0)
    work, sex, race = ["Private", "State-gov", "Self-emp"], ["Male", "Female"], ["White", "Black"]
    for _ in range(30):
        rows.append(
            f"{rng.integers(17, 90)}, {rng.choice(work)}, {rng.choice(sex)}, {rng.choice(race)}"
        )
    f.write_text("\n".join(rows) + "\n")
    T = q.load_categorical_csv(f, columns=["workclass", "sex", "race"])
    assert T.ks == (3, 2, 2)
    want = _brute_bayes(T.data, T.ks, 2.0, "grr", 3, "uniform")
    assert q.reidentification_bayes(T.data, 2.0, ks=T.ks) == pytest.approx(want, rel=1e-10)
    r = q.reidentification_accuracy(T.data, 2.0, top_k=[1, 5], ks=T.ks, rng=0)
    assert 0 < r.accuracy[0] <= r.accuracy[1] <= 1


def test_bad_input_is_named():
    pop = [[0, 1], [1, 0]]
    with pytest.raises(ParameterError, match="top_k"):
        q.reidentification_accuracy(pop, 1.0, top_k=3)
    with pytest.raises(ParameterError, match="known"):
        q.reidentification_accuracy(pop, 1.0, known=[2])
    with pytest.raises(ParameterError, match="known"):
        q.reidentification_accuracy(pop, 1.0, known=[])
    with pytest.raises(ParameterError, match="targets"):
        q.reidentification_accuracy(pop, 1.0, targets=5)
    with pytest.raises(InputTypeError, match="tuples"):
        q.reidentification_bayes([[0.5, 1.0]], 1.0)
    with pytest.raises(ParameterError, match="MAX_BAYES_POPULATION"):
        q.reidentification_bayes(np.zeros((3000, 2), dtype=int), 1.0)
