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
