"""attribute_inference_bounds: UE attribute inference by the sufficient statistic's convolution,
against a brute-force enumeration of every report written here from the paper's description
(RS+FD, Arcolezi et al. 2021/2023: eps' = ln(d(e^eps - 1) + 1), SUE/OUE bits, UE-z fakes
the zero vector, UE-r a uniform fake value), exact for value counts, a certified interval
for generic marginals (forced at small sizes by refusing the class-lumped statistic)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp as q
import qifldp.protocols.rsfd_lattice as L
from qifldp.errors import InputTypeError, ParameterError, SizeError


def _bits(eps_amp, randomizer):
    if randomizer.startswith("sue"):
        a = math.exp(eps_amp / 2)
        return a / (a + 1), 1 / (a + 1)
    return 0.5, 1 / (math.exp(eps_amp) + 1)


def _ue(y, hot, p, qq):
    out = 1.0
    for u, b in enumerate(y):
        one = p if u == hot else qq
        out *= one if b else 1 - one
    return out


def _enumerate(ks, eps, randomizer, ms):
    """V = Σ_y max_j Pr(j, y) over every report y, ties to the smaller index."""
    d = len(ks)
    p, qq = _bits(math.log(d * math.expm1(eps) + 1), randomizer)
    honest, fake = [], []
    for k, m in zip(ks, ms, strict=True):
        ys = list(itertools.product((0, 1), repeat=k))
        honest.append([sum(m[v] * _ue(y, v, p, qq) for v in range(k)) for y in ys])
        if randomizer.endswith("-z"):
            fake.append([_ue(y, None, p, qq) for y in ys])
        else:
            fake.append([sum(_ue(y, v, p, qq) for v in range(k)) / k for y in ys])
    total = 0.0
    for idx in itertools.product(*(range(2**k) for k in ks)):
        scores = [
            honest[j][idx[j]] * math.prod(fake[i][idx[i]] for i in range(d) if i != j)
            for j in range(d)
        ]
        total += max(scores) / d
    return total


def _force_lattice(monkeypatch):
    def refuse(P, j, m):
        raise SizeError("forced")

    monkeypatch.setattr(L, "_states", refuse)


@pytest.mark.parametrize("randomizer", ["oue-z", "sue-z", "oue-r", "sue-r"])
def test_counts_are_exact_and_generic_marginals_bracketed(randomizer, monkeypatch):
    ks, eps = (4, 3), 1.5
    rng = np.random.default_rng(7)
    counts = [rng.multinomial(30, rng.dirichlet(np.ones(k))) for k in ks]
    truth = _enumerate(ks, eps, randomizer, [c / 30 for c in counts])
    ms = [rng.dirichlet(np.ones(k)) for k in ks]
    truth_ms = _enumerate(ks, eps, randomizer, ms)
    P = q.rsfd(list(ks), eps, randomizer)
    _force_lattice(monkeypatch)
    E = L.attribute_inference_bounds(P, counts=counts)
    assert E.method == "exact" and E.lower <= truth <= E.upper and E.width < 3e-12
    widths = []
    for res in (1e-2, 1e-4):
        B = L.attribute_inference_bounds(P, ms, resolution=res)
        assert B.method == "interval" and B.lower <= truth_ms <= B.upper
        widths.append(B.width)
    assert widths[-1] < 0.2 * widths[0] or widths[-1] < 1e-6


def test_without_forcing_small_sizes_are_the_lumped_exact_value():
    P = q.rsfd([4, 3], 1.0, "oue-z")
    ms = [np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.25, 0.25])]
    B = L.attribute_inference_bounds(P, ms)
    assert B.method == "exact"
    assert B.lower <= q.attribute_inference_accuracy(P, marginals=ms) <= B.upper
    assert B.lower <= _enumerate((4, 3), 1.0, "oue-z", ms) <= B.upper


def test_paper_sizes_generic_marginals():
    """k = [74, 7, 16] with Dirichlet marginals: the exact lumped route refuses (2^74 states);
    the bounds at two lattices overlap (both contain the true value) and are narrow."""
    P = q.rsfd([74, 7, 16], 3.0, "oue-z")
    rng = np.random.default_rng(0)
    ms = [rng.dirichlet(np.ones(k)) for k in (74, 7, 16)]
    with pytest.raises(SizeError, match="attribute_inference_bounds"):
        q.attribute_inference_accuracy(P, marginals=ms)
    coarse = L.attribute_inference_bounds(P, ms, resolution=1e-3)
    fine = L.attribute_inference_bounds(P, ms, resolution=1e-4)
    assert max(coarse.lower, fine.lower) <= min(coarse.upper, fine.upper)
    assert fine.width < 1e-2 and fine.width <= coarse.width


def test_bad_input():
    P = q.rsfd([3, 2], 1.0, "oue-z")
    with pytest.raises(InputTypeError, match="RS\\+FD protocol"):
        L.attribute_inference_bounds(q.grr(3, 1.0))
    with pytest.raises(InputTypeError, match="not both"):
        L.attribute_inference_bounds(
            P, [np.ones(3) / 3, np.ones(2) / 2], counts=[[1, 1, 1], [2, 1]]
        )
    with pytest.raises(ParameterError, match="resolution"):
        L.attribute_inference_bounds(P, resolution=0.5)
    with pytest.raises(ParameterError, match="same positive number"):
        L.attribute_inference_bounds(P, counts=[[1, 1, 1], [2, 2]])
    with pytest.raises(ParameterError, match="nonnegative integers"):
        L.attribute_inference_bounds(P, counts=[[1, -1, 2], [1, 1]])
    with pytest.raises(ParameterError, match="one array per attribute"):
        L.attribute_inference_bounds(P, counts=[[1, 1, 1]])
