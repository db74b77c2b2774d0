"""The layer contract: imports only go down, no cycles, lazy imports of heavy libraries only.

Read from the source by ``tests.architecture.imports`` (an AST walk, function-level and
``TYPE_CHECKING`` imports included); ``lint-imports`` checks the same contract from
pyproject.toml in ``.ci/run``.
"""

from __future__ import annotations

import pytest

from tests.architecture import imports as arch

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the contract itself runs in CI on 3.11


def test_every_module_is_in_a_layer():
    for mod in arch.modules():
        arch.layer_of(mod)  # raises KeyError naming the module


def test_no_upward_import():
    bad = [f"{i.source}:{i.line} -> {i.target}" for i in arch.upward()]
    assert bad == []


def test_no_import_cycle_between_files():
    assert arch.cycles() == []


def test_function_level_imports_are_optional_heavy_libraries_only():
    bad = [f"{i.source}:{i.line} -> {i.target} ({i.where})" for i in arch.lazy_imports()]
    assert bad == []


def test_import_linter_contract_matches_the_layers():
    config = tomllib.loads((arch.PACKAGE.parent / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")
    declared = [tuple(sorted(layer.replace("|", ":").replace(" ", "").split(":")))
                for layer in reversed(layers["layers"])]
    assert declared == [tuple(sorted(names)) for names in arch.LAYERS]
    assert layers.get("exhaustive") is True


def test_the_checker_sees_a_planted_upward_import_and_cycle(tmp_path, monkeypatch):
    # the analysis itself can fail: plant a two-file package with a cycle and an upward import
    pkg = tmp_path / "qifldp"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("def f():\n    from qifldp import cli\n")
    (pkg / "cli.py").write_text("from . import errors\n")
    monkeypatch.setattr(arch, "PACKAGE", pkg)
    assert [(i.source, i.target) for i in arch.upward()] == [("qifldp.errors", "qifldp.cli")]
    assert arch.cycles() == [["qifldp.cli", "qifldp.errors"]]
    assert [i.where for i in arch.lazy_imports()] == ["function"]
