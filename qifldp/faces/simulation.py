"""The flat simulation names of the protocols, attached to :mod:`qifldp.simulation`.

Each protocol samples, estimates, computes its variance and attacks its own reports
(``q.protocol("oue", k, eps).sample(xs)``, ``.estimate(reports)``, ``.variance(n, f)``,
``.support_probabilities()``, ``.attack(reports)``, in its family module of
:mod:`qifldp.protocols`). The flat names here (``sample_grr`` ... ``sample_the``,
``estimate_*``, ``variance_*``, ``*_pq_star``, ``attack_*``) are one-line aliases onto
those methods, with their former signatures, values and errors, each written the same
way (:func:`flat_alias`). :mod:`qifldp.faces.attach` gives them to
``qifldp.simulation`` (``from qifldp.simulation import sample_oue``), whose own modules
hold the kernels that serve every protocol.

>>> import qifldp as q
>>> sample_grr([0, 1, 2], k=3, eps=60.0, rng=0).tolist() == q.protocol("grr", 3, 60.0).sample(
...     [0, 1, 2], rng=0).tolist()
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from ..protocols.grr import attack_values
from ..protocols.lh import (
    LH_REJECTION_RATIO as LH_REJECTION_RATIO,
    LH_REJECTION_TRIES as LH_REJECTION_TRIES,
    attack_hashes,
    check_lh_reports,
    universal_lh_channel as universal_lh_channel,
)
from ..protocols.oracles import oracle as protocol
from ..protocols.ss import (
    SS_DENSE_RATIO as SS_DENSE_RATIO,
    SS_KEYS_MAX_K as SS_KEYS_MAX_K,
    SS_KEYS_MIN_K as SS_KEYS_MIN_K,
    attack_subsets,
    report_omega,
)
from ..protocols.ue import attack_bits, bit_width
from ..simulation.samplers import DEFAULT_PRIME, LHReports
from .attach import FACES

__all__ = list(FACES["qifldp.simulation"][1])  # the names qifldp.simulation receives

#: Any valid domain size: the aliases whose values do not depend on k build the
#: protocol at this k (the estimators read k from the reports).
_ANY_K = 2

_F = TypeVar("_F", bound=Callable[..., Any])


def flat_alias(method: str, *example: str) -> Callable[[_F], _F]:
    """Decorate a flat function of :mod:`qifldp.simulation` that forwards to a protocol.

    The docstring is generated: it names the implementation, which documents the
    parameters, errors and algorithm, and carries the ``example`` lines (a
    doctest, collected by ``pytest --doctest-modules`` like any docstring).

    Parameters
    ----------
    method : str
        The implementation in :mod:`qifldp.protocols`: a method such as
        ``"UE.sample"`` or a family helper such as ``"ue.attack_bits"``.
    *example : str
        Doctest lines (``>>>`` and expected output), one per argument.

    Returns
    -------
    callable
        The decorator; it returns the function itself with its docstring set.

    Examples
    --------
    >>> @flat_alias("GRR.sample", ">>> 1 + 1", "2")
    ... def f():
    ...     pass
    >>> f.__doc__.splitlines()[0]
    'Flat alias of :meth:`qifldp.protocols.GRR.sample`: the same result for the same arguments.'
    """
    role = ":meth:" if method[:1].isupper() else ":func:"
    lines = "\n    ".join(example)

    def decorate(fn: _F) -> _F:
        fn.__doc__ = (
            f"Flat alias of {role}`qifldp.protocols.{method}`: the same result for the same "
            "arguments.\n\n    Signature, values and errors are those the flat name always had; "
            "the\n    implementation documents the parameters, errors and algorithm.\n\n"
            f"    Examples\n    --------\n    {lines}\n    "
        )
        return fn

    return decorate


# ----------------------------------------------------------------------------------------
# client side: samplers
# ----------------------------------------------------------------------------------------
@flat_alias(
    "GRR.sample", ">>> sample_grr([0, 1, 2, 3], k=4, eps=50.0, rng=0).tolist()", "[0, 1, 2, 3]"
)
def sample_grr(xs: Any, k: int, eps: float, rng: Any = None) -> np.ndarray:
    return cast("np.ndarray", protocol("grr", k, eps).sample(xs, rng))


@flat_alias("SS.sample", ">>> sample_ss([0, 3], k=6, eps=1.0, omega=2, rng=0).shape", "(2, 2)")
def sample_ss(
    xs: Any,
    k: int,
    eps: float,
    omega: int | None = None,
    rng: Any = None,
    *,
    output: str = "subsets",
) -> np.ndarray:
    return cast("np.ndarray", protocol("ss", k, eps, omega=omega).sample(xs, rng, output=output))


@flat_alias("LH.sample", ">>> sample_lh([0, 1, 2, 3], k=4, eps=2.0, g=3, rng=7).y.shape", "(4,)")
def sample_lh(
    xs: Any,
    k: int,
    eps: float,
    g: int,
    rng: Any = None,
    *,
    hash: str = "universal",
    prime: int = DEFAULT_PRIME,
) -> LHReports:
    return cast("LHReports", protocol("lh", k, eps, g=g).sample(xs, rng, hash=hash, prime=prime))


@flat_alias("LH.sample", ">>> sample_blh([0, 1], k=4, eps=1.0, rng=0).g", "2")
def sample_blh(xs: Any, k: int, eps: float, rng: Any = None, **kwargs: Any) -> LHReports:
    return cast("LHReports", protocol("blh", k, eps).sample(xs, rng, **kwargs))


@flat_alias("LH.sample", ">>> sample_olh([0, 1], k=4, eps=1.0, rng=0).g  # round(e + 1)", "4")
def sample_olh(xs: Any, k: int, eps: float, rng: Any = None, **kwargs: Any) -> LHReports:
    return cast("LHReports", protocol("olh", k, eps).sample(xs, rng, **kwargs))


@flat_alias(
    "UE.sample", ">>> sample_ue([0, 2], 3, p=1.0, q=0.0, rng=0).sum(axis=1).tolist()", "[1, 1]"
)
def sample_ue(xs: Any, k: int, p: float, q: float, rng: Any = None) -> np.ndarray:
    return cast("np.ndarray", protocol("ue", k, p=p, q=q).sample(xs, rng))


@flat_alias(
    "UE.sample", ">>> sample_sue([1], k=3, eps=60.0, rng=0).astype(int).tolist()", "[[0, 1, 0]]"
)
def sample_sue(xs: Any, k: int, eps: float, rng: Any = None) -> np.ndarray:
    return cast("np.ndarray", protocol("sue", k, eps).sample(xs, rng))


@flat_alias(
    "UE.sample", ">>> bool(sample_oue([1, 1], k=3, eps=60.0, rng=0)[:, [0, 2]].any())", "False"
)
def sample_oue(xs: Any, k: int, eps: float, rng: Any = None) -> np.ndarray:
    return cast("np.ndarray", protocol("oue", k, eps).sample(xs, rng))


@flat_alias("THE.sample", ">>> int(sample_the([0, 1], k=3, eps=80.0, theta=0.7, rng=0).sum())", "2")
def sample_the(
    xs: Any, k: int, eps: float, theta: float, rng: Any = None, *, method: str = "laplace"
) -> np.ndarray:
    return cast("np.ndarray", protocol("the", k, eps, theta=theta).sample(xs, rng, method=method))


# ----------------------------------------------------------------------------------------
# server side: support probabilities, estimators, variances
# ----------------------------------------------------------------------------------------
@flat_alias(
    "GRR.support_probabilities",
    ">>> grr_pq_star(3, 0.0)",
    "(0.3333333333333333, 0.3333333333333333)",
)
def grr_pq_star(k: int, eps: float) -> tuple[float, float]:
    return protocol("grr", k, eps).support_probabilities()


@flat_alias(
    "SS.support_probabilities", ">>> [round(t, 6) for t in ss_pq_star(4, 0.0, 2)]", "[0.5, 0.5]"
)
def ss_pq_star(k: int, eps: float, omega: int | None = None) -> tuple[float, float]:
    return protocol("ss", k, eps, omega=omega).support_probabilities()


@flat_alias(
    "LH.support_probabilities",
    ">>> lh_pq_star(0.0, 4)  # prime None: uniform hashing",
    "(0.25, 0.25)",
)
def lh_pq_star(eps: float, g: int, prime: int | None = None) -> tuple[float, float]:
    hash = "uniform" if prime is None else "universal"
    return protocol("lh", _ANY_K, eps, g=g).support_probabilities(hash=hash, prime=prime)


@flat_alias("GRR.estimate", ">>> estimate_grr([0, 0, 1, 0], 2, 50.0).tolist()", "[0.75, 0.25]")
def estimate_grr(reports: Any, k: int, eps: float, *, project: bool = False) -> np.ndarray:
    return protocol("grr", k, eps).estimate(reports, project=project)


@flat_alias(
    "SS.estimate",
    ">>> estimate_ss(np.array([[0], [0], [1]]), 2, 50.0).round(6).tolist()",
    "[0.666667, 0.333333]",
)
def estimate_ss(
    reports: Any, k: int, eps: float, omega: int | None = None, *, project: bool = False
) -> np.ndarray:
    omega = report_omega(reports, k, omega)  # omitted: the reports' subset size
    return protocol("ss", k, eps, omega=omega).estimate(reports, project=project)


@flat_alias(
    "LH.estimate",
    ">>> from qifldp.simulation import sample_olh",
    ">>> xs = np.repeat([0, 1, 2], [6000, 3000, 1000])",
    ">>> estimate_lh(sample_olh(xs, 3, 3.0, rng=0), 3.0).round(1).tolist()",
    "[0.6, 0.3, 0.1]",
)
def estimate_lh(reports: LHReports, eps: float, *, project: bool = False) -> np.ndarray:
    R = check_lh_reports(reports)
    return protocol("lh", R.k, eps, g=R.g).estimate(R, project=project)


@flat_alias(
    "UE.estimate",
    ">>> estimate_ue(np.array([[1, 0], [1, 1]], dtype=bool), 0.75, 0.25).tolist()",
    "[1.5, 0.5]",
)
def estimate_ue(bits: Any, p: float, q: float, *, project: bool = False) -> np.ndarray:
    return protocol("ue", bit_width(bits), p=p, q=q).estimate(bits, project=project)


@flat_alias(
    "UE.estimate",
    ">>> bits = np.array([[1, 0], [1, 1]], dtype=bool)",
    ">>> estimate_sue(bits, 2 * np.log(3)).round(6).tolist()  # p = 3/4, q = 1/4",
    "[1.5, 0.5]",
)
def estimate_sue(bits: Any, eps: float, *, project: bool = False) -> np.ndarray:
    return protocol("sue", bit_width(bits), eps).estimate(bits, project=project)


@flat_alias(
    "UE.estimate",
    ">>> bits = np.array([[1, 0], [1, 1]], dtype=bool)",
    ">>> estimate_oue(bits, np.log(3)).round(6).tolist()  # p = 1/2, q = 1/4",
    "[3.0, 1.0]",
)
def estimate_oue(bits: Any, eps: float, *, project: bool = False) -> np.ndarray:
    return protocol("oue", bit_width(bits), eps).estimate(bits, project=project)


@flat_alias(
    "THE.estimate",
    ">>> from qifldp.simulation import sample_the",
    ">>> xs = np.repeat([0, 1], [7000, 3000])",
    ">>> estimate_the(sample_the(xs, 2, 4.0, 0.7, rng=0), 4.0, 0.7).round(1).tolist()",
    "[0.7, 0.3]",
)
def estimate_the(bits: Any, eps: float, theta: float, *, project: bool = False) -> np.ndarray:
    return protocol("the", bit_width(bits), eps, theta=theta).estimate(bits, project=project)


@flat_alias(
    "GRR.variance",
    ">>> import math",
    ">>> math.isclose(variance_grr(10, 1.0, 1000), (math.e + 8) / (1000 * (math.e - 1) ** 2))",
    "True",
)
def variance_grr(k: int, eps: float, n: int, f: Any = None) -> np.ndarray | float:
    return protocol("grr", k, eps).variance(n, f)


@flat_alias("SS.variance", ">>> variance_ss(8, 1.0, 100, omega=2) > 0", "True")
def variance_ss(
    k: int, eps: float, n: int, f: Any = None, omega: int | None = None
) -> np.ndarray | float:
    return protocol("ss", k, eps, omega=omega).variance(n, f)


@flat_alias(
    "LH.variance",
    ">>> import math",
    ">>> e = math.exp(1.0)",
    ">>> math.isclose(variance_lh(1.0, 4, 500), (e - 1 + 4) ** 2 / (500 * (e - 1) ** 2 * 3))",
    "True",
)
def variance_lh(
    eps: float, g: int, n: int, f: Any = None, prime: int | None = None
) -> np.ndarray | float:
    hash = "uniform" if prime is None else "universal"
    return protocol("lh", _ANY_K, eps, g=g).variance(n, f, hash=hash, prime=prime)


@flat_alias("UE.variance", ">>> round(variance_ue(0.75, 0.25, 100), 6)", "0.0075")
def variance_ue(p: float, q: float, n: int, f: Any = None) -> np.ndarray | float:
    return protocol("ue", _ANY_K, p=p, q=q).variance(n, f)


@flat_alias(
    "UE.variance",
    ">>> import math",
    ">>> math.isclose(variance_sue(2.0, 10), math.e / (10 * (math.e - 1) ** 2))",
    "True",
)
def variance_sue(eps: float, n: int, f: Any = None) -> np.ndarray | float:
    return protocol("sue", _ANY_K, eps).variance(n, f)


@flat_alias(
    "UE.variance",
    ">>> import math",
    ">>> math.isclose(variance_oue(1.0, 10), 4 * math.e / (10 * (math.e - 1) ** 2))",
    "True",
)
def variance_oue(eps: float, n: int, f: Any = None) -> np.ndarray | float:
    return protocol("oue", _ANY_K, eps).variance(n, f)


@flat_alias("THE.variance", ">>> variance_the(1.0, 0.7, 1000) > variance_oue(1.0, 1000)", "True")
def variance_the(eps: float, theta: float, n: int, f: Any = None) -> np.ndarray | float:
    return protocol("the", _ANY_K, eps, theta=theta).variance(n, f)


# ----------------------------------------------------------------------------------------
# attacks
# ----------------------------------------------------------------------------------------
@flat_alias("grr.attack_values", ">>> attack_grr([2, 0]).tolist()", "[2, 0]")
def attack_grr(reports: Any) -> np.ndarray:
    return attack_values(reports)


@flat_alias("ss.attack_subsets", ">>> attack_ss(np.array([[1], [0]]), rng=0).tolist()", "[1, 0]")
def attack_ss(reports: Any, rng: Any = None) -> np.ndarray:
    return attack_subsets(reports, rng)


@flat_alias(
    "ue.attack_bits", ">>> attack_ue(np.array([[0, 1, 0]], dtype=bool), rng=0).tolist()", "[1]"
)
def attack_ue(bits: Any, rng: Any = None) -> np.ndarray:
    return attack_bits(bits, rng)


@flat_alias(
    "ue.attack_bits", ">>> attack_the(np.array([[0, 0, 1]], dtype=bool), rng=0).tolist()", "[2]"
)
def attack_the(bits: Any, rng: Any = None) -> np.ndarray:
    return attack_bits(bits, rng)


@flat_alias(
    "lh.attack_hashes",
    ">>> from qifldp.simulation import sample_lh",
    ">>> R = sample_lh([0, 1, 2], k=3, eps=50.0, g=3, rng=0)",
    ">>> bool(np.all(R.matches()[np.arange(3), attack_lh(R, rng=0)]))",
    "True",
)
def attack_lh(reports: LHReports, rng: Any = None) -> np.ndarray:
    return attack_hashes(reports, rng)
