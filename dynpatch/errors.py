"""The one exception the command line turns into a single ``error: ...`` line."""

from __future__ import annotations

from typing import Any


class ToolkitError(Exception):
    """A user-facing failure in one line; ``shown``: what to show before it (what failed)."""

    def __init__(self, message: str, shown: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.shown = shown
