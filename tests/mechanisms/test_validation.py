"""Parameter rules of the mechanism constructors and the size guard.

Rules (each tested below):
- k: an integer (integral floats such as 4.0 are accepted), k >= 2;
- eps: a real number, finite, >= 0;
- omega (SS): an integer, 1 <= omega <= k (omega = k is the constant channel);
- g (LH): an integer, g >= 2;
- theta (THE): a real number in the open interval (0.5, 1);
- p, q (UE): 0 <= q < p <= 1;
- size: at most MAX_ENTRIES = 10^8 matrix entries, checked before allocating.
"""

from __future__ import annotations

import math
import time

import pytest

import qifldp as q
from qifldp.channel import MAX_ENTRIES, guard_size
from qifldp.errors import InputTypeError, ParameterError, SizeError
from qifldp.mechanisms import lh_encoding, lh_perturbation
from qifldp.protocols.params import (
    check_pq,
    olh_g,
    ss_probabilities,
    the_probabilities,
)

CONSTRUCTORS_K_EPS = {
    "grr": lambda k, eps: q.grr(k, eps),
    "subset_selection": lambda k, eps: q.subset_selection(k, eps),
    "local_hashing": lambda k, eps: q.local_hashing(k, eps, 2),
    "blh": lambda k, eps: q.blh(k, eps),
    "olh": lambda k, eps: q.olh(k, eps),
    "sue": lambda k, eps: q.sue(k, eps),
    "oue": lambda k, eps: q.oue(k, eps),
    "the": lambda k, eps: q.the(k, eps, 0.75),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS_K_EPS))
@pytest.mark.parametrize(
    ("k", "error"),
    [
        (1, ParameterError),
        (0, ParameterError),
        (-3, ParameterError),
        (2.5, InputTypeError),
        ("3", InputTypeError),
        (True, InputTypeError),
        (None, InputTypeError),
    ],
)
def test_k_rule(name, k, error):
    with pytest.raises(error, match="k must"):
        CONSTRUCTORS_K_EPS[name](k, 1.0)


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS_K_EPS))
def test_k_integral_float_accepted(name):
    assert CONSTRUCTORS_K_EPS[name](3.0, 1.0).n_inputs == 3


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS_K_EPS))
@pytest.mark.parametrize(
    ("eps", "error", "pattern"),
    [
        (-0.1, ParameterError, "eps must be >= 0"),
        (math.inf, ParameterError, "eps must be finite"),
        (math.nan, ParameterError, "eps must not be NaN"),
        ("1", InputTypeError, "eps must be a real"),
        (None, InputTypeError, "eps must be a real"),
    ],
)
def test_eps_rule(name, eps, error, pattern):
    with pytest.raises(error, match=pattern):
        CONSTRUCTORS_K_EPS[name](3, eps)


@pytest.mark.parametrize("builder", [q.sue_bit, q.oue_bit, lambda e: q.the_bit(e, 0.7)])
def test_bit_channels_eps_rule(builder):
    with pytest.raises(ParameterError, match="eps"):
        builder(-1.0)
    with pytest.raises(ParameterError, match="eps"):
        builder(math.inf)


@pytest.mark.parametrize(
    ("omega", "error", "pattern"),
    [
        (0, ParameterError, "omega must be >= 1"),
        (6, ParameterError, "omega must be <= 5"),
        (1.5, InputTypeError, "omega must be an integer"),
        ("2", InputTypeError, "omega"),
    ],
)
def test_omega_rule(omega, error, pattern):
    with pytest.raises(error, match=pattern):
        q.subset_selection(5, 1.0, omega)


def test_omega_bounds_accepted():
    assert q.subset_selection(5, 1.0, 1).n_outputs == 5
    assert q.subset_selection(5, 1.0, 5).n_outputs == 1
    with pytest.raises(ParameterError, match="omega"):
        ss_probabilities(5, 1.0, 6)


@pytest.mark.parametrize(
    ("g", "error"), [(1, ParameterError), (0, ParameterError), (2.5, InputTypeError)]
)
def test_g_rule(g, error):
    with pytest.raises(error, match="g must"):
        q.local_hashing(3, 1.0, g)
    with pytest.raises(error, match="g must"):
        lh_encoding(3, g)


@pytest.mark.parametrize("theta", [0.5, 1.0, 0.2, 1.5, -0.7])
def test_theta_rule(theta):
    with pytest.raises(ParameterError, match=r"theta must lie in the open interval \(0.5, 1"):
        q.the(3, 1.0, theta)
    with pytest.raises(ParameterError, match="theta"):
        q.the_bit(1.0, theta)
    with pytest.raises(ParameterError, match="theta"):
        the_probabilities(1.0, theta)


def test_theta_type():
    with pytest.raises(InputTypeError, match="theta"):
        q.the(3, 1.0, "0.7")


@pytest.mark.parametrize(
    ("p", "qq", "pattern"),
    [
        (0.5, 0.5, "0 <= q < p <= 1"),
        (0.3, 0.6, "0 <= q < p <= 1"),
        (1.2, 0.1, r"p must lie in \[0, 1\]"),
        (0.5, -0.1, r"q must lie in \[0, 1\]"),
    ],
)
def test_pq_rule(p, qq, pattern):
    with pytest.raises(ParameterError, match=pattern):
        q.unary_encoding(3, p, qq)
    with pytest.raises(ParameterError, match=pattern):
        check_pq(p, qq)


def test_pq_extremes_accepted():
    # p = 1, q = 0 is the identity on one-hot vectors (allowed: 0 <= q < p <= 1).
    C = q.unary_encoding(3, 1.0, 0.0)
    assert q.bayes_capacity(C) == pytest.approx(3.0)


def test_olh_g_rule():
    with pytest.raises(ParameterError, match="eps must be <="):
        olh_g(1e5)
    assert len(str(olh_g(800.0))) == 348  # e^800 has 348 decimal digits


# -- size guard ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "symmetric", "formula"),
    [
        (lambda: q.grr(10_001, 1.0), "qifldp.symmetric.grr", "qifldp.formulas.bayes_capacity_grr"),
        (
            lambda: q.subset_selection(40, 1.0, 20),
            "qifldp.symmetric.subset_selection",
            "qifldp.formulas.bayes_capacity_ss",
        ),
        (
            lambda: q.local_hashing(25, 1.0, 2),
            "qifldp.symmetric.local_hashing",
            "qifldp.formulas.bayes_capacity_lh",
        ),
        (
            lambda: q.blh(30, 1.0),
            "qifldp.symmetric.local_hashing",
            "qifldp.formulas.bayes_capacity_lh",
        ),
        (
            lambda: q.olh(5, 8.0),
            "qifldp.symmetric.local_hashing",
            "qifldp.formulas.bayes_capacity_lh",
        ),
        (lambda: q.olh(5, 800.0), "qifldp.symmetric.olh", "qifldp.formulas.bayes_capacity_olh"),
        (
            lambda: q.unary_encoding(23, 0.5, 0.2),
            "qifldp.symmetric.unary_encoding",
            "qifldp.formulas.bayes_capacity_ue",
        ),
        (lambda: q.sue(23, 1.0), "qifldp.symmetric.sue", "qifldp.formulas.bayes_capacity_sue"),
        (lambda: q.oue(23, 1.0), "qifldp.symmetric.oue", "qifldp.formulas.bayes_capacity_oue"),
        (lambda: q.the(23, 1.0, 0.7), "qifldp.symmetric.the", "qifldp.formulas.bayes_capacity_the"),
        (
            lambda: lh_encoding(25, 2),
            "qifldp.symmetric.local_hashing",
            "qifldp.formulas.bayes_capacity_lh",
        ),
    ],
)
def test_size_guard_points_to_alternatives(build, symmetric, formula):
    with pytest.raises(SizeError) as info:
        build()
    msg = str(info.value)
    assert symmetric in msg and formula in msg
    assert "entries" in msg and str(MAX_ENTRIES) in msg
    assert isinstance(info.value, ValueError)


def test_size_guard_exact_count_in_message():
    # oue(23): 23 x 2^23 = 192937984 entries (computed by hand).
    with pytest.raises(SizeError, match=r"23 x 8388608 = 192937984 entries"):
        q.oue(23, 1.0)


@pytest.mark.parametrize(
    "build",
    [
        lambda: q.oue(10**6, 1.0),
        lambda: q.subset_selection(10**6, 1.0),  # default omega = 268941
        lambda: q.local_hashing(10**5, 1.0, 3),
        lambda: q.olh(10**6, 50.5),
        lambda: q.grr(10**9, 1.0),
    ],
)
def test_size_guard_is_immediate_for_huge_channels(build):
    # No allocation and no big-integer work: the refusal comes from log10 estimates.
    start = time.perf_counter()
    with pytest.raises(SizeError, match="MAX_ENTRIES"):
        build()
    assert time.perf_counter() - start < 1.0  # generous: the check is O(1)


def test_size_limit_boundary():
    # k 2^k <= 10^8 up to k = 22 (22 * 2^22 = 92274688), refused from k = 23.
    guard_size("oue(22, 1)", 22, 22 * math.log10(2), lambda: 2**22, "x")
    with pytest.raises(SizeError):
        guard_size("oue(23, 1)", 23, 23 * math.log10(2), lambda: 2**23, "x")
    # lh_perturbation is dense (g^(k+1))^2: refused already for 2^15 outputs.
    with pytest.raises(SizeError, match="lh_perturbation"):
        lh_perturbation(14, 1.0, 2)
