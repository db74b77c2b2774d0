"""One dispatch for the three kinds of channel: explicit, symmetric and symbolic.

Every measure, operator and order relation of qifldp is a
:func:`functools.singledispatch` function on its first channel argument. The
explicit :class:`~qifldp.channel.Channel` (and any 2-D array) is the default
implementation; :mod:`qifldp.symmetric` and :mod:`qifldp.symbolic` register
theirs when they are imported, and register :func:`unsupported` for the
operations their kind cannot answer, so that the error names the operation, the
kind received and what to do instead (:func:`remedy`).

Derived measures (``asr``, ``max_case_capacity``, the leakages) are written once
over the primitive ones; the few scalar steps they need (e^x, log2, a sign test,
the tidy form of a symbolic result) dispatch on the type of the *value*
(:func:`exp_value`, :func:`log2_value`, :func:`is_nonpositive`,
:func:`tidy_value`): floats here, sympy expressions registered by
:mod:`qifldp.symbolic`.

>>> import qifldp as q
>>> q.hyper(q.symmetric.grr(3, 1.0))
Traceback (most recent call last):
...
qifldp.errors.UnsupportedKindError: hyper does not support a SymmetricChannel ...
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from functools import singledispatch
from types import ModuleType
from typing import Any, NoReturn

from .errors import UnsupportedKindError
from .validation import _real

__all__ = [
    "remedy",
    "kind_name",
    "unsupported_kind",
    "unsupported",
    "register_unsupported",
    "register_all",
    "register_same_names",
    "register_kind",
    "is_unsupported",
    "n_inputs",
    "to_explicit",
    "entries",
    "permute_inputs",
    "first_channel",
    "dispatch_on_first_channel",
    "kind_rank",
    "dispatch_on_pair",
    "exp_value",
    "log2_value",
    "is_nonpositive",
    "tidy_value",
    "module_getattr",
]


@singledispatch
def remedy(C: Any) -> str | None:
    """What to do with a channel of this kind where an operation does not support it.

    ``None`` for explicit channels and array-likes (the default kind); the
    symmetric and symbolic kinds register their advice.

    Examples
    --------
    >>> remedy([[1.0, 0.0], [0.0, 1.0]]) is None
    True
    >>> import qifldp as q
    >>> remedy(q.symmetric.grr(3, 1.0))
    'use C.expand() for the explicit Channel (small k only), ...'
    """
    return None


def kind_name(C: Any) -> str:
    """The name of the kind of ``C`` used in messages (its class name).

    >>> import qifldp as q
    >>> kind_name(q.grr(3, 1.0))
    'Channel'
    """
    return type(C).__name__


def unsupported_kind(operation: str, C: Any, argument: str = "C") -> UnsupportedKindError:
    """The error for ``operation`` applied to a channel ``C`` of a kind it does not support.

    Parameters
    ----------
    operation : str
        The name of the operation, e.g. ``"hyper"``.
    C : object
        The argument received.
    argument : str
        The name of that argument.

    Returns
    -------
    UnsupportedKindError
        Not raised: the caller raises it.

    Examples
    --------
    >>> import qifldp as q
    >>> str(unsupported_kind("hyper", q.symmetric.grr(3, 1.0)))
    'hyper does not support a SymmetricChannel (argument C); use C.expand() ...'
    """
    hint = remedy(C) or "pass an explicit qifldp.Channel"
    msg = f"{operation} does not support a {kind_name(C)} (argument {argument}); {hint}"
    return UnsupportedKindError(msg)


def unsupported(operation: str, argument: str = "C") -> Callable[..., NoReturn]:
    """An implementation of ``operation`` that raises :class:`UnsupportedKindError`.

    Registered by a kind for the operations it cannot answer, so that the
    dispatch itself says so (and :func:`is_unsupported` can tell).

    Examples
    --------
    >>> f = unsupported("hyper")
    >>> f(1.5)
    Traceback (most recent call last):
    ...
    qifldp.errors.UnsupportedKindError: hyper does not support a float (argument C); ...
    """

    def _unsupported(C: Any, *args: Any, **kwargs: Any) -> NoReturn:
        if isinstance(C, (list, tuple)):  # an operation on a sequence of channels
            raise unsupported_kind(operation, first_channel((C,)), "channels[0]")
        raise unsupported_kind(operation, C, argument)

    _unsupported.__name__ = f"{operation}_unsupported"
    _unsupported.__qualname__ = _unsupported.__name__
    _unsupported.__doc__ = f"{operation} does not support this kind of channel."
    _unsupported._qifldp_unsupported = True  # type: ignore[attr-defined]  # marker for is_unsupported
    return _unsupported


def register_unsupported(kind: type, *functions: Any) -> None:
    """Register :func:`unsupported` for ``kind`` on each singledispatch function.

    Examples
    --------
    >>> from functools import singledispatch
    >>> @singledispatch
    ... def measure(C):
    ...     return 1.0
    >>> class Kind:
    ...     pass
    >>> register_unsupported(Kind, measure)
    >>> is_unsupported(measure, Kind)
    True
    """
    for f in functions:
        params = list(inspect.signature(f.registry[object]).parameters.values())
        first = params[0]
        argument = "channels[0]" if first.kind is first.VAR_POSITIONAL else first.name
        f.register(kind)(unsupported(f.__name__, argument))


def register_all(kind: type, implementations: dict[Any, Callable[..., Any]]) -> None:
    """Register ``implementations[f]`` for ``kind`` on each singledispatch function ``f``.

    Examples
    --------
    >>> from functools import singledispatch
    >>> measure = singledispatch(lambda C: 1.0)
    >>> register_all(str, {measure: lambda C: 2.0})
    >>> measure([[1.0]]), measure("C")
    (1.0, 2.0)
    """
    for f, impl in implementations.items():
        f.register(kind)(impl)


def register_same_names(kind: type, module: ModuleType, *functions: Any) -> None:
    """Register, for ``kind`` on each singledispatch function ``f``, the function of
    ``module`` named as ``f`` (a kind implements an operation under its name).

    Examples
    --------
    >>> import math
    >>> from functools import singledispatch
    >>> sqrt = singledispatch(lambda x: "no root")
    >>> sqrt.__name__ = "sqrt"
    >>> register_same_names(float, math, sqrt)
    >>> sqrt(4.0), sqrt("4")
    (2.0, 'no root')
    """
    register_all(kind, {f: getattr(module, f.__name__) for f in functions})


def register_kind(
    kind: type,
    rank: int,
    implementations: dict[Any, Callable[..., Any]] | None = None,
    *,
    advice: str | None = None,
) -> None:
    """Register a kind of channel (or of protocol object) on the dispatch.

    Parameters
    ----------
    kind : type
        The class of the kind.
    rank : int
        Its :func:`kind_rank`: a pair goes to the implementation of the richer kind
        (:func:`dispatch_on_pair`).
    implementations : dict, optional
        Singledispatch function -> its implementation for ``kind``
        (:func:`register_all`).
    advice : str, optional
        Its :func:`remedy`: what to do where an operation does not support it.

    Examples
    --------
    >>> class Lumped:
    ...     pass
    >>> register_kind(Lumped, 5, {n_inputs: lambda C: 3}, advice="expand it")
    >>> kind_rank(Lumped()), n_inputs(Lumped()), remedy(Lumped())
    (5, 3, 'expand it')
    """
    register_all(kind, {kind_rank: lambda C: rank, **(implementations or {})})
    if advice is not None:
        register_all(kind, {remedy: lambda C: advice})


def is_unsupported(function: Any, kind: type) -> bool:
    """True when the singledispatch ``function`` resolves ``kind`` to :func:`unsupported`.

    >>> import qifldp as q
    >>> is_unsupported(q.bayes_capacity, q.Channel)
    False
    """
    impl = function.dispatch(kind)
    return bool(getattr(impl, "_qifldp_unsupported", False))


@singledispatch
def n_inputs(C: Any) -> int:
    """The number of secrets |X| of a channel of any kind (k for a symmetric channel).

    The explicit kind (:mod:`qifldp.channel`) registers the default for any object
    (an array-like is read as :func:`qifldp.as_channel` does); here nothing is known.

    >>> import qifldp.channel  # registers the explicit kind
    >>> n_inputs([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    3
    """
    raise unsupported_kind("n_inputs", C)


@singledispatch
def to_explicit(C: Any, name: str = "C") -> Any:
    """The explicit Channel of C where an operation expands other kinds (size-guarded).

    The explicit kind (:mod:`qifldp.channel`) registers the default, which reads an
    array-like as :func:`qifldp.as_channel` does; the symmetric kind registers its
    ``expand()``.

    >>> import qifldp.channel  # registers the explicit kind
    >>> to_explicit([[1.0, 0.0], [0.0, 1.0]]).shape
    (2, 2)
    """
    raise unsupported_kind("to_explicit", C, name)


@singledispatch
def entries(C: Any) -> Any:
    """The entries of a channel of any kind as the f-DP routines read them.

    Unchanged here (a Channel, an array or an exact nested list); the symmetric
    kind registers its explicit expansion, the symbolic kind its sympy matrix
    (exact entries stay exact).

    >>> entries([[1, 0], [0, 1]])
    [[1, 0], [0, 1]]
    """
    return C


@singledispatch
def permute_inputs(C: Any, order: Any, labels: tuple) -> Any:
    """A copy of the labelled channel C with row ``order[i]`` at position i, inputs ``labels``.

    How :mod:`qifldp.alignment` matches rows by label: each labelled kind registers
    its own (the explicit Channel in :mod:`qifldp.alignment`, the symbolic channel
    in :mod:`qifldp.symbolic`); C itself is never changed.

    >>> import numpy as np
    >>> import qifldp as q
    >>> permute_inputs(q.Channel([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 0]), ("b", "a")).inputs
    ('b', 'a')
    """
    raise unsupported_kind("permute_inputs", C)


def first_channel(args: tuple) -> Any:
    """The channel an operation on several channels dispatches on.

    The first positional argument, or the first element of it when it is a
    list or tuple of channels (``compose([A, B])``, ``visible_choice([A, B])``).

    >>> first_channel((["A", "B"], None))
    'A'
    """
    if not args:
        return None
    x = args[0]
    if isinstance(x, (list, tuple)) and x:
        return x[0]
    return x


def _with_singledispatch_interface(wrapper: Any, inner: Any) -> Any:
    """``wrapper`` with the ``register``, ``dispatch`` and ``registry`` of ``inner``."""
    wrapper.register = inner.register
    wrapper.dispatch = inner.dispatch
    wrapper.registry = inner.registry
    return wrapper


def dispatch_on_first_channel(func: Callable[..., Any]) -> Any:
    """Like :func:`functools.singledispatch`, dispatching on :func:`first_channel` of the call.

    For operations whose channels come as a sequence or as ``*channels``. The
    wrapper has the ``register``, ``dispatch`` and ``registry`` of a
    singledispatch function; every implementation receives the arguments as given.

    Examples
    --------
    >>> @dispatch_on_first_channel
    ... def size(channels):
    ...     return len(channels)
    >>> @size.register(str)
    ... def _(channels):
    ...     return -1
    >>> size([[1.0], [1.0]]), size(["a", "b"])
    (2, -1)
    """
    inner = singledispatch(func)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return inner.dispatch(type(first_channel(args)))(*args, **kwargs)

    return _with_singledispatch_interface(wrapper, inner)


@singledispatch
def kind_rank(C: Any) -> int:
    """How rich the kind of ``C`` is, for :func:`dispatch_on_pair`: 0 for explicit channels.

    Explicit channels and array-likes are the default kind (0); the other kinds
    and the protocol objects register a higher rank (a pair of two kinds goes to
    the implementation of the richer one).

    >>> kind_rank([[1.0, 0.0], [0.0, 1.0]])
    0
    """
    return 0


def dispatch_on_pair(func: Callable[..., Any]) -> Any:
    """Like :func:`functools.singledispatch`, dispatching on the richer kind of (A, B).

    For order relations of two channels (``refines(A, B)``): the implementation
    registered for the kind of A or of B, whichever has the higher
    :func:`kind_rank` (A on a tie), so that a mixed pair (an explicit channel with
    a symbolic one, in either order) is decided by the richer kind, which accepts
    or refuses the other. An :func:`unsupported` implementation names the argument
    of that kind. The wrapper has the ``register``, ``dispatch`` and ``registry``
    of a singledispatch function.

    Examples
    --------
    >>> class Rich:
    ...     pass
    >>> @dispatch_on_pair
    ... def relation(A, B):
    ...     return "explicit"
    >>> @relation.register(Rich)
    ... def _(A, B):
    ...     return "rich"
    >>> @kind_rank.register(Rich)
    ... def _(C):
    ...     return 1
    >>> relation([[1.0]], [[1.0]]), relation([[1.0]], Rich()), relation(Rich(), [[1.0]])
    ('explicit', 'rich', 'rich')
    """
    inner = singledispatch(func)

    @functools.wraps(func)
    def wrapper(A: Any, B: Any, *args: Any, **kwargs: Any) -> Any:
        on_b = kind_rank(B) > kind_rank(A)
        C = B if on_b else A
        impl = inner.dispatch(type(C))
        if getattr(impl, "_qifldp_unsupported", False):
            raise unsupported_kind(func.__name__, C, "B" if on_b else "A")
        return impl(A, B, *args, **kwargs)

    return _with_singledispatch_interface(wrapper, inner)


# -- scalar steps of the derived measures, by the type of the value ----------------------
@singledispatch
def exp_value(x: Any) -> Any:
    """e^x: a float (``inf`` beyond the float range) here, ``sympy.exp`` for an expression.

    >>> exp_value(0.0), exp_value(800.0)
    (1.0, inf)
    """
    x = _real("eps", x)
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


@singledispatch
def log2_value(x: Any) -> Any:
    """log2(x): ``math.log2`` here, ``log(x) / log(2)`` for an expression.

    >>> log2_value(8.0)
    3.0
    """
    return math.log2(x)


@singledispatch
def is_nonpositive(x: Any) -> bool:
    """True when x <= 0 (for an expression: only when provably so).

    >>> is_nonpositive(0.0), is_nonpositive(0.5)
    (True, False)
    """
    return bool(x <= 0)


@singledispatch
def tidy_value(x: Any) -> Any:
    """The compact form of a measure's value: a float unchanged, an expression tidied.

    >>> tidy_value(0.25)
    0.25
    """
    return x


# -- names a kind package receives from above ---------------------------------------------
def module_getattr(module: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of a kind package, until :func:`qifldp.faces.attach` replaces it.

    The kinds (:mod:`qifldp.symmetric`, :mod:`qifldp.symbolic`, :mod:`qifldp.simulation`)
    receive their constructors and flat names from above, from ``qifldp.faces``, when they
    are imported; this placeholder says so to a type checker and raises the usual
    AttributeError for any name (the faces ask it for the names they do not give).

    Examples
    --------
    >>> __getattr__ = module_getattr("qifldp.example")
    >>> __getattr__("oue")
    Traceback (most recent call last):
    ...
    AttributeError: module 'qifldp.example' has no attribute 'oue'
    """

    def __getattr__(name: str) -> Any:
        msg = f"module {module!r} has no attribute {name!r}"
        raise AttributeError(msg)

    return __getattr__
