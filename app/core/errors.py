"""User-facing errors: every problem a user can cause (a bad preset, an invalid method combination, an unknown model
id) is an :class:`ArenaError` with one line that says what to do instead, printed without a traceback by the CLI and
shown as a message by the UI (docs/DESIGN.md §4.1). Anything else is a bug and keeps its traceback in the logs.
"""

from .words import Message


class ArenaError(Exception):
    """A clear, single-line problem report meant for the user: its English line, whitespace collapsed. Given a
    :class:`~app.core.words.Message` (``msg(...)``), it keeps it, so ``str(error)`` is that Message and the page
    translates the line whole (docs/DESIGN.md §4.10)."""

    def __init__(self, message: str):
        super().__init__(message.squeezed() if isinstance(message, Message) else " ".join(str(message).split()))


class StoppedError(ArenaError):
    """A run was stopped on request before it finished."""
