"""The PR step's pure parts: title and DCO rules, re-signing, evidence classification,
the push gate and the printed `gh` line."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from dynpatch import evidence
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.pr import publish, rules, validation
from dynpatch.pr.validation import State
from dynpatch.series import series_digest

JANE = Identity("Jane Doe", "jane@example.invalid")
SERIES = Identity("dynamo-logprob-delta", "maintainers@example.invalid")


def commit(message: str, author: Identity = JANE) -> CommitInfo:
    return CommitInfo("a" * 40, "b" * 40, author, author, message, signed=False)


@pytest.mark.parametrize(
    "title",
    [
        "perf(trtllm): reuse the streamed delta for logprob extraction",
        "fix: handle an empty stream",
        "feat(common/backend)!: drop the old helper",
        "revert(ci): undo the cache change",
    ],
)
def test_conventional_titles_pass(title: str) -> None:
    assert rules.title_problem(title) is None


@pytest.mark.parametrize(
    "title",
    [
        "Perf(trtllm): capitalised type",
        "perf(trtllm) missing colon",
        "perf(): empty scope",
        "wip(trtllm): not a type dynamo accepts",
        "perf(trtllm):no space",
        "reuse the streamed delta",
        "",
    ],
)
def test_other_titles_fail_with_the_accepted_types_named(title: str) -> None:
    problem = rules.title_problem(title)
    assert problem is not None and "perf" in problem and "revert" in problem


def test_dco_passes_when_a_sign_off_matches_the_author() -> None:
    msg = "perf(x): y\n\nbody\n\nSigned-off-by: Jane Doe <jane@example.invalid>\n"
    assert rules.dco_problems(commit(msg)) == []
    # email case does not matter, the name does
    upper = msg.replace("jane@example.invalid", "Jane@Example.invalid")
    assert rules.dco_problems(commit(upper)) == []


@pytest.mark.parametrize(
    ("message", "needle"),
    [
        ("perf(x): y\n\nbody\n", "has no line matching ^Signed-off-by"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe\n", "has no line matching"),
        ("perf(x): y\n\nSigned-off-by: <jane@example.invalid>\n", "has no line matching"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <jane@example.invalid> \n", "has no line"),
        ("perf(x): y\n\nSigned-off-by: Jon Doe <jane@example.invalid>\n", "matches its author"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <jd@example.invalid>\n", "matches its author"),
    ],
)
def test_dco_problems(message: str, needle: str) -> None:
    problems = rules.dco_problems(commit(message))
    assert len(problems) == 1 and needle in problems[0], problems


def test_dco_flags_a_leftover_series_sign_off() -> None:
    msg = f"perf(x): y\n\nSigned-off-by: {SERIES}\nSigned-off-by: {JANE}\n"
    assert rules.dco_problems(commit(msg)) == []
    problems = rules.dco_problems(commit(msg), replaced=SERIES)
    assert len(problems) == 1 and "series identity" in problems[0]


def test_drop_sign_off_removes_only_that_identity() -> None:
    msg = (
        "perf(x): y\n\nSigned-off-by: someone is not a sign-off of SERIES\n\n"
        f"Reviewed-by: {JANE}\nSigned-off-by: {SERIES}\nSigned-off-by: Other <o@example.invalid>\n"
    )
    out = rules.drop_sign_off(msg, SERIES)
    assert f"Signed-off-by: {SERIES}" not in out
    assert "Signed-off-by: Other <o@example.invalid>" in out
    assert f"Reviewed-by: {JANE}" in out
    assert "someone is not a sign-off" in out
    assert rules.sign_offs(out) == [Identity("Other", "o@example.invalid")]


# --- evidence ------------------------------------------------------------------------


@pytest.fixture
def series(tmp_path: Path) -> Path:
    patches = tmp_path / "patches"
    patches.mkdir()
    (patches / "0001-x.patch").write_text("the patch, version 1\n")
    (patches / "series").write_text("0001-x.patch\n")
    return patches


BASE = "b" * 40
DEFAULTS = {"verify": {"budget": 200}, "test-upstream": {"tiers_run": ["cpu", "standin"]}}


def save(stage: str, patches: Path, out: Path, verdict: str = "pass", summary: str = "") -> None:
    evidence.save(
        evidence.Record(
            stage,
            base=BASE,
            series_sha256=series_digest(patches),
            command=f"nox -s {stage}",
            verdict=verdict,
            summary_md=summary or f"| {stage} | table |\n|---|---|\n| 3 scenarios | ok |",
            details=DEFAULTS.get(stage, {}),
        ),
        patches,
        out,
    )


def gather(patches: Path, out: Path) -> tuple[validation.StageEvidence, ...]:
    return validation.gather(patches, BASE, out)


def test_gather_classifies_current_stale_missing_and_invalid(series: Path, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    save("test-upstream", series, out, summary="saved for version 1")
    (series / "0001-x.patch").write_text("the patch, version 2\n")  # the series moves on
    save("verify", series, out)
    (out / "bench.json").write_text('{"stage": "bench", "verdict": "maybe"}')
    found = {e.stage: e for e in gather(series, out)}
    assert found["test-upstream"].state is State.STALE
    assert "not this series" in found["test-upstream"].reason
    assert found["verify"].state is State.CURRENT and found["verify"].verdict == "pass"
    assert found["bench"].state is State.INVALID
    (out / "bench.json").unlink()
    assert {e.stage: e for e in gather(series, out)}["bench"].state is State.MISSING
    (out / "bench.json").write_text("{not json")
    assert {e.stage: e for e in gather(series, out)}["bench"].state is State.INVALID


def test_a_record_filed_under_another_stage_is_invalid(series: Path, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    save("verify", series, out)
    (out / "verify.json").rename(out / "bench.json")
    bench = {e.stage: e for e in gather(series, out)}["bench"]
    assert bench.state is State.INVALID and "'verify' record" in bench.reason


def test_push_needs_current_passing_test_upstream_and_verify(series: Path, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    blockers = validation.push_blockers(gather(series, out))
    assert len(blockers) == 2 and "test-upstream is not run" in blockers[0]
    save("test-upstream", series, out)
    save("verify", series, out, verdict="fail")
    blockers = validation.push_blockers(gather(series, out))
    assert blockers == [f"verify failed for this series (see {out / 'verify.json'})"]
    save("verify", series, out)
    found = gather(series, out)
    assert validation.push_blockers(found) == []  # bench is not required ...
    assert [w.split(":")[0] for w in validation.warnings(found)] == ["bench"]  # ... only warned


def test_markdown_shows_current_results_verbatim_and_never_stale_ones(
    series: Path, tmp_path: Path
) -> None:
    out = tmp_path / "evidence"
    save("test-upstream", series, out, summary="OLD RESULT: 36 passed")
    (series / "0001-x.patch").write_text("the patch, version 2\n")
    save("verify", series, out, summary="| scenarios | 12 |\n|---|---|\n| identical | 12 |")
    text = validation.markdown(gather(series, out))
    assert "OLD RESULT" not in text
    assert "## test-upstream: stale" in text
    assert "## verify: pass\n\n```console\n$ nox -s verify\n```" in text
    assert "| scenarios | 12 |\n|---|---|\n| identical | 12 |" in text
    assert "## bench: not run" in text


# --- description and publishing ---------------------------------------------------------


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
