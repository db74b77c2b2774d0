"""The symbolic channel: a labelled sympy matrix whose entries may depend on parameters."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .lazy import mpmath as _lazy_mpmath, sympy as _lazy_sympy

if TYPE_CHECKING:
    import mpmath
    import sympy as sp
else:
    mpmath = _lazy_mpmath
    sp = _lazy_sympy

from ..attributes import EqualByKey, ReadOnly
from ..channel import Channel, LabelledRows, _labels
from ..dispatch import kind_name, remedy
from ..errors import ChannelError, InputTypeError, ParameterError, SizeError
from ..validation import check_int
from . import _sign
from .expressions import _as_domain, _label_seq, _relations, to_expr

__all__ = [
    "SymbolicChannel",
    "MAX_SYMBOLIC_ENTRIES",
    "MAX_CONVERTED_ENTRIES",
    "EVALUATE_DPS",
    "as_symbolic",
]

#: Largest number of entries of a symbolic matrix (sympy objects are ~1000 times
#: heavier than float64 entries; beyond this, use the numeric or symmetric kinds).
MAX_SYMBOLIC_ENTRIES: int = 10**6

#: Largest explicit channel (entries) the symbolic measures and operators convert
#: to exact rationals themselves (:func:`as_symbolic`); beyond it, the numeric
#: measures of ``qifldp`` answer in floating point at any size.
MAX_CONVERTED_ENTRIES: int = 10**4

#: Working precision (decimal digits) of :meth:`SymbolicChannel.evaluate`, before
#: rounding to float64: far more than enough for rows to sum to 1 within 1e-9.
EVALUATE_DPS: int = 30


class SymbolicChannel(LabelledRows, EqualByKey):
    """A channel whose entries are sympy expressions in parameters (eps, theta, ...).

    Parameters
    ----------
    matrix : sympy Matrix or nested sequence, shape (|X|, |Y|)
        Entries are numbers or sympy expressions; floats are made exact
        (``0.25 -> 1/4``).
    inputs, outputs : sequence of hashable, optional
        Row and column labels (default ``range``), as for :class:`qifldp.Channel`.
    domains : mapping, optional
        ``{symbol: interval}`` (a sympy ``Interval`` or a ``(low, high)`` pair,
        ``None`` for an infinite end): the range of each parameter. The mechanism
        constructors fill this in (eps in [0, oo), theta in (1/2, 1), p, q in
        [0, 1]); the measures use it to decide which entry of a column is larger.
    assume : iterable of sympy relationals, optional
        Further facts the measures may use, e.g. ``[p > q]``.
    validate : bool
        Check the entries and row sums (see Notes).

    Attributes
    ----------
    matrix : sympy.ImmutableMatrix
    inputs, outputs : tuple
    domains : dict
        Symbol -> sympy Interval.
    assume : tuple
        The extra relations.

    Raises
    ------
    ChannelError
        When a rule is *provably* broken: an entry that is negative, non-real or
        infinite for every parameter value, or a row whose sum differs from 1
        (decided exactly after expansion/cancellation, for one parameter by Sturm
        root counting, otherwise after ``sympy.simplify``); wrong shape or labels.
    InputTypeError
        Entries that are not numbers or sympy expressions (a string entry such
        as ``"a"`` is an error, not a symbol: pass ``sympy.Symbol("a")``);
        labels, domains or assume of the wrong type.
    ParameterError
        NaN entries.
    SizeError
        More than :data:`MAX_SYMBOLIC_ENTRIES` entries.

    Notes
    -----
    Validation of symbolic entries never raises on what it cannot decide:
    ``[[x, 1 - x]]`` is accepted (it is a channel for x in [0, 1]), while
    ``[[x, 2 - x]]`` is rejected (its row sums to 2 for every x). A row whose
    sum is neither proven 1 nor proven different is accepted and listed in
    :attr:`unverified_rows`. :meth:`evaluate` re-validates numerically.

    Examples
    --------
    >>> import sympy as sp
    >>> from qifldp.symbolic import SymbolicChannel
    >>> x = sp.Symbol("x")
    >>> C = SymbolicChannel([[x, 1 - x], [sp.Rational(1, 2), sp.Rational(1, 2)]])
    >>> C
    SymbolicChannel(2 inputs x 2 outputs; symbols: x)
    Matrix([
    [  x, 1 - x],
    [1/2,   1/2]])
    >>> C.evaluate(x=0.25).matrix
    array([[0.25, 0.75],
           [0.5 , 0.5 ]])
    >>> SymbolicChannel([[x, 2 - x]])
    Traceback (most recent call last):
    ...
    qifldp.errors.ChannelError: matrix rows must sum to 1, row 0 sums to 2
    """

    __slots__ = (
        "_matrix",
        "_inputs",
        "_outputs",
        "_domains",
        "_assume",
        "_cache",
        "_hash",
        "_unverified",
    )
    _matrix: sp.ImmutableMatrix
    _hash: int | None
    _domains: dict
    _assume: tuple

    def __init__(
        self,
        matrix: Any,
        inputs: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
        *,
        domains: Mapping[Any, Any] | None = None,
        assume: Iterable[Any] = (),
        validate: bool = True,
    ) -> None:
        if domains is not None and not isinstance(domains, Mapping):
            msg = (
                "domains must be a mapping {symbol: interval} (a sympy Interval or a "
                f"(low, high) pair), got {type(domains).__name__}"
            )
            raise InputTypeError(msg)
        assume = _relations(assume)
        if not isinstance(validate, (bool, np.bool_)):
            msg = f"validate must be True or False, got {validate!r}"
            raise InputTypeError(msg)
        if isinstance(matrix, SymbolicChannel):
            M = matrix._matrix
            inputs = matrix._inputs if inputs is None else inputs
            outputs = matrix._outputs if outputs is None else outputs
            domains = {**matrix._domains, **(domains or {})}
            assume = (*matrix._assume, *assume)
        else:
            M = self._to_matrix(matrix)
        self._matrix = M
        self._inputs = _labels("inputs", _label_seq("inputs", inputs), M.rows)
        self._outputs = _labels("outputs", _label_seq("outputs", outputs), M.cols)
        self._domains = self._check_domains(domains or {})
        self._assume = tuple(assume)
        self._cache: dict = {}
        self._hash = None
        self._unverified: tuple = ()
        if validate:
            self._validate()

    # -- construction helpers --------------------------------------------------------
    @staticmethod
    def _to_matrix(matrix: Any) -> sp.ImmutableMatrix:
        if isinstance(matrix, Channel):
            matrix = matrix.matrix
        if isinstance(matrix, sp.MatrixBase):
            rows = [[matrix[i, j] for j in range(matrix.cols)] for i in range(matrix.rows)]
        else:
            if isinstance(matrix, np.ndarray):
                matrix = matrix.tolist()
            if isinstance(matrix, (str, bytes)) or not isinstance(matrix, Iterable):
                msg = f"matrix must be a 2-D sequence or sympy Matrix, got {type(matrix).__name__}"
                raise InputTypeError(msg)
            rows = [
                list(r) if isinstance(r, Iterable) and not isinstance(r, str) else r for r in matrix
            ]
            if any(not isinstance(r, list) for r in rows):
                msg = "matrix must be 2-D (a sequence of rows)"
                raise ChannelError(msg)
        if not rows or not rows[0]:
            msg = "matrix must have at least one row and one column"
            raise ChannelError(msg)
        n = len(rows[0])
        if any(len(r) != n for r in rows):
            msg = f"matrix rows must all have the same length, got {sorted({len(r) for r in rows})}"
            raise ChannelError(msg)
        if len(rows) * n > MAX_SYMBOLIC_ENTRIES:
            msg = (
                f"a symbolic channel of {len(rows)} x {n} entries exceeds "
                f"MAX_SYMBOLIC_ENTRIES = {MAX_SYMBOLIC_ENTRIES}; use the numeric or symmetric kind"
            )
            raise SizeError(msg)
        conv = [
            [to_expr(v, f"matrix entry [{i}, {j}]", symbols=False) for j, v in enumerate(r)]
            for i, r in enumerate(rows)
        ]
        return sp.ImmutableMatrix(conv)

    @staticmethod
    def _check_domains(domains: Mapping[Any, Any]) -> dict:
        out = {}
        for s, dom in domains.items():
            sym = sp.Symbol(s) if isinstance(s, str) else s
            if not isinstance(sym, sp.Symbol):
                msg = f"domains keys must be sympy Symbols or names, got {s!r}"
                raise InputTypeError(msg)
            d = _as_domain(sym.name, dom)
            if d.is_empty:
                msg = f"the domain of {sym.name} is empty"
                raise ParameterError(msg)
            out[sym] = d
        return out

    def _validate(self) -> None:
        M = self._matrix
        doms = self._domains
        checked: dict = {}
        for i in range(M.rows):
            for j in range(M.cols):
                e = M[i, j]
                if e in checked:
                    continue
                checked[e] = True
                if e.is_number:
                    bad = e.is_extended_real is False or e.is_finite is False or e.is_negative
                    if bad:
                        msg = (
                            "matrix entries must be finite and non-negative reals, "
                            f"entry [{i}, {j}] is {e}"
                        )
                        raise ChannelError(msg)
                    continue
                d, _ = _sign.with_assumptions(e, doms)
                if d.is_extended_real is False:
                    msg = f"matrix entries must be real, entry [{i}, {j}] = {e} is not"
                    raise ChannelError(msg)
                if d.is_negative or _sign._by_intervals(e, doms) == _sign.NEG:
                    msg = f"matrix entries must be non-negative, entry [{i}, {j}] = {e} is negative"
                    raise ChannelError(msg)
        seen: dict = {}
        unverified: list[int] = []
        for i in range(M.rows):
            s = sp.Add(*M.row(i)) - 1
            if s == 0 or s in seen:
                continue
            seen[s] = True
            z = _sign.is_identically_zero(s, doms, heavy=True)
            if z is False:
                shown = sp.simplify(s + 1)
                msg = f"matrix rows must sum to 1, row {i} sums to {shown}"
                raise ChannelError(msg)
            if z is None:
                unverified.append(i)
        self._unverified = tuple(unverified)

    # -- accessors ---------------------------------------------------------------------
    @property
    def matrix(self) -> sp.ImmutableMatrix:
        """The immutable sympy matrix, shape ``(|X|, |Y|)``."""
        return self._matrix

    @property
    def free_symbols(self) -> frozenset:
        """The parameters the entries depend on."""
        return frozenset(self._matrix.free_symbols)

    @property
    def domains(self) -> dict:
        """Parameter domains, ``{Symbol: Interval}`` (a copy)."""
        return dict(self._domains)

    assume = ReadOnly[tuple]("Extra relations between parameters.")

    @property
    def unverified_rows(self) -> tuple:
        """Rows whose sum could be proven neither 1 nor different from 1 at construction.

        Validation rejects a row only when its sum is *provably* not 1; a row
        with free parameters whose sum no procedure of
        :mod:`qifldp.symbolic._sign` decides is accepted and listed here (empty
        when every row was proven to sum to 1, or when ``validate=False``).
        :meth:`evaluate` re-checks numerically.

        >>> import sympy as sp
        >>> x = sp.Symbol("x")
        >>> SymbolicChannel([[x, 1 - x]]).unverified_rows
        ()
        """
        return self._unverified

    def __getitem__(self, index: Any) -> Any:
        return self._matrix[index]

    def domain(self, symbol: sp.Symbol | str) -> sp.Set | None:
        """The interval a parameter ranges over (its domain and its assumptions).

        >>> from qifldp import symbolic
        >>> symbolic.grr(3, "eps").domain("eps")
        Interval(0, oo)
        """
        sym = self._symbol(symbol)
        return _sign.effective_domain(sym, self._domains)

    def _symbol(self, symbol: sp.Symbol | str) -> sp.Symbol:
        if isinstance(symbol, sp.Symbol):
            return symbol
        if isinstance(symbol, str):
            for s in self.free_symbols | set(self._domains):
                if s.name == symbol:
                    return s
            msg = f"{symbol!r} is not a parameter of this channel (it has {self._names()})"
            raise ParameterError(msg)
        msg = f"a parameter must be a sympy Symbol or its name, got {symbol!r}"
        raise InputTypeError(msg)

    def _names(self) -> str:
        names = sorted(s.name for s in self.free_symbols)
        return ", ".join(names) if names else "no parameters"

    # -- substitution and evaluation ------------------------------------------------
    def _substitution(self, args: tuple, kwargs: dict) -> dict:
        pairs: dict = {}
        if len(args) == 1 and isinstance(args[0], Mapping):
            items = list(args[0].items())
        elif len(args) == 2:
            items = [(args[0], args[1])]
        elif len(args) == 1 and isinstance(args[0], Iterable):
            items = list(args[0])
        elif not args:
            items = []
        else:
            msg = "subs takes a mapping, an iterable of pairs, (old, new), or keyword arguments"
            raise InputTypeError(msg)
        items += list(kwargs.items())
        for item in items:
            if isinstance(item, (str, bytes)) or not isinstance(item, Iterable):
                msg = f"subs needs (symbol, value) pairs, got {item!r}"
                raise InputTypeError(msg)
            pair = tuple(item)
            if len(pair) != 2:
                msg = f"subs needs (symbol, value) pairs, got {item!r}"
                raise InputTypeError(msg)
        for old, new in items:
            sym = self._symbol(old)
            val = to_expr(new, sym.name)
            dom = _sign.effective_domain(sym, self._domains)
            if dom is not None and val.is_number:
                if val.is_extended_real is False or dom.contains(val) == sp.false:
                    msg = f"{sym.name} = {val} is outside its domain {dom}"
                    raise ParameterError(msg)
            pairs[sym] = val
        return pairs

    def subs(self, *args: Any, **kwargs: Any) -> SymbolicChannel:
        """Substitute parameters; returns a new symbolic channel.

        Parameters
        ----------
        *args
            ``(symbol, value)``, a mapping ``{symbol: value}`` or an iterable of
            pairs; symbols may be given by name.
        **kwargs
            ``name=value`` pairs.

        Returns
        -------
        SymbolicChannel
            Domains of replaced parameters are dropped; a parameter renamed to a
            new symbol passes its domain on.

        Raises
        ------
        ParameterError
            A value outside the parameter's domain, or an unknown parameter name.

        Examples
        --------
        >>> import sympy as sp
        >>> from qifldp import symbolic
        >>> C = symbolic.grr(2, "eps").subs(eps=sp.log(3))
        >>> C.matrix
        Matrix([
        [3/4, 1/4],
        [1/4, 3/4]])
        """
        pairs = self._substitution(args, kwargs)
        M = (
            self._matrix.xreplace(pairs)
            if all(k.is_Symbol for k in pairs)
            else self._matrix.subs(pairs)
        )
        domains = {s: d for s, d in self._domains.items() if s not in pairs}
        for s, v in pairs.items():
            if isinstance(v, sp.Symbol) and s in self._domains:
                d = self._domains[s]
                domains[v] = sp.Intersection(domains[v], d) if v in domains else d
        assume = tuple(r.xreplace(pairs) for r in self._assume)
        assume = tuple(r for r in assume if isinstance(r, sp.core.relational.Relational))
        return SymbolicChannel(
            sp.ImmutableMatrix(M), self._inputs, self._outputs, domains=domains, assume=assume
        )

    def evaluate(self, *args: Any, **values: Any) -> Channel:
        """Substitute numbers for every parameter and return a numeric :class:`~qifldp.Channel`.

        Parameters
        ----------
        *args
            Optionally one mapping ``{symbol or name: value}``.
        **values
            ``name=value`` for each parameter, e.g. ``eps=1.3``.

        Returns
        -------
        Channel
            Same labels. Entries are computed at :data:`EVALUATE_DPS` digits
            (mpmath, so e^eps does not overflow) and rounded to float64.

        Raises
        ------
        ParameterError
            A parameter without a value, an unknown name, or a value outside the
            parameter's domain.
        ChannelError
            The numeric matrix is not a channel (entries negative or rows not
            summing to 1 at these values).

        Examples
        --------
        >>> from qifldp import symbolic
        >>> symbolic.grr(3, "eps").evaluate(eps=0).matrix.round(4)
        array([[0.3333, 0.3333, 0.3333],
               [0.3333, 0.3333, 0.3333],
               [0.3333, 0.3333, 0.3333]])
        """
        if len(args) > 1 or (args and not isinstance(args[0], Mapping)):
            msg = "evaluate takes at most one mapping of values, plus keyword arguments"
            raise InputTypeError(msg)
        pairs = self._substitution((args[0],) if args else (), values)
        free = self.free_symbols
        missing = sorted(s.name for s in free if s not in pairs)
        if missing:
            msg = f"evaluate needs a value for every parameter; missing: {', '.join(missing)}"
            raise ParameterError(msg)
        for s, v in pairs.items():
            if not v.is_number:
                msg = f"evaluate needs numbers, {s.name} = {v} is symbolic (use subs)"
                raise ParameterError(msg)
        syms = tuple(sorted(free, key=lambda s: s.name))
        f = self._cache.get("lambdified")
        if f is None:
            f = sp.lambdify(syms, list(self._matrix), modules="mpmath")
            self._cache["lambdified"] = f
        with mpmath.workdps(EVALUATE_DPS):
            vals = [mpmath.mpf(str(sp.N(pairs[s], EVALUATE_DPS + 5))) for s in syms]
            try:
                flat = f(*vals)
            except (ZeroDivisionError, ValueError) as exc:
                msg = f"the channel is undefined at these values: {exc}"
                raise ParameterError(msg) from None
            out = np.empty(len(flat))
            for i, v in enumerate(flat):
                v = mpmath.mpmathify(v)
                if isinstance(v, mpmath.mpc):
                    if abs(v.imag) > mpmath.mpf(10) ** (-EVALUATE_DPS + 5):
                        msg = f"entry {divmod(i, self.n_outputs)} is complex ({v}) at these values"
                        raise ChannelError(msg)
                    v = v.real
                out[i] = float(v)
        return Channel(out.reshape(self.shape), self._inputs, self._outputs)

    def to_fractions(self) -> list[list[Fraction]]:
        """The matrix as exact ``fractions.Fraction`` rows (every entry must be rational).

        Returns
        -------
        list of list of Fraction

        Raises
        ------
        ParameterError
            Parameters remain (substitute them first).
        ChannelError
            An entry is not a rational number (e.g. ``exp(1)/2``).

        Examples
        --------
        >>> import sympy as sp
        >>> from qifldp import symbolic
        >>> symbolic.grr(2, "eps").subs(eps=sp.log(3)).to_fractions()[0]
        [Fraction(3, 4), Fraction(1, 4)]
        """
        if self.free_symbols:
            msg = f"to_fractions needs a channel without parameters; it has {self._names()}"
            raise ParameterError(msg)
        rows = []
        for i in range(self.n_inputs):
            row = []
            for j in range(self.n_outputs):
                e = self._matrix[i, j]
                if not e.is_Rational:
                    e2 = sp.nsimplify(sp.simplify(e)) if e.is_algebraic is not False else e
                    if not e2.is_Rational or not _sign.is_identically_zero(e - e2):
                        msg = (
                            f"entry [{i}, {j}] = {e} is not a rational number (use "
                            ".evaluate() for a float channel)"
                        )
                        raise ChannelError(msg)
                    e = e2
                row.append(Fraction(int(e.p), int(e.q)))
            rows.append(row)
        return rows

    @classmethod
    def from_channel(cls, C: Any, max_denominator: int = 10**9) -> SymbolicChannel:
        """An exact symbolic copy of a numeric channel (floats -> nearby fractions).

        Parameters
        ----------
        C : Channel or array_like
        max_denominator : int
            Each float becomes the closest fraction with at most this denominator
            (``Fraction.limit_denominator``), so ``1/3`` in floating point becomes
            exactly 1/3.

        Raises
        ------
        ChannelError
            If the rationalised rows do not sum to exactly 1 (pass a larger
            ``max_denominator`` or give exact entries).

        Examples
        --------
        >>> from qifldp.symbolic import SymbolicChannel
        >>> SymbolicChannel.from_channel([[1/3, 2/3], [0.5, 0.5]]).matrix
        Matrix([
        [1/3, 2/3],
        [1/2, 1/2]])
        """
        max_denominator = check_int("max_denominator", max_denominator, minimum=1)
        if not isinstance(C, Channel):
            C = _as_float_channel(C, "C")
        rows = [
            [sp.Rational(Fraction(float(v)).limit_denominator(max_denominator)) for v in r]
            for r in C.matrix
        ]
        return cls(rows, C.inputs, C.outputs)

    # -- transformations ------------------------------------------------------------
    def applyfunc(self, f: Any) -> SymbolicChannel:
        """Apply ``f`` to every entry (e.g. ``sympy.simplify``); same labels and domains.

        >>> import sympy as sp
        >>> from qifldp import symbolic
        >>> symbolic.oue_bit("eps").applyfunc(sp.factor)[0, 0]
        exp(eps)/(exp(eps) + 1)
        """
        if not callable(f):
            msg = f"f must be a callable applied to each entry, got {type(f).__name__}"
            raise InputTypeError(msg)
        return SymbolicChannel(
            self._matrix.applyfunc(f),
            self._inputs,
            self._outputs,
            domains=self._domains,
            assume=self._assume,
        )

    def equals(self, other: Any) -> bool | None:
        """Entrywise mathematical equality (labels too); ``None`` when undecided.

        >>> import sympy as sp
        >>> from qifldp.symbolic import SymbolicChannel
        >>> x = sp.Symbol("x")
        >>> A = SymbolicChannel([[x, 1 - x]])
        >>> A.equals(SymbolicChannel([[(x**2 - x) / (x - 1), 1 - x]]))
        True
        """
        if not isinstance(other, SymbolicChannel):
            other = SymbolicChannel(other)
        if (
            self.shape != other.shape
            or self._inputs != other._inputs
            or self._outputs != other._outputs
        ):
            return False
        doms = {**other._domains, **self._domains}
        verdict: bool | None = True
        for a, b in zip(self._matrix, other._matrix, strict=True):
            if a == b:
                continue
            z = _sign.is_identically_zero(a - b, doms)
            if z is False:
                return False
            if z is None:
                verdict = None
        return verdict

    # -- comparison and display -----------------------------------------------------
    def _key(self) -> tuple:
        """What equality compares: labels, matrix, domains and the set of assumptions."""
        return (self._inputs, self._outputs, self._matrix, self._domains, set(self._assume))

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._matrix, self._inputs, self._outputs))
        return self._hash

    def __repr__(self) -> str:
        head = (
            f"SymbolicChannel({self.n_inputs} inputs x {self.n_outputs} outputs; "
            f"symbols: {self._names()})"
        )
        if self._matrix.rows * self._matrix.cols <= 64:
            return head + "\n" + repr(self._matrix)
        return head

    def _repr_latex_(self) -> str:
        if self._matrix.rows * self._matrix.cols > 400:
            return (
                rf"$\text{{SymbolicChannel: {self.n_inputs} inputs}} \times "
                rf"\text{{{self.n_outputs} outputs}}$"
            )

        def lab(v: Any) -> str:
            if isinstance(v, tuple) and all(isinstance(u, int) for u in v):
                return "".join(map(str, v)) if all(u in (0, 1) for u in v) else str(v)
            return sp.latex(v) if isinstance(v, (int, sp.Basic)) else rf"\text{{{v}}}"

        cols = "c" * self.n_outputs
        head = " & " + " & ".join(lab(y) for y in self._outputs) + r" \\ \hline"
        body = r" \\ ".join(
            lab(x) + " & " + " & ".join(sp.latex(self._matrix[i, j]) for j in range(self.n_outputs))
            for i, x in enumerate(self._inputs)
        )
        return rf"$\begin{{array}}{{c|{cols}}}{head} {body}\end{{array}}$"


def _exact_row(row: np.ndarray) -> list:
    """One row of a float channel as exact rationals summing to exactly 1.

    The shortest-decimal reading (``0.1 -> 1/10``, the entries as typed) when it
    sums to exactly 1; otherwise the stored binary values (``Fraction(float)``,
    exact) divided by their exact sum, i.e. the row as stored, normalised the way
    exact refinement reads channels.
    """
    dec = [sp.Rational(repr(float(v))) for v in row]
    if sp.Add(*dec) == 1:
        return dec
    fr = [Fraction(float(v)) for v in row]
    total = sum(fr)
    return [
        sp.Rational(f.numerator * total.denominator, f.denominator * total.numerator) for f in fr
    ]


def as_symbolic(C: Any, name: str = "C") -> SymbolicChannel:
    """The symbolic channel to measure or combine: convert what can be converted exactly.

    Parameters
    ----------
    C : SymbolicChannel, qifldp.Channel, numpy array, sympy Matrix or nested sequence
        A :class:`SymbolicChannel` is returned as is. An explicit
        :class:`~qifldp.Channel` (or a float array) of at most
        :data:`MAX_CONVERTED_ENTRIES` entries is converted exactly, row by row:
        the shortest-decimal reading of its floats when that row sums to exactly
        1 (``0.25 -> 1/4``), else the stored binary values divided by their exact
        sum (so ``symbolic.asr(q.grr(3, 1.0))`` is the exact ASR of the channel as
        stored, row-normalised). Nested sequences and sympy matrices go through
        the :class:`SymbolicChannel` constructor (validated).
    name : str
        The argument's name, for error messages.

    Raises
    ------
    InputTypeError
        A symmetric channel (use the numeric measures, or ``.expand()`` first),
        or anything that is not a channel or a matrix.
    SizeError
        An explicit channel of more than :data:`MAX_CONVERTED_ENTRIES` entries
        (the numeric measures answer at any size).
    ChannelError
        A matrix that is not a channel.

    Examples
    --------
    >>> import qifldp as q
    >>> as_symbolic(q.Channel([[0.75, 0.25], [0.5, 0.5]])).matrix
    Matrix([
    [3/4, 1/4],
    [1/2, 1/2]])
    """
    if isinstance(C, SymbolicChannel):
        return C
    hint = remedy(C)
    if hint is not None and callable(getattr(C, "symbolic", None)):
        # a protocol object: its own symbolic channel is what these routines take
        hint = (
            f"a protocol object is not a channel: pass {name}.symbolic() (its symbolic "
            f"channel), or {name}.channel() for the explicit one"
        )
    if hint is not None:  # another kind (symmetric) or a protocol object: its own advice
        msg = f"{name} is a {kind_name(C)}, which the symbolic routines do not convert: {hint}"
        raise InputTypeError(msg)
    if isinstance(C, np.ndarray) and C.dtype.kind in "fiu":
        C = _as_float_channel(C, name)
    if isinstance(C, Channel):
        n = C.shape[0] * C.shape[1]
        if n > MAX_CONVERTED_ENTRIES:
            msg = (
                f"{name} is an explicit channel of {C.shape[0]} x {C.shape[1]} = {n} entries; "
                f"converting more than MAX_CONVERTED_ENTRIES = {MAX_CONVERTED_ENTRIES} to "
                "exact rationals is too slow: use the numeric measures (qifldp.bayes_capacity, "
                "...) instead"
            )
            raise SizeError(msg)
        rows = [_exact_row(r) for r in C.matrix]
        return SymbolicChannel(sp.ImmutableMatrix(rows), C.inputs, C.outputs, validate=False)
    if (
        C is None
        or isinstance(C, (str, bytes, numbers.Number, Mapping, set))
        or (isinstance(C, sp.Basic) and not isinstance(C, sp.MatrixBase))
        or not (isinstance(C, (sp.MatrixBase, np.ndarray)) or isinstance(C, Iterable))
    ):
        msg = (
            f"{name} must be a SymbolicChannel, a qifldp.Channel or a 2-D matrix of exact "
            f"numbers, got {type(C).__name__}"
        )
        raise InputTypeError(msg)
    try:
        return SymbolicChannel(C)
    except (ChannelError, InputTypeError, ParameterError) as exc:
        msg = f"{name}: {exc}"
        raise type(exc)(msg) from None


def _as_float_channel(C: np.ndarray, name: str) -> Channel:
    try:
        return Channel(C)
    except (ChannelError, InputTypeError) as exc:
        msg = f"{name}: {exc}"
        raise type(exc)(msg) from None


#: What to do with a symbolic channel where an operation does not support it.
REMEDY = (
    "substitute numbers with C.evaluate(eps=...) for the explicit Channel "
    "(C.subs(...) keeps exact values, C.evaluate() a channel without parameters)"
)


def permute_inputs(C: SymbolicChannel, order: Any, labels: tuple) -> SymbolicChannel:
    """C with row ``order[i]`` moved to position i and input labels ``labels``.

    >>> permute_inputs(SymbolicChannel([[1, 0], [0, 1]]), [1, 0], ("b", "a")).matrix
    Matrix([
    [0, 1],
    [1, 0]])
    """
    M = C.matrix.extract([int(i) for i in order], list(range(C.n_outputs)))
    return SymbolicChannel(M, labels, C.outputs, domains=C.domains, assume=C.assume, validate=False)
