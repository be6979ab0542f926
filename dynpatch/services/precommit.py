"""dynamo's pre-commit, hook by hook at its pins, on the files the series touches (isort and
black pass by construction; flake8 on the lines the series adds) and on its commit messages;
any finding refuses the series. The wheel has no repository-root config: it is written here."""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.evidence import Hook, PreCommit, Record
from dynpatch.fetch import Checkout
from dynpatch.io import files, proc
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.results import Table
from dynpatch.services import scope
from dynpatch.services.formatters import TOOLS

PIN = dict(t.split("==") for t in TOOLS)  # tool -> the version the formatter env holds

COMMAND = "nox -s apply"  # the evidence record's command

# dynamo's settings; docs/apply.md has the table and why (ruff: every report is a finding,
# nothing fixed; no --force-exclude: a temporary folder's name must exclude nothing).
FLAKE8_ARGS = ("--isolated", "--max-line-length=88", "--select=C,E,F,W,B,B950")
FLAKE8_ARGS += ("--extend-ignore=E203,E501",)
RUFF_TOML = """\
line-length = 88
indent-width = 4
target-version = "py310"

[lint.extend-per-file-ignores]
"icp/tests/**/test_*.py" = ["F811", "F401"]
"*_inc.py" = ["F821"]
"""
RUFF_ARGS = ("check", "--config", "ruff.toml", "--no-cache", "--no-fix", "--output-format", "json")
CODESPELL_ARGS = ("--builtin", "clear", "--ignore-words-list", "afterall,ser,ende")
CODESPELL_ARGS += ("--quiet-level", "3", "--disable-colors")
_REPORT = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?:\d+:)? (?P<message>.+)$")
_CODESPELL_FOUND = 65  # codespell's EX_DATAERR: misspellings found

# dynamo's commit-msg hook (scripts/dco_check.py, "DCO check") wants a line matching this;
# the DCO check on their pull requests also wants that sign-off to be the commit's author.
SIGNED_OFF_BY = re.compile(r"^Signed-off-by: .+ <.+>$")
_PARTS = re.compile(r"^Signed-off-by: (?P<name>.+) <(?P<email>.+)>$")  # the same lines

# Our reading of dynamo's copyright-check.ps1: in every file of the kinds it knows, the two
# SPDX lines below (`//` for .proto and .rs) anywhere, case and whitespace aside, bare comment
# lines allowed after each, the last year no older than the commit; not its ignore lists.
SPDX = "SPDX header"
_HASH = (".containerfile", ".dockerignore", ".pbtxt", ".ps1", ".py", ".sh", ".toml", ".tpl")
_HASH += (".txt", ".yaml", ".yml", "Dockerfile")
_SLASHES = (".proto", ".rs")
_IGNORED = (".bat", ".gif", ".ico", ".ipynb", ".jpg", ".jpeg", ".patch", ".png", ".pyc", ".pyi")
_IGNORED += (".rst", ".zip", ".md", ".json", ".clang-format", ".gitattributes", ".gitignore")
_IGNORED += (".gitkeep", "Cargo.lock", "LICENSE", "uv.lock", "rust-toolchain.toml")
_IGNORED += ("codespell.txt", "exclusions.txt")
_LINES = (
    "SPDX-FileCopyrightText: Copyright (c) %%DATE%% NVIDIA CORPORATION & AFFILIATES. "
    "All rights reserved.",
    "SPDX-License-Identifier: Apache-2.0",
)


@dataclasses.dataclass(frozen=True)
class Finding:
    hook: str
    path: str  # a file, or a commit message ("0001-x.patch (commit message)")
    line: int
    message: str  # the hook's own words: rule and text, or word ==> correction

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclasses.dataclass(frozen=True)
class HookResult:
    hook: str
    pin: str  # the version upstream pins, or the rule a check of ours follows
    checked: tuple[str, ...]  # the files (or commit messages) the hook looked at
    findings: tuple[Finding, ...] = ()
    scope: str = "whole files"  # what of each file counts: whole files, changed lines

    @property
    def ok(self) -> bool:
        return not self.findings


def check_files(
    old: Mapping[str, str], new: Mapping[str, str], python: Path, year: int
) -> list[HookResult]:
    """Every file hook on the touched files ``new`` (repository path -> formatted text;
    ``old``: the same paths at the base, '' where new), committed in ``year``."""
    paths = tuple(sorted(new))
    with tempfile.TemporaryDirectory(prefix="dynpatch-hooks-") as tmp:
        root = Path(tmp)
        for rel, text in {**new, "ruff.toml": RUFF_TOML}.items():  # dynamo's ruff config last
            files.write_atomic(root / rel, text)
        flake8 = _run("flake8", ["flake8", *FLAKE8_ARGS, "--", *paths], root, python)
        ruff = _run("ruff", ["ruff", *RUFF_ARGS, "--", *paths], root, python)
        args = ["codespell_lib", *CODESPELL_ARGS, "--", *paths]
        spelling = _run("codespell", args, root, python, (0, _CODESPELL_FOUND))
    try:
        ruff_found = tuple(parse_ruff(ruff, root))
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolkitError(f"ruff's JSON report is not what 0.5.2 writes: {exc}") from None
    formatted = "whole files, formatted by apply"
    added = {p: scope.added_lines(old.get(p, ""), new[p]) for p in paths}
    flake8_found = tuple(f for f in _parse("flake8", flake8) if f.line in added[f.path])
    covered = tuple(p for p in paths if spdx_comment(p) is not None)
    spdx_found = tuple(f for p in covered for f in spdx_check(p, new[p], year))
    return [
        *(HookResult(tool, PIN[tool], paths, scope=formatted) for tool in ("isort", "black")),
        HookResult("flake8", PIN["flake8"], paths, flake8_found, "changed lines"),
        HookResult("ruff", f"{PIN['ruff']} (`--fix --exit-non-zero-on-fix`)", paths, ruff_found),
        HookResult("codespell", PIN["codespell"], paths, tuple(_parse("codespell", spelling))),
        HookResult(SPDX, "dynamo's copyright-check.ps1 rule", covered, spdx_found),
    ]


def check_commits(commits: Sequence[CommitInfo], patches: Sequence[str]) -> HookResult:
    """The DCO hook on each commit's message as ``git am`` recorded it from the patch of
    the same place in ``patches`` (file names; a finding names the message after it)."""
    if len(commits) != len(patches):
        raise ToolkitError(f"git am made {len(commits)} commits of {len(patches)} patches")
    checked = tuple(f"{name} (commit message)" for name in patches)
    found = tuple(f for c, label in zip(commits, checked, strict=True) for f in dco_check(c, label))
    rule = f"`{SIGNED_OFF_BY.pattern}`, by the author"
    return HookResult("DCO", rule, checked, found, scope="commit messages")


def _run(
    tool: str, args: Sequence[str], root: Path, python: Path, ok: tuple[int, ...] = (0, 1)
) -> str:
    result = proc.run([str(python), "-m", *args], doing=tool, timeout=600, cwd=root)
    if result.returncode not in ok:
        raise ToolkitError(f"{tool} failed to run: {result.last_line()}")
    return result.stdout


def _parse(tool: str, report: str) -> list[Finding]:
    """Findings from ``path:line[:col]: message`` lines."""
    found = [_REPORT.match(line.strip()) for line in report.splitlines()]
    return [Finding(tool, m["path"], int(m["line"]), m["message"]) for m in found if m]


def parse_ruff(report: str, root: Path) -> list[Finding]:
    """Findings from ``ruff check --output-format json`` (file names under ``root``)."""
    found = []
    for item in json.loads(report or "[]"):
        path = Path(item["filename"])
        rel = str(path.relative_to(root)) if path.is_absolute() else str(path)
        fixable = " [fixable: ruff --fix would change the file]" if item.get("fix") else ""
        message = f"{item.get('code') or 'syntax-error'} {item['message']}{fixable}"
        found.append(Finding("ruff", rel, int(item["location"]["row"]), message))
    return found


def sign_offs(message: str) -> list[Identity]:
    found = (_PARTS.match(line) for line in message.splitlines())
    return [Identity(m["name"], m["email"]) for m in found if m]


def dco_check(commit: CommitInfo, label: str) -> list[Finding]:
    """What the DCO rule finds in ``commit``'s message; ``label`` names the message."""
    lines = commit.message.rstrip("\n").split("\n")
    signed = [(n, line) for n, line in enumerate(lines, 1) if SIGNED_OFF_BY.match(line)]
    if not signed:
        why = f"no line matching {SIGNED_OFF_BY.pattern} (a DCO sign-off)"
        return [Finding("DCO", label, len(lines), why)]
    me = (commit.author.name, commit.author.email.lower())
    if any((s.name, s.email.lower()) == me for s in sign_offs(commit.message)):
        return []
    first, line = signed[0]
    return [Finding("DCO", label, first, f"{line!r} is not the author {commit.author}")]


def _header(comment: str) -> re.Pattern[str]:
    parts = []
    for line in _LINES:
        text = re.sub(r"\\\s+|\s+", r"\\s+", re.escape(f"{comment} {line}"))
        text = text.replace(re.escape("%%DATE%%"), r"(?:\d{4}-)?(?P<year>\d{4})")
        parts.append(text + r"\s+" + rf"(?:{re.escape(comment)}\s+)*")
    return re.compile("".join(parts), re.IGNORECASE)


_PATTERNS = {"#": _header("#"), "//": _header("//")}


def spdx_comment(path: str) -> str | None:
    """The comment marker of ``path``'s header ('#' or '//'); None: the rule skips it."""
    if path.startswith(".github/") or path.endswith(_IGNORED):
        return None
    return "#" if path.endswith(_HASH) else "//" if path.endswith(_SLASHES) else None


def spdx_check(path: str, text: str, year: int) -> list[Finding]:
    comment = spdx_comment(path)
    if comment is None or not text:
        return []
    match = _PATTERNS[comment].search(text)
    if match is None:
        want = f"'{comment} {_LINES[0]}' then '{comment} {_LINES[1]}'"
        return [Finding(SPDX, path, 1, f"no SPDX header ({want.replace('%%DATE%%', '<year>')})")]
    if int(match["year"]) < year:
        line = text.count("\n", 0, match.start()) + 1
        why = f"copyright year {match['year']} is older than the commit ({year})"
        return [Finding(SPDX, path, line, f"{why}: the header's last year must be at least {year}")]
    return []


def failure_line(findings: Sequence[Finding]) -> str:
    more = f" (+{len(findings) - 1} more in the table above)" if len(findings) > 1 else ""
    return f"{findings[0].hook} (upstream settings) fails at {findings[0]}{more}"


def findings_table(findings: Sequence[Finding]) -> Table:
    """The findings as one table (shown before the error line)."""
    rows = tuple((f.hook, f.path, str(f.line), f.message) for f in findings)
    return Table("upstream pre-commit findings", ("hook", "file", "line", "finding"), rows)


CONFIG = "dynamo's `.pre-commit-config.yaml` as of v1.6.1"  # whose pins and settings ran


def record(
    hooks: Sequence[HookResult],
    checkout: Checkout,
    series_sha256: str,
    command: str,
    design: str,
    lines: Mapping[str, tuple[int, int]] | None = None,
) -> Record[PreCommit]:
    """The pre-commit record of the series on ``checkout``'s base; ``lines``: each target's
    lines added and removed, as apply's table shows them."""
    base_config = (checkout.path / ".pre-commit-config.yaml").is_file()  # the base's own
    typed = tuple(
        Hook(h.hook, h.pin, len(h.checked), tuple(map(str, h.findings)), h.scope) for h in hooks
    )
    paths = tuple(sorted({c for h in hooks for c in h.checked if "(commit message)" not in c}))
    facts = PreCommit(typed, CONFIG, base_config, paths)
    problems = tuple(f"{h.name}: {h.findings[0]}" for h in typed if h.findings)
    rows = [
        f"{h.hook} {h.pin}: {len(h.findings)} findings on {', '.join(h.checked)}" for h in hooks
    ]
    changed = {t: f"+{a} -{r}" for t, (a, r) in (lines or {}).items()}
    rows_text = "\n".join(rows)
    return Record(
        facts, checkout.base, series_sha256, design, problems, command, rows_text, changed
    )
