"""The frequency oracles as protocol objects, and their parameters.

``protocol(name, k, eps, **params)`` returns a frozen :class:`Protocol` (one class
per family: :class:`GRR`, :class:`SS`, :class:`LH` for lh/blh/olh, :class:`UE` for
ue/sue/oue, :class:`THE`) whose parameters are validated and computed once; every
representation and formula of the protocol comes from it, like a frozen
scipy.stats distribution. The flat constructors ``qifldp.grr`` ... are aliases
(``qifldp.oue(k, eps)`` is ``protocol("oue", k, eps).channel()``). The protocols'
parameter formulas (p, q, omega, g, theta) live in :mod:`qifldp.protocols.params`.

>>> import qifldp as q
>>> P = q.protocol("oue", 4, 1.0)
>>> P.channel() == q.oue(4, 1.0), P.symmetric() == q.symmetric.oue(4, 1.0)
(True, True)
>>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
True
"""

from __future__ import annotations

from typing import Any

from ..errors import InputTypeError, ParameterError
from . import params
from .base import ClosedForm, Protocol, refuse_unknown
from .grr import GRR, GRRClosedForm
from .lh import LH, LHClosedForm, lh_encoding, lh_perturbation
from .ss import SS, SSClosedForm
from .the import THE, THEClosedForm, the_bit
from .ue import UE, UEClosedForm, oue_bit, sue_bit

__all__ = [
    "PROTOCOL_NAMES",
    "protocol",
    "Protocol",
    "ClosedForm",
    "GRR",
    "SS",
    "LH",
    "UE",
    "THE",
    "GRRClosedForm",
    "SSClosedForm",
    "LHClosedForm",
    "UEClosedForm",
    "THEClosedForm",
    "lh_encoding",
    "lh_perturbation",
    "sue_bit",
    "oue_bit",
    "the_bit",
    "params",
]

#: Each name's parameters besides k (and eps, which every name but "ue" takes).
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "grr": (),
    "ss": ("omega",),
    "lh": ("g",),
    "blh": (),
    "olh": (),
    "ue": ("p", "q"),
    "sue": (),
    "oue": (),
    "the": ("theta",),
}

#: The names :func:`protocol` accepts.
PROTOCOL_NAMES: tuple[str, ...] = tuple(_PARAMETERS)


def protocol(name: str, k: int, eps: float | None = None, **params: Any) -> Protocol:
    """The frozen protocol object of a frequency oracle.

    Parameters
    ----------
    name : str
        One of ``grr``, ``ss``, ``lh``, ``blh``, ``olh``, ``ue``, ``sue``, ``oue``, ``the``.
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, finite and ``>= 0`` (``ue`` takes p and q instead).
    **params
        ``omega`` (ss, optional), ``g`` (lh), ``p`` and ``q`` (ue), ``theta`` (the),
        as for the flat constructors.

    Returns
    -------
    Protocol
        Frozen and hashable; equal to another when name and parameters are equal.

    Raises
    ------
    ParameterError
        Unknown ``name`` (the message lists the valid ones); parameters out of
        range, exactly as the flat constructors (``qifldp.grr`` ...) raise.
    InputTypeError
        ``name`` not a string; a parameter the protocol does not take; wrong types.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("the", 4, 1.0, theta=0.7)
    >>> P
    protocol('the', k=4, eps=1.0, theta=0.7)
    >>> P.channel().shape, round(P.params["q"], 6)
    ((4, 16), 0.352344)
    >>> q.protocol("ue", 3, p=0.75, q=0.25).params
    {'p': 0.75, 'q': 0.25}
    """
    if not isinstance(name, str):
        msg = f"name must be a protocol name (a str), got {name!r} of type {type(name).__name__}"
        raise InputTypeError(msg)
    if name not in _PARAMETERS:
        msg = f"name must be one of {', '.join(PROTOCOL_NAMES)}, got {name!r}"
        raise ParameterError(msg)
    allowed = _PARAMETERS[name]
    takes = ", ".join(allowed) if allowed else "no parameters besides k and eps"
    refuse_unknown(
        params, allowed, InputTypeError, lambda got: f"protocol {name!r} takes {takes}; got {got}"
    )
    if name in ("ue", "sue", "oue"):
        return UE(k, eps, p=params.get("p"), q=params.get("q"), variant=name)
    e: Any = eps  # None (or any bad value) is refused by the family's check_eps
    if name == "grr":
        return GRR(k, e)
    if name == "ss":
        return SS(k, e, params.get("omega"))
    if name in ("lh", "blh", "olh"):
        return LH(k, e, params.get("g"), variant=name)
    theta: Any = params.get("theta")  # None is refused by check_theta
    return THE(k, e, theta)
