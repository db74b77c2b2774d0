"""The explicit channel: a validated, immutable, labelled row-stochastic matrix."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from .arrays import nonnegative_column_max
from .attributes import EqualByKey, ReadOnly
from .dispatch import n_inputs, remedy, to_explicit
from .errors import ChannelError, InputTypeError, SizeError, UnsupportedKindError
from .reduction import REDUCE_RTOL, reduce_columns
from .validation import check_bool, check_int, check_real

__all__ = [
    "Channel",
    "as_channel",
    "checked_matrix",
    "checked_column_max",
    "check_size",
    "guard_size",
    "guard_work",
    "MAX_ENTRIES",
    "ROW_SUM_ATOL",
]

#: Largest number of matrix entries an explicit channel may have (10^8 float64
#: entries = 800 MB).  Constructors check the size *before* allocating.
MAX_ENTRIES: int = 10**8

#: A row may sum to 1 within this absolute tolerance (rounding of a few ulp).
ROW_SUM_ATOL: float = 1e-9


def _gib(n_bytes: int) -> str:
    """``n_bytes`` in GiB for a message, also beyond the float range."""
    if n_bytes.bit_length() < 1000:
        return f"{n_bytes / 2**30:.3g}"
    return f"10^{(n_bytes.bit_length() - 30) * 0.30103:.0f}"


def check_size(n_rows: int, n_cols: int, what: str = "channel", alternative: str = "") -> None:
    """Refuse to build an explicit matrix of more than :data:`MAX_ENTRIES` entries.

    Parameters
    ----------
    n_rows, n_cols : int
        Shape the caller is about to allocate (Python ints: no overflow).
    what : str
        Name of the object, used in the message (e.g. ``"oue(40, 1.0)"``).
    alternative : str
        What to use instead (the symmetric representation, a closed form).

    Raises
    ------
    SizeError
        When ``n_rows * n_cols > MAX_ENTRIES``.

    Examples
    --------
    >>> check_size(10, 10)
    >>> check_size(2, 2**40, "oue(40, 1)")
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: oue(40, 1) would have 2 x 1099511627776 = 2199023255552 entries, ...
    """
    n_rows = check_int("n_rows", n_rows, minimum=0, allow_huge=True)
    n_cols = check_int("n_cols", n_cols, minimum=0, allow_huge=True)
    n = n_rows * n_cols
    if n > MAX_ENTRIES:
        msg = (
            f"{what} would have {int(n_rows)} x {int(n_cols)} = {n} entries, more than "
            f"the explicit-channel limit MAX_ENTRIES = {MAX_ENTRIES} "
            f"(~{_gib(8 * n)} GiB as float64)."
        )
        if alternative:
            msg += f" Use {alternative} instead."
        raise SizeError(msg)


#: Beyond this many decimal digits the exact entry count is not formatted (Python
#: refuses to print integers of more than 4300 digits); an estimate is shown instead.
_EXACT_DIGITS = 30


def guard_size(what: str, n_rows: int, log10_cols: float, exact_cols, alt: str) -> None:
    """Raise SizeError if an n_rows x n_cols channel exceeds MAX_ENTRIES.

    Parameters
    ----------
    what : str
        The call being refused, e.g. ``"oue(40, 1.0)"``.
    n_rows : int
        Number of rows (the domain size k).
    log10_cols : float
        log10 of the number of columns (cheap to compute even when huge).
    exact_cols : callable
        Returns the exact number of columns as a Python int; called only when
        that number has at most ~30 digits.
    alt : str
        What to use instead (see :func:`alternative`).

    Examples
    --------
    >>> guard_size("grr(10, 1.0)", 10, 1.0, lambda: 10, "x")
    >>> import math
    >>> guard_size("oue(5000, 1.0)", 5000, 5000 * math.log10(2), lambda: 2**5000, "x")
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: oue(5000, 1.0) would have 5000 x ~10^1505.1 entries, ...
    """
    log10_entries = math.log10(n_rows) + log10_cols
    if log10_entries < _EXACT_DIGITS:
        check_size(n_rows, int(exact_cols()), what, alt)
        return
    msg = (
        f"{what} would have {n_rows} x ~10^{log10_cols:.1f} entries, more than the "
        f"explicit-channel limit MAX_ENTRIES = {MAX_ENTRIES}. Use {alt} instead."
    )
    raise SizeError(msg)


def guard_work(
    what: str,
    work: str,
    log10_count: float,
    exact_count: Callable[[], int],
    advice: str,
    unit: str = "",
) -> None:
    """Raise SizeError if a computation would form more than MAX_ENTRIES terms (the work limit).

    The explicit-channel entry limit :data:`MAX_ENTRIES` also bounds work whose terms are
    formed in bounded chunks (an enumeration, a sum over compositions): the same number,
    counted in terms formed rather than entries stored (memory is not what it limits).

    Parameters
    ----------
    what : str
        The computation refused, e.g. ``"the Bayes capacity over 4 bits"``.
    work : str
        How the count arises, after "would", e.g. ``"sum over 12 compositions x 5 terms"``.
    log10_count : float
        log10 of the count (cheap to compute even when huge).
    exact_count : callable
        Returns the exact count as a Python int; called only when it has at most ~30 digits.
    advice : str
        The caller's own advice, appended to the message (what to do instead).
    unit : str
        What is counted, shown after the count (e.g. ``"products"``).

    Raises
    ------
    SizeError
        When the count exceeds MAX_ENTRIES.

    Examples
    --------
    >>> guard_work("a sum", "add 10 x 10 terms", 2.0, lambda: 100, "Use fewer.")
    >>> guard_work("a sum", "add 10^5 x 10^4 terms", 9.0, lambda: 10**9, "Use fewer.")
    Traceback (most recent call last):
    ...
    qifldp.errors.SizeError: a sum would add 10^5 x 10^4 terms = 1000000000, more than the work ...
    """
    log10_count = check_real("log10_count", log10_count)
    if not callable(exact_count):
        msg = (
            "exact_count must be a callable returning the exact count (called only when it "
            f"has at most {_EXACT_DIGITS} digits), got {type(exact_count).__name__}"
        )
        raise InputTypeError(msg)
    if log10_count < _EXACT_DIGITS:
        count = int(exact_count())
        if count <= MAX_ENTRIES:
            return
        shown = str(count)
    else:
        shown = f"~10^{log10_count:.1f}"
    msg = (
        f"{what} would {work} = {shown}{' ' + unit if unit else ''}, more than the work "
        f"limit MAX_ENTRIES = {MAX_ENTRIES}. {advice}"
    )
    raise SizeError(msg)


def _labels(name: str, labels: Iterable[Hashable] | None, n: int) -> tuple:
    if labels is None:
        return tuple(range(n))
    if isinstance(labels, (str, bytes)):
        msg = f"{name} must be a sequence of labels, got a string {labels!r}"
        raise InputTypeError(msg)
    labels = tuple(labels)
    if len(labels) != n:
        msg = f"{name} must have one label per {name[:-1]} ({n}), got {len(labels)}"
        raise ChannelError(msg)
    try:
        distinct = len(set(labels))
    except TypeError as exc:
        msg = f"{name} labels must be hashable: {exc}"
        raise InputTypeError(msg) from None
    if distinct != n:
        seen: set = set()
        dup = None
        for x in labels:
            if x in seen:
                dup = x
                break
            seen.add(x)
        msg = f"{name} labels must be distinct, {dup!r} appears more than once"
        raise ChannelError(msg)
    return labels


def _check_entries(arr: np.ndarray) -> None:
    """Raise ChannelError unless ``arr`` (2-D float64, non-empty) is row-stochastic.

    Two passes decide a valid matrix: a minimum >= 0 excludes NaN, -inf and negative
    entries, and row sums within :data:`ROW_SUM_ATOL` exclude +inf. The other checks
    run only to name what is wrong, in the order finite, non-negative, row sums.
    """
    with np.errstate(invalid="ignore"):  # inf - inf in a row sum: named below, not warned
        sums = arr.sum(axis=1)
    if float(arr.min()) >= 0.0 and float(np.abs(sums - 1.0).max()) <= ROW_SUM_ATOL:
        return
    if not np.all(np.isfinite(arr)):
        i, j = np.argwhere(~np.isfinite(arr))[0]
        msg = f"matrix entries must be finite, entry [{i}, {j}] is {arr[i, j]}"
        raise ChannelError(msg)
    if np.any(arr < 0):
        i, j = np.argwhere(arr < 0)[0]
        msg = f"matrix entries must be non-negative, entry [{i}, {j}] is {float(arr[i, j])!r}"
        raise ChannelError(msg)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_ATOL)
    i = int(bad[0])
    msg = (
        f"matrix rows must sum to 1 (within {ROW_SUM_ATOL:g}), row {i} sums to "
        f"{float(sums[i])!r}" + (f" ({bad.size} rows are off)" if bad.size > 1 else "")
    )
    raise ChannelError(msg)


class LabelledRows:
    """The label accessors shared by :class:`Channel` and ``qifldp.symbolic.SymbolicChannel``.

    A subclass stores its row labels in ``_inputs`` and its column labels in
    ``_outputs`` (one label per row and per column).

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.Channel([[0.75, 0.25]], inputs=("x",), outputs=("a", "b"))
    >>> C.shape, C.n_inputs, C.n_outputs, C.outputs
    ((1, 2), 1, 2, ('a', 'b'))
    """

    __slots__ = ()
    _inputs: tuple
    _outputs: tuple

    inputs = ReadOnly[tuple]("Row labels.")
    outputs = ReadOnly[tuple]("Column labels.")

    @property
    def shape(self) -> tuple[int, int]:
        """(|X|, |Y|)."""
        return (len(self._inputs), len(self._outputs))

    @property
    def n_inputs(self) -> int:
        """Number of secrets |X|."""
        return len(self._inputs)

    @property
    def n_outputs(self) -> int:
        """Number of observations |Y|."""
        return len(self._outputs)


def _ragged(matrix: Any) -> str | None:
    """What is wrong with a matrix given as rows of different lengths (None if it is not)."""
    try:
        lengths = [len(row) for row in matrix]
    except TypeError:
        return None
    if len(set(lengths)) <= 1:
        return None
    bad = next(i for i, n in enumerate(lengths) if n != lengths[0])
    return (
        f"matrix rows must all have the same length (one entry per output): row 0 has "
        f"{lengths[0]} entries, row {bad} has {lengths[bad]}"
    )


class Channel(LabelledRows, EqualByKey):
    """A channel C[x, y] = Pr(y | x): rows are secrets, columns are observations.

    Parameters
    ----------
    matrix : array_like, shape (|X|, |Y|)
        Non-negative, finite, each row summing to 1 within :data:`ROW_SUM_ATOL`.
    inputs : sequence of hashable, optional
        Labels of the rows (default ``range(|X|)``); distinct.
    outputs : sequence of hashable, optional
        Labels of the columns (default ``range(|Y|)``); distinct.

    Attributes
    ----------
    matrix : numpy.ndarray
        Read-only float64 array of shape (|X|, |Y|).
    inputs, outputs : tuple
        The labels.

    Raises
    ------
    ChannelError
        Not 2-D, empty, NaN/inf or negative entries, a row not summing to 1,
        labels of the wrong length or duplicated.
    InputTypeError
        Non-numeric entries or unhashable labels.

    Examples
    --------
    >>> import qifldp as q
    >>> C = q.Channel([[0.75, 0.25], [0.25, 0.75]], inputs=("no", "yes"))
    >>> C
    Channel(2 inputs x 2 outputs)
    [[0.75 0.25]
     [0.25 0.75]]
    >>> C.shape, C.inputs
    ((2, 2), ('no', 'yes'))
    """

    __slots__ = ("_matrix", "_inputs", "_outputs", "_hash")
    _matrix: np.ndarray
    _hash: int | None

    def __init__(
        self,
        matrix: Any,
        inputs: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
    ) -> None:
        if isinstance(matrix, Channel):
            arr = matrix._matrix
            inputs = matrix._inputs if inputs is None else inputs
            outputs = matrix._outputs if outputs is None else outputs
        else:
            try:
                arr = np.array(matrix, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                msg = _ragged(matrix) or f"matrix must be a 2-D array of real numbers: {exc}"
                raise InputTypeError(msg) from None
            except OverflowError:
                msg = "matrix holds an integer beyond the float range (about 1.8e308)"
                raise ChannelError(msg) from None
            if arr.ndim != 2:
                msg = (
                    f"matrix must be 2-D (inputs x outputs), got {arr.ndim}-D of shape {arr.shape}"
                )
                raise ChannelError(msg)
            if arr.shape[0] == 0 or arr.shape[1] == 0:
                msg = f"matrix must have at least one row and one column, got shape {arr.shape}"
                raise ChannelError(msg)
            _check_entries(arr)
            arr.setflags(write=False)
        self._matrix = arr
        self._inputs = _labels("inputs", inputs, arr.shape[0])
        self._outputs = _labels("outputs", outputs, arr.shape[1])
        self._hash = None

    # -- basic accessors -------------------------------------------------------------
    @property
    def matrix(self) -> np.ndarray:
        """The read-only float64 matrix, shape ``(|X|, |Y|)``."""
        return self._matrix

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            return self._matrix if dtype is None else self._matrix.astype(dtype, copy=False)
        return np.array(self._matrix, dtype=dtype)

    def to_numpy(self) -> np.ndarray:
        """A writable copy of the matrix.

        >>> Channel([[1.0, 0.0], [0.5, 0.5]]).to_numpy()
        array([[1. , 0. ],
               [0.5, 0.5]])
        """
        return self._matrix.copy()

    @classmethod
    def from_numpy(cls, matrix: np.ndarray, inputs=None, outputs=None) -> Channel:
        """Build a channel from a numpy array (same as the constructor).

        >>> Channel.from_numpy(np.eye(2)).shape
        (2, 2)
        """
        return cls(matrix, inputs, outputs)

    def __getitem__(self, index):
        return self._matrix[index]

    def row(self, x: Hashable) -> np.ndarray:
        """The output distribution of the input labelled ``x``.

        >>> Channel([[1.0, 0.0], [0.5, 0.5]], inputs=("a", "b")).row("b")
        array([0.5, 0.5])
        """
        try:
            i = self._inputs.index(x)
        except ValueError:
            msg = f"x = {x!r} is not an input label of this channel"
            raise ChannelError(msg) from None
        return self._matrix[i]

    # -- comparison ------------------------------------------------------------------
    def _key(self) -> tuple[tuple, tuple, np.ndarray]:
        return (self._inputs, self._outputs, self._matrix)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = super().__hash__()
        return self._hash

    def isclose(self, other: Channel, atol: float = 1e-9, labels: bool = True) -> bool:
        """Entrywise closeness to another channel of the same shape.

        Parameters
        ----------
        other : Channel
        atol : float
            Largest absolute difference allowed in any entry.
        labels : bool
            Also require equal input and output labels.

        Examples
        --------
        >>> A = Channel([[0.5, 0.5], [0.25, 0.75]])
        >>> A.isclose(Channel([[0.5, 0.5], [0.25 + 1e-12, 0.75 - 1e-12]]))
        True
        """
        other = as_channel(other, "other")
        if self.shape != other.shape:
            return False
        if labels and (self._inputs != other._inputs or self._outputs != other._outputs):
            return False
        return bool(np.max(np.abs(self._matrix - other._matrix)) <= atol)

    # -- transformations -------------------------------------------------------------
    def reduced(self, rtol: float = REDUCE_RTOL, return_groups: bool = False):
        """Merge columns that are positive multiples of each other; drop zero columns.

        The reduced channel is equivalent to this one under refinement in both
        directions, so every g-vulnerability, capacity and ``ldp_epsilon`` is
        unchanged. A merged column keeps the label of a single column, and gets
        the tuple of the merged labels otherwise.

        Parameters
        ----------
        rtol : float
            Two columns are merged when they have the same zero pattern and every
            ratio of their entries agrees within this relative tolerance (default
            ``REDUCE_RTOL`` = 2e-15, a few units of roundoff).
        return_groups : bool
            Also return the list of column-index groups (one per reduced column).

        Returns
        -------
        Channel, or (Channel, list of numpy.ndarray)

        Notes
        -----
        Columns y, y' with C[:, y] = c C[:, y'] (c > 0) give the same posterior;
        merging them (adding the columns) is a post-processing that is invertible
        up to refinement, hence the equivalence. The comparison is relative to each
        entry, so columns differing only in tiny entries are never merged. Cost
        O(|X| |Y| log |Y|).

        Examples
        --------
        >>> C = Channel([[0.2, 0.4, 0.4, 0.0], [0.1, 0.2, 0.7, 0.0]], outputs=("a", "b", "c", "d"))
        >>> R = C.reduced()
        >>> R.matrix
        array([[0.6, 0.4],
               [0.3, 0.7]])
        >>> R.outputs
        (('a', 'b'), 'c')
        """
        red = reduce_columns(self._matrix, rtol)
        groups = red.groups
        outs = tuple(
            self._outputs[g[0]] if g.size == 1 else tuple(self._outputs[j] for j in g)
            for g in groups
        )
        R = Channel(red.matrix, self._inputs, outs)
        return (R, groups) if return_groups else R

    def relabel(self, inputs=None, outputs=None) -> Channel:
        """The same matrix with new labels (``None`` keeps the current ones).

        >>> Channel(np.eye(2)).relabel(outputs=("y0", "y1")).outputs
        ('y0', 'y1')
        """
        return Channel(
            self,
            self._inputs if inputs is None else inputs,
            self._outputs if outputs is None else outputs,
        )

    # -- display ---------------------------------------------------------------------
    def __repr__(self) -> str:
        head = f"Channel({self.n_inputs} inputs x {self.n_outputs} outputs)"
        if self._matrix.size <= 64:
            return head + "\n" + np.array2string(self._matrix, precision=6, suppress_small=False)
        return head

    def _repr_html_(self) -> str:  # pragma: no cover - notebook display
        if self._matrix.size > 400:
            return f"<pre>{self!r}</pre>"
        rows = "".join(
            f"<tr><th>{x!r}</th>" + "".join(f"<td>{v:.6g}</td>" for v in r) + "</tr>"
            for x, r in zip(self._inputs, self._matrix, strict=True)
        )
        head = "<tr><th></th>" + "".join(f"<th>{y!r}</th>" for y in self._outputs) + "</tr>"
        return f"<table>{head}{rows}</table>"


def as_channel(C: Any, name: str = "C") -> Channel:
    """Return ``C`` if it is a :class:`Channel`, else build one from an array-like.

    >>> as_channel([[1.0, 0.0], [0.0, 1.0]]).shape
    (2, 2)
    """
    if isinstance(C, Channel):
        return C
    if C is None or isinstance(C, (str, bytes, dict, set)):
        msg = f"{name} must be a Channel or a 2-D array, got {type(C).__name__}"
        raise InputTypeError(msg)
    hint = remedy(C)
    if hint is not None:
        # another kind of channel (symmetric, symbolic) reached an explicit-only operation
        msg = f"{name} must be an explicit Channel or a 2-D array, got a {type(C).__name__}; {hint}"
        raise UnsupportedKindError(msg)
    try:
        return Channel(C)
    except (ChannelError, InputTypeError) as exc:
        msg = f"{name}: {exc}"
        raise type(exc)(msg) from None


def _plain_matrix(C: Any) -> bool:
    """A non-empty 2-D float64 ndarray (not a subclass), validated in place by the fast paths."""
    return type(C) is np.ndarray and C.dtype == np.float64 and C.ndim == 2 and C.size > 0


def _rows_sum_to_one(C: np.ndarray) -> bool:
    """Every row sums to 1 within ROW_SUM_ATOL (one pass; NaN or inf entries fail)."""
    # einsum: vectorised, no BLAS threads
    return float(np.abs(np.einsum("ij->i", C) - 1.0).max()) <= ROW_SUM_ATOL


def checked_matrix(C: Any, name: str = "C", *, signs: bool = True) -> np.ndarray:
    """The matrix of the channel ``C`` for a computation that keeps no channel.

    A :class:`Channel` gives its matrix. A 2-D float64 ndarray is validated in place
    (rows summing to 1 within :data:`ROW_SUM_ATOL`, entries >= 0 and finite) and
    returned as it is: no copy, no labels, two passes over the data (the row sums,
    which also catch NaN and inf, and a minimum). Anything else, or an array that
    fails a check, goes through :func:`as_channel`, which raises its usual error.

    Parameters
    ----------
    C : Channel or array_like
    name : str
        The argument's name in error messages.
    signs : bool
        False: skip the minimum; the caller promises to check ``min >= 0`` on a
        reduction it computes anyway and to call :func:`as_channel` when it fails.

    Returns
    -------
    numpy.ndarray
        The caller must neither modify nor keep it (it may be the caller's array).

    Examples
    --------
    >>> import numpy as np
    >>> M = np.array([[0.5, 0.5], [0.25, 0.75]])
    >>> checked_matrix(M) is M
    True
    >>> checked_matrix(np.array([[0.5, 0.6], [0.25, 0.75]]))
    Traceback (most recent call last):
    ...
    qifldp.errors.ChannelError: C: matrix rows must sum to 1 (within 1e-09), row 0 sums to 1.1
    """
    if signs is not True and signs is not False:
        signs = check_bool("signs", signs)
    if isinstance(C, Channel):
        return C._matrix
    if _plain_matrix(C) and _rows_sum_to_one(C) and (not signs or float(C.min()) >= 0.0):
        return C
    return as_channel(C, name)._matrix


def checked_column_max(C: Any, name: str = "C") -> np.ndarray:
    """The column maxima of the channel ``C``, validating an array in the same two passes.

    A :class:`Channel` gives its matrix's maxima; a 2-D float64 ndarray is validated
    in place as by :func:`checked_matrix`, the signs and finiteness by the maxima
    themselves (:func:`qifldp.arrays.nonnegative_column_max`), so the check costs one
    pass (the row sums) beyond the reduction. Anything else goes through
    :func:`as_channel`, which raises its usual error.

    Examples
    --------
    >>> import numpy as np
    >>> checked_column_max(np.array([[0.5, 0.5], [0.25, 0.75]])).tolist()
    [0.5, 0.75]
    >>> checked_column_max(np.array([[1.5, -0.5], [0.25, 0.75]]))
    Traceback (most recent call last):
    ...
    qifldp.errors.ChannelError: C: matrix entries must be non-negative, entry [0, 1] is -0.5
    """
    if not isinstance(C, Channel) and _plain_matrix(C):
        top = nonnegative_column_max(C)
        if top is not None and _rows_sum_to_one(C):
            return top
    return checked_matrix(C, name).max(axis=0)


# -- the explicit kind is the default of the dispatched channel functions ----------------
@n_inputs.register(object)
def _n_inputs(C: Any) -> int:
    return as_channel(C).n_inputs


@to_explicit.register(object)
def _to_explicit(C: Any, name: str = "C") -> Channel:
    return as_channel(C, name)
