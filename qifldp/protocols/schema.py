"""The schema of a catalogue entry: its parameters (:class:`Parameter`) and the :class:`Entry`.

:mod:`qifldp.protocols.catalogue` holds the entries (:data:`~qifldp.protocols.CATALOGUE`);
this module says what an entry is, how its parameters are read from text (a command-line
spec's ``key=value`` items) and written back, and how a call binds to them.

>>> from qifldp.protocols import CATALOGUE
>>> CATALOGUE["pckv"].parse({"d": "50", "ell": "4", "eps": "1"})
{'d': 50, 'ell': 4, 'eps': 1.0}
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import InputTypeError, ParameterError
from ..validation import parse_whole_number
from .base import refuse_unknown

__all__ = ["Entry", "Parameter", "ParameterKind", "REQUIRED", "normalize_name"]

#: The kinds of parameter values (what :meth:`Parameter.parse` reads from text):
#: ``int``, ``real``, ``choice`` (one of ``choices``), ``ints`` (a tuple of ints),
#: ``names`` (one name of ``choices``, or one per attribute), ``matrix`` (rows of
#: reals) and ``distributions`` (one row of reals per attribute, lengths may differ).
ParameterKind = Literal["int", "real", "choice", "ints", "names", "matrix", "distributions"]


class _Required:
    """The default of a parameter that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: Marks a parameter without a default.
REQUIRED: Any = _Required()

#: In text (command-line specs), items of a tuple or a row are separated by "/" or spaces
#: (the spec's own separator is the comma); rows of a matrix by ";".
_ITEM = re.compile(r"[/\s]+")


def _text_items(name: str, text: str) -> list[str]:
    items = [t for t in _ITEM.split(text.strip()) if t]
    if not items:
        msg = f"parameter {name} must not be empty, got {text!r}"
        raise ParameterError(msg)
    return items


def _parse_int(name: str, text: str) -> int:
    try:
        return parse_whole_number(text)
    except ValueError as exc:
        msg = f"parameter {name} must be an integer: {exc}"
        raise ParameterError(msg) from None


def _parse_real(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):
        msg = f"parameter {name} must be a number, got {text!r}"
        raise ParameterError(msg)
    return value


@dataclass(frozen=True)
class Parameter:
    """One parameter of a catalogue entry.

    Attributes
    ----------
    name : str
        As the protocol's constructor names it (``k``, ``eps``, ``ell`` ...).
    kind : str
        One of :data:`ParameterKind`: how the value is read from text.
    default : object
        :data:`REQUIRED` when it must be given; ``None`` when the protocol computes
        it (the rule says how).
    rule : str
        What a valid value is, in words (``"integer >= 2"``).
    choices : tuple of str
        The allowed names of a ``choice`` or ``names`` parameter.

    Examples
    --------
    >>> from qifldp.protocols import CATALOGUE
    >>> k = CATALOGUE["grr"].parameter("k")
    >>> k.required, k.parse("5"), k.format(5)
    (True, 5, '5')
    >>> CATALOGUE["spl"].parameter("ks").parse("2/3/4")
    (2, 3, 4)
    >>> CATALOGUE["rr"].parameter("P").parse("0.9/0.1; 0.1/0.9")
    ((0.9, 0.1), (0.1, 0.9))
    """

    name: str
    kind: ParameterKind
    default: Any = REQUIRED
    rule: str = ""
    choices: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        """True when the parameter has no default."""
        return self.default is REQUIRED

    def parse(self, text: str) -> Any:
        """The value written as ``text`` (as in a command-line spec).

        Raises
        ------
        ParameterError
            ``text`` is not a value of this kind (the message names the parameter).
        """
        name, kind = self.name, self.kind
        if not isinstance(text, str):
            msg = f"parameter {name} must be given as text, got {type(text).__name__}"
            raise InputTypeError(msg)
        if kind == "int":
            return _parse_int(name, text.strip())
        if kind == "real":
            return _parse_real(name, text.strip())
        if kind == "choice":
            return text.strip().lower()
        if kind == "ints":
            return tuple(_parse_int(name, t) for t in _text_items(name, text))
        if kind == "names":
            names = [t.lower() for t in _text_items(name, text)]
            return names[0] if len(names) == 1 else tuple(names)
        rows = [row for row in text.split(";") if row.strip()]
        if not rows:
            msg = f"parameter {name} must not be empty, got {text!r}"
            raise ParameterError(msg)
        return tuple(tuple(_parse_real(name, t) for t in _text_items(name, row)) for row in rows)

    def format(self, value: Any) -> str:
        """``value`` as text that :meth:`parse` reads back.

        Examples
        --------
        >>> from qifldp.protocols import CATALOGUE
        >>> CATALOGUE["rsrfd"].parameter("priors").format([[0.8, 0.2], [0.5, 0.5]])
        '0.8/0.2;0.5/0.5'
        """
        if self.kind in ("ints", "names") and not isinstance(value, str):
            return "/".join(str(v) for v in value)
        if self.kind in ("matrix", "distributions"):
            return ";".join("/".join(repr(float(v)) for v in row) for row in value)
        return str(value)

    def describe(self) -> str:
        """One line for listings: name, default and rule.

        Examples
        --------
        >>> from qifldp.protocols import CATALOGUE
        >>> CATALOGUE["pckv"].parameter("mechanism").describe()
        "mechanism = 'ue': one of ue, grr"
        """
        head = self.name if self.required else f"{self.name} = {self.default!r}"
        return f"{head}: {self.rule}" if self.rule else head


@dataclass(frozen=True)
class Entry:
    """One protocol of the catalogue.

    Attributes
    ----------
    name : str
        The protocol's name (lower case, ``_`` between words).
    aliases : tuple of str
        Other names :func:`protocol` accepts (spelled as shown; any case, ``-`` or ``_``).
    parameters : tuple of Parameter
        The schema, in the order of the positional arguments.
    reference : str
        Where the protocol is defined.
    family : type
        The class of the frozen object :func:`protocol` returns.
    summary : str
        One line on what the protocol does.
    example : mapping
        Small documented parameters (the tests build every entry with them).
    presets : mapping
        Alias -> the parameters it fixes (``pckv-grr`` -> ``{"mechanism": "grr"}``).
    positional : tuple of str
        The names that positional arguments bind to (default: the parameters' order).

    Examples
    --------
    >>> from qifldp.protocols import CATALOGUE
    >>> e = CATALOGUE["pckv"]
    >>> e.name, e.aliases, e.family.__name__
    ('pckv', ('pckv-ue', 'pckv-grr'), 'PCKV')
    >>> e.build(**e.example).channel().shape
    (5, 27)
    """

    name: str
    aliases: tuple[str, ...]
    parameters: tuple[Parameter, ...]
    reference: str
    family: type
    summary: str
    example: Mapping[str, Any]
    builder: Callable[..., Any] = field(repr=False, compare=False)
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    positional: tuple[str, ...] = ()
    #: Names accepted besides the parameters (refused by the builder with its own message).
    extra: tuple[str, ...] = ()
    #: False: the builder refuses unknown names itself, with its own message (the
    #: frequency oracles); a missing parameter is refused here either way.
    check_names: bool = True

    def parameter(self, name: str) -> Parameter:
        """The parameter called ``name`` (KeyError when there is none)."""
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """The parameters' names, in order."""
        return tuple(p.name for p in self.parameters)

    @property
    def required(self) -> tuple[str, ...]:
        """The names of the parameters that must be given."""
        return tuple(p.name for p in self.parameters if p.required)

    def signature(self) -> str:
        """The call as text, defaults shown: ``pckv(d, eps, ell=1, mechanism='ue', ...)``."""
        shown = [p.name if p.required else f"{p.name}={p.default!r}" for p in self.parameters]
        return f"{self.name}({', '.join(shown)})"

    def bind(self, args: Sequence[Any], params: Mapping[str, Any]) -> dict[str, Any]:
        """The keyword parameters of a call ``protocol(name, *args, **params)``.

        Raises
        ------
        InputTypeError
            Too many positional arguments, a parameter given twice, an unknown
            parameter, or a required one missing.
        """
        order = self.positional or self.names
        if len(args) > len(order):
            msg = (
                f"protocol {self.name!r} takes at most {len(order)} positional arguments "
                f"({', '.join(order)}), got {len(args)}"
            )
            raise InputTypeError(msg)
        bound = dict(zip(order, args, strict=False))
        twice = sorted(set(bound) & set(params))
        if twice:
            msg = f"protocol {self.name!r} got {', '.join(twice)} both by position and by name"
            raise InputTypeError(msg)
        bound.update(params)
        return bound

    def check(self, params: Mapping[str, Any]) -> None:
        """Refuse unknown and missing parameters (InputTypeError naming them)."""
        if self.check_names:
            allowed = (*self.names, *self.extra)
            refuse_unknown(
                params,
                allowed,
                InputTypeError,
                lambda got: f"protocol {self.name!r} takes {', '.join(self.names)}; got {got}",
            )
        missing = [name for name in self.required if name not in params]
        if missing:
            msg = f"protocol {self.name!r} needs {', '.join(missing)} ({self.signature()})"
            raise InputTypeError(msg)

    def build(self, **params: Any) -> Any:
        """The frozen protocol object from keyword parameters (checked against the schema)."""
        self.check(params)
        return self.builder(**params)

    def parse(self, texts: Mapping[str, str]) -> dict[str, Any]:
        """Parameters written as text (a command-line spec's ``key=value`` items), read.

        Unknown names are left to :meth:`check` (through :func:`protocol`).

        Examples
        --------
        >>> from qifldp.protocols import CATALOGUE
        >>> CATALOGUE["rsfd"].parse({"ks": "2/3", "eps": "1", "randomizer": "OUE-Z"})
        {'ks': (2, 3), 'eps': 1.0, 'randomizer': 'oue-z'}
        """
        known = {p.name: p for p in self.parameters}
        return {
            key: known[key].parse(text) if key in known else text for key, text in texts.items()
        }

    def spec(self, **params: Any) -> str:
        """A command-line spec ``name:key=value,...`` of these parameters.

        Examples
        --------
        >>> from qifldp.protocols import CATALOGUE
        >>> CATALOGUE["spl"].spec(ks=(2, 3), eps=1.0)
        'spl:ks=2/3,eps=1.0'
        """
        known = {p.name: p for p in self.parameters}
        items = [f"{k}={known[k].format(v) if k in known else v}" for k, v in params.items()]
        return f"{self.name}:{','.join(items)}"


def normalize_name(name: str) -> str:
    """A protocol name as the catalogue keys it: lower case, ``-`` (and spaces) as ``_``.

    Examples
    --------
    >>> from qifldp.protocols import CATALOGUE
    >>> normalize_name("PCKV-GRR"), normalize_name(" Bipartite-RR3 ")
    ('pckv_grr', 'bipartite_rr3')
    """
    return re.sub(r"[-\s]+", "_", name.strip().lower())
