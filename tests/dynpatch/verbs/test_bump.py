"""`bump` on temporary copies of the pin and patches/: synthetic 9.9.8 -> 9.9.9 offline
(success with a real check, refusals, restore after a failed install or a kill) and the
real 1.6.1 -> 1.6.0 (integration). The repo's own pin and patches/ are never touched."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dynpatch import cli
from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch
from dynpatch.io import faults, pypi
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin, with_version
from dynpatch.services import checks as stages
from dynpatch.services import export as apply
from dynpatch.workspace import TOOLKIT, Workspace
from tests.fixtures import snippets
from tests.fixtures.releases import (
    DRIFTED,
    FIXED_UPSTREAM,
    Vendor,
    fake_runtime,
    make_vendor,
    this_interpreter,
)
from tests.fixtures.synthetic import REPO, committed, git_status
from tests.fixtures.upstream_tree import FILES

# 9.9.8: the 1.3/1.4 shape of the helper (`is None` guard); 9.9.9: the 1.5+ shape.
OLD = {**FILES, "dynamo/common/backend/logprobs.py": snippets.HELPER_IS_NONE_GUARD}


def snapshot(v) -> tuple[bytes, dict[str, bytes]]:
    return v.pin.path.read_bytes(), {p.name: p.read_bytes() for p in v.ws.patches.iterdir()}


def run_bump(v, tmp_path: Path, version: str, *extra: str) -> int:
    """The command line, in ``v``'s root."""
    with contextlib.chdir(v.ws.root):
        return cli.main(["bump", version, "--out", str(tmp_path / "bump"), *extra])


@pytest.fixture(scope="module")
def synthetic_once(tmp_path_factory: pytest.TempPathFactory) -> Vendor:
    return make_vendor(
        tmp_path_factory.mktemp("bump"),
        {"9.9.6": DRIFTED, "9.9.8": OLD, "9.9.9": FILES, "10.0.0": FIXED_UPSTREAM},
        pinned="9.9.8",
    )


@pytest.fixture
def synthetic(synthetic_once: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Pinned at 9.9.8 with its committed series; 9.9.9, a drifted 9.9.6 and 10.0.0 with the
    fix upstream cached: a copy of one made per module. The checks' interpreter is this
    one, with a metadata-only runtime 9.9.9."""
    root = tmp_path / "root"
    shutil.copytree(synthetic_once.ws.root, root, symlinks=True)
    v = Vendor(load_pin(root / "dynamo.toml"), Workspace(root))
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "9.9.9")))
    this_interpreter(monkeypatch)
    return v


def test_bump_moves_the_pin_regenerates_and_shows_the_range_diff(
    synthetic, tmp_path: Path, capsys
) -> None:
    code = run_bump(synthetic, tmp_path, "9.9.9", "--skip", "verify")
    printed = capsys.readouterr().out
    assert code == 0, printed

    pin = load_pin(synthetic.pin.path)
    assert pin.version == "9.9.9"
    checkout = fetch(pin, synthetic.ws, version="9.9.9")
    assert pin.release("9.9.9").tree == gitio.tree_of(checkout.path, checkout.base)  # recorded

    patch = next(synthetic.ws.patches.glob("0001-*.patch")).read_text()
    assert f"sha256 {pin.release('9.9.9').sha256}" in patch  # provenance of the new base
    assert f"base-commit: {checkout.base}" in patch

    # range-diff: one commit, changed only where 9.9.8 and 9.9.9 differ (the guard)
    diff = printed.split("git range-diff (committed series on 9.9.8 → regenerated on 9.9.9):")[1]
    assert "1:  " in diff and " ! 1:  " in diff
    assert "perf(trtllm): reuse the streamed delta for logprob extraction" in diff
    guard = '-     if output.logprobs is None:\n    +     if not getattr(output, "logprobs", None):'
    assert guard in diff
    assert "test-upstream: pass: baseline 3 passed of 3, patched 6 passed of 6" in printed
    assert "verify: SKIPPED (--skip verify): not checked before the pin moved" in printed
    assert "pin moved 9.9.8 → 9.9.9" in printed
    # the check's record now describes the pinned series
    (saved,) = (synthetic.ws.evidence / "test-upstream").glob("*.json")
    record = json.loads(saved.read_text())
    assert record["problems"] == [] and record["details"]["version"] == "9.9.9"


@pytest.mark.parametrize(
    ("version", "python", "why"),
    [
        (
            "9.9.6",
            sys.executable,
            [
                "REFUSED: 2 problem(s):",
                "found parameters (output, cursor)",
                "not fixed another way either, by a run of its code: chunk 1 of stream ",
            ],
        ),
        (
            "10.0.0",
            sys.executable,
            [
                "patch series on ai-dynamo 10.0.0 (pypi)",  # the outcome table
                "REFUSED: 1 problem(s):\n  the series is fixed upstream in 10.0.0: retire it",
                "fixed upstream by a keyword of its own (extract_from_completion_output takes",
            ],
        ),
        # a candidate fix the run cannot confirm is a drift
        ("10.0.0", "/nonexistent/python", ["REFUSED: 3 problem(s):\n  upstream's own fix? "]),
        # the checks fail (a fake: the real one runs in the test above)
        ("9.9.9", sys.executable, ["REFUSED: 2 problem(s):\n  test-upstream fail: regressed"]),
    ],
    ids=["drifted", "fixed-upstream", "not-judged", "check-failed"],
)
def test_drift_a_fix_upstream_or_a_failed_check_refuses_and_leaves_pin_and_patches(
    synthetic, tmp_path: Path, monkeypatch, capsys, version: str, python: str, why: list[str]
) -> None:
    this_interpreter(monkeypatch, python)
    failed = stages.Check(stages.FAIL, "regressed", 3.0)
    monkeypatch.setattr(stages, "run_check", lambda name, job, screen: (failed, None))
    before = snapshot(synthetic)
    runs = []
    real = apply.run_series
    monkeypatch.setattr(apply, "run_series", lambda *a: runs.append(1) or real(*a))
    assert run_bump(synthetic, tmp_path, version) == 1
    printed = capsys.readouterr().out
    assert len(runs) == 1  # the codemods ran once: the table and the refusal share them
    for needle in why:
        assert needle in printed
    # the range-diff is shown before the checks, for the reviewer; a drift has none
    assert ("git range-diff" in printed) == (version == "9.9.9")
    assert "stays at 9.9.8" in printed and "is unchanged" in printed
    assert snapshot(synthetic) == before
    assert not synthetic.ws.evidence.exists()  # no record of a failing check is saved


def test_a_failed_install_restores_both(synthetic, tmp_path: Path, monkeypatch, capsys) -> None:
    before = snapshot(synthetic)
    real = faults.checkpoint

    def fail_after_the_patches(name: str) -> None:
        if name == "bump.patches":  # patches/ rewritten ...
            (synthetic.ws.patches / "stray.patch").write_text("half-written\n")
            raise OSError("disk full")  # ... then the pin write never happens
        real(name)

    monkeypatch.setattr(faults, "checkpoint", fail_after_the_patches)
    code = run_bump(synthetic, tmp_path, "9.9.9", "--skip", "test-upstream", "--skip", "verify")
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "error: could not install the new pin and patches/ (disk full); both restored as they were"
    )
    assert snapshot(synthetic) == before


def test_killed_between_patches_and_the_pin_the_next_run_puts_both_back(
    synthetic, tmp_path: Path
) -> None:
    root, before = synthetic.ws.root, snapshot(synthetic)
    committed(root)
    argv = [sys.executable, "-m", "dynpatch", "bump", "9.9.9", "--skip", "test-upstream"]
    env = {**os.environ, "DYNPATCH_FAULT_AT": "bump.patches", "PYTHONPATH": str(TOOLKIT)}
    proc = subprocess.run(
        [*argv, "--skip", "verify"], env=env, cwd=root, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    pin, patches = snapshot(synthetic)
    assert pin == before[0] and patches != before[1]  # the two disagree, until ...
    assert git_status(root) == {"patches"}  # the journal is git-ignored
    with contextlib.chdir(root):
        assert cli.main(["pin", "runtime"]) == 0  # the next run that reads the pin
    assert snapshot(synthetic) == before and git_status(root) == set()
    assert not list(synthetic.pin.path.parent.glob(".dynamo.toml.*"))


@pytest.mark.integration
def test_real_bump_1_6_1_to_1_6_0(tmp_path: Path, capsys) -> None:
    """On copies of the committed pin and patches/, bumping to 1.6.0 moves only the pin's
    version (the tree it records for 1.6.0 is the one committed) and regenerates the very
    same change there. The checks cannot run in this test environment (no torch, no
    per-release runtime): skipped, and said so."""
    ws = Workspace(tmp_path)  # the real caches, shared
    ws.vendor.symlink_to(REPO.vendor, target_is_directory=True)
    ws.cache.mkdir()
    for cache in ("wheels", "tools"):
        (ws.cache / cache).symlink_to(REPO.cache / cache, target_is_directory=True)
    shutil.copy(REPO.pin, ws.pin)
    shutil.copytree(REPO.patches, ws.patches)
    with contextlib.chdir(tmp_path):
        code = cli.main(["bump", "1.6.0", "--skip", "test-upstream", "--skip", "verify"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert ws.pin.read_text() == with_version(REPO.pin.read_text(), "1.6.0")
    assert sorted(p.name for p in ws.patches.iterdir()) == sorted(
        p.name for p in REPO.patches.iterdir()
    )
    patch = next(ws.patches.glob("0001-*.patch")).read_text()
    assert f"sha256 {load_pin(ws.pin).release('1.6.0').sha256}" in patch
    assert "1:  " in printed and " = 1:  " in printed  # range-diff: the same patch
    assert "test-upstream: SKIPPED" in printed and "verify: SKIPPED" in printed


def test_bad_inputs_are_one_line(synthetic, tmp_path, monkeypatch, capsys) -> None:
    def offline(*args: object, **kwargs: object) -> Path:
        raise ToolkitError("pip: no matching distribution")

    monkeypatch.setattr(pypi, "download_wheel", offline)
    before, known = snapshot(synthetic), "(known: 9.9.6, 9.9.8, 9.9.9, 10.0.0)"  # release order
    no = "not on PyPI as ai_dynamo-0.0.1-py3-none-any.whl: pip: no matching distribution"
    for args, error in [
        (("9.9.8",), "error: the pin is already at 9.9.8"),
        (("9.9.9", "--budget", "-1"), "error: --budget must be 0 or more, not -1"),
        (("0.0.1",), f"error: unknown version 0.0.1: not in dynamo.toml {known}, and {no}"),
    ]:
        assert run_bump(synthetic, tmp_path, *args) == 2
        assert capsys.readouterr().err.strip() == error
    assert snapshot(synthetic) == before
    assert list((tmp_path / "bump").iterdir()) == []  # no staging folder left behind
