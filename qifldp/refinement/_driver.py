"""The decision procedure of refines and max_case_refines: engines, certificates, exact fallback."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import SizeError, SolverError, VerificationError
from . import exact as ex
from ._certify import (
    BAND_FACTOR,
    INPUT_BAND_FACTOR,
    band_certificate,
    band_gap_allowance,
    clean_witness,
    float_gap,
    float_max_case_gap,
    gain_from_weighted,
    input_rounding_band,
    rounding_band,
    witness_errors,
)
from ._prep import REDUCE_RTOL, Reduced, expand_witness, normalise_rows, reduce_columns
from ._symmetry import (
    MAX_WITNESS_ENTRIES,
    as_symmetric,
    bit_symmetric,
    explicit_witness,
    polished_masses,
    weighted_gain,
)
from .entropic import solve_entropic, solve_lbfgs
from .lp import solve_l1_lp, solve_l1_lp_columns
from .nnls import solve_nnls_columns
from .result import (
    TOLERANCES,
    WITNESS_ENTRY_ATOL,
    WITNESS_RESIDUAL_ATOL,
    WITNESS_ROW_SUM_ATOL,
    Counterexample,
    RefinementResult,
)

__all__ = [
    "Options",
    "Strategy",
    "STRATEGIES",
    "decide",
    "METHODS",
    "MAX_CASE_METHODS",
    "HIGHS_MAX_VARIABLES",
]

METHODS = ("auto", "highs", "entropic", "lbfgs", "exact")

#: The engines of max-case refinement (``nnls`` first under ``method="auto"``, HiGHS second).
MAX_CASE_METHODS = ("auto", "nnls", "highs", "exact")

#: ``method="auto"`` uses HiGHS when the reduced LP has at most this many
#: witness entries (|Y_A| |Y_B|), the entropic Newton engine above it.
HIGHS_MAX_VARIABLES: int = 3000

#: HiGHS is still tried as a second opinion up to this many witness entries
#: when the entropic engine cannot certify its answer.
HIGHS_FALLBACK_MAX_VARIABLES: int = 40000

#: An LP optimum (min Σ|A·W − B|) above this makes the dual gain the first
#: certificate tried; below it, the witness. Either way the certificate decides.
LP_ZERO: float = 1e-9


@dataclass
class Options:
    """Knobs of the decision procedure (documented in :func:`qifldp.refines`)."""

    method: str = "auto"
    exact: bool | None = None
    max_iter: int = 200
    time_limit: float = 120.0
    tol: float = 1e-13
    #: time.perf_counter() value by which the decision must end (set by decide)
    deadline: float | None = None

    def left(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.perf_counter()


@dataclass
class _Problem:
    """The prepared problem, shared by every strategy of the pipeline.

    The channels as given and row-normalised, their column reductions, the
    prior and the options; what the strategies learn on the way (engines tried,
    solver failures, candidate certificates as hints for exact arithmetic, the
    trace); and the exact (rational) problem, built once on first use.
    """

    A: np.ndarray  # as given
    B: np.ndarray
    An: np.ndarray  # rows normalised (original columns)
    Bn: np.ndarray
    ra: Reduced
    rb: Reduced
    prior: np.ndarray
    rowsum: bool
    details: dict[str, Any] = field(default_factory=dict)
    opts: Options = field(default_factory=Options)
    t0: float = 0.0
    labels: tuple | None = None
    #: (strategy, outcome) per strategy run or skipped, in order (RefinementResult.trace)
    trace: list[tuple[str, str]] = field(default_factory=list)
    #: engines run, their failures, the last reason a float certificate failed, hints (W, H)
    tried: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    reason: str = ""
    hints: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    _exact: _ExactProblem | None = None

    @property
    def Ar(self) -> np.ndarray:
        return self.ra.matrix

    @property
    def Br(self) -> np.ndarray:
        return self.rb.matrix

    def exact_problem(self) -> _ExactProblem:
        """The rational problem (stored floats read exactly, exact groups), built once."""
        if self._exact is None:
            self._exact = _exact_problem(self)
        return self._exact


# -- verification and results ---------------------------------------------------------


def _relation(rowsum: bool) -> str:
    return "refinement" if rowsum else "max-case refinement"


@dataclass
class _Checked:
    """What :func:`_verify` recomputed on the channels as given."""

    residual: float | None = None
    row_sum_error: float | None = None
    min_entry: float | None = None
    gap: float = float("nan")
    vulnerability_a: float = float("nan")
    vulnerability_b: float = float("nan")
    note: str = ""


def _verify(
    P: _Problem,
    *,
    witness: np.ndarray | None = None,
    gain: np.ndarray | None = None,
    gap_exact: Fraction | None = None,
    what: str = "",
) -> _Checked:
    """The one re-check of every certificate, on the channels as given.

    A witness must meet the tolerances of :mod:`qifldp.refinement.result`
    (entries >= −WITNESS_ENTRY_ATOL, |A·W − B| <= WITNESS_RESIDUAL_ATOL, rows
    within WITNESS_ROW_SUM_ATOL in the average case). A gain's gap V_g[π▷B] −
    V_g[π▷A] (max case: of the posterior max-case vulnerabilities) is recomputed
    in floating point and must be positive, or, when the two vulnerabilities
    agree to every float digit, its exact gap must be. Raises VerificationError.
    """
    if witness is not None:
        resid, rs, mn = witness_errors(P.A, P.B, witness, P.rowsum)
        if not (
            mn >= -WITNESS_ENTRY_ATOL
            and resid <= WITNESS_RESIDUAL_ATOL
            and (rs is None or rs <= WITNESS_ROW_SUM_ATOL)
        ):
            name = what or f"the {_relation(P.rowsum)} witness"
            msg = (
                f"{name} failed its re-check (max|A·W − B| = {resid:.3g}, min entry {mn:.3g}, "
                f"row-sum error {rs}); tolerances {TOLERANCES}"
            )
            raise VerificationError(msg)
        return _Checked(residual=resid, row_sum_error=rs, min_entry=mn)
    assert gain is not None
    from ..measures import g_vulnerability

    if P.rowsum:
        va = g_vulnerability(P.A, gain, P.prior)
        vb = g_vulnerability(P.B, gain, P.prior)
        gap = vb - va
    else:
        gap, _ = float_max_case_gap(P.A, P.B, gain, P.prior)
        va = vb = float("nan")
    note = ""
    if not gap > 0:
        if gap_exact is None or not gap_exact > 0:
            msg = (
                f"the counterexample's gap recomputed in floating point is {gap!r} (exact gap "
                f"{gap_exact}): the pair is too close to the boundary to state the gap in floats"
            )
            raise VerificationError(msg)
        # V_g of A and B agree to every float digit; the exact gap is the certificate
        note = (
            f"; the gap {float(gap_exact):.3g} is below the float resolution of V_g "
            f"({max(abs(va), abs(vb)):.3g}), so .gap is the exact gap rounded"
        )
        gap = float(gap_exact)
    return _Checked(gap=float(gap), vulnerability_a=float(va), vulnerability_b=float(vb), note=note)


def _result(P: _Problem, holds: bool, **fields: Any) -> RefinementResult:
    """A RefinementResult of this problem (relation, time, details filled in)."""
    return RefinementResult(
        holds=holds,
        relation=_relation(P.rowsum),
        time=time.perf_counter() - P.t0,
        details=P.details,
        **fields,
    )


def _holds_result(
    P: _Problem,
    W_red: np.ndarray,
    method: str,
    exact: bool,
    how: str,
    Wq: Any = None,
    expanded: bool = False,
) -> RefinementResult:
    """The verdict "holds" with the witness W_red (reduced unless ``expanded``), verified."""
    if expanded:
        W = W_red
    else:
        W = expand_witness(W_red, P.ra, P.rb, P.rowsum)
        W = clean_witness(W, P.rowsum)
    c = _verify(P, witness=W)
    return _result(
        P,
        True,
        witness=W,
        method=method,
        exact=exact,
        certified_by=how,
        residual=c.residual,
        row_sum_error=c.row_sum_error,
        min_entry=c.min_entry,
        exact_witness=Wq,
    )


def _fails_result(
    P: _Problem,
    g: np.ndarray,
    gap_exact: Fraction | None,
    bound: float,
    method: str,
    exact: bool,
    how: str,
) -> RefinementResult:
    """The verdict "fails" with the gain g, its gap recomputed and verified."""
    c = _verify(P, gain=g, gap_exact=gap_exact)
    ce = Counterexample(
        gain=g,
        prior=P.prior.copy(),
        gap=c.gap,
        gap_exact=gap_exact,
        gap_bound=bound,
        kind="average" if P.rowsum else "max-case",
        vulnerability_a=c.vulnerability_a,
        vulnerability_b=c.vulnerability_b,
    )
    return _result(
        P, False, counterexample=ce, method=method, exact=exact, certified_by=how + c.note
    )


# -- certificates ---------------------------------------------------------------------


def _gain_candidates(H: np.ndarray, rowsum: bool) -> list[np.ndarray]:
    """π-weighted gains to try: the whole H (average case) or each nonzero row (max case)."""
    if rowsum:
        return [H]
    rows = [H[j : j + 1] for j in range(H.shape[0]) if np.any(H[j])]
    return rows


def _prune_actions(g: np.ndarray, P: _Problem) -> np.ndarray:
    """Keep only the actions that are optimal for some output of A or B (V_g is unchanged)."""
    used: set[int] = set()
    gt = np.ascontiguousarray(g.T)
    step = max(1, 2**21 // max(1, g.shape[0]))  # bounded memory: outputs in chunks
    for C in (P.An, P.Bn):
        Jt = (P.prior[:, None] * C).T
        for i in range(0, Jt.shape[0], step):
            # (outputs x actions), arg-max along contiguous rows
            used.update(np.argmax(Jt[i : i + step] @ gt, axis=1).tolist())
    return g[sorted(used)]


def _certify_gain_float(P: _Problem, H: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """The first candidate gain whose float gap provably exceeds its rounding error."""
    best = None
    for Hc in _gain_candidates(H, P.rowsum):
        g = gain_from_weighted(Hc, P.prior)
        if P.rowsum and g.shape[0] > 32:
            g = _prune_actions(g, P)
        gap, bound = (float_gap if P.rowsum else float_max_case_gap)(P.An, P.Bn, g, P.prior)
        if gap > bound:
            if best is None or gap > best[1]:
                best = (g, gap, bound)
            if P.rowsum:
                break
    return best


def _order_rows_for_max_case(H: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Rows of H sorted by how strongly they separate (y_j · b_j, descending)."""
    score = np.einsum("jx,xj->j", H, B) if H.shape[0] == B.shape[1] else np.zeros(H.shape[0])
    return H[np.argsort(-score)]


# -- exact arithmetic -----------------------------------------------------------------


@dataclass
class _ExactProblem:
    Aq: list[list[Fraction]]
    Bq: list[list[Fraction]]
    a_groups: list[np.ndarray]
    b_groups: list[np.ndarray]
    Aq_full: list[list[Fraction]]
    Bq_full: list[list[Fraction]]


def _exact_groups(Mq: list[list[Fraction]], red: Reduced) -> list[np.ndarray]:
    """Split the float reduction's groups into groups of exactly proportional columns."""
    out: list[np.ndarray] = []
    n = len(Mq)
    for grp in red.groups:
        remaining = list(grp)
        while remaining:
            y0 = remaining[0]
            ref = [Mq[x][y0] for x in range(n)]
            xs = next(x for x in range(n) if ref[x] != 0)
            same, other = [y0], []
            for y in remaining[1:]:
                ratio = Mq[xs][y] / ref[xs]
                if all(Mq[x][y] == ratio * ref[x] for x in range(n)):
                    same.append(y)
                else:
                    other.append(y)
            out.append(np.array(same))
            remaining = other
    return out


def _exact_problem(P: _Problem) -> _ExactProblem:
    Aq_full = ex.rational_rows(P.A)
    Bq_full = ex.rational_rows(P.B)
    ga = _exact_groups(Aq_full, P.ra)
    gb = _exact_groups(Bq_full, P.rb)

    def merge(Mq, groups):
        return [[sum((row[y] for y in g), Fraction(0)) for g in groups] for row in Mq]

    return _ExactProblem(merge(Aq_full, ga), merge(Bq_full, gb), ga, gb, Aq_full, Bq_full)


def _float_to_exact_groups(P: _Problem, E: _ExactProblem, W_red: np.ndarray) -> np.ndarray:
    """Re-express a witness on the float groups as one on the exact groups."""
    Wo = expand_witness(W_red, P.ra, P.rb, P.rowsum)
    rows = np.array([Wo[g[0]] for g in E.a_groups])
    return np.stack([rows[:, g].sum(axis=1) for g in E.b_groups], axis=1)


def _expand_exact(P: _Problem, E: _ExactProblem, Wq: list[list[Fraction]]):
    """The exact witness on the original columns (None when that would be large)."""
    mA, pB = P.A.shape[1], P.B.shape[1]
    if mA * pB > 10**5:
        return None
    n = len(E.Bq_full)
    out = [[Fraction(0)] * pB for _ in range(mA)]
    for gi, g in enumerate(E.a_groups):
        for z in g:
            for gj, h in enumerate(E.b_groups):
                tot = E.Bq[next(x for x in range(n) if E.Bq[x][gj] != 0)][gj]
                xs = next(x for x in range(n) if E.Bq[x][gj] != 0)
                for y in h:
                    out[z][y] = Wq[gi][gj] * (E.Bq_full[xs][y] / tot)
    if P.rowsum:
        zero_cols = set(range(mA)) - {int(z) for g in E.a_groups for z in g}
        if zero_cols:
            w = [sum((E.Bq_full[x][y] for x in range(n)), Fraction(0)) / n for y in range(pB)]
            for z in zero_cols:
                out[z] = w[:]
    return tuple(tuple(r) for r in out)


def _float_recomputed_gap(P: _Problem, g: np.ndarray) -> float:
    from ..measures import g_vulnerability

    return g_vulnerability(P.B, g, P.prior) - g_vulnerability(P.A, g, P.prior)


def _exact_from_hints(P: _Problem, E: _ExactProblem, W_hint, H_hint) -> ex.ExactOutcome | None:
    """Cheap exact certificate first: the support of the float witness, solved exactly."""
    if W_hint is not None:
        Wq = ex.exact_verify_witness(
            E.Aq, E.Bq, _float_to_exact_groups(P, E, clean_witness(W_hint, P.rowsum)), P.rowsum
        )
        if Wq is not None:
            return ex.ExactOutcome(
                True, W=Wq, how="exact solve on the support of the float witness"
            )
    return None


def _exact_result(
    P: _Problem,
    why: str,
    W_hint: np.ndarray | None = None,
    H_hint: np.ndarray | None = None,
    strict: bool = False,
) -> RefinementResult:
    """Decide the stored floats in rational arithmetic (hints first), with a verified certificate.

    ``strict`` (``method="exact"``): no "up to rounding" verdict.
    """
    E = P.exact_problem()
    out = _exact_from_hints(P, E, W_hint, H_hint)
    max_case_band: tuple[np.ndarray | None] | None = None  # computed once, when first needed
    if out is None and H_hint is not None:
        for Hc in _gain_candidates(H_hint, P.rowsum):
            g = gain_from_weighted(Hc, P.prior)
            if P.rowsum and g.shape[0] > 32:
                g = _prune_actions(g, P)
            gf = (
                (_float_recomputed_gap(P, g) > 0)
                if P.rowsum
                else (float_max_case_gap(P.A, P.B, g, P.prior)[0] > 0)
            )
            if not gf:
                continue  # the API promises a positive gap recomputed in floating point
            gq = (ex.exact_gap if P.rowsum else ex.exact_max_case_gap)(
                E.Aq_full, E.Bq_full, g, P.prior
            )
            if not P.rowsum and not strict:  # a witness within the rounding band wins
                if max_case_band is None:
                    max_case_band = (_rounding_witness(P, E, W_hint),)
                if max_case_band[0] is not None:
                    return _rounding_result(P, max_case_band[0], gq, "float gain, exact gap > 0")
            if gq > band_gap_allowance(P.An.shape[1], g, P.prior) or not P.rowsum:
                _, bound = (float_gap if P.rowsum else float_max_case_gap)(P.An, P.Bn, g, P.prior)
                return _fails_result(
                    P, g, gq, bound, "exact", True, f"float gain, exact gap > 0 ({why})"
                )
    if out is None:
        out = ex.exact_decide(E.Aq, E.Bq, P.rowsum, deadline=P.opts.deadline)
    if out.holds:
        assert out.W is not None
        if not ex.check_exact_witness(E.Aq, E.Bq, out.W, P.rowsum):  # pragma: no cover
            msg = "the exact witness failed its exact re-check"
            raise VerificationError(msg)
        Wo = clean_witness(_on_original_columns(P, E, out.W), P.rowsum)
        c = _verify(P, witness=Wo, what="the float image of the exact witness")
        return _result(
            P,
            True,
            witness=Wo,
            method="exact",
            exact=True,
            certified_by=f"{out.how}; checked exactly ({why})",
            residual=c.residual,
            row_sum_error=c.row_sum_error,
            min_entry=c.min_entry,
            exact_witness=_expand_exact(P, E, out.W),
        )
    assert out.H is not None
    Hq = out.H
    if not P.rowsum:
        Hq = [r for r in Hq if any(r)]
        Hq = Hq[:1]
    # a float gain from the exact weighted gain; its own exact gap must be > 0
    Hf = np.array([[float(v) for v in row] for row in Hq])
    g = gain_from_weighted(Hf, P.prior)
    gq = (ex.exact_gap if P.rowsum else ex.exact_max_case_gap)(E.Aq_full, E.Bq_full, g, P.prior)
    rounded = None if strict else _rounding_witness(P, E, W_hint)
    if rounded is not None:
        return _rounding_result(P, rounded, gq, out.how)
    if not gq > 0:
        msg = (
            f"the stored floats fail exactly ({out.how}), and no witness is within the "
            "rounding band, but rounding the exact Farkas gain to floats loses its gap "
            f"(exact gap of the float gain {float(gq):.3g}); no float counterexample can be stated"
        )
        raise VerificationError(msg)
    gap, bound = (float_gap if P.rowsum else float_max_case_gap)(P.An, P.Bn, g, P.prior)
    how = (
        f"{out.how}; exact gap {float(gq):.3g} > 0 and no witness within the rounding band ({why})"
    )
    return _fails_result(P, g, gq, bound, "exact", True, how)


def _on_original_columns(P: _Problem, E: _ExactProblem, Wq) -> np.ndarray:
    """A witness on the exact groups (rationals) as a float witness on the original columns.

    Each group of B's proportional columns gets its mass in the proportion of the
    columns' sums; columns of A in no group (all zero) get B's average row.
    """
    Wf = np.array([[float(v) for v in row] for row in Wq])
    Wo = np.zeros((P.A.shape[1], P.B.shape[1]))
    for gi, g in enumerate(E.a_groups):
        for gj, h in enumerate(E.b_groups):
            share = P.B[:, h].sum(axis=0) / P.B[:, h].sum()
            Wo[np.ix_(g, h)] = Wf[gi, gj] * share
    used = np.zeros(P.A.shape[1], bool)
    for g in E.a_groups:
        used[g] = True
    if P.rowsum and not used.all():
        Wo[~used] = P.B.sum(axis=0) / P.B.sum()
    return Wo


def _rounding_witness(P: _Problem, E: _ExactProblem, W_hint: np.ndarray | None):
    """A witness within the rounding band for a pair whose stored floats fail exactly, or None.

    The float witness (the hint, then the L1 LP's) is tried as it is; then the
    equations A·W = B (W·1 = 1) are solved exactly near it, whatever the signs; the solution is
    clipped at 0 and its rows renormalised in floats, then held to the ordinary
    float certificate (:func:`band_certificate`: |B − A·W| within the rounding
    band, entrywise relative). A pair passes only when the exact solution's
    negative entries are rounding-sized relative to the entries they feed.
    Returns the witness on the original columns.
    """
    cands = [] if W_hint is None else [W_hint]
    solvers: list[Callable[[np.ndarray, np.ndarray], Any]] = (
        [solve_l1_lp] if P.rowsum else [solve_nnls_columns, solve_l1_lp_columns]
    )
    for solve in solvers:
        try:
            cands.append(solve(P.Ar, P.Br).W)
        except SolverError:
            pass
    for W_red in cands:
        if W_red is None or not np.all(np.isfinite(W_red)):
            continue
        bc = band_certificate(P.Ar, P.Br, W_red, P.rowsum)  # the float witness itself
        if bc.W is not None:
            return clean_witness(expand_witness(bc.W, P.ra, P.rb, P.rowsum), P.rowsum)
        Wg = _float_to_exact_groups(P, E, clean_witness(W_red, P.rowsum))
        Wq = ex.exact_verify_witness(E.Aq, E.Bq, Wg, P.rowsum, signed=True)
        if Wq is None:
            continue
        Wo = clean_witness(_on_original_columns(P, E, Wq), P.rowsum)
        bc = band_certificate(P.An, P.Bn, Wo, P.rowsum, rounds=0)
        if bc.W is not None:
            return bc.W
    return None


def _rounding_result(P: _Problem, W: np.ndarray, gq: Fraction, how: str) -> RefinementResult:
    """The stored floats fail exactly, but a witness fits the rounding band: "up to rounding".

    Rational arithmetic on the stored floats says A ⋢ B, yet B = A·W up to the
    rounding band (the ordinary float certificate of "holds"): the floats cannot
    tell this pair from one that refines — as with olh(2, 2) ⊑ oue(2, 2), which holds
    for the real protocols. The verdict is "holds up to rounding", never an exception.
    """
    c = _verify(P, witness=W)
    resid = c.residual
    return _result(
        P,
        True,
        witness=W,
        method="exact",
        exact=False,
        certified_by=(
            f"up to rounding: B = A·W within the rounding band ({BAND_FACTOR:g} (|Y_A| + 2) u "
            f"(A·W + B) entrywise; max residual {resid:.3g}), while the stored floats fail "
            f"exactly ({how}) by "
            + (
                f"a gap of {float(gq):.3g}"
                if gq > 0
                else "a gap that the rounded float gain cannot even carry"
            )
            + ", which rounding of the inputs explains"
        ),
        residual=resid,
        row_sum_error=c.row_sum_error,
        min_entry=c.min_entry,
        up_to_rounding=True,
        about="rounding",
    )


def _exact_confirm(
    P: _Problem, res: RefinementResult, W_red: np.ndarray | None
) -> RefinementResult:
    """exact=True: confirm a float-certified verdict in rational arithmetic (or decide exactly)."""
    E = P.exact_problem()
    if res.holds and W_red is not None:
        Wg = _float_to_exact_groups(P, E, W_red)
        Wq = ex.exact_verify_witness(E.Aq, E.Bq, Wg, P.rowsum)
        if Wq is not None:
            return replace(
                res,
                exact=True,
                certified_by=res.certified_by
                + "; exact witness on its support checked in rationals",
                exact_witness=_expand_exact(P, E, Wq),
                time=time.perf_counter() - P.t0,
            )
    elif not res.holds and res.counterexample is not None:
        ce = res.counterexample
        gq = (ex.exact_gap if P.rowsum else ex.exact_max_case_gap)(
            E.Aq_full, E.Bq_full, ce.gain, ce.prior
        )
        if gq > 0:
            return replace(
                res,
                counterexample=replace(ce, gap_exact=gq),
                exact=True,
                certified_by=res.certified_by + "; gap > 0 in exact rationals",
                time=time.perf_counter() - P.t0,
            )
    # decide the stored floats exactly (a float "holds" that rationals refute is stated
    # "up to rounding" when rounding of the inputs explains the gap, else "fails")
    return _exact_result(P, "exact=True", W_hint=W_red)


# -- the procedure --------------------------------------------------------------------


def _quick_witness(P: _Problem) -> tuple[np.ndarray, str] | None:
    """Trivial witnesses: B leaks nothing (one reduced column), or A = B up to column order."""
    Ar, Br = P.Ar, P.Br
    if P.rowsum and Br.shape[1] == 1:
        return np.ones((Ar.shape[1], 1)), "no-leak"
    if Ar.shape == Br.shape:
        ka = np.round(np.log(np.where(Ar > 0, Ar, 1.0)) / REDUCE_RTOL).astype(np.int64)
        kb = np.round(np.log(np.where(Br > 0, Br, 1.0)) / REDUCE_RTOL).astype(np.int64)
        ka[Ar == 0] = np.iinfo(np.int64).min
        kb[Br == 0] = np.iinfo(np.int64).min
        lookup = {ka[:, z].tobytes(): z for z in range(ka.shape[1])}
        found = [lookup.get(kb[:, j].tobytes()) for j in range(kb.shape[1])]
        perm = [z for z in found if z is not None]
        if len(perm) == len(found) and len(set(perm)) == len(perm):
            W = np.zeros((Ar.shape[1], Br.shape[1]))
            W[perm, np.arange(len(perm))] = 1.0
            return W, "identical"
    return None


def _min_norm_guess(P: _Problem) -> np.ndarray | None:
    """W = 1 b̄ᵀ + A⁺(B − 1 b̄ᵀ) (b̄ = mean row of B): A·W = B and W·1 = 1; a witness if W >= 0.

    The least-norm correction of the "ignore the output" remapping. For pairs in
    the interior of the refinement cone (e.g. B = A·R with R dense) it is
    nonnegative, and one O(|X|² |Y_A| + |X| |Y_A| |Y_B|) solve replaces the LP.
    Max case: R = A⁺B.
    """
    A, B = P.Ar, P.Br
    if P.rowsum:
        bbar = B.mean(axis=0)
        X = np.linalg.lstsq(A, B - bbar[None, :], rcond=None)[0]
        W = X + bbar[None, :]
    else:
        W = np.linalg.lstsq(A, B, rcond=None)[0]
    if not np.all(np.isfinite(W)) or W.min() < 0:
        return None
    return W


def _run_engine(
    P: _Problem, engine: str, opts: Options
) -> tuple[np.ndarray | None, np.ndarray | None, dict]:
    """Candidates (W on reduced channels, π-weighted gain H) from one float engine."""
    Ar, Br = P.Ar, P.Br
    info: dict[str, Any] = {"engine": engine}
    if engine in ("highs", "nnls") and not P.rowsum:
        # columns with the most extreme posteriors first; stop at the first certified hyperplane
        post = Br / Br.sum(axis=0)
        order = np.argsort(-post.max(axis=0), kind="stable")
        found: dict[str, Any] = {}

        def stop(j: int, y: np.ndarray, opt: float) -> bool:
            if opt <= LP_ZERO:
                return False
            if _certify_gain_float(P, y[None, :]) is not None:
                found["H"] = y[None, :]
                return True
            return False

        solve = solve_nnls_columns if engine == "nnls" else solve_l1_lp_columns
        out = solve(Ar, Br, order=order, stop=stop, time_limit=opts.left())
        info.update(lp_optimum=out.optimum, iterations=out.iterations)
        if "H" in found:
            return None, found["H"], info
        H = _order_rows_for_max_case(out.H, Br)
        # the gain is tried first when the optimum is positive, the witness first otherwise
        return out.W, H, info
    if engine == "highs":
        out = (
            solve_l1_lp(Ar, Br, time_limit=opts.left())
            if P.rowsum
            else solve_l1_lp_columns(Ar, Br, time_limit=opts.left())
        )
        info.update(lp_optimum=out.optimum, iterations=out.iterations)
        H = out.H if P.rowsum else _order_rows_for_max_case(out.H, Br)
        # the gain is tried first when the optimum is positive, the witness first otherwise
        return out.W, H, info
    if not P.rowsum:  # pragma: no cover - max-case uses HiGHS only
        msg = f"engine {engine!r} is not available for max-case refinement"
        raise SolverError(msg)
    separated: dict[str, Any] = {}

    def on_sep(H: np.ndarray) -> bool:
        c = _certify_gain_float(P, H)
        if c is not None:
            separated["cert"] = (H, c)
            return True
        return False

    if engine == "entropic":
        eo = solve_entropic(
            Ar,
            Br,
            tol=opts.tol,
            max_iter=opts.max_iter,
            time_limit=max(opts.left() or opts.time_limit, 0.01),
            on_separation=on_sep,
        )
    else:
        eo = solve_lbfgs(Ar, Br, on_separation=on_sep)
    info.update(
        iterations=eo.iterations,
        cg_iterations=eo.cg_iterations,
        message=eo.message,
        dual_residual=eo.residual,
    )
    if eo.separated:
        return None, separated["cert"][0], info
    if not np.all(np.isfinite(eo.W)):
        msg = f"the {engine} engine produced non-finite values ({eo.message}); no verdict"
        raise SolverError(msg)
    if eo.residual > WITNESS_RESIDUAL_ATOL:
        # no witness within tolerance and no separating gain: try −G anyway
        return None, -eo.G.T, info
    return eo.W, None, info


def _try_certify(
    P: _Problem, W: np.ndarray | None, H: np.ndarray | None, method: str
) -> tuple[RefinementResult | None, np.ndarray | str | None]:
    """Certify the candidates in floating point; returns (result, W_red) or (None, reason)."""
    reasons = []
    lp_opt = P.details.get("lp_optimum")
    if W is not None and H is not None and lp_opt is not None and lp_opt <= LP_ZERO:
        bc = band_certificate(P.Ar, P.Br, W, P.rowsum)
        if bc.W is not None:
            return _holds_result(P, bc.W, method, False, bc.reason), bc.W
        reasons.append("witness: " + bc.reason)
        W = None
    if H is not None:
        c = _certify_gain_float(P, H)
        if c is not None:
            g, gap, bound = c
            how = (
                f"float gap {gap:.3g} exceeds {bound:.2g} (rigorous rounding bound plus "
                "what a rounding-band perturbation of the channels could explain)"
            )
            return _fails_result(P, g, None, bound, method, False, how), None
        reasons.append("the dual gain's gap is not above its rounding bound")
    if W is not None:
        bc = band_certificate(P.Ar, P.Br, W, P.rowsum)
        if bc.W is not None:
            return _holds_result(P, bc.W, method, False, bc.reason), bc.W
        reasons.append("witness: " + bc.reason)
    return None, "; ".join(reasons) or "no candidate certificate"


def _try_orbits(P: _Problem, labels: Any) -> RefinementResult | str:
    """Bit-symmetric (one-hot) pairs via qifldp.symmetric.refines; why not, when it does not apply.

    The two channels are rebuilt as SymmetricChannel objects from their detected
    α tables and decided by the symmetric orbit LP; its certificate is made
    explicit (orbit witness expanded, symmetric gain as a matrix) and re-checked
    on the explicit channels like every other certificate. A reason (the general
    engines decide) when the symmetric solver gives no verdict or its certificate
    does not pass the explicit re-check.
    """
    from ..symmetric import refines as symmetric_refines

    (ia, oa), (ib, ob) = labels
    SA = bit_symmetric(P.An, ia, oa)
    if SA is None:
        return "A is not a bit-symmetric (one-hot) channel"
    SB = bit_symmetric(P.Bn, ib, ob)
    if SB is None or SB.k != SA.k:
        return "B is not a bit-symmetric (one-hot) channel over the same k"
    CA, CB = as_symmetric(SA), as_symmetric(SB)
    try:
        sres = symmetric_refines(CA, CB)
    except (SolverError, VerificationError) as exc:
        P.details["orbits_undecided"] = str(exc)
        return f"failed: {exc}"
    sd = sres.details or {}
    P.details.update(
        engine="orbits",
        orbit_variables=sd.get("n_variables"),
        lp_optimum=sd.get("lp_least_residual"),
        orbit_method=sres.method,
    )
    if not sres.holds:
        assert sres.counterexample is not None
        H = weighted_gain(sres.counterexample.gain)
        c = _certify_gain_float(P, H)
        if c is not None:
            g, gap, bound = c
            how = (
                f"{sres.method} certificate ({sres.certified_by}) lifted to an explicit gain; "
                f"float gap {gap:.3g} exceeds {bound:.2g} "
                "(rigorous rounding bound plus the rounding-band allowance)"
            )
            return _fails_result(P, g, None, bound, "orbits", False, how)
        return "the lifted symmetric gain's gap is not above its rounding bound"
    p, pb = SA.bits.shape[0], SB.bits.shape[0]
    if p * pb > MAX_WITNESS_ENTRIES:
        msg = (
            f"A ⊑ B holds by the orbit LP of qifldp.symmetric.refines ({sres.certified_by}), "
            f"but the explicit witness would have {p} x {pb} = {p * pb} entries (limit "
            f"MAX_WITNESS_ENTRIES = {MAX_WITNESS_ENTRIES}); use qifldp.symmetric.refines, "
            "whose witness is stored by orbits"
        )
        raise SizeError(msg)
    wit = sres.witness
    if hasattr(wit, "w") and not hasattr(wit, "mass"):  # a lifted bitwise witness w^{⊗k}
        w = np.asarray(wit.w, dtype=np.float64)
        J = SA.bits.astype(np.int64) @ SB.bits.T.astype(np.int64)
        sa, sb = SA.weight[:, None].astype(np.int64), SB.weight[None, :].astype(np.int64)
        W = (
            w[1, 1] ** J
            * w[1, 0] ** (sa - J)
            * w[0, 1] ** (sb - J)
            * w[0, 0] ** (SA.k - sa - sb + J)
        )
    else:
        W = explicit_witness(polished_masses(wit, SA, SB, P.An, P.Bn), SA, SB)
    AW = P.An @ W
    if (
        np.all(np.abs(P.Bn - AW) <= rounding_band(P.An, P.Bn, W, AW))
        and np.abs(W.sum(axis=1) - 1.0).max() <= 8.0 * (W.shape[1] + 2) * 2.0**-53
    ):
        how = (
            "orbit witness of qifldp.symmetric.refines (constant on orbits of the symmetric "
            "group), expanded: A·W = B up to the rounding band (max residual "
            f"{float(np.abs(P.Bn - AW).max()):.3g})"
        )
        return _holds_result(P, W, "orbits", False, how, expanded=True)
    return _orbit_transfer_result(P, W, AW, sres, max(SA.deviation, SB.deviation), SA.k)


#: Largest deviation of an explicit entry C from its class value, in units of
#: u (1 + |ln C|), for which an orbit verdict is carried over to the explicit channels
#: "up to rounding": the rounding of an entry computed in log space, the band the
#: symmetric route grants its own stored masses (INPUT_BAND_FACTOR there); k more units
#: are allowed for an entry computed as a product of k factors.
ORBIT_TRANSFER_UNITS: float = 16.0


def _orbit_transfer_result(
    P: _Problem,
    W: np.ndarray,
    AW: np.ndarray,
    sres: RefinementResult,
    deviation: float,
    k: int,
) -> RefinementResult | str:
    """The orbit verdict "holds" on the explicit channels when its expansion misses the band.

    The orbit LP decided the class masses read off these channels (each explicit entry
    is its class value up to ``deviation`` u (1 + |ln C|), u = 2^-53; the symmetric
    channel stores the masses in log space, another few units of rounding). Expanded to
    2^k x 2^k floats, its witness can miss the explicit entrywise band (tiny entries,
    many terms) by rounding of the expansion alone. The verdict is then carried over
    as "holds up to rounding" (``about="rounding"``), with the explicit residual
    stated, instead of no verdict.
    """
    limit = ORBIT_TRANSFER_UNITS + k  # + the rounding of a product of k factors
    if not deviation <= limit:
        return (
            "the expanded orbit witness is not within the rounding band, and the channels' "
            f"entries deviate from their class values by up to {deviation:.3g} u (1 + |ln C|), "
            f"beyond ORBIT_TRANSFER_UNITS + k = {limit:g}"
        )
    unused = ~np.any(P.An > 0, axis=0)  # outputs of A that never occur: any row will do
    if np.any(unused):
        W = W.copy()
        W[unused] = P.Bn.sum(axis=0) / P.Bn.sum()
    row_err = float(np.abs(W.sum(axis=1) - 1.0).max())
    if not row_err <= 8.0 * (W.shape[1] + 2) * 2.0**-53:
        return (
            "the expanded orbit witness is not within the rounding band, and its rows miss 1 "
            f"by up to {row_err:.3g}"
        )
    resid = float(np.abs(P.Bn - AW).max())
    band = rounding_band(P.An, P.Bn, W, AW)
    excess = float(np.max(np.abs(P.Bn - AW) - band))
    how = (
        f"up to rounding: A ⊑ B holds for the class masses read off these channels "
        f"({sres.certified_by}); the channels' entries equal their class values within "
        f"{deviation:.3g} u (1 + |ln C|), and the orbit witness expanded to {W.shape[0]} x "
        f"{W.shape[1]} floats re-checks to max|A·W − B| = {resid:.3g}, missing the explicit "
        f"entrywise rounding band {BAND_FACTOR:g} (|Y_A| + 2) u (A·W + B) by up to "
        f"{excess:.2g}: rounding of the expansion and of the class masses"
    )
    res = _holds_result(P, W, "orbits", False, how, expanded=True)
    return replace(res, up_to_rounding=True, about="rounding")


# -- the pipeline ---------------------------------------------------------------------


@dataclass
class _Decided:
    """A strategy's verified verdict.

    ``W_red``: the float witness on the reduced channels (for the exact
    confirmation of ``exact=True``); ``final``: no exact confirmation follows
    (the verdict is already exact, or the route is not offered with ``exact=True``).
    """

    result: RefinementResult
    W_red: np.ndarray | None = None
    final: bool = False


#: What a strategy returns: a verified verdict, or the reason it did not decide.
_Outcome = _Decided | str


@dataclass(frozen=True)
class Strategy:
    """One step of the decision pipeline.

    ``skip(P)`` gives the reason the step does not apply to the problem (None:
    it applies); ``run(P)`` returns a verified verdict (:class:`_Decided`) or the
    reason it did not decide. ``label(P)`` names the step in the trace.
    """

    name: str
    run: Callable[[_Problem], _Outcome]
    skip: Callable[[_Problem], str | None] = lambda P: None
    label: Callable[[_Problem], str] | None = None

    def title(self, P: _Problem) -> str:
        return self.name if self.label is None else self.label(P)


def _skip_unless_exact_method(P: _Problem) -> str | None:
    return None if P.opts.method == "exact" else f"method={P.opts.method!r}"


def _run_exact_method(P: _Problem) -> _Outcome:
    return _Decided(_exact_result(P, "method='exact'", strict=True), final=True)


def _skip_orbits(P: _Problem) -> str | None:
    if not P.rowsum:
        return "max-case refinement"
    if P.labels is None:
        return "no labels"
    if P.opts.method != "auto":
        return f"method={P.opts.method!r}"
    if P.opts.exact is True:
        return "exact=True"
    return None


def _run_orbits(P: _Problem) -> _Outcome:
    res = _try_orbits(P, P.labels)
    return res if isinstance(res, str) else _Decided(res, final=True)


def _run_candidate(P: _Problem, found: tuple[np.ndarray, str] | None, missing: str) -> _Outcome:
    if found is None:
        return missing
    W, name = found
    res, W_red = _try_certify(P, W, None, name)
    if res is None:
        assert isinstance(W_red, str)
        return W_red
    return _Decided(res, W_red if isinstance(W_red, np.ndarray) else None)


def _run_quick(P: _Problem) -> _Outcome:
    return _run_candidate(P, _quick_witness(P), "B is not trivial and A is not B permuted")


def _skip_unless_auto(P: _Problem) -> str | None:
    return None if P.opts.method == "auto" else f"method={P.opts.method!r}"


def _run_min_norm(P: _Problem) -> _Outcome:
    W = _min_norm_guess(P)
    return _run_candidate(P, None if W is None else (W, "min-norm"), "the least-norm W is negative")


def _engine_order(P: _Problem) -> list[str]:
    """The float engines for this problem: the chosen one, then the second opinion."""
    size = P.Ar.shape[1] * P.Br.shape[1]
    engine = P.opts.method
    if not P.rowsum:  # max case: least squares per column, HiGHS as the second opinion
        return ["highs"] if engine == "highs" else ["nnls", "highs"]
    if engine == "auto":
        engine = "highs" if size <= HIGHS_MAX_VARIABLES else "entropic"
    if engine == "highs":
        second = ["entropic"] if P.rowsum else []
    else:
        second = ["highs"] if size <= HIGHS_FALLBACK_MAX_VARIABLES else []
    return [engine, *second]


def _engine_strategy(slot: int) -> Strategy:
    def skip(P: _Problem) -> str | None:
        return None if slot < len(_engine_order(P)) else "no further engine for this size"

    def run(P: _Problem) -> _Outcome:
        eng = _engine_order(P)[slot]
        P.tried.append(eng)
        try:
            W, H, info = _run_engine(P, eng, P.opts)
        except SolverError as exc:
            # another engine or exact arithmetic may still decide
            P.failures.append(str(exc))
            P.details["solver_failures"] = P.failures
            P.reason = f"{eng} failed"
            return f"failed: {exc}"
        P.details.update(info)
        res, W_red = _try_certify(P, W, H, eng)
        if res is not None:
            return _Decided(res, W_red if isinstance(W_red, np.ndarray) else None)
        assert isinstance(W_red, str)
        P.reason = W_red
        P.hints = (W if W is not None else P.hints[0], H if H is not None else P.hints[1])
        return W_red

    def label(P: _Problem) -> str:
        order = _engine_order(P)
        return f"engine {order[slot]}" if slot < len(order) else f"engine {slot + 1}"

    return Strategy(f"engine {slot + 1}", run, skip, label)


def _run_exact_fallback(P: _Problem) -> _Outcome:
    """Rational arithmetic when no float certificate passed (or raise what stands in the way)."""
    why = f"floating point could not certify ({P.reason}; engines {P.tried})"
    if P.failures:
        why += "; solver failures: " + " | ".join(P.failures)
    all_failed = len(P.failures) == len(P.tried)
    P.details["float_undecided"] = why
    if P.opts.exact is False:
        error = SolverError if all_failed else VerificationError
        raise error(why + "; exact=False forbids rational arithmetic")
    left = P.opts.left()
    if left is not None and left <= 0:
        msg = (
            f"{why}; the time limit (time_limit = {P.opts.time_limit:g} s) ran out before "
            "a certificate either way: raise time_limit (or try method='exact' for a "
            "small pair)"
        )
        raise SolverError(msg)
    note = (
        "every float engine failed"
        if all_failed
        else "float certificate inconclusive near the boundary"
    )
    try:
        return _Decided(_exact_result(P, note, P.hints[0], P.hints[1]), final=True)
    except ex.ExactTooLarge as exc:
        if all_failed:
            raise SolverError(f"{why}; {exc}; no verdict") from None
        within = _input_band_result(P, f"{why}; {exc}")
        if within is not None:
            return _Decided(within, final=True)
        msg = (
            f"{why}; {exc}. No certificate either way within the budgets: the pair "
            "is close to the refinement boundary (raise time_limit, or compare "
            "smaller or symmetric channels)"
        )
        raise VerificationError(msg) from None


def _input_band_result(P: _Problem, why: str) -> RefinementResult | None:
    """ "Holds up to rounding" when the best float witness is within the inputs' own rounding.

    No certificate either way and exact arithmetic out of reach: if the float
    witness (clipped, rows renormalised) fits |B − A·W| <= the rounding band plus
    what rounding of the inputs explains (:func:`input_rounding_band` of B, and of A
    carried through W), the floats cannot tell the pair from one that refines; the
    symmetric route says the same of its class masses. None otherwise.
    """
    W_red = P.hints[0]
    if W_red is None or not np.all(np.isfinite(W_red)):
        return None
    W = clean_witness(W_red, P.rowsum)
    AW = P.Ar @ W
    band = rounding_band(P.Ar, P.Br, W, AW) + input_rounding_band(P.Br)
    band += input_rounding_band(P.Ar) @ W
    excess = np.abs(P.Br - AW) - band
    if not np.all(excess <= 0):
        return None
    Wo = clean_witness(expand_witness(W, P.ra, P.rb, P.rowsum), P.rowsum)
    resid = float(np.abs(P.A @ Wo - P.B).max())
    how = (
        "up to rounding: no certificate either way — the best float witness misses the "
        f"rounding band but fits within what the inputs' own rounding explains "
        f"({INPUT_BAND_FACTOR:g} u (1 + |ln P|) per entry of A and B; max residual "
        f"{resid:.3g}), and no gain has a gap above its rounding bound ({why})"
    )
    res = _holds_result(P, Wo, "float", False, how, expanded=True)
    return replace(res, up_to_rounding=True, about="rounding")


#: The decision pipeline, in order; the first verified verdict ends it. ``method="exact"``
#: decides in rational arithmetic alone; otherwise the orbit LP (one-hot channels), the
#: trivial witnesses, the least-norm remapping, the float engines, and rational arithmetic
#: when no float certificate passed. ``exact=True`` then confirms a float verdict exactly.
STRATEGIES: tuple[Strategy, ...] = (
    Strategy("exact method", _run_exact_method, _skip_unless_exact_method),
    Strategy("orbits", _run_orbits, _skip_orbits),
    Strategy("quick", _run_quick),
    Strategy("min-norm", _run_min_norm, _skip_unless_auto),
    _engine_strategy(0),
    _engine_strategy(1),
    Strategy("exact", _run_exact_fallback),
)


def decide(
    A: np.ndarray,
    B: np.ndarray,
    prior: np.ndarray,
    rowsum: bool,
    opts: Options,
    labels: tuple | None = None,
) -> RefinementResult:
    """Decide A ⊑ B (``rowsum``) or A ⊑max B with a verified certificate.

    ``labels`` = ((inputs_A, outputs_A), (inputs_B, outputs_B)) enables the orbit
    LP for bit-symmetric (one-hot) channels. The strategies of
    :data:`STRATEGIES` run in order on one prepared problem until one returns a
    verified verdict; the result's ``trace`` lists each step and its outcome.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> r = decide(A, A @ np.array([[0.7, 0.3], [0.4, 0.6]]), np.full(2, 0.5), True, Options())
    >>> bool(r), r.trace[-1]
    (True, ('min-norm', 'decided'))
    """
    t0 = time.perf_counter()
    opts = replace(opts, deadline=t0 + opts.time_limit)
    An, Bn = normalise_rows(A), normalise_rows(B)
    ra, rb = reduce_columns(An), reduce_columns(Bn)
    spent = time.perf_counter() - t0
    if spent >= opts.time_limit:
        msg = (
            f"the time limit (time_limit = {opts.time_limit:g} s) ran out while merging "
            f"proportional columns ({spent:.3g} s for {A.shape[1]} + {B.shape[1]} columns), "
            "before any solver: no verdict; raise time_limit"
        )
        raise SolverError(msg)
    P = _Problem(A, B, An, Bn, ra, rb, prior, rowsum, opts=opts, t0=t0, labels=labels)
    P.details.update(reduced_shapes=(ra.matrix.shape, rb.matrix.shape))
    decided: _Decided | None = None
    for strategy in STRATEGIES:
        title = strategy.title(P)
        why_not = strategy.skip(P)
        if why_not is not None:
            P.trace.append((title, "skipped: " + why_not))
            continue
        out = strategy.run(P)
        if isinstance(out, _Decided):
            P.trace.append((title, "decided"))
            decided = out
            break
        P.trace.append((title, out if out.startswith("failed: ") else "undecided: " + out))
    if decided is None:  # pragma: no cover - the exact step decides or raises
        msg = f"no strategy decided the pair: {P.trace}"
        raise VerificationError(msg)
    res = decided.result
    if opts.exact is True and not decided.final:
        res = _exact_confirm(P, res, decided.W_red)
        P.trace.append(("exact confirmation", "decided"))
    return replace(res, trace=tuple(P.trace))
