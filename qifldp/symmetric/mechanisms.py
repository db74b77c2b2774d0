"""The paper's protocols as symmetric channels: aliases of the protocol objects' ``.symmetric()``.

``qifldp.symmetric.oue(k, eps)`` is ``qifldp.protocol("oue", k, eps).symmetric()``:
the same names, arguments, checks and errors as the explicit constructors of
:mod:`qifldp.mechanisms`, with no size limit from enumeration. The channel code
lives with its protocol (``GRR.symmetric`` in :mod:`qifldp.protocols.grr` ...), the
log-space parameters in :mod:`qifldp.protocols.params`. The aliases are generated
from one line each below.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .. import mechanisms as _explicit
from ..protocols import GRR, LH, SS, THE, UE, Protocol, protocol
from .channel import SymmetricChannel

__all__ = list(_explicit.CONSTRUCTORS)  # grr, subset_selection, ... as qifldp.mechanisms

#: The protocol name of a constructor whose name differs from it.
_PROTOCOL_NAME = {"subset_selection": "ss", "local_hashing": "lh", "unary_encoding": "ue"}

_DOC = """{summary}

As a symmetric channel: ``{call}.symmetric()``, no size limit from enumeration.

Parameters
----------
{params}
    As for :func:`qifldp.{name}`.

Returns
-------
SymmetricChannel
    See :meth:`qifldp.protocols.{family}.symmetric`; ``expand()`` equals
    ``qifldp.{name}(...)`` where that fits in memory.

Raises
------
InputTypeError, ParameterError
    As :func:`qifldp.{name}` (no SizeError: nothing is enumerated).

Examples
--------
>>> import qifldp as q, qifldp.symmetric as sym
>>> {example}
{result}
"""


def _alias(
    name: str, family: type[Protocol], example: str, result: str
) -> Callable[..., SymmetricChannel]:
    """The symmetric twin of ``qifldp.mechanisms.<name>``: ``protocol(...).symmetric()``."""
    explicit = getattr(_explicit, name)
    signature = inspect.signature(explicit).replace(return_annotation="SymmetricChannel")
    pname = _PROTOCOL_NAME.get(name, name)

    def constructor(*args: Any, **kwargs: Any) -> SymmetricChannel:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{name}() {exc}") from None
        return protocol(pname, **bound.arguments).symmetric()

    parameters = signature.parameters.values()
    leading = [p.name for p in parameters if p.name in ("k", "eps")]
    keywords = [f"{p.name}={p.name}" for p in parameters if p.name not in ("k", "eps")]
    call = f"protocol({', '.join([repr(pname), *leading, *keywords])})"
    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = _DOC.format(
        summary=(explicit.__doc__ or "").strip().splitlines()[0],
        call=call,
        params=", ".join(p.name for p in parameters)
        + " : "
        + ", ".join(str(p.annotation) for p in parameters),
        name=name,
        family=family.__name__,
        example=example,
        result=result,
    )
    constructor.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect
    return constructor


grr = _alias(
    "grr", GRR, "round(q.bayes_capacity(sym.grr(10**6, 5.0)), 6)  # k e^5/(e^5+k-1)", "148.391284"
)
subset_selection = _alias(
    "subset_selection", SS, "int(sym.subset_selection(10**6, 2.0).sizes[0])", "119203"
)
local_hashing = _alias("local_hashing", LH, "sym.local_hashing(1000, 2.0, 5).k", "1000")
blh = _alias("blh", LH, "round(q.ldp_epsilon(sym.blh(1000, 1.5)), 9)", "1.5")
olh = _alias("olh", LH, "sym.olh(10, 1.0).name", "'local_hashing(k=10, eps=1, g=4)'")
unary_encoding = _alias(
    "unary_encoding", UE, "q.bayes_capacity(sym.unary_encoding(2, 0.75, 0.25))", "1.5"
)
sue = _alias("sue", UE, "round(q.ldp_epsilon(sym.sue(10**6, 3.0)), 9)", "3.0")
oue = _alias("oue", UE, "round(q.ldp_epsilon(sym.oue(10**6, 50.0)), 9)", "50.0")
the = _alias("the", THE, "round(q.bayes_capacity(sym.the(3, 2.0, 0.75)), 6)", "1.660402")
