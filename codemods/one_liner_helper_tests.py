"""The one-line design's CPU test (``carried/one_liner_helper_tests.template.py``) in
dynamo's ``test_logprobs.py`` (1.5.0 on), on its ``_ExplodingTokenIds`` holding the ids."""

from __future__ import annotations

from codemods import helper_delta_tests


class OneLinerHelperTests(helper_delta_tests.HelperDeltaTests):
    DESCRIPTION = (
        "test_logprobs.py: add a CPU test that extract_from_completion_output gives the "
        "same chunk from cumulative token_ids that fail when copied."
    )
    TEMPLATE = "one_liner_helper_tests.template.py"
    DONE = "the one-liner's test"
