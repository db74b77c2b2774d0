"""The catalogue of protocols: every entry builds through ``q.protocol`` with its
documented example, its channel equals the existing constructor's, spellings and
aliases resolve, and a bad name is refused with the valid names."""

from __future__ import annotations

import pickle
import typing

import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, UnsupportedKindError
from qifldp.protocols import CATALOGUE, ProtocolName
from qifldp.protocols.catalogue import ALIASES, REQUIRED, lookup, normalize_name
from tests.protocols._enumeration import (
    enumerate_cms,
    enumerate_dbitflip,
    enumerate_hcms,
    enumerate_he,
    enumerate_he_multi,
    enumerate_hr,
    enumerate_hr_block,
    enumerate_memoized,
    enumerate_rappor,
    enumerate_she,
)

COMPOSITES = ("pckv", "privkvm", "rr", "rr3", "bipartite_rr3", "spl", "smp", "rsfd", "rsrfd")

#: The oracles added to the catalogue later, with no constructor before it.
LATER = tuple(
    "l_grr l_sue l_oue l_osue l_soue adp hr rappor dbitflip he cms hcms hr_block he_multi "
    "she".split()
)


def _existing(name, P):
    """The channel of the constructor that existed before the catalogue."""
    ex = dict(CATALOGUE[name].example)
    if name in q.protocols.PROTOCOL_NAMES:
        flat = {"ss": "subset_selection", "lh": "local_hashing", "ue": "unary_encoding"}
        return getattr(q, flat.get(name, name))(**ex)
    if name == "pckv":
        return q.pckv_ue(ex["d"], P.eps1, P.eps2, 1)
    if name == "privkvm":
        return q.PrivKVM(**ex).channel()
    if name in ("rr", "rr3"):
        return q.Channel(np.array(ex["P"]))
    if name == "bipartite_rr3":
        return q.BipartiteRR3(**ex).channel()
    if name in ("spl", "smp"):
        return getattr(q, name)(ex["ks"], ex["eps"])
    if name == "rsfd":
        return q.rsfd_grr(ex["ks"], ex["eps"])
    if name == "dbitflip":
        return q.Channel(enumerate_dbitflip(ex["k"], ex["eps"], ex["k"], ex["d"])[1])
    if name == "rappor":
        return q.Channel(enumerate_rappor(P))
    if name == "hr":
        return q.Channel(enumerate_hr(ex["k"], ex["eps"]))
    if name == "he":
        return q.Channel(enumerate_he(ex["k"], ex["eps"]))
    if name == "hr_block":  # k = 5, e^2 < 2k: B = 4 blocks
        return q.Channel(enumerate_hr_block(ex["k"], ex["eps"], 4))
    if name == "he_multi":
        return q.Channel(enumerate_he_multi(ex["k"], ex["eps"], ex["t"]))
    if name in ("cms", "hcms"):
        return q.Channel((enumerate_cms if name == "cms" else enumerate_hcms)(P))
    if name == "she":  # binned at the default cuts 0, 1/4, ..., 1
        return q.Channel(enumerate_she(ex["k"], ex["eps"], np.linspace(0, 1, 5)))
    if name == "adp":
        return q.grr(ex["k"], ex["eps"])  # k = 3 <= 3 e + 2
    if name in LATER:
        return q.Channel(enumerate_memoized(P, 1)[1])
    return q.rsrfd(ex["ks"], ex["eps"], ex["priors"]).channel()


def test_every_protocol_is_in_the_catalogue():
    assert set(q.protocols.PROTOCOL_NAMES) | set(COMPOSITES) | set(LATER) == set(CATALOGUE)
    assert typing.get_args(ProtocolName) == tuple(CATALOGUE)
    assert tuple(CATALOGUE)[:9] == q.protocols.PROTOCOL_NAMES
    assert q.protocols.CATALOGUE is CATALOGUE


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_entry_builds_and_its_channel_matches_the_constructor(name):
    entry = CATALOGUE[name]
    P = q.protocol(name, **entry.example)
    assert isinstance(P, entry.family)
    assert P == entry.build(**entry.example)
    assert pickle.loads(pickle.dumps(P)) == P
    C, E = P.channel(), _existing(name, P)
    assert C.shape == E.shape
    np.testing.assert_allclose(C.matrix, E.matrix, atol=1e-12)


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_schema_is_complete(name):
    entry = CATALOGUE[name]
    assert entry.name == normalize_name(entry.name)
    assert entry.reference and entry.summary
    assert set(entry.required) <= set(entry.example)
    assert set(entry.example) <= set(entry.names)
    for p in entry.parameters:
        assert p.rule, (name, p.name)
        assert p.kind in ("int", "real", "choice", "ints", "names", "matrix", "distributions")
        if p.kind == "choice":
            assert p.default is REQUIRED or p.default in p.choices
    # the example round-trips through text, as a command-line spec writes it
    texts = {k: entry.parameter(k).format(v) for k, v in entry.example.items()}
    assert q.protocol(name, **entry.parse(texts)) == q.protocol(name, **entry.example)
    assert entry.spec(**entry.example).startswith(f"{name}:")


def test_positional_arguments_follow_the_schema():
    assert q.protocol("grr", 3, 1.0) == q.GRR(3, 1.0)
    assert q.protocol("lh", 3, 1.0, 2) == q.protocol("lh", 3, 1.0, g=2)
    assert q.protocol("pckv", 3, 1.0, 2) == q.PCKV(3, 1.0, ell=2)
    assert q.protocol("spl", [2, 3], 1.0, "oue") == q.spl_protocol([2, 3], 1.0, "oue")
    assert q.protocol("rsrfd", [2, 2], 1.0, [[0.8, 0.2], [0.5, 0.5]]) == q.rsrfd(
        [2, 2], 1.0, [[0.8, 0.2], [0.5, 0.5]]
    )
    with pytest.raises(InputTypeError, match="at most 3 positional"):
        q.protocol("privkvm", 3, 1.0, 1, 2)
    with pytest.raises(InputTypeError, match="both by position and by name"):
        q.protocol("pckv", 3, 1.0, d=3)


def test_names_are_case_insensitive_and_dashes_alike():
    assert q.protocol("GRR", 3, 1.0) == q.protocol("grr", 3, 1.0)
    assert q.protocol("PCKV", 3, 1.0) == q.PCKV(3, 1.0)
    assert q.protocol("Bipartite-RR3", 2, eps=1.0) == q.protocol("bipartite_rr3", 2, eps=1.0)
    assert q.protocol("PrivKVM", 2, 1.0) == q.PrivKVM(2, 1.0)
    for entry in CATALOGUE.values():
        for spelling in (entry.name, *entry.aliases):
            assert lookup(spelling.upper())[0] is entry
            assert lookup(spelling.replace("_", "-"))[0] is entry


def test_aliases_fix_their_parameters():
    assert q.protocol("pckv-grr", 3, 1.0) == q.PCKV(3, 1.0, mechanism="grr")
    assert q.protocol("PCKV_UE", 3, 1.0) == q.PCKV(3, 1.0)
    assert q.protocol("rsfd-oue-z", [2, 3], 1.0) == q.rsfd([2, 3], 1.0, "oue-z")
    assert q.protocol("subset_selection", 4, 1.0) == q.protocol("ss", 4, 1.0)
    assert q.protocol("local-hashing", 3, 1.0, g=2) == q.protocol("lh", 3, 1.0, g=2)
    assert q.protocol("pckv-grr", 3, 1.0, mechanism="GRR").mechanism == "grr"
    with pytest.raises(InputTypeError, match="fixes mechanism"):
        q.protocol("pckv-grr", 3, 1.0, mechanism="ue")
    assert len(ALIASES) == sum(1 + len(e.aliases) for e in CATALOGUE.values())


def test_choices_are_case_insensitive():
    assert q.PCKV(3, 1.0, mechanism="GRR") == q.PCKV(3, 1.0, mechanism="grr")
    assert q.rsfd([2, 3], 1.0, "SUE_R") == q.rsfd([2, 3], 1.0, "sue-r")
    assert q.spl_protocol([2, 3], 1.0, "OUE") == q.spl_protocol([2, 3], 1.0, "oue")


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ParameterError) as info:
        q.protocol("kv", 3, 1.0)
    message = str(info.value)
    for name in CATALOGUE:
        assert name in message
    assert "'kv'" in message
    with pytest.raises(InputTypeError, match="name"):
        q.protocol(3, 3, 1.0)


def test_parameters_checked_against_the_schema():
    with pytest.raises(InputTypeError, match=r"protocol 'pckv' takes d, eps, .*; got rounds"):
        q.protocol("pckv", 3, 1.0, rounds=2)
    with pytest.raises(InputTypeError, match=r"protocol 'spl' needs ks"):
        q.protocol("spl", eps=1.0)
    with pytest.raises(InputTypeError, match="takes p and q, not eps"):
        q.protocol("ue", 3, 1.0, p=0.7, q=0.2)
    with pytest.raises(ParameterError, match="mechanism"):
        q.protocol("pckv", 3, 1.0, mechanism="rappor")


def test_text_parameters():
    entry = CATALOGUE["pckv"]
    assert entry.parse({"d": "50", "ell": "4", "eps": "1"}) == {"d": 50, "ell": 4, "eps": 1.0}
    assert CATALOGUE["spl"].parse({"oracle": "grr/OUE"}) == {"oracle": ("grr", "oue")}
    assert CATALOGUE["rr"].parse({"P": "0.9 0.1; 0.1 0.9"}) == {"P": ((0.9, 0.1), (0.1, 0.9))}
    with pytest.raises(ParameterError, match="parameter d must be an integer"):
        entry.parse({"d": "x"})
    with pytest.raises(ParameterError, match="parameter eps must be a number"):
        entry.parse({"eps": "nan"})
    assert entry.signature() == (
        "pckv(d, eps, ell=1, mechanism='ue', eps1=None, eps2=None, a=None)"
    )


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_a_missing_parameter_is_named_as_missing(name):
    # provenance: the entry's schema (its required parameters) and its documented example;
    # the frequency oracles said "eps must be a real number, got None" of an eps not given
    entry = CATALOGUE[name]
    for missing in entry.required:
        params = {k: v for k, v in entry.example.items() if k != missing}
        with pytest.raises(InputTypeError, match=rf"protocol '{name}' needs {missing}\b"):
            q.protocol(name, **params)


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_a_measure_given_a_protocol_says_to_pass_its_channel(name):
    # the measures take channels; a protocol object (composites included) is refused with
    # the advice to pass P.channel(), and the advice works (ML >= 1 for every channel)
    P = q.protocol(name, **CATALOGUE[name].example)
    for measure in (q.bayes_capacity, q.ldp_epsilon):
        with pytest.raises(UnsupportedKindError, match=r"not a channel: pass P\.channel\(\)"):
            measure(P)
    assert q.bayes_capacity(P.channel()) >= 1.0
