"""Attribute inference on RS+FD with unary encoding at large domains: the sufficient statistic
by convolution.

For a UE attribute with marginal m the likelihood ratio of the honest to the fake report is
L(y) = (b + (a - b) S) / (b + (a - b) T), a = p/q, b = (1 - p)/(1 - q), S = Σ_v m_v y_v and
T = Σ_v pi_v y_v (UE-z: T = 1, the denominator is then 1 - the fake report is the zero
vector perturbed; UE-r with uniform fake values: T = |y| / k). So the report enters only
through the scalar S (and |y|). Its law is a convolution of k two-point laws:

- *exact* when the marginals lie on a lattice, m_v = c_v / D with integers c_v (e.g. the
  value counts of D users): N = Σ_v c_v y_v takes at most D + 1 values and S = N / D;
- a *certified interval* otherwise: with c_v = floor(m_v / delta) and r_v = m_v - delta c_v
  in [0, delta), S = delta N + R with 0 <= R <= min(Σ_v r_v, delta |y|). The law of N is
  exact (by the same convolution), and E[R; N] is carried along it, so the honest
  report's mass of every state is exact too; only L is known up to an interval per state.
  Counting a state as won only when it beats every other attribute's state for sure gives
  a lower bound, when it can beat them an upper bound.

Only the per-attribute laws are needed (the reports of the attributes are independent
given the sampled one), as in :mod:`qifldp.protocols.rsfd_attack`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..errors import InputTypeError, ParameterError, SizeError
from ..validation import check_real
from .rsfd import _check_priors
from .rsfd_attack import MAX_LUMPED_STATES, _check_rsfd, _states

__all__ = ["AccuracyBounds", "attribute_inference_bounds"]

#: Added to each side of an interval for the floating-point rounding of the convolution
#: (each state's mass is a sum of at most 2^k products computed with relative error below
#: k 2^-52, far under this).
ROUNDING_ALLOWANCE: float = 1e-12


@dataclass(frozen=True)
class AccuracyBounds:
    """A certified interval for the Bayes-optimal attribute-inference accuracy.

    Attributes
    ----------
    lower, upper : float
        lower <= accuracy <= upper (equal when the computation is exact, up to
        :data:`ROUNDING_ALLOWANCE`).
    method : str
        ``"exact"`` (every attribute's statistic enumerated exactly: few distinct
        marginal values, or lattice marginals) or ``"interval"`` (marginals rounded to a
        lattice of step ``resolution``, the rounding bounded).
    resolution : float or None
        The lattice step used for the interval attributes.
    """

    lower: float
    upper: float
    method: str
    resolution: float | None = None

    @property
    def width(self) -> float:
        """upper - lower."""
        return self.upper - self.lower


def _ue_lattice(
    c: np.ndarray, r: np.ndarray, p: float, q: float, k: int, z: bool, D: int | float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Masses H, F over the states (N, w) and the interval [L_lo, L_hi] of L on each.

    ``D`` is the lattice's denominator (m_v ~ c_v / D). UE-r needs w = |y| (the fake
    report's law depends on it). UE-z keeps only w in {no bit set, some, every bit set}.
    The all-zero and all-one reports (S = 0 and S = 1 exactly: L is the same for every
    attribute there, a tie the rule must settle) are thus states of their own.
    """
    C = int(c.sum())
    a, b = p / q, (1 - p) / (1 - q)
    width = 3 if z else k + 1
    top = width - 1  # the state "every bit set"
    A = np.zeros((C + 1, width))  # Q(N = n, w): bits i.i.d. Bernoulli(q)
    G = np.zeros((C + 1, width))  # E_Q[R; N = n, w]
    c0, r0 = int(c[0]), float(r[0])
    A[0, 0] = 1 - q
    A[c0, 1 if not z else top] = q
    G[c0, 1 if not z else top] = q * r0
    for cv, rv in zip(c[1:].tolist(), r[1:].tolist(), strict=True):
        A1 = (1 - q) * A
        G1 = (1 - q) * G
        sa = q * A[: C + 1 - cv, :]
        sg = q * (G[: C + 1 - cv, :] + rv * A[: C + 1 - cv, :])
        if z:  # 0: no bit set, 1: some, 2: every bit set
            A1[:, 1] += A1[:, 2]  # a zero after ones: mixed
            G1[:, 1] += G1[:, 2]
            A1[:, 2] = 0.0
            G1[:, 2] = 0.0
            A1[cv:, 1] += sa[:, 0] + sa[:, 1]
            G1[cv:, 1] += sg[:, 0] + sg[:, 1]
            A1[cv:, 2] += sa[:, 2]
            G1[cv:, 2] += sg[:, 2]
        else:
            A1[cv:, 1:] += sa[:, :-1]
            G1[cv:, 1:] += sg[:, :-1]
        A, G = A1, G1
    n = np.arange(C + 1, dtype=np.float64)[:, None]
    w = np.arange(width, dtype=np.float64)[None, :]
    r_max = min(float(r.sum()), k / D)
    spread = r_max if z else np.minimum(r_max, w / D)
    extra = np.where((w == 0) | (w == top), 0.0, spread)
    s_lo = np.where(w == top, 1.0, n / D) * np.ones_like(w)  # S = 1 when every bit is set
    H = b * A + (a - b) * np.where(w == top, A, n / D * A + G)  # E_Q[b + (a - b) S; state]
    den = np.ones_like(w) if z else b + (a - b) * (w / k)
    F = A * den
    num_lo = b + (a - b) * s_lo
    lo = num_lo / den
    hi = (num_lo + (a - b) * extra) / den
    keep = (A > 0).ravel()
    return H.ravel()[keep], F.ravel()[keep], lo.ravel()[keep], hi.ravel()[keep]


def _combine(states: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> tuple:
    """(lower, upper) of V = (1/d) Σ_j Σ_s H_j(s) Π_{i != j} Pr_{F_i}(L_i beaten by L_j(s))."""
    d = len(states)
    lower = upper = 0.0
    cdf = []
    for _, f, lo, hi in states:
        o_hi, o_lo = np.argsort(hi, kind="stable"), np.argsort(lo, kind="stable")
        cdf.append(
            (
                hi[o_hi],
                np.concatenate([[0.0], np.cumsum(f[o_hi])]),
                lo[o_lo],
                np.concatenate([[0.0], np.cumsum(f[o_lo])]),
            )
        )
    for j, (h, _, lo, hi) in enumerate(states):
        win_lo = np.ones_like(h)
        win_hi = np.ones_like(h)
        for i in range(d):
            if i == j:
                continue
            s_hi, c_hi, s_lo, c_lo = cdf[i]
            # ties go to the smaller index: i < j must be beaten strictly
            side: Literal["left", "right"] = "left" if i < j else "right"
            # surely beaten: L_i's upper end below L_j's lower end
            win_lo = win_lo * c_hi[np.searchsorted(s_hi, lo, side=side)]
            # possibly beaten: L_i's lower end below L_j's upper end
            win_hi = win_hi * c_lo[np.searchsorted(s_lo, hi, side=side)]
        lower += float(np.dot(h, win_lo))
        upper += float(np.dot(h, win_hi))
    return lower / d, upper / d


def attribute_inference_bounds(
    P: Any, marginals: Any = None, *, counts: Any = None, resolution: float = 1e-6
) -> AccuracyBounds:
    """The Bayes-optimal attribute-inference accuracy of RS+FD, certified, at any domain size.

    Parameters
    ----------
    P : RSFD
        An RS+FD or RS+RFD protocol (:func:`qifldp.rsfd`, :func:`qifldp.rsrfd`).
    marginals : sequence of array_like, optional
        The population's per-attribute marginals (default uniform).
    counts : sequence of array_like of int, optional
        Instead of ``marginals``: the population's value counts per attribute (each
        attribute's counts summing to the same number of users D). The marginals are then
        the lattice c_v / D and the result is exact.
    resolution : float
        Lattice step for marginals with many distinct values, in [1e-8, 1e-2]; the
        interval's width shrinks with it (at most 2e6 states per attribute are built:
        the step is raised to keep to that).

    Returns
    -------
    AccuracyBounds
        ``lower <= V <= upper`` for V = Σ_y max_j Pr(j, y), the accuracy of
        :func:`qifldp.attribute_inference_accuracy`.

    Raises
    ------
    InputTypeError
        ``P`` not an RSFD protocol; both ``marginals`` and ``counts``.
    ParameterError, PriorError
        Bad marginals or counts (negative, not integers, unequal totals); ``resolution``
        outside its range; UE-r with a non-uniform fake-value prior at a large domain.
    SizeError
        Counts whose total exceeds the state budget (use ``marginals``).

    Notes
    -----
    At the paper's sizes (k = [74, 7, 16], eps = 3, Dirichlet(1) marginals) the default
    resolution gives the accuracy to about 1e-4 for UE-z and 1e-3 for UE-r (whose
    statistic also carries |y|, so its lattice is coarser), in seconds. GRR attributes
    and UE attributes with few distinct marginal values are enumerated
    exactly as in :func:`qifldp.attribute_inference_accuracy`; other UE attributes go
    through the convolution of the module docstring: exact for ``counts``, a certified
    interval for generic ``marginals`` (with :data:`ROUNDING_ALLOWANCE` for rounding).

    Examples
    --------
    >>> import numpy as np, qifldp as q
    >>> from qifldp.protocols.rsfd_lattice import attribute_inference_bounds
    >>> P = q.rsfd([74, 7, 16], 3.0, "oue-z")
    >>> ms = [np.random.default_rng(0).dirichlet(np.ones(k)) for k in (74, 7, 16)]
    >>> B = attribute_inference_bounds(P, ms, resolution=1e-4)
    >>> B.method, B.width < 1e-2, 1 / 3 < B.lower <= B.upper < 1
    ('interval', True, True)
    >>> counts = [np.random.default_rng(1).multinomial(500, m) for m in ms]
    >>> E = attribute_inference_bounds(P, counts=counts)  # 500 users: exact
    >>> E.method, E.width < 1e-11
    ('exact', True)
    """
    _check_rsfd(P)
    if marginals is not None and counts is not None:
        msg = "give either marginals or counts, not both"
        raise InputTypeError(msg)
    step = check_real("resolution", resolution)
    if not 1e-8 <= step <= 1e-2:
        msg = f"resolution must lie in [1e-8, 1e-2], got {resolution!r}"
        raise ParameterError(msg)
    lattice: list[np.ndarray] | None = None
    if counts is not None:
        lattice = _check_counts(counts, P.ks)
        total = int(lattice[0].sum())
        ms = [c / total for c in lattice]
    elif marginals is None:
        ms = [np.full(k, 1.0 / k) for k in P.ks]
    else:
        ms = list(_check_priors(marginals, P.ks, "marginals"))
    states = []
    exact = True
    used: float | None = None
    for j, k in enumerate(P.ks):
        try:
            lh, lf = _states(P, j, ms[j])
        except SizeError:
            lh = None
        if lh is not None:
            keep = np.isfinite(lh) | np.isfinite(lf)
            lh, lf = lh[keep], lf[keep]
            with np.errstate(invalid="ignore"):
                ratio = np.where(np.isneginf(lf), np.inf, np.exp(lh - lf))
            states.append((np.exp(lh), np.exp(lf), ratio, ratio))
            continue
        o = P._oracles[j]
        p, q = o.params["p"], o.params["q"]
        z = P.randomizer.endswith("-z")
        if not z and not np.allclose(P._priors[j], 1.0 / k, rtol=0, atol=1e-15):
            msg = (
                f"attribute {j}: UE-r with a non-uniform fake-value prior at k = {k} has no "
                "one-dimensional statistic; give marginals with few distinct values"
            )
            raise ParameterError(msg)
        width = 3 if z else k + 1
        if lattice is not None:
            c = lattice[j].astype(np.int64)
            if (int(c.sum()) + 1) * width > MAX_LUMPED_STATES:
                msg = (
                    f"attribute {j}: counts of {int(c.sum())} users need "
                    f"{(int(c.sum()) + 1) * width} states, above MAX_LUMPED_STATES = "
                    f"{MAX_LUMPED_STATES}; give marginals (a certified interval) instead"
                )
                raise SizeError(msg)
            denominator: float = int(c.sum())
            r = np.zeros(k)
        else:
            delta = max(step, width / (MAX_LUMPED_STATES - width))
            denominator = round(1 / delta)
            c = np.floor(ms[j] * denominator).astype(np.int64)
            r = np.clip(ms[j] - c / denominator, 0.0, 1 / denominator)
            exact = False
            used = 1 / denominator
        states.append(_ue_lattice(c, r, p, q, k, z, denominator))
    lo, hi = _combine(states)
    d = len(P.ks)
    lo = min(1.0, max(1.0 / d, lo - ROUNDING_ALLOWANCE))
    hi = min(1.0, max(1.0 / d, hi + ROUNDING_ALLOWANCE))
    return AccuracyBounds(lo, hi, "exact" if exact else "interval", used)


def _check_counts(counts: Any, ks: tuple[int, ...]) -> list[np.ndarray]:
    if isinstance(counts, (str, bytes)) or not hasattr(counts, "__len__"):
        msg = f"counts must be a sequence of integer arrays, got {type(counts).__name__}"
        raise InputTypeError(msg)
    if len(counts) != len(ks):
        msg = f"counts must have one array per attribute ({len(ks)}), got {len(counts)}"
        raise ParameterError(msg)
    out = []
    for j, (cj, k) in enumerate(zip(counts, ks, strict=True)):
        arr = np.asarray(cj)
        if arr.shape != (k,) or not np.issubdtype(arr.dtype, np.integer) or (arr < 0).any():
            msg = f"counts[{j}] must be {k} nonnegative integers, got {cj!r}"
            raise ParameterError(msg)
        out.append(arr.astype(np.int64))
    totals = {int(c.sum()) for c in out}
    if len(totals) != 1 or 0 in totals:
        msg = (
            f"every attribute's counts must sum to the same positive number of users, got {totals}"
        )
        raise ParameterError(msg)
    return out
