"""Protocol specs (``NAME:key=value,...``) and channel files: parsed, checked, built.

A spec names any protocol of :data:`qifldp.protocols.CATALOGUE` (or an alias: any
case, ``-`` and ``_`` alike) and its parameters, read as the catalogue's schema says:
``oue:k=5,eps=1.3``, ``pckv:d=50,ell=4,eps=1``, ``rsfd:ks=3/4,eps=1`` (a list of
integers: items separated by ``/``, a space or ``x``, as in ``ks=3x4``),
``rr:P=0.9/0.1;0.1/0.9`` (a matrix: rows separated by ``;``). The 2x2 bit channels
``sue_bit``, ``oue_bit`` and ``the_bit`` are accepted too.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..channel import Channel
from ..channel_io import read_channel
from ..errors import InputTypeError, QifldpError, SizeError
from ..protocols import oue_bit, sue_bit, the_bit
from ..protocols.base import refuse_unknown
from ..protocols.catalogue import ALIASES, CATALOGUE, Parameter, lookup, normalize_name, protocol
from ..protocols.oracles import ORACLE_NAMES
from ..protocols.params import OLH_MAX_EPS, olh_g, ss_default_omega
from .defaults import CLI_MAX_EXPLICIT_ENTRIES
from .errors import UsageError

__all__ = [
    "PROTOCOLS",
    "BIT_CHANNELS",
    "CHANNEL_FILE_SUFFIXES",
    "parse_spec",
    "build",
    "is_channel_file",
]

#: The 2x2 bit channels of unary encoding and thresholding (rows: input bit 0/1): not
#: protocols of the catalogue (no domain), accepted in specs all the same.
BIT_CHANNELS: Mapping[str, tuple[Callable[..., Channel], tuple[Parameter, ...]]] = {
    "sue_bit": (sue_bit, (Parameter("eps", "real", rule="finite, >= 0"),)),
    "oue_bit": (oue_bit, (Parameter("eps", "real", rule="finite, >= 0"),)),
    "the_bit": (
        the_bit,
        (
            Parameter("eps", "real", rule="finite, >= 0"),
            Parameter("theta", "real", rule="threshold in (0.5, 1)"),
        ),
    ),
}

#: Every protocol name a spec may use (the catalogue's names, then the bit channels);
#: the catalogue's aliases are accepted too.
PROTOCOLS: tuple[str, ...] = (*CATALOGUE, *BIT_CHANNELS)

#: A list of integers written with ``x`` between its items (``ks=3x4``).
_TIMES = re.compile(r"(?<=\d)\s*[x×]\s*(?=\d)", re.IGNORECASE)


def _schema(name: str) -> tuple[str, tuple[Parameter, ...], Mapping[str, Any]]:
    """The canonical name, the parameters and the fixed parameters of a spec's name."""
    bit = BIT_CHANNELS.get(normalize_name(name))
    if bit is not None:
        return normalize_name(name), bit[1], {}
    if normalize_name(name) not in ALIASES:
        msg = f"unknown protocol {name!r}; known protocols: {', '.join(PROTOCOLS)}"
        raise UsageError(msg)
    entry, fixed = lookup(name)
    return entry.name, entry.parameters, fixed


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME:key=value,...`` into the protocol name and its parameters.

    The values are read by the protocol's schema in :data:`qifldp.protocols.CATALOGUE`
    (integers, numbers, names, lists ``3/4`` or ``3x4``, matrices ``0.9/0.1;0.1/0.9``);
    a parameter the protocol does not take is kept as text (refused when the spec is
    resolved). The name is returned as written, in lower case.

    Raises
    ------
    InputTypeError
        ``spec`` is not a string.
    UsageError
        An unknown protocol, an item that is not ``key=value``, or a key given twice.
    ParameterError
        A value that is not of its parameter's kind (the message names the parameter).

    Examples
    --------
    >>> parse_spec("the:k=4,eps=1,theta=0.7")
    ('the', {'k': 4, 'eps': 1.0, 'theta': 0.7})
    >>> parse_spec("rsfd:ks=3x4,eps=1")
    ('rsfd', {'ks': (3, 4), 'eps': 1.0})
    >>> parse_spec("oue:k=3,k=4")
    Traceback (most recent call last):
    ...
    qifldp.cli.errors.UsageError: protocol spec 'oue:k=3,k=4': parameter k is given twice
    """
    if not isinstance(spec, str):
        msg = f"spec must be a string NAME:key=value,..., got {type(spec).__name__}"
        raise InputTypeError(msg)
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    _, schema, _ = _schema(name)
    kinds = {p.name: p for p in schema}
    params: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            msg = f"protocol spec {spec!r}: expected key=value, got {item!r}"
            raise UsageError(msg)
        if key in params:
            msg = f"protocol spec {spec!r}: parameter {key} is given twice"
            raise UsageError(msg)
        param = kinds.get(key)
        if param is None:
            params[key] = text.strip()
            continue
        if param.kind == "ints":
            text = _TIMES.sub("/", text)
        params[key] = param.parse(text.strip())
    return name, params


def _log10_outputs(name: str, params: dict[str, Any]) -> float | None:
    """log10 of the number of outputs of a frequency oracle's explicit channel (None:
    not a frequency oracle, or parameters the protocol will refuse), without building it."""
    if name.endswith("_bit"):
        return math.log10(2)
    if name not in ORACLE_NAMES:
        return None
    k = int(params["k"])
    if k < 2:
        return None
    if name == "grr":
        return math.log10(k)
    if name in ("ue", "sue", "oue", "the"):
        return k * math.log10(2)
    if name in ("blh", "olh", "lh"):
        g: float
        if name == "blh":
            g = 2
        elif name == "olh":
            eps = float(params["eps"])
            g = olh_g(eps) if eps <= OLH_MAX_EPS else math.inf
        else:
            g = int(params["g"])
        return (k + 1) * math.log10(g) if g >= 2 else None
    omega = params.get("omega")
    if omega is None:
        omega = ss_default_omega(k, float(params["eps"]))
    omega = int(omega)
    if not 1 <= omega < k:
        return None
    ln_comb = math.lgamma(k + 1) - math.lgamma(omega + 1) - math.lgamma(k - omega + 1)
    return ln_comb / math.log(10)


@dataclass
class _Spec:
    """A parsed protocol spec: how to build its channels, and the size of the explicit one."""

    spec: str
    name: str
    params: dict[str, Any]
    #: builds the explicit channel
    make: Callable[[], Any]
    #: builds the symmetric channel (None: the protocol has none)
    lumped: Callable[[], Any] | None
    log10_entries: float | None
    #: the channel read from a file (``spec`` is then its path)
    channel: Channel | None = None
    #: builds the protocol object (None: a channel file or a 2x2 bit channel)
    make_protocol: Callable[[], Any] | None = None

    def explicit(self) -> Channel:
        if self.channel is not None:
            return self.channel
        return self.make()

    def symmetric(self) -> Any:
        if self.channel is not None:
            msg = (
                f"channel file {self.spec!r} has no symmetric (large-k) representation: "
                "the other protocol is too large for an explicit channel"
            )
            raise UsageError(msg)
        if self.lumped is None:
            msg = f"protocol {self.name!r} has no symmetric (large-k) representation"
            raise UsageError(msg)
        return self.lumped()

    def protocol(self) -> Any:
        """The protocol object of :func:`qifldp.protocol` (None: a channel file or a 2x2 bit
        channel, which have none)."""
        return None if self.make_protocol is None else self.make_protocol()

    def explicit_fits(self, max_entries: float = CLI_MAX_EXPLICIT_ENTRIES) -> bool:
        return self.log10_entries is not None and self.log10_entries <= math.log10(max_entries)

    def n_outputs(self) -> float:
        """Number of explicit outputs (a float: may be astronomically large)."""
        if self.channel is not None:
            return float(self.channel.shape[1])
        if self.log10_entries is None:
            return math.inf
        if self.name not in ORACLE_NAMES and not self.name.endswith("_bit"):
            if self.lumped is not None:  # counted on its symmetric channel by _resolve
                return 10 ** (self.log10_entries - math.log10(int(self.params["k"])))
            return float(self.make().shape[1])  # a composite: built by _resolve
        rows = 2 if self.name.endswith("_bit") else int(self.params["k"])
        return 10 ** (self.log10_entries - math.log10(rows))

    def auto(self, max_entries: float = CLI_MAX_EXPLICIT_ENTRIES) -> Any:
        """Explicit when it fits ``max_entries`` (or has no symmetric form), else symmetric."""
        if self.lumped is not None and not self.explicit_fits(max_entries):
            return self.symmetric()
        try:
            return self.explicit()
        except SizeError:
            if self.lumped is None:
                raise
            return self.symmetric()

    def auto_or_none(self, max_entries: float = CLI_MAX_EXPLICIT_ENTRIES) -> Any:
        """:meth:`auto`, or None for a protocol whose explicit channel the size rule refuses
        and that has no symmetric channel (its closed forms and the restriction route
        stand in for it); a channel file or a bit channel raises as :meth:`auto` does."""
        try:
            return self.auto(max_entries)
        except SizeError:
            if self.make_protocol is None:
                raise
            return None


#: A spec with one of these endings is a channel file (read by :func:`qifldp.read_channel`).
CHANNEL_FILE_SUFFIXES: tuple[str, ...] = (".csv", ".json", ".npy")


def is_channel_file(spec: str) -> bool:
    """True when a spec names a channel file rather than a protocol.

    A spec is a file when it ends in .csv, .json or .npy (any case), or when it
    is an existing file whose name is not a protocol name.

    Examples
    --------
    >>> is_channel_file("mine.csv"), is_channel_file("oue:k=4,eps=1")
    (True, False)
    """
    if not isinstance(spec, str):
        msg = f"spec must be a string (a protocol spec or a file path), got {type(spec).__name__}"
        raise InputTypeError(msg)
    if spec.strip().lower().endswith(CHANNEL_FILE_SUFFIXES):
        return True
    name = normalize_name(spec)
    known = name in ALIASES or name in BIT_CHANNELS
    return ":" not in spec and not known and Path(spec).is_file()


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _file_spec(spec: str, renormalize: bool = False) -> _Spec:
    """A channel file as a spec: read now (exit 2 with one line when it cannot be read)."""
    if Path(spec).is_dir():
        msg = f"channel file {spec!r}: is a directory, not a file"
        raise UsageError(msg)
    try:
        C = read_channel(spec, renormalize=renormalize)
    except FileNotFoundError:
        msg = f"channel file {spec!r}: no such file"
        raise UsageError(msg) from None
    except IsADirectoryError:
        msg = f"channel file {spec!r}: is a directory, not a file"
        raise UsageError(msg) from None
    except OSError as exc:
        msg = f"channel file {spec!r}: cannot be read ({_one_line(exc.strerror or exc)})"
        raise UsageError(msg) from None
    except (ValueError, TypeError) as exc:
        msg = _one_line(exc)
        if spec not in msg:
            msg = f"channel file {spec!r}: {msg}"
        raise UsageError(msg) from None
    log10 = math.log10(max(C.matrix.size, 1))
    return _Spec(spec, Path(spec).name, {}, lambda: C, None, log10, channel=C)


def _lumpable(name: str, params: Mapping[str, Any]) -> bool:
    """Whether the protocol has a symmetric channel at these parameters (its object's
    :attr:`~qifldp.protocols.Protocol.lumpable`: dBitFlipPM has one for some b, d only).
    Parameters the protocol refuses count as lumpable: asking for either channel then
    raises the protocol's own error, not a missing symmetric form."""
    try:
        return bool(protocol(name, **params).lumpable)
    except QifldpError:
        return True


def _resolve(spec: str, *, renormalize: bool = False, **defaults: Any) -> _Spec:
    """Parse and check a spec (names of parameters, none missing); build no channel.

    ``defaults`` fill the parameters the protocol takes and the spec does not give
    (``compare``'s ``--k`` and ``--eps``). A channel file (:func:`is_channel_file`) is
    read instead (``defaults`` do not apply).
    """
    if is_channel_file(spec):
        return _file_spec(spec, renormalize)
    name, params = parse_spec(spec)
    canonical, schema, fixed = _schema(name)
    accepted = [p.name for p in schema]
    for key, val in defaults.items():
        if key in accepted and key not in params and key not in fixed and val is not None:
            params[key] = val
    refuse_unknown(
        params,
        accepted,
        UsageError,
        lambda got: f"protocol {name!r} takes {', '.join(accepted)}; unknown parameter(s): {got}",
    )
    missing = [p.name for p in schema if p.required and p.name not in params]
    if missing:
        msg = f"protocol {name!r} needs parameter(s): {', '.join(missing)}"
        raise UsageError(msg)
    lumped: Callable[[], Any] | None = None
    make_protocol: Callable[[], Any] | None = None
    if canonical in BIT_CHANNELS:
        ctor = BIT_CHANNELS[canonical][0]

        def make() -> Any:
            return ctor(**params)

    else:

        def make_protocol() -> Any:
            return protocol(name, **params)

        def make() -> Any:
            return protocol(name, **params).channel()

        family = CATALOGUE[canonical].family
        if hasattr(family, "symmetric") and _lumpable(name, params):

            def lumped() -> Any:
                return protocol(name, **params).symmetric()

    if canonical not in ORACLE_NAMES and canonical not in BIT_CHANNELS:
        if lumped is not None:
            # a symmetric channel counts the explicit outputs (L-GRR at k = 10^4: its
            # 10^4 x 10^4 cascade is not multiplied out before a route asks for it)
            try:
                log10 = math.log10(int(params["k"])) + lumped().log10_n_explicit_outputs()
            except (QifldpError, KeyError, TypeError, ValueError):
                log10 = None  # the protocol will say what is wrong
            if log10 is not None:
                return _Spec(spec, canonical, params, make, lumped, log10, None, make_protocol)
        # a composite protocol: no size formula, its channel (size-guarded by the
        # library) is built now and kept
        try:
            C = make()
        except SizeError:
            return _Spec(spec, canonical, params, make, lumped, None, None, make_protocol)
        log10 = math.log10(C.matrix.size)
        return _Spec(spec, canonical, params, lambda: C, lumped, log10, None, make_protocol)
    try:
        log10_out = _log10_outputs(canonical, params)
        rows = 2 if canonical in BIT_CHANNELS else int(params["k"])
        log10_entries = None if log10_out is None else math.log10(rows) + log10_out
    except (ValueError, TypeError, OverflowError, KeyError):
        log10_entries = None  # the protocol will say what is wrong
    return _Spec(spec, canonical, params, make, lumped, log10_entries, None, make_protocol)


def build(
    spec: str, kind: str = "explicit", max_entries: int = CLI_MAX_EXPLICIT_ENTRIES, **defaults: Any
) -> Any:
    """Build the channel of a protocol spec; ``defaults`` fill missing parameters.

    ``kind`` is "explicit" (a ``Channel``), "symmetric" (``qifldp.symmetric``) or
    "auto" (explicit when it has at most ``max_entries`` entries, else symmetric
    where the protocol has a symmetric form).

    Examples
    --------
    >>> build("grr:k=3,eps=0").shape
    (3, 3)
    >>> type(build("oue:k=1000,eps=1", kind="auto")).__name__
    'SymmetricChannel'
    >>> type(build("grr:k=10000,eps=1", kind="auto")).__name__  # 10^8 entries: too many
    'SymmetricChannel'
    """
    if kind not in ("explicit", "symmetric", "auto"):
        msg = f"kind must be 'explicit', 'symmetric' or 'auto', got {kind!r}"
        raise UsageError(msg)
    s = _resolve(spec, **defaults)
    if kind == "explicit":
        return s.explicit()
    if kind == "symmetric":
        return s.symmetric()
    return s.auto(max_entries)


def _check_renormalize(args: argparse.Namespace, specs: Sequence[str]) -> None:
    if getattr(args, "renormalize", False) and not any(is_channel_file(s) for s in specs):
        msg = "--renormalize applies to channel files (.csv, .json, .npy) only; none was given"
        raise UsageError(msg)
