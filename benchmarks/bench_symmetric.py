"""Symmetric (lumped) channels against the explicit-channel path: Bayes capacity and refinement.

Run: ``python -m pytest benchmarks/bench_symmetric.py`` (pytest-benchmark). The ratios of
the medians measured in the same run are printed at the end of the module.

Groups and baselines (each result is checked against the baseline's by an assertion):
- Bayes capacity of OUE at k = 16: ``qifldp.symmetric.oue`` + ``bayes_capacity`` against
  the explicit ``qifldp.oue(16, eps)`` (65,536 outputs) + ``bayes_capacity``;
- Bayes capacity of OUE at k = 10^6 (no explicit channel: 2^(10^6) outputs): against the
  vectorised closed form ``qifldp.formulas.bayes_capacity_oue``;
- refinement SUE ⊑ THE (QIF paper Lemma 11 + Lemma 4) at k = 8 and 10: the orbit LP
  against ``qifldp.refinement.refines`` on the explicit channels (2^k x 2^k witness);
  at k = 12 and 100 only the orbit LP runs (the explicit witness would have 1.7e7 and
  1.6e60 entries).
"""

from __future__ import annotations

import pytest
from _report import write_report

import qifldp as q
import qifldp.symmetric as sym
from qifldp import formulas as F
from qifldp.refinement import refines as explicit_refines

EPS = 1.0
THETA = 0.8
_MEDIANS: dict[str, float] = {}
_PAIRS = [
    ("bayes_capacity oue(16)", "sym_cap_16", "explicit_cap_16"),
    ("bayes_capacity oue(10^6)", "sym_cap_1e6", "formula_cap_1e6"),
    ("refines sue(8) ⊑ the(8)", "sym_ref_8", "explicit_ref_8"),
    ("refines sue(10) ⊑ the(10)", "sym_ref_10", "explicit_ref_10"),
]


def _run(benchmark, name, job, rounds=None):
    out = benchmark(job) if rounds is None else benchmark.pedantic(job, rounds=rounds, iterations=1)
    if benchmark.stats is not None:
        _MEDIANS[name] = benchmark.stats.stats.median
    return out


@pytest.fixture(scope="module", autouse=True)
def _ratio_report(request):
    yield
    lines = ["", "bench_symmetric: median time and speed-up over each baseline (same run)"]
    for what, ours, base in _PAIRS:
        if ours in _MEDIANS and base in _MEDIANS:
            lines.append(
                f"  {what}: symmetric {_MEDIANS[ours] * 1e3:.2f} ms, {base} "
                f"{_MEDIANS[base] * 1e3:.2f} ms -> {_MEDIANS[base] / _MEDIANS[ours]:.3g}x"
            )
    for name in ("sym_ref_12", "sym_ref_100"):
        if name in _MEDIANS:
            lines.append(f"  {name}: {_MEDIANS[name] * 1e3:.1f} ms (no explicit baseline)")
    write_report(request, lines)


# -- Bayes capacity ----------------------------------------------------------------
@pytest.mark.benchmark(group="oue(16, 1.0): build + bayes_capacity")
def test_sym_cap_16(benchmark):
    ml = _run(benchmark, "sym_cap_16", lambda: q.bayes_capacity(sym.oue(16, EPS)))
    assert ml == pytest.approx(q.bayes_capacity(q.oue(16, EPS)), rel=1e-12)


@pytest.mark.benchmark(group="oue(16, 1.0): build + bayes_capacity")
def test_explicit_cap_16(benchmark):
    ml = _run(benchmark, "explicit_cap_16", lambda: q.bayes_capacity(q.oue(16, EPS)))
    assert ml == pytest.approx(F.bayes_capacity_oue(16, EPS), rel=1e-12)


@pytest.mark.benchmark(group="oue(10^6, 1.0): build + bayes_capacity")
def test_sym_cap_1e6(benchmark):
    ml = _run(benchmark, "sym_cap_1e6", lambda: q.bayes_capacity(sym.oue(10**6, EPS)), rounds=5)
    assert ml == pytest.approx(F.bayes_capacity_oue(10**6, EPS), rel=1e-12)


@pytest.mark.benchmark(group="oue(10^6, 1.0): build + bayes_capacity")
def test_formula_cap_1e6(benchmark):
    ml = _run(benchmark, "formula_cap_1e6", lambda: F.bayes_capacity_oue(10**6, EPS))
    assert ml == pytest.approx(q.bayes_capacity(sym.oue(10**6, EPS)), rel=1e-12)


# -- refinement SUE ⊑ THE ----------------------------------------------------------
def _sym_refines(k):
    return sym.refines(sym.sue(k, EPS), sym.the(k, EPS, THETA))


def _explicit(k):
    return explicit_refines(q.sue(k, EPS), q.the(k, EPS, THETA))


@pytest.mark.parametrize("k", [8, 10, 12, 100])
@pytest.mark.benchmark(group="refines sue(k) ⊑ the(k)")
def test_sym_ref(benchmark, k):
    r = _run(benchmark, f"sym_ref_{k}", lambda: _sym_refines(k), rounds=3 if k == 100 else None)
    assert r.holds and r.residual <= 1e-9


@pytest.mark.parametrize("k", [8, 10])
@pytest.mark.benchmark(group="refines sue(k) ⊑ the(k)")
def test_explicit_ref(benchmark, k):
    r = _run(benchmark, f"explicit_ref_{k}", lambda: _explicit(k), rounds=1 if k == 10 else 3)
    assert r.holds == _sym_refines(k).holds
