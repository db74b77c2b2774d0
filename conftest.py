"""Root test configuration: the ``slow`` marker.

``python -m pytest`` runs the fast default (tests marked ``slow`` are skipped, with
the reason shown); ``python -m pytest --run-slow`` runs everything, as CI does
(``.ci/run`` and the README's test command).
"""

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (the full suite, as CI runs it)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow (CI does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
