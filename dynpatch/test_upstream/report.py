"""The differential table and summary lines, printed with rich and kept as Markdown.

The Markdown (evidence ``summary_md``) holds the same table and lines as the terminal,
so the PR's Validation section shows exactly what the run printed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.console import RenderableType
from rich.table import Table

from dynpatch.test_upstream.verdict import OUTCOMES, FileRow

PREFIX = "components/src/dynamo/"
HEAD = ("passed", "failed", "skipped", "errors")


@dataclass
class Section:
    """One tier's table plus the lines under it."""

    title: str
    rows: list[FileRow]
    lines: list[str] = field(default_factory=list)


def short(path: str) -> str:
    """``components/src/dynamo/common/backend/tests/test_x.py::t`` -> ``common/test_x.py::t``."""
    rel = path.removeprefix(PREFIX)
    file, sep, test = rel.partition("::")
    parts = file.split("/")
    name = f"{parts[0]}/{parts[-1]}" if len(parts) > 1 else file
    return f"{name}{sep}{test}"


def _rows(section: Section) -> list[tuple[str | None, list[str]]]:
    """(test file, its counts on both sides) per row, then (None, the totals)."""
    rows = [(r.path, r.baseline, r.patched) for r in section.rows]
    base, patched = (
        sum((getattr(r, side) for r in section.rows), Counter()) for side in ("baseline", "patched")
    )
    return [
        (path, [str(c.get(o, 0)) for c in (b, p) for o in OUTCOMES])
        for path, b, p in [*rows, (None, base, patched)]
    ]


def renderables(section: Section) -> list[RenderableType]:
    """The section's table, then its lines, as the command line prints them."""
    table = Table(title=section.title, title_justify="left")
    table.add_column("test file", no_wrap=True)
    for side in ("base", "patched"):  # "base": the table fits 120 columns
        for name in HEAD:
            table.add_column(f"{side}\n{name}", justify="right")
    for path, cells in _rows(section):
        table.add_row(short(path) if path else "[bold]total[/]", *cells)
    return [table, *section.lines]


def markdown(sections: list[Section], lines: list[str]) -> str:
    heads = [f"{side} {h}" for side in ("baseline", "patched") for h in HEAD]
    out: list[str] = []
    for section in sections:
        out += [f"**{section.title}**\n", f"| test file | {' | '.join(heads)} |"]
        out.append("|---|" + "---:|" * len(heads))
        for path, cells in _rows(section):
            name = f"`{path.removeprefix(PREFIX)}`" if path else "**total**"
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out += ["", *(f"- {line}" for line in section.lines), ""]
    out.extend(f"- {line}" for line in lines)
    return "\n".join(out) + "\n"
