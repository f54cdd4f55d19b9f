"""User-facing errors.

Every problem a user can cause (a bad preset, an invalid method combination, an
unknown model id) is raised as :class:`ArenaError` with one clear line that says
what to do instead. The CLI prints it without a traceback; the UI shows it as a
message. Anything else is a bug and keeps its traceback in the logs.
"""


class ArenaError(Exception):
    """A clear, single-line problem report meant for the user."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class StoppedError(ArenaError):
    """A run was stopped on request before it finished."""
