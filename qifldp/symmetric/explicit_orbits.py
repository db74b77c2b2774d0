"""The orbit decider of explicit one-hot channels: their class tables as symmetric channels.

Registered by :mod:`qifldp.symmetric.register` on the refinement driver
(:func:`qifldp.refinement._orbits.register_orbit_decider`): the driver detects two
bit-symmetric (one-hot) channels, hands over their class tables α, and re-checks
the verdict returned here on the explicit channels.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..refinement._orbits import OrbitVerdict
from .channel import SymmetricChannel
from .lifting import BitwiseWitness
from .orbit_witness import OrbitWitness
from .refinement import refines

__all__ = ["decide_class_tables"]


def decide_class_tables(alpha_a: np.ndarray, alpha_b: np.ndarray) -> OrbitVerdict:
    """A ⊑ B for the one-hot channels with class tables α_A, α_B (2, k + 1), by the orbit LP.

    α[r, a] is the entry C[x, y] of an output y of weight a with bit y_x = r (NaN for an
    empty class). The symmetric channels with these entries are decided by
    :func:`qifldp.symmetric.refines`; its certificate is returned as arrays (orbit
    masses, a bitwise witness, or the π-weighted explicit gain H[T, x] = g(T, x) / k).

    Raises
    ------
    SolverError, VerificationError, SizeError
        As :func:`qifldp.symmetric.refines`.

    Examples
    --------
    >>> import qifldp as q
    >>> from qifldp.refinement._orbits import bit_symmetric
    >>> A, B = q.sue(3, 1.0), q.the(3, 1.0, 0.8)
    >>> SA = bit_symmetric(A.matrix, A.inputs, A.outputs)
    >>> SB = bit_symmetric(B.matrix, B.inputs, B.outputs)
    >>> decide_class_tables(SA.alpha, SB.alpha).holds
    True
    """
    k = alpha_a.shape[1] - 1
    name = f"detected one-hot channel (k={k})"
    CA = SymmetricChannel._from_bit_table(alpha_a, name=name)
    CB = SymmetricChannel._from_bit_table(alpha_b, name=name)
    sres = refines(CA, CB)
    sd = sres.details or {}
    verdict = OrbitVerdict(
        bool(sres.holds),  # the orbit LP raises rather than leave a pair undecided
        sres.method,
        sres.certified_by,
        n_variables=sd.get("n_variables"),
        lp_optimum=sd.get("lp_least_residual"),
        details=dict(sd),
    )
    if not sres.holds:
        assert sres.counterexample is not None
        G = sres.counterexample.gain
        return replace(verdict, weighted_gain=np.asarray(G) / G.k)
    wit = sres.witness
    if isinstance(wit, BitwiseWitness):  # a lifted bitwise witness w^{⊗k}
        return replace(verdict, bitwise=np.asarray(wit.w, dtype=np.float64))
    assert isinstance(wit, OrbitWitness)
    return replace(verdict, masses=(wit.s, wit.t, wit.j, wit.mass))
