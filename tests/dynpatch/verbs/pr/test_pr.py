"""dynpatch.verbs.pr: who signs off, and the order of its checks and writes (refusals write
nothing; a run killed after placing the branch is finished by a rerun)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.io import faults
from dynpatch.pin import load_pin
from tests.fixtures.pr import HELPER, JANE, V1, World, git, nothing_written, one_error, refused


def test_dirty_checkout_is_an_error(world: World, pr) -> None:
    (world.repo / HELPER).write_text("edited\n")
    one_error(refused(pr), "local changes", "logprobs.py")
    assert world.tip() is None and not world.out.exists()


def test_a_title_that_is_not_a_conventional_commit_is_refused(world: World, pr) -> None:
    world.series(V1, message="Reuse the streamed delta\n\nBody.\n")
    one_error(refused(pr), "is not a Conventional Commit")
    nothing_written(world)


def test_bad_input_is_refused_before_anything_is_written_or_run(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No person to sign off, an identity git would mangle, an option where a branch goes:
    one error line each, nothing written or run."""
    monkeypatch.chdir(world.tmp)
    for identity, args, needles in (
        (None, [], ["no identity", "--identity", "user.name"]),
        (load_pin(world.pin).author, [], ["series identity, not a person"]),
        ("just a name", [], ["not an identity of the form 'Name <email>'"]),
        ("Jane\nDoe <jane@example.invalid>", [], ["not an identity of the form"]),
        (JANE, ["--branch", "bad..name"], ["'bad..name' is not a valid git"]),
        (JANE, ["--branch=-x"], ["--branch '-x' is not a valid git"]),
        (JANE, ["--branch=--receive-pack=touch pwned"], ["is not a valid git"]),
        (JANE, ["--branch", "-x"], ["--branch"]),  # argparse's own refusal, also one line
    ):
        one_error(refused(pr, *args, identity=identity), *needles)
        nothing_written(world)
    assert not list(world.tmp.rglob("pwned")) and not Path("pwned").exists()


class Killed(BaseException):
    """What the kill at a fault step stands for in-process: nothing after it runs."""


def test_a_run_killed_after_placing_the_branch_is_finished_by_a_rerun(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    def kill(step: str) -> None:
        if step == "pr.placed":
            raise Killed

    with monkeypatch.context() as m:
        m.setattr(faults, "checkpoint", kill)
        with pytest.raises(Killed):
            pr()
    tip = world.tip()
    assert tip is not None and not world.out.exists()

    status, out, err = pr()
    assert status == 0, err
    assert "unchanged" in out and world.tip() == tip
    assert world.out.is_file() and world.out.with_name("VALIDATION.md").is_file()


def test_an_identity_on_a_reserved_domain_is_refused_unless_allowed(world: World, pr) -> None:
    for email in ("jane@example.invalid", "jane@dynpatch.example", "ci@build.TEST"):
        err = refused(pr, identity=f"Jane Doe <{email}>", placeholder=False)
        one_error(err, "is on the reserved domain", "--allow-placeholder-identity")
        nothing_written(world)


def test_identity_from_environment_then_git_config(
    world: World, pr, isolated_git: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_git / ".gitconfig").write_text(
        "[user]\n\tname = Cfg Person\n\temail = cfg@example.invalid\n"
    )
    status, out, err = pr(identity=None)
    assert status == 0, err
    assert "Cfg Person <cfg@example.invalid> (from git config user.name/email)" in out
    monkeypatch.setenv("DYNPATCH_PR_IDENTITY", "Env Person <env@example.invalid>")
    status, out, err = pr("--force", identity=None)
    assert status == 0, err
    assert "Env Person <env@example.invalid> (from $DYNPATCH_PR_IDENTITY)" in out
    assert "replaced" in out and "author Cfg Person" in out
    who = git(world.repo, "log", "-1", "--format=%ae %ce", world.tip() or "").stdout
    assert who.split() == ["env@example.invalid"] * 2
