"""The PR step's pure parts: title and DCO rules, re-signing, evidence classification and
the printed `gh` line."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from dynpatch import evidence
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.pr import branch as rules
from dynpatch.pr import publish, validation
from dynpatch.pr.validation import State

JANE = Identity("Jane Doe", "jane@example.invalid")
SERIES = Identity("dynamo-logprob-delta", "maintainers@example.invalid")


def commit(message: str, author: Identity = JANE) -> CommitInfo:
    return CommitInfo("a" * 40, "b" * 40, author, author, message, signed=False)


@pytest.mark.parametrize(
    ("title", "ok"),
    [
        ("perf(trtllm): reuse the streamed delta for logprob extraction", True),
        ("fix: handle an empty stream", True),
        ("feat(common/backend)!: drop the old helper", True),
        ("revert(ci): undo the cache change", True),
        ("Perf(trtllm): capitalised type", False),
        ("perf(trtllm) missing colon", False),
        ("perf(): empty scope", False),
        ("wip(trtllm): not a type dynamo accepts", False),
        ("perf(trtllm):no space", False),
        ("reuse the streamed delta", False),
        ("", False),
    ],
)
def test_titles_dynamo_accepts_and_the_types_named_otherwise(title: str, ok: bool) -> None:
    problem = rules.title_problem(title)
    assert problem is None if ok else "perf" in problem and "revert" in problem


@pytest.mark.parametrize(
    ("message", "needle"),
    [
        ("perf(x): y\n\nbody\n\nSigned-off-by: Jane Doe <jane@example.invalid>\n", None),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <Jane@Example.invalid>\n", None),  # email case
        ("perf(x): y\n\nbody\n", "has no line matching ^Signed-off-by"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe\n", "has no line matching"),
        ("perf(x): y\n\nSigned-off-by: <jane@example.invalid>\n", "has no line matching"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <jane@example.invalid> \n", "has no line"),
        ("perf(x): y\n\nSigned-off-by: Jon Doe <jane@example.invalid>\n", "matches its author"),
        ("perf(x): y\n\nSigned-off-by: Jane Doe <jd@example.invalid>\n", "matches its author"),
        (f"perf(x): y\n\nSigned-off-by: {SERIES}\nSigned-off-by: {JANE}\n", "series identity"),
    ],
)
def test_dco_problems(message: str, needle: str | None) -> None:
    problems = rules.dco_problems(commit(message), replaced=SERIES)
    assert problems == [] if needle is None else len(problems) == 1 and needle in problems[0]


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


BASE = "b" * 40


# --- evidence ------------------------------------------------------------------------


def test_gather_classifies_current_stale_missing_and_invalid(tmp_path: Path) -> None:
    patches, out = tmp_path / "patches", tmp_path / "evidence"
    patches.mkdir()
    (patches / "series").write_text("0001-x.patch\n")

    def save(stage: str) -> None:
        kw: dict[str, Any] = {"base": BASE, "command": "nox", "verdict": "pass", "out": out}
        digest = evidence.series_digest(patches)
        evidence.save(stage, patches, series_sha256=digest, summary_md="", details={}, **kw)

    def found(stage: str) -> validation.StageEvidence:
        return {e.stage: e for e in validation.gather(patches, BASE, out)}[stage]

    (patches / "0001-x.patch").write_text("the patch, version 1\n")
    save("test-upstream")
    (patches / "0001-x.patch").write_text("the patch, version 2\n")  # the series moves on
    save("verify")
    assert found("test-upstream").state is State.STALE
    assert "not this series" in found("test-upstream").reason
    assert found("verify").state is State.CURRENT and found("verify").verdict == "pass"
    assert found("bench").state is State.MISSING
    for text, reason in (
        ('{"stage": "bench", "verdict": "maybe"}', "has no str 'base'"),
        ("{not json", ""),
        ((out / "verify.json").read_text(), "'verify' record"),  # filed under another stage
    ):
        (out / "bench.json").write_text(text)
        assert found("bench").state is State.INVALID and reason in found("bench").reason


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
