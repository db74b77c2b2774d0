"""Types of the names ``qifldp/__init__.py`` exports on first use (its ``_EXPORTS``)."""

from . import (
    faces as faces,
    formulas as formulas,
    mechanisms as mechanisms,
    protocols as protocols,
)
from .channel import (
    MAX_ENTRIES as MAX_ENTRIES,
    Channel as Channel,
    as_channel as as_channel,
)
from .channel_io import (
    ChannelFileError as ChannelFileError,
    read_channel as read_channel,
    write_channel as write_channel,
)
from .composition import (
    CompositionEpsilon as CompositionEpsilon,
    compose as compose,
    composition_epsilon as composition_epsilon,
    repeated as repeated,
)
from .errors import (
    ChannelError as ChannelError,
    GainError as GainError,
    InputTypeError as InputTypeError,
    ParameterError as ParameterError,
    PriorError as PriorError,
    QifldpError as QifldpError,
    SizeError as SizeError,
    SolverError as SolverError,
    VerificationError as VerificationError,
)
from .faces.refinement import (
    max_case_refines as max_case_refines,
    refines as refines,
)
from .faces.simulation import (
    attack_grr as attack_grr,
    attack_lh as attack_lh,
    attack_ss as attack_ss,
    attack_the as attack_the,
    attack_ue as attack_ue,
    estimate_grr as estimate_grr,
    estimate_lh as estimate_lh,
    estimate_oue as estimate_oue,
    estimate_ss as estimate_ss,
    estimate_sue as estimate_sue,
    estimate_the as estimate_the,
    estimate_ue as estimate_ue,
    sample_blh as sample_blh,
    sample_grr as sample_grr,
    sample_lh as sample_lh,
    sample_olh as sample_olh,
    sample_oue as sample_oue,
    sample_ss as sample_ss,
    sample_sue as sample_sue,
    sample_the as sample_the,
    sample_ue as sample_ue,
    variance_grr as variance_grr,
    variance_lh as variance_lh,
    variance_oue as variance_oue,
    variance_ss as variance_ss,
    variance_sue as variance_sue,
    variance_the as variance_the,
    variance_ue as variance_ue,
)
from .gains import (
    identity_gain as identity_gain,
    k_tries_gain as k_tries_gain,
    metric_gain as metric_gain,
)
from .measures import (
    Hyper as Hyper,
    additive_leakage as additive_leakage,
    asr as asr,
    bayes_capacity as bayes_capacity,
    bayes_vulnerability as bayes_vulnerability,
    g_vulnerability as g_vulnerability,
    hyper as hyper,
    ldp_epsilon as ldp_epsilon,
    max_case_capacity as max_case_capacity,
    max_case_g_vulnerability as max_case_g_vulnerability,
    max_case_leakage as max_case_leakage,
    min_entropy_leakage as min_entropy_leakage,
    multiplicative_leakage as multiplicative_leakage,
    prior_bayes_vulnerability as prior_bayes_vulnerability,
    prior_g_vulnerability as prior_g_vulnerability,
)
from .mechanisms import (
    blh as blh,
    grr as grr,
    lh as lh,
    local_hashing as local_hashing,
    olh as olh,
    oue as oue,
    oue_bit as oue_bit,
    ss as ss,
    subset_selection as subset_selection,
    sue as sue,
    sue_bit as sue_bit,
    the as the,
    the_bit as the_bit,
    ue as ue,
    unary_encoding as unary_encoding,
)
from .operators import (
    cascade as cascade,
    hidden_choice as hidden_choice,
    one_hot as one_hot,
    parallel as parallel,
    visible_choice as visible_choice,
)
from .priors import (
    point_prior as point_prior,
    uniform_prior as uniform_prior,
)
from .profiles import (
    gdp_mu as gdp_mu,
    privacy_profile as privacy_profile,
    profile_from_tradeoff as profile_from_tradeoff,
    tradeoff_envelope as tradeoff_envelope,
    tradeoff_from_profile as tradeoff_from_profile,
)
from .protocols import (
    GRR as GRR,
    LH as LH,
    SS as SS,
    THE as THE,
    UE as UE,
    Protocol as Protocol,
    protocol as protocol,
)
from .protocols.bipartite import (
    BipartiteRR3 as BipartiteRR3,
)
from .protocols.ibu import (
    IBUInfo as IBUInfo,
    ibu as ibu,
)
from .protocols.keyvalue import (
    pckv_epsilon as pckv_epsilon,
    pckv_grr as pckv_grr,
    pckv_ue as pckv_ue,
)
from .protocols.multidim import (
    rsfd_grr as rsfd_grr,
    smp as smp,
    spl as spl,
)
from .protocols.pckv import (
    PCKV as PCKV,
    pckv_allocation as pckv_allocation,
    pckv_allocation_curves as pckv_allocation_curves,
    pckv_mse_coefficients as pckv_mse_coefficients,
    pckv_numeric_allocation as pckv_numeric_allocation,
    plot_pckv_allocation_curves as plot_pckv_allocation_curves,
)
from .protocols.privkvm import (
    PrivKVM as PrivKVM,
    keyvalue_mse as keyvalue_mse,
)
from .protocols.profiling import (
    profiling_accuracy as profiling_accuracy,
    profiling_channel as profiling_channel,
    profiling_curves as profiling_curves,
    simulate_profiling as simulate_profiling,
    survey_profiles as survey_profiles,
    survey_sets as survey_sets,
)
from .protocols.reidentification import (
    Reidentification as Reidentification,
    reidentification_accuracy as reidentification_accuracy,
    reidentification_bayes as reidentification_bayes,
)
from .protocols.rr3 import (
    RR as RR,
    RR3 as RR3,
    RR3Design as RR3Design,
    rr3_design as rr3_design,
    rr_estimator_mse as rr_estimator_mse,
)
from .protocols.rsfd import (
    rsfd as rsfd,
    rsrfd as rsrfd,
)
from .protocols.rsfd_attack import (
    attribute_inference_accuracy as attribute_inference_accuracy,
    attribute_inference_comparison as attribute_inference_comparison,
    attribute_inference_table as attribute_inference_table,
)
from .protocols.rsfd_lattice import (
    AccuracyBounds as AccuracyBounds,
    attribute_inference_bounds as attribute_inference_bounds,
)
from .protocols.splsmp import (
    smp_protocol as smp_protocol,
    spl_protocol as spl_protocol,
)
from .refinement import (
    Counterexample as Counterexample,
    RefinementResult as RefinementResult,
)
from .refinement.families import (
    FamilyResult as FamilyResult,
    check_refinement_family as check_refinement_family,
)
from .refinement.graph import (
    plot_refinement_graph as plot_refinement_graph,
    refinement_graph as refinement_graph,
)
from .simulation import (
    CategoricalTable as CategoricalTable,
    EmpiricalRate as EmpiricalRate,
    LHReports as LHReports,
    Transactions as Transactions,
    bayes_attack as bayes_attack,
    empirical_asr as empirical_asr,
    estimate_inversion as estimate_inversion,
    keyvalue_data as keyvalue_data,
    load_categorical_csv as load_categorical_csv,
    load_fimi as load_fimi,
    load_keyvalue_csv as load_keyvalue_csv,
    project_simplex as project_simplex,
    sample as sample,
    simulate_attack as simulate_attack,
    synthetic_distribution as synthetic_distribution,
    synthetic_population as synthetic_population,
    variance_inversion as variance_inversion,
    zipf_data as zipf_data,
)
from .sweeps.boundary import (
    RefinementBoundary as RefinementBoundary,
    boundary_curve as boundary_curve,
    refinement_boundary as refinement_boundary,
)
from .sweeps.comparability import comparability_map as comparability_map
from .sweeps.engine import sweep as sweep
from .sweeps.monte_carlo import (
    SimulatedCounts as SimulatedCounts,
    allocate_users as allocate_users,
    block_seed as block_seed,
    simulate_counts as simulate_counts,
)
from .symmetric.composition import (
    SymmetricComposition as SymmetricComposition,
)
from .tradeoff.criterion import (
    refines_2x2 as refines_2x2,
    refines_binary as refines_binary,
    witness_2x2 as witness_2x2,
)
from .tradeoff.curves import (
    TradeoffCurve as TradeoffCurve,
    tradeoff_channel as tradeoff_channel,
    tradeoff_curve as tradeoff_curve,
    tradeoff_point as tradeoff_point,
    tradeoff_value as tradeoff_value,
)
from .tradeoff.lattice import (
    join as join,
    meet as meet,
)
from .tradeoff.lifting import (
    LiftedRefinement as LiftedRefinement,
    refines_one_hot_bitwise as refines_one_hot_bitwise,
)

__version__: str
__all__: list[str]
