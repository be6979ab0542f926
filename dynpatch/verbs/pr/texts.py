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
RELATED_STATE = "open when last looked at, 2026-11"
HANDLER_TEST = "test_interleaved_choices_stream_logprobs_without_copying_token_ids"
_DEFECT = (
    "TensorRT-LLM streams cumulative token ids. With logprobs on, each chunk of the TRT-LLM "
    "response loop made the shared `extract_from_completion_output` copy the whole token "
    "history (`list(output.token_ids)`) to read the ids the chunk added: up to 1 + 2 + … + N "
    "ids per choice for an N-token stream, quadratic in its length."
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
    other: str  # the other design, as the table of figures names it
    called: str  # this design, as "Changes in vN" names it


DELTA_TESTS = (
    ("test_extract_completion_delta_matches_slicing", HELPER_TESTS),
    ("test_extract_completion_rejects_a_delta_that_is_not_the_chunks", HELPER_TESTS),
    (HANDLER_TEST, HANDLER_TESTS),
)
ONE_LINER_TESTS = (("test_extract_completion_slices_token_ids_without_copying_them", HELPER_TESTS),)

PROSE = {
    "delta": Prose(
        overview=f"{_DEFECT} The loop already builds each chunk's delta; this PR hands it to "
        "the helper, so the helper's cost per chunk no longer grows with the history.",
        details=(
            "- `extract_from_completion_output` (`common/backend/logprobs.py`) takes an "
            "optional keyword-only `new_token_ids`, the chunk's ids, and reads them from it: "
            "it neither copies `output.token_ids` nor slices it again. One whose length is "
            "not `len(output.token_ids) - num_output_tokens_so_far` raises `ValueError` (an "
            "O(1) check: a caller's bug fails loudly rather than misaligning logprobs). "
            "Without it the old code runs: vLLM's handler and any other caller are unchanged.\n"
            "- `HandlerBase._generate_locally_impl` passes the delta it already builds through "
            "`HandlerBase._extract_logprobs`, which gains the same keyword; its positional "
            "form `(output, 0)` keeps working. No other signature changes.\n"
            f"- {_BAIL_OUTS}. Tests: with the delta the helper returns what slicing returned on "
            f"every path (`{DELTA_TESTS[0][0]}`), a delta of another length raises "
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
            f'#{RELATED_PR} ("{RELATED_TITLE}", {RELATED_STATE}) proposes the same design. '
            "What this PR adds that a reviewer of it could take: the helper's length check "
            "and its tests, the interleaved-choices handler test, and the measured one-line "
            "alternative above. Only one of the two should land."
        ),
        alternative="The one-line alternative drops only the helper's copy and adds no parameter",
        other="the one-line alternative",
        called="the loop's delta passed to the helper as `new_token_ids`",
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
            f"- {_BAIL_OUTS}. Test: on each of those paths, the helper gives the same chunk "
            "from cumulative ids that can be sliced but fail when copied "
            f"(`{ONE_LINER_TESTS[0][0]}` in `{HELPER_TESTS}`)."
        ),
        public_api=f"No public API change: no signature changes.\n\n{_PUBLIC}",
        start=(helper_drops_copy.TARGET,),
        tests=ONE_LINER_TESTS,
        related=(
            f'#{RELATED_PR} ("{RELATED_TITLE}", {RELATED_STATE}) fixes the same copy with a '
            "new keyword; this is the one-line alternative. Only one of the two should land."
        ),
        alternative=(
            f"The delta design, #{RELATED_PR}'s approach (measured here on our own code of "
            f"it, not #{RELATED_PR}'s), passes the loop's delta to the helper as a new "
            "keyword-only `new_token_ids`"
        ),
        other=f"the delta design (#{RELATED_PR}'s approach, our code)",
        called="the one-line alternative: the helper's `list(...)` copy dropped, no keyword",
    ),
}
