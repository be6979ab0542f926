"""The designs of the fix, each one object holding all that is said of it: its codemods and
commit message, and the sentences of its PR and of the comment for #14402. A third design
is its codemods, their steps in ``codemods/series.py``, one more :class:`Design` here and
where the bench plants its mutant (``services/variants.py``). No figure is written here:
every number comes from a saved record."""

from __future__ import annotations

from dataclasses import dataclass

from codemods import handler_call_passes_delta, helper_drops_copy, logprobs_helper
from codemods.handler_response_loop_tests import PATH as HANDLER_TESTS
from codemods.helper_delta_tests import PATH as HELPER_TESTS
from codemods.outcome import Target
from codemods.series import COMMIT_MESSAGE, ONE_LINER, ONE_LINER_MESSAGE, SERIES, Step


@dataclass(frozen=True)
class Related:
    """The open PR on the same copy, as last seen on GitHub (this tool has no network)."""

    number: int
    title: str
    state: str
    seen: str


RELATED = Related(
    14402,
    "perf(trtllm): avoid cumulative token copies in logprob streaming",
    "open, approved by a maintainer on 2026-09-17",
    "2026-12",
)


@dataclass(frozen=True)
class Test:
    name: str
    file: str
    checks: str  # what it checks, as the PR says it


@dataclass(frozen=True)
class Design:
    name: str
    steps: tuple[Step, ...]
    message: str  # the commit message
    keyword: str  # the helper's new keyword ("": none)
    does: str  # what this PR does, after the defect
    changes: str  # Details: the change, as bullets
    public_api: str
    start: tuple[Target, ...]  # where a reviewer starts, in order
    tests: tuple[Test, ...]
    to_related: str  # how this PR stands to #14402, in a clause
    other: str  # the other design, as "Alternatives considered" says it
    comment: tuple[str, str]  # for #14402: before the one-line diff, and after it

    @property
    def title(self) -> str:
        return self.message.split("\n", 1)[0]


_API = "No public API change: `extract_from_completion_output` is not in any `__all__`"
ONE_LINER_DESIGN = Design(
    name="one-liner",
    steps=ONE_LINER,
    message=ONE_LINER_MESSAGE,
    keyword="",
    does="This PR drops that copy: the helper slices the chunk's ids out of "
    "`output.token_ids` directly.",
    changes=(
        "- `extract_from_completion_output` (`common/backend/logprobs.py`) no longer wraps "
        "`output.token_ids` in `list(...)` before slicing the chunk's ids out of it. Its "
        "docstring now says the ids must support `len()` and slicing, where any iterable did "
        "before (TRT-LLM declares `CompletionOutput.token_ids` as `Optional[list[int]]`), and "
        "the comment that named the copy is reworded. No signature changes. vLLM's handler "
        "calls the helper too, at offset 0 on each chunk's own output: for a list, the slice "
        "holds what the slice of its copy held."
    ),
    public_api=f"{_API}, and no signature changes.",
    start=(helper_drops_copy.TARGET,),
    tests=(
        Test(
            "test_extract_completion_reads_only_the_chunks_token_ids",
            HELPER_TESTS,
            "mid-stream, the chunk's log probs and top entries, with only the chunk's ids read",
        ),
        Test(
            "test_extract_completion_reads_no_token_ids_when_nothing_is_new",
            HELPER_TESTS,
            "with nothing new, `(None, None)` and no id read",
        ),
    ),
    to_related="fixes the same copy by passing the loop's delta to the helper as a new "
    "keyword argument; this PR is the one-line alternative",
    other="The delta design, #14402's approach, passes the loop's delta to the helper as a "
    "new keyword",
    comment=(
        "An alternative for the copy this PR fixes, for you to weigh here before anything "
        "else is opened: slice `output.token_ids` without `list(...)` first, no new keyword:",
        "It keeps what this PR fixes: the TRT-LLM loop no longer copies the history. Compared "
        "with passing the loop's delta as a new keyword, it changes no signature and leaves "
        "one code path for every caller. Would you take this into this PR, should it be a PR "
        "of its own, or neither?",
    ),
)
DELTA_DESIGN = Design(
    name="delta",
    steps=SERIES,
    message=COMMIT_MESSAGE,
    keyword=logprobs_helper.PARAM,
    does="The loop already builds each chunk's delta; this PR hands it to the helper, so "
    "the helper no longer copies the history.",
    changes=(
        "- `extract_from_completion_output` (`common/backend/logprobs.py`) takes an optional "
        "keyword-only `new_token_ids`, the chunk's ids, and reads them instead of copying "
        "`output.token_ids`. A non-empty one whose length is not `len(output.token_ids) - "
        "num_output_tokens_so_far` raises `ValueError` (an O(1) check); an empty one "
        "returns `(None, None)`, as slicing past the end did. Without it the old code runs.\n"
        "- `HandlerBase._generate_locally_impl` passes the delta it already builds through "
        "`HandlerBase._extract_logprobs`, which gains the same keyword; its positional form "
        "`(output, 0)` keeps working."
    ),
    public_api=f"{_API}, and `HandlerBase._extract_logprobs` is private; both gain an "
    "optional keyword-only parameter.",
    start=(logprobs_helper.TARGET, handler_call_passes_delta.TARGET),
    tests=(
        Test(
            "test_extract_completion_reads_the_chunk_from_new_token_ids",
            HELPER_TESTS,
            "given the delta, the chunk's log probs and top entries, with no id of the history read",
        ),
        Test(
            "test_extract_completion_rejects_new_token_ids_of_another_length",
            HELPER_TESTS,
            "a non-empty delta of the wrong length raises `ValueError`",
        ),
        Test(
            "test_extract_completion_returns_none_when_new_token_ids_is_empty",
            HELPER_TESTS,
            "an empty delta returns `(None, None)`, even past the end of the ids",
        ),
        Test(
            "TestGenerateLocally::test_interleaved_choices_stream_logprobs_without_copying"
            "_token_ids",
            HANDLER_TESTS,
            "three interleaved choices stream the right ids and log probs, each chunk's ids "
            "read once",
        ),
        Test(
            "test_trtllm_handler_matches_shared",
            HANDLER_TESTS,
            "an existing test, extended with one case: the wrapper passes the delta on",
        ),
    ),
    to_related="takes the same approach, the loop's delta passed to the helper; this PR is "
    "another implementation of it",
    other="The one-line alternative drops only the helper's copy and adds no parameter",
    comment=(
        "An implementation of the same approach as this PR (the loop's delta passed to the "
        "helper) has two things you could take: an O(1) check that the delta is "
        "`output.token_ids[num_output_tokens_so_far:]` by its length, and a handler test "
        "with interleaved choices. While measuring it, a smaller fix came up that drops only "
        "the copy, with no new keyword:",
        "Would you like either in this PR? I would rather not open a second PR on the same copy.",
    ),
)
DESIGNS = {d.name: d for d in (DELTA_DESIGN, ONE_LINER_DESIGN)}
DEFAULT = DELTA_DESIGN.name  # this project's first design, and #14402's approach

# The one-line alternative as a diff of the helper, fenced for Markdown.
COPY_DIFF = f"```diff\n-    {helper_drops_copy.COPY}\n+    {helper_drops_copy.NO_COPY}\n```"
