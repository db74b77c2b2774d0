"""Re-exports for old imports: the size guard and its "use instead" text (qifldp.protocols)."""

from __future__ import annotations

from ..channel import guard_size
from ..protocols.base import size_alternative as alternative

__all__ = ["guard_size", "alternative"]
