"""Claims of Arcolezi et al. (PVLDB 2023) in its protocol descriptions and its Fig. 1 (a).

The SS estimator's p and q (Sec. 2.2.3), the unbiasedness of the three RS+FD estimators
(Sec. 2.3.2) and which protocols Fig. 1 (a) shows as 'highest'.
"""

from __future__ import annotations

import math
import random

import numpy as np

from .. import formulas as F
from ..mechanisms import subset_selection
from ..protocols.profiling import profiling_accuracy
from ..protocols.rsfd import rsfd
from ._core import checks
from ._verdicts import CONDITIONAL, CONFIRMED, REFUTED, _cmp, by_failures
from .multidim_risks import FIG1_EPS, FIG1_KS


@checks("risks.ss_q")
def _check_ss_q() -> tuple[str, str]:
    bad = []
    n = 0
    for k in (3, 4, 5, 7):
        for eps in (0.5, 1.0, 2.0):
            for omega in range(1, k):
                C = subset_selection(k, eps, omega)
                M = np.asarray(C.matrix)
                E = math.exp(eps)
                p_pr = omega * E / (omega * E + k - omega)
                q_pr = (omega * E * (omega - 1) + (k - omega) * omega) / (
                    (k - 1) * (omega * E + k - omega)
                )
                has = np.array([[v in y for y in C.outputs] for v in range(k)])
                p = float(M[0, has[0]].sum())  # Pr(the true value 0 is in the subset)
                q = float(M[0, has[1]].sum())  # Pr(another value, 1, is in it)
                n += 1
                if _cmp(p, p_pr, "SS p") != 0 or _cmp(q, q_pr, "SS q") != 0:
                    bad.append(f"k = {k}, eps = {eps}, omega = {omega}: {p:.6f}, {q:.6f}")
    statement = (
        f"omega-SS channels (qifldp.subset_selection), k = 3, 4, 5, 7, eps = 0.5, 1, 2, every "
        f"omega in 1..k-1 ({n} cases): Pr(true value in the subset) = omega e^eps/(omega e^eps + "
        "k - omega) and Pr(another given value in it) = (omega e^eps (omega - 1) + (k - omega) "
        "omega)/((k - 1)(omega e^eps + k - omega)) as printed"
    )
    return by_failures(bad, statement, ", except ", ", at every case")


def _printed_estimate(randomizer: str, count: float, n: int, d: int, k: int, p: float, q: float):
    """The paper's RS+FD estimators, as printed, from the count C(v_i) of reports of v_i."""
    if randomizer == "grr":
        return (count * d * k - n * (d - 1 + q * k)) / (n * k * (p - q))
    if randomizer.endswith("-z"):
        return d * (count - n * q) / (n * (p - q))
    return (count * d * k - n * (q * k + (p - q) * (d - 1) + q * k * (d - 1))) / (n * k * (p - q))


@checks("risks.rsfd_estimators")
def _check_rsfd_estimators() -> tuple[str, str]:
    rng = random.Random(20261203)
    bad = []
    n_cases = 0
    for ks in ((3, 2), (2, 4, 3)):
        for randomizer in ("grr", "sue-z", "oue-z", "sue-r", "oue-r"):
            P = rsfd(list(ks), 1.0, randomizer)
            C = P.channel()
            M = np.asarray(C.matrix)
            w = np.array([rng.random() + 0.1 for _ in C.inputs])
            w /= w.sum()  # a population: any distribution over the tuples
            expected = w @ M  # Pr(output) over the population
            for j, k in enumerate(ks):
                p, q = P._oracles[j].params["p"], P._oracles[j].params["q"]
                for v in range(k):
                    if randomizer == "grr":
                        hit = np.array([y[j] == v for y in C.outputs])
                    else:
                        hit = np.array([y[j][v] == 1 for y in C.outputs])
                    f_true = sum(wi for wi, x in zip(w, C.inputs, strict=True) if x[j] == v)
                    count = float(expected[hit].sum())  # E[C(v)] / n
                    est = _printed_estimate(randomizer, count, 1, len(ks), k, p, q)
                    n_cases += 1
                    if _cmp(est, f_true, f"RS+FD[{randomizer}] estimate") != 0:
                        bad.append(f"{randomizer}, ks = {ks}, attribute {j}, value {v}")
    statement = (
        "The printed estimators of RS+FD[GRR], RS+FD[UE-z] and RS+FD[UE-r] (SUE and OUE), fed "
        "the expected count E[C(v_i)] from qifldp's explicit RS+FD channels (ks = [3, 2] and "
        "[2, 4, 3], eps = 1, p and q at the amplified eps', a random population over the "
        f"tuples), return the true marginal frequency in {n_cases - len(bad)}/{n_cases} cases"
    )
    return by_failures(bad, statement, "; not at ", ": unbiased")


_PROTOCOLS = ("grr", "olh", "ss", "sue", "oue")


@checks("risks.fig1a_highest")
def _check_fig1a_highest() -> tuple[str, str]:
    claimed = {"grr", "ss", "sue"}
    true_ok, printed_ok, rows = [], [], []
    for eps in FIG1_EPS:
        true = {o: profiling_accuracy(FIG1_KS, eps, o, len(FIG1_KS), "uniform") for o in _PROTOCOLS}
        printed = {
            o: math.prod(getattr(F, f"acc_{o}")(k, eps, printed=True) for k in FIG1_KS)
            for o in _PROTOCOLS
        }
        top_true = set(sorted(true, key=true.__getitem__, reverse=True)[:3])
        top_printed = set(sorted(printed, key=printed.__getitem__, reverse=True)[:3])
        if top_true == claimed:
            true_ok.append(eps)
        if top_printed == claimed:
            printed_ok.append(eps)
        if eps in (1.0, 3.0, 6.0, 10.0):
            rows.append(
                f"eps = {eps:g}: " + ", ".join(f"{o.upper()} {true[o]:.4g}" for o in _PROTOCOLS)
            )
    details = (
        f"Condition: eps >= {min(true_ok) if true_ok else float('nan'):g} (of the figure's "
        "eps = 1..10). ACC^U (Eq. 4 as reconstructed: the product over the "
        "attributes) at k = [74, 7, 16], d = 3 surveys, with the Bayes attackers' true "
        f"accuracies (qifldp.profiling_accuracy): {'; '.join(rows)}. The three highest are GRR, "
        f"SS and SUE at eps = {', '.join(f'{e:g}' for e in true_ok) or 'none'} of 1..10; below, "
        "SUE is among the lowest (OLH and OUE are above it). With the paper's printed per-"
        "attribute formulas (ACC_SS above 1, risks.fig1_acc_ss) the top three are GRR, SS, "
        f"SUE at eps = {', '.join(f'{e:g}' for e in printed_ok) or 'none'}."
    )
    if not true_ok:
        return REFUTED, details
    return (CONFIRMED if len(true_ok) == len(FIG1_EPS) else CONDITIONAL), details
