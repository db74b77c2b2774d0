"""Iterative Bayesian update (IBU): the maximum-likelihood input distribution of any channel.

The server's generic estimator for any protocol seen as a channel C: from the reports'
counts, the distribution π on the simplex maximising the likelihood Σ_y c_y ln (π C)_y,
by the EM iteration π_x ← π_x Σ_y C[x, y] (c_y / n) / (π C)_y (Agrawal and Aggarwal,
PODS 2001; ElSalamouny and Palamidessi, EuroS&P 2020; the IBU of Arcolezi et al.'s
multi-freq-ldpy). It works on an explicit :class:`~qifldp.Channel` (counts per output)
and on a symmetric channel (:mod:`qifldp.symmetric`, reports as sets of values, k up
to millions), and :class:`~qifldp.protocols.rr3.RR` uses it for its EM estimate.

Convergence, stated: the mean log-likelihood is concave on the simplex and EM never
decreases it; the gradient g_x = Σ_y C[x, y] (c_y / n) / (π C)_y satisfies π · g = 1, so
the Frank-Wolfe duality gap max_x g_x - 1 bounds the distance of the likelihood to its
maximum. The iteration stops when that gap is at most ``tol`` (a certificate, returned
with ``info=True``), or after ``max_iter`` steps (then ``info`` says so).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..channel import Channel
from ..errors import InputTypeError, ParameterError
from ..simulation.util import as_array, check_bits
from ..symmetric.channel import SymmetricChannel
from ..validation import as_real_array, check_bool, check_int, check_real

__all__ = ["EM_TOL", "MAX_ITER", "IBUInfo", "ibu", "em_matrix"]

#: Default stopping rule: the mean log-likelihood certified within EM_TOL of its maximum.
EM_TOL: float = 1e-10

#: Default cap on the EM steps.
MAX_ITER: int = 100_000


class IBUInfo(NamedTuple):
    """How :func:`ibu` stopped.

    Attributes
    ----------
    gap : float
        The Frank-Wolfe duality gap at the estimate: its mean log-likelihood is within
        ``gap`` of the maximum.
    iterations : int
        EM steps taken.
    converged : bool
        ``gap <= tol``.
    """

    gap: float
    iterations: int
    converged: bool


def em_matrix(
    P: np.ndarray, counts: np.ndarray, tol: float = EM_TOL, max_iter: int = MAX_ITER
) -> tuple[np.ndarray, np.ndarray, int]:
    """EM on an explicit channel matrix, for one or several data sets at once.

    Parameters
    ----------
    P : numpy.ndarray, shape (k, m)
        Row-stochastic.
    counts : numpy.ndarray, shape (m,) or (T, m)
        Report counts (T independent data sets, solved together), each with a
        positive total.
    tol, max_iter : float, int
        The stopping rule (see the module).

    Returns
    -------
    pi : numpy.ndarray, shape (k,) or (T, k)
    gap : numpy.ndarray, shape () or (T,)
        The duality gap of each estimate.
    iterations : int

    Raises
    ------
    ParameterError
        A count on an output that no input can give.

    Notes
    -----
    Starts from the uniform distribution; when P is square and invertible and the
    inversion estimate lies in the simplex, that estimate is the maximum itself (its
    π P is the empirical distribution) and is returned without iterating. Each data set
    is iterated with SQUAREM's extrapolation (kept only when it does not lower the
    likelihood); ``iterations`` is the largest number of steps one took. O(k m) per step.

    Examples
    --------
    >>> P = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> pi, gap, _ = em_matrix(P, np.array([3.0, 1.0]))
    >>> pi.round(6).tolist(), bool(gap <= EM_TOL)
    ([1.0, 0.0], True)
    """
    C = np.atleast_2d(counts).astype(np.float64)
    share = C / C.sum(axis=1, keepdims=True)
    support = P.sum(axis=0) > 0
    if np.any(share[:, ~support] > 0):
        msg = "counts hold an output no input of the channel can give (probability 0 for all)"
        raise ParameterError(msg)
    k = P.shape[0]
    pi = np.full((C.shape[0], k), 1.0 / k)
    gaps = np.full(C.shape[0], np.inf)
    active = np.ones(C.shape[0], dtype=bool)
    if P.shape[0] == P.shape[1] and abs(np.linalg.det(P)) > 1e-12:
        inv = share @ np.linalg.inv(P)
        inside = np.all(inv >= 0.0, axis=1)
        pi[inside] = inv[inside] / inv[inside].sum(axis=1, keepdims=True)
        gaps[inside] = 0.0
        active &= ~inside
    steps = 0
    for i in np.flatnonzero(active):
        pi[i], gaps[i], taken = _em_squarem(P, share[i], tol, max_iter)
        steps = max(steps, taken)
    if np.ndim(counts) == 1:
        return pi[0], gaps[0], steps
    return pi, gaps, steps


def _em_step(P: np.ndarray, share: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, float, float]:
    """One EM step from pi: (the next estimate, the duality gap at pi, the mean
    log-likelihood at pi)."""
    lam = pi @ P
    pos = share > 0
    ratio = np.zeros_like(lam)
    np.divide(share, lam, out=ratio, where=pos)
    grad = P @ ratio
    new = pi * grad
    new /= new.sum()
    return new, float(grad.max() - 1.0), float(share[pos] @ np.log(lam[pos]))


def _loglik(P: np.ndarray, share: np.ndarray, pi: np.ndarray) -> float:
    lam = pi @ P
    pos = share > 0
    if np.any(lam[pos] <= 0):
        return -np.inf
    return float(share[pos] @ np.log(lam[pos]))


#: Floor of an extrapolated estimate's entries (an exact 0 would be kept by every later
#: EM step, so the extrapolation never sets one).
_SQUAREM_FLOOR = 1e-300

#: An entry below this is taken as cut by the extrapolation; if the likelihood's gradient
#: says it belongs to the support, it is put back at _SQUAREM_REVIVE times the largest.
_SQUAREM_CUT = 1e-30
_SQUAREM_REVIVE = 1e-4


def _em_squarem(
    P: np.ndarray, share: np.ndarray, tol: float, max_iter: int
) -> tuple[np.ndarray, float, int]:
    """EM on one data set, accelerated by SQUAREM (Varadhan and Roland, Scand. J.
    Statist. 2008, scheme S3) with a monotone safeguard: from pi, two EM steps give
    pi1, pi2; the extrapolation pi - 2 a r + a^2 v (r = pi1 - pi, v = pi2 - 2 pi1 + pi,
    a = -|r| / |v| <= -1), clipped to the simplex and followed by one EM step, is kept
    only when its likelihood is at least pi2's; otherwise pi2 is. The clipping can cut an
    entry of the support to the floor, from where EM regrows it by a constant factor per
    step (some 10^4 steps); so an entry below ``_SQUAREM_CUT`` that EM grows (its
    gradient exceeds 1: moving mass to it raises the likelihood) is put back at
    ``_SQUAREM_REVIVE`` times the largest entry, kept only when the likelihood does not
    drop. The likelihood never decreases, and the stopping rule is EM's own (the duality
    gap at the estimate returned). Each EM evaluation counts as one step of
    ``max_iter``."""
    k = P.shape[0]
    pi = np.full(k, 1.0 / k)
    steps = 0
    while True:
        pi1, gap, _ = _em_step(P, share, pi)
        steps += 1
        if gap <= tol or steps >= max_iter:
            return pi, gap, steps
        # an entry EM grows has gradient > 1 (pi1 = pi * gradient, pi . gradient = 1)
        grow = (pi < _SQUAREM_CUT) & (pi1 > pi)
        if grow.any():
            revived = np.where(grow, _SQUAREM_REVIVE * pi.max(), pi)
            revived /= revived.sum()
            if _loglik(P, share, revived) >= _loglik(P, share, pi):
                pi = revived
                continue
        pi2, gap1, _ = _em_step(P, share, pi1)
        steps += 1
        if gap1 <= tol or steps >= max_iter:
            return pi1, gap1, steps
        r = pi1 - pi
        v = pi2 - 2.0 * pi1 + pi
        nv = float(np.linalg.norm(v))
        candidate = pi2
        if nv > 0.0:
            a = min(-float(np.linalg.norm(r)) / nv, -1.0)
            trial = np.maximum(pi - 2.0 * a * r + a * a * v, _SQUAREM_FLOOR)
            trial /= trial.sum()
            stabilised, _, _ = _em_step(P, share, trial)
            steps += 1
            if _loglik(P, share, stabilised) >= _loglik(P, share, pi2):
                candidate = stabilised
        pi = candidate


def _symmetric_reports(reports: Any, C: SymmetricChannel) -> tuple[Any, np.ndarray]:
    """(membership, size of each report) of a symmetric channel's reports.

    1-D integer reports are singletons {y} (GRR's report); 2-D boolean (or 0/1)
    reports are membership vectors of the reported sets (UE's bits, SS's subsets).
    """
    arr = as_array(reports, "counts")
    k = C.k
    if arr.ndim == 1:
        if not np.issubdtype(arr.dtype, np.integer) or arr.size == 0:
            msg = "counts of a symmetric channel must be reports: values in 0..k-1 or (n, k) bits"
            raise ParameterError(msg)
        if arr.min() < 0 or arr.max() >= k:
            msg = f"reports must be values in 0..{k - 1}, got {arr.min()}..{arr.max()}"
            raise ParameterError(msg)
        return arr.astype(np.int64), np.ones(arr.size, dtype=np.int64)
    bits = check_bits(arr)
    if bits.shape[1] != k or bits.shape[0] == 0:
        msg = f"reports must be an (n, k) bit matrix with n >= 1 and k = {k}, got {bits.shape}"
        raise ParameterError(msg)
    return bits, bits.sum(axis=1)


def _em_symmetric(
    C: SymmetricChannel, reports: Any, tol: float, max_iter: int
) -> tuple[np.ndarray, float, int]:
    """EM on a symmetric channel from its reports (sets): O(n k) per step (O(n + k) for
    singleton reports). A set S of size s has Pr[S | x] = a_s if x ∈ S else b_s."""
    members, size = _symmetric_reports(reports, C)
    where = {int(s): i for i, s in enumerate(C.sizes)}
    missing = sorted(set(np.unique(size).tolist()) - set(where))
    if missing:
        msg = f"reports of sizes {missing} are impossible for this channel (sizes {C.sizes})"
        raise ParameterError(msg)
    cls = np.array([where[int(s)] for s in size])
    la, lb = C.log_a[cls], C.log_b[cls]
    top = np.maximum(la, lb)
    alpha, beta = np.exp(la - top), np.exp(lb - top)  # Pr[S|x in S], Pr[S|x not in S], scaled
    n, k = size.size, C.k
    singletons = members.ndim == 1
    pi = np.full(k, 1.0 / k)
    gap, steps = np.inf, 0
    while steps < max_iter:
        mass = pi[members] if singletons else members @ pi  # pi(S_r)
        den = beta + (alpha - beta) * mass
        if np.any(den <= 0):
            msg = "a report has probability 0 under the current estimate (impossible report)"
            raise ParameterError(msg)
        base = np.sum(beta / den) / n
        w = (alpha - beta) / den / n
        extra = np.bincount(members, weights=w, minlength=k) if singletons else w @ members
        grad = base + extra
        gap = float(grad.max() - 1.0)
        if gap <= tol:
            break
        steps += 1
        pi = pi * grad
        pi /= pi.sum()
    return pi, gap, steps


def ibu(
    counts: Any,
    C: Any,
    tol: float = EM_TOL,
    max_iter: int = MAX_ITER,
    info: bool = False,
) -> Any:
    """Iterative Bayesian update: the maximum-likelihood input distribution of a channel.

    Parameters
    ----------
    counts : array_like
        For an explicit channel: the number of reports of each output, shape (m,)
        (or (T, m) for T data sets at once). For a symmetric channel: the reports
        themselves, as values in 0..k-1 (a channel of singletons, such as GRR) or
        as an (n, k) boolean membership matrix of the reported sets (UE's bits,
        SS's subsets).
    C : Channel, array_like or SymmetricChannel
        The channel (rows: inputs; explicit or symmetric).
    tol : float
        Stop when the mean log-likelihood is certified within ``tol`` of its maximum.
    max_iter : int
        At most this many EM steps.
    info : bool
        Also return an :class:`IBUInfo` (the duality gap reached, steps, converged).

    Returns
    -------
    numpy.ndarray, shape (k,) (or (T, k)); with ``info``, the pair (estimate, IBUInfo)
        On the simplex. Biased (a maximum likelihood estimate), with a smaller error
        than the unbiased inversion estimates at small n or eps.

    Raises
    ------
    ParameterError
        Counts of the wrong shape, negative, all zero, on an output no input gives;
        reports impossible for the symmetric channel; bad ``tol`` or ``max_iter``.
    InputTypeError
        ``C`` is not a channel.

    Notes
    -----
    The convergence certificate is the module's: EM is monotone and the duality gap
    max_x g_x - 1 bounds the remaining log-likelihood. O(k m) per step (explicit),
    O(n k) per step for set reports, O(n + k) for singleton reports (symmetric).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.grr(3, 1.0)
    >>> q.ibu([50, 30, 20], C).round(4).tolist()
    [0.7705, 0.2295, 0.0]
    >>> est = q.ibu([0] * 50 + [1] * 30 + [2] * 20, q.symmetric.grr(3, 1.0))
    >>> est.round(4).tolist()
    [0.7705, 0.2295, 0.0]
    """
    tol = check_real("tol", tol, minimum=0.0)
    max_iter = check_int("max_iter", max_iter, minimum=0)
    info = check_bool("info", info)
    if isinstance(C, SymmetricChannel):
        pi, gap, steps = _em_symmetric(C, counts, tol, max_iter)
        return (pi, IBUInfo(gap, steps, gap <= tol)) if info else pi
    if isinstance(C, Channel):
        P = C.matrix
    else:
        try:
            P = Channel(C).matrix
        except (TypeError, ValueError) as err:
            msg = f"C must be a channel (Channel, array or SymmetricChannel), got {C!r}: {err}"
            raise InputTypeError(msg) from None
    c = as_real_array("counts", counts, ndim=(1, 2))
    if c.shape[-1] != P.shape[1]:
        msg = f"counts must have one entry per output of C ({P.shape[1]}), got {c.shape[-1]}"
        raise ParameterError(msg)
    if np.any(c < 0) or np.any(c.sum(axis=-1) <= 0):
        msg = "counts must be nonnegative with a positive total"
        raise ParameterError(msg)
    pi, gaps, steps = em_matrix(np.asarray(P), c, tol, max_iter)
    if not info:
        return pi
    worst = float(np.max(gaps))
    return pi, IBUInfo(worst, steps, worst <= tol)
