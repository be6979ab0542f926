"""The one-line design's handler tests in dynamo's ``test_trtllm_handler_base.py``: the
response-loop test the delta design carries (it holds for both), and its own case in the
wrapper/shared comparison (``carried/one_liner_handler_tests.template.py``)."""

from __future__ import annotations

from codemods import handler_response_loop_tests as loop_tests


class OneLinerHandlerTests(loop_tests.HandlerResponseLoopTests):
    DESCRIPTION = (
        "test_trtllm_handler_base.py (gpu_1): a builder of interleaved choices whose "
        "cumulative ids fail when copied; one response-loop test of their chunks; one "
        "such case in the wrapper/shared comparison."
    )
    CASE_TEMPLATE = "one_liner_handler_tests.template.py"
