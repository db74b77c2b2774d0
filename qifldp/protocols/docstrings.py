"""Shared numpydoc text: docstrings that say the same thing say it from one place.

Twin methods (the estimators of SPL, SMP and RS+FD; the samplers of PCKV and PrivKVM;
the abstract methods of :class:`~qifldp.protocols.Protocol`) and the frequency oracles
(:data:`ORACLE_DOCS`) document their common parameters, returns and errors with one
fragment: a docstring line that holds only ``{name}`` is replaced by the fragment
``name`` (:func:`fill_doc`), indented as that line; a line ``{parameters}`` (unless
``parameters`` is a fragment), by the Parameters section of a function whose
parameters all have fragments. The docstrings, filled at
import, are what ``help()``, the documentation and ``pytest --doctest-modules`` read.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["ORACLE_DOCS", "fill", "fill_doc"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The entries that the frequency oracles' docstrings share: their parameters
#: (``{k}``, ``{eps}``, the symbolic twins' ``{symbolic_eps}``, local hashing's ``{g}``).
ORACLE_DOCS: dict[str, str] = {
    "k": "k : int\n    Domain size, ``k >= 2`` (inputs 0..k-1).",
    "eps": "eps : float\n    Privacy parameter, finite, ``>= 0``.",
    "symbolic_eps": (
        "eps : sympy expression, number or symbol name\n    Privacy parameter (domain [0, oo))."
    ),
    "g": "g : int\n    Hash range, ``g >= 2``.",
}


def fill(doc: str, fragments: Mapping[str, str]) -> str:
    """``doc`` with every line ``{name}`` (``name`` an identifier) replaced by ``fragments[name]``.

    Each line of the fragment is indented as the placeholder was; blank lines stay
    blank. Lines such as ``{1, 2}`` (not an identifier) are left as they are.

    Raises
    ------
    KeyError
        A placeholder names no fragment (a misspelt name fails at import).

    Examples
    --------
    >>> print(fill("Sum.\\n\\n    {xs}\\n    ", {"xs": "xs : list\\n    The terms."}))
    Sum.
    <BLANKLINE>
        xs : list
            The terms.
    <BLANKLINE>
    """
    lines = []
    for line in doc.split("\n"):
        key = line.strip()
        if key[:1] == "{" and key[-1:] == "}" and key[1:-1].isidentifier():
            indent = line[: len(line) - len(line.lstrip())]
            lines += [indent + part if part else "" for part in fragments[key[1:-1]].split("\n")]
        else:
            lines.append(line)
    return "\n".join(lines)


def fill_doc(fragments: Mapping[str, str]) -> Callable[[_F], _F]:
    """Decorator: fill the function's docstring with ``fragments`` (:func:`fill`).

    A line ``{parameters}``, when ``fragments`` has no such entry, becomes the whole
    Parameters section: the fragment of each of the function's parameters, in
    signature order (a parameter without one is a KeyError at import).

    Examples
    --------
    >>> USERS = {"n": "n : int\\n    Number of users, ``n >= 1``."}
    >>> @fill_doc(USERS)
    ... def variance(n):
    ...     '''The variance.
    ...
    ...     Parameters
    ...     ----------
    ...     {n}
    ...     '''
    >>> print(variance.__doc__.strip())
    The variance.
    <BLANKLINE>
        Parameters
        ----------
        n : int
            Number of users, ``n >= 1``.
    >>> @fill_doc(ORACLE_DOCS)
    ... def adp_choice(k, eps):
    ...     '''ADP's choice.
    ...
    ...     {parameters}
    ...     '''
    >>> print(adp_choice.__doc__.strip())
    ADP's choice.
    <BLANKLINE>
        Parameters
        ----------
        k : int
            Domain size, ``k >= 2`` (inputs 0..k-1).
        eps : float
            Privacy parameter, finite, ``>= 0``.
    """

    def decorate(func: _F) -> _F:
        doc = func.__doc__ or ""
        lines = doc.split("\n")
        if "parameters" not in fragments and any(ln.strip() == "{parameters}" for ln in lines):
            fragments_ = {**fragments, "parameters": _parameters_section(func, fragments)}
        else:
            fragments_ = dict(fragments)
        func.__doc__ = fill(doc, fragments_)
        return func

    return decorate


def _parameters_section(func: Callable[..., Any], fragments: Mapping[str, str]) -> str:
    """The Parameters section of ``func``: each parameter's fragment, in signature order
    (KeyError for a parameter without one: then the section is written out)."""
    names = [name for name in inspect.signature(func).parameters if name != "self"]
    return "\n".join(["Parameters", "----------", *(fragments[name] for name in names)])
