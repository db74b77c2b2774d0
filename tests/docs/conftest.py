"""The documentation site's build, started in the background as soon as it is known to run.

Building the site (``python -m sphinx -E -W -n``, tests/docs/test_site.py) executes the
notebooks and takes minutes of one core, mostly waiting on its notebook kernels. The
test process itself runs on one core (tests/conftest.py limits BLAS to one thread), so
once collection shows that the site's tests will run, the build starts in a subprocess
and the rest of the suite runs beside it; the site's tests and the notebook tests (which
read the build's jupyter-cache) are moved to the end of the run, and the ``site``
fixture waits for the build and judges it exactly as before (exit code 0, no warning).
The build's output goes to files, never to a pipe nobody reads; a session that ends
early stops it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.site_build import SiteBuild, docs_extra_missing

SITE_TESTS = Path(__file__).resolve().parent / "test_site.py"
NOTEBOOK_TESTS = Path(__file__).resolve().parents[1] / "notebooks"


_BUILD = pytest.StashKey[SiteBuild]()


def _site_build(config: pytest.Config) -> SiteBuild:
    if _BUILD not in config.stash:
        config.stash[_BUILD] = SiteBuild()
    return config.stash[_BUILD]


@pytest.fixture(scope="session")
def site_build(request: pytest.FixtureRequest) -> SiteBuild:
    """The session's build of the site: the one started after collection, or one now."""
    return _site_build(request.config)


def _in(item: pytest.Item, path: Path) -> bool:
    return item.path == path or path in item.path.parents


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # the site's tests, then the notebook tests (they reuse its jupyter-cache), last
    def rank(item: pytest.Item) -> int:
        return 1 if _in(item, SITE_TESTS) else 2 if _in(item, NOTEBOOK_TESTS) else 0

    items[:] = sorted(items, key=rank)  # stable: every other order is kept


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if config.option.collectonly or docs_extra_missing():
        return
    will_run = [
        i for i in session.items if _in(i, SITE_TESTS) and i.get_closest_marker("skip") is None
    ]
    if will_run:
        _site_build(config)


def pytest_sessionfinish(session: pytest.Session) -> None:
    build = session.config.stash.get(_BUILD, None)
    if build is not None:
        build.stop()
