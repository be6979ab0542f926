"""The engine double and the tensorrt_llm stand-in (pure Python: on ``sys.path`` only for
the test that imports it)."""

from __future__ import annotations

import asyncio
import dataclasses
import sys

import pytest

from dynpatch.replay import STANDIN_DIR, scenarios
from dynpatch.replay.engine import EngineFailure, ReplayEngine
from dynpatch.replay.script import Delta, ReplayStep, Script
from tests.fixtures.replay import ERRORS


def drain(script: Script, engine: ReplayEngine | None = None) -> list[list[tuple]]:
    """What a consumer sees on each result: (index, token ids, #logprobs, finish) per output."""
    result = (engine or ReplayEngine(script, ERRORS)).llm.generate_async(list(script.prompt), None)

    async def go() -> list[list[tuple]]:
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


def test_cumulative_state_grows_in_place_for_every_choice() -> None:
    script = scenarios.stream(3, 2, k=5)
    engine = ReplayEngine(script, ERRORS)
    seen = drain(script, engine)
    assert [len(s) for s in seen] == [2] * 6  # one choice grows per result, both reported
    assert [len(s[0][1]) for s in seen] == [1, 1, 2, 2, 3, 3]
    assert [s[1][2] for s in seen] == [0, 1, 1, 2, 2, 3]  # a logprob position per token
    assert seen[-1][0][3] == "length" and seen[-1][1][3] == "length"
    result = engine.llm.submitted
    assert result is not None and result.finished and result.outputs is result._all
    (first, info), *_ = result.outputs[0].logprobs[0].items()
    assert first == result.outputs[0].token_ids[0]
    assert type(info) is ERRORS.logprob and info.rank == 1
    assert len(result.outputs[0].logprobs[0]) == 5


def test_error_steps_raise_the_types_dynamo_tells_apart() -> None:
    raised = (ERRORS.request_error, EngineFailure, ERRORS.engine_shutdown)
    for kind, expected in zip(("request", "fatal", "shutdown"), raised, strict=True):
        steps = (ReplayStep((Delta(0, (5,)),)), ReplayStep(raise_kind=kind, message="boom"))
        with pytest.raises(expected, match="boom"):
            drain(Script("e", steps))


def test_no_outputs_step_and_trim() -> None:
    last = Delta(0, (4,), finish_reason="stop", stop_reason="x", trim=2)
    steps = (ReplayStep((Delta(0, (1, 2, 3)),)), ReplayStep(no_outputs=True), ReplayStep((last,)))
    seen = drain(Script("t", steps))
    assert seen == [[(0, [1, 2, 3], 0, None)], [], [(0, [1, 2], 0, "stop")]]


def test_a_cached_prompt_is_also_reported_as_reused_kv_blocks() -> None:
    # dynamo before 1.5.0 reads cached tokens from request_perf_metrics.kv_cache_metrics.
    cached = dataclasses.replace(scenarios.stream(2, 2), prompt=tuple(range(40)), cached_tokens=33)
    outputs = ReplayEngine(cached, ERRORS).llm.generate_async([], None)._all
    assert len({id(o.request_perf_metrics) for o in outputs}) == 1
    kv = outputs[0].request_perf_metrics.kv_cache_metrics
    assert (kv.num_reused_blocks, kv.num_missed_blocks) == (2, 1)  # blocks of 32 tokens
    assert outputs[0].request_perf_metrics.timing_metrics is None
    plain = ReplayEngine(scenarios.stream(2, 2), ERRORS).llm.generate_async([], None)._all
    assert all(o.request_perf_metrics is None for o in plain)


def test_rejected_submission_and_single_use() -> None:
    with pytest.raises(ValueError, match="too long"):
        drain(Script("r", steps=(), reject="too long"))
    script = scenarios.stream(2, 1)
    engine = ReplayEngine(script, ERRORS)
    drain(script, engine)
    with pytest.raises(RuntimeError, match="one request"):
        drain(script, engine)
    assert engine.llm.calls[0]["inputs"] == list(script.prompt)
    assert engine.llm.calls[0]["sampling_params"] is None


def test_stand_in_provides_what_dynamo_imports_and_refuses_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(STANDIN_DIR))
    try:
        import tensorrt_llm
        from tensorrt_llm.executor.request import DEFAULT_REQUEST_PRIORITY
        from tensorrt_llm.executor.result import Logprob
        from tensorrt_llm.executor.utils import RequestError
        from tensorrt_llm.llmapi import DisaggregatedParams  # noqa: F401
        from tensorrt_llm.llmapi.llm import SamplingParams
        from tensorrt_llm.sampling_params import GuidedDecodingParams  # noqa: F401
        from tensorrt_llm.scheduling_params import SchedulingParams  # noqa: F401

        assert tensorrt_llm.STANDIN is True and "TEST DOUBLE" in (tensorrt_llm.__doc__ or "")
        assert issubclass(RequestError, Exception) and 0.0 <= DEFAULT_REQUEST_PRIORITY <= 1.0
        assert Logprob(-0.5, 1).rank == 1
        replaced = dataclasses.replace(SamplingParams(), n=2, best_of=2)
        assert (replaced.n, replaced.best_of) == (2, 2)
        with pytest.raises(tensorrt_llm.StandInUsed):
            tensorrt_llm.LLM()
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "tensorrt_llm"]:
            del sys.modules[name]
