"""dynpatch.pr.publish through `pr`: pushes only when told, never over foreign commits,
never showing a credential; a refusal or a failed push writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.cli import main
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from tests.fixtures.pr import (
    BRANCH,
    JANE,
    V2,
    World,
    git,
    nothing_written,
    one_error,
    refused,
    snapshot,
)


def test_push_goes_to_the_fork_only_when_asked(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    status, out, err = pr()
    assert status == 0 and world.fork_refs() == ""

    status, out, err = pr("--push", str(world.fork))
    assert status == 0, err
    tip = world.tip()
    assert world.fork_refs().split() == [tip, "commit", f"refs/heads/{BRANCH}"]
    assert f"pushed {BRANCH} ({tip[:12]}) to {world.fork} (new branch)" in out
    assert "warning: bench: not run" in err  # bench is warned about, not required

    status, out, err = pr("--push", str(world.fork))
    assert status == 0 and "nothing to push" in out

    # a new version of the series replaces the tool's own earlier push
    world.series(V2)
    world.save("test-upstream", "verify")
    status, out, err = pr("--push", str(world.fork), "--force")
    assert status == 0, err
    new = world.tip()
    assert new != tip and world.fork_refs().split()[0] == new
    assert f"replacing {tip[:12]}" in out


def test_a_remote_branch_with_foreign_commits_is_never_overwritten(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    other = world.tmp / "someone-else"
    git(world.tmp, "clone", "-q", str(world.repo), str(other))
    (other / "NOTES").write_text("their work\n")
    git(other, "add", "NOTES")
    git(
        other,
        "-c",
        "user.name=Other",
        "-c",
        "user.email=o@example.invalid",
        "commit",
        "-q",
        "-m",
        "their commit",
    )
    git(other, "push", "-q", str(world.fork), f"HEAD:refs/heads/{BRANCH}")
    theirs = world.fork_refs()

    err = refused(world, pr, "--push", str(world.fork))
    one_error(err, "holding commits this tool did not make", "nothing pushed")
    assert world.tip() is None and not world.out.exists()

    # with a branch and a description from an earlier run, --force replaces neither
    assert pr()[0] == 0
    world.series(V2)
    world.save("test-upstream", "verify")
    err = refused(world, pr, "--push", str(world.fork), "--force")
    one_error(err, "holding commits this tool did not make", "nothing written")
    assert world.fork_refs() == theirs


def test_a_named_remote_resolves_the_fork_owner(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    git(world.repo, "remote", "add", "fork", str(world.fork))
    status, out, err = pr("--push", "fork")
    assert status == 0, err
    assert world.fork_refs() != ""
    # a local path names no GitHub owner: the person fills it in
    assert f"--head YOUR_FORK_OWNER:{BRANCH}" in out


def test_a_relative_fork_path_is_the_one_seen_from_here(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.save("test-upstream", "verify")
    monkeypatch.chdir(world.tmp)  # git runs in the checkout, where ./fork.git is not
    status, out, err = pr("--push", "./fork.git")
    assert status == 0, err
    assert world.fork_refs().split()[0] == world.tip()
    assert f"to {world.fork.resolve()} (new branch)" in out


def test_an_unreachable_remote_is_one_error_line(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    err = refused(world, pr, "--push", str(world.tmp / "no-such-fork.git"), "--timeout", "20")
    one_error(err, "no-such-fork.git", "is neither a URL nor an existing folder")
    err = refused(world, pr, "--push", f"file://{world.tmp}/no-such-fork.git", "--timeout", "20")
    one_error(err, "cannot read remote file://", "no-such-fork.git")
    nothing_written(world)

    # the same with a branch and a description from an earlier run: both stay as they were
    assert pr()[0] == 0
    err = refused(world, pr, "--push", f"file://{world.tmp}/no-such-fork.git", "--force")
    one_error(err, "cannot read remote file://", "no-such-fork.git")


def test_an_option_in_place_of_a_remote_or_branch_is_refused_and_never_run(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.save("test-upstream", "verify")
    monkeypatch.chdir(world.tmp)
    for args, needle in (
        (["--push", "--receive-pack=touch pwned"], "--push"),
        (["--push=--receive-pack=touch pwned"], "--push"),
        (["--push=--upload-pack=touch pwned"], "--push"),
        (["--push", "ext::sh -c touch% pwned"], "--push"),
        (["--branch=-x", "--push", str(world.fork)], "not a valid branch name"),
        (["--branch=--receive-pack=touch pwned"], "not a valid branch name"),
        (["--branch", "-x"], "--branch"),  # argparse's own refusal, also one line
    ):
        err = refused(world, pr, *args)
        one_error(err, needle)
    nothing_written(world)
    assert not list(world.tmp.rglob("pwned")) and not Path("pwned").exists()


def test_a_token_in_the_push_url_is_never_shown_or_stored(
    world: World, pr, isolated_git: Path
) -> None:
    world.save("test-upstream", "verify")
    url = "https://user:SECRET@127.0.0.1:9/fork.git"  # nothing listens on port 9
    before = snapshot(world)
    status, out, err = pr("--push", url, "--timeout", "5")
    assert status == 2
    one_error(err, "cannot read remote https://127.0.0.1:9/fork.git")
    assert snapshot(world) == before and not world.out.exists()

    # and a push that succeeds, through a URL with user-info
    status, out2, err2 = pr("--push", f"file://user:SECRET@localhost{world.fork}")
    assert status == 0, err2
    assert f"to file://localhost{world.fork} (new branch)" in out2
    assert world.fork_refs().split()[0] == world.tip()
    assert b"SECRET" not in world.out.read_bytes()
    for text in (out, err, out2, err2, git(world.repo, "config", "--list").stdout):
        assert "SECRET" not in text
    for where in (world.repo / ".git", isolated_git):
        for f in where.rglob("*"):
            assert not f.is_file() or b"SECRET" not in f.read_bytes(), f


def test_a_push_that_fails_after_placing_puts_the_branch_back(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    hook = world.fork / "hooks" / "pre-receive"  # the fork's own hook: it still runs
    hook.write_text("#!/bin/sh\necho declined >&2\nexit 1\n")
    hook.chmod(0o755)
    err = refused(world, pr, "--push", str(world.fork))
    one_error(err, f"push of {BRANCH} to {world.fork} failed", "nothing was changed locally")
    nothing_written(world)

    # an existing branch replaced for the push is put back, its description kept
    assert pr()[0] == 0
    world.series(V2)
    world.save("test-upstream", "verify")
    err = refused(world, pr, "--push", str(world.fork), "--force")
    one_error(err, str(world.fork), "nothing was changed locally")

    hook.unlink()
    status, out, err = pr("--push", str(world.fork), "--force")
    assert status == 0, err
    assert "replaced" in out and "(new branch)" in out
    assert world.fork_refs().split()[0] == world.tip()


def test_a_branch_based_on_the_pypi_tree_is_never_pushed(
    synthetic_release, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    rel = synthetic_release()
    checkout = fetch(rel.pin, vendor=rel.vendor)
    rel.ws.patches.mkdir()
    (rel.ws.patches / "series").write_text("")
    monkeypatch.chdir(rel.ws.root)
    status = main(
        [
            "pr",
            "--identity",
            JANE,
            "--allow-placeholder-identity",
            "--push",
            str(tmp_path / "fork.git"),
        ]
    )
    assert status == 2
    one_error(capsys.readouterr().err, "materialised from the PyPI wheel", "--source git")
    assert gitio.rev_parse(checkout.path, f"refs/heads/{BRANCH}") is None
