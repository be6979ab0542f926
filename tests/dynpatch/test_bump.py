"""`bump` between two cached releases, on temporary copies of the pin and patches/:
synthetic 9.9.8 -> 9.9.9 offline (success, refusal on drift, refusal on a failing check,
restore after a failed install) and the real 1.6.0 -> 1.6.1 (integration). The repo's own
vendor/dynamo.toml and patches/ are never touched (checked around every test)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dynpatch import bump, cli
from dynpatch.apply import export as apply
from dynpatch.apply.export import PATCHES, apply_series
from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.io import pypi
from dynpatch.pin import PIN_FILE, load_pin, with_version
from tests.fixtures.releases import (
    DRIFTED,
    FIXED_UPSTREAM,
    LOOKS_FIXED,
    fake_runtime,
    make_vendor,
)
from tests.fixtures.upstream_tree import FILES, TEST_LOGPROBS

# 9.9.8: the 1.3/1.4 shape of the helper (`is None` guard); 9.9.9: the 1.5+ shape.
OLD = {
    path: text.replace('if not getattr(output, "logprobs", None):', "if output.logprobs is None:")
    for path, text in FILES.items()
}
TESTS = "dynamo/common/backend/tests/test_logprobs.py"
# A release whose own tests pin the old signature: the series makes one of them fail.
REGRESSING = {
    **FILES,
    TESTS: TEST_LOGPROBS
    + """

def test_helper_signature_is_the_old_one():
    import inspect

    params = inspect.signature(extract_from_completion_output).parameters
    assert "new_token_ids" not in params
""",
}


def snapshot(v) -> tuple[bytes, dict[str, bytes]]:
    return v.pin.path.read_bytes(), {p.name: p.read_bytes() for p in v.patches.iterdir()}


def run_bump(v, tmp_path: Path, version: str, *extra: str) -> int:
    return cli.main(
        [
            "bump",
            version,
            "--pin",
            str(v.pin.path),
            "--vendor",
            str(v.vendor),
            "--patches",
            str(v.patches),
            "--out",
            str(tmp_path / "bump"),
            "--evidence",
            str(tmp_path / "evidence"),
            *extra,
        ]
    )


@pytest.fixture
def synthetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Pinned at 9.9.8 with its committed series; 9.9.9, two bad candidates, one with the
    fix upstream (10.0.0) and one that only looks so (10.0.1) cached. The checks' interpreter is this one, with a
    metadata-only runtime 9.9.9."""
    v = make_vendor(
        tmp_path,
        {
            "9.9.6": DRIFTED,
            "9.9.7": REGRESSING,
            "9.9.8": OLD,
            "9.9.9": FILES,
            "10.0.0": FIXED_UPSTREAM,
            "10.0.1": LOOKS_FIXED,
        },
        pinned="9.9.8",
    )
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "9.9.9")))
    return v


def test_bump_moves_the_pin_regenerates_and_shows_the_range_diff(
    synthetic, tmp_path: Path, capsys
) -> None:
    old_pin = synthetic.pin.path.read_text()
    old_patch = next(synthetic.patches.glob("0001-*.patch")).read_text()
    code = run_bump(synthetic, tmp_path, "9.9.9", "--python", sys.executable, "--skip", "verify")
    printed = capsys.readouterr().out
    assert code == 0, printed

    pin = load_pin(synthetic.pin.path)
    assert pin.version == "9.9.9"
    checkout = fetch(pin, version="9.9.9", vendor=synthetic.vendor)
    assert pin.release("9.9.9").tree == gitio.tree_of(checkout.path, checkout.base)  # recorded
    assert gitio.rev_parse(checkout.path, pin.branch) is None  # the series was made beside it
    assert "# release 9.9.8" in synthetic.pin.path.read_text()  # comments kept
    assert synthetic.pin.path.read_text() != old_pin

    patch = next(synthetic.patches.glob("0001-*.patch")).read_text()
    assert patch != old_patch
    assert f"sha256 {pin.release('9.9.9').sha256}" in patch  # provenance of the new base
    assert f"base-commit: {checkout.base}" in patch

    # range-diff: one commit, changed only where 9.9.8 and 9.9.9 differ (the guard)
    diff = printed.split("git range-diff (committed series on 9.9.8 → regenerated on 9.9.9):")[1]
    assert "1:  " in diff and " ! 1:  " in diff
    assert "perf(trtllm): reuse the streamed delta for logprob extraction" in diff
    assert (
        '-     if output.logprobs is None:\n    +     if not getattr(output, "logprobs", None):'
        in (diff)
    )
    assert "test-upstream: pass: baseline 3 passed of 3, patched 13 passed of 13" in printed
    assert "verify: SKIPPED (--skip verify): not checked before the pin moved" in printed
    assert "pin moved 9.9.8 → 9.9.9" in printed
    # the check's record now describes the pinned series
    record = json.loads((tmp_path / "evidence" / "test-upstream.json").read_text())
    assert record["verdict"] == "pass" and record["details"]["version"] == "9.9.9"


def test_drift_refuses_and_leaves_pin_and_patches(
    synthetic, tmp_path: Path, monkeypatch, capsys
) -> None:
    before = snapshot(synthetic)
    runs = []
    real = apply.run_series
    monkeypatch.setattr(apply, "run_series", lambda *a: runs.append(1) or real(*a))
    code = run_bump(synthetic, tmp_path, "9.9.6", "--python", sys.executable)
    printed = capsys.readouterr().out
    assert code == 1
    assert len(runs) == 1  # the codemods ran once: the table and the refusal share them
    assert "REFUSED: 1 problem(s):" in printed
    assert "HandlerBase._extract_logprobs: expected a method" in printed
    assert "found parameters (output, cursor)" in printed
    assert "stays at 9.9.8" in printed and "is unchanged" in printed
    assert snapshot(synthetic) == before
    assert not (tmp_path / "evidence").exists()


def test_fixed_upstream_refuses_retire_and_leaves_pin_and_patches(
    synthetic, tmp_path: Path, capsys
) -> None:
    before = snapshot(synthetic)
    code = run_bump(synthetic, tmp_path, "10.0.0", "--python", sys.executable)
    printed = capsys.readouterr().out
    assert code == 1
    assert "REFUSED: 1 problem(s):" in printed
    assert "  the series is fixed upstream in 10.0.0: retire it from 10.0.0 on" in printed
    assert "patch series on ai-dynamo 10.0.0 (pypi)" in printed  # the outcome table
    assert "fixed-upstream" in printed
    assert "fixed upstream: extract_from_completion_output takes `delta_ids`" in printed
    assert "`delta_ids=output.token_ids[tokens_so_far:]`" in printed
    assert "run: 345 chunks of 11 streams read no token id outside their delta" in printed
    assert "git range-diff" not in printed  # refused before any check
    assert "stays at 9.9.8" in printed and "is unchanged" in printed
    assert snapshot(synthetic) == before
    assert not (tmp_path / "evidence").exists()


@pytest.mark.parametrize(
    ("version", "python", "why"),
    [
        ("10.0.1", sys.executable, "with `delta` given, chunk 1 of stream 1-choice-one-token"),
        ("10.0.0", "/nonexistent/python", "not judged: "),
    ],
    ids=["looks-fixed", "cannot-run"],
)
def test_a_candidate_fix_the_run_does_not_confirm_is_a_drift(
    synthetic, tmp_path: Path, capsys, version: str, python: str, why: str
) -> None:
    before = snapshot(synthetic)
    assert run_bump(synthetic, tmp_path, version, "--python", python) == 1
    printed = capsys.readouterr().out
    assert "REFUSED: " in printed and "fixed-upstream" not in printed
    assert "  upstream's own fix? extract_from_completion_output takes" in printed
    assert why in printed.split("upstream's own fix? ")[1].split("\n  ")[0]
    assert snapshot(synthetic) == before


def test_a_failing_check_refuses_and_leaves_pin_and_patches(
    synthetic, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site-997", "9.9.7")))
    before = snapshot(synthetic)
    code = run_bump(synthetic, tmp_path, "9.9.7", "--python", sys.executable, "--skip", "verify")
    printed = capsys.readouterr().out
    assert code == 1
    assert "test-upstream: fail: " in printed and "regressions: 1" in printed
    assert "git range-diff" in printed  # shown before the checks, for the reviewer
    assert "REFUSED: 1 problem(s):" in printed
    assert snapshot(synthetic) == before
    assert not (tmp_path / "evidence").exists()  # the failing record stayed in staging
    staged = next((tmp_path / "bump").glob("9.9.7-*"))
    assert json.loads((staged / "evidence" / "test-upstream.json").read_text())["verdict"] == (
        "fail"
    )


def test_a_failed_install_restores_both(synthetic, tmp_path: Path, monkeypatch, capsys) -> None:
    before = snapshot(synthetic)
    real_install = bump.install_series

    def install_then_fail(exported: Path, patches_dir: Path) -> list[str]:
        real_install(exported, patches_dir)  # patches/ rewritten ...
        (patches_dir / "stray.patch").write_text("half-written\n")
        raise OSError("disk full")  # ... then the pin write never happens

    monkeypatch.setattr(bump, "install_series", install_then_fail)
    code = run_bump(synthetic, tmp_path, "9.9.9", "--python", sys.executable, "--skip", "verify")
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "error: could not install the new pin and patches/ (disk full); both restored as they were"
    )
    assert snapshot(synthetic) == before


def test_killed_between_patches_and_the_pin_the_next_run_puts_both_back(
    synthetic, tmp_path: Path
) -> None:
    before = snapshot(synthetic)
    argv = [
        "bump",
        "9.9.9",
        "--pin",
        str(synthetic.pin.path),
        "--vendor",
        str(synthetic.vendor),
        "--patches",
        str(synthetic.patches),
        "--out",
        str(tmp_path / "bump"),
        "--skip",
        "test-upstream",
        "--skip",
        "verify",
    ]
    env = {**os.environ, "DYNPATCH_FAULT_AT": "bump.patches"}
    proc = subprocess.run(
        [sys.executable, "-m", "dynpatch", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    pin, patches = snapshot(synthetic)
    assert pin == before[0] and patches != before[1]  # the two disagree, until ...
    assert cli.main(["pin", "runtime", "--pin", str(synthetic.pin.path)]) == 0  # the next run
    assert snapshot(synthetic) == before
    assert not list(synthetic.pin.path.parent.glob(".dynamo.toml.*"))


def test_bad_inputs(synthetic, tmp_path: Path, capsys) -> None:
    assert run_bump(synthetic, tmp_path, "9.9.8") == 2
    assert capsys.readouterr().err.strip() == "error: the pin is already at 9.9.8"
    assert run_bump(synthetic, tmp_path, "9.9.9", "--budget", "-1") == 2
    assert capsys.readouterr().err.strip() == "error: --budget must be 0 or more, not -1"
    assert not (tmp_path / "bump").exists()


@pytest.mark.integration
def test_real_bump_1_6_0_to_1_6_1_gives_the_committed_series(tmp_path: Path, capsys) -> None:
    """On a copy of the pin moved back to 1.6.0, with the series regenerated there, bumping
    to 1.6.1 must give exactly the committed pin and patches/. The checks cannot run in
    this test environment (no torch, no per-release runtime): skipped, and said so."""
    pin_path = tmp_path / "dynamo.toml"
    pin_path.write_text(with_version(PIN_FILE.read_text(), "1.6.0"))
    pin = load_pin(pin_path)
    patches = tmp_path / "patches"
    apply_series(
        fetch(pin, version="1.6.0"),
        author=gitio.parse_identity(pin.author),
        date=pin.date,
        branch=pin.branch,
        vendor=PIN_FILE.parent,
        patches_dir=patches,
    )
    code = cli.main(
        [
            "bump",
            "1.6.1",
            "--pin",
            str(pin_path),
            "--patches",
            str(patches),
            "--out",
            str(tmp_path / "bump"),
            "--evidence",
            str(tmp_path / "evidence"),
            "--skip",
            "test-upstream",
            "--skip",
            "verify",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert pin_path.read_bytes() == PIN_FILE.read_bytes()
    assert {p.name: p.read_bytes() for p in patches.iterdir()} == {
        p.name: p.read_bytes() for p in PATCHES.iterdir()
    }
    # 1.6.0 and 1.6.1 take the very same change, and both messages quote the counts
    # measured on 1.6.1: range-diff says "=" (same patch)
    assert "1:  " in printed and " = 1:  " in printed
    assert "test-upstream: SKIPPED" in printed and "verify: SKIPPED" in printed


def test_unknown_version_needs_pypi_and_is_one_line(synthetic, tmp_path, monkeypatch, capsys):
    def offline(*args: object, **kwargs: object) -> Path:
        raise ToolkitError("pip could not download ai-dynamo==0.0.1: no matching distribution")

    monkeypatch.setattr(pypi, "download_wheel", offline)
    before = snapshot(synthetic)
    assert run_bump(synthetic, tmp_path, "0.0.1") == 2
    assert capsys.readouterr().err.strip() == (
        "error: pip could not download ai-dynamo==0.0.1: no matching distribution"
    )
    assert snapshot(synthetic) == before
    assert list((tmp_path / "bump").iterdir()) == []  # no staging folder left behind
