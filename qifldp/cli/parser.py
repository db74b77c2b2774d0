"""The command line's arguments: one subcommand per module of :mod:`qifldp.cli`.

The parser is built without loading the commands: :data:`COMMANDS` names the module
that runs each one (``qifldp audit`` loads the audit and sympy, ``qifldp compare``
does not).
"""

from __future__ import annotations

import argparse
from importlib import metadata

from ..validation import parse_whole_number
from .defaults import CLI_MAX_ORBIT_VARIABLES, DEFAULT_COMPARE, DEFAULT_TIME_LIMIT
from .specs import PROTOCOLS

__all__ = ["COMMANDS", "build_parser", "whole_number"]

#: Subcommand -> the module of :mod:`qifldp.cli` whose ``run(args)`` carries it out.
COMMANDS: dict[str, str] = {
    "leak": "leak",
    "refines": "refines",
    "compare": "compare",
    "reproduce": "reproduce",
    "audit": "audit",
    "protocols": "protocols",
}

#: What every command that takes protocol specs says of them in its ``--help``.
SPECS_HELP: str = (
    "A protocol spec is NAME:key=value,... (oue:k=5,eps=1.3, pckv:d=4,ell=2,eps=1, "
    "rsfd:ks=3x4,eps=1, rr:P=0.9/0.1;0.1/0.9); NAME is one of "
    + ", ".join(PROTOCOLS)
    + " or an alias (any case, - and _ alike); `qifldp protocols` lists their parameters. "
    "A path ending in .csv, .json or .npy is a channel file."
)


def _version() -> str:
    try:
        return f"qifldp {metadata.version('qifldp')}"
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "qifldp (version unknown: not installed)"


def whole_number(text: str) -> int:
    """An integer argument, also in scientific notation (``--k 1e6``).

    >>> whole_number("1e6")
    1000000
    """
    try:
        return parse_whole_number(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command (each command's module is loaded only to run it)."""
    p = argparse.ArgumentParser(
        prog="qifldp",
        description="Quantitative information flow analysis of LDP protocols. " + SPECS_HELP,
        epilog="Exit status: 0 done, 1 no answer (solver or certificate failure, budget), "
        "2 bad arguments. With --json an infinite or undefined number is null.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command")

    renorm = "channel files: renormalise rows rounded in print (e.g. 0.333/0.333/0.333)"
    s = sub.add_parser(
        "leak",
        help="capacity, ASR, epsilon, min-entropy leakage of a protocol",
        description="Capacity, ASR, epsilon and min-entropy leakage of a protocol. " + SPECS_HELP,
    )
    s.add_argument("spec", help="a protocol spec (NAME:key=value,...) or a channel file")
    s.add_argument("--renormalize", action="store_true", help=renorm)

    s = sub.add_parser(
        "refines",
        help="decide A ⊑ B (B leaks no more than A) with a certificate",
        description="Decide A ⊑ B (B leaks no more than A) with a certificate. " + SPECS_HELP,
    )
    s.add_argument("spec_a", help="a protocol spec or a channel file (.csv, .json, .npy)")
    s.add_argument("spec_b", help="a protocol spec or a channel file (.csv, .json, .npy)")
    s.add_argument("--renormalize", action="store_true", help=renorm)
    s.add_argument(
        "--time-limit", type=float, default=120.0, help="seconds for the solver (default 120)"
    )
    s.add_argument(
        "--max-lp-variables",
        type=whole_number,
        default=CLI_MAX_ORBIT_VARIABLES * 10,
        help=f"largest orbit LP to attempt (default {CLI_MAX_ORBIT_VARIABLES * 10})",
    )

    s = sub.add_parser(
        "compare",
        help="table of leakage measures and the refinement Hasse diagram",
        description="A table of leakage measures and the refinement Hasse diagram; --k and "
        "--eps fill the specs' k and eps. A protocol whose explicit channel is over the size "
        "rule and that has no symmetric channel (hr at k = 10^4) is compared all the same: "
        "its row from its closed forms, its pairs by the capacity, transitivity and a "
        "restriction to a few inputs (which proves failures only). " + SPECS_HELP,
    )
    s.add_argument(
        "--k", type=whole_number, default=4, help="domain size (default 4; 1e6 is read as 10^6)"
    )
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
        type=whole_number,
        default=CLI_MAX_ORBIT_VARIABLES,
        help=f"skip orbit LPs larger than this (default {CLI_MAX_ORBIT_VARIABLES})",
    )
    s.add_argument("--renormalize", action="store_true", help=renorm)
    s.add_argument(
        "names",
        nargs="*",
        help=f"protocol specs or channel files (default: {' '.join(DEFAULT_COMPARE)})",
    )

    s = sub.add_parser(
        "reproduce", help="reproduce the QIF paper's figures 1-7 as PNG, PDF and SVG files"
    )
    s.add_argument("--quick", action="store_true", help="fewer points and users (seconds)")
    s.add_argument("--out", default="figures", help="output directory (default ./figures)")
    s.add_argument("--data", default=None, help="FIMI transaction file (e.g. Kosarak)")
    s.add_argument(
        "--figures",
        type=int,
        nargs="+",
        choices=range(1, 8),
        metavar="N",
        default=[1, 2, 3, 4, 5, 6, 7],
        help="figure numbers, 1 to 7 (default all)",
    )
    s.add_argument(
        "--formats",
        nargs="+",
        choices=["png", "pdf", "svg"],
        default=["png", "pdf", "svg"],
        help="file formats (default all: PNG for the screen, PDF and SVG for print)",
    )

    s = sub.add_parser("audit", help="check the papers' published claims live, with the numbers")
    s.add_argument("--brief", action="store_true", help="verdicts only, without the details")
    s.add_argument("--markdown", action="store_true", help="print the report as a Markdown table")
    s.add_argument(
        "--markdown-file", default=None, metavar="FILE", help="also write the Markdown table here"
    )
    s.add_argument("claims", nargs="*", help="claim keys, e.g. qif.eq25 qif.lemma11 (default all)")

    sub.add_parser(
        "protocols",
        help="the catalogue of protocols: names, aliases, parameters, references",
        description="Every protocol a spec may name, with its aliases, parameters (kind, "
        "default, rule), reference and an example spec.",
    )
    return p
