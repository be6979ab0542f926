"""dynamo.verbs.pr.description through `pr`: dynamo's template and its disclosure, every
figure and verdict from records saved for this base and series, the alternative computed
from them, the core lines counted, the full record beside it."""

from __future__ import annotations

import hashlib
import re

from codemods.series import DESIGNS
from dynpatch import series
from dynpatch.verbs.pr import texts
from dynpatch.verbs.pr.description import TO_COMPLETE
from tests.fixtures.pr import HANDLER, HELPER, V1, World, git
from tests.fixtures.synthetic import REPO


def counted(alt: tuple[float, float], flat_alt: float = 0.14) -> dict:
    """A bench record's figures: this change 0.855 and 0.548, the alternative ``alt``."""
    per_chunk = {
        "baseline": {"late_vs_early_pct": 498.6},
        "patched": {"late_vs_early_pct": 0.17},
        "alternative": {"late_vs_early_pct": flat_alt},
    }
    return {
        "requests": {
            "256x4": {"patched/baseline": 0.855, "alternative/baseline": alt[0]},
            "4096x1": {"patched/baseline": 0.548, "alternative/baseline": alt[1]},
        },
        "per_chunk": {c: per_chunk for c in ("16384x1", "16384x4")},
    }


SCRIPT_SHA = hashlib.sha256(REPO.rerun.read_bytes()).hexdigest()
RERUN = {
    "sha256": SCRIPT_SHA,
    "output": "   16384   41.07   1.74  1.70  23.6x\n",
    "cpu": "A CPU x2",
}
MUTATION = (
    "carried tests: 11 fail on baseline, 11 pass on patched (of 11); with new_token_ids "
    "accepted but ignored, 11 of the 11 cases of new tests fail on their own assertions"
)


def _first_screen(text: str) -> str:
    return text.split("<details>", 1)[0]


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}\n\n", 1)[1].split("\n## ", 1)[0]


def test_the_body_is_dynamo_s_template_and_ends_in_the_disclosure(world: World, pr) -> None:
    status, out, err = pr(reviewed=None)
    assert status == 0, err
    text = world.out.read_text()
    assert text.startswith("## Overview:\n") and "<!--" not in text  # no note in the body
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Overview:",
        "## Details:",
        "## Where should the reviewer start?",
        "## Related Issues",
        "## Public API",
        "## Disclosure",
    ]
    assert f"## Public API\n\n{texts.PROSE['delta'].public_api}\n\n## Disclosure" in text
    disclosure = _section(text, "Disclosure")
    assert "written with substantial AI assistance" in disclosure
    for name, _file in texts.DELTA_TESTS:
        assert f"`{name}`" in disclosure
    assert disclosure.endswith(f"What I reviewed myself: {TO_COMPLETE}\n")
    assert "warning: the description's disclosure asks what you reviewed yourself" in err
    assert "complete its disclosure" in out
    start = _section(text, "Where should the reviewer start?")
    assert [ln.split(":")[0] for ln in start.splitlines()] == [
        f"1. `{HELPER}`, `extract_from_completion_output`",
        f"1. `{HANDLER}`, `HandlerBase._generate_locally_impl`",
    ]
    assert "Made on `v9.9.9`, commit " in text
    assert (
        "Instructions per request (valgrind instruction counts (deterministic) of dynamo's "
        "real `AggregatedHandler.generate`"
    ) in text
    assert "not serving throughput): not run for this base and series.\n" in text
    assert (
        "- the chunks the handler emits, compared before and after: not run for this base and "
        "series\n"
    ) in text
    assert "It was not measured for this base and series." in text
    record = world.out.with_name("VALIDATION.md").read_text()
    assert "has no saved run of this script" in record  # the script is in the record
    assert "`pytest components/src/dynamo/common/backend/tests/test_logprobs.py" in record
    assert "## verify: not run\n\nno " in record and "DCO: every commit has a" in record
    assert "Signatures: not signed" in record
    # the record says what the series digest hashes, as series.series_digest computes it
    assert (
        "sha256 over its `series` file and then each patch it lists, in order, each fed as its "
        "file name, a NUL byte, the file's bytes and a NUL byte (commit messages included)"
    ) in record
    names = ["series", *(world.patches / "series").read_text().split()]
    fed = b"".join(n.encode() + b"\0" + (world.patches / n).read_bytes() + b"\0" for n in names)
    assert hashlib.sha256(fed).hexdigest() == series.series_digest(world.patches)
    # the person's own line, when given
    assert pr(reviewed="the diff, and pytest of both test files")[0] == 0
    assert world.out.read_text().endswith(
        "What I reviewed myself: the diff, and pytest of both test files\n"
    )


def test_a_contribution_request_is_asked_for_over_100_core_lines_or_two_areas(
    world: World, pr
) -> None:
    status, out, err = pr()
    assert status == 0, err
    # V1 changes the helper and the handler: two areas (no CODEOWNERS: their folders)
    areas = "2 areas (components/src/dynamo/common, components/src/dynamo/trtllm)"
    assert _section(world.out.read_text(), "Related Issues") == (
        f"- Closes #XXXX (the Contribution Request this change needs: {areas}; open it from "
        "the template, and open this PR once it has `approved-for-pr`)\n"
    )
    assert re.search(
        r"governance   Contribution Request needed: \d+ core lines changed \(\d+ added, \d+ "
        r"removed, in 2 files\) and 2 areas by folder under components/src/dynamo/ \(the base "
        r"has no CODEOWNERS\); one is needed above 100 core lines or for more than one area",
        out,
    )
    # CODEOWNERS decides the areas where the base has one; the issue, once opened
    (world.repo / "CODEOWNERS").write_text("/components/src/dynamo/ @team-all  # one area\n")
    git(world.repo, "add", "CODEOWNERS")
    git(world.repo, "-c", "user.name=O", "-c", "user.email=o@x.invalid", "commit", "-qm", "owners")
    world.base = git(world.repo, "rev-parse", "HEAD").stdout.strip()
    assert pr("--force")[0] == 0
    related = _section(world.out.read_text(), "Related Issues")
    assert related == "- [x] Confirmed — no related issue\n"
    big = {HELPER: V1[HELPER] + "".join(f"x{i} = {i}\n" for i in range(101)), HANDLER: V1[HANDLER]}
    world.series(big)
    status, out, err = pr("--force", "--contribution-request", "8480")
    assert status == 0, err
    assert _section(world.out.read_text(), "Related Issues").startswith(
        "- Closes #8480 (the Contribution Request)"
    )
    assert "Contribution Request needed: 1" in out and "--contribution-request" not in err


def test_the_carried_tests_the_text_names_are_in_the_series() -> None:
    """Each test the description names is added to the file it names by patches/."""
    added: dict[str, str] = {}
    for patch in sorted(REPO.patches.glob("*.patch")):
        for part in patch.read_text().split("\ndiff --git a/")[1:]:
            path = part.split(" ", 1)[0]
            added[path] = added.get(path, "") + part
    assert series.design_of(REPO.patches).name == "delta"
    for name, path in texts.DELTA_TESTS:
        assert re.search(rf"^\+\s*(async )?def {name}\(", added.get(path, ""), re.M), (name, path)


def test_the_alternative_and_the_headline_come_from_the_records(world: World, pr) -> None:
    tier = {"carried_tests": ["t"] * 11, "keyword_ignored_caught": ["t"], "regressions": []}
    world.save("test-upstream", tiers={"cpu": {**tier, "problems": []}})
    alternative = {"line": "alternative (the one-liner): 0 divergences from the baseline"}
    world.save(
        "verify", budget=200, alternative=alternative, scenarios=[{"divergence": None}] * 232
    )
    world.save("bench", **counted((0.872, 0.564)), rerun=RERUN, gates=[])
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    diff = (
        '```diff\n-    token_ids = list(getattr(output, "token_ids", None) or [])\n'
        '+    token_ids = getattr(output, "token_ids", None) or []\n```'
    )
    assert diff in text
    assert (
        "| | 256 tokens x 4 choices | 4096 x 1 | one chunk, late vs early in a 16384-token "
        "stream |\n|---|---:|---:|---:|\n| before | 1.000 | 1.000 | +498.6 % |\n"
        "| this change | 0.855 | 0.548 | +0.2 % |\n"
        "| the one-line alternative | 0.872 | 0.564 | +0.1 % |\n"
    ) in text
    assert "not serving throughput; its thresholds: pass." in text
    assert (
        "In the table above it keeps 88 % and 96 % of this change's saving (256 tokens x 4 "
        "choices, 4096 x 1), executing 2.0 % more instructions per request than this change "
        "at 256 tokens x 4 choices; both stay flat per chunk as the history grows. Its chunks "
        "against the baseline's: 0 divergences from the baseline."
    ) in text
    assert (
        '- dynamo\'s CPU tests (`-m "pre_merge and gpu_0"`): the 11 new cases fail before the '
        "change and pass with it, and fail when the helper takes `new_token_ids` but ignores "
        "it; no other tests changed outcome: pass\n"
    ) in text
    assert "232 streams (200 of them drawn at random), 0 differ: pass" in text
    assert '(gpu_0 or gpu_1)"`): not run here\n' in text
    for word in ("carried", "STAND-IN", "mutant", "gate", "hypothesis"):  # the toolkit's words
        assert not re.search(rf"\b{word}", text), word
    record = world.out.with_name("VALIDATION.md").read_text()  # the script, and its output
    assert f"```python\n{REPO.rerun.read_text().rstrip()}\n```" in record
    assert "on A CPU x2" in record and "16384   41.07   1.74  1.70  23.6x\n```" in record
    assert "python3 per_chunk_cost.py [PATH/TO/logprobs.py]" in record

    # Other figures, other sentences: none of them is fixed prose.
    world.save("bench", **counted((0.99, 0.97), flat_alt=25.0), rerun={**RERUN, "sha256": "0"})
    assert pr()[0] == 0
    text = world.out.read_text()
    assert "it keeps 7 % and 7 % of this change's saving" in text
    assert "executing 15.8 % more" in text
    assert "; only this change stays flat per chunk (within 3 %)." in text
    record = world.out.with_name("VALIDATION.md").read_text()
    assert "has no saved run of this script" in record and "23.6x" not in record


def test_each_stage_line_says_pass_or_fail_and_why(world: World, pr) -> None:
    why = "test_x[a] with new_token_ids accepted but ignored: passed, not a failure of its own assertion"
    tier = {"carried_tests": ["t"] * 11, "keyword_ignored_caught": ["t"] * 10}
    world.save(
        "test-upstream",
        verdict="fail",
        tiers={"cpu": {**tier, "regressions": ["r"], "problems": [why]}},
    )
    divergence = {"chunk": 3, "field": "log_probs[0]"}
    world.save(
        "verify",
        verdict="fail",
        budget=0,
        scenarios=[{"name": "s", "divergence": divergence, "unmet": []}],
    )
    gates = [{"label": "gate 1: 256x4 ...", "met": False}, {"label": "gate 2: x", "met": True}]
    world.save(
        "bench",
        verdict="fail",
        **counted((0.872, 0.564)),
        gates=gates,
        mutant_gates=[{"label": "gate 4: y", "met": True}],
    )
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert f"; 1 other test changed outcome: FAIL: {why}\n" in text
    assert "1 differ: FAIL: s diverged (chunk 3, field log_probs[0])\n" in text
    assert "its thresholds: FAIL: gate 1 missed (+1 more)." in text
    assert "warning: test-upstream: the saved result for this series is a FAIL" in err


def test_a_one_liner_series_is_described_as_the_one_liner(world: World, pr) -> None:
    one_liner = DESIGNS["one-liner"]
    world.series(V1, message=one_liner.message)
    world.save("bench", **counted((0.855, 0.548)), rerun=RERUN, gates=[])
    status, out, err = pr("--force")
    assert status == 0, err
    text = world.out.read_text()
    assert "design one-liner" in out
    prose = texts.PROSE["one-liner"]
    assert prose.overview in text and prose.details.splitlines()[0] in text
    assert f"## Public API\n\n{prose.public_api}" in text
    assert "**Alternatives considered.** The delta design (#14402's approach)" in text
    assert "| the delta design (#14402) | 0.855 | 0.548 |" in text
    assert "```diff" not in text
    start = _section(text, "Where should the reviewer start?")
    assert start.startswith(f"1. `{HELPER}`, `extract_from_completion_output`")
