"""The one exception the command line turns into a single ``error: ...`` line."""

from __future__ import annotations

from typing import Any


class ToolkitError(Exception):
    """A user-facing failure: bad input, unreachable source, drift. Its message is one
    line; ``shown`` is what the command line shows before it (a table of what failed)."""

    def __init__(self, message: str, shown: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.shown = shown
