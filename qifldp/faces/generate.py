"""The one generator of the flat constructors: a catalogue entry and a kind give a function.

``constructor(kind, name)`` returns the flat alias of a frequency oracle for one kind
of channel, with the signature of the catalogue's parameter schema:

* ``"explicit"``: ``protocol(name, ...).channel()`` (``qifldp.grr`` ...);
* ``"symmetric"``: ``protocol(name, ...).symmetric()`` (``qifldp.symmetric.grr`` ...);
* ``"symbolic"``: the protocol's symbolic builder, which takes sympy symbols
  (``qifldp.symbolic.grr`` is :func:`qifldp.protocols.grr.symbolic_grr`).

Every kind has the same names (:data:`FLAT_NAMES`): each oracle's catalogue name and its
word-spelled alias (``ss`` and ``subset_selection``, ``lh`` and ``local_hashing``,
``ue`` and ``unary_encoding``).

>>> f = constructor("symmetric", "ss")
>>> f.__name__, str(inspect.signature(f)).replace("qifldp.symmetric.channel.", "")
('ss', '(k: int, eps: float, omega: int | None = None) -> SymmetricChannel')
>>> f(10, 1.0) == constructor("symmetric", "subset_selection")(10, 1.0)
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Literal, overload

from ..channel import Channel
from ..protocols import CATALOGUE, ORACLE_NAMES
from ..protocols.catalogue import Entry
from ..protocols.grr import symbolic_grr
from ..protocols.lh import (
    guard_olh_estimate,
    symbolic_blh,
    symbolic_local_hashing,
    symbolic_olh,
)
from ..protocols.oracles import oracle
from ..protocols.params import check_k
from ..protocols.ss import symbolic_subset_selection
from ..protocols.the import symbolic_the
from ..protocols.ue import symbolic_oue, symbolic_sue, symbolic_unary_encoding
from ..symbolic.channel import SymbolicChannel
from ..symmetric.channel import SymmetricChannel
from ..validation import check_eps
from .docs import EXPLICIT_DOCS

__all__ = ["Kind", "FLAT_NAMES", "constructor", "doctests", "parameters", "alias"]

#: The kinds of channel a flat constructor returns.
Kind = Literal["explicit", "symmetric", "symbolic"]

#: Flat name -> catalogue name, for the frequency oracles (the same names in every kind).
FLAT_NAMES: Mapping[str, str] = {
    spelling: name
    for name in ORACLE_NAMES
    for spelling in (name, *CATALOGUE[name].aliases)
    if spelling.isidentifier()
}

#: The long name of an oracle whose alias spells it out (its documentation's name).
_LONG = {name: spelling for spelling, name in FLAT_NAMES.items() if spelling != name}

#: The symbolic builders, by catalogue name (they take sympy symbols, not floats).
_SYMBOLIC: Mapping[str, Callable[..., SymbolicChannel]] = {
    "grr": symbolic_grr,
    "ss": symbolic_subset_selection,
    "lh": symbolic_local_hashing,
    "blh": symbolic_blh,
    "olh": symbolic_olh,
    "ue": symbolic_unary_encoding,
    "sue": symbolic_sue,
    "oue": symbolic_oue,
    "the": symbolic_the,
}

_RETURNS: Mapping[str, type] = {
    "explicit": Channel,
    "symmetric": SymmetricChannel,
    "symbolic": SymbolicChannel,
}

_TYPES: Mapping[str, Any] = {"int": int, "real": float}

#: The public module of each kind's constructors.
_MODULES: Mapping[str, str] = {
    "explicit": "qifldp.mechanisms",
    "symmetric": "qifldp.symmetric",
    "symbolic": "qifldp.symbolic",
}

#: The symmetric constructors' examples (doctest line, expected output).
_SYMMETRIC_EXAMPLES: Mapping[str, tuple[str, str]] = {
    "grr": ("round(q.bayes_capacity(sym.grr(10**6, 5.0)), 6)  # k e^5/(e^5+k-1)", "148.391284"),
    "ss": ("int(sym.subset_selection(10**6, 2.0).sizes[0])", "119203"),
    "lh": ("sym.local_hashing(1000, 2.0, 5).k", "1000"),
    "blh": ("round(q.ldp_epsilon(sym.blh(1000, 1.5)), 9)", "1.5"),
    "olh": ("sym.olh(10, 1.0).name", "'local_hashing(k=10, eps=1, g=4)'"),
    "ue": ("q.bayes_capacity(sym.unary_encoding(2, 0.75, 0.25))", "1.5"),
    "sue": ("round(q.ldp_epsilon(sym.sue(10**6, 3.0)), 9)", "3.0"),
    "oue": ("round(q.ldp_epsilon(sym.oue(10**6, 50.0)), 9)", "50.0"),
    "the": ("round(q.bayes_capacity(sym.the(3, 2.0, 0.75)), 6)", "1.660402"),
}

_SYMMETRIC_DOC = """{summary}

As a symmetric channel: ``{call}.symmetric()``, no size limit from enumeration.

Parameters
----------
{params}
    As for :func:`qifldp.{name}`.

Returns
-------
SymmetricChannel
    See :meth:`qifldp.protocols.{family}.symmetric`; ``expand()`` equals
    ``qifldp.{name}(...)`` where that fits in memory.

Raises
------
InputTypeError, ParameterError
    As :func:`qifldp.{name}` (no SizeError: nothing is enumerated).

Examples
--------
>>> import qifldp as q, qifldp.symmetric as sym
>>> {example}
{result}
"""


def parameters(entry: Entry, kind: Kind = "explicit") -> list[inspect.Parameter]:
    """The catalogue schema as Python parameters (symbolic: real parameters untyped).

    Examples
    --------
    >>> [str(p) for p in parameters(CATALOGUE["ss"])]
    ['k: int', 'eps: float', 'omega: int | None = None']
    """
    params = []
    for p in entry.parameters:
        annotation = _TYPES[p.kind]
        if kind == "symbolic" and annotation is float:
            annotation = Any
        elif not p.required:
            annotation = annotation | None
        default = inspect.Parameter.empty if p.required else p.default
        params.append(
            inspect.Parameter(
                p.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=default,
                annotation=annotation,
            )
        )
    return params


def alias(
    flat: str,
    signature: inspect.Signature,
    call: Callable[[dict[str, Any]], Any],
    module: str,
    doc: str,
    defaults: bool = False,
) -> Callable[..., Any]:
    """A function named ``flat`` with ``signature`` that calls ``call(arguments)``.

    The arguments are bound to the signature (a TypeError names the function), the
    defaults added when ``defaults`` is true, and passed by name as a dict; ``module``
    is where users (and pickle) find the function.

    Examples
    --------
    >>> f = alias("f", inspect.Signature([inspect.Parameter("x", 1, default=2)]), dict, "m", "")
    >>> f(), f(x=3), str(inspect.signature(f))
    ({}, {'x': 3}, '(x=2)')
    >>> f(1, 2)
    Traceback (most recent call last):
    ...
    TypeError: f() too many positional arguments
    """

    def function(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{flat}() {exc}") from None
        if defaults:
            bound.apply_defaults()
        return call(dict(bound.arguments))

    function.__name__ = function.__qualname__ = flat
    function.__module__ = module
    function.__doc__ = doc
    function.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect
    return function


def _signature(entry: Entry, kind: Kind) -> inspect.Signature:
    """The catalogue schema as a Python signature, returning the kind's channel."""
    return inspect.Signature(parameters(entry, kind), return_annotation=_RETURNS[kind])


def _guard_olh(arguments: Mapping[str, Any]) -> None:
    """The explicit OLH channel is refused from its size estimate, before g is formed
    (the protocol object cannot form g beyond eps = 9000 and says so instead)."""
    guard_olh_estimate(check_k(arguments["k"]), check_eps(arguments["eps"]))


#: Checks of an explicit constructor made before its protocol object is built.
_EXPLICIT_GUARDS: Mapping[str, Callable[[Mapping[str, Any]], None]] = {"olh": _guard_olh}


def _explicit(name: str, arguments: Mapping[str, Any]) -> Channel:
    guard = _EXPLICIT_GUARDS.get(name)
    if guard is not None:
        guard(arguments)
    return oracle(name, **arguments).channel()


def _symmetric(name: str, arguments: Mapping[str, Any]) -> SymmetricChannel:
    return oracle(name, **arguments).symmetric()


def _symbolic(name: str, arguments: Mapping[str, Any]) -> SymbolicChannel:
    return _SYMBOLIC[name](**arguments)


_VIEWS: Mapping[str, Callable[[str, Mapping[str, Any]], Any]] = {
    "explicit": _explicit,
    "symmetric": _symmetric,
    "symbolic": _symbolic,
}


def _doc(kind: Kind, flat: str, name: str, entry: Entry, signature: inspect.Signature) -> str:
    long = _LONG.get(name, name)
    if kind == "explicit":
        return EXPLICIT_DOCS[long]
    if kind == "symbolic":
        return inspect.getdoc(_SYMBOLIC[name]) or ""
    leading = [p for p in entry.names if p in ("k", "eps")]
    keywords = [f"{p}={p}" for p in entry.names if p not in ("k", "eps")]
    example, result = _SYMMETRIC_EXAMPLES[name]
    return _SYMMETRIC_DOC.format(
        summary=EXPLICIT_DOCS[long].splitlines()[0],
        call=f"protocol({', '.join([repr(name), *leading, *keywords])})",
        params=", ".join(entry.names)
        + " : "
        + ", ".join(inspect.formatannotation(p.annotation) for p in signature.parameters.values()),
        name=long,
        family=entry.family.__name__,
        example=example,
        result=result,
    )


@overload
def constructor(kind: Literal["explicit"], flat: str) -> Callable[..., Channel]: ...
@overload
def constructor(kind: Literal["symmetric"], flat: str) -> Callable[..., SymmetricChannel]: ...
@overload
def constructor(kind: Literal["symbolic"], flat: str) -> Callable[..., SymbolicChannel]: ...
def constructor(kind: Kind, flat: str) -> Callable[..., Any]:
    """The flat constructor ``flat`` (a key of :data:`FLAT_NAMES`) for one kind of channel.

    Parameters
    ----------
    kind : {"explicit", "symmetric", "symbolic"}
    flat : str
        ``grr``, ``ss`` / ``subset_selection``, ``lh`` / ``local_hashing``, ``blh``,
        ``olh``, ``ue`` / ``unary_encoding``, ``sue``, ``oue``, ``the``.

    Returns
    -------
    callable
        Named ``flat``, with the catalogue's signature and a docstring; arguments are
        bound to the signature (a TypeError names the function), then passed by name.

    Examples
    --------
    >>> grr = constructor("explicit", "grr")
    >>> float(grr(3, 0.0).matrix[0, 0]) == 1 / 3
    True
    >>> grr(3)
    Traceback (most recent call last):
    ...
    TypeError: grr() missing a required argument: 'eps'
    """
    name = FLAT_NAMES[flat]
    entry = CATALOGUE[name]
    signature = _signature(entry, kind)
    view = _VIEWS[kind]
    doc = _doc(kind, flat, name, entry, signature)
    return alias(flat, signature, lambda arguments: view(name, arguments), _MODULES[kind], doc)


def doctests(namespace: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The docstrings of generated functions, for a face module's ``__test__`` (their
    examples run as doctests of that module; one text per distinct docstring)."""
    seen: dict[str, str] = {}
    for n in names:
        doc = getattr(namespace[n], "__doc__", None)
        if doc and doc not in seen.values():
            seen[n] = doc
    return seen
