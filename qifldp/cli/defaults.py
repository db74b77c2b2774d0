"""The command line's defaults: its budgets (how large a channel or an LP it builds, how
long it waits) and the protocols ``qifldp compare`` compares."""

from __future__ import annotations

__all__ = [
    "DEFAULT_COMPARE",
    "CLI_MAX_EXPLICIT_ENTRIES",
    "CLI_MAX_ORBIT_VARIABLES",
    "CLI_MAX_EXPLICIT_WITNESS",
    "CAPACITY_MARGIN",
    "DEFAULT_TIME_LIMIT",
]

#: The command line builds an explicit channel only up to this many entries
#: (4 x 10^6 float64 = 32 MB, well under a second); beyond, it answers with the
#: symmetric channel (``qifldp.symmetric``) where the protocol has one.  The
#: library's own limit (:data:`qifldp.MAX_ENTRIES`, 10^8) still applies below it.
CLI_MAX_EXPLICIT_ENTRIES: int = 4_000_000

#: ``compare`` (and ``refines`` at ten times it) passes this budget to the orbit LP
#: stage of ``qifldp.symmetric.refines`` (``max_lp_variables``; about 2 |sizes(A)|
#: |sizes(B)| variables, an equation counting as ``ORBIT_EQUATION_WEIGHT`` of them):
#: 2 x 10^5 take about 2 s, the 2 x 10^6 of UE at k = 1000 take 16 s and more
#: (``--max-lp-variables`` to change). The routes that need no LP (lifting, the
#: tight-ratio reduction, the set-guessing and likelihood-ratio gains) run at any size.
CLI_MAX_ORBIT_VARIABLES: int = 200_000

#: ``compare`` skips an explicit refinement whose witness W would have more
#: entries (|Y_A| |Y_B|, before merging proportional columns).
CLI_MAX_EXPLICIT_WITNESS: int = 1_000_000

#: Relative margin of the capacity shortcut of ``compare``: ML(B) > ML(A) (1 +
#: CAPACITY_MARGIN) proves A ⋢ B (the identity gain under the uniform prior
#: gains (ML(B) - ML(A)) / k > 0 more from B).  The capacities are computed to a
#: relative error of order 1e-13 (log space, sums of at most 10^6 terms), so
#: 1e-8 is far above the rounding: the shortcut is a certified statement.
CAPACITY_MARGIN: float = 1e-8

#: Default seconds per refinement pair in ``compare`` (``--time-limit``).
DEFAULT_TIME_LIMIT: float = 10.0

#: The protocols of ``qifldp compare`` without names.
DEFAULT_COMPARE: tuple[str, ...] = ("grr", "ss", "blh", "olh", "sue", "oue")
