"""The PR description's fixed prose, per design (:data:`codemods.series.DESIGNS`): what the
change is, where a reviewer starts, what it does to the API, how it relates to #14402. No
figure is written here: every number comes from a saved record (:mod:`.description`)."""

from __future__ import annotations

from dataclasses import dataclass

from codemods import handler_call_passes_delta, helper_drops_copy, logprobs_helper
from codemods.handler_response_loop_tests import PATH as HANDLER_TESTS
from codemods.helper_delta_tests import PATH as HELPER_TESTS
from codemods.outcome import Target

RELATED_PR = 14402
RELATED_TITLE = "perf(trtllm): avoid cumulative token copies in logprob streaming"
# Not checked by this tool (it has no network): what was seen on GitHub, and when.
RELATED_STATE = (
    "open and approved when last looked at on GitHub, 2026-11; the toolkit does not check it"
)
HANDLER_TEST = "test_interleaved_choices_stream_logprobs_without_copying_token_ids"
_DEFECT = (
    "TensorRT-LLM streams cumulative token ids. With logprobs on, each chunk of the TRT-LLM "
    "response loop had the shared `extract_from_completion_output` copy the request's whole "
    "token history (`list(output.token_ids)`) to read the few ids that chunk added: "
    "1 + 2 + … + N ids per choice for an N-token stream arriving one token per response."
)
_BAIL_OUTS = (
    "Every bail-out returns what it did (no logprobs, nothing new, flat float logprobs, a "
    "`None` position, a missing selected token)"
)
_PUBLIC = (
    "- [ ] If this PR removes or incompatibly changes a public API, the symbol was "
    "deprecated in a prior release or a waiver is included, per the [API Stability and "
    "Deprecation Policy](docs/fern/pages/community/contributing/api-stability-policy.md)."
)


@dataclass(frozen=True)
class Prose:
    overview: str
    details: str
    public_api: str
    start: tuple[Target, ...]  # where a reviewer starts, in order
    tests: tuple[tuple[str, str], ...]  # (test, file) the series adds, as the text names them
    related: str  # how this PR stands to #14402
    alternative: str  # the other design, as the alternative paragraph names it


DELTA_TESTS = (
    ("test_extract_completion_with_delta_matches_slicing_token_ids", HELPER_TESTS),
    ("test_extract_completion_slices_token_ids_when_the_delta_does_not_fit", HELPER_TESTS),
    (HANDLER_TEST, HANDLER_TESTS),
)
ONE_LINER_TESTS = (
    ("test_extract_completion_slices_token_ids_without_copying_them", HELPER_TESTS),
    (HANDLER_TEST, HANDLER_TESTS),
)

PROSE = {
    "delta": Prose(
        overview=f"{_DEFECT} The loop already builds each chunk's delta; this PR hands it to "
        "the helper, so the helper's cost per chunk no longer grows with the history.",
        details=(
            "- `extract_from_completion_output` (`common/backend/logprobs.py`) takes an "
            "optional keyword-only `new_token_ids`, the chunk's ids, and reads them from it: "
            "it neither copies `output.token_ids` nor slices it again. One whose length is not "
            "`len(output.token_ids) - num_output_tokens_so_far` is ignored (an O(1) check), so "
            "a wrong delta cannot misalign logprobs. Without it the old code runs: vLLM's "
            "handler and any other caller are unchanged.\n"
            "- `HandlerBase._generate_locally_impl` passes the delta it already builds through "
            "`HandlerBase._extract_logprobs`, which gains the same keyword; its positional "
            "form `(output, 0)` keeps working. No other signature changes.\n"
            f"- {_BAIL_OUTS}. With the delta the helper returns what slicing returned on every "
            f"path (`{DELTA_TESTS[0][0]}`), a delta of another length is not used "
            f"(`{DELTA_TESTS[1][0]}`, both in `{HELPER_TESTS}`), and interleaved choices "
            f"stream without copying their history (`{HANDLER_TEST}` in `{HANDLER_TESTS}`)."
        ),
        public_api=(
            "No public API change: `extract_from_completion_output` is not in any `__all__`, "
            "and `HandlerBase._extract_logprobs` is private; both gain an optional "
            f"keyword-only parameter.\n\n{_PUBLIC}"
        ),
        start=(logprobs_helper.TARGET, handler_call_passes_delta.TARGET),
        tests=DELTA_TESTS,
        related=(
            f'#{RELATED_PR} ("{RELATED_TITLE}") proposes the same design ({RELATED_STATE}). '
            "What this PR adds that a reviewer of it could take: the helper's length check "
            "and its tests, the interleaved-choices handler test, and the measured one-line "
            f"alternative above. If #{RELATED_PR} lands first, close this one."
        ),
        alternative="The one-line alternative drops only the helper's copy and adds no parameter",
    ),
    "one-liner": Prose(
        overview=f"{_DEFECT} This PR drops that copy: the helper slices the chunk's ids out "
        "of `output.token_ids` directly, so its cost per chunk no longer grows with the "
        "history.",
        details=(
            "- `extract_from_completion_output` (`common/backend/logprobs.py`) no longer wraps "
            "`output.token_ids` in `list(...)` before slicing the chunk's ids out of it. No "
            "signature changes; every caller (TRT-LLM's loop, vLLM's handler) gets the same "
            "result.\n"
            f"- {_BAIL_OUTS}. The helper gives the same chunk from cumulative ids that fail "
            f"when copied (`{ONE_LINER_TESTS[0][0]}` in `{HELPER_TESTS}`), and interleaved "
            f"choices stream without copying their history (`{HANDLER_TEST}` in "
            f"`{HANDLER_TESTS}`)."
        ),
        public_api=f"No public API change: no signature changes.\n\n{_PUBLIC}",
        start=(helper_drops_copy.TARGET,),
        tests=ONE_LINER_TESTS,
        related=(
            f'#{RELATED_PR} ("{RELATED_TITLE}") proposes the delta design, which v1 of this '
            f"PR also took ({RELATED_STATE}). This revision is the one-line alternative "
            f"reviewers asked for; it and #{RELATED_PR} should not both land."
        ),
        alternative=(
            "The delta design (v1 of this PR, and #14402's approach) passes the loop's delta "
            "to the helper as a new keyword-only `new_token_ids`"
        ),
    ),
}
