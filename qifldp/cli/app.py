"""The ``qifldp`` entry point: parse the arguments, run the command, print, set the exit status.

Exit status: 0 done, 1 a computation could not give an answer (a solver or a
certificate failed; the message says which), 2 bad arguments. With ``--json``,
stdout is one JSON document; an infinite or undefined number is ``null``.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Sequence

from ..errors import QifldpError
from .output import _jsonable
from .parser import COMMANDS, build_parser

__all__ = ["main"]


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
    parser = build_parser()
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
        # the command's module is loaded to run it: the parser does not import the audit
        # (sympy) for ``qifldp compare``
        command = importlib.import_module(f"{__package__}.{COMMANDS[args.command]}")
        out = command.run(args)
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
    except BrokenPipeError:  # the reader went away (``qifldp protocols | head``)
        return _closed_pipe()
    if text is not None:
        try:
            print(text)
        except BrokenPipeError:
            return _closed_pipe()
    return 0


def _closed_pipe() -> int:
    """Exit quietly when stdout's reader has gone: no traceback at interpreter exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0
