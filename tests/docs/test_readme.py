"""The README's Python examples run and print what the README says (doctest)."""

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_examples():
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
    )
    # one doctest over all blocks, so that later examples see earlier names
    test = parser.get_doctest("\n".join(blocks), {}, "README", str(README), 0)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} README example(s) failed (see output)"
