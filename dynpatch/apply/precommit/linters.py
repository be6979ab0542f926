"""ruff 0.5.2 and codespell 2.2.4 with dynamo's settings, run in the formatter env on a
tree of the touched files; their reports as :class:`Finding` rows.

The PyPI wheel the tree is made from has no repository-root ``pyproject.toml``, so
dynamo's settings for these two tools are written here, each with where it comes from
(ai-dynamo/dynamo, ``.pre-commit-config.yaml`` and ``pyproject.toml``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from dynpatch.apply.precommit.findings import Finding
from dynpatch.errors import ToolkitError
from dynpatch.io import proc

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
CODESPELL_ARGS = (
    "--builtin",
    "clear",
    "--ignore-words-list",
    "afterall,ser,ende",
    "--quiet-level",
    "3",
    "--disable-colors",
)
_CODESPELL_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.+)$")
_CODESPELL_FOUND = 65  # codespell's EX_DATAERR: misspellings found


def write_tree(root: Path, files: dict[str, str]) -> list[Path]:
    """``files`` (repository path -> text) written under ``root``; their paths."""
    paths = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


def ruff(root: Path, paths: Sequence[str], python: Path) -> list[Finding]:
    """ruff's reports on ``paths`` (relative to ``root``) with dynamo's settings."""
    (root / "ruff.toml").write_text(RUFF_TOML)
    result = proc.run(
        [str(python), "-m", "ruff", *RUFF_ARGS, "--", *paths], doing="ruff", timeout=600, cwd=root
    )
    if result.returncode not in (0, 1):
        raise ToolkitError(f"ruff failed to run: {result.last_line()}")
    try:
        return parse_ruff(result.stdout, root)
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolkitError(f"ruff's JSON report is not what 0.5.2 writes: {exc}") from None


def parse_ruff(report: str, root: Path) -> list[Finding]:
    """Findings from ``ruff check --output-format json`` (file names under ``root``)."""
    found = []
    for item in json.loads(report or "[]"):
        path = Path(item["filename"])
        rel = str(path.relative_to(root)) if path.is_absolute() else str(path)
        fixable = " [fixable: ruff --fix would change the file]" if item.get("fix") else ""
        code = item.get("code") or "syntax-error"
        message = f"{code} {item['message']}{fixable}"
        found.append(Finding("ruff", rel, int(item["location"]["row"]), message))
    return found


def codespell(root: Path, paths: Sequence[str], python: Path) -> list[Finding]:
    """codespell's reports on ``paths`` (relative to ``root``) with dynamo's settings."""
    result = proc.run(
        [str(python), "-m", "codespell_lib", *CODESPELL_ARGS, "--", *paths],
        doing="codespell",
        timeout=600,
        cwd=root,
    )
    if result.returncode not in (0, _CODESPELL_FOUND):
        raise ToolkitError(f"codespell failed to run: {result.last_line()}")
    return parse_codespell(result.stdout)


def parse_codespell(report: str) -> list[Finding]:
    """Findings from codespell's ``path:line: word ==> correction`` lines."""
    found = []
    for line in report.splitlines():
        m = _CODESPELL_LINE.match(line.strip())
        if m:
            found.append(Finding("codespell", m["path"], int(m["line"]), m["message"]))
    return found
