"""The LDP frequency-oracle protocols of the QIF paper as explicit channels (layer L7, a face).

Each constructor returns a :class:`qifldp.Channel` over the inputs 0..k-1: an
alias of the protocol object's :meth:`~qifldp.protocols.Protocol.channel`
(``qifldp.oue(k, eps)`` is ``qifldp.protocol("oue", k, eps).channel()``), generated
from the catalogue by :func:`qifldp.faces.generate.constructor`, the one generator of
the flat constructors, with the catalogue's parameters and this module's names. The
channel is built the way the paper defines it (GRR and SS directly, LH as the cascade
of the encoding and GRR, UE and THE through :func:`qifldp.one_hot` of a bit channel),
after checking its size against :data:`qifldp.channel.MAX_ENTRIES`. The same names give
the symmetric channels in :mod:`qifldp.symmetric` and the symbolic ones in
:mod:`qifldp.symbolic`; each protocol's parameters (p, q, omega, g, theta) are in
:mod:`qifldp.protocols.params` and its channel code in its family module
(:mod:`qifldp.protocols.grr` ...).

>>> import qifldp as q
>>> q.ss(4, 1.0) == q.subset_selection(4, 1.0) == q.protocol("ss", 4, 1.0).channel()
True
"""

from __future__ import annotations

from .faces.generate import FLAT_NAMES, constructor
from .protocols import lh_encoding, lh_perturbation, oue_bit, sue_bit, the_bit

#: The protocols' constructors: each name gives the explicit channel here, the
#: symmetric one in :mod:`qifldp.symmetric` and the symbolic one in :mod:`qifldp.symbolic`
#: (the short names ``ss``, ``lh``, ``ue`` as well, in every kind).
CONSTRUCTORS: tuple[str, ...] = (
    "grr",
    "subset_selection",
    "local_hashing",
    "blh",
    "olh",
    "unary_encoding",
    "sue",
    "oue",
    "the",
)
#: The bit channels of unary encoding and THE (explicit here and in :mod:`qifldp.symbolic`).
BIT_CHANNELS: tuple[str, ...] = ("sue_bit", "oue_bit", "the_bit")

__all__ = [*FLAT_NAMES, "sue_bit", "oue_bit", "the_bit", "lh_encoding", "lh_perturbation"]

grr = constructor("explicit", "grr")
ss = constructor("explicit", "ss")
subset_selection = constructor("explicit", "subset_selection")
lh = constructor("explicit", "lh")
local_hashing = constructor("explicit", "local_hashing")
blh = constructor("explicit", "blh")
olh = constructor("explicit", "olh")
ue = constructor("explicit", "ue")
unary_encoding = constructor("explicit", "unary_encoding")
sue = constructor("explicit", "sue")
oue = constructor("explicit", "oue")
the = constructor("explicit", "the")

