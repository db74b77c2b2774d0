"""Protocol specs (``NAME:key=value,...``) and channel files: parsed, checked, built."""

from __future__ import annotations

import argparse
import importlib
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import symmetric
from ..channel import Channel
from ..channel_io import read_channel
from ..errors import InputTypeError, SizeError
from ..protocols.base import refuse_unknown
from ..protocols.params import OLH_MAX_EPS, olh_g, ss_default_omega
from .defaults import CLI_MAX_EXPLICIT_ENTRIES
from .errors import UsageError

__all__ = ["PROTOCOLS", "CHANNEL_FILE_SUFFIXES", "parse_spec", "build", "is_channel_file"]

#: Protocol name -> (module, function) of its constructor; aliases share a target.
PROTOCOLS: dict[str, tuple[str, str]] = {
    "grr": ("qifldp.mechanisms", "grr"),
    "ss": ("qifldp.mechanisms", "subset_selection"),
    "subset_selection": ("qifldp.mechanisms", "subset_selection"),
    "lh": ("qifldp.mechanisms", "local_hashing"),
    "local_hashing": ("qifldp.mechanisms", "local_hashing"),
    "blh": ("qifldp.mechanisms", "blh"),
    "olh": ("qifldp.mechanisms", "olh"),
    "ue": ("qifldp.mechanisms", "unary_encoding"),
    "unary_encoding": ("qifldp.mechanisms", "unary_encoding"),
    "sue": ("qifldp.mechanisms", "sue"),
    "oue": ("qifldp.mechanisms", "oue"),
    "the": ("qifldp.mechanisms", "the"),
    "sue_bit": ("qifldp.mechanisms", "sue_bit"),
    "oue_bit": ("qifldp.mechanisms", "oue_bit"),
    "the_bit": ("qifldp.mechanisms", "the_bit"),
}

_INT_PARAMS = {"k", "omega", "g", "d", "ell"}


def _constructor(name: str) -> Callable[..., Channel]:
    if name not in PROTOCOLS:
        known = ", ".join(sorted(PROTOCOLS))
        msg = f"unknown protocol {name!r}; known protocols: {known}"
        raise UsageError(msg)
    module, func = PROTOCOLS[name]
    return getattr(importlib.import_module(module), func)


def _value(key: str, text: str) -> Any:
    kind = "an integer" if key in _INT_PARAMS else "a number"
    try:
        val = int(text) if key in _INT_PARAMS else float(text)
    except ValueError:
        msg = f"parameter {key} must be {kind}, got {text!r}"
        raise UsageError(msg) from None
    if isinstance(val, float) and math.isnan(val):
        msg = f"parameter {key} must be {kind}, got {text!r} (not a number)"
        raise UsageError(msg)
    return val


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME:key=value,...`` into the protocol name and its parameters.

    Raises
    ------
    InputTypeError
        ``spec`` is not a string.
    UsageError
        An item is not ``key=value``, a value is not a number (NaN included), or
        a key is repeated.

    Examples
    --------
    >>> parse_spec("the:k=4,eps=1,theta=0.7")
    ('the', {'k': 4, 'eps': 1.0, 'theta': 0.7})
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
        params[key] = _value(key, text.strip())
    return name, params


def _log10_outputs(func: str, params: dict[str, Any]) -> float | None:
    """log10 of the number of outputs of the explicit channel, without building it."""
    if func.endswith("_bit"):
        return math.log10(2)
    k = int(params["k"])
    if k < 2:
        return None
    if func == "grr":
        return math.log10(k)
    if func in ("unary_encoding", "sue", "oue", "the"):
        return k * math.log10(2)
    if func in ("blh", "olh", "local_hashing"):
        g: float
        if func == "blh":
            g = 2
        elif func == "olh":
            eps = float(params["eps"])
            g = olh_g(eps) if eps <= OLH_MAX_EPS else math.inf
        else:
            g = int(params["g"])
        return (k + 1) * math.log10(g) if g >= 2 else None
    if func == "subset_selection":
        omega = params.get("omega")
        if omega is None:
            omega = ss_default_omega(k, float(params["eps"]))
        omega = int(omega)
        if not 1 <= omega < k:
            return None
        ln_comb = math.lgamma(k + 1) - math.lgamma(omega + 1) - math.lgamma(k - omega + 1)
        return ln_comb / math.log(10)
    return None


@dataclass
class _Spec:
    """A parsed protocol spec: its constructors and the size of its explicit channel."""

    spec: str
    name: str
    params: dict[str, Any]
    ctor: Callable[..., Any]
    lumped: Callable[..., Any] | None
    log10_entries: float | None
    #: the channel read from a file (``spec`` is then its path)
    channel: Channel | None = None

    def explicit(self) -> Channel:
        if self.channel is not None:
            return self.channel
        return self.ctor(**self.params)

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
        return self.lumped(**self.params)

    def explicit_fits(self, max_entries: float = CLI_MAX_EXPLICIT_ENTRIES) -> bool:
        return self.log10_entries is not None and self.log10_entries <= math.log10(max_entries)

    def n_outputs(self) -> float:
        """Number of explicit outputs (a float: may be astronomically large)."""
        if self.channel is not None:
            return float(self.channel.shape[1])
        if self.log10_entries is None:
            return math.inf
        rows = 2 if self.ctor.__name__.endswith("_bit") else int(self.params["k"])
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
    return ":" not in spec and spec.strip().lower() not in PROTOCOLS and Path(spec).is_file()


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


def _resolve(spec: str, *, renormalize: bool = False, **defaults: Any) -> _Spec:
    """Parse and check a spec (names of parameters, none missing); build nothing.

    A channel file (:func:`is_channel_file`) is read instead (``defaults`` do not apply).
    """
    if is_channel_file(spec):
        return _file_spec(spec, renormalize)
    name, params = parse_spec(spec)
    ctor = _constructor(name)
    accepted = inspect.signature(ctor).parameters
    for key, val in defaults.items():
        if key in accepted and key not in params and val is not None:
            params[key] = val
    refuse_unknown(
        params,
        accepted,
        UsageError,
        lambda got: f"protocol {name!r} takes {', '.join(accepted)}; unknown parameter(s): {got}",
    )
    missing = [
        p.name
        for p in accepted.values()
        if p.default is inspect.Parameter.empty and p.name not in params
    ]
    if missing:
        msg = f"protocol {name!r} needs parameter(s): {', '.join(missing)}"
        raise UsageError(msg)

    lumped = getattr(symmetric, ctor.__name__, None)
    try:
        log10_rows = math.log10(2 if ctor.__name__.endswith("_bit") else int(params["k"]))
        log10_out = _log10_outputs(ctor.__name__, params)
        log10_entries = None if log10_out is None else log10_rows + log10_out
    except (ValueError, TypeError, OverflowError, KeyError):
        log10_entries = None  # the constructor will say what is wrong
    return _Spec(spec, name, params, ctor, lumped, log10_entries)


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
