"""What upstream's hooks said about the series: one :class:`Finding` per problem (hook,
file or commit message, line, what is wrong), one :class:`HookResult` per hook."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.markup import escape
from rich.table import Table

from dynpatch.console import out


@dataclass(frozen=True)
class Finding:
    hook: str
    path: str
    line: int
    message: str  # the hook's own words: rule and text, or word ==> correction


@dataclass(frozen=True)
class HookResult:
    hook: str
    pin: str  # the version upstream pins, or the rule a check of ours follows
    checked: tuple[str, ...]  # the files (or commit messages) the hook looked at
    findings: tuple[Finding, ...] = ()
    scope: str = "whole files"  # what of each file counts: whole files, changed lines

    @property
    def ok(self) -> bool:
        return not self.findings


def all_findings(results: Sequence[HookResult]) -> list[Finding]:
    """Every finding of ``results``, hook by hook, in the order the hooks ran."""
    return [f for r in results for f in r.findings]


def failure_line(findings: Sequence[Finding]) -> str:
    """The one error line: the first finding with its file, line and hook, and how many
    more the table above it shows."""
    first = findings[0]
    more = f" (+{len(findings) - 1} more in the table above)" if len(findings) > 1 else ""
    return f"{first.hook} (upstream settings) fails at {first.path}:{first.line}: {first.message}{more}"


def show(findings: Sequence[Finding]) -> None:
    """The findings as one table on ``out`` (printed before the error line)."""
    table = Table(title="upstream pre-commit findings", title_justify="left")
    for column in ("hook", "file", "line", "finding"):
        table.add_column(column, overflow="fold")
    for f in findings:
        table.add_row(*(escape(cell) for cell in (f.hook, f.path, str(f.line), f.message)))
    out.print(table)


def markdown(results: Sequence[HookResult]) -> str:
    """The hooks as a Markdown table (hook, pin, files, result), then the files."""
    rows = [
        "| hook | pin | files | result |",
        "|---|---|---|---|",
        *(
            f"| {r.hook} | {r.pin} | {len(r.checked)} ({r.scope}) | {'pass' if r.ok else 'FAIL'} |"
            for r in results
        ),
    ]
    files = sorted({c for r in results for c in r.checked})
    listed = "\n".join(f"- `{c}`" for c in files)
    return "\n".join(rows) + f"\n\nChecked:\n\n{listed}\n"
