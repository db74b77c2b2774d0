"""Randomise and estimate n = 10^6 users at k = 100, per protocol, against a per-user loop.

Run: ``python -m pytest benchmarks/bench_simulation.py`` (pytest-benchmark). Each
group times qifldp's vectorised sampler + unbiased estimator on 10^6 users
(Zipf(1.1) values over k = 100, eps = 1) and a baseline measured in the same
run: the same protocol written as per-user Python loops (the way the popular
LDP libraries run), on 10^4 users. The baseline's time is scaled by 100 (it is
linear in n) and the ratio of the medians is printed at the end of the module.

Both sides are checked: every estimate must lie within 6 standard deviations
(the protocol's variance formula) of the true frequencies.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from _report import write_report

from qifldp.protocols.params import (
    grr_probabilities as grr_pq,
    olh_g,
    oue_probabilities as oue_pq,
    ss_default_omega as default_omega,
    the_probabilities as the_pq,
)
from qifldp.simulation import (
    estimate_grr,
    estimate_lh,
    estimate_oue,
    estimate_ss,
    estimate_the,
    sample_grr,
    sample_olh,
    sample_oue,
    sample_ss,
    sample_the,
    ss_pq_star,
    variance_grr,
    variance_lh,
    variance_oue,
    variance_ss,
    variance_the,
    zipf_data,
)

K = 100
EPS = 1.0
THETA = 0.7
N = 10**6
N_LOOP = 10**4
SCALE = N / N_LOOP
PRIME = (1 << 31) - 1
XS = zipf_data(N, K, 1.1, rng=2024)
XS_LOOP = XS[:N_LOOP].tolist()
F = np.bincount(XS, minlength=K) / N
F_LOOP = np.bincount(XS[:N_LOOP], minlength=K) / N_LOOP
OMEGA = default_omega(K, EPS)
G = olh_g(EPS)

_MEDIANS: dict[str, float] = {}
_PROTOCOLS = ["grr", "olh", "oue", "ss", "the"]


def _check(est: np.ndarray, truth: np.ndarray, var: np.ndarray) -> None:
    z = np.abs(est - truth) / np.sqrt(var)
    assert z.max() < 6.0, f"estimate off by {z.max():.1f} sd"


# -- per-user loop baselines (plain Python, one user at a time) -------------------------
def loop_grr(xs: list[int], rnd: random.Random) -> list[float]:
    p, q = grr_pq(K, EPS)
    counts = [0] * K
    for x in xs:
        if rnd.random() < p:
            y = x
        else:
            y = rnd.randrange(K - 1)
            y += y >= x
        counts[y] += 1
    n = len(xs)
    return [(c / n - q) / (p - q) for c in counts]


def loop_olh(xs: list[int], rnd: random.Random) -> list[float]:
    p, _ = grr_pq(G, EPS)
    reports = []
    for x in xs:
        a, b = rnd.randrange(1, PRIME), rnd.randrange(PRIME)
        h = ((a * x + b) % PRIME) % G
        if rnd.random() < p:
            y = h
        else:
            y = rnd.randrange(G - 1)
            y += y >= h
        reports.append((a, b, y))
    counts = [0] * K
    for a, b, y in reports:  # the server hashes every value for every user
        for v in range(K):
            if ((a * v + b) % PRIME) % G == y:
                counts[v] += 1
    n = len(xs)
    return [(c / n - 1 / G) / (p - 1 / G) for c in counts]


def loop_oue(xs: list[int], rnd: random.Random) -> list[float]:
    p, q = oue_pq(EPS)
    counts = [0] * K
    for x in xs:
        for i in range(K):
            if rnd.random() < (p if i == x else q):
                counts[i] += 1
    n = len(xs)
    return [(c / n - q) / (p - q) for c in counts]


def loop_ss(xs: list[int], rnd: random.Random) -> list[float]:
    ps, qs = ss_pq_star(K, EPS, OMEGA)
    counts = [0] * K
    for x in xs:
        others = [v for v in range(K) if v != x]
        if rnd.random() < ps:
            subset = [x, *rnd.sample(others, OMEGA - 1)]
        else:
            subset = rnd.sample(others, OMEGA)
        for v in subset:
            counts[v] += 1
    n = len(xs)
    return [(c / n - qs) / (ps - qs) for c in counts]


def loop_the(xs: list[int], rnd: random.Random) -> list[float]:
    p, q = the_pq(EPS, THETA)
    b = 2.0 / EPS
    counts = [0] * K
    for x in xs:
        for i in range(K):
            u = rnd.random() - 0.5  # Laplace(0, b) by inverting its CDF
            noise = -b * math.copysign(1.0, u) * math.log(1.0 - 2.0 * abs(u))
            if (1.0 if i == x else 0.0) + noise > THETA:
                counts[i] += 1
    n = len(xs)
    return [(c / n - q) / (p - q) for c in counts]


# -- qifldp: vectorised sampler + estimator --------------------------------------------
def ours_grr(rng: np.random.Generator) -> np.ndarray:
    return estimate_grr(sample_grr(XS, K, EPS, rng), K, EPS)


def ours_olh(rng: np.random.Generator) -> np.ndarray:
    return estimate_lh(sample_olh(XS, K, EPS, rng), EPS)


def ours_oue(rng: np.random.Generator) -> np.ndarray:
    return estimate_oue(sample_oue(XS, K, EPS, rng), EPS)


def ours_ss(rng: np.random.Generator) -> np.ndarray:
    return estimate_ss(sample_ss(XS, K, EPS, OMEGA, rng), K, EPS, OMEGA)


def ours_the(rng: np.random.Generator) -> np.ndarray:
    return estimate_the(sample_the(XS, K, EPS, THETA, rng), EPS, THETA)


_OURS = {"grr": ours_grr, "olh": ours_olh, "oue": ours_oue, "ss": ours_ss, "the": ours_the}
_LOOPS = {"grr": loop_grr, "olh": loop_olh, "oue": loop_oue, "ss": loop_ss, "the": loop_the}
_VARIANCE = {
    "grr": lambda n, f: variance_grr(K, EPS, n, f),
    "olh": lambda n, f: variance_lh(EPS, G, n, f, prime=PRIME),
    "oue": lambda n, f: variance_oue(EPS, n, f),
    "ss": lambda n, f: variance_ss(K, EPS, n, f, omega=OMEGA),
    "the": lambda n, f: variance_the(EPS, THETA, n, f),
}


@pytest.fixture(scope="module", autouse=True)
def _ratio_report(request):
    yield
    lines = [
        "",
        f"bench_simulation: randomise + estimate n = 10^6 users, k = {K}, eps = {EPS} "
        f"(loop baseline: 10^4 users, time x {SCALE:g})",
    ]
    for name in _PROTOCOLS:
        ours, base = f"qifldp_{name}", f"loop_{name}"
        if ours in _MEDIANS and base in _MEDIANS:
            scaled = _MEDIANS[base] * SCALE
            lines.append(
                f"  {name}: qifldp {_MEDIANS[ours]:.3f} s, per-user loop {scaled:.1f} s "
                f"(scaled) -> {scaled / _MEDIANS[ours]:.0f}x"
            )
    write_report(request, lines)


@pytest.mark.parametrize("name", _PROTOCOLS)
def test_qifldp(benchmark, name):
    benchmark.group = f"{name}: randomise + estimate"
    rng = np.random.default_rng(7)
    est = benchmark.pedantic(_OURS[name], args=(rng,), rounds=3, iterations=1, warmup_rounds=1)
    _MEDIANS[f"qifldp_{name}"] = benchmark.stats.stats.median
    _check(est, F, _VARIANCE[name](N, F))


@pytest.mark.parametrize("name", _PROTOCOLS)
def test_loop(benchmark, name):
    benchmark.group = f"{name}: randomise + estimate"
    rnd = random.Random(7)
    est = benchmark.pedantic(_LOOPS[name], args=(XS_LOOP, rnd), rounds=3, iterations=1)
    _MEDIANS[f"loop_{name}"] = benchmark.stats.stats.median
    _check(np.array(est), F_LOOP, _VARIANCE[name](N_LOOP, F_LOOP))
