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

import importlib
import sys
from types import ModuleType
from typing import Any

from .faces.attach import install as _install_faces

_install_faces()  # before any kind package is imported: they receive their faces' names

#: Module (relative to this package) -> the public names it gives ``qifldp``. Nothing
#: is imported before a name is used: ``import qifldp`` loads no protocol, sweep, audit
#: or plotting module, nor sympy, pandas or matplotlib (tests/architecture/test_import_time.py).
#: ``qifldp/__init__.pyi`` states the same names for type checkers.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "channel": (
        "MAX_ENTRIES",
        "Channel",
        "as_channel",
    ),
    "channel_io": (
        "ChannelFileError",
        "read_channel",
        "write_channel",
    ),
    "composition": (
        "CompositionEpsilon",
        "compose",
        "composition_epsilon",
        "repeated",
    ),
    "errors": (
        "ChannelError",
        "GainError",
        "InputTypeError",
        "ParameterError",
        "PriorError",
        "QifldpError",
        "SizeError",
        "SolverError",
        "VerificationError",
    ),
    "gains": (
        "identity_gain",
        "k_tries_gain",
        "metric_gain",
    ),
    "measures": (
        "Hyper",
        "additive_leakage",
        "asr",
        "bayes_capacity",
        "bayes_vulnerability",
        "g_vulnerability",
        "hyper",
        "ldp_epsilon",
        "max_case_capacity",
        "max_case_g_vulnerability",
        "max_case_leakage",
        "min_entropy_leakage",
        "multiplicative_leakage",
        "prior_bayes_vulnerability",
        "prior_g_vulnerability",
    ),
    "mechanisms": (
        "blh",
        "grr",
        "lh",
        "local_hashing",
        "olh",
        "oue",
        "oue_bit",
        "ss",
        "subset_selection",
        "sue",
        "sue_bit",
        "the",
        "the_bit",
        "ue",
        "unary_encoding",
    ),
    "operators": (
        "cascade",
        "hidden_choice",
        "one_hot",
        "parallel",
        "visible_choice",
    ),
    "priors": (
        "point_prior",
        "uniform_prior",
    ),
    "profiles": (
        "gdp_mu",
        "privacy_profile",
        "profile_from_tradeoff",
        "tradeoff_envelope",
        "tradeoff_from_profile",
    ),
    "protocols": (
        "GRR",
        "LH",
        "SS",
        "THE",
        "UE",
        "Protocol",
        "protocol",
    ),
    "protocols.bipartite": ("BipartiteRR3",),
    "protocols.ibu": (
        "IBUInfo",
        "ibu",
    ),
    "protocols.keyvalue": (
        "pckv_epsilon",
        "pckv_grr",
        "pckv_ue",
    ),
    "protocols.multidim": (
        "rsfd_grr",
        "smp",
        "spl",
    ),
    "protocols.pckv": (
        "PCKV",
        "pckv_allocation",
        "pckv_allocation_curves",
        "pckv_mse_coefficients",
        "pckv_numeric_allocation",
        "plot_pckv_allocation_curves",
    ),
    "protocols.privkvm": (
        "PrivKVM",
        "keyvalue_mse",
    ),
    "protocols.profiling": (
        "profiling_accuracy",
        "profiling_channel",
        "profiling_curves",
        "simulate_profiling",
        "survey_profiles",
        "survey_sets",
    ),
    "protocols.reidentification": (
        "Reidentification",
        "reidentification_accuracy",
        "reidentification_bayes",
    ),
    "protocols.rr3": (
        "RR",
        "RR3",
        "RR3Design",
        "rr3_design",
        "rr_estimator_mse",
    ),
    "protocols.rsfd": (
        "rsfd",
        "rsrfd",
    ),
    "protocols.rsfd_attack": (
        "attribute_inference_accuracy",
        "attribute_inference_comparison",
        "attribute_inference_table",
    ),
    "protocols.rsfd_lattice": (
        "AccuracyBounds",
        "attribute_inference_bounds",
    ),
    "protocols.splsmp": (
        "smp_protocol",
        "spl_protocol",
    ),
    "refinement.families": (
        "FamilyResult",
        "check_refinement_family",
    ),
    "refinement.graph": (
        "plot_refinement_graph",
        "refinement_graph",
    ),
    "symmetric.composition": ("SymmetricComposition",),
    "tradeoff.criterion": (
        "refines_2x2",
        "refines_binary",
        "witness_2x2",
    ),
    "tradeoff.curves": (
        "TradeoffCurve",
        "tradeoff_channel",
        "tradeoff_curve",
        "tradeoff_point",
        "tradeoff_value",
    ),
    "tradeoff.lattice": (
        "join",
        "meet",
    ),
    "tradeoff.lifting": (
        "LiftedRefinement",
        "refines_one_hot_bitwise",
    ),
    "simulation": (
        "CategoricalTable",
        "EmpiricalRate",
        "LHReports",
        "Transactions",
        "bayes_attack",
        "empirical_asr",
        "estimate_inversion",
        "keyvalue_data",
        "load_categorical_csv",
        "load_fimi",
        "load_keyvalue_csv",
        "project_simplex",
        "sample",
        "simulate_attack",
        "synthetic_distribution",
        "synthetic_population",
        "variance_inversion",
        "zipf_data",
    ),
    "sweeps.engine": ("sweep",),
    "sweeps.comparability": ("comparability_map",),
    "sweeps.boundary": (
        "RefinementBoundary",
        "boundary_curve",
        "refinement_boundary",
    ),
    "sweeps.monte_carlo": (
        "SimulatedCounts",
        "allocate_users",
        "block_seed",
        "simulate_counts",
    ),
    "faces.simulation": (
        "attack_grr",
        "attack_lh",
        "attack_ss",
        "attack_the",
        "attack_ue",
        "estimate_grr",
        "estimate_lh",
        "estimate_oue",
        "estimate_ss",
        "estimate_sue",
        "estimate_the",
        "estimate_ue",
        "sample_blh",
        "sample_grr",
        "sample_lh",
        "sample_olh",
        "sample_oue",
        "sample_ss",
        "sample_sue",
        "sample_the",
        "sample_ue",
        "variance_grr",
        "variance_lh",
        "variance_oue",
        "variance_ss",
        "variance_sue",
        "variance_the",
        "variance_ue",
    ),
    "refinement": (
        "Counterexample",
        "RefinementResult",
    ),
    # with the symmetric kind's registrations (the orbit decider of one-hot pairs)
    "faces.refinement": (
        "max_case_refines",
        "refines",
    ),
}

#: Public name -> its module.
_WHERE: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

#: The subpackages and modules shown by ``dir(qifldp)`` (any submodule is reachable as an
#: attribute, imported on first use).
_SUBMODULES: tuple[str, ...] = (
    "faces",
    "formulas",
    "mechanisms",
    "protocols",
    "simulation",
    "symbolic",
    "symmetric",
    "refinement",
    "audit",
    "reproduce",
)

__version__ = "0.1.0"

#: The public names: every name of the table, then the subpackages that are public.
__all__ = [
    *_WHERE,
    "formulas",
    "simulation",
    "symbolic",
    "symmetric",
    "audit",
    "reproduce",
]


def __getattr__(name: str) -> Any:
    """A public name or a submodule, imported on first use (then kept)."""
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif not name.startswith("_") and name.isidentifier():
        try:
            value = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg) from None
    else:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    globals()[name] = value
    return value


class _Package(ModuleType):
    """This package's module type: a public name wins over a submodule of the same name
    that is imported later (the import system sets the submodule as an attribute)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _WHERE and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    """The public names and the main subpackages (not the module's own machinery)."""
    return sorted({*__all__, *_SUBMODULES, "__version__"})
