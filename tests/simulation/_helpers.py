"""Statistical helpers of the simulation tests: goodness of fit and k-sigma bounds."""

from __future__ import annotations

import numpy as np
from scipy import stats

#: Significance level of every goodness-of-fit test: a correct sampler fails a
#: given test with probability 1e-6 (and the seeds are fixed, so never in CI).
ALPHA = 1e-6

#: Width, in standard deviations, of every Monte Carlo bound (two-sided
#: normal tail at 5 sigma: 5.7e-7).
Z = 5.0


def assert_gof(observed: np.ndarray, probs: np.ndarray, alpha: float = ALPHA) -> None:
    """Pearson chi-square goodness of fit of counts against probabilities.

    Cells with probability 0 must have no observation (checked exactly); the
    other cells must have an expected count of at least 5.
    """
    observed = np.asarray(observed, dtype=float)
    probs = np.asarray(probs, dtype=float)
    zero = probs <= 0
    assert np.all(observed[zero] == 0), "an output of probability 0 was drawn"
    obs, p = observed[~zero], probs[~zero] / probs[~zero].sum()
    if obs.size == 1:  # a single possible output: the zero cells above decide
        return
    n = obs.sum()
    expected = n * p
    assert expected.min() >= 5, f"test design: expected counts too small ({expected.min():.2f})"
    stat = float(np.sum((obs - expected) ** 2 / expected))
    pval = float(stats.chi2.sf(stat, df=obs.size - 1))
    assert pval > alpha, f"chi-square {stat:.1f} on {obs.size - 1} df, p = {pval:.2e}"


def assert_close_sigma(value: float, expected: float, sd: float, z: float = Z) -> None:
    """|value - expected| <= z * sd."""
    assert abs(value - expected) <= z * sd, (
        f"{value} differs from {expected} by {abs(value - expected) / sd:.2f} sd (> {z})"
    )


def assert_rate(successes_rate: float, expected: float, n: int, z: float = Z) -> None:
    """An empirical success rate of n users against its expectation.

    The users' values form a fixed population, so the variance of the rate is
    at most V (1 - V) / n (law of total variance); the bound uses that.
    """
    sd = np.sqrt(max(expected * (1 - expected), 1e-12) / n)
    assert_close_sigma(successes_rate, expected, sd, z)


def assert_variance(samples: np.ndarray, sigma2: np.ndarray, z: float = Z) -> None:
    """Sample variances (over axis 0) against theoretical variances.

    The standard error of the sample variance is estimated from the sample's
    fourth central moment, SE(s^2) = sqrt((m4 - s^4) / R) (delta method; no
    normality assumption).
    """
    R = samples.shape[0]
    centred = samples - samples.mean(axis=0)
    s2 = np.mean(centred**2, axis=0) * R / (R - 1)
    m4 = np.mean(centred**4, axis=0)
    se = np.sqrt(np.maximum(m4 - s2**2, 0) / R)
    dev = np.abs(s2 - sigma2)
    assert np.all(dev <= z * se), f"sample variances {s2} vs formula {sigma2} (se {se})"


def assert_unbiased(
    samples: np.ndarray, truth: np.ndarray, sigma2: np.ndarray, z: float = Z
) -> None:
    """Means (over axis 0) of R independent estimates against the truth, sd sqrt(sigma2 / R)."""
    R = samples.shape[0]
    mean = samples.mean(axis=0)
    sd = np.sqrt(sigma2 / R)
    assert np.all(np.abs(mean - truth) <= z * sd), f"mean {mean} vs truth {truth} (sd {sd})"


def assert_mse_ratio(
    samples: np.ndarray, truth: np.ndarray, sigma2: np.ndarray, z: float = Z
) -> None:
    """Pooled check of unbiasedness and variance: E[mean_v (f_hat_v - f_v)^2 / sigma2_v] = 1.

    For an unbiased estimator with the stated variances each replicate's
    u_r = mean_v (f_hat_rv - f_v)^2 / sigma2_v has expectation exactly 1; the
    mean of the R values of u is compared with 1 using their own sample standard
    error (this accounts for the correlation between values). Sharper than the
    per-value checks (it pools the k values).
    """
    u = np.mean((samples - truth) ** 2 / sigma2, axis=1)
    se = u.std(ddof=1) / np.sqrt(u.size)
    assert abs(u.mean() - 1.0) <= z * se, f"mean squared z-score {u.mean():.4f} (se {se:.4f})"


def row_counts(rows: np.ndarray, labels) -> np.ndarray:
    """Histogram of the users' output rows over a channel's output labels.

    ``rows`` is an (n, d) integer array, ``labels`` a sequence of d-tuples (the
    channel's outputs, flattened to tuples of ints); a row that is no label fails.
    """
    rows = np.asarray(rows).reshape(len(rows), -1).astype(np.int64)
    index = {tuple(int(v) for v in lab): i for i, lab in enumerate(labels)}
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    out = np.zeros(len(index), dtype=np.int64)
    for row, c in zip(uniq.tolist(), counts.tolist(), strict=True):
        assert tuple(row) in index, f"output {tuple(row)} is not a label of the channel"
        out[index[tuple(row)]] += c
    return out
