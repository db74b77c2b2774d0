"""PCKV, the full protocol: budget allocation, client (sampling and perturbation) and server.

PCKV (Gu, Li, Cheng, Xiong, Cao; USENIX Security 2020) collects key-value data: each
of n users holds a set of pairs (key, value), keys in 1..d, values in [-1, 1]; the
server estimates, for every key, its frequency (the fraction of users holding it)
and the mean of its values. The explicit channels are :func:`qifldp.pckv_ue` and
:func:`qifldp.pckv_grr` (:mod:`qifldp.protocols.keyvalue`); this module adds what a
user needs to run the protocol: :func:`pckv_allocation` (Lemma 2 / Eq. 20, Eq. 21)
and the frozen protocol object :class:`PCKV` with ``sample`` (Algorithms 1-3, PCKV-UE
with the paper's a = 1/2 or a general a), ``estimate`` (Algorithm 4, Eqs. 7-8),
``bias`` / ``variance`` / ``mse`` (Theorem 4, Lemma 1, Eqs. 16-18) and
``true_epsilon``. The allocation is checked by :func:`pckv_numeric_allocation` (a
numeric minimiser of the MSE approximation, :func:`pckv_mse_coefficients`), and
:func:`pckv_allocation_curves` / :func:`plot_pckv_allocation_curves` give Fig. 4.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..attributes import ReadOnly
from ..channel import Channel
from ..errors import InputTypeError, ParameterError
from ..simulation.util import row_chunks
from ..validation import (
    as_real_array,
    check_bool,
    check_choice,
    check_int,
    check_real,
)
from .docstrings import fill_doc
from .keyvalue import (
    DOCS,
    KeyValueFrozen,
    check_positive_eps,
    check_reports_array,
    check_ue_a,
    pckv_epsilon,
    pckv_grr,
    pckv_ue,
    ue_exact_epsilon,
    ue_key_probabilities,
)

__all__ = [
    "pckv_allocation",
    "PCKV",
    "pckv_mse_coefficients",
    "pckv_numeric_allocation",
    "pckv_allocation_curves",
    "plot_pckv_allocation_curves",
]

_MECHANISMS = ("ue", "grr")

#: Relative slack allowed when user-given (eps1, eps2) are checked against eps: the
#: composition is evaluated in floating point (one rounding of a log / logaddexp).
_COMPOSITION_SLACK = 1e-12


def _check_mechanism(mechanism: Any) -> str:
    if not isinstance(mechanism, str):
        msg = f"mechanism must be 'ue' or 'grr' (a str), got {type(mechanism).__name__}"
        raise InputTypeError(msg)
    # PCKV-UE or PCKV-GRR, in any case
    return check_choice("mechanism", mechanism.strip().lower(), _MECHANISMS)


def pckv_allocation(eps: float, ell: int = 1, mechanism: str = "ue") -> tuple[float, float]:
    """PCKV's optimised split of a total budget eps into key and value budgets (eps1, eps2).

    Parameters
    ----------
    eps : float
        Total budget, finite and ``> 0``.
    ell : int, optional
        Padding length, ``ell >= 1`` (default 1); only PCKV-GRR's split depends on it.
    mechanism : {"ue", "grr"}, optional
        PCKV-UE (Lemma 2 / Eq. 20, default) or PCKV-GRR (Eq. 21).

    Returns
    -------
    (float, float)
        ``(eps1, eps2)`` with ``pckv_epsilon(eps1, eps2, ell, mechanism) == eps`` (up
        to rounding): the budget is fully used.

    Raises
    ------
    InputTypeError
        ``eps`` not a real number, ``ell`` not an integer, ``mechanism`` not a string.
    ParameterError
        ``eps <= 0``, NaN or infinite; ``ell < 1``; unknown ``mechanism``.

    Notes
    -----
    UE (Lemma 2): eps1 = ln((e^eps + 1) / 2), eps2 = eps. The displayed Eq. (20) is
    not legible in the paper's available text; the text says the optimum of the family (4) is at
    theta = (e^eps + 1) / 2, where eps1 = ln(theta), and that there "the two values
    in the max of (3) are equal": eps2 = eps1 + ln(2 / (1 + e^-eps2)) = eps, which
    gives this pair.

    GRR (Eq. 21): eps2 = ln(ell (e^eps - 1) + 1), eps1 = ln((e^eps2 + 1) / 2).
    Eq. (21) is not in the paper's available text at all; this is reconstructed by the same
    argument on Theorem 3: the optimum sits at the kink of the min in (6),
    e^eps1 = (1 + e^eps2) / 2; with lambda = (ell - 1)(1 + e^eps2) / 2 Theorem 3
    then reads e^eps = (ell - 1 + e^eps2) / ell. At ell = 1 it is the UE split, as
    Theorem 3 is Theorem 2 there. Both are checked against :func:`pckv_epsilon`
    (tests/composite/test_pckv_protocol.py), and the UE split against the
    explicit channel's ``ldp_epsilon``. O(1), computed in log space.

    Examples
    --------
    >>> import math, qifldp as q
    >>> eps1, eps2 = q.pckv_allocation(1.0)
    >>> round(eps1, 6), eps2  # ln((e + 1) / 2), eps
    (0.620115, 1.0)
    >>> math.isclose(q.pckv_epsilon(eps1, eps2), 1.0)
    True
    >>> eps1, eps2 = q.pckv_allocation(1.0, ell=2, mechanism="grr")
    >>> round(eps2, 6)  # ln(2 (e - 1) + 1)
    1.48988
    """
    eps = check_positive_eps(eps, "eps")
    ell = check_int("ell", ell, minimum=1)
    mechanism = _check_mechanism(mechanism)
    eps2 = eps if mechanism == "ue" else _log_padded_budget(eps, ell)
    eps1 = float(np.logaddexp(0.0, eps2)) - math.log(2.0)  # ln((e^eps2 + 1) / 2)
    return eps1, eps2


def _log_padded_budget(eps: float, ell: int) -> float:
    """ln(ell (e^eps - 1) + 1) = ln(ell) + eps + ln(1 - e^-eps + e^-eps / ell), in log space."""
    return math.log(ell) + eps + math.log1p(-math.exp(-eps) * (1.0 - 1.0 / ell))


def _check_a_for(mechanism: str, a: Any) -> float | None:
    a = check_ue_a(a)
    if a is not None and mechanism != "ue":
        msg = "a applies to PCKV-UE only (mechanism='ue'); PCKV-GRR's a is set by eps1"
        raise ParameterError(msg)
    return a


def _key_probabilities(
    mechanism: str, d: int, ell: int, eps1: float, a: float | None = None
) -> tuple[float, float]:
    """(a, b): the probability that a position/key is reported given it is / is not the input."""
    if mechanism == "ue":
        if a is None:  # OUE (Eq. 19), as in pckv_ue; e^-eps1 / (1 + e^-eps1) beyond overflow
            b = 1.0 / (math.exp(eps1) + 1.0) if eps1 < 700.0 else math.exp(-eps1)
            return 0.5, b
        return ue_key_probabilities(eps1, a)  # general a, b = a / (a + (1 - a) e^eps1)
    n = d + ell
    a = 1.0 / (1.0 + (n - 1) * math.exp(-eps1))  # e^eps1 / (e^eps1 + d' - 1)
    return a, (1.0 - a) / (n - 1)


def _coefficients(a: float, b: float, p: float) -> tuple[float, float]:
    """(g, h) of MSE_m ~ mu (g + h m^2): g = b / (a^2 (2p - 1)^2), h = b (1 - b) / (a - b)^2."""
    g_denominator = (a * (2.0 * p - 1.0)) ** 2
    h_denominator = (a - b) ** 2
    g = b / g_denominator if g_denominator > 0.0 else math.inf  # a or 2p - 1 underflowed
    h = b * (1.0 - b) / h_denominator if h_denominator > 0.0 else math.inf
    return g, h


@fill_doc(DOCS)
class PCKV(KeyValueFrozen):
    """PCKV, frozen: allocation, client (Algorithms 1-3) and server (Algorithm 4).

    {parameters}
    ell : int, optional
        Padding length, ``ell >= 1`` (default 1); dummy keys are d+1..d+ell.
    mechanism : {"ue", "grr"}, optional
        PCKV-UE (default) or PCKV-GRR.
    eps1, eps2 : float, optional
        Key and value budgets, both or neither, each ``> 0``, with
        ``pckv_epsilon(eps1, eps2, ell, mechanism) <= eps``. Default: the optimised
        split :func:`pckv_allocation`.
    a : float, optional
        PCKV-UE only: the probability that the sampled key's own position is
        reported, in (0, 1), with b = a / (a + (1 - a) e^eps1) (Algorithm 2 with a
        general a). Default None: the paper's a = 1/2 (OUE, Eq. 19).

    Raises
    ------
    InputTypeError
        Non-integer ``d``/``ell``, non-real budgets, ``mechanism`` not a string.
    ParameterError
        ``d < 1``, ``ell < 1``, budgets not > 0 or not finite, unknown ``mechanism``,
        only one of eps1/eps2 given, or a pair whose composition exceeds ``eps``;
        ``a`` outside (0, 1) or given with ``mechanism="grr"``.

    Attributes
    ----------
    d, eps, ell, mechanism, eps1, eps2
        As given (eps1, eps2 filled in by the allocation).
    params : dict
        ``a``, ``b`` (key perturbation: a position/key is reported w.p. a when it is
        the sampled key, b otherwise) and ``p`` (the value is kept w.p. p).

    Notes
    -----
    PCKV-UE uses a = 1/2, b = 1/(e^eps1 + 1) (or a general a, b with
    eps1 = ln(a (1 - b) / (b (1 - a)))); PCKV-GRR a = e^eps1 / (e^eps1 + d' - 1),
    b = (1 - a) / (d' - 1) over the d' = d + ell keys; p = e^eps2 / (e^eps2 + 1).
    The budget of a general a is that of a = 1/2 at the same eps1 (a cancels from
    the likelihood ratios, see :func:`qifldp.pckv_ue`), so the allocation and the
    check against ``eps`` are the same for every a; :meth:`true_epsilon` gives the
    exact budget.
    Assigning an attribute raises ``AttributeError``; equal (and hashing alike) when
    all parameters are equal.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.PCKV(3, 1.0)
    >>> P
    PCKV(d=3, eps=1.0, ell=1, mechanism='ue', eps1=0.6201145069582775, eps2=1.0)
    >>> P.params["a"], round(P.params["b"], 6)  # 1/2; b = 1 / (e^eps1 + 1) = 2 / (e + 3)
    (0.5, 0.349755)
    >>> P.eps2  # the UE allocation gives eps2 = eps
    1.0
    >>> P = q.PCKV(4, 1.0, ell=2, eps1=0.5, eps2=0.4)
    >>> P.ell, P.mechanism, P.eps1, P.eps2, q.PCKV(4, 1.0, mechanism="grr").mechanism
    (2, 'ue', 0.5, 0.4, 'grr')
    """

    __slots__ = ("_d", "_eps", "_ell", "_mechanism", "_eps1", "_eps2", "_a", "_params")
    _d: int
    _eps: float
    _ell: int
    _mechanism: str
    _eps1: float
    _eps2: float
    _a: float | None
    _params: dict[str, float]

    def __init__(
        self,
        d: int,
        eps: float,
        ell: int = 1,
        mechanism: str = "ue",
        eps1: float | None = None,
        eps2: float | None = None,
        a: float | None = None,
    ) -> None:
        d = check_int("d", d, minimum=1)
        eps = check_positive_eps(eps, "eps")
        ell = check_int("ell", ell, minimum=1)
        mechanism = _check_mechanism(mechanism)
        a = _check_a_for(mechanism, a)
        if (eps1 is None) != (eps2 is None):
            msg = "eps1 and eps2 must be given together (or neither, for pckv_allocation)"
            raise ParameterError(msg)
        if eps1 is None or eps2 is None:
            eps1, eps2 = pckv_allocation(eps, ell, mechanism)
        else:
            eps1 = check_positive_eps(eps1, "eps1")
            eps2 = check_positive_eps(eps2, "eps2")
            total = pckv_epsilon(eps1, eps2, ell, mechanism)
            if total > eps * (1.0 + _COMPOSITION_SLACK):
                msg = (
                    f"eps1 = {eps1} and eps2 = {eps2} compose to pckv_epsilon = {total} "
                    f"> eps = {eps} (Theorem {2 if mechanism == 'ue' else 3}); "
                    "they must compose to at most eps"
                )
                raise ParameterError(msg)
        key_a, b = _key_probabilities(mechanism, d, ell, eps1, a)
        p = 1.0 / (1.0 + math.exp(-eps2))
        self._set(
            _d=d,
            _eps=eps,
            _ell=ell,
            _mechanism=mechanism,
            _eps1=float(eps1),
            _eps2=float(eps2),
            _a=a,
            _params={"a": key_a, "b": b, "p": p},
        )

    # ------------------------------------------------------------------ frozen object
    _fields = ("d", "eps", "ell", "mechanism", "eps1", "eps2", "a")
    ell = ReadOnly[int]("The padding length (dummy keys d+1..d+ell).")
    mechanism = ReadOnly[str]('``"ue"`` or ``"grr"``.')
    eps1 = ReadOnly[float]("The key budget.")
    eps2 = ReadOnly[float]("The value budget.")
    params = ReadOnly[dict[str, float]](
        "``a``, ``b`` (key perturbation) and ``p`` (value kept), a new dict.", read=dict
    )

    # ------------------------------------------------------------------ channel
    def channel(self) -> Channel:
        """The explicit channel: :func:`qifldp.pckv_ue` or :func:`qifldp.pckv_grr` at (eps1, eps2).

        Raises
        ------
        SizeError
            As the channel constructors (small d and ell only).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(2, 1.0)
        >>> P.channel() == q.pckv_ue(2, P.eps1, P.eps2)
        True
        """
        if self._mechanism == "ue":
            return pckv_ue(self._d, self._eps1, self._eps2, self._ell, a=self._a)
        return pckv_grr(self._d, self._eps1, self._eps2, self._ell)

    def true_epsilon(self) -> float:
        """The exact budget of this configuration: ``ldp_epsilon(self.channel())`` in closed form.

        Returns
        -------
        float
            PCKV-GRR: Theorem 3 (Eq. 6, as reconstructed in :func:`qifldp.pckv_epsilon`),
            which is the explicit channel's epsilon for every d. PCKV-UE, any a: with
            m = min(d, ell), E = e^eps1, eps = ln((m 2p E + ell - m) /
            min(ell, m 2(1 - p) E + ell - m)): Theorem 2 when d >= ell, smaller when
            d < ell; independent of a (see :func:`qifldp.pckv_ue`). At most ``eps``.

        Notes
        -----
        O(1) and valid at any d, where the channel itself is too large to build.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(1, 1.0, ell=2, eps1=0.5, eps2=0.6, a=0.8)
        >>> round(P.true_epsilon(), 6) == round(q.ldp_epsilon(P.channel()), 6)
        True
        """
        if self._mechanism == "ue":
            return ue_exact_epsilon(self._d, self._eps1, self._eps2, self._ell)
        return pckv_epsilon(self._eps1, self._eps2, self._ell, "grr")

    # ------------------------------------------------------------------ client
    _REFUSE_STRINGS = False  # a str goes on to the users' check

    def _sample(
        self, lengths: np.ndarray, keys: np.ndarray, values: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """PCKV-UE: int8 reports of shape (n, d + ell), entries in {1, -1, 0} (the outputs of
        :func:`qifldp.pckv_ue`); PCKV-GRR: int64 rows (key, value), key in 1..d+ell, value ±1.

        Algorithm 1: a user with set S picks one of max(|S|, ell) slots uniformly; a slot
        below |S| is one of S's pairs (so a real pair w.p. eta = |S| / max(|S|, ell),
        uniformly among them), any other a dummy key uniform in d+1..d+ell with value
        0. The value v* is discretised to 1 w.p. (1 + v*) / 2, else -1 (E[v] = v*).
        Algorithm 2 (UE): the sampled key's position reports w.p. a, with the value kept
        w.p. p, flipped otherwise; every other position reports w.p. b with a uniform
        value in {1, -1}. Algorithm 3 (GRR): the key is kept w.p. a with the value kept
        w.p. p; otherwise it moves to one of the d' - 1 other keys uniformly with a
        uniform value. Vectorised over users: O(n (d + ell)) for UE, O(n) for GRR,
        plus one pass over the dicts.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(3, 1.0, mechanism="grr")
        >>> P.sample([{1: 0.5}, {2: -1.0, 3: 0.0}, {}], rng=0).shape
        (3, 2)
        >>> q.PCKV(3, 1.0).sample([{1: 0.5}], rng=0).shape
        (1, 4)
        """
        n, d, ell = lengths.size, self._d, self._ell
        offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        slots = np.maximum(lengths, ell)
        slot = np.minimum((rng.random(n) * slots).astype(np.int64), slots - 1)
        real = slot < lengths
        index = np.where(real, offsets + slot, 0)
        dummy_key = d + 1 + rng.integers(0, ell, size=n)
        if keys.size:
            key = np.where(real, keys[np.minimum(index, keys.size - 1)], dummy_key)
            v_star = np.where(real, values[np.minimum(index, keys.size - 1)], 0.0)
        else:
            key, v_star = dummy_key, np.zeros(n)
        v = np.where(rng.random(n) < (1.0 + v_star) / 2.0, 1, -1)
        a, b, p = self._params["a"], self._params["b"], self._params["p"]
        flipped = np.where(rng.random(n) < p, v, -v)
        if self._mechanism == "ue":
            # per position one uniform u: a fake 1 if u < b/2, a fake -1 if b/2 <= u < b
            out = np.empty((n, d + ell), dtype=np.int8)
            for start, stop in row_chunks(n, d + ell):
                u = rng.random((stop - start, d + ell))
                out[start:stop] = (u < b / 2).astype(np.int8) * 2 - (u < b).astype(np.int8)
            own = np.where(rng.random(n) < a, flipped, 0).astype(np.int8)
            out[np.arange(n), key - 1] = own
            return out
        width = d + ell
        keep = rng.random(n) < a
        r = rng.integers(0, width - 1, size=n) + 1  # 1..d'-1
        moved = r + (r >= key)
        uniform = np.where(rng.random(n) < 0.5, 1, -1)
        return np.column_stack((np.where(keep, key, moved), np.where(keep, flipped, uniform)))

    # ------------------------------------------------------------------ server
    def _counts(self, reports: Any) -> tuple[int, np.ndarray, np.ndarray]:
        """(n, n1, n2): the number of reports supporting (k, 1) and (k, -1), k = 1..d."""
        d, width = self._d, self._d + self._ell
        R = check_reports_array(reports, width if self._mechanism == "ue" else 2)
        n = R.shape[0]
        if self._mechanism == "ue":
            if R.min() < -1 or R.max() > 1:  # integer-valued: so in {1, -1, 0}
                msg = "reports (PCKV-UE) must have entries in {1, -1, 0}"
                raise ParameterError(msg)
            return n, (R[:, :d] == 1).sum(axis=0), (R[:, :d] == -1).sum(axis=0)
        R = R.astype(np.int64)
        k, v = R[:, 0], R[:, 1]
        if not (np.all((k >= 1) & (k <= width)) and np.all((v == 1) | (v == -1))):
            msg = f"reports (PCKV-GRR) must be rows (key in 1..{width}, value in {{1, -1}})"
            raise ParameterError(msg)
        n1 = np.bincount(k[v == 1], minlength=width + 1)[1 : d + 1]
        n2 = np.bincount(k[v == -1], minlength=width + 1)[1 : d + 1]
        return n, n1, n2

    def _estimate(self, reports: Any, correct: bool) -> tuple[np.ndarray, np.ndarray]:
        """Algorithm 4. Corrected: frequencies in [1/n, 1], means in [-1, 1]; uncorrected: the
        baseline estimators (7) and (8), unbiased for the frequency when no user holds more
        than ell pairs, but possibly outside [0, 1] (or infinite for a mean).

        Aggregation: n1, n2 = the number of reports supporting (k, 1) and (k, -1)
        (UE: y[k] = 1 / -1; GRR: y = (k, 1) / (k, -1)). Eq. (7):
        f_k = ell ((n1 + n2) / n - b) / (a - b). Eq. (8):
        m_k = ell (n1 - n2) / (n a (2p - 1) f_k). Correction: f_k is clipped to
        [1/n, 1]; the counts of sampled pairs (k, 1), (k, -1) are estimated by Lemma 1,
        (n1_hat, n2_hat) = A^-1 (n1 - n b / 2, n2 - n b / 2) with
        A = [[a p - b/2, a (1 - p) - b/2], [a (1 - p) - b/2, a p - b/2]], each clipped
        to [0, N] with N = n f_k / ell, and m_k = (n1_hat - n2_hat) / N. Eqs. (7)-(8)
        and Lemma 1 are not legible in the paper's available text: they are reconstructed from the
        text (E[n1 + n2] = n (a f_k / ell + b (1 - f_k / ell)), the calibrated sum
        (n1 - n2) / (2p - 1), the real-key count n f_k a / ell, the bound [0, n f_k / ell]),
        and the frequency's unbiasedness is checked by Monte Carlo. O(n (d + ell)).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(2, 50.0, mechanism="grr")  # almost no noise
        >>> f, m = P.estimate([[1, 1], [1, -1], [2, 1], [1, 1]])
        >>> f.round(6).tolist(), m.round(6).tolist()
        ([0.75, 0.25], [0.333333, 1.0])
        """
        n, n1, n2 = self._counts(reports)
        a, b, p = self._params["a"], self._params["b"], self._params["p"]
        ell = self._ell
        n1f, n2f = n1.astype(np.float64), n2.astype(np.float64)
        freq = ell * ((n1f + n2f) / n - b) / (a - b)
        if not correct:
            with np.errstate(divide="ignore", invalid="ignore"):
                means = ell * (n1f - n2f) / (n * a * (2.0 * p - 1.0) * freq)
            return freq, means
        freq = np.clip(freq, 1.0 / n, 1.0)
        total = n * freq / ell
        same, other = a * p - b / 2.0, a * (1.0 - p) - b / 2.0
        det = same * same - other * other  # = a (2p - 1) (a - b) > 0
        y1, y2 = n1f - n * b / 2.0, n2f - n * b / 2.0
        c1 = np.clip((same * y1 - other * y2) / det, 0.0, total)
        c2 = np.clip((same * y2 - other * y1) / det, 0.0, total)
        return freq, np.clip((c1 - c2) / total, -1.0, 1.0)

    # ------------------------------------------------------------------ moments (Theorem 4)
    def _moment_inputs(self, n: Any, f: Any, m: Any) -> tuple[int, np.ndarray, np.ndarray, bool]:
        n = check_int("n", n, minimum=1)
        f_arr = as_real_array("f", f)
        m_arr = as_real_array("m", m)
        if np.any(f_arr <= 0.0) or np.any(f_arr > 1.0):
            msg = "f (the true frequencies) must lie in (0, 1]: an absent key has no mean"
            raise ParameterError(msg)
        if np.any(np.abs(m_arr) > 1.0):
            msg = "m (the true value means) must lie in [-1, 1]"
            raise ParameterError(msg)
        try:
            f_arr, m_arr = np.broadcast_arrays(f_arr, m_arr)
        except ValueError:
            msg = f"f and m must have broadcastable shapes, got {f_arr.shape} and {m_arr.shape}"
            raise ParameterError(msg) from None
        return n, f_arr, m_arr, f_arr.ndim == 0

    def _delta(self, f: np.ndarray) -> np.ndarray:
        a, b = self._params["a"], self._params["b"]
        return (a - b) * f / self._ell  # delta = (a - b) f / ell, the real-key signal

    def bias(self, n: int, f: Any, m: Any) -> tuple[Any, Any]:
        """Bias of the uncorrected estimators (7), (8): Theorem 4, Eqs. (9)-(10).

        Parameters
        ----------
        n : int
            Number of users, ``n >= 1``.
        f : float or array_like
            True frequency of a key, in (0, 1].
        m : float or array_like
            True mean of its values, in [-1, 1] (broadcast against ``f``).

        Returns
        -------
        (bias_f, bias_m)
            Floats for scalar ``f``, ``m``, else arrays: E[f_hat] - f = 0 and
            E[m_hat] - m ~ (1 - b - delta) b m / (n delta^2), delta = (a - b) f / ell.

        Raises
        ------
        InputTypeError
            Non-integer ``n``, non-real ``f`` / ``m``.
        ParameterError
            ``n < 1``, ``f`` outside (0, 1], ``m`` outside [-1, 1], NaN, shapes that
            do not broadcast.

        Notes
        -----
        Model (Theorem 4's condition and the text's): users i.i.d., each holding at
        most ell pairs; a user's sampled pair is (k, 1) w.p. f (1 + m) / (2 ell) and
        (k, -1) w.p. f (1 - m) / (2 ell), so (n1, n2) are multinomial. The frequency
        estimator is exactly unbiased; the mean bias is the second-order delta method
        of the ratio (8), which reproduces the text's
        E[m_hat] - m = (1 - b - delta) b m / (n delta^2) (Sec. 5.3, "Pros and Cons").
        The displayed Eqs. (9)-(12) are not legible in the paper's available text; this is
        reconstructed from the definitions and checked by Monte Carlo
        (tests/composite/test_pckv_moments.py).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(10, 2.0, ell=2)
        >>> bf, bm = P.bias(10_000, 0.3, 0.5)
        >>> bf, round(bm, 6)  # delta = (a - b) 0.3 / 2, b = 2 / (e^2 + 3)
        (0.0, 0.003445)
        """
        n, f, m, scalar = self._moment_inputs(n, f, m)
        b = self._params["b"]
        delta = self._delta(f)
        bias_m = (1.0 - b - delta) * b * m / (n * delta * delta)
        bias_f = np.zeros_like(bias_m)
        return (0.0, float(bias_m)) if scalar else (bias_f, bias_m)

    def variance(self, n: int, f: Any, m: Any) -> tuple[Any, Any]:
        """Variance of the uncorrected frequency and mean estimators (Theorem 4, Eqs. 9, 11).

        Parameters
        ----------
        n, f, m
            As in :meth:`bias`.

        Returns
        -------
        (var_f, var_m)
            Floats for scalar ``f``, ``m``, else arrays:
            Var[f_hat] = ell^2 (b + delta)(1 - b - delta) / (n (a - b)^2) (exact) and
            Var[m_hat] ~ (c^2 (b + delta) + m^2 (b (1 - b) - delta)) / (n delta^2)
            (delta method), with delta = (a - b) f / ell, c = (a - b) / (a (2p - 1)).

        Raises
        ------
        InputTypeError, ParameterError
            As :meth:`bias`.

        Notes
        -----
        The model of :meth:`bias`. Per user, position/key k reports 1, -1 with
        probabilities q1, q2, q1 + q2 = b + delta, q1 - q2 = a (2p - 1) f m / ell. With
        X = n1 - n2 and Y = n1 + n2 - n b: Var Y = n (b + delta)(1 - b - delta),
        Var X = n (b + delta - (q1 - q2)^2), Cov(X, Y) = n (q1 - q2)(1 - b - delta);
        f_hat = ell Y / (n (a - b)) and m_hat = c X / Y, whose first-order delta method
        gives the two formulas. Eqs. (9) and (11) are not legible in the paper's available text:
        reconstructed from these definitions, and checked by Monte Carlo in
        chi-square bands (tests/composite/test_pckv_moments.py). For a fixed
        (non-random) population Var[f_hat] is smaller by (f - f^2) / n.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(10, 2.0, ell=2)
        >>> vf, vm = P.variance(10_000, 0.3, 0.5)
        >>> round(vf, 7), round(vm, 6)
        (0.0007686, 0.008599)
        """
        n, f, m, scalar = self._moment_inputs(n, f, m)
        a, b, p = self._params["a"], self._params["b"], self._params["p"]
        ell = self._ell
        delta = self._delta(f)
        big_q = b + delta
        var_f = ell * ell * big_q * (1.0 - big_q) / (n * (a - b) ** 2)
        c = (a - b) / (a * (2.0 * p - 1.0))
        var_m = (c * c * big_q + m * m * (b * (1.0 - b) - delta)) / (n * delta * delta)
        return (float(var_f), float(var_m)) if scalar else (var_f, var_m)

    def mse(self, n: int, f: Any, m: Any, approximate: bool = False) -> tuple[Any, Any]:
        """Mean square errors of the uncorrected estimators: variance + bias^2, or Eqs. (16)-(18).

        Parameters
        ----------
        n, f, m
            As in :meth:`bias`.
        approximate : bool, optional
            False (default): :meth:`variance` + :meth:`bias` squared. True: the
            paper's approximation for delta << 1, Eqs. (16)-(18):
            MSE_f ~ (ell^2 / n) h and MSE_m ~ mu (g + h m^2) with mu = ell^2 / (n f^2),
            g = b / (a^2 (2p - 1)^2), h = b (1 - b) / (a - b)^2.

        Returns
        -------
        (mse_f, mse_m)
            Floats for scalar ``f``, ``m``, else arrays.

        Raises
        ------
        InputTypeError, ParameterError
            As :meth:`bias`; ``approximate`` not a bool.

        Notes
        -----
        Eqs. (16)-(18) are not legible in the paper's available text; reconstructed as the
        delta -> 0 limit of :meth:`variance` (the bias^2 terms are O(1/n^2)), which
        matches what the text says of them: mu << 1 for large n, MSE_f / MSE_m of
        order f^2 (the text's (ell^2/n) / mu = f^2), h depending on eps1 only and
        decreasing in it, MSE_m -> inf as eps2 -> 0. See :func:`pckv_mse_coefficients`.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PCKV(10, 2.0, ell=2)
        >>> [round(x, 6) for x in P.mse(10_000, 0.3, 0.5, approximate=True)]
        [0.000658, 0.007727]
        """
        approximate = check_bool("approximate", approximate)
        if not approximate:
            (bf, bm), (vf, vm) = self.bias(n, f, m), self.variance(n, f, m)
            return vf + bf * bf, vm + bm * bm
        n, f_arr, m_arr, scalar = self._moment_inputs(n, f, m)
        g, h = _coefficients(self._params["a"], self._params["b"], self._params["p"])
        ell = self._ell
        mse_f = np.full(f_arr.shape, ell * ell * h / n)
        mse_m = ell * ell / (n * f_arr * f_arr) * (g + h * m_arr * m_arr)
        return (float(mse_f), float(mse_m)) if scalar else (mse_f, mse_m)


#: The largest value budget the numeric allocation considers (p = 1 - 2e-22): for
#: PCKV-GRR with ell >= 2 Theorem 3 stays finite as eps2 -> inf (at fixed eps1 it
#: increases to ln(1 + 2 e^eps1 / (ell - 1))), so a budget may admit any eps2.
EPS2_CAP = 50.0


def _check_d_for(mechanism: str, d: Any) -> int | None:
    if d is None:
        if mechanism == "grr":
            msg = "d (the number of keys) is required for mechanism='grr': a, b depend on d + ell"
            raise ParameterError(msg)
        return None
    return check_int("d", d, minimum=1)


def pckv_mse_coefficients(
    eps1: float,
    eps2: float,
    ell: int = 1,
    mechanism: str = "ue",
    d: int | None = None,
    a: float | None = None,
) -> tuple[float, float]:
    """The coefficients (g, h) of PCKV's MSE approximation MSE_m ~ mu (g + h m^2) (Eqs. 16-18).

    Parameters
    ----------
    eps1, eps2 : float
        Key and value budgets, finite and ``> 0``.
    ell : int, optional
        Padding length, ``ell >= 1`` (default 1); enters through d' = d + ell (GRR).
    mechanism : {"ue", "grr"}, optional
        PCKV-UE (default) or PCKV-GRR.
    d : int, optional
        Number of keys; required for ``"grr"`` (a = e^eps1 / (e^eps1 + d + ell - 1)),
        ignored for ``"ue"``.
    a : float, optional
        PCKV-UE's a in (0, 1) (default None: 1/2).

    Returns
    -------
    (float, float)
        g = b / (a^2 (2p - 1)^2) and h = b (1 - b) / (a - b)^2, p = e^eps2 / (e^eps2 + 1):
        MSE_f ~ (ell^2 / n) h and MSE_m ~ mu (g + h m^2), mu = ell^2 / (n f^2).

    Raises
    ------
    InputTypeError
        Non-real budgets, non-integer ``ell``/``d``, ``mechanism`` not a string.
    ParameterError
        Budgets not > 0 or not finite, ``ell < 1``, ``d < 1``, ``d`` missing for GRR,
        ``a`` outside (0, 1) or given for GRR, unknown ``mechanism``.

    Notes
    -----
    Eqs. (16)-(18) are not legible in the paper's available text; reconstructed as the
    delta = (a - b) f / ell -> 0 limit of :meth:`PCKV.variance` (see :meth:`PCKV.mse`).
    These are the g, h of the paper's Fig. 4. O(1).

    Examples
    --------
    >>> import math, qifldp as q
    >>> g, h = q.pckv_mse_coefficients(math.log(3), math.log(3))  # b = 1/4, p = 3/4
    >>> round(g, 12), round(h, 12)  # (1/4)/((1/4)(1/4)), (3/16)/(1/16)
    (4.0, 3.0)
    """
    eps1 = check_positive_eps(eps1, "eps1")
    eps2 = check_positive_eps(eps2, "eps2")
    ell = check_int("ell", ell, minimum=1)
    mechanism = _check_mechanism(mechanism)
    d_checked = _check_d_for(mechanism, d)
    a = _check_a_for(mechanism, a)
    key_a, b = _key_probabilities(mechanism, d_checked or 1, ell, eps1, a)
    return _coefficients(key_a, b, 1.0 / (1.0 + math.exp(-eps2)))


def _max_eps2(eps: float, eps1: float, ell: int, mechanism: str) -> float:
    """The largest eps2 with pckv_epsilon(eps1, eps2, ell, mechanism) <= eps (GRR: <= EPS2_CAP)."""
    if mechanism == "ue":
        lo = float(np.logaddexp(0.0, eps)) - math.log(2.0)  # ln((e^eps + 1) / 2)
        if eps1 <= lo:
            return eps
        return -math.log(2.0 * math.exp(eps1 - eps) - 1.0)  # Eq. (4): eps2 at theta = e^eps1
    from scipy.optimize import brentq

    def excess(eps2: float) -> float:
        return pckv_epsilon(eps1, eps2, ell, "grr") - eps

    if excess(EPS2_CAP) <= 0.0:
        return EPS2_CAP
    if excess(0.0) >= 0.0:  # eps1 at (or, by rounding, beyond) eps1_max: no value budget
        return 0.0
    return float(brentq(excess, 0.0, EPS2_CAP, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def _eps1_max(eps: float, ell: int, mechanism: str) -> float:
    """The key budget at eps2 = 0: eps (UE), ln(ell (e^eps - 1) + 1) (GRR, Theorem 3)."""
    if mechanism == "ue":
        return eps
    return _log_padded_budget(eps, ell)


def pckv_numeric_allocation(
    eps: float,
    ell: int = 1,
    mechanism: str = "ue",
    m: float = 0.0,
    d: int | None = None,
) -> tuple[float, float]:
    """The split (eps1, eps2) minimising the MSE approximation g + h m^2, found numerically.

    Parameters
    ----------
    eps : float
        Total budget, finite and ``> 0``.
    ell : int, optional
        Padding length, ``ell >= 1`` (default 1).
    mechanism : {"ue", "grr"}, optional
        PCKV-UE (default, a = 1/2) or PCKV-GRR.
    m : float, optional
        The value mean the MSE is taken at, in [-1, 1] (default 0: the g term only).
    d : int, optional
        Number of keys; required for ``"grr"``.

    Returns
    -------
    (float, float)
        ``(eps1, eps2)``: eps1 minimises g + h m^2 (:func:`pckv_mse_coefficients`) with
        eps2 the largest value budget the composition (Theorem 2 / Theorem 3) allows
        at that eps1 within eps (capped at :data:`EPS2_CAP`).

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`pckv_mse_coefficients`; ``m`` outside [-1, 1].

    Notes
    -----
    The frontier eps2(eps1) is closed form for UE (Eq. 4 with theta = e^eps1) and a
    root of Theorem 3 (scipy ``brentq``) for GRR. The minimiser: the objective on a
    grid of 200 key budgets in (0, eps1_max], eps1_max the key budget at eps2 = 0,
    then ``scipy.optimize.minimize_scalar`` (bounded) between the grid neighbours of
    the best point. This is the check of :func:`pckv_allocation` (Lemma 2 / Eq. 21),
    not a replacement: the paper's closed forms assume the m = 0 term dominates.
    About 10 ms (UE) to 1 s (GRR, one root of Theorem 3 per evaluation).

    Examples
    --------
    >>> import numpy as np, qifldp as q
    >>> np.allclose(q.pckv_numeric_allocation(1.0), q.pckv_allocation(1.0), atol=1e-6)
    True
    """
    from scipy.optimize import minimize_scalar

    eps = check_positive_eps(eps, "eps")
    ell = check_int("ell", ell, minimum=1)
    mechanism = _check_mechanism(mechanism)
    d_checked = _check_d_for(mechanism, d)
    m = check_real("m", m, minimum=-1.0, maximum=1.0)
    top = _eps1_max(eps, ell, mechanism)
    # Points of the frontier: eps2 = 0 (eps1 = top) gives g = inf, and eps1 -> 0 h = inf.

    def objective(eps1: float) -> float:
        eps2 = _max_eps2(eps, eps1, ell, mechanism)
        if eps2 <= 0.0:
            return math.inf
        key_a, b = _key_probabilities(mechanism, d_checked or 1, ell, eps1)
        g, h = _coefficients(key_a, b, 1.0 / (1.0 + math.exp(-eps2)))
        return g + h * m * m

    grid = top * (np.arange(1, 201) / 200.0)
    values = np.array([objective(float(x)) for x in grid])
    best = int(np.argmin(values))
    lo = grid[best - 1] if best > 0 else grid[0] * 1e-6
    hi = grid[best + 1] if best + 1 < grid.size else grid[-1]
    result = minimize_scalar(objective, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    eps1 = float(result.x) if result.fun <= values[best] else float(grid[best])
    eps1 = _golden_polish(objective, eps1, max(lo, eps1 - 1e-6), min(hi, eps1 + 1e-6))
    return eps1, _max_eps2(eps, eps1, ell, mechanism)


def _golden_polish(objective: Any, x: float, lo: float, hi: float) -> float:
    """Golden-section search on [lo, hi] down to float resolution, keeping the best point.

    ``minimize_scalar``'s bounded Brent stops at a relative x-tolerance of about 1.5e-8;
    at a corner of the frontier (where the optimum often sits) the objective's slope is
    steep (about e^eps for PCKV-UE), so the last digits are taken here.
    """
    best_x, best_f = x, objective(x)
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fc, fd = objective(c), objective(d)
    for _ in range(200):
        if hi - lo <= 4 * np.finfo(float).eps * max(1.0, abs(lo)):
            break
        if fc <= fd:
            hi, d, fd = d, c, fc
            c = hi - ratio * (hi - lo)
            fc = objective(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + ratio * (hi - lo)
            fd = objective(d)
        for xi, fi in ((c, fc), (d, fd)):
            if fi < best_f:
                best_x, best_f = xi, fi
    return float(best_x)


def pckv_allocation_curves(eps: Any) -> dict[str, np.ndarray]:
    """The data of PCKV's Fig. 4: g and h of PCKV-UE under three budget allocations.

    Parameters
    ----------
    eps : array_like
        Total budgets, each finite and ``> 0``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``"eps"`` (the budgets, flattened) and, for each allocation, its eps1, eps2,
        g and h: ``"eps1_optimized"``, ``"eps2_optimized"``, ``"g_optimized"``,
        ``"h_optimized"`` (Lemma 2, :func:`pckv_allocation`), the same with
        ``_naive`` (PrivKVM's eps1 = eps2 = eps / 2) and ``_nonoptimized`` (eps2 =
        eps / 2, eps1 = eps - ln(2 / (1 + e^(-eps/2))) by Theorem 2).

    Raises
    ------
    InputTypeError
        ``eps`` not real numbers.
    ParameterError
        A budget not > 0, NaN or infinite; an empty ``eps``.

    Notes
    -----
    g, h as in :func:`pckv_mse_coefficients` (a = 1/2). The text says of Fig. 4 that the
    optimized allocation has a much smaller g than the other two and a slightly
    larger h than the non-optimized one; tests/composite/test_pckv_allocation.py
    checks both on the returned data. O(len(eps)).

    Examples
    --------
    >>> import qifldp as q
    >>> c = q.pckv_allocation_curves([0.5, 1.0, 2.0])
    >>> bool((c["g_optimized"] < c["g_nonoptimized"]).all())
    True
    """
    eps_arr = as_real_array("eps", eps).ravel()
    if eps_arr.size == 0:
        msg = "eps must hold at least one budget, got an empty array"
        raise ParameterError(msg)
    if np.any(eps_arr <= 0.0):
        msg = f"eps must be > 0 (a zero budget carries no information), got {eps_arr.min()}"
        raise ParameterError(msg)
    out: dict[str, list[float]] = {}
    for e in eps_arr.tolist():
        splits = {
            "optimized": pckv_allocation(e),
            "naive": (e / 2, e / 2),
            "nonoptimized": (e - math.log(2.0) + float(np.logaddexp(0.0, -e / 2)), e / 2),
        }
        for name, (eps1, eps2) in splits.items():
            g, h = pckv_mse_coefficients(eps1, eps2)
            for key, value in (("eps1", eps1), ("eps2", eps2), ("g", g), ("h", h)):
                out.setdefault(f"{key}_{name}", []).append(value)
    return {"eps": eps_arr, **{key: np.array(v) for key, v in out.items()}}


def plot_pckv_allocation_curves(eps: Any = None, axes: Any = None) -> Any:
    """Draw PCKV's Fig. 4: g and h of PCKV-UE against eps under the three allocations.

    Parameters
    ----------
    eps : array_like, optional
        Total budgets, each ``> 0`` (default: 60 points in [0.1, 6]).
    axes : sequence of two matplotlib.axes.Axes, optional
        Where to draw g and h; a new figure with two panels when None.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes
        The two panels (g, h), log-scaled in y.

    Raises
    ------
    InputTypeError, ParameterError
        As :func:`pckv_allocation_curves`; ``axes`` not two Axes.

    Notes
    -----
    The data are those of :func:`pckv_allocation_curves` (exact closed forms, no
    sampled users); the caption says so.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import qifldp as q
    >>> ax_g, ax_h = q.plot_pckv_allocation_curves([0.5, 1.0, 2.0])
    >>> ax_g.get_ylabel(), len(ax_h.get_lines())
    ('g', 3)
    """
    import matplotlib.pyplot as plt

    curves = pckv_allocation_curves(np.linspace(0.1, 6.0, 60) if eps is None else eps)
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 2 or not all(hasattr(ax, "plot") for ax in axes):
        msg = "axes must be two matplotlib Axes (for g and h), or None for a new figure"
        raise InputTypeError(msg)
    styles = {
        "optimized": ("optimized (Lemma 2)", "-"),
        "naive": ("naive eps1 = eps2 = eps/2", "--"),
        "nonoptimized": ("non-optimized eps2 = eps/2", ":"),
    }
    for ax, coefficient in zip(axes, ("g", "h"), strict=True):
        for name, (label, style) in styles.items():
            ax.plot(curves["eps"], curves[f"{coefficient}_{name}"], style, label=label)
        ax.set_yscale("log")
        ax.set_xlabel("eps")
        ax.set_ylabel(coefficient)
    axes[0].legend(fontsize=8)
    axes[0].figure.suptitle(
        "PCKV-UE, MSE_m ~ mu (g + h m^2); exact closed forms, no sampled data", fontsize=9
    )
    return axes
