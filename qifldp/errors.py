"""The exception hierarchy of qifldp.

Every error the library raises on purpose derives from :class:`QifldpError`, and
errors about bad input also derive from :class:`ValueError` or :class:`TypeError`
so that ordinary ``except ValueError`` code keeps working.
"""

from __future__ import annotations

__all__ = [
    "QifldpError",
    "ChannelError",
    "PriorError",
    "GainError",
    "ParameterError",
    "SizeError",
    "InputTypeError",
    "SolverError",
    "VerificationError",
    "UnsupportedKindError",
]


class QifldpError(Exception):
    """Base class of every error raised on purpose by qifldp."""


class ChannelError(QifldpError, ValueError):
    """A channel matrix or its labels break a rule (shape, sign, row sums, labels)."""


class PriorError(QifldpError, ValueError):
    """A prior is not a probability distribution over the channel's inputs."""


class GainError(QifldpError, ValueError):
    """A gain function has the wrong shape or invalid entries."""


class ParameterError(QifldpError, ValueError):
    """A mechanism or algorithm parameter is out of its allowed range."""


class SizeError(QifldpError, ValueError):
    """An explicit object would be too large to build; the message names the size
    and the alternative (the symmetric representation or a closed form)."""


class InputTypeError(QifldpError, TypeError):
    """An argument has the wrong type."""


class SolverError(QifldpError, RuntimeError):
    """A numerical solver failed or returned a status that decides nothing.

    Never interpreted as a negative verdict.
    """


class VerificationError(QifldpError, RuntimeError):
    """A certificate produced by a solver failed its independent re-check."""


class UnsupportedKindError(InputTypeError):
    """An operation got a kind of channel it does not support.

    The message names the operation, the kind received and what to do instead:
    ``C.expand()`` for a symmetric channel small enough to be explicit,
    ``C.evaluate(eps=...)`` for a symbolic one, the symmetric representation for
    an explicit channel too large to build.
    """
