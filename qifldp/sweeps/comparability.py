"""Comparability maps: at every (k, eps), whether protocol A refines protocol B and B
refines A, with the certificates of both verdicts, through :func:`~.engine.sweep`."""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any

from ..errors import InputTypeError
from ..protocols import protocol
from ..protocols.oracles import ORACLE_NAMES, ORACLE_PARAMETERS
from ..validation import check_name
from .arguments import _check_seconds, _type_name, _values
from .certificates import CERTIFICATE_COLUMNS, _certificate, _empty_certificate
from .engine import sweep
from .time_limited import _decide, warm_refinement

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["comparability_map", "RELATIONS", "REPRESENTATIONS"]

#: The values of the ``relation`` column of :func:`comparability_map`.
RELATIONS: tuple[str, ...] = ("equivalent", "A⊑B", "B⊑A", "incomparable", "undecided")


def _protocol_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    return {key: val for key, val in params.items() if key in ORACLE_PARAMETERS.get(name, ())}


#: The representations :func:`comparability_map` decides on.
REPRESENTATIONS: tuple[str, ...] = ("protocol", "symmetric")


def _build(
    spec: Any, k: int, eps: float, params: dict[str, Any], representation: str = "protocol"
) -> Any:
    if isinstance(spec, str):
        P = protocol(spec, k, eps, **_protocol_params(spec, params))
        return P.symmetric() if representation == "symmetric" else P
    return spec(k, eps)


def _check_protocols(A: Any, B: Any) -> list[str]:
    """Check that A and B are each a protocol name or a callable; the names among them."""
    for label, spec in (("A", A), ("B", B)):
        if isinstance(spec, str):
            check_name(label, spec, ORACLE_NAMES, "protocol")
        elif not callable(spec):
            msg = (
                f"{label} must be a protocol name (str) or a callable (k, eps) -> channel, "
                f"got {_type_name(spec)}"
            )
            raise InputTypeError(msg)
    return [spec for spec in (A, B) if isinstance(spec, str)]


def _check_representation(representation: Any) -> str:
    return check_name("representation", representation, REPRESENTATIONS, "representation")


def _compare_point(
    k: int,
    eps: float,
    *,
    a: Any,
    b: Any,
    params: dict[str, Any],
    time_limit: float = 60.0,
    representation: str = "protocol",
    hard_limit: bool = False,
) -> dict:
    """The verdicts A ⊑ B and B ⊑ A at one (k, eps), with their certificates: the row
    of the map."""
    reasons = []
    verdicts: list[bool | None] = []
    certs: dict[str, Any] = {}
    try:
        A = _build(a, k, eps, params, representation)
        B = _build(b, k, eps, params, representation)
    except Exception as exc:  # noqa: BLE001 - recorded as the reason of "undecided"
        reason = f"building the protocols: {type(exc).__name__}: {exc}"
        return {
            "a_refines_b": None,
            "b_refines_a": None,
            "relation": "undecided",
            "reason": reason,
            **_empty_certificate("ab"),
            **_empty_certificate("ba"),
        }
    for label, prefix, (X, Y) in (("A⊑B", "ab", (A, B)), ("B⊑A", "ba", (B, A))):
        start = time.perf_counter()
        try:
            result = _decide(X, Y, time_limit, hard_limit)
        except Exception as exc:  # noqa: BLE001 - recorded as the reason of "undecided"
            seconds = time.perf_counter() - start
            verdicts.append(None)
            over = (
                f" (over the time limit: {seconds:.1f} s > time_limit = {time_limit:g} s)"
                if seconds > time_limit
                else ""
            )
            reasons.append(f"{label}: {type(exc).__name__}{over}: {exc}")
            certs.update(_empty_certificate(prefix, seconds))
            continue
        seconds = time.perf_counter() - start
        verdicts.append(bool(result))
        certs.update(_certificate(prefix, result, seconds))
        if result.exact and result.about == "channels" and not result.holds:
            # decided only in rational arithmetic on the stored floats (the float route
            # could not): a gap below float resolution, which says nothing of the protocols
            gap = float(result.counterexample.gap)
            reasons.append(
                f"{label} fails only exactly on the stored floats (gap {gap:.3g}, below "
                "float resolution): a rounding-boundary point, the protocols may refine"
            )
        elif result.holds and result.up_to_rounding:
            reasons.append(
                f"{label} holds up to rounding ({result.method.removeprefix('symmetric: ')}): "
                "the stored floats lie within their rounding band of the refinement "
                "boundary, a rounding-boundary point"
            )
    ab, ba = verdicts
    if ab is None or ba is None:
        relation = "undecided"
    else:
        relation = {(True, True): "equivalent", (True, False): "A⊑B", (False, True): "B⊑A"}.get(
            (ab, ba), "incomparable"
        )
    return {
        "a_refines_b": ab,
        "b_refines_a": ba,
        "relation": relation,
        "reason": "; ".join(reasons) or None,
        **certs,
    }


def comparability_map(
    A: Any,
    B: Any,
    ks: Any,
    epss: Any,
    *,
    executor: Any = None,
    progress: bool = True,
    chunksize: int | None = None,
    time_limit: float = 60.0,
    representation: str = "protocol",
    hard_limit: bool = False,
    **params: Any,
) -> pd.DataFrame:
    """Where A ⊑ B, B ⊑ A, both or neither, over a grid of (k, eps).

    At every (k, eps), the two refinements are decided by :func:`qifldp.refines` on
    the protocol objects (``qifldp.protocol(A, k, eps)``: their best representation,
    the orbit LP for symmetric pairs) or on the channels the callables return. The
    points run through :func:`sweep`, in workers warmed once (the solvers and the
    symbolic premises loaded before the first point), each refinement in the worker's
    own process under its ``time_limit``.

    Parameters
    ----------
    A, B : str or callable
        Protocol names (as :func:`qifldp.protocol` takes: ``"grr"``, ``"ss"``, ``"oue"``,
        ...) or callables ``(k, eps) -> channel`` (module-level for the default process
        pool).
    ks : list of int
        Domain sizes, each >= 2.
    epss : list of float
        Privacy parameters, each finite and >= 0.
    executor, progress, chunksize
        As for :func:`sweep`.
    time_limit : float
        Seconds per refinement, passed to :func:`qifldp.refines`, whose one deadline
        bounds the whole decision (building the explicit channels, reduction, every
        engine, the exact stage, the verification; :mod:`qifldp.deadline`). A
        direction without a verdict is recorded as ``"undecided"`` with the reason
        (the stage the limit was reached in; the seconds it took), and the map goes on.
    hard_limit : bool
        Also run each refinement in a forked child process stopped at
        :func:`hard_time_limit` (``time_limit`` + max(1 s, 25 %); a ``TimeoutError``
        when stopped): a safety net for callables whose channels take longer to build
        than the limit, at the cost of a fork per refinement (not in daemonic workers
        such as Dask's worker processes, which may not fork). Default False.
    representation : {"protocol", "symmetric"}
        What :func:`qifldp.refines` decides on for named protocols: the protocol
        objects (their best representation, explicit at small k) or their symmetric
        channels (``.symmetric()``: the orbit LP at every k, which certifies one-hot
        pairs such as SUE/OUE at large eps where explicit engines give up).
    **params
        Protocol parameters (``theta``, ``omega``, ``g``): each goes to the named
        protocols that take it.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``eps`` (k outer, eps inner), ``a_refines_b`` (A ⊑ B),
        ``b_refines_a``, ``relation`` in ``{"equivalent", "A⊑B", "B⊑A",
        "incomparable"}``, or ``"undecided"`` (a verdict None) with the failure in
        ``reason`` (which also names a direction that fails only exactly on the
        stored floats, by a gap below float resolution: a rounding-boundary point,
        where the protocols themselves may refine); then the certificate of each
        direction (prefix ``ab_`` for A ⊑ B, ``ba_`` for B ⊑ A;
        :data:`CERTIFICATE_COLUMNS`): ``certified_by``, ``about`` and
        ``up_to_rounding`` of the :class:`qifldp.RefinementResult`,
        ``exact`` (proved in rational arithmetic), ``certificate`` (the
        :func:`certificate_digest` of the witness or of the counterexample),
        ``residual`` (of the witness) or ``gap`` (of the counterexample) and
        ``seconds``; and ``error`` (a failure of the point itself, from :func:`sweep`,
        ``"cancelled"`` for points not run after Ctrl-C).

    Raises
    ------
    InputTypeError
        A or B neither a str nor callable; a parameter no named protocol takes;
        non-numeric ks or epss; bad sweep options; ``hard_limit`` not a bool.
    ParameterError
        An unknown protocol name; empty ks or epss; k < 2; eps negative or not finite;
        protocol parameters out of range (checked at the first point); ``time_limit``
        not positive and finite; an unknown ``representation``.

    Examples
    --------
    >>> import concurrent.futures as cf
    >>> import qifldp as q
    >>> with cf.ThreadPoolExecutor(2) as pool:
    ...     m = q.comparability_map("oue", "grr", [3], [0.5, 4.0], executor=pool,
    ...                             progress=False)
    >>> m[["k", "eps", "relation"]].values.tolist()
    [[3, 0.5, 'incomparable'], [3, 4.0, 'incomparable']]
    """
    import pandas as pd

    named = _check_protocols(A, B)
    for key in params:
        if not any(key in ORACLE_PARAMETERS[name] for name in named):
            msg = (
                f"comparability_map() got a parameter {key!r} that neither protocol "
                f"({', '.join(map(repr, named)) or 'none named'}) takes"
            )
            raise InputTypeError(msg)
    k_list = _values("ks", ks, integer=True)
    eps_list = _values("epss", epss, integer=False)
    # the protocols' own checks (names, parameters, sizes) at the first point, here
    for spec in (A, B):
        if isinstance(spec, str):
            _build(spec, k_list[0], eps_list[0], params)
    time_limit = _check_seconds("time_limit", time_limit)
    representation = _check_representation(representation)
    if not isinstance(hard_limit, bool):
        msg = f"hard_limit must be True or False, got {_type_name(hard_limit)}"
        raise InputTypeError(msg)
    fn = functools.partial(
        _compare_point,
        a=A,
        b=B,
        params=dict(params),
        time_limit=time_limit,
        representation=representation,
        hard_limit=hard_limit,
    )
    table = sweep(
        fn,
        {"k": k_list, "eps": eps_list},
        executor=executor,
        progress=progress,
        chunksize=chunksize,
        warm=warm_refinement,
    )
    if "relation" not in table:  # every point failed as a whole (a worker lost ...)
        table = table.drop(columns="value")
        certificate = [f"{p}_{c}" for p in ("ab", "ba") for c in CERTIFICATE_COLUMNS]
        for column in ("a_refines_b", "b_refines_a", "relation", "reason", *certificate):
            table.insert(
                len(table.columns) - 1, column, pd.Series([None] * len(table), dtype=object)
            )
        table["relation"] = "undecided"
    return table
