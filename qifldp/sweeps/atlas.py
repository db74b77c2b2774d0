"""The comparability atlas of the frequency oracles: at every (k, eps) of a grid, every
ordered pair of oracles at the same eps decided with a certificate, or stated undecided
with the reason, and the Hasse diagram of each cell.

A pair A ⊑ B (B leaks no more than A) is decided by the first route that applies:

1. ``orbit LP``: both oracles have a symmetric (lumped) channel: :func:`qifldp.refines`
   on the symmetric channels (the orbit LP, the single-source routes, the Bayes
   capacity), each stopped at :func:`hard_time_limit`;
2. ``explicit LP``: both have an explicit channel within :data:`ATLAS_MAX_OUTPUTS`
   outputs (a symmetric channel expanded *lumped*, one output per subset, and a protocol
   offering ``merged_channel`` by it, one output per distinct column, e.g. HE with t
   coefficients: both equivalent both ways) and a witness within
   :data:`ATLAS_MAX_WITNESS` entries (after the orbit LP when it leaves the pair
   undecided, in the time left; the routes and their order are
   :func:`qifldp.sweeps.routes.refinement_routes`, as on the command line);
   A mixed pair (one side without a symmetric channel) first takes the routes that need
   no channel (:func:`qifldp.protocols.structure.channel_free.channel_free_decision`: ``equal
   channels``, ``capacity bound``, ``invariant gain``, ``posterior mixing`` from A's
   exact Gram form, ``invariant witness``, ``guess mixing``, ``hyperplane gain``), then a
   failure by the capacity, a two-point prior and the restriction route, GRR's
   closed-form inverse, then ``posterior mixing`` on A's explicit channel where B is
   symmetric with classes of sizes in {0, 1, k-1, k} (GRR, L-GRR, dBitFlipPM with
   d = 1, b = k) and A's Gram matrix A D Aᵀ is alpha J + beta I (Hadamard-type
   oracles): a witness W = mu D Aᵀ + uniform mixing, verified
   (:func:`qifldp.symmetric.posterior_mixing.posterior_mixing_witness`; it proves only
   "holds"), before the LP routes;
3. ``capacity`` / ``pair test``: otherwise only a failure can be certified: by the
   Bayes capacity (the identity gain under the uniform prior: ML(B) > ML(A) gives
   A ⋢ B) or by a two-point prior (:func:`pair_test`: B tells some pair of inputs
   apart better than A at some prior odds, the hockey-stick divergences of the two
   rows compared; both in :mod:`qifldp.protocols.structure.negative_routes`, which says how a
   float gap becomes a proof).

A pair that no route decides is settled by a chain where one exists (refinement is a
preorder: :func:`qifldp.refinement.graph.hasse_diagram`), the certificate then being
the chain's (a ⋢ b inferred from c ⊑ a and c ⋢ b has c ⋢ b's counterexample as its own:
V_g[π▷b] > V_g[π▷c] >= V_g[π▷a]). What is left is undecided, with the reason.

The share decided counts every ordered pair of every cell: a pair refused for size (an
explicit channel past :data:`ATLAS_MAX_OUTPUTS` or its protocol's own size rule, a
witness past :data:`ATLAS_MAX_WITNESS`, a solver past the time limit) is undecided, its
reason naming the size or the time, and counts against the share like any other.

>>> cell = atlas_cell(3, 1.0, names=("grr", "oue", "hr"), time_limit=10.0)
>>> sorted((r["a"], r["b"], r["holds"]) for r in cell["pairs"])[:2]
[('grr', 'hr', True), ('grr', 'oue', False)]
>>> cell["decided"], cell["pairs_total"]
(6, 6)
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..channel import Channel
from ..errors import InputTypeError, ParameterError, QifldpError
from ..measures import bayes_capacity, ldp_epsilon
from ..protocols import protocol
from ..protocols.structure.channel_free import channel_free_decision
from ..protocols.structure.negative_routes import (
    PAIR_TEST_CANDIDATES,
    PAIR_TEST_MARGIN,
    PAIR_TEST_MAX_INPUTS,
    PAIR_WEIGHTS,
    capacity_test,
    pair_test,
)
from ..protocols.structure.restriction import (
    RESTRICTION_SHARE,
    RESTRICTION_SIZES,
    restriction_refutation,
)
from ..refinement.graph import hasse_diagram
from ..refinement.result import Counterexample
from ..symmetric import SymmetricChannel
from ..symmetric.grr_inverse import GRR_INVERSE_MAX_WORK, grr_inverse_witness, is_grr_type
from ..symmetric.posterior_mixing import GRAM_MAX_WORK, posterior_mixing_witness
from .arguments import _check_seconds, _values
from .certificates import certificate_digest
from .engine import sweep
from .routes import EXPLICIT, SYMMETRIC, refinement_routes
from .time_limited import _decide

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ATLAS_MAX_OUTPUTS",
    "ATLAS_MAX_WITNESS",
    "ATLAS_ORACLES",
    "GRR_INVERSE_MAX_WORK",
    "PAIR_TEST_CANDIDATES",
    "PAIR_TEST_MAX_INPUTS",
    "PAIR_TEST_MARGIN",
    "PAIR_WEIGHTS",
    "POSTERIOR_MIXING_MAX_WORK",
    "RESTRICTION_SHARE",
    "atlas_cell",
    "oracle_atlas",
    "pair_test",
]

#: Largest number of outputs of an explicit channel the atlas builds (lumped form).
ATLAS_MAX_OUTPUTS: int = 2**16
#: Largest explicit witness (outputs of A times outputs of B) the atlas asks an LP for.
ATLAS_MAX_WITNESS: int = 2**22  # HR with blocks into L-GRR at k = 1024: 2048 x 1024, 2-13 s


#: The most products k x k x (outputs of A) the posterior-mixing route spends on one
#: Gram matrix A D Aᵀ (he_multi at k = 256, eps = 0.5: 2.9e9, ~1 s on one core).
POSTERIOR_MIXING_MAX_WORK: int = GRAM_MAX_WORK  # the function's own size rule

#: The RAPPOR of the atlas: one-time (the permanent response), m bits, h hashes, the
#: hash family member of seed 0; f is set from eps by eps_inf = 2 h ln((1 - f/2) / (f/2)).
RAPPOR_M, RAPPOR_H = 8, 2
#: THE's threshold in the atlas (a fixed theta in (1/2, 1)).
THE_THETA = 0.75
#: Apple's sketches in the atlas: m buckets, K hash functions, the hash family member
#: of seed 0 (as RAPPOR's m and h; HCMS needs m a power of two).
SKETCH_M, SKETCH_HASHES = 8, 2


def _rappor(k: int, eps: float) -> Any:
    f = 2.0 / (1.0 + math.exp(eps / (2 * RAPPOR_H)))
    return protocol("rappor", k, m=RAPPOR_M, h=RAPPOR_H, f=f, rounds="one-time")


def _longitudinal(variant: str) -> Callable[[int, float], Any]:
    def build(k: int, eps: float) -> Any:
        return protocol(variant, k, 2.0 * eps, eps)

    return build


def _named(name: str, **params: Any) -> Callable[[int, float], Any]:
    def build(k: int, eps: float) -> Any:
        return protocol(name, k, eps, **params)

    return build


#: The oracles of the atlas: name -> (builder (k, eps) -> protocol, the convention).
#: Every frequency oracle of the catalogue whose parameters eps fixes; ``lh`` and
#: ``ue`` (free g, p, q) enter as ``blh``/``olh`` and ``sue``/``oue``; ``adp`` is
#: ``grr`` or ``oue`` by construction (the same object), so it adds no pair.
ATLAS_ORACLES: Mapping[str, tuple[Callable[[int, float], Any], str]] = {
    "grr": (_named("grr"), "GRR at eps"),
    "ss": (_named("ss"), "subset selection, omega = max(1, round(k / (e^eps + 1)))"),
    "blh": (_named("blh"), "local hashing, g = 2"),
    "olh": (_named("olh"), "local hashing, g = round(e^eps + 1)"),
    "sue": (_named("sue"), "symmetric unary encoding (basic one-time RAPPOR)"),
    "oue": (_named("oue"), "optimized unary encoding"),
    "the": (_named("the", theta=THE_THETA), f"thresholding with theta = {THE_THETA}"),
    "hr": (_named("hr"), "Hadamard response (no symmetric channel)"),
    "dbitflip": (_named("dbitflip"), "dBitFlipPM with b = k buckets, d = 1 (true eps is eps/2)"),
    "he": (_named("he"), "Hadamard encoding, one coefficient (no symmetric channel)"),
    "hr_block": (
        _named("hr_block"),
        "Hadamard response with B = 2^floor(log2 min(e^eps, 2k)) blocks (a symmetric "
        "channel only with one value per block)",
    ),
    "he_multi": (
        _named("he_multi"),
        "Hadamard encoding, t = ceil(log2(e^eps + 1)) coefficients, its equal columns "
        "merged (no symmetric channel)",
    ),
    "cms": (
        _named("cms", m=SKETCH_M, hashes=SKETCH_HASHES),
        f"Count Mean Sketch, m = {SKETCH_M}, K = {SKETCH_HASHES} hashes, hash seed 0",
    ),
    "hcms": (
        _named("hcms", m=SKETCH_M, hashes=SKETCH_HASHES),
        f"Hadamard Count Mean Sketch, m = {SKETCH_M}, K = {SKETCH_HASHES} hashes, hash seed 0",
    ),
    "rappor": (
        _rappor,
        f"one-time RAPPOR, m = {RAPPOR_M}, h = {RAPPOR_H}, hash seed 0, eps_inf = eps",
    ),
    **{
        v: (_longitudinal(v), f"{v.upper()}: one report at eps_1 = eps, eps_perm = 2 eps")
        for v in ("l_grr", "l_sue", "l_oue", "l_osue", "l_soue")
    },
}


# ------------------------------------------------------------------- representations
class _Oracle:
    """One oracle of a cell: its protocol and the representations the routes use."""

    def __init__(self, name: str, P: Any) -> None:
        self.name = name
        self.P = P
        try:
            self.symmetric: SymmetricChannel | None = P.symmetric()
        except QifldpError:
            self.symmetric = None
        self._explicit: Channel | None = None
        self._explicit_reason: str | None = None

    def n_outputs(self) -> float:
        """Outputs of the explicit channel the atlas would build (inf when too many)."""
        S = self.symmetric
        if S is not None:
            lg = S.log10_n_explicit_outputs(True)
            return 10.0**lg if lg < 300 else math.inf
        C = self.explicit()
        return math.inf if C is None else C.shape[1]

    def explicit(self) -> Channel | None:
        """The explicit channel (symmetric ones lumped), None beyond the budget."""
        if self._explicit is not None or self._explicit_reason is not None:
            return self._explicit
        S = self.symmetric
        try:
            if S is not None:
                if self.n_outputs() > ATLAS_MAX_OUTPUTS:
                    raise _TooLarge
                self._explicit = S.expand(lumped=True)
            else:
                # one output per distinct column where the protocol offers it (equivalent)
                merged = getattr(self.P, "merged_channel", None)
                C = merged() if callable(merged) else self.P.channel()
                if C.shape[1] > ATLAS_MAX_OUTPUTS:
                    raise _TooLarge
                self._explicit = C
        except _TooLarge:
            self._explicit_reason = (
                f"{self.name}'s explicit channel exceeds {ATLAS_MAX_OUTPUTS} outputs"
            )
        except QifldpError as exc:  # refused by the protocol's own size rule: say which
            self._explicit_reason = f"{self.name}'s explicit channel is refused: {str(exc)[:200]}"
        return self._explicit

    def restrictable(self) -> Any:
        """For the restriction route: the symmetric channel built once, else the protocol."""
        S = self.symmetric
        return S if S is not None and S.constant_ratio() else self.P

    def best(self) -> Any:
        """The representation whose measures are cheapest (symmetric where offered)."""
        return self.symmetric if self.symmetric is not None else self.explicit()


class _TooLarge(Exception):
    pass


# ------------------------------------------------------------------------- one pair
def _row(
    a: str,
    b: str,
    holds: bool | None,
    route: str,
    result: Any,
    seconds: float,
    reason: str | None = None,
) -> dict[str, Any]:
    ce = getattr(result, "counterexample", result if isinstance(result, Counterexample) else None)
    witness = getattr(result, "witness", None)
    # decided only in rational arithmetic on the stored floats, by a gap below float
    # resolution: true of the channels as stored, and the protocols themselves may refine
    # (a negative route's counterexample has an exact gap only where its bound did not decide)
    boundary = bool(
        holds is False and getattr(result, "exact", False) and result.about == "channels"
    ) or (holds is False and isinstance(result, Counterexample) and result.gap_exact is not None)
    return {
        "a": a,
        "b": b,
        "holds": holds,
        "route": route,
        "certified_by": str(getattr(result, "certified_by", route)) if result is not None else None,
        "certificate": "" if result is None else certificate_digest(witness if ce is None else ce),
        "gap": None if ce is None else float(ce.gap),
        "via": None,
        "rounding_boundary": boundary,
        "reason": reason,
        "seconds": seconds,
    }


def _negative(A: _Oracle, B: _Oracle, k: int, t0: float) -> dict[str, Any] | None:
    """A ⋢ B by the capacity or a two-point prior, on the cheapest representations."""
    XA, XB = A.best(), B.best()
    if XA is None or XB is None:
        return None
    for name, test in (
        ("capacity", functools.partial(capacity_test, k=k)),
        ("pair test", pair_test),
    ):
        ce = test(XA, XB)
        if ce is not None:
            return _row(A.name, B.name, False, name, ce, time.perf_counter() - t0)
    return None


def _channel_free(A: _Oracle, B: _Oracle, t0: float) -> dict[str, Any] | None:
    """A ⊑ B decided from the protocols' structure
    (:func:`~qifldp.protocols.structure.channel_free.channel_free_decision`), or None."""
    free = channel_free_decision(A.P, B.P, A.symmetric, B.symmetric)
    if free is None:
        return None
    ce = free.counterexample
    row = _row(A.name, B.name, free.holds, free.route, ce, 0.0)
    row.update(
        certified_by=free.certified_by,
        certificate=certificate_digest(ce if ce is not None else free.values),
        seconds=time.perf_counter() - t0,
    )
    if free.route in ("invariant gain", "hyperplane gain"):  # exact, far above rounding
        row["rounding_boundary"] = False
    return row


def _grr_inverse(A: _Oracle, B: _Oracle, k: int, t0: float) -> dict[str, Any] | None:
    """A ⊑ B for a GRR-type A by W = A^-1 B (:mod:`qifldp.symmetric.grr_inverse`, within
    its work rule, checked before B's explicit channel is built)."""
    SA = A.symmetric
    if SA is None or not is_grr_type(SA) or B.symmetric is not None:
        return None
    if k * k * B.n_outputs() > GRR_INVERSE_MAX_WORK:
        return None
    Bx = B.explicit()
    if Bx is None:
        return None
    found = grr_inverse_witness(SA, Bx)
    if found is None:
        return None
    row = _row(A.name, B.name, True, "GRR inverse", None, 0.0)
    row.update(
        certified_by=found.certified_by,
        certificate=certificate_digest(found.W),
        seconds=time.perf_counter() - t0,
    )
    return row


def _restriction(
    A: _Oracle, B: _Oracle, time_limit: float, t0: float
) -> tuple[dict[str, Any] | None, str]:
    """A ⋢ B proved on a few inputs
    (:func:`~qifldp.protocols.structure.restriction.restriction_refutation`, in
    :data:`~qifldp.protocols.structure.restriction.RESTRICTION_SHARE` of the time limit),
    or None and why not."""
    budget = RESTRICTION_SHARE * time_limit
    try:
        found = restriction_refutation(A.restrictable(), B.restrictable(), time_limit=budget)
    except QifldpError as exc:  # a restricted channel refused (its size rule): say so
        return None, f"the restriction route: {type(exc).__name__}: {str(exc)[:160]}"
    if found is None:
        if time.perf_counter() - t0 >= budget:
            return None, f"the restriction route ran out of its {budget:g} s"
        sizes = ", ".join(map(str, RESTRICTION_SIZES))
        return None, f"no restriction to {sizes} inputs separates them"
    row = _row(A.name, B.name, False, "restriction", found.counterexample, 0.0)
    # proved with its gap above the restricted channels' rounding bound: not a boundary
    row.update(
        certified_by=found.certified_by,
        rounding_boundary=False,
        seconds=time.perf_counter() - t0,
    )
    return row, ""


def _posterior_mixing(A: _Oracle, B: _Oracle, t0: float) -> tuple[dict[str, Any] | None, str]:
    """A ⊑ B by posterior mixing where A has no symmetric channel and B a symmetric one of
    sizes in {0, 1, k-1, k} (GRR, L-GRR, dBitFlipPM with d = 1, b = k): the row, or None
    and why not ("" where the route does not apply). The witness is
    :func:`~qifldp.symmetric.posterior_mixing.posterior_mixing_witness`'s on A's explicit
    channel (the exact Gram form, without the channel, is a route of
    :mod:`qifldp.protocols.structure.channel_free`, tried before)."""
    S = B.symmetric
    if A.symmetric is not None or S is None or not S.singles_out_one_input():
        return None, ""
    C = A.explicit()
    if C is None:
        why = f"posterior mixing: {A._explicit_reason}"
    elif S.k * S.k * C.shape[1] > POSTERIOR_MIXING_MAX_WORK:
        why = (
            f"posterior mixing: its Gram matrix A Aᵀ would cost {S.k} x {S.k} x {C.shape[1]} "
            f"products (> POSTERIOR_MIXING_MAX_WORK = {POSTERIOR_MIXING_MAX_WORK})"
        )
    else:
        try:
            res = posterior_mixing_witness(C, S)
            why = "posterior mixing does not reach B (Gram matrix or W >= 0)"
        except QifldpError as exc:  # the witness past its size rule: say so
            res, why = None, f"posterior mixing: {type(exc).__name__}: {str(exc)[:160]}"
        if res is not None:
            return _row(A.name, B.name, True, "posterior mixing", res, time.perf_counter() - t0), ""
    return None, why


#: The atlas's names of the routes of :func:`qifldp.sweeps.routes.refinement_routes`.
_ROUTE_NAMES: Mapping[str, str] = {SYMMETRIC: "orbit LP", EXPLICIT: "explicit LP"}


def _decide_pair(A: _Oracle, B: _Oracle, k: int, time_limit: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    symmetric = (A.symmetric is not None, B.symmetric is not None)
    restricted = ""
    if not all(symmetric):  # first what the protocols' structure decides, without channels
        found = _channel_free(A, B, t0)
        if found is not None:
            return found
    if not all(symmetric):
        # a mixed pair: the cheap certificates of a failure first, then the explicit LP
        found = _negative(A, B, k, t0)
        if found is not None:
            return found
        # then a failure on a few inputs, cheap at any k (before the whole explicit LP)
        found, restricted = _restriction(A, B, time_limit, t0)
        if found is not None:
            return found
        found = _grr_inverse(A, B, k, t0)  # GRR-type A: its inverse decides "holds"
        if found is not None:
            return found
        # then a witness by posterior mixing where B singles out one input per column
        found, mixing = _posterior_mixing(A, B, t0)
        if found is not None:
            return found
        if mixing:
            restricted = f"{restricted}; {mixing}" if restricted else mixing
    outputs = [o.n_outputs() for o in (A, B)]
    routes, why = refinement_routes(
        symmetric,
        [n if n <= ATLAS_MAX_OUTPUTS else None for n in outputs],
        max_witness=ATLAS_MAX_WITNESS,
        explicit_budget=f"{ATLAS_MAX_OUTPUTS} outputs",
    )
    errors = []
    for route in routes:
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0:
            errors.append(f"{_ROUTE_NAMES[route]}: no time left of time_limit = {time_limit:g} s")
            break
        X, Y = (A.symmetric, B.symmetric) if route == SYMMETRIC else (A.explicit(), B.explicit())
        if X is None or Y is None:
            errors.append(f"{_ROUTE_NAMES[route]}: {A._explicit_reason or B._explicit_reason}")
            continue
        try:
            res = _decide(X, Y, left, hard=True)
            name = _ROUTE_NAMES[route]
            return _row(A.name, B.name, bool(res.holds), name, res, time.perf_counter() - t0)
        except Exception as exc:  # noqa: BLE001 - recorded as the reason
            errors.append(f"{_ROUTE_NAMES[route]}: {type(exc).__name__}: {str(exc)[:160]}")
    if all(symmetric):
        found = _negative(A, B, k, t0)
        if found is not None:
            return found
    else:
        errors.append(restricted)
    if not routes:
        sizes = f"{A.name}: {outputs[0]:.3g} outputs, {B.name}: {outputs[1]:.3g}"
        lacking = [o.name for o in (A, B) if o.symmetric is None]
        refused = [o._explicit_reason for o in (A, B) if o._explicit_reason is not None]
        errors.append(
            f"no route proves refinement: {', '.join(lacking)} has no symmetric channel "
            f"and {'; '.join(why)} ({sizes}; <= {ATLAS_MAX_WITNESS} witness entries"
            + "".join(f"; {r}" for r in refused)
            + (
                "); neither the capacity nor a two-point prior separates them"
                if all(o.best() is not None for o in (A, B))
                else "); without a channel neither the capacity nor a two-point prior is tried"
            )
        )
    return _row(A.name, B.name, None, "", None, time.perf_counter() - t0, "; ".join(errors))


# ------------------------------------------------------------------------ one cell
def _check_names(names: Any) -> list[str]:
    if names is None:
        return list(ATLAS_ORACLES)
    if isinstance(names, str) or not isinstance(names, Sequence):
        msg = f"names must be a sequence of oracle names, got {type(names).__name__}"
        raise InputTypeError(msg)
    out = list(names)
    bad = [n for n in out if n not in ATLAS_ORACLES]
    if bad or len(set(out)) != len(out) or len(out) < 2:
        msg = (
            f"names must be two or more distinct names of ATLAS_ORACLES "
            f"({', '.join(ATLAS_ORACLES)}), got {out!r}"
        )
        raise ParameterError(msg)
    return out


def _known_rows(known: Any, order: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """The stored verdicts of a cell, keyed by ordered pair, ``holds`` as True/False/None."""
    if known is None:
        return {}
    if not isinstance(known, Mapping):
        msg = f"known must be a mapping (a, b) -> row, got {type(known).__name__}"
        raise InputTypeError(msg)
    out = {}
    for pair, row in known.items():
        if not (isinstance(pair, tuple) and len(pair) == 2 and set(pair) <= set(order)):
            msg = f"known's keys must be ordered pairs of the cell's names, got {pair!r}"
            raise ParameterError(msg)
        if not isinstance(row, Mapping) or "holds" not in row:
            msg = f"known[{pair!r}] must be a row with a 'holds' entry"
            raise ParameterError(msg)
        holds = row["holds"]
        if holds is not None and not isinstance(holds, (bool, np.bool_)):
            if isinstance(holds, float) and math.isnan(holds):  # a CSV's empty cell
                holds = None
            else:
                msg = f"known[{pair!r}]['holds'] must be True, False or None, got {holds!r}"
                raise ParameterError(msg)
        a, b = pair
        out[pair] = {**row, "a": a, "b": b, "holds": None if holds is None else bool(holds)}
    return out


def atlas_cell(
    k: int,
    eps: float,
    names: Sequence[str] | None = None,
    *,
    time_limit: float = 30.0,
    known: Mapping[tuple[str, str], Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Every ordered pair of the oracles at one (k, eps), decided or stated undecided.

    Parameters
    ----------
    k : int
        Domain size, >= 2.
    eps : float
        The oracles' common eps (each builder's convention: :data:`ATLAS_ORACLES`).
    names : sequence of str, optional
        Names of :data:`ATLAS_ORACLES` (default: all).
    time_limit : float
        Seconds per LP (stopped at :func:`hard_time_limit`).
    known : mapping, optional
        Verdicts already decided, (a, b) -> a row as returned (at least ``holds``;
        a stored table's NaN read as None): kept as they are, not decided again, and
        part of the chains that settle the rest (how oracles are added to a stored
        atlas without recomputing its pairs).

    Returns
    -------
    dict
        ``pairs``: one dict per ordered pair (``a``, ``b``, ``holds`` (a ⊑ b; None when
        undecided), ``route``, ``certified_by``, ``certificate`` (its digest), ``gap``,
        ``via`` (the middle oracle of an inferred verdict), ``rounding_boundary`` (a
        failure decided only in rational arithmetic on the stored floats, by a gap below
        float resolution: the protocols themselves may refine), ``reason``, ``seconds``);
        ``oracles``: per name its ``bayes_capacity``, ``ldp_epsilon`` (on its channel,
        or its closed forms where no channel fits the budget; None where neither
        answers) and ``symmetric``; ``edges`` (the Hasse diagram, u ⊑ v), ``equivalent`` (classes),
        ``decided`` and ``pairs_total``.

    Raises
    ------
    ParameterError
        Unknown names, fewer than two; parameters the protocols refuse.
    InputTypeError
        ``names`` not a sequence.

    Examples
    --------
    >>> cell = atlas_cell(2, 1.0, names=("sue", "l_sue"))
    >>> cell["equivalent"], cell["decided"]
    ([['sue', 'l_sue']], 2)
    >>> known = {(r["a"], r["b"]): r for r in cell["pairs"]}
    >>> more = atlas_cell(2, 1.0, names=("sue", "l_sue", "grr"), known=known)
    >>> [r["route"] for r in more["pairs"]][:2] == [r["route"] for r in cell["pairs"]]
    True
    """
    order = _check_names(names)
    time_limit = _check_seconds("time_limit", time_limit)
    stored = _known_rows(known, order)
    oracles = {n: _Oracle(n, ATLAS_ORACLES[n][0](k, eps)) for n in order}
    info = {n: _oracle_info(o) for n, o in oracles.items()}
    rows = {
        (a, b): stored[(a, b)]
        if (a, b) in stored
        else _decide_pair(oracles[a], oracles[b], k, time_limit)
        for a, b in itertools.permutations(order, 2)
    }
    G = hasse_diagram(order, {p: r["holds"] for p, r in rows.items()})
    for p, via in G.graph["inferred"].items():
        row = rows[p]
        row.update(holds=G.graph["status"][p], route="transitivity", via=via)
        row["reason"] = None
    decided = sum(r["holds"] is not None for r in rows.values())
    return {
        "k": k,
        "eps": eps,
        "pairs": list(rows.values()),
        "oracles": info,
        "edges": sorted([list(e) for e in G.edges()]),
        "equivalent": [list(c) for c in G.graph["equivalent"]],
        "inconsistent": [list(p) for p in G.graph["inconsistent"]],
        "decided": decided,
        "pairs_total": len(rows),
    }


def _oracle_info(o: _Oracle) -> dict[str, Any]:
    """An oracle's Bayes capacity and true eps: on its cheapest channel, or from its closed
    forms where it has no channel within the budget (None where neither answers)."""
    C = o.best()
    values: dict[str, float | None]
    if C is not None:
        values = {"bayes_capacity": float(bayes_capacity(C)), "ldp_epsilon": float(ldp_epsilon(C))}
    else:
        values = {}
        for key in ("bayes_capacity", "ldp_epsilon"):
            try:
                values[key] = float(getattr(o.P.closed_form, key)())
            except (QifldpError, AttributeError):  # no closed form, or refused for size
                values[key] = None
    return {**values, "symmetric": o.symmetric is not None}


def _cell_point(
    k: int, eps: float, *, names: list[str], time_limit: float, known: Mapping[Any, Any]
) -> dict[str, Any]:
    cell = atlas_cell(k, eps, names, time_limit=time_limit, known=known.get((k, eps)))
    return {"cell": cell}


def oracle_atlas(
    ks: Any,
    epss: Any,
    names: Sequence[str] | None = None,
    *,
    time_limit: float = 30.0,
    executor: Any = None,
    progress: bool = True,
    known: Any = None,
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The atlas over a grid: :func:`atlas_cell` at every (k, eps), through :func:`sweep`.

    Parameters
    ----------
    ks : list of int
        Domain sizes, each >= 2.
    epss : list of float
        Values of eps.
    names : sequence of str, optional
        Names of :data:`ATLAS_ORACLES` (default: all).
    time_limit : float
        Seconds per LP.
    executor, progress
        As for :func:`sweep`.
    known : pandas.DataFrame, optional
        A stored atlas table (columns ``k``, ``eps``, ``a``, ``b``, ``holds`` and the
        rest): its verdicts are kept and only the other pairs decided
        (:func:`atlas_cell`'s ``known``), e.g. after oracles are added to
        :data:`ATLAS_ORACLES`.

    Returns
    -------
    (pandas.DataFrame, list of dict)
        One row per ordered pair and cell (``k``, ``eps`` then the pair columns of
        :func:`atlas_cell`); and the cells themselves (their oracles, Hasse edges and
        equivalence classes). A cell that raised gets rows with ``holds`` None and the
        error as their reason.

    Examples
    --------
    >>> import concurrent.futures as cf
    >>> with cf.ThreadPoolExecutor(1) as pool:
    ...     table, cells = oracle_atlas([2], [1.0], ("grr", "sue"), executor=pool,
    ...                                 progress=False)
    >>> table[["a", "b", "holds"]].values.tolist()
    [['grr', 'sue', True], ['sue', 'grr', False]]
    """
    import pandas as pd

    order = _check_names(names)
    k_list = _values("ks", ks, integer=True)
    eps_list = _values("epss", epss, integer=False)
    time_limit = _check_seconds("time_limit", time_limit)
    stored: dict[tuple[int, float], dict[tuple[str, str], dict[str, Any]]] = {}
    if known is not None:
        if not isinstance(known, pd.DataFrame):
            msg = f"known must be a pandas DataFrame (a stored atlas), got {type(known).__name__}"
            raise InputTypeError(msg)
        for r in known.to_dict("records"):
            if r["a"] in order and r["b"] in order:
                key = (int(r["k"]), float(r["eps"]))
                stored.setdefault(key, {})[(r["a"], r["b"])] = r
    fn = functools.partial(_cell_point, names=order, time_limit=time_limit, known=stored)
    table = sweep(fn, {"k": k_list, "eps": eps_list}, executor=executor, progress=progress)
    rows: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    for point in table.to_dict("records"):
        cell = point.get("cell")
        if not isinstance(cell, dict):
            error = point.get("error") or "no result"
            for a, b in itertools.permutations(order, 2):
                rows.append(
                    {
                        "k": point["k"],
                        "eps": point["eps"],
                        "a": a,
                        "b": b,
                        "holds": None,
                        "route": "",
                        "reason": f"cell failed: {error}",
                    }
                )
            continue
        cells.append(cell)
        rows.extend({"k": cell["k"], "eps": cell["eps"], **r} for r in cell["pairs"])
    return pd.DataFrame(rows), cells
