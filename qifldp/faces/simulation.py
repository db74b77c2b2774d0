"""The flat simulation names of the protocols, attached to :mod:`qifldp.simulation`.

Each protocol samples, estimates, computes its variance and attacks its own reports
(``q.protocol("oue", k, eps).sample(xs)``, ``.estimate(reports)``, ``.variance(n, f)``,
``.support_probabilities()``, ``.attack(reports)``, in its family module of
:mod:`qifldp.protocols`). The flat names here (``sample_grr`` ... ``sample_the``,
``estimate_*``, ``variance_*``, ``*_pq_star``, ``attack_*``) are aliases onto those
methods, with their former signatures, values and errors. The samplers, estimators,
variances and support probabilities are generated from the catalogue's parameter schema
by one function (:func:`flat_method`); the attacks, which need no parameter, forward to
their family's helper. :mod:`qifldp.faces.attach` gives them to ``qifldp.simulation``
(``from qifldp.simulation import sample_oue``), whose own modules hold the kernels that
serve every protocol.

>>> import qifldp as q
>>> sample_grr([0, 1, 2], k=3, eps=60.0, rng=0).tolist() == q.protocol("grr", 3, 60.0).sample(
...     [0, 1, 2], rng=0).tolist()
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, overload

import numpy as np

from ..protocols import CATALOGUE
from ..protocols.grr import attack_values
from ..protocols.lh import (
    LH_REJECTION_RATIO as LH_REJECTION_RATIO,
    LH_REJECTION_TRIES as LH_REJECTION_TRIES,
    attack_hashes,
    check_lh_reports,
    universal_lh_channel as universal_lh_channel,
)
from ..protocols.oracles import oracle as protocol
from ..protocols.ss import (
    SS_DENSE_RATIO as SS_DENSE_RATIO,
    SS_KEYS_MAX_K as SS_KEYS_MAX_K,
    SS_KEYS_MIN_K as SS_KEYS_MIN_K,
    attack_subsets,
    report_omega,
)
from ..protocols.ue import attack_bits, bit_width
from ..simulation.samplers import DEFAULT_PRIME, LHReports
from .attach import FACES
from .generate import alias, doctests, parameters

__all__ = list(FACES["qifldp.simulation"][1])  # the names qifldp.simulation receives

#: The protocol methods a flat name forwards to.
Method = Literal["sample", "estimate", "variance", "support_probabilities"]

#: Any valid domain size: the aliases whose values do not depend on k build the
#: protocol at this k (the estimators read k from the reports).
_ANY_K = 2

_F = TypeVar("_F", bound=Callable[..., Any])

_P = inspect.Parameter


def _alias_doc(method: str, example: tuple[str, ...]) -> str:
    role = ":meth:" if method[:1].isupper() else ":func:"
    lines = "\n    ".join(example)
    return (
        f"Flat alias of {role}`qifldp.protocols.{method}`: the same result for the same "
        "arguments.\n\n    Signature, values and errors are those the flat name always had; "
        "the\n    implementation documents the parameters, errors and algorithm.\n\n"
        f"    Examples\n    --------\n    {lines}\n    "
    )


def flat_alias(method: str, *example: str) -> Callable[[_F], _F]:
    """Decorate a flat function of :mod:`qifldp.simulation` that forwards to a protocol.

    The docstring is generated: it names the implementation, which documents the
    parameters, errors and algorithm, and carries the ``example`` lines (a
    doctest, collected by ``pytest --doctest-modules`` like any docstring).

    Parameters
    ----------
    method : str
        The implementation in :mod:`qifldp.protocols`: a method such as
        ``"UE.sample"`` or a family helper such as ``"ue.attack_bits"``.
    *example : str
        Doctest lines (``>>>`` and expected output), one per argument.

    Returns
    -------
    callable
        The decorator; it returns the function itself with its docstring set.

    Examples
    --------
    >>> @flat_alias("GRR.sample", ">>> 1 + 1", "2")
    ... def f():
    ...     pass
    >>> f.__doc__.splitlines()[0]
    'Flat alias of :meth:`qifldp.protocols.GRR.sample`: the same result for the same arguments.'
    """

    def decorate(fn: _F) -> _F:
        fn.__doc__ = _alias_doc(method, example)
        return fn

    return decorate


def _keyword(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    return _P(name, _P.KEYWORD_ONLY, default=default, annotation=annotation)


def _positional(name: str, default: Any = _P.empty, annotation: Any = Any) -> inspect.Parameter:
    return _P(name, _P.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)


_Found = tuple[Any, dict[str, Any]]


def _as_given(reports: Any, params: Mapping[str, Any]) -> _Found:
    return reports, {}


def _from_subsets(reports: Any, params: Mapping[str, Any]) -> _Found:
    """SS: an omitted omega is the reports' subset size."""
    return reports, {"omega": report_omega(reports, params["k"], params["omega"])}


def _from_lh_reports(reports: Any, params: Mapping[str, Any]) -> _Found:
    """LH: the reports carry k and g."""
    R = check_lh_reports(reports)
    return R, {"k": R.k, "g": R.g}


def _from_bits(bits: Any, params: Mapping[str, Any]) -> _Found:
    """UE and THE: k is the reports' bit width."""
    return bits, {"k": bit_width(bits)}


#: Each oracle's reports as its flat estimator takes them: the argument's name, the
#: catalogue parameters read from the reports (not arguments), and the reading.
_REPORTS: Mapping[str, tuple[str, tuple[str, ...], Callable[[Any, Mapping[str, Any]], _Found]]] = {
    "grr": ("reports", (), _as_given),
    "ss": ("reports", (), _from_subsets),
    "lh": ("reports", ("k", "g"), _from_lh_reports),
    "ue": ("bits", ("k",), _from_bits),
    "sue": ("bits", ("k",), _from_bits),
    "oue": ("bits", ("k",), _from_bits),
    "the": ("bits", ("k",), _from_bits),
}

#: The oracles whose variance and support probabilities do not depend on k.
_WITHOUT_K = ("lh", "ue", "sue", "oue", "the")

_LH_PRIME = (_positional("prime", None, int | None),)
_LH_OPTIONS = (_keyword("hash", "universal", str), _keyword("prime", DEFAULT_PRIME, int))

#: Each (method, oracle)'s own options, after the catalogue parameters.
_OPTIONS: Mapping[tuple[str, str], tuple[inspect.Parameter, ...]] = {
    ("sample", "ss"): (_keyword("output", "subsets", str),),
    ("sample", "lh"): _LH_OPTIONS,
    ("sample", "blh"): (_P("kwargs", _P.VAR_KEYWORD, annotation=Any),),
    ("sample", "olh"): (_P("kwargs", _P.VAR_KEYWORD, annotation=Any),),
    ("sample", "the"): (_keyword("method", "laplace", str),),
    ("variance", "lh"): _LH_PRIME,
    ("support_probabilities", "lh"): _LH_PRIME,
}


def _options(method: str, name: str, given: dict[str, Any]) -> dict[str, Any]:
    """The method's keyword options from the flat name's: LH's ``prime`` of a variance
    or support probability means uniform hashing when None, else universal hashing."""
    given.update(given.pop("kwargs", {}))
    if method != "sample" and name == "lh":
        given["hash"] = "uniform" if given["prime"] is None else "universal"
    return given


#: The flat name of each method, from the oracle's name.
_FLAT: Mapping[str, str] = {
    "sample": "sample_{}",
    "estimate": "estimate_{}",
    "variance": "variance_{}",
    "support_probabilities": "{}_pq_star",
}

_RETURNS: Mapping[str, Any] = {
    "sample": np.ndarray,
    "estimate": np.ndarray,
    "variance": np.ndarray | float,
    "support_probabilities": tuple[float, float],
}


def _signature(method: Method, name: str) -> inspect.Signature:
    """The flat name's arguments: the catalogue's parameters (less those the reports
    carry, or k where the value does not depend on it) around the method's own."""
    schema = parameters(CATALOGUE[name])
    options = _OPTIONS.get((method, name), ())
    if method == "sample":
        returns = LHReports if name in ("lh", "blh", "olh") else np.ndarray
        params = [_positional("xs"), *schema, _positional("rng", None), *options]
        return inspect.Signature(params, return_annotation=returns)
    if method == "estimate":
        first, carried, _ = _REPORTS[name]
        reports = _positional(first, annotation=LHReports if name == "lh" else Any)
        kept = [p for p in schema if p.name not in carried]
        params = [reports, *kept, _keyword("project", False, bool)]
        return inspect.Signature(params, return_annotation=np.ndarray)
    kept = [p for p in schema if not (p.name == "k" and name in _WITHOUT_K)]
    users = [_positional("n", annotation=int), _positional("f", None)]
    params = [
        *(p for p in kept if p.default is _P.empty),
        *(users if method == "variance" else ()),
        *(p for p in kept if p.default is not _P.empty),
        *options,
    ]
    return inspect.Signature(params, return_annotation=_RETURNS[method])


def _call(method: Method, name: str, arguments: dict[str, Any]) -> Any:
    """``protocol(name, ...).method(...)`` from the bound arguments of the flat name."""
    schema = CATALOGUE[name].names
    params = {key: value for key, value in arguments.items() if key in schema}
    given = {key: value for key, value in arguments.items() if key not in schema}
    if method == "estimate":
        first, _, read = _REPORTS[name]
        reports, found = read(given.pop(first), params)
        return protocol(name, **{**params, **found}).estimate(reports, **given)
    if method != "sample" and name in _WITHOUT_K:
        params["k"] = _ANY_K
    P = protocol(name, **params)
    options = _options(method, name, given)
    if method == "sample":
        return P.sample(options.pop("xs"), options.pop("rng"), **options)
    if method == "variance":
        return P.variance(options.pop("n"), options.pop("f"), **options)
    return P.support_probabilities(**options)


#: Each generated name's doctest: the statements (shown after ``>>>``), then the output.
_EXAMPLES: Mapping[str, tuple[str, ...]] = {
    "sample_grr": ("sample_grr([0, 1, 2, 3], k=4, eps=50.0, rng=0).tolist()", "[0, 1, 2, 3]"),
    "sample_ss": ("sample_ss([0, 3], k=6, eps=1.0, omega=2, rng=0).shape", "(2, 2)"),
    "sample_lh": ("sample_lh([0, 1, 2, 3], k=4, eps=2.0, g=3, rng=7).y.shape", "(4,)"),
    "sample_blh": ("sample_blh([0, 1], k=4, eps=1.0, rng=0).g", "2"),
    "sample_olh": ("sample_olh([0, 1], k=4, eps=1.0, rng=0).g  # round(e + 1)", "4"),
    "sample_ue": ("sample_ue([0, 2], 3, p=1.0, q=0.0, rng=0).sum(axis=1).tolist()", "[1, 1]"),
    "sample_sue": ("sample_sue([1], k=3, eps=60.0, rng=0).astype(int).tolist()", "[[0, 1, 0]]"),
    "sample_oue": ("bool(sample_oue([1, 1], k=3, eps=60.0, rng=0)[:, [0, 2]].any())", "False"),
    "sample_the": ("int(sample_the([0, 1], k=3, eps=80.0, theta=0.7, rng=0).sum())", "2"),
    "grr_pq_star": ("grr_pq_star(3, 0.0)", "(0.3333333333333333, 0.3333333333333333)"),
    "ss_pq_star": ("[round(t, 6) for t in ss_pq_star(4, 0.0, 2)]", "[0.5, 0.5]"),
    "lh_pq_star": ("lh_pq_star(0.0, 4)  # prime None: uniform hashing", "(0.25, 0.25)"),
    "estimate_grr": ("estimate_grr([0, 0, 1, 0], 2, 50.0).tolist()", "[0.75, 0.25]"),
    "estimate_ss": (
        "estimate_ss(np.array([[0], [0], [1]]), 2, 50.0).round(6).tolist()",
        "[0.666667, 0.333333]",
    ),
    "estimate_lh": (
        "from qifldp.simulation import sample_olh",
        "xs = np.repeat([0, 1, 2], [6000, 3000, 1000])",
        "estimate_lh(sample_olh(xs, 3, 3.0, rng=0), 3.0).round(1).tolist()",
        "[0.6, 0.3, 0.1]",
    ),
    "estimate_ue": (
        "estimate_ue(np.array([[1, 0], [1, 1]], dtype=bool), 0.75, 0.25).tolist()",
        "[1.5, 0.5]",
    ),
    "estimate_sue": (
        "bits = np.array([[1, 0], [1, 1]], dtype=bool)",
        "estimate_sue(bits, 2 * np.log(3)).round(6).tolist()  # p = 3/4, q = 1/4",
        "[1.5, 0.5]",
    ),
    "estimate_oue": (
        "bits = np.array([[1, 0], [1, 1]], dtype=bool)",
        "estimate_oue(bits, np.log(3)).round(6).tolist()  # p = 1/2, q = 1/4",
        "[3.0, 1.0]",
    ),
    "estimate_the": (
        "from qifldp.simulation import sample_the",
        "xs = np.repeat([0, 1], [7000, 3000])",
        "estimate_the(sample_the(xs, 2, 4.0, 0.7, rng=0), 4.0, 0.7).round(1).tolist()",
        "[0.7, 0.3]",
    ),
    "variance_grr": (
        "import math",
        "math.isclose(variance_grr(10, 1.0, 1000), (math.e + 8) / (1000 * (math.e - 1) ** 2))",
        "True",
    ),
    "variance_ss": ("variance_ss(8, 1.0, 100, omega=2) > 0", "True"),
    "variance_lh": (
        "import math",
        "e = math.exp(1.0)",
        "math.isclose(variance_lh(1.0, 4, 500), (e - 1 + 4) ** 2 / (500 * (e - 1) ** 2 * 3))",
        "True",
    ),
    "variance_ue": ("round(variance_ue(0.75, 0.25, 100), 6)", "0.0075"),
    "variance_sue": (
        "import math",
        "math.isclose(variance_sue(2.0, 10), math.e / (10 * (math.e - 1) ** 2))",
        "True",
    ),
    "variance_oue": (
        "import math",
        "math.isclose(variance_oue(1.0, 10), 4 * math.e / (10 * (math.e - 1) ** 2))",
        "True",
    ),
    "variance_the": ("variance_the(1.0, 0.7, 1000) > variance_oue(1.0, 1000)", "True"),
}


@overload
def flat_method(method: Literal["estimate"], name: str) -> Callable[..., np.ndarray]: ...
@overload
def flat_method(method: Literal["variance"], name: str) -> Callable[..., np.ndarray | float]: ...
@overload
def flat_method(
    method: Literal["support_probabilities"], name: str
) -> Callable[..., tuple[float, float]]: ...
@overload
def flat_method(method: Literal["sample"], name: str) -> Callable[..., Any]: ...
def flat_method(method: Method, name: str) -> Callable[..., Any]:
    """The flat alias of ``protocol(name, ...).method(...)``, from the catalogue's schema.

    Parameters
    ----------
    method : {"sample", "estimate", "variance", "support_probabilities"}
        ``sample_<name>(xs, <parameters>, rng=None, <options>)``,
        ``estimate_<name>(reports, <parameters not in the reports>, *, project=False)``,
        ``variance_<name>(<required parameters>, n, f=None, <optional ones>)`` and
        ``<name>_pq_star(<parameters>)`` (k left out where the value does not depend on it).
    name : str
        A frequency oracle of the catalogue.

    Returns
    -------
    callable
        With the signature described, this module's name and a docstring that names
        the method and shows the example of :data:`_EXAMPLES`.

    Examples
    --------
    >>> f = flat_method("variance", "ss")
    >>> f.__name__, str(inspect.signature(f)).split(" -> ")[0]
    ('variance_ss', '(k: int, eps: float, n: int, f: Any = None, omega: int | None = None)')
    """
    flat = _FLAT[method].format(name)
    *statements, output = _EXAMPLES[flat]
    example = (*(f">>> {line}" for line in statements), output)
    doc = _alias_doc(f"{CATALOGUE[name].family.__name__}.{method}", example)
    signature = _signature(method, name)
    return alias(flat, signature, lambda given: _call(method, name, given), __name__, doc, True)


# ----------------------------------------------------------------------------------------
# client side: samplers; server side: support probabilities, estimators, variances
# ----------------------------------------------------------------------------------------
sample_grr = flat_method("sample", "grr")
sample_ss = flat_method("sample", "ss")
sample_lh = flat_method("sample", "lh")
sample_blh = flat_method("sample", "blh")
sample_olh = flat_method("sample", "olh")
sample_ue = flat_method("sample", "ue")
sample_sue = flat_method("sample", "sue")
sample_oue = flat_method("sample", "oue")
sample_the = flat_method("sample", "the")
grr_pq_star = flat_method("support_probabilities", "grr")
ss_pq_star = flat_method("support_probabilities", "ss")
lh_pq_star = flat_method("support_probabilities", "lh")
estimate_grr = flat_method("estimate", "grr")
estimate_ss = flat_method("estimate", "ss")
estimate_lh = flat_method("estimate", "lh")
estimate_ue = flat_method("estimate", "ue")
estimate_sue = flat_method("estimate", "sue")
estimate_oue = flat_method("estimate", "oue")
estimate_the = flat_method("estimate", "the")
variance_grr = flat_method("variance", "grr")
variance_ss = flat_method("variance", "ss")
variance_lh = flat_method("variance", "lh")
variance_ue = flat_method("variance", "ue")
variance_sue = flat_method("variance", "sue")
variance_oue = flat_method("variance", "oue")
variance_the = flat_method("variance", "the")


# ----------------------------------------------------------------------------------------
# attacks
# ----------------------------------------------------------------------------------------
@flat_alias("grr.attack_values", ">>> attack_grr([2, 0]).tolist()", "[2, 0]")
def attack_grr(reports: Any) -> np.ndarray:
    return attack_values(reports)


@flat_alias("ss.attack_subsets", ">>> attack_ss(np.array([[1], [0]]), rng=0).tolist()", "[1, 0]")
def attack_ss(reports: Any, rng: Any = None) -> np.ndarray:
    return attack_subsets(reports, rng)


@flat_alias(
    "ue.attack_bits", ">>> attack_ue(np.array([[0, 1, 0]], dtype=bool), rng=0).tolist()", "[1]"
)
def attack_ue(bits: Any, rng: Any = None) -> np.ndarray:
    return attack_bits(bits, rng)


@flat_alias(
    "ue.attack_bits", ">>> attack_the(np.array([[0, 0, 1]], dtype=bool), rng=0).tolist()", "[2]"
)
def attack_the(bits: Any, rng: Any = None) -> np.ndarray:
    return attack_bits(bits, rng)


@flat_alias(
    "lh.attack_hashes",
    ">>> from qifldp.simulation import sample_lh",
    ">>> R = sample_lh([0, 1, 2], k=3, eps=50.0, g=3, rng=0)",
    ">>> bool(np.all(R.matches()[np.arange(3), attack_lh(R, rng=0)]))",
    "True",
)
def attack_lh(reports: LHReports, rng: Any = None) -> np.ndarray:
    return attack_hashes(reports, rng)


__test__ = doctests(globals(), tuple(_EXAMPLES))
