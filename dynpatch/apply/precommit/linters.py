"""flake8, ruff and codespell with dynamo's settings in the formatter env, on a tree of the
touched files; their reports as :class:`Finding` rows. The PyPI wheel has no
repository-root ``pyproject.toml``, so dynamo's settings are written here, each with where
it comes from (ai-dynamo/dynamo, ``.pre-commit-config.yaml`` and ``pyproject.toml``)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from dynpatch.apply import scope
from dynpatch.apply.precommit.findings import Finding
from dynpatch.errors import ToolkitError
from dynpatch.io import proc

FLAKE8_ARGS = ("--isolated", "--max-line-length=88", "--select=C,E,F,W,B,B950")
FLAKE8_ARGS += ("--extend-ignore=E203,E501",)
# dynamo's [tool.ruff] and [tool.ruff.lint.extend-per-file-ignores], as they apply to
# components/src/dynamo/ (no nested ruff or pyproject config there). dynamo selects no
# rules, so ruff 0.5.2's defaults apply (E4, E7, E9, F). dynamo sets no target-version:
# ruff takes it from [project] requires-python = ">=3.10".
RUFF_TOML = """\
line-length = 88
indent-width = 4
target-version = "py310"

[lint.extend-per-file-ignores]
"icp/tests/**/test_*.py" = ["F811", "F401"]
"*_inc.py" = ["F821"]
"""
# The pre-commit hook is `ruff check --force-exclude --fix --exit-non-zero-on-fix`: it
# fails when ruff fixes anything or anything is left to fix, i.e. whenever ruff reports.
# So every report counts (fixable ones are marked) and nothing is fixed here. Without
# --force-exclude: ruff's default excludes (.venv, build, ...) never match dynamo's
# component paths, and a file excluded by a temporary folder's name would pass unseen.
RUFF_ARGS = ("check", "--config", "ruff.toml", "--no-cache", "--no-fix", "--output-format", "json")
# dynamo's [tool.codespell]: ignore-words-list = "afterall,ser,ende", builtin = "clear",
# quiet-level = 3. Assumed: their `dictionary = "./codespell.txt"` (a repository file the
# wheel does not ship, and not found) is left out and the builtin "clear" dictionary used,
# as their comment there intends ("in addition to the built-in one"). Note that codespell
# 2.2.4 itself, given only `dictionary`, would not load the builtin one. Their `skip` list
# names no file of the series.
CODESPELL_ARGS = ("--builtin", "clear", "--ignore-words-list", "afterall,ser,ende")
CODESPELL_ARGS += ("--quiet-level", "3", "--disable-colors")
_REPORT = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?:\d+:)? (?P<message>.+)$")
_CODESPELL_FOUND = 65  # codespell's EX_DATAERR: misspellings found


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """``files`` (repository path -> text) written under ``root``."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _run(tool: str, args: Sequence[str], root: Path, python: Path, ok: tuple[int, ...]) -> str:
    result = proc.run([str(python), "-m", *args], doing=tool, timeout=600, cwd=root)
    if result.returncode not in ok:
        raise ToolkitError(f"{tool} failed to run: {result.last_line()}")
    return result.stdout


def _parse(tool: str, report: str) -> list[Finding]:
    """Findings from ``path:line[:col]: message`` lines."""
    found = [_REPORT.match(line.strip()) for line in report.splitlines()]
    return [Finding(tool, m["path"], int(m["line"]), m["message"]) for m in found if m]


def flake8(
    root: Path, old: Mapping[str, str], new: Mapping[str, str], python: Path
) -> list[Finding]:
    """flake8's reports (upstream arguments) on the lines the change old -> new added, for
    the files ``new`` written under ``root``."""
    report = _run("flake8", ["flake8", *FLAKE8_ARGS, "--", *new], root, python, (0, 1))
    return [
        f
        for f in _parse("flake8", report)
        if f.line in scope.added_lines(old.get(f.path, ""), new[f.path])
    ]


def ruff(root: Path, paths: Sequence[str], python: Path) -> list[Finding]:
    """ruff's reports on ``paths`` (relative to ``root``) with dynamo's settings."""
    (root / "ruff.toml").write_text(RUFF_TOML)
    report = _run("ruff", ["ruff", *RUFF_ARGS, "--", *paths], root, python, (0, 1))
    try:
        return parse_ruff(report, root)
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolkitError(f"ruff's JSON report is not what 0.5.2 writes: {exc}") from None


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


def codespell(root: Path, paths: Sequence[str], python: Path) -> list[Finding]:
    """codespell's reports on ``paths`` (relative to ``root``) with dynamo's settings."""
    args = ["codespell_lib", *CODESPELL_ARGS, "--", *paths]
    return _parse("codespell", _run("codespell", args, root, python, (0, _CODESPELL_FOUND)))
