"""qifldp: quantitative information flow analysis of local differential privacy.

Every LDP protocol is a channel C[x, y] = Pr(y | x); qifldp builds those channels
(explicitly, symbolically, or lumped by symmetry for large domains) and measures
them: Bayes and g-vulnerability, capacities, the true LDP epsilon, the attacker's
success rate, f-DP trade-offs and refinement with checkable certificates.

A channel and its leakage:

>>> import qifldp as q
>>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]])
>>> round(q.bayes_capacity(C), 6), round(q.ldp_epsilon(C), 6)
(1.5, 1.098612)

A protocol is one frozen object (like a scipy.stats frozen distribution) that
gives every representation of itself: the explicit channel, the symmetric and
symbolic channels, the sampler, the estimator and its variance, the closed forms:

>>> P = q.protocol("oue", 4, 1.0)
>>> P.channel() == q.oue(4, 1.0), round(P.closed_form.asr(), 6)
(True, 0.380866)

The flat constructors (``grr``, ``subset_selection``, ``local_hashing``/``blh``/``olh``,
``unary_encoding``/``sue``/``oue``, ``the``) are aliases of these objects; PCKV and
SPL/SMP/RS+FD are channels too, and ``q.formulas`` holds the closed forms, each
checked against enumeration:

>>> round(q.asr(q.grr(4, 1.0)), 6) == round(q.formulas.asr_grr(4, 1.0), 6)
True

Refinement A ⊑ B (B leaks no more than A for every prior and gain) comes with a
certificate either way, re-checked before it is returned:

>>> r = q.refines(q.grr(4, 2.0), q.grr(4, 1.0))
>>> r.holds, r.witness.shape
(True, (4, 4))

The same names accept the symbolic twin (``q.symbolic``, sympy) and symmetric
channels for large domains (``q.symmetric``), both imported on first use:

>>> round(q.bayes_capacity(q.symmetric.oue(10**6, 2.0)), 4)
4.1945
"""

from __future__ import annotations

from .faces import install as _install_faces

_install_faces()  # before any kind package is imported: they receive their faces' names

from . import formulas, simulation  # noqa: E402
from .channel import MAX_ENTRIES, Channel, as_channel
from .channel_io import ChannelFileError, read_channel, write_channel
from .composition import (  # researcher surfaces: same-secret composition
    CompositionEpsilon,
    SymmetricComposition,
    compose,
    composition_epsilon,
    repeated,
)
from .errors import (
    ChannelError,
    GainError,
    InputTypeError,
    ParameterError,
    PriorError,
    QifldpError,
    SizeError,
    SolverError,
    VerificationError,
)
from .gains import identity_gain, k_tries_gain, metric_gain
from .measures import (
    Hyper,
    additive_leakage,
    asr,
    bayes_capacity,
    bayes_vulnerability,
    g_vulnerability,
    hyper,
    ldp_epsilon,
    max_case_capacity,
    min_entropy_leakage,
    multiplicative_leakage,
    prior_bayes_vulnerability,
    prior_g_vulnerability,
)
from .mechanisms import (
    blh,
    grr,
    lh,
    local_hashing,
    olh,
    oue,
    oue_bit,
    ss,
    subset_selection,
    sue,
    sue_bit,
    the,
    the_bit,
    ue,
    unary_encoding,
)
from .operators import cascade, hidden_choice, one_hot, parallel, visible_choice
from .priors import point_prior, uniform_prior
from .profiles import (  # researcher surfaces: privacy profiles and f-DP envelopes
    gdp_mu,
    privacy_profile,
    profile_from_tradeoff,
    tradeoff_envelope,
    tradeoff_from_profile,
)
from .protocols import GRR, LH, SS, THE, UE, Protocol, protocol
from .protocols.bipartite import BipartiteRR3
from .protocols.keyvalue import pckv_epsilon, pckv_grr, pckv_ue
from .protocols.multidim import rsfd_grr, smp, spl
from .protocols.pckv import (
    PCKV,
    pckv_allocation,
    pckv_allocation_curves,
    pckv_mse_coefficients,
    pckv_numeric_allocation,
    plot_pckv_allocation_curves,
)
from .protocols.privkvm import PrivKVM, keyvalue_mse  # key-value baseline and MSE
from .protocols.profiling import (  # profiling over repeated surveys (issue 11)
    profiling_accuracy,
    profiling_channel,
    profiling_curves,
    simulate_profiling,
    survey_profiles,
    survey_sets,
)
from .protocols.reidentification import (  # re-identification (issue 11)
    Reidentification,
    reidentification_accuracy,
    reidentification_bayes,
)
from .protocols.rr3 import RR, RR3, RR3Design, rr3_design, rr_estimator_mse  # 3-answer RR
from .protocols.rsfd import rsfd, rsrfd
from .protocols.rsfd_attack import (
    attribute_inference_accuracy,
    attribute_inference_comparison,
    attribute_inference_table,
)
from .protocols.splsmp import smp_protocol, spl_protocol
from .refinement.families import FamilyResult, check_refinement_family
from .refinement.fdp import (
    TradeoffCurve,
    refines_2x2,
    refines_binary,
    tradeoff_channel,
    tradeoff_curve,
    tradeoff_point,
    tradeoff_value,
    witness_2x2,
)
from .refinement.graph import plot_refinement_graph, refinement_graph
from .refinement.lattice import join, meet
from .refinement.lifting import LiftedRefinement, refines_one_hot_bitwise
from .simulation import (
    CategoricalTable,
    EmpiricalRate,
    LHReports,
    Transactions,
    attack_grr,
    attack_lh,
    attack_ss,
    attack_the,
    attack_ue,
    bayes_attack,
    empirical_asr,
    estimate_grr,
    estimate_inversion,
    estimate_lh,
    estimate_oue,
    estimate_ss,
    estimate_sue,
    estimate_the,
    estimate_ue,
    keyvalue_data,
    load_categorical_csv,
    load_fimi,
    load_keyvalue_csv,
    project_simplex,
    sample,
    sample_blh,
    sample_grr,
    sample_lh,
    sample_olh,
    sample_oue,
    sample_ss,
    sample_sue,
    sample_the,
    sample_ue,
    simulate_attack,
    synthetic_distribution,
    synthetic_population,
    variance_grr,
    variance_inversion,
    variance_lh,
    variance_oue,
    variance_ss,
    variance_sue,
    variance_the,
    variance_ue,
    zipf_data,
)
from .sweep import comparability_map, sweep  # sweeps (pandas/dask on first call)
from .sweep_maps import RefinementBoundary, boundary_curve, refinement_boundary
from .sweep_scale import SimulatedCounts, allocate_users, block_seed, simulate_counts

# Imported on first use: the symbolic twin (sympy), symmetric channels,
# the audit of published claims and the figure reproductions.
_LAZY_SUBMODULES = ("symbolic", "symmetric", "audit", "reproduce", "refinement")

# Names re-exported from a subpackage on first use: refinement imports
# scipy.optimize (HiGHS), which ``import qifldp`` does not need.
_LAZY_ATTRIBUTES = {
    "Counterexample": "refinement",
    "RefinementResult": "refinement",
    "max_case_refines": "refinement",
    "refines": "refinement",
}


def __getattr__(name: str):
    # load the lazy subpackages and the names they define on first use, so that
    # ``import qifldp`` does not import sympy, scipy.optimize or matplotlib
    import importlib

    if name in _LAZY_SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    if name in _LAZY_ATTRIBUTES:
        module = importlib.import_module(f".{_LAZY_ATTRIBUTES[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    msg = f"module 'qifldp' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_SUBMODULES) | set(_LAZY_ATTRIBUTES))


__version__ = "0.1.0"

__all__ = [
    "ChannelError",
    "GainError",
    "InputTypeError",
    "ParameterError",
    "PriorError",
    "QifldpError",
    "SizeError",
    "SolverError",
    "VerificationError",
    "MAX_ENTRIES",
    "Channel",
    "as_channel",
    "cascade",
    "hidden_choice",
    "one_hot",
    "parallel",
    "visible_choice",
    "compose",
    "repeated",
    "composition_epsilon",
    "CompositionEpsilon",
    "SymmetricComposition",
    "read_channel",
    "write_channel",
    "ChannelFileError",
    "privacy_profile",
    "tradeoff_envelope",
    "profile_from_tradeoff",
    "tradeoff_from_profile",
    "gdp_mu",
    "point_prior",
    "uniform_prior",
    "identity_gain",
    "k_tries_gain",
    "metric_gain",
    "Hyper",
    "additive_leakage",
    "asr",
    "bayes_capacity",
    "bayes_vulnerability",
    "g_vulnerability",
    "hyper",
    "ldp_epsilon",
    "max_case_capacity",
    "min_entropy_leakage",
    "multiplicative_leakage",
    "prior_bayes_vulnerability",
    "prior_g_vulnerability",
    "blh",
    "grr",
    "local_hashing",
    "olh",
    "oue",
    "oue_bit",
    "subset_selection",
    "sue",
    "sue_bit",
    "the",
    "the_bit",
    "unary_encoding",
    "protocol",
    "Protocol",
    "GRR",
    "SS",
    "LH",
    "UE",
    "THE",
    "formulas",
    "simulation",
    "EmpiricalRate",
    "LHReports",
    "Transactions",
    "attack_grr",
    "attack_lh",
    "attack_ss",
    "attack_the",
    "attack_ue",
    "bayes_attack",
    "empirical_asr",
    "estimate_grr",
    "estimate_inversion",
    "estimate_lh",
    "estimate_oue",
    "estimate_ss",
    "estimate_sue",
    "estimate_the",
    "estimate_ue",
    "load_fimi",
    "project_simplex",
    "sample",
    "sample_blh",
    "sample_grr",
    "sample_lh",
    "sample_olh",
    "sample_oue",
    "sample_ss",
    "sample_sue",
    "sample_the",
    "sample_ue",
    "simulate_attack",
    "variance_grr",
    "variance_inversion",
    "variance_lh",
    "variance_oue",
    "variance_ss",
    "variance_sue",
    "variance_the",
    "variance_ue",
    "zipf_data",
    "Counterexample",
    "RefinementResult",
    "max_case_refines",
    "refines",
    "TradeoffCurve",
    "refines_2x2",
    "refines_binary",
    "tradeoff_channel",
    "tradeoff_curve",
    "tradeoff_point",
    "tradeoff_value",
    "witness_2x2",
    "join",
    "meet",
    "LiftedRefinement",
    "refines_one_hot_bitwise",
    "FamilyResult",
    "check_refinement_family",
    "plot_refinement_graph",
    "refinement_graph",
    "pckv_epsilon",
    "pckv_grr",
    "pckv_ue",
    "rsfd_grr",
    "smp",
    "spl",
    "symbolic",
    "symmetric",
    "audit",
    "reproduce",
    "rsfd",
    "rsrfd",
    "attribute_inference_accuracy",
    "pckv_allocation",
    "PCKV",
    "sweep",
    "comparability_map",
    "PrivKVM",
    "keyvalue_mse",
    "profiling_accuracy",
    "profiling_channel",
    "profiling_curves",
    "simulate_profiling",
    "survey_profiles",
    "survey_sets",
    "Reidentification",
    "reidentification_accuracy",
    "reidentification_bayes",
    "CategoricalTable",
    "load_categorical_csv",
    "synthetic_population",
    "synthetic_distribution",
    "spl_protocol",
    "smp_protocol",
    "attribute_inference_comparison",
    "attribute_inference_table",
    "pckv_mse_coefficients",
    "pckv_numeric_allocation",
    "pckv_allocation_curves",
    "plot_pckv_allocation_curves",
    "RefinementBoundary",
    "refinement_boundary",
    "boundary_curve",
    "SimulatedCounts",
    "simulate_counts",
    "allocate_users",
    "block_seed",
    "RR",
    "RR3",
    "RR3Design",
    "rr3_design",
    "rr_estimator_mse",
    "keyvalue_data",
    "load_keyvalue_csv",
    "BipartiteRR3",
]
