"""dynamo.verbs.pr.description through `pr`: dynamo's template and its disclosure, every
figure and verdict from records saved for this base and series, the alternative computed
from them, the core lines counted, the full record beside it; then each fact on its own,
from records made here (these run in `nox -s mutants`, no `pr` run)."""

from __future__ import annotations

import hashlib
import re

import pytest

from codemods.series import DESIGNS
from dynpatch import series
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.verbs.pr import description, texts
from dynpatch.verbs.pr.branch import BranchPlan
from dynpatch.verbs.pr.description import MEASURE, NOT_RUN, TO_COMPLETE
from dynpatch.verbs.pr.governance import CoreLines
from dynpatch.verbs.pr.validation import StageEvidence, State
from tests.fixtures.pr import HANDLER, HELPER, V1, World, git
from tests.fixtures.synthetic import REPO


def counted(alt: tuple[float, float], flat_alt: float = 0.14, flat: float = 0.17) -> dict:
    """A bench record's figures: this change 0.855 and 0.548, the alternative ``alt``."""
    per_chunk = {
        "baseline": {"late_vs_early_pct": 498.6},
        "patched": {"late_vs_early_pct": flat},
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
        "In the table above its saving is 88 % and 96 % of this change's (256 tokens x 4 "
        "choices, 4096 x 1); it executes 2.0 % more instructions per request than this change "
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
    assert "its saving is 7 % and 7 % of this change's" in text
    assert "it executes 15.8 % more" in text
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


# --- each fact on its own ------------------------------------------------------------


def _saved(stage: str, verdict: str = "pass", **details: object) -> StageEvidence:
    record = {"verdict": verdict, "created": "2026-12-04", "details": details}
    return StageEvidence(stage, State.CURRENT, record)


def _facts(*found: StageEvidence, design: str = "delta", **kw: object) -> description.Facts:
    plan = BranchPlan("tip", None, "created", [], signatures=kw.pop("signed", ()))  # type: ignore[arg-type]
    core = kw.pop("core", CoreLines(1, 0, (HELPER,), 0, 0, 0, ("a",), "CODEOWNERS"))
    return description.Facts("t", "b", [HELPER], found, [], DESIGNS[design], core, plan, **kw)  # type: ignore[arg-type]


HEAD = (
    "Instructions per request, against before:\n\n| | 256 tokens x 4 choices | 4096 x 1 | one "
    "chunk, late vs early in a 16384-token stream |\n|---|---:|---:|---:|\n"
)
ROWS = f"{HEAD}| before | 1.000 | 1.000 | +498.6 % |\n| this change | 0.855 | 0.548 | +0.2 % |\n"
MISSED = [{"label": "gate 1: a", "met": False}, {"label": "gate 2: b", "met": False}]
BLIND = [{"label": "gate 3: c", "met": True}, {"label": "gate 4: d", "met": True}]
ONLY_OURS = {"requests": {c: {"patched/baseline": 0.9} for c in description.CASES}}
AT_ONE = {c: {"patched/baseline": 1.0, "alternative/baseline": 0.9} for c in description.CASES}


@pytest.mark.parametrize(
    ("found", "design", "table"),
    [
        (
            _saved("bench", **counted((0.872, 0.564)), gates=[]),
            "delta",
            f"{ROWS}| the one-line alternative | 0.872 | 0.564 | +0.1 % |\n\n"
            f"Measured by {MEASURE}; its thresholds: pass.",
        ),
        (
            _saved("bench", "fail", **counted((0.9, 0.6)), gates=MISSED, mutant_gates=BLIND),
            "one-liner",
            f"{ROWS}| the delta design (#14402) | 0.900 | 0.600 | +0.1 % |\n\nMeasured by "
            f"{MEASURE}; its thresholds: FAIL: gate 1 missed (+2 more).",
        ),
        (
            _saved("bench", "fail", requests=counted((0.9, 0.6))["requests"], mutant_gates=BLIND),
            "delta",
            f"{HEAD}| before | 1.000 | 1.000 | +nan % |\n| this change | 0.855 | 0.548 | +nan % "
            "|\n| the one-line alternative | 0.900 | 0.600 | +nan % |\n\nMeasured by "
            f"{MEASURE}; its thresholds: FAIL: the planted copy passes gate 3, gate 4.",
        ),
        (  # a saved verdict without a reason is said as it is; a reason is a FAIL
            _saved("bench", "fail", **ONLY_OURS),
            "delta",
            f"{HEAD}| before | 1.000 | 1.000 | +nan % |\n| this change | 0.900 | 0.900 | +nan % "
            f"|\n\nMeasured by {MEASURE}; its thresholds: fail.",
        ),
        (
            _saved("bench", **counted((0.9, 0.6)), gates=MISSED[:1]),
            "delta",
            f"{ROWS}| the one-line alternative | 0.900 | 0.600 | +0.1 % |\n\nMeasured by "
            f"{MEASURE}; its thresholds: FAIL: gate 1 missed.",
        ),
        (
            _saved("bench", "fail", requests={"256x4": {"patched/baseline": 0.855}}),
            "delta",
            f"Instructions per request ({MEASURE}): {NOT_RUN}.",
        ),
        (
            StageEvidence("bench", State.STALE, {"verdict": "pass"}),
            "delta",
            f"Instructions per request ({MEASURE}): {NOT_RUN}.",
        ),
    ],
)
def test_the_table_holds_the_saved_figures_and_the_bench_s_verdict(
    found: StageEvidence, design: str, table: str
) -> None:
    assert description._table(_facts(found, design=design)) == table


@pytest.mark.parametrize(
    ("figures", "said"),
    [
        (
            counted((0.872, 0.564)),
            "its saving is 88 % and 96 % of this change's (256 tokens x 4 choices, 4096 x 1); "
            "it executes 2.0 % more instructions per request than this change at 256 tokens x 4 "
            "choices; both stay flat per chunk as the history grows.",
        ),
        (counted((0.8, 0.5), -3.0, 3.01), "its saving is 138 % and 111 % of this change's"),
        (counted((0.8, 0.5), -3.0, 3.01), "6.4 % fewer instructions per request"),
        (counted((0.8, 0.5), -3.0, 3.01), "; only it stays flat per chunk (within 3 %)."),
        (counted((0.99, 0.97), 25.0), "; only this change stays flat per chunk (within 3 %)."),
        (counted((0.9, 0.6), 5.0, -5.0), "; neither stays flat per chunk (within 3 %)."),
        (counted((0.855, 0.6)), "it executes 0.0 % more instructions per request"),
        (ONLY_OURS, "It was not measured for this base and series."),
        (
            counted((0.9, 0.6)) | {"requests": AT_ONE},
            "its saving is nan % and nan % of",
        ),  # no saving
    ],
)
def test_the_alternative_is_said_as_its_saved_figures_say(figures: dict, said: str) -> None:
    text = description._alternative([_saved("bench", **figures)], DESIGNS["delta"])
    head, said_after = text.split("```\n\n", 1)
    assert head.startswith("**Alternatives considered.** The one-line alternative drops")
    assert said in said_after


def test_the_alternative_is_named_as_the_design_names_it_with_the_replay_s_line() -> None:
    one_liner = DESIGNS["one-liner"]
    verify = _saved("verify", alternative={"line": "alternative: one-liner: 0 divergences"})
    text = description._alternative([_saved("bench", **counted((0.9, 0.6))), verify], one_liner)
    head = f"**Alternatives considered.** {texts.PROSE['one-liner'].alternative}. In the table"
    assert text.startswith(head)
    assert text.endswith(" Its chunks against the baseline's: 0 divergences.")
    bench = _saved("bench", **counted((0.9, 0.6)))
    for alternative, end in (({"line": "identical"}, "baseline's: identical."), ({}, "grows.")):
        verify = _saved("verify", alternative=alternative)
        assert description._alternative([bench, verify], one_liner).endswith(end)
    assert description._alternative([bench, _saved("verify")], one_liner).endswith("grows.")
    assert description._alternative([verify], one_liner).endswith(
        ". It was not measured for this base and series."
    )


CPU, STANDIN, GPU = description._TIERS.values()
CARRIED = {"carried_tests": ["t"] * 11, "keyword_ignored_caught": ["t"], "regressions": []}
FAILING = {"carried_tests": ["t"], "regressions": ["r"], "problems": ["why", "and"]}
DIVERGED = [{"name": "s", "divergence": {"chunk": 3}}, {"name": "u", "unmet": ["no log_probs"]}]


@pytest.mark.parametrize(
    ("found", "signed", "lines"),
    [
        (
            [
                _saved("test-upstream", tiers={"cpu": {**CARRIED, "problems": []}}),
                _saved("verify", budget=200, scenarios=[{"divergence": None}] * 3),
                _saved("pre-commit"),
            ],
            ("good",),
            [
                f"{CPU}: the 11 new cases fail before the change and pass with it, and fail when "
                "the helper takes `new_token_ids` but ignores it; no other tests changed "
                "outcome: pass",
                f"{STANDIN}: not run here",
                f"{GPU}: not run here",
                "the chunks the handler emits, compared exactly before and after the change: 3 "
                "streams (200 of them drawn at random), 0 differ: pass",
                "dynamo's pre-commit hooks at their pinned versions: pass",
                "this branch: DCO sign-off, signature and title checked: pass",
            ],
        ),
        (
            [
                _saved(
                    "test-upstream",
                    "fail",
                    tiers={"standin": FAILING, "tpu": {"regressions": [1, 2]}},
                ),
                _saved("verify", "fail", budget=0, scenarios=DIVERGED),
                _saved("pre-commit", "fail"),
            ],
            (),
            [
                f"{STANDIN}: the 1 new case fail before the change and pass with it; 1 other "
                "test changed outcome: FAIL: why (+1 more)",
                "tpu: no new test here; 2 other tests changed outcome: pass",
                f"{CPU}: not run here",
                f"{GPU}: not run here",
                "the chunks the handler emits, compared exactly before and after the change: 2 "
                "streams (0 of them drawn at random), 1 differ: FAIL: s diverged (chunk 3, field "
                "<whole>) (+1 more)",
                "dynamo's pre-commit hooks at their pinned versions: fail",
                "this branch: DCO sign-off and title checked: pass",
            ],
        ),
        (
            [],
            (),
            [
                *(f"{tier}: {NOT_RUN}" for tier in (CPU, STANDIN, GPU)),
                f"the chunks the handler emits, compared before and after: {NOT_RUN}",
                f"dynamo's pre-commit hooks at their pinned versions: {NOT_RUN}",
                "this branch: DCO sign-off and title checked: pass",
            ],
        ),
    ],
)
def test_each_check_says_what_it_saw_and_pass_or_fail_and_why(
    found: list[StageEvidence], signed: tuple[str, ...], lines: list[str]
) -> None:
    said = "".join(f"- {line}\n" for line in lines).rstrip()
    assert description._checks(_facts(*found, signed=signed)) == f"Checked on this base:\n\n{said}"


def test_a_replay_s_reasons_name_each_stream_that_diverged_or_missed_an_expectation() -> None:
    scenarios = [
        {"name": "s", "divergence": {"chunk": 3, "field": "log_probs[0]"}},
        *DIVERGED,
        {"name": "ok", "divergence": None, "unmet": []},
    ]
    assert description._verify_reasons({"scenarios": scenarios}) == [
        "s diverged (chunk 3, field log_probs[0])",
        "s diverged (chunk 3, field <whole>)",
        "u: no log_probs",
    ]


SCRIPT = "print('per chunk')\n"
RERUN_SAVED = {
    "sha256": hashlib.sha256(SCRIPT.encode()).hexdigest(),
    "cpu": "A CPU",
    "output": "o\n",
}


@pytest.mark.parametrize(
    ("script", "rerun", "shown"),
    [
        (
            SCRIPT,
            RERUN_SAVED,
            "Its output as the toolkit ran it on this branch's tree, 2026-12-04, on A CPU "
            "(timings move with the machine's load; the instruction counts above do not):"
            "\n\n```text\no\n```",
        ),
        (
            SCRIPT,
            {**RERUN_SAVED, "sha256": "0"},
            "The toolkit has no saved run of this script for this base and series.",
        ),
        (
            "",
            {**RERUN_SAVED, "sha256": hashlib.sha256(b"").hexdigest()},
            "The toolkit has no saved run of this script for this base and series.",
        ),
    ],
)
def test_the_rerun_shows_the_output_saved_for_this_very_script(
    script: str, rerun: dict, shown: str
) -> None:
    assert description._rerun([_saved("bench", rerun=rerun)], script) == (
        "<details><summary>Rerun it: the helper's cost per chunk before and after, and the "
        "alternative, in a plain dynamo checkout</summary>\n\nSave as `per_chunk_cost.py` at "
        "the top of a dynamo checkout and run `python3 per_chunk_cost.py [PATH/TO/logprobs.py]` "
        "(standard library only; it loads the helper by its path and builds the one-line "
        f"variant from its source).\n\n```python\n{script.rstrip()}\n```\n\n{shown}\n\n</details>"
    )


def test_the_related_issue_is_the_contribution_request_when_one_is_needed() -> None:
    big = CoreLines(101, 0, (HELPER,), 0, 0, 0, ("a", "b"), "CODEOWNERS")
    assert description._related(_facts(core=big, request=8480)) == (
        "- Closes #8480 (the Contribution Request)"
    )
    assert description._related(_facts(core=big)) == (
        "- Closes #XXXX (the Contribution Request this change needs: 101 core lines, over 100; "
        "2 areas (a, b); open it from the template, and open this PR once it has "
        "`approved-for-pr`)"
    )
    assert description._related(_facts()) == "- [x] Confirmed — no related issue"


@pytest.mark.parametrize("signed", [(), ("good A", "good B")])
def test_this_run_s_checks_name_the_series_the_branch_and_the_signer(signed: tuple) -> None:
    jane = Identity("Jane", "j@example.invalid")
    commit = CommitInfo("c", "t", jane, jane, "perf: x\n\nbody\n", bool(signed))
    plan = BranchPlan("tip", None, "created", [commit], revision=2, signatures=signed)
    assert description.checks("`v1`", "0123456789abcdef", 1, plan, "perf/x", "trusted") == [
        "`git am` of the series (1 patch(es), sha256 `0123456789ab`) onto `v1`: applies; 1 "
        "commit(s) on `perf/x`, revision v2.",
        "DCO: every commit has a `Signed-off-by` matching its author (Jane <j@example.invalid>): "
        "pass.",
        "Title `perf: x` is a Conventional Commit: pass.",
        "Signatures (trusted): good A; good B."
        if signed
        else "Signatures: not signed (`--sign` signs with your key through git).",
    ]


def test_the_changes_of_a_revision_say_the_design_it_moved_to() -> None:
    title = f"title: `{DESIGNS['delta'].title}` -> `{DESIGNS['one-liner'].title}`"
    changes = (title, "commit 1: content, message")
    plan = BranchPlan("tip", "old", "v2", [], 2, "b-v1", changes, "1: a < -: b")  # type: ignore[arg-type]
    core = CoreLines(1, 0, (HELPER,), 0, 0, 0, ("a",), "CODEOWNERS")
    facts = description.Facts("t", "b", [HELPER], [], [], DESIGNS["one-liner"], core, plan)
    said = description._changes(facts)
    assert said.startswith(
        "## Changes in v2\n\n- the design: the loop's delta passed to the helper as "
        "`new_token_ids` -> the one-line alternative: the helper's `list(...)` copy dropped, "
        f"no keyword\n- {title}\n- commit 1: the change, the message\n- v1 is kept as the "
        "branch `b-v1`"
    )
