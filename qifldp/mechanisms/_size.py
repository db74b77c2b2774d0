"""The "use instead" text of size errors; the guard itself is qifldp.channel.guard_size."""

from __future__ import annotations

from ..channel import guard_size

__all__ = ["guard_size", "alternative"]


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
