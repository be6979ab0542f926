"""The guards of the git layer hold for the processes GitPython starts, not only the CLI's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from git import GitCommandError

from dynpatch.io import git as gitio
from dynpatch.io.git.run import opened

PROGRAMS = {"pre-commit", "commit-msg", "post-commit", "fsmonitor"}


def _armed_repo(tmp: Path) -> tuple[Path, Path]:
    """A repository whose own config runs a program on every commit and status (hooks, an
    fsmonitor) and allows ext:: URLs; each program appends to the returned file."""
    repo, ran, hooks = tmp / "repo", tmp / "ran", tmp / "hooks"
    hooks.mkdir(parents=True)
    for name in PROGRAMS:
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> {ran}\n")
        (hooks / name).chmod(0o755)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\thooksPath = {hooks}\n\tfsmonitor = {hooks}/fsmonitor\n")
        config.write('[protocol "ext"]\n\tallow = always\n[commit]\n\tgpgsign = false\n')
        config.write("[user]\n\tname = T\n\temail = t@example.invalid\n")
    (repo / "f").write_text("f\n")
    subprocess.run(["git", "add", "f"], cwd=repo, check=True)
    ran.unlink(missing_ok=True)  # what `git add` ran
    return repo, ran


def _ext_url(tmp: Path) -> str:
    return f"ext::sh -c touch% {tmp / 'pwned'}"


def test_the_settings_reach_every_git_process_gitpython_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, ran = _armed_repo(tmp_path)
    control = _armed_repo(tmp_path / "control")  # plain git runs every program (so this can fail)
    subprocess.run(["git", "commit", "-qm", "x"], cwd=control[0], check=True)
    subprocess.run(["git", "status", "-s"], cwd=control[0], check=True, capture_output=True)
    subprocess.run(["git", "ls-remote", _ext_url(tmp_path)], cwd=control[0], capture_output=True)
    assert set(control[1].read_text().split()) == PROGRAMS
    assert (tmp_path / "pwned").exists()
    (tmp_path / "pwned").unlink()
    # An outer `git -c` (a hook running the toolkit) does not override the settings either.
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.hookspath'='{tmp_path / 'hooks'}'")
    with opened(repo) as gp:
        gp.git.commit("-qm", "x")
        gp.git.status("-s")
        with pytest.raises(GitCommandError) as refused:  # past GitPython's own gate
            gp.git.ls_remote(_ext_url(tmp_path), allow_unsafe_protocols=True)
    assert "transport 'ext' not allowed" in str(refused.value.stderr)
    base = gitio.rev_parse(repo, "HEAD")
    assert base is not None
    who, date = gitio.parse_identity("T <t@x.y>"), "2026-01-01T00:00:00+00:00"
    made = gitio.commit_objects(repo, base, {"f": "g\n"}, "t", who, date)
    assert gitio.commits_between(repo, base, made)[0].message == "t\n\nSigned-off-by: T <t@x.y>\n"
    assert not ran.exists() and not (tmp_path / "pwned").exists()
