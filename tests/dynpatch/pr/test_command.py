"""`python -m dynpatch pr` with real git: a synthetic dynamo clone as the checkout (path
source), a synthetic series, a local bare repository as the person's fork, throwaway
SSH/GPG keys. The machine's own git identity and config are never read."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from codemods.series import COMMIT_MESSAGE
from dynpatch import evidence
from dynpatch.cli import main
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.pin import ROOT, load_pin
from dynpatch.pr.branch import MADE
from tests.fixtures import snippets
from tests.fixtures.synthetic import write_pin

JANE = "Jane Doe <jane@example.invalid>"
TITLE = COMMIT_MESSAGE.split("\n", 1)[0]
BRANCH = "perf/trtllm-logprob-delta"
DATE = "2026-01-01T00:00:00+00:00"
HELPER = "components/src/dynamo/common/backend/logprobs.py"
HANDLER = "components/src/dynamo/trtllm/request_handlers/handler_base.py"
V1 = {HELPER: snippets.HELPER_PATCHED, HANDLER: snippets.HANDLER_PATCHED}
V2 = {HELPER: snippets.HELPER_PATCHED + "\n# version 2 of the series\n", HANDLER: V1[HANDLER]}


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty global git config and no identity or signing variables from outside."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in (
        "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
        "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "EMAIL", "GIT_DIR", "GIT_WORK_TREE",
        "DYNPATCH_PR_IDENTITY", "DYNPATCH_SIGNING_KEY", "DYNPATCH_PR_BRANCH",
    ):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    return home


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)


@dataclass
class World:
    tmp: Path
    pin: Path
    repo: Path  # the person's dynamo clone at the release (the checkout)
    base: str
    patches: Path
    evidence: Path
    out: Path
    fork: Path  # bare repository standing in for the person's GitHub fork

    def series(self, files: dict[str, str], message: str = COMMIT_MESSAGE) -> str:
        """Replace ``patches/`` with a series of one commit by the series identity; return
        the tree that commit has."""
        author = gitio.parse_identity(load_pin(self.pin).author)
        work = self.tmp / "series-work"
        shutil.rmtree(work, ignore_errors=True)
        gitio.clone_at(self.repo, self.base, work)
        head = gitio.commit_objects(work, self.base, files, message, author, DATE)
        shutil.rmtree(self.patches, ignore_errors=True)
        self.patches.mkdir()
        names = gitio.format_patch(work, self.base, head, self.patches)
        (self.patches / "series").write_text("".join(f"{p.name}\n" for p in names))
        tree = gitio.tree_of(work, head)
        shutil.rmtree(work)
        return tree

    def save(self, *stages: str, verdict: str = "pass") -> None:
        for stage in stages:
            evidence.save(
                stage, self.patches, command=f"nox -s {stage}", verdict=verdict,
                summary_md=f"{stage} summary: 3 scenarios, 3 identical", details={},
                out=self.evidence,
            )  # fmt: skip

    def tip(self, branch: str = BRANCH) -> str | None:
        return gitio.rev_parse(self.repo, f"refs/heads/{branch}")

    def fork_refs(self) -> str:
        return git(self.fork, "for-each-ref").stdout


@pytest.fixture
def world(tmp_path: Path) -> World:
    pin = write_pin(tmp_path / "dynamo.toml", "9.9.9", "unused.whl", "0" * 64)
    repo = tmp_path / "dynamo"
    for rel, text in {
        HELPER: snippets.HELPER,
        HANDLER: snippets.HANDLER,
        "components/src/dynamo/common/backend/__init__.py": '__all__ = ["Worker"]\n',
    }.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    upstream = gitio.Identity("Upstream", "upstream@example.invalid")
    base = gitio.init_repo_with_commit(repo, "dynamo 9.9.9", upstream, DATE, "v9.9.9")
    fork = tmp_path / "fork.git"
    git(tmp_path, "init", "-q", "--bare", str(fork))
    w = World(tmp_path, pin, repo, base, tmp_path / "patches", tmp_path / "evidence",
              tmp_path / "out" / "PR_DESCRIPTION.md", fork)  # fmt: skip
    w.series(V1)
    return w


def pr_argv(world: World, *extra: str, identity: str | None = JANE) -> list[str]:
    """The arguments of ``python -m dynpatch pr ...`` on ``world``."""
    argv = [
        "pr", "--pin", str(world.pin), "--source", "path", "--path", str(world.repo),
        "--patches", str(world.patches), "--evidence", str(world.evidence),
        "--out", str(world.out),
    ]  # fmt: skip
    if identity:
        argv += ["--identity", identity]
    return [*argv, *extra]


@pytest.fixture
def pr(world: World, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run ``python -m dynpatch pr`` in-process on ``world``: (exit status, stdout, stderr)."""

    def run(*extra: str, identity: str | None = JANE) -> tuple[int, str, str]:
        try:
            status = main(pr_argv(world, *extra, identity=identity))
        except SystemExit as exc:  # argparse refusing the arguments, as the process would
            status = int(exc.code or 0)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def one_error(err: str, *needles: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]


def snapshot(world: World) -> tuple[str, str, str, bytes | None, str]:
    """Everything a refused run must leave byte for byte as it was: the checkout's refs,
    HEAD and status, the description file, and the fork's refs."""
    refs = git(world.repo, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    head = git(world.repo, "symbolic-ref", "-q", "HEAD", check=False).stdout
    head += git(world.repo, "rev-parse", "HEAD").stdout
    status = git(world.repo, "status", "--porcelain").stdout
    text = world.out.read_bytes() if world.out.exists() else None
    fork = git(world.fork, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    return refs, head, status, text, fork


def refused(world: World, pr, *args: str, identity: str = JANE) -> str:  # type: ignore[no-untyped-def]
    """Run pr, expect exit status 2 with one error line and nothing changed; the line."""
    before = snapshot(world)
    status, _out, err = pr(*args, identity=identity)
    assert status == 2, err
    one_error(err)
    assert snapshot(world) == before
    return err


def nothing_written(world: World) -> None:
    assert world.tip() is None
    assert not world.out.exists()
    assert git(world.repo, "for-each-ref", MADE).stdout == ""
    assert world.fork_refs() == ""
    assert git(world.repo, "status", "--porcelain").stdout == ""


# --- the branch and the description -------------------------------------------------------


def test_branch_is_the_series_re_signed_by_the_person(world: World, pr) -> None:
    expected_tree = world.series(V1)
    head_before = git(world.repo, "rev-parse", "HEAD").stdout
    git(world.repo, "remote", "add", "fork", str(world.fork))

    status, out, err = pr()

    assert status == 0, err
    tip = world.tip()
    assert tip is not None
    assert git(world.repo, "rev-list", "--count", f"{world.base}..{tip}").stdout.strip() == "1"
    assert gitio.tree_of(world.repo, tip) == expected_tree  # exactly the series' content
    fields = git(world.repo, "log", "-1", "--format=%an <%ae>%n%cn <%ce>%n%s", tip).stdout
    assert fields.splitlines() == [JANE, JANE, TITLE]
    message = git(world.repo, "cat-file", "commit", tip).stdout.split("\n\n", 1)[1]
    assert message.rstrip().endswith(f"\n\nSigned-off-by: {JANE}")
    assert "Test Author" not in message  # the series identity's sign-off is gone
    assert message == f"{COMMIT_MESSAGE}\nSigned-off-by: {JANE}\n"
    # recorded as the tool's own tip; the checkout itself untouched
    assert gitio.ref_exists(world.repo, f"{MADE}/{tip}")
    assert git(world.repo, "rev-parse", "HEAD").stdout == head_before
    assert git(world.repo, "status", "--porcelain").stdout == ""
    # nothing left the machine, although a fork remote is configured
    assert world.fork_refs() == ""
    assert "nothing pushed (the default)" in out
    assert f"description  {world.out}" in out
    gh = next(ln for ln in out.splitlines() if "gh pr create" in ln).strip()
    assert f"--head YOUR_FORK_OWNER:{BRANCH}" in gh
    assert f"--title '{TITLE}'" in gh and gh.endswith(f"--body-file {world.out}")
    assert err.count("warning: ") == 3  # no saved result for any stage


def test_description_has_the_template_sections_and_no_unsaved_results(world: World, pr) -> None:
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Overview:", "## Details:", "## Where should the reviewer start?",
        "## Related Issues", "## Public API", "## Validation",
    ]  # fmt: skip
    assert "- Relates to #14402" in text and "not a competing merge" in text
    assert "has no saved result for this version" in text  # no replay claim without evidence
    assert "replay-equivalence results in Validation" not in text
    for stage in ("test-upstream", "verify", "bench"):
        assert f"#### {stage}: not run" in text
    assert "summary:" not in text
    assert f"`{HELPER}`, `extract_from_completion_output`" in text
    assert "in no `__all__` of its module or package" in text
    assert "`HandlerBase._extract_logprobs`" in text and "private" in text
    assert f"DCO: every commit has a `Signed-off-by` matching its author ({JANE}): pass" in text
    assert "the commits are not signed" in text


def test_public_api_says_when_the_helper_is_exported(world: World, pr) -> None:
    init = world.repo / "components/src/dynamo/common/backend/__init__.py"
    init.write_text('__all__ = ["Worker", "extract_from_completion_output"]\n')
    git(world.repo, "-c", "user.name=U", "-c", "user.email=u@example.invalid",
        "commit", "-qam", "export the helper")  # fmt: skip
    status, _out, err = pr()  # the new HEAD is the base; the series still applies
    assert status == 0, err
    text = world.out.read_text()
    assert "It is named in `components/src/dynamo/common/backend/__init__.py`" in text
    assert "experimental helper" not in text


def test_current_evidence_is_reported_verbatim(world: World, pr) -> None:
    world.save("test-upstream", "verify", "bench")
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    for stage in ("test-upstream", "verify", "bench"):
        assert f"#### {stage}: pass\n\n```console\n$ nox -s {stage}\n```" in text
        assert f"{stage} summary: 3 scenarios, 3 identical" in text
    assert "replay-equivalence results in Validation below" in text
    assert "warning" not in err


def test_stale_evidence_is_flagged_not_reported_and_blocks_a_push(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    world.series(V2)  # the saved results now belong to another series

    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert "#### test-upstream: stale, not reported" in text
    assert "#### verify: stale, not reported" in text
    assert "summary: 3 scenarios" not in text
    assert "warning: test-upstream: stale" in err

    tip = world.tip()
    world.out.unlink()
    status, _out, err = pr("--push", str(world.fork), "--force")
    assert status == 2
    one_error(err, "refusing to push", "test-upstream is stale", "verify is stale")
    assert world.fork_refs() == "" and world.tip() == tip and not world.out.exists()


def test_failed_verify_blocks_a_push(world: World, pr) -> None:
    world.save("test-upstream")
    world.save("verify", verdict="fail")
    status, _out, err = pr("--push", str(world.fork))
    assert status == 2
    one_error(err, "refusing to push", "verify failed for this series")
    nothing_written(world)


# --- refusals --------------------------------------------------------------------------


def test_missing_identity_is_an_error(world: World, pr) -> None:
    status, _out, err = pr(identity=None)
    assert status == 2
    one_error(err, "no identity", "--identity", "user.name")
    nothing_written(world)


def test_the_series_identity_is_not_a_person(world: World, pr) -> None:
    status, _out, err = pr(identity=load_pin(world.pin).author)
    assert status == 2
    one_error(err, "series identity, not a person")
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
    assert git(world.repo, "log", "-1", "--format=%ae %ce", BRANCH).stdout.split() == [
        "env@example.invalid", "env@example.invalid",
    ]  # fmt: skip


def test_malformed_identity_is_an_error(world: World, pr) -> None:
    status, _out, err = pr(identity="just a name")
    assert status == 2
    one_error(err, "not an identity of the form 'Name <email>'")
    nothing_written(world)


def test_dirty_checkout_is_an_error(world: World, pr) -> None:
    (world.repo / HELPER).write_text("edited\n")
    status, _out, err = pr()
    assert status == 2
    one_error(err, "local changes", "logprobs.py")
    assert world.tip() is None and not world.out.exists()


def test_a_checked_out_branch_is_not_rewritten(world: World, pr) -> None:
    assert pr()[0] == 0
    git(world.repo, "checkout", "-q", BRANCH)
    tip = world.tip()
    status, _out, err = pr("--force")
    assert status == 2
    one_error(err, f"{BRANCH} is checked out in")
    assert world.tip() == tip


def test_series_that_does_not_apply_leaves_nothing(world: World, pr) -> None:
    patch = next(world.patches.glob("*.patch"))
    patch.write_text(
        patch.read_text().replace("\n     include_bytes: bool = False,\n", "\n     drifted,\n")
    )
    status, _out, err = pr()
    assert status == 2
    one_error(err, "does not apply to the base")
    nothing_written(world)


def test_a_title_that_is_not_a_conventional_commit_is_refused(world: World, pr) -> None:
    world.series(V1, message="Reuse the streamed delta\n\nBody.\n")
    status, _out, err = pr()
    assert status == 2
    one_error(err, "is not a Conventional Commit")
    nothing_written(world)


def test_invalid_branch_name(world: World, pr) -> None:
    err = refused(world, pr, "--branch", "bad..name")
    one_error(err, "not a valid branch name")
    nothing_written(world)


# --- regenerating --------------------------------------------------------------------------


def test_regenerating_same_series_keeps_the_branch(world: World, pr) -> None:
    assert pr()[0] == 0
    tip = world.tip()
    status, out, err = pr()
    assert status == 0, err
    assert world.tip() == tip and "unchanged" in out
    assert git(world.repo, "for-each-ref", "--format=%(refname)", MADE).stdout.split() == [
        f"{MADE}/{tip}"
    ]


def test_a_changed_series_shows_range_diff_and_needs_force(world: World, pr) -> None:
    assert pr()[0] == 0
    old = world.tip()
    world.series(V2)
    status, out, err = pr()
    assert status == 2
    one_error(err, "already exists", "differs (commit 1: content)", "--force")
    assert "git range-diff" in out and "+# version 2 of the series" in out
    assert world.tip() == old  # untouched, and the rejected commits are not recorded
    assert git(world.repo, "for-each-ref", "--format=%(refname)", MADE).stdout.split() == [
        f"{MADE}/{old}"
    ]

    status, out, err = pr("--force")
    assert status == 0, err
    new = world.tip()
    assert new != old and f"replaced (was {old[:12]}" in out
    assert "version 2" in git(world.repo, "show", f"{new}:{HELPER}").stdout
    assert git(world.repo, "rev-parse", f"{BRANCH}@{{1}}").stdout.strip() == old  # reflog


# --- pushing --------------------------------------------------------------------------------


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
    git(other, "-c", "user.name=Other", "-c", "user.email=o@example.invalid",
        "commit", "-q", "-m", "their commit")  # fmt: skip
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


def test_an_identity_with_a_newline_is_refused_before_anything_is_written(world: World, pr) -> None:
    err = refused(world, pr, identity="Jane\nDoe <jane@example.invalid>")
    one_error(err, "not an identity of the form 'Name <email>'")
    nothing_written(world)
    assert pr()[0] == 0
    err = refused(world, pr, "--force", identity="Jane\nDoe <jane@example.invalid>")
    one_error(err, "not an identity of the form 'Name <email>'")


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


def test_a_run_killed_after_placing_the_branch_is_finished_by_a_rerun(world: World) -> None:
    world.save("test-upstream", "verify")
    cmd = [sys.executable, "-m", "dynpatch", *pr_argv(world, "--push", str(world.fork))]
    # the codemods under test, wherever the subprocess starts
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DYNPATCH_FAULT_AT": "pr.placed"}
    died = subprocess.run(cmd, env=env, cwd=world.tmp, capture_output=True, text=True)
    assert died.returncode == -signal.SIGKILL, died.stderr
    tip = world.tip()
    assert tip is not None and gitio.ref_exists(world.repo, f"{MADE}/{tip}")
    assert not world.out.exists() and world.fork_refs() == ""

    env.pop("DYNPATCH_FAULT_AT")
    rerun = subprocess.run(cmd, env=env, cwd=world.tmp, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{BRANCH} unchanged" in rerun.stdout and "(new branch)" in rerun.stdout
    assert world.tip() == tip and world.fork_refs().split()[0] == tip
    assert world.out.is_file()


def test_a_branch_based_on_the_pypi_tree_is_never_pushed(
    synthetic_release, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = synthetic_release()
    checkout = fetch(rel.pin, vendor=rel.vendor)
    patches = tmp_path / "patches"
    patches.mkdir()
    (patches / "series").write_text("")
    status = main([
        "pr", "--pin", str(rel.pin.path), "--vendor", str(rel.vendor), "--patches",
        str(patches), "--evidence", str(tmp_path / "ev"), "--out", str(tmp_path / "PR.md"),
        "--identity", JANE, "--push", str(tmp_path / "fork.git"),
    ])  # fmt: skip
    assert status == 2
    one_error(capsys.readouterr().err, "materialised from the PyPI wheel", "--source git")
    assert gitio.rev_parse(checkout.path, f"refs/heads/{BRANCH}") is None


# --- signing ----------------------------------------------------------------------------


def ssh_key(tmp: Path) -> Path:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    key = tmp / "id_test"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "throwaway", "-f", str(key)],
        check=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return key


def test_ssh_signed_commits_verify_with_git(world: World, pr) -> None:
    key = ssh_key(world.tmp)
    status, out, err = pr("--sign", "--signing-key", str(key))
    assert status == 0, err
    tip = world.tip()
    assert '[G] Good "git" signature for jane@example.invalid with ED25519 key' in out
    assert "`git verify-commit" in world.out.read_text()

    # checked again here with git alone, against an allowed-signers file made in the test
    allowed = world.tmp / "allowed"
    allowed.write_text(
        f'jane@example.invalid namespaces="git" {key.with_suffix(".pub").read_text()}'
    )
    cfg = ["-c", f"gpg.ssh.allowedSignersFile={allowed}"]
    assert git(world.repo, *cfg, "verify-commit", tip, check=False).returncode == 0
    shown = git(world.repo, *cfg, "log", "-1", "--show-signature", tip).stdout
    assert 'Good "git" signature for jane@example.invalid' in shown
    # and a different key is not accepted: the check can fail
    second = world.tmp / "second"
    second.mkdir()
    wrong = ssh_key(second)
    allowed.write_text(
        f'jane@example.invalid namespaces="git" {wrong.with_suffix(".pub").read_text()}'
    )
    assert git(world.repo, *cfg, "verify-commit", tip, check=False).returncode != 0

    # signing is part of what a regeneration compares
    status, _out, err = pr()
    assert status == 2
    one_error(err, "signature signed -> unsigned", "--force")


def test_gpg_signed_commits_verify_with_git(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("gpg") is None or shutil.which("gpgconf") is None:
        pytest.skip("gpg is not installed")
    home = world.tmp / "gnupg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(home))
    try:
        subprocess.run(
            ["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
             "--quick-gen-key", JANE, "ed25519", "sign", "1d"],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        status, out, err = pr("--sign", "--signing-format", "openpgp")
        assert status == 0, err
        assert '[G] Good signature from "Jane Doe <jane@example.invalid>"' in out
        assert git(world.repo, "verify-commit", world.tip(), check=False).returncode == 0
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ}, check=False)


def test_a_missing_signing_key_is_an_error(world: World, pr) -> None:
    status, _out, err = pr(
        "--sign", "--signing-key", str(world.tmp / "nope"), "--signing-format", "ssh"
    )
    assert status == 2
    one_error(err, "SSH signing key", "not found")
    nothing_written(world)


def test_ssh_signing_needs_a_key(world: World, pr) -> None:
    status, _out, err = pr("--sign", "--signing-format", "ssh")
    assert status == 2
    one_error(err, "SSH signing needs a key")
    nothing_written(world)


# --- the real pinned release -----------------------------------------------------------


@pytest.mark.integration
def test_real_series_on_a_clone_of_the_pinned_checkout(tmp_path: Path, capsys) -> None:
    from dynpatch.patch.apply import PATCHES

    checkout = fetch(load_pin())
    clone = tmp_path / "dynamo"
    gitio.clone_at(checkout.path, checkout.base, clone)
    patches = tmp_path / "patches"
    shutil.copytree(PATCHES, patches)  # a snapshot: others may regenerate patches/ meanwhile
    out = tmp_path / "PR.md"
    status = main([
        "pr", "--source", "path", "--path", str(clone), "--patches", str(patches),
        "--evidence", str(tmp_path / "ev"), "--out", str(out), "--identity", JANE,
    ])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0, captured.err
    tip = gitio.rev_parse(clone, f"refs/heads/{BRANCH}")
    # the branch holds what a plain `git am` of the series gives
    plain = tmp_path / "plain"
    gitio.clone_at(checkout.path, checkout.base, plain)
    names = (patches / "series").read_text().split()
    git(plain, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "am", "-q",
        *[str(patches / n) for n in names])  # fmt: skip
    assert gitio.tree_of(clone, tip) == gitio.tree_of(plain, "HEAD")
    subject = git(clone, "log", "-1", "--format=%s", tip).stdout.strip()
    assert subject.startswith("perf(trtllm): ")
    assert f"--title '{subject}'" in captured.out
    text = out.read_text()
    assert "`extract_from_completion_output`" in text and "#14402" in text
