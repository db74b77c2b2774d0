"""QIF paper, Corollary 3: max-case refinement of bit channels lifts to Kronecker powers, one-hot.

Statement. Let C, D be 2x2 channels with C ⊑max D. Then C^{⊗k} ⊑max D^{⊗k} and
C^{⊗k}_hot ⊑max D^{⊗k}_hot.

Proof (the paper's): Corollary 2 turns C ⊑max D into C ⊑ D; Lemma 4 lifts it to
C^{⊗k} ⊑ D^{⊗k} and one_hot(C, k) ⊑ one_hot(D, k); average-case refinement implies max-case
refinement. Checked here: each link on concrete channels with the library (exact 2x2 criterion,
lifted witness W^{⊗k}, which is in particular a nonnegative R with C^{⊗k}·R = D^{⊗k}), and
q.max_case_refines on the one-hot channels of the paper's pairs (SUE ⊑ THE, OUE ⊑ THE above the
Lemma 10 threshold, GRR-like symmetric bits) and of random pairs, k = 2..4. The last link is
strict: for the one-hot SUE and OUE channels at k = 3, eps = 1, max-case refinement holds while
average-case refinement fails (LP certificates).
"""

from __future__ import annotations

import random

from _certificate import Proof, run


def main() -> int:
    import numpy as np

    import qifldp as q
    from qifldp import tradeoff as fdp
    from qifldp.tradeoff import lifting

    P = Proof(
        "Corollary 3: C ⊑max D (2x2) implies C^{⊗k} ⊑max D^{⊗k} and one_hot(C, k) ⊑max one_hot(D, "
        "k)",
        "QIF paper (Gonze et al., CSF 2026), Corollary 3 (Corollary 2 + Lemma 4 + [24])",
    )
    rng = random.Random(33)
    pairs = [
        ("SUE ⊑ THE (Lemma 11), eps = 1, theta = 0.6", q.sue_bit(1.0), q.the_bit(1.0, 0.6)),
        ("OUE ⊑ THE (Lemma 10), eps = 1, theta = 0.9", q.oue_bit(1.0), q.the_bit(1.0, 0.9)),
        ("SUE(2) ⊑ SUE(1) (Lemma 7)", q.sue_bit(2.0), q.sue_bit(1.0)),
    ]
    while len(pairs) < 8:
        A = q.Channel([[x := rng.uniform(0.5, 1), 1 - x], [z := rng.uniform(0, 0.5), 1 - z]])
        B = q.Channel([[x := rng.uniform(0.5, 1), 1 - x], [z := rng.uniform(0, 0.5), 1 - z]])
        if q.max_case_refines(A, B).holds:
            pairs.append((f"random pair {len(pairs) - 2}", A, B))

    P.section("each link of the chain on 8 pairs with C ⊑max D, k = 2, 3, 4")
    bad = []
    for name, C, D in pairs:
        if not (q.max_case_refines(C, D).holds and fdp.refines_2x2(C, D)):
            bad.append((name, "Cor. 2 link"))
            continue
        lift = lifting.refines_one_hot_bitwise(C, D)
        for k in (2, 3, 4):
            Wk = lift.witness(k)
            Ck, Dk = q.one_hot(C, k), q.one_hot(D, k)
            full_ok = (
                np.abs(lifting.kron_power(C.matrix, k) @ Wk - lifting.kron_power(D.matrix, k)).max()
                < 1e-12
            )
            hot_ok = np.abs(Ck.matrix @ Wk - Dk.matrix).max() < 1e-12
            if not (
                lift.holds
                and (Wk >= 0).all()
                and full_ok
                and hot_ok
                and q.max_case_refines(Ck, Dk).holds
            ):
                bad.append((name, k))
    P.step(
        "C ⊑max D => C ⊑ D (exact 2x2) => W^{⊗k} >= 0 maps C^{⊗k} to D^{⊗k} and one_hot(C) to "
        "one_hot(D) "
        "=> q.max_case_refines(one_hot(C, k), one_hot(D, k)) holds",
        not bad,
        f"failures: {bad}",
    )

    P.section("average-case is strictly stronger than max-case on one-hot channels")
    S3, O3 = q.sue(3, 1.0), q.oue(3, 1.0)
    mc, av = q.max_case_refines(S3, O3), q.refines(S3, O3)
    P.step(
        "k = 3, eps = 1: sue ⊑max oue holds (nonnegative R), sue ⊑ oue fails (gain with positive "
        "gap)",
        bool(mc.holds)
        and not av.holds
        and av.counterexample is not None
        and av.counterexample.gap > 0,
        f"max-case residual {np.abs(S3.matrix @ mc.witness - O3.matrix).max():.1e}; "
        f"average-case gap {av.counterexample.gap:.3g}",
    )
    return P.finish()


if __name__ == "__main__":
    run(main)
