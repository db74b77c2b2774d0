"""Value objects: read-only attributes (one line instead of a property per stored value)
and equality by key.

Layer L0: imports nothing of qifldp.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar, overload

import numpy as np

__all__ = ["ReadOnly", "EqualByKey"]

_T = TypeVar("_T")


class ReadOnly(property, Generic[_T]):
    """A read-only property that gives the value stored in a private slot: by default the
    slot of its own name with a leading underscore (``k = ReadOnly[int]("...")`` reads
    ``self._k``).

    The value objects (channels, protocol objects) keep what they were built from in
    private slots and show it through such properties; like any property without a
    setter, assigning one raises AttributeError.

    Parameters
    ----------
    doc : str
        The attribute's docstring.
    slot : str, optional
        The slot read (default ``"_" + name``).
    read : callable, optional
        Applied to the stored value on every read (``dict``: a new copy each time).

    Examples
    --------
    >>> class Point:
    ...     __slots__ = ("_x", "_tags")
    ...     x = ReadOnly[float]("The abscissa.")
    ...     abscissa = ReadOnly[float]("The abscissa (x).", slot="_x")
    ...     tags = ReadOnly[list]("Its tags (a new list).", read=list)
    ...     def __init__(self, x, tags=()):
    ...         self._x, self._tags = x, tuple(tags)
    >>> p = Point(2.0, ["a"])
    >>> p.x, p.abscissa, p.tags, Point.x.__doc__
    (2.0, 2.0, ['a'], 'The abscissa.')
    >>> p.x = 3.0
    Traceback (most recent call last):
    ...
    AttributeError: ...'Point' object has no setter
    """

    def __init__(
        self, doc: str, slot: str | None = None, read: Callable[[Any], _T] | None = None
    ) -> None:
        self._read = read
        super().__init__(self._getter(slot) if slot else None)
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        if self.fget is None:  # read the slot of this name
            doc = self.__doc__
            super().__init__(self._getter("_" + name))
            self.__doc__ = doc

    def _getter(self, slot: str) -> Callable[[Any], Any]:
        """Read ``slot`` (attrgetter: no Python frame), then apply ``read`` if given."""
        get = attrgetter(slot)
        read = self._read
        if read is None:
            return get
        return lambda obj: read(get(obj))

    if TYPE_CHECKING:  # the type of what is read; at run time property's own __get__

        @overload
        def __get__(self, obj: None, owner: type | None = None) -> Self: ...

        @overload
        def __get__(self, obj: object, owner: type | None = None) -> _T: ...

        def __get__(self, obj: object | None, owner: type | None = None) -> _T | Self: ...


class EqualByKey:
    """Equality and hash of a value object from its ``_key()``, a tuple of what defines it.

    Two objects are equal when they are of the same type with equal keys, numpy arrays
    compared entrywise (same shape and values); the hash reads arrays by their bytes.

    Examples
    --------
    >>> import numpy as np
    >>> class Row(EqualByKey):
    ...     def __init__(self, label, values):
    ...         self.label, self.values = label, np.asarray(values)
    ...     def _key(self):
    ...         return (self.label, self.values)
    >>> Row("a", [1.0, 2.0]) == Row("a", [1.0, 2.0]), Row("a", [1.0]) == Row("a", [1.0, 2.0])
    (True, False)
    >>> hash(Row("a", [1.0])) == hash(Row("a", [1.0]))
    True
    """

    __slots__ = ()

    def _key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EqualByKey) or type(other) is not type(self):
            return NotImplemented
        return all(
            bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b
            for a, b in zip(self._key(), other._key(), strict=True)
        )

    def __hash__(self) -> int:
        return hash(tuple(v.tobytes() if isinstance(v, np.ndarray) else v for v in self._key()))
