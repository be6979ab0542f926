"""The commands under LibCST's own CLI, ``python -m libcst.tool``: listed from this
repository's ``.libcst.codemod.yaml``; on the pinned release's four target files each
transforms its own and skips the others, and together they make what ``run_series`` makes
(which regenerates ``patches/``: tests/dynpatch/apply/test_export.py); drift fails loudly."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from textwrap import dedent

import pytest

from codemods.series import ONE_LINER, SERIES, Step, run_series
from dynpatch.io import pypi
from dynpatch.pin import load_pin
from tests.codemods import test_handler_call_passes_delta as loop
from tests.fixtures.synthetic import REPO, write_files

ROOT = Path(__file__).resolve().parents[2]
TARGETS = sorted({s.target.path for s in SERIES})


def libcst_tool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m libcst.tool ARGS`` in ``cwd`` with this repository importable; where
    ``cwd`` has this repository's config, it must be found (no fallback to the defaults)."""
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    env = {**os.environ, "PYTHONPATH": path, "LIBCST_TOOL_REQUIRE_CONFIG": "1" * (cwd == ROOT)}
    command = [sys.executable, "-m", "libcst.tool", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def codemod(tree: Path, step: Step, *paths: str) -> subprocess.CompletedProcess:
    """Run ``step`` as from a dynamo clone: no config there, the command named in full
    (``-x``; the command goes first, or libcst.tool takes an option's value for it)."""
    command = f"{step.codemod.__module__}.{step.codemod.__name__}"
    return libcst_tool("codemod", "-x", command, "--no-format", "--hide-progress", *paths, cwd=tree)


def summary(stderr: str) -> tuple[int, ...]:
    """(transformed, skipped, failed) from libcst.tool's closing lines."""
    heads = (" - Transformed ", " - Skipped ", " - Failed to codemod ")
    found = {
        h: int(ln.removeprefix(h).split()[0])
        for ln in stderr.splitlines()
        for h in heads
        if ln.startswith(h)
    }
    return tuple(found.get(h, -1) for h in heads)


def test_list_shows_every_command_with_its_description() -> None:
    proc = libcst_tool("list", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    steps = [*SERIES, *ONE_LINER]
    short = (
        f"{s.codemod.__module__.removeprefix('codemods.')}.{s.codemod.__name__}" for s in steps
    )
    assert proc.stdout.splitlines() == sorted(
        f"{c} - {s.codemod.DESCRIPTION}" for c, s in zip(short, steps, strict=True)
    )


@pytest.mark.integration
def test_on_the_pinned_release_each_makes_its_part_of_the_series(tmp_path: Path) -> None:
    pin = load_pin(REPO.pin)
    cache = REPO.wheels if (REPO.wheels / pin.pinned.wheel).is_file() else tmp_path
    wheel = pypi.download_wheel(pin.package, pin.pinned.version, pin.pinned.wheel, cache)
    assert pypi.sha256_of(wheel) == pin.pinned.sha256
    with zipfile.ZipFile(wheel) as zf:
        base = {s.target.path: zf.read(s.target.wheel_path).decode() for s in SERIES}
    write_files(tmp_path, base)
    # A drifted copy of the loop's file, in a wheel's layout: its command fails on it.
    drifted = tmp_path / "site" / SERIES[2].target.wheel_path
    drifted.parent.mkdir(parents=True)
    drifted.write_text(text := dedent(loop.BEFORE).replace("tokens_so_far\n", "so_far\n"))

    stderr = {}
    for step in SERIES:
        fails = ["site"] if step is SERIES[2] else []
        proc = codemod(tmp_path, step, *TARGETS, *fails)
        stderr[step] = proc.stderr
        end = (proc.returncode, summary(proc.stderr))
        assert end == (len(fails), (1, 3, len(fails))), proc.stderr[-3000:]
        reason = f": not {step.target.path} (or {step.target.wheel_path} in a wheel)"
        assert proc.stderr.count(reason) == 3, proc.stderr[-3000:]
    failed = stderr[SERIES[2]]
    assert f"Failed to codemod {drifted.resolve()}" in failed and "cursor `so_far`" in failed
    assert f"Drifted: {SERIES[2].target.path}" in failed and drifted.read_text() == text
    made = {p: (tmp_path / p).read_text(encoding="utf-8") for p in TARGETS}
    assert made == run_series(base.get).changed
