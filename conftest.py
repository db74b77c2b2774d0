"""Root test configuration: the ``slow`` and ``campaign`` markers.

``python -m pytest`` runs the fast default (tests marked ``slow`` are skipped, with
the reason shown); ``python -m pytest --run-slow`` runs everything but the campaigns,
as CI does (``.ci/run`` and the README's test command). A ``campaign`` test is a
differential campaign over a whole grid (every ordered pair of the built-in protocols
at k = 2 … 10 × 21 eps; 1,000 random near-boundary pairs) that takes longer than the
suite's budget; ``--run-campaign`` runs them (the suite runs a seeded sample of each).
"""

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (the full suite, as CI runs it)",
    )
    parser.addoption(
        "--run-campaign",
        action="store_true",
        default=False,
        help="also run the differential campaigns (marked campaign; beyond CI's budget)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_slow = config.getoption("--run-slow")
    run_campaign = config.getoption("--run-campaign")
    slow = pytest.mark.skip(reason="slow: run with --run-slow (CI does)")
    campaign = pytest.mark.skip(reason="campaign: run with --run-campaign (beyond CI's budget)")
    for item in items:
        if "campaign" in item.keywords and not run_campaign:
            item.add_marker(campaign)
        elif "slow" in item.keywords and not (run_slow or run_campaign):
            item.add_marker(slow)
