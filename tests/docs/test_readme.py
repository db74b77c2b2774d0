"""The README's Python examples run and print what the README says (doctest)."""

import doctest
import re
import subprocess
import sys
from pathlib import Path

import qifldp as q
from tests.sweeps._reference import plain_lp_refines

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


def _map_example() -> str:
    """The README's comparability_map example (the python block that calls it)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    (block,) = [b for b in blocks if "comparability_map(" in b]
    return block


def test_readme_map_example_runs_cold_in_a_fresh_interpreter():
    # the map example alone, in a fresh interpreter (imports, solvers and the symbolic
    # premises loaded cold), prints what the README shows; no time is asserted
    # (benchmarks/bench_maps.py measures it)
    block = _map_example()
    script = (
        "import doctest, sys\n"
        "import qifldp as q\n"
        f"test = doctest.DocTestParser().get_doctest({block!r}, {{'q': q}}, 'map', None, 0)\n"
        "runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)\n"
        "runner.run(test)\n"
        "sys.exit(1 if runner.failures else 0)\n"
    )
    root = README.parent
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stdout + out.stderr
    # the answer shown, against a feasibility LP written here on the explicit channels:
    # SUE ⊑ OUE at k = 2 and neither direction at k = 3 (eps = 1)
    shown = block.strip().splitlines()[-1]
    relations = []
    for k in (2, 3):
        A, B = q.sue(k, 1.0), q.oue(k, 1.0)
        ab, ba = plain_lp_refines(A, B), plain_lp_refines(B, A)
        relations.append([k, 1.0, {(True, False): "A⊑B", (False, False): "incomparable"}[(ab, ba)]])
    assert shown == repr(relations)
