"""Former home of the protocol parameters, kept as a re-export of :mod:`qifldp.protocols.params`.

Nothing in the package imports it; it stays for code (and tests) that import the
old private path.
"""

from __future__ import annotations

from ..protocols.params import *  # noqa: F403
from ..protocols.params import __all__ as _all
from ..protocols.params import the_bit_matrix as _the_bit_matrix

__all__ = [*_all, "_the_bit_matrix"]
