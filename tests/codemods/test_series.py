"""run_series: the steps in order over the twins' befores, their outcomes, and nothing to
write unless all pass; the test-carrying steps never block the fix."""

from __future__ import annotations

from textwrap import dedent

import pytest

import tests.codemods.test_handler_call_passes_delta as loop
import tests.codemods.test_handler_extract_forwards_delta as handler
import tests.codemods.test_handler_response_loop_tests as handler_tests
import tests.codemods.test_helper_delta_tests as helper_tests
import tests.codemods.test_logprobs_helper as helper
from codemods.outcome import Status
from codemods.series import SERIES, SeriesResult, run_series

HELPER, HANDLER, _, HELPER_TESTS, HANDLER_TESTS = (s.target.path for s in SERIES)
# The twins' own befores, one per target file (the handler's two joined in one class).
TREE = {
    HELPER: dedent(helper.BEFORE),
    HANDLER: dedent(handler.BEFORE) + dedent(loop.BEFORE).removeprefix("\nclass HandlerBase:"),
    HELPER_TESTS: dedent(helper_tests.BEFORE),
    HANDLER_TESTS: dedent(handler_tests.BEFORE),
}
APPLIED, SAME, NA, DRIFTED = (
    Status(s) for s in ("applied", "already-applied", "not-applicable", "drifted")
)


def run(files: dict[str, str | None] | None = None) -> tuple[list[Status], SeriesResult]:
    """The series over ``TREE`` with ``files`` in place (None: the file is missing)."""
    result = run_series({**TREE, **(files or {})}.get)
    return [o.status for o in result.outcomes], result


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
    ("index", "old", "new", "found"),
    [
        (3, "pytest.mark.core, ", "", "without core"),
        (4, "def _make_context", "def _mk", "no TestGenerateLocally._make_context"),
    ],
)
def test_a_drifted_test_module_blocks_the_series(index, old, new, found) -> None:
    path = SERIES[index].target.path
    statuses, result = run({path: TREE[path].replace(old, new)})
    assert statuses[index] is DRIFTED and not result.ok and found in result.problems()[0]
