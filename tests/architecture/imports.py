"""The package's import graph read from its source (module level, inside functions and
under ``TYPE_CHECKING`` alike), for the architecture tests and ``python -m
tests.architecture.imports`` (prints what breaks the rules)."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "qifldp"

#: The layers, bottom first; a module may import only from its own layer or below.
#: Keep in step with ``[tool.importlinter]`` in pyproject.toml (a test checks they agree).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "validation", "arrays", "reduction", "dispatch", "attributes", "deadline", "digits"),
    ("channel", "priors", "gains", "alignment", "channel_io", "plotting"),
    ("measures", "operators", "composition", "profiles", "tradeoff"),
    ("refinement",),
    ("symmetric", "symbolic", "simulation"),
    ("protocols",),
    ("sweeps",),
    ("faces", "mechanisms", "formulas"),
    ("cli", "audit", "reproduce", "__main__"),
)

#: Packages of one layer that must not import each other.
INDEPENDENT: tuple[tuple[str, ...], ...] = (("symmetric", "symbolic"),)

#: Libraries that may be imported inside a function: optional or heavy ones only,
#: so that ``import qifldp`` stays light. Everything else is imported at module level.
ALLOWED_LAZY = (
    "sympy",
    "mpmath",
    "scipy.optimize",
    "scipy.sparse",
    "scipy.stats",
    "pandas",
    "distributed",
    "dask",
    "matplotlib",
    "flint",
    "tqdm",
    "networkx",
)


@dataclass(frozen=True)
class Import:
    source: str  # importing module, dotted
    target: str  # imported module, dotted (qifldp modules resolved to a file)
    line: int
    where: str  # "module", "function" or "type-checking"


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _targets(mod: str, node: ast.Import | ast.ImportFrom, is_pkg: bool, known) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = mod if is_pkg else mod.rpartition(".")[0]
    if node.level:
        parts = base.split(".")
        if node.level > 1:
            parts = parts[: -(node.level - 1)]
        base = ".".join(parts)
        target = base + ("." + node.module if node.module else "")
    else:
        target = node.module or ""
    out = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in known else target)
    return out


def imports() -> list[Import]:
    """Every import statement of the package."""
    known = modules()
    found: list[Import] = []

    def visit(mod, is_pkg, node, where):
        for child in ast.iter_child_nodes(node):
            here = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                here = "function"
            elif (
                isinstance(child, ast.If)
                and "TYPE_CHECKING" in ast.unparse(child.test)
                and where == "module"
            ):
                here = "type-checking"
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(mod, child, is_pkg, known):
                    if target.startswith("qifldp"):
                        while target not in known and "." in target:
                            target = target.rpartition(".")[0]
                    found.append(Import(mod, target, child.lineno, here))
            visit(mod, is_pkg, child, here)

    for mod, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        visit(mod, path.name == "__init__.py", tree, "module")
    return found


def layer_of(mod: str) -> int | None:
    """Index of the layer a ``qifldp`` module belongs to (None: the package root)."""
    parts = mod.split(".")
    if len(parts) == 1:
        return None
    for index, names in enumerate(LAYERS):
        if parts[1] in names:
            return index
    raise KeyError(f"{mod} is in no layer: add its top-level name to LAYERS")


def internal_edges() -> set[tuple[str, str]]:
    return {(i.source, i.target) for i in imports() if i.target.startswith("qifldp")}


def upward() -> list[Import]:
    """Imports from a module to one of a higher layer, or between independent packages."""
    bad = []
    for imp in imports():
        if not imp.target.startswith("qifldp") or imp.source == "qifldp":
            continue
        try:
            src, dst = layer_of(imp.source), layer_of(imp.target)
        except KeyError:  # a module in no layer is reported by its own test too
            bad.append(imp)
            continue
        if dst is None:
            bad.append(imp)  # a module importing the package root climbs to the faces
            continue
        assert src is not None
        if dst > src:
            bad.append(imp)
            continue
        a, b = imp.source.split(".")[1], imp.target.split(".")[1]
        if a != b and any(a in group and b in group for group in INDEPENDENT):
            bad.append(imp)
    return bad


def cycles() -> list[list[str]]:
    """Strongly connected components (of more than one file) of the import graph."""
    graph: dict[str, set[str]] = {}
    for a, b in internal_edges():
        if a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def lazy_imports() -> list[Import]:
    """Imports inside functions or under TYPE_CHECKING that are not of an allowed library."""
    bad = []
    for imp in imports():
        if imp.where == "module":
            continue
        if imp.target.startswith(ALLOWED_LAZY) and not imp.target.startswith("qifldp"):
            if any(imp.target == a or imp.target.startswith(a + ".") for a in ALLOWED_LAZY):
                continue
        bad.append(imp)
    return bad


if __name__ == "__main__":  # pragma: no cover - a report for developers
    for title, items in (("upward", upward()), ("in functions", lazy_imports())):
        print(f"== {title}: {len(items)}")
        for i in items:
            print(f"  {i.source}:{i.line} -> {i.target} ({i.where})")
    found = cycles()
    print(f"== cycles: {len(found)}")
    for comp in found:
        print(f"  {len(comp)}: {', '.join(comp)}")
