"""Shared numpydoc text: docstrings that say the same thing say it from one place.

Twin methods (the estimators of SPL, SMP and RS+FD; the samplers of PCKV and PrivKVM;
the abstract methods of :class:`~qifldp.protocols.Protocol`) document their common
parameters, returns and errors with one fragment: a docstring line that holds only
``{name}`` is replaced by the fragment ``name`` (:func:`fill_doc`), indented as that
line. The docstrings, filled at import, are what ``help()``, the documentation and
``pytest --doctest-modules`` read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["fill", "fill_doc"]

_F = TypeVar("_F", bound=Callable[..., Any])


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
    """

    def decorate(func: _F) -> _F:
        func.__doc__ = fill(func.__doc__ or "", fragments)
        return func

    return decorate
