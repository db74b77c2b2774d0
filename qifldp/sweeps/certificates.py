"""The certificate columns of a comparability map: what decided each direction, and a
digest of its witness or counterexample that is equal on every machine and executor."""

from __future__ import annotations

import hashlib
import numbers
from typing import Any

import numpy as np

__all__ = ["CERTIFICATE_COLUMNS", "certificate_digest"]

#: The certificate columns of :func:`comparability_map`, per direction (prefix ``ab_``
#: for A ⊑ B, ``ba_`` for B ⊑ A).
CERTIFICATE_COLUMNS: tuple[str, ...] = (
    "certified_by",
    "about",
    "up_to_rounding",
    "exact",
    "certificate",
    "residual",
    "gap",
    "seconds",
)


def _arrays(obj: Any) -> list[np.ndarray]:
    """The numeric arrays a certificate is made of (a witness matrix, an OrbitWitness's
    fields, a counterexample's gain and prior, a SymmetricGain's slots), in a fixed order."""
    if obj is None:
        return []
    if isinstance(obj, np.ndarray):
        return [obj]
    out: list[np.ndarray] = []
    for name in _attribute_names(obj):
        val = getattr(obj, name, None)  # an unset slot: nothing
        if isinstance(val, np.ndarray):
            out.append(val)
        elif isinstance(val, numbers.Real) and not isinstance(val, bool):
            out.append(np.asarray([val], dtype=float))
        elif _attribute_names(val) and not callable(val):
            out.extend(_arrays(val))
    return out


def _attribute_names(obj: Any) -> list[str]:
    """A dataclass's fields, an object's attributes, or (no ``__dict__``) its slots."""
    fields = getattr(obj, "__dataclass_fields__", None)
    if fields is not None:
        return list(fields)
    if hasattr(obj, "__dict__"):
        return sorted(vars(obj))
    return [s for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ())]


def certificate_digest(obj: Any) -> str:
    """A short hash of a certificate's arrays (witness or counterexample gain and prior).

    SHA-256 of each array's dtype, shape and bytes (C order), the first 16 hex digits:
    equal certificates give equal digests on every machine and executor.

    Parameters
    ----------
    obj : numpy.ndarray, dataclass or object with array attributes, or None
        A witness (a matrix, or an ``OrbitWitness``) or a ``Counterexample``.

    Returns
    -------
    str
        16 hexadecimal digits ("" for None).

    Examples
    --------
    >>> import numpy as np
    >>> certificate_digest(np.eye(2)) == certificate_digest(np.eye(2).copy())
    True
    >>> len(certificate_digest(np.eye(2))), certificate_digest(None)
    (16, '')
    """
    if obj is None:
        return ""
    h = hashlib.sha256()
    for arr in _arrays(obj):
        a = np.ascontiguousarray(arr)
        if a.dtype == object:
            a = a.astype(float)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _certificate(prefix: str, result: Any, seconds: float) -> dict[str, Any]:
    """The certificate columns of one direction from its RefinementResult."""
    ce = result.counterexample
    residual = getattr(result, "residual", None)
    if residual is None and result.witness is not None:
        residual = getattr(result.witness, "residual", None)
    values = {
        "certified_by": str(result.certified_by),
        "about": str(result.about),
        "up_to_rounding": bool(result.up_to_rounding),
        "exact": bool(result.exact),
        "certificate": certificate_digest(result.witness if ce is None else ce),
        "residual": None if residual is None or ce is not None else float(residual),
        "gap": None if ce is None else float(ce.gap),
        "seconds": float(seconds),
    }
    return {f"{prefix}_{key}": val for key, val in values.items()}


def _empty_certificate(prefix: str, seconds: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {f"{prefix}_{key}": None for key in CERTIFICATE_COLUMNS}
    out[f"{prefix}_seconds"] = seconds
    return out
