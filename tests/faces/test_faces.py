"""The faces: every flat alias generated from the catalogue, the same names in every kind,
given to the kind packages from above; the package's lazy table and its type stub agree."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import qifldp as q
from qifldp import faces
from qifldp.faces import (
    generate,
    simulation as simulation_face,
    symbolic as symbolic_face,
    symmetric as symmetric_face,
)
from qifldp.protocols import CATALOGUE, PROTOCOL_NAMES

ROOT = Path(__file__).resolve().parents[2]


def test_flat_names_are_the_oracles_and_their_word_aliases():
    assert set(generate.FLAT_NAMES.values()) == set(PROTOCOL_NAMES)
    for flat, name in generate.FLAT_NAMES.items():
        assert flat == name or flat in CATALOGUE[name].aliases


@pytest.mark.parametrize("flat", list(generate.FLAT_NAMES))
def test_every_kind_has_every_name_with_the_catalogue_signature(flat):
    entry = CATALOGUE[generate.FLAT_NAMES[flat]]
    for where in (q, q.symmetric, q.symbolic):
        fn = getattr(where, flat)
        assert fn.__name__ == flat
        assert list(inspect.signature(fn).parameters) == list(entry.names)


def test_attached_names_are_those_of_the_faces():
    for kind, (face, names) in faces.FACES.items():
        module = __import__(face, fromlist=["__all__"])
        assert set(names) == set(module.__all__), kind
        package = sys.modules.get(kind) or __import__(kind, fromlist=["__all__"])
        assert set(names) <= set(dir(package)) and set(names) <= set(package.__all__)
    # the constructors are the same across kinds (the tight-ratio names are the symmetric's own)
    constructors = set(symmetric_face.__all__) - set(symmetric_face.PROTOCOL_LEVEL)
    assert constructors <= set(symbolic_face.__all__)
    assert q.simulation.sample_oue is simulation_face.sample_oue
    assert q.symbolic.formulas.bayes_capacity_grr is symbolic_face.formulas.bayes_capacity_grr


def test_kind_packages_receive_their_faces_when_imported_first():
    code = (
        "from qifldp.symmetric import ss; from qifldp.simulation import sample_oue; "
        "import qifldp.symbolic.formulas as F; print(ss.__name__, callable(sample_oue), "
        "F.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.split() == ["ss", "True", "qifldp.faces.symbolic_formulas"]


def test_unknown_names_are_attribute_errors():
    with pytest.raises(AttributeError, match="no attribute 'pckv'"):
        _ = q.symmetric.pckv
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = q.nothing


def test_the_stub_states_the_lazy_table():
    tree = ast.parse((ROOT / "qifldp" / "__init__.pyi").read_text())
    stated = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            stated[node.module] = tuple(a.name for a in node.names)
    assert stated == dict(q._EXPORTS)
    assert set(q.__all__) <= set(q._WHERE) | set(q._SUBMODULES)
    assert "annotations" not in dir(q)


def test_the_tight_ratio_names_keep_their_symmetric_spelling():
    # README, maps.ipynb and earlier scripts call q.symmetric.sue_oue_boundary(k)
    from qifldp.protocols import tight_ratio

    assert q.symmetric.sue_oue_boundary is tight_ratio.sue_oue_boundary
    assert q.symmetric.tight_ratio_refines is tight_ratio.tight_ratio_refines
    lo, hi = q.symmetric.sue_oue_boundary(50)  # the enclosure README states for k = 50
    assert lo == pytest.approx(8.514854727737657, abs=1e-9) and lo <= hi < lo + 1e-9
