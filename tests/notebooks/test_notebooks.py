"""Execute every notebook in notebooks/ with nbclient; any cell error fails the test.

The figures notebook is also checked for what it shows: every cell tagged ``figure``
has image/png outputs that decode to non-empty PNG images.

The documentation site's build (tests/docs/test_site.py, collected first) executes the
same notebooks through myst-nb into a jupyter-cache. A notebook executed there *during
this test session* is taken from that cache instead of being run a second time; a record
from an earlier session (possibly run against other code) is never trusted.
"""

from __future__ import annotations

import base64
import datetime
import functools
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
#: Seconds one cell may run before the execution counts as failed.
CELL_TIMEOUT = 120
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
#: The docs build's jupyter-cache (docs/conf.py, ``nb_execution_cache_path``).
SITE_CACHE = NOTEBOOKS_DIR.parent / "docs" / "_build" / ".jupyter_cache"
#: Collection time: cache records older than this belong to an earlier session.
SESSION_START = datetime.datetime.now(datetime.timezone.utc)
#: The first bytes of every PNG file (PNG specification, section 5.2).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_notebooks_exist():
    # the derivations notebook is part of the deliverables (issue 5)
    assert (NOTEBOOKS_DIR / "derivations.ipynb") in NOTEBOOKS
    assert (NOTEBOOKS_DIR / "figures.ipynb") in NOTEBOOKS


def _executed_by_site_build(nb):
    """``nb`` with the outputs the docs build of this session produced, or None."""
    if not SITE_CACHE.is_dir():
        return None
    try:
        from jupyter_cache import get_cache
    except ImportError:
        return None
    cache = get_cache(SITE_CACHE)
    try:
        record = cache.match_cache_notebook(nb)
    except KeyError:
        return None
    created = record.created
    if created.tzinfo is None:  # SQLite keeps the UTC time without its zone
        created = created.replace(tzinfo=datetime.timezone.utc)
    if created < SESSION_START:
        return None
    return cache.merge_match_into_notebook(nb)[1]


@functools.cache
def _executed(path: Path):
    """Execute the notebook at ``path`` once per test session; return it with outputs."""
    nb = nbformat.read(path, as_version=4)
    # notebooks are committed without outputs; CI produces them
    assert all(c.get("outputs", []) == [] for c in nb.cells if c.cell_type == "code")
    cached = _executed_by_site_build(nb)
    if cached is not None:
        return cached
    root = str(NOTEBOOKS_DIR.parent)
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = root + (os.pathsep + env_path if env_path else "")
    try:
        client = nbclient.NotebookClient(
            nb,
            timeout=CELL_TIMEOUT,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
        )
        client.execute()  # raises CellExecutionError on the first failing cell
    finally:
        if env_path:
            os.environ["PYTHONPATH"] = env_path
        else:
            os.environ.pop("PYTHONPATH", None)
    return nb


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path):
    nb = _executed(path)
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == []
    # every code cell ran
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")


def _pngs(cell) -> list[bytes]:
    """The decoded image/png outputs of a code cell."""
    return [
        base64.b64decode(o["data"]["image/png"])
        for o in cell.get("outputs", [])
        if o.get("output_type") in ("display_data", "execute_result")
        and "image/png" in o.get("data", {})
    ]


def test_figures_notebook_shows_every_figure():
    nb = _executed(NOTEBOOKS_DIR / "figures.ipynb")
    cells = [c for c in nb.cells if "figure" in c.get("metadata", {}).get("tags", [])]
    # capacity curves, Hasse diagram, trade-off curves, and the paper's Figs. 1-7
    assert len(cells) == 4
    counts = []
    for cell in cells:
        pngs = _pngs(cell)
        counts.append(len(pngs))
        for png in pngs:
            assert png.startswith(PNG_SIGNATURE)
            assert len(png) > 5_000  # a drawn figure, not an empty canvas
    assert counts == [1, 1, 1, 7]
    # no pyplot figure left undisplayed as a bare repr (the Agg + plt.show() bug)
    texts = [
        "".join(o.get("data", {}).get("text/plain", ""))
        for c in cells
        for o in c.get("outputs", [])
        if "image/png" not in o.get("data", {})
    ]
    assert not any("<Figure size" in t for t in texts)
