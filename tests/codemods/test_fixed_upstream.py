"""fixed_upstream.detect: a release's own fix under other names is found as a *candidate*
(the loop hands its delta to a parameter of the helper), and nothing short of that is;
run_series names the candidate but never calls it fixed upstream by itself: only a judged
verdict (a run of the release's code, tests/dynpatch/test_upstream_fix.py) does."""

from __future__ import annotations

import libcst as cst

from codemods import fixed_upstream, handler_extract_forwards_delta, logprobs_helper
from codemods.outcome import Status
from codemods.series import run_series
from tests.fixtures import snippets
from tests.fixtures.releases import DRIFTED, FIXED_UPSTREAM
from tests.fixtures.upstream_fixes import FORWARDED, HANDLER_FORWARDING, variant

HELPER_PATH = logprobs_helper.TARGET.path
HANDLER_PATH = handler_extract_forwards_delta.PATH
HELPER = FORWARDED  # takes `delta_ids` (after the tokenizer)
CANDIDATE = (
    "extract_from_completion_output takes `delta_ids`; HandlerBase._generate_locally_impl "
    "passes `delta_ids=output.token_ids[tokens_so_far:]` to self._extract_logprobs, which "
    "forwards it"
)


def detect(helper: str, handler: str) -> fixed_upstream.Candidate | None:
    return fixed_upstream.detect(cst.parse_module(helper), cst.parse_module(handler))


def wheel(files: dict[str, str]):
    """A ``read`` over a wheel-layout file map, as the series asks (repository paths)."""
    return lambda path: files.get(path.removeprefix("components/src/"))


def test_a_differently_named_candidate_is_found_with_its_names() -> None:
    found = detect(HELPER, HANDLER_FORWARDING)
    assert found == fixed_upstream.Candidate(
        "delta_ids", "delta_ids=output.token_ids[tokens_so_far:]", "self._extract_logprobs"
    )
    assert found.reason == CANDIDATE
    # a direct call with a name bound from out["token_ids"]
    direct = detect(*variant("guarded-fallback-copy"))
    assert direct == fixed_upstream.Candidate("ids", "ids=chunk", "extract_from_completion_output")


def test_positional_passing_through_the_method() -> None:
    handler = (
        HANDLER_FORWARDING.replace(
            "delta_ids=output.token_ids[tokens_so_far:]", "output.token_ids[tokens_so_far:]"
        )
        .replace(
            "            output,\n            num_output_tokens_so_far,\n            fallback",
            "            output,\n            num_output_tokens_so_far,\n            None,\n"
            "            delta_ids,\n            fallback",
        )
        .replace("            delta_ids=delta_ids,\n", "")
    )
    found = detect(HELPER, handler)
    assert found is not None and found.param == "delta_ids"
    assert found.argument == "output.token_ids[tokens_so_far:]"


def test_no_candidate_without_a_delta_handed_to_a_parameter_of_the_helper() -> None:
    assert detect(snippets.HELPER, snippets.HANDLER) is None
    # the helper takes the delta, but the loop does not pass it
    assert detect(HELPER, snippets.HANDLER) is None
    # the loop passes it, but the helper has no such parameter
    assert detect(snippets.HELPER, HANDLER_FORWARDING) is None
    # a length of the delta is not the delta
    length = HANDLER_FORWARDING.replace(
        "delta_ids=output.token_ids[tokens_so_far:]", 'delta_ids=len(out["token_ids"])'
    )
    assert detect(HELPER, length) is None
    # the method takes the delta but does not forward it
    dropped = HANDLER_FORWARDING.replace("            delta_ids=delta_ids,\n", "")
    assert detect(HELPER, dropped) is None
    # missing modules or functions
    assert fixed_upstream.detect(None, cst.parse_module(HANDLER_FORWARDING)) is None
    assert detect("x = 1\n", HANDLER_FORWARDING) is None


def test_the_series_names_the_candidate_and_stays_drifted_until_judged() -> None:
    result = run_series(wheel(FIXED_UPSTREAM))
    assert result.candidate is not None and result.candidate.reason == CANDIDATE
    assert Status.DRIFTED in {o.status for o in result.outcomes}
    assert not result.fixed_upstream and not result.ok and result.upstream_fix == ""
    assert result.problems()[0] == (
        f"upstream's own fix? {CANDIDATE}: not judged (only a run of the release's code can tell)"
    )
    refuted = result.judged(False, "chunk 3 read the history")
    assert refuted.outcomes == result.outcomes and not refuted.fixed_upstream
    assert refuted.problems()[0] == f"upstream's own fix? {CANDIDATE}: chunk 3 read the history"


def test_a_fix_judged_by_a_run_is_fixed_upstream_and_writes_nothing() -> None:
    result = run_series(wheel(FIXED_UPSTREAM)).judged(True, "run: no chunk read the history")
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.FIXED_UPSTREAM] * 3 + [Status.NOT_APPLICABLE] * 2
    assert result.fixed_upstream and not result.ok and not result.not_applicable
    assert result.changed == {}
    assert result.upstream_fix == f"{CANDIDATE}; run: no chunk read the history"
    assert result.problems() == [f"series fixed upstream: {result.upstream_fix}"]
    assert result.outcomes[0].detail == (
        f"{HELPER_PATH}: extract_from_completion_output: fixed upstream: {result.upstream_fix}"
    )
    assert result.outcomes[3].detail.endswith("no change to test: the fix is already upstream")


def test_a_real_drift_has_no_candidate() -> None:
    result = run_series(wheel(DRIFTED))
    assert Status.DRIFTED in {o.status for o in result.outcomes}
    assert result.candidate is None and not result.fixed_upstream
    # a helper with its own parameter, and a loop that does not pass the delta
    half = {**FIXED_UPSTREAM, HANDLER_PATH.removeprefix("components/src/"): snippets.HANDLER}
    assert run_series(wheel(half)).candidate is None
