"""Rooms that say what they hold: no module over 900 lines outside the protocol families,
and every package's docstring states its layer."""

from __future__ import annotations

import ast

from tests.architecture import imports as arch

MAX_LINES = 900

#: Protocol family modules (one protocol with all its views: channels in three kinds,
#: closed forms and their symbolic twins, sampler, estimator, variance, attack) may be longer.
FAMILIES = frozenset(
    {
        "qifldp.protocols.grr",
        "qifldp.protocols.ss",
        "qifldp.protocols.lh",
        "qifldp.protocols.ue",
        "qifldp.protocols.the",
        "qifldp.protocols.pckv",
        "qifldp.protocols.rr3",
    }
)


def test_no_module_over_900_lines_outside_protocol_families():
    long = {
        mod: n
        for mod, path in arch.modules().items()
        if mod not in FAMILIES and (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_every_package_docstring_states_its_layer():
    missing = []
    for mod, path in arch.modules().items():
        if path.name != "__init__.py" or mod == "qifldp":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if "Layer" not in doc and "layer" not in doc:
            missing.append(mod)
    assert missing == []
