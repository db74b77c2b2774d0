"""Gain functions g(w, x): the adversary's reward for action w when the secret is x.

A gain function over n secrets is a matrix of shape (n_actions, n_inputs),
``gain[w, x]``.  The identity gain gives Bayes vulnerability.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .arrays import check_finite, float_array
from .channel import MAX_ENTRIES, check_size
from .errors import GainError, InputTypeError, ParameterError, SizeError
from .validation import check_int, check_real

__all__ = ["identity_gain", "k_tries_gain", "metric_gain", "as_gain"]


def identity_gain(n: int) -> np.ndarray:
    """The identity gain g_id(w, x) = [w = x]; its vulnerability is Bayes vulnerability.

    Examples
    --------
    >>> identity_gain(2)
    array([[1., 0.],
           [0., 1.]])
    """
    n = check_int("n", n, minimum=1, maximum=MAX_ENTRIES)
    check_size(
        n, n, f"identity_gain({n})", "qifldp.symmetric.SymmetricGain for large symmetric problems"
    )
    return np.eye(n)


def k_tries_gain(n: int, k: int) -> np.ndarray:
    """Gain of an adversary allowed ``k`` guesses: g(W, x) = [x in W] for |W| = k.

    Actions are the k-subsets of ``range(n)`` in ``itertools.combinations`` order.

    Parameters
    ----------
    n : int
        Number of secrets.
    k : int
        Number of tries, ``1 <= k <= n``.

    Raises
    ------
    SizeError
        When C(n, k) * n exceeds the explicit limit.

    Notes
    -----
    V_g[π▷C] = Σ_y (sum of the k largest π_x C[x, y]); the matrix has C(n, k) rows.

    Examples
    --------
    >>> k_tries_gain(3, 2)
    array([[1., 1., 0.],
           [1., 0., 1.],
           [0., 1., 1.]])
    """
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=1)
    if k > n:
        msg = f"k (the number of guesses) must be <= n = {n} (the secrets to guess from), got {k}"
        raise ParameterError(msg)
    rows = math.comb(n, k)
    if rows * n > MAX_ENTRIES:
        msg = f"k_tries_gain({n}, {k}) would have {rows} x {n} entries (limit {MAX_ENTRIES})"
        raise SizeError(msg)
    G = np.zeros((rows, n))
    for w, subset in enumerate(itertools.combinations(range(n), k)):
        G[w, list(subset)] = 1.0
    return G


def metric_gain(distance: Any, n: int | None = None, scale: float | None = None) -> np.ndarray:
    """Distance-based gain g(w, x) = 1 - d(w, x) / scale (actions = secrets).

    Parameters
    ----------
    distance : array_like of shape (n, n), or callable d(i, j)
        A non-negative distance between secrets.
    n : int, optional
        Number of secrets; required when ``distance`` is a callable.
    scale : float, optional
        Normaliser; defaults to the largest distance, so gains lie in [0, 1].

    Examples
    --------
    >>> metric_gain(lambda i, j: abs(i - j), n=3)
    array([[1. , 0.5, 0. ],
           [0.5, 1. , 0.5],
           [0. , 0.5, 1. ]])
    """
    if callable(distance):
        if n is None:
            msg = "n must be given when distance is a callable"
            raise InputTypeError(msg)
        n = check_int("n", n, minimum=1)
        D = np.array([[float(distance(i, j)) for j in range(n)] for i in range(n)])
    else:
        D = float_array(
            distance, "distance", "a square matrix of real numbers or a callable", GainError
        )
        if D.ndim != 2 or D.shape[0] != D.shape[1]:
            msg = f"distance must be a square matrix, got shape {D.shape}"
            raise GainError(msg)
    if not np.all(np.isfinite(D)) or np.any(D < 0):
        msg = "distance entries must be finite and non-negative"
        raise GainError(msg)
    if scale is None:
        scale = float(D.max()) or 1.0
    scale = check_real("scale", scale)
    if not scale > 0:
        msg = f"scale must be > 0, got {scale}"
        raise GainError(msg)
    return 1.0 - D / scale


def as_gain(gain: Any, n: int, actions: Sequence | None = None, name: str = "gain") -> np.ndarray:
    """Validate a gain function over ``n`` secrets and return it as a matrix.

    Parameters
    ----------
    gain : array_like of shape (n_actions, n) or callable g(w, x)
        A callable is evaluated on ``actions`` (default: the secrets ``range(n)``)
        and the input indices ``range(n)``.
    n : int
        Number of secrets.
    actions : sequence, optional
        Actions for a callable gain.

    Raises
    ------
    GainError
        Wrong shape (the second dimension must be n), NaN or infinite entries.

    Examples
    --------
    >>> as_gain(lambda w, x: float(w == x), 2)
    array([[1., 0.],
           [0., 1.]])
    """
    n = check_int("n", n, minimum=1)
    if callable(gain):
        acts = range(n) if actions is None else actions
        G = np.array([[float(gain(w, x)) for x in range(n)] for w in acts], dtype=np.float64)
    else:
        G = float_array(gain, name, "a 2-D array (n_actions x n_inputs) or a callable", GainError)
    if G.ndim != 2:
        msg = f"{name} must be 2-D (n_actions x n_inputs), got shape {G.shape}"
        raise GainError(msg)
    if G.shape[1] != n or G.shape[0] == 0:
        msg = f"{name} must have shape (n_actions >= 1, {n}) (one column per input), got {G.shape}"
        raise GainError(msg)
    return check_finite(G, GainError, f"{name} entries must be finite")


GainLike = np.ndarray | Callable[[Any, int], float]
