"""The catalogue of protocols: one entry per protocol, the one source of every surface.

:data:`CATALOGUE` maps each protocol's name to its :class:`Entry`: its aliases, its
parameter schema (each :class:`Parameter` with its kind, default and rule), its
reference and the class of the frozen object it builds. From it come
:func:`protocol` (``q.protocol(name, *args, **params)`` for every entry), the flat
aliases of :mod:`qifldp.faces`, the command line's specs (``pckv:d=50,ell=4,eps=1``,
parsed with :meth:`Entry.parse`) and its ``protocols`` listing.

Names are case-insensitive and ``-`` and ``_`` are alike (:func:`normalize_name`);
an alias may fix parameters (``pckv-grr`` is ``pckv`` with ``mechanism="grr"``).

>>> P = protocol("PCKV-GRR", d=3, eps=1.0)
>>> P.mechanism, P == protocol("pckv", 3, 1.0, mechanism="GRR")
('grr', True)
>>> CATALOGUE["the"].signature()
'the(k, eps, theta)'
>>> CATALOGUE["pckv"].parse({"d": "50", "ell": "4", "eps": "1"})
{'d': 50, 'ell': 4, 'eps': 1.0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Literal, overload

from ..errors import InputTypeError, ParameterError
from .base import Protocol
from .bipartite import BipartiteRR3
from .dbitflip import DBitFlip
from .grr import GRR
from .he import HE
from .he_multi import MAX_T, HEMulti
from .hr import HR
from .hr_block import HRBlock
from .lh import LH
from .longitudinal import LONGITUDINAL, Memoized
from .oracles import ORACLE_PARAMETERS, adp, oracle
from .pckv import PCKV
from .privkvm import PrivKVM
from .rappor import RAPPOR, ROUNDS
from .rr3 import RR, RR3
from .rsfd import RANDOMIZERS, RFD_RANDOMIZERS, RSFD, rsfd, rsrfd
from .schema import REQUIRED, Entry, Parameter, ParameterKind, normalize_name
from .she import SHE
from .sketch import CMS, HCMS
from .splsmp import ORACLES, SMP, SPL, smp_protocol, spl_protocol
from .ss import SS
from .the import THE
from .ue import UE

__all__ = [
    "CATALOGUE",
    "ALIASES",
    "Entry",
    "Parameter",
    "ParameterKind",
    "OracleName",
    "ProtocolName",
    "REQUIRED",
    "lookup",
    "normalize_name",
    "protocol",
]


#: The frequency oracles' names (their objects are :class:`~qifldp.protocols.Protocol`).
OracleName = Literal["grr", "ss", "lh", "blh", "olh", "ue", "sue", "oue", "the"]

#: Every catalogue name, for the type checkers of the faces.
ProtocolName = Literal[
    "grr",
    "ss",
    "lh",
    "blh",
    "olh",
    "ue",
    "sue",
    "oue",
    "the",
    "pckv",
    "privkvm",
    "rr",
    "rr3",
    "bipartite_rr3",
    "spl",
    "smp",
    "rsfd",
    "rsrfd",
    "l_grr",
    "l_sue",
    "l_oue",
    "l_osue",
    "l_soue",
    "adp",
    "hr",
    "he",
    "rappor",
    "dbitflip",
    "cms",
    "hcms",
    "hr_block",
    "he_multi",
    "she",
]


# ---------------------------------------------------------------------- the entries
def _k() -> Parameter:
    return Parameter("k", "int", rule="domain size, integer >= 2 (inputs 0..k-1)")


def _eps(rule: str = "finite, >= 0") -> Parameter:
    return Parameter("eps", "real", rule=rule)


def _ks() -> Parameter:
    return Parameter("ks", "ints", rule="attribute domain sizes k_1..k_d, each >= 2")


def _oracle_builder(name: str) -> Callable[..., Any]:
    def build(k: Any = None, eps: Any = None, **params: Any) -> Any:
        return oracle(name, k, eps, **params)

    build.__name__ = build.__qualname__ = f"build_{name}"
    return build


_WANG = (
    "Wang, Blocki, Li, Jha: Locally differentially private protocols for frequency "
    "estimation, USENIX Security 2017"
)
_QIF = "the QIF paper, Sec. V"


def _oracle_entry(
    name: str,
    aliases: tuple[str, ...] = (),
    extra: tuple[Parameter, ...] = (),
    example: Mapping[str, Any] | None = None,
    **described: Any,
) -> Entry:
    """A frequency oracle's entry: parameters k, eps (not for ue) and ``extra``, built by
    :func:`~qifldp.protocols.oracles.oracle` (which checks the names itself);
    ``described``: the entry's family, summary and reference."""
    assert tuple(p.name for p in extra) == ORACLE_PARAMETERS[name]
    ue = name == "ue"  # takes p and q; a second positional is eps, refused by UE itself
    return Entry(
        name=name,
        aliases=aliases,
        parameters=(_k(), *(() if ue else (_eps(),)), *extra),
        example={"k": 3, "eps": 1.0} if example is None else example,
        builder=_oracle_builder(name),
        positional=("k", "eps", *(p.name for p in extra)),
        extra=("eps",) if ue else (),
        check_names=False,
        **described,
    )


def _entries() -> Iterator[Entry]:
    yield _oracle_entry(
        "grr",
        family=GRR,
        summary="generalized randomized response: the true value w.p. p, any other w.p. q",
        reference=f"Kairouz, Bonawitz, Ramage, ICML 2016; {_WANG}; {_QIF}-A",
    )
    yield _oracle_entry(
        "ss",
        family=SS,
        summary="omega-subset selection: report an omega-subset that contains the truth w.p. p",
        reference=f"Ye and Barg, IEEE Trans. Inf. Theory 2018; Wang et al. 2016; {_QIF}-B",
        aliases=("subset_selection",),
        extra=(
            Parameter(
                "omega", "int", None, "subset size in 1..k; default max(1, round(k / (e^eps + 1)))"
            ),
        ),
        example={"k": 4, "eps": 1.0},
    )
    yield _oracle_entry(
        "lh",
        family=LH,
        summary="local hashing: a random hash h: [k] -> [g], then GRR on h(x); output (h, value)",
        reference=f"Bassily and Smith, STOC 2015; {_WANG}; {_QIF}-C",
        aliases=("local_hashing",),
        extra=(Parameter("g", "int", rule="hash range, integer >= 2"),),
        example={"k": 3, "eps": 1.0, "g": 2},
    )
    yield _oracle_entry(
        "blh",
        family=LH,
        summary="binary local hashing: local hashing with g = 2",
        reference=f"Bassily and Smith, STOC 2015; {_QIF}-C",
    )
    yield _oracle_entry(
        "olh",
        family=LH,
        summary="optimized local hashing: local hashing with g = round(e^eps + 1)",
        reference=f"{_WANG}; {_QIF}-C",
    )
    yield _oracle_entry(
        "ue",
        family=UE,
        summary="unary encoding: one-hot encode, keep a 1 bit w.p. p, raise a 0 bit w.p. q",
        reference=f"{_WANG}; {_QIF}-D",
        aliases=("unary_encoding",),
        extra=(
            Parameter("p", "real", rule="Pr[output bit 1 | input bit 1], 0 <= q < p <= 1"),
            Parameter("q", "real", rule="Pr[output bit 1 | input bit 0], 0 <= q < p <= 1"),
        ),
        example={"k": 3, "p": 0.75, "q": 0.25},
    )
    yield _oracle_entry(
        "sue",
        family=UE,
        summary=(
            "symmetric unary encoding (basic RAPPOR): p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p"
        ),
        reference=f"Erlingsson, Pihur, Korolova, CCS 2014; {_WANG}; {_QIF}-D",
    )
    yield _oracle_entry(
        "oue",
        family=UE,
        summary="optimized unary encoding: p = 1/2, q = 1 / (e^eps + 1)",
        reference=f"{_WANG}; {_QIF}-D",
    )
    yield _oracle_entry(
        "the",
        family=THE,
        summary=(
            "thresholding with histogram encoding: Laplace-perturbed one-hot vector, "
            "bits above theta"
        ),
        reference=f"{_WANG}; {_QIF}-E",
        extra=(Parameter("theta", "real", rule="threshold in (0.5, 1)"),),
        example={"k": 3, "eps": 1.0, "theta": 0.7},
    )
    yield Entry(
        name="pckv",
        aliases=("pckv-ue", "pckv-grr"),
        parameters=(
            Parameter("d", "int", rule="number of keys, integer >= 1 (keys 1..d)"),
            _eps("total budget, finite, > 0"),
            Parameter("ell", "int", 1, "padding length, integer >= 1"),
            Parameter("mechanism", "choice", "ue", "one of ue, grr", ("ue", "grr")),
            Parameter(
                "eps1", "real", None, "key budget > 0 (with eps2); default: the optimised split"
            ),
            Parameter(
                "eps2", "real", None, "value budget > 0 (with eps1); default: the optimised split"
            ),
            Parameter(
                "a", "real", None, "PCKV-UE only: Pr[own position reported], in (0, 1); default 1/2"
            ),
        ),
        reference="Gu, Li, Cheng, Xiong, Cao: PCKV, USENIX Security 2020",
        family=PCKV,
        summary="key-value pairs: padding and sampling, the key by UE or GRR, the value by RR",
        example={"d": 2, "eps": 1.0},
        builder=PCKV,
        presets={"pckv-ue": {"mechanism": "ue"}, "pckv-grr": {"mechanism": "grr"}},
    )
    yield Entry(
        name="privkvm",
        aliases=("privkv",),
        parameters=(
            Parameter("d", "int", rule="number of keys, integer >= 1 (keys 1..d)"),
            _eps("total budget, finite, > 0"),
            Parameter("rounds", "int", 1, "number of rounds c, integer in 1..1000"),
        ),
        reference="Ye, Hu, Meng, Zheng: PrivKV, IEEE S&P 2019 (as described by PCKV, Sec. 4.2)",
        family=PrivKVM,
        summary="key-value baseline: one sampled key, c rounds of virtual-value perturbation",
        example={"d": 2, "eps": 1.0},
        builder=PrivKVM,
    )
    yield Entry(
        name="rr",
        aliases=("randomized_response",),
        parameters=(
            Parameter("P", "matrix", rule="row-stochastic m x m matrix, m >= 2"),
            Parameter("eps", "real", None, "a budget P must satisfy (ldp_epsilon(P) <= eps)"),
        ),
        reference="Warner, JASA 1965; Ma and Wang, arXiv 2021, Definition 3",
        family=RR,
        summary="randomized response with m answers: any row-stochastic m x m matrix",
        example={"P": ((0.5, 0.25, 0.25), (0.25, 0.5, 0.25), (0.25, 0.25, 0.5))},
        builder=RR,
    )
    yield Entry(
        name="rr3",
        aliases=(),
        parameters=(
            Parameter("P", "matrix", None, "row-stochastic 3 x 3 matrix (or its entries p11..p33)"),
            Parameter("eps", "real", None, "a budget P must satisfy (ldp_epsilon(P) <= eps)"),
            *(
                Parameter(f"p{i}{j}", "real", None, f"entry ({i}, {j}) of P (all nine or none)")
                for i in (1, 2, 3)
                for j in (1, 2, 3)
            ),
        ),
        reference="Ma and Wang, arXiv 2021, Remark 5",
        family=RR3,
        summary="randomized response with three answers",
        example={"P": ((0.6, 0.2, 0.2), (0.2, 0.6, 0.2), (0.2, 0.2, 0.6))},
        builder=RR3,
    )
    yield Entry(
        name="bipartite_rr3",
        aliases=("bipartite",),
        parameters=(
            Parameter("m", "int", rule="number of items, integer >= 1"),
            Parameter("rr", "matrix", None, "the per-edge 3 x 3 channel (give rr or eps)"),
            Parameter("eps", "real", None, "per-edge budget of GRR(3) (give rr or eps)"),
        ),
        reference="Ma and Wang, arXiv 2021, Definition 5",
        family=BipartiteRR3,
        summary="weighted bipartite graphs: every (user, item) edge state through one RR3",
        example={"m": 2, "eps": 1.0},
        builder=BipartiteRR3,
        positional=("m", "rr", "eps"),
    )
    oracle_rule = f"oracle per attribute: one of {', '.join(ORACLES)} (or one per attribute)"
    for name, family, builder, summary in (
        ("spl", SPL, spl_protocol, "every attribute reported with its oracle at budget eps / d"),
        (
            "smp",
            SMP,
            smp_protocol,
            "one attribute sampled, reported with the whole eps and disclosed",
        ),
    ):
        yield Entry(
            name=name,
            aliases=(),
            parameters=(_ks(), _eps(), Parameter("oracle", "names", "grr", oracle_rule, ORACLES)),
            reference="Arcolezi et al., CIKM 2021; VLDB 2023, Sec. 2.3",
            family=family,
            summary=summary,
            example={"ks": (2, 3), "eps": 1.0},
            builder=builder,
        )
    yield Entry(
        name="rsfd",
        aliases=("rs+fd", *(f"rsfd-{r}" for r in RANDOMIZERS)),
        parameters=(
            _ks(),
            _eps("finite, >= 0 (the sampled attribute uses ln(d (e^eps - 1) + 1))"),
            Parameter(
                "randomizer", "choice", "grr", f"one of {', '.join(RANDOMIZERS)}", RANDOMIZERS
            ),
        ),
        reference="Arcolezi et al., CIKM 2021; VLDB 2023, Sec. 2.3.2",
        family=RSFD,
        summary="random sampling plus fake data: one attribute randomised, uniform fakes elsewhere",
        example={"ks": (2, 3), "eps": 1.0},
        builder=rsfd,
        presets={f"rsfd-{r}": {"randomizer": r} for r in RANDOMIZERS},
    )
    yield Entry(
        name="rsrfd",
        aliases=("rs+rfd",),
        parameters=(
            _ks(),
            _eps("finite, >= 0 (the sampled attribute uses ln(d (e^eps - 1) + 1))"),
            Parameter(
                "priors", "distributions", rule="one fake-data prior per attribute, of length k_j"
            ),
            Parameter(
                "randomizer",
                "choice",
                "grr",
                f"one of {', '.join(RFD_RANDOMIZERS)}",
                RFD_RANDOMIZERS,
            ),
        ),
        reference="Arcolezi et al., VLDB 2023",
        family=RSFD,
        summary="RS+FD with fake values drawn from given per-attribute priors",
        example={"ks": (2, 2), "eps": 1.0, "priors": ((0.8, 0.2), (0.5, 0.5))},
        builder=rsrfd,
    )


def _memoized_builder(variant: str) -> Callable[..., Memoized]:
    def build(k: Any, eps_perm: Any, eps_1: Any) -> Memoized:
        return Memoized(k, eps_perm, eps_1, variant=variant)

    build.__name__ = build.__qualname__ = f"build_{variant}"
    return build


_LONGITUDINAL = (
    "Arcolezi, Couchot, Al Bouna, Xiao: Improving the utility of locally differentially "
    "private protocols for longitudinal and multidimensional frequency estimates, Digital "
    "Communications and Networks 2022 (arXiv 2111.04636), Sec. 4"
)


def _memoized_entries() -> Iterator[Entry]:
    for variant, rounds in LONGITUDINAL.items():
        first, second = (r.upper() for r in rounds)
        reference = _LONGITUDINAL
        if variant == "l_sue":
            reference = f"Erlingsson, Pihur, Korolova: RAPPOR, CCS 2014; {_LONGITUDINAL}"
        yield Entry(
            name=variant,
            aliases=(),
            parameters=(
                _k(),
                Parameter("eps_perm", "real", rule="budget of the permanent response, in (0, 700]"),
                Parameter("eps_1", "real", rule="budget of one report, 0 < eps_1 < eps_perm"),
            ),
            reference=reference,
            family=Memoized,
            summary=(
                f"longitudinal {first}/{second}: a memoised {first} response at eps_perm, "
                f"each report a fresh {second} of it with one-report budget eps_1"
            ),
            example={"k": 3, "eps_perm": 2.0, "eps_1": 1.0},
            builder=_memoized_builder(variant),
        )


#: The later oracles of parameters (k, eps): name -> (alias, reference, family, summary, builder).
_K_EPS: dict[str, tuple[str, str, type, str, Callable[..., Any]]] = {
    "adp": (
        "adaptive",
        f"{_WANG}, Sec. 4 (the variances compared); Arcolezi et al., multi-freq-ldpy (ADP)",
        Protocol,
        "adaptive: GRR when k <= 3 e^eps + 2 (its variance is the smaller), else OUE",
        adp,
    ),
    "hr": (
        "hadamard_response",
        "Acharya, Sun, Zhang: Hadamard Response: Estimating Distributions Privately, "
        "Efficiently, and with Little Communication, AISTATS 2019, Sec. 4",
        HR,
        "Hadamard response: an output of the value's Hadamard codeword set (K/2 of the "
        "K > k outputs) w.p. e^eps / (e^eps + 1), else one outside it",
        HR,
    ),
    "he": (
        "hadamard_encoding",
        "Cormode, Kulkarni, Srivastava: Marginal release under local differential privacy, "
        "SIGMOD 2018 (the Hadamard mechanism, one coefficient); pure-ldp's HadamardMech",
        HE,
        "Hadamard encoding: a uniformly random Hadamard coefficient of the value, kept "
        "w.p. e^eps / (e^eps + 1), else negated; output (index, sign)",
        HE,
    ),
}


def _later_entries() -> Iterator[Entry]:
    yield from _memoized_entries()
    for name, (alias, reference, family, summary, builder) in _K_EPS.items():
        yield Entry(
            name=name,
            aliases=(alias,),
            parameters=(_k(), _eps()),
            reference=reference,
            family=family,
            summary=summary,
            example={"k": 3, "eps": 1.0},
            builder=builder,
        )
    yield Entry(
        name="rappor",
        aliases=(),
        parameters=(
            _k(),
            Parameter("m", "int", 16, "Bloom filter bits, integer in 1..64"),
            Parameter("h", "int", 2, "hash functions, integer in 1..m"),
            Parameter("f", "real", 0.5, "permanent randomisation, in [0, 1]"),
            Parameter("p", "real", 0.5, "Pr[report bit 1 | permanent bit 0], in [0, 1]"),
            Parameter("q", "real", 0.75, "Pr[report bit 1 | permanent bit 1], in [0, 1]"),
            Parameter("rounds", "choice", "longitudinal", f"one of {', '.join(ROUNDS)}", ROUNDS),
            Parameter("seed", "int", 0, "the member of the hash family, integer >= 0"),
        ),
        reference="Erlingsson, Pihur, Korolova: RAPPOR, CCS 2014, Sec. 3",
        family=RAPPOR,
        summary=(
            "RAPPOR: a Bloom filter of m bits (h hashes), a memoised permanent randomized "
            "response (f), each report an instantaneous one (p, q)"
        ),
        example={"k": 3, "m": 4, "h": 1, "f": 0.5},
        builder=RAPPOR,
    )
    yield Entry(
        name="dbitflip",
        aliases=("dbitflippm",),
        parameters=(
            _k(),
            _eps(),
            Parameter("b", "int", None, "buckets, integer in 2..k; default k"),
            Parameter("d", "int", 1, "sampled buckets, integer in 1..b"),
        ),
        reference="Ding, Kulkarni, Yekhanin: Collecting telemetry data privately, NeurIPS 2017",
        family=DBitFlip,
        summary="dBitFlipPM: d of b buckets sampled, each reported by a SUE bit (memoised)",
        example={"k": 3, "eps": 1.0, "d": 2},
        builder=DBitFlip,
    )
    for name, family, m_rule, summary in (
        (
            "cms",
            CMS,
            "buckets, integer >= 2",
            "Count Mean Sketch: one of K hashes, the bucket one-hot in m bits, each flipped "
            "w.p. 1 / (e^(eps/2) + 1); output (hash index, bits)",
        ),
        (
            "hcms",
            HCMS,
            "buckets, a power of two >= 2",
            "Hadamard Count Mean Sketch: one of K hashes, one random entry of the bucket's "
            "Hadamard codeword, negated w.p. 1 / (e^eps + 1); output (hash index, entry "
            "index, sign)",
        ),
    ):
        yield Entry(
            name=name,
            aliases=(),
            parameters=(
                _k(),
                _eps(),
                Parameter("m", "int", rule=m_rule),
                Parameter("hashes", "int", rule="hash functions K (the paper's k), integer >= 1"),
                Parameter("seed", "int", 0, "the member of the hash family, integer >= 0"),
            ),
            reference=(
                "Apple Differential Privacy Team: Learning with Privacy at Scale, Apple "
                "Machine Learning Journal 2017; pure-ldp's CMS"
            ),
            family=family,
            summary=summary,
            example={"k": 3, "eps": 1.0, "m": 4, "hashes": 2},
            builder=family,
        )
    yield Entry(
        name="hr_block",
        aliases=("hadamard_response_general",),
        parameters=(
            _k(),
            _eps(),
            Parameter(
                "B", "int", None, "blocks, integer in 1..2k; default 2^floor(log2 min(e^eps, 2k))"
            ),
        ),
        reference=(
            "Acharya, Sun, Zhang: Hadamard Response: Estimating Distributions Privately, "
            "Efficiently, and with Little Communication, AISTATS 2019 (the general-eps scheme; "
            "pure-ldp's HR for eps > 1)"
        ),
        family=HRBlock,
        summary=(
            "Hadamard response with B blocks of b outputs: an output of the value's codeword "
            "set (b/2 outputs of its block) w.p. e^eps / (e^eps + 2B - 1), else uniform"
        ),
        example={"k": 5, "eps": 2.0},
        builder=HRBlock,
    )
    yield Entry(
        name="he_multi",
        aliases=("hadamard_mechanism",),
        parameters=(
            _k(),
            _eps(),
            Parameter(
                "t",
                "int",
                None,
                f"coefficients per report, integer in 1..{MAX_T}; default ceil(log2(e^eps + 1))",
            ),
        ),
        reference=(
            "Cormode, Kulkarni, Srivastava: Marginal release under local differential privacy, "
            "SIGMOD 2018 (the Hadamard mechanism); pure-ldp's HadamardMech with t coefficients"
        ),
        family=HEMulti,
        summary=(
            "Hadamard encoding with t coefficients: t uniformly random Hadamard coefficients "
            "of the value, their signs through 2^t-ary randomized response; output t pairs "
            "(index, sign)"
        ),
        example={"k": 3, "eps": 1.0, "t": 2},
        builder=HEMulti,
    )
    yield Entry(
        name="she",
        aliases=("summation_histogram_encoding",),
        parameters=(_k(), _eps("in (0, 700] (Laplace scale 2/eps)")),
        reference=(f"{_WANG}, Sec. 4.2 (SHE); pure-ldp's HEClient / HEServer without threshold"),
        family=SHE,
        summary=(
            "summation with histogram encoding: the one-hot vector plus Laplace(2/eps) noise "
            "on each coordinate (real reports); analysed by its exact privacy profile and "
            "Bayes capacity, and as an exact channel by binning each coordinate "
            "(.channel(bins), capacity error bounded)"
        ),
        example={"k": 3, "eps": 1.0},
        builder=SHE,
    )


#: name -> entry, for every protocol (read-only).
CATALOGUE: Mapping[str, Entry] = MappingProxyType(
    {e.name: e for e in (*_entries(), *_later_entries())}
)

#: Every accepted spelling (normalised) -> (entry name, parameters the alias fixes).
ALIASES: Mapping[str, tuple[str, Mapping[str, Any]]] = MappingProxyType(
    {
        normalize_name(spelling): (e.name, MappingProxyType(dict(e.presets.get(spelling, {}))))
        for e in CATALOGUE.values()
        for spelling in (e.name, *e.aliases)
    }
)


def lookup(name: str) -> tuple[Entry, Mapping[str, Any]]:
    """The entry of a name or alias (any case, ``-`` or ``_``) and the parameters it fixes.

    Raises
    ------
    InputTypeError
        ``name`` is not a string.
    ParameterError
        No entry has that name; the message lists the valid names.

    Examples
    --------
    >>> entry, fixed = lookup("RSFD_OUE-Z")
    >>> entry.name, dict(fixed)
    ('rsfd', {'randomizer': 'oue-z'})
    """
    if not isinstance(name, str):
        msg = f"name must be a protocol name (a str), got {name!r} of type {type(name).__name__}"
        raise InputTypeError(msg)
    found = ALIASES.get(normalize_name(name))
    if found is None:
        msg = (
            f"name must be one of {', '.join(CATALOGUE)} (or an alias: "
            f"{', '.join(a for e in CATALOGUE.values() for a in e.aliases)}), got {name!r}"
        )
        raise ParameterError(msg)
    entry, fixed = found
    return CATALOGUE[entry], fixed


@overload
def protocol(name: OracleName | Literal["adp"], *args: Any, **params: Any) -> Protocol: ...
@overload
def protocol(name: Literal["pckv", "pckv-ue", "pckv-grr"], *args: Any, **params: Any) -> PCKV: ...
@overload
def protocol(name: Literal["privkvm"], *args: Any, **params: Any) -> PrivKVM: ...
@overload
def protocol(name: Literal["rr"], *args: Any, **params: Any) -> RR: ...
@overload
def protocol(name: Literal["rr3"], *args: Any, **params: Any) -> RR3: ...
@overload
def protocol(name: Literal["bipartite_rr3"], *args: Any, **params: Any) -> BipartiteRR3: ...
@overload
def protocol(name: Literal["spl"], *args: Any, **params: Any) -> SPL: ...
@overload
def protocol(name: Literal["smp"], *args: Any, **params: Any) -> SMP: ...
@overload
def protocol(name: Literal["rsfd", "rsrfd"], *args: Any, **params: Any) -> RSFD: ...
@overload
def protocol(
    name: Literal["l_grr", "l_sue", "l_oue", "l_osue", "l_soue"], *args: Any, **params: Any
) -> Memoized: ...
@overload
def protocol(name: Literal["hr"], *args: Any, **params: Any) -> HR: ...
@overload
def protocol(name: Literal["rappor"], *args: Any, **params: Any) -> RAPPOR: ...
@overload
def protocol(name: Literal["dbitflip"], *args: Any, **params: Any) -> DBitFlip: ...
@overload
def protocol(name: Literal["he"], *args: Any, **params: Any) -> HE: ...
@overload
def protocol(name: Literal["cms"], *args: Any, **params: Any) -> CMS: ...
@overload
def protocol(name: Literal["hcms"], *args: Any, **params: Any) -> HCMS: ...
@overload
def protocol(name: Literal["hr_block"], *args: Any, **params: Any) -> HRBlock: ...
@overload
def protocol(name: Literal["he_multi"], *args: Any, **params: Any) -> HEMulti: ...
@overload
def protocol(name: Literal["she"], *args: Any, **params: Any) -> SHE: ...
@overload
def protocol(name: str, *args: Any, **params: Any) -> Any: ...
def protocol(name: str, *args: Any, **params: Any) -> Any:
    """The frozen protocol object of any catalogue entry.

    Parameters
    ----------
    name : str
        A name or alias of :data:`CATALOGUE` (any case; ``-`` and ``_`` alike): the
        frequency oracles ``grr``, ``ss``, ``lh``, ``blh``, ``olh``, ``ue``, ``sue``,
        ``oue``, ``the`` and the composite ``pckv`` (``pckv-ue``, ``pckv-grr``),
        ``privkvm``, ``rr``, ``rr3``, ``bipartite_rr3``, ``spl``, ``smp``, ``rsfd``
        (``rsfd-grr``, ``rsfd-oue-z`` ...), ``rsrfd`` and the longitudinal oracles
        ``l_grr``, ``l_sue``, ``l_oue``, ``l_osue``, ``l_soue`` (``k, eps_perm, eps_1``),
        ``adp`` (GRR or OUE, whichever estimates with less variance), ``hr``
        (Hadamard response), ``rappor``, ``dbitflip``, ``he`` (Hadamard encoding),
        ``cms`` and ``hcms`` (Apple's Count Mean Sketches: ``k, eps, m, hashes``),
        ``hr_block`` (Hadamard response with blocks: ``k, eps, B``), ``he_multi``
        (Hadamard encoding with t coefficients: ``k, eps, t``) and ``she`` (summation
        with histogram encoding: continuous reports; its channel is the binned one).
    *args
        Parameters by position, in the entry's order (oracles: ``k, eps``; ``pckv``:
        ``d, eps, ell, ...``; ``ue`` takes p and q by name).
    **params
        Parameters by name, as the entry's schema (``CATALOGUE[name].parameters``).

    Returns
    -------
    Protocol or a composite protocol object
        Frozen and hashable; equal to another when name and parameters are equal.

    Raises
    ------
    ParameterError
        Unknown ``name`` (the message lists the valid ones); parameters out of
        range, exactly as the flat constructors and the classes raise.
    InputTypeError
        ``name`` not a string; a parameter the protocol does not take, a required
        one missing, an alias's fixed parameter given otherwise; wrong types.

    Examples
    --------
    >>> P = protocol("the", 4, 1.0, theta=0.7)
    >>> P
    protocol('the', k=4, eps=1.0, theta=0.7)
    >>> P.channel().shape, round(P.params["q"], 6)
    ((4, 16), 0.352344)
    >>> protocol("ue", 3, p=0.75, q=0.25).params
    {'p': 0.75, 'q': 0.25}
    >>> protocol("SPL", ks=[2, 3], eps=1.0)
    spl_protocol([2, 3], 1.0, oracle='grr')
    >>> protocol("kv", 3, 1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: name must be one of grr, ss, lh, blh, olh, ue, ...
    """
    entry, fixed = lookup(name)
    bound = entry.bind(args, params)
    for key, value in fixed.items():
        if key in bound and _normalized(bound[key]) != value:
            msg = f"{name!r} fixes {key} = {value!r}, got {key} = {bound[key]!r}"
            raise InputTypeError(msg)
        bound[key] = value
    return entry.build(**bound)


def _normalized(value: Any) -> Any:
    return value.strip().lower().replace("_", "-") if isinstance(value, str) else value
