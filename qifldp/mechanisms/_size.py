"""The size guard every explicit mechanism calls before allocating its matrix."""

from __future__ import annotations

import math

from ..channel import MAX_ENTRIES, check_size
from ..errors import SizeError

__all__ = ["guard_size", "alternative"]

#: Beyond this many decimal digits the exact entry count is not formatted (Python
#: refuses to print integers of more than 4300 digits); an estimate is shown instead.
_EXACT_DIGITS = 30


def alternative(name: str, signature: str, formula: str) -> str:
    """The "use instead" text of a size error: symmetric twin and closed form.

    Examples
    --------
    >>> alternative("oue", "k, eps", "bayes_capacity_oue")  # doctest: +ELLIPSIS
    'the symmetric representation qifldp.symmetric.oue(k, eps) ...bayes_capacity_oue'
    """
    return (
        f"the symmetric representation qifldp.symmetric.{name}({signature}) (no size limit) "
        f"or the closed form qifldp.formulas.{formula}"
    )


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
