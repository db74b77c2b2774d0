"""Key-value data for simulations: the ``data`` format of :class:`qifldp.PCKV` (a list with one
dict key -> value per user, keys 1..d, values in [-1, 1]), synthetic and read from CSV."""

from __future__ import annotations

import csv
import math
import numbers
import os
from collections.abc import Mapping
from itertools import chain
from typing import Any

import numpy as np

from ..errors import InputTypeError, ParameterError
from ..validation import check_int, check_real
from .data import _check_path, zipf_probabilities
from .util import as_rng, check_memory

__all__ = [
    "keyvalue_arrays",
    "keyvalue_data",
    "load_keyvalue_csv",
]


# ---------------------------------------------------------------------- key-value data
# (the ``data`` format of qifldp.PCKV: a list with one dict key -> value per user, keys
# 1..d, values in [-1, 1]; the same list is a weighted bipartite graph users x items)


def keyvalue_arrays(data: Any, d: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate key-value data and flatten it: (lengths, keys, values), user after user.

    Parameters
    ----------
    data : list of dict
        One dict per user, key (int in 1..d) -> value (real in [-1, 1]); a user may hold
        no pair.
    d : int, optional
        Number of keys; default: the largest key present (at least 1).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        ``lengths`` (int64, one per user), ``keys`` (int64) and ``values`` (float64),
        the pairs of user 0, then user 1, ...

    Raises
    ------
    InputTypeError
        ``data`` not a list of dicts; a key not an integer or a value not a real number.
    ParameterError
        No users; a key outside 1..d; a value outside [-1, 1] or NaN.

    Examples
    --------
    >>> lengths, keys, values = keyvalue_arrays([{1: 0.5}, {}, {3: -1.0, 2: 0.0}])
    >>> lengths.tolist(), keys.tolist(), values.tolist()
    ([1, 0, 2], [1, 3, 2], [0.5, -1.0, 0.0])
    """

    if isinstance(data, (Mapping, str, bytes)) or not hasattr(data, "__len__"):
        msg = "data must be a list with one dict (key -> value) per user"
        raise InputTypeError(msg)
    if len(data) == 0:
        msg = "data must hold at least one user, got an empty list"
        raise ParameterError(msg)
    for i, user in enumerate(data):
        if not isinstance(user, Mapping):
            msg = f"data[{i}] must be a dict (key -> value), got {type(user).__name__}"
            raise InputTypeError(msg)
    lengths = np.fromiter((len(user) for user in data), dtype=np.int64, count=len(data))
    raw_keys = list(chain.from_iterable(user.keys() for user in data))
    raw_values = list(chain.from_iterable(user.values() for user in data))
    for kind in set(map(type, raw_keys)):  # one check per type, not per key
        if issubclass(kind, (bool, np.bool_)) or not issubclass(kind, (int, np.integer)):
            bad = next(key for key in raw_keys if type(key) is kind)
            msg = f"data's keys must be integers >= 1, got {bad!r}"
            raise InputTypeError(msg)
    for kind in set(map(type, raw_values)):
        if issubclass(kind, (bool, np.bool_)) or not issubclass(kind, numbers.Real):
            bad = next(v for v in raw_values if type(v) is kind)
            msg = f"data's values must be real numbers in [-1, 1], got {bad!r}"
            raise InputTypeError(msg)
    keys = np.array(raw_keys, dtype=np.int64)
    values = np.array(raw_values, dtype=np.float64)
    top = int(keys.max()) if keys.size else 1
    d = max(top, 1) if d is None else check_int("d", d, minimum=1)
    if keys.size and (keys.min() < 1 or keys.max() > d):
        bad_key = keys[(keys < 1) | (keys > d)][0]
        msg = f"data's keys must be in 1..d = 1..{d}, got {int(bad_key)}"
        raise ParameterError(msg)
    if values.size and not (np.all(values >= -1.0) and np.all(values <= 1.0)):
        bad_value = values[~((values >= -1.0) & (values <= 1.0))][0]
        msg = f"data's values must be in [-1, 1], got {bad_value}"
        raise ParameterError(msg)
    return lengths, keys, values


def keyvalue_data(
    n: int,
    d: int,
    s: float = 1.0,
    mean_length: float = 2.0,
    concentration: float = 4.0,
    rng: Any = None,
) -> list[dict[int, float]]:
    """Seeded synthetic key-value data (a weighted bipartite graph users x keys).

    Parameters
    ----------
    n : int
        Number of users, ``n >= 1``.
    d : int
        Number of keys (items), ``d >= 1``; keys are 1..d.
    s : float, optional
        Power-law exponent of key popularity, ``s >= 0``: key j is picked with weight
        j^(-s) (:func:`zipf_probabilities`; 0 is uniform). Default 1.
    mean_length : float, optional
        Each user holds min(d, Poisson(mean_length)) distinct keys,
        ``0 <= mean_length <= 10^6`` (default 2; users with no key occur).
    concentration : float, optional
        Spread of the values: key j has a mean mu_j uniform in [-1, 1]; its values are
        2 B - 1 with B ~ Beta(c (1 + mu_j) / 2, c (1 - mu_j) / 2), so E[value] = mu_j
        and Var = (1 - mu_j^2) / (c + 1). ``concentration > 0`` (default 4).
    rng : numpy.random.Generator or int, optional
        Seed or generator (default: fresh entropy).

    Returns
    -------
    list of dict
        One dict per user, key (int, 1..d) -> value (float in [-1, 1]): the ``data``
        argument of :class:`qifldp.PCKV` and of the bipartite RR3 protocol.

    Raises
    ------
    ParameterError, InputTypeError
        Bad n, d, s, mean_length, concentration or rng.
    SizeError
        n x d beyond the simulation memory budget.

    Notes
    -----
    Distinct keys by weight, without replacement, with the Gumbel top-L trick (the L
    largest of log w_j + Gumbel noise): O(n d log d).

    Examples
    --------
    >>> data = keyvalue_data(4, 5, rng=0)
    >>> len(data), all(1 <= k <= 5 and -1 <= v <= 1 for u in data for k, v in u.items())
    (4, True)
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    mean_length = check_real("mean_length", mean_length, minimum=0.0, maximum=1e6)
    concentration = check_real("concentration", concentration)
    if concentration <= 0:
        msg = f"concentration must be > 0, got {concentration}"
        raise ParameterError(msg)
    check_memory(float(n) * d, 24, f"keyvalue_data(n = {n}, d = {d})", "fewer users or keys")
    w = zipf_probabilities(d, s)
    gen = as_rng(rng)
    mu = gen.uniform(-1.0, 1.0, size=d)
    lengths = np.minimum(gen.poisson(mean_length, size=n), d)
    scores = np.log(w)[None, :] + gen.gumbel(size=(n, d))
    order = np.argsort(-scores, axis=1)
    a = concentration * (1.0 + mu) / 2.0
    b = concentration * (1.0 - mu) / 2.0
    chosen = np.arange(d)[None, :] < lengths[:, None]
    picked = order[chosen]  # user after user, each user's keys in score order
    raw = gen.beta(np.maximum(a[picked], 1e-300), np.maximum(b[picked], 1e-300))
    values = np.clip(2.0 * raw - 1.0, -1.0, 1.0).tolist()
    keys = (picked + 1).tolist()
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]]
    return [
        dict(zip(keys[i:j], values[i:j], strict=True)) for i, j in zip(starts, ends, strict=True)
    ]


def load_keyvalue_csv(path: str | os.PathLike, d: int | None = None) -> list[dict[int, float]]:
    """Read key-value data from a CSV file of ``user,key,value`` rows.

    Parameters
    ----------
    path : str or os.PathLike
        The file: one pair per line, three comma-separated fields: a user id (any
        text), a key (integer >= 1) and a value (real in [-1, 1]). A first line whose
        key field is not an integer is taken as a header and skipped; blank lines are
        skipped.
    d : int, optional
        Number of keys: keys must be in 1..d (default: the largest key in the file).

    Returns
    -------
    list of dict
        One dict per user (key -> value), users in the order of their first row.

    Raises
    ------
    ParameterError
        A row with a wrong number of fields, a key or value that is not a number or out
        of range, a NaN, a (user, key) pair given twice, no rows: the message names the
        line number (1-based).
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "kv.csv")
    >>> _ = open(path, "w").write("user,key,value\\nalice,2,0.5\\nbob,1,-1\\nalice,1,0\\n")
    >>> load_keyvalue_csv(path)
    [{2: 0.5, 1: 0.0}, {1: -1.0}]
    """

    source = _check_path(path)
    d = None if d is None else check_int("d", d, minimum=1)
    users: dict[str, dict[int, float]] = {}
    with open(source, newline="", encoding="utf-8") as fh:
        try:
            rows = list(csv.reader(fh))
        except (UnicodeDecodeError, csv.Error) as exc:
            msg = f"{source} is not a readable UTF-8 CSV file: {exc}"
            raise ParameterError(msg) from None
        for line_no, row in enumerate(rows, start=1):
            if not row or all(not field.strip() for field in row):
                continue
            if len(row) != 3:
                msg = (
                    f"{source}, line {line_no}: expected 3 fields (user,key,value), "
                    f"got {len(row)}: {row!r}"
                )
                raise ParameterError(msg)
            user, key_text, value_text = (field.strip() for field in row)
            try:
                key = int(key_text)
            except ValueError:
                if line_no == 1 and not users:
                    continue  # a header
                msg = f"{source}, line {line_no}: key must be an integer >= 1, got {key_text!r}"
                raise ParameterError(msg) from None
            if key < 1 or (d is not None and key > d):
                upper = f"1..{d}" if d is not None else ">= 1"
                msg = f"{source}, line {line_no}: key must be {upper}, got {key}"
                raise ParameterError(msg)
            try:
                value = float(value_text)
            except ValueError:
                msg = f"{source}, line {line_no}: value must be a real number, got {value_text!r}"
                raise ParameterError(msg) from None
            if math.isnan(value) or not -1.0 <= value <= 1.0:
                msg = f"{source}, line {line_no}: value must be in [-1, 1], got {value_text!r}"
                raise ParameterError(msg)
            pairs = users.setdefault(user, {})
            if key in pairs:
                msg = f"{source}, line {line_no}: user {user!r} has key {key} twice"
                raise ParameterError(msg)
            pairs[key] = value
    if not users:
        msg = f"{source}: no (user, key, value) rows"
        raise ParameterError(msg)
    return list(users.values())
