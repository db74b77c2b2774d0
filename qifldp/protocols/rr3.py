"""Randomized response with m answers, and the three-answer family (RR3) first-class.

Ma and Wang (arXiv 2021) define the m-elements RR (Definition 3: the genuine answer
with probability p, each other answer with probability (1 - p)/(m - 1)) and, in
Remark 5, the general three-answer mechanism as a row-stochastic 3x3 matrix
P = (p_ij), p_ij the probability of reporting answer j for the true answer i. Only the
paper's preliminaries are legible in its available text; its Secs. III-IV (estimators,
variances, parameter bounds) are not, so what is built on P here is reconstructed
from those definitions and checked against the explicit channel:

- :class:`RR`: any row-stochastic m x m matrix as a frozen protocol object; the eps it
  satisfies is computed (``ldp_epsilon`` of its channel), an ``eps`` given is checked.
- :class:`RR3`: the three-answer family, parameters ``p11 .. p33`` as in Remark 5;
  ``RR3.grr(eps)`` is Definition 3 with m = 3 (the 3-ary GRR).
- estimation: the unbiased matrix-inversion estimator with its exact covariance, and a
  constrained maximum-likelihood estimator (EM on the simplex);
- :func:`rr3_design`: the eps-LDP 3x3 channel of least total variance for a given
  true distribution.

Inputs and answers are 0..m-1 in the objects (the package's convention); the paper's
exact views :func:`rr_matrix`, :func:`rr_channel` and :func:`rr3_channel` label the
answers 1..m as the paper does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..attributes import ReadOnly
from ..channel import Channel
from ..errors import InputTypeError, ParameterError
from ..measures import ldp_epsilon
from ..simulation import estimate_inversion, inversion_matrix, project_simplex, variance_inversion
from ..simulation.util import as_rng, as_values, check_n
from ..validation import as_real_array, check_bool, check_choice, check_eps, check_int, check_real
from .base import Frozen
from .grr import GRR
from .ibu import EM_TOL as IBU_TOL, em_matrix

if TYPE_CHECKING:
    import sympy as sp

__all__ = [
    "rr_matrix",
    "rr_channel",
    "rr3_channel",
    "RR",
    "RR3",
    "RR3Design",
    "rr3_design",
    "rr3_design_grid",
    "rr_total_variance",
    "rr_estimator_mse",
    "EM_TOL",
    "EPS_SLACK",
    "MAX_DESIGN_EPS",
]

#: Stopping rule of the EM estimator: its mean log-likelihood is within EM_TOL of the
#: maximum, certified by the Frank-Wolfe duality gap max_x grad_x - 1 (:mod:`.ibu`).
EM_TOL: float = IBU_TOL

#: Relative slack when a given ``eps`` is checked against the matrix's true epsilon
#: (``ldp_epsilon`` is one rounding of a log ratio).
EPS_SLACK: float = 1e-12

_MODELS = ("iid", "fixed")
_METHODS = ("inversion", "em")


def _check_m(m: Any) -> None:
    if isinstance(m, bool) or not isinstance(m, int) or m < 2:
        msg = f"m (the number of answers) must be an integer >= 2, got {m!r}"
        raise ParameterError(msg)


def rr_matrix(m: int, p: Any) -> sp.Matrix:
    """The m-elements RR of Definition 3 as an exact matrix over the answers 1..m.

    Parameters
    ----------
    m : int
        Number of answers, ``>= 2``.
    p : sympy number or Symbol
        Probability of sending the genuine answer.

    Returns
    -------
    sympy.Matrix
        ``P[i, j] = p`` if ``i == j`` else ``(1 - p)/(m - 1)`` (Definition 3).

    Raises
    ------
    ParameterError
        ``m`` is not an integer ``>= 2``.

    Examples
    --------
    >>> import sympy as sp
    >>> rr_matrix(3, sp.Rational(1, 2))
    Matrix([
    [1/2, 1/4, 1/4],
    [1/4, 1/2, 1/4],
    [1/4, 1/4, 1/2]])
    """
    import sympy as sp

    _check_m(m)
    p = sp.sympify(p)
    return sp.Matrix(m, m, lambda i, j: p if i == j else (1 - p) / (m - 1))


def rr_channel(m: int, p: float) -> Channel:
    """The m-elements RR of Definition 3 as an explicit Channel, answers labelled 1..m.

    Parameters
    ----------
    m : int
        Number of answers, ``>= 2``.
    p : float
        Probability of the genuine answer, in [0, 1].

    Returns
    -------
    Channel

    Raises
    ------
    ParameterError
        ``m`` is not an integer ``>= 2``, or ``p`` is not in [0, 1].

    Examples
    --------
    >>> rr_channel(2, 0.75).matrix.tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    _check_m(m)
    if not 0.0 <= float(p) <= 1.0:
        msg = f"p must be a probability in [0, 1], got {p!r}"
        raise ParameterError(msg)
    rows = [[p if i == j else (1 - p) / (m - 1) for j in range(m)] for i in range(m)]
    answers = tuple(range(1, m + 1))
    return Channel(np.array(rows), answers, answers)


def rr3_channel(P: Any) -> Channel:
    """Remark 5's general three-answer mechanism: a row-stochastic 3x3 matrix P.

    Parameters
    ----------
    P : array_like, shape (3, 3)
        ``P[i, j]``: probability of reporting answer j + 1 for the true answer i + 1.

    Returns
    -------
    Channel
        Over the answers 1, 2, 3 (validated by :class:`qifldp.Channel`).

    Examples
    --------
    >>> rr3_channel([[0.5, 0.5, 0], [0, 1, 0], [0.2, 0.2, 0.6]]).inputs
    (1, 2, 3)
    """
    return Channel(np.asarray(P, dtype=float), (1, 2, 3), (1, 2, 3))


def _as_matrix(P: Any, name: str = "P") -> np.ndarray:
    """A validated square row-stochastic matrix (m >= 2), float64, read-only."""
    if isinstance(P, RR):
        return P.matrix
    if isinstance(P, Channel):
        P = P.matrix
    M = as_real_array(name, P, ndim=2)
    if M.shape[0] != M.shape[1] or M.shape[0] < 2:
        msg = f"{name} must be a square m x m matrix with m >= 2 answers, got shape {M.shape}"
        raise ParameterError(msg)
    C = Channel(M)  # row-stochastic within Channel's rounding tolerance, else ChannelError
    out = np.array(C.matrix, dtype=np.float64)
    out.setflags(write=False)
    return out


class RR(Frozen):
    """Randomized response with m answers: any row-stochastic m x m matrix, frozen.

    Parameters
    ----------
    P : array_like, shape (m, m), or Channel
        ``P[x, y]`` = Pr(answer y | true answer x), rows summing to 1 (within the
        rounding tolerance of :class:`qifldp.Channel`), ``m >= 2``.
    eps : float, optional
        A privacy budget the matrix must satisfy: ``ldp_epsilon(P) <= eps`` (up to
        :data:`EPS_SLACK`), else :class:`~qifldp.errors.ParameterError`.

    Attributes
    ----------
    m : int
        Number of answers (inputs and answers are 0..m-1).
    eps : float
        The LDP epsilon the matrix satisfies exactly: ``ldp_epsilon`` of its channel
        (``inf`` when a column mixes zero and non-zero entries).
    matrix : numpy.ndarray
        The matrix (read-only).

    Raises
    ------
    ParameterError
        Not square, m < 2, entries outside [0, 1] or NaN, rows not summing to 1, or
        the true epsilon exceeds the given ``eps``.
    InputTypeError
        Not a real matrix.

    Examples
    --------
    >>> import numpy as np, qifldp as q
    >>> R = q.RR([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    >>> R.m, round(R.eps, 6)  # ln 2
    (3, 0.693147)
    >>> q.RR([[0.9, 0.1], [0.1, 0.9]], eps=1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: P satisfies eps-LDP only for eps >= 2.19722... got eps = 1.0
    """

    __slots__ = ("_matrix", "_eps")
    _matrix: np.ndarray
    _eps: float

    def __init__(self, P: Any, eps: float | None = None) -> None:

        M = _as_matrix(P)
        self._check_shape(M)
        true = float(ldp_epsilon(Channel(M)))
        if eps is not None:
            eps = check_eps(eps, "eps", allow_inf=True)
            if true > eps * (1.0 + EPS_SLACK) + EPS_SLACK:
                msg = (
                    f"P satisfies eps-LDP only for eps >= {true!r} (its ldp_epsilon), "
                    f"got eps = {eps!r}"
                )
                raise ParameterError(msg)
        self._set(_matrix=M, _eps=true)

    def _check_shape(self, M: np.ndarray) -> None:
        """Subclasses restrict m (RR3: m = 3)."""

    # ------------------------------------------------------------------ frozen object
    def _key(self) -> tuple:
        return (self._matrix.shape[0], self._matrix.tobytes())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._matrix.tolist()!r})"

    def __reduce__(self) -> tuple:
        return (type(self), (self._matrix.tolist(),))

    eps = ReadOnly[float](
        "The eps the matrix satisfies exactly (``ldp_epsilon`` of :meth:`channel`)."
    )
    matrix = ReadOnly[np.ndarray]("The matrix P (read-only).")

    @property
    def m(self) -> int:
        """Number of answers.

        Examples
        --------
        >>> P = RR([[0.75, 0.25], [0.25, 0.75]])
        >>> P.m, round(P.eps, 6), P.matrix[0].tolist()  # eps = ln 3
        (2, 1.098612, [0.75, 0.25])
        """
        return int(self._matrix.shape[0])

    def channel(self) -> Channel:
        """The explicit channel, inputs and outputs 0..m-1.

        Examples
        --------
        >>> RR([[0.75, 0.25], [0.25, 0.75]]).channel().shape
        (2, 2)
        """
        return Channel(self._matrix)

    # ------------------------------------------------------------------ client
    def sample(self, xs: Any, rng: Any = None) -> np.ndarray:
        """One randomized answer per true answer in ``xs``, vectorised.

        Parameters
        ----------
        xs : array_like of int, shape (n,)
            True answers in 0..m-1.
        rng : numpy.random.Generator or int, optional
            Generator or seed (default: fresh entropy).

        Returns
        -------
        numpy.ndarray of int64, shape (n,)
            Answers in 0..m-1: answer y w.p. ``P[x, y]``.

        Raises
        ------
        ParameterError, InputTypeError
            ``xs`` not integers in 0..m-1; a bad ``rng``.

        Notes
        -----
        One uniform per user, compared with the cumulative row of P: O(n m).

        Examples
        --------
        >>> RR([[1.0, 0.0], [0.0, 1.0]]).sample([1, 0, 1], rng=0).tolist()
        [1, 0, 1]
        """

        xs = as_values(xs, self.m)
        rng = as_rng(rng)
        cum = np.cumsum(self._matrix, axis=1)
        u = rng.random(xs.size)
        ys = (u[:, None] >= cum[xs]).sum(axis=1)
        return np.minimum(ys, self.m - 1).astype(np.int64)

    # ------------------------------------------------------------------ server
    def _counts(self, reports: Any) -> np.ndarray:

        ys = as_values(reports, self.m, name="reports")
        if ys.size == 0:
            msg = "reports must not be empty (n >= 1 answers)"
            raise ParameterError(msg)
        return np.bincount(ys, minlength=self.m).astype(np.float64)

    def estimate(
        self, reports: Any, method: str = "inversion", project: bool = False
    ) -> np.ndarray:
        """Estimate the distribution of the true answers from the randomized ones.

        Parameters
        ----------
        reports : array_like of int, shape (n,)
            Answers in 0..m-1 (the output of :meth:`sample`), ``n >= 1``.
        method : {"inversion", "em"}, optional
            ``"inversion"`` (default): the unbiased estimator λ̂ P⁻¹ with λ̂ the
            empirical answer distribution (may leave the simplex). ``"em"``: the
            maximum-likelihood distribution on the simplex, by EM.
        project : bool, optional
            Project the inversion estimate onto the simplex (then biased); EM
            estimates are on the simplex already.

        Returns
        -------
        numpy.ndarray, shape (m,)

        Raises
        ------
        ChannelError
            P is singular (the distribution is not identifiable) and method is inversion.
        ParameterError, InputTypeError
            Bad reports, unknown method.

        Notes
        -----
        Inversion: :func:`qifldp.simulation.estimate_inversion` (E[λ̂] = π P, so
        E[λ̂ P⁻¹] = π). EM: the multinomial log-likelihood Σ_y c_y ln (π P)_y is
        concave in π; the iteration π_x ← π_x Σ_y P[x, y] (c_y / n) / (π P)_y keeps π
        on the simplex, never decreases the likelihood and converges to its maximum
        from the uniform start. It stops when the mean log-likelihood is certified
        within :data:`EM_TOL` of the maximum (the duality gap max_x g_x − 1, with
        g_x = Σ_y P[x, y] (c_y / n) / λ_y the gradient, bounds the distance to the
        maximum of a concave function on the simplex), at most 100 000 steps. When
        the inversion estimate lies in the simplex it is the maximum (its λ = λ̂ is
        the unconstrained one), so the two coincide there and EM returns it without
        iterating. O(n + m^2) per step.

        Examples
        --------
        >>> import qifldp as q
        >>> R = q.RR3.grr(1.0)
        >>> R.estimate([0, 0, 0, 1]).round(4).tolist()
        [1.4775, 0.1045, -0.582]
        >>> R.estimate([0, 0, 0, 1], method="em").round(4).tolist()
        [1.0, 0.0, 0.0]
        """

        method = check_choice("method", method, _METHODS)
        project = check_bool("project", project)
        counts = self._counts(reports)
        if method == "em":
            return _em(self._matrix, counts)
        ys = np.repeat(np.arange(self.m), counts.astype(np.int64))
        f = estimate_inversion(self.channel(), ys)
        return project_simplex(f) if project else f

    def covariance(self, pi: Any, n: int, model: str = "iid") -> np.ndarray:
        """The exact covariance matrix of the inversion estimate for n users.

        Parameters
        ----------
        pi : array_like, shape (m,)
            The true distribution of the answers (a probability vector).
        n : int
            Number of users, ``n >= 1``.
        model : {"iid", "fixed"}, optional
            ``"iid"`` (default): the n true answers are drawn independently from
            ``pi``, so the reported counts are multinomial(n, λ), λ = π P, and
            Cov = P⁻ᵀ (diag(λ) − λλᵀ) P⁻¹ / n. ``"fixed"``: the population is fixed
            with answer frequencies ``pi`` (only the randomization is random):
            Cov = (P⁻ᵀ diag(λ) P⁻¹ − diag(π)) / n
            (:func:`qifldp.simulation.variance_inversion`).

        Returns
        -------
        numpy.ndarray, shape (m, m)

        Raises
        ------
        ChannelError
            P is singular.
        ParameterError
            ``pi`` not a probability vector of length m, bad ``n`` or ``model``.

        Notes
        -----
        The two differ by the multinomial covariance of the true answers,
        (diag(π) − ππᵀ) / n: iid = fixed + (diag(π) − ππᵀ) / n, since
        P⁻ᵀ λλᵀ P⁻¹ = ππᵀ.

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> R = q.RR([[0.75, 0.25], [0.25, 0.75]])
        >>> R.covariance([0.5, 0.5], 100).round(6).tolist()  # (1/4) / (n (2p - 1)^2)
        [[0.01, -0.01], [-0.01, 0.01]]
        """

        model = check_choice("model", model, _MODELS)
        pi = _check_distribution(pi, self.m)
        n = check_n(n)
        if model == "fixed":
            return np.asarray(variance_inversion(self.channel(), pi, n, full=True))
        Pinv = _inverse(self._matrix)
        lam = pi @ self._matrix
        return Pinv.T @ (np.diag(lam) - np.outer(lam, lam)) @ Pinv / n

    def variance(self, pi: Any, n: int, model: str = "iid") -> np.ndarray:
        """The variance of each estimated frequency (the diagonal of :meth:`covariance`).

        Examples
        --------
        >>> import qifldp as q
        >>> q.RR([[0.75, 0.25], [0.25, 0.75]]).variance([0.5, 0.5], 100).round(6).tolist()
        [0.01, 0.01]
        """
        return np.diag(self.covariance(pi, n, model)).copy()

    def total_variance(self, pi: Any, n: int = 1, model: str = "iid") -> float:
        """The trace of :meth:`covariance`: the expected squared error of the estimate.

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.RR([[0.75, 0.25], [0.25, 0.75]]).total_variance([0.5, 0.5], 100), 6)
        0.02
        """
        return float(np.trace(self.covariance(pi, n, model)))


def _check_distribution(pi: Any, m: int, name: str = "pi") -> np.ndarray:
    pi = as_real_array(name, pi, ndim=1)
    if pi.shape != (m,) or np.any(pi < 0):
        msg = f"{name} must be a non-negative vector of length m = {m}, got {pi.tolist()!r}"
        raise ParameterError(msg)
    if abs(pi.sum() - 1.0) > 1e-9:
        msg = f"{name} must sum to 1 (a probability vector), sums to {pi.sum()!r}"
        raise ParameterError(msg)
    return pi


def _inverse(P: np.ndarray) -> np.ndarray:

    return np.asarray(inversion_matrix(Channel(P)))


def _em(P: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The maximum-likelihood distribution on the simplex (EM, :func:`~.ibu.em_matrix`)."""
    return em_matrix(P, counts, EM_TOL)[0]


def rr_estimator_mse(
    rr: Any, pi: Any, ns: Any, trials: int = 200, rng: Any = 0
) -> list[dict[str, float]]:
    """Mean squared error of the inversion and EM estimates, by simulation.

    Parameters
    ----------
    rr : RR
        The randomized response (invertible matrix).
    pi : array_like, shape (m,)
        The true distribution; each trial draws n true answers from it (iid model).
    ns : sequence of int
        Numbers of users, each ``>= 1`` (at most 100 values).
    trials : int, optional
        Simulated data sets per n (1 <= trials <= 100 000; default 200).
    rng : int or numpy.random.Generator, optional
        Seed (default 0: deterministic).

    Returns
    -------
    list of dict
        One row per n: ``n``, ``inversion_mse`` (mean over trials of ‖π̂ − π‖²),
        ``inversion_se`` (its standard error), ``inversion_theory`` (the trace of
        :meth:`RR.covariance`, iid), ``em_mse``, ``em_se``, ``em_over_inversion``.

    Raises
    ------
    ParameterError, InputTypeError
        Bad ``rr``, ``pi``, ``ns``, ``trials`` or ``rng``; n·trials above 10^8.

    Notes
    -----
    Each trial: true answers drawn from π, randomized by :meth:`RR.sample`, estimated
    by both methods from the same reports. The inversion MSE estimates tr Cov
    (unbiased estimator); EM trades bias for variance by staying on the simplex.

    Examples
    --------
    >>> import qifldp as q
    >>> rows = q.rr_estimator_mse(q.RR3.grr(1.0), [0.8, 0.15, 0.05], [100], trials=50)
    >>> rows[0]["em_mse"] < rows[0]["inversion_mse"]
    True
    """

    if not isinstance(rr, RR):
        msg = f"rr must be an RR (or RR3) protocol object, got {type(rr).__name__}"
        raise InputTypeError(msg)
    pi = _check_distribution(pi, rr.m)
    if isinstance(ns, (str, bytes)) or not hasattr(ns, "__iter__"):
        msg = f"ns must be a sequence of numbers of users, got {type(ns).__name__}"
        raise InputTypeError(msg)
    ns = [check_n(n, "ns") for n in ns]
    if not 1 <= len(ns) <= 100:
        msg = f"ns must hold 1 to 100 numbers of users, got {len(ns)}"
        raise ParameterError(msg)
    trials = check_int("trials", trials, minimum=1, maximum=100_000)
    if max(ns) * trials > 10**8:
        msg = f"n * trials must be <= 10^8 (simulated reports), got {max(ns) * trials}"
        raise ParameterError(msg)
    gen = as_rng(rng)
    Pinv = _inverse(rr.matrix)
    theory = rr.covariance(pi, 1)
    rows = []
    for n in ns:
        xs = gen.choice(rr.m, size=n * trials, p=pi)
        ys = rr.sample(xs, rng=gen).reshape(trials, n)
        counts = np.stack([np.bincount(row, minlength=rr.m) for row in ys]).astype(np.float64)
        inv = (counts / n) @ Pinv
        em = _em(rr.matrix, counts)
        e_inv = ((inv - pi) ** 2).sum(axis=1)
        e_em = ((em - pi) ** 2).sum(axis=1)
        rows.append(
            {
                "n": float(n),
                "inversion_mse": float(e_inv.mean()),
                "inversion_se": float(e_inv.std(ddof=1) / np.sqrt(trials)) if trials > 1 else 0.0,
                "inversion_theory": float(np.trace(theory) / n),
                "em_mse": float(e_em.mean()),
                "em_se": float(e_em.std(ddof=1) / np.sqrt(trials)) if trials > 1 else 0.0,
                "em_over_inversion": float(e_em.mean() / e_inv.mean()) if e_inv.mean() else 1.0,
            }
        )
    return rows


# ---------------------------------------------------------------------- three answers
_NAMES = tuple(f"p{i}{j}" for i in (1, 2, 3) for j in (1, 2, 3))


class RR3(RR):
    """Randomized response with three answers (Remark 5): a row-stochastic 3x3 matrix.

    Parameters
    ----------
    P : array_like, shape (3, 3), optional
        The matrix (p_ij = Pr(answer j | true answer i), here 0-based); or give the
        nine entries by their names in Remark 5, ``p11=..., ..., p33=...``.
    eps : float, optional
        A budget the matrix must satisfy (see :class:`RR`).

    Attributes
    ----------
    params : dict
        ``p11 .. p33`` (Remark 5's names, rows = true answers 1..3).

    Raises
    ------
    ParameterError
        Not 3x3, not row-stochastic, both or neither of ``P`` and the entries given,
        an entry missing, or the eps check fails.
    InputTypeError
        Unknown keyword.

    Notes
    -----
    GRR(3) — Definition 3 with m = 3 and Remark 3's p = e^eps / (e^eps + 2) — is the
    member :meth:`RR3.grr`. Every other RR3 is a member too; :func:`rr3_design` finds
    the one of least estimator variance under an eps budget.

    Examples
    --------
    >>> import qifldp as q
    >>> R = q.RR3(p11=0.6, p12=0.2, p13=0.2, p21=0.2, p22=0.6, p23=0.2,
    ...           p31=0.2, p32=0.2, p33=0.6)
    >>> bool(np.allclose(R.matrix, q.RR3.grr(float(np.log(3))).matrix))
    True
    >>> R.params["p12"]
    0.2
    """

    __slots__ = ()

    def __init__(self, P: Any = None, eps: float | None = None, **entries: Any) -> None:
        unknown = sorted(set(entries) - set(_NAMES))
        if unknown:
            msg = f"RR3 takes the entries p11 .. p33 (Remark 5), got {', '.join(unknown)}"
            raise InputTypeError(msg)
        if entries:
            if P is not None:
                msg = "give either the matrix P or its entries p11 .. p33, not both"
                raise ParameterError(msg)
            missing = [name for name in _NAMES if name not in entries]
            if missing:
                msg = f"RR3 needs all nine entries p11 .. p33; missing {', '.join(missing)}"
                raise ParameterError(msg)
            for name in _NAMES:
                check_real(name, entries[name], 0.0, 1.0)
            P = [[float(entries[f"p{i}{j}"]) for j in (1, 2, 3)] for i in (1, 2, 3)]
        if P is None:
            msg = "RR3 needs the matrix P or its nine entries p11 .. p33"
            raise ParameterError(msg)
        super().__init__(P, eps)

    def _check_shape(self, M: np.ndarray) -> None:
        if M.shape != (3, 3):
            msg = f"P of RR3 must be 3x3 (three answers), got shape {M.shape}"
            raise ParameterError(msg)

    @classmethod
    def grr(cls, eps: float) -> RR3:
        """GRR(3): Definition 3 with m = 3 and p = e^eps / (e^eps + 2) (Remark 3).

        Parameters
        ----------
        eps : float
            Finite, ``>= 0``.

        Returns
        -------
        RR3
            Equal (entrywise) to ``qifldp.grr(3, eps)``.

        Examples
        --------
        >>> import qifldp as q
        >>> bool(np.allclose(q.RR3.grr(1.0).matrix, q.grr(3, 1.0).matrix))
        True
        """
        eps = check_eps(eps)
        return cls(GRR(3, eps).channel().matrix)

    @property
    def params(self) -> dict[str, float]:
        """The entries p11 .. p33 (Remark 5's names; a new dict).

        Examples
        --------
        >>> RR3.grr(0.0).params["p11"] == 1 / 3
        True
        """
        flat = self._matrix.reshape(-1)
        return {name: float(v) for name, v in zip(_NAMES, flat, strict=True)}


# ---------------------------------------------------------------------- design
def rr_total_variance(P: Any, pi: Any) -> float:
    """Total variance of the inversion estimate for one user: tr Cov × n (iid model).

    Parameters
    ----------
    P : array_like (m, m), Channel or RR
        An invertible row-stochastic matrix.
    pi : array_like, shape (m,)
        The true distribution.

    Returns
    -------
    float
        Σ_y λ_y ‖P⁻¹[y, :]‖² − ‖π‖², λ = π P (divide by n for n users; the fixed
        population model adds 1 − ‖π‖² less: its trace is Σ_y λ_y ‖P⁻¹[y, :]‖² − 1).

    Raises
    ------
    ChannelError
        P singular.

    Examples
    --------
    >>> round(rr_total_variance([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5]), 6)
    2.0
    """
    M = _as_matrix(P)
    pi = _check_distribution(pi, M.shape[0])
    return RR(M).total_variance(pi, 1)


def _objective(Ps: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Σ_y λ_y ‖P⁻¹[y]‖² − ‖π‖² for a stack of 3x3 matrices (inf where singular)."""
    det = np.linalg.det(Ps)
    ok = np.abs(det) > 1e-12
    out = np.full(Ps.shape[0], np.inf)
    if ok.any():
        inv = np.linalg.inv(Ps[ok])
        lam = np.einsum("x,nxy->ny", pi, Ps[ok])
        out[ok] = np.einsum("ny,nyx->n", lam, inv * inv) - pi @ pi
    return out


class RR3Design(NamedTuple):
    """The result of :func:`rr3_design`.

    Attributes
    ----------
    rr : RR3
        The eps-LDP three-answer channel of least total variance found.
    total_variance : float
        Its total variance for one user (:func:`rr_total_variance`; divide by n).
    grr_total_variance : float
        The same for GRR(3) at the same eps.
    method : str
        How it was found.

    Examples
    --------
    >>> import qifldp as q
    >>> d = q.rr3_design([1/3, 1/3, 1/3], 1.0)
    >>> d.total_variance <= d.grr_total_variance + 1e-9
    True
    """

    rr: RR3
    total_variance: float
    grr_total_variance: float
    method: str


def _ldp_constraints(eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A_ub, A_eq, b_eq) over the 9 entries, row-major.

    Rows of A_ub: P[x, y] - e^eps P[x', y] <= 0; A_eq: every row sums to 1.
    """
    e = float(np.exp(eps))
    rows = []
    for y in range(3):
        for x in range(3):
            for x2 in range(3):
                if x != x2:
                    r = np.zeros(9)
                    r[3 * x + y] = 1.0
                    r[3 * x2 + y] = -e
                    rows.append(r)
    A_eq = np.kron(np.eye(3), np.ones(3))
    return np.array(rows), A_eq, np.ones(3)


def _polish(x0: np.ndarray, pi: np.ndarray, eps: float) -> np.ndarray:
    from scipy.optimize import minimize

    A_ub, A_eq, b_eq = _ldp_constraints(eps)

    def f(x: np.ndarray) -> float:
        v = _objective(x.reshape(1, 3, 3), pi)[0]
        return float(v) if np.isfinite(v) else 1e12

    res = minimize(
        f,
        x0,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * 9,
        constraints=[
            {"type": "ineq", "fun": lambda x: -A_ub @ x},
            {"type": "eq", "fun": lambda x: A_eq @ x - b_eq},
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return _repair(res.x, eps)


def _repair(x: np.ndarray, eps: float) -> np.ndarray:
    """Clip and renormalise a solver point, then mix it with the uniform matrix until it
    satisfies eps-LDP exactly (the uniform matrix is 0-LDP; the mixture only shrinks ratios)."""
    P = np.clip(x.reshape(3, 3), 0.0, None)
    P = P / P.sum(axis=1, keepdims=True)
    U = np.full((3, 3), 1.0 / 3)
    bound = float(np.exp(eps))

    def feasible(t: float) -> bool:
        Q = (1.0 - t) * P + t * U
        return bool(np.all(Q.max(axis=0) <= bound * Q.min(axis=0)))

    if feasible(0.0):
        return P.reshape(-1)
    low, high = 0.0, 1.0  # feasible(1): the uniform matrix; the feasible t form [t*, 1]
    for _ in range(80):
        mid = 0.5 * (low + high)
        if feasible(mid):
            high = mid
        else:
            low = mid
    return ((1.0 - high) * P + high * U).reshape(-1)


def _starts(eps: float, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """GRR(3), its relabelling-free variants and random feasible points (Dirichlet rows
    mixed with the uniform matrix just enough to be eps-LDP)."""
    starts = [GRR(3, eps).channel().matrix.reshape(-1)]
    for _ in range(count):
        starts.append(_repair(rng.dirichlet(np.ones(3), size=3).reshape(-1), eps))
    return starts


#: Largest eps the design accepts: beyond it e^eps > 10^13 and the optimal channel is the
#: identity up to entries of e^-eps, below the optimiser's resolution.
MAX_DESIGN_EPS: float = 30.0


def _check_design_eps(eps: Any) -> float:
    eps = check_eps(eps)
    if eps <= 0:
        msg = "eps must be > 0 (at eps = 0 every channel is constant: nothing is estimable)"
        raise ParameterError(msg)
    if eps > MAX_DESIGN_EPS:
        msg = (
            f"eps must be <= {MAX_DESIGN_EPS} for the design (beyond, the optimum is the "
            f"identity matrix up to entries of e^-eps), got {eps}"
        )
        raise ParameterError(msg)
    return eps


def rr3_design(pi: Any, eps: float, starts: int = 24, rng: Any = 0) -> RR3Design:
    """The eps-LDP 3x3 channel minimising the total variance of the inversion estimate.

    Parameters
    ----------
    pi : array_like, shape (3,)
        The true distribution of the three answers.
    eps : float
        Privacy budget, ``0 < eps <= 30`` (:data:`MAX_DESIGN_EPS`).
    starts : int, optional
        Number of random feasible starting points besides GRR(3) (default 24).
    rng : int or numpy.random.Generator, optional
        Seed of the starting points (default 0: deterministic).

    Returns
    -------
    RR3Design

    Raises
    ------
    ParameterError, InputTypeError
        ``pi`` not a probability vector of length 3, ``eps <= 0`` or not finite, bad
        ``starts`` / ``rng``.

    Notes
    -----
    Minimises tr Cov = (Σ_y λ_y ‖P⁻¹[y, :]‖² − ‖π‖²) / n with λ = π P over the eps-LDP
    polytope {P row-stochastic, P[x, y] <= e^eps P[x', y]} (9 entries, 3 equalities,
    18 inequalities; the fixed-population trace differs by a constant, same optimum).
    Method: SLSQP (scipy) from GRR(3) and ``starts`` random feasible matrices; each
    solution is clipped, renormalised and mixed with the uniform matrix until it is
    eps-LDP exactly, and the best is kept. The objective is not convex, so this is a
    multistart local search; it is checked against a brute-force grid of the
    polytope (:func:`rr3_design_grid`) in the tests. Relabelling the answers of a
    channel's outputs (permuting its columns) does not change the variance, so the
    optimum is unique at best up to column permutation.

    Examples
    --------
    >>> import qifldp as q
    >>> d = q.rr3_design([0.7, 0.2, 0.1], 1.0, starts=4)
    >>> round(d.total_variance, 6), round(d.grr_total_variance, 6)  # GRR(3) is optimal here
    (4.820088, 4.820088)
    """

    pi = _check_distribution(pi, 3)
    eps = _check_design_eps(eps)
    starts = check_int("starts", starts, minimum=0, maximum=10_000)
    gen = as_rng(rng)
    best, best_value = None, np.inf
    for x0 in _starts(eps, gen, starts):
        x = _polish(x0, pi, eps)
        value = _objective(x.reshape(1, 3, 3), pi)[0]
        if value < best_value:
            best, best_value = x, value
    assert best is not None
    G = GRR(3, eps).channel().matrix
    grr_value = float(_objective(G.reshape(1, 3, 3), pi)[0])
    if grr_value <= best_value:  # never report worse than the start
        best, best_value = G.reshape(-1), grr_value
    method = f"SLSQP from GRR(3) and {starts} random feasible starts, repaired to exact eps-LDP"
    return RR3Design(RR3(best.reshape(3, 3)), float(best_value), grr_value, method)


def rr3_design_grid(pi: Any, eps: float, steps: int = 12) -> tuple[np.ndarray, float]:
    """Brute force: the best eps-LDP 3x3 channel whose rows lie on a simplex grid.

    Parameters
    ----------
    pi : array_like, shape (3,)
        The true distribution.
    eps : float
        Privacy budget, finite and ``> 0``.
    steps : int, optional
        Grid resolution: row entries are multiples of 1/steps (2 <= steps <= 20).

    Returns
    -------
    (numpy.ndarray, float)
        The best grid matrix (3, 3) and its total variance for one user; ``inf`` and
        a NaN-free uniform matrix when no grid point is eps-LDP and invertible.

    Notes
    -----
    Enumerates every triple of grid rows ((steps+1)(steps+2)/2 each), keeps the
    eps-LDP ones and evaluates the objective of :func:`rr3_design` in one batch. A
    grid point can only be worse than the continuous optimum.

    Examples
    --------
    >>> P, v = rr3_design_grid([1/3, 1/3, 1/3], 1.0, steps=6)
    >>> P.shape, v > 0
    ((3, 3), True)
    """
    pi = _check_distribution(pi, 3)
    eps = _check_design_eps(eps)
    steps = check_int("steps", steps, minimum=2, maximum=20)
    rows = (
        np.array(
            [(a, b, steps - a - b) for a in range(steps + 1) for b in range(steps + 1 - a)],
            dtype=np.float64,
        )
        / steps
    )
    r = rows.shape[0]
    e = np.exp(eps) * (1.0 + 1e-12)
    # pairwise feasibility of two rows: every column ratio within e^eps
    ok = np.all(
        (rows[:, None, :] <= e * rows[None, :, :]) & (rows[None, :, :] <= e * rows[:, None, :]),
        axis=2,
    )
    best_P, best_v = np.full((3, 3), 1.0 / 3), np.inf
    for i in range(r):
        js = np.nonzero(ok[i])[0]
        idx = js[np.argwhere(ok[np.ix_(js, js)])]
        if idx.size == 0:
            continue
        Ps = np.stack(
            [np.broadcast_to(rows[i], (len(idx), 3)), rows[idx[:, 0]], rows[idx[:, 1]]], axis=1
        )
        v = _objective(Ps, pi)
        t = int(np.argmin(v))
        if v[t] < best_v:
            best_P, best_v = Ps[t].copy(), float(v[t])
    return best_P, best_v
