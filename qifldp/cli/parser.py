"""The command line's arguments: one subcommand per module of :mod:`qifldp.cli`.

The parser is built without loading the commands: :data:`COMMANDS` names the module
that runs each one (``qifldp audit`` loads the audit and sympy, ``qifldp compare``
does not).
"""

from __future__ import annotations

import argparse
from importlib import metadata

from .defaults import CLI_MAX_ORBIT_VARIABLES, DEFAULT_COMPARE, DEFAULT_TIME_LIMIT

__all__ = ["COMMANDS", "build_parser"]

#: Subcommand -> the module of :mod:`qifldp.cli` whose ``run(args)`` carries it out.
COMMANDS: dict[str, str] = {
    "leak": "leak",
    "refines": "refines",
    "compare": "compare",
    "reproduce": "reproduce",
    "audit": "audit",
}


def _version() -> str:
    try:
        return f"qifldp {metadata.version('qifldp')}"
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "qifldp (version unknown: not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command (each command's module is loaded only to run it)."""
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

    s = sub.add_parser("reproduce", help="reproduce the QIF paper's figures 4-7 as PNG files")
    s.add_argument("--quick", action="store_true", help="fewer points and users (seconds)")
    s.add_argument("--out", default="figures", help="output directory (default ./figures)")
    s.add_argument("--data", default=None, help="FIMI transaction file (e.g. Kosarak)")
    s.add_argument(
        "--figures", type=int, nargs="+", default=[4, 5, 6, 7], help="figure numbers (default all)"
    )

    s = sub.add_parser("audit", help="check the papers' published claims live, with the numbers")
    s.add_argument("--brief", action="store_true", help="verdicts only, without the details")
    s.add_argument("--markdown", action="store_true", help="print the report as a Markdown table")
    s.add_argument(
        "--markdown-file", default=None, metavar="FILE", help="also write the Markdown table here"
    )
    s.add_argument("claims", nargs="*", help="claim keys, e.g. qif.eq25 qif.lemma11 (default all)")
    return p
