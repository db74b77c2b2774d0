"""PCKV client + server for n = 10^6 users, d = 100, ell = 2, against a per-user loop.

Run: ``python -m pytest benchmarks/bench_keyvalue.py`` (pytest-benchmark). Each group
times :class:`qifldp.PCKV` (``sample`` then ``estimate``: padding-and-sampling,
discretisation, perturbation, aggregation, Eqs. 7-8 with Algorithm 4's correction)
on 10^6 users holding 1 or 2 of d = 100 keys (popularity ~ 1/k), eps = 1, ell = 2,
and a baseline measured in the same run: the same protocol written as a per-user
Python loop, on 10^4 users. The baseline's time is scaled by 100 (it is linear in n)
and the ratio of the medians is printed at the end of the module.

Both sides are checked: every frequency estimate must lie within 6 standard
deviations of the truth, with the variance bound ell^2 pi (1 - pi) / (n (a - b)^2),
pi = a f / ell + b (1 - f / ell) (the count n1 + n2 is a sum of independent
Bernoullis with mean n pi, whose variance is at most the binomial's; every user
holds at most ell pairs, so the estimator is unbiased).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from _report import write_report

import qifldp as q

D = 100
ELL = 2
EPS = 1.0
N = 10**6
N_LOOP = 10**4
SCALE = N / N_LOOP


def _population(n: int, seed: int) -> list[dict[int, float]]:
    """n users, 1 or 2 distinct keys each (Gumbel top-2 on log 1/k), values in [-1, 1]."""
    rng = np.random.default_rng(seed)
    keys = np.empty((n, ELL), dtype=np.int64)
    weights = np.log(1.0 / np.arange(1, D + 1))
    for start in range(0, n, 10**5):  # chunks: n x d scores at once would be 800 MB
        stop = min(n, start + 10**5)
        scores = weights + rng.gumbel(size=(stop - start, D))
        keys[start:stop] = np.argpartition(-scores, ELL, axis=1)[:, :ELL] + 1
    sizes = rng.integers(1, ELL + 1, size=n)
    vals = np.clip(0.4 + 0.4 * rng.standard_normal((n, ELL)), -1, 1)
    k, v, s = keys.tolist(), vals.tolist(), sizes.tolist()
    return [dict(zip(k[i][: s[i]], v[i][: s[i]], strict=True)) for i in range(n)]


DATA = _population(N, seed=2020)
DATA_LOOP = DATA[:N_LOOP]


def _frequencies(data: list[dict[int, float]]) -> np.ndarray:
    keys = np.fromiter((k for user in data for k in user), dtype=np.int64)
    return np.bincount(keys, minlength=D + 1)[1:] / len(data)


F = _frequencies(DATA)
F_LOOP = _frequencies(DATA_LOOP)

_MEDIANS: dict[str, float] = {}
_MECHANISMS = ["ue", "grr"]


def _check(est: np.ndarray, truth: np.ndarray, P: q.PCKV, n: int) -> None:
    a, b = P.params["a"], P.params["b"]
    pi = a * truth / ELL + b * (1 - truth / ELL)
    sd = np.sqrt(ELL**2 * pi * (1 - pi) / (n * (a - b) ** 2))
    z = np.abs(est - truth) / sd
    assert z.max() < 6.0, f"estimate off by {z.max():.1f} sd"


# -- per-user loop baseline (plain Python, one user at a time) ---------------------------
def _loop_estimate(
    n1: list[int], n2: list[int], n: int, P: q.PCKV
) -> tuple[list[float], list[float]]:
    """Eqs. (7)-(8) with Algorithm 4's correction, key by key (as qifldp's estimate)."""
    a, b, p = P.params["a"], P.params["b"], P.params["p"]
    same, other = a * p - b / 2, a * (1 - p) - b / 2
    det = same * same - other * other
    freqs, means = [], []
    for k in range(1, D + 1):
        f = ELL * ((n1[k] + n2[k]) / n - b) / (a - b)
        f = min(max(f, 1 / n), 1.0)
        total = n * f / ELL
        y1, y2 = n1[k] - n * b / 2, n2[k] - n * b / 2
        c1 = min(max((same * y1 - other * y2) / det, 0.0), total)
        c2 = min(max((same * y2 - other * y1) / det, 0.0), total)
        freqs.append(f)
        means.append(min(max((c1 - c2) / total, -1.0), 1.0))
    return freqs, means


def _loop_pair(user: dict[int, float], rnd: random.Random) -> tuple[int, int]:
    """Algorithm 1: padding-and-sampling, then the value discretised to 1 / -1."""
    items = list(user.items())
    i = rnd.randrange(max(len(items), ELL))
    k, v = items[i] if i < len(items) else (D + 1 + rnd.randrange(ELL), 0.0)
    return k, (1 if rnd.random() < (1 + v) / 2 else -1)


def loop_ue(data: list[dict[int, float]], P: q.PCKV, rnd: random.Random):
    a, b, p = P.params["a"], P.params["b"], P.params["p"]
    n1, n2 = [0] * (D + ELL + 1), [0] * (D + ELL + 1)
    for user in data:
        k, v = _loop_pair(user, rnd)
        for pos in range(1, D + ELL + 1):  # Algorithm 2, position by position
            if pos == k:
                y = (v if rnd.random() < p else -v) if rnd.random() < a else 0
            else:
                u = rnd.random()
                y = 1 if u < b / 2 else (-1 if u < b else 0)
            if y == 1:
                n1[pos] += 1
            elif y == -1:
                n2[pos] += 1
    return _loop_estimate(n1, n2, len(data), P)


def loop_grr(data: list[dict[int, float]], P: q.PCKV, rnd: random.Random):
    a, p = P.params["a"], P.params["p"]
    n1, n2 = [0] * (D + ELL + 1), [0] * (D + ELL + 1)
    for user in data:
        k, v = _loop_pair(user, rnd)
        if rnd.random() < a:  # Algorithm 3: key kept, value kept w.p. p
            key, y = k, (v if rnd.random() < p else -v)
        else:  # another key, uniformly, with a uniform value
            key = rnd.randrange(1, D + ELL)
            key += key >= k
            y = 1 if rnd.random() < 0.5 else -1
        if y == 1:
            n1[key] += 1
        else:
            n2[key] += 1
    return _loop_estimate(n1, n2, len(data), P)


_LOOPS = {"ue": loop_ue, "grr": loop_grr}


def ours(P: q.PCKV, rng: np.random.Generator) -> np.ndarray:
    freqs, _ = P.estimate(P.sample(DATA, rng))
    return freqs


@pytest.fixture(scope="module", autouse=True)
def _ratio_report(request):
    yield
    lines = [
        "",
        f"bench_keyvalue: PCKV client + server, n = 10^6 users, d = {D}, ell = {ELL}, "
        f"eps = {EPS} (loop baseline: 10^4 users, time x {SCALE:g})",
    ]
    for name in _MECHANISMS:
        mine, base = f"qifldp_{name}", f"loop_{name}"
        if mine in _MEDIANS and base in _MEDIANS:
            scaled = _MEDIANS[base] * SCALE
            lines.append(
                f"  PCKV-{name.upper()}: qifldp {_MEDIANS[mine]:.3f} s, per-user loop "
                f"{scaled:.1f} s (scaled) -> {scaled / _MEDIANS[mine]:.0f}x"
            )
    write_report(request, lines)


@pytest.mark.parametrize("name", _MECHANISMS)
def test_qifldp(benchmark, name):
    benchmark.group = f"PCKV-{name.upper()}: client + server"
    P = q.PCKV(D, EPS, ell=ELL, mechanism=name)
    rng = np.random.default_rng(7)
    est = benchmark.pedantic(ours, args=(P, rng), rounds=3, iterations=1, warmup_rounds=1)
    _MEDIANS[f"qifldp_{name}"] = benchmark.stats.stats.median
    _check(est, F, P, N)


@pytest.mark.parametrize("name", _MECHANISMS)
def test_loop(benchmark, name):
    benchmark.group = f"PCKV-{name.upper()}: client + server"
    P = q.PCKV(D, EPS, ell=ELL, mechanism=name)
    rnd = random.Random(7)
    est, _ = benchmark.pedantic(_LOOPS[name], args=(DATA_LOOP, P, rnd), rounds=3, iterations=1)
    _MEDIANS[f"loop_{name}"] = benchmark.stats.stats.median
    _check(np.array(est), F_LOOP, P, N_LOOP)
