"""The audit's verdict vocabulary and the two-sided float comparison its checks decide by."""

from __future__ import annotations

import math

from ..errors import VerificationError

__all__ = [
    "CONFIRMED",
    "RECONSTRUCTED",
    "CORRECTED",
    "CONDITIONAL",
    "REFUTED",
    "INCONCLUSIVE",
    "VERDICTS",
    "AGREE_RTOL",
    "DIFFER_RTOL",
]

# -- verdict vocabulary --------------------------------------------------------------------
#: The statement holds as printed on every instance checked.
CONFIRMED = "confirmed"
#: The statement's formula is not legible in the paper's available text; the check confirms
#: the formula as we reconstructed it from what the text says about it (the reconstruction
#: is stated in ``details``). It is not a confirmation of the printed formula, which the
#: paper's available text does not show.
#: A claim registered with ``reconstructed=...`` can never come out "confirmed".
RECONSTRUCTED = "reconstructed"
#: The statement holds once a number or formula in it is corrected; ``details`` gives
#: the correction (e.g. a stated bound that holds but is not the true value, or an
#: approximate limit whose exact value the library computes).
CORRECTED = "confirmed with correction"
#: The statement holds only under a condition the paper does not state; ``details``
#: opens with the condition and gives an instance outside it where the statement fails.
CONDITIONAL = "holds only when"
#: The statement fails; ``details`` gives the counterexample with its numbers.
REFUTED = "refuted"
#: The check could not decide: a solver failure, a float comparison inside the band
#: between AGREE_RTOL and DIFFER_RTOL, or a claim whose objects the source text does not
#: define well enough to build (``details`` says which and why). Never a hidden "no".
INCONCLUSIVE = "inconclusive"
#: All verdicts, from the strongest agreement to the failure to decide.
VERDICTS: tuple[str, ...] = (
    CONFIRMED,
    RECONSTRUCTED,
    CORRECTED,
    CONDITIONAL,
    REFUTED,
    INCONCLUSIVE,
)

# -- tolerances of float comparisons --------------------------------------------------------
#: Two floats a, b count as equal when |a - b| <= AGREE_RTOL * max(1, |a|, |b|). The
#: quantities compared (enumerated capacities, log-ratios of channel entries, closed forms)
#: are computed to ~1e-15 relative, so equal quantities meet this with six orders of
#: magnitude to spare.
AGREE_RTOL: float = 1e-9
#: ... and as different when |a - b| > DIFFER_RTOL * max(1, |a|, |b|). Between the two
#: thresholds a comparison is refused (the claim becomes "inconclusive"), so a verdict
#: never rests on a float comparison that rounding could flip. Exact claims are decided
#: in rational arithmetic instead (eps chosen with e^eps rational, so that every
#: channel entry is an exact rational).
DIFFER_RTOL: float = 1e-6


class _Undecided(VerificationError):
    """A float comparison fell inside the band where rounding could flip it."""


def _cmp(a: float, b: float, what: str = "values") -> int:
    """-1, 0, 1 for a < b, a = b, a > b under AGREE_RTOL / DIFFER_RTOL; raise in between."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        msg = f"{what}: NaN in the comparison of {a!r} and {b!r}"
        raise _Undecided(msg)
    if math.isinf(a) or math.isinf(b):
        return 0 if a == b else (1 if a > b else -1)
    scale = max(1.0, abs(a), abs(b))
    diff = a - b
    if abs(diff) <= AGREE_RTOL * scale:
        return 0
    if abs(diff) > DIFFER_RTOL * scale:
        return 1 if diff > 0 else -1
    msg = (
        f"{what}: {a!r} and {b!r} differ by {diff:.3g}, between AGREE_RTOL = {AGREE_RTOL:g} and "
        f"DIFFER_RTOL = {DIFFER_RTOL:g} (relative): refusing to decide"
    )
    raise _Undecided(msg)


def exceptions(bad: list[str], lead: str, otherwise: str = "", shown: int = 3) -> str:
    """The words a check's details give its failing instances: ``lead`` and the first
    ``shown`` of them, or ``otherwise`` when there are none.

    Examples
    --------
    >>> exceptions(["k = 3", "k = 4"], ", except ", ", at every case")
    ', except k = 3; k = 4'
    >>> exceptions([], ", except ", ", at every case")
    ', at every case'
    """
    return f"{lead}{'; '.join(bad[:shown])}" if bad else otherwise


def by_failures(bad: list[str], statement: str, lead: str, otherwise: str = "") -> tuple[str, str]:
    """A check's (verdict, details) from the instances where a statement failed: confirmed
    when there are none, refuted otherwise, the details listing them (:func:`exceptions`).

    Examples
    --------
    >>> by_failures([], "p as printed", ", except ", ", at every case")
    ('confirmed', 'p as printed, at every case.')
    >>> by_failures(["k = 3"], "p as printed", ", except ")
    ('refuted', 'p as printed, except k = 3.')
    """
    return (CONFIRMED if not bad else REFUTED), statement + exceptions(bad, lead, otherwise) + "."
