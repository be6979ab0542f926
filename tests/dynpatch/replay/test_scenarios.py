"""Named scenarios not covered in test_engine: the case where the fix gains most, and the
expectations that hold only from some release on."""

from __future__ import annotations

from dynpatch.replay import scenarios
from dynpatch.replay.timing import chunk_history

GAIN = "4-choices-uneven-multi-token-top5"


def test_the_largest_gain_case_is_a_named_scenario() -> None:
    [script] = scenarios.named([GAIN])
    assert GAIN in scenarios.NAMED
    assert (script.n, script.logprobs) == (4, 5)
    assert {"empty_delta", "multi_token", "top_logprobs", "finish"} <= set(script.expect)
    grown, behind = [0] * 4, 0
    for step in script.steps:
        live = [c for c in range(4) if grown[c] < script.max_tokens]  # type: ignore[operator]
        behind += len(live) - len(step.deltas)  # live choices that did not advance
        for d in step.deltas:
            grown[d.index] += len(d.tokens)
            assert len(d.logprobs) == len(d.tokens) and all(len(p) == 5 for p in d.logprobs)  # type: ignore[arg-type]
    assert behind >= len(script.steps)  # on average a live choice stands still every result
    assert max(len(d.tokens) for s in script.steps for d in s.deltas) > 1
    assert grown == [script.max_tokens] * 4
    assert len(chunk_history(script)) == 4 * len(script.steps)  # all 4 on every result


def test_every_later_release_expectation_names_a_scenario_that_expects_it() -> None:
    by_name = {s.name: s for s in scenarios.named()}
    assert scenarios.SINCE
    for (name, expectation), since in scenarios.SINCE.items():
        assert expectation in by_name[name].expect, (name, expectation)
        assert since.count(".") == 2 and since.replace(".", "").isdigit()
