"""The command line: bad inputs end in one `error:` line and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fixtures.synthetic import write_pin

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "dynpatch", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


def assert_one_error_line(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_unknown_version() -> None:
    assert_one_error_line(run("fetch", "--version", "0.0.1"), "unknown version 0.0.1")


def test_wrong_sha256_from_cli(tmp_path: Path) -> None:
    vendor = tmp_path / "vendor"
    (vendor / "cache" / "wheels").mkdir(parents=True)
    wheel = vendor / "cache" / "wheels" / "ai_dynamo-9.9.9-py3-none-any.whl"
    wheel.write_bytes(b"not the pinned wheel")
    write_pin(vendor / "dynamo.toml", "9.9.9", wheel.name, "0" * 64)
    assert_one_error_line(run("apply", cwd=tmp_path / "vendor"), "sha256 mismatch")
    assert not (tmp_path / "patches").exists()


def test_unreachable_git_url() -> None:
    proc = run("fetch", "--source", "git", "--url", "file:///nonexistent/x.git", "--timeout", "10")
    assert_one_error_line(proc, "cannot fetch v1.6.1 from file:///nonexistent/x.git")


def test_path_source_without_a_path() -> None:
    assert_one_error_line(run("fetch", "--source", "path"), "--source path needs --path")


def test_malformed_pin_and_none(tmp_path: Path) -> None:
    assert_one_error_line(run("fetch", cwd=tmp_path), "no vendor/dynamo.toml in")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "dynamo.toml").write_text("[upstream]\nversion = 1\n")
    assert_one_error_line(run("fetch", cwd=tmp_path), "is malformed")


def test_bad_author_identity() -> None:
    assert_one_error_line(run("apply", "--author", "nobody"), "not an identity")
