"""The commands under LibCST's own CLI, ``python -m libcst.tool``: listed from this
repository's ``.libcst.codemod.yaml``, run over a whole tree where each touches only its
target, and, on the pinned release, making exactly the committed patch."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import handler_response_loop_tests, helper_delta_tests, logprobs_helper
from codemods.handler_extract_forwards_delta import PATH as HANDLER_PATH
from codemods.series import SERIES, Step, run_series
from dynpatch.apply.tools import format_upstream, tools_python
from dynpatch.fetch import materialise_pypi
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from tests.codemods.support import TEST_MODULE
from tests.fixtures import snippets
from tests.fixtures.synthetic import REPO

ROOT = Path(__file__).resolve().parents[2]
PATCHES = ROOT / "patches"
VENDOR = ROOT / "vendor"
CONFIG = ROOT / ".libcst.codemod.yaml"


def libcst_tool(
    *args: str, cwd: Path, require_config: bool = False, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """``python -m libcst.tool ARGS`` in ``cwd`` with this repository importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("LIBCST_TOOL_REQUIRE_CONFIG", None)
    if require_config:  # fail rather than fall back to LibCST's default configuration
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


def command(step: Step, external: bool = False) -> str:
    """``module.Class`` as ``libcst.tool codemod`` takes it (``-x``: the full module)."""
    module = step.codemod.__module__
    return f"{module if external else module.removeprefix('codemods.')}.{step.codemod.__name__}"


def codemod(
    tree: Path, step: Step, *, external: bool = False, where: str = "components/src"
) -> subprocess.CompletedProcess:
    # The command goes first: libcst.tool's first pass would take an option's value for it.
    flags = ["-x"] if external else []
    args = [*flags, command(step, external), "--no-format", "--hide-progress", where]
    return libcst_tool("codemod", *args, cwd=tree, require_config=not external)


def summary(stderr: str) -> tuple[int, int, int]:
    """(transformed, skipped, failed) from libcst.tool's closing lines."""

    def count(prefix: str) -> int:
        line = next(ln for ln in stderr.splitlines() if ln.startswith(prefix))
        return int(line.removeprefix(prefix).split()[0])

    return (
        count(" - Transformed "),
        count(" - Skipped "),
        count(" - Failed to codemod "),
    )


def skipped(stderr: str, tree: Path) -> dict[str, str]:
    """Repository path -> reason, for every file libcst.tool reports as skipped."""
    found = {}
    for line in stderr.splitlines():
        if line.startswith("Skipped codemodding "):
            path, _, reason = line.removeprefix("Skipped codemodding ").partition(": ")
            found[Path(path).resolve().relative_to(tree.resolve()).as_posix()] = reason
    return found


def python_files(tree: Path) -> set[str]:
    return {p.relative_to(tree).as_posix() for p in (tree / "components/src").rglob("*.py")}


def not_target(step: Step) -> str:
    return f"not {step.target.path} (or {step.target.wheel_path} in a wheel)"


def assert_touches_only_its_target(proc: subprocess.CompletedProcess, tree: Path, step: Step):
    assert proc.returncode == 0, proc.stderr[-3000:]
    files = python_files(tree)
    assert summary(proc.stderr) == (1, len(files) - 1, 0), proc.stderr[-3000:]
    skips = skipped(proc.stderr, tree)
    assert set(skips) == files - {step.target.path}
    # Every other file is skipped as not the target (or by LibCST's generated-code marker).
    assert set(skips.values()) <= {not_target(step), "Generated file."}


# --- offline ---------------------------------------------------------------------------


def test_list_shows_every_command_with_its_description() -> None:
    proc = libcst_tool("list", cwd=ROOT, require_config=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == sorted(
        f"{command(s)} - {s.codemod.DESCRIPTION}" for s in SERIES
    )


def test_a_module_from_stdin_is_taken_as_the_target() -> None:
    proc = libcst_tool(
        "codemod", command(SERIES[0]), "--no-format", "-", cwd=ROOT, stdin=snippets.HELPER
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == snippets.HELPER_PATCHED + "\n"  # libcst.tool print()s the module


def test_the_commands_over_a_synthetic_tree_make_what_the_series_makes(tmp_path: Path) -> None:
    """Run as a dynamo clone would run them, without this repository's config (``-x``):
    each touches only its target; the result is ``run_series``'s; a second pass skips
    every file; drift fails loudly and leaves the file alone."""
    sources = {
        logprobs_helper.TARGET.path: snippets.HELPER,
        HANDLER_PATH: snippets.HANDLER,
        helper_delta_tests.PATH: TEST_MODULE,
        handler_response_loop_tests.PATH: snippets.HANDLER_TESTS,
    }
    others = {
        "components/src/dynamo/__init__.py": "",
        "components/src/dynamo/trtllm/tests/__init__.py": "",
        "components/src/dynamo/vllm/handlers.py": snippets.HELPER,  # same text, other file
    }
    tree = tmp_path / "tree"
    for path, text in {**sources, **others}.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)

    for step in SERIES:
        assert_touches_only_its_target(codemod(tree, step, external=True), tree, step)

    expected = {**sources, **others, **run_series(sources.get).changed}
    assert set(expected) == {*sources, *others}
    for path, text in expected.items():
        assert (tree / path).read_text() == text, path

    for step in SERIES:
        proc = codemod(tree, step, external=True)
        assert proc.returncode == 0 and summary(proc.stderr)[::2] == (0, 0), proc.stderr
        assert "already" in skipped(proc.stderr, tree)[step.target.path]

    drifted = expected[HANDLER_PATH].replace(
        "tokens_so_far, new_token_ids", "so_far, new_token_ids"
    )
    (tree / HANDLER_PATH).write_text(drifted)
    proc = codemod(tree, SERIES[2], external=True)
    assert proc.returncode == 1 and summary(proc.stderr)[2] == 1
    assert f"Failed to codemod {(tree / HANDLER_PATH).resolve()}" in proc.stderr
    assert "Drifted: " + SERIES[2].target.path in proc.stderr and "cursor `so_far`" in proc.stderr
    assert (tree / HANDLER_PATH).read_text() == drifted


# --- the pinned release ----------------------------------------------------------------


@pytest.mark.integration
def test_libcst_tool_on_the_pinned_release_makes_the_committed_patch(tmp_path: Path) -> None:
    pin = load_pin(REPO.pin)
    cache = tmp_path / "wheels"
    cache.mkdir()
    cached = VENDOR / "cache" / "wheels" / pin.pinned.wheel
    if cached.is_file():  # the same bytes PyPI serves; sha256 is re-checked either way
        shutil.copy(cached, cache)
    by_cli, by_am = tmp_path / "cli", tmp_path / "am"
    materialise_pypi(pin, pin.pinned, by_cli, cache)
    materialise_pypi(pin, pin.pinned, by_am, cache)

    patches = [PATCHES / n for n in (PATCHES / "series").read_text().split()]
    gitio.am(by_am, patches)
    touched = set(gitio.git_cmd(by_am, "diff", "--name-only", "HEAD~1", "HEAD").split())
    assert touched == {s.target.path for s in SERIES}

    # This repository's config, found from the tree upward as a clone's own would be. Each
    # command is handed its target's folder: that it touches nothing else in a whole tree
    # is the synthetic test's (the release's 925 files took a minute per run).
    shutil.copy(CONFIG, tmp_path / CONFIG.name)
    for step in SERIES:
        proc = codemod(by_cli, step, where=str(Path(step.target.path).parent))
        assert proc.returncode == 0 and summary(proc.stderr)[::2] == (1, 0), proc.stderr[-3000:]

    status = gitio.local_changes(by_cli)
    assert {line[3:] for line in status} == touched, status
    changed = {p: (by_cli / p).read_text(encoding="utf-8") for p in touched}
    for path, text in format_upstream(changed, tools_python(VENDOR)).items():
        (by_cli / path).write_text(text, encoding="utf-8")

    for path in sorted(touched):
        assert (by_cli / path).read_bytes() == (by_am / path).read_bytes(), path
    # And no other file differs: the whole work tree is the patched commit's tree.
    gitio.git_cmd(by_cli, "add", "-A")
    assert gitio.git_cmd(by_cli, "write-tree").strip() == gitio.tree_of(by_am, "HEAD")
