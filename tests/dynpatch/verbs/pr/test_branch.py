"""dynpatch.verbs.pr.branch through `pr`: the branch is the series re-signed by the person;
regenerating keeps or (with --force) replaces it, with a range-diff. And dynamo's title
and DCO rules as pure checks."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import pytest

from codemods.series import COMMIT_MESSAGE
from dynpatch import series
from dynpatch.cli import main
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.pin import load_pin
from dynpatch.services.precommit import sign_offs
from dynpatch.verbs.pr import branch as branches
from dynpatch.workspace import Workspace
from tests.fixtures.pr import (
    BRANCH,
    JANE,
    TITLE,
    V1,
    V2,
    World,
    git,
    nothing_written,
    one_error,
    refused,
)
from tests.fixtures.synthetic import REPO


def test_branch_is_the_series_re_signed_by_the_person(world: World, pr) -> None:
    expected_tree = world.series(V1)
    status, out, err = pr()
    assert status == 0, err
    tip = world.tip()
    assert tip is not None
    assert git(world.repo, "rev-list", "--count", f"{world.base}..{tip}").stdout.strip() == "1"
    assert gitio.tree_of(world.repo, tip) == expected_tree  # exactly the series' content
    fields = git(world.repo, "log", "-1", "--format=%an <%ae>%n%cn <%ce>%n%s", tip).stdout
    assert fields.splitlines() == [JANE, JANE, TITLE]
    message = git(world.repo, "cat-file", "commit", tip).stdout.split("\n\n", 1)[1]
    # the series identity's sign-off replaced by the person's, nothing else changed
    assert "Signed-off-by: Test Author" in next(world.patches.glob("*.patch")).read_text()
    assert message == f"{COMMIT_MESSAGE}\nSigned-off-by: {JANE}\n"
    # only the branch is new in the checkout: no other ref, HEAD and work tree untouched
    refs = git(world.repo, "for-each-ref", "--format=%(refname)").stdout.split()
    made = f"refs/dynpatch/made/{tip}"  # this tool's own tip, for a later --push
    assert sorted(refs) == [made, "refs/heads/main", f"refs/heads/{BRANCH}", "refs/tags/v9.9.9"]
    assert git(world.repo, "rev-parse", "HEAD").stdout.strip() == world.base
    assert git(world.repo, "status", "--porcelain").stdout == ""
    assert f"wrote        {world.out.relative_to(world.tmp)}" in out
    # no record saved (a warning each), and a Contribution Request to open
    assert err.count("warning: ") == 6 and "--contribution-request N" in err


def test_the_same_series_keeps_the_branch_a_changed_one_is_the_next_revision(
    world: World, pr
) -> None:
    """...the earlier revision kept as <branch>-v1, its range-diff in the description;
    --force replaces instead; a checked-out branch is never rewritten."""
    assert pr()[0] == 0
    v1 = world.tip()
    status, out, err = pr()
    assert status == 0, err
    assert world.tip() == v1 and f"{BRANCH} unchanged" in out
    assert "## Changes in" not in world.out.read_text()
    world.series(V2)
    status, out, err = pr("--posted")  # v1 was posted for review: say what changed
    assert status == 0, err
    v2 = world.tip()
    assert v2 != v1 and git(world.repo, "rev-parse", f"{BRANCH}-v1").stdout.strip() == v1
    assert f"{BRANCH} v2 (v1 kept as {BRANCH}-v1: commit 1: content)" in out
    text = world.out.read_text()
    changes = text.split("## Changes in v2\n\n", 1)[1].split("\n## ", 1)[0]
    assert f"- v1 is kept as the branch `{BRANCH}-v1`; `git range-diff` of the two:" in changes
    assert f"1:  {v1[:7]} ! 1:  {v2[:7]} {TITLE}" in changes  # git range-diff -s
    assert text.index("## Changes in v2") < text.index("## Details:")
    assert git(world.repo, "for-each-ref", "refs/dynpatch/pr").stdout == ""  # none left
    time.sleep(1.1)  # the commits made again are dated a second later: not the branch's
    status, out, err = pr("--posted")  # v2 again: unchanged, and still described as v2
    assert status == 0 and f"{BRANCH} unchanged" in out and world.tip() == v2, err
    assert world.out.read_text() == text

    world.series(V1)  # v3: v2 kept as -v2
    assert pr("--posted")[0] == 0
    assert git(world.repo, "rev-parse", f"{BRANCH}-v2").stdout.strip() == v2
    assert "## Changes in v3" in world.out.read_text()
    world.series(V2)
    status, out, err = pr("--force")  # replaced, not kept
    assert status == 0, err
    assert (
        "replaced (was " in out
        and git(world.repo, "rev-parse", "--verify", "-q", f"{BRANCH}-v3", check=False).returncode
        != 0
    )

    git(world.repo, "checkout", "-q", BRANCH)  # a checked-out branch is never rewritten
    world.series(V1)
    tip = world.tip()
    one_error(refused(pr, "--force"), f"{BRANCH} is checked out in")
    assert world.tip() == tip


def test_series_that_does_not_apply_leaves_nothing(world: World, pr) -> None:
    patch = next(world.patches.glob("*.patch"))
    patch.write_text(
        patch.read_text().replace("\n     include_bytes: bool = False,\n", "\n     drifted,\n")
    )
    one_error(refused(pr), "does not apply to the base")
    nothing_written(world)


@pytest.mark.integration
def test_real_series_on_a_clone_of_the_pinned_checkout(tmp_path: Path, capsys, monkeypatch) -> None:
    checkout = fetch(load_pin(REPO.pin), REPO)
    clone = tmp_path / "dynamo"
    gitio.clone_at(checkout.path, checkout.base, clone)
    ws = Workspace(tmp_path)  # the pin and a snapshot of patches/ (others may regenerate it)
    shutil.copy(REPO.pin, ws.pin)
    patches = shutil.copytree(REPO.patches, ws.patches)
    out = ws.out / "pr" / "PR_DESCRIPTION.md"
    monkeypatch.chdir(tmp_path)
    argv = ["pr", "--source", "path", "--path", str(clone), "--identity", JANE]
    status = main([*argv, "--allow-placeholder-identity"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    tip = gitio.rev_parse(clone, f"refs/heads/{BRANCH}")
    # the branch holds what a plain `git am` of the series gives (on the clone's HEAD, the
    # base: pr never moves it)
    names = series.names(patches)
    who = ["-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    git(clone, *who, "am", "-q", *[str(patches / n) for n in names])
    assert gitio.tree_of(clone, tip) == gitio.tree_of(clone, "HEAD")
    subject = git(clone, "log", "-1", "--format=%s", tip).stdout.strip()
    assert subject.startswith("perf(trtllm): ") and f"title {subject!r}: pass" in captured.out
    text = out.read_text()
    assert "`extract_from_completion_output`" in text and "#14402" in text


# --- dynamo's title and DCO rules, as pure checks

PERSON = Identity("Jane Doe", "jane@example.invalid")
SERIES = Identity("dynamo-logprob-delta", "maintainers@example.invalid")


def commit(message: str, author: Identity = PERSON) -> CommitInfo:
    return CommitInfo("a" * 40, "b" * 40, author, author, message, signed=False)


@pytest.mark.parametrize(
    ("title", "ok"),
    [
        ("perf(trtllm): reuse the streamed delta for logprob extraction", True),
        ("fix: handle an empty stream", True),
        ("feat(common/backend)!: drop the old helper", True),
        ("Perf(trtllm): capitalised type", False),
        ("perf(trtllm) missing colon", False),
        ("perf(): empty scope", False),
        ("wip(trtllm): not a type dynamo accepts", False),
        ("perf(trtllm):no space", False),
        ("reuse the streamed delta", False),
    ],
)
def test_titles_dynamo_accepts_and_the_types_named_otherwise(title: str, ok: bool) -> None:
    problem = branches.title_problem(title)
    types = "feat, fix, docs, test, ci, refactor, perf, chore, build, style, revert"
    assert problem is None if ok else problem.endswith(f"with type one of {types}")


@pytest.mark.parametrize(
    ("message", "needle"),
    [
        ("perf(x): y\n\nbody\n\nSigned-off-by: Jane Doe <jane@example.invalid>\n", None),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <jane@example.invalid> \n", "no line matching"),
        ("perf(x): y\n\nSigned-off-by: <jane@example.invalid>\n", "no line matching"),
        ("perf(x): y\n\nSigned-off-by: Jon Doe <jane@example.invalid>\n", "is not the author"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <jd@example.invalid>\n", "is not the author"),
        (f"perf(x): y\n\nSigned-off-by: {SERIES}\nSigned-off-by: {PERSON}\n", "series identity"),
    ],
)
def test_dco_problems(message: str, needle: str | None) -> None:
    problems = branches.dco_problems(commit(message), replaced=SERIES)
    assert problems == [] if needle is None else len(problems) == 1 and needle in problems[0]


def test_check_names_each_commit_s_dco_and_title_problems_in_order() -> None:
    signed = commit(f"perf(x): y\n\nSigned-off-by: {PERSON}\n")
    assert branches.check([signed], SERIES) == []
    assert branches.check([], SERIES) == ["the series produced no commit"]
    wip = commit(f"wip: {'y' * 70}\n\nSigned-off-by: {SERIES}\n")  # its subject cut at 60
    wip, where = dataclasses.replace(wip, sha="c" * 40), f"commit cccccccccccc (wip: {'y' * 55})"
    want = [
        f"{where}: 'Signed-off-by",
        f"{where} still carries",
        "commit cccccccccccc: title 'wip",
    ]
    problems = branches.check([wip, signed], SERIES)  # every commit's, in order
    assert len(problems) == 3 and all(map(str.startswith, problems, want))
    assert len(branches.check([wip], None)) == 2  # no series identity to look for


def test_drop_sign_off_removes_only_that_identity() -> None:
    other = [Identity("Other", SERIES.email), Identity(SERIES.name, "o@example.invalid")]
    msg = (
        "perf(x): y\n\nSigned-off-by: someone is not a sign-off of SERIES\n\n"
        f"Reviewed-by: {PERSON}\nSigned-off-by: {SERIES}\n"
        + "".join(f"Signed-off-by: {who}\n" for who in other)  # its name or its address only
    )
    out = branches.drop_sign_off(msg, SERIES)
    assert f"Reviewed-by: {PERSON}" in out
    assert "someone is not a sign-off" in out
    assert sign_offs(out) == other
    last = f"perf(x): y\n\nSigned-off-by: {SERIES}\n"
    assert branches.drop_sign_off(last, SERIES) == "perf(x): y\n"


# --- the revisions: what differs from the branch there, and what the branch becomes

BASE, OLD = "b" * 40, "0" * 40
ONE = CommitInfo("1" * 40, "t1", PERSON, PERSON, "perf(x): one\n", signed=False)
TWO = CommitInfo("2" * 40, "t2", PERSON, PERSON, "perf(x): two\n", signed=False)
JON = Identity("Jon Doe", "jon@example.invalid")


@pytest.mark.parametrize(
    ("now", "said"),
    [
        ({"sha": "9" * 40}, []),  # made again: another commit id, the same commit
        ({"tree": "t9"}, ["commit 2: content"]),
        ({"message": "perf(x): one\n\nmore\n"}, ["commit 2: message"]),
        ({"author": JON}, [f"commit 2: author {PERSON} -> {JON}"]),
        ({"signed": True}, ["commit 2: signature unsigned -> signed"]),
        ({"tree": "t9", "author": JON}, [f"commit 2: content, author {PERSON} -> {JON}"]),
    ],
)
def test_a_revision_differs_by_each_commit_s_content_message_author_and_signing(
    now: dict, said: list
) -> None:
    before = [TWO, ONE]
    assert branches._differences(before, [TWO, dataclasses.replace(ONE, **now)]) == said
    signed = [TWO, dataclasses.replace(ONE, signed=True)]  # and back
    assert branches._differences(signed, before) == ["commit 2: signature signed -> unsigned"]
    assert branches._differences(before, [ONE]) == ["2 commits before, 1 now"]
    assert branches._changes(before, [ONE, TWO]) == ["title: `perf(x): two` -> `perf(x): one`"]
    assert branches._changes(before, [TWO]) == branches._changes([], [ONE]) == []


NOW = [TWO, ONE]  # the series as made now: its tip ONE
SAME = [dataclasses.replace(c, sha="9" * 40) for c in NOW]  # made before: other ids


@pytest.mark.parametrize(
    ("old", "based", "before", "force", "plan"),
    [
        (None, True, [], False, branches.BranchPlan(ONE.sha, None, "created", NOW, 2)),
        (OLD, True, SAME, False, None),  # unchanged
        (OLD, True, [ONE, TWO], False, ("v3 (v2 kept as b-v2: ", "b-v2", 3)),
        (OLD, False, [ONE, TWO], False, ("v3 (v2 kept as b-v2: ", "b-v2", 3)),
        (OLD, True, [ONE, TWO], True, (f"replaced (was {OLD[:12]}: ", None, 2)),
    ],
)
def test_the_branch_is_created_unchanged_replaced_or_its_earlier_revision_kept(
    monkeypatch: pytest.MonkeyPatch, old, based: bool, before: list, force: bool, plan
) -> None:
    asked = []
    git = branches.gitio
    monkeypatch.setattr(git, "is_ancestor", lambda *args: asked.append(args) or based)
    monkeypatch.setattr(git, "commits_between", lambda *args: asked.append(args) or before)
    monkeypatch.setattr(
        git, "range_diff", lambda *args, summary: asked.append((*args, summary)) or "1: a ! 1: b\n"
    )
    repo = Path("r")
    got = branches._decide(repo, BASE, "b", NOW, old, force, 1)
    if old is None or plan is None:
        same = "unchanged (same trees, messages, authors and signing)"
        assert got == (plan or branches.BranchPlan(OLD, OLD, same, SAME, 2))
        assert asked == ([] if old is None else [(repo, BASE, OLD), (repo, BASE, OLD)])
        assert branches._decide(repo, BASE, "b", [TWO, *NOW], None, False, 1).tip == ONE.sha
        return
    each = "commit 1: content, message; commit 2: content, message"
    what = each if based else f"not based on {BASE[:12]}"
    state, keep, revision = plan
    ending = "; old tip in the reflog)" if force else ")"
    title = ("title: `perf(x): one` -> `perf(x): two`",) if based and not force else ()
    assert got == branches.BranchPlan(
        *(ONE.sha, OLD, f"{state}{what}{ending}", NOW, revision, keep),
        changes=(*title, what) if keep else (),
        range_diff="1: a ! 1: b",
    )
    earlier = f"{BASE}..{OLD}" if based else f"{OLD}~2..{OLD}"
    between = [(repo, BASE, OLD)] if based else []
    assert asked == [(repo, BASE, OLD), *between, (repo, earlier, f"{BASE}..{ONE.sha}", True)]
