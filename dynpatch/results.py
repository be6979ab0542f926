"""What a verb returns, as data; :mod:`dynpatch.cli` renders and saves it (no verb or service
prints its results)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dynpatch.evidence import Record


@dataclass(frozen=True)
class Table:
    """A table to show (``right``: the columns aligned right; an outcome's status is styled)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: tuple[int, ...] = ()


Shown = str | Table


@dataclass(frozen=True)
class StageResult:
    ok: bool = True
    shown: tuple[Shown, ...] = ()
    records: tuple[Record, ...] = ()  # saved in order, each keyed to its base and series
    warnings: tuple[str, ...] = ()
    # folder -> name -> bytes, replacing theirs (others kept) only once the record is saved.
    then: Mapping[Path, Mapping[str, bytes]] = field(default_factory=dict)

    @property
    def record(self) -> Record | None:
        """The stage's own record (the first), if any."""
        return self.records[0] if self.records else None
