"""QIF paper, Lemma 4: bitwise refinement lifts to Kronecker powers and one-hot channels.

Statement. Let A, B be bitwise (2x2) channels with A ⊑ B. Then A^{⊗k} ⊑ B^{⊗k} and
A^{⊗k}_hot ⊑ B^{⊗k}_hot.

Proof checked here. If B = A·W with W row-stochastic then, by the mixed-product
property (X ⊗ Y)(U ⊗ V) = XU ⊗ YV (an index identity, verified symbolically on generic
rectangular blocks, which is the induction step on k), B^{⊗k} = A^{⊗k}·W^{⊗k}, and
W^{⊗k} is row-stochastic (its entries are products of entries of W, its row sums are
products of row sums of W). Deleting the same rows on both sides keeps the equation, so
one_hot(B, k) = one_hot(A, k)·W^{⊗k}. Verified on generic symbolic 2x2 channels for
k = 2, 3 with the library's q.symbolic.one_hot; on random rational channels exactly; with
the LP (qifldp.refines) for k = 2..5; and the library's lifting witness
(qifldp.tradeoff.lifting) is re-checked. The converse fails: SUE and OUE are incomparable on bits
(Lemma 9) but one_hot(SUE) ⊑ one_hot(OUE) at k = 2 (exact instance below).
"""

from __future__ import annotations

import random
from fractions import Fraction as F

from _certificate import Proof, run, vanishes


def _one_hot_rows(k: int) -> list[int]:
    """Row indices of the one-hot vectors e_0..e_{k-1} among k-bit vectors (lexicographic)."""
    return [2 ** (k - 1 - x) for x in range(k)]


def main() -> int:
    import numpy as np
    import sympy as sp
    from sympy import kronecker_product as kron

    import qifldp as q
    from qifldp import symbolic as sym, tradeoff as fdp
    from qifldp.tradeoff import lifting

    P = Proof(
        "Lemma 4: A ⊑ B (bits) implies A^{⊗k} ⊑ B^{⊗k} and one_hot(A, k) ⊑ one_hot(B, k)",
        "QIF paper (Gonze et al., CSF 2026), Lemma 4 and its appendix proof",
    )

    P.section("mixed-product property on generic rectangular blocks (the induction step)")
    X = sp.Matrix(2, 3, sp.symbols("x0:6"))
    Y = sp.Matrix(2, 2, sp.symbols("y0:4"))
    U = sp.Matrix(3, 2, sp.symbols("u0:6"))
    V = sp.Matrix(2, 3, sp.symbols("v0:6"))
    P.step(
        "(X ⊗ Y)(U ⊗ V) = (XU) ⊗ (YV) for generic X (2x3), Y (2x2), U (3x2), V (2x3)",
        vanishes(kron(X, Y) * kron(U, V) - kron(X * U, Y * V)),
        "entrywise: sum_{l,c} X[i,l] Y[a,c] U[l,j] V[c,b] = (XU)[i,j] (YV)[a,b]",
    )

    P.section("generic symbolic bit channels: B = A·W")
    a, b, w0, w1 = sp.symbols("a b w0 w1", nonnegative=True)
    A = sym.SymbolicChannel([[1 - a, a], [b, 1 - b]], domains={a: (0, 1), b: (0, 1)})
    Wm = sp.Matrix([[1 - w0, w0], [w1, 1 - w1]])
    B = sym.SymbolicChannel(A.matrix * Wm, domains={a: (0, 1), b: (0, 1), w0: (0, 1), w1: (0, 1)})
    for k in (2, 3):
        Ak, Wk, Bk = A.matrix, Wm, B.matrix
        for _ in range(k - 1):
            Ak, Wk, Bk = kron(Ak, A.matrix), kron(Wk, Wm), kron(Bk, B.matrix)
        P.step(f"k = {k}: B^{{⊗k}} = A^{{⊗k}}·W^{{⊗k}}", vanishes(Ak * Wk - Bk))
        P.step(
            f"k = {k}: W^{{⊗k}} has rows summing to 1 (entries are products of entries of W)",
            vanishes(Wk * sp.ones(2**k, 1) - sp.ones(2**k, 1)),
        )
        rows = _one_hot_rows(k)
        Ah, Bh = sym.one_hot(A, k).matrix, sym.one_hot(B, k).matrix
        P.step(
            f"k = {k}: q.symbolic.one_hot(A, k) is A^{{⊗k}} restricted to the one-hot rows",
            vanishes(Ah - Ak.extract(rows, list(range(2**k)))),
        )
        P.step(f"k = {k}: one_hot(A, k)·W^{{⊗k}} = one_hot(B, k)", vanishes(Ah * Wk - Bh))

    P.section("random rational instances: exact identity, LP, library lifting witness")
    rng = random.Random(4)
    failures = []
    n = 0
    for _ in range(6):
        Ar = [[F(rng.randint(5, 10), 10)], [F(rng.randint(0, 5), 10)]]
        Ar = [[Ar[0][0], 1 - Ar[0][0]], [Ar[1][0], 1 - Ar[1][0]]]
        x, y = F(rng.randint(0, 8), 8), F(rng.randint(0, 8), 8)
        Wr = [[1 - x, x], [y, 1 - y]]
        Br = (sp.Matrix(Ar) * sp.Matrix(Wr)).tolist()
        As = sym.SymbolicChannel(Ar)
        Bs = sym.SymbolicChannel(Br)
        for k in (2, 3, 4, 5):
            n += 1
            Wk = sp.Matrix(Wr)
            for _ in range(k - 1):
                Wk = kron(Wk, sp.Matrix(Wr))
            exact = sym.one_hot(As, k).matrix * Wk == sym.one_hot(Bs, k).matrix
            Af = q.Channel(np.array(Ar, dtype=float))
            Bf = q.Channel(np.array(Br, dtype=float))
            lp = q.refines(q.one_hot(Af, k), q.one_hot(Bf, k))
            lift = lifting.refines_one_hot_bitwise(Ar, Br, k)
            Wl = lift.witness(k)
            resid = np.abs(q.one_hot(Af, k).matrix @ Wl - q.one_hot(Bf, k).matrix).max()
            if not (exact and lp.holds and lift.holds and resid < 1e-12 and (Wl >= 0).all()):
                failures.append((Ar, Wr, k, exact, lp.holds, lift.holds, resid))
    P.step(
        f"{n} instances (k = 2..5): exact one_hot(A)·W^{{⊗k}} = one_hot(B), q.refines holds, "
        "lifting.refines_one_hot_bitwise witness W^{⊗k} >= 0 with residual < 1e-12",
        not failures,
        f"failures: {failures[:2]}",
    )

    P.section("the converse fails: bitwise incomparable, one-hot comparable (k = 2)")
    eps = 2 * sp.log(2)  # e^(eps/2) = 2: every entry is rational
    S, O = sym.sue_bit(eps), sym.oue_bit(eps)
    S2, O2 = sym.sue(2, eps), sym.oue(2, eps)
    P.step(
        "eps = 2 ln 2: SUE and OUE bit channels are incomparable (exact 2x2 criterion)",
        fdp.refines_2x2(S.matrix, O.matrix) is False
        and fdp.refines_2x2(O.matrix, S.matrix) is False,
        f"SUE bit = {S.matrix.tolist()}, OUE bit = {O.matrix.tolist()}",
    )
    P.step(
        "yet sue(2, eps) ⊑ oue(2, eps) (exact Blackwell criterion on two secrets, and LP)",
        fdp.refines_binary(S2.matrix, O2.matrix) is True
        and bool(q.refines(q.sue(2, float(eps)), q.oue(2, float(eps))).holds),
    )
    P.note("so bitwise refinement is sufficient, not necessary, for one-hot refinement")
    P.note("(the general k = 2 statement is proved in lemma_09_sue_oue_incomparable.py).")
    return P.finish()


if __name__ == "__main__":
    run(main)
