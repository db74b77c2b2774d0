"""Log binomial probabilities and coefficients against 50-digit mpmath and exact integers."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from qifldp.symmetric.binomial import log_binom_pmf, log_comb, logsumexp


def _ref_log_pmf(n: int, x: int, theta: float) -> float:
    """log Pr[Bin(n, theta) = x] at 50 digits (mpmath), theta the given double exactly."""
    with mp.workdps(50):
        th = mp.mpf(theta)
        return float(mp.log(mp.binomial(n, x)) + x * mp.log(th) + (n - x) * mp.log(1 - th))


@pytest.mark.parametrize(
    ("n", "theta"),
    [
        (5, 0.25),
        (20, 0.01),
        (999, 0.9),
        (10**4, 0.5),
        (10**6, 0.5),
        (10**6, 0.3),
        (10**6, 1e-22),
        (10**6, 1 / (math.e + 1)),
        (10**6, 1 - 1e-9),
    ],
)
def test_log_pmf_matches_mpmath(n: int, theta: float) -> None:
    # provenance: 50-digit mpmath; points in the bulk, both tails and the ends
    mean = int(n * theta)
    xs = sorted({0, 1, 2, 3, n // 3, n // 2, mean, min(n, mean + 1), n - 1, n})
    got = log_binom_pmf(n, xs, math.log(theta), math.log1p(-theta))
    for x, v in zip(xs, got, strict=True):
        ref = _ref_log_pmf(n, x, theta)
        # relative accuracy of the probability ~1e-14 wherever it is not astronomically small
        assert abs(v - ref) <= 1e-13 * max(1.0, abs(ref)), (n, theta, x, v, ref)


def test_pmf_sums_to_one() -> None:
    # provenance: the binomial theorem
    for n, theta in [(1, 0.3), (50, 0.5), (1000, 0.02), (10**5, 0.7)]:
        v = np.exp(log_binom_pmf(n, np.arange(n + 1), math.log(theta), math.log1p(-theta)))
        assert math.fsum(v) == pytest.approx(1.0, abs=1e-13)


def test_degenerate_theta() -> None:
    # theta = 0: all mass at 0; theta = 1: all mass at n; n = 0: a point mass
    assert log_binom_pmf(4, [0, 1, 4], -math.inf, 0.0).tolist() == [0.0, -math.inf, -math.inf]
    assert log_binom_pmf(4, [0, 3, 4], 0.0, -math.inf).tolist() == [-math.inf, -math.inf, 0.0]
    assert log_binom_pmf(0, [0], math.log(0.3), math.log(0.7)).tolist() == [0.0]


def test_log_comb_exact_integers() -> None:
    # provenance: math.comb (exact integers); the documented accuracy is a few ulp of
    # n log 2 (log C(n, x) = log Pr[Bin(n, 1/2) = x] + n log 2)
    for n in [1, 2, 7, 60, 1000, 5000]:
        xs = np.unique(np.r_[np.arange(min(n, 80) + 1), n - np.arange(min(n, 80) + 1), n // 2])
        got = log_comb(n, xs)
        ref = np.array([math.log(math.comb(n, int(x))) for x in xs])
        assert np.max(np.abs(got - ref)) <= 4e-15 * max(1.0, n * math.log(2))


def test_logsumexp() -> None:
    assert logsumexp([]) == -math.inf
    assert logsumexp([-math.inf, -math.inf]) == -math.inf
    assert logsumexp([1000.0, 1000.0]) == pytest.approx(1000.0 + math.log(2), abs=1e-12)


def test_log_comb_table_equals_the_formula_and_reads_the_deadline_between_blocks() -> None:
    # the kept table log C(n, 0..n) holds the very values of the formula (same floats), a
    # subset of them is read from it, and under a deterministic clock a spent deadline
    # stops the table's computation between blocks with the decision's time-limit error
    from qifldp import deadline
    from qifldp.errors import SolverError
    from qifldp.symmetric import binomial

    n = 3 * binomial.COMB_CHUNK + 11
    x = np.arange(n + 1)
    direct = binomial._log_comb_direct(n, x)
    binomial._TABLES.pop(n, None)
    with deadline.use_clock(deadline.TickClock()) as clock, deadline.budget(2.0):
        with pytest.raises(SolverError, match=rf"log C\({n}, x\)") as info:
            log_comb(n, x)
    assert deadline.reached(info.value) and clock.readings == 3  # budget, then 2 blocks
    assert n not in binomial._TABLES
    assert np.array_equal(log_comb(n, x), direct)
    assert np.array_equal(log_comb(n, x[5::7]), direct[5::7])
    for m in range(5000, 5000 + binomial._TABLES_KEPT):  # the least recently used go
        log_comb(m, np.arange(m + 1))
    assert list(binomial._TABLES) == list(range(5000, 5000 + binomial._TABLES_KEPT))
    # the absolute error is a few ulp of n log 2 (log_comb's note)
    exact = math.log(math.comb(n, 3))
    assert log_comb(n, x)[3] == pytest.approx(exact, abs=16 * n * math.log(2) * 2.0**-53)
