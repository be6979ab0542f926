"""Stage 3, format: upstream's own formatters at upstream's versions, and scope checks.

The touched files are run through isort 5.12.0 and black 23.1.0 (dynamo's pre-commit
pins and settings) in an isolated virtual environment under ``vendor/tools/``. Then
two checks guard the reviewability of the result: every changed line lies inside a
target function, and flake8 7.3.0 with upstream's arguments is clean on changed lines.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import os
import sys
import tempfile
import venv
from collections.abc import Mapping, Sequence
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi

TOOLS = ("black==23.1.0", "isort==5.12.0", "flake8==7.3.0")
FLAKE8_ARGS = (
    "--max-line-length=88",
    "--select=C,E,F,W,B,B950",
    "--extend-ignore=E203,E501",
)


def tools_python(vendor: Path) -> Path:
    """Python of the isolated formatter env (created once, atomically)."""
    key = hashlib.sha256(" ".join(TOOLS).encode() + sys.version.encode()).hexdigest()[:12]
    env_dir = vendor / "tools" / f"upstream-fmt-{key}"
    python = env_dir / "bin" / "python"
    if python.exists():
        return python
    with files.lock(vendor / "locks" / f"{env_dir.name}.lock", f"the formatter env {env_dir}"):
        if python.exists():  # another run built it while this one waited
            return python
        with files.staged_dir(env_dir) as tmp:
            venv.EnvBuilder(with_pip=True, symlinks=True).create(tmp)
            pypi.pip_install_into(tmp / "bin" / "python", TOOLS)
    # `python -m` keeps working after the rename; console-script shebangs would not.
    return python


# Runs inside the tool env: one interpreter for isort + black (startup dominates).
_FORMAT_SCRIPT = """
import json, sys
import black, isort
files = json.load(sys.stdin)
config = isort.Config(profile="black", line_length=88, known_first_party=["dynamo"])
mode = black.Mode(line_length=88)
out = {}
for path, text in files.items():
    text = isort.code(text, config=config)
    try:
        text = black.format_file_contents(text, fast=False, mode=mode)
    except black.NothingChanged:
        pass
    out[path] = text
json.dump(out, sys.stdout)
"""


def format_upstream(files: Mapping[str, str], python: Path) -> dict[str, str]:
    """Return ``files`` (repo path -> source) after isort and black, upstream style."""
    result = proc.run([str(python), "-c", _FORMAT_SCRIPT], doing="isort and black",
                      timeout=600, stdin=json.dumps(dict(files)))  # fmt: skip
    if result.returncode != 0:
        raise ToolkitError(f"isort/black failed on the patched files: {result.last_line()}")
    formatted: dict[str, str] = json.loads(result.stdout)
    return formatted


def flake8_on_changed_lines(
    old: Mapping[str, str], new: Mapping[str, str], python: Path
) -> list[str]:
    """flake8 reports (upstream arguments) that fall on lines the change added."""
    with tempfile.TemporaryDirectory(prefix="dynpatch-flake8-") as tmp:
        paths = _write_tree(Path(tmp), new)
        result = proc.run(
            [str(python), "-m", "flake8", "--isolated", *FLAKE8_ARGS, *map(str, paths)],
            doing="flake8", timeout=600, cwd=tmp,
        )  # fmt: skip
        if result.returncode not in (0, 1):
            raise ToolkitError(f"flake8 failed to run: {result.last_line()}")
        reports = []
        for line in result.stdout.splitlines():
            file, lineno, *_ = line.split(":", 3)
            rel = os.path.relpath(file, tmp)
            if int(lineno) in added_lines(old.get(rel, ""), new[rel]):
                reports.append(f"{rel}:{line.split(':', 1)[1]}")
        return reports


def _write_tree(root: Path, files: Mapping[str, str]) -> list[Path]:
    paths = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


# --- scope ---------------------------------------------------------------------------


def added_lines(old: str, new: str) -> set[int]:
    """1-based line numbers of ``new`` that the diff old -> new adds or changes."""
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
    return lines


def removed_lines(old: str, new: str) -> set[int]:
    """1-based line numbers of ``old`` that the diff old -> new removes or changes."""
    return added_lines(new, old)


def function_span(source: str, qualname: str) -> tuple[int, int] | None:
    """First (decorators included) and last line of ``qualname`` in ``source``."""
    *outer, name = qualname.split(".")
    body: list[ast.stmt] = ast.parse(source).body
    for cls in outer:
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if node is None:
            return None
        body = node.body
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return first, node.end_lineno or node.lineno
    return None


def lines_changed_in(
    old: str,
    new: str,
    qualnames: list[str],
    *,
    added: Mapping[str, Sequence[str]] | None = None,
    new_file: str | None = None,
) -> dict[str, tuple[int, int]]:
    """Per target: (lines added, lines removed).

    A target is a function of ``qualnames`` (its changed lines count), a label in
    ``added`` naming the top-level definitions that target adds (their lines count,
    with the blank and comment lines that separate them from their neighbours), or
    ``new_file``, a label for a file the change creates (every line counts).

    Raises when any changed line lies outside every target: formatting or a codemod
    touched code the series has no business touching.
    """
    added_lines_, removed = added_lines(old, new), removed_lines(old, new)
    counts: dict[str, tuple[int, int]] = {}
    if new_file is not None:
        if old.strip():
            raise ToolkitError(f"{new_file}: expected a new file, but it exists already")
        counts[new_file] = (len(added_lines_), 0)
        return counts
    for qualname in qualnames:
        new_span, old_span = function_span(new, qualname), function_span(old, qualname)
        inside_new = {n for n in added_lines_ if new_span and new_span[0] <= n <= new_span[1]}
        inside_old = {n for n in removed if old_span and old_span[0] <= n <= old_span[1]}
        counts[qualname] = (len(inside_new), len(inside_old))
        added_lines_ -= inside_new
        removed -= inside_old
    for label, names in (added or {}).items():
        spans = definition_spans(new, names)
        inside = {n for n in added_lines_ if any(a <= n <= b for a, b in spans)}
        counts[label] = (len(inside), 0)
        added_lines_ -= inside
    if added_lines_ or removed:
        where = sorted(added_lines_)[:1] or sorted(removed)[:1]
        side = "new" if added_lines_ else "old"
        targets = [*qualnames, *(added or {})]
        raise ToolkitError(
            f"{len(added_lines_) + len(removed)} changed line(s) outside "
            f"{', '.join(targets)} (first at {side} line {where[0]}): refusing unrelated churn"
        )
    return counts


def definition_spans(source: str, names: Sequence[str]) -> list[tuple[int, int]]:
    """Line spans of the top-level definitions ``names`` in ``source``.

    Each span starts right after the previous top-level statement (so the blank and
    comment lines before a definition belong to it) and runs on over the blank lines
    after it. Raises if a name is not a top-level definition of ``source``.
    """
    lines = source.splitlines()
    body = ast.parse(source).body
    spans = []
    for name in names:
        index = next(
            (
                i
                for i, node in enumerate(body)
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name == name
            ),
            None,
        )
        if index is None:
            raise ToolkitError(f"the change should add {name}, but it is not in the result")
        node = body[index]
        start = (body[index - 1].end_lineno or 0) + 1 if index else 1
        end = node.end_lineno or node.lineno
        while end < len(lines) and not lines[end].strip():  # lines[end] is line end+1
            end += 1
        spans.append((start, end))
    return spans
