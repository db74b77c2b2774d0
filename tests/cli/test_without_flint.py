"""python-flint is optional: without it the exact steps run in fractions.Fraction, same verdicts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qifldp.cli import main

_BLOCK = "import sys; sys.modules['flint'] = None\n"


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _BLOCK + code], capture_output=True, text=True, timeout=240
    )


@pytest.mark.slow
@pytest.mark.parametrize("k, eps", [(3, 2.0), (2, 2.0)])
def test_compare_without_flint_gives_the_same_diagram(capsys, k, eps):
    # the diagram with python-flint (this process) is the reference
    assert main(["--json", "compare", "--k", str(k), "--eps", str(eps)]) == 0
    ref = json.loads(capsys.readouterr().out)
    code = (
        "from qifldp.cli import main\n"
        f"sys.exit(main(['--json', 'compare', '--k', '{k}', '--eps', '{eps}']))"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert doc["edges"] == ref["edges"]


def test_boundary_verdicts_without_flint():
    code = (
        "import qifldp as q, qifldp.symmetric as S\n"
        "from qifldp.refinement import exact\n"
        "from fractions import Fraction\n"
        "assert exact.EXACT_NUMBER_TYPE is Fraction\n"
        "r = q.refines(q.olh(2, 2.0), q.oue(2, 2.0), exact=True)\n"
        "assert r.holds and r.up_to_rounding\n"
        "assert not q.refines(S.sue(3, 1.9558754636), S.oue(3, 1.9558754636)).holds\n"
        "f = q.refines(S.grr(3, 40.0), S.grr(3, 41.0))\n"
        "assert not f.holds and f.counterexample.gap_exact > 0\n"
        "print('ok')\n"
    )
    proc = _run(code)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
