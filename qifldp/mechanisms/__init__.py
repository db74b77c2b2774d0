"""The LDP frequency-oracle protocols of the QIF paper as explicit channels.

Each constructor returns a :class:`qifldp.Channel` over the inputs 0..k-1, built
the way the paper defines it (GRR and SS directly, LH as the cascade of the
encoding and GRR, UE and THE through :func:`qifldp.one_hot` of a bit channel),
after checking its size against :data:`qifldp.channel.MAX_ENTRIES`.
Protocol parameters (p, q, omega, g) live in :mod:`qifldp.mechanisms._params`.
"""

from __future__ import annotations

from .grr import grr
from .local_hashing import blh, lh_encoding, lh_perturbation, local_hashing, olh
from .subset_selection import subset_selection
from .thresholding import the, the_bit
from .unary_encoding import oue, oue_bit, sue, sue_bit, unary_encoding

__all__ = [
    "grr",
    "subset_selection",
    "local_hashing",
    "blh",
    "olh",
    "lh_encoding",
    "lh_perturbation",
    "unary_encoding",
    "sue",
    "oue",
    "the",
    "sue_bit",
    "oue_bit",
    "the_bit",
]
