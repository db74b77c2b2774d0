"""Synthetic populations (Gaussian copula, Zipf marginals) and the categorical CSV loader
(issue 11, item 4). Bands: 4 binomial standard deviations, fixed seeds; the copula's joint
cell from scipy's bivariate normal CDF, independently of the sampler."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError


def _zipf(k, s):
    w = np.arange(1, k + 1) ** (-float(s))
    return w / w.sum()


@pytest.mark.parametrize(("s", "rho"), [(1.0, 0.0), (1.5, 0.6), (0.0, 0.9)])
def test_marginals_are_zipf(s, rho):
    n, ks = 100_000, (12, 5, 3)
    X = q.synthetic_population(n, ks, s=s, rho=rho, rng=7)
    assert X.shape == (n, 3) and X.dtype == np.int64
    for j, k in enumerate(ks):
        p = _zipf(k, s)
        f = np.bincount(X[:, j], minlength=k) / n
        assert np.all(np.abs(f - p) < 4 * np.sqrt(p * (1 - p) / n) + 1e-12)


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.8])
def test_joint_cell_is_the_bivariate_normal_copula(rho):
    n, ks, s = 200_000, (6, 4), 1.0
    X = q.synthetic_population(n, ks, s=s, rho=rho, rng=11)
    for a, b in [(0, 0), (0, 1), (2, 1)]:
        ca, cb = np.cumsum(_zipf(6, s)), np.cumsum(_zipf(4, s))
        # Pr(x0 = a, x1 = b): the copula's mass on the rectangle of quantiles
        lo = [norm.ppf(ca[a - 1]) if a else -np.inf, norm.ppf(cb[b - 1]) if b else -np.inf]
        hi = [norm.ppf(ca[a]), norm.ppf(cb[b])]
        mvn = multivariate_normal([0, 0], [[1, rho], [rho, 1]])

        def F(u, v, mvn=mvn):
            if u == -np.inf or v == -np.inf:
                return 0.0
            return mvn.cdf([u, v])

        p = F(hi[0], hi[1]) - F(lo[0], hi[1]) - F(hi[0], lo[1]) + F(lo[0], lo[1])
        got = np.mean((X[:, 0] == a) & (X[:, 1] == b))
        assert abs(got - p) < 4 * math.sqrt(p * (1 - p) / n) + 2e-4  # + mvn.cdf's own error


def test_seeded_and_correlated():
    A = q.synthetic_population(1000, (5, 5), rng=3)
    assert np.array_equal(A, q.synthetic_population(1000, (5, 5), rng=3))
    X = q.synthetic_population(50_000, (5, 5), rho=0.7, rng=1)
    assert np.corrcoef(X[:, 0], X[:, 1])[0, 1] > 0.4


def test_population_bad_input():
    with pytest.raises(ParameterError, match="rho"):
        q.synthetic_population(10, (3, 3), rho=1.0)
    with pytest.raises(ParameterError, match="rho"):
        q.synthetic_population(10, (3, 3), rho=-0.1)
    with pytest.raises(ParameterError, match="n must be"):
        q.synthetic_population(0, (3, 3))
    with pytest.raises(ParameterError, match=r"ks\[1\]"):
        q.synthetic_population(10, (3, 1))
    with pytest.raises(InputTypeError, match="ks"):
        q.synthetic_population(10, "33")


ADULT = (
    "age, workclass, education, sex, native-country\n"
    "39, State-gov, Bachelors, Male, United-States\n"
    "50, Self-emp-not-inc, Bachelors, Male, United-States\n"
    "38, Private, HS-grad, Male, United-States\n"
    "\n"
    "53, Private, 11th, Male, United-States\n"
    '28, Private, "Bachelors", Female, Cuba\n'
)


def test_load_adult_style(tmp_path):
    f = tmp_path / "adult.csv"
    f.write_text(ADULT)
    T = q.load_categorical_csv(f, columns=["workclass", "sex", 4])
    assert T.columns == ("workclass", "sex", "native-country")
    assert T.categories[0] == ("Private", "Self-emp-not-inc", "State-gov")
    assert T.mapping("sex") == {"Female": 0, "Male": 1}
    assert T.data.tolist() == [[2, 1, 1], [1, 1, 1], [0, 1, 1], [0, 1, 1], [0, 0, 0]]
    assert T.ks == (3, 2, 2)
    # every column, in file order, decoded back through the mapping
    A = q.load_categorical_csv(f)
    back = [[A.categories[j][v] for j, v in enumerate(row)] for row in A.data]
    assert back[4] == ["28", "Private", "Bachelors", "Female", "Cuba"]
    g = tmp_path / "adult.csv.gz"
    g.write_bytes(gzip.compress(ADULT.encode()))
    assert np.array_equal(q.load_categorical_csv(g).data, A.data)


def test_missing_values(tmp_path):
    f = tmp_path / "adult.csv"
    f.write_text(ADULT + "40, ?, HS-grad, Male, Mexico\n")
    with pytest.raises(ParameterError, match=r"line 8, column 'workclass': missing value '\?'"):
        q.load_categorical_csv(f)
    T = q.load_categorical_csv(f, missing="drop")
    assert T.data.shape == (5, 5)
    assert q.load_categorical_csv(f, columns=["sex", "native-country"]).data.shape == (6, 2)


def test_loader_errors_name_line_and_column(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("a,b\n1,x\n2,y,z\n")
    with pytest.raises(ParameterError, match="line 3 has 3 fields, the header has 2"):
        q.load_categorical_csv(f)
    f.write_text("a,b\n1,x\n2,y\n")
    with pytest.raises(ParameterError, match="column 'c' is not in the header"):
        q.load_categorical_csv(f, columns=["c"])
    with pytest.raises(ParameterError, match="index 5 out of range"):
        q.load_categorical_csv(f, columns=[5])
    f.write_text("a,b\n1,x\n2,x\n")
    with pytest.raises(ParameterError, match="column 'b' has a single category 'x'"):
        q.load_categorical_csv(f)
    f.write_text("")
    with pytest.raises(ParameterError, match="empty file"):
        q.load_categorical_csv(f)
    f.write_text("a,a\n1,2\n")
    with pytest.raises(ParameterError, match="duplicate column"):
        q.load_categorical_csv(f)
    f.write_text("a,b\n")
    with pytest.raises(ParameterError, match="no record"):
        q.load_categorical_csv(f)
    with pytest.raises(InputTypeError, match="delimiter"):
        q.load_categorical_csv(f, delimiter=",,")
    with pytest.raises(FileNotFoundError):
        q.load_categorical_csv(tmp_path / "absent.csv")


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_distribution_marginals_and_copula_cell(rho):
    ks, s = (6, 4, 3), 1.2
    p = q.synthetic_distribution(ks, s=s, rho=rho).reshape(ks)
    assert p.sum() == pytest.approx(1.0) and (p >= 0).all()
    assert p.sum(axis=(1, 2)) == pytest.approx(_zipf(6, s), abs=1e-9)
    assert p.sum(axis=(0, 1)) == pytest.approx(_zipf(3, s), abs=1e-9)
    c0, c1 = np.cumsum(_zipf(6, s)), np.cumsum(_zipf(4, s))
    want = multivariate_normal([0, 0], [[1, rho], [rho, 1]]).cdf([norm.ppf(c0[0]), norm.ppf(c1[0])])
    assert p[0, 0, :].sum() == pytest.approx(want, abs=1e-6)


def test_distribution_is_that_of_the_population():
    ks, n = (4, 3, 3), 200_000
    p = q.synthetic_distribution(ks, s=1.0, rho=0.6)
    X = q.synthetic_population(n, ks, s=1.0, rho=0.6, rng=21)
    f = np.bincount(np.ravel_multi_index(X.T, ks), minlength=p.size) / n
    assert np.all(np.abs(f - p) < 4 * np.sqrt(p * (1 - p) / n) + 1e-12)
    with pytest.raises(ParameterError, match="rho"):
        q.synthetic_distribution(ks, rho=0.95)
