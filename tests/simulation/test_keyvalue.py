"""Key-value / bipartite data: the synthetic generator and the CSV loader.

Provenance: the generator's stated laws (key popularity j^-s normalised, computed
here; min(d, Poisson(L)) keys per user; Beta values with mean mu and variance
(1 - mu^2) / (c + 1)) checked by Monte Carlo in 5-SE bands with fixed seeds; the loader
against files written here by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import poisson

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.simulation import keyvalue_arrays


def test_arrays_flatten_user_after_user():
    lengths, keys, values = keyvalue_arrays([{2: 0.5, 1: -1}, {}, {3: 0.25}], d=3)
    assert lengths.tolist() == [2, 0, 1]
    assert keys.tolist() == [2, 1, 3] and values.tolist() == [0.5, -1.0, 0.25]


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        ({1: 0.5}, InputTypeError, "list"),
        ([], ParameterError, "at least one user"),
        ([[1, 2]], InputTypeError, r"data\[0\]"),
        ([{1.5: 0.5}], InputTypeError, "keys must be integers"),
        ([{True: 0.5}], InputTypeError, "keys must be integers"),
        ([{1: "a"}], InputTypeError, "real numbers"),
        ([{0: 0.5}], ParameterError, "1..d"),
        ([{4: 0.5}], ParameterError, "1..d = 1..3"),
        ([{1: 1.5}], ParameterError, r"\[-1, 1\]"),
        ([{1: math.nan}], ParameterError, r"\[-1, 1\]"),
    ],
)
def test_arrays_bad_data(data, error, match):
    with pytest.raises(error, match=match):
        keyvalue_arrays(data, d=3)


def test_generator_is_seeded_and_well_formed():
    a = q.keyvalue_data(200, 8, rng=3)
    assert a == q.keyvalue_data(200, 8, rng=3) and a != q.keyvalue_data(200, 8, rng=4)
    assert all(1 <= k <= 8 and -1 <= v <= 1 for user in a for k, v in user.items())
    lengths, _, _ = keyvalue_arrays(a, d=8)  # valid data: distinct keys per user by dict
    assert lengths.max() <= 8
    f, m = q.PCKV(8, 1.0).estimate(q.PCKV(8, 1.0).sample(a, rng=0))  # PCKV's data format
    assert f.shape == m.shape == (8,)


def test_lengths_are_capped_poisson():
    n, d, L = 40_000, 4, 2.5
    data = q.keyvalue_data(n, d, mean_length=L, rng=7)
    lengths = np.array([len(user) for user in data])
    pmf = poisson.pmf(np.arange(d), L)
    expected = np.append(pmf, 1 - pmf.sum())  # min(d, Poisson): the tail lumped at d
    freq = np.bincount(lengths, minlength=d + 1) / n
    assert np.all(np.abs(freq - expected) < 5 * np.sqrt(expected * (1 - expected) / n))


def test_single_key_users_follow_the_power_law():
    n, d, s = 60_000, 6, 1.3
    data = q.keyvalue_data(n, d, s=s, mean_length=1.0, rng=11)
    ones = [next(iter(user)) for user in data if len(user) == 1]
    w = np.arange(1, d + 1, dtype=float) ** -s
    p = w / w.sum()  # one key: drawn with probability w_j / sum(w)
    freq = np.bincount(ones, minlength=d + 1)[1:] / len(ones)
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / len(ones)))


def test_values_have_the_stated_mean_variance_law():
    c = 3.0
    data = q.keyvalue_data(30_000, 3, s=0.0, mean_length=2.0, concentration=c, rng=5)
    for key in (1, 2, 3):
        v = np.array([user[key] for user in data if key in user])
        mu = v.mean()
        var = (1 - mu**2) / (c + 1)  # Beta on [-1, 1] with mean mu
        # band: the sample variance's SE plus the delta-method SE of var(mu-hat)
        m4 = np.mean((v - mu) ** 4)
        se = math.sqrt((m4 - v.var() ** 2) / v.size) + 2 * abs(mu) / (c + 1) * v.std() / math.sqrt(
            v.size
        )
        assert abs(v.var() - var) < 5 * se


def test_generator_bad_input():
    with pytest.raises(ParameterError, match="n must be >= 1"):
        q.keyvalue_data(0, 3)
    with pytest.raises(ParameterError, match="concentration"):
        q.keyvalue_data(3, 3, concentration=0.0)
    with pytest.raises(ParameterError, match="mean_length"):
        q.keyvalue_data(3, 3, mean_length=-1.0)
    with pytest.raises(q.SizeError):
        q.keyvalue_data(10**6, 10**6)


def _write(tmp_path, text, name="kv.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_round_trip(tmp_path):
    data = q.keyvalue_data(50, 6, rng=2)
    lines = ["user,key,value"]
    lines += [f"u{i},{k},{v!r}" for i, user in enumerate(data) for k, v in user.items()]
    loaded = q.load_keyvalue_csv(_write(tmp_path, "\n".join(lines) + "\n"), d=6)
    assert loaded == [user for user in data if user]  # users without pairs have no row


def test_csv_groups_users_in_first_appearance_order(tmp_path):
    path = _write(tmp_path, "b,3,1\n\na, 1 ,-0.5\nb,1,0\n")
    assert q.load_keyvalue_csv(path) == [{3: 1.0, 1: 0.0}, {1: -0.5}]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("user,key,value\nu,1\n", "line 2: expected 3 fields"),
        ("u,1,0.5\nu,x,0.5\n", "line 2: key must be an integer"),
        ("u,1,0.5\nv,0,0.5\n", "line 2: key must be 1..4, got 0"),
        ("u,1,0.5\nv,5,0.5\n", "line 2: key must be 1..4"),
        ("u,1,abc\n", "line 1: value must be a real number"),
        ("u,1,1.5\n", r"line 1: value must be in \[-1, 1\]"),
        ("u,1,nan\n", r"line 1: value must be in \[-1, 1\]"),
        ("u,1,0.5\nv,2,0\nu,1,0.25\n", "line 3: user 'u' has key 1 twice"),
        ("user,key,value\n", "no \\(user, key, value\\) rows"),
    ],
)
def test_csv_bad_rows_name_the_line(tmp_path, text, match):
    with pytest.raises(ParameterError, match=match):
        q.load_keyvalue_csv(_write(tmp_path, text), d=4)


def test_csv_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        q.load_keyvalue_csv(tmp_path / "missing.csv")
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ParameterError, match="UTF-8"):
        q.load_keyvalue_csv(binary)
    with pytest.raises(InputTypeError, match="path"):
        q.load_keyvalue_csv(3)
