"""``pr --push REMOTE``: publishing is an explicit act, refused before anything is written
unless every check the description cites passed for this base and series, never over a
branch of others' commits, always with a lease."""

from __future__ import annotations

from pathlib import Path

from dynpatch.io import git as gitio
from tests.fixtures.pr import BRANCH, V2, World, git, nothing_written, one_error, refused

STAGES = ("test-upstream", "verify", "bench", "pre-commit")


def _fork(world: World) -> Path:
    fork = world.tmp / "fork.git"
    git(world.tmp, "init", "-q", "--bare", str(fork))
    return fork


def test_nothing_leaves_without_every_check_passed(world: World, pr) -> None:
    fork = _fork(world)
    err = refused(pr, "--push", str(fork))
    one_error(err, "refusing to push (nothing written)", "test-upstream: not run")
    nothing_written(world)
    world.save(*STAGES[:3])
    world.save("pre-commit", passed=False)
    one_error(refused(pr, "--push", str(fork)), "pre-commit: FAIL (pre-commit found a problem)")
    nothing_written(world)
    assert git(fork, "for-each-ref").stdout == ""


def test_the_branch_is_pushed_once_and_never_over_others_work(world: World, pr) -> None:
    fork = _fork(world)
    world.save(*STAGES)
    status, out, err = pr("--push", str(fork))
    assert status == 0, err
    tip = world.tip()
    assert f"pushed {BRANCH} ({tip[:12]}) to {fork} (new branch)" in out
    assert gitio.rev_parse(fork, f"refs/heads/{BRANCH}") == tip
    status, out, _err = pr("--push", str(fork))
    assert status == 0 and f"{fork} already has {BRANCH} at {tip[:12]}: nothing to push" in out
    # this tool's own earlier tip on the fork is replaced by the next revision
    world.series(V2)
    world.save(*STAGES)
    status, out, err = pr("--push", str(fork))
    assert status == 0, err
    assert (
        f"(replacing {tip[:12]})" in out
        and gitio.rev_parse(fork, f"refs/heads/{BRANCH}") == world.tip()
    )
    # someone else's commit on the fork's branch: refused, nothing written here
    other = world.tmp / "other"
    git(world.tmp, "clone", "-q", str(fork), str(other))
    git(other, "checkout", "-q", BRANCH)
    who = ["-c", "user.name=O", "-c", "user.email=o@example.invalid"]
    git(other, *who, "commit", "-q", "--allow-empty", "-m", "their work")
    git(other, "push", "-q", "origin", BRANCH)
    theirs = gitio.rev_parse(other, "HEAD")
    mine = world.tip()
    err = refused(pr, "--push", str(fork), "--force")
    one_error(err, "holding commits this tool did not place", "nothing pushed")
    assert world.tip() == mine and gitio.rev_parse(fork, f"refs/heads/{BRANCH}") == theirs


def test_a_branch_made_on_the_wheel_s_tree_is_never_pushed(world: World, pr, monkeypatch) -> None:
    from dynpatch.verbs.pr import publish

    class Wheel:
        source, base = "pypi", "a" * 40

    assert "shares no history with ai-dynamo/dynamo" in (publish.source_problem(Wheel()) or "")
    tree, laid_out = f"{world.base}^{{tree}}", "ai-dynamo 9.9.9 (v9.9.9) materialised from PyPI"
    Wheel.source, Wheel.path = "path", world.repo  # a clone of such a tree
    who = ("-c", "user.name=U", "-c", "user.email=u@example.invalid")
    Wheel.base = git(world.repo, *who, "commit-tree", tree, "-m", laid_out).stdout.strip()
    assert "shares no history with ai-dynamo/dynamo" in (publish.source_problem(Wheel()) or "")
    assert publish.remote_arg("origin") == "origin"
    one_error(refused(pr, "--push", "--upload-pack=touch x"), "is not a repository URL")
    nothing_written(world)
