"""Server side: frequency estimation from support counts, and its variance.

The generic machinery lives here: :func:`support_counts`, :func:`calibrate`,
:func:`frequency_variance`, :func:`project_simplex` and the matrix-inversion
estimator for any channel. Each protocol's estimator, variance and support
probabilities are its methods ``Protocol.estimate``, ``Protocol.variance`` and
``Protocol.support_probabilities`` in :mod:`qifldp.protocols`; the flat names
``estimate_grr`` ... ``variance_the`` and ``grr_pq_star`` ... are aliases of
:mod:`qifldp.faces.simulation`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import check_finite
from ..channel import as_channel
from ..errors import ChannelError, InputTypeError, ParameterError
from ..validation import as_real_array, check_bool, check_int, check_probability, check_real
from .samplers import LHReports
from .util import (
    as_array,
    as_values,
    asarray_checked,
    check_memory,
    check_n,
    row_chunks,
)

__all__ = [
    "RANK_RTOL",
    "support_counts",
    "calibrate",
    "frequency_variance",
    "project_simplex",
    "inversion_matrix",
    "estimate_inversion",
    "variance_inversion",
]

#: Relative tolerance on singular values below which a channel counts as rank
#: deficient for the matrix-inversion estimator (singular value < RANK_RTOL · largest).
RANK_RTOL: float = 1e-10


# ----------------------------------------------------------------------------------------
# support counts and calibration
# ----------------------------------------------------------------------------------------
def support_counts(
    reports: Any, k: int | None = None, *, sparse: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """How many reports support each value v = 0..k-1.

    Parameters
    ----------
    reports : numpy.ndarray or LHReports
        - shape (n,) integers (GRR): a report supports the value it names;
        - shape (n, ω) integers (SS subsets): each value in the subset;
        - shape (n, k) booleans (SS membership, UE, THE bits): each set bit;
        - :class:`LHReports`: every v with h_j(v) = y_j.
    k : int, optional
        Domain size; needed for 1-D and (n, ω) reports, checked otherwise.
    sparse : bool
        Integer reports only (GRR values, SS subsets): return the observed
        values and their counts, ``(values, counts)``, sorted by value, in
        memory proportional to the reports rather than to k. Every value not
        listed has count 0. The way to estimate frequencies over a domain too
        large for a length-k vector: ``calibrate(counts, n, p*, q*)`` gives the
        estimates of the listed values; every other value's estimate is
        ``-q*/(p* - q*)``.

    Returns
    -------
    numpy.ndarray of int64, shape (k,); or (values, counts) when ``sparse``

    Raises
    ------
    ParameterError, InputTypeError
        Missing or inconsistent ``k``, reports out of range, bad shape or type.
    SizeError
        A length-k count vector beyond the simulation memory budget (use
        ``sparse=True``).

    Notes
    -----
    O(n) for GRR, O(n ω) for subsets, O(n k) for bits and LH (LH evaluates the
    hash of every user at every value in cache-sized blocks, updating
    (a v + b) mod P incrementally in uint32).

    Examples
    --------
    >>> support_counts(np.array([0, 2, 2]), k=3).tolist()
    [1, 0, 2]
    >>> support_counts(np.array([[True, False], [True, True]])).tolist()
    [2, 1]
    >>> [a.tolist() for a in support_counts([7, 10**9 - 1, 7], k=10**9, sparse=True)]
    [[7, 999999999], [2, 1]]
    """
    if not isinstance(sparse, bool):
        msg = f"sparse must be True or False, got {sparse!r}"
        raise InputTypeError(msg)
    if isinstance(reports, LHReports):
        if sparse:
            msg = "sparse=True is for integer reports (GRR values, SS subsets), not LHReports"
            raise ParameterError(msg)
        _check_dense_k(reports.k, "support_counts", _LH_ALT)
        if k is not None and check_int("k", k, minimum=2) != reports.k:
            msg = f"k = {k} does not match the reports' domain size {reports.k}"
            raise ParameterError(msg)
        return _lh_support_counts(reports)
    arr = _as_report_array(reports)
    if arr.dtype == np.bool_:
        if sparse:
            msg = "sparse=True is for integer reports (GRR values, SS subsets), not bit matrices"
            raise ParameterError(msg)
        if arr.ndim != 2:
            msg = f"boolean reports must be an (n, k) matrix, got shape {arr.shape}"
            raise ParameterError(msg)
        if k is not None and check_int("k", k, minimum=2) != arr.shape[1]:
            msg = f"k = {k} does not match the {arr.shape[1]} columns of the bit reports"
            raise ParameterError(msg)
        return _column_counts(arr)
    if k is None:
        msg = "k must be given for integer reports (GRR values or SS subsets)"
        raise ParameterError(msg)
    k = check_int("k", k, minimum=2)
    if arr.ndim not in (1, 2):
        msg = f"integer reports must have shape (n,) or (n, omega), got {arr.shape}"
        raise ParameterError(msg)
    flat = as_values(arr.reshape(-1), k, name="reports")
    if sparse:
        values, counts = np.unique(flat, return_counts=True)
        return values.astype(np.int64), counts.astype(np.int64)
    _check_dense_k(k, "support_counts")
    return np.bincount(flat, minlength=k).astype(np.int64, copy=False)


def _column_counts(bits: np.ndarray) -> np.ndarray:
    """The number of set bits in each column of an (n, k) boolean matrix (int64).

    Eight columns at a time: the rows are read as uint64 words of 8 one-byte lanes and
    summed 255 rows at a time, so that no lane (a count <= 255) carries into the next;
    the lanes are then summed as bytes. Twice as fast as ``count_nonzero(axis=0)``;
    k not a multiple of 8 or a non-contiguous matrix falls back to it.
    """
    n, k = bits.shape
    if k % 8 or not bits.flags.c_contiguous or n < 255:
        return np.count_nonzero(bits, axis=0).astype(np.int64)
    lanes = bits.view(np.uint8).view(np.uint64)
    m = (n // 255) * 255
    blocks = lanes[:m].reshape(-1, 255, k // 8).sum(axis=1, dtype=np.uint64)
    counts = blocks.view(np.uint8).reshape(-1, k).sum(axis=0, dtype=np.int64)
    counts += np.count_nonzero(bits[m:], axis=0)
    return counts


#: The "use instead" of a length-k count vector: sparse counts of the observed values.
_SPARSE_ALT = (
    "support_counts(reports, k, sparse=True) (counts of the observed values only) "
    "and calibrate() on those counts"
)

#: Local hashing supports ~k/g values per report, so there are no sparse counts.
_LH_ALT = "a smaller domain (map the values onto fewer candidates before hashing)"


def _check_dense_k(k: int, what: str, alternative: str = _SPARSE_ALT) -> None:
    """Refuse length-k vectors beyond the memory budget, before allocating: the counts,
    their float copy and two temporaries of the calibration, 4 x 8 bytes per value."""
    check_memory(k, 32, f"the length-k vectors of {what} (k = {k})", alternative)


def _as_report_array(reports: Any) -> np.ndarray:
    return as_array(reports, "reports")


def _lh_support_counts(R: LHReports) -> np.ndarray:
    counts = np.zeros(R.k, dtype=np.int64)
    y = R.y.astype(np.uint32 if R.table is None else R.table.dtype)
    eq = np.empty(0, dtype=bool)
    for s, e in row_chunks(len(R), 1, cells=1 << 16):
        if eq.size != e - s:
            eq = np.empty(e - s, dtype=bool)
        ys = y[s:e]
        for v, col in R._columns(s, e):
            np.equal(col, ys, out=eq)
            counts[v] += np.count_nonzero(eq)
    return counts


def calibrate(
    counts: Any, n: int, p_star: float, q_star: float, *, project: bool = False
) -> np.ndarray:
    """Unbiased frequencies from support counts: f̂_v = (C_v / n − q*) / (p* − q*).

    Parameters
    ----------
    counts : array_like, shape (k,)
        Support counts C_v.
    n : int
        Number of users, ``n >= 1``.
    p_star, q_star : float
        Pr[a report supports v | value v] and Pr[... | another value]; p* != q*.
    project : bool
        Return the Euclidean projection of f̂ onto the probability simplex
        (biased, but a valid distribution).

    Returns
    -------
    numpy.ndarray of float64, shape (k,)

    Raises
    ------
    ParameterError
        p* = q* (the reports carry no information: ε = 0 or a degenerate ω);
        p* or q* outside [0, 1] or NaN; counts negative, non-finite or above n;
        counts not a 1-D vector.
    InputTypeError
        Non-real p*, q* or counts (complex, strings), a non-integer n.

    Notes
    -----
    E[C_v] = n f_v p* + n (1 − f_v) q*, hence E[f̂_v] = f_v (Wang et al.,
    USENIX Security 2017, "pure" protocols). O(k).

    Examples
    --------
    >>> calibrate([30, 70], 100, p_star=0.75, q_star=0.25).tolist()
    [0.1, 0.9]
    """
    n = check_n(n)
    p_star, q_star = _check_pq_star(p_star, q_star)
    counts = _as_real_vector("counts", counts)
    if counts.size and (counts.min() < 0 or counts.max() > n):
        msg = f"counts must lie in [0, n] = [0, {n}] (support counts of n users), got "
        msg += f"{counts.min() if counts.min() < 0 else counts.max()}"
        raise ParameterError(msg)
    check_bool("project", project)
    if not p_star != q_star:
        msg = (
            f"the protocol's p* = {p_star} equals q* = {q_star}: reports carry no information "
            "about the frequencies (eps = 0 or a degenerate parameter); no unbiased estimator"
        )
        raise ParameterError(msg)
    f = (counts / n - q_star) / (p_star - q_star)
    return project_simplex(f) if project else f


def _check_pq_star(p_star: Any, q_star: Any) -> tuple[float, float]:
    return check_probability("p_star", p_star), check_probability("q_star", q_star)


def _as_real_vector(name: str, value: Any) -> np.ndarray:
    """A 1-D finite float64 vector (empty allowed), with a clear error otherwise."""
    arr = asarray_checked(value, name, "a 1-D array of real numbers")
    if arr.dtype == np.bool_ or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        if not (arr.size == 0 and arr.dtype == object):
            msg = f"{name} must hold real numbers, got dtype {arr.dtype}"
            raise InputTypeError(msg)
    arr = arr.astype(np.float64)
    if arr.ndim != 1:
        msg = f"{name} must be a 1-D vector, got shape {arr.shape}"
        raise ParameterError(msg)
    return check_finite(arr, ParameterError, f"{name} must be finite (no NaN or inf)")


def frequency_variance(p_star: float, q_star: float, n: int, f: Any = None) -> np.ndarray | float:
    """Variance of the calibrated estimator f̂_v = (C_v/n − q*)/(p* − q*).

    Parameters
    ----------
    p_star, q_star : float
        Support probabilities of the protocol, p* != q*.
    n : int
        Number of users.
    f : array_like, optional
        True frequencies of the n users' values. Without it, the usual
        approximation for a rare value (f_v = 0) is returned.

    Returns
    -------
    float (f is None) or numpy.ndarray (one variance per value)

    Raises
    ------
    ParameterError
        p* = q* (no unbiased estimator), p* or q* outside [0, 1], n < 1, or f
        not a vector of frequencies in [0, 1].
    InputTypeError
        Non-real p*, q* or f, a non-integer n.

    Notes
    -----
    Given the users' values (fixed population) and independent randomisation,
    C_v is a sum of independent Bernoulli(p*) (n f_v users) and Bernoulli(q*)
    variables, so

        Var[f̂_v] = [f_v p*(1 − p*) + (1 − f_v) q*(1 − q*)] / (n (p* − q*)²)
                 = q*(1 − q*)/(n (p* − q*)²) + f_v (1 − p* − q*)/(n (p* − q*)),

    the formula of Wang et al. (2017, Eq. 2 divided by n²). With f = None the
    first term is returned (their Var*). O(k).

    Examples
    --------
    >>> round(frequency_variance(0.75, 0.25, 100), 6)    # 0.1875 / (100 · 0.25)
    0.0075
    """
    n = check_n(n)
    p_star, q_star = _check_pq_star(p_star, q_star)
    d = p_star - q_star
    if d == 0:
        msg = f"p* = q* = {p_star}: the estimator is undefined"
        raise ParameterError(msg)
    base = q_star * (1.0 - q_star) / n / d / d  # d * d may underflow; this overflows to inf
    if f is None:
        return float(base)
    f = _as_real_vector("f", f)
    if f.size and (f.min() < 0 or f.max() > 1):
        msg = "f must hold frequencies in [0, 1]"
        raise ParameterError(msg)
    return (f * p_star * (1.0 - p_star) + (1.0 - f) * q_star * (1.0 - q_star)) / n / d / d


def project_simplex(v: Any) -> np.ndarray:
    """Euclidean projection onto the probability simplex {x >= 0, Σ x = 1}.

    Parameters
    ----------
    v : array_like, shape (k,) or (m, k)
        A vector, or one vector per row.

    Returns
    -------
    numpy.ndarray of float64, same shape

    Raises
    ------
    ParameterError
        Empty, non-finite input or more than two dimensions.

    Notes
    -----
    Sort-based algorithm (Held, Wolfe and Crowder 1974; Duchi et al. 2008):
    with u sorted descending, ρ = max{j : u_j − (Σ_{i<=j} u_i − 1)/j > 0},
    τ = (Σ_{i<=ρ} u_i − 1)/ρ and x = max(v − τ, 0). O(k log k) per vector.

    Examples
    --------
    >>> project_simplex([0.5, 0.8, -0.1]).round(6).tolist()
    [0.35, 0.65, 0.0]
    """
    arr = as_real_array("v", v, ndim=(1, 2))
    if arr.ndim not in (1, 2) or arr.size == 0:
        msg = f"v must be a non-empty vector or matrix, got shape {arr.shape}"
        raise ParameterError(msg)
    if not np.all(np.isfinite(arr)):
        msg = "v must be finite (no NaN or inf)"
        raise ParameterError(msg)
    X = arr.reshape(-1, arr.shape[-1])
    u = -np.sort(-X, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    j = np.arange(1, X.shape[1] + 1)
    cond = u - css / j > 0
    rho = X.shape[1] - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds, 1-based
    tau = css[np.arange(X.shape[0]), rho - 1] / rho
    out = np.maximum(X - tau[:, None], 0.0)
    return out.reshape(arr.shape)


# ----------------------------------------------------------------------------------------
# matrix inversion for any channel
# ----------------------------------------------------------------------------------------
def inversion_matrix(C: Any, rank_rtol: float = RANK_RTOL) -> np.ndarray:
    """The pseudo-inverse C⁺ (|Y| x |X|) used by the matrix-inversion estimator.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
        Must have full row rank |X| (distinct input distributions that are
        linearly independent), which needs |Y| >= |X|.
    rank_rtol : float
        Singular values below ``rank_rtol`` times the largest count as zero.

    Returns
    -------
    numpy.ndarray, shape (|Y|, |X|)
        A right inverse: C C⁺ = I.

    Raises
    ------
    ChannelError
        C is rank deficient (frequencies are not identifiable from outputs).

    Notes
    -----
    Computed from the thin SVD C = U S Vᵀ as C⁺ = V S⁻¹ Uᵀ. O(|X|² |Y|).

    Examples
    --------
    >>> inversion_matrix([[0.75, 0.25], [0.25, 0.75]]).round(6).tolist()
    [[1.5, -0.5], [-0.5, 1.5]]
    """
    C = as_channel(C)
    rank_rtol = check_real("rank_rtol", rank_rtol, minimum=0.0, maximum=1.0)
    if C.n_outputs < C.n_inputs:
        msg = (
            f"C has {C.n_outputs} outputs < {C.n_inputs} inputs: the input frequencies are not "
            "identifiable by matrix inversion (needs full row rank)"
        )
        raise ChannelError(msg)
    U, s, Vt = np.linalg.svd(C.matrix, full_matrices=False)
    if s[-1] <= rank_rtol * s[0]:
        rank = int(np.sum(s > rank_rtol * s[0]))
        msg = (
            f"C has rank {rank} < {C.n_inputs} inputs (smallest singular value {s[-1]:.3g}): the "
            "input frequencies are not identifiable by matrix inversion"
        )
        raise ChannelError(msg)
    return (Vt.T / s) @ U.T


def estimate_inversion(
    C: Any, ys: Any, *, project: bool = False, rank_rtol: float = RANK_RTOL
) -> np.ndarray:
    """Matrix-inversion frequency estimate for any channel: f̂ = ŷ C⁺.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
        Full row rank.
    ys : array_like of int, shape (n,)
        Observed output indices (e.g. from :func:`sample`).
    project : bool
        Project onto the probability simplex.
    rank_rtol : float
        See :func:`inversion_matrix`.

    Returns
    -------
    numpy.ndarray, shape (|X|,)

    Raises
    ------
    ChannelError
        C is rank deficient.
    ParameterError
        No observations or an output index out of range.

    Notes
    -----
    ŷ is the empirical output distribution, E[ŷ] = f C, and C C⁺ = I, so
    E[f̂] = f: unbiased (the least-squares solution of f C = ŷ when C is not
    square). For GRR it coincides with :func:`estimate_grr`. O(n + |X|² |Y|).

    Examples
    --------
    >>> C = [[0.75, 0.25], [0.25, 0.75]]
    >>> estimate_inversion(C, [0, 0, 0, 1]).tolist()
    [1.0, 0.0]
    """
    C = as_channel(C)
    Cp = inversion_matrix(C, rank_rtol)
    ys = as_values(ys, C.n_outputs, name="ys")
    if ys.size == 0:
        msg = "ys must not be empty (n >= 1 observations)"
        raise ParameterError(msg)
    yhat = np.bincount(ys, minlength=C.n_outputs) / ys.size
    f = yhat @ Cp
    return project_simplex(f) if check_bool("project", project) else f


def variance_inversion(
    C: Any, f: Any, n: int, *, full: bool = False, rank_rtol: float = RANK_RTOL
) -> np.ndarray:
    """Variance (or covariance) of :func:`estimate_inversion` for n users with frequencies f.

    Parameters
    ----------
    C : Channel, shape (|X|, |Y|)
        Full row rank.
    f : array_like, shape (|X|,)
        The users' true frequencies (a probability vector).
    n : int
        Number of users.
    full : bool
        Return the (|X|, |X|) covariance matrix instead of the variances.
    rank_rtol : float
        See :func:`inversion_matrix`.

    Returns
    -------
    numpy.ndarray, shape (|X|,) or (|X|, |X|)

    Raises
    ------
    ChannelError
        C is rank deficient.
    ParameterError
        f is not a probability vector over the inputs, n < 1.

    Notes
    -----
    Given the users' values, the output counts are a sum of independent
    one-hot vectors: Cov[ŷ] = (diag(μ) − Σ_x f_x C_xᵀ C_x)/n with μ = f C. As
    C_x C⁺ = e_x, Cov[f̂] = C⁺ᵀ Cov[ŷ] C⁺ = (C⁺ᵀ diag(μ) C⁺ − diag(f))/n and
    Var[f̂_v] = (Σ_y μ_y C⁺[y, v]² − f_v)/n. For GRR this equals
    :func:`variance_grr`. O(|X|² |Y|).

    Examples
    --------
    >>> C = [[0.75, 0.25], [0.25, 0.75]]
    >>> variance_inversion(C, [0.5, 0.5], 100).round(6).tolist()
    [0.0075, 0.0075]
    """
    C = as_channel(C)
    Cp = inversion_matrix(C, rank_rtol)
    full = check_bool("full", full)
    f = as_real_array("f", f)
    if f.shape != (C.n_inputs,) or not np.all(np.isfinite(f)) or np.any(f < 0):
        msg = f"f must be a non-negative vector of length {C.n_inputs}, got shape {f.shape}"
        raise ParameterError(msg)
    if abs(f.sum() - 1.0) > 1e-9:
        msg = f"f must sum to 1 (frequencies of the users' values), sums to {f.sum()}"
        raise ParameterError(msg)
    n = check_n(n)
    mu = f @ C.matrix
    if full:
        return ((Cp.T * mu) @ Cp - np.diag(f)) / n
    return (mu @ (Cp * Cp) - f) / n
