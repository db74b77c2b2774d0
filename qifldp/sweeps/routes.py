"""Which refinement routes a pair takes, in order: one chooser for the atlas and the
command line.

Layer L6 (studies). A pair of protocols can be decided on its symmetric (lumped)
channels (:func:`qifldp.symmetric.refines`: every O(k) route first, then the orbit LP
under its own budget) or on explicit channels (the explicit LP). The symmetric route
is never refused here for the orbit LP's size: that budget belongs to the LP stage
(``max_lp_variables``), after the routes that need no LP have run. The explicit route
is taken when both explicit channels fit the caller's budget and the witness W
(|Y_A| x |Y_B| entries) fits ``max_witness``. A pair of protocols with a side without a
symmetric channel is first given to the routes that need no channel
(:func:`qifldp.protocols.structure.channel_free.channel_free_decision`: equal channels, a capacity
bound, invariant certificates, an exact Gram form), then can be refuted on a few inputs
(:func:`qifldp.protocols.structure.restriction.restriction_refutation`, at any k, in well under a
second): that route proves failures only, so it comes first (before an explicit LP of
seconds at k = 1000), or after the explicit LP when its matrix certificate is wanted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["SYMMETRIC", "EXPLICIT", "CHANNEL_FREE", "RESTRICTION", "refinement_routes"]

#: The route on the symmetric channels (:func:`qifldp.symmetric.refines`).
SYMMETRIC: str = "symmetric"
#: The route on explicit channels (the explicit LP of :func:`qifldp.refines`).
EXPLICIT: str = "explicit"
#: The routes that decide from the protocols' structure, without a channel
#: (:func:`qifldp.protocols.structure.channel_free.channel_free_decision`).
CHANNEL_FREE: str = "channel-free"
#: The route that refutes on a restriction to a few inputs
#: (:func:`qifldp.protocols.structure.restriction.restriction_refutation`; proves failures only).
RESTRICTION: str = "restriction"


def refinement_routes(
    symmetric: Sequence[bool],
    explicit_outputs: Sequence[float | None],
    *,
    max_witness: float,
    explicit_budget: str,
    explicit_first: bool = False,
    restrictable: bool = False,
) -> tuple[list[str], list[str]]:
    """The routes that fit the budgets, in the order to try them, and why the others do not.

    Parameters
    ----------
    symmetric : pair of bool
        Whether A and B each have a symmetric channel.
    explicit_outputs : pair of float or None
        The outputs of A's and B's explicit channels when the caller would build
        them (None: beyond the caller's own budget, or none exists).
    max_witness : float
        Largest explicit witness, |Y_A| |Y_B| entries.
    explicit_budget : str
        The caller's budget for an explicit channel, as the reason names it
        (e.g. "4e+06 entries").
    explicit_first : bool
        The explicit route before the symmetric one and the restriction route (its
        certificate is a matrix).
    restrictable : bool
        Both are protocol objects
        (:func:`~qifldp.protocols.structure.restriction.restriction_refutation` takes
        them): a pair with a side without a symmetric channel then takes
        :data:`CHANNEL_FREE` and :data:`RESTRICTION` too.

    Returns
    -------
    routes : list of str
        :data:`SYMMETRIC`, :data:`EXPLICIT`, :data:`CHANNEL_FREE` and/or
        :data:`RESTRICTION`, in order.
    why : list of str
        Why the routes left out do not apply.

    Examples
    --------
    >>> refinement_routes((True, True), (None, None), max_witness=1e6,
    ...                   explicit_budget="4e+06 entries")
    (['symmetric'], ['an explicit channel would exceed 4e+06 entries'])
    >>> refinement_routes((False, True), (64, 2000), max_witness=1e6,
    ...                   explicit_budget="4e+06 entries")
    (['explicit'], [])
    >>> refinement_routes((True, True), (64, 64), max_witness=1e6,
    ...                   explicit_budget="4e+06 entries", explicit_first=True)
    (['explicit', 'symmetric'], [])
    >>> refinement_routes((True, False), (None, None), max_witness=1e6,
    ...                   explicit_budget="4e+06 entries", restrictable=True)[0]
    ['channel-free', 'restriction']
    """
    routes: list[str] = []
    why: list[str] = []
    both_symmetric = all(symmetric)
    if both_symmetric:
        routes.append(SYMMETRIC)
    elif restrictable:
        routes += [CHANNEL_FREE, RESTRICTION]
    na, nb = explicit_outputs
    if na is None or nb is None:
        why.append(
            f"an explicit channel would exceed {explicit_budget}"
            + ("" if both_symmetric else " and one protocol has no symmetric channel")
        )
        return routes, why
    n_w = float(na) * float(nb)
    if not math.isfinite(n_w) or n_w > max_witness:
        why.append(f"the explicit witness would have ~{n_w:.3g} entries (> {max_witness:.3g})")
    elif explicit_first:
        routes.insert(0, EXPLICIT)
    else:
        routes.append(EXPLICIT)
    return routes, why
