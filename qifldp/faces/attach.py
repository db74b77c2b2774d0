"""The faces' names given to the kind packages from above, when those are imported.

The kinds (:mod:`qifldp.symmetric`, :mod:`qifldp.symbolic`, :mod:`qifldp.simulation`, layer
L4) never import the protocols nor the faces; yet ``qifldp.symmetric.oue``,
``from qifldp.symbolic import formulas`` and ``from qifldp.simulation import sample_oue``
work. :func:`install` (run by ``qifldp/__init__``, which runs before any import of a kind)
puts a finder on ``sys.meta_path`` that, once a kind package has been executed, gives it a
PEP 562 module ``__getattr__`` and ``__dir__``: a name of :data:`FACES` is read from its
face module (importing the protocols on first use, not before).

This module is light on purpose (the standard library only): ``import qifldp`` loads it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, cast

__all__ = ["FACES", "attach", "install"]

_ORACLES = (
    "grr",
    "ss",
    "subset_selection",
    "lh",
    "local_hashing",
    "blh",
    "olh",
    "ue",
    "unary_encoding",
    "sue",
    "oue",
    "the",
)

_SIMULATION = (
    "SS_DENSE_RATIO",
    "SS_KEYS_MAX_K",
    "SS_KEYS_MIN_K",
    "LH_REJECTION_RATIO",
    "LH_REJECTION_TRIES",
    "universal_lh_channel",
    *(f"sample_{n}" for n in ("grr", "ss", "lh", "blh", "olh", "ue", "sue", "oue", "the")),
    "grr_pq_star",
    "ss_pq_star",
    "lh_pq_star",
    *(f"estimate_{n}" for n in ("grr", "ss", "lh", "ue", "sue", "oue", "the")),
    *(f"variance_{n}" for n in ("grr", "ss", "lh", "ue", "sue", "oue", "the")),
    *(f"attack_{n}" for n in ("grr", "ss", "ue", "the", "lh")),
)

#: Kind package -> (its face module, the names the face gives it). The names are
#: written out so that attaching imports nothing; a test checks them against the
#: face modules' ``__all__``.
FACES: dict[str, tuple[str, tuple[str, ...]]] = {
    "qifldp.symmetric": (
        "qifldp.faces.symmetric",
        (*_ORACLES, "sue_oue_boundary", "tight_ratio_refines", "BOUNDARY_MAX_K"),
    ),
    "qifldp.symbolic": (
        "qifldp.faces.symbolic",
        (*_ORACLES, "sue_bit", "oue_bit", "the_bit", "formulas"),
    ),
    "qifldp.simulation": ("qifldp.faces.simulation", _SIMULATION),
}

#: Submodule names a kind receives as modules (``import qifldp.symbolic.formulas``).
_SUBMODULES: dict[str, str] = {"qifldp.symbolic.formulas": "qifldp.faces.symbolic_formulas"}


def attach(module: ModuleType) -> None:
    """Give a kind package the names of its face (lazily, through ``__getattr__``).

    Idempotent; a ``__getattr__`` the package defines itself is asked for other names.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> "oue" in dir(sym), "oue" in sym.__all__, sym.oue.__name__
    (True, True, 'oue')
    """
    face, names = FACES[module.__name__]
    if getattr(module, "__faces__", None) == face:
        return
    own: Callable[[str], Any] | None = module.__dict__.get("__getattr__")
    wanted = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name in wanted:  # read from the face each time (not copied into the kind)
            return getattr(importlib.import_module(face), name)
        if own is not None:
            return own(name)
        msg = f"module {module.__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | wanted)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    module.__dir__ = __dir__  # type: ignore[method-assign]
    exported = list(getattr(module, "__all__", ()))
    setattr(module, "__all__", [*exported, *(n for n in names if n not in exported)])  # noqa: B010
    setattr(module, "__faces__", face)  # noqa: B010


class _Loader(importlib.abc.Loader):
    """A kind package's own loader, then :func:`attach`."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return cast("ModuleType | None", self._loader.create_module(spec))

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        attach(module)

    def __getattr__(self, name: str) -> Any:  # is_package, get_resource_reader, ...
        return getattr(self._loader, name)


class _SubmoduleLoader(importlib.abc.Loader):
    """A face module under a kind's name (``qifldp.symbolic.formulas``)."""

    def __init__(self, target: str) -> None:
        self._target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self._target)

    def exec_module(self, module: ModuleType) -> None:
        """Executed already, as its face module."""


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the kind packages as the standard path finder does, loaded by :class:`_Loader`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in _SUBMODULES:
            return importlib.machinery.ModuleSpec(fullname, _SubmoduleLoader(_SUBMODULES[fullname]))
        if fullname not in FACES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Attach the faces to the kind packages imported from now on (and to those already in).

    Idempotent.
    """
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    for name in FACES:
        module = sys.modules.get(name)
        if module is not None:
            attach(module)
