"""comparability_map completed (issue 12, item 2): time limits, certificates per point,
the boundary by bisection, the figure; and the cancellation of sweeps (item 5).

Independent checks: certificates against direct q.refines calls and a digest
recomputed here with hashlib; witnesses against A·W = B on the explicit channels;
boundary brackets against a plain feasibility LP on the explicit channels written
here; the figure's cells against the table.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import math

import numpy as np
import pandas as pd
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError
from qifldp.plotting import RELATION_COLORS, comparability_figure
from qifldp.refinement.result import Counterexample
from qifldp.sweeps import CANCELLED, CERTIFICATE_COLUMNS, certificate_digest, hard_time_limit
from qifldp.symmetric import SymmetricGain
from tests.sweeps._reference import plain_lp_refines


def _digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


# ---------------------------------------------------------------------------------------
# certificates
# ---------------------------------------------------------------------------------------
def test_certificate_digest_of_a_matrix_is_sha256_of_its_bytes():
    W = np.array([[0.25, 0.75], [1.0, 0.0]])
    assert certificate_digest(W) == _digest(W)
    assert certificate_digest(W) != certificate_digest(W.T)
    assert certificate_digest(None) == ""


def test_certificate_digest_covers_a_symmetric_gain():
    # a counterexample's SymmetricGain (slots, no __dict__) was left out of its digest:
    # two different gains with one prior and gap hashed alike
    prior = np.full(5, 0.2)
    ce = [
        Counterexample(gain=SymmetricGain(5, [1], [g], [0.0]), prior=prior, gap=0.1)
        for g in (1.0, 2.0)
    ]
    assert certificate_digest(ce[0]) != certificate_digest(ce[1])
    same = Counterexample(gain=SymmetricGain.identity(5), prior=prior.copy(), gap=0.1)
    assert certificate_digest(ce[0]) == certificate_digest(same)
    # in the dataclass's order: the gain's k, sizes, g_in, g_out; the prior; gap,
    # gap_bound and the two vulnerabilities (None and strings left out)
    g = ce[1].gain
    scalars = [np.asarray([v]) for v in (0.1, 0.0, math.nan, math.nan)]
    assert certificate_digest(ce[1]) == _digest([5.0], g.sizes, g.g_in, g.g_out, prior, *scalars)


def test_certificates_are_kept_per_point_and_match_direct_refinement():
    with cf.ThreadPoolExecutor(2) as pool:
        m = q.comparability_map("grr", "ss", [3, 4], [0.5, 2.0], executor=pool, progress=False)
    for prefix in ("ab", "ba"):
        for column in CERTIFICATE_COLUMNS:
            assert f"{prefix}_{column}" in m.columns
    for row in m.itertuples():
        A, B = q.protocol("grr", row.k, row.eps), q.protocol("ss", row.k, row.eps)
        for prefix, (X, Y) in (("ab", (A, B)), ("ba", (B, A))):
            r = q.refines(X, Y)
            get = lambda c, p=prefix, row=row: getattr(row, f"{p}_{c}")  # noqa: E731
            assert get("certified_by") == r.certified_by and get("about") == r.about
            assert get("up_to_rounding") == r.up_to_rounding and get("exact") == r.exact
            if r:
                W = np.asarray(r.witness)
                assert get("certificate") == _digest(W)
                # the witness itself: row-stochastic, A·W = B on the explicit channels
                Xm, Ym = np.asarray(X.channel().matrix), np.asarray(Y.channel().matrix)
                assert np.abs(Xm @ W - Ym).max() <= 1e-7 and W.min() >= -1e-9
                assert get("residual") == pytest.approx(np.abs(Xm @ W - Ym).max(), abs=1e-12)
                assert get("gap") is None or math.isnan(get("gap"))
            else:
                ce = r.counterexample
                assert get("gap") == ce.gap > 0
                assert not plain_lp_refines(X.channel(), Y.channel())
            assert get("seconds") >= 0


@pytest.fixture
def no_tight_ratio(monkeypatch):
    """The symmetric route without the tight-ratio reduction, which decides SUE vs OUE at
    equal eps at once: SUE ⊑ OUE at k = 200, eps = 12 is then out of reach within 1 s (no
    float certificate, the exact orbit LP too large), the undecided point these tests need
    (the map runs in this process or a fork of it: the patch holds)."""
    import qifldp.symmetric.refinement as R

    monkeypatch.setattr(R, "tight_ratio_result", lambda *args, **kwargs: None)
    monkeypatch.setattr(R, "tight_ratio_first", lambda *args, **kwargs: None)


def test_sue_oue_at_equal_eps_is_decided_by_the_exact_reduction(ticks):
    # the budget in clock readings (conftest.ticks): ample, and independent of the load
    m = q.comparability_map(
        "sue", "oue", [5], [12.0], executor=cf.ThreadPoolExecutor(1), progress=False, time_limit=1e3
    )
    assert m["relation"].tolist() == ["A⊑B"]
    assert "tight-ratio reduction" in m["ab_certified_by"][0]


#: A budget of clock readings (conftest.ticks) within which SUE vs OUE at k = 200 is decided
#: where a gain decides (at most 23 readings: the decision's deadline, the orbit clock, the
#: bit channels' check in the lifting step, the set-guessing search and the gain
#: evaluations read the clock block by block), and SUE ⊑ OUE at eps = 12 without the
#: reduction is not (it needs the orbit LP, the relative LP, three refinement LPs and the
#: exact checks, and stops at the exact orbit LP's size rule; at 24 readings it is in the
#: relative LP)
_READINGS = 24


def test_a_point_over_its_time_limit_is_undecided_and_the_map_goes_on(no_tight_ratio, ticks):
    # SUE ⊑ OUE at k = 200, eps = 12 on the symmetric channels without the reduction:
    # neither a float certificate nor the exact orbit LP (too large) within the budget;
    # the other three refinements are decided within it (a deterministic budget)
    m = q.comparability_map(
        "sue",
        "oue",
        [200],
        [1.0, 12.0],
        executor=cf.ThreadPoolExecutor(1),
        progress=False,
        time_limit=_READINGS,
        representation="symmetric",
    )
    row = m.iloc[1]
    assert row["relation"] == "undecided" and row["a_refines_b"] is None
    assert row["reason"].split(" ")[1].rstrip(":") in (
        "VerificationError",
        "SolverError",
        "TimeoutError",
        "SizeError",  # on an idle machine the exact orbit LP is reached, and refused (size)
    )
    assert row["reason"].startswith("A⊑B: ") and "B⊑A" not in row["reason"]
    assert row["ab_certificate"] is None and row["ab_seconds"] > 0
    # the other direction is decided and certified: OUE ⋢ SUE, by the same gap as direct
    direct = q.refines(
        q.protocol("oue", 200, 12.0).symmetric(), q.protocol("sue", 200, 12.0).symmetric()
    )
    assert row["b_refines_a"] is not None and not row["b_refines_a"]
    assert row["ba_gap"] == direct.counterexample.gap > 0
    assert m.iloc[0]["relation"] == "incomparable" and m["error"].tolist() == [None, None]


def _never_returns(A, B, **options):
    import time

    time.sleep(3600)


def test_a_refinement_that_ignores_its_time_limit_is_stopped_with_hard_limit(monkeypatch):
    # hard_limit: refines runs in a forked child (the patched refines is the one the
    # child calls), stopped at hard_time_limit
    import qifldp.refinement

    monkeypatch.setattr(qifldp.refinement, "refines", _never_returns)
    with cf.ThreadPoolExecutor(2) as pool:
        m = q.comparability_map(
            "grr",
            "ss",
            [3],
            [1.0, 2.0],
            executor=pool,
            progress=False,
            time_limit=0.5,
            hard_limit=True,
        )
    assert m["relation"].tolist() == ["undecided"] * 2 and m["error"].tolist() == [None] * 2
    for reason in m["reason"]:
        assert reason.count("TimeoutError") == 2 and "the refinement was stopped" in reason
    assert hard_time_limit(0.5) == 1.5  # 0.5 s + the grace of at least 1 s
    assert all(m["ab_seconds"] >= 1.5) and all(m["ba_seconds"] >= 1.5)


def test_the_symmetric_representation_decides_where_explicit_engines_give_up():
    m = q.comparability_map(
        "sue",
        "oue",
        [5],
        [12.0],
        executor=cf.ThreadPoolExecutor(1),
        progress=False,
        representation="symmetric",
    )
    # the orbit witness in the rounding band, or solved exactly on its support (which one
    # depends on the rounding of the stored class masses)
    how = m["ab_certified_by"][0]
    assert m["relation"].tolist() == ["A⊑B"] and (how.startswith("orbit") or "orbit" in how)
    # the orbit witness expanded to the explicit 32 x 32 W: row-stochastic, SUE·W = OUE
    r = q.refines(q.protocol("sue", 5, 12.0).symmetric(), q.protocol("oue", 5, 12.0).symmetric())
    assert m["ab_certificate"][0] == certificate_digest(r.witness)
    W = r.witness.expand()
    sue, oue = np.asarray(q.sue(5, 12.0).matrix), np.asarray(q.oue(5, 12.0).matrix)
    assert W.min() >= -1e-12 and np.abs(W.sum(axis=1) - 1).max() <= 1e-9
    assert np.abs(sue @ W - oue).max() <= 1e-9


# ---------------------------------------------------------------------------------------
# the boundary
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("representation", ["protocol", "symmetric"])
def test_sue_oue_boundary_at_k3_is_bracketed_and_checked_by_a_plain_lp(representation):
    b = q.refinement_boundary("sue", "oue", 3, 0.5, 8.0, tol=0.05, representation=representation)
    assert b.note == "" and b.holds_lo is False and b.holds_hi is True
    assert b.hi - b.lo <= 0.05 and b.lo < b.eps < b.hi and b.eps == (b.lo + b.hi) / 2
    assert not plain_lp_refines(q.sue(3, b.lo), q.oue(3, b.lo))
    assert plain_lp_refines(q.sue(3, b.hi), q.oue(3, b.hi))
    # bisection: 2 ends + ceil(log2(7.5 / 0.05)) halvings
    assert len(b.evaluations) == 2 + math.ceil(math.log2(7.5 / 0.05))
    assert [v for e, v in b.evaluations if e <= b.lo] == [False] * sum(
        e <= b.lo for e, _ in b.evaluations
    )


def test_boundary_grows_with_k_and_the_curve_matches_single_calls():
    with cf.ThreadPoolExecutor(2) as pool:
        c = q.boundary_curve(
            "sue",
            "oue",
            [3, 5],
            0.5,
            8.0,
            tol=0.25,
            executor=pool,
            progress=False,
            representation="symmetric",
        )
    assert c["k"].tolist() == [3, 5] and c["error"].tolist() == [None] * 2
    for row in c.itertuples():
        b = q.refinement_boundary(
            "sue", "oue", row.k, 0.5, 8.0, tol=0.25, representation="symmetric"
        )
        assert (row.eps_star, row.lo, row.hi) == (b.eps, b.lo, b.hi)
        assert not plain_lp_refines(q.sue(row.k, row.lo), q.oue(row.k, row.lo))
        assert plain_lp_refines(q.sue(row.k, row.hi), q.oue(row.k, row.hi))
    assert c["eps_star"].is_monotonic_increasing


def test_bracket_ends_that_agree_are_said_not_bisected():
    b = q.refinement_boundary("sue", "oue", 2, 0.5, 8.0, tol=0.1)  # holds at every eps
    assert b.eps is None and (b.holds_lo, b.holds_hi) == (True, True)
    assert "both ends" in b.note and "not monotone" in b.note and len(b.evaluations) == 2


def test_an_undecided_end_is_said(no_tight_ratio, ticks):
    b = q.refinement_boundary(
        "sue", "oue", 200, 1.0, 12.0, tol=0.1, time_limit=_READINGS, representation="symmetric"
    )
    assert b.eps is None and b.holds_hi is None and b.note.startswith("undecided at hi = 12")


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "words"),
    [
        (("sue", "oue", 3, 2.0, 1.0), {}, ParameterError, "lo must be < hi"),
        (("sue", "oue", 3, -1.0, 1.0), {}, ParameterError, "finite and >= 0"),
        (("sue", "oue", 3, 1.0, 2.0, 0.0), {}, ParameterError, "tol must be finite and > 0"),
        (("sue", "oue", 3, 1.0, 2.0, "a"), {}, InputTypeError, "tol must be a positive"),
        (("sue", "oue", 1, 1.0, 2.0), {}, ParameterError, "k must be >= 2"),
        (("nope", "oue", 3, 1.0, 2.0), {}, ParameterError, "A must be one of"),
        (("sue", "oue", 3, 1.0, 2.0), {"time_limit": 0}, ParameterError, "time_limit"),
        (("sue", "oue", 3, 1.0, 2.0), {"representation": "x"}, ParameterError, "representation"),
        (("sue", "oue", 3, 1.0, 2.0), {"theta": 0.5}, InputTypeError, "'theta'"),
    ],
)
def test_bad_boundary_arguments_are_named(args, kwargs, error, words):
    with pytest.raises(error, match=None) as info:
        q.refinement_boundary(*args, **kwargs)
    assert words in str(info.value)


def test_bad_map_time_limit_and_representation():
    pool = cf.ThreadPoolExecutor(1)
    with pytest.raises(ParameterError, match="time_limit must be finite and > 0"):
        q.comparability_map("grr", "ss", [3], [1.0], executor=pool, time_limit=-1)
    with pytest.raises(InputTypeError, match="representation must be a str"):
        q.comparability_map("grr", "ss", [3], [1.0], executor=pool, representation=1)


# ---------------------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------------------
def test_figure_colours_each_cell_by_its_relation_and_overlays_the_boundary(no_tight_ratio, ticks):
    # one worker: the budget's clock readings are counted in one thread
    with cf.ThreadPoolExecutor(1) as pool:
        m = q.comparability_map(
            "sue",
            "oue",
            [2, 3, 200],
            [1.0, 3.0, 12.0],
            executor=pool,
            progress=False,
            time_limit=_READINGS,
            representation="symmetric",
        )
        curve = q.boundary_curve(
            "sue", "oue", [3], 0.5, 8.0, tol=0.5, executor=pool, progress=False
        )
    fig = comparability_figure(m, curve, title="SUE vs OUE")
    ax = fig.axes[0]
    codes = np.asarray(ax.collections[0].get_array()).reshape(3, 3)  # eps rows, k columns
    relations = list(RELATION_COLORS)
    for row in m.itertuples():
        i, j = [1.0, 3.0, 12.0].index(row.eps), [2, 3, 200].index(row.k)
        assert relations[int(codes[i, j])] == row.relation
    hatched = [c for c in ax.collections[1:] if c.get_hatch() == "//"]
    assert len(hatched) == (m["relation"] == "undecided").sum() >= 1  # k=200, eps=12
    line = ax.lines[0]
    assert line.get_xdata().tolist() == [1] and line.get_ydata().tolist() == [
        curve["eps_star"].iloc[0]
    ]
    assert ax.get_title() == "SUE vs OUE"
    with pytest.raises(InputTypeError, match="table must be a DataFrame"):
        comparability_figure({"k": [1]})


# ---------------------------------------------------------------------------------------
# cancellation (item 5)
# ---------------------------------------------------------------------------------------
def interrupt_at_3(k):
    if k == 3:
        raise KeyboardInterrupt
    return 10 * k


def test_keyboard_interrupt_stops_the_sweep_with_the_partial_table():
    with cf.ThreadPoolExecutor(1) as pool:
        t = q.sweep(interrupt_at_3, {"k": list(range(8))}, executor=pool, chunksize=1)
    assert t["k"].tolist() == list(range(8)) and t.attrs["cancelled"] is True
    assert t["value"].iloc[:3].tolist() == [0, 10, 20]
    assert t["error"].iloc[:3].tolist() == [None] * 3 and t["error"].iloc[3] == CANCELLED
    for row in t.iloc[4:].itertuples():  # after the interrupt: finished meanwhile, or not run
        assert (row.error, row.value) == (None, 10 * row.k) or (
            row.error == CANCELLED and math.isnan(row.value)
        )


def test_keyboard_interrupt_on_a_process_pool():
    with cf.ProcessPoolExecutor(1) as pool:
        t = q.sweep(interrupt_at_3, {"k": [0, 1, 2, 3]}, executor=pool, chunksize=2)
    assert t["value"].iloc[:2].tolist() == [0, 10]
    assert t["error"].tolist() == [None, None, CANCELLED, CANCELLED]  # the chunk (2, 3)


def test_a_sweep_not_interrupted_says_so():
    with cf.ThreadPoolExecutor(1) as pool:
        t = q.sweep(interrupt_at_3, {"k": [0, 1]}, executor=pool, progress=False)
    assert t.attrs["cancelled"] is False


def test_rounding_boundary_point_is_named_in_reason(monkeypatch):
    # THE(theta*) vs OUE (symmetric) sits on the boundary of the 2x2 order (Lemma 10): at
    # k = 200, eps = 2, OUE ⊑ THE holds up to rounding (the bitwise lifting at the boundary)
    # and the map says so; the orbit LP alone (every lifting off) refutes OUE ⊑ THE at
    # k = 20, eps = 4 only in rational arithmetic on the stored class masses, by a gap far
    # below float resolution, and the map must say that instead of a plain "incomparable"
    import qifldp as q
    import qifldp.symmetric.refinement as R
    from qifldp.sweeps.comparability import _compare_point

    def the_star(k, eps):
        theta = float(q.formulas.the_oue_threshold(eps))
        return q.protocol("the", k, eps, theta=theta).symmetric()

    row = _compare_point(200, 2.0, a=the_star, b="oue", params={}, representation="symmetric")
    assert row["relation"] == "B⊑A" and row["ba_up_to_rounding"] is True
    assert "B⊑A holds up to rounding (bitwise lifting at the boundary)" in row["reason"]
    # (which of k = 20, eps = 4 or 8 lands on the failing side depends on the last bits of
    # exp and log in the installed numpy: (20, 4) with one build, (20, 8) with numpy 2.4)
    with monkeypatch.context() as m:
        m.setattr(R, "lifted_refinement", lambda *a, **kw: None)
        m.setattr(R, "boundary_lifting_result", lambda *a, **kw: None)
        for eps in (4.0, 8.0):
            row = _compare_point(
                20, eps, a=the_star, b="oue", params={}, representation="symmetric"
            )
            if row["b_refines_a"] is False:
                break
    assert row["b_refines_a"] is False and row["ba_exact"] is True
    assert abs(row["ba_gap"]) < 1e-15
    assert "fails only exactly on the stored floats" in row["reason"]
    # an ordinary certified failure is not flagged
    row = _compare_point(3, 1.0, a="oue", b="grr", params={}, representation="symmetric")
    assert row["reason"] is None


def test_the_map_figure_shows_no_negative_eps_and_ticks_the_grid() -> None:
    # the least eps 0.1 below a wide step: its cell reached eps = -0.85 before
    relation = ["A⊑B"] * 3 + ["incomparable"]
    t = pd.DataFrame({"k": [2, 2, 3, 3], "eps": [0.1, 2.0, 0.1, 2.0], "relation": relation})
    ax = comparability_figure(t).axes[0]
    assert ax.get_ylim()[0] == 0.0
    assert [float(v) for v in ax.get_yticks()] == [0.1, 2.0]


def test_the_map_figure_draws_into_a_panel_of_a_grid() -> None:
    from matplotlib.figure import Figure

    t = pd.DataFrame({"k": [2, 3], "eps": [1.0, 1.0], "relation": ["A⊑B", "undecided"]})
    grid = Figure()
    left, right = grid.subplots(1, 2)
    assert comparability_figure(t, ax=right, legend=False) is grid
    assert len(grid.axes) == 2 and right.get_legend() is None and not left.collections
    # the two cells: one coloured mesh, and the undecided cell hatched over it
    assert len(right.collections) == 2
    assert comparability_figure(t, ax=left).axes[0].get_legend() is not None
