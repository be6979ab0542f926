"""dynpatch.pr.publish through `pr`: pushes only when told, never over foreign commits,
never showing a credential; a refusal (of any bad input) or a failed push writes nothing.
And the printed `gh` line."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from dynpatch.cli import main
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from dynpatch.pr import publish
from tests.fixtures.pr import (
    BRANCH,
    JANE,
    V2,
    World,
    git,
    one_error,
    refused,
    snapshot,
)


def test_push_goes_to_the_fork_only_when_asked(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.save("test-upstream", "verify")
    git(world.repo, "remote", "add", "fork", str(world.fork))
    status, out, err = pr()
    assert status == 0 and world.fork_refs() == ""

    status, out, err = pr("--push", str(world.fork))
    assert status == 0, err
    tip = world.tip()
    assert world.fork_refs().split() == [tip, "commit", f"refs/heads/{BRANCH}"]
    assert f"pushed {BRANCH} ({tip[:12]}) to {world.fork} (new branch)" in out
    assert "warning: bench: not run" in err  # bench is warned about, not required

    status, out, err = pr("--push", "fork")  # a remote's name
    assert status == 0 and "nothing to push" in out
    assert f"--head YOUR_FORK_OWNER:{BRANCH}" in out  # a local path names no GitHub owner

    # a new version of the series replaces the tool's own earlier push; a relative path is
    # the one seen from here (git runs in the checkout, where ./fork.git is not)
    world.series(V2)
    world.save("test-upstream", "verify")
    monkeypatch.chdir(world.tmp)
    status, out, err = pr("--push", "./fork.git", "--force")
    assert status == 0, err
    new = world.tip()
    assert new != tip and world.fork_refs().split()[0] == new
    assert f"to {world.fork.resolve()} (replacing {tip[:12]})" in out


def test_a_remote_branch_with_foreign_commits_is_never_overwritten(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    other = world.tmp / "someone-else"
    git(world.tmp, "clone", "-q", str(world.repo), str(other))
    (other / "NOTES").write_text("their work\n")
    git(other, "add", "NOTES")
    who = ["-c", "user.name=Other", "-c", "user.email=o@example.invalid"]
    git(other, *who, "commit", "-q", "-m", "their commit")
    git(other, "push", "-q", str(world.fork), f"HEAD:refs/heads/{BRANCH}")

    err = refused(world, pr, "--push", str(world.fork))
    one_error(err, "holding commits this tool did not make", "nothing pushed")

    # with a branch and a description from an earlier run, --force replaces neither
    assert pr()[0] == 0
    world.series(V2)
    world.save("test-upstream", "verify")
    err = refused(world, pr, "--push", str(world.fork), "--force")
    one_error(err, "holding commits this tool did not make", "nothing written")


def test_bad_input_is_refused_before_anything_is_written_or_run(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No person to sign off, no signing key, an option or remote helper where a remote or
    branch goes, a remote that is not there: one error line each, nothing written or run."""
    world.save("test-upstream", "verify")
    monkeypatch.chdir(world.tmp)
    nowhere = f"{world.tmp}/no-such-fork.git"
    ssh = ["--sign", "--signing-format", "ssh"]
    for identity, args, needles in (
        (None, [], ["no identity", "--identity", "user.name"]),
        (load_pin(world.pin).author, [], ["series identity, not a person"]),
        ("just a name", [], ["not an identity of the form 'Name <email>'"]),
        ("Jane\nDoe <jane@example.invalid>", [], ["not an identity of the form"]),
        (JANE, [*ssh, "--signing-key", "/nonexistent/key"], ["SSH signing key", "not found"]),
        (JANE, ssh, ["SSH signing needs a key"]),
        (JANE, ["--push", "--receive-pack=touch pwned"], ["--push"]),
        (JANE, ["--push=--receive-pack=touch pwned"], ["--push"]),
        (JANE, ["--push=--upload-pack=touch pwned"], ["--push"]),
        (JANE, ["--push", "ext::sh -c touch% pwned"], ["--push"]),
        (JANE, ["--branch=-x", "--push", str(world.fork)], ["not a valid branch name"]),
        (JANE, ["--branch=--receive-pack=touch pwned"], ["not a valid branch name"]),
        (JANE, ["--branch", "-x"], ["--branch"]),  # argparse's own refusal, also one line
        (JANE, ["--push", nowhere, "--timeout", "20"], ["is neither a URL nor an existing"]),
        (JANE, ["--push", f"file://{nowhere}", "--timeout", "20"], ["cannot read remote file:"]),
    ):
        one_error(refused(world, pr, *args, identity=identity), *needles)  # type: ignore[arg-type]
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
    assert snapshot(world) == before

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
    checkout = fetch(rel.pin, rel.ws)
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


def test_gh_line_round_trips_through_a_shell() -> None:
    title = 'perf(trtllm): it\'s "quoted"'
    line = publish.gh_command(
        "https://github.com/ai-dynamo/dynamo", "jane", "perf/x", title, "out/pr/PR.md"
    )
    argv = shlex.split(line)
    assert argv[:3] == ["gh", "pr", "create"]
    assert argv[argv.index("--repo") + 1] == "ai-dynamo/dynamo"
    assert argv[argv.index("--head") + 1] == "jane:perf/x"
    assert argv[argv.index("--title") + 1] == title
    assert argv[argv.index("--body-file") + 1] == "out/pr/PR.md"
    unknown = publish.gh_command("https://github.com/ai-dynamo/dynamo", None, "b", "t", "f")
    assert "--head YOUR_FORK_OWNER:b" in unknown


@pytest.mark.parametrize(
    ("url", "owner"),
    [
        ("https://github.com/jane/dynamo.git", "jane"),
        ("git@github.com:jane/dynamo.git", "jane"),
        ("ssh://git@github.com/jane/dynamo", "jane"),
        ("/srv/forks/dynamo.git", None),
        ("https://gitlab.example.invalid/jane/dynamo", None),
    ],
)
def test_fork_owner(url: str, owner: str | None) -> None:
    assert publish.fork_owner(url) == owner
