"""run_series: the steps in order, their outcomes, and nothing returned for writing unless
all pass; and how the test-carrying steps meet the changed-lines scope check."""

from __future__ import annotations

import importlib

import libcst

from codemods import (
    handler_call_passes_delta,
    handler_extract_forwards_delta,
    handler_response_loop_tests,
    helper_delta_tests,
    logprobs_helper,
)
from codemods.outcome import Status
from codemods.series import SERIES, run_codemod, run_series
from tests.codemods.support import TEST_MODULE
from tests.fixtures import snippets

HELPER_PATH = logprobs_helper.TARGET.path
HANDLER_PATH = handler_extract_forwards_delta.PATH
HELPER_TESTS_PATH = helper_delta_tests.PATH
HANDLER_TEST_PATH = handler_response_loop_tests.PATH
# The steps that make the fix itself (the series also carries regression tests).
CORE = tuple(s for s in SERIES if s.target.path in (HELPER_PATH, HANDLER_PATH))
PATHS = {
    HELPER_PATH: snippets.HELPER,
    HANDLER_PATH: snippets.HANDLER,
    HELPER_TESTS_PATH: TEST_MODULE,
    HANDLER_TEST_PATH: snippets.HANDLER_TESTS,
}
NEW_NAMES = helper_delta_tests.added_names()


def reader(files: dict[str, str]):
    return lambda path: files.get(path)


# --- the steps -----------------------------------------------------------------------


def test_steps_run_each_command_on_its_own_target_in_order() -> None:
    modules = [
        logprobs_helper,
        handler_extract_forwards_delta,
        handler_call_passes_delta,
        helper_delta_tests,
        handler_response_loop_tests,
    ]
    assert [s.codemod.__module__ for s in SERIES] == [m.__name__ for m in modules]
    for step in SERIES:
        module = importlib.import_module(step.codemod.__module__)
        assert step.target is module.TARGET is step.codemod.TARGET
        assert step.target.is_file(step.target.path)


def test_series_step_for_the_helper_names_its_target() -> None:
    step = SERIES[0]
    assert step.codemod is logprobs_helper.LogprobsHelperDelta
    assert step.target.path == "components/src/dynamo/common/backend/logprobs.py"
    assert step.target.qualname == "extract_from_completion_output"


def test_test_steps_come_after_the_fix_steps() -> None:
    carries = [s.carries_tests for s in SERIES]
    assert carries == sorted(carries) and carries[-2:] == [True, True]
    assert [s.adds for s in SERIES if s.adds] == [
        NEW_NAMES,
        handler_response_loop_tests.added_names(),
    ]


def test_run_codemod_maps_each_ending_to_a_status() -> None:
    tree = libcst.parse_module(snippets.HELPER)
    command = logprobs_helper.LogprobsHelperDelta
    status, detail, new = run_codemod(command, HELPER_PATH, tree)
    assert (status, detail, new.code) == (
        Status.APPLIED,
        command.DESCRIPTION,
        snippets.HELPER_PATCHED,
    )
    status, detail, same = run_codemod(command, HELPER_PATH, new)
    assert status is Status.ALREADY_APPLIED and same is new and "already takes" in detail
    gone = libcst.parse_module("x = 1\n")
    assert run_codemod(command, HELPER_PATH, gone)[0] is Status.NOT_APPLICABLE
    drifted = libcst.parse_module(snippets.HELPER.replace("num_output_tokens_so_far", "i"))
    status, detail, same = run_codemod(command, HELPER_PATH, drifted)
    assert status is Status.DRIFTED and same is drifted
    assert detail.startswith(f"{HELPER_PATH}: extract_from_completion_output: expected ")


# --- the fix --------------------------------------------------------------------------


def test_core_series_applies_to_the_synthetic_tree() -> None:
    result = run_series(
        reader({HELPER_PATH: snippets.HELPER, HANDLER_PATH: snippets.HANDLER}), CORE
    )
    assert [o.status for o in result.outcomes] == [Status.APPLIED] * 3
    assert result.ok and not result.problems()
    assert result.changed == {
        HELPER_PATH: snippets.HELPER_PATCHED,
        HANDLER_PATH: snippets.HANDLER_PATCHED,
    }


def test_the_handler_steps_see_each_others_result_and_twice_equals_once() -> None:
    handler_steps = tuple(s for s in SERIES if s.target.path == HANDLER_PATH)
    assert len(handler_steps) == 2
    once = run_series(reader({HANDLER_PATH: snippets.HANDLER}), handler_steps)
    assert once.changed == {HANDLER_PATH: snippets.HANDLER_PATCHED}
    twice = run_series(reader(dict(once.changed)), handler_steps)
    assert [o.status for o in twice.outcomes] == [Status.ALREADY_APPLIED] * 2
    assert twice.changed == {}


def test_second_run_is_already_applied_and_changes_nothing() -> None:
    once = run_series(reader({HELPER_PATH: snippets.HELPER, HANDLER_PATH: snippets.HANDLER}), CORE)
    twice = run_series(reader(dict(once.changed)), CORE)
    assert [o.status for o in twice.outcomes] == [Status.ALREADY_APPLIED] * 3
    assert twice.ok and twice.changed == {}


def test_pre_1_3_tree_is_not_applicable_as_a_whole() -> None:
    result = run_series(reader({HANDLER_PATH: snippets.HANDLER_INLINE}), CORE)
    assert result.not_applicable and not result.ok
    assert result.problems()[0].startswith("series not applicable: ")
    assert result.changed == {}


def test_drift_in_one_target_fails_the_series_and_nothing_is_written() -> None:
    drifted = snippets.HANDLER.replace("output, tokens_so_far\n", "output, so_far\n")
    result = run_series(reader({HELPER_PATH: snippets.HELPER, HANDLER_PATH: drifted}), CORE)
    assert [o.status for o in result.outcomes] == [Status.APPLIED, Status.APPLIED, Status.DRIFTED]
    assert not result.ok
    assert len(result.problems()) == 1 and "cursor `so_far`" in result.problems()[0]


def test_partial_applicability_is_refused() -> None:
    """Helper module gone while the handler still delegates: not a clean 'not applicable'."""
    result = run_series(reader({HANDLER_PATH: snippets.HANDLER}), CORE)
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.NOT_APPLICABLE, Status.APPLIED, Status.APPLIED]
    assert not result.ok and not result.not_applicable
    assert "refusing a partial series" in result.problems()[0]


def test_missing_handler_file_is_drift_naming_the_file() -> None:
    result = run_series(reader({HELPER_PATH: snippets.HELPER}), CORE)
    assert result.outcomes[1].status is Status.DRIFTED
    assert f"{HANDLER_PATH}: HandlerBase._extract_logprobs: no file" in (
        result.outcomes[1].detail
    )


def test_unparsable_file_is_drift() -> None:
    result = run_series(
        reader({HELPER_PATH: "def broken(:\n", HANDLER_PATH: snippets.HANDLER}), CORE
    )
    assert result.outcomes[0].status is Status.DRIFTED
    assert "does not parse" in result.outcomes[0].detail


# --- the carried tests ----------------------------------------------------------------


def test_series_adds_both_test_targets_after_the_fix() -> None:
    result = run_series(PATHS.get)
    assert [o.status for o in result.outcomes] == [Status.APPLIED] * 5
    assert result.ok
    assert set(result.changed) == set(PATHS)
    assert "async def test_interleaved_choices" in result.changed[HANDLER_TEST_PATH]
    again = run_series({**PATHS, **result.changed}.get)
    assert [o.status for o in again.outcomes] == [Status.ALREADY_APPLIED] * 5
    assert again.changed == {}


def test_missing_test_module_skips_its_tests_but_not_the_fix() -> None:
    files = {k: v for k, v in PATHS.items() if k != HELPER_TESTS_PATH}
    result = run_series(files.get)
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.APPLIED] * 3 + [Status.NOT_APPLICABLE, Status.APPLIED]
    assert result.ok and result.problems() == []
    assert "regression tests are not carried" in result.outcomes[3].detail


def test_drifted_test_module_blocks_the_series() -> None:
    files = dict(PATHS)
    files[HELPER_TESTS_PATH] = TEST_MODULE.replace("    pytest.mark.core,\n", "")
    result = run_series(files.get)
    assert not result.ok and result.outcomes[3].status is Status.DRIFTED
    assert "`pytestmark` without core" in result.problems()[0]


def test_missing_handler_test_module_skips_its_tests_but_not_the_fix() -> None:
    files = {k: v for k, v in PATHS.items() if k != HANDLER_TEST_PATH}
    result = run_series(files.get)
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.APPLIED] * 4 + [Status.NOT_APPLICABLE]
    assert result.ok and HANDLER_TEST_PATH not in result.changed
    assert "response-loop tests are not carried" in result.outcomes[4].detail


def test_drifted_handler_test_module_blocks_the_series() -> None:
    builder = "def _make_mock_generation_result_sequence("
    drifted = snippets.HANDLER_TESTS.replace(builder, "def _make_results(")
    result = run_series({**PATHS, HANDLER_TEST_PATH: drifted}.get)
    assert not result.ok and result.outcomes[4].status is Status.DRIFTED
    assert "no TestGenerateLocally._make_mock_generation_result_sequence" in result.problems()[0]


def test_a_handler_test_module_before_1_5_carries_no_test_but_the_fix_applies() -> None:
    older = "class TestHealthCheckPriority:\n    def test_other(self):\n        pass\n"
    result = run_series({**PATHS, HANDLER_TEST_PATH: older}.get)
    assert result.ok and result.outcomes[4].status is Status.NOT_APPLICABLE
    assert HANDLER_TEST_PATH not in result.changed and len(result.changed) == 3


def test_not_applicable_fix_carries_no_tests() -> None:
    files = {
        HANDLER_PATH: snippets.HANDLER_INLINE,
        **{k: v for k, v in PATHS.items() if "tests" in k},
    }
    result = run_series(files.get)
    assert result.not_applicable and result.changed == {}
    assert "no change to test" in result.outcomes[-1].detail
