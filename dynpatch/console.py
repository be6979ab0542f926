"""What the toolkit prints: data on ``out`` (stdout), progress and the ``error:`` line on
``err`` (stderr); paths as a person reads them; the codemods' outcome table."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from codemods.outcome import Outcome, Status

out = Console(highlight=False, soft_wrap=True)
if not out.is_terminal:  # logs and CI: wide enough that tables do not fold
    out = Console(highlight=False, soft_wrap=True, width=120)
err = Console(stderr=True, highlight=False, soft_wrap=True)

_STYLE = {
    Status.APPLIED: "green",
    Status.ALREADY_APPLIED: "cyan",
    Status.NOT_APPLICABLE: "yellow",
    Status.DRIFTED: "bold red",
    Status.FIXED_UPSTREAM: "magenta",
}


def say(text: str) -> None:
    """``text`` on ``out`` as it is (no markup: paths and versions hold brackets)."""
    out.print(text, markup=False)


def rel(path: Path | str) -> str:
    """``path`` relative to the working directory when inside it."""
    # abspath, not resolve: a venv's python is a link, and it is shown where it sits.
    try:
        return str(Path(os.path.abspath(path)).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def outcome_table(
    outcomes: Sequence[Outcome], lines: Mapping[str, tuple[int, int]], title: str
) -> Table:
    """The codemods' outcome per target (and lines changed) as one table."""
    table = Table(title=f"patch series on {title}", title_justify="left")
    for column in ("target", "result", "lines", "detail"):
        table.add_column(column, overflow="fold")
    for o in outcomes:
        added, removed = lines.get(o.target.qualname, (0, 0))
        changed = f"+{added} -{removed}" if (added or removed) else "-"
        table.add_row(
            f"{Path(o.target.path).name}::{o.target.qualname}",
            f"[{_STYLE[o.status]}]{o.status}[/]",
            changed,
            o.detail if o.status is not Status.APPLIED else "",
        )
    return table
