"""The ``qifldp`` command line: quick answers about LDP protocols as channels.

Exit status: 0 done, 1 a computation could not give an answer (a solver or a
certificate failed; the message says which), 2 bad arguments. With ``--json``,
stdout is one JSON document; an infinite or undefined number is ``null``.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .channel import Channel
from .errors import InputTypeError, QifldpError, SizeError
from .protocols.base import refuse_unknown
from .protocols.params import OLH_MAX_EPS, olh_g, ss_default_omega

__all__ = [
    "main",
    "parse_spec",
    "build",
    "PROTOCOLS",
    "CLI_MAX_EXPLICIT_ENTRIES",
    "CLI_MAX_ORBIT_VARIABLES",
    "CLI_MAX_EXPLICIT_WITNESS",
    "CAPACITY_MARGIN",
    "DEFAULT_TIME_LIMIT",
    "CHANNEL_FILE_SUFFIXES",
    "is_channel_file",
]

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
DEFAULT_COMPARE = ("grr", "ss", "blh", "olh", "sue", "oue")

#: The command line builds an explicit channel only up to this many entries
#: (4 x 10^6 float64 = 32 MB, well under a second); beyond, it answers with the
#: symmetric channel (``qifldp.symmetric``) where the protocol has one.  The
#: library's own limit (:data:`qifldp.MAX_ENTRIES`, 10^8) still applies below it.
CLI_MAX_EXPLICIT_ENTRIES: int = 4_000_000

#: ``compare`` and ``refines`` skip an orbit LP (``qifldp.symmetric.refines``) of
#: more variables (about 2 |sizes(A)| |sizes(B)|): 2 x 10^5 take about 2 s, the
#: 2 x 10^6 of UE at k = 1000 take 16 s and more (``--max-lp-variables`` to change).
CLI_MAX_ORBIT_VARIABLES: int = 200_000

#: An orbit LP equation costs HiGHS about as much as this many variables: the
#: size rule also skips LPs of more than CLI_MAX_ORBIT_VARIABLES / 40 equations
#: (GRR vs UE at k = 10^4, 20,000 variables and equations, takes 2 s).
ORBIT_EQUATION_WEIGHT: int = 40

#: ``compare`` skips an explicit refinement whose witness W would have more
#: entries (|Y_A| |Y_B|, before merging proportional columns).
CLI_MAX_EXPLICIT_WITNESS: int = 1_000_000

#: Relative margin of the capacity shortcut of ``compare``: ML(B) > ML(A) (1 +
#: CAPACITY_MARGIN) proves A ⋢ B (the identity gain under the uniform prior
#: gains (ML(B) - ML(A)) / k > 0 more from B).  The capacities are computed to a
#: relative error of order 1e-13 (log space, sums of at most 10^6 terms), so
#: 1e-8 is far above the rounding: the shortcut is a certified statement.
CAPACITY_MARGIN: float = 1e-8

#: Default seconds per refinement pair in ``compare`` (``--time-limit``).
DEFAULT_TIME_LIMIT: float = 10.0

_UNITS = {
    "bayes_capacity": "× (multiplicative Bayes capacity ML = sum_y max_x C[x, y]; 1 = no leak)",
    "asr": "probability (Bayes-optimal one-try guess, uniform prior: ML / k)",
    "ldp_epsilon": "nats (ln of the largest likelihood ratio; inf when unbounded)",
    "min_entropy_leakage": "bits (log2 ML: min-entropy leakage under the uniform prior)",
}


class UsageError(QifldpError, ValueError):
    """A command-line argument is malformed (exit status 2)."""


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
    qifldp.cli.UsageError: protocol spec 'oue:k=3,k=4': parameter k is given twice
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
    from .channel_io import read_channel

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
    from . import symmetric

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


def _jsonable(x: Any) -> Any:
    """JSON-ready copy of ``x``: numpy scalars and arrays to Python, inf and NaN to None."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    if x is None or isinstance(x, str):
        return x
    return str(x)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _leak_row(C: Any) -> dict[str, Any]:
    from . import measures

    return {
        "bayes_capacity": float(measures.bayes_capacity(C)),
        "asr": float(measures.asr(C)),
        "ldp_epsilon": float(measures.ldp_epsilon(C)),
        "min_entropy_leakage": float(measures.min_entropy_leakage(C)),
    }


def _describe(C: Any) -> str:
    if isinstance(C, Channel):
        return f"explicit channel, {C.shape[0]} x {C.shape[1]}"
    return f"symmetric (lumped) channel, k = {C.k}, {C.sizes.size} output size class(es)"


def _check_renormalize(args: argparse.Namespace, specs: Sequence[str]) -> None:
    if getattr(args, "renormalize", False) and not any(is_channel_file(s) for s in specs):
        msg = "--renormalize applies to channel files (.csv, .json, .npy) only; none was given"
        raise UsageError(msg)


def _cmd_leak(args: argparse.Namespace) -> dict[str, Any]:
    _check_renormalize(args, [args.spec])
    C = _resolve(args.spec, renormalize=args.renormalize).auto()
    row = _leak_row(C)
    desc = _describe(C) + (", read from a file" if is_channel_file(args.spec) else "")
    out = {"protocol": args.spec, **row, "channel": desc, "units": dict(_UNITS)}
    if not args.json:
        width = max(len(k) for k in row)
        print(f"{'protocol':<{width}}  {args.spec}  ({desc})")
        for key, val in row.items():
            print(f"{key:<{width}}  {_fmt(val):<12}  {_UNITS[key]}")
    return out


# -- refinement of one pair, with a route chosen by size ------------------------------


def _pair_routes(
    a: _Spec, b: _Spec, A: Any, B: Any, max_lp: int, *, explicit_first: bool = False
) -> tuple[list[str], list[str]]:
    """The refinement routes that fit the budgets, and why the others do not."""
    from .symmetric import SymmetricChannel

    routes: list[str] = []
    why: list[str] = []
    if isinstance(A, SymmetricChannel) and isinstance(B, SymmetricChannel):
        n_var = 2 * A.sizes.size * B.sizes.size
        n_eq = A.sizes.size + 2 * B.sizes.size
        if n_var <= max_lp and ORBIT_EQUATION_WEIGHT * n_eq <= max_lp:
            routes.append("symmetric")
        else:
            why.append(
                f"the orbit LP would have ~{n_var:.3g} variables and {n_eq} equations "
                f"(> {max_lp:.3g} variables or {max_lp / ORBIT_EQUATION_WEIGHT:.3g} equations, "
                "--max-lp-variables)"
            )
    if a.explicit_fits() and b.explicit_fits():
        n_w = a.n_outputs() * b.n_outputs()
        if n_w <= CLI_MAX_EXPLICIT_WITNESS:
            if explicit_first:
                routes.insert(0, "explicit")
            else:
                routes.append("explicit")
        else:
            why.append(f"the explicit witness would have ~{n_w:.3g} entries")
    elif not why or a.lumped is None or b.lumped is None:
        why.append(
            f"an explicit channel would exceed {CLI_MAX_EXPLICIT_ENTRIES:.3g} entries"
            + ("" if a.lumped and b.lumped else " and one protocol has no symmetric form")
        )
    return routes, why


def _run_route(route: str, a: _Spec, b: _Spec, A: Any, B: Any, time_limit: float) -> Any:
    from .refinement import refines

    if route == "explicit":
        A = A if isinstance(A, Channel) else a.explicit()
        B = B if isinstance(B, Channel) else b.explicit()
    return refines(A, B, time_limit=time_limit)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = text if len(text) <= 160 else text[:157] + "..."
    return f"{type(exc).__name__}: {text}"


def _decide_pair(
    a: _Spec, b: _Spec, A: Any, B: Any, routes: Sequence[str], time_limit: float
) -> tuple[bool, str]:
    """Run the routes in order until one decides; raise the last error otherwise."""
    errors = []
    t0 = time.monotonic()
    for route in routes:
        left = time_limit - (time.monotonic() - t0)
        if left <= 0:
            break
        try:
            res = _run_route(route, a, b, A, B, left)
        except (QifldpError, MemoryError) as exc:
            errors.append(f"{route} route: {_short(exc)}")
            continue
        if time.monotonic() - t0 > time_limit:  # an answer after the budget is no answer in it
            raise _Undecided("no time left: the answer came after --time-limit")
        return bool(res.holds), route
    msg = "; ".join(errors) or "no time left"
    raise _Undecided(msg)


class _Undecided(Exception):
    pass


def _with_deadline(fn: Callable[[], Any], seconds: float) -> tuple[str, Any]:
    """Run ``fn()`` with a wall-clock limit: ("ok", value), ("error", text) or ("timeout", None).

    On POSIX the call runs in a forked child that is killed at the deadline (a
    solver stuck in C code cannot overrun it, and its memory is returned to the
    system when it ends); elsewhere it runs in-process (the time limit is then
    only the one passed to the solver).
    """
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        try:
            return "ok", fn()
        except _Undecided as exc:
            return "error", str(exc)
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("ok", fn()))
        except _Undecided as exc:
            send.send(("error", str(exc)))
        except BaseException as exc:  # report anything: the parent must not crash
            send.send(("error", _short(exc)))

    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # the child must not print the parent's pending output again
    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        if recv.poll(seconds):
            try:
                return recv.recv()
            except EOFError:
                proc.join()
                return "error", (
                    f"the worker process ended without an answer (exit code {proc.exitcode}; "
                    "out of memory?)"
                )
        return "timeout", None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def _cmd_refines(args: argparse.Namespace) -> dict[str, Any]:
    _check_time_limit(args.time_limit)
    _check_renormalize(args, [args.spec_a, args.spec_b])
    a = _resolve(args.spec_a, renormalize=args.renormalize)
    b = _resolve(args.spec_b, renormalize=args.renormalize)
    A, B = a.auto(), b.auto()
    from .symmetric import SymmetricChannel

    if isinstance(A, SymmetricChannel) != isinstance(B, SymmetricChannel):
        A, B = a.symmetric(), b.symmetric()  # one is too large: compare both lumped
    routes, why = _pair_routes(a, b, A, B, args.max_lp_variables, explicit_first=True)
    if not routes:
        msg = f"{args.spec_a} ⊑ {args.spec_b} not attempted: " + "; ".join(why)
        raise _Skip(msg)
    errors = []
    res = None
    for route in routes:
        try:
            res = _run_route(route, a, b, A, B, args.time_limit)
            break
        except QifldpError as exc:
            if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, SizeError):
                raise  # bad input: exit 2
            errors.append(f"{route} route: {_short(exc)}")
    if res is None:
        raise _Skip(f"{args.spec_a} ⊑ {args.spec_b} undecided: " + "; ".join(errors))
    out: dict[str, Any] = {"holds": bool(res.holds), "certified_by": res.certified_by}
    if res.witness is not None and isinstance(A, Channel):
        out["witness"] = np.asarray(res.witness).tolist()
    if res.counterexample is not None:
        ce = res.counterexample
        out["counterexample"] = {"gap": float(ce.gap)}
        if isinstance(A, Channel):
            out["counterexample"]["gain"] = np.asarray(ce.gain).tolist()
            out["counterexample"]["prior"] = np.asarray(ce.prior).tolist()
    names = (args.spec_a, args.spec_b)
    try:
        explanation = res.explanation(names=names)
    except QifldpError as exc:  # the verdict stands; say why there is no account
        explanation = {"summary": f"no explanation: {_short(exc)}", "text": ""}
    out["explanation"] = explanation
    if not args.json:
        print(repr(res))
        print(explanation["text"] or explanation["summary"])
    return out


class _Skip(QifldpError, RuntimeError):
    """No answer within the command line's budgets (exit status 1)."""


def _check_time_limit(t: float) -> None:
    if not (math.isfinite(t) and t > 0):
        msg = f"--time-limit must be a positive number of seconds, got {t}"
        raise UsageError(msg)


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    cells = [[_fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


def _chain(status: dict[tuple[str, str], bool | None], names: Sequence[str], a: str, b: str):
    """Settle a ⊑ b from decided pairs through one intermediate c (refinement is transitive)."""
    for c in names:
        if c in (a, b):
            continue
        if status.get((a, c)) and status.get((c, b)):
            return True, c
        if (status.get((c, a)) and status.get((c, b)) is False) or (
            status.get((b, c)) and status.get((a, c)) is False
        ):
            return False, c
    return None, None


def _cmd_compare(args: argparse.Namespace) -> dict[str, Any]:
    _check_time_limit(args.time_limit)
    if args.max_lp_variables < 0:
        msg = f"--max-lp-variables must be >= 0, got {args.max_lp_variables}"
        raise UsageError(msg)
    if args.plot:
        _check_output_file(args.plot, "--plot")
        if args.no_graph:
            msg = "--plot needs the refinement diagram: leave out --no-graph"
            raise UsageError(msg)
    if not math.isfinite(args.eps):
        msg = f"--eps must be a finite number, got {args.eps}"
        raise UsageError(msg)
    names = args.names or list(DEFAULT_COMPARE)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        msg = f"protocol(s) named twice: {', '.join(dup)}"
        raise UsageError(msg)
    if args.plot and len(names) < 2:
        msg = "--plot needs the refinement diagram: give two or more protocols"
        raise UsageError(msg)
    _check_renormalize(args, names)
    specs = {n: _resolve(n, renormalize=args.renormalize, k=args.k, eps=args.eps) for n in names}
    # the cheapest representation of each: symmetric where the protocol has one
    channels = {n: (s.symmetric() if s.lumped else s.auto()) for n, s in specs.items()}
    n_inputs = {n: (C.k if hasattr(C, "sizes") else C.shape[0]) for n, C in channels.items()}
    if len(set(n_inputs.values())) > 1:
        shown = ", ".join(f"{n}: {v}" for n, v in n_inputs.items())
        msg = f"all protocols must have the same number of inputs k, got {shown}"
        if any(specs[n].channel is not None for n in names):
            msg += " (a channel file fixes its k: pass --k to match it)"
        raise UsageError(msg)
    rows = []
    for spec, C in channels.items():
        row = _leak_row(C)
        rows.append({"name": spec, **{k: row[k] for k in ("bayes_capacity", "asr", "ldp_epsilon")}})
    if not args.json:
        print(f"k = {args.k}, eps = {args.eps}")
        print(_table(rows, ["name", "bayes_capacity", "asr", "ldp_epsilon"]))
        sys.stdout.flush()
    out: dict[str, Any] = {"k": args.k, "eps": args.eps, "protocols": rows}
    if args.no_graph or len(names) < 2:
        out["edges"] = []
        return out

    from .refinement.graph import hasse_diagram

    caps = {r["name"]: r["bayes_capacity"] for r in rows}
    status: dict[tuple[str, str], bool | None] = {}
    how: dict[tuple[str, str], str] = {}
    skipped: dict[tuple[str, str], str] = {}
    pairs = [(a, b) for a in names for b in names if a != b]
    for a, b in pairs:  # certified shortcut: a more leaky B cannot refine A
        ca, cb = caps[a], caps[b]
        if math.isfinite(ca) and math.isfinite(cb) and cb > ca * (1.0 + CAPACITY_MARGIN):
            status[(a, b)] = False
            how[(a, b)] = "capacity"

    def distance(pair: tuple[str, str]) -> float:
        d = abs(math.log(caps[pair[0]]) - math.log(caps[pair[1]])) if caps[pair[0]] > 0 else 0
        return d if math.isfinite(d) else math.inf

    # pairs of close capacity first: the long-range pairs then often follow by transitivity
    todo = sorted((p for p in pairs if p not in status), key=distance)
    t_start = time.monotonic()
    for a, b in todo:
        verdict, via = _chain(status, names, a, b)
        if verdict is not None:
            status[(a, b)] = verdict
            how[(a, b)] = "transitivity"
            continue
        routes, why = _pair_routes(
            specs[a], specs[b], channels[a], channels[b], args.max_lp_variables
        )
        if not routes:
            status[(a, b)] = None
            skipped[(a, b)] = "size rule: " + "; ".join(why)
            continue
        sa, sb, A, B = specs[a], specs[b], channels[a], channels[b]
        kind, value = _with_deadline(
            functools.partial(_decide_pair, sa, sb, A, B, routes, args.time_limit),
            args.time_limit,
        )
        if kind == "error" and ("time_limit" in str(value) or "no time left" in str(value)):
            kind = "timeout"  # the solver itself stopped at the limit before the deadline
        if kind == "ok":
            status[(a, b)], how[(a, b)] = value
        else:
            status[(a, b)] = None
            skipped[(a, b)] = (
                f"time limit: no answer within {args.time_limit:g} s (--time-limit)"
                if kind == "timeout"
                else f"no verdict: {value}"
            )
    elapsed = time.monotonic() - t_start
    G = hasse_diagram(names, status)
    final = G.graph["status"]
    for p in G.graph["inferred"]:
        how[p] = "transitivity"
        skipped.pop(p, None)
    edges = [[u, v] for u, v in sorted(G.edges())]
    equivalent = [list(m) for m in G.graph["equivalent"]]
    counts = {key: sum(1 for v in how.values() if v == key) for key in sorted(set(how.values()))}
    left = [(a, b) for (a, b) in pairs if final[(a, b)] is None]
    budget = {
        "time_limit": args.time_limit,
        "max_lp_variables": args.max_lp_variables,
        "max_explicit_entries": CLI_MAX_EXPLICIT_ENTRIES,
        "max_explicit_witness": CLI_MAX_EXPLICIT_WITNESS,
        "capacity_margin": CAPACITY_MARGIN,
    }
    out.update(
        {
            "edges": edges,
            "incomparable": [list(p) for p in G.graph["incomparable"]],
            "decided_by": counts,
            "skipped": [
                {"a": a, "b": b, "reason": skipped.get((a, b), "undecided")} for a, b in left
            ],
            "budget": budget,
            "refinement_seconds": elapsed,
        }
    )
    if equivalent:
        out["equivalent"] = equivalent
    if G.graph["inconsistent"]:
        out["inconsistent"] = [list(p) for p in G.graph["inconsistent"]]
    if args.plot:
        out["plot"] = _plot_hasse(G, args)
    if not args.json:
        _print_diagram(G, edges, equivalent, counts, left, skipped, budget, elapsed)
    return out


_HOW = {
    "capacity": "by Bayes capacity",
    "symmetric": "by the orbit LP (symmetric channels)",
    "explicit": "by the explicit LP",
    "transitivity": "by transitivity",
}


def _print_diagram(G, edges, equivalent, counts, left, skipped, budget, elapsed) -> None:
    print("\nRefinement (Hasse diagram; A -> B means A ⊑ B, B leaks no more than A):")
    for u, v in edges:
        print(f"  {u} -> {v}")
    for members in equivalent:
        print(f"  {' = '.join(members)}  (equivalent: each refines the other)")
    if not edges and not equivalent:
        print("  (no two protocols are known to be comparable)")
    n = sum(counts.values())
    parts = ", ".join(f"{c} {_HOW.get(k, k)}" for k, c in counts.items())
    print(
        f"Decided {n} of {n + len(left)} ordered pairs ({parts}) in {elapsed:.1f} s; budget: "
        f"{budget['time_limit']:g} s per pair, orbit LP <= {budget['max_lp_variables']:.3g} "
        f"variables, explicit channels <= {budget['max_explicit_entries']:.3g} entries."
    )
    if G.graph["inconsistent"]:
        shown = ", ".join(f"{a} ⊑ {b}" for a, b in G.graph["inconsistent"])
        print(f"Warning: verdicts not transitive (decided false, implied by a chain): {shown}")
    if left:
        print(f"Skipped {len(left)} pair(s), undecided (no edge drawn for them):")
        for a, b in left:
            print(f"  {a} ⊑ {b}?  skipped: {skipped.get((a, b), 'undecided')}")
        print(
            "  (raise --time-limit or --max-lp-variables, or decide a pair in Python with "
            "qifldp.refines on qifldp.symmetric channels)"
        )


def _check_output_file(path: str, option: str) -> None:
    """Refuse an output file whose folder is missing or whose type is unknown (exit 2)."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        msg = f"{option} {path}: the folder {str(folder)!r} does not exist"
        raise UsageError(msg)
    if p.suffix.lower() not in (".png", ".svg", ".pdf", ".eps", ".ps", ".jpg", ".jpeg"):
        msg = f"{option} {path}: the file name must end in .png, .svg, .pdf, .eps, .ps or .jpg"
        raise UsageError(msg)


def _cmd_reproduce(args: argparse.Namespace) -> dict[str, Any]:
    if args.data is not None and not Path(args.data).is_file():
        msg = f"--data {args.data}: no such file"
        raise UsageError(msg)
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        msg = f"--out {args.out}: exists and is not a folder"
        raise UsageError(msg)
    from .reproduce import reproduce

    figures = reproduce(args.out, quick=args.quick, data=args.data, which=args.figures)
    files = [str(f.path) for f in figures]
    if not args.json:
        for f in files:
            print(f)
    return {"files": files}


def _cmd_audit(args: argparse.Namespace) -> dict[str, Any]:
    from .audit import BIBLIOGRAPHY, audit, format_audit, format_markdown
    from .errors import ParameterError

    if args.markdown and args.json:
        msg = "--markdown writes to stdout, which --json already uses: use --markdown-file FILE"
        raise ParameterError(msg)
    results = audit(args.claims or None)
    if args.markdown_file is not None:
        with open(args.markdown_file, "w", encoding="utf-8") as fh:
            fh.write(format_markdown(results, details=not args.brief) + "\n")
    if args.markdown:
        print(format_markdown(results, details=not args.brief))
    elif not args.json:
        print(format_audit(results, details=not args.brief))
    cited = dict.fromkeys(k for r in results for k in r.references)
    return {
        "claims": [r.to_dict() for r in results],
        "references": {k: BIBLIOGRAPHY[k].full for k in BIBLIOGRAPHY if k in cited},
    }


def _plot_hasse(G: Any, args: argparse.Namespace) -> str:
    """Write the Hasse diagram of ``compare`` to ``args.plot`` (PNG, SVG or PDF)."""
    from matplotlib.figure import Figure

    from .refinement.graph import plot_refinement_graph

    fig = Figure(figsize=(6, 4.5))
    ax = fig.subplots()
    plot_refinement_graph(G, ax=ax)
    ax.set_title(f"k = {args.k}, eps = {args.eps:g}  (A -> B: A ⊑ B)")
    fig.tight_layout()
    fig.savefig(args.plot)
    return str(args.plot)


def _version() -> str:
    from . import __version__

    return f"qifldp {__version__}"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="qifldp",
        description="Quantitative information flow analysis of LDP protocols. "
        "Protocol specs look like oue:k=5,eps=1.3 or the:k=4,eps=1,theta=0.7.",
        epilog="Exit status: 0 done, 1 no answer (solver or certificate failure, budget), "
        "2 bad arguments. With --json an infinite or undefined number is null.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command")

    renorm = "channel files: renormalise rows rounded in print (e.g. 0.333/0.333/0.333)"
    s = sub.add_parser("leak", help="capacity, ASR, epsilon, min-entropy leakage of a protocol")
    s.add_argument("spec", help="a protocol spec (NAME:key=value,...) or a channel file")
    s.add_argument("--renormalize", action="store_true", help=renorm)
    s.set_defaults(func=_cmd_leak)

    s = sub.add_parser("refines", help="decide A ⊑ B (B leaks no more than A) with a certificate")
    s.add_argument("spec_a", help="a protocol spec or a channel file (.csv, .json, .npy)")
    s.add_argument("spec_b", help="a protocol spec or a channel file (.csv, .json, .npy)")
    s.add_argument("--renormalize", action="store_true", help=renorm)
    s.add_argument(
        "--time-limit", type=float, default=120.0, help="seconds for the solver (default 120)"
    )
    s.add_argument(
        "--max-lp-variables",
        type=int,
        default=CLI_MAX_ORBIT_VARIABLES * 10,
        help=f"largest orbit LP to attempt (default {CLI_MAX_ORBIT_VARIABLES * 10})",
    )
    s.set_defaults(func=_cmd_refines)

    s = sub.add_parser("compare", help="table of leakage measures and the refinement Hasse diagram")
    s.add_argument("--k", type=int, default=4, help="domain size (default 4)")
    s.add_argument("--eps", type=float, default=1.0, help="privacy parameter (default 1)")
    s.add_argument("--no-graph", action="store_true", help="skip the refinement diagram")
    s.add_argument("--plot", default=None, help="also draw the Hasse diagram to this file")
    s.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        help=f"seconds per refinement pair; a pair over it is skipped (default "
        f"{DEFAULT_TIME_LIMIT:g})",
    )
    s.add_argument(
        "--max-lp-variables",
        type=int,
        default=CLI_MAX_ORBIT_VARIABLES,
        help=f"skip orbit LPs larger than this (default {CLI_MAX_ORBIT_VARIABLES})",
    )
    s.add_argument("--renormalize", action="store_true", help=renorm)
    s.add_argument(
        "names",
        nargs="*",
        help=f"protocol specs or channel files (default: {' '.join(DEFAULT_COMPARE)})",
    )
    s.set_defaults(func=_cmd_compare)

    s = sub.add_parser("reproduce", help="reproduce the QIF paper's figures 4-7 as PNG files")
    s.add_argument("--quick", action="store_true", help="fewer points and users (seconds)")
    s.add_argument("--out", default="figures", help="output directory (default ./figures)")
    s.add_argument("--data", default=None, help="FIMI transaction file (e.g. Kosarak)")
    s.add_argument(
        "--figures", type=int, nargs="+", default=[4, 5, 6, 7], help="figure numbers (default all)"
    )
    s.set_defaults(func=_cmd_reproduce)

    s = sub.add_parser("audit", help="check the papers' published claims live, with the numbers")
    s.add_argument("--brief", action="store_true", help="verdicts only, without the details")
    s.add_argument("--markdown", action="store_true", help="print the report as a Markdown table")
    s.add_argument(
        "--markdown-file", default=None, metavar="FILE", help="also write the Markdown table here"
    )
    s.add_argument("claims", nargs="*", help="claim keys, e.g. qif.eq25 qif.lemma11 (default all)")
    s.set_defaults(func=_cmd_audit)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 no answer, 2 bad arguments).

    With no command, prints the comparison table for k = 4, eps = 1. Errors are
    one line on stderr, never a traceback.

    Examples
    --------
    >>> main(["--json", "leak", "grr:k=2,eps=0"])  # doctest: +ELLIPSIS
    {"protocol": "grr:k=2,eps=0", "bayes_capacity": 1.0, "asr": 0.5, "ldp_epsilon": 0.0, ...}
    0
    """
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # allow --json anywhere on the line
    want_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    if not argv or (argv[0].startswith("-") and argv[0] not in {"-h", "--help", "--version"}):
        argv = ["compare", *argv]  # no command: the comparison table
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its message
        return int(exc.code or 0)
    args.json = want_json
    try:
        out = args.func(args)
        text = json.dumps(_jsonable(out), allow_nan=False) if want_json else None
    except (ValueError, TypeError) as exc:
        print(f"qifldp: error: {exc}", file=sys.stderr)
        return 2
    except QifldpError as exc:  # a solver or certificate failure, or over the budgets
        print(f"qifldp: no answer: {exc}", file=sys.stderr)
        return 1
    except MemoryError:
        print(
            "qifldp: out of memory: use a smaller k, or the symmetric channels of "
            "qifldp.symmetric from Python",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("qifldp: interrupted", file=sys.stderr)
        return 130
    if text is not None:
        print(text)
    return 0
