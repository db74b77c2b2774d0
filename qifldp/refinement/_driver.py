"""The decision procedure of refines and max_case_refines: the float engines, and the
pipeline of strategies (exact method, orbits, trivial witnesses, least-norm remapping,
engines, exact fallback) that runs them on one prepared problem."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..deadline import expired, limit, now, reached, until
from ..errors import SolverError, VerificationError
from . import exact as ex
from ._certify import (
    band_certificate,
    band_text,
)
from ._exact_route import (
    exact_confirm,
    exact_gain_result,
    exact_result,
    input_band_result,
)
from ._orbits import (
    try_orbits,
)
from ._prep import REDUCE_RTOL, expand_witness, normalise_rows, reduce_columns
from ._problem import (
    Options,
    Problem,
    certify_gain_float,
    fails_result,
    holds_result,
    order_rows_for_max_case,
    witness_in_band,
)
from .entropic import solve_entropic, solve_lbfgs
from .forced import forced_witness, ratio_gain
from .lp import solve_l1_lp, solve_l1_lp_columns
from .nnls import solve_nnls_columns
from .result import (
    WITNESS_RESIDUAL_ATOL,
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


# -- the procedure --------------------------------------------------------------------


def _column_keys(M: np.ndarray) -> np.ndarray:
    """Entries as integer keys, equal for entries within ~REDUCE_RTOL relative (zeros apart)."""
    keys = np.round(np.log(np.where(M > 0, M, 1.0)) / REDUCE_RTOL).astype(np.int64)
    keys[M == 0] = np.iinfo(np.int64).min
    return keys


def _quick_witness(P: Problem) -> tuple[np.ndarray, str] | None:
    """Trivial witnesses: B leaks nothing (one reduced column), or A = B up to column order."""
    Ar, Br = P.Ar, P.Br
    if P.rowsum and Br.shape[1] == 1:
        return np.ones((Ar.shape[1], 1)), "no-leak"
    # a permutation maps the keys of row 0 onto each other: compared first, sorted
    if Ar.shape == Br.shape and np.array_equal(
        np.sort(_column_keys(Ar[:1])), np.sort(_column_keys(Br[:1]))
    ):
        ka, kb = _column_keys(Ar), _column_keys(Br)
        lookup = {ka[:, z].tobytes(): z for z in range(ka.shape[1])}
        found = [lookup.get(kb[:, j].tobytes()) for j in range(kb.shape[1])]
        perm = [z for z in found if z is not None]
        if len(perm) == len(found) and len(set(perm)) == len(perm):
            W = np.zeros((Ar.shape[1], Br.shape[1]))
            W[perm, np.arange(len(perm))] = 1.0
            return W, "identical"
    return None


#: The least-change iteration of :func:`_min_norm_guess`: entries are raised to this share
#: of the column mean b̄ before each projection (a margin inside the cone, so that the
#: projected W lands strictly inside it instead of on its faces) ...
MIN_NORM_FLOOR: float = 0.3

#: ... for at most this many projections, and only while each one shrinks the negative
#: mass of W to at most ``MIN_NORM_SHRINK`` of what it was (pairs outside the cone, whose
#: negative mass does not shrink, stop after one projection).
MIN_NORM_ROUNDS: int = 20
MIN_NORM_SHRINK: float = 0.8


def _pseudo_inverse(A: np.ndarray, p: int) -> Callable[..., np.ndarray]:
    """(R, c, d, out) ↦ A⁺R + c dᵀ, A⁺ (|Y_A| x |X|) the pseudo-inverse, R of shape |X| x p.

    With full row rank, A⁺ = Aᵀ(AAᵀ)⁻¹ is never formed: one |X| x |X| inverse
    G⁻¹, kept when G·G⁻¹ = I to 1e-10 (G·G⁻¹ is A·A⁺: the normal equations are
    well conditioned enough); otherwise A⁺ = pinv(A). Either way A⁺R + c dᵀ is one
    product [L | c]·[M R ; dᵀ] (L M = A⁺: Aᵀ and G⁻¹, or pinv(A) and I).
    """
    n, m = A.shape
    left = np.empty((m, n + 1))
    right = np.empty((n + 1, p))
    Gi = None
    if n <= m:
        G = A @ A.T
        try:
            Gi = np.linalg.inv(G)
        except np.linalg.LinAlgError:
            Gi = None
        if Gi is not None:  # a non-finite G⁻¹ makes the check NaN or inf: refused too
            check = G @ Gi
            check.flat[:: n + 1] -= 1.0
            if not float(np.abs(check).max()) <= 1e-10:
                Gi = None
    left[:, :n] = A.T if Gi is not None else np.linalg.pinv(A, rcond=1e-13)

    def apply(R: np.ndarray, c: Any, d: Any, out: np.ndarray | None = None) -> np.ndarray:
        left[:, n] = c
        if Gi is None:
            right[:n] = R
        else:
            np.matmul(Gi, R, out=right[:n])
        right[n] = d
        return np.matmul(left, right, out=out)

    return apply


def _min_norm_guess(P: Problem) -> np.ndarray | None:
    """A witness candidate by least-change projections from W = 1 b̄ᵀ + A⁺(B − 1 b̄ᵀ).

    That W (b̄ the mean row of B) is the least-norm correction of the "ignore the output"
    remapping: A·W = B and W·1 = 1, a witness when W >= 0. For pairs deep inside the
    refinement cone (e.g. B = A·R with R dense and |Y_A| >> |X|) it is; otherwise
    its negative entries are raised to ``MIN_NORM_FLOOR`` b̄ and W projected back
    onto {A·W = B, W·1 = 1} (W += A⁺(B − A·W − A·ρ1ᵀ/p) + ρ1ᵀ/p with ρ = 1 − W·1),
    which for interior pairs reaches W >= 0 in a few steps (50 x 200 vs 50 x 200
    random: 3). Each step costs two products of |X| |Y_A| |Y_B|; a candidate is only
    a hint: the rounding-band certificate decides. Max case: R = A⁺B.
    """
    A, B = P.Ar, P.Br
    if not P.rowsum:
        W = np.linalg.lstsq(A, B, rcond=None)[0]
        if not np.all(np.isfinite(W)) or W.min() < 0:
            return None
        return W
    p = B.shape[1]
    plus = _pseudo_inverse(A, p)
    bbar = B.sum(axis=0) / B.shape[0]
    # W = A⁺(B − 1b̄ᵀ) + 1b̄ᵀ
    W = plus(B - bbar, 1.0, bbar)
    if float(W.min()) >= 0:
        return W
    floor = MIN_NORM_FLOOR * bbar
    ones = np.ones(p)
    step = np.empty_like(W)
    negative = None  # the negative mass of the previous W, computed when first compared
    for _ in range(MIN_NORM_ROUNDS):
        Wf = np.maximum(W, floor)
        rho = 1.0 - Wf @ ones
        R = B - A @ Wf
        R -= (A @ rho)[:, None] / p
        # W (floored) + A⁺R + ρ1ᵀ/p
        Wf += plus(R, rho / p, ones, out=step)
        if float(Wf.min()) >= 0:
            return Wf
        if negative is None:
            negative = -float(np.minimum(W, 0.0, out=step).sum())
        now_negative = -float(np.minimum(Wf, 0.0, out=step).sum())
        left = P.opts.left()
        if not now_negative <= MIN_NORM_SHRINK * negative or (left is not None and left <= 0):
            return None
        negative = now_negative
        W = Wf
    return None


def _run_engine(
    P: Problem, engine: str, opts: Options
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
            H = y[None, :]
            c = certify_gain_float(P, H)
            if c is not None:
                found["H"] = H
                P.float_certified = (H, c)
                return True
            return False

        solve = solve_nnls_columns if engine == "nnls" else solve_l1_lp_columns
        out = solve(Ar, Br, order=order, stop=stop, time_limit=opts.left())
        info.update(lp_optimum=out.optimum, iterations=out.iterations)
        if "H" in found:
            return None, found["H"], info
        if out.W is not None:
            P.engine_witnesses[engine] = out.W
        H = order_rows_for_max_case(out.H, Br)
        P.separating.append(H[: int(np.count_nonzero(np.einsum("jx,xj->j", out.H, Br) > 0))])
        # the gain is tried first when the optimum is positive, the witness first otherwise
        return out.W, H, info
    if engine == "highs":
        out = (
            solve_l1_lp(Ar, Br, time_limit=opts.left())
            if P.rowsum
            else solve_l1_lp_columns(Ar, Br, time_limit=opts.left())
        )
        info.update(lp_optimum=out.optimum, iterations=out.iterations)
        if out.W is not None:
            P.engine_witnesses[engine] = out.W
        H = out.H if P.rowsum else order_rows_for_max_case(out.H, Br)
        # the gain is tried first when the optimum is positive, the witness first otherwise
        return out.W, H, info
    if not P.rowsum:  # pragma: no cover - max-case uses HiGHS only
        msg = f"engine {engine!r} is not available for max-case refinement"
        raise SolverError(msg)
    separated: dict[str, Any] = {}

    def on_sep(H: np.ndarray) -> bool:
        c = certify_gain_float(P, H)
        if c is not None:
            separated["cert"] = (H, c)
            P.float_certified = (H, c)
            return True
        return False

    if engine == "entropic":
        left = opts.left()
        eo = solve_entropic(
            Ar,
            Br,
            tol=opts.tol,
            max_iter=opts.max_iter,
            time_limit=max(opts.time_limit if left is None else left, 0.01),
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
    P: Problem, W: np.ndarray | None, H: np.ndarray | None, method: str
) -> tuple[RefinementResult | None, np.ndarray | str | None]:
    """Certify the candidates in floating point; returns (result, W_red) or (None, reason)."""
    reasons = []
    lp_opt = P.details.get("lp_optimum")
    if W is not None and H is not None and lp_opt is not None and lp_opt <= LP_ZERO:
        res, why = _certify_witness(P, W, method)
        if res is not None:
            return res
        reasons.append("witness: " + why)
        W = None
    if H is not None:
        done = P.float_certified
        c = done[1] if done is not None and done[0] is H else certify_gain_float(P, H)
        if c is not None:
            g, gap, bound = c
            how = (
                f"float gap {gap:.3g} exceeds {bound:.2g} (rigorous rounding bound plus "
                "what a rounding-band perturbation of the channels could explain)"
            )
            return fails_result(P, g, None, bound, method, False, how), None
        reasons.append("the dual gain's gap is not above its rounding bound")
    if W is not None:
        res, why = _certify_witness(P, W, method)
        if res is not None:
            return res
        reasons.append("witness: " + why)
    return None, "; ".join(reasons) or "no candidate certificate"


def _certify_witness(
    P: Problem, W: np.ndarray, method: str
) -> tuple[tuple[RefinementResult, np.ndarray] | None, str]:
    """A float witness held to the rounding band on the reduced channels, then on the
    original columns of the channels as given (where the verdict's statement is re-checked).

    Returns ((result, W_red), "") or (None, why not).
    """
    bc = band_certificate(P.Ar, P.Br, W, P.rowsum)
    if bc.W is None:
        P.band_refused.append(W)
        return None, bc.reason
    if expand_witness(bc.W, P.ra, P.rb, P.rowsum) is bc.W:
        # nothing merged or dropped: the reduced channels are the row-normalised channels
        # as given, on which the band was just met (witness_in_band would repeat it)
        Wo, resid = bc.W, bc.residual
    else:
        Wo, why, resid = witness_in_band(P, bc.W, clean=True)
        if Wo is None:
            return None, "within the rounding band on the merged columns, but " + why
    how = band_text(resid)
    # Wo's band is checked on the original columns (above, or by witness_in_band)
    return (holds_result(P, Wo, method, False, how, expanded=True), bc.W), ""


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
    run: Callable[[Problem], _Outcome]
    skip: Callable[[Problem], str | None] = lambda P: None
    label: Callable[[Problem], str] | None = None

    def title(self, P: Problem) -> str:
        return self.name if self.label is None else self.label(P)


def _skip_unless_exact_method(P: Problem) -> str | None:
    return None if P.opts.method == "exact" else f"method={P.opts.method!r}"


def _run_exact_method(P: Problem) -> _Outcome:
    return _Decided(exact_result(P, "method='exact'", strict=True), final=True)


def _skip_orbits(P: Problem) -> str | None:
    if not P.rowsum:
        return "max-case refinement"
    if P.labels is None:
        return "no labels"
    if P.opts.method != "auto":
        return f"method={P.opts.method!r}"
    return None


def _run_orbits(P: Problem) -> _Outcome:
    res = try_orbits(P, P.labels)
    if isinstance(res, str):
        return res
    # exact=True: the orbit verdict is confirmed in rationals like every float verdict
    return _Decided(res, final=P.opts.exact is not True)


def _run_candidate(P: Problem, found: tuple[np.ndarray, str] | None, missing: str) -> _Outcome:
    if found is None:
        return missing
    W, name = found
    res, W_red = _try_certify(P, W, None, name)
    if res is None:
        assert isinstance(W_red, str)
        return W_red
    return _Decided(res, W_red if isinstance(W_red, np.ndarray) else None)


def _run_quick(P: Problem) -> _Outcome:
    return _run_candidate(P, _quick_witness(P), "B is not trivial and A is not B permuted")


def _skip_unless_auto(P: Problem) -> str | None:
    return None if P.opts.method == "auto" else f"method={P.opts.method!r}"


def _skip_forced(P: Problem) -> str | None:
    return "max-case refinement" if not P.rowsum else _skip_unless_auto(P)


def _run_forced(P: Problem) -> _Outcome:
    """The witness forced at equal epsilon; where it misses the band because B's ratio on a
    pair exceeds A's, that pair's likelihood-ratio gain, decided by its exact gap."""
    W = forced_witness(P.Ar, P.Br)
    if W is None:
        return "B's columns are not all constant or two-valued at A's largest ratio, or do not fit"
    out = _run_candidate(P, (W, "forced"), "")
    if isinstance(out, _Decided):
        return out
    g = ratio_gain(P.An, P.Bn, P.prior)
    if g is None:
        return out
    how = "likelihood-ratio gain: B's ratio on a pair of inputs exceeds every ratio of A on it"
    res = exact_gain_result(P, g, how, W_hint=W)
    return out if res is None else _Decided(res, final=True)


def _run_min_norm(P: Problem) -> _Outcome:
    W = _min_norm_guess(P)
    return _run_candidate(P, None if W is None else (W, "min-norm"), "the least-norm W is negative")


def _engine_order(P: Problem) -> list[str]:
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


def _max_case_hints(P: Problem, H: np.ndarray) -> np.ndarray:
    """Max case: the rows of every engine so far that separate their own column of B
    (engine by engine, best first), then this engine's other rows, each row once.

    An engine that found every column in the cone (the second opinion, say) thus
    does not push the first engine's separating hyperplanes behind its own rows: rational
    arithmetic checks the candidates in this order and stops at the first positive gap.
    """
    seen: set[bytes] = set()
    rows = []
    for row in np.vstack([*P.separating, H]):
        key = row.tobytes()
        if key not in seen:
            seen.add(key)
            rows.append(row)
    return np.array(rows)


def _engine_strategy(slot: int) -> Strategy:
    def skip(P: Problem) -> str | None:
        return None if slot < len(_engine_order(P)) else "no further engine for this size"

    def run(P: Problem) -> _Outcome:
        eng = _engine_order(P)[slot]
        left = P.opts.left()
        if left is not None and left <= 0:  # no engine is started past the deadline
            msg = (
                f"the time limit (time_limit = {limit() or P.opts.time_limit:g} s) ran out "
                f"before the {eng} engine: no verdict; raise time_limit"
            )
            raise expired(msg)
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
        if H is not None and not P.rowsum:
            H = _max_case_hints(P, H)
        P.hints = (W if W is not None else P.hints[0], H if H is not None else P.hints[1])
        return W_red

    def label(P: Problem) -> str:
        order = _engine_order(P)
        return f"engine {order[slot]}" if slot < len(order) else f"engine {slot + 1}"

    return Strategy(f"engine {slot + 1}", run, skip, label)


def _run_exact_fallback(P: Problem) -> _Outcome:
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
            f"{why}; the time limit (time_limit = {limit() or P.opts.time_limit:g} s) ran "
            "out before a certificate either way: raise time_limit (or try method='exact' "
            "for a small pair)"
        )
        raise expired(msg)
    note = (
        "every float engine failed"
        if all_failed
        else "float certificate inconclusive near the boundary"
    )
    try:
        return _Decided(exact_result(P, note, P.hints[0], P.hints[1]), final=True)
    except ex.ExactTooLarge as exc:
        left = P.opts.left()
        if left is not None and left <= 0:  # the simplex stopped at the deadline
            raise expired(f"{why}; {exc}; no verdict") from None
        if all_failed:
            raise SolverError(f"{why}; {exc}; no verdict") from None
        within = input_band_result(P, f"{why}; {exc}")
        if within is not None:
            return _Decided(within, final=True)
        msg = (
            f"{why}; {exc}. No certificate either way within the budgets: the pair "
            "is close to the refinement boundary (raise time_limit, or compare "
            "smaller or symmetric channels)"
        )
        raise VerificationError(msg) from None


#: The decision pipeline, in order; the first verified verdict ends it. ``method="exact"``
#: decides in rational arithmetic alone; otherwise the orbit LP (one-hot channels), the
#: trivial witnesses, the witness forced at equal epsilon, the least-norm remapping, the
#: float engines, and rational arithmetic when no float certificate passed. ``exact=True``
#: then confirms a float verdict exactly.
STRATEGIES: tuple[Strategy, ...] = (
    Strategy("exact method", _run_exact_method, _skip_unless_exact_method),
    Strategy("orbits", _run_orbits, _skip_orbits),
    Strategy("quick", _run_quick),
    Strategy("forced", _run_forced, _skip_forced),
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
    deadline = until(opts.time_limit)
    opts = replace(opts, deadline=deadline)

    def check(stage: str) -> None:
        if now() >= deadline:
            spent = time.perf_counter() - t0
            msg = (
                f"the time limit (time_limit = {limit() or opts.time_limit:g} s) ran out "
                f"{stage} ({spent:.3g} s for {A.shape[1]} + {B.shape[1]} columns), before "
                "any solver: no verdict; raise time_limit"
            )
            raise expired(msg)

    check("before the reduction (building the channels)")
    An, Bn = normalise_rows(A), normalise_rows(B)
    ra = reduce_columns(An)
    check("while merging proportional columns")
    rb = reduce_columns(Bn)
    check("while merging proportional columns")
    P = Problem(A, B, An, Bn, ra, rb, prior, rowsum, opts=opts, t0=t0, labels=labels)
    P.details.update(reduced_shapes=(ra.matrix.shape, rb.matrix.shape))
    decided: _Decided | None = None
    for strategy in STRATEGIES:
        title = strategy.title(P)
        why_not = strategy.skip(P)
        if why_not is not None:
            P.trace.append((title, "skipped: " + why_not))
            continue
        try:
            out = strategy.run(P)
        except (SolverError, VerificationError) as exc:
            # the steps run so far and this one, for the undecided result's "tried"
            setattr(exc, "trace", (*P.trace, (title, f"failed: {exc}")))  # noqa: B010
            if reached(exc):  # the time limit: say so, with the stages tried before it
                tried = tuple(f"{t}: {o}" for t, o in P.trace) + (title,)
                setattr(exc, "tried", tried)  # noqa: B010
            raise
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
        res = exact_confirm(P, res, decided.W_red)
        P.trace.append(("exact confirmation", "decided"))
    return replace(res, trace=tuple(P.trace))
