"""Refinement between protocols without building a channel: the routes that need none.

One place for the certificates that come from a protocol's structure rather than from its
channel, tried in this order (each in milliseconds to a few seconds at k = 10^4, each
verified exactly or within a stated band before it is returned):

1. ``equal channels`` — neither side symmetric, the rows equal entry for entry: W = I
   both ways (:mod:`qifldp.protocols.structure.equal_channels`);
2. ``capacity bound`` — B's Bayes capacity above an upper bound of A's from A's closed
   forms (:func:`~qifldp.protocols.structure.negative_routes.capacity_bound_test`): A ⋢ B;
3. ``invariant gain`` — A invariant under a 2-transitive group (HE with t coefficients),
   B symmetric: a separating gain with one value per orbit
   (:func:`~qifldp.protocols.structure.invariant_gains.invariant_gain_refutation`): A ⋢ B;
4. ``posterior mixing`` — A's exact Gram form (HR, HE, HE-t, HR with blocks where
   GRR-type) and B singling out one input per column: an implicit witness checked in
   rational arithmetic (:func:`~qifldp.symmetric.posterior_mixing.posterior_mixing_from_gram`);
   for HR with blocks in general, by blocks
   (:func:`~qifldp.symmetric.block_mixing.block_mixing_from_gram`, B GRR-type);
5. ``invariant witness`` — the group of 3 again, the orbit equations of A·W = B solved
   exactly (:func:`~qifldp.protocols.structure.invariant_gains.invariant_witness`);
6. ``guess mixing`` — HE with t coefficients into a GRR-type B at any k: each report
   answered by a value uniform in its hit coset (GRR-type on the K = 2^m values), the
   guesses beyond k spread, then mixed
   (:func:`~qifldp.protocols.structure.guess_mixing.guess_mixing_witness`, exact, W implicit);
7. ``hyperplane gain`` — the other way round: A symmetric, B HE with t coefficients, the
   gain of a hyperplane of B's values, with the exact gap by A's column classes and B's
   law of the rank
   (:func:`~qifldp.protocols.structure.hyperplane_gains.hyperplane_gain_refutation`):
   A ⋢ B (unary encodings against HE-t at the same epsilon, where the float LP stalls).

:func:`qifldp.refines` on two protocol objects whose channels cannot be built, the
comparability atlas (:mod:`qifldp.sweeps.atlas`) and the command line (``qifldp
refines``, ``qifldp compare``) all take it.

Layer L5 (protocols): protocol-level refinement without whole channels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ParameterError, QifldpError
from ...symmetric import SymmetricChannel
from ...symmetric.block_mixing import block_mixing_from_gram
from ...symmetric.posterior_mixing import posterior_mixing_from_gram
from .equal_channels import equal_channels
from .guess_mixing import guess_mixing_witness
from .hyperplane_gains import hyperplane_gain_refutation
from .invariant_gains import invariant_gain_refutation, invariant_witness
from .negative_routes import capacity_bound_test

__all__ = ["ChannelFree", "channel_free_decision"]


@dataclass(frozen=True)
class ChannelFree:
    """A verdict on A ⊑ B from the protocols' structure, with its certificate.

    Attributes
    ----------
    holds : bool
        The verdict.
    route : str
        ``"equal channels"``, ``"capacity bound"``, ``"invariant gain"``,
        ``"posterior mixing"``, ``"invariant witness"``, ``"guess mixing"`` or
        ``"hyperplane gain"``.
    certified_by : str
        The statement of the certificate.
    counterexample : Counterexample or None
        For a failure: the gain and prior (a SymmetricGain for an invariant gain, a
        two-action gain over the k inputs for a hyperplane gain).
    values : numpy.ndarray
        The numbers that identify the certificate (an implicit witness's parameters, or
        the counterexample's gap), for a digest.

    Examples
    --------
    >>> import qifldp as q
    >>> found = channel_free_decision(q.protocol("hr", 7, 0.25), q.protocol("grr", 7, 0.01))
    >>> found.holds, found.route, found.counterexample is None
    (True, 'posterior mixing', True)
    """

    holds: bool
    route: str
    certified_by: str
    counterexample: Any
    values: np.ndarray


def _symmetric_of(P: Any) -> SymmetricChannel | None:
    try:
        return P.symmetric() if getattr(P, "lumpable", False) else None
    except QifldpError:
        return None


def channel_free_decision(
    A: Any, B: Any, SA: SymmetricChannel | None = None, SB: SymmetricChannel | None = None
) -> ChannelFree | None:
    """A ⊑ B decided from the protocols' structure, or None when no such route answers.

    Parameters
    ----------
    A, B : Protocol
        On the same k inputs.
    SA, SB : SymmetricChannel, optional
        Their symmetric channels where the caller has built them (built here otherwise,
        where the protocol has one).

    Returns
    -------
    ChannelFree or None
        The first route of the module's order that answers.

    Raises
    ------
    ParameterError
        A and B over different numbers of inputs.

    Examples
    --------
    >>> import qifldp as q
    >>> A, B = q.protocol("he_multi", 1024, 2.0), q.protocol("dbitflip", 1024, 2.0)
    >>> found = channel_free_decision(A, B)  # (2K)^4 outputs on A's side: never built
    >>> found.holds, found.route
    (False, 'invariant gain')
    >>> hr, hr_block = q.protocol("hr", 10**4, 0.5), q.protocol("hr_block", 10**4, 0.5)
    >>> channel_free_decision(hr, hr_block).route  # one block: HR itself, W = I
    'equal channels'
    >>> sue, he = q.protocol("sue", 64, 8.0), q.protocol("he_multi", 64, 8.0)
    >>> channel_free_decision(sue, he).route  # both of epsilon 8: the LP stalls, this does not
    'hyperplane gain'
    """
    if not all(callable(getattr(P, "_restricted_rows", None)) for P in (A, B)):
        return None  # not a protocol of the catalogue's frequency-oracle kind (composites)
    if A.k != B.k:
        msg = f"A and B must be over the same inputs, got k = {A.k} and k = {B.k}"
        raise ParameterError(msg)
    SA = _symmetric_of(A) if SA is None else SA
    SB = _symmetric_of(B) if SB is None else SB
    if SA is None and SB is None:
        same = equal_channels(A, B)
        if same is not None:
            values = np.array([same.entries, same.max_difference])
            return ChannelFree(True, "equal channels", same.certified_by, None, values)
    if SA is not None and SB is None:
        found = hyperplane_gain_refutation(SA, B)
        if found is None:
            return None
        ce, why = found
        return ChannelFree(False, "hyperplane gain", why, ce, np.array([ce.gap]))
    if SA is not None or SB is None:
        return None
    found = capacity_bound_test(A, SB)
    if found is not None:
        ce, why = found
        how = f"ML(B) above the closed-form bound of ML(A): {why}"
        return ChannelFree(False, "capacity bound", how, ce, np.array([ce.gap]))
    refuted = invariant_gain_refutation(A, SB)
    if refuted is not None:
        ce = refuted.counterexample
        return ChannelFree(False, "invariant gain", refuted.certified_by, ce, np.array([ce.gap]))
    gram = getattr(A, "gram_form", None)
    form = gram() if callable(gram) else None
    if form is not None and SB.singles_out_one_input():
        res = posterior_mixing_from_gram(form, SB)
        if res is not None:
            implicit = [form.alpha, form.beta, form.up, form.down, *res.details["mu"]]
            values = np.array([float(v) for v in implicit])
            return ChannelFree(True, "posterior mixing", res.certified_by, None, values)
    blocks = getattr(A, "block_gram_form", None)
    if callable(blocks) and SB.singles_out_one_input():
        res = block_mixing_from_gram(blocks(), SB)
        if res is not None:
            d = res.details
            values = np.array([float(v) for v in (d["mu"], *d["nu"], d["smallest_entry"])])
            return ChannelFree(True, "posterior mixing", res.certified_by, None, values)
    witness = invariant_witness(A, SB)
    if witness is not None:
        values = np.array([float(v) for v in witness.values.values()])
        return ChannelFree(True, "invariant witness", witness.certified_by, None, values)
    guessed = guess_mixing_witness(A, SB)
    if guessed is not None:
        values = np.array([float(v) for v in guessed.values.values()])
        return ChannelFree(True, "guess mixing", guessed.certified_by, None, values)
    return None
