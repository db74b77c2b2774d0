"""Summation with histogram encoding (SHE) as a protocol object: a continuous output.

Wang, Blocki, Li, Jha, *Locally differentially private protocols for frequency
estimation* (USENIX Security 2017, Sec. 4.2): a user with value x reports the one-hot
vector e_x with independent Laplace(0, b) noise, b = 2/eps, on each of its k
coordinates; the server sums the reports (the frequency estimate is their mean). Its
output lies in R^k, so SHE has no finite channel. qifldp analyses it three ways, each
exact or with a stated error:

* **privacy profile / true eps** (closed form): two values x, x' differ in two
  coordinates only, each a Laplace shift of 1 at scale b, i.e. a Laplace mechanism of
  eps/2; the privacy loss is the sum of two independent copies, and

      delta(eps') = 1 - e^((eps' - eps)/2) (1 + (eps - eps')/4),   0 <= eps' <= eps,

  0 beyond (:meth:`SHEClosedForm.privacy_profile`): delta(eps) = 0 and delta > 0 below,
  so the true eps is eps (the Laplace mechanism of l1 sensitivity 2 at scale 2/eps);
* **Bayes capacity** (one-dimensional integral, quadrature error stated): the densities
  are p_x(y) = prod_i l(y_i) r(y_x) with r(t) = l(t - 1)/l(t) increasing, so
  max_x p_x(y) depends on the largest coordinate only and
  ML = k Pr[1 + Z_0 > max_{i >= 1} Z_i] = k int l(t - 1) F(t)^(k-1) dt
  (l, F the Laplace density and CDF): the Bayes attacker guesses the argmax, and
  ML <= e^(eps/2) for every k (:meth:`SHEClosedForm.bayes_capacity`);
* **discretisation** (an exact finite channel, the error bounded): each coordinate
  binned at cut points; a post-processing of SHE, so it leaks no more for every gain
  function, and its Bayes capacity is below SHE's by at most the largest oscillation
  of r on a bin (:meth:`SHEClosedForm.binned_bayes_capacity`, :meth:`SHE.channel`).
  THE (``protocol("the", k, eps, theta)``) is the one-cut case at theta.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np
from scipy.integrate import quad

from ..channel import Channel, check_size, guard_size
from ..errors import ParameterError, UnsupportedKindError
from ..simulation import project_simplex
from ..simulation.util import as_array, as_rng, as_values, check_n, choose_uniform_true
from ..validation import check_eps, check_int, check_real
from .base import EpsAttained, NotLumpable, no_options
from .docstrings import ORACLE_DOCS, fill_doc
from .params import check_k

__all__ = ["SHE", "SHEClosedForm", "laplace_cell_masses", "DEFAULT_BINS", "MAX_BINS"]

#: Bins on [0, 1] of :meth:`SHE.channel` when none are given (cuts 0, 1/4, ..., 1).
DEFAULT_BINS: int = 4

#: Most cells per coordinate (bins, or cut points + 1): the binned capacity and its error
#: bound hold a few arrays of this length (10^6 bins: error <= eps e^(eps/2) 10^-6).
MAX_BINS: int = 10**6

#: Largest eps (e^(eps/2) and the profile's e^eps' stay finite in float64).
MAX_EPS: float = 700.0

#: Absolute tolerance asked of the quadrature of the Bayes capacity's middle piece.
QUAD_TOLERANCE: float = 1e-12


def laplace_cell_masses(cuts: Any, shift: float, a: float) -> np.ndarray:
    """Pr[shift + Z in each cell] for Z ~ Laplace(0, 1/a), the cells cut at ``cuts``.

    The cells are (-inf, c_1], (c_1, c_2], ..., (c_r, inf) for increasing cuts; each
    mass is computed from the side of 0 it lies on (no difference of two CDFs near 1:
    relative accuracy in the tails).

    Parameters
    ----------
    cuts : array_like of float
        Strictly increasing cut points (r of them, r >= 1).
    shift : float
        The mean (0 or 1 for SHE's coordinates).
    a : float
        The inverse scale 1/b > 0.

    Returns
    -------
    numpy.ndarray, shape (r + 1,)

    Raises
    ------
    ParameterError
        Cuts not finite and strictly increasing (also after the shift), more than
        :data:`MAX_BINS`, a shift not finite, or a not a finite number > 0.

    Examples
    --------
    >>> laplace_cell_masses([0.0], 0.0, 1.0).tolist()
    [0.5, 0.5]
    >>> m = laplace_cell_masses([0.0, 1.0], 1.0, 2.0)  # Pr[1 + Z <= 0] = e^(-2)/2
    >>> bool(abs(m[0] - math.exp(-2) / 2) < 1e-15), round(float(m.sum()), 15)
    (True, 1.0)
    """
    return np.exp(_log_cell_masses(_check_cuts(cuts), check_real("shift", shift), _check_a(a)))


def _check_a(a: Any) -> float:
    a = check_real("a", a)
    if not a > 0:
        msg = f"a (the inverse Laplace scale) must be a finite number > 0, got {a}"
        raise ParameterError(msg)
    return a


def _log_cell_masses(cuts: np.ndarray, shift: float, a: float) -> np.ndarray:
    """log Pr[shift + Z in each cell] (see :func:`laplace_cell_masses`), in log space: a
    far tail cell's mass underflows no ratio of two of them (-inf only past e^-1e308)."""
    c = cuts - shift
    if np.any(np.diff(c) <= 0):
        msg = f"cuts must stay strictly increasing after the shift by {shift} (closer: rounding)"
        raise ParameterError(msg)
    lo = np.concatenate(([-np.inf], c))
    hi = np.concatenate((c, [np.inf]))
    out = np.empty(lo.size)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_width = np.log(-np.expm1(-a * (hi - lo)))  # log(1 - e^(-a (hi - lo)))
        right = lo >= 0  # the cell in [0, inf): S(lo) - S(hi) = e^(-a lo)/2 (1 - e^...)
        left = hi <= 0  # in (-inf, 0]: F(hi) - F(lo) = e^(a hi)/2 (1 - e^...)
        out[right] = math.log(0.5) - a * lo[right] + log_width[right]
        out[left] = math.log(0.5) + a * hi[left] + log_width[left]
        mid = ~(right | left)  # straddles 0: 1 - S(hi) - F(lo), two positive terms
        out[mid] = np.log(-0.5 * np.expm1(-a * hi[mid]) - 0.5 * np.expm1(a * lo[mid]))
    return out


def _log_ratio(cuts: np.ndarray, a: float) -> np.ndarray:
    """log R per cell, R = Pr[1 + Z in cell] / Pr[Z in cell]: -a on cells in (-inf, 0] and
    a on cells in [1, inf) (r is constant there), else the ratio of the log masses."""
    lo = np.concatenate(([-np.inf], cuts))
    hi = np.concatenate((cuts, [np.inf]))
    out = _log_cell_masses(cuts, 1.0, a) - _log_cell_masses(cuts, 0.0, a)
    out[hi <= 0] = -a
    out[lo >= 1] = a
    return out


def _check_cuts(cuts: Any) -> np.ndarray:
    try:
        arr = np.asarray(cuts, dtype=float)
    except (TypeError, ValueError):
        msg = f"cuts must be a non-empty 1-D array of finite numbers, got {cuts!r}"
        raise ParameterError(msg) from None
    if arr.ndim == 1 and arr.size > MAX_BINS + 1:
        msg = f"cuts must number at most MAX_BINS + 1 = {MAX_BINS + 1}, got {arr.size}"
        raise ParameterError(msg)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        msg = f"cuts must be a non-empty 1-D array of finite numbers, got {cuts!r}"
        raise ParameterError(msg)
    if np.any(np.diff(arr) <= 0):
        msg = f"cuts must be strictly increasing, got {arr.tolist()}"
        raise ParameterError(msg)
    return arr


def uniform_cuts(bins: int) -> np.ndarray:
    """The cuts 0, 1/bins, ..., 1: ``bins`` equal bins on [0, 1] and the two tails.

    Outside [0, 1] the likelihood ratio r is constant, so no cut is needed there.

    Examples
    --------
    >>> uniform_cuts(2).tolist()
    [0.0, 0.5, 1.0]
    """
    bins = check_int("bins", bins, minimum=1, maximum=MAX_BINS)
    return np.linspace(0.0, 1.0, bins + 1)


class SHEClosedForm(EpsAttained):
    """SHE's privacy profile, Bayes capacity and discretisation (see the module).

    Notes
    -----
    The true eps is eps: on y_x >= 1, y_x' <= 0 (probability > 0) the density ratio is
    e^(a) e^(a) = e^eps with a = eps/2, and never more (:meth:`privacy_profile` is 0 at
    eps and positive below it).

    Examples
    --------
    >>> cf = SHE(2, 1.0).closed_form
    >>> cf.ldp_epsilon(), round(float(cf.privacy_profile(1.0)), 12)
    (1.0, 0.0)
    """

    __slots__ = ()

    def _a(self) -> float:
        return 1 / self._protocol.params["b"]  # eps / 2, the per-coordinate budget

    def bayes_capacity(self) -> float:
        """ML = k Pr[1 + Z_0 > max_{i >= 1} Z_i], Z_i iid Laplace(0, 2/eps) (see the module).

        Three pieces of k int l(t - 1) F(t)^(k-1) dt, a = eps/2, s1 = e^(-a)/2:
        t < 0 gives e^(-a) 2^(-k); t >= 1 gives e^a (1 - (1 - s1)^k); 0 <= t < 1 the
        positive integral k int_0^1 (a/2) e^(a (t - 1)) (1 - e^(-a t)/2)^(k-1) dt by
        adaptive quadrature (absolute error below :data:`QUAD_TOLERANCE` times the
        capacity, else ParameterError). No cancellation: every piece is positive.

        Examples
        --------
        >>> round(SHE(2, 1.0).closed_form.bayes_capacity(), 10)
        1.2418366754
        >>> SHE(10**6, 2.0).closed_form.bayes_capacity() <= math.exp(1.0)  # e^(eps/2)
        True
        """
        P = self._protocol
        k, a = P.k, self._a()
        s1 = 0.5 * math.exp(-a)
        low = math.exp(-a - k * math.log(2.0))
        high = math.exp(a) * -math.expm1(k * math.log1p(-s1))
        log_front = math.log(k * a / 2)

        def middle(t: float) -> float:
            return math.exp(log_front + a * (t - 1) + (k - 1) * math.log1p(-0.5 * math.exp(-a * t)))

        value, err = quad(middle, 0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=200)
        total = low + value + high
        if not err <= QUAD_TOLERANCE * total:
            msg = (
                f"she({k}, {P.eps}): the quadrature of the Bayes capacity reports an error "
                f"{err:.2e} above {QUAD_TOLERANCE:g} x {total:.6g}"
            )
            raise ParameterError(msg)
        return total

    def binned_bayes_capacity(self, bins: int | None = None, cuts: Any = None) -> float:
        """ML of the discretised SHE: every coordinate reported as its cell (exact, any k).

        Parameters
        ----------
        bins : int, optional
            Equal bins on [0, 1] (:func:`uniform_cuts`); default :data:`DEFAULT_BINS`.
        cuts : array_like, optional
            Any strictly increasing cut points instead (one cut theta: THE's channel).

        Notes
        -----
        A cell's likelihood ratio R = P1(cell) / P0(cell) increases along the cells
        (the Laplace law has a monotone likelihood ratio), so as for SHE
        max_x C[x, cells] = prod_i P0(cell_i) max_i R(cell_i) and
        ML = sum_j R_j (G_j^k - G_(j-1)^k) with G_j = P0(first j + 1 cells).
        O(r) for r cuts, any k; equals ``bayes_capacity(self.channel(bins))``.

        Examples
        --------
        >>> import qifldp as q
        >>> cf = SHE(3, 2.0).closed_form  # one cut at theta: THE's Bayes capacity
        >>> round(cf.binned_bayes_capacity(cuts=[0.75]), 12) == round(
        ...     q.protocol("the", 3, 2.0, 0.75).closed_form.bayes_capacity(), 12)
        True
        """
        c = self._cuts(bins, cuts)
        a, k = self._a(), self._protocol.k
        P0 = np.exp(_log_cell_masses(c, 0.0, a))
        R = np.exp(_log_ratio(c, a))
        with np.errstate(divide="ignore"):
            G = np.log(np.clip(np.cumsum(P0), 0.0, 1.0))
        G[-1] = 0.0  # the last cumulative mass is 1
        powers = np.exp(k * G)
        steps = np.diff(np.concatenate(([0.0], powers)))
        return float(np.sum(R * steps))

    def discretisation_error(self, bins: int | None = None, cuts: Any = None) -> float:
        """A bound on ML(SHE) - ML(binned SHE) >= 0: the largest oscillation of r on a cell.

        r(t) = l(t - 1)/l(t) is e^(-a) below 0, e^(a (2t - 1)) on [0, 1] and e^a above 1
        (a = eps/2); a cell's ratio R is the P0-mean of r over it, so
        max_i r(y_i) <= max_i R(cell_i) + max_cells (sup r - inf r): the bound. With
        equal bins of width w on [0, 1] it is e^a (1 - e^(-2 a w)) <= eps e^(eps/2) w.

        Examples
        --------
        >>> cf = SHE(4, 1.0).closed_form
        >>> err = cf.discretisation_error(bins=100)
        >>> ml, lower = cf.bayes_capacity(), cf.binned_bayes_capacity(bins=100)
        >>> bool(0 <= ml - lower <= err), round(err, 6)
        (True, 0.016405)
        """
        c = self._cuts(bins, cuts)
        a = self._a()
        ends = np.clip(np.concatenate(([0.0], c, [1.0])), 0.0, 1.0)
        r = np.exp(a * (2 * ends - 1))
        return float(np.max(np.diff(r)))

    def bayes_capacity_bounds(self, bins: int | None = None, cuts: Any = None) -> tuple:
        """(lower, upper): the binned capacity and it plus :meth:`discretisation_error`.

        Examples
        --------
        >>> lo, hi = SHE(3, 2.0).closed_form.bayes_capacity_bounds(bins=1000)
        >>> bool(lo <= SHE(3, 2.0).closed_form.bayes_capacity() <= hi), hi - lo < 0.01
        (True, True)
        """
        lower = self.binned_bayes_capacity(bins, cuts)
        return lower, lower + self.discretisation_error(bins, cuts)

    def _cuts(self, bins: int | None, cuts: Any) -> np.ndarray:
        if cuts is not None:
            if bins is not None:
                msg = "give bins or cuts, not both"
                raise ParameterError(msg)
            return _check_cuts(cuts)
        return uniform_cuts(DEFAULT_BINS if bins is None else bins)

    def privacy_profile(self, epss: Any) -> Any:
        """delta(eps') of any two values (all pairs alike), eps' >= 0: exact closed form.

        delta(eps') = 1 - e^((eps' - eps)/2) (1 + (eps - eps')/4) for eps' <= eps, else 0.

        Notes
        -----
        The privacy loss of x against x' is L = L1 + L2, two independent copies of the
        loss of a Laplace shift of 1 at scale b = 2/eps (a = eps/2): an atom a w.p. 1/2,
        an atom -a w.p. e^(-a)/2 and the density e^((u - a)/2)/4 on (-a, a). One copy's
        profile at t in [-a, a] is 1 - e^((t - a)/2); conditioning on L1 and integrating
        these pieces gives the formula.

        Examples
        --------
        >>> cf = SHE(5, 2.0).closed_form
        >>> round(float(cf.privacy_profile(0.0)), 12)  # 1 - e^(-1) (1 + 1/2)
        0.448180838243
        >>> cf.privacy_profile([2.0, 3.0]).tolist()
        [0.0, 0.0]
        """
        try:
            e = np.asarray(epss, dtype=float)
        except (TypeError, ValueError):
            e = np.asarray(np.nan)
        if np.any(~(e >= 0)):
            msg = f"epss must be numbers >= 0, got {epss!r}"
            raise ParameterError(msg)
        eps = self._protocol.eps
        gap = np.minimum(eps - e, eps)
        out = np.where(e < eps, -np.expm1(-gap / 2) - np.exp(-gap / 2) * gap / 4, 0.0)
        out = np.maximum(out, 0.0)
        return float(out) if out.ndim == 0 else out


@fill_doc(ORACLE_DOCS)
class SHE(NotLumpable):
    """Summation with histogram encoding: the one-hot vector plus Laplace(2/eps) noise.

    Parameters
    ----------
    {k}
    eps : float
        Privacy parameter, ``0 < eps <= 700`` (the Laplace scale is 2/eps).

    Notes
    -----
    params : dict
        ``b`` = 2/eps, the Laplace scale of every coordinate.

    Reports are real vectors: there is no finite channel. :meth:`channel` is the
    discretised protocol (an exact channel, a post-processing of SHE);
    ``closed_form`` has the exact profile and capacity.

    Examples
    --------
    >>> P = SHE(3, 2.0)
    >>> P.params, P.channel(bins=1).shape  # 3 cells per coordinate
    ({'b': 1.0}, (3, 27))
    """

    __slots__ = ()
    _closed_form_type = SHEClosedForm
    _not_lumpable = (
        "its reports are real vectors (no finite outputs to lump); the binned channel "
        ".channel(bins) is explicit"
    )

    def __init__(self, k: int, eps: float) -> None:
        k, eps = check_k(k), check_eps(eps)
        if not 0 < eps <= MAX_EPS:
            msg = f"eps must be in (0, {MAX_EPS:g}] for SHE (Laplace scale 2/eps), got {eps}"
            raise ParameterError(msg)
        self._freeze("she", k, eps, {"b": 2.0 / eps}, {"eps": eps})

    # ---------------------------------------------------------------- representations
    def channel(self, bins: int = DEFAULT_BINS, cuts: Any = None) -> Channel:
        """The discretised SHE: each coordinate reported as its cell, an exact channel.

        Parameters
        ----------
        bins : int
            Equal bins on [0, 1] (cuts 0, 1/bins, ..., 1; ``bins + 2`` cells per
            coordinate).
        cuts : array_like, optional
            Any strictly increasing cut points instead of ``bins``.

        Returns
        -------
        Channel, shape (k, c^k)
            Outputs: tuples of k cell indices 0..c-1 (product order), c cells.

        Raises
        ------
        SizeError
            k c^k above :data:`qifldp.channel.MAX_ENTRIES`.

        Notes
        -----
        A post-processing of SHE (it leaks no more, for every gain function); its Bayes
        capacity is within :meth:`SHEClosedForm.discretisation_error` of SHE's; with
        the cuts 0 and 1 among its cuts its eps is eps exactly.

        Examples
        --------
        >>> import qifldp as q
        >>> C = SHE(2, 1.0).channel(bins=2)
        >>> C.shape, round(q.ldp_epsilon(C), 12)
        ((2, 16), 1.0)
        """
        c = _check_cuts(cuts) if cuts is not None else uniform_cuts(bins)
        k, cells = self.k, c.size + 1
        alt = "protocol('she', k, eps).closed_form (binned_bayes_capacity: any k)"
        guard_size(f"she({k}, {self.eps}).channel", k, k * math.log10(cells), lambda: cells**k, alt)
        a = 1 / self._params["b"]  # eps / 2
        logP0 = _log_cell_masses(c, 0.0, a)
        logR = _log_ratio(c, a)
        idx = np.indices((cells,) * k).reshape(k, -1)  # (k, c^k): product order
        base = logP0[idx].sum(axis=0)
        C = np.exp(base[None, :] + logR[idx])
        return Channel(C, outputs=[tuple(int(v) for v in col) for col in idx.T])

    def symbolic(self, **symbols: Any) -> NoReturn:
        """Not available: the outputs are continuous.

        Raises
        ------
        UnsupportedKindError
            Always.

        Examples
        --------
        >>> SHE(2, 1.0).symbolic()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        qifldp.errors.UnsupportedKindError: she has no symbolic channel: ...
        """
        msg = (
            "she has no symbolic channel: its reports are real vectors; use .closed_form "
            "(privacy_profile is a closed form in eps) or .channel(bins)"
        )
        raise UnsupportedKindError(msg)

    # ---------------------------------------------------------------- simulation
    def sample(self, xs: Any, rng: Any = None, **options: Any) -> np.ndarray:
        """The noisy one-hot vectors of n users: (n, k) float64.

        Examples
        --------
        >>> r = SHE(3, 600.0).sample([0, 2], rng=0)
        >>> r.round(2).tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
        """
        no_options("sample", options)
        xs = as_values(xs, self.k)
        check_size(xs.size, self.k, "the report matrix of she", "fewer users per call")
        out = as_rng(rng).laplace(0.0, self._params["b"], size=(xs.size, self.k))
        out[np.arange(xs.size), xs] += 1.0
        return out

    def _check_reports(self, reports: Any) -> np.ndarray:
        arr = as_array(reports, "reports")
        if arr.ndim != 2 or arr.shape[1] != self.k or arr.shape[0] == 0:
            msg = f"reports must be a non-empty (n, k = {self.k}) array, got shape {arr.shape}"
            raise ParameterError(msg)
        arr = arr.astype(float, copy=False)
        if not np.all(np.isfinite(arr)):
            msg = "reports must be finite numbers"
            raise ParameterError(msg)
        return arr

    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """The mean report: unbiased (E[y_v] = f_v), the paper's sum divided by n.

        Examples
        --------
        >>> P = SHE(3, 2.0)
        >>> xs = np.repeat([0, 1, 2], [5000, 3000, 2000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        f = self._check_reports(reports).mean(axis=0)
        return project_simplex(f) if project else f

    def support_probabilities(self, **options: Any) -> NoReturn:
        """Refused (UnsupportedKindError): a report is a real vector; no value is "supported".

        Examples
        --------
        >>> try:
        ...     SHE(2, 1.0).support_probabilities()
        ... except UnsupportedKindError as e:
        ...     str(e).split(":")[0]
        'she has no support probabilities'
        """
        msg = (
            "she has no support probabilities: its reports are real vectors and its "
            "estimator is their mean (variance 8 / (n eps^2))"
        )
        raise UnsupportedKindError(msg)

    def variance(self, n: int, f: Any = None, **options: Any) -> Any:
        """Var[f̂_v] = 2 b^2 / n = 8 / (n eps^2) for every v and every data set.

        Given the users' values the one-hot part of the mean is fixed; only the noise
        varies, n iid Laplace(0, 2/eps) terms of variance 8/eps^2 each, divided by n.

        Examples
        --------
        >>> SHE(4, 2.0).variance(100)
        0.02
        >>> SHE(2, 2.0).variance(100, [0.5, 0.5]).tolist()
        [0.02, 0.02]
        """
        no_options("variance", options)
        n = check_n(n)
        v = 8.0 / (n * self.eps**2)
        if f is None:
            return v
        freq = np.asarray(f, dtype=float)
        if freq.shape != (self.k,):
            msg = f"f must have k = {self.k} frequencies, got shape {freq.shape}"
            raise ParameterError(msg)
        return np.full(self.k, v)

    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """The Bayes guess under a uniform prior: the largest coordinate (see the module).

        Examples
        --------
        >>> SHE(3, 600.0).attack(SHE(3, 600.0).sample([2, 1], rng=0)).tolist()
        [2, 1]
        """
        arr = self._check_reports(reports)
        return choose_uniform_true(arr == arr.max(axis=1, keepdims=True), as_rng(rng))
