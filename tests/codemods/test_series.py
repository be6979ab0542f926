"""run_series: outcomes of the whole series, nothing returned for writing unless all pass."""

from __future__ import annotations

from codemods import handler_delta, logprobs_helper
from codemods.outcome import Status
from codemods.series import SERIES, run_series
from tests.fixtures import snippets

HELPER_PATH = logprobs_helper.TARGET.path
HANDLER_PATH = handler_delta.PATH
# The steps that make the fix itself (the series may also carry regression tests).
CORE = tuple(s for s in SERIES if s.target.path in (HELPER_PATH, HANDLER_PATH))


def reader(files: dict[str, str]):
    return lambda path: files.get(path)


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
    assert f"{HANDLER_PATH}: HandlerBase._extract_logprobs: expected the file" in (
        result.outcomes[1].detail
    )


def test_unparsable_file_is_drift() -> None:
    result = run_series(
        reader({HELPER_PATH: "def broken(:\n", HANDLER_PATH: snippets.HANDLER}), CORE
    )
    assert result.outcomes[0].status is Status.DRIFTED
    assert "does not parse" in result.outcomes[0].detail
