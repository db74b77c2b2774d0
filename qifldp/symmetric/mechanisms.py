"""The paper's protocols as symmetric channels: aliases of the protocol objects' ``.symmetric()``.

``qifldp.symmetric.oue(k, eps)`` is ``qifldp.protocol("oue", k, eps).symmetric()``:
the same names, arguments, checks and errors as the explicit constructors of
:mod:`qifldp.mechanisms`, with no size limit from enumeration. The channel code
lives with its protocol (``GRR.symmetric`` in :mod:`qifldp.protocols.grr` ...), the
log-space parameters in :mod:`qifldp.protocols.params`. The aliases are generated
from the table below.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .. import mechanisms as _explicit
from ..protocols import GRR, LH, SS, THE, UE, Protocol
from .channel import SymmetricChannel

__all__ = [
    "grr",
    "subset_selection",
    "local_hashing",
    "blh",
    "olh",
    "unary_encoding",
    "sue",
    "oue",
    "the",
]

_DOC = """{summary} as a symmetric channel: ``{call}.symmetric()``.

Parameters
----------
{params}
    As for :func:`qifldp.{name}`.

Returns
-------
SymmetricChannel
    See :meth:`qifldp.protocols.{cls}.symmetric`; ``expand()`` equals
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
    name: str,
    family: type[Protocol],
    make: Callable[..., Protocol],
    summary: str,
    call: str,
    example: str,
    result: str,
) -> Callable[..., SymmetricChannel]:
    """The symmetric twin of ``qifldp.mechanisms.<name>``: ``make(*args).symmetric()``."""
    signature = inspect.signature(getattr(_explicit, name))
    signature = signature.replace(return_annotation="SymmetricChannel")

    def constructor(*args: Any, **kwargs: Any) -> SymmetricChannel:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{name}() {exc}") from None
        return make(*bound.args).symmetric()

    names = ", ".join(signature.parameters)
    types = ", ".join(str(p.annotation) for p in signature.parameters.values())
    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = _DOC.format(
        summary=summary,
        call=call,
        params=f"{names} : {types}",
        name=name,
        cls=family.__name__,
        example=example,
        result=result,
    )
    constructor.__signature__ = signature  # type: ignore[attr-defined]  # read by inspect
    return constructor


grr = _alias(
    "grr",
    GRR,
    GRR,
    "Generalized randomized response",
    'protocol("grr", k, eps)',
    "round(q.bayes_capacity(sym.grr(10**6, 5.0)), 6)  # k p = k e^5 / (e^5 + k - 1)",
    "148.391284",
)
subset_selection = _alias(
    "subset_selection",
    SS,
    SS,
    "omega-subset selection (outputs: the omega-subsets)",
    'protocol("ss", k, eps, omega=omega)',
    "int(sym.subset_selection(10**6, 2.0).sizes[0])  # round(10^6 / (e^2 + 1))",
    "119203",
)
local_hashing = _alias(
    "local_hashing",
    LH,
    lambda k, eps, g: LH(k, eps, g),
    "Local hashing, lumped by the preimage h^-1(z)",
    'protocol("lh", k, eps, g=g)',
    "round(q.bayes_capacity(sym.local_hashing(2, 1.0986122886681098, 2)), 12)  # eps = ln 3",
    "1.25",
)
blh = _alias(
    "blh",
    LH,
    lambda k, eps: LH(k, eps, variant="blh"),
    "Binary local hashing (g = 2)",
    'protocol("blh", k, eps)',
    "round(q.ldp_epsilon(sym.blh(1000, 1.5)), 9)",
    "1.5",
)
olh = _alias(
    "olh",
    LH,
    lambda k, eps: LH(k, eps, variant="olh"),
    "Optimized local hashing (g = round(e^eps + 1), at least 2)",
    'protocol("olh", k, eps)',
    "sym.olh(10, 1.0).name",
    "'local_hashing(k=10, eps=1, g=4)'",
)
unary_encoding = _alias(
    "unary_encoding",
    UE,
    lambda k, p, q: UE(k, p=p, q=q),
    "Unary encoding with bits p, q (output: the set of 1-bits)",
    'protocol("ue", k, p=p, q=q)',
    "round(q.bayes_capacity(sym.unary_encoding(2, 0.75, 0.25)), 12)",
    "1.5",
)
sue = _alias(
    "sue",
    UE,
    lambda k, eps: UE(k, eps, variant="sue"),
    "Symmetric unary encoding (basic RAPPOR)",
    'protocol("sue", k, eps)',
    "round(q.ldp_epsilon(sym.sue(10**6, 3.0)), 9)",
    "3.0",
)
oue = _alias(
    "oue",
    UE,
    lambda k, eps: UE(k, eps, variant="oue"),
    "Optimized unary encoding",
    'protocol("oue", k, eps)',
    "round(q.ldp_epsilon(sym.oue(10**6, 50.0)), 9)",
    "50.0",
)
the = _alias(
    "the",
    THE,
    THE,
    "Thresholding with histogram encoding",
    'protocol("the", k, eps, theta=theta)',
    "round(q.bayes_capacity(sym.the(3, 2.0, 0.75)), 6)",
    "1.660402",
)
