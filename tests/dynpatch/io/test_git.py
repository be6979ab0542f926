"""The guards of the git layer hold for the processes GitPython starts, not only the CLI's;
the values on their way to git (identities, URLs, refs) are refused before git sees them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from git import GitCommandError

from dynpatch.errors import ToolkitError
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


@pytest.mark.parametrize(
    ("text", "name", "email"),
    [
        ("Jane Doe <jane@example.invalid>", "Jane Doe", "jane@example.invalid"),
        (" \tJ. Doe, <.j@x.y.>\t", "J. Doe", "j@x.y"),  # git strips "crud" from the ends
    ],
)
def test_an_identity_is_read_as_git_records_it(text: str, name: str, email: str) -> None:
    assert str(gitio.parse_identity(text)) == f"{name} <{email}>"


@pytest.mark.parametrize(
    "text", ["", "Jane", "<j@x.y>", "., <j@x.y>", "Ja<ne <j@x.y>", "J\x01 <j@x.y>", "J <jx.y>"]
)
def test_an_identity_git_would_refuse_is_refused_first(text: str) -> None:
    with pytest.raises(ToolkitError) as refused:
        gitio.parse_identity(text)
    assert str(refused.value) == f"not an identity of the form 'Name <email>': {text!r}"


def test_urls_and_refs_are_never_taken_as_options_or_remote_helpers(tmp_path: Path) -> None:
    for url in ("https://h/r.git", "http://h/r", "ssh://h/r", "git://h/r", "file:///r"):
        assert gitio.check_url(url) == gitio.check_remote(url) == url
    assert gitio.check_url("git@github.com:a/b.git") == "git@github.com:a/b.git"
    assert gitio.check_url(str(tmp_path)) == str(tmp_path)
    assert gitio.check_remote("My-fork.2") == "My-fork.2"
    for ref in ("0123abc", "v1.6.1", "feat!"):
        assert gitio.check_ref(ref) == ref
    only = ": only https, http, ssh, git and file URLs (or a local path) are accepted"
    for check, url, why in (
        (gitio.check_url, "-uhttps://h/r", "--url '-uhttps://h/r' is not a repository URL or path"),
        (gitio.check_url, "https://h/r\n", "--url 'https://h/r\\n' is not a repository URL or"),
        (gitio.check_url, "ext::sh -c x", f"--url 'ext::sh -c x'{only}"),
        (gitio.check_remote, "ftp://u:token@h/r", f"--push 'ftp://h/r'{only}"),  # no token shown
        (gitio.check_remote, "/gone", "--push '/gone' is neither a URL nor an existing folder"),
        (gitio.check_ref, "-x", "--ref '-x' is not a valid git tag, branch or commit id"),
    ):
        with pytest.raises(ToolkitError, match=re.escape(why)):
            check(url)
    for ref in ("", "a b", "a..b", "v1\t"):
        with pytest.raises(ToolkitError, match=re.escape(f"--branch {ref!r} is not a valid git")):
            gitio.check_ref(ref, "--branch")
