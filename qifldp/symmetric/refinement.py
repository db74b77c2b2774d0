"""Refinement between symmetric channels by an LP over orbits (polynomial in k): the decision."""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import budget as one_deadline, reached
from ..digits import scientific
from ..errors import (
    ParameterError,
    SizeError,
    SolverError,
    VerificationError,
)
from ..refinement._certify import INPUT_BAND_FACTOR
from ..refinement.core import refinement_options
from ..refinement.exact_gap import state_gap_exactly
from ..refinement.result import (
    Counterexample,
    RefinementResult,
    undecided_result,
)
from .boundary_lifting import boundary_lifting_result
from .channel import SymmetricChannel
from .gain import SymmetricGain
from .lifting import lifted_refinement, lifted_result, unverified_bit_channels
from .orbit_certify import (
    EXACT_MAX_GAP_TERMS,
    EXACT_MAX_SUPPORT_CELLS,
    EXACT_ORBIT_MAX_VARIABLES,
    exact_gap,
    gap_with_bound,
)
from .orbit_exact import (
    NO_EXACT,
    check_exact,
    confirm_exact,
    exact_orbit_result,
    exact_support_result,
)
from .orbit_lp import (
    GAIN_EVAL_MAX_ENTRIES,
    MAX_ORBIT_VARIABLES,
    ORBIT_BAND_FACTOR,
    ORBIT_LP_BYTES_PER_VARIABLE,
    ORBIT_LP_MEMORY_BYTES,
    REFINEMENT_ROUNDS,
    ROW_ATOL,
    WITNESS_ATOL,
    Clock,
    DecisionState,
    GainCandidate,
    OrbitProblem,
    check_kinds,
    check_large,
    check_pair,
    check_time_limit,
    consider_gain,
    eps_gains,
    exact_gain,
    exact_of,
    fails_float,
    lp_gain,
    solve_orbit_lp,
    uniform_prior,
    witness_result,
)
from .orbit_witness import (
    OrbitWitness,
)
from .set_gains import penalty_gains, tries_gains
from .single_source import single_source_result
from .tight_ratio import (
    near_tight_witness,
    tight_ratio_first,
    tight_ratio_plan,
    tight_ratio_result,
)

__all__ = [
    "refines",
    "TIGHT_RATIO_FIRST_VARIABLES",
    "ORBIT_EQUATION_WEIGHT",
    "orbit_lp_size",
    "refines_symmetric",
    "OrbitWitness",
    "WITNESS_ATOL",
    "ROW_ATOL",
    "ORBIT_BAND_FACTOR",
    "INPUT_BAND_FACTOR",
    "REFINEMENT_ROUNDS",
    "MAX_ORBIT_VARIABLES",
    "ORBIT_LP_BYTES_PER_VARIABLE",
    "ORBIT_LP_MEMORY_BYTES",
    "EXACT_MAX_SUPPORT_CELLS",
    "EXACT_MAX_GAP_TERMS",
    "GAIN_EVAL_MAX_ENTRIES",
    "EXACT_ORBIT_MAX_VARIABLES",
]


#: From this many orbit-LP variables on (k >= 160 for one-hot pairs), the tight-ratio
#: reduction runs before the orbit LP (on its own O(k) orbits) instead of after it: a
#: smaller LP is cheap, and its certificate is about the stored floats ("channels"),
#: which the reduction's (about the protocols) would replace.
TIGHT_RATIO_FIRST_VARIABLES: int = 50_000

#: An orbit-LP equation costs HiGHS about as much as this many variables: a budget
#: ``max_lp_variables`` (:func:`refines`) also bounds the equations, at most
#: max_lp_variables / ORBIT_EQUATION_WEIGHT (GRR vs UE at k = 10^4, 20,000 variables and
#: equations, takes 2 s).
ORBIT_EQUATION_WEIGHT: int = 40


def orbit_lp_size(A: SymmetricChannel, B: SymmetricChannel) -> tuple[int, int]:
    """Variables and equations of the orbit LP of A ⊑ B: 2 |sizes(A)| |sizes(B)| and
    |sizes(A)| + 2 |sizes(B)| (the extreme overlaps of each pair of sizes; a row sum
    per size of A, an in and an out equation per size of B).

    >>> import qifldp.symmetric as sym
    >>> orbit_lp_size(sym.sue(100, 1.0), sym.oue(100, 1.0))
    (20402, 303)
    """
    a, b = int(A.sizes.size), int(B.sizes.size)
    return 2 * a * b, a + 2 * b


def _check_lp_budget(max_lp_variables: int | None) -> int | None:
    if max_lp_variables is None:
        return None
    if isinstance(max_lp_variables, bool) or not isinstance(max_lp_variables, (int, np.integer)):
        msg = (
            "max_lp_variables must be an int (or None: no budget of its own), got "
            f"{type(max_lp_variables).__name__}"
        )
        raise ParameterError(msg)
    if max_lp_variables < 0:
        msg = f"max_lp_variables must be >= 0, got {max_lp_variables}"
        raise ParameterError(msg)
    return int(max_lp_variables)


def _identical(A: SymmetricChannel, B: SymmetricChannel, t0: float) -> RefinementResult:
    """Equal class masses: W = I (u(s, s, s) = 1) satisfies every equation exactly."""
    s = A.sizes
    W = OrbitWitness(A.k, s.copy(), s.copy(), s.copy(), np.ones(s.size), 0.0, A, B)
    return RefinementResult(
        True,
        witness=W,
        method="symmetric: identical",
        exact=True,
        certified_by="identical class masses: W = I satisfies every orbit equation exactly",
        residual=0.0,
        row_sum_error=0.0,
        min_entry=0.0,
        time=time.perf_counter() - t0,
    )


def _decide(
    A: SymmetricChannel,
    B: SymmetricChannel,
    clock: Clock,
    exact: bool | None,
    max_lp_variables: int | None = None,
) -> RefinementResult:
    """The float route with its exact fallbacks (see :func:`refines`)."""
    t0 = clock.t0
    st = DecisionState()
    if (
        np.array_equal(A.sizes, B.sizes)
        and np.array_equal(A.log_in, B.log_in)
        and np.array_equal(A.log_out, B.log_out)
    ):
        return _identical(A, B, t0)
    return _decide_pair(A, B, clock, exact, st, max_lp_variables)


def refines(
    A: SymmetricChannel,
    B: SymmetricChannel,
    *,
    time_limit: float = 120.0,
    exact: bool | None = None,
    max_lp_variables: int | None = None,
) -> RefinementResult:
    """Decide A ⊑ B for symmetric channels over the same k by an LP over orbits.

    Parameters
    ----------
    A, B : SymmetricChannel
        Over the same k.
    time_limit : float
        Seconds for the whole decision (HiGHS's ``time_limit`` and checks between
        steps; a step the time left cannot pay for, judged by the longest step so far,
        is not started: :func:`qifldp.deadline.affordable`).
    exact : bool or None
        None (default): float certificates, rational arithmetic where they are
        inconclusive, and the exact orbit LP (see Notes) when no certificate
        either way exists in floats. True: also confirm every verdict by the
        exact orbit LP (at most :data:`EXACT_ORBIT_MAX_VARIABLES` orbit
        variables). False: no rational arithmetic (a VerificationError instead).
    max_lp_variables : int or None
        A budget for the orbit LP stage only (None: only the library's limits
        :data:`MAX_ORBIT_VARIABLES` and :data:`ORBIT_LP_MEMORY_BYTES`): every route
        before it runs whatever the size (bitwise lifting, the identity and
        likelihood-ratio gains, the tight-ratio reduction, the class-by-class route,
        the set-guessing gains); when none decides and the LP would have more
        variables, or more than max_lp_variables / :data:`ORBIT_EQUATION_WEIGHT`
        equations (:func:`orbit_lp_size`), a SizeError says so and names the routes
        tried.

    Returns
    -------
    qifldp.refinement.result.RefinementResult
        Truthy iff A ⊑ B. ``.witness`` is an :class:`OrbitWitness` (``numpy.asarray``
        or ``.expand()`` gives the explicit W for small k); ``.counterexample.gain``
        a :class:`SymmetricGain` (likewise expandable), ``.prior`` the uniform
        prior and ``.gap`` the recomputed V_g[υ▷B] − V_g[υ▷A] > 0 (``gap_exact``
        when it was computed in rationals). ``exact`` is True when the verdict was
        proved in rational arithmetic; ``up_to_rounding``/``about`` say when it
        holds only up to rounding (see Notes); ``details`` holds the LP size and
        least residual.

    Raises
    ------
    InputTypeError, ChannelError
        Not symmetric channels, or different k.
    ParameterError
        ``time_limit`` not a positive number.
    SizeError
        No route before the orbit LP decides and the LP would exceed
        :data:`MAX_ORBIT_VARIABLES` variables, its estimated memory
        :data:`ORBIT_LP_MEMORY_BYTES` or ``max_lp_variables``.
    SolverError
        HiGHS fails, or ``time_limit`` is reached (never reported as "does not refine").
    VerificationError
        No certificate either way, and the best witness is not even within the
        rounding band of the inputs; or the exact orbit LP proves that the stored
        floats fail, but only by a gap the float gain loses, and the rational gain's
        exact gap is beyond :data:`EXACT_MAX_GAP_TERMS` terms (see Notes); or
        ``exact=False`` forbids that LP.
    SizeError
        ``exact=True`` on an orbit LP beyond :data:`EXACT_ORBIT_MAX_VARIABLES`.

    Notes
    -----
    *Symmetrisation.* If B = A·W then also B = A·W̄ with W̄ the average of
    P_σ^T W P_σ over all permutations σ of the inputs, because A and B commute
    with the permutations. So a witness can be sought with W[S, T] depending only
    on (s, t, j) = (|S|, |T|, |S ∩ T|). Write u(s, t, j) = Pr[T in class (t, j) | S]
    (= C(s, j) C(k-s, t-j) W[S, T]); the rows of W sum to 1 iff Σ_{t,j} u(s, t, j) = 1.

    *Orbit equations.* (A·W)[x, T] depends only on t and whether x ∈ T. Multiplied by
    the number of such T they read, for every size t of B,

        Σ_{s,j} [P_in(s) j/s + P_out(s) (t-j)/(k-s)] u(s, t, j) = P^B_in(t)

    (x ∈ S is uniform in S, so Pr[x ∈ T | S, class (t, j)] = j / s; for x ∉ S it is
    (t-j)/(k-s)), and the same with the complementary coefficient for P^B_out(t).
    Every coefficient is a probability, so the LP is well scaled.

    *Extreme overlaps.* The coefficients are linear in j, so any u(s, t, ·) can be
    replaced by a mixture of its two extreme overlaps j = max(0, s+t-k) and
    min(s, t) with the same mass and mean: the LP has only ~2 |sizes(A)| |sizes(B)|
    variables (20,000 for UE at k = 100) and |sizes(A)| + 2 |sizes(B)| equations.
    All of this is exact, so the orbit LP is feasible iff A ⊑ B.

    *The stored problem.* The verdict is about the channels as stored (``about ==
    "channels"``): each class mass exp(log P) is read as the binary fraction it
    holds, and a channel's masses are divided by their exact sum (as the explicit
    route reads rows). No tolerance decides a verdict; a float solution is a hint:

    1. *Gains before the LP.* Likelihood-ratio gains from B's classes whose
       |ln(a/b)| exceeds ldp_epsilon(A) (refinement cannot raise epsilon), and
       the identity gain (Bayes capacity). A gain refutes A ⊑ B when its gap,
       evaluated with a rigorous rounding bound, exceeds that bound plus the
       largest gap a pair within the rounding band could have
       (3 (:data:`ORBIT_BAND_FACTOR` + 1)(n + 2) u max|g|, n the most terms of
       an orbit equation): so it excludes the band certificate of "holds". Then
       (after the tight-ratio and class-by-class routes below) the set-guessing
       gains g(T, x) = [x ∈ T], |T| = t, with t searched on grids refined around the
       best gap in O(classes) per t (``qifldp.symmetric.set_gains``), checked the
       same way: OUE ⋢ SUE, OUE ⋢ THE at k = 10^4 in under a second, no LP; and the
       same sets with a penalty c for a wrong guess and the option to abstain, c
       exact over its breakpoints in O(classes log classes) per t (GRR ⋢ OUE at
       k = 10^4, eps = 12, where the plain sets and the Bayes gain do not separate).
    2. *The orbit LP* (HiGHS, L1 phase 1, rows scaled to unit size). Its dual is
       a symmetric gain (Farkas), checked as in 1; its primal u (clipped,
       renormalised) is a witness when every orbit equation's exact residual
       (the float residual plus its rigorous evaluation error) is within the
       rounding band ORBIT_BAND_FACTOR (n_e + 2) u ((M u)_e + rhs_e); if not, u
       is polished on its support (least squares).
    3. *Iterative refinement* (:data:`REFINEMENT_ROUNDS`): an LP for the
       correction on the residual scaled to unit size, whose dual resolves gaps
       (and whose primal residuals) far below HiGHS's 1e-10 tolerance.
    4. *Exact arithmetic* (python-flint) when the float certificates are not
       conclusive: the gap of each candidate gain in rationals (only the terms
       within the float error of a maximum, at most :data:`EXACT_MAX_GAP_TERMS`),
       and the orbit equations solved exactly on the witness's support (at most
       :data:`EXACT_MAX_SUPPORT_CELLS` equations x support entries) with u >= 0
       checked entry by entry (``exact`` True). A band witness is also
       confirmed exactly when that is affordable.

    *The exact orbit LP* (``exact=True``, or automatically when step 1-4 leave no
    certificate either way): a rational phase-1 simplex on the orbit equations of the
    stored problem (python-flint ``fmpq``; Dantzig's rule with partial pricing,
    Bland's rule after a streak of degenerate pivots, so it terminates), warm-started
    by pivoting the float witness's support into the all-artificial basis. It ends
    with an exact witness (re-substituted into every equation, u >= 0; ``exact``
    True, ``method`` "symmetric: exact orbit LP", ``certified_by`` "proved exactly",
    ``details["exact_orbit_masses"]`` the rational masses by (s, t, j)) or an exact
    Farkas certificate y (y·M <= 0, y·rhs > 0), stated as its float symmetric gain
    with a positive exact gap, or, when that float gain loses the gap, as an *exact
    certificate*: the rational gain itself (``counterexample.gain_exact``, its exact
    gap over every class and action re-checked; ``Counterexample.recheck``).
    Measured: sue(50, 8) vs oue(50, 8), 5,002 variables, ~5 s. What it proves is
    about the stored floats read as rationals. For one-hot pairs at equal eps (SUE,
    OUE, THE) every inner class of both channels has
    likelihood ratio e^eps exactly, so any witness maps each inner output T of B to
    T alone, scaled by the same factor for x in T and x not in T: an identity of
    e^eps that the stored floats break at the last bit. There the exact verdict on
    the floats follows rounding, not eps (sue(3, eps) vs oue(3, eps): the stored
    floats refine at eps = 3, fail at 2 and 5), and at k = 50, eps = 9 they fail
    by a Farkas value of 1.6e-18 (no float gain keeps the gap: an exact certificate).

    *One size class in A* (GRR, subset selection): each class of B has its own two
    orbit equations and at most two orbits, so A ⊑ B is decided class by class (Cramer's
    rule, O(k), before any LP): a witness in the rounding band, or one class's Farkas
    vector as a gain with a rigorous gap (:mod:`qifldp.symmetric.single_source`).

    *At the 2x2 boundary* (one-hot pairs whose bit witness b_A⁻¹ b_B has an entry that
    is 0 up to rounding, as OUE ⊑ THE at Lemma 10's threshold): after the gains and before
    the orbit LP, that entry set to 0, the bit-0 row matched and w^{⊗k} checked class by
    class in O(k) (:mod:`qifldp.symmetric.boundary_lifting`): "holds" up to rounding.

    *The tight-ratio reduction* (before the exact orbit LP, when the float route has no
    certificate; before the orbit LP itself, on its own O(k) orbits, when that LP would
    have more than :data:`TIGHT_RATIO_FIRST_VARIABLES` variables): if every inner class of
    B has the extreme likelihood ratio e^{±ldp_epsilon(A)} exactly, as its matching class
    of A (premise: their stored closed-form log-ratios agree to the last bit, as for SUE
    and OUE at the same eps),
    a witness must send each inner output T of B from S = T (or T^c) alone, with weight
    P^B_in(t) / P^A_in(t), and the rest of each row to B's corner classes; so A ⊑ B iff
    these weights sum to at most 1 per size of A. Checked beyond the stored masses'
    own rounding, this proves the verdict for the real channels (``about`` "protocols",
    ``method`` "symmetric: tight-ratio reduction", ``exact`` False): SUE ⊑ OUE at
    k = 50 holds iff (1/2)(1 − q)^49 <= p^50 (p = 1/(1 + e^{-eps/2}), q = 1/(1 + e^eps)),
    i.e. from eps* = 8.5152, and at eps = 9 with largest weight 0.863. The same
    reduction on protocol objects (``q.refines(q.protocol("sue", 50, 9.0),
    q.protocol("oue", 50, 9.0))``, :func:`qifldp.symmetric.tight_ratio_refines`)
    proves the premise (sympy, on the symbolic twin) and bounds the weights from the
    exact eps with arb: ``exact`` True, no premise; :func:`qifldp.symmetric.sue_oue_boundary`
    encloses eps*(k).

    *Up to rounding.* When a witness is within the rounding band but the stored
    floats fail exactly (a positive exact gap, or the exact support solve fails),
    or when no certificate exists either way but the witness is within the band
    of what rounding of the inputs explains (a class mass computed in log space
    is known to :data:`INPUT_BAND_FACTOR` u (1 + |ln P|) relative), the result
    has ``holds`` True, ``up_to_rounding`` True and ``about == "rounding"``;
    ``certified_by`` states the band and what the stored floats give. E.g. SUE ⊑
    OUE at k = 3 holds for the real protocols at every eps above the threshold;
    at eps = 35 and 40 OUE's q = 1/(e^eps + 1) is ~1e-16 and ~4e-18 and the
    stored floats may fail by less than their own rounding.

    *What holds=True certifies.* ``exact`` True: the stored problem refines
    exactly. Otherwise a witness whose orbit equations hold within the rounding
    band (the residual also bounds max |A·W − B| over the explicit outputs; every
    returned witness meets :data:`WITNESS_ATOL`). Cost: one LP with
    O(|sizes(A)| |sizes(B)|) variables (0.2 s for UE at k = 100, 16 s at
    k = 1000), one or two more near the boundary.

    Examples
    --------
    >>> import qifldp.symmetric as sym
    >>> r = sym.refines(sym.sue(50, 2.0), sym.the(50, 2.0, 0.7))  # QIF paper Lemma 11
    >>> r.holds, r.residual < 1e-9
    (True, True)
    >>> r = sym.refines(sym.grr(10**4, 1.0), sym.grr(10**4, 2.0))
    >>> r.holds, r.counterexample.gap > 0
    (False, True)
    >>> r = sym.refines(sym.grr(3, 40.0), sym.grr(3, 41.0))  # 1 - q rounds to 1
    >>> r.holds, r.exact, r.counterexample.gap_exact > 0
    (False, True, True)
    """
    check_pair(A, B)
    limit = check_time_limit(time_limit)
    exact = check_exact(exact)
    lp_budget = _check_lp_budget(max_lp_variables)
    with one_deadline(limit):  # the one deadline of every stage below (qifldp.deadline)
        clock = Clock()
        try:
            r = _decide(A, B, clock, exact, lp_budget)
        except SolverError as exc:
            clock.restate(exc)  # a deadline read inside a shared O(k) step
            raise
        if exact is True and not r.exact:
            r = confirm_exact(A, B, r, clock)
        return _small_gap_stated_exactly(A, B, r)


def _small_gap_stated_exactly(
    A: SymmetricChannel, B: SymmetricChannel, r: RefinementResult
) -> RefinementResult:
    """A counterexample's gap that is mostly rounding in floats (|V_g| <= max |g|, uniform
    prior) reported as its exact gap on the stored class masses, rounded once
    (:func:`qifldp.refinement.exact_gap.state_gap_exactly`)."""
    ce = r.counterexample
    if ce is None or not isinstance(ce.gain, SymmetricGain):
        return r
    if ce.gap_exact is not None and ce.gap == float(ce.gap_exact):
        return r  # .gap is already the exact gap rounded (its text says so)
    G = ce.gain
    scale = float(max(np.abs(G.g_in).max(), np.abs(G.g_out).max()))

    def exact() -> tuple[Fraction | None, str]:
        gq = exact_gap(A, B, G, gap_with_bound(A, B, G))
        return gq, "" if gq is not None else "beyond EXACT_MAX_GAP_TERMS rational terms"

    stated, note = state_gap_exactly(ce, scale, exact, on=" on the stored class masses")
    if not note:
        return r
    return replace(r, counterexample=stated, certified_by=r.certified_by + note)


def _decide_pair(
    A: SymmetricChannel,
    B: SymmetricChannel,
    clock: Clock,
    exact: bool | None,
    st: DecisionState,
    max_lp_variables: int | None = None,
) -> RefinementResult:
    """Steps 0-4 of :func:`refines` for two channels with different class masses."""
    t0 = clock.t0
    k = A.k
    tried: list[str] = []  # the routes before the orbit LP that did not decide
    # 0. one-hot pairs whose bit channels refine: the lifted witness w^{⊗k} (Lemma 4)
    try:
        lift = lifted_refinement(A, B, clock.check)
    except SolverError as exc:  # the bit channels' decision ran out of the one deadline
        if not reached(exc) or str(exc).startswith("time_limit = "):
            raise
        clock.expire("bitwise lifting")
    if lift is None:
        clock.check("bitwise lifting")
        if unverified_bit_channels(A, B) is not None:
            tried.append("bitwise lifting")
    else:
        Wb, err, r2 = lift
        return lifted_result(
            (Wb, err),
            "symmetric: bitwise lifting",
            (
                f"bitwise lifting (QIF paper, Lemma 4): the bit channels refine "
                f"({r2.certified_by}), and A·w^{{⊗k}} matches B class by class within a "
                f"relative {err:.2e} (the rounding of the product forms: A's and B's class "
                "masses against their bit channels, and of b_A·w)"
            ),
            t0,
            {"bit_result": r2},
        )
    # 1. cheap gains: likelihood ratio beyond eps(A), then the identity (Bayes capacity)
    n_terms = 2 * A.sizes.size
    pre = OrbitProblem.for_gains(A, B, n_terms)
    cheap = [(SymmetricGain.identity(k), "identity gain (Bayes capacity)")]
    check_large(clock.check, k, "the gain checks before the orbit LP")
    cheap += eps_gains(A, B)
    check_large(clock.check, k, "the gain checks before the orbit LP")
    for G, what in cheap:
        c = consider_gain(pre, st, G, what, clock.check)
        if c is not None:
            return fails_float(c, k, t0, {})
        clock.check("the gain checks before the orbit LP")
    tried.append("the Bayes-capacity and likelihood-ratio (ldp_epsilon) gains")
    # 2. the tight-ratio reduction on its own orbits, and a single-class A class by class
    # (O(k) each; never refused for the LP's size)
    n_var_est, n_eq_est = orbit_lp_size(A, B)
    if n_var_est > TIGHT_RATIO_FIRST_VARIABLES:
        tight = tight_ratio_first(A, B, clock)
        if tight is not None:
            return tight
        clock.check("the tight-ratio reduction")
        tried.append("the tight-ratio reduction")
    single = single_source_result(A, B, clock, st)
    if single is not None:
        return single
    if A.sizes.size == 1:
        tried.append("the class-by-class route")
    # 2b. set-guessing gains (t tries, then with a penalty for a wrong guess), searched
    # over t in O(k) per size: most "fails" pairs of one-hot and hashed protocols
    # without an LP (k = 10^6 in seconds)
    for search in (tries_gains, penalty_gains):
        for G, what in search(A, B, clock.check):
            c = consider_gain(pre, st, G, what, clock.check)
            if c is not None:
                return fails_float(c, k, t0, {}, method="symmetric: set-guessing gain")
            clock.check("the set-guessing gains")
    tried.append("the set-guessing gains (with and without a penalty)")
    # 2c. one-hot pairs at their bit channels' boundary: the lifted witness up to rounding
    edge = boundary_lifting_result(A, B, clock.check, t0)
    if edge is not None:
        return edge
    if unverified_bit_channels(A, B) is not None:
        tried.append("the bitwise lifting at the boundary")
    # 3. the orbit LP
    if max_lp_variables is not None and (
        n_var_est > max_lp_variables or ORBIT_EQUATION_WEIGHT * n_eq_est > max_lp_variables
    ):
        msg = (
            f"the orbit LP would have ~{n_var_est:.3g} variables and {n_eq_est} equations "
            f"(> max_lp_variables = {max_lp_variables:.3g} variables or "
            f"{max_lp_variables / ORBIT_EQUATION_WEIGHT:.3g} equations); tried before it, "
            f"without a verdict: {', '.join(tried)}"
        )
        raise SizeError(msg)
    mem = n_var_est * ORBIT_LP_BYTES_PER_VARIABLE
    if n_var_est > MAX_ORBIT_VARIABLES or mem > ORBIT_LP_MEMORY_BYTES:
        msg = (
            f"the orbit LP for k = {k} would have ~{n_var_est} variables "
            f"(2 |sizes(A)| |sizes(B)| = 2 x {A.sizes.size} x {B.sizes.size}) and need "
            f"~{mem / 2**30:.3g} GiB (ORBIT_LP_BYTES_PER_VARIABLE = "
            f"{ORBIT_LP_BYTES_PER_VARIABLE} bytes each); the limits are MAX_ORBIT_VARIABLES = "
            f"{MAX_ORBIT_VARIABLES} and ORBIT_LP_MEMORY_BYTES = {ORBIT_LP_MEMORY_BYTES / 2**30:g}"
            f" GiB. Tried before it, without a verdict: {', '.join(tried)}; compare other measures "
            "(qifldp.symmetric.g_vulnerability with a SymmetricGain), or decide a smaller k"
        )
        raise SizeError(msg)
    P = OrbitProblem(A, B, clock=clock)
    P.n_terms_max = max(P.n_terms_max, 1)
    clock.n_var = P.n_var
    # the band allowance of the cheap gains used the bound n = 2 |sizes(A)| >= P.n_terms_max
    st.gains = [c for c in st.gains]
    bounds = (0, None)
    res = solve_orbit_lp(P.c, P.A_eq, P.rhs / P.sigma, bounds, clock, "the orbit LP")
    delta = float(res.fun)
    details: dict[str, Any] = {
        "n_variables": P.n_var,
        "n_equations": int(P.M.shape[0]),
        "lp_least_residual": delta,
    }

    def done_fails(c: GainCandidate) -> RefinementResult:
        return fails_float(c, k, t0, details)

    u = None
    for rnd in range(REFINEMENT_ROUNDS + 1):
        clock.check("the certificate checks")
        if rnd == 0:
            G = lp_gain(res.eqlin.marginals, P.sigma, P.nS, B, P.b_rows)
            cand = P.clean(np.asarray(res.x[: P.n_var], dtype=np.float64))
            tag = "Farkas dual of the orbit LP"
            c = consider_gain(P, st, G, f"{tag} as a symmetric gain")
            if c is not None:
                return done_fails(c)
            in_band = P.check(cand)[0]
            if not in_band:  # the relative LP (every class of B at its own scale)
                try:
                    rel = solve_orbit_lp(
                        P.rel_c, P.rel_A_eq, P.rel_b, P.rel_bounds, clock, "the relative LP"
                    )
                except SolverError:
                    if clock.left() <= 0:  # the budget is spent: say so, not the LP's status
                        clock.expire("the relative LP")
                    rel = None
                if rel is not None:
                    G = lp_gain(rel.eqlin.marginals, P.rel_rows, P.nS, B, P.b_rows)
                    alt = P.clean(P.rel_cols * np.asarray(rel.x[: P.n_var], dtype=np.float64))
                    tag = "Farkas dual of the relative orbit LP"
                    if P.check(alt)[4] < P.check(cand)[4]:
                        cand = alt
        else:
            G, cand = res
            tag = f"dual of refinement LP {rnd}"
        c = consider_gain(P, st, G, f"{tag} as a symmetric gain")
        if c is not None:
            return done_fails(c)
        for v in (cand, None):
            if v is None:
                v = P.polish(cand, clock=clock)
                if v is None:
                    break
            in_band, in_input, resid, row_err, excess = P.check(v)
            if st.best_witness is None or excess < st.best_witness[4]:
                st.best_witness = (v, resid, row_err, in_input, excess)
            if in_band:
                st.band_witness = (v, resid, row_err)
                break
        if st.band_witness is not None:
            break
        u = st.best_witness[0]
        if rnd == REFINEMENT_ROUNDS:
            break
        try:
            res = P.refinement_lp(u, clock, f"refinement LP {rnd + 1}")
        except SolverError as exc:
            if clock.left() <= 0:
                raise
            st.notes.append(str(exc))
            break
        if res is None:
            break
    # the tight-ratio witness as a candidate where the ratios are tight up to rounding
    # only (class masses read off explicit floats), when the LP's own misses the band
    if st.band_witness is None and tight_ratio_plan(A, B) is None:
        near = near_tight_witness(P)
        if near is not None:
            in_band, in_input, resid, row_err, excess = P.check(near)
            if in_band:
                st.band_witness = (near, resid, row_err)
            elif st.best_witness is None or excess < st.best_witness[4]:
                st.best_witness = (near, resid, row_err, in_input, excess)
    # 4. exact arithmetic and the final table
    clock.check("the exact checks")
    if st.band_witness is not None:
        v, resid, row_err = st.band_witness
        band_how = (
            f"orbit witness: every orbit equation within the rounding band "
            f"{ORBIT_BAND_FACTOR:g} (n_e + 2) u ((M u)_e + rhs_e) including the rigorous "
            f"evaluation error (max residual {resid:.2e}, rows within {row_err:.1e}, "
            "entries >= 0)"
        )
        exact_res, why = (
            exact_support_result(P, v, t0, details) if exact is not False else (None, NO_EXACT)
        )
        if exact_res is not None:
            return exact_res
        exact_tried = "skipped" not in why
        c = exact_gain(st, P, clock) if exact_tried else None
        if c is None:
            return witness_result(
                P,
                v,
                resid,
                row_err,
                band_how + f"; {why}",
                t0,
                method="symmetric: orbit LP (HiGHS)",
                details=details,
            )
        stored = (
            f"the stored floats fail exactly (exact gap {float(exact_of(c)):.3e} of the "
            f"{c.source}), by less than the rounding band"
        )
        return witness_result(
            P,
            v,
            resid,
            row_err,
            f"{band_how}; {stored}",
            t0,
            method="symmetric: orbit LP (HiGHS)",
            details=details,
            up_to_rounding=True,
            about="rounding",
        )
    c = exact_gain(st, P, clock) if exact is not False else None
    if c is not None and exact_of(c) <= c.allowance and st.best_witness[3]:
        v, resid, row_err, _, excess = st.best_witness
        return witness_result(
            P,
            v,
            resid,
            row_err,
            (
                f"up to rounding: the stored floats fail exactly (exact gap "
                f"{float(exact_of(c)):.3e} of the {c.source}), by less than the "
                f"{c.allowance:.1e} a pair within the rounding band can have, and the best "
                f"orbit witness (max residual {resid:.2e}) is within the band of the inputs' "
                f"own rounding ({INPUT_BAND_FACTOR:g} u (1 + |ln P|) per class mass)"
            ),
            t0,
            method="symmetric: orbit LP (HiGHS) + exact",
            details=details,
            up_to_rounding=True,
            about="rounding",
        )
    if c is not None and exact_of(c) <= c.allowance:
        # a gap that rounding of the masses explains: the stored floats fail, but a pair
        # with equal likelihood ratios is decided for the real channels first (otherwise
        # the verdict would depend on which of the two routes the time budget reaches)
        tight = tight_ratio_result(
            P,
            clock,
            details,
            f"the stored floats fail exactly by a rounding-sized gap "
            f"{float(exact_of(c)):.3e} <= {c.allowance:.1e}",
        )
        if tight is not None:
            return tight
    if c is not None:
        ce = Counterexample(
            c.G,
            uniform_prior(k),
            c.ev.gap if c.ev.gap > 0 else float(exact_of(c)),
            gap_exact=c.gap_exact,
            gap_bound=c.ev.bound,
            vulnerability_a=c.ev.va,
            vulnerability_b=c.ev.vb,
        )
        return RefinementResult(
            False,
            counterexample=ce,
            method="symmetric: orbit LP (HiGHS) + exact",
            exact=True,
            certified_by=(
                f"{c.source}; exact gap V_g[υ▷B] − V_g[υ▷A] = {scientific(exact_of(c))} > 0 "
                "in rational arithmetic on the stored class masses (float gap "
                f"{c.ev.gap:.3e}, rounding bound {c.ev.bound:.1e}: inconclusive in floats), "
                "and no orbit witness within the rounding band"
            ),
            time=time.perf_counter() - t0,
            details=details,
        )
    v, resid, row_err, in_input, excess = st.best_witness
    exact_res, why = (
        exact_support_result(P, v, t0, details) if exact is not False else (None, NO_EXACT)
    )
    if exact_res is not None:
        return exact_res
    if in_input:
        return witness_result(
            P,
            v,
            resid,
            row_err,
            (
                f"no certificate either way: the best orbit witness misses the rounding band "
                f"(by a factor {excess:.3g}; max residual {resid:.2e}) but is within the band of "
                f"the inputs' own rounding ({INPUT_BAND_FACTOR:g} u (1 + |ln P|) per class "
                f"mass); no gain has a gap above its rounding bound; {why}"
            ),
            t0,
            method="symmetric: orbit LP (HiGHS)",
            details=details,
            up_to_rounding=True,
            about="rounding",
        )
    msg = (
        f"no certificate either way: the best orbit witness misses its equations by {resid:.3e} "
        f"(a factor {excess:.3g} beyond the rounding band, beyond the inputs' rounding too), "
        "and no candidate gain has a provably positive gap"
    )
    tight = tight_ratio_result(P, clock, details, msg)
    if tight is not None:
        return tight
    if exact is False:
        raise VerificationError(msg + "; exact=False forbids the exact orbit LP; no verdict")
    if A.sizes.size == 1:
        # one class of A: its most negative class of B solved in rationals before the
        # exact orbit LP (grr ⋢ THE(θ*) at k = 10^4, eps 12: a class of mass ~1e-169 that
        # no float gain resolves, 20,000 orbit variables for the rational simplex)
        single = single_source_result(A, B, clock, st, exact_class=True, why=msg)
        if single is not None:
            return single
    return exact_orbit_result(P, v, clock, details, msg)


def refines_symmetric(A: Any, B: Any, prior: Any = None, **options: Any) -> RefinementResult:
    """:func:`qifldp.refines` of a pair with a symmetric channel (registered by
    :mod:`qifldp.symmetric`).

    Both channels symmetric over the same k: the polynomial LP over orbits
    (:func:`refines`). ``options`` are the keyword options of
    :func:`qifldp.refines`; only ``time_limit``, ``exact`` (the exact orbit LP, see
    :func:`qifldp.symmetric.refines`) and ``max_iter`` (unused) may differ from the
    defaults, with no prior.

    Examples
    --------
    >>> import qifldp as q, qifldp.symmetric as sym
    >>> bool(q.refines(sym.grr(10, 2.0), sym.grr(10, 1.0)))
    True
    """
    opts = refinement_options("refines_symmetric", options)
    check_kinds("refines", A, B)
    if prior is not None or opts["method"] != "auto":
        msg = (
            "refinement of symmetric channels takes no prior or method option "
            "(its counterexample uses the uniform prior; expand() the channels for more)"
        )
        raise ParameterError(msg)
    t0 = time.perf_counter()
    try:
        r = refines(A, B, time_limit=opts["time_limit"], exact=opts["exact"])
    except (SolverError, VerificationError, SizeError) as exc:  # a route past its size rule too
        if opts["strict"]:
            raise
        r = undecided_result(exc, "refinement", time.perf_counter() - t0)
    return r.with_channels(A, B)
