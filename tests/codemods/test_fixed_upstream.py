"""fixed_upstream.detect: a release's own fix under other names is found as a *candidate*
(the loop hands its delta to a parameter of the helper), and nothing short of that is;
run_series names the candidate but never calls it fixed upstream by itself: only a judged
verdict (a run of the release's code, tests/dynpatch/test_upstream_fix.py) does."""

from __future__ import annotations

import dataclasses

import libcst as cst

from codemods import fixed_upstream
from codemods.fixed_upstream import Candidate
from codemods.outcome import Status
from codemods.series import SERIES, run_series
from tests.fixtures import snippets
from tests.fixtures.releases import FIXED_UPSTREAM
from tests.fixtures.upstream_fixes import FORWARDED, HANDLER_FORWARDING, variant

HELPER = FORWARDED  # takes `delta_ids` (after the tokenizer)
DELTA = "delta_ids=output.token_ids[tokens_so_far:]"
CANDIDATE = (
    f"extract_from_completion_output takes `delta_ids`; HandlerBase._generate_locally_impl "
    f"passes `{DELTA}` to self._extract_logprobs, which forwards it"
)


def detect(helper: str, handler: str) -> Candidate | None:
    return fixed_upstream.detect(cst.parse_module(helper), cst.parse_module(handler))


def wheel(files: dict[str, str]):
    """A ``read`` over a wheel-layout file map, as the series asks (repository paths)."""
    return lambda path: files.get(path.removeprefix("components/src/"))


def test_a_differently_named_candidate_is_found_with_its_names() -> None:
    found = detect(HELPER, HANDLER_FORWARDING)
    assert found == Candidate("delta_ids", DELTA, "self._extract_logprobs")
    assert found.reason == CANDIDATE
    # a direct call with a name bound from out["token_ids"]
    direct = detect(*variant("tuple-kept-for-the-cursor-check"))
    assert direct == Candidate("delta", "delta=chunk", "extract_from_completion_output")
    # passed by position through the method, which forwards it by position
    forward = "num_output_tokens_so_far,\n            fallback"
    handler = (
        HANDLER_FORWARDING.replace(DELTA, "output.token_ids[tokens_so_far:]")
        .replace(
            forward,
            forward.replace("fallback", "None,\n            delta_ids,\n            fallback"),
        )
        .replace("            delta_ids=delta_ids,\n", "")
    )
    assert detect(HELPER, handler) == Candidate(
        "delta_ids", "output.token_ids[tokens_so_far:]", "self._extract_logprobs"
    )


def test_no_candidate_without_a_delta_handed_to_a_parameter_of_the_helper() -> None:
    assert detect(snippets.HELPER, snippets.HANDLER) is None
    assert detect(HELPER, snippets.HANDLER) is None  # the loop does not pass it
    assert detect(snippets.HELPER, HANDLER_FORWARDING) is None  # no such parameter
    length = HANDLER_FORWARDING.replace(DELTA, 'delta_ids=len(out["token_ids"])')
    assert detect(HELPER, length) is None  # a length of the delta is not the delta
    dropped = HANDLER_FORWARDING.replace("            delta_ids=delta_ids,\n", "")
    assert detect(HELPER, dropped) is None  # the method takes it but does not forward it
    assert fixed_upstream.detect(None, cst.parse_module(HANDLER_FORWARDING)) is None
    assert detect("x = 1\n", HANDLER_FORWARDING) is None


def test_the_series_names_the_candidate_and_stays_drifted_until_judged() -> None:
    result = run_series(wheel(FIXED_UPSTREAM))
    assert result.candidate is not None and result.candidate.reason == CANDIDATE
    assert Status.DRIFTED in {o.status for o in result.outcomes}
    assert not result.fixed_upstream and not result.ok and result.upstream_fix == ""
    unjudged = "not judged (only a run of the release's code can tell)"
    assert result.problems()[0] == f"upstream's own fix? {CANDIDATE}: {unjudged}"
    refuted = result.judged(False, "chunk 3 read the history")
    assert refuted.outcomes == result.outcomes and not refuted.fixed_upstream
    how = f"by a keyword of its own ({CANDIDATE})"
    assert refuted.problems()[0] == f"upstream's own fix? {how}: chunk 3 read the history"
    other = result.judged(False, "chunk 3 read the history", "by another design")
    assert other.problems()[0] == "upstream's own fix? by another design: chunk 3 read the history"
    plain = dataclasses.replace(result, candidate=None).judged(False, "chunk 3 read it")
    assert (
        plain.problems()[-1]
        == "not fixed another way either, by a run of its code: chunk 3 read it"
    )


def test_a_fix_judged_by_a_run_is_fixed_upstream_and_writes_nothing() -> None:
    result = run_series(wheel(FIXED_UPSTREAM)).judged(True, "run: no chunk read the history")
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.FIXED_UPSTREAM] * 3 + [Status.NOT_APPLICABLE] * 2
    assert result.fixed_upstream and not result.ok and not result.not_applicable
    how = f"by a keyword of its own ({CANDIDATE})"
    assert result.changed == {} and result.upstream_fix == f"{how}; run: no chunk read the history"
    assert result.problems() == [f"series fixed upstream: {result.upstream_fix}"]
    helper = f"{SERIES[0].target.path}: extract_from_completion_output"
    assert result.outcomes[0].detail == f"{helper}: fixed upstream {result.upstream_fix}"
    assert result.outcomes[3].detail.endswith("no change to test: the fix is already upstream")
