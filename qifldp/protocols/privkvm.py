"""PrivKVM, the key-value baseline of the PCKV paper: c rounds of virtual-value perturbation.

PrivKVM (Ye, Hu, Meng, Zheng: "PrivKV: Key-Value Data Collection with Local
Differential Privacy", IEEE S&P 2019) is the baseline that PCKV (Gu et al., USENIX
Security 2020) compares against; this module follows the PCKV paper's description
of it (Sec. 4.2 and Sec. 5.2, "No Tight Budget Composition for PrivKVM"). Each user
samples one index j uniformly from the d keys and, for c rounds, reports a
perturbed pair <1, v'> or <0, 0> about key j alone: the key bit with budget eps/2
in round 1 (and 0 afterwards), the value with budget eps/(2c) per round, a user
without key j standing in the virtual value v~ (0 in round 1, the server's
previous estimate of the mean afterwards). Sequential composition gives
eps/2 + c eps/(2c) = eps, and no tighter (Sec. 5.2): :meth:`PrivKVM.channel` lets
``ldp_epsilon`` measure it.

:func:`keyvalue_mse` runs PCKV-UE, PCKV-GRR and PrivKVM on one population and
returns their frequency and mean MSE.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..attributes import ReadOnly
from ..channel import Channel
from ..errors import ParameterError
from ..operators import cascade, parallel
from ..simulation.util import as_rng
from ..validation import check_int, check_real
from .docstrings import fill_doc
from .grr import GRR
from .keyvalue import (
    DOCS,
    KeyValueFrozen,
    check_positive_eps,
    check_reports_array,
    flatten_key_values,
)
from .params import grr_probabilities
from .pckv import PCKV

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PrivKVM", "keyvalue_mse"]

#: PrivKVM's naive split (Theorem 1): the key's share of eps (its round 1); the value
#: gets the rest, spread evenly over the rounds.
_KEY_SHARE: float = 0.5

#: The largest number of rounds accepted (each round is one interaction with every user).
MAX_ROUNDS: int = 1000

#: The largest number of Monte Carlo trials :func:`keyvalue_mse` accepts per call.
MAX_TRIALS: int = 10_000

#: The largest budget :func:`keyvalue_mse` accepts: PCKV's parameters (e^eps1) are
#: computed in floating point, which overflows beyond eps ~ 709.
MAX_MSE_EPS: float = 700.0

#: The largest PCKV-UE report :func:`keyvalue_mse` builds, n (d + ell) cells (int8 each).
MAX_REPORT_CELLS: int = 2**28

#: One user's state for the sampled key (inputs of :meth:`PrivKVM.channel`) and the
#: report alphabet (its outputs): key held with value 1 / -1 (discretised), key not held.
_STATES = ((1, 1), (1, -1), (0, 0))


def _key_counts(keys: np.ndarray, d: int) -> np.ndarray:
    """How often each key 1..d occurs in ``keys`` (ints in 1..d), float64 of shape (d,)."""
    return np.bincount(keys, minlength=d + 1)[1:].astype(np.float64)


@fill_doc(DOCS)
class PrivKVM(KeyValueFrozen):
    """PrivKVM, frozen: c rounds of uniform index sampling and virtual-value perturbation.

    {parameters}
    rounds : int, optional
        Number of rounds c, ``1 <= c <= MAX_ROUNDS`` (default 1).

    Raises
    ------
    InputTypeError
        Non-integer ``d``/``rounds``, non-real ``eps``.
    ParameterError
        ``d < 1``, ``eps`` not > 0 or not finite, ``rounds`` outside 1..MAX_ROUNDS, or
        ``eps / (2 rounds)`` too small for floating point (the value perturbation
        would carry no information).

    Attributes
    ----------
    d, eps, rounds
        As given.
    eps1 : float
        The key budget of round 1, eps / 2 (0 in rounds 2..c).
    eps2 : float
        The value budget of each round, eps / (2c).
    params : dict
        ``p1`` = e^eps1 / (e^eps1 + 1) (the key bit is kept in round 1) and
        ``p2`` = e^eps2 / (e^eps2 + 1) (the discretised value is kept).

    Notes
    -----
    As PrivKVM is described by the PCKV paper (Sec. 4.2): the naive split
    eps1 = eps2 * c = eps / 2 (Theorem 1, sequential composition). Everything the
    PCKV paper leaves open is reconstructed here, the original paper not being at
    hand: the sampled index j is kept for all c rounds; in rounds 2..c the key bit
    is perturbed with budget 0 (kept w.p. 1/2); a value, true or virtual, is
    discretised to 1 w.p. (1 + v) / 2 (else -1) afresh in each round, then kept
    w.p. p2. Assigning an attribute raises ``AttributeError``; equal (and hashing
    alike) when d, eps and rounds are equal.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.PrivKVM(3, 1.0, rounds=2)
    >>> P
    PrivKVM(d=3, eps=1.0, rounds=2)
    >>> P.d, P.rounds, P.eps1, P.eps2
    (3, 2, 0.5, 0.25)
    >>> round(q.PrivKVM(4, 2.0).params["p1"], 6)  # e / (e + 1)
    0.731059
    """

    __slots__ = ("_d", "_eps", "_rounds", "_eps1", "_eps2", "_params", "_gain1", "_gain2")
    _d: int
    _eps: float
    _rounds: int
    _eps1: float
    _eps2: float
    _params: dict[str, float]
    _gain1: float
    _gain2: float

    def __init__(self, d: int, eps: float, rounds: int = 1) -> None:
        d = check_int("d", d, minimum=1)
        eps = check_positive_eps(eps, "eps")
        rounds = check_int("rounds", rounds, minimum=1, maximum=MAX_ROUNDS)
        eps1, eps2 = _KEY_SHARE * eps, (1.0 - _KEY_SHARE) * eps / rounds
        # randomized response on a bit (GRR over two values): keep w.p. p, flip w.p. q
        p1, q1 = grr_probabilities(2, eps1)
        p2, q2 = grr_probabilities(2, eps2)
        gain1, gain2 = p1 - q1, p2 - q2  # 2 p - 1
        if gain2 <= 0.0:
            msg = (
                f"eps / (2 rounds) = {eps2} is too small: the value perturbation's "
                "2 p2 - 1 rounds to 0; use a larger eps or fewer rounds"
            )
            raise ParameterError(msg)
        params = {"p1": p1, "p2": p2}
        self._set(_d=d, _eps=eps, _rounds=rounds, _eps1=eps1, _eps2=eps2)
        self._set(_params=params, _gain1=gain1, _gain2=gain2)

    # ------------------------------------------------------------------ frozen object
    _fields = ("d", "eps", "rounds")
    rounds = ReadOnly[int]("The number of rounds c.")
    eps1 = ReadOnly[float]("The key budget of round 1, eps / 2.")
    eps2 = ReadOnly[float]("The value budget of each round, eps / (2c).")
    params = ReadOnly[dict[str, float]](
        "``p1`` (key bit kept in round 1) and ``p2`` (value kept), a new dict.", read=dict
    )

    # ------------------------------------------------------------------ channel
    def channel(self, round_number: int = 1, virtual: float = 0.0) -> Channel:
        """One round's channel of one user, from her state for the sampled key to her report.

        Parameters
        ----------
        round_number : int, optional
            The round, 1..rounds (default 1): the key budget is eps / 2 in round 1
            and 0 afterwards.
        virtual : float, optional
            The virtual value v~ in [-1, 1] a user without the key reports (default 0,
            round 1's; afterwards the server's previous mean estimate).

        Returns
        -------
        Channel, shape (3, 3)
            Inputs: the user's state for the sampled key, (1, 1) / (1, -1) (key held,
            value discretised to 1 / -1) and (0, 0) (key not held). Outputs: the
            reports (1, 1), (1, -1), (0, 0) (the pairs <1, v'>, <0, 0>).

        Raises
        ------
        InputTypeError
            Non-integer ``round_number``, non-real ``virtual``.
        ParameterError
            ``round_number`` outside 1..rounds, ``virtual`` outside [-1, 1].

        Notes
        -----
        Built from the QIF operators: a substitution (the user's value, or v~
        discretised to 1 w.p. (1 + v~) / 2), then ``parallel`` of ``grr(2, key
        budget)`` on the key bit and ``grr(2, eps2)`` on the value, then the
        post-processing that drops the value of a report <0, .>. Its ``ldp_epsilon``
        is eps / 2 + eps / (2c) in round 1 when v~ = ±1 (and less when |v~| < 1:
        a uniform fake value is PCKV's tight composition, ln(2 e^eps2 / (e^eps2 + 1))
        in place of eps2), eps / (2c) in later rounds; composed over the c rounds
        (:func:`qifldp.compose`) with v~ = ±1 it is eps: the PCKV paper's Sec. 5.2.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PrivKVM(3, 2.0)
        >>> round(q.ldp_epsilon(P.channel(virtual=1.0)), 12)  # eps/2 + eps/2
        2.0
        >>> P.channel().outputs
        ((1, 1), (1, -1), (0, 0))
        """
        round_number = check_int("round_number", round_number, minimum=1, maximum=self._rounds)
        virtual = check_real("virtual", virtual)
        if not -1.0 <= virtual <= 1.0:
            msg = f"virtual must be in [-1, 1], got {virtual}"
            raise ParameterError(msg)
        up = (1.0 + virtual) / 2.0
        substitution = Channel(
            [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, up, 1.0 - up]],
            inputs=_STATES,
            outputs=((1, 1), (1, -1), (0, 1), (0, -1)),
        )
        key_budget = self.eps1 if round_number == 1 else 0.0
        perturb = parallel(
            GRR(2, key_budget).channel().relabel(inputs=(1, 0), outputs=(1, 0)),
            GRR(2, self.eps2).channel().relabel(inputs=(1, -1), outputs=(1, -1)),
        )
        report = Channel(
            [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]],
            inputs=((1, 1), (1, -1), (0, 1), (0, -1)),
            outputs=_STATES,
        )
        return cascade(cascade(substitution, perturb), report)

    # ------------------------------------------------------------------ client
    def _sample(
        self, lengths: np.ndarray, keys: np.ndarray, values: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Reports over the c rounds (interactive): int64, shape (n, 1 + 2c); column 0 the sampled
        index j in 1..d, then per round r = 1..c the key bit (column 2r - 1, in {0, 1}) and
        the value (column 2r, in {1, -1} after a bit 1, 0 after a bit 0).

        Round r uses the server's corrected mean estimates of round r - 1
        (:meth:`estimate` on the reports so far) as the virtual values; each round
        follows :meth:`channel`. O(n c + total number of pairs).

        Examples
        --------
        >>> import qifldp as q
        >>> R = q.PrivKVM(3, 1.0, rounds=2).sample([{1: 0.5}, {2: -1.0, 3: 0.0}, {}], rng=0)
        >>> R.shape
        (3, 5)
        """
        n, d, c = lengths.size, self._d, self._rounds
        j = rng.integers(1, d + 1, size=n)
        owner = np.repeat(np.arange(n), lengths)
        hit = keys == j[owner]
        present = np.zeros(n, dtype=bool)
        present[owner[hit]] = True
        value = np.zeros(n)
        value[owner[hit]] = values[hit]
        reports = np.zeros((n, 1 + 2 * c), dtype=np.int64)
        reports[:, 0] = j
        virtual = np.zeros(d)
        p2 = self._params["p2"]
        for r in range(c):
            keep_key = self._params["p1"] if r == 0 else 0.5
            source = np.where(present, value, virtual[j - 1])
            u = np.where(rng.random(n) < (1.0 + source) / 2.0, 1, -1)
            u = np.where(rng.random(n) < p2, u, -u)
            bit = np.where(rng.random(n) < keep_key, present, ~present)
            reports[:, 1 + 2 * r] = bit
            reports[:, 2 + 2 * r] = np.where(bit, u, 0)
            if r + 1 < c:
                virtual = self._round_means(j, bit, u, correct=True)
        return reports

    # ------------------------------------------------------------------ server
    def _round_means(
        self, j: np.ndarray, bit: np.ndarray, value: np.ndarray, correct: bool
    ) -> np.ndarray:
        """One round's mean estimates: (N1 - N2) / ((2 p2 - 1) N) per key, N = N1 + N2."""
        d = self._d
        reported = bit.astype(bool)
        n1 = _key_counts(j[reported & (value == 1)], d)
        n2 = _key_counts(j[reported & (value == -1)], d)
        total = n1 + n2
        with np.errstate(divide="ignore", invalid="ignore"):
            means = (n1 - n2) / (self._gain2 * total)
        if not correct:
            return means
        return np.where(total > 0, np.clip(np.nan_to_num(means), -1.0, 1.0), 0.0)

    def _check_reports(self, reports: Any) -> np.ndarray:
        d = self._d
        R = check_reports_array(reports, 1 + 2 * self._rounds).astype(np.int64)
        j, bits, vals = R[:, 0], R[:, 1::2], R[:, 2::2]
        if not np.all((j >= 1) & (j <= d)):
            msg = f"reports' column 0 (the sampled index) must be in 1..d = 1..{d}"
            raise ParameterError(msg)
        valid = np.where(bits == 1, (vals == 1) | (vals == -1), (bits == 0) & (vals == 0))
        if not np.all(valid):
            msg = "reports' rounds must be pairs (1, 1), (1, -1) or (0, 0) (key bit, value)"
            raise ParameterError(msg)
        return R

    def _estimate(self, reports: Any, correct: bool) -> tuple[np.ndarray, np.ndarray]:
        """Frequencies from round 1, value means from round c. Corrected: frequencies clipped
        to [0, 1], the calibrated counts of 1 and -1 to [0, N] (so means to [-1, 1]), and a
        key no user sampled (or none reported) gets frequency 0 and mean 0; uncorrected:
        the raw estimators, NaN for such a key.

        Among the n_k users who sampled index k: with N1, N2 the number of reports
        <1, 1>, <1, -1> in a round and N = N1 + N2, the frequency (round 1) is
        f_k = (N / n_k - (1 - p1)) / (2 p1 - 1), unbiased given n_k >= 1; the
        calibrated count of 1s is N1' = ((p2 - 1) N + N1) / (2 p2 - 1), N2' = N - N1'
        and the mean m_k = (N1' - N2') / N = (N1 - N2) / ((2 p2 - 1) N). Its
        expectation is about (f p1 m + (1 - f)(1 - p1) v~) / (f p1 + (1 - f)(1 - p1))
        in round 1 (v~ = 0: biased towards 0) and f m + (1 - f) v~ afterwards, which
        is how the rounds approach m. Reconstructed from the PCKV paper's account
        (the usual PrivKV calibration); O(n c).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.PrivKVM(2, 60.0)  # almost no noise
        >>> f, m = P.estimate([[1, 1, 1], [1, 1, -1], [1, 0, 0], [2, 1, 1]])
        >>> f.round(6).tolist(), m.round(6).tolist()
        ([0.666667, 1.0], [0.0, 1.0])
        """
        R = self._check_reports(reports)
        d = self._d
        j = R[:, 0]
        sampled = _key_counts(j, d)
        keyed = _key_counts(j[R[:, 1] == 1], d)
        with np.errstate(divide="ignore", invalid="ignore"):  # (N/n_k - (1 - p1)) / (2p1 - 1)
            freq = (2.0 * keyed / sampled - 1.0 + self._gain1) / (2.0 * self._gain1)
        means = self._round_means(j, R[:, -2], R[:, -1], correct)
        if not correct:
            return freq, means
        return np.where(sampled > 0, np.clip(np.nan_to_num(freq), 0.0, 1.0), 0.0), means


def _truth(d: int, lengths: np.ndarray, keys: np.ndarray, values: np.ndarray):
    """True frequencies (fraction of users holding k) and means (over holders; NaN if none)."""
    held = _key_counts(keys, d)
    sums = np.bincount(keys, weights=values, minlength=d + 1)[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        means = sums / held
    return held / lengths.size, means


def _standard_error(x: np.ndarray) -> float:
    """The standard error of the mean of x (0 for a single value)."""
    return float(np.std(x, ddof=1) / math.sqrt(x.size)) if x.size > 1 else 0.0


def keyvalue_mse(
    data: Any,
    d: int,
    eps: float | Sequence[float],
    ell: int = 1,
    rounds: int = 1,
    trials: int = 1,
    rng: Any = None,
) -> pd.DataFrame:
    """Frequency and mean MSE of PCKV-UE, PCKV-GRR and PrivKVM on one population.

    Parameters
    ----------
    data : list of dict
        One dict per user, key (int in 1..d) -> value (real in [-1, 1]); at least one
        user must hold a pair.
    d : int
        Number of keys, ``d >= 1``.
    eps : float or sequence of float
        Total budget(s), each ``> 0`` and ``<= MAX_MSE_EPS`` (700).
    ell : int, optional
        PCKV's padding length, ``ell >= 1`` (default 1).
    rounds : int, optional
        PrivKVM's number of rounds, 1..MAX_ROUNDS (default 1).
    trials : int, optional
        Independent runs of every protocol at every eps, 1..MAX_TRIALS (default 1).
    rng : numpy.random.Generator or int, optional
        Random source or seed (default: fresh entropy); one seed gives one table.

    Returns
    -------
    pandas.DataFrame
        One row per (eps, protocol), protocols ``"PCKV-UE"``, ``"PCKV-GRR"``,
        ``"PrivKVM"``; columns ``eps``, ``protocol``, ``mse_frequency``,
        ``mse_mean`` (each the average over the trials) and ``se_frequency``,
        ``se_mean`` (their standard errors over the trials; 0 for one trial).

    Raises
    ------
    InputTypeError
        As :meth:`PCKV.sample`; non-real ``eps``; non-integer ``d``, ``ell``,
        ``rounds``, ``trials``; a bad ``rng``.
    ParameterError
        As :meth:`PCKV.sample`; no pair in ``data``; ``d < 1``; budgets not
        > 0 or above 700; ``ell``, ``rounds`` or ``trials`` out of range; PCKV-UE's
        reports would exceed ``MAX_REPORT_CELLS`` = 2^28 cells (n (d + ell)).

    Notes
    -----
    The truth: f_k the fraction of users holding key k, m_k the mean of their
    values. Per run, MSE of the frequencies = mean over the d keys of
    (f^_k - f_k)^2; MSE of the means = the same over the keys some user holds. The
    estimators are the protocols' corrected ones (PCKV: Algorithm 4 with the
    allocation of :func:`qifldp.pckv_allocation`; PrivKVM: means of the last
    round). Cost: trials x len(eps) runs of the three protocols.

    Examples
    --------
    >>> import qifldp as q
    >>> data = [{1: 0.5, 2: -0.5}, {1: 1.0}, {3: 0.0}, {}] * 50
    >>> table = q.keyvalue_mse(data, 3, [1.0, 4.0], ell=2, rng=0)
    >>> table.shape, table["protocol"].tolist()[:3]
    ((6, 6), ['PCKV-UE', 'PCKV-GRR', 'PrivKVM'])
    """
    import pandas as pd

    raw: list[Any]
    if isinstance(eps, (numbers.Number, str, bytes)) or not hasattr(eps, "__iter__"):
        raw = [eps]  # one budget (a bad one is answered by the check below)
    else:
        raw = list(np.ravel(np.asarray(eps, dtype=object)))
        if not raw:
            msg = "eps must hold at least one budget, got an empty sequence"
            raise ParameterError(msg)
    epss = [check_positive_eps(e, "eps") for e in raw]
    for e in epss:
        if e > MAX_MSE_EPS:
            msg = (
                f"eps must be <= MAX_MSE_EPS = {MAX_MSE_EPS} (PCKV's e^eps1 overflows beyond "
                f"about 709; every estimate is exact long before), got {e}"
            )
            raise ParameterError(msg)
    ell = check_int("ell", ell, minimum=1)
    rounds = check_int("rounds", rounds, minimum=1, maximum=MAX_ROUNDS)
    trials = check_int("trials", trials, minimum=1, maximum=MAX_TRIALS)
    d = check_int("d", d, minimum=1)
    lengths, keys, values = flatten_key_values(data, d)
    if lengths.size * (d + ell) > MAX_REPORT_CELLS:
        msg = (
            f"n (d + ell) = {lengths.size} x {d + ell} cells exceeds MAX_REPORT_CELLS = "
            f"{MAX_REPORT_CELLS} for PCKV-UE's reports; use fewer users, keys or a smaller ell"
        )
        raise ParameterError(msg)
    if keys.size == 0:
        msg = "data must hold at least one key-value pair (the mean MSE is over held keys)"
        raise ParameterError(msg)
    f_true, m_true = _truth(d, lengths, keys, values)
    held = f_true > 0
    rng = as_rng(rng)
    rows = []
    for e in epss:
        protocols = (
            ("PCKV-UE", PCKV(d, e, ell=ell, mechanism="ue")),
            ("PCKV-GRR", PCKV(d, e, ell=ell, mechanism="grr")),
            ("PrivKVM", PrivKVM(d, e, rounds=rounds)),
        )
        for name, P in protocols:
            mse_f, mse_m = np.empty(trials), np.empty(trials)
            for t in range(trials):
                f_hat, m_hat = P.estimate(P.sample(data, rng))
                mse_f[t] = np.mean((f_hat - f_true) ** 2)
                mse_m[t] = np.mean((m_hat[held] - m_true[held]) ** 2)
            rows.append(
                {
                    "eps": e,
                    "protocol": name,
                    "mse_frequency": float(mse_f.mean()),
                    "mse_mean": float(mse_m.mean()),
                    "se_frequency": _standard_error(mse_f),
                    "se_mean": _standard_error(mse_m),
                }
            )
    return pd.DataFrame(rows)
