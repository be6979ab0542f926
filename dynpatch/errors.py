"""The one exception the command line turns into a single ``error: ...`` line."""


class ToolkitError(Exception):
    """A user-facing failure: bad input, unreachable source, drift. Message is one line."""
