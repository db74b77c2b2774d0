"""Symmetric refinement from a channel with one size class (GRR, subset selection): in O(k).

When A has a single size class s, every orbit equation of B's class t involves only the
orbits (s, t, j) of that t, at most two of them (the extreme overlaps j): each pair of
equations (x ∈ T, x ∉ T) is a 2 x 2 system with one solution, and the row sum of A
holds by itself (it is the sum of all of B's equations, whose masses sum to 1). So
A ⊑ B iff every class's solution is non-negative: the witness, or the Farkas vector of
one class's system (a gain whose actions are the subsets of that one size), is found by
Cramer's rule class by class, with no LP, and checked like the orbit LP's certificates.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..digits import scientific
from .channel import SymmetricChannel
from .gain import SymmetricGain
from .orbit_certify import _orbit_coefficients, _to_fraction, power_of_two_scale, stored_masses
from .orbit_exact import rational_gain_certificate
from .orbit_lp import (
    Clock,
    DecisionState,
    OrbitProblem,
    check_large,
    consider_gain,
    fails_float,
    orbit_coefficients,
    orbit_variables,
    witness_result,
)

__all__ = ["single_source_result", "REFINEMENT_STEPS"]

#: Steps of iterative refinement of each class's Cramer solution (each costs O(k)).
REFINEMENT_STEPS: int = 2


def _blocks(
    A: SymmetricChannel, B: SymmetricChannel, variables: tuple, clock: Clock
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per class b of B: its two variables (lo, hi; hi = -1 when j has one value) and the
    coefficients c_in, c_out of every variable (computed in blocks under the clock)."""
    iS, iT, s, t, j = variables
    stage = "the class-by-class route"
    c_in, c_out = orbit_coefficients(A, (iS, s, t, j), clock.check, stage)
    clock.check(stage)
    # orbit_variables with one size of A: every class of B in order with its lower
    # overlap, then the classes with a second overlap, with their upper one
    nb = B.sizes.size
    lo = np.arange(nb)
    hi = np.full(nb, -1)
    hi[iT[nb:]] = np.arange(nb, iT.size)
    return lo, hi, c_in, c_out


def single_source_result(
    A: SymmetricChannel,
    B: SymmetricChannel,
    clock: Clock,
    st: DecisionState,
    exact_class: bool = False,
    why: str = "",
) -> Any:
    """Decide A ⊑ B class by class when A has one size class; None when it does not apply
    or when neither certificate holds beyond rounding (the orbit LP then decides).

    ``exact_class``: instead of the float Farkas vectors, solve the most negative class
    exactly: its negative exact mass is an exact certificate. The step for when every
    float gain has had its chance and the orbit LP found no witness within the rounding
    band (``why`` says so; it begins the certificate's text).

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> r = single_source_result(sym.grr(10**4, 1.0), sym.blh(10**4, 1.0), Clock(),
    ...                          DecisionState())
    >>> r.holds, r.method, r.counterexample.gap > 0
    (False, 'symmetric: single source (class by class)', True)
    >>> r = single_source_result(sym.grr(50, 2.0), sym.grr(50, 1.0), Clock(), DecisionState())
    >>> r.holds, r.residual < 1e-12
    (True, True)
    """
    if A.sizes.size != 1:
        return None
    t0 = clock.t0
    # the orbit variables and their coefficients only: the orbit equations (sparse, the
    # witness's check) are built when the classes' solutions are all >= 0
    clock.check("the class-by-class route")
    variables = orbit_variables(A, B, clock.check)
    n_var = int(variables[0].size)
    clock.check("the class-by-class route")
    lo, hi, c_in, c_out = _blocks(A, B, variables, clock)
    stage = "the single-source solve"
    PiB, PoB = B.class_masses()
    u = np.zeros(n_var)
    two = hi >= 0
    # one variable: its mass is the class's total (both equations then say the same
    # thing or the check below fails); two: Cramer's rule on [[c_in], [c_out]] u = (Pi, Po)
    one = ~two & (lo >= 0)
    tot = c_in[lo[one]] + c_out[lo[one]]
    with np.errstate(divide="ignore", invalid="ignore"):
        u[lo[one]] = np.where(tot > 0, (PiB[one] + PoB[one]) / tot, 0.0)
        check_large(clock.check, n_var, stage)
        a, b = c_in[lo[two]], c_in[hi[two]]
        c, d = c_out[lo[two]], c_out[hi[two]]
        det = a * d - b * c
        check_large(clock.check, n_var, stage)
        ulo = (PiB[two] * d - b * PoB[two]) / det
        uhi = (a * PoB[two] - c * PiB[two]) / det
        # iterative refinement: Cramer's rule leaves a residual of a few u relative to the
        # class masses, outside the rounding band's (n + 2) u at tiny masses; each step
        # solves the same 2 x 2 system for the residual (k = 1000: grr vs THE(θ*) at
        # eps 12 was left to the orbit LP for it)
        for _ in range(REFINEMENT_STEPS):
            r_in = PiB[two] - (a * ulo + b * uhi)
            r_out = PoB[two] - (c * ulo + d * uhi)
            ulo = ulo + (r_in * d - b * r_out) / det
            uhi = uhi + (a * r_out - c * r_in) / det
    details: dict[str, Any] = {"n_variables": n_var, "single_source": True}
    clock.check("the single-source solve")
    if np.all(np.isfinite(ulo)) and np.all(np.isfinite(uhi)):
        u[lo[two]], u[hi[two]] = ulo, uhi
        if np.all(u >= 0):
            P = OrbitProblem(A, B, clock=clock)  # the same variables, in the same order
            clock.check("the single-source check")
            in_band, _, resid, row_err, _ = P.check(u)
            if in_band:
                return witness_result(
                    P,
                    u,
                    resid,
                    row_err,
                    (
                        "single source: each class of B solved from its own two orbit "
                        "equations (Cramer's rule), all masses >= 0, every orbit equation "
                        f"within the rounding band (max residual {resid:.2e}, rows within "
                        f"{row_err:.1e})"
                    ),
                    t0,
                    method="symmetric: single source (class by class)",
                    details=details,
                )
            return None
        # Farkas vector of the class with the most negative mass, in the LP's convention
        # (Mᵀy <= 0, rhs·y > 0): y = -(M_b)^{-T} e_i on that class's two rows, 0 elsewhere
        masses = np.where(ulo < uhi, ulo, uhi)
        order = np.argsort(masses)[:8]
        rows_b = np.flatnonzero(two)
        if exact_class:
            bi = int(rows_b[int(order[0])])
            return _exact_class_result(A, B, clock, variables, lo, hi, bi, why, details)
        for n in order:
            if masses[n] >= 0:
                break
            bi = int(rows_b[n])
            i_lo = bool(ulo[n] < uhi[n])
            an, bn, cn, dn, dt = a[n], b[n], c[n], d[n], det[n]
            # (M_b)^{-1} = [[d, -b], [-c, a]] / det; row i of it is y's transpose
            y_in, y_out = (dn, -bn) if i_lo else (-cn, an)
            G = _normalised(
                SymmetricGain(B.k, [int(B.sizes[bi])], [-float(y_in / dt)], [-float(y_out / dt)])
            )
            # one class of A: an orbit equation has at most two terms (the extreme overlaps)
            pre = OrbitProblem.for_gains(A, B, 2)
            cand = consider_gain(
                pre, st, G, "single source: Farkas vector of one class", clock.check
            )
            if cand is not None:
                return fails_float(
                    cand, A.k, t0, details, method="symmetric: single source (class by class)"
                )
    return None


def _exact_class_result(
    A: SymmetricChannel,
    B: SymmetricChannel,
    clock: Clock,
    variables: tuple,
    lo: np.ndarray,
    hi: np.ndarray,
    bi: int,
    why: str,
    details: dict,
) -> Any:
    """B's class ``bi`` solved exactly: an exact certificate when its mass is negative."""
    clock.check("the single-source exact class")
    got = _exact_class(A, B, variables, int(lo[bi]), int(hi[bi]), bi)
    if got is None:
        return None
    sizes, g_in, g_out, bound, text = got
    res, _ = rational_gain_certificate(
        A,
        B,
        sizes,
        g_in,
        g_out,
        bound,
        f"{why}; {text}" if why else text,
        clock.t0,
        details,
        method="symmetric: single source (class by class)",
    )
    return res


def _exact_class(
    A: SymmetricChannel, B: SymmetricChannel, variables: tuple, v_lo: int, v_hi: int, bi: int
) -> tuple[list[int], list, list, Fraction, str] | None:
    """The exact Farkas certificate of B's class ``bi`` when its exact solution is negative.

    The class's two orbit equations (x ∈ T, x ∉ T) in the variables ``v_lo``, ``v_hi``
    have rational coefficients from A's stored masses and right-hand side B's stored
    class masses (both read as rationals, divided by their exact sums). When the solution
    u = M_b^-1 rhs_b has u_i < 0, y = −(row i of M_b^-1) on those two rows (0 elsewhere)
    has y·M = −e_i <= 0 on the class's columns and 0 on every other (A's row sum has
    y = 0) and y·rhs = −u_i > 0. As a gain: the actions of the class's size worth y
    (scaled by a power of 2 to max |g| in (1/2, 1]) and an action worth 0. On A every
    action of that size is worth y·a_v <= 0, so V_g[υ▷A] = 0; on B the class alone gains
    at least the scaled −u_i and every other class at least 0. Returned as the arguments
    of :func:`~qifldp.symmetric.orbit_exact.rational_gain_certificate` (sizes, g_in,
    g_out, the scaled y·rhs, the text); None when the exact solution is >= 0.
    """
    iS, iT, s, t, j = variables
    PiA, PoA = stored_masses(A).rational(0)
    PiB, PoB = stored_masses(B).rational(bi)
    a, c = _orbit_coefficients(PiA, PoA, A.k, int(s[v_lo]), int(t[v_lo]), int(j[v_lo]))
    b, d = _orbit_coefficients(PiA, PoA, A.k, int(s[v_hi]), int(t[v_hi]), int(j[v_hi]))
    det = a * d - b * c
    if det == 0:
        return None
    u_lo = (PiB * d - b * PoB) / det
    u_hi = (a * PoB - c * PiB) / det
    if u_lo < 0 and (u_lo <= u_hi):
        y_in, y_out, u = -d / det, b / det, u_lo
    elif u_hi < 0:
        y_in, y_out, u = c / det, -a / det, u_hi
    else:
        return None
    y_in, y_out, u = _to_fraction(y_in), _to_fraction(y_out), _to_fraction(u)
    scale = power_of_two_scale(max(abs(y_in), abs(y_out)))
    size = int(B.sizes[bi])
    text = (
        f"the stored floats fail exactly: class |T| = {size} of B solved exactly from its "
        f"two orbit equations has mass {scientific(u, 4)} < 0 on one orbit "
        "(Cramer's rule in rationals on the stored class masses)"
    )
    gi, go, zero = y_in * scale, y_out * scale, Fraction(0)
    # beside the class's size an action worth 0 (T = ∅), so that no other class of B
    # contributes less than 0 (a class of size 0 has one overlap: never two variables)
    return [0, size], [zero, gi], [zero, go], -u * scale, text


def _normalised(G: SymmetricGain) -> SymmetricGain | None:
    """The gain scaled by a power of two to 1/2 < max |g| <= 1 (exact); None if all zero."""
    top = float(max(np.abs(G.g_in).max(), np.abs(G.g_out).max()))
    if not np.isfinite(top) or top <= 0:
        return None
    scale = 2.0 ** -np.ceil(np.log2(top))
    return SymmetricGain(G.k, G.sizes.tolist(), G.g_in * scale, G.g_out * scale)
