"""The engine double, the scenarios it replays and the tensorrt_llm stand-in.

These run in the plain tests venv: the stand-in is pure Python, put on ``sys.path`` only
for the tests that need it and removed again afterwards.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from dynpatch.replay import STANDIN_DIR, expect, scenarios
from dynpatch.replay.engine import EngineFailure, Errors, ReplayEngine
from dynpatch.replay.script import Delta, ReplayStep, Script, from_json, request_for, to_json
from dynpatch.replay.timing import chunk_history


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.syspath_prepend(str(STANDIN_DIR))
    import tensorrt_llm

    yield tensorrt_llm
    for name in [m for m in sys.modules if m == "tensorrt_llm" or m.startswith("tensorrt_llm.")]:
        del sys.modules[name]


class Shutdown(Exception):
    pass


@pytest.fixture
def errors(standin: Any) -> Errors:
    from tensorrt_llm.executor.result import Logprob
    from tensorrt_llm.executor.utils import RequestError

    return Errors(RequestError, Shutdown, Logprob)


def drain(result: Any) -> list[list[tuple[int, list[int], int, Any]]]:
    """Snapshot what a consumer sees on each iteration: (index, token ids, #logprobs, finish)."""

    async def go() -> list[list[tuple[int, list[int], int, Any]]]:
        seen = []
        async for res in result:
            assert res is result  # TRT-LLM yields the same result object every time
            seen.append(
                [
                    (o.index, list(o.token_ids), len(o.logprobs), o.finish_reason)
                    for o in res.outputs
                ]
            )
        return seen

    return asyncio.run(go())


def submit(engine: ReplayEngine, script: Script) -> Any:
    return engine.llm.generate_async(inputs=list(script.prompt), sampling_params=None)


def test_cumulative_state_grows_in_place_for_every_choice(errors: Errors) -> None:
    script = scenarios.stream(3, 2)
    engine = ReplayEngine(script, errors)
    result = submit(engine, script)
    outputs = list(result._all)
    seen = drain(result)
    assert len(seen) == 6  # interleaved: one choice grows per result, both are reported
    assert [len(s) for s in seen] == [2] * 6
    assert [len(s[0][1]) for s in seen] == [1, 1, 2, 2, 3, 3]
    assert [len(s[1][1]) for s in seen] == [0, 1, 1, 2, 2, 3]
    assert seen[-1][0][3] == "length" and seen[-1][1][3] == "length"
    assert all(a is b for a, b in zip(result.outputs, outputs, strict=True))
    assert result.finished


def test_logprob_positions_use_the_stand_in_logprob(errors: Errors) -> None:
    script = scenarios.named(["3-choices-interleaved-top5"])[0]
    result = submit(ReplayEngine(script, errors), script)
    drain(result)
    position = result.outputs[0].logprobs[0]
    (first, info), *_ = position.items()
    assert first == result.outputs[0].token_ids[0]
    assert type(info) is errors.logprob and info.rank == 1 and len(position) == 5


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("request", "RequestError"), ("fatal", EngineFailure), ("shutdown", Shutdown)],
)
def test_error_steps_raise_the_types_dynamo_tells_apart(
    errors: Errors, kind: str, expected: Any
) -> None:
    script = Script(
        "e", steps=(ReplayStep((Delta(0, (5,)),)), ReplayStep(raise_kind=kind, message="boom"))
    )
    result = submit(ReplayEngine(script, errors), script)
    expected_type = errors.request_error if expected == "RequestError" else expected
    with pytest.raises(expected_type, match="boom"):
        drain(result)


def test_no_outputs_step_and_trim(errors: Errors) -> None:
    script = Script(
        "t",
        steps=(
            ReplayStep((Delta(0, (1, 2, 3)),)),
            ReplayStep(no_outputs=True),
            ReplayStep(
                (Delta(0, (4,), finish_reason="stop", stop_reason="x", trim=2),), finished=True
            ),
        ),
    )
    seen = drain(submit(ReplayEngine(script, errors), script))
    assert seen == [[(0, [1, 2, 3], 0, None)], [], [(0, [1, 2], 0, "stop")]]


def test_a_cached_prompt_is_also_reported_as_reused_kv_blocks(errors: Errors) -> None:
    # dynamo before 1.5.0 reads cached tokens from request_perf_metrics.kv_cache_metrics.
    cached = dataclasses.replace(scenarios.stream(2, 2), prompt=tuple(range(40)), cached_tokens=33)
    result = submit(ReplayEngine(cached, errors), cached)
    metrics = {id(o.request_perf_metrics) for o in result._all}
    assert len(metrics) == 1
    kv = result._all[0].request_perf_metrics.kv_cache_metrics
    assert (kv.num_reused_blocks, kv.num_missed_blocks) == (2, 1)  # blocks of 32 tokens
    assert result._all[0].request_perf_metrics.timing_metrics is None
    plain = scenarios.stream(2, 2)
    assert all(
        o.request_perf_metrics is None for o in submit(ReplayEngine(plain, errors), plain)._all
    )


def test_rejected_submission_and_single_use(errors: Errors) -> None:
    rejected = Script("r", steps=(), reject="too long")
    with pytest.raises(ValueError, match="too long"):
        submit(ReplayEngine(rejected, errors), rejected)
    script = scenarios.stream(2, 1)
    engine = ReplayEngine(script, errors)
    submit(engine, script)
    with pytest.raises(RuntimeError, match="one request"):
        submit(engine, script)
    assert engine.llm.calls[0]["inputs"] == list(script.prompt)


def test_stand_in_provides_what_dynamo_imports_and_refuses_the_rest(standin: Any) -> None:
    from tensorrt_llm.executor.request import DEFAULT_REQUEST_PRIORITY
    from tensorrt_llm.executor.utils import RequestError
    from tensorrt_llm.llmapi import DisaggregatedParams  # noqa: F401
    from tensorrt_llm.llmapi.llm import SamplingParams
    from tensorrt_llm.sampling_params import GuidedDecodingParams  # noqa: F401
    from tensorrt_llm.scheduling_params import SchedulingParams  # noqa: F401

    assert standin.STANDIN is True
    assert "TEST DOUBLE" in (standin.__doc__ or "")
    assert issubclass(RequestError, Exception)
    assert 0.0 <= DEFAULT_REQUEST_PRIORITY <= 1.0
    replaced = dataclasses.replace(SamplingParams(), n=2, best_of=2)
    assert (replaced.n, replaced.best_of) == (2, 2)
    with pytest.raises(standin.StandInUsed):
        standin.LLM()


def test_named_scenarios_are_deterministic_round_trip_and_checkable() -> None:
    first, second = scenarios.named(), scenarios.named()
    assert first == second
    assert len(first) == len(scenarios.NAMED) >= 25
    for script in first:
        assert from_json(to_json(script)) == script
        assert script.expect, f"{script.name} has no expectations"
        assert set(script.expect) <= set(expect.CHECKS)
    with pytest.raises(KeyError, match="nope"):
        scenarios.named(["nope"])


def test_named_scenarios_cover_the_issue_list() -> None:
    by_name = {s.name: s for s in scenarios.named()}
    assert {s.n for s in by_name.values()} >= {1, 2, 3, 4}
    assert {s.logprobs for s in by_name.values()} >= {None, 0, 1, 5}
    assert any(s.reject for s in by_name.values())
    kinds = {st.raise_kind for s in by_name.values() for st in s.steps}
    assert kinds >= {"request", "fatal", "shutdown"}
    assert any(st.no_outputs for s in by_name.values() for st in s.steps)
    assert any(len(d.tokens) > 1 for s in by_name.values() for st in s.steps for d in st.deltas)
    assert any(  # a result in which nothing grew
        not (st.raise_kind or st.no_outputs or any(d.tokens for d in st.deltas))
        for s in by_name.values()
        for st in s.steps
    )
    assert (
        max(sum(len(d.tokens) for st in s.steps for d in st.deltas) for s in by_name.values())
        >= 16384
    )
    assert by_name["prompt-logprobs"].engine_prompt_logprobs[0] is None  # type: ignore[index]


def test_stream_shape_and_chunk_history() -> None:
    script = scenarios.stream(256, 4)
    assert len(script.steps) == 1024 and script.steps[-1].finished
    assert all(len(s.deltas) == 1 and len(s.deltas[0].tokens) == 1 for s in script.steps)
    assert [s.deltas[0].index for s in script.steps[:5]] == [0, 1, 2, 3, 0]
    history = chunk_history(scenarios.stream(2, 2))
    # results: c0 grows, c1 grows, c0 grows, c1 grows; each reports both choices
    assert history == [1, 0, 1, 1, 2, 1, 2, 2]


def test_request_for_sets_choices_and_logprob_options() -> None:
    script = Script("r", steps=(), n=3, logprobs=0, prompt_logprobs=2, max_tokens=9)
    request = request_for(script)
    assert request["sampling_options"] == {"n": 3}
    assert request["output_options"] == {"logprobs": 0, "prompt_logprobs": 2}
    assert request["stop_conditions"] == {"max_tokens": 9}
    assert request_for(script) is not request
    assert "output_options" not in request_for(Script("q", steps=()))
