"""The summary lines every benchmark module prints after its run (ratios, same run)."""

from __future__ import annotations

from typing import Any


def write_report(request: Any, lines: list[str]) -> None:
    """Write ``lines`` to the terminal past pytest's capture (nothing without a terminal)."""
    plugins = request.config.pluginmanager
    reporter, capman = plugins.getplugin("terminalreporter"), plugins.getplugin("capturemanager")
    if reporter is None or capman is None:
        return
    with capman.global_and_fixture_disabled():
        for line in lines:
            reporter.write_line(line)
