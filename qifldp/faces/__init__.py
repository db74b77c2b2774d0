"""Faces (layer L7): the flat aliases of the protocols, generated from the catalogue.

May import every layer below (protocols, the kinds and kernels, refinement, measures,
channel, errors); imported only by ``qifldp/__init__``, :mod:`qifldp.mechanisms`,
:mod:`qifldp.formulas` (L7) and the consumers (L8).

One generator (:func:`qifldp.faces.generate.constructor`) writes every flat constructor
from a catalogue entry and a kind, in one style: the explicit ones
(:mod:`qifldp.mechanisms`, re-exported as ``qifldp.grr`` ...), the symmetric ones
(:mod:`qifldp.faces.symmetric`) and the symbolic ones (:mod:`qifldp.faces.symbolic`); the
flat simulation names (``sample_oue`` ...) are in :mod:`qifldp.faces.simulation`. The kind
packages receive their faces' names from above (:mod:`qifldp.faces.attach`), so that
``qifldp.symmetric.oue`` works while :mod:`qifldp.symmetric` imports no protocol.

This package's ``__init__`` stays light (``import qifldp`` loads it): the face modules are
imported on first use.
"""

from __future__ import annotations

from .attach import FACES, attach, install

__all__ = ["FACES", "attach", "install"]
