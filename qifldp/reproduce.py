"""Reproduce the figures of the QIF paper (Figs. 4-7) from qifldp's own computations.

Each figure function computes its curves (closed forms, explicit channels and
Monte Carlo simulation, seeded), draws them with matplotlib and returns the path
of the PNG written plus the plotted numbers, so tests can check the numbers.

The paper used the Kosarak click-stream data set (which users bring themselves,
in FIMI format); without ``data`` a seeded Zipf sample stands in for it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import formulas
from ._validation import check_bool, check_int
from .errors import InputTypeError, ParameterError
from .measures import bayes_vulnerability

__all__ = ["Figure", "figure_4", "figure_5", "figure_6", "figure_7", "reproduce"]


@dataclass
class Figure:
    """A reproduced figure: where it was written and the numbers it shows."""

    name: str
    path: Path
    series: dict[str, Any] = field(default_factory=dict)


def _figure(**kwargs: Any):
    """A matplotlib Figure that belongs to no pyplot state (no backend switch, no leak)."""
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(**kwargs)


def _values(data: str | os.PathLike | None, k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n user values in 0..k-1: the k most frequent items of a FIMI file, or Zipf."""
    from .simulation import data as datasets

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


def _prior(values: np.ndarray, k: int) -> np.ndarray:
    counts = np.bincount(values, minlength=k).astype(float)
    return counts / counts.sum()


def figure_4(out: Path, quick: bool = False, data: Any = None, seed: int = 4) -> Figure:
    """Fig. 4: ASR of THE (over theta), OUE and SUE, with Lemma 10's threshold.

    The adversary knows the data prior (the top-10 items); theory is the prior-weighted
    Bayes vulnerability of the explicit channels, dots are simulated attacks.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = figure_4(Path(d), quick=True)
    ...     s = fig.series["eps=2"]
    ...     all(v <= s["sue"] for v in s["the"])   # Lemma 11: SUE leaks more than THE
    True
    """
    from .mechanisms import oue, sue, the
    from .simulation import simulate_attack

    out, quick, seed = _check_args(out, quick, seed)
    rng = np.random.default_rng(seed)
    k = 10
    values = _values(data, k, 2_000 if quick else 10_000, rng)
    prior = _prior(values, k)
    epsilons = (2.0, 16.0) if quick else (2.0, 4.0, 8.0, 16.0)
    thetas = np.linspace(0.52, 0.98, 6 if quick else 24)
    fig = _figure(figsize=(4 * len(epsilons), 3.2))
    axes = fig.subplots(1, len(epsilons), squeeze=False)
    series: dict[str, Any] = {"thetas": thetas.tolist(), "prior": prior.tolist()}
    for ax, eps in zip(axes[0], epsilons, strict=True):
        v_the = [bayes_vulnerability(the(k, eps, t), prior) for t in thetas]
        v_oue = bayes_vulnerability(oue(k, eps), prior)
        v_sue = bayes_vulnerability(sue(k, eps), prior)
        sim_thetas = thetas[:: max(1, len(thetas) // 4)]
        sims = [simulate_attack(the(k, eps, t), values.size, prior, rng).rate for t in sim_thetas]
        ax.plot(thetas, v_the, label="THE")
        ax.axhline(v_oue, color="C1", label="OUE")
        ax.axhline(v_sue, color="C2", label="SUE")
        ax.plot(sim_thetas, sims, "o", color="C0", ms=3, label="THE (simulated)")
        thr = float(formulas.the_oue_threshold(eps))
        if thr < 1:
            ax.axvline(thr, color="grey", ls="--", label="Lemma 10")
        ax.set(title=f"eps = {eps:g}", xlabel="theta", ylabel="ASR (data prior)")
        series[f"eps={eps:g}"] = {"the": v_the, "oue": v_oue, "sue": v_sue, "threshold": thr}
    axes[0][0].legend(fontsize=7)
    return _save(fig, out, "figure4_asr_the_oue_sue", series)


def figure_5(out: Path, quick: bool = False, data: Any = None, seed: int = 5) -> Figure:
    """Fig. 5: MSE of the frequency estimates of THE (over theta), OUE and SUE.

    Lines are the estimators' theoretical variances summed over the domain, dots the
    simulated MSE.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = figure_5(Path(d), quick=True)
    ...     s = fig.series["eps=1"]
    ...     s["oue_mse"] < max(s["the_mse"])       # OUE is more useful than THE
    True
    """
    from .simulation import (
        estimate_oue,
        estimate_sue,
        estimate_the,
        sample_oue,
        sample_sue,
        sample_the,
        variance_oue,
        variance_sue,
    )
    from .simulation.estimators import variance_the

    out, quick, seed = _check_args(out, quick, seed)
    rng = np.random.default_rng(seed)
    k = 50
    values = _values(data, k, 2_000 if quick else 10_000, rng)
    n = values.size
    f = _prior(values, k)
    epsilons = (1.0, 4.0) if quick else (1.0, 2.0, 4.0, 8.0)
    thetas = np.linspace(0.52, 0.98, 5 if quick else 12)
    fig = _figure(figsize=(4 * len(epsilons), 3.2))
    axes = fig.subplots(1, len(epsilons), squeeze=False)
    series: dict[str, Any] = {"thetas": thetas.tolist()}
    for ax, eps in zip(axes[0], epsilons, strict=True):
        mse_the = [
            float(np.mean((estimate_the(sample_the(values, k, eps, t, rng), eps, t) - f) ** 2))
            for t in thetas
        ]
        var_the = [float(np.mean(variance_the(eps, t, n, f))) for t in thetas]
        mse_oue = float(np.mean((estimate_oue(sample_oue(values, k, eps, rng), eps) - f) ** 2))
        mse_sue = float(np.mean((estimate_sue(sample_sue(values, k, eps, rng), eps) - f) ** 2))
        ax.plot(thetas, var_the, label="THE (variance)")
        ax.plot(thetas, mse_the, "o", color="C0", ms=3, label="THE (simulated)")
        ax.axhline(float(np.mean(variance_oue(eps, n, f))), color="C1", label="OUE")
        ax.axhline(float(np.mean(variance_sue(eps, n, f))), color="C2", label="SUE")
        ax.plot([thetas[-1]] * 2, [mse_oue, mse_sue], "x", color="k", ms=4, label="OUE/SUE (sim.)")
        thr = float(formulas.the_oue_threshold(eps))
        if thr < 1:
            ax.axvline(thr, color="grey", ls="--", label="Lemma 10")
        ax.set(title=f"eps = {eps:g}", xlabel="theta", ylabel="MSE", yscale="log")
        series[f"eps={eps:g}"] = {
            "the_mse": mse_the,
            "the_variance": var_the,
            "oue_mse": mse_oue,
            "sue_mse": mse_sue,
        }
    axes[0][0].legend(fontsize=7)
    return _save(fig, out, "figure5_mse_the_oue_sue", series)


def figure_6(out: Path, quick: bool = False, k: int = 50) -> Figure:
    """Fig. 6: Bayes capacity of all protocols at k = 50 (THE with theta = 3/4).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = figure_6(Path(d), quick=True)
    ...     round(fig.series["GRR"][-1], 3)        # GRR tends to k = 50 as eps grows
    50.0
    """
    out, quick, _ = _check_args(out, quick)
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
    fig = _figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    for name, ml in curves.items():
        ax.plot(eps, ml, label=name)
    ax.set(xlabel="eps", ylabel="Bayes capacity", title=f"k = {k}")
    ax.legend(fontsize=8)
    series = {"eps": eps.tolist(), **{n: np.asarray(v).tolist() for n, v in curves.items()}}
    return _save(fig, out, "figure6_capacity_all_protocols", series)


def figure_7(out: Path, quick: bool = False, seed: int = 7) -> Figure:
    """Fig. 7: ASR of OLH by Gursoy's Eq. (25) and by Eq. (26), against simulation.

    Simulation: 1000 users with uniform values, hashed with a uniformly random
    function, attacked by the plausible-deniability attacker (Bayes-optimal here).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     s = figure_7(Path(d), quick=True).series["eps=3"]
    ...     round(s["eq26"][0], 4), round(s["eq25"][0], 4)   # k = 2: Eq. 25 is off
    (0.7267, 0.5011)
    """
    from .simulation import attack_lh, empirical_asr, sample_lh

    out, quick, seed = _check_args(out, quick, seed)
    rng = np.random.default_rng(seed)
    ks = np.arange(2, 11 if quick else 31)
    repeats = 5 if quick else 50
    fig = _figure(figsize=(9, 3.4))
    axes = fig.subplots(1, 2)
    series: dict[str, Any] = {"k": ks.tolist()}
    for ax, eps in zip(axes, (3.0, 5.0), strict=True):
        g = int(formulas.olh_g(eps))
        eq25 = formulas.asr_lh_gursoy(ks, eps, g)
        eq26 = formulas.asr_lh(ks, eps, g)
        sims = []
        for k in ks:
            rates = []
            for _ in range(repeats):
                xs = rng.integers(0, k, size=1000)
                reports = sample_lh(xs, int(k), eps, g, rng, hash="uniform")
                rates.append(empirical_asr(xs, attack_lh(reports, rng)).rate)
            sims.append(float(np.mean(rates)))
        ax.plot(ks, eq25, "--", label="Eq. (25) (Gursoy et al.)")
        ax.plot(ks, eq26, label="Eq. (26)")
        ax.plot(ks, sims, "o", ms=3, label="simulation")
        ax.set(title=f"OLH, eps = {eps:g}, g = {g}", xlabel="k", ylabel="ASR")
        series[f"eps={eps:g}"] = {
            "eq25": np.asarray(eq25).tolist(),
            "eq26": np.asarray(eq26).tolist(),
            "simulated": sims,
        }
    axes[0].legend(fontsize=8)
    return _save(fig, out, "figure7_lh_gursoy_vs_eq26", series)


def _save(fig: Any, out: Path, name: str, series: dict[str, Any]) -> Figure:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return Figure(name, path, series)


def reproduce(
    out: str | os.PathLike = "figures",
    quick: bool = False,
    data: str | os.PathLike | None = None,
    which: Sequence[int] = (4, 5, 6, 7),
) -> list[Figure]:
    """Reproduce the paper's Figs. 4-7 into ``out``; returns the figures written.

    Parameters
    ----------
    out : path
        Directory for the PNG files (created if needed).
    quick : bool
        Fewer grid points and simulated users (seconds instead of a minute).
    data : path, optional
        A FIMI transaction file (e.g. Kosarak); default a seeded Zipf sample.
    which : sequence of int
        Figure numbers to reproduce.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     [f.path.name for f in reproduce(d, quick=True, which=[6])]
    ['figure6_capacity_all_protocols.png']
    """
    out, quick, _ = _check_args(out, quick)
    if data is not None and not isinstance(data, (str, os.PathLike)):
        msg = f"data must be a file path (str or os.PathLike) or None, got {data!r}"
        raise InputTypeError(msg)
    if isinstance(which, (str, bytes)) or not hasattr(which, "__iter__"):
        msg = f"which must be a sequence of figure numbers, got {which!r}"
        raise InputTypeError(msg)
    which = [check_int("which entry", w) for w in which]
    makers = {
        4: lambda: figure_4(out, quick, data),
        5: lambda: figure_5(out, quick, data),
        6: lambda: figure_6(out, quick),
        7: lambda: figure_7(out, quick),
    }
    unknown = sorted(set(which) - set(makers))
    if unknown:
        msg = f"which: the paper's reproducible figures are 4, 5, 6, 7; got {unknown}"
        raise ParameterError(msg)
    return [makers[i]() for i in which]
