"""QIF paper, Lemma 12: the meet M_eps of the SUE and OUE bit channels.

Statement. On two secrets refinement is a lattice; the meet (greatest lower bound: the most
private channel at least as useful as both) of S_eps and O_eps is, with y = e^{eps/2},
    M_eps = [[y/(y + 1), 1/(y + 1) - 1/(e^eps + 1), 1/(e^eps + 1)],
             [1/(y + 1), y/(y + 1) - 1/2,           1/2          ]].

Proved here for every eps >= 0:
* M_eps is a channel (rows sum to 1; the middle entries are y(y - 1)/((y + 1)(y^2 + 1)) and
  (y - 1)/(2(y + 1)), both >= 0);
* M ⊑ S and M ⊑ O: merging output columns {1, 2}, resp. {0, 1}, of M gives S, resp. O
  (deterministic witnesses, checked symbolically against the library's q.symbolic.sue_bit and
  oue_bit);
* greatest: the likelihood ratios of M's columns are increasing (1/y <= (y^2 + 1)/(2y) <=
  (y^2 + 1)/2), so its trade-off curve T_M is the polygon (0, 1), (alpha_O, beta_O),
  (alpha_S, beta_S), (1, 0) with alpha_O <= alpha_S. If N ⊑ S and N ⊑ O then (Blackwell, two
  secrets) T_N <= min(T_S, T_O), so the convex T_N lies below its values at alpha_O (<= beta_O)
  and alpha_S (<= beta_S) and below the chords, i.e. T_N <= T_M, hence N ⊑ M.
Cross-checked against the library's lattice (qifldp.tradeoff.lattice.meet, exactly at eps = 2 ln 2
and numerically on a grid) and with the LP on random lower bounds N.
"""

from __future__ import annotations

import random

from _certificate import Proof, run, vanishes


def _paper_meet(sp, eps):
    y, t = sp.exp(eps / 2), sp.exp(eps)
    return sp.Matrix(
        [
            [y / (y + 1), 1 / (y + 1) - 1 / (t + 1), 1 / (t + 1)],
            [1 / (y + 1), y / (y + 1) - sp.Rational(1, 2), sp.Rational(1, 2)],
        ]
    )


def main() -> int:
    import numpy as np
    import sympy as sp

    import qifldp as q
    from qifldp import symbolic as sym
    from qifldp.tradeoff import lattice

    P = Proof(
        "Lemma 12: M_eps is the meet (greatest lower bound) of the SUE and OUE bit channels",
        "QIF paper (Gonze et al., CSF 2026), Lemma 12 (construction from Fernandes et al. 2025)",
    )
    eps = sp.Symbol("eps", nonnegative=True)
    y = sp.exp(eps / 2)
    M = sym.SymbolicChannel(_paper_meet(sp, eps), domains={eps: (0, None)})
    S, O = sym.sue_bit(eps), sym.oue_bit(eps)
    aS, bS = q.tradeoff_point(S)
    aO, bO = q.tradeoff_point(O)

    P.section("M_eps is a channel")
    P.step("rows sum to 1", vanishes(M.matrix * sp.ones(3, 1) - sp.ones(2, 1)))
    P.step(
        "M[0,1] = y(y - 1)/((y + 1)(y^2 + 1)) >= 0 and M[1,1] = (y - 1)/(2(y + 1)) >= 0 (y = "
        "e^{eps/2} >= 1)",
        vanishes(M[0, 1] - y * (y - 1) / ((y + 1) * (y**2 + 1)))
        and vanishes(M[1, 1] - (y - 1) / (2 * (y + 1))),
    )

    P.section("M is a lower bound: M ⊑ S and M ⊑ O (merging columns)")
    WS = sp.Matrix([[1, 0], [0, 1], [0, 1]])
    WO = sp.Matrix([[1, 0], [1, 0], [0, 1]])
    P.step("M·[[1,0],[0,1],[0,1]] = q.symbolic.sue_bit(eps)", vanishes(M.matrix * WS - S.matrix))
    P.step("M·[[1,0],[1,0],[0,1]] = q.symbolic.oue_bit(eps)", vanishes(M.matrix * WO - O.matrix))

    P.section("M is the greatest lower bound (trade-off curves)")
    ratios = [M[1, j] / M[0, j] for j in range(3)]
    P.step(
        "column likelihood ratios are 1/y, (y^2 + 1)/(2y), (y^2 + 1)/2; consecutive differences "
        "(y^2 - 1)/(2y) and (y^2 + 1)(y - 1)/(2y) are >= 0",
        vanishes(ratios[0] - 1 / y)
        and vanishes(ratios[1] - (y**2 + 1) / (2 * y))
        and vanishes(ratios[2] - (y**2 + 1) / 2)
        and vanishes(ratios[1] - ratios[0] - (y**2 - 1) / (2 * y))
        and vanishes(ratios[2] - ratios[1] - (y**2 + 1) * (y - 1) / (2 * y)),
    )
    P.step(
        "so T_M has the vertices (M[0,2], 1 - M[1,2]) = (alpha_O, beta_O) and "
        "(M[0,1] + M[0,2], 1 - M[1,1] - M[1,2]) = (alpha_S, beta_S)",
        vanishes(M[0, 2] - aO)
        and vanishes(1 - M[1, 2] - bO)
        and vanishes(M[0, 1] + M[0, 2] - aS)
        and vanishes(1 - M[1, 1] - M[1, 2] - bS),
    )
    P.step(
        "alpha_S - alpha_O = y(y - 1)/((y + 1)(y^2 + 1)) >= 0: the vertices come in this order",
        vanishes(aS - aO - y * (y - 1) / ((y + 1) * (y**2 + 1))),
    )
    P.note("Any N with N ⊑ S and N ⊑ O has T_N <= T_S and T_N <= T_O (Blackwell on two secrets),")
    P.note(
        "so T_N(alpha_O) <= beta_O, T_N(alpha_S) <= beta_S, T_N(0) <= 1, T_N(1) = 0; T_N is convex,"
    )
    P.note("hence below the polygon through these points, which is T_M: T_N <= T_M, i.e. N ⊑ M.")

    P.section("the library's lattice.meet")
    e0 = 2 * sp.log(2)  # e^{eps/2} = 2: exact rationals
    Sx, Ox = sym.sue_bit(e0).matrix, sym.oue_bit(e0).matrix
    Mx = _paper_meet(sp, e0)
    Lx = lattice.meet(Sx, Ox, exact=True)
    cM = q.tradeoff_curve(Mx, exact=True)
    cL = q.tradeoff_curve(sp.Matrix(Lx), exact=True)
    P.step(
        "eps = 2 ln 2: lattice.meet(S, O, exact=True) has exactly the trade-off curve of the "
        "paper's M",
        list(cM) == list(cL),
        f"M = {Mx.tolist()}; curve {[tuple(map(str, v)) for v in cM]}",
    )
    worst = 0.0
    for e in (0.1, 0.5, 1.0, 2.0, 4.0, 8.0):
        Mn = np.array(_paper_meet(sp, sp.Float(e, 30)).evalf(20).tolist(), dtype=float)
        cm = np.array(list(q.tradeoff_curve(Mn)), dtype=float)
        cl = np.array(list(q.tradeoff_curve(lattice.meet(q.sue_bit(e), q.oue_bit(e)))), dtype=float)
        worst = max(worst, float(np.abs(cm - cl).max()) if cm.shape == cl.shape else np.inf)
    P.step(
        "float grid eps in {0.1, ..., 8}: lattice.meet(sue_bit, oue_bit) curve = M's curve (1e-12)",
        worst < 1e-12,
        f"max deviation {worst:.1e}",
    )

    P.section("LP: random common lower bounds N refine to M")
    rng = random.Random(12)
    hits, bad = 0, []
    eps_val = 1.5
    Sn, On = q.sue_bit(eps_val), q.oue_bit(eps_val)
    Mn = q.Channel(np.array(_paper_meet(sp, sp.Float(eps_val, 30)).evalf(20).tolist(), dtype=float))
    P.step(
        "M ⊑ S and M ⊑ O by the LP at eps = 1.5",
        bool(q.refines(Mn, Sn).holds and q.refines(Mn, On).holds),
    )
    for _ in range(60):
        Z = _random_channel(rng, np, q)
        lam = rng.uniform(0.0, 0.5)
        N = q.visible_choice([q.Channel(np.eye(2)), Z], [lam, 1 - lam])
        if q.refines(N, Sn).holds and q.refines(N, On).holds:
            hits += 1
            if not q.refines(N, Mn).holds:
                bad.append(lam)
    P.step(
        f"{hits} random N with N ⊑ S and N ⊑ O (of 60 tried): all satisfy N ⊑ M",
        hits >= 10 and not bad,
        f"failures: {bad}",
    )
    return P.finish()


def _random_channel(rng, np, q):
    """A random 2x3 channel (rows uniform on the simplex)."""
    rows = []
    for _ in range(2):
        a, b = sorted((rng.random(), rng.random()))
        rows.append([a, b - a, 1 - b])
    return q.Channel(np.array(rows))


if __name__ == "__main__":
    run(main)
