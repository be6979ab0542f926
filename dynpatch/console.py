"""What the toolkit prints: data on ``out`` (stdout), progress and ``error:`` on ``err``
(stderr); results rendered; paths as a person reads them; the codemods' outcome table."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from codemods.outcome import Outcome, Status
from dynpatch.results import Shown, Table

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


def rel(path: Path | str) -> str:
    """``path`` relative to the working directory when inside it."""
    # abspath, not resolve: a venv's python is a link, and it is shown where it sits.
    try:
        return str(Path(os.path.abspath(path)).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def show(screen: Console, item: Shown) -> None:
    """A line as it is (never folded, no markup); a table styled and fit to the screen."""
    if isinstance(item, str):
        screen.print(item, markup=False, soft_wrap=True)
        return
    table = RichTable(title=item.title, title_justify="left")
    for i, column in enumerate(item.columns):
        justify = "right" if i in item.right else "left"
        table.add_column(
            column, overflow="fold", justify=justify, no_wrap=i == 0 and bool(item.right)
        )
    for row in item.rows:
        table.add_row(*(_cell(cell) for cell in row))
    screen.print(table)


def _cell(text: str) -> str:
    if text in _STYLE:  # a codemod's outcome
        return f"[{_STYLE[Status(text)]}]{text}[/]"
    if text.startswith("**") and text.endswith("**"):
        return f"[bold]{escape(text[2:-2])}[/]"
    return escape(text)


def as_text(items: Iterable[Shown], width: int = 120) -> str:
    """``items`` as the command line prints them, on a screen ``width`` wide."""
    text = io.StringIO()
    screen = Console(file=text, width=width, highlight=False)
    for item in items:
        show(screen, item)
    return text.getvalue()


def outcome_table(
    outcomes: Sequence[Outcome], lines: Mapping[str, tuple[int, int]], title: str
) -> Table:
    rows = []
    for o in outcomes:
        added, removed = lines.get(o.target.qualname, (0, 0))
        changed = f"+{added} -{removed}" if (added or removed) else "-"
        detail = o.detail if o.status is not Status.APPLIED else ""
        target = f"{Path(o.target.path).name}::{o.target.qualname}"
        rows.append((target, str(o.status), changed, detail))
    return Table(f"patch series on {title}", ("target", "result", "lines", "detail"), tuple(rows))
