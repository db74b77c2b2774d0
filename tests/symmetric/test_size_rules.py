"""Every constructor refuses past its size rule before allocating: run under a memory cap
(RLIMIT_AS in a fresh interpreter), a refused size is a SizeError naming the rule, never
numpy's MemoryError or a kill; sizes within the rule build under the same cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAP_BYTES = 2 << 30  # far below the 7.45 GiB numpy asked for at k = 10^9 before the rule

REFUSED = [
    "sym.oue(10**9, 1.0)",
    "sym.sue(10**9, 1.0)",
    "sym.the(10**9, 1.0, 0.8)",
    "sym.unary_encoding(10**9, 0.75, 0.25)",
    "sym.blh(10**9, 1.0)",
    "sym.olh(10**9, 1.0)",
    "sym.local_hashing(10**9, 1.0, 3)",
    "q.protocol('oue', 10**9, 1.0).symmetric()",
    "q.oue(40, 1.0)",
    "q.grr(10**5, 1.0)",
    "q.olh(30, 1.0)",
    "q.subset_selection(60, 1.0)",
    # every symmetric constructor at k = 10^18, and the protocols whose objects or
    # explicit channels allocated O(k) before their rule (L-GRR's k x k rounds, the hash
    # tables of RAPPOR, CMS and HCMS, RS+FD's uniform priors)
    *(
        f"sym.{c}(10**18, {args})"
        for c, args in (
            ("oue", "1.0"),
            ("sue", "1.0"),
            ("ue", "0.75, 0.25"),
            ("unary_encoding", "0.75, 0.25"),
            ("the", "1.0, 0.8"),
            ("blh", "1.0"),
            ("olh", "1.0"),
            ("lh", "1.0, 3"),
            ("local_hashing", "1.0, 3"),
        )
    ),
    "q.protocol('l_grr', 10**9, 2.0, 1.0).channel()",
    "q.protocol('l_grr', 10**18, 2.0, 1.0).channel()",
    "q.protocol('rappor', 10**9, m=8, h=2, f=0.5)",
    "q.protocol('rappor', 10**18, m=8, h=2, f=0.5)",
    "q.protocol('cms', 10**9, 1.0, 16, 2)",
    "q.protocol('hcms', 10**18, 1.0, 16, 2)",
    "q.protocol('rsfd', [10**9, 10**9], 1.0)",
]
BUILT = [
    "sym.oue(10**6, 1.0)",
    "sym.blh(10**6, 1.0)",
    "sym.grr(10**9, 1.0)",
    "sym.subset_selection(10**9, 1.0)",
    "sym.grr(10**18, 1.0)",
    "sym.ss(10**18, 1.0)",
    "q.protocol('l_grr', 10**9, 2.0, 1.0).symmetric()",
]

_SCRIPT = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
import qifldp as q
import qifldp.symmetric as sym
out = {{}}
for spec in json.loads(sys.argv[1]):
    try:
        C = eval(spec)
        out[spec] = ["built", int(getattr(C, "k", 0))]
    except BaseException as exc:  # a MemoryError must be reported, not crash the run
        out[spec] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""


def _under_cap(specs: list[str]) -> dict[str, list]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(cap=CAP_BYTES), json.dumps(specs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_constructors_refuse_before_allocating_under_a_memory_cap():
    got = _under_cap(REFUSED + BUILT)
    for spec in REFUSED:
        kind, text = got[spec]
        assert kind == "SizeError", (spec, kind, text)
        assert "MAX_CLASSES" in text or "entries" in text, (spec, text)
    for spec in BUILT:
        assert got[spec][0] == "built", (spec, got[spec])


def test_the_class_rule_names_the_limit_and_the_alternatives():
    import qifldp.symmetric as sym
    from qifldp.errors import SizeError
    from qifldp.symmetric.channel import MAX_CLASSES

    with pytest.raises(
        SizeError, match=r"10000000001 size classes .* MAX_CLASSES .*qifldp.formulas"
    ):
        sym.oue(10**10, 1.0)
    with pytest.raises(SizeError, match="size classes"):
        sym.blh(MAX_CLASSES, 1.0)  # k + 1 classes: one past the rule
