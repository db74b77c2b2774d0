"""Priors: probability distributions over a channel's secret inputs."""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import float_array
from .channel import MAX_ENTRIES, check_size
from .errors import PriorError
from .validation import check_int

__all__ = ["uniform_prior", "point_prior", "as_prior", "PRIOR_SUM_ATOL"]

#: A prior may sum to 1 within this absolute tolerance.
PRIOR_SUM_ATOL: float = 1e-9


def uniform_prior(n: int) -> np.ndarray:
    """The uniform prior over ``n`` secrets.

    Parameters
    ----------
    n : int
        Number of secrets, ``n >= 1``.

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> uniform_prior(4)
    array([0.25, 0.25, 0.25, 0.25])
    """
    n = _check_n_secrets(n)
    return np.full(n, 1.0 / n)


def _check_n_secrets(n: Any) -> int:
    """A number of secrets: an integer >= 1 whose prior vector fits in MAX_ENTRIES floats."""
    n = check_int("n", n, minimum=1, maximum=MAX_ENTRIES)
    check_size(1, n, f"a prior over {n} secrets", "a symmetric channel (qifldp.symmetric)")
    return n


def point_prior(n: int, i: int) -> np.ndarray:
    """The point prior on secret ``i`` (the adversary already knows the secret).

    Parameters
    ----------
    n : int
        Number of secrets.
    i : int
        Index of the certain secret, ``0 <= i < n``.

    Examples
    --------
    >>> point_prior(3, 1)
    array([0., 1., 0.])
    """
    n = _check_n_secrets(n)
    i = check_int("i", i, minimum=0, maximum=n - 1)
    p = np.zeros(n)
    p[i] = 1.0
    return p


def as_prior(prior: Any, n: int, name: str = "prior") -> np.ndarray:
    """Validate a prior over ``n`` secrets; ``None`` means uniform.

    Parameters
    ----------
    prior : array_like of shape (n,) or None
        Non-negative, finite, summing to 1 within :data:`PRIOR_SUM_ATOL`.
    n : int
        Number of secrets (rows of the channel).

    Returns
    -------
    numpy.ndarray
        A float64 copy.

    Raises
    ------
    PriorError
        Wrong length, negative or non-finite entries, or a sum different from 1.
    InputTypeError
        Non-numeric entries.

    Examples
    --------
    >>> as_prior([0.5, 0.5], 2)
    array([0.5, 0.5])
    >>> as_prior([0.5, 0.6], 2)
    Traceback (most recent call last):
    ...
    qifldp.errors.PriorError: prior must sum to 1 (within 1e-09), got 1.1
    """
    n = _check_n_secrets(n)
    if prior is None:
        return uniform_prior(n)
    p = float_array(prior, name, "a 1-D array of real numbers", PriorError)
    if p.ndim != 1:
        msg = f"{name} must be 1-D, got shape {p.shape}"
        raise PriorError(msg)
    if p.shape[0] != n:
        msg = f"{name} must have one entry per input ({n}), got {p.shape[0]}"
        raise PriorError(msg)
    if not np.all(np.isfinite(p)):
        msg = f"{name} entries must be finite, got {p[~np.isfinite(p)][0]}"
        raise PriorError(msg)
    if np.any(p < 0):
        i = int(np.flatnonzero(p < 0)[0])
        msg = f"{name} entries must be non-negative, entry {i} is {p[i]!r}"
        raise PriorError(msg)
    s = float(p.sum())
    if abs(s - 1.0) > PRIOR_SUM_ATOL:
        msg = f"{name} must sum to 1 (within {PRIOR_SUM_ATOL:g}), got {s!r}"
        raise PriorError(msg)
    return p
