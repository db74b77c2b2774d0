"""Issue 8: every public callable answers bad input with a valid result or a clear error.

For every public callable (the ``__all__`` of ``qifldp`` and of its public
modules; ``qifldp.symbolic`` has its own sweep), start from a known valid call
(:data:`VALID`) and replace one argument at a time by each value of
:data:`BAD_VALUES` (NaN, ±inf, negative, zero, one, 2.5, 10^9, 1e308, complex,
a string, None, empty, a wrong shape, a bool). Each call must either

- return a value with no NaN in it, or
- raise an error of the package (:class:`qifldp.errors.QifldpError`) that is a
  ``ValueError`` or ``TypeError``,

within :data:`CALL_TIMEOUT_S` seconds and within the address-space limit
:data:`MEMORY_LIMIT_BYTES` above the worker's start. Anything else —
AttributeError, IndexError, ZeroDivisionError, OverflowError, an error raised
inside numpy/scipy/sympy, a MemoryError, a timeout, a NaN — is a failure.

The sweep runs in a subprocess (this file run as a script), so that the memory
limit (``RLIMIT_AS``) and the per-call alarm do not touch the test runner.
"""

from __future__ import annotations

import concurrent.futures
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

#: CPU seconds a single call may use before it counts as a hang (CPU time of this
#: process, so a machine loaded by other jobs does not trip it).
CALL_TIMEOUT_S: float = 3.0
#: Wall-clock backstop for a call that waits rather than computes (a pool, a lock).
CALL_WALL_TIMEOUT_S: float = 60.0

#: Address space the worker may add to what it uses after importing the package.
MEMORY_LIMIT_BYTES: int = 3 * 2**30

#: The public modules whose ``__all__`` is swept (qifldp.symbolic: its own sweep, helper H4).
MODULES = (
    "qifldp",
    "qifldp.simulation",
    "qifldp.formulas",
    "qifldp.symmetric",
    "qifldp.mechanisms",
    "qifldp.protocols",
    "qifldp.protocols.params",
    "qifldp.protocols.tight_ratio",
    "qifldp.refinement",
    "qifldp.tradeoff.curves",
    "qifldp.tradeoff.criterion",
    "qifldp.gains",
    "qifldp.priors",
    "qifldp.tradeoff.lattice",
    "qifldp.tradeoff.lifting",
    "qifldp.refinement.families",
    "qifldp.channel",
    "qifldp.measures",
    "qifldp.operators",
    "qifldp.protocols.keyvalue",
    "qifldp.protocols.multidim",
    "qifldp.protocols.rsfd",
    "qifldp.protocols.splsmp",
    "qifldp.protocols.rsfd_attack",
    "qifldp.refinement.graph",
    "qifldp.audit",
    "qifldp.reproduce",
    "qifldp.cli",
)

NAN = float("nan")
INF = float("inf")

#: The bad-value classes, each with a readable key (the key is what
#: :data:`KNOWN_OTHER_OWNER` names).
BAD_VALUES: dict[str, object] = {
    "nan": NAN,
    "inf": INF,
    "-inf": -INF,
    "-1": -1,
    "-0.5": -0.5,
    "0": 0,
    "1": 1,
    "2.5": 2.5,
    "1e9": 10**9,
    "1e308": 1e308,
    "10**400": 10**400,  # an exact integer beyond the float range
    "complex": 1 + 1j,
    "str": "abc",
    "None": None,
    "empty": [],
    "shape3d": np.ones((2, 2, 2)),
    "bool": True,
    # array-valued bad values (for matrices, priors, gains, reports, frequency vectors)
    "nan_matrix": np.array([[NAN, 0.5], [0.5, 0.5]]),
    "neg_matrix": np.array([[1.5, -0.5], [0.5, 0.5]]),
    "neg_vector": np.array([-0.5, 1.5]),
    "complex_vector": np.array([0.5 + 1j, 0.5]),
    "str_vector": ["a", "b"],
    "ragged": [[1, 2], [3]],
}

#: Arguments naming a file to read: a missing file may raise FileNotFoundError
#: (the standard, clear error for it) instead of a ValueError.
PATH_ARGUMENTS = frozenset({"path"})

#: Callables not swept, with the reason (result records built by the library, not
#: by users; commands with their own tests).
NOT_SWEPT: dict[str, str] = {
    "qifldp.RefinementResult": "result record returned by refines",
    "qifldp.Counterexample": "result record inside RefinementResult",
    "qifldp.LiftedRefinement": "result record of refines_one_hot_bitwise",
    "qifldp.FamilyResult": "result record of check_refinement_family",
    "qifldp.refinement.families.FamilyStep": "result record of check_refinement_family",
    "qifldp.Hyper": "result record of hyper()",
    "qifldp.symmetric.OrbitWitness": "result record of the symmetric refinement",
    "qifldp.audit.Claim": "registry record of the audit",
    "qifldp.audit.AuditResult": "result record of audit()",
    "qifldp.audit.audit": "runs the whole paper audit (minutes); its keys are swept via get_claim",
    "qifldp.reproduce.Figure": "result record of the figure functions",
    "qifldp.reproduce.figure_4": "a simulation per valid call (~1 s); same argument checks "
    "(_check_args) as figure_6 and reproduce, which are swept",
    "qifldp.reproduce.figure_5": "a simulation per valid call (~1 s); see figure_4",
    "qifldp.reproduce.figure_1": "draws a figure per valid call; same argument checks as figure_6",
    "qifldp.reproduce.figure_2": "draws a figure per valid call; same argument checks as figure_6",
    "qifldp.reproduce.figure_3": "draws a figure per valid call; same argument checks as figure_6",
    "qifldp.IBUInfo": "result record of ibu(info=True)",
    "qifldp.reproduce.figure_7": "a simulation per valid call (~1 s); see figure_4",
    "qifldp.cli.main": "command line (argparse exits with status 2); tested in tests/cli/",
    "qifldp.CompositionEpsilon": "result record of composition_epsilon",
    "qifldp.RR3Design": "result record of rr3_design",
    "qifldp.audit.Reference": "bibliography record",
    "qifldp.audit.claim": "registration decorator of the audit (module import time)",
    "qifldp.audit.registered": "no arguments: the registry of audit claims",
    "qifldp.RefinementBoundary": "result record of refinement_boundary",
    "qifldp.SimulatedCounts": "result record of simulate_counts",
    "qifldp.simulate_counts": "n = 10^9 (a bad value of the sweep) is a legitimate 10^9-user "
    "simulation (minutes); its argument checks (allocate_users' f and n, which are swept, "
    "and protocol, block, seed, chunksize, options) are tested in tests/sweeps/test_scale.py",
    "qifldp.Protocol": "abstract base class of the protocol objects; its families are swept",
    "qifldp.protocols.ClosedForm": "abstract base class of the closed forms (families swept)",
    "qifldp.Reidentification": "result record of reidentification_accuracy",
    "qifldp.protocols.splsmp.SMPReports": "result record of SMP.sample",
    "qifldp.protocols.splsmp.MultidimEpsilon": "result record of multidim_epsilon",
    "qifldp.protocols.Entry": "catalogue record (built at import; its parse is swept via protocol)",
    "qifldp.protocols.Parameter": "catalogue record (parameter schema)",
    "qifldp.protocols.ProtocolName": "a typing.Literal of the catalogue's names, not a function",
}


def _cases(name: str, arg: str, keys: str) -> list[tuple[str, str, str]]:
    """(name, arg, key) for each space-separated bad-value key."""
    return [(name, arg, key) for key in keys.split()]


#: Cases excluded from the sweep because the failure is in a file owned by another
#: helper of issue 8 (refinement/, channel.py: H1; symmetric/: H2; cli.py, graph.py,
#: __init__.py: H3; operators.py, measures.py, symbolic/: H4). Each entry is
#: (callable, argument, bad-value key). To be emptied once their fixes are merged.
KNOWN_OTHER_OWNER: set[tuple[str, str, str]] = {
    # H1 (channel.py)
    *_cases(
        "qifldp.Channel", "inputs", "nan inf -inf -1 -0.5 0 1 2.5 1e9 1e308 10**400 complex bool"
    ),
    *_cases(
        "qifldp.Channel", "outputs", "nan inf -inf -1 -0.5 0 1 2.5 1e9 1e308 10**400 complex bool"
    ),
    *_cases(
        "qifldp.channel.guard_size",
        "exact_cols",
        "nan inf -inf -1 -0.5 0 1 2.5 1e9 1e308 10**400 complex str None empty "
        "shape3d bool nan_matrix neg_matrix neg_vector complex_vector "
        "str_vector ragged",
    ),
    *_cases(
        "qifldp.channel.guard_size",
        "log10_cols",
        "10**400 complex str None empty shape3d nan_matrix neg_matrix "
        "neg_vector complex_vector str_vector ragged",
    ),
    *_cases(
        "qifldp.channel.guard_size",
        "n_rows",
        "-inf -1 -0.5 0 complex str None empty shape3d nan_matrix neg_matrix "
        "neg_vector complex_vector str_vector ragged",
    ),
    # H1 (refinement/core.py)
    *_cases("qifldp.refines", "time_limit", "10**400"),
    *_cases("qifldp.max_case_refines", "time_limit", "10**400"),
    # H2 (symmetric/)
    *_cases("qifldp.symmetric.SymmetricChannel", "log_in", "10**400"),
    *_cases("qifldp.symmetric.SymmetricChannel", "log_out", "10**400"),
    *_cases("qifldp.symmetric.SymmetricGain", "g_in", "10**400 complex str str_vector ragged"),
    *_cases("qifldp.symmetric.SymmetricGain", "g_out", "10**400 complex str str_vector ragged"),
    *_cases(
        "qifldp.symmetric.pair_atoms",
        "same",
        "shape3d nan_matrix neg_matrix neg_vector complex_vector",
    ),
    # H3 (cli.py)
    *_cases("qifldp.cli.build", "kind", "shape3d nan_matrix neg_matrix neg_vector complex_vector"),
    # H3 (graph.py)
    *_cases(
        "qifldp.plot_refinement_graph",
        "ax",
        "nan inf -inf -1 -0.5 0 1 2.5 1e9 1e308 10**400 complex str empty "
        "shape3d bool nan_matrix neg_matrix neg_vector complex_vector "
        "str_vector ragged",
    ),
    *_cases(
        "qifldp.plot_refinement_graph",
        "font_size",
        "10**400 complex str empty shape3d nan_matrix neg_matrix neg_vector "
        "complex_vector str_vector ragged",
    ),
    *_cases(
        "qifldp.plot_refinement_graph",
        "node_color",
        "nan inf -inf -1 -0.5 0 1 2.5 1e9 1e308 10**400 complex str empty "
        "shape3d bool nan_matrix neg_matrix neg_vector complex_vector "
        "str_vector ragged",
    ),
    *_cases(
        "qifldp.plot_refinement_graph",
        "show_members",
        "shape3d nan_matrix neg_matrix neg_vector complex_vector",
    ),
    # H4 (operators.py, measures.py)
    *_cases("qifldp.hidden_choice", "probs", "10**400 complex str str_vector ragged"),
    *_cases("qifldp.visible_choice", "probs", "10**400 complex str str_vector ragged"),
}


def _valid_calls() -> dict[str, tuple[tuple, dict]]:
    """One known valid call per public callable: name -> (args, kwargs)."""
    import qifldp as q
    from qifldp import symmetric as s

    C = q.grr(3, 1.0)
    C2 = q.Channel([[0.75, 0.25], [0.25, 0.75]])
    S = s.grr(3, 1.0)
    ys = np.array([0, 1, 2, 1])
    xs = np.array([0, 1, 2, 0])
    bits = np.array([[True, False, False], [False, True, True]])
    subsets = np.array([[0, 1], [1, 2]])
    lh = q.sample_lh([0, 1, 2], 3, 1.0, 2, rng=0)
    T = q.Transactions(np.array([0, 1, 1]), np.array([0, 2, 3]))
    G = q.refinement_graph({"a": [[1.0, 0.0], [0.0, 1.0]], "b": [[0.5, 0.5], [0.5, 0.5]]})
    fimi = Path(tempfile.mkdtemp(prefix="qifldp-bad-input-")) / "transactions.dat"
    figures = Path(tempfile.mkdtemp(prefix="qifldp-bad-input-figures-"))
    channel_file = figures / "channel.json"
    pool = concurrent.futures.ThreadPoolExecutor(2)
    q.write_channel(C, channel_file)
    census_file = figures / "census.csv"
    census_file.write_text("age,sex,race\n39, Male, White\n50, Female, ?\n28, Female, Black\n")
    kv_csv = figures / "keyvalue.csv"
    kv_csv.write_text("user,key,value\nu,1,0.5\nv,2,-1\n", encoding="utf-8")
    v = {
        # core
        "qifldp.Channel": (([[0.5, 0.5], [0.25, 0.75]],), {}),
        "qifldp.as_channel": ((C,), {}),
        "qifldp.cascade": ((C, q.grr(3, 2.0)), {}),
        "qifldp.hidden_choice": (([C, C],), {"probs": [0.5, 0.5]}),
        "qifldp.visible_choice": (([C, C],), {"probs": [0.5, 0.5]}),
        "qifldp.parallel": ((C2, C2), {}),
        "qifldp.one_hot": ((q.oue_bit(1.0), 3), {}),
        "qifldp.point_prior": ((3, 1), {}),
        "qifldp.uniform_prior": ((3,), {}),
        "qifldp.identity_gain": ((3,), {}),
        "qifldp.k_tries_gain": ((3, 2), {}),
        "qifldp.metric_gain": (([[0, 1], [1, 0]],), {}),
        "qifldp.additive_leakage": ((C,), {"gain": np.eye(3), "prior": [0.2, 0.3, 0.5]}),
        "qifldp.asr": ((C,), {}),
        "qifldp.bayes_capacity": ((C,), {}),
        "qifldp.bayes_vulnerability": ((C,), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.g_vulnerability": ((C, np.eye(3)), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.hyper": ((C,), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.ldp_epsilon": ((C,), {}),
        "qifldp.max_case_capacity": ((C,), {}),
        "qifldp.max_case_g_vulnerability": ((C,), {"gain": np.eye(3), "prior": [0.2, 0.3, 0.5]}),
        "qifldp.max_case_leakage": ((C,), {"gain": np.eye(3), "prior": [0.2, 0.3, 0.5]}),
        "qifldp.ibu": (([5, 3, 2], C), {}),
        "qifldp.channel.checked_matrix": ((np.asarray(C.matrix),), {}),
        "qifldp.channel.checked_column_max": ((np.asarray(C.matrix),), {}),
        "qifldp.min_entropy_leakage": ((C,), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.multiplicative_leakage": ((C,), {"gain": np.eye(3), "prior": [0.2, 0.3, 0.5]}),
        "qifldp.prior_bayes_vulnerability": (([0.2, 0.3, 0.5],), {}),
        "qifldp.prior_g_vulnerability": ((np.eye(3), [0.2, 0.3, 0.5]), {}),
        # mechanisms
        "qifldp.blh": ((3, 1.0), {}),
        "qifldp.grr": ((3, 1.0), {}),
        "qifldp.local_hashing": ((3, 1.0, 2), {}),
        "qifldp.olh": ((3, 1.0), {}),
        "qifldp.oue": ((3, 1.0), {}),
        "qifldp.oue_bit": ((1.0,), {}),
        "qifldp.subset_selection": ((4, 1.0), {"omega": 2}),
        "qifldp.sue": ((3, 1.0), {}),
        "qifldp.sue_bit": ((1.0,), {}),
        "qifldp.the": ((3, 1.0, 0.75), {}),
        "qifldp.the_bit": ((1.0, 0.75), {}),
        "qifldp.unary_encoding": ((3, 0.75, 0.25), {}),
        "qifldp.ss": ((4, 1.0), {"omega": 2}),
        "qifldp.lh": ((3, 1.0, 2), {}),
        "qifldp.ue": ((3, 0.75, 0.25), {}),
        "qifldp.symmetric.ss": ((4, 1.0), {"omega": 2}),
        "qifldp.symmetric.lh": ((3, 1.0, 2), {}),
        "qifldp.symmetric.ue": ((3, 0.75, 0.25), {}),
        "qifldp.symmetric.sue_oue_boundary": ((5,), {}),
        "qifldp.symmetric.tight_ratio_refines": (
            (q.protocol("sue", 3, 10.0), q.protocol("oue", 3, 10.0)),
            {},
        ),
        "qifldp.protocols.lookup": (("pckv",), {}),
        "qifldp.protocols.oracle": (("oue", 3, 1.0), {}),
        "qifldp.protocols.rsfd.rsfd_epsilon": ((q.rsfd([2, 3], 1.0),), {}),
        "qifldp.simulation.n_reports": ((np.array([0, 1, 2, 1]),), {}),
        "qifldp.mechanisms.lh_encoding": ((3, 2), {}),
        "qifldp.mechanisms.lh_perturbation": ((3, 1.0, 2), {}),
        # protocol objects
        "qifldp.protocol": (("the", 3, 1.0), {"theta": 0.75}),
        "qifldp.GRR": ((3, 1.0), {}),
        "qifldp.SS": ((4, 1.0), {"omega": 2}),
        "qifldp.LH": ((3, 1.0, 2), {}),
        "qifldp.UE": ((3,), {"p": 0.75, "q": 0.25}),
        "qifldp.THE": ((3, 1.0, 0.75), {}),
        "qifldp.protocols.GRRClosedForm": ((q.protocol("grr", 3, 1.0),), {}),
        "qifldp.protocols.SSClosedForm": ((q.protocol("ss", 4, 1.0),), {}),
        "qifldp.protocols.LHClosedForm": ((q.protocol("olh", 3, 1.0),), {}),
        "qifldp.protocols.UEClosedForm": ((q.protocol("oue", 3, 1.0),), {}),
        "qifldp.protocols.THEClosedForm": ((q.protocol("the", 3, 1.0, theta=0.75),), {}),
        "qifldp.protocols.params.check_k": ((3,), {}),
        "qifldp.protocols.params.check_omega": ((2, 4), {}),
        "qifldp.protocols.params.check_ss": ((4, 1.0, 2), {}),
        "qifldp.protocols.params.check_g": ((2,), {}),
        "qifldp.protocols.params.sue_bit_log_ratio": ((1.0,), {}),
        "qifldp.protocols.params.check_theta": ((0.75,), {}),
        "qifldp.protocols.params.check_pq": ((0.75, 0.25), {}),
        "qifldp.protocols.params.grr_probabilities": ((3, 1.0), {}),
        "qifldp.protocols.params.ss_default_omega": ((10, 1.0), {}),
        "qifldp.protocols.params.ss_probabilities": ((4, 1.0, 2), {}),
        "qifldp.protocols.params.olh_g": ((1.0,), {}),
        "qifldp.protocols.params.lh_probabilities": ((2, 1.0), {}),
        "qifldp.protocols.params.sue_bits": ((1.0,), {}),
        "qifldp.protocols.params.the_small_bits": ((1.0, 0.75), {}),
        "qifldp.protocols.params.sue_probabilities": ((1.0,), {}),
        "qifldp.protocols.params.oue_probabilities": ((1.0,), {}),
        "qifldp.protocols.params.the_probabilities": ((1.0, 0.75), {}),
        "qifldp.protocols.params.the_bit_matrix": ((1.0, 0.75), {}),
        "qifldp.protocols.params.ss_inclusion_probabilities": ((4, 1.0, 2), {}),
        "qifldp.protocols.params.sue_bit_matrix": ((1.0,), {}),
        "qifldp.protocols.params.oue_bit_matrix": ((1.0,), {}),
        "qifldp.protocols.params.log1pexp_neg": ((1.0,), {}),
        "qifldp.protocols.params.log_grr": ((3, 1.0), {}),
        "qifldp.protocols.params.log_ss": ((4, 1.0, 2), {}),
        "qifldp.protocols.params.log_sue": ((1.0,), {}),
        "qifldp.protocols.params.log_oue": ((1.0,), {}),
        "qifldp.protocols.params.log_the": ((1.0, 0.75), {}),
        "qifldp.protocols.params.log_pq": ((0.75, 0.25), {}),
        "qifldp.protocols.params.grr_expressions": ((3, 1.0), {}),
        "qifldp.protocols.params.ss_expressions": ((4, 1.0, 2), {}),
        "qifldp.protocols.params.sue_expressions": ((1.0,), {}),
        "qifldp.protocols.params.oue_expressions": ((1.0,), {}),
        "qifldp.protocols.params.the_expressions": ((1.0, 0.75), {}),
        # simulation
        "qifldp.EmpiricalRate": ((3, 10), {}),
        "qifldp.LHReports": (
            (np.array([0, 1]), 3, 2),
            {"a": np.array([1, 2]), "b": np.array([0, 1]), "prime": 5},
        ),
        "qifldp.Transactions": ((np.array([0, 1, 1]), np.array([0, 2, 3])), {}),
        "qifldp.attack_grr": ((ys,), {}),
        "qifldp.attack_lh": ((lh,), {"rng": 0}),
        "qifldp.attack_ss": ((subsets,), {"rng": 0}),
        "qifldp.attack_the": ((bits,), {"rng": 0}),
        "qifldp.attack_ue": ((bits,), {"rng": 0}),
        "qifldp.bayes_attack": ((C, ys), {"prior": [0.2, 0.3, 0.5], "rng": 0, "tie_rtol": 1e-9}),
        "qifldp.empirical_asr": ((xs, ys), {}),
        "qifldp.estimate_grr": ((ys, 3, 1.0), {"project": False}),
        "qifldp.estimate_inversion": ((C, ys), {"project": False, "rank_rtol": 1e-10}),
        "qifldp.estimate_lh": ((lh, 1.0), {"project": False}),
        "qifldp.estimate_oue": ((bits, 1.0), {"project": False}),
        "qifldp.estimate_ss": ((subsets, 3, 1.0), {"omega": 2, "project": False}),
        "qifldp.estimate_sue": ((bits, 1.0), {"project": False}),
        "qifldp.estimate_the": ((bits, 1.0, 0.75), {"project": False}),
        "qifldp.estimate_ue": ((bits, 0.75, 0.25), {"project": False}),
        "qifldp.load_fimi": ((fimi,), {"max_transactions": 2}),
        "qifldp.project_simplex": (([0.5, 0.8, -0.1],), {}),
        "qifldp.sample": ((C, xs), {"rng": 0}),
        "qifldp.sample_blh": ((xs, 3, 1.0), {"rng": 0}),
        "qifldp.sample_grr": ((xs, 3, 1.0), {"rng": 0}),
        "qifldp.sample_lh": ((xs, 3, 1.0, 2), {"rng": 0, "hash": "universal", "prime": 5}),
        "qifldp.sample_olh": ((xs, 3, 1.0), {"rng": 0}),
        "qifldp.sample_oue": ((xs, 3, 1.0), {"rng": 0}),
        "qifldp.sample_ss": ((xs, 3, 1.0), {"omega": 2, "rng": 0, "output": "subsets"}),
        "qifldp.sample_sue": ((xs, 3, 1.0), {"rng": 0}),
        "qifldp.sample_the": ((xs, 3, 1.0, 0.75), {"rng": 0, "method": "laplace"}),
        "qifldp.sample_ue": ((xs, 3, 0.75, 0.25), {"rng": 0}),
        "qifldp.simulate_attack": ((C, 100), {"prior": [0.2, 0.3, 0.5], "rng": 0}),
        "qifldp.variance_grr": ((3, 1.0, 100), {"f": [0.2, 0.3, 0.5]}),
        "qifldp.variance_inversion": ((C, [0.2, 0.3, 0.5], 100), {"full": False}),
        "qifldp.variance_lh": ((1.0, 2, 100), {"f": [0.5, 0.5], "prime": 5}),
        "qifldp.variance_oue": ((1.0, 100), {"f": [0.5, 0.5]}),
        "qifldp.variance_ss": ((4, 1.0, 100), {"f": [0.5, 0.5], "omega": 2}),
        "qifldp.variance_sue": ((1.0, 100), {"f": [0.5, 0.5]}),
        "qifldp.variance_the": ((1.0, 0.75, 100), {"f": [0.5, 0.5]}),
        "qifldp.variance_ue": ((0.75, 0.25, 100), {"f": [0.5, 0.5]}),
        "qifldp.zipf_data": ((10, 3), {"s": 1.0, "rng": 0}),
        "qifldp.simulation.universal_hash": ((3, 5, [0, 1, 2], 4), {"prime": 7}),
        "qifldp.simulation.universal_lh_channel": ((2, 1.0, 2, 3), {}),
        "qifldp.simulation.lh_collision_probability": ((2,), {"prime": 5}),
        "qifldp.simulation.support_counts": ((ys, 3), {"sparse": False}),
        "qifldp.simulation.calibrate": (([30, 70], 100, 0.75, 0.25), {"project": False}),
        "qifldp.simulation.frequency_variance": ((0.75, 0.25, 100), {"f": [0.5, 0.5]}),
        "qifldp.simulation.grr_pq_star": ((3, 1.0), {}),
        "qifldp.simulation.ss_pq_star": ((4, 1.0), {"omega": 2}),
        "qifldp.simulation.lh_pq_star": ((1.0, 2), {"prime": 5}),
        "qifldp.simulation.inversion_matrix": ((C,), {"rank_rtol": 1e-10}),
        "qifldp.simulation.write_fimi": ((fimi, T), {}),
        "qifldp.simulation.single_items": ((T,), {"how": "first", "rng": 0}),
        "qifldp.simulation.top_k_items": (([5, 5, 7, 9],), {"k": 2}),
        "qifldp.simulation.zipf_probabilities": ((3,), {"s": 1.0}),
        "qifldp.simulation.zipf_transactions": ((5, 10), {"s": 1.0, "mean_length": 3.0, "rng": 0}),
        # refinement and f-DP
        "qifldp.max_case_refines": ((C, q.grr(3, 0.5)), {}),
        "qifldp.refines": ((C, q.grr(3, 0.5)), {"time_limit": 10.0}),
        "qifldp.TradeoffCurve": (([0.0, 0.5, 1.0], [1.0, 0.25, 0.0]), {}),
        "qifldp.refines_2x2": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.refines_binary": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.tradeoff_channel": (([[0.0, 1.0], [0.25, 0.25], [1.0, 0.0]],), {}),
        "qifldp.tradeoff_curve": ((C,), {"x0": 0, "x1": 1}),
        "qifldp.tradeoff_point": ((C2,), {}),
        "qifldp.tradeoff_value": ((C, 0.3), {"x0": 0, "x1": 1}),
        "qifldp.witness_2x2": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.join": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.meet": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.tradeoff.lattice.meet_curve": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.tradeoff.lattice.join_curve": ((C2, [[0.6, 0.4], [0.4, 0.6]]), {}),
        "qifldp.refines_one_hot_bitwise": ((q.sue_bit(2.0), q.sue_bit(1.0)), {"k": 3}),
        "qifldp.tradeoff.lifting.kron_power": (([[0.5, 0.5], [0.25, 0.75]], 2), {}),
        "qifldp.check_refinement_family": ((lambda e: q.grr(3, e), [1.0, 2.0]), {}),
        "qifldp.refinement_graph": (({"a": C2, "b": [[0.5, 0.5], [0.5, 0.5]]},), {}),
        "qifldp.plot_refinement_graph": ((G,), {}),
        # composite protocols
        "qifldp.pckv_epsilon": ((1.0, 0.5), {"ell": 1, "mechanism": "ue"}),
        "qifldp.pckv_grr": ((2, 1.0, 0.5), {"ell": 1}),
        "qifldp.pckv_ue": ((2, 1.0, 0.5), {"ell": 1}),
        "qifldp.pckv_allocation": ((1.0,), {"ell": 2, "mechanism": "grr"}),
        "qifldp.PCKV": ((3, 1.0), {"ell": 2, "mechanism": "ue", "eps1": 0.5, "eps2": 0.4}),
        "qifldp.PrivKVM": ((3, 1.0), {"rounds": 2}),
        "qifldp.keyvalue_mse": (
            ([{1: 0.5, 2: -0.5}, {3: 0.0}, {}], 3, 1.0),
            {"ell": 2, "rounds": 2, "trials": 2, "rng": 0},
        ),
        "qifldp.pckv_mse_coefficients": ((1.0, 0.5), {"ell": 2, "mechanism": "grr", "d": 3}),
        "qifldp.pckv_numeric_allocation": ((1.0,), {"ell": 2, "mechanism": "ue", "m": 0.5}),
        "qifldp.pckv_allocation_curves": (([0.5, 1.0],), {}),
        "qifldp.plot_pckv_allocation_curves": (([0.5, 1.0],), {}),
        "qifldp.RR": (([[0.6, 0.4], [0.3, 0.7]],), {"eps": 2.0}),
        "qifldp.RR3": (([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]],), {"eps": 2.0}),
        "qifldp.rr3_design": (([0.5, 0.3, 0.2], 1.0), {"starts": 1, "rng": 0}),
        "qifldp.keyvalue_data": ((20, 5), {"s": 1.0, "mean_length": 2.0, "rng": 0}),
        "qifldp.BipartiteRR3": ((4,), {"rr": [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.2, 0.2, 0.6]]}),
        "qifldp.load_keyvalue_csv": ((str(kv_csv),), {"d": 4}),
        "qifldp.simulation.keyvalue_arrays": (([{1: 0.5}, {}, {2: -1.0}],), {"d": 3}),
        "qifldp.rr_estimator_mse": (
            (q.RR3.grr(1.0), [0.5, 0.3, 0.2], [20]),
            {"trials": 3, "rng": 0},
        ),
        "qifldp.rsfd_grr": (([2, 3], 1.0), {}),
        "qifldp.smp": (([2, 3], 1.0), {}),
        "qifldp.spl": (([2, 3], 1.0), {}),
        "qifldp.rsfd": (([2, 3], 1.0), {"randomizer": "oue-r"}),
        "qifldp.rsrfd": (([2, 3], 1.0, [[0.5, 0.5], [0.2, 0.3, 0.5]]), {"randomizer": "grr"}),
        "qifldp.protocols.rsfd.RSFD": (([2, 3], 1.0), {"randomizer": "sue-z", "priors": None}),
        "qifldp.spl_protocol": (([2, 3], 1.0), {"oracle": ["grr", "oue"]}),
        "qifldp.smp_protocol": (([2, 3], 1.0), {"oracle": "olh"}),
        "qifldp.protocols.splsmp.multidim_epsilon": ((q.spl([2, 2], 1.0),), {}),
        "qifldp.protocols.splsmp.SPL": (([2, 3], 1.0), {"oracle": "sue"}),
        "qifldp.protocols.splsmp.SMP": (([2, 3], 1.0), {"oracle": "ss"}),
        "qifldp.attribute_inference_comparison": (
            (q.rsfd([2, 3], 1.0, "oue-z"),),
            {"marginals": [[0.5, 0.5], [0.2, 0.3, 0.5]], "n": 200, "known": 0.3, "rng": 0},
        ),
        "qifldp.attribute_inference_table": (
            ([2, 3], [1.0]),
            {"randomizers": ["grr"], "marginals": None, "n": 100, "known": 0.3, "rng": 0},
        ),
        "qifldp.attribute_inference_accuracy": (
            (q.rsfd([2, 3], 1.0),),
            {"prior": [0.5, 0.1, 0.1, 0.1, 0.1, 0.1]},
        ),
        "qifldp.attribute_inference_bounds": (
            (q.rsfd([2, 3], 1.0, "oue-z"), [[0.5, 0.5], [0.2, 0.3, 0.5]]),
            {"resolution": 1e-3},
        ),
        "qifldp.AccuracyBounds": ((0.4, 0.5, "interval"), {"resolution": 1e-3}),
        # symmetric
        "qifldp.symmetric.SymmetricChannel": (
            (3, [1, 2], [math.log(0.5), math.log(0.25)], [math.log(0.25), math.log(0.375)]),
            {},
        ),
        "qifldp.symmetric.SymmetricGain": ((3, [1, 2], [1.0, 0.0], [0.0, 0.0]), {}),
        "qifldp.symmetric.grr": ((3, 1.0), {}),
        "qifldp.symmetric.subset_selection": ((4, 1.0), {"omega": 2}),
        "qifldp.symmetric.local_hashing": ((3, 1.0, 2), {}),
        "qifldp.symmetric.blh": ((3, 1.0), {}),
        "qifldp.symmetric.olh": ((3, 1.0), {}),
        "qifldp.symmetric.unary_encoding": ((3, 0.75, 0.25), {}),
        "qifldp.symmetric.sue": ((3, 1.0), {}),
        "qifldp.symmetric.oue": ((3, 1.0), {}),
        "qifldp.symmetric.the": ((3, 1.0, 0.75), {}),
        "qifldp.symmetric.bayes_capacity": ((S,), {}),
        "qifldp.symmetric.log_bayes_capacity": ((S,), {}),
        "qifldp.symmetric.asr": ((S,), {}),
        "qifldp.symmetric.ldp_epsilon": ((S,), {}),
        "qifldp.symmetric.max_case_capacity": ((S,), {}),
        "qifldp.symmetric.bayes_vulnerability": ((S,), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.symmetric.g_vulnerability": ((S, np.eye(3)), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.symmetric.min_entropy_leakage": ((S,), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.symmetric.channel_prior_vulnerability": ((S,), {"prior": [0.2, 0.3, 0.5]}),
        "qifldp.symmetric.tradeoff_curve": ((S,), {"x0": 0, "x1": 1}),
        "qifldp.symmetric.pair_atoms": ((S,), {"same": False}),
        "qifldp.symmetric.refines": ((S, s.grr(3, 0.5)), {}),
        "qifldp.protocols.tight_ratio.tight_ratio_refines": (
            (q.protocol("sue", 3, 9.0), q.protocol("oue", 3, 9.0)),
            {"time_limit": 10.0},
        ),
        "qifldp.protocols.tight_ratio.sue_oue_boundary": ((3,), {"width": 1e-6}),
        # formulas
        **{
            f"qifldp.formulas.{name}": ((4, 1.0), {})
            for name in (
                "bayes_capacity_grr",
                "bayes_capacity_blh",
                "bayes_capacity_olh",
                "bayes_capacity_sue",
                "bayes_capacity_oue",
                "asr_grr",
                "asr_blh",
                "asr_olh",
                "asr_sue",
                "asr_oue",
            )
        },
        "qifldp.formulas.bayes_capacity_ss": ((4, 1.0), {"omega": 2}),
        "qifldp.formulas.asr_ss": ((4, 1.0), {"omega": 2}),
        "qifldp.formulas.bayes_capacity_lh": ((4, 1.0, 2), {}),
        "qifldp.formulas.asr_lh": ((4, 1.0, 2), {}),
        "qifldp.formulas.asr_lh_gursoy": ((4, 1.0, 2), {}),
        "qifldp.formulas.bayes_capacity_ue": ((4, 0.75, 0.25), {}),
        "qifldp.formulas.asr_ue": ((4, 0.75, 0.25), {}),
        "qifldp.formulas.bayes_capacity_the": ((4, 1.0, 0.75), {}),
        "qifldp.formulas.asr_the": ((4, 1.0, 0.75), {}),
        "qifldp.formulas.the_oue_threshold": ((1.0,), {}),
        "qifldp.formulas.ldp_epsilon_the": ((1.0, 0.75), {}),
        "qifldp.formulas.acc_grr": ((4, 1.0), {"printed": False}),
        "qifldp.formulas.acc_olh": ((4, 1.0), {"printed": False}),
        "qifldp.formulas.acc_ss": ((4, 1.0), {"omega": 2, "printed": False}),
        "qifldp.formulas.acc_sue": ((4, 1.0), {"printed": False}),
        "qifldp.formulas.acc_oue": ((4, 1.0), {"printed": False}),
        # helpers of the public modules
        "qifldp.gains.as_gain": ((np.eye(3), 3), {}),
        "qifldp.priors.as_prior": (([0.2, 0.3, 0.5], 3), {}),
        "qifldp.channel.check_size": ((10, 10), {"what": "x", "alternative": "y"}),
        "qifldp.channel.guard_size": (("x", 10, 1.0, lambda: 10, "y"), {}),
        "qifldp.channel.guard_work": (("x", "add 10 terms", 1.0, lambda: 10, "y"), {}),
        "qifldp.audit.get_claim": (("qif.eq25",), {}),
        # one format: a valid call draws the figure (in three formats by default)
        "qifldp.reproduce.figure_6": ((figures,), {"quick": True, "k": 5, "formats": ["png"]}),
        "qifldp.reproduce.reproduce": (
            (figures,),
            {"quick": True, "data": None, "which": [6], "formats": ["png"]},
        ),
        "qifldp.audit.format_audit": (([],), {"details": True, "width": 100}),
        "qifldp.audit.format_markdown": (([],), {"details": True}),
        "qifldp.audit.reference": (("qif",), {}),
        # researcher surfaces
        "qifldp.compose": ((C, q.grr(3, 0.5)), {}),
        "qifldp.repeated": ((C, 2), {"lumped": True}),
        "qifldp.composition_epsilon": ((C, q.grr(3, 0.5)), {}),
        "qifldp.SymmetricComposition": (([S, s.grr(3, 0.5)],), {}),
        "qifldp.read_channel": ((channel_file,), {"renormalize": False}),
        "qifldp.write_channel": ((C, figures / "out.json"), {"drop_labels": False}),
        "qifldp.privacy_profile": ((C, [0.0, 0.5]), {}),
        "qifldp.tradeoff_envelope": ((C,), {"convex": False}),
        "qifldp.profile_from_tradeoff": ((q.tradeoff_curve(C), [0.0, 0.5]), {}),
        "qifldp.tradeoff_from_profile": (([0.0, 0.5, 1.0], [0.3, 0.1, 0.0]), {}),
        "qifldp.gdp_mu": ((C,), {}),
        "qifldp.measures.capacity_from_epsilon": ((1.0,), {}),
        "qifldp.measures.channel_prior_vulnerability": (
            (C,),
            {"gain": np.eye(3), "prior": [0.2, 0.3, 0.5]},
        ),
        "qifldp.refinement.graph.hasse_diagram": (
            (["a", "b"], {("a", "b"): True, ("b", "a"): False}),
            {},
        ),
        "qifldp.cli.parse_spec": (("grr:k=3,eps=1",), {}),
        "qifldp.cli.build": (("grr:k=3,eps=1",), {"kind": "explicit"}),
        "qifldp.cli.is_channel_file": (("channel.csv",), {}),
        # sweeps (a thread pool: the default process pool is swept as executor=None)
        "qifldp.sweep": (
            (q.formulas.asr_grr, {"k": [3], "eps": [1.0]}),
            {"executor": pool, "progress": False},
        ),
        "qifldp.comparability_map": (
            ("grr", "ss", [3], [1.0]),
            {"executor": pool, "progress": False},
        ),  # profiling, re-identification, census data (issue 11)
        "qifldp.survey_sets": ((3, 2), {"metric": "non-uniform"}),
        "qifldp.profiling_accuracy": (
            ((2, 3), 1.0, "grr", 2, "uniform"),
            {"method": "exact", "prior": [0.1, 0.2, 0.1, 0.2, 0.3, 0.1]},
        ),
        "qifldp.profiling_channel": (((2, 3), 1.0, "oue", 2, "non-uniform"), {}),
        "qifldp.survey_profiles": (
            ([[0, 1], [1, 2]], 1.0, "ss", 1, "uniform"),
            {"ks": (2, 3), "rng": 0},
        ),
        "qifldp.simulate_profiling": (
            ([[0, 1], [1, 2]], 1.0, "grr", 2, "non-uniform"),
            {"ks": (2, 3), "rng": 0},
        ),
        "qifldp.profiling_curves": (((7, 5), [1.0, 2.0], ["grr", "ss"]), {"surveys": 2}),
        "qifldp.reidentification_accuracy": (
            ([[0, 1], [1, 2], [1, 1]], 1.0, "grr", 2, "uniform"),
            {"known": [0, 1], "top_k": [1, 2], "ks": (2, 3), "targets": 3, "rng": 0},
        ),
        "qifldp.reidentification_bayes": (
            ([[0, 1], [1, 2], [1, 1]], 1.0, "oue", 2, "non-uniform"),
            {"known": [1], "ks": (2, 3)},
        ),
        "qifldp.synthetic_population": ((10, (3, 4)), {"s": 1.0, "rho": 0.5, "rng": 0}),
        "qifldp.synthetic_distribution": (((3, 4),), {"s": 1.0, "rho": 0.5}),
        "qifldp.load_categorical_csv": (
            (census_file,),
            {"columns": ["sex", "race"], "delimiter": ",", "missing": "drop", "na_values": ["?"]},
        ),
        "qifldp.CategoricalTable": (
            (np.array([[0, 1], [1, 0]]), ("a", "b"), (("x", "y"), ("u", "v"))),
            {},
        ),
        "qifldp.allocate_users": (([0.5, 0.25, 0.25], 10), {}),
        "qifldp.block_seed": ((7, 2), {}),
        "qifldp.refinement_boundary": (("grr", "grr", 3, 0.5, 1.5), {"tol": 0.5}),
        "qifldp.boundary_curve": (
            ("grr", "grr", [3], 0.5, 1.5),
            {"tol": 0.5, "executor": pool, "progress": False},
        ),
    }
    T.to_lists()  # the fixture transactions are valid
    q.simulation.write_fimi(fimi, T)
    return v


def public_callables() -> dict[str, object]:
    """name -> object for every callable in the ``__all__`` of :data:`MODULES`
    (each object once, under the first module that exports it; no exception classes)."""
    import importlib

    seen: set[int] = set()
    out: dict[str, object] = {}
    for mod_name in MODULES:
        mod = importlib.import_module(mod_name)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not callable(obj) or id(obj) in seen:
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue
            seen.add(id(obj))
            out[f"{mod_name}.{name}"] = obj
    return out


# ---------------------------------------------------------------------------------------
# the worker (this file run as a script)
# ---------------------------------------------------------------------------------------
class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout


def _has_nan(value, depth: int = 0) -> bool:
    if depth > 3:
        return False
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.inexact):
        return bool(np.isnan(value).any())
    if isinstance(value, (tuple, list)) and len(value) < 1000:
        return any(_has_nan(v, depth + 1) for v in value)
    return False


def _raising_frame(exc: BaseException) -> str:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return "?"
    code = last.tb_frame.f_code
    return f"{code.co_filename}:{last.tb_lineno}"


def _judge(fn, args, kwargs, arg_name: str = "") -> str | None:
    """None when the call behaves; otherwise a one-line description of the failure."""
    from qifldp.errors import QifldpError

    signal.setitimer(signal.ITIMER_PROF, CALL_TIMEOUT_S)
    signal.setitimer(signal.ITIMER_REAL, CALL_WALL_TIMEOUT_S)
    t0 = time.perf_counter()
    try:
        result = fn(*args, **kwargs)
    except _Timeout:
        return f"timeout after {CALL_TIMEOUT_S} CPU s (or {CALL_WALL_TIMEOUT_S} s wall)"
    except MemoryError:
        return "MemoryError"
    except Exception as exc:  # noqa: BLE001 - every exception is judged here
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if isinstance(exc, QifldpError) and isinstance(exc, (ValueError, TypeError)):
            return None
        if isinstance(exc, FileNotFoundError) and arg_name in PATH_ARGUMENTS:
            return None
        return f"{type(exc).__name__}: {str(exc)[:200]} [raised at {_raising_frame(exc)}]"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
    if _has_nan(result):
        return f"returned NaN ({type(result).__name__})"
    del t0
    return None


def _substitutions(valid):
    """(callable name, argument name, bad key, args, kwargs) for one substitution each."""
    import inspect

    for name, obj in public_callables().items():
        if name in NOT_SWEPT or name not in valid:
            continue
        args, kwargs = valid[name]
        try:
            params = list(inspect.signature(obj).parameters.values())
        except (TypeError, ValueError):
            params = []
        positional = [
            p
            for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
        for i in range(len(args)):
            if i < len(positional) and positional[i].kind != positional[i].VAR_POSITIONAL:
                arg_name = positional[i].name
            else:
                arg_name = f"*args[{i}]"
            for key, bad in BAD_VALUES.items():
                new = list(args)
                new[i] = bad
                yield name, arg_name, key, tuple(new), kwargs
        for kw in kwargs:
            for key, bad in BAD_VALUES.items():
                yield name, kw, key, args, {**kwargs, kw: bad}
        # the optional parameters the valid call leaves at their defaults
        given = {p.name for p in positional[: len(args)]} | set(kwargs)
        for p in params:
            if p.name in given or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                continue
            if any(q.kind == q.VAR_POSITIONAL for q in params) and p.kind != p.KEYWORD_ONLY:
                continue
            for key, bad in BAD_VALUES.items():
                yield name, p.name, key, args, {**kwargs, p.name: bad}


def run_sweep(names: list[str] | None = None) -> dict:
    import resource
    import warnings

    warnings.simplefilter("ignore")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    valid = _valid_calls()
    report: dict = {
        "missing_valid": [],
        "invalid_valid": [],
        "failures": [],
        "excluded_but_passing": [],
        "n_calls": 0,
    }
    objs = public_callables()
    for name in objs:
        if name not in NOT_SWEPT and name not in valid:
            report["missing_valid"].append(name)
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGPROF, _on_alarm)
    with open("/proc/self/status") as fh:
        vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize"))
    limit = vm + MEMORY_LIMIT_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name in valid:
        if name in objs and (names is None or name in names):
            problem = _judge(objs[name], *valid[name])
            if problem:
                report["invalid_valid"].append([name, problem])
    t0 = time.perf_counter()
    for name, arg, key, args, kwargs in _substitutions(valid):
        if name in report["missing_valid"] or (names is not None and name not in names):
            continue
        report["n_calls"] += 1
        problem = _judge(objs[name], args, kwargs, arg)
        plt.close("all")
        if (name, arg, key) in KNOWN_OTHER_OWNER:
            if not problem:
                report["excluded_but_passing"].append([name, arg, key])
        elif problem:
            report["failures"].append([name, arg, key, problem])
    report["seconds"] = time.perf_counter() - t0
    return report


def _run_worker() -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, __file__],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=tempfile.mkdtemp(prefix="qifldp-bad-input-cwd-"),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_known_other_owner_names_existing_cases():
    names = public_callables()
    for name, arg, key in KNOWN_OTHER_OWNER:
        assert name in names and key in BAD_VALUES, (name, arg, key)


@pytest.mark.slow
def test_every_public_callable_answers_bad_input_clearly():
    report = _run_worker()
    assert report["missing_valid"] == [], "add a valid example call to VALID for these"
    assert report["invalid_valid"] == [], "the table's valid calls must succeed"
    assert report["n_calls"] > 3000
    # a fixed case must leave KNOWN_OTHER_OWNER (the list only shrinks)
    assert report["excluded_but_passing"] == [], "remove these from KNOWN_OTHER_OWNER"
    failures = "\n".join(" | ".join(map(str, f)) for f in report["failures"])
    assert not report["failures"], f"{len(report['failures'])} bad-input failures:\n{failures}"


if __name__ == "__main__":
    print(json.dumps(run_sweep(sys.argv[1:] or None)))


# ---------------------------------------------------------------------------------------
# property-based: protocol parameters drawn from the whole float / int range
# ---------------------------------------------------------------------------------------
def _answer_or_clear_error(fn, *args) -> None:
    """The same rule as the sweep, in-process: a NaN-free answer or a package error
    that is a ValueError/TypeError."""
    from qifldp.errors import QifldpError

    try:
        result = fn(*args)
    except QifldpError as exc:
        assert isinstance(exc, (ValueError, TypeError)), repr(exc)
        return
    assert not _has_nan(result), (fn.__name__, args, result)


def _any_number():
    from hypothesis import strategies as st

    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.complex_numbers(allow_nan=True, allow_infinity=True),
        st.sampled_from([None, "1", True, [], [1.0, 2.0]]),
    )


def test_closed_forms_answer_any_parameters():
    from hypothesis import HealthCheck, given, settings, strategies as st

    import qifldp.formulas as f

    two = [f.bayes_capacity_grr, f.asr_oue, f.asr_sue, f.bayes_capacity_olh, f.acc_grr]
    three = [f.asr_the, f.bayes_capacity_lh, f.asr_ss]

    @settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(two + three), _any_number(), _any_number(), _any_number())
    def check(fn, k, eps, third):
        args = (k, eps, third) if fn in three else (k, eps)
        _answer_or_clear_error(fn, *args)

    check()


def test_protocol_parameters_answer_any_eps():
    # explicit channels and simulation parameters: k small (the explicit size guard is
    # tested elsewhere), eps and the other parameters from the whole range
    from hypothesis import HealthCheck, given, settings, strategies as st

    import qifldp as q
    from qifldp import simulation as sim

    fns = [
        q.grr,
        q.oue,
        q.sue,
        q.olh,
        q.blh,
        q.subset_selection,
        sim.grr_pq_star,
        sim.ss_pq_star,
        lambda k, eps: sim.variance_grr(k, eps, 100),
        lambda k, eps: sim.lh_pq_star(eps, k),
        lambda k, eps: q.the(k, eps, 0.75),
    ]

    @settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.sampled_from(fns),
        st.one_of(st.integers(min_value=-2, max_value=6), _any_number()),
        _any_number(),
    )
    def check(fn, k, eps):
        if isinstance(k, int) and not isinstance(k, bool) and k > 6:
            return  # large k: the explicit size guard, covered by the sweep
        if isinstance(k, float) and k == k and abs(k) != INF and k > 6:
            return
        _answer_or_clear_error(fn, k, eps)

    check()
