"""Multidimensional collection with GRR: SPL, SMP and RS+FD[GRR] as explicit channels."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..channel import MAX_ENTRIES, Channel, guard_size
from ..errors import InputTypeError, ParameterError, SizeError
from ..operators import cascade, hidden_choice, parallel, visible_choice
from ..simulation.categorical import check_domain_sizes
from ..simulation.util import as_array, as_values
from ..validation import check_eps
from .grr import GRR

__all__ = ["spl", "smp", "rsfd_grr"]

#: numpydoc fragments of the twin methods of the multidimensional protocol objects (SPL,
#: SMP, RS+FD): :func:`qifldp.protocols.docstrings.fill_doc` puts them in place.
DOCS: Mapping[str, str] = {
    "parameters": """Parameters
----------
ks : sequence of int
    Domain sizes k_1..k_d, each ``>= 2``.""",
    "sample_parameters": """Parameters
----------
tuples : array_like of int, shape (n, d)
    Row u: user u's values, v_j in 0..k_j-1.
rng : numpy.random.Generator or int, optional
    Generator or seed; None draws fresh entropy.""",
    "sample_raises": """Raises
------
ParameterError, InputTypeError
    Bad ``tuples`` or ``rng``.""",
}

#: Beyond this many decimal digits in the number of input tuples the size is not
#: computed exactly (it is hopeless for an explicit channel anyway).
_MAX_LOG10_INPUTS = 30.0


def _check_ks(ks: Any) -> tuple[int, ...]:
    return check_domain_sizes(ks, refuse=(str, bytes, Mapping))


def _per_attribute(value: Any, d: int, expected: str, count: str, lists: bool = False) -> list:
    """``value`` as a list of its d per-attribute entries.

    ``value`` must be a list or tuple (``lists``), or else any iterable but a string,
    bytes or a mapping; never an array. Otherwise InputTypeError
    ``"{expected}, got <type>"``; another length than d: ParameterError
    ``"{count} per attribute (d), got <length>"``.
    """
    if lists:
        refused = isinstance(value, np.ndarray) or not isinstance(value, (list, tuple))
    else:
        refused = isinstance(value, (str, bytes, Mapping, np.ndarray)) or not isinstance(
            value, Iterable
        )
    if refused:
        msg = f"{expected}, got {type(value).__name__}"
        raise InputTypeError(msg)
    entries = list(value)
    if len(entries) == d:
        return entries
    msg = f"{count} per attribute ({d}), got {len(entries)}"
    raise ParameterError(msg)


def _user_tuples(tuples: Any, ks: tuple[int, ...], empty: bool = False) -> np.ndarray:
    """Users' value tuples as an int64 array of shape (n, d), each column in 0..k_j-1.

    n >= 1 unless ``empty`` (then no users is allowed too).
    """

    arr = as_array(tuples, "tuples")
    d = len(ks)
    if arr.ndim != 2 or arr.shape[1] != d or (arr.shape[0] == 0 and not empty):
        users = "" if empty else " with n >= 1"
        msg = f"tuples must have shape (n, {d}){users} (one value per attribute), got {arr.shape}"
        raise ParameterError(msg)
    cols = [as_values(arr[:, j], k, name=f"tuples[:, {j}]") for j, k in enumerate(ks)]
    return np.stack(cols, axis=1)


def _guard(what: str, ks: tuple[int, ...], n_cols: int) -> None:
    """Refuse a (Π ks) x n_cols channel beyond MAX_ENTRIES before allocating it."""
    log10_rows = sum(math.log10(k) for k in ks)
    if log10_rows > _MAX_LOG10_INPUTS:
        msg = (
            f"{what} would have ~10^{log10_rows:.1f} input tuples, far beyond the "
            f"explicit-channel limit MAX_ENTRIES = {MAX_ENTRIES}"
        )
        raise SizeError(msg)
    alternative = "fewer or smaller attributes"
    guard_size(what, math.prod(ks), math.log10(n_cols), lambda: n_cols, alternative)


def _call(name: str, ks: tuple[int, ...], eps: float) -> str:
    """How a call is named in error messages (long ks abbreviated)."""
    shown = list(ks) if len(ks) <= 8 else f"[{ks[0]}, {ks[1]}, ... ({len(ks)} attributes)]"
    return f"{name}({shown}, {eps})"


def _tuples(ks: tuple[int, ...]) -> tuple:
    """All value tuples, in lexicographic order (``itertools.product``)."""
    return tuple(itertools.product(*(range(k) for k in ks)))


def _one_attribute(C: Channel) -> Channel:
    """Relabel a channel on one attribute to 1-tuples of values."""
    return C.relabel(inputs=[(x,) for x in C.inputs], outputs=[(y,) for y in C.outputs])


def _attribute_wise(channels: list[Channel]) -> Channel:
    """parallel(...) of one channel per attribute, with labels flattened to value tuples."""
    C = _one_attribute(channels[0])
    for B in channels[1:]:
        P = parallel(C, B)
        inputs = [x + (b,) for x, b in P.inputs]
        C = P.relabel(inputs=inputs, outputs=[y + (b,) for y, b in P.outputs])
    return C


def _projection(ks: tuple[int, ...], j: int) -> Channel:
    """The deterministic channel from a value tuple to its attribute j."""
    X = _tuples(ks)
    M = np.zeros((len(X), ks[j]))
    M[np.arange(len(X)), [x[j] for x in X]] = 1.0
    return Channel(M, X, range(ks[j]))


def _amplified_eps(d: int, eps: float) -> float:
    """RS+FD's eps' = ln(d (e^eps - 1) + 1), as eps + ln(1 + (d - 1)(1 - e^-eps)) (no overflow)."""
    return eps + math.log1p(-(d - 1) * math.expm1(-eps))


def spl(ks: Any, eps: float) -> Channel:
    """SPL: every attribute reported with GRR and budget eps / d (sequential composition).

    Parameters
    ----------
    ks : sequence of int
        Domain sizes k_1..k_d of the d attributes, each ``>= 2``.
    eps : float
        Total privacy budget, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (Π k_j, Π k_j)
        Inputs and outputs: value tuples (v_1, ..., v_d) with v_j in 0..k_j-1, in
        lexicographic order.

    Raises
    ------
    InputTypeError
        ``ks`` not a sequence of integers, ``eps`` not a real number.
    ParameterError
        Empty ``ks``, a domain size < 2, ``eps`` negative, NaN or infinite.
    SizeError
        (Π k_j)^2 above :data:`qifldp.channel.MAX_ENTRIES`.

    Notes
    -----
    ``parallel(grr(k_1, eps/d), ..., grr(k_d, eps/d))`` (Arcolezi et al., VLDB
    2023, Sec. 2.3). ldp_epsilon = eps over all pairs of tuples (epsilons add
    under parallel composition), eps/d between tuples differing in one attribute.
    Cost O((Π k_j)^2).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.spl([2, 3], 1.0)
    >>> C.shape, C.inputs[:4]
    ((6, 6), ((0, 0), (0, 1), (0, 2), (1, 0)))
    >>> round(q.ldp_epsilon(C), 12)
    1.0
    """
    ks = _check_ks(ks)
    eps = check_eps(eps)
    d = len(ks)
    _guard(_call("spl", ks, eps), ks, math.prod(ks))
    return _attribute_wise([GRR(k, eps / d).channel() for k in ks])


def smp(ks: Any, eps: float) -> Channel:
    """SMP: sample one attribute j uniformly and report (j, GRR_{k_j, eps}(v_j)).

    Parameters
    ----------
    ks : sequence of int
        As in :func:`spl`.
    eps : float
        Privacy budget of the one report, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (Π k_j, Σ k_j)
        Inputs: value tuples in lexicographic order. Outputs: pairs (j, y) with j
        the 0-based attribute index and y in 0..k_j-1.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`spl`.
    SizeError
        Π k_j Σ k_j above :data:`qifldp.channel.MAX_ENTRIES`.

    Notes
    -----
    The visible choice, uniform over j, of ``cascade(projection on attribute j,
    grr(k_j, eps))`` (Arcolezi et al., VLDB 2023, Sec. 2.3: the sampled attribute
    is disclosed). ldp_epsilon = eps over all pairs of tuples. Bayes vulnerability
    under the uniform prior: (1/d) Σ_j p_j / Π_{i != j} k_i with
    p_j = e^eps / (e^eps + k_j - 1). Cost O(Π k_j Σ k_j).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.smp([2, 3], 1.0)
    >>> C.shape, C.outputs
    ((6, 5), ((0, 0), (0, 1), (1, 0), (1, 1), (1, 2)))
    >>> round(q.ldp_epsilon(C), 12)
    1.0
    """
    ks = _check_ks(ks)
    eps = check_eps(eps)
    _guard(_call("smp", ks, eps), ks, sum(ks))
    return visible_choice(
        [cascade(_projection(ks, j), GRR(k, eps).channel()) for j, k in enumerate(ks)]
    )


def rsfd_grr(ks: Any, eps: float) -> Channel:
    """RS+FD[GRR]: GRR with the amplified eps' on one sampled attribute, uniform fakes elsewhere.

    Parameters
    ----------
    ks, eps : sequence of int, float
        ``ks`` as in :func:`spl`; ``eps`` (finite, ``>= 0``) the privacy budget the
        protocol is designed for: the sampled attribute is reported with
        eps' = ln(d (e^eps - 1) + 1).

    Returns
    -------
    Channel, shape (Π k_j, Π k_j)
        Inputs and outputs: value tuples in lexicographic order (the full tuple is
        reported; which attribute was sampled is not).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`spl`.
    SizeError
        (Π k_j)^2 above :data:`qifldp.channel.MAX_ENTRIES`.

    Notes
    -----
    The hidden choice, uniform over j, of ``parallel`` over the attributes of
    ``grr(k_j, eps')`` on attribute j and ``grr(k_i, 0)`` (a uniform fake value,
    independent of v_i) on every other attribute i (Arcolezi et al., CIKM 2021;
    VLDB 2023, Sec. 2.3). The choice is accumulated pairwise, so at most three
    (Π k_j)^2 matrices are held at once. Cost O(d (Π k_j)^2).

    With p'_j = e^eps' / (e^eps' + k_j - 1) and q'_j = 1 / (e^eps' + k_j - 1),
    Pr(y | x) = (1 / (d Π_i k_i)) Σ_j k_j [p'_j if y_j = x_j else q'_j], so the
    explicit channel has

    - over all pairs of tuples (the LDP notion for one user's tuple):
      ldp_epsilon = ln(Σ_j k_j p'_j / Σ_j k_j q'_j) = eps' (as k_j p'_j = e^eps' k_j q'_j),
      attained between x = y and a tuple differing from y everywhere; eps' > eps
      when d >= 2 and eps > 0, so the claimed eps-LDP does not hold;
    - over tuples differing in one attribute only (``neighbors``):
      ln(1 + max_j k_j (p'_j - q'_j) / Σ_i k_i q'_i), which is exactly eps when
      all k_j are equal and larger than eps otherwise (ks = [2, 5], eps = 1:
      1.137956).

    The paper's eps-LDP argument (amplification by sampling) thus covers one
    attribute changing, and only for equal domain sizes (tests/composite pin the
    numbers).

    Examples
    --------
    >>> import math, qifldp as q
    >>> C = q.rsfd_grr([2, 2], math.log(2))  # eps' = ln 3
    >>> C.shape
    (4, 4)
    >>> round(q.ldp_epsilon(C), 6) == round(math.log(3), 6)
    True
    """
    ks = _check_ks(ks)
    eps = check_eps(eps)
    d = len(ks)
    _guard(_call("rsfd_grr", ks, eps), ks, math.prod(ks))
    eps_amplified = _amplified_eps(d, eps)

    def sampled(j: int) -> Channel:
        return _attribute_wise(
            [GRR(k, eps_amplified if i == j else 0.0).channel() for i, k in enumerate(ks)]
        )

    C = sampled(0)  # d >= 1: _check_ks refuses an empty ks
    for j in range(1, d):
        # Uniform hidden choice over 0..j from the one over 0..j-1: weights j/(j+1), 1/(j+1).
        C = hidden_choice([C, sampled(j)], [j / (j + 1), 1 / (j + 1)])
    return C
