"""The frequency oracles by name: one function that builds the frozen object of each.

``oracle(name, k, eps, **params)`` is what :func:`qifldp.protocol` calls for the nine
frequency-oracle names (grr, ss, lh, blh, olh, ue, sue, oue, the); the composite
protocols that run one oracle per attribute (SPL, SMP) build theirs with it too.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import InputTypeError
from ..validation import check_eps, check_name
from .base import Protocol, refuse_unknown
from .docstrings import ORACLE_DOCS, fill_doc
from .grr import GRR
from .lh import LH
from .params import check_k
from .ss import SS
from .the import THE
from .ue import UE

__all__ = ["ORACLE_PARAMETERS", "ORACLE_NAMES", "oracle", "adp", "adp_choice"]

#: Each oracle's parameters besides k (and eps, which every name but "ue" takes).
ORACLE_PARAMETERS: dict[str, tuple[str, ...]] = {
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

#: The frequency oracles' names.
ORACLE_NAMES: tuple[str, ...] = tuple(ORACLE_PARAMETERS)


@fill_doc(ORACLE_DOCS)
def oracle(name: str, k: int, eps: float | None = None, **params: Any) -> Protocol:
    """The frozen protocol object of a frequency oracle.

    Parameters
    ----------
    name : str
        One of ``grr``, ``ss``, ``lh``, ``blh``, ``olh``, ``ue``, ``sue``, ``oue``,
        ``the`` (exactly; :func:`qifldp.protocol` normalises spellings first).
    {k}
    eps : float
        Privacy parameter, finite and ``>= 0`` (``ue`` takes p and q instead).
    **params
        ``omega`` (ss, optional), ``g`` (lh), ``p`` and ``q`` (ue), ``theta`` (the).

    Raises
    ------
    ParameterError
        Unknown ``name``; parameters out of range, as the family classes raise.
    InputTypeError
        A parameter the oracle does not take; wrong types.

    Examples
    --------
    >>> oracle("the", 4, 1.0, theta=0.7)
    protocol('the', k=4, eps=1.0, theta=0.7)
    >>> oracle("grr", 3, 1.0, g=2)
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: protocol 'grr' takes no parameters besides k and eps; got g
    """
    check_name("name", name, ORACLE_NAMES, "protocol")
    allowed = ORACLE_PARAMETERS[name]
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


@fill_doc(ORACLE_DOCS)
def adp_choice(k: int, eps: float) -> str:
    """ADP's choice: ``"grr"`` when GRR's variance is at most OUE's, else ``"oue"``.

    {parameters}

    Returns
    -------
    str

    Notes
    -----
    At frequency 0, Var_GRR = (e^eps + k - 2) / (n (e^eps - 1)^2) and
    Var_OUE = 4 e^eps / (n (e^eps - 1)^2) (Wang et al., USENIX Security 2017, Sec. 4),
    so GRR is chosen iff k <= 3 e^eps + 2, ties to GRR as in multi-freq-ldpy's ADP
    (Arcolezi et al.); at eps = 0, where both variances are infinite, the limit of
    the rule (k <= 5). Large eps (e^eps beyond the float range) chooses GRR.

    Examples
    --------
    >>> adp_choice(10, 1.0), adp_choice(11, 1.0)
    ('grr', 'oue')
    """
    k, eps = check_k(k), check_eps(eps)
    if eps > math.log(k):  # 3 e^eps + 2 > k already
        return "grr"
    return "grr" if k <= 3.0 * math.exp(eps) + 2.0 else "oue"


def adp(k: int, eps: float) -> Protocol:
    """The adaptive oracle ADP: GRR or OUE, whichever has the smaller variance.

    Returns the frozen object of the chosen oracle (:func:`adp_choice`): its channel,
    sampler and estimator are that oracle's.

    Examples
    --------
    >>> adp(3, 1.0), adp(50, 1.0)
    (protocol('grr', k=3, eps=1.0), protocol('oue', k=50, eps=1.0))
    """
    return oracle(adp_choice(k, eps), k, eps)
