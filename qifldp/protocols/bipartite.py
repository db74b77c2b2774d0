"""Three-answer randomized response on a weighted bipartite graph (users x items).

Ma and Wang (arXiv 2021), Definition 5: n users (vertex set V1) and m items (V2); user
i holds edges to some items, each with a weight in [-1, 1]. The degree k_j of item j is
the number of users linked to it (Eq. 4), its weight w_j the sum of their edge weights
(Eq. 5). The paper's mechanisms (Sec. IV) are not legible in its available text; this module
builds the one its preliminaries describe: each user reports the state of each of the
m (user, item) pairs — no edge, an edge of weight -1 or of weight +1, a weight in
[-1, 1] first rounded to +1 with probability (1 + w) / 2 and to -1 otherwise — through
one three-answer channel :class:`~qifldp.RR3`, independently per pair. States and
answers are coded 0 = no edge, 1 = weight -1, 2 = weight +1.

The data format is the key-value one of :class:`qifldp.PCKV` (a list of dicts, one per
user, item 1..m -> weight), which :func:`qifldp.keyvalue_data` generates and
:func:`qifldp.load_keyvalue_csv` reads.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..attributes import ReadOnly
from ..channel import Channel
from ..composition import compose
from ..errors import InputTypeError, ParameterError, SizeError
from ..simulation.keyvalue import keyvalue_arrays
from ..simulation.util import as_rng, check_memory
from ..validation import check_choice, check_int
from .base import Frozen
from .rr3 import RR3

__all__ = ["BipartiteRR3", "NO_EDGE", "MINUS", "PLUS", "MAX_CHANNEL_ITEMS"]

#: State / answer codes of an edge.
NO_EDGE, MINUS, PLUS = 0, 1, 2

#: Largest m for :meth:`BipartiteRR3.channel` (3^m x 3^m entries: 531 441 at m = 6).
MAX_CHANNEL_ITEMS: int = 6

_DEGREE = np.array([0.0, 1.0, 1.0])  # u(s): does state s count in the degree
_WEIGHT = np.array([0.0, -1.0, 1.0])  # u(s): its weight
_OVER = ("items", "graph")


class BipartiteRR3(Frozen):
    """Users report every (user, item) edge state through one three-answer RR, frozen.

    Parameters
    ----------
    m : int
        Number of items, ``m >= 1``; items are 1..m.
    rr : RR3 or array_like (3, 3), optional
        The per-edge channel over the states (0 no edge, 1 weight -1, 2 weight +1);
        invertible. Give ``rr`` or ``eps``.
    eps : float, optional
        Use GRR(3) with this per-edge eps (:meth:`qifldp.RR3.grr`).

    Attributes
    ----------
    m : int
    rr : RR3
    eps : float
        The per-edge epsilon (``rr.eps``). The epsilon of a user's whole report is
        :meth:`epsilon`.

    Raises
    ------
    ParameterError
        ``m < 1``; both or neither of ``rr`` and ``eps``; a singular matrix.
    InputTypeError
        Wrong types.

    Examples
    --------
    >>> import qifldp as q
    >>> B = q.BipartiteRR3(3, eps=2.0)
    >>> data = [{1: 0.5, 3: -1.0}, {2: 1.0}, {}]
    >>> B.sample(data, rng=0).shape
    (3, 3)
    >>> B.epsilon() == 3 * B.eps  # all m edges at once: the sequential sum is attained
    True
    """

    __slots__ = ("_m", "_rr", "_h")
    _m: int
    _rr: RR3
    _h: np.ndarray

    def __init__(self, m: int, rr: Any = None, eps: float | None = None) -> None:
        m = check_int("m", m, minimum=1)
        if (rr is None) == (eps is None):
            msg = "give exactly one of rr (a three-answer channel) and eps (for GRR(3))"
            raise ParameterError(msg)
        R = RR3.grr(eps) if eps is not None else rr if isinstance(rr, RR3) else RR3(rr)
        det = float(np.linalg.det(R.matrix))
        if abs(det) <= 1e-12:
            msg = (
                f"rr must be invertible (det = {det:.3g}): degrees and weights are not "
                "estimable from a singular channel"
            )
            raise ParameterError(msg)
        h = np.linalg.solve(R.matrix, np.column_stack((_DEGREE, _WEIGHT)))  # P h = u
        h.setflags(write=False)
        self._set(_m=m, _rr=R, _h=h)

    _fields = ("m", "rr")
    m = ReadOnly[int]("Number of items.")
    rr = ReadOnly[RR3]("The per-edge three-answer channel.")

    @property
    def eps(self) -> float:
        """The per-edge epsilon (``rr.eps``).

        Examples
        --------
        >>> P = BipartiteRR3(4, eps=1.0)
        >>> P.m, P.rr.m, round(P.eps, 12)
        (4, 3, 1.0)
        """
        return self._rr.eps

    # ------------------------------------------------------------------ client
    def _dense(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """(edge, weight): (n, m) bool and float arrays of the users' edges."""

        lengths, keys, values = keyvalue_arrays(data, self._m)
        n = lengths.size

        check_memory(float(n) * self._m, 10, f"{n} users x m = {self._m} items", "fewer users")
        users = np.repeat(np.arange(n), lengths)
        edge = np.zeros((n, self._m), dtype=bool)
        weight = np.zeros((n, self._m))
        edge[users, keys - 1] = True
        weight[users, keys - 1] = values
        return edge, weight

    def states(self, data: Any, rng: Any = None) -> np.ndarray:
        """The edge states after randomized rounding of the weights, (n, m) int8.

        Parameters
        ----------
        data : list of dict
            One dict per user, item (int in 1..m) -> weight (real in [-1, 1]).
        rng : numpy.random.Generator or int, optional

        Returns
        -------
        numpy.ndarray of int8, shape (n, m)
            0 = no edge; an edge of weight w is 2 (+1) w.p. (1 + w) / 2, else 1 (-1),
            so the rounded weight has expectation w.

        Examples
        --------
        >>> BipartiteRR3(3, eps=1.0).states([{1: 1.0, 2: -1.0}], rng=0).tolist()
        [[2, 1, 0]]
        """

        edge, weight = self._dense(data)
        gen = as_rng(rng)
        plus = gen.random(edge.shape) < (1.0 + weight) / 2.0
        return np.where(edge, np.where(plus, PLUS, MINUS), NO_EDGE).astype(np.int8)

    def sample(self, data: Any, rng: Any = None) -> np.ndarray:
        """Each user's report: every edge state through the three-answer channel.

        Parameters
        ----------
        data : list of dict
            As for :meth:`states`.
        rng : numpy.random.Generator or int, optional

        Returns
        -------
        numpy.ndarray of int8, shape (n, m)
            Answers 0, 1, 2 (no edge, -1, +1), one per (user, item), independent given
            the states.

        Examples
        --------
        >>> B = BipartiteRR3(2, rr=np.eye(3))  # no noise: the rounded states
        >>> B.sample([{1: 1.0}, {2: -1.0}], rng=0).tolist()
        [[2, 0], [0, 1]]
        """

        gen = as_rng(rng)
        S = self.states(data, gen)
        return self._rr.sample(S.reshape(-1), rng=gen).reshape(S.shape).astype(np.int8)

    # ------------------------------------------------------------------ server
    def _answer_counts(self, reports: Any) -> tuple[int, np.ndarray]:
        try:
            R = np.asarray(reports)
        except (TypeError, ValueError) as exc:
            msg = f"reports must be the (n, m) array returned by sample(): {exc}"
            raise InputTypeError(msg) from None
        if R.dtype.kind not in "iu":
            msg = f"reports must be an integer array as returned by sample(), got {R.dtype}"
            raise InputTypeError(msg)
        if R.ndim != 2 or R.shape[0] == 0 or R.shape[1] != self._m:
            msg = f"reports must have shape (n, m = {self._m}) with n >= 1, got {R.shape}"
            raise ParameterError(msg)
        if R.min() < 0 or R.max() > 2:
            msg = "reports must hold answers 0, 1, 2 (no edge, -1, +1)"
            raise ParameterError(msg)
        counts = np.stack([(R == y).sum(axis=0) for y in range(3)], axis=1)  # (m, 3)
        return R.shape[0], counts.astype(np.float64)

    def estimate(self, reports: Any) -> tuple[np.ndarray, np.ndarray]:
        """Unbiased estimates of every item's degree k_j (Eq. 4) and weight w_j (Eq. 5).

        Parameters
        ----------
        reports : array_like of int, shape (n, m)
            The output of :meth:`sample`.

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            Degrees and weights, float64 arrays of shape (m,) (not clipped: unbiased,
            so they may leave [0, n] and [-n, n]).

        Raises
        ------
        ParameterError, InputTypeError
            Wrong shape, no users, answers outside 0..2.

        Notes
        -----
        With h = P⁻¹ u (P h = u), E[h(answer) | state s] = u(s); u = (0, 1, 1) counts
        edges, u = (0, -1, 1) their rounded weights (E = w). So k̂_j = Σ_i h_k(y_ij)
        and ŵ_j = Σ_i h_w(y_ij) are unbiased for k_j and w_j = Σ_i w_ij. O(n m).

        Examples
        --------
        >>> B = BipartiteRR3(2, rr=np.eye(3))
        >>> k, w = B.estimate([[2, 0], [1, 0], [2, 2]])
        >>> k.tolist(), w.tolist()
        ([3.0, 1.0], [1.0, 1.0])
        """
        _, counts = self._answer_counts(reports)
        est = counts @ self._h  # (m, 2)
        return est[:, 0].copy(), est[:, 1].copy()

    def _scale(self, n: int, over: str) -> float:
        over = check_choice("over", over, _OVER)
        return 1.0 / self._m if over == "items" else 2.0 / (n + self._m)

    def averages(self, reports: Any, over: str = "items") -> tuple[float, float]:
        """The average degree ⟨k⟩ and weight ⟨w⟩ (Eq. 6 corrected: an average).

        Parameters
        ----------
        reports : array_like of int, shape (n, m)
        over : {"items", "graph"}, optional
            ``"items"`` (default): the mean over the m items, Σ_j k_j / m and
            Σ_j w_j / m. ``"graph"``: the mean over all n + m vertices, 2 Σ_j k_j / (n + m)
            (every edge counts at both ends; likewise the weights).

        Returns
        -------
        (float, float)

        Notes
        -----
        Eq. (6) as printed divides Σ_j k_j by (n + m)(n + m - 1) / 2, the number of
        vertex pairs: that is an edge density (of the complete graph on n + m
        vertices), not an average degree; the audit entry ``rr3.eq6`` records it.

        Examples
        --------
        >>> B = BipartiteRR3(2, rr=np.eye(3))
        >>> B.averages([[2, 0], [1, 0], [2, 2]])
        (2.0, 1.0)
        >>> B.averages([[2, 0], [1, 0], [2, 2]], over="graph")
        (1.6, 0.8)
        """
        k, w = self.estimate(reports)
        scale = self._scale(np.shape(reports)[0], over)
        return float(k.sum() * scale), float(w.sum() * scale)

    def variance(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """The exact variances of :meth:`estimate`'s k̂_j and ŵ_j, given the true data.

        Parameters
        ----------
        data : list of dict
            The users' true edges and weights (as for :meth:`sample`).

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            Var[k̂_j] and Var[ŵ_j], shape (m,).

        Notes
        -----
        The answers of different (user, item) pairs are independent (rounding and
        randomization are per pair). The answer of pair (i, j) has distribution
        μ_ij = s_ij P with s_ij the state distribution (no edge: (1, 0, 0); weight w:
        (0, (1 - w)/2, (1 + w)/2)), so Var[h(y_ij)] = μ_ij · h² − (s_ij · u)². Summed
        over users: Var[k̂_j] = (S_j P) · h_k² − k_j and
        Var[ŵ_j] = (S_j P) · h_w² − Σ_i w_ij², with S_j = Σ_i s_ij.

        Examples
        --------
        >>> B = BipartiteRR3(1, rr=np.eye(3))
        >>> [v.tolist() for v in B.variance([{1: 0.0}, {}])]  # no noise but the rounding
        [[0.0], [1.0]]
        """
        edge, weight = self._dense(data)
        n = edge.shape[0]
        k = edge.sum(axis=0).astype(np.float64)
        S = np.column_stack(
            (
                n - k,
                np.where(edge, (1.0 - weight) / 2.0, 0.0).sum(axis=0),
                np.where(edge, (1.0 + weight) / 2.0, 0.0).sum(axis=0),
            )
        )
        mu = S @ self._rr.matrix  # (m, 3): expected answer counts
        var_k = mu @ (self._h[:, 0] ** 2) - k
        var_w = mu @ (self._h[:, 1] ** 2) - (weight**2).sum(axis=0)
        return np.maximum(var_k, 0.0), np.maximum(var_w, 0.0)

    def average_variance(self, data: Any, over: str = "items") -> tuple[float, float]:
        """The variances of :meth:`averages` given the true data (items independent).

        Examples
        --------
        >>> B = BipartiteRR3(2, rr=np.eye(3))
        >>> B.average_variance([{1: 0.0}, {2: 0.0}])  # rounding only: 2 / 2^2
        (0.0, 0.5)
        """
        var_k, var_w = self.variance(data)
        scale = self._scale(len(data), over)
        return float(var_k.sum() * scale**2), float(var_w.sum() * scale**2)

    # ------------------------------------------------------------------ privacy
    def edge_channels(self) -> list[Channel]:
        """The m per-edge channels over the edge-state tuples (small m only).

        Channel j has inputs the 3^m tuples of states (lexicographic), outputs 0..2,
        and rows ``P[x_j]``: it reports edge j of the tuple.

        Raises
        ------
        SizeError
            ``m > MAX_CHANNEL_ITEMS`` (use :meth:`epsilon`).

        Examples
        --------
        >>> [C.shape for C in BipartiteRR3(2, eps=1.0).edge_channels()]
        [(9, 3), (9, 3)]
        """
        if self._m > MAX_CHANNEL_ITEMS:
            msg = (
                f"the per-user channel has 3^m x 3^m entries: m = {self._m} > "
                f"MAX_CHANNEL_ITEMS = {MAX_CHANNEL_ITEMS}; use epsilon(), computed from "
                "the product structure for any m"
            )
            raise SizeError(msg)
        tuples = list(itertools.product(range(3), repeat=self._m))
        X = np.array(tuples)
        P = self._rr.matrix
        return [Channel(P[X[:, j]], tuples, (0, 1, 2)) for j in range(self._m)]

    def channel(self) -> Channel:
        """One user's whole report as a channel: ``q.compose`` of :meth:`edge_channels`.

        Inputs are the 3^m edge-state tuples, outputs the 3^m answer tuples; the
        product channel P^{⊗m} (same-secret composition of the per-edge channels).

        Raises
        ------
        SizeError
            ``m > MAX_CHANNEL_ITEMS``.

        Examples
        --------
        >>> import qifldp as q
        >>> C = BipartiteRR3(2, eps=1.0).channel()
        >>> C.shape, round(q.ldp_epsilon(C), 12)
        ((9, 9), 2.0)
        """

        return compose(*self.edge_channels())

    def epsilon(self, max_degree: int | None = None) -> float:
        """The exact LDP epsilon of one user's report of all m edges, any m.

        Parameters
        ----------
        max_degree : int, optional
            Users are known to hold at most this many edges (``>= 0``): only such
            state tuples are possible inputs. Default: any tuple.

        Returns
        -------
        float
            max over pairs of possible tuples x, x' of Σ_j D[x_j, x'_j], with
            D[s, s'] = max_y ln(P[s, y] / P[s', y]) the per-edge pair loss.

        Notes
        -----
        The report is the product channel P^{⊗m}: its log-ratio on an answer tuple is
        the sum of the per-edge log-ratios, maximised edge by edge. With no degree
        bound this is m · max D = m · eps: the sequential composition bound is
        attained (the worst pair of states on every edge). With at most s edges, a pair
        of tuples uses c positions where both have an edge (loss max(D12, D21)), u where
        only x has one (max(D10, D20)) and v where only x' has one (max(D01, D02)), with
        c + u <= s, c + v <= s, c + u + v <= m; the optimum of this linear program is
        at c in {0, max(0, 2s' - m), s'} with s' = min(s, m), and u, v filled greedily.
        O(1) in m. Checked against ``ldp_epsilon`` of :meth:`channel` restricted to
        the possible tuples in the tests.

        Examples
        --------
        >>> B = BipartiteRR3(10, eps=1.0)
        >>> round(B.epsilon(), 12), round(B.epsilon(max_degree=2), 12)  # GRR: min(m, 2s) eps
        (10.0, 4.0)
        """
        D = _pair_losses(self._rr.matrix)
        if max_degree is None:
            return float(self._m * D.max())
        s = min(check_int("max_degree", max_degree, minimum=0), self._m)
        m = self._m
        d_both = max(D[1, 2], D[2, 1])
        d_x = max(D[1, 0], D[2, 0])  # x has an edge, x' none
        d_xp = max(D[0, 1], D[0, 2])
        big, small = max(d_x, d_xp), min(d_x, d_xp)
        best = 0.0
        for c in {0, max(0, 2 * s - m), s}:
            room = s - c  # edges left to each of x and x'
            free = m - c  # positions left
            first = min(room, free)
            second = min(room, free - first)
            best = max(best, c * d_both + first * big + second * small)
        return float(max(best, 0.0))


def _pair_losses(P: np.ndarray) -> np.ndarray:
    """D[s, s'] = max_y ln(P[s, y] / P[s', y]) over y with P[s, y] > 0 (inf if P[s', y] = 0)."""
    with np.errstate(divide="ignore"):
        L = np.log(P)
    D = np.full((P.shape[0], P.shape[0]), -np.inf)
    for s in range(P.shape[0]):
        for t in range(P.shape[0]):
            pos = P[s] > 0
            D[s, t] = np.max(L[s, pos] - L[t, pos]) if pos.any() else 0.0
    return D
