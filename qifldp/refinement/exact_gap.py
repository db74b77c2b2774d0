"""A counterexample's gap stated exactly when its float digits are mostly rounding.

Every refinement route (explicit channels, the symmetric orbit LP, the symmetric max
case) that returns a counterexample whose gap is tiny next to the vulnerabilities it is
the difference of restates that gap through :func:`state_gap_exactly`: its rational value
on the stored floats, rounded once, with the text that says so (a gap of 3.2e-18 whose
float evaluation reads 4.9e-17, or one that underflows below 1e-308, is stated by its
digits: :func:`qifldp.digits.scientific`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

from ..digits import scientific
from ..errors import VerificationError
from .result import Counterexample

__all__ = ["EXACT_GAP_RELATIVE", "state_gap_exactly"]

#: A counterexample whose float gap is below this fraction of the scale of the
#: vulnerabilities it is the difference of (Σ_x π_x max_w |g[w, x]|, the largest |V_g|;
#: max case: the largest |gain|) has its gap computed in rational arithmetic and
#: reported from there: its float digits are mostly rounding (a gap of 3.2e-18
#: evaluated as 4.9e-17).
EXACT_GAP_RELATIVE: float = 1e-12


def state_gap_exactly(
    ce: Counterexample,
    scale: float,
    exact_gap: Callable[[], tuple[Fraction | None, str]] | None = None,
    *,
    on: str = "",
) -> tuple[Counterexample, str]:
    """The counterexample with a small gap restated by its exact gap, and the text saying so.

    A float gap below ``EXACT_GAP_RELATIVE * scale`` (or not positive: below the float
    resolution of V_g) is mostly rounding. Its exact gap — ``ce.gap_exact`` when set,
    else ``exact_gap()`` — replaces it: ``gap`` becomes the exact gap rounded once and
    ``gap_exact`` the rational. A counterexample whose gap is not small is returned
    unchanged with no text.

    Parameters
    ----------
    ce : Counterexample
        ``gap`` is the float evaluation of the gain's gap (the text quotes it);
        ``gap_exact`` its exact gap when already known.
    scale : float
        A bound on |V_g| of both channels: Σ_x π_x max_w |g[w, x]| (average case), the
        largest |gain| (max case, and a symmetric gain under the uniform prior).
    exact_gap : callable, optional
        Called (once, only when needed and ``ce.gap_exact`` is None) for the exact gap:
        returns ``(gap, "")``, or ``(None, why)`` when it is beyond its budget.
    on : str
        What the exact gap is computed on, for the text (e.g. ``" on the stored class
        masses"``); empty: the stored floats of the channels as given.

    Returns
    -------
    (Counterexample, str)
        The counterexample and the text to append to the result's ``certified_by``
        (starting with "; ", or empty when nothing changed). A small positive float gap
        whose exact gap was not computed is kept, the text saying why.

    Raises
    ------
    VerificationError
        The exact gap is not positive (no counterexample), or the float gap is not
        positive and its exact gap was not computed (the gap cannot be stated).

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> ce = Counterexample(np.eye(2), np.full(2, 0.5), 4.9e-17)
    >>> ce, text = state_gap_exactly(ce, 1.0, lambda: (Fraction(1, 312500000000000000), ""))
    >>> ce.gap, ce.gap_exact
    (3.2e-18, Fraction(1, 312500000000000000))
    >>> text.split(": ")[1]
    '.gap is the exact gap 3.20000e-18, rounded (float evaluation 4.9e-17)'
    """
    gap = ce.gap
    if gap > 0 and gap >= EXACT_GAP_RELATIVE * scale:
        return ce, ""
    gq = ce.gap_exact
    why_not = "no exact evaluation"
    if gq is None and exact_gap is not None:
        gq, why_not = exact_gap()
    if gq is None:
        if not gap > 0:
            msg = (
                f"the counterexample's gap recomputed in floating point is {gap!r} and its "
                f"exact gap was not computed ({why_not}): the pair is too close to the "
                "boundary to state the gap in floats"
            )
            raise VerificationError(msg)
        text = (
            f"; the gap {gap:.3g} is below {EXACT_GAP_RELATIVE:g} of |V_g| <= {scale:.3g}: "
            f"positive, but its digits were not computed exactly ({why_not})"
        )
        return ce, text
    if not gq > 0:
        msg = (
            f"the counterexample's float gap {gap!r} has exact gap {scientific(gq, 3)}{on} "
            "<= 0: no verdict"
        )
        raise VerificationError(msg)
    if gap > 0:
        text = (
            f"; the gap is below {EXACT_GAP_RELATIVE:g} of |V_g| <= {scale:.3g}: .gap is the "
            f"exact gap {scientific(gq, 6)}{on}, rounded (float evaluation {gap:.3g})"
        )
    else:  # V_g of the two channels agree to every float digit: the exact gap is the certificate
        vs = (abs(ce.vulnerability_a), abs(ce.vulnerability_b))
        resolution = max(vs) if all(math.isfinite(v) for v in vs) else scale
        text = (
            f"; the gap {scientific(gq, 6)}{on} is below the float resolution of V_g "
            f"({resolution:.3g}; float evaluation {gap:.3g}), so .gap is the exact gap rounded"
        )
    return replace(ce, gap=float(gq), gap_exact=gq), text
