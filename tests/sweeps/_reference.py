"""An independent reference for the sweep tests: refinement by a plain LP written here."""

import numpy as np
from scipy.optimize import linprog


def plain_lp_refines(A, B):
    """A ⊑ B by a feasibility LP written here: W >= 0 row-stochastic with A W = B."""
    A, B = np.asarray(A.matrix, float), np.asarray(B.matrix, float)
    na, nb = A.shape[1], B.shape[1]
    eq = [np.kron(A, np.eye(nb)), np.kron(np.eye(na), np.ones((1, nb)))]
    rhs = np.concatenate([B.ravel(), np.ones(na)])
    res = linprog(np.zeros(na * nb), A_eq=np.vstack(eq), b_eq=rhs, bounds=(0, None))
    return res.status == 0


def explicit_oracle(P):
    """A protocol's explicit channel as the atlas compares it: a symmetric one expanded
    lumped (one output per subset), else one output per distinct column where the protocol
    merges them (HE with t coefficients), else its channel."""
    if P.lumpable:
        return P.symmetric().expand(lumped=True)
    merged = getattr(P, "merged_channel", None)
    return merged() if callable(merged) else P.channel()
