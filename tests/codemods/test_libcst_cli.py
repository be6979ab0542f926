"""The commands under LibCST's own CLI, ``python -m libcst.tool``: listed from this
repository's ``.libcst.codemod.yaml``; on the pinned release, each run over every target
file transforms exactly its own, and together they make the committed patch."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from codemods.series import SERIES, Step
from dynpatch.apply.tools import format_upstream, tools_python
from dynpatch.fetch import materialise_pypi
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from tests.codemods import test_handler_call_passes_delta as handler
from tests.codemods import test_logprobs_helper as helper
from tests.fixtures.synthetic import REPO

ROOT = Path(__file__).resolve().parents[2]
TARGETS = sorted({s.target.path for s in SERIES})


def libcst_tool(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m libcst.tool ARGS`` in ``cwd`` with this repository importable; where
    ``cwd`` has this repository's config, it must be found."""
    env = {k: v for k, v in os.environ.items() if k != "LIBCST_TOOL_REQUIRE_CONFIG"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    if cwd == ROOT:  # fail rather than fall back to LibCST's defaults
        env["LIBCST_TOOL_REQUIRE_CONFIG"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "libcst.tool", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )


def codemod(tree: Path, step: Step, *paths: str) -> subprocess.CompletedProcess:
    """Run ``step`` as from a dynamo clone: no config there, the command named in full
    (``-x``; the command goes first, or libcst.tool takes an option's value for it)."""
    command = f"{step.codemod.__module__}.{step.codemod.__name__}"
    return libcst_tool("codemod", "-x", command, "--no-format", "--hide-progress", *paths, cwd=tree)


def summary(stderr: str) -> tuple[int, int, int]:
    """(transformed, skipped, failed) from libcst.tool's closing lines."""
    heads = (" - Transformed ", " - Skipped ", " - Failed to codemod ")
    counts = {
        h: int(ln.removeprefix(h).split()[0])
        for ln in stderr.splitlines()
        for h in heads
        if ln.startswith(h)
    }
    return tuple(counts.get(h, -1) for h in heads)  # type: ignore[return-value]


def test_list_shows_every_command_with_its_description() -> None:
    proc = libcst_tool("list", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    short = (
        f"{s.codemod.__module__.removeprefix('codemods.')}.{s.codemod.__name__}" for s in SERIES
    )
    assert proc.stdout.splitlines() == sorted(
        f"{c} - {s.codemod.DESCRIPTION}" for c, s in zip(short, SERIES, strict=True)
    )


def test_a_module_from_stdin_is_taken_as_the_target() -> None:
    command = "logprobs_helper.LogprobsHelperDelta"
    proc = libcst_tool(
        "codemod", command, "--no-format", "-", cwd=ROOT, stdin=dedent(helper.BEFORE)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == dedent(helper.AFTER) + "\n"  # libcst.tool print()s the module


def test_drift_fails_loudly_and_leaves_the_file(tmp_path: Path) -> None:
    step = SERIES[2]
    path = tmp_path / step.target.path
    path.parent.mkdir(parents=True)
    path.write_text(drifted := dedent(handler.BEFORE).replace("tokens_so_far\n", "so_far\n"))
    proc = codemod(tmp_path, step, "components")
    assert proc.returncode == 1 and summary(proc.stderr) == (0, 0, 1), proc.stderr
    assert f"Failed to codemod {path.resolve()}" in proc.stderr
    assert f"Drifted: {step.target.path}" in proc.stderr and "cursor `so_far`" in proc.stderr
    assert path.read_text() == drifted


@pytest.mark.integration
def test_on_the_pinned_release_each_makes_its_part_of_the_committed_patch(tmp_path: Path) -> None:
    pin = load_pin(REPO.pin)
    cache = tmp_path / "wheels"
    cache.mkdir()
    cached = REPO.wheels / pin.pinned.wheel
    if cached.is_file():  # the same bytes PyPI serves; sha256 is re-checked either way
        shutil.copy(cached, cache)
    tree = tmp_path / "tree"
    materialise_pypi(pin, pin.pinned, tree, cache)

    # Each command is handed every target file (a whole tree is 925 files, a minute a
    # run): it transforms its own and skips the others as not its target.
    for step in SERIES:
        proc = codemod(tree, step, *TARGETS)
        assert proc.returncode == 0 and summary(proc.stderr) == (1, 3, 0), proc.stderr[-3000:]
        reason = f": not {step.target.path} (or {step.target.wheel_path} in a wheel)"
        assert proc.stderr.count(reason) == 3, proc.stderr[-3000:]
    assert sorted(line[3:] for line in gitio.local_changes(tree)) == TARGETS

    changed = {p: (tree / p).read_text(encoding="utf-8") for p in TARGETS}
    for path, text in format_upstream(changed, tools_python(REPO.cache)).items():
        (tree / path).write_text(text, encoding="utf-8")
    gitio.git_cmd(tree, "add", "-A")
    by_cli = gitio.git_cmd(tree, "write-tree").strip()

    # The committed series on the same base gives the very same tree, file for file.
    gitio.git_cmd(tree, "reset", "-q", "--hard")
    patches = ROOT / "patches"
    gitio.am(tree, [patches / n for n in (patches / "series").read_text().split()])
    assert gitio.tree_of(tree, "HEAD") == by_cli
