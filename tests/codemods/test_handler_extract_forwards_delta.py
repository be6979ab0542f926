"""HandlerExtractForwardsDelta on synthetic HandlerBase modules."""

from __future__ import annotations

import inspect

from codemods.handler_extract_forwards_delta import HandlerExtractForwardsDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods import support
from tests.fixtures import snippets

# The handler after this command only: the response loop does not pass the delta yet.
FORWARDS = snippets.HANDLER_PATCHED.replace(
    'output, tokens_so_far, new_token_ids=out["token_ids"]', "output, tokens_so_far"
)


class TestHandlerExtractForwardsDelta(support.TargetedCodemodTest):
    TRANSFORM = HandlerExtractForwardsDelta

    # --- applies ------------------------------------------------------------------

    def test_adds_keyword_and_forwards_it(self) -> None:
        self.assertApplies(snippets.HANDLER, FORWARDS)

    def test_applies_in_the_wheel_layout(self) -> None:
        self.assertApplies(snippets.HANDLER, FORWARDS, filename=self.in_wheel())

    def test_vllm_style_wrapper_in_the_same_module_is_untouched(self) -> None:
        wrapper = "class BaseWorkerHandler:"
        new = self.run_on(snippets.HANDLER)
        self.assertEqual(new.split(wrapper)[1], snippets.HANDLER.split(wrapper)[1])

    def test_positional_two_argument_call_still_matches_the_signature(self) -> None:
        """`HandlerBase._extract_logprobs(output, 0)` stays valid: the new parameter is
        keyword-only with a default."""
        new = self.run_on(snippets.HANDLER)
        namespace: dict[str, object] = {}
        exec(compile(new.replace("from dynamo.common.backend", "# "), "h", "exec"), namespace)
        sig = inspect.signature(namespace["HandlerBase"]._extract_logprobs)  # type: ignore[attr-defined]
        sig.bind(object(), 0)
        param = sig.parameters["new_token_ids"]
        self.assertIs(param.kind, inspect.Parameter.KEYWORD_ONLY)
        self.assertIsNone(param.default)

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        self.assertNotTarget(snippets.HANDLER)
        # The same handler text anywhere else (e.g. another backend) is not the target.
        self.assertNotTarget(
            snippets.HANDLER,
            filename=f"{support.CLONE}/components/src/dynamo/sglang/request_handlers/handler_base.py",
        )

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(
            FORWARDS, AlreadyApplied, "HandlerBase._extract_logprobs already forwards new_token_ids"
        )
        self.assertSkips(snippets.HANDLER_PATCHED, AlreadyApplied, "already forwards")

    def test_inline_pre_1_3_handler_is_not_applicable(self) -> None:
        self.assertSkips(snippets.HANDLER_INLINE, NotApplicable, "indexes token by token")
        self.assertSkips(snippets.HANDLER_INLINE, NotApplicable, "(releases <= 1.2.1)")

    # --- drift --------------------------------------------------------------------

    def test_missing_method_is_drift(self) -> None:
        self.assertDrifts("class HandlerBase:\n    pass\n", "found no method HandlerBase._extract")

    def test_helper_signature_changed_in_handler_is_drift(self) -> None:
        source = snippets.HANDLER.replace(
            "        output, num_output_tokens_so_far: int\n", "        output, start: int\n"
        )
        self.assertDrifts(source, "found parameters (output, start)")

    def test_method_that_no_longer_just_delegates_is_drift(self) -> None:
        source = snippets.HANDLER.replace(
            "        return _shared_logprobs.extract_from_completion_output(",
            "        result = _shared_logprobs.extract_from_completion_output(",
        ).replace(
            "            include_bytes=False,\n        )\n",
            "            include_bytes=False,\n        )\n        return result\n",
            1,
        )
        self.assertDrifts(source, "not one `return ...extract_from_completion_output(...)`")

    def test_half_made_change_is_drift(self) -> None:
        keyword_only = FORWARDS.replace(
            "            new_token_ids=new_token_ids,\n", "", 1
        )  # the parameter without the forwarding
        self.assertDrifts(keyword_only, "found a half-made change")
