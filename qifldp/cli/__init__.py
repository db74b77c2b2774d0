"""The ``qifldp`` command line: quick answers about LDP protocols as channels.

Layer L8 (consumers): may import every layer below (the faces included) but not the
package root; nothing in the package imports it.

- :mod:`.app`: :func:`main`, the entry point (``qifldp``, ``python -m qifldp``);
- :mod:`.parser`: the arguments of every command (:data:`~.parser.COMMANDS`);
- :mod:`.specs`: protocol specs ``NAME:key=value,...`` and channel files;
- :mod:`.defaults`: budgets (sizes, time limits) and defaults;
- :mod:`.routes`: the refinement of one pair within the budgets;
- :mod:`.output`: JSON, numbers and tables;
- one module per command: :mod:`.leak`, :mod:`.refines`, :mod:`.compare`,
  :mod:`.reproduce`, :mod:`.audit`.

Exit status: 0 done, 1 a computation could not give an answer (a solver or a
certificate failed; the message says which), 2 bad arguments. With ``--json``,
stdout is one JSON document; an infinite or undefined number is ``null``.
"""

from __future__ import annotations

from .app import main
from .defaults import (
    CAPACITY_MARGIN,
    CLI_MAX_EXPLICIT_ENTRIES,
    CLI_MAX_EXPLICIT_WITNESS,
    CLI_MAX_ORBIT_VARIABLES,
    DEFAULT_TIME_LIMIT,
)
from .errors import UsageError
from .specs import CHANNEL_FILE_SUFFIXES, PROTOCOLS, build, is_channel_file, parse_spec

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
    "UsageError",
]
