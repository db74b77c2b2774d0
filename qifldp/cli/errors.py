"""The command line's own outcomes: bad arguments (exit 2), no answer within the budgets
(exit 1), a pair left undecided by every route."""

from __future__ import annotations

from ..errors import QifldpError

__all__ = ["UsageError"]


class UsageError(QifldpError, ValueError):
    """A command-line argument is malformed (exit status 2)."""


class _Undecided(Exception):
    pass


class _Skip(QifldpError, RuntimeError):
    """No answer within the command line's budgets (exit status 1)."""
