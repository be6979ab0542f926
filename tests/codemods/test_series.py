"""run_series: the steps in order, their outcomes, and nothing returned for writing unless
all pass; the test-carrying steps never block the fix."""

from __future__ import annotations

from textwrap import dedent

import libcst
import pytest

import tests.codemods.test_handler_call_passes_delta as loop
import tests.codemods.test_handler_extract_forwards_delta as handler
import tests.codemods.test_handler_response_loop_tests as handler_tests
import tests.codemods.test_helper_delta_tests as helper_tests
import tests.codemods.test_logprobs_helper as helper
from codemods import (
    handler_extract_forwards_delta,
    handler_response_loop_tests,
    helper_delta_tests,
    logprobs_helper,
)
from codemods.outcome import Status
from codemods.series import SERIES, SeriesResult, run_codemod, run_series

HELPER = logprobs_helper.TARGET.path
HANDLER = handler_extract_forwards_delta.PATH
HELPER_TESTS = helper_delta_tests.PATH
HANDLER_TESTS = handler_response_loop_tests.PATH
# The twins' own befores, one per target file.
TREE = {
    HELPER: dedent(helper.BEFORE),
    HANDLER: dedent(handler.BEFORE) + dedent(loop.BEFORE).removeprefix("\nclass HandlerBase:"),
    HELPER_TESTS: dedent(helper_tests.BEFORE),
    HANDLER_TESTS: dedent(handler_tests.BEFORE),
}
APPLIED, SAME, NA, DRIFTED = map(
    Status, ("applied", "already-applied", "not-applicable", "drifted")
)


def run(files: dict[str, str | None] | None = None) -> tuple[list[Status], SeriesResult]:
    """The series over ``TREE`` with ``files`` in place (None: the file is missing)."""
    result = run_series({**TREE, **(files or {})}.get)
    return [o.status for o in result.outcomes], result


def test_the_fix_first_then_its_tests_each_command_once() -> None:
    assert [s.codemod.__module__.removeprefix("codemods.") for s in SERIES] == [
        "logprobs_helper",
        "handler_extract_forwards_delta",
        "handler_call_passes_delta",
        "helper_delta_tests",
        "handler_response_loop_tests",
    ]
    assert [s.carries_tests for s in SERIES] == [False] * 3 + [True] * 2
    assert [s.adds for s in SERIES if s.adds] == [
        helper_delta_tests.added_names(),
        handler_response_loop_tests.added_names(),
    ]


def test_run_codemod_maps_each_ending_to_a_status() -> None:
    tree = libcst.parse_module(TREE[HELPER])
    command = logprobs_helper.LogprobsHelperDelta
    status, detail, new = run_codemod(command, HELPER, tree)
    assert (status, detail, new.code) == (APPLIED, command.DESCRIPTION, dedent(helper.AFTER))
    status, detail, same = run_codemod(command, HELPER, new)
    assert status is SAME and same is new and "already takes" in detail
    assert run_codemod(command, HELPER, libcst.parse_module("x = 1\n"))[0] is NA
    drifted = libcst.parse_module(TREE[HELPER].replace("num_output_tokens_so_far", "i"))
    status, detail, same = run_codemod(command, HELPER, drifted)
    assert status is DRIFTED and same is drifted
    assert detail.startswith(f"{HELPER}: extract_from_completion_output: expected ")


def test_each_file_parsed_once_so_its_steps_build_on_each_other_and_twice_is_once() -> None:
    statuses, result = run()
    assert statuses == [APPLIED] * 5 and result.ok and not result.problems()
    assert result.candidate is None  # nothing drifted: no upstream fix is looked for
    assert set(result.changed) == set(TREE)
    # Both handler steps' edits are in the one handler file.
    assert 'new_token_ids=out["token_ids"]' in result.changed[HANDLER]
    assert "new_token_ids=new_token_ids" in result.changed[HANDLER]
    again = run_series({**TREE, **result.changed}.get)
    assert [o.status for o in again.outcomes] == [SAME] * 5 and again.changed == {}


def test_drift_in_one_target_fails_the_series() -> None:
    drifted = TREE[HANDLER].replace("output, tokens_so_far\n", "output, so_far\n")
    statuses, result = run({HANDLER: drifted})
    assert statuses == [APPLIED, APPLIED, DRIFTED, APPLIED, APPLIED] and not result.ok
    assert len(result.problems()) == 1 and "cursor `so_far`" in result.problems()[0]


@pytest.mark.parametrize(("source", "found"), [(None, "no method"), ("def (:\n", "does not parse")])
def test_a_missing_or_unparsable_fix_target_is_drift(source: str | None, found: str) -> None:
    statuses, result = run({HANDLER: source})
    assert statuses[1:3] == [DRIFTED] * 2 and found in result.outcomes[1].detail


def test_a_release_without_the_defect_is_not_applicable_as_a_whole() -> None:
    inline = TREE[HANDLER].replace("extract_from_completion_output", "inline_logprobs")
    statuses, result = run({HELPER: None, HANDLER: inline})
    assert statuses == [NA] * 5 and result.not_applicable and not result.ok
    assert result.problems()[0].startswith("series not applicable: ")
    assert result.changed == {} and "no change to test" in result.outcomes[-1].detail


def test_partial_applicability_is_refused() -> None:
    """The helper module gone while the handler still delegates: not a clean skip."""
    statuses, result = run({HELPER: None})
    assert statuses[:3] == [NA, APPLIED, APPLIED] and not result.ok
    assert not result.not_applicable and "refusing a partial series" in result.problems()[0]


@pytest.mark.parametrize(
    ("path", "index", "found"),
    [
        (HELPER_TESTS, 3, "has no _ExplodingTokenIds"),
        (HANDLER_TESTS, 4, "has no TestGenerateLocally"),
    ],
)
def test_tests_that_cannot_be_carried_do_not_block_the_fix(path, index, found) -> None:
    statuses, result = run({path: None})
    assert statuses == [APPLIED] * index + [NA] + [APPLIED] * (4 - index)
    assert result.ok and result.problems() == [] and found in result.outcomes[index].detail
    assert len(result.changed) == 3


@pytest.mark.parametrize(
    ("files", "index", "found"),
    [
        ({HELPER_TESTS: TREE[HELPER_TESTS].replace("pytest.mark.core, ", "")}, 3, "core"),
        (
            {HANDLER_TESTS: TREE[HANDLER_TESTS].replace("_make_mock_generation", "_mk")},
            4,
            "no TestGenerateLocally._make_mock_generation_result_sequence",
        ),
    ],
)
def test_a_drifted_test_module_blocks_the_series(files, index, found) -> None:
    statuses, result = run(files)
    assert statuses[index] is DRIFTED and not result.ok and found in result.problems()[0]
