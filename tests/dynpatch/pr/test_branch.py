"""dynpatch.pr.branch through `pr`: the branch is the series re-signed by the person;
regenerating keeps or (with --force) replaces it, with a range-diff."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods.series import COMMIT_MESSAGE
from dynpatch.cli import main
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from dynpatch.pr.branch import MADE
from dynpatch.workspace import Workspace
from tests.fixtures.pr import (
    BRANCH,
    HELPER,
    JANE,
    TITLE,
    V1,
    V2,
    World,
    git,
    nothing_written,
    one_error,
)
from tests.fixtures.synthetic import REPO


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
    assert f"description  {world.out.relative_to(world.tmp)}" in out
    gh = next(ln for ln in out.splitlines() if "gh pr create" in ln).strip()
    assert f"--head YOUR_FORK_OWNER:{BRANCH}" in gh
    assert f"--title '{TITLE}'" in gh and gh.endswith(
        f"--body-file {world.out.relative_to(world.tmp)}"
    )
    assert err.count("warning: ") == 3  # no saved result for any stage


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


@pytest.mark.integration
def test_real_series_on_a_clone_of_the_pinned_checkout(tmp_path: Path, capsys, monkeypatch) -> None:
    checkout = fetch(load_pin(REPO.pin), vendor=REPO.vendor)
    clone = tmp_path / "dynamo"
    gitio.clone_at(checkout.path, checkout.base, clone)
    ws = Workspace(tmp_path)  # the pin and a snapshot of patches/ (others may regenerate it)
    ws.pin.parent.mkdir()
    shutil.copy(REPO.pin, ws.pin)
    patches = shutil.copytree(REPO.patches, ws.patches)
    out = ws.out / "pr" / "PR_DESCRIPTION.md"
    monkeypatch.chdir(tmp_path)
    status = main(
        [
            "pr",
            "--source",
            "path",
            "--path",
            str(clone),
            "--identity",
            JANE,
            "--allow-placeholder-identity",
        ]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    tip = gitio.rev_parse(clone, f"refs/heads/{BRANCH}")
    # the branch holds what a plain `git am` of the series gives
    plain = tmp_path / "plain"
    gitio.clone_at(checkout.path, checkout.base, plain)
    names = (patches / "series").read_text().split()
    git(
        plain,
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.invalid",
        "am",
        "-q",
        *[str(patches / n) for n in names],
    )
    assert gitio.tree_of(clone, tip) == gitio.tree_of(plain, "HEAD")
    subject = git(clone, "log", "-1", "--format=%s", tip).stdout.strip()
    assert subject.startswith("perf(trtllm): ")
    assert f"--title '{subject}'" in captured.out
    text = out.read_text()
    assert "`extract_from_completion_output`" in text and "#14402" in text
