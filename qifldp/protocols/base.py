"""The protocol object: one frozen object per parameterised frequency oracle.

Like a frozen scipy.stats distribution, a :class:`Protocol` validates and computes
its parameters once, at construction, and answers every view of the protocol
from them: the explicit, symmetric and symbolic channels, the client's sampler,
the server's estimator and its variance, the attack, and the published closed
forms. The base class implements what is generic (freezing, equality, hashing,
the representation, the variance from the support probabilities, the ASR from
the Bayes capacity); each family (:mod:`.grr`, :mod:`.ss`, :mod:`.lh`,
:mod:`.ue`, :mod:`.the`) overrides only what it computes itself.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from ..attributes import EqualByKey, ReadOnly
from ..channel import Channel, check_size
from ..errors import InputTypeError, ParameterError, UnsupportedKindError
from ..reduction import merge_equal_columns
from ..simulation import frequency_variance
from ..symbolic import SymbolicChannel
from ..symbolic.measures import bayes_capacity as symbolic_bayes_capacity
from ..symmetric import SymmetricChannel
from ..validation import check_indices

if TYPE_CHECKING:
    import sympy as sp


__all__ = [
    "Frozen",
    "Protocol",
    "NotLumpable",
    "integer_reports",
    "PQSupport",
    "ClosedForm",
    "EpsAttained",
    "size_alternative",
    "ue_log_ratio",
    "no_options",
    "check_bit_width",
    "refuse_unknown",
    "no_symmetric_channel",
    "Rows",
    "restricted_channel",
]

#: The rows of a channel at some inputs, before their equal columns are merged:
#: (matrix, labels, counts). ``labels(cols)`` gives the original output labels of the
#: given columns; ``counts`` (None: 1 each) how many original columns each column
#: stands for (a protocol that builds its rows already grouped).
Rows = tuple[np.ndarray, Callable[[np.ndarray], list], "np.ndarray | None"]


def restricted_channel(inputs: Sequence[int], rows: Rows) -> Channel:
    """The channel of ``rows`` at ``inputs``, its exactly equal columns merged (their sum)
    and its all-zero columns dropped (:func:`qifldp.reduction.merge_equal_columns`).

    Outputs are labelled by the original output label of each group's first column,
    groups in the order of their first column.

    Examples
    --------
    >>> M = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]])
    >>> C = restricted_channel([3, 1], (M, lambda cols: [f"y{c}" for c in cols], None))
    >>> C.inputs, C.outputs, C.matrix.tolist()
    ((3, 1), ('y0', 'y1', 'y2'), [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]])
    """
    matrix, labels, counts = rows
    red = merge_equal_columns(matrix, counts)
    kept = np.flatnonzero(red.group_of >= 0)
    firsts = np.full(red.matrix.shape[1], red.group_of.size)
    np.minimum.at(firsts, red.group_of[kept], kept)
    return Channel(red.matrix, inputs=list(inputs), outputs=labels(firsts))


def size_alternative(name: str, signature: str, formula: str) -> str:
    """The "use instead" text of a size error: the symmetric twin and the closed form.

    Parameters
    ----------
    name : str
        Name of the constructor in ``qifldp.symmetric``.
    signature : str
        Its arguments, as shown to the user.
    formula : str
        Name of the closed form in ``qifldp.formulas``.

    Returns
    -------
    str

    Examples
    --------
    >>> size_alternative("oue", "k, eps", "bayes_capacity_oue")  # doctest: +ELLIPSIS
    'the symmetric representation qifldp.symmetric.oue(k, eps) ...bayes_capacity_oue'
    """
    return (
        f"the symmetric representation qifldp.symmetric.{name}({signature}) (no size limit) "
        f"or the closed form qifldp.formulas.{formula}"
    )


def refuse_unknown(
    given: Iterable[str],
    allowed: Iterable[str],
    error: type[Exception],
    message: Callable[[str], str],
) -> None:
    """Raise ``error(message(got))`` when ``given`` names anything outside ``allowed``.

    ``got`` is the unknown names, sorted and comma-separated. The one check of parameter
    names shared by :func:`qifldp.protocol`, :meth:`Protocol.symbolic` and the CLI's specs.

    Examples
    --------
    >>> refuse_unknown(["eps"], ("eps", "theta"), ValueError, "unknown: {}".format)
    >>> refuse_unknown(["b", "a", "eps"], ("eps",), ValueError, "unknown: {}".format)
    Traceback (most recent call last):
    ...
    ValueError: unknown: a, b
    """
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise error(message(", ".join(unknown)))


class Frozen(EqualByKey):
    """A value object: attributes set once, then frozen; equal and hashed by ``_key()``.

    Subclasses (the protocol objects) set their slots once in ``__init__`` with
    :meth:`_set`. Two objects are equal when they are of the same type with equal
    keys. A subclass that names its constructor's arguments in ``_fields`` (each
    stored in the slot ``"_" + name``) gets ``_key()`` (their values), a repr
    ``Name(field=value, ...)`` (a None value left out) and pickling by calling the
    class with the key; it overrides any of them that differ.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("grr", 3, 1.0)
    >>> P == q.protocol("grr", 3, 1.0), hash(P) == hash(q.protocol("grr", 3, 1.0))
    (True, True)
    >>> P.k = 4
    Traceback (most recent call last):
    ...
    AttributeError: GRR is frozen: cannot set 'k' (build a new one)
    """

    __slots__ = ()
    #: The constructor's arguments, in order, each stored in the slot ``"_" + name``.
    _fields: tuple[str, ...] = ()

    def __setattr__(self, attr: str, value: Any) -> None:
        msg = f"{type(self).__name__} is frozen: cannot set {attr!r} (build a new one)"
        raise AttributeError(msg)

    def __delattr__(self, attr: str) -> None:
        msg = f"{type(self).__name__} is frozen: cannot delete {attr!r}"
        raise AttributeError(msg)

    def _set(self, **values: Any) -> None:
        """Set the slots named by the keywords, past the frozen ``__setattr__`` (in order)."""
        for attr, value in values.items():
            object.__setattr__(self, attr, value)

    def _key(self) -> tuple:
        return tuple(getattr(self, "_" + name) for name in self._fields)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}"
            for name, value in zip(self._fields, self._key(), strict=True)
            if value is not None
        )
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple:
        return (type(self), self._key())


class Protocol(Frozen, abc.ABC):
    """A frequency oracle with fixed parameters: frozen, hashable, equal by name and parameters.

    Build one with :func:`qifldp.protocol` (or a family class: :class:`~qifldp.protocols.GRR`,
    :class:`~qifldp.protocols.SS`, :class:`~qifldp.protocols.LH`,
    :class:`~qifldp.protocols.UE`, :class:`~qifldp.protocols.THE`). Bad parameters
    raise at construction, exactly as the flat constructors (``qifldp.grr`` ...) do.

    Attributes
    ----------
    name : str
        The protocol's name (``"grr"``, ``"ss"``, ``"lh"``, ``"blh"``, ``"olh"``,
        ``"ue"``, ``"sue"``, ``"oue"``, ``"the"``).
    k : int
        Domain size; inputs are 0..k-1.
    eps : float
        The privacy parameter (for ``"ue"``, the LDP epsilon of its p and q).
    params : dict
        The paper's parameters (p, q and omega / g / theta where they apply).

    Notes
    -----
    Assigning or deleting an attribute raises ``AttributeError``; two protocols
    are equal (and hash alike) when their names and parameters are equal, so
    they can be dictionary keys and set members.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("oue", 4, 1.0)
    >>> P
    protocol('oue', k=4, eps=1.0)
    >>> P == q.protocol("oue", 4, 1.0), P == q.protocol("sue", 4, 1.0)
    (True, False)
    >>> P.name, P.k, P.eps, round(P.params["q"], 6)  # q = 1 / (e + 1)
    ('oue', 4, 1.0, 0.268941)
    >>> sorted(q.protocol("ss", 10, 1.0).params)
    ['omega', 'p', 'q']
    >>> P = q.protocol("olh", 5, 1.0)  # a variant's name, not its class's
    >>> type(P).__name__, P.name
    ('LH', 'olh')
    >>> round(q.protocol("ue", 5, p=0.75, q=0.25).eps, 6)  # ln 9
    2.197225
    """

    __slots__ = ("_name", "_k", "_eps", "_params", "_args", "_log")
    _name: str
    _k: int
    _eps: float
    _params: dict[str, Any]
    _args: dict[str, Any]
    _log: tuple[float, ...]

    def _freeze(
        self,
        name: str,
        k: int,
        eps: float,
        params: Mapping[str, Any],
        args: Mapping[str, Any],
        log: tuple[float, ...] = (),
    ) -> None:
        """Store the validated parameters once (``args``: what the repr shows).

        ``log`` holds the log-space parameters of :mod:`qifldp.protocols.params`
        (``log_grr`` ...) that :meth:`symmetric` builds from; they are not part of
        the protocol's identity (they are a function of the parameters).
        """
        self._set(_name=name, _k=k, _eps=eps, _params=dict(params), _args=dict(args))
        self._set(_log=tuple(log))

    def _key(self) -> tuple:
        return (self._name, self._k, self._eps, tuple(self._params.items()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self._args.items())
        return f"protocol({self._name!r}, k={self._k}, {shown})"

    def __reduce__(self) -> tuple:
        return (_rebuild, (type(self), self._name, self._k, dict(self._args)))

    # ---------------------------------------------------------------- parameters
    name = ReadOnly[str]("The protocol's name, e.g. ``\"oue\"`` (a variant's, not its class's).")
    k = ReadOnly[int]("The domain size: inputs are 0..k-1.")
    eps = ReadOnly[float](
        'The privacy parameter eps (for ``"ue"``: ln(p (1 - q) / ((1 - p) q)), maybe inf).'
    )
    params = ReadOnly[dict[str, Any]](
        "The paper's parameters: p, q and omega / g / theta where they apply (a new dict).",
        read=dict,
    )

    # ---------------------------------------------------------------- representations
    @abc.abstractmethod
    def channel(self) -> Channel:
        """The explicit :class:`~qifldp.Channel` (size-guarded; labels as the flat constructor).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("grr", 3, 1.0).channel().shape
        (3, 3)
        """

    def restricted(self, inputs: Sequence[int]) -> Channel:
        """The channel's rows at ``inputs``, exactly equal columns merged, zero columns dropped.

        If A ⊑ B then A restricted to any rows refines B restricted to the same rows
        (with the same witness), so a counterexample (a gain and a prior on ``inputs``)
        found on the small restricted channels refutes A ⊑ B on the full ones. Merging
        columns that are exactly equal on these rows (adding them) is an equivalence
        for refinement: every g-vulnerability is unchanged.

        Parameters
        ----------
        inputs : sequence of int
            Distinct values in 0..k-1; the rows, in this order.

        Returns
        -------
        Channel
            ``len(inputs)`` rows labelled by ``inputs``. Each entry is the entry of
            :meth:`channel` at that row (the same float), or, for a merged group of n
            equal columns, n times it rounded once (the exact sum, rounded to nearest).
            An output is labelled by the :meth:`channel` output label of its group's
            first column; groups are in the order of their first column.

        Raises
        ------
        InputTypeError, ParameterError
            ``inputs`` is not a non-empty sequence of distinct integers in 0..k-1.
        SizeError
            The rows would have more than :data:`qifldp.channel.MAX_ENTRIES` entries
            before merging (by default, the full :meth:`channel` is built; a protocol
            without a symmetric channel builds only the requested rows).

        Examples
        --------
        >>> import qifldp as q
        >>> C = q.protocol("hr", 4, 1.0).restricted([2, 0])  # 8 outputs, 4 after merging
        >>> C.inputs, C.outputs, C.shape
        ((2, 0), (0, 1, 2, 3), (2, 4))
        >>> bool(np.all(C.matrix[:, 0] == 2 * q.protocol("hr", 4, 1.0).params["p"]))
        True
        """
        xs = check_indices("inputs", inputs, self._k)
        return restricted_channel(xs, self._restricted_rows(np.array(xs, dtype=np.int64)))

    def _restricted_rows(self, xs: np.ndarray) -> Rows:
        """The rows of :meth:`restricted` before merging; by default those of :meth:`channel`."""
        C = self.channel()
        outputs = C.outputs
        return C.matrix[xs], lambda cols: [outputs[c] for c in cols.tolist()], None

    def _check_restricted(self, n_rows: int, n_cols: int, what: str) -> None:
        """Refuse (SizeError) rows of :meth:`restricted` past MAX_ENTRIES, before they are built."""
        alternative = (
            "fewer inputs (the rows of a restriction are built in full before their equal "
            "columns are merged), or .closed_form"
        )
        check_size(n_rows, n_cols, f"{what}.restricted() of {n_rows} inputs", alternative)

    @abc.abstractmethod
    def symmetric(self) -> SymmetricChannel:
        """The symmetric channel of ``qifldp.symmetric`` (no size limit from enumeration).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("oue", 10**6, 1.0).symmetric().k
        1000000
        """

    @abc.abstractmethod
    def symbolic(self, **symbols: Any) -> SymbolicChannel:
        """The symbolic channel of ``qifldp.symbolic``; a parameter given here replaces its value.

        Parameters
        ----------
        **symbols
            A sympy Symbol (or a symbol name, or an exact number) for a real
            parameter of the protocol (``eps``; ``theta`` for THE; ``p``, ``q``
            for UE). Without them the channel has the protocol's numbers, made exact.

        Examples
        --------
        >>> import sympy as sp, qifldp as q
        >>> q.protocol("grr", 2, 1.0).symbolic(eps=sp.Symbol("eps")).matrix[0, 0]
        exp(eps)/(exp(eps) + 1)
        """

    def _symbols(self, symbols: Mapping[str, Any], allowed: tuple[str, ...]) -> dict[str, Any]:
        """The real parameters for the symbolic channel: stored values, replaced by ``symbols``."""
        refuse_unknown(
            symbols,
            allowed,
            InputTypeError,
            lambda got: (
                f"symbolic() of protocol {self._name!r} takes symbols for {', '.join(allowed)}, "
                f"got {got}"
            ),
        )
        values = {name: self._args[name] for name in allowed}
        values.update(symbols)
        return values

    def _symbolic_at(
        self,
        build: Callable[..., Any],
        symbols: Mapping[str, Any],
        real: tuple[str, ...],
        *names: str,
    ) -> Any:
        """``build(k, *real, *params[names])`` (a symbolic channel or closed form): the
        ``real`` parameters from ``symbols`` or the stored values (:meth:`_symbols`),
        the others as stored."""
        values = self._symbols(symbols, real)
        return build(self._k, *(values[name] for name in real), *(self._params[n] for n in names))

    # ---------------------------------------------------------------- simulation
    @abc.abstractmethod
    def sample(self, xs: Any, rng: Any = None, **options: Any) -> Any:
        """One report per user, vectorised (the fast sampler of ``qifldp.simulation``).

        Parameters
        ----------
        xs : array_like of int, shape (n,)
            The users' values in 0..k-1.
        rng : numpy.random.Generator or int, optional
            Generator or seed; None draws fresh entropy.
        **options
            Options of the family's sampler (SS: ``output``; LH: ``hash``,
            ``prime``; THE: ``method``).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("grr", 4, 50.0).sample([0, 1, 2, 3], rng=0).tolist()
        [0, 1, 2, 3]
        """

    @abc.abstractmethod
    def estimate(self, reports: Any, project: bool = False) -> np.ndarray:
        """Unbiased frequency estimate (length k) from :meth:`sample`'s reports.

        Parameters
        ----------
        reports
            The output of :meth:`sample`.
        project : bool
            Project the estimate onto the probability simplex (then biased).

        Examples
        --------
        >>> import numpy as np, qifldp as q
        >>> P = q.protocol("grr", 3, 2.0)
        >>> xs = np.repeat([0, 1, 2], [5000, 3000, 2000])
        >>> P.estimate(P.sample(xs, rng=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """

    @abc.abstractmethod
    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*): Pr[a report supports v | value v] and Pr[... | another value].

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("oue", 4, 0.0).support_probabilities()
        (0.5, 0.5)
        """

    def variance(self, n: int, f: Any = None, **options: Any) -> np.ndarray | float:
        """The variance of each estimated frequency for n users.

        Parameters
        ----------
        n : int
            Number of users, ``n >= 1``.
        f : array_like, optional
            The true frequencies; without them the variance of a value of
            frequency 0 (Wang et al.'s Var*) is returned as a float.
        **options
            As for :meth:`support_probabilities` (LH: ``hash``, ``prime``).

        Returns
        -------
        float or numpy.ndarray, shape (k,)

        Raises
        ------
        ParameterError
            eps = 0 (p* = q*: the estimator is undefined), bad ``n`` or ``f``.

        Notes
        -----
        Var[f̂_v] = [f_v p*(1 − p*) + (1 − f_v) q*(1 − q*)] / (n (p* − q*)²)
        (Wang et al., USENIX Security 2017, Eq. 2), from
        :func:`qifldp.simulation.frequency_variance`.

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("oue", 4, 1.0).variance(1000), 8)  # 4 e / (n (e - 1)^2)
        0.00368269
        """

        return frequency_variance(*self.support_probabilities(**options), n, f)

    @abc.abstractmethod
    def attack(self, reports: Any, rng: Any = None) -> np.ndarray:
        """The plausible-deniability attack: one guess of the true value per report.

        Parameters
        ----------
        reports
            As for :meth:`estimate`.
        rng : numpy.random.Generator or int, optional
            Breaks ties (uniformly).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("grr", 4, 50.0)
        >>> P.attack(P.sample([3, 1], rng=0)).tolist()
        [3, 1]
        """

    # ---------------------------------------------------------------- closed forms
    @property
    def closed_form(self) -> ClosedForm:
        """The published closed forms of this protocol (Bayes capacity, ASR, LDP epsilon).

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("grr", 4, 1.0).closed_form.bayes_capacity(), 6)  # k e / (e + 3)
        1.901468
        """
        return self._closed_form_type(self)

    _closed_form_type: Callable[[Protocol], ClosedForm]

    # ---------------------------------------------------------------- lumpability
    @property
    def lumpable(self) -> bool:
        """Whether :meth:`symmetric` gives a symmetric channel at these parameters.

        False where the protocol is not invariant under permutations of the values at
        its parameters: :meth:`symmetric` then refuses, saying why. A family lumpable
        at some parameters only (dBitFlipPM: b = k buckets, d = 1 or d = k) answers per
        protocol object.

        Examples
        --------
        >>> import qifldp as q
        >>> [q.protocol(n, 4, 1.0).lumpable for n in ("oue", "hr")]
        [True, False]
        >>> [q.protocol("dbitflip", 4, 1.0, b=b, d=d).lumpable for b, d in ((4, 1), (4, 2), (2, 1))]
        [True, False, False]
        """
        return self._lumping_refusal() is None

    def _lumping_refusal(self) -> str | None:
        """Why :meth:`symmetric` refuses at these parameters (the refusal's reason), or None
        where it gives a symmetric channel. A family lumpable at some parameters only
        overrides it and calls :meth:`_refuse_unless_lumpable` first in :meth:`symmetric`."""
        return None

    def _refuse_unless_lumpable(self) -> None:
        """Refuse :meth:`symmetric` (UnsupportedKindError, naming why) where
        :meth:`_lumping_refusal` gives a reason."""
        why = self._lumping_refusal()
        if why is not None:
            no_symmetric_channel(self._name, why)


class NotLumpable(Protocol):
    """A protocol that is not invariant under permutations of its values at any of its
    parameters: it has no symmetric channel, and :meth:`symmetric` refuses, saying why
    (``_not_lumpable``). A family lumpable at some parameters only overrides
    :meth:`Protocol._lumping_refusal` instead.

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("hr", 3, 1.0)
    >>> isinstance(P, NotLumpable), P.lumpable
    (True, False)
    """

    __slots__ = ()
    #: Why a permutation of the values does not map the protocol to itself (the
    #: refusal's message).
    _not_lumpable: str

    def _lumping_refusal(self) -> str:
        return self._not_lumpable

    def symmetric(self) -> NoReturn:
        """Not available: the protocol is not invariant under permutations of the values.

        Raises
        ------
        UnsupportedKindError
            Always; the message says why and what to use instead (``.channel()``,
            ``.closed_form``).

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("rappor", 3, m=4).symmetric()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        qifldp.errors.UnsupportedKindError: rappor has no symmetric channel: its hash table ...
        """
        no_symmetric_channel(self._name, self._not_lumpable)


class PQSupport(Protocol):
    """A protocol whose reports support the user's value with its own probability p and
    any other value with q: (p*, q*) = (p, q) of :attr:`params` (GRR, SS, UE, THE,
    dBitFlipPM; each family's docstring says what p and q are).

    Examples
    --------
    >>> import qifldp as q
    >>> [isinstance(q.protocol(n, 4, 1.0), PQSupport) for n in ("grr", "sue", "hr")]
    [True, True, False]
    """

    __slots__ = ()

    def support_probabilities(self, **options: Any) -> tuple[float, float]:
        """(p*, q*) = (p, q), the protocol's own parameters.

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("ss", 4, 1.0, omega=2)
        >>> P.support_probabilities() == (P.params["p"], P.params["q"])
        True
        """
        no_options("support_probabilities", options)
        return self._params["p"], self._params["q"]


def _rebuild(family: type[Protocol], name: str, k: int, args: dict) -> Protocol:
    """Unpickle a protocol by building it again from its family class and arguments
    (a family of several variants, LH and UE, takes the variant's name)."""
    variants = getattr(family, "_VARIANTS", ())
    return family(k, **args, **({"variant": name} if variants else {}))  # type: ignore[call-arg]


class ClosedForm(abc.ABC):
    """The closed forms of one protocol, evaluated at its parameters.

    Each family subclasses it with the formulas of its papers; every method
    cites its source. The values equal the measures of the explicit channel
    (``qifldp.bayes_capacity(P.channel())`` ...); the tests check it.

    Examples
    --------
    >>> import qifldp as q
    >>> cf = q.protocol("sue", 3, 1.0).closed_form
    >>> round(cf.bayes_capacity(), 12) == round(q.bayes_capacity(q.sue(3, 1.0)), 12)
    True
    """

    __slots__ = ("_protocol",)

    def __init__(self, protocol: Protocol) -> None:
        family = (
            getattr(protocol, "_closed_form_type", None) if isinstance(protocol, Protocol) else None
        )
        if not (isinstance(family, type) and isinstance(self, family)):
            msg = (
                f"{type(self).__name__} needs a protocol of its family, got "
                f"{protocol!r} of type {type(protocol).__name__}"
            )
            raise InputTypeError(msg)
        self._protocol = protocol

    def __repr__(self) -> str:
        return f"<closed forms of {self._protocol!r}>"

    def _by_variant(
        self, eps_forms: Mapping[str, Callable[[int, float], Any]], general: Callable[[], Any]
    ) -> float:
        """``eps_forms[name](k, eps)`` for a variant with a closed form in eps alone
        (SUE, OUE; BLH, OLH), else ``general()``, as a float."""
        P = self._protocol
        form = eps_forms.get(P.name)
        return float(general() if form is None else form(P.k, P.eps))

    def _at(self, formula: Callable[..., Any], *names: str) -> float:
        """``formula(k, eps, *params[names])`` at the protocol's values, as a float."""
        P = self._protocol
        return float(formula(P.k, P.eps, *(P.params[name] for name in names)))

    @abc.abstractmethod
    def bayes_capacity(self) -> float:
        """The multiplicative Bayes capacity ML = Σ_y max_x C[x, y].

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("oue", 3, 1.0).closed_form.bayes_capacity(), 6)
        1.399976
        """

    def symbolic_bayes_capacity(self, **symbols: Any) -> sp.Expr:
        """The sympy twin of :meth:`bayes_capacity`, exact at the protocol's parameters.

        By default Σ_y max_x of :meth:`Protocol.symbolic` (small channels); a family
        with a closed form overrides it.

        Parameters
        ----------
        **symbols
            A sympy Symbol (or its name, or an exact number) in place of a real
            parameter, as for :meth:`Protocol.symbolic`.

        Examples
        --------
        >>> import sympy as sp, qifldp as q
        >>> cf = q.protocol("oue", 3, 1.0).closed_form
        >>> abs(float(cf.symbolic_bayes_capacity(eps=sp.Integer(1))) - cf.bayes_capacity()) < 1e-12
        True
        """
        return symbolic_bayes_capacity(self._protocol.symbolic(**symbols))

    def bayes_capacity_bounds(self) -> tuple[Fraction, Fraction, str] | None:
        """Rigorous rational bounds (lo, hi) on ML and why they hold, where the channel is
        too large to enumerate; None (the default) where the family states none.

        >>> import qifldp as q
        >>> q.protocol("grr", 4, 1.0).closed_form.bayes_capacity_bounds() is None
        True
        """
        return None

    def asr(self) -> float:
        """The Bayes-optimal one-try attacker's success under a uniform prior: ML / k.

        Notes
        -----
        ASR = V1[ϑ▷C] = ML(C) / k for the uniform prior ϑ (Alvim et al.,
        *The Science of Quantitative Information Flow*, Thm 7.2: ML is attained
        by the uniform prior), as :func:`qifldp.protocols.vectorize.asr_from` for the flat
        ``asr_*`` closed forms.

        Examples
        --------
        >>> import qifldp as q
        >>> round(q.protocol("grr", 4, 1.0).closed_form.asr(), 6)  # e / (e + 3)
        0.475367
        """
        return self.bayes_capacity() / self._protocol.k

    @abc.abstractmethod
    def ldp_epsilon(self) -> float:
        """The true LDP epsilon: ln max_y max_{x, x'} C[x, y] / C[x', y].

        Examples
        --------
        >>> import qifldp as q
        >>> q.protocol("grr", 4, 1.5).closed_form.ldp_epsilon()
        1.5
        """


class EpsAttained(ClosedForm):
    """Closed forms of a protocol whose stated eps is its true LDP epsilon (the bound
    is attained); each family's docstring says why.

    Examples
    --------
    >>> import qifldp as q
    >>> names = ("grr", "ss", "olh", "oue", "hr")
    >>> [n for n in names if isinstance(q.protocol(n, 4, 1.0).closed_form, EpsAttained)]
    ['grr', 'olh', 'hr']
    """

    __slots__ = ()

    def ldp_epsilon(self) -> float:
        """eps, the protocol's stated privacy parameter (attained).

        Examples
        --------
        >>> import qifldp as q
        >>> P = q.protocol("olh", 4, 2.0)
        >>> P.closed_form.ldp_epsilon(), round(q.ldp_epsilon(P.channel()), 12)
        (2.0, 2.0)
        """
        return self._protocol.eps


def ue_log_ratio(p: float, q: float) -> float:
    """ln(p (1 - q) / ((1 - p) q)), the LDP epsilon of UE with bits p, q (inf at p = 1 or q = 0).

    Examples
    --------
    >>> round(ue_log_ratio(0.75, 0.25), 12) == round(2 * math.log(3), 12)
    True
    """
    if p >= 1.0 or q <= 0.0:
        return math.inf
    return math.log(p) + math.log1p(-q) - math.log1p(-p) - math.log(q)


def no_options(what: str, options: Mapping[str, Any]) -> None:
    """Refuse options that a family's method does not take.

    Examples
    --------
    >>> no_options("variance", {})
    >>> no_options("variance", {"hash": "uniform"})
    Traceback (most recent call last):
    ...
    qifldp.errors.InputTypeError: variance() takes no options for this protocol, got hash
    """
    if options:
        msg = f"{what}() takes no options for this protocol, got {', '.join(sorted(options))}"
        raise InputTypeError(msg)


def no_symmetric_channel(name: str, why: str) -> NoReturn:
    """Refuse ``.symmetric()`` of a protocol that is not invariant under permutations.

    Examples
    --------
    >>> no_symmetric_channel("hr", "its outputs are codewords")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.UnsupportedKindError: hr has no symmetric channel: its outputs are codewords; ...
    """
    msg = f"{name} has no symmetric channel: {why}; use .channel() or .closed_form"
    raise UnsupportedKindError(msg)


def check_bit_width(reports: Any, k: int) -> None:
    """Refuse 2-D bit reports whose width is not the protocol's k.

    Other shapes are left to the estimator's own checks.

    Examples
    --------
    >>> check_bit_width([[True, False, True]], 3)
    >>> check_bit_width([[True, False]], 3)
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: reports must have k = 3 columns (one bit per value), got 2
    """

    try:
        shape = np.shape(reports)
    except ValueError:  # ragged: the estimator's own check names it
        return
    if len(shape) == 2 and shape[1] != k:
        msg = f"reports must have k = {k} columns (one bit per value), got {shape[1]}"
        raise ParameterError(msg)


def integer_reports(
    reports: Any,
    width: int,
    what: str,
    bounds: tuple[tuple[int, int], ...] = (),
    sign: int | None = None,
    copy: bool = True,
) -> np.ndarray:
    """Reports as a checked (n, width) int64 array, n >= 1 (``what`` names a row).

    ``bounds``: (column, upper) pairs, the column's entries in 0..upper-1; ``sign``: a
    column of entries -1 or 1; ``copy=False`` keeps the reports' own integer type (no
    int64 copy of a large report matrix).

    Examples
    --------
    >>> integer_reports([[1, -1]], 2, "pairs (j, s)", bounds=((0, 4),), sign=1).tolist()
    [[1, -1]]
    >>> integer_reports([1, 2], 2, "pairs (j, s)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: reports must be a non-empty (n, 2) integer array of pairs ...
    >>> integer_reports([[4, 1]], 2, "pairs (j, s)", bounds=((0, 4),))
    Traceback (most recent call last):
    ...
    qifldp.errors.ParameterError: reports must have column 0 in 0..3 (pairs (j, s)), got 4..4
    """
    arr = np.asarray(reports)
    if arr.ndim != 2 or arr.shape[1] != width or arr.shape[0] == 0 or arr.dtype.kind not in "iu":
        msg = (
            f"reports must be a non-empty (n, {width}) integer array of {what}, got shape "
            f"{arr.shape} of {arr.dtype}"
        )
        raise ParameterError(msg)
    if copy:
        arr = arr.astype(np.int64)
    for col, upper in bounds:
        low, high = arr[:, col].min(), arr[:, col].max()
        if low < 0 or high >= upper:
            msg = f"reports must have column {col} in 0..{upper - 1} ({what}), got {low}..{high}"
            raise ParameterError(msg)
    if sign is not None and not np.all(np.abs(arr[:, sign]) == 1):
        msg = f"reports must have column {sign} in (-1, 1) ({what})"
        raise ParameterError(msg)
    return arr
