"""Plotting helpers shared by the figures: captions that say what was computed, styles
that keep coinciding curves visible, and error bars over repeated seeded runs.

matplotlib is imported only inside the functions that draw.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputTypeError

__all__ = [
    "STYLES",
    "CI_LEVEL",
    "data_source",
    "caption",
    "mean_ci",
    "coincide_from",
    "staggered_markevery",
    "errorbar_series",
    "RELATION_COLORS",
    "comparability_figure",
    "relation_handles",
    "PROFILING_YMAX",
    "profiling_figure",
]

#: One (marker, linestyle) per protocol, all pairs distinct, so that two curves that
#: coincide stay distinguishable (markers are also staggered along the curve).
STYLES: dict[str, dict[str, Any]] = {
    "GRR": {"marker": "o", "linestyle": "-", "color": "C0"},
    "SS": {"marker": "s", "linestyle": "--", "color": "C1"},
    "BLH": {"marker": "v", "linestyle": "-", "color": "C2"},
    "OLH": {"marker": "^", "linestyle": "-.", "color": "C3"},
    "SUE": {"marker": "D", "linestyle": ":", "color": "C4"},
    "OUE": {"marker": "x", "linestyle": "-", "color": "C5"},
    "THE": {"marker": "P", "linestyle": (0, (5, 1.5)), "color": "C6"},
}

#: Confidence level of the error bars drawn over repeated runs.
CI_LEVEL = 0.95


def data_source(data: str | os.PathLike | None) -> str:
    """Say where a figure's user values come from.

    Parameters
    ----------
    data : path or None
        The ``data`` argument of a figure: None for the seeded Zipf stand-in.

    Returns
    -------
    str

    Examples
    --------
    >>> data_source(None)
    'synthetic Zipf stand-in (s = 1, seeded)'
    >>> data_source("/tmp/kosarak.dat")
    'user data kosarak.dat'
    """
    if data is None:
        return "synthetic Zipf stand-in (s = 1, seeded)"
    return f"user data {Path(data).name}"


def caption(k: Any, n: int | None, source: str | None, runs: int | None = None) -> str:
    """The caption line every figure carries: domain size, users, runs, data.

    Parameters
    ----------
    k : int or str
        Domain size (a range such as ``"2..10"`` where k is on an axis).
    n : int or None
        Number of users per run; None for exact computations without users.
    source : str or None
        Where the values come from (see :func:`data_source`); None without data.
    runs : int, optional
        Number of seeded repetitions behind the error bars.

    Returns
    -------
    str

    Examples
    --------
    >>> caption(10, 2000, data_source(None), runs=5)
    'k = 10, n = 2000 users, 5 seeded runs; data: synthetic Zipf stand-in (s = 1, seeded)'
    >>> caption(50, None, None)
    'k = 50, n: none (exact closed forms, no sampled data)'
    """
    if n is None:
        return f"k = {k}, n: none (exact closed forms, no sampled data)"
    reps = f", {runs} seeded runs" if runs else ""
    return f"k = {k}, n = {n} users{reps}; data: {source}"


def mean_ci(samples: Any, level: float = CI_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Mean over repeated runs and the half-width of its Student-t confidence interval.

    Parameters
    ----------
    samples : array_like, shape (R, ...)
        One row per run, R >= 2.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (mean, half_width) : arrays of shape ``samples.shape[1:]``
        ``mean ± half_width`` is the interval t_{R-1} * std / sqrt(R).

    Raises
    ------
    ValueError
        Fewer than two runs, or ``level`` outside (0, 1).

    Examples
    --------
    >>> m, h = mean_ci([[1.0], [3.0]])        # std 1.414, t_1(0.975) = 12.706
    >>> float(m[0]), round(float(h[0]), 3)
    (2.0, 12.706)
    """
    from scipy.stats import t

    a = np.asarray(samples, dtype=float)
    if a.ndim == 0 or a.shape[0] < 2:
        msg = f"samples: need at least 2 runs along axis 0, got shape {a.shape}"
        raise ValueError(msg)
    if not 0.0 < level < 1.0:
        msg = f"level must lie in (0, 1), got {level}"
        raise ValueError(msg)
    r = a.shape[0]
    half = t.ppf(0.5 + level / 2, r - 1) * a.std(axis=0, ddof=1) / math.sqrt(r)
    return a.mean(axis=0), half


def coincide_from(x: Any, a: Any, b: Any, rtol: float = 0.0) -> float | None:
    """The smallest x beyond which two sampled curves agree within ``rtol``.

    Parameters
    ----------
    x : array_like, ascending
        Abscissae.
    a, b : array_like
        The two curves at ``x``.
    rtol : float
        Relative tolerance ``|a - b| <= rtol * max(|a|, |b|)``; 0 means equal floats.

    Returns
    -------
    float or None
        x[i] such that the curves agree at every x[j], j >= i, and not at x[i - 1];
        None when they differ at the last point.

    Examples
    --------
    >>> coincide_from([0, 1, 2, 3], [1, 2, 3, 4], [0, 2, 3, 4])
    1.0
    >>> coincide_from([0, 1], [1, 2], [1, 3]) is None
    True
    """
    x, a, b = (np.asarray(v, dtype=float) for v in (x, a, b))
    close = np.abs(a - b) <= rtol * np.maximum(np.abs(a), np.abs(b))
    if not close[-1]:
        return None
    differ = np.flatnonzero(~close)
    return float(x[differ[-1] + 1]) if differ.size else float(x[0])


def staggered_markevery(i: int, m: int, spacing: float = 0.1) -> tuple[float, float]:
    """``markevery`` for curve ``i`` of ``m``: markers every ``spacing``, offset per curve.

    The float form of matplotlib's ``markevery``: markers at equal distances along
    the drawn line (``spacing`` as a fraction of the axes diagonal), the first at
    ``i / m`` of a spacing. Curves drawn over the same points put their markers at
    different places, so a curve hidden under another still shows its markers.

    Examples
    --------
    >>> [staggered_markevery(i, 4) for i in range(4)]
    [(0.0, 0.1), (0.025, 0.1), (0.05, 0.1), (0.075, 0.1)]
    """
    return (round(spacing * i / max(m, 1), 12), spacing)


def errorbar_series(
    ax: Any, x: Sequence[float] | np.ndarray, samples: Any, *, label: str, **style: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Draw the mean of repeated runs with its confidence interval as error bars.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x : sequence of float
        Abscissae, one per column of ``samples``.
    samples : array_like, shape (R, len(x))
        One row per run.
    label : str
        Legend label; the level and R are appended.
    **style
        Passed to ``Axes.errorbar``.

    Returns
    -------
    (mean, half_width) : arrays
        As :func:`mean_ci`.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> m, h = errorbar_series(ax, [0, 1], [[1, 2], [3, 2]], label="sim")
    >>> type(ax.containers[0]).__name__, ax.get_legend_handles_labels()[1]
    ('ErrorbarContainer', ['sim (mean of 2 runs ± 95% CI)'])
    """
    samples = np.asarray(samples, dtype=float)
    mean, half = mean_ci(samples)
    style.setdefault("capsize", 2.5)
    style.setdefault("linestyle", "none")
    ax.errorbar(
        x,
        mean,
        yerr=half,
        label=f"{label} (mean of {samples.shape[0]} runs ± {CI_LEVEL:.0%} CI)",
        **style,
    )
    return mean, half


#: One colour per relation of :func:`qifldp.comparability_map`; "undecided" is grey and
#: hatched.
RELATION_COLORS: dict[str, str] = {
    "equivalent": "#4daf4a",
    "A⊑B": "#377eb8",
    "B⊑A": "#ff7f00",
    "incomparable": "#e41a1c",
    "undecided": "#bdbdbd",
}


def relation_handles(relations: Any) -> list[Any]:
    """Legend patches of the given map relations, coloured and hatched as the maps draw
    them (:data:`RELATION_COLORS`; undecided hatched).

    Examples
    --------
    >>> [h.get_label() for h in relation_handles(["A⊑B", "undecided"])]
    ['A⊑B', 'undecided']
    """
    from matplotlib.patches import Patch

    return [
        Patch(
            facecolor=RELATION_COLORS[r],
            hatch="//" if r == "undecided" else None,
            edgecolor="#636363",
            label=r,
        )
        for r in relations
    ]


def comparability_figure(
    table: Any,
    boundary: Any = None,
    title: str | None = None,
    *,
    ax: Any = None,
    legend: bool = True,
) -> Any:
    """The regions of a comparability map, coloured by relation, with a boundary curve.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`qifldp.comparability_map` table (columns ``k``, ``eps``, ``relation``).
    boundary : pandas.DataFrame, optional
        A :func:`qifldp.boundary_curve` table (``k``, ``eps_star``): drawn as the curve
        k ↦ eps*(k) over the regions (k without a bracketed change are skipped).
    title : str, optional
        The axes title.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (a panel of a larger figure) instead of a new figure.
    legend : bool, default True
        Draw the legend of the relations present (a grid of panels draws one of its own).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (``ax``'s, or a new one with one axes): k on the x axis (one
        column per k of the map, in order), eps on the y axis; undecided cells (and cells
        whose point failed) grey and hatched. No global backend is selected.

    Raises
    ------
    InputTypeError
        ``table`` or ``boundary`` without the needed columns.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"k": [2, 2, 3, 3], "eps": [1.0, 2.0, 1.0, 2.0],
    ...                   "relation": ["A⊑B", "A⊑B", "incomparable", "undecided"]})
    >>> fig = comparability_figure(t)
    >>> len(fig.axes), fig.axes[0].get_xlabel()
    (1, 'k')
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    for name, frame, needed in (
        ("table", table, ("k", "eps", "relation")),
        ("boundary", boundary, ("k", "eps_star")),
    ):
        if frame is None and name == "boundary":
            continue
        columns = getattr(frame, "columns", None)
        if columns is None or any(c not in columns for c in needed):
            msg = f"{name} must be a DataFrame with columns {', '.join(needed)}"
            raise InputTypeError(msg)
    relations = list(RELATION_COLORS)
    ks = sorted({int(k) for k in table["k"]})
    epss = sorted({float(e) for e in table["eps"]})
    codes = np.full((len(epss), len(ks)), relations.index("undecided"), dtype=float)
    errors = table["error"] if "error" in table.columns else [None] * len(table)
    for k, eps, rel, err in zip(table["k"], table["eps"], table["relation"], errors, strict=True):
        if rel in RELATION_COLORS and err is None:
            codes[epss.index(float(eps)), ks.index(int(k))] = relations.index(rel)
    if ax is None:
        fig = Figure(figsize=(7.4, 4.4), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    x_edges = np.arange(len(ks) + 1) - 0.5
    e = np.asarray(epss)
    mids = (e[1:] + e[:-1]) / 2
    first = e[0] - (mids[0] - e[0] if len(e) > 1 else 0.5)
    if e[0] >= 0:  # the cell of the least eps stops at 0: no negative eps on the axis
        first = max(first, 0.0)
    last = e[-1] + (e[-1] - mids[-1] if len(e) > 1 else 0.5)
    y_edges = np.concatenate([[first], mids, [last]])
    cmap = ListedColormap([RELATION_COLORS[r] for r in relations])
    ax.pcolormesh(x_edges, y_edges, codes, cmap=cmap, vmin=-0.5, vmax=len(relations) - 0.5)
    undecided = codes == relations.index("undecided")
    for i, j in zip(*np.nonzero(undecided), strict=True):
        ax.fill_between(
            [x_edges[j], x_edges[j + 1]],
            y_edges[i],
            y_edges[i + 1],
            facecolor="none",
            edgecolor="#636363",
            hatch="//",
            linewidth=0,
        )
    if boundary is not None:
        pts = [
            (ks.index(int(k)), float(v))
            for k, v in zip(boundary["k"], boundary["eps_star"], strict=True)
            if int(k) in ks and v is not None and math.isfinite(float(v))
        ]
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, "k-o", markersize=3, label="boundary eps*(k)")
    ax.set_xticks(range(len(ks)), [str(k) for k in ks])
    ax.set_xlabel("k")
    ax.set_yticks(epss, [f"{v:g}" for v in epss])  # the grid's eps values, one per row
    ax.set_ylabel("eps")
    handles = relation_handles([r for r in relations if np.any(codes == relations.index(r))])
    if boundary is not None and ax.lines:
        handles.append(ax.lines[0])
    if legend:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    if title is not None:
        ax.set_title(title)
    return fig


#: Top of the accuracy axis of :func:`profiling_figure`: probabilities, with room for the
#: markers of the clipped values drawn at 1.
PROFILING_YMAX = 1.08


def profiling_figure(table: Any, title: str | None = None) -> Any:
    """The multidimensional paper's Fig. 1 beside the exact values, on a probability axis.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`qifldp.profiling_curves` table (columns ``oracle``, ``metric``,
        ``eps``, ``paper``, ``bayes``).
    title : str, optional
        A line put above both panels.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per metric (uniform: Eq. 4; non-uniform: Eq. 5), accuracy on a
        linear axis from 0 to :data:`PROFILING_YMAX`: solid, the exact Bayes-optimal
        accuracy; dashed, the paper's equation with its printed ACC_FO, clipped at 1
        (a printed value above 1 is an impossible accuracy: drawn as a triangle on
        the line y = 1). A third panel shows the clipped curves whole, on a log
        axis. No global backend is selected.

    Raises
    ------
    InputTypeError
        ``table`` without the needed columns.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"oracle": ["ss"] * 4, "metric": ["uniform"] * 2 + ["non-uniform"] * 2,
    ...                   "eps": [1.0, 9.0] * 2, "paper": [0.1, 40.0, 0.05, 9.0],
    ...                   "bayes": [0.1, 0.9, 0.05, 0.6]})
    >>> fig = profiling_figure(t)
    >>> bool(fig.axes[0].get_ylim()[1] <= PROFILING_YMAX), fig.axes[0].get_yscale()
    (True, 'linear')
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    needed = ("oracle", "metric", "eps", "paper", "bayes")
    columns = getattr(table, "columns", None)
    if columns is None or any(c not in columns for c in needed):
        msg = f"table must be a DataFrame with columns {', '.join(needed)}"
        raise InputTypeError(msg)
    oracles = list(dict.fromkeys(table["oracle"]))
    fig = Figure(figsize=(13, 5.0), layout="constrained")
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": (1, 1, 0.8)})
    whole = axes[2]
    panels = (("uniform", "ACC^U, Eq. 4"), ("non-uniform", "ACC^NU, Eq. 5"))
    for ax, (metric, eq) in zip(axes[:2], panels, strict=True):
        for i, oracle in enumerate(oracles):
            part = table[(table["oracle"] == oracle) & (table["metric"] == metric)]
            eps = part["eps"].to_numpy(dtype=float)
            paper = part["paper"].to_numpy(dtype=float)
            name = str(oracle).upper()
            style = STYLES.get(name, {"marker": "o", "color": f"C{i}"})
            color = style["color"]
            ax.plot(
                eps,
                part["bayes"],
                marker=style["marker"],
                color=color,
                ms=5,
                fillstyle="none",
                markevery=staggered_markevery(i, len(oracles), 0.08),
                label=f"{name} exact (Bayes)",
            )
            ax.plot(eps, np.minimum(paper, 1.0), "--", color=color, label=f"{name} paper, printed")
            over = paper > 1.0
            if over.any():
                ax.plot(eps[over], np.ones(int(over.sum())), "^", ms=7, color=color, clip_on=False)
                ls = "--" if metric == "uniform" else ":"
                whole.plot(eps, paper, ls, marker="^", ms=4, color=color, label=f"{name}, {eq}")
        ax.axhline(1.0, color="grey", lw=1)
        ax.set(
            xlabel="eps",
            ylabel="expected accuracy of a complete profile",
            ylim=(0.0, PROFILING_YMAX),
            title=f"{metric} metric ({eq})",
        )
    whole.axhline(1.0, color="grey", lw=1)
    whole.set(
        yscale="log",
        xlabel="eps",
        ylabel="printed value (log scale)",
        title="clipped curves, whole (log)",
    )
    if whole.lines[1:]:
        whole.legend(fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(Line2D([], [], ls="none", marker="^", color="0.4", ms=7))
    labels.append("printed value > 1 (impossible), clipped at 1")
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), fontsize=8)
    if title is not None:
        fig.suptitle(title, fontsize=10)
    return fig
