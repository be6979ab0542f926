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


def _cells(counts: Counter[str]) -> list[str]:
    return [str(counts.get(o, 0)) for o in OUTCOMES]


def _total(rows: list[FileRow], side: str) -> Counter[str]:
    total: Counter[str] = Counter()
    for row in rows:
        total.update(getattr(row, side))
    return total


def renderables(section: Section) -> list[RenderableType]:
    """The section's table, then its lines, as the command line prints them."""
    table = Table(title=section.title, title_justify="left")
    table.add_column("test file", no_wrap=True)
    for side in ("base", "patched"):  # "base": the table fits 120 columns
        for name in HEAD:
            table.add_column(f"{side}\n{name}", justify="right")
    for row in section.rows:
        table.add_row(short(row.path), *_cells(row.baseline), *_cells(row.patched))
    table.add_row(
        "[bold]total[/]",
        *_cells(_total(section.rows, "baseline")),
        *_cells(_total(section.rows, "patched")),
    )
    return [table, *section.lines]


def markdown(sections: list[Section], lines: list[str]) -> str:
    out: list[str] = []
    for section in sections:
        out.append(f"**{section.title}**\n")
        out.append(
            "| test file | "
            + " | ".join(f"baseline {h}" for h in HEAD)
            + " | "
            + " | ".join(f"patched {h}" for h in HEAD)
            + " |"
        )
        out.append("|---|" + "---:|" * (2 * len(HEAD)))
        for row in section.rows:
            cells = [*_cells(row.baseline), *_cells(row.patched)]
            out.append(f"| `{row.path.removeprefix(PREFIX)}` | " + " | ".join(cells) + " |")
        totals = [
            *_cells(_total(section.rows, "baseline")),
            *_cells(_total(section.rows, "patched")),
        ]
        out.append("| **total** | " + " | ".join(totals) + " |")
        out.append("")
        out.extend(f"- {line}" for line in section.lines)
        out.append("")
    out.extend(f"- {line}" for line in lines)
    return "\n".join(out) + "\n"
