"""LogprobsHelperDelta on synthetic helper modules: before -> after, and every refusal."""

from __future__ import annotations

import libcst
from libcst.codemod import CodemodTest

from codemods.logprobs_helper import LogprobsHelperDelta
from codemods.outcome import Status
from codemods.series import SERIES, run_codemod
from tests.codemods.support import outcome_of
from tests.fixtures import snippets


class TestLogprobsHelperDelta(CodemodTest):
    TRANSFORM = LogprobsHelperDelta

    def test_rewrites_the_history_copy(self) -> None:
        self.assertCodemod(snippets.HELPER, snippets.HELPER_PATCHED)

    def test_already_applied_is_a_no_op(self) -> None:
        self.assertCodemod(snippets.HELPER_PATCHED, snippets.HELPER_PATCHED, expected_skip=True)

    def test_older_is_none_guard_still_applies(self) -> None:
        after = snippets.HELPER_PATCHED.replace(
            'if not getattr(output, "logprobs", None):', "if output.logprobs is None:"
        )
        self.assertCodemod(snippets.HELPER_IS_NONE_GUARD, after)

    def test_without_optional_import_uses_pep604_annotation(self) -> None:
        before = snippets.HELPER.replace(
            "from typing import Any, Optional", "from typing import Any"
        )
        status, _, tree = run_codemod(LogprobsHelperDelta, "x.py", _parse(before))
        assert status is Status.APPLIED
        assert "new_token_ids: list[int] | None = None," in tree.code


def _parse(source: str) -> libcst.Module:
    return libcst.parse_module(source)


def test_missing_helper_is_not_applicable() -> None:
    status, detail = outcome_of(LogprobsHelperDelta, "def unrelated():\n    return 1\n")
    assert status is Status.NOT_APPLICABLE
    assert "no shared logprob helper" in detail and "1.2.1" in detail


def test_renamed_cursor_parameter_is_drift() -> None:
    drifted = snippets.HELPER.replace("num_output_tokens_so_far", "start")
    status, detail = outcome_of(LogprobsHelperDelta, drifted)
    assert status is Status.DRIFTED
    assert "extract_from_completion_output" in detail
    assert "parameters (output, start, tokenizer)" in detail


def test_cursor_renamed_in_body_only_names_the_broken_statement() -> None:
    drifted = snippets.HELPER.replace(
        "new_token_ids = token_ids[num_output_tokens_so_far:]",
        "new_token_ids = token_ids[offset:]",
    )
    status, detail = outcome_of(LogprobsHelperDelta, drifted)
    assert status is Status.DRIFTED
    assert "found `new_token_ids = token_ids[offset:]`" in detail
    assert "expected a function (output, num_output_tokens_so_far" in detail


def test_history_copy_gone_is_drift() -> None:
    drifted = snippets.HELPER.replace(
        'token_ids = list(getattr(output, "token_ids", None) or [])',
        "token_ids = output.token_ids",
    )
    status, detail = outcome_of(LogprobsHelperDelta, drifted)
    assert status is Status.DRIFTED
    assert "no statement `token_ids = list(getattr(output" in detail


def test_new_keyword_without_the_body_change_is_drift() -> None:
    half = snippets.HELPER.replace(
        "include_bytes: bool = False,\n)",
        "include_bytes: bool = False,\n    new_token_ids=None,\n)",
    )
    status, detail = outcome_of(LogprobsHelperDelta, half)
    assert status is Status.DRIFTED
    assert "in the signature but not the expected body" in detail


def test_neighbour_with_the_same_statements_is_untouched() -> None:
    status, _, tree = run_codemod(LogprobsHelperDelta, "x.py", _parse(snippets.HELPER))
    assert status is Status.APPLIED
    neighbour = tree.code.split("def neighbour", 1)[1]
    assert neighbour == snippets.HELPER.split("def neighbour", 1)[1]


def test_codemod_is_pure() -> None:
    """Same input, same output, and the input module object is not mutated."""
    tree = _parse(snippets.HELPER)
    first = run_codemod(LogprobsHelperDelta, "x.py", tree)[2].code
    second = run_codemod(LogprobsHelperDelta, "x.py", tree)[2].code
    assert first == second
    assert tree.code == snippets.HELPER


def test_series_step_for_the_helper_names_its_target() -> None:
    step = SERIES[0]
    assert step.codemod is LogprobsHelperDelta
    assert step.target.path == "components/src/dynamo/common/backend/logprobs.py"
    assert step.target.qualname == "extract_from_completion_output"
