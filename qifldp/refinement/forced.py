"""The witness forced by the extreme likelihood ratio, for two channels of the same epsilon.

Let e^eps be the largest ratio A[x, z] / A[x', z] between two entries of a column of A.
If a column y of B attains it, B[x, y] = e^eps B[x', y], then every column z of A that a
witness sends to y attains it on the same pair of inputs:

    B[x, y] = Σ_z A[x, z] W[z, y] <= e^eps Σ_z A[x', z] W[z, y] = e^eps B[x', y],

with equality only when A[x, z] = e^eps A[x', z] wherever W[z, y] > 0. So where every
column of B is constant or two-valued at the ratio e^eps (its top set X: B[., y] is
e^eps c on X and c elsewhere — GRR, subset selection, local hashing, Hadamard response
and encoding, HE with t coefficients), the only columns of A that may feed y are the
two-valued ones of top set X (unary encoding reports the set X itself): W is forced,

    W[z_X, y] = B[x, y] / A[x, z_X],

and the rest of each row of W goes to B's constant columns, in proportion to their
values (they take any mixture of A's rows; their share follows from the row sums). A
pair at the same epsilon has no other witness, so this candidate settles pairs on which
a float LP stalls at the boundary (SUE ⊑ HE with t coefficients, eps = 8, k = 8: every
entry of the witness is forced to within the rounding of the stored channels).

The candidate is verified like every other (the rounding band, then the exact
confirmation where it runs); pairs of different epsilons, columns of B with other
ratios, a top set A never reports or a row whose forced part exceeds 1 get no candidate.
Where the candidate misses the band because B's ratio on a pair of inputs exceeds A's
(the stored floats of a pair equal in law, one rounded above the other),
:func:`ratio_gain` states the failure: post-processing never raises a ratio.

Layer L3 (refinement).
"""

from __future__ import annotations

import numpy as np

__all__ = ["forced_witness", "ratio_gain", "RATIO_RTOL"]

#: Two ratios (or two entries of a column) are taken as equal within this relative
#: tolerance when the candidate is built; the verification decides, not this.
RATIO_RTOL: float = 1e-9


def _ratios(M: np.ndarray) -> np.ndarray:
    """Per column: max / min (inf where the minimum is 0)."""
    hi, lo = M.max(axis=0), M.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lo > 0, hi / np.where(lo > 0, lo, 1.0), np.inf)


def _two_valued(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column: whether every entry is within RATIO_RTOL of the column's maximum or
    minimum, and the top set (entries near the maximum)."""
    hi, lo = M.max(axis=0), M.min(axis=0)
    near_hi = np.abs(M - hi) <= RATIO_RTOL * hi
    near_lo = np.abs(M - lo) <= RATIO_RTOL * hi
    return np.all(near_hi | near_lo, axis=0), near_hi


def _keys(top: np.ndarray) -> np.ndarray:
    """One byte string per column of a boolean matrix (its bits packed), sortable."""
    packed = np.ascontiguousarray(np.packbits(top, axis=0).T)
    return packed.view(np.dtype((np.void, packed.shape[1]))).ravel()


def forced_witness(A: np.ndarray, B: np.ndarray) -> np.ndarray | None:
    """The witness W with A·W = B forced at equal epsilon, or None where it does not apply.

    Parameters
    ----------
    A, B : numpy.ndarray
        Row-stochastic, on the same inputs (rows); proportional columns best merged
        first (two columns of A with the same top set: the first one is used).

    Returns
    -------
    numpy.ndarray or None
        A row-stochastic candidate of shape (A's columns, B's columns), to be verified;
        None when some column of B is neither constant nor two-valued at A's largest
        ratio, a top set of B is not one of A's, a row's forced part exceeds 1, or rows
        have a remainder and B no constant column.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.2, 0.2], [0.2, 0.2, 0.6]])  # top sets {0}, none, {1}: ratio 3
    >>> B = np.array([[0.3, 0.1, 0.6], [0.1, 0.3, 0.6]])  # top sets {0}, {1}, none
    >>> W = forced_witness(A, B)
    >>> W.tolist(), bool(np.allclose(A @ W, B))
    ([[0.5, 0.0, 0.5], [0.0, 0.0, 1.0], [0.0, 0.5, 0.5]], True)
    """
    if A.ndim != 2 or B.ndim != 2 or A.shape[0] != B.shape[0] or A.shape[0] < 2:
        return None
    ra = _ratios(A)
    top = float(ra.max())
    if not np.isfinite(top) or not top > 1 + 1e3 * RATIO_RTOL:
        return None  # A has zero entries, or leaks nothing: nothing is forced
    rb = _ratios(B)
    constant = rb <= 1 + RATIO_RTOL
    at_top = np.abs(rb - top) <= RATIO_RTOL * top
    if not np.all(constant | at_top):
        return None  # (the common case, decided on the ratios alone)
    b_two, b_top = _two_valued(B)
    if not np.all(constant | b_two):
        return None
    extreme = ~constant
    a_two, a_top = _two_valued(A)
    # each extreme column of B is matched to the first column of A with its top set
    # (sorted byte keys of the packed top sets: no Python loop over the columns)
    cand = np.flatnonzero(a_two & (np.abs(ra - top) <= RATIO_RTOL * top))
    ys = np.flatnonzero(extreme)
    W = np.zeros((A.shape[1], B.shape[1]))
    if ys.size:
        if cand.size == 0:
            return None
        ka, kb = _keys(a_top[:, cand]), _keys(b_top[:, ys])
        order = np.argsort(ka, kind="stable")
        pos = np.minimum(np.searchsorted(ka[order], kb), cand.size - 1)
        if not np.all(ka[order][pos] == kb):
            return None  # a top set of B that A never reports
        zs = cand[order[pos]]
        W[zs, ys] = B[:, ys].sum(axis=0) / A[:, zs].sum(axis=0)
    rest = 1.0 - W.sum(axis=1)
    if rest.min() < -1e3 * RATIO_RTOL:
        return None
    rest = np.maximum(rest, 0.0)
    cols = np.flatnonzero(constant)
    if cols.size == 0:
        return W if rest.max() <= 1e3 * RATIO_RTOL else None
    share = B[:, cols].mean(axis=0)
    W[:, cols] = np.outer(rest, share / share.sum())
    return W


def ratio_gain(A: np.ndarray, B: np.ndarray, prior: np.ndarray) -> np.ndarray | None:
    """A gain under which B leaks more than A wherever B's likelihood ratio on a pair of
    inputs exceeds every ratio of A on that pair (a candidate: its gap is computed by the
    caller, exactly where it is small).

    With x, x' the top and bottom inputs of B's column of largest ratio rho_B, and rho_A
    the largest A[x, z] / A[x', z] (rho_B > rho_A), the gain has two actions: "x" with
    g = 1 at x and -lam pi_x / pi_x' at x' (lam between rho_A and rho_B), and "nothing"
    (0). Under the prior pi, every column of A is then worth max(0, pi_x (A[x, z] - lam
    A[x', z])) = 0, and B's column of ratio rho_B a positive amount.

    Parameters
    ----------
    A, B : numpy.ndarray
        Row-stochastic, on the same inputs.
    prior : numpy.ndarray
        The prior (x and x' must have positive mass).

    Returns
    -------
    numpy.ndarray or None
        The gain, shape (2, inputs), entries in [-1, 1]; None when B's ratio on that pair
        does not exceed A's in floating point.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> B = np.array([[0.7, 0.3], [0.3, 0.7]])  # ratio 7/3 > A's 3/2
    >>> g = ratio_gain(A, B, np.full(2, 0.5))
    >>> g.round(4).tolist()
    [[0.5217, -1.0], [0.0, 0.0]]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        rb = B.max(axis=0) / B.min(axis=0)
    rb = np.where(np.isfinite(rb), rb, 0.0)
    y = int(np.argmax(rb))
    x, x2 = int(np.argmax(B[:, y])), int(np.argmin(B[:, y]))
    if x == x2 or not (prior[x] > 0 and prior[x2] > 0) or not B[x2, y] > 0:
        return None
    rho_b = B[x, y] / B[x2, y]
    pos = A[x2] > 0
    if np.any(A[x][~pos] > 0):
        return None  # A separates the pair absolutely: no ratio of B exceeds it
    rho_a = float((A[x][pos] / A[x2][pos]).max())
    if not rho_b > rho_a:
        return None
    lam = 0.5 * (rho_a + rho_b)
    g = np.zeros((2, A.shape[0]))
    g[0, x], g[0, x2] = 1.0, -lam * prior[x] / prior[x2]
    return g / np.abs(g).max()
