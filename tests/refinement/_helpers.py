"""Independent re-checks of refinement certificates, shared by the refinement tests."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import qifldp as q


def random_channel(rng: np.random.Generator, n: int, m: int, alpha: float = 1.0) -> np.ndarray:
    """Rows drawn from Dirichlet(alpha)."""
    return rng.dirichlet(alpha * np.ones(m), size=n)


def assert_witness(A, B, r, rowsum: bool = True) -> None:
    """The witness meets the API tolerances, recomputed here from the channels as given."""
    A = np.asarray(q.Channel(A).matrix)
    B = np.asarray(q.Channel(B).matrix)
    W = r.witness
    assert r.holds and bool(r) and r.counterexample is None
    assert W.shape == (A.shape[1], B.shape[1])
    assert W.min() >= -1e-9
    if rowsum:
        assert np.abs(W.sum(axis=1) - 1).max() <= 1e-9
    assert np.abs(A @ W - B).max() <= 1e-7


def g_vuln_by_hand(C: np.ndarray, g: np.ndarray, prior: np.ndarray) -> float:
    """Σ_y max_w Σ_x π_x C[x, y] g[w, x] by explicit loops (an independent recomputation)."""
    total = 0.0
    for y in range(C.shape[1]):
        total += max(
            sum(prior[x] * C[x, y] * g[w, x] for x in range(C.shape[0])) for w in range(g.shape[0])
        )
    return total


def assert_counterexample(A, B, r, prior=None) -> None:
    """The counterexample's gap is positive, recomputed by g_vulnerability and by loops."""
    A = np.asarray(q.Channel(A).matrix)
    B = np.asarray(q.Channel(B).matrix)
    assert not r.holds and not bool(r) and r.witness is None
    ce = r.counterexample
    n = A.shape[0]
    assert ce.gain.shape[1] == n and ce.prior.shape == (n,)
    assert np.abs(ce.gain).max() <= 1.0
    pi = np.full(n, 1.0 / n) if prior is None else np.asarray(prior)
    np.testing.assert_allclose(ce.prior, pi)
    gap = q.g_vulnerability(B, ce.gain, pi) - q.g_vulnerability(A, ce.gain, pi)
    assert gap > 0 and ce.gap > 0
    assert abs(gap - ce.gap) <= 1e-12 * max(1.0, abs(gap))
    if A.size * ce.gain.shape[0] <= 4000 and B.size * ce.gain.shape[0] <= 4000:
        loops = g_vuln_by_hand(B, ce.gain, pi) - g_vuln_by_hand(A, ce.gain, pi)
        assert abs(loops - gap) <= 1e-9 * max(1.0, abs(gap)) + 1e-15


def rational_rows(M) -> list[list[Fraction]]:
    """Rows of a float matrix as exact fractions divided by their exact sums."""
    out = []
    for row in np.asarray(M, dtype=float):
        fr = [Fraction(float(v)) for v in row]
        s = sum(fr)
        out.append([v / s for v in fr])
    return out


def exact_gap(A, B, gain, prior) -> Fraction:
    """V_g[π▷B] − V_g[π▷A] in exact rationals (rows of the channels normalised exactly)."""
    Aq, Bq = rational_rows(q.Channel(A).matrix), rational_rows(q.Channel(B).matrix)
    g = [[Fraction(float(v)) for v in row] for row in np.asarray(gain)]
    pi = [Fraction(float(v)) for v in prior]

    def V(Cq):
        n, cols = len(Cq), len(Cq[0])
        return sum(
            max(sum(pi[x] * Cq[x][y] * gw[x] for x in range(n)) for gw in g) for y in range(cols)
        )

    return V(Bq) - V(Aq)
