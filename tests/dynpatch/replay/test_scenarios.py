"""The named scenarios, the drawn ones and the benchmark's streams: deterministic,
round-trippable, checkable, and shaped as they promise."""

from __future__ import annotations

import pytest

from dynpatch.replay import expect, scenarios
from dynpatch.replay.properties import draw_scripts
from dynpatch.replay.script import Script, chunk_history, from_json, request_for, to_json

GAIN = "4-choices-uneven-multi-token-top5"


@pytest.fixture(scope="module")
def named() -> dict[str, Script]:
    return {s.name: s for s in scenarios.named()}


def test_scripts_are_deterministic_round_trip_and_checkable(named: dict[str, Script]) -> None:
    assert list(named) == list(scenarios.NAMED) and len(named) >= 25
    short = [s for s in named.values() if s.name != "long-stream-16k-top5"]
    assert scenarios.named([s.name for s in short]) == short
    drawn = draw_scripts(6, seed=3)
    assert drawn == draw_scripts(6, seed=3) != draw_scripts(6, seed=4)
    assert [s.name for s in drawn[:2]] == ["property-000", "property-001"]
    for script in short + drawn:
        assert from_json(to_json(script)) == script
    for script in named.values():
        assert script.expect, f"{script.name} has no expectations"
        assert {e.removeprefix("no_") for e in script.expect} <= set(expect.CHECKS)
    with pytest.raises(KeyError, match="nope"):
        scenarios.named(["nope"])
    for (name, expectation), since in scenarios.SINCE.items():
        assert expectation in named[name].expect, (name, expectation)
        assert since.count(".") == 2 and since.replace(".", "").isdigit()


def test_named_scenarios_cover_the_issue_list(named: dict[str, Script]) -> None:
    scripts = named.values()
    assert {s.n for s in scripts} >= {1, 2, 3, 4}
    assert {s.logprobs for s in scripts} >= {None, 0, 1, 5}
    assert any(s.reject for s in scripts)
    assert {st.raise_kind for s in scripts for st in s.steps} >= {"request", "fatal", "shutdown"}
    assert any(st.no_outputs for s in scripts for st in s.steps)
    assert any(d.trim for s in scripts for st in s.steps for d in st.deltas)
    assert any(  # a result in which nothing grew
        not (st.raise_kind or st.no_outputs or any(d.tokens for d in st.deltas))
        for s in scripts
        for st in s.steps
    )
    assert max(sum(len(d.tokens) for st in s.steps for d in st.deltas) for s in scripts) >= 16384
    assert named["prompt-logprobs"].engine_prompt_logprobs[0] is None  # type: ignore[index]


def test_the_largest_gain_case_grows_every_choice_unevenly(named: dict[str, Script]) -> None:
    script = named[GAIN]
    assert (script.n, script.logprobs, script.max_tokens) == (4, 5, 48)
    assert {"empty_delta", "multi_token", "top_logprobs", "finish"} <= set(script.expect)
    grown, behind = [0] * 4, 0
    for step in script.steps:
        assert step.deltas and len({d.index for d in step.deltas}) == len(step.deltas)
        behind += sum(g < 48 for g in grown) - len(step.deltas)  # live choices left behind
        for d in step.deltas:
            assert d.tokens and len(d.logprobs) == len(d.tokens)
            assert all(len(p) == 5 for p in d.logprobs)  # type: ignore[arg-type]
            assert d.tokens[0] == d.logprobs[0][0][0]  # type: ignore[index]  # selected, rank 1
            grown[d.index] += len(d.tokens)
            assert (d.finish_reason == "length") == (grown[d.index] == 48)
    assert grown == [48] * 4 and behind >= len(script.steps)
    assert script.steps[-1].finished and not any(s.finished for s in script.steps[:-1])
    assert max(len(d.tokens) for s in script.steps for d in s.deltas) > 1
    # Every result reports all four choices (the engine double hands out every output).
    assert len(chunk_history(script)) == 4 * len(script.steps)


def test_stream_shape_and_chunk_history() -> None:
    script = scenarios.stream(256, 4)
    assert len(script.steps) == 1024 and script.steps[-1].finished
    assert all(len(s.deltas) == 1 and len(s.deltas[0].tokens) == 1 for s in script.steps)
    assert [s.deltas[0].index for s in script.steps[:5]] == [0, 1, 2, 3, 0]
    # results: c0 grows, c1 grows, c0 grows, c1 grows; each reports both choices
    assert chunk_history(scenarios.stream(2, 2)) == [1, 0, 1, 1, 2, 1, 2, 2]
    trimmed = scenarios.named(["stop-word-trimmed"])[0]
    assert chunk_history(trimmed) == [3, 6, 5]  # the stop word's two tokens dropped


def test_request_for_sets_choices_and_logprob_options() -> None:
    script = Script("r", steps=(), n=3, logprobs=0, prompt_logprobs=2, max_tokens=9)
    request = request_for(script)
    assert request["sampling_options"] == {"n": 3}
    assert request["output_options"] == {"logprobs": 0, "prompt_logprobs": 2}
    assert request["stop_conditions"] == {"max_tokens": 9}
    assert request_for(script) is not request
    assert "output_options" not in request_for(Script("q", steps=()))
