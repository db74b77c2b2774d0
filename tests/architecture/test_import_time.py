"""``import qifldp`` stays light: no protocol, sweep, audit or plotting module, nor sympy,
pandas or matplotlib, until used; and it costs at most twice numpy + scipy.linalg, both
measured in fresh interpreters of the same run (the minimum of several)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HEAVY = (
    "qifldp.protocols",
    "qifldp.sweep",
    "qifldp.sweeps",
    "qifldp.audit",
    "qifldp.plotting",
    "sympy",
    "pandas",
    "matplotlib",
)


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    return out.stdout.strip()


def _seconds(modules: str) -> float:
    code = f"import time; t = time.perf_counter(); import {modules}; print(time.perf_counter() - t)"
    return float(_run(code))


def test_import_loads_nothing_heavy():
    loaded = json.loads(_run("import json, sys, qifldp; print(json.dumps(sorted(sys.modules)))"))
    found = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert found == []


def test_import_costs_at_most_twice_numpy_and_scipy_linalg():
    base = min(_seconds("numpy, scipy.linalg") for _ in range(5))
    ours = min(_seconds("qifldp") for _ in range(5))
    assert ours <= 2 * base, (ours, base)


def test_names_load_on_first_use():
    code = (
        "import sys, qifldp as q; assert 'qifldp.protocols' not in sys.modules; "
        "q.oue(3, 1.0); print('qifldp.protocols' in sys.modules, 'annotations' in dir(q))"
    )
    assert _run(code) == "True False"


def test_sympy_loads_on_the_first_symbolic_answer_only():
    # the protocols import qifldp.symbolic; sympy and mpmath come with the first symbolic use
    code = (
        "import sys, qifldp as q; q.oue(4, 1.0); q.refines(q.sue(3, 1.0), q.oue(3, 1.0)); "
        "import qifldp.symbolic as s; before = [m in sys.modules for m in ('sympy', 'mpmath')]; "
        "c = s.sue(2, 'eps'); print(before, 'sympy' in sys.modules, s.EPS_DOMAIN)"
    )
    assert _run(code) == "[False, False] True Interval(0, oo)"


def test_measures_of_a_plain_array_load_only_the_explicit_layers():
    code = (
        "import sys, numpy as np, qifldp as q; M = np.full((3, 3), 1 / 3); "
        "q.bayes_capacity(M); q.ldp_epsilon(M); "
        "print(sorted(m for m in sys.modules if m.startswith(('qifldp.', 'scipy'))))"
    )
    loaded = ast.literal_eval(_run(code))
    assert not [m for m in loaded if m.startswith(("scipy", "qifldp.refinement", "qifldp.sym"))]


def test_explicit_refinement_loads_the_symmetric_kind_for_one_hot_pairs_only():
    # a pair of plain arrays is decided without the symmetric kind (nor scipy.special, about
    # a second to import, nor python-flint, 60-100 ms, which only an exact decision needs);
    # the first one-hot pair loads it and is decided by orbits
    code = (
        "import sys, numpy as np, qifldp as q; A = np.array([[0.9, 0.1], [0.2, 0.8]]); "
        "r = q.refines(A, A @ np.array([[0.7, 0.3], [0.4, 0.6]])); "
        "before = [m in sys.modules for m in ('qifldp.symmetric', 'scipy.special', 'flint')]; "
        "bit = q.Channel([[0.7, 0.3], [0.2, 0.8]]); post = q.Channel([[0.9, 0.1], [0.1, 0.9]]); "
        "s = q.refines(q.one_hot(bit, 3), q.one_hot(q.cascade(bit, post), 3)); "
        "print(r.holds, before, s.method, 'qifldp.symmetric' in sys.modules)"
    )
    assert _run(code) == "True [False, False, False] orbits True"
