"""Key-value protocols of PCKV (padding-and-sampling, PCKV-UE, PCKV-GRR) as explicit channels."""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..attributes import ReadOnly
from ..channel import MAX_ENTRIES, Channel, guard_size
from ..errors import InputTypeError, ParameterError, SizeError
from ..operators import cascade, hidden_choice, one_hot, parallel
from ..simulation.util import as_rng
from ..validation import check_bool, check_eps, check_int, check_open_interval, check_real
from .base import Frozen
from .grr import GRR
from .ue import oue_bit

__all__ = ["pckv_ue", "pckv_grr", "pckv_epsilon"]

# Helpers shared with qifldp.protocols.pckv and qifldp.protocols.privkvm (same
# package, not exported): ue_key_probabilities, check_ue_a, ue_exact_epsilon,
# check_positive_eps, flatten_key_values, check_reports_array, KeyValueFrozen.

#: numpydoc fragments of the key-value protocols' docstrings
#: (:func:`qifldp.protocols.docstrings.fill_doc`).
DOCS = {
    "parameters": """Parameters
----------
d : int
    Number of keys, ``d >= 1``; keys are 1..d.
eps : float
    Total budget, finite and ``> 0``."""
}

#: The two discretised values of a key-value pair, in label order.
_VALUES = (1, -1)

#: The three states of one position of a PCKV-UE report, in label order:
#: key reported with value 1, key reported with value -1, key not reported.
_UE_STATES = (1, -1, 0)

_ALTERNATIVE = "pckv_epsilon(eps1, eps2, ell, mechanism) for the budget, or a smaller d and ell"


def _check_parameters(d: Any, eps1: Any, eps2: Any, ell: Any) -> tuple[int, float, float, int]:
    d = check_int("d", d, minimum=1)
    eps1 = check_eps(eps1, "eps1")
    eps2 = check_eps(eps2, "eps2")
    ell = check_int("ell", ell, minimum=1)
    return d, eps1, eps2, ell


def _count_sets(d: int, ell: int) -> int | None:
    """Σ_{j <= min(d, ell)} C(d, j) 2^j exactly, or None once it exceeds MAX_ENTRIES."""
    total, term = 0, 1  # term = C(d, j) 2^j
    for j in range(min(d, ell) + 1):
        total += term
        if total > MAX_ENTRIES:
            return None
        term = term * (d - j) * 2 // (j + 1)
    return total


def _guard(what: str, d: int, ell: int, log10_cols: float, exact_cols) -> None:
    """Refuse before allocating: the inputs, the per-pair channel and the result."""
    n_sets = _count_sets(d, ell)
    if n_sets is None:
        msg = (
            f"{what} would have more than MAX_ENTRIES = {MAX_ENTRIES} inputs (the sets of at "
            f"most {ell} key-value pairs over {d} keys). Use {_ALTERNATIVE} instead."
        )
        raise SizeError(msg)
    guard_size(what, n_sets, log10_cols, exact_cols, _ALTERNATIVE)
    guard_size(f"{what}'s per-pair channel", 2 * (d + ell), log10_cols, exact_cols, _ALTERNATIVE)


def _key_value_sets(d: int, ell: int) -> tuple:
    """Every set of at most ell pairs (keys 1..d distinct, values ±1) as sorted tuples."""
    sets = []
    for j in range(min(d, ell) + 1):
        for keys in itertools.combinations(range(1, d + 1), j):
            for values in itertools.product(_VALUES, repeat=j):
                sets.append(tuple(zip(keys, values, strict=True)))
    return tuple(sets)


def _padding_and_sampling(sets: tuple, d: int, ell: int) -> Channel:
    """PCKV Algorithm 1: from a set S to the sampled, discretised pair (k, v).

    S is padded to ell slots (its own pairs, then dummy pairs); one slot is picked
    uniformly and which one stays hidden: a hidden choice over the ell slots. A
    dummy slot holds a dummy key drawn uniformly from d+1..d+ell with value 0,
    discretised to ±1 with probability 1/2 each.
    """
    pairs = tuple(itertools.product(range(1, d + ell + 1), _VALUES))
    column = {pair: c for c, pair in enumerate(pairs)}
    dummy_columns = [column[(k, v)] for k in range(d + 1, d + ell + 1) for v in _VALUES]
    slots = []
    for i in range(ell):
        M = np.zeros((len(sets), len(pairs)))
        for r, S in enumerate(sets):
            if i < len(S):
                M[r, column[S[i]]] = 1.0
            else:
                M[r, dummy_columns] = 1.0 / (2 * ell)
        slots.append(Channel(M, sets, pairs))
    return hidden_choice(slots)


def _value_perturbation(eps2: float) -> Channel:
    """Randomized response on the value ±1: GRR over two values with eps2."""
    return GRR(2, eps2).channel().relabel(inputs=_VALUES, outputs=_VALUES)


def _keys_identity(n: int) -> Channel:
    keys = tuple(range(1, n + 1))
    return Channel(np.eye(n), keys, keys)


def ue_key_probabilities(eps1: float, a: float | None = None) -> tuple[float, float]:
    """(a, b) of PCKV-UE's key step: a = 1/2 (OUE) by default, b from eps1 = ln(a(1-b)/(b(1-a))).

    Helper shared with :mod:`qifldp.protocols.pckv` (same package); ``a`` is already
    validated. b = a / (a + (1 - a) e^eps1) = 1 / (1 + e^t) with t = ln((1 - a)/a) + eps1,
    evaluated as a logistic function without overflow.
    """
    a = 0.5 if a is None else a
    t = math.log1p(-a) - math.log(a) + eps1
    b = math.exp(-t) / (1.0 + math.exp(-t)) if t > 0 else 1.0 / (1.0 + math.exp(t))
    return a, b


def check_ue_a(a: Any) -> float | None:
    """Validate PCKV-UE's a: None (the paper's 1/2) or a real number in (0, 1)."""
    if a is None:
        return None
    return check_open_interval("a", a, 0.0, 1.0)


def check_positive_eps(value: Any, name: str) -> float:
    """Validate a budget of PCKV / PrivKVM: as :func:`qifldp.validation.check_eps`, and ``> 0``."""
    value = check_eps(value, name)
    if value <= 0:
        msg = f"{name} must be > 0 (a zero budget carries no information), got {value}"
        raise ParameterError(msg)
    return value


def flatten_key_values(
    data: Any, d: int, *, refuse_strings: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lengths, keys, values) of the users' dicts, concatenated, validated.

    ``data`` is one dict per user, key (int in 1..d) -> value (real in [-1, 1]); the
    users' pairs come out concatenated in user order, ``lengths`` the number of pairs
    of each user (int64), ``keys`` int64 and ``values`` float64. The keys' and the
    values' types are checked once per type, not once per pair.

    ``refuse_strings`` (PrivKVM and :func:`qifldp.keyvalue_mse`, the default): a str
    or bytes ``data`` is refused as not a list, and the first user (in order) that is
    not a dict is the one named. False (:meth:`qifldp.PCKV.sample`): a str goes on to
    the users' check, which names the first type that is not a dict in the order of a
    set of the users' types.
    """
    if (
        isinstance(data, Mapping)
        or (refuse_strings and isinstance(data, (str, bytes)))
        or not hasattr(data, "__len__")
    ):
        msg = "data must be a list with one dict (key -> value) per user"
        raise InputTypeError(msg)
    if len(data) == 0:
        msg = "data must hold at least one user, got an empty list"
        raise ParameterError(msg)
    if refuse_strings:
        not_dicts = (type(user) for user in data if not isinstance(user, Mapping))
    else:
        not_dicts = (kind for kind in set(map(type, data)) if not issubclass(kind, Mapping))
    bad_kind = next(not_dicts, None)
    if bad_kind is not None:
        msg = f"data must hold one dict per user (key -> value), got {bad_kind.__name__}"
        raise InputTypeError(msg)
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    raw_keys = list(itertools.chain.from_iterable(user.keys() for user in data))
    raw_values = list(itertools.chain.from_iterable(user.values() for user in data))
    for kind in set(map(type, raw_keys)):  # one check per type, not per key
        if issubclass(kind, bool) or not issubclass(kind, (int, np.integer)):
            bad = next(key for key in raw_keys if type(key) is kind)
            msg = f"data's keys must be integers in 1..{d}, got {bad!r}"
            raise InputTypeError(msg)
    keys = np.array(raw_keys, dtype=np.int64)
    if keys.size and (keys.min() < 1 or keys.max() > d):
        bad = keys[(keys < 1) | (keys > d)][0]
        msg = f"data's keys must be in 1..d = 1..{d}, got {int(bad)}"
        raise ParameterError(msg)
    for kind in set(map(type, raw_values)):
        if issubclass(kind, (bool, np.bool_)) or not issubclass(kind, numbers.Real):
            check_real("data's values", next(v for v in raw_values if type(v) is kind))
    values = np.array(raw_values, dtype=np.float64)
    if values.size and not (np.all(values >= -1.0) and np.all(values <= 1.0)):
        bad_value = values[~((values >= -1.0) & (values <= 1.0))][0]
        msg = f"data's values must be in [-1, 1], got {bad_value}"
        raise ParameterError(msg)
    return lengths, keys, values


def check_reports_array(reports: Any, columns: int) -> np.ndarray:
    """``reports`` as an array, checked: integer-valued, of shape (n, columns), n >= 1.

    What a ``sample()`` of PCKV or PrivKVM returns: an integer dtype, or floats that
    are all whole numbers. Not converted: the caller casts it where it needs to.
    """
    try:
        R = np.asarray(reports)
    except (TypeError, ValueError) as exc:
        msg = f"reports must be the array returned by sample(): {exc}"
        raise InputTypeError(msg) from None
    if R.dtype.kind not in "iu" and not (
        R.dtype.kind == "f" and R.size and np.all(np.isfinite(R)) and np.all(R == np.round(R))
    ):
        msg = f"reports must be an integer array as returned by sample(), got dtype {R.dtype}"
        raise InputTypeError(msg)
    if R.ndim != 2 or R.shape[0] == 0 or R.shape[1] != columns:
        msg = f"reports must have shape (n, {columns}) with n >= 1, got shape {R.shape}"
        raise ParameterError(msg)
    return R


class KeyValueFrozen(Frozen):
    """The base of the frozen key-value protocols (PCKV, PrivKVM): keys 1..d, a total budget.

    A subclass sets its slots, ``_d`` (number of keys) and ``_eps`` (total budget)
    among them, once in its ``__init__`` with :meth:`_set`, and gets the attributes
    :attr:`d` and :attr:`eps`.

    Examples
    --------
    >>> import qifldp as q
    >>> q.PCKV(4, 1.5).d, q.PrivKVM(4, 1.5).eps
    (4, 1.5)
    """

    __slots__ = ()
    _d: int
    _eps: float
    d = ReadOnly[int]("Number of keys (keys 1..d).")
    eps = ReadOnly[float]("The total budget.")
    #: How :meth:`sample` reads a str ``data`` (see :func:`flatten_key_values`).
    _REFUSE_STRINGS = True

    def sample(self, data: Any, rng: Any = None) -> np.ndarray:
        """Every user's report(s), vectorised over users.

        Parameters
        ----------
        data : list of dict
            One dict per user, key (int in 1..d) -> value (real in [-1, 1]); a user may
            hold any number of pairs, none included.
        rng : numpy.random.Generator or int, optional
            Random source or seed (default: fresh entropy).

        Returns
        -------
        numpy.ndarray
            One integer row per user, as the protocol's ``_sample`` states (PCKV-UE:
            n x (d + ell) in {1, -1, 0}; PCKV-GRR: rows (key, value); PrivKVM: the
            sampled index, then a key bit and a value per round).

        Raises
        ------
        InputTypeError
            ``data`` not a list of dicts, a non-integer key or non-real value, a bad ``rng``.
        ParameterError
            No users, a key outside 1..d, a value outside [-1, 1] or NaN.

        Examples
        --------
        >>> import qifldp as q
        >>> data = [{1: 0.5}, {2: -1.0, 3: 0.0}, {}]
        >>> q.PCKV(3, 1.0, mechanism="grr").sample(data, rng=0).shape
        (3, 2)
        >>> q.PCKV(3, 1.0).sample(data, rng=0).shape, q.PrivKVM(3, 1.0, 2).sample(data, 0).shape
        ((3, 4), (3, 5))
        """
        flat = flatten_key_values(data, self._d, refuse_strings=self._REFUSE_STRINGS)
        return self._sample(*flat, as_rng(rng))

    def estimate(self, reports: Any, correct: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Frequencies and value means of keys 1..d from the users' reports.

        Parameters
        ----------
        reports : array_like
            The reports of :meth:`sample` (n >= 1 of them).
        correct : bool, optional
            Correct the outliers (default True), as the protocol's ``_estimate``
            states; False gives its raw estimators.

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            Frequencies and means, float64 arrays of shape (d,).

        Raises
        ------
        InputTypeError
            ``reports`` not an integer array; ``correct`` not a bool.
        ParameterError
            Wrong shape, no reports, entries outside the report alphabet.

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> data = [{1: 0.5}] * 6000 + [{2: -0.5}] * 4000
        >>> for P in (q.PCKV(2, 4.0), q.PrivKVM(2, 4.0)):
        ...     f, m = P.estimate(P.sample(data, rng=1))
        ...     print(np.round(f, 1).tolist(), np.round(m, 1).tolist())
        [0.6, 0.4] [0.5, -0.5]
        [0.6, 0.4] [0.5, -0.5]
        """
        return self._estimate(reports, check_bool("correct", correct))

    def _sample(
        self, lengths: np.ndarray, keys: np.ndarray, values: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """:meth:`sample` from the users' pairs (:func:`flatten_key_values`)."""
        raise NotImplementedError

    def _estimate(self, reports: Any, correct: bool) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`estimate` with a checked ``correct``."""
        raise NotImplementedError


def _unary_key_perturbation(n: int, eps1: float, a: float | None = None) -> Channel:
    """PCKV-UE's key step on (k, v'): unary encoding of k, reporting v' where a 1 survives.

    Position k (the key's own) reports v' w.p. a and 0 w.p. 1 - a; every other
    position reports 1 or -1 w.p. b/2 each (a fake value) and 0 w.p. 1 - b, all
    independently, with the bit probabilities a = 1/2, b = 1/(e^eps1 + 1) of
    :func:`qifldp.oue_bit` (or a general a with b = a / (a + (1 - a) e^eps1)). For
    each value v', the rows (., v') are the rows of ``one_hot`` of the two-row
    channel "cold position / hot position holding v'" over the three symbols (1, -1, 0).
    """
    if a is None:
        B = oue_bit(eps1).matrix  # row = input bit, column = output bit
    else:
        a, b = ue_key_probabilities(eps1, a)
        B = np.array([[1.0 - b, b], [1.0 - a, a]])
    cold = [B[0, 1] / 2, B[0, 1] / 2, B[0, 0]]
    hot = {1: [B[1, 1], 0.0, B[1, 0]], -1: [0.0, B[1, 1], B[1, 0]]}
    lifted = {v: one_hot(Channel([cold, hot[v]], outputs=_UE_STATES), n) for v in _VALUES}
    rows = tuple(itertools.product(range(1, n + 1), _VALUES))
    M = np.array([lifted[v].matrix[k - 1] for k, v in rows])
    return Channel(M, rows, lifted[1].outputs)


def pckv_ue(d: int, eps1: float, eps2: float, ell: int = 1, *, a: float | None = None) -> Channel:
    """PCKV-UE: padding-and-sampling, then unary encoding of the key with a correlated value.

    Parameters
    ----------
    d : int
        Number of keys, ``d >= 1``; keys are 1..d.
    eps1 : float
        Key budget, finite and ``>= 0`` (unary encoding with a = 1/2, b = 1/(e^eps1 + 1)).
    eps2 : float
        Value budget, finite and ``>= 0`` (the value is kept w.p. p = e^eps2 / (e^eps2 + 1)).
    ell : int, optional
        Padding length, ``ell >= 1`` (default 1); dummy keys are d+1..d+ell.
    a : float, optional
        Keyword only. Probability that the sampled key's own position is reported,
        in (0, 1); then b = a / (a + (1 - a) e^eps1), so that
        eps1 = ln(a (1 - b) / (b (1 - a))) (Sec. 5.2). Default None: the paper's
        a = 1/2, b = 1/(e^eps1 + 1) (OUE, Eq. 19).

    Returns
    -------
    Channel, shape (Σ_{j <= min(d, ell)} C(d, j) 2^j, 3^(d + ell))
        Inputs: every set of at most ``ell`` key-value pairs (keys distinct, values
        ±1), each a tuple of (key, value) sorted by key, the empty set ``()``
        first; ordered by size, then by keys (lexicographic), then by values
        (``itertools.product((1, -1))`` order). Outputs: vectors over the d + ell
        positions with entries in (1, -1, 0), as tuples in
        ``itertools.product((1, -1, 0), repeat=d + ell)`` order.

    Raises
    ------
    InputTypeError
        ``d`` or ``ell`` not an integer, ``eps1``/``eps2`` not a real number.
    ParameterError
        ``d < 1``, ``ell < 1``, ``eps1``/``eps2`` negative, NaN or infinite, ``a``
        outside (0, 1).
    SizeError
        More than :data:`qifldp.channel.MAX_ENTRIES` entries (for ``ell = 1``
        about d >= 13).

    Notes
    -----
    PCKV (Gu et al., USENIX Security 2020), Algorithms 1 and 2, assembled from the
    QIF operators:

    - padding-and-sampling (Algorithm 1) is a hidden choice over the ``ell``
      slots of the padded set; a dummy slot holds a key drawn uniformly from
      d+1..d+ell with value 0, discretised to ±1 w.p. 1/2 (for |S| <= ell the
      sampled pair is then one of S's pairs w.p. |S|/ell, uniformly);
    - the per-pair channel is the cascade of the value perturbation
      ``parallel(identity on keys, grr(2, eps2))`` and the key perturbation:
      unary encoding of the key in which the key's own position carries the
      perturbed value and every other reported position a uniform fake value.

    Per position of the output, given the sampled pair (k, v) (Algorithm 2):
    y[k] = v w.p. a p, -v w.p. a (1 - p), 0 w.p. 1 - a; y[i] = ±1 w.p. b/2 each
    and 0 w.p. 1 - b for i != k. ``ldp_epsilon`` (all pairs of sets are
    neighbours in LDP, as the paper says in Sec. 5.2) equals
    ``pckv_epsilon(eps1, eps2, ell, "ue")`` (Theorem 2) when ``d >= ell`` and is
    smaller when ``d < ell``. Cost O(N 3^(d + ell)) time and memory, N = number
    of inputs.

    General (a, b) (Algorithm 2 with any a, our extension of Theorem 2): the
    per-position likelihood ratios against a cold position are R1 = 2ap/b (own
    value kept), R- = 2a(1 - p)/b (flipped) and R0 = (1 - a)/(1 - b) (not
    reported); with m = min(d, ell) the exact budget is
    eps = ln((m R1 + (ell - m) R0) / min(ell R0, m R- + (ell - m) R0)). Since
    R1 / R0 = 2p e^eps1 and R- / R0 = 2(1 - p) e^eps1, a cancels: at a given eps1
    every a spends the same eps, Theorem 2's max(eps2, eps1 + ln(2p)) when
    d >= ell. Checked against ``ldp_epsilon`` of this channel for a in
    0.1..0.95 (tests/composite/test_pckv_general_ue.py).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.pckv_ue(2, 1.0, 0.5)
    >>> C.shape, C.inputs[:3]
    ((5, 27), ((), ((1, 1),), ((1, -1),)))
    >>> round(q.ldp_epsilon(C), 6) == round(q.pckv_epsilon(1.0, 0.5, mechanism="ue"), 6)
    True
    >>> C8 = q.pckv_ue(2, 1.0, 0.5, a=0.8)  # general a: the same eps
    >>> round(q.ldp_epsilon(C8), 6) == round(q.ldp_epsilon(C), 6)
    True
    """
    d, eps1, eps2, ell = _check_parameters(d, eps1, eps2, ell)
    a = check_ue_a(a)
    n = d + ell
    what = f"pckv_ue({d}, {eps1}, {eps2}, ell={ell}, a={a})"
    _guard(what, d, ell, n * math.log10(3), lambda: 3**n)
    sampling = _padding_and_sampling(_key_value_sets(d, ell), d, ell)
    per_pair = cascade(
        parallel(_keys_identity(n), _value_perturbation(eps2)), _unary_key_perturbation(n, eps1, a)
    )
    return cascade(sampling, per_pair)


def pckv_grr(d: int, eps1: float, eps2: float, ell: int = 1) -> Channel:
    """PCKV-GRR: padding-and-sampling, then GRR on the key with a correlated value.

    Parameters
    ----------
    d, ell : int
        As in :func:`pckv_ue`.
    eps1 : float
        Key budget, finite and ``>= 0`` (GRR over the d + ell keys).
    eps2 : float
        Value budget, finite and ``>= 0``.

    Returns
    -------
    Channel, shape (Σ_{j <= min(d, ell)} C(d, j) 2^j, 2 (d + ell))
        Inputs as in :func:`pckv_ue`. Outputs: pairs (key, value), keys 1..d+ell,
        values (1, -1), in ``itertools.product`` order.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`pckv_ue`.
    SizeError
        More than :data:`qifldp.channel.MAX_ENTRIES` entries.

    Notes
    -----
    PCKV Algorithms 1 and 3. Sampling as in :func:`pckv_ue`. The per-pair channel
    is a hidden choice between "key kept" (w.p. a = e^eps1 / (e^eps1 + d + ell - 1),
    the diagonal of ``grr(d + ell, eps1)``) with the value perturbed by
    ``grr(2, eps2)``, and "key moved" to a uniformly chosen other key (w.p. 1 - a)
    with a uniform value ``grr(2, 0)``:
    Pr((k', v') | (k, v)) = a [p if v' = v else 1 - p] if k' = k, else b / 2.
    ``ldp_epsilon`` (all pairs of sets) equals
    ``pckv_epsilon(eps1, eps2, ell, "grr")`` (Theorem 3) for every d tested.
    Cost O(N (d + ell)) with N the number of inputs.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.pckv_grr(2, 1.0, 0.5, ell=2)
    >>> C.shape, C.outputs[:2]
    ((9, 8), ((1, 1), (1, -1)))
    >>> round(q.ldp_epsilon(C), 6) == round(q.pckv_epsilon(1.0, 0.5, 2, "grr"), 6)
    True
    """
    d, eps1, eps2, ell = _check_parameters(d, eps1, eps2, ell)
    n = d + ell
    what = f"pckv_grr({d}, {eps1}, {eps2}, ell={ell})"
    _guard(what, d, ell, math.log10(2 * n), lambda: 2 * n)
    sampling = _padding_and_sampling(_key_value_sets(d, ell), d, ell)
    keys = GRR(n, eps1).channel().matrix
    kept = parallel(_keys_identity(n), _value_perturbation(eps2))
    labels = tuple(range(1, n + 1))
    other_key = Channel((1.0 - np.eye(n)) / (n - 1), labels, labels)
    moved = parallel(other_key, _value_perturbation(0.0))
    per_pair = hidden_choice([kept, moved], [keys[0, 0], (n - 1) * keys[0, 1]])
    return cascade(sampling, per_pair)


def _softplus(x: float) -> float:
    """ln(1 + e^x) without overflow."""
    return float(np.logaddexp(0.0, x))


def pckv_epsilon(eps1: float, eps2: float, ell: int = 1, mechanism: str = "ue") -> float:
    """The total budget of PCKV as stated by its Theorem 2 (UE) and Theorem 3 (GRR).

    Parameters
    ----------
    eps1, eps2 : float
        Key and value budgets, finite and ``>= 0``.
    ell : int, optional
        Padding length, ``ell >= 1`` (default 1); Theorem 2 does not depend on it.
    mechanism : {"ue", "grr"}, optional
        Which theorem (default ``"ue"``).

    Returns
    -------
    float
        The epsilon of the theorem.

    Raises
    ------
    InputTypeError
        Non-real budgets, non-integer ``ell``, ``mechanism`` not a string.
    ParameterError
        Negative, NaN or infinite budgets, ``ell < 1``, unknown ``mechanism``.

    Notes
    -----
    Theorem 2 (Eq. 3): eps = max(eps2, eps1 + ln(2 / (1 + e^-eps2))).

    Theorem 3 (Eq. 6), with lambda = (ell - 1)(1 + e^eps2) / 2:
    eps = ln((lambda + e^(eps1 + eps2)) / (lambda + min(e^eps1, (1 + e^eps2) / 2))).
    Eq. 6 itself is not legible in the paper's available text; this form is the one
    that meets every property the paper states about it (decreasing in lambda,
    lambda increasing in ell, Eq. 3 at ell = 1, ln((e^eps1 + ell - 1) / ell) at
    eps2 = 0) and is checked against the explicit channel, not taken on trust.

    Both are epsilons over *all* pairs of inputs (any two sets of at most ell
    pairs are neighbours in LDP), i.e. ``ldp_epsilon(C)`` with no ``neighbors``.
    Against the explicit channels (tests/composite): Theorem 3 equals
    ``ldp_epsilon(pckv_grr(d, eps1, eps2, ell))`` for every d >= 1; Theorem 2
    equals ``ldp_epsilon(pckv_ue(d, eps1, eps2, ell))`` when d >= ell and is only
    an upper bound when d < ell (a set then cannot fill all ell slots with real
    keys). With m = min(d, ell), E = e^eps1, p = e^eps2 / (e^eps2 + 1) and the
    per-slot likelihood ratios R1 = p (E + 1), R- = (1 - p)(E + 1),
    R0 = (E + 1) / (2E), the explicit PCKV-UE channel has exactly
    eps = ln((m R1 + (ell - m) R0) / min(ell R0, m R- + (ell - m) R0)),
    which is Theorem 2 when m = ell; e.g. d = 1, ell = 2, eps1 = eps2 = 1:
    1.379885 stated, 0.911167 true.
    Computed in log space: no overflow for large budgets.

    Examples
    --------
    >>> import qifldp as q
    >>> round(q.pckv_epsilon(1.0, 1.0), 6)  # 1 + ln(2 / (1 + e^-1))
    1.379885
    >>> round(q.pckv_epsilon(1.0, 0.0, ell=3, mechanism="grr"), 6)  # ln((e + 2) / 3)
    0.452832
    """
    eps1 = check_eps(eps1, "eps1")
    eps2 = check_eps(eps2, "eps2")
    ell = check_int("ell", ell, minimum=1)
    if not isinstance(mechanism, str):
        msg = f"mechanism must be the string 'ue' or 'grr', got {mechanism!r}"
        raise InputTypeError(msg)
    if mechanism == "ue":
        return max(eps2, eps1 + math.log(2.0) - _softplus(-eps2))
    if mechanism == "grr":
        log_half_1_plus_e2 = _softplus(eps2) - math.log(2.0)  # ln((1 + e^eps2) / 2)
        log_lam = -math.inf if ell == 1 else math.log(ell - 1) + log_half_1_plus_e2
        numerator = float(np.logaddexp(log_lam, eps1 + eps2))
        denominator = float(np.logaddexp(log_lam, min(eps1, log_half_1_plus_e2)))
        return numerator - denominator
    msg = f"mechanism must be 'ue' (Theorem 2) or 'grr' (Theorem 3), got {mechanism!r}"
    raise ParameterError(msg)


def ue_exact_epsilon(d: int, eps1: float, eps2: float, ell: int) -> float:
    """The exact eps of PCKV-UE (any a): ldp_epsilon of :func:`pckv_ue`, in closed form.

    With m = min(d, ell), E = e^eps1, p = e^eps2 / (e^eps2 + 1):
    eps = ln((m 2p E + ell - m) / min(ell, m 2(1 - p) E + ell - m)), independent of a.
    Arguments already validated; computed in log space.
    """
    m = min(d, ell)
    log_rest = math.log(ell - m) if ell > m else -math.inf
    log_m2 = math.log(m) + math.log(2.0) + eps1
    numerator = float(np.logaddexp(log_m2 - _softplus(-eps2), log_rest))
    denominator = min(math.log(ell), float(np.logaddexp(log_m2 - _softplus(eps2), log_rest)))
    return numerator - denominator
