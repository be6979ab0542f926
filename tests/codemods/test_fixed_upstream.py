"""fixed_upstream.detect: an equivalent fix under other names is recognised by what it does
(no history copy where the delta is given; the loop hands the delta over), and nothing
short of both is; run_series then reports the fix targets fixed upstream, writes nothing,
and a real drift stays a drift."""

from __future__ import annotations

import libcst as cst

from codemods import fixed_upstream, handler_extract_forwards_delta, logprobs_helper
from codemods.outcome import Status
from codemods.series import run_series
from tests.fixtures import snippets
from tests.fixtures.releases import (
    DRIFTED,
    FIXED_UPSTREAM,
    HANDLER_FIXED_UPSTREAM,
    HELPER_FIXED_UPSTREAM,
)

HELPER_PATH = logprobs_helper.TARGET.path
HANDLER_PATH = handler_extract_forwards_delta.PATH
LOOP_CALL = "output, tokens_so_far, delta_ids=output.token_ids[tokens_so_far:]"


def detect(helper: str, handler: str) -> fixed_upstream.Finding | None:
    return fixed_upstream.detect(cst.parse_module(helper), cst.parse_module(handler))


def wheel(files: dict[str, str]):
    """A ``read`` over a wheel-layout file map, as the series asks (repository paths)."""
    return lambda path: files.get(path.removeprefix("components/src/"))


def test_a_differently_named_fix_is_found_with_its_names() -> None:
    found = detect(HELPER_FIXED_UPSTREAM, HANDLER_FIXED_UPSTREAM)
    assert found == fixed_upstream.Finding(
        "delta_ids", "delta_ids=output.token_ids[tokens_so_far:]", "self._extract_logprobs"
    )
    assert found.reason == (
        "extract_from_completion_output takes `delta_ids` and copies no token-id history "
        "when it is given; HandlerBase._generate_locally_impl passes "
        "`delta_ids=output.token_ids[tokens_so_far:]` to self._extract_logprobs, which "
        "forwards it"
    )


def test_a_direct_call_with_a_name_bound_from_out_and_a_guarded_fallback_copy() -> None:
    # The helper keeps the old copy, but only where the delta is not given.
    helper = snippets.HELPER_PATCHED.replace("new_token_ids", "ids")
    handler = snippets.HANDLER.replace(
        """                log_probs, top_logprobs = self._extract_logprobs(
                    output, tokens_so_far
                )""",
        """                chunk = out["token_ids"]
                log_probs, top_logprobs = _shared_logprobs.extract_from_completion_output(
                    output, tokens_so_far, ids=chunk
                )""",
    )
    assert "ids=chunk" in handler
    found = detect(helper, handler)
    assert found is not None
    assert (found.param, found.argument, found.via) == (
        "ids",
        "ids=chunk",
        "extract_from_completion_output",
    )


def test_positional_passing_through_the_method() -> None:
    handler = HANDLER_FIXED_UPSTREAM.replace(
        "delta_ids=output.token_ids[tokens_so_far:]", "output.token_ids[tokens_so_far:]"
    ).replace(
        """            output,
            num_output_tokens_so_far,
            fallback""",
        """            output,
            num_output_tokens_so_far,
            None,
            delta_ids,
            fallback""",
    )
    handler = handler.replace("            delta_ids=delta_ids,\n", "")
    found = detect(HELPER_FIXED_UPSTREAM, handler)
    assert found is not None and found.param == "delta_ids"
    assert found.argument == "output.token_ids[tokens_so_far:]"


def test_the_unfixed_release_and_half_fixes_are_not_fixed_upstream() -> None:
    assert detect(snippets.HELPER, snippets.HANDLER) is None
    # the helper takes the delta, but the loop does not pass it
    assert detect(HELPER_FIXED_UPSTREAM, snippets.HANDLER) is None
    # the loop passes it, but the helper has no such parameter
    assert detect(snippets.HELPER, HANDLER_FIXED_UPSTREAM) is None
    # the helper still copies the history where the delta is given
    copying = HELPER_FIXED_UPSTREAM.replace(
        '    if not getattr(output, "logprobs", None):',
        '    history = list(output.token_ids)\n    if not getattr(output, "logprobs", None):',
    )
    assert detect(copying, HANDLER_FIXED_UPSTREAM) is None
    getattr_copy = copying.replace("list(output.token_ids)", 'list(getattr(output, "token_ids"))')
    assert detect(getattr_copy, HANDLER_FIXED_UPSTREAM) is None
    # a length of the delta is not the delta
    length = HANDLER_FIXED_UPSTREAM.replace(
        "delta_ids=output.token_ids[tokens_so_far:]", 'delta_ids=len(out["token_ids"])'
    )
    assert detect(HELPER_FIXED_UPSTREAM, length) is None
    # the method takes the delta but does not forward it
    dropped = HANDLER_FIXED_UPSTREAM.replace("            delta_ids=delta_ids,\n", "")
    assert detect(HELPER_FIXED_UPSTREAM, dropped) is None
    # missing modules or functions
    assert fixed_upstream.detect(None, cst.parse_module(HANDLER_FIXED_UPSTREAM)) is None
    assert detect("x = 1\n", HANDLER_FIXED_UPSTREAM) is None


def test_the_series_reports_fixed_upstream_and_writes_nothing() -> None:
    result = run_series(wheel(FIXED_UPSTREAM))
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.FIXED_UPSTREAM] * 3 + [Status.NOT_APPLICABLE] * 2
    assert result.fixed_upstream and not result.ok and not result.not_applicable
    assert result.changed == {}
    reason = fixed_upstream.detect(
        cst.parse_module(HELPER_FIXED_UPSTREAM), cst.parse_module(HANDLER_FIXED_UPSTREAM)
    )
    assert reason is not None and result.upstream_fix == reason.reason
    assert result.problems() == [f"series fixed upstream: {reason.reason}"]
    helper = result.outcomes[0]
    assert helper.detail == (
        f"{HELPER_PATH}: extract_from_completion_output: fixed upstream: {reason.reason}"
    )
    assert "`delta_ids`" in helper.detail and LOOP_CALL.split(", ")[2] in helper.detail
    assert result.outcomes[3].detail.endswith("no change to test: the fix is already upstream")


def test_a_real_drift_stays_a_drift() -> None:
    result = run_series(wheel(DRIFTED))
    assert Status.DRIFTED in {o.status for o in result.outcomes}
    assert not result.fixed_upstream and result.upstream_fix == ""
    # a helper fixed upstream with a loop that does not pass the delta: still drifted
    half = {**FIXED_UPSTREAM, HANDLER_PATH.removeprefix("components/src/"): snippets.HANDLER}
    result = run_series(wheel(half))
    assert result.outcomes[0].status is Status.DRIFTED
    assert not result.fixed_upstream


def test_the_unfixed_release_still_applies() -> None:
    result = run_series(wheel({**FIXED_UPSTREAM, HELPER_PATH.removeprefix("components/src/"):
                               snippets.HELPER, HANDLER_PATH.removeprefix("components/src/"):
                               snippets.HANDLER}))  # fmt: skip
    assert result.ok and not result.fixed_upstream and result.changed
