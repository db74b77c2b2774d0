"""Refinement between protocols whose channels are too large to build.

Layer L5 (protocols): protocol-level refinement, read off the protocols' structure and
their rows, never their whole channels. Used by :func:`qifldp.refines` on two protocol
objects (where neither explicit nor symmetric channels serve), by the comparability
atlas (:mod:`qifldp.sweeps.atlas`) and by the command line (``qifldp refines``,
``qifldp compare``).

- :mod:`.channel_free`: :func:`channel_free_decision`, the routes that need no channel
  (equal channels, a capacity bound, invariant certificates under the affine group, exact
  Gram forms, the guess in the hit coset, a hyperplane's gain), each in its module:
  :mod:`.equal_channels`, :mod:`.invariant_gains`, :mod:`.guess_mixing`,
  :mod:`.hyperplane_gains`;
- :mod:`.restriction`: :func:`restriction_refutation`, a failure proved on a few inputs;
- :mod:`.negative_routes`: the capacity test, its closed-form bound and the pair test,
  with their rounding bounds in :mod:`.rigorous_gaps`.
"""

from __future__ import annotations

from .channel_free import ChannelFree, channel_free_decision
from .restriction import Restriction, restriction_refutation

__all__ = ["ChannelFree", "Restriction", "channel_free_decision", "restriction_refutation"]
