"""Longitudinal (memoised) frequency oracles: L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE.

A user randomises the true value once (the *permanent* response, memoised, with
eps_perm) and every report is a fresh randomisation of that permanent response (the
*instantaneous* response), tuned so that one report satisfies eps_1 < eps_perm
(Erlingsson, Pihur, Korolova, CCS 2014, Sec. 3; Arcolezi, Couchot, Al Bouna, Xiao,
Digital Communications and Networks 2022, Sec. 4). As channels, one report is the
cascade P·I of the permanent channel P and the instantaneous one I; T reports of the
same user are P followed by T parallel copies of I on the permanent response,
P·(I ⊗ ... ⊗ I) composed on the same input (:func:`qifldp.compose`); they never leak
more than P itself, whatever T (post-processing).

The five variants chain two oracles, first round / second round:
``l_grr`` GRR/GRR, ``l_sue`` SUE/SUE (basic RAPPOR), ``l_oue`` OUE/OUE,
``l_osue`` OUE/SUE, ``l_soue`` SUE/OUE. The first round is the oracle at eps_perm.
The second round's free parameter is the one their paper sets from eps_1:

* unary encodings: the root, in the round's range, of the equation "one report
  has LDP epsilon eps_1", a quadratic in the free parameter (p2 for a SUE round,
  q2 with p2 = 1/2 for an OUE round); it matches the closed forms that the
  paper's authors publish (multi-freq-ldpy) to the last digits;
* L-GRR: the paper's closed form p2 = (e^eps_1 p1 - q1) / (e^eps_1 p1 - (k-1)
  e^eps_1 q1 + (k-1) p1 - q1), q2 = (1 - p2) / (k - 1). It solves
  (p1 p2 + q1 q2) / (q1 p2 + p1 q2) = e^eps_1, exact for k = 2 only: for k > 2 a
  report's diagonal is p1 p2 + (1 - p1) q2, so the one-report eps is strictly
  below eps_1 (:attr:`Memoized.eps_one` gives it; e.g. 0.399 for k = 5,
  eps_perm = 2, eps_1 = 0.5). The protocol keeps the published parameters (as the
  authors' library does) and reports the true epsilon.

The Bayes capacity of T reports is computed on lumped channels, without enumerating
the k^T (or 2^(kT)) outputs: :func:`bayes_capacity_one_hot` for the unary encodings
(each position's T bits summarised by their count) and :func:`bayes_capacity_grr_reports`
for L-GRR (sequences grouped by the multiplicity of their mode).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
from scipy.special import gammaln, logsumexp

from ..channel import Channel, guard_size
from ..composition import compose
from ..errors import ParameterError
from ..operators import cascade, one_hot
from ..profiles import privacy_profile
from ..simulation import calibrate, support_counts
from ..simulation.samplers import n_reports
from ..simulation.util import as_rng, bernoulli_where, check_bits, check_n, row_chunks
from ..symbolic import SymbolicChannel
from ..symbolic.operators import one_hot as symbolic_one_hot_operator
from ..symbolic.parameters import SymbolicParameters, guard_symbolic_size
from ..symmetric.channel import SymmetricChannel
from ..symmetric.operators import one_hot_classes
from ..validation import check_choice, check_eps, check_int
from .base import ClosedForm, Protocol, check_bit_width, no_options, ue_log_ratio
from .docstrings import ORACLE_DOCS, fill_doc
from .grr import GRR, attack_values
from .params import (
    check_k,
    grr_expressions,
    grr_probabilities,
    log_grr,
    log_pq,
    oue_expressions,
    oue_probabilities,
    sue_expressions,
    sue_probabilities,
)
from .reports import (
    MAX_GRR_BOUND_REPORTS,
    MAX_GRR_PROFILE_REPORTS,
    MAX_GRR_REPORTS,
    MAX_REPORTS,
    ReportsLeakage,
    bayes_capacity_one_hot,
    grr_pair_classes,
    grr_reports_pair,
    grr_reports_profile_bounds,
    log_count_channel,
    log_grr_mode_weight,
    pair_profile,
)
from .ue import attack_bits, bayes_capacity_ue, estimate_bits, sample_bits

__all__ = [
    "LONGITUDINAL",
    "MAX_EPS_PERM",
    "MAX_REPORTS",
    "Memoized",
    "MemoizedClosedForm",
    "longitudinal_parameters",
    "bayes_capacity_one_hot",
    "bayes_capacity_grr_reports",
    "sample_memoized",
]

#: Variant -> (first round, second round).
LONGITUDINAL: dict[str, tuple[str, str]] = {
    f"l_{name}": (first, second)
    for name, first, second in (
        ("grr", "grr", "grr"),
        ("sue", "sue", "sue"),
        ("oue", "oue", "oue"),
        ("osue", "oue", "sue"),
        ("soue", "sue", "oue"),
    )
}

#: Largest T of L-GRR's T reports counted sequence class by sequence class (O(T^2 log T
#: log k)); beyond, Cauchy's integral (:func:`~qifldp.protocols.reports.log_grr_mode_weight`).
COUNTED_GRR_REPORTS: int = 64

#: Largest eps_perm accepted: e^eps_perm must stay a finite float.
MAX_EPS_PERM: float = 700.0

#: Slack of the second-round root's range (a root this close outside is clipped).
_ROOT_SLACK: float = 1e-12


# -- parameters ----------------------------------------------------------------------------
def _first_round(kind: str, k: int, eps: float) -> tuple[float, float]:
    """(p1, q1) of the first round: the oracle's own probabilities at eps_perm."""
    if kind == "grr":
        return grr_probabilities(k, eps)
    return sue_probabilities(eps) if kind == "sue" else oue_probabilities(eps)


def _first_round_expressions(kind: str, k: int, eps: Any) -> tuple[Any, Any]:
    """The sympy twin of :func:`_first_round`."""
    if kind == "grr":
        return grr_expressions(k, eps)
    p, _, q, _ = sue_expressions(eps) if kind == "sue" else oue_expressions(eps)
    return p, q


def _ue_line(second: str, p1: Any, q1: Any, half: Any) -> tuple[Any, Any, Any, Any]:
    """Bit probabilities of one report, a = a0 + a1 t (input bit 1) and b = b0 + b1 t
    (input bit 0), as functions of the second round's free parameter t."""
    if second == "sue":  # p2 = t, q2 = 1 - t
        return 1 - p1, 2 * p1 - 1, 1 - q1, 2 * q1 - 1
    return p1 * half, 1 - p1, q1 * half, 1 - q1  # OUE: p2 = 1/2, q2 = t


def _quadratic(line: tuple[Any, Any, Any, Any], E1: Any) -> tuple[Any, Any, Any]:
    """Coefficients (A, B, C) of a (1 - b) - e^eps_1 b (1 - a) = A t^2 + B t + C."""
    a0, a1, b0, b1 = line
    A = (E1 - 1) * a1 * b1
    B = a1 * (1 - b0) - a0 * b1 - E1 * (b1 * (1 - a0) - b0 * a1)
    C = a0 * (1 - b0) - E1 * b0 * (1 - a0)
    return A, B, C


def _range(second: str) -> tuple[float, float]:
    return (0.5, 1.0) if second == "sue" else (0.0, 0.5)


def _one_report(second: str, p1: float, q1: float, t: float) -> tuple[float, float]:
    a0, a1, b0, b1 = _ue_line(second, p1, q1, 0.5)
    return a0 + a1 * t, b0 + b1 * t


def _ue_root(name: str, second: str, p1: float, q1: float, eps_1: float) -> tuple[float, int]:
    """The second round's parameter t with one-report eps = eps_1, and which quadratic
    root it is (+1 or -1 in (-B ± sqrt(B^2 - 4AC)) / 2A)."""
    lo, hi = _range(second)
    top = lo if second == "oue" else hi  # the end of the range where a report leaks most
    eps_max = ue_log_ratio(*_one_report(second, p1, q1, top))
    if not eps_1 < eps_max:
        msg = (
            f"eps_1 must be below {eps_max:.6g} for protocol {name!r} at this eps_perm (the "
            f"largest one-report eps its second round reaches), got {eps_1!r}"
        )
        raise ParameterError(msg)
    A, B, C = _quadratic(_ue_line(second, p1, q1, 0.5), math.exp(eps_1))
    D = math.sqrt(max(B * B - 4 * A * C, 0.0))
    for sign in (1, -1):
        den = -B - sign * D  # (-B + s D) / 2A == 2C / (-B - s D)
        t = 2 * C / den if den != 0 else math.nan
        if lo - _ROOT_SLACK <= t <= hi + _ROOT_SLACK:
            return min(max(t, lo), hi), sign
    msg = f"no second-round parameter of {name!r} gives eps_1 = {eps_1!r} (numerical failure)"
    raise ParameterError(msg)


def _grr_second(k: int, p1: Any, q1: Any, E1: Any) -> tuple[Any, Any]:
    """The paper's L-GRR second round: p2 solves (p1 p2 + q1 q2) / (q1 p2 + p1 q2) = e^eps_1."""
    p2 = (E1 * p1 - q1) / (E1 * p1 - (k - 1) * E1 * q1 + (k - 1) * p1 - q1)
    return p2, (1 - p2) / (k - 1)


@fill_doc(ORACLE_DOCS)
def longitudinal_parameters(
    variant: str, k: int, eps_perm: float, eps_1: float
) -> dict[str, float]:
    """The rounds' probabilities of a longitudinal oracle: p1, q1, p2, q2 (as their paper).

    Parameters
    ----------
    variant : {"l_grr", "l_sue", "l_oue", "l_osue", "l_soue"}
    {k}
    eps_perm : float
        Budget of the permanent response, ``0 < eps_perm <= MAX_EPS_PERM``.
    eps_1 : float
        Budget of one report, ``0 < eps_1 < eps_perm`` (L-OUE, L-SOUE: below the
        largest eps their OUE second round reaches).

    Returns
    -------
    dict
        ``p1, q1`` (first round: Pr[report v | value v] / another value for GRR,
        Pr[bit 1 | bit 1] / [bit 1 | bit 0] for the unary encodings) and ``p2, q2``
        (second round, the same on the permanent response).

    Raises
    ------
    ParameterError
        A budget out of range (the message names it and the bound).

    Examples
    --------
    >>> P = longitudinal_parameters("l_osue", 4, 2.0, 0.5)
    >>> P["p1"], round(P["p2"] + P["q2"], 12)
    (0.5, 1.0)
    """
    variant = check_choice("variant", variant, tuple(LONGITUDINAL))
    k = check_k(k)
    eps_perm = check_eps(eps_perm, "eps_perm")
    eps_1 = check_eps(eps_1, "eps_1")
    if not 0 < eps_perm <= MAX_EPS_PERM:
        msg = f"eps_perm must be in (0, {MAX_EPS_PERM:g}], got {eps_perm!r}"
        raise ParameterError(msg)
    if not 0 < eps_1 < eps_perm:
        msg = f"eps_1 must satisfy 0 < eps_1 < eps_perm = {eps_perm!r}, got {eps_1!r}"
        raise ParameterError(msg)
    first, second = LONGITUDINAL[variant]
    p1, q1 = _first_round(first, k, eps_perm)
    if variant == "l_grr":
        p2, q2 = _grr_second(k, p1, q1, math.exp(eps_1))
    else:
        t, _ = _ue_root(variant, second, p1, q1, eps_1)
        p2, q2 = (t, 1.0 - t) if second == "sue" else (0.5, t)
    return {"p1": p1, "q1": q1, "p2": float(p2), "q2": float(q2)}


# -- lumped Bayes capacities of T reports -----------------------------------------------
def _series_power(c: np.ndarray, e: int, n: int) -> np.ndarray:
    """Coefficients 0..n of (Σ c_j z^j)^e, truncated (nonnegative c: no cancellation)."""
    out = np.zeros(n + 1)
    out[0] = 1.0
    base = c[: n + 1].copy()
    while e:
        if e & 1:
            out = np.convolve(out, base)[: n + 1]
        e >>= 1
        if e:
            base = np.convolve(base, base)[: n + 1]
    return out


@fill_doc(ORACLE_DOCS)
def bayes_capacity_grr_reports(k: int, p1: float, q1: float, p2: float, q2: float, T: int) -> float:
    """Bayes capacity of T memoised GRR reports: GRR(p1, q1) then T parallel GRR(p2, q2).

    Parameters
    ----------
    {k}
    p1, q1, p2, q2 : float
        The rounds' probabilities (``p + (k - 1) q = 1``, q <= p).
    T : int
        Number of reports, ``1 <= T <= MAX_GRR_REPORTS`` (10^6).

    Returns
    -------
    float
        ML_T = k q1 + (p1 - q1) W_T with W_T = Σ_{y ∈ [k]^T} p2^M(y) q2^(T - M(y)),
        M(y) the multiplicity of the most frequent value of y.

    Notes
    -----
    C_T[x, y] = q1 S(y) + (p1 - q1) Π_t I[x, y_t] with S(y) = Σ_u Π_t I[u, y_t]
    (Σ_y S(y) = k), maximal at a mode of y. W_T groups y by M(y) = m and the number
    a of values reaching it: C(k, a) T! / (m!^a (T - a m)!) N_{<m}(T - a m, k - a)
    sequences, N_{<m}(n, j) = n! [z^n] (Σ_{i<m} z^i / i!)^j counted by a truncated
    power of a series with nonnegative terms (no cancellation), scaled by q2^n; the
    sum is formed in log space. O(T^2 log T log k): used for T <= 64; beyond, W_T by
    Cauchy's integral of its generating function on the saddle circle
    (:func:`~qifldp.protocols.reports.log_grr_mode_weight`, O(sqrt(T) c + T)), which
    agrees with the counting to ~1e-13 where both answer.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("l_grr", 3, 2.0, 1.0)
    >>> pr = P.params
    >>> ml = bayes_capacity_grr_reports(3, pr["p1"], pr["q1"], pr["p2"], pr["q2"], 2)
    >>> round(ml, 12) == round(q.bayes_capacity(P.channel(reports=2)), 12)
    True
    """
    k = check_k(k)
    T = check_int("T", T, minimum=1, maximum=MAX_GRR_REPORTS)
    if T > COUNTED_GRR_REPORTS:
        return k * q1 + (p1 - q1) * math.exp(log_grr_mode_weight(k, p2, q2, T))
    return k * q1 + (p1 - q1) * math.exp(_log_grr_mode_weight_counted(k, p2, q2, T))


def _log_grr_mode_weight_counted(k: int, p2: float, q2: float, T: int) -> float:
    """log W_T by counting the sequences by their largest count (bayes_capacity_grr_reports)."""
    lq2, lp2 = math.log(q2), math.log(p2)
    terms = []
    for m in range(1, T + 1):
        j = np.arange(m)
        for a in range(1, min(T // m, k) + 1):
            n = T - a * m
            if m == 1 or k == a:
                log_count = 0.0 if n == 0 else -math.inf  # only the empty rest
            else:
                # z -> s z with s = n / (e (k - a) q2) keeps the n-th coefficient near 1
                log_s = math.log(max(n, 1)) - 1.0 - math.log((k - a) * q2)
                series = np.exp(j * (lq2 + log_s) - gammaln(j + 1))  # Σ_{i<m} (q2 s z)^i / i!
                coef = float(_series_power(series, k - a, n)[n])
                log_count = math.log(coef) - n * log_s if coef > 0 else -math.inf
            if log_count == -math.inf:
                continue
            log_choose = gammaln(k + 1) - gammaln(a + 1) - gammaln(k - a + 1)
            log_seq = gammaln(T + 1) - a * gammaln(m + 1)  # T! / (m!^a n!) · n! [z^n]
            # count = q2^n N / n!; the weight p2^m q2^(T-m) = q2^n · q2^((a-1) m) p2^m
            terms.append(log_choose + log_seq + log_count + (a - 1) * m * lq2 + m * lp2)
    return float(logsumexp(terms))


# -- the protocol object -------------------------------------------------------------------
class MemoizedClosedForm(ReportsLeakage, ClosedForm):
    """Closed forms of a longitudinal oracle (one report; T reports on lumped channels).

    Examples
    --------
    >>> import qifldp as q
    >>> cf = q.protocol("l_osue", 4, 2.0, 0.5).closed_form
    >>> round(cf.ldp_epsilon(), 12)
    0.5
    """

    __slots__ = ()

    def bayes_capacity(self) -> float:
        """ML of one report: k p* (L-GRR, a GRR with p*, q*), UE's formula with p*, q* otherwise.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_grr", 3, 2.0, 1.0)
        >>> round(P.closed_form.bayes_capacity(), 12) == round(q.bayes_capacity(P.channel()), 12)
        True
        """
        P = self._protocol
        a, b = P.support_probabilities()
        if P.name == "l_grr":
            return P.k * a
        return float(bayes_capacity_ue(P.k, a, b))

    def ldp_epsilon(self) -> float:
        """The true eps of one report (:attr:`Memoized.eps_one`).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("l_sue", 4, 3.0, 1.0).closed_form.ldp_epsilon(), 12)
        1.0
        """
        return cast(Memoized, self._protocol).eps_one

    def max_reports(self) -> int:
        """The largest T of :meth:`bayes_capacity_reports`: :data:`MAX_GRR_REPORTS` for
        L-GRR (a Cauchy integral), :data:`MAX_REPORTS` for the unary encodings.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("l_grr", 4, 2.0, 1.0).closed_form.max_reports()
        1000000
        """
        return MAX_GRR_REPORTS if self._protocol.name == "l_grr" else MAX_REPORTS

    def bayes_capacity_reports(self, T: int) -> float:
        """ML of T reports of one user (the longitudinal leakage), on a lumped channel.

        Tends to the permanent response's ML as T grows (k p1 for L-GRR, UE's ML
        at p1, q1 otherwise) and never exceeds it.

        Parameters
        ----------
        T : int
            Number of reports, ``1 <= T <=`` :meth:`max_reports`.

        Notes
        -----
        L-GRR: :func:`bayes_capacity_grr_reports`. Unary encodings: each position's
        T bits are iid given its permanent bit, so their count c is sufficient; the
        T-report channel is ``one_hot`` of the 2 x (T + 1) channel
        B[b, c] = Σ_u Pr[u | b] Bin(T, p2 or q2)(c) (:func:`bayes_capacity_one_hot`).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_oue", 3, 2.0, 1.0)
        >>> ml = P.closed_form.bayes_capacity_reports(2)
        >>> round(ml, 12) == round(q.bayes_capacity(P.channel(reports=2)), 12)
        True
        """
        P = self._protocol
        T = check_int("T", T, minimum=1, maximum=self.max_reports())
        pr = P.params
        if P.name == "l_grr":
            return bayes_capacity_grr_reports(P.k, pr["p1"], pr["q1"], pr["p2"], pr["q2"], T)
        ml = bayes_capacity_one_hot(log_count_channel(pr, T), P.k, log=True)
        # T reports post-process the permanent response: its ML bounds theirs; at T ~ 10^6
        # the binomial terms' rounding (~1e-13 each) can put the sum ~1e-11 above it
        return min(ml, self.bayes_capacity_permanent())

    def privacy_profile_reports(self, T: int, epss: Any) -> Any:
        """delta(eps) of T reports of one user, over the worst pair of values.

        Parameters
        ----------
        T : int
            Number of reports, ``1 <= T <= MAX_REPORTS``.
        epss : float or array_like
            As for :func:`qifldp.privacy_profile`.

        Notes
        -----
        Unary encodings: two values' T-report rows differ only at their two positions,
        each position's T bits summarised by their count (:meth:`bayes_capacity_reports`),
        so the profile is that of the 2 x (T + 1)^2 channel of the two counts, at any k
        (every pair alike). L-GRR: the pair's lumped channel, any k,
        ``T <= MAX_GRR_PROFILE_REPORTS``
        (:func:`~qifldp.protocols.reports.grr_reports_pair`).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_sue", 3, 2.0, 1.0)
        >>> d = P.closed_form.privacy_profile_reports(2, 0.5)
        >>> round(d, 12) == round(q.privacy_profile(P.channel(reports=2), 0.5), 12)
        True
        """
        P = self._protocol
        T = check_int("T", T, minimum=1, maximum=MAX_REPORTS)
        if P.name == "l_grr":
            pr = P.params
            if T > MAX_GRR_PROFILE_REPORTS:
                msg = (
                    f"T must be <= {MAX_GRR_PROFILE_REPORTS} for L-GRR's privacy profile, got "
                    f"{T}: it sums over the pair's lumped output classes, one per partition "
                    f"of the other values' counts ({grr_pair_classes(T)} classes at T = {T}, "
                    "growing like e^(pi sqrt(2 T / 3))), since the hockey-stick divergence "
                    "does not factor over them. Beyond, privacy_profile_reports_bounds(T, "
                    f"eps) encloses it up to T = {MAX_GRR_BOUND_REPORTS}, the permanent "
                    f"response's profile q.privacy_profile(q.grr({P.k}, {P.eps!r}), eps) "
                    "bounds it from above at every T (T reports are its post-processing), "
                    "and bayes_capacity_reports(T) answers up to T = 10^6"
                )
                raise ParameterError(msg)
            return privacy_profile(
                grr_reports_pair(P.k, pr["p1"], pr["q1"], pr["p2"], pr["q2"], T), epss
            )
        return pair_profile(log_count_channel(P.params, T), 1, 1, epss, log=True)

    def privacy_profile_reports_bounds(self, T: int, epss: Any) -> tuple[np.ndarray, np.ndarray]:
        """An enclosure (lower, upper) of the privacy profile of T reports at each eps.

        Exact (lower = upper = :meth:`privacy_profile_reports`) for the unary encodings
        at any T and for L-GRR up to T = 32; beyond, L-GRR's enclosure
        (:func:`~qifldp.protocols.reports.grr_reports_profile_bounds`, exact at k <= 3),
        ``T <= MAX_GRR_BOUND_REPORTS``.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = q.protocol("l_grr", 10**4, 8.0, 4.0).closed_form
        >>> lo, hi = cf.privacy_profile_reports_bounds(100, [1.0, 8.0])
        >>> bool(0 < lo[0] <= hi[0] < 1.05 * lo[0]), float(hi[1])  # nothing beyond eps_perm
        (True, 0.0)
        """
        P = self._protocol
        T = check_int("T", T, minimum=1, maximum=MAX_REPORTS)
        if P.name != "l_grr" or T <= MAX_GRR_PROFILE_REPORTS:
            return super().privacy_profile_reports_bounds(T, epss)
        if T > MAX_GRR_BOUND_REPORTS:
            msg = (
                f"T must be <= {MAX_GRR_BOUND_REPORTS} for L-GRR's profile enclosure (the "
                f"classes of the two values' counts), got {T}; the permanent response's "
                f"profile q.privacy_profile(q.grr({P.k}, {P.eps!r}), eps) bounds every T"
            )
            raise ParameterError(msg)
        pr = P.params
        return grr_reports_profile_bounds(P.k, pr["p1"], pr["q1"], pr["p2"], pr["q2"], T, epss)

    def bayes_capacity_permanent(self) -> float:
        """ML of the permanent response alone: the limit of T reports as T → ∞.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_grr", 3, 2.0, 1.0)
        >>> round(P.closed_form.bayes_capacity_permanent(), 12) == round(3 * P.params["p1"], 12)
        True
        """
        P = self._protocol
        pr = P.params
        if P.name == "l_grr":
            return P.k * pr["p1"]
        return float(bayes_capacity_ue(P.k, pr["p1"], pr["q1"]))


@fill_doc(ORACLE_DOCS)
class Memoized(Protocol):
    """A longitudinal (memoised) frequency oracle: L-GRR, L-SUE, L-OUE, L-OSUE or L-SOUE.

    Parameters
    ----------
    {k}
    eps_perm : float
        Budget of the permanent response (the bound over any number of reports).
    eps_1 : float
        Budget of one report, ``0 < eps_1 < eps_perm``.
    variant : {"l_grr", "l_sue", "l_oue", "l_osue", "l_soue"}

    Raises
    ------
    ParameterError, InputTypeError
        Budgets out of range (:func:`longitudinal_parameters`), a bad variant.

    Notes
    -----
    eps : float
        eps_perm (what any number of reports satisfies).
    params : dict
        ``eps_1``, ``p1``, ``q1`` (first round), ``p2``, ``q2`` (second round).

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("l_osue", 4, 2.0, 1.0)
    >>> P
    protocol('l_osue', k=4, eps_perm=2.0, eps_1=1.0)
    >>> round(q.ldp_epsilon(P.channel()), 9), round(q.ldp_epsilon(P.channel(reports=3)), 3)
    (1.0, 1.899)
    """

    __slots__ = ()
    _VARIANTS: tuple[str, ...] = tuple(LONGITUDINAL)
    _closed_form_type = MemoizedClosedForm

    def __init__(self, k: int, eps_perm: float, eps_1: float, *, variant: str = "l_grr") -> None:
        variant = check_choice("variant", variant, tuple(LONGITUDINAL))
        k = check_k(k)
        eps_perm, eps_1 = check_eps(eps_perm, "eps_perm"), check_eps(eps_1, "eps_1")
        pr = longitudinal_parameters(variant, k, eps_perm, eps_1)
        params = {"eps_1": eps_1, **pr}
        self._freeze(variant, k, eps_perm, params, {"eps_perm": eps_perm, "eps_1": eps_1})

    # ---------------------------------------------------------------- parameters
    @property
    def rounds(self) -> tuple[str, str]:
        """The oracles of the two rounds, e.g. ``("oue", "sue")`` for L-OSUE.

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("l_soue", 3, 2.0, 1.0).rounds
        ('sue', 'oue')
        """
        return LONGITUDINAL[self.name]

    @property
    def eps_one(self) -> float:
        """The true LDP epsilon of one report: ln(p* / q*) (L-GRR) or UE's ln(p*(1-q*)/((1-p*)q*)).

        Equals eps_1 for the unary encodings; below it for L-GRR at k > 2 (see the module).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("l_grr", 5, 2.0, 0.5).eps_one, 3)
        0.399
        """
        a, b = self.support_probabilities()
        if self.name == "l_grr":
            return math.log(a) - math.log(b)
        return ue_log_ratio(a, b)

    def _round_channels(self) -> tuple[Channel, Channel]:
        """(first round, second round) as channels: k x k for L-GRR, 2 x 2 bit channels else."""
        pr, k = self._params, self.k
        if self.name == "l_grr":
            return _grr_matrix(k, pr["p1"], pr["q1"]), _grr_matrix(k, pr["p2"], pr["q2"])
        return _bit(pr["p1"], pr["q1"]), _bit(pr["p2"], pr["q2"])

    # ---------------------------------------------------------------- representations
    def channel(self, reports: int = 1) -> Channel:
        """The explicit channel of ``reports`` memoised reports of one user.

        Parameters
        ----------
        reports : int
            T >= 1. Outputs: one report's label (T = 1) or the tuple of T labels.

        Returns
        -------
        Channel
            L-GRR: P·(I ⊗ ... ⊗ I) over k^T outputs; unary encodings: ``one_hot``
            of the bit cascade, outputs tuples of T k-bit tuples (T = 1: one k-bit tuple).

        Raises
        ------
        SizeError
            Too many entries (use :meth:`symmetric` for one report,
            ``closed_form.bayes_capacity_reports`` for T).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("l_grr", 3, 2.0, 1.0).channel(reports=2).shape
        (3, 9)
        """
        T = check_int("reports", reports, minimum=1, maximum=MAX_REPORTS)
        k = self.k
        what = f"protocol({self.name!r}, {k}, {self.eps}, {self._params['eps_1']}).channel({T})"
        alt = (
            f"protocol({self.name!r}, ...).symmetric() for one report (no size limit) or "
            ".closed_form.bayes_capacity_reports(T)"
        )
        # the size rule before the rounds' channels (L-GRR's are k x k) are built
        if self.name == "l_grr":
            guard_size(what, k, T * math.log10(k), lambda: k**T, alt)
        else:
            guard_size(what, k, k * T * math.log10(2), lambda: 2 ** (k * T), alt)
        first, second = self._round_channels()
        if self.name == "l_grr":
            later = second if T == 1 else compose(*([second] * T))
            return cascade(first, later)
        if T == 1:
            return one_hot(cascade(first, second), k)
        C = one_hot(cascade(first, compose(*([second] * T))), k)
        # per position (T bits) -> per report (k bits)
        return Channel(C.matrix, C.inputs, [tuple(zip(*y, strict=True)) for y in C.outputs])

    def symmetric(self) -> SymmetricChannel:
        """One report as a symmetric channel: GRR's (p*, q*) or UE's bits (p*, q*).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_osue", 10**6, 4.0, 1.0)
        >>> round(q.ldp_epsilon(P.symmetric()), 9)
        1.0
        """
        k, (a, b) = self.k, self.support_probabilities()
        name = f"{self.name}(k={k}, eps_perm={self.eps:g}, eps_1={self._params['eps_1']:g})"
        if self.name == "l_grr":
            eps = self.eps_one
            lp, l1mp = log_grr(k, eps)
            return SymmetricChannel._make(k, [1], [lp], [l1mp], name, ("grr",), log_ratio=eps)
        s, log_in, log_out, ratio = one_hot_classes(k, *log_pq(a, b))
        return SymmetricChannel._make(k, s, log_in, log_out, name, ("bits",), log_ratio=ratio)

    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """One report as a symbolic channel; ``eps_perm`` and ``eps_1`` may be symbols.

        The second round's parameter is the paper's closed form: L-GRR's formula,
        the unary encodings' root of their quadratic (the root the numbers select).

        Examples
        --------
        >>> import qifldp as q
        >>> C = q.protocol("l_grr", 2, 2.0, 1.0).symbolic(eps_perm="a", eps_1="b")
        >>> C.shape, sorted(str(s) for s in C.matrix[0, 0].free_symbols)
        ((2, 2), ['a', 'b'])
        """
        import sympy as sp

        values = self._symbols(symbols, ("eps_perm", "eps_1"))
        k, (first, second) = self.k, self.rounds
        guard_symbolic_size(
            self.name,
            (k, "eps_perm", "eps_1"),
            k,
            _log10_cols(self),
            lambda: k if self.name == "l_grr" else 2**k,
        )
        Ps = SymbolicParameters()
        ep = Ps.take("eps_perm", values["eps_perm"], "eps")
        e1 = Ps.take("eps_1", values["eps_1"], "eps")
        p1, q1 = _first_round_expressions(first, k, ep)
        if self.name == "l_grr":
            p2, q2 = _grr_second(k, p1, q1, sp.exp(e1))
            a, b = p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
            rows = [[a if i == j else b for j in range(k)] for i in range(k)]
            return Ps.channel(rows, tuple(range(k)), tuple(range(k)))
        pr = self._params
        _, sign = _ue_root(self.name, second, pr["p1"], pr["q1"], pr["eps_1"])
        A, B, C = _quadratic(_ue_line(second, p1, q1, sp.Rational(1, 2)), sp.exp(e1))
        t = 2 * C / (-B - sign * sp.sqrt(B**2 - 4 * A * C))
        a0, a1, b0, b1 = _ue_line(second, p1, q1, sp.Rational(1, 2))
        a, b = a0 + a1 * t, b0 + b1 * t
        return symbolic_one_hot_operator(Ps.bit_channel(a, 1 - a, b, 1 - b), k)

    # ---------------------------------------------------------------- simulation
    def memoize(self, xs: Any, rng: Any = None) -> np.ndarray:
        """The permanent responses of n users (drawn once, reused by every report).

        Returns int64 values (L-GRR, shape (n,)) or boolean bits (shape (n, k)).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("l_grr", 4, 60.0, 1.0).memoize([3, 1], rng=0).tolist()
        [3, 1]
        """
        pr = self._params
        if self.name == "l_grr":
            return GRR(self.k, self.eps).sample(xs, rng)
        return sample_bits(xs, self.k, pr["p1"], pr["q1"], rng)

    def report(self, permanent: Any, rng: Any = None) -> np.ndarray:
        """One instantaneous report per user from their permanent responses.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_oue", 3, 2.0, 1.0)
        >>> P.report(P.memoize([0, 2], rng=0), rng=1).shape
        (2, 3)
        """
        pr = self._params
        if self.name == "l_grr":
            eps2 = math.log(pr["p2"]) - math.log(pr["q2"])
            return GRR(self.k, eps2).sample(permanent, rng)
        bits = check_bits(permanent)
        check_bit_width(bits, self.k)
        gen = as_rng(rng)
        out = np.empty(bits.shape, dtype=bool)
        for s, e in row_chunks(*bits.shape):
            bernoulli_where(out[s:e], bits[s:e], pr["p2"], pr["q2"], gen)
        return out

    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """Memoised reports of n users: the permanent response, then instantaneous reports.

        Parameters
        ----------
        xs : array_like of int, shape (n,)
            The users' values in 0..k-1.
        rng : numpy.random.Generator or int, optional
        reports : int, optional (keyword)
            T: return T reports per user, stacked on a first axis of length T
            (default: one report, shaped as the one-round oracle's).
        method : {"rounds", "composite"}, optional (keyword)
            ``"rounds"`` (default): the permanent response, then the instantaneous one,
            as the protocol runs; ``"composite"`` (one report only): each report drawn
            directly from its one-report law, the same distribution at half the cost —
            bit v is 1 w.p. p* (v = x) or q* (:meth:`support_probabilities`; the bits
            stay independent, as the permanent and instantaneous bits are), L-GRR
            reports x w.p. p* and each other value w.p. q*.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("l_grr", 4, 2.0, 1.0)
        >>> P.sample([0, 1, 2], rng=0, reports=5).shape
        (5, 3)
        >>> q.protocol("l_oue", 3, 2.0, 1.0).sample([0, 2], rng=0, method="composite").shape
        (2, 3)
        """
        method = options.pop("method", "rounds")
        check_choice("method", method, ("rounds", "composite"))
        if method == "rounds":
            return sample_memoized(self, xs, rng, options)
        no_options("sample", options)
        a, b = self.support_probabilities()
        if self.name == "l_grr":
            return GRR(self.k, math.log(a) - math.log(b)).sample(xs, rng)
        return sample_bits(xs, self.k, a, b, rng)

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequencies from one round of reports, calibrated with (p*, q*).

        Notes
        -----
        p* = q2 + p1 (p2 - q2), q* = q2 + q1 (p2 - q2) (Arcolezi et al. 2022, Sec. 4):
        f_v = (C_v / n - q*) / (p* - q*). O(n) (L-GRR) or O(n k).

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> P = q.protocol("l_grr", 3, 4.0, 2.0)
        >>> xs = np.repeat([0, 1, 2], [5000, 3000, 2000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        a, b = self.support_probabilities()
        if self.name == "l_grr":
            counts = support_counts(reports, self.k)
            return calibrate(counts, n_reports(reports), a, b, project=project)
        check_bit_width(reports, self.k)
        return estimate_bits(reports, a, b, project)

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) of one report: p1 p2 + (1 - p1) q2 and q1 p2 + (1 - q1) q2.

        Examples
        --------
        >>> import qifldp as q
        >>> a, b = q.protocol("l_sue", 3, 2.0, 1.0).support_probabilities()
        >>> round(a + b, 12)
        1.0
        """
        no_options("support_probabilities", options)
        pr = self._params
        d = pr["p2"] - pr["q2"]
        return pr["q2"] + pr["p1"] * d, pr["q2"] + pr["q1"] * d

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """Guess from one report: its value (L-GRR), a uniform set bit (unary encodings).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("l_grr", 3, 2.0, 1.0).attack([2, 0]).tolist()
        [2, 0]
        """
        if self.name == "l_grr":
            return attack_values(reports)
        check_bit_width(reports, self.k)
        return attack_bits(reports, rng)


def sample_memoized(P: Any, xs: Any, rng: Any, options: dict[str, Any]) -> np.ndarray:
    """``P.sample`` of a memoising protocol: ``P.memoize`` once, then ``P.report`` once
    (or ``reports=T`` times, stacked on a first axis) from the same permanent responses.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("l_oue", 3, 2.0, 1.0)
    >>> sample_memoized(P, [0, 1], 0, {"reports": 2}).shape
    (2, 2, 3)
    """
    T = options.pop("reports", None)
    no_options("sample", options)
    gen = as_rng(rng)
    permanent = P.memoize(xs, gen)
    if T is None:
        return P.report(permanent, gen)
    T = check_n(T, "reports")
    return np.stack([P.report(permanent, gen) for _ in range(T)])


def _log10_cols(P: Memoized) -> float:
    return math.log10(P.k) if P.name == "l_grr" else P.k * math.log10(2)


def _grr_matrix(k: int, p: float, q: float) -> Channel:
    M = np.full((k, k), q)
    np.fill_diagonal(M, p)
    return Channel(M)


def _bit(p: float, q: float) -> Channel:
    return Channel(np.array([[1.0 - q, q], [1.0 - p, p]]))
