"""The two handler codemods on synthetic HandlerBase modules."""

from __future__ import annotations

import libcst
from libcst.codemod import CodemodTest

from codemods.handler_delta import HandlerCallPassesDelta, HandlerExtractForwardsDelta
from codemods.outcome import Status
from codemods.series import run_codemod
from tests.codemods.support import outcome_of
from tests.fixtures import snippets


def both(source: str) -> str:
    """Run the two handler codemods in series order, as the series does."""
    tree = libcst.parse_module(source)
    for codemod in (HandlerExtractForwardsDelta, HandlerCallPassesDelta):
        status, detail, tree = run_codemod(codemod, "handler_base.py", tree)
        assert status in (Status.APPLIED, Status.ALREADY_APPLIED), detail
    return tree.code


class TestHandlerExtractForwardsDelta(CodemodTest):
    TRANSFORM = HandlerExtractForwardsDelta

    def test_adds_keyword_and_forwards_it(self) -> None:
        after = snippets.HANDLER_PATCHED.replace(
            'output, tokens_so_far, new_token_ids=out["token_ids"]', "output, tokens_so_far"
        )
        self.assertCodemod(snippets.HANDLER, after)

    def test_already_applied(self) -> None:
        self.assertCodemod(snippets.HANDLER_PATCHED, snippets.HANDLER_PATCHED, expected_skip=True)


class TestHandlerCallPassesDelta(CodemodTest):
    TRANSFORM = HandlerCallPassesDelta

    def test_passes_the_built_delta(self) -> None:
        before = snippets.HANDLER_PATCHED.replace(
            'output, tokens_so_far, new_token_ids=out["token_ids"]', "output, tokens_so_far"
        )
        self.assertCodemod(before, snippets.HANDLER_PATCHED)

    def test_already_applied(self) -> None:
        self.assertCodemod(snippets.HANDLER_PATCHED, snippets.HANDLER_PATCHED, expected_skip=True)


def test_both_in_order_give_the_patched_handler() -> None:
    assert both(snippets.HANDLER) == snippets.HANDLER_PATCHED


def test_applying_twice_equals_once() -> None:
    once = both(snippets.HANDLER)
    assert both(once) == once


def test_vllm_style_wrapper_in_the_same_module_is_untouched() -> None:
    patched = both(snippets.HANDLER)
    wrapper = "class BaseWorkerHandler:"
    assert patched.split(wrapper)[1] == snippets.HANDLER.split(wrapper)[1]


def test_positional_two_argument_call_still_matches_the_signature() -> None:
    """`HandlerBase._extract_logprobs(output, 0)` stays valid: the new parameter is
    keyword-only with a default."""
    patched = both(snippets.HANDLER)
    namespace: dict[str, object] = {}
    exec(compile(patched.replace("from dynamo.common.backend", "# "), "h", "exec"), namespace)
    import inspect

    sig = inspect.signature(namespace["HandlerBase"]._extract_logprobs)  # type: ignore[attr-defined]
    sig.bind(object(), 0)
    param = sig.parameters["new_token_ids"]
    assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is None


def test_inline_pre_1_3_handler_is_not_applicable() -> None:
    for codemod in (HandlerExtractForwardsDelta, HandlerCallPassesDelta):
        status, detail = outcome_of(codemod, snippets.HANDLER_INLINE)
        assert status is Status.NOT_APPLICABLE, codemod
        assert "indexes token by token" in detail and "<= 1.2.1" in detail


def test_removed_call_is_drift() -> None:
    source = snippets.HANDLER.replace(
        """                log_probs, top_logprobs = self._extract_logprobs(
                    output, tokens_so_far
                )
""",
        "                log_probs = None\n",
    )
    status, detail = outcome_of(HandlerCallPassesDelta, source)
    assert status is Status.DRIFTED
    assert "HandlerBase._generate_locally_impl" in detail and "0 calls" in detail


def test_call_moved_before_the_delta_is_drift() -> None:
    call = """                log_probs, top_logprobs = self._extract_logprobs(
                    output, tokens_so_far
                )
"""
    delta = """                out = {
                    "token_ids": output.token_ids[tokens_so_far:],
                    "index": output_idx,
                }
"""
    source = snippets.HANDLER.replace(call, "").replace(delta, call + delta)
    status, detail = outcome_of(HandlerCallPassesDelta, source)
    assert status is Status.DRIFTED
    assert 'no `out = {"token_ids": output.token_ids[tokens_so_far:], ...}` before' in detail


def test_cursor_renamed_only_in_the_call_is_drift() -> None:
    source = snippets.HANDLER.replace(
        "                    output, tokens_so_far\n", "                    output, so_far\n"
    )
    status, detail = outcome_of(HandlerCallPassesDelta, source)
    assert status is Status.DRIFTED
    assert "cursor `so_far`" in detail


def test_out_rebound_between_delta_and_call_is_drift() -> None:
    """If something rewrites out["token_ids"] after the slice, passing it would be wrong."""
    source = snippets.HANDLER.replace(
        "                    self.seen = True\n",
        "                    self.seen = True\n"
        '                out["token_ids"] = list(output.token_ids)\n',
    )
    status, detail = outcome_of(HandlerCallPassesDelta, source)
    assert status is Status.DRIFTED
    assert "before the call in its block" in detail


def test_helper_signature_changed_in_handler_is_drift() -> None:
    source = snippets.HANDLER.replace(
        "        output, num_output_tokens_so_far: int\n", "        output, start: int\n"
    )
    status, detail = outcome_of(HandlerExtractForwardsDelta, source)
    assert status is Status.DRIFTED
    assert "parameters (output, start)" in detail


def test_method_that_no_longer_just_delegates_is_drift() -> None:
    source = snippets.HANDLER.replace(
        "        return _shared_logprobs.extract_from_completion_output(",
        "        result = _shared_logprobs.extract_from_completion_output(",
    ).replace(
        "            include_bytes=False,\n        )\n",
        "            include_bytes=False,\n        )\n        return result\n",
        1,
    )
    status, detail = outcome_of(HandlerExtractForwardsDelta, source)
    assert status is Status.DRIFTED
    assert "not one `return ...extract_from_completion_output(...)`" in detail
