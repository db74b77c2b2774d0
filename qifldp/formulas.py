"""Closed forms for the leakage of the LDP protocols: the curated public namespace.

Layer L7 (a face): may import the protocols and every layer below; imported by
``qifldp/__init__`` on first use and by the consumers.

Each formula lives in exactly one place, the family module of its protocol, beside
the protocol's ``*ClosedForm`` class (``q.protocol("oue", k, eps).closed_form``
evaluates them at the protocol's parameters); the names here are those functions:

==============================  ==============================================================
family module                   closed forms
==============================  ==============================================================
:mod:`qifldp.protocols.grr`     ``bayes_capacity_grr``, ``asr_grr``, ``acc_grr``
:mod:`qifldp.protocols.ss`      ``bayes_capacity_ss``, ``asr_ss``, ``acc_ss``
:mod:`qifldp.protocols.lh`      ``bayes_capacity_lh`` / ``_blh`` / ``_olh``, ``asr_lh`` /
                                ``_blh`` / ``_olh``, ``asr_lh_gursoy``, ``acc_olh``
:mod:`qifldp.protocols.ue`      ``bayes_capacity_ue`` / ``_sue`` / ``_oue``, ``asr_ue`` /
                                ``_sue`` / ``_oue``, ``acc_sue``, ``acc_oue``
:mod:`qifldp.protocols.the`     ``bayes_capacity_the``, ``asr_the``, ``ldp_epsilon_the``,
                                ``the_oue_threshold``
==============================  ==============================================================

Their sympy twins are in the same modules (``symbolic_bayes_capacity_grr`` ...,
re-exported by :mod:`qifldp.symbolic.formulas` under the names here); the shared
argument handling is :mod:`qifldp.protocols.vectorize`, where ASR = ML / k is
written once (:func:`~qifldp.protocols.vectorize.asr_from`).

Every function takes numbers or numpy arrays (broadcast together) and returns a
float for scalar arguments, an ndarray otherwise. All are computed with e^-eps,
``log1p``/``expm1`` and logarithms, so they neither overflow nor lose precision
for large eps (e.g. 800) and large k (e.g. 10^6).

Each Bayes capacity ML(C) = Σ_y max_x C[x, y] equals the enumerated
:func:`qifldp.bayes_capacity` of the explicit channel (tests/protocols/test_formulas.py
checks this on a grid). ASR = ML / k is the success of the Bayes-optimal one-try
attacker under a uniform prior (QIF paper Eq. 18).

Where a paper prints a different formula, the functions return the true value and
say where the print is wrong:

* QIF paper Sec. V-B prints ML(SS) = k p / C(k-1, omega-1); the truth is
  k p / omega (they agree only for omega = 1 or omega = k - 1);
* Gursoy et al.'s LH success rate (QIF paper Eq. 25, :func:`asr_lh_gursoy`) is
  wrong for small k; the QIF paper's Eq. 26/27 is right;
* the multidimensional-risks paper's ACC of omega-SS uses the real-valued
  omega = k / (e^eps + 1) and can exceed 1; its ACC of OLH is Eq. 25 with the
  real-valued g = e^eps + 1 (``printed=True`` reproduces both).

>>> import math, numpy as np
>>> bayes_capacity_grr(3, math.log(2)), asr_grr(np.array([3, 6]), math.log(2)).round(12).tolist()
(1.5, [0.5, 0.285714285714])
>>> import qifldp as q
>>> bayes_capacity_oue is q.protocols.ue.bayes_capacity_oue
True
"""

from __future__ import annotations

from .protocols.grr import acc_grr, asr_grr, bayes_capacity_grr
from .protocols.lh import (
    acc_olh,
    asr_blh,
    asr_lh,
    asr_lh_gursoy,
    asr_olh,
    bayes_capacity_blh,
    bayes_capacity_lh,
    bayes_capacity_olh,
)
from .protocols.params import olh_g as olh_g  # OLH's g, read here by qifldp.reproduce
from .protocols.ss import acc_ss, asr_ss, bayes_capacity_ss
from .protocols.the import asr_the, bayes_capacity_the, ldp_epsilon_the, the_oue_threshold
from .protocols.ue import (
    acc_oue,
    acc_sue,
    asr_oue,
    asr_sue,
    asr_ue,
    bayes_capacity_oue,
    bayes_capacity_sue,
    bayes_capacity_ue,
)
from .protocols.vectorize import SERIES_CUTOFF

__all__ = [
    "bayes_capacity_grr",
    "bayes_capacity_ss",
    "bayes_capacity_lh",
    "bayes_capacity_blh",
    "bayes_capacity_olh",
    "bayes_capacity_ue",
    "bayes_capacity_sue",
    "bayes_capacity_oue",
    "bayes_capacity_the",
    "asr_grr",
    "asr_ss",
    "asr_lh",
    "asr_blh",
    "asr_olh",
    "asr_ue",
    "asr_sue",
    "asr_oue",
    "asr_the",
    "asr_lh_gursoy",
    "the_oue_threshold",
    "ldp_epsilon_the",
    "acc_grr",
    "acc_olh",
    "acc_ss",
    "acc_sue",
    "acc_oue",
    "SERIES_CUTOFF",
]
