"""The site's hand-written pages: their Python examples run and print what the pages say.

Each page under ``docs/`` (MyST Markdown) is one doctest over all its ``python`` blocks,
so later examples on a page see the names of earlier ones, as a reader does.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: Hand-written pages (the generated ones live in docs/api/ and are built from the package).
PAGES = sorted(
    p for p in DOCS.rglob("*.md") if "_build" not in p.parts and "api" not in p.parts
)


def _blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_every_guide_subject_has_a_page_with_examples():
    # issue 21's subjects: one page each, and each shows running code
    guide = {p.stem for p in (DOCS / "guide").glob("*.md")} - {"index"}
    assert guide == {
        "channels", "refinement", "fdp", "symmetric", "symbolic", "keyvalue", "rr3",
        "multidimensional", "sweeps", "channel-files",
    }
    for stem in guide:
        assert _blocks((DOCS / "guide" / f"{stem}.md").read_text()), stem


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_examples(page: Path):
    blocks = _blocks(page.read_text())
    if not blocks:
        pytest.skip(f"{page.name} has no python examples")
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
    )
    test = parser.get_doctest("\n".join(blocks), {}, page.name, str(page), 0)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {page.name} failed (see output)"
