"""Cross-references of the docstrings, resolved the way a reader of the source resolves them.

The docstrings are written for ``help()`` and the source: a role names an object as its own
module sees it (``:func:`zipf_probabilities``` inside ``qifldp.simulation.data``, or
``:class:`qifldp.protocols.UE``` for the class the site documents as ``qifldp.UE``). Two
hooks make those references resolve on the site, and only those:

- ``autodoc-process-docstring``: a role's target that names an object in the documented
  object's own module (or class) is rewritten to that object's full dotted path; and a
  ``|X|`` (a set's size, as the docstrings write it) is escaped so that reStructuredText
  does not read it as a substitution;
- ``missing-reference``: a dotted path that Sphinx does not know is imported; when the
  object it names is documented under another public name (the same object), the link
  goes there; when it is a real object that the site does not document (a private
  helper), the text is shown as code without a link. A path that imports nothing stays
  unresolved, so ``-n -W`` still fails the build on a misspelled or removed name.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from typing import Any

from sphinx.application import Sphinx

_ROLE = re.compile(r":(py:)?(func|meth|class|data|attr|obj|mod|exc|const):`(~?)([\w.]+)`")
#: A backquoted span (an inline literal or a role's content), where nothing is escaped.
_SPAN = re.compile(r"(:[\w:]+:)?``.*?``|(:[\w:]+:)?`[^`]*`")

_MISSING = object()


def _import(path: str) -> Any:
    """The object named by the dotted ``path``, or ``_MISSING``."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001  (not a module: try a shorter prefix)
            continue
        for attr in parts[i:]:
            try:
                obj = getattr(obj, attr)
            except Exception:  # noqa: BLE001
                return _MISSING
        return obj
    return _MISSING


def _absolute(target: str, obj: Any, name: str) -> str | None:
    """``target`` as a full dotted path, looked up where the object ``obj`` is defined."""
    module = getattr(obj, "__module__", None) or (obj.__name__ if inspect.ismodule(obj) else None)
    scopes: list[str] = []
    if "." in name:
        scopes.append(name.rsplit(".", 1)[0])  # a member's class
    if module:
        scopes.append(module)
        owner = getattr(obj, "__qualname__", "").rsplit(".", 1)[0]
        if owner and owner != getattr(obj, "__qualname__", ""):
            scopes.append(f"{module}.{owner}")
    for scope in scopes:
        path = f"{scope}.{target}"
        if _import(path) is not _MISSING:
            return path
    # a name the docstring's module does not import: the one module of the package that
    # defines it (ambiguous names stay as written)
    head, _, rest = target.partition(".")
    found = {
        f"{modname}.{target}"
        for modname, module in list(sys.modules.items())
        if modname.startswith("qifldp.") and module is not None
        and getattr(getattr(module, head, None), "__module__", None) == modname
    }
    if len(found) == 1:
        path = found.pop()
        if _import(path) is not _MISSING:
            return path
    return None


def _escape_bars(line: str) -> str:
    """``line`` with every ``|`` outside backquoted spans escaped."""
    out, pos = [], 0
    for m in _SPAN.finditer(line):
        out.append(line[pos : m.start()].replace("|", r"\|"))
        out.append(m.group(0))
        pos = m.end()
    out.append(line[pos:].replace("|", r"\|"))
    return "".join(out)


def process_docstring(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Rewrite relative role targets to full paths and escape ``|`` in prose lines."""
    in_doctest = False
    literal_indent: int | None = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                continue
        if stripped.startswith(">>>"):
            in_doctest = True
        if in_doctest:
            if not stripped:
                in_doctest = False
            continue
        if stripped.startswith(("+-", "+=")):  # a grid table
            continue

        def absolute(m: re.Match[str]) -> str:
            domain, role, tilde, target = m.groups()
            if target.startswith("qifldp.") or target.startswith("."):
                return m.group(0)
            path = _absolute(target, obj, name)
            if path is None:
                return m.group(0)
            tilde = tilde or ("~" if "." not in target else "")
            return f":{domain or ''}{role}:`{tilde}{path}`"

        line = _ROLE.sub(absolute, line)
        lines[i] = _escape_bars(line)
        if stripped.endswith("::"):
            literal_indent = indent


_documented: dict[int, str] | None = None


def _documented_names(app: Sphinx) -> dict[int, str]:
    """id(object) -> the name under which the site documents it (first one wins)."""
    global _documented
    if _documented is None:
        _documented = {}
        domain = app.env.get_domain("py")
        for fullname, _entry in sorted(domain.objects.items()):  # type: ignore[attr-defined]
            if not fullname.startswith("qifldp"):
                continue
            obj = _import(fullname)
            if obj is not _MISSING and not isinstance(obj, (int, float, str, bool, tuple)):
                _documented.setdefault(id(obj), fullname)
    return _documented


def missing_reference(app: Sphinx, env: Any, node: Any, contnode: Any) -> Any:
    """Link an alias to the object's documented name, or show a real private name as code."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    module = node.get("py:module")
    candidates = [target] if "." in target else []
    if module:
        candidates.append(f"{module}.{target}")
    for path in candidates:
        if not path.startswith("qifldp"):
            continue
        obj = _import(path)
        if obj is _MISSING:
            continue
        documented = _documented_names(app).get(id(obj))
        if documented is not None and not isinstance(obj, (int, float, str, bool, tuple)):
            domain = env.get_domain("py")
            found = domain.resolve_xref(
                env, node["refdoc"], app.builder, "obj", documented, node, contnode
            )
            if found is not None:
                return found
        return contnode  # a real object the site does not document: code, no link
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", process_docstring, priority=400)
    app.connect("missing-reference", missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

