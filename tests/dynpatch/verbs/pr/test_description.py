"""dynpatch.verbs.pr.description: every sentence made from a record states that record's
fields and says pass only where it passed, for every design, every stage passed, failed or
not run, and every kind of base; then what `pr` writes and says, through the command."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from dynpatch import series
from dynpatch.designs import DESIGNS, RELATED
from dynpatch.evidence import Record
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.verbs.pr import claims, description, validation
from dynpatch.verbs.pr.branch import BranchPlan
from dynpatch.verbs.pr.governance import core_lines
from tests.fixtures.pr import HELPER, World, git, sample

STAGES = ("test-upstream", "verify", "bench", "pre-commit")
STATES = ("pass", "fail", "not run")
BASES = {  # how each kind of base is named, and whether it is a PyPI wheel's tree
    "the pin's wheel tree": ("`v1.6.1` (the tree of its PyPI wheel)", True),
    "a clone of a wheel tree": ("the tree of the PyPI wheel ai-dynamo 1.7.0.dev1", True),
    "an upstream commit": ("`main`, commit `0123456789ab` of 2026-12-01", False),
}
# Words of the tool's own world: none may reach the body outside the disclosure.
OWN_WORDS = ("our code", "gates met", "STAND-IN", "mutant", "carried", "nox ", "out/")
OWN_WORDS += ("dynpatch", "deterministic", "-0.0 %", "rebase onto", "record")
AUTHOR = Identity("Jane Doe", "jane@example.org")
COMMIT = CommitInfo("c" * 40, "t", "perf: x", "m", AUTHOR, True)


def _inputs(design: str, states: Mapping[str, str], base: str, **kw: Any) -> claims.Inputs:
    def one(stage: str) -> Record[Any] | str:
        state = states[stage]
        if state == "not run":
            return "not run for this base and series"
        return sample(stage, "b" * 40, "d" * 64, design, state == "pass")

    name, wheel = BASES[base]
    found = validation.Found(*(one(s) for s in STAGES))
    plan = BranchPlan("t" * 40, None, "created", [COMMIT], signatures=("[G] Good",))
    core = core_lines([(1, 1, HELPER)], None)
    return claims.Inputs(
        DESIGNS[design], name, wheel, found, core, plan, (HELPER,), "d" * 64,
        "print(1)\n", **kw,
    )  # fmt: skip


def _field(record: Record[Any], path: str) -> Any:
    """The value at ``path`` in the record's facts (``ratio.CASE.TREE`` calls ``ratio``)."""
    if path.startswith("ratio."):
        return record.facts.ratio(*path.split(".")[1:])
    value: Any = record.facts
    for part in path.split("."):
        if isinstance(value, Mapping):
            value = value[part]
        elif isinstance(value, tuple):
            value = value[int(part)]
        else:
            value = getattr(value, part)
    return value


def _shown(value: Any, text: str) -> bool:
    if isinstance(value, int):
        return f"{value:,}" in text or (value == 0 and "no " in text)
    return any(format(value, f) in text for f in (".3f", ".2f", "+.1f", ".6f"))


COMBINATIONS = [
    (d, dict(zip(STAGES, states, strict=True)), b)
    for d, states, b in itertools.product(DESIGNS, itertools.product(STATES, repeat=4), BASES)
    if len(set(states)) <= 2 or b == "an upstream commit"  # every state of each stage, each base
]


@pytest.mark.parametrize(("design", "states", "base"), COMBINATIONS[::7] + COMBINATIONS[:3])
def test_every_claim_states_its_record_and_says_pass_only_where_it_passed(
    design: str, states: dict[str, str], base: str
) -> None:
    i = _inputs(design, states, base)
    records = dict(zip(STAGES, vars(i.found).values(), strict=True))
    for claim in claims.claims(i):
        record = records.get(claim.stage)
        if claim.verdict == "not run" or not claim.stage:
            assert "not run" in claim.text or not claim.verdict, claim.text
            continue
        assert isinstance(record, Record), claim.text
        for path, value in claim.says.items():
            stated = _field(record, path)
            stated = len(stated) if isinstance(stated, tuple) and isinstance(value, int) else stated
            assert stated == value, (path, claim.text)
            assert _shown(value, claim.text), (path, value, claim.text)
        if claim.verdict == "pass":
            assert record.passed and "FAIL" not in claim.text, claim.text
        if not record.passed and claim.verdict:
            assert claim.verdict == "fail" and "FAIL: " in claim.text, claim.text
    for stage, state in states.items():  # each stage said as it went (the bench's figures: "")
        want = "" if (stage, state) == ("bench", "pass") else state
        assert any(c.verdict == want for c in claims.claims(i) if c.stage == stage), (stage, state)
    text = description.render(i)
    body = text.split("## Disclosure")[0]
    assert not [w for w in OWN_WORDS if w in body], [w for w in OWN_WORDS if w in body]
    assert text.count("nox -s") == 1  # the tool's command, once, in the disclosure
    assert "Changes in v" not in text and f"Relates to #{RELATED.number}" in text


def test_supersedes_14402_only_when_the_person_says_it_was_agreed() -> None:
    states = dict.fromkeys(STAGES, "pass")
    said = description.render(_inputs("one-liner", states, "an upstream commit"))
    assert f"#{RELATED.number} ({RELATED.state}, as of {RELATED.seen})" in said
    assert "Supersedes" not in said and "Discussed there first" not in said
    url = "https://github.com/ai-dynamo/dynamo/pull/14402#issuecomment-1"
    linked = description.render(_inputs("one-liner", states, "an upstream commit", discussed=url))
    assert f"Discussed there first: {url}." in linked and f"discussed there: {url}" in linked
    agreed = description.render(_inputs("one-liner", states, "an upstream commit", supersedes=True))
    assert f"Supersedes #{RELATED.number}, as agreed there." in agreed
    assert "Relates to" not in agreed


def test_the_comment_for_14402_holds_the_one_line_diff_the_figures_and_the_script() -> None:
    for design in DESIGNS:
        i = _inputs(design, dict.fromkeys(STAGES, "pass"), "an upstream commit")
        text = description.comment(i)
        assert (
            "-    token_ids = list(getattr(output" in text and "+    token_ids = getattr(" in text
        )
        assert "| 16,384 | 21.63 (21.50 to 22.10) | 1.43 (1.42 to 1.49) |" in text
        assert "```python\nprint(1)\n```" in text and "dynpatch" not in text


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}\n\n", 1)[1].split("\n## ", 1)[0]


def test_pr_writes_the_description_its_validation_and_the_comment_and_says_post_it_first(
    world: World, pr
) -> None:
    world.save(*STAGES)
    status, out, err = pr(reviewed=None)
    assert status == 0, err
    text = world.out.read_text()
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Overview:",
        "## Details:",
        "## Where should the reviewer start?",
        "## Related Issues",
        "## Public API",
        "## Disclosure",
    ]
    assert _section(text, "Disclosure").endswith(f"What I reviewed myself: {claims.TO_COMPLETE}\n")
    comment = world.out.with_name(f"COMMENT_{RELATED.number}.md").read_text()
    assert comment.startswith("An implementation of the same approach")
    record = world.out.with_name("VALIDATION.md").read_text()
    digest = series.series_digest(world.patches)
    assert f"series sha256 `{digest[:12]}`" in record  # the series the branch is made from
    assert re.search(rf"post COMMENT_{RELATED.number}\.md on #{RELATED.number} first", out)
    assert "2. in your dynamo checkout, on the branch and then on main (where they fail)" in out
    assert "warning: the description's disclosure asks what you reviewed yourself" in err
    assert pr(reviewed="the diff, and pytest of both test files")[0] == 0
    assert world.out.read_text().endswith(
        "What I reviewed myself: the diff, and pytest of both test files\n"
    )


def test_changes_in_v2_only_once_v1_was_pushed_or_posted(world: World, pr, tmp_path) -> None:
    assert pr()[0] == 0
    world.series({HELPER: "# v2 of the change\n"}, design="one-liner")
    assert pr()[0] == 0
    assert "## Changes in v" not in world.out.read_text()  # v1 kept, but nobody saw it
    one_liner = DESIGNS["one-liner"]
    world.series({HELPER: "# v3 of the change\n"}, message=one_liner.message, design="one-liner")
    assert pr("--posted")[0] == 0
    text = world.out.read_text()  # from the earlier to this one, the design named
    assert "## Changes in v3\n\n- the design: delta -> one-liner\n" in text
    assert f"- title: `{DESIGNS['delta'].title}` -> `{one_liner.title}`" in text
    assert "- commit 1: the change, the message" in text
    assert "- v2 is kept as the branch `perf/trtllm-logprob-delta-v2`" in text
    fork = tmp_path / "fork.git"
    git(tmp_path, "init", "-q", "--bare", str(fork))
    world.save(*STAGES)
    assert pr("--push", str(fork))[0] == 0  # v3 pushed: a reviewer may have seen it
    world.series({HELPER: "# v4 of the change\n"}, design="one-liner")
    world.save(*STAGES)
    assert pr()[0] == 0 and "## Changes in v4" in world.out.read_text()


def test_a_series_that_names_no_design_or_an_unknown_one_is_refused(world: World, pr) -> None:
    listed = (world.patches / "series").read_text()
    for first in ("", "# design: middle-out\n"):
        (world.patches / "series").write_text(first + listed.split("\n", 1)[1])
        status, _out, err = pr()
        assert status == 2 and ("does not say its design" in err or "unknown design" in err), err


def test_each_design_names_the_tests_its_codemods_add() -> None:
    for design in DESIGNS.values():
        carried = [s.codemod for s in design.steps if s.carries_tests]
        added = {name for c in carried for name in sys.modules[c.__module__].TESTS}
        new = {t.name.split("::")[-1] for t in design.tests if "existing test" not in t.checks}
        assert new == added, design.name
