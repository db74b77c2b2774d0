"""Symmetric constructors: expansion equals the explicit constructors, parameters, validation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import qifldp.mechanisms as mech
import qifldp.symmetric as sym
from qifldp.errors import ChannelError, InputTypeError, ParameterError, SizeError
from qifldp.protocols import params

from ._helpers import PROTOCOLS

EPS = [0.0, 0.3, 1.0, 2.5, 8.0, 30.0]


@pytest.mark.parametrize(("make_sym", "make_num", "extra"), PROTOCOLS)
@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_expand_equals_explicit_constructor(make_sym, make_num, extra, k) -> None:
    # provenance: the explicit constructors of qifldp.mechanisms (GRR, SS directly; LH as the
    # cascade E.G; UE/THE through one_hot), compared entrywise with the same labels
    eps_list = EPS if make_sym not in (sym.olh, sym.blh) else [0.0, 0.5, 1.2]
    if k == 5 and make_sym in (sym.olh, sym.blh):
        eps_list = [0.7]
    for eps in eps_list:
        S = make_sym(k, eps, **extra)
        C = make_num(k, eps, **extra)
        E = S.expand()
        assert E.inputs == C.inputs and E.outputs == C.outputs
        assert np.max(np.abs(E.matrix - C.matrix)) <= 1e-14


def test_local_hashing_and_unary_encoding_general_parameters() -> None:
    # provenance: explicit constructors, including degenerate bits (q = 0, p = 1)
    for k, eps, g in [(2, 0.4, 4), (3, 1.0, 3), (4, 2.0, 3)]:
        E = sym.local_hashing(k, eps, g).expand()
        C = mech.local_hashing(k, eps, g)
        assert E.outputs == C.outputs
        assert np.max(np.abs(E.matrix - C.matrix)) <= 1e-14
    for k, p, q in [(3, 0.8, 0.1), (4, 0.9, 0.0), (4, 1.0, 0.3), (5, 0.5, 0.49)]:
        E = sym.unary_encoding(k, p, q).expand()
        C = mech.unary_encoding(k, p, q)
        assert E.outputs == C.outputs
        assert np.max(np.abs(E.matrix - C.matrix)) <= 1e-14


def test_lh_lumping_multiplicity_by_enumeration() -> None:
    # provenance: enumeration of all (h, z): exactly g (g-1)^(k-s) pairs have h^-1(z) = S
    k, g = 4, 3
    counts: dict[frozenset, int] = {}
    for h in itertools.product(range(g), repeat=k):
        for z in range(g):
            S = frozenset(x for x in range(k) if h[x] == z)
            counts[S] = counts.get(S, 0) + 1
    assert len(counts) == 2**k
    for S, c in counts.items():
        assert c == g * (g - 1) ** (k - len(S))


def test_lumped_expansion_is_the_reduced_channel() -> None:
    # provenance: Channel.reduced() of the explicit channel merges the proportional columns;
    # the lumped subset channel must have the same columns (as a set)
    for S in [sym.local_hashing(3, 1.0, 3), sym.blh(4, 0.5), sym.oue(4, 1.0), sym.grr(4, 2.0)]:
        R1 = S.expand().reduced().matrix
        R2 = S.expand(lumped=True).reduced().matrix
        assert R1.shape == R2.shape
        c1 = R1[:, np.lexsort(np.round(R1, 12))]
        c2 = R2[:, np.lexsort(np.round(R2, 12))]
        assert np.max(np.abs(c1 - c2)) <= 1e-13


def test_entries_are_kept_read_only_and_equal_the_expanded_entries() -> None:
    # provenance: the explicit lumped expansion (one column per subset S): C[x, S] is a_s
    # for x in S and b_s otherwise; the channel keeps each array once, read-only
    S = sym.oue(4, 1.0)
    M = S.expand(lumped=True)
    for i, s in enumerate(S.sizes.tolist()):
        col = M.outputs.index(tuple(range(s)))  # the subset {0..s-1}
        if s > 0:
            assert math.isclose(math.exp(S.log_a[i]), M.matrix[0, col], rel_tol=1e-12)
        if s < 4:
            assert math.isclose(math.exp(S.log_b[i]), M.matrix[3, col], rel_tol=1e-12)
    assert S.log_a is S.log_a and S.log_b is S.log_b
    for arr in (S.log_a, S.log_b):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 0.0


@pytest.mark.parametrize("eps", [0.0, 0.01, 1.0, 7.0, 50.0, 700.0])
def test_log_parameters_match_params(eps: float) -> None:
    # provenance: qifldp.protocols.params (the linear-space definitions beside the log-space ones)
    for k in [2, 7, 10**6]:
        p, q = params.grr_probabilities(k, eps)
        a, b = params.log_grr(k, eps)
        assert math.exp(a) == pytest.approx(p, rel=1e-15)
        assert math.exp(b) == pytest.approx((k - 1) * q, rel=1e-14)
        omega = params.ss_default_omega(k, eps)
        p, _ = params.ss_probabilities(k, eps, omega)
        a, b = params.log_ss(k, eps, omega)
        assert math.exp(a) == pytest.approx(p, rel=1e-14)
        assert math.exp(a) + math.exp(b) == pytest.approx(1.0, abs=1e-15)
    p, q = params.sue_probabilities(eps)
    assert np.exp(params.log_sue(eps)) == pytest.approx([p, q, q, p], rel=1e-15)
    p, q = params.oue_probabilities(eps)
    assert np.exp(params.log_oue(eps)) == pytest.approx([p, 1 - p, q, 1 - q], rel=1e-15)
    if eps <= 50:
        p, q = params.the_probabilities(eps, 0.7)
        bit = params.the_bit_matrix(eps, 0.7)  # small entries computed directly
        assert np.exp(params.log_the(eps, 0.7)) == pytest.approx(
            [p, bit[1, 0], q, bit[0, 0]], rel=1e-14
        )


def test_defaults_follow_the_numeric_constructors() -> None:
    # provenance: qifldp.mechanisms (default omega, OLH's g), incl. half-to-even rounding
    for k, eps in [(5, 0.0), (10, 1.0), (10, 800.0), (10**6, 2.0)]:
        assert int(sym.subset_selection(k, eps).sizes[0]) == params.ss_default_omega(k, eps)
    for eps in [0.0, 1.0, 3.0]:
        assert sym.olh(5, eps).name.endswith(f"g={params.olh_g(eps)})")


def test_class_masses_sum_to_one_at_large_k() -> None:
    # provenance: every row of a channel sums to 1
    for S in [sym.oue(10**6, 1.0), sym.the(10**5, 30.0, 0.9), sym.olh(10**5, 4.0)]:
        Pi, Po = S.class_masses()
        assert math.fsum(np.r_[Pi, Po]) == pytest.approx(1.0, abs=1e-13)
    assert sym.oue(10**6, 1.0).sizes.size == 10**6 + 1


def test_large_eps_stays_finite_in_log_space() -> None:
    # q = e^-800 / ... underflows in linear space but not in log space
    C = sym.grr(5, 800.0)
    assert C.log_ratio.tolist() == [800.0]
    assert np.all(np.isfinite(C.log_out))
    T = sym.the(10, 2000.0, 0.6)
    assert np.isfinite(T.log_in[1]) and np.isfinite(T.log_out[2])


BAD_ARGS = [
    ("grr", (1, 1.0)),
    ("grr", (2.5, 1.0)),
    ("grr", (3, -1.0)),
    ("grr", (3, math.nan)),
    ("grr", (3, math.inf)),
    ("grr", (3, "1")),
    ("subset_selection", (4, 1.0, 0)),
    ("subset_selection", (4, 1.0, 5)),
    ("local_hashing", (3, 1.0, 1)),
    ("the", (3, 1.0, 0.5)),
    ("the", (3, 1.0, 1.0)),
    ("unary_encoding", (3, 0.2, 0.4)),
    ("unary_encoding", (3, 1.1, 0.4)),
    ("sue", (True, 1.0)),
]


@pytest.mark.parametrize(("name", "args"), BAD_ARGS)
def test_bad_arguments_raise_like_the_numeric_constructors(name, args) -> None:
    # provenance: the numeric constructor's exception class for the same arguments
    with pytest.raises((ValueError, TypeError)) as num:
        getattr(mech, name)(*args)
    with pytest.raises(type(num.value)):
        getattr(sym, name)(*args)


def test_no_size_limit_but_expand_is_guarded() -> None:
    C = sym.sue(10**5, 1.0)
    with pytest.raises(SizeError, match="symmetric"):
        C.expand()
    with pytest.raises(SizeError):
        sym.local_hashing(30, 1.0, 3).expand()


def test_generic_subset_channel_constructor() -> None:
    # a hand-made subset channel: outputs of sizes 1 and 2 on k = 3, masses summing to 1
    C = sym.SymmetricChannel(3, [1, 2], np.log([0.3, 0.4]), np.log([0.2, 0.1]))
    M = C.expand().matrix
    # a_1 = 0.3 / C(2, 0), b_1 = 0.2 / C(2, 1); a_2 = 0.4 / C(2, 1), b_2 = 0.1 / C(2, 2)
    assert M[0].tolist() == pytest.approx([0.3, 0.1, 0.1, 0.2, 0.2, 0.1])
    assert C.expand().outputs == ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2))
    assert C.log_ratio == pytest.approx([math.log(0.3 / 0.1), math.log(0.2 / 0.1)])


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((1, [1], [0.0], [-np.inf]), ParameterError),
        ((3, [2, 1], [0.0, 0.0], [0.0, 0.0]), ChannelError),
        ((3, [1, 4], [0.0, 0.0], [0.0, 0.0]), ChannelError),
        ((3, [], [], []), ChannelError),
        ((3, [0], [0.0], [0.0]), ChannelError),  # an input "in" the empty set
        ((3, [3], [0.0], [0.0]), ChannelError),  # an input outside the full set
        ((3, [1], [np.log(0.5)], [np.log(0.6)]), ChannelError),  # sums to 1.1
        ((3, [1], [np.nan], [0.0]), ChannelError),
        ((3, [1], [0.0, 0.0], [0.0]), ChannelError),
        ((3, ["a"], [0.0], [0.0]), InputTypeError),
        ((3, [1], ["x"], [0.0]), InputTypeError),
    ],
)
def test_generic_constructor_validation(args, error) -> None:
    with pytest.raises(error):
        sym.SymmetricChannel(*args)


def test_equality_and_repr() -> None:
    assert sym.oue(5, 1.0) == sym.oue(5, 1.0)
    assert sym.oue(5, 1.0) != sym.oue(5, 1.1)
    assert hash(sym.grr(4, 1.0)) == hash(sym.grr(4, 1.0))
    assert "oue(k=5, eps=1)" in repr(sym.oue(5, 1.0))
