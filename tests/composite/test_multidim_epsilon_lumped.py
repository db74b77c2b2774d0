"""The lumped LDP epsilons of RS+FD / RS+RFD, SPL and SMP against the explicit channels.

Expected values: :func:`qifldp.protocols.splsmp.multidim_epsilon` of the enumerated
channel (ln of the largest column ratio over all pairs of tuples, and over pairs at
Hamming distance 1), for every randomizer, uniform and random priors (a prior with a
zero included), at small ks; the lumped route must agree to rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError
from qifldp.protocols.rsfd import rsfd_epsilon
from qifldp.protocols.splsmp import multidim_epsilon

KS = [(2, 2), (3, 3), (2, 3), (3, 2, 2), (4, 2)]
EPSS = [0.3, 1.0, 2.5]
RANDOMIZERS = ["grr", "sue-z", "oue-z", "sue-r", "oue-r"]


def _cases(ks, eps, randomizer, rng):
    yield q.rsfd(ks, eps, randomizer)
    if randomizer in ("grr", "sue-r", "oue-r"):
        yield q.rsrfd(ks, eps, [rng.dirichlet(np.ones(k)) for k in ks], randomizer)
    if randomizer == "grr":  # a fake value that is never drawn
        yield q.rsrfd(ks, eps, [np.r_[0.0, rng.dirichlet(np.ones(k - 1))] for k in ks], "grr")


@pytest.mark.parametrize("ks", KS, ids=str)
@pytest.mark.parametrize("randomizer", RANDOMIZERS)
def test_rsfd_lumped_epsilon_equals_the_explicit_channel(ks, randomizer):
    rng = np.random.default_rng(len(ks) * 10 + sum(ks))
    for eps in EPSS:
        for P in _cases(ks, eps, randomizer, rng):
            explicit = multidim_epsilon(P.channel())
            lumped = P.ldp_epsilon()
            assert lumped.tuples == pytest.approx(explicit.tuples, rel=1e-12, abs=1e-12)
            assert lumped.one_attribute == pytest.approx(
                explicit.one_attribute, rel=1e-12, abs=1e-12
            )


@pytest.mark.parametrize("ks", [(2, 3), (3, 2, 2), (4, 3)], ids=str)
@pytest.mark.parametrize("oracle", ["grr", "ss", "olh", "sue", "oue"])
@pytest.mark.parametrize("make", [q.spl_protocol, q.smp_protocol], ids=["spl", "smp"])
def test_spl_smp_lumped_epsilon_equals_the_explicit_channel(ks, oracle, make):
    P = make(ks, 1.3, oracle)
    explicit = multidim_epsilon(P.channel())
    lumped = P.ldp_epsilon()
    assert lumped.tuples == pytest.approx(explicit.tuples, rel=1e-12)
    assert lumped.one_attribute == pytest.approx(explicit.one_attribute, rel=1e-12)


def test_paper_sizes_answer_without_the_channel():
    # ks = (74, 7, 16): the explicit channels have 8,288 x 8,288 (GRR) or 8,288 x 2^97
    # (UE) entries; RS+FD[UE-z] over one attribute is exactly eps (the ratio is at most
    # (d - 1 + e^eps') / d = e^eps), over tuples eps' = ln(d (e^eps - 1) + 1)
    ks, eps = (74, 7, 16), 1.0
    amplified = math.log(3 * (math.e - 1) + 1)
    for randomizer in ("sue-z", "oue-z"):
        e = q.rsfd(ks, eps, randomizer).ldp_epsilon()
        assert e.one_attribute == pytest.approx(eps, rel=1e-12)
        assert e.tuples == pytest.approx(amplified, rel=1e-12)
    # GRR: over tuples ln((p1/k1 + ...)/(q1/k1 + ...)) at the extreme reports, here the
    # ratio sum_j p_j / sum_j q_j with uniform fakes (each F_j = 1 / k_j scales alike)
    e = q.rsfd(ks, eps, "grr").ldp_epsilon()
    p = [math.exp(amplified) / (math.exp(amplified) + k - 1) for k in ks]
    qq = [1 / (math.exp(amplified) + k - 1) for k in ks]
    num = sum(pj * k for pj, k in zip(p, ks, strict=True))
    den = sum(qj * k for qj, k in zip(qq, ks, strict=True))
    expected = math.log(num / den)
    assert e.tuples == pytest.approx(expected, rel=1e-12)
    e = q.spl_protocol(ks, 3.0, "olh").ldp_epsilon()
    assert e.tuples == pytest.approx(3.0, rel=1e-12) and e.one_attribute == pytest.approx(1.0)


def test_rsfd_epsilon_refuses_other_objects():
    with pytest.raises(InputTypeError, match="P must be an RS\\+FD protocol"):
        rsfd_epsilon(q.spl_protocol((2, 2), 1.0))
