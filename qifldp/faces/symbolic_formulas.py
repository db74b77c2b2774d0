"""Symbolic closed forms of the Bayes capacities (and the QIF paper's printed variants):
``qifldp.symbolic.formulas`` (attached there by :mod:`qifldp.faces.attach`).

Each ``bayes_capacity_*`` function returns the closed form as a sympy expression;
``tests/symbolic/test_derivations.py`` derives the Bayes capacity from the explicit
symbolic channel for k = 2..5 and proves the difference identically zero. Where
the paper prints something else, the ``*_printed`` function returns the print
and its docstring says where it is wrong.

k may be a concrete integer or a sympy symbol (a positive integer).

Like :mod:`qifldp.formulas`, this is a curated namespace: each function is the
sympy twin defined beside the numeric closed form in its family module,
``symbolic_<name>`` in :mod:`qifldp.protocols.grr` / ``ss`` / ``lh`` / ``ue`` /
``the`` (``bayes_capacity_oue`` here is
:func:`qifldp.protocols.ue.symbolic_bayes_capacity_oue`). Their exact arguments are
handled by :mod:`qifldp.protocols.sympy_args`.

>>> import sympy as sp
>>> bayes_capacity_grr(3, sp.Rational(1, 2))
3*exp(1/2)/(exp(1/2) + 2)
"""

from __future__ import annotations

from typing import Any

from ..protocols import sympy_args
from ..protocols.grr import symbolic_bayes_capacity_grr as bayes_capacity_grr
from ..protocols.lh import (
    symbolic_asr_lh as asr_lh,
    symbolic_asr_lh_gursoy as asr_lh_gursoy,
    symbolic_bayes_capacity_lh as bayes_capacity_lh,
)
from ..protocols.ss import (
    symbolic_bayes_capacity_ss as bayes_capacity_ss,
    symbolic_bayes_capacity_ss_printed as bayes_capacity_ss_printed,
)
from ..protocols.the import (
    symbolic_bayes_capacity_the as bayes_capacity_the,
    symbolic_the_oue_threshold as the_oue_threshold,
)
from ..protocols.ue import (
    symbolic_bayes_capacity_oue as bayes_capacity_oue,
    symbolic_bayes_capacity_sue as bayes_capacity_sue,
    symbolic_bayes_capacity_ue as bayes_capacity_ue,
)

__all__ = [
    "bayes_capacity_grr",
    "bayes_capacity_ss",
    "bayes_capacity_ss_printed",
    "bayes_capacity_lh",
    "bayes_capacity_ue",
    "bayes_capacity_sue",
    "bayes_capacity_oue",
    "bayes_capacity_the",
    "asr_lh",
    "asr_lh_gursoy",
    "the_oue_threshold",
]


def __getattr__(name: str) -> Any:
    """``MAX_EXACT_BITS`` lives in :mod:`qifldp.protocols.sympy_args` (read there, not copied)."""
    if name == "MAX_EXACT_BITS":
        return sympy_args.MAX_EXACT_BITS
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
