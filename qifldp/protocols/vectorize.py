"""Vectorised arguments of the closed forms: validation, broadcasting, scalar in -> scalar out.

The published closed forms of each family module (``bayes_capacity_grr`` in
:mod:`qifldp.protocols.grr`, ...) take numbers or numpy arrays, broadcast them
together and return a float for scalar arguments, an ndarray otherwise. This
module holds what they share: the argument checks (with the errors of
:mod:`qifldp.errors`, naming the argument), the stable (1 - (1 - q)^k) / q, and
:func:`asr_from`, which writes ASR = ML / k once for every family.

>>> import numpy as np
>>> is_scalar(k=3, eps=1.0), is_scalar(k=[3, 4], eps=1.0)
(True, False)
>>> output(np.asarray(2.0) / as_ints("k", 4, 2), True)
0.5
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..errors import InputTypeError, ParameterError
from .docstrings import fill

__all__ = [
    "SERIES_CUTOFF",
    "as_array",
    "is_scalar",
    "as_ints",
    "as_floats",
    "as_eps",
    "as_theta",
    "log_ints",
    "ints_as_floats",
    "output",
    "one_minus_pow_over",
    "check_printed",
    "per_k",
    "asr_from",
    "ARGUMENTS",
    "closed_form_doc",
]

_F = TypeVar("_F", bound=Callable[..., Any])

#: Where k q < SERIES_CUTOFF, (1 - (1 - q)^k) / q is evaluated by its series
#: k (1 - (k - 1) q / 2) (relative error below SERIES_CUTOFF^2 / 6), which stays
#: exact when q underflows to 0.
SERIES_CUTOFF: float = 1e-8

#: Integer arguments the closed forms evaluate in floating point: they must not
#: exceed the float range (g of local hashing is used through its logarithm and may).
_FLOAT_RANGE_INTS = frozenset({"k", "omega"})


def as_array(name: str, value: Any) -> np.ndarray:
    """``np.asarray(value)`` with a clear error for ragged nested sequences.

    Raises
    ------
    ParameterError
        ``value`` is not a number or a rectangular array of numbers.

    Examples
    --------
    >>> as_array("k", [2, 3]).shape
    (2,)
    >>> as_array("k", [[2], [3, 4]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: k must be a number or a rectangular array of numbers: ...
    """
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as exc:
        msg = f"{name} must be a number or a rectangular array of numbers: {exc}"
        raise ParameterError(msg) from None


def is_scalar(**args: Any) -> bool:
    """True when every named argument is a scalar (None counts as one).

    Examples
    --------
    >>> is_scalar(k=3, omega=None), is_scalar(k=3, eps=[1.0])
    (True, False)
    """
    return all(as_array(name, a).ndim == 0 for name, a in args.items())


def as_ints(name: str, value: Any, minimum: int) -> np.ndarray:
    """Integer array (dtype int64, or object for Python ints beyond int64), each ``>= minimum``.

    Integral floats are accepted; ``k`` and ``omega`` must stay within the float range.

    Raises
    ------
    InputTypeError
        Not an integer (bool, a fraction, NaN, a string ...).
    ParameterError
        Below ``minimum``; ``k``/``omega`` beyond about 1.8e308.

    Examples
    --------
    >>> as_ints("k", [2, 3.0], 2).tolist()
    [2, 3]
    >>> as_ints("k", 1, 2)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: k must be >= 2, got 1
    """
    arr = as_array(name, value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf" and arr.dtype != object:
        msg = f"{name} must be an integer (or an array of integers), got {value!r}"
        raise InputTypeError(msg)
    if arr.dtype == object:
        flat = arr.reshape(-1)
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in flat):
            msg = f"{name} must be an integer (or an array of integers), got {value!r}"
            raise InputTypeError(msg)
        if any(v < minimum for v in flat):
            msg = f"{name} must be >= {minimum}, got {value!r}"
            raise ParameterError(msg)
        if name in _FLOAT_RANGE_INTS and any(v > sys.float_info.max for v in flat):
            msg = (
                f"{name} beyond the float range (about 1.8e308) is not supported by the "
                f"closed forms, got ~10^{math.log10(max(flat)):.1f}"
            )
            raise ParameterError(msg)
        return arr
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
            msg = f"{name} must be an integer (or an array of integers), got {value!r}"
            raise InputTypeError(msg)
        if np.any(np.abs(arr) >= 2.0**62):  # beyond int64: exact Python ints (object path)
            exact = np.empty(arr.shape, dtype=object)
            exact.reshape(-1)[:] = [int(v) for v in arr.reshape(-1)]
            return as_ints(name, exact, minimum)
        arr = arr.astype(np.int64)
    if np.any(arr < minimum):
        msg = f"{name} must be >= {minimum}, got {value!r}"
        raise ParameterError(msg)
    return arr.astype(np.int64)


def as_floats(name: str, value: Any, *rules: tuple[Callable[[np.ndarray], Any], str]) -> np.ndarray:
    """float64 array of real numbers, no NaN, each rule ``(bad, "must ...")`` obeyed.

    Raises
    ------
    InputTypeError, ParameterError
        Not real numbers; NaN; a value for which ``bad`` is true (``name must <rule>``).

    Examples
    --------
    >>> as_floats("p", [0.5, 1]).tolist()
    [0.5, 1.0]
    >>> as_floats("p", 2.0, (lambda a: a > 1, "be <= 1"))
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: p must be <= 1, got 2.0
    """
    arr = as_array(name, value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        msg = f"{name} must be a real number (or an array of them), got {value!r}"
        raise InputTypeError(msg)
    arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        msg = f"{name} must not be NaN"
        raise ParameterError(msg)
    for bad, rule in rules:
        if np.any(bad(arr)):
            msg = f"{name} must {rule}, got {value!r}"
            raise ParameterError(msg)
    return arr


def as_eps(value: Any) -> np.ndarray:
    """The privacy parameter(s) eps: finite reals ``>= 0``.

    Examples
    --------
    >>> as_eps(1).tolist()
    1.0
    >>> as_eps(-1.0)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: eps must be >= 0, got -1.0
    """
    return as_floats("eps", value, (lambda a: a < 0, "be >= 0"), (np.isinf, "be finite"))


def as_theta(value: Any) -> np.ndarray:
    """THE's threshold(s) theta, in the open interval (0.5, 1).

    Examples
    --------
    >>> as_theta([0.6, 0.75]).tolist()
    [0.6, 0.75]
    """
    outside = (lambda a: (a <= 0.5) | (a >= 1.0), "lie in the open interval (0.5, 1)")
    return as_floats("theta", value, outside)


def log_ints(arr: np.ndarray) -> np.ndarray:
    """Natural log of a positive integer array (object arrays of huge ints included).

    Examples
    --------
    >>> round(float(log_ints(as_ints("g", 10**400, 2))), 3)
    921.034
    """
    arr = np.asarray(arr)
    if arr.dtype == object:
        return np.vectorize(lambda v: math.log(v), otypes=[np.float64])(arr)
    return np.log(arr.astype(np.float64))


def ints_as_floats(arr: np.ndarray, name: str = "k") -> np.ndarray:
    """float64 copy of an integer array from :func:`as_ints`, refusing values beyond float range.

    Examples
    --------
    >>> ints_as_floats(as_ints("k", [2, 3], 2)).tolist()
    [2.0, 3.0]
    >>> ints_as_floats(as_ints("g", 10**400, 2), "g")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: g beyond the float range (about 1.8e308) is not supported ...
    """
    arr = np.asarray(arr)
    if arr.dtype == object:
        try:
            return np.vectorize(float, otypes=[np.float64])(arr)
        except OverflowError:
            msg = f"{name} beyond the float range (about 1.8e308) is not supported by this formula"
            raise ParameterError(msg) from None
    return arr.astype(np.float64)


def output(x: np.ndarray, scalar: bool) -> Any:
    """A Python float when the call was scalar, the array otherwise.

    Examples
    --------
    >>> output(np.array(1.5), True), output(np.array([1.5]), False)
    (1.5, array([1.5]))
    """
    return float(x) if scalar else x


def one_minus_pow_over(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(1 - (1 - q)^k) / q, stable for tiny q (series below :data:`SERIES_CUTOFF`) and any k.

    Examples
    --------
    >>> float(one_minus_pow_over(0.5, 2)), float(one_minus_pow_over(0.0, 7))
    (1.5, 7.0)
    """
    q, k = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64))
    small = k * q < SERIES_CUTOFF
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = -np.expm1(k * np.log1p(-q)) / q
    return np.where(small, k * (1.0 - (k - 1.0) * q / 2.0), exact)


def check_printed(printed: Any) -> bool:
    """The ``printed`` switch of the ACC formulas, which must be a bool.

    Examples
    --------
    >>> check_printed(True)
    True
    >>> check_printed("yes")
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: printed must be a bool, got 'yes'
    """
    if not isinstance(printed, (bool, np.bool_)):
        msg = f"printed must be a bool, got {printed!r}"
        raise InputTypeError(msg)
    return bool(printed)


def per_k(ml: Any, k: Any) -> Any:
    """ML / k, broadcast, scalar when both are (``k`` checked as a domain size).

    Examples
    --------
    >>> per_k(1.5, 3), per_k(np.array([2.0, 3.0]), [4, 6]).tolist()
    (0.5, [0.5, 0.5])
    """
    kf = ints_as_floats(as_ints("k", k, 2))
    return output(np.asarray(ml) / kf, np.ndim(ml) == 0 and np.ndim(k) == 0)


def asr_from(
    capacity: Callable[..., Any],
    example: str,
    divide: Callable[[Any, Any], Any] = per_k,
) -> Callable[..., Any]:
    """The ASR = ML / k twin of a Bayes-capacity closed form (same signature and module).

    ASR = V1[ϑ▷C] = ML(C) / k is the success of the Bayes-optimal one-try
    attacker under the uniform prior ϑ (QIF paper Eq. 18; Alvim et al., *The
    Science of QIF*, Thm 7.2). This is the one place where it is written: the
    ``asr_*`` closed forms of every family are made here.

    Parameters
    ----------
    capacity : callable
        ``bayes_capacity_<name>(k, ...)``; its first argument is k.
    example : str
        Doctest lines (``>>> call`` and the value) for the generated docstring;
        doctest collects it in the family module (the function's ``__module__``).
    divide : callable
        ``divide(ml, k)``: :func:`per_k` (numeric) or an exact division.

    Returns
    -------
    callable
        ``asr_<name>``, with the signature of ``capacity``.

    Examples
    --------
    >>> def bayes_capacity_toy(k, eps):
    ...     return 2.0
    >>> asr_toy = asr_from(bayes_capacity_toy, ">>> asr_toy(4, 1.0)\\n0.5")
    >>> asr_toy.__name__, asr_toy(4, 1.0), str(inspect.signature(asr_toy))
    ('asr_toy', 0.5, '(k, eps)')
    """
    signature = inspect.signature(capacity)
    name = capacity.__name__.replace("bayes_capacity", "asr")
    family = name.rsplit("_", 1)[-1]

    @functools.wraps(capacity, assigned=("__module__", "__annotations__"))
    def asr(*args: Any, **kwargs: Any) -> Any:
        k = signature.bind(*args, **kwargs).arguments["k"]
        return divide(capacity(*args, **kwargs), k)

    asr.__name__ = asr.__qualname__ = name
    asr.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect.signature
    example = "\n".join("    " + line for line in example.splitlines())
    kind = "float or numpy.ndarray" if divide is per_k else "sympy.Expr"
    asr.__doc__ = f"""ASR of {family.upper()} = ML / k (:func:`{capacity.__name__}` over k).

    The success of the Bayes-optimal one-try attacker under a uniform prior
    (QIF paper Eq. 18), made by :func:`qifldp.protocols.vectorize.asr_from`.

    Parameters
    ----------
    {", ".join(signature.parameters)}
        As in :func:`{capacity.__module__}.{capacity.__name__}`.

    Returns
    -------
    {kind}
        A probability in [1/k, 1].

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`{capacity.__name__}`.

    Examples
    --------
{example}
    """
    return asr


#: The numpydoc entries of the closed forms' usual arguments, written once;
#: :func:`closed_form_doc` puts them into each docstring's Parameters section.
ARGUMENTS: dict[str, str] = {
    "k": "k : int or array_like of int\n    Domain size(s), ``>= 2``.",
    "eps": "eps : float or array_like\n    Privacy parameter(s), finite, ``>= 0``.",
    "theta": "theta : float or array_like\n    Threshold(s) of THE, in the open interval (0.5, 1).",
    "omega": (
        "omega : int or array_like of int, optional\n"
        "    Subset size(s), ``1 <= omega <= k``; default ``max(1, round(k / (e^eps + 1)))``\n"
        "    as in :func:`qifldp.subset_selection`."
    ),
    "g": (
        "g : int or array_like of int\n"
        "    Hash range(s), ``>= 2`` (Python ints of any size are accepted)."
    ),
    "p": "p : float or array_like\n    Pr[a 1 bit is reported as 1], ``0 <= q < p <= 1``.",
    "q": "q : float or array_like\n    Pr[a 0 bit is reported as 1], ``0 <= q < p <= 1``.",
    "printed": (
        "printed : bool\n    False (default): the true value. True: the paper's printed expression."
    ),
}


def closed_form_doc(returns: str = "", raises: str = "", **entries: str) -> Callable[[_F], _F]:
    """Decorator: replace the ``{sections}`` line of a closed form's docstring by its
    Parameters, Returns and Raises sections.

    Parameters are listed in signature order, each with its entry in ``entries``
    or else in :data:`ARGUMENTS`, so that the shared descriptions are written once.

    Parameters
    ----------
    returns : str
        What the float (or array) is, one line or more.
    raises : str
        When ``InputTypeError`` / ``ParameterError`` are raised; default: a bad
        value of any argument.
    **entries : str
        numpydoc entries (``"name : type\\n    text"``) replacing :data:`ARGUMENTS`.

    Returns
    -------
    callable
        The decorator (it returns the function itself, with the docstring filled).

    Examples
    --------
    >>> @closed_form_doc(returns="In [1, k].", omega="omega : int\\n    Subset size.")
    ... def f(k, omega):
    ...     '''Toy.
    ...
    ...     {sections}
    ...     '''
    >>> print(f.__doc__.strip())
    Toy.
    <BLANKLINE>
        Parameters
        ----------
        k : int or array_like of int
            Domain size(s), ``>= 2``.
        omega : int
            Subset size.
    <BLANKLINE>
        Returns
        -------
        float or numpy.ndarray
            In [1, k].
    <BLANKLINE>
        Raises
        ------
        InputTypeError, ParameterError
            A bad ``k`` or ``omega`` (the message names it and the rule).
    """

    def decorate(func: _F) -> _F:
        names = [n for n in inspect.signature(func).parameters]
        lines = ["Parameters", "----------"]
        for name in names:
            lines += (entries.get(name) or ARGUMENTS[name]).splitlines()
        lines += ["", "Returns", "-------", "float or numpy.ndarray"]
        lines += ["    " + line for line in returns.splitlines()]
        shown = [f"``{n}``" for n in names]
        bad = ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]
        default = f"A bad {bad} (the message names it and the rule)."
        lines += ["", "Raises", "------", "InputTypeError, ParameterError"]
        lines += ["    " + line for line in (raises or default).splitlines()]
        func.__doc__ = fill(func.__doc__ or "", {"sections": "\n".join(lines)})
        return func

    return decorate
