"""Reproduce the figures of the QIF paper (Figs. 1-7) from qifldp's own computations.

Each figure function computes its curves (closed forms, explicit channels and
Monte Carlo simulation, seeded), draws them with matplotlib and returns the paths
of the files written (PNG for the screen; PDF and SVG, vector, for print) plus the
plotted numbers, so tests can check the numbers.

Figs. 1-3 sit in the paper's appendix; they and their captions are not legible in
the paper's available text, and the body says what each shows: Fig. 1 "an example of such THE
mechanisms" (Lemma 5: T_{eps',theta} ⊑ T_{eps,theta} for eps <= eps'), Fig. 2 theta = 0.8,
where OUE ⊑ THE holds for eps <= 0.8 and breaks above (Lemma 10), Fig. 3 the meet
M_eps of the SUE and OUE bit channels (Sec. VI-B remarks). They are drawn as f-DP
trade-off functions, the paper's tool for channels on two secrets (T_M <= T_N iff
M ⊑ N), each verdict certified by :func:`qifldp.refines`.

The paper used the Kosarak click-stream data set (which users bring themselves,
in FIMI format); without ``data`` a seeded Zipf sample stands in for it.

Every figure is titled with what it shows, k, the number of users n per run (or
that its curves are exact), the number of seeded runs behind its error bars and
the data source (``Figure.caption``); simulated points carry 95% intervals, and
curves that coincide are told apart by marker and line style, with the legend
saying where they coincide.

Layer L8 (consumers): may import every layer below (the faces included) but not the
package root; nothing in the package imports it but the command line.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import formulas
from .errors import InputTypeError, ParameterError
from .faces.simulation import variance_the
from .measures import bayes_vulnerability
from .mechanisms import oue, oue_bit, sue, sue_bit, the, the_bit
from .plotting import (
    STYLES,
    caption,
    coincide_from,
    data_source,
    errorbar_series,
    staggered_markevery,
)
from .protocols.params import oue_probabilities, sue_bits
from .refinement import refines
from .simulation import (
    attack_lh,
    data as datasets,
    empirical_asr,
    estimate_oue,
    estimate_sue,
    estimate_the,
    sample_lh,
    sample_oue,
    sample_sue,
    sample_the,
    simulate_attack,
    variance_oue,
    variance_sue,
)
from .sweeps.engine import _progress_bar
from .tradeoff import meet, meet_curve, tradeoff_curve
from .validation import check_bool, check_int

__all__ = [
    "Figure",
    "FORMATS",
    "figure_1",
    "figure_2",
    "figure_3",
    "figure_4",
    "figure_5",
    "figure_6",
    "figure_7",
    "reproduce",
]


@dataclass
class Figure:
    """A reproduced figure: where it was written and the numbers it shows."""

    name: str
    #: The PNG file (screen resolution, :data:`DPI`).
    path: Path
    series: dict[str, Any] = field(default_factory=dict)
    #: The title lines: what is shown, k, n (users per run), runs and the data source.
    caption: str = ""
    #: The matplotlib Figure drawn (its Axes can be inspected).
    figure: Any = field(default=None, repr=False, compare=False)
    #: Every file written, by format: "png", and "pdf", "svg" (vector, for print).
    files: dict[str, Path] = field(default_factory=dict)


#: Resolution of the PNG files written (dots per inch): for the screen and notebooks.
DPI = 110
#: Resolution of the PDF and SVG files (vector; this sets the few rasterised parts).
PRINT_DPI = 300
#: The file formats :func:`reproduce` writes: PNG for the screen, PDF and SVG for print.
FORMATS: tuple[str, ...] = ("png", "pdf", "svg")


def _label_log_ticks(ax: Any) -> None:
    """Label the minor ticks of a log y axis that spans less than two decades."""
    from matplotlib.ticker import LogFormatterSciNotation

    ax.yaxis.set_minor_formatter(
        LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(2, 2))
    )


def _grid_size(n: int) -> tuple[float, float]:
    """Figure size (inches) for n panels in rows of two: about 4.6 x 4.1 per panel."""
    cols = min(n, 2)
    rows = -(-n // cols)
    return (4.6 * cols + 0.4, 4.1 * rows + 1.3)


def _figure(**kwargs: Any):
    """A matplotlib Figure that belongs to no pyplot state (no backend switch, no leak)."""
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(layout="constrained", **kwargs)


def _values(data: str | os.PathLike | None, k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n user values in 0..k-1: the k most frequent items of a FIMI file, or Zipf."""
    if data is None:
        return datasets.zipf_data(n, k, 1.0, rng)
    transactions = datasets.load_fimi(data)
    items = datasets.single_items(transactions, rng=rng)
    values, _ = datasets.top_k_items(items, k)
    if values.size == 0:
        msg = f"data: no values found in {data}"
        raise ParameterError(msg)
    return rng.choice(values, size=min(n, values.size), replace=False)


def _out_dir(out: Any) -> Path:
    """``out`` as a directory Path: a str or os.PathLike that is not an existing file.

    Checked before any computation, so a bad ``out`` fails at once.
    """
    if isinstance(out, bool) or not isinstance(out, (str, os.PathLike)) or out == "":
        msg = f"out must be a directory path (str or os.PathLike), got {out!r}"
        raise InputTypeError(msg)
    path = Path(out)
    if path.exists() and not path.is_dir():
        msg = f"out must be a directory, but {str(path)!r} is a file"
        raise ParameterError(msg)
    return path


def _check_args(out: Any, quick: Any, seed: Any = 0) -> tuple[Path, bool, int]:
    """The common arguments of the figure functions, checked before computing."""
    return _out_dir(out), check_bool("quick", quick), check_int("seed", seed, minimum=0)


def _check_formats(formats: Any) -> tuple[str, ...]:
    """``formats`` as a non-empty tuple of distinct names from :data:`FORMATS`."""
    if isinstance(formats, (str, bytes)) or not hasattr(formats, "__iter__"):
        msg = f"formats must be a sequence of names among {', '.join(FORMATS)}, got {formats!r}"
        raise InputTypeError(msg)
    got = tuple(formats)
    bad = [f for f in got if not isinstance(f, str) or f not in FORMATS]
    if bad or not got or len(set(got)) != len(got):
        msg = (
            f"formats must be distinct names among {', '.join(FORMATS)} (at least one), "
            f"got {list(got)}"
        )
        raise ParameterError(msg)
    return got


def _prior(values: np.ndarray, k: int) -> np.ndarray:
    counts = np.bincount(values, minlength=k).astype(float)
    return counts / counts.sum()


#: The trade-off function of a channel that leaks nothing: beta = 1 - alpha.
_NO_LEAK = {"color": "0.6", "lw": 0.8, "ls": ":", "label": "no leakage (β = 1 − α)"}

#: Text of Figs. 1-3 under their title: what the curves are, and that no data are sampled.
_BIT_CAPTION = "bit channels (inputs 0, 1); exact trade-off functions, n: none (no sampled data)"


def _panels(fig: Any, n: int, columns: int = 2) -> list[Any]:
    """n Axes in rows of at most ``columns`` (a single row when n <= columns)."""
    cols = min(n, columns)
    rows = -(-n // cols)
    grid = fig.subplots(rows, cols, squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[n:]:
        ax.remove()
    return axes[:n]


def _curve(C: Any) -> np.ndarray:
    """The vertices (alpha, beta) of the trade-off function T(C[0], C[1]) as floats."""
    return np.asarray([(float(a), float(b)) for a, b in tradeoff_curve(C)])


def _tradeoff_axes(ax: Any, title: str) -> None:
    ax.plot([0, 1], [1, 0], **_NO_LEAK)
    ax.set(
        xlabel="type I error α",
        ylabel="type II error β = T(α)",
        xlim=(0, 1),
        ylim=(0, 1),
        title=title,
    )
    ax.set_box_aspect(1)


def _verdict(A: Any, B: Any) -> dict[str, Any]:
    """A ⊑ B decided by :func:`qifldp.refines` (certified), as plain numbers."""
    r = refines(A, B)
    gap = None if r.counterexample is None else float(r.counterexample.gap)
    return {"holds": bool(r.holds), "gap": gap}


#: Fig. 1's theta and budgets: THE bit channels nest as eps grows (Lemma 5).
FIG1_THETA = 0.75
FIG1_EPS = (0.5, 1.0, 2.0, 4.0)


def figure_1(out: Path, quick: bool = False, *, formats: Sequence[str] = FORMATS) -> Figure:
    """Fig. 1: the THE bit channels T_{eps,theta} at one theta nest as eps grows (Lemma 5).

    Trade-off functions of T_{eps,0.75} for eps in :data:`FIG1_EPS`: each lies
    below the one of a smaller eps (less private), so T_{eps'} ⊑ T_eps for
    eps <= eps'; every consecutive pair is certified by :func:`qifldp.refines`,
    and the converse fails (a counterexample with a positive gap).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = figure_1(Path(d)).series
    >>> [v["holds"] for v in s["larger_eps_refines_smaller"]]
    [True, True, True]
    >>> [v["holds"] for v in s["smaller_eps_refines_larger"]]
    [False, False, False]
    """
    out, quick, _ = _check_args(out, quick)
    formats = _check_formats(formats)
    fig = _figure(figsize=(5.6, 5.4))
    (ax,) = _panels(fig, 1)
    series: dict[str, Any] = {"theta": FIG1_THETA, "eps": list(FIG1_EPS), "curves": {}}
    styles = ("o-", "s--", "^-.", "D:")
    for eps, style in zip(FIG1_EPS, styles, strict=True):
        v = _curve(the_bit(eps, FIG1_THETA))
        ax.plot(v[:, 0], v[:, 1], style, ms=5, label=f"T_(eps = {eps:g}, θ = {FIG1_THETA:g})")
        series["curves"][f"eps={eps:g}"] = v.tolist()
    pairs = list(zip(FIG1_EPS, FIG1_EPS[1:], strict=False))
    series["larger_eps_refines_smaller"] = [
        {"eps": e, "eps'": e2, **_verdict(the_bit(e2, FIG1_THETA), the_bit(e, FIG1_THETA))}
        for e, e2 in pairs
    ]
    series["smaller_eps_refines_larger"] = [
        {"eps": e, "eps'": e2, **_verdict(the_bit(e, FIG1_THETA), the_bit(e2, FIG1_THETA))}
        for e, e2 in pairs
    ]
    holds = all(v["holds"] for v in series["larger_eps_refines_smaller"])
    _tradeoff_axes(ax, f"T_(eps') ⊑ T_(eps) for eps ≤ eps': {'certified' if holds else 'FAILS'}")
    ax.legend(fontsize=8, loc="upper right")
    text = f"Fig. 1: THE bit channels, θ = {FIG1_THETA:g}, nested in eps (Lemma 5)\n" + _BIT_CAPTION
    return _save(fig, out, "figure1_the_family_tradeoff", series, text, [ax], formats)


#: Fig. 2's theta and budgets: OUE ⊑ THE holds up to eps ≈ 0.8 and breaks above (Lemma 10).
FIG2_THETA = 0.8
FIG2_EPS = (0.5, 0.8, 2.0)


def figure_2(out: Path, quick: bool = False, *, formats: Sequence[str] = FORMATS) -> Figure:
    """Fig. 2: at theta = 0.8, OUE ⊑ THE (bit channels) for eps <= 0.8, not above (Lemma 10).

    One panel per eps in :data:`FIG2_EPS`: the trade-off functions of O_eps and
    T_{eps,0.8}, the verdict of :func:`qifldp.refines` and Lemma 10's threshold
    theta*(eps); where T_THE falls below T_OUE (shaded) THE leaks more for some
    test, so the refinement fails.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = figure_2(Path(d)).series
    >>> [(e, s[f"eps={e:g}"]["oue_refines_the"]["holds"]) for e in FIG2_EPS]
    [(0.5, True), (0.8, True), (2.0, False)]
    """
    out, quick, _ = _check_args(out, quick)
    formats = _check_formats(formats)
    n = len(FIG2_EPS)
    fig = _figure(figsize=(3.9 * n + 0.4, 7.4))
    grid = fig.subplots(2, n, squeeze=False, gridspec_kw={"height_ratios": (3, 1.6)})
    series: dict[str, Any] = {"theta": FIG2_THETA}
    for ax, dax, eps in zip(grid[0], grid[1], FIG2_EPS, strict=True):
        O, T = oue_bit(eps), the_bit(eps, FIG2_THETA)
        vo, vt = _curve(O), _curve(T)
        ax.plot(vo[:, 0], vo[:, 1], "s--", color="C1", ms=5, label="OUE bit O_eps")
        ax.plot(
            vt[:, 0], vt[:, 1], "o-", color="C0", ms=5, label=f"THE bit T_(eps, θ = {FIG2_THETA:g})"
        )
        # both curves are piecewise linear: their difference is extreme at a vertex
        alpha = np.union1d(np.linspace(0.0, 1.0, 401), np.concatenate([vo[:, 0], vt[:, 0]]))
        to, tt = np.interp(alpha, vo[:, 0], vo[:, 1]), np.interp(alpha, vt[:, 0], vt[:, 1])
        diff = tt - to
        below = diff < -1e-12
        verdict = _verdict(O, T)
        thr = float(formulas.the_oue_threshold(eps))
        word = "holds" if verdict["holds"] else "fails"
        _tradeoff_axes(ax, f"eps = {eps:g}: OUE ⊑ THE {word}\n(Lemma 10: needs θ ≥ {thr:.4f})")
        dax.axhline(0.0, color="0.4", lw=0.8)
        dax.plot(alpha, diff, "-", color="C0", label="T_THE − T_OUE")
        dax.fill_between(
            alpha, diff, 0.0, where=below, color="C3", alpha=0.35, label="THE leaks more"
        )
        dax.set(xlabel="type I error α", ylabel="T_THE − T_OUE", xlim=(0, 1))
        dax.set_box_aspect(1.6 / 3)
        series[f"eps={eps:g}"] = {
            "oue": vo.tolist(),
            "the": vt.tolist(),
            "threshold": thr,
            "oue_refines_the": verdict,
            "min_difference": float(diff.min()),
        }
    axes = [*grid[0], *grid[1]]
    text = f"Fig. 2: OUE vs THE (θ = {FIG2_THETA:g}) bit channels (Lemma 10)\n" + _BIT_CAPTION
    return _save(fig, out, "figure2_the_oue_threshold_tradeoff", series, text, axes, formats)


#: Fig. 3's budgets: the meet M_eps of the SUE and OUE bit channels.
FIG3_EPS = (1.0, 4.0)


def paper_meet(eps: float) -> np.ndarray:
    """The QIF paper's printed M_eps (Sec. VI-B), the meet of the SUE and OUE bit channels.

    Examples
    --------
    >>> paper_meet(0.0).tolist()
    [[0.5, 0.0, 0.5], [0.5, 0.0, 0.5]]
    """
    p_s, q_s = sue_bits(eps)  # e^(eps/2) / (e^(eps/2) + 1), 1 / (e^(eps/2) + 1)
    p_o, q_o = oue_probabilities(eps)  # 1/2, 1 / (e^eps + 1)
    return np.array([[p_s, q_s - q_o, q_o], [q_s, p_s - p_o, p_o]], dtype=float)


def figure_3(out: Path, quick: bool = False, *, formats: Sequence[str] = FORMATS) -> Figure:
    """Fig. 3: the meet M_eps of the SUE and OUE bit channels (paper, Sec. VI-B).

    One panel per eps in :data:`FIG3_EPS`: the trade-off functions of S_eps and
    O_eps (incomparable, Lemma 9: they cross) and of the paper's printed M_eps,
    the most private channel at least as useful as both: its curve is the convex
    envelope of min(T_S, T_O), here checked against the lattice's exact meet
    (:func:`qifldp.tradeoff.meet_curve`), and M ⊑ S, M ⊑ O are certified.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = figure_3(Path(d)).series["eps=1"]
    >>> s["meet_refines_sue"]["holds"], s["meet_refines_oue"]["holds"]
    (True, True)
    >>> s["max_gap_to_lattice"] < 1e-12   # the printed M_eps is the lattice's meet
    True
    """
    out, quick, _ = _check_args(out, quick)
    formats = _check_formats(formats)
    fig = _figure(figsize=(4.6 * len(FIG3_EPS), 5.0))
    axes = _panels(fig, len(FIG3_EPS), columns=len(FIG3_EPS))
    series: dict[str, Any] = {}
    for ax, eps in zip(axes, FIG3_EPS, strict=True):
        S, O = sue_bit(eps), oue_bit(eps)
        M = paper_meet(eps)
        vs, vo, vm = _curve(S), _curve(O), _curve(M)
        lattice = np.asarray([(float(a), float(b)) for a, b in meet_curve(S, O)])
        alpha = np.linspace(0.0, 1.0, 201)
        gap = float(
            np.max(
                np.abs(
                    np.interp(alpha, vm[:, 0], vm[:, 1])
                    - np.interp(alpha, lattice[:, 0], lattice[:, 1])
                )
            )
        )
        ax.plot(vs[:, 0], vs[:, 1], "D:", color="C4", ms=5, label="SUE bit S_eps")
        ax.plot(vo[:, 0], vo[:, 1], "s--", color="C1", ms=5, label="OUE bit O_eps")
        ax.plot(
            vm[:, 0], vm[:, 1], "-", color="k", lw=2.2, alpha=0.45, label="M_eps (paper, printed)"
        )
        ax.plot(
            lattice[:, 0],
            lattice[:, 1],
            "x",
            color="k",
            ms=8,
            label="meet (qifldp lattice) vertices",
        )
        verdicts = {
            "meet_refines_sue": _verdict(M, S),
            "meet_refines_oue": _verdict(M, O),
            "sue_refines_oue": _verdict(S, O),
            "oue_refines_sue": _verdict(O, S),
        }
        ok = verdicts["meet_refines_sue"]["holds"] and verdicts["meet_refines_oue"]["holds"]
        _tradeoff_axes(ax, f"eps = {eps:g}: M ⊑ SUE and M ⊑ OUE {'certified' if ok else 'FAIL'}")
        series[f"eps={eps:g}"] = {
            "sue": vs.tolist(),
            "oue": vo.tolist(),
            "paper_meet": vm.tolist(),
            "lattice_meet": lattice.tolist(),
            "lattice_meet_matrix": np.asarray(meet(S, O).matrix).tolist(),
            "max_gap_to_lattice": gap,
            **verdicts,
        }
    text = "Fig. 3: the meet M_eps of the SUE and OUE bit channels\n" + _BIT_CAPTION
    return _save(fig, out, "figure3_sue_oue_meet_tradeoff", series, text, axes, formats)


def figure_4(
    out: Path,
    quick: bool = False,
    data: Any = None,
    seed: int = 4,
    *,
    formats: Sequence[str] = FORMATS,
) -> Figure:
    """Fig. 4: ASR of THE (over theta), OUE and SUE, with Lemma 10's threshold.

    The adversary knows the data prior (the top-10 items); theory is the prior-weighted
    Bayes vulnerability of the explicit channels, dots are simulated attacks on the n
    users with their 95% Wilson intervals.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = figure_4(Path(d), quick=True).series["eps=2"]
    ...     all(v <= s["sue"] for v in s["the"])   # Lemma 11: SUE leaks more than THE
    True
    """
    out, quick, seed = _check_args(out, quick, seed)
    formats = _check_formats(formats)
    rng = np.random.default_rng(seed)
    k = 10
    values = _values(data, k, 2_000 if quick else 10_000, rng)
    prior = _prior(values, k)
    epsilons = (2.0, 16.0) if quick else (2.0, 4.0, 8.0, 16.0)
    thetas = np.linspace(0.52, 0.98, 6 if quick else 24)
    fig = _figure(figsize=_grid_size(len(epsilons)))
    axes = _panels(fig, len(epsilons))
    series: dict[str, Any] = {"thetas": thetas.tolist(), "prior": prior.tolist()}
    for ax, eps in zip(axes, epsilons, strict=True):
        v_the = [bayes_vulnerability(the(k, eps, t), prior) for t in thetas]
        v_oue = bayes_vulnerability(oue(k, eps), prior)
        v_sue = bayes_vulnerability(sue(k, eps), prior)
        sim_thetas = thetas[:: max(1, len(thetas) // 4)]
        rates = [simulate_attack(the(k, eps, t), values.size, prior, rng) for t in sim_thetas]
        sims = [r.rate for r in rates]
        lo, hi = np.array([r.interval() for r in rates]).T
        ax.plot(thetas, v_the, color="C0", label="THE (theory)")
        ax.axhline(v_oue, color="C1", ls="--", label="OUE (theory)")
        ax.axhline(v_sue, color="C2", ls=":", lw=2, label="SUE (theory)")
        ax.errorbar(
            sim_thetas,
            sims,
            yerr=[np.subtract(sims, lo), np.subtract(hi, sims)],
            fmt="o",
            color="C0",
            ms=4,
            capsize=2.5,
            label="THE simulated (95% Wilson CI)",
        )
        thr = float(formulas.the_oue_threshold(eps))
        if thr < 1:
            ax.axvline(thr, color="grey", ls="-.", label="Lemma 10 threshold")
        ax.set(title=f"eps = {eps:g}", xlabel="theta", ylabel="ASR (data prior)")
        series[f"eps={eps:g}"] = {
            "the": v_the,
            "oue": v_oue,
            "sue": v_sue,
            "threshold": thr,
            "simulated_thetas": sim_thetas.tolist(),
            "simulated": sims,
        }
    text = "Fig. 4: ASR of THE, OUE, SUE\n" + caption(k, int(values.size), data_source(data))
    return _save(fig, out, "figure4_asr_the_oue_sue", series, text, axes, formats)


#: Seeded repetitions of each simulated point of Fig. 5 (quick mode / full).
FIG5_RUNS = (5, 20)


def figure_5(
    out: Path,
    quick: bool = False,
    data: Any = None,
    seed: int = 5,
    *,
    formats: Sequence[str] = FORMATS,
) -> Figure:
    """Fig. 5: MSE of the frequency estimates of THE (over theta), OUE and SUE.

    Lines are the estimators' theoretical variances averaged over the domain; the
    points with error bars are the simulated MSE, the mean of R seeded runs of the
    mechanism on the same n users with its 95% Student-t interval (R = 5 quick, 20
    full).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = figure_5(Path(d), quick=True)
    ...     s = fig.series["eps=1"]
    ...     s["oue_mse"] < max(s["the_mse"]), fig.series["runs"]   # OUE beats THE
    (True, 5)
    """
    out, quick, seed = _check_args(out, quick, seed)
    formats = _check_formats(formats)
    rng = np.random.default_rng(seed)
    k = 50
    values = _values(data, k, 2_000 if quick else 10_000, rng)
    n = values.size
    f = _prior(values, k)
    runs = FIG5_RUNS[0] if quick else FIG5_RUNS[1]
    epsilons = (1.0, 4.0) if quick else (1.0, 2.0, 4.0, 8.0)
    thetas = np.linspace(0.52, 0.98, 5 if quick else 12)
    fig = _figure(figsize=_grid_size(len(epsilons)))
    axes = _panels(fig, len(epsilons))
    series: dict[str, Any] = {"thetas": thetas.tolist(), "runs": runs}

    def mse(est: np.ndarray) -> float:
        return float(np.mean((est - f) ** 2))

    edge = 1.0  # OUE and SUE do not depend on theta: their points sit at the right edge
    for ax, eps in zip(axes, epsilons, strict=True):
        sims_the = [
            [mse(estimate_the(sample_the(values, k, eps, t, rng), eps, t)) for t in thetas]
            for _ in range(runs)
        ]
        sims_oue = [[mse(estimate_oue(sample_oue(values, k, eps, rng), eps))] for _ in range(runs)]
        sims_sue = [[mse(estimate_sue(sample_sue(values, k, eps, rng), eps))] for _ in range(runs)]
        var_the = [float(np.mean(variance_the(eps, t, n, f))) for t in thetas]
        var_oue = float(np.mean(variance_oue(eps, n, f)))
        var_sue = float(np.mean(variance_sue(eps, n, f)))
        ax.plot(thetas, var_the, color="C0", label="THE (variance)")
        ax.axhline(var_oue, color="C1", ls="--", label="OUE (variance)")
        ax.axhline(var_sue, color="C2", ls=":", lw=2, label="SUE (variance)")
        m_the, h_the = errorbar_series(
            ax, thetas, sims_the, label="THE simulated", marker="o", color="C0", ms=4
        )
        m_oue, h_oue = errorbar_series(
            ax, [edge], sims_oue, label="OUE simulated (right edge)", marker="s", color="C1", ms=4
        )
        m_sue, h_sue = errorbar_series(
            ax,
            [edge + 0.012],
            sims_sue,
            label="SUE simulated (right edge)",
            marker="^",
            color="C2",
            ms=5,
        )
        thr = float(formulas.the_oue_threshold(eps))
        if thr < 1:
            ax.axvline(thr, color="grey", ls="-.", label="Lemma 10 threshold")
        ax.set(
            title=f"eps = {eps:g}",
            xlabel="theta (THE only)",
            ylabel="MSE (mean over the k items)",
            yscale="log",
        )
        _label_log_ticks(ax)
        series[f"eps={eps:g}"] = {
            "the_mse": m_the.tolist(),
            "the_mse_ci": h_the.tolist(),
            "the_mse_runs": sims_the,
            "the_variance": var_the,
            "oue_mse": float(m_oue[0]),
            "oue_mse_ci": float(h_oue[0]),
            "oue_mse_runs": [r[0] for r in sims_oue],
            "oue_variance": var_oue,
            "sue_mse": float(m_sue[0]),
            "sue_mse_ci": float(h_sue[0]),
            "sue_mse_runs": [r[0] for r in sims_sue],
            "sue_variance": var_sue,
        }
    text = "Fig. 5: MSE of frequency estimates\n" + caption(k, int(n), data_source(data), runs)
    return _save(fig, out, "figure5_mse_the_oue_sue", series, text, axes, formats)


#: Relative difference below which two Fig. 6 curves are said to coincide.
FIG6_RTOL = 0.01
#: Step of the eps grid on which Fig. 6 locates where curves coincide.
FIG6_STEP = 1e-3


def figure_6(
    out: Path, quick: bool = False, k: int = 50, *, formats: Sequence[str] = FORMATS
) -> Figure:
    """Fig. 6: Bayes capacity of all protocols at k = 50 (THE with theta = 3/4).

    Exact closed forms (no sampled data). Curves that coincide are told apart by
    marker and line style, and the legend states where they coincide, located on
    an eps grid of step ``FIG6_STEP``: SS equals GRR exactly once omega = 1, i.e.
    for eps > ln(2k/3 - 1); OLH stays within ``FIG6_RTOL`` of OUE from some eps on
    but never equals it (its g is an integer; both tend to (k + 1) / 2).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = figure_6(Path(d), quick=True)
    ...     round(fig.series["GRR"][-1], 3)        # GRR tends to k = 50 as eps grows
    50.0
    >>> fig.series["coincide"]["SS"]["equal_from"] > 3.4   # omega = 1 from eps = ln(2k/3 - 1)
    True
    """
    out, quick, _ = _check_args(out, quick)
    formats = _check_formats(formats)
    k = check_int("k", k, minimum=2)
    eps = np.linspace(0.1, 20.0, 40 if quick else 200)
    curves = {
        "GRR": formulas.bayes_capacity_grr(k, eps),
        "SS": formulas.bayes_capacity_ss(k, eps),
        "BLH": formulas.bayes_capacity_blh(k, eps),
        "OLH": formulas.bayes_capacity_olh(k, eps),
        "SUE": formulas.bayes_capacity_sue(k, eps),
        "OUE": formulas.bayes_capacity_oue(k, eps),
        "THE": formulas.bayes_capacity_the(k, eps, 0.75),
    }
    # where curves coincide, on a grid fine enough to quote eps to 2 decimals
    fine = np.arange(0.1, 20.0 + FIG6_STEP / 2, FIG6_STEP)
    exact = {
        "SS": (formulas.bayes_capacity_ss(k, fine), formulas.bayes_capacity_grr(k, fine)),
        "OLH": (formulas.bayes_capacity_olh(k, fine), formulas.bayes_capacity_oue(k, fine)),
    }
    coincide: dict[str, dict[str, Any]] = {}
    for a, b in (("SS", "GRR"), ("OLH", "OUE")):
        ca, cb = exact[a]
        coincide[a] = {
            "with": b,
            "equal_from": coincide_from(fine, ca, cb),
            "close_from": coincide_from(fine, ca, cb, FIG6_RTOL),
            "max_rel_diff": float(np.max(np.abs(ca - cb) / np.maximum(ca, cb))),
        }
    fig = _figure(figsize=(7.0, 4.6))
    ax = fig.subplots()
    for i, (name, ml) in enumerate(curves.items()):
        label = "THE (theta = 0.75)" if name == "THE" else name
        c = coincide.get(name)
        if c and c["equal_from"] is not None:
            label += f" (= {c['with']} exactly for eps ≥ {c['equal_from']:.3f}: omega = 1)"
        elif c and c["close_from"] is not None:
            label += (
                f" (within {FIG6_RTOL:.0%} of {c['with']} for eps ≥ {c['close_from']:.2f};"
                f" never equal: up to {c['max_rel_diff']:.1%} apart)"
            )
        ax.plot(
            eps,
            ml,
            label=label,
            markevery=staggered_markevery(i, len(curves)),
            ms=5,
            lw=2.4 if name in ("GRR", "OUE") else 1.4,
            alpha=0.75 if name in ("GRR", "OUE") else 1.0,
            fillstyle="none" if name in ("GRR", "SS") else "full",
            **STYLES[name],
        )
    ax.set(xlabel="eps", ylabel="Bayes capacity ML(C)")
    fig.legend(loc="outside lower center", ncols=2, fontsize=7.5)
    series = {
        "eps": eps.tolist(),
        **{n: np.asarray(v).tolist() for n, v in curves.items()},
        "coincide": coincide,
    }
    text = "Fig. 6: Bayes capacity of all protocols\n" + caption(k, None, None)
    return _save(fig, out, "figure6_capacity_all_protocols", series, text, [ax], formats)


def figure_7(
    out: Path, quick: bool = False, seed: int = 7, *, formats: Sequence[str] = FORMATS
) -> Figure:
    """Fig. 7: ASR of OLH by Gursoy's Eq. (25) and by Eq. (26), against simulation.

    Simulation: 1000 users with uniform values, hashed with a uniformly random
    function, attacked by the plausible-deniability attacker (Bayes-optimal here);
    the mean of R seeded runs with its 95% Student-t interval (R = 5 quick, 50 full).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = figure_7(Path(d), quick=True).series["eps=3"]
    ...     round(s["eq26"][0], 4), round(s["eq25"][0], 4)   # k = 2: Eq. 25 is off
    (0.7267, 0.5011)
    """
    out, quick, seed = _check_args(out, quick, seed)
    formats = _check_formats(formats)
    rng = np.random.default_rng(seed)
    ks = np.arange(2, 11 if quick else 31)
    repeats = 5 if quick else 50
    users = 1000
    fig = _figure(figsize=(9, 3.9))
    axes = fig.subplots(1, 2)
    series: dict[str, Any] = {"k": ks.tolist(), "runs": repeats, "n": users}
    for ax, eps in zip(axes, (3.0, 5.0), strict=True):
        g = int(formulas.olh_g(eps))
        eq25 = formulas.asr_lh_gursoy(ks, eps, g)
        eq26 = formulas.asr_lh(ks, eps, g)
        rates = np.empty((repeats, ks.size))
        for j, k in enumerate(ks):
            for r in range(repeats):
                xs = rng.integers(0, k, size=users)
                reports = sample_lh(xs, int(k), eps, g, rng, hash="uniform")
                rates[r, j] = empirical_asr(xs, attack_lh(reports, rng)).rate
        ax.plot(ks, eq25, "--", color="C0", label="Eq. (25) (Gursoy et al.)")
        ax.plot(ks, eq26, "-", color="C1", label="Eq. (26)")
        sims, half = errorbar_series(ax, ks, rates, label="simulated", marker="o", color="C2", ms=4)
        ax.set(title=f"OLH, eps = {eps:g}, g = {g}", xlabel="k", ylabel="ASR")
        series[f"eps={eps:g}"] = {
            "eq25": np.asarray(eq25).tolist(),
            "eq26": np.asarray(eq26).tolist(),
            "simulated": sims.tolist(),
            "simulated_ci": half.tolist(),
            "simulated_runs": rates.tolist(),
        }
    text = "Fig. 7: ASR of OLH, Eq. (25) vs Eq. (26)\n" + caption(
        f"{ks[0]}..{ks[-1]}", users, "synthetic, uniform on 0..k-1 (seeded)", repeats
    )
    return _save(fig, out, "figure7_lh_gursoy_vs_eq26", series, text, axes, formats)


def _save(
    fig: Any,
    out: Path,
    name: str,
    series: dict[str, Any],
    text: str,
    axes: Sequence[Any],
    formats: Sequence[str] = FORMATS,
) -> Figure:
    """Title the figure with ``text``, put one legend under the panels, write the files.

    PNG at :data:`DPI` for the screen, PDF and SVG (vector, text kept as text in
    the SVG) at :data:`PRINT_DPI` for print, each of ``formats``.
    """
    fig.suptitle(text, fontsize=10)
    if len(axes) > 1:  # one legend for all panels, under them, with every entry
        entries: dict[str, Any] = {}
        for ax in axes:
            handles, labels = ax.get_legend_handles_labels()
            for h, lab in zip(handles, labels, strict=True):
                entries.setdefault(lab, h)
        fig.legend(
            list(entries.values()),
            list(entries),
            loc="outside lower center",
            ncols=min(len(entries), 3),
            fontsize=8,
        )
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    for fmt in formats:
        files[fmt] = out / f"{name}.{fmt}"
        extra = {"metadata": {"Date": None}} if fmt == "svg" else {}
        fig.savefig(files[fmt], dpi=DPI if fmt == "png" else PRINT_DPI, format=fmt, **extra)
    path = files.get("png", next(iter(files.values())))
    return Figure(name, path, series, caption=text, figure=fig, files=files)


def reproduce(
    out: str | os.PathLike = "figures",
    quick: bool = False,
    data: str | os.PathLike | None = None,
    which: Sequence[int] = (1, 2, 3, 4, 5, 6, 7),
    *,
    progress: bool = True,
    formats: Sequence[str] = FORMATS,
) -> list[Figure]:
    """Reproduce the paper's Figs. 1-7 into ``out``; returns the figures written.

    Ctrl-C (KeyboardInterrupt) stops after the figure being made: the figures
    already written are returned (a RuntimeWarning names those not made).

    Parameters
    ----------
    out : path
        Directory for the files (created if needed).
    quick : bool
        Fewer grid points and simulated users (seconds instead of a minute).
    data : path, optional
        A FIMI transaction file (e.g. Kosarak); default a seeded Zipf sample.
    which : sequence of int
        Figure numbers to reproduce.
    progress : bool
        A tqdm bar over the figures (silent when stderr is not a terminal).
    formats : sequence of str
        File formats among :data:`FORMATS`: PNG (screen, :data:`DPI`), PDF and SVG
        (vector, for print; :data:`PRINT_DPI`). Default all three.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     [sorted(f.files) for f in reproduce(d, quick=True, which=[6])]
    [['pdf', 'png', 'svg']]
    """
    out, quick, _ = _check_args(out, quick)
    formats = _check_formats(formats)
    if data is not None and not isinstance(data, (str, os.PathLike)):
        msg = f"data must be a file path (str or os.PathLike) or None, got {data!r}"
        raise InputTypeError(msg)
    if isinstance(which, (str, bytes)) or not hasattr(which, "__iter__"):
        msg = f"which must be a sequence of figure numbers, got {which!r}"
        raise InputTypeError(msg)
    which = [check_int("which entry", w) for w in which]
    makers = {
        1: lambda: figure_1(out, quick, formats=formats),
        2: lambda: figure_2(out, quick, formats=formats),
        3: lambda: figure_3(out, quick, formats=formats),
        4: lambda: figure_4(out, quick, data, formats=formats),
        5: lambda: figure_5(out, quick, data, formats=formats),
        6: lambda: figure_6(out, quick, formats=formats),
        7: lambda: figure_7(out, quick, formats=formats),
    }
    unknown = sorted(set(which) - set(makers))
    if unknown:
        msg = f"which: the paper's reproducible figures are 1, 2, ..., 7; got {unknown}"
        raise ParameterError(msg)
    progress = check_bool("progress", progress)

    bar = _progress_bar(len(which), progress)
    done: list[Figure] = []
    try:
        for i in which:
            if bar is not None:
                bar.set_description(f"figure {i}")
            done.append(makers[i]())
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        missing = which[len(done) :]
        warnings.warn(
            f"reproduce interrupted: figures {missing} not made; returning the {len(done)} written",
            RuntimeWarning,
            stacklevel=2,
        )
    finally:
        if bar is not None:
            bar.close()
    return done
